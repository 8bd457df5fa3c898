//! Writing generated files into `--out-dir` without ever leaving a
//! half-written set: everything is generated in memory first; every target
//! is checked before anything is written; each file goes to a temporary
//! file in the same directory (synced) and only when all of them are
//! written are they renamed over their targets (a rename within one
//! directory is atomic). Any failure before the renames removes the
//! temporary files and leaves the previous files untouched. Files whose
//! content is unchanged are not rewritten.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::{Error, GeneratedFile};

/// What happened to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Written(PathBuf),
    Unchanged(PathBuf),
}

fn io(path: &Path, e: std::io::Error) -> Error {
    Error::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

fn temp_name(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!(".{name}.flate-tmp-{}", std::process::id()))
}

/// Writes `files` into `dir` (created when missing).
pub fn write_files(dir: &Path, files: &[GeneratedFile]) -> Result<Vec<Outcome>, Error> {
    // Check every target first.
    for f in files {
        if f.name.is_empty() || f.name.contains(['/', '\\']) || f.name == "." || f.name == ".." {
            return Err(Error::Io {
                path: dir.join(&f.name),
                message: "not a plain file name".into(),
            });
        }
        let target = dir.join(&f.name);
        if let Ok(meta) = fs::symlink_metadata(&target)
            && !meta.is_file()
        {
            return Err(Error::Io {
                path: target,
                message: "exists and is not a regular file; nothing was written".into(),
            });
        }
    }
    fs::create_dir_all(dir).map_err(|e| io(dir, e))?;

    let mut pending: Vec<(PathBuf, PathBuf)> = Vec::new();
    let mut outcomes = Vec::new();
    let cleanup = |pending: &[(PathBuf, PathBuf)]| {
        for (tmp, _) in pending {
            let _ = fs::remove_file(tmp);
        }
    };
    for f in files {
        let target = dir.join(&f.name);
        if fs::read(&target).is_ok_and(|old| old == f.contents.as_bytes()) {
            outcomes.push(Outcome::Unchanged(target));
            continue;
        }
        let tmp = temp_name(dir, &f.name);
        let written = fs::File::create(&tmp).and_then(|mut file| {
            file.write_all(f.contents.as_bytes())?;
            file.sync_all()
        });
        if let Err(e) = written {
            let _ = fs::remove_file(&tmp);
            cleanup(&pending);
            return Err(io(&tmp, e));
        }
        pending.push((tmp, target.clone()));
        outcomes.push(Outcome::Written(target));
    }
    for i in 0..pending.len() {
        let (tmp, target) = &pending[i];
        if let Err(e) = fs::rename(tmp, target) {
            cleanup(&pending[i..]);
            return Err(io(target, e));
        }
    }
    Ok(outcomes)
}
