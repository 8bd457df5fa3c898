//! The source artifact: source-controller packages a GitRepository without
//! its default exclusions (fluxcd/pkg/sourceignore: VCS files, CI
//! configuration, images and archives), so neither the generator nor a
//! build sees them. [`ArtifactFs`] hides them from any file system.

use std::io;
use std::path::{Path, PathBuf};

use crate::fs::FileSystem;

const DIRS: &[&str] = &[".git", ".github", ".circleci"];
const NAMES: &[&str] = &[
    ".gitignore",
    ".gitmodules",
    ".gitattributes",
    ".travis.yml",
    ".gitlab-ci.yml",
    "appveyor.yml",
    ".drone.yml",
    "cloudbuild.yaml",
    "codeship-services.yml",
    "codeship-steps.yml",
    ".goreleaser.yml",
    ".sops.yaml",
    ".flux.yaml",
];
const EXTENSIONS: &[&str] = &[
    ".jpg", ".jpeg", ".gif", ".png", ".wmv", ".flv", ".tar.gz", ".zip",
];

/// Whether source-controller leaves `rel` (relative to the source root) out
/// of the artifact.
pub fn excluded(rel: &Path, is_dir: bool) -> bool {
    let comps: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let Some((last, parents)) = comps.split_last() else {
        return false;
    };
    if parents.iter().any(|c| DIRS.contains(&c.as_str())) {
        return true;
    }
    if is_dir {
        DIRS.contains(&last.as_str())
    } else {
        NAMES.contains(&last.as_str()) || EXTENSIONS.iter().any(|e| last.ends_with(e))
    }
}

/// A file system that hides what the artifact would not contain.
pub struct ArtifactFs<'a> {
    pub inner: &'a dyn FileSystem,
    pub root: PathBuf,
}

impl ArtifactFs<'_> {
    fn hidden(&self, p: &Path, is_dir: bool) -> bool {
        p.strip_prefix(&self.root)
            .is_ok_and(|rel| excluded(rel, is_dir))
    }
}

impl FileSystem for ArtifactFs<'_> {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        if self.hidden(path, false) {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                "excluded from the source artifact",
            ));
        }
        self.inner.read(path)
    }
    fn is_dir(&self, path: &Path) -> bool {
        !self.hidden(path, true) && self.inner.is_dir(path)
    }
    fn is_file(&self, path: &Path) -> bool {
        !self.hidden(path, false) && self.inner.is_file(path)
    }
    fn real_path(&self, path: &Path) -> Option<PathBuf> {
        self.inner.real_path(path)
    }
    fn list(&self, path: &Path) -> io::Result<Vec<String>> {
        let names = self.inner.list(path)?;
        Ok(names
            .into_iter()
            .filter(|n| {
                let p = path.join(n);
                !self.hidden(&p, self.inner.is_dir(&p))
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_exclusions() {
        assert!(excluded(Path::new("a/.github/workflows/ci.yaml"), false));
        assert!(excluded(Path::new("apps/.sops.yaml"), false));
        assert!(excluded(Path::new("logo.png"), false));
        assert!(excluded(Path::new("x/.git"), true));
        assert!(!excluded(Path::new("apps/app.yaml"), false));
        assert!(!excluded(Path::new("apps/github/app.yaml"), false));
    }
}
