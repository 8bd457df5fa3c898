//! Rendering HelmReleases the way helm-controller installs them, offline.
//!
//! Facts from fluxcd/helm-controller (`internal/action/install.go`,
//! `internal/action/crds.go`, `internal/postrender/*`,
//! `internal/release/name.go`):
//!
//! * the release is named `ShortenName(GetReleaseName())` (see
//!   [`super::helm::release_name`]) and installed into `targetNamespace`,
//!   else the HelmRelease's namespace;
//! * the chart's `crds/` are applied by helm-controller itself before the
//!   install, per `spec.install.crds` (`Create` by default, `CreateReplace`,
//!   `Skip`: none), each labelled with the origin labels below and not
//!   post-rendered; Helm itself skips them (`SkipCRDs`). The upgrade
//!   applies them per `spec.upgrade.crds` (also `Create` by default in
//!   helm-controller v2's code, whatever the API comment says); flate
//!   renders the install but rejects an invalid policy in either field,
//!   as helm-controller would on that action;
//! * the post-renderers run in this order: every `spec.postRenderers[]
//!   .kustomize` (a kustomize build of the rendered manifests with its
//!   `patches` and `images`; v2beta1's `patchesStrategicMerge` and
//!   `patchesJson6902` are honoured too), then `spec.commonMetadata`
//!   (labels, then annotations, on `metadata` of every object), then the
//!   origin labels `helm.toolkit.fluxcd.io/name` and
//!   `helm.toolkit.fluxcd.io/namespace` (the HelmRelease's name and
//!   namespace), which win over a common label of the same key;
//! * hooks go through the post-renderers with the other manifests
//!   (`postRenderStrategy: combined`, the default; `nohooks` leaves them
//!   out of the post-renderers);
//! * tests are not installed (they run with `helm test`).
//!
//! flate renders the install (not an upgrade): `.Release.IsInstall` is
//! true. `.Capabilities.KubeVersion` is the environment's Kubernetes
//! version and `.Capabilities.APIVersions` holds, besides the built-in
//! ones, the group/version and group/version/kind of every
//! CustomResourceDefinition the environment renders.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::fs::FileSystem;
use crate::helm::chart::values::{from_node, merge_maps};
use crate::resource::{Origin, PathElem, Resource};
use crate::template::Value;
use crate::yaml::{Map, Node};

use super::charts::{ChartCache, ChartRequest};
use super::helm::{HelmReleaseReport, HrStatus};

/// The chart engine.
mod engine {
    pub use crate::helm::chart::{Chart, RenderOptions, load, load_archive_entries, render};
}

/// Options of chart rendering (from the command line and `.flate.yaml`).
#[derive(Debug, Clone, Default)]
pub struct HelmOptions {
    /// Chart cache directories, in order of preference.
    pub chart_dirs: Vec<PathBuf>,
    /// A chart that is not available offline is an error, not a skip.
    pub require_charts: bool,
    /// `.Capabilities.KubeVersion` (`X.Y` or `vX.Y.Z`); None: the engine's
    /// default.
    pub kube_version: Option<String>,
    /// helm-controller runs with its `DisableChartDigestTracking` feature
    /// gate (see [`digest_tracking_disabled`]): charts keep their versions.
    pub digest_tracking_disabled: bool,
}

/// Whether the environment sets helm-controller's
/// `DisableChartDigestTracking` feature gate: the text of some object
/// that configures helm-controller says `DisableChartDigestTracking=true`,
/// as `--feature-gates=…` does, and none says it is false after it. Those
/// objects: a FluxInstance (its kustomize patches), a HelmRelease (the
/// values of flux-operator's `flux-instance` chart), a ConfigMap or Secret
/// a HelmRelease takes values from (`valuesFrom`), a Flux Kustomization
/// (its patches), a ResourceSet (a FluxInstance it templates) and a
/// Deployment (helm-controller's arguments). Other text, a ConfigMap that
/// documents the gate, is not read.
pub fn digest_tracking_disabled<'a>(
    objects: impl IntoIterator<Item = &'a Resource> + Clone,
) -> bool {
    const GATE: &str = "DisableChartDigestTracking=";
    fn scan(n: &Node, last: &mut Option<bool>) {
        match n {
            Node::Str(s) => {
                for (i, _) in s.match_indices(GATE) {
                    let v = &s[i + GATE.len()..];
                    let word = v
                        .split(|c: char| !c.is_ascii_alphabetic())
                        .next()
                        .unwrap_or("");
                    match word {
                        "true" => *last = Some(true),
                        "false" => *last = Some(false),
                        _ => {}
                    }
                }
            }
            Node::Seq(v) => v.iter().for_each(|n| scan(n, last)),
            Node::Map(m) => m.iter().for_each(|(_, n)| scan(n, last)),
            _ => {}
        }
    }
    // (kind, namespace, name) of what HelmReleases take values from.
    let mut values_from: std::collections::HashSet<(String, String, String)> = Default::default();
    for o in objects.clone() {
        if o.kind() != "HelmRelease" {
            continue;
        }
        let Some(Node::Seq(refs)) = o.obj.get("spec").and_then(|s| s.get("valuesFrom")) else {
            continue;
        };
        for r in refs {
            let text = |k: &str| r.get(k).and_then(Node::scalar_text).unwrap_or_default();
            values_from.insert((
                text("kind"),
                o.namespace_or_default().to_string(),
                text("name"),
            ));
        }
    }
    let configures = |o: &Resource| match o.kind() {
        "FluxInstance" | "HelmRelease" | "ResourceSet" | "Deployment" => true,
        "Kustomization" => o.api_version().starts_with("kustomize.toolkit.fluxcd.io/"),
        kind @ ("ConfigMap" | "Secret") => values_from.contains(&(
            kind.to_string(),
            o.namespace_or_default().to_string(),
            o.name().to_string(),
        )),
        _ => false,
    };
    let mut last = None;
    for o in objects {
        if configures(o) {
            scan(&o.obj, &mut last);
        }
    }
    last == Some(true)
}

/// The files of a chart directory read from a source artifact.
#[derive(Debug, Clone)]
pub struct SourceChart {
    /// Shown in messages: `GitRepository/flux-system/flux-system ./charts/x`.
    pub label: String,
    /// Paths relative to the chart directory, and contents.
    pub files: Vec<(PathBuf, Vec<u8>)>,
    /// The release's `valuesFiles`, read from the source artifact (paths
    /// relative to its root, as source-controller reads them).
    pub values_files: Vec<SourceValuesFile>,
    /// The files are an artifact loaded as a chart archive (an
    /// ExternalArtifact's, as helm-controller loads it): their paths
    /// start with the chart's directory, and `.helmignore` is not applied.
    pub archive: bool,
}

/// One `valuesFiles` entry of a chart from a GitRepository or Bucket.
#[derive(Debug, Clone)]
pub struct SourceValuesFile {
    /// The reference as written.
    pub reference: String,
    /// The path joined to the artifact root the way `securejoin` does
    /// (`..` never leaves the root), as source-controller shows it
    /// (`/charts/app/values-prod.yaml`).
    pub shown: String,
    pub content: ValuesFileContent,
}

#[derive(Debug, Clone)]
pub enum ValuesFileContent {
    Found(Vec<u8>),
    /// No such file (`ignoreMissingValuesFiles` skips it).
    Missing,
    /// A directory or other non-regular file (always an error).
    NotRegular,
}

/// `securejoin.SecureJoin(root, p)` made relative to the root: `..`
/// stops at the root, `.` and empty segments vanish.
pub fn secure_rel(p: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            s => out.push(s),
        }
    }
    out.join("/")
}

/// A chart's files: paths relative to its directory, and contents.
pub type ChartFiles = Vec<(PathBuf, Vec<u8>)>;

/// One entry of a chart's dependencies (`Chart.yaml`, or its lock file,
/// which wins, as source-controller reads them).
struct DepEntry {
    name: String,
    version: String,
    repository: String,
    alias: String,
}

fn dep_entries(text: &str, key: &str) -> Vec<DepEntry> {
    let Ok(doc) = crate::yaml::parse_one(text) else {
        return Vec::new();
    };
    let Some(Node::Seq(deps)) = doc.get(key) else {
        return Vec::new();
    };
    let s = |d: &Node, k: &str| d.get(k).and_then(Node::scalar_text).unwrap_or_default();
    deps.iter()
        .map(|d| DepEntry {
            name: s(d, "name"),
            version: s(d, "version"),
            repository: s(d, "repository"),
            alias: s(d, "alias"),
        })
        .collect()
}

/// source-controller's dependency build of a chart it packages from a
/// GitRepository or Bucket artifact (`DependencyManager.Build`): the
/// dependencies `Chart.yaml` lists (`requirements.yaml` for an
/// `apiVersion: v1` chart; the lock file's list when there is one) that
/// `charts/` lacks are added, a local one (`file://PATH` or no
/// repository: PATH relative to the chart, within the artifact) from the
/// artifact, a remote one from the chart cache (where `helm pull` puts
/// it). Only when `charts/` holds fewer subcharts than the list has
/// entries; a subchart, a directory or a `.tgz`, counts by its
/// `Chart.yaml` name against the entry's alias or name.
///
/// `files` are the chart's, `chart_rel` its directory in the artifact
/// (`/`-separated), `read_dir(rel)` the files below a directory of the
/// artifact (None: no such directory). Adds the dependencies' files under
/// `charts/`; `Ok(Err((why, pull)))`: remote dependencies are not cached
/// (the release is skipped; `why` names each, `pull` fetches them all);
/// `Err`: source-controller's error.
pub fn vendor_dependencies(
    files: &mut ChartFiles,
    chart_rel: &str,
    read_dir: &dyn Fn(&str) -> Option<ChartFiles>,
    cache: &ChartCache,
) -> Result<Result<(), (String, String)>, String> {
    let text = |name: &str| {
        files
            .iter()
            .find(|(p, _)| p == Path::new(name))
            .map(|(_, b)| String::from_utf8_lossy(b).into_owned())
    };
    let Some(chart_yaml) = text("Chart.yaml") else {
        return Ok(Ok(()));
    };
    let v1 = chart_yaml_field(chart_yaml.as_bytes(), "apiVersion").is_none_or(|v| v == "v1");
    let (meta, lock) = if v1 {
        (text("requirements.yaml"), text("requirements.lock"))
    } else {
        (Some(chart_yaml), text("Chart.lock"))
    };
    let reqs = match (lock, meta) {
        (Some(l), _) => dep_entries(&l, "dependencies"),
        (None, Some(m)) => dep_entries(&m, "dependencies"),
        (None, None) => Vec::new(),
    };
    if reqs.is_empty() {
        return Ok(Ok(()));
    }
    // The subcharts `charts/` holds.
    let mut current: Vec<String> = Vec::new();
    for (p, b) in files.iter() {
        let parts: Vec<String> = p
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        match parts.as_slice() {
            [c, f] if c == "charts" && f.ends_with(".tgz") => {
                // By the name in its Chart.yaml, as Helm loads it; by
                // the file's name when it cannot be read (loading the
                // chart then fails with Helm's message).
                let name = crate::helm::chart::archive_chart_name(b)
                    .or_else(|| super::charts::split_archive_name(f).map(|(name, _)| name));
                current.extend(name);
            }
            [c, _, f] if c == "charts" && f == "Chart.yaml" => {
                current.extend(chart_yaml_field(b, "name"));
            }
            _ => {}
        }
    }
    if current.len() == reqs.len() {
        return Ok(Ok(()));
    }
    let mut missing: Vec<(String, &DepEntry)> = reqs
        .iter()
        .map(|d| {
            let key = if d.alias.is_empty() {
                &d.name
            } else {
                &d.alias
            };
            (key.clone(), d)
        })
        .filter(|(key, _)| !current.contains(key))
        .collect();
    missing.sort_by(|a, b| a.0.cmp(&b.0));
    missing.dedup_by(|a, b| a.0 == b.0);
    let mut uncached: Vec<(String, String)> = Vec::new();
    for (key, dep) in missing {
        let local = dep.repository.is_empty() || dep.repository.starts_with("file://");
        let added: Vec<(PathBuf, Vec<u8>)> = if local {
            let at = secure_rel(&format!(
                "{chart_rel}/{}",
                dep.repository.trim_start_matches("file://")
            ));
            let fail = |m: String| format!("failed to add local dependency '{key}': {m}");
            let Some(dep_files) =
                read_dir(&at).filter(|f| f.iter().any(|(p, _)| p == Path::new("Chart.yaml")))
            else {
                return Err(fail(format!(
                    "no chart found at '/{at}' (reference '{}')",
                    dep.repository
                )));
            };
            let constraint = crate::helm::semver::Constraint::parse(&dep.version).map_err(|e| {
                fail(format!(
                    "invalid version/constraint format '{}': {e}",
                    dep.version
                ))
            })?;
            let version = dep_files
                .iter()
                .find(|(p, _)| p == Path::new("Chart.yaml"))
                .and_then(|(_, b)| chart_yaml_field(b, "version"))
                .unwrap_or_default();
            let v = crate::helm::semver::Version::parse(&version).map_err(fail)?;
            if !constraint.matches(&v) {
                return Err(fail(format!(
                    "can't get a valid version for constraint '{}'",
                    dep.version
                )));
            }
            under_charts(&key, dep_files)
        } else {
            let url = &dep.repository;
            if !(url.starts_with("https://")
                || url.starts_with("http://")
                || url.starts_with("oci://"))
            {
                return Err(format!(
                    "failed to add remote dependency '{key}': invalid chart repository URL format '{url}'"
                ));
            }
            match cache.find(&dep.name, &dep.version)? {
                Some(c) if c.path.is_dir() => {
                    let files = read_chart_dir(&crate::fs::RealFs, &c.path)
                        .map_err(|e| format!("{}: {e}", c.path.display()))?;
                    under_charts(&key, files)
                }
                Some(c) => {
                    let bytes =
                        std::fs::read(&c.path).map_err(|e| format!("{}: {e}", c.path.display()))?;
                    let file = c.path.file_name().unwrap_or_default();
                    vec![(Path::new("charts").join(file), bytes)]
                }
                None => {
                    let oci = url.starts_with("oci://");
                    let request = ChartRequest::Remote {
                        chart: dep.name.clone(),
                        version: dep.version.clone(),
                        url: if oci {
                            format!("{}/{}", url.trim_end_matches('/'), dep.name)
                        } else {
                            url.clone()
                        },
                        oci,
                    };
                    let pull = request.pull_command().unwrap_or_default();
                    uncached.push((
                        format!("'{key}' (chart {} {} of {url})", dep.name, dep.version),
                        pull,
                    ));
                    continue;
                }
            }
        };
        files.extend(added);
    }
    // Every dependency the cache lacks is named, with one command that
    // fetches them all.
    match uncached.as_slice() {
        [] => Ok(Ok(())),
        [(what, pull)] => Ok(Err((
            format!(
                "dependency {what} of the chart is not in the chart cache: fetch it with `{pull}`"
            ),
            pull.clone(),
        ))),
        all => {
            let what: Vec<&str> = all.iter().map(|(w, _)| w.as_str()).collect();
            let pull: Vec<&str> = all.iter().map(|(_, p)| p.as_str()).collect();
            let pull = pull.join(" && ");
            Ok(Err((
                format!(
                    "dependencies {} of the chart are not in the chart cache: fetch them with `{pull}`",
                    what.join(", ")
                ),
                pull,
            )))
        }
    }
}

/// A field of a `Chart.yaml`'s text (`name`, `version`).
fn chart_yaml_field(text: &[u8], key: &str) -> Option<String> {
    crate::yaml::parse_one(&String::from_utf8_lossy(text))
        .ok()?
        .get(key)
        .and_then(Node::scalar_text)
}

/// A subchart's files under `charts/KEY/`.
fn under_charts(key: &str, files: ChartFiles) -> ChartFiles {
    files
        .into_iter()
        .map(|(p, b)| (Path::new("charts").join(key).join(p), b))
        .collect()
}

/// Go's `filepath.Clean` of a slash-separated path.
pub fn go_clean(p: &str) -> String {
    let rooted = p.starts_with('/');
    let mut out: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if out.last().is_some_and(|l| *l != "..") {
                    out.pop();
                } else if !rooted {
                    out.push("..");
                }
            }
            s => out.push(s),
        }
    }
    let body = out.join("/");
    match (rooted, body.is_empty()) {
        (true, _) => format!("/{body}"),
        (false, true) => ".".into(),
        (false, false) => body,
    }
}

/// source-controller's `GetValuesFiles`: a list that is exactly the
/// chart's own `values.yaml` changes nothing.
pub fn effective_values_files(files: &[String]) -> &[String] {
    if files.len() == 1 && go_clean(&files[0]) == "values.yaml" {
        &[]
    } else {
        files
    }
}

/// A values file as source-controller reads it (`sigs.k8s.io/yaml`
/// into a map: the first document, numbers as float64).
fn parse_values_file(reference: &str, bytes: &[u8]) -> Result<Value, String> {
    let text = String::from_utf8_lossy(bytes);
    let fail = |what: String| format!("unmarshaling values from '{reference}' failed: {what}");
    // The reader of Helm's `fromYaml`: the first document, go-yaml's
    // error wording.
    match crate::helm::funcs::from_yaml(&text).map_err(fail)? {
        Value::Nil => Ok(from_node(&Node::map())),
        v @ Value::Map(_) => Ok(v),
        other => Err(fail(format!(
            "error unmarshaling JSON: json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
            match other {
                Value::List(_) => "array",
                Value::Str(_) => "string",
                Value::Bool(_) => "bool",
                _ => "number",
            }
        ))),
    }
}

/// The chart's default values replaced by the merge of the release's
/// `valuesFiles`, as source-controller builds the chart artifact
/// (`internal/helm/chart/builder_{local,remote}.go`: `mergeFileValues`
/// for a GitRepository or Bucket source, whose paths are relative to the
/// artifact's root; `mergeChartValues` for a chart from a Helm or OCI
/// repository, whose paths name files of the chart, `values.yaml` being
/// its own defaults; both merge with `MergeMaps`, later files winning,
/// and `OverwriteChartDefaultValues` puts the result in place of the
/// chart's `values.yaml`). None: nothing to merge.
fn merged_default_values(
    h: &HelmReleaseReport,
    located: &Located,
    chart: &engine::Chart,
) -> Result<Option<Value>, String> {
    let files = effective_values_files(&h.chart.values_files);
    if files.is_empty() {
        return Ok(None);
    }
    let ignore = h.chart.ignore_missing_values_files;
    let err = |m: String| format!("values files merge error: {m}");
    let mut merged = from_node(&Node::map());
    match located {
        Located::Source(sc) => {
            if !sc
                .files
                .iter()
                .any(|(p, _)| p.as_path() == Path::new("values.yaml"))
            {
                return Err(err(
                    "failed to locate values file: values.yaml (the chart has none to replace)"
                        .into(),
                ));
            }
            for f in &sc.values_files {
                let bytes = match &f.content {
                    ValuesFileContent::Found(b) => b,
                    ValuesFileContent::Missing if ignore => continue,
                    _ => {
                        return Err(err(format!(
                            "no values file found at path '{}' (reference '{}')",
                            f.shown, f.reference
                        )));
                    }
                };
                let v = parse_values_file(&f.reference, bytes).map_err(err)?;
                merged = merge_maps(merged, v);
            }
        }
        _ => {
            if let Located::Cache(p) = located
                && p.is_dir()
                && !p.join("values.yaml").is_file()
            {
                return Err(err(
                    "failed to locate values file: values.yaml (the chart has none to replace)"
                        .into(),
                ));
            }
            for reference in files {
                let clean = go_clean(reference);
                if clean == "values.yaml" {
                    merged = merge_maps(merged, chart.values.clone());
                    continue;
                }
                let Some(f) = chart.files.iter().find(|f| f.name == clean) else {
                    if ignore {
                        continue;
                    }
                    return Err(err(format!(
                        "failed to merge chart values: no values file found at path '{reference}'"
                    )));
                };
                let data = f.data.get().map_err(err)?;
                let v = parse_values_file(reference, data)
                    .map_err(|e| err(format!("failed to merge chart values: {e}")))?;
                merged = merge_maps(merged, v);
            }
        }
    }
    Ok(Some(merged))
}

/// Where each HelmRelease's chart is, as found by the caller.
#[derive(Debug, Clone)]
pub enum Located {
    /// A cache entry (`.tgz` or directory).
    Cache(PathBuf),
    /// A chart directory of a source artifact.
    Source(Arc<SourceChart>),
    /// Not available: skipped (or failed with `--require-charts`); why,
    /// and the command that fetches what is missing when it is not the
    /// chart's own `helm pull` (a dependency of a source chart).
    Missing(String, Option<String>),
    /// An error (the chart path does not exist in its source...).
    Error(String),
}

/// Reads every file below `dir` of `fs` (sorted walk).
pub fn read_chart_dir(fs: &dyn FileSystem, dir: &Path) -> std::io::Result<Vec<(PathBuf, Vec<u8>)>> {
    let mut out = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let d = dir.join(&rel);
        let names = fs.list(&d)?;
        for n in names.iter().rev() {
            let p = d.join(n);
            let r = rel.join(n);
            if fs.is_dir(&p) {
                stack.push(r);
            } else {
                out.push((r, fs.read(&p)?));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// Reads the chart directory `path` of source (kind, namespace, name):
/// `Ok(Err((why, pull)))` when it is not available offline (the source,
/// or dependencies the chart's source-controller build adds: `pull`
/// fetches them).
/// `values_files` are the release's `valuesFiles`, read from the same
/// source.
pub type SourceChartFn<'a> = dyn Fn(
        &str,
        &str,
        &str,
        &str,
        &[String],
    ) -> Result<Result<SourceChart, (String, Option<String>)>, String>
    + 'a;

/// Reads the artifact of source (kind, namespace, name), an
/// ExternalArtifact, as a chart archive: `Ok(Err(why))` when it is not
/// available offline.
pub type ArtifactChartFn<'a> =
    dyn Fn(&str, &str, &str) -> Result<Result<SourceChart, String>, String> + 'a;

/// The objects a release renders and the engine's warnings, or why not.
/// (objects, the number of them at the start that are CRDs of the charts'
/// `crds/` directories, warnings).
type Outcome = Result<(Vec<Resource>, usize, Vec<String>), String>;

/// Finds the chart of every HelmRelease: in a source artifact through
/// `source_chart` (GitRepository / Bucket charts), else in the cache.
pub fn locate(
    h: &HelmReleaseReport,
    cache: &ChartCache,
    source_chart: &SourceChartFn<'_>,
    artifact_chart: &ArtifactChartFn<'_>,
) -> Located {
    if let Some(m) = &h.chart.unavailable {
        return Located::Missing(m.clone(), None);
    }
    let Some(req) = &h.chart.request else {
        return Located::Error(format!(
            "chart source kind '{}' is not supported",
            h.chart.kind
        ));
    };
    match req {
        ChartRequest::SourcePath {
            kind,
            namespace,
            name,
            path,
        } => match source_chart(
            kind,
            namespace,
            name,
            path,
            effective_values_files(&h.chart.values_files),
        ) {
            Ok(Ok(c)) => Located::Source(Arc::new(c)),
            Ok(Err((why, pull))) => Located::Missing(why, pull),
            Err(e) => Located::Error(e),
        },
        ChartRequest::Artifact {
            kind,
            namespace,
            name,
        } => match artifact_chart(kind, namespace, name) {
            Ok(Ok(c)) => Located::Source(Arc::new(c)),
            Ok(Err(why)) => Located::Missing(why, None),
            Err(e) => Located::Error(e),
        },
        ChartRequest::Remote { chart, version, .. } => match cache.find(chart, version) {
            Ok(Some(c)) => Located::Cache(c.path.clone()),
            Ok(None) => {
                let want = if version.is_empty() {
                    chart.clone()
                } else {
                    format!("{chart} {version}")
                };
                Located::Missing(
                    format!(
                        "chart {want} is not in the chart cache ({}): fetch it with `{}`",
                        if cache.shown.is_empty() {
                            "no cache directory".to_string()
                        } else {
                            cache.shown.join(", ")
                        },
                        req.pull_command().unwrap_or_default()
                    ),
                    None,
                )
            }
            Err(e) => Located::Error(e),
        },
    }
}

/// A source chart written to a temporary directory, loaded, and removed.
/// The directory is made with a random name, only for this user, and
/// never an existing path: another user of a shared temporary directory
/// cannot put a link where the chart's files are written.
fn load_source_chart(c: &SourceChart) -> Result<engine::Chart, String> {
    if c.archive {
        let entries = c
            .files
            .iter()
            .map(|(rel, bytes)| (rel.to_string_lossy().into_owned(), bytes.clone()))
            .collect();
        return engine::load_archive_entries(entries, Path::new(&c.label))
            .map_err(|e| format!("chart {}: {e}", c.label));
    }
    let tmp = tempfile::Builder::new()
        .prefix("flate-chart-")
        .tempdir()
        .map_err(|e| format!("chart {}: a temporary directory: {e}", c.label))?;
    let dir = tmp.path();
    let write = || -> std::io::Result<()> {
        for (rel, bytes) in &c.files {
            let p = dir.join(rel);
            if let Some(parent) = p.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(p, bytes)?;
        }
        Ok(())
    };
    write()
        .map_err(|e| format!("chart {}: {e}", c.label))
        .and_then(|_| {
            // Read whole before the directory goes.
            engine::load(dir)
                .and_then(|ch| ch.read_all().map(|_| ch))
                .map_err(|e| format!("chart {}: {e}", c.label))
        })
}

/// API versions (`group/version` and `group/version/Kind`) and scopes of
/// the CustomResourceDefinitions among `objects`.
#[derive(Debug, Clone, Default)]
pub struct CrdInfo {
    pub api_versions: Vec<String>,
    /// (group, kind) of the cluster-scoped ones.
    pub cluster_scoped: Vec<(String, String)>,
}

impl CrdInfo {
    pub fn add(&mut self, o: &Resource) {
        if o.kind() != "CustomResourceDefinition"
            || !o.api_version().starts_with("apiextensions.k8s.io/")
        {
            return;
        }
        let spec = |p: &[&str]| o.obj.get_path(p).and_then(Node::scalar_text);
        let (Some(group), Some(kind)) =
            (spec(&["spec", "group"]), spec(&["spec", "names", "kind"]))
        else {
            return;
        };
        if let Some(Node::Seq(vs)) = o.obj.get_path(&["spec", "versions"]) {
            for v in vs {
                if v.get("served").and_then(Node::as_bool) == Some(false) {
                    continue;
                }
                if let Some(name) = v.get("name").and_then(Node::scalar_text) {
                    for a in [format!("{group}/{name}"), format!("{group}/{name}/{kind}")] {
                        if !self.api_versions.contains(&a) {
                            self.api_versions.push(a);
                        }
                    }
                }
            }
        }
        if spec(&["spec", "scope"]).as_deref() == Some("Cluster") {
            self.cluster_scoped.push((group, kind));
        }
    }
    /// Whether the object's kind is cluster-scoped: a built-in kind
    /// kustomize knows so, or the kind of a CRD with `scope: Cluster`.
    pub fn is_cluster_scoped(&self, r: &Resource) -> bool {
        let g = r.gvk();
        self.cluster_scoped
            .iter()
            .any(|(gr, k)| *gr == g.group && *k == g.kind)
            || crate::kustomize::openapi::is_cluster_scoped(&g.group, &g.version, &g.kind)
                .unwrap_or(false)
    }
}

/// A file system of a few files in memory (the post-renderer's build).
struct MemFs {
    files: HashMap<PathBuf, Vec<u8>>,
    root: PathBuf,
}

impl FileSystem for MemFs {
    fn read(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        self.files
            .get(path)
            .cloned()
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "not found"))
    }
    fn is_dir(&self, path: &Path) -> bool {
        path == self.root
    }
    fn is_file(&self, path: &Path) -> bool {
        self.files.contains_key(path)
    }
    fn list(&self, path: &Path) -> std::io::Result<Vec<String>> {
        let mut v: Vec<String> = self
            .files
            .keys()
            .filter(|p| p.parent() == Some(path))
            .filter_map(|p| p.file_name().map(|f| f.to_string_lossy().into_owned()))
            .collect();
        v.sort();
        Ok(v)
    }
}

/// One `postRenderers[].kustomize`: a kustomize build of `objects` with
/// its patches and images (helm-controller `postrender/kustomize.go`).
fn kustomize_post_render(objects: Vec<Resource>, k: &Node) -> Result<Vec<Resource>, String> {
    let root = PathBuf::from("/flate-post-render");
    let mut kust = Map::new();
    kust.insert("apiVersion", Node::str("kustomize.config.k8s.io/v1beta1"));
    kust.insert("kind", Node::str("Kustomization"));
    kust.insert("resources", Node::Seq(vec![Node::str("helm-output.yaml")]));
    for f in [
        "patches",
        "images",
        "patchesStrategicMerge",
        "patchesJson6902",
    ] {
        if let Some(v) = k.get(f).filter(|v| !v.is_null()) {
            kust.insert(f, v.clone());
        }
    }
    let mut files = HashMap::new();
    files.insert(
        root.join("helm-output.yaml"),
        crate::yaml::stream_to_string(objects.iter().map(|r| &r.obj)).into_bytes(),
    );
    files.insert(
        root.join("kustomization.yaml"),
        crate::yaml::to_string(&Node::Map(kust)).into_bytes(),
    );
    let fs = MemFs {
        files,
        root: root.clone(),
    };
    let kz = crate::kustomize::Kustomizer::new(
        &fs,
        crate::kustomize::BuildOptions {
            load_restrictor: crate::kustomize::LoadRestrictor::None,
            boundary: None,
            enable_helm: false,
            remotes: Default::default(),
        },
    );
    let m = kz.build(&root).map_err(|e| {
        format!(
            "post-renderer kustomize: {}",
            e.message.replace(&format!("{}/", root.display()), "")
        )
    })?;
    Ok(m.resources)
}

/// Sets `entries` in `metadata.<field>` of `r` (created when absent), as
/// kustomize's label and annotation transformers with the field spec
/// `metadata/labels` (`metadata/annotations`) do.
pub(crate) fn set_metadata(r: &mut Resource, field: &str, entries: &[(String, String)]) {
    if entries.is_empty() {
        return;
    }
    let Some(m) = r.obj.as_map_mut() else { return };
    if !matches!(m.get("metadata"), Some(Node::Map(_))) {
        m.insert("metadata", Node::map());
    }
    let md = m
        .get_mut("metadata")
        .and_then(Node::as_map_mut)
        .expect("map");
    if !matches!(md.get(field), Some(Node::Map(_))) {
        md.insert(field, Node::map());
    }
    let target = md.get_mut(field).and_then(Node::as_map_mut).expect("map");
    for (k, v) in entries {
        target.insert(k.clone(), Node::str(v.clone()));
    }
}

/// A Flux object's `spec.commonMetadata` (Kustomization, HelmRelease,
/// ResourceSet): its labels and annotations set on every object, over the
/// objects' own (fluxcd/pkg `ssautil.SetCommonMetadata`).
pub(crate) fn set_common_metadata(common: Option<&Node>, objects: &mut [Resource]) {
    let Some(cm) = common.filter(|c| !c.is_null()) else {
        return;
    };
    let labels = string_map(cm.get("labels"));
    let annotations = string_map(cm.get("annotations"));
    for r in objects.iter_mut() {
        set_metadata(r, "labels", &labels);
        set_metadata(r, "annotations", &annotations);
    }
}

pub(crate) fn string_map(n: Option<&Node>) -> Vec<(String, String)> {
    match n {
        Some(Node::Map(m)) => m
            .iter()
            .map(|(k, v)| (k.clone(), v.scalar_text().unwrap_or_default()))
            .collect(),
        _ => Vec::new(),
    }
}

/// The origin labels helm-controller puts on every object.
pub fn origin_labels(h: &HelmReleaseReport) -> Vec<(String, String)> {
    vec![
        (format!("{}/name", super::model::HELM_GROUP), h.name.clone()),
        (
            format!("{}/namespace", super::model::HELM_GROUP),
            h.namespace.clone(),
        ),
    ]
}

/// The post-render pipeline of helm-controller on `objects` (hooks
/// included), then the origin labels.
pub fn post_render(h: &HelmReleaseReport, objects: Vec<Resource>) -> Result<Vec<Resource>, String> {
    let spec = h.object.obj.get("spec").cloned().unwrap_or(Node::Null);
    let nohooks = spec.get_str(&["postRenderStrategy"]) == Some("nohooks");
    let (mut main, hooks): (Vec<Resource>, Vec<Resource>) = if nohooks {
        objects.into_iter().partition(|r| {
            r.obj
                .get_path(&["metadata", "annotations", "helm.sh/hook"])
                .is_none()
        })
    } else {
        (objects, Vec::new())
    };
    if let Some(Node::Seq(prs)) = spec.get("postRenderers") {
        for pr in prs {
            if let Some(k) = pr.get("kustomize").filter(|k| !k.is_null()) {
                main = kustomize_post_render(main, k)?;
            }
        }
    }
    set_common_metadata(spec.get("commonMetadata"), &mut main);
    main.extend(hooks);
    let origin = origin_labels(h);
    for r in main.iter_mut() {
        set_metadata(r, "labels", &origin);
    }
    Ok(main)
}

/// The values of `h` that came from a Secret, as strings (at least four
/// characters: shorter ones would taint too much by accident).
fn secret_strings(h: &HelmReleaseReport) -> Vec<String> {
    let mut out = Vec::new();
    for p in &h.secret_paths {
        let mut cur = &h.values;
        let mut ok = true;
        for e in p {
            let next = match e {
                PathElem::Key(k) => cur.get(k),
                PathElem::Index(i) => cur.as_seq().and_then(|s| s.get(*i)),
            };
            match next {
                Some(n) => cur = n,
                None => {
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            collect_strings(cur, &mut out);
        }
    }
    out.retain(|s| s.chars().count() >= 4);
    out.sort();
    out.dedup();
    out
}

fn collect_strings(n: &Node, out: &mut Vec<String>) {
    match n {
        Node::Map(m) => m.iter().for_each(|(_, v)| collect_strings(v, out)),
        Node::Seq(s) => s.iter().for_each(|v| collect_strings(v, out)),
        other => {
            if let Some(t) = other.scalar_text() {
                out.push(t);
            }
        }
    }
}

/// Marks as secret every string of `r` that contains one of `secrets`.
fn taint_object(r: &mut Resource, secrets: &[String]) {
    fn walk(n: &Node, path: &mut Vec<PathElem>, secrets: &[String], out: &mut Vec<Vec<PathElem>>) {
        match n {
            Node::Map(m) => {
                for (k, v) in m.iter() {
                    path.push(PathElem::Key(k.clone()));
                    walk(v, path, secrets, out);
                    path.pop();
                }
            }
            Node::Seq(s) => {
                for (i, v) in s.iter().enumerate() {
                    path.push(PathElem::Index(i));
                    walk(v, path, secrets, out);
                    path.pop();
                }
            }
            Node::Str(t) if secrets.iter().any(|s| t.contains(s.as_str())) => {
                out.push(path.clone());
            }
            _ => {}
        }
    }
    if secrets.is_empty() {
        return;
    }
    let mut found = Vec::new();
    walk(&r.obj, &mut Vec::new(), secrets, &mut found);
    for p in found {
        if !crate::secret::covers(&r.secret_paths, &p) {
            r.secret_paths.push(p);
        }
    }
}

/// Parses the manifests of a rendered chart into objects.
fn parse_manifest(source: &str, body: &str, origin: &Origin) -> Result<Vec<Resource>, String> {
    let fake = PathBuf::from(source);
    let mut rs = crate::kustomize::build::resources_from_text(&fake, body).map_err(|e| {
        // helm-controller reads the rendered manifests with kustomize (its
        // post-renderers, the origin labels among them, always run), which
        // rejects what `helm template` prints: say which document.
        let named = e
            .line
            .and_then(|line| {
                crate::yaml::parse_stream(body)
                    .ok()?
                    .into_iter()
                    .find(|d| d.line == line)
            })
            .and_then(|d| d.node.get_str(&["metadata", "name"]).map(str::to_string))
            .filter(|n| !n.is_empty());
        match named {
            Some(n) if e.message.contains("'kind' is required") => format!(
                "{source}: {} (the document named {n:?} has no kind: helm-controller's post-renderers read the manifests with kustomize, which rejects it)",
                e.message
            ),
            _ => format!("{source}: {}", e.message),
        }
    })?;
    for r in rs.iter_mut() {
        r.origin = origin.clone();
    }
    Ok(rs)
}

/// `spec.<action>.crds` as helm-controller's `crdPolicyOrDefault` reads
/// it (`internal/action/crds.go`): empty or absent is `Create` (for the
/// install and the upgrade alike), anything but `Skip`, `Create` or
/// `CreateReplace` is an error.
pub fn crd_policy(h: &HelmReleaseReport, action: &str) -> Result<String, String> {
    let policy = match h.object.obj.get_path(&["spec", action, "crds"]) {
        None | Some(Node::Null) => String::new(),
        Some(n) => n.scalar_text().unwrap_or_else(|| "<not a string>".into()),
    };
    match policy.as_str() {
        "" => Ok("Create".into()),
        "Skip" | "Create" | "CreateReplace" => Ok(policy),
        _ => Err(format!(
            "{}: spec.{action}.crds: invalid CRD upgrade policy '{policy}', valid values are 'Skip', 'Create' or 'CreateReplace'",
            h.object.origin
        )),
    }
}

/// What one release renders to, or why it does not.
fn render_release(
    h: &HelmReleaseReport,
    chart: &engine::Chart,
    opts: &HelmOptions,
    crds: &CrdInfo,
) -> Outcome {
    let spec = h.object.obj.get("spec").cloned().unwrap_or(Node::Null);
    let policy = crd_policy(h, "install")?;
    // The upgrade's policy is not rendered (flate renders the install)
    // but helm-controller rejects an invalid one on the first upgrade.
    crd_policy(h, "upgrade")?;
    let ropts = engine::RenderOptions {
        release_name: h.release_name.clone(),
        namespace: h.release_namespace.clone(),
        values: h.values.clone(),
        kube_version: opts.kube_version.clone(),
        api_versions: crds.api_versions.clone(),
        is_upgrade: false,
        include_crds: policy != "Skip",
        skip_tests: true,
        skip_schema_validation: spec
            .get_path(&["install", "disableSchemaValidation"])
            .and_then(Node::as_bool)
            .unwrap_or(false),
    };
    let out = engine::render(chart, &ropts).map_err(|e| {
        let e = e.to_string();
        if chart.calls_lookup() {
            format!("{e}{LOOKUP_NOTE}")
        } else {
            e
        }
    })?;
    let origin = h.object.origin.clone();
    let mut crd_objs = Vec::new();
    let mut objs = Vec::new();
    for mut m in out.manifests {
        if m.test {
            continue;
        }
        // A block scalar that ends the document keeps its final line
        // break when Helm's install reads one after it (see
        // `Manifest::final_break`).
        if m.final_break {
            m.body.push('\n');
        }
        let rs = parse_manifest(&m.source, &m.body, &origin)?;
        if m.crd {
            crd_objs.extend(rs.into_iter().filter(|r| {
                r.kind() == "CustomResourceDefinition"
                    && r.api_version().starts_with("apiextensions.k8s.io/")
            }));
        } else {
            objs.extend(rs);
        }
    }
    let mut objs = post_render(h, objs)?;
    for r in objs.iter_mut() {
        r.origin = origin.clone();
    }
    let labels = origin_labels(h);
    for c in crd_objs.iter_mut() {
        set_metadata(c, "labels", &labels);
    }
    let crd_count = crd_objs.len();
    let mut all = crd_objs;
    all.extend(objs);
    // Helm applies a namespaced object without a namespace in the
    // release's namespace.
    for r in all.iter_mut() {
        if r.namespace().is_empty() && !crds.is_cluster_scoped(r) {
            set_namespace(r, &h.release_namespace);
        }
    }
    let secrets = secret_strings(h);
    for r in all.iter_mut() {
        taint_object(r, &secrets);
    }
    Ok((all, crd_count, out.warnings))
}

/// Added to the failure of a chart that calls `lookup`.
pub const LOOKUP_NOTE: &str = " (the chart calls lookup, which finds nothing offline as in `helm template`; helm-controller asks the cluster, where this may render)";

fn set_namespace(r: &mut Resource, ns: &str) {
    if let Some(md) = r.obj.get_mut("metadata").and_then(Node::as_map_mut) {
        md.insert("namespace", Node::str(ns));
    }
}

/// Renders every HelmRelease in `hrs` whose chart `locate` found, in
/// parallel; each chart is loaded once. `crds` are the environment's
/// CustomResourceDefinitions (the Kustomizations'); the CRDs the charts
/// render are added to them, and when they bring new API versions the
/// releases render once more with them.
pub fn render_all(
    hrs: &mut [HelmReleaseReport],
    located: &[Located],
    opts: &HelmOptions,
    mut crds: CrdInfo,
    repo: &Path,
) {
    // Load each chart once.
    let mut keys: Vec<String> = Vec::new();
    let mut key_of: Vec<Option<usize>> = Vec::new();
    let mut first: Vec<&Located> = Vec::new();
    for l in located {
        let k = match l {
            Located::Cache(p) => Some(format!("cache:{}", p.display())),
            Located::Source(c) => Some(format!("source:{}", c.label)),
            _ => None,
        };
        key_of.push(k.map(|k| match keys.iter().position(|x| *x == k) {
            Some(i) => i,
            None => {
                keys.push(k);
                first.push(l);
                keys.len() - 1
            }
        }));
    }
    let timings = std::env::var_os("FLATE_TIMINGS").is_some();
    let t0 = std::time::Instant::now();
    let charts: Vec<Result<Arc<engine::Chart>, String>> = first
        .par_iter()
        .map(|l| match l {
            Located::Cache(p) => engine::load(p).map(Arc::new).map_err(|e| {
                let shown = p.strip_prefix(repo).unwrap_or(p);
                format!("chart {}: {e}", shown.display())
            }),
            Located::Source(c) => load_source_chart(c).map(Arc::new),
            _ => unreachable!("only found charts are loaded"),
        })
        .collect();
    // Whether each chart calls `lookup` (a note on what `flate check`
    // reports of its releases).
    let lookups: Vec<bool> = charts
        .par_iter()
        .map(|c| c.as_ref().is_ok_and(|c| c.calls_lookup()))
        .collect();
    // Each release's version under digest tracking (None: the chart's own),
    // or helm-controller's error.
    let mut tracked: Vec<Result<Option<String>, String>> = Vec::with_capacity(hrs.len());
    for ((h, l), k) in hrs.iter_mut().zip(located).zip(&key_of) {
        h.chart.location = match l {
            Located::Cache(p) => p.strip_prefix(repo).unwrap_or(p).display().to_string(),
            Located::Source(c) => c.label.clone(),
            _ => String::new(),
        };
        if let Located::Cache(p) = l {
            h.chart.resolved_version = super::charts::ChartCache::version_of(p);
        }
        let mut version = Ok(None);
        // (A release that failed before its render keeps its error.)
        h.calls_lookup = h.status != HrStatus::Failed && k.is_some_and(|k| lookups[k]);
        if let Some(Ok(c)) = k.map(|k| &charts[k]) {
            h.chart.resolved_version = c.metadata.version.clone();
            if !opts.digest_tracking_disabled {
                version = tracked_version(&h.chart, &c.metadata.version);
            }
            if let Ok(Some(v)) = &version {
                h.chart.tracked_version = v.clone();
            }
        }
        tracked.push(version);
    }
    if timings {
        eprintln!(
            "timing: load {} charts {:.1} ms",
            charts.len(),
            t0.elapsed().as_secs_f64() * 1e3
        );
    }
    // The warnings of resolving each release (its values), kept under
    // those of every render pass, which replace each other.
    let resolved: Vec<Vec<String>> = hrs.iter().map(|h| h.warnings.clone()).collect();
    for pass in 0..2 {
        let tp = std::time::Instant::now();
        let results: Vec<Option<Outcome>> = hrs
            .par_iter()
            .zip(located.par_iter())
            .zip(key_of.par_iter())
            .zip(tracked.par_iter())
            .map(|(((h, l), k), version)| {
                if h.status == HrStatus::Failed && pass == 0 {
                    return None;
                }
                if h.object
                    .obj
                    .get_path(&["spec", "suspend"])
                    .and_then(Node::as_bool)
                    == Some(true)
                {
                    return None;
                }
                match (l, k) {
                    (_, Some(k)) => Some(match &charts[*k] {
                        Ok(c) => match (merged_default_values(h, l, c), version) {
                            (_, Err(e)) => Err(format!("{}: {e}", h.object.origin)),
                            (Ok(None), Ok(None)) => render_release(h, c, opts, &crds),
                            (Ok(v), Ok(version)) => {
                                render_release(h, &c.with(v, version.clone()), opts, &crds)
                            }
                            (Err(e), _) => Err(format!(
                                "{}: {}: {e}",
                                h.object.origin,
                                if h.chart.kind == "HelmChart" {
                                    format!(
                                        "valuesFiles of HelmChart {}/{}",
                                        h.chart.namespace, h.chart.name
                                    )
                                } else {
                                    "spec.chart.spec.valuesFiles".to_string()
                                }
                            )),
                        },
                        Err(e) => Err(e.clone()),
                    }),
                    _ => None,
                }
            })
            .collect();
        if timings {
            eprintln!(
                "timing: render pass {} {:.1} ms",
                pass + 1,
                tp.elapsed().as_secs_f64() * 1e3
            );
        }
        let before = crds.api_versions.len();
        for (((h, l), r), base) in hrs.iter_mut().zip(located).zip(results).zip(&resolved) {
            if pass == 0 {
                apply_outcome(h, l, r, base, opts);
            } else if let Some(r) = r {
                apply_outcome(h, l, Some(r), base, opts);
            }
        }
        for h in hrs.iter() {
            for o in &h.objects {
                crds.add(o);
            }
        }
        if pass == 1 || crds.api_versions.len() == before {
            break;
        }
    }
}

/// helm-controller's chart digest tracking (`mutateChartWithSourceRevision`,
/// on unless its `DisableChartDigestTracking` feature gate is set): a
/// chart from an OCIRepository gets the first 12 hex digits of the
/// artifact's digest as the build metadata of its version (`1.2.3` becomes
/// `1.2.3+0123456789ab`, as `.Chart.Version` and labels such as
/// `helm.sh/chart` show it). Offline the digest is known when the
/// OCIRepository pins one (`spec.ref.digest`, which source-controller
/// pulls whatever the tag says: its revision is then the digest alone);
/// otherwise it is the registry's, and the chart's own version is kept
/// (`None`). An error is helm-controller's, which fails the release.
fn tracked_version(
    chart: &super::helm::ChartInfo,
    version: &str,
) -> Result<Option<String>, String> {
    if chart.kind != "OCIRepository" || chart.digest.is_empty() {
        return Ok(None);
    }
    let mut v = crate::helm::semver::Version::parse(version)
        .map_err(|_| format!("invalid chart version {version}"))?;
    // `extractDigestSubString`: `ALGORITHM:HEX`, at least 12 digits.
    let revision = &chart.digest;
    let sha = match revision.split(':').collect::<Vec<_>>()[..] {
        [_, sha] if sha.len() >= 12 && sha.is_char_boundary(12) => &sha[..12],
        _ => return Err(format!("invalid artifact revision {revision}")),
    };
    // Masterminds' `SetMetadata`.
    crate::helm::semver::validate_metadata(sha)?;
    v.metadata = sha.to_string();
    Ok(Some(v.to_string()))
}

/// Records a render's outcome on `h`; `resolved` are the warnings of
/// resolving it, which a rendered release keeps before the engine's.
fn apply_outcome(
    h: &mut HelmReleaseReport,
    l: &Located,
    r: Option<Outcome>,
    resolved: &[String],
    opts: &HelmOptions,
) {
    if h.status == HrStatus::Failed {
        return;
    }
    let suspended = h
        .object
        .obj
        .get_path(&["spec", "suspend"])
        .and_then(Node::as_bool)
        == Some(true);
    match (l, r) {
        _ if suspended => {
            h.status = HrStatus::Skipped;
            h.message = "suspended (spec.suspend: true)".into();
        }
        (_, Some(Ok((objs, crds, mut warnings)))) => {
            h.status = HrStatus::Rendered;
            h.message = String::new();
            h.objects = objs;
            h.crds = crds;
            // v2beta1/v2beta2's single values file is not a field of v2,
            // the version helm-controller reconciles.
            if h.object
                .obj
                .get_path(&["spec", "chart", "spec", "valuesFile"])
                .and_then(Node::scalar_text)
                .is_some_and(|v| !v.is_empty())
            {
                warnings.push(
                    "spec.chart.spec.valuesFile (deprecated) is ignored by helm-controller v2: list the file in valuesFiles"
                        .to_string(),
                );
            }
            h.warnings = resolved.iter().cloned().chain(warnings).collect();
        }
        (_, Some(Err(e))) => {
            h.status = HrStatus::Failed;
            h.ok = false;
            h.calls_lookup = e.ends_with(LOOKUP_NOTE);
            h.message = e;
        }
        (Located::Missing(m, _), None) => {
            if opts.require_charts {
                h.status = HrStatus::Failed;
                h.ok = false;
                h.message = format!("{m} (--require-charts)");
            } else {
                h.status = HrStatus::Skipped;
                h.message = m.clone();
            }
        }
        (Located::Error(e), None) => {
            h.status = HrStatus::Failed;
            h.ok = false;
            h.message = e.clone();
        }
        (_, None) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The feature gate, in the text of what configures helm-controller;
    /// the last setting wins.
    #[test]
    fn the_digest_tracking_gate_is_read_from_what_configures_helm_controller() {
        let obj = |kind: &str, name: &str, body: &str| {
            let node = crate::yaml::parse_one(&format!(
                "apiVersion: v1\nkind: {kind}\nmetadata:\n  name: {name}\n  namespace: flux-system\n{body}"
            ))
            .unwrap();
            Resource::new(node, Origin::default())
        };
        let deployments = |texts: &[&str]| -> Vec<Resource> {
            texts
                .iter()
                .map(|t| {
                    obj(
                        "Deployment",
                        "helm-controller",
                        &format!("spec:\n  args: [{t:?}]\n"),
                    )
                })
                .collect()
        };
        let off = |texts: &[&str]| digest_tracking_disabled(&deployments(texts));
        assert!(off(&["--feature-gates=DisableChartDigestTracking=true"]));
        assert!(off(&[
            "x: --feature-gates=A=true,DisableChartDigestTracking=true,B=false\n"
        ]));
        assert!(!off(&["--feature-gates=DisableChartDigestTracking=false"]));
        assert!(!off(&[
            "--feature-gates=DisableChartDigestTracking=true",
            "--feature-gates=DisableChartDigestTracking=false"
        ]));
        assert!(!off(&[
            "DisableChartDigestTracking",
            "--feature-gates=OOMWatch=true"
        ]));
        assert!(!off(&[]));
        // A ConfigMap counts when a HelmRelease takes values from it.
        let values = obj(
            "ConfigMap",
            "flux-values",
            "data:\n  values.yaml: |\n    instance:\n      kustomize:\n        patches:\n          - patch: '[{\"op\": \"add\", \"path\": \"/spec/template/spec/containers/0/args/-\", \"value\": \"--feature-gates=DisableChartDigestTracking=true\"}]'\n",
        );
        assert!(!digest_tracking_disabled(std::slice::from_ref(&values)));
        let release = obj(
            "HelmRelease",
            "flux-instance",
            "spec:\n  valuesFrom:\n    - kind: ConfigMap\n      name: flux-values\n",
        );
        assert!(digest_tracking_disabled(&[release.clone(), values.clone()]));
        let other = obj(
            "HelmRelease",
            "flux-instance",
            "spec:\n  valuesFrom:\n    - kind: Secret\n      name: flux-values\n",
        );
        assert!(!digest_tracking_disabled(&[other, values]));
    }

    /// helm-controller's digest tracking, case by case
    /// (`mutateChartWithSourceRevision`, `extractDigestSubString`).
    #[test]
    fn a_pinned_oci_digest_becomes_the_chart_versions_metadata() {
        let info = |kind: &str, digest: &str| super::super::helm::ChartInfo {
            kind: kind.into(),
            digest: digest.into(),
            ..Default::default()
        };
        let digest = "sha256:aadbb3a49248f605490009acca04693b7eef0d46969bb56a593ed0b49624c782";
        let oci = info("OCIRepository", digest);
        assert_eq!(
            tracked_version(&oci, "0.25.0"),
            Ok(Some("0.25.0+aadbb3a49248".into()))
        );
        // Masterminds' `String`: no `v`, missing parts as 0, metadata
        // replaced, a prerelease kept.
        assert_eq!(
            tracked_version(&oci, "v1.2"),
            Ok(Some("1.2.0+aadbb3a49248".into()))
        );
        assert_eq!(
            tracked_version(&oci, "1.0.0-rc.1+build.7"),
            Ok(Some("1.0.0-rc.1+aadbb3a49248".into()))
        );
        assert_eq!(
            tracked_version(&oci, "latest"),
            Err("invalid chart version latest".into())
        );
        for bad in ["aadbb3a49248", "sha256:aadbb3a4", "sha256:aa:bb"] {
            assert_eq!(
                tracked_version(&info("OCIRepository", bad), "1.0.0"),
                Err(format!("invalid artifact revision {bad}"))
            );
        }
        assert_eq!(
            tracked_version(&info("OCIRepository", "sha256:aadbb3a4924_"), "1.0.0"),
            Err("invalid metadata string".into())
        );
        // Without a pin the digest is the registry's: unknown offline. A
        // HelmChart's (or a HelmRepository's) chart is never changed.
        assert_eq!(
            tracked_version(&info("OCIRepository", ""), "1.0.0"),
            Ok(None)
        );
        assert_eq!(
            tracked_version(&info("HelmChart", digest), "1.0.0"),
            Ok(None)
        );
        assert_eq!(
            tracked_version(&info("HelmRepository", digest), "1.0.0"),
            Ok(None)
        );
    }

    #[test]
    fn values_file_paths_resolve_as_source_controller_resolves_them() {
        // securejoin: `..` stops at the artifact's root.
        assert_eq!(
            secure_rel("./charts/app/values.yaml"),
            "charts/app/values.yaml"
        );
        assert_eq!(secure_rel("../../etc/passwd"), "etc/passwd");
        assert_eq!(secure_rel("/a//b/../c.yaml"), "a/c.yaml");
        // filepath.Clean, for names of a chart's files.
        assert_eq!(go_clean("./values-prod.yaml"), "values-prod.yaml");
        assert_eq!(go_clean("a/../values.yaml"), "values.yaml");
        assert_eq!(go_clean("../x.yaml"), "../x.yaml");
        assert_eq!(go_clean("/x/./y.yaml"), "/x/y.yaml");
        assert_eq!(go_clean(""), ".");
        // GetValuesFiles: only values.yaml is no values file at all.
        let only = vec!["./values.yaml".to_string()];
        assert!(effective_values_files(&only).is_empty());
        let two = vec!["values.yaml".to_string(), "prod.yaml".to_string()];
        assert_eq!(effective_values_files(&two), two.as_slice());
    }

    #[test]
    fn values_files_parse_as_sigs_yaml_into_a_map() {
        assert_eq!(
            parse_values_file("v.yaml", b"a: 1\n---\nb: 2\n").unwrap(),
            from_node(&crate::yaml::parse_one("a: 1\n").unwrap())
        );
        assert_eq!(
            parse_values_file("v.yaml", b"").unwrap(),
            from_node(&Node::map())
        );
        // A syntax error is worded as go-yaml words it, as Helm's
        // `fromYaml` (the same reader) reports it.
        let bad = "a: 1\nb: [1, 2\nc: 3\n";
        let helm = crate::helm::funcs::from_yaml(bad).unwrap_err();
        assert_eq!(
            parse_values_file("v.yaml", bad.as_bytes()).unwrap_err(),
            format!("unmarshaling values from 'v.yaml' failed: {helm}")
        );
        assert!(helm.starts_with("error converting YAML to JSON: yaml: line "));
        // An error past the first document does not count.
        assert!(parse_values_file("v.yaml", b"a: 1\n---\nb: [\n").is_ok());
        assert_eq!(
            parse_values_file("v.yaml", b"just text\n").unwrap_err(),
            "unmarshaling values from 'v.yaml' failed: error unmarshaling JSON: json: cannot unmarshal string into Go value of type map[string]interface {}"
        );
    }
}
