//! `duplicate-object`: two Kustomizations of one environment produce the
//! same object (group, kind, namespace, name) in the same cluster. Both
//! apply it, each prunes it when the other changes: the last one to
//! reconcile wins, back and forth. A Kustomization with `spec.kubeConfig`
//! applies to another cluster (a hub deploying to its spokes): its objects
//! only clash with those of Kustomizations targeting that same cluster.

use std::collections::BTreeMap;

use super::{Ctx, any_opted_out};
use crate::check::Finding;
use crate::flux::KsReport;
use crate::resource::Resource;

/// The cluster a Kustomization applies to: "" for its own, else the
/// `spec.kubeConfig` reference (Secret or ConfigMap, in the
/// Kustomization's namespace).
fn target_cluster(ctx: &Ctx, k: &KsReport) -> String {
    let Some((_, obj)) = ctx.ks_objects.get(&k.key()) else {
        return String::new();
    };
    let Some(kc) = obj
        .obj
        .get_path(&["spec", "kubeConfig"])
        .filter(|n| !n.is_null())
    else {
        return String::new();
    };
    let r = |kind: &str, field: &str| {
        kc.get_str(&[field, "name"]).map(|n| {
            format!(
                "{kind}/{}/{n}:{}",
                obj.namespace(),
                kc.get_str(&[field, "key"]).unwrap_or("")
            )
        })
    };
    r("Secret", "secretRef")
        .or_else(|| r("ConfigMap", "configMapRef"))
        .unwrap_or_else(|| "kubeConfig".to_string())
}

pub fn run(ctx: &Ctx, out: &mut Vec<Finding>) {
    // (cluster, group, kind, namespace, name) → producers.
    type Id = (String, String, String, String, String);
    let mut seen: BTreeMap<Id, Vec<(&KsReport, &Resource)>> = BTreeMap::new();
    // Per producer (consecutive in `all`): its target cluster.
    let mut last: Option<(*const KsReport, String)> = None;
    for (k, o) in &ctx.all {
        let ptr: *const KsReport = *k;
        let cluster = match &last {
            Some((p, c)) if *p == ptr => c.clone(),
            _ => {
                let c = target_cluster(ctx, k);
                last = Some((ptr, c.clone()));
                c
            }
        };
        let id = o.cur_id();
        let ns = if id.gvk.is_cluster_scoped() {
            String::new()
        } else {
            id.effective_namespace()
        };
        seen.entry((
            cluster,
            id.gvk.group.clone(),
            id.gvk.kind.clone(),
            ns,
            id.name.clone(),
        ))
        .or_default()
        .push((k, o));
    }
    // The objects HelmReleases render are theirs (Helm installs them),
    // not the Kustomization's that applies the HelmRelease.
    let hr_of: std::collections::HashMap<*const Resource, String> = ctx
        .env
        .rendered
        .helmreleases
        .iter()
        .flat_map(|h| {
            h.objects
                .iter()
                .map(move |o| (o as *const Resource, format!("{}/{}", h.namespace, h.name)))
        })
        .collect();
    let producer = |k: &KsReport, o: &Resource| match hr_of.get(&(o as *const Resource)) {
        Some(h) => (true, h.clone()),
        None => (false, k.key()),
    };
    for ((_, _, kind, ns, name), list) in seen {
        let mut producers: Vec<(bool, String)> = list.iter().map(|(k, o)| producer(k, o)).collect();
        producers.dedup();
        if producers.len() < 2 {
            continue;
        }
        let objs: Vec<&Resource> = list.iter().map(|(_, o)| *o).collect();
        if any_opted_out(&objs, "duplicate-object") {
            continue;
        }
        let id = if ns.is_empty() {
            format!("{kind} {name}")
        } else {
            format!("{kind} {ns}/{name}")
        };
        let named = if producers.iter().all(|(hr, _)| !hr) {
            format!(
                "Kustomizations {}",
                producers
                    .iter()
                    .map(|(_, p)| p.as_str())
                    .collect::<Vec<_>>()
                    .join(" and ")
            )
        } else {
            producers
                .iter()
                .map(|(hr, p)| {
                    let kind = if *hr { "HelmRelease" } else { "Kustomization" };
                    format!("{kind} {p}")
                })
                .collect::<Vec<_>>()
                .join(" and ")
        };
        // One finding per producer after the first, at its object.
        for (k, o) in list.iter().skip(1) {
            let (file, line) = ctx.at(k, o, "metadata.name");
            out.push(
                ctx.finding(
                    "duplicate-object",
                    format!("{id} is produced by {named}: they overwrite and prune each other"),
                )
                .at(file, line)
                .ks(k.key())
                .object(o),
            );
        }
    }
}
