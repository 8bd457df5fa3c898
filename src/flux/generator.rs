//! Flux's kustomization generator (fluxcd/pkg/kustomize, kustomize_generator.go):
//! find the directory's kustomization file or generate one, then change it
//! the way kustomize-controller does before building.
//!
//! Facts relied on: a generated kustomization lists, in walk (lexical)
//! order, every subdirectory that holds a kustomization file (not descended
//! into) and every other `.yaml`/`.yml` file below, each of which must parse
//! as Kubernetes objects; an empty result builds nothing. Then
//! `targetNamespace` sets `namespace`, `namePrefix`/`nameSuffix` are set,
//! `patches` are appended (patch text and target), `components` appended,
//! `patchesStrategicMerge` and `patchesJson6902` appended, and `images`
//! replace an entry of the same name (newName when set; newTag and digest
//! together when either is set) or are appended; `buildMetadata` replaces
//! the kustomization's, and an existing kustomization without resources
//! gets `buildMetadata: [originAnnotations]`. The build runs without
//! kustomize's root-only load restriction but inside the source root.

use std::path::{Component, Path, PathBuf};

use crate::fs::{FileSystem, normalize};
use crate::kustomize::Error;
use crate::kustomize::kustfile::{KUSTOMIZATION_FILE_NAMES, Kustomization, find};
use crate::yaml::{Map, Node};

use super::model::FluxKustomization;

fn walk(fs: &dyn FileSystem, dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), Error> {
    let entries = fs.list(dir).map_err(|e| Error::at(dir, e.to_string()))?;
    for name in entries {
        let p = dir.join(&name);
        if fs.is_dir(&p) {
            if KUSTOMIZATION_FILE_NAMES
                .iter()
                .any(|k| fs.is_file(&p.join(k)))
            {
                out.push(p);
                continue;
            }
            walk(fs, &p, out)?;
        } else if name.ends_with(".yaml") || name.ends_with(".yml") {
            let text = fs
                .read_to_string(&p)
                .map_err(|e| Error::at(&p, e.to_string()))?;
            crate::kustomize::build::resources_from_text(&p, &text).map_err(|e| Error {
                message: format!("failed to decode Kubernetes YAML: {}", e.message),
                ..e
            })?;
            out.push(p);
        }
    }
    Ok(())
}

/// The kustomization for `ks`, existing or generated, with Flux's changes.
pub fn kustomization_for(
    fs: &dyn FileSystem,
    source_root: &Path,
    ks: &FluxKustomization,
) -> Result<Kustomization, Error> {
    // As kustomize-controller joins them (`securejoin.SecureJoin`): the
    // path is cleaned as if the source root were `/`, so a `..` at the root
    // stays there.
    let mut inside = PathBuf::new();
    for c in Path::new(&ks.path).components() {
        match c {
            Component::Normal(part) => inside.push(part),
            Component::ParentDir => {
                inside.pop();
            }
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    let dir = source_root.join(inside);
    if !fs.is_dir(&dir) {
        return Err(Error::at(
            &dir,
            format!(
                "spec.path '{}' does not exist in the source (kustomization path not found)",
                ks.path
            ),
        ));
    }
    let mut k = match find(fs, &dir)? {
        Some(_) => {
            let mut k = Kustomization::load(fs, &dir)?;
            // An existing kustomization without resources builds with
            // origin annotations (fluxcd/pkg sets them so that kustomize
            // does not call a kustomization of generators alone empty).
            if !matches!(k.raw.get("resources"), Some(Node::Seq(r)) if !r.is_empty()) {
                k.raw.insert(
                    "buildMetadata",
                    Node::Seq(vec![Node::str("originAnnotations")]),
                );
            }
            k
        }
        None => {
            let mut files = Vec::new();
            walk(fs, &dir, &mut files)?;
            let mut raw = Map::new();
            raw.insert("apiVersion", Node::str("kustomize.config.k8s.io/v1beta1"));
            raw.insert("kind", Node::str("Kustomization"));
            if files.is_empty() {
                raw.insert("namespace", Node::str("_placeholder"));
            } else {
                let res: Vec<Node> = files
                    .iter()
                    .map(|p| {
                        let rel = p.strip_prefix(&dir).unwrap_or(p);
                        Node::Str(format!("./{}", rel.display()))
                    })
                    .collect();
                raw.insert("resources", Node::Seq(res));
            }
            Kustomization {
                file: dir.join("kustomization.yaml"),
                is_component: false,
                raw,
                text: None,
            }
        }
    };
    apply_spec(fs, &mut k, ks)?;
    Ok(k)
}

fn push_list(raw: &mut Map, field: &str, items: Vec<Node>) {
    if items.is_empty() {
        return;
    }
    let mut cur = match raw.remove(field) {
        Some(Node::Seq(v)) => v,
        _ => Vec::new(),
    };
    cur.extend(items);
    raw.insert(field, Node::Seq(cur));
}

fn apply_spec(
    fs: &dyn FileSystem,
    k: &mut Kustomization,
    ks: &FluxKustomization,
) -> Result<(), Error> {
    let raw = &mut k.raw;
    for (flux, kfield) in [
        ("targetNamespace", "namespace"),
        ("namePrefix", "namePrefix"),
        ("nameSuffix", "nameSuffix"),
    ] {
        if let Some(v) = ks.spec(flux).and_then(Node::scalar_text) {
            raw.insert(kfield, Node::Str(v));
        }
    }
    let seq = |f: &str| -> Vec<Node> {
        match ks.spec(f) {
            Some(Node::Seq(v)) => v.clone(),
            _ => Vec::new(),
        }
    };
    let mut patches = Vec::new();
    for p in seq("patches") {
        let mut m = Map::new();
        if let Some(text) = p.get("patch").and_then(Node::scalar_text) {
            m.insert("patch", Node::Str(text));
        }
        if let Some(t @ Node::Map(_)) = p.get("target") {
            m.insert("target", t.clone());
        }
        patches.push(Node::Map(m));
    }
    push_list(raw, "patches", patches);
    let comps: Vec<Node> = seq("components")
        .into_iter()
        .filter_map(|c| c.scalar_text())
        .map(|c| {
            if c.starts_with('/') || crate::kustomize::build::is_remote(&c) {
                Err(Error::at(
                    &k.file,
                    format!("component path '{c}' must be local and relative"),
                ))
            } else {
                Ok(Node::Str(c))
            }
        })
        .collect::<Result<_, _>>()?;
    let ignore_missing = ks
        .spec("ignoreMissingComponents")
        .and_then(Node::as_bool)
        .unwrap_or(false);
    let dir = k.file.parent().map(Path::to_path_buf).unwrap_or_default();
    let comps: Vec<Node> = comps
        .into_iter()
        .filter(|c| {
            !ignore_missing
                || c.as_str()
                    .is_some_and(|c| fs.is_dir(&normalize(&dir, Path::new(c))))
        })
        .collect();
    push_list(raw, "components", comps);
    let psm: Vec<Node> = seq("patchesStrategicMerge")
        .iter()
        .map(|p| Node::Str(crate::yaml::to_string(p)))
        .collect();
    push_list(raw, "patchesStrategicMerge", psm);
    let pj: Vec<Node> = seq("patchesJson6902")
        .iter()
        .map(|p| {
            let mut m = Map::new();
            let ops = p.get("patch").cloned().unwrap_or(Node::Seq(Vec::new()));
            m.insert("patch", Node::Str(ops.to_json().to_string()));
            if let Some(t) = p.get("target") {
                m.insert("target", t.clone());
            }
            Node::Map(m)
        })
        .collect();
    push_list(raw, "patchesJson6902", pj);
    let images = seq("images");
    let build_metadata = seq("buildMetadata");
    if !images.is_empty() {
        let mut cur = match raw.remove("images") {
            Some(Node::Seq(v)) => v,
            _ => Vec::new(),
        };
        for img in images {
            let name = img
                .get("name")
                .and_then(Node::scalar_text)
                .unwrap_or_default();
            let get = |n: &Node, k: &str| n.get(k).and_then(Node::scalar_text).unwrap_or_default();
            if let Some(existing) = cur.iter_mut().find(|e| {
                e.get("name").and_then(Node::scalar_text).as_deref() == Some(name.as_str())
            }) {
                let m = existing.as_map_mut().expect("image entries are maps");
                let new_name = get(&img, "newName");
                if !new_name.is_empty() {
                    m.insert("newName", Node::Str(new_name));
                }
                let (tag, digest) = (get(&img, "newTag"), get(&img, "digest"));
                if !tag.is_empty() || !digest.is_empty() {
                    m.insert("newTag", Node::Str(tag));
                    m.insert("digest", Node::Str(digest));
                }
            } else {
                cur.push(img);
            }
        }
        raw.insert("images", Node::Seq(cur));
    }
    if !build_metadata.is_empty() {
        raw.insert("buildMetadata", Node::Seq(build_metadata));
    }
    Ok(())
}
