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

/// A string as v6 quotes it: Go's `%q` between single quotes (a double
/// quote left bare, a single quote escaped). v6 unescapes `\"` in the
/// whole `%q` text, its closing quote included: a final backslash of the
/// string then loses its escape (`'a\'` for `a\`).
fn quote(s: &str) -> String {
    let q = crate::template::value::go_quote(s).replace("\\\"", "\"");
    let inner = &q[1..q.len() - 1];
    format!("'{}'", inner.replace('\'', "\\'"))
}

fn quote_list<S: AsRef<str>>(v: &[S]) -> String {
    v.iter()
        .map(|s| quote(s.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A primitive value as v6 shows it (`display`): a string quoted, null
/// as Go prints nil.
fn display(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => quote(s),
        serde_json::Value::Null => "<nil>".into(),
        serde_json::Value::Array(_) | serde_json::Value::Object(_) => "value".into(),
        other => other.to_string(),
    }
}

fn composite(v: &serde_json::Value) -> bool {
    matches!(
        v,
        serde_json::Value::Array(_) | serde_json::Value::Object(_)
    )
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

/// A number as v6's message printer shows a float (`%v`, with thousands
/// separators).
fn float_text(f: f64) -> String {
    grouped(&crate::template::value::format_float_g(f, None, false))
}

/// The first two equal items of an array, as v6 finds them (`uniqueItems`).
fn equal_items(instance: &serde_json::Value) -> Option<(usize, usize)> {
    let a = instance.as_array()?;
    (1..a.len()).find_map(|i| (0..i).find(|&j| a[i] == a[j]).map(|j| (j, i)))
}

/// An error's message as santhosh-tekuri/jsonschema v6 (as Helm v4.1
/// vendors it) words it.
fn message(kind: &ValidationErrorKind, instance: &serde_json::Value) -> String {
    use ValidationErrorKind as K;
    let num = |v: &serde_json::Value| match v.as_f64() {
        Some(f) if !(v.is_i64() || v.is_u64()) => float_text(f),
        _ => grouped(&v.to_string()),
    };
    let count = |n: Option<usize>| n.unwrap_or(0);
    match kind {
        K::Type { kind } => {
            let want = match kind {
                TypeKind::Single(t) => t.to_string(),
                // (in v6's order of the types)
                TypeKind::Multiple(s) => {
                    let order = [
                        "null", "boolean", "number", "integer", "string", "array", "object",
                    ];
                    let mut names: Vec<String> = s.iter().map(|t| t.to_string()).collect();
                    names.sort_by_key(|n| order.iter().position(|o| o == n));
                    names.join(" or ")
                }
            };
            let got = match (type_of(instance), want.as_str()) {
                ("integer", w) if !w.contains("integer") => "number",
                (g, _) => g,
            };
            format!("got {got}, want {want}")
        }
        K::Required { property } => match property.as_str() {
            Some(p) => format!("missing property {}", quote(p)),
            None => format!("missing property {property}"),
        },
        K::Enum { options } => match options.as_array() {
            Some(a) if a.iter().any(composite) => "'enum' failed".into(),
            Some(a) if a.len() == 1 => format!("value must be {}", display(&a[0])),
            Some(a) => format!(
                "value must be one of {}",
                a.iter().map(display).collect::<Vec<_>>().join(", ")
            ),
            None => "'enum' failed".into(),
        },
        K::Constant { expected_value } if composite(expected_value) => "'const' failed".into(),
        K::Constant { expected_value } => format!("value must be {}", display(expected_value)),
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
        K::MultipleOf { multiple_of } => format!(
            "multipleOf: got {}, want {}",
            num(instance),
            float_text(*multiple_of)
        ),
        K::MinLength { limit } => format!(
            "minLength: got {}, want {limit}",
            count(instance.as_str().map(|s| s.chars().count()))
        ),
        K::MaxLength { limit } => format!(
            "maxLength: got {}, want {limit}",
            count(instance.as_str().map(|s| s.chars().count()))
        ),
        K::MinItems { limit } => format!(
            "minItems: got {}, want {limit}",
            count(instance.as_array().map(Vec::len))
        ),
        K::MaxItems { limit } => format!(
            "maxItems: got {}, want {limit}",
            count(instance.as_array().map(Vec::len))
        ),
        K::AdditionalItems { limit } => format!(
            "last {} additionalItem(s) not allowed",
            count(instance.as_array().map(Vec::len)).saturating_sub(*limit)
        ),
        K::MinProperties { limit } => format!(
            "minProperties: got {}, want {limit}",
            count(instance.as_object().map(|o| o.len()))
        ),
        K::MaxProperties { limit } => format!(
            "maxProperties: got {}, want {limit}",
            count(instance.as_object().map(|o| o.len()))
        ),
        K::Pattern { pattern } => match instance.as_str() {
            Some(s) => format!("{} does not match pattern {}", quote(s), quote(pattern)),
            None => format!("value does not match pattern {}", quote(pattern)),
        },
        K::AdditionalProperties { unexpected } => {
            format!(
                "additional properties {} not allowed",
                quote_list(unexpected)
            )
        }
        K::UnevaluatedProperties { unexpected } => {
            format!(
                "unevaluated properties {} not allowed",
                quote_list(unexpected)
            )
        }
        K::UnevaluatedItems { unexpected } => {
            format!("unevaluated items {} not allowed", unexpected.join(", "))
        }
        K::FalseSchema => "false schema".into(),
        K::Format { format } => {
            let why = instance
                .as_str()
                .and_then(|s| super::schema_formats::problem(format, s));
            match why {
                Some(why) => format!("{} is not valid {format}: {why}", display(instance)),
                None => format!("{} is not valid {format}", display(instance)),
            }
        }
        K::UniqueItems => match equal_items(instance) {
            Some((i, j)) => format!("items at {i} and {j} are equal"),
            None => "items are not unique".into(),
        },
        K::Contains => "no items match contains schema".into(),
        K::AnyOf { .. } => "'anyOf' failed".into(),
        K::OneOfNotValid { .. } => "'oneOf' failed, none matched".into(),
        K::OneOfMultipleValid { context } => {
            let valid: Vec<usize> = (0..context.len())
                .filter(|&i| context[i].is_empty())
                .collect();
            match valid[..] {
                [a, b, ..] => format!("'oneOf' failed, subschemas {a}, {b} matched"),
                _ => "'oneOf' failed, more than one matched".into(),
            }
        }
        K::Not { .. } => "'not' failed".into(),
        K::PropertyNames { error } => match error.instance().as_str() {
            Some(name) => format!("invalid propertyName {}", quote(name)),
            None => "invalid propertyName".into(),
        },
        K::ContentEncoding { content_encoding } => {
            format!("value is not {} encoded", quote(content_encoding))
        }
        K::ContentMediaType { content_media_type } => {
            format!("value if not of mediatype {}", quote(content_media_type))
        }
        K::Custom { message, .. } => message.clone(),
        K::BacktrackLimitExceeded { error } => error.to_string(),
        K::RegexEngineFailure { message } => message.clone(),
        K::FromUtf8 { error } => error.to_string(),
        K::Referencing(e) => e.to_string(),
    }
}

#[derive(Clone)]
struct Leaf {
    path: Vec<String>,
    msg: String,
    /// How the error was reached through the schema (see [`steps`]).
    steps: Option<Vec<Step>>,
    /// What v6 shows below the message: the errors of each subschema of an
    /// `anyOf` or `oneOf`, or (one each) a property name's errors.
    causes: Vec<Vec<Leaf>>,
    /// The schema location of a keyword whose errors at one place v6
    /// reports as one or words from the schema, and what the crate said.
    keyword: Option<(String, Said)>,
    /// Shown at the top value's place: v6 checks a property name as a
    /// value of its own, at no place.
    nameless: bool,
}

/// What the crate's errors of a keyword that [`leaves`] rewords say.
#[derive(Clone, PartialEq)]
enum Said {
    /// `required`, `dependentRequired`, `dependencies`: these properties
    /// are missing.
    Missing(Vec<String>),
    /// `propertyNames`: a name is invalid (the leaf's causes say why).
    InvalidName,
    /// `unevaluatedProperties`: these properties are not allowed.
    Unevaluated(Vec<String>),
    /// A false schema (`additionalProperties: false`, for one).
    False,
    /// `contains` (and `minContains`, `maxContains`) not met.
    Contains,
}

/// The instance location of an error, as components.
fn instance_path(e: &jsonschema::ValidationError) -> Vec<String> {
    e.instance_path()
        .to_string()
        .split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect()
}

/// The errors v6 reports of these. v6 checks a schema's `type`, then
/// `const`, then `enum`, then `format`, and stops at the first that fails: nothing else
/// of that schema (nor of its subschemas) is checked. The crate checks
/// them all, so its other errors below such a schema, at that value, are
/// dropped.
fn type_stops<'a, 'e: 'a>(
    errors: impl Iterator<Item = &'a jsonschema::ValidationError<'e>>,
) -> Vec<&'a jsonschema::ValidationError<'e>> {
    use ValidationErrorKind as K;
    // The keywords v6 stops at, in the order it checks them.
    const STOPS: [&str; 4] = ["type", "const", "enum", "format"];
    let errors: Vec<_> = errors.collect();
    // (the schema's evaluation path with its final slash, the value's
    // place, the keyword's rank in `STOPS`)
    let mut stops: Vec<(String, String, usize)> = Vec::new();
    for e in &errors {
        let rank = match e.kind() {
            K::Type { .. } => 0,
            K::Constant { .. } => 1,
            K::Enum { .. } => 2,
            K::Format { .. } => 3,
            _ => continue,
        };
        let keyword = STOPS[rank];
        let at = e.evaluation_path().to_string();
        if let Some(schema) = at.strip_suffix(keyword) {
            stops.push((schema.to_string(), e.instance_path().to_string(), rank));
        }
    }
    let below = |value: &str, place: &str| {
        value == place || value.starts_with(place) && value[place.len()..].starts_with('/')
    };
    errors
        .into_iter()
        .filter(|e| {
            let at = e.evaluation_path().to_string();
            let value = e.instance_path().to_string();
            !stops.iter().any(|(schema, place, rank)| {
                let Some(rest) = at.strip_prefix(schema.as_str()) else {
                    return false;
                };
                let own = STOPS.iter().position(|k| *k == rest);
                below(&value, place) && own.is_none_or(|r| r > *rank)
            })
        })
        .collect()
}

/// The [`Leaf`] of an error of the crate, its causes included.
fn leaf(e: &jsonschema::ValidationError) -> Leaf {
    use ValidationErrorKind as K;
    let causes = match e.kind() {
        K::AnyOf { context } | K::OneOfNotValid { context } => context
            .iter()
            .filter(|errs| !errs.is_empty())
            .map(|errs| type_stops(errs.iter()).into_iter().map(leaf).collect())
            .collect(),
        K::PropertyNames { error } => {
            let mut cause = leaf(error);
            name_checked(&mut cause);
            vec![vec![cause]]
        }
        _ => Vec::new(),
    };
    let said = match e.kind() {
        K::Required { property } => Some(Said::Missing(
            property.as_str().map(str::to_string).into_iter().collect(),
        )),
        K::PropertyNames { .. } => Some(Said::InvalidName),
        K::UnevaluatedProperties { unexpected } => Some(Said::Unevaluated(unexpected.clone())),
        K::FalseSchema => Some(Said::False),
        K::Contains => Some(Said::Contains),
        _ => None,
    };
    Leaf {
        msg: message(e.kind(), e.instance()),
        path: instance_path(e),
        steps: steps(&e.evaluation_path().to_string()),
        causes,
        nameless: matches!(e.kind(), K::PropertyNames { .. }),
        keyword: said.map(|s| {
            let at = e.schema_path().to_string();
            // (A property name's errors are located at their own keywords
            // below `propertyNames`.)
            let at = match (&s, at.rfind("/propertyNames/")) {
                (Said::InvalidName, Some(i)) => at[..i + "/propertyNames".len()].to_string(),
                _ => at,
            };
            (at, s)
        }),
    }
}

/// Marks `l` and its causes as errors of a property name.
fn name_checked(l: &mut Leaf) {
    l.nameless = true;
    for c in &mut l.causes {
        c.iter_mut().for_each(name_checked);
    }
}

/// The leaves of the crate's errors, made as v6 makes its errors: the
/// missing properties of one `required` in one message, a property
/// name's errors under one, `dependentRequired` (and `dependencies`)
/// worded per property, `unevaluatedProperties: false` as a false schema
/// at each property.
fn leaves<'e>(
    errors: impl Iterator<Item = jsonschema::ValidationError<'e>>,
    schema: &serde_json::Value,
    instance: &serde_json::Value,
) -> Vec<Leaf> {
    let errors: Vec<_> = errors.collect();
    let mut out: Vec<Leaf> = Vec::new();
    for e in type_stops(errors.iter()) {
        let l = leaf(e);
        if let Some(last) = out.last_mut()
            && last.path == l.path
            && let (Some((at, said)), Some((last_at, last_said))) = (&l.keyword, &mut last.keyword)
            && at == last_at
        {
            match (said, last_said) {
                (Said::Missing(more), Said::Missing(missing)) => {
                    missing.extend(more.iter().cloned());
                    last.msg = format!("missing properties {}", quote_list(missing));
                    continue;
                }
                (Said::InvalidName, Said::InvalidName) if last.msg == l.msg => {
                    last.causes.extend(l.causes);
                    continue;
                }
                _ => {}
            }
        }
        out.push(l);
    }
    out.into_iter()
        .flat_map(|l| reworded(l, schema, instance))
        .collect()
}

/// The leaves v6 makes of `l` where the crate words it otherwise.
fn reworded(l: Leaf, schema: &serde_json::Value, instance: &serde_json::Value) -> Vec<Leaf> {
    let Some((at, said)) = &l.keyword else {
        return vec![l];
    };
    let keyword = at.rsplit('/').next().unwrap_or("");
    let object = instance
        .pointer(&pointer(&l.path))
        .and_then(|v| v.as_object());
    let rule = schema.pointer(at);
    let like = |msg: String, path: Vec<String>| Leaf {
        path,
        msg,
        steps: l.steps.clone(),
        causes: Vec::new(),
        keyword: None,
        nameless: l.nameless,
    };
    match (keyword, object, rule) {
        // (The crate can call a property missing that is there, when
        // `additionalProperties: false` refuses it.)
        ("required", Some(obj), _) => {
            let Said::Missing(missing) = said else {
                return vec![l];
            };
            let missing: Vec<&String> = missing
                .iter()
                .filter(|p| !obj.contains_key(p.as_str()))
                .collect();
            match missing[..] {
                [] => Vec::new(),
                [one] => vec![like(
                    format!("missing property {}", quote(one)),
                    l.path.clone(),
                )],
                _ => vec![like(
                    format!("missing properties {}", quote_list(&missing)),
                    l.path.clone(),
                )],
            }
        }
        (
            "dependentRequired" | "dependencies",
            Some(obj),
            Some(serde_json::Value::Object(deps)),
        ) => {
            let out: Vec<Leaf> = deps
                .iter()
                .filter(|(k, _)| obj.contains_key(k.as_str()))
                .filter_map(|(k, need)| {
                    let missing: Vec<&str> = need
                        .as_array()?
                        .iter()
                        .filter_map(|p| p.as_str())
                        .filter(|p| !obj.contains_key(*p))
                        .collect();
                    (!missing.is_empty()).then(|| {
                        let msg = format!(
                            "properties {} required, if {} exists",
                            quote_list(&missing),
                            quote(k)
                        );
                        like(msg, l.path.clone())
                    })
                })
                .collect();
            if out.is_empty() { vec![l] } else { out }
        }
        ("unevaluatedProperties", Some(_), Some(serde_json::Value::Bool(false))) => {
            let Said::Unevaluated(names) = said else {
                return vec![l];
            };
            names
                .iter()
                .map(|n| {
                    let mut path = l.path.clone();
                    path.push(n.clone());
                    like("false schema".into(), path)
                })
                .collect()
        }
        // (The crate words `additionalProperties: false` beside no
        // `properties` as a false schema of the object.)
        ("additionalProperties", Some(obj), Some(serde_json::Value::Bool(false)))
            if matches!(said, Said::False) =>
        {
            let parent = &at[..at.len() - "/additionalProperties".len()];
            let owner = schema.pointer(parent);
            let known = |k: &str| {
                owner
                    .and_then(|o| o.get("properties"))
                    .and_then(|p| p.as_object())
                    .is_some_and(|p| p.contains_key(k))
            };
            if owner.is_some_and(|o| o.get("patternProperties").is_some()) {
                return vec![l];
            }
            let names: Vec<&String> = obj.keys().filter(|k| !known(k)).collect();
            if names.is_empty() {
                return vec![l];
            }
            vec![like(
                format!("additional properties {} not allowed", quote_list(&names)),
                l.path.clone(),
            )]
        }
        ("contains" | "minContains" | "maxContains", _, _) => {
            let parent = at.rsplit_once('/').map_or("", |(p, _)| p);
            let items = instance.pointer(&pointer(&l.path));
            contains(&l, schema, schema.pointer(parent), items).map_or_else(|| vec![l], |c| vec![c])
        }
        _ => vec![l],
    }
}

/// A `contains` error as v6 words it: how many items matched (with
/// `minContains` and `maxContains`, drafts 2019-09 on) and, below, each
/// other item's errors. `None` (the crate's error stays) when the
/// `contains` schema refers elsewhere.
fn contains(
    l: &Leaf,
    root: &serde_json::Value,
    owner: Option<&serde_json::Value>,
    items: Option<&serde_json::Value>,
) -> Option<Leaf> {
    let owner = owner?;
    let items = items?.as_array()?;
    let mut sub = owner.get("contains")?.clone();
    let draft = root.get("$schema");
    if sub.to_string().contains("\"$ref\"") {
        // The `contains` schema with the definitions it may refer to (a
        // reference elsewhere in the document fails to build: the crate's
        // error stays).
        if root.get("$id").is_some() {
            return None;
        }
        let mut wrapper = serde_json::Map::new();
        for k in ["definitions", "$defs"] {
            if let Some(d) = root.get(k) {
                wrapper.insert(k.into(), d.clone());
            }
        }
        wrapper.insert("allOf".into(), serde_json::Value::Array(vec![sub]));
        sub = serde_json::Value::Object(wrapper);
    }
    if let (Some(draft), Some(m)) = (draft, sub.as_object_mut()) {
        m.insert("$schema".into(), draft.clone());
    }
    // (`minContains` and `maxContains` came with draft 2019-09.)
    let counted = !draft.and_then(|d| d.as_str()).is_some_and(|d| {
        ["draft-04", "draft-06", "draft-07"]
            .iter()
            .any(|o| d.contains(o))
    });
    let validator = jsonschema::options()
        .should_validate_formats(false)
        .build(&sub)
        .ok()?;
    let mut matched = Vec::new();
    let mut causes = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let mut errs = leaves(validator.iter_errors(item), &sub, item);
        if errs.is_empty() {
            matched.push(i);
            continue;
        }
        for e in &mut errs {
            e.path
                .splice(0..0, l.path.iter().cloned().chain([i.to_string()]));
            e.steps = None;
        }
        causes.push(errs);
    }
    let count = |k: &str| {
        let n = owner.get(k).and_then(|v| v.as_u64())?;
        counted.then_some(n as usize)
    };
    let at = matched
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(" ");
    let (msg, causes) = match (count("minContains"), count("maxContains")) {
        (Some(min), _) if matched.len() < min && matched.is_empty() => (
            format!("min {min} items required to match contains schema, but none matched"),
            causes,
        ),
        (Some(min), _) if matched.len() < min => (
            format!(
                "min {min} items required to match contains schema, but matched {} items at {at}",
                matched.len()
            ),
            causes,
        ),
        (_, Some(max)) if matched.len() > max => (
            format!(
                "max {max} items required to match contains schema, but matched {} items at {at}",
                matched.len()
            ),
            Vec::new(),
        ),
        _ => ("no items match contains schema".to_string(), causes),
    };
    Some(Leaf {
        msg,
        causes,
        keyword: None,
        ..l.clone()
    })
}

/// A step of an error's evaluation path that v6's error tree follows: a
/// subschema for a child of the instance (`properties`, `items`, ...), or
/// a `$ref`.
#[derive(Clone, Copy, PartialEq)]
enum Step {
    /// Which subschema (a hash of its keyword and key): a property that
    /// `properties` and `patternProperties` both check fails in each
    /// apart.
    Child(u64),
    Ref,
    /// An `allOf`, then the subschema of it ([`Step::Branch`]).
    AllOf,
    Branch(usize),
}

fn child(segments: &[&str]) -> Step {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    segments.hash(&mut h);
    Step::Child(h.finish())
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
                out.push(child(&segs[i..i + 2]));
                i += 2;
            }
            "items" if indexed => {
                out.push(child(&segs[i..i + 2]));
                i += 2;
            }
            "items" | "additionalItems" | "additionalProperties" => {
                out.push(child(&segs[i..i + 1]));
                i += 1;
            }
            "$ref" => {
                out.push(Step::Ref);
                i += 1;
            }
            "allOf" if indexed => {
                out.push(Step::AllOf);
                out.push(Step::Branch(segs[i + 1].parse().unwrap_or(0)));
                i += 2;
            }
            // (v6 adds the errors of `then`, `else` and a dependent schema
            // to the schema's own.)
            "then" | "else" => i += 1,
            "dependentSchemas" | "dependencies" => i += 2,
            // (A property name's error, below its own keyword.)
            "propertyNames" => break,
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
    AllOf(&'a [String], Vec<Item<'a>>),
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
            Step::Child(_) => (*s, leaf.path.get(children).map_or("", String::as_str)),
            Step::Ref | Step::AllOf | Step::Branch(_) => (*s, ""),
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
            Some((Step::Child(_), _)) => {
                let at = &group[0].0.path[..(children + 1).min(group[0].0.path.len())];
                out.push(single(items(&group, depth + 1, children + 1), at));
            }
            Some((Step::AllOf, _)) => {
                let at = &group[0].0.path[..children.min(group[0].0.path.len())];
                out.push(Item::AllOf(at, items(&group, depth + 1, children)));
            }
            Some((Step::Branch(_), _)) => {
                let at = &group[0].0.path[..children.min(group[0].0.path.len())];
                out.push(single(items(&group, depth + 1, children), at));
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

/// An error and below it its causes: each subschema's errors, one
/// alone, several as a group at the error's place.
fn print_leaf(l: &Leaf, indent: usize, out: &mut String) {
    let pad = "  ".repeat(indent);
    let at = if l.nameless { &[][..] } else { &l.path[..] };
    let _ = writeln!(out, "{pad}- at '{}': {}", pointer(at), l.msg);
    for c in &l.causes {
        match &c[..] {
            [one] => print_leaf(one, indent + 1, out),
            several => {
                // (at the place all of them are below)
                let mut common = &several[0].path[..];
                for e in several {
                    let n = common
                        .iter()
                        .zip(&e.path)
                        .take_while(|(a, b)| a == b)
                        .count();
                    common = &common[..n];
                }
                let common = if l.nameless { &[][..] } else { common };
                let _ = writeln!(out, "{pad}  - at '{}': validation failed", pointer(common));
                for e in several {
                    print_leaf(e, indent + 2, out);
                }
            }
        }
    }
}

fn print_item(item: &Item, indent: usize, out: &mut String) {
    let pad = "  ".repeat(indent);
    match item {
        Item::Leaf(l) => print_leaf(l, indent, out),
        // v6 shows a `$ref` with one cause as that cause.
        Item::Ref(_, c) if c.len() == 1 => print_item(&c[0], indent, out),
        Item::AllOf(at, c) => {
            let _ = writeln!(out, "{pad}- at '{}': 'allOf' failed", pointer(at));
            for i in c {
                print_item(i, indent + 1, out);
            }
        }
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
                print_leaf(l, indent, out);
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
                steps: None,
                ..(*l).clone()
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

/// The error of a reference cycle the values reach
/// ([`super::schema_cycle`]), placed in v6's error tree by the keyword
/// path that reached it.
fn cycle_leaf(c: super::schema_cycle::Cycle) -> Leaf {
    Leaf {
        path: c.at,
        msg: c.message,
        // (The path's last segment is taken for the failing keyword.)
        steps: steps(&format!("{}/$ref", c.keywords)),
        causes: Vec::new(),
        keyword: None,
        nameless: false,
    }
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
    // v6 asserts `format` in drafts before 2019-09, and only there.
    let draft = match schema.get("$schema").and_then(|s| s.as_str()) {
        Some(uri) => jsonschema::Draft::from_schema_uri(uri),
        None => jsonschema::Draft::default(),
    };
    enum_meta(&schema, draft)?;
    let formats = matches!(
        draft,
        jsonschema::Draft::Draft4 | jsonschema::Draft::Draft6 | jsonschema::Draft::Draft7
    );
    let mut options = jsonschema::options().should_validate_formats(formats);
    if formats {
        // v6's own checks, under every draft: the crate's differ (and it
        // knows some names only from later drafts).
        for name in super::schema_formats::NAMES {
            options = options.with_format(name, move |s| {
                super::schema_formats::problem(name, s).is_none()
            });
        }
    }
    let validator = match options
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
    let leaves = leaves(validator.iter_errors(&instance), &schema, &instance);
    if leaves.is_empty() {
        // (The crate passes values that reach a reference cycle; Helm's
        // validator refuses them.)
        let cycles = super::schema_cycle::cycles(&schema, &instance);
        if cycles.is_empty() {
            return Ok(());
        }
        let leaves: Vec<Leaf> = cycles.into_iter().map(cycle_leaf).collect();
        let mut out = String::new();
        print_errors(&leaves, &mut out);
        return Err(out);
    }
    let mut out = String::new();
    print_errors(&leaves, &mut out);
    Err(out)
}

/// The check of Helm's validator (santhosh-tekuri/jsonschema v6) against
/// its meta-schemas of drafts 4, 6 and 7 that the crate's do not make:
/// there, an `enum` holds one item or more, all different (the crate's
/// draft 6 and 7 meta-schemas ask only for an array). A schema that fails
/// it fails every render, as Helm's does, with Helm's words; the first
/// such `enum` in document order is reported.
fn enum_meta(schema: &serde_json::Value, draft: jsonschema::Draft) -> Result<(), String> {
    use jsonschema::Draft as D;
    let uri = match draft {
        D::Draft4 => "http://json-schema.org/draft-04/schema#",
        D::Draft6 => "http://json-schema.org/draft-06/schema#",
        D::Draft7 => "http://json-schema.org/draft-07/schema#",
        _ => return Ok(()),
    };
    let Some((at, problem)) = bad_enum(schema, draft, &mut String::new()) else {
        return Ok(());
    };
    Err(format!(
        "\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation failed with '{uri}'\n- at '{at}': {problem}"
    ))
}

/// The JSON pointer (from `at`) and the fault of the first `enum` of the
/// schema `s` that is empty or holds two equal items, following the places
/// where drafts 4 to 7 have schemas.
/// Only the keywords of the schema's draft hold schemas its meta-schema
/// checks (`if`, `then` and `else` are words without meaning in draft 4
/// or 6, `contains` and `propertyNames` in draft 4).
fn bad_enum(
    s: &serde_json::Value,
    draft: jsonschema::Draft,
    at: &mut String,
) -> Option<(String, String)> {
    use jsonschema::Draft as D;
    use serde_json::Value as J;
    let m = s.as_object()?;
    let len = at.len();
    let down = |at: &mut String, key: &str, v: &J| {
        at.push('/');
        at.push_str(&key.replace('~', "~0").replace('/', "~1"));
        let r = bad_enum(v, draft, at);
        at.truncate(len);
        r
    };
    let known = |k: &str| match k {
        "contains" | "propertyNames" => draft != D::Draft4,
        "if" | "then" | "else" => !matches!(draft, D::Draft4 | D::Draft6),
        _ => true,
    };
    for (k, v) in m.iter().filter(|(k, _)| known(k)) {
        let found = match (k.as_str(), v) {
            ("enum", J::Array(a)) if a.is_empty() => {
                Some((format!("{at}/enum"), "minItems: got 0, want 1".to_string()))
            }
            ("enum", J::Array(_)) => equal_items(v).map(|(i, j)| {
                (
                    format!("{at}/enum"),
                    format!("items at {i} and {j} are equal"),
                )
            }),
            ("properties" | "patternProperties" | "definitions" | "dependencies", J::Object(o)) => {
                o.iter().find_map(|(name, sub)| {
                    at.push('/');
                    at.push_str(k);
                    let r = down(at, name, sub);
                    at.truncate(len);
                    r
                })
            }
            ("allOf" | "anyOf" | "oneOf" | "items", J::Array(a)) => {
                a.iter().enumerate().find_map(|(i, sub)| {
                    at.push('/');
                    at.push_str(k);
                    let r = down(at, &i.to_string(), sub);
                    at.truncate(len);
                    r
                })
            }
            (
                "additionalProperties"
                | "additionalItems"
                | "items"
                | "not"
                | "contains"
                | "propertyNames"
                | "if"
                | "then"
                | "else",
                J::Object(_),
            ) => down(at, k, v),
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
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
    fn formats_are_asserted_before_draft_2019_09_only() {
        let mut w = Vec::new();
        let values = vals("ip: \"[\"\n");
        for (draft, asserted) in [
            ("http://json-schema.org/draft-04/schema#", true),
            ("http://json-schema.org/draft-06/schema#", true),
            ("http://json-schema.org/draft-07/schema#", true),
            ("https://json-schema.org/draft/2019-09/schema", false),
            ("https://json-schema.org/draft/2020-12/schema", false),
        ] {
            let schema = format!(
                r#"{{"$schema": "{draft}", "properties": {{"ip": {{"type": "string", "format": "ipv4", "pattern": "^[a-z]$"}}}}}}"#
            );
            let r = validate_one("c", schema.as_bytes(), &values, &mut w);
            if asserted {
                // (the format fails first, and v6 checks nothing after it)
                assert_eq!(
                    r.unwrap_err(),
                    "- at '/ip': '[' is not valid ipv4: expected four decimals\n",
                    "{draft}"
                );
            } else {
                let e = r.unwrap_err();
                assert!(e.contains("does not match pattern"), "{draft}: {e}");
            }
        }
        let schema = br#"{"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"ip": {"format": "ipv4"}}}"#;
        assert!(validate_one("c", schema, &vals("ip: 10.0.0.1\n"), &mut w).is_ok());
    }

    #[test]
    fn a_refused_property_is_not_also_missing() {
        // (the crate reports `name` missing as well; Helm v4.1.4 prints this)
        let schema = br#"{"properties": {"port": {}}, "required": ["name", "port", "x"], "additionalProperties": false}"#;
        let mut w = Vec::new();
        let e = validate_one("c", schema, &vals("name: {}\n"), &mut w).unwrap_err();
        assert_eq!(
            e,
            "- at '': missing properties 'port', 'x'\n- at '': additional properties 'name' not allowed\n"
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
