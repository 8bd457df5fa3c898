//! `targetnamespace-mismatch`: a Flux Kustomization listed in a namespace
//! overlay (a kustomization directory whose own resource files define
//! exactly one Namespace: the one its `namespace:` field names, else that
//! Namespace's name, unless it is `default` and no `namespace:` is set)
//! whose `spec.targetNamespace` names another namespace. The app deploys
//! somewhere other than the folder says. A kustomization listed there that
//! sets a `namespace:` of its own puts its Kustomizations in that namespace
//! (unless the overlay sets one too, which wins): they are not the
//! overlay's.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::Ctx;
use crate::check::Finding;
use crate::check::kustfiles::KustFile;
use crate::flux::model::KUSTOMIZE_GROUP;
use crate::resource::Gvk;

/// Documents of a file: (line, apiVersion, kind, name).
fn docs(ctx: &Ctx, f: &Path) -> Vec<(usize, String, String, String)> {
    let Some(text) = ctx.loc.text(f) else {
        return Vec::new();
    };
    if !text.contains("Namespace") && !text.contains("Kustomization") {
        return Vec::new();
    }
    let Some(ds) = ctx.docs(f) else {
        return Vec::new();
    };
    ds.iter()
        .map(|d| {
            let s = |p: &[&str]| d.node.get_str(p).unwrap_or("").to_string();
            (
                d.line,
                s(&["apiVersion"]),
                s(&["kind"]),
                s(&["metadata", "name"]),
            )
        })
        .collect()
}

/// The namespace of a namespace overlay. The kustomization's own
/// `namespace:` renames the Namespace object (kustomize's namespace
/// transformer sets a Namespace's name), so a placeholder name such as
/// `_` is the namespace that field names.
fn overlay_namespace(ctx: &Ctx, kf: &KustFile) -> Option<String> {
    let mut names = Vec::new();
    for f in &kf.resource_files {
        for (_, api, kind, name) in docs(ctx, f) {
            if api == "v1" && kind == "Namespace" {
                names.push(name);
            }
        }
    }
    if names.len() != 1 {
        return None;
    }
    match namespace_field(kf) {
        Some(ns) => Some(ns.to_string()),
        // A directory that only annotates or labels the built-in `default`
        // namespace (a cluster's entry, a "foundation" layer) does not
        // make it the namespace of the Kustomizations it lists.
        None if names[0] == "default" => None,
        None => Some(names.remove(0)),
    }
}

/// The non-empty `namespace:` field of a kustomization.
fn namespace_field(kf: &KustFile) -> Option<&str> {
    kf.node
        .as_ref()
        .and_then(|n| n.get_str(&["namespace"]))
        .filter(|n| !n.is_empty())
}

/// Flux Kustomization documents listed under `kf`, not crossing into
/// another namespace overlay: (file, line). With `own` (the overlay's
/// namespace when the overlay sets no `namespace:` field, which would
/// override theirs), not into a kustomization whose `namespace:` puts its
/// objects in another namespace either.
fn listed(
    ctx: &Ctx,
    kf: &KustFile,
    own: Option<&str>,
    seen: &mut HashSet<PathBuf>,
    out: &mut Vec<(PathBuf, usize)>,
) {
    if !seen.insert(kf.dir.clone()) {
        return;
    }
    for f in &kf.resource_files {
        for (line, api, kind, _) in docs(ctx, f) {
            if kind == "Kustomization"
                && Gvk::from_api_version(&api, &kind).group == KUSTOMIZE_GROUP
            {
                out.push((f.clone(), line));
            }
        }
    }
    for d in &kf.resource_dirs {
        if let Some(child) = ctx.env.kfiles.get(d)
            && overlay_namespace(ctx, child).is_none()
            && own.is_none_or(|ns| namespace_field(child).is_none_or(|n| n == ns))
        {
            listed(ctx, child, own, seen, out);
        }
    }
}

pub fn run(ctx: &Ctx, out: &mut Vec<Finding>) {
    // The Flux Kustomization objects by the file and line they come from.
    let mut by_origin: HashMap<(&Path, usize), Vec<_>> = HashMap::new();
    for (pk, o) in ctx.ks_objects.values() {
        if let Some(f) = &o.origin.file {
            by_origin
                .entry((f.as_path(), o.origin.line))
                .or_default()
                .push((*pk, *o));
        }
    }
    for kf in &ctx.env.kfiles.files {
        let Some(ns) = overlay_namespace(ctx, kf) else {
            continue;
        };
        let mut found = Vec::new();
        let own = namespace_field(kf).is_none().then_some(ns.as_str());
        listed(ctx, kf, own, &mut HashSet::new(), &mut found);
        for (file, line) in found {
            let objects = by_origin.get(&(file.as_path(), line));
            for &(pk, o) in objects.into_iter().flatten() {
                if crate::check::opted_out(o, "targetnamespace-mismatch") {
                    continue;
                }
                let Some(tn) = o.obj.get_str(&["spec", "targetNamespace"]) else {
                    continue;
                };
                if tn == ns {
                    continue;
                }
                let (f, l) = ctx.at(pk, o, "spec.targetNamespace");
                out.push(
                    ctx.finding(
                        "targetnamespace-mismatch",
                        format!(
                            "Kustomization {}/{} is listed in the namespace overlay {} (Namespace {ns}) but its targetNamespace is {tn}",
                            o.namespace(),
                            o.name(),
                            ctx.rel(&kf.dir).display()
                        ),
                    )
                    .at(f, l)
                    .ks(format!("{}/{}", o.namespace(), o.name()))
                    .object(o)
                    .path("spec.targetNamespace"),
                );
            }
        }
    }
}
