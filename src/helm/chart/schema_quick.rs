//! A quick answer to "do these values meet this `values.schema.json`?"
//! for the common case where they do, without compiling the schema.
//!
//! Compiling a schema with the `jsonschema` crate (and checking it against
//! its meta-schema) costs far more than validating a chart's values: for
//! cert-manager's 110 KB schema, a third of the whole render. Almost every
//! render passes, so this module walks the schema and the values together
//! and answers `true` only when it is sure the values are valid *and* the
//! crate would compile the schema. Anything else (an error to report, a
//! keyword it does not implement, a reference it cannot resolve, a draft
//! it does not know) answers `false`, and the caller compiles the schema
//! with the crate as before: the errors, their wording and every edge stay
//! the crate's.
//!
//! So the rule for every keyword here is one-sided: a `true` must never be
//! given where the crate would report an error or fail to compile; a
//! `false` where the values are valid only costs time.

use std::borrow::Cow;

use jsonschema::Draft;
use serde_json::{Number, Value as J};

/// Deepest nesting of schemas followed (references included) before
/// giving up: a reference cycle that does not descend into the values
/// would otherwise not end.
const MAX_DEPTH: usize = 64;

/// Whether `instance` surely meets the schema whose text is `schema`
/// (see the module comment).
pub(super) fn surely_valid(schema: &[u8], instance: &J) -> bool {
    let Some(schema) = parse(schema) else {
        return false;
    };
    let draft = match schema.get("$schema") {
        Some(S::Str(uri)) => Draft::from_schema_uri(uri),
        Some(_) => return false,
        None => Draft::default(),
    };
    if !matches!(
        draft,
        Draft::Draft6 | Draft::Draft7 | Draft::Draft201909 | Draft::Draft202012
    ) {
        return false;
    }
    // (Drafts 6 and 7 assert `format`, which this module does not check.)
    if matches!(draft, Draft::Draft6 | Draft::Draft7) && mentions_format(&schema) {
        return false;
    }
    let q = Quick {
        root: &schema,
        refs_override: matches!(draft, Draft::Draft6 | Draft::Draft7),
    };
    well_formed(&schema, &schema, true) && q.valid(&schema, instance, 0)
}

/// Whether a `format` member is anywhere in the schema.
fn mentions_format(s: &S) -> bool {
    match s {
        S::Obj(m) => m.iter().any(|(k, v)| k == "format" || mentions_format(v)),
        S::Arr(a) => a.iter().any(mentions_format),
        _ => false,
    }
}

/// A schema as read here: strings borrowed from the text where they have
/// no escapes, objects as their members in order.
#[derive(Debug)]
enum S<'a> {
    Null,
    Bool(bool),
    Num(Number),
    Str(Cow<'a, str>),
    Arr(Vec<S<'a>>),
    Obj(Vec<(Cow<'a, str>, S<'a>)>),
}

impl<'a> S<'a> {
    /// A member of an object: the last of that name, as serde_json keeps.
    fn get(&self, k: &str) -> Option<&S<'a>> {
        match self {
            S::Obj(m) => m.iter().rev().find(|(n, _)| n == k).map(|(_, v)| v),
            _ => None,
        }
    }

    fn as_str(&self) -> Option<&str> {
        match self {
            S::Str(s) => Some(s),
            _ => None,
        }
    }

    fn as_array(&self) -> Option<&[S<'a>]> {
        match self {
            S::Arr(a) => Some(a),
            _ => None,
        }
    }

    fn as_u64(&self) -> Option<u64> {
        match self {
            S::Num(n) => n.as_u64(),
            _ => None,
        }
    }

    fn is_schema(&self) -> bool {
        matches!(self, S::Bool(_) | S::Obj(_))
    }

    /// As a serde_json value (for comparing with values).
    fn to_json(&self) -> J {
        match self {
            S::Null => J::Null,
            S::Bool(b) => J::Bool(*b),
            S::Num(n) => J::Number(n.clone()),
            S::Str(s) => J::String(s.to_string()),
            S::Arr(a) => J::Array(a.iter().map(S::to_json).collect()),
            S::Obj(m) => J::Object(
                m.iter()
                    .map(|(k, v)| (k.to_string(), v.to_json()))
                    .collect(),
            ),
        }
    }
}

/// Deepest nesting of arrays and objects read (serde_json stops at 128).
const MAX_NESTING: usize = 100;

/// Reads JSON text as RFC 8259 has it; `None` for anything else, and for
/// what this reader does not take on (numbers serde_json might round
/// differently, deep nesting): serde_json then reads the text as before.
fn parse(text: &[u8]) -> Option<S<'_>> {
    let text = std::str::from_utf8(text).ok()?;
    let mut r = JsonReader {
        s: text,
        b: text.as_bytes(),
        i: 0,
    };
    let v = r.value(0)?;
    r.ws();
    (r.i == r.b.len()).then_some(v)
}

struct JsonReader<'a> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
}

impl<'a> JsonReader<'a> {
    fn ws(&mut self) {
        let rest = &self.b[self.i..];
        self.i += rest
            .iter()
            .position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
            .unwrap_or(rest.len());
    }

    fn eat(&mut self, word: &str) -> Option<()> {
        self.b[self.i..]
            .starts_with(word.as_bytes())
            .then(|| self.i += word.len())
    }

    /// Whether the collection closes here with `close` (passed if so).
    fn closes(&mut self, close: u8) -> bool {
        self.ws();
        let closes = self.b.get(self.i) == Some(&close);
        self.i += usize::from(closes);
        closes
    }

    /// After an item: `Some(false)` at a comma, `Some(true)` at `close`
    /// (both passed), `None` at anything else.
    fn next_or_close(&mut self, close: u8) -> Option<bool> {
        self.ws();
        let c = *self.b.get(self.i)?;
        self.i += 1;
        match c {
            b',' => Some(false),
            c if c == close => Some(true),
            _ => None,
        }
    }

    fn value(&mut self, depth: usize) -> Option<S<'a>> {
        self.ws();
        match *self.b.get(self.i)? {
            b'n' => self.eat("null").map(|()| S::Null),
            b't' => self.eat("true").map(|()| S::Bool(true)),
            b'f' => self.eat("false").map(|()| S::Bool(false)),
            b'"' => self.string().map(S::Str),
            b'[' if depth < MAX_NESTING => {
                self.i += 1;
                let mut a = Vec::new();
                if !self.closes(b']') {
                    loop {
                        a.push(self.value(depth + 1)?);
                        if self.next_or_close(b']')? {
                            break;
                        }
                    }
                }
                Some(S::Arr(a))
            }
            b'{' if depth < MAX_NESTING => {
                self.i += 1;
                let mut m = Vec::new();
                if !self.closes(b'}') {
                    loop {
                        self.ws();
                        if self.b.get(self.i) != Some(&b'"') {
                            return None;
                        }
                        let k = self.string()?;
                        self.ws();
                        if self.b.get(self.i) != Some(&b':') {
                            return None;
                        }
                        self.i += 1;
                        m.push((k, self.value(depth + 1)?));
                        if self.next_or_close(b'}')? {
                            break;
                        }
                    }
                }
                Some(S::Obj(m))
            }
            b'-' | b'0'..=b'9' => self.number().map(S::Num),
            _ => None,
        }
    }

    /// A string (at its opening quote).
    fn string(&mut self) -> Option<Cow<'a, str>> {
        self.i += 1;
        let start = self.i;
        let mut out: Option<String> = None;
        loop {
            let from = self.i;
            let run = self.b[from..]
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
            self.i += run;
            if let Some(o) = out.as_mut() {
                o.push_str(&self.s[from..self.i]);
            }
            match self.b[self.i] {
                b'"' => {
                    self.i += 1;
                    return Some(match out {
                        Some(o) => Cow::Owned(o),
                        None => Cow::Borrowed(&self.s[start..self.i - 1]),
                    });
                }
                b'\\' => {}
                _ => return None,
            }
            let o = out.get_or_insert_with(|| self.s[start..self.i].to_string());
            let e = *self.b.get(self.i + 1)?;
            self.i += 2;
            o.push(match e {
                b'"' => '"',
                b'\\' => '\\',
                b'/' => '/',
                b'b' => '\u{8}',
                b'f' => '\u{c}',
                b'n' => '\n',
                b'r' => '\r',
                b't' => '\t',
                b'u' => {
                    let hi = self.hex4()?;
                    if (0xD800..0xDC00).contains(&hi) {
                        self.eat("\\u")?;
                        let lo = self.hex4()?;
                        if !(0xDC00..0xE000).contains(&lo) {
                            return None;
                        }
                        char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))?
                    } else {
                        char::from_u32(hi)?
                    }
                }
                _ => return None,
            });
        }
    }

    fn hex4(&mut self) -> Option<u32> {
        let h = self.s.get(self.i..self.i + 4)?;
        if !h.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        self.i += 4;
        u32::from_str_radix(h, 16).ok()
    }

    /// A number. Integers as serde_json holds them (u64, else i64, else
    /// f64); a fraction or exponent only when the value surely reads the
    /// same in every correct parser (15 digits at most, a small exponent).
    fn number(&mut self) -> Option<Number> {
        let start = self.i;
        let digits = |r: &mut Self| {
            let from = r.i;
            while r.b.get(r.i).is_some_and(u8::is_ascii_digit) {
                r.i += 1;
            }
            r.i - from
        };
        if self.b[self.i] == b'-' {
            self.i += 1;
        }
        let int_start = self.i;
        let n = digits(self);
        if n == 0 || (n > 1 && self.b[int_start] == b'0') {
            return None;
        }
        let mut float = false;
        let mut frac = 0;
        if self.b.get(self.i) == Some(&b'.') {
            self.i += 1;
            frac = digits(self);
            if frac == 0 {
                return None;
            }
            float = true;
        }
        let mut exp = 0i32;
        if let Some(b'e' | b'E') = self.b.get(self.i) {
            self.i += 1;
            let neg = match self.b.get(self.i) {
                Some(b'-') => {
                    self.i += 1;
                    true
                }
                Some(b'+') => {
                    self.i += 1;
                    false
                }
                _ => false,
            };
            let e_start = self.i;
            let e = digits(self);
            if e == 0 || e > 3 {
                return None;
            }
            exp = self.s[e_start..self.i].parse().ok()?;
            if neg {
                exp = -exp;
            }
            float = true;
        }
        let text = &self.s[start..self.i];
        if !float {
            if text.starts_with("-0") {
                // serde_json reads -0 as a float.
                return None;
            }
            if let Ok(u) = text.parse::<u64>() {
                return Some(Number::from(u));
            }
            if let Ok(i) = text.parse::<i64>() {
                return Some(Number::from(i));
            }
            return None;
        }
        let significant = self.s[int_start..int_start + n]
            .trim_start_matches('0')
            .len()
            + frac;
        if significant > 15 || exp.abs() > 22 {
            return None;
        }
        Number::from_f64(text.parse().ok()?)
    }
}

struct Quick<'s, 'a> {
    root: &'s S<'a>,
    /// Drafts 6 and 7: a `$ref` makes its siblings ignored.
    refs_override: bool,
}

/// Keywords that only annotate: no effect on validity (`format` included:
/// formats are not asserted, as in Helm).
fn annotation(k: &str) -> bool {
    matches!(
        k,
        "$schema"
            | "$id"
            | "$comment"
            | "$defs"
            | "definitions"
            | "title"
            | "description"
            | "default"
            | "examples"
            | "deprecated"
            | "readOnly"
            | "writeOnly"
            | "format"
    )
}

/// Keywords this module checks.
fn implemented(k: &str) -> bool {
    matches!(
        k,
        "$ref"
            | "type"
            | "enum"
            | "const"
            | "properties"
            | "additionalProperties"
            | "patternProperties"
            | "required"
            | "items"
            | "minItems"
            | "maxItems"
            | "uniqueItems"
            | "minLength"
            | "maxLength"
            | "minProperties"
            | "maxProperties"
            | "minimum"
            | "maximum"
            | "exclusiveMinimum"
            | "exclusiveMaximum"
            | "multipleOf"
            | "allOf"
            | "anyOf"
            | "oneOf"
    )
}

/// Every other keyword of drafts 4 to 2020-12: meeting one makes the whole
/// quick answer `false`. (A name in none of the drafts is ignored by the
/// crate and by Helm's validator alike, and so here.)
fn other_keyword(k: &str) -> bool {
    matches!(
        k,
        "id" | "$anchor"
            | "$dynamicRef"
            | "$dynamicAnchor"
            | "$recursiveRef"
            | "$recursiveAnchor"
            | "$vocabulary"
            | "pattern"
            | "propertyNames"
            | "dependentRequired"
            | "dependentSchemas"
            | "dependencies"
            | "prefixItems"
            | "additionalItems"
            | "contains"
            | "minContains"
            | "maxContains"
            | "unevaluatedItems"
            | "unevaluatedProperties"
            | "not"
            | "if"
            | "then"
            | "else"
            | "contentEncoding"
            | "contentMediaType"
            | "contentSchema"
    )
}

const TYPES: [&str; 7] = [
    "null", "boolean", "object", "array", "number", "integer", "string",
];

fn non_negative_int(v: &S) -> Option<u64> {
    v.as_u64()
}

/// Whether `s`, a schema somewhere in `root`, and everything under it are
/// shaped as the meta-schema requires for the keywords this module knows,
/// uses no other keyword, and refers only to places of `root` that exist.
/// (`$id` and `$schema` are allowed on the root only: elsewhere they would
/// start a resource of its own.)
fn well_formed(root: &S, s: &S, at_root: bool) -> bool {
    let m = match s {
        S::Bool(_) => return true,
        S::Obj(m) => m,
        _ => return false,
    };
    let strings_once = |a: &[S]| {
        a.iter().enumerate().all(|(i, t)| {
            t.as_str()
                .is_some_and(|t| !a[..i].iter().any(|u| u.as_str() == Some(t)))
        })
    };
    m.iter().all(|(k, v)| match k.as_ref() {
        "$schema" | "$id" => at_root && matches!(v, S::Str(_)),
        "$comment" | "title" | "description" | "format" => matches!(v, S::Str(_)),
        "default" | "const" => true,
        "examples" => matches!(v, S::Arr(_)),
        // (Drafts 4 to 7 as Helm's validator has them also want an `enum`
        // of one item or more, all different: see `schema::enum_meta`.)
        "enum" => match v {
            S::Arr(a) => {
                let items: Vec<J> = a.iter().map(|e| e.to_json()).collect();
                !items.is_empty()
                    && (1..items.len())
                        .all(|i| (0..i).all(|j| equal(&items[i], &items[j]) == Some(false)))
            }
            _ => false,
        },
        "deprecated" | "readOnly" | "writeOnly" | "uniqueItems" => matches!(v, S::Bool(_)),
        "$defs" | "definitions" | "properties" => match v {
            S::Obj(m) => m.iter().all(|(_, s)| well_formed(root, s, false)),
            _ => false,
        },
        "additionalProperties" | "items" => well_formed(root, v, false),
        "patternProperties" => match v {
            S::Obj(m) => m
                .iter()
                .all(|(p, s)| plain_pattern(p) && well_formed(root, s, false)),
            _ => false,
        },
        "allOf" | "anyOf" | "oneOf" => v
            .as_array()
            .is_some_and(|a| !a.is_empty() && a.iter().all(|s| well_formed(root, s, false))),
        "type" => match v {
            S::Str(t) => TYPES.contains(&t.as_ref()),
            S::Arr(a) => {
                !a.is_empty()
                    && strings_once(a)
                    && a.iter()
                        .all(|t| t.as_str().is_some_and(|t| TYPES.contains(&t)))
            }
            _ => false,
        },
        "required" => v.as_array().is_some_and(strings_once),
        "minItems" | "maxItems" | "minLength" | "maxLength" | "minProperties" | "maxProperties" => {
            non_negative_int(v).is_some()
        }
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => {
            matches!(v, S::Num(_))
        }
        "multipleOf" => v.as_u64().is_some_and(|n| n > 0),
        "$ref" => v.as_str().and_then(|r| resolve(root, r)).is_some(),
        k if other_keyword(k) => false,
        _ => true,
    })
}

/// Whether `p`, a `patternProperties` name, is a regular expression that
/// the crate surely compiles (it fails the whole schema on one it does
/// not, and so does Helm's validator): a small, plain subset of the
/// syntax every engine reads alike. Letters, digits, `_ - . /`, the
/// anchors, `|`, groups without `?` (nested at most 16 deep), `* + ?`
/// after something to repeat (not after another, so no lazy forms),
/// escapes of `d w s D W S` and of the syntax's own characters, and
/// classes of such characters and of ranges of letters or digits going
/// up (`[a-z0-9_-]`, `[^.]`). Braces, back-references, look-arounds,
/// Unicode classes, `--` in a class: `false`.
fn plain_pattern(p: &str) -> bool {
    const ESCAPED: &[u8] = br"dwsDWS.-\()[]*+?^$|";
    let plain = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'/');
    let b = p.as_bytes();
    if b.len() > 256 {
        return false;
    }
    let (mut i, mut depth, mut repeatable) = (0, 0, false);
    while i < b.len() {
        match b[i] {
            c if plain(c) => repeatable = true,
            b'*' | b'+' | b'?' if repeatable => repeatable = false,
            b'^' | b'$' | b'|' => repeatable = false,
            b'(' if b.get(i + 1) != Some(&b'?') && depth < 16 => {
                depth += 1;
                repeatable = false;
            }
            b')' if depth > 0 => {
                depth -= 1;
                repeatable = true;
            }
            b'\\' if b.get(i + 1).is_some_and(|c| ESCAPED.contains(c)) => {
                i += 1;
                repeatable = true;
            }
            b'[' => {
                i += 1;
                if b.get(i) == Some(&b'^') {
                    i += 1;
                }
                let start = i;
                loop {
                    match b.get(i) {
                        Some(b']') if i > start => break,
                        Some(b'\\') if b.get(i + 1).is_some_and(|c| ESCAPED.contains(c)) => {
                            // An escape is never one end of a range.
                            if b.get(i + 2) == Some(&b'-') && b.get(i + 3) != Some(&b']') {
                                return false;
                            }
                            i += 2;
                        }
                        // `--` is not read alike (a set difference to some).
                        Some(b'-') if b.get(i + 1) == Some(&b'-') => return false,
                        Some(&c) if plain(c) => match (b.get(i + 1), b.get(i + 2)) {
                            (Some(b'-'), Some(&d)) if d != b']' => {
                                let ends = c.is_ascii_alphanumeric() && d.is_ascii_alphanumeric();
                                if !ends || d < c {
                                    return false;
                                }
                                i += 3;
                            }
                            _ => i += 1,
                        },
                        _ => return false,
                    }
                }
                repeatable = true;
            }
            _ => return false,
        }
        i += 1;
    }
    depth == 0
}

/// The schema a `$ref` names, when it is a JSON pointer into the same
/// document (`#` or `#/a/b`, no percent-encoding).
fn resolve<'s, 'a>(root: &'s S<'a>, r: &str) -> Option<&'s S<'a>> {
    let pointer = r.strip_prefix('#')?;
    if pointer.contains('%') {
        return None;
    }
    if pointer.is_empty() {
        return Some(root);
    }
    let mut at = root;
    for token in pointer.strip_prefix('/')?.split('/') {
        let token = if token.contains('~') {
            Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
        } else {
            Cow::Borrowed(token)
        };
        at = match at {
            S::Obj(_) => at.get(&token)?,
            S::Arr(a) => {
                let i: usize = token.parse().ok()?;
                if i.to_string() != *token {
                    return None;
                }
                a.get(i)?
            }
            _ => return None,
        };
    }
    at.is_schema().then_some(at)
}

/// Whether a JSON number is an integer for `type: integer`, as the crate
/// reads it: one held as an integer, or a float without a fraction
/// (`2.0`).
fn is_int(n: &Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
}

/// The largest integer every `f64` below it holds exactly (2^53).
const EXACT: u64 = 1 << 53;

/// A number's value as an `i64` when it is an integer held exactly (a
/// float without a fraction, as `2.0`, too).
fn int_value(n: &Number) -> Option<i64> {
    n.as_i64().or_else(|| {
        n.as_f64()
            .filter(|f| f.fract() == 0.0 && f.abs() <= EXACT as f64)
            .map(|f| f as i64)
    })
}

/// A number as an exact `f64`, when it is one.
fn exact_f64(n: &Number) -> Option<f64> {
    if let Some(i) = n.as_i64() {
        return (i.unsigned_abs() <= EXACT).then_some(i as f64);
    }
    if let Some(u) = n.as_u64() {
        return (u <= EXACT).then_some(u as f64);
    }
    n.as_f64()
}

/// JSON equality as JSON Schema has it (`1` equals `1.0`); `None` when a
/// number cannot be compared exactly.
fn equal(a: &J, b: &J) -> Option<bool> {
    Some(match (a, b) {
        (J::Number(x), J::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(x), Some(y)) => x == y,
            _ => exact_f64(x)? == exact_f64(y)?,
        },
        (J::Array(x), J::Array(y)) => {
            if x.len() != y.len() {
                return Some(false);
            }
            for (x, y) in x.iter().zip(y) {
                if !equal(x, y)? {
                    return Some(false);
                }
            }
            true
        }
        (J::Object(x), J::Object(y)) => {
            if x.len() != y.len() {
                return Some(false);
            }
            for (k, x) in x {
                match y.get(k) {
                    Some(y) if equal(x, y)? => {}
                    _ => return Some(false),
                }
            }
            true
        }
        (J::Number(_), _) | (_, J::Number(_)) => false,
        _ => a == b,
    })
}

fn type_matches(t: &str, v: &J) -> bool {
    match (t, v) {
        ("null", J::Null)
        | ("boolean", J::Bool(_))
        | ("object", J::Object(_))
        | ("array", J::Array(_))
        | ("number", J::Number(_))
        | ("string", J::String(_)) => true,
        ("integer", J::Number(n)) => is_int(n),
        _ => false,
    }
}

/// Whether `v` is surely not of the JSON Schema type `t`.
fn surely_not_type(t: &str, v: &J) -> bool {
    TYPES.contains(&t) && !type_matches(t, v)
}

/// `value` compared with a limit: `Some(ordering)` when both compare exactly.
fn compare(value: &Number, limit: &S) -> Option<std::cmp::Ordering> {
    let S::Num(limit) = limit else {
        return None;
    };
    match (value.as_i64(), limit.as_i64()) {
        (Some(v), Some(l)) => Some(v.cmp(&l)),
        _ => exact_f64(value)?.partial_cmp(&exact_f64(limit)?),
    }
}

impl Quick<'_, '_> {
    /// Whether `v` surely meets the schema `s` (member of each object in
    /// the text checked, a repeated name's earlier values included: that
    /// only asks more than serde_json, which keeps the last).
    fn valid(&self, s: &S, v: &J, depth: usize) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        let m = match s {
            S::Bool(b) => return *b,
            S::Obj(m) => m,
            _ => return false,
        };
        if self.refs_override
            && let Some(r) = s.get("$ref")
        {
            return self.valid_ref(r, v, depth);
        }
        m.iter().all(|(k, kv)| self.keyword(s, k, kv, v, depth))
    }

    /// Whether `v` surely does not meet the schema `s`: `false`, or a
    /// `type` that `v` is surely not of (a `$ref` beside it in drafts 6
    /// and 7 overrides it: no answer then).
    fn surely_fails(&self, s: &S, v: &J) -> bool {
        match s {
            S::Bool(b) => !*b,
            S::Obj(_) if self.refs_override && s.get("$ref").is_some() => false,
            S::Obj(_) => match s.get("type") {
                Some(S::Str(t)) => surely_not_type(t, v),
                Some(S::Arr(ts)) => {
                    !ts.is_empty()
                        && ts
                            .iter()
                            .all(|t| t.as_str().is_some_and(|t| surely_not_type(t, v)))
                }
                _ => false,
            },
            _ => false,
        }
    }

    fn valid_ref(&self, r: &S, v: &J, depth: usize) -> bool {
        r.as_str()
            .and_then(|r| resolve(self.root, r))
            .is_some_and(|target| self.valid(target, v, depth + 1))
    }

    fn keyword(&self, s: &S, k: &str, kv: &S, v: &J, depth: usize) -> bool {
        use std::cmp::Ordering::{Greater, Less};
        let count = |n: usize, want: fn(u64, u64) -> bool| {
            non_negative_int(kv).is_some_and(|limit| want(n as u64, limit))
        };
        match (k, v) {
            ("$ref", _) => self.valid_ref(kv, v, depth),
            ("type", _) => match kv {
                S::Str(t) => type_matches(t, v),
                S::Arr(ts) => ts
                    .iter()
                    .any(|t| t.as_str().is_some_and(|t| type_matches(t, v))),
                _ => false,
            },
            ("enum", _) => kv
                .as_array()
                .is_some_and(|a| a.iter().any(|e| equal(&e.to_json(), v) == Some(true))),
            ("const", _) => equal(&kv.to_json(), v) == Some(true),
            ("properties", J::Object(o)) => {
                matches!(kv, S::Obj(_))
                    && o.iter().all(|(name, item)| {
                        kv.get(name).is_none_or(|p| self.valid(p, item, depth + 1))
                    })
            }
            // Every value is held to every pattern's schema, whether its
            // name matches or not: more than asked, so never a wrong
            // `true`, and no regular expression to run (the engines'
            // readings of a pattern are not all alike).
            ("patternProperties", J::Object(o)) => match kv {
                S::Obj(patterns) => patterns
                    .iter()
                    .all(|(_, p)| o.values().all(|item| self.valid(p, item, depth + 1))),
                _ => false,
            },
            ("additionalProperties", J::Object(o)) => {
                let props = s.get("properties");
                o.iter()
                    .filter(|(name, _)| props.is_none_or(|p| p.get(name).is_none()))
                    .all(|(_, item)| self.valid(kv, item, depth + 1))
            }
            ("required", J::Object(o)) => kv.as_array().is_some_and(|a| {
                a.iter()
                    .all(|r| r.as_str().is_some_and(|r| o.contains_key(r)))
            }),
            ("items", J::Array(a)) => a.iter().all(|item| self.valid(kv, item, depth + 1)),
            ("minItems", J::Array(a)) => count(a.len(), |n, l| n >= l),
            ("maxItems", J::Array(a)) => count(a.len(), |n, l| n <= l),
            ("uniqueItems", J::Array(a)) => match kv {
                S::Bool(false) => true,
                S::Bool(true) => a
                    .iter()
                    .enumerate()
                    .all(|(i, x)| a[..i].iter().all(|y| equal(x, y) == Some(false))),
                _ => false,
            },
            ("minLength", J::String(t)) => count(t.chars().count(), |n, l| n >= l),
            ("maxLength", J::String(t)) => count(t.chars().count(), |n, l| n <= l),
            ("minProperties", J::Object(o)) => count(o.len(), |n, l| n >= l),
            ("maxProperties", J::Object(o)) => count(o.len(), |n, l| n <= l),
            ("minimum", J::Number(n)) => compare(n, kv).is_some_and(|o| o != Less),
            ("maximum", J::Number(n)) => compare(n, kv).is_some_and(|o| o != Greater),
            ("exclusiveMinimum", J::Number(n)) => compare(n, kv) == Some(Greater),
            ("exclusiveMaximum", J::Number(n)) => compare(n, kv) == Some(Less),
            ("multipleOf", J::Number(n)) => match (int_value(n), kv.as_u64()) {
                (Some(n), Some(d)) if d > 0 => i128::from(n) % i128::from(d) == 0,
                _ => false,
            },
            ("allOf", _) => kv
                .as_array()
                .is_some_and(|a| a.iter().all(|s| self.valid(s, v, depth + 1))),
            ("anyOf", _) => kv
                .as_array()
                .is_some_and(|a| a.iter().any(|s| self.valid(s, v, depth + 1))),
            // Exactly one: answered when one alternative surely holds and
            // every other surely fails on the value's type (Kubernetes'
            // `IntOrString` and `Quantity` are `oneOf` a string or a
            // number).
            ("oneOf", _) => kv.as_array().is_some_and(|a| {
                let mut holding = 0;
                for s in a {
                    if self.valid(s, v, depth + 1) {
                        holding += 1;
                    } else if !self.surely_fails(s, v) {
                        return false;
                    }
                }
                holding == 1
            }),
            // A keyword that does not apply to this kind of value.
            (k, _) if implemented(k) => true,
            (k, _) if annotation(k) => true,
            (k, _) => !other_keyword(k),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the compiled schema says: `Some(valid)`, `None` when the crate
    /// does not compile the schema.
    fn compiled(schema: &J, instance: &J) -> Option<bool> {
        jsonschema::options()
            .should_validate_formats(false)
            .build(schema)
            .ok()
            .map(|v| v.is_valid(instance))
    }

    fn schemas() -> Vec<String> {
        let mut bodies: Vec<String> = [
            r##""type": "object""##,
            r##""type": "integer""##,
            r##""type": ["string", "null"]"##,
            r##""type": "number", "minimum": 0, "maximum": 1.5"##,
            r##""exclusiveMinimum": 0, "exclusiveMaximum": 2"##,
            r##""multipleOf": 2"##,
            r##""multipleOf": 0.5"##,
            r##""enum": ["a", 1, null, [1], {"a": 1}]"##,
            r##""const": 1"##,
            r##""const": {"a": 1}"##,
            r##""minLength": 2, "maxLength": 3"##,
            r##""minItems": 1, "maxItems": 2, "uniqueItems": true"##,
            r##""items": {"type": "integer"}"##,
            r##""items": [{"type": "integer"}]"##,
            r##""properties": {"a": {"type": "integer"}}, "required": ["a"]"##,
            r##""properties": {"a": true}, "additionalProperties": false"##,
            r##""additionalProperties": {"type": "string"}"##,
            r##""minProperties": 1, "maxProperties": 1"##,
            r##""anyOf": [{"type": "string"}, {"type": "integer"}]"##,
            r##""allOf": [{"type": "object"}, {"required": ["b"]}]"##,
            r##""oneOf": [{"type": "string"}, {"type": "integer"}]"##,
            r##""oneOf": [{"type": "string"}, {"type": "number"}]"##,
            r##""oneOf": [{"type": "number"}, {"type": "integer"}]"##,
            r##""oneOf": [{"type": ["string", "null"]}, {"type": "array"}, false]"##,
            r##""oneOf": [{"type": "object", "required": ["a"]}, {"type": "integer", "minimum": 2}]"##,
            r##""oneOf": [{"minimum": 2}, {"type": "string"}]"##,
            r##""oneOf": [{"$ref": "#/$defs/i", "type": "string"}, {"type": "integer"}], "$defs": {"i": {"type": "integer"}}"##,
            r##""oneOf": [true, {"type": "string"}]"##,
            r##""not": {"type": "string"}"##,
            r##""pattern": "^a""##,
            r##""patternProperties": {"^a": {"type": "integer"}}"##,
            r##""patternProperties": {".+": {"type": "string"}}"##,
            r##""patternProperties": {"^[a-z][a-z0-9_-]*$": {"type": "integer"}, "^b": true}, "additionalProperties": false"##,
            r##""patternProperties": {"^(a|b)\\d+\\.x?$": {"type": "null"}}, "properties": {"a": {"type": "integer"}}"##,
            r##""patternProperties": {"(": {}}"##,
            r##""patternProperties": {"[z-a]": {}}"##,
            r##""patternProperties": {"a{2}": {"type": "integer"}}"##,
            r##""$ref": "#/$defs/i", "$defs": {"i": {"type": "integer"}}"##,
            r##""$ref": "#/definitions/i", "type": "string", "definitions": {"i": {"type": "integer"}}"##,
            r##""properties": {"a": {"$ref": "#"}}, "type": "object""##,
            r##""$ref": "#/$defs/missing""##,
            r##""$ref": "other.json""##,
            r##""$ref": "#/$defs/a~1b", "$defs": {"a/b": {"type": "null"}}"##,
            r##""description": 5"##,
            r##""type": "strin""##,
            r##""required": "a""##,
            r##""minItems": -1"##,
            r##""x-kubernetes-preserve-unknown-fields": true, "type": "object""##,
            r##""dependentRequired": {"a": ["b"]}"##,
            r##""if": {"type": "string"}, "then": {"minLength": 2}"##,
        ]
        .iter()
        .map(|b| b.to_string())
        .collect();
        bodies.push(String::new());
        let mut out = Vec::new();
        for draft in [
            None,
            Some("http://json-schema.org/draft-04/schema#"),
            Some("http://json-schema.org/draft-06/schema#"),
            Some("http://json-schema.org/draft-07/schema#"),
            Some("https://json-schema.org/draft/2019-09/schema"),
            Some("https://json-schema.org/draft/2020-12/schema"),
            Some("http://json-schema.org/schema#"),
        ] {
            for b in &bodies {
                let mut members = Vec::new();
                if let Some(d) = draft {
                    members.push(format!(r##""$schema": "{d}""##));
                }
                if !b.is_empty() {
                    members.push(b.clone());
                }
                out.push(format!("{{{}}}", members.join(", ")));
            }
        }
        out.push("true".into());
        out.push("false".into());
        out
    }

    fn instances() -> Vec<J> {
        [
            "null",
            "true",
            "0",
            "1",
            "-1",
            "2",
            "1.5",
            "2.0",
            "3",
            "9007199254740993",
            "\"\"",
            "\"a\"",
            "\"abc\"",
            "\"\u{e9}\u{e9}\u{e9}\u{e9}\"",
            "[]",
            "[1]",
            "[1, 1]",
            "[1, \"1\"]",
            "[1, 2, 3]",
            "[[1], [1]]",
            "{}",
            "{\"a\": 1}",
            "{\"a\": \"x\"}",
            "{\"a\": 1, \"b\": 2}",
            "{\"b\": \"x\"}",
            "{\"a\": {\"a\": {}}}",
            "{\"a\": {\"a\": 1}}",
            "{\"a/b\": null}",
        ]
        .iter()
        .map(|t| serde_json::from_str(t).unwrap())
        .collect()
    }

    /// The one-sided rule: a quick `true` only where the compiled schema
    /// accepts the values; and the quick answer is given (not only
    /// `false`) for the schemas made of what it implements.
    #[test]
    fn quick_answers_agree_with_the_compiled_schema() {
        // What is left to the crate: draft 4, keywords not implemented, a
        // multiple that is not an integer, items as an array.
        let left = [
            "draft-04",
            "multipleOf\": 0.5",
            "\"if\"",
            "pattern",
            "dependentRequired",
            "\"not\"",
            "\"items\": [",
            // `oneOf` whose alternatives the value's type does not tell
            // apart.
            "\"oneOf\": [{\"type\": \"number\"}",
            "\"oneOf\": [{\"minimum\"",
            "\"oneOf\": [{\"$ref\"",
        ];
        let mut quick = 0;
        for text in schemas() {
            let schema: J = serde_json::from_str(&text).unwrap();
            for inst in instances() {
                let q = surely_valid(text.as_bytes(), &inst);
                let c = compiled(&schema, &inst);
                assert!(
                    !q || c == Some(true),
                    "{text} with {inst}: quick true, compiled {c:?}"
                );
                // Every other schema is answered exactly.
                if !left.iter().any(|l| text.contains(l)) {
                    assert_eq!(q, c == Some(true), "{text} with {inst}");
                    quick += usize::from(q);
                }
            }
        }
        assert!(quick > 1000, "{quick}");
    }

    /// A pattern taken as plain is one the crate compiles, in every draft
    /// answered here: checked on every pattern of up to three characters
    /// from the syntax's own alphabet, of four from a part of it, and on
    /// some longer ones.
    #[test]
    fn plain_patterns_compile() {
        let alphabet = [
            "a", "Z", "0", "9", "_", "-", ".", "/", "*", "+", "?", "^", "$", "|", "(", ")", "[",
            "]", "\\", "d", "{", "}", ",", " ", "#", "&", "~", "=", ":", "<", "!",
        ];
        let words = |alphabet: &[&str], n: usize| {
            let mut all = vec![String::new()];
            let mut layer = vec![String::new()];
            for _ in 0..n {
                layer = layer
                    .iter()
                    .flat_map(|p| alphabet.iter().map(move |c| format!("{p}{c}")))
                    .collect::<Vec<_>>();
                all.extend(layer.iter().cloned());
            }
            all
        };
        let mut patterns = words(&alphabet, 3);
        patterns.extend(words(
            &["a", "-", "[", "]", "\\", "d", "(", ")", "*", "^", "."],
            4,
        ));
        patterns.extend(
            [
                "^[a-z][a-z0-9_-]*$",
                "^x-",
                "[^.]+",
                "[--z]",
                "[a--z]",
                "[\\d-z]",
                "[a-\\d]",
                "(?i)a",
                "(a(b(c)))",
                "^(a|b)\\d+\\.x?$",
                "\\/",
                "\\p{L}",
                "a{2}",
            ]
            .map(String::from),
        );
        let mut plain = 0;
        for p in &patterns {
            if !plain_pattern(p) {
                continue;
            }
            plain += 1;
            for draft in [
                "http://json-schema.org/draft-06/schema#",
                "http://json-schema.org/draft-07/schema#",
                "https://json-schema.org/draft/2019-09/schema",
                "https://json-schema.org/draft/2020-12/schema",
            ] {
                let schema =
                    serde_json::json!({"$schema": draft, "patternProperties": {p.as_str(): {}}});
                assert!(
                    jsonschema::options()
                        .should_validate_formats(false)
                        .build(&schema)
                        .is_ok(),
                    "{p:?} taken as plain, but the crate does not compile it ({draft})"
                );
            }
        }
        assert!(plain > 5_000, "{plain}");
        for p in ["", ".+", "^[a-z][a-z0-9_-]*$", "[^.]+", "^(a|b)\\d+\\.x?$"] {
            assert!(plain_pattern(p), "{p}");
        }
    }

    #[test]
    fn common_shapes_are_answered_quickly() {
        let cases = [
            (
                r##"{"type": "object", "properties": {"a": {"type": "integer", "minimum": 1}}}"##,
                r##"{"a": 2, "b": "x"}"##,
            ),
            (
                r##"{"$schema": "http://json-schema.org/draft-07/schema#", "$defs": {"v": {"additionalProperties": false, "properties": {"x": {"$ref": "#/$defs/x"}}, "type": "object"}, "x": {"description": "d", "type": "string", "default": "y"}}, "$ref": "#/$defs/v"}"##,
                r##"{"x": "z"}"##,
            ),
            (
                r##"{"type": "object", "required": ["a"], "properties": {"a": {"anyOf": [{"type": "null"}, {"type": "array", "items": {"type": "string"}, "uniqueItems": true}]}}}"##,
                r##"{"a": ["p", "q"]}"##,
            ),
            (
                r##"{"properties": {"data": {"type": "object", "patternProperties": {".+": {"type": "string"}}}}}"##,
                r##"{"data": {"a": "x", "b.c": "y"}}"##,
            ),
            (
                r##"{"properties": {"e": {"enum": ["x", "y"]}, "l": {"maxLength": 3}}}"##,
                r##"{"e": "y", "l": "\u00e9\u00e9\u00e9"}"##,
            ),
        ];
        for (schema, inst) in cases {
            let inst: J = serde_json::from_str(inst).unwrap();
            assert!(surely_valid(schema.as_bytes(), &inst), "{schema}");
        }
    }

    #[test]
    fn the_reader_takes_what_serde_json_takes_or_leaves_it() {
        let texts = [
            r##"{"a": [1, -2, 3.25, 1e3, -0.5E-2, true, false, null, "x\"y\\z\/\u00e9\ud83d\ude00\n"]}"##,
            r##"{"a": 1, "a": 2}"##,
            "  [ ] ",
            r##""\ud800""##,
            r##""\udc00x""##,
            "01",
            "-0",
            "1.",
            ".5",
            "1e",
            "18446744073709551616",
            "-9223372036854775809",
            "0.30000000000000004",
            "1e400",
            "[1,]",
            "{\"a\" 1}",
            "{\"a\": 1,}",
            "\"tab\there\"",
            "[1] x",
            "\u{feff}{}",
            "nul",
            r##"{"k": {"$ref": "#"}}"##,
        ];
        for t in texts {
            let serde: Result<J, _> = serde_json::from_str(t);
            // What the reader takes, serde_json reads the same; what it
            // leaves is read by serde_json, whatever it says.
            if let Some(mine) = parse(t.as_bytes()) {
                assert_eq!(serde.ok(), Some(mine.to_json()), "{t}");
            }
        }
        // What the reader must take (or nothing would be quick).
        for t in [
            r##"{"a": [1, -2, 3.25, "x\ny"]}"##,
            r##"{"a": 1, "a": 2}"##,
            "  [ ] ",
        ] {
            assert!(parse(t.as_bytes()).is_some(), "{t}");
        }
    }
}
