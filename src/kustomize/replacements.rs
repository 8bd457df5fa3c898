//! `replacements:` — copy a value from one object's field into fields of
//! others (kustomize's api/filters/replacement).

use regex::Regex;

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
    for p in path.split('.') {
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

fn elem_selector(e: &str) -> Option<(String, String)> {
    let inner = e.strip_prefix('[')?.strip_suffix(']')?;
    let (k, v) = inner.split_once('=')?;
    Some((k.to_string(), v.to_string()))
}

fn lookup<'a>(node: &'a Node, path: &[String]) -> Option<&'a Node> {
    let Some(e) = path.first() else {
        return Some(node);
    };
    match node {
        Node::Map(m) => lookup(m.get(e)?, &path[1..]),
        Node::Seq(items) => {
            if let Some((k, v)) = elem_selector(e) {
                let it = items.iter().find(|it| {
                    it.get(&k).and_then(Node::scalar_text).as_deref() == Some(v.as_str())
                })?;
                lookup(it, &path[1..])
            } else if let Ok(i) = e.parse::<usize>() {
                lookup(items.get(i)?, &path[1..])
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Visits every node at `path`, creating it when `create`.
fn visit(
    node: &mut Node,
    path: &[String],
    create: bool,
    f: &mut dyn FnMut(&mut Node) -> Result<(), String>,
) -> Result<bool, String> {
    let Some(e) = path.first() else {
        f(node)?;
        return Ok(true);
    };
    let rest = &path[1..];
    if node.is_null() && create {
        *node = if elem_selector(e).is_some() || e == "-" {
            Node::Seq(Vec::new())
        } else {
            Node::map()
        };
    }
    match node {
        Node::Map(m) => {
            if e == "*" {
                let mut any = false;
                for (_, v) in m.iter_mut() {
                    any |= visit(v, rest, create, f)?;
                }
                return Ok(any);
            }
            if !m.contains_key(e) {
                if !create {
                    return Ok(false);
                }
                m.insert(
                    e.clone(),
                    if rest.is_empty() {
                        Node::Null
                    } else {
                        Node::map()
                    },
                );
            }
            visit(m.get_mut(e).expect("present"), rest, create, f)
        }
        Node::Seq(items) => {
            if e == "*" {
                let mut any = false;
                for it in items.iter_mut() {
                    any |= visit(it, rest, create, f)?;
                }
                return Ok(any);
            }
            if let Some((k, v)) = elem_selector(e) {
                let pos = items.iter().position(|it| {
                    it.get(&k).and_then(Node::scalar_text).as_deref() == Some(v.as_str())
                });
                let i = match pos {
                    Some(i) => i,
                    None if create => {
                        let mut m = Map::new();
                        m.insert(k, Node::Str(v));
                        items.push(Node::Map(m));
                        items.len() - 1
                    }
                    None => return Ok(false),
                };
                return visit(&mut items[i], rest, create, f);
            }
            match e.parse::<usize>() {
                Ok(i) if i < items.len() => visit(&mut items[i], rest, create, f),
                _ => Ok(false),
            }
        }
        _ => Ok(false),
    }
}

fn ids_of(r: &Resource) -> Vec<ResId> {
    let mut v = vec![r.cur_id()];
    v.extend(r.prev_ids.iter().cloned());
    v
}

#[derive(Default)]
struct IdSelector {
    group: Option<Regex>,
    version: Option<Regex>,
    kind: Option<Regex>,
    name: Option<Regex>,
    namespace: Option<Regex>,
    label_selector: String,
    annotation_selector: String,
}

impl IdSelector {
    fn from_node(n: &Node, regexes: bool) -> Result<IdSelector, String> {
        let re = |k: &str| -> Result<Option<Regex>, String> {
            let s = n.get(k).and_then(Node::scalar_text).unwrap_or_default();
            if s.is_empty() {
                return Ok(None);
            }
            let pat = if regexes {
                s.clone()
            } else {
                regex::escape(&s)
            };
            Regex::new(&format!("^(?:{pat})$"))
                .map(Some)
                .map_err(|e| format!("invalid selector '{s}': {e}"))
        };
        Ok(IdSelector {
            group: re("group")?,
            version: re("version")?,
            kind: re("kind")?,
            name: re("name")?,
            namespace: re("namespace")?,
            label_selector: n
                .get("labelSelector")
                .and_then(Node::scalar_text)
                .unwrap_or_default(),
            annotation_selector: n
                .get("annotationSelector")
                .and_then(Node::scalar_text)
                .unwrap_or_default(),
        })
    }

    fn matches_id(&self, id: &ResId) -> bool {
        let hit = |r: &Option<Regex>, s: &str| r.as_ref().is_none_or(|r| r.is_match(s));
        hit(&self.group, &id.gvk.group)
            && hit(&self.version, &id.gvk.version)
            && hit(&self.kind, &id.gvk.kind)
            && hit(&self.name, &id.name)
            && (self.namespace.is_none()
                || hit(&self.namespace, &id.namespace)
                || hit(&self.namespace, &id.effective_namespace()))
    }

    fn matches_meta(&self, r: &Resource) -> Result<bool, String> {
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

fn source_value(m: &ResMap, src: &Node) -> Result<Node, String> {
    let sel = IdSelector::from_node(src, false)?;
    let mut found: Option<&Resource> = None;
    for r in m.iter() {
        if ids_of(r).iter().any(|id| sel.matches_id(id)) {
            if found.is_some() {
                return Err(format!("more than one match for source {}", describe(src)));
            }
            found = Some(r);
        }
    }
    let r = found.ok_or_else(|| format!("nothing selected by {}", describe(src)))?;
    let fp = src.get_str(&["fieldPath"]).unwrap_or("metadata.name");
    let v = lookup(&r.obj, &split_field_path(fp)).ok_or_else(|| {
        format!(
            "fieldPath `{fp}` is missing for replacement source {}",
            r.cur_id()
        )
    })?;
    let Some(opts) = src.get("options") else {
        return Ok(v.clone());
    };
    let delim = opts.get_str(&["delimiter"]).unwrap_or("");
    if delim.is_empty() {
        return Ok(v.clone());
    }
    let text = v
        .scalar_text()
        .ok_or("delimiter option can only be used with scalar nodes")?;
    let parts: Vec<&str> = text.split(delim).collect();
    let idx = opts.get("index").and_then(Node::as_i64).unwrap_or(0);
    if idx < 0 || idx as usize >= parts.len() {
        return Err(format!(
            "options.index {idx} is out of bounds for value {text}"
        ));
    }
    Ok(Node::str(parts[idx as usize]))
}

fn describe(n: &Node) -> String {
    let s = |k: &str| n.get(k).and_then(Node::scalar_text).unwrap_or_default();
    format!(
        "{}.{}.{}/{}.{}",
        s("kind"),
        s("version"),
        s("group"),
        s("name"),
        s("namespace")
    )
}

fn apply_one(m: &mut ResMap, rep: &Node) -> Result<(), String> {
    let src = rep.get("source").ok_or("replacement has no 'source'")?;
    let value = source_value(m, src)?;
    let Some(Node::Seq(targets)) = rep.get("targets") else {
        return Err("replacement has no 'targets'".into());
    };
    for t in targets {
        let sel_node = t
            .get("select")
            .ok_or("target must specify resources to select")?;
        let sel = IdSelector::from_node(sel_node, true)?;
        let rejects: Vec<IdSelector> = match t.get("reject") {
            Some(Node::Seq(rs)) => rs
                .iter()
                .map(|r| IdSelector::from_node(r, true))
                .collect::<Result<_, _>>()?,
            _ => Vec::new(),
        };
        let paths: Vec<String> = match t.get("fieldPaths") {
            Some(Node::Seq(ps)) => ps.iter().filter_map(Node::scalar_text).collect(),
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
        for r in m.iter_mut() {
            let ids = ids_of(r);
            if !sel.matches_meta(r)? || !ids.iter().any(|id| sel.matches_id(id)) {
                continue;
            }
            if rejects.iter().any(|rj| {
                ids.iter().any(|id| rj.matches_id(id))
                    && (rj.label_selector.is_empty() && rj.annotation_selector.is_empty()
                        || rj.matches_meta(r).unwrap_or(false))
            }) {
                continue;
            }
            for p in &paths {
                let path = split_field_path(p);
                let found = visit(&mut r.obj, &path, create, &mut |n| {
                    if delim.is_empty() {
                        // A scalar target keeps its own type: kyaml copies
                        // the source's text into the target node.
                        *n = match (&*n, &value) {
                            (Node::Str(_), v) if v.is_scalar() && !v.is_null() => {
                                Node::Str(v.scalar_text().unwrap_or_default())
                            }
                            (t, v)
                                if t.is_scalar()
                                    && !t.is_null()
                                    && v.is_scalar()
                                    && !v.is_null() =>
                            {
                                crate::yaml::resolve::resolve_plain(
                                    &v.scalar_text().unwrap_or_default(),
                                    crate::yaml::resolve::Schema::V3,
                                )
                            }
                            _ => value.clone(),
                        };
                        return Ok(());
                    }
                    let cur = n.scalar_text().unwrap_or_default();
                    let mut parts: Vec<String> =
                        cur.split(delim.as_str()).map(str::to_string).collect();
                    let v = value.scalar_text().unwrap_or_default();
                    if index < 0 {
                        parts.insert(0, v);
                    } else if index as usize >= parts.len() {
                        parts.push(v);
                    } else {
                        parts[index as usize] = v;
                    }
                    *n = Node::Str(parts.join(&delim));
                    Ok(())
                })?;
                if !found {
                    return Err(format!(
                        "unable to find field \"{p}\" in replacement target {}",
                        r.cur_id()
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
