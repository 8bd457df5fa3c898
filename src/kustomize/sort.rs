//! Output order: kustomize's legacy order (by kind priority, then GVK, then
//! namespace and name) unless `sortOptions.order: fifo`.

use std::cmp::Ordering;
use std::collections::HashMap;

use crate::resource::{Gvk, ResId, ResMap};
use crate::yaml::Node;

use super::Error;
use super::kustfile::Kustomization;

/// kustomize's `orderFirst` (`resid` typeOrders; also the order of GVKs in
/// the field-spec tables, see `tconfig`).
pub(super) const ORDER_FIRST: &[&str] = &[
    "Namespace",
    "ResourceQuota",
    "StorageClass",
    "CustomResourceDefinition",
    "ServiceAccount",
    "PodSecurityPolicy",
    "Role",
    "ClusterRole",
    "RoleBinding",
    "ClusterRoleBinding",
    "ConfigMap",
    "Secret",
    "Endpoints",
    "Service",
    "LimitRange",
    "PriorityClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "Deployment",
    "StatefulSet",
    "CronJob",
    "PodDisruptionBudget",
];
pub(super) const ORDER_LAST: &[&str] = &[
    "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration",
];

fn gvk_sort_string(g: &Gvk) -> String {
    let or = |s: &str, d: &str| {
        if s.is_empty() {
            d.to_string()
        } else {
            s.to_string()
        }
    };
    format!(
        "{}_{}_{}",
        or(&g.group, "~G"),
        or(&g.version, "~V"),
        or(&g.kind, "~K")
    )
}

fn id_sort_string(id: &ResId) -> String {
    let ns = if id.namespace.is_empty() {
        "~X"
    } else {
        &id.namespace
    };
    let nm = if id.name.is_empty() { "~N" } else { &id.name };
    format!("{}|{}|{}", id.gvk.kustomize_string(), ns, nm)
}

/// Compares two ids in kustomize's legacy order.
pub fn legacy_cmp(a: &ResId, b: &ResId, orders: &HashMap<String, i64>) -> Ordering {
    if a.gvk != b.gvk {
        let ia = orders.get(&a.gvk.kind).copied().unwrap_or(0);
        let ib = orders.get(&b.gvk.kind).copied().unwrap_or(0);
        if ia != ib {
            return ia.cmp(&ib);
        }
        if a.gvk.kind == "Namespace"
            && b.gvk.kind == "Namespace"
            && (a.gvk.group.is_empty() || b.gvk.group.is_empty())
        {
            return gvk_sort_string(&b.gvk).cmp(&gvk_sort_string(&a.gvk));
        }
        return gvk_sort_string(&a.gvk).cmp(&gvk_sort_string(&b.gvk));
    }
    id_sort_string(a).cmp(&id_sort_string(b))
}

pub fn type_orders(first: &[String], last: &[String]) -> HashMap<String, i64> {
    let mut m = HashMap::new();
    for (i, k) in first.iter().enumerate() {
        m.insert(k.clone(), i as i64 - first.len() as i64);
    }
    for (i, k) in last.iter().enumerate() {
        m.insert(k.clone(), 1 + i as i64);
    }
    m
}

pub fn default_orders() -> HashMap<String, i64> {
    let f: Vec<String> = ORDER_FIRST.iter().map(|s| s.to_string()).collect();
    let l: Vec<String> = ORDER_LAST.iter().map(|s| s.to_string()).collect();
    type_orders(&f, &l)
}

/// Applies the kustomization's sort order.
pub fn sort(k: &Kustomization, m: &mut ResMap) -> Result<(), Error> {
    // kustomize: without `sortOptions` the order is legacy; with it, the
    // order must be given (fifo or legacy), and legacySortOptions only goes
    // with legacy.
    let opts = k.get("sortOptions").filter(|o| !o.is_null());
    let order = match opts {
        None => "legacy",
        Some(o) => o.get_str(&["order"]).unwrap_or(""),
    };
    let has_legacy_options = opts
        .and_then(|o| o.get("legacySortOptions"))
        .is_some_and(|n| !n.is_null());
    match order {
        "fifo" if has_legacy_options => Err(k.err(
            "the field 'sortOptions.legacySortOptions' is set but the selected sort order is 'fifo', not 'legacy'",
        )),
        "fifo" => Ok(()),
        "legacy" => {
            let list = |key: &str| -> Option<Vec<String>> {
                let n = opts?.get_path(&["legacySortOptions", key])?;
                Some(n.as_seq()?.iter().filter_map(Node::scalar_text).collect())
            };
            let orders = match (list("orderFirst"), list("orderLast")) {
                (None, None) => default_orders(),
                (f, l) => type_orders(&f.unwrap_or_default(), &l.unwrap_or_default()),
            };
            let mut keyed: Vec<(ResId, crate::resource::Resource)> =
                m.resources.drain(..).map(|r| (r.cur_id(), r)).collect();
            keyed.sort_by(|a, b| legacy_cmp(&a.0, &b.0, &orders));
            m.resources = keyed.into_iter().map(|(_, r)| r).collect();
            Ok(())
        }
        other => Err(k.err(format!(
            "the field 'sortOptions.order' must be one of [fifo, legacy] (found '{other}')"
        ))),
    }
}
