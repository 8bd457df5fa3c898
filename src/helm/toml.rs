//! TOML as Helm's `toToml` writes it (BurntSushi/toml's encoder): plain
//! keys first, sorted, then tables (`[a]`, `[a.b]`) and arrays of tables
//! (`[[a]]`), nested content indented by two spaces per level.

use std::collections::BTreeMap;

use crate::template::Value;

fn quote_key(k: &str) -> String {
    if !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        k.to_string()
    } else {
        quote(k)
    }
}

fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\x08' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\x0c' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\u{:04X}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn float(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.into();
    }
    let s = format!("{f}");
    if s.contains('.') { s } else { format!("{s}.0") }
}

fn is_table(v: &Value) -> bool {
    matches!(v, Value::Map(_))
}

fn is_table_array(v: &Value) -> bool {
    matches!(v, Value::List(l) if !l.is_empty() && l.iter().all(is_table))
}

fn inline(v: &Value) -> Result<String, String> {
    Ok(match v {
        Value::Object(o) => return inline(&o.0.plain()),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => float(*f),
        Value::Str(s) => quote(s),
        Value::List(l) => {
            if l.iter().any(|e| matches!(e, Value::Nil)) {
                return Err("toml: cannot encode array with nil element".into());
            }
            let parts: Result<Vec<String>, String> = l.iter().map(inline).collect();
            format!("[{}]", parts?.join(", "))
        }
        Value::Map(m) => {
            let parts: Result<Vec<String>, String> = m
                .read()
                .iter()
                .filter(|(_, e)| !matches!(e, Value::Nil))
                .map(|(k, e)| Ok(format!("{} = {}", quote_key(k), inline(e)?)))
                .collect();
            format!("{{{}}}", parts?.join(", "))
        }
        Value::Nil => return Err("toml: cannot encode a nil value".into()),
    })
}

struct Enc {
    out: String,
}

impl Enc {
    fn newline(&mut self) {
        if !self.out.is_empty() {
            self.out.push('\n');
        }
    }

    fn indent(key: &[String]) -> String {
        "  ".repeat(key.len().saturating_sub(1))
    }

    fn key_text(key: &[String]) -> String {
        key.iter()
            .map(|k| quote_key(k))
            .collect::<Vec<_>>()
            .join(".")
    }

    fn map(&mut self, key: &[String], m: &BTreeMap<String, Value>) -> Result<(), String> {
        for (k, v) in m {
            if matches!(v, Value::Nil) || is_table(v) || is_table_array(v) {
                continue;
            }
            let mut sub = key.to_vec();
            sub.push(k.clone());
            self.out.push_str(&format!(
                "{}{} = {}",
                Self::indent(&sub),
                quote_key(k),
                inline(v)?
            ));
            self.out.push('\n');
        }
        for (k, v) in m {
            let mut sub = key.to_vec();
            sub.push(k.clone());
            match v {
                Value::Map(inner) => {
                    if sub.len() == 1 {
                        self.newline();
                    }
                    self.out
                        .push_str(&format!("{}[{}]", Self::indent(&sub), Self::key_text(&sub)));
                    self.out.push('\n');
                    self.map(&sub, &inner.read())?;
                }
                Value::List(l) if is_table_array(v) => {
                    for e in l {
                        if let Value::Map(inner) = e {
                            self.newline();
                            self.out.push_str(&format!(
                                "{}[[{}]]",
                                Self::indent(&sub),
                                Self::key_text(&sub)
                            ));
                            self.out.push('\n');
                            self.map(&sub, &inner.read())?;
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// Helm's `toToml`: the TOML text, or the encoder's error message (both are
/// what Helm prints); `Err` for nil, on which Go's call itself fails.
pub fn to_toml(v: &Value) -> Result<String, String> {
    let m = match v {
        Value::Map(m) => m,
        // Go's encoder asks a nil interface for its type: a panic, so the
        // call fails (the encoder's own errors are Helm's output).
        Value::Nil => return Err("reflect: call of reflect.Value.Type on zero Value".into()),
        // A value that is no table is written inline.
        v => return Ok(inline(v).unwrap_or_else(|e| e)),
    };
    let mut enc = Enc { out: String::new() };
    Ok(match enc.map(&[], &m.read()) {
        Ok(()) => enc.out,
        Err(e) => e,
    })
}

fn from_toml_value(v: ::toml::Value) -> Value {
    match v {
        ::toml::Value::String(s) => Value::Str(s),
        ::toml::Value::Integer(i) => Value::Int(i),
        ::toml::Value::Float(f) => Value::Float(f),
        ::toml::Value::Boolean(b) => Value::Bool(b),
        ::toml::Value::Datetime(d) => Value::Str(d.to_string()),
        ::toml::Value::Array(a) => Value::List(a.into_iter().map(from_toml_value).collect()),
        ::toml::Value::Table(t) => Value::map(
            t.into_iter()
                .map(|(k, v)| (k, from_toml_value(v)))
                .collect::<BTreeMap<_, _>>(),
        ),
    }
}

/// Helm's `fromToml`: the document as a map (integers int64, floats
/// float64; dates and times as their TOML text), or a map holding the
/// parse error under `Error`.
pub fn from_toml(text: &str) -> Value {
    match text.parse::<::toml::Table>() {
        Ok(t) => from_toml_value(::toml::Value::Table(t)),
        Err(e) => Value::map(BTreeMap::from([(
            "Error".to_string(),
            Value::Str(format!("toml: {}", e.message())),
        )])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_after_keys() {
        let v = Value::map(BTreeMap::from([
            ("b".to_string(), Value::Str("x".into())),
            (
                "t".to_string(),
                Value::map(BTreeMap::from([("c".to_string(), Value::Float(2.0))])),
            ),
            ("a".to_string(), Value::Int(1)),
        ]));
        assert_eq!(to_toml(&v).unwrap(), "a = 1\nb = \"x\"\n\n[t]\n  c = 2.0\n");
    }
}
