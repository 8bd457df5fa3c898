//! Selection shared by `get`, `build`, `test` and `diff`: a resource type
//! (kubectl-style aliases), an optional environment and NAME, `-n`, `-A`
//! and `-l`; a name or namespace that matches nothing is an error that
//! offers the closest names.

use std::collections::HashMap;

use clap::Args;

use flate::flux::helm::HelmReleaseReport;
use flate::flux::{KsReport, Rendered};
use flate::kustomize::patch::LabelSelector;
use flate::yaml::Map;

use super::common::{EnvArgs, Repo};
use super::diag::{Diag, closest};

/// A resource type on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Ks,
    Hr,
    All,
    Sources,
    Envs,
    /// Every container image with the workloads that run it.
    Images,
    /// The charts the HelmReleases need, cached or not.
    Charts,
    /// The Flux Operator's ResourceSets.
    ResourceSets,
}

impl Kind {
    /// The type a word names (kubectl's singular, plural and short forms).
    pub fn parse(word: &str) -> Option<Kind> {
        let w = word.to_ascii_lowercase();
        let w = w.split('.').next().unwrap_or("");
        Some(match w {
            "ks" | "kustomization" | "kustomizations" => Kind::Ks,
            "hr" | "helmrelease" | "helmreleases" => Kind::Hr,
            "all" => Kind::All,
            "sources" | "source" | "src" => Kind::Sources,
            "envs" | "env" | "environment" | "environments" => Kind::Envs,
            "images" | "image" | "img" => Kind::Images,
            "charts" | "chart" => Kind::Charts,
            "rset" | "resourceset" | "resourcesets" => Kind::ResourceSets,
            _ => return None,
        })
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Ks => "ks",
            Kind::Hr => "hr",
            Kind::All => "all",
            Kind::Sources => "sources",
            Kind::Envs => "envs",
            Kind::Images => "images",
            Kind::Charts => "charts",
            Kind::ResourceSets => "rset",
        }
    }
}

#[derive(Args, Debug, Clone, Default)]
pub struct SelectArgs {
    /// Only the Kustomizations and HelmReleases in this namespace (with
    /// `get`, the objects listed).
    #[arg(short = 'n', long, value_name = "NAMESPACE")]
    pub namespace: Option<String>,
    /// Objects in every namespace (the default; accepted for kubectl habits).
    #[arg(short = 'A', long, conflicts_with = "namespace")]
    pub all_namespaces: bool,
    /// Only the Kustomizations and HelmReleases whose labels match this
    /// selector (with `get`, the objects listed):
    /// `app=a,tier!=b,env in (x,y),!legacy`.
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub selector: Option<String>,
}

/// What the positional words say.
#[derive(Debug, Clone, Default)]
pub struct Words {
    pub kind: Option<Kind>,
    pub envs: Vec<String>,
    pub name: Option<String>,
}

/// Splits `[TYPE] [ENV...] [NAME]`: a leading word naming a type is the
/// type; a word naming an environment is an environment; with a type, a
/// last word that does not is NAME. Without a type, an unknown word is
/// an environment (and reported as unknown with the known ones).
/// The words of `[TYPE] [ENV...] [NAME]` of a rendering command (`ks`, `hr`
/// or `all`) and the selection they make with `-n`/`-l`.
pub fn rendering_words(
    args: &[String],
    many_envs: bool,
    a: &EnvArgs,
    select: &SelectArgs,
) -> Result<(Words, Selection), Diag> {
    let repo = Repo::open(a)?;
    let w = words(args, &[Kind::Ks, Kind::Hr, Kind::All], many_envs, &repo, a)?;
    let sel = Selection::new(w.name.clone(), select)?;
    Ok((w, sel))
}

pub fn words(
    args: &[String],
    allowed: &[Kind],
    many_envs: bool,
    repo: &Repo,
    a: &EnvArgs,
) -> Result<Words, Diag> {
    let mut w = Words::default();
    let mut rest: &[String] = args;
    if let Some(first) = rest.first()
        && let Some(k) = Kind::parse(first)
    {
        if !allowed.contains(&k) {
            return Err(
                Diag::error(format!("'{first}' is not a type this command takes")).help(format!(
                    "the types are: {}",
                    allowed
                        .iter()
                        .map(|k| k.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            );
        }
        w.kind = Some(k);
        rest = &rest[1..];
    }
    // The environments of the repository, found when a word's meaning
    // depends on them. With --path and no TYPE it never does (the first
    // word names the environment, whatever it is), and finding them walks
    // a repository without kubernetes/clusters/ whole.
    let found: std::cell::OnceCell<Vec<String>> = std::cell::OnceCell::new();
    let known = || found.get_or_init(|| repo.environments().into_iter().map(|e| e.name).collect());
    let env_words_only = a.path.is_some() && w.kind.is_none();
    let is_env = |s: &str| !env_words_only && known().iter().any(|k| k == s);
    let max_envs = if many_envs { usize::MAX } else { 1 };
    for (i, word) in rest.iter().enumerate() {
        let last = i + 1 == rest.len();
        let takes_name = w.kind.is_some_and(|k| {
            k != Kind::Envs && k != Kind::Sources && k != Kind::Images && k != Kind::Charts
        }) || (matches!(w.kind, Some(Kind::Sources | Kind::ResourceSets))
            && !many_envs);
        if is_env(word) && w.envs.len() < max_envs && (a.path.is_none() || w.envs.is_empty()) {
            // With --path, a word naming an environment names the
            // environment only when it is the first word.
            w.envs.push(word.clone());
        } else if last
            && takes_name
            && (a.path.is_some() || !w.envs.is_empty() || known().len() == 1)
        {
            w.name = Some(word.clone());
        } else if last && a.path.is_some() && w.envs.is_empty() {
            // `flate build NAME --path DIR`: the environment's name.
            w.envs.push(word.clone());
        } else if w.envs.len() < max_envs {
            w.envs.push(word.clone());
        } else {
            return Err(Diag::error(format!("unexpected argument '{word}'"))
                .help("the arguments are [TYPE] [ENV] [NAME]; TYPE is ks, hr or all"));
        }
    }
    Ok(w)
}

/// A selection: NAME (`name` or `namespace/name`), `-n`, `-l`.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    pub name: Option<String>,
    pub namespace: Option<String>,
    pub selector: Option<LabelSelector>,
    /// `-l` as written (for messages).
    pub selector_text: Option<String>,
}

impl Selection {
    pub fn new(name: Option<String>, s: &SelectArgs) -> Result<Selection, Diag> {
        let selector = match &s.selector {
            Some(t) => {
                Some(LabelSelector::parse(t).map_err(|e| Diag::error(format!("-l {t}: {e}")))?)
            }
            None => None,
        };
        Ok(Selection {
            name,
            namespace: s.namespace.clone(),
            selector,
            selector_text: s.selector.clone(),
        })
    }

    pub fn is_all(&self) -> bool {
        self.name.is_none() && self.namespace.is_none() && self.selector.is_none()
    }

    fn matches(&self, namespace: &str, name: &str, labels: Option<&Map>) -> bool {
        if let Some(ns) = &self.namespace
            && ns != namespace
        {
            return false;
        }
        if let Some(n) = &self.name
            && *n != name
            && *n != format!("{namespace}/{name}")
        {
            return false;
        }
        self.selector.as_ref().is_none_or(|s| s.matches(labels))
    }

    pub fn ks(&self, k: &KsReport, labels: &Labels) -> bool {
        self.matches(&k.namespace, &k.name, labels.get(&k.namespace, &k.name))
    }

    pub fn hr(&self, h: &HelmReleaseReport) -> bool {
        let labels = h
            .object
            .obj
            .get_path(&["metadata", "labels"])
            .and_then(|n| n.as_map());
        self.matches(&h.namespace, &h.name, labels)
    }

    /// An error when NAME or `-n` was given and nothing matched: the
    /// closest names of `candidates` (`namespace/name`) offered.
    pub fn nothing_matched(&self, what: &str, env: &str, candidates: &[String]) -> Diag {
        let asked = match (&self.name, &self.namespace) {
            (Some(n), Some(ns)) => format!("named '{n}' in namespace '{ns}'"),
            (Some(n), None) => format!("named '{n}'"),
            (None, Some(ns)) => format!("in namespace '{ns}'"),
            (None, None) => String::new(),
        };
        let mut d = Diag::error(format!("no {what} {asked} in environment {env}"));
        if let Some(l) = &self.selector_text {
            d = d.note(format!("with labels matching '{l}'"));
        }
        if let Some(n) = &self.name {
            // `namespace/name` is compared with whole keys, a name with names.
            let names: Vec<&str> = candidates
                .iter()
                .map(|c| {
                    if n.contains('/') {
                        c.as_str()
                    } else {
                        c.rsplit('/').next().unwrap_or(c)
                    }
                })
                .collect();
            let near = closest(n, names);
            if !near.is_empty() {
                d = d.help(format!("did you mean {}?", quoted(&near)));
            }
        }
        if let Some(ns) = &self.namespace {
            let mut nss: Vec<&str> = candidates
                .iter()
                .filter_map(|c| c.split_once('/').map(|(ns, _)| ns))
                .collect();
            nss.sort();
            nss.dedup();
            if !nss.contains(&ns.as_str()) {
                let near = closest(ns, nss.iter().copied());
                d = d.help(if near.is_empty() {
                    format!("the namespaces are: {}", nss.join(", "))
                } else {
                    format!("did you mean namespace {}?", quoted(&near))
                });
            }
        }
        d
    }
}

fn quoted(v: &[String]) -> String {
    v.iter()
        .map(|s| format!("'{s}'"))
        .collect::<Vec<_>>()
        .join(" or ")
}

/// The labels of every Flux Kustomization object of a render.
pub struct Labels<'a>(HashMap<(&'a str, &'a str), &'a Map>);

impl<'a> Labels<'a> {
    pub fn of(r: &'a Rendered) -> Labels<'a> {
        let mut m = HashMap::new();
        for (_, o) in r.all_objects() {
            if o.kind() == "Kustomization"
                && o.gvk().group == "kustomize.toolkit.fluxcd.io"
                && let Some(l) = o
                    .obj
                    .get_path(&["metadata", "labels"])
                    .and_then(|n| n.as_map())
            {
                m.insert((o.namespace(), o.name()), l);
            }
        }
        Labels(m)
    }
    pub fn get(&self, namespace: &str, name: &str) -> Option<&'a Map> {
        self.0.get(&(namespace, name)).copied()
    }
}

/// Keeps the selected Kustomizations and HelmReleases of `r` (`kind` says
/// which of the two the selection is about; the other is kept whole for
/// `ks` and emptied for `hr`). Err when NAME or `-n` matched nothing.
pub fn filter(r: &mut Rendered, kind: Kind, sel: &Selection) -> Result<(), Diag> {
    if sel.is_all() {
        return Ok(());
    }
    let ks_names: Vec<String> = r.kustomizations.iter().map(|k| k.key()).collect();
    let hr_names: Vec<String> = r
        .helmreleases
        .iter()
        .map(|h| format!("{}/{}", h.namespace, h.name))
        .collect();
    let keep_ks: Vec<bool> = {
        let labels = Labels::of(r);
        r.kustomizations
            .iter()
            .map(|k| sel.ks(k, &labels))
            .collect()
    };
    let keep_hr: Vec<bool> = r.helmreleases.iter().map(|h| sel.hr(h)).collect();
    let (any_ks, any_hr) = (keep_ks.contains(&true), keep_hr.contains(&true));
    let strict = sel.name.is_some() || sel.namespace.is_some();
    match kind {
        Kind::Hr | Kind::Charts => {
            if strict && !any_hr {
                return Err(sel.nothing_matched("HelmRelease", &r.cluster, &hr_names));
            }
            retain(&mut r.helmreleases, &keep_hr);
        }
        Kind::All => {
            if strict && !any_ks && !any_hr {
                let all: Vec<String> = ks_names.iter().chain(&hr_names).cloned().collect();
                return Err(sel.nothing_matched("Kustomization or HelmRelease", &r.cluster, &all));
            }
            retain(&mut r.kustomizations, &keep_ks);
            retain(&mut r.helmreleases, &keep_hr);
        }
        _ => {
            if strict && !any_ks {
                return Err(sel.nothing_matched("Kustomization", &r.cluster, &ks_names));
            }
            retain(&mut r.kustomizations, &keep_ks);
            // The HelmReleases of the kept Kustomizations.
            let kept: std::collections::HashSet<String> =
                r.kustomizations.iter().map(|k| k.key()).collect();
            r.helmreleases.retain(|h| kept.contains(&h.kustomization));
        }
    }
    Ok(())
}

fn retain<T>(v: &mut Vec<T>, keep: &[bool]) {
    let mut i = 0;
    v.retain(|_| {
        i += 1;
        keep[i - 1]
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases() {
        for w in [
            "ks",
            "kustomization",
            "Kustomizations",
            "kustomizations.kustomize.toolkit.fluxcd.io",
        ] {
            assert_eq!(Kind::parse(w), Some(Kind::Ks), "{w}");
        }
        for w in ["hr", "helmrelease", "HelmReleases"] {
            assert_eq!(Kind::parse(w), Some(Kind::Hr), "{w}");
        }
        assert_eq!(Kind::parse("all"), Some(Kind::All));
        assert_eq!(Kind::parse("production"), None);
    }
}
