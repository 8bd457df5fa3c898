//! HelmReleases: chart source resolution, effective values in Flux's
//! merge order (helm-controller: each `valuesFrom` entry in order, merged
//! deeply, `targetPath` entries set at their path; `spec.values` last and
//! winning), and the objects helm-controller would install: the chart
//! rendered by flate's Helm engine ([`crate::helm::chart`]) with the
//! release name, namespace, capabilities and CRD policy helm-controller
//! uses, then its post-renderers (see [`render_all`]).

use crate::resource::Resource;
use crate::yaml::{Map, Node};

use super::charts::{ChartRequest, oci_chart_name};
use super::model::{HELM_GROUP, SourceRef, key};
use super::render::{KsReport, Status};

#[derive(Debug, Clone, Default)]
pub struct ChartInfo {
    /// Source kind: OCIRepository, HelmRepository, GitRepository, Bucket, HelmChart.
    pub kind: String,
    pub name: String,
    pub namespace: String,
    pub url: String,
    pub tag: String,
    pub digest: String,
    pub semver: String,
    /// Chart name (HelmRepository / GitRepository charts).
    pub chart: String,
    pub version: String,
    /// What to fetch and from where (None when the source is unknown).
    pub request: Option<ChartRequest>,
    /// Where flate found the chart (a cache entry or a source directory),
    /// relative to the repository when inside it.
    pub location: String,
    /// The version found in the cache (a range resolved).
    pub resolved_version: String,
    /// The version helm-controller's digest tracking gives the chart
    /// (`.Chart.Version` when rendered), when it changes it.
    pub tracked_version: String,
    /// The `helm pull` command that puts the chart into `.flate/charts`.
    pub pull: String,
    /// `valuesFiles` of `spec.chart.spec` (or of the HelmChart of
    /// `spec.chartRef`): merged into the chart's default values by
    /// source-controller (see [`super::helmrender`]).
    pub values_files: Vec<String>,
    /// `ignoreMissingValuesFiles`.
    pub ignore_missing_values_files: bool,
    /// Why the chart is not available offline although the HelmRelease is
    /// valid (a HelmChart of `spec.chartRef` that the environment does not
    /// render): the release is skipped with this message.
    pub unavailable: Option<String>,
}

/// What became of one HelmRelease.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HrStatus {
    Rendered,
    /// Not rendered and not an error: the chart is not available offline,
    /// or the release is suspended.
    Skipped,
    Failed,
}

impl HrStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            HrStatus::Rendered => "rendered",
            HrStatus::Skipped => "skipped",
            HrStatus::Failed => "failed",
        }
    }
}

#[derive(Debug, Clone)]
pub struct HelmReleaseReport {
    pub name: String,
    pub namespace: String,
    pub kustomization: String,
    pub chart: ChartInfo,
    /// Not failed (rendered or skipped).
    pub ok: bool,
    pub status: HrStatus,
    pub message: String,
    /// The Helm release name (`spec.releaseName`, else
    /// `[targetNamespace-]name`, shortened past 53 characters).
    pub release_name: String,
    /// `spec.targetNamespace`, else the HelmRelease's namespace.
    pub release_namespace: String,
    /// The objects helm-controller would install, post-rendered.
    pub objects: Vec<Resource>,
    /// How many of `objects`, at the start, are CRDs of the charts'
    /// `crds/` directories: helm-controller creates (or replaces) them
    /// by the CRD policy, outside the release, and never deletes them.
    pub crds: usize,
    pub warnings: Vec<String>,
    pub values: Node,
    /// Paths of `values` that came from a Secret (see `crate::secret`).
    pub secret_paths: crate::secret::SecretPaths,
    pub object: Resource,
    /// The chart calls `lookup` (see [`crate::helm::chart::Chart::calls_lookup`]):
    /// a failure, or a value missing from an object, may come from what it
    /// finds nothing of offline.
    pub calls_lookup: bool,
}

/// The rendered objects a HelmRelease may refer to, indexed by (kind,
/// namespace, name); an object without a namespace counts as in
/// `default`, as the HelmRelease itself does. And the Kustomizations that
/// were not rendered offline: an object missing from the index may be
/// among theirs.
struct Objects<'a> {
    index: std::collections::HashMap<(&'a str, &'a str, &'a str), &'a Resource>,
    /// The same objects, for what creates an object at runtime and
    /// Reflector's sources.
    makers: super::render::MakerIndex<'a>,
    not_rendered: Vec<String>,
    /// The Flux Operator's ResourceSets not expanded (`ns/name`): they
    /// make objects at runtime, which flate does not render.
    resource_sets: Vec<String>,
}

impl<'a> Objects<'a> {
    /// `pre`: the objects that exist before anything is applied
    /// (`--settings`), found after the rendered ones.
    fn new(reports: &'a [KsReport], pre: &'a [Resource]) -> Objects<'a> {
        let mut index = std::collections::HashMap::new();
        for r in reports.iter().flat_map(|k| k.objects.iter()).chain(pre) {
            index
                .entry((r.kind(), r.namespace_or_default(), r.name()))
                .or_insert(r);
        }
        let not_rendered = reports
            .iter()
            .filter(|k| k.status != Status::Rendered)
            .map(KsReport::key)
            .collect();
        // Those the operator would fail make nothing.
        let resource_sets = reports
            .iter()
            .flat_map(|k| k.unexpanded.iter())
            .filter(|u| matches!(u.reason, super::resourceset::NotExpanded::Offline(_)))
            .map(|u| u.key.clone())
            .collect();
        let makers =
            super::render::MakerIndex::new(index.iter().map(|((_, ons, _), r)| (*ons, *r)));
        Objects {
            index,
            makers,
            not_rendered,
            resource_sets,
        }
    }

    fn find(&self, kind: &str, ns: &str, name: &str) -> Option<&'a Resource> {
        self.index.get(&(kind, ns, name)).copied()
    }

    /// The rendered object of `kind` named `name` in `ns`, else the source
    /// Reflector copies there (see [`super::reflector`]).
    fn find_or_reflected(&self, kind: &str, ns: &str, name: &str) -> Option<&'a Resource> {
        self.find(kind, ns, name).or_else(|| {
            let labels = |n: &str| self.find("Namespace", "", n).map(|r| r.obj.clone());
            let mut candidates: Vec<(&str, &Resource)> = self.makers.named(kind, name).collect();
            // (The index is a hash map: the first in a stable order.)
            candidates.sort_by_key(|(ons, _)| *ons);
            super::reflector::source(candidates, kind, ns, name, &labels)
        })
    }

    /// `what` is not among the rendered objects: an error when every
    /// Kustomization was rendered (helm-controller would not find it
    /// either), else (`Ok`) why the release cannot be rendered offline,
    /// for a skip.
    fn absent(&self, what: &str, ns: &str) -> Result<String, String> {
        let msg = format!("{what} is not among the rendered objects");
        if self.not_rendered.is_empty() {
            if self.resource_sets.is_empty() {
                return Err(msg);
            }
            return Ok(format!(
                "{msg}, and may be made at runtime by {} (the Flux Operator's, which flate could not expand offline)",
                resource_sets_near(&self.resource_sets, ns)
            ));
        }
        let names = crate::output::first_few(&self.not_rendered, 3);
        let n = self.not_rendered.len();
        Ok(format!(
            "{msg}, and may be among those of the {n} Kustomization{} not rendered offline ({names})",
            if n == 1 { "" } else { "s" }
        ))
    }

    /// The rendered object that creates `kind` `name` in `ns` at runtime
    /// (see [`super::render::runtime_maker`]), if there is one.
    fn runtime_producer(&self, kind: &str, ns: &str, name: &str) -> Option<String> {
        let labels = |n: &str| self.find("Namespace", "", n).map(|r| r.obj.clone());
        let mut found: Vec<String> = self.makers.makers(kind, ns, name, &labels).collect();
        found.sort();
        found.into_iter().next()
    }
}

/// Up to three of the ResourceSets `names` (`ns/name`), those in
/// namespace `ns` when there are any (what most likely makes an object
/// of that namespace), else any: `ResourceSet a/b, ResourceSet a/c`.
pub fn resource_sets_near(names: &[String], ns: &str) -> String {
    let in_ns = |n: &&String| n.split_once('/').is_some_and(|(n_ns, _)| n_ns == ns);
    let near = if names.iter().any(|n| in_ns(&n)) {
        names.iter().filter(in_ns).collect::<Vec<_>>()
    } else {
        names.iter().collect()
    };
    let labels: Vec<String> = near.iter().map(|n| format!("ResourceSet {n}")).collect();
    crate::output::first_few(&labels, 3)
}

fn s(n: &Node, path: &[&str]) -> String {
    n.get_path(path)
        .and_then(Node::scalar_text)
        .unwrap_or_default()
}

/// Deep merge: maps merge key by key, anything else is replaced.
pub fn merge_values(base: &mut Node, over: &Node) {
    match (base, over) {
        (Node::Map(b), Node::Map(o)) => {
            for (k, v) in o.iter() {
                match b.get_mut(k) {
                    Some(bv) if matches!(bv, Node::Map(_)) && matches!(v, Node::Map(_)) => {
                        merge_values(bv, v)
                    }
                    _ => b.insert(k.clone(), v.clone()),
                }
            }
        }
        (b, o) => *b = o.clone(),
    }
}

fn set_path(root: &mut Node, path: &str, value: Node) {
    let parts: Vec<&str> = path.split('.').collect();
    let mut cur = root;
    for (i, p) in parts.iter().enumerate() {
        if !matches!(cur, Node::Map(_)) {
            *cur = Node::map();
        }
        let m = cur.as_map_mut().expect("map");
        if i == parts.len() - 1 {
            m.insert(*p, value);
            return;
        }
        if !matches!(m.get(p), Some(Node::Map(_))) {
            m.insert(*p, Node::map());
        }
        cur = m.get_mut(p).expect("inserted");
    }
}

/// The request for chart `chart` (version `version`) of source `src`
/// (a HelmRepository, GitRepository or Bucket).
fn request_from_source(src: &Resource, chart: &str, version: &str) -> Option<ChartRequest> {
    let url = s(&src.obj, &["spec", "url"]);
    match src.kind() {
        "HelmRepository" => {
            let oci = s(&src.obj, &["spec", "type"]) == "oci" || url.starts_with("oci://");
            Some(ChartRequest::Remote {
                chart: chart.to_string(),
                version: version.to_string(),
                url: if oci {
                    format!("{}/{chart}", url.trim_end_matches('/'))
                } else {
                    url
                },
                oci,
            })
        }
        "GitRepository" | "Bucket" => Some(ChartRequest::SourcePath {
            kind: src.kind().to_string(),
            namespace: if src.namespace().is_empty() {
                "default".into()
            } else {
                src.namespace().to_string()
            },
            name: src.name().to_string(),
            path: chart.to_string(),
        }),
        _ => None,
    }
}

/// `valuesFiles` and `ignoreMissingValuesFiles` of a chart template
/// spec or a HelmChart spec.
fn values_files_of(spec: &Node) -> (Vec<String>, bool) {
    let files = match spec.get("valuesFiles") {
        Some(Node::Seq(v)) => v.iter().filter_map(Node::scalar_text).collect(),
        _ => Vec::new(),
    };
    let ignore = spec
        .get("ignoreMissingValuesFiles")
        .and_then(Node::as_bool)
        .unwrap_or(false);
    (files, ignore)
}

fn resolve_chart(
    hr: &Resource,
    ns: &str,
    all: &Objects<'_>,
    is_repo: &dyn Fn(&SourceRef) -> bool,
) -> Result<ChartInfo, String> {
    let spec = hr.obj.get("spec").cloned().unwrap_or(Node::Null);
    if let Some(cr) = spec.get("chartRef").filter(|n| !n.is_null()) {
        let kind = s(cr, &["kind"]);
        let name = s(cr, &["name"]);
        let cns = Some(s(cr, &["namespace"]))
            .filter(|x| !x.is_empty())
            .unwrap_or(ns.to_string());
        if !matches!(
            kind.as_str(),
            "OCIRepository" | "HelmChart" | "ExternalArtifact"
        ) {
            return Err(format!(
                "{}: spec.chartRef.kind '{kind}' is not supported: helm-controller accepts OCIRepository, HelmChart or ExternalArtifact",
                hr.origin
            ));
        }
        let mut info = ChartInfo {
            kind: kind.clone(),
            name: name.clone(),
            namespace: cns.clone(),
            ..Default::default()
        };
        if kind == "ExternalArtifact" {
            // Made in the cluster (by source-watcher's ArtifactGenerator,
            // or another controller), never applied from the repository:
            // the render builds a generator's artifact, or reads a
            // `--source` copy (see `render_helmreleases`).
            info.request = Some(ChartRequest::Artifact {
                kind,
                namespace: cns,
                name,
            });
            return Ok(info);
        }
        let Some(src) = all.find(&kind, &cns, &name) else {
            if kind == "HelmChart" {
                // A HelmChart is often applied outside the repository;
                // without it the chart is unknown offline.
                info.unavailable = Some(format!(
                    "{}: spec.chartRef HelmChart {cns}/{name} is not among the objects this environment renders, so its chart is unknown offline (add the HelmChart to the repository, or use spec.chart)",
                    hr.origin
                ));
                return Ok(info);
            }
            info.unavailable = Some(all.absent(
                &format!(
                    "{}: chart source {kind}/{cns}/{name} (spec.chartRef)",
                    hr.origin
                ),
                &cns,
            )?);
            return Ok(info);
        };
        if kind == "HelmChart" {
            let hc = src.obj.get("spec").cloned().unwrap_or(Node::Null);
            info.chart = s(&hc, &["chart"]);
            info.version = s(&hc, &["version"]);
            (info.values_files, info.ignore_missing_values_files) = values_files_of(&hc);
            let sref = hc.get("sourceRef").cloned().unwrap_or(Node::Null);
            // LocalHelmChartSourceReference: the HelmChart's namespace.
            let sref = SourceRef {
                kind: s(&sref, &["kind"]),
                name: s(&sref, &["name"]),
                namespace: cns.clone(),
            };
            match all.find(&sref.kind, &cns, &sref.name) {
                Some(repo) => {
                    info.url = s(&repo.obj, &["spec", "url"]);
                    info.request = request_from_source(repo, &info.chart, &info.version);
                    if info.request.is_none() {
                        return Err(format!(
                            "{}: HelmChart {cns}/{name}: spec.sourceRef.kind '{}' is not supported (HelmRepository, GitRepository or Bucket)",
                            src.origin, sref.kind
                        ));
                    }
                }
                // The repository's own GitRepository need not be among
                // the objects.
                None if is_repo(&sref) => {
                    info.request = Some(ChartRequest::SourcePath {
                        kind: sref.kind.clone(),
                        namespace: sref.namespace.clone(),
                        name: sref.name.clone(),
                        path: info.chart.clone(),
                    });
                }
                None => {
                    info.unavailable = Some(all.absent(
                        &format!(
                            "{}: chart source {}/{cns}/{} (spec.sourceRef of HelmChart {cns}/{name})",
                            src.origin, sref.kind, sref.name
                        ),
                        &cns,
                    )?);
                }
            }
        } else {
            info.url = s(&src.obj, &["spec", "url"]);
            info.tag = s(&src.obj, &["spec", "ref", "tag"]);
            info.digest = s(&src.obj, &["spec", "ref", "digest"]);
            info.semver = s(&src.obj, &["spec", "ref", "semver"]);
            info.chart = oci_chart_name(&info.url);
            // source-controller's precedence: digest, then semver, then tag
            // (`latest` when none).
            info.version = if !info.semver.is_empty() {
                info.semver.clone()
            } else {
                info.tag.clone()
            };
            info.request = Some(ChartRequest::Remote {
                chart: info.chart.clone(),
                version: info.version.clone(),
                url: info.url.clone(),
                oci: true,
            });
        }
        return Ok(info);
    }
    let cs = spec
        .get_path(&["chart", "spec"])
        .cloned()
        .ok_or("neither spec.chartRef nor spec.chart is set")?;
    let sref = cs.get("sourceRef").cloned().unwrap_or(Node::Null);
    let kind = s(&sref, &["kind"]);
    let name = s(&sref, &["name"]);
    let sns = Some(s(&sref, &["namespace"]))
        .filter(|x| !x.is_empty())
        .unwrap_or(ns.to_string());
    let (values_files, ignore_missing_values_files) = values_files_of(&cs);
    let base = ChartInfo {
        kind: kind.clone(),
        name: name.clone(),
        namespace: sns.clone(),
        chart: s(&cs, &["chart"]),
        version: s(&cs, &["version"]),
        values_files,
        ignore_missing_values_files,
        ..Default::default()
    };
    let sref = SourceRef {
        kind: kind.clone(),
        name: name.clone(),
        namespace: sns.clone(),
    };
    // The repository's own GitRepository need not be among the objects.
    if is_repo(&sref) && all.find(&kind, &sns, &name).is_none() {
        return Ok(ChartInfo {
            request: Some(ChartRequest::SourcePath {
                kind,
                namespace: sns,
                name,
                path: base.chart.clone(),
            }),
            ..base
        });
    }
    let Some(src) = all.find(&kind, &sns, &name) else {
        let why = all.absent(
            &format!("chart source {kind}/{sns}/{name} (spec.chart.spec.sourceRef)"),
            &sns,
        )?;
        return Ok(ChartInfo {
            unavailable: Some(why),
            ..base
        });
    };
    Ok(ChartInfo {
        url: s(&src.obj, &["spec", "url"]),
        request: request_from_source(src, &base.chart, &base.version),
        ..base
    })
}

/// The effective values of a HelmRelease.
struct Values {
    values: Node,
    /// The paths among them that came from a Secret.
    secret_paths: crate::secret::SecretPaths,
    /// `valuesFrom` entries left out, and why.
    warnings: Vec<String>,
    /// Why they cannot be known offline (a `valuesFrom` object missing
    /// while some Kustomizations were not rendered).
    unknown: Option<String>,
}

/// The effective values of `hr` and the paths among them that came from a
/// Secret: a taint tree (see `crate::secret::taint_tree`) goes through the
/// same merges as the values. A `valuesFrom` Secret that an ExternalSecret
/// or SealedSecret creates at runtime is left out with a warning, as
/// `substituteFrom` does.
fn resolve_values(hr: &Resource, ns: &str, all: &Objects<'_>) -> Result<Values, String> {
    use crate::resource::PathElem;
    use crate::secret::{taint_tree, taint_tree_from_paths, under};
    let mut values = Node::map();
    let mut taint = Node::map();
    let mut warnings = Vec::new();
    let mut unknown = None;
    if let Some(Node::Seq(vf)) = hr.obj.get_path(&["spec", "valuesFrom"]) {
        for v in vf {
            let kind = s(v, &["kind"]);
            let name = s(v, &["name"]);
            let vkey = Some(s(v, &["valuesKey"]))
                .filter(|x| !x.is_empty())
                .unwrap_or("values.yaml".into());
            let optional = v.get("optional").and_then(Node::as_bool).unwrap_or(false);
            let target = s(v, &["targetPath"]);
            let Some(obj) = all.find_or_reflected(&kind, ns, &name) else {
                if optional {
                    continue;
                }
                if let Some(p) = all.runtime_producer(&kind, ns, &name) {
                    let w = format!(
                        "valuesFrom {kind}/{ns}/{name} is produced at runtime by {p}: absent offline, rendered without its values"
                    );
                    // (Once for several entries of one Secret's keys.)
                    if !warnings.contains(&w) {
                        warnings.push(w);
                    }
                    continue;
                }
                unknown = Some(
                    all.absent(&format!("valuesFrom {kind}/{ns}/{name}"), ns)
                        .map_err(|m| {
                            // Flux finds it if something creates it in the
                            // cluster, which flate may not know of.
                            let known = super::render::RUNTIME_MAKERS;
                            format!("{m}: if something in the cluster creates it (flate follows {known}), give a file that defines it to --settings (or list it under `settings` in .flate.yaml)")
                        })?,
                );
                continue;
            };
            // A Secret's keys, or a ConfigMap key holding a value that
            // was substituted from a Secret.
            let secret = kind == "Secret"
                || ["data", "binaryData"].iter().any(|f| {
                    crate::secret::covers(
                        &obj.secret_paths,
                        &[PathElem::Key((*f).into()), PathElem::Key(vkey.clone())],
                    )
                });
            let text = match (
                kind.as_str(),
                obj.obj.get_path(&["data", &vkey]),
                obj.obj.get_path(&["stringData", &vkey]),
            ) {
                ("Secret", Some(d), _) => Some(
                    crate::secret::decode_data(&d.scalar_text().unwrap_or_default())
                        .map_err(|e| format!("Secret/{name}: data.{vkey}: {e}"))?,
                ),
                ("Secret", None, Some(sd)) => sd.scalar_text(),
                (_, Some(d), _) => d.scalar_text(),
                _ => None,
            };
            let Some(text) = text else {
                if optional {
                    continue;
                }
                return Err(format!("valuesFrom {kind}/{ns}/{name} has no key '{vkey}'"));
            };
            if target.is_empty() {
                let parsed = crate::yaml::parse_one(&text)
                    .map_err(|e| format!("valuesFrom {kind}/{name} key {vkey}: {e}"))?;
                if !parsed.is_null() {
                    merge_values(&mut values, &parsed);
                    merge_values(&mut taint, &taint_tree(&parsed, secret));
                }
            } else {
                set_path(&mut values, &target, Node::Str(text));
                set_path(&mut taint, &target, Node::Bool(secret));
            }
        }
    }
    if let Some(v @ Node::Map(_)) = hr.obj.get_path(&["spec", "values"]) {
        merge_values(&mut values, v);
        // spec.values may hold values substituted from a Secret.
        let inline = under(
            &crate::secret::paths_of(hr),
            &[PathElem::Key("spec".into()), PathElem::Key("values".into())],
        );
        merge_values(&mut taint, &taint_tree_from_paths(v, &inline));
    }
    Ok(Values {
        values,
        secret_paths: crate::secret::true_leaves(&taint),
        warnings,
        unknown,
    })
}

/// helm-controller's `ShortenName` (internal/release/name.go): a name
/// longer than 53 characters becomes its first 40 characters, `-`, and the
/// first 12 hex digits of its SHA-256.
pub fn shorten_name(name: &str) -> String {
    use sha2::{Digest, Sha256};
    if name.len() <= 53 {
        return name.to_string();
    }
    let sum = Sha256::digest(name.as_bytes());
    let hex: String = sum.iter().map(|b| format!("{b:02x}")).collect();
    let cut = name.get(..40).unwrap_or(name);
    format!("{cut}-{}", &hex[..12])
}

/// `GetReleaseName` then `ShortenName`, as helm-controller installs:
/// `spec.releaseName`, else `targetNamespace-name`, else `name`.
pub fn release_name(hr: &Resource) -> String {
    let spec = |f: &str| s(&hr.obj, &["spec", f]);
    let n = if !spec("releaseName").is_empty() {
        spec("releaseName")
    } else if !spec("targetNamespace").is_empty() {
        format!("{}-{}", spec("targetNamespace"), hr.name())
    } else {
        hr.name().to_string()
    };
    shorten_name(&n)
}

/// Resolves every HelmRelease of the rendered Kustomizations (chart and
/// values; the chart is rendered by [`render_all`]).
pub fn resolve_all(
    reports: &[KsReport],
    preexisting: &[Resource],
    is_repo: &dyn Fn(&SourceRef) -> bool,
) -> Vec<HelmReleaseReport> {
    resolve_some(reports, preexisting, is_repo, &|_| true)
}

/// [`resolve_all`] of the HelmReleases `wanted` accepts.
pub fn resolve_some(
    reports: &[KsReport],
    preexisting: &[Resource],
    is_repo: &dyn Fn(&SourceRef) -> bool,
    wanted: &dyn Fn(&Resource) -> bool,
) -> Vec<HelmReleaseReport> {
    let all = Objects::new(reports, preexisting);
    let mut out = Vec::new();
    for k in reports.iter().filter(|k| k.status == Status::Rendered) {
        for r in &k.objects {
            let g = r.gvk();
            if g.group != HELM_GROUP || g.kind != "HelmRelease" || !wanted(r) {
                continue;
            }
            let ns = r.namespace_or_default();
            let mut chart = resolve_chart(r, ns, &all, is_repo);
            let values = resolve_values(r, ns, &all);
            if let (Ok(c), Ok(v)) = (&mut chart, &values)
                && c.unavailable.is_none()
            {
                c.unavailable = v.unknown.clone();
            }
            let mut msgs = Vec::new();
            if let Err(e) = &chart {
                msgs.push(e.clone());
            }
            if let Err(e) = &values {
                msgs.push(e.clone());
            }
            let ok = msgs.is_empty();
            let target = s(&r.obj, &["spec", "targetNamespace"]);
            out.push(HelmReleaseReport {
                name: r.name().to_string(),
                namespace: ns.to_string(),
                kustomization: key(&k.namespace, &k.name),
                chart: chart.unwrap_or_default(),
                ok,
                status: if ok {
                    HrStatus::Skipped
                } else {
                    HrStatus::Failed
                },
                message: if ok {
                    "chart not rendered".into()
                } else {
                    msgs.join("; ")
                },
                release_name: release_name(r),
                release_namespace: if target.is_empty() {
                    ns.to_string()
                } else {
                    target
                },
                objects: Vec::new(),
                crds: 0,
                warnings: values
                    .as_ref()
                    .map(|v| v.warnings.clone())
                    .unwrap_or_default(),
                secret_paths: values
                    .as_ref()
                    .map(|v| v.secret_paths.clone())
                    .unwrap_or_default(),
                values: values.map(|v| v.values).unwrap_or(Node::Map(Map::new())),
                object: r.clone(),
                calls_lookup: false,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortened_names() {
        assert_eq!(shorten_name("podinfo"), "podinfo");
        let n53 = "a".repeat(53);
        assert_eq!(shorten_name(&n53), n53);
        // The vectors of helm-controller's internal/release/name_test.go.
        assert_eq!(
            shorten_name("release-name-with-very-long-name-which-is-longer-than-53-characters"),
            "release-name-with-very-long-name-which-i-788ca0d0d7b0"
        );
        assert_eq!(
            shorten_name(
                "another-release-name-with-very-long-name-which-is-longer-than-53-characters"
            ),
            "another-release-name-with-very-long-name-7e72150d5a36"
        );
        assert_eq!(shorten_name(""), "");
    }
}
