//! CustomResourceDefinitions as JSON Schemas: one standalone draft 2020-12
//! schema per served version, as `flate schemas import` writes them and as
//! `flate check` uses the CRDs an environment renders.
//!
//! The OpenAPI v3 subset of a CRD becomes JSON Schema the way kubeconform's
//! `openapi2jsonschema` treats it in strict mode: `nullable` adds `null`
//! to the type, `x-kubernetes-int-or-string` accepts an integer or a
//! string, OpenAPI's boolean `exclusiveMinimum`/`exclusiveMaximum` become
//! numbers, and an object with `properties` accepts no other property
//! unless it has `x-kubernetes-preserve-unknown-fields`. `apiVersion` and
//! `kind` are fixed, `metadata` is the Kubernetes ObjectMeta. CEL rules
//! (`x-kubernetes-validations`) are not evaluated.

use serde_json::{Map, Value, json};

use crate::yaml::Node;

/// One served version of a CRD.
#[derive(Debug, Clone)]
pub struct CrdSchema {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub schema: Value,
}

impl CrdSchema {
    pub fn api_version(&self) -> String {
        format!("{}/{}", self.group, self.version)
    }
    /// `{group}/{kind}_{version}.json`, the CRDs-catalog layout.
    pub fn file_name(&self) -> String {
        format!(
            "{}/{}_{}.json",
            self.group,
            self.kind.to_lowercase(),
            self.version
        )
    }
}

const OBJECT_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

fn convert(v: &mut Value) {
    let Value::Object(m) = v else { return };
    if m.remove("x-kubernetes-int-or-string") == Some(Value::Bool(true)) {
        m.remove("type");
        m.remove("format");
        m.insert("type".into(), json!(["integer", "string"]));
    }
    if m.remove("nullable") == Some(Value::Bool(true)) {
        match m.get_mut("type") {
            Some(Value::String(t)) => {
                let t = t.clone();
                m.insert("type".into(), json!([t, "null"]));
            }
            Some(Value::Array(a)) if !a.contains(&json!("null")) => a.push(json!("null")),
            _ => {}
        }
        if let Some(Value::Array(e)) = m.get_mut("enum")
            && !e.contains(&Value::Null)
        {
            e.push(Value::Null);
        }
    }
    for (bound, excl) in [
        ("minimum", "exclusiveMinimum"),
        ("maximum", "exclusiveMaximum"),
    ] {
        match m.get(excl) {
            Some(Value::Bool(true)) => {
                let b = m.remove(bound);
                m.remove(excl);
                if let Some(b) = b {
                    m.insert(excl.into(), b);
                }
            }
            Some(Value::Bool(false)) => {
                m.remove(excl);
            }
            _ => {}
        }
    }
    m.remove("x-kubernetes-validations");
    // The API server fills a missing field in from its `default` before it
    // validates (structural defaulting): a required field with a default
    // may be left out (a `verify.provider` of `cosign`).
    let defaulted: Vec<String> = match m.get("properties") {
        Some(Value::Object(props)) => props
            .iter()
            .filter(|(_, p)| p.get("default").is_some())
            .map(|(k, _)| k.clone())
            .collect(),
        _ => Vec::new(),
    };
    if !defaulted.is_empty()
        && let Some(Value::Array(req)) = m.get_mut("required")
    {
        req.retain(|r| !r.as_str().is_some_and(|r| defaulted.iter().any(|d| d == r)));
        if req.is_empty() {
            m.remove("required");
        }
    }
    let preserve = m.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true));
    if m.contains_key("properties") && !m.contains_key("additionalProperties") && !preserve {
        m.insert("additionalProperties".into(), Value::Bool(false));
    }
    for (k, child) in m.iter_mut() {
        match k.as_str() {
            "properties" | "patternProperties" | "definitions" | "$defs" => {
                if let Value::Object(props) = child {
                    props.values_mut().for_each(convert);
                }
            }
            "items" | "additionalProperties" | "not" | "additionalItems" => convert(child),
            "allOf" | "anyOf" | "oneOf" => {
                if let Value::Array(a) = child {
                    a.iter_mut().for_each(convert);
                }
            }
            _ => {}
        }
    }
}

/// A standalone schema for one version: `openapi` is its
/// `openAPIV3Schema` (None: anything goes); `defs` the Kubernetes
/// definitions ObjectMeta is taken from.
pub fn version_schema(
    group: &str,
    version: &str,
    kind: &str,
    openapi: Option<&Value>,
    defs: &Map<String, Value>,
) -> Value {
    let mut s = openapi
        .cloned()
        .unwrap_or_else(|| json!({"type": "object"}));
    convert(&mut s);
    let m = match &mut s {
        Value::Object(m) => m,
        _ => unreachable!("converted from an object"),
    };
    m.insert(
        "$schema".into(),
        json!("https://json-schema.org/draft/2020-12/schema"),
    );
    m.insert("title".into(), json!(format!("{kind} {group}/{version}")));
    let props = m
        .entry("properties")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .expect("properties is an object");
    props.insert(
        "apiVersion".into(),
        json!({"const": format!("{group}/{version}")}),
    );
    props.insert("kind".into(), json!({"const": kind}));
    let mut needed = std::collections::BTreeSet::new();
    if defs.contains_key(OBJECT_META) {
        props.insert(
            "metadata".into(),
            json!({"$ref": format!("#/$defs/{OBJECT_META}")}),
        );
        closure(defs, OBJECT_META, &mut needed);
    } else {
        props.insert("metadata".into(), json!({"type": "object"}));
    }
    if !needed.is_empty() {
        let d = m
            .entry("$defs")
            .or_insert_with(|| json!({}))
            .as_object_mut()
            .expect("$defs is an object");
        for n in needed {
            d.insert(n.clone(), defs[&n].clone());
        }
    }
    s
}

fn refs(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            if let Some(n) = m
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/$defs/"))
            {
                out.push(n.to_string());
            }
            m.values().for_each(|x| refs(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
        _ => {}
    }
}

fn closure(defs: &Map<String, Value>, name: &str, seen: &mut std::collections::BTreeSet<String>) {
    if !seen.insert(name.to_string()) {
        return;
    }
    let Some(d) = defs.get(name) else { return };
    let mut found = Vec::new();
    refs(d, &mut found);
    for f in found {
        closure(defs, &f, seen);
    }
}

/// The schemas of every served version of `crd`.
pub fn from_crd(crd: &Node) -> Result<Vec<CrdSchema>, String> {
    match super::schema::kubernetes() {
        Ok(k) => from_crd_with(crd, &k.defs),
        Err(_) => from_crd_with(crd, &Map::new()),
    }
}

/// [`from_crd`] with the Kubernetes definitions given.
pub fn from_crd_with(crd: &Node, defs: &Map<String, Value>) -> Result<Vec<CrdSchema>, String> {
    let s = |p: &[&str]| crd.get_str(p).unwrap_or("").to_string();
    if crd.get_str(&["kind"]) != Some("CustomResourceDefinition") {
        return Err("not a CustomResourceDefinition".into());
    }
    let name = s(&["metadata", "name"]);
    let group = s(&["spec", "group"]);
    let kind = s(&["spec", "names", "kind"]);
    if group.is_empty() || kind.is_empty() {
        return Err(format!(
            "CustomResourceDefinition {name}: spec.group and spec.names.kind are required"
        ));
    }
    // apiextensions.k8s.io/v1beta1 kept one schema for all versions.
    let shared = crd
        .get_path(&["spec", "validation", "openAPIV3Schema"])
        .map(Node::to_json);
    let mut out = Vec::new();
    match crd.get_path(&["spec", "versions"]) {
        Some(Node::Seq(versions)) => {
            for v in versions {
                if v.get("served").and_then(Node::as_bool) == Some(false) {
                    continue;
                }
                let version = v.get_str(&["name"]).unwrap_or("").to_string();
                if version.is_empty() {
                    continue;
                }
                let openapi = v
                    .get_path(&["schema", "openAPIV3Schema"])
                    .map(Node::to_json)
                    .or_else(|| shared.clone());
                out.push(CrdSchema {
                    schema: version_schema(&group, &version, &kind, openapi.as_ref(), defs),
                    group: group.clone(),
                    version,
                    kind: kind.clone(),
                });
            }
        }
        _ => {
            let version = s(&["spec", "version"]);
            if !version.is_empty() {
                out.push(CrdSchema {
                    schema: version_schema(&group, &version, &kind, shared.as_ref(), defs),
                    group: group.clone(),
                    version,
                    kind: kind.clone(),
                });
            }
        }
    }
    if out.is_empty() {
        return Err(format!(
            "CustomResourceDefinition {name}: no served version"
        ));
    }
    Ok(out)
}
