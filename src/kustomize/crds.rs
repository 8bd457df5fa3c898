//! The kustomization field `crds`: OpenAPI definition files (the
//! `{"<pkg>.<Kind>": {"Schema": {...}}}` form kustomize reads) whose
//! properties marked `x-kubernetes-object-ref-kind` /
//! `x-kubernetes-object-ref-api-version` (optionally
//! `x-kubernetes-object-ref-name-key`, default `name`) make the field a name
//! reference: when the referred object is renamed (prefix, suffix, hash),
//! the field follows, as for builtin references. kustomize v5.5.0
//! (`api/internal/accumulator/loadconfigfromcrds.go`):
//! - a definition is a kind when its properties have `kind`, `apiVersion`
//!   and `metadata`; the referrer kind is the text after the last `.` of
//!   its name (no group or version);
//! - properties are followed through `$ref` (the referenced definition's
//!   name is the `$ref` text), the path growing with each property name;
//! - the references collected in every layer apply at the end of the build.
//!
//! The other markers kustomize reads there (`x-kubernetes-annotation`,
//! `x-kubernetes-label-selector`, `x-kubernetes-identity`) are refused with
//! an error rather than ignored.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::resource::ResMap;
use crate::yaml::Node;

use super::Error;
use super::build::Loader;
use super::fieldspecs::FieldSpec;
use super::kustfile::Kustomization;

/// A name reference a CRD file adds: objects selected by `target` are
/// referred to by the field `referrer`.
#[derive(Debug, Clone, Copy)]
pub struct CrdNameRef {
    pub target_version: &'static str,
    pub target_kind: &'static str,
    pub referrer: FieldSpec,
}

impl PartialEq for CrdNameRef {
    fn eq(&self, o: &Self) -> bool {
        let (a, b) = (&self.referrer, &o.referrer);
        self.target_version == o.target_version
            && self.target_kind == o.target_kind
            && a.group == b.group
            && a.version == b.version
            && a.kind == b.kind
            && a.path == b.path
            && a.create == b.create
    }
}

fn leak(s: &str) -> &'static str {
    static INTERNED: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
    let mut all = INTERNED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(x) = all.iter().find(|x| **x == s) {
        return x;
    }
    let x: &'static str = Box::leak(s.to_string().into_boxed_str());
    all.push(x);
    x
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

fn properties(def: &Node) -> Option<&crate::yaml::Map> {
    field(def, "Schema")
        .and_then(|s| field(s, "properties"))
        .and_then(Node::as_map)
}

/// The name references of one CRD file.
pub fn from_text(text: &str) -> Result<Vec<CrdNameRef>, String> {
    let doc = crate::yaml::parse::parse_stream_json_keys(text)
        .map_err(|e| format!("line {}: {}", e.line, e.message))?
        .into_iter()
        .next()
        .map(|d| d.node)
        .unwrap_or(Node::Null);
    let defs: HashMap<&str, &Node> = match &doc {
        Node::Map(m) => m.iter().map(|(k, v)| (k.as_str(), v)).collect(),
        Node::Null => HashMap::new(),
        other => {
            return Err(format!(
                "expected a mapping of definitions, found a {}",
                other.kind_name()
            ));
        }
    };
    let mut names: Vec<&str> = defs.keys().copied().collect();
    names.sort_unstable();
    let mut out = Vec::new();
    for name in names {
        let Some(props) = properties(defs[name]) else {
            continue;
        };
        if !["kind", "apiVersion", "metadata"]
            .iter()
            .all(|k| props.contains_key(k))
        {
            continue;
        }
        let kind = name.rsplit('.').next().unwrap_or(name);
        collect(&defs, kind, name, &mut Vec::new(), &mut out)?;
    }
    Ok(out)
}

fn collect(
    defs: &HashMap<&str, &Node>,
    kind: &str,
    type_name: &str,
    path: &mut Vec<String>,
    out: &mut Vec<CrdNameRef>,
) -> Result<(), String> {
    if path.len() > 64 {
        return Err(format!(
            "definition '{type_name}' nests too deeply (a $ref cycle?)"
        ));
    }
    let Some(props) = defs.get(type_name).and_then(|d| properties(d)) else {
        return Ok(());
    };
    let ext = |p: &Node, k: &str| p.get(k).and_then(Node::as_str).map(str::to_string);
    for (prop, p) in props.iter() {
        for marker in [
            "x-kubernetes-annotation",
            "x-kubernetes-label-selector",
            "x-kubernetes-identity",
        ] {
            if ext(p, marker).is_some() {
                return Err(format!(
                    "property '{prop}' of '{type_name}' is marked {marker}, which flate does not support (only x-kubernetes-object-ref-* name references)"
                ));
            }
        }
        path.push(prop.clone());
        if let (Some(version), Some(target)) = (
            ext(p, "x-kubernetes-object-ref-api-version"),
            ext(p, "x-kubernetes-object-ref-kind"),
        ) {
            let key = ext(p, "x-kubernetes-object-ref-name-key").unwrap_or_else(|| "name".into());
            let r = CrdNameRef {
                target_version: leak(&version),
                target_kind: leak(&target),
                referrer: FieldSpec {
                    group: "",
                    version: "",
                    kind: leak(kind),
                    path: leak(&format!("{}/{key}", path.join("/"))),
                    create: false,
                },
            };
            if !out.contains(&r) {
                out.push(r);
            }
        }
        if let Some(r) = p.get("$ref").and_then(Node::as_str) {
            collect(defs, kind, r, path, out)?;
        }
        path.pop();
    }
    Ok(())
}

/// Reads the kustomization's `crds` files into the map's name references.
pub fn merge(k: &Kustomization, ldr: &Loader, m: &mut ResMap) -> Result<(), Error> {
    for path in k.str_list("crds")? {
        let (file, text) = ldr.load(&path)?;
        let refs = from_text(&text).map_err(|e| {
            Error::at(
                &file,
                format!("unable to parse open API definition from '{path}': {e}"),
            )
        })?;
        for r in refs {
            if !m.crd_name_refs.contains(&r) {
                m.crd_name_refs.push(r);
            }
        }
    }
    Ok(())
}
