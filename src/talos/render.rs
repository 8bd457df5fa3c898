//! The rendered Flux tree the cross-checks read.
//!
//! [`render_env`] renders the environment with the Flux renderer (patches,
//! substitution, children), so the cross-checks read what Flux applies.

use std::path::Path;

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

/// Renders the environment whose entry directory is `entry` with the Flux
/// renderer ([`crate::flux::render`]) and returns every object of the
/// Kustomizations that rendered.
pub fn render_env(repo_root: &Path, entry: &Path) -> Result<Vec<RenderedObject>, Error> {
    let repo_root = crate::fs::absolute(repo_root);
    let entry_abs = crate::fs::normalize(&repo_root, entry);
    let rel = entry_abs
        .strip_prefix(&repo_root)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| entry.to_string_lossy().into_owned());
    let rendered = crate::flux::render(
        &crate::fs::RealFs,
        &repo_root,
        &rel,
        "",
        &crate::flux::RenderOptions::default(),
    )
    .map_err(|e| Error::Render {
        kustomization: ROOT_KUSTOMIZATION.to_string(),
        message: e.to_string(),
    })?;
    Ok(objects(&rendered))
}

/// Every object of the Kustomizations of `rendered` that rendered.
pub fn objects(rendered: &crate::flux::Rendered) -> Vec<RenderedObject> {
    rendered
        .kustomizations
        .iter()
        .flat_map(|k| {
            let key = k.key();
            k.objects.iter().map(move |o| RenderedObject {
                kustomization: key.clone(),
                object: o.obj.clone(),
            })
        })
        .collect()
}
