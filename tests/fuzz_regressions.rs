//! Inputs the fuzz targets (fuzz/) once failed on, replayed with the same
//! properties: fixtures/fuzz/TARGET/NAME holds one input each.

use std::path::{Path, PathBuf};

use flate::yaml::Node;

fn inputs(target: &str) -> Vec<(PathBuf, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/fuzz")
        .join(target);
    let mut v: Vec<(PathBuf, String)> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.is_file() && p.extension().is_none_or(|e| e != "md"))
                .map(|p| {
                    let bytes = std::fs::read(&p).unwrap();
                    (p, String::from_utf8_lossy(&bytes).into_owned())
                })
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// The writer's output parses and prints the same again.
fn assert_print_stable(nodes: &[Node], what: &str) {
    let out = flate::yaml::stream_to_string(nodes.iter());
    let again = match flate::yaml::parse_stream(&out) {
        Ok(d) => d,
        Err(e) => panic!("{what}: printed YAML does not parse ({e}):\n{out}"),
    };
    let again: Vec<_> = again.into_iter().map(|d| d.node).collect();
    let out2 = flate::yaml::stream_to_string(again.iter());
    // go-yaml (and so kustomize, which flate's writer matches byte for
    // byte) reads U+0085, U+2028 and U+2029 as line breaks in some
    // scalars, so text holding them may change on every round trip.
    if !out.contains(['\u{85}', '\u{2028}', '\u{2029}']) {
        assert_eq!(out, out2, "{what}: printing is not stable");
    }
}

pub fn yaml_roundtrip(text: &str, what: &str) {
    let _ = flate::yaml::parse::parse_stream_json_keys(text);
    if let Ok(docs) = flate::yaml::parse_stream(text) {
        let nodes: Vec<_> = docs.into_iter().map(|d| d.node).collect();
        assert_print_stable(&nodes, what);
    }
}

#[test]
fn yaml_roundtrip_regressions() {
    for (p, text) in inputs("yaml_roundtrip") {
        yaml_roundtrip(&text, &p.display().to_string());
    }
}

/// Every YAML file of the fixtures satisfies the round-trip property (the
/// fuzzer's seeds).
#[test]
#[ignore = "slow; the fuzz seeds"]
fn yaml_roundtrip_on_every_fixture() {
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures"),
        &mut files,
    );
    let mut bad = Vec::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        if std::panic::catch_unwind(|| yaml_roundtrip(&text, "")).is_err() {
            bad.push(f);
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}
