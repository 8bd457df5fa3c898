//! Writes flate's embedded JSON Schemas (draft 2020-12). Built once per
//! Kubernetes minor version (feature `v1_33` ... `v1_36` of this crate);
//! `tools/gen-schemas.sh` runs it as:
//!
//! * `flate-schemagen version FILE`: every listable built-in kind of the
//!   build's Kubernetes version, from the k8s-openapi crate (the OpenAPI
//!   document of that Kubernetes release, compiled into Rust types)
//!   through schemars, as one bundle: `kinds` maps `apiVersion/kind` to a
//!   definition in `$defs`.
//! * `flate-schemagen finish OUT_DIR BUNDLE...`: merges the version
//!   bundles into `OUT_DIR/kubernetes/kubernetes.json`, where every
//!   definition and kind is stored once per distinct content with the
//!   versions it belongs to (most are the same in every version), and
//!   writes `<group>/<kind>_<version>.json` (the CRDs-catalog layout) for
//!   the Flux kinds and the kustomization files, from flate's own typed
//!   models (`src/check/flux_types.rs`, `src/check/kustomize_types.rs`).
//!
//! Rewrites applied to all of them, the way kubeconform's strict schemas
//! treat the OpenAPI data: descriptions and `x-kubernetes-*` extensions are
//! dropped (except `x-kubernetes-preserve-unknown-fields`), an object with
//! `properties` accepts no other property unless it preserves unknown
//! fields, int-or-string becomes `["integer", "string"]`, a Quantity a
//! number or a string in Kubernetes' quantity syntax, and a `byte` string
//! must be base64. CRD `JSON` values (default, enum, example) accept any
//! JSON value (k8s-openapi types them as objects).
//!
//! The output is deterministic.

#[path = "../../../src/check/flux_types.rs"]
#[allow(dead_code)]
mod flux_types;
#[path = "../../../src/check/kustomize_types.rs"]
#[allow(dead_code)]
mod kustomize_types;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use schemars::generate::{SchemaGenerator, SchemaSettings};
use serde_json::{Map, Value, json};

include!(concat!(env!("OUT_DIR"), "/kinds.rs"));

const K8S_OPENAPI: &str = "k8s-openapi 0.29.0";
const QUANTITY: &str =
    r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)(([KMGTPE]i)|[numkMGTPE]|([eE][+-]?[0-9]+))?$";
const BASE64: &str = r"^[A-Za-z0-9+/\r\n]*={0,2}[\r\n]*$";
const META_SCHEMA: &str = "https://json-schema.org/draft/2020-12/schema";

pub struct Gen {
    generator: SchemaGenerator,
    kinds: BTreeMap<String, String>,
}

fn add<T: k8s_openapi::Resource + schemars::JsonSchema>(g: &mut Gen) {
    g.generator.subschema_for::<T>();
    g.kinds.insert(
        format!("{}/{}", T::API_VERSION, T::KIND),
        T::schema_name().into_owned(),
    );
}

/// The rewrites described at the top, applied recursively.
fn rewrite(v: &mut Value, def_name: Option<&str>) {
    match v {
        Value::Object(m) => {
            m.remove("description");
            drop_null(m);
            if m.remove("x-kubernetes-int-or-string") == Some(Value::Bool(true)) {
                let quantity = def_name == Some("io.k8s.apimachinery.pkg.api.resource.Quantity");
                m.remove("type");
                m.remove("format");
                if quantity {
                    m.insert(
                        "anyOf".into(),
                        json!([{"type": "number"}, {"type": "string", "pattern": QUANTITY}]),
                    );
                } else {
                    m.insert("type".into(), json!(["integer", "string"]));
                }
            }
            let preserve =
                m.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true));
            m.retain(|k, _| {
                !k.starts_with("x-kubernetes-") || k == "x-kubernetes-preserve-unknown-fields"
            });
            if m.get("format").and_then(Value::as_str) == Some("byte") && !m.contains_key("pattern")
            {
                m.insert("pattern".into(), json!(BASE64));
            }
            if m.contains_key("properties") && !m.contains_key("additionalProperties") && !preserve
            {
                m.insert("additionalProperties".into(), Value::Bool(false));
            }
            for (k, child) in m.iter_mut() {
                // Property names are data, not keywords.
                if k == "properties" || k == "$defs" || k == "patternProperties" {
                    if let Value::Object(props) = child {
                        for (name, s) in props.iter_mut() {
                            let def = (k == "$defs").then_some(name.as_str());
                            rewrite(s, def);
                        }
                    }
                } else if k != "enum" && k != "const" && k != "default" && k != "examples" {
                    rewrite(child, None);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| rewrite(x, None)),
        _ => {}
    }
}

/// `Option<T>` makes schemars allow `null`; flate drops null fields before
/// validating (Kubernetes treats them as unset), so the null branches only
/// blur error messages: `anyOf: [X, {type: null}]` becomes X, and
/// `type: [T, "null"]` becomes T.
fn drop_null(m: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = m.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let t = types.remove(0);
            m.insert("type".into(), t);
        }
    }
    let null = json!({"type": "null"});
    if let Some(Value::Array(branches)) = m.get("anyOf") {
        if branches.len() == 2 && branches.contains(&null) {
            let keep = branches.iter().find(|b| **b != null).cloned().unwrap();
            m.remove("anyOf");
            if let Value::Object(k) = keep {
                for (key, v) in k {
                    m.entry(key).or_insert(v);
                }
            }
        }
    }
}

fn refs(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            if let Some(r) = m.get("$ref").and_then(Value::as_str) {
                if let Some(name) = r.strip_prefix("#/$defs/") {
                    out.insert(name.to_string());
                }
            }
            m.values().for_each(|x| refs(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
        _ => {}
    }
}

/// `name` and every definition it reaches.
fn closure(defs: &Map<String, Value>, name: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![name.to_string()];
    while let Some(n) = todo.pop() {
        if !seen.insert(n.clone()) {
            continue;
        }
        let mut found = BTreeSet::new();
        refs(&defs[&n], &mut found);
        todo.extend(found);
    }
    seen
}

/// A standalone schema for a custom kind from a typed model: apiVersion
/// and kind fixed, `metadata` the Kubernetes ObjectMeta.
fn typed_kind<T: schemars::JsonSchema>(
    api_version: &str,
    kind: &str,
    k8s_defs: &Map<String, Value>,
    k8s_metadata: bool,
) -> Value {
    let mut schema = SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    let m = schema.as_object_mut().unwrap();
    m.insert("$schema".into(), json!(META_SCHEMA));
    m.insert("title".into(), json!(format!("{kind} {api_version}")));
    let props = m.get_mut("properties").unwrap().as_object_mut().unwrap();
    props.insert("apiVersion".into(), json!({"const": api_version}));
    props.insert("kind".into(), json!({"const": kind}));
    if k8s_metadata {
        const OM: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
        props.insert("metadata".into(), json!({"$ref": format!("#/$defs/{OM}")}));
        let defs = m.entry("$defs").or_insert_with(|| json!({}));
        let defs = defs.as_object_mut().unwrap();
        defs.remove("ObjectMeta");
        for n in closure(k8s_defs, OM) {
            defs.insert(n.clone(), k8s_defs[&n].clone());
        }
    }
    rewrite(&mut schema, None);
    schema
}

fn write(dir: &Path, rel: &str, v: &Value, pretty: bool) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    let mut text = if pretty {
        serde_json::to_string_pretty(v).unwrap()
    } else {
        serde_json::to_string(v).unwrap()
    };
    text.push('\n');
    std::fs::write(&p, text).unwrap();
    eprintln!("wrote {}", p.display());
}

/// This build's Kubernetes version: the rewritten bundle and the raw
/// definitions (for the standalone schemas' ObjectMeta).
fn kubernetes_bundle() -> (Value, Map<String, Value>) {
    let mut g = Gen {
        generator: SchemaSettings::draft2020_12().into_generator(),
        kinds: BTreeMap::new(),
    };
    all_kinds(&mut g);
    let mut raw_defs = g.generator.take_definitions(true);
    // k8s-openapi types CRD `JSON` (default, enum, example) as an object;
    // Kubernetes takes any JSON value there.
    raw_defs.insert(
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON".into(),
        json!({}),
    );
    let mut defs = Value::Object(raw_defs.clone());
    if let Value::Object(m) = &mut defs {
        for (name, s) in m.iter_mut() {
            rewrite(s, Some(name));
        }
    }
    let bundle = json!({
        "version": K8S_VERSION,
        "kinds": g.kinds,
        "$defs": defs,
    });
    (bundle, raw_defs)
}

/// The minor number of "1.33".
fn minor(v: &str) -> u32 {
    v.rsplit('.')
        .next()
        .and_then(|m| m.parse().ok())
        .unwrap_or(0)
}

/// Adds `version` to the variant of `name` whose content is `value`, or
/// a new variant.
fn add_variant(
    store: &mut BTreeMap<String, Vec<(Vec<String>, Value)>>,
    name: &str,
    version: &str,
    value: &Value,
) {
    let variants = store.entry(name.to_string()).or_default();
    match variants.iter_mut().find(|(_, v)| v == value) {
        Some((vs, _)) => vs.push(version.to_string()),
        None => variants.push((vec![version.to_string()], value.clone())),
    }
}

/// The version bundles merged: each definition and kind once per distinct
/// content, with the versions it belongs to (none listed: all of them).
fn merge(bundles: &[Value]) -> Value {
    let mut versions: Vec<String> = bundles
        .iter()
        .map(|b| b["version"].as_str().expect("bundle version").to_string())
        .collect();
    versions.sort_by_key(|v| minor(v));
    let mut defs = BTreeMap::new();
    let mut kinds = BTreeMap::new();
    for v in &versions {
        let b = bundles.iter().find(|b| b["version"] == v.as_str()).unwrap();
        for (name, schema) in b["$defs"].as_object().unwrap() {
            add_variant(&mut defs, name, v, schema);
        }
        for (gvk, def) in b["kinds"].as_object().unwrap() {
            add_variant(&mut kinds, gvk, v, def);
        }
    }
    let out = |store: BTreeMap<String, Vec<(Vec<String>, Value)>>, key: &str| -> Value {
        let mut m = Map::new();
        for (name, variants) in store {
            let list: Vec<Value> = variants
                .into_iter()
                .map(|(vs, value)| {
                    let mut e = Map::new();
                    if vs.len() != versions.len() {
                        e.insert("versions".into(), json!(vs));
                    }
                    e.insert(key.into(), value);
                    Value::Object(e)
                })
                .collect();
            m.insert(name, Value::Array(list));
        }
        Value::Object(m)
    };
    json!({
        "$comment": format!(
            "Kubernetes {} built-in kinds, generated by tools/gen-schemas.sh from {K8S_OPENAPI}. `kinds` maps apiVersion/kind to a definition in `defs`; each entry lists its variants, with the versions a variant belongs to (none listed: every version).",
            versions.join(", ")
        ),
        "versions": versions,
        "kinds": out(kinds, "def"),
        "defs": out(defs, "schema"),
    })
}

fn usage() -> ! {
    eprintln!("usage: flate-schemagen version FILE | finish OUT_DIR BUNDLE...");
    std::process::exit(2)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("version") if args.len() == 2 => {
            let (bundle, _) = kubernetes_bundle();
            let p = PathBuf::from(&args[1]);
            write(
                p.parent().unwrap_or(Path::new(".")),
                p.file_name().unwrap().to_str().unwrap(),
                &bundle,
                false,
            );
        }
        Some("finish") if args.len() > 2 => finish(Path::new(&args[1]), &args[2..]),
        _ => usage(),
    }
}

fn finish(out: &Path, bundle_files: &[String]) {
    let bundles: Vec<Value> = bundle_files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{f}: {e}"));
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{f}: {e}"))
        })
        .collect();
    let merged = merge(&bundles);
    write(out, "kubernetes/kubernetes.json", &merged, false);
    let (_, raw_defs) = kubernetes_bundle();
    let kind_count = merged["kinds"].as_object().map(Map::len).unwrap_or(0);

    // Flux kinds.
    use flux_types as f;
    let flux: Vec<(&str, &str, &str, Value)> = vec![
        (
            "kustomize.toolkit.fluxcd.io",
            "v1",
            "Kustomization",
            typed_kind::<f::Kustomization>(
                "kustomize.toolkit.fluxcd.io/v1",
                "Kustomization",
                &raw_defs,
                true,
            ),
        ),
        (
            "helm.toolkit.fluxcd.io",
            "v2",
            "HelmRelease",
            typed_kind::<f::HelmRelease>(
                "helm.toolkit.fluxcd.io/v2",
                "HelmRelease",
                &raw_defs,
                true,
            ),
        ),
        (
            "source.toolkit.fluxcd.io",
            "v1",
            "OCIRepository",
            typed_kind::<f::OciRepository>(
                "source.toolkit.fluxcd.io/v1",
                "OCIRepository",
                &raw_defs,
                true,
            ),
        ),
        (
            "source.toolkit.fluxcd.io",
            "v1",
            "GitRepository",
            typed_kind::<f::GitRepository>(
                "source.toolkit.fluxcd.io/v1",
                "GitRepository",
                &raw_defs,
                true,
            ),
        ),
        (
            "source.toolkit.fluxcd.io",
            "v1",
            "HelmRepository",
            typed_kind::<f::HelmRepository>(
                "source.toolkit.fluxcd.io/v1",
                "HelmRepository",
                &raw_defs,
                true,
            ),
        ),
        (
            "source.toolkit.fluxcd.io",
            "v1",
            "HelmChart",
            typed_kind::<f::HelmChart>("source.toolkit.fluxcd.io/v1", "HelmChart", &raw_defs, true),
        ),
        (
            "source.toolkit.fluxcd.io",
            "v1",
            "Bucket",
            typed_kind::<f::Bucket>("source.toolkit.fluxcd.io/v1", "Bucket", &raw_defs, true),
        ),
        (
            "notification.toolkit.fluxcd.io",
            "v1beta3",
            "Alert",
            typed_kind::<f::Alert>("notification.toolkit.fluxcd.io/v1beta3", "Alert", &raw_defs, true),
        ),
        (
            "notification.toolkit.fluxcd.io",
            "v1beta3",
            "Provider",
            typed_kind::<f::Provider>("notification.toolkit.fluxcd.io/v1beta3", "Provider", &raw_defs, true),
        ),
        (
            "notification.toolkit.fluxcd.io",
            "v1",
            "Receiver",
            typed_kind::<f::Receiver>("notification.toolkit.fluxcd.io/v1", "Receiver", &raw_defs, true),
        ),
        (
            "image.toolkit.fluxcd.io",
            "v1",
            "ImageRepository",
            typed_kind::<f::ImageRepository>("image.toolkit.fluxcd.io/v1", "ImageRepository", &raw_defs, true),
        ),
        (
            "image.toolkit.fluxcd.io",
            "v1",
            "ImagePolicy",
            typed_kind::<f::ImagePolicy>("image.toolkit.fluxcd.io/v1", "ImagePolicy", &raw_defs, true),
        ),
        (
            "image.toolkit.fluxcd.io",
            "v1",
            "ImageUpdateAutomation",
            typed_kind::<f::ImageUpdateAutomation>("image.toolkit.fluxcd.io/v1", "ImageUpdateAutomation", &raw_defs, true),
        ),
        (
            "source.extensions.fluxcd.io",
            "v1beta1",
            "ArtifactGenerator",
            typed_kind::<f::ArtifactGenerator>("source.extensions.fluxcd.io/v1beta1", "ArtifactGenerator", &raw_defs, true),
        ),
        (
            "fluxcd.controlplane.io",
            "v1",
            "FluxInstance",
            typed_kind::<f::FluxInstance>("fluxcd.controlplane.io/v1", "FluxInstance", &raw_defs, true),
        ),
        (
            "fluxcd.controlplane.io",
            "v1",
            "ResourceSet",
            typed_kind::<f::ResourceSet>("fluxcd.controlplane.io/v1", "ResourceSet", &raw_defs, true),
        ),
        (
            "fluxcd.controlplane.io",
            "v1",
            "ResourceSetInputProvider",
            typed_kind::<f::ResourceSetInputProvider>("fluxcd.controlplane.io/v1", "ResourceSetInputProvider", &raw_defs, true),
        ),
    ];
    for (group, version, kind, schema) in &flux {
        write(
            &out,
            &format!("{group}/{}_{version}.json", kind.to_lowercase()),
            schema,
            true,
        );
    }

    // kustomization files: apiVersion and kind may be omitted in a
    // Kustomization (kustomize fills them in); a Component names its kind.
    for (version, kind) in [("v1beta1", "Kustomization"), ("v1alpha1", "Component")] {
        let api_version = format!("kustomize.config.k8s.io/{version}");
        let mut s =
            typed_kind::<kustomize_types::Kustomization>(&api_version, kind, &raw_defs, false);
        if kind == "Component" {
            s["required"] = json!(["kind"]);
        }
        write(
            &out,
            &format!(
                "kustomize.config.k8s.io/{}_{version}.json",
                kind.to_lowercase()
            ),
            &s,
            true,
        );
    }
    eprintln!(
        "{kind_count} Kubernetes kinds ({}), {} Flux kinds, 2 kustomization file kinds",
        merged["versions"],
        flux.len()
    );
}
