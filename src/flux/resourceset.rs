//! The Flux Operator's ResourceSets, expanded offline: the objects the
//! operator makes from a `ResourceSet`'s templates and inputs
//! (fluxcd.controlplane.io/v1; flux-operator's `internal/builder` and
//! `internal/inputs`, and its `flux-operator build resourceset`).
//!
//! Facts relied on:
//! - Inputs come from the ResourceSet's `spec.inputs`, then from the
//!   `ResourceSetInputProvider`s of its namespace that `spec.inputsFrom`
//!   names (by `name`, or by label `selector`), in order of name. Each
//!   input gets a `provider` entry (`apiVersion`, `kind`, `name`,
//!   `namespace` of where it came from). Offline only `Static` providers
//!   give inputs: their `spec.defaultValues`, with `id` the Adler-32
//!   checksum of the provider's name, as the operator's own offline build
//!   computes it (in the cluster it is that of the object's UID). The
//!   other types ask GitHub, GitLab, registries... at runtime.
//! - `inputStrategy`: `Flatten` (the default) concatenates the inputs;
//!   `Permute` makes every combination of one input per provider, each
//!   under the provider's name normalized (lower case, runs of other
//!   characters as one `_`), with `id` the checksum of `name=index/...`;
//!   at most 10,000. No input at all: the templates run once, without.
//! - Each template of `resources` is written as YAML (keys sorted, as
//!   `sigs.k8s.io/yaml` writes JSON) and run as a Go template between
//!   `<<` and `>>` once per input, with slim-sprig's hermetic functions,
//!   `slugify`, `toYaml`, `mustToYaml` and `inputs`, `missingkey=error`;
//!   then `resourcesTemplate` (a YAML stream) likewise. Objects annotated
//!   `fluxcd.controlplane.io/reconcile: disabled` are left out, and one of
//!   the same group, kind, namespace and name as an earlier one is
//!   dropped (the objects of a `resources` template run without inputs
//!   excepted). `steps` do the same per step; an object in two steps is
//!   an error.
//! - `commonMetadata` labels and annotations, then the owner labels
//!   `resourceset.fluxcd.controlplane.io/name` and `/namespace`, are set
//!   on every object. A ConfigMap or Secret annotated
//!   `fluxcd.controlplane.io/copyFrom: namespace/name` takes the data of
//!   that object (found among the rendered ones).

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use crate::resource::Resource;
use crate::template::parse::Delims;
use crate::template::{Templates, Value};
use crate::yaml::Node;

use super::helmrender::{set_common_metadata, set_metadata};

/// The API group of the Flux Operator.
pub const GROUP: &str = "fluxcd.controlplane.io";
/// The owner label group the operator puts on the objects it makes.
pub const OWNER_GROUP: &str = "resourceset.fluxcd.controlplane.io";
/// Most permutations the operator makes.
const MAX_PERMUTATIONS: u64 = 10_000;

/// Whether `r` is a Flux Operator ResourceSet.
pub fn is_resource_set(r: &Resource) -> bool {
    r.kind() == "ResourceSet" && r.gvk().group == GROUP
}

/// The ResourceSet (`namespace/name`) whose owner labels `o` carries.
pub fn owner(o: &Resource) -> Option<String> {
    let label = |k: &str| {
        o.obj
            .get_path(&["metadata", "labels", &format!("{OWNER_GROUP}/{k}")])
            .and_then(Node::scalar_text)
    };
    Some(format!("{}/{}", label("namespace")?, label("name")?))
}

/// The ResourceSets (`namespace/name`) among the objects of `k` that
/// were expanded, in order.
pub fn expanded_in(k: &super::KsReport) -> Vec<String> {
    k.objects
        .iter()
        .filter(|r| is_resource_set(r))
        .map(|r| format!("{}/{}", r.namespace_or_default(), r.name()))
        .filter(|key| !k.unexpanded.iter().any(|u| u.key == *key))
        .collect()
}

/// Whether `r` is a Flux Operator ResourceSetInputProvider.
fn is_input_provider(r: &Resource) -> bool {
    r.kind() == "ResourceSetInputProvider" && r.gvk().group == GROUP
}

/// Why a ResourceSet was not expanded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotExpanded {
    /// Its inputs come from a provider flate cannot read offline (not
    /// rendered, or of a type that asks an external service).
    Offline(String),
    /// The operator would fail it too: a template or spec error.
    Invalid(String),
}

impl NotExpanded {
    pub fn message(&self) -> &str {
        match self {
            NotExpanded::Offline(m) | NotExpanded::Invalid(m) => m,
        }
    }
}

/// What a ResourceSet makes.
#[derive(Debug, Clone, Default)]
pub struct Expanded {
    pub objects: Vec<Resource>,
    /// What is not as in the cluster (a `copyFrom` source not rendered).
    pub warnings: Vec<String>,
}

/// The annotation by which the operator fills a ConfigMap or Secret it
/// makes with the data of another (`namespace/name`).
const COPY_FROM: &str = "fluxcd.controlplane.io/copyFrom";

/// The objects the operator makes from ResourceSet `rset`. `candidates`:
/// the rendered objects, where its input providers (those of its
/// namespace) and the sources of `copyFrom` are looked for, first found
/// first.
pub fn expand(rset: &Resource, candidates: &[&Resource]) -> Result<Expanded, NotExpanded> {
    let spec = rset.obj.get("spec").cloned().unwrap_or(Node::Null);
    let invalid = |m: String| NotExpanded::Invalid(m);
    validate(&spec).map_err(invalid)?;
    let inputs = combined_inputs(rset, &spec, candidates)?;
    let mut objects = Vec::new();
    match spec.get("steps") {
        Some(Node::Seq(steps)) if !steps.is_empty() => {
            // Object key → the step that made it.
            let mut step_of: BTreeMap<String, String> = BTreeMap::new();
            for step in steps {
                let name = step.get_str(&["name"]).unwrap_or_default().to_string();
                let made = build_set(rset, step, &inputs)
                    .map_err(|e| invalid(format!("step {name:?}: {e}")))?;
                for o in &made {
                    let key = object_key(o);
                    match step_of.get(&key) {
                        Some(prev) if *prev != name => {
                            return Err(invalid(format!(
                                "duplicate resource {} in step {name:?}, already defined in step {prev:?}",
                                show(o)
                            )));
                        }
                        _ => {
                            step_of.insert(key, name.clone());
                        }
                    }
                }
                objects.extend(made);
            }
        }
        _ => objects = build_set(rset, &spec, &inputs).map_err(invalid)?,
    }
    set_common_metadata(spec.get("commonMetadata"), &mut objects);
    let owner = vec![
        (format!("{OWNER_GROUP}/name"), rset.name().to_string()),
        (
            format!("{OWNER_GROUP}/namespace"),
            rset.namespace_or_default().to_string(),
        ),
    ];
    for o in objects.iter_mut() {
        set_metadata(o, "labels", &owner);
    }
    let mut warnings = Vec::new();
    for o in objects.iter_mut() {
        if let Some(w) = copy_from(o, candidates).map_err(invalid)? {
            warnings.push(w);
        }
    }
    Ok(Expanded { objects, warnings })
}

/// The operator's `copyFrom`: a ConfigMap (`v1`) it makes takes the
/// `data` (and `binaryData`) of the ConfigMap the annotation names; a
/// Secret takes its data as `stringData`, and its `type` unless it has
/// one. A source not rendered offline leaves the object as its template
/// made it, with a warning; a value not `namespace/name` fails the
/// ResourceSet, as in the operator.
fn copy_from(o: &mut Resource, candidates: &[&Resource]) -> Result<Option<String>, String> {
    if o.obj.get_str(&["apiVersion"]) != Some("v1") {
        return Ok(None);
    }
    let Some(source) = o
        .obj
        .get_path(&["metadata", "annotations", COPY_FROM])
        .and_then(Node::scalar_text)
    else {
        return Ok(None);
    };
    let kind = o.kind().to_string();
    if kind != "ConfigMap" && kind != "Secret" {
        return Ok(None);
    }
    let parts: Vec<&str> = source.split('/').collect();
    let [ns, name] = parts[..] else {
        return Err(format!(
            "invalid {COPY_FROM} annotation value '{source}' must be in the format 'namespace/name'"
        ));
    };
    let Some(src) = candidates
        .iter()
        .find(|c| c.kind() == kind && c.namespace_or_default() == ns && c.name() == name)
    else {
        return Ok(Some(format!(
            "{kind} {}/{} copies its data from {kind} {source} ({COPY_FROM}), which is not rendered offline: shown as its template makes it",
            o.namespace(),
            o.name()
        )));
    };
    let Some(m) = o.obj.as_map_mut() else {
        return Ok(None);
    };
    if kind == "ConfigMap" {
        m.insert("data", string_values(src.obj.get("data"), false));
        if let Some(Node::Map(b)) = src.obj.get("binaryData")
            && !b.is_empty()
        {
            m.insert(
                "binaryData",
                string_values(src.obj.get("binaryData"), false),
            );
        }
    } else {
        if m.get("type").is_none() {
            let t = src
                .obj
                .get_str(&["type"])
                .filter(|t| !t.is_empty())
                .unwrap_or("Opaque");
            m.insert("type", Node::str(t));
        }
        // The source's data as the API server holds it: `data` decoded,
        // `stringData` over it.
        let mut data = match string_values(src.obj.get("data"), true) {
            Node::Map(d) => d,
            _ => crate::yaml::Map::new(),
        };
        if let Node::Map(sd) = string_values(src.obj.get("stringData"), false) {
            for (k, v) in sd.iter() {
                data.insert(k.clone(), v.clone());
            }
        }
        m.insert("stringData", Node::Map(data));
    }
    Ok(None)
}

/// The string values of a map node (a Secret's `data` decoded when
/// `decode`: a value that is not base64, such as flate's mark of a SOPS
/// value not decrypted, is kept as it is).
fn string_values(n: Option<&Node>, decode: bool) -> Node {
    let mut out = crate::yaml::Map::new();
    if let Some(Node::Map(m)) = n {
        for (k, v) in m.iter() {
            let text = v.scalar_text().unwrap_or_default();
            let text = if decode {
                crate::secret::decode_data(&text).unwrap_or(text)
            } else {
                text
            };
            out.insert(k.clone(), Node::str(text));
        }
    }
    Node::Map(out)
}

/// The operator's checks of the spec, before anything is built.
fn validate(spec: &Node) -> Result<(), String> {
    shape(spec)?;
    let has_resources = |n: &Node| {
        matches!(n.get("resources"), Some(Node::Seq(s)) if !s.is_empty())
            || n.get_str(&["resourcesTemplate"])
                .is_some_and(|t| !t.is_empty())
    };
    let Some(Node::Seq(steps)) = spec.get("steps") else {
        return Ok(());
    };
    if steps.is_empty() {
        return Ok(());
    }
    if has_resources(spec) {
        return Err(
            "spec.steps is mutually exclusive with spec.resources and spec.resourcesTemplate"
                .into(),
        );
    }
    for step in steps {
        if !has_resources(step) {
            return Err(format!(
                "step {:?}: at least one of resources or resourcesTemplate must be set",
                step.get_str(&["name"]).unwrap_or_default()
            ));
        }
    }
    Ok(())
}

/// The types of the fields read, as the ResourceSet's schema has them (the
/// API server refuses another): flate has no schema of the kind to check
/// them against, and reading a field of another type as absent would be
/// a silent wrong answer.
fn shape(spec: &Node) -> Result<(), String> {
    fn is(n: &Node, path: &str, ty: &str) -> Result<(), String> {
        let ok = match ty {
            "list of objects" => {
                matches!(n, Node::Seq(items) if items.iter().all(|i| matches!(i, Node::Map(_))))
            }
            "object" => matches!(n, Node::Map(_)),
            "string" => matches!(n, Node::Str(_)),
            _ => false,
        };
        if ok || n.is_null() {
            return Ok(());
        }
        let article = if ty == "object" { "an" } else { "a" };
        Err(format!(
            "{path} must be {article} {ty} (the API server refuses this ResourceSet)"
        ))
    }
    is(spec, "spec", "object")?;
    let fields: &[(&str, &str)] = &[
        ("inputs", "list of objects"),
        ("inputsFrom", "list of objects"),
        ("resources", "list of objects"),
        ("resourcesTemplate", "string"),
        ("steps", "list of objects"),
        ("inputStrategy", "object"),
        ("commonMetadata", "object"),
    ];
    for (f, ty) in fields {
        if let Some(n) = spec.get(f) {
            is(n, &format!("spec.{f}"), ty)?;
        }
    }
    if let Some(Node::Seq(steps)) = spec.get("steps") {
        for (i, step) in steps.iter().enumerate() {
            for (f, ty) in [
                ("name", "string"),
                ("resources", "list of objects"),
                ("resourcesTemplate", "string"),
            ] {
                if let Some(n) = step.get(f) {
                    is(n, &format!("spec.steps[{i}].{f}"), ty)?;
                }
            }
        }
    }
    for (f, ty) in [("name", "string"), ("includeEmptyProviders", "boolean")] {
        if let Some(n) = spec.get("inputStrategy").and_then(|s| s.get(f)) {
            let ok = n.is_null()
                || match ty {
                    "string" => matches!(n, Node::Str(_)),
                    _ => matches!(n, Node::Bool(_)),
                };
            if !ok {
                return Err(format!(
                    "spec.inputStrategy.{f} must be a {ty} (the API server refuses this ResourceSet)"
                ));
            }
        }
    }
    Ok(())
}

/// `group/kind/namespace/name`: objects of the same key are one object.
fn object_key(o: &Resource) -> String {
    format!(
        "{}/{}/{}/{}",
        o.gvk().group,
        o.kind(),
        o.namespace(),
        o.name()
    )
}

/// `Kind/namespace/name`, as the operator names an object.
fn show(o: &Resource) -> String {
    if o.namespace().is_empty() {
        format!("{}/{}", o.kind(), o.name())
    } else {
        format!("{}/{}/{}", o.kind(), o.namespace(), o.name())
    }
}

/// One provider of inputs: its name and the inputs it gives.
struct Provider {
    name: String,
    inputs: Vec<Value>,
}

/// The inputs the templates run with, combined as `inputStrategy` says.
fn combined_inputs(
    rset: &Resource,
    spec: &Node,
    candidates: &[&Resource],
) -> Result<Vec<Value>, NotExpanded> {
    let ns = rset.namespace_or_default();
    let mut providers = vec![Provider {
        name: rset.name().to_string(),
        inputs: match spec.get("inputs") {
            Some(Node::Seq(items)) => items
                .iter()
                .map(|i| {
                    with_provider(
                        input_value(i),
                        "ResourceSet",
                        rset.name(),
                        rset.namespace_or_default(),
                    )
                })
                .collect(),
            _ => Vec::new(),
        },
    }];
    let in_ns: Vec<&Resource> = candidates
        .iter()
        .copied()
        .filter(|r| is_input_provider(r) && r.namespace_or_default() == ns)
        .collect();
    // Chosen providers by name (each once, in order of name).
    let mut chosen: BTreeMap<&str, &Resource> = BTreeMap::new();
    if let Some(Node::Seq(refs)) = spec.get("inputsFrom") {
        for r in refs {
            if let Some(name) = r.get_str(&["name"]).filter(|n| !n.is_empty()) {
                match in_ns.iter().find(|p| p.name() == name) {
                    Some(p) => {
                        chosen.insert(p.name(), p);
                    }
                    None => {
                        return Err(NotExpanded::Offline(format!(
                            "its input provider ResourceSetInputProvider {ns}/{name} is not among the objects rendered offline"
                        )));
                    }
                }
            } else if let Some(sel) = r.get("selector").filter(|s| !s.is_null()) {
                for p in &in_ns {
                    let labels = p
                        .obj
                        .get_path(&["metadata", "labels"])
                        .cloned()
                        .unwrap_or_else(Node::map);
                    if super::render::label_selector_matches(sel, &labels) {
                        chosen.insert(p.name(), p);
                    }
                }
            } else {
                return Err(NotExpanded::Invalid(
                    "input provider reference must have either name or selector set".into(),
                ));
            }
        }
    }
    for p in chosen.values() {
        providers.push(provider_inputs(p)?);
    }
    let strategy = spec
        .get_str(&["inputStrategy", "name"])
        .filter(|s| !s.is_empty())
        .unwrap_or("Flatten");
    match strategy {
        "Flatten" => Ok(providers.into_iter().flat_map(|p| p.inputs).collect()),
        "Permute" => {
            let include_empty = spec
                .get_path(&["inputStrategy", "includeEmptyProviders"])
                .is_some_and(|b| matches!(b, Node::Bool(true)));
            permute(providers, include_empty).map_err(NotExpanded::Invalid)
        }
        other => Err(NotExpanded::Invalid(format!(
            "unknown input strategy: '{other}'"
        ))),
    }
}

/// The inputs a ResourceSetInputProvider exports, offline.
fn provider_inputs(p: &Resource) -> Result<Provider, NotExpanded> {
    let kind = p.obj.get_str(&["spec", "type"]).unwrap_or_default();
    if kind != "Static" {
        return Err(NotExpanded::Offline(format!(
            "its input provider ResourceSetInputProvider {}/{} is of type {kind:?}, whose inputs come from an external service at runtime",
            p.namespace_or_default(),
            p.name()
        )));
    }
    let defaults = p
        .obj
        .get_path(&["spec", "defaultValues"])
        .unwrap_or(&Node::Null);
    if !defaults.is_null() && !matches!(defaults, Node::Map(_)) {
        return Err(NotExpanded::Invalid(format!(
            "ResourceSetInputProvider {}/{}: spec.defaultValues must be an object (the API server refuses it)",
            p.namespace_or_default(),
            p.name()
        )));
    }
    let mut input = match input_value(defaults) {
        Value::Map(m) => m.to_btree(),
        _ => BTreeMap::new(),
    };
    input.insert(
        "id".into(),
        Value::Str(crate::helm::sprig::strings::adler32(p.name().as_bytes()).to_string()),
    );
    Ok(Provider {
        name: p.name().to_string(),
        inputs: vec![with_provider(
            Value::map(input),
            "ResourceSetInputProvider",
            p.name(),
            p.namespace_or_default(),
        )],
    })
}

/// `input` with its `provider` entry.
fn with_provider(input: Value, kind: &str, name: &str, namespace: &str) -> Value {
    let mut m = match input {
        Value::Map(m) => m.to_btree(),
        _ => BTreeMap::new(),
    };
    let s = |v: &str| Value::Str(v.to_string());
    m.insert(
        "provider".into(),
        Value::map(BTreeMap::from([
            ("apiVersion".to_string(), s(&format!("{GROUP}/v1"))),
            ("kind".to_string(), s(kind)),
            ("name".to_string(), s(name)),
            ("namespace".to_string(), s(namespace)),
        ])),
    );
    Value::map(m)
}

/// A YAML value as the operator's inputs hold it (through JSON, read by
/// `k8s.io/apimachinery`'s decoder: a whole number is an int64).
fn input_value(n: &Node) -> Value {
    match n {
        Node::Null => Value::Nil,
        Node::Bool(b) => Value::Bool(*b),
        Node::Int(i) => Value::Int(*i),
        Node::UInt(u) => i64::try_from(*u).map_or(Value::Float(*u as f64), Value::Int),
        Node::Float(f) if f.fract() == 0.0 && f.abs() < 9.2e18 => Value::Int(*f as i64),
        Node::Float(f) => Value::Float(*f),
        Node::Str(s) => Value::Str(s.clone()),
        Node::Seq(s) => Value::List(s.iter().map(input_value).collect()),
        Node::Map(m) => Value::map(m.iter().map(|(k, v)| (k.clone(), input_value(v))).collect()),
    }
}

/// A provider's name as a template key: lower case, letters and digits,
/// runs of spaces and punctuation as one `_`, other characters dropped.
fn normalized_key(name: &str) -> String {
    let mapped: String = name
        .chars()
        .flat_map(char::to_lowercase)
        .filter_map(|c| {
            if c.is_whitespace() || is_go_punct(c) {
                Some('_')
            } else if c.is_ascii_lowercase() || c.is_ascii_digit() {
                Some(c)
            } else {
                None
            }
        })
        .collect();
    mapped
        .split('_')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("_")
}

/// Go's `unicode.IsPunct` for the characters a Kubernetes name holds
/// (ASCII punctuation; symbols such as `+` or `$` are not punctuation).
fn is_go_punct(c: char) -> bool {
    matches!(
        c,
        '!' | '"'
            | '#'
            | '%'
            | '&'
            | '\''
            | '('
            | ')'
            | '*'
            | ','
            | '-'
            | '.'
            | '/'
            | ':'
            | ';'
            | '?'
            | '@'
            | '['
            | '\\'
            | ']'
            | '_'
            | '{'
            | '}'
    )
}

/// The `Permute` strategy: one input of each provider, every way.
fn permute(providers: Vec<Provider>, include_empty: bool) -> Result<Vec<Value>, String> {
    let mut scoped: Vec<(String, Vec<Value>)> = Vec::new();
    let mut expected: u64 = 0;
    for p in providers {
        if !include_empty && p.inputs.is_empty() {
            continue;
        }
        expected = if scoped.is_empty() {
            p.inputs.len() as u64
        } else {
            expected.saturating_mul(p.inputs.len() as u64)
        };
        if expected > MAX_PERMUTATIONS {
            return Err(format!(
                "adding provider '{}' with {} inputs would exceed the maximum allowed permutations. max: {MAX_PERMUTATIONS}, got: {expected}",
                p.name,
                p.inputs.len()
            ));
        }
        let key = normalized_key(&p.name);
        if key.is_empty() {
            return Err(format!("normalized provider name is empty: '{}'", p.name));
        }
        scoped.push((key, p.inputs));
    }
    if scoped.is_empty() || scoped.iter().any(|(_, i)| i.is_empty()) {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    let mut pick = vec![0usize; scoped.len()];
    loop {
        let mut m = BTreeMap::new();
        let mut id = Vec::with_capacity(scoped.len());
        for (i, (key, inputs)) in scoped.iter().enumerate() {
            m.insert(key.clone(), inputs[pick[i]].clone());
            id.push(format!("{key}={}", pick[i]));
        }
        let id = crate::helm::sprig::strings::adler32(id.join("/").as_bytes());
        m.insert("id".into(), Value::Str(id.to_string()));
        out.push(Value::map(m));
        // The next combination, the last provider's input changing first.
        let mut i = scoped.len();
        loop {
            if i == 0 {
                return Ok(out);
            }
            i -= 1;
            pick[i] += 1;
            if pick[i] < scoped[i].1.len() {
                break;
            }
            pick[i] = 0;
        }
    }
}

/// The objects of one set of templates (the spec, or a step), deduplicated.
fn build_set(rset: &Resource, holder: &Node, inputs: &[Value]) -> Result<Vec<Resource>, String> {
    let mut objects: Vec<Resource> = Vec::new();
    let mut keys: HashSet<String> = HashSet::new();
    let mut add = |o: Resource, dedup: bool, objects: &mut Vec<Resource>| {
        let key = object_key(&o);
        if dedup && keys.contains(&key) {
            return;
        }
        keys.insert(key);
        objects.push(o);
    };
    // Each template is parsed once and run once per input (the operator
    // parses it again for each: the same result, and the same error).
    if let Some(Node::Seq(templates)) = holder.get("resources") {
        for (i, t) in templates.iter().enumerate() {
            let failed = |e: String| {
                if inputs.is_empty() {
                    format!("failed to build resource: {e}")
                } else {
                    format!("failed to build resources[{i}]: {e}")
                }
            };
            let tpl = parse(&json_template_text(t)).map_err(failed)?;
            if inputs.is_empty() {
                let o = build_one(rset, &tpl, None).map_err(failed)?;
                add(o, false, &mut objects);
                continue;
            }
            for input in inputs {
                let o = build_one(rset, &tpl, Some(input)).map_err(failed)?;
                if !disabled(&o) {
                    add(o, true, &mut objects);
                }
            }
        }
    }
    if let Some(text) = holder
        .get_str(&["resourcesTemplate"])
        .filter(|t| !t.is_empty())
    {
        let failed = |e: String| {
            if inputs.is_empty() {
                format!("failed to build resource: {e}")
            } else {
                format!("failed to build resources: {e}")
            }
        };
        let tpl = parse(text).map_err(failed)?;
        let mut made = Vec::new();
        if inputs.is_empty() {
            made.extend(build_many(rset, &tpl, None).map_err(failed)?);
        }
        for input in inputs {
            made.extend(build_many(rset, &tpl, Some(input)).map_err(failed)?);
        }
        for o in made {
            if !disabled(&o) {
                add(o, true, &mut objects);
            }
        }
    }
    Ok(objects)
}

/// `fluxcd.controlplane.io/reconcile: disabled`: an object the operator
/// leaves out, a ResourceSet it does not reconcile.
pub fn disabled(o: &Resource) -> bool {
    o.obj
        .get_path(&[
            "metadata",
            "annotations",
            "fluxcd.controlplane.io/reconcile",
        ])
        .and_then(Node::scalar_text)
        .as_deref()
        == Some("disabled")
}

/// A `resources` entry as the operator writes it before running it: its
/// JSON as YAML (`sigs.k8s.io/yaml`'s `JSONToYAML`: keys sorted).
fn json_template_text(t: &Node) -> String {
    let mut text = crate::helm::funcs::to_yaml(&crate::helm::funcs::from_node(t));
    text.push('\n');
    text
}

/// The `toYaml` of the templates: `sigs.k8s.io/yaml`'s `Marshal`, final
/// line break kept (Helm's drops it); an empty text for what JSON cannot
/// hold.
fn to_yaml(v: &Value) -> String {
    let mut text = crate::helm::funcs::to_yaml(v);
    if !text.is_empty() {
        text.push('\n');
    }
    text
}

/// The template functions: slim-sprig's hermetic ones, `slugify`,
/// `toYaml`, `mustToYaml`, and `inputs` (empty here: [`run`] gives each
/// run's).
fn template_set() -> Templates {
    /// Built once: Go's built-in functions plus slim-sprig's hermetic
    /// ones, of flate's Sprig (slim-sprig is Sprig without its
    /// dependencies).
    static BASE: std::sync::OnceLock<Templates> = std::sync::OnceLock::new();
    let base = BASE.get_or_init(|| {
        let builtins = Templates::new().func_names();
        let mut t = Templates::new();
        crate::helm::sprig::add_funcs(&mut t);
        t.retain_funcs(|name| builtins.contains(name) || SLIM_SPRIG.contains(&name));
        t.add_func("hello", 0, Some(0), |_, _| Ok(Value::Str("Hello!".into())));
        // Sprig's JSON functions and `fail` (Helm replaces these, and
        // flate's Sprig leaves them to Helm's set).
        for (name, pretty, html, must) in [
            ("toJson", false, true, false),
            ("mustToJson", false, true, true),
            ("toPrettyJson", true, true, false),
            ("mustToPrettyJson", true, true, true),
            ("toRawJson", false, false, true),
            ("mustToRawJson", false, false, true),
        ] {
            t.add_func(
                name,
                1,
                Some(1),
                move |_, a| match crate::helm::json::encode(&a[0], pretty, html) {
                    Ok(s) => Ok(Value::Str(s)),
                    Err(e) if must => Err(e),
                    Err(_) => Ok(Value::Str(String::new())),
                },
            );
        }
        t.add_func("fromJson", 1, Some(1), |_, a| {
            let text = crate::helm::sprig::want_str(&a[0], "fromJson")?;
            Ok(crate::helm::json::decode(text).unwrap_or(Value::Nil))
        });
        t.add_func("mustFromJson", 1, Some(1), |_, a| {
            crate::helm::json::decode(crate::helm::sprig::want_str(&a[0], "mustFromJson")?)
        });
        t.add_func("fail", 1, Some(1), |_, a| {
            Err(crate::helm::sprig::want_str(&a[0], "fail")?.to_string())
        });
        t.add_func("slugify", 1, Some(1), |_, a| {
            let s = crate::helm::sprig::want_str(&a[0], "slugify")?;
            slugify(s).map(Value::Str)
        });
        t.add_func("toYaml", 1, Some(1), |_, a| Ok(Value::Str(to_yaml(&a[0]))));
        t.add_func("mustToYaml", 1, Some(1), |_, a| {
            let text = to_yaml(&a[0]);
            if text.is_empty() {
                return Err("json: unsupported value".into());
            }
            Ok(Value::Str(text))
        });
        t.add_func("inputs", 0, Some(0), |_, _| Ok(Value::map(BTreeMap::new())));
        t.missing_key_error = true;
        t.name = "resourceset".into();
        t
    });
    base.clone()
}

/// A template of the ResourceSet, parsed.
fn parse(text: &str) -> Result<Templates, String> {
    let mut t = template_set();
    t.parse_delimited("resourceset", text, Delims::Angles)
        .map_err(|e| format!("failed to parse template: {e}"))?;
    Ok(t)
}

/// Runs a parsed template with `input` as what `inputs` gives.
fn run(tpl: &Templates, input: Option<&Value>) -> Result<String, String> {
    let mut t = tpl.clone();
    // Each run from the same seed: `randInt` gives the same numbers on
    // every build (the operator's are random at each reconciliation).
    t.reseed(crate::helm::sprig::SEED);
    let input = Arc::new(
        input
            .cloned()
            .unwrap_or_else(|| Value::map(BTreeMap::new())),
    );
    t.add_func("inputs", 0, Some(0), move |_, _| Ok((*input).clone()));
    t.execute("resourceset", &Value::Nil)
        .map_err(|e| format!("failed to execute template: {e}"))
}

/// The one object a `resources` template makes.
fn build_one(rset: &Resource, tpl: &Templates, input: Option<&Value>) -> Result<Resource, String> {
    let out = run(tpl, input)?;
    let docs = crate::yaml::parse::parse_stream_json_keys(&out)
        .map_err(|e| format!("failed to read object: {e}"))?;
    let node = docs
        .into_iter()
        .map(|d| d.node)
        .next()
        .filter(|n| matches!(n, Node::Map(_)))
        .ok_or_else(|| "failed to read object: not a Kubernetes object".to_string())?;
    Ok(Resource::new(node, rset.origin.clone()))
}

/// The objects a `resourcesTemplate` makes: every document that is a
/// Kubernetes object (with `apiVersion`, `kind` and `name`; a kustomize
/// `Kustomization` excepted), the items of a list.
fn build_many(
    rset: &Resource,
    tpl: &Templates,
    input: Option<&Value>,
) -> Result<Vec<Resource>, String> {
    let out = run(tpl, input)?;
    let docs = crate::yaml::parse::parse_stream_json_keys(&out)
        .map_err(|e| format!("failed to read objects from multi-doc YAML: {e}"))?;
    let mut objects = Vec::new();
    for d in docs {
        let node = d.node;
        // A list (its `items` a sequence) stands for its items.
        let (is_list, nodes) = match node.get("items") {
            Some(Node::Seq(items)) => (
                true,
                items
                    .iter()
                    .filter(|i| matches!(i, Node::Map(_)))
                    .cloned()
                    .collect(),
            ),
            _ => (false, vec![node]),
        };
        for n in nodes {
            let named = |p: &[&str]| n.get_str(p).is_some_and(|s| !s.is_empty());
            let object = named(&["apiVersion"]) && named(&["kind"]) && named(&["metadata", "name"]);
            let kustomize_file = n
                .get_str(&["kind"])
                .is_some_and(|k| k.eq_ignore_ascii_case("kustomization"))
                && n.get_str(&["apiVersion"])
                    .is_some_and(|v| v.starts_with("kustomize.config.k8s.io/"));
            if is_list || (object && !kustomize_file) {
                objects.push(Resource::new(n, rset.origin.clone()));
            }
        }
    }
    Ok(objects)
}

/// gosimple/slug's `Make` as the operator sets it up (at most 63
/// characters, cut at a dash): English substitutions, lower case, runs of
/// other characters than letters, digits, `-` and `_` as one dash, no dash
/// or underscore at either end. (Its transliteration of other scripts to
/// ASCII is not done: a text outside ASCII is an error.)
pub fn slugify(s: &str) -> Result<String, String> {
    const MAX: usize = 63;
    let mut text = String::new();
    for c in s.trim().chars() {
        match c {
            '"' | '\'' | '\u{2019}' => {}
            '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}' => text.push('-'),
            '&' => text.push_str("and"),
            '@' => text.push_str("at"),
            c if c.is_ascii() => text.push(c.to_ascii_lowercase()),
            c => {
                return Err(format!(
                    "slugify: {c:?} is not ASCII: flate does not transliterate text to ASCII as the Flux Operator does"
                ));
            }
        }
    }
    let mut slug = String::with_capacity(text.len());
    for c in text.chars() {
        let c = if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
            c
        } else {
            '-'
        };
        if c == '-' && slug.ends_with('-') {
            continue;
        }
        slug.push(c);
    }
    let slug = slug.trim_matches(|c| c == '-' || c == '_');
    if slug.len() <= MAX {
        return Ok(slug.to_string());
    }
    let bytes = slug.as_bytes();
    for i in (0..=MAX).rev() {
        if bytes[i] == b'-' {
            return Ok(slug[..i].to_string());
        }
    }
    Ok(slug[..MAX].to_string())
}

/// slim-sprig's functions less its non-hermetic ones (its
/// `HermeticTxtFuncMap`).
const SLIM_SPRIG: &[&str] = &[
    "ago",
    "duration",
    "durationRound",
    "must_date_modify",
    "mustDateModify",
    "mustToDate",
    "toDate",
    "unixEpoch",
    "trunc",
    "trim",
    "upper",
    "lower",
    "title",
    "substr",
    "repeat",
    "trimall",
    "trimAll",
    "trimSuffix",
    "trimPrefix",
    "contains",
    "hasPrefix",
    "hasSuffix",
    "quote",
    "squote",
    "cat",
    "indent",
    "nindent",
    "replace",
    "plural",
    "sha1sum",
    "sha256sum",
    "adler32sum",
    "toString",
    "atoi",
    "int64",
    "int",
    "float64",
    "seq",
    "toDecimal",
    "split",
    "splitList",
    "splitn",
    "toStrings",
    "until",
    "untilStep",
    "add1",
    "add",
    "sub",
    "div",
    "mod",
    "mul",
    "randInt",
    "biggest",
    "max",
    "min",
    "maxf",
    "minf",
    "ceil",
    "floor",
    "round",
    "join",
    "sortAlpha",
    "default",
    "empty",
    "coalesce",
    "all",
    "any",
    "compact",
    "mustCompact",
    "fromJson",
    "toJson",
    "toPrettyJson",
    "toRawJson",
    "mustFromJson",
    "mustToJson",
    "mustToPrettyJson",
    "mustToRawJson",
    "ternary",
    "typeOf",
    "typeIs",
    "typeIsLike",
    "kindOf",
    "kindIs",
    "deepEqual",
    "base",
    "dir",
    "clean",
    "ext",
    "isAbs",
    "osBase",
    "osClean",
    "osDir",
    "osExt",
    "osIsAbs",
    "b64enc",
    "b64dec",
    "b32enc",
    "b32dec",
    "tuple",
    "list",
    "dict",
    "get",
    "set",
    "unset",
    "hasKey",
    "pluck",
    "keys",
    "pick",
    "omit",
    "values",
    "append",
    "push",
    "mustAppend",
    "mustPush",
    "prepend",
    "mustPrepend",
    "first",
    "mustFirst",
    "rest",
    "mustRest",
    "last",
    "mustLast",
    "initial",
    "mustInitial",
    "reverse",
    "mustReverse",
    "uniq",
    "mustUniq",
    "without",
    "mustWithout",
    "has",
    "mustHas",
    "slice",
    "mustSlice",
    "concat",
    "dig",
    "chunk",
    "mustChunk",
    "fail",
    "regexMatch",
    "mustRegexMatch",
    "regexFindAll",
    "mustRegexFindAll",
    "regexFind",
    "mustRegexFind",
    "regexReplaceAll",
    "mustRegexReplaceAll",
    "regexReplaceAllLiteral",
    "mustRegexReplaceAllLiteral",
    "regexSplit",
    "mustRegexSplit",
    "regexQuoteMeta",
    "urlParse",
    "urlJoin",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugify_follows_gosimple_slug() {
        let cases = [
            ("Hello World", "hello-world"),
            ("  feat: Add &  fix @home  ", "feat-add-and-fix-athome"),
            ("it's \"quoted\"", "its-quoted"),
            ("a\u{2014}b", "a-b"),
            ("--under_score__", "under_score"),
            ("x!!!y", "x-y"),
        ];
        for (text, want) in cases {
            assert_eq!(slugify(text).unwrap(), want, "{text:?}");
        }
        // Cut to 63 characters at the last dash within them, else at 63.
        let words = "abcdefghij-".repeat(7);
        let slug = slugify(&words).unwrap();
        assert_eq!(slug.len(), 54, "{slug}");
        assert!(slug.ends_with("abcdefghij"));
        assert_eq!(slugify(&"a".repeat(70)).unwrap().len(), 63);
        assert!(slugify("caf\u{e9}").is_err());
    }

    #[test]
    fn provider_names_as_template_keys() {
        assert_eq!(normalized_key("team1-apps"), "team1_apps");
        assert_eq!(normalized_key("My App.v2"), "my_app_v2");
        assert_eq!(normalized_key("--a--b--"), "a_b");
        assert_eq!(normalized_key("a+b"), "ab");
        assert_eq!(normalized_key("---"), "");
    }

    #[test]
    fn templates_run_between_angle_brackets() {
        let input = Value::map(BTreeMap::from([
            ("name".to_string(), Value::Str("web".into())),
            ("n".to_string(), Value::Int(2)),
        ]));
        let run = |t: &str| parse(t).and_then(|tpl| run(&tpl, Some(&input)));
        // Trim markers, comments, a `>>` inside a string, `{{` as text.
        assert_eq!(
            run("a: <<- inputs.name ->>\n<</* c */>>b: << \">>\" >> {{ x }}").unwrap(),
            "a:webb: >> {{ x }}"
        );
        assert_eq!(run("<< add inputs.n 1 >>").unwrap(), "3");
        assert_eq!(run("<< toYaml (dict \"a\" 1) >>").unwrap(), "a: 1\n");
        // Go's `missingkey=error`.
        let e = run("<< inputs.nope >>").unwrap_err();
        assert!(e.contains("map has no entry for key \"nope\""), "{e}");
        // Helm's own functions are not there.
        let e = run("<< include \"x\" . >>").unwrap_err();
        assert!(e.contains("function \"include\" not defined"), "{e}");
        let e = run("<< now >>").unwrap_err();
        assert!(e.contains("function \"now\" not defined"), "{e}");
    }

    #[test]
    fn permutations_take_one_input_of_each_provider() {
        let p = |name: &str, n: usize| Provider {
            name: name.into(),
            inputs: (0..n).map(|i| Value::Int(i as i64)).collect(),
        };
        let out = permute(vec![p("a", 2), p("b", 3)], false).unwrap();
        assert_eq!(out.len(), 6);
        // Ids: adler32 of "a=I/b=J" (Python's zlib.adler32 for the two).
        let id = |v: &Value| match v {
            Value::Map(m) => m.get("id").unwrap(),
            _ => panic!(),
        };
        assert_eq!(id(&out[0]), Value::Str("127402445".into()));
        assert_eq!(id(&out[5]), Value::Str("127861200".into()));
        // A provider without inputs is skipped, unless it is to count.
        assert_eq!(permute(vec![p("a", 2), p("b", 0)], false).unwrap().len(), 2);
        assert!(
            permute(vec![p("a", 2), p("b", 0)], true)
                .unwrap()
                .is_empty()
        );
        let e = permute(vec![p("a", 101), p("b", 100)], false).unwrap_err();
        assert!(e.contains("maximum allowed permutations"), "{e}");
    }

    #[test]
    fn a_copy_from_not_namespace_slash_name_fails_the_resource_set() {
        let text = "apiVersion: fluxcd.controlplane.io/v1\nkind: ResourceSet\nmetadata:\n  name: rs\n  namespace: ns\nspec:\n  resources:\n    - apiVersion: v1\n      kind: Secret\n      metadata:\n        name: s\n        annotations:\n          fluxcd.controlplane.io/copyFrom: just-a-name\n";
        let node = crate::yaml::parse_one(text).unwrap();
        let rs = Resource::new(node, Default::default());
        match expand(&rs, &[]) {
            Err(NotExpanded::Invalid(m)) => {
                assert!(m.contains("must be in the format 'namespace/name'"), "{m}")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn fields_of_another_type_fail_the_resource_set() {
        for (spec, want) in [
            ("inputs: {a: 1}", "spec.inputs must be a list of objects"),
            ("inputs: [1]", "spec.inputs must be a list of objects"),
            (
                "resourcesTemplate: [a]",
                "spec.resourcesTemplate must be a string",
            ),
            (
                "steps: [{name: [x]}]",
                "spec.steps[0].name must be a string",
            ),
            (
                "inputStrategy: {name: 1}",
                "spec.inputStrategy.name must be a string",
            ),
            (
                "inputStrategy: Permute",
                "spec.inputStrategy must be an object",
            ),
        ] {
            let text = format!(
                "apiVersion: fluxcd.controlplane.io/v1\nkind: ResourceSet\nmetadata:\n  name: rs\n  namespace: ns\nspec:\n  {spec}\n"
            );
            let rs = Resource::new(crate::yaml::parse_one(&text).unwrap(), Default::default());
            match expand(&rs, &[]) {
                Err(NotExpanded::Invalid(m)) => assert!(m.starts_with(want), "{spec}: {m}"),
                other => panic!("{spec}: {other:?}"),
            }
        }
    }
}
