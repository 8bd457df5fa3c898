//! `flate check [ENV...]`: schemas and lints, for pre-commit and CI.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use rayon::prelude::*;

use flate::check::{self, CheckOptions, Env, RULES, SchemaOptions, SchemaSet};
use flate::flux::Rendered;
use flate::fs::RealFs;

use super::common::{EnvArgs, SpecErrors, pick_all, render_env};
use super::diag::{self, Diag};

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Sarif,
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Environments (default: all of them: those of .flate.yaml, else the
    /// directories under kubernetes/clusters/, else every Flux sync).
    pub envs: Vec<String>,
    #[arg(short = 'o', long = "output", value_enum, default_value = "text")]
    pub output: Format,
    /// Turn a rule off (repeatable, or comma-separated); see --list-rules.
    #[arg(long = "disable", value_name = "ID", value_delimiter = ',')]
    pub disable: Vec<String>,
    /// More schemas: a directory (CRDs-catalog or kubeconform layout) or a
    /// kubeconform --schema-location template such as
    /// 'DIR/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json'
    /// (repeatable; searched in order, before the embedded schemas).
    #[arg(long = "schema-dir", value_name = "DIR")]
    pub schema_dir: Vec<String>,
    /// Check built-in kinds against Kubernetes X.Y (embedded: 1.33 to 1.36;
    /// default: the environment's kubernetesVersion in .flate.yaml, else its
    /// Talos spec's, else the newest).
    #[arg(long = "kubernetes-version", value_name = "X.Y")]
    pub kubernetes_version: Option<String>,
    /// Kinds without a schema are errors.
    #[arg(long)]
    pub strict: bool,
    /// Lints only: no schema validation.
    #[arg(long)]
    pub skip_schemas: bool,
    /// Print the rules (id, severity, summary) and exit.
    #[arg(long)]
    pub list_rules: bool,
    #[command(flatten)]
    pub env: EnvArgs,
}

/// Schema locations: the repository's `.flate/schemas` when present,
/// then `--schema-dir`s, then the `check.schemaDirs` of .flate.yaml
/// (relative to the repository root).
pub fn schema_locations(repo: &Path, dirs: &[String], from_config: &[String]) -> Vec<String> {
    let mut v = Vec::new();
    let own: PathBuf = repo.join(".flate/schemas");
    if own.is_dir() {
        v.push(own.display().to_string());
    }
    v.extend(dirs.iter().cloned());
    v.extend(from_config.iter().map(|d| {
        if Path::new(d).is_absolute() {
            d.clone()
        } else {
            repo.join(d).display().to_string()
        }
    }));
    v
}

pub fn run(a: CheckArgs) -> i32 {
    if a.list_rules {
        for r in RULES {
            println!("{:26} {:8} {}", r.id, r.severity.as_str(), r.summary);
        }
        return 0;
    }
    let (repo, targets) = match pick_all(&a.envs, &a.env) {
        Ok(p) => p,
        Err(c) => return c,
    };
    // --disable adds to the file's check.disable (validated when read).
    let mut disabled: BTreeSet<String> = repo.config.check.disable.iter().cloned().collect();
    for d in &a.disable {
        let d = d.trim();
        if d.is_empty() {
            continue;
        }
        if check::rule(d).is_none() {
            let ids: Vec<&str> = RULES.iter().map(|r| r.id).collect();
            let mut e = Diag::error(format!("--disable {d}: unknown rule"));
            if let Some(c) = diag::closest(d, ids.iter().copied()).first() {
                e = e.help(format!("did you mean '{c}'?"));
            }
            return e.help("`flate check --list-rules` lists the rules").fail();
        }
        disabled.insert(d.to_string());
    }
    let mut versions: Vec<&str> = targets
        .iter()
        .filter_map(|e| e.kubernetes_version.as_deref())
        .collect();
    versions.dedup();
    let sopts = SchemaOptions {
        locations: schema_locations(&repo.root, &a.schema_dir, &repo.config.check.schema_dirs),
        strict: a.strict,
        kubernetes_version: match versions.as_slice() {
            [v] => v.to_string(),
            _ => String::new(),
        },
    };
    if let Err(e) = check::schema::check_locations(&sopts) {
        return diag::error(e.to_string());
    }
    let forced = match a
        .kubernetes_version
        .as_deref()
        .map(check::schema::embedded_version)
    {
        None => None,
        Some(Ok(v)) => Some(v),
        Some(Err(e)) => return diag::error(format!("--kubernetes-version {e}")),
    };
    let t0 = std::time::Instant::now();
    if !a.skip_schemas {
        // Parse the embedded Kubernetes schemas while the environments render.
        let v = forced.unwrap_or(check::schema::KUBERNETES_VERSION);
        std::thread::spawn(move || {
            let _ = check::schema::kubernetes_version(v);
        });
    }
    // Charts render with the Kubernetes version checked against.
    let render_targets: Vec<_> = targets
        .iter()
        .map(|e| {
            let mut e = e.clone();
            if let Some(v) = &a.kubernetes_version {
                e.kubernetes_version = Some(v.clone());
            }
            e
        })
        .collect();
    let renders: Vec<Result<Rendered, i32>> = render_targets
        .par_iter()
        .map(|e| render_env(&repo, e, &a.env, SpecErrors::Ignore))
        .collect();
    let mut envs = Vec::new();
    // Files of `--source` directories are read too (where a finding
    // is, in an object that comes from one).
    let source_dirs = super::common::source_dirs(&a.env, &repo);
    let fs = flate::fs::Confined::new(&RealFs, &repo.root).also(source_dirs);
    for (e, r) in targets.iter().zip(renders) {
        match r {
            Ok(r) => {
                let mut env = Env::new(&e.name, &repo.root, &fs, r);
                // --kubernetes-version, else the environment's
                // kubernetesVersion in .flate.yaml, else the Talos spec's.
                let configured = match e.kubernetes_version.as_deref() {
                    Some(v) => match check::schema::embedded_version(v) {
                        Ok(v) => Some(v),
                        Err(m) => {
                            return diag::error(format!(
                                "{}: environment {}: kubernetesVersion {m}",
                                flate_config_name(),
                                e.name
                            ));
                        }
                    },
                    None => None,
                };
                if let Some(v) = forced.or(configured) {
                    env.kubernetes_version = v.to_string();
                }
                envs.push(env)
            }
            Err(c) => return c,
        }
    }
    if std::env::var_os("FLATE_TIMINGS").is_some() {
        eprintln!(
            "timing: render + walk {:.1} ms",
            t0.elapsed().as_secs_f64() * 1e3
        );
    }
    let schemas = SchemaSet::new(sopts);
    let opts = CheckOptions {
        disabled,
        strict: a.strict,
        no_schemas: a.skip_schemas,
    };
    let report = check::check(&envs, &schemas, &opts);
    let out = match a.output {
        Format::Text => check::report::text(&report),
        Format::Json => {
            let doc = flate::output::envelope("CheckReport", check::report::json(&report));
            serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
        }
        Format::Sarif => {
            serde_json::to_string_pretty(&check::report::sarif(&report)).unwrap_or_default() + "\n"
        }
    };
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    if stdout
        .write_all(out.as_bytes())
        .and_then(|_| stdout.flush())
        .is_err()
    {
        return 2;
    }
    if report.errors() > 0 { 1 } else { 0 }
}

fn flate_config_name() -> &'static str {
    super::config::FILE_NAME
}
