//! `flate get images ENV` and `flate diff images ENV...`: the container
//! images of an environment, with the workloads that run them, and how
//! they change between two revisions.
//!
//! Images are found the way the version summary finds them (a string
//! field `image`/`imageName`, or a Helm-style `image` map with
//! `repository`, `tag`, `digest`) in every object a producer renders:
//! the Kustomizations' objects and those of the HelmReleases whose charts
//! render. A HelmRelease's own `spec.values` images are found in the
//! HelmRelease object itself, with the HelmRelease as the workload (for
//! a chart not rendered offline, the only ones listed).

use std::collections::{BTreeMap, HashMap};

use crate::flux::{Rendered, Status as KsStatus};

use super::Producer;
use super::versions::images;

/// One image used at one place of one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageUse {
    /// The repository (`ghcr.io/org/app`).
    pub name: String,
    pub tag: String,
    pub digest: String,
    /// `Deployment ns/name`.
    pub workload: String,
    /// Where in the object (`.spec.template.spec.containers[0].image`).
    pub path: String,
    pub producer: Producer,
}

impl ImageUse {
    /// `tag@digest`, `tag`, `@digest` or empty.
    pub fn reference(&self) -> String {
        reference(&self.tag, &self.digest)
    }
}

fn reference(tag: &str, digest: &str) -> String {
    match (tag.is_empty(), digest.is_empty()) {
        (_, true) => tag.to_string(),
        (true, false) => format!("@{digest}"),
        (false, false) => format!("{tag}@{digest}"),
    }
}

fn split(version: &str) -> (String, String) {
    match version.split_once('@') {
        Some((t, d)) => (t.to_string(), d.to_string()),
        None if version.starts_with("sha256:") => (String::new(), version.to_string()),
        None => (version.to_string(), String::new()),
    }
}

/// Every image use of a render, in render order.
pub fn uses(r: &Rendered) -> Vec<ImageUse> {
    let mut out = Vec::new();
    let ks = r
        .kustomizations
        .iter()
        .filter(|k| k.status == KsStatus::Rendered)
        .map(|k| (Producer::Kustomization(k.key()), &k.objects));
    let hrs = r.helmreleases.iter().map(|h| {
        (
            Producer::HelmRelease(format!("{}/{}", h.namespace, h.name)),
            &h.objects,
        )
    });
    for (producer, objects) in ks.chain(hrs) {
        for o in objects {
            if o.kind() == "Secret" && o.gvk().group.is_empty() {
                continue;
            }
            let mut found = Vec::new();
            images(&o.obj, &mut String::new(), &mut found);
            let ns = o.namespace();
            let workload = if ns.is_empty() {
                format!("{} {}", o.kind(), o.name())
            } else {
                format!("{} {ns}/{}", o.kind(), o.name())
            };
            for (path, name, version) in found {
                let (tag, digest) = split(&version);
                out.push(ImageUse {
                    name,
                    tag,
                    digest,
                    workload: workload.clone(),
                    path,
                    producer: producer.clone(),
                });
            }
        }
    }
    out
}

/// One image reference and the workloads that run it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InventoryRow {
    pub name: String,
    pub tag: String,
    pub digest: String,
    pub workloads: Vec<String>,
}

/// The images of a render grouped by reference, sorted by name.
pub fn inventory(uses: &[ImageUse]) -> Vec<InventoryRow> {
    let mut rows: BTreeMap<(String, String, String), Vec<String>> = BTreeMap::new();
    for u in uses {
        let w = rows
            .entry((u.name.clone(), u.tag.clone(), u.digest.clone()))
            .or_default();
        if !w.contains(&u.workload) {
            w.push(u.workload.clone());
        }
    }
    rows.into_iter()
        .map(|((name, tag, digest), workloads)| InventoryRow {
            name,
            tag,
            digest,
            workloads,
        })
        .collect()
}

/// (tag, digest).
type Ref = (String, String);

/// An image whose reference changed in some workloads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageChange {
    pub name: String,
    /// (tag, digest) on the base; empty when the image is new there.
    pub old: (String, String),
    pub new: (String, String),
    pub workloads: Vec<String>,
}

impl ImageChange {
    pub fn old_ref(&self) -> String {
        reference(&self.old.0, &self.old.1)
    }
    pub fn new_ref(&self) -> String {
        reference(&self.new.0, &self.new.1)
    }
    /// The tag changed but the digest, which is what the cluster pulls,
    /// did not: the new tag has no effect (or the digest was not updated).
    pub fn tag_without_digest(&self) -> bool {
        self.old.0 != self.new.0 && !self.old.1.is_empty() && self.old.1 == self.new.1
    }
    pub fn what(&self) -> &'static str {
        match (
            self.old.0.is_empty() && self.old.1.is_empty(),
            self.new.0.is_empty() && self.new.1.is_empty(),
        ) {
            (true, _) => "added",
            (_, true) => "removed",
            _ if self.tag_without_digest() => "tag changed, digest did not",
            _ if self.old.1 != self.new.1 && self.old.0 == self.new.0 => "digest changed",
            _ => "changed",
        }
    }
}

/// How the images change from `base` to `head`: per (workload, place in
/// the workload), grouped by image and change.
pub fn changes(base: &[ImageUse], head: &[ImageUse]) -> Vec<ImageChange> {
    type Place<'a> = (&'a str, &'a str);
    let index = |u: &'_ [ImageUse]| -> HashMap<(String, String), ImageUse> {
        u.iter()
            .map(|x| ((x.workload.clone(), x.path.clone()), x.clone()))
            .collect()
    };
    let (b, h) = (index(base), index(head));
    let mut places: Vec<Place<'_>> = head
        .iter()
        .chain(base)
        .map(|u| (u.workload.as_str(), u.path.as_str()))
        .collect();
    let mut seen = std::collections::HashSet::new();
    places.retain(|p| seen.insert(*p));
    let mut out: Vec<ImageChange> = Vec::new();
    for (w, p) in places {
        let key = (w.to_string(), p.to_string());
        let (o, n) = (b.get(&key), h.get(&key));
        let pick = |u: Option<&ImageUse>| {
            u.map(|u| (u.tag.clone(), u.digest.clone()))
                .unwrap_or_default()
        };
        let (old, new) = (pick(o), pick(n));
        let (oname, nname) = (o.map(|u| u.name.as_str()), n.map(|u| u.name.as_str()));
        if old == new && oname == nname {
            continue;
        }
        // A different repository at the same place: removed and added.
        let rows: Vec<(String, Ref, Ref)> = match (oname, nname) {
            (Some(a), Some(z)) if a != z => vec![
                (a.to_string(), old, Default::default()),
                (z.to_string(), Default::default(), new),
            ],
            _ => vec![(nname.or(oname).unwrap_or_default().to_string(), old, new)],
        };
        for (name, old, new) in rows {
            match out
                .iter_mut()
                .find(|c| c.name == name && c.old == old && c.new == new)
            {
                Some(c) => {
                    if !c.workloads.iter().any(|x| x == w) {
                        c.workloads.push(w.to_string());
                    }
                }
                None => out.push(ImageChange {
                    name,
                    old,
                    new,
                    workloads: vec![w.to_string()],
                }),
            }
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(name: &str, version: &str, workload: &str) -> ImageUse {
        let (tag, digest) = split(version);
        ImageUse {
            name: name.into(),
            tag,
            digest,
            workload: workload.into(),
            path: ".spec.template.spec.containers[0].image".into(),
            producer: Producer::Kustomization("flux-system/apps".into()),
        }
    }

    #[test]
    fn changes_group_workloads_and_flag_a_tag_without_its_digest() {
        let base = [
            u("nginx", "1.26", "Deployment a/web"),
            u("nginx", "1.26", "Deployment b/web"),
            u("multus", "v4.2.2@sha256:aa", "DaemonSet n/multus"),
            u("old", "1", "Deployment a/gone"),
        ];
        let head = [
            u("nginx", "1.27", "Deployment a/web"),
            u("nginx", "1.27", "Deployment b/web"),
            u("multus", "v4.2.3@sha256:aa", "DaemonSet n/multus"),
            u("new", "2", "Deployment a/new"),
        ];
        let c = changes(&base, &head);
        let rows: Vec<(String, String, String, usize, &str)> = c
            .iter()
            .map(|c| {
                (
                    c.name.clone(),
                    c.old_ref(),
                    c.new_ref(),
                    c.workloads.len(),
                    c.what(),
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                (
                    "multus".into(),
                    "v4.2.2@sha256:aa".into(),
                    "v4.2.3@sha256:aa".into(),
                    1,
                    "tag changed, digest did not"
                ),
                ("new".into(), "".into(), "2".into(), 1, "added"),
                ("nginx".into(), "1.26".into(), "1.27".into(), 2, "changed"),
                ("old".into(), "1".into(), "".into(), 1, "removed"),
            ]
        );
        let inv = inventory(&head);
        assert_eq!(inv[2].name, "nginx");
        assert_eq!(inv[2].workloads, ["Deployment a/web", "Deployment b/web"]);
    }
}
