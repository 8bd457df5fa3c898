//! `patch-target-unmatched`: a Flux Kustomization `spec.patches` entry
//! whose target names an object (`name`, with any selectors) and matches
//! none of the objects the Kustomization renders. kustomize ignores such a
//! patch silently; it is almost always a typo (or an app that was
//! renamed). Targets without a name may match nothing: kind-wide ones are
//! broadcasts, selector-only ones opt-in hooks (an object joins by
//! carrying the label). The same entry in several children of one parent
//! (a parent's patch of `kind: Kustomization` writes it into each) is a
//! broadcast too: reported once, when none of them matches.

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
pub(super) fn selected(target: &Node, o: &Resource) -> bool {
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

/// A patch entry as text, to find the same entry in sibling
/// Kustomizations.
fn entry_key(e: &Node) -> String {
    crate::yaml::emit::to_string(e)
}

/// Patch entries that a parent gives its children (the same entry in two
/// or more Kustomizations of one parent, as a parent's `spec.patches` of
/// `kind: Kustomization` writes into every child), by (parent, entry):
/// whether any of those children renders an object it selects. Such a
/// patch is a broadcast: it is meant to match in some children only.
fn broadcasts(ctx: &Ctx) -> std::collections::HashMap<(String, String), (usize, bool)> {
    let mut seen: std::collections::HashMap<(String, String), (usize, bool)> =
        std::collections::HashMap::new();
    for k in &ctx.env.rendered.kustomizations {
        let Some(parent) = &k.parent else {
            continue;
        };
        let Some((_, obj)) = ctx.ks_objects.get(&k.key()) else {
            continue;
        };
        let Some(Node::Seq(entries)) = obj.obj.get_path(&["spec", "patches"]) else {
            continue;
        };
        for e in entries {
            let Some(target) = e.get("target").filter(|t| !t.is_null()) else {
                continue;
            };
            let hit = k.status == Status::Rendered && k.objects.iter().any(|o| selected(target, o));
            let v = seen.entry((parent.clone(), entry_key(e))).or_default();
            v.0 += 1;
            v.1 |= hit;
        }
    }
    seen
}

pub fn run(ctx: &Ctx, out: &mut Vec<Finding>) {
    let shared = broadcasts(ctx);
    // A broadcast that matches in no child is reported once.
    let mut reported: std::collections::HashSet<(String, String)> =
        std::collections::HashSet::new();
    for (k, entries) in ctx.patching_kustomizations("patch-target-unmatched") {
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
            let from_parent = k.parent.as_ref().and_then(|p| {
                let key = (p.clone(), entry_key(e));
                let &(n, hit) = shared.get(&key)?;
                (n > 1).then_some((key, n, hit))
            });
            if let Some((key, _, hit)) = &from_parent
                && (*hit || !reported.insert(key.clone()))
            {
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
                    match &from_parent {
                        Some(((parent, _), n, _)) => format!(
                            "Kustomization {} spec.patches[{i}] targets {} but neither it nor any of the other {} Kustomizations of {parent} carrying the same patch renders such an object: the patch is silently ignored",
                            k.key(),
                            what.join(" "),
                            n - 1
                        ),
                        None => format!(
                            "Kustomization {} spec.patches[{i}] targets {} but renders no such object: the patch is silently ignored",
                            k.key(),
                            what.join(" ")
                        ),
                    },
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
