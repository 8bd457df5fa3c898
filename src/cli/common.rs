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
    /// Render the Kustomizations of a source flate cannot fetch (an
    /// OCIRepository, a remote GitRepository, a Bucket, an
    /// ExternalArtifact) from a local directory holding its artifact
    /// (repeatable; `NAME=DIR` matches every source of that name).
    #[arg(long = "source", global = true, value_name = "KIND/NAMESPACE/NAME=DIR")]
    pub sources: Vec<String>,
}

/// The `--source` directories, made absolute.
pub fn local_sources(a: &EnvArgs) -> Result<Vec<flate::flux::render::LocalSource>, String> {
    a.sources
        .iter()
        .map(|s| {
            let mut l = flate::flux::render::LocalSource::parse(s)?;
            l.dir = absolute(&l.dir);
            if !l.dir.is_dir() {
                return Err(format!(
                    "--source {s}: {} is not a directory",
                    l.dir.display()
                ));
            }
            Ok(l)
        })
        .collect()
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
    render_with(env, a, SpecErrors::Fatal)
}

/// What an invalid Talos spec does to a render that would derive
/// bootstrap-settings from it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum SpecErrors {
    /// Stop with the spec's errors (exit 2).
    Fatal,
    /// Render without bootstrap-settings and say so on stderr.
    Warn,
    /// Render without bootstrap-settings (`flate check` reports the spec's
    /// errors as findings).
    Ignore,
}

/// The objects the `--settings` files hold.
pub fn settings_objects(a: &EnvArgs) -> Result<Vec<flate::resource::Resource>, String> {
    let mut out = Vec::new();
    for f in &a.settings {
        let text =
            std::fs::read_to_string(f).map_err(|e| format!("--settings {}: {e}", f.display()))?;
        out.extend(
            flate::kustomize::build::resources_from_text(&absolute(f), &text)
                .map_err(|e| format!("--settings: {e}"))?,
        );
    }
    Ok(out)
}

/// Whether bootstrap-settings are derived from the Talos spec: not with
/// `--settings`, `--no-talos-settings` or `--path`.
pub fn derives_talos_settings(a: &EnvArgs) -> bool {
    a.settings.is_empty() && !a.no_talos_settings && a.path.is_none()
}

/// The bootstrap-settings ConfigMap derived from the Talos spec of `env`
/// read through `fs`, when there is one and the options ask for it.
/// `Err(message)` when the spec is invalid and `spec_errors` is `Fatal`.
pub fn talos_settings(
    fs: &dyn flate::fs::FileSystem,
    repo: &Path,
    env: &str,
    a: &EnvArgs,
    spec_errors: SpecErrors,
) -> Result<Option<flate::resource::Resource>, String> {
    if !derives_talos_settings(a) {
        return Ok(None);
    }
    match flate::talos::bootstrap_settings_resource(fs, repo, env) {
        Ok(r) => Ok(r),
        Err(_) if spec_errors == SpecErrors::Ignore => Ok(None),
        Err(e) if spec_errors == SpecErrors::Warn => {
            eprintln!("warning: {e}");
            eprintln!(
                "warning: rendering {env} without the bootstrap-settings the spec would give (`flate check` lists the spec's errors)"
            );
            Ok(None)
        }
        Err(e) => Err(format!(
            "{e}\nhint: fix the Talos spec, or pass --no-talos-settings"
        )),
    }
}

/// The entry directory of environment `env`: `--path`, else
/// kubernetes/clusters/ENV.
pub fn entry(env: &str, a: &EnvArgs) -> String {
    a.path
        .clone()
        .unwrap_or_else(|| format!("kubernetes/clusters/{env}"))
}

/// The render options of environment `env` of the repository read through
/// `fs`: `--strict-substitute`, the `--settings` objects and the
/// bootstrap-settings derived from the Talos spec.
pub fn render_options(
    fs: &dyn flate::fs::FileSystem,
    repo: &Path,
    env: &str,
    a: &EnvArgs,
    spec_errors: SpecErrors,
) -> Result<RenderOptions, String> {
    let mut preexisting = settings_objects(a)?;
    preexisting.extend(talos_settings(fs, repo, env, a, spec_errors)?);
    Ok(RenderOptions {
        strict_substitute: a.strict_substitute,
        preexisting,
        sources: local_sources(a)?,
    })
}

/// [`render`], with a choice of what an invalid Talos spec does.
pub fn render_with(env: &str, a: &EnvArgs, spec_errors: SpecErrors) -> Result<Rendered, i32> {
    let repo = repo_root(&a.repo);
    let opts = render_options(&RealFs, &repo, env, a, spec_errors).map_err(|e| {
        eprintln!("error: {e}");
        2
    })?;
    flate::flux::render(&RealFs, &repo, &entry(env, a), env, &opts).map_err(|e| {
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
