//! Patches: strategic merge (schema-aware, as kyaml's merge2) and JSON 6902,
//! plus target selection.

use regex::Regex;

use crate::resource::{Gvk, ResMap, Resource};
use crate::yaml::resolve::Schema;
use crate::yaml::{Map, Node};

use super::Error;
use super::build::Loader;
use super::kustfile::Kustomization;
use super::openapi::{self, Ty};

// ---------------------------------------------------------------- selection

/// A patch target (`types.Selector`); fields are anchored regexes.
#[derive(Debug, Clone, Default)]
pub struct Selector {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub name: String,
    pub namespace: String,
    pub label_selector: String,
    pub annotation_selector: String,
}

impl Selector {
    pub fn from_node(n: &Node) -> Selector {
        let s = |k: &str| n.get(k).and_then(Node::scalar_text).unwrap_or_default();
        Selector {
            group: s("group"),
            version: s("version"),
            kind: s("kind"),
            name: s("name"),
            namespace: s("namespace"),
            label_selector: s("labelSelector"),
            annotation_selector: s("annotationSelector"),
        }
    }
}

fn anchored(s: &str) -> Result<Option<Regex>, String> {
    if s.is_empty() {
        return Ok(None);
    }
    Regex::new(&format!("^(?:{s})$"))
        .map(Some)
        .map_err(|e| format!("invalid regular expression '{s}': {e}"))
}

/// Resources selected by `sel`, as indexes into `m`.
pub fn select(m: &ResMap, sel: &Selector) -> Result<Vec<usize>, String> {
    let g = anchored(&sel.group)?;
    let v = anchored(&sel.version)?;
    let k = anchored(&sel.kind)?;
    let n = anchored(&sel.name)?;
    let ns = anchored(&sel.namespace)?;
    let labels = parse_label_selector(&sel.label_selector)?;
    let annos = parse_label_selector(&sel.annotation_selector)?;
    let hit = |re: &Option<Regex>, s: &str| re.as_ref().is_none_or(|r| r.is_match(s));
    let mut out = Vec::new();
    for (i, r) in m.iter().enumerate() {
        let cur = r.cur_id();
        let org = r.org_id();
        if !hit(&ns, &org.effective_namespace()) && !hit(&ns, &cur.effective_namespace()) {
            continue;
        }
        if !hit(&n, &org.name) && !hit(&n, &cur.name) {
            continue;
        }
        let gvk = r.gvk();
        if !hit(&g, &gvk.group) || !hit(&v, &gvk.version) || !hit(&k, &gvk.kind) {
            continue;
        }
        if !labels.iter().all(|req| req.matches(r.labels())) {
            continue;
        }
        if !annos.iter().all(|req| req.matches(r.annotations())) {
            continue;
        }
        out.push(i);
    }
    Ok(out)
}

#[derive(Debug)]
enum Req {
    Eq(String, String),
    Ne(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    NotExists(String),
}

impl Req {
    fn matches(&self, m: Option<&Map>) -> bool {
        let get = |k: &str| m.and_then(|m| m.get(k)).and_then(Node::scalar_text);
        match self {
            Req::Eq(k, v) => get(k).as_deref() == Some(v.as_str()),
            Req::Ne(k, v) => get(k).as_deref() != Some(v.as_str()),
            Req::In(k, vs) => get(k).is_some_and(|x| vs.contains(&x)),
            Req::NotIn(k, vs) => get(k).is_none_or(|x| !vs.contains(&x)),
            Req::Exists(k) => get(k).is_some(),
            Req::NotExists(k) => get(k).is_none(),
        }
    }
}

/// Kubernetes label selector syntax.
fn parse_label_selector(s: &str) -> Result<Vec<Req>, String> {
    let mut reqs = Vec::new();
    let mut parts = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    parts.push(cur);
    for p in parts {
        let p = p.trim();
        if p.is_empty() {
            continue;
        }
        let set = |rest: &str| -> Result<Vec<String>, String> {
            let rest = rest.trim();
            let inner = rest
                .strip_prefix('(')
                .and_then(|r| r.strip_suffix(')'))
                .ok_or_else(|| format!("invalid label selector '{s}'"))?;
            Ok(inner.split(',').map(|x| x.trim().to_string()).collect())
        };
        if let Some(k) = p.strip_prefix('!') {
            reqs.push(Req::NotExists(k.trim().to_string()));
        } else if let Some((k, v)) = p.split_once("!=") {
            reqs.push(Req::Ne(k.trim().into(), v.trim().into()));
        } else if let Some((k, v)) = p.split_once("==") {
            reqs.push(Req::Eq(k.trim().into(), v.trim().into()));
        } else if let Some((k, v)) = p.split_once('=') {
            reqs.push(Req::Eq(k.trim().into(), v.trim().into()));
        } else if let Some((k, rest)) = p.split_once(" notin ") {
            reqs.push(Req::NotIn(k.trim().into(), set(rest)?));
        } else if let Some((k, rest)) = p.split_once(" in ") {
            reqs.push(Req::In(k.trim().into(), set(rest)?));
        } else {
            reqs.push(Req::Exists(p.to_string()));
        }
    }
    Ok(reqs)
}

// ---------------------------------------------------------- strategic merge

/// Result of merging into a node.
enum Merged {
    Keep,
    Delete,
}

#[derive(Clone, Copy)]
struct SchemaCtx {
    def: Option<u16>,
}

fn def_of_embedded(m: &Map) -> Option<u16> {
    let av = m.get("apiVersion")?.as_str()?;
    let kind = m.get("kind")?.as_str()?;
    let gvk = Gvk::from_api_version(av, kind);
    openapi::def_for_gvk(&gvk.group, &gvk.version, &gvk.kind)
}

fn field_ty(ctx: SchemaCtx, name: &str) -> Option<Ty> {
    openapi::field(ctx.def?, name)
}

fn child_ctx(ty: Option<Ty>) -> SchemaCtx {
    SchemaCtx {
        def: match ty {
            Some(Ty::Object(d)) => Some(d),
            Some(Ty::MapOf(d)) => d,
            _ => None,
        },
    }
}

/// Applies a strategic-merge patch to an object. Returns false when the
/// patch deletes the whole object.
pub fn strategic_merge(obj: &mut Node, patch: &Node, gvk: &Gvk) -> Result<bool, String> {
    let ctx = SchemaCtx {
        def: openapi::def_for_gvk(&gvk.group, &gvk.version, &gvk.kind),
    };
    match merge_node(obj, patch, ctx, None)? {
        Merged::Keep => Ok(true),
        Merged::Delete => Ok(false),
    }
}

fn directive(m: &Map) -> Result<Option<&str>, String> {
    match m.get("$patch") {
        None => Ok(None),
        Some(Node::Str(s)) => match s.as_str() {
            "delete" | "replace" | "merge" => Ok(Some(s.as_str())),
            other => Err(format!("unknown patch strategy '{other}'")),
        },
        Some(_) => Err("$patch must be a string".into()),
    }
}

/// A copy of a patch value with nulls and directives removed, as it lands
/// where the original had nothing.
fn fresh(patch: &Node, ctx: SchemaCtx, list_ty: Option<Ty>) -> Result<Option<Node>, String> {
    match patch {
        Node::Null => Ok(None),
        Node::Map(_) => {
            let mut n = Node::map();
            match merge_node(&mut n, patch, ctx, list_ty)? {
                Merged::Keep => Ok(Some(n)),
                Merged::Delete => Ok(None),
            }
        }
        Node::Seq(_) => {
            let mut n = Node::Seq(Vec::new());
            merge_node(&mut n, patch, ctx, list_ty)?;
            Ok(Some(n))
        }
        other => Ok(Some(other.clone())),
    }
}

fn merge_node(
    dest: &mut Node,
    patch: &Node,
    ctx: SchemaCtx,
    list_ty: Option<Ty>,
) -> Result<Merged, String> {
    match (dest, patch) {
        (Node::Map(d), Node::Map(p)) => {
            let ctx = if ctx.def.is_none() {
                SchemaCtx {
                    def: def_of_embedded(d).or_else(|| def_of_embedded(p)),
                }
            } else {
                ctx
            };
            match directive(p)? {
                Some("delete") => return Ok(Merged::Delete),
                Some("replace") => {
                    let mut out = Map::new();
                    for (k, v) in p.iter() {
                        if k != "$patch" {
                            out.insert(k.clone(), v.clone());
                        }
                    }
                    *d = out;
                    return Ok(Merged::Keep);
                }
                _ => {}
            }
            for (k, pv) in p.iter() {
                if k == "$patch" {
                    continue;
                }
                if pv.is_null() {
                    d.remove(k);
                    continue;
                }
                let ty = field_ty(ctx, k);
                let cctx = match ty {
                    Some(Ty::List { item, .. }) => SchemaCtx { def: item },
                    other => child_ctx(other),
                };
                let lty = if matches!(ty, Some(Ty::List { .. })) {
                    ty.map(|t| (t, ctx.def, k.as_str()))
                } else {
                    None
                };
                let list_ty = lty.map(|(t, _, _)| t);
                let keys: &[&str] = match lty {
                    Some((_, Some(def), name)) => openapi::merge_keys(def, name),
                    _ => &[],
                };
                match d.get_mut(k) {
                    Some(dv) => {
                        if let Merged::Delete = merge_value(dv, pv, cctx, list_ty, keys)? {
                            d.remove(k);
                        }
                    }
                    None => {
                        let mut nv = match pv {
                            Node::Map(_) => Node::map(),
                            Node::Seq(_) => Node::Seq(Vec::new()),
                            _ => Node::Null,
                        };
                        if nv.is_null() {
                            d.insert(k.clone(), pv.clone());
                        } else if let Merged::Keep = merge_value(&mut nv, pv, cctx, list_ty, keys)?
                        {
                            d.insert(k.clone(), nv);
                        }
                    }
                }
            }
            Ok(Merged::Keep)
        }
        (d, p) => merge_value(d, p, ctx, list_ty, &[]),
    }
}

fn merge_value(
    dest: &mut Node,
    patch: &Node,
    ctx: SchemaCtx,
    list_ty: Option<Ty>,
    keys: &[&str],
) -> Result<Merged, String> {
    match (&mut *dest, patch) {
        (Node::Map(_), Node::Map(_)) => merge_node(dest, patch, ctx, list_ty),
        (Node::Seq(d), Node::Seq(p)) => {
            let strategy_merge =
                matches!(list_ty, Some(Ty::List { strategy, .. }) if strategy.is_merge());
            if strategy_merge && !keys.is_empty() {
                *d = merge_keyed_list(d, p, ctx, keys)?;
            } else if strategy_merge
                && p.iter().all(Node::is_scalar)
                && d.iter().all(Node::is_scalar)
            {
                let mut out: Vec<Node> = Vec::new();
                for x in p.iter().chain(d.iter()) {
                    if !out.contains(x) {
                        out.push(x.clone());
                    }
                }
                *d = out;
            } else {
                // A replaced list takes the patch's elements as written
                // (directives inside them are not interpreted).
                *d = p.clone();
            }
            Ok(Merged::Keep)
        }
        (_, Node::Map(pm)) => {
            if directive(pm)? == Some("delete") {
                return Ok(Merged::Delete);
            }
            match fresh(patch, ctx, list_ty)? {
                Some(v) => *dest = v,
                None => return Ok(Merged::Delete),
            }
            Ok(Merged::Keep)
        }
        (_, Node::Seq(_)) => {
            let mut n = Node::Seq(Vec::new());
            merge_value(&mut n, patch, ctx, list_ty, keys)?;
            *dest = n;
            Ok(Merged::Keep)
        }
        (_, p) => {
            *dest = p.clone();
            Ok(Merged::Keep)
        }
    }
}

fn keys_match(a: &Node, b: &Node, keys: &[&str]) -> bool {
    let mut any = false;
    for k in keys {
        if let (Some(x), Some(y)) = (a.get(k), b.get(k)) {
            if x != y {
                return false;
            }
            any = true;
        }
    }
    any
}

fn merge_keyed_list(
    dest: &[Node],
    patch: &[Node],
    ctx: SchemaCtx,
    keys: &[&str],
) -> Result<Vec<Node>, String> {
    // `- $patch: replace` replaces the whole list with the other elements.
    if patch.iter().any(|p| {
        p.as_map().is_some_and(|m| {
            m.len() == 1 && m.get("$patch").and_then(Node::as_str) == Some("replace")
        })
    }) {
        let mut out = Vec::new();
        for p in patch {
            if p.as_map()
                .is_some_and(|m| m.contains_key("$patch") && m.len() == 1)
            {
                continue;
            }
            if let Some(v) = fresh(p, ctx, None)? {
                out.push(v);
            }
        }
        return Ok(out);
    }
    let mut used = vec![false; dest.len()];
    let mut out = Vec::new();
    for p in patch {
        let pos = dest
            .iter()
            .enumerate()
            .position(|(i, d)| !used[i] && keys_match(d, p, keys));
        let is_delete = p
            .as_map()
            .is_some_and(|m| m.get("$patch").and_then(Node::as_str) == Some("delete"));
        if let Some(i) = pos {
            used[i] = true;
            if is_delete {
                continue;
            }
            let mut d = dest[i].clone();
            if let Merged::Keep = merge_value(&mut d, p, ctx, None, &[])? {
                out.push(d);
            }
        } else if !is_delete && let Some(v) = fresh(p, ctx, None)? {
            out.push(v);
        }
    }
    for (i, d) in dest.iter().enumerate() {
        if !used[i] {
            out.push(d.clone());
        }
    }
    Ok(out)
}

// ----------------------------------------------------------------- json 6902

/// Parses JSON 6902 operations from YAML or JSON text.
pub fn parse_json6902(text: &str) -> Result<Vec<Node>, String> {
    let t = text.trim_start();
    if t.starts_with('[') {
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("invalid JSON patch: {e}"))?;
        match Node::from_json(&v) {
            Node::Seq(ops) => Ok(ops),
            _ => Err("a JSON patch must be a list of operations".into()),
        }
    } else {
        let docs =
            crate::yaml::parse::parse_stream_with(text, Schema::V2).map_err(|e| e.to_string())?;
        match docs.into_iter().next().map(|d| d.node) {
            Some(Node::Seq(ops)) => Ok(ops),
            _ => Err("a JSON patch must be a list of operations".into()),
        }
    }
}

fn unescape(tok: &str) -> String {
    tok.replace("~1", "/").replace("~0", "~")
}

fn pointer(path: &str) -> Result<Vec<String>, String> {
    if path.is_empty() {
        return Ok(Vec::new());
    }
    let rest = path
        .strip_prefix('/')
        .ok_or_else(|| format!("JSON pointer '{path}' must start with '/'"))?;
    Ok(rest.split('/').map(unescape).collect())
}

fn get_parent<'a>(doc: &'a mut Node, toks: &[String], path: &str) -> Result<&'a mut Node, String> {
    let mut cur = doc;
    for t in &toks[..toks.len().saturating_sub(1)] {
        cur = match cur {
            Node::Map(m) => m.get_mut(t),
            Node::Seq(s) => t.parse::<usize>().ok().and_then(move |i| s.get_mut(i)),
            _ => None,
        }
        .ok_or_else(|| format!("doc is missing path: \"{path}\""))?;
    }
    Ok(cur)
}

fn get_at<'a>(doc: &'a Node, toks: &[String], path: &str) -> Result<&'a Node, String> {
    let mut cur = doc;
    for t in toks {
        cur = match cur {
            Node::Map(m) => m.get(t),
            Node::Seq(s) => t.parse::<usize>().ok().and_then(|i| s.get(i)),
            _ => None,
        }
        .ok_or_else(|| format!("doc is missing path: \"{path}\""))?;
    }
    Ok(cur)
}

fn op_add(doc: &mut Node, path: &str, value: Node) -> Result<(), String> {
    let toks = pointer(path)?;
    let Some(last) = toks.last() else {
        *doc = value;
        return Ok(());
    };
    let parent = get_parent(doc, &toks, path)?;
    match parent {
        Node::Map(m) => {
            m.insert(last.clone(), value);
            Ok(())
        }
        Node::Seq(s) => {
            if last == "-" {
                s.push(value);
                return Ok(());
            }
            let i: usize = last.parse().map_err(|_| {
                format!("add operation: invalid array index '{last}' in \"{path}\"")
            })?;
            if i > s.len() {
                return Err(format!(
                    "add operation: index {i} out of bounds in \"{path}\""
                ));
            }
            s.insert(i, value);
            Ok(())
        }
        _ => Err(format!(
            "add operation does not apply: doc is missing path: \"{path}\""
        )),
    }
}

fn op_remove(doc: &mut Node, path: &str) -> Result<Node, String> {
    let toks = pointer(path)?;
    let last = toks
        .last()
        .ok_or("remove operation: cannot remove the whole document")?;
    let parent = get_parent(doc, &toks, path)?;
    match parent {
        Node::Map(m) => m.remove(last).ok_or_else(|| {
            format!("remove operation does not apply: doc is missing key: \"{path}\"")
        }),
        Node::Seq(s) => {
            let i: usize = if last == "-" {
                s.len().wrapping_sub(1)
            } else {
                last.parse()
                    .map_err(|_| format!("remove operation: invalid index in \"{path}\""))?
            };
            if i >= s.len() {
                return Err(format!(
                    "remove operation: index out of bounds in \"{path}\""
                ));
            }
            Ok(s.remove(i))
        }
        _ => Err(format!(
            "remove operation does not apply: doc is missing path: \"{path}\""
        )),
    }
}

/// Applies JSON 6902 operations to a document.
pub fn apply_json6902(doc: &mut Node, ops: &[Node]) -> Result<(), String> {
    for op in ops {
        let s = |k: &str| op.get(k).and_then(Node::as_str).map(str::to_string);
        let kind = s("op").ok_or("JSON patch operation without 'op'")?;
        let path =
            s("path").ok_or_else(|| format!("JSON patch '{kind}' operation without 'path'"))?;
        let value = || {
            op.get("value")
                .cloned()
                .ok_or_else(|| format!("JSON patch '{kind}' operation without 'value'"))
        };
        match kind.as_str() {
            "add" => op_add(doc, &path, value()?)?,
            "remove" => {
                op_remove(doc, &path)?;
            }
            "replace" => {
                let toks = pointer(&path)?;
                get_at(doc, &toks, &path).map_err(|_| {
                    format!("replace operation does not apply: doc is missing key: {path}")
                })?;
                op_remove(doc, &path)?;
                op_add(doc, &path, value()?)?;
            }
            "move" => {
                let from = s("from").ok_or("move operation without 'from'")?;
                let v = op_remove(doc, &from)?;
                op_add(doc, &path, v)?;
            }
            "copy" => {
                let from = s("from").ok_or("copy operation without 'from'")?;
                let v = get_at(doc, &pointer(&from)?, &from)?.clone();
                op_add(doc, &path, v)?;
            }
            "test" => {
                let want = value()?;
                let got = get_at(doc, &pointer(&path)?, &path)
                    .map_err(|_| format!("testing value {path} failed: missing"))?;
                if got.to_json() != want.to_json() {
                    return Err(format!("testing value {path} failed: test failed"));
                }
            }
            other => return Err(format!("unknown JSON patch operation '{other}'")),
        }
    }
    Ok(())
}

// ------------------------------------------------------------- transformers

enum PatchBody {
    Smp(Vec<Node>),
    Json(Vec<Node>),
}

fn parse_patch_body(text: &str, what: &str) -> Result<PatchBody, String> {
    let t = text.trim_start();
    if t.starts_with('[') {
        return parse_json6902(text).map(PatchBody::Json);
    }
    let docs =
        crate::yaml::parse_stream(text).map_err(|e| format!("{what}: malformed YAML: {e}"))?;
    if docs.is_empty() {
        return Err(format!("{what}: the patch is empty"));
    }
    if docs.len() == 1 && matches!(docs[0].node, Node::Seq(_)) {
        return parse_json6902(text).map(PatchBody::Json);
    }
    let mut nodes = Vec::new();
    for d in docs {
        match d.node {
            Node::Map(_) => nodes.push(d.node),
            other => {
                return Err(format!(
                    "{what}: expected a mapping, found a {}",
                    other.kind_name()
                ));
            }
        }
    }
    Ok(PatchBody::Smp(nodes))
}

fn patch_id(p: &Node) -> crate::resource::ResId {
    let r = Resource::new(p.clone(), Default::default());
    r.cur_id()
}

/// Applies one SMP patch to resource `i`; returns false if it deleted it.
fn apply_smp_to(
    r: &mut Resource,
    patch: &Node,
    allow_name: bool,
    allow_kind: bool,
) -> Result<bool, String> {
    let (n, ns, k) = (
        r.name().to_string(),
        r.namespace().to_string(),
        r.kind().to_string(),
    );
    if allow_name || allow_kind {
        r.store_previous_id();
    }
    let gvk = r.gvk();
    if !strategic_merge(&mut r.obj, patch, &gvk)? {
        return Ok(false);
    }
    if r.obj.as_map().is_none_or(|m| m.is_empty()) {
        return Ok(false);
    }
    if !allow_kind {
        r.map_mut().insert("kind", Node::str(k));
    }
    if !allow_name {
        r.set_name(&n);
    }
    if ns.is_empty() {
        if let Some(Node::Map(md)) = r.obj.get_mut("metadata") {
            md.remove("namespace");
        }
    } else {
        r.set_namespace(&ns);
    }
    Ok(true)
}

fn smp_by_id(
    m: &mut ResMap,
    patch: &Node,
    allow_name: bool,
    allow_kind: bool,
) -> Result<(), String> {
    let id = patch_id(patch);
    let hits: Vec<usize> = m
        .iter()
        .enumerate()
        .filter(|(_, r)| r.cur_id().equals(&id) || r.prev_ids.iter().any(|p| p.equals(&id)))
        .map(|(i, _)| i)
        .collect();
    match hits.len() {
        0 => Err(format!(
            "no resource matches strategic merge patch \"{id}\""
        )),
        1 => {
            if !apply_smp_to(&mut m.resources[hits[0]], patch, allow_name, allow_kind)? {
                m.resources.remove(hits[0]);
            }
            Ok(())
        }
        _ => Err(format!(
            "multiple resources match strategic merge patch \"{id}\""
        )),
    }
}

fn apply_body(
    m: &mut ResMap,
    body: &PatchBody,
    target: Option<&Selector>,
    allow_name: bool,
    allow_kind: bool,
) -> Result<(), String> {
    match (body, target) {
        (PatchBody::Smp(patches), None) => {
            for p in patches {
                smp_by_id(m, p, allow_name, allow_kind)?;
            }
            Ok(())
        }
        (PatchBody::Smp(patches), Some(sel)) => {
            let idx = select(m, sel)?;
            let patch = &patches[0];
            let mut deleted = Vec::new();
            for i in idx {
                let mut pc = patch.clone();
                let r = &m.resources[i];
                if let Node::Map(pm) = &mut pc {
                    pm.insert("apiVersion", Node::str(r.api_version()));
                    if !pm.contains_key("kind") {
                        pm.insert("kind", Node::str(r.kind()));
                    }
                }
                if !apply_smp_to(&mut m.resources[i], &pc, allow_name, allow_kind)? {
                    deleted.push(i);
                }
            }
            for i in deleted.into_iter().rev() {
                m.resources.remove(i);
            }
            Ok(())
        }
        (PatchBody::Json(_), None) => Err("must specify a target for JSON patch".into()),
        (PatchBody::Json(ops), Some(sel)) => {
            for i in select(m, sel)? {
                let r = &mut m.resources[i];
                r.store_previous_id();
                // kustomize's internal annotations are present on every
                // object while patches run, so `/metadata/annotations/...`
                // always has a map to land in (an empty one is dropped on
                // output).
                if let Some(md) = r.map_mut().entry_map("metadata").as_map_mut()
                    && !md.contains_key("annotations")
                {
                    md.insert("annotations", Node::map());
                }
                let result = apply_json6902(&mut r.obj, ops);
                if let Some(Node::Map(md)) = r.obj.get_mut("metadata")
                    && md
                        .get("annotations")
                        .and_then(Node::as_map)
                        .is_some_and(Map::is_empty)
                {
                    md.remove("annotations");
                }
                if let Err(e) = result {
                    let mut msg =
                        format!("{} {} (defined at {}): {e}", r.kind(), r.name(), r.origin);
                    if e.contains("/patches/-") {
                        msg.push_str(
                            "; the target has no list to append to: seed `patches: []` in its spec",
                        );
                    }
                    return Err(msg);
                }
            }
            Ok(())
        }
    }
}

fn options(item: &Node) -> (bool, bool) {
    let o = |k: &str| {
        item.get_path(&["options", k])
            .and_then(Node::as_bool)
            .unwrap_or(false)
    };
    (o("allowNameChange"), o("allowKindChange"))
}

/// `patches:`
pub fn patches(k: &Kustomization, ldr: &Loader, m: &mut ResMap) -> Result<(), Error> {
    for item in k.list("patches")? {
        let path = item.get_str(&["path"]).unwrap_or("");
        let inline = item.get_str(&["patch"]).unwrap_or("");
        if !path.is_empty() && !inline.is_empty() {
            return Err(k.err("a patch cannot have both 'path' and 'patch'"));
        }
        let (text, what) = if !path.is_empty() {
            (ldr.load(path)?.1, format!("patch '{path}'"))
        } else if !inline.is_empty() {
            (inline.to_string(), "inline patch".to_string())
        } else {
            return Err(k.err("a patch must have 'path' or 'patch'"));
        };
        let body = parse_patch_body(&text, &what).map_err(|e| k.err(e))?;
        let target = item.get("target").map(Selector::from_node);
        let (an, ak) = options(&item);
        apply_body(m, &body, target.as_ref(), an, ak).map_err(|e| k.err(format!("{what}: {e}")))?;
    }
    Ok(())
}

/// `patchesStrategicMerge:` (paths or inline YAML strings).
pub fn patches_strategic_merge(
    k: &Kustomization,
    ldr: &Loader,
    m: &mut ResMap,
) -> Result<(), Error> {
    for entry in k.str_list("patchesStrategicMerge")? {
        let is_inline = entry.contains('\n')
            || entry.trim_start().starts_with("apiVersion")
            || entry.contains(": ");
        let (text, what) = if is_inline {
            (entry.clone(), "inline patch".to_string())
        } else {
            (ldr.load(&entry)?.1, format!("patch '{entry}'"))
        };
        let body = parse_patch_body(&text, &what).map_err(|e| k.err(e))?;
        let PatchBody::Smp(_) = body else {
            return Err(k.err(format!(
                "{what}: patchesStrategicMerge entries must be strategic-merge patches"
            )));
        };
        apply_body(m, &body, None, false, false).map_err(|e| k.err(format!("{what}: {e}")))?;
    }
    Ok(())
}

/// `patchesJson6902:`
pub fn patches_json6902(k: &Kustomization, ldr: &Loader, m: &mut ResMap) -> Result<(), Error> {
    for item in k.list("patchesJson6902")? {
        let target = item
            .get("target")
            .map(Selector::from_node)
            .ok_or_else(|| k.err("patchesJson6902 entries need a 'target'"))?;
        let path = item.get_str(&["path"]).unwrap_or("");
        let inline = item.get_str(&["patch"]).unwrap_or("");
        let (text, what) = if !path.is_empty() {
            (ldr.load(path)?.1, format!("patch '{path}'"))
        } else {
            (inline.to_string(), "inline patch".to_string())
        };
        let ops = parse_json6902(&text).map_err(|e| k.err(format!("{what}: {e}")))?;
        // Legacy targets select by exact names, not regexes.
        let sel = Selector {
            group: regex::escape(&target.group),
            version: regex::escape(&target.version),
            kind: regex::escape(&target.kind),
            name: regex::escape(&target.name),
            namespace: regex::escape(&target.namespace),
            ..Default::default()
        };
        apply_body(m, &PatchBody::Json(ops), Some(&sel), false, false)
            .map_err(|e| k.err(format!("{what}: {e}")))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse_one;

    #[test]
    fn containers_merge_by_name() {
        let mut obj = parse_one(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\nspec:\n  template:\n    spec:\n      containers:\n      - {name: a, image: x}\n      - {name: b, image: y}\n",
        )
        .unwrap();
        let patch = parse_one("spec:\n  template:\n    spec:\n      containers:\n      - {name: b, image: z}\n      - {name: c, image: w}\n").unwrap();
        let gvk = Gvk::from_api_version("apps/v1", "Deployment");
        assert!(strategic_merge(&mut obj, &patch, &gvk).unwrap());
        let names: Vec<String> = obj
            .get_path(&["spec", "template", "spec", "containers"])
            .unwrap()
            .as_seq()
            .unwrap()
            .iter()
            .map(|c| c.get_str(&["image"]).unwrap().to_string())
            .collect();
        assert_eq!(names, vec!["z", "w", "x"]);
    }

    #[test]
    fn json_patch_ops() {
        let mut doc = parse_one("a: {b: [1, 2]}\n").unwrap();
        let ops = parse_json6902("- {op: add, path: /a/b/-, value: 3}\n- {op: test, path: /a/b/0, value: 1}\n- {op: replace, path: /a/b/1, value: 9}\n- {op: add, path: /a/c~1d, value: yes}\n").unwrap();
        apply_json6902(&mut doc, &ops).unwrap();
        assert_eq!(
            crate::yaml::to_string(&doc),
            "a:\n  b:\n  - 1\n  - 9\n  - 3\n  c/d: true\n"
        );
    }
}
