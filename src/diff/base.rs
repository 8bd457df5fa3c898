//! Choosing the base revision: `--base REV`, else the merge-base of HEAD
//! with its upstream, then with `origin/HEAD`, `origin/main`,
//! `origin/master` (the first that exists). Read in-process with gix.

use std::path::{Path, PathBuf};

use crate::git::{GitError, open, resolve};

/// The revisions tried, in order, when no `--base` is given.
pub const DEFAULT_UPSTREAMS: [&str; 4] = [
    "HEAD@{upstream}",
    "origin/HEAD",
    "origin/main",
    "origin/master",
];

/// A resolved base: the commit, and how to say it (`origin/main
/// (merge-base 1a2b3c4d5e6f)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Base {
    pub commit: String,
    pub label: String,
}

fn short(id: &str) -> &str {
    &id[..id.len().min(12)]
}

fn shallow_hint(repo: &gix::Repository) -> &'static str {
    if repo.is_shallow().unwrap_or(false) {
        " (this is a shallow clone: fetch more history, e.g. `git fetch --unshallow` or actions/checkout with fetch-depth: 0)"
    } else {
        ""
    }
}

/// Resolves `--base REV`.
pub fn explicit(repo_dir: &Path, rev: &str) -> Result<Base, GitError> {
    let repo = open(repo_dir)?;
    let id = resolve(&repo, rev)?.to_string();
    Ok(Base {
        label: format!("{rev} ({})", short(&id)),
        commit: id,
    })
}

/// The default base: the merge-base of HEAD with the first of
/// [`DEFAULT_UPSTREAMS`] that resolves.
pub fn default_base(repo_dir: &Path) -> Result<Base, GitError> {
    let repo = open(repo_dir)?;
    let head = repo
        .head_id()
        .map_err(|e| GitError(format!("HEAD does not name a commit: {e}")))?
        .detach();
    for name in DEFAULT_UPSTREAMS {
        let Ok(upstream) = resolve(&repo, name) else {
            continue;
        };
        let shown = if name == "HEAD@{upstream}" {
            "upstream"
        } else {
            name
        };
        return match repo.merge_base(head, upstream) {
            Ok(Some(b)) => {
                let b = b.to_string();
                Ok(Base {
                    label: format!("merge-base of HEAD and {shown} ({})", short(&b)),
                    commit: b,
                })
            }
            Ok(None) => Err(GitError(format!(
                "HEAD and {shown} have no common ancestor{}; pass --base REV",
                shallow_hint(&repo)
            ))),
            Err(e) => Err(GitError(format!(
                "cannot compute the merge-base of HEAD and {shown}: {e}{}",
                shallow_hint(&repo)
            ))),
        };
    }
    Err(GitError(format!(
        "no base revision: HEAD has no upstream and none of origin/HEAD, origin/main, origin/master exists; pass --base REV or --path-orig DIR{}",
        shallow_hint(&repo)
    )))
}

/// Where to mount a revision's tree so that its paths match the working
/// tree's: the top level of the work tree that contains `repo_root`,
/// spelled as `repo_root` is (which may be a subdirectory or go through a
/// symbolic link).
pub fn mount_point(repo_root: &Path) -> Result<PathBuf, GitError> {
    let repo = open(repo_root)?;
    let Some(work) = repo.workdir() else {
        return Err(GitError(format!(
            "{} is in a bare repository: pass --path-orig DIR instead",
            repo_root.display()
        )));
    };
    let canon = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let (root, work) = (canon(repo_root), canon(work));
    let Ok(rel) = root.strip_prefix(&work) else {
        return Ok(repo_root.to_path_buf());
    };
    let mut mount = repo_root.to_path_buf();
    for _ in rel.components() {
        mount.pop();
    }
    Ok(mount)
}
