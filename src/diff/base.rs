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

/// The files under the directory `rel` (relative to each side's root)
/// that differ between the two sides: added, removed or with other
/// contents, as repository-relative paths, sorted. `.git` is left out; a
/// directory is visited once per side (by its real path), so symlink loops
/// end.
pub fn changed_files(
    base: &dyn crate::fs::FileSystem,
    base_root: &Path,
    head: &dyn crate::fs::FileSystem,
    head_root: &Path,
    rel: &str,
) -> Vec<String> {
    let rel = rel.trim_matches('/');
    let mut out = Vec::new();
    let mut seen = (
        std::collections::HashSet::new(),
        std::collections::HashSet::new(),
    );
    let sides = Sides {
        base,
        base_root,
        head,
        head_root,
    };
    sides.walk(rel, &mut seen, &mut out);
    out.sort();
    out
}

struct Sides<'a> {
    base: &'a dyn crate::fs::FileSystem,
    base_root: &'a Path,
    head: &'a dyn crate::fs::FileSystem,
    head_root: &'a Path,
}

type Seen = (
    std::collections::HashSet<PathBuf>,
    std::collections::HashSet<PathBuf>,
);

impl Sides<'_> {
    fn abs(root: &Path, rel: &str) -> PathBuf {
        if rel.is_empty() || rel == "." {
            root.to_path_buf()
        } else {
            crate::fs::normalize(root, Path::new(rel))
        }
    }

    /// Entries of `rel` on one side (name, is a directory), or none when
    /// it is not a directory there or was visited already.
    fn entries(
        fs: &dyn crate::fs::FileSystem,
        dir: &Path,
        seen: &mut std::collections::HashSet<PathBuf>,
    ) -> Vec<(String, bool)> {
        if !fs.is_dir(dir) {
            return Vec::new();
        }
        let real = fs.real_path(dir).unwrap_or_else(|| dir.to_path_buf());
        if !seen.insert(real) {
            return Vec::new();
        }
        fs.list_typed(dir).unwrap_or_default()
    }

    fn walk(&self, rel: &str, seen: &mut Seen, out: &mut Vec<String>) {
        let (bdir, hdir) = (
            Self::abs(self.base_root, rel),
            Self::abs(self.head_root, rel),
        );
        let b = Self::entries(self.base, &bdir, &mut seen.0);
        let h = Self::entries(self.head, &hdir, &mut seen.1);
        let mut names: std::collections::BTreeMap<&str, (Option<bool>, Option<bool>)> =
            std::collections::BTreeMap::new();
        for (n, d) in &b {
            names.entry(n).or_default().0 = Some(*d);
        }
        for (n, d) in &h {
            names.entry(n).or_default().1 = Some(*d);
        }
        for (name, (bd, hd)) in names {
            if name == ".git" {
                continue;
            }
            let child = if rel.is_empty() || rel == "." {
                name.to_string()
            } else {
                format!("{rel}/{name}")
            };
            match (bd, hd) {
                (Some(false), Some(false)) => {
                    let a = self.base.read(&bdir.join(name));
                    let z = self.head.read(&hdir.join(name));
                    let same = matches!((&a, &z), (Ok(x), Ok(y)) if x == y);
                    if !same {
                        out.push(child);
                    }
                }
                (Some(false), _) | (_, Some(false)) => {
                    // A file on one side only (or a file where the other
                    // side has a directory): it, and whatever the
                    // directory holds.
                    out.push(child.clone());
                    if bd == Some(true) || hd == Some(true) {
                        self.walk(&child, seen, out);
                    }
                }
                _ => self.walk(&child, seen, out),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::RealFs;

    use crate::fs::put;

    #[test]
    fn changed_files_lists_added_removed_and_modified_files_under_a_directory() {
        let (b, h) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (b, h) = (b.path(), h.path());
        for root in [b, h] {
            put(root, "apps/same.yaml", "a: 1\n");
            put(root, "apps/deep/same.yaml", "b: 1\n");
            put(root, "other/changed.yaml", "outside the directory\n");
            put(root, "apps/.git/config", "ignored\n");
        }
        put(b, "apps/changed.yaml", "v: 1\n");
        put(h, "apps/changed.yaml", "v: 2\n");
        put(b, "apps/gone/x.yaml", "x\n");
        put(h, "apps/new/y.yaml", "y\n");
        // A file on one side where the other has a directory.
        put(b, "apps/flip", "a file\n");
        put(h, "apps/flip/inside.yaml", "z\n");
        put(h, "other/changed.yaml", "changed, but outside\n");
        put(h, "apps/.git/config", "changed, but .git\n");
        let got = changed_files(&RealFs, b, &RealFs, h, "apps");
        assert_eq!(
            got,
            [
                "apps/changed.yaml",
                "apps/flip",
                "apps/flip/inside.yaml",
                "apps/gone/x.yaml",
                "apps/new/y.yaml",
            ]
        );
        // The whole tree (a Kustomization at the root).
        let all = changed_files(&RealFs, b, &RealFs, h, "./");
        assert!(all.contains(&"other/changed.yaml".to_string()), "{all:?}");
        assert!(!all.iter().any(|f| f.contains(".git")), "{all:?}");
        // Nothing changed, or a directory on neither side.
        assert!(changed_files(&RealFs, b, &RealFs, b, "apps").is_empty());
        assert!(changed_files(&RealFs, b, &RealFs, h, "nowhere").is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn changed_files_ends_on_a_symlink_loop() {
        let (b, h) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        for root in [b.path(), h.path()] {
            put(root, "apps/a.yaml", "a\n");
            std::os::unix::fs::symlink("..", root.join("apps/loop")).unwrap();
        }
        put(h.path(), "apps/a.yaml", "b\n");
        let got = changed_files(&RealFs, b.path(), &RealFs, h.path(), "apps");
        assert_eq!(got, ["apps/a.yaml"]);
    }
}
