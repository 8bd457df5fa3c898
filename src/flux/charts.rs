//! Where a HelmRelease's chart comes from, offline.
//!
//! A chart from a GitRepository or Bucket is a directory of that source's
//! artifact: the repository itself (the bootstrap's `flux-system` or the
//! adopted root's source) or a `--source` directory. A chart from a
//! HelmRepository (HTTP or OCI), an OCIRepository, or a HelmChart over one
//! of them comes from the local chart cache: the `--charts` directories,
//! the `charts` of `.flate.yaml` and `.flate/charts/` in the repository,
//! holding what `helm pull` writes (`NAME-VERSION.tgz`) or unpacked chart
//! directories. A version constraint (`chart.spec.version`, an
//! OCIRepository's `ref.semver`) picks the highest cached version that
//! satisfies it (Masterminds semver, as source-controller does).

use std::path::{Path, PathBuf};

use crate::yaml::Node;

/// One chart of the cache.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cached {
    pub name: String,
    pub version: String,
    /// A `.tgz` file or a chart directory.
    pub path: PathBuf,
}

/// The charts found in the cache directories, in directory order.
#[derive(Debug, Clone, Default)]
pub struct ChartCache {
    pub dirs: Vec<PathBuf>,
    /// The directories as messages show them (relative to the repository
    /// when inside it).
    pub shown: Vec<String>,
    pub charts: Vec<Cached>,
}

/// `NAME-VERSION.tgz` as `helm pull` names it: the version is what
/// follows the first `-` after which a version parses.
pub fn split_archive_name(file: &str) -> Option<(String, String)> {
    let stem = file.strip_suffix(".tgz")?;
    for (i, c) in stem.char_indices() {
        if c != '-' || i == 0 {
            continue;
        }
        let (name, version) = (&stem[..i], &stem[i + 1..]);
        // MAJOR.MINOR.PATCH (a chart's version is strict semver), with an
        // optional `v`, prerelease and build.
        let core = version.strip_prefix('v').unwrap_or(version);
        let core = core.split(['-', '+']).next().unwrap_or("");
        let full = core.split('.').count() == 3
            && core
                .split('.')
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
        if full && ver::parse(version).is_some() {
            return Some((name.to_string(), version.to_string()));
        }
    }
    None
}

/// Name and version of a chart directory's `Chart.yaml`.
fn chart_dir_meta(dir: &Path) -> Option<(String, String)> {
    let text = std::fs::read_to_string(dir.join("Chart.yaml")).ok()?;
    let n = crate::yaml::parse_one(&text).ok()?;
    let s = |k: &str| n.get(k).and_then(Node::scalar_text);
    Some((s("name")?, s("version")?))
}

impl ChartCache {
    /// Lists the charts of `dirs` (a directory that does not exist holds
    /// none).
    pub fn scan(dirs: &[PathBuf], repo: &Path) -> ChartCache {
        let mut charts = Vec::new();
        for d in dirs {
            let Ok(rd) = std::fs::read_dir(d) else {
                continue;
            };
            let mut names: Vec<String> = rd
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            for n in names {
                let p = d.join(&n);
                if p.is_dir() {
                    if let Some((name, version)) = chart_dir_meta(&p) {
                        charts.push(Cached {
                            name,
                            version,
                            path: p,
                        });
                    }
                } else if let Some((name, version)) = split_archive_name(&n) {
                    charts.push(Cached {
                        name,
                        version,
                        path: p,
                    });
                }
            }
        }
        ChartCache {
            dirs: dirs.to_vec(),
            shown: dirs
                .iter()
                .map(|d| d.strip_prefix(repo).unwrap_or(d).display().to_string())
                .collect(),
            charts,
        }
    }

    /// The version of a cache entry (`.tgz` or directory).
    pub fn version_of(p: &Path) -> String {
        let file = p
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        split_archive_name(&file)
            .or_else(|| chart_dir_meta(p))
            .map(|(_, v)| v)
            .unwrap_or_default()
    }

    /// The cached chart `name` satisfying `constraint` (an exact version,
    /// a range, or empty / `*` for the newest stable one): the highest
    /// version that matches, the first directory's on a tie.
    pub fn find(&self, name: &str, constraint: &str) -> Result<Option<&Cached>, String> {
        let c = constraint.trim();
        let c = if c.is_empty() || c == "latest" {
            "*"
        } else {
            c
        };
        let m = ver::matcher(c)
            .map_err(|e| format!("version '{constraint}' is not a semver range: {e}"))?;
        let mut best: Option<(ver::V, &Cached)> = None;
        for ch in self.charts.iter().filter(|ch| ch.name == name) {
            let Some(v) = ver::parse(&ch.version) else {
                continue;
            };
            if m(&v) && best.as_ref().is_none_or(|(b, _)| ver::greater(&v, b)) {
                best = Some((v, ch));
            }
        }
        Ok(best.map(|(_, c)| c))
    }
}

/// Versions and constraints (Masterminds semver v3, as source-controller
/// uses).
mod ver {
    use crate::helm::semver::{Constraint, Version};

    pub type V = Version;
    /// Whether a version satisfies what was asked for.
    pub type Matcher = Box<dyn Fn(&V) -> bool>;

    pub fn parse(s: &str) -> Option<V> {
        Version::parse(s).ok()
    }

    pub fn greater(a: &V, b: &V) -> bool {
        a > b
    }

    /// An exact version matches itself only (as a tag does); anything else
    /// is a constraint (`*` excludes prereleases, as Masterminds does).
    pub fn matcher(c: &str) -> Result<Matcher, String> {
        let core = c.trim().trim_start_matches('v');
        let core = core.split(['-', '+']).next().unwrap_or("");
        let full = core.split('.').count() == 3
            && core
                .split('.')
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
        if full && let Ok(want) = Version::parse(c) {
            return Ok(Box::new(move |v: &V| *v == want));
        }
        let cons = Constraint::parse(c)?;
        Ok(Box::new(move |v: &V| cons.matches(v)))
    }
}

/// What a HelmRelease's chart is and where it would be fetched from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChartRequest {
    /// A directory of a GitRepository or Bucket artifact.
    SourcePath {
        kind: String,
        namespace: String,
        name: String,
        path: String,
    },
    /// A source artifact that is a chart archive's contents (an
    /// ExternalArtifact, as helm-controller loads it).
    Artifact {
        kind: String,
        namespace: String,
        name: String,
    },
    /// A chart of a Helm repository (HTTP), an OCI registry, or an
    /// OCIRepository: fetched with `helm pull`.
    Remote {
        chart: String,
        /// The version or range asked for (empty: the newest).
        version: String,
        /// `https://…` of an HTTP Helm repository, or `oci://…/CHART`.
        url: String,
        oci: bool,
    },
}

/// Shell quoting of one word (only when needed).
fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:@+=,".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

impl ChartRequest {
    /// The `helm pull` command that puts the chart where flate reads it.
    pub fn pull_command(&self) -> Option<String> {
        let ChartRequest::Remote {
            chart,
            version,
            url,
            oci,
        } = self
        else {
            return None;
        };
        let mut cmd = if *oci {
            format!("helm pull {}", shell_word(url))
        } else {
            format!("helm pull {} --repo {}", shell_word(chart), shell_word(url))
        };
        let v = version.trim();
        if !v.is_empty() && v != "*" && v != "latest" {
            cmd.push_str(&format!(" --version {}", shell_word(v)));
        }
        cmd.push_str(" -d .flate/charts");
        Some(cmd)
    }
}

/// The chart name of an OCI URL: its last path segment.
pub fn oci_chart_name(url: &str) -> String {
    url.trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn archive_names() {
        assert_eq!(
            split_archive_name("app-template-3.7.3.tgz"),
            Some(("app-template".into(), "3.7.3".into()))
        );
        assert_eq!(
            split_archive_name("cert-manager-v1.16.2.tgz"),
            Some(("cert-manager".into(), "v1.16.2".into()))
        );
        assert_eq!(
            split_archive_name("x-1.0.0-rc.1.tgz"),
            Some(("x".into(), "1.0.0-rc.1".into()))
        );
        assert_eq!(
            split_archive_name("x-v2-1.0.0.tgz"),
            Some(("x-v2".into(), "1.0.0".into()))
        );
        assert_eq!(split_archive_name("nothing.tgz"), None);
        assert_eq!(split_archive_name("chart-1.0.0.tar"), None);
    }

    #[test]
    fn pull_commands() {
        let r = ChartRequest::Remote {
            chart: "podinfo".into(),
            version: ">=6.0.0 <7.0.0".into(),
            url: "https://stefanprodan.github.io/podinfo".into(),
            oci: false,
        };
        assert_eq!(
            r.pull_command().unwrap(),
            "helm pull podinfo --repo https://stefanprodan.github.io/podinfo --version '>=6.0.0 <7.0.0' -d .flate/charts"
        );
        let o = ChartRequest::Remote {
            chart: "app-template".into(),
            version: "3.7.3".into(),
            url: "oci://ghcr.io/bjw-s/helm/app-template".into(),
            oci: true,
        };
        assert_eq!(
            o.pull_command().unwrap(),
            "helm pull oci://ghcr.io/bjw-s/helm/app-template --version 3.7.3 -d .flate/charts"
        );
        assert_eq!(
            oci_chart_name("oci://ghcr.io/bjw-s/helm/app-template"),
            "app-template"
        );
    }
}
