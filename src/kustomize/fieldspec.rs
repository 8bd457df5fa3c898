//! Applying a field spec (a GVK selector and a slash path) to an object, as
//! kustomize's `api/filters/fieldspec` does: sequences along the path are
//! visited element by element, missing fields are created only when the
//! spec says so, and nulls end the walk.

use crate::resource::{Gvk, PathElem};
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

/// A setter that is also told where the field is.
pub type SetAt<'a> = dyn FnMut(&[PathElem], &mut Node) -> Result<(), String> + 'a;

/// Applies `set` to every field `fs` designates in `obj`.
pub fn apply(
    obj: &mut Node,
    gvk: &Gvk,
    fs: &FieldSpec,
    create: Option<CreateKind>,
    set: &mut dyn FnMut(&mut Node) -> Result<(), String>,
) -> Result<(), Error> {
    apply_at(obj, gvk, fs, create, &mut |_, n| set(n))
}

/// Like `apply`, also passing the location of each field.
pub fn apply_at(
    obj: &mut Node,
    gvk: &Gvk,
    fs: &FieldSpec,
    create: Option<CreateKind>,
    set: &mut SetAt,
) -> Result<(), Error> {
    if !gvk_matches(fs, gvk) {
        return Ok(());
    }
    let path = split_path(fs.path);
    let create = if fs.create { create } else { None };
    let mut at = Vec::new();
    walk(obj, &path, create, &mut at, set).map_err(|m| {
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
    at: &mut Vec<PathElem>,
    set: &mut SetAt,
) -> Result<(), String> {
    if path.is_empty() {
        return set(at, node);
    }
    match node {
        Node::Null => Ok(()),
        Node::Seq(items) => {
            for (i, it) in items.iter_mut().enumerate() {
                at.push(PathElem::Index(i));
                let r = walk(it, path, create, at, set);
                at.pop();
                r?;
            }
            Ok(())
        }
        Node::Map(m) => walk_map(m, path, create, at, set),
        _ => Err("expected sequence or mapping node".into()),
    }
}

fn walk_map(
    m: &mut Map,
    path: &[String],
    create: Option<CreateKind>,
    at: &mut Vec<PathElem>,
    set: &mut SetAt,
) -> Result<(), String> {
    let (name, is_seq) = match path[0].strip_suffix("[]") {
        Some(n) => (n, true),
        None => (path[0].as_str(), false),
    };
    if name.is_empty() {
        return Err("cannot set or create an empty field name".into());
    }
    // kyaml's Lookup trims a path element and skips one that is then empty.
    let name = name.trim();
    if name.is_empty() {
        let mut node = Node::Map(std::mem::take(m));
        let r = walk(&mut node, &path[1..], create, at, set);
        if let Node::Map(back) = node {
            *m = back;
        }
        return r;
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
    at.push(PathElem::Key(name.to_string()));
    let r = walk(field, &path[1..], create, at, set);
    at.pop();
    r
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
        let existed = m.contains_key(k);
        if !existed {
            untagged_key_ok(k)?;
        }
        // kyaml's FieldSetter: an existing field keeps its style, a new
        // string that YAML 1.1 reads as another type is written quoted.
        let quoted = if existed {
            m.is_quoted(k)
        } else {
            crate::yaml::resolve::is_yaml11_non_string(v)
        };
        let print = m.print_breaks(k);
        m.insert(k.clone(), Node::Str(v.clone()));
        m.set_quoted(k, quoted);
        m.set_print_breaks(k, print);
    }
    Ok(())
}

/// kyaml writes a key it adds to a map as an untagged plain scalar, and the
/// output is read back by go-yaml v3: a key such as `1`, `true` or `null`
/// then becomes a non-string map key and the build fails.
pub fn untagged_key_ok(k: &str) -> Result<(), String> {
    match crate::yaml::resolve::resolve_plain(k, crate::yaml::resolve::Schema::V3) {
        Node::Str(_) => Ok(()),
        _ if k.is_empty() => Ok(()),
        other => Err(format!(
            "json: unsupported type: map[interface {{}}]interface {{}}: the key '{k}' kustomize adds is read back as a {}",
            other.kind_name()
        )),
    }
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
