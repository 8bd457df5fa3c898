//! Rendering a whole cluster the way Flux would: the entry directory as the
//! root Kustomization `flux-system/flux-system`, then every Flux
//! Kustomization found in rendered output, wave after wave (independent
//! ones in parallel), each once, in discovery order.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::fs::FileSystem;
use crate::kustomize::{BuildOptions, Error, Kustomizer, LoadRestrictor};
use crate::resource::{Origin, Resource};
use crate::yaml::{Map, Node};

use super::envsubst::is_valid_var_name;
use super::generator::kustomization_for;
use super::helm::{self, HelmReleaseReport};
use super::model::{self, FluxKustomization, SourceRef, is_flux_kustomization};
use super::source::{ArtifactFs, Ignore};
use super::varsub;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Rendered,
    Skipped,
    Failed,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Rendered => "rendered",
            Status::Skipped => "skipped",
            Status::Failed => "failed",
        }
    }
}

/// The outcome for one Flux Kustomization.
#[derive(Debug, Clone)]
pub struct KsReport {
    pub name: String,
    pub namespace: String,
    pub path: String,
    pub source: SourceRef,
    /// Its source is the repository itself (or, skipped, most likely is:
    /// a GitRepository no file defines whose `spec.path` is a directory
    /// here): `path` is relative to the repository's root (not to a
    /// `--source` copy or an external source).
    pub in_repo: bool,
    pub status: Status,
    pub message: String,
    pub depends_on: Vec<String>,
    pub objects: Vec<Resource>,
    pub warnings: Vec<String>,
    /// Where the Kustomization object itself was defined.
    pub origin: Origin,
    /// `namespace/name` of the Kustomization that produced it.
    pub parent: Option<String>,
    /// Variables left unset by post-build substitution, with the object
    /// that used each (the same facts as the "is not set" warnings).
    pub unset_vars: Vec<UnsetVar>,
    /// `substituteFrom` entries that were absent offline and skipped.
    pub absent_sources: Vec<AbsentSource>,
    /// `substituteFrom` sources found only as the cluster settles: applied
    /// by this Kustomization itself or by one that waits for it.
    pub bootstrap_sources: Vec<BootstrapSource>,
    /// Patches of the kustomization files it read whose target selected
    /// nothing (kustomize ignores them silently).
    pub unmatched_patches: Vec<crate::kustomize::UnmatchedPatch>,
    /// The SOPS-encrypted objects shown with placeholders, as the warning
    /// [`encrypted_warning`] of them names them.
    pub encrypted: Vec<String>,
    /// The SOPS-encrypted Secrets (`v1`, encrypted whole: a top-level
    /// `sops`) it applies without `spec.decryption`: kustomize-controller
    /// refuses them before applying anything, and the Kustomization fails.
    pub refused_secrets: Vec<ObjectAt>,
    /// The Flux Operator ResourceSets among its objects that were not
    /// expanded (the objects of the others follow its own).
    pub unexpanded: Vec<Unexpanded>,
    /// Failed for this `substituteFrom` source (kind, name) not among the
    /// objects rendered before it: rendered again once every Kustomization
    /// has rendered.
    retry: Option<(String, String)>,
}

/// A ResourceSet whose objects are not rendered, and why.
#[derive(Debug, Clone)]
pub struct Unexpanded {
    /// `namespace/name`.
    pub key: String,
    pub reason: super::resourceset::NotExpanded,
    pub origin: Origin,
}

/// A `${VAR}` substituted with an empty string, and where it was used.
#[derive(Debug, Clone)]
pub struct UnsetVar {
    pub name: String,
    pub object: crate::resource::ResId,
    pub origin: Origin,
}

/// An object of a Kustomization, and where it was read.
#[derive(Debug, Clone)]
pub struct ObjectAt {
    pub object: crate::resource::ResId,
    pub origin: Origin,
}

impl ObjectAt {
    /// `namespace/name`, or the name alone.
    pub fn named(&self) -> String {
        let id = &self.object;
        if id.namespace.is_empty() {
            id.name.clone()
        } else {
            format!("{}/{}", id.namespace, id.name)
        }
    }
}

/// A `substituteFrom` source that was not available offline.
#[derive(Debug, Clone)]
pub struct AbsentSource {
    pub kind: String,
    pub name: String,
    /// `optional: true` and not rendered.
    pub optional: bool,
    /// The object that creates it at runtime (ExternalSecret, SealedSecret).
    pub produced_by: Option<String>,
    /// Not a `substituteFrom` entry of the Kustomization: where the source
    /// is and what reads it (a kustomize-mutating-webhook's).
    pub via: Option<String>,
}

impl AbsentSource {
    /// `Kind/name`, with where it is and what reads it when that is not
    /// the Kustomization's own `substituteFrom`.
    pub fn label(&self) -> String {
        match &self.via {
            Some(v) => format!("{}/{} ({v})", self.kind, self.name),
            None => format!("{}/{}", self.kind, self.name),
        }
    }
}

/// A `substituteFrom` source that exists in a running cluster but not
/// before the Kustomization first applies: the Kustomization applies it
/// itself, or one that waits for it does (a descendant, or one whose
/// `dependsOn` leads to it). On an empty cluster Flux fails the
/// Kustomization (and so everything waiting for it) until the source is
/// created by hand, as bootstrap scripts do.
#[derive(Debug, Clone)]
pub struct BootstrapSource {
    pub kind: String,
    pub name: String,
    /// `namespace/name` of the Kustomization that applies it.
    pub by: String,
}

impl KsReport {
    pub fn key(&self) -> String {
        model::key(&self.namespace, &self.name)
    }
}

/// A rendered cluster.
#[derive(Debug, Clone)]
pub struct Rendered {
    pub cluster: String,
    pub root: String,
    pub kustomizations: Vec<KsReport>,
    pub helmreleases: Vec<HelmReleaseReport>,
    /// The objects that exist before anything is applied (`--settings`):
    /// sources of `substituteFrom` and `valuesFrom`, not applied by Flux.
    pub settings: Vec<Resource>,
}

impl Rendered {
    pub fn failed(&self) -> bool {
        self.kustomizations
            .iter()
            .any(|k| k.status == Status::Failed)
    }
    /// Every object: the Kustomizations', then the HelmReleases' (each
    /// with the Kustomization that applies its HelmRelease).
    pub fn all_objects(&self) -> impl Iterator<Item = (&KsReport, &Resource)> {
        self.kustomizations
            .iter()
            .flat_map(|k| k.objects.iter().map(move |o| (k, o)))
            .chain(self.helm_objects())
    }
    /// The Flux Operator ResourceSets that were not expanded, with why.
    pub fn unexpanded(&self) -> impl Iterator<Item = (&KsReport, &Unexpanded)> {
        self.kustomizations
            .iter()
            .flat_map(|k| k.unexpanded.iter().map(move |u| (k, u)))
    }
    /// The Flux Operator ResourceSets not expanded offline, whose objects
    /// are made only in the cluster (those the operator would fail
    /// excepted).
    pub fn not_expanded_offline(&self) -> impl Iterator<Item = (&KsReport, &Unexpanded)> {
        self.unexpanded()
            .filter(|(_, u)| matches!(u.reason, super::resourceset::NotExpanded::Offline(_)))
    }
    /// The objects of rendered Kustomizations, then the HelmReleases'.
    pub fn rendered_objects(&self) -> impl Iterator<Item = (&KsReport, &Resource)> {
        self.kustomizations
            .iter()
            .filter(|k| k.status == Status::Rendered)
            .flat_map(|k| k.objects.iter().map(move |o| (k, o)))
            .chain(self.helm_objects())
    }
    /// The objects the HelmReleases render, each with the Kustomization
    /// that applies its HelmRelease.
    pub fn helm_objects(&self) -> impl Iterator<Item = (&KsReport, &Resource)> {
        self.helmreleases
            .iter()
            .filter(|h| !h.objects.is_empty())
            .filter_map(move |h| {
                self.kustomizations
                    .iter()
                    .find(|k| k.key() == h.kustomization)
                    .map(|k| (k, h))
            })
            .flat_map(|(k, h)| h.objects.iter().map(move |o| (k, o)))
    }
}

#[derive(Debug, Clone, Default)]
pub struct RenderOptions {
    /// Fail on unset variables (Flux's StrictPostBuildSubstitutions).
    pub strict_substitute: bool,
    /// Objects that exist in the cluster before anything renders (for
    /// instance the `bootstrap-settings` ConfigMap given with --settings).
    pub preexisting: Vec<Resource>,
    /// Local directories standing for sources flate cannot fetch
    /// (`--source KIND/NAMESPACE/NAME=DIR`).
    pub sources: Vec<LocalSource>,
    /// Local copies of remote kustomize resources (`--remote URL=PATH`).
    pub remotes: crate::kustomize::build::Remotes,
    /// Chart rendering of HelmReleases (cache directories, Kubernetes
    /// version, `--require-charts`).
    pub helm: super::helmrender::HelmOptions,
    /// The repository's `.sourceignore` filter when the caller has it
    /// already (reading it walks the whole tree: several environments of
    /// one working tree share it); `None`: read from `fs`.
    pub repo_ignore: Option<Ignore>,
}

/// A local directory that stands for the artifact of a source (an
/// OCIRepository, a remote GitRepository, a Bucket, an ExternalArtifact),
/// as flux-local's `--sources` does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalSource {
    /// Kind and namespace, when given (`KIND/NAMESPACE/NAME=DIR`); a bare
    /// `NAME=DIR` stands for every source of that name.
    pub kind: Option<String>,
    pub namespace: Option<String>,
    pub name: String,
    pub dir: PathBuf,
}

impl LocalSource {
    /// `KIND/NAMESPACE/NAME=DIR` or `NAME=DIR`; `DIR` as given (the caller
    /// makes it absolute).
    pub fn parse(s: &str) -> Result<LocalSource, String> {
        let Some((what, dir)) = s.split_once('=') else {
            return Err(format!(
                "--source {s}: expected KIND/NAMESPACE/NAME=DIR or NAME=DIR"
            ));
        };
        if dir.is_empty() {
            return Err(format!("--source {s}: the directory is empty"));
        }
        let parts: Vec<&str> = what.split('/').collect();
        let (kind, namespace, name) = match parts.as_slice() {
            [name] => (None, None, *name),
            [kind, ns, name] => (Some(kind.to_string()), Some(ns.to_string()), *name),
            _ => {
                return Err(format!(
                    "--source {s}: expected KIND/NAMESPACE/NAME=DIR or NAME=DIR"
                ));
            }
        };
        if name.is_empty() {
            return Err(format!("--source {s}: the source name is empty"));
        }
        Ok(LocalSource {
            kind,
            namespace,
            name: name.to_string(),
            dir: PathBuf::from(dir),
        })
    }
    fn matches(&self, r: &SourceRef) -> bool {
        self.name == r.name
            && self
                .kind
                .as_ref()
                .is_none_or(|k| k.eq_ignore_ascii_case(&r.kind))
            && self.namespace.as_ref().is_none_or(|n| n == &r.namespace)
    }
}

/// Where each Kustomization's files come from.
struct Sources<'a> {
    /// The file system as it is (for `--source` directories).
    fs: &'a dyn FileSystem,
    /// The repository's artifact.
    repo: ArtifactFs<'a>,
    /// The adopted root's source, which is the repository too.
    root_source: Option<SourceRef>,
    local: &'a [LocalSource],
    /// Which `--source` directories (by index in `local`) are the
    /// repository's root.
    local_is_repo: Vec<bool>,
    /// The filter of each `--source` directory, by (kind, directory,
    /// `spec.ignore`): reading a GitRepository's `.sourceignore` files walks
    /// the whole directory, once, not once per Kustomization.
    ignores: std::sync::Mutex<HashMap<IgnoreKey, Ignore>>,
    /// The ExternalArtifacts built from generators, by (namespace, name):
    /// built once per render, however many Kustomizations read them.
    artifacts: std::sync::Mutex<HashMap<(String, String), Arc<super::artifactgen::MemFs>>>,
    /// What kustomize-mutating-webhooks write into the Kustomizations they
    /// select (none on the first pass; see [`webhook_injections`]).
    webhooks: Vec<Injection>,
    /// The chart cache (`--charts`, `.flate/charts`), for the charts of
    /// OCIRepositories that ArtifactGenerators read; scanned when first
    /// needed.
    chart_dirs: &'a [PathBuf],
    chart_cache: std::sync::OnceLock<super::charts::ChartCache>,
}

/// The variables one kustomize-mutating-webhook writes into the
/// `postBuild.substitute` of the Kustomizations it selects (see
/// [`super::substwebhook`]).
struct Injection {
    webhook: super::substwebhook::Webhook,
    /// In the order the webhook sets them (a later one wins): name,
    /// value, whether it came from a Secret.
    vars: Vec<(String, String, bool)>,
    /// Its ConfigMaps and Secrets absent offline.
    absent: Vec<AbsentSource>,
    /// Said of each Kustomization it mutates.
    warnings: Vec<String>,
}

/// The kustomize-mutating-webhooks the rendered cluster installs, with
/// the variables each injects, read from the objects of `reports`.
fn webhook_injections(
    sources: &Sources,
    reports: &[KsReport],
    opts: &RenderOptions,
) -> Vec<Injection> {
    use super::substwebhook;
    let objects = reports.iter().flat_map(|k| k.objects.iter());
    if !substwebhook::maybe_installed(objects) {
        return Vec::new();
    }
    let is_repo = |s: &SourceRef| sources.is_repo(s);
    let mut webhooks: Vec<substwebhook::Webhook> = super::helm::resolve_some(
        reports,
        &opts.preexisting,
        &is_repo,
        &substwebhook::may_install,
    )
    .iter()
    .filter_map(substwebhook::of_release)
    .collect();
    webhooks.sort_by(|a, b| a.by.cmp(&b.by));
    let known = Known::build(&opts.preexisting, reports);
    webhooks
        .into_iter()
        .map(|webhook| {
            let mut inj = Injection {
                vars: Vec::new(),
                absent: Vec::new(),
                warnings: Vec::new(),
                webhook,
            };
            let ns = inj.webhook.namespace.clone();
            let via = format!("in {ns}, read by kustomize-mutating-webhook {}", inj.webhook.by);
            for (kind, name) in inj.webhook.sources() {
                let found = known
                    .find(kind, &ns, name)
                    .or_else(|| known.reflected(kind, &ns, name));
                let Some(obj) = found else {
                    // The webhook skips what it cannot get.
                    let produced_by = runtime_producer(&known, kind, &ns, name);
                    inj.warnings.push(match &produced_by {
                        Some(p) => format!(
                            "{kind}/{name} ({via}) is produced at runtime by {p}: absent offline, rendered without the variables the webhook adds from it"
                        ),
                        None => format!(
                            "{kind}/{name} ({via}) is absent offline (not rendered in namespace {ns}): rendered without the variables the webhook adds from it"
                        ),
                    });
                    inj.absent.push(AbsentSource {
                        kind: kind.to_string(),
                        name: name.to_string(),
                        optional: produced_by.is_none(),
                        produced_by,
                        via: Some(via.clone()),
                    });
                    continue;
                };
                match source_data(obj, kind, name) {
                    Ok(vars) => {
                        for (k, v, secret) in vars {
                            inj.vars.retain(|(x, _, _)| *x != k);
                            inj.vars.push((k, v, secret));
                        }
                    }
                    Err(e) => inj.warnings.push(format!(
                        "{kind}/{name} ({via}) cannot be read: {e}; rendered without the variables the webhook adds from it"
                    )),
                }
            }
            inj
        })
        .collect()
}

/// (source kind, directory, `spec.ignore`) of a `--source` directory.
type IgnoreKey = (String, PathBuf, Option<String>);

impl Sources<'_> {
    fn is_repo(&self, s: &SourceRef) -> bool {
        is_repo_source(s, self.root_source.as_ref())
    }
    /// Whether paths of source `s` are relative to the repository's root:
    /// the repository itself, or a `--source` directory that is its root
    /// (the repository under the name a bootstrap outside the tree gives
    /// it).
    fn rooted_in_repo(&self, s: &SourceRef) -> bool {
        self.is_repo(s)
            || self
                .local
                .iter()
                .zip(&self.local_is_repo)
                .any(|(l, &root)| root && l.matches(s))
    }
    /// The artifact of a `--source` directory for `src`, filtered as
    /// source-controller filters that kind (see [`super::source`]).
    fn local_artifact(&self, src: &SourceRef, known: &Known) -> Option<ArtifactFs<'_>> {
        let l = self.local.iter().find(|l| l.matches(src))?;
        let spec_ignore = known
            .find(&src.kind, &src.namespace, &src.name)
            .and_then(|o| o.obj.get_str(&["spec", "ignore"]));
        let key = (
            src.kind.clone(),
            l.dir.clone(),
            spec_ignore.map(str::to_string),
        );
        let cached = self.ignores.lock().ok().and_then(|m| m.get(&key).cloned());
        let ignore = match cached {
            Some(i) => i,
            None => {
                let i = match src.kind.as_str() {
                    "GitRepository" => Ignore::git(self.fs, &l.dir, spec_ignore),
                    "OCIRepository" => Ignore::oci(spec_ignore),
                    "Bucket" => Ignore::bucket(self.fs, &l.dir, spec_ignore),
                    _ => Ignore::none(),
                };
                if let Ok(mut m) = self.ignores.lock() {
                    m.insert(key, i.clone());
                }
                i
            }
        };
        Some(ArtifactFs {
            inner: self.fs,
            root: l.dir.clone(),
            ignore,
        })
    }
}

impl Sources<'_> {
    /// The ExternalArtifact `src`, when an ArtifactGenerator among the
    /// objects rendered so far makes it: built from its sources' artifacts
    /// (the repository, `--source` copies, or other generated artifacts),
    /// or why it cannot be (a source not available offline, a copy
    /// operation that fails). `None` when no generator makes it.
    fn generated(
        &self,
        src: &SourceRef,
        known: &Known,
        depth: usize,
    ) -> Option<Result<Arc<super::artifactgen::MemFs>, GenError>> {
        let key = (src.namespace.clone(), src.name.clone());
        if let Some(m) = self
            .artifacts
            .lock()
            .ok()
            .and_then(|c| c.get(&key).cloned())
        {
            return Some(Ok(m));
        }
        let made = self.generated_anew(src, known, depth);
        if let (Some(Ok(m)), Ok(mut c)) = (&made, self.artifacts.lock()) {
            c.insert(key, Arc::clone(m));
        }
        made
    }

    /// [`Sources::generated`], not yet built in this render.
    fn generated_anew(
        &self,
        src: &SourceRef,
        known: &Known,
        depth: usize,
    ) -> Option<Result<Arc<super::artifactgen::MemFs>, GenError>> {
        use super::artifactgen as ag;
        // A generator with a path pattern makes its artifacts' names from
        // the directories of a source: known only when that source is here.
        let mut pattern_unavailable = None;
        for generator in ag::generators(known.all(), &src.namespace) {
            let pattern = generator.obj.get_str(&["spec", "pathPattern"]);
            if pattern.is_none() && ag::artifact(generator, &src.name).is_none() {
                continue;
            }
            match self.by_generator(generator, pattern, src, known, depth) {
                Some(Err(GenError::Unavailable(m))) if pattern.is_some() => {
                    pattern_unavailable.get_or_insert(m);
                }
                None => {}
                found => return found,
            }
        }
        pattern_unavailable.map(|m| Err(GenError::Unavailable(m)))
    }

    /// The artifact of an OCIRepository that holds a Helm chart, from the
    /// chart cache (the chart its URL names, at its `ref.semver` or
    /// `ref.tag`, as for a HelmRelease's `chartRef`): `None` when the
    /// chart is not cached.
    fn oci_chart(
        &self,
        src: &SourceRef,
        known: &Known,
    ) -> Option<Result<Arc<super::artifactgen::MemFs>, String>> {
        let o = known.find(&src.kind, &src.namespace, &src.name)?;
        let url = o.obj.get_str(&["spec", "url"])?;
        let version = o
            .obj
            .get_str(&["spec", "ref", "semver"])
            .or_else(|| o.obj.get_str(&["spec", "ref", "tag"]))
            .unwrap_or("");
        let cache = self
            .chart_cache
            .get_or_init(|| super::charts::ChartCache::scan(self.chart_dirs, &self.repo.root));
        let chart = super::charts::oci_chart_name(url);
        let found = cache.find(&chart, version).ok()??;
        let root = PathBuf::from(format!("/{src}"));
        let made = if found.path.is_dir() {
            super::helmrender::read_chart_dir(self.fs, &found.path)
                .map_err(|e| format!("{}: {e}", found.path.display()))
                .and_then(|files| super::artifactgen::chart_artifact_of_dir(&chart, files, root))
        } else {
            self.fs
                .read(&found.path)
                .map_err(|e| format!("{}: {e}", found.path.display()))
                .and_then(|data| super::artifactgen::chart_artifact_of_archive(&data, root))
        };
        Some(made.map(Arc::new))
    }

    /// [`Sources::generated`] by one generator (`None`: its path pattern
    /// makes no artifact of that name).
    fn by_generator(
        &self,
        generator: &Resource,
        pattern: Option<&str>,
        src: &SourceRef,
        known: &Known,
        depth: usize,
    ) -> Option<Result<Arc<super::artifactgen::MemFs>, GenError>> {
        use super::artifactgen as ag;
        let label = format!(
            "ExternalArtifact {}/{} (made by ArtifactGenerator {}/{}, {})",
            src.namespace,
            src.name,
            generator.namespace_or_default(),
            generator.name(),
            generator.origin
        );
        if depth > 8 {
            return Some(Err(GenError::Failed(format!(
                "{label}: generated artifacts nest more than 8 deep"
            ))));
        }
        // Each source as an artifact, in one pass: the repository, a
        // `--source` copy, or another generated artifact.
        enum Slot<'s> {
            Repo,
            Local(ArtifactFs<'s>),
            Made(Arc<ag::MemFs>),
        }
        let mut slots: Vec<(String, Slot<'_>)> = Vec::new();
        let mut missing = Vec::new();
        for (alias, kind, namespace, name) in ag::sources(generator) {
            let r = SourceRef {
                kind,
                name,
                namespace,
            };
            if self.is_repo(&r) {
                slots.push((alias, Slot::Repo));
                continue;
            }
            if let Some(a) = self.local_artifact(&r, known) {
                slots.push((alias, Slot::Local(a)));
                continue;
            }
            if r.kind == "OCIRepository"
                && let Some(made) = self.oci_chart(&r, known)
            {
                match made {
                    Ok(m) => {
                        slots.push((alias, Slot::Made(m)));
                        continue;
                    }
                    Err(e) => return Some(Err(GenError::Failed(format!("{label}: {e}")))),
                }
            }
            if r.kind == "ExternalArtifact" {
                match self.generated(&r, known, depth + 1) {
                    Some(Ok(m)) => {
                        slots.push((alias, Slot::Made(m)));
                        continue;
                    }
                    Some(Err(e)) => return Some(Err(e)),
                    None => {}
                }
            }
            let cache = if r.kind == "OCIRepository" {
                ", or put the chart it holds in the chart cache"
            } else {
                ""
            };
            missing.push(format!(
                "@{alias} ({r}: render it from a local copy with --source {r}=DIR{cache})"
            ));
        }
        if !missing.is_empty() {
            return Some(Err(GenError::Unavailable(format!(
                "{label}: source {} not fetched offline",
                missing.join(", ")
            ))));
        }
        let inputs: Vec<ag::Input<'_>> = slots
            .iter()
            .map(|(alias, slot)| {
                let (fs, root): (&dyn FileSystem, PathBuf) = match slot {
                    Slot::Repo => (&self.repo, self.repo.root.clone()),
                    Slot::Local(a) => (a, a.root.clone()),
                    Slot::Made(m) => (&**m, m.root().to_path_buf()),
                };
                ag::Input {
                    alias: alias.clone(),
                    fs,
                    root,
                }
            })
            .collect();
        let artifact = match pattern {
            None => ag::artifact(generator, &src.name)?.clone(),
            Some(p) => match ag::expand(generator, p, &inputs, &src.name) {
                Ok(Some(a)) => a,
                Ok(None) => return None,
                Err(e) => return Some(Err(GenError::Failed(format!("{label}: {e}")))),
            },
        };
        let root = PathBuf::from(format!("/ExternalArtifact/{}/{}", src.namespace, src.name));
        Some(
            ag::build(&artifact, &inputs, root)
                .map(Arc::new)
                .map_err(|e| GenError::Failed(format!("{label}: {e}"))),
        )
    }
}

/// Why a generated artifact is not there.
enum GenError {
    /// A source of the generator is not available offline: skipped.
    Unavailable(String),
    /// The generator fails (a copy operation), as it would in the cluster.
    Failed(String),
}

/// The URL of the first remote resource a build refused, from the
/// kustomize layer's messages ("remote … is not supported offline").
fn remote_url(message: &str) -> Option<&str> {
    if !message.contains("not supported offline") {
        return None;
    }
    message
        .split('\'')
        .skip(1)
        .step_by(2)
        .find(|s| crate::kustomize::build::is_remote(s))
}

/// Whether `s` is the repository being rendered: the bootstrap's
/// GitRepository `flux-system/flux-system`, or the source of the adopted
/// root Kustomization (see [`adopt_root`]).
fn is_repo_source(s: &SourceRef, root_source: Option<&SourceRef>) -> bool {
    (s.kind == "GitRepository" && s.name == "flux-system" && s.namespace == "flux-system")
        || root_source.is_some_and(|r| r == s)
}

/// A path as a list of its components (`./a//b/` is `a/b`).
fn path_key(p: &str) -> String {
    p.split('/')
        .filter(|c| !c.is_empty() && *c != ".")
        .collect::<Vec<_>>()
        .join("/")
}

/// The self-managing root: a Flux Kustomization rendered by the entry
/// whose `spec.path` is the entry itself is the Kustomization that applies
/// the entry in the cluster (the bootstrap's `flux-system` in
/// gotk-sync.yaml, or a hand-written one under another name). It replaces
/// the root flate would otherwise make up, so its patches, postBuild and
/// decryption apply, and the entry is rendered once.
fn adopt_root<'a>(children: &'a [FluxKustomization], entry: &str) -> Option<&'a FluxKustomization> {
    let want = path_key(entry);
    children.iter().find(|c| path_key(&c.path) == want)
}

/// The source a FluxInstance (the Flux Operator) among `objects` makes for
/// the entry: one whose `spec.sync.path` is the entry syncs this
/// repository through a source of `sync.kind` (GitRepository by default)
/// named `sync.name`, else after the FluxInstance's namespace, in that
/// namespace (the operator's naming, which matches `flux bootstrap`'s when
/// the namespace is `flux-system`).
fn flux_instance_source(objects: &[Resource], entry: &str) -> Option<SourceRef> {
    let want = path_key(entry);
    objects.iter().find_map(|o| {
        if o.kind() != "FluxInstance" || o.gvk().group != "fluxcd.controlplane.io" {
            return None;
        }
        let sync = o.obj.get_path(&["spec", "sync"])?;
        if path_key(sync.get_str(&["path"]).unwrap_or("")) != want {
            return None;
        }
        let namespace = match o.namespace() {
            "" => "flux-system",
            ns => ns,
        };
        let text = |f: &str| sync.get_str(&[f]).filter(|v| !v.is_empty());
        Some(SourceRef {
            kind: text("kind").unwrap_or("GitRepository").to_string(),
            name: text("name").unwrap_or(namespace).to_string(),
            namespace: namespace.to_string(),
        })
    })
}

fn root_kustomization(entry: &str) -> FluxKustomization {
    let mut spec = Map::new();
    spec.insert("path", Node::str(entry));
    let mut src = Map::new();
    src.insert("kind", Node::str("GitRepository"));
    src.insert("name", Node::str("flux-system"));
    spec.insert("sourceRef", Node::Map(src));
    let mut md = Map::new();
    md.insert("name", Node::str("flux-system"));
    md.insert("namespace", Node::str("flux-system"));
    let mut obj = Map::new();
    obj.insert("apiVersion", Node::str("kustomize.toolkit.fluxcd.io/v1"));
    obj.insert("kind", Node::str("Kustomization"));
    obj.insert("metadata", Node::Map(md));
    obj.insert("spec", Node::Map(spec));
    FluxKustomization::from_resource(&Resource::new(Node::Map(obj), Origin::default()))
}

/// The objects rendered so far (and those that exist before anything
/// renders), without copying them: indexed by kind, namespace and name.
struct Known<'a> {
    pre: &'a [Resource],
    reports: &'a [KsReport],
    /// (kind, namespace, name) → the first such object, as (report index,
    /// object index); the report index is `usize::MAX` for `pre`.
    index: HashMap<(String, String, String), (usize, usize)>,
}

impl<'a> Known<'a> {
    fn get(&self, at: (usize, usize)) -> &'a Resource {
        match at.0 {
            usize::MAX => &self.pre[at.1],
            i => &self.reports[i].objects[at.1],
        }
    }
    /// Ordering of two positions: `pre` first, then reports in order.
    fn order(at: (usize, usize)) -> (usize, usize) {
        (at.0.wrapping_add(1), at.1)
    }
    fn build(pre: &'a [Resource], reports: &'a [KsReport]) -> Known<'a> {
        let mut index = HashMap::new();
        let all =
            pre.iter()
                .enumerate()
                .map(|(j, r)| ((usize::MAX, j), r))
                .chain(reports.iter().enumerate().flat_map(|(i, k)| {
                    k.objects.iter().enumerate().map(move |(j, r)| ((i, j), r))
                }));
        for (at, r) in all {
            index
                .entry((
                    r.kind().to_string(),
                    r.namespace().to_string(),
                    r.name().to_string(),
                ))
                .or_insert(at);
        }
        Known {
            pre,
            reports,
            index,
        }
    }
    fn all(&self) -> impl Iterator<Item = &'a Resource> + 'a {
        let reports = self.reports;
        self.pre
            .iter()
            .chain(reports.iter().flat_map(|k| k.objects.iter()))
    }
    /// `namespace/name` of the Kustomization whose output holds the object
    /// [`Known::find`] finds, if a Kustomization's.
    /// For a Secret absent but made at runtime, the Kustomization whose
    /// output holds what makes it.
    fn applied_by(&self, kind: &str, namespace: &str, name: &str) -> Option<String> {
        if let Some(at) = self.position(kind, namespace, name) {
            return self.reports.get(at.0).map(KsReport::key);
        }
        if let Some(src) = self.reflected(kind, namespace, name) {
            let at = self.position(kind, src.namespace_or_default(), name)?;
            return self.reports.get(at.0).map(KsReport::key);
        }
        // Makers make Secrets and ConfigMaps only.
        if !matches!(kind, "Secret" | "ConfigMap") {
            return None;
        }
        let labels = |ns: &str| self.namespace_object(ns);
        self.reports.iter().find_map(|k| {
            k.objects
                .iter()
                .any(|r| runtime_maker(r, r.namespace(), kind, namespace, name, &labels).is_some())
                .then(|| k.key())
        })
    }

    /// The source Reflector copies into `namespace` as `kind` `name` (see
    /// [`super::reflector`]), when no such object is rendered there.
    fn reflected(&self, kind: &str, namespace: &str, name: &str) -> Option<&'a Resource> {
        let candidates = self.all().map(|r| (r.namespace_or_default(), r));
        super::reflector::source(candidates, kind, namespace, name, &|ns| {
            self.namespace_object(ns)
        })
    }

    /// The rendered Namespace object `ns`, whose labels selectors read.
    fn namespace_object(&self, ns: &str) -> Option<Node> {
        self.find("Namespace", "", ns).map(|r| r.obj.clone())
    }

    /// The first object of `kind` named `name` in `namespace` (an object
    /// without a namespace counts as in `default`).
    fn find(&self, kind: &str, namespace: &str, name: &str) -> Option<&'a Resource> {
        self.position(kind, namespace, name).map(|at| self.get(at))
    }

    /// Where the object [`Known::find`] finds is: (report index, object
    /// index), the report index `usize::MAX` for `pre`.
    fn position(&self, kind: &str, namespace: &str, name: &str) -> Option<(usize, usize)> {
        let key = |ns: &str| (kind.to_string(), ns.to_string(), name.to_string());
        let mut best = self.index.get(&key(namespace)).copied();
        if namespace == "default"
            && let Some(&other) = self.index.get(&key(""))
            && best.is_none_or(|b| Self::order(other) < Self::order(b))
        {
            best = Some(other);
        }
        best
    }
}

/// The kinds [`runtime_maker`] follows, for messages.
pub const RUNTIME_MAKERS: &str = "ExternalSecrets, ClusterExternalSecrets, SealedSecrets, cert-manager Certificates, trust-manager Bundles, ObjectBucketClaims, OnePasswordItems, PostgresUsers and CloudNativePG Clusters";

/// Whether `r` makes `kind` (`Secret` or `ConfigMap`) `name` in its own
/// namespace at runtime (docs/flux.md, "Objects made at runtime"):
/// - an ExternalSecret (`spec.target.name`, else its own name): a Secret;
/// - a SealedSecret (`spec.template.metadata.name`, else its own name): a
///   Secret;
/// - a PostgresUser of ext-postgres-operator (`db.movetokube.com`): Secret
///   `SECRETNAME-NAME` from `spec.secretName` and its own name, or
///   `SECRETNAME` alone when the operator runs with `KEEP_SECRET_NAME`
///   (which flate cannot see: both count);
/// - a CloudNativePG Cluster (`postgresql.cnpg.io`): Secret `NAME-app`,
///   unless `spec.bootstrap.initdb.secret.name` gives the application
///   user's Secret, and `NAME-superuser` when `spec.enableSuperuserAccess`
///   is true and `spec.superuserSecret.name` gives none (the operator's
///   documentation, "Connecting from an application");
/// - a cert-manager Certificate (`cert-manager.io`): Secret
///   `spec.secretName`;
/// - an ObjectBucketClaim (`objectbucket.io`, Rook's and other bucket
///   provisioners): a Secret and a ConfigMap of its own name;
/// - a OnePasswordItem (`onepassword.com`): a Secret of its own name.
fn makes(r: &Resource, kind: &str, name: &str) -> bool {
    let gvk = r.gvk();
    let group = gvk.group.as_str();
    let own_name = || r.name() == name;
    match (kind, r.kind(), group) {
        ("Secret" | "ConfigMap", "ObjectBucketClaim", "objectbucket.io") => own_name(),
        ("Secret", "Cluster", "postgresql.cnpg.io") => {
            let set = |path: &[&str]| r.obj.get_str(path).is_some_and(|v| !v.is_empty());
            match name.strip_prefix(r.name()) {
                Some("-app") => !set(&["spec", "bootstrap", "initdb", "secret", "name"]),
                Some("-superuser") => {
                    r.obj.get_path(&["spec", "enableSuperuserAccess"]) == Some(&Node::Bool(true))
                        && !set(&["spec", "superuserSecret", "name"])
                }
                _ => false,
            }
        }
        ("Secret", "PostgresUser", "db.movetokube.com") => {
            r.obj.get_str(&["spec", "secretName"]).is_some_and(|s| {
                name == s
                    || name.strip_prefix(s).and_then(|rest| rest.strip_prefix('-'))
                        == Some(r.name())
            })
        }
        ("Secret", "Certificate", "cert-manager.io") => {
            r.obj.get_str(&["spec", "secretName"]) == Some(name)
        }
        ("Secret", "OnePasswordItem", "onepassword.com") => own_name(),
        ("Secret", "ExternalSecret", _) => {
            r.obj
                .get_str(&["spec", "target", "name"])
                .unwrap_or(r.name())
                == name
        }
        ("Secret", "SealedSecret", _) => {
            r.obj
                .get_str(&["spec", "template", "metadata", "name"])
                .unwrap_or(r.name())
                == name
        }
        _ => false,
    }
}

/// What `r` is, when it creates `kind` `name` in namespace `ns` at
/// runtime: an object of that namespace (`r_ns`, as the caller counts an
/// object's namespace) that [`makes`] it, or a cluster-wide maker that
/// reaches the namespace (see [`cluster_makes`]); e.g.
/// `ExternalSecret apps/db`, `ClusterExternalSecret shared`.
pub fn runtime_maker(
    r: &Resource,
    r_ns: &str,
    kind: &str,
    ns: &str,
    name: &str,
    namespace_labels: &dyn Fn(&str) -> Option<Node>,
) -> Option<String> {
    if r_ns == ns && makes(r, kind, name) {
        Some(format!("{} {ns}/{}", r.kind(), r.name()))
    } else if cluster_makes(r, kind, ns, name, namespace_labels) {
        Some(format!("{} {}", r.kind(), r.name()))
    } else {
        None
    }
}

/// Objects indexed for [`runtime_maker`] and for Reflector's sources, which
/// would otherwise each scan every object of the cluster: by namespace, the
/// cluster-wide makers ([`is_cluster_maker`]) apart, and by kind and name.
/// Lookups give objects in the order they were indexed in.
pub struct MakerIndex<'a> {
    /// (namespace as the caller counts it, object).
    objs: Vec<(&'a str, &'a Resource)>,
    by_ns: HashMap<&'a str, Vec<usize>>,
    cluster: Vec<usize>,
    by_kind_name: HashMap<(&'a str, &'a str), Vec<usize>>,
}

impl<'a> MakerIndex<'a> {
    pub fn new(objs: impl IntoIterator<Item = (&'a str, &'a Resource)>) -> MakerIndex<'a> {
        let objs: Vec<(&'a str, &'a Resource)> = objs.into_iter().collect();
        let mut by_ns: HashMap<&'a str, Vec<usize>> = HashMap::new();
        let mut cluster = Vec::new();
        let mut by_kind_name: HashMap<(&'a str, &'a str), Vec<usize>> = HashMap::new();
        for (i, (ns, r)) in objs.iter().enumerate() {
            by_ns.entry(*ns).or_default().push(i);
            if is_cluster_maker(r) {
                cluster.push(i);
            }
            by_kind_name
                .entry((r.kind(), r.name()))
                .or_default()
                .push(i);
        }
        MakerIndex {
            objs,
            by_ns,
            cluster,
            by_kind_name,
        }
    }

    /// [`runtime_maker`] of every object that may create `kind` `name` in
    /// `ns` (those of `ns` and the cluster-wide makers), in order.
    pub fn makers<'s>(
        &'s self,
        kind: &'s str,
        ns: &'s str,
        name: &'s str,
        namespace_labels: &'s dyn Fn(&str) -> Option<Node>,
    ) -> impl Iterator<Item = String> + 's {
        let mut at: Vec<usize> = self.by_ns.get(ns).cloned().unwrap_or_default();
        at.extend(&self.cluster);
        at.sort_unstable();
        at.dedup();
        at.into_iter().filter_map(move |i| {
            let (r_ns, r) = self.objs[i];
            runtime_maker(r, r_ns, kind, ns, name, namespace_labels)
        })
    }

    /// The objects of `kind` named `name` (in any namespace), in order.
    pub fn named<'s>(
        &'s self,
        kind: &'s str,
        name: &'s str,
    ) -> impl Iterator<Item = (&'a str, &'a Resource)> + 's {
        // (Looked up through the map with keys that may live shorter, as
        // the arguments do.)
        let by: &'s HashMap<(&'s str, &'s str), Vec<usize>> = &self.by_kind_name;
        let at: &'s [usize] = by.get(&(kind, name)).map_or(&[], Vec::as_slice);
        at.iter().map(|&i| self.objs[i])
    }
}

/// Whether `r` is of a kind [`cluster_makes`] knows: only those create
/// objects at runtime in namespaces other than their own.
fn is_cluster_maker(r: &Resource) -> bool {
    match r.kind() {
        "ClusterExternalSecret" => true,
        "Bundle" => r.gvk().group == "trust.cert-manager.io",
        _ => false,
    }
}

/// Whether `r`, a cluster-wide maker, creates `kind` `name` in namespace
/// `ns` at runtime:
/// - a ClusterExternalSecret: the ExternalSecret it makes (so a Secret)
///   in every namespace its `namespaces` lists or one of its selectors
///   (`namespaceSelectors`, the older `namespaceSelector`) matches;
/// - a trust-manager Bundle (`trust.cert-manager.io`): a ConfigMap
///   (`spec.target.configMap`) and a Secret (`spec.target.secret`) of its
///   own name in every namespace `spec.target.namespaceSelector` selects
///   (all without one).
///
/// A namespace's labels are those of its Namespace object when rendered
/// (`namespace_labels`), plus the `kubernetes.io/metadata.name` label
/// Kubernetes gives every namespace.
fn cluster_makes(
    r: &Resource,
    kind: &str,
    ns: &str,
    name: &str,
    namespace_labels: &dyn Fn(&str) -> Option<Node>,
) -> bool {
    if ns.is_empty() || !is_cluster_maker(r) {
        return false;
    }
    let spec = |path: &[&str]| r.obj.get_path(&[&["spec"][..], path].concat());
    let labels = || labels_of_namespace(ns, namespace_labels);
    match (kind, r.kind()) {
        ("Secret", "ClusterExternalSecret") => {
            let es_name = spec(&["externalSecretName"])
                .and_then(Node::scalar_text)
                .unwrap_or_else(|| r.name().to_string());
            let target = spec(&["externalSecretSpec", "target", "name"])
                .and_then(Node::scalar_text)
                .unwrap_or(es_name);
            if target != name {
                return false;
            }
            let listed = matches!(spec(&["namespaces"]), Some(Node::Seq(l))
                if l.iter().any(|n| n.scalar_text().as_deref() == Some(ns)));
            if listed {
                return true;
            }
            let labels = labels();
            let mut selectors: Vec<&Node> = Vec::new();
            if let Some(Node::Seq(l)) = spec(&["namespaceSelectors"]) {
                selectors.extend(l.iter());
            }
            if let Some(sel) = spec(&["namespaceSelector"]) {
                selectors.push(sel);
            }
            selectors
                .into_iter()
                .any(|sel| label_selector_matches(sel, &labels))
        }
        ("Secret" | "ConfigMap", "Bundle") if r.gvk().group == "trust.cert-manager.io" => {
            let field = if kind == "Secret" {
                "secret"
            } else {
                "configMap"
            };
            r.name() == name
                && matches!(spec(&["target", field]), Some(Node::Map(_)))
                && spec(&["target", "namespaceSelector"])
                    .is_none_or(|sel| label_selector_matches(sel, &labels()))
        }
        _ => false,
    }
}

/// The labels of namespace `ns`: those of its Namespace object when
/// rendered (`namespace_labels`), plus the `kubernetes.io/metadata.name`
/// label Kubernetes gives every namespace.
pub(crate) fn labels_of_namespace(
    ns: &str,
    namespace_labels: &dyn Fn(&str) -> Option<Node>,
) -> Node {
    let mut labels = namespace_labels(ns)
        .and_then(|n| n.get_path(&["metadata", "labels"]).cloned())
        .filter(|l| matches!(l, Node::Map(_)))
        .unwrap_or_else(Node::map);
    if let Some(m) = labels.as_map_mut() {
        m.insert("kubernetes.io/metadata.name", Node::Str(ns.to_string()));
    }
    labels
}

/// Whether a Kubernetes `LabelSelector` (`matchLabels`, `matchExpressions`
/// with `In`, `NotIn`, `Exists`, `DoesNotExist`) selects `labels`; an
/// empty selector selects everything, one Kubernetes would refuse nothing.
pub(crate) fn label_selector_matches(sel: &Node, labels: &Node) -> bool {
    let label = |k: &str| labels.get(k).and_then(Node::scalar_text);
    if !matches!(sel, Node::Map(_)) {
        return false;
    }
    if let Some(m) = sel.get("matchLabels") {
        let Node::Map(m) = m else { return false };
        if !m
            .iter()
            .all(|(k, v)| v.scalar_text().is_some() && label(k) == v.scalar_text())
        {
            return false;
        }
    }
    let Some(exprs) = sel.get("matchExpressions") else {
        return true;
    };
    let Node::Seq(exprs) = exprs else {
        return false;
    };
    exprs.iter().all(|e| {
        let Some(key) = e.get_str(&["key"]) else {
            return false;
        };
        let values: Vec<String> = match e.get("values") {
            Some(Node::Seq(v)) => v.iter().filter_map(Node::scalar_text).collect(),
            _ => Vec::new(),
        };
        let have = label(key);
        match e.get_str(&["operator"]) {
            Some("In") => !values.is_empty() && have.is_some_and(|h| values.contains(&h)),
            Some("NotIn") => !values.is_empty() && have.is_none_or(|h| !values.contains(&h)),
            Some("Exists") => values.is_empty() && have.is_some(),
            Some("DoesNotExist") => values.is_empty() && have.is_none(),
            _ => false,
        }
    })
}

/// The object that creates `kind` `name` in `namespace` at runtime, if any.
fn runtime_producer(known: &Known, kind: &str, namespace: &str, name: &str) -> Option<String> {
    let labels = |ns: &str| known.namespace_object(ns);
    known
        .all()
        .find_map(|r| runtime_maker(r, r.namespace(), kind, namespace, name, &labels))
}

fn strip_newlines(s: &str) -> String {
    s.replace('\n', "")
}

/// Sets variable `k` (replacing an earlier value), noting whether its
/// value came from a Secret.
fn set_var(
    vars: &mut Vec<(String, String)>,
    secret: &mut HashSet<String>,
    k: String,
    v: &str,
    from_secret: bool,
) {
    vars.retain(|(x, _)| *x != k);
    if from_secret {
        secret.insert(k.clone());
    } else {
        secret.remove(&k);
    }
    vars.push((k, strip_newlines(v)));
}

/// The variables a `kind` (ConfigMap or Secret) `name` holds, as
/// kustomize-controller reads them: `data` (a Secret's decoded), then a
/// Secret's `stringData`; with whether each came from a Secret (or from a
/// ConfigMap value that was itself substituted from one).
fn source_data(
    obj: &Resource,
    kind: &str,
    name: &str,
) -> Result<Vec<(String, String, bool)>, String> {
    let is_secret = kind == "Secret";
    let from_secret = |k: &str| {
        is_secret
            || crate::secret::covers(
                &obj.secret_paths,
                &[
                    crate::resource::PathElem::Key("data".into()),
                    crate::resource::PathElem::Key(k.into()),
                ],
            )
    };
    let mut out = Vec::new();
    if let Some(Node::Map(m)) = obj.obj.get("data") {
        for (k, v) in m.iter() {
            let s = v.scalar_text().unwrap_or_default();
            let text = if is_secret {
                crate::secret::decode_data(&s)
                    .map_err(|e| format!("Secret/{name}: data.{k} is not valid base64: {e}"))?
            } else {
                s
            };
            out.push((k.clone(), text, from_secret(k)));
        }
    }
    if let (true, Some(Node::Map(m))) = (is_secret, obj.obj.get("stringData")) {
        for (k, v) in m.iter() {
            out.push((k.clone(), v.scalar_text().unwrap_or_default(), true));
        }
    }
    Ok(out)
}

/// Variables in order of precedence, and the names among them whose value
/// came from a Secret.
type Vars = (Vec<(String, String)>, HashSet<String>);

/// Variables of `ks`, or why they cannot be had.
/// Why [`load_vars`] could not have the variables.
struct VarsError {
    message: String,
    /// This source (kind, name) was not among the objects rendered before.
    missing: Option<(String, String)>,
}

impl From<String> for VarsError {
    fn from(message: String) -> Self {
        VarsError {
            message,
            missing: None,
        }
    }
}

/// Where [`load_vars`] reports what it found: warnings, sources absent
/// offline, sources found only as the cluster settles.
struct VarsNotes<'r> {
    warnings: &'r mut Vec<String>,
    absent: &'r mut Vec<AbsentSource>,
    bootstrap: &'r mut Vec<BootstrapSource>,
}

/// The variables of `ks`'s post-build substitution. `tentative`: a
/// source found nowhere is taken as absent (as an optional one), to see
/// what the Kustomization leads to (see `render`).
fn load_vars(
    ks: &FluxKustomization,
    known: &Known,
    own: &[Resource],
    notes: VarsNotes,
    tentative: bool,
    webhooks: &[&Injection],
) -> Result<Vars, VarsError> {
    let VarsNotes {
        warnings,
        absent,
        bootstrap,
    } = notes;
    let mut vars: Vec<(String, String)> = Vec::new();
    // Names whose value comes from a Secret (or from a ConfigMap value that
    // was itself substituted from one).
    let mut secret: HashSet<String> = HashSet::new();
    for sf in &ks.substitute_from {
        // A source the Kustomization applies itself is in the cluster from
        // its first apply on (which fails, lacking it, and so needs the
        // source applied by hand once).
        let mine = || {
            own.iter().find(|r| {
                r.kind() == sf.kind
                    && r.name() == sf.name
                    && (r.namespace() == ks.namespace
                        || (r.namespace().is_empty() && ks.namespace == "default"))
            })
        };
        let found = match known.find(&sf.kind, &ks.namespace, &sf.name) {
            Some(o) => Some(o),
            None => mine()
                .inspect(|_| {
                warnings.push(format!(
                    "substituteFrom {}/{} is applied by this Kustomization itself: substituted from its rendered (unsubstituted) copy, as in a running cluster; a first apply on an empty cluster fails without it",
                    sf.kind, sf.name
                ));
                bootstrap.push(BootstrapSource {
                    kind: sf.kind.clone(),
                    name: sf.name.clone(),
                    by: ks.key(),
                });
            })
                .or_else(|| known.reflected(&sf.kind, &ks.namespace, &sf.name)),
        };
        let Some(obj) = found else {
            if sf.optional || tentative {
                absent.push(AbsentSource {
                    kind: sf.kind.clone(),
                    name: sf.name.clone(),
                    optional: true,
                    produced_by: None,
                    via: None,
                });
                warnings.push(format!(
                    "optional substituteFrom {}/{} is absent offline (not rendered in namespace {})",
                    sf.kind, sf.name, ks.namespace
                ));
                continue;
            }
            if let Some(p) = runtime_producer(known, &sf.kind, &ks.namespace, &sf.name) {
                absent.push(AbsentSource {
                    kind: sf.kind.clone(),
                    name: sf.name.clone(),
                    optional: false,
                    produced_by: Some(p.clone()),
                    via: None,
                });
                warnings.push(format!(
                    "substituteFrom {}/{} is produced at runtime by {p}: absent offline, rendered without its variables",
                    sf.kind, sf.name
                ));
                continue;
            }
            return Err(VarsError {
                message: format!(
                    "substitute from '{}/{}' error: not found in namespace '{}' among the objects rendered before this Kustomization",
                    sf.kind, sf.name, ks.namespace
                ),
                missing: Some((sf.kind.clone(), sf.name.clone())),
            });
        };
        if super::sops::is_encrypted(obj) {
            warnings.push(format!(
                "substituteFrom {}/{} is SOPS-encrypted and not decrypted offline: its variables are substituted with `{}`",
                sf.kind,
                sf.name,
                super::sops::PLACEHOLDER
            ));
        }
        for (k, v, from_secret) in source_data(obj, &sf.kind, &sf.name)? {
            set_var(&mut vars, &mut secret, k, &v, from_secret);
        }
    }
    for (k, v) in &ks.substitute {
        set_var(
            &mut vars,
            &mut secret,
            k.clone(),
            v,
            ks.secret_substitute.contains(k),
        );
    }
    // A kustomize-mutating-webhook's keys go into `substitute` at
    // admission, replacing the Kustomization's own.
    for inj in webhooks {
        for (k, v, from_secret) in &inj.vars {
            set_var(&mut vars, &mut secret, k.clone(), v, *from_secret);
        }
        absent.extend(inj.absent.iter().cloned());
        warnings.extend(inj.warnings.iter().cloned());
    }
    if let Some((bad, _)) = vars.iter().find(|(k, _)| !is_valid_var_name(k)) {
        return Err(format!(
            "'{bad}' var name is invalid, must match '^[_[:alpha:]][_[:alpha:][:digit:]]*$'"
        )
        .into());
    }
    Ok((vars, secret))
}

fn fail(mut r: KsReport, msg: impl Into<String>) -> KsReport {
    r.status = Status::Failed;
    r.message = msg.into();
    r.objects.clear();
    r
}

/// The warning of a Kustomization whose objects `labels` are
/// SOPS-encrypted and shown with placeholders.
pub fn encrypted_warning(labels: &[String]) -> String {
    format!(
        "SOPS-encrypted, not decrypted offline: {} (values shown as `{}`)",
        labels.join(", "),
        super::sops::PLACEHOLDER
    )
}

/// SOPS-encrypted objects: kustomize-controller decrypts them after the
/// build and before post-build substitution (`DecryptResource` in
/// kustomization_controller.go `build`); flate replaces their values with
/// the placeholder instead (see [`super::sops`]).
fn mask_encrypted(ks: &FluxKustomization, report: &mut KsReport, root: &Path) {
    let sops = ks
        .spec("decryption")
        .and_then(|d| d.get_str(&["provider"]))
        .is_some_and(|p| p == "sops");
    let mut masked: Vec<String> = Vec::new();
    let mut refused = Vec::new();
    for r in report.objects.iter_mut() {
        if !sops && super::sops::is_encrypted_secret(r) {
            refused.push(ObjectAt {
                object: r.cur_id(),
                origin: r.origin.clone(),
            });
        }
        if !super::sops::mask(r) {
            continue;
        }
        // A file encrypted whole (no `encrypted_regex`) has its kind and
        // name encrypted too: such an object is named by where it is.
        let label = if r.kind().starts_with("ENC[") || r.name().starts_with("ENC[") {
            match &r.origin.file {
                Some(f) => format!(
                    "an object whose kind or name is encrypted ({}:{})",
                    f.strip_prefix(root).unwrap_or(f).display(),
                    r.origin.line
                ),
                None => "an object whose kind or name is encrypted".to_string(),
            }
        } else if r.namespace().is_empty() {
            format!("{} {}", r.kind(), r.name())
        } else {
            format!("{} {}/{}", r.kind(), r.namespace(), r.name())
        };
        if !masked.contains(&label) {
            masked.push(label);
        }
    }
    report.refused_secrets = refused;
    if masked.is_empty() {
        return;
    }
    report.warnings.push(encrypted_warning(&masked));
    report.encrypted = masked;
    if let Some(first) = report.refused_secrets.first() {
        let named = first.named();
        report.warnings.push(format!(
            "no `spec.decryption` with provider sops: Flux fails this Kustomization and applies \
             none of its objects (\"Secret/{named} is SOPS encrypted, configuring decryption is \
             required for this secret to be reconciled\")"
        ));
    } else if !sops {
        report.warnings.push(
            "SOPS-encrypted objects but no `spec.decryption` with provider sops: Flux applies them \
             still encrypted"
                .to_string(),
        );
    }
}

/// Renders one Flux Kustomization against the objects `known` so far;
/// its report and the Flux Kustomizations among its objects.
/// `tentative`: a `substituteFrom` source found nowhere is taken as absent
/// (see [`load_vars`]).
fn render_one(
    sources: &Sources,
    ks: &FluxKustomization,
    known: &Known,
    opts: &RenderOptions,
    parent: Option<String>,
    tentative: bool,
) -> (KsReport, Vec<FluxKustomization>) {
    let mut report = KsReport {
        name: ks.name.clone(),
        namespace: ks.namespace.clone(),
        path: ks.path.trim_start_matches("./").to_string(),
        source: ks.source.clone(),
        in_repo: sources.rooted_in_repo(&ks.source),
        status: Status::Rendered,
        message: String::new(),
        depends_on: ks.depends_on.clone(),
        objects: Vec::new(),
        warnings: Vec::new(),
        origin: ks.origin.clone(),
        parent,
        unset_vars: Vec::new(),
        absent_sources: Vec::new(),
        bootstrap_sources: Vec::new(),
        unmatched_patches: Vec::new(),
        encrypted: Vec::new(),
        refused_secrets: Vec::new(),
        unexpanded: Vec::new(),
        retry: None,
    };
    if ks.suspend {
        report.status = Status::Skipped;
        report.message = "suspended (spec.suspend: true)".into();
        return (report, Vec::new());
    }
    let local;
    let generated;
    let artifact: &ArtifactFs = if sources.is_repo(&ks.source) {
        &sources.repo
    } else if let Some(a) = sources.local_artifact(&ks.source, known) {
        local = a;
        &local
    } else if let Some(g) = (ks.source.kind == "ExternalArtifact")
        .then(|| sources.generated(&ks.source, known, 0))
        .flatten()
    {
        match g {
            Ok(m) => {
                generated = m;
                local = ArtifactFs {
                    inner: &*generated,
                    root: generated.root().to_path_buf(),
                    ignore: Ignore::none(),
                };
                &local
            }
            Err(GenError::Unavailable(m)) => {
                report.status = Status::Skipped;
                report.message = m;
                return (report, Vec::new());
            }
            Err(GenError::Failed(m)) => return (fail(report, m), Vec::new()),
        }
    } else {
        report.status = Status::Skipped;
        report.message = match source_url(known, &ks.source) {
            Some(u) => external_source_message(&ks.source, &u),
            None => {
                let hint = maybe_this_repository(&sources.repo, ks);
                // Most likely the repository under another name: its
                // spec.path is read from here (for `flate diff`'s note on
                // the files a change touches under it).
                report.in_repo = !hint.is_empty();
                format!(
                    "external source {} (not found among rendered objects): not fetched offline{hint}",
                    ks.source,
                )
            }
        };
        return (report, Vec::new());
    };
    let root = artifact.root.as_path();
    let fs: &dyn FileSystem = artifact;
    let built = kustomization_for(fs, root, ks).and_then(|k| {
        let kz = Kustomizer::new(
            fs,
            BuildOptions {
                load_restrictor: LoadRestrictor::None,
                boundary: Some(root.to_path_buf()),
                enable_helm: false,
                remotes: opts.remotes.clone(),
            },
        );
        let m = kz.build_kustomization(&k);
        report.unmatched_patches = kz.take_unmatched();
        m
    });
    let m = match built {
        Ok(m) => m,
        Err(e) => {
            // kustomize-controller fetches remote resources; flate does not.
            if let Some(url) = remote_url(&e.message) {
                report.status = Status::Skipped;
                let named_in = match (&e.file, e.line) {
                    (Some(f), l) => {
                        let f = f.strip_prefix(root).unwrap_or(f).display().to_string();
                        l.map_or(f.clone(), |l| format!("{f}:{l}"))
                    }
                    _ => ks.path.clone(),
                };
                report.message = format!(
                    "remote resource {url}: not fetched offline (named in {named_in}; render it from a local copy with --remote {url}=PATH)"
                );
                return (report, Vec::new());
            }
            let msg = show_error(root, &e);
            return (fail(report, msg), Vec::new());
        }
    };
    report.objects = m.resources;
    mask_encrypted(ks, &mut report, root);
    let webhooks: Vec<&Injection> = if sources.webhooks.is_empty() {
        Vec::new()
    } else {
        let labels = labels_of_namespace(&ks.namespace, &|n| known.namespace_object(n));
        sources
            .webhooks
            .iter()
            .filter(|w| w.webhook.selects(&labels))
            .collect()
    };
    // (A webhook adds `postBuild` where there is none.)
    if ks.has_post_build || !webhooks.is_empty() {
        let notes = VarsNotes {
            warnings: &mut report.warnings,
            absent: &mut report.absent_sources,
            bootstrap: &mut report.bootstrap_sources,
        };
        let loaded = load_vars(ks, known, &report.objects, notes, tentative, &webhooks);
        let (vars, secret) = match loaded {
            Ok(v) => v,
            Err(VarsError {
                message: e,
                missing,
            }) => {
                // (Where the source is declared is looked up once the
                // cluster has settled, for the failures left: see
                // `explain_missing_sources`.)
                report.retry = missing;
                return (fail(report, e), Vec::new());
            }
        };
        report.message = report
            .absent_sources
            .iter()
            .filter_map(|a| {
                a.produced_by.as_ref().map(|p| {
                    let what = match a.via {
                        Some(_) => a.label(),
                        None => format!("substituteFrom {}/{}", a.kind, a.name),
                    };
                    format!("{what} absent offline (produced at runtime by {p})")
                })
            })
            .collect::<Vec<_>>()
            .join("; ");
        if !vars.is_empty() {
            let mut unset: Vec<String> = Vec::new();
            for r in report.objects.iter_mut() {
                if varsub::is_disabled(r) {
                    continue;
                }
                let id = r.cur_id();
                let is_secret = |name: &str| secret.contains(name);
                match varsub::substitute_tainted(r, &vars, opts.strict_substitute, &is_secret) {
                    Ok(out) => {
                        for u in out.unset {
                            report.unset_vars.push(UnsetVar {
                                name: u.clone(),
                                object: id.clone(),
                                origin: r.origin.clone(),
                            });
                            if !unset.contains(&u) {
                                unset.push(u);
                            }
                        }
                        // Named as substituted (the name may hold a variable).
                        let named = r.cur_id();
                        for t in out.retyped {
                            report
                                .warnings
                                .push(t.message(&named.gvk.kind, &named.name));
                        }
                    }
                    Err(e) => {
                        let msg = format!("{} {}: {e}", id.gvk.kind, id.name);
                        let msg = match substitution_source(fs, root, &r.origin, &e) {
                            Some(at) => format!("{at}: {msg}"),
                            None => msg,
                        };
                        return (fail(report, msg), Vec::new());
                    }
                }
            }
            for u in unset {
                report.warnings.push(format!(
                    "variable ${{{u}}} is not set: substituted with an empty string"
                ));
            }
        }
    }
    // kustomize-controller's `apply`, after the build and the substitution.
    super::helmrender::set_common_metadata(ks.spec("commonMetadata"), &mut report.objects);
    expand_resource_sets(&mut report, known);
    let children = report
        .objects
        .iter()
        .filter(|r| is_flux_kustomization(r))
        .map(FluxKustomization::from_resource)
        .collect();
    (report, children)
}

/// The objects the Flux Operator makes from the ResourceSets among the
/// Kustomization's objects, after them (its input providers are looked
/// for among its objects, then among those rendered before it); a
/// ResourceSet that cannot be expanded is a warning.
fn expand_resource_sets(report: &mut KsReport, known: &Known) {
    use super::resourceset::{self, NotExpanded};
    if !report.objects.iter().any(resourceset::is_resource_set) {
        return;
    }
    let candidates: Vec<&Resource> = report.objects.iter().chain(known.all()).collect();
    let mut made = Vec::new();
    for r in report
        .objects
        .iter()
        .filter(|r| resourceset::is_resource_set(r))
    {
        let key = model::key(r.namespace_or_default(), r.name());
        let paused = resourceset::disabled(r);
        let expanded = if paused {
            Err(NotExpanded::Offline(
                "its reconciliation is disabled (fluxcd.controlplane.io/reconcile: disabled)"
                    .into(),
            ))
        } else {
            resourceset::expand(r, &candidates)
        };
        match expanded {
            Ok(e) => {
                made.extend(e.objects);
                report.warnings.extend(
                    e.warnings
                        .into_iter()
                        .map(|w| format!("ResourceSet {key}: {w}")),
                );
            }
            Err(reason) => {
                report.warnings.push(match &reason {
                    NotExpanded::Offline(m) => {
                        format!("ResourceSet {key} not expanded: {m}")
                    }
                    NotExpanded::Invalid(m) => {
                        format!("ResourceSet {key} not expanded: the Flux Operator fails it: {m}")
                    }
                });
                report.unexpanded.push(Unexpanded {
                    key,
                    reason,
                    origin: r.origin.clone(),
                });
            }
        }
    }
    report.objects.extend(made);
}

/// An error message with paths relative to the repository.
/// Where the `substituteFrom` entry a substitution error names
/// (`substitute from 'Kind/name'`) is written: in the file that defines the
/// Flux Kustomization, else in the first YAML file of the repository that
/// declares it (a parent's patch that adds it), as `file:line`.
fn substitute_from_declaration(
    fs: &dyn FileSystem,
    repo: &Path,
    origin: &crate::resource::Origin,
    err: &str,
) -> Option<String> {
    let (_, rest) = err.split_once("substitute from '")?;
    let (kind_name, _) = rest.split_once('\'')?;
    let (_, name) = kind_name.split_once('/')?;
    let find = |text: &str| -> Option<usize> {
        let lines: Vec<&str> = text.lines().collect();
        let indent = |l: &str| l.len() - l.trim_start().len();
        for (i, l) in lines.iter().enumerate() {
            if l.trim_start().trim_start_matches("- ").trim_end() != "substituteFrom:" {
                continue;
            }
            for (j, m) in lines.iter().enumerate().skip(i + 1) {
                if !m.trim().is_empty()
                    && indent(m) <= indent(l)
                    && !m.trim_start().starts_with('-')
                {
                    break;
                }
                let t = m.trim_start().trim_start_matches("- ").trim();
                if t.strip_prefix("name:")
                    .is_some_and(|v| v.trim().trim_matches(['"', '\'']) == name)
                {
                    return Some(j + 1);
                }
            }
        }
        None
    };
    let show = |file: &Path, line: usize| {
        let rel = file.strip_prefix(repo).unwrap_or(file);
        format!("{}:{line}", rel.display())
    };
    if let Some(file) = origin.file.as_deref()
        && let Ok(text) = fs.read_to_string(file)
        && let Some(line) = find(&text)
    {
        return Some(show(file, line));
    }
    let mut found = None;
    walk_yaml(fs, repo, |p, text| {
        found = text
            .contains("substituteFrom")
            .then(|| find(text))
            .flatten()
            .map(|line| show(p, line));
        found.is_some()
    });
    found
}

/// Reads the YAML files (`.yaml`, `.yml`) under `root`, directory by
/// directory in name order, hidden files and directories and those the
/// repository's `.gitignore` files exclude left out, and gives each one's
/// path and text to `visit` until it returns `true` or 10,000 files have
/// been read.
fn walk_yaml(fs: &dyn FileSystem, root: &Path, visit: impl FnMut(&Path, &str) -> bool) {
    walk_files(
        fs,
        root,
        |n| n.ends_with(".yaml") || n.ends_with(".yml"),
        visit,
    );
}

/// The file names of YAML templates that bootstrap tooling renders
/// (Jinja, Go templates): `resources.yaml.j2`, `secret.sops.yaml.tmpl`.
fn is_yaml_template(name: &str) -> bool {
    [
        ".j2", ".jinja", ".jinja2", ".tmpl", ".templ", ".tpl", ".gotmpl",
    ]
    .iter()
    .any(|ext| name.ends_with(ext))
}

/// [`walk_yaml`] for the files whose name `accept` takes.
fn walk_files(
    fs: &dyn FileSystem,
    root: &Path,
    accept: impl Fn(&str) -> bool,
    mut visit: impl FnMut(&Path, &str) -> bool,
) {
    // Each directory with its path from the root and the `.gitignore`
    // patterns met on the way down: a directory they exclude is not
    // entered (nothing there is in the repository; see
    // `source::read_gitignore`).
    type Ignored = std::rc::Rc<Vec<super::source::Pattern>>;
    let mut dirs: Vec<(PathBuf, Vec<String>, Ignored)> =
        vec![(root.to_path_buf(), Vec::new(), Ignored::default())];
    let mut read = 0;
    while let Some((dir, domain, ignored)) = dirs.pop() {
        let Ok(names) = fs.list_typed(&dir) else {
            continue;
        };
        let mut more = Vec::new();
        super::source::read_gitignore(fs, &dir, &names, &domain, &mut more);
        let ignored = if more.is_empty() {
            ignored
        } else {
            let mut all = (*ignored).clone();
            all.extend(more);
            Ignored::new(all)
        };
        let mut subdirs = Vec::new();
        for (n, is_dir) in names {
            if n.starts_with('.') {
                continue;
            }
            let p = dir.join(&n);
            if is_dir {
                let mut sub = domain.clone();
                sub.push(n);
                if !super::source::git_excludes_dir(&ignored, &sub) {
                    subdirs.push((p, sub, ignored.clone()));
                }
                continue;
            }
            if !accept(&n) {
                continue;
            }
            read += 1;
            if read > 10_000 {
                return;
            }
            if let Ok(text) = fs.read_to_string(&p)
                && visit(&p, &text)
            {
                return;
            }
        }
        dirs.extend(subdirs.into_iter().rev());
    }
}

/// Where in the object's source file the expression a substitution error
/// quotes (`expression "${VAR"`) is written: `file:line`, the file
/// relative to the repository. The error's own line counts in the printed
/// object, which is not a file anyone edits.
fn substitution_source(
    fs: &dyn FileSystem,
    repo: &Path,
    origin: &crate::resource::Origin,
    err: &str,
) -> Option<String> {
    let file = origin.file.as_deref()?;
    let (_, rest) = err.split_once("expression \"")?;
    let expr = rest.rsplit_once("\" at line").map_or(rest, |(e, _)| e);
    let text = fs.read_to_string(file).ok()?;
    let line = text
        .lines()
        .enumerate()
        .skip(origin.line.saturating_sub(1))
        .find(|(_, l)| l.contains(expr))
        .map(|(i, _)| i + 1)?;
    let rel = file.strip_prefix(repo).unwrap_or(file);
    Some(format!("{}:{line}", rel.display()))
}

pub fn show_error(repo: &Path, e: &Error) -> String {
    let rel = |p: &Path| {
        p.strip_prefix(repo)
            .map(Path::to_path_buf)
            .unwrap_or_else(|_| p.to_path_buf())
    };
    let msg = e.message.replace(&format!("{}/", repo.display()), "");
    match (&e.file, e.line) {
        (Some(f), Some(l)) => format!("{}:{l}: {msg}", rel(f).display()),
        (Some(f), None) => format!("{}: {msg}", rel(f).display()),
        _ => msg,
    }
}

/// Where an external source is fetched from, when the cluster holds it:
/// a Bucket's `endpoint/bucketName`, the others' `url`.
fn source_url(known: &Known, source: &SourceRef) -> Option<String> {
    let s = known.find(&source.kind, &source.namespace, &source.name)?;
    let spec = |f: &str| s.obj.get_str(&["spec", f]).map(str::to_string);
    spec("url").or_else(|| {
        spec("endpoint").map(|e| match spec("bucketName") {
            Some(b) => format!("{e}/{b}"),
            None => e,
        })
    })
}

/// Why a Kustomization of the external source `source` (fetched from
/// `url`) is skipped.
fn external_source_message(source: &SourceRef, url: &str) -> String {
    format!(
        "external source {source} ({url}): not fetched offline (render it from a local copy with --source {source}=DIR)"
    )
}

/// The Kustomizations skipped for a source not among the objects rendered
/// when they were (a sibling renders it later in the same wave): their
/// message names the source's URL, once the cluster has settled.
fn name_late_sources(opts: &RenderOptions, reports: &mut [KsReport]) {
    const UNKNOWN: &str = "(not found among rendered objects)";
    if !reports
        .iter()
        .any(|r| r.status == Status::Skipped && r.message.contains(UNKNOWN))
    {
        return;
    }
    let updates: Vec<(usize, String)> = {
        let known = Known::build(&opts.preexisting, reports);
        reports
            .iter()
            .enumerate()
            .filter(|(_, r)| r.status == Status::Skipped && r.message.contains(UNKNOWN))
            .filter_map(|(i, r)| {
                source_url(&known, &r.source).map(|u| (i, external_source_message(&r.source, &u)))
            })
            .collect()
    };
    for (i, msg) in updates {
        reports[i].message = msg;
        reports[i].in_repo = false;
    }
}

fn check_depends_on(sources: &Sources, reports: &mut [KsReport]) {
    let keys: HashSet<String> = reports.iter().map(KsReport::key).collect();
    let graph: HashMap<String, Vec<String>> = reports
        .iter()
        .map(|r| (r.key(), r.depends_on.clone()))
        .collect();
    let files = RepoFiles::new(&sources.repo, &sources.repo.root);
    let mut warnings = Vec::new();
    for (i, r) in reports.iter().enumerate() {
        if r.status != Status::Rendered {
            continue;
        }
        if let Some(missing) = r.depends_on.iter().find(|d| !keys.contains(*d)) {
            // Defined under the path of a Kustomization skipped offline
            // (or failed, which is reported): in the cluster that one
            // applies it, and the dependent renders (with a warning) as it
            // does once the target is ready.
            let (ns, name) = missing.split_once('/').unwrap_or(("", missing));
            let msg = match unrendered_holder(&files, reports, "Kustomization", ns, name) {
                Some((file, by, status)) => Ok(format!(
                    "dependsOn target '{missing}' is not among the Kustomizations rendered offline: it is defined in {file}, which Kustomization {by} builds, {}",
                    unrendered_why(status)
                )),
                None => Err(format!(
                    "dependsOn target '{missing}' does not exist in this cluster"
                )),
            };
            warnings.push((i, msg));
        }
    }
    for (i, msg) in warnings {
        match msg {
            Ok(w) => reports[i].warnings.push(w),
            Err(e) => reports[i] = fail(reports[i].clone(), e),
        }
    }
    for r in reports.iter_mut() {
        if r.status != Status::Rendered {
            continue;
        }
        if let Some(cycle) = find_cycle(&r.key(), &graph) {
            let msg = format!("dependsOn cycle: {}", cycle.join(" -> "));
            *r = fail(r.clone(), msg);
        }
    }
}

/// For `ks`, rendered once every Kustomization had rendered: a warning for
/// each `substituteFrom` source that comes from a Kustomization it does not
/// wait for; and for one that comes only from a Kustomization that waits
/// for `ks` (through `dependsOn`, or as its descendant), a warning and a
/// [`BootstrapSource`]: on an empty cluster neither becomes ready until the
/// source is created by hand, in a running cluster it is there.
fn settled_sources(
    ks: &FluxKustomization,
    known: &Known,
    waits: &HashMap<String, Vec<String>>,
) -> Settled {
    let mut notes = Vec::new();
    let mut bootstrap = Vec::new();
    for sf in &ks.substitute_from {
        let Some(by) = known.applied_by(&sf.kind, &ks.namespace, &sf.name) else {
            continue;
        };
        if by == ks.key() {
            // Made at runtime by what it applies itself (a literal object
            // of its own was noted when its variables were read).
            bootstrap.push(BootstrapSource {
                kind: sf.kind.clone(),
                name: sf.name.clone(),
                by,
            });
            continue;
        }
        // (Waiting for it through `dependsOn` is how it should be: flate
        // only renders the two in one wave.)
        if reaches(&ks.key(), &by, waits) {
            continue;
        }
        if reaches(&by, &ks.key(), waits) {
            notes.push(format!(
                "substituteFrom {}/{} comes only from Kustomization {by}, which waits for this one (dependsOn, or created by it): rendered as in a running cluster that has it; on an empty cluster neither becomes ready until {}/{} is created by hand (at bootstrap)",
                sf.kind, sf.name, sf.kind, sf.name
            ));
            bootstrap.push(BootstrapSource {
                kind: sf.kind.clone(),
                name: sf.name.clone(),
                by,
            });
            continue;
        }
        notes.push(format!(
            "substituteFrom {}/{} comes from Kustomization {by}, which this one does not wait for (no dependsOn): rendered as the cluster settles; until {by} is applied, Flux fails this Kustomization",
            sf.kind, sf.name
        ));
    }
    (notes, bootstrap)
}

/// What [`settled_sources`] says of a Kustomization rendered as the
/// cluster settles: warnings, and sources found only that way.
type Settled = (Vec<String>, Vec<BootstrapSource>);

/// The outcome of rendering `list` again (`results`, in its order): each
/// failure replaces the one in `reports` (its latest reason) and is
/// returned to try again; each success is [`settle`]d. Also returns the
/// new children to render, and whether any rendered.
#[allow(clippy::type_complexity)]
fn apply(
    list: Vec<(usize, FluxKustomization)>,
    results: Vec<(KsReport, Vec<FluxKustomization>, Settled)>,
    reports: &mut [KsReport],
    seen: &mut HashSet<String>,
) -> (
    Vec<(usize, FluxKustomization)>,
    Vec<(FluxKustomization, Option<String>)>,
    bool,
) {
    let mut still = Vec::new();
    let mut wave = Vec::new();
    let mut progressed = false;
    for ((i, ks), (report, children, notes)) in list.into_iter().zip(results) {
        if report.status != Status::Rendered {
            reports[i] = report;
            still.push((i, ks));
            continue;
        }
        progressed = true;
        settle(&mut reports[i], report, notes, children, seen, &mut wave);
    }
    (still, wave, progressed)
}

/// Puts the report of a Kustomization rendered as the cluster settles in
/// place of its failure, with the notes of [`settled_sources`], and its
/// new children in `wave`.
fn settle(
    slot: &mut KsReport,
    mut report: KsReport,
    (notes, bootstrap): Settled,
    children: Vec<FluxKustomization>,
    seen: &mut HashSet<String>,
    wave: &mut Vec<(FluxKustomization, Option<String>)>,
) {
    report.warnings.splice(0..0, notes);
    for b in bootstrap {
        if !report
            .bootstrap_sources
            .iter()
            .any(|x| x.kind == b.kind && x.name == b.name)
        {
            report.bootstrap_sources.push(b);
        }
    }
    for c in children {
        if seen.insert(c.key()) {
            wave.push((c, Some(report.key())));
        }
    }
    *slot = report;
}

/// For each Kustomization that failed for a `substituteFrom` source found
/// nowhere: where the source is declared (`file:line: ` before the
/// message, as kustomize-controller's error has no position), and the
/// files of the repository that define such an object, which bootstrap
/// may create (`--settings` stands for them).
fn explain_missing_sources(sources: &Sources, opts: &RenderOptions, reports: &mut [KsReport]) {
    // (report index, kind, name) of each failure for a missing source.
    let failed: Vec<(usize, String, String)> = reports
        .iter()
        .enumerate()
        .filter(|(_, r)| r.status == Status::Failed)
        .filter_map(|(i, r)| r.retry.clone().map(|(kind, name)| (i, kind, name)))
        .collect();
    if failed.is_empty() {
        return;
    }
    // Kustomizations of the repository not rendered offline: what they
    // apply is unknown, and may be the missing source.
    let skipped: Vec<(String, String)> = reports
        .iter()
        .filter(|r| r.status == Status::Skipped && sources.is_repo(&r.source))
        .map(|r| (r.key(), r.path.clone()))
        .collect();
    // (message, whether the Kustomization is skipped rather than failed).
    let mut updates = Vec::new();
    {
        let known = Known::build(&opts.preexisting, reports);
        let files = RepoFiles::new(&sources.repo, &sources.repo.root);
        for (i, kind, name) in &failed {
            let r = &reports[*i];
            let local;
            let artifact: &ArtifactFs = if sources.is_repo(&r.source) {
                &sources.repo
            } else if let Some(a) = sources.local_artifact(&r.source, &known) {
                local = a;
                &local
            } else {
                &sources.repo
            };
            let mut msg = match substitute_from_declaration(
                artifact,
                &artifact.root,
                &r.origin,
                &r.message,
            ) {
                Some(at) => format!("{at}: {}", r.message),
                None => r.message.clone(),
            };
            let from_skipped = skipped.iter().find_map(|(by, path)| {
                let file = making_file(&sources.repo, path, kind, &r.namespace, name)?;
                Some(format!(
                    "; it may come from Kustomization {by}, which is not rendered offline and applies {file}, which makes it (render that Kustomization from a local copy, or give a file that defines {kind}/{name} to --settings)"
                ))
            });
            let skip = from_skipped.is_some();
            msg.push_str(
                &from_skipped.unwrap_or_else(|| where_defined(&files, kind, &r.namespace, name)),
            );
            updates.push((msg, skip));
        }
    }
    for ((i, _, _), (msg, skip)) in failed.into_iter().zip(updates) {
        reports[i].message = msg;
        if skip {
            // Not known to fail: what it needs is not rendered offline.
            reports[i].status = Status::Skipped;
        }
    }
}

/// For a Kustomization whose GitRepository is found nowhere: when no file
/// of the repository defines that source and the Kustomization's path is a
/// directory of the repository, the bootstrap most likely made it for this
/// repository under its own name (a Terraform or flux-operator bootstrap
/// outside the tree): say how to render it so.
fn maybe_this_repository(repo: &ArtifactFs, ks: &FluxKustomization) -> String {
    let src = &ks.source;
    if src.kind != "GitRepository" {
        return String::new();
    }
    let dir = crate::fs::normalize(&repo.root, &repo.root.join(&ks.path));
    if !dir.starts_with(&repo.root) || !repo.is_dir(&dir) {
        return String::new();
    }
    let files = RepoFiles::new(repo, &repo.root);
    if !defining_files(&files, &src.kind, &src.namespace, &src.name).is_empty()
        || defining_template(&files, &src.kind, &src.namespace, &src.name).is_some()
    {
        return String::new();
    }
    format!(
        "; no file of the repository defines it and spec.path {} is here: if the bootstrap makes it for this repository, render it with --source {src}=. from the repository's root (or `sources` in .flate.yaml)",
        ks.path
    )
}

/// Where a `substituteFrom` source found nowhere is defined in the
/// repository, for the failure's message: a YAML file no Kustomization
/// applies to `namespace`, else a bootstrap template, else nowhere; and
/// how `--settings` stands for it.
fn where_defined(repo: &RepoFiles, kind: &str, namespace: &str, name: &str) -> String {
    let files = defining_files(repo, kind, namespace, name);
    if !files.is_empty() {
        format!(
            "; {kind}/{name} is defined in {} but no Kustomization of this cluster applies it to namespace {namespace}: if it is created at bootstrap, give that file to --settings (or list it under `settings` in .flate.yaml)",
            files.join(", "),
        )
    } else if let Some(t) = defining_template(repo, kind, namespace, name) {
        format!(
            "; {kind}/{name} is defined only in {t}, a template that bootstrap renders: give the rendered file to --settings (or list it under `settings` in .flate.yaml)"
        )
    } else {
        format!(
            "; no file of the repository defines {kind}/{name}: if it is created in the cluster another way (at bootstrap, by hand, by an operator), give a file that defines it to --settings (or list it under `settings` in .flate.yaml)"
        )
    }
}

/// The YAML files and YAML templates of a repository, each list read once
/// when first asked for (in walk order, see [`walk_yaml`]): what the
/// messages about an object found nowhere search, for every such object.
pub struct RepoFiles<'a> {
    fs: &'a dyn FileSystem,
    root: PathBuf,
    yaml: std::cell::OnceCell<Vec<RepoFile>>,
    templates: std::cell::OnceCell<Vec<RepoFile>>,
    /// The YAML files by the values of their `name:` keys (see
    /// [`RepoFiles::naming`]).
    names: std::cell::OnceCell<HashMap<String, Vec<usize>>>,
    /// What a kustomize build of each directory reads (see
    /// [`RepoFiles::builds`]), by the directory as given.
    built: std::cell::RefCell<HashMap<String, Built>>,
}

/// The files a kustomize build of a directory reads: those its
/// kustomization files name (resources, patch files), and the directories
/// without a kustomization file whose files Flux's generated one takes.
#[derive(Default)]
struct Built {
    files: std::collections::HashSet<PathBuf>,
    whole_dirs: std::collections::HashSet<PathBuf>,
}

/// A file of [`RepoFiles`]: its path, its text, and its documents once
/// read (`None`: not YAML).
struct RepoFile {
    path: PathBuf,
    text: String,
    docs: std::cell::OnceCell<Option<Vec<crate::yaml::Document>>>,
}

impl RepoFile {
    fn docs(&self) -> Option<&[crate::yaml::Document]> {
        self.docs
            .get_or_init(|| crate::yaml::parse_stream(&self.text).ok())
            .as_deref()
    }
}

impl<'a> RepoFiles<'a> {
    /// The files under `root`, read through `fs`.
    pub fn new(fs: &'a dyn FileSystem, root: &Path) -> RepoFiles<'a> {
        RepoFiles {
            fs,
            root: root.to_path_buf(),
            yaml: std::cell::OnceCell::new(),
            templates: std::cell::OnceCell::new(),
            names: std::cell::OnceCell::new(),
            built: Default::default(),
        }
    }

    /// The YAML files, in walk order, with a `name:` key whose value
    /// (after spaces and an opening quote, up to a space, quote, comma,
    /// bracket or brace) is `name`: every file that can define an object
    /// so named, found without searching each file's text once per name.
    fn naming(&self, name: &str) -> impl Iterator<Item = &RepoFile> {
        let files = self.yaml();
        let names = self.names.get_or_init(|| {
            let mut m: HashMap<String, Vec<usize>> = HashMap::new();
            for (i, f) in files.iter().enumerate() {
                for (at, _) in f.text.match_indices("name:") {
                    let v = f.text[at + 5..].trim_start_matches([' ', '\t']);
                    let v = v.strip_prefix(['"', '\'']).unwrap_or(v);
                    let end = v
                        .find(|c: char| {
                            c.is_whitespace() || matches!(c, '"' | '\'' | ',' | ']' | '}' | '#')
                        })
                        .unwrap_or(v.len());
                    let ids = m.entry(v[..end].to_string()).or_default();
                    if ids.last() != Some(&i) {
                        ids.push(i);
                    }
                }
            }
            m
        });
        names
            .get(name)
            .into_iter()
            .flatten()
            .map(move |&i| &files[i])
    }

    fn read(&self, accept: fn(&str) -> bool) -> Vec<RepoFile> {
        let mut out = Vec::new();
        walk_files(self.fs, &self.root, accept, |p, text| {
            out.push(RepoFile {
                path: p.to_path_buf(),
                text: text.to_string(),
                docs: std::cell::OnceCell::new(),
            });
            false
        });
        out
    }

    /// The YAML files (`.yaml`, `.yml`).
    fn yaml(&self) -> &[RepoFile] {
        self.yaml
            .get_or_init(|| self.read(|n| n.ends_with(".yaml") || n.ends_with(".yml")))
    }

    /// The YAML templates ([`is_yaml_template`]).
    fn templates(&self) -> &[RepoFile] {
        self.templates.get_or_init(|| self.read(is_yaml_template))
    }

    /// A path relative to the repository root, for a message.
    fn rel(&self, p: &Path) -> String {
        p.strip_prefix(&self.root)
            .unwrap_or(p)
            .display()
            .to_string()
    }

    /// Whether a kustomize build of the directory `path` (relative to the
    /// root, a Flux Kustomization's `spec.path`) reads the file `file`
    /// (relative too) through the local `resources`, `components` and
    /// `bases` of its kustomization files, or as a patch file of one of
    /// them (a directory without one reads its files and those of the
    /// directories below, as Flux generates one). Remote entries are not
    /// followed. What a directory's build reads is found once.
    pub fn builds(&self, path: &str, file: &str) -> bool {
        let mut cache = self.built.borrow_mut();
        let built = cache
            .entry(path.to_string())
            .or_insert_with(|| self.build_inputs(path));
        let target = self.root.join(file);
        built.files.contains(&target)
            || target
                .parent()
                .is_some_and(|d| built.whole_dirs.contains(d))
    }

    /// What a kustomize build of `path` reads (see [`RepoFiles::builds`]).
    fn build_inputs(&self, path: &str) -> Built {
        const MAX_DIRS: usize = 2000;
        let mut out = Built::default();
        let mut queue = vec![crate::fs::normalize(&self.root, &self.root.join(path))];
        let mut seen = std::collections::HashSet::new();
        while let Some(dir) = queue.pop() {
            if !dir.starts_with(&self.root) || !seen.insert(dir.clone()) || seen.len() > MAX_DIRS {
                continue;
            }
            let Ok(Some(kfile)) = crate::kustomize::kustfile::find(self.fs, &dir) else {
                // Flux's generated kustomization: the files here, and each
                // directory below (built by its own kustomization file, or
                // taken in whole the same way).
                if let Ok(names) = self.fs.list(&dir) {
                    queue.extend(
                        names
                            .iter()
                            .map(|n| dir.join(n))
                            .filter(|p| self.fs.is_dir(p)),
                    );
                }
                out.whole_dirs.insert(dir);
                continue;
            };
            let Ok(text) = self.fs.read_to_string(&kfile) else {
                continue;
            };
            let Ok(docs) = crate::yaml::parse_stream(&text) else {
                continue;
            };
            let Some(doc) = docs.first() else { continue };
            let entries = |field: &str| match doc.node.get_path(&[field]) {
                Some(crate::yaml::Node::Seq(entries)) => entries.as_slice(),
                _ => &[],
            };
            // Patch files (an object's name may be a patch's).
            for field in ["patches", "patchesJson6902", "patchesStrategicMerge"] {
                out.files.extend(
                    entries(field)
                        .iter()
                        .filter_map(|e| e.as_str().or_else(|| e.get_str(&["path"])))
                        .map(|p| crate::fs::normalize(&self.root, &dir.join(p))),
                );
            }
            for field in ["resources", "components", "bases"] {
                for entry in entries(field).iter().filter_map(|e| e.as_str()) {
                    if entry.contains("://") || entry.starts_with("git@") || entry.contains("?ref=")
                    {
                        continue;
                    }
                    let p = crate::fs::normalize(&self.root, &dir.join(entry));
                    if self.fs.is_dir(&p) {
                        queue.push(p);
                    } else {
                        out.files.insert(p);
                    }
                }
            }
        }
        out
    }
}

/// Where `kind` `namespace/name`, which the environment does not render, is
/// defined in the repository of `files`: `defined in FILES, which no
/// Kustomization of this environment applies`, or `defined only in
/// TEMPLATE, a template that bootstrap renders`; `None` when no file
/// defines it. For the checks' messages (a `dependsOn` target).
pub fn defined_elsewhere(
    files: &RepoFiles,
    kind: &str,
    namespace: &str,
    name: &str,
) -> Option<String> {
    let found = defining_files(files, kind, namespace, name);
    if !found.is_empty() {
        return Some(format!(
            "defined in {}, which no Kustomization of this environment applies",
            found.join(", ")
        ));
    }
    defining_template(files, kind, namespace, name)
        .map(|t| format!("defined only in {t}, a template that bootstrap renders"))
}

/// The first file of the repository (relative to its root) defining
/// `kind` `namespace/name` that lies under the `spec.path` of a
/// Kustomization of the repository not rendered offline (skipped, or
/// failed), with that Kustomization's `namespace/name` and what became of
/// it: what it would apply, which flate did not render.
pub fn unrendered_holder(
    files: &RepoFiles,
    reports: &[KsReport],
    kind: &str,
    namespace: &str,
    name: &str,
) -> Option<(String, String, Status)> {
    let unrendered: Vec<&KsReport> = reports
        .iter()
        .filter(|k| k.status != Status::Rendered && k.in_repo)
        .collect();
    if unrendered.is_empty() {
        return None;
    }
    defining_files(files, kind, namespace, name)
        .into_iter()
        .find_map(|f| {
            let by = unrendered
                .iter()
                .find(|k| under(&f, &k.path) || files.builds(&k.path, &f))?;
            Some((f, by.key(), by.status))
        })
}

/// How a message names what became of a Kustomization not rendered.
pub fn unrendered_why(status: Status) -> &'static str {
    match status {
        Status::Failed => "which failed to render",
        _ => "which was skipped offline",
    }
}

/// Whether `file` (relative to the repository root) is under the
/// directory `path` (a Flux Kustomization's `spec.path`).
fn under(file: &str, path: &str) -> bool {
    let dir = path.trim_start_matches("./").trim_end_matches('/');
    dir.is_empty() || dir == "." || file.strip_prefix(dir).is_some_and(|r| r.starts_with('/'))
}

/// A file under `path` (relative to the repository root) holding an object
/// that is, or makes at runtime, `kind` `name` in `namespace` (or without
/// a namespace, which a `targetNamespace` may give it): an object of that
/// kind and name, or what [`makes`] it. The path
/// of the first such file, relative to the repository root.
fn making_file(
    repo: &ArtifactFs,
    path: &str,
    kind: &str,
    namespace: &str,
    name: &str,
) -> Option<String> {
    let root = repo.root.as_path();
    let dir = crate::fs::normalize(root, &root.join(path));
    if !dir.starts_with(root) {
        return None;
    }
    let mut found = None;
    walk_yaml(repo, &dir, |p, text| {
        if !text.contains(name) {
            return false;
        }
        let Ok(docs) = crate::yaml::parse_stream(text) else {
            return false;
        };
        let makes = docs.into_iter().any(|d| {
            let r = Resource::new(d.node, Origin::default());
            let ns = r.namespace();
            (ns.is_empty() || ns == namespace)
                && ((r.kind() == kind && r.name() == name) || makes(&r, kind, name))
        });
        if makes {
            found = Some(p.strip_prefix(root).unwrap_or(p).display().to_string());
        }
        makes
    });
    found
}

/// The files of the repository (paths relative to its root; at most
/// three, in walk order: see [`walk_yaml`]) that define an object of
/// `kind` named `name` in `namespace` (else, when there is none, without a
/// namespace): where a `substituteFrom` source found nowhere may be kept
/// for bootstrap.
pub fn defining_files(files: &RepoFiles, kind: &str, namespace: &str, name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut unnamespaced = Vec::new();
    let kind_line = format!("kind: {kind}");
    for f in files.naming(name) {
        if !f.text.contains(&kind_line) {
            continue;
        }
        let Some(docs) = f.docs() else {
            continue;
        };
        let p = &f.path;
        // The first object of that kind and name in this namespace or in
        // none.
        let ns = docs
            .iter()
            .filter(|d| {
                d.node.get_str(&["kind"]) == Some(kind)
                    && d.node.get_str(&["metadata", "name"]) == Some(name)
            })
            .map(|d| d.node.get_str(&["metadata", "namespace"]))
            .find(|ns| ns.is_none_or(|ns| ns == namespace));
        match ns {
            Some(Some(_)) => out.push(files.rel(p)),
            Some(None) if unnamespaced.len() < 3 => unnamespaced.push(files.rel(p)),
            _ => {}
        }
        if out.len() == 3 {
            break;
        }
    }
    if out.is_empty() { unnamespaced } else { out }
}

/// The first YAML template of the repository ([`is_yaml_template`]; its
/// path relative to the repository root) with a document that defines
/// `kind` `name` in `namespace` or without a namespace. A template is not
/// YAML until rendered: a document (between `---` lines) counts when it
/// has the lines `kind: KIND` and `name: NAME`, and no `namespace:` line
/// naming another namespace.
fn defining_template(files: &RepoFiles, kind: &str, namespace: &str, name: &str) -> Option<String> {
    let line_is = |doc: &str, key: &str, value: &str| {
        doc.lines().any(|l| {
            l.trim()
                .strip_prefix(key)
                .and_then(|v| v.strip_prefix(':'))
                .map(|v| v.trim().trim_matches(['"', '\'']))
                == Some(value)
        })
    };
    files.templates().iter().find_map(|f| {
        if !f.text.contains(name) {
            return None;
        }
        let defines = f.text.split("\n---").any(|doc| {
            let other_ns = doc.lines().any(|l| {
                l.trim()
                    .strip_prefix("namespace:")
                    .is_some_and(|v| v.trim().trim_matches(['"', '\'']) != namespace)
            });
            line_is(doc, "kind", kind) && line_is(doc, "name", name) && !other_ns
        });
        defines.then(|| files.rel(&f.path))
    })
}

/// What each Kustomization waits for: its `dependsOn` and its parent.
fn waits_of(reports: &[KsReport]) -> HashMap<String, Vec<String>> {
    reports
        .iter()
        .map(|r| {
            let mut w = r.depends_on.clone();
            w.extend(r.parent.clone());
            (r.key(), w)
        })
        .collect()
}

/// Whether `from` reaches `to` along `edges` (what each one waits for).
fn reaches(from: &str, to: &str, edges: &HashMap<String, Vec<String>>) -> bool {
    let mut seen: HashSet<&str> = HashSet::new();
    let mut stack = vec![from];
    while let Some(cur) = stack.pop() {
        if cur == to {
            return true;
        }
        if seen.insert(cur) {
            stack.extend(edges.get(cur).into_iter().flatten().map(String::as_str));
        }
    }
    false
}

/// A dependsOn chain from `start` back to itself, if any.
fn find_cycle(start: &str, graph: &HashMap<String, Vec<String>>) -> Option<Vec<String>> {
    fn dfs(
        cur: &str,
        start: &str,
        graph: &HashMap<String, Vec<String>>,
        path: &mut Vec<String>,
        seen: &mut HashSet<String>,
    ) -> bool {
        for next in graph.get(cur).map(Vec::as_slice).unwrap_or(&[]) {
            if next == start {
                path.push(next.clone());
                return true;
            }
            if seen.insert(next.clone()) {
                path.push(next.clone());
                if dfs(next, start, graph, path, seen) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let mut path = vec![start.to_string()];
    let mut seen = HashSet::new();
    dfs(start, start, graph, &mut path, &mut seen).then_some(path)
}

/// Resolves and renders every HelmRelease of `reports` (see
/// [`super::helmrender`]).
fn render_helmreleases(
    sources: &Sources,
    reports: &[KsReport],
    opts: &RenderOptions,
    repo: &Path,
) -> Vec<HelmReleaseReport> {
    use super::helmrender::{
        self, CrdInfo, Located, SourceChart, SourceValuesFile, ValuesFileContent,
    };
    let mut hrs = helm::resolve_all(reports, &opts.preexisting, &|s| sources.is_repo(s));
    if hrs.is_empty() {
        return hrs;
    }
    let cache = super::charts::ChartCache::scan(&opts.helm.chart_dirs, repo);
    let known = Known::build(&opts.preexisting, reports);
    let source_chart = |kind: &str, ns: &str, name: &str, path: &str, values: &[String]| {
        let src = SourceRef {
            kind: kind.to_string(),
            name: name.to_string(),
            namespace: ns.to_string(),
        };
        let local;
        let artifact: &ArtifactFs = if sources.is_repo(&src) {
            &sources.repo
        } else if let Some(a) = sources.local_artifact(&src, &known) {
            local = a;
            &local
        } else {
            return Ok(Err((
                format!(
                    "chart {path} of external source {src}: not fetched offline (render it from a local copy with --source {src}=DIR)"
                ),
                None,
            )));
        };
        let dir = crate::fs::normalize(&artifact.root, Path::new(path.trim_start_matches('/')));
        if !dir.starts_with(&artifact.root) {
            return Err(format!("chart path '{path}' leaves the root of {src}"));
        }
        let fs: &dyn FileSystem = artifact;
        if !fs.is_file(&dir.join("Chart.yaml")) {
            return Err(format!(
                "chart path '{path}' of {src}: no Chart.yaml in {}",
                dir.strip_prefix(repo).unwrap_or(&dir).display()
            ));
        }
        let mut files = helmrender::read_chart_dir(fs, &dir)
            .map_err(|e| format!("chart path '{path}' of {src}: {e}"))?;
        // The dependencies source-controller adds when it packages the
        // chart.
        let chart_rel = dir
            .strip_prefix(&artifact.root)
            .unwrap_or(&dir)
            .to_string_lossy()
            .replace('\\', "/");
        let read_dir = |rel: &str| {
            let d = artifact.root.join(rel);
            fs.is_dir(&d)
                .then(|| helmrender::read_chart_dir(fs, &d).ok())
                .flatten()
        };
        if let Err((why, pull)) =
            helmrender::vendor_dependencies(&mut files, &chart_rel, &read_dir, &cache)
                .map_err(|e| format!("chart path '{path}' of {src}: {e}"))?
        {
            return Ok(Err((why, Some(pull))));
        }
        // valuesFiles: relative to the artifact's root, `..` clamped to it
        // (securejoin), as source-controller reads them.
        let values_files = values
            .iter()
            .map(|reference| {
                let rel = helmrender::secure_rel(reference);
                let p = artifact.root.join(&rel);
                let content = if fs.is_file(&p) {
                    match fs.read(&p) {
                        Ok(b) => ValuesFileContent::Found(b),
                        Err(_) => ValuesFileContent::NotRegular,
                    }
                } else if fs.is_dir(&p) {
                    ValuesFileContent::NotRegular
                } else {
                    ValuesFileContent::Missing
                };
                SourceValuesFile {
                    reference: reference.clone(),
                    shown: format!("/{rel}"),
                    content,
                }
            })
            .collect();
        Ok(Ok(SourceChart {
            label: format!("{src} {path}"),
            files,
            values_files,
            archive: false,
        }))
    };
    // An ExternalArtifact of `spec.chartRef`: a `--source` copy, or the
    // artifact an ArtifactGenerator of the environment makes; loaded as
    // helm-controller loads it, as a chart archive.
    let artifact_chart = |kind: &str, ns: &str, name: &str| {
        let src = SourceRef {
            kind: kind.to_string(),
            name: name.to_string(),
            namespace: ns.to_string(),
        };
        let read = |fs: &dyn FileSystem, root: &Path| {
            helmrender::read_chart_dir(fs, root).map_err(|e| format!("{src}: {e}"))
        };
        let files = if let Some(a) = sources.local_artifact(&src, &known) {
            read(&a, &a.root)?
        } else {
            match sources.generated(&src, &known, 0) {
                Some(Ok(m)) => read(&*m, m.root())?,
                Some(Err(GenError::Unavailable(why))) => return Ok(Err(why)),
                Some(Err(GenError::Failed(e))) => return Err(e),
                None => {
                    return Ok(Err(format!(
                        "{src} is made in the cluster (no ArtifactGenerator of this environment makes it), so its chart is unknown offline: render it from a local copy of the artifact with --source {src}=DIR"
                    )));
                }
            }
        };
        Ok(Ok(SourceChart {
            label: src.to_string(),
            files,
            values_files: Vec::new(),
            archive: true,
        }))
    };
    let located: Vec<Located> = hrs
        .iter()
        .map(|h| helmrender::locate(h, &cache, &source_chart, &artifact_chart))
        .collect();
    for (h, l) in hrs.iter_mut().zip(&located) {
        // For `flate get charts`: what the release lacks is fetched so.
        if let Located::Missing(_, Some(p)) = l {
            h.chart.pull = p.clone();
        } else if let Some(p) = h.chart.request.as_ref().and_then(|r| r.pull_command()) {
            h.chart.pull = p;
        }
    }
    let mut crds = CrdInfo::default();
    // The cluster's discovery lists the stable built-in versions of its
    // Kubernetes version, some of which client-go's scheme (Helm's
    // defaults) lacks: `apiregistration.k8s.io/v1`.
    if let Some(v) = &opts.helm.kube_version
        && let Ok(builtin) = crate::check::schema::stable_api_versions(v)
    {
        let defaults = crate::helm::chart::DEFAULT_API_VERSIONS;
        crds.api_versions = builtin
            .iter()
            .filter(|a| !defaults.contains(&a.as_str()))
            .cloned()
            .collect();
    }
    for k in reports.iter().filter(|k| k.status == Status::Rendered) {
        for o in &k.objects {
            crds.add(o);
        }
    }
    let mut helm_opts = opts.helm.clone();
    // The objects that exist before the render (`--settings`) first: a
    // FluxInstance applied from outside the repository can be given so.
    // (Read only when some release's chart could be tracked: one of an
    // OCIRepository that pins a digest.)
    let trackable = hrs
        .iter()
        .any(|h| h.chart.kind == "OCIRepository" && !h.chart.digest.is_empty());
    helm_opts.digest_tracking_disabled = trackable
        && helmrender::digest_tracking_disabled(
            opts.preexisting.iter().chain(
                reports
                    .iter()
                    .filter(|k| k.status == Status::Rendered)
                    .flat_map(|k| &k.objects),
            ),
        );
    helmrender::render_all(&mut hrs, &located, &helm_opts, crds, repo);
    // Messages name files relative to the repository.
    let prefix = format!("{}/", repo.display());
    for h in hrs.iter_mut() {
        if h.message.contains(&prefix) {
            h.message = h.message.replace(&prefix, "");
        }
    }
    hrs
}

/// Renders the cluster whose entry directory is `entry` (relative to `repo`).
pub fn render(
    fs: &dyn FileSystem,
    repo: &Path,
    entry: &str,
    cluster: &str,
    opts: &RenderOptions,
) -> Result<Rendered, Error> {
    let repo: PathBuf = repo.to_path_buf();
    let raw = fs;
    // Nothing outside the repository is read, through a symlink or not.
    let confined = crate::fs::Confined::new(raw, &repo);
    let mut sources = Sources {
        fs: raw,
        repo: ArtifactFs {
            inner: &confined,
            root: repo.clone(),
            ignore: opts
                .repo_ignore
                .clone()
                .unwrap_or_else(|| Ignore::git(&confined, &repo, None)),
        },
        root_source: None,
        local: &opts.sources,
        local_is_repo: {
            let canonical = std::fs::canonicalize(&repo).ok();
            opts.sources
                .iter()
                .map(|l| {
                    l.dir == repo
                        || canonical
                            .as_ref()
                            .is_some_and(|c| std::fs::canonicalize(&l.dir).ok().as_ref() == Some(c))
                })
                .collect()
        },
        ignores: Default::default(),
        artifacts: Default::default(),
        webhooks: Vec::new(),
        chart_dirs: &opts.helm.chart_dirs,
        chart_cache: Default::default(),
    };
    let entry_dir = crate::fs::normalize(&repo, Path::new(entry));
    if !sources.repo.is_dir(&entry_dir) {
        return Err(Error::at(
            &entry_dir,
            format!(
                "the entry directory '{entry}' does not exist in {}",
                repo.display()
            ),
        ));
    }
    let timings = std::env::var_os("FLATE_TIMINGS").is_some();
    let t0 = std::time::Instant::now();
    let first_ignore = sources.repo.ignore.clone();
    let mut reports = render_until_settled(&mut sources, raw, &repo, entry, opts, timings);
    // kustomize-mutating-webhook: the variables it writes into the
    // Kustomizations it selects are known once the cluster has settled
    // (the webhook, its ConfigMaps and Secrets rendered); the cluster
    // settles again with them, as Flux reapplies every Kustomization.
    let webhooks = webhook_injections(&sources, &reports, opts);
    if !webhooks.is_empty() {
        sources.root_source = None;
        sources.repo.ignore = first_ignore;
        sources.webhooks = webhooks;
        reports = render_until_settled(&mut sources, raw, &repo, entry, opts, timings);
    }
    let sources = &sources;
    let th = std::time::Instant::now();
    let helmreleases = render_helmreleases(sources, &reports, opts, &repo);
    if timings {
        eprintln!(
            "timing: {} HelmReleases {:.1} ms",
            helmreleases.len(),
            th.elapsed().as_secs_f64() * 1e3
        );
    }
    if timings {
        eprintln!("timing: render {:.1} ms", t0.elapsed().as_secs_f64() * 1e3);
    }
    Ok(Rendered {
        cluster: cluster.to_string(),
        root: entry.to_string(),
        kustomizations: reports,
        helmreleases,
        settings: opts.preexisting.clone(),
    })
}

/// Renders every Kustomization from the entry on, as often as the cluster
/// takes to settle (see below): their reports, in the order found.
fn render_until_settled(
    sources: &mut Sources,
    raw: &dyn FileSystem,
    repo: &Path,
    entry: &str,
    opts: &RenderOptions,
    timings: bool,
) -> Vec<KsReport> {
    let made_up = root_kustomization(entry);
    let (mut first, mut children) = {
        let known = Known::build(&opts.preexisting, &[]);
        render_one(sources, &made_up, &known, opts, None, false)
    };
    let adopted = adopt_root(&children, entry).cloned();
    if let Some(a) = &adopted {
        sources.root_source = Some(a.source.clone());
    } else if let Some(s) = flux_instance_source(&first.objects, entry) {
        sources.root_source = Some(s);
    }
    // The repository's own GitRepository may narrow its artifact with
    // `spec.ignore` (`/*` then `!/kubernetes` is common): known only once
    // the entry has rendered it.
    let spec_ignore = first
        .objects
        .iter()
        .find(|o| {
            o.kind() == "GitRepository"
                && o.gvk().group == model::SOURCE_GROUP
                && sources.is_repo(&SourceRef {
                    kind: "GitRepository".into(),
                    name: o.name().to_string(),
                    namespace: o.namespace().to_string(),
                })
        })
        .and_then(|o| o.obj.get_str(&["spec", "ignore"]).map(str::to_string));
    if let Some(ig) = &spec_ignore {
        sources.repo.ignore = Ignore::git(raw, repo, Some(ig));
    }
    if adopted.is_some() || spec_ignore.is_some() {
        // The adopted root's postBuild sees the cluster as it is once the
        // entry is applied: the objects of the first render exist (a
        // `substituteFrom` ConfigMap the entry itself defines, as in
        // every self-managing repository).
        let mut pre = opts.preexisting.clone();
        pre.extend(first.objects.iter().cloned());
        let known = Known::build(&pre, &[]);
        let root = adopted.as_ref().unwrap_or(&made_up);
        (first, children) = render_one(sources, root, &known, opts, None, false);
    }
    let sources = &*sources;
    let mut seen: HashSet<String> = HashSet::from([first.key()]);
    let mut wave: Vec<(FluxKustomization, Option<String>)> = Vec::new();
    for c in children {
        if seen.insert(c.key()) {
            wave.push((c, Some(first.key())));
        }
    }
    let mut reports: Vec<KsReport> = vec![first];
    // Kustomizations that failed for a `substituteFrom` source not rendered
    // before them, by report index.
    let mut pending: Vec<(usize, FluxKustomization)> = Vec::new();
    let waves = |mut wave: Vec<(FluxKustomization, Option<String>)>,
                 reports: &mut Vec<KsReport>,
                 seen: &mut HashSet<String>,
                 pending: &mut Vec<(usize, FluxKustomization)>,
                 tentative: bool| {
        while !wave.is_empty() {
            let tw = std::time::Instant::now();
            let known = Known::build(&opts.preexisting, reports);
            let results: Vec<(KsReport, Vec<FluxKustomization>)> = wave
                .par_iter()
                .map(|(ks, parent)| {
                    render_one(sources, ks, &known, opts, parent.clone(), tentative)
                })
                .collect();
            drop(known);
            let mut next = Vec::new();
            for ((report, children), (ks, _)) in results.into_iter().zip(&wave) {
                for c in children {
                    if seen.insert(c.key()) {
                        next.push((c, Some(report.key())));
                    }
                }
                if report.retry.is_some() {
                    pending.push((reports.len(), ks.clone()));
                }
                reports.push(report);
            }
            if timings {
                eprintln!(
                    "timing: wave of {} Kustomizations {:.1} ms",
                    wave.len(),
                    tw.elapsed().as_secs_f64() * 1e3
                );
            }
            wave = next;
        }
    };
    waves(wave, &mut reports, &mut seen, &mut pending, false);
    // A running cluster reconciles again and again: a Kustomization whose
    // source another one applies, though not before it (no `dependsOn`),
    // fails until that one is applied, then renders. Rendered again with
    // every object of the cluster, as often as that makes progress.
    // Renders `list` again against every object of `cluster`, each with the
    // notes of where its sources came from.
    type Round = Vec<(KsReport, Vec<FluxKustomization>, Settled)>;
    let again = |cluster: &[KsReport], list: &[(usize, FluxKustomization)]| -> Round {
        let known = Known::build(&opts.preexisting, cluster);
        let waits = waits_of(cluster);
        list.par_iter()
            .map(|(i, ks)| {
                let parent = cluster[*i].parent.clone();
                let (r, c) = render_one(sources, ks, &known, opts, parent, false);
                let notes = match r.status {
                    Status::Rendered => settled_sources(ks, &known, &waits),
                    _ => Default::default(),
                };
                (r, c, notes)
            })
            .collect()
    };
    loop {
        let mut stuck = Vec::new();
        while !pending.is_empty() {
            let results = again(&reports, &pending);
            let list = std::mem::take(&mut pending);
            let (still, wave, progressed) = apply(list, results, &mut reports, &mut seen);
            // Those still failing may find what this round rendered.
            if progressed {
                pending = still;
            } else {
                stuck = still;
            }
            waves(wave, &mut reports, &mut seen, &mut pending, false);
        }
        if stuck.is_empty() {
            break;
        }
        // What no Kustomization renders may come from one that waits for
        // the Kustomization that needs it (a descendant, as a
        // ClusterExternalSecret an app of `cluster-apps` applies, or one
        // whose `dependsOn` leads to it): in a running cluster it is there.
        // The stuck ones are rendered tentatively, their sources found
        // nowhere taken as absent, with all they lead to; then for real,
        // against every object of that tentative cluster (their failure
        // then is the one they keep).
        let mut scratch = reports.clone();
        let mut scratch_seen = seen.clone();
        let mut wave = Vec::new();
        {
            let known = Known::build(&opts.preexisting, &reports);
            let results: Vec<_> = stuck
                .par_iter()
                .map(|(i, ks)| {
                    render_one(sources, ks, &known, opts, reports[*i].parent.clone(), true)
                })
                .collect();
            for ((i, _), (r, children)) in stuck.iter().zip(results) {
                for c in children {
                    if scratch_seen.insert(c.key()) {
                        wave.push((c, Some(r.key())));
                    }
                }
                scratch[*i] = r;
            }
        }
        waves(wave, &mut scratch, &mut scratch_seen, &mut Vec::new(), true);
        let results = again(&scratch, &stuck);
        drop(scratch);
        let (_, wave, _) = apply(stuck, results, &mut reports, &mut seen);
        if wave.is_empty() && pending.is_empty() {
            break;
        }
        waves(wave, &mut reports, &mut seen, &mut pending, false);
    }
    explain_missing_sources(sources, opts, &mut reports);
    name_late_sources(opts, &mut reports);
    check_depends_on(sources, &mut reports);
    reports
}
