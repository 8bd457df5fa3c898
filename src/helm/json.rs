//! JSON as Go's `encoding/json` writes and reads template values (`toJson`,
//! `toPrettyJson`, `toRawJson`, `fromJson`).

use std::collections::BTreeMap;

use crate::kustomize::generators::{go_json_escape_with, go_json_string_with};
use crate::template::value::OpenContainers;
use crate::template::{Json, Value};

/// Go's JSON text of a float64: shortest digits, exponent form below 1e-6
/// and from 1e21 on.
fn float_text(f: f64) -> Result<String, String> {
    if !f.is_finite() {
        let v = if f.is_nan() {
            "NaN"
        } else if f > 0.0 {
            "+Inf"
        } else {
            "-Inf"
        };
        return Err(format!("json: unsupported value: {v}"));
    }
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let s = format!("{f:e}");
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let e: i32 = e.parse().unwrap_or(0);
        return Ok(if e < 0 {
            format!("{m}e-{}", -e)
        } else {
            format!("{m}e+{e:02}")
        });
    }
    Ok(format!("{f}"))
}

/// The maps and lists being written (a cycle is an error).
type Writing = OpenContainers;

/// Writes the container `id` of Go type `type_name` with `f`, refusing
/// it as Go does when it is already being written.
fn enter(
    open: &mut Writing,
    depth: usize,
    id: usize,
    type_name: &str,
    f: impl FnOnce(&mut Writing) -> Result<(), String>,
) -> Result<(), String> {
    OpenContainers::enter(open, |o| o, depth, id, f).unwrap_or_else(|| {
        Err(format!(
            "json: unsupported value: encountered a cycle via {type_name}"
        ))
    })
}

fn write(
    v: &Value,
    pretty: bool,
    html: bool,
    depth: usize,
    open: &mut Writing,
    out: &mut String,
) -> Result<(), String> {
    crate::template::value::nested(depth, || write_level(v, pretty, html, depth, open, out))
}

fn write_level(
    v: &Value,
    pretty: bool,
    html: bool,
    depth: usize,
    open: &mut Writing,
    out: &mut String,
) -> Result<(), String> {
    match v {
        Value::Object(o) => {
            if let Some(bytes) = o.0.bytes() {
                // A Go string of bytes that are not UTF-8: each invalid
                // byte is written as an escaped replacement character.
                out.push('"');
                for chunk in bytes.utf8_chunks() {
                    go_json_escape_with(chunk.valid(), html, out);
                    for _ in chunk.invalid() {
                        out.push_str("\\ufffd");
                    }
                }
                out.push('"');
                return Ok(());
            }
            return match o.0.json() {
                None => write(&o.0.plain(), pretty, html, depth, open, out),
                Some(Json::Value(v)) => write(&v, pretty, html, depth, open, out),
                Some(Json::Struct(members)) => {
                    let m = members.iter().map(|(k, e)| (*k, e));
                    write_object(m, pretty, html, depth, open, out)
                }
            };
        }
        Value::Nil => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::Float(f) => out.push_str(&float_text(*f)?),
        Value::Str(s) => go_json_string_with(s, html, out),
        Value::List(l) => {
            enter(open, depth, l.as_ptr() as usize, "[]interface {}", |open| {
                out.push('[');
                for (i, e) in l.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    newline(out, pretty, depth + 1);
                    write(e, pretty, html, depth + 1, open, out)?;
                }
                if !l.is_empty() {
                    newline(out, pretty, depth);
                }
                out.push(']');
                Ok(())
            })?;
        }
        Value::Map(m) if m.is_nil() => out.push_str("null"),
        Value::Map(m) => {
            enter(open, depth, m.id(), m.type_name(), |open| {
                let entries = m.read();
                let members = entries.iter().map(|(k, e)| (k.as_str(), e));
                write_object(members, pretty, html, depth, open, out)
            })?;
        }
    }
    Ok(())
}

/// A JSON object of these members, in this order.
fn write_object<'v>(
    members: impl Iterator<Item = (&'v str, &'v Value)>,
    pretty: bool,
    html: bool,
    depth: usize,
    open: &mut Writing,
    out: &mut String,
) -> Result<(), String> {
    out.push('{');
    let mut empty = true;
    for (k, e) in members {
        if !empty {
            out.push(',');
        }
        empty = false;
        newline(out, pretty, depth + 1);
        go_json_string_with(k, html, out);
        out.push(':');
        if pretty {
            out.push(' ');
        }
        write(e, pretty, html, depth + 1, open, out)?;
    }
    if !empty {
        newline(out, pretty, depth);
    }
    out.push('}');
    Ok(())
}

/// With `pretty`: a line break and the indentation of depth `d`.
fn newline(out: &mut String, pretty: bool, d: usize) {
    if pretty {
        out.push('\n');
        out.push_str(&"  ".repeat(d));
    }
}

/// `json.Marshal` (`pretty`: `json.MarshalIndent(v, "", "  ")`; `html`
/// false: an encoder with `SetEscapeHTML(false)`).
pub fn encode(v: &Value, pretty: bool, html: bool) -> Result<String, String> {
    let mut out = String::new();
    // Levels Go counts above the value, as observed in Helm v4.1.4: one
    // for `json.Marshal`, two for Sprig's raw encoders (which encode a
    // pointer to it); they decide which map or list of a cycle is named.
    let mut writing = OpenContainers::with_offset(if html { 1 } else { 2 });
    write(v, pretty, html, 0, &mut writing, &mut out)?;
    Ok(out)
}

fn from_serde(v: serde_json::Value) -> Value {
    match v {
        serde_json::Value::Null => Value::Nil,
        serde_json::Value::Bool(b) => Value::Bool(b),
        serde_json::Value::Number(n) => Value::Float(n.as_f64().unwrap_or(0.0)),
        serde_json::Value::String(s) => Value::Str(s),
        serde_json::Value::Array(a) => Value::List(a.into_iter().map(from_serde).collect()),
        serde_json::Value::Object(o) => Value::map(
            o.into_iter()
                .map(|(k, v)| (k, from_serde(v)))
                .collect::<BTreeMap<_, _>>(),
        ),
    }
}

/// `json.Unmarshal` into `interface{}` (numbers are float64). A syntax
/// error is Go's: the first one Go's scanner finds, in its words.
pub fn decode(text: &str) -> Result<Value, String> {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(v) => Ok(from_serde(v)),
        // The text is scanned again only to word the error as Go does.
        Err(e) => {
            check_syntax(text.as_bytes())?;
            Err(if e.is_eof() {
                "unexpected end of JSON input".into()
            } else {
                e.to_string()
            })
        }
    }
}

/// Where Go's scanner is in a value.
#[derive(Clone, Copy, PartialEq)]
enum Scan {
    BeginValue,
    BeginValueOrEmpty,
    BeginStringOrEmpty,
    BeginString,
    InString,
    InStringEsc,
    InStringEscU(u8),
    Neg,
    One,
    Zero,
    Dot,
    Dot0,
    E,
    ESign,
    E0,
    Literal(&'static [u8], u8),
    EndValue,
    EndTop,
}

/// What an open container expects next.
#[derive(Clone, Copy, PartialEq)]
enum Open {
    ObjectKey,
    ObjectValue,
    Array,
}

/// Go's `checkValid` (`encoding/json`'s scanner): the first syntax error.
fn check_syntax(b: &[u8]) -> Result<(), String> {
    use Scan::*;
    let mut stack: Vec<Open> = Vec::new();
    let mut state = BeginValue;
    let err =
        |c: u8, context: &str| format!("invalid character {} {context}", go_char(char::from(c)));
    let space = |c: u8| matches!(c, b' ' | b'\t' | b'\r' | b'\n');
    // Go steps one more space at the end (`eof`): a number or a literal
    // cut short fails on it.
    let mut i = 0;
    while i <= b.len() {
        let c = b.get(i).copied().unwrap_or(b' ');
        state = match state {
            BeginValue | BeginValueOrEmpty | BeginStringOrEmpty | BeginString if space(c) => state,
            BeginValueOrEmpty if c == b']' => {
                stack.pop();
                end_value(&stack)
            }
            BeginStringOrEmpty if c == b'}' => {
                stack.pop();
                end_value(&stack)
            }
            BeginStringOrEmpty | BeginString => {
                if c != b'"' {
                    return Err(err(c, "looking for beginning of object key string"));
                }
                InString
            }
            BeginValue | BeginValueOrEmpty => match c {
                b'{' => {
                    stack.push(Open::ObjectKey);
                    BeginStringOrEmpty
                }
                b'[' => {
                    stack.push(Open::Array);
                    BeginValueOrEmpty
                }
                b'"' => InString,
                b'-' => Neg,
                b'0' => Zero,
                b'1'..=b'9' => One,
                b't' => Literal(b"true", 1),
                b'f' => Literal(b"false", 1),
                b'n' => Literal(b"null", 1),
                _ => return Err(err(c, "looking for beginning of value")),
            },
            InString => match c {
                b'"' => end_value(&stack),
                b'\\' => InStringEsc,
                c if c < 0x20 => return Err(err(c, "in string literal")),
                _ => InString,
            },
            InStringEsc => match c {
                b'b' | b'f' | b'n' | b'r' | b't' | b'\\' | b'/' | b'"' => InString,
                b'u' => InStringEscU(0),
                _ => return Err(err(c, "in string escape code")),
            },
            InStringEscU(n) => {
                if !c.is_ascii_hexdigit() {
                    return Err(err(c, "in \\u hexadecimal character escape"));
                }
                if n == 3 {
                    InString
                } else {
                    InStringEscU(n + 1)
                }
            }
            Neg => match c {
                b'0' => Zero,
                b'1'..=b'9' => One,
                _ => return Err(err(c, "in numeric literal")),
            },
            One if c.is_ascii_digit() => One,
            One | Zero => match c {
                b'.' => Dot,
                b'e' | b'E' => E,
                _ => {
                    state = end_value(&stack);
                    continue;
                }
            },
            Dot => {
                if !c.is_ascii_digit() {
                    return Err(err(c, "after decimal point in numeric literal"));
                }
                Dot0
            }
            Dot0 => match c {
                b'0'..=b'9' => Dot0,
                b'e' | b'E' => E,
                _ => {
                    state = end_value(&stack);
                    continue;
                }
            },
            E if c == b'+' || c == b'-' => ESign,
            E | ESign => {
                if !c.is_ascii_digit() {
                    return Err(err(c, "in exponent of numeric literal"));
                }
                E0
            }
            E0 if c.is_ascii_digit() => E0,
            E0 => {
                state = end_value(&stack);
                continue;
            }
            Literal(word, at) => {
                if c != word[at as usize] {
                    let name = std::str::from_utf8(word).unwrap_or_default();
                    let want = char::from(word[at as usize]);
                    return Err(err(c, &format!("in literal {name} (expecting '{want}')")));
                }
                if at as usize + 1 == word.len() {
                    end_value(&stack)
                } else {
                    Literal(word, at + 1)
                }
            }
            EndTop => {
                if !space(c) {
                    return Err(err(c, "after top-level value"));
                }
                EndTop
            }
            EndValue if space(c) => EndValue,
            EndValue => match (stack.last().copied(), c) {
                (Some(Open::ObjectKey), b':') => {
                    *stack.last_mut().expect("an open object") = Open::ObjectValue;
                    BeginValue
                }
                (Some(Open::ObjectKey), _) => return Err(err(c, "after object key")),
                (Some(Open::ObjectValue), b',') => {
                    *stack.last_mut().expect("an open object") = Open::ObjectKey;
                    BeginString
                }
                (Some(Open::ObjectValue), b'}') | (Some(Open::Array), b']') => {
                    stack.pop();
                    end_value(&stack)
                }
                (Some(Open::ObjectValue), _) => {
                    return Err(err(c, "after object key:value pair"));
                }
                (Some(Open::Array), b',') => BeginValue,
                (Some(Open::Array), _) => return Err(err(c, "after array element")),
                (None, _) => return Err(err(c, "after top-level value")),
            },
        };
        i += 1;
    }
    if state == EndTop {
        Ok(())
    } else {
        Err("unexpected end of JSON input".into())
    }
}

/// Go's `quoteChar`: a byte (as the character of that number) quoted.
fn go_char(c: char) -> String {
    match c {
        '\'' => "'\\''".into(),
        '"' => "'\"'".into(),
        c => {
            let q = crate::template::value::go_quote(&c.to_string());
            format!("'{}'", &q[1..q.len() - 1])
        }
    }
}

/// The state after a value ends: the top level's, or the container's.
fn end_value(stack: &[Open]) -> Scan {
    if stack.is_empty() {
        Scan::EndTop
    } else {
        Scan::EndValue
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_as_go() {
        let v = Value::map(BTreeMap::from([
            ("a".to_string(), Value::Float(3.0)),
            ("b".to_string(), Value::Str("<x>".into())),
            (
                "c".to_string(),
                Value::List(vec![Value::Float(1e21), Value::Float(1.5e-7)]),
            ),
        ]));
        assert_eq!(
            encode(&v, false, true).unwrap(),
            r#"{"a":3,"b":"\u003cx\u003e","c":[1e+21,1.5e-7]}"#
        );
        assert_eq!(
            encode(&v, true, false).unwrap(),
            "{\n  \"a\": 3,\n  \"b\": \"<x>\",\n  \"c\": [\n    1e+21,\n    1.5e-7\n  ]\n}"
        );
        assert_eq!(
            decode("{\"a\": 1}").unwrap(),
            Value::map(BTreeMap::from([("a".to_string(), Value::Float(1.0))]))
        );
        assert_eq!(decode("{").unwrap_err(), "unexpected end of JSON input");
    }
}
