//! The lints, one file each. Every lint reads the rendered environment
//! (and, for locations, the files the render read) and pushes findings;
//! none renders anything again.

mod chart_source_missing;
mod dependson_cycle;
mod dependson_missing;
mod duplicate_object;
mod flux_api_removed;
mod image_unpinned;
pub mod kustomize_patch_unmatched;
mod patch_overrides_value;
mod patch_target_unmatched;
mod pin_digest_lost;
mod pin_digest_mismatch;
mod render_failed;
pub mod sops_decryption_missing;
mod substitutefrom_bootstrap;
mod targetnamespace_mismatch;
mod unresolved_variable;
mod valuesfrom_missing;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::finding::Finding;
use super::locate::Locator;
use super::{Env, opted_out};
use crate::flux::model::{HELM_GROUP, KUSTOMIZE_GROUP};
use crate::flux::{KsReport, Status};
use crate::resource::Resource;
use crate::yaml::Document;

/// What a lint sees of one environment.
pub struct Ctx<'e, 'a> {
    pub env: &'e Env<'a>,
    pub loc: Locator<'a>,
    /// Every object of every rendered Kustomization, with its producer.
    pub all: Vec<(&'e KsReport, &'e Resource)>,
    /// `namespace/name` → the Flux Kustomization object (as its parent
    /// rendered it).
    pub ks_objects: HashMap<String, (&'e KsReport, &'e Resource)>,
    /// kind → positions in `all`, in order.
    by_kind: HashMap<&'e str, Vec<usize>>,
    /// (kind, namespace or `default`, name) → the first position in `all`.
    by_id: HashMap<(&'e str, String, &'e str), usize>,
    /// The patches of every kustomization file, in order, as (target name
    /// or "" for none, file holding it), indexed by literal target name
    /// (see `patch_sources`).
    patch_index: std::cell::OnceCell<PatchIndex>,
    docs: std::cell::RefCell<HashMap<PathBuf, Option<std::rc::Rc<Vec<Document>>>>>,
}

impl<'e, 'a> Ctx<'e, 'a> {
    /// The rendered Kustomizations whose Flux object has `spec.patches`
    /// and does not opt out of `rule`: each report, and the patch entries.
    pub fn patching_kustomizations<'c>(
        &'c self,
        rule: &'c str,
    ) -> impl Iterator<Item = (&'e KsReport, &'e [crate::yaml::Node])> + 'c {
        self.env
            .rendered
            .kustomizations
            .iter()
            .filter(|k| k.status == crate::flux::Status::Rendered)
            .filter_map(move |k| {
                let (_, ks) = self.ks_objects.get(&k.key())?;
                if crate::check::opted_out(ks, rule) {
                    return None;
                }
                match ks.obj.get_path(&["spec", "patches"]) {
                    Some(crate::yaml::Node::Seq(entries)) => Some((k, entries.as_slice())),
                    _ => None,
                }
            })
    }

    pub fn new(env: &'e Env<'a>) -> Ctx<'e, 'a> {
        let all: Vec<(&KsReport, &Resource)> = env.rendered.rendered_objects().collect();
        let mut ks_objects = HashMap::new();
        for (k, o) in &all {
            if is_kind(o, KUSTOMIZE_GROUP, "Kustomization") {
                ks_objects
                    .entry(format!("{}/{}", ns_or_default(o), o.name()))
                    .or_insert((*k, *o));
            }
        }
        let mut by_kind: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut by_id = HashMap::new();
        for (i, (_, o)) in all.iter().enumerate() {
            by_kind.entry(o.kind()).or_default().push(i);
            by_id
                .entry((o.kind(), ns_or_default(o), o.name()))
                .or_insert(i);
        }
        Ctx {
            env,
            loc: Locator::new(env.fs),
            all,
            ks_objects,
            by_kind,
            by_id,
            patch_index: Default::default(),
            docs: Default::default(),
        }
    }

    /// The YAML documents of a file, parsed once.
    pub fn docs(&self, file: &Path) -> Option<std::rc::Rc<Vec<Document>>> {
        if let Some(d) = self.docs.borrow().get(file) {
            return d.clone();
        }
        let d = self
            .loc
            .text(file)
            .and_then(|t| crate::yaml::parse_stream(&t).ok())
            .map(std::rc::Rc::new);
        self.docs.borrow_mut().insert(file.to_path_buf(), d.clone());
        d
    }

    /// A finding for this environment.
    pub fn finding(&self, rule: &'static str, msg: impl Into<String>) -> Finding {
        Finding::new(rule, msg).env(&self.env.name)
    }

    pub fn rel(&self, p: &Path) -> PathBuf {
        self.env.rel(p)
    }

    /// Where `path` of object `o` (produced by `k`) is: the field's line
    /// in the object's file, else the producing Kustomization's.
    pub fn at(&self, k: &KsReport, o: &Resource, path: &str) -> (Option<PathBuf>, usize) {
        match &o.origin.file {
            Some(f) => (
                Some(self.rel(f)),
                self.loc.field_line(f, o.origin.line, path),
            ),
            None => self.ks_at(k, ""),
        }
    }

    /// Where a Kustomization is defined (the field `path` of it when given).
    pub fn ks_at(&self, k: &KsReport, path: &str) -> (Option<PathBuf>, usize) {
        match &k.origin.file {
            Some(f) if path.is_empty() => (Some(self.rel(f)), k.origin.line),
            Some(f) => (
                Some(self.rel(f)),
                self.loc.field_line(f, k.origin.line, path),
            ),
            None => (None, 0),
        }
    }

    /// The first object of `kind` named `name` in `namespace`.
    pub fn find(
        &self,
        kind: &str,
        namespace: &str,
        name: &str,
    ) -> Option<(&'e KsReport, &'e Resource)> {
        self.by_id
            .get(&(kind, namespace.to_string(), name))
            .map(|&i| self.all[i])
    }

    /// The objects of `kind`, in order.
    pub fn of_kind(&self, kind: &str) -> impl Iterator<Item = (&'e KsReport, &'e Resource)> + '_ {
        self.by_kind
            .get(kind)
            .into_iter()
            .flatten()
            .map(|&i| self.all[i])
    }

    /// Kustomizations skipped (suspended, external source): what they
    /// would render is unknown.
    pub fn skipped(&self) -> Vec<String> {
        self.env
            .rendered
            .kustomizations
            .iter()
            .filter(|k| k.status == Status::Skipped)
            .map(KsReport::key)
            .collect()
    }

    /// Files that may hold the `spec.patches` of Flux Kustomization `ks`:
    /// overlay patch files whose target names it, then its own file.
    pub fn patch_sources(&self, k: &KsReport) -> Vec<PathBuf> {
        let ix = self.patch_index.get_or_init(|| PatchIndex::new(self.env));
        // Positions of the patches that may name `k`, in file order.
        let mut at: Vec<usize> = ix.by_name.get(k.name.as_str()).cloned().unwrap_or_default();
        at.extend(
            ix.other
                .iter()
                .filter(|&&i| {
                    ix.entries[i]
                        .0
                        .as_deref()
                        .is_none_or(|n| name_matches(n, &k.name))
                })
                .copied(),
        );
        at.sort_unstable();
        let mut v: Vec<PathBuf> = at.into_iter().map(|i| ix.entries[i].1.clone()).collect();
        if let Some(f) = &k.origin.file {
            v.push(f.as_path().to_path_buf());
        }
        v.dedup();
        v
    }
}

/// Every patch of every kustomization file: (target name, file holding the
/// patch), with the positions of those whose target name is a plain name
/// by that name, and the others (no name, or a regular expression).
struct PatchIndex {
    entries: Vec<(Option<String>, PathBuf)>,
    by_name: HashMap<String, Vec<usize>>,
    other: Vec<usize>,
}

impl PatchIndex {
    fn new(env: &Env<'_>) -> PatchIndex {
        let mut ix = PatchIndex {
            entries: Vec::new(),
            by_name: HashMap::new(),
            other: Vec::new(),
        };
        for kf in &env.kfiles.files {
            for p in &kf.patches {
                let name = p
                    .target
                    .as_ref()
                    .and_then(|t| t.get_str(&["name"]))
                    .map(str::to_string);
                let file = p.file.clone().unwrap_or_else(|| kf.file.clone());
                let i = ix.entries.len();
                match &name {
                    Some(n) if !n.is_empty() && crate::kustomize::patch::is_plain_name(n) => {
                        ix.by_name.entry(n.clone()).or_default().push(i)
                    }
                    _ => ix.other.push(i),
                }
                ix.entries.push((name, file));
            }
        }
        ix
    }
}

/// The object's namespace, `default` when empty.
pub fn ns_or_default(o: &Resource) -> String {
    o.namespace_or_default().to_string()
}

pub fn is_kind(o: &Resource, group: &str, kind: &str) -> bool {
    let g = o.gvk();
    g.group == group && g.kind == kind
}

pub fn is_helmrelease(o: &Resource) -> bool {
    is_kind(o, HELM_GROUP, "HelmRelease")
}

/// A kustomize name selector (an anchored regular expression) against a
/// name; the name itself always matches.
pub fn name_matches(pattern: &str, name: &str) -> bool {
    pattern == name || crate::kustomize::patch::selector_matches(pattern, name)
}

/// Runs the per-environment lints.
pub fn run_env(env: &Env<'_>, out: &mut Vec<Finding>) {
    let timings = std::env::var_os("FLATE_TIMINGS").is_some();
    let t = std::time::Instant::now();
    let ctx = Ctx::new(env);
    if timings {
        eprintln!(
            "timing: {} lint context {:.2} ms",
            env.name,
            t.elapsed().as_secs_f64() * 1e3
        );
    }
    type Lint = fn(&Ctx, &mut Vec<Finding>);
    let lints: [(&str, Lint); 16] = [
        ("render-failed", render_failed::run),
        ("pin-digest-lost", pin_digest_lost::run),
        ("unresolved-variable", unresolved_variable::run),
        ("dependson-missing", dependson_missing::run),
        ("dependson-cycle", dependson_cycle::run),
        ("duplicate-object", duplicate_object::run),
        ("chart-source-missing", chart_source_missing::run),
        ("valuesfrom-missing", valuesfrom_missing::run),
        ("substitutefrom-bootstrap", substitutefrom_bootstrap::run),
        (sops_decryption_missing::RULE, sops_decryption_missing::run),
        ("targetnamespace-mismatch", targetnamespace_mismatch::run),
        ("patch-target-unmatched", patch_target_unmatched::run),
        ("patch-overrides-value", patch_overrides_value::run),
        (
            kustomize_patch_unmatched::RULE,
            kustomize_patch_unmatched::run,
        ),
        ("flux-api-removed", flux_api_removed::run),
        ("image-unpinned", image_unpinned::run),
    ];
    for (id, lint) in lints {
        let t = std::time::Instant::now();
        lint(&ctx, out);
        if timings {
            eprintln!(
                "timing: {} {id} {:.2} ms",
                env.name,
                t.elapsed().as_secs_f64() * 1e3
            );
        }
    }
}

/// `patch-overrides-value` alone (for `flate diff`, which names the values
/// a change writes that the cluster does not get).
pub fn overridden_values(env: &Env<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    patch_overrides_value::run(&Ctx::new(env), &mut out);
    out
}

/// Runs the lints that compare environments.
pub fn run_all(envs: &[Env<'_>], out: &mut Vec<Finding>) {
    let ctxs: Vec<Ctx> = envs.iter().map(Ctx::new).collect();
    pin_digest_mismatch::run(&ctxs, out);
}

/// Whether any of `objects` opts out of `rule`.
pub fn any_opted_out(objects: &[&Resource], rule: &str) -> bool {
    objects.iter().any(|o| opted_out(o, rule))
}
