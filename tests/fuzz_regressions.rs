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
    // Read back as the writer quotes for: go-yaml v2's rules (kustomize's
    // output). Under v3's, some strings it leaves plain read as numbers
    // (`0o-7` is -7), in kustomize's output as in flate's.
    let again = match flate::yaml::parse::parse_stream_with(&out, flate::yaml::resolve::Schema::V2)
    {
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
    if let Some(m) = flate::yaml::fast::mismatch(text) {
        panic!("{what}: quick reader and event parser disagree: {m}");
    }
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

/// The `template` target's property without its filter: a template (and
/// after a `#%%` line its values) parses and runs with Helm's functions
/// on a thread with a 2 MiB stack, ending with output or an error.
fn template_case(text: &str) -> Result<String, String> {
    let text = text.to_string();
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            use flate::template::{Templates, Value};
            use std::collections::BTreeMap;
            let (tpl, values) = text.split_once("\n#%%\n").unwrap_or((&text, ""));
            let values = match flate::yaml::parse_one(values).unwrap() {
                Node::Map(m) => m
                    .iter()
                    .map(|(k, v)| (k.clone(), Value::Str(v.scalar_text().unwrap_or_default())))
                    .collect(),
                _ => BTreeMap::new(),
            };
            let data = Value::map(BTreeMap::from([(
                "Values".into(),
                Value::Map(values.into()),
            )]));
            let mut t = Templates::new();
            t.name = "gotpl".into();
            flate::helm::funcs::add_funcs(&mut t);
            let name = "c/templates/t.yaml";
            t.parse(name, tpl)
                .and_then(|()| t.execute(name, &data))
                .map_err(|e| flate::helm::error_text(&e))
        })
        .unwrap()
        .join()
        .expect("template case panicked")
}

#[test]
fn template_regressions() {
    let cases = inputs("template");
    assert!(cases.len() >= 5);
    for (p, text) in cases {
        let err = template_case(&text).expect_err(&p.display().to_string());
        let depth = format!(
            "exceeded maximum template depth ({})",
            flate::template::exec::MAX_DEPTH
        );
        let sets = format!(
            "exceeded maximum template depth ({})",
            flate::template::exec::MAX_NESTED_SETS
        );
        assert!(
            err.contains(&depth)
                || err.contains(&sets)
                || err.contains("rendering template has a nested reference name")
                || err.contains("nest deeper than the limit of 100 levels"),
            "{}: {}",
            p.display(),
            &err[err.len().saturating_sub(300)..]
        );
    }
}
