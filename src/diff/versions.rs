//! The version summary: chart sources and container images whose tag or
//! digest changed, what a Renovate pull request reviewer reads first.
//!
//! Rows come from paired objects (both sides present):
//! - OCIRepository: `spec.ref` (tag, semver, digest, semverFilter);
//! - HelmRelease: the chart version it resolves to when the chart comes
//!   from a HelmRepository, GitRepository or Bucket (an OCIRepository
//!   chart is the OCIRepository's row, with the HelmRelease in `used_by`);
//! - HelmChart: `spec.chart` / `spec.version`;
//! - images: a string field `image` or `imageName` (`repo[:tag][@digest]`),
//!   or a map `image` with `repository` (and `registry`, `tag`, `digest`,
//!   the Helm values convention), at the same path on both sides.

use std::collections::HashMap;

use crate::flux::Rendered;
use crate::flux::helm::ChartInfo;
use crate::yaml::Node;

use super::pairing::{Kind, Paired};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum VersionKind {
    Chart,
    Image,
}

impl VersionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            VersionKind::Chart => "chart",
            VersionKind::Image => "image",
        }
    }
}

/// One `name: old → new` row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionChange {
    pub kind: VersionKind,
    /// `OCIRepository observability/kube-state-metrics`,
    /// `HelmRelease ns/name`, or an image repository.
    pub name: String,
    /// Where it comes from (the chart URL), when known.
    pub source: String,
    pub old: String,
    pub new: String,
    /// Objects that use it (HelmReleases of an OCIRepository chart,
    /// objects that run an image).
    pub used_by: Vec<String>,
}

/// `sha256:0123456789ab` (12 hex digits) for a long digest.
pub fn short_digest(d: &str) -> String {
    match d.split_once(':') {
        Some((alg, hex)) if hex.len() > 12 => format!("{alg}:{}", &hex[..12]),
        _ => d.to_string(),
    }
}

/// A version for display: `tag@sha256:0123456789ab`, digests shortened.
pub fn display(v: &str) -> String {
    match v.split_once('@') {
        Some((t, d)) => format!("{t}@{}", short_digest(d)),
        None if v.contains(':') && v.len() > 40 => short_digest(v),
        None => v.to_string(),
    }
}

fn s(n: &Node, path: &[&str]) -> String {
    n.get_path(path)
        .and_then(Node::scalar_text)
        .unwrap_or_default()
}

fn join_ref(tag: &str, digest: &str) -> String {
    match (tag.is_empty(), digest.is_empty()) {
        (false, false) => format!("{tag}@{digest}"),
        (true, false) => digest.to_string(),
        _ => tag.to_string(),
    }
}

fn oci_ref(n: &Node) -> String {
    let tag = s(n, &["spec", "ref", "tag"]);
    let semver = s(n, &["spec", "ref", "semver"]);
    let digest = s(n, &["spec", "ref", "digest"]);
    let tag = if tag.is_empty() && !semver.is_empty() {
        format!("semver {semver}")
    } else {
        tag
    };
    join_ref(&tag, &digest)
}

fn chart_version(c: &ChartInfo) -> String {
    match (c.chart.is_empty(), c.version.is_empty()) {
        (false, false) => format!("{} {}", c.chart, c.version),
        (false, true) => c.chart.clone(),
        _ => c.version.clone(),
    }
}

/// An image reference split into name and `tag@digest`.
fn split_image(r: &str) -> (String, String) {
    let (rest, digest) = match r.split_once('@') {
        Some((a, d)) => (a, d),
        None => (r, ""),
    };
    let slash = rest.rfind('/').map(|i| i + 1).unwrap_or(0);
    let (name, tag) = match rest[slash..].rfind(':') {
        Some(i) => (&rest[..slash + i], &rest[slash + i + 1..]),
        None => (rest, ""),
    };
    (name.to_string(), join_ref(tag, digest))
}

/// `name:tag@digest`, `name@digest` or `name`.
fn full_image(name: &str, version: &str) -> String {
    if version.is_empty() {
        name.to_string()
    } else if version.contains(':') && !version.contains('@') && !version.starts_with("semver") {
        format!("{name}@{version}")
    } else {
        format!("{name}:{version}")
    }
}

fn plausible_image(v: &str) -> bool {
    !v.is_empty() && !v.contains(char::is_whitespace) && !v.starts_with('$')
}

/// Images in `n`: (path, name, `tag@digest`). `flate pins` reads the
/// images of HelmRelease values with it too.
pub fn images(n: &Node, path: &mut String, out: &mut Vec<(String, String, String)>) {
    match n {
        Node::Map(m) => {
            for (k, v) in m.iter() {
                let len = path.len();
                path.push('.');
                path.push_str(k);
                match v {
                    Node::Str(r) if (k == "image" || k == "imageName") && plausible_image(r) => {
                        let (name, version) = split_image(r);
                        out.push((path.clone(), name, version));
                    }
                    Node::Map(im) if k == "image" && im.get("repository").is_some() => {
                        let text =
                            |f: &str| im.get(f).and_then(Node::scalar_text).unwrap_or_default();
                        let repo = text("repository");
                        let registry = text("registry");
                        let name = if registry.is_empty() {
                            repo
                        } else {
                            format!("{registry}/{repo}")
                        };
                        let tag = text("tag");
                        let digest = text("digest");
                        let version = if tag.contains('@') || digest.is_empty() {
                            tag
                        } else {
                            join_ref(&tag, &digest)
                        };
                        if plausible_image(&name) {
                            out.push((path.clone(), name, version));
                        }
                    }
                    _ => images(v, path, out),
                }
                path.truncate(len);
            }
        }
        Node::Seq(items) => {
            for (i, v) in items.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                images(v, path, out);
                path.truncate(len);
            }
        }
        _ => {}
    }
}

fn push(out: &mut Vec<VersionChange>, row: VersionChange) {
    match out
        .iter_mut()
        .find(|r| r.kind == row.kind && r.name == row.name && r.old == row.old && r.new == row.new)
    {
        Some(r) => {
            for u in row.used_by {
                if !r.used_by.contains(&u) {
                    r.used_by.push(u);
                }
            }
        }
        None => out.push(row),
    }
}

/// The version changes between the two sides.
pub fn changes(paired: &Paired<'_>, base: &Rendered, head: &Rendered) -> Vec<VersionChange> {
    let mut out = Vec::new();
    // HelmReleases by namespace/name, both sides.
    let hrs = |r: &Rendered| -> HashMap<String, ChartInfo> {
        r.helmreleases
            .iter()
            .map(|h| (format!("{}/{}", h.namespace, h.name), h.chart.clone()))
            .collect()
    };
    let (bh, hh) = (hrs(base), hrs(head));
    let users = |kind: &str, ns: &str, name: &str| -> Vec<String> {
        let mut v: Vec<String> = hh
            .iter()
            .filter(|(_, c)| c.kind == kind && c.namespace == ns && c.name == name)
            .map(|(k, _)| format!("HelmRelease {k}"))
            .collect();
        v.sort();
        v
    };
    for p in &paired.pairs {
        let (Some(b), Some(h)) = (&p.base, &p.head) else {
            continue;
        };
        if !matches!(p.kind, Kind::Matched | Kind::Moved) {
            continue;
        }
        let (bn, hn) = (b.node.as_ref(), h.node.as_ref());
        if bn == hn {
            continue;
        }
        let key = &h.key;
        let source_group = key.group == "source.toolkit.fluxcd.io";
        if source_group && key.kind == "OCIRepository" {
            let (o, n) = (oci_ref(bn), oci_ref(hn));
            if o != n {
                push(
                    &mut out,
                    VersionChange {
                        kind: VersionKind::Chart,
                        name: format!("OCIRepository {}", key.qualified_name()),
                        source: s(hn, &["spec", "url"]),
                        old: o,
                        new: n,
                        used_by: users("OCIRepository", &key.namespace, &key.name),
                    },
                );
            }
        }
        if source_group && key.kind == "HelmChart" {
            let v = |n: &Node| {
                chart_version(&ChartInfo {
                    chart: s(n, &["spec", "chart"]),
                    version: s(n, &["spec", "version"]),
                    ..Default::default()
                })
            };
            let (o, n) = (v(bn), v(hn));
            if o != n {
                push(
                    &mut out,
                    VersionChange {
                        kind: VersionKind::Chart,
                        name: format!("HelmChart {}", key.qualified_name()),
                        source: String::new(),
                        old: o,
                        new: n,
                        used_by: users("HelmChart", &key.namespace, &key.name),
                    },
                );
            }
        }
        if key.group == "helm.toolkit.fluxcd.io" && key.kind == "HelmRelease" {
            let ns = if key.namespace.is_empty() {
                "default"
            } else {
                &key.namespace
            };
            let id = format!("{ns}/{}", key.name);
            if let (Some(o), Some(n)) = (bh.get(&id), hh.get(&id))
                && !matches!(n.kind.as_str(), "OCIRepository" | "HelmChart")
            {
                let (ov, nv) = (chart_version(o), chart_version(n));
                if ov != nv {
                    push(
                        &mut out,
                        VersionChange {
                            kind: VersionKind::Chart,
                            name: format!("HelmRelease {id}"),
                            source: n.url.clone(),
                            old: ov,
                            new: nv,
                            used_by: Vec::new(),
                        },
                    );
                }
            }
        }
        if key.kind == "Secret" && key.group.is_empty() {
            continue;
        }
        let (mut bi, mut hi) = (Vec::new(), Vec::new());
        images(bn, &mut String::new(), &mut bi);
        images(hn, &mut String::new(), &mut hi);
        for (path, name, new) in &hi {
            let Some((_, oname, old)) = bi.iter().find(|(p, _, _)| p == path) else {
                continue;
            };
            if oname == name && old == new {
                continue;
            }
            let (old, new) = if oname == name {
                (old.clone(), new.clone())
            } else {
                (full_image(oname, old), full_image(name, new))
            };
            push(
                &mut out,
                VersionChange {
                    kind: VersionKind::Image,
                    name: name.clone(),
                    source: String::new(),
                    old,
                    new,
                    used_by: vec![key.to_string()],
                },
            );
        }
    }
    // Charts first, then images; each in output order.
    out.sort_by_key(|v| v.kind);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_references_split_into_name_and_version() {
        assert_eq!(
            split_image("ghcr.io/a/b:v1@sha256:abc"),
            ("ghcr.io/a/b".into(), "v1@sha256:abc".into())
        );
        assert_eq!(
            split_image("localhost:5000/b"),
            ("localhost:5000/b".into(), "".into())
        );
        assert_eq!(split_image("nginx:1.27"), ("nginx".into(), "1.27".into()));
        assert_eq!(
            display("v1@sha256:0123456789abcdef0123"),
            "v1@sha256:0123456789ab"
        );
    }

    #[test]
    fn images_are_found_as_strings_and_helm_maps() {
        let n = crate::yaml::parse_one(
            "spec:\n  containers:\n  - image: nginx:1.27\n  values:\n    image:\n      repository: ghcr.io/x/y\n      tag: v2\n  imageName: ghcr.io/p:17\n",
        )
        .unwrap();
        let mut out = Vec::new();
        images(&n, &mut String::new(), &mut out);
        let names: Vec<(&str, &str)> = out
            .iter()
            .map(|(_, n, v)| (n.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("nginx", "1.27"),
                ("ghcr.io/x/y", "v2"),
                ("ghcr.io/p", "17")
            ]
        );
    }
}
