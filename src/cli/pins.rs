//! `flate pins [ENV...] [--base REV] [-o table|json]`: every chart source
//! and container image with its tag and digest, per environment; with
//! `--base`, fails when a tag moved without its digest, when an override
//! lost its digest, or when an environment's pin is not what Flux
//! resolves (a tag next to a base digest). For Renovate's
//! postUpgradeTasks and CI.

use std::collections::BTreeMap;
use std::path::Path;

use clap::{Args, ValueEnum};
use serde_json::json;

use flate::check::Env;
use flate::check::lints::Ctx;
use flate::check::pins::{self, LocatedRefPatch, Pin, PinFailure};
use flate::flux::Rendered;
use flate::fs::{FileSystem, RealFs};

use super::common::{EnvArgs, SpecErrors, pick_all, render_env};
use super::config::Environment;
use super::diag::{self, Diag};

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Table,
    Json,
}

#[derive(Args, Debug)]
pub struct PinsArgs {
    /// Environments (default: all of them, as for `flate check`).
    pub envs: Vec<String>,
    /// Compare with this git revision (branch, tag, commit): fail when a
    /// tag changed but its digest did not, or a digest disappeared.
    #[arg(long, value_name = "REV")]
    pub base: Option<String>,
    #[arg(short = 'o', long = "output", value_enum, default_value = "table")]
    pub output: Format,
    #[command(flatten)]
    pub env: EnvArgs,
}

/// Renders `env` from `fs` (a git revision), with the same options as the
/// working tree.
fn render_fs(
    fs: &dyn FileSystem,
    repo: &Path,
    env: &Environment,
    a: &EnvArgs,
) -> Result<Rendered, String> {
    let opts = super::common::render_options(fs, repo, env, a, SpecErrors::Warn)?;
    flate::flux::render(fs, repo, &env.path, &env.name, &opts).map_err(|e| e.to_string())
}

struct Side {
    pins: Vec<Pin>,
    overrides: BTreeMap<(String, String), LocatedRefPatch>,
    lost: Vec<PinFailure>,
}

fn side(envs: &[Env<'_>]) -> Side {
    let mut s = Side {
        pins: Vec::new(),
        overrides: BTreeMap::new(),
        lost: Vec::new(),
    };
    for e in envs {
        let ctx = Ctx::new(e);
        s.pins.extend(pins::pins(&ctx));
        s.overrides.extend(pins::overrides(&ctx));
        s.lost.extend(pins::lost_failures(&ctx));
    }
    s
}

fn short(d: &str) -> String {
    match d.split_once(':') {
        Some((alg, hex)) if hex.len() > 12 => format!("{alg}:{}", &hex[..12]),
        _ if d.is_empty() => "-".into(),
        _ => d.to_string(),
    }
}

fn table(pins: &[Pin]) -> String {
    use super::table::col;
    let cols = [
        col("ENV"),
        col("KIND"),
        col("NAME"),
        col("SOURCE"),
        col("TAG"),
        col("DIGEST"),
    ];
    let rows: Vec<Vec<String>> = pins
        .iter()
        .map(|p| {
            vec![
                p.env.clone(),
                p.kind.clone(),
                p.name.clone(),
                p.source.clone(),
                if p.tag.is_empty() {
                    "-".into()
                } else {
                    p.tag.clone()
                },
                short(&p.digest),
            ]
        })
        .collect();
    super::table::render(&cols, &rows, false, super::table::width())
}

pub fn run(a: PinsArgs) -> i32 {
    let (repo_cfg, targets) = match pick_all(&a.envs, &a.env) {
        Ok(p) => p,
        Err(c) => return c,
    };
    let repo = repo_cfg.root.clone();
    let mut head_envs = Vec::new();
    // (Files of `--source` directories are read too, as `flate check` reads them.)
    let source_dirs = super::common::source_dirs(&a.env, &repo_cfg);
    let fs = flate::fs::Confined::new(&RealFs, &repo).also(source_dirs);
    for t in &targets {
        // A broken Talos spec does not stop a pin report (Renovate's
        // post-upgrade check); `flate check` reports it.
        match render_env(&repo_cfg, t, &a.env, SpecErrors::Warn) {
            Ok(r) => head_envs.push(Env::new(&t.name, &repo, &fs, r)),
            Err(c) => return c,
        }
    }
    let head = side(&head_envs);
    let mut failures = head.lost.clone();
    // A Kustomization that does not render hides its pins.
    for e in &head_envs {
        for k in &e.rendered.kustomizations {
            if k.status == flate::flux::Status::Failed {
                failures.push(PinFailure {
                    env: e.name.clone(),
                    kind: "Kustomization".into(),
                    name: k.key(),
                    message: format!("does not render, so its pins are unknown: {}", k.message),
                    file: k.origin.file.as_ref().map(|f| e.rel(f)),
                    line: k.origin.line,
                });
            }
        }
    }
    // A kustomization patch that selects nothing loses the pin it sets.
    for e in &head_envs {
        for f in flate::check::lints::kustomize_patch_unmatched::lost_pins(e) {
            failures.push(PinFailure {
                env: e.name.clone(),
                kind: "Kustomization".into(),
                name: f.kustomization.clone().unwrap_or_default(),
                message: f.message,
                file: f.file,
                line: f.line,
            });
        }
    }
    let mut notes = Vec::new();
    let git;
    if let Some(rev) = &a.base {
        git = match flate::git::GitTreeFs::open(&repo, rev, &repo) {
            Ok(g) => g,
            Err(e) => {
                return Diag::error(format!("--base {rev}: {e}")).fail();
            }
        };
        let mut base_envs = Vec::new();
        for t in &targets {
            match render_fs(&git, &repo, t, &a.env) {
                Ok(r) => base_envs.push(Env::new(&t.name, &repo, &git, r)),
                Err(e) => notes.push(format!(
                    "environment {} does not render at {rev} ({e}): not compared",
                    t.name
                )),
            }
        }
        let base = side(&base_envs);
        failures.extend(pins::compare(
            &base.pins,
            &head.pins,
            &base.overrides,
            &head.overrides,
        ));
    }
    match a.output {
        Format::Table => {
            print!("{}", table(&head.pins));
            for n in &notes {
                println!("note: {n}");
            }
            for f in &failures {
                let at = match (&f.file, f.line) {
                    (Some(p), l) if l > 0 => format!("{}:{l}: ", p.display()),
                    (Some(p), _) => format!("{}: ", p.display()),
                    _ => String::new(),
                };
                println!("FAIL {at}{} {} {} [{}]", f.kind, f.name, f.message, f.env);
            }
            if !failures.is_empty() {
                println!("{}", diag::plural(failures.len(), "pin failure"));
            }
        }
        Format::Json => {
            let js = json!({
                "apiVersion": flate::output::API_VERSION,
                "kind": "PinReport",
                "base": a.base,
                "pins": head.pins.iter().map(Pin::to_json).collect::<Vec<_>>(),
                "failures": failures.iter().map(PinFailure::to_json).collect::<Vec<_>>(),
                "notes": notes,
            });
            println!("{}", serde_json::to_string_pretty(&js).unwrap_or_default());
        }
    }
    if failures.is_empty() { 0 } else { 1 }
}
