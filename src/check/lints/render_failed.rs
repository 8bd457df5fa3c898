//! `render-failed`: a Kustomization that could not be rendered (its
//! message is the renderer's), or a HelmRelease whose values could not be
//! resolved for a reason the HelmRelease lints do not cover, or a Flux
//! Operator ResourceSet the operator would fail (a template error).

use super::Ctx;
use crate::check::Finding;
use crate::flux::Status;

/// Messages the dependsOn lints report on their own.
fn covered(msg: &str) -> bool {
    msg.starts_with("dependsOn target") || msg.starts_with("dependsOn cycle")
}

pub fn run(ctx: &Ctx, out: &mut Vec<Finding>) {
    for k in &ctx.env.rendered.kustomizations {
        if k.status != Status::Failed || covered(&k.message) {
            continue;
        }
        if let Some((_, o)) = ctx.ks_objects.get(&k.key())
            && crate::check::opted_out(o, "render-failed")
        {
            continue;
        }
        let (file, line) = ctx.ks_at(k, "");
        out.push(
            ctx.finding(
                "render-failed",
                format!("Kustomization {} failed: {}", k.key(), k.message),
            )
            .at(file, line)
            .ks(k.key()),
        );
    }
    for (k, u) in ctx.env.rendered.unexpanded() {
        let crate::flux::resourceset::NotExpanded::Invalid(m) = &u.reason else {
            continue;
        };
        let (file, line) = match &u.origin.file {
            Some(f) => (Some(ctx.rel(f)), u.origin.line),
            None => (None, 0),
        };
        out.push(
            ctx.finding(
                "render-failed",
                format!("ResourceSet {} fails in the Flux Operator: {m}", u.key),
            )
            .at(file, line)
            .ks(k.key()),
        );
    }
    for h in &ctx.env.rendered.helmreleases {
        if h.ok
            || h.message.contains("is not among the rendered objects")
            || h.message.contains("has no key")
            || h.message.contains("neither spec.chartRef nor spec.chart")
            || crate::check::opted_out(&h.object, "render-failed")
        {
            continue;
        }
        let (file, line) = match &h.object.origin.file {
            Some(f) => (Some(ctx.rel(f)), h.object.origin.line),
            None => (None, 0),
        };
        // A chart that calls `lookup` may fail offline for what it finds
        // nothing of (an index into an empty result): a warning, unless
        // the chart itself stopped the render (`fail`, `required`) or the
        // values do not match its schema.
        let deliberate = h.message.contains("execution error at")
            || h.message.contains("values don't meet the specifications");
        let severity = if h.calls_lookup && !deliberate {
            crate::check::Severity::Warning
        } else {
            crate::check::Severity::Error
        };
        out.push(
            ctx.finding(
                "render-failed",
                format!("HelmRelease {}/{}: {}", h.namespace, h.name, h.message),
            )
            .severity(severity)
            .at(file, line)
            .ks(h.kustomization.clone())
            .object(&h.object),
        );
    }
}
