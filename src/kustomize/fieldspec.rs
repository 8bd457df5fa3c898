//! Applying a field spec (a GVK selector and a slash path) to an object, as
//! kustomize's `api/filters/fieldspec` does: sequences along the path are
//! visited element by element, missing fields are created only when the
//! spec says so, and nulls end the walk.

use crate::resource::Gvk;
use crate::yaml::{Map, Node};

use super::Error;
use super::fieldspecs::FieldSpec;

/// What to create for a missing last path element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CreateKind {
    Scalar,
    Map,
}

/// Splits a path on `/`, honouring `\/` escapes.
pub fn split_path(path: &str) -> Vec<String> {
    let mut parts: Vec<String> = Vec::new();
    let raw: Vec<&str> = path.split('/').collect();
    let raw = if raw.len() > 1 && raw[0].is_empty() {
        &raw[1..]
    } else {
        &raw[..]
    };
    for p in raw {
        if let Some(last) = parts.last_mut()
            && last.ends_with('\\')
        {
            last.pop();
            last.push('/');
            last.push_str(p);
            continue;
        }
        parts.push(p.to_string());
    }
    parts
}

pub fn gvk_matches(fs: &FieldSpec, gvk: &Gvk) -> bool {
    gvk.is_selected_by(fs.group, fs.version, fs.kind)
}

/// Applies `set` to every field `fs` designates in `obj`.
pub fn apply(
    obj: &mut Node,
    gvk: &Gvk,
    fs: &FieldSpec,
    create: Option<CreateKind>,
    set: &mut dyn FnMut(&mut Node) -> Result<(), String>,
) -> Result<(), Error> {
    if !gvk_matches(fs, gvk) {
        return Ok(());
    }
    let path = split_path(fs.path);
    let create = if fs.create { create } else { None };
    walk(obj, &path, create, set).map_err(|m| {
        Error::msg(format!(
            "considering field '{}' of object {}: {m}",
            fs.path, gvk.kind
        ))
    })
}

fn walk(
    node: &mut Node,
    path: &[String],
    create: Option<CreateKind>,
    set: &mut dyn FnMut(&mut Node) -> Result<(), String>,
) -> Result<(), String> {
    if path.is_empty() {
        return set(node);
    }
    match node {
        Node::Null => Ok(()),
        Node::Seq(items) => {
            for it in items.iter_mut() {
                walk(it, path, create, set)?;
            }
            Ok(())
        }
        Node::Map(m) => walk_map(m, path, create, set),
        _ => Err("expected sequence or mapping node".into()),
    }
}

fn walk_map(
    m: &mut Map,
    path: &[String],
    create: Option<CreateKind>,
    set: &mut dyn FnMut(&mut Node) -> Result<(), String>,
) -> Result<(), String> {
    let (name, is_seq) = match path[0].strip_suffix("[]") {
        Some(n) => (n, true),
        None => (path[0].as_str(), false),
    };
    if name.is_empty() {
        return Err("cannot set or create an empty field name".into());
    }
    let kind = if create.is_none() || is_seq {
        None
    } else if path.len() <= 1 {
        create
    } else {
        Some(CreateKind::Map)
    };
    if !m.contains_key(name) {
        match kind {
            None => return Ok(()),
            Some(CreateKind::Map) => m.insert(name, Node::map()),
            Some(CreateKind::Scalar) => m.insert(name, Node::Str(String::new())),
        }
    }
    let field = m.get_mut(name).expect("present");
    if field.is_null() {
        match kind {
            Some(CreateKind::Map) => *field = Node::map(),
            Some(CreateKind::Scalar) => *field = Node::Str(String::new()),
            None => return Ok(()),
        }
    }
    walk(field, &path[1..], create, set)
}

/// Sets each `(key, value)` pair in a map node (creating it when needed).
pub fn set_entries(node: &mut Node, pairs: &[(String, String)]) -> Result<(), String> {
    if node.is_null() || matches!(node, Node::Str(s) if s.is_empty()) {
        *node = Node::map();
    }
    let Node::Map(m) = node else {
        return Err(format!("expected a mapping, found a {}", node.kind_name()));
    };
    for (k, v) in pairs {
        m.insert(k.clone(), Node::Str(v.clone()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaped_slashes() {
        assert_eq!(
            split_path("metadata/annotations/a.io\\/b"),
            vec!["metadata", "annotations", "a.io/b"]
        );
    }
}
