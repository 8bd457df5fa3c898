//! JSON as Go's `encoding/json` writes and reads template values (`toJson`,
//! `toPrettyJson`, `toRawJson`, `fromJson`).

use std::collections::BTreeMap;

use crate::kustomize::generators::{go_json_escape_with, go_json_string_with};
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

fn write(
    v: &Value,
    pretty: bool,
    html: bool,
    depth: usize,
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
                None => write(&o.0.plain(), pretty, html, depth, out),
                Some(Json::Value(v)) => write(&v, pretty, html, depth, out),
                Some(Json::Struct(members)) => {
                    let m = members.iter().map(|(k, e)| (*k, e));
                    write_object(m, pretty, html, depth, out)
                }
            };
        }
        Value::Nil => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::Float(f) => out.push_str(&float_text(*f)?),
        Value::Str(s) => go_json_string_with(s, html, out),
        Value::List(l) => {
            out.push('[');
            for (i, e) in l.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, pretty, depth + 1);
                write(e, pretty, html, depth + 1, out)?;
            }
            if !l.is_empty() {
                newline(out, pretty, depth);
            }
            out.push(']');
        }
        Value::Map(m) if m.is_nil() => out.push_str("null"),
        Value::Map(m) => {
            let entries = m.read();
            let members = entries.iter().map(|(k, e)| (k.as_str(), e));
            write_object(members, pretty, html, depth, out)?;
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
        write(e, pretty, html, depth + 1, out)?;
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
    write(v, pretty, html, 0, &mut out)?;
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

/// `json.Unmarshal` into `interface{}` (numbers are float64). Errors name
/// the problem in Go's words where they are common.
pub fn decode(text: &str) -> Result<Value, String> {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(v) => Ok(from_serde(v)),
        Err(e) if e.is_eof() => Err("unexpected end of JSON input".into()),
        Err(e) => {
            // The offending character, as Go reports it.
            let line = e.line();
            let col = e.column();
            let at = text
                .lines()
                .nth(line.saturating_sub(1))
                .and_then(|l| l.chars().nth(col.saturating_sub(1)));
            Err(match at {
                Some(c) => format!(
                    "invalid character {} looking for beginning of value",
                    go_char(c)
                ),
                None => e.to_string(),
            })
        }
    }
}

fn go_char(c: char) -> String {
    match c {
        '\'' => "'\\''".into(),
        '"' => "'\"'".into(),
        c => format!("'{c}'"),
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
