//! `flate build ENV` and `flate build hr ENV [NAME]`

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use flate::flux::{Rendered, Status};

use super::common::{EnvArgs, print, render};

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Yaml,
    Json,
}

#[derive(Args, Debug)]
pub struct BuildArgs {
    /// ENV, or `hr ENV [NAME]` for HelmReleases (ENV may be left out
    /// with --path: the entry directory's name).
    #[arg(required_unless_present = "path", num_args = 1..=3)]
    pub args: Vec<String>,
    #[arg(short = 'o', long = "output", value_enum, default_value = "yaml")]
    pub output: Format,
    /// Write one file per Kustomization into DIR (atomically).
    #[arg(long = "out-dir")]
    pub out_dir: Option<PathBuf>,
    /// Only these Kustomizations (name or namespace/name; repeatable).
    #[arg(long = "ks")]
    pub ks: Vec<String>,
    /// Print Secret values instead of redacting them.
    #[arg(long)]
    pub show_secrets: bool,
    #[command(flatten)]
    pub env: EnvArgs,
}

/// Prints warnings (identical ones once, with the Kustomizations they
/// concern) and failures; returns 1 when a Kustomization failed.
pub fn report_failures(r: &Rendered) -> i32 {
    let mut grouped: Vec<(String, Vec<String>)> = Vec::new();
    let mut at: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for k in &r.kustomizations {
        for w in &k.warnings {
            match at.get(w.as_str()) {
                Some(&i) => grouped[i].1.push(k.key()),
                None => {
                    at.insert(w, grouped.len());
                    grouped.push((w.clone(), vec![k.key()]));
                }
            }
        }
    }
    // A warning shared by a whole cluster names a few Kustomizations, not
    // all of them (`flate build -o json` has every warning per Kustomization).
    const SHOWN: usize = 10;
    for (w, ks) in grouped {
        if ks.len() == 1 {
            eprintln!("warning: Kustomization {}: {w}", ks[0]);
        } else if ks.len() <= SHOWN {
            eprintln!(
                "warning: {w} ({} Kustomizations: {})",
                ks.len(),
                ks.join(", ")
            );
        } else {
            eprintln!(
                "warning: {w} ({} Kustomizations: {}, and {} more)",
                ks.len(),
                ks[..SHOWN].join(", "),
                ks.len() - SHOWN
            );
        }
    }
    let mut code = 0;
    for k in &r.kustomizations {
        if k.status == Status::Failed {
            eprintln!(
                "error: Kustomization {} ({}) failed: {}",
                k.key(),
                k.origin,
                k.message
            );
            code = 1;
        }
    }
    code
}

pub fn run(mut a: BuildArgs) -> i32 {
    let from_path = a.args.is_empty();
    if from_path {
        // Only with --path (clap requires one or the other).
        let name = a
            .env
            .path
            .as_deref()
            .and_then(|p| std::path::Path::new(p).file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "cluster".into());
        a.args.push(name);
    }
    if a.args[0] == "hr" && !from_path {
        return build_hr(&a);
    }
    if a.args.len() > 1 {
        eprintln!("error: unexpected arguments after ENV: {:?}", &a.args[1..]);
        return 2;
    }
    let rendered = match render(&a.args[0], &a.env) {
        Ok(r) => r,
        Err(c) => return c,
    };
    let code = report_failures(&rendered);
    if let Some(dir) = &a.out_dir {
        match flate::output::write_out_dir(&rendered, dir, &a.ks, a.show_secrets) {
            Ok(n) => eprintln!("wrote {n} files to {}", dir.display()),
            Err(e) => {
                eprintln!("error: writing {}: {e}", dir.display());
                return 2;
            }
        }
        return code;
    }
    let p = match a.output {
        Format::Yaml => print(&flate::output::yaml_stream(
            &rendered,
            &a.ks,
            a.show_secrets,
        )),
        Format::Json => {
            let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
            match flate::output::write_json(&mut out, &rendered, &a.ks, a.show_secrets)
                .and_then(|_| out.flush())
            {
                Ok(()) => 0,
                Err(_) => 2,
            }
        }
    };
    if p != 0 { p } else { code }
}

fn build_hr(a: &BuildArgs) -> i32 {
    let Some(env) = a.args.get(1) else {
        eprintln!("error: usage: flate build hr ENV [NAME]");
        return 2;
    };
    let name = a.args.get(2);
    let rendered = match render(env, &a.env) {
        Ok(r) => r,
        Err(c) => return c,
    };
    let mut code = 0;
    let mut docs = Vec::new();
    let mut json = Vec::new();
    for h in rendered
        .helmreleases
        .iter()
        .filter(|h| name.is_none_or(|n| *n == h.name))
    {
        if !h.ok {
            eprintln!(
                "error: HelmRelease {}/{}: {}",
                h.namespace, h.name, h.message
            );
            code = 1;
        }
        let mut obj = h.object.obj.clone();
        if let Some(spec) = obj.get_mut("spec").and_then(|s| s.as_map_mut()) {
            spec.insert("values", h.values.clone());
        }
        let mut chart = flate::yaml::Map::new();
        for (k, v) in [
            ("kind", &h.chart.kind),
            ("name", &h.chart.name),
            ("namespace", &h.chart.namespace),
            ("url", &h.chart.url),
            ("tag", &h.chart.tag),
            ("digest", &h.chart.digest),
            ("chart", &h.chart.chart),
            ("version", &h.chart.version),
        ] {
            if !v.is_empty() {
                chart.insert(k, flate::yaml::Node::str(v.clone()));
            }
        }
        if let Some(md) = obj.get_mut("metadata").and_then(|m| m.as_map_mut()) {
            let mut ann = md
                .get("annotations")
                .cloned()
                .unwrap_or(flate::yaml::Node::map());
            if let Some(a) = ann.as_map_mut() {
                a.insert(
                    "flate.dev/kustomization",
                    flate::yaml::Node::str(h.kustomization.clone()),
                );
                a.insert(
                    "flate.dev/chart",
                    flate::yaml::Node::str(format!(
                        "{} {}{}{}",
                        h.chart.url,
                        if h.chart.tag.is_empty() {
                            h.chart.version.clone()
                        } else {
                            h.chart.tag.clone()
                        },
                        if h.chart.digest.is_empty() { "" } else { "@" },
                        h.chart.digest
                    )),
                );
            }
            md.insert("annotations", ann);
        }
        json.push(serde_json::json!({
            "name": h.name, "namespace": h.namespace, "kustomization": h.kustomization,
            "chart": flate::yaml::Node::Map(chart).to_json(),
            "status": if h.ok { "ok" } else { "failed" }, "message": h.message,
            "values": h.values.to_json(),
        }));
        docs.push(obj);
    }
    if let (Some(n), true) = (name, docs.is_empty()) {
        eprintln!("error: no HelmRelease named {n} in {env}");
        return 2;
    }
    let text = match a.output {
        Format::Yaml => flate::yaml::stream_to_string(docs.iter()),
        Format::Json => serde_json::to_string_pretty(&json).unwrap_or_default() + "\n",
    };
    let p = print(&text);
    if p != 0 { p } else { code }
}
