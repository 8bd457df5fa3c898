//! Patches: strategic merge (schema-aware, as kyaml's merge2) and JSON 6902,
//! plus target selection.

use regex::Regex;
use std::path::Path;

use crate::resource::{Gvk, ResMap, Resource};
use crate::yaml::{Map, Node};

use super::Error;
use super::build::Loader;
use super::kustfile::Kustomization;

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

/// A selector field: kustomize anchors it as a regular expression; most
/// are plain names (or API groups, whose dots match any character), compared
/// without compiling anything.
#[derive(Clone)]
enum Pat {
    Lit(String),
    /// Literal characters and `.` (any character but a line break).
    Dotted(String),
    Re(std::rc::Rc<Regex>),
}

impl Pat {
    fn is_match(&self, s: &str) -> bool {
        match self {
            Pat::Lit(l) => l == s,
            Pat::Dotted(p) => dotted_match(p, s),
            Pat::Re(r) => r.is_match(s),
        }
    }
}

/// An anchored pattern of literal characters and `.` (any character but
/// a line break) against `s`.
fn dotted_match(p: &str, s: &str) -> bool {
    let mut t = s.chars();
    for pc in p.chars() {
        match t.next() {
            Some(c) if c == pc || (pc == '.' && c != '\n') => {}
            _ => return false,
        }
    }
    t.next().is_none()
}

/// Whether the selector field `pattern` (kustomize anchors it as a
/// regular expression) matches `s`: an empty pattern matches anything, an
/// invalid one nothing.
pub fn selector_matches(pattern: &str, s: &str) -> bool {
    if is_literal(pattern) {
        // No allocation: this runs for every object against every patch.
        return pattern.is_empty() || dotted_match(pattern, s);
    }
    match anchored(pattern) {
        Ok(Some(p)) => p.is_match(s),
        Ok(None) => true,
        Err(_) => false,
    }
}

/// Whether a selector field matches only the very same name.
pub fn is_plain_name(s: &str) -> bool {
    is_literal(s) && !s.contains('.')
}

/// Whether `s` matches only itself as a regular expression, once `.` is
/// set aside.
fn is_literal(s: &str) -> bool {
    !s.chars().any(|c| {
        matches!(
            c,
            '\\' | '+' | '*' | '?' | '(' | ')' | '|' | '[' | ']' | '{' | '}' | '^' | '$'
        )
    })
}

fn anchored(s: &str) -> Result<Option<Pat>, String> {
    if s.is_empty() {
        return Ok(None);
    }
    if is_literal(s) {
        return Ok(Some(if s.contains('.') {
            Pat::Dotted(s.to_string())
        } else {
            Pat::Lit(s.to_string())
        }));
    }
    // Go's syntax (kustomize compiles selectors with Go's `regexp`: a `{`
    // that starts no repetition is a literal there, an error to the
    // crate); compiled once per thread, as one Flux patch is matched
    // against every child Kustomization.
    let re = crate::goregex::compile(&format!("^(?:{s})$"))?;
    Ok(Some(Pat::Re(re)))
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
    let hit = |re: &Option<Pat>, s: &str| re.as_ref().is_none_or(|r| r.is_match(s));
    let mut out = Vec::new();
    for (i, r) in m.iter().enumerate() {
        // Cheap tests first: kind and name need no allocation.
        let kind = r.kind();
        if !hit(&k, kind) {
            continue;
        }
        let org_name = r.prev_ids.first().map_or(r.name(), |id| id.name.as_str());
        if !hit(&n, org_name) && !hit(&n, r.name()) {
            continue;
        }
        if g.is_some() || v.is_some() {
            let gvk = r.gvk();
            if !hit(&g, &gvk.group) || !hit(&v, &gvk.version) {
                continue;
            }
        }
        if ns.is_some() {
            let cur = r.cur_id();
            let org = r.org_id();
            if !hit(&ns, &org.effective_namespace()) && !hit(&ns, &cur.effective_namespace()) {
                continue;
            }
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

#[derive(Debug, Clone)]
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

/// A parsed Kubernetes label selector (`app=a,tier!=b,env in (x,y),!k`),
/// for callers outside patch targets (`flate get -l`).
#[derive(Debug, Clone)]
pub struct LabelSelector(Vec<Req>);

impl LabelSelector {
    pub fn parse(s: &str) -> Result<LabelSelector, String> {
        parse_label_selector(s).map(LabelSelector)
    }
    /// Whether `labels` (an object's metadata.labels) satisfy every requirement.
    pub fn matches(&self, labels: Option<&Map>) -> bool {
        self.0.iter().all(|r| r.matches(labels))
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

/// Applies a strategic-merge patch to an object (see `smp`, a port of
/// kyaml's merge2). Returns false when the patch deletes the whole object.
pub fn strategic_merge(obj: &mut Node, patch: &Node, _gvk: &Gvk) -> Result<bool, String> {
    match super::smp::merge(obj, patch)? {
        Some(out) => {
            *obj = out;
            Ok(true)
        }
        None => Ok(false),
    }
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
        let docs = crate::yaml::parse::parse_stream_json_keys(text).map_err(|e| e.to_string())?;
        let node = docs.into_iter().next().map(|d| d.node);
        // kustomize converts the YAML to JSON first (`yaml.YAMLToJSON`).
        if let Some(bad) = node.as_ref().and_then(super::build::non_finite) {
            return Err(format!("json: unsupported value: {bad}"));
        }
        match node {
            Some(Node::Seq(ops)) => Ok(ops),
            _ => Err("a JSON patch must be a list of operations".into()),
        }
    }
}

// The operations follow gopkg.in/evanphx/json-patch.v4 (v4.12), which
// kustomize uses: paths are split on `/` and their first segment ignored
// (so `a/b` means `/b`); a missing object key reads as null (`replace` then
// adds, `copy` copies null, `test` against null passes); array indexes may
// be negative (counted from the end) and `-` appends.

fn unescape(tok: &str) -> String {
    tok.replace("~1", "/").replace("~0", "~")
}

/// `findObject`'s split: the container's path and the last key.
fn split_pointer(path: &str) -> Option<(Vec<String>, String)> {
    let split: Vec<&str> = path.split('/').collect();
    if split.len() < 2 {
        return None;
    }
    let parts = split[1..split.len() - 1]
        .iter()
        .map(|p| unescape(p))
        .collect();
    Some((parts, unescape(split[split.len() - 1])))
}

/// Go's strconv.Atoi.
fn atoi(key: &str) -> Result<i64, String> {
    key.parse::<i64>()
        .map_err(|_| format!("strconv.Atoi: parsing \"{key}\": invalid syntax"))
}

/// An array index for reading (`partialArray.get`).
fn array_index(key: &str, len: usize) -> Result<usize, String> {
    let mut idx = atoi(key)?;
    let len = len as i64;
    if idx < 0 {
        if idx < -len {
            return Err(format!("Unable to access invalid index: {idx}"));
        }
        idx += len;
    }
    if idx >= len {
        return Err(format!("Unable to access invalid index: {idx}"));
    }
    Ok(idx as usize)
}

/// `findObject`: the object or array that holds the path's last key.
fn find_container<'a>(doc: &'a mut Node, parts: &[String]) -> Option<&'a mut Node> {
    let mut cur = doc;
    for part in parts {
        cur = match cur {
            Node::Map(m) => m.get_mut(part)?,
            Node::Seq(s) => {
                let i = array_index(part, s.len()).ok()?;
                s.get_mut(i)?
            }
            _ => return None,
        };
    }
    matches!(cur, Node::Map(_) | Node::Seq(_)).then_some(cur)
}

/// `container.get`: Ok(None) for a missing object key.
fn container_get(con: &Node, key: &str) -> Result<Option<Node>, String> {
    match con {
        Node::Map(m) => Ok(m.get(key).cloned()),
        Node::Seq(s) => Ok(Some(s[array_index(key, s.len())?].clone())),
        _ => Ok(None),
    }
}

fn container_add(con: &mut Node, key: &str, val: Node) -> Result<(), String> {
    match con {
        Node::Map(m) => {
            m.insert(key, val);
            Ok(())
        }
        Node::Seq(s) => {
            if key == "-" {
                s.push(val);
                return Ok(());
            }
            let mut idx = atoi(key)
                .map_err(|e| format!("value was not a proper array index: '{key}': {e}"))?;
            let sz = s.len() as i64 + 1;
            if idx >= sz {
                return Err(format!("Unable to access invalid index: {idx}"));
            }
            if idx < 0 {
                if idx < -sz {
                    return Err(format!("Unable to access invalid index: {idx}"));
                }
                idx += sz;
            }
            s.insert(idx as usize, val);
            Ok(())
        }
        _ => Err("not a container".into()),
    }
}

fn container_remove(con: &mut Node, key: &str) -> Result<(), String> {
    match con {
        Node::Map(m) => m
            .remove(key)
            .map(|_| ())
            .ok_or_else(|| format!("Unable to remove nonexistent key: {key}: missing value")),
        Node::Seq(s) => {
            let mut idx = atoi(key)?;
            let len = s.len() as i64;
            if idx >= len {
                return Err(format!("Unable to access invalid index: {idx}"));
            }
            if idx < 0 {
                if idx < -len {
                    return Err(format!("Unable to access invalid index: {idx}"));
                }
                idx += len;
            }
            s.remove(idx as usize);
            Ok(())
        }
        _ => Err("not a container".into()),
    }
}

fn locate<'a>(doc: &'a mut Node, path: &str) -> Option<(&'a mut Node, String)> {
    let (parts, key) = split_pointer(path)?;
    let con = find_container(doc, &parts)?;
    Some((con, key))
}

/// Applies JSON 6902 operations to a document.
pub fn apply_json6902(doc: &mut Node, ops: &[Node]) -> Result<(), String> {
    for op in ops {
        let kind = match op.get("op") {
            Some(Node::Str(s)) => s.clone(),
            _ => "unknown".to_string(),
        };
        let path = || -> Result<String, String> {
            match op.get("path") {
                Some(Node::Str(s)) => Ok(s.clone()),
                None | Some(Node::Null) => Err("operation missing path field".into()),
                Some(_) => Err("operation, path field: json: cannot unmarshal into string".into()),
            }
        };
        let from = || -> Result<String, String> {
            match op.get("from") {
                Some(Node::Str(s)) => Ok(s.clone()),
                None | Some(Node::Null) => Err("operation missing from field".into()),
                Some(_) => Err("operation, from field: json: cannot unmarshal into string".into()),
            }
        };
        // A missing value is JSON null.
        let value = || op.get("value").cloned().unwrap_or(Node::Null);
        match kind.as_str() {
            "add" => {
                let path = path()?;
                let (con, key) = locate(doc, &path).ok_or_else(|| {
                    format!("add operation does not apply: doc is missing path: \"{path}\"")
                })?;
                container_add(con, &key, value())
                    .map_err(|e| format!("error in add for path: '{path}': {e}"))?;
            }
            "remove" => {
                let path = path()?;
                let (con, key) = locate(doc, &path).ok_or_else(|| {
                    format!("remove operation does not apply: doc is missing path: \"{path}\"")
                })?;
                container_remove(con, &key)
                    .map_err(|e| format!("error in remove for path: '{path}': {e}"))?;
            }
            "replace" => {
                let path = path()?;
                if path.is_empty() {
                    let v = value();
                    if !matches!(v, Node::Map(_) | Node::Seq(_)) {
                        return Err("replace operation value must be object or array".into());
                    }
                    *doc = v;
                    continue;
                }
                let (con, key) = locate(doc, &path).ok_or_else(|| {
                    format!("replace operation does not apply: doc is missing path: {path}")
                })?;
                container_get(con, &key).map_err(|_| {
                    format!("replace operation does not apply: doc is missing key: {path}")
                })?;
                match con {
                    Node::Map(m) => m.insert(key, value()),
                    Node::Seq(s) => {
                        let i = array_index(&key, s.len())?;
                        s[i] = value();
                    }
                    _ => {}
                }
            }
            "move" => {
                let from = from()?;
                let (con, key) = locate(doc, &from).ok_or_else(|| {
                    format!("move operation does not apply: doc is missing from path: {from}")
                })?;
                let v = container_get(con, &key)
                    .map_err(|e| format!("error in move for path: '{key}': {e}"))?;
                container_remove(con, &key)
                    .map_err(|e| format!("error in move for path: '{key}': {e}"))?;
                let path = path()?;
                let (con, key) = locate(doc, &path).ok_or_else(|| {
                    format!(
                        "move operation does not apply: doc is missing destination path: {path}"
                    )
                })?;
                container_add(con, &key, v.unwrap_or(Node::Null))
                    .map_err(|e| format!("error in move for path: '{key}': {e}"))?;
            }
            "copy" => {
                let from = from()?;
                let (con, key) = locate(doc, &from).ok_or_else(|| {
                    format!("copy operation does not apply: doc is missing from path: {from}")
                })?;
                let v = container_get(con, &key)
                    .map_err(|e| format!("error in copy for from: '{from}': {e}"))?;
                let path = path()?;
                let (con, key) = locate(doc, &path).ok_or_else(|| {
                    format!(
                        "copy operation does not apply: doc is missing destination path: {path}"
                    )
                })?;
                container_add(con, &key, v.unwrap_or(Node::Null))
                    .map_err(|e| format!("error in copy for path: '{path}': {e}"))?;
            }
            "test" => {
                let path = path()?;
                let want = op.get("value").filter(|v| !v.is_null());
                let got = if path.is_empty() {
                    Some(doc.clone())
                } else {
                    let (con, key) = locate(doc, &path).ok_or_else(|| {
                        format!("test operation does not apply: is missing path: {path}")
                    })?;
                    container_get(con, &key)
                        .map_err(|e| format!("error in test for path: '{path}': {e}"))?
                        .filter(|v| !v.is_null())
                };
                let ok = match (&got, want) {
                    (None, None) => true,
                    (Some(g), Some(w)) => g.to_json() == w.to_json(),
                    _ => false,
                };
                if !ok {
                    return Err(format!("testing value {path} failed: test failed"));
                }
            }
            other => return Err(format!("Unexpected kind: {other}")),
        }
        if matches!(kind.as_str(), "add" | "replace" | "move" | "copy")
            && doc.depth() > crate::yaml::parse::MAX_DEPTH
        {
            return Err(format!(
                "{kind} operation makes the object nest deeper than the limit of {} levels",
                crate::yaml::parse::MAX_DEPTH
            ));
        }
    }
    if !matches!(doc, Node::Map(_)) {
        return Err(
            "json: cannot unmarshal array into Go value of type map[string]interface {}".into(),
        );
    }
    Ok(())
}

/// kyaml applies a JSON patch to the object's JSON (printed by go-yaml v3
/// and read back, see `build::apply_print_breaks`) and reads the result
/// back through Go's `map[string]interface{}`: every number becomes a
/// float64 (integers beyond 2^53 lose precision) and scalars lose the text
/// they were written with. `patch` runs on the JSON.
fn json_round_trip<E>(
    n: &mut Node,
    patch: impl FnOnce(&mut Node) -> Result<(), E>,
) -> Result<(), E> {
    super::build::resolve_tagless(n);
    super::build::apply_print_breaks(n);
    let r = patch(n);
    json_numbers(n);
    crate::resource::text_names(n);
    r
}

fn json_numbers(n: &mut Node) {
    match n {
        Node::Int(i) => *n = Node::Float(*i as f64),
        Node::UInt(u) => *n = Node::Float(*u as f64),
        Node::Seq(items) => items.iter_mut().for_each(json_numbers),
        Node::Map(m) => {
            m.clear_source_texts();
            for (_, v) in m.iter_mut() {
                json_numbers(v);
            }
            // go-yaml v3 writes these strings quoted (or as blocks).
            let quoted: Vec<String> = m
                .iter()
                .filter(|(_, v)| match v {
                    Node::Str(s) => {
                        s.is_empty()
                            || s.contains('\n')
                            || s.starts_with(' ')
                            || s.ends_with(' ')
                            || crate::yaml::resolve::v2_needs_quotes(s)
                            || crate::yaml::resolve::is_yaml11_non_string(s)
                            || !crate::yaml::emit::plain_allowed(s)
                    }
                    _ => false,
                })
                .map(|(k, _)| k.clone())
                .collect();
            for k in quoted {
                m.set_quoted(&k, true);
                // Rebuilt from JSON, a string holding a line break is a
                // literal block.
                if matches!(m.get(&k), Some(Node::Str(s)) if s.contains('\n')) {
                    m.set_print_breaks(&k, crate::yaml::PRINT_LITERAL);
                }
            }
        }
        _ => {}
    }
}

// ------------------------------------------------------------- transformers

#[derive(Clone)]
enum PatchBody {
    Smp(Vec<Node>),
    Json(Vec<Node>),
}

/// [`parse_body`], remembered per thread: a Flux parent appends the same
/// patch text to every child Kustomization.
fn parse_patch_body(text: &str, what: &str) -> Result<PatchBody, String> {
    thread_local! {
        static CACHE: std::cell::RefCell<std::collections::HashMap<String, PatchBody>> =
            std::cell::RefCell::new(std::collections::HashMap::new());
    }
    if let Some(b) = CACHE.with(|c| c.borrow().get(text).cloned()) {
        return Ok(b);
    }
    let body = parse_body(text, what)?;
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() < 4096 {
            c.insert(text.to_string(), body.clone());
        }
    });
    Ok(body)
}

fn parse_body(text: &str, what: &str) -> Result<PatchBody, String> {
    let t = text.trim_start();
    if t.starts_with('[') {
        return parse_json6902(text).map(PatchBody::Json);
    }
    // kustomize tries the text both as resources and as a JSON patch (read
    // by sigs.k8s.io/yaml): keys such as `12:` only fail the former.
    let docs = match crate::yaml::parse_stream(text) {
        Ok(docs) => docs,
        Err(e) => {
            return parse_json6902(text)
                .map(PatchBody::Json)
                .map_err(|_| format!("{what}: malformed YAML: {e}"));
        }
    };
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
    // The patch changed a node other fields share: the next patch of the
    // same transformer sees them all changed.
    r.sync_links();
    Ok(true)
}

/// What `resWrangler.ApplySmPatch` does besides merging (targeted patches
/// and patchesStrategicMerge): the patch copy gets its labels and
/// annotations read and written back as strings
/// (`CopyMergeMetaDataFieldsFrom`), so their values become strings of their
/// source text and an empty or null map disappears (`labels: null` then
/// deletes nothing); keys the object lacks are added untagged.
fn copy_merge_meta(patch: &mut Node, r: &Resource) -> Result<(), String> {
    let Some(Node::Map(md)) = patch.get_mut("metadata") else {
        return Ok(());
    };
    for key in ["labels", "annotations"] {
        let Some(v) = md.get(key) else {
            continue;
        };
        let strings: Map = match v {
            Node::Map(a) => a
                .keys()
                .map(|k| {
                    (
                        k.clone(),
                        Node::Str(a.scalar_source_text(k).unwrap_or_default()),
                    )
                })
                .collect(),
            _ => Map::new(),
        };
        let have = if key == "labels" {
            r.labels()
        } else {
            r.annotations()
        };
        for k in strings.keys() {
            if have.is_none_or(|h| !h.contains_key(k)) {
                super::fieldspec::untagged_key_ok(k)?;
            }
        }
        if strings.is_empty() {
            md.remove(key);
        } else {
            md.insert(key, Node::Map(strings));
        }
    }
    Ok(())
}

/// A patch allowed to change names or kinds carries that as an annotation,
/// set by reading its annotations and writing them back as strings (of
/// their source text); a null or empty map becomes one with just that
/// annotation, which merges nothing visible.
fn annotations_as_strings(patch: &mut Node) {
    let Some(Node::Map(md)) = patch.get_mut("metadata") else {
        return;
    };
    let strings: Map = match md.get("annotations") {
        Some(Node::Map(a)) => a
            .keys()
            .map(|k| {
                (
                    k.clone(),
                    Node::Str(a.scalar_source_text(k).unwrap_or_default()),
                )
            })
            .collect(),
        None => return,
        Some(_) => Map::new(),
    };
    if strings.is_empty() {
        md.remove("annotations");
    } else {
        md.insert("annotations", Node::Map(strings));
    }
}

/// `ApplySmPatch` rebuilds the resource list with Append, which refuses two
/// objects with the same id.
fn check_unique_ids(m: &ResMap) -> Result<(), String> {
    match m.first_duplicate() {
        Some(id) => Err(format!(
            "may not add resource with an already registered id: {id}"
        )),
        None => Ok(()),
    }
}

fn smp_by_id(
    m: &mut ResMap,
    patch: &Node,
    allow_name: bool,
    allow_kind: bool,
    legacy: bool,
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
            let mut pc = patch.clone();
            if legacy {
                copy_merge_meta(&mut pc, &m.resources[hits[0]])?;
            } else if allow_name || allow_kind {
                annotations_as_strings(&mut pc);
            }
            if !apply_smp_to(&mut m.resources[hits[0]], &pc, allow_name, allow_kind)? {
                m.resources.remove(hits[0]);
            }
            if legacy {
                check_unique_ids(m)?;
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
    apply_body_with(m, body, target, allow_name, allow_kind, false)
}

fn apply_body_with(
    m: &mut ResMap,
    body: &PatchBody,
    target: Option<&Selector>,
    allow_name: bool,
    allow_kind: bool,
    legacy: bool,
) -> Result<(), String> {
    match (body, target) {
        (PatchBody::Smp(patches), None) => {
            for p in patches {
                smp_by_id(m, p, allow_name, allow_kind, legacy)?;
            }
            Ok(())
        }
        (PatchBody::Smp(patches), Some(sel)) => {
            if patches.len() > 1 {
                return Err("Multiple Strategic-Merge Patches in one `patches` entry is not allowed to set `patches.target` field".into());
            }
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
                copy_merge_meta(&mut pc, r)?;
                if !apply_smp_to(&mut m.resources[i], &pc, allow_name, allow_kind)? {
                    deleted.push(i);
                }
            }
            for i in deleted.into_iter().rev() {
                m.resources.remove(i);
            }
            check_unique_ids(m)
        }
        (PatchBody::Json(_), None) => Err("must specify a target for JSON patch".into()),
        (PatchBody::Json(ops), Some(sel)) => {
            for i in select(m, sel)? {
                let r = &mut m.resources[i];
                r.sync_links();
                // kyaml applies the patch to the object's JSON.
                if let Some(msg) = super::build::unreadable_tag(&r.obj)
                    .or_else(|| super::build::tab_started_block(&r.obj))
                {
                    return Err(format!("{msg} in {}", r.cur_id()));
                }
                if let Some(bad) = super::build::non_finite(&r.obj) {
                    return Err(format!("json: unsupported value: {bad} in {}", r.cur_id()));
                }
                if !legacy {
                    r.store_previous_id();
                }
                // kustomize's internal annotations are present on every
                // object while patches run, so `/metadata/annotations/...`
                // always has a map to land in (an empty one is dropped on
                // output).
                // The legacy patchesJson6902 transformer records no previous
                // id: there the map exists only when the object already
                // carries build annotations or annotations of its own.
                let has_build_annotations = super::fieldspec::has_build_annotations(r);
                if (!legacy || has_build_annotations)
                    && let Some(md) = r.map_mut().entry_map("metadata").as_map_mut()
                    && !md.contains_key("annotations")
                {
                    md.insert("annotations", Node::map());
                }
                // The build annotations come last in the annotations map:
                // when that map ends the document, its last scalar printed is
                // one of them, not a block a foot comment could extend.
                if !legacy || has_build_annotations {
                    let m = r.map_mut();
                    let ends_with_annotations = m.iter().last().is_some_and(|(k, md)| {
                        k == "metadata"
                            && md
                                .as_map()
                                .and_then(|md| md.iter().last())
                                .is_some_and(|(k, _)| k == "annotations")
                    });
                    if ends_with_annotations {
                        m.set_doc_foot_comment(false);
                    }
                }
                let result = json_round_trip(&mut r.obj, |obj| {
                    apply_json6902(obj, ops)?;
                    // kyaml rebuilds the object from the JSON through YAML.
                    match super::build::tab_started_block_from_json(obj) {
                        Some(msg) => Err(msg),
                        None => Ok(()),
                    }
                });
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
                r.links.clear();
            }
            Ok(())
        }
    }
}

/// The error of a patch that failed: at the line of the JSON 6902
/// operation it names (in the patch file, or in the kustomization for an
/// inline patch), else at the kustomization.
fn patch_error(
    k: &Kustomization,
    file: Option<&Path>,
    text: &str,
    body: &PatchBody,
    msg: String,
) -> Error {
    let mut e = k.err(msg);
    let PatchBody::Json(ops) = body else {
        return e;
    };
    // The operation whose path (or from) the message names; the longest
    // such path, so that `/spec` does not win over `/spec/x`.
    let Some(p) = ops
        .iter()
        .flat_map(|op| [op.get_str(&["path"]), op.get_str(&["from"])])
        .flatten()
        .filter(|p| !p.is_empty() && e.message.contains(*p))
        .max_by_key(|p| p.len())
    else {
        return e;
    };
    let (in_file, in_text) = match file {
        Some(f) => (f.to_path_buf(), text),
        None => match k.text.as_deref() {
            Some(t) => (k.file.clone(), t),
            None => return e,
        },
    };
    let ends_value = |rest: &str| {
        rest.chars()
            .next()
            .is_none_or(|c| matches!(c, '"' | '\'' | ',' | '}' | ' '))
    };
    let line = in_text.lines().position(|l| {
        l.match_indices(p)
            .any(|(i, _)| ends_value(&l[i + p.len()..]) && l[..i].contains("path"))
            || l.match_indices(p)
                .any(|(i, _)| ends_value(&l[i + p.len()..]) && l[..i].contains("from"))
    });
    if let Some(l) = line {
        e.file = Some(in_file);
        e.line = Some(l + 1);
    }
    e
}

fn options(item: &Node) -> (bool, bool) {
    let o = |k: &str| {
        item.get_path(&["options", k])
            .and_then(Node::as_bool)
            .unwrap_or(false)
    };
    (o("allowNameChange"), o("allowKindChange"))
}

/// Records a patch whose target selects nothing (an invalid selector is
/// left to the patch itself to report).
fn note_unmatched(
    ldr: &Loader,
    m: &ResMap,
    target: &Selector,
    field: &'static str,
    index: usize,
    text: &str,
) {
    if !matches!(select(m, target), Ok(v) if v.is_empty()) {
        return;
    }
    let what: Vec<String> = [
        ("group", &target.group),
        ("version", &target.version),
        ("kind", &target.kind),
        ("name", &target.name),
        ("namespace", &target.namespace),
        ("labelSelector", &target.label_selector),
        ("annotationSelector", &target.annotation_selector),
    ]
    .iter()
    .filter(|(_, v)| !v.is_empty())
    .map(|(k, v)| format!("{k}={v}"))
    .collect();
    let u = super::build::UnmatchedPatch {
        file: ldr.file.clone(),
        field,
        index,
        target: what.join(" "),
        sets_pin: sets_pin(text),
    };
    ldr.unmatched
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(u);
}

/// Whether a patch's text sets an image, tag, digest or chart version (a
/// field or a JSON patch path of that name).
pub fn sets_pin(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim_start().trim_start_matches("- ").trim_start();
        [
            "image:",
            "tag:",
            "digest:",
            "version:",
            "newTag:",
            "newDigest:",
        ]
        .iter()
        .any(|f| l.starts_with(f))
            || ["/image", "/tag", "/digest", "/version"].iter().any(|p| {
                l.contains(&format!("{p}\""))
                    || l.contains(&format!("{p}'"))
                    || l.trim_end().ends_with(p)
            })
    })
}

/// `patches:`
pub fn patches(k: &Kustomization, ldr: &Loader, m: &mut ResMap) -> Result<(), Error> {
    for (i, item) in k.list("patches")?.into_iter().enumerate() {
        let path = item.get_str(&["path"]).unwrap_or("");
        // kustomize's PatchTransformer trims an inline patch (Go's
        // strings.TrimSpace): a final literal block loses its last newline.
        let inline = item.get_str(&["patch"]).unwrap_or("").trim();
        if !path.is_empty() && !inline.is_empty() {
            return Err(k.err("a patch cannot have both 'path' and 'patch'"));
        }
        let (file, text, what) = if !path.is_empty() {
            let (file, text) = ldr.load(path)?;
            (Some(file), text, format!("patch '{path}'"))
        } else if !inline.is_empty() {
            (None, inline.to_string(), "inline patch".to_string())
        } else {
            return Err(k.err("a patch must have 'path' or 'patch'"));
        };
        let body = parse_patch_body(&text, &what).map_err(|e| k.err(e))?;
        let target = item.get("target").map(Selector::from_node);
        if let Some(t) = &target {
            note_unmatched(ldr, m, t, "patches", i, &text);
        }
        let (an, ak) = options(&item);
        apply_body(m, &body, target.as_ref(), an, ak)
            .map_err(|e| patch_error(k, file.as_deref(), &text, &body, format!("{what}: {e}")))?;
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
        apply_body_with(m, &body, None, false, false, true)
            .map_err(|e| k.err(format!("{what}: {e}")))?;
    }
    Ok(())
}

/// `patchesJson6902:`
pub fn patches_json6902(k: &Kustomization, ldr: &Loader, m: &mut ResMap) -> Result<(), Error> {
    for (i, item) in k.list("patchesJson6902")?.into_iter().enumerate() {
        let target = item
            .get("target")
            .map(Selector::from_node)
            .ok_or_else(|| k.err("patchesJson6902 entries need a 'target'"))?;
        let path = item.get_str(&["path"]).unwrap_or("");
        let inline = item.get_str(&["patch"]).unwrap_or("");
        let (file, text, what) = if !path.is_empty() {
            let (file, text) = ldr.load(path)?;
            (Some(file), text, format!("patch '{path}'"))
        } else {
            (None, inline.to_string(), "inline patch".to_string())
        };
        if target.name.is_empty() {
            return Err(k.err("patchesJson6902: must specify the target name"));
        }
        let ops = parse_json6902(&text).map_err(|e| k.err(format!("{what}: {e}")))?;
        if ops.is_empty() {
            return Err(k.err(format!("{what}: patch appears to be empty")));
        }
        note_unmatched(ldr, m, &target, "patchesJson6902", i, &text);
        // The legacy transformer selects like `patches` (regexes) but does
        // not record the previous name of what it renames.
        let body = PatchBody::Json(ops);
        apply_body_with(m, &body, Some(&target), false, false, true)
            .map_err(|e| patch_error(k, file.as_deref(), &text, &body, format!("{what}: {e}")))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse_one;

    /// The matchers that skip the regex engine agree with it.
    #[test]
    fn literal_selectors_match_as_the_anchored_regex() {
        let pats = [
            "app",
            "app-0001",
            "kustomize.toolkit.fluxcd.io",
            "a.b",
            ".",
            "..",
            "",
            "é.x",
            "a b",
            "v1",
            "apps",
        ];
        let subjects = [
            "app",
            "app-0001",
            "app-00011",
            "kustomize.toolkit.fluxcd.io",
            "kustomizeXtoolkitXfluxcdXio",
            "kustomize.toolkit.fluxcd.iox",
            "a.b",
            "axb",
            "a\nb",
            "ab",
            "x",
            "\n",
            "xy",
            "é.x",
            "éxx",
            "a b",
            "v1",
            "apps",
            "",
            "a",
        ];
        for p in pats {
            let fast = anchored(p).unwrap();
            let re = Regex::new(&format!("^(?:{p})$")).unwrap();
            for t in subjects {
                let got = fast.as_ref().is_none_or(|m| m.is_match(t));
                let want = p.is_empty() || re.is_match(t);
                assert_eq!(got, want, "pattern {p:?} on {t:?}");
            }
        }
        assert!(matches!(anchored("a.b").unwrap(), Some(Pat::Dotted(_))));
        assert!(matches!(anchored("app").unwrap(), Some(Pat::Lit(_))));
        assert!(matches!(anchored("app-.*").unwrap(), Some(Pat::Re(_))));
    }

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
