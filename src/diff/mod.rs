//! `flate diff`: what a change does to the rendered clusters.
//!
//! Two renders of the same environment (the base, usually a git revision,
//! and the head, usually the working tree) are compared object by object.
//! Objects pair by (producing Kustomization or HelmRelease, API group,
//! kind, namespace, name); an object whose producer changed is a move; a
//! generated ConfigMap or Secret whose name hash changed pairs with its
//! previous self. Each pair is printed as a unified diff of the YAML
//! `flate build` prints (sorted keys, so map key order never shows).
//!
//! A Kustomization that renders on one side and fails on the other is not
//! diffed: its objects are left out on both sides and the failure is
//! reported instead. Secret values never reach any output: they are
//! replaced before the text is produced (see [`text::redact_pair`]).

pub mod base;
pub mod group;
pub mod html;
pub mod human;
pub mod ignore;
pub mod images;
mod json;
pub mod markdown;
pub mod pairing;
pub mod structural;
pub mod text;
pub mod unified;
pub mod versions;

use std::fmt;

use crate::flux::Rendered;
use crate::flux::helm::HrStatus;
use crate::resource::Resource;

pub use html::html;
pub use human::{HumanOptions, human};
pub use ignore::FieldPath;
pub use json::json;
pub use markdown::{MarkdownOptions, markdown};
pub use structural::Change;
pub use text::{Hunk, Line};
pub use unified::unified;
pub use versions::VersionChange;

/// What produced an object: the Flux Kustomization that rendered it, the
/// HelmRelease whose chart rendered it (or whose effective values it is),
/// or the Flux Operator ResourceSet that made it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Producer {
    Kustomization(String),
    HelmRelease(String),
    ResourceSet(String),
}

impl Producer {
    pub fn kind(&self) -> &'static str {
        match self {
            Producer::Kustomization(_) => "Kustomization",
            Producer::HelmRelease(_) => "HelmRelease",
            Producer::ResourceSet(_) => "ResourceSet",
        }
    }
    /// `namespace/name`.
    pub fn key(&self) -> &str {
        match self {
            Producer::Kustomization(k) | Producer::HelmRelease(k) | Producer::ResourceSet(k) => k,
        }
    }
}

impl fmt::Display for Producer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.kind(), self.key())
    }
}

/// An object's identity inside its producer.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectKey {
    pub group: String,
    pub kind: String,
    pub namespace: String,
    pub name: String,
}

impl ObjectKey {
    pub fn of(r: &Resource) -> ObjectKey {
        ObjectKey {
            group: r.gvk().group,
            kind: r.kind().to_string(),
            namespace: r.namespace().to_string(),
            name: r.name().to_string(),
        }
    }
    /// `namespace/name`, or `name` for an object without a namespace.
    pub fn qualified_name(&self) -> String {
        if self.namespace.is_empty() {
            self.name.clone()
        } else {
            format!("{}/{}", self.namespace, self.name)
        }
    }
}

impl fmt::Display for ObjectKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.kind, self.qualified_name())
    }
}

/// The two sides of a diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Base,
    Head,
}

impl Side {
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Base => "base",
            Side::Head => "head",
        }
    }
    pub fn other(self) -> Side {
        match self {
            Side::Base => Side::Head,
            Side::Head => Side::Base,
        }
    }
}

/// One side's render of an environment.
#[derive(Debug, Clone)]
pub enum Input {
    Rendered(Box<Rendered>),
    /// The environment does not exist on this side (a new or deleted
    /// environment): every object of the other side is added or removed.
    Absent(String),
    /// The render failed as a whole.
    Error(String),
}

/// Diff settings.
#[derive(Debug, Clone)]
pub struct DiffOptions {
    /// Fields dropped from both sides before comparing (`--ignore-field`).
    pub ignore: Vec<FieldPath>,
    /// The default ignore set ([`ignore::DEFAULTS`]), dropped too, and what
    /// it hid is counted.
    pub defaults: Vec<FieldPath>,
    /// Kinds left out of the comparison (`--skip-kinds`, `--skip-crds`,
    /// `--skip-secrets`).
    pub skip_kinds: Vec<String>,
    /// Lines of context around each change.
    pub context: usize,
    /// Compute the line diff of changed objects (`-o unified`, `json`,
    /// `html`); added and removed objects always get their text.
    pub text: bool,
    /// Compute the structural changes (every format but `-o unified`).
    pub structural: bool,
    /// What the base is (a revision and commit, or a directory), for the
    /// headlines.
    pub base_label: String,
}

impl Default for DiffOptions {
    fn default() -> Self {
        DiffOptions {
            ignore: Vec::new(),
            defaults: ignore::defaults(),
            skip_kinds: Vec::new(),
            context: 3,
            text: true,
            structural: true,
            base_label: String::new(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Added,
    Removed,
    Changed,
    Moved,
    Unchanged,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Added => "added",
            Status::Removed => "removed",
            Status::Changed => "changed",
            Status::Moved => "moved",
            Status::Unchanged => "unchanged",
        }
    }
}

/// One object on one or both sides.
#[derive(Debug, Clone)]
pub struct Pair {
    pub status: Status,
    /// The head's identity, or the base's for a removed object.
    pub key: ObjectKey,
    /// The base name when it differs (a generated ConfigMap or Secret whose
    /// hash suffix changed).
    pub base_name: Option<String>,
    /// The head's producer, or the base's for a removed object.
    pub producer: Producer,
    /// The base's producer of a moved object.
    pub moved_from: Option<Producer>,
    /// The diff of the YAML texts (the whole text for added and removed
    /// objects; empty for unchanged ones and moves without changes).
    pub hunks: Vec<Hunk>,
    /// The structural changes (empty for added and removed objects).
    pub changes: Vec<Change>,
    /// Paths of the differences the default ignore set hid.
    pub hidden: Vec<String>,
}

impl Pair {
    /// Lines added or removed.
    pub fn changed_lines(&self) -> usize {
        if !self.changes.is_empty() {
            return self
                .changes
                .iter()
                .flat_map(|c| c.diff_lines())
                .filter(|l| l.starts_with(['+', '-']))
                .count();
        }
        self.hunks
            .iter()
            .flat_map(|h| h.lines.iter())
            .filter(|l| l.tag != ' ')
            .count()
    }
    pub fn is_change(&self) -> bool {
        self.status != Status::Unchanged
    }
}

/// How a Kustomization came out on one side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KsState {
    Absent,
    Rendered,
    Skipped(String),
    Failed(String),
}

impl KsState {
    pub fn as_str(&self) -> &'static str {
        match self {
            KsState::Absent => "absent",
            KsState::Rendered => "rendered",
            KsState::Skipped(_) => "skipped",
            KsState::Failed(_) => "failed",
        }
    }
    pub fn message(&self) -> &str {
        match self {
            KsState::Skipped(m) | KsState::Failed(m) => m,
            _ => "",
        }
    }
}

/// A Kustomization whose objects could not be compared: it failed on at
/// least one side, or was skipped on one side only.
#[derive(Debug, Clone)]
pub struct Problem {
    /// `Kustomization` or `HelmRelease`.
    pub kind: &'static str,
    /// `namespace/name` of the Kustomization or HelmRelease.
    pub kustomization: String,
    pub base: KsState,
    pub head: KsState,
    /// Kustomizations it produces (transitively), not compared either.
    pub descendants: Vec<String>,
    /// For a Kustomization not rendered on either side, the same way: the
    /// files under its path that the change adds, removes or modifies
    /// (repository-relative, sorted). A Kustomization skipped the same way
    /// on both sides is a problem only when this is not empty: the change
    /// touches what the diff cannot show.
    pub touched: Vec<String>,
}

impl Problem {
    /// A failure the change introduces (exit status 2): the head fails
    /// where the base did not, or fails differently. A failure the base
    /// already had, the same on both sides or fixed on the head, is a note:
    /// the change did not cause it.
    pub fn is_fatal(&self) -> bool {
        match (&self.base, &self.head) {
            (KsState::Failed(b), KsState::Failed(h)) => b != h,
            (_, KsState::Failed(_)) => true,
            _ => false,
        }
    }
    fn not_compared(&self) -> String {
        match self.descendants.len() {
            0 => "its objects are".into(),
            1 => "its objects and those of the Kustomization it produces are".into(),
            n => format!("its objects and those of the {n} Kustomizations it produces are"),
        }
    }
    /// What the change touches under the Kustomization's path, as the end
    /// of a sentence (empty when nothing).
    fn touched_sentence(&self) -> String {
        const SHOWN: usize = 3;
        let n = self.touched.len();
        if n == 0 {
            return String::new();
        }
        let mut names = self.touched[..n.min(SHOWN)].join(", ");
        if n > SHOWN {
            names.push_str(&format!(" and {} more", n - SHOWN));
        }
        format!(
            ", and the change touches {n} file{} under its path, which this diff does not show: {names}",
            if n == 1 { "" } else { "s" }
        )
    }
    /// One sentence: which side failed or was skipped, why, and how the
    /// other side came out.
    pub fn describe(&self) -> String {
        let side = |s: Side, st: &KsState| match st {
            KsState::Failed(m) => format!("fails on {}: {m}", s.as_str()),
            KsState::Skipped(m) => format!("skipped on {}: {m}", s.as_str()),
            KsState::Rendered => format!("renders on {}", s.as_str()),
            KsState::Absent => format!("absent on {}", s.as_str()),
        };
        let (first, second) = match (&self.base, &self.head) {
            (KsState::Failed(b), KsState::Failed(h)) if b == h => {
                return format!(
                    "{} {} fails the same way on both sides: {h}; {} not compared \
                     (the change does not cause it; if it needs objects that exist only in the \
                     cluster, pass them with --settings){}",
                    self.kind,
                    self.kustomization,
                    self.not_compared(),
                    self.touched_sentence()
                );
            }
            (KsState::Skipped(b), KsState::Skipped(h)) if b == h => {
                return format!(
                    "{} {} is skipped on both sides: {h}; {} not compared{}",
                    self.kind,
                    self.kustomization,
                    self.not_compared(),
                    self.touched_sentence()
                );
            }
            (KsState::Failed(_), KsState::Failed(_)) => {
                return format!(
                    "{} {} {}; {}; {} not compared",
                    self.kind,
                    self.kustomization,
                    side(Side::Head, &self.head),
                    side(Side::Base, &self.base),
                    self.not_compared()
                );
            }
            (KsState::Failed(_), _) | (KsState::Skipped(_), KsState::Rendered) => {
                ((Side::Base, &self.base), (Side::Head, &self.head))
            }
            _ => ((Side::Head, &self.head), (Side::Base, &self.base)),
        };
        format!(
            "{} {} {} ({}); {} not compared",
            self.kind,
            self.kustomization,
            side(first.0, first.1),
            side(second.0, second.1),
            self.not_compared()
        )
    }
}

/// Counts of pairs by status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub added: usize,
    pub removed: usize,
    pub changed: usize,
    pub moved: usize,
    pub unchanged: usize,
}

impl Counts {
    pub fn total_changes(&self) -> usize {
        self.added + self.removed + self.changed + self.moved
    }
    pub fn summary(&self) -> String {
        format!(
            "{} changed, {} added, {} removed, {} moved, {} unchanged",
            self.changed, self.added, self.removed, self.moved, self.unchanged
        )
    }
}

/// The diff of one environment.
#[derive(Debug, Clone)]
pub struct EnvDiff {
    pub env: String,
    pub base_label: String,
    pub pairs: Vec<Pair>,
    pub problems: Vec<Problem>,
    /// A side that could not be rendered at all.
    pub errors: Vec<(Side, String)>,
    /// Facts worth a line (an environment absent on one side).
    pub notes: Vec<String>,
    pub versions: Vec<VersionChange>,
    /// Objects left out by kind (`--skip-kinds`...): (kind, count).
    pub skipped: Vec<(String, usize)>,
}

impl EnvDiff {
    /// Differences hidden by the default ignore set: (count, objects).
    pub fn hidden(&self) -> (usize, usize) {
        let objs = self.pairs.iter().filter(|p| !p.hidden.is_empty()).count();
        (self.pairs.iter().map(|p| p.hidden.len()).sum(), objs)
    }
    pub fn counts(&self) -> Counts {
        let mut c = Counts::default();
        for p in &self.pairs {
            match p.status {
                Status::Added => c.added += 1,
                Status::Removed => c.removed += 1,
                Status::Changed => c.changed += 1,
                Status::Moved => c.moved += 1,
                Status::Unchanged => c.unchanged += 1,
            }
        }
        c
    }
    pub fn has_changes(&self) -> bool {
        self.pairs.iter().any(Pair::is_change)
    }
    /// The change touches files of a Kustomization neither side renders:
    /// "no changes" would not be the whole truth.
    pub fn touches_unrendered(&self) -> bool {
        self.problems.iter().any(|p| !p.touched.is_empty())
    }
    /// flate could not diff all of this environment (exit status 2).
    pub fn is_fatal(&self) -> bool {
        !self.errors.is_empty() || self.problems.iter().any(Problem::is_fatal)
    }
    /// Producers with at least one change, in output order, with their pairs.
    pub fn changed_groups(&self) -> Vec<(&Producer, Vec<&Pair>)> {
        let mut out: Vec<(&Producer, Vec<&Pair>)> = Vec::new();
        let mut at: std::collections::HashMap<&Producer, usize> = std::collections::HashMap::new();
        for p in self.pairs.iter().filter(|p| p.is_change()) {
            match at.get(&p.producer) {
                Some(&i) => out[i].1.push(p),
                None => {
                    at.insert(&p.producer, out.len());
                    out.push((&p.producer, vec![p]));
                }
            }
        }
        out
    }
}

/// Diffs one environment's two renders.
pub fn diff_env(env: &str, base: &Input, head: &Input, opts: &DiffOptions) -> EnvDiff {
    diff_env_touched(env, base, head, opts, &|_| Vec::new())
}

/// [`diff_env`], told which files the change touches: `touched(path)` is
/// the repository-relative paths of the files under the repository-relative
/// directory `path` that differ between the two sides (see
/// [`base::changed_files`]). A Kustomization of the repository that is
/// not rendered on either side, the same way (skipped offline, or failing),
/// whose files the change touches, is then a [`Problem`] naming them, where
/// "no changes" would hide them.
pub fn diff_env_touched(
    env: &str,
    base: &Input,
    head: &Input,
    opts: &DiffOptions,
    touched: &dyn Fn(&str) -> Vec<String>,
) -> EnvDiff {
    let mut d = EnvDiff {
        env: env.to_string(),
        base_label: opts.base_label.clone(),
        pairs: Vec::new(),
        problems: Vec::new(),
        errors: Vec::new(),
        notes: Vec::new(),
        versions: Vec::new(),
        skipped: Vec::new(),
    };
    for (side, input) in [(Side::Base, base), (Side::Head, head)] {
        match input {
            Input::Error(e) => d.errors.push((side, e.clone())),
            Input::Absent(why) => d.notes.push(format!(
                "environment {env} does not exist on {}: {why}",
                side.as_str()
            )),
            Input::Rendered(_) => {}
        }
    }
    if !d.errors.is_empty() {
        return d;
    }
    let empty = Rendered {
        cluster: env.to_string(),
        root: String::new(),
        kustomizations: Vec::new(),
        helmreleases: Vec::new(),
        settings: Vec::new(),
    };
    let b: &Rendered = match base {
        Input::Rendered(r) => r,
        _ => &empty,
    };
    let h: &Rendered = match head {
        Input::Rendered(r) => r,
        _ => &empty,
    };
    let mut paired = pairing::pair(b, h);
    if !opts.skip_kinds.is_empty() {
        let mut skipped: Vec<(String, usize)> = Vec::new();
        paired.pairs.retain(|p| {
            let kind = &p.main().key.kind;
            if !opts.skip_kinds.iter().any(|k| k.eq_ignore_ascii_case(kind)) {
                return true;
            }
            match skipped.iter_mut().find(|(k, _)| k == kind) {
                Some(e) => e.1 += 1,
                None => skipped.push((kind.clone(), 1)),
            }
            false
        });
        d.skipped = skipped;
    }
    d.problems = paired.problems.clone();
    touched_unrendered(&mut d.problems, b, h, touched);
    d.versions = versions::changes(&paired, b, h);
    d.pairs = text::diff_pairs(&paired, opts);
    d.notes.extend(unrendered_releases(env, &d.pairs, b, h));
    d
}

/// Kustomizations of the repository not rendered on either side, the same
/// way, whose files the change touches: the failing ones (already
/// problems) get the files, the skipped ones become problems. The entry's
/// own Kustomization skipped on both sides is a problem whatever the
/// change touches: nothing else renders.
fn touched_unrendered(
    problems: &mut Vec<Problem>,
    base: &Rendered,
    head: &Rendered,
    touched: &dyn Fn(&str) -> Vec<String>,
) {
    use crate::flux::Status as KsStatus;
    for k in &head.kustomizations {
        // The entry's own Kustomization not rendered: nothing at all is
        // compared, which the diff must say whatever the change touches.
        let root = k.parent.is_none();
        if k.status == KsStatus::Rendered || !(k.in_repo || root) {
            continue;
        }
        let key = k.key();
        let same = base.kustomizations.iter().any(|b| {
            b.key() == key
                && b.in_repo == k.in_repo
                && b.path == k.path
                && b.status == k.status
                && b.message == k.message
        });
        if !same {
            continue;
        }
        let files = if k.in_repo {
            touched(&k.path)
        } else {
            Vec::new()
        };
        if files.is_empty() && !root {
            continue;
        }
        match problems
            .iter_mut()
            .find(|p| p.kind == "Kustomization" && p.kustomization == key)
        {
            Some(p) => p.touched = files,
            None => problems.push(Problem {
                kind: "Kustomization",
                kustomization: key,
                base: KsState::Skipped(k.message.clone()),
                head: KsState::Skipped(k.message.clone()),
                descendants: Vec::new(),
                touched: files,
            }),
        }
    }
}

/// A note on the HelmReleases that the change adds or changes but whose
/// chart is rendered on neither side (not available offline): the review
/// sees a release's spec change, not what it does to the objects the
/// chart renders, and should know it. One release gets the reason (the
/// `helm pull` that fetches its chart); several are listed in one note.
/// (A release skipped on one side only is a [`Problem`].)
fn unrendered_releases(env: &str, pairs: &[Pair], base: &Rendered, head: &Rendered) -> Vec<String> {
    fn find<'r>(
        r: &'r Rendered,
        k: &ObjectKey,
    ) -> Option<&'r crate::flux::helm::HelmReleaseReport> {
        r.helmreleases
            .iter()
            .find(|h| h.namespace == k.namespace && h.name == k.name)
    }
    let mut found = Vec::new();
    for p in pairs {
        let k = &p.key;
        if !(p.is_change()
            && p.status != Status::Removed
            && k.group == "helm.toolkit.fluxcd.io"
            && k.kind == "HelmRelease")
        {
            continue;
        }
        let Some(h) = find(head, k) else {
            continue;
        };
        // Skipped on the head, and on the base too or new there.
        let base_skipped = find(base, k).is_none_or(|b| b.status == HrStatus::Skipped);
        if h.status == HrStatus::Skipped && base_skipped {
            found.push((p.status, h));
        }
    }
    match found.as_slice() {
        [] => Vec::new(),
        [(status, h)] => vec![format!(
            "HelmRelease {}/{} {}, but its chart is not rendered on either side, so the objects it renders are not compared: {}",
            h.namespace,
            h.name,
            if *status == Status::Added {
                "is added"
            } else {
                "changes"
            },
            h.message
        )],
        several => {
            let names: Vec<String> = several
                .iter()
                .map(
                    |(_, h)| match (h.chart.chart.as_str(), h.chart.version.as_str()) {
                        ("", _) => format!("{}/{}", h.namespace, h.name),
                        (c, "") => format!("{}/{} ({c})", h.namespace, h.name),
                        (c, v) => format!("{}/{} ({c} {v})", h.namespace, h.name),
                    },
                )
                .collect();
            vec![format!(
                "{} HelmReleases change, but their charts are not rendered on either side, so the objects they render are not compared: {}; `flate get charts {env}` lists the charts and how to fetch them",
                several.len(),
                names.join(", ")
            )]
        }
    }
}
