//! `unresolved-variable`: a `${VAR}` that post-build substitution replaced
//! with an empty string. An error when every source was read (the variable
//! is empty in the cluster too); a warning when an optional
//! `substituteFrom` source (or one produced at runtime) was absent offline
//! and may hold it — pass it with `--settings` to check for real.

use std::collections::BTreeMap;

use super::Ctx;
use crate::check::{Finding, Severity};

pub fn run(ctx: &Ctx, out: &mut Vec<Finding>) {
    for k in &ctx.env.rendered.kustomizations {
        if k.unset_vars.is_empty() {
            continue;
        }
        if let Some((_, o)) = ctx.ks_objects.get(&k.key())
            && crate::check::opted_out(o, "unresolved-variable")
        {
            continue;
        }
        let absent: Vec<String> = k
            .absent_sources
            .iter()
            .map(|a| match (&a.produced_by, &a.via) {
                (Some(p), _) => format!("{} (created at runtime by {p})", a.label()),
                (None, Some(_)) => a.label(),
                (None, None) => format!("optional {}/{}", a.kind, a.name),
            })
            .collect();
        // variable → the objects using it (first one locates the finding).
        let mut by_var: BTreeMap<&str, Vec<&crate::flux::render::UnsetVar>> = BTreeMap::new();
        for u in &k.unset_vars {
            by_var.entry(u.name.as_str()).or_default().push(u);
        }
        for (var, uses) in by_var {
            // The object as rendered (its id may itself have been
            // substituted): same origin and kind.
            let rendered = |u: &crate::flux::render::UnsetVar| {
                k.objects
                    .iter()
                    .find(|o| o.origin == u.origin && o.kind() == u.object.gvk.kind)
            };
            let users: Vec<&crate::flux::render::UnsetVar> = uses
                .into_iter()
                .filter(|u| {
                    !rendered(u).is_some_and(|o| crate::check::opted_out(o, "unresolved-variable"))
                })
                .collect();
            let Some(first) = users.first() else { continue };
            let (file, line) = match &first.origin.file {
                Some(f) => {
                    let line = ctx
                        .loc
                        .line_containing(f, first.origin.line, &format!("${{{var}"))
                        .unwrap_or(first.origin.line);
                    (Some(ctx.rel(f)), line)
                }
                None => ctx.ks_at(k, ""),
            };
            let mut objs: Vec<String> = users
                .iter()
                .map(|u| {
                    let name = rendered(u).map_or(u.object.name.as_str(), |o| o.name());
                    format!("{} {name}", u.object.gvk.kind)
                })
                .collect();
            objs.dedup();
            let (severity, why) = if absent.is_empty() {
                (
                    Severity::Error,
                    format!(
                        "no substitute or substituteFrom source defines it (to keep it literal, as Grafana dashboards need theirs, write $${{{var}}} or annotate the object kustomize.toolkit.fluxcd.io/substitute: disabled)"
                    ),
                )
            } else {
                (
                    Severity::Warning,
                    format!(
                        "it may come from {}, absent offline (pass it with --settings)",
                        absent.join(", ")
                    ),
                )
            };
            out.push(
                ctx.finding(
                    "unresolved-variable",
                    format!(
                        "${{{var}}} is not set in Kustomization {} and becomes an empty string in {}: {why}",
                        k.key(),
                        objs.join(", ")
                    ),
                )
                .severity(severity)
                .at(file, line)
                .ks(k.key()),
            );
        }
    }
}
