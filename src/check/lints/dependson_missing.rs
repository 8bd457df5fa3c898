//! `dependson-missing`: a Kustomization's (or HelmRelease's, or Flux
//! Operator ResourceSet's) `dependsOn` names an object that does not exist
//! in the environment. Flux waits for it forever: the dependent never
//! reconciles. (A ResourceSet may wait for any object; only the Flux
//! Kustomizations, HelmReleases and ResourceSets it names are checked,
//! the kinds flate renders whole.)

use std::collections::HashSet;

use super::{Ctx, is_helmrelease, ns_or_default};
use crate::check::{Finding, Severity};
use crate::flux::resourceset::is_resource_set;

pub fn run(ctx: &Ctx, out: &mut Vec<Finding>) {
    let mut found = Elsewhere::default();
    let keys: HashSet<String> = ctx
        .env
        .rendered
        .kustomizations
        .iter()
        .map(|k| k.key())
        .collect();
    for k in &ctx.env.rendered.kustomizations {
        let obj = ctx.ks_objects.get(&k.key()).map(|(_, o)| *o);
        if obj.is_some_and(|o| crate::check::opted_out(o, "dependson-missing")) {
            continue;
        }
        for (i, d) in k.depends_on.iter().enumerate() {
            if keys.contains(d) {
                continue;
            }
            let (file, line) = ctx.ks_at(k, &format!("spec.dependsOn[{i}]"));
            let (what, severity) = found.get(ctx, "Kustomization", d);
            let consequence = if what.starts_with("which does not exist") {
                ": it never becomes ready"
            } else {
                ""
            };
            out.push(
                ctx.finding(
                    "dependson-missing",
                    format!(
                        "Kustomization {} depends on Kustomization {d}, {what}{consequence}",
                        k.key()
                    ),
                )
                .severity(severity)
                .at(file, line)
                .ks(k.key())
                .path(format!("spec.dependsOn[{i}]")),
            );
        }
    }
    let hrs: HashSet<String> = ctx
        .all
        .iter()
        .filter(|(_, o)| is_helmrelease(o))
        .map(|(_, o)| format!("{}/{}", ns_or_default(o), o.name()))
        .collect();
    let mut known: HashSet<(&str, String)> = HashSet::new();
    for k in &keys {
        known.insert(("Kustomization", k.clone()));
    }
    for h in hrs {
        known.insert(("HelmRelease", h));
    }
    for (_, o) in &ctx.all {
        if is_resource_set(o) {
            known.insert(("ResourceSet", format!("{}/{}", ns_or_default(o), o.name())));
        }
    }
    // HelmReleases depend on HelmReleases; ResourceSets on objects of any
    // kind, of which the Flux ones are checked. A target without a
    // namespace is in the dependent's.
    for (k, o) in &ctx.all {
        let (owner, consequence) = if is_helmrelease(o) {
            ("HelmRelease", "")
        } else if is_resource_set(o) {
            (
                "ResourceSet",
                ": the Flux Operator never applies its objects",
            )
        } else {
            continue;
        };
        if crate::check::opted_out(o, "dependson-missing") {
            continue;
        }
        let Some(crate::yaml::Node::Seq(deps)) = o.obj.get_path(&["spec", "dependsOn"]) else {
            continue;
        };
        for (i, d) in deps.iter().enumerate() {
            let Some(kind) = target_kind(owner, d) else {
                continue;
            };
            let ns = d
                .get_str(&["namespace"])
                .filter(|n| !n.is_empty())
                .map(str::to_string)
                .unwrap_or_else(|| ns_or_default(o));
            let key = format!("{ns}/{}", d.get_str(&["name"]).unwrap_or(""));
            if known.contains(&(kind, key.clone())) {
                continue;
            }
            let path = format!("spec.dependsOn[{i}]");
            let (file, line) = ctx.at(k, o, &path);
            let (what, severity) = found.get(ctx, kind, &key);
            let consequence = if what.starts_with("which does not exist") {
                consequence
            } else {
                ""
            };
            out.push(
                ctx.finding(
                    "dependson-missing",
                    format!(
                        "{owner} {}/{} depends on {kind} {key}, {what}{consequence}",
                        ns_or_default(o),
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
}

/// Where missing targets are defined in the repository, each looked up
/// once, in the repository's files read once.
#[derive(Default)]
struct Elsewhere<'e> {
    found: std::collections::HashMap<(String, String), (String, Severity)>,
    files: Option<crate::flux::render::RepoFiles<'e>>,
}

impl<'e> Elsewhere<'e> {
    /// What the message says of the missing `kind` `key`
    /// (`namespace/name`), and the finding's severity. Usually `which does
    /// not exist in this environment`, then where it is defined when a
    /// file defines it (` (it is defined in FILE, which no Kustomization
    /// of this environment applies)`): an error. When that file is under
    /// the path of a Kustomization skipped offline, which in the cluster
    /// applies it, or of one that failed to render (an error of its
    /// own): that, as a warning.
    fn get(&mut self, ctx: &Ctx<'e, '_>, kind: &str, key: &str) -> (String, Severity) {
        let files = self
            .files
            .get_or_insert_with(|| crate::flux::render::RepoFiles::new(ctx.env.fs, &ctx.env.repo));
        self.found
            .entry((kind.to_string(), key.to_string()))
            .or_insert_with(|| {
                let (ns, name) = key.split_once('/').unwrap_or(("", key));
                let reports = &ctx.env.rendered.kustomizations;
                if let Some((f, by, status)) =
                    crate::flux::render::unrendered_holder(files, reports, kind, ns, name)
                {
                    return (
                        format!(
                            "which is not among the objects rendered offline (it is defined in {f}, which Kustomization {by} builds, {})",
                            crate::flux::render::unrendered_why(status)
                        ),
                        Severity::Warning,
                    );
                }
                let w = crate::flux::render::defined_elsewhere(files, kind, ns, name)
                    .map(|w| format!(" (it is {w})"))
                    .unwrap_or_default();
                (
                    format!("which does not exist in this environment{w}"),
                    Severity::Error,
                )
            })
            .clone()
    }
}

/// The kind of what a `dependsOn` entry of a HelmRelease or ResourceSet
/// names, when it is one checked: a HelmRelease's are HelmReleases; a
/// ResourceSet's, a Flux Kustomization, HelmRelease or ResourceSet.
fn target_kind(owner: &str, d: &crate::yaml::Node) -> Option<&'static str> {
    if owner == "HelmRelease" {
        return Some("HelmRelease");
    }
    let group = d
        .get_str(&["apiVersion"])
        .and_then(|a| a.split_once('/'))
        .map_or("", |(g, _)| g);
    match (d.get_str(&["kind"]).unwrap_or(""), group) {
        ("Kustomization", "kustomize.toolkit.fluxcd.io") => Some("Kustomization"),
        ("HelmRelease", "helm.toolkit.fluxcd.io") => Some("HelmRelease"),
        ("ResourceSet", "fluxcd.controlplane.io") => Some("ResourceSet"),
        _ => None,
    }
}
