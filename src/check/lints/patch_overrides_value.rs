//! `patch-overrides-value`: a Flux Kustomization `spec.patches`
//! strategic-merge patch sets a field of an object to a value other than
//! the one the object's own file writes there, and the patch's value is
//! what the cluster gets. A strategic-merge patch wins over the object:
//! a parent that gives every child Kustomization `prune: true`, or every
//! HelmRelease `driftDetection.mode: enabled`, silently replaces the
//! `prune: false` or `mode: disabled` one app writes, and the app's
//! author sees nothing in the rendered diff ("no changes") to say why.
//!
//! Compared field by field (the scalar leaves of the patch reached
//! through maps: lists merge by key and are left out, as are `$patch`
//! directives, `null` deletions and the identity fields): the value
//! written in the object's file (the document the object comes from), the
//! patch's, and the rendered object's. A later patch that restores the
//! file's value (an exception for that object) leaves nothing to report.
//! A value written with `${...}` is compared after substitution only in
//! the rendered object, so it is left out. JSON6902 patches (`op:
//! replace`) say what they replace, and are left out too.

use std::collections::BTreeMap;

use super::Ctx;
use super::patch_target_unmatched::selected;
use crate::check::Finding;
use crate::flux::Status;
use crate::resource::Resource;
use crate::yaml::Node;

/// The scalar leaves of a strategic-merge patch document, by path.
fn leaves<'a>(node: &'a Node, path: &mut Vec<String>, out: &mut Vec<(Vec<String>, &'a Node)>) {
    let Node::Map(m) = node else { return };
    for (k, v) in m.iter() {
        if k.starts_with('$') {
            continue;
        }
        let identity = match path.as_slice() {
            [] => matches!(k.as_str(), "apiVersion" | "kind"),
            [m] if m == "metadata" => matches!(k.as_str(), "name" | "namespace"),
            _ => false,
        };
        if identity {
            continue;
        }
        path.push(k.clone());
        match v {
            Node::Map(_) => leaves(v, path, out),
            Node::Seq(_) | Node::Null => {}
            _ => out.push((path.clone(), v)),
        }
        path.pop();
    }
}

fn text(n: &Node) -> String {
    n.scalar_text().unwrap_or_default()
}

/// Whether `o` is what a strategic-merge patch without a target patches:
/// the object of its own kind and name (and namespace, when it has one).
fn named_by(patch: &Node, o: &Resource) -> bool {
    let s = |p: &[&str]| patch.get_str(p).unwrap_or("");
    s(&["kind"]) == o.kind()
        && s(&["metadata", "name"]) == o.name()
        && (s(&["metadata", "namespace"]).is_empty()
            || s(&["metadata", "namespace"]) == o.namespace())
}

pub fn run(ctx: &Ctx, out: &mut Vec<Finding>) {
    for k in &ctx.env.rendered.kustomizations {
        if k.status != Status::Rendered {
            continue;
        }
        let Some((_, ks)) = ctx.ks_objects.get(&k.key()) else {
            continue;
        };
        if crate::check::opted_out(ks, "patch-overrides-value") {
            continue;
        }
        let Some(Node::Seq(entries)) = ks.obj.get_path(&["spec", "patches"]) else {
            continue;
        };
        // (object index, path) → the last patch setting it: (entry index,
        // the patch's value).
        let mut set: BTreeMap<(usize, Vec<String>), (usize, Node)> = BTreeMap::new();
        for (i, e) in entries.iter().enumerate() {
            let Some(patch) = e.get_str(&["patch"]) else {
                continue;
            };
            let Ok(docs) = crate::yaml::parse_stream(patch) else {
                continue;
            };
            let target = e.get("target").filter(|t| !t.is_null());
            for d in &docs {
                // A JSON6902 patch is a list; a strategic-merge one a map
                // with a kind.
                if d.node.get_str(&["kind"]).is_none() {
                    continue;
                }
                let mut found = Vec::new();
                leaves(&d.node, &mut Vec::new(), &mut found);
                if found.is_empty() {
                    continue;
                }
                for (oi, o) in k.objects.iter().enumerate() {
                    let hit = match target {
                        Some(t) => selected(t, o),
                        None => named_by(&d.node, o),
                    };
                    if !hit {
                        continue;
                    }
                    for (path, v) in &found {
                        set.insert((oi, path.clone()), (i, (*v).clone()));
                    }
                }
            }
        }
        for ((oi, path), (i, value)) in set {
            let o = &k.objects[oi];
            let (Some(file), p) = (
                &o.origin.file,
                path.iter().map(String::as_str).collect::<Vec<_>>(),
            ) else {
                continue;
            };
            let Some(docs) = ctx.docs(file) else { continue };
            // The document the object comes from (not a generator's or a
            // ResourceSet's, whose objects Flux's patches never see).
            let Some(written) = docs
                .iter()
                .find(|d| d.line == o.origin.line)
                .filter(|d| d.node.get_str(&["kind"]) == Some(o.kind()))
                .and_then(|d| d.node.get_path(&p))
            else {
                continue;
            };
            let rendered = o.obj.get_path(&p);
            if matches!(written, Node::Map(_) | Node::Seq(_) | Node::Null)
                || *written == value
                || rendered != Some(&value)
                || text(written).contains("${")
                || text(&value).contains("${")
            {
                continue;
            }
            if crate::check::opted_out(o, "patch-overrides-value") {
                continue;
            }
            // Where the patch's text is: the parent's patch of every child
            // (the common case), the Kustomization's own file, an overlay's
            // patch of it.
            let mut files: Vec<std::path::PathBuf> = k
                .parent
                .as_ref()
                .and_then(|p| ctx.ks_objects.get(p))
                .and_then(|(_, pk)| pk.origin.file.as_ref())
                .map(|f| f.as_path().to_path_buf())
                .into_iter()
                .collect();
            let own = ctx.patch_sources(k);
            files.extend(own.last().cloned());
            files.extend(own);
            let needle = format!(
                "{}: {}",
                path.last().map_or("", String::as_str),
                text(&value)
            );
            let patch_at = ctx
                .loc
                .search(&files, &needle, &[o.kind()], Some("patches:"))
                .map(|(f, l)| format!(" ({}:{l})", ctx.rel(&f).display()))
                .unwrap_or_default();
            let dotted = path.join(".");
            let line = ctx.loc.field_line(file, o.origin.line, &dotted);
            let what = if o.namespace().is_empty() {
                format!("{} {}", o.kind(), o.name())
            } else {
                format!("{} {}/{}", o.kind(), o.namespace(), o.name())
            };
            out.push(
                ctx.finding(
                    "patch-overrides-value",
                    format!(
                        "{what}: {dotted} is written as {} here, but the cluster gets {}: Kustomization {} spec.patches[{i}]{patch_at} sets it, and a strategic-merge patch wins. To keep this value, leave this object out of the patch's target or add a later patch for it (patches apply in order)",
                        text(written),
                        text(&value),
                        k.key()
                    ),
                )
                .at(Some(ctx.rel(file)), line)
                .ks(k.key())
                .object(o)
                .path(dotted),
            );
        }
    }
}
