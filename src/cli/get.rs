//! `flate get ks|hr|all|sources|images|charts|rset|envs [ENV] [NAME] [-n NS] [-l SEL]
//! [-o table|wide|name|yaml|json]`

use clap::{Args, ValueEnum};
use serde_json::{Value as J, json};

use flate::flux::Rendered;

use super::common::{EnvArgs, Repo, SpecErrors, pick, render_env};
use super::diag::Diag;
use super::select::{self, Kind, SelectArgs, Selection};
use super::table::{self, Col, col, wide};

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Columns that fit the terminal.
    Table,
    /// Every column, uncut.
    Wide,
    /// One `Kind/namespace/name` a line.
    Name,
    Yaml,
    Json,
}

#[derive(Args, Debug)]
pub struct GetArgs {
    /// TYPE [ENV] [NAME]: TYPE is ks (kustomization[s]), hr
    /// (helmrelease[s]), all, sources, images, charts, rset
    /// (resourceset[s]) or envs; ENV may be left out with
    /// --path or when the repository has one environment; NAME is
    /// `name` or `namespace/name`.
    #[arg(required = true, num_args = 1..=3, value_name = "ARGS")]
    pub args: Vec<String>,
    #[arg(short = 'o', long = "output", value_enum, default_value = "table")]
    pub output: Format,
    #[command(flatten)]
    pub select: SelectArgs,
    #[command(flatten)]
    pub env_args: EnvArgs,
}

/// One printed row: the table cells, the name (`-o name`) and the JSON item.
struct Item {
    cells: Vec<String>,
    name: String,
    json: J,
}

const KS_COLS: [Col; 8] = [
    col("NAMESPACE"),
    col("NAME"),
    col("PATH"),
    col("STATUS"),
    col("OBJECTS"),
    wide("SOURCE"),
    wide("DEPENDS ON"),
    col("MESSAGE"),
];

const HR_COLS: [Col; 6] = [
    col("NAMESPACE"),
    col("NAME"),
    col("CHART"),
    wide("DIGEST"),
    col("STATUS"),
    col("KUSTOMIZATION"),
];

const SOURCE_COLS: [Col; 7] = [
    col("NAMESPACE"),
    col("KIND"),
    col("NAME"),
    col("URL"),
    col("REF"),
    wide("DIGEST"),
    col("KUSTOMIZATION"),
];

const RSET_COLS: [Col; 6] = [
    col("NAMESPACE"),
    col("NAME"),
    col("STATUS"),
    col("OBJECTS"),
    wide("KUSTOMIZATION"),
    col("MESSAGE"),
];

const IMAGE_COLS: [Col; 4] = [col("IMAGE"), col("TAG"), wide("DIGEST"), col("WORKLOADS")];

/// Every container image of the environment with the workloads that run
/// it, tag and digest.
fn image_items(r: &Rendered) -> Vec<Item> {
    let dash = |s: &str| {
        if s.is_empty() {
            "-".to_string()
        } else {
            s.to_string()
        }
    };
    flate::diff::images::inventory(&flate::diff::images::uses(r))
        .iter()
        .map(|i| Item {
            cells: vec![
                i.name.clone(),
                dash(&i.tag),
                dash(&i.digest),
                i.workloads.join(", "),
            ],
            name: i.name.clone(),
            json: json!({
                "image": i.name, "tag": i.tag, "digest": i.digest, "workloads": i.workloads,
            }),
        })
        .collect()
}

const ENV_COLS: [Col; 3] = [col("NAME"), col("PATH"), col("FOUND IN")];

fn ks_items(r: &Rendered) -> Vec<Item> {
    r.kustomizations
        .iter()
        .map(|k| Item {
            cells: vec![
                k.namespace.clone(),
                k.name.clone(),
                k.path.clone(),
                k.status.as_str().to_string(),
                k.objects.len().to_string(),
                k.source.to_string(),
                k.depends_on.join(","),
                k.message.clone(),
            ],
            name: format!("Kustomization/{}", k.key()),
            json: json!({
                "kind": "Kustomization", "namespace": k.namespace, "name": k.name, "path": k.path,
                "source": k.source.to_string(), "status": k.status.as_str(), "objects": k.objects.len(),
                "dependsOn": k.depends_on, "message": k.message,
            }),
        })
        .collect()
}

fn hr_items(r: &Rendered) -> Vec<Item> {
    r.helmreleases
        .iter()
        .map(|h| {
            let version = if h.chart.tag.is_empty() {
                &h.chart.version
            } else {
                &h.chart.tag
            };
            let chart = if h.chart.url.is_empty() {
                &h.chart.chart
            } else {
                &h.chart.url
            };
            Item {
                cells: vec![
                    h.namespace.clone(),
                    h.name.clone(),
                    format!("{chart} {version}"),
                    if h.chart.digest.is_empty() {
                        "-".into()
                    } else {
                        h.chart.digest.clone()
                    },
                    h.status.as_str().into(),
                    h.kustomization.clone(),
                ],
                name: format!("HelmRelease/{}/{}", h.namespace, h.name),
                json: json!({
                    "kind": "HelmRelease", "namespace": h.namespace, "name": h.name, "kustomization": h.kustomization,
                    "chart": {"kind": h.chart.kind, "name": h.chart.name, "url": h.chart.url, "tag": h.chart.tag,
                              "digest": h.chart.digest, "chart": h.chart.chart, "version": h.chart.version},
                    "status": if h.ok { "ok" } else { "failed" },
                    "renderStatus": h.status.as_str(), "message": h.message,
                    "releaseName": h.release_name, "releaseNamespace": h.release_namespace,
                    "objects": h.objects.len(),
                }),
            }
        })
        .collect()
}

const CHART_COLS: [Col; 8] = [
    col("RELEASE"),
    col("CHART"),
    col("VERSION"),
    wide("DIGEST"),
    col("SOURCE"),
    col("CACHED"),
    wide("LOCATION"),
    col("FETCH"),
];

/// The chart of every HelmRelease: what it is, where it comes from,
/// whether flate has it, and the command that fetches it.
fn chart_items(r: &Rendered) -> Vec<Item> {
    let dash = |s: &str| {
        if s.is_empty() {
            "-".to_string()
        } else {
            s.to_string()
        }
    };
    r.helmreleases
        .iter()
        .map(|h| {
            let cached = !h.chart.location.is_empty();
            let source = if h.chart.url.is_empty() {
                if h.chart.kind.is_empty() {
                    // The chart reference did not resolve (see the message).
                    "-".to_string()
                } else {
                    format!("{}/{}/{}", h.chart.kind, h.chart.namespace, h.chart.name)
                }
            } else {
                h.chart.url.clone()
            };
            let version = if h.chart.resolved_version.is_empty() {
                h.chart.version.clone()
            } else if h.chart.resolved_version != h.chart.version && !h.chart.version.is_empty() {
                format!("{} ({})", h.chart.resolved_version, h.chart.version)
            } else {
                h.chart.resolved_version.clone()
            };
            let fetch = if cached {
                String::new()
            } else {
                h.chart.pull.clone()
            };
            Item {
                cells: vec![
                    format!("{}/{}", h.namespace, h.name),
                    dash(&h.chart.chart),
                    dash(&version),
                    dash(&h.chart.digest),
                    source.clone(),
                    if cached { "yes".into() } else { "no".into() },
                    dash(&h.chart.location),
                    dash(&fetch),
                ],
                name: format!("HelmRelease/{}/{}", h.namespace, h.name),
                json: json!({
                    "helmrelease": format!("{}/{}", h.namespace, h.name),
                    "release": h.release_name,
                    "chart": h.chart.chart,
                    "version": h.chart.version,
                    "resolvedVersion": h.chart.resolved_version,
                    "digest": h.chart.digest,
                    "sourceKind": h.chart.kind,
                    "source": source,
                    "cached": cached,
                    "location": h.chart.location,
                    "pull": h.chart.pull,
                    "status": h.status.as_str(),
                }),
            }
        })
        .collect()
}

/// Whether object `o` is selected by NAME, `-n` and `-l`.
fn selected(sel: &Selection, o: &flate::resource::Resource) -> bool {
    selected_as(
        sel,
        o.namespace(),
        o.name(),
        o.obj
            .get_path(&["metadata", "labels"])
            .and_then(|n| n.as_map()),
    )
}

/// Whether `-n`, NAME and `-l` select `namespace/name` with these labels.
fn selected_as(
    sel: &Selection,
    namespace: &str,
    name: &str,
    labels: Option<&flate::yaml::Map>,
) -> bool {
    !(sel.namespace.as_deref().is_some_and(|ns| ns != namespace)
        || sel
            .name
            .as_deref()
            .is_some_and(|n| n != name && n != format!("{namespace}/{name}"))
        || sel.selector.as_ref().is_some_and(|s| !s.matches(labels)))
}

/// The Flux Operator's ResourceSets: whether each was expanded, how many
/// objects it made, and why it was not.
fn rset_items(r: &Rendered, sel: &Selection) -> Vec<Item> {
    use flate::flux::resourceset::{self, NotExpanded};
    let mut out = Vec::new();
    for k in &r.kustomizations {
        for o in k.objects.iter().filter(|o| resourceset::is_resource_set(o)) {
            if !selected(sel, o) {
                continue;
            }
            let key = format!("{}/{}", o.namespace_or_default(), o.name());
            let (status, message) = match k.unexpanded.iter().find(|u| u.key == key) {
                Some(u) => (
                    match u.reason {
                        NotExpanded::Offline(_) => "not expanded",
                        NotExpanded::Invalid(_) => "failed",
                    },
                    u.reason.message().to_string(),
                ),
                None => ("expanded", String::new()),
            };
            let made = k
                .objects
                .iter()
                .filter(|x| resourceset::owner(x).as_deref() == Some(key.as_str()))
                .count();
            out.push(Item {
                cells: vec![
                    o.namespace_or_default().to_string(),
                    o.name().to_string(),
                    status.to_string(),
                    made.to_string(),
                    k.key(),
                    message.clone(),
                ],
                name: format!("ResourceSet/{key}"),
                json: json!({"kind": "ResourceSet", "namespace": o.namespace_or_default(),
                    "name": o.name(), "status": status, "objects": made,
                    "kustomization": k.key(), "message": message}),
            });
        }
    }
    out
}

fn source_items(r: &Rendered, sel: &Selection) -> Vec<Item> {
    let mut out = Vec::new();
    for (k, o) in r.all_objects() {
        let g = o.gvk();
        if g.group != flate::flux::model::SOURCE_GROUP {
            continue;
        }
        if !selected(sel, o) {
            continue;
        }
        let s = |p: &[&str]| o.obj.get_str(p).unwrap_or("").to_string();
        let rf = [
            s(&["spec", "ref", "tag"]),
            s(&["spec", "ref", "semver"]),
            s(&["spec", "ref", "branch"]),
        ]
        .into_iter()
        .find(|x| !x.is_empty())
        .unwrap_or_default();
        out.push(Item {
            cells: vec![
                o.namespace().to_string(),
                g.kind.clone(),
                o.name().to_string(),
                s(&["spec", "url"]),
                rf.clone(),
                s(&["spec", "ref", "digest"]),
                k.key(),
            ],
            name: format!("{}/{}/{}", g.kind, o.namespace(), o.name()),
            json: json!({"kind": g.kind, "namespace": o.namespace(), "name": o.name(), "url": s(&["spec", "url"]),
                "ref": rf, "digest": s(&["spec", "ref", "digest"]), "kustomization": k.key()}),
        });
    }
    out.extend(generated_items(r, sel));
    out
}

/// The ExternalArtifacts the ArtifactGenerators make (no object of the
/// repository is one): each entry of `spec.artifacts`, its URL column
/// naming the generator (a name with `{captures}` when the generator has a
/// `spec.pathPattern`: one artifact per matched directory).
fn generated_items(r: &Rendered, sel: &Selection) -> Vec<Item> {
    let mut out = Vec::new();
    for (k, g) in r.all_objects() {
        if !flate::flux::artifactgen::is_generator(g) {
            continue;
        }
        let ns = g.namespace_or_default();
        let by = format!("ArtifactGenerator {ns}/{}", g.name());
        let artifacts = g
            .obj
            .get_path(&["spec", "artifacts"])
            .and_then(|a| a.as_seq())
            .map(Vec::as_slice)
            .unwrap_or_default();
        for a in artifacts {
            let name = a.get_str(&["name"]).unwrap_or_default();
            // A generated artifact has no labels of its own to select by.
            if sel.selector.is_some() || !selected_as(sel, ns, name, None) {
                continue;
            }
            out.push(Item {
                cells: vec![
                    ns.to_string(),
                    "ExternalArtifact".into(),
                    name.to_string(),
                    by.clone(),
                    String::new(),
                    String::new(),
                    k.key(),
                ],
                name: format!("ExternalArtifact/{ns}/{name}"),
                json: json!({"kind": "ExternalArtifact", "namespace": ns, "name": name, "url": "",
                    "ref": "", "digest": "", "kustomization": k.key(), "generator": format!("{ns}/{}", g.name())}),
            });
        }
    }
    out
}

fn print_items(cols: &[Col], items: &[Item], list_kind: &str, env: Option<&str>, f: Format) -> i32 {
    let doc = || {
        let mut m = serde_json::Map::new();
        if let Some(e) = env {
            m.insert("environment".into(), J::from(e));
        }
        m.insert(
            "items".into(),
            J::Array(items.iter().map(|i| i.json.clone()).collect()),
        );
        flate::output::envelope(list_kind, J::Object(m))
    };
    let text = match f {
        Format::Table | Format::Wide => {
            let rows: Vec<Vec<String>> = items.iter().map(|i| i.cells.clone()).collect();
            table::render(cols, &rows, f == Format::Wide, table::width())
        }
        Format::Name => items.iter().map(|i| format!("{}\n", i.name)).collect(),
        Format::Json => serde_json::to_string_pretty(&doc()).unwrap_or_default() + "\n",
        Format::Yaml => flate::yaml::to_string(&flate::yaml::Node::from_json(&doc())),
    };
    super::common::print(&text)
}

pub fn run(a: GetArgs) -> i32 {
    let repo = match Repo::open(&a.env_args) {
        Ok(r) => r,
        Err(d) => return d.fail(),
    };
    let allowed = [
        Kind::Ks,
        Kind::Hr,
        Kind::All,
        Kind::Sources,
        Kind::Images,
        Kind::Charts,
        Kind::ResourceSets,
        Kind::Envs,
    ];
    let w = match select::words(&a.args, &allowed, false, &repo, &a.env_args) {
        Ok(w) => w,
        Err(d) => return d.fail(),
    };
    let Some(kind) = w.kind else {
        return Diag::error(format!("'{}' is not a type", a.args[0]))
            .help("the types are: ks, hr, all, sources, images, charts, rset, envs (e.g. `flate get ks production`)")
            .fail();
    };
    if kind == Kind::Envs {
        return envs(&repo, a.output);
    }
    let sel = match Selection::new(w.name, &a.select) {
        Ok(s) => s,
        Err(d) => return d.fail(),
    };
    let (repo, env) = match pick(w.envs.first().map(String::as_str), &a.env_args) {
        Ok(p) => p,
        Err(c) => return c,
    };
    let mut r = match render_env(&repo, &env, &a.env_args, SpecErrors::Fatal) {
        Ok(r) => r,
        Err(c) => return c,
    };
    // (A listing may not show a failed Kustomization, and a selection may
    // leave it out: say why the exit code is 1.)
    let failed = super::build::report_failed_kustomizations(&r);
    let p = match kind {
        Kind::Images => print_items(
            &IMAGE_COLS,
            &image_items(&r),
            "ImageList",
            Some(&env.name),
            a.output,
        ),
        Kind::ResourceSets => {
            let items = rset_items(&r, &sel);
            if items.is_empty() && (sel.name.is_some() || sel.namespace.is_some()) {
                let all: Vec<String> = rset_items(&r, &Selection::default())
                    .iter()
                    .map(|i| i.name.trim_start_matches("ResourceSet/").to_string())
                    .collect();
                return sel.nothing_matched("ResourceSet", &env.name, &all).fail();
            }
            print_items(
                &RSET_COLS,
                &items,
                "ResourceSetList",
                Some(&env.name),
                a.output,
            )
        }
        Kind::Sources => {
            let items = source_items(&r, &sel);
            if items.is_empty() && (sel.name.is_some() || sel.namespace.is_some()) {
                let all: Vec<String> = source_items(&r, &Selection::default())
                    .iter()
                    .map(|i| {
                        i.name
                            .split_once('/')
                            .map_or(i.name.clone(), |(_, n)| n.to_string())
                    })
                    .collect();
                return sel.nothing_matched("source", &env.name, &all).fail();
            }
            print_items(
                &SOURCE_COLS,
                &items,
                "SourceList",
                Some(&env.name),
                a.output,
            )
        }
        _ => {
            if let Err(d) = select::filter(&mut r, kind, &sel) {
                return d.fail();
            }
            match kind {
                Kind::Ks => print_items(
                    &KS_COLS,
                    &ks_items(&r),
                    "KustomizationList",
                    Some(&env.name),
                    a.output,
                ),
                Kind::Charts => print_items(
                    &CHART_COLS,
                    &chart_items(&r),
                    "ChartList",
                    Some(&env.name),
                    a.output,
                ),
                Kind::Hr => print_items(
                    &HR_COLS,
                    &hr_items(&r),
                    "HelmReleaseList",
                    Some(&env.name),
                    a.output,
                ),
                _ => {
                    if matches!(a.output, Format::Table | Format::Wide) {
                        let p = print_items(&KS_COLS, &ks_items(&r), "", None, a.output);
                        if p != 0 {
                            return p;
                        }
                        println!();
                        print_items(&HR_COLS, &hr_items(&r), "", None, a.output)
                    } else {
                        let mut items = ks_items(&r);
                        items.extend(hr_items(&r));
                        print_items(&[], &items, "List", Some(&env.name), a.output)
                    }
                }
            }
        }
    };
    if p != 0 {
        p
    } else if failed {
        1
    } else {
        0
    }
}

/// `flate get envs`: the environments and where each was found.
fn envs(repo: &Repo, f: Format) -> i32 {
    let envs = repo.environments();
    let items: Vec<Item> = envs
        .iter()
        .map(|e| Item {
            cells: vec![e.name.clone(), e.path.clone(), e.origin()],
            name: e.name.clone(),
            json: json!({
                "kind": "Environment",
                "name": e.name,
                "path": e.path,
                "foundIn": e.origin(),
                "settings": e.settings.iter().map(|s| super::common::rel(&repo.root, s)).collect::<Vec<_>>(),
                "kubernetesVersion": e.kubernetes_version,
            }),
        })
        .collect();
    if items.is_empty() && matches!(f, Format::Table | Format::Wide) {
        Diag::warning(format!("no environments found in {}", repo.root.display()))
            .help("name the entry directory with --path DIR, or list environments in .flate.yaml")
            .emit();
    }
    if matches!(f, Format::Json | Format::Yaml) {
        // The repository-wide inputs of .flate.yaml too.
        let mut doc = serde_json::Map::new();
        doc.insert(
            "config".into(),
            json!(
                repo.config
                    .file
                    .as_ref()
                    .map(|p| super::common::rel(&repo.root, p))
            ),
        );
        doc.insert(
            "charts".into(),
            json!(
                repo.chart_dirs()
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
            ),
        );
        doc.insert(
            "sources".into(),
            J::Object(
                repo.source_dirs()
                    .into_iter()
                    .map(|(k, d)| (k, J::from(d.display().to_string())))
                    .collect(),
            ),
        );
        doc.insert(
            "remotes".into(),
            J::Object(
                repo.remote_copies()
                    .into_iter()
                    .map(|(u, p)| (u, J::from(p.display().to_string())))
                    .collect(),
            ),
        );
        doc.insert(
            "items".into(),
            J::Array(items.iter().map(|i| i.json.clone()).collect()),
        );
        let doc = flate::output::envelope("EnvironmentList", J::Object(doc));
        let text = match f {
            Format::Json => serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n",
            _ => flate::yaml::to_string(&flate::yaml::Node::from_json(&doc)),
        };
        return super::common::print(&text);
    }
    print_items(&ENV_COLS, &items, "EnvironmentList", None, f)
}
