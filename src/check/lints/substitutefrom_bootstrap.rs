//! `substitutefrom-bootstrap`: a `postBuild.substituteFrom` source that a
//! running cluster has but an empty one does not get by itself. The
//! Kustomization applies the source itself, or a Kustomization that waits
//! for it does (one it creates, or one whose `dependsOn` leads to it).
//! Flux fails the Kustomization on its first apply, and so never applies
//! what would create the source, unless the source is created by hand (as
//! bootstrap scripts do). flate renders the cluster as it settles once the
//! source exists (docs/flux.md); this says what a rebuild from scratch
//! needs.

use super::Ctx;
use crate::check::Finding;

pub fn run(ctx: &Ctx, out: &mut Vec<Finding>) {
    for k in &ctx.env.rendered.kustomizations {
        if k.bootstrap_sources.is_empty() {
            continue;
        }
        if let Some((_, o)) = ctx.ks_objects.get(&k.key())
            && crate::check::opted_out(o, "substitutefrom-bootstrap")
        {
            continue;
        }
        for b in &k.bootstrap_sources {
            let who = if b.by == k.key() {
                "which only this Kustomization applies".to_string()
            } else {
                format!(
                    "which only Kustomization {} applies, and it waits for this one",
                    b.by
                )
            };
            let i = ctx
                .ks_objects
                .get(&k.key())
                .and_then(|(_, o)| o.obj.get_path(&["spec", "postBuild", "substituteFrom"]))
                .and_then(|l| match l {
                    crate::yaml::Node::Seq(items) => items.iter().position(|it| {
                        it.get_str(&["kind"]) == Some(b.kind.as_str())
                            && it.get_str(&["name"]) == Some(b.name.as_str())
                    }),
                    _ => None,
                });
            let path = match i {
                Some(i) => format!("spec.postBuild.substituteFrom[{i}]"),
                None => "spec.postBuild.substituteFrom".to_string(),
            };
            let (file, line) = ctx.ks_at(k, &path);
            out.push(
                ctx.finding(
                    "substitutefrom-bootstrap",
                    format!(
                        "Kustomization {} substitutes from {}/{}, {who}: on an empty cluster Flux fails it until {}/{} is created by hand (at bootstrap)",
                        k.key(),
                        b.kind,
                        b.name,
                        b.kind,
                        b.name
                    ),
                )
                .at(file, line)
                .ks(k.key()),
            );
        }
    }
}
