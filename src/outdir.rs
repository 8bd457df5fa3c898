//! Replacing the contents of an output directory as a whole.
//!
//! `flate build --out-dir DIR` and `flate talos gen --out-dir DIR` never
//! leave DIR holding a mix of two runs. The new contents are assembled in
//! a fresh sibling directory `.DIR.flate-new-PID` (the files of DIR that
//! this run does not rewrite are hard-linked into it, so they are kept, as
//! before), every file is synced, and the sibling is swapped with DIR in a
//! single `renameat2(RENAME_EXCHANGE)` on Linux. The old contents, now
//! under the sibling's name, are then removed. A reader that opens
//! `DIR/FILE` sees either the previous run's file set or this run's,
//! never a mix; a process killed at any point leaves DIR entirely old or
//! entirely new.
//!
//! Where the exchange is not available (another OS, a file system without
//! it), DIR is first renamed aside and the sibling renamed into place: DIR
//! is briefly absent, but never mixed.
//!
//! Leftovers of an interrupted run (a sibling `.DIR.flate-new-PID` or
//! `.DIR.flate-old-PID` whose process is gone, and the per-file
//! `.NAME.tmp-PID` files that earlier versions left inside DIR) are removed
//! by the next run.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// One file to write: a plain file name (no directory part) and its bytes.
#[derive(Debug, Clone)]
pub struct OutFile {
    pub name: String,
    pub contents: Vec<u8>,
}

/// What happened to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Written(PathBuf),
    Unchanged(PathBuf),
}

fn sibling(dir: &Path, what: &str, pid: u32) -> PathBuf {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    dir.with_file_name(format!(".{name}.flate-{what}-{pid}"))
}

fn process_alive(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    #[cfg(target_os = "linux")]
    {
        Path::new(&format!("/proc/{pid}")).exists()
    }
    #[cfg(not(target_os = "linux"))]
    {
        // Without a cheap liveness test, only old leftovers are removed.
        let _ = pid;
        false
    }
}

/// The pid in a leftover's name, if `name` is one of ours for `dir_name`.
fn leftover_pid(name: &str, dir_name: &str) -> Option<u32> {
    let rest = name.strip_prefix(&format!(".{dir_name}.flate-"))?;
    let (_, pid) = rest
        .strip_prefix("new-")
        .map(|p| ("new", p))
        .or_else(|| rest.strip_prefix("old-").map(|p| ("old", p)))?;
    pid.parse().ok()
}

/// Removes the leftovers of interrupted runs next to and inside `dir`.
pub fn clean_leftovers(dir: &Path) {
    let (Some(parent), Some(dir_name)) = (dir.parent(), dir.file_name()) else {
        return;
    };
    let parent = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    let dir_name = dir_name.to_string_lossy();
    if let Ok(entries) = fs::read_dir(parent) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(pid) = leftover_pid(&name, &dir_name)
                && !process_alive(pid)
            {
                let _ = fs::remove_dir_all(e.path());
            }
        }
    }
    if let Ok(entries) = fs::read_dir(dir) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if is_temp_file_name(&name) {
                let _ = fs::remove_file(e.path());
            }
        }
    }
}

/// `.NAME.tmp-PID` / `.NAME.flate-tmp-PID`: per-file temporaries of
/// earlier versions.
fn is_temp_file_name(name: &str) -> bool {
    if !name.starts_with('.') {
        return false;
    }
    ["tmp-", "flate-tmp-"].iter().any(|m| {
        name.rsplit_once(&format!(".{m}"))
            .is_some_and(|(_, pid)| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// Hard-links (or copies) every file of `from` into `to`, recursively,
/// except the names in `skip` at the top level and temporaries.
fn carry_over(from: &Path, to: &Path, skip: &[&str]) -> io::Result<()> {
    let Ok(entries) = fs::read_dir(from) else {
        return Ok(());
    };
    for e in entries {
        let e = e?;
        let name = e.file_name();
        let name_s = name.to_string_lossy();
        if skip.contains(&name_s.as_ref()) || is_temp_file_name(&name_s) {
            continue;
        }
        let (src, dst) = (e.path(), to.join(&name));
        let ty = e.file_type()?;
        if ty.is_dir() {
            fs::create_dir(&dst)?;
            carry_over(&src, &dst, &[])?;
        } else if ty.is_symlink() {
            #[cfg(unix)]
            std::os::unix::fs::symlink(fs::read_link(&src)?, &dst)?;
        } else if fs::hard_link(&src, &dst).is_err() {
            fs::copy(&src, &dst)?;
        }
    }
    Ok(())
}

/// Swaps two paths atomically; false when the system cannot.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> io::Result<bool> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let ca = CString::new(a.as_os_str().as_bytes())?;
    let cb = CString::new(b.as_os_str().as_bytes())?;
    // The system call itself rather than the C library's wrapper: glibc
    // has one since 2.28, musl only since 1.2.4, and the executable as
    // distributed may be linked with either (tools/release-build.sh).
    // SAFETY: both arguments are valid NUL-terminated paths that outlive
    // the call; AT_FDCWD resolves them like rename(2).
    let r = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            ca.as_ptr(),
            libc::AT_FDCWD,
            cb.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if r == 0 {
        return Ok(true);
    }
    let e = io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::EINVAL) | Some(libc::ENOSYS) | Some(libc::ENOTSUP) => Ok(false),
        _ => Err(e),
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_a: &Path, _b: &Path) -> io::Result<bool> {
    Ok(false)
}

fn sync_dir(p: &Path) {
    if let Ok(f) = fs::File::open(p) {
        let _ = f.sync_all();
    }
}

/// Replaces `dir`'s contents by its current files overlaid with `files`,
/// as a whole (see the module documentation). Files whose contents are
/// unchanged are reported as such (they are still part of the new set).
pub fn write_dir(dir: &Path, files: &[OutFile]) -> io::Result<Vec<Outcome>> {
    for f in files {
        if f.name.is_empty() || f.name.contains(['/', '\\']) || f.name == "." || f.name == ".." {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{}: not a plain file name", f.name),
            ));
        }
        let target = dir.join(&f.name);
        if let Ok(meta) = fs::symlink_metadata(&target)
            && !meta.is_file()
        {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!(
                    "{}: exists and is not a regular file; nothing was written",
                    target.display()
                ),
            ));
        }
    }
    let shown = dir;
    let dir = crate::fs::absolute(dir);
    if let Some(parent) = dir.parent() {
        fs::create_dir_all(parent)?;
    }
    if let Ok(meta) = fs::symlink_metadata(&dir)
        && !meta.is_dir()
    {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("{}: exists and is not a directory", dir.display()),
        ));
    }
    clean_leftovers(&dir);
    let pid = std::process::id();
    let new = sibling(&dir, "new", pid);
    let _ = fs::remove_dir_all(&new);
    let result = (|| -> io::Result<Vec<Outcome>> {
        fs::create_dir(&new)?;
        let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
        carry_over(&dir, &new, &names)?;
        let mut outcomes = Vec::new();
        for f in files {
            let target = shown.join(&f.name);
            let same = fs::read(dir.join(&f.name)).is_ok_and(|old| old == f.contents);
            let mut file = fs::File::create(new.join(&f.name))?;
            file.write_all(&f.contents)?;
            file.sync_all()?;
            outcomes.push(if same {
                Outcome::Unchanged(target)
            } else {
                Outcome::Written(target)
            });
        }
        sync_dir(&new);
        Ok(outcomes)
    })();
    let outcomes = match result {
        Ok(o) => o,
        Err(e) => {
            let _ = fs::remove_dir_all(&new);
            return Err(e);
        }
    };
    if !dir.exists() {
        fs::rename(&new, &dir)?;
    } else if exchange(&new, &dir)? {
        // `new` now holds the previous contents.
        let _ = fs::remove_dir_all(&new);
    } else {
        let old = sibling(&dir, "old", pid);
        let _ = fs::remove_dir_all(&old);
        fs::rename(&dir, &old)?;
        if let Err(e) = fs::rename(&new, &dir) {
            let _ = fs::rename(&old, &dir);
            let _ = fs::remove_dir_all(&new);
            return Err(e);
        }
        let _ = fs::remove_dir_all(&old);
    }
    if let Some(parent) = dir.parent() {
        sync_dir(parent);
    }
    Ok(outcomes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, s: &str) -> OutFile {
        OutFile {
            name: name.into(),
            contents: s.as_bytes().to_vec(),
        }
    }

    #[test]
    fn replaces_as_a_whole_keeping_other_files_and_cleaning_leftovers() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("out");
        let o = write_dir(&dir, &[file("a.yaml", "1\n"), file("b.yaml", "1\n")]).unwrap();
        assert!(matches!(o[0], Outcome::Written(_)));
        // Leftovers of a killed run: a sibling of a dead process and a
        // per-file temporary of an older version.
        fs::create_dir(t.path().join(".out.flate-new-999999999")).unwrap();
        fs::write(dir.join(".a.yaml.tmp-4242"), "x").unwrap();
        let o = write_dir(&dir, &[file("a.yaml", "2\n")]).unwrap();
        assert!(matches!(o[0], Outcome::Written(_)));
        assert_eq!(fs::read_to_string(dir.join("a.yaml")).unwrap(), "2\n");
        // A file this run does not write is kept.
        assert_eq!(fs::read_to_string(dir.join("b.yaml")).unwrap(), "1\n");
        let mut names: Vec<String> = fs::read_dir(t.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["out"]);
        let mut inside: Vec<String> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        inside.sort();
        assert_eq!(inside, ["a.yaml", "b.yaml"]);
        let o = write_dir(&dir, &[file("a.yaml", "2\n")]).unwrap();
        assert!(matches!(o[0], Outcome::Unchanged(_)));
    }

    #[test]
    fn recognises_temporaries_and_leftovers() {
        assert!(is_temp_file_name(".x__y.yaml.tmp-123"));
        assert!(is_temp_file_name(".controlplane.yaml.flate-tmp-9"));
        assert!(!is_temp_file_name("x.yaml"));
        assert!(!is_temp_file_name(".x.yaml.tmp-"));
        assert_eq!(leftover_pid(".out.flate-new-12", "out"), Some(12));
        assert_eq!(leftover_pid(".out.flate-old-12", "out"), Some(12));
        assert_eq!(leftover_pid(".other.flate-new-12", "out"), None);
    }
}
