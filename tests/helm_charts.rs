//! Every case under fixtures/helm/ is a small chart of this project's own,
//! rendered with `flate helm template chart --name RELEASE ARGS...` in the
//! case directory and compared byte for byte with what Helm (v4.1.4)
//! printed for `helm template RELEASE chart ARGS...`, recorded by
//! tools/record_helm_fixtures.py (expected.yaml: standard output;
//! expected-error.txt: Helm's error message, every line of which flate's
//! standard error must contain). A second test re-runs Helm live on every case when
//! `helm` is on PATH or FLATE_HELM names it, and compares the three.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::helm::{cases, flate, helm_binary, helm_home};

/// Cases where flate is known to differ from Helm, with the reason. The
/// test checks that these still differ, so a fix shows up here.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[];

/// Whether flate's run matches the expected result: the same standard
/// output on success; otherwise a failure whose standard error contains
/// every line of Helm's message (Helm lists schema violations in no fixed
/// order).
fn matches(out: &Output, expected: &Result<String, String>) -> bool {
    match expected {
        Ok(want) => out.status.success() && out.stdout == want.as_bytes(),
        Err(msg) => {
            let stderr = String::from_utf8_lossy(&out.stderr);
            !out.status.success() && msg.lines().all(|l| stderr.contains(l))
        }
    }
}

/// Two Helm results are the same; errors compare as sets of lines, as
/// Helm lists schema violations in no fixed order.
fn same(a: &Result<String, String>, b: &Result<String, String>) -> bool {
    let lines = |s: &str| {
        let mut l: Vec<String> = s.lines().map(String::from).collect();
        l.sort();
        l
    };
    match (a, b) {
        (Ok(a), Ok(b)) => a == b,
        (Err(a), Err(b)) => lines(a) == lines(b),
        _ => false,
    }
}

fn shown(out: &Output) -> String {
    if out.status.success() {
        format!("stdout:\n{}", String::from_utf8_lossy(&out.stdout))
    } else {
        format!(
            "failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )
    }
}

/// Whether this flate has the `helm template` command at all.
fn has_helm_command() -> bool {
    Command::new(env!("CARGO_BIN_EXE_flate"))
        .args(["helm", "template", "--help"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

fn known(name: &str) -> bool {
    KNOWN_DIFFERENCES.iter().any(|(n, _)| *n == name)
}

#[test]
fn helm_chart_fixtures_match_recorded_helm_output() {
    let cases = cases("");
    assert!(cases.len() >= 30, "only {} chart cases", cases.len());
    if !has_helm_command() {
        println!("SKIPPED: this flate has no `helm template` command");
        return;
    }
    let mut failures = Vec::new();
    let mut passed = 0;
    for c in &cases {
        let out = flate(c);
        let ok = matches(&out, &c.expected);
        if ok {
            passed += 1;
        }
        if ok == known(&c.name) {
            failures.push(format!(
                "{}: {}\n--- want {:?}\n--- got {}",
                c.name,
                if ok {
                    "now matches (remove it from KNOWN_DIFFERENCES)"
                } else {
                    "differs"
                },
                c.expected,
                shown(&out)
            ));
        }
    }
    println!("helm charts: {passed}/{} cases match Helm", cases.len());
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Runs Helm on one case the way the recorder does, and reads its result
/// as the recorder writes it.
fn helm(bin: &Path, c: &common::helm::Case) -> Result<String, String> {
    let home = tempfile::tempdir().expect("temporary directory");
    let out = common::helm::helm(bin, c, home.path());
    if out.status.success() {
        return Ok(String::from_utf8_lossy(&out.stdout).into_owned());
    }
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let err = err
        .trim_end_matches('\n')
        .trim_end_matches("Use --debug flag to render out invalid YAML")
        .trim_end_matches('\n');
    Err(err.strip_prefix("Error: ").unwrap_or(err).to_string())
}

#[test]
fn helm_chart_fixtures_match_live_helm() {
    let Some(bin) = helm_binary() else {
        println!("SKIPPED: helm is not on PATH and FLATE_HELM is not set");
        return;
    };
    let with_flate = has_helm_command();
    let mut stale = Vec::new();
    let mut differ = Vec::new();
    let cases = cases("");
    for c in &cases {
        let live = helm(&bin, c);
        if !same(&live, &c.expected) {
            stale.push(format!(
                "{}: the recording differs from {} (re-run tools/record_helm_fixtures.py)",
                c.name,
                bin.display()
            ));
        }
        if with_flate && !matches(&flate(c), &live) && !known(&c.name) {
            differ.push(c.name.clone());
        }
    }
    if !with_flate {
        println!("flate side SKIPPED: this flate has no `helm template` command");
    }
    println!(
        "live helm: {} cases, {} recordings stale, {} differ from flate",
        cases.len(),
        stale.len(),
        differ.len()
    );
    assert!(stale.is_empty(), "{}", stale.join("\n"));
    assert!(differ.is_empty(), "differ from live helm: {differ:?}");
}

/// Every file under `dir`, relative, with its contents.
fn tree(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().display().to_string();
                out.push((rel, std::fs::read_to_string(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// `--output-dir` (and `--release-name`) against the live Helm: the same
/// files with the same contents and the same `wrote` lines, over three
/// runs into one directory (Helm appends a hook to a file an earlier run
/// wrote, and overwrites the others).
#[test]
fn output_dir_matches_live_helm() {
    let Some(bin) = helm_binary() else {
        println!("SKIPPED: helm is not on PATH and FLATE_HELM is not set");
        return;
    };
    let chart = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/helm/046-show-only/chart");
    let runs: [&[&str]; 3] = [
        &["--include-crds", "--output-dir", "out/", "--release-name"],
        &["--output-dir", "out", "--skip-tests"],
        &["--output-dir", "out", "--no-hooks", "-n", "other"],
    ];
    let mut results = Vec::new();
    for tool in ["helm", "flate"] {
        let home = tempfile::tempdir().unwrap();
        let work = tempfile::tempdir().unwrap();
        let mut printed = String::new();
        for args in runs {
            let mut cmd = if tool == "helm" {
                let mut c = Command::new(&bin);
                c.args(["template", "so"]);
                c
            } else {
                let mut c = Command::new(env!("CARGO_BIN_EXE_flate"));
                c.args(["helm", "template", "so"]);
                c
            };
            let o = helm_home(
                cmd.arg(&chart).args(args).current_dir(work.path()),
                home.path(),
            )
            .output()
            .unwrap();
            assert!(
                o.status.success(),
                "{tool}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            printed.push_str(&String::from_utf8_lossy(&o.stdout));
        }
        results.push((printed, tree(&work.path().join("out"))));
    }
    assert!(
        results[0].0.contains("wrote out//shown/crds/widget.yaml"),
        "{}",
        results[0].0
    );
    assert_eq!(results[1].0, results[0].0, "standard output");
    assert_eq!(results[1].1, results[0].1, "written files");
}

/// `now` and the certificates' validity read one instant per process, and
/// `SOURCE_DATE_EPOCH` fixes that instant across runs.
#[test]
fn clock_is_read_once_and_source_date_epoch_fixes_it() {
    let dir = tempfile::tempdir().unwrap();
    let chart = dir.path().join("c");
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    std::fs::write(
        chart.join("Chart.yaml"),
        "apiVersion: v2\nname: c\nversion: 0.1.0\n",
    )
    .unwrap();
    std::fs::write(
        chart.join("templates/t.yaml"),
        "a: {{ now | date \"2006-01-02T15:04:05.000000000Z07:00\" | quote }}\n\
         b: {{ now | date \"2006-01-02T15:04:05.000000000Z07:00\" | quote }}\n\
         c: {{ (genCA \"x\" 3).Cert | sha256sum }}\n",
    )
    .unwrap();
    let run = |epoch: Option<&str>| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_flate"));
        c.args(["helm", "template", "c"])
            .current_dir(dir.path())
            .env("TZ", "UTC");
        match epoch {
            Some(e) => c.env("SOURCE_DATE_EPOCH", e),
            None => c.env_remove("SOURCE_DATE_EPOCH"),
        };
        let o = c.output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let field = |out: &str, k: &str| {
        out.lines()
            .find_map(|l| l.strip_prefix(&format!("{k}: ")))
            .unwrap()
            .to_string()
    };
    let live = run(None);
    assert_eq!(field(&live, "a"), field(&live, "b"), "{live}");
    let fixed = run(Some("1700000000"));
    assert_eq!(field(&fixed, "a"), "\"2023-11-14T22:13:20.000000000Z\"");
    std::thread::sleep(std::time::Duration::from_millis(1100));
    assert_eq!(run(Some("1700000000")), fixed);
    let bad = Command::new(env!("CARGO_BIN_EXE_flate"))
        .args(["helm", "template", "c"])
        .current_dir(dir.path())
        .env("SOURCE_DATE_EPOCH", "yesterday")
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("SOURCE_DATE_EPOCH=yesterday is not a whole number of seconds"),
        "{err}"
    );
}

/// A symbolic link in a chart directory that leads nowhere: Helm fails
/// with `filepath.EvalSymlinks`'s error on the link's absolute path (the
/// first step of the path that is missing, or a loop, or a file used as a
/// directory). The charts are made here (links cannot be recorded with an
/// absolute path that holds); the live test compares the messages with
/// Helm's.
#[test]
fn links_leading_nowhere_fail_as_live_helm() {
    let scratch = common::scratch("helm-links");
    let root: &Path = &scratch;
    std::fs::create_dir_all(root.join("real")).unwrap();
    std::fs::write(root.join("real/f"), "x\n").unwrap();
    let links: [(&str, &[(&str, &str)]); 6] = [
        ("up", &[("LICENSE", "../../nope")]),
        ("nested", &[("sub/y", "missing/x")]),
        ("through-dotdot", &[("sub/z", "../real/dir/x")]),
        ("loop", &[("loop1", "loop2"), ("loop2", "loop1")]),
        ("file-as-dir", &[("w", "../real/f/x")]),
        ("absolute", &[("abs", "ABS/real/../nope")]),
    ];
    let helm = helm_binary();
    let home = root.join("home");
    for (name, made) in links {
        let chart = root.join(name);
        std::fs::create_dir_all(chart.join("templates")).unwrap();
        std::fs::create_dir_all(chart.join("sub")).unwrap();
        std::fs::write(
            chart.join("Chart.yaml"),
            "apiVersion: v2\nname: c\nversion: 0.1.0\n",
        )
        .unwrap();
        std::fs::write(chart.join("templates/cm.yaml"), "a: 1\n").unwrap();
        for (link, target) in made {
            let target = target.replace("ABS", &root.display().to_string());
            std::os::unix::fs::symlink(target, chart.join(link)).unwrap();
        }
        let out = Command::new(env!("CARGO_BIN_EXE_flate"))
            .args(["helm", "template", name, "--name", "r"])
            .current_dir(root)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(!out.status.success(), "{name}: {err}");
        assert!(
            err.contains(&format!("error evaluating symlink {}/", chart.display())),
            "{name}: {err}"
        );
        let Some(bin) = &helm else { continue };
        let live = helm_home(
            Command::new(bin)
                .args(["template", "r", name])
                .current_dir(root),
            &home,
        )
        .output()
        .unwrap();
        let want = String::from_utf8_lossy(&live.stderr);
        let want = want
            .lines()
            .find(|l| l.starts_with("Error: "))
            .unwrap_or_default();
        assert!(!live.status.success(), "{name}: helm rendered it");
        assert_eq!(err.lines().next().unwrap_or_default(), want, "{name}");
    }
    if helm.is_none() {
        println!("SKIPPED (live side): helm is not on PATH and FLATE_HELM is not set");
    }
}
