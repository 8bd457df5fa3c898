//! `flate check [ENV...]`: schemas and lints, for pre-commit and CI.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use rayon::prelude::*;

use flate::check::{self, CheckOptions, Env, RULES, SchemaOptions, SchemaSet};
use flate::flux::Rendered;
use flate::fs::RealFs;

use super::common::{EnvArgs, SpecErrors, render_with, repo_root};

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Sarif,
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Environments (default: every directory under kubernetes/clusters/).
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
    /// default: the environment's Talos spec kubernetesVersion, else the
    /// newest).
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

/// The environments of a repository: the directories under
/// kubernetes/clusters/.
pub fn all_envs(repo: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(repo.join("kubernetes/clusters"))
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter(|e| e.path().is_dir())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// ENV arguments, defaulted; an error message when there are none.
pub fn env_names(given: &[String], a: &EnvArgs, repo: &Path) -> Result<Vec<String>, String> {
    if !given.is_empty() {
        return Ok(given.to_vec());
    }
    if let Some(p) = &a.path {
        let name = Path::new(p)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "cluster".into());
        return Ok(vec![name]);
    }
    let v = all_envs(repo);
    if v.is_empty() {
        return Err(format!(
            "no environments: {} has no directories (name ENV, or use --repo / --path)",
            repo.join("kubernetes/clusters").display()
        ));
    }
    Ok(v)
}

/// Schema locations: the repository's `.flate/schemas` when present,
/// then `--schema-dir`s.
pub fn schema_locations(repo: &Path, dirs: &[String]) -> Vec<String> {
    let mut v = Vec::new();
    let own: PathBuf = repo.join(".flate/schemas");
    if own.is_dir() {
        v.push(own.display().to_string());
    }
    v.extend(dirs.iter().cloned());
    v
}

pub fn run(a: CheckArgs) -> i32 {
    if a.list_rules {
        for r in RULES {
            println!("{:26} {:8} {}", r.id, r.severity.as_str(), r.summary);
        }
        return 0;
    }
    let mut disabled = BTreeSet::new();
    for d in &a.disable {
        let d = d.trim();
        if d.is_empty() {
            continue;
        }
        if check::rule(d).is_none() {
            eprintln!(
                "error: --disable {d}: unknown rule (rules: {})",
                RULES.iter().map(|r| r.id).collect::<Vec<_>>().join(", ")
            );
            return 2;
        }
        disabled.insert(d.to_string());
    }
    let repo = repo_root(&a.env.repo);
    let names = match env_names(&a.envs, &a.env, &repo) {
        Ok(n) => n,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let sopts = SchemaOptions {
        locations: schema_locations(&repo, &a.schema_dir),
        strict: a.strict,
        kubernetes_version: String::new(),
    };
    if let Err(e) = check::schema::check_locations(&sopts) {
        eprintln!("error: {e}");
        return 2;
    }
    let forced = match a
        .kubernetes_version
        .as_deref()
        .map(check::schema::embedded_version)
    {
        None => None,
        Some(Ok(v)) => Some(v),
        Some(Err(e)) => {
            eprintln!("error: --kubernetes-version {e}");
            return 2;
        }
    };
    let t0 = std::time::Instant::now();
    if !a.skip_schemas {
        // Parse the embedded Kubernetes schemas while the environments render.
        let v = forced.unwrap_or(check::schema::KUBERNETES_VERSION);
        std::thread::spawn(move || {
            let _ = check::schema::kubernetes_version(v);
        });
    }
    let renders: Vec<Result<Rendered, i32>> = names
        .par_iter()
        .map(|n| render_with(n, &a.env, SpecErrors::Ignore))
        .collect();
    let mut envs = Vec::new();
    for (n, r) in names.iter().zip(renders) {
        match r {
            Ok(r) => {
                let mut env = Env::new(n, &repo, &RealFs, r);
                if let Some(v) = forced {
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
            serde_json::to_string_pretty(&check::report::json(&report)).unwrap_or_default() + "\n"
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
