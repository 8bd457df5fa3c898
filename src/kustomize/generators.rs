//! `configMapGenerator`, `secretGenerator` and the content-hash name suffix.
//!
//! The hash is kustomize's (api/hasher): the SHA-256 of the Go JSON encoding
//! of `{kind, name, data[, binaryData]}` (Secrets: `{data, kind, name,
//! [stringData,] type}`), hex, first 10 characters with `0 1 3 a e` mapped
//! to `g h k m t`.

use std::path::Path;

use base64::Engine;
use sha2::{Digest, Sha256};

use crate::resource::{Behavior, Origin, ResMap, Resource};
use crate::yaml::{Map, Node};

use super::Error;
use super::build::Loader;
use super::kustfile::{Kustomization, node_str_map};

#[derive(Default, Clone)]
struct Options {
    labels: Vec<(String, String)>,
    annotations: Vec<(String, String)>,
    disable_hash: Option<bool>,
    immutable: Option<bool>,
}

fn read_options(n: Option<&Node>) -> Result<Options, String> {
    let Some(n) = n.filter(|n| !n.is_null()) else {
        return Ok(Options::default());
    };
    Ok(Options {
        labels: node_str_map(n.get("labels"))?,
        annotations: node_str_map(n.get("annotations"))?,
        disable_hash: n.get("disableNameSuffixHash").and_then(Node::as_bool),
        immutable: n.get("immutable").and_then(Node::as_bool),
    })
}

/// kustomize's MergeGlobalOptionsIntoLocal: local labels/annotations win,
/// the global disableNameSuffixHash/immutable apply when set.
fn merge_options(local: Options, global: &Options) -> Options {
    let mut labels = global.labels.clone();
    for (k, v) in local.labels {
        labels.retain(|(x, _)| *x != k);
        labels.push((k, v));
    }
    let mut annotations = global.annotations.clone();
    for (k, v) in local.annotations {
        annotations.retain(|(x, _)| *x != k);
        annotations.push((k, v));
    }
    Options {
        labels,
        annotations,
        disable_hash: if global.disable_hash == Some(true) {
            Some(true)
        } else {
            local.disable_hash
        },
        immutable: if global.immutable == Some(true) {
            Some(true)
        } else {
            local.immutable
        },
    }
}

fn remove_quotes(s: &str) -> &str {
    let b = s.as_bytes();
    if b.len() < 2 || b[0] != b[b.len() - 1] {
        return s;
    }
    if b[0] == b'"' || b[0] == b'\'' {
        return &s[1..s.len() - 1];
    }
    s
}

fn is_valid_key(k: &str) -> bool {
    !k.is_empty()
        && k.len() <= 253
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

enum Value {
    Text(String),
    Binary(Vec<u8>),
}

fn add_kv(
    data: &mut Vec<(String, Value)>,
    key: String,
    v: Value,
    what: &str,
) -> Result<(), String> {
    if !matches!(
        crate::yaml::resolve::resolve_plain(&key, crate::yaml::resolve::Schema::V3),
        Node::Str(_)
    ) {
        return Err(format!(
            "{what}: key \"{key}\" would be read back as a non-string map key"
        ));
    }
    if !is_valid_key(&key) {
        return Err(format!(
            "{what}: \"{key}\" is not a valid key name: a valid config key must consist of alphanumeric characters, '-', '_' or '.'"
        ));
    }
    if data.iter().any(|(k, _)| *k == key) {
        return Err(format!(
            "{what}: cannot add key \"{key}\", another key by that name already exists"
        ));
    }
    data.push((key, v));
    Ok(())
}

fn parse_env_file(text: &str, file: &str, data: &mut Vec<(String, Value)>) -> Result<(), String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_start();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, value) = match line.split_once('=') {
            Some((k, v)) => (k.to_string(), v.to_string()),
            None => {
                let k = line.trim_end().to_string();
                match std::env::var(&k) {
                    Ok(v) => (k, v),
                    Err(_) => continue,
                }
            }
        };
        if key.is_empty() {
            return Err(format!(
                "env file '{file}' line {}: invalid key '{key}'",
                i + 1
            ));
        }
        if data.iter().any(|(k, _)| *k == key) {
            return Err(format!(
                "env file '{file}': cannot add key \"{key}\", another key by that name already exists"
            ));
        }
        data.push((key, Value::Text(value)));
    }
    Ok(())
}

fn generate_one(
    k: &Kustomization,
    ldr: &Loader,
    item: &Node,
    is_secret: bool,
    global: &Options,
) -> Result<Resource, Error> {
    let field = if is_secret {
        "secretGenerator"
    } else {
        "configMapGenerator"
    };
    let s = |key: &str| {
        item.get(key)
            .and_then(Node::scalar_text)
            .unwrap_or_default()
    };
    let name = s("name");
    if name.is_empty() {
        return Err(k.err(format!("{field}: every generator needs a 'name'")));
    }
    let what = format!("{field} '{name}'");
    let list = |key: &str| -> Result<Vec<String>, Error> {
        match item.get(key) {
            None | Some(Node::Null) => Ok(Vec::new()),
            Some(Node::Seq(v)) => Ok(v.iter().filter_map(Node::scalar_text).collect()),
            Some(Node::Str(s)) => Ok(vec![s.clone()]),
            _ => Err(k.err(format!("{what}: '{key}' must be a list"))),
        }
    };
    let mut data: Vec<(String, Value)> = Vec::new();
    let mut envs = list("envs")?;
    let env = s("env");
    if !env.is_empty() {
        envs.push(env);
    }
    for e in &envs {
        let (_, text) = ldr.load(e)?;
        parse_env_file(&text, e, &mut data).map_err(|m| k.err(m))?;
    }
    for lit in list("literals")? {
        if lit.starts_with('=') {
            return Err(k.err(format!(
                "{what}: invalid literal source {lit}, expected key=value"
            )));
        }
        let (key, value) = lit.split_once('=').ok_or_else(|| {
            k.err(format!(
                "{what}: invalid literal source {lit}, expected key=value"
            ))
        })?;
        add_kv(
            &mut data,
            key.to_string(),
            Value::Text(remove_quotes(value).to_string()),
            &what,
        )
        .map_err(|m| k.err(m))?;
    }
    for f in list("files")? {
        let (key, path) = match f.split_once('=') {
            Some((key, path)) => {
                if key.is_empty() || path.is_empty() {
                    return Err(k.err(format!("{what}: key or file path is missing in '{f}'")));
                }
                (key.to_string(), path.to_string())
            }
            None => (
                Path::new(&f)
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                f.clone(),
            ),
        };
        let full = ldr.resolve(&path);
        if ldr.fs.is_dir(&full) {
            return Err(k.err(format!("{what}: '{path}' is a directory; list files")));
        }
        let (_, bytes) = ldr.load_bytes(&path)?;
        let v = match String::from_utf8(bytes) {
            Ok(t) => Value::Text(t),
            Err(e) => Value::Binary(e.into_bytes()),
        };
        add_kv(&mut data, key, v, &what).map_err(|m| k.err(m))?;
    }
    let opts = merge_options(
        read_options(item.get("options")).map_err(|m| k.err(m))?,
        global,
    );
    for (key, _) in &opts.labels {
        super::fieldspec::untagged_key_ok(key).map_err(|m| k.err(format!("{what}: {m}")))?;
    }
    let mut md = Map::new();
    md.insert("name", Node::str(name.clone()));
    let ns = s("namespace");
    if !ns.is_empty() {
        md.insert("namespace", Node::str(ns));
    }
    if !opts.labels.is_empty() {
        md.insert(
            "labels",
            Node::Map(
                opts.labels
                    .iter()
                    .map(|(a, b)| (a.clone(), Node::str(b.clone())))
                    .collect(),
            ),
        );
    }
    if !opts.annotations.is_empty() {
        md.insert(
            "annotations",
            Node::Map(
                opts.annotations
                    .iter()
                    .map(|(a, b)| (a.clone(), Node::str(b.clone())))
                    .collect(),
            ),
        );
    }
    let mut obj = Map::new();
    obj.insert("apiVersion", Node::str("v1"));
    obj.insert(
        "kind",
        Node::str(if is_secret { "Secret" } else { "ConfigMap" }),
    );
    obj.insert("metadata", Node::Map(md));
    let b64 = base64::engine::general_purpose::STANDARD;
    let mut text_data = Map::new();
    let mut bin_data = Map::new();
    for (key, v) in data {
        match (v, is_secret) {
            (Value::Text(t), false) => text_data.insert(key, Node::Str(t)),
            // kyaml wraps binaryData like Secret data (70-column lines).
            (Value::Binary(b), false) => {
                bin_data.insert(key, Node::Str(wrap_base64(&b64.encode(b))))
            }
            (Value::Text(t), true) => {
                text_data.insert(key, Node::Str(wrap_base64(&b64.encode(t.as_bytes()))))
            }
            (Value::Binary(b), true) => {
                text_data.insert(key, Node::Str(wrap_base64(&b64.encode(b))))
            }
        }
    }
    // kyaml gives a Secret its `data` map before filling it (so an empty
    // generator prints `data: {}`, and hashes it); a ConfigMap gets one
    // with its first key only.
    // kyaml sets each value with a FieldSetter, which writes a string that
    // YAML 1.1 would read as another type double-quoted: a patch that
    // replaces it keeps that style (a number becomes its string).
    for m in [&mut text_data, &mut bin_data] {
        let keys: Vec<String> = m
            .iter()
            .filter(
                |(_, v)| matches!(v, Node::Str(t) if crate::yaml::resolve::is_yaml11_non_string(t)),
            )
            .map(|(k, _)| k.clone())
            .collect();
        for k in keys {
            m.set_quoted(&k, true);
        }
    }
    if !text_data.is_empty() || is_secret {
        obj.insert("data", Node::Map(text_data));
    }
    if !bin_data.is_empty() {
        obj.insert("binaryData", Node::Map(bin_data));
    }
    if is_secret {
        let t = s("type");
        obj.insert(
            "type",
            Node::str(if t.is_empty() {
                "Opaque".to_string()
            } else {
                t
            }),
        );
    }
    if opts.immutable == Some(true) {
        obj.insert("immutable", Node::Bool(true));
    }
    let mut r = Resource::new(
        Node::Map(obj),
        Origin {
            file: Some(std::sync::Arc::new(k.file.clone())),
            line: 0,
        },
    );
    r.needs_hash = opts.disable_hash != Some(true);
    // kustomize reads any other behavior as "unspecified", which acts like
    // create.
    r.behavior = Some(match s("behavior").as_str() {
        "merge" => Behavior::Merge,
        "replace" => Behavior::Replace,
        _ => Behavior::Create,
    });
    Ok(r)
}

/// kyaml breaks base64 values (Secret data, ConfigMap binaryData) into
/// 70-character lines, each ending
/// in a newline, once the encoding is 70 characters or longer.
fn wrap_base64(enc: &str) -> String {
    const LINE: usize = 70;
    if enc.len() < LINE {
        return enc.to_string();
    }
    let mut out = String::with_capacity(enc.len() + enc.len() / LINE + 1);
    for chunk in enc.as_bytes().chunks(LINE) {
        out.push_str(std::str::from_utf8(chunk).expect("base64 is ASCII"));
        out.push('\n');
    }
    out
}

/// kustomize merges labels, annotations and data maps as
/// `map[string]string` (`GetLabels`, `GetDataMap`, ...): each value becomes
/// the string of its text (a collection or null reads as ""), the new map
/// wins, and keys are written back untagged; a multi-line value is written
/// as a block scalar.
fn merge_str_maps(old: Option<&Node>, new: Option<&Node>, null_empty: bool) -> Option<Node> {
    let mut out = Map::new();
    for n in [old, new].into_iter().flatten() {
        if let Node::Map(m) = n {
            for (k, v) in m.iter() {
                let text = match v {
                    // GetDataMap reads a null as "", GetLabels keeps its text.
                    Node::Null if null_empty => String::new(),
                    _ => m.scalar_source_text(k).unwrap_or_default(),
                };
                let block = text.contains('\n');
                // (Written by a FieldSetter: double-quoted when YAML 1.1
                // would read it as another type, see `generate_one`.)
                let quoted = block || crate::yaml::resolve::is_yaml11_non_string(&text);
                out.insert(k.clone(), Node::Str(text));
                out.set_quoted(k, quoted);
                if block {
                    out.set_print_breaks(k, crate::yaml::PRINT_LITERAL);
                }
            }
        }
    }
    if out.is_empty() {
        None
    } else {
        Some(Node::Map(out))
    }
}

/// Keys written back by kyaml are untagged (see `untagged_key_ok`).
fn check_keys(k: &Kustomization, m: Option<&Node>) -> Result<(), Error> {
    if let Some(Node::Map(m)) = m {
        for key in m.keys() {
            super::fieldspec::untagged_key_ok(key).map_err(|e| k.err(e))?;
        }
    }
    Ok(())
}

fn set_meta(r: &mut Resource, key: &str, v: Option<Node>) {
    let md = r.map_mut().entry_map("metadata").as_map_mut().expect("map");
    match v {
        Some(v) => md.insert(key, v),
        None => {
            md.remove(key);
        }
    }
}

/// Adds `res` to `m` following its behavior (kustomize's
/// appendReplaceOrMerge).
fn absorb(k: &Kustomization, m: &mut ResMap, mut res: Resource) -> Result<(), Error> {
    let id = res.cur_id();
    let matches: Vec<usize> = m
        .iter()
        .enumerate()
        .filter(|(_, r)| r.cur_id().equals(&id) || r.prev_ids.iter().any(|p| p.equals(&id)))
        .map(|(i, _)| i)
        .collect();
    let behavior = res.behavior.unwrap_or_default();
    match matches.len() {
        0 => match behavior {
            Behavior::Create => m.append(res).map_err(|e| k.err(e)),
            _ => Err(k.err(format!("id {id} does not exist; cannot merge or replace"))),
        },
        1 => {
            let old = m.resources[matches[0]].clone();
            match behavior {
                Behavior::Create => {
                    return Err(k.err(format!("id {id} exists; behavior must be merge or replace")));
                }
                Behavior::Replace | Behavior::Merge => {
                    for key in ["labels", "annotations"] {
                        let merged = merge_str_maps(
                            old.obj.get_path(&["metadata", key]),
                            res.obj.get_path(&["metadata", key]),
                            false,
                        );
                        check_keys(k, merged.as_ref())?;
                        set_meta(&mut res, key, merged);
                    }
                    res.set_name(old.name());
                    if old.namespace().is_empty() {
                        set_meta(&mut res, "namespace", None);
                    } else {
                        res.set_namespace(old.namespace());
                    }
                    res.prev_ids = old.prev_ids.clone();
                    // Build annotations come from the old object
                    // (`mergeStringMapsWithBuildAnnotations`), and the hash
                    // flag survives only if the new one has it too.
                    res.needs_hash = res.needs_hash && old.needs_hash;
                    res.prefixes = old.prefixes.clone();
                    res.suffixes = old.suffixes.clone();
                    // `copyKustomizeSpecificFields`: the vars that refer
                    // to the object keep referring to it.
                    res.ref_var_names = old.ref_var_names.clone();
                    if behavior == Behavior::Merge {
                        for key in ["data", "binaryData"] {
                            let merged = merge_str_maps(old.obj.get(key), res.obj.get(key), true);
                            check_keys(k, merged.as_ref())?;
                            match merged {
                                Some(v) => res.map_mut().insert(key, v),
                                None => {
                                    res.map_mut().remove(key);
                                }
                            }
                        }
                        res.origin = old.origin.clone();
                        // The old object's `buildMetadata` origin stays.
                        let key = super::origin::ORIGIN;
                        if let Some(o) = super::origin::annotation(&old, key) {
                            super::origin::set_annotation(&mut res, key, Some(o));
                        }
                    }
                }
            }
            m.resources[matches[0]] = res;
            Ok(())
        }
        _ => Err(k.err(format!(
            "found multiple objects that could accept merge of {id}"
        ))),
    }
}

/// Runs the generators of a kustomization, absorbing their output into `m`.
pub fn run(k: &Kustomization, ldr: &Loader, m: &mut ResMap) -> Result<(), Error> {
    run_with(k, ldr, m, &|_, _| {})
}

/// `run`, calling `mark` on each generated object (with the generator's
/// kind) before it joins the map.
pub fn run_with(
    k: &Kustomization,
    ldr: &Loader,
    m: &mut ResMap,
    mark: &dyn Fn(&mut Resource, &str),
) -> Result<(), Error> {
    let global = read_options(k.get("generatorOptions"))
        .map_err(|e| k.err(format!("generatorOptions: {e}")))?;
    for (field, is_secret, kind) in [
        ("configMapGenerator", false, "ConfigMapGenerator"),
        ("secretGenerator", true, "SecretGenerator"),
    ] {
        for item in k.list(field)? {
            let mut r = generate_one(k, ldr, &item, is_secret, &global)?;
            mark(&mut r, kind);
            absorb(k, m, r)?;
        }
    }
    // kustomize runs the HelmChartInflationGenerator after these two.
    for objects in super::helm::generate(k, ldr, ldr.opts.enable_helm)? {
        for mut r in objects {
            mark(&mut r, "HelmChartInflationGenerator");
            absorb(k, m, r)?;
        }
    }
    Ok(())
}

/// Go's `encoding/json` string encoding (with HTML escaping).
pub fn go_json_string(s: &str, out: &mut String) {
    go_json_string_with(s, true, out)
}

/// Go's `encoding/json` string encoding; `html` escapes `<`, `>` and `&`
/// as `json.Marshal` does (an `Encoder` with `SetEscapeHTML(false)` does not).
pub fn go_json_string_with(s: &str, html: bool, out: &mut String) {
    out.push('"');
    go_json_escape_with(s, html, out);
    out.push('"');
}

/// The inside of [`go_json_string_with`]: `s` escaped, without quotes.
pub fn go_json_escape_with(s: &str, html: bool, out: &mut String) {
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' if html => out.push_str(&format!("\\u{:04x}", c as u32)),
            '\u{2028}' | '\u{2029}' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
}

/// Go's `json.Marshal` of a generic value (keys sorted by bytes).
pub fn go_json(n: &Node, out: &mut String) {
    match n {
        Node::Map(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                go_json_string(k, out);
                out.push(':');
                go_json(m.get(k).expect("key"), out);
            }
            out.push('}');
        }
        Node::Seq(s) => {
            out.push('[');
            for (i, x) in s.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                go_json(x, out);
            }
            out.push(']');
        }
        Node::Str(s) => go_json_string(s, out),
        Node::Null => out.push_str("null"),
        // The hasher reads the data back into `interface{}`: every number is
        // a float64 by the time it is encoded again.
        Node::Int(i) => out.push_str(&go_json_float(*i as f64)),
        Node::UInt(u) => out.push_str(&go_json_float(*u as f64)),
        Node::Float(f) => out.push_str(&go_json_float(*f)),
        other => out.push_str(&other.scalar_text().unwrap_or_default()),
    }
}

/// Go's encoding/json float64: the shortest decimal that reads back as
/// `f`, in 'f' notation unless |f| < 1e-6 or >= 1e21 (then 'e', with
/// `e-07` shortened to `e-7`).
pub fn go_json_float(f: f64) -> String {
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let g = format!("{f:e}");
        let (mant, exp) = g.split_once('e').unwrap_or((&g, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{mant}e{sign}{:02}", exp.abs())
            .replace("e-0", "e-")
            .replace("e+0", "e+");
    }
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    // Shortest round-trip digits, written out without an exponent.
    let g = format!("{:e}", abs);
    let (mant, exp) = g.split_once('e').unwrap_or((&g, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mant.chars().filter(|c| *c != '.').collect();
    let dp = exp + 1; // position of the decimal point in `digits`
    let mut s = String::new();
    if f < 0.0 {
        s.push('-');
    }
    if dp <= 0 {
        s.push_str("0.");
        s.push_str(&"0".repeat((-dp) as usize));
        s.push_str(&digits);
    } else if dp as usize >= digits.len() {
        s.push_str(&digits);
        s.push_str(&"0".repeat(dp as usize - digits.len()));
    } else {
        s.push_str(&digits[..dp as usize]);
        s.push('.');
        s.push_str(&digits[dp as usize..]);
    }
    s
}

/// kustomize's content hash of a ConfigMap or Secret.
pub fn hash_of(r: &Resource) -> String {
    let mut m = Map::new();
    let get = |k: &str| -> Node { r.obj.get(k).cloned().unwrap_or(Node::str("")) };
    // kustomize looks the name up with `yaml.Lookup("metadata/name")`,
    // which finds no field of that literal name: the name hashes as "".
    m.insert("name", Node::str(""));
    // The hasher reads the data through JSON (`MarshalJSON`).
    let mut data = get("data");
    super::build::resolve_tagless(&mut data);
    super::build::apply_print_breaks(&mut data);
    m.insert("data", data);
    if r.kind() == "Secret" {
        m.insert("kind", Node::str("Secret"));
        m.insert("type", get("type"));
        if let Some(sd @ Node::Map(_)) = r.obj.get("stringData") {
            m.insert("stringData", sd.clone());
        }
    } else {
        m.insert("kind", Node::str("ConfigMap"));
        if let Some(bd @ Node::Map(_)) = r.obj.get("binaryData") {
            m.insert("binaryData", bd.clone());
        }
    }
    let mut enc = String::new();
    go_json(&Node::Map(m), &mut enc);
    let digest = Sha256::digest(enc.as_bytes());
    let hex: String = digest.iter().take(5).map(|b| format!("{b:02x}")).collect();
    hex.chars()
        .map(|c| match c {
            '0' => 'g',
            '1' => 'h',
            '3' => 'k',
            'a' => 'm',
            'e' => 't',
            c => c,
        })
        .collect()
}

/// Appends the content hash to the names of generated objects.
pub fn add_hashes(m: &mut ResMap) -> Result<(), Error> {
    for r in m.iter_mut() {
        if r.needs_hash {
            let h = hash_of(r);
            r.store_previous_id();
            let name = format!("{}-{}", r.name(), h);
            r.set_name(&name);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::go_json_float;

    #[test]
    fn floats_like_go_json() {
        assert_eq!(go_json_float(1.8446744073709552e19), "18446744073709552000");
        assert_eq!(go_json_float(1.5), "1.5");
        assert_eq!(go_json_float(16.0), "16");
        assert_eq!(go_json_float(1e21), "1e+21");
        assert_eq!(go_json_float(1e-7), "1e-7");
        assert_eq!(go_json_float(0.000001), "0.000001");
        assert_eq!(go_json_float(-2.5e-10), "-2.5e-10");
        assert_eq!(go_json_float(123456789.125), "123456789.125");
    }
}
