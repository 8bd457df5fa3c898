//! `flate get ks|hr|sources|images ENV [-o table|json]`

use clap::{Args, ValueEnum};
use serde_json::json;

use flate::flux::Status;

use super::common::{EnvArgs, render};

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum What {
    Ks,
    Hr,
    Sources,
    /// Every container image with the workloads that run it.
    Images,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Table,
    Json,
}

#[derive(Args, Debug)]
pub struct GetArgs {
    #[arg(value_enum)]
    pub what: What,
    pub env: String,
    #[arg(short = 'o', long = "output", value_enum, default_value = "table")]
    pub output: Format,
    #[command(flatten)]
    pub env_args: EnvArgs,
}

fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            widths[i] = widths[i].max(c.chars().count());
        }
    }
    let line = |cells: Vec<String>| {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate() {
            if i + 1 == cells.len() {
                s.push_str(c);
            } else {
                s.push_str(&format!("{:w$}  ", c, w = widths[i]));
            }
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = line(header.iter().map(|h| h.to_string()).collect());
    for r in rows {
        out.push_str(&line(r.clone()));
    }
    out
}

pub fn run(a: GetArgs) -> i32 {
    let r = match render(&a.env, &a.env_args) {
        Ok(r) => r,
        Err(c) => return c,
    };
    let (header, rows, js): (Vec<&str>, Vec<Vec<String>>, serde_json::Value) = match a.what {
        What::Ks => {
            let rows = r
                .kustomizations
                .iter()
                .map(|k| {
                    vec![
                        k.namespace.clone(),
                        k.name.clone(),
                        k.path.clone(),
                        k.status.as_str().to_string(),
                        k.objects.len().to_string(),
                        k.depends_on.join(","),
                        k.message.clone(),
                    ]
                })
                .collect();
            let js = json!(r.kustomizations.iter().map(|k| json!({
                "namespace": k.namespace, "name": k.name, "path": k.path, "source": k.source.to_string(),
                "status": k.status.as_str(), "objects": k.objects.len(), "dependsOn": k.depends_on, "message": k.message,
            })).collect::<Vec<_>>());
            (
                vec![
                    "NAMESPACE",
                    "NAME",
                    "PATH",
                    "STATUS",
                    "OBJECTS",
                    "DEPENDS ON",
                    "MESSAGE",
                ],
                rows,
                js,
            )
        }
        What::Hr => {
            let chart = |h: &flate::flux::helm::HelmReleaseReport| {
                let v = if h.chart.tag.is_empty() {
                    h.chart.version.clone()
                } else {
                    h.chart.tag.clone()
                };
                format!(
                    "{} {}",
                    if h.chart.url.is_empty() {
                        &h.chart.chart
                    } else {
                        &h.chart.url
                    },
                    v
                )
            };
            let rows = r
                .helmreleases
                .iter()
                .map(|h| {
                    vec![
                        h.namespace.clone(),
                        h.name.clone(),
                        chart(h),
                        if h.chart.digest.is_empty() {
                            "-".into()
                        } else {
                            h.chart.digest.clone()
                        },
                        if h.ok { "ok".into() } else { "failed".into() },
                        h.kustomization.clone(),
                    ]
                })
                .collect();
            let js = json!(r.helmreleases.iter().map(|h| json!({
                "namespace": h.namespace, "name": h.name, "kustomization": h.kustomization,
                "chart": {"kind": h.chart.kind, "name": h.chart.name, "url": h.chart.url, "tag": h.chart.tag,
                          "digest": h.chart.digest, "chart": h.chart.chart, "version": h.chart.version},
                "status": if h.ok { "ok" } else { "failed" }, "message": h.message,
            })).collect::<Vec<_>>());
            (
                vec![
                    "NAMESPACE",
                    "NAME",
                    "CHART",
                    "DIGEST",
                    "STATUS",
                    "KUSTOMIZATION",
                ],
                rows,
                js,
            )
        }
        What::Images => {
            let inv = flate::diff::images::inventory(&flate::diff::images::uses(&r));
            let dash = |s: &str| {
                if s.is_empty() {
                    "-".to_string()
                } else {
                    s.to_string()
                }
            };
            let rows = inv
                .iter()
                .map(|i| {
                    vec![
                        i.name.clone(),
                        dash(&i.tag),
                        dash(&i.digest),
                        i.workloads.join(", "),
                    ]
                })
                .collect();
            let js =
                json!(inv.iter().map(|i| json!({
                "image": i.name, "tag": i.tag, "digest": i.digest, "workloads": i.workloads,
            })).collect::<Vec<_>>());
            (vec!["IMAGE", "TAG", "DIGEST", "WORKLOADS"], rows, js)
        }
        What::Sources => {
            let mut rows = Vec::new();
            let mut js = Vec::new();
            for (k, o) in r.all_objects() {
                let g = o.gvk();
                if g.group != flate::flux::model::SOURCE_GROUP {
                    continue;
                }
                let s = |p: &[&str]| o.obj.get_str(p).unwrap_or("").to_string();
                let rf = [
                    s(&["spec", "ref", "tag"]),
                    s(&["spec", "ref", "semver"]),
                    s(&["spec", "ref", "branch"]),
                ]
                .into_iter()
                .find(|x| !x.is_empty())
                .unwrap_or_default();
                rows.push(vec![
                    o.namespace().to_string(),
                    g.kind.clone(),
                    o.name().to_string(),
                    s(&["spec", "url"]),
                    rf.clone(),
                    s(&["spec", "ref", "digest"]),
                    k.key(),
                ]);
                js.push(json!({"namespace": o.namespace(), "kind": g.kind, "name": o.name(), "url": s(&["spec", "url"]),
                    "ref": rf, "digest": s(&["spec", "ref", "digest"]), "kustomization": k.key()}));
            }
            (
                vec![
                    "NAMESPACE",
                    "KIND",
                    "NAME",
                    "URL",
                    "REF",
                    "DIGEST",
                    "KUSTOMIZATION",
                ],
                rows,
                json!(js),
            )
        }
    };
    match a.output {
        Format::Table => print!("{}", table(&header, &rows)),
        Format::Json => println!("{}", serde_json::to_string_pretty(&js).unwrap_or_default()),
    }
    if r.kustomizations.iter().any(|k| k.status == Status::Failed) {
        1
    } else {
        0
    }
}
