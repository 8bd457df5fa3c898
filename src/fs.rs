//! File access behind a trait, so a build can read the working tree or a
//! git revision alike. Paths are absolute and lexically normalized.

use std::io;
use std::path::{Component, Path, PathBuf};

pub trait FileSystem: Send + Sync {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>>;
    fn is_dir(&self, path: &Path) -> bool;
    fn is_file(&self, path: &Path) -> bool;
    /// Names of the entries of a directory, sorted.
    fn list(&self, path: &Path) -> io::Result<Vec<String>>;

    /// `path` with every symlink on it resolved, when it exists (a file
    /// system without symlinks returns it as it is).
    fn real_path(&self, path: &Path) -> Option<PathBuf> {
        Some(path.to_path_buf())
    }

    /// Whether `path` itself may be a symlink (its directory aside): true
    /// unless the file system knows better.
    fn may_be_symlink(&self, _path: &Path) -> bool {
        true
    }

    fn read_to_string(&self, path: &Path) -> io::Result<String> {
        let b = self.read(path)?;
        String::from_utf8(b).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
    }

    /// The entries of a directory, sorted, each with whether it is a
    /// directory (a symlink to one is).
    fn list_typed(&self, path: &Path) -> io::Result<Vec<(String, bool)>> {
        Ok(self
            .list(path)?
            .into_iter()
            .map(|n| {
                let d = self.is_dir(&path.join(&n));
                (n, d)
            })
            .collect())
    }

    /// `path` read, unless it is itself a symlink (`None`: nothing read).
    fn read_unless_link(&self, path: &Path) -> io::Result<Option<Vec<u8>>> {
        if self.may_be_symlink(path) {
            return Ok(None);
        }
        self.read(path).map(Some)
    }
}

/// The machine's file system.
#[derive(Debug, Default, Clone, Copy)]
pub struct RealFs;

impl FileSystem for RealFs {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        real::read(path, false).map(|r| r.unwrap_or_default())
    }
    fn read_unless_link(&self, path: &Path) -> io::Result<Option<Vec<u8>>> {
        real::read(path, true)
    }
    fn list_typed(&self, path: &Path) -> io::Result<Vec<(String, bool)>> {
        let mut v: Vec<(String, bool)> = std::fs::read_dir(path)?
            .filter_map(|e| e.ok())
            .map(|e| {
                // The listing says what an entry is; a symlink is followed.
                let d = match e.file_type() {
                    Ok(t) if !t.is_symlink() => t.is_dir(),
                    _ => e.path().is_dir(),
                };
                (e.file_name().to_string_lossy().into_owned(), d)
            })
            .collect();
        v.sort();
        Ok(v)
    }
    fn is_dir(&self, path: &Path) -> bool {
        path.is_dir()
    }
    fn is_file(&self, path: &Path) -> bool {
        path.is_file()
    }
    fn real_path(&self, path: &Path) -> Option<PathBuf> {
        std::fs::canonicalize(path).ok()
    }
    fn may_be_symlink(&self, path: &Path) -> bool {
        std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
    }
    fn list(&self, path: &Path) -> io::Result<Vec<String>> {
        Ok(self.list_typed(path)?.into_iter().map(|(n, _)| n).collect())
    }
}

/// Reading files of the machine's file system in as few system calls as
/// it takes: an open (on Linux made directly, so that an executable
/// linked with musl does not follow it with the `fcntl` its C library adds
/// for `O_CLOEXEC`), reads until the end (no `stat` for the size first),
/// a close. A build reads every file of the repository it renders: on
/// bjw-s-labs/home-ops that is about 700 files, each also checked for a
/// symlink by a `stat` of its own before, which `O_NOFOLLOW` now does in
/// the open (see [`FileSystem::read_unless_link`]).
mod real {
    use std::io::{self, Read};
    use std::path::Path;

    /// The file at `path`, read whole; `None` when `no_follow` and the
    /// file is a symlink.
    pub(super) fn read(path: &Path, no_follow: bool) -> io::Result<Option<Vec<u8>>> {
        let Some(mut file) = open(path, no_follow)? else {
            return Ok(None);
        };
        let mut data: Vec<u8> = Vec::with_capacity(8 * 1024);
        let mut sized = false;
        loop {
            if data.len() == data.capacity() {
                // Larger than the first read: the size asked once (a
                // `stat` is cheaper than copying a large file while
                // doubling), then room to grow.
                let size = match (sized, file.metadata()) {
                    (false, Ok(m)) => m.len() as usize,
                    _ => 0,
                };
                sized = true;
                data.reserve((size + 1).saturating_sub(data.len()).max(data.capacity()));
            }
            // The spare capacity, zeroed, for the read to fill (zeroing it
            // costs less than asking the file for its size).
            let len = data.len();
            data.resize(data.capacity(), 0);
            match file.read(&mut data[len..]) {
                Ok(0) => {
                    data.truncate(len);
                    return Ok(Some(data));
                }
                Ok(n) => data.truncate(len + n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => data.truncate(len),
                Err(e) => return Err(e),
            }
        }
    }

    #[cfg(target_os = "linux")]
    fn open(path: &Path, no_follow: bool) -> io::Result<Option<std::fs::File>> {
        use rustix::fs::{CWD, Mode, OFlags, openat};
        let mut flags = OFlags::RDONLY | OFlags::CLOEXEC;
        if no_follow {
            flags |= OFlags::NOFOLLOW;
        }
        match openat(CWD, path, flags, Mode::empty()) {
            Ok(fd) => Ok(Some(std::fs::File::from(fd))),
            Err(rustix::io::Errno::LOOP) if no_follow => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn open(path: &Path, no_follow: bool) -> io::Result<Option<std::fs::File>> {
        if no_follow && std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
            return Ok(None);
        }
        std::fs::File::open(path).map(Some)
    }
}

/// A file system confined to a repository: reading a path outside `root`,
/// or one that a symlink (on the path or at its end) leads out of `root`,
/// fails with an error naming the link and where it leads. Listing and
/// testing paths behaves as the inner file system does, so that such a
/// path is reported when it is read rather than as missing.
pub struct Confined<'a> {
    inner: &'a dyn FileSystem,
    root: PathBuf,
    real_root: PathBuf,
    /// Directories already checked, and whether they stay inside.
    dirs: std::sync::Mutex<std::collections::HashMap<PathBuf, bool>>,
    /// Other directories the user named (`--source` directories): a path
    /// under one of them that resolves inside it is read too. (root, real
    /// root.)
    also: Vec<(PathBuf, PathBuf)>,
}

impl<'a> Confined<'a> {
    pub fn new(inner: &'a dyn FileSystem, root: &Path) -> Confined<'a> {
        Confined {
            inner,
            root: root.to_path_buf(),
            real_root: inner.real_path(root).unwrap_or_else(|| root.to_path_buf()),
            dirs: Default::default(),
            also: Vec::new(),
        }
    }

    /// Also admits what is under `dirs` (each confined to itself).
    pub fn also(mut self, dirs: impl IntoIterator<Item = PathBuf>) -> Confined<'a> {
        for d in dirs {
            let real = self.inner.real_path(&d).unwrap_or_else(|| d.clone());
            self.also.push((d, real));
        }
        self
    }

    /// Whether `path`, outside the root, is under one of the other
    /// directories and resolves inside it.
    fn admitted_elsewhere(&self, path: &Path) -> bool {
        self.also.iter().any(|(dir, real_dir)| {
            path.starts_with(dir)
                && self
                    .inner
                    .real_path(path)
                    .is_none_or(|real| real.starts_with(real_dir))
        })
    }

    /// Whether `path` resolves inside the root (a path that does not
    /// exist does).
    fn inside(&self, path: &Path) -> bool {
        self.inner
            .real_path(path)
            .is_none_or(|real| real.starts_with(&self.real_root))
    }

    /// Whether directory `dir` resolves inside the root, remembered. A
    /// directory that is not itself a link, in one that stays inside,
    /// stays inside: one `stat`, where resolving its whole path reads
    /// every directory on it again (`realpath`: a `readlink` for each).
    fn dir_inside(&self, dir: &Path) -> bool {
        if let Ok(cache) = self.dirs.lock()
            && let Some(ok) = cache.get(dir)
        {
            return *ok;
        }
        let ok = match dir.parent().filter(|p| p.starts_with(&self.root)) {
            // (Not for a `..`, which leads out of its parent.)
            Some(p)
                if dir != self.root
                    && dir.file_name().is_some()
                    && self.dir_inside(p)
                    && !self.inner.may_be_symlink(dir) =>
            {
                true
            }
            _ => self.inside(dir),
        };
        if let Ok(mut cache) = self.dirs.lock() {
            cache.insert(dir.to_path_buf(), ok);
        }
        ok
    }

    /// Refuses `path` when it, or a symlink on it, leads out of the root.
    pub fn guard(&self, path: &Path) -> io::Result<()> {
        if !path.starts_with(&self.root) && self.admitted_elsewhere(path) {
            return Ok(());
        }
        if !path.starts_with(&self.root) {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "'{}' is outside the repository '{}'",
                    path.display(),
                    self.root.display()
                ),
            ));
        }
        // The directory once, then the path itself when it is a link.
        let ok = match path.parent().filter(|d| d.starts_with(&self.root)) {
            Some(d) => {
                self.dir_inside(d) && (!self.inner.may_be_symlink(path) || self.inside(path))
            }
            None => self.inside(path),
        };
        if ok {
            return Ok(());
        }
        // Name the first link on the path that leads out.
        let mut link = self.root.clone();
        let mut target = None;
        for c in path.strip_prefix(&self.root).unwrap_or(path).components() {
            link.push(c);
            if let Some(real) = self.inner.real_path(&link)
                && !real.starts_with(&self.real_root)
            {
                target = Some(real);
                break;
            }
        }
        let target = target.unwrap_or_default();
        let mut msg = format!(
            "'{}' is a symlink to '{}', outside the repository '{}'",
            link.display(),
            target.display(),
            self.root.display()
        );
        if link != path {
            msg = format!("reading '{}': {msg}", path.display());
        }
        Err(io::Error::new(io::ErrorKind::PermissionDenied, msg))
    }
}

impl FileSystem for Confined<'_> {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        // A file that is not itself a link, in a directory known to stay
        // inside, is inside: read in one go (the check of the link and the
        // open are one system call).
        if path.starts_with(&self.root)
            && let Some(d) = path.parent().filter(|d| d.starts_with(&self.root))
            && self.dir_inside(d)
            && let Some(data) = self.inner.read_unless_link(path)?
        {
            return Ok(data);
        }
        self.guard(path)?;
        self.inner.read(path)
    }
    fn list_typed(&self, path: &Path) -> io::Result<Vec<(String, bool)>> {
        self.guard(path)?;
        self.inner.list_typed(path)
    }
    fn is_dir(&self, path: &Path) -> bool {
        self.inner.is_dir(path)
    }
    fn is_file(&self, path: &Path) -> bool {
        self.inner.is_file(path)
    }
    fn list(&self, path: &Path) -> io::Result<Vec<String>> {
        self.guard(path)?;
        self.inner.list(path)
    }
    fn real_path(&self, path: &Path) -> Option<PathBuf> {
        self.inner.real_path(path)
    }
}

/// Lexically normalizes `p` (resolving `.` and `..`), relative to `base`
/// when `p` is relative.
pub fn normalize(base: &Path, p: &Path) -> PathBuf {
    let joined = if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Makes an absolute, normalized path from a user-given one.
pub fn absolute(p: &Path) -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    normalize(&cwd, p)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// Files of every size around the first read's 8 KiB are read whole.
    #[test]
    fn real_reads_whole_files_of_any_size() {
        let t = tempfile::tempdir().unwrap();
        for n in [0, 1, 8191, 8192, 8193, 16384, 100_000, 3_000_001] {
            let p = t.path().join(format!("f{n}"));
            let data: Vec<u8> = (0..n).map(|i| (i % 251) as u8).collect();
            std::fs::write(&p, &data).unwrap();
            assert_eq!(RealFs.read(&p).unwrap(), data, "{n} bytes");
            assert_eq!(
                RealFs.read_unless_link(&p).unwrap(),
                Some(data),
                "{n} bytes"
            );
        }
        let link = t.path().join("link");
        symlink(t.path().join("f1"), &link).unwrap();
        assert_eq!(RealFs.read_unless_link(&link).unwrap(), None);
        assert_eq!(RealFs.read(&link).unwrap(), vec![0u8]);
    }

    /// Reads through [`Confined`] as a build makes them: files in nested
    /// directories inside, under a directory linked out, a file linked
    /// out, a path climbing out with `..`, a missing file, a directory.
    #[test]
    fn confined_reads_inside_and_refuses_links_out() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("repo");
        let out = t.path().join("outside");
        std::fs::create_dir_all(root.join("a/b/c")).unwrap();
        std::fs::create_dir_all(out.join("sub")).unwrap();
        std::fs::write(root.join("a/b/c/x.yaml"), "inside").unwrap();
        std::fs::write(out.join("sub/y.yaml"), "outside").unwrap();
        std::fs::write(out.join("z.yaml"), "outside").unwrap();
        symlink(&out, root.join("a/out")).unwrap();
        symlink(out.join("z.yaml"), root.join("a/b/z.yaml")).unwrap();
        symlink("c/x.yaml", root.join("a/b/link.yaml")).unwrap();
        let real = RealFs;
        let fs = Confined::new(&real, &root);
        assert_eq!(fs.read(&root.join("a/b/c/x.yaml")).unwrap(), b"inside");
        // A link that stays inside is followed.
        assert_eq!(fs.read(&root.join("a/b/link.yaml")).unwrap(), b"inside");
        let refused = |p: &Path| {
            let e = fs.read(p).unwrap_err();
            assert_eq!(
                e.kind(),
                io::ErrorKind::PermissionDenied,
                "{}: {e}",
                p.display()
            );
            e.to_string()
        };
        let e = refused(&root.join("a/out/sub/y.yaml"));
        assert!(
            e.contains("'") && e.contains("a/out' is a symlink to"),
            "{e}"
        );
        let e = refused(&root.join("a/b/z.yaml"));
        assert!(e.contains("a/b/z.yaml' is a symlink to"), "{e}");
        // Twice: the answers remembered for directories stay the same.
        refused(&root.join("a/out/sub/y.yaml"));
        refused(&root.join("a/b/c/../../../../outside/z.yaml"));
        assert_eq!(
            fs.read(&root.join("a/b/c/missing.yaml"))
                .unwrap_err()
                .kind(),
            io::ErrorKind::NotFound
        );
        assert!(fs.read(&root.join("a/b")).is_err());
        assert_eq!(
            fs.list_typed(&root.join("a")).unwrap(),
            vec![("b".to_string(), true), ("out".to_string(), true)]
        );
    }
}

/// Writes `text` to `root/rel`, making its directories (tests' trees).
#[cfg(test)]
pub(crate) fn put(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().expect("a file in a directory")).expect("mkdir");
    std::fs::write(p, text).expect("write");
}
