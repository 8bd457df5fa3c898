//! `flux-api-removed`: a Flux object written in an API version that Flux
//! no longer serves. Each Flux minor release drops the beta versions its
//! predecessors deprecated; once the cluster runs it, the API server
//! refuses the object ("no matches for kind"), the Kustomization applying
//! it fails, and nothing after it in the `dependsOn` chain reconciles.
//! Renovate bumps Flux (a FluxInstance's `distribution.version`, the
//! `flux-instance` chart's values, `gotk-components.yaml`) without touching
//! the manifests, so this is the mistake of the Flux upgrade PR.
//!
//! The versions served come from the CRDs of the controllers each Flux
//! release ships (the `manifests/bases/*/kustomization.yaml` of fluxcd/flux2
//! at the release's tag, then `config/crd/bases/` of each controller at the
//! version named there).
//!
//! Severity: an error when the environment says which Flux it runs and that
//! one no longer serves the version; a warning when it does not say (the
//! object works on an older Flux, and breaks on the upgrade); nothing when
//! the Flux it runs still serves it.

use super::Ctx;
use crate::check::{Finding, Severity};
use crate::resource::Resource;

/// (group, kinds, version, the first Flux 2.x minor that does not serve
/// it, the version to write instead).
const REMOVED: &[(&str, &[&str], &str, u32, &str)] = &[
    (
        "helm.toolkit.fluxcd.io",
        &["HelmRelease"],
        "v2beta1",
        7,
        "v2",
    ),
    (
        "helm.toolkit.fluxcd.io",
        &["HelmRelease"],
        "v2beta2",
        8,
        "v2",
    ),
    (
        "kustomize.toolkit.fluxcd.io",
        &["Kustomization"],
        "v1beta1",
        7,
        "v1",
    ),
    (
        "kustomize.toolkit.fluxcd.io",
        &["Kustomization"],
        "v1beta2",
        8,
        "v1",
    ),
    ("source.toolkit.fluxcd.io", SOURCES, "v1beta1", 7, "v1"),
    (
        "source.toolkit.fluxcd.io",
        SOURCES_V1BETA2,
        "v1beta2",
        8,
        "v1",
    ),
    (
        "notification.toolkit.fluxcd.io",
        &["Alert", "Provider"],
        "v1beta1",
        7,
        "v1beta3",
    ),
    (
        "notification.toolkit.fluxcd.io",
        &["Alert", "Provider"],
        "v1beta2",
        9,
        "v1beta3",
    ),
    (
        "notification.toolkit.fluxcd.io",
        &["Receiver"],
        "v1beta1",
        7,
        "v1",
    ),
    (
        "notification.toolkit.fluxcd.io",
        &["Receiver"],
        "v1beta2",
        9,
        "v1",
    ),
    ("image.toolkit.fluxcd.io", IMAGES, "v1beta1", 7, "v1"),
    ("image.toolkit.fluxcd.io", IMAGES, "v1beta2", 9, "v1"),
];
const SOURCES: &[&str] = &["GitRepository", "HelmRepository", "HelmChart", "Bucket"];
/// OCIRepository had no `v1beta1`.
const SOURCES_V1BETA2: &[&str] = &[
    "GitRepository",
    "HelmRepository",
    "HelmChart",
    "Bucket",
    "OCIRepository",
];
const IMAGES: &[&str] = &["ImageRepository", "ImagePolicy", "ImageUpdateAutomation"];

/// The newest Flux 2.x minor the table knows: what `2.x` installs today.
const NEWEST: u32 = 9;

/// The Flux 2.x minor a version text names: `2.7`, `v2.7.1`, `2.7.x`;
/// `2.x`, `2.*` or `*`: the newest. `None` for a range or anything else.
pub fn flux_minor(v: &str) -> Option<u32> {
    // A pre-release or build (`2.7.0-rc.1`) is still that minor.
    let v = v.trim().trim_start_matches('v');
    let v = v.split(['-', '+']).next().unwrap_or(v);
    if matches!(v, "2.x" | "2.X" | "2.*" | "*" | "x") {
        return Some(NEWEST);
    }
    let mut parts = v.split('.');
    if parts.next()? != "2" {
        return None;
    }
    let minor: u32 = parts.next()?.parse().ok()?;
    match parts.next() {
        None => {}
        Some(p) if p == "x" || p == "X" || p == "*" || p.parse::<u32>().is_ok() => {}
        Some(_) => return None,
    }
    parts.next().is_none().then_some(minor)
}

/// The Flux the environment runs, as (minor, where that was read), when
/// one of its objects says: a FluxInstance's `spec.distribution.version`,
/// the values of a HelmRelease of the `flux-instance` chart
/// (`instance.distribution.version`), or the `app.kubernetes.io/version`
/// label Flux's install manifests put on its controllers. The lowest
/// wins when they disagree (one cluster, one Flux: the first to break).
fn running_flux(ctx: &Ctx) -> Option<(u32, String)> {
    let mut found: Vec<(u32, String)> = Vec::new();
    for (_, o) in &ctx.all {
        let (text, what) =
            if o.kind() == "FluxInstance" && o.gvk().group == "fluxcd.controlplane.io" {
                (
                    o.obj.get_str(&["spec", "distribution", "version"]),
                    format!("FluxInstance {}/{}", o.namespace(), o.name()),
                )
            } else if super::is_helmrelease(o) && flux_instance_chart(o) {
                (
                    o.obj
                        .get_str(&["spec", "values", "instance", "distribution", "version"]),
                    format!("HelmRelease {}/{}", o.namespace(), o.name()),
                )
            } else if o.kind() == "Deployment"
                && o.obj
                    .get_str(&["metadata", "labels", "app.kubernetes.io/part-of"])
                    == Some("flux")
            {
                (
                    o.obj
                        .get_str(&["metadata", "labels", "app.kubernetes.io/version"]),
                    format!("Deployment {}/{}", o.namespace(), o.name()),
                )
            } else {
                continue;
            };
        if let Some(minor) = text.and_then(flux_minor) {
            found.push((minor, format!("{what} ({})", text.unwrap_or_default())));
        }
    }
    found.into_iter().min_by_key(|(m, _)| *m)
}

/// A HelmRelease of Flux Operator's `flux-instance` chart.
fn flux_instance_chart(o: &Resource) -> bool {
    o.obj.get_str(&["spec", "chart", "spec", "chart"]) == Some("flux-instance")
        || o.obj
            .get_str(&["spec", "chartRef", "name"])
            .is_some_and(|n| n == "flux-instance")
}

pub fn run(ctx: &Ctx, out: &mut Vec<Finding>) {
    let running = running_flux(ctx);
    for (k, o) in &ctx.all {
        let gvk = o.gvk();
        let Some(&(_, _, version, removed, instead)) = REMOVED.iter().find(|(g, kinds, v, ..)| {
            *g == gvk.group && *v == gvk.version && kinds.contains(&gvk.kind.as_str())
        }) else {
            continue;
        };
        let kind = gvk.kind.as_str();
        if crate::check::opted_out(o, "flux-api-removed") {
            continue;
        }
        let (severity, runs) = match &running {
            Some((minor, _)) if *minor < removed => continue,
            Some((minor, from)) => (
                Severity::Error,
                format!("this cluster runs Flux 2.{minor} ({from}), which refuses it"),
            ),
            None => (
                Severity::Warning,
                "it works only while the cluster runs an older Flux".to_string(),
            ),
        };
        let (file, line) = ctx.at(k, o, "apiVersion");
        out.push(
            ctx.finding(
                "flux-api-removed",
                format!(
                    "{kind} {}/{}: {}/{version} is not served since Flux 2.{removed}: {runs}; write apiVersion {}/{instead} (`flux migrate -f .` rewrites the files)",
                    o.namespace(),
                    o.name(),
                    gvk.group,
                    gvk.group
                ),
            )
            .severity(severity)
            .at(file, line)
            .ks(k.key())
            .object(o),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::flux_minor;

    #[test]
    fn flux_versions_read_as_a_minor() {
        for (text, want) in [
            ("2.7", Some(7)),
            ("v2.7.1", Some(7)),
            ("2.8.x", Some(8)),
            ("2.6.0-rc.1", Some(6)),
            ("2.x", Some(super::NEWEST)),
            ("*", Some(super::NEWEST)),
            (">=2.6.0", None),
            ("~2.6", None),
            ("1.9", None),
            ("2.7.1.4", None),
            ("", None),
        ] {
            assert_eq!(flux_minor(text), want, "{text}");
        }
    }
}
