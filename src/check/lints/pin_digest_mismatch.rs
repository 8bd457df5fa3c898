//! `pin-digest-mismatch`: the same chart URL and tag (or image and tag)
//! pinned to different digests in different files or environments. One of
//! them is stale; whichever Flux sees decides what runs.
//!
//! Pins are read where they are written: OCIRepository documents and
//! images in the files the environments render, and the tag + digest
//! pairs patches set.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use super::{Ctx, any_opted_out};
use crate::check::Finding;
use crate::check::pins::{container_images, patch_targets, ref_patches, split_image};
use crate::resource::Resource;

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Obs {
    file: Option<PathBuf>,
    line: usize,
    digest: String,
    env: String,
}

fn observe_source_doc(
    ctx: &Ctx,
    o: &Resource,
    pins: &mut BTreeMap<(String, String), BTreeSet<Obs>>,
) {
    let Some(f) = &o.origin.file else { return };
    let Some(docs) = ctx.docs(f) else { return };
    let Some(doc) = docs.iter().find(|d| d.line == o.origin.line) else {
        return;
    };
    let n = &doc.node;
    let mut add = |source: String, tag: String, digest: String, needle: &str| {
        if tag.is_empty() || digest.is_empty() {
            return;
        }
        let line = ctx
            .loc
            .line_containing(f, o.origin.line, needle)
            .unwrap_or(o.origin.line);
        pins.entry((source, tag)).or_default().insert(Obs {
            file: Some(ctx.rel(f)),
            line,
            digest,
            env: ctx.env.name.clone(),
        });
    };
    if n.get_str(&["kind"]) == Some("OCIRepository") {
        let s = |p: &[&str]| n.get_str(p).unwrap_or("").to_string();
        let digest = s(&["spec", "ref", "digest"]);
        add(
            s(&["spec", "url"]),
            s(&["spec", "ref", "tag"]),
            digest.clone(),
            &digest,
        );
    }
    // The source document's images, as written.
    let as_written = Resource::new(n.clone(), o.origin.clone());
    for (_, _, image) in container_images(&as_written) {
        let (repo, tag, digest) = split_image(&image);
        add(repo, tag, digest, &image);
    }
}

pub fn run(ctxs: &[Ctx], out: &mut Vec<Finding>) {
    // (source, tag) → where which digest is pinned.
    let mut pins: BTreeMap<(String, String), BTreeSet<Obs>> = BTreeMap::new();
    let mut opted: BTreeSet<(String, String)> = BTreeSet::new();
    for ctx in ctxs {
        for (_, o) in &ctx.all {
            if o.kind() == "OCIRepository" || !container_images(o).is_empty() {
                if any_opted_out(&[o], "pin-digest-mismatch") {
                    let url = o.obj.get_str(&["spec", "url"]).unwrap_or("").to_string();
                    opted.insert((url, String::new()));
                    for (_, _, image) in container_images(o) {
                        opted.insert((split_image(&image).0, String::new()));
                    }
                    continue;
                }
                observe_source_doc(ctx, o, &mut pins);
            }
        }
        for lp in ref_patches(ctx) {
            let (Some(tag), Some(digest)) = (&lp.patch.tag, &lp.patch.digest) else {
                continue;
            };
            for (_, o) in patch_targets(ctx, &lp.patch) {
                let url = o.obj.get_str(&["spec", "url"]).unwrap_or("").to_string();
                pins.entry((url, tag.clone())).or_default().insert(Obs {
                    file: lp.file.clone(),
                    line: lp.line,
                    digest: digest.clone(),
                    env: ctx.env.name.clone(),
                });
            }
        }
        // Images set by patch files and Flux patches: every `image:` /
        // `imageName:` with a tag and a digest in the patch sources.
        let mut files = ctx.env.kfiles.patch_files();
        for k in &ctx.env.rendered.kustomizations {
            files.extend(ctx.patch_sources(k));
        }
        files.sort();
        files.dedup();
        for f in files {
            let Some(text) = ctx.loc.text(&f) else {
                continue;
            };
            for (i, l) in text.lines().enumerate() {
                let t = l.trim_start().trim_start_matches("- ");
                let Some(v) = t
                    .strip_prefix("image:")
                    .or_else(|| t.strip_prefix("imageName:"))
                else {
                    continue;
                };
                let v = v.trim().trim_matches('"').trim_matches('\'');
                let (repo, tag, digest) = split_image(v);
                if tag.is_empty() || digest.is_empty() {
                    continue;
                }
                pins.entry((repo, tag)).or_default().insert(Obs {
                    file: Some(ctx.rel(&f)),
                    line: i + 1,
                    digest,
                    env: ctx.env.name.clone(),
                });
            }
        }
    }
    for ((source, tag), obs) in pins {
        if opted.contains(&(source.clone(), String::new())) {
            continue;
        }
        let digests: BTreeSet<&String> = obs.iter().map(|o| &o.digest).collect();
        if digests.len() < 2 {
            continue;
        }
        // One finding per place, naming the others.
        let mut places: BTreeMap<(Option<PathBuf>, usize, String), Vec<String>> = BTreeMap::new();
        for o in &obs {
            places
                .entry((o.file.clone(), o.line, o.digest.clone()))
                .or_default()
                .push(o.env.clone());
        }
        for ((file, line, digest), envs) in &places {
            let others: Vec<String> = places
                .keys()
                .filter(|(_, _, d)| d != digest)
                .map(|(f, l, d)| {
                    format!(
                        "{d} at {}:{l}",
                        f.as_ref()
                            .map(|f| f.display().to_string())
                            .unwrap_or_default()
                    )
                })
                .collect();
            let mut f = Finding::new(
                "pin-digest-mismatch",
                format!(
                    "{source} tag {tag} is pinned to {digest} here but to {}: one of them is stale",
                    others.join(", ")
                ),
            )
            .at(file.clone(), *line);
            f.envs = envs.clone();
            f.envs.dedup();
            out.push(f);
        }
    }
}
