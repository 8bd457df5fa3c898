//! `replacements:` — copy a value from one object's field into fields of
//! others (kustomize's api/filters/replacement).

use crate::resource::{ResId, ResMap, Resource};
use crate::yaml::{Map, Node};

use super::Error;
use super::build::Loader;
use super::kustfile::Kustomization;

/// Splits a field path on `.`, keeping `[...]` groups whole (kyaml's
/// SmarterPathSplitter): `[a.b]` is the key `a.b`, `[k=v]` selects a list
/// element.
pub fn split_field_path(path: &str) -> Vec<String> {
    let mut raw: Vec<String> = Vec::new();
    let mut parts: Vec<&str> = path.split('.').collect();
    // kyaml's PathSplitter lets a path start with its delimiter
    // (`.metadata.name`): one leading empty element is dropped.
    if parts.len() > 1 && parts[0].is_empty() {
        parts.remove(0);
    }
    for p in parts {
        if let Some(last) = raw.last_mut()
            && last.ends_with('\\')
        {
            last.pop();
            last.push('.');
            last.push_str(p);
            continue;
        }
        raw.push(p.to_string());
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < raw.len() {
        let e = &raw[i];
        if e.starts_with('[') && !e.ends_with(']') {
            let mut group = vec![e.clone()];
            while i < raw.len() - 1 {
                i += 1;
                group.push(raw[i].clone());
                if raw[i].ends_with(']') {
                    break;
                }
            }
            let joined = group.join(".");
            if joined.contains('=') {
                out.push(joined);
            } else {
                out.push(joined.trim_matches(|c| c == '[' || c == ']').to_string());
            }
        } else {
            out.push(e.clone());
        }
        i += 1;
    }
    out
}

/// A `[field=value]` path element (`SplitIndexNameValue`); an element in
/// brackets without `=` is an error.
fn elem_selector(e: &str) -> Result<Option<(String, String)>, String> {
    if !(e.starts_with('[') && e.ends_with(']')) {
        return Ok(None);
    }
    let inner = e.trim_start_matches('[').trim_end_matches(']');
    match inner.split_once('=') {
        Some((k, v)) => Ok(Some((k.to_string(), v.to_string()))),
        None => {
            Err("list path element must contain fieldName=fieldValue for element to match".into())
        }
    }
}

fn wrong_kind(want: &str, n: &Node) -> String {
    let got = match n {
        Node::Map(_) => "MappingNode",
        Node::Seq(_) => "SequenceNode",
        _ => "ScalarNode",
    };
    format!(
        "wrong node kind: expected {want} but got {got}: node contents:\n{}",
        crate::yaml::to_string(n).trim_end()
    )
}

fn scalar_text_in(n: &Node) -> String {
    if n.is_scalar() {
        crate::yaml::node_text(n)
    } else {
        String::new()
    }
}

/// kyaml's `PathGetter` (the source lookup): the node at `path` and its
/// text (`node.Value`). Numbers index lists, `[k=v]` matches an element
/// whose field `k` has the text `v`, `-` is the last element.
pub(crate) fn lookup(node: &Node, path: &[String]) -> Result<Option<(Node, String)>, String> {
    Ok(lookup_ref(node, path)?.map(|(n, t)| (n.clone(), t)))
}

/// [`lookup`], the node itself.
fn lookup_ref<'n>(node: &'n Node, path: &[String]) -> Result<Option<(&'n Node, String)>, String> {
    let Some(e) = path.first() else {
        return Ok(Some((node, scalar_text_in(node))));
    };
    let rest = &path[1..];
    if e == "*" {
        return Err("wildcard is not supported in PathGetter".into());
    }
    if let Ok(i) = e.parse::<i64>() {
        if i < 0 {
            return Err(format!("array index {i} cannot be negative"));
        }
        return match node {
            Node::Null => Ok(None),
            Node::Seq(items) => match items.get(i as usize) {
                Some(it) => lookup_ref(it, rest),
                None => Ok(None),
            },
            other => Err(wrong_kind("SequenceNode", other)),
        };
    }
    if e == "-" {
        return match node {
            Node::Null => Ok(None),
            Node::Seq(items) => match items.last() {
                Some(it) => lookup_ref(it, rest),
                None => Ok(None),
            },
            other => Err(wrong_kind("SequenceNode", other)),
        };
    }
    if let Some((k, v)) = elem_selector(e)? {
        return match node {
            Node::Null => Ok(None),
            Node::Seq(items) => {
                let found = items.iter().find(|it| {
                    if k.is_empty() {
                        scalar_text_in(it) == v
                    } else {
                        it.as_map()
                            .and_then(|m| {
                                m.get(&k)
                                    .map(|_| m.scalar_source_text(&k).unwrap_or_default())
                            })
                            .as_deref()
                            == Some(v.as_str())
                    }
                });
                match found {
                    Some(it) => lookup_ref(it, rest),
                    None => Ok(None),
                }
            }
            other => Err(wrong_kind("SequenceNode", other)),
        };
    }
    match node {
        Node::Null => Ok(None),
        Node::Map(m) => {
            let Some(v) = m.get(e) else {
                return Ok(None);
            };
            if rest.is_empty() && v.is_scalar() {
                return Ok(Some((v, m.scalar_source_text(e).unwrap_or_default())));
            }
            lookup_ref(v, rest)
        }
        other => Err(wrong_kind("MappingNode", other)),
    }
}

/// A field found (or created) by a target path.
struct Found<'a> {
    node: &'a mut Node,
    /// Created by this replacement (kyaml creates an untagged node).
    created: bool,
    /// An untagged scalar (its new text is read as YAML again).
    tagless: bool,
    /// kyaml's text of the node before the replacement.
    text: String,
    /// A map entry, which can carry a type tag its new text does not
    /// resolve to until the object is printed (elsewhere that fails now).
    entry: bool,
    /// The type tag the node keeps without being readable as it, or
    /// behind a quoted style (see `Map::set_bad_tag`).
    bad_tag: Option<&'static str>,
    /// The node is written quoted or as a block.
    quoted: bool,
}

impl<'a> Found<'a> {
    /// A node just created for the value: untagged, empty, no flags.
    fn created(node: &'a mut Node) -> Found<'a> {
        Found {
            node,
            created: true,
            tagless: false,
            text: String::new(),
            entry: false,
            bad_tag: None,
            quoted: false,
        }
    }
}

/// What a target field became: its source text, if it differs from its
/// value's canonical text, whether it is untagged, and the type tag it
/// keeps without being readable as it (see `Map::set_bad_tag`).
type Written = (Option<String>, bool, Option<&'static str>);

/// The kind kyaml creates for a missing path element, from the next one.
fn created_for(next: Option<&String>, leaf: &Node) -> Node {
    // kyaml's getPathPartKind: an empty next element takes the value's kind.
    let next = next.filter(|n| !n.is_empty());
    match next {
        Some(n) if (n.starts_with('[') && n.ends_with(']')) || n.parse::<u64>().is_ok() => {
            Node::Seq(Vec::new())
        }
        Some(_) => Node::map(),
        None => match leaf {
            Node::Map(_) => Node::map(),
            Node::Seq(_) => Node::Seq(Vec::new()),
            _ => Node::Null,
        },
    }
}

/// The text kyaml matches a `[k=v]` target element against: the field
/// value as YAML, as an unanchored regular expression.
fn element_matches(it: &Node, k: &str, re: &regex::Regex) -> bool {
    let text = if k.is_empty() {
        Some(it.clone())
    } else {
        it.get(k).cloned()
    };
    match text {
        Some(v) if !v.is_null() || !k.is_empty() => {
            let s = match &v {
                Node::Str(s) if !crate::yaml::resolve::v2_needs_quotes(s) => s.clone(),
                other => crate::yaml::to_string(other).trim().to_string(),
            };
            re.is_match(&s)
        }
        _ => false,
    }
}

/// kyaml's `PathMatcher` (the target lookup): visits every node at `path`,
/// creating missing ones when `create` (with the kind of the value `leaf`).
/// `*` and `[k=v]` (an unanchored regex on the field's YAML) visit list
/// elements; a number indexes a list (one past the end appends).
/// Writes the value into `node`, a scalar just created for it that holds
/// no flags: text left untagged is read as YAML right away.
fn write_created(
    node: &mut Node,
    f: &mut dyn FnMut(Found) -> Result<Written, String>,
) -> Result<(), String> {
    let (_, tagless, _) = f(Found::created(node))?;
    if tagless && let Node::Str(t) = node {
        *node = crate::yaml::resolve::resolve_plain(t, crate::yaml::resolve::Schema::V3);
    }
    Ok(())
}

fn visit(
    node: &mut Node,
    path: &[String],
    create: bool,
    leaf: &Node,
    f: &mut dyn FnMut(Found) -> Result<Written, String>,
) -> Result<bool, String> {
    let Some(e) = path.first() else {
        let text = scalar_text_in(node);
        f(Found {
            node,
            created: false,
            tagless: false,
            text,
            entry: false,
            bad_tag: None,
            quoted: false,
        })?;
        return Ok(true);
    };
    let rest = &path[1..];
    if let Ok(idx) = e.parse::<i64>()
        && idx >= 0
    {
        let Node::Seq(items) = node else {
            return Err(wrong_kind("SequenceNode", node));
        };
        let idx = idx as usize;
        if idx == items.len() && create {
            items.push(created_for(rest.first(), leaf));
            if rest.is_empty() && items[idx].is_scalar() {
                // A new, untagged scalar element (a list item cannot carry
                // the flag: its text is read as YAML right away).
                write_created(&mut items[idx], f)?;
                return Ok(true);
            }
        }
        if idx >= items.len() {
            return Err(format!(
                "index {idx} specified but only {} elements found",
                items.len()
            ));
        }
        return visit(&mut items[idx], rest, create, leaf, f);
    }
    if let Some((k, v)) = elem_selector(e)? {
        let Node::Seq(items) = node else {
            return Err(wrong_kind("SequenceNode", node));
        };
        // Go's syntax, as kyaml compiles it.
        let re = crate::goregex::compile(&v)?;
        let mut any = false;
        for it in items.iter_mut() {
            if element_matches(it, &k, &re) {
                any |= visit(it, rest, create, leaf, f)?;
            }
        }
        if any || !create {
            return Ok(any);
        }
        let value = crate::yaml::resolve::resolve_plain(&v, crate::yaml::resolve::Schema::V3);
        items.push(if k.is_empty() {
            value
        } else {
            let mut m = Map::new();
            m.insert(k, value);
            Node::Map(m)
        });
        return visit(node, path, create, leaf, f);
    }
    if e.is_empty() {
        // kyaml's `Get("")` matches a scalar whose value is empty (a
        // mapping or sequence is an error). With `create`, another scalar
        // is set to an empty one, and the value goes to a new node that is
        // not in the object (the field prints as null).
        if matches!(node, Node::Map(_) | Node::Seq(_)) {
            return Err(wrong_kind("ScalarNode", node));
        }
        if node.is_null() && create && rest.is_empty() {
            // A field just created for the value (`a.b.` with create).
            write_created(node, f)?;
            return Ok(true);
        }
        let empty = !node.is_null() && scalar_text_in(node).is_empty();
        return match (empty, node.is_null(), create) {
            (true, _, _) | (false, true, true) => visit(node, rest, create, leaf, f),
            (false, false, true) => {
                *node = Node::Null;
                Ok(true)
            }
            _ => Ok(false),
        };
    }
    if e == "*" {
        let Node::Seq(items) = node else {
            return Err(wrong_kind("SequenceNode", node));
        };
        let mut any = false;
        for it in items.iter_mut() {
            any |= visit(it, rest, create, leaf, f)?;
        }
        return Ok(any);
    }
    match node {
        Node::Map(m) => {
            if !m.contains_key(e) {
                if !create {
                    return Ok(false);
                }
                m.insert(e.clone(), created_for(rest.first(), leaf));
                if rest.is_empty() {
                    let (raw, tagless, _) = f(Found::created(m.get_mut(e).expect("inserted")))?;
                    if let Some(t) = raw {
                        m.set_raw(e, t);
                    }
                    m.set_tagless(e, tagless);
                    return Ok(true);
                }
            } else if rest.is_empty() {
                let text = m.scalar_source_text(e).unwrap_or_default();
                let quoted = m.is_quoted(e);
                let print = m.print_breaks(e);
                let bad_tag = m.bad_tag(e);
                let (raw, tagless, bad_tag) = f(Found {
                    tagless: m.is_tagless(e),
                    node: m.get_mut(e).expect("present"),
                    created: false,
                    text,
                    entry: true,
                    bad_tag,
                    quoted: quoted
                        || print & (crate::yaml::PRINT_FOLDED | crate::yaml::PRINT_LITERAL) != 0,
                })?;
                m.forget_raw(e);
                if let Some(t) = raw {
                    m.set_raw(e, t);
                }
                // The node keeps its style.
                m.set_quoted(e, quoted);
                m.set_print_breaks(e, print);
                m.set_tagless(e, tagless);
                m.set_bad_tag(e, bad_tag);
                return Ok(true);
            }
            visit(m.get_mut(e).expect("present"), rest, create, leaf, f)
        }
        Node::Null if create => {
            *node = Node::map();
            visit(node, path, create, leaf, f)
        }
        Node::Null => Ok(false),
        other => Err(wrong_kind("MappingNode", other)),
    }
}

fn ids_of(r: &Resource) -> Vec<ResId> {
    let mut v = vec![r.cur_id()];
    v.extend(r.prev_ids.iter().cloned());
    v
}

/// A `types.Selector` of a replacement: exact (not regex) id fields
/// (`resid.IsSelectedBy`), plus label and annotation selectors.
#[derive(Default)]
struct IdSelector {
    gvk: crate::resource::Gvk,
    name: String,
    namespace: String,
    label_selector: String,
    annotation_selector: String,
}

impl IdSelector {
    fn from_node(n: &Node) -> Result<IdSelector, String> {
        let s = |k: &str| n.get(k).and_then(Node::scalar_text).unwrap_or_default();
        Ok(IdSelector {
            gvk: crate::resource::Gvk {
                group: s("group"),
                version: s("version"),
                kind: s("kind"),
            },
            name: s("name"),
            namespace: s("namespace"),
            label_selector: s("labelSelector"),
            annotation_selector: s("annotationSelector"),
        })
    }

    fn id_is_empty(&self) -> bool {
        self.gvk.group.is_empty()
            && self.gvk.version.is_empty()
            && self.gvk.kind.is_empty()
            && self.name.is_empty()
            && self.namespace.is_empty()
    }

    fn matches_id(&self, id: &ResId) -> bool {
        let sel_id = ResId {
            gvk: self.gvk.clone(),
            name: self.name.clone(),
            namespace: self.namespace.clone(),
        };
        (self.name.is_empty() || self.name == id.name)
            && (self.namespace.is_empty()
                || sel_id.effective_namespace() == id.effective_namespace())
            && id
                .gvk
                .is_selected_by(&self.gvk.group, &self.gvk.version, &self.gvk.kind)
    }

    fn matches_meta(&self, r: &Resource) -> Result<bool, String> {
        if self.label_selector.is_empty() && self.annotation_selector.is_empty() {
            return Ok(true);
        }
        let mut one = ResMap::new();
        one.resources.push(r.clone());
        let sel = super::patch::Selector {
            label_selector: self.label_selector.clone(),
            annotation_selector: self.annotation_selector.clone(),
            ..Default::default()
        };
        Ok(!super::patch::select(&one, &sel)?.is_empty())
    }
}

/// The source value of a replacement: the node, its text, the index of the
/// source object and, when kyaml hands out the source node itself (no
/// delimiter option), its path: a target that changes that node changes
/// the value later targets receive.
type Source = (Node, String, usize, Option<Vec<String>>, bool);

/// Whether the value at `path` (a replacement's source field) in `r` comes
/// from a Secret (see [`crate::secret`]). A path with a selector or a
/// wildcard counts as secret when the object holds any secret value.
fn source_is_secret(r: &Resource, path: &[String]) -> bool {
    let paths = crate::secret::paths_of(r);
    if paths.is_empty() {
        return false;
    }
    let elems: Option<Vec<crate::resource::PathElem>> = path
        .iter()
        .map(|e| {
            if e.contains(['[', '*', '=']) {
                None
            } else if let Ok(i) = e.parse::<usize>() {
                Some(crate::resource::PathElem::Index(i))
            } else {
                Some(crate::resource::PathElem::Key(e.clone()))
            }
        })
        .collect();
    match elems {
        Some(p) => crate::secret::touches(&paths, &p),
        None => true,
    }
}

fn source_value(m: &ResMap, src: &Node) -> Result<Source, String> {
    let sel = IdSelector::from_node(src)?;
    let mut found: Option<usize> = None;
    for (i, r) in m.iter().enumerate() {
        if ids_of(r).iter().any(|id| sel.matches_id(id)) {
            if found.is_some() {
                return Err(format!("multiple matches for selector {}", describe(src)));
            }
            found = Some(i);
        }
    }
    let ri = found.ok_or_else(|| format!("nothing selected by {}", describe(src)))?;
    let r = &m.resources[ri];
    let fp = src
        .get_str(&["fieldPath"])
        .filter(|s| !s.is_empty())
        .unwrap_or("metadata.name");
    let missing = || {
        format!(
            "fieldPath `{fp}` is missing for replacement source {}",
            describe(src)
        )
    };
    // PathGetter's cleanPath: elements are trimmed, empty ones dropped.
    let path: Vec<String> = split_field_path(fp)
        .into_iter()
        .map(|e| e.trim().to_string())
        .filter(|e| !e.is_empty())
        .collect();
    let secret = source_is_secret(r, &path);
    let (v, text) = lookup(&r.obj, &path)
        .map_err(|e| format!("error looking up replacement source: {e}"))?
        .ok_or_else(missing)?;
    // kyaml's IsNilOrEmpty: null, {} and [] count as missing.
    let empty = match &v {
        Node::Null => true,
        Node::Map(m) => m.is_empty(),
        Node::Seq(s) => s.is_empty(),
        _ => false,
    };
    if empty {
        return Err(missing());
    }
    let Some(opts) = src.get("options") else {
        return Ok((v, text, ri, Some(path), secret));
    };
    let delim = opts.get_str(&["delimiter"]).unwrap_or("");
    if delim.is_empty() {
        return Ok((v, text, ri, Some(path), secret));
    }
    if !v.is_scalar() {
        return Err("delimiter option can only be used with scalar nodes".into());
    }
    let parts: Vec<&str> = text.split(delim).collect();
    let idx = opts.get("index").and_then(Node::as_i64).unwrap_or(0);
    if idx < 0 || idx as usize >= parts.len() {
        return Err(format!(
            "options.index {idx} is out of bounds for value {text}"
        ));
    }
    // kyaml keeps the node (and its type) and changes its text.
    let part = parts[idx as usize].to_string();
    let node = match v {
        Node::Str(_) => Node::Str(part.clone()),
        _ => crate::yaml::resolve::resolve_plain(&part, crate::yaml::resolve::Schema::V3),
    };
    Ok((node, part, ri, None, secret))
}

fn describe(n: &Node) -> String {
    let s = |k: &str| n.get(k).and_then(Node::scalar_text).unwrap_or_default();
    let or = |v: String, d: &str| if v.is_empty() { d.to_string() } else { v };
    format!(
        "{}.{}.{}/{}.{}",
        or(s("kind"), "[noKind]"),
        or(s("version"), "[noVer]"),
        or(s("group"), "[noGrp]"),
        or(s("name"), "[noName]"),
        or(s("namespace"), "[noNs]")
    )
}

/// A target's text with the value put in at part `index` of its parts
/// split at `delim` (before them when negative, after them when past the
/// last).
fn joined(target: &str, value: &str, delim: &str, index: i64) -> String {
    let mut parts: Vec<&str> = target.split(delim).collect();
    if index < 0 {
        parts.insert(0, value);
    } else if index as usize >= parts.len() {
        parts.push(value);
    } else {
        parts[index as usize] = value;
    }
    parts.join(delim)
}

/// kyaml's setFieldValue. A scalar target keeps its node (and type tag) and
/// takes the value's text: the output only reads back when that text
/// resolves to the target's type (or an integer into a float). A created
/// field is untagged, so its text is resolved as YAML. Any other target is
/// replaced by the value node.
fn set_target(
    t: &mut Found,
    value: &Node,
    value_text: &str,
    delim: &str,
    index: i64,
) -> Result<Written, String> {
    let mut text = value_text.to_string();
    if !delim.is_empty() {
        if !t.node.is_scalar() {
            return Err("delimiter option can only be used with scalar nodes".into());
        }
        text = joined(&t.text, value_text, delim, index);
    }
    // kyaml creates a missing field with the value's kind.
    if !t.node.is_scalar() || (t.created && !value.is_scalar()) {
        *t.node = value.clone();
        return Ok((None, false, None));
    }
    let resolved = crate::yaml::resolve::resolve_plain(&text, crate::yaml::resolve::Schema::V3);
    // The node keeps the text it was given (`node.Value`).
    let raw = |n: &Node| (crate::yaml::node_text(n) != text).then(|| text.clone());
    if t.created || t.tagless {
        // An untagged node: its text is read as YAML when the object is
        // printed (see `build::resolve_tagless`).
        *t.node = Node::Str(text);
        return Ok((None, true, None));
    }
    // A plain timestamp read from a source keeps `!!timestamp` in kyaml
    // (flate holds its RFC 3339 text and the source's): another timestamp
    // resolves to it again, any other text keeps the tag and cannot be
    // read back. (A timestamp written in that very form has no source
    // text of its own here and is taken for a string.)
    let timestamp = t.bad_tag.is_none()
        && !t.quoted
        && matches!(&*t.node, Node::Str(s) if *s != t.text)
        && crate::yaml::resolve::parse_timestamp(&t.text).is_some();
    if timestamp {
        if crate::yaml::resolve::parse_timestamp(&text).is_some() {
            *t.node = resolved;
            return Ok((raw(t.node), false, None));
        }
        if t.entry {
            *t.node = Node::Str(text);
            return Ok((None, false, Some("!!timestamp")));
        }
        return Err(format!(
            "yaml: cannot decode {} `{text}` as a !!timestamp",
            resolved.yaml_tag()
        ));
    }
    let old = t.bad_tag.unwrap_or_else(|| t.node.yaml_tag());
    // A typed node written quoted keeps its tag and style: a text of its
    // type prints quoted and reads back as a string.
    if t.quoted && old != "!!str" && resolved.yaml_tag() == old {
        *t.node = Node::Str(text);
        return Ok((None, false, Some(old)));
    }
    *t.node = match (old, resolved) {
        ("!!str", _) => Node::Str(text.clone()),
        ("!!float", Node::Int(i)) => Node::Float(i as f64),
        ("!!float", Node::UInt(u)) => Node::Float(u as f64),
        (old, r) if old == r.yaml_tag() => r,
        // Printing the object fails, unless something sets a readable
        // value first.
        (old, _) if t.entry => {
            *t.node = Node::Str(text);
            return Ok((None, false, Some(old)));
        }
        (old, r) => {
            return Err(format!(
                "yaml: cannot decode {} `{text}` as a {old}",
                r.yaml_tag()
            ));
        }
    };
    Ok((raw(t.node), false, None))
}

fn apply_one(m: &mut ResMap, rep: &Node) -> Result<(), String> {
    let (Some(src), Some(Node::Seq(targets))) = (rep.get("source"), rep.get("targets")) else {
        return Err("replacements must specify a source and at least one target".into());
    };
    let (mut value, mut value_text, src_idx, live, secret) = source_value(m, src)?;
    for t in targets {
        let sel_node = t
            .get("select")
            .filter(|n| !n.is_null())
            .ok_or("target must specify resources to select")?;
        let sel = IdSelector::from_node(sel_node)?;
        let rejects: Vec<IdSelector> = match t.get("reject") {
            Some(Node::Seq(rs)) => rs
                .iter()
                .map(IdSelector::from_node)
                .collect::<Result<_, _>>()?,
            _ => Vec::new(),
        };
        let paths: Vec<String> = match t.get("fieldPaths") {
            Some(Node::Seq(ps)) if !ps.is_empty() => {
                ps.iter().filter_map(Node::scalar_text).collect()
            }
            _ => vec!["metadata.name".into()],
        };
        let opts = t.get("options");
        let create = opts
            .and_then(|o| o.get("create"))
            .and_then(Node::as_bool)
            .unwrap_or(false);
        let delim = opts
            .and_then(|o| o.get_str(&["delimiter"]))
            .unwrap_or("")
            .to_string();
        let index = opts
            .and_then(|o| o.get("index"))
            .and_then(Node::as_i64)
            .unwrap_or(0);
        for ri in 0..m.resources.len() {
            let r = &m.resources[ri];
            let ids = ids_of(r);
            if !sel.matches_meta(r)? {
                continue;
            }
            let mut rejected = false;
            for rj in &rejects {
                if (!rj.label_selector.is_empty() || !rj.annotation_selector.is_empty())
                    && rj.matches_meta(r)?
                {
                    rejected = true;
                }
                if !rj.id_is_empty() && ids.iter().any(|id| rj.matches_id(id)) {
                    rejected = true;
                }
            }
            if rejected || !ids.iter().any(|id| sel.matches_id(id)) {
                continue;
            }
            for p in &paths {
                if let Some(sp) = &live
                    && let Ok(Some((v, t))) = lookup(&m.resources[src_idx].obj, sp)
                {
                    value = v;
                    value_text = t;
                }
                // kyaml hands out the source node itself: when a target
                // path (a wildcard, a selector) reaches it before other
                // fields, those receive what it became.
                let src_node: Option<*const Node> = match &live {
                    Some(sp) if ri == src_idx => lookup_ref(&m.resources[src_idx].obj, sp)
                        .ok()
                        .flatten()
                        .map(|(n, _)| n as *const Node),
                    _ => None,
                };
                let path = split_field_path(p);
                let r = &mut m.resources[ri];
                let found = visit(&mut r.obj, &path, create, &value.clone(), &mut |mut t| {
                    let is_source =
                        !t.created && src_node.is_some_and(|n| std::ptr::eq(&*t.node, n));
                    if !is_source {
                        return set_target(&mut t, &value, &value_text, &delim, index);
                    }
                    let new_text = if t.node.is_scalar() && !delim.is_empty() {
                        joined(&t.text, &value_text, &delim, index)
                    } else {
                        value_text.clone()
                    };
                    let w = set_target(&mut t, &value, &value_text, &delim, index)?;
                    value = t.node.clone();
                    value_text = new_text;
                    Ok(w)
                })
                .map_err(|e| {
                    format!(
                        "unable to {} field \"{p}\" in replacement target: {e}",
                        if create { "find or create" } else { "find" }
                    )
                })?;
                if !found {
                    return Err(format!(
                        "unable to {} field \"{p}\" in replacement target",
                        if create { "find or create" } else { "find" }
                    ));
                }
                // A Secret's value copied into another object stays secret
                // there: every field of the target now holding it is tainted.
                if secret {
                    crate::secret::taint_holders(&mut m.resources[ri], &value, &value_text);
                }
                if m.resources[ri].obj.depth() > crate::yaml::parse::MAX_DEPTH {
                    return Err(format!(
                        "replacing field \"{p}\" makes the object nest deeper than the limit of {} levels",
                        crate::yaml::parse::MAX_DEPTH
                    ));
                }
            }
        }
    }
    Ok(())
}

/// `replacements:`
pub fn apply(k: &Kustomization, ldr: &Loader, m: &mut ResMap) -> Result<(), Error> {
    for item in k.list("replacements")? {
        let reps: Vec<Node> = match item.get_str(&["path"]) {
            Some(p) => {
                let (file, text) = ldr.load(p)?;
                let docs = crate::yaml::parse_stream(&text).map_err(|e| Error::yaml(&file, &e))?;
                let mut v = Vec::new();
                for d in docs {
                    match d.node {
                        Node::Seq(items) => v.extend(items),
                        other => v.push(other),
                    }
                }
                v
            }
            None => vec![item.clone()],
        };
        for rep in &reps {
            apply_one(m, rep).map_err(|e| k.err(format!("replacements: {e}")))?;
        }
    }
    Ok(())
}
