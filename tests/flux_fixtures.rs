//! Every case under fixtures/flux/ is rendered with flate and compared with
//! the output of tools/flux_reference.py, which renders each Flux
//! Kustomization with the real kustomize (`kubectl kustomize`) and applies
//! Flux's substitution (see fixtures/flux/README.md).

use std::path::{Path, PathBuf};

use flate::flux::{RenderOptions, Status, render};
use flate::fs::RealFs;

/// Cases where flate knowingly differs from the reference, with the reason.
/// The test checks they still differ, so a fix shows up here.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[];

fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/flux");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("fixtures/flux")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("entry").is_file())
        .collect();
    v.sort();
    v
}

fn check_case(dir: &Path) -> Result<(), String> {
    let entry = std::fs::read_to_string(dir.join("entry")).map_err(|e| e.to_string())?;
    let entry = entry.trim();
    let status: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("expected/status.json")).map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    let repo = dir.join("repo");
    let r = render(&RealFs, &repo, entry, "test", &RenderOptions::default())
        .map_err(|e| format!("render failed: {e}"))?;
    let got_order: Vec<String> = r.kustomizations.iter().map(|k| k.key()).collect();
    let want_order: Vec<String> = status["order"]
        .as_array()
        .ok_or("status.json has no order")?
        .iter()
        .map(|v| v.as_str().unwrap_or_default().to_string())
        .collect();
    let mut problems = Vec::new();
    if got_order != want_order {
        problems.push(format!("order: got {got_order:?}, want {want_order:?}"));
    }
    for k in &r.kustomizations {
        let key = k.key();
        let Some(want) = status["kustomizations"].get(&key) else {
            continue;
        };
        let want_status = want["status"].as_str().unwrap_or_default();
        if k.status.as_str() != want_status {
            problems.push(format!(
                "{key}: status {} ({}), want {want_status} ({})",
                k.status.as_str(),
                k.message,
                want["message"].as_str().unwrap_or_default()
            ));
            continue;
        }
        let contains = want["message_contains"].as_str().unwrap_or_default();
        if !k.message.contains(contains) {
            problems.push(format!(
                "{key}: message {:?} does not contain {contains:?}",
                k.message
            ));
        }
        if k.status == Status::Rendered {
            let file = dir.join("expected").join(flate::output::file_name(k));
            let want_text = std::fs::read_to_string(&file).unwrap_or_default();
            let got_text = flate::output::ks_stream(k, true);
            if got_text != want_text {
                let diff = similar_lines(&want_text, &got_text);
                problems.push(format!(
                    "{key}: objects differ from {}:\n{diff}",
                    file.display()
                ));
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// The first differing lines, for the failure message.
fn similar_lines(want: &str, got: &str) -> String {
    let w: Vec<&str> = want.lines().collect();
    let g: Vec<&str> = got.lines().collect();
    let i = w
        .iter()
        .zip(g.iter())
        .position(|(a, b)| a != b)
        .unwrap_or(w.len().min(g.len()));
    let show = |v: &[&str]| {
        v.iter()
            .skip(i.saturating_sub(2))
            .take(6)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n    ")
    };
    format!(
        "  line {}:\n  want:\n    {}\n  got:\n    {}",
        i + 1,
        show(&w),
        show(&g)
    )
}

#[test]
fn flux_fixtures_match_the_reference_render() {
    let cases = cases();
    assert!(cases.len() >= 20, "only {} flux fixture cases", cases.len());
    let mut failures = Vec::new();
    for c in &cases {
        let name = c.file_name().unwrap().to_string_lossy().into_owned();
        let known = KNOWN_DIFFERENCES.iter().any(|(n, _)| *n == name);
        match (check_case(c), known) {
            (Ok(()), false) | (Err(_), true) => {}
            (Ok(()), true) => failures.push(format!(
                "{name}: listed in KNOWN_DIFFERENCES but now matches"
            )),
            (Err(e), false) => failures.push(format!("{name}:\n{e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}
