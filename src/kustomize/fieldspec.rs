//! Applying a field spec (a GVK selector and a slash path) to an object, as
//! kustomize's `api/filters/fieldspec` does: sequences along the path are
//! visited element by element, missing fields are created only when the
//! spec says so, and nulls end the walk (but the last field of the path
//! goes to the setter whatever it holds).

use crate::resource::{Gvk, PathElem, ResId, Resource};
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
        // kustomize names the object by its id as it is now.
        let id = ResId {
            gvk: gvk.clone(),
            name: obj.get_str(&["metadata", "name"]).unwrap_or("").into(),
            namespace: obj.get_str(&["metadata", "namespace"]).unwrap_or("").into(),
        };
        Error::msg(format!(
            "considering field '{}' of object {id}: {m}",
            fs.path
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
    // A null field: kustomize gives it the kind it would create (a scalar
    // keeps the null's text: `~` becomes the string `~`), and a field the
    // path marks as a list (`name[]`) becomes an empty list, whatever the
    // spec says about creating. Otherwise a null ends the walk, but the
    // last field of the path goes to the setter whatever it holds.
    if m.get(name).is_some_and(Node::is_null) {
        let text = m.raw_text(name).unwrap_or("null").to_string();
        let field = m.get_mut(name).expect("present");
        match kind {
            Some(CreateKind::Map) => *field = Node::map(),
            Some(CreateKind::Scalar) => *field = Node::Str(text),
            None if is_seq => *field = Node::Seq(Vec::new()),
            None if path.len() > 1 => return Ok(()),
            None => {}
        }
    }
    // A setter puts a new node in place (kyaml's `SetEntry`): a type tag
    // the old scalar kept goes with it.
    let tagged = (path.len() == 1 && m.bad_tag(name).is_some()).then(|| m.get(name).cloned());
    let field = m.get_mut(name).expect("present");
    at.push(PathElem::Key(name.to_string()));
    let r = walk(field, &path[1..], create, at, set);
    at.pop();
    if let Some(before) = tagged
        && before.as_ref() != m.get(name)
    {
        m.set_bad_tag(name, None);
    }
    r
}

/// kyaml's `ErrorIfInvalid(node, ScalarNode)`, which the setters of one
/// value (prefix, suffix, namespace, replicas) run before writing: a field
/// spec whose path ends at a map or a list fails instead of replacing it.
pub fn expect_scalar(n: &Node) -> Result<(), String> {
    let got = match n {
        Node::Map(_) => "MappingNode",
        Node::Seq(_) => "SequenceNode",
        _ => return Ok(()),
    };
    Err(format!(
        "wrong node kind: expected ScalarNode but got {got}: node contents:\n{}",
        crate::yaml::to_string(n).trim_end()
    ))
}

/// Whether kustomize holds build annotations on this object at this point
/// of the build: previous names (prefix, suffix, namespace, a patch that
/// renames, the hash), the prefixes and suffixes, and a generated object's
/// behavior and hash flag. kustomize keeps them in `metadata/annotations`
/// (`internal.config.kubernetes.io/...`, `kustomize.config.k8s.io/...`)
/// until the end of the build; flate keeps them in the `Resource`.
pub fn has_build_annotations(r: &Resource) -> bool {
    !r.prev_ids.is_empty()
        || !r.prefixes.is_empty()
        || !r.suffixes.is_empty()
        || r.behavior.is_some()
        || r.needs_hash
}

/// An empty `metadata/annotations` map standing in for kustomize's build
/// annotations while a field spec is applied (see [`StandIn::put`]).
#[must_use]
pub struct StandIn {
    /// `Some` when the map was put in, with what the field held before
    /// (`None`: it was absent).
    put: Option<Option<Node>>,
}

impl StandIn {
    /// When the object holds build annotations (`build`) and `path` leads
    /// into `metadata/annotations`, which the object lacks or holds as
    /// something other than a map, puts an empty map there: in kustomize
    /// the field is a map holding the build annotations, so a field spec
    /// that does not create it still reaches it (a label is added, a name
    /// reference finds no `name`, a prefix finds a map). Adding a build
    /// annotation first clears a field without content (kyaml's
    /// `ClearEmptyAnnotations`: a scalar, null, an empty list).
    pub fn put(obj: &mut Node, build: bool, path: &str) -> StandIn {
        let none = StandIn { put: None };
        if !build || !leads_into_annotations(path) {
            return none;
        }
        let Some(Node::Map(md)) = obj.get_mut("metadata") else {
            return none;
        };
        match md.get_mut("annotations") {
            None => {
                md.insert("annotations", Node::map());
                StandIn { put: Some(None) }
            }
            Some(Node::Map(_)) => none,
            Some(Node::Seq(items)) if !items.is_empty() => none,
            Some(n) => StandIn {
                put: Some(Some(std::mem::replace(n, Node::map()))),
            },
        }
    }

    /// Takes the stand-in out again when nothing was added to it (kustomize
    /// drops the annotations field that only held build annotations, as
    /// flate drops one that is not a map).
    pub fn take(self, obj: &mut Node) {
        let Some(before) = self.put else {
            return;
        };
        let Some(Node::Map(md)) = obj.get_mut("metadata") else {
            return;
        };
        if !matches!(md.get("annotations"), Some(Node::Map(a)) if a.is_empty()) {
            return;
        }
        match before {
            Some(old) => {
                if let Some(n) = md.get_mut("annotations") {
                    *n = old;
                }
            }
            None => {
                md.remove("annotations");
            }
        }
    }
}

/// Whether a field spec path starts with `metadata/annotations` as the
/// field spec walk reads it (elements trimmed, those left empty skipped,
/// a `[]` suffix ignored).
fn leads_into_annotations(path: &str) -> bool {
    let mut elems = split_path(path)
        .into_iter()
        .map(|e| e.strip_suffix("[]").unwrap_or(&e).trim().to_string())
        .filter(|e| !e.is_empty());
    elems.next().as_deref() == Some("metadata") && elems.next().as_deref() == Some("annotations")
}

/// [`apply_at`] on a resource, with its build annotations standing in for
/// `metadata/annotations` (see [`StandIn`]).
pub fn apply_to_resource(
    r: &mut Resource,
    fs: &FieldSpec,
    create: Option<CreateKind>,
    set: &mut SetAt,
) -> Result<(), Error> {
    let gvk = r.gvk();
    if !gvk_matches(fs, &gvk) {
        return Ok(());
    }
    let build = has_build_annotations(r);
    let stand_in = StandIn::put(&mut r.obj, build, fs.path);
    let res = apply_at(&mut r.obj, &gvk, fs, create, set);
    stand_in.take(&mut r.obj);
    res
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
        m.set_bad_tag(k, None);
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
