//! kustomize's `helmCharts:` and `helmGlobals:` (and the deprecated
//! `helmChartInflationGenerator:` list), as kustomize v5.5.0's builtin
//! HelmChartInflationGenerator runs them with `--enable-helm`, with this
//! project's chart engine in place of `helm template`. Charts are never
//! downloaded: a chart must already be in the chart home (`chartHome`,
//! default `charts/` beside the kustomization; `NAME-VERSION/NAME` there
//! when both `version` and `repo` are set, where `helm pull --untar` puts
//! it); otherwise the error names the chart and the `helm pull` command
//! that fetches it.
//!
//! Values as kustomize passes them to Helm: the values file (`valuesFile`,
//! default the chart's own `values.yaml`) with `valuesInline` merged over
//! it (`valuesMerge: override`, the default), under it (`merge`) or in its
//! place (`replace`, which never reads the file), then each of
//! `additionalValuesFiles`. The merge is kyaml's `merge2` (a `null`
//! deletes, lists are replaced, a map over a scalar fails). Without a
//! `releaseName` kustomize runs `helm template --generate-name`, which
//! `helm template` names `release-name`; `nameTemplate` (a Go template
//! with Sprig's functions) names the release instead, and cannot be set
//! together with `releaseName`. Release names are checked as Helm checks
//! them.

use std::path::{Path, PathBuf};

use super::Error;
use super::build::{Loader, resources_from_text};
use super::kustfile::Kustomization;
use crate::helm::chart::{self, RenderOptions};
use crate::resource::Resource;
use crate::yaml::{Map, Node};

/// One `helmCharts` entry (kustomize's `types.HelmChart`).
#[derive(Debug, Default, Clone)]
struct HelmChart {
    name: String,
    version: String,
    repo: String,
    release_name: String,
    namespace: String,
    additional_values_files: Vec<String>,
    values_file: String,
    values_inline: Option<Node>,
    values_merge: String,
    include_crds: bool,
    skip_hooks: bool,
    skip_tests: bool,
    api_versions: Vec<String>,
    kube_version: String,
    name_template: String,
}

fn str_of(m: &Map, key: &str) -> String {
    match m.get(key) {
        Some(Node::Str(s)) => s.clone(),
        Some(Node::Int(i)) => i.to_string(),
        Some(Node::UInt(u)) => u.to_string(),
        Some(Node::Float(f)) => f.to_string(),
        Some(Node::Bool(b)) => b.to_string(),
        _ => String::new(),
    }
}

fn bool_of(m: &Map, key: &str) -> bool {
    matches!(m.get(key), Some(Node::Bool(true)))
}

fn list_of(m: &Map, key: &str) -> Vec<String> {
    match m.get(key) {
        Some(Node::Seq(s)) => s
            .iter()
            .filter_map(|n| n.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

fn inline_of(m: &Map, key: &str) -> Option<Node> {
    match m.get(key) {
        Some(n @ Node::Map(v)) if !v.is_empty() => Some(n.clone()),
        _ => None,
    }
}

/// The charts a kustomization lists and its chart home (`helmGlobals`,
/// else the deprecated entries' `chartHome`, else `charts`).
fn charts(k: &Kustomization) -> Result<(Vec<HelmChart>, String), Error> {
    let mut home = String::new();
    if let Some(Node::Map(g)) = k.get("helmGlobals") {
        home = str_of(g, "chartHome");
    }
    let mut out = Vec::new();
    for item in k.list("helmCharts")? {
        let Node::Map(m) = &item else {
            return Err(k.err("helmCharts: each entry must be a map"));
        };
        out.push(HelmChart {
            name: str_of(m, "name"),
            version: str_of(m, "version"),
            repo: str_of(m, "repo"),
            release_name: str_of(m, "releaseName"),
            namespace: str_of(m, "namespace"),
            additional_values_files: list_of(m, "additionalValuesFiles"),
            values_file: str_of(m, "valuesFile"),
            values_inline: inline_of(m, "valuesInline"),
            values_merge: str_of(m, "valuesMerge"),
            include_crds: bool_of(m, "includeCRDs"),
            skip_hooks: bool_of(m, "skipHooks"),
            skip_tests: bool_of(m, "skipTests"),
            api_versions: list_of(m, "apiVersions"),
            kube_version: str_of(m, "kubeVersion"),
            name_template: str_of(m, "nameTemplate"),
        });
    }
    // The deprecated form (`types.SplitHelmParameters`): its chartHome
    // becomes the global one; releaseNamespace is not carried over.
    for item in k.list("helmChartInflationGenerator")? {
        let Node::Map(m) = &item else {
            return Err(k.err("helmChartInflationGenerator: each entry must be a map"));
        };
        let h = str_of(m, "chartHome");
        if !h.is_empty() {
            home = h;
        }
        out.push(HelmChart {
            name: str_of(m, "chartName"),
            version: str_of(m, "chartVersion"),
            repo: str_of(m, "chartRepoUrl"),
            values_file: str_of(m, "values"),
            values_inline: inline_of(m, "valuesLocal"),
            values_merge: str_of(m, "valuesMerge"),
            release_name: str_of(m, "releaseName"),
            ..HelmChart::default()
        });
    }
    if home.is_empty() {
        home = "charts".into();
    }
    Ok((out, home))
}

/// Whether the kustomization uses Helm charts at all.
pub fn uses_helm(k: &Kustomization) -> bool {
    k.get("helmCharts").is_some() || k.get("helmChartInflationGenerator").is_some()
}

/// `merge2.Merge(src, dest)` as kustomize's `replaceValuesInline` runs it
/// on values (kyaml's walker: maps merge key by key, a `null` in `src`
/// deletes the key, lists and scalars of `src` replace, nodes of another
/// kind fail): the strategic-merge port of this crate, which has no schema
/// for values (no apiVersion/kind), so no list is merged by key.
fn merge2(src: &Node, dest: &Node) -> Result<Node, String> {
    super::smp::merge(dest, src)
        .map(|n| n.unwrap_or_else(|| Node::Map(Map::new())))
        .map_err(|e| format!("could not merge values: {e}"))
}

/// The pattern Helm checks release names against (named in its message).
const RELEASE_NAME_PATTERN: &str =
    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";

/// Helm's `ValidateReleaseName`, with the message `helm install` and
/// `helm template` print.
pub fn validate_release_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err(format!("release name {name:?}: no name provided"));
    }
    if name.len() > 53 || !matches_release_name_pattern(name) {
        return Err(format!(
            "release name {name:?}: invalid release name, must match regex {RELEASE_NAME_PATTERN} and the length must not be longer than 53"
        ));
    }
    Ok(())
}

/// Whether `name` matches [`RELEASE_NAME_PATTERN`]: labels separated by
/// dots, each of lowercase letters, digits and dashes, starting and ending
/// with a letter or digit. (Checked directly: compiling the pattern cost
/// as much as rendering a small chart's templates.)
fn matches_release_name_pattern(name: &str) -> bool {
    name.split('.').all(|label| {
        let b = label.as_bytes();
        let alnum = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
        b.first().is_some_and(alnum)
            && b.last().is_some_and(alnum)
            && b.iter().all(|c| alnum(c) || *c == b'-')
    })
}

/// Helm's `TemplateName`: the name template executed with Sprig's
/// functions and no data.
pub fn template_name(text: &str) -> Result<String, String> {
    let mut t = crate::template::Templates::new();
    crate::helm::sprig::add_funcs(&mut t);
    t.parse("name-template", text).map_err(|e| e.to_string())?;
    t.execute("name-template", &crate::template::Value::Nil)
        .map_err(|e| e.to_string())
}

/// Helm's `-f` merge (`mergeMaps`): maps recursively, others replaced.
fn merge_values(base: &mut Node, over: &Node) {
    match (base, over) {
        (Node::Map(b), Node::Map(o)) => {
            for (key, v) in o.iter() {
                match b.get_mut(key) {
                    Some(existing @ Node::Map(_)) if matches!(v, Node::Map(_)) => {
                        merge_values(existing, v)
                    }
                    _ => {
                        b.insert(key.clone(), v.clone());
                    }
                }
            }
        }
        (b, o) => *b = o.clone(),
    }
}

fn parse_values(path: &Path, text: &str) -> Result<Node, Error> {
    let docs = crate::yaml::parse::parse_stream_json_keys(text).map_err(|e| {
        Error::at(
            path,
            format!(
                "could not parse the values file: line {}: {}",
                e.line, e.message
            ),
        )
    })?;
    match docs.into_iter().next().map(|d| d.node) {
        Some(n @ Node::Map(_)) => Ok(n),
        Some(Node::Null) | None => Ok(Node::Map(Map::new())),
        Some(_) => Err(Error::at(path, "the values file is not a map")),
    }
}

/// The `helm pull` command that puts the chart where kustomize looks.
fn pull_command(c: &HelmChart, untardir: &Path) -> String {
    let mut cmd = format!("helm pull --untar --untardir {}", untardir.display());
    if let Some(oci) = c.repo.strip_prefix("oci://") {
        cmd.push_str(&format!(" oci://{}/{}", oci.trim_end_matches('/'), c.name));
    } else {
        if !c.repo.is_empty() {
            cmd.push_str(&format!(" --repo {}", c.repo));
        }
        cmd.push_str(&format!(" {}", c.name));
    }
    if !c.version.is_empty() {
        cmd.push_str(&format!(" --version {}", c.version));
    }
    cmd
}

/// Renders every chart the kustomization lists, in order; the objects as
/// kustomize reads them from `helm template`'s output.
pub fn generate(
    k: &Kustomization,
    ldr: &Loader,
    enable_helm: bool,
) -> Result<Vec<Vec<Resource>>, Error> {
    if !uses_helm(k) {
        return Ok(Vec::new());
    }
    let (list, home) = charts(k)?;
    let mut out = Vec::new();
    for c in list {
        if !enable_helm {
            return Err(k.err(
                "helmCharts: must specify --enable-helm (kustomize renders Helm charts only when asked to)",
            ));
        }
        if c.name.is_empty() {
            return Err(k.err("helmCharts: chart name cannot be empty"));
        }
        if !c.values_merge.is_empty()
            && !["merge", "override", "replace"].contains(&c.values_merge.as_str())
        {
            return Err(k.err("valuesMerge must be one of [merge override replace]"));
        }
        let mut abs_home = if Path::new(&home).is_absolute() {
            PathBuf::from(&home)
        } else {
            ldr.root.join(&home)
        };
        if !c.version.is_empty() && !c.repo.is_empty() {
            abs_home = abs_home.join(format!("{}-{}", c.name, c.version));
        }
        let chart_dir = abs_home.join(&c.name);
        if !chart_dir.is_dir() {
            let how = format!(
                "flate never downloads charts; fetch it with `{}`",
                pull_command(&c, &abs_home)
            );
            return Err(k.err(if c.repo.is_empty() {
                format!(
                    "helmCharts: chart '{}' is not at '{}' and no repo is specified: put the chart directory there (`helm pull --untar --untardir {} --repo URL {}` fetches one), or set repo and version",
                    c.name,
                    chart_dir.display(),
                    abs_home.display(),
                    c.name
                )
            } else {
                format!(
                    "helmCharts: chart '{}' (version {}, repo {}) is not at '{}'; {how}",
                    c.name,
                    if c.version.is_empty() { "latest" } else { &c.version },
                    c.repo,
                    chart_dir.display()
                )
            }));
        }
        let values_file = if c.values_file.is_empty() {
            chart_dir.join("values.yaml").to_string_lossy().into_owned()
        } else {
            c.values_file.clone()
        };
        // `replace` never reads the values file.
        let file_values = || -> Result<(PathBuf, Node), Error> {
            let (vpath, vtext) = ldr.load(&values_file)?;
            let v = parse_values(&vpath, &vtext)?;
            Ok((vpath, v))
        };
        let mut values = match (&c.values_inline, c.values_merge.as_str()) {
            (Some(inline), "replace") => inline.clone(),
            (Some(inline), "merge") => {
                let (vpath, file) = file_values()?;
                merge2(&file, inline).map_err(|e| Error::at(&vpath, e))?
            }
            (Some(inline), _) => {
                let (vpath, file) = file_values()?;
                merge2(inline, &file).map_err(|e| Error::at(&vpath, e))?
            }
            (None, _) => file_values()?.1,
        };
        for f in &c.additional_values_files {
            let (p, text) = ldr.load(f)?;
            merge_values(&mut values, &parse_values(&p, &text)?);
        }
        let loaded = chart::load(&chart_dir)
            .map_err(|e| Error::at(&chart_dir, format!("helm template: {}", e.message)))?;
        // kustomize runs `helm template RELEASE` or, without a release
        // name, `helm template --generate-name` (which `helm template`
        // names `release-name`), adding `--name-template` when set.
        let release_name = match (c.release_name.is_empty(), c.name_template.is_empty()) {
            (false, false) => {
                return Err(k.err(format!(
                    "helmCharts: chart '{}': helm template: cannot set --name-template and also specify a name (set releaseName or nameTemplate, not both)",
                    c.name
                )));
            }
            (false, true) => c.release_name.clone(),
            (true, false) => template_name(&c.name_template).map_err(|e| {
                k.err(format!(
                    "helmCharts: chart '{}': nameTemplate: helm template: {e}",
                    c.name
                ))
            })?,
            (true, true) => "release-name".into(),
        };
        validate_release_name(&release_name).map_err(|e| {
            k.err(format!(
                "helmCharts: chart '{}': helm template: {e}",
                c.name
            ))
        })?;
        let opts = RenderOptions {
            release_name,
            namespace: if c.namespace.is_empty() {
                "default".into()
            } else {
                c.namespace.clone()
            },
            values,
            kube_version: (!c.kube_version.is_empty()).then(|| c.kube_version.clone()),
            api_versions: c.api_versions.clone(),
            include_crds: c.include_crds,
            skip_tests: c.skip_tests,
            ..RenderOptions::default()
        };
        let mut rendered = chart::render(&loaded, &opts)
            .map_err(|e| Error::at(&chart_dir, format!("helm template: {}", e.message)))?;
        if c.skip_hooks {
            rendered.manifests.retain(|m| !m.hook);
        }
        let text = chart::print_template(&rendered);
        out.push(resources_from_text(&chart_dir, &text)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn y(s: &str) -> Node {
        crate::yaml::parse::parse_stream_json_keys(s)
            .unwrap()
            .remove(0)
            .node
    }

    #[test]
    fn inline_values_merge_as_kustomize_merges_them() {
        let dest = y("a: 1\nm: {x: 1, w: 2}\nl: [1, 2]\ngone: here\n");
        let out = merge2(
            &y("m: {w: 3, z: 4}\nl: [9]\ngone: null\nnew: {k: v}\n"),
            &dest,
        )
        .unwrap();
        assert_eq!(
            out.to_json().to_string(),
            r#"{"a":1,"l":[9],"m":{"w":3,"x":1,"z":4},"new":{"k":"v"}}"#
        );
        // A map over a scalar fails as kyaml's walker fails.
        let err = merge2(&y("a: {b: 1}\n"), &dest).unwrap_err();
        assert!(
            err.starts_with(
                "could not merge values: wrong node kind: expected ScalarNode but got MappingNode"
            ),
            "{err}"
        );
    }

    #[test]
    fn release_names_are_checked_and_templated() {
        assert!(validate_release_name("web-1.example").is_ok());
        assert_eq!(
            validate_release_name("Not_Valid").unwrap_err(),
            r#"release name "Not_Valid": invalid release name, must match regex ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$ and the length must not be longer than 53"#
        );
        assert!(validate_release_name(&"a".repeat(54)).is_err());
        assert_eq!(
            template_name(r#"{{ "KV" | lower }}-{{ printf "%d" 7 }}"#).unwrap(),
            "kv-7"
        );
    }

    #[test]
    fn release_name_check_matches_helms_pattern() {
        // The direct check against the pattern itself, on names built from
        // every short sequence of the characters that matter.
        let re = regex::Regex::new(RELEASE_NAME_PATTERN).unwrap();
        let alphabet = ['a', 'z', '0', '9', '-', '.', 'A', '_', 'é', ' '];
        let mut names = vec![String::new()];
        for _ in 0..4 {
            let longer: Vec<String> = names
                .iter()
                .flat_map(|n| alphabet.iter().map(move |c| format!("{n}{c}")))
                .collect();
            names.extend(longer);
        }
        names.sort();
        names.dedup();
        assert!(names.len() > 10_000);
        for n in &names {
            assert_eq!(matches_release_name_pattern(n), re.is_match(n), "{n:?}");
        }
        for n in [
            "web-1.example",
            "a.b.c",
            "a..b",
            "-a",
            "a-",
            "a.-b",
            "1-2-3.x9",
        ] {
            assert_eq!(matches_release_name_pattern(n), re.is_match(n), "{n:?}");
        }
    }

    #[test]
    fn pull_commands_name_the_chart_home() {
        let c = HelmChart {
            name: "podinfo".into(),
            version: "6.5.0".into(),
            repo: "https://charts.example.invalid".into(),
            ..HelmChart::default()
        };
        assert_eq!(
            pull_command(&c, Path::new("/k/charts/podinfo-6.5.0")),
            "helm pull --untar --untardir /k/charts/podinfo-6.5.0 --repo https://charts.example.invalid podinfo --version 6.5.0"
        );
        let c = HelmChart {
            repo: "oci://ghcr.io/example/".into(),
            ..c
        };
        assert_eq!(
            pull_command(&c, Path::new("/c")),
            "helm pull --untar --untardir /c oci://ghcr.io/example/podinfo --version 6.5.0"
        );
    }
}
