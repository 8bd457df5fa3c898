//! `patch-overrides-value`: a Flux Kustomization `spec.patches`
//! strategic-merge patch for many objects (its target a kind or a label
//! selector, no name) sets a field of an object to a value other than the
//! one the object's own file writes there, and the patch's value is what
//! the cluster gets. A patch that names its object means to replace what
//! it replaces (an environment's pin of the base's chart version, an
//! exception to the defaults): it is left alone. A strategic-merge patch wins over the object:
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

pub fn run(ctx: &Ctx, out: &mut Vec<Finding>) {
    for (k, entries) in ctx.patching_kustomizations("patch-overrides-value") {
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
            // Only a patch for many objects (a kind, a label selector: the
            // defaults a parent gives every child) overrides by surprise; one
            // that names its object (an environment's pin of a base's chart
            // version, an exception) means to.
            let Some(target) = e.get("target").filter(|t| !t.is_null()) else {
                continue;
            };
            if target.get_str(&["name"]).is_some_and(|n| !n.is_empty()) {
                continue;
            }
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
                    if !selected(target, o) {
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
            let needle = format!(
                "{}: {}",
                path.last().map_or("", String::as_str),
                text(&value)
            );
            let patch_text = entries[i].get_str(&["patch"]).unwrap_or("");
            let patch_at = patch_location(ctx, k, patch_text, &needle)
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

/// Where the text of a patch of Kustomization `k` is written, at the line
/// holding `needle`: the first of the files that may hold it that holds
/// every line of the patch, searched from the patch's first line.
fn patch_location(
    ctx: &Ctx,
    k: &crate::flux::KsReport,
    patch: &str,
    needle: &str,
) -> Option<(std::path::PathBuf, usize)> {
    // The parent's first (its patch of every child is the common case,
    // and overlays may carry the same text as kustomize patches), then
    // the Kustomization's own file, then overlays' patches of it.
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
    let lines: Vec<&str> = patch
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let first = lines.first()?;
    files.into_iter().find_map(|f| {
        let t = ctx.loc.text(&f)?;
        if !lines.iter().all(|l| t.contains(l)) {
            return None;
        }
        // The patch written as a block: its lines one after the other
        // (blank lines aside), the needle among them.
        let file: Vec<&str> = t.lines().collect();
        for start in (0..file.len()).filter(|&i| file[i].trim() == *first) {
            if let Some(end) = block_end(&file, start, &lines)
                && let Some(l) = (start..=end).find(|&j| file[j].contains(needle))
            {
                return Some((f, l + 1));
            }
        }
        // Else (a patch in a quoted string): from each place the patch may
        // start, the first needle after it.
        let mut from = 1;
        while let Some(start) = ctx.loc.line_containing(&f, from, first) {
            if let Some(l) = ctx.loc.line_containing(&f, start, needle) {
                return Some((f, l));
            }
            from = start + 1;
        }
        None
    })
}

/// The index of the last line of `lines` (trimmed, non-empty) written one
/// after the other in `file` from `start` on, blank lines between them
/// allowed; `None` when they are not.
fn block_end(file: &[&str], start: usize, lines: &[&str]) -> Option<usize> {
    let mut i = start;
    let mut end = start;
    for want in lines {
        while file.get(i)?.trim().is_empty() {
            i += 1;
        }
        if file[i].trim() != *want {
            return None;
        }
        end = i;
        i += 1;
    }
    Some(end)
}

#[cfg(test)]
mod tests {
    use super::block_end;

    #[test]
    fn a_patch_block_is_found_where_its_lines_follow_each_other() {
        let file = [
            "apiVersion: v1",
            "kind: Kustomization",
            "metadata:",
            "  name: apps",
            "spec:",
            "  prune: true",
            "  patches:",
            "    - patch: |-",
            "        apiVersion: v1",
            "        kind: Kustomization",
            "        metadata:",
            "          name: _",
            "",
            "        spec:",
            "          prune: true",
        ];
        let patch = [
            "apiVersion: v1",
            "kind: Kustomization",
            "metadata:",
            "name: _",
            "spec:",
            "prune: true",
        ];
        // The parent's own head starts as the patch does, but is not it.
        assert_eq!(block_end(&file, 0, &patch), None);
        assert_eq!(block_end(&file, 8, &patch), Some(14));
        // Past the end of the file.
        assert_eq!(block_end(&file, 13, &["spec:", "prune: true", "x"]), None);
    }
}
