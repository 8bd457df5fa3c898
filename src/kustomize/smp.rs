//! Strategic-merge patches exactly as kustomize applies them: a port of
//! kyaml's `merge2` walker (kyaml/yaml/walk and merge2, kyaml v0.18.1), run
//! with `ListIncreaseDirection: Prepend` and without list-key inference.
//!
//! kyaml merges by mutating shared nodes in place (the patch node becomes
//! part of the result, list elements are merged where they sit, `SetYNode`
//! copies a node's content into another node), and several of its visible
//! quirks follow from that aliasing. The port therefore works on a graph of
//! reference-counted nodes with the same identities, then converts back.
//! Facts it reproduces (paths under kyaml/yaml/):
//! - walk.go: a node's kind is the first non-null source's; sources of
//!   another kind fail ("wrong node kind"); the schema is the parent's field
//!   schema, else (no schema) the builtin schema of a source map's
//!   apiVersion/kind.
//! - merge2.go VisitMap: a null or missing destination takes the patch map
//!   itself (and then merges it with itself, which drops its nulls and
//!   directives), except that a destination null written with text (`~`,
//!   `null`) and no patch value is kept while an empty one (`key:`) is
//!   dropped; a null patch deletes; `$patch: delete|replace|merge` is
//!   honoured and removed, other values fail.
//! - walk/map.go: fields are visited in sorted order; `FieldSetter` removes a
//!   field whose result is nil or a (non-kept) null, overwrites an existing
//!   field node's content in place, or appends the result node.
//! - walk/associative_sequence.go: lists whose schema patch strategy
//!   contains "merge" are merged on the schema's keys (list-map-keys, else
//!   the patch merge key), or as a set of scalars without keys; every other
//!   list is replaced by the patch list. Element key values are node texts;
//!   multi-key values that differ only by empty strings are unified
//!   (`mergeValues`); elements are merged patch-first, and the destination's
//!   elements are then appended by key (`appendListNode`), replacing merged
//!   items with the same key values — which undoes `$patch: replace` on an
//!   element and lets one element without a key wipe the list.
//! - fns.go ElementSetter/ElementMatcher/FieldMatcher: matching by field
//!   text, dropping null and empty-map elements whenever a list is rewritten.

use std::cell::RefCell;
use std::rc::Rc;

use crate::yaml::resolve::{Schema, resolve_plain};
use crate::yaml::{Map, Node};

use super::openapi::Ty;
use super::openapi_custom;

type P = Rc<RefCell<Y>>;

#[derive(Clone, Debug)]
enum Y {
    Scalar(Sc),
    Map(Vec<(String, P)>),
    Seq(Vec<P>),
}

#[derive(Clone, Debug)]
struct Sc {
    node: Node,
    /// The text it was written with, when that differs from the value's
    /// canonical text.
    raw: Option<String>,
    /// kyaml's `ShouldKeep` (a null kept in the output).
    keep: bool,
    /// Written quoted or as a block scalar: printed as a string of its text
    /// whatever its type (kyaml keeps a replaced field's style).
    quoted: bool,
    /// No type tag (its text is read as YAML again).
    tagless: bool,
    /// How it is printed (part of the node's style, see
    /// `Map::print_breaks`).
    print_breaks: u8,
    /// A type tag its text does not resolve to (see `Map::set_bad_tag`).
    bad_tag: Option<&'static str>,
}

fn scalar(node: Node, raw: Option<String>) -> Y {
    Y::Scalar(Sc {
        node,
        raw,
        keep: false,
        quoted: false,
        tagless: true,
        print_breaks: 0,
        bad_tag: None,
    })
}

type R<T> = Result<T, String>;

fn new(y: Y) -> P {
    Rc::new(RefCell::new(y))
}

/// A map entry's scalar flags.
#[derive(Clone, Copy, Default)]
struct Flags {
    quoted: bool,
    tagless: bool,
    print_breaks: u8,
    bad_tag: Option<&'static str>,
}

/// The print flags of collections (`Map::print_breaks` of the entry
/// holding them: flow style, a block last item), by node; the nodes are
/// kept alive so that their addresses identify them.
#[derive(Default)]
struct FlowNodes {
    nodes: Vec<P>,
    flags: std::collections::HashMap<usize, u8>,
}

impl FlowNodes {
    fn add(&mut self, p: &P, flags: u8) {
        self.flags.insert(Rc::as_ptr(p) as usize, flags);
        self.nodes.push(p.clone());
    }
    fn get(&self, p: &P) -> u8 {
        self.flags
            .get(&(Rc::as_ptr(p) as usize))
            .copied()
            .unwrap_or(0)
    }
}

fn from_node(n: &Node, raw: Option<&str>, flags: Flags, flow: &mut FlowNodes) -> P {
    let p = match n {
        Node::Map(m) => new(Y::Map(
            m.iter()
                .map(|(k, v)| {
                    let flags = Flags {
                        quoted: m.is_quoted(k),
                        tagless: m.is_tagless(k),
                        print_breaks: m.print_breaks(k),
                        bad_tag: m.bad_tag(k),
                    };
                    (k.clone(), from_node(v, m.raw_text(k), flags, flow))
                })
                .collect(),
        )),
        Node::Seq(items) => new(Y::Seq(
            items
                .iter()
                .map(|it| from_node(it, None, Flags::default(), flow))
                .collect(),
        )),
        other => {
            return new(Y::Scalar(Sc {
                node: other.clone(),
                raw: raw.map(str::to_string),
                keep: false,
                quoted: flags.quoted,
                tagless: flags.tagless,
                print_breaks: flags.print_breaks,
                bad_tag: flags.bad_tag,
            }));
        }
    };
    let mut print = flags.print_breaks;
    if matches!(n, Node::Map(m) if m.is_flow()) {
        print |= crate::yaml::PRINT_FLOW;
    }
    if print != 0 {
        flow.add(&p, print);
    }
    p
}

/// Back to a node: its value, source text and flags. `in_flow`: a flow
/// collection holds the node, so go-yaml prints it in flow style too.
fn to_node(p: &P, flow: &FlowNodes, in_flow: bool) -> (Node, Option<String>, Flags) {
    match &*p.borrow() {
        Y::Scalar(sc) => scalar_to_node(sc, in_flow),
        Y::Seq(items) => {
            let print = flow.get(p);
            let in_flow = in_flow || print & crate::yaml::PRINT_FLOW != 0;
            (
                Node::Seq(
                    items
                        .iter()
                        .map(|it| to_node(it, flow, in_flow).0)
                        .collect(),
                ),
                None,
                Flags {
                    print_breaks: print,
                    ..Flags::default()
                },
            )
        }
        Y::Map(entries) => {
            let print = flow.get(p);
            let in_flow = in_flow || print & crate::yaml::PRINT_FLOW != 0;
            let mut m = Map::new();
            for (k, v) in entries {
                let (n, raw, flags) = to_node(v, flow, in_flow);
                m.insert(k.clone(), n);
                if let Some(t) = raw {
                    m.set_raw(k, t);
                }
                m.set_quoted(k, flags.quoted);
                m.set_tagless(k, flags.tagless);
                m.set_print_breaks(k, flags.print_breaks);
                m.set_bad_tag(k, flags.bad_tag);
            }
            m.set_flow(print & crate::yaml::PRINT_FLOW != 0);
            let flags = Flags {
                print_breaks: print,
                ..Flags::default()
            };
            (Node::Map(m), None, flags)
        }
    }
}

/// [`to_node`] of a scalar (apart, so that the recursion's frame stays
/// small: deep documents run on the 2 MiB stacks of worker threads).
fn scalar_to_node(sc: &Sc, in_flow: bool) -> (Node, Option<String>, Flags) {
    let flags = Flags {
        quoted: sc.quoted,
        tagless: sc.tagless && !sc.quoted,
        print_breaks: sc.print_breaks,
        bad_tag: sc.bad_tag,
    };
    // A quoted node is a string of its text (a timestamp too). A
    // number or bool from the patch that took a quoted field's
    // style keeps its type tag in kyaml: printed, its text reads
    // back as a string, but a replacement writing a text of
    // another type there makes the object unreadable.
    let block = sc.print_breaks & (crate::yaml::PRINT_FOLDED | crate::yaml::PRINT_LITERAL) != 0;
    if (sc.quoted || block) && (!matches!(sc.node, Node::Str(_) | Node::Null) || sc.raw.is_some()) {
        let t = sc
            .raw
            .clone()
            .unwrap_or_else(|| crate::yaml::node_text(&sc.node));
        let typed = matches!(
            sc.node,
            Node::Bool(_) | Node::Int(_) | Node::UInt(_) | Node::Float(_)
        )
        .then(|| sc.node.yaml_tag());
        let flags = Flags {
            bad_tag: flags.bad_tag.or(typed),
            ..flags
        };
        return (Node::Str(t), None, flags);
    }
    // A timestamp with a time that a patch brings into a flow
    // collection: go-yaml prints it quoted there (the `:` is a flow
    // indicator), so it reads back as the string of its text, as
    // it would have been read in place.
    if in_flow
        && let Some(t) = sc.raw.as_deref()
        && t.contains(':')
        && crate::yaml::resolve::parse_timestamp(t).is_some()
    {
        return (Node::Str(t.to_string()), None, flags);
    }
    (sc.node.clone(), sc.raw.clone(), flags)
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Scalar,
    Map,
    Seq,
}

fn kind(p: &P) -> Kind {
    match &*p.borrow() {
        Y::Scalar(..) => Kind::Scalar,
        Y::Map(_) => Kind::Map,
        Y::Seq(_) => Kind::Seq,
    }
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Scalar => "ScalarNode",
        Kind::Map => "MappingNode",
        Kind::Seq => "SequenceNode",
    }
}

/// `IsTaggedNull`.
fn is_tagged_null(p: Option<&P>) -> bool {
    p.is_some_and(|p| {
        matches!(
            &*p.borrow(),
            Y::Scalar(Sc {
                node: Node::Null,
                ..
            })
        )
    })
}

/// `IsMissingOrNull`.
fn is_null(p: Option<&P>) -> bool {
    p.is_none() || is_tagged_null(p)
}

/// `IsEmptyMap`.
fn is_empty_map(p: Option<&P>) -> bool {
    is_null(p) || p.is_some_and(|p| matches!(&*p.borrow(), Y::Map(e) if e.is_empty()))
}

/// A node's `Value`: a scalar's text, empty for collections.
fn text(p: &P) -> String {
    match &*p.borrow() {
        Y::Scalar(sc) => sc
            .raw
            .clone()
            .unwrap_or_else(|| crate::yaml::node_text(&sc.node)),
        _ => String::new(),
    }
}

/// `IsYNodeNilOrEmpty` of a field value: null, `{}`, `[]`.
fn is_nil_or_empty(p: &P) -> bool {
    match &*p.borrow() {
        Y::Scalar(Sc {
            node: Node::Null, ..
        }) => true,
        Y::Map(e) => e.is_empty(),
        Y::Seq(s) => s.is_empty(),
        _ => false,
    }
}

/// A map's field value (`Field(name).Value`), None for a missing field or
/// a node that is not a map.
fn field(p: &P, name: &str) -> Option<P> {
    match &*p.borrow() {
        Y::Map(entries) => entries
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone()),
        _ => None,
    }
}

fn wrong_kind(want: Kind, p: &P) -> String {
    format!(
        "wrong node kind: expected {} but got {}: node contents:\n{}",
        kind_name(want),
        kind_name(kind(p)),
        crate::yaml::to_string(&to_node(p, &FlowNodes::default(), false).0).trim_end()
    )
}

/// `FieldSetter{Name, Value}` on a map node.
fn field_set(p: &P, name: &str, val: Option<P>) -> R<()> {
    if kind(p) != Kind::Map {
        return Err(wrong_kind(Kind::Map, p));
    }
    let clear = match &val {
        None => true,
        Some(v) => matches!(
            &*v.borrow(),
            Y::Scalar(Sc {
                node: Node::Null,
                keep: false,
                ..
            })
        ),
    };
    let existing = field(p, name);
    if clear {
        if let Y::Map(entries) = &mut *p.borrow_mut()
            && let Some(i) = entries.iter().position(|(k, _)| k == name)
        {
            entries.remove(i);
        }
        return Ok(());
    }
    let val = val.expect("not cleared");
    // A string value that YAML 1.1 would read as another type is written
    // quoted; a value replacing a field takes that field's style.
    // (kyaml counts an untagged scalar as a string here.)
    if let Y::Scalar(sc) = &mut *val.borrow_mut()
        && (matches!(sc.node, Node::Str(_)) || sc.tagless)
        && !sc.quoted
    {
        let t = sc
            .raw
            .clone()
            .unwrap_or_else(|| crate::yaml::node_text(&sc.node));
        if crate::yaml::resolve::is_yaml11_non_string(&t) {
            sc.quoted = true;
        }
    }
    match existing {
        Some(f) => {
            if !Rc::ptr_eq(&f, &val) {
                let style = match &*f.borrow() {
                    Y::Scalar(sc) => (sc.quoted, sc.print_breaks),
                    _ => (false, 0),
                };
                let mut content = val.borrow().clone();
                if let Y::Scalar(sc) = &mut content {
                    (sc.quoted, sc.print_breaks) = style;
                }
                *f.borrow_mut() = content;
            }
        }
        None => {
            if let Y::Map(entries) = &mut *p.borrow_mut() {
                entries.push((name.to_string(), val));
            }
        }
    }
    Ok(())
}

/// `FieldMatcher{Name, StringValue}` (an empty value matches any value).
fn field_matcher(p: &P, name: &str, value: &str) -> R<Option<P>> {
    if is_null(Some(p)) {
        return Ok(None);
    }
    if name.is_empty() {
        if kind(p) != Kind::Scalar {
            return Err(wrong_kind(Kind::Scalar, p));
        }
        return Ok((text(p) == value).then(|| p.clone()));
    }
    if kind(p) != Kind::Map {
        return Err(wrong_kind(Kind::Map, p));
    }
    Ok(field(p, name).filter(|v| value.is_empty() || text(v) == value))
}

fn seq_items(p: &P) -> Vec<P> {
    match &*p.borrow() {
        Y::Seq(items) => items.clone(),
        _ => Vec::new(),
    }
}

/// `ElementSetter{Element, Keys, Values}` on a list node: rewrites the list
/// without null and empty-map elements, replacing (or, with no element,
/// removing) the elements whose key fields match; appends the element when
/// none matched.
fn element_setter(list: &P, element: Option<P>, keys: &[String], values: &[String]) -> R<()> {
    let keys: Vec<String> = if keys.is_empty() {
        vec![String::new()]
    } else {
        keys.to_vec()
    };
    if kind(list) != Kind::Seq {
        return Err(wrong_kind(Kind::Seq, list));
    }
    let mapping_setter = !keys[0].is_empty() && values.first().is_some_and(|v| !v.is_empty());
    let mut out = Vec::new();
    let mut found_any = false;
    for elem in seq_items(list) {
        if is_empty_map(Some(&elem)) {
            continue;
        }
        if kind(&elem) != Kind::Map && mapping_setter {
            out.push(elem);
            continue;
        }
        let mut val: Option<P> = None;
        let mut found = true;
        for (j, key) in keys.iter().enumerate() {
            if j < values.len() {
                val = field_matcher(&elem, key, &values[j])?;
            }
            if val.is_none() {
                found = false;
                break;
            }
        }
        if !found {
            if !values.is_empty() {
                out.push(elem);
            }
            continue;
        }
        found_any = true;
        if let Some(e) = &element {
            out.push(e.clone());
        }
    }
    if let Y::Seq(items) = &mut *list.borrow_mut() {
        *items = out;
    }
    if let Some(e) = element
        && !is_null(Some(&e))
        && !found_any
        && let Y::Seq(items) = &mut *list.borrow_mut()
    {
        items.push(e);
    }
    Ok(())
}

/// `ElementList(keys, values)`: the first element whose key fields have
/// these texts (for `[""]`, the first item whose text is the value).
fn element_list(list: Option<&P>, keys: &[String], values: &[String]) -> Option<P> {
    let list = list?;
    if kind(list) != Kind::Seq {
        return None;
    }
    let keys: Vec<String> = if keys.is_empty() {
        vec![String::new()]
    } else {
        keys.to_vec()
    };
    let values: Vec<String> = if values.is_empty() {
        vec![String::new()]
    } else {
        values.to_vec()
    };
    let items = seq_items(list);
    if keys[0].is_empty() {
        return items.into_iter().find(|it| text(it) == values[0]);
    }
    if keys.len() != values.len() {
        return None;
    }
    items.into_iter().find(|elem| {
        kind(elem) == Kind::Map
            && !is_null(Some(elem))
            && keys
                .iter()
                .zip(&values)
                .all(|(k, v)| field(elem, k).is_some_and(|f| text(&f) == *v))
    })
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Directive {
    /// A directive that could not be read (only where kyaml ignores it).
    Unknown,
    Replace,
    Delete,
    Merge,
}

const DIRECTIVE: &str = "$patch";

fn directive_of(v: &str) -> Option<Directive> {
    match v {
        "delete" => Some(Directive::Delete),
        "replace" => Some(Directive::Replace),
        "merge" => Some(Directive::Merge),
        _ => None,
    }
}

/// `determineSmpDirective`: reads and removes a `$patch` directive.
fn directive(patch: Option<&P>) -> R<Directive> {
    let Some(p) = patch else {
        return Ok(Directive::Merge);
    };
    match kind(p) {
        Kind::Map => {
            let Some(v) = field(p, DIRECTIVE) else {
                return Ok(Directive::Merge);
            };
            let v = text(&v);
            let d = directive_of(&v).ok_or_else(|| format!("unknown patch strategy '{v}'"))?;
            if let Y::Map(entries) = &mut *p.borrow_mut()
                && let Some(i) = entries.iter().position(|(k, _)| k == DIRECTIVE)
            {
                entries.remove(i);
            }
            Ok(d)
        }
        Kind::Seq => {
            let Some(el) = seq_items(p)
                .into_iter()
                .find(|e| kind(e) == Kind::Map && field(e, DIRECTIVE).is_some())
            else {
                return Ok(Directive::Merge);
            };
            if matches!(&*el.borrow(), Y::Map(e) if e.len() > 1) {
                return Ok(Directive::Merge);
            }
            let v = text(&field(&el, DIRECTIVE).expect("found above"));
            let d = directive_of(&v).ok_or_else(|| format!("unknown patch strategy '{v}'"))?;
            element_setter(p, None, &[DIRECTIVE.to_string()], &[v])?;
            Ok(d)
        }
        Kind::Scalar => Err(format!(
            "no implemented strategic merge patch strategy for '{}'",
            text(p)
        )),
    }
}

// ------------------------------------------------------------------ schema

/// The part of an OpenAPI schema the walker uses.
#[derive(Clone, Copy, Debug)]
enum Sch {
    /// An object with properties (or an opaque object when it has none).
    Obj(u16),
    /// A map whose values have this schema (None: a non-object schema).
    MapOf(Option<u16>),
    /// Any other schema (strings, numbers, ...).
    Opaque,
    List {
        item: Option<u16>,
        merge: bool,
        keys: &'static [&'static str],
    },
}

fn sch_of(ty: Ty, parent: u16, name: &str) -> Sch {
    match ty {
        Ty::Scalar => Sch::Opaque,
        Ty::Object(d) => Sch::Obj(d),
        Ty::MapOf(d) => Sch::MapOf(d),
        Ty::List { item, strategy, .. } => Sch::List {
            item,
            merge: strategy.is_merge(),
            keys: openapi_custom::merge_keys(parent, name),
        },
    }
}

/// `ResourceSchema.Field`.
fn field_schema(s: Option<Sch>, name: &str) -> Option<Sch> {
    match s? {
        Sch::Obj(d) => openapi_custom::field(d, name).map(|ty| sch_of(ty, d, name)),
        Sch::MapOf(Some(d)) => Some(Sch::Obj(d)),
        Sch::MapOf(None) => Some(Sch::Opaque),
        _ => None,
    }
}

/// `ResourceSchema.Elements`.
fn elements_schema(s: Option<Sch>) -> Option<Sch> {
    match s? {
        Sch::List { item: Some(d), .. } => Some(Sch::Obj(d)),
        Sch::List { item: None, .. } => Some(Sch::Opaque),
        _ => None,
    }
}

/// `Walker.GetSchema`: the given schema, else the builtin schema of the
/// first source map that names an apiVersion and kind.
fn get_schema(s: Option<Sch>, sources: &[Option<&P>]) -> Option<Sch> {
    if s.is_some() {
        return s;
    }
    for src in sources.iter().flatten() {
        if is_null(Some(src)) {
            continue;
        }
        let str_field = |name: &str| {
            field(src, name).and_then(|v| match &*v.borrow() {
                Y::Scalar(Sc {
                    node: Node::Str(s), ..
                }) if !s.is_empty() => Some(s.clone()),
                _ => None,
            })
        };
        let (Some(av), Some(k)) = (str_field("apiVersion"), str_field("kind")) else {
            continue;
        };
        let gvk = crate::resource::Gvk::from_api_version(&av, &k);
        if let Some(d) = openapi_custom::def_for_gvk(&gvk.group, &gvk.version, &gvk.kind) {
            return Some(Sch::Obj(d));
        }
    }
    None
}

// -------------------------------------------------------------------- walk

fn walk(dest: Option<P>, origin: Option<P>, s: Option<Sch>) -> R<Option<P>> {
    let s = get_schema(s, &[dest.as_ref(), origin.as_ref()]);
    let k = [dest.as_ref(), origin.as_ref()]
        .into_iter()
        .flatten()
        .find(|p| !is_null(Some(p)))
        .map(kind);
    let check = |want: Kind| -> R<()> {
        for p in [dest.as_ref(), origin.as_ref()].into_iter().flatten() {
            if !is_null(Some(p)) && kind(p) != want {
                return Err(wrong_kind(want, p));
            }
        }
        Ok(())
    };
    match k {
        None | Some(Kind::Map) => {
            check(Kind::Map)?;
            walk_map(dest, origin, s)
        }
        Some(Kind::Seq) => {
            check(Kind::Seq)?;
            if matches!(s, Some(Sch::List { merge: true, .. })) {
                walk_associative(dest, origin, s)
            } else {
                Ok(origin.or(dest))
            }
        }
        Some(Kind::Scalar) => {
            check(Kind::Scalar)?;
            Ok(origin.or(dest))
        }
    }
}

fn walk_map(dest: Option<P>, origin: Option<P>, s: Option<Sch>) -> R<Option<P>> {
    let d = if is_null(dest.as_ref()) {
        let ps = directive(origin.as_ref()).unwrap_or(Directive::Unknown);
        if ps == Directive::Delete {
            return Ok(None);
        }
        if origin.is_none()
            && let Some(d) = &dest
        {
            let t = text(d);
            if !t.is_empty() {
                return Ok(Some(new(Y::Scalar(Sc {
                    node: Node::Null,
                    raw: Some(t),
                    keep: true,
                    quoted: false,
                    tagless: false,
                    print_breaks: 0,
                    bad_tag: None,
                }))));
            }
        }
        origin.clone()
    } else {
        if is_tagged_null(origin.as_ref()) {
            return Ok(None);
        }
        match directive(origin.as_ref())? {
            Directive::Delete => return Ok(None),
            Directive::Replace => origin.clone(),
            _ => dest.clone(),
        }
    };
    let Some(d) = d else {
        return Ok(None);
    };
    let mut names: Vec<String> = Vec::new();
    for src in [Some(&d), origin.as_ref()].into_iter().flatten() {
        if let Y::Map(entries) = &*src.borrow() {
            names.extend(entries.iter().map(|(k, _)| k.clone()));
        }
    }
    names.sort();
    names.dedup();
    for name in names {
        let fs = field_schema(s, &name);
        let dv = field(&d, &name);
        let ov = origin.as_ref().and_then(|o| field(o, &name));
        let val = walk(dv, ov, fs)?;
        field_set(&d, &name, val)?;
    }
    Ok(Some(d))
}

fn walk_associative(dest: Option<P>, origin: Option<P>, s: Option<Sch>) -> R<Option<P>> {
    let d = if is_null(dest.as_ref()) {
        origin.clone()
    } else {
        if is_tagged_null(origin.as_ref()) {
            return Ok(None);
        }
        match directive(origin.as_ref())? {
            Directive::Delete => return Ok(None),
            Directive::Replace => origin.clone(),
            _ => dest.clone(),
        }
    };
    let Some(d) = d else {
        return Ok(None);
    };
    let keys: Vec<String> = match s {
        Some(Sch::List { keys, .. }) => keys.iter().map(|k| k.to_string()).collect(),
        _ => Vec::new(),
    };
    let es = elements_schema(s);
    // Prepend: the patch's elements come first.
    let sources = [origin.clone(), Some(d.clone())];
    let mut values: Vec<Vec<String>> = Vec::new();
    for src in sources.iter().flatten() {
        for elem in seq_items(src) {
            let v: Vec<String> = keys
                .iter()
                .map(|k| {
                    field(&elem, k)
                        .filter(|f| !is_nil_or_empty(f))
                        .map(|f| text(&f))
                        .unwrap_or_default()
                })
                .collect();
            if v.is_empty() || values.contains(&v) {
                continue;
            }
            values.push(v);
        }
    }
    if !values.is_empty() || !keys.is_empty() {
        return set_associative_elements(values, &keys, d, origin, es);
    }
    let mut prim: Vec<Vec<String>> = Vec::new();
    for src in sources.iter().flatten() {
        for item in seq_items(src) {
            let v = vec![text(&item)];
            if !prim.contains(&v) {
                prim.push(v);
            }
        }
    }
    set_associative_elements(prim, &[String::new()], d, origin, es)
}

/// `validateKeys`: the keys some element has a value for (all keys when
/// none has), and the values for them.
fn validate_keys(
    values_list: &[Vec<String>],
    values: &[String],
    keys: &[String],
) -> (Vec<String>, Vec<String>) {
    let mut valid: Vec<&String> = Vec::new();
    for vs in values_list {
        for (i, v) in vs.iter().enumerate() {
            if !v.is_empty() && i < keys.len() && !valid.contains(&&keys[i]) {
                valid.push(&keys[i]);
            }
        }
    }
    if valid.is_empty() {
        return (keys.to_vec(), values.to_vec());
    }
    let vk: Vec<String> = keys.iter().filter(|k| valid.contains(k)).cloned().collect();
    let vv: Vec<String> = values
        .iter()
        .enumerate()
        .filter(|(i, v)| !v.is_empty() || keys.get(*i).is_some_and(|k| valid.contains(&k)))
        .map(|(_, v)| v.clone())
        .collect();
    (vk, vv)
}

/// `mergeValues`: key value lists that agree wherever both are non-empty
/// (and share one value) are unified, in Go's iteration order.
fn merge_values(mut list: Vec<Vec<String>>) -> Vec<Vec<String>> {
    for i in 0..list.len() {
        let values1 = list[i].clone();
        for j in 0..list.len() {
            let values2 = list[j].clone();
            if values1.len() != values2.len() {
                continue;
            }
            let mut common = false;
            let mut res = Vec::new();
            let mut ok = true;
            for (a, b) in values1.iter().zip(&values2) {
                if a == b {
                    common = true;
                    res.push(a.clone());
                } else if !a.is_empty() && !b.is_empty() {
                    ok = false;
                    break;
                } else if !a.is_empty() {
                    res.push(a.clone());
                } else {
                    res.push(b.clone());
                }
            }
            if ok && common {
                list[i] = res.clone();
                list[j] = res;
            }
        }
    }
    list
}

fn set_associative_elements(
    values_list: Vec<Vec<String>>,
    keys: &[String],
    dest: P,
    origin: Option<P>,
    es: Option<Sch>,
) -> R<Option<P>> {
    let items = new(Y::Seq(Vec::new()));
    let values_list = if keys.len() > 1 {
        merge_values(values_list)
    } else {
        values_list
    };
    let mut valid_keys: Vec<String> = Vec::new();
    let mut valid_values: Vec<String>;
    for values in &values_list {
        if values.is_empty() {
            continue;
        }
        (valid_keys, valid_values) = validate_keys(&values_list, values, keys);
        let (k2, v2) = validate_keys(
            std::slice::from_ref(&valid_values),
            &valid_values,
            &valid_keys,
        );
        let de = element_list(Some(&dest), &k2, &v2);
        let oe = element_list(origin.as_ref(), &k2, &v2);
        let val = walk(de, oe, es)?;
        let mut exit = false;
        for (i, key) in valid_keys.iter().enumerate() {
            if is_empty_map(val.as_ref()) {
                element_setter(&dest, None, &valid_keys, &valid_values)?;
                exit = true;
            } else if let Some(v) = &val
                && field(v, key).is_none()
                && !valid_values[i].is_empty()
            {
                let t = valid_values[i].clone();
                let scalar = new(scalar(resolve_plain(&t, Schema::V3), Some(t)));
                if key.is_empty() {
                    // SetField("") on a scalar replaces its content.
                    if kind(v) == Kind::Scalar {
                        let content = scalar.borrow().clone();
                        *v.borrow_mut() = content;
                    }
                } else {
                    field_set(v, key, Some(scalar))?;
                }
            }
        }
        if exit {
            continue;
        }
        element_setter(&items, val, &valid_keys, &valid_values)?;
    }
    let dest = if values_list.is_empty() {
        dest
    } else {
        append_list_node(items, &dest, &valid_keys)?
    };
    if is_null(Some(&dest)) {
        return Ok(None);
    }
    Ok(Some(dest))
}

/// `appendListNode(dst, src, keys)`: adds src's elements to dst by key.
fn append_list_node(dst: P, src: &P, keys: &[String]) -> R<P> {
    for elem in seq_items(src) {
        if keys.first().is_none_or(|k| k.is_empty()) {
            element_setter(&dst, Some(elem.clone()), &[String::new()], &[text(&elem)])?;
            continue;
        }
        let mut v: Vec<String> = Vec::new();
        for key in keys {
            let value = if is_null(Some(&elem)) {
                None
            } else if kind(&elem) != Kind::Map {
                return Err(wrong_kind(Kind::Map, &elem));
            } else {
                field(&elem, key)
            };
            match value {
                None => {
                    if let Y::Seq(items) = &mut *dst.borrow_mut() {
                        items.push(elem.clone());
                    }
                }
                Some(f) => v.push(text(&f)),
            }
        }
        if keys.len() > 1 {
            element_setter(&dst, None, keys, &v)?;
        }
        element_setter(&dst, Some(elem.clone()), keys, &v)?;
    }
    Ok(dst)
}

/// Merges `patch` into `obj` as kustomize's strategic-merge patch does.
/// Returns None when the patch deletes the object.
pub fn merge(obj: &Node, patch: &Node) -> Result<Option<Node>, String> {
    let mut flow = FlowNodes::default();
    let dest = from_node(obj, None, Flags::default(), &mut flow);
    let origin = from_node(patch, None, Flags::default(), &mut flow);
    let out = walk(Some(dest), Some(origin), None)?;
    // The object keeps its document's comments (the patch's are dropped).
    Ok(out.map(|p| {
        let mut n = to_node(&p, &flow, false).0;
        if let (Node::Map(m), Node::Map(from)) = (&mut n, obj) {
            m.set_doc_foot_comment(from.has_doc_foot_comment());
        }
        n
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse_one;

    fn run(obj: &str, patch: &str) -> String {
        let out = merge(&parse_one(obj).unwrap(), &parse_one(patch).unwrap())
            .unwrap()
            .unwrap();
        crate::yaml::to_string(&out)
    }

    const DEPLOY: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n";

    #[test]
    fn ports_merge_on_port_and_protocol() {
        let obj = format!(
            "{DEPLOY}spec:\n  template:\n    spec:\n      containers:\n      - name: web\n        ports:\n        - {{containerPort: 80, name: http}}\n"
        );
        let patch = format!(
            "{DEPLOY}spec:\n  template:\n    spec:\n      containers:\n      - name: web\n        ports:\n        - {{containerPort: 80, protocol: TCP, name: http-main}}\n        - {{containerPort: 443, name: https}}\n"
        );
        let out = run(&obj, &patch);
        assert!(
            out.contains("ports:\n        - containerPort: 443\n          name: https\n        - containerPort: 80\n          name: http\n"),
            "{out}"
        );
    }

    #[test]
    fn element_replace_directive_is_undone() {
        let obj = format!(
            "{DEPLOY}spec:\n  template:\n    spec:\n      containers:\n      - {{name: a, image: x}}\n"
        );
        let patch = format!(
            "{DEPLOY}spec:\n  template:\n    spec:\n      containers:\n      - {{name: a, image: y, $patch: replace}}\n"
        );
        assert!(run(&obj, &patch).contains("image: x"));
    }

    #[test]
    fn empty_null_is_dropped_written_null_kept() {
        let out = run("a: {x: ~, y: , z: null}\n", "a: {q: 1}\n");
        assert_eq!(out, "a:\n  q: 1\n  x: null\n  z: null\n");
    }
}
