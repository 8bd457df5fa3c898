//! `valuesfrom-missing`: a HelmRelease `valuesFrom` entry (not
//! `optional`) whose ConfigMap or Secret is not in the environment, or
//! lacks the key (an object given with `--settings` counts). A ConfigMap or
//! Secret that an object of the cluster creates at runtime
//! (`crate::flux::render::runtime_maker`: an ExternalSecret, a Certificate,
//! an ObjectBucketClaim...) counts as present, and so does a source
//! Reflector copies into the namespace (`crate::flux::reflector`). A key
//! is not required of an object whose data is written at runtime
//! ([`filled_at_runtime`]). A generated ConfigMap whose name got a hash
//! suffix is the classic cause.

use super::{Ctx, is_helmrelease, ns_or_default};
use crate::check::{Finding, Severity};
use crate::flux::render::MakerIndex;
use crate::resource::Resource;
use crate::yaml::Node;

/// Whether an object of the cluster creates `kind` `name` in `ns` at
/// runtime.
fn produced_at_runtime(ctx: &Ctx, makers: &MakerIndex, kind: &str, ns: &str, name: &str) -> bool {
    let labels = |n: &str| ctx.find("Namespace", "", n).map(|(_, r)| r.obj.clone());
    makers.makers(kind, ns, name, &labels).next().is_some()
}

/// The source Reflector copies into `ns` as `kind` `name`, among the
/// rendered objects and those given with --settings.
fn reflected<'e>(
    ctx: &Ctx<'e, '_>,
    makers: &MakerIndex<'e>,
    kind: &str,
    ns: &str,
    name: &str,
) -> Option<&'e Resource> {
    let labels = |n: &str| ctx.find("Namespace", "", n).map(|(_, r)| r.obj.clone());
    let candidates = makers.named(kind, name).chain(
        ctx.env
            .rendered
            .settings
            .iter()
            .map(|r| (r.namespace_or_default(), r)),
    );
    crate::flux::reflector::source(candidates, kind, ns, name, &labels)
}

/// Whether the keys of `src`, a ConfigMap or Secret of the repository,
/// are written at runtime: Kubernetes writes `token`, `ca.crt` and
/// `namespace` into a Secret of type `kubernetes.io/service-account-token`;
/// and an object with no data at all is a placeholder that something else
/// fills (an operator naming it, as grafana-operator's service account
/// tokens, or Reflector mirroring another object into it).
fn filled_at_runtime(src: &Resource, key: &str) -> bool {
    let empty = |field: &str| match src.obj.get(field) {
        None | Some(Node::Null) => true,
        Some(Node::Map(m)) => m.is_empty(),
        Some(_) => false,
    };
    let service_account_token = src.kind() == "Secret"
        && src.obj.get_str(&["type"]) == Some("kubernetes.io/service-account-token")
        && matches!(key, "token" | "ca.crt" | "namespace");
    service_account_token || ["data", "stringData", "binaryData"].into_iter().all(empty)
}

pub fn run(ctx: &Ctx, out: &mut Vec<Finding>) {
    let skipped = ctx.skipped();
    let resource_sets: Vec<String> = ctx
        .env
        .rendered
        .not_expanded_offline()
        .map(|(_, u)| u.key.clone())
        .collect();
    let makers = MakerIndex::new(ctx.all.iter().map(|(_, r)| (r.namespace_or_default(), *r)));
    for (k, o) in &ctx.all {
        if !is_helmrelease(o) || crate::check::opted_out(o, "valuesfrom-missing") {
            continue;
        }
        let Some(Node::Seq(entries)) = o.obj.get_path(&["spec", "valuesFrom"]) else {
            continue;
        };
        let ns = ns_or_default(o);
        for (i, e) in entries.iter().enumerate() {
            if e.get("optional").and_then(Node::as_bool) == Some(true) {
                continue;
            }
            let kind = e.get_str(&["kind"]).unwrap_or("");
            let name = e.get_str(&["name"]).unwrap_or("");
            let key = e.get_str(&["valuesKey"]).unwrap_or("values.yaml");
            let path = format!("spec.valuesFrom[{i}]");
            // A rendered object, else one given with --settings, else the
            // source Reflector copies into the namespace.
            let found =
                ctx.find(kind, &ns, name)
                    .map(|(_, r)| r)
                    .or_else(|| {
                        ctx.env.rendered.settings.iter().find(|r| {
                            r.kind() == kind && ns_or_default(r) == ns && r.name() == name
                        })
                    })
                    .or_else(|| reflected(ctx, &makers, kind, &ns, name));
            let problem = match found {
                None if produced_at_runtime(ctx, &makers, kind, &ns, name) => None,
                None => Some(format!("{kind} {ns}/{name} is not in this environment")),
                Some(src) => {
                    let has = src.obj.get_path(&["data", key]).is_some()
                        || (kind == "Secret" && src.obj.get_path(&["stringData", key]).is_some())
                        || (kind == "ConfigMap"
                            && src.obj.get_path(&["binaryData", key]).is_some());
                    (!has && !filled_at_runtime(src, key))
                        .then(|| format!("{kind} {ns}/{name} has no key \"{key}\""))
                }
            };
            let Some(problem) = problem else { continue };
            let (severity, note) = if problem.contains("has no key") {
                (Severity::Error, String::new())
            } else if skipped.is_empty() {
                if resource_sets.is_empty() {
                    (Severity::Error, String::new())
                } else {
                    (
                        Severity::Warning,
                        format!(
                            " (unless {}, which flate did not expand, makes it at runtime)",
                            crate::flux::helm::resource_sets_near(&resource_sets, &ns)
                        ),
                    )
                }
            } else {
                (
                    Severity::Warning,
                    format!(
                        " (unless a Kustomization not rendered offline creates it: {})",
                        skipped.join(", ")
                    ),
                )
            };
            let (file, line) = ctx.at(k, o, &path);
            out.push(
                ctx.finding(
                    "valuesfrom-missing",
                    format!(
                        "HelmRelease {ns}/{} valuesFrom: {problem}; mark it optional or create it{note}",
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
