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

    fn read_to_string(&self, path: &Path) -> io::Result<String> {
        let b = self.read(path)?;
        String::from_utf8(b).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
    }
}

/// The machine's file system.
#[derive(Debug, Default, Clone, Copy)]
pub struct RealFs;

impl FileSystem for RealFs {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        std::fs::read(path)
    }
    fn is_dir(&self, path: &Path) -> bool {
        path.is_dir()
    }
    fn is_file(&self, path: &Path) -> bool {
        path.is_file()
    }
    fn list(&self, path: &Path) -> io::Result<Vec<String>> {
        let mut v: Vec<String> = std::fs::read_dir(path)?
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        Ok(v)
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
