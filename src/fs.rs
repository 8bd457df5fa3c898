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

    /// What `path` is, not followed when it is a symlink (by default: a
    /// file system without symlinks).
    fn entry_kind(&self, path: &Path) -> EntryKind {
        if self.is_dir(path) {
            EntryKind::Dir
        } else if self.is_file(path) {
            EntryKind::File
        } else {
            EntryKind::Other
        }
    }

    /// The directory `path`, open for a walk of the tree under it (see
    /// [`DirHandle`]).
    fn open_dir(&self, path: &Path) -> io::Result<Box<dyn DirHandle + '_>> {
        Ok(Box::new(PathDir {
            fs: self,
            path: path.to_path_buf(),
        }))
    }
}

/// What a directory entry is, a symlink not followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    Dir,
    File,
    Link,
    /// Neither (a device, a socket, a pipe).
    Other,
}

/// A directory open for a walk: listed, its subdirectories and files
/// opened from it and never through a symlink, so a walk that starts
/// inside a directory stays inside it (as Go's `os.ReadDir` and
/// `DirEntry.IsDir` walk a tree). On the machine's file system each entry
/// is opened relative to its directory, with no path looked up from the
/// root again and no `stat` of its own.
pub trait DirHandle: Send + Sync {
    /// Its entries, sorted by name.
    fn entries(&mut self) -> io::Result<Vec<(String, EntryKind)>>;
    /// Its subdirectory `name` (not a symlink).
    fn open_dir(&self, name: &str) -> io::Result<Box<dyn DirHandle + '_>>;
    /// Its regular file `name`, read whole (not a symlink).
    fn read_file(&self, name: &str) -> io::Result<Vec<u8>>;
}

/// [`DirHandle`] by paths, through the file system's own methods.
struct PathDir<'a, F: ?Sized> {
    fs: &'a F,
    path: PathBuf,
}

impl<F: FileSystem + ?Sized> DirHandle for PathDir<'_, F> {
    fn entries(&mut self) -> io::Result<Vec<(String, EntryKind)>> {
        Ok(self
            .fs
            .list(&self.path)?
            .into_iter()
            .map(|n| {
                let k = self.fs.entry_kind(&self.path.join(&n));
                (n, k)
            })
            .collect())
    }
    fn open_dir(&self, name: &str) -> io::Result<Box<dyn DirHandle + '_>> {
        let path = self.path.join(name);
        if self.fs.entry_kind(&path) != EntryKind::Dir {
            return Err(io::Error::new(io::ErrorKind::NotFound, "not a directory"));
        }
        Ok(Box::new(PathDir { fs: self.fs, path }))
    }
    fn read_file(&self, name: &str) -> io::Result<Vec<u8>> {
        let path = self.path.join(name);
        if self.fs.entry_kind(&path) != EntryKind::File {
            return Err(io::Error::new(io::ErrorKind::NotFound, "not a file"));
        }
        self.fs.read(&path)
    }
}

/// [`DirHandle`] on the machine's file system.
struct RealDir(opened::Dir);

impl DirHandle for RealDir {
    fn entries(&mut self) -> io::Result<Vec<(String, EntryKind)>> {
        let mut out: Vec<(String, EntryKind)> = Vec::new();
        for (name, os, kind) in self.0.entries()? {
            let kind = match kind {
                opened::Kind::Dir => EntryKind::Dir,
                opened::Kind::File => EntryKind::File,
                opened::Kind::Other => EntryKind::Other,
                // A symlink, or a file system whose listing does not say.
                opened::Kind::Unknown => match self.0.kind_no_follow(&os) {
                    Ok(opened::Kind::Dir) => EntryKind::Dir,
                    Ok(opened::Kind::File) => EntryKind::File,
                    Ok(opened::Kind::Unknown) => EntryKind::Link,
                    _ => EntryKind::Other,
                },
            };
            out.push((name, kind));
        }
        out.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }
    fn open_dir(&self, name: &str) -> io::Result<Box<dyn DirHandle + '_>> {
        Ok(Box::new(RealDir(
            self.0.open_dir_no_follow(std::ffi::OsStr::new(name))?,
        )))
    }
    fn read_file(&self, name: &str) -> io::Result<Vec<u8>> {
        let mut f = self.0.open_file_no_follow(std::ffi::OsStr::new(name))?;
        let mut data = Vec::new();
        io::Read::read_to_end(&mut f, &mut data)?;
        Ok(data)
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
    fn entry_kind(&self, path: &Path) -> EntryKind {
        match std::fs::symlink_metadata(path).map(|m| m.file_type()) {
            Ok(t) if t.is_dir() => EntryKind::Dir,
            Ok(t) if t.is_file() => EntryKind::File,
            Ok(t) if t.is_symlink() => EntryKind::Link,
            _ => EntryKind::Other,
        }
    }
    fn open_dir(&self, path: &Path) -> io::Result<Box<dyn DirHandle + '_>> {
        Ok(Box::new(RealDir(opened::Dir::open(path)?)))
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
    fn entry_kind(&self, path: &Path) -> EntryKind {
        self.inner.entry_kind(path)
    }
    /// (What is under it is opened from it, never through a symlink: it
    /// stays inside.)
    fn open_dir(&self, path: &Path) -> io::Result<Box<dyn DirHandle + '_>> {
        self.guard(path)?;
        self.inner.open_dir(path)
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

/// Directories walked (a chart's, a repository's for its ignore files),
/// listed and their files opened
/// through the open directory where the system allows it.
///
/// On Linux: `openat` on the directory's descriptor, so the kernel looks
/// up one name per file, not every directory of its path from the root
/// again (a chart in a deep cache directory has paths of ten names); and
/// by system calls made directly, so an executable linked with musl does
/// not follow each `open` with the `fcntl` its C library adds for
/// `O_CLOEXEC` (about 180 system calls fewer for app-template's files).
/// Elsewhere: by path, with the standard library.
pub(crate) mod opened {
    use std::ffi::{OsStr, OsString};
    use std::path::Path;

    /// What a directory entry is, as the listing says.
    pub(crate) enum Kind {
        Dir,
        File,
        /// Neither (a device, a socket, a pipe).
        Other,
        /// A symbolic link, or a file system that does not say: to be
        /// asked with a `stat` of the path (which follows links).
        Unknown,
    }

    #[cfg(target_os = "linux")]
    use std::os::fd::OwnedFd;

    #[cfg(target_os = "linux")]
    pub(crate) struct Dir(rustix::fs::Dir);

    #[cfg(target_os = "linux")]
    fn flags() -> rustix::fs::OFlags {
        use rustix::fs::OFlags;
        OFlags::RDONLY | OFlags::CLOEXEC
    }

    #[cfg(target_os = "linux")]
    impl Dir {
        pub(crate) fn open(path: &Path) -> std::io::Result<Dir> {
            use rustix::fs::{CWD, Mode, OFlags, openat};
            let fd = openat(CWD, path, flags() | OFlags::DIRECTORY, Mode::empty())?;
            Ok(Dir(rustix::fs::Dir::new(fd)?))
        }

        /// `name` opened from this directory with `extra` flags.
        fn open_at(&self, name: &OsStr, extra: rustix::fs::OFlags) -> std::io::Result<OwnedFd> {
            let fd = rustix::fs::openat(
                self.0.fd()?,
                name,
                flags() | extra,
                rustix::fs::Mode::empty(),
            )?;
            Ok(fd)
        }

        /// The subdirectory `name` (at `_path`).
        pub(crate) fn open_dir(&self, name: &OsStr, _path: &Path) -> std::io::Result<Dir> {
            let fd = self.open_at(name, rustix::fs::OFlags::DIRECTORY)?;
            Ok(Dir(rustix::fs::Dir::new(fd)?))
        }

        /// The file `name` (at `_path`), for reading.
        pub(crate) fn open_file(
            &self,
            name: &OsStr,
            _path: &Path,
        ) -> std::io::Result<std::fs::File> {
            Ok(self.open_at(name, rustix::fs::OFlags::empty())?.into())
        }

        /// The subdirectory `name`, unless it is a symlink.
        pub(crate) fn open_dir_no_follow(&self, name: &OsStr) -> std::io::Result<Dir> {
            use rustix::fs::OFlags;
            let fd = self.open_at(name, OFlags::DIRECTORY | OFlags::NOFOLLOW)?;
            Ok(Dir(rustix::fs::Dir::new(fd)?))
        }

        /// The file `name` for reading, unless it is a symlink.
        pub(crate) fn open_file_no_follow(&self, name: &OsStr) -> std::io::Result<std::fs::File> {
            Ok(self.open_at(name, rustix::fs::OFlags::NOFOLLOW)?.into())
        }

        /// What `name` is, a symlink not followed.
        pub(crate) fn kind_no_follow(&self, name: &OsStr) -> std::io::Result<Kind> {
            use rustix::fs::{AtFlags, FileType, statat};
            let st = statat(self.0.fd()?, name, AtFlags::SYMLINK_NOFOLLOW)?;
            Ok(match FileType::from_raw_mode(st.st_mode) {
                FileType::Directory => Kind::Dir,
                FileType::RegularFile => Kind::File,
                FileType::Symlink => Kind::Unknown,
                _ => Kind::Other,
            })
        }

        /// The entries but `.` and `..`: the name as text (lossy), as the
        /// system has it, and what it is.
        pub(crate) fn entries(&mut self) -> std::io::Result<Vec<(String, OsString, Kind)>> {
            use rustix::fs::FileType;
            use std::os::unix::ffi::OsStrExt;
            let mut out = Vec::new();
            for e in &mut self.0 {
                let e = e?;
                let bytes = e.file_name().to_bytes();
                if bytes == b"." || bytes == b".." {
                    continue;
                }
                let os = OsStr::from_bytes(bytes).to_os_string();
                let kind = match e.file_type() {
                    FileType::Directory => Kind::Dir,
                    FileType::RegularFile => Kind::File,
                    FileType::Symlink | FileType::Unknown => Kind::Unknown,
                    _ => Kind::Other,
                };
                out.push((os.to_string_lossy().into_owned(), os, kind));
            }
            Ok(out)
        }
    }

    #[cfg(not(target_os = "linux"))]
    pub(crate) struct Dir(std::path::PathBuf);

    #[cfg(not(target_os = "linux"))]
    impl Dir {
        pub(crate) fn open(path: &Path) -> std::io::Result<Dir> {
            Ok(Dir(path.to_path_buf()))
        }

        /// `name`'s path, unless it is a symlink.
        fn no_link(&self, name: &OsStr) -> std::io::Result<std::path::PathBuf> {
            let path = self.0.join(name);
            if std::fs::symlink_metadata(&path)?.file_type().is_symlink() {
                return Err(std::io::Error::other("a symlink"));
            }
            Ok(path)
        }

        pub(crate) fn open_dir_no_follow(&self, name: &OsStr) -> std::io::Result<Dir> {
            Ok(Dir(self.no_link(name)?))
        }

        pub(crate) fn open_file_no_follow(&self, name: &OsStr) -> std::io::Result<std::fs::File> {
            std::fs::File::open(self.no_link(name)?)
        }

        pub(crate) fn kind_no_follow(&self, name: &OsStr) -> std::io::Result<Kind> {
            let t = std::fs::symlink_metadata(self.0.join(name))?.file_type();
            Ok(if t.is_dir() {
                Kind::Dir
            } else if t.is_file() {
                Kind::File
            } else if t.is_symlink() {
                Kind::Unknown
            } else {
                Kind::Other
            })
        }

        pub(crate) fn open_dir(&self, _name: &OsStr, path: &Path) -> std::io::Result<Dir> {
            Ok(Dir(path.to_path_buf()))
        }

        pub(crate) fn open_file(
            &self,
            _name: &OsStr,
            path: &Path,
        ) -> std::io::Result<std::fs::File> {
            std::fs::File::open(path)
        }

        pub(crate) fn entries(&mut self) -> std::io::Result<Vec<(String, OsString, Kind)>> {
            let mut out = Vec::new();
            for e in std::fs::read_dir(&self.0)? {
                let Ok(e) = e else { continue };
                let kind = match e.file_type() {
                    Ok(t) if t.is_dir() => Kind::Dir,
                    Ok(t) if t.is_file() => Kind::File,
                    Ok(t) if !t.is_symlink() => Kind::Other,
                    _ => Kind::Unknown,
                };
                let os = e.file_name();
                out.push((os.to_string_lossy().into_owned(), os, kind));
            }
            Ok(out)
        }
    }
}

/// Writes `text` to `root/rel`, making its directories (tests' trees).
#[cfg(test)]
pub(crate) fn put(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().expect("a file in a directory")).expect("mkdir");
    std::fs::write(p, text).expect("write");
}
