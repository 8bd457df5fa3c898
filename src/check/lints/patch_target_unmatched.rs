//! `patch-target-unmatched`: a Flux Kustomization `spec.patches` entry
//! whose target names an object (`name`, with any selectors) and matches
//! none of the objects the Kustomization renders. kustomize ignores such a
//! patch silently; it is almost always a typo (or an app that was
//! renamed). Targets without a name may match nothing: kind-wide ones are
//! broadcasts, selector-only ones opt-in hooks (an object joins by
//! carrying the label).

use super::{Ctx, name_matches};
use crate::check::Finding;
use crate::flux::Status;
use crate::resource::Resource;
use crate::yaml::Node;

/// A Kubernetes label selector (equality and set based) against labels.
pub fn selector_matches(selector: &str, labels: Option<&crate::yaml::Map>) -> bool {
    let get = |k: &str| labels.and_then(|m| m.get(k)).and_then(Node::scalar_text);
    // Split on commas outside parentheses.
    let mut terms = Vec::new();
    let (mut depth, mut cur) = (0, String::new());
    for c in selector.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                terms.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    terms.push(cur);
    terms
        .iter()
        .map(|t| t.trim())
        .filter(|t| !t.is_empty())
        .all(|t| {
            let set = |s: &str| -> Vec<String> {
                s.trim()
                    .trim_start_matches('(')
                    .trim_end_matches(')')
                    .split(',')
                    .map(|x| x.trim().to_string())
                    .collect()
            };
            if let Some((k, v)) = t.split_once(" notin ") {
                return get(k.trim()).is_none_or(|x| !set(v).contains(&x));
            }
            if let Some((k, v)) = t.split_once(" in ") {
                return get(k.trim()).is_some_and(|x| set(v).contains(&x));
            }
            if let Some((k, v)) = t.split_once("!=") {
                return get(k.trim()).as_deref() != Some(v.trim());
            }
            if let Some((k, v)) = t.split_once("==").or_else(|| t.split_once('=')) {
                return get(k.trim()).as_deref() == Some(v.trim());
            }
            if let Some(k) = t.strip_prefix('!') {
                return get(k.trim()).is_none();
            }
            get(t).is_some()
        })
}

/// Whether object `o` is selected by `target` (before or after renames).
fn selected(target: &Node, o: &Resource) -> bool {
    let s = |k: &str| target.get_str(&[k]).unwrap_or("");
    let g = o.gvk();
    let re = |p: &str, v: &str| name_matches(p, v);
    if !(re(s("group"), &g.group) && re(s("version"), &g.version) && re(s("kind"), &g.kind)) {
        return false;
    }
    let mut ids = vec![(o.name().to_string(), o.namespace().to_string())];
    ids.extend(
        o.prev_ids
            .iter()
            .map(|p| (p.name.clone(), p.namespace.clone())),
    );
    let id_ok = ids
        .iter()
        .any(|(n, ns)| re(s("name"), n) && (s("namespace").is_empty() || re(s("namespace"), ns)));
    id_ok
        && (s("labelSelector").is_empty() || selector_matches(s("labelSelector"), o.labels()))
        && (s("annotationSelector").is_empty()
            || selector_matches(s("annotationSelector"), o.annotations()))
}

pub fn run(ctx: &Ctx, out: &mut Vec<Finding>) {
    for k in &ctx.env.rendered.kustomizations {
        if k.status != Status::Rendered {
            continue;
        }
        let Some((_, obj)) = ctx.ks_objects.get(&k.key()) else {
            continue;
        };
        if crate::check::opted_out(obj, "patch-target-unmatched") {
            continue;
        }
        let Some(Node::Seq(entries)) = obj.obj.get_path(&["spec", "patches"]) else {
            continue;
        };
        for (i, e) in entries.iter().enumerate() {
            let Some(target) = e.get("target").filter(|t| !t.is_null()) else {
                continue;
            };
            let s = |key: &str| target.get_str(&[key]).unwrap_or("").to_string();
            // Only a named target is a promise to match something: a
            // kind-wide or selector-only patch is a broadcast or an opt-in
            // hook (objects join it by carrying the label), legitimately
            // matching nothing for now.
            if s("name").is_empty() {
                continue;
            }
            if k.objects.iter().any(|o| selected(target, o)) {
                continue;
            }
            let what: Vec<String> = [
                "group",
                "version",
                "kind",
                "name",
                "namespace",
                "labelSelector",
                "annotationSelector",
            ]
            .iter()
            .filter(|f| !s(f).is_empty())
            .map(|f| format!("{f}={}", s(f)))
            .collect();
            let sources = ctx.patch_sources(k);
            let needle = format!("name: {}", s("name"));
            let (file, line) =
                match ctx
                    .loc
                    .search(&sources, &needle, &[&s("kind")], Some("target:"))
                {
                    Some((f, l)) => (Some(ctx.rel(&f)), l),
                    None => ctx.ks_at(k, "spec.patches"),
                };
            out.push(
                ctx.finding(
                    "patch-target-unmatched",
                    format!(
                        "Kustomization {} spec.patches[{i}] targets {} but renders no such object: the patch is silently ignored",
                        k.key(),
                        what.join(" ")
                    ),
                )
                .at(file, line)
                .ks(k.key())
                .path(format!("spec.patches[{i}].target")),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_selectors() {
        let m = crate::yaml::parse_one("app: web\ntier: front\n").unwrap();
        let l = m.as_map();
        assert!(selector_matches("app=web", l));
        assert!(selector_matches("app==web,tier", l));
        assert!(!selector_matches("app!=web", l));
        assert!(selector_matches("tier in (front, back)", l));
        assert!(!selector_matches("tier notin (front)", l));
        assert!(selector_matches("!missing", l));
        assert!(!selector_matches("missing", l));
    }
}
