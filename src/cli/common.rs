//! Arguments shared by the verbs that render an environment.

use std::path::{Path, PathBuf};

use clap::Args;

use flate::flux::{RenderOptions, Rendered};
use flate::fs::{RealFs, absolute};

#[derive(Args, Debug, Clone, Default)]
pub struct EnvArgs {
    /// Repository root (default: the git top level of the working directory,
    /// else the working directory).
    #[arg(long, global = true)]
    pub repo: Option<PathBuf>,
    /// Entry directory relative to the repository, instead of
    /// kubernetes/clusters/ENV (e.g. kubernetes/flux/cluster).
    #[arg(long, global = true)]
    pub path: Option<String>,
    /// Fail on variables that are not set (Flux's StrictPostBuildSubstitutions).
    #[arg(long, global = true)]
    pub strict_substitute: bool,
    /// A YAML file of objects that exist before the render, such as the
    /// bootstrap-settings ConfigMap (repeatable).
    #[arg(long, global = true)]
    pub settings: Vec<PathBuf>,
    /// Do not derive the bootstrap-settings ConfigMap from
    /// kubernetes/clusters/ENV/talos.yaml (it is used when present and no
    /// --settings is given).
    #[arg(long, global = true)]
    pub no_talos_settings: bool,
}

/// The repository root: --repo, else the enclosing git work tree, else cwd.
pub fn repo_root(repo: &Option<PathBuf>) -> PathBuf {
    if let Some(r) = repo {
        return absolute(r);
    }
    let cwd = absolute(Path::new("."));
    let mut cur: Option<&Path> = Some(&cwd);
    while let Some(d) = cur {
        if d.join(".git").exists() {
            return d.to_path_buf();
        }
        cur = d.parent();
    }
    cwd
}

/// Renders environment `env` (exit code 2 and a message when it cannot).
pub fn render(env: &str, a: &EnvArgs) -> Result<Rendered, i32> {
    render_with(env, a, true)
}

/// [`render`]; with `spec_errors_fatal` false, an invalid Talos spec only
/// means no derived bootstrap-settings (`flate check` reports the spec's
/// errors as findings).
pub fn render_with(env: &str, a: &EnvArgs, spec_errors_fatal: bool) -> Result<Rendered, i32> {
    let repo = repo_root(&a.repo);
    let entry = a
        .path
        .clone()
        .unwrap_or_else(|| format!("kubernetes/clusters/{env}"));
    let mut preexisting = Vec::new();
    for f in &a.settings {
        let text = match std::fs::read_to_string(f) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("error: --settings {}: {e}", f.display());
                return Err(2);
            }
        };
        match flate::kustomize::build::resources_from_text(&absolute(f), &text) {
            Ok(rs) => preexisting.extend(rs),
            Err(e) => {
                eprintln!("error: --settings: {e}");
                return Err(2);
            }
        }
    }
    if a.settings.is_empty() && !a.no_talos_settings && a.path.is_none() {
        match flate::talos::bootstrap_settings_resource(&RealFs, &repo, env) {
            Ok(Some(r)) => preexisting.push(r),
            Ok(None) => {}
            Err(_) if !spec_errors_fatal => {}
            Err(e) => {
                eprintln!("error: {e}");
                eprintln!("hint: fix the Talos spec, or pass --no-talos-settings");
                return Err(2);
            }
        }
    }
    let opts = RenderOptions {
        strict_substitute: a.strict_substitute,
        preexisting,
    };
    flate::flux::render(&RealFs, &repo, &entry, env, &opts).map_err(|e| {
        eprintln!("error: {e}");
        eprintln!("hint: ENV names kubernetes/clusters/ENV under the repository root; use --repo or --path");
        2
    })
}

/// Writes `s` to standard output; 0, or 2 when it cannot be written.
pub fn print(s: &str) -> i32 {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if out
        .write_all(s.as_bytes())
        .and_then(|_| out.flush())
        .is_err()
    {
        return 2;
    }
    0
}
