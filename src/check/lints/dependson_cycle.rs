//! `dependson-cycle`: `dependsOn` entries that form a cycle. Every member
//! waits for another: none reconciles. Reported once per cycle, at its
//! first member.

use std::collections::{BTreeMap, BTreeSet};

use super::{Ctx, is_helmrelease, ns_or_default};
use crate::check::Finding;

/// The cycles of a graph, each as a path from its smallest node back to it.
pub fn cycles(graph: &BTreeMap<String, Vec<String>>) -> Vec<Vec<String>> {
    // Tarjan's strongly connected components; a component with more than
    // one node, or a node depending on itself, is a cycle.
    struct T<'g> {
        graph: &'g BTreeMap<String, Vec<String>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on: BTreeSet<&'g str>,
        next: usize,
        out: Vec<Vec<String>>,
    }
    impl<'g> T<'g> {
        fn visit(&mut self, v: &'g str) {
            self.index.insert(v, self.next);
            self.low.insert(v, self.next);
            self.next += 1;
            self.stack.push(v);
            self.on.insert(v);
            for w in self.graph.get(v).map(Vec::as_slice).unwrap_or(&[]) {
                if !self.graph.contains_key(w) {
                    continue;
                }
                let w = self.graph.get_key_value(w).expect("node").0.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let l = self.low[w].min(self.low[v]);
                    self.low.insert(v, l);
                } else if self.on.contains(w) {
                    let l = self.index[w].min(self.low[v]);
                    self.low.insert(v, l);
                }
            }
            if self.low[v] == self.index[v] {
                let mut comp = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on.remove(w);
                    comp.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                let self_loop = self.graph[v].iter().any(|x| x == v);
                if comp.len() > 1 || self_loop {
                    comp.sort();
                    self.out.push(comp);
                }
            }
        }
    }
    let mut t = T {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.visit(v);
        }
    }
    // Order each component as a walk: start at the smallest member, follow
    // edges inside the component.
    t.out
        .into_iter()
        .map(|comp| {
            let set: BTreeSet<&String> = comp.iter().collect();
            let start = comp[0].clone();
            let mut path = vec![start.clone()];
            let mut cur = start.clone();
            let mut seen = BTreeSet::from([start.clone()]);
            loop {
                let next = graph[&cur]
                    .iter()
                    .find(|n| set.contains(n) && (!seen.contains(*n) || **n == start));
                match next {
                    Some(n) if *n == start => {
                        path.push(start.clone());
                        break;
                    }
                    Some(n) => {
                        seen.insert(n.clone());
                        path.push(n.clone());
                        cur = n.clone();
                    }
                    None => {
                        path.push(start.clone());
                        break;
                    }
                }
            }
            path
        })
        .collect()
}

pub fn run(ctx: &Ctx, out: &mut Vec<Finding>) {
    let graph: BTreeMap<String, Vec<String>> = ctx
        .env
        .rendered
        .kustomizations
        .iter()
        .map(|k| (k.key(), k.depends_on.clone()))
        .collect();
    for cycle in cycles(&graph) {
        let first = &cycle[0];
        let Some(k) = ctx
            .env
            .rendered
            .kustomizations
            .iter()
            .find(|k| &k.key() == first)
        else {
            continue;
        };
        let members: Vec<_> = cycle
            .iter()
            .filter_map(|c| ctx.ks_objects.get(c).map(|(_, o)| *o))
            .collect();
        if super::any_opted_out(&members, "dependson-cycle") {
            continue;
        }
        let (file, line) = ctx.ks_at(k, "spec.dependsOn");
        out.push(
            ctx.finding(
                "dependson-cycle",
                format!(
                    "Kustomization dependsOn cycle: {}; none of them ever reconciles",
                    cycle.join(" -> ")
                ),
            )
            .at(file, line)
            .ks(k.key())
            .path("spec.dependsOn"),
        );
    }
    // HelmReleases.
    let mut hr_graph: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut hr_at = BTreeMap::new();
    for (k, o) in &ctx.all {
        if !is_helmrelease(o) {
            continue;
        }
        let key = format!("{}/{}", ns_or_default(o), o.name());
        let deps = match o.obj.get_path(&["spec", "dependsOn"]) {
            Some(crate::yaml::Node::Seq(ds)) => ds
                .iter()
                .map(|d| {
                    let ns = d
                        .get_str(&["namespace"])
                        .map(str::to_string)
                        .unwrap_or_else(|| ns_or_default(o));
                    format!("{ns}/{}", d.get_str(&["name"]).unwrap_or(""))
                })
                .collect(),
            _ => Vec::new(),
        };
        hr_graph.insert(key.clone(), deps);
        hr_at.insert(key, (*k, *o));
    }
    for cycle in cycles(&hr_graph) {
        let Some((k, o)) = hr_at.get(&cycle[0]) else {
            continue;
        };
        let members: Vec<_> = cycle
            .iter()
            .filter_map(|c| hr_at.get(c).map(|x| x.1))
            .collect();
        if super::any_opted_out(&members, "dependson-cycle") {
            continue;
        }
        let (file, line) = ctx.at(k, o, "spec.dependsOn");
        out.push(
            ctx.finding(
                "dependson-cycle",
                format!("HelmRelease dependsOn cycle: {}", cycle.join(" -> ")),
            )
            .at(file, line)
            .ks(k.key())
            .object(o)
            .path("spec.dependsOn"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_cycles() {
        let g: BTreeMap<String, Vec<String>> = [
            ("a", vec!["b"]),
            ("b", vec!["c"]),
            ("c", vec!["a"]),
            ("d", vec!["a"]),
            ("e", vec!["e"]),
            ("f", vec!["x"]),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.into_iter().map(String::from).collect()))
        .collect();
        let c = cycles(&g);
        assert_eq!(c.len(), 2);
        assert!(c.contains(&vec!["a".into(), "b".into(), "c".into(), "a".into()]));
        assert!(c.contains(&vec!["e".into(), "e".into()]));
    }
}
