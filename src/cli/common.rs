//! Arguments shared by the verbs that render an environment, and how an
//! environment is chosen: ENV, `--path`, the repository's `.flate.yaml`,
//! or the environments discovered in the tree.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use clap::Args;

use flate::flux::{RenderOptions, Rendered};
use flate::fs::{RealFs, absolute};

use super::config::{self, Environment, Found, RepoConfig};
use super::diag::{self, Diag, closest};

#[derive(Args, Debug, Clone, Default)]
pub struct EnvArgs {
    /// Repository root (default: the nearest directory above the working
    /// directory holding .flate.yaml or .git, else the working directory).
    #[arg(long, global = true, value_name = "DIR")]
    pub repo: Option<PathBuf>,
    /// The environment's entry directory, relative to the repository root
    /// (e.g. kubernetes/flux/cluster); enough on its own: the environment
    /// is named after it (or after the .flate.yaml entry with that path).
    #[arg(long, global = true, value_name = "DIR")]
    pub path: Option<String>,
    /// Fail on variables that are not set (Flux's StrictPostBuildSubstitutions).
    #[arg(long, global = true)]
    pub strict_substitute: bool,
    /// A YAML file of objects that exist before the render, such as the
    /// bootstrap-settings ConfigMap (repeatable; replaces the
    /// environment's `settings` of .flate.yaml).
    #[arg(long, global = true, value_name = "FILE")]
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
    /// A local copy of a remote kustomize resource, component or file
    /// (`https://…`, `github.com/…?ref=…`), which flate does not fetch:
    /// a file, or a directory for a remote base (repeatable; the URL as
    /// the kustomization writes it; adds to `.flate.yaml`'s `remotes`,
    /// and wins over them).
    #[arg(long = "remote", global = true, value_name = "URL=PATH")]
    pub remotes: Vec<String>,
    /// A chart cache directory: charts as `helm pull` writes them
    /// (NAME-VERSION.tgz) or unpacked chart directories (repeatable;
    /// searched before the `charts` of .flate.yaml and .flate/charts).
    #[arg(long = "charts", global = true, value_name = "DIR")]
    pub charts: Vec<PathBuf>,
    /// A HelmRelease whose chart is not available offline is an error
    /// (default: it is skipped, with the `helm pull` command that fetches
    /// the chart).
    #[arg(long, global = true)]
    pub require_charts: bool,
}

/// The chart cache directories: `--charts`, the `charts` of .flate.yaml,
/// then `.flate/charts` of the repository.
pub fn chart_dirs(root: &Path, a: &EnvArgs) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = a.charts.iter().map(|p| absolute(p)).collect();
    if let Ok(repo) = Repo::open(a) {
        dirs.extend(repo.chart_dirs());
    }
    dirs.push(root.join(".flate").join("charts"));
    let mut seen = std::collections::HashSet::new();
    dirs.retain(|d| seen.insert(flate::fs::normalize(root, d)));
    dirs
}

/// Chart rendering options of `env`: the cache directories,
/// `--require-charts`, and `.Capabilities.KubeVersion`: the environment's
/// `kubernetesVersion` (.flate.yaml, or `flate check
/// --kubernetes-version`), else its Talos spec's, else the newest
/// Kubernetes version flate checks against.
pub fn helm_options(
    fs: &dyn flate::fs::FileSystem,
    root: &Path,
    env: &Environment,
    a: &EnvArgs,
) -> flate::flux::helmrender::HelmOptions {
    let kube = env
        .kubernetes_version
        .clone()
        .or_else(|| flate::check::talos_kubernetes_version(fs, root, &env.name))
        .unwrap_or_else(|| flate::check::schema::KUBERNETES_VERSION.to_string());
    // As a cluster reports it: `v1.36.0` for `1.36`.
    let bare = kube.trim_start_matches('v');
    let parts = bare.split('.').count();
    let kube = match parts {
        2 => format!("v{bare}.0"),
        _ => format!("v{bare}"),
    };
    flate::flux::helmrender::HelmOptions {
        chart_dirs: chart_dirs(root, a),
        require_charts: a.require_charts,
        kube_version: Some(kube),
        // Read from the environment's objects when it renders.
        digest_tracking_disabled: false,
    }
}

/// The `--source` directories, made absolute, then the `sources` of
/// `.flate.yaml` (the first match wins, so the command line overrides the
/// file).
/// The `--source` directories (and `.flate.yaml`'s), whose files commands
/// that read the repository's files (check, pins) read too; none when
/// they are wrong (the render says so).
pub(super) fn source_dirs(a: &EnvArgs, repo: &Repo) -> Vec<PathBuf> {
    local_sources(a, Some(repo))
        .map(|l| l.into_iter().map(|s| s.dir).collect())
        .unwrap_or_default()
}

fn local_sources(
    a: &EnvArgs,
    repo: Option<&Repo>,
) -> Result<Vec<flate::flux::render::LocalSource>, String> {
    let mut specs: Vec<String> = a.sources.clone();
    if let Some(repo) = repo {
        specs.extend(
            repo.source_dirs()
                .into_iter()
                .map(|(k, d)| format!("{k}={}", d.display())),
        );
    }
    specs
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

/// `URL=PATH` (split at the last `=`: a URL may hold one, as in
/// `?ref=v1`), the path made absolute; it must exist.
pub fn parse_remote(spec: &str) -> Result<(String, PathBuf), String> {
    let Some((url, path)) = spec
        .rsplit_once('=')
        .filter(|(u, p)| !u.is_empty() && !p.is_empty())
    else {
        return Err(format!("--remote {spec}: expected URL=PATH"));
    };
    if !flate::kustomize::build::is_remote(url) {
        return Err(format!(
            "--remote {spec}: '{url}' is not a remote reference (https://…, github.com/…, git::…)"
        ));
    }
    let path = absolute(Path::new(path));
    if !path.exists() {
        return Err(format!(
            "--remote {spec}: {} does not exist (give a file, or a directory for a remote base)",
            path.display()
        ));
    }
    Ok((url.to_string(), path))
}

/// The `--remote` copies, then the `remotes` of `.flate.yaml` (the first
/// match wins, so the command line overrides the file).
fn local_remotes(
    a: &EnvArgs,
    repo: Option<&Repo>,
) -> Result<flate::kustomize::build::Remotes, String> {
    let mut pairs = a
        .remotes
        .iter()
        .map(|s| parse_remote(s))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(repo) = repo {
        for (url, p) in repo.remote_copies() {
            if !p.exists() {
                return Err(format!(
                    "{}: remotes: the copy of {url}, {}, does not exist",
                    config::FILE_NAME,
                    p.display()
                ));
            }
            pairs.push((url, p));
        }
    }
    Ok(flate::kustomize::build::Remotes::new(pairs))
}

/// The local copies standing for what flate does not fetch: the
/// `--source` directories and `sources` of `.flate.yaml`, the `--remote`
/// copies and its `remotes` (the file read once).
pub fn local_copies(
    a: &EnvArgs,
) -> Result<
    (
        Vec<flate::flux::render::LocalSource>,
        flate::kustomize::build::Remotes,
    ),
    String,
> {
    let repo = Repo::open(a).ok();
    Ok((
        local_sources(a, repo.as_ref())?,
        local_remotes(a, repo.as_ref())?,
    ))
}

/// The repository root: --repo, else the nearest directory above the
/// working directory holding `.flate.yaml` or `.git`, else cwd.
pub fn repo_root(repo: &Option<PathBuf>) -> PathBuf {
    if let Some(r) = repo {
        return absolute(r);
    }
    let cwd = absolute(Path::new("."));
    let mut cur: Option<&Path> = Some(&cwd);
    while let Some(d) = cur {
        if d.join(config::FILE_NAME).is_file() || d.join(".git").exists() {
            return d.to_path_buf();
        }
        cur = d.parent();
    }
    cwd
}

/// A repository: its root and its `.flate.yaml`.
#[derive(Debug, Clone)]
pub struct Repo {
    pub root: PathBuf,
    pub config: RepoConfig,
}

impl Repo {
    /// The repository of `a` (`--repo` or the working directory's), with
    /// its configuration read and validated.
    pub fn open(a: &EnvArgs) -> Result<Repo, Diag> {
        let root = repo_root(&a.repo);
        if a.repo.is_some() && !root.is_dir() {
            return Err(Diag::error(format!(
                "--repo {}: no such directory",
                a.repo
                    .as_ref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default()
            )));
        }
        let config = config::load(&root)?;
        Ok(Repo { root, config })
    }

    /// The `charts` directories of .flate.yaml (chart caches HelmReleases'
    /// charts are rendered from), relative to the root made absolute.
    pub fn chart_dirs(&self) -> Vec<PathBuf> {
        self.config
            .charts
            .iter()
            .map(|c| self.root.join(c))
            .collect()
    }

    /// The `sources` of .flate.yaml: `Kind/namespace/name` → an absolute
    /// directory holding that source's content (as `--source` gives it).
    pub fn source_dirs(&self) -> Vec<(String, PathBuf)> {
        self.config
            .sources
            .iter()
            .map(|(k, d)| (k.clone(), flate::fs::normalize(&self.root, Path::new(d))))
            .collect()
    }

    /// The `remotes` of .flate.yaml: URL → the absolute path of its copy.
    pub fn remote_copies(&self) -> Vec<(String, PathBuf)> {
        self.config
            .remotes
            .iter()
            .map(|(u, p)| (u.clone(), flate::fs::normalize(&self.root, Path::new(p))))
            .collect()
    }

    /// Every environment (the file's, else the discovered ones).
    pub fn environments(&self) -> Vec<Environment> {
        config::environments(&self.root, &self.config)
    }

    /// The environments named by `names` (all of them when empty), or the
    /// one `--path` names.
    pub fn select(&self, names: &[String], a: &EnvArgs) -> Result<Vec<Environment>, Diag> {
        if a.path.is_some() {
            if names.len() > 1 {
                return Err(Diag::error(format!(
                    "--path names one environment, but {} were given: {}",
                    names.len(),
                    names.join(", ")
                )));
            }
            return Ok(vec![self.one(names.first().map(String::as_str), a)?]);
        }
        if names.is_empty() {
            let all = self.environments();
            if all.is_empty() {
                return Err(no_environments(&self.root));
            }
            return Ok(all.into_iter().map(|e| with_settings(e, a)).collect());
        }
        names.iter().map(|n| self.one(Some(n), a)).collect()
    }

    /// As [`Repo::select`], but a name that is not an environment here is
    /// taken as kubernetes/clusters/NAME (`flate diff` of an environment
    /// that only the base has).
    pub fn select_lenient(&self, names: &[String], a: &EnvArgs) -> Result<Vec<Environment>, Diag> {
        if a.path.is_some() || names.is_empty() {
            return self.select(names, a);
        }
        let known = self.environments();
        Ok(names
            .iter()
            .map(|n| {
                let e = known
                    .iter()
                    .find(|e| e.name == *n)
                    .cloned()
                    .unwrap_or_else(|| Environment {
                        name: n.clone(),
                        path: format!("kubernetes/clusters/{n}"),
                        settings: Vec::new(),
                        kubernetes_version: None,
                        found: Found::ClustersDir,
                    });
                with_settings(e, a)
            })
            .collect())
    }

    /// One environment: `name`, `--path`, or the only one there is.
    pub fn one(&self, name: Option<&str>, a: &EnvArgs) -> Result<Environment, Diag> {
        // `--path` with a name is that directory under that name: only
        // the file's environments can add to it (settings, a Kubernetes
        // version); discovery (a walk reading every YAML file of the
        // repository for Flux syncs) would give nothing more.
        let known = if a.path.is_some() && name.is_some() && self.config.environments.is_empty() {
            Vec::new()
        } else {
            self.environments()
        };
        if let Some(p) = &a.path {
            let path = self.entry_path(p)?;
            let from_config = known.iter().find(|e| same_path(&e.path, &path));
            let env = match (name, from_config) {
                (Some(n), Some(e)) if e.name == n => e.clone(),
                (None, Some(e)) => e.clone(),
                (n, _) => Environment {
                    name: n.map(str::to_string).unwrap_or_else(|| {
                        Path::new(&path)
                            .file_name()
                            .map(|f| f.to_string_lossy().into_owned())
                            .unwrap_or_else(|| "cluster".into())
                    }),
                    path,
                    settings: Vec::new(),
                    kubernetes_version: None,
                    found: Found::PathFlag,
                },
            };
            return Ok(with_settings(env, a));
        }
        match name {
            Some(n) => match known.iter().find(|e| e.name == n) {
                Some(e) => Ok(with_settings(e.clone(), a)),
                None => Err(unknown_env(n, &known, &self.root)),
            },
            None => match known.as_slice() {
                [e] => Ok(with_settings(e.clone(), a)),
                [] => Err(no_environments(&self.root)),
                many => Err(Diag::error("name an environment")
                    .note(format!(
                        "this repository has {}: {}",
                        diag::plural(many.len(), "environment"),
                        names(many)
                    ))
                    .help("e.g. `flate build ENV`, or `--path DIR` for another entry directory")),
            },
        }
    }

    /// `--path`: relative to the repository root, or to the working
    /// directory when it is a directory there inside the repository.
    fn entry_path(&self, p: &str) -> Result<String, Diag> {
        let trimmed = p.trim_end_matches('/');
        let trimmed = trimmed.strip_prefix("./").unwrap_or(trimmed);
        if Path::new(trimmed).is_relative() && self.root.join(trimmed).is_dir() {
            return Ok(trimmed.to_string());
        }
        let from_cwd = absolute(Path::new(p));
        if from_cwd.is_dir()
            && let Ok(rel) = from_cwd.strip_prefix(&self.root)
        {
            let rel = rel.display().to_string();
            return Ok(if rel.is_empty() { ".".into() } else { rel });
        }
        Err(Diag::error(format!(
            "--path {p}: no such directory in {}",
            self.root.display()
        ))
        .help("--path is the entry directory relative to the repository root (see --repo)"))
    }
}

fn same_path(a: &str, b: &str) -> bool {
    let n = |s: &str| s.trim_start_matches("./").trim_end_matches('/').to_string();
    n(a) == n(b)
}

fn names(envs: &[Environment]) -> String {
    envs.iter()
        .map(|e| format!("{} ({})", e.name, e.path))
        .collect::<Vec<_>>()
        .join(", ")
}

fn no_environments(root: &Path) -> Diag {
    Diag::error(format!("no environments found in {}", root.display()))
        .note("looked for .flate.yaml, directories under kubernetes/clusters/ and Flux syncs (a Kustomization and a GitRepository in one directory)")
        .help("name the entry directory with --path DIR, or list environments in .flate.yaml")
}

fn unknown_env(name: &str, known: &[Environment], root: &Path) -> Diag {
    let mut d = Diag::error(format!("unknown environment '{name}'"));
    if known.is_empty() {
        return no_environments(root).note(format!("'{name}' was asked for"));
    }
    if let Some(c) = closest(name, known.iter().map(|e| e.name.as_str())).first() {
        d = d.help(format!("did you mean '{c}'?"));
    }
    d.note(format!(
        "known environments: {} (`flate get envs` says where each was found)",
        names(known)
    ))
    .help("or name the entry directory with --path DIR")
}

/// `--settings` replaces the environment's own settings files.
fn with_settings(mut e: Environment, a: &EnvArgs) -> Environment {
    if !a.settings.is_empty() {
        e.settings = a.settings.iter().map(|p| absolute(p)).collect();
    }
    e
}

/// Opens the repository and picks one environment (`name`, `--path`, or
/// the only one); exit status 2 after the message when it cannot.
pub fn pick(name: Option<&str>, a: &EnvArgs) -> Result<(Repo, Environment), i32> {
    let repo = Repo::open(a).map_err(|d| d.fail())?;
    if let Some(f) = &repo.config.file {
        diag::info(format!("configuration from {}", f.display()));
    }
    let env = repo.one(name, a).map_err(|d| d.fail())?;
    diag::info(format!(
        "environment {} at {} ({})",
        env.name,
        env.path,
        env.origin()
    ));
    Ok((repo, env))
}

/// Opens the repository and picks the environments named (all when none).
pub fn pick_all(names: &[String], a: &EnvArgs) -> Result<(Repo, Vec<Environment>), i32> {
    pick_all_with(names, a, false)
}

/// [`pick_all`]; `lenient` as [`Repo::select_lenient`].
pub fn pick_all_with(
    names: &[String],
    a: &EnvArgs,
    lenient: bool,
) -> Result<(Repo, Vec<Environment>), i32> {
    let repo = Repo::open(a).map_err(|d| d.fail())?;
    if let Some(f) = &repo.config.file {
        diag::info(format!("configuration from {}", f.display()));
    }
    let envs = if lenient {
        repo.select_lenient(names, a)
    } else {
        repo.select(names, a)
    }
    .map_err(|d| d.fail())?;
    for e in &envs {
        diag::info(format!(
            "environment {} at {} ({})",
            e.name,
            e.path,
            e.origin()
        ));
    }
    Ok((repo, envs))
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

/// The objects the environment's settings files hold.
pub fn settings_objects(env: &Environment) -> Result<Vec<flate::resource::Resource>, String> {
    let mut out = Vec::new();
    for f in &env.settings {
        let text = std::fs::read_to_string(f)
            .map_err(|e| format!("settings file {}: {e}", f.display()))?;
        out.extend(
            flate::kustomize::build::resources_from_text(&absolute(f), &text)
                .map_err(|e| format!("settings file {}: {e}", f.display()))?,
        );
    }
    Ok(out)
}

/// Whether bootstrap-settings are derived from the Talos spec: not with
/// settings files, `--no-talos-settings`, or an entry directory other
/// than kubernetes/clusters/ENV.
pub fn derives_talos_settings(env: &Environment, a: &EnvArgs) -> bool {
    env.settings.is_empty()
        && !a.no_talos_settings
        && same_path(&env.path, &format!("kubernetes/clusters/{}", env.name))
}

/// The bootstrap-settings ConfigMap derived from the Talos spec of `env`
/// read through `fs`, when there is one and the options ask for it.
/// `Err(message)` when the spec is invalid and `spec_errors` is `Fatal`.
pub fn talos_settings(
    fs: &dyn flate::fs::FileSystem,
    repo: &Path,
    env: &Environment,
    a: &EnvArgs,
    spec_errors: SpecErrors,
) -> Result<Option<flate::resource::Resource>, String> {
    if !derives_talos_settings(env, a) {
        return Ok(None);
    }
    match flate::talos::bootstrap_settings_resource(fs, repo, &env.name) {
        Ok(r) => Ok(r),
        Err(_) if spec_errors == SpecErrors::Ignore => Ok(None),
        Err(e) if spec_errors == SpecErrors::Warn => {
            Diag::warning(e.to_string())
                .note(format!(
                    "rendering {} without the bootstrap-settings the spec would give (`flate check` lists the spec's errors)",
                    env.name
                ))
                .emit();
            Ok(None)
        }
        Err(e) => Err(format!(
            "{e}\nhint: fix the Talos spec, or pass --no-talos-settings"
        )),
    }
}

/// The render options of `env` of the repository read through `fs`:
/// `--strict-substitute`, the settings objects and the bootstrap-settings
/// derived from the Talos spec.
pub fn render_options(
    fs: &dyn flate::fs::FileSystem,
    repo: &Path,
    env: &Environment,
    a: &EnvArgs,
    spec_errors: SpecErrors,
) -> Result<RenderOptions, String> {
    let mut preexisting = settings_objects(env)?;
    preexisting.extend(talos_settings(fs, repo, env, a, spec_errors)?);
    let (sources, remotes) = local_copies(a)?;
    Ok(RenderOptions {
        strict_substitute: a.strict_substitute,
        preexisting,
        sources,
        remotes,
        helm: helm_options(fs, repo, env, a),
        repo_ignore: None,
    })
}

/// The `.sourceignore` filter of the working tree at `root`, read once per
/// process: the environments rendered side by side share it (reading it
/// walks the whole tree).
fn working_tree_ignore(root: &Path) -> flate::flux::source::Ignore {
    type Cells = HashMap<PathBuf, Arc<OnceLock<flate::flux::source::Ignore>>>;
    static CELLS: OnceLock<Mutex<Cells>> = OnceLock::new();
    let cell = CELLS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry(root.to_path_buf())
        .or_default()
        .clone();
    cell.get_or_init(|| {
        let t = std::time::Instant::now();
        let fs = flate::fs::Confined::new(&RealFs, root);
        let ignore = flate::flux::source::Ignore::git(&fs, root, None);
        if std::env::var_os("FLATE_TIMINGS").is_some() {
            eprintln!(
                "timing: working tree's .sourceignore files {:.1} ms",
                t.elapsed().as_secs_f64() * 1e3
            );
        }
        ignore
    })
    .clone()
}

/// Renders `env` of the working tree (exit status 2 after the message
/// when it cannot).
pub fn render_env(
    repo: &Repo,
    env: &Environment,
    a: &EnvArgs,
    spec_errors: SpecErrors,
) -> Result<Rendered, i32> {
    let mut opts = render_options(&RealFs, &repo.root, env, a, spec_errors)
        .map_err(|e| Diag::error(e).fail())?;
    opts.repo_ignore = Some(working_tree_ignore(&repo.root));
    flate::flux::render(&RealFs, &repo.root, &env.path, &env.name, &opts).map_err(|e| {
        diag::from_error(&e, Some(&repo.root))
            .note(format!("environment {} ({})", env.name, env.origin()))
            .fail()
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

/// A path shown relative to the repository root when it is below it.
pub fn rel(root: &Path, p: &Path) -> String {
    p.strip_prefix(root).unwrap_or(p).display().to_string()
}
