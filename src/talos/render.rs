//! The rendered Flux tree the cross-checks read.
//!
//! [`render_env`] is the one place to swap for the full Flux renderer once
//! it exists. Until then it approximates Flux with kustomize alone: build
//! the entry directory, then, breadth first, every Flux `Kustomization`
//! whose source is the root `GitRepository` `flux-system` (the repository),
//! building its `spec.path` and setting `spec.targetNamespace` on the
//! namespaced objects it yields. It does not apply a Kustomization's
//! `spec.patches` nor `postBuild` substitution, and skips suspended ones;
//! the checks only read literal values that neither touches (the Envoy
//! NodePort, settings ConfigMaps, the Spegel ports).

use std::collections::{BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

use crate::kustomize::{BuildOptions, LoadRestrictor};
use crate::resource::Gvk;
use crate::yaml::Node;

use super::Error;

/// One object of the rendered tree and the Flux Kustomization that
/// applies it (`namespace/name`).
#[derive(Debug, Clone)]
pub struct RenderedObject {
    pub kustomization: String,
    pub object: Node,
}

impl RenderedObject {
    pub fn kind(&self) -> &str {
        self.object.get_str(&["kind"]).unwrap_or("")
    }
    pub fn api_version(&self) -> &str {
        self.object.get_str(&["apiVersion"]).unwrap_or("")
    }
    pub fn name(&self) -> &str {
        self.object.get_str(&["metadata", "name"]).unwrap_or("")
    }
    pub fn namespace(&self) -> &str {
        self.object
            .get_str(&["metadata", "namespace"])
            .unwrap_or("")
    }
    /// `Kind namespace/name` for messages.
    pub fn describe(&self) -> String {
        if self.namespace().is_empty() {
            format!("{} {}", self.kind(), self.name())
        } else {
            format!("{} {}/{}", self.kind(), self.namespace(), self.name())
        }
    }
}

/// The name flate gives the root sync, as Flux's bootstrap does.
pub const ROOT_KUSTOMIZATION: &str = "flux-system/flux-system";

/// Renders the environment whose entry directory is `entry`, with sources
/// resolved against the repository root `repo_root`.
pub fn render_env(repo_root: &Path, entry: &Path) -> Result<Vec<RenderedObject>, Error> {
    let repo_root = crate::fs::absolute(repo_root);
    let repo_root = repo_root.as_path();
    let opts = BuildOptions {
        load_restrictor: LoadRestrictor::RootOnly,
        boundary: Some(repo_root.to_path_buf()),
    };
    let mut out = Vec::new();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut queue: VecDeque<(PathBuf, String, Option<String>)> = VecDeque::new();
    queue.push_back((
        crate::fs::absolute(entry),
        ROOT_KUSTOMIZATION.to_string(),
        None,
    ));
    seen.insert(ROOT_KUSTOMIZATION.to_string());
    while let Some((dir, ks, target_ns)) = queue.pop_front() {
        let text = crate::kustomize::build_dir(&dir, &opts).map_err(|e| Error::Render {
            kustomization: ks.clone(),
            message: e.to_string(),
        })?;
        let docs = crate::yaml::parse_stream(&text).map_err(|e| Error::Render {
            kustomization: ks.clone(),
            message: format!("reading the build output: {e}"),
        })?;
        for doc in docs {
            let mut object = doc.node;
            let api = object.get_str(&["apiVersion"]).unwrap_or("").to_string();
            let kind = object.get_str(&["kind"]).unwrap_or("").to_string();
            if let Some(ns) = &target_ns
                && !Gvk::from_api_version(&api, &kind).is_cluster_scoped()
                && let Some(meta) = object.get_mut("metadata").and_then(Node::as_map_mut)
            {
                meta.insert("namespace", Node::str(ns.clone()));
            }
            if api.starts_with("kustomize.toolkit.fluxcd.io/") && kind == "Kustomization" {
                let name = object.get_str(&["metadata", "name"]).unwrap_or("");
                let namespace = object
                    .get_str(&["metadata", "namespace"])
                    .unwrap_or("default");
                let id = format!("{namespace}/{name}");
                let src_kind = object.get_str(&["spec", "sourceRef", "kind"]).unwrap_or("");
                let src_name = object.get_str(&["spec", "sourceRef", "name"]).unwrap_or("");
                let src_ns = object
                    .get_str(&["spec", "sourceRef", "namespace"])
                    .unwrap_or(namespace);
                let suspended = object
                    .get_path(&["spec", "suspend"])
                    .and_then(Node::as_bool)
                    == Some(true);
                let from_repo = src_kind == "GitRepository"
                    && src_name == "flux-system"
                    && src_ns == "flux-system";
                if from_repo && !suspended && !seen.contains(&id) {
                    let path = object.get_str(&["spec", "path"]).unwrap_or("./");
                    // Flux resolves the path against the source root, even with
                    // a leading slash.
                    let rel = path.trim_start_matches('/');
                    let dir = crate::fs::normalize(repo_root, Path::new(rel));
                    let target = object
                        .get_str(&["spec", "targetNamespace"])
                        .map(str::to_string);
                    seen.insert(id.clone());
                    queue.push_back((dir, id, target));
                }
            }
            out.push(RenderedObject {
                kustomization: ks.clone(),
                object,
            });
        }
    }
    Ok(out)
}
