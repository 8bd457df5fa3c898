//! Grouping for the human formats: objects whose changes are identical
//! (across objects, producers and environments) are shown once, with the
//! list of where; version rows are grouped by chart or image.

use std::collections::HashMap;

use super::structural::Change;
use super::versions::{VersionKind, display};
use super::{EnvDiff, Pair, Status};

/// Where one object is: (environment index, pair index).
pub type At = (usize, usize);

/// Objects with the same non-empty list of changes.
#[derive(Debug, Clone)]
pub struct Group<'a> {
    pub changes: &'a [Change],
    pub members: Vec<At>,
}

/// The groups of two or more changed objects with identical changes, in
/// output order, and the objects they cover.
pub fn shared(diffs: &[EnvDiff]) -> (Vec<Group<'_>>, std::collections::HashSet<At>) {
    let mut at: HashMap<&[Change], usize> = HashMap::new();
    let mut groups: Vec<Group<'_>> = Vec::new();
    for (ei, d) in diffs.iter().enumerate() {
        for (pi, p) in d.pairs.iter().enumerate() {
            if p.status != Status::Changed || p.changes.is_empty() {
                continue;
            }
            match at.get(p.changes.as_slice()) {
                Some(&g) => groups[g].members.push((ei, pi)),
                None => {
                    at.insert(&p.changes, groups.len());
                    groups.push(Group {
                        changes: &p.changes,
                        members: vec![(ei, pi)],
                    });
                }
            }
        }
    }
    groups.retain(|g| g.members.len() > 1);
    let covered = groups
        .iter()
        .flat_map(|g| g.members.iter().copied())
        .collect();
    (groups, covered)
}

/// `Deployment` → `Deployments`, `OCIRepository` → `OCIRepositories`.
pub fn plural(kind: &str, n: usize) -> String {
    if n == 1 {
        return kind.to_string();
    }
    let b = kind.as_bytes();
    let consonant_y = b.len() > 1 && b[b.len() - 1] == b'y' && !b"aeiou".contains(&b[b.len() - 2]);
    if consonant_y {
        format!("{}ies", &kind[..kind.len() - 1])
    } else if kind.ends_with('s') || kind.ends_with('x') || kind.ends_with("ch") {
        format!("{kind}es")
    } else {
        format!("{kind}s")
    }
}

/// `a`, `a and b`, `a, b and c`.
pub fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [a] => a.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

fn push_unique(v: &mut Vec<String>, s: &str) {
    if !v.iter().any(|x| x == s) {
        v.push(s.to_string());
    }
}

/// Where the objects are: `39 OCIRepositories (app-template) from 39
/// Kustomizations in production`.
pub fn places(diffs: &[EnvDiff], members: &[At]) -> String {
    let mut kinds: Vec<(String, Vec<String>, usize)> = Vec::new();
    let mut envs: Vec<String> = Vec::new();
    let mut producers: Vec<String> = Vec::new();
    for &(ei, pi) in members {
        let d = &diffs[ei];
        let p: &Pair = &d.pairs[pi];
        push_unique(&mut envs, &d.env);
        push_unique(&mut producers, &p.producer.to_string());
        match kinds.iter_mut().find(|k| k.0 == p.key.kind) {
            Some(k) => {
                k.2 += 1;
                push_unique(&mut k.1, &p.key.name);
            }
            None => kinds.push((p.key.kind.clone(), vec![p.key.name.clone()], 1)),
        }
    }
    let parts: Vec<String> = kinds
        .iter()
        .map(|(kind, names, n)| {
            let names = if names.len() <= 3 {
                format!(" ({})", names.join(", "))
            } else {
                String::new()
            };
            format!("{n} {}{names}", plural(kind, *n))
        })
        .collect();
    let from = if producers.len() > 1 {
        format!(" from {} producers", producers.len())
    } else {
        String::new()
    };
    format!("{}{from} in {}", and_list(&parts), and_list(&envs))
}

/// The objects of a group, `env: Kind ns/name`, the first `max`.
pub fn member_names(diffs: &[EnvDiff], members: &[At], max: usize) -> Vec<String> {
    let multi_env = members.iter().any(|m| m.0 != members[0].0);
    let mut out: Vec<String> = members
        .iter()
        .take(max)
        .map(|&(ei, pi)| {
            let p = &diffs[ei].pairs[pi];
            if multi_env {
                format!("{}: {}", diffs[ei].env, p.key)
            } else {
                p.key.to_string()
            }
        })
        .collect();
    if members.len() > max {
        out.push(format!("and {} more", members.len() - max));
    }
    out
}

/// A version row grouped over objects and environments.
#[derive(Debug, Clone)]
pub struct VersionRow {
    pub kind: VersionKind,
    /// The chart (its source URL's last segment, or the object's name) or
    /// the image repository.
    pub what: String,
    pub source: String,
    pub old: String,
    pub new: String,
    /// The objects that carry the version (OCIRepositories, HelmReleases,
    /// workloads).
    pub objects: Vec<String>,
    /// HelmReleases that use an OCIRepository or HelmChart.
    pub users: Vec<String>,
    pub envs: Vec<String>,
}

impl VersionRow {
    /// `upgraded`, `downgraded` or `changed`, comparing dotted numbers.
    pub fn direction(&self) -> &'static str {
        let nums = |v: &str| -> Option<Vec<u64>> {
            let v = v.split(['@', '-', '+']).next()?;
            let v = v.rsplit(' ').next()?.trim_start_matches('v');
            v.split('.').map(|p| p.parse().ok()).collect()
        };
        match (nums(&self.old), nums(&self.new)) {
            (Some(a), Some(b)) if b > a => "upgraded",
            (Some(a), Some(b)) if b < a => "downgraded",
            _ => "changed",
        }
    }
    /// What the change reaches: the HelmReleases using a chart, else the
    /// objects.
    pub fn reach(&self) -> usize {
        if self.users.is_empty() {
            self.objects.len()
        } else {
            self.users.len()
        }
    }
}

/// The version changes of every environment, one row per chart or image
/// and change.
pub fn versions(diffs: &[EnvDiff]) -> Vec<VersionRow> {
    let mut rows: Vec<VersionRow> = Vec::new();
    for d in diffs {
        for v in &d.versions {
            let (object, what) = match v.kind {
                VersionKind::Image => (None, v.name.clone()),
                VersionKind::Chart => {
                    let chart = v
                        .source
                        .trim_end_matches('/')
                        .rsplit('/')
                        .next()
                        .filter(|s| !s.is_empty() && v.source.starts_with("oci://"))
                        .map(str::to_string)
                        .unwrap_or_else(|| {
                            let n = v.name.split_once(' ').map_or(v.name.as_str(), |x| x.1);
                            n.rsplit('/').next().unwrap_or(n).to_string()
                        });
                    (Some(v.name.clone()), chart)
                }
            };
            let (old, new) = (display(&v.old), display(&v.new));
            let i = match rows
                .iter()
                .position(|r| r.kind == v.kind && r.what == what && r.old == old && r.new == new)
            {
                Some(i) => i,
                None => {
                    rows.push(VersionRow {
                        kind: v.kind,
                        what,
                        source: v.source.clone(),
                        old,
                        new,
                        objects: Vec::new(),
                        users: Vec::new(),
                        envs: Vec::new(),
                    });
                    rows.len() - 1
                }
            };
            let r = &mut rows[i];
            push_unique(&mut r.envs, &d.env);
            let (objects, users) = match object {
                Some(o) => (vec![o], v.used_by.clone()),
                None => (v.used_by.clone(), Vec::new()),
            };
            for o in objects {
                push_unique(&mut r.objects, &format!("{}: {o}", d.env));
            }
            for u in users {
                push_unique(&mut r.users, &format!("{}: {u}", d.env));
            }
        }
    }
    rows
}

/// `1 chart upgraded in 39 releases, 2 images changed`, or empty.
pub fn version_headline(rows: &[VersionRow]) -> String {
    let mut parts = Vec::new();
    let charts: Vec<&VersionRow> = rows
        .iter()
        .filter(|r| r.kind == VersionKind::Chart)
        .collect();
    if !charts.is_empty() {
        let dir = if charts.iter().all(|r| r.direction() == "upgraded") {
            "upgraded"
        } else {
            "changed"
        };
        let releases: usize = charts.iter().map(|r| r.reach()).sum();
        let n = charts.len();
        parts.push(format!(
            "{n} chart{} {dir} in {releases} release{}",
            if n == 1 { "" } else { "s" },
            if releases == 1 { "" } else { "s" }
        ));
    }
    let images = rows.iter().filter(|r| r.kind == VersionKind::Image).count();
    if images > 0 {
        parts.push(format!(
            "{images} image{} changed",
            if images == 1 { "" } else { "s" }
        ));
    }
    parts.join(", ")
}

/// `39 OCIRepositories` and the like for a version row's objects.
pub fn count_kinds(items: &[String]) -> String {
    let mut kinds: Vec<(String, usize)> = Vec::new();
    for i in items {
        let obj = i.split_once(": ").map_or(i.as_str(), |x| x.1);
        let kind = obj.split(' ').next().unwrap_or(obj).to_string();
        match kinds.iter_mut().find(|k| k.0 == kind) {
            Some(k) => k.1 += 1,
            None => kinds.push((kind, 1)),
        }
    }
    and_list(
        &kinds
            .iter()
            .map(|(k, n)| format!("{n} {}", plural(k, *n)))
            .collect::<Vec<_>>(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plurals_and_lists_read_as_english() {
        assert_eq!(plural("OCIRepository", 39), "OCIRepositories");
        assert_eq!(plural("Ingress", 2), "Ingresses");
        assert_eq!(plural("Gateway", 2), "Gateways");
        assert_eq!(plural("Deployment", 1), "Deployment");
        assert_eq!(
            and_list(&["a".into(), "b".into(), "c".into()]),
            "a, b and c"
        );
    }

    #[test]
    fn chart_rows_say_upgraded_when_every_number_grows() {
        let row = |old: &str, new: &str| VersionRow {
            kind: VersionKind::Chart,
            what: "app-template".into(),
            source: String::new(),
            old: old.into(),
            new: new.into(),
            objects: vec!["production: OCIRepository a/app-template".into()],
            users: vec![],
            envs: vec![],
        };
        assert_eq!(row("5.1.0", "5.2.0").direction(), "upgraded");
        assert_eq!(row("v1.10.0", "v1.9.0").direction(), "downgraded");
        assert_eq!(row("latest", "5.2.0").direction(), "changed");
        assert_eq!(
            version_headline(&[row("5.1.0", "5.2.0")]),
            "1 chart upgraded in 1 release"
        );
    }
}
