//! No secret value reaches any output unless `--show-secrets` is given.
//!
//! `fixtures/secrets/repo` seeds known strings (all starting with `SEED`)
//! into every place a secret can come from (see its README). Every output
//! of every command (standard output, standard error, files written) is
//! searched for them, plainly and base64-encoded.

mod common;

use std::path::Path;
use std::process::Output;

use base64::Engine;

const SEEDS: &[&str] = &[
    "SEEDdataB64",
    "SEEDstringData",
    "SEEDplainInData!",
    "SEEDgenLiteral",
    "SEEDgenFile",
    "SEEDgenEnv",
    "SEEDvaluesData",
    "SEEDvaluesString",
    "SEEDsubstInHr",
    "SEEDreplaced",
];

fn b64(s: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(s)
}

/// A git repository whose HEAD is the fixture with every seed renamed
/// (`SEEDbase…`) and whose working tree is the fixture itself: the base
/// and head of `flate diff` and `flate pins --base`.
fn repo(name: &str) -> common::Scratch {
    let d = common::scratch(&format!("secrets-{name}"));
    let fixture = common::root().join("fixtures/secrets/repo");
    common::copy_dir(&fixture, &d);
    rewrite(&d, &|s| s.replace("SEED", "SEEDbase"));
    common::git(&d, &["init", "-q"]);
    common::git(&d, &["add", "-A"]);
    common::git(&d, &["commit", "-q", "-m", "base"]);
    std::fs::remove_dir_all(d.join("kubernetes")).unwrap();
    common::copy_dir(&fixture.join("kubernetes"), &d.join("kubernetes"));
    d
}

fn rewrite(dir: &Path, f: &dyn Fn(&str) -> String) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rewrite(&p, f);
        } else if let Ok(s) = std::fs::read_to_string(&p) {
            std::fs::write(&p, f(&s)).unwrap();
        }
    }
}

/// Every secret-looking string in `text`: a seed, or one base64-encoded.
fn leaks(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for s in SEEDS {
        for form in [s.to_string(), b64(s), format!("SEEDbase{}", &s[4..])] {
            if text.contains(&form) {
                found.push(form);
            }
        }
    }
    // Any seed base64-encoded at an offset that is a multiple of 3 in a
    // longer value (values.yaml) starts with the encoding of "SEED".
    if text.contains(&b64("SEED")[..5]) {
        found.push(b64("SEED")[..5].to_string());
    }
    found
}

fn all_output(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn flate(repo: &Path, args: &[&str]) -> String {
    all_output(&common::flate_in(args, repo))
}

#[test]
fn no_command_prints_a_secret() {
    let r = repo("all");
    let out_dir = r.join("out");
    let mut outputs: Vec<(String, String)> = Vec::new();
    let mut run = |args: &[&str]| {
        let text = flate(&r, args);
        outputs.push((args.join(" "), text));
    };
    run(&["build", "test"]);
    run(&["build", "test", "-o", "json"]);
    run(&["build", "test", "--out-dir", out_dir.to_str().unwrap()]);
    run(&["build", "hr", "test"]);
    run(&["build", "hr", "test", "-o", "json"]);
    run(&["build", "hr", "test", "app"]);
    for what in ["ks", "hr", "sources"] {
        run(&["get", what, "test"]);
        run(&["get", what, "test", "-o", "json"]);
    }
    run(&["test", "all", "test"]);
    run(&["test", "hr", "test"]);
    for o in ["unified", "markdown", "json"] {
        run(&["diff", "test", "--base", "HEAD", "-o", o]);
    }
    for o in ["text", "json", "sarif"] {
        run(&["check", "-o", o]);
    }
    run(&["pins", "test"]);
    run(&["pins", "test", "-o", "json"]);
    run(&["pins", "test", "--base", "HEAD"]);
    let mut files = Vec::new();
    for e in std::fs::read_dir(&out_dir).unwrap() {
        let p = e.unwrap().path();
        files.push((
            p.display().to_string(),
            std::fs::read_to_string(&p).unwrap(),
        ));
    }
    assert!(!files.is_empty(), "--out-dir wrote nothing");
    outputs.extend(files);

    let mut bad = Vec::new();
    for (what, text) in &outputs {
        let l = leaks(text);
        if !l.is_empty() {
            bad.push(format!("{what}: {l:?}"));
        }
    }
    assert!(bad.is_empty(), "secrets printed:\n{}", bad.join("\n"));

    // The diff shows that secret values changed without showing them.
    let diff = &outputs
        .iter()
        .find(|(w, _)| w == "diff test --base HEAD -o unified")
        .unwrap()
        .1;
    assert!(diff.contains("<redacted: changed>"), "{diff}");
}

#[test]
fn secret_values_land_redacted_where_they_are_used() {
    let r = repo("where");
    let yaml = flate(&r, &["build", "test"]);
    // A value substituted from a Secret into a ConfigMap, alone or inside
    // other text, and into a HelmRelease's values.
    for line in [
        "  token: '**redacted**'",
        "  embedded: '**redacted**'",
        "    fromSubst: '**redacted**'",
        // Not secret: printed.
        "  plain: not-a-secret",
        "    replicas: 2",
    ] {
        assert!(yaml.contains(line), "{line:?} missing in:\n{yaml}");
    }
    let hr = flate(&r, &["build", "hr", "test"]);
    for line in [
        "      token: '**redacted**'",
        "      password: '**redacted**'",
        "    fromSubst: '**redacted**'",
        "    replicas: 2",
    ] {
        assert!(hr.contains(line), "{line:?} missing in:\n{hr}");
    }
}

#[test]
fn show_secrets_prints_them() {
    let r = repo("show");
    let yaml = flate(&r, &["build", "test", "--show-secrets"]);
    for s in [
        "SEEDdataB64",
        "SEEDstringData",
        "SEEDsubstInHr",
        "SEEDvaluesString",
    ] {
        assert!(yaml.contains(s), "{s} missing in:\n{yaml}");
    }
    let json = flate(&r, &["build", "test", "-o", "json", "--show-secrets"]);
    for s in ["SEEDvaluesData", "SEEDvaluesString", "SEEDsubstInHr"] {
        assert!(json.contains(s), "{s} missing in:\n{json}");
    }
    let hr = flate(&r, &["build", "hr", "test", "--show-secrets"]);
    assert!(hr.contains("token: SEEDvaluesData"), "{hr}");
}
