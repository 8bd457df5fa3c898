//! `chart-source-missing`: a HelmRelease whose chart source
//! (`spec.chartRef`, or `spec.chart.spec.sourceRef`, and a HelmChart's own
//! `sourceRef`) is not among the environment's objects. helm-controller
//! reports the source not found and never installs.

use super::{Ctx, is_helmrelease, ns_or_default};
use crate::check::{Finding, Severity};

/// The Flux root source exists without being rendered.
fn is_root_source(kind: &str, ns: &str, name: &str) -> bool {
    kind == "GitRepository" && ns == "flux-system" && name == "flux-system"
}

pub fn run(ctx: &Ctx, out: &mut Vec<Finding>) {
    let skipped = ctx.skipped();
    let mut files = None;
    for (k, o) in &ctx.all {
        if !is_helmrelease(o) || crate::check::opted_out(o, "chart-source-missing") {
            continue;
        }
        let ns = ns_or_default(o);
        let (kind, name, sns, path) = if let Some(cr) = o.obj.get_path(&["spec", "chartRef"]) {
            (
                cr.get_str(&["kind"]).unwrap_or("").to_string(),
                cr.get_str(&["name"]).unwrap_or("").to_string(),
                cr.get_str(&["namespace"])
                    .map(str::to_string)
                    .unwrap_or(ns.clone()),
                "spec.chartRef",
            )
        } else if let Some(sr) = o.obj.get_path(&["spec", "chart", "spec", "sourceRef"]) {
            (
                sr.get_str(&["kind"]).unwrap_or("").to_string(),
                sr.get_str(&["name"]).unwrap_or("").to_string(),
                sr.get_str(&["namespace"])
                    .map(str::to_string)
                    .unwrap_or(ns.clone()),
                "spec.chart.spec.sourceRef",
            )
        } else {
            let (file, line) = ctx.at(k, o, "spec");
            out.push(
                ctx.finding(
                    "chart-source-missing",
                    format!(
                        "HelmRelease {ns}/{} has neither spec.chartRef nor spec.chart",
                        o.name()
                    ),
                )
                .at(file, line)
                .ks(k.key())
                .object(o),
            );
            continue;
        };
        // What is missing: its description, kind and name.
        let mut missing = None;
        if !is_root_source(&kind, &sns, &name) {
            match ctx.find(&kind, &sns, &name) {
                None => {
                    missing = Some((
                        format!("{kind} {sns}/{name} ({path})"),
                        kind.clone(),
                        name.clone(),
                    ))
                }
                Some((_, src)) if kind == "HelmChart" => {
                    let sk = src
                        .obj
                        .get_str(&["spec", "sourceRef", "kind"])
                        .unwrap_or("");
                    let sn = src
                        .obj
                        .get_str(&["spec", "sourceRef", "name"])
                        .unwrap_or("");
                    if !is_root_source(sk, &sns, sn) && ctx.find(sk, &sns, sn).is_none() {
                        missing = Some((
                            format!("{sk} {sns}/{sn} (the sourceRef of HelmChart {sns}/{name})"),
                            sk.to_string(),
                            sn.to_string(),
                        ));
                    }
                }
                Some(_) => {}
            }
        }
        let Some((what, mkind, mname)) = missing else {
            continue;
        };
        // Defined under the path of a Kustomization not rendered offline
        // (skipped, or failed: an error of its own), which applies it in
        // the cluster: a warning that says so.
        let files = files
            .get_or_insert_with(|| crate::flux::render::RepoFiles::new(ctx.env.fs, &ctx.env.repo));
        let reports = &ctx.env.rendered.kustomizations;
        let holder = crate::flux::render::unrendered_holder(files, reports, &mkind, &sns, &mname);
        let (severity, note) = if let Some((f, by, status)) = holder {
            (
                Severity::Warning,
                format!(
                    " (it is defined in {f}, which Kustomization {by} builds, {})",
                    crate::flux::render::unrendered_why(status)
                ),
            )
        } else if skipped.is_empty() {
            (Severity::Error, String::new())
        } else {
            (
                Severity::Warning,
                format!(
                    " (unless it comes from a Kustomization not rendered offline: {})",
                    skipped.join(", ")
                ),
            )
        };
        let (file, line) = ctx.at(k, o, path);
        out.push(
            ctx.finding(
                "chart-source-missing",
                format!(
                    "HelmRelease {ns}/{}: chart source {what} is not in this environment{note}",
                    o.name()
                ),
            )
            .severity(severity)
            .at(file, line)
            .ks(k.key())
            .object(o)
            .path(path),
        );
    }
}
