//! schemas/talos-spec.schema.json against the specs: the example specs and
//! the fixtures validate, typos do not. A small validator for the subset of
//! JSON Schema the file uses keeps this test free of extra dependencies.

use std::path::{Path, PathBuf};

use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn schema() -> Value {
    serde_json::from_str(
        &std::fs::read_to_string(root().join("schemas/talos-spec.schema.json")).unwrap(),
    )
    .unwrap()
}

fn spec_json(path: &Path) -> Value {
    flate::yaml::parse_one(&std::fs::read_to_string(path).unwrap())
        .unwrap()
        .to_json()
}

fn validate(s: &Value, v: &Value, path: &str, errs: &mut Vec<String>) {
    let o = s.as_object().expect("schema object");
    if let Some(c) = o.get("const")
        && c != v
    {
        errs.push(format!("{path}: expected {c}"));
    }
    if let Some(all) = o.get("allOf") {
        for sub in all.as_array().unwrap() {
            validate(sub, v, path, errs);
        }
    }
    if let Some(t) = o.get("type").and_then(Value::as_str) {
        let ok = match t {
            "object" => v.is_object(),
            "array" => v.is_array(),
            "string" => v.is_string(),
            "integer" => v.is_i64() || v.is_u64(),
            "boolean" => v.is_boolean(),
            other => panic!("type {other} not supported by the test validator"),
        };
        if !ok {
            errs.push(format!("{path}: not a {t}"));
            return;
        }
    }
    if let Some(s) = v.as_str() {
        if let Some(p) = o.get("pattern").and_then(Value::as_str)
            && !regex::Regex::new(p).unwrap().is_match(s)
        {
            errs.push(format!("{path}: {s:?} does not match {p}"));
        }
        if let Some(n) = o.get("minLength").and_then(Value::as_u64)
            && (s.chars().count() as u64) < n
        {
            errs.push(format!("{path}: shorter than {n}"));
        }
    }
    if let Some(n) = v.as_i64() {
        if let Some(min) = o.get("minimum").and_then(Value::as_i64)
            && n < min
        {
            errs.push(format!("{path}: below {min}"));
        }
        if let Some(max) = o.get("maximum").and_then(Value::as_i64)
            && n > max
        {
            errs.push(format!("{path}: above {max}"));
        }
    }
    if let Some(a) = v.as_array() {
        if let Some(n) = o.get("minItems").and_then(Value::as_u64)
            && (a.len() as u64) < n
        {
            errs.push(format!("{path}: fewer than {n} items"));
        }
        if o.get("uniqueItems") == Some(&Value::Bool(true)) {
            for (i, x) in a.iter().enumerate() {
                if a[..i].contains(x) {
                    errs.push(format!("{path}[{i}]: duplicate"));
                }
            }
        }
        if let Some(items) = o.get("items") {
            for (i, x) in a.iter().enumerate() {
                validate(items, x, &format!("{path}[{i}]"), errs);
            }
        }
    }
    if let Some(m) = v.as_object() {
        let props = o.get("properties").and_then(Value::as_object);
        if let Some(req) = o.get("required").and_then(Value::as_array) {
            for r in req {
                if !m.contains_key(r.as_str().unwrap()) {
                    errs.push(format!("{path}: missing {r}"));
                }
            }
        }
        if let Some(n) = o.get("minProperties").and_then(Value::as_u64)
            && (m.len() as u64) < n
        {
            errs.push(format!("{path}: fewer than {n} properties"));
        }
        for (k, x) in m {
            let sub = format!("{path}.{k}");
            match props.and_then(|p| p.get(k)) {
                Some(ps) => validate(ps, x, &sub, errs),
                None => match o.get("additionalProperties") {
                    Some(Value::Bool(false)) => errs.push(format!("{sub}: not allowed")),
                    Some(ap @ Value::Object(_)) => validate(ap, x, &sub, errs),
                    _ => {}
                },
            }
        }
    }
}

fn errors(v: &Value) -> Vec<String> {
    let mut e = Vec::new();
    validate(&schema(), v, "$", &mut e);
    e
}

#[test]
fn specs_validate_against_the_schema() {
    for p in [
        "kubernetes/clusters/staging/talos.yaml",
        "kubernetes/clusters/production/talos.yaml",
        "fixtures/talos/base.yaml",
        "fixtures/talos/full.yaml",
    ] {
        let path = root().join(p);
        assert_eq!(errors(&spec_json(&path)), Vec::<String>::new(), "{p}");
        // ... and the typed model agrees.
        flate::talos::load(&path).unwrap_or_else(|e| panic!("{p}: {e}"));
    }
}

#[test]
fn schema_rejects_what_the_model_rejects() {
    let mut v = spec_json(&root().join("fixtures/talos/full.yaml"));
    v["workers"][0]["privateNIC"] = Value::from("eno2");
    v["network"]["envoyNodePort"] = Value::from(80);
    v["controlPlanes"][0]
        .as_object_mut()
        .unwrap()
        .remove("privateIp");
    v["platforms"]["metal"]["systemExtensions"] = serde_json::json!(["netbird"]);
    let e = errors(&v);
    for want in [
        "$.workers[0].privateNIC: not allowed",
        "$.network.envoyNodePort: below 30000",
        "$.controlPlanes[0]: missing \"privateIp\"",
        "$.platforms.metal.systemExtensions[0]: \"netbird\" does not match",
    ] {
        assert!(
            e.iter().any(|x| x.starts_with(want)),
            "{want} not in {e:#?}"
        );
    }
}
