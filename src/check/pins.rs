//! Pins: every chart source and container image of an environment with its
//! tag and digest, the patches that override an OCIRepository's ref, and
//! the rules `flate pins --base REV` fails on.
//!
//! Flux resolves an OCIRepository's `spec.ref` as digest, then semver, then
//! tag (source-controller): when a patch sets `ref.tag` and leaves a
//! `ref.digest` from the base in place, the digest wins and the tag is
//! decoration. Everything here follows from that.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use serde_json::json;

use super::lints::{Ctx, is_helmrelease, name_matches, ns_or_default};
use crate::flux::KsReport;
use crate::flux::model::SOURCE_GROUP;
use crate::resource::Resource;
use crate::yaml::Node;

/// A patch that touches an OCIRepository's `spec.ref`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefPatch {
    /// Target name (a kustomize name pattern).
    pub name: String,
    pub namespace: Option<String>,
    pub tag: Option<String>,
    pub digest: Option<String>,
    pub semver: Option<String>,
    /// `digest: null` or a JSON 6902 `remove` of it.
    pub removes_digest: bool,
    /// The whole `spec.ref` is replaced or removed (no base field survives).
    pub replaces_ref: bool,
    /// Where it is applied: the Flux Kustomization whose `spec.patches`
    /// carries it, or the kustomization file that lists it.
    pub via: Via,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Via {
    Flux(String),
    File(PathBuf),
}

/// A [`RefPatch`] with its location (relative file, line).
#[derive(Debug, Clone)]
pub struct LocatedRefPatch {
    pub patch: RefPatch,
    pub file: Option<PathBuf>,
    pub line: usize,
}

fn text(n: Option<&Node>) -> Option<String> {
    n.filter(|n| !n.is_null()).and_then(Node::scalar_text)
}

/// The ref patches in one patch text (`target` is the entry's selector).
pub fn parse_ref_patches(patch: &str, target: Option<&Node>, via: &Via) -> Vec<RefPatch> {
    let Ok(docs) = crate::yaml::parse_stream(patch) else {
        return Vec::new();
    };
    let tkind = target.and_then(|t| t.get_str(&["kind"]));
    let tname = target.and_then(|t| t.get_str(&["name"]));
    let tns = target.and_then(|t| t.get_str(&["namespace"]));
    let mut out = Vec::new();
    for d in docs {
        let mut p = RefPatch {
            name: String::new(),
            namespace: tns.map(str::to_string),
            tag: None,
            digest: None,
            semver: None,
            removes_digest: false,
            replaces_ref: false,
            via: via.clone(),
        };
        let mut touched = false;
        match &d.node {
            Node::Seq(ops) => {
                if tkind != Some("OCIRepository") {
                    continue;
                }
                p.name = tname.unwrap_or_default().to_string();
                for op in ops {
                    let kind = op.get_str(&["op"]).unwrap_or("");
                    let path = op.get_str(&["path"]).unwrap_or("");
                    let value = op.get("value");
                    let set = matches!(kind, "add" | "replace");
                    match (path, set) {
                        ("/spec/ref/tag", true) => p.tag = text(value),
                        ("/spec/ref/digest", true) => p.digest = text(value),
                        ("/spec/ref/semver", true) => p.semver = text(value),
                        ("/spec/ref/digest", false) if kind == "remove" => p.removes_digest = true,
                        ("/spec/ref", true) => {
                            p.replaces_ref = true;
                            p.tag = text(value.and_then(|v| v.get("tag")));
                            p.digest = text(value.and_then(|v| v.get("digest")));
                            p.semver = text(value.and_then(|v| v.get("semver")));
                        }
                        ("/spec/ref", false) if kind == "remove" => p.replaces_ref = true,
                        _ => continue,
                    }
                    touched = true;
                }
            }
            Node::Map(_) => {
                let kind = d.node.get_str(&["kind"]).or(tkind);
                if kind != Some("OCIRepository") {
                    continue;
                }
                p.name = tname
                    .or(d.node.get_str(&["metadata", "name"]))
                    .unwrap_or_default()
                    .to_string();
                match d.node.get_path(&["spec", "ref"]) {
                    Some(Node::Null) => {
                        p.replaces_ref = true;
                        touched = true;
                    }
                    Some(r @ Node::Map(_)) => {
                        touched = true;
                        p.tag = text(r.get("tag"));
                        p.digest = text(r.get("digest"));
                        p.semver = text(r.get("semver"));
                        p.removes_digest = matches!(r.get("digest"), Some(Node::Null));
                        p.replaces_ref = r.get_str(&["$patch"]) == Some("replace");
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        if touched {
            out.push(p);
        }
    }
    out
}

/// The key and value that best locate a ref patch: its tag, else its
/// digest or semver.
fn needle(p: &RefPatch) -> (&'static str, String) {
    match (&p.tag, &p.digest, &p.semver) {
        (Some(t), _, _) => ("tag", t.clone()),
        (_, Some(d), _) => ("digest", d.clone()),
        (_, _, Some(s)) => ("semver", s.clone()),
        _ => ("ref", String::new()),
    }
}

/// Where a value set by a patch is written: its line in the first
/// candidate file holding it, preferring files that name `name`.
fn locate(
    ctx: &Ctx,
    files: &[PathBuf],
    key: &str,
    value: &str,
    name: &str,
) -> (Option<PathBuf>, usize) {
    let mut fallback = None;
    for f in files {
        let Some(line) = ctx.loc.value_line(f, 1, key, value) else {
            continue;
        };
        let names_it = ctx.loc.text(f).is_some_and(|t| t.contains(name));
        if names_it {
            return (Some(ctx.rel(f)), line);
        }
        fallback.get_or_insert((Some(ctx.rel(f)), line));
    }
    fallback.unwrap_or_else(|| match files.last() {
        Some(f) => (Some(ctx.rel(f)), 1),
        None => (None, 0),
    })
}

/// Every ref patch of the environment: Flux `spec.patches` entries and
/// kustomization file patches.
pub fn ref_patches(ctx: &Ctx) -> Vec<LocatedRefPatch> {
    let mut out = Vec::new();
    for k in &ctx.env.rendered.kustomizations {
        let Some((_, obj)) = ctx.ks_objects.get(&k.key()) else {
            continue;
        };
        let Some(Node::Seq(entries)) = obj.obj.get_path(&["spec", "patches"]) else {
            continue;
        };
        let via = Via::Flux(k.key());
        for e in entries {
            let Some(text) = e.get_str(&["patch"]) else {
                continue;
            };
            for p in parse_ref_patches(text, e.get("target"), &via) {
                let (key, value) = needle(&p);
                let (file, line) = locate(ctx, &ctx.patch_sources(k), key, &value, &p.name);
                out.push(LocatedRefPatch {
                    patch: p,
                    file,
                    line,
                });
            }
        }
    }
    for kf in &ctx.env.kfiles.files {
        for pr in &kf.patches {
            let (text, file) = match (&pr.inline, &pr.file) {
                (Some(t), _) => (t.clone(), kf.file.clone()),
                (None, Some(f)) => match ctx.loc.text(f) {
                    Some(t) => (t.to_string(), f.clone()),
                    None => continue,
                },
                _ => continue,
            };
            let via = Via::File(kf.file.clone());
            for p in parse_ref_patches(&text, pr.target.as_ref(), &via) {
                let (key, value) = needle(&p);
                let line = ctx.loc.value_line(&file, 1, key, &value).unwrap_or(1);
                out.push(LocatedRefPatch {
                    patch: p,
                    file: Some(ctx.rel(&file)),
                    line,
                });
            }
        }
    }
    out
}

/// The rendered OCIRepositories a ref patch applies to.
pub fn patch_targets<'e>(ctx: &Ctx<'e, '_>, p: &RefPatch) -> Vec<(&'e KsReport, &'e Resource)> {
    ctx.of_kind("OCIRepository")
        .filter(|(k, o)| {
            // The name first: it rules out nearly all, without allocating.
            name_matches(&p.name, o.name())
                && o.gvk().group == SOURCE_GROUP
                && match &p.via {
                    Via::Flux(key) => &k.key() == key,
                    Via::File(_) => p
                        .namespace
                        .as_ref()
                        .is_none_or(|n| name_matches(n, o.namespace())),
                }
        })
        .collect()
}

/// A patch's pin that Flux does not honour: it sets a tag, no digest, and
/// the rendered object still carries a digest (from the base), which wins.
/// Returns (target, rendered tag, rendered digest).
pub fn lost_pins<'e>(
    ctx: &Ctx<'e, '_>,
) -> Vec<(LocatedRefPatch, &'e KsReport, &'e Resource, String)> {
    let mut out = Vec::new();
    for lp in ref_patches(ctx) {
        let p = &lp.patch;
        if p.tag.is_none() || p.digest.is_some() || p.removes_digest || p.replaces_ref {
            continue;
        }
        for (k, o) in patch_targets(ctx, p) {
            let digest = o.obj.get_str(&["spec", "ref", "digest"]).unwrap_or("");
            if !digest.is_empty() {
                out.push((lp.clone(), k, o, digest.to_string()));
            }
        }
    }
    out
}

// ------------------------------------------------------------- images

/// Paths of pod specs in workload kinds.
fn pod_spec_paths(kind: &str) -> &'static [&'static str] {
    match kind {
        "Pod" => &["spec"],
        "Deployment"
        | "StatefulSet"
        | "DaemonSet"
        | "ReplicaSet"
        | "Job"
        | "ReplicationController" => &["spec.template.spec"],
        "PodTemplate" => &["template.spec"],
        "CronJob" => &["spec.jobTemplate.spec.template.spec"],
        _ => &[],
    }
}

fn get_dotted<'n>(n: &'n Node, path: &str) -> Option<&'n Node> {
    let parts: Vec<&str> = path.split('.').collect();
    n.get_path(&parts)
}

/// Container images of an object: (field path, container name, image).
/// Pod specs of the workload kinds, and the CloudNativePG `Cluster`'s
/// `spec.imageName`.
pub fn container_images(o: &Resource) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for base in pod_spec_paths(o.kind()) {
        let Some(spec) = get_dotted(&o.obj, base) else {
            continue;
        };
        for list in ["initContainers", "containers", "ephemeralContainers"] {
            if let Some(Node::Seq(cs)) = spec.get(list) {
                for (i, c) in cs.iter().enumerate() {
                    let image = c
                        .get("image")
                        .and_then(Node::scalar_text)
                        .unwrap_or_default();
                    let name = c.get_str(&["name"]).unwrap_or("").to_string();
                    out.push((format!("{base}.{list}[{i}].image"), name, image));
                }
            }
        }
    }
    if o.kind() == "Cluster"
        && o.gvk().group == "postgresql.cnpg.io"
        && let Some(img) = o.obj.get_str(&["spec", "imageName"])
    {
        out.push(("spec.imageName".into(), "postgres".into(), img.to_string()));
    }
    out
}

/// `registry/repo:tag@digest` → (repository, tag, digest).
pub fn split_image(image: &str) -> (String, String, String) {
    let (rest, digest) = match image.split_once('@') {
        Some((r, d)) => (r, d.to_string()),
        None => (image, String::new()),
    };
    let slash = rest.rfind('/').map(|i| i + 1).unwrap_or(0);
    match rest[slash..].rfind(':') {
        Some(i) => (
            rest[..slash + i].to_string(),
            rest[slash + i + 1..].to_string(),
            digest,
        ),
        None => (rest.to_string(), String::new(), digest),
    }
}

// ---------------------------------------------------------------- pins

/// One pinned version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pin {
    pub env: String,
    /// OCIRepository, HelmRepository chart (HelmRelease), HelmChart, Image.
    pub kind: String,
    /// `namespace/name` of the object (images: and `/container`).
    pub name: String,
    /// Chart URL, `chart` from the repository URL, or image repository.
    pub source: String,
    /// Tag, version or semver range.
    pub tag: String,
    pub digest: String,
    pub kustomization: String,
    pub file: Option<PathBuf>,
    pub line: usize,
}

impl Pin {
    /// What identifies the pin across revisions.
    pub fn key(&self) -> (String, String, String) {
        (self.env.clone(), self.kind.clone(), self.name.clone())
    }
    pub fn to_json(&self) -> serde_json::Value {
        json!({
            "env": self.env, "kind": self.kind, "name": self.name, "source": self.source,
            "tag": self.tag, "digest": self.digest, "kustomization": self.kustomization,
            "file": self.file.as_ref().map(|f| f.display().to_string()), "line": self.line,
        })
    }
}

/// Every pin of one environment, in render order.
pub fn pins(ctx: &Ctx) -> Vec<Pin> {
    let mut out = Vec::new();
    let env = &ctx.env.name;
    for (k, o) in &ctx.all {
        let id = format!("{}/{}", ns_or_default(o), o.name());
        let g = o.gvk();
        let s = |p: &[&str]| o.obj.get_str(p).unwrap_or("").to_string();
        let mut push =
            |kind: &str, name: String, source: String, tag: String, digest: String, path: &str| {
                let (file, line) = ctx.at(k, o, path);
                out.push(Pin {
                    env: env.clone(),
                    kind: kind.to_string(),
                    name,
                    source,
                    tag,
                    digest,
                    kustomization: k.key(),
                    file,
                    line,
                });
            };
        if g.group == SOURCE_GROUP && g.kind == "OCIRepository" {
            let tag = match (s(&["spec", "ref", "tag"]), s(&["spec", "ref", "semver"])) {
                (t, _) if !t.is_empty() => t,
                (_, sv) if !sv.is_empty() => format!("semver:{sv}"),
                _ => String::new(),
            };
            push(
                "OCIRepository",
                id.clone(),
                s(&["spec", "url"]),
                tag,
                s(&["spec", "ref", "digest"]),
                "spec.ref",
            );
        } else if g.group == SOURCE_GROUP && g.kind == "HelmChart" {
            let repo = ctx
                .find(
                    &s(&["spec", "sourceRef", "kind"]),
                    &ns_or_default(o),
                    &s(&["spec", "sourceRef", "name"]),
                )
                .map(|(_, r)| r.obj.get_str(&["spec", "url"]).unwrap_or("").to_string())
                .unwrap_or_default();
            push(
                "HelmChart",
                id.clone(),
                format!("{} from {repo}", s(&["spec", "chart"])),
                s(&["spec", "version"]),
                String::new(),
                "spec.version",
            );
        } else if is_helmrelease(o) && o.obj.get_path(&["spec", "chart", "spec"]).is_some() {
            let cs = |p: &str| s(&["spec", "chart", "spec", p]);
            let src_ns = match s(&["spec", "chart", "spec", "sourceRef", "namespace"]) {
                n if n.is_empty() => ns_or_default(o),
                n => n,
            };
            let repo = ctx
                .find(
                    &s(&["spec", "chart", "spec", "sourceRef", "kind"]),
                    &src_ns,
                    &s(&["spec", "chart", "spec", "sourceRef", "name"]),
                )
                .map(|(_, r)| r.obj.get_str(&["spec", "url"]).unwrap_or("").to_string())
                .filter(|u| !u.is_empty())
                // A chart directory of a source (the repository's own
                // GitRepository need not be among the objects).
                .unwrap_or_else(|| {
                    format!(
                        "{}/{src_ns}/{}",
                        s(&["spec", "chart", "spec", "sourceRef", "kind"]),
                        s(&["spec", "chart", "spec", "sourceRef", "name"])
                    )
                });
            push(
                "HelmRelease",
                id.clone(),
                format!("{} from {repo}", cs("chart")),
                cs("version"),
                String::new(),
                "spec.chart.spec.version",
            );
        }
        if is_helmrelease(o)
            && let Some(values) = o.obj.get_path(&["spec", "values"])
        {
            // Images set in the chart's values: `image: repo:tag@digest`
            // strings and `image: {registry, repository, tag, digest}`
            // maps at any depth (the bjw-s app-template
            // `controllers.*.containers.*.image` shape, most charts'
            // top-level `image`), as in diff's version table.
            let mut found = Vec::new();
            crate::diff::versions::images(values, &mut String::new(), &mut found);
            for (path, repo, version) in found {
                let (tag, digest) = match version.split_once('@') {
                    Some((t, d)) => (t.to_string(), d.to_string()),
                    None if version.contains(':') => (String::new(), version),
                    None => (version, String::new()),
                };
                push(
                    "Image",
                    format!("HelmRelease {id} values{path}"),
                    repo,
                    tag,
                    digest,
                    &format!("spec.values{path}"),
                );
            }
        }
        for (path, container, image) in container_images(o) {
            let (repo, tag, digest) = split_image(&image);
            push(
                "Image",
                format!("{} {id}/{container}", o.kind()),
                repo,
                tag,
                digest,
                &path,
            );
        }
    }
    out
}

/// A pin rule `flate pins` fails on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinFailure {
    pub env: String,
    pub kind: String,
    pub name: String,
    pub message: String,
    pub file: Option<PathBuf>,
    pub line: usize,
}

impl PinFailure {
    pub fn to_json(&self) -> serde_json::Value {
        json!({"env": self.env, "kind": self.kind, "name": self.name, "message": self.message,
               "file": self.file.as_ref().map(|f| f.display().to_string()), "line": self.line})
    }
}

fn short(d: &str) -> String {
    match d.split_once(':') {
        Some((alg, hex)) if hex.len() > 12 => format!("{alg}:{}", &hex[..12]),
        _ => d.to_string(),
    }
}

/// Rule 3: an environment's pin disagrees with what Flux resolves (a tag
/// set next to a base digest).
pub fn lost_failures(ctx: &Ctx) -> Vec<PinFailure> {
    lost_pins(ctx)
        .into_iter()
        .map(|(lp, _, o, digest)| {
            let base_tag = base_tag_of(ctx, o).unwrap_or_default();
            PinFailure {
                env: ctx.env.name.clone(),
                kind: "OCIRepository".into(),
                name: format!("{}/{}", ns_or_default(o), o.name()),
                message: format!(
                    "pinned to tag {} but Flux resolves digest {}{}: the patch sets ref.tag without ref.digest",
                    lp.patch.tag.clone().unwrap_or_default(),
                    short(&digest),
                    if base_tag.is_empty() {
                        String::new()
                    } else {
                        format!(" (tag {base_tag} in the base)")
                    }
                ),
                file: lp.file.clone(),
                line: lp.line,
            }
        })
        .collect()
}

/// The tag the object's own file (the base) gives it.
pub fn base_tag_of(ctx: &Ctx, o: &Resource) -> Option<String> {
    let f = o.origin.file.as_ref()?;
    let docs = ctx.docs(f)?;
    let d = docs.iter().find(|d| d.line == o.origin.line)?;
    d.node.get_str(&["spec", "ref", "tag"]).map(str::to_string)
}

/// Overrides by (env, target name): (tag, digest, location).
pub fn overrides(ctx: &Ctx) -> BTreeMap<(String, String), LocatedRefPatch> {
    ref_patches(ctx)
        .into_iter()
        .map(|lp| ((ctx.env.name.clone(), lp.patch.name.clone()), lp))
        .collect()
}

/// Rules 1 and 2, comparing the pins (and overrides) of a base revision
/// with the current ones.
pub fn compare(
    base: &[Pin],
    head: &[Pin],
    base_overrides: &BTreeMap<(String, String), LocatedRefPatch>,
    head_overrides: &BTreeMap<(String, String), LocatedRefPatch>,
) -> Vec<PinFailure> {
    let mut out = Vec::new();
    for (key, h) in head_overrides {
        let Some(b) = base_overrides.get(key) else {
            continue;
        };
        if b.patch.digest.is_some() && h.patch.digest.is_none() && !h.patch.replaces_ref {
            out.push(PinFailure {
                env: key.0.clone(),
                kind: "OCIRepository".into(),
                name: key.1.clone(),
                message: format!(
                    "the override lost its digest (was {} with tag {}, now tag {} alone)",
                    short(b.patch.digest.as_deref().unwrap_or("")),
                    b.patch.tag.clone().unwrap_or_default(),
                    h.patch.tag.clone().unwrap_or_default()
                ),
                file: h.file.clone(),
                line: h.line,
            });
        }
        if h.patch.tag != b.patch.tag
            && h.patch.digest.is_some()
            && h.patch.digest == b.patch.digest
        {
            out.push(PinFailure {
                env: key.0.clone(),
                kind: "OCIRepository".into(),
                name: key.1.clone(),
                message: format!(
                    "the override's tag changed {} → {} but its digest did not ({})",
                    b.patch.tag.clone().unwrap_or_default(),
                    h.patch.tag.clone().unwrap_or_default(),
                    short(h.patch.digest.as_deref().unwrap_or(""))
                ),
                file: h.file.clone(),
                line: h.line,
            });
        }
    }
    let before: HashMap<_, &Pin> = base.iter().map(|p| (p.key(), p)).collect();
    for p in head {
        let Some(b) = before.get(&p.key()) else {
            continue;
        };
        // An override failure already names this object, at the patch.
        let covered = p.kind == "OCIRepository"
            && out.iter().any(|f: &PinFailure| {
                f.env == p.env && p.name.rsplit('/').next() == Some(f.name.as_str())
            });
        if covered {
            continue;
        }
        if p.tag != b.tag && !p.digest.is_empty() && p.digest == b.digest {
            out.push(PinFailure {
                env: p.env.clone(),
                kind: p.kind.clone(),
                name: p.name.clone(),
                message: format!(
                    "tag changed {} → {} but the digest did not ({}): Flux keeps deploying the old artifact",
                    b.tag,
                    p.tag,
                    short(&p.digest)
                ),
                file: p.file.clone(),
                line: p.line,
            });
        } else if !b.digest.is_empty() && p.digest.is_empty() {
            out.push(PinFailure {
                env: p.env.clone(),
                kind: p.kind.clone(),
                name: p.name.clone(),
                message: format!(
                    "digest {} disappeared (tag {} → {}): the pin no longer holds",
                    short(&b.digest),
                    b.tag,
                    p.tag
                ),
                file: p.file.clone(),
                line: p.line,
            });
        }
    }
    out.sort_by(|a, b| {
        (&a.env, &a.kind, &a.name, &a.message).cmp(&(&b.env, &b.kind, &b.name, &b.message))
    });
    out.dedup_by(|a, b| {
        a.env == b.env && a.kind == b.kind && a.name == b.name && a.message == b.message
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_split() {
        assert_eq!(
            split_image("ghcr.io/a/b:1.2@sha256:ff"),
            ("ghcr.io/a/b".into(), "1.2".into(), "sha256:ff".into())
        );
        assert_eq!(
            split_image("localhost:5000/b"),
            ("localhost:5000/b".into(), "".into(), "".into())
        );
        assert_eq!(split_image("nginx"), ("nginx".into(), "".into(), "".into()));
        assert_eq!(
            split_image("nginx@sha256:ab"),
            ("nginx".into(), "".into(), "sha256:ab".into())
        );
    }

    #[test]
    fn ref_patches_smp_and_json6902() {
        let via = Via::Flux("flux-system/a".into());
        let smp = "apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata:\n  name: x\nspec:\n  ref:\n    tag: 1.0.0\n";
        let p = parse_ref_patches(smp, None, &via);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].name, "x");
        assert_eq!(p[0].tag.as_deref(), Some("1.0.0"));
        assert_eq!(p[0].digest, None);
        let json = "- op: replace\n  path: /spec/ref/tag\n  value: 2.0.0\n- op: remove\n  path: /spec/ref/digest\n";
        let target = crate::yaml::parse_one("kind: OCIRepository\nname: y\n").unwrap();
        let p = parse_ref_patches(json, Some(&target), &via);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].name, "y");
        assert_eq!(p[0].tag.as_deref(), Some("2.0.0"));
        assert!(p[0].removes_digest);
        // Other kinds are not ref patches.
        assert!(
            parse_ref_patches("kind: HelmRelease\nspec:\n  ref:\n    tag: 1\n", None, &via)
                .is_empty()
        );
    }
}
