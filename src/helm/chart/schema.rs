//! `values.schema.json` validation, as Helm's `ValidateAgainstSchema`:
//! the top chart's schema against all values, each subchart's against its
//! section (recursively), messages worded as Helm's validator
//! (santhosh-tekuri/jsonschema v6) words them. A schema that refers to a
//! remote URL (`$ref: https://...`), which Helm would download, is not
//! fetched: it is skipped with a warning naming the URL.

use std::fmt::Write;

use jsonschema::error::{TypeKind, ValidationErrorKind};

use super::deps::WChart;
use super::values::M;
use crate::template::Value;

/// Values as JSON (integral floats as integers, as Go's JSON numbers compare).
fn to_json(v: &Value) -> serde_json::Value {
    use serde_json::Value as J;
    match v {
        Value::Nil => J::Null,
        Value::Bool(b) => J::Bool(*b),
        Value::Int(i) => J::from(*i),
        Value::Float(f) if f.fract() == 0.0 && f.abs() < 9.007_199_254_740_992e15 => {
            J::from(*f as i64)
        }
        Value::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
        Value::Str(s) => J::String(s.clone()),
        Value::List(l) => J::Array(l.iter().map(to_json).collect()),
        Value::Map(m) => map_to_json(&m.read()),
        Value::Object(o) => to_json(&o.0.plain()),
    }
}

fn map_to_json(m: &M) -> serde_json::Value {
    serde_json::Value::Object(m.iter().map(|(k, v)| (k.clone(), to_json(v))).collect())
}

/// Refuses every external resource, remembering the first URL asked for.
struct NoFetch(std::sync::Mutex<Option<String>>);

impl jsonschema::Retrieve for NoFetch {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> Result<serde_json::Value, Box<dyn std::error::Error + Send + Sync>> {
        if let Ok(mut first) = self.0.lock()
            && first.is_none()
        {
            *first = Some(uri.to_string());
        }
        Err(format!("{uri}: not fetched").into())
    }
}

/// The retriever handed to the validator (it wants ownership).
struct Fetcher(std::sync::Arc<NoFetch>);

impl jsonschema::Retrieve for Fetcher {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> Result<serde_json::Value, Box<dyn std::error::Error + Send + Sync>> {
        self.0.retrieve(uri)
    }
}

/// The first `$ref` (depth first, in document order) that names a schema
/// on the web: an `http(s)` URL, or a relative reference under an
/// `http(s)` `$id` (the bjw-s common library's `"$id": "https://…",
/// "$ref": "schemas/pod.json#/options"`). Without the fragment: the URL
/// that would be fetched. Found here rather than by compiling the schema
/// until the validator asks for it, which cost the compilation of the
/// draft's meta-schema first, and named whichever reference the compiler's
/// hash maps offered first (a different one from run to run).
fn remote_ref(v: &serde_json::Value) -> Option<String> {
    remote_ref_under(v, None)
}

fn remote_ref_under(v: &serde_json::Value, base: Option<&str>) -> Option<String> {
    match v {
        serde_json::Value::Object(m) => {
            let own;
            let base = match m.get("$id") {
                Some(serde_json::Value::String(id)) => {
                    own = resolve_ref(base, id);
                    own.as_deref().or(base)
                }
                _ => base,
            };
            if let Some(serde_json::Value::String(r)) = m.get("$ref")
                && let Some(url) = resolve_ref(base, r)
            {
                return Some(url);
            }
            m.values().find_map(|x| remote_ref_under(x, base))
        }
        serde_json::Value::Array(a) => a.iter().find_map(|x| remote_ref_under(x, base)),
        _ => None,
    }
}

/// `reference` resolved against `base` (RFC 3986, section 5.2), without
/// its fragment, when the result is an `http(s)` URL other than the base
/// document itself; otherwise `None`.
fn resolve_ref(base: Option<&str>, reference: &str) -> Option<String> {
    let r = reference.split('#').next().unwrap_or("");
    let web = |u: &str| u.starts_with("http://") || u.starts_with("https://");
    if web(r) {
        return Some(r.to_string());
    }
    let base = base.filter(|b| web(b))?.split('#').next().unwrap_or("");
    if r.is_empty() || (r.contains(':') && !r.starts_with('/') && !r.starts_with('.')) {
        // The base document itself, or another scheme (`urn:`…).
        return None;
    }
    let scheme_end = base.find("://")? + 3;
    if let Some(net) = r.strip_prefix("//") {
        return Some(format!("{}{net}", &base[..scheme_end]));
    }
    let authority_end = base[scheme_end..]
        .find('/')
        .map_or(base.len(), |i| scheme_end + i);
    let path = if r.starts_with('/') {
        r.to_string()
    } else {
        let dir = &base[authority_end..];
        let dir = &dir[..dir.rfind('/').map_or(0, |i| i + 1)];
        let dir = if dir.is_empty() { "/" } else { dir };
        format!("{dir}{r}")
    };
    let (path, query) = match path.find('?') {
        Some(i) => (&path[..i], &path[i..]),
        None => (path.as_str(), ""),
    };
    // Dot segments removed.
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').collect();
    for (i, seg) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        match *seg {
            "." => {
                if last {
                    out.push("");
                }
            }
            ".." => {
                if out.len() > 1 {
                    out.pop();
                }
                if last {
                    out.push("");
                }
            }
            s => out.push(s),
        }
    }
    let url = format!("{}{}{query}", &base[..authority_end], out.join("/"));
    (url != base).then_some(url)
}

fn quote_list(v: &[String]) -> String {
    v.iter()
        .map(|s| format!("'{s}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn json_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => format!("'{s}'"),
        other => other.to_string(),
    }
}

fn type_of(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "boolean",
        serde_json::Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        serde_json::Value::Number(_) => "number",
        serde_json::Value::String(_) => "string",
        serde_json::Value::Array(_) => "array",
        serde_json::Value::Object(_) => "object",
    }
}

/// A number with thousands separators, as v6 prints limits (`70,000`).
fn grouped(n: &str) -> String {
    let (sign, rest) = match n.strip_prefix('-') {
        Some(r) => ("-", r),
        None => ("", n),
    };
    let (int, frac) = match rest.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let mut out = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    format!("{sign}{out}{frac}")
}

/// An error's message as santhosh-tekuri/jsonschema v6 words it.
fn message(kind: &ValidationErrorKind, instance: &serde_json::Value) -> String {
    use ValidationErrorKind as K;
    let num = |v: &serde_json::Value| grouped(&v.to_string());
    match kind {
        K::Type { kind } => {
            let want = match kind {
                TypeKind::Single(t) => t.to_string(),
                TypeKind::Multiple(s) => s
                    .iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(" or "),
            };
            let got = match (type_of(instance), want.as_str()) {
                ("integer", w) if !w.contains("integer") => "number",
                (g, _) => g,
            };
            format!("got {got}, want {want}")
        }
        K::Required { property } => format!("missing property {}", json_text(property)),
        K::Enum { options } => match options.as_array() {
            Some(a) if a.len() == 1 => format!("value must be {}", json_text(&a[0])),
            Some(a) => format!(
                "value must be one of {}",
                a.iter().map(json_text).collect::<Vec<_>>().join(", ")
            ),
            None => "value must be one of the enum values".into(),
        },
        K::Constant { expected_value } => format!("value must be {}", json_text(expected_value)),
        K::Minimum { limit } => format!("minimum: got {}, want {}", num(instance), num(limit)),
        K::Maximum { limit } => format!("maximum: got {}, want {}", num(instance), num(limit)),
        K::ExclusiveMinimum { limit } => {
            format!(
                "exclusiveMinimum: got {}, want {}",
                num(instance),
                num(limit)
            )
        }
        K::ExclusiveMaximum { limit } => {
            format!(
                "exclusiveMaximum: got {}, want {}",
                num(instance),
                num(limit)
            )
        }
        K::MinLength { limit } => format!(
            "minLength: got {}, want {limit}",
            instance.as_str().map_or(0, |s| s.chars().count())
        ),
        K::MaxLength { limit } => format!(
            "maxLength: got {}, want {limit}",
            instance.as_str().map_or(0, |s| s.chars().count())
        ),
        K::MinItems { limit } => format!(
            "minItems: got {}, want {limit}",
            instance.as_array().map_or(0, |a| a.len())
        ),
        K::MaxItems { limit } => format!(
            "maxItems: got {}, want {limit}",
            instance.as_array().map_or(0, |a| a.len())
        ),
        K::MinProperties { limit } => format!(
            "minProperties: got {}, want {limit}",
            instance.as_object().map_or(0, |a| a.len())
        ),
        K::MaxProperties { limit } => format!(
            "maxProperties: got {}, want {limit}",
            instance.as_object().map_or(0, |a| a.len())
        ),
        K::Pattern { pattern } => {
            format!("{} does not match pattern '{pattern}'", json_text(instance))
        }
        K::AdditionalProperties { unexpected } => {
            format!(
                "additional properties {} not allowed",
                quote_list(unexpected)
            )
        }
        K::FalseSchema => "false schema".into(),
        K::Format { format } => format!("{} is not valid {format}", json_text(instance)),
        K::UniqueItems => "items are not unique".into(),
        K::AnyOf { .. } => "anyOf failed".into(),
        K::OneOfNotValid { .. } => "oneOf failed, none matched".into(),
        K::OneOfMultipleValid { .. } => "oneOf failed, more than one matched".into(),
        K::Not { .. } => "not failed".into(),
        other => format!("{other:?}"),
    }
}

struct Leaf {
    path: Vec<String>,
    msg: String,
    /// How the error was reached through the schema (see [`steps`]).
    steps: Option<Vec<Step>>,
}

/// A step of an error's evaluation path that v6's error tree follows: a
/// subschema for a child of the instance (`properties`, `items`, ...), or
/// a `$ref`.
#[derive(Clone, Copy, PartialEq)]
enum Step {
    Child,
    Ref,
}

/// The steps of an evaluation path (`/properties/a/$ref/type`); `None`
/// when it passes through an applicator the tree below does not model
/// (`allOf`, `anyOf`, `if`, ...).
fn steps(eval_path: &str) -> Option<Vec<Step>> {
    let segs: Vec<&str> = eval_path.split('/').skip(1).collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < segs.len() {
        if i + 1 == segs.len() {
            // The keyword that failed.
            break;
        }
        let indexed = segs[i + 1].bytes().all(|b| b.is_ascii_digit());
        match segs[i] {
            "properties" | "patternProperties" | "prefixItems" => {
                out.push(Step::Child);
                i += 2;
            }
            "items" if indexed => {
                out.push(Step::Child);
                i += 2;
            }
            "items" | "additionalItems" | "additionalProperties" => {
                out.push(Step::Child);
                i += 1;
            }
            "$ref" => {
                out.push(Step::Ref);
                i += 1;
            }
            _ => return None,
        }
    }
    Some(out)
}

/// A node of v6's error tree: an error of a keyword, a group of a
/// schema's several errors, or a `$ref`'s errors.
enum Item<'a> {
    Leaf(&'a Leaf),
    Group(&'a [String], Vec<Item<'a>>),
    Ref(&'a [String], Vec<Item<'a>>),
}

/// What a schema's errors make: one error stands alone, several form a
/// group ("validation failed") at the schema's instance location.
fn single<'a>(mut items: Vec<Item<'a>>, at: &'a [String]) -> Item<'a> {
    if items.len() == 1 {
        items.remove(0)
    } else {
        Item::Group(at, items)
    }
}

/// The errors of the schema reached by `depth` steps (at the instance
/// location `children` components deep), in the order first met.
fn items<'a>(errs: &[(&'a Leaf, &'a [Step])], depth: usize, children: usize) -> Vec<Item<'a>> {
    let mut keys: Vec<Option<(Step, &str)>> = Vec::new();
    let mut groups: Vec<Vec<(&'a Leaf, &'a [Step])>> = Vec::new();
    for &(leaf, st) in errs {
        let key = st.get(depth).map(|s| match s {
            Step::Child => (*s, leaf.path.get(children).map_or("", String::as_str)),
            Step::Ref => (*s, ""),
        });
        match keys.iter().position(|k| key.is_some() && *k == key) {
            Some(i) => groups[i].push((leaf, st)),
            None => {
                keys.push(key);
                groups.push(vec![(leaf, st)]);
            }
        }
    }
    let mut out = Vec::new();
    for (key, group) in keys.into_iter().zip(groups) {
        match key {
            None => out.extend(group.into_iter().map(|(l, _)| Item::Leaf(l))),
            Some((Step::Child, _)) => {
                let at = &group[0].0.path[..(children + 1).min(group[0].0.path.len())];
                out.push(single(items(&group, depth + 1, children + 1), at));
            }
            Some((Step::Ref, _)) => {
                let at = &group[0].0.path[..children.min(group[0].0.path.len())];
                let causes = match single(items(&group, depth + 1, children), at) {
                    Item::Group(_, c) => c,
                    other => vec![other],
                };
                out.push(Item::Ref(at, causes));
            }
        }
    }
    out
}

fn print_item(item: &Item, indent: usize, out: &mut String) {
    let pad = "  ".repeat(indent);
    match item {
        Item::Leaf(l) => {
            let _ = writeln!(out, "{pad}- at '{}': {}", pointer(&l.path), l.msg);
        }
        // v6 shows a `$ref` with one cause as that cause.
        Item::Ref(_, c) if c.len() == 1 => print_item(&c[0], indent, out),
        Item::Ref(at, c) | Item::Group(at, c) => {
            let _ = writeln!(out, "{pad}- at '{}': validation failed", pointer(at));
            for i in c {
                print_item(i, indent + 1, out);
            }
        }
    }
}

/// Prints errors as Helm does (santhosh-tekuri/jsonschema v6's error
/// tree, its first line cut): built from the errors' evaluation paths
/// where they pass only through `properties`, `items` and `$ref`, else
/// from their instance paths alone ([`print_tree`]).
fn print_errors(leaves: &[Leaf], out: &mut String) {
    let Some(errs) = leaves
        .iter()
        .map(|l| l.steps.as_deref().map(|s| (l, s)))
        .collect::<Option<Vec<_>>>()
    else {
        print_tree(leaves, 0, 0, out);
        return;
    };
    let top = match single(items(&errs, 0, 0), &[]) {
        Item::Group(_, c) => c,
        other => vec![other],
    };
    for i in &top {
        print_item(i, 0, out);
    }
}

/// Prints errors as v6's tree: errors below one property are grouped
/// ("validation failed") when there are several.
fn print_tree(leaves: &[Leaf], depth: usize, indent: usize, out: &mut String) {
    let mut groups: Vec<(Option<String>, Vec<&Leaf>)> = Vec::new();
    for l in leaves {
        let key = l.path.get(depth).cloned();
        match groups.iter_mut().find(|(k, _)| key.is_some() && *k == key) {
            Some((_, g)) => g.push(l),
            None => groups.push((key, vec![l])),
        }
    }
    let pad = "  ".repeat(indent);
    // A failure with a single cause is shown as that cause's causes.
    if groups.len() == 1 && groups[0].0.is_some() && groups[0].1.len() > 1 {
        print_tree(leaves, depth + 1, indent, out);
        return;
    }
    for (key, g) in groups {
        if key.is_none() || g.len() == 1 {
            for l in g {
                let _ = writeln!(out, "{pad}- at '{}': {}", pointer(&l.path), l.msg);
            }
            continue;
        }
        let _ = writeln!(
            out,
            "{pad}- at '{}': validation failed",
            pointer(&g[0].path[..=depth])
        );
        let owned: Vec<Leaf> = g
            .iter()
            .map(|l| Leaf {
                path: l.path.clone(),
                msg: l.msg.clone(),
                steps: None,
            })
            .collect();
        print_tree(&owned, depth + 1, indent + 1, out);
    }
}

fn pointer(p: &[String]) -> String {
    p.iter()
        .map(|s| format!("/{}", s.replace('~', "~0").replace('/', "~1")))
        .collect()
}

/// Validates one schema; `Err` holds the error tree text.
fn validate_one(
    chart: &str,
    schema: &[u8],
    values: &M,
    warn: &mut Vec<String>,
) -> Result<(), String> {
    let instance = map_to_json(values);
    // Values that surely pass need no compiled schema (the costly part),
    // nor the schema read by serde_json.
    if super::schema_quick::surely_valid(schema, &instance) {
        return Ok(());
    }
    let schema: serde_json::Value = serde_json::from_slice(schema).map_err(|e| e.to_string())?;
    if let Some(url) = remote_ref(&schema) {
        warn.push(format!(
            "{chart}: values.schema.json refers to {url}, which is not fetched: the schema is not checked"
        ));
        return Ok(());
    }
    let asked = std::sync::Arc::new(NoFetch(std::sync::Mutex::new(None)));
    let validator = match jsonschema::options()
        .should_validate_formats(false)
        .with_retriever(Fetcher(asked.clone()))
        .build(&schema)
    {
        Ok(v) => v,
        Err(e) => {
            let url = asked.0.lock().ok().and_then(|u| u.clone());
            if let Some(url) = url {
                warn.push(format!(
                    "{chart}: values.schema.json refers to {url}, which is not fetched: the schema is not checked"
                ));
                return Ok(());
            }
            return Err(format!("jsonschema: {e}"));
        }
    };
    let leaves: Vec<Leaf> = validator
        .iter_errors(&instance)
        .map(|e| {
            let path: Vec<String> = e
                .instance_path()
                .to_string()
                .split('/')
                .skip(1)
                .map(|s| s.replace("~1", "/").replace("~0", "~"))
                .collect();
            Leaf {
                msg: message(e.kind(), e.instance()),
                path,
                steps: steps(&e.evaluation_path().to_string()),
            }
        })
        .collect();
    if leaves.is_empty() {
        return Ok(());
    }
    let mut out = String::new();
    print_errors(&leaves, &mut out);
    Err(out)
}

/// `ValidateAgainstSchema`: every chart's schema; `Err` is the text after
/// "values don't meet the specifications of the schema(s) in the following chart(s):\n".
pub(crate) fn validate(w: &WChart, vals: &M, warn: &mut Vec<String>) -> Result<(), String> {
    let mut sb = String::new();
    collect(w, vals, warn, &mut sb);
    if sb.is_empty() { Ok(()) } else { Err(sb) }
}

fn collect(w: &WChart, vals: &M, warn: &mut Vec<String>, sb: &mut String) {
    if let Some(schema) = &w.chart.schema
        && let Err(e) = validate_one(&w.name, schema, vals, warn)
    {
        let _ = write!(sb, "{}:\n{e}", w.name);
        if !e.ends_with('\n') {
            sb.push('\n');
        }
    }
    for d in &w.deps {
        match vals.get(&d.name) {
            None | Some(Value::Nil) => {}
            Some(Value::Map(m)) => collect(d, &m.read(), warn, sb),
            Some(other) => {
                let ty = match other {
                    Value::Bool(_) => "bool",
                    Value::Float(_) => "float64",
                    Value::Int(_) => "int64",
                    Value::Str(_) => "string",
                    Value::List(_) => "[]interface {}",
                    _ => "map[string]interface {}",
                };
                let _ = write!(
                    sb,
                    "{}:\ninvalid type for values: expected object (map), got {ty}\n",
                    d.name
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vals(text: &str) -> M {
        match super::super::load::load_values(text).unwrap() {
            Value::Map(m) => m.to_btree(),
            _ => unreachable!(),
        }
    }

    #[test]
    fn remote_refs_are_skipped_with_a_warning() {
        let schema = br#"{"properties": {"a": {"$ref": "https://example.org/s.json"}}}"#;
        let mut w = Vec::new();
        assert!(validate_one("c", schema, &vals("a: 1\n"), &mut w).is_ok());
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("https://example.org/s.json"), "{}", w[0]);
    }

    #[test]
    fn relative_refs_under_a_web_id_are_remote() {
        let schema = br##"{"$id": "https://h.example/charts/common/values.schema.json",
            "properties": {"a": {"$ref": "#/definitions/x"}, "b": {"$ref": "schemas/pod.json#/options"},
            "c": {"$ref": "schemas/other.json"}}, "definitions": {"x": {}}}"##;
        let mut w = Vec::new();
        assert!(validate_one("c", schema, &vals("a: 1\n"), &mut w).is_ok());
        assert_eq!(
            w,
            [
                "c: values.schema.json refers to https://h.example/charts/common/schemas/pod.json, which is not fetched: the schema is not checked"
            ]
        );
    }

    #[test]
    fn references_resolve_as_rfc_3986_says() {
        let base = Some("https://h.example/a/b/c.json");
        let cases = [
            ("d.json", Some("https://h.example/a/b/d.json")),
            ("./d.json#/x", Some("https://h.example/a/b/d.json")),
            ("../d.json", Some("https://h.example/a/d.json")),
            ("../../../d.json", Some("https://h.example/d.json")),
            ("/d.json", Some("https://h.example/d.json")),
            (
                "//other.example/d.json",
                Some("https://other.example/d.json"),
            ),
            ("d.json?v=1", Some("https://h.example/a/b/d.json?v=1")),
            ("http://x.example/s", Some("http://x.example/s")),
            ("#/definitions/x", None),
            ("c.json#/definitions/x", None),
            ("", None),
            ("urn:x:y", None),
        ];
        for (r, want) in cases {
            assert_eq!(resolve_ref(base, r).as_deref(), want, "{r}");
        }
        assert_eq!(resolve_ref(None, "d.json"), None);
        assert_eq!(resolve_ref(Some("urn:x"), "d.json"), None);
        assert_eq!(
            resolve_ref(Some("https://h.example"), "d.json").as_deref(),
            Some("https://h.example/d.json")
        );
    }

    #[test]
    fn errors_worded_as_helm() {
        let schema = br#"{"type": "object", "required": ["x"], "properties": {"num": {"type": "integer", "maximum": 1000}}}"#;
        let mut w = Vec::new();
        let e = validate_one("c", schema, &vals("num: 5000\nx: 1\n"), &mut w).unwrap_err();
        assert_eq!(e, "- at '/num': maximum: got 5,000, want 1,000\n");
        let e = validate_one("c", schema, &vals("num: 1\n"), &mut w).unwrap_err();
        assert_eq!(e, "- at '': missing property 'x'\n");
    }
}
