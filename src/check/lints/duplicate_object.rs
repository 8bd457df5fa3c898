//! `duplicate-object`: two Kustomizations of one environment produce the
//! same object (group, kind, namespace, name). Both apply it, each prunes
//! it when the other changes: the last one to reconcile wins, back and
//! forth.

use std::collections::BTreeMap;

use super::{Ctx, any_opted_out};
use crate::check::Finding;
use crate::flux::KsReport;
use crate::resource::Resource;

pub fn run(ctx: &Ctx, out: &mut Vec<Finding>) {
    // (group, kind, namespace, name) → producers.
    type Id = (String, String, String, String);
    let mut seen: BTreeMap<Id, Vec<(&KsReport, &Resource)>> = BTreeMap::new();
    for (k, o) in &ctx.all {
        let id = o.cur_id();
        let ns = if id.gvk.is_cluster_scoped() {
            String::new()
        } else {
            id.effective_namespace()
        };
        seen.entry((
            id.gvk.group.clone(),
            id.gvk.kind.clone(),
            ns,
            id.name.clone(),
        ))
        .or_default()
        .push((k, o));
    }
    for ((_, kind, ns, name), list) in seen {
        let mut producers: Vec<String> = list.iter().map(|(k, _)| k.key()).collect();
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
        // One finding per producer after the first, at its object.
        for (k, o) in list.iter().skip(1) {
            let (file, line) = ctx.at(k, o, "metadata.name");
            out.push(
                ctx.finding(
                    "duplicate-object",
                    format!(
                        "{id} is produced by Kustomizations {}: they overwrite and prune each other",
                        producers.join(" and ")
                    ),
                )
                .at(file, line)
                .ks(k.key())
                .object(o),
            );
        }
    }
}
