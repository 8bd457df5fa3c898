//! Every case under fixtures/kustomize/ is built with flate and compared
//! byte for byte with the output recorded from `kubectl kustomize`
//! (kustomize v5.5.0). A second test runs kubectl live on every case when
//! it is on PATH.

use std::path::{Path, PathBuf};
use std::process::Command;

use flate::kustomize::{BuildOptions, LoadRestrictor, build_dir};

/// Cases where flate is known to differ from kustomize, with the reason.
/// The tests check that these still differ, so a fix shows up here.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[];

struct Case {
    name: String,
    build_dir: PathBuf,
    opts: BuildOptions,
    flags: Vec<String>,
    expected: Option<String>,
}

fn cases() -> Vec<Case> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/kustomize");
    let mut out = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("fixtures/kustomize")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("in").is_dir())
        .collect();
    dirs.sort();
    for d in dirs {
        let name = d.file_name().unwrap().to_string_lossy().into_owned();
        let sub = std::fs::read_to_string(d.join("dir"))
            .map(|s| s.trim().to_string())
            .unwrap_or_default();
        let build_dir = if sub.is_empty() {
            d.join("in")
        } else {
            d.join("in").join(sub)
        };
        let flags: Vec<String> = std::fs::read_to_string(d.join("flags"))
            .map(|s| s.split_whitespace().map(str::to_string).collect())
            .unwrap_or_default();
        let mut opts = BuildOptions::default();
        if flags.iter().any(|f| f.contains("LoadRestrictionsNone")) {
            opts.load_restrictor = LoadRestrictor::None;
        }
        opts.enable_helm = flags.iter().any(|f| f == "--enable-helm");
        let expected = std::fs::read_to_string(d.join("expected.yaml")).ok();
        assert!(
            expected.is_some() || d.join("expected-error.txt").exists(),
            "{name}: neither expected.yaml nor expected-error.txt"
        );
        out.push(Case {
            name,
            build_dir,
            opts,
            flags,
            expected,
        });
    }
    out
}

fn known(name: &str) -> bool {
    KNOWN_DIFFERENCES.iter().any(|(n, _)| *n == name)
}

#[test]
fn fixtures_match_recorded_kustomize_output() {
    let cases = cases();
    assert!(cases.len() >= 60, "only {} fixture cases", cases.len());
    let mut failures = Vec::new();
    for c in &cases {
        let got = build_dir(&c.build_dir, &c.opts);
        let ok = match (&c.expected, &got) {
            (Some(want), Ok(out)) => want == out,
            (None, Err(_)) => true,
            _ => false,
        };
        if ok == known(&c.name) {
            failures.push(format!(
                "{}: {}",
                c.name,
                match (&c.expected, &got) {
                    _ if known(&c.name) =>
                        "listed in KNOWN_DIFFERENCES but now matches; remove it".to_string(),
                    (Some(_), Ok(_)) => "output differs from expected.yaml".to_string(),
                    (Some(_), Err(e)) => format!("failed: {e}"),
                    (None, Ok(_)) =>
                        "kustomize fails on this input but flate succeeded".to_string(),
                    (None, Err(_)) => unreachable!(),
                }
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn errors_name_a_file() {
    for c in cases()
        .iter()
        .filter(|c| c.expected.is_none() && !known(&c.name))
    {
        let e = build_dir(&c.build_dir, &c.opts).unwrap_err();
        let shown = e.to_string();
        assert!(
            e.file.is_some() || shown.contains('/'),
            "{}: error does not name a file: {shown}",
            c.name
        );
    }
}

/// Runs `kubectl kustomize` live on every case and compares.
#[test]
fn differential_against_live_kubectl() {
    if Command::new("kubectl")
        .arg("version")
        .arg("--client")
        .output()
        .is_err()
    {
        eprintln!("SKIPPED: kubectl is not on PATH; the differential test did not run");
        return;
    }
    // 135 makes kubectl expand an alias bomb (gigabytes, then killed); 171
    // needs the network.
    let skip = ["135-alias-bomb", "171-error-remote-url-resource"];
    let mut diffs = Vec::new();
    let mut ran = 0;
    for c in cases() {
        if skip.iter().any(|s| c.name.starts_with(&s[..4])) || known(&c.name) {
            continue;
        }
        let mut cmd = Command::new("timeout");
        cmd.arg("20")
            .arg("kubectl")
            .arg("kustomize")
            .arg(&c.build_dir)
            .args(&c.flags);
        // kustomize v5.5.0 runs only Helm v3: the charts' cases need
        // KUSTOMIZE_HELM to name one.
        if c.opts.enable_helm {
            match std::env::var_os("KUSTOMIZE_HELM") {
                Some(h) => {
                    cmd.arg("--helm-command").arg(h);
                }
                None => continue,
            }
        }
        let out = cmd.output().expect("run kubectl");
        ran += 1;
        let theirs = out
            .status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned());
        let ours = build_dir(&c.build_dir, &c.opts).ok();
        if theirs != ours {
            diffs.push(c.name.clone());
        }
    }
    eprintln!("differential: {ran} cases run against live kubectl");
    assert!(
        diffs.is_empty(),
        "flate and live kubectl differ on: {diffs:?}"
    );
}
