//! Rendering as `helm template` does (`pkg/action/install.go`,
//! `pkg/engine/engine.go`, `pkg/release/v1/util/manifest_sorter.go`):
//! every enabled chart's templates parsed into one set (deepest paths
//! first, so the top chart's `define`s win), each non-partial template
//! executed with its chart's values, `<no value>` removed, documents split
//! on `---`, hooks separated, manifests sorted by kind.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use super::deps::{self, WChart, compatible};
use super::head::Head;
use super::objects::{Capabilities, DEFAULT_API_VERSIONS, Files, KubeVersion, VersionSet};
use super::values::{M, coalesce_values, from_node};
use super::{Chart, ChartError, Manifest, Metadata, RenderOptions, Rendered};
use crate::template::speculate::order_matters;
use crate::template::{Map, ParsedText, Templates, Value};

/// The function set every chart is rendered with (Go's, Sprig's and
/// Helm's functions), registered once per process; each render clones it,
/// and each template runs with a random generator of its own
/// ([`file_set`]), so that Sprig's random functions give the same output
/// for the same render.
fn prototype() -> &'static Templates {
    static PROTOTYPE: OnceLock<Templates> = OnceLock::new();
    PROTOTYPE.get_or_init(|| {
        let mut t = Templates::new();
        t.name = "gotpl".into();
        // Room for Go's, Sprig's and Helm's functions at once (about 250),
        // rather than by doubling from 16.
        std::sync::Arc::make_mut(&mut t.funcs).reserve(320);
        crate::helm::funcs::add_funcs(&mut t);
        if !t.has_func("fail") {
            t.add_func("fail", 1, Some(1), |_, a| {
                let msg = crate::template::value::sprint_value(&a[0]);
                Err(format!(
                    "{}{msg}{}",
                    crate::helm::funcs::ERR_START,
                    crate::helm::funcs::ERR_END
                ))
            });
        }
        if !t.has_func("lookup") {
            t.add_func("lookup", 4, Some(4), |_, _| Ok(Value::map(BTreeMap::new())));
        }
        if !t.has_func("getHostByName") {
            t.add_func("getHostByName", 1, Some(1), |_, _| {
                Ok(Value::Str(String::new()))
            });
        }
        t
    })
}

/// Helm's `InstallOrder` of kinds.
const INSTALL_ORDER: &[&str] = &[
    "PriorityClass",
    "Namespace",
    "NetworkPolicy",
    "ResourceQuota",
    "LimitRange",
    "PodSecurityPolicy",
    "PodDisruptionBudget",
    "ServiceAccount",
    "Secret",
    "SecretList",
    "ConfigMap",
    "StorageClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "CustomResourceDefinition",
    "ClusterRole",
    "ClusterRoleList",
    "ClusterRoleBinding",
    "ClusterRoleBindingList",
    "Role",
    "RoleList",
    "RoleBinding",
    "RoleBindingList",
    "Service",
    "DaemonSet",
    "Pod",
    "ReplicationController",
    "ReplicaSet",
    "Deployment",
    "HorizontalPodAutoscaler",
    "StatefulSet",
    "Job",
    "CronJob",
    "IngressClass",
    "Ingress",
    "APIService",
    "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration",
];

const HOOK_EVENTS: &[&str] = &[
    "pre-install",
    "post-install",
    "pre-delete",
    "post-delete",
    "pre-upgrade",
    "post-upgrade",
    "pre-rollback",
    "post-rollback",
    "test",
    "test-success",
];

/// `.Chart` for a chart (Helm's `structToMap` of the metadata, Go field names).
fn chart_value(
    md: &Metadata,
    name: &str,
    deps: Option<&Vec<super::Dependency>>,
    is_root: bool,
) -> Value {
    let s = |x: &str| Value::Str(x.to_string());
    let list = |v: &[String]| Value::List(v.iter().map(|x| s(x)).collect());
    let mut m = M::new();
    m.insert("Name".into(), s(name));
    m.insert("Home".into(), s(&md.home));
    m.insert("Sources".into(), list(&md.sources));
    m.insert("Version".into(), s(&md.version));
    m.insert("Description".into(), s(&md.description));
    m.insert("Keywords".into(), list(&md.keywords));
    m.insert(
        "Maintainers".into(),
        Value::List(
            md.maintainers
                .iter()
                .map(|x| {
                    Value::map(M::from([
                        ("Name".into(), s(&x.name)),
                        ("Email".into(), s(&x.email)),
                        ("URL".into(), s(&x.url)),
                    ]))
                })
                .collect(),
        ),
    );
    m.insert("Icon".into(), s(&md.icon));
    m.insert("APIVersion".into(), s(&md.api_version));
    m.insert("Condition".into(), s(&md.condition));
    m.insert("Tags".into(), s(&md.tags));
    m.insert("AppVersion".into(), s(&md.app_version));
    m.insert("Deprecated".into(), Value::Bool(md.deprecated));
    // A `map[string]string`, nil when Chart.yaml has none.
    m.insert(
        "Annotations".into(),
        Value::Map(Map::strings(md.annotations.clone())),
    );
    m.insert("KubeVersion".into(), s(&md.kube_version));
    m.insert(
        "Dependencies".into(),
        Value::List(
            deps.map(|d| d.as_slice())
                .unwrap_or(&[])
                .iter()
                .map(|d| {
                    Value::map(M::from([
                        ("Name".into(), s(&d.name)),
                        ("Version".into(), s(&d.version)),
                        ("Repository".into(), s(&d.repository)),
                        ("Condition".into(), s(&d.condition)),
                        ("Tags".into(), list(&d.tags)),
                        ("Enabled".into(), Value::Bool(d.enabled)),
                        ("ImportValues".into(), Value::List(d.import_values.clone())),
                        ("Alias".into(), s(&d.alias)),
                    ]))
                })
                .collect(),
        ),
    );
    m.insert("Type".into(), s(&md.chart_type));
    m.insert("IsRoot".into(), Value::Bool(is_root));
    Value::map(m)
}

/// One template to execute.
struct Renderable {
    /// Index into the list of per-chart render values.
    chart: usize,
    base_path: String,
    /// The chart's directory or archive, and the file's name in it.
    origin: std::path::PathBuf,
}

struct Collect<'c> {
    /// Per chart: its render values (`next` in Helm's engine).
    nexts: Vec<Value>,
    templates: BTreeMap<String, (Renderable, &'c Chart, &'c super::TemplateFile)>,
}

/// `recAllTpls`: the render values of `c` (and, recursively, its subcharts).
fn all_templates<'c>(
    w: &WChart<'c>,
    parent_values: Option<&Map>,
    top: &M,
    full_path: &str,
    out: &mut Collect<'c>,
) -> Value {
    let is_root = parent_values.is_none();
    let values = match parent_values {
        None => match top.get("Values") {
            Some(Value::Map(m)) => Value::Map(m.as_helm_values()),
            _ => Value::Map(Map::default().as_helm_values()),
        },
        // The subchart's section of its parent's values: the same map.
        Some(pv) => match pv.get(&w.name) {
            Some(Value::Map(m)) => Value::Map(m.as_helm_values()),
            _ => Value::Map(Map::default().as_helm_values()),
        },
    };
    let mut subcharts = M::new();
    let values_map = match &values {
        Value::Map(m) => m.clone(),
        _ => Map::default(),
    };
    for d in &w.deps {
        let sub_path = format!("{full_path}/charts/{}", d.name);
        let v = all_templates(d, Some(&values_map), top, &sub_path, out);
        subcharts.insert(d.name.clone(), v);
    }
    let mut next = M::new();
    next.insert(
        "Chart".into(),
        chart_value(&w.chart.metadata, &w.name, w.meta_deps.as_ref(), is_root),
    );
    next.insert("Files".into(), Value::object(Files::new(&w.chart.files)));
    next.insert(
        "Release".into(),
        top.get("Release").cloned().unwrap_or_default(),
    );
    next.insert(
        "Capabilities".into(),
        top.get("Capabilities").cloned().unwrap_or_default(),
    );
    next.insert("Values".into(), values);
    next.insert("Subcharts".into(), Value::map(subcharts));
    // Helm's top-level `.` is a `Values` too (`typeOf .`, `.AsMap`).
    let next = Value::Map(Map::new(next).as_helm_values());
    let idx = out.nexts.len();
    out.nexts.push(next.clone());
    let library = w.chart.metadata.is_library();
    for t in &w.chart.templates {
        if !in_template_set(library, &t.name) {
            continue;
        }
        out.templates.insert(
            format!("{full_path}/{}", t.name),
            (
                Renderable {
                    chart: idx,
                    base_path: format!("{full_path}/templates"),
                    origin: w.chart.path.join(&t.name),
                },
                w.chart,
                t,
            ),
        );
    }
    next
}

/// Whether template `name` of a chart (a library chart when `library`)
/// joins the render's template set: a library chart's partials only.
pub(super) fn in_template_set(library: bool, name: &str) -> bool {
    !library || base_name(name).starts_with('_')
}

fn base_name(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}

/// Helm's `sortTemplates`: most path segments first, then reverse
/// lexical order.
fn sort_templates(names: &mut [String]) {
    names.sort_by_cached_key(|n| {
        (
            std::cmp::Reverse(n.bytes().filter(|&b| b == b'/').count()),
            std::cmp::Reverse(n.clone()),
        )
    });
}

impl Chart {
    /// The same chart with `values` as its default values (what
    /// source-controller's `OverwriteChartDefaultValues` makes of a chart
    /// whose values files it merged) and `version` as its version (what
    /// helm-controller's digest tracking makes of a chart from an
    /// OCIRepository), each when given; parsed templates are shared.
    pub fn with(&self, values: Option<Value>, version: Option<String>) -> Chart {
        let parsed = self.parsed.lock().map(|m| m.clone()).unwrap_or_default();
        let mut metadata = self.metadata.clone();
        if let Some(v) = version {
            metadata.version = v;
        }
        Chart {
            metadata,
            templates: self.templates.clone(),
            files: self.files.clone(),
            values: values.unwrap_or_else(|| self.values.clone()),
            schema: self.schema.clone(),
            dependencies: self.dependencies.clone(),
            path: self.path.clone(),
            parsed: Arc::new(std::sync::Mutex::new(parsed)),
            ahead: None,
        }
    }
}

/// Renders a chart as `helm template` does.
pub fn render(chart: &Chart, opts: &RenderOptions) -> Result<Rendered, ChartError> {
    let user = match from_node(&opts.values) {
        Value::Map(m) => m.to_btree(),
        _ => M::new(),
    };
    render_values(chart, opts, user)
}

/// [`render`] with the user values given as template data (`opts.values`
/// is not read): what `-f` files and `--set` arguments
/// ([`super::strvals`]) make, where `--set` integers are int64.
pub fn render_values(chart: &Chart, opts: &RenderOptions, user: M) -> Result<Rendered, ChartError> {
    let mut warnings = Vec::new();
    let chart_err = |m: String| ChartError::at(m, &chart.path);
    match chart.metadata.chart_type.as_str() {
        "" | "application" => {}
        t => return Err(chart_err(format!("{t} charts are not installable"))),
    }
    if let Some(reqs) = &chart.metadata.dependencies {
        let missing: Vec<&str> = reqs
            .iter()
            .filter(|r| !chart.dependencies.iter().any(|d| d.metadata.name == r.name))
            .map(|r| r.name.as_str())
            .collect();
        if !missing.is_empty() {
            return Err(chart_err(format!(
                "an error occurred while checking for chart dependencies. You may need to run `helm dependency build` to fetch missing dependencies: found in Chart.yaml, but missing in charts/ directory: {}",
                missing.join(", ")
            )));
        }
    }
    let kube = match &opts.kube_version {
        Some(v) => KubeVersion::parse(v)
            .map_err(|e| ChartError::new(format!("invalid kube version '{v}': {e}")))?,
        None => KubeVersion::default_version(),
    };
    let mut w = WChart::new(chart);
    deps::process(&mut w, &user, &mut warnings)
        .map_err(|e| chart_err(format!("chart dependencies processing failed: {e}")))?;
    // Templates being parsed ahead (`load_parsing_ahead`): the enabled
    // subcharts' too, while the values are made.
    if let Some(ahead) = &chart.ahead {
        ahead.push(subchart_templates(&w));
    }
    let vals = coalesce_values(&w, user, false, &mut warnings).map_err(chart_err)?;
    if !opts.skip_schema_validation {
        super::schema::validate(&w, &vals, &mut warnings).map_err(|e| {
            chart_err(format!(
                "values don't meet the specifications of the schema(s) in the following chart(s):\n{e}"
            ))
        })?;
    }
    let mut api: Vec<String> = DEFAULT_API_VERSIONS.iter().map(|s| s.to_string()).collect();
    api.extend(opts.api_versions.iter().cloned());
    let caps = Capabilities {
        kube: kube.clone(),
        api: VersionSet(api),
    };
    let mut top = M::new();
    top.insert(
        "Release".into(),
        Value::map(M::from([
            ("Name".into(), Value::Str(opts.release_name.clone())),
            ("Namespace".into(), Value::Str(opts.namespace.clone())),
            ("IsUpgrade".into(), Value::Bool(opts.is_upgrade)),
            ("IsInstall".into(), Value::Bool(!opts.is_upgrade)),
            ("Revision".into(), Value::Int(1)),
            ("Service".into(), Value::Str("Helm".into())),
        ])),
    );
    top.insert("Capabilities".into(), Value::object(caps));
    top.insert("Values".into(), Value::map(vals));
    if !chart.metadata.kube_version.is_empty() {
        let normalized = if kube.normalized.is_empty() {
            &kube.version
        } else {
            &kube.normalized
        };
        if !compatible(&chart.metadata.kube_version, normalized) {
            return Err(chart_err(format!(
                "chart requires kubeVersion: {} which is incompatible with Kubernetes {}",
                chart.metadata.kube_version, kube.version
            ))
            .rendering());
        }
    }

    // The template set.
    let mut collect = Collect {
        nexts: Vec::new(),
        templates: BTreeMap::new(),
    };
    all_templates(&w, None, &top, &w.name.clone(), &mut collect);
    if let Some(ahead) = &chart.ahead {
        ahead.finish();
    }
    let mut keys: Vec<String> = collect.templates.keys().cloned().collect();
    sort_templates(&mut keys);
    let mut set = prototype().clone();
    // Templates not parsed yet (a chart rendered again has them cached):
    // on every thread when there is much to parse.
    let unparsed: Vec<&String> = match chart.parsed.lock() {
        Ok(cache) => keys.iter().filter(|k| !cache.contains_key(*k)).collect(),
        Err(_) => Vec::new(),
    };
    let size: usize = unparsed
        .iter()
        .map(|k| collect.templates[*k].2.data.size())
        .sum();
    if size >= PARALLEL_PARSE_BYTES
        || (size >= PARALLEL_PARSE_MANY_BYTES && unparsed.len() >= PARALLEL_PARSE_MANY)
    {
        use rayon::prelude::*;
        unparsed.par_iter().for_each(|k| {
            // An error comes again, and is reported, in the loop below.
            let _ = parsed_text(chart, k, collect.templates[*k].2);
        });
    }
    for k in &keys {
        let (r, _, file) = &collect.templates[k];
        let parsed = parsed_text(chart, k, file).map_err(|m| ChartError::at(m, &r.origin))?;
        match &*parsed {
            Ok(p) => set.add_parsed(p),
            Err(e) => {
                return Err(ChartError::at(crate::helm::error_text(e), &r.origin).rendering());
            }
        }
    }

    // Execution. For a large chart rendered from the command line, the
    // templates run speculatively on every thread (`speculate`) up to the
    // first that cannot, which runs in order, and so on; otherwise in
    // order, the documents of each template read (their heads) on another
    // thread while the next templates execute.
    // A template of 128 KiB or more is almost always static text (CRDs):
    // running it is copying, and copies on two threads at once wait on
    // each other's page faults. Such templates do not count toward
    // speculation (`action_bytes`). Below that many bytes, what tells the
    // work to share is the actions (`{{`, helpers included), if the chart
    // holds little static text besides.
    let (template_bytes, action_bytes) =
        collect.templates.values().fold((0, 0), |(all, small), t| {
            let n = t.2.data.size();
            let counted = if n < PARALLEL_EXEC_LARGE_TEMPLATE {
                n
            } else {
                0
            };
            (all + n, small + counted)
        });
    let many_actions = || {
        let mut actions = 0;
        for t in collect.templates.values() {
            if let Ok(b) = t.2.data.get() {
                actions += memchr::memmem::find_iter(b, b"{{").count();
            }
            if actions >= PARALLEL_EXEC_ACTIONS {
                return true;
            }
        }
        false
    };
    let order: Vec<&String> = keys
        .iter()
        .filter(|k| !base_name(k).starts_with('_'))
        .collect();
    let outer = rayon::current_thread_index().is_none();
    let speculative = outer
        && order.len() >= PARALLEL_EXEC_MIN
        && (action_bytes >= PARALLEL_EXEC_BYTES
            || (template_bytes < PARALLEL_EXEC_BYTES && many_actions()));
    let ahead =
        (!speculative && template_bytes >= PARALLEL_HEADS_BYTES && outer).then(HeadsAhead::start);
    let mut files: BTreeMap<String, String> = BTreeMap::new();
    let mut ran: ReadDocs = Vec::new();
    let mut rounds = 0;
    let mut i = 0;
    while i < order.len() {
        if speculative && rounds < MAX_SPECULATIONS {
            rounds += 1;
            let kept = speculate(&set, &collect, &order[i..], &mut ran, &mut files)?;
            // Each left its name in its chart's values, as in order.
            for k in &order[i..i + kept] {
                set_template(&collect, k, &collect.nexts[collect.templates[*k].0.chart]);
            }
            i += kept;
            if i == order.len() {
                break;
            }
        }
        let k = order[i];
        let (r, _, _) = &collect.templates[k];
        let data = &collect.nexts[r.chart];
        set_template(&collect, k, data);
        let out = file_set(&set, k)
            .execute(k, data)
            .map_err(|e| ChartError::at(crate::helm::error_text(&e), &r.origin).rendering())?;
        let out = without_no_value(out);
        match &ahead {
            Some(a) if !k.ends_with("NOTES.txt") => a.queue(k, out),
            _ => {
                files.insert(k.clone(), out);
            }
        }
        i += 1;
    }

    // NOTES.txt
    let notes_name = format!("{}/templates/NOTES.txt", w.name);
    let mut notes = None;
    files.retain(|k, v| {
        if k.ends_with("NOTES.txt") {
            if *k == notes_name {
                notes = Some(std::mem::take(v));
            }
            return false;
        }
        true
    });

    let mut read = match ahead {
        Some(a) => a.finish(),
        None => read_heads(files),
    };
    if !ran.is_empty() {
        // By path, as the documents of the templates run in order are.
        read.extend(ran);
        read.sort_by(|a, b| a.0.cmp(&b.0));
    }
    let (hooks, generic) = sort_manifests(read).map_err(ChartError::rendering)?;
    let mut manifests = Vec::new();
    if opts.include_crds {
        crd_objects(&w, &w.name, &mut manifests)?;
    }
    manifests.extend(generic);
    for h in hooks {
        if opts.skip_tests && h.test {
            continue;
        }
        manifests.push(h);
    }
    Ok(Rendered {
        manifests,
        notes,
        warnings,
    })
}

/// Sets `.Template` in the render values `data` of template `k`'s chart.
fn set_template(collect: &Collect, k: &str, data: &Value) {
    if let Value::Map(m) = data {
        m.insert("Template", template_value(collect, k));
    }
}

/// `.Template` of template `k`.
fn template_value(collect: &Collect, k: &str) -> Value {
    Value::map(M::from([
        ("Name".into(), Value::Str(k.to_string())),
        (
            "BasePath".into(),
            Value::Str(collect.templates[k].0.base_path.clone()),
        ),
    ]))
}

/// A template's output with Helm's `<no value>` removed.
fn without_no_value(out: String) -> String {
    if memchr::memmem::find(out.as_bytes(), b"<no value>").is_some() {
        out.replace("<no value>", "")
    } else {
        out
    }
}

/// Templates of at least this many bytes in all (those under
/// [`PARALLEL_EXEC_LARGE_TEMPLATE`] each), and this many to execute, run
/// speculatively on every thread (below, starting them costs more than it
/// saves); so do templates of fewer bytes in all (large ones included)
/// holding at least [`PARALLEL_EXEC_ACTIONS`] actions. Measured on public
/// charts (docs/benchmarks.md): charts of 580 to 860 actions were 3-12%
/// slower run so, those of 1,400 and more 8-18% faster; cert-manager
/// 1.20, 1,557 actions beside 1 MB of CRD text, 2-4% slower.
const PARALLEL_EXEC_BYTES: usize = 256 * 1024;
const PARALLEL_EXEC_ACTIONS: usize = 1024;
const PARALLEL_EXEC_MIN: usize = 8;
const PARALLEL_EXEC_LARGE_TEMPLATE: usize = 128 * 1024;

/// At most this many rounds of speculation in a render (each ends at a
/// template that has to run in order); the templates left after them run
/// in order.
const MAX_SPECULATIONS: usize = 16;

/// The template set template `k` runs in: `set`, with a random generator
/// of its own, seeded from [`crate::helm::sprig::SEED`] and the template's
/// name. What one template draws does not depend on the others (nor on
/// the order they run in, nor on a template added to the chart).
fn file_set(set: &Templates, k: &str) -> Templates {
    // FNV-1a, 64 bits: the same seed on every platform and in every
    // version of this program.
    let name_hash = k.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    let mut s = set.clone();
    s.reseed(crate::helm::sprig::SEED ^ name_hash);
    s
}

/// What a template run speculatively gave.
enum Speculated {
    /// Its documents, heads read.
    Docs(ReadDocs),
    /// Its output (`<no value>` removed), to be read with the others: a
    /// large one (read on every thread), or `NOTES.txt`.
    Done(String),
    Failed(crate::template::Error),
    /// It did something that depends on the order templates run in (or
    /// did not run: a template before it stopped the round).
    Abandoned,
}

/// Runs the templates of `order` speculatively, on every thread: each
/// with render values of its own, a copy of its chart's that holds its
/// `.Template` and that it cannot change (a change would be seen by the
/// templates after it, in order). Keeps, in order, what every template
/// before the first abandoned one gave (documents, heads read, in `ran`;
/// a large output, read on every thread with those of the templates run
/// in order, and notes in `files`), and returns how many those are (the
/// index of the abandoned one; `order.len()` when none was); the first
/// failure before it is the render's error. A template after one abandoned or failed already is
/// not started.
fn speculate(
    set: &Templates,
    collect: &Collect,
    order: &[&String],
    ran: &mut ReadDocs,
    files: &mut BTreeMap<String, String>,
) -> Result<usize, ChartError> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    // Each thread takes the next template in order: what runs after a
    // template that stops the round is at most one template a thread.
    let next = AtomicUsize::new(0);
    let first_stop = AtomicUsize::new(usize::MAX);
    let per_thread: Vec<Vec<(usize, Speculated)>> = rayon::broadcast(|_| {
        let mut mine = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= order.len() || i > first_stop.load(Ordering::Relaxed) {
                return mine;
            }
            let k = order[i];
            let data = speculative_data(collect, k);
            let file_set = file_set(set, k);
            let (out, abandoned) = crate::template::speculate::run(|| file_set.execute(k, &data));
            let r = match out {
                _ if abandoned => Speculated::Abandoned,
                Err(e) => Speculated::Failed(e),
                Ok(out) if out.len() >= PARALLEL_HEADS_BYTES || k.ends_with("NOTES.txt") => {
                    Speculated::Done(without_no_value(out))
                }
                Ok(out) => Speculated::Docs(
                    file_docs(without_no_value(out))
                        .into_iter()
                        .map(|(d, b)| with_head((k.clone(), d, b)))
                        .collect(),
                ),
            };
            if matches!(r, Speculated::Abandoned | Speculated::Failed(_)) {
                first_stop.fetch_min(i, Ordering::Relaxed);
            }
            mine.push((i, r));
        }
    });
    let mut results: Vec<Speculated> = (0..order.len()).map(|_| Speculated::Abandoned).collect();
    for (i, r) in per_thread.into_iter().flatten() {
        results[i] = r;
    }
    for (i, r) in results.into_iter().enumerate() {
        match r {
            Speculated::Docs(d) => ran.extend(d),
            Speculated::Done(out) => {
                files.insert(order[i].clone(), out);
            }
            Speculated::Failed(e) => {
                let origin = &collect.templates[order[i]].0.origin;
                return Err(ChartError::at(crate::helm::error_text(&e), origin).rendering());
            }
            Speculated::Abandoned => return Ok(i),
        }
    }
    Ok(order.len())
}

/// The render values template `k` runs with speculatively: its chart's,
/// copied, with its `.Template`; `.Subcharts` (whose charts' values hold
/// the name of the template of theirs that ran last) is
/// [`OrderDependent`]. Made outside the run: no part of it may change.
fn speculative_data(collect: &Collect, k: &str) -> Value {
    let data = &collect.nexts[collect.templates[k].0.chart];
    let Value::Map(m) = data else {
        return data.clone();
    };
    let mut copy = m.to_btree();
    copy.insert("Template".into(), template_value(collect, k));
    if let Some(Value::Map(subs)) = copy.get("Subcharts")
        && !subs.is_empty()
    {
        copy.insert("Subcharts".into(), Value::object(OrderDependent));
    }
    Value::Map(Map::new(copy).as_helm_values())
}

/// Data whose content depends on the templates that ran before: any use
/// abandons a speculative run.
#[derive(Debug)]
struct OrderDependent;

impl crate::template::Object for OrderDependent {
    fn type_name(&self) -> &'static str {
        order_matters();
        crate::template::value::HELM_VALUES_TYPE
    }
    fn print(&self) -> String {
        order_matters();
        String::new()
    }
    fn field(&self, _name: &str) -> Option<Value> {
        order_matters();
        None
    }
    fn call(&self, _name: &str, _args: &[Value]) -> Option<Result<Value, String>> {
        order_matters();
        None
    }
    fn plain(&self) -> Value {
        order_matters();
        Value::Nil
    }
    fn kind(&self) -> &'static str {
        order_matters();
        "map"
    }
    fn json(&self) -> Option<crate::template::Json> {
        order_matters();
        None
    }
    fn is_true(&self) -> bool {
        order_matters();
        true
    }
    fn string_method(&self) -> Option<String> {
        order_matters();
        None
    }
    fn is_nil(&self) -> bool {
        order_matters();
        false
    }
}

/// The parsed text of a template, cached in the top chart; `Err` when the
/// file, read on first use, cannot be read (the message names it).
fn parsed_text(
    root: &Chart,
    full_name: &str,
    file: &super::TemplateFile,
) -> Result<Arc<Result<ParsedText, crate::template::Error>>, String> {
    parse_into(&root.parsed, full_name, file)
}

/// [`parsed_text`] with cache `cache`.
pub(super) fn parse_into(
    cache: &super::ParseCache,
    full_name: &str,
    file: &super::TemplateFile,
) -> Result<Arc<Result<ParsedText, crate::template::Error>>, String> {
    if let Ok(cache) = cache.lock()
        && let Some(p) = cache.get(full_name)
    {
        return Ok(p.clone());
    }
    let text = file.shared_text()?;
    let proto = prototype();
    let p = Arc::new(Templates::parse_shared_text_by(
        full_name,
        text,
        &|f: &str| proto.has_func(f),
    ));
    if let Ok(mut cache) = cache.lock() {
        cache.insert(full_name.to_string(), p.clone());
    }
    Ok(p)
}

fn crd_objects(w: &WChart, full_path: &str, out: &mut Vec<Manifest>) -> Result<(), ChartError> {
    for f in w.chart.crd_files() {
        let body = f
            .text()
            .map_err(|m| ChartError::at(m, w.chart.path.join(&f.name)))?;
        out.push(Manifest {
            source: format!("{full_path}/{}", f.name),
            body: body.into_owned(),
            final_break: false,
            hook: false,
            test: false,
            crd: true,
        });
    }
    for d in &w.deps {
        crd_objects(d, &format!("{full_path}/charts/{}", d.name), out)?;
    }
    Ok(())
}

/// The documents of `big` as [`manifest_ranges`] finds them.
#[cfg(test)]
fn split_manifests(big: &str) -> Vec<String> {
    manifest_ranges(big)
        .into_iter()
        .map(|r| big[r].to_string())
        .collect()
}

/// Helm's `SplitManifests` (v4.1), as the byte ranges of the documents:
/// the text trimmed, split on `(?:^|\s*\n)---\s*`, each document trimmed,
/// empty ones dropped. The expression is matched by hand, as Go's `regexp`
/// matches it: `\s` is ASCII white space, matches are leftmost (a
/// separator takes the whole run of white space before its line break)
/// and greedy.
fn manifest_ranges(big: &str) -> Vec<std::ops::Range<usize>> {
    let text = go_trim(big);
    let base = text.as_ptr() as usize - big.as_ptr() as usize;
    let b = text.as_bytes();
    let ws = |c: u8| matches!(c, b'\t' | b'\n' | 0x0c | b'\r' | b' ');
    let skip_ws = |mut i: usize| {
        while i < b.len() && ws(b[i]) {
            i += 1;
        }
        i
    };
    let mut docs = Vec::new();
    let mut push = |d: &str| {
        let t = go_trim(d);
        if !t.is_empty() {
            let at = base + (t.as_ptr() as usize - text.as_ptr() as usize);
            docs.push(at..at + t.len());
        }
    };
    let mut start = 0;
    if text.starts_with("---") {
        start = skip_ws(3);
    }
    let finder = memchr::memmem::Finder::new(b"\n---");
    while let Some(k) = finder.find(&b[start..]).map(|k| k + start) {
        let mut sep = k;
        while sep > start && ws(b[sep - 1]) {
            sep -= 1;
        }
        push(&text[start..sep]);
        start = skip_ws(k + 4);
    }
    push(&text[start..]);
    docs
}

/// Go's `strings.TrimSpace` (Unicode white space).
fn go_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace())
}

fn head(path: &str, doc: &str) -> Result<Head, ChartError> {
    if let Some(h) = super::head::read_quick(doc) {
        return h.map_err(|e| ChartError::new(format!("YAML parse error on {path}: {e}")));
    }
    let node = crate::yaml::parse::parse_first_json_keys(doc)
        .map_err(|e| {
            ChartError::new(format!(
                "YAML parse error on {path}: error converting YAML to JSON: {}",
                crate::helm::yaml_json::conversion_error(doc, &e)
            ))
        })?
        .unwrap_or(crate::yaml::Node::Null);
    super::head::read(&node, doc)
        .map_err(|e| ChartError::new(format!("YAML parse error on {path}: {e}")))
}

fn kind_rank(kind: &str) -> Option<usize> {
    INSTALL_ORDER.iter().position(|k| *k == kind)
}

/// `lessByKind`.
fn kind_less(a: &str, b: &str) -> bool {
    match (kind_rank(a), kind_rank(b)) {
        (None, None) => a < b,
        (None, Some(_)) => false,
        (Some(_), None) => true,
        (Some(x), Some(y)) => x < y,
    }
}

fn sort_by_kind(v: &mut [(String, Manifest)]) {
    v.sort_by(|(ka, _), (kb, _)| {
        if kind_less(ka, kb) {
            std::cmp::Ordering::Less
        } else if kind_less(kb, ka) {
            std::cmp::Ordering::Greater
        } else {
            std::cmp::Ordering::Equal
        }
    });
}

/// The templates of the subcharts left in `w` (enabled), named as
/// [`all_templates`] names them, a library chart's partials only.
fn subchart_templates(w: &WChart) -> Vec<(String, super::TemplateFile)> {
    fn gather(w: &WChart, path: &str, out: &mut Vec<(String, super::TemplateFile)>) {
        for d in &w.deps {
            let sub = format!("{path}/charts/{}", d.name);
            let library = d.chart.metadata.is_library();
            for t in &d.chart.templates {
                if in_template_set(library, &t.name) {
                    out.push((format!("{sub}/{}", t.name), t.clone()));
                }
            }
            gather(d, &sub, out);
        }
    }
    let mut out = Vec::new();
    gather(w, &w.name, &mut out);
    out
}

/// Templates of at least this many bytes in all are parsed on every
/// thread (below it, starting the threads costs more than it saves).
const PARALLEL_PARSE_BYTES: usize = 512 * 1024;

/// And so are this many templates holding this many bytes in all: the
/// bytes alone do not tell the work (a few files of CRD text parse
/// quickly; loki 6.21.0's 191 templates, 462 KB, 7,900 actions, do not).
const PARALLEL_PARSE_MANY: usize = 100;
const PARALLEL_PARSE_MANY_BYTES: usize = 128 * 1024;

/// Rendered documents of at least this many bytes in all are read on
/// every thread (below it, starting the threads costs more than it saves).
const PARALLEL_HEADS_BYTES: usize = 256 * 1024;

/// The documents of one rendered template (partials, `_*`, are not
/// executed: no template here is one).
fn file_docs(mut content: String) -> Vec<(String, bool)> {
    if content.trim().is_empty() {
        return Vec::new();
    }
    let ranges = manifest_ranges(&content);
    // Whether Helm's install reads the document followed by a line break:
    // its post-renderer parses each template's output (kyaml: every
    // document but the last is followed by one; the last as the output
    // ends).
    let last_break = ranges
        .last()
        .is_some_and(|r| content[r.end..].contains('\n'));
    if let [r] = ranges.as_slice() {
        // One document (most templates): the rendered text itself,
        // trimmed in place rather than copied.
        let r = r.clone();
        content.truncate(r.end);
        content.drain(..r.start);
        vec![(content, last_break)]
    } else {
        let n = ranges.len();
        ranges
            .into_iter()
            .enumerate()
            .map(|(i, r)| (content[r].to_string(), i + 1 < n || last_break))
            .collect()
    }
}

/// Every rendered document, in the order of the templates' paths, with
/// its head read.
/// (path, document, followed by a line break at install, head).
type ReadDoc = (String, String, bool, Result<Head, ChartError>);
type ReadDocs = Vec<ReadDoc>;

/// Reads the documents of every rendered template. Every document is read
/// whole as YAML (Helm's `SimpleHead` unmarshalling fails on any invalid
/// one): on two threads when there is much to read.
fn read_heads(files: BTreeMap<String, String>) -> ReadDocs {
    let docs: Vec<(String, String, bool)> = files
        .into_iter()
        .flat_map(|(path, content)| {
            file_docs(content)
                .into_iter()
                .map(move |(d, b)| (path.clone(), d, b))
        })
        .collect();
    let size: usize = docs.iter().map(|(_, d, _)| d.len()).sum();
    if size >= PARALLEL_HEADS_BYTES {
        use rayon::prelude::*;
        docs.into_par_iter().map(with_head).collect()
    } else {
        docs.into_iter().map(with_head).collect()
    }
}

/// A document of the template at `path` with its head.
fn with_head(
    (path, doc, brk): (String, String, bool),
) -> (String, String, bool, Result<Head, ChartError>) {
    let h = head(&path, &doc);
    (path, doc, brk, h)
}

/// Heads read on a second thread while templates execute: the executing
/// thread queues each rendered template's documents; at the end it reads
/// whatever is still queued itself (nothing waits on a thread that could
/// not start or started late), then waits for the one being read.
struct HeadsAhead {
    shared: Arc<AheadShared>,
}

#[derive(Default)]
struct AheadState {
    queued: std::collections::VecDeque<(usize, String, String, bool)>,
    /// Bytes queued since the reader was last woken.
    unsignalled: usize,
    /// Whether the reader waits for work.
    waiting: bool,
    closed: bool,
    /// Documents taken by the reader and not read yet.
    busy: usize,
    done: Vec<(usize, ReadDoc)>,
    next: usize,
    /// A panic of the reader's.
    panic: Option<Box<dyn std::any::Any + Send>>,
}

/// Bytes of documents queued before the waiting reader is woken (waking
/// it per template costs more than reading small ones).
const AHEAD_BATCH_BYTES: usize = 32 * 1024;

impl HeadsAhead {
    fn start() -> HeadsAhead {
        let shared = Arc::new((
            std::sync::Mutex::new(AheadState::default()),
            std::sync::Condvar::new(),
        ));
        let worker = shared.clone();
        // (A thread of its own, not the pool's: idle pool threads spin for
        // work a while, taking the core the execution needs.)
        let _ = std::thread::Builder::new().spawn(move || {
            let mut st = lock_ahead(&worker);
            loop {
                let read;
                (st, read) = read_next(&worker, st);
                if st.panic.is_some() || !read && st.closed {
                    return;
                }
                if !read {
                    st.waiting = true;
                    st = worker.1.wait(st).unwrap_or_else(|e| e.into_inner());
                    st.waiting = false;
                }
            }
        });
        HeadsAhead { shared }
    }

    /// Queues the documents of one rendered template.
    fn queue(&self, path: &str, content: String) {
        let docs = file_docs(content);
        if docs.is_empty() {
            return;
        }
        let mut st = lock_ahead(&self.shared);
        for (doc, brk) in docs {
            st.unsignalled += doc.len();
            let i = st.next;
            st.next += 1;
            st.queued.push_back((i, path.to_string(), doc, brk));
        }
        if st.waiting && st.unsignalled >= AHEAD_BATCH_BYTES {
            st.unsignalled = 0;
            self.shared.1.notify_all();
        }
    }

    /// Every queued document with its head, in the order of the
    /// templates' paths.
    fn finish(self) -> ReadDocs {
        let (_, cv) = &*self.shared;
        let mut st = lock_ahead(&self.shared);
        st.closed = true;
        cv.notify_all();
        loop {
            let read;
            (st, read) = read_next(&self.shared, st);
            if !read {
                break;
            }
        }
        while st.busy > 0 {
            st = cv.wait(st).unwrap_or_else(|e| e.into_inner());
        }
        if let Some(panic) = st.panic.take() {
            std::panic::resume_unwind(panic);
        }
        let mut done = std::mem::take(&mut st.done);
        drop(st);
        // Queued in execution order, numbered in it: by path, then in
        // the template's own order.
        done.sort_by(|a, b| a.1.0.cmp(&b.1.0).then(a.0.cmp(&b.0)));
        done.into_iter().map(|(_, d)| d).collect()
    }
}

impl Drop for HeadsAhead {
    /// Lets the reader end when execution stops early (an error).
    fn drop(&mut self) {
        lock_ahead(&self.shared).closed = true;
        self.shared.1.notify_all();
    }
}

type AheadShared = (std::sync::Mutex<AheadState>, std::sync::Condvar);

fn lock_ahead(shared: &AheadShared) -> std::sync::MutexGuard<'_, AheadState> {
    shared.0.lock().unwrap_or_else(|e| e.into_inner())
}

/// Takes the next queued document (if any: the `bool`), reads its head
/// outside the lock and records it; a panic of the reading is kept, to be
/// raised where the documents are collected. Both the reader thread and
/// `finish` read this way.
fn read_next<'s>(
    shared: &'s AheadShared,
    mut st: std::sync::MutexGuard<'s, AheadState>,
) -> (std::sync::MutexGuard<'s, AheadState>, bool) {
    let Some((i, path, doc, brk)) = st.queued.pop_front() else {
        return (st, false);
    };
    st.busy += 1;
    drop(st);
    let h = std::panic::catch_unwind(|| head(&path, &doc));
    let mut st = lock_ahead(shared);
    st.busy -= 1;
    match h {
        Ok(h) => st.done.push((i, (path, doc, brk, h))),
        Err(panic) => st.panic = Some(panic),
    }
    if st.closed && st.busy == 0 {
        shared.1.notify_all();
    }
    (st, true)
}

/// `SortManifests`: hooks and other manifests, each sorted by kind. The
/// first error in the templates' order is the one reported, as when
/// reading in turn.
fn sort_manifests(read: ReadDocs) -> Result<(Vec<Manifest>, Vec<Manifest>), ChartError> {
    let mut hooks = Vec::new();
    let mut generic = Vec::new();
    for (path, doc, final_break, h) in read {
        let h = h?;
        let hook_types = match h.annotations.get("helm.sh/hook") {
            Some(t) => t,
            None => {
                generic.push((
                    h.kind,
                    Manifest {
                        source: path,
                        body: doc,
                        final_break,
                        hook: false,
                        test: false,
                        crd: false,
                    },
                ));
                continue;
            }
        };
        let events: Vec<String> = hook_types
            .split(',')
            .map(|e| crate::helm::sprig::gotext::lower(e.trim()))
            .collect();
        if events.iter().any(|e| !HOOK_EVENTS.contains(&e.as_str())) {
            continue;
        }
        let test = events.iter().any(|e| e == "test" || e == "test-success");
        hooks.push((
            h.kind,
            Manifest {
                source: path,
                body: doc,
                final_break: false,
                hook: true,
                test,
                crd: false,
            },
        ));
    }
    sort_by_kind(&mut hooks);
    sort_by_kind(&mut generic);
    Ok((
        hooks.into_iter().map(|(_, m)| m).collect(),
        generic.into_iter().map(|(_, m)| m).collect(),
    ))
}

/// What `helm template` prints on stdout.
pub fn print_template(r: &Rendered) -> String {
    template_pieces(r).concat()
}

/// Writes what `helm template` prints to `out`, piece by piece (vectored
/// writes): the output is never copied into one string first, which for
/// a large chart is megabytes of fresh memory. Returns the bytes written.
pub fn write_template(r: &Rendered, out: &mut impl std::io::Write) -> std::io::Result<usize> {
    let pieces = template_pieces(r);
    let total = pieces.iter().map(|p| p.len()).sum();
    // Linux takes at most 1,024 buffers in one call (IOV_MAX).
    for chunk in pieces.chunks(1024) {
        let mut slices: Vec<std::io::IoSlice<'_>> = chunk
            .iter()
            .map(|p| std::io::IoSlice::new(p.as_bytes()))
            .collect();
        let mut rest = &mut slices[..];
        while !rest.is_empty() {
            match out.write_vectored(rest) {
                Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
                Ok(n) => std::io::IoSlice::advance_slices(&mut rest, n),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
    Ok(total)
}

/// The output of `helm template`, in pieces to be written one after the
/// other: `---`, the `# Source:` line and the body of each manifest,
/// hooks last.
fn template_pieces(r: &Rendered) -> Vec<&str> {
    let mut out = Vec::with_capacity(r.manifests.len() * 4 + 1);
    fn push_manifest<'a>(out: &mut Vec<&'a str>, m: &'a Manifest) {
        out.push("---\n# Source: ");
        out.push(&m.source);
        out.push("\n");
        out.push(&m.body);
        out.push("\n");
    }
    for m in r.manifests.iter().filter(|m| !m.hook) {
        push_manifest(&mut out, m);
    }
    // Helm trims the manifests (Go's `strings.TrimSpace`): they start with
    // `---` when there are any, so only their end has white space.
    while let Some(last) = out.pop() {
        let kept = last.trim_end_matches(char::is_whitespace);
        if !kept.is_empty() {
            out.push(kept);
            break;
        }
    }
    out.push("\n");
    for m in r.manifests.iter().filter(|m| m.hook) {
        push_manifest(&mut out, m);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a reading gives, comparable.
    fn comparable(read: ReadDocs) -> Vec<(String, String, bool, Result<Head, String>)> {
        read.into_iter()
            .map(|(p, d, b, h)| (p, d, b, h.map_err(|e| e.message)))
            .collect()
    }

    #[test]
    fn heads_read_ahead_are_the_heads_read_after() {
        // Rendered templates queued in an execution order that is not the
        // paths' order: several documents each, empty output,
        // hooks, and invalid documents (the first in the paths' order is
        // the error reported).
        let mut rendered = Vec::new();
        for i in 0..60 {
            let path = format!("c/templates/{}{i:02}.yaml", ["b", "a", "_c"][i % 3]);
            let text = match i % 7 {
                0 => String::new(),
                1 => format!(
                    "kind: Job\nmetadata:\n  name: j{i}\n  annotations:\n    helm.sh/hook: pre-install\n"
                ),
                2 => format!("kind: ConfigMap\nmetadata: {{name: bad{i}\n"),
                _ => format!(
                    "---\nkind: ConfigMap\nmetadata:\n  name: a{i}\ndata:\n  x: \"{}\"\n---\n\n---\nkind: Service\nmetadata:\n  name: s{i}\n",
                    "y".repeat(i * 500)
                ),
            };
            rendered.push((path, text));
        }
        let files: BTreeMap<String, String> = rendered.iter().cloned().collect();
        let after = comparable(read_heads(files));
        assert!(after.len() > 40, "{} documents", after.len());
        assert!(after.iter().any(|(_, _, _, h)| h.is_err()));
        assert!(after.iter().any(|(_, _, _, h)| {
            h.as_ref()
                .is_ok_and(|h| h.annotations.contains_key("helm.sh/hook"))
        }));
        let ahead = HeadsAhead::start();
        for (path, text) in rendered {
            ahead.queue(&path, text);
        }
        assert_eq!(comparable(ahead.finish()), after);
        // A reader that could not start: the executing thread reads all.
        let ahead = HeadsAhead {
            shared: Arc::new(Default::default()),
        };
        let files: BTreeMap<String, String> = (0..5)
            .map(|i| (format!("t{i}.yaml"), format!("kind: K{i}\n")))
            .collect();
        for (p, t) in &files {
            ahead.queue(p, t.clone());
        }
        assert_eq!(comparable(ahead.finish()), comparable(read_heads(files)));
    }

    #[test]
    fn split_like_helm() {
        let docs = split_manifests("\n---\na: 1\n---  \n\n---\nb: 2\n---x\n");
        assert_eq!(docs, vec!["a: 1", "---\nb: 2", "x"]);
        // Recorded from Helm: fixtures/helm/028-multidoc-empty.
        let docs = split_manifests("a: 1\n  \n---\n\n# c\n---\nb: |\n  x --- y\n");
        assert_eq!(docs, vec!["a: 1", "# c", "b: |\n  x --- y"]);
        // Go's `\s` is ASCII: a no-break space is content, `---` without a
        // line break before it is no separator.
        let docs = split_manifests("a: 1\u{a0}\n---\u{a0}b\nc---d\n---\n---\n");
        assert_eq!(docs, vec!["a: 1", "b\nc---d", "---"]);
    }

    /// A writer that takes at most `step` bytes a call, counting its calls.
    struct Trickle {
        got: Vec<u8>,
        step: usize,
        calls: usize,
    }

    impl std::io::Write for Trickle {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.write_vectored(&[std::io::IoSlice::new(buf)])
        }
        fn write_vectored(&mut self, bufs: &[std::io::IoSlice<'_>]) -> std::io::Result<usize> {
            self.calls += 1;
            if self.calls.is_multiple_of(3) {
                return Err(std::io::ErrorKind::Interrupted.into());
            }
            let mut n = 0;
            for b in bufs {
                let take = b.len().min(self.step - n);
                self.got.extend_from_slice(&b[..take]);
                n += take;
                if n == self.step {
                    break;
                }
            }
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn written_piece_by_piece_as_printed() {
        let m = |source: &str, body: &str, hook: bool| Manifest {
            source: source.into(),
            body: body.into(),
            final_break: true,
            hook,
            test: false,
            crd: false,
        };
        let many: Vec<Manifest> = (0..700u32)
            .map(|i| {
                m(
                    &format!("c/templates/{i}.yaml"),
                    "kind: A",
                    i.is_multiple_of(7),
                )
            })
            .collect();
        for manifests in [
            vec![],
            vec![m("c/templates/h.yaml", "kind: Pod", true)],
            vec![
                m("c/templates/a.yaml", "kind: A", false),
                m("c/templates/b.yaml", "data: |\n  x\n\n \u{a0}", false),
                m("c/templates/h.yaml", "kind: Pod  \n", true),
            ],
            vec![
                m("c/templates/e.yaml", "", false),
                m("c/templates/f.yaml", " \n", false),
            ],
            many,
        ] {
            let r = Rendered {
                manifests,
                notes: None,
                warnings: Vec::new(),
            };
            let printed = print_template(&r);
            for step in [1, 7, 4096] {
                let mut w = Trickle {
                    got: Vec::new(),
                    step,
                    calls: 0,
                };
                assert_eq!(write_template(&r, &mut w).unwrap(), printed.len());
                assert_eq!(String::from_utf8(w.got).unwrap(), printed, "step {step}");
            }
        }
    }

    /// Renders the chart at `dir` speculatively (from a thread outside
    /// the pool, with templates large enough) and in order (from inside a
    /// pool, where templates always run in order).
    fn both_ways(dir: &std::path::Path) -> (String, String) {
        let chart = super::super::load::load(dir).unwrap();
        let show = |r: Result<Rendered, ChartError>| match r {
            Ok(r) => print_template(&r),
            Err(e) => format!("error: {e}"),
        };
        let speculative = show(render(&chart, &RenderOptions::default()));
        let fresh = super::super::load::load(dir).unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let in_order = show(pool.install(|| render(&fresh, &RenderOptions::default())));
        (speculative, in_order)
    }

    fn chart_with(templates: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("templates")).unwrap();
        std::fs::write(
            root.join("Chart.yaml"),
            "apiVersion: v2\nname: c\nversion: 1.0.0\n",
        )
        .unwrap();
        std::fs::write(root.join("values.yaml"), "m:\n  k: v\n").unwrap();
        // Enough actions to run on every thread.
        let padding = "{{/* x */}}\n".repeat(PARALLEL_EXEC_ACTIONS);
        std::fs::write(root.join("templates/_padding.tpl"), padding).unwrap();
        for (name, text) in templates {
            std::fs::write(root.join("templates").join(name), text).unwrap();
        }
        dir
    }

    #[test]
    fn templates_run_at_once_give_what_they_give_in_order() {
        let plain = |n: usize| {
            format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: p{n}\ndata:\n  k: {{{{ .Values.m.k | quote }}}}\n"
            )
        };
        let plains: Vec<(String, String)> =
            (0..10).map(|n| (format!("p{n}.yaml"), plain(n))).collect();
        let random =
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ randAlphaNum 12 | lower }}\n";
        let mutate = "{{- $_ := set .Values.m \"k\" \"changed\" }}\n";
        let fails = "{{ fail \"stop\" }}\n";
        let cases: Vec<Vec<(&str, &str)>> = vec![
            // Random numbers drawn by several templates: the same draws
            // in the same templates.
            vec![
                ("z-random.yaml", random),
                ("m-random.yaml", random),
                ("a-random.yaml", random),
            ],
            // A change to the values half way: the templates after it see it.
            vec![("m-mutate.yaml", mutate)],
            vec![("zz-mutate.yaml", mutate), ("m-random.yaml", random)],
            // A failure after a change, and one before.
            vec![("m-mutate.yaml", mutate), ("a-fails.yaml", fails)],
            vec![("zz-fails.yaml", fails), ("m-mutate.yaml", mutate)],
        ];
        for extra in cases {
            let mut all: Vec<(&str, &str)> = plains
                .iter()
                .map(|(n, t)| (n.as_str(), t.as_str()))
                .collect();
            all.extend(extra.iter().copied());
            let dir = chart_with(&all);
            let (speculative, in_order) = both_ways(dir.path());
            assert_eq!(speculative, in_order, "{extra:?}");
            assert!(!speculative.is_empty());
        }
        // What the cases show, read from the output.
        let (p0, p1) = (plain(0), plain(1));
        let mut shown: Vec<(&str, &str)> = vec![
            ("p1.yaml", &p1),
            ("a0.yaml", &p0),
            ("m-mutate.yaml", mutate),
        ];
        shown.extend(plains.iter().skip(2).map(|(n, t)| (n.as_str(), t.as_str())));
        let dir = chart_with(&shown);
        let (out, _) = both_ways(dir.path());
        // p* run before m-mutate.yaml (names in reverse order), a0 after.
        assert!(out.contains("name: p1\ndata:\n  k: \"v\""), "{out}");
        assert!(out.contains("name: p0\ndata:\n  k: \"changed\""), "{out}");
    }

    #[test]
    fn template_order() {
        let mut k = vec![
            "c/templates/a.yaml".to_string(),
            "c/charts/s/templates/b.yaml".to_string(),
            "c/templates/b.yaml".to_string(),
        ];
        sort_templates(&mut k);
        assert_eq!(
            k,
            vec![
                "c/charts/s/templates/b.yaml",
                "c/templates/b.yaml",
                "c/templates/a.yaml"
            ]
        );
    }

    #[test]
    fn kinds_sort_in_install_order() {
        assert!(kind_less("Namespace", "Deployment"));
        assert!(kind_less("Deployment", "Zebra"));
        assert!(kind_less("Apple", "Zebra"));
        assert!(!kind_less("Zebra", "Zebra"));
    }
}
