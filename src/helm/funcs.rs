//! Helm's and Sprig's template functions, as Helm exposes them.
//!
//! Implemented: `include`, `tpl`, `required`, `toYaml`, `default`, `quote`,
//! `indent`, `nindent`, `trim`, `trimAll`, `trimPrefix`, `trimSuffix`,
//! `upper`, `lower`, `list`, `dict`, `hasKey`. Arguments of the wrong Go
//! type are reported as errors of the call (Go reports some of them as
//! argument conversion errors instead).

use std::collections::BTreeMap;

use crate::template::value::{go_quote, sprint_value};
use crate::template::{Templates, Value};
use crate::yaml::{Map, Node};

/// Helm wraps `required`/`fail` messages in these markers and prints
/// them as `execution error at (LOCATION): MESSAGE`.
pub const ERR_START: &str = "HELM_ERR_START";
pub const ERR_END: &str = "HELM_ERR_END";

/// Sprig's `empty`: nil, false, 0, "", empty list or map.
fn is_empty(v: &Value) -> bool {
    !v.is_true()
}

/// Sprig's `strval`.
fn strval(v: &Value) -> String {
    match v {
        Value::Str(s) => s.clone(),
        other => sprint_value(other),
    }
}

fn want_str<'a>(v: &'a Value, func: &str) -> Result<&'a str, String> {
    v.as_str()
        .ok_or_else(|| format!("{func}: expected string; got {}", v.type_name()))
}

fn want_int(v: &Value, func: &str) -> Result<i64, String> {
    match v {
        Value::Int(i) => Ok(*i),
        other => Err(format!("{func}: expected int; got {}", other.type_name())),
    }
}

/// A value as YAML after Helm's JSON round trip (`sigs.k8s.io/yaml`):
/// integral floats become integers.
pub fn to_node(v: &Value) -> Node {
    match v {
        Value::Nil => Node::Null,
        Value::Bool(b) => Node::Bool(*b),
        Value::Int(i) => Node::Int(*i),
        Value::Float(f) if f.fract() == 0.0 && f.abs() < 9.007_199_254_740_992e15 => {
            Node::Int(*f as i64)
        }
        Value::Float(f) => Node::Float(*f),
        Value::Str(s) => Node::Str(s.clone()),
        Value::List(l) => Node::Seq(l.iter().map(to_node).collect()),
        Value::Map(m) => {
            let mut out = Map::new();
            for (k, e) in m {
                out.insert(k.clone(), to_node(e));
            }
            Node::Map(out)
        }
        Value::Object(o) => to_node(&o.0.plain()),
    }
}

/// Helm's `toYaml`: the YAML text without its final newline.
pub fn to_yaml(v: &Value) -> String {
    let text = match v {
        Value::Nil => "null\n".to_string(),
        v => crate::yaml::to_string(&to_node(v)),
    };
    // go-yaml v2 ends a top-level scalar without a document end marker.
    let text = text
        .strip_suffix("\n...\n")
        .map_or(text.clone(), |t| format!("{t}\n"));
    text.strip_suffix('\n').unwrap_or(&text).to_string()
}

fn indent(n: i64, s: &str) -> String {
    let pad = " ".repeat(n.max(0) as usize);
    format!("{pad}{}", s.replace('\n', &format!("\n{pad}")))
}

/// Adds the functions to a template set.
pub fn add_funcs(t: &mut Templates) {
    t.add_func("include", 2, Some(2), |ex, a| {
        let name = want_str(&a[0], "include")?;
        ex.execute(name, &a[1])
            .map(Value::Str)
            .map_err(|e| e.to_string())
    });
    t.add_func("tpl", 2, Some(2), |ex, a| {
        let text = want_str(&a[0], "tpl")?;
        // Helm parses the text into a clone of the set, under the set's
        // own name, and removes "<no value>" from the result.
        let mut set = ex.templates.clone();
        let name = set.name.clone();
        set.parse(&name, text)
            .map_err(|e| format!("cannot parse template {}: {e}", go_quote(text)))?;
        set.execute(&name, &a[1])
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
    t.add_func("toYaml", 1, Some(1), |_, a| Ok(Value::Str(to_yaml(&a[0]))));
    t.add_func("default", 1, None, |_, a| {
        let d = &a[0];
        match a.get(1) {
            Some(given) if !is_empty(given) => Ok(given.clone()),
            _ => Ok(d.clone()),
        }
    });
    t.add_func("quote", 0, None, |_, a| {
        let parts: Vec<String> = a
            .iter()
            .filter(|v| !matches!(v, Value::Nil))
            .map(|v| go_quote(&strval(v)))
            .collect();
        Ok(Value::Str(parts.join(" ")))
    });
    t.add_func("indent", 2, Some(2), |_, a| {
        Ok(Value::Str(indent(
            want_int(&a[0], "indent")?,
            want_str(&a[1], "indent")?,
        )))
    });
    t.add_func("nindent", 2, Some(2), |_, a| {
        Ok(Value::Str(format!(
            "\n{}",
            indent(want_int(&a[0], "nindent")?, want_str(&a[1], "nindent")?)
        )))
    });
    t.add_func("trim", 1, Some(1), |_, a| {
        Ok(Value::Str(want_str(&a[0], "trim")?.trim().to_string()))
    });
    t.add_func("trimAll", 2, Some(2), |_, a| {
        let cut: Vec<char> = want_str(&a[0], "trimAll")?.chars().collect();
        Ok(Value::Str(
            want_str(&a[1], "trimAll")?
                .trim_matches(cut.as_slice())
                .to_string(),
        ))
    });
    t.add_func("trimPrefix", 2, Some(2), |_, a| {
        let p = want_str(&a[0], "trimPrefix")?;
        let s = want_str(&a[1], "trimPrefix")?;
        Ok(Value::Str(s.strip_prefix(p).unwrap_or(s).to_string()))
    });
    t.add_func("trimSuffix", 2, Some(2), |_, a| {
        let p = want_str(&a[0], "trimSuffix")?;
        let s = want_str(&a[1], "trimSuffix")?;
        Ok(Value::Str(s.strip_suffix(p).unwrap_or(s).to_string()))
    });
    t.add_func("upper", 1, Some(1), |_, a| {
        Ok(Value::Str(want_str(&a[0], "upper")?.to_uppercase()))
    });
    t.add_func("lower", 1, Some(1), |_, a| {
        Ok(Value::Str(want_str(&a[0], "lower")?.to_lowercase()))
    });
    t.add_func("list", 0, None, |_, a| Ok(Value::List(a.to_vec())));
    t.add_func("dict", 0, None, |_, a| {
        let mut m = BTreeMap::new();
        for pair in a.chunks(2) {
            let v = pair.get(1).cloned().unwrap_or(Value::Str(String::new()));
            m.insert(strval(&pair[0]), v);
        }
        Ok(Value::Map(m))
    });
    t.add_func("hasKey", 2, Some(2), |_, a| match &a[0] {
        Value::Map(m) => Ok(Value::Bool(m.contains_key(want_str(&a[1], "hasKey")?))),
        other => Err(format!("hasKey: expected map; got {}", other.type_name())),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indent_and_yaml() {
        assert_eq!(indent(2, "a\nb"), "  a\n  b");
        let v = Value::Map(BTreeMap::from([
            ("b".to_string(), Value::Float(3.0)),
            ("a".to_string(), Value::List(vec![Value::Str("x".into())])),
        ]));
        assert_eq!(to_yaml(&v), "a:\n- x\nb: 3");
    }
}
