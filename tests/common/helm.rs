//! The chart cases under fixtures/helm/ (recorded from Helm v4.1.4 by
//! tools/record_helm_fixtures.py), and running flate and Helm on them, for
//! tests/helm_charts.rs (every case) and tests/helm_core.rs (the `core-*`
//! cases). Each test keeps its own comparisons.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// One case directory: `chart/`, `args` and the recorded result.
pub struct Case {
    pub name: String,
    pub dir: PathBuf,
    /// None: the case names its release with `--name-template`.
    pub release: Option<String>,
    /// The arguments other than `--name RELEASE`.
    pub args: Vec<String>,
    /// expected.yaml (Helm's standard output), else expected-error.txt
    /// (Helm's error message, without its last line break).
    pub expected: Result<String, String>,
}

/// Every case under fixtures/helm/ whose name starts with `prefix`, in
/// name order.
pub fn cases(prefix: &str) -> Vec<Case> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/helm");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("fixtures/helm")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(prefix))
                && p.join("args").is_file()
        })
        .collect();
    dirs.sort();
    dirs.into_iter().map(case).collect()
}

fn case(dir: PathBuf) -> Case {
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    let read = |f: &str| std::fs::read_to_string(dir.join(f));
    let words: Vec<String> = read("args")
        .unwrap()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect();
    let (release, args) = match words.iter().position(|w| w == "--name") {
        Some(i) => (
            Some(words[i + 1].clone()),
            [&words[..i], &words[i + 2..]].concat(),
        ),
        None if words.iter().any(|w| w == "--name-template") => (None, words),
        None => panic!("{name}/args: no --name (nor --name-template)"),
    };
    let expected = match (read("expected.yaml"), read("expected-error.txt")) {
        (Ok(s), _) => Ok(s),
        (_, Ok(e)) => Err(e.trim_end_matches('\n').to_string()),
        _ => panic!("{name}: neither expected.yaml nor expected-error.txt"),
    };
    Case {
        name,
        dir,
        release,
        args,
        expected,
    }
}

/// `flate helm template chart [--name RELEASE] ARGS...` in the case
/// directory.
pub fn flate(c: &Case) -> Output {
    Command::new(env!("CARGO_BIN_EXE_flate"))
        .args(["helm", "template", "chart"])
        .args(c.release.iter().flat_map(|r| ["--name", r.as_str()]))
        .args(&c.args)
        .current_dir(&c.dir)
        .output()
        .expect("run flate")
}

/// The Helm binary to compare with: FLATE_HELM, else `helm` on PATH.
pub fn helm_binary() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("FLATE_HELM") {
        return Some(PathBuf::from(p));
    }
    std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join("helm"))
            .find(|p| p.is_file())
    })
}

/// Points HOME and Helm's cache, configuration and data directories into
/// `home` (an empty directory), as the recorder does.
pub fn helm_home<'c>(cmd: &'c mut Command, home: &Path) -> &'c mut Command {
    cmd.env("HOME", home)
        .env("HELM_CACHE_HOME", home.join("cache"))
        .env("HELM_CONFIG_HOME", home.join("config"))
        .env("HELM_DATA_HOME", home.join("data"))
}

/// `helm template [RELEASE] chart ARGS...` in the case directory, as the
/// recorder runs it, with `home` as Helm's home.
pub fn helm(bin: &Path, c: &Case, home: &Path) -> Output {
    helm_home(
        Command::new(bin)
            .arg("template")
            .args(&c.release)
            .arg("chart")
            .args(&c.args)
            .current_dir(&c.dir),
        home,
    )
    .output()
    .expect("run helm")
}
