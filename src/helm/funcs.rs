//! Helm's template functions (Helm's `funcMap` and the engine's own
//! `include`, `tpl`, `required`, `fail`), on top of Sprig's
//! ([`crate::helm::sprig`]). Arguments of the wrong Go type are reported
//! as errors of the call (Go reports them as argument conversion errors
//! instead).

use std::collections::BTreeMap;

use crate::helm::json;
use crate::helm::sprig::{self, want_str};
use crate::template::value::{OpenContainers, go_quote};
use crate::template::{Json, Templates, Value};
use crate::yaml::{Map, Node};

/// Helm wraps `required`/`fail` messages in these markers and prints
/// them as `execution error at (LOCATION): MESSAGE`.
pub const ERR_START: &str = "HELM_ERR_START";
pub const ERR_END: &str = "HELM_ERR_END";

/// A value as YAML after Helm's JSON round trip (`sigs.k8s.io/yaml`):
/// integral floats become integers.
pub fn to_node(v: &Value) -> Node {
    to_node_at(v, 0, false, &mut Walk::default())
}

/// What [`to_node_at`] found on its way.
#[derive(Default)]
struct Walk {
    /// A map key holds U+0085 (NEL).
    nel_key: bool,
    /// A map or list holds itself (Go's JSON encoder refuses it, once
    /// 1,000 maps and lists enclose it).
    cycle: bool,
    /// The maps and lists being converted.
    open: OpenContainers,
}

impl Walk {
    /// Converts a container (`id`: its address) with `f`; one already
    /// being converted is a cycle, and null.
    fn enter(&mut self, depth: usize, id: usize, f: impl FnOnce(&mut Walk) -> Node) -> Node {
        OpenContainers::enter(self, |w| &mut w.open, depth, id, f).unwrap_or_else(|| {
            self.cycle = true;
            Node::Null
        })
    }
}

/// [`to_node`] at nesting `depth`: deeper than any real data can only be a
/// map holding itself, which Go's encoder refuses; here it ends in null.
/// `exact`: with Go's types, no JSON round trip (a float stays a float).
/// `w` records a key holding U+0085 (NEL) and a map holding itself.
fn to_node_at(v: &Value, depth: usize, exact: bool, w: &mut Walk) -> Node {
    crate::template::value::nested(depth, || to_node_level(v, depth, exact, w))
}

fn to_node_level(v: &Value, depth: usize, exact: bool, w: &mut Walk) -> Node {
    if depth > crate::template::MAX_VALUE_DEPTH {
        return Node::Null;
    }
    match v {
        Value::Nil => Node::Null,
        Value::Bool(b) => Node::Bool(*b),
        Value::Int(i) => Node::Int(*i),
        Value::Float(f) if !exact && f.fract() == 0.0 && f.abs() < 9.007_199_254_740_992e15 => {
            Node::Int(*f as i64)
        }
        Value::Float(f) => Node::Float(*f),
        Value::Str(s) => Node::Str(s.clone()),
        Value::List(l) => w.enter(depth, l.as_ptr() as usize, |w| {
            Node::Seq(
                l.iter()
                    .map(|e| to_node_at(e, depth + 1, exact, w))
                    .collect(),
            )
        }),
        // Helm's `toYaml` encodes to JSON first: a nil map is `null`.
        Value::Map(m) if m.is_nil() => Node::Null,
        Value::Map(m) => w.enter(depth, m.id(), |w| {
            let mut out = Map::new();
            for (k, e) in m.read().iter() {
                w.nel_key |= crate::yaml::emit::has_nel(k);
                out.insert(k.clone(), to_node_at(e, depth + 1, exact, w));
            }
            Node::Map(out)
        }),
        // Helm's `toYaml` encodes to JSON first: an object is what Go's
        // JSON encoder makes of it (YAML then sorts a struct's fields as
        // any map's keys).
        Value::Object(o) => match o.0.json() {
            None => to_node_at(&o.0.plain(), depth + 1, exact, w),
            Some(Json::Value(v)) => to_node_at(&v, depth + 1, exact, w),
            Some(Json::Struct(members)) => {
                let m = members.into_iter().map(|(k, v)| (k.to_string(), v));
                to_node_at(&Value::map(m.collect()), depth + 1, exact, w)
            }
        },
    }
}

/// Helm's `toYaml`: the YAML text without its final newline.
///
/// Library charts encode the same values again and again (app-template
/// 4.1.1: 101 calls, 40 distinct texts): the texts of values seen before
/// are kept, per thread, with a copy of each value, and given again for a
/// value of the same content.
pub fn to_yaml(v: &Value) -> String {
    /// Per content hash: the values encoded and their texts; and the
    /// bytes of the texts kept.
    type Kept = (foldhash::HashMap<u64, Vec<(Value, String)>>, usize);
    thread_local! {
        static KEPT: std::cell::RefCell<Kept> = std::cell::RefCell::new(Default::default());
    }
    /// What is kept: texts up to 64 KiB, up to 2 MiB of them in all.
    const MAX_TEXT: usize = 64 * 1024;
    const MAX_KEPT: usize = 2 * 1024 * 1024;
    let Some(hash) = v.content_hash() else {
        return to_yaml_uncached(v);
    };
    let hit = KEPT.with(|k| {
        k.borrow().0.get(&hash).and_then(|seen| {
            seen.iter()
                .find(|(value, _)| value.same_content(v))
                .map(|(_, text)| text.clone())
        })
    });
    if let Some(text) = hit {
        return text;
    }
    let text = to_yaml_uncached(v);
    if text.len() <= MAX_TEXT {
        KEPT.with(|k| {
            let (kept, bytes) = &mut *k.borrow_mut();
            if *bytes + text.len() > MAX_KEPT {
                kept.clear();
                *bytes = 0;
            }
            *bytes += text.len();
            kept.entry(hash)
                .or_default()
                .push((v.deep_copy(), text.clone()));
        });
    }
    text
}

fn to_yaml_uncached(v: &Value) -> String {
    let text = match v {
        Value::Nil => "null\n".to_string(),
        v => {
            let mut w = Walk::default();
            let node = to_node_at(v, 0, false, &mut w);
            // A map holding itself: Go's JSON encoder fails, and `toYaml`
            // gives an empty text.
            if w.cycle {
                return String::new();
            }
            // Helm's encoder writes JSON, where Go leaves a NEL (U+0085)
            // raw, and reads that back with go-yaml v2, to which a NEL is
            // a line break: in a key (a quoted key must stay on one line)
            // that read fails, and `toYaml` gives an empty text.
            if w.nel_key {
                return String::new();
            }
            crate::yaml::to_string(&node)
        }
    };
    // go-yaml v2 ends a top-level scalar without a document end marker;
    // `toYaml` drops the final newline. (The text is cut in place: it is
    // not copied.)
    let mut text = text;
    if text.ends_with("\n...\n") {
        text.truncate(text.len() - "...\n".len());
    }
    if text.ends_with('\n') {
        text.pop();
    }
    text
}

/// Helm's `toYamlPretty`: the value encoded by go-yaml v3 with an indent
/// of 2 (no JSON round trip: a float stays a float), without the final
/// newline.
pub fn to_yaml_pretty(v: &Value) -> String {
    let text = crate::yaml::emit::to_string_v3(&to_node_at(v, 0, true, &mut Walk::default()));
    text.strip_suffix('\n').unwrap_or(&text).to_string()
}

/// Adds Sprig's and Helm's functions to a template set (Sprig's random
/// functions seeded with [`sprig::SEED`], `now` reading the system clock).
pub fn add_funcs(t: &mut Templates) {
    add_funcs_with(t, &sprig::Options::default());
}

/// Helm's `recursionMaxNums`: nested `include`s of one name allowed past
/// the first.
pub const INCLUDE_MAX_NESTED: usize = 1000;

/// [`add_funcs`] with a chosen seed and clock.
pub fn add_funcs_with(t: &mut Templates, opts: &sprig::Options) {
    sprig::add_funcs_with(t, opts);
    t.add_func("include", 2, Some(2), |ex, a| {
        let name = want_str(&a[0], "include")?;
        // Helm refuses an `include` of a name already running 1,001 times.
        if ex.enter_name(name) > INCLUDE_MAX_NESTED + 1 {
            ex.leave_name(name);
            return Err(format!(
                "rendering template has a nested reference name: {name}: unable to execute template"
            ));
        }
        let set = ex.templates as *const Templates as usize;
        let r = crate::template::memo::include(set, name, &a[1], || ex.execute(name, &a[1]))
            .map(Value::Str)
            .map_err(|e| e.to_string());
        ex.leave_name(name);
        r
    });
    t.add_func("tpl", 2, Some(2), |ex, a| {
        let text = want_str(&a[0], "tpl")?;
        // Helm parses the text into a clone of the set, under the set's
        // own name, and removes "<no value>" from the result.
        let mut set = ex.templates.layer();
        let name = set.name.clone();
        set.parse(&name, text)
            .map_err(|e| format!("cannot parse template {}: {e}", go_quote(text)))?;
        ex.execute_in(&set, &name, &a[1])
            .map(|s| Value::Str(s.replace("<no value>", "")))
            .map_err(|e| {
                format!(
                    "error during tpl function execution for {}: {e}",
                    go_quote(text)
                )
            })
    });
    t.add_func("required", 2, Some(2), |_, a| {
        let msg = want_str(&a[0], "required")?;
        match &a[1] {
            Value::Nil => Err(format!("{ERR_START}{msg}{ERR_END}")),
            Value::Str(s) if s.is_empty() => Err(format!("{ERR_START}{msg}{ERR_END}")),
            v => Ok(v.clone()),
        }
    });
    t.add_func("fail", 1, Some(1), |_, a| {
        let msg = want_str(&a[0], "fail")?;
        Err(format!("{ERR_START}{msg}{ERR_END}"))
    });
    // `lookup` needs a cluster: as in `helm template`, it finds nothing.
    t.add_func("lookup", 4, Some(4), |_, a| {
        for v in a {
            want_str(v, "lookup")?;
        }
        Ok(Value::map(BTreeMap::new()))
    });
    t.add_func("toToml", 1, Some(1), |_, a| {
        crate::helm::toml::to_toml(&a[0]).map(Value::Str)
    });
    t.add_func("fromToml", 1, Some(1), |_, a| {
        Ok(crate::helm::toml::from_toml(want_str(&a[0], "fromToml")?))
    });
    for name in ["toYaml", "mustToYaml"] {
        t.add_func(name, 1, Some(1), |_, a| Ok(Value::Str(to_yaml(&a[0]))));
    }
    t.add_func("toYamlPretty", 1, Some(1), |_, a| {
        Ok(Value::Str(to_yaml_pretty(&a[0])))
    });
    t.add_func("fromYaml", 1, Some(1), |_, a| {
        let text = want_str(&a[0], "fromYaml")?;
        Ok(match from_yaml(text) {
            Ok(Value::Map(m)) => Value::Map(m),
            Ok(Value::Nil) => Value::map(BTreeMap::new()),
            Ok(other) => error_map(format!(
                "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                json_kind(&other)
            )),
            Err(e) => error_map(e),
        })
    });
    t.add_func("fromYamlArray", 1, Some(1), |_, a| {
        let text = want_str(&a[0], "fromYamlArray")?;
        Ok(match from_yaml(text) {
            Ok(Value::List(l)) => Value::List(l),
            Ok(Value::Nil) => Value::List(Vec::new()),
            Ok(other) => Value::List(vec![Value::Str(format!(
                "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {} into Go value of type []interface {{}}",
                json_kind(&other)
            ))]),
            Err(e) => Value::List(vec![Value::Str(e)]),
        })
    });
    for (name, pretty, html) in [
        ("toJson", false, true),
        ("mustToJson", false, true),
        ("toPrettyJson", true, true),
        ("mustToPrettyJson", true, true),
        ("toRawJson", false, false),
        ("mustToRawJson", false, false),
    ] {
        let must = name.starts_with("must") || name == "toRawJson";
        t.add_func(name, 1, Some(1), move |_, a| {
            match json::encode(&a[0], pretty, html) {
                Ok(s) => Ok(Value::Str(s)),
                Err(e) if must => Err(e),
                Err(_) => Ok(Value::Str(String::new())),
            }
        });
    }
    t.add_func("fromJson", 1, Some(1), |_, a| {
        let text = want_str(&a[0], "fromJson")?;
        Ok(match json::decode(text) {
            Ok(Value::Map(m)) => Value::Map(m),
            // Go's decoder sets the map to nil for `null` (`fromYaml`
            // decodes through a converter that keeps it an empty map).
            Ok(Value::Nil) => Value::Map(crate::template::Map::nil()),
            Ok(other) => error_map(format!(
                "json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                json_kind(&other)
            )),
            Err(e) => error_map(e),
        })
    });
    t.add_func("mustFromJson", 1, Some(1), |_, a| {
        json::decode(want_str(&a[0], "mustFromJson")?)
    });
    t.add_func("fromJsonArray", 1, Some(1), |_, a| {
        let text = want_str(&a[0], "fromJsonArray")?;
        Ok(match json::decode(text) {
            Ok(Value::List(l)) => Value::List(l),
            Ok(Value::Nil) => Value::nil_slice("[]interface {}"),
            Ok(other) => Value::List(vec![Value::Str(format!(
                "json: cannot unmarshal {} into Go value of type []interface {{}}",
                json_kind(&other)
            ))]),
            Err(e) => Value::List(vec![Value::Str(e)]),
        })
    });
    let unknown = t.set_signatures(crate::helm::signatures::SIGNATURES);
    debug_assert!(unknown.is_empty(), "{unknown:?}");
}

/// How Go's JSON decoder names a value's kind in its type errors.
fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Nil => "null",
        Value::Bool(_) => "bool",
        Value::Int(_) | Value::Float(_) => "number",
        Value::Str(_) => "string",
        Value::List(_) => "array",
        Value::Map(_) | Value::Object(_) => "object",
    }
}

fn error_map(msg: String) -> Value {
    Value::map(BTreeMap::from([("Error".to_string(), Value::Str(msg))]))
}

/// A YAML node as Helm's templates see it after `sigs.k8s.io/yaml` (every
/// number a float64, through JSON).
pub fn from_node(n: &Node) -> Value {
    match n {
        Node::Null => Value::Nil,
        Node::Bool(b) => Value::Bool(*b),
        Node::Int(i) => Value::Float(*i as f64),
        Node::UInt(u) => Value::Float(*u as f64),
        Node::Float(f) => Value::Float(*f),
        Node::Str(s) => Value::Str(s.clone()),
        Node::Seq(s) => Value::List(s.iter().map(from_node).collect()),
        Node::Map(m) => Value::map(
            m.iter()
                .map(|(k, v)| (k.clone(), from_node(v)))
                .collect::<BTreeMap<_, _>>(),
        ),
    }
}

/// `sigs.k8s.io/yaml`'s `Unmarshal`, as Helm's `fromYaml` runs it: YAML
/// 1.1 scalars (`y`, `on`, `off`... are booleans, a key among them is the
/// string Go prints for it), and only the first document (an error in a
/// later one is not seen).
/// `fromYaml`'s reading: `sigs.k8s.io/yaml` (the first document; go-yaml's
/// error wording).
///
/// Charts read the same text many times (a helper's output, `include`d
/// and read back in every template: app-template reads 31 KB in 65 calls,
/// 11 KB of it distinct): what a text read to is kept per thread, and a
/// text read again gives a deep copy of it (a new map each time, as a new
/// reading gives: the caller may change it).
pub(crate) fn from_yaml(text: &str) -> Result<Value, String> {
    /// Texts and what they read to; the bytes of the texts.
    type Read = (foldhash::HashMap<String, Result<Value, String>>, usize);
    thread_local! {
        static READ: std::cell::RefCell<Read> = std::cell::RefCell::new(Default::default());
    }
    /// What is kept: texts up to 64 KiB, up to 4 MiB of them in all.
    const MAX_TEXT: usize = 64 * 1024;
    const MAX_KEPT: usize = 4 * 1024 * 1024;
    let copy = |r: &Result<Value, String>| r.as_ref().map(Value::deep_copy).map_err(Clone::clone);
    if text.len() > MAX_TEXT {
        return from_yaml_uncached(text);
    }
    if let Some(hit) = READ.with(|c| c.borrow().0.get(text).map(copy)) {
        return hit;
    }
    let read = from_yaml_uncached(text);
    READ.with(|c| {
        let (kept, bytes) = &mut *c.borrow_mut();
        if *bytes + text.len() > MAX_KEPT {
            kept.clear();
            *bytes = 0;
        }
        *bytes += text.len();
        kept.insert(text.to_string(), copy(&read));
    });
    read
}

fn from_yaml_uncached(text: &str) -> Result<Value, String> {
    crate::yaml::parse::parse_first_json_keys(text)
        .map(|n| n.as_ref().map_or(Value::Nil, from_node))
        .map_err(|e| {
            format!(
                "error converting YAML to JSON: {}",
                crate::helm::yaml_json::conversion_error(text, &e)
            )
        })
        .and_then(|v| match crate::helm::chart::values::unencodable(&v) {
            // (`.inf` and `.nan` do not encode to JSON, on the way
            // `sigs.k8s.io/yaml` takes)
            Some(e) => Err(format!("error converting YAML to JSON: {e}")),
            None => Ok(v),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indent_and_yaml() {
        let v = Value::map(BTreeMap::from([
            ("b".to_string(), Value::Float(3.0)),
            ("a".to_string(), Value::List(vec![Value::Str("x".into())])),
        ]));
        assert_eq!(to_yaml(&v), "a:\n- x\nb: 3");
    }

    /// `toYaml` of a value seen before gives the text kept for it, and
    /// only for the same content: a map changed since, a map of another
    /// Go type or a float where there was an integer is encoded anew, and
    /// a map holding itself is never kept.
    #[test]
    fn to_yaml_gives_kept_texts_for_the_same_content_only() {
        let mut t = Templates::new();
        add_funcs(&mut t);
        let text = r#"{{- $m := dict "a" 1 "l" (list "x" (dict "b" true)) }}{{ toYaml $m }}|{{ toYaml (deepCopy $m) }}|{{ $_ := set $m "a" 2 }}{{ toYaml $m }}|{{ $_ := set $m "a" 2.5 }}{{ toYaml $m }}|{{ toYaml (dict "a" 1 "l" (list "x" (dict "b" true))) }}|{{ $s := dict }}{{ $_ := set $s "s" $s }}{{ toYaml $s }}|{{ toYaml $s }}|{{ toYaml .Values.x }}|{{ toYaml (dict "x" .Values.x) }}"#;
        t.parse("t", text).unwrap();
        let data = Value::map(BTreeMap::from([(
            "Values".to_string(),
            Value::map(BTreeMap::from([("x".to_string(), Value::Float(3.0))])),
        )]));
        let out = t.execute("t", &data).unwrap();
        // What Helm 4.1.4 prints for this template (values `x: 3.0`).
        let want = "a: 1\nl:\n- x\n- b: true|a: 1\nl:\n- x\n- b: true|a: 2\nl:\n- x\n- b: true|a: 2.5\nl:\n- x\n- b: true|a: 1\nl:\n- x\n- b: true|||3|x: 3";
        assert_eq!(out, want);
        // Twice in the same thread: the kept texts give the same output.
        assert_eq!(t.execute("t", &data).unwrap(), want);
    }

    #[test]
    fn a_text_read_again_gives_maps_of_its_own() {
        let mut t = Templates::new();
        add_funcs(&mut t);
        let text = r#"{{- range $i := until 3 }}{{ $m := fromYaml "a: {b: 1}\nl: [x]" }}{{ $m.a.b }},{{ len $m.l }};{{ $_ := set $m.a "b" 2 }}{{ $_ := unset $m "l" }}{{ end }}{{ fromYaml "{" | toJson }}{{ fromYaml "{" | toJson }}"#;
        t.parse("t", text).unwrap();
        let out = t.execute("t", &Value::Nil).unwrap();
        // What Helm 4.1.4 prints for this template.
        let bad = r#"{"Error":"error converting YAML to JSON: yaml: line 1: did not find expected node content"}"#;
        assert_eq!(out, format!("1,1;1,1;1,1;{bad}{bad}"));
    }
}
