//! `kustomize-patch-unmatched`: a `patches` (or legacy `patchesJson6902`)
//! entry of a kustomization file whose target selects none of the objects
//! the patch runs on. kustomize applies it to nothing without a word, so a
//! typo in an overlay's target silently loses what the patch set (a
//! version pin, typically). The renderer records such patches as it
//! applies them (see `kustomize::UnmatchedPatch`); entries that Flux adds
//! from a Kustomization's `spec.patches` are `patch-target-unmatched`'s.
//! A kind-wide target (no name, no selector) in a Component is a broadcast
//! to whatever the component is used with, and may match nothing. A
//! kustomization one of whose `resources` files holds no object (such as
//! the `gotk-components.yaml` that `flux bootstrap` writes, committed as
//! a placeholder in Flux's example repositories) gets a warning, not an
//! error: the patch may select what that file will hold. A
//! kustomization file opts out with the `flate.dev/disable` annotation.

use std::collections::HashSet;

use super::Ctx;
use crate::check::{Finding, Severity};
use crate::yaml::Node;

pub const RULE: &str = "kustomize-patch-unmatched";

/// The first of the local files the kustomization file `file` lists in
/// `resources` that holds no object (empty, or comments only), as
/// written there.
fn empty_resource(ctx: &Ctx, file: &std::path::Path) -> Option<String> {
    let docs = ctx.docs(file)?;
    let Some(Node::Seq(items)) = docs.first()?.node.get("resources") else {
        return None;
    };
    let dir = file.parent()?;
    items.iter().filter_map(Node::as_str).find_map(|r| {
        let path = dir.join(r);
        (path.is_file() && ctx.docs(&path).is_some_and(|d| d.is_empty())).then(|| r.to_string())
    })
}

/// How many entries `field` has in the kustomization file as written,
/// whether the file opts out of the rule and whether it is a Component;
/// None when it cannot be read.
fn file_entries(ctx: &Ctx, file: &std::path::Path, field: &str) -> Option<(usize, bool, bool)> {
    let docs = ctx.docs(file)?;
    let doc = docs.first()?;
    let n = match doc.node.get(field) {
        Some(Node::Seq(items)) => items.len(),
        _ => 0,
    };
    let opted_out = doc
        .node
        .get_path(&["metadata", "annotations", crate::check::DISABLE_ANNOTATION])
        .and_then(Node::as_str)
        .is_some_and(|v| v.split(',').any(|x| x.trim() == RULE));
    let component = doc.node.get_str(&["kind"]) == Some("Component");
    Some((n, opted_out, component))
}

pub fn run(ctx: &Ctx, out: &mut Vec<Finding>) {
    out.extend(findings(ctx).into_iter().map(|(f, _)| f));
}

/// The patches of `env` that select nothing and set a pin (`flate pins`
/// fails on them).
pub fn lost_pins(env: &crate::check::Env<'_>) -> Vec<Finding> {
    findings(&Ctx::new(env))
        .into_iter()
        .filter(|(_, pin)| *pin)
        .map(|(f, _)| f)
        .collect()
}

/// The findings, each with whether its patch sets a pin.
fn findings(ctx: &Ctx) -> Vec<(Finding, bool)> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for k in &ctx.env.rendered.kustomizations {
        for u in &k.unmatched_patches {
            // Entries past the file's own come from the Flux
            // Kustomization's spec.patches.
            let Some((n, opted_out, component)) = file_entries(ctx, &u.file, u.field) else {
                continue;
            };
            let broadcast = !["name=", "labelSelector=", "annotationSelector="]
                .iter()
                .any(|f| u.target.contains(f));
            if u.index >= n
                || opted_out
                || (component && broadcast)
                || !seen.insert((u.file.clone(), u.field, u.index))
            {
                continue;
            }
            let path = format!("{}[{}].target", u.field, u.index);
            // The line of the target's name, else of the target.
            let line = match ctx.loc.field_line(&u.file, 1, &format!("{path}.name")) {
                1 => ctx.loc.field_line(&u.file, 1, &path),
                l => l,
            };
            let lost = if u.sets_pin {
                " (it sets an image, tag, digest or version: that pin is lost)"
            } else {
                ""
            };
            let empty = empty_resource(ctx, &u.file);
            let note = match &empty {
                Some(r) => format!(
                    "; resource {r} holds no object: if it is written later (as `flux bootstrap` writes gotk-components.yaml), the patch may select what it will hold"
                ),
                None => String::new(),
            };
            let mut f = ctx
                .finding(
                    RULE,
                    format!(
                        "{}[{}] targets {} but selects no object: kustomize ignores the patch silently{lost}{note}",
                        u.field, u.index, u.target
                    ),
                )
                .at(Some(ctx.rel(&u.file)), line)
                .ks(k.key())
                .path(path);
            if empty.is_some() {
                f = f.severity(Severity::Warning);
            }
            out.push((f, u.sets_pin && empty.is_none()));
        }
    }
    out
}
