//! `duplicate-object`: two Kustomizations of one environment produce the
//! same object (group, kind, namespace, name) in the same cluster. Both
//! apply it, each prunes it when the other changes: the last one to
//! reconcile wins, back and forth. A Kustomization with `spec.kubeConfig`
//! applies to another cluster (a hub deploying to its spokes): its objects
//! only clash with those of Kustomizations targeting that same cluster;
//! so with a HelmRelease's own `spec.kubeConfig` for the objects it
//! renders. The CRDs of charts' `crds/` directories are not the releases'
//! (helm-controller creates them when missing, or replaces them, and never
//! deletes them): several releases installing the same one do not clash.
//!
//! Two Kustomizations applying the very same object (a shared
//! `OCIRepository app-template` copied into every app of a namespace) is
//! a warning, not an error: kustomize-controller's apply changes nothing
//! but its owner labels (`kustomize.toolkit.fluxcd.io/name`,
//! `…/namespace`), which flip to the last one to reconcile, and its
//! garbage collection deletes only objects carrying its own labels
//! (`ssa.DeleteOptions.Inclusions`): deleting, or dropping the object
//! from, the Kustomization that applied it last deletes it until another
//! one reconciles. Objects that differ, or that a HelmRelease renders
//! (Helm refuses an object another release or nobody owns), stay errors.
//!
//! A custom resource whose CRD (rendered in the environment) says
//! `scope: Cluster` is one object whatever namespace it carries:
//! kustomize sets `targetNamespace` on kinds it does not know, and the API
//! server drops the namespace of a cluster-scoped object. So two
//! Kustomizations with different target namespaces applying the same
//! `ClusterIssuer` clash.

use std::collections::BTreeMap;

use super::{Ctx, any_opted_out};
use crate::check::{Finding, Severity};
use crate::flux::KsReport;
use crate::resource::Resource;

/// The cluster a Kustomization applies to: "" for its own, else the
/// `spec.kubeConfig` reference (Secret or ConfigMap, in the
/// Kustomization's namespace).
fn target_cluster(ctx: &Ctx, k: &KsReport) -> String {
    match ctx.ks_objects.get(&k.key()) {
        Some((_, obj)) => kube_config(obj).unwrap_or_default(),
        None => String::new(),
    }
}

/// The `spec.kubeConfig` reference of a Kustomization or HelmRelease, if
/// it has one.
fn kube_config(obj: &Resource) -> Option<String> {
    let kc = obj
        .obj
        .get_path(&["spec", "kubeConfig"])
        .filter(|n| !n.is_null())?;
    let r = |kind: &str, field: &str| {
        kc.get_str(&[field, "name"]).map(|n| {
            format!(
                "{kind}/{}/{n}:{}",
                obj.namespace(),
                kc.get_str(&[field, "key"]).unwrap_or("")
            )
        })
    };
    Some(
        r("Secret", "secretRef")
            .or_else(|| r("ConfigMap", "configMapRef"))
            .unwrap_or_else(|| "kubeConfig".to_string()),
    )
}

/// The object as kustomize-controller applies it: without the mark flate
/// puts on an object whose SOPS values it could not decrypt (the
/// controller decrypts them and drops SOPS' own metadata).
/// A cluster-scoped object (`cluster_scoped`) is applied without the
/// namespace kustomize may have set on it.
fn as_applied(r: &Resource, cluster_scoped: bool) -> std::borrow::Cow<'_, crate::yaml::Node> {
    let sops = crate::flux::sops::is_encrypted(r);
    let drop_namespace = cluster_scoped && !r.namespace().is_empty();
    if !sops && !drop_namespace {
        return std::borrow::Cow::Borrowed(&r.obj);
    }
    let mut obj = r.obj.clone();
    if let Some(meta) = obj
        .as_map_mut()
        .and_then(|m| m.get_mut("metadata"))
        .and_then(|m| m.as_map_mut())
    {
        if drop_namespace {
            meta.remove("namespace");
        }
        if !sops {
            return std::borrow::Cow::Owned(obj);
        }
        let empty = match meta.get_mut("annotations").and_then(|a| a.as_map_mut()) {
            Some(a) => {
                a.remove(crate::flux::sops::ANNOTATION);
                a.is_empty()
            }
            None => false,
        };
        if empty {
            meta.remove("annotations");
        }
    }
    std::borrow::Cow::Owned(obj)
}

/// What is known of an object a HelmRelease renders.
struct HrObject {
    /// `NAMESPACE/NAME` of the HelmRelease.
    release: String,
    /// A CRD of a chart's `crds/` directory.
    crds_dir: bool,
    /// The HelmRelease's own `spec.kubeConfig`.
    cluster: Option<String>,
}

pub fn run(ctx: &Ctx, out: &mut Vec<Finding>) {
    // The objects HelmReleases render are theirs (Helm installs them),
    // not the Kustomization's that applies the HelmRelease.
    let hr_of: std::collections::HashMap<*const Resource, HrObject> = ctx
        .env
        .rendered
        .helmreleases
        .iter()
        .flat_map(|h| {
            let cluster = kube_config(&h.object);
            h.objects.iter().enumerate().map(move |(i, o)| {
                (
                    o as *const Resource,
                    HrObject {
                        release: format!("{}/{}", h.namespace, h.name),
                        crds_dir: i < h.crds,
                        cluster: cluster.clone(),
                    },
                )
            })
        })
        .collect();
    // The scopes of the CRDs the environment renders (Kustomizations and
    // HelmReleases alike).
    let mut crds = crate::flux::helmrender::CrdInfo::default();
    for (_, o) in &ctx.all {
        crds.add(o);
    }
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
        let cluster = match hr_of.get(&(*o as *const Resource)) {
            Some(HrObject {
                cluster: Some(c), ..
            }) => c.clone(),
            _ => cluster,
        };
        let id = o.cur_id();
        let ns = if crds.is_cluster_scoped(o) {
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
    let producer = |k: &KsReport, o: &Resource| match hr_of.get(&(o as *const Resource)) {
        Some(h) => (true, h.release.clone()),
        None => (false, k.key()),
    };
    for ((_, _, kind, ns, name), list) in seen {
        if list.iter().all(|(_, o)| {
            hr_of
                .get(&(*o as *const Resource))
                .is_some_and(|h| h.crds_dir)
        }) {
            continue;
        }
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
        // The same object from Kustomizations only: nothing changes but
        // the owner labels kustomize-controller sets, and its garbage
        // collection deletes only what carries its own (see the module).
        let identical = producers.iter().all(|(hr, _)| !hr)
            && objs
                .windows(2)
                .all(|w| as_applied(w[0], ns.is_empty()) == as_applied(w[1], ns.is_empty()));
        let (severity, what) = if identical {
            (
                Severity::Warning,
                "the same object: each reconciliation labels it as the last one's, and deleting that one deletes it until another reconciles",
            )
        } else {
            (Severity::Error, "they overwrite and prune each other")
        };
        // One finding per producer after the first, at its object.
        for (k, o) in list.iter().skip(1) {
            let (file, line) = ctx.at(k, o, "metadata.name");
            out.push(
                ctx.finding(
                    "duplicate-object",
                    format!("{id} is produced by {named}: {what}"),
                )
                .severity(severity)
                .at(file, line)
                .ks(k.key())
                .object(o),
            );
        }
    }
}
