//! The chart engine's own cases, fixtures/helm/core-*/: small charts of
//! this project rendered with `flate helm template chart --name RELEASE
//! ARGS...` in the case directory, compared byte for byte with what Helm
//! (v4.1.4) printed for `helm template RELEASE chart ARGS...`, recorded by
//! tools/record_helm_core.py (expected.yaml: standard output;
//! expected-error.txt: Helm's error message, which must be flate's
//! standard error after `Error: `). A second test re-runs Helm live on
//! every case when `helm` is on PATH or FLATE_HELM names it.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::helm::{Case, flate, helm, helm_binary};

/// The `core-*` cases; each names its release with `--name`.
fn cases() -> Vec<Case> {
    let cases = common::helm::cases("core-");
    for c in &cases {
        assert!(c.release.is_some(), "{}/args: no --name", c.name);
    }
    cases
}

/// Helm's error message in a standard error text: after `Error: `,
/// without the `--debug` hint.
fn error_message(stderr: &[u8]) -> String {
    let s = String::from_utf8_lossy(stderr);
    let s = match s.find("Error: ") {
        Some(i) => &s[i + "Error: ".len()..],
        None => &s,
    };
    let s = s.trim_end_matches('\n');
    s.strip_suffix("\n\nUse --debug flag to render out invalid YAML")
        .unwrap_or(s)
        .to_string()
}

fn outcome(out: &Output) -> Result<String, String> {
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(error_message(&out.stderr))
    }
}

#[test]
fn core_charts_match_recorded_helm_output() {
    let cases = cases();
    assert!(cases.len() >= 5, "core cases missing");
    let mut failed = Vec::new();
    for c in &cases {
        let out = flate(c);
        let got = outcome(&out);
        if got != c.expected {
            failed.push(format!(
                "== {}\n-- expected\n{:?}\n-- flate (exit {:?})\n{:?}",
                c.name,
                c.expected,
                out.status.code(),
                got
            ));
        } else if got.is_err() {
            assert_eq!(out.status.code(), Some(1), "{}: exit code", c.name);
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn core_charts_match_live_helm() {
    let Some(bin) = helm_binary() else {
        println!("SKIPPED: helm not on PATH (set FLATE_HELM)");
        return;
    };
    let home = tempfile::tempdir().unwrap();
    for c in cases() {
        let live = outcome(&helm(&bin, &c, home.path()));
        assert_eq!(
            live, c.expected,
            "{}: recording differs from live helm",
            c.name
        );
        assert_eq!(
            outcome(&flate(&c)),
            live,
            "{}: flate differs from live helm",
            c.name
        );
    }
}

/// Renders one chart as many releases in parallel (rayon) from one loaded
/// chart, as the Flux render does, and prints the time taken. Run with
/// `cargo test --release --test helm_core -- --ignored --nocapture`;
/// FLATE_BENCH_CHART names another chart directory, FLATE_BENCH_N the
/// number of releases (default 80).
#[test]
#[ignore]
fn many_releases_of_one_chart() {
    use flate::helm::chart::{self, RenderOptions};
    use rayon::prelude::*;
    let dir = std::env::var("FLATE_BENCH_CHART").map_or_else(
        |_| Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/helm/core-basic/chart"),
        PathBuf::from,
    );
    let n: usize = std::env::var("FLATE_BENCH_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(80);
    let start = std::time::Instant::now();
    let ch = chart::load(&dir).expect("load");
    let loaded = start.elapsed();
    let outs: Vec<usize> = (0..n)
        .into_par_iter()
        .map(|i| {
            let opts = RenderOptions {
                release_name: format!("rel-{i}"),
                namespace: format!("ns-{i}"),
                ..Default::default()
            };
            chart::print_template(&chart::render(&ch, &opts).expect("render")).len()
        })
        .collect();
    let total = start.elapsed();
    assert_eq!(outs.len(), n);
    println!(
        "{}: load {:?}, {n} releases rendered in {:?} ({:?} each on average, {} threads)",
        dir.display(),
        loaded,
        total - loaded,
        (total - loaded) / n as u32,
        rayon::current_num_threads()
    );
}
