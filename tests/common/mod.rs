//! Helpers shared by the integration tests (each test file that needs them
//! declares `mod common;`; not every file uses every helper).
#![allow(dead_code)]

pub mod helm;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root (the example tree is `kubernetes/` below it).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A scratch directory under the system's temporary directory, named
/// `flate-PREFIX-XXXXXX`, removed with everything in it when the value is
/// dropped (when the test ends, whether it passes or fails). It derefs to
/// its path, so `d.join(..)`, `&d` and `d.display()` work as on a `Path`;
/// bind it to a variable that lives as long as the directory is used.
pub struct Scratch(tempfile::TempDir);

impl std::ops::Deref for Scratch {
    type Target = Path;

    fn deref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        self.0.path()
    }
}

/// For `Command::arg(&scratch)`.
impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.path().as_os_str()
    }
}

/// A new, empty [`Scratch`] directory `flate-PREFIX-XXXXXX`.
pub fn scratch(prefix: &str) -> Scratch {
    Scratch(
        tempfile::Builder::new()
            .prefix(&format!("flate-{prefix}-"))
            .tempdir()
            .expect("create a scratch directory"),
    )
}

/// Copies the directory tree `from` to `to`.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let (p, t) = (e.path(), to.join(e.file_name()));
        if p.is_dir() {
            copy_dir(&p, &t);
        } else {
            std::fs::copy(&p, &t).unwrap();
        }
    }
}

/// Runs git in `dir` with a fixed identity, dates and configuration (no
/// user or system configuration); fails the test when git fails. Returns
/// standard output, trimmed.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let o = Command::new("git")
        .args([
            "-c",
            "user.name=flate test",
            "-c",
            "user.email=test@flate.invalid",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "gc.auto=0",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_DATE", "2025-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2025-01-01T00:00:00Z")
        .output()
        .expect("run git");
    assert!(
        o.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

/// `flate ARGS --repo REPO`.
pub fn flate_in(args: &[&str], repo: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_flate"))
        .args(args)
        .arg("--repo")
        .arg(repo)
        .output()
        .expect("run flate")
}

/// Writes `text` to `rel` under `root`, making the directories.
pub fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// Replaces `from` with `to` in the file at `path`; fails when the file
/// does not hold `from` (an edit that changes nothing tests nothing).
pub fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(
        text.contains(from),
        "{} does not hold {from:?}",
        path.display()
    );
    std::fs::write(path, text.replace(from, to)).unwrap();
}

/// `flate build x -o json` of the tree at `root`, entry `cluster`: the
/// document and standard error.
pub fn build_cluster_json(root: &Path) -> (serde_json::Value, String) {
    build_cluster_json_with(root, &[])
}

/// [`build_cluster_json`] with more arguments (`--show-secrets`...).
pub fn build_cluster_json_with(root: &Path, extra: &[&str]) -> (serde_json::Value, String) {
    let mut args = vec!["build", "x", "--path", "cluster", "-o", "json"];
    args.extend_from_slice(extra);
    let o = flate_in(&args, root);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    let v = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{err}", String::from_utf8_lossy(&o.stdout)));
    (v, err)
}

/// The Kustomization `name` of a `flate build -o json` document.
pub fn report<'a>(v: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    v["kustomizations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["name"] == name)
        .unwrap_or_else(|| panic!("no Kustomization {name} in {v:#}"))
}
