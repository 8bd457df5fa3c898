//! Printing a rendered cluster: the YAML stream, the JSON contract, one file
//! per Kustomization, and Secret redaction.

use std::io::Write;
use std::path::Path;

use rayon::prelude::*;
use serde_json::{Value as J, json};

use crate::flux::{KsReport, Rendered, Status};
use crate::resource::Resource;
use crate::yaml::Node;

/// What replaces every Secret value in human-facing output.
pub const REDACTED: &str = "**redacted**";

/// A copy of `r` with Secret values replaced by [`REDACTED`].
pub fn redact(r: &Resource) -> Node {
    let mut n = r.obj.clone();
    if r.kind() == "Secret" && r.gvk().group.is_empty() {
        for field in ["data", "stringData"] {
            if let Some(Node::Map(m)) = n.get_mut(field) {
                for (_, v) in m.iter_mut() {
                    *v = Node::str(REDACTED);
                }
            }
        }
    }
    n
}

fn object_node(r: &Resource, show_secrets: bool) -> Node {
    if show_secrets {
        r.obj.clone()
    } else {
        redact(r)
    }
}

/// The objects of one Kustomization as kustomize prints a stream.
pub fn ks_stream(k: &KsReport, show_secrets: bool) -> String {
    let nodes: Vec<Node> = k
        .objects
        .iter()
        .map(|r| object_node(r, show_secrets))
        .collect();
    crate::yaml::stream_to_string(nodes.iter())
}

/// The YAML output of `flate build`: one group per Kustomization, each
/// headed by a `# Source:` comment.
pub fn yaml_stream(r: &Rendered, only: &[String], show_secrets: bool) -> String {
    let mut out = String::new();
    for k in r.kustomizations.iter().filter(|k| selected(k, only)) {
        if k.objects.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push_str("---\n");
        }
        out.push_str(&format!(
            "# Source: Kustomization {} ({})\n",
            k.key(),
            k.path
        ));
        out.push_str(&ks_stream(k, show_secrets));
    }
    out
}

pub fn selected(k: &KsReport, only: &[String]) -> bool {
    only.is_empty() || only.iter().any(|n| *n == k.name || *n == k.key())
}

fn to_json_node(n: &Node) -> J {
    n.to_json()
}

/// `flate build ENV -o json` (the JSON contract of ARCHITECTURE.md).
pub fn json(r: &Rendered, only: &[String], show_secrets: bool) -> J {
    let chosen: Vec<&KsReport> = r
        .kustomizations
        .iter()
        .filter(|k| selected(k, only))
        .collect();
    let ks: Vec<J> = chosen
        .par_iter()
        .map(|k| {
            json!({
                "name": k.name,
                "namespace": k.namespace,
                "path": k.path,
                "source": k.source.to_string(),
                "status": k.status.as_str(),
                "message": k.message,
                "dependsOn": k.depends_on,
                "warnings": k.warnings,
                "objects": k.objects.iter().map(|o| to_json_node(&object_node(o, show_secrets))).collect::<Vec<_>>(),
            })
        })
        .collect();
    let hrs: Vec<J> = r
        .helmreleases
        .iter()
        .map(|h| {
            json!({
                "name": h.name,
                "namespace": h.namespace,
                "kustomization": h.kustomization,
                "chart": {
                    "kind": h.chart.kind, "name": h.chart.name, "namespace": h.chart.namespace,
                    "url": h.chart.url, "tag": h.chart.tag, "digest": h.chart.digest,
                    "semver": h.chart.semver, "chart": h.chart.chart, "version": h.chart.version,
                },
                "status": if h.ok { "ok" } else { "failed" },
                "message": h.message,
                "values": to_json_node(&h.values),
            })
        })
        .collect();
    json!({
        "cluster": r.cluster,
        "root": r.root,
        "kustomizations": ks,
        "helmreleases": hrs,
    })
}

/// File name of a Kustomization's output in `--out-dir`.
pub fn file_name(k: &KsReport) -> String {
    format!("{}__{}.yaml", k.namespace, k.name)
}

/// Writes one file per rendered Kustomization into `dir`, each through a
/// temporary file and a rename. A Kustomization that failed keeps its
/// previous file.
pub fn write_out_dir(
    r: &Rendered,
    dir: &Path,
    only: &[String],
    show_secrets: bool,
) -> std::io::Result<usize> {
    std::fs::create_dir_all(dir)?;
    let mut written = 0;
    for k in r
        .kustomizations
        .iter()
        .filter(|k| selected(k, only) && k.status == Status::Rendered)
    {
        let target = dir.join(file_name(k));
        let tmp = dir.join(format!(".{}.tmp-{}", file_name(k), std::process::id()));
        let result = (|| {
            let mut f = std::fs::File::create(&tmp)?;
            f.write_all(ks_stream(k, show_secrets).as_bytes())?;
            f.sync_all()?;
            std::fs::rename(&tmp, &target)
        })();
        if let Err(e) = result {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
        written += 1;
    }
    Ok(written)
}
