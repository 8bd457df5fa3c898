//! `dependson-missing`: a Kustomization's (or HelmRelease's, or Flux
//! Operator ResourceSet's) `dependsOn` names an object that does not exist
//! in the environment. Flux waits for it forever: the dependent never
//! reconciles. (A ResourceSet may wait for any object; only the Flux
//! Kustomizations, HelmReleases and ResourceSets it names are checked,
//! the kinds flate renders whole.)

use std::collections::HashSet;

use super::{Ctx, is_helmrelease, ns_or_default};
use crate::check::Finding;

pub fn run(ctx: &Ctx, out: &mut Vec<Finding>) {
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
            out.push(
                ctx.finding(
                    "dependson-missing",
                    format!(
                        "Kustomization {} depends on Kustomization {d}, which does not exist in this environment: it never becomes ready",
                        k.key()
                    ),
                )
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
    for (k, o) in &ctx.all {
        if !is_helmrelease(o) || crate::check::opted_out(o, "dependson-missing") {
            continue;
        }
        let Some(crate::yaml::Node::Seq(deps)) = o.obj.get_path(&["spec", "dependsOn"]) else {
            continue;
        };
        for (i, d) in deps.iter().enumerate() {
            let ns = d
                .get_str(&["namespace"])
                .map(str::to_string)
                .unwrap_or_else(|| ns_or_default(o));
            let key = format!("{ns}/{}", d.get_str(&["name"]).unwrap_or(""));
            if hrs.contains(&key) {
                continue;
            }
            let path = format!("spec.dependsOn[{i}]");
            let (file, line) = ctx.at(k, o, &path);
            out.push(
                ctx.finding(
                    "dependson-missing",
                    format!(
                        "HelmRelease {}/{} depends on HelmRelease {key}, which does not exist in this environment",
                        ns_or_default(o),
                        o.name()
                    ),
                )
                .at(file, line)
                .ks(k.key())
                .object(o)
                .path(path),
            );
        }
    }
    // ResourceSets: `dependsOn` entries of these kinds, in the
    // ResourceSet's namespace unless they give one.
    let mut known: HashSet<(&str, String)> = HashSet::new();
    for k in &keys {
        known.insert(("Kustomization", k.clone()));
    }
    for h in &hrs {
        known.insert(("HelmRelease", h.clone()));
    }
    for (_, o) in &ctx.all {
        if crate::flux::resourceset::is_resource_set(o) {
            known.insert(("ResourceSet", format!("{}/{}", ns_or_default(o), o.name())));
        }
    }
    for (k, o) in &ctx.all {
        if !crate::flux::resourceset::is_resource_set(o)
            || crate::check::opted_out(o, "dependson-missing")
        {
            continue;
        }
        let Some(crate::yaml::Node::Seq(deps)) = o.obj.get_path(&["spec", "dependsOn"]) else {
            continue;
        };
        for (i, d) in deps.iter().enumerate() {
            let kind = d.get_str(&["kind"]).unwrap_or("");
            let group = d
                .get_str(&["apiVersion"])
                .and_then(|a| a.split_once('/'))
                .map_or("", |(g, _)| g);
            let flux = matches!(
                (kind, group),
                ("Kustomization", "kustomize.toolkit.fluxcd.io")
                    | ("HelmRelease", "helm.toolkit.fluxcd.io")
                    | ("ResourceSet", "fluxcd.controlplane.io")
            );
            if !flux {
                continue;
            }
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
            out.push(
                ctx.finding(
                    "dependson-missing",
                    format!(
                        "ResourceSet {}/{} depends on {kind} {key}, which does not exist in this environment: the Flux Operator never applies its objects",
                        ns_or_default(o),
                        o.name()
                    ),
                )
                .at(file, line)
                .ks(k.key())
                .object(o)
                .path(path),
            );
        }
    }
}
