//! Reading a repository at a git revision in-process (gix), behind the
//! same [`FileSystem`] trait the renderer uses for the working tree.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::fs::FileSystem;

#[derive(Debug, Clone)]
enum Entry {
    Dir(Vec<String>),
    File(gix::ObjectId),
}

/// The tree of one commit, mounted at `root` (paths under `root` resolve
/// to paths in the commit's tree).
pub struct GitTreeFs {
    root: PathBuf,
    entries: HashMap<PathBuf, Entry>,
    repo: Mutex<gix::Repository>,
    /// The commit the tree belongs to.
    pub commit: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitError(pub String);

impl std::fmt::Display for GitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for GitError {}

fn err(e: impl std::fmt::Display) -> GitError {
    GitError(e.to_string())
}

/// Opens the repository that contains `dir`.
pub fn open(dir: &Path) -> Result<gix::Repository, GitError> {
    gix::discover(dir)
        .map_err(|e| GitError(format!("{} is not in a git repository: {e}", dir.display())))
}

/// Resolves `rev` to a commit id, with a helpful error for shallow clones.
pub fn resolve(repo: &gix::Repository, rev: &str) -> Result<gix::ObjectId, GitError> {
    match repo.rev_parse_single(rev) {
        Ok(id) => {
            let obj = id.object().map_err(err)?;
            let commit = obj
                .peel_to_commit()
                .map_err(|e| GitError(format!("revision '{rev}' is not a commit: {e}")))?;
            Ok(commit.id)
        }
        Err(e) => {
            let hint = if repo.is_shallow().unwrap_or(false) {
                " (this is a shallow clone: fetch more history, e.g. `git fetch --unshallow` or actions/checkout with fetch-depth: 0)"
            } else {
                " (fetch it first, e.g. `git fetch origin main`)"
            };
            Err(GitError(format!("revision '{rev}' not found: {e}{hint}")))
        }
    }
}

impl GitTreeFs {
    /// The tree of `rev` in the repository containing `repo_dir`, mounted
    /// at `root` (normally the absolute path of the work tree).
    pub fn open(repo_dir: &Path, rev: &str, root: &Path) -> Result<GitTreeFs, GitError> {
        let repo = open(repo_dir)?;
        let id = resolve(&repo, rev)?;
        let tree = repo
            .find_object(id)
            .map_err(err)?
            .peel_to_commit()
            .map_err(err)?
            .tree()
            .map_err(err)?;
        let mut entries = HashMap::new();
        index(&repo, tree, root.to_path_buf(), &mut entries)?;
        Ok(GitTreeFs {
            root: root.to_path_buf(),
            entries,
            repo: Mutex::new(repo),
            commit: id.to_string(),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }
}

fn index(
    repo: &gix::Repository,
    tree: gix::Tree<'_>,
    at: PathBuf,
    out: &mut HashMap<PathBuf, Entry>,
) -> Result<(), GitError> {
    let mut names = Vec::new();
    let mut subtrees = Vec::new();
    for e in tree.iter() {
        let e = e.map_err(err)?;
        let name = e.filename().to_string();
        let path = at.join(&name);
        let mode = e.mode();
        if mode.is_tree() {
            subtrees.push((e.oid().to_owned(), path));
        } else if mode.is_blob() {
            out.insert(path, Entry::File(e.oid().to_owned()));
        } else {
            continue;
        }
        names.push(name);
    }
    names.sort();
    out.insert(at, Entry::Dir(names));
    for (oid, path) in subtrees {
        let sub = repo
            .find_object(oid)
            .map_err(err)?
            .peel_to_tree()
            .map_err(err)?;
        index(repo, sub, path, out)?;
    }
    Ok(())
}

impl FileSystem for GitTreeFs {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        match self.entries.get(path) {
            Some(Entry::File(id)) => {
                let repo = self
                    .repo
                    .lock()
                    .map_err(|_| io::Error::other("git repository lock poisoned"))?;
                let obj = repo.find_object(*id).map_err(io::Error::other)?;
                Ok(obj.data.clone())
            }
            Some(Entry::Dir(_)) => Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                "is a directory",
            )),
            None => Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("{} not found in the revision", path.display()),
            )),
        }
    }
    fn is_dir(&self, path: &Path) -> bool {
        matches!(self.entries.get(path), Some(Entry::Dir(_)))
    }
    fn is_file(&self, path: &Path) -> bool {
        matches!(self.entries.get(path), Some(Entry::File(_)))
    }
    fn list(&self, path: &Path) -> io::Result<Vec<String>> {
        match self.entries.get(path) {
            Some(Entry::Dir(names)) => Ok(names.clone()),
            _ => Err(io::Error::new(io::ErrorKind::NotFound, "not a directory")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_this_repository_at_head() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        let Ok(fs) = GitTreeFs::open(dir, "HEAD", dir) else {
            eprintln!("SKIPPED: not a git checkout");
            return;
        };
        assert!(fs.is_dir(&dir.join("src")));
        assert!(fs.is_file(&dir.join("Cargo.toml")));
        let text = fs.read_to_string(&dir.join("Cargo.toml")).unwrap();
        assert!(text.contains("name = \"flate\""));
        assert!(fs.list(dir).unwrap().contains(&"src".to_string()));
    }

    #[test]
    fn unknown_revision_is_a_clear_error() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        let Ok(repo) = open(dir) else {
            return;
        };
        let e = resolve(&repo, "no-such-branch-xyz").unwrap_err();
        assert!(e.0.contains("not found"), "{e}");
    }
}
