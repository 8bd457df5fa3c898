//! `flate build [ks|hr|all] [ENV] [NAME]`: the objects Flux would apply,
//! or (`hr`) HelmReleases with their effective values and chart.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use flate::flux::helm::HrStatus;
use flate::flux::{Rendered, Status};

use super::common::{EnvArgs, SpecErrors, pick, print, render_env};
use super::diag::{self, Diag};
use super::select::{self, Kind, SelectArgs, Selection};

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Yaml,
    Json,
}

#[derive(Args, Debug)]
pub struct BuildArgs {
    /// [TYPE] [ENV] [NAME]: TYPE is ks (the default), hr or all; ENV may be
    /// left out with --path or when the repository has one environment;
    /// NAME is `name` or `namespace/name`.
    #[arg(num_args = 0..=3, value_name = "ARGS")]
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
    pub select: SelectArgs,
    #[command(flatten)]
    pub env: EnvArgs,
}

/// Prints warnings (identical ones once, with the Kustomizations or
/// HelmReleases they concern) and failures; returns 1 when a Kustomization
/// failed.
pub fn report_failures(r: &Rendered) -> i32 {
    // SOPS-encrypted objects in several Kustomizations: one warning for
    // all (a repository encrypts a Secret per app; a line per app says
    // nothing more), the JSON output keeps each Kustomization's own.
    let sops: Vec<&flate::flux::KsReport> = r
        .kustomizations
        .iter()
        .filter(|k| !k.encrypted.is_empty())
        .collect();
    let summarize_sops = sops.len() > 1;
    let warnings: Vec<(String, Vec<String>)> = r
        .kustomizations
        .iter()
        .map(|k| {
            let own = flate::flux::render::encrypted_warning(&k.encrypted);
            let ws = k
                .warnings
                .iter()
                .filter(|w| !(summarize_sops && !k.encrypted.is_empty() && **w == own))
                .cloned()
                .collect();
            (k.key(), ws)
        })
        .collect();
    report_grouped(
        warnings.iter().map(|(k, ws)| (k.clone(), &ws[..])),
        "Kustomization",
    );
    if summarize_sops {
        let objects: usize = sops.iter().map(|k| k.encrypted.len()).sum();
        let named: Vec<String> = sops
            .iter()
            .map(|k| format!("{} ({})", k.key(), k.encrypted.len()))
            .collect();
        diag::warning(format!(
            "SOPS-encrypted, not decrypted offline: {} in {} (values shown as `{}`; `-o json` names them per Kustomization): {}",
            diag::plural(objects, "object"),
            diag::plural(sops.len(), "Kustomization"),
            flate::flux::sops::PLACEHOLDER,
            flate::output::first_few(&named, 10)
        ));
    }
    report_grouped(
        r.helmreleases
            .iter()
            .map(|h| (format!("{}/{}", h.namespace, h.name), &h.warnings[..])),
        "HelmRelease",
    );
    let mut code = 0;
    let mut skipped = 0;
    // Skipped for another reason than a chart not cached: what they need
    // is not rendered offline (a source, a valuesFrom object).
    let mut unavailable = Vec::new();
    for h in &r.helmreleases {
        match h.status {
            HrStatus::Failed => {
                hr_failure(h).emit();
                code = 1;
            }
            HrStatus::Skipped if h.chart.unavailable.is_some() => unavailable.push(h),
            HrStatus::Skipped => skipped += 1,
            HrStatus::Rendered => {}
        }
    }
    // Said without `-v` too, in a line each: what a build leaves out is
    // not to be found out from its absence.
    let ks_skipped: Vec<&flate::flux::KsReport> = r
        .kustomizations
        .iter()
        .filter(|k| k.status == Status::Skipped)
        .collect();
    if !ks_skipped.is_empty() {
        if diag::verbose() {
            infos(
                ks_skipped
                    .iter()
                    .map(|k| format!("Kustomization {} skipped: {}", k.key(), k.message)),
                |n| {
                    format!(
                        "and {} more skipped (`flate get ks` lists them)",
                        diag::plural(n, "Kustomization")
                    )
                },
            );
        } else {
            diag::note(format!(
                "{} skipped, not rendered offline (`-v` says why)",
                diag::plural(ks_skipped.len(), "Kustomization")
            ));
        }
    }
    if !diag::verbose() && skipped + unavailable.len() > 0 {
        let mut why = Vec::new();
        if skipped > 0 {
            why.push(format!(
                "{} whose chart is not cached (`flate get charts` lists them and how to fetch them)",
                skipped
            ));
        }
        if !unavailable.is_empty() {
            why.push(format!(
                "{} whose source or values are not rendered offline (`-v` lists them)",
                unavailable.len()
            ));
        }
        diag::note(format!(
            "{} not rendered: {}",
            diag::plural(skipped + unavailable.len(), "HelmRelease"),
            why.join("; ")
        ));
    }
    if skipped > 0 {
        diag::info(format!(
            "{} not rendered (`flate get charts` lists the charts and how to fetch them)",
            diag::plural(skipped, "HelmRelease")
        ));
    }
    infos(
        unavailable.iter().map(|h| {
            format!(
                "HelmRelease {}/{} not rendered: {}",
                h.namespace, h.name, h.message
            )
        }),
        |n| {
            format!(
                "and {} more not rendered for what is not rendered offline (`-o json` gives each reason)",
                diag::plural(n, "HelmRelease")
            )
        },
    );
    let sets: Vec<_> = r.not_expanded_offline().collect();
    if !sets.is_empty() {
        if diag::verbose() {
            infos(
                sets.iter().map(|(_, u)| {
                    format!("ResourceSet {} not expanded: {}", u.key, u.reason.message())
                }),
                |n| format!("and {} more not expanded", diag::plural(n, "ResourceSet")),
            );
        } else {
            let it = if sets.len() == 1 { "it" } else { "them" };
            diag::note(format!(
                "{} not expanded: the objects the Flux Operator makes from {it} are not in this output (`-v` lists {it})",
                diag::plural(sets.len(), "ResourceSet"),
            ));
        }
    }
    if report_failed_kustomizations(r) {
        code = 1;
    }
    code
}

/// Prints each line of `lines` as an `info:` (with `-v`), up to ten, then
/// `more(n)` for the `n` left out.
fn infos(lines: impl ExactSizeIterator<Item = String>, more: impl Fn(usize) -> String) {
    const SHOWN: usize = 10;
    let n = lines.len();
    for l in lines.take(SHOWN) {
        diag::info(l);
    }
    if n > SHOWN {
        diag::info(more(n - SHOWN));
    }
}

/// Prints the warnings of `items` (each an object's key and its warnings),
/// an identical warning once with the objects it concerns: a warning
/// shared by a whole cluster (a chart's remote schema, for every release of
/// it) names a few of them, not all (`flate build -o json` has every
/// warning per object).
fn report_grouped<'a>(items: impl Iterator<Item = (String, &'a [String])>, noun: &str) {
    let mut grouped: Vec<(&str, Vec<String>)> = Vec::new();
    let mut at: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (key, warnings) in items {
        for w in warnings {
            match at.get(w.as_str()) {
                // (The same warning twice from one item, as for two objects
                // whose names both substituted to nothing, is one.)
                Some(&i) if grouped[i].1.contains(&key) => {}
                Some(&i) => grouped[i].1.push(key.clone()),
                None => {
                    at.insert(w, grouped.len());
                    grouped.push((w, vec![key.clone()]));
                }
            }
        }
    }
    for (w, keys) in grouped {
        if keys.len() == 1 {
            diag::warning(format!("{noun} {}: {w}", keys[0]));
        } else {
            diag::warning(format!(
                "{w} ({}: {})",
                diag::plural(keys.len(), noun),
                flate::output::first_few(&keys, 10)
            ));
        }
    }
}

/// Reports every Kustomization that failed to render, at its definition;
/// whether there was one.
pub fn report_failed_kustomizations(r: &flate::flux::Rendered) -> bool {
    let mut any = false;
    for k in &r.kustomizations {
        if k.status == Status::Failed {
            let mut d = Diag::error(format!("Kustomization {} failed: {}", k.key(), k.message));
            if let Some(f) = &k.origin.file {
                d = d.at(f.to_path_buf(), k.origin.line);
            } else {
                d = d.note(format!("defined in {}", k.origin));
            }
            d.emit();
            any = true;
        }
    }
    any
}

/// The error for a HelmRelease that failed, at its definition.
pub fn hr_failure(h: &flate::flux::helm::HelmReleaseReport) -> Diag {
    let mut d = Diag::error(format!(
        "HelmRelease {}/{} failed: {}",
        h.namespace, h.name, h.message
    ));
    if let Some(f) = &h.object.origin.file {
        d = d.at(f.to_path_buf(), h.object.origin.line);
    }
    d
}

pub fn run(a: BuildArgs) -> i32 {
    let (w, sel) = match select::rendering_words(&a.args, false, &a.env, &a.select) {
        Ok(p) => p,
        Err(d) => return d.fail(),
    };
    let (repo, env) = match pick(w.envs.first().map(String::as_str), &a.env) {
        Ok(p) => p,
        Err(c) => return c,
    };
    let mut rendered = match render_env(&repo, &env, &a.env, SpecErrors::Fatal) {
        Ok(r) => r,
        Err(c) => return c,
    };
    let kind = w.kind.unwrap_or(Kind::Ks);
    if let Err(d) = select::filter(&mut rendered, kind, &sel) {
        return d.fail();
    }
    if kind == Kind::Hr {
        return build_hr(&a, &rendered);
    }
    // --ks: each name must match a Kustomization.
    for n in &a.ks {
        if !rendered
            .kustomizations
            .iter()
            .any(|k| *n == k.name || *n == k.key())
        {
            let names: Vec<String> = rendered.kustomizations.iter().map(|k| k.key()).collect();
            let by_name = Selection {
                name: Some(n.clone()),
                ..Selection::default()
            };
            return by_name
                .nothing_matched("Kustomization", &env.name, &names)
                .note(format!("asked for with --ks {n}"))
                .fail();
        }
    }
    let code = report_failures(&rendered);
    if let Some(dir) = &a.out_dir {
        match flate::output::write_out_dir(&rendered, dir, &a.ks, a.show_secrets) {
            Ok(n) => {
                if !diag::quiet() {
                    eprintln!("wrote {} to {}", diag::plural(n, "file"), dir.display());
                }
            }
            Err(e) => {
                return diag::error(format!("writing {}: {e}", dir.display()));
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

fn build_hr(a: &BuildArgs, rendered: &Rendered) -> i32 {
    let mut code = 0;
    let mut groups = Vec::new();
    let mut json = Vec::new();
    for h in &rendered.helmreleases {
        match h.status {
            HrStatus::Failed => {
                hr_failure(h).emit();
                code = 1;
            }
            HrStatus::Skipped => {
                diag::info(format!(
                    "HelmRelease {}/{} not rendered: {}",
                    h.namespace, h.name, h.message
                ));
            }
            HrStatus::Rendered => {}
        }
        let mut obj = flate::output::object_node(&h.object, a.show_secrets).into_owned();
        let values = flate::output::values_node(h, a.show_secrets);
        if let Some(spec) = obj.get_mut("spec").and_then(|s| s.as_map_mut()) {
            spec.insert("values", values.clone().into_owned());
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
            ("resolvedVersion", &h.chart.resolved_version),
            ("trackedVersion", &h.chart.tracked_version),
            ("location", &h.chart.location),
            ("pull", &h.chart.pull),
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
                    flate::yaml::Node::str(if h.chart.url.is_empty() {
                        // A chart directory of a source.
                        format!(
                            "{}/{}/{} {}",
                            h.chart.kind, h.chart.namespace, h.chart.name, h.chart.chart
                        )
                    } else {
                        format!(
                            "{} {}{}{}",
                            h.chart.url,
                            if h.chart.tag.is_empty() {
                                h.chart.version.clone()
                            } else {
                                h.chart.tag.clone()
                            },
                            if h.chart.digest.is_empty() { "" } else { "@" },
                            h.chart.digest
                        )
                    }),
                );
                a.insert(
                    "flate.dev/release",
                    flate::yaml::Node::str(format!(
                        "{}/{} {}",
                        h.release_namespace,
                        h.release_name,
                        h.status.as_str()
                    )),
                );
            }
            md.insert("annotations", ann);
        }
        json.push(serde_json::json!({
            "name": h.name, "namespace": h.namespace, "kustomization": h.kustomization,
            "releaseName": h.release_name, "releaseNamespace": h.release_namespace,
            "chart": flate::yaml::Node::Map(chart).to_json(),
            "status": if h.ok { "ok" } else { "failed" },
            "renderStatus": h.status.as_str(), "message": h.message,
            "warnings": h.warnings,
            "values": values.to_json(),
            "objects": h.objects.iter()
                .map(|o| flate::output::object_node(o, a.show_secrets).to_json())
                .collect::<Vec<_>>(),
        }));
        // The HelmRelease with its effective values, then what it renders.
        let mut group = flate::output::hr_header(h);
        group.push_str(&flate::yaml::stream_to_string(std::iter::once(&obj)));
        if !h.objects.is_empty() {
            group.push_str("---\n");
            group.push_str(&flate::output::hr_stream(h, a.show_secrets));
        }
        groups.push(group);
    }
    let text = match a.output {
        Format::Yaml => groups.join("---\n"),
        Format::Json => {
            let doc = flate::output::envelope(
                "HelmReleaseList",
                serde_json::json!({"environment": rendered.cluster, "items": json}),
            );
            serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
        }
    };
    let p = print(&text);
    if p != 0 { p } else { code }
}
