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
    /// A symlink: the blob holds the target path.
    Link(gix::ObjectId),
}

/// How many symlinks one path may pass through (as Linux's `MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

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

    fn blob(&self, id: gix::ObjectId) -> io::Result<Vec<u8>> {
        let repo = self
            .repo
            .lock()
            .map_err(|_| io::Error::other("git repository lock poisoned"))?;
        let obj = repo.find_object(id).map_err(io::Error::other)?;
        Ok(obj.data.clone())
    }

    /// `path` with the symlinks of the tree on it resolved as a checkout
    /// would (a target is relative to the link's directory). A path that
    /// a link leads out of the tree comes back outside `root`, where
    /// nothing exists.
    fn resolve(&self, path: &Path) -> io::Result<PathBuf> {
        let Ok(rel) = path.strip_prefix(&self.root) else {
            return Ok(path.to_path_buf());
        };
        let mut rest: Vec<std::ffi::OsString> =
            rel.components().map(|c| c.as_os_str().to_owned()).collect();
        rest.reverse();
        let mut cur = self.root.clone();
        let mut hops = 0;
        while let Some(c) = rest.pop() {
            let next = cur.join(&c);
            match self.entries.get(&next) {
                Some(Entry::Link(id)) => {
                    hops += 1;
                    if hops > MAX_LINKS {
                        return Err(io::Error::other(format!(
                            "{}: too many levels of symbolic links",
                            path.display()
                        )));
                    }
                    let target = String::from_utf8_lossy(&self.blob(*id)?).into_owned();
                    let t = crate::fs::normalize(&cur, Path::new(&target));
                    let Ok(inside) = t.strip_prefix(&self.root) else {
                        // Out of the tree: the rest is not looked up.
                        let mut out = t;
                        out.extend(rest.iter().rev());
                        return Ok(out);
                    };
                    let mut again: Vec<std::ffi::OsString> = inside
                        .components()
                        .map(|c| c.as_os_str().to_owned())
                        .collect();
                    again.reverse();
                    rest.extend(again);
                    cur = self.root.clone();
                }
                _ => cur = next,
            }
        }
        Ok(cur)
    }

    fn entry(&self, path: &Path) -> Option<&Entry> {
        self.entries.get(&self.resolve(path).ok()?)
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
        } else if mode.is_link() {
            out.insert(path, Entry::Link(e.oid().to_owned()));
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
        let real = self.resolve(path)?;
        match self.entries.get(&real) {
            Some(Entry::File(id)) => self.blob(*id),
            Some(Entry::Dir(_)) => Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                "is a directory",
            )),
            Some(Entry::Link(_)) | None => Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("{} not found in the revision", path.display()),
            )),
        }
    }
    fn is_dir(&self, path: &Path) -> bool {
        matches!(self.entry(path), Some(Entry::Dir(_)))
    }
    fn is_file(&self, path: &Path) -> bool {
        // A link out of the tree counts as a file, so that reading it
        // reports where it leads.
        match self.resolve(path) {
            Ok(real) if !real.starts_with(&self.root) => true,
            Ok(real) => matches!(self.entries.get(&real), Some(Entry::File(_))),
            Err(_) => false,
        }
    }
    fn list(&self, path: &Path) -> io::Result<Vec<String>> {
        match self.entry(path) {
            Some(Entry::Dir(names)) => Ok(names.clone()),
            _ => Err(io::Error::new(io::ErrorKind::NotFound, "not a directory")),
        }
    }
    fn entry_kind(&self, path: &Path) -> crate::fs::EntryKind {
        use crate::fs::EntryKind;
        // (The path as it is: a symlink on it is not followed.)
        match self.entries.get(path) {
            Some(Entry::Dir(_)) => EntryKind::Dir,
            Some(Entry::File(_)) => EntryKind::File,
            Some(Entry::Link(_)) => EntryKind::Link,
            None => EntryKind::Other,
        }
    }
    fn real_path(&self, path: &Path) -> Option<PathBuf> {
        let real = self.resolve(path).ok()?;
        (!real.starts_with(&self.root) || self.entries.contains_key(&real)).then_some(real)
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
