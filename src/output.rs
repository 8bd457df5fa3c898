//! Printing a rendered cluster: the YAML stream, the JSON contract, one file
//! per Kustomization, and Secret redaction.

use std::borrow::Cow;
use std::io::Write;
use std::path::Path;

use rayon::prelude::*;
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Value as J, json};

use crate::flux::helm::HelmReleaseReport;
use crate::flux::{KsReport, Rendered, Status};
use crate::resource::Resource;
use crate::yaml::Node;

/// The `apiVersion` of every JSON document flate prints (docs/json.md).
pub const API_VERSION: &str = "flate.dev/v1";

/// The first `n` of `items` and how many more: `a, b, c, and 2 more`.
pub fn first_few(items: &[String], n: usize) -> String {
    let mut out = items[..items.len().min(n)].join(", ");
    if items.len() > n {
        out.push_str(&format!(", and {} more", items.len() - n));
    }
    out
}

/// `v` as a document of the JSON contract: an object that starts with
/// `apiVersion` and `kind` (a list becomes the object's `items`).
pub fn envelope(kind: &str, v: J) -> J {
    let mut m = serde_json::Map::new();
    m.insert("apiVersion".into(), J::from(API_VERSION));
    m.insert("kind".into(), J::from(kind));
    match v {
        J::Object(o) => {
            for (k, v) in o {
                if k != "apiVersion" && k != "kind" {
                    m.insert(k, v);
                }
            }
        }
        other => {
            m.insert("items".into(), other);
        }
    }
    J::Object(m)
}

pub use crate::secret::REDACTED;

/// A copy of `r` with every secret value (see `crate::secret`) replaced
/// by [`REDACTED`].
pub fn redact(r: &Resource) -> Node {
    crate::secret::redacted(r).unwrap_or_else(|| r.obj.clone())
}

/// The object as printed: secret values redacted unless asked not to.
pub fn object_node(r: &Resource, show_secrets: bool) -> Cow<'_, Node> {
    if show_secrets {
        return Cow::Borrowed(&r.obj);
    }
    match crate::secret::redacted(r) {
        Some(n) => Cow::Owned(n),
        None => Cow::Borrowed(&r.obj),
    }
}

/// The effective values of a HelmRelease as printed: values that came
/// from a Secret redacted unless asked not to.
pub fn values_node(h: &crate::flux::helm::HelmReleaseReport, show_secrets: bool) -> Cow<'_, Node> {
    if show_secrets || h.secret_paths.is_empty() {
        return Cow::Borrowed(&h.values);
    }
    let mut n = h.values.clone();
    crate::secret::redact_paths(&mut n, &h.secret_paths);
    Cow::Owned(n)
}

/// The objects of one Kustomization as kustomize prints a stream.
pub fn ks_stream(k: &KsReport, show_secrets: bool) -> String {
    stream(k.objects.iter(), show_secrets)
}

/// Objects as a stream.
fn stream<'r>(objects: impl Iterator<Item = &'r Resource>, show_secrets: bool) -> String {
    let nodes: Vec<Cow<'_, Node>> = objects.map(|r| object_node(r, show_secrets)).collect();
    crate::yaml::stream_to_string(nodes.iter().map(|n| n.as_ref()))
}

/// The objects a HelmRelease renders, as a stream.
pub fn hr_stream(h: &HelmReleaseReport, show_secrets: bool) -> String {
    stream(h.objects.iter(), show_secrets)
}

/// The `# Source:` line of a HelmRelease's group.
pub fn hr_header(h: &HelmReleaseReport) -> String {
    format!(
        "# Source: HelmRelease {}/{} (chart {} {})\n",
        h.namespace,
        h.name,
        h.chart.chart,
        if h.chart.resolved_version.is_empty() {
            &h.chart.version
        } else {
            &h.chart.resolved_version
        }
    )
}

/// The YAML output of `flate build`: one group per Kustomization, each
/// headed by a `# Source:` comment, followed by one group per Flux
/// Operator ResourceSet it applies that was expanded and one per
/// HelmRelease it applies that rendered. Groups are printed in parallel.
pub fn yaml_stream(r: &Rendered, only: &[String], show_secrets: bool) -> String {
    let groups: Vec<String> = r
        .kustomizations
        .par_iter()
        .filter(|k| selected(k, only))
        .flat_map_iter(|k| {
            let mut out = Vec::new();
            // The objects of the ResourceSets it applies, each set's
            // apart.
            let sets = crate::flux::resourceset::expanded_in(k);
            let made_by =
                |o: &Resource| crate::flux::resourceset::owner(o).filter(|s| sets.contains(s));
            let own: Vec<&Resource> = k.objects.iter().filter(|o| made_by(o).is_none()).collect();
            if !own.is_empty() {
                out.push(format!(
                    "# Source: Kustomization {} ({})\n{}",
                    k.key(),
                    k.path,
                    stream(own.into_iter(), show_secrets)
                ));
            }
            for set in &sets {
                let made: Vec<&Resource> = k
                    .objects
                    .iter()
                    .filter(|o| made_by(o).as_ref() == Some(set))
                    .collect();
                if !made.is_empty() {
                    out.push(format!(
                        "# Source: ResourceSet {set} (Kustomization {})\n{}",
                        k.key(),
                        stream(made.into_iter(), show_secrets)
                    ));
                }
            }
            let key = k.key();
            for h in r
                .helmreleases
                .iter()
                .filter(|h| h.kustomization == key && !h.objects.is_empty())
            {
                out.push(format!("{}{}", hr_header(h), hr_stream(h, show_secrets)));
            }
            out
        })
        .collect();
    groups.join("---\n")
}

pub fn selected(k: &KsReport, only: &[String]) -> bool {
    only.is_empty() || only.iter().any(|n| *n == k.name || *n == k.key())
}

fn to_json_node(n: &Node) -> J {
    n.to_json()
}

/// A node as JSON, keys sorted (the order `Node::to_json` gives), written
/// straight to the serializer without building a `serde_json::Value`.
struct JsonNode<'a>(&'a Node);

impl Serialize for JsonNode<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Node::Null => s.serialize_unit(),
            Node::Bool(b) => s.serialize_bool(*b),
            Node::Int(i) => s.serialize_i64(*i),
            Node::UInt(u) => s.serialize_u64(*u),
            Node::Float(f) => {
                if f.fract() == 0.0 && f.abs() < 9.2e18 {
                    s.serialize_i64(*f as i64)
                } else if f.is_finite() {
                    s.serialize_f64(*f)
                } else {
                    s.serialize_unit()
                }
            }
            Node::Str(v) => s.serialize_str(v),
            Node::Seq(items) => s.collect_seq(items.iter().map(JsonNode)),
            Node::Map(m) => {
                let mut entries: Vec<(&String, &Node)> = m.iter().collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                let mut map = s.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    map.serialize_entry(k, &JsonNode(v))?;
                }
                map.end()
            }
        }
    }
}

/// A rendered object as JSON, Secret values redacted unless asked not to.
struct JsonObject<'a> {
    r: &'a Resource,
    show_secrets: bool,
}

impl Serialize for JsonObject<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        JsonNode(&object_node(self.r, self.show_secrets)).serialize(s)
    }
}

/// One Kustomization of the JSON contract (keys in the contract's order).
struct JsonKs<'a> {
    k: &'a KsReport,
    show_secrets: bool,
}

impl Serialize for JsonKs<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let k = self.k;
        let mut m = s.serialize_map(Some(9))?;
        m.serialize_entry("name", &k.name)?;
        m.serialize_entry("namespace", &k.namespace)?;
        m.serialize_entry("path", &k.path)?;
        m.serialize_entry("source", &k.source.to_string())?;
        m.serialize_entry("status", k.status.as_str())?;
        m.serialize_entry("message", &k.message)?;
        m.serialize_entry("dependsOn", &k.depends_on)?;
        m.serialize_entry("warnings", &k.warnings)?;
        let objects: Vec<JsonObject> = k
            .objects
            .iter()
            .map(|r| JsonObject {
                r,
                show_secrets: self.show_secrets,
            })
            .collect();
        m.serialize_entry("objects", &objects)?;
        m.end()
    }
}

fn helmrelease_json(h: &HelmReleaseReport, show_secrets: bool) -> J {
    json!({
        "name": h.name,
        "namespace": h.namespace,
        "kustomization": h.kustomization,
        "releaseName": h.release_name,
        "releaseNamespace": h.release_namespace,
        "chart": {
            "kind": h.chart.kind, "name": h.chart.name, "namespace": h.chart.namespace,
            "url": h.chart.url, "tag": h.chart.tag, "digest": h.chart.digest,
            "semver": h.chart.semver, "chart": h.chart.chart, "version": h.chart.version,
            "resolvedVersion": h.chart.resolved_version,
            "trackedVersion": h.chart.tracked_version, "location": h.chart.location,
            "pull": h.chart.pull,
        },
        "status": if h.ok { "ok" } else { "failed" },
        "renderStatus": h.status.as_str(),
        "message": h.message,
        "warnings": h.warnings,
        "values": to_json_node(&values_node(h, show_secrets)),
        "objects": h.objects.iter().map(|r| to_json_node(&object_node(r, show_secrets))).collect::<Vec<_>>(),
    })
}

/// Writes the JSON of `flate build ENV -o json` (the JSON contract of
/// docs/json.md), pretty-printed, with a final newline, to `w` as it
/// is produced (no copy of the whole text in memory).
pub fn write_json(
    w: &mut dyn Write,
    r: &Rendered,
    only: &[String],
    show_secrets: bool,
) -> std::io::Result<()> {
    struct Doc<'a> {
        r: &'a Rendered,
        only: &'a [String],
        show_secrets: bool,
    }
    impl Serialize for Doc<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let ks: Vec<JsonKs> = self
                .r
                .kustomizations
                .iter()
                .filter(|k| selected(k, self.only))
                .map(|k| JsonKs {
                    k,
                    show_secrets: self.show_secrets,
                })
                .collect();
            let kept: std::collections::HashSet<String> = self
                .r
                .kustomizations
                .iter()
                .filter(|k| selected(k, self.only))
                .map(|k| k.key())
                .collect();
            let hrs: Vec<J> = self
                .r
                .helmreleases
                .iter()
                .filter(|h| kept.contains(&h.kustomization))
                .map(|h| helmrelease_json(h, self.show_secrets))
                .collect();
            let mut m = s.serialize_map(Some(6))?;
            m.serialize_entry("apiVersion", API_VERSION)?;
            m.serialize_entry("kind", "Build")?;
            m.serialize_entry("cluster", &self.r.cluster)?;
            m.serialize_entry("root", &self.r.root)?;
            m.serialize_entry("kustomizations", &ks)?;
            m.serialize_entry("helmreleases", &hrs)?;
            m.end()
        }
    }
    serde_json::to_writer_pretty(
        &mut *w,
        &Doc {
            r,
            only,
            show_secrets,
        },
    )?;
    w.write_all(b"\n")
}

/// File name of a Kustomization's output in `--out-dir`.
pub fn file_name(k: &KsReport) -> String {
    format!("{}__{}.yaml", k.namespace, k.name)
}

/// File name of a HelmRelease's objects in `--out-dir` (a Kubernetes name
/// has no `_`, so it cannot be a Kustomization's).
pub fn hr_file_name(h: &HelmReleaseReport) -> String {
    format!("helmrelease__{}__{}.yaml", h.namespace, h.name)
}

/// Writes one file per rendered Kustomization into `dir`, replacing the
/// directory's contents as a whole (see `crate::outdir`). A Kustomization
/// that failed keeps its previous file.
pub fn write_out_dir(
    r: &Rendered,
    dir: &Path,
    only: &[String],
    show_secrets: bool,
) -> std::io::Result<usize> {
    let mut files: Vec<crate::outdir::OutFile> = r
        .kustomizations
        .par_iter()
        .filter(|k| selected(k, only) && k.status == Status::Rendered)
        .map(|k| crate::outdir::OutFile {
            name: file_name(k),
            contents: ks_stream(k, show_secrets).into_bytes(),
        })
        .collect();
    let kept: std::collections::HashSet<String> = r
        .kustomizations
        .iter()
        .filter(|k| selected(k, only) && k.status == Status::Rendered)
        .map(|k| k.key())
        .collect();
    files.extend(
        r.helmreleases
            .par_iter()
            .filter(|h| {
                kept.contains(&h.kustomization) && h.status == crate::flux::helm::HrStatus::Rendered
            })
            .map(|h| crate::outdir::OutFile {
                name: hr_file_name(h),
                contents: hr_stream(h, show_secrets).into_bytes(),
            })
            .collect::<Vec<_>>(),
    );
    crate::outdir::write_dir(dir, &files)?;
    Ok(files.len())
}
