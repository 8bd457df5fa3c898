//! Pairing the objects of two renders.
//!
//! Order of the passes, each on what the previous left unpaired:
//! 1. same producer and same (group, kind, namespace, name);
//! 2. same (group, kind, namespace, name), unique on each side, different
//!    producer: a move;
//! 3. a ConfigMap or Secret of the same producer and namespace whose name
//!    differs only by kustomize's hash suffix: the same generated object
//!    with new content;
//! 4. the rest is added or removed.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::Hash;

use crate::flux::helm::HrStatus;
use crate::flux::{Rendered, Status as KsStatus};
use crate::yaml::Node;

use super::{KsState, ObjectKey, Problem, Producer};

/// One object of one side.
#[derive(Debug, Clone)]
pub struct Obj<'a> {
    pub producer: Producer,
    pub key: ObjectKey,
    pub node: Cow<'a, Node>,
    /// Paths of the values that came from a Secret (see `crate::secret`).
    pub secret_paths: crate::secret::SecretPaths,
    /// (producer position, object position): the output order.
    pub order: (usize, usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Same producer (changed or unchanged, decided by the text diff).
    Matched,
    Moved,
    Added,
    Removed,
}

#[derive(Debug, Clone)]
pub struct RawPair<'a> {
    pub kind: Kind,
    pub base: Option<Obj<'a>>,
    pub head: Option<Obj<'a>>,
}

impl RawPair<'_> {
    /// The object the pair is listed under: the head's, else the base's.
    pub fn main(&self) -> &Obj<'_> {
        self.head
            .as_ref()
            .or(self.base.as_ref())
            .expect("a pair has a side")
    }
}

#[derive(Debug, Clone, Default)]
pub struct Paired<'a> {
    pub pairs: Vec<RawPair<'a>>,
    pub problems: Vec<Problem>,
}

fn state(r: &Rendered) -> HashMap<String, KsState> {
    r.kustomizations
        .iter()
        .map(|k| {
            let s = match k.status {
                KsStatus::Rendered => KsState::Rendered,
                KsStatus::Skipped => KsState::Skipped(k.message.clone()),
                KsStatus::Failed => KsState::Failed(k.message.clone()),
            };
            (k.key(), s)
        })
        .collect()
}

/// Kustomizations that cannot be compared, in head-then-base order.
fn problems(base: &Rendered, head: &Rendered) -> Vec<Problem> {
    let (bs, hs) = (state(base), state(head));
    let mut keys: Vec<String> = head.kustomizations.iter().map(|k| k.key()).collect();
    for k in &base.kustomizations {
        if !hs.contains_key(&k.key()) {
            keys.push(k.key());
        }
    }
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for k in keys {
        if !seen.insert(k.clone()) {
            continue;
        }
        let b = bs.get(&k).cloned().unwrap_or(KsState::Absent);
        let h = hs.get(&k).cloned().unwrap_or(KsState::Absent);
        let failed = matches!(b, KsState::Failed(_)) || matches!(h, KsState::Failed(_));
        let one_sided_skip = matches!(
            (&b, &h),
            (KsState::Skipped(_), KsState::Rendered) | (KsState::Rendered, KsState::Skipped(_))
        );
        // Skipped on both sides for different reasons: the change touches
        // what flate does not render (a remote resource's URL bumped, a
        // source moved), which "no changes" would hide.
        let skip_changed = matches!((&b, &h), (KsState::Skipped(x), KsState::Skipped(y)) if x != y);
        if failed || one_sided_skip || skip_changed {
            out.push(Problem {
                kind: "Kustomization",
                kustomization: k,
                base: b,
                head: h,
                descendants: Vec::new(),
                touched: Vec::new(),
            });
        }
    }
    // What a problem Kustomization produces on the side where it renders is
    // absent where it does not: not compared either.
    let parents: Vec<(String, String)> = head
        .kustomizations
        .iter()
        .chain(&base.kustomizations)
        .filter_map(|k| Some((k.key(), k.parent.clone()?)))
        .collect();
    for p in &mut out {
        let mut below: Vec<String> = vec![p.kustomization.clone()];
        let mut grew = true;
        while grew {
            grew = false;
            for (child, parent) in &parents {
                if below.contains(parent) && !below.contains(child) {
                    below.push(child.clone());
                    grew = true;
                }
            }
        }
        below.remove(0);
        p.descendants = below;
    }
    // HelmReleases whose chart rendered on one side only, or failed.
    let hr_state = |r: &Rendered| -> HashMap<String, KsState> {
        r.helmreleases
            .iter()
            .map(|h| {
                let s = match h.status {
                    HrStatus::Rendered => KsState::Rendered,
                    HrStatus::Skipped => KsState::Skipped(h.message.clone()),
                    HrStatus::Failed => KsState::Failed(h.message.clone()),
                };
                (format!("{}/{}", h.namespace, h.name), s)
            })
            .collect()
    };
    let (bh, hh) = (hr_state(base), hr_state(head));
    let mut names: Vec<&String> = hh.keys().chain(bh.keys()).collect();
    names.sort();
    names.dedup();
    for n in names {
        let b = bh.get(n).cloned().unwrap_or(KsState::Absent);
        let h = hh.get(n).cloned().unwrap_or(KsState::Absent);
        let failed = matches!(b, KsState::Failed(_)) || matches!(h, KsState::Failed(_));
        let one_sided_skip = matches!(
            (&b, &h),
            (KsState::Skipped(_), KsState::Rendered) | (KsState::Rendered, KsState::Skipped(_))
        );
        if failed || one_sided_skip {
            out.push(Problem {
                kind: "HelmRelease",
                kustomization: n.clone(),
                base: b,
                head: h,
                descendants: Vec::new(),
                touched: Vec::new(),
            });
        }
    }
    out
}

/// The objects of one side, except those of `excluded` Kustomizations.
fn objects<'a>(
    r: &'a Rendered,
    excluded: &HashSet<&str>,
    excluded_hrs: &HashSet<&str>,
    order: &HashMap<Producer, usize>,
) -> Vec<Obj<'a>> {
    let mut out = Vec::new();
    for k in &r.kustomizations {
        let key = k.key();
        if k.status != KsStatus::Rendered || excluded.contains(key.as_str()) {
            continue;
        }
        let sets = crate::flux::resourceset::expanded_in(k);
        for (i, o) in k.objects.iter().enumerate() {
            // An object a ResourceSet of the Kustomization made is the
            // ResourceSet's.
            let producer = match crate::flux::resourceset::owner(o) {
                Some(set) if sets.contains(&set) => Producer::ResourceSet(set),
                _ => Producer::Kustomization(key.clone()),
            };
            out.push(Obj {
                order: (order[&producer], i),
                producer,
                key: ObjectKey::of(o),
                node: Cow::Borrowed(&o.obj),
                secret_paths: crate::secret::paths_of(o),
            });
        }
    }
    for h in &r.helmreleases {
        let id = format!("{}/{}", h.namespace, h.name);
        if excluded.contains(h.kustomization.as_str())
            || excluded_hrs.contains(id.as_str())
            || h.status != HrStatus::Rendered
        {
            continue;
        }
        let producer = Producer::HelmRelease(id);
        let p = order[&producer];
        for (i, o) in h.objects.iter().enumerate() {
            out.push(Obj {
                producer: producer.clone(),
                key: ObjectKey::of(o),
                node: Cow::Borrowed(&o.obj),
                secret_paths: crate::secret::paths_of(o),
                order: (p, i + 1),
            });
        }
    }
    for h in &r.helmreleases {
        if excluded.contains(h.kustomization.as_str()) {
            continue;
        }
        let reads_values = h
            .object
            .obj
            .get_path(&["spec", "valuesFrom"])
            .and_then(Node::as_seq)
            .is_some_and(|s| !s.is_empty());
        if !reads_values {
            continue;
        }
        let producer = Producer::HelmRelease(format!("{}/{}", h.namespace, h.name));
        out.push(Obj {
            order: (order[&producer], 0),
            producer,
            key: ObjectKey {
                group: "flate.dev".into(),
                kind: "Values".into(),
                namespace: h.namespace.clone(),
                name: h.name.clone(),
            },
            node: Cow::Owned(h.values.clone()),
            secret_paths: h.secret_paths.clone(),
        });
    }
    out
}

/// Producers in output order: the head's discovery order (each
/// Kustomization followed by its ResourceSets, then its HelmReleases),
/// then the base's others.
fn producer_order(base: &Rendered, head: &Rendered) -> HashMap<Producer, usize> {
    let mut order: HashMap<Producer, usize> = HashMap::new();
    for r in [head, base] {
        let mut hrs: HashMap<&str, Vec<String>> = HashMap::new();
        for h in &r.helmreleases {
            hrs.entry(h.kustomization.as_str())
                .or_default()
                .push(format!("{}/{}", h.namespace, h.name));
        }
        for k in &r.kustomizations {
            let key = k.key();
            let n = order.len();
            order
                .entry(Producer::Kustomization(key.clone()))
                .or_insert(n);
            for set in crate::flux::resourceset::expanded_in(k) {
                let n = order.len();
                order.entry(Producer::ResourceSet(set)).or_insert(n);
            }
            for h in hrs.get(key.as_str()).into_iter().flatten() {
                let n = order.len();
                order.entry(Producer::HelmRelease(h.clone())).or_insert(n);
            }
        }
        for h in &r.helmreleases {
            let n = order.len();
            order
                .entry(Producer::HelmRelease(format!("{}/{}", h.namespace, h.name)))
                .or_insert(n);
        }
    }
    order
}

/// kustomize's name hash: 10 characters of the alphabet its encoder maps
/// hex digits to (0→g, 1→h, 3→k, a→m, e→t; api/hasher `encode`).
fn hash_stem(name: &str) -> Option<&str> {
    let (stem, suffix) = name.rsplit_once('-')?;
    (!stem.is_empty()
        && suffix.len() == 10
        && suffix.bytes().all(|c| b"2456789bcdfghkmt".contains(&c)))
    .then_some(stem)
}

/// The unpaired objects whose key (None: not a candidate) stands once
/// among the unpaired of each side, as (base index, head index) in base
/// order.
fn unique_pairs<'s, 'a: 's, K: Eq + Hash>(
    bslot: &'s [Option<Obj<'a>>],
    hslot: &'s [Option<Obj<'a>>],
    key: impl Fn(&'s Obj<'a>) -> Option<K>,
) -> Vec<(usize, usize)> {
    let index = |slots: &'s [Option<Obj<'a>>]| {
        let mut m: HashMap<K, Vec<usize>> = HashMap::new();
        for (i, o) in slots.iter().enumerate() {
            if let Some(k) = o.as_ref().and_then(&key) {
                m.entry(k).or_default().push(i);
            }
        }
        m
    };
    let (bk, hk) = (index(bslot), index(hslot));
    let mut found: Vec<(usize, usize)> = hk
        .iter()
        .filter_map(
            |(k, hs)| match (bk.get(k).map(Vec::as_slice), hs.as_slice()) {
                (Some([bi]), [hi]) => Some((*bi, *hi)),
                _ => None,
            },
        )
        .collect();
    found.sort_unstable();
    found
}

/// Takes the objects at `at` (base index, head index) out of their slots
/// into `pairs`, as pairs of `kind`.
fn take_pairs<'a>(
    pairs: &mut Vec<RawPair<'a>>,
    kind: Kind,
    bslot: &mut [Option<Obj<'a>>],
    hslot: &mut [Option<Obj<'a>>],
    at: Vec<(usize, usize)>,
) {
    pairs.extend(at.into_iter().map(|(bi, hi)| RawPair {
        kind,
        base: bslot[bi].take(),
        head: hslot[hi].take(),
    }));
}

/// Pairs the objects of `base` and `head`.
pub fn pair<'a>(base: &'a Rendered, head: &'a Rendered) -> Paired<'a> {
    let problems = problems(base, head);
    let excluded: HashSet<&str> = problems
        .iter()
        .filter(|p| p.kind == "Kustomization")
        .flat_map(|p| std::iter::once(&p.kustomization).chain(&p.descendants))
        .map(String::as_str)
        .collect();
    let excluded_hrs: HashSet<&str> = problems
        .iter()
        .filter(|p| p.kind == "HelmRelease")
        .map(|p| p.kustomization.as_str())
        .collect();
    let order = producer_order(base, head);
    let bo = objects(base, &excluded, &excluded_hrs, &order);
    let ho = objects(head, &excluded, &excluded_hrs, &order);

    let mut bslot: Vec<Option<Obj<'a>>> = bo.into_iter().map(Some).collect();
    let mut hslot: Vec<Option<Obj<'a>>> = ho.into_iter().map(Some).collect();
    let mut pairs: Vec<RawPair<'a>> = Vec::new();

    // 1. Same producer, same identity (duplicates pair in order).
    let mut by_key: HashMap<(&Producer, &ObjectKey), VecDeque<usize>> = HashMap::new();
    for (i, o) in bslot.iter().enumerate() {
        let o = o.as_ref().expect("filled");
        by_key
            .entry((&o.producer, &o.key))
            .or_default()
            .push_back(i);
    }
    let mut matched: Vec<(usize, usize)> = Vec::new();
    for (hi, h) in hslot.iter().enumerate() {
        let h = h.as_ref().expect("filled");
        if let Some(bi) = by_key
            .get_mut(&(&h.producer, &h.key))
            .and_then(VecDeque::pop_front)
        {
            matched.push((bi, hi));
        }
    }
    drop(by_key);
    take_pairs(&mut pairs, Kind::Matched, &mut bslot, &mut hslot, matched);

    // 2. Moves: the same identity, unique among the unpaired of each side.
    let moves = unique_pairs(&bslot, &hslot, |o| Some(&o.key));
    take_pairs(&mut pairs, Kind::Moved, &mut bslot, &mut hslot, moves);

    // 3. Generated ConfigMaps and Secrets whose hash suffix changed.
    let renames = unique_pairs(&bslot, &hslot, |o| {
        if !o.key.group.is_empty() || !matches!(o.key.kind.as_str(), "ConfigMap" | "Secret") {
            return None;
        }
        let stem = hash_stem(&o.key.name)?;
        Some((&o.producer, &o.key.kind, &o.key.namespace, stem))
    });
    take_pairs(&mut pairs, Kind::Matched, &mut bslot, &mut hslot, renames);

    // 4. The rest.
    for o in bslot.into_iter().flatten() {
        pairs.push(RawPair {
            kind: Kind::Removed,
            base: Some(o),
            head: None,
        });
    }
    for o in hslot.into_iter().flatten() {
        pairs.push(RawPair {
            kind: Kind::Added,
            base: None,
            head: Some(o),
        });
    }
    pairs.sort_by_key(|p| p.main().order);
    Paired { pairs, problems }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_suffix_uses_kustomize_alphabet() {
        assert_eq!(hash_stem("app-config-7g5bk4mf9t"), Some("app-config"));
        assert_eq!(hash_stem("grafana-dashboards"), None);
        assert_eq!(hash_stem("x-abcdefghij"), None);
        assert_eq!(hash_stem("-7g5bk4mf9t"), None);
    }
}
