//! Legacy `vars`: `$(NAME)` in the fields of the varReference table is
//! replaced by a field of an object, as kustomize v5.5.0 does
//! (`api/filters/refvar`, `ResAccumulator.MergeVars` / `ResolveVars`).
//!
//! - Each kustomization's vars are matched, after its transformers ran,
//!   against the objects accumulated so far by any of their ids (current
//!   or previous): group, version, kind and name exactly, and the
//!   effective namespace when the var gives one. Two matches are an error;
//!   none leaves the var unresolvable.
//! - A var name declared twice anywhere in the build is an error.
//! - At the top level, after hashes and name references, every var takes
//!   the value of its field (`fieldref.fieldPath`, `metadata.name` by
//!   default) in the object it matched; a var whose object is gone or
//!   whose field is missing is an error.
//! - In every field the varReference table lists, a string that is exactly
//!   `$(NAME)` becomes the value with its type (a number stays a number);
//!   elsewhere `$(NAME)` is replaced by the value's text, `$$` gives `$`,
//!   and an unknown `$(NAME)` is left as it is. A list holding a
//!   non-string, or a map, stops the build as in kustomize.

use std::collections::HashMap;

use crate::resource::{Gvk, ResMap};
use crate::yaml::Node;

use super::Error;
use super::fieldspec;
use super::fieldspecs::FieldSpec;
use super::kustfile::Kustomization;

/// One entry of `vars`.
#[derive(Debug, Clone, PartialEq)]
pub struct Var {
    pub name: String,
    pub gvk: Gvk,
    pub obj_name: String,
    pub namespace: String,
    pub field_path: String,
}

impl std::fmt::Display for Var {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} (objref {}/{}",
            self.name,
            if self.gvk.group.is_empty() {
                self.gvk.version.clone()
            } else {
                format!("{}/{}", self.gvk.group, self.gvk.version)
            },
            self.gvk.kind
        )?;
        if !self.namespace.is_empty() {
            write!(f, " {}/", self.namespace)?;
        } else {
            f.write_str(" ")?;
        }
        write!(f, "{}, fieldPath {})", self.obj_name, self.field_path)
    }
}

/// Go's encoding/json matches field names case-insensitively.
fn field<'a>(n: &'a Node, key: &str) -> Option<&'a Node> {
    let m = n.as_map()?;
    m.get(key).or_else(|| {
        m.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v)
    })
}

fn text(n: &Node, key: &str) -> String {
    field(n, key)
        .and_then(Node::as_str)
        .unwrap_or_default()
        .to_string()
}

/// The kustomization's `vars`.
pub fn parse(k: &Kustomization) -> Result<Vec<Var>, Error> {
    let mut out = Vec::new();
    for v in k.list("vars")? {
        let objref = field(&v, "objref").cloned().unwrap_or(Node::Null);
        let api = text(&objref, "apiVersion");
        let (mut group, mut version) = (text(&objref, "group"), text(&objref, "version"));
        if !api.is_empty() {
            match api.split_once('/') {
                Some((g, ver)) if !ver.contains('/') => {
                    group = g.to_string();
                    version = ver.to_string();
                }
                Some(_) => {}
                None => version = api.clone(),
            }
        }
        let fieldref = field(&v, "fieldref").cloned().unwrap_or(Node::Null);
        let mut field_path = text(&fieldref, "fieldPath");
        if field_path.is_empty() {
            field_path = "metadata.name".into();
        }
        out.push(Var {
            name: text(&v, "name"),
            gvk: Gvk {
                group,
                version,
                kind: text(&objref, "kind"),
            },
            obj_name: text(&objref, "name"),
            namespace: text(&objref, "namespace"),
            field_path,
        });
    }
    Ok(out)
}

/// Adds `var` to the build's vars (`VarSet.Merge`).
pub fn add(vars: &mut Vec<Var>, var: Var) -> Result<(), String> {
    if vars.iter().any(|v| v.name == var.name) {
        return Err(format!("var '{}' already encountered", var.name));
    }
    vars.push(var);
    Ok(())
}

/// kustomize's `MergeVars`: marks the object each var of `k` refers to and
/// adds the vars to the map's.
pub fn merge(k: &Kustomization, m: &mut ResMap) -> Result<(), Error> {
    let vars = parse(k)?;
    for v in vars {
        let target_ns = if v.namespace.is_empty() || v.namespace == "default" {
            "default".to_string()
        } else {
            v.namespace.clone()
        };
        let matched: Vec<usize> = m
            .resources
            .iter()
            .enumerate()
            .filter(|(_, r)| {
                r.prev_ids
                    .iter()
                    .chain(std::iter::once(&r.cur_id()))
                    .any(|id| {
                        id.name == v.obj_name
                            && id.gvk == v.gvk
                            && (v.namespace.is_empty() || id.effective_namespace() == target_ns)
                    })
            })
            .map(|(i, _)| i)
            .collect();
        if matched.len() > 1 {
            return Err(k.err(format!(
                "merging vars: found {} resId matches for var {v} (unable to disambiguate)",
                matched.len()
            )));
        }
        if let Some(&i) = matched.first() {
            m.resources[i].ref_var_names.push(v.name.clone());
        }
        add(&mut m.vars, v).map_err(|e| k.err(format!("merging vars: {e}")))?;
    }
    Ok(())
}

/// A var's value, typed as kyaml's `GetFieldValue` returns it.
#[derive(Debug, Clone)]
enum Value {
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    /// A map or a list: never substituted.
    Complex,
}

impl Value {
    /// Go's `fmt.Sprintf("%v", v)`.
    fn text(&self) -> String {
        match self {
            Value::Str(s) => s.clone(),
            Value::Int(i) => i.to_string(),
            Value::Float(f) => crate::yaml::emit::go_format_g(*f),
            Value::Bool(b) => b.to_string(),
            Value::Complex => String::new(),
        }
    }
}

/// The node a field path designates (`a.b[0].c`, `[k=v]` elements).
fn field_value(obj: &Node, path: &str) -> Result<Value, String> {
    let mut parts = Vec::new();
    for p in super::replacements::split_field_path(path) {
        // kyaml's convertSliceIndex: `name[0]` is `name`, `0`.
        if let Some(open) = p.rfind('[')
            && p.ends_with(']')
            && p[open + 1..p.len() - 1].chars().all(|c| c.is_ascii_digit())
            && open + 2 < p.len()
        {
            if open > 0 {
                parts.push(p[..open].to_string());
            }
            parts.push(p[open + 1..p.len() - 1].to_string());
        } else {
            parts.push(p);
        }
    }
    let Some((node, text)) = super::replacements::lookup(obj, &parts)? else {
        return Err(format!("no field named '{path}'"));
    };
    let bad = || format!("cannot read '{text}' at '{path}'");
    Ok(match node {
        Node::Map(_) | Node::Seq(_) => Value::Complex,
        Node::Str(s) => Value::Str(s),
        Node::Int(_) | Node::UInt(_) => Value::Int(text.parse().map_err(|_| bad())?),
        Node::Float(f) => Value::Float(
            text.parse()
                .ok()
                .or_else(|| f.is_finite().then_some(f))
                .ok_or_else(bad)?,
        ),
        Node::Bool(_) => Value::Bool(match text.as_str() {
            "1" | "t" | "T" | "TRUE" | "true" | "True" => true,
            "0" | "f" | "F" | "FALSE" | "false" | "False" => false,
            _ => return Err(bad()),
        }),
        Node::Null => Value::Str(text),
    })
}

/// kustomize's `DoReplacements`: the typed value when `input` is exactly
/// one reference, else a string.
fn replace(input: &str, values: &HashMap<String, Value>) -> Node {
    let lookup =
        |key: &str| -> Option<&Value> { values.get(key).filter(|v| !matches!(v, Value::Complex)) };
    let b = input.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut checkpoint = 0;
    let mut cursor = 0;
    while cursor < b.len() {
        if b[cursor] == b'$' && cursor + 1 < b.len() {
            out.extend_from_slice(&b[checkpoint..cursor]);
            let rest = &b[cursor + 1..];
            let advance = match rest[0] {
                b'$' => {
                    out.push(b'$');
                    1
                }
                b'(' => match rest.iter().position(|&c| c == b')') {
                    Some(close) => {
                        let key = String::from_utf8_lossy(&rest[1..close]);
                        let mapped = lookup(&key);
                        if input.len() == close + 2 && cursor == 0 {
                            return match mapped {
                                Some(Value::Int(i)) => Node::Int(*i),
                                Some(Value::Float(f)) => Node::Float(*f),
                                Some(Value::Bool(v)) => Node::Bool(*v),
                                Some(v) => Node::Str(v.text()),
                                None => Node::Str(input.to_string()),
                            };
                        }
                        match mapped {
                            Some(v) => out.extend_from_slice(v.text().as_bytes()),
                            None => {
                                out.extend_from_slice(b"$(");
                                out.extend_from_slice(key.as_bytes());
                                out.push(b')');
                            }
                        }
                        close + 1
                    }
                    None => {
                        out.extend_from_slice(b"$(");
                        1
                    }
                },
                c => {
                    // Go appends string(input[0]): the byte as a rune.
                    out.push(b'$');
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(char::from(c).encode_utf8(&mut buf).as_bytes());
                    1
                }
            };
            cursor += advance;
            checkpoint = cursor + 1;
        }
        cursor += 1;
    }
    out.extend_from_slice(&b[checkpoint.min(b.len())..]);
    Node::Str(String::from_utf8_lossy(&out).into_owned())
}

/// kustomize's `ResolveVars`, run once at the top level.
pub fn resolve(m: &mut ResMap, specs: &[FieldSpec]) -> Result<(), Error> {
    if m.vars.is_empty() {
        return Ok(());
    }
    let mut vars = m.vars.clone();
    vars.sort_by(|a, b| a.name.cmp(&b.name));
    let mut values = HashMap::new();
    for v in &vars {
        let Some(r) = m.iter().find(|r| r.ref_var_names.contains(&v.name)) else {
            return Err(Error::msg(format!(
                "var '{v}' cannot be mapped to a field in the set of known resources (check its objref: apiVersion, kind and name as written before any prefix or suffix)"
            )));
        };
        let value = field_value(&r.obj, &v.field_path).map_err(|e| {
            let msg =
                format!("field specified in var '{v}' not found in corresponding resource: {e}");
            match &r.origin.file {
                Some(f) => Error::at(f, msg),
                None => Error::msg(msg),
            }
        })?;
        values.insert(v.name.clone(), value);
    }
    for r in m.resources.iter_mut() {
        let gvk = r.gvk();
        let id = r.cur_id();
        let origin = r.origin.clone();
        for fs in specs {
            fieldspec::apply(&mut r.obj, &gvk, fs, None, &mut |n| set(n, &values)).map_err(
                |e| {
                    let e = e.context(format!("resolving vars in {id}"));
                    match &origin.file {
                        Some(f) if e.file.is_none() => Error {
                            file: Some(f.to_path_buf()),
                            line: (origin.line > 0).then_some(origin.line),
                            message: e.message,
                        },
                        _ => e,
                    }
                },
            )?;
        }
    }
    Ok(())
}

fn set(n: &mut Node, values: &HashMap<String, Value>) -> Result<(), String> {
    match n {
        Node::Str(s) => {
            *n = replace(s, values);
            Ok(())
        }
        Node::Map(m) => {
            let keys: Vec<String> = m
                .iter()
                .filter(|(_, v)| matches!(v, Node::Str(_)))
                .map(|(k, _)| k.clone())
                .collect();
            for k in keys {
                let new = match m.get(&k) {
                    Some(Node::Str(s)) => replace(s, values),
                    _ => continue,
                };
                m.insert(k, new);
            }
            Ok(())
        }
        Node::Seq(items) => {
            for it in items.iter_mut() {
                let Node::Str(s) = it else {
                    return Err("invalid value type expect a string".into());
                };
                *it = replace(s, values);
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vals() -> HashMap<String, Value> {
        let mut m = HashMap::new();
        m.insert("A".to_string(), Value::Str("x".into()));
        m.insert("N".to_string(), Value::Int(8080));
        m
    }

    #[test]
    fn replacements_follow_kustomize() {
        let v = vals();
        assert_eq!(replace("$(A)", &v), Node::Str("x".into()));
        assert_eq!(replace("$(N)", &v), Node::Int(8080));
        assert_eq!(replace("p=$(N)/$(A)", &v), Node::Str("p=8080/x".into()));
        assert_eq!(replace("$$(A)", &v), Node::Str("$(A)".into()));
        assert_eq!(replace("$(B) $(A", &v), Node::Str("$(B) $(A".into()));
        assert_eq!(replace("a$", &v), Node::Str("a$".into()));
        assert_eq!(replace("$x$(A)", &v), Node::Str("$xx".into()));
    }
}
