//! Every case under fixtures/template/ runs through flate's Go-template
//! engine and is compared byte for byte with the output recorded from Helm
//! (v4.1.4) by tools/record_template_fixtures.py. A second test re-runs
//! Helm live on every case when `helm` is on PATH.
//!
//! The data is what Helm gives a template: `{"Values": <values.yaml>}`,
//! with every YAML number decoded as float64 (Helm reads values through
//! JSON). Success cases are recorded through `include` of a partial, so
//! the expected text is exactly the template's output (no trimming, no
//! `<no value>` replacement). Error cases compare with the error text Helm
//! prints, which Helm derives from Go's message (`flate::helm::error_text`).
//! Cases named `NNN-helm-*` use the Helm/Sprig functions of `flate::helm::funcs`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine as _;
use flate::template::{Templates, Value};

/// Cases where flate is known to differ from Helm, with the reason. The
/// tests check that these still differ, so a fix shows up here.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[(
    "501-helm-gensignedcert-bad-ca",
    "Sprig's certificates are a struct type, which Go checks before the call; flate's are maps with Cert and Key",
)];

struct Case {
    name: String,
    template: String,
    values: String,
    expected: Result<String, String>,
}

fn cases() -> Vec<Case> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/template");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("fixtures/template")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("template.tpl").is_file())
        .collect();
    dirs.sort();
    dirs.into_iter()
        .map(|d| {
            let name = d.file_name().unwrap().to_string_lossy().into_owned();
            let read = |f: &str| std::fs::read_to_string(d.join(f));
            let expected = match (read("expected.txt"), read("expected-error.txt")) {
                (Ok(s), _) => Ok(s),
                (_, Ok(e)) => Err(e.trim_end_matches('\n').to_string()),
                _ => panic!("{name}: neither expected.txt nor expected-error.txt"),
            };
            Case {
                template: read("template.tpl").unwrap(),
                values: read("values.yaml").unwrap_or_default(),
                name,
                expected,
            }
        })
        .collect()
}

fn run_flate(c: &Case) -> Result<String, String> {
    // Read as Helm reads a chart's values.yaml, and typed as Helm's
    // `Values`, as `.Values` is in a chart.
    let values = match flate::helm::chart::load_values(&c.values)? {
        Value::Map(m) => Value::Map(m.as_helm_values()),
        _ => Value::Map(flate::template::Map::default().as_helm_values()),
    };
    let data = Value::map(BTreeMap::from([("Values".to_string(), values)]));
    // Helm names a template by its path in the chart; error cases are
    // recorded as templates/t.yaml, success cases as the partial _t.tpl.
    let name = if c.expected.is_ok() {
        "c/templates/_t.tpl"
    } else {
        "c/templates/t.yaml"
    };
    let mut t = Templates::new();
    t.name = "gotpl".into();
    flate::helm::funcs::add_funcs(&mut t);
    t.parse(name, &c.template)
        .and_then(|()| t.execute(name, &data))
        .map_err(|e| flate::helm::error_text(&e))
}

fn known(name: &str) -> bool {
    KNOWN_DIFFERENCES.iter().any(|(n, _)| *n == name)
}

#[test]
fn template_fixtures_match_recorded_helm_output() {
    let cases = cases();
    assert!(cases.len() >= 100, "only {} fixture cases", cases.len());
    let mut failures = Vec::new();
    let mut passed = 0;
    for c in &cases {
        let got = run_flate(c);
        let ok = got == c.expected;
        if ok {
            passed += 1;
        }
        if ok == known(&c.name) {
            failures.push(format!(
                "{}: {}\n  want {:?}\n  got  {:?}",
                c.name,
                if ok {
                    "now matches (remove from KNOWN_DIFFERENCES)"
                } else {
                    "differs"
                },
                c.expected,
                got
            ));
        }
    }
    println!(
        "template conformance: {passed}/{} cases match Helm",
        cases.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Runs one case through Helm the way the recorder does; None when Helm
/// cannot be run.
fn run_helm(helm: &Path, c: &Case) -> Option<Result<String, String>> {
    let tmp = tempfile::tempdir().ok()?;
    let chart = tmp.path().join("c");
    std::fs::create_dir_all(chart.join("templates")).ok()?;
    std::fs::write(
        chart.join("Chart.yaml"),
        "apiVersion: v2\nname: c\nversion: 0.1.0\n",
    )
    .ok()?;
    std::fs::write(chart.join("values.yaml"), &c.values).ok()?;
    let render = || {
        Command::new(helm)
            .args(["template", "x"])
            .arg(&chart)
            .args(["--show-only", "templates/t.yaml"])
            .output()
            .ok()
    };
    std::fs::write(chart.join("templates/_t.tpl"), &c.template).ok()?;
    std::fs::write(
        chart.join("templates/t.yaml"),
        "out: {{ include \"c/templates/_t.tpl\" . | b64enc | quote }}\n",
    )
    .ok()?;
    let out = render()?;
    if out.status.success() {
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let line = text.lines().find_map(|l| l.strip_prefix("out: \""))?;
        let b = base64::engine::general_purpose::STANDARD
            .decode(line.trim_end_matches('"'))
            .ok()?;
        return Some(Ok(String::from_utf8_lossy(&b).into_owned()));
    }
    std::fs::remove_file(chart.join("templates/_t.tpl")).ok()?;
    std::fs::write(chart.join("templates/t.yaml"), &c.template).ok()?;
    let out = render()?;
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let err = err
        .trim_end_matches('\n')
        .trim_end_matches("Use --debug flag to render out invalid YAML")
        .trim_end_matches('\n');
    Some(Err(err.strip_prefix("Error: ").unwrap_or(err).to_string()))
}

#[test]
fn template_fixtures_match_live_helm() {
    let Some(helm) = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join("helm"))
            .find(|p| p.is_file())
    }) else {
        println!("SKIPPED: helm is not on PATH");
        return;
    };
    let mut failures = Vec::new();
    for c in cases() {
        let Some(live) = run_helm(&helm, &c) else {
            failures.push(format!("{}: could not run helm", c.name));
            continue;
        };
        if live != c.expected {
            failures.push(format!(
                "{}: recorded fixture differs from live helm (re-record with tools/record_template_fixtures.py)",
                c.name
            ));
        }
        if (run_flate(&c) == live) == known(&c.name) {
            failures.push(format!("{}: flate and live helm disagree", c.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
