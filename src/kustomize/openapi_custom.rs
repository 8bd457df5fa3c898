//! The kustomization field `openapi`: a local schema file (JSON or YAML,
//! `{definitions: {...}}` with `x-kubernetes-group-version-kind`) used for
//! strategic merge patches instead of the builtin Kubernetes schema, or
//! `version: v1.21.2`, the one builtin version kustomize v5.5.0 has.
//!
//! kustomize keeps one schema per process (kyaml `openapi.SetSchema`): the
//! top-level kustomization sets it; when it sets nothing, the first
//! kustomization or component loaded afterwards that has `openapi` sets it,
//! and later ones are ignored. A custom schema replaces the builtin one
//! entirely: kinds it does not describe (even Deployments) are merged
//! without schema (lists replaced). flate keeps that choice per build (per
//! thread, restored when the build ends), so builds running side by side do
//! not see each other's schema.
//!
//! The schema is read with the rules `tools/gen_openapi.py` applies to the
//! builtin one: `properties`, else `additionalProperties`; `$ref` resolved
//! (extensions next to it lost); `x-kubernetes-patch-strategy`,
//! `x-kubernetes-patch-merge-key`, `x-kubernetes-list-map-keys` read from
//! the array schema. Inline object schemas get a definition of their own.

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::Mutex;

use super::openapi::{self, Strategy, Ty};
use crate::yaml::Node;

/// Definition indices of custom schemas start here (builtin ones are lower).
const CUSTOM_BASE: u16 = 0x8000;

pub struct CustomSchema {
    /// Fields of each definition, sorted by name.
    defs: Vec<Vec<(&'static str, Ty)>>,
    /// `x-kubernetes-list-map-keys` that differ from the patch merge key.
    multi_keys: HashMap<(u16, &'static str), &'static [&'static str]>,
    gvks: HashMap<(String, String, String), u16>,
    /// Read together with the builtin schema (see `BUILTIN_DELAYED`).
    with_builtin: bool,
}

/// Which schema strategic merge uses in the current build.
#[derive(Clone, Copy, Default)]
pub enum Active {
    /// Nothing chose yet: the builtin schema, and the next `openapi` wins.
    #[default]
    Unset,
    /// `openapi: {version: v1.21.2}`.
    Builtin,
    Custom(&'static CustomSchema),
}

thread_local! {
    static ACTIVE: Cell<Active> = const { Cell::new(Active::Unset) };
    /// kyaml flags its builtin schema to be parsed later when the scope of
    /// a kind outside its precomputed table is asked while the builtin
    /// schema is in use; a custom schema chosen afterwards is then read
    /// together with the builtin one (whose definitions win).
    static BUILTIN_DELAYED: Cell<bool> = const { Cell::new(false) };
}

/// Called when the scope of a kind the builtin table does not know is asked.
pub fn note_unknown_scope() {
    if !matches!(active(), Active::Custom(_)) {
        BUILTIN_DELAYED.with(|c| c.set(true));
    }
}

/// Whether a custom schema chosen now also gets the builtin definitions.
pub fn builtin_delayed() -> bool {
    BUILTIN_DELAYED.with(Cell::get)
}

pub fn active() -> Active {
    ACTIVE.with(Cell::get)
}

/// Sets the schema choice until the guard is dropped.
pub fn scoped(a: Active) -> Guard {
    let prev = ACTIVE.with(|c| c.replace(a));
    let delayed = BUILTIN_DELAYED.with(|c| c.replace(false));
    Guard(prev, delayed)
}

pub struct Guard(Active, bool);

impl Drop for Guard {
    fn drop(&mut self) {
        ACTIVE.with(|c| c.set(self.0));
        BUILTIN_DELAYED.with(|c| c.set(self.1));
    }
}

/// Sets the choice for the rest of the current build when none was made
/// (kustomize's `SetSchema(..., reset=false)`), or always (`reset`).
pub fn choose(a: Active, reset: bool) {
    if reset || matches!(active(), Active::Unset) {
        ACTIVE.with(|c| c.set(a));
    }
}

/// The builtin schema versions kustomize v5.5.0 embeds.
pub const BUILTIN_VERSIONS: &[&str] = &["v1.21.2"];

pub fn def_for_gvk(group: &str, version: &str, kind: &str) -> Option<u16> {
    match active() {
        Active::Custom(c) => c
            .with_builtin
            .then(|| openapi::def_for_gvk(group, version, kind))
            .flatten()
            .or_else(|| {
                c.gvks
                    .get(&(group.to_string(), version.to_string(), kind.to_string()))
                    .copied()
            }),
        _ => openapi::def_for_gvk(group, version, kind),
    }
}

fn custom_fields(def: u16) -> Option<&'static [(&'static str, Ty)]> {
    match active() {
        Active::Custom(c) if def >= CUSTOM_BASE => c
            .defs
            .get(usize::from(def - CUSTOM_BASE))
            .map(Vec::as_slice),
        _ => None,
    }
}

pub fn field(def: u16, name: &str) -> Option<Ty> {
    if def < CUSTOM_BASE {
        return openapi::field(def, name);
    }
    let fields = custom_fields(def)?;
    fields
        .binary_search_by(|f| f.0.cmp(name))
        .ok()
        .map(|i| fields[i].1)
}

pub fn merge_keys(def: u16, name: &str) -> &'static [&'static str] {
    if def < CUSTOM_BASE {
        return openapi::merge_keys(def, name);
    }
    if let Active::Custom(c) = active()
        && let Some((_, keys)) = c
            .multi_keys
            .iter()
            .find(|((d, n), _)| *d == def && *n == name)
    {
        return keys;
    }
    match field(def, name) {
        Some(Ty::List {
            merge_key: Some(k), ..
        }) => leak_keys(vec![k]),
        _ => &[],
    }
}

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

fn leak_keys(v: Vec<&'static str>) -> &'static [&'static str] {
    // Interned: the same key list is leaked once.
    static KEYS: Mutex<Vec<&'static [&'static str]>> = Mutex::new(Vec::new());
    let mut all = KEYS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(k) = all.iter().find(|k| **k == v.as_slice()) {
        return k;
    }
    let k: &'static [&'static str] = Box::leak(v.into_boxed_slice());
    all.push(k);
    k
}

/// Reads a schema file; the result is kept for the life of the process
/// (the same content is read once).
pub fn load(bytes: &[u8], with_builtin: bool) -> Result<&'static CustomSchema, String> {
    type Cache = Vec<(Vec<u8>, bool, &'static CustomSchema)>;
    static CACHE: Mutex<Cache> = Mutex::new(Vec::new());
    if let Some((_, _, s)) = CACHE
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|(b, w, _)| b.as_slice() == bytes && *w == with_builtin)
    {
        return Ok(s);
    }
    let text =
        std::str::from_utf8(bytes).map_err(|_| "invalid schema file: not UTF-8".to_string())?;
    let doc = crate::yaml::parse::parse_stream(text)
        .map_err(|e| format!("invalid schema file: line {}: {}", e.line, e.message))?
        .into_iter()
        .next()
        .map(|d| d.node)
        .unwrap_or(Node::Null);
    let schema: &'static CustomSchema = Box::leak(Box::new(Builder::build(&doc, with_builtin)?));
    CACHE
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((bytes.to_vec(), with_builtin, schema));
    Ok(schema)
}

struct Builder<'a> {
    defs: HashMap<String, &'a Node>,
    /// Definition name -> index.
    named: HashMap<String, u16>,
    out: Vec<Vec<(&'static str, Ty)>>,
    multi: HashMap<(u16, &'static str), &'static [&'static str]>,
    queue: Vec<(u16, &'a Node)>,
    /// Builtin definitions by name, when read together with them.
    builtin: HashMap<&'static str, u16>,
}

impl<'a> Builder<'a> {
    fn build(doc: &'a Node, with_builtin: bool) -> Result<CustomSchema, String> {
        let defs: HashMap<String, &Node> = match doc.get("definitions") {
            Some(Node::Map(m)) => m.iter().map(|(k, v)| (k.clone(), v)).collect(),
            _ => HashMap::new(),
        };
        let mut b = Builder {
            defs,
            named: HashMap::new(),
            out: Vec::new(),
            multi: HashMap::new(),
            queue: Vec::new(),
            builtin: if with_builtin {
                openapi::DEFS
                    .iter()
                    .enumerate()
                    .map(|(i, d)| (d.name, i as u16))
                    .collect()
            } else {
                HashMap::new()
            },
        };
        let mut gvks = HashMap::new();
        let mut names: Vec<&String> = b.defs.keys().collect();
        names.sort();
        let names: Vec<String> = names.into_iter().cloned().collect();
        for name in &names {
            let def = b.defs[name];
            let Some(Node::Seq(entries)) = def.get("x-kubernetes-group-version-kind") else {
                continue;
            };
            let idx = b.named_def(name)?;
            for e in entries {
                let s = |k: &str| e.get(k).and_then(Node::as_str).unwrap_or("").to_string();
                gvks.entry((s("group"), s("version"), s("kind")))
                    .or_insert(idx);
            }
        }
        while let Some((idx, schema)) = b.queue.pop() {
            let mut fields = Vec::new();
            if let Some(Node::Map(props)) = schema.get("properties") {
                for (name, p) in props.iter() {
                    let Some(ty) = b.ty(p)? else {
                        continue;
                    };
                    let name = leak(name);
                    if let Ty::List {
                        strategy,
                        merge_key,
                        ..
                    } = ty
                    {
                        let s = b.resolve(p)?.map(|r| r.0);
                        if let Some(Node::Seq(keys)) =
                            s.and_then(|s| s.get("x-kubernetes-list-map-keys"))
                        {
                            let keys: Vec<&'static str> =
                                keys.iter().filter_map(Node::as_str).map(leak).collect();
                            let same = keys.len() == usize::from(merge_key.is_some())
                                && merge_key.is_none_or(|k| keys.first() == Some(&k));
                            if strategy != Strategy::None && !keys.is_empty() && !same {
                                b.multi.insert((idx, name), leak_keys(keys));
                            }
                        }
                    }
                    fields.push((name, ty));
                }
            }
            fields.sort_by(|a, b| a.0.cmp(b.0));
            b.out[usize::from(idx - CUSTOM_BASE)] = fields;
        }
        Ok(CustomSchema {
            defs: b.out,
            multi_keys: b.multi,
            gvks,
            with_builtin,
        })
    }

    fn new_def(&mut self, schema: &'a Node) -> Result<u16, String> {
        let i = self.out.len();
        if i >= usize::from(u16::MAX - CUSTOM_BASE) {
            return Err("invalid schema file: too many definitions".into());
        }
        self.out.push(Vec::new());
        let idx = CUSTOM_BASE + i as u16;
        self.queue.push((idx, schema));
        Ok(idx)
    }

    fn named_def(&mut self, name: &str) -> Result<u16, String> {
        if let Some(&i) = self.builtin.get(name) {
            return Ok(i);
        }
        if let Some(&i) = self.named.get(name) {
            return Ok(i);
        }
        let schema = *self
            .defs
            .get(name)
            .ok_or_else(|| format!("invalid schema file: missing definition {name}"))?;
        let i = self.new_def(schema)?;
        self.named.insert(name.to_string(), i);
        Ok(i)
    }

    /// Follows `$ref`s: the schema and the definition name it came from
    /// (None when a `$ref` names no definition: kyaml then has no schema).
    fn resolve(&self, schema: &'a Node) -> Result<Option<(&'a Node, Option<String>)>, String> {
        match self.resolve_ref(schema) {
            Ok(r) => Ok(Some(r)),
            Err(e) if e.starts_with("missing") => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn resolve_ref(&self, mut schema: &'a Node) -> Result<(&'a Node, Option<String>), String> {
        let mut name = None;
        let mut hops = 0;
        while let Some(r) = schema.get("$ref").and_then(Node::as_str) {
            let n = r
                .strip_prefix("#/definitions/")
                .ok_or_else(|| format!("invalid schema file: unsupported $ref {r}"))?;
            name = Some(n.to_string());
            if self.builtin.contains_key(n) {
                // The builtin definition replaces it (see `def_of`).
                return Ok((schema, name));
            }
            schema = self
                .defs
                .get(n)
                .copied()
                .ok_or_else(|| format!("missing definition {n}"))?;
            hops += 1;
            if hops > 100 {
                return Err(format!("invalid schema file: $ref cycle at {n}"));
            }
        }
        Ok((schema, name))
    }

    fn kind(s: &Node) -> &'static str {
        let t = match s.get("type") {
            Some(Node::Str(t)) => Some(t.as_str()),
            Some(Node::Seq(ts)) if ts.len() == 1 => ts[0].as_str(),
            _ => None,
        };
        if t == Some("array") {
            return "array";
        }
        if matches!(s.get("properties"), Some(Node::Map(m)) if !m.is_empty()) {
            return "object";
        }
        if matches!(s.get("additionalProperties"), Some(Node::Map(_))) {
            return "map";
        }
        if matches!(t, None | Some("object")) {
            return "object";
        }
        "scalar"
    }

    /// The definition of an object-like schema (None: an opaque object).
    fn def_of(&mut self, s: &'a Node, name: Option<String>) -> Result<Option<u16>, String> {
        match name {
            Some(n) => self.named_def(&n).map(Some),
            None if matches!(s.get("properties"), Some(Node::Map(m)) if !m.is_empty()) => {
                self.new_def(s).map(Some)
            }
            None => Ok(None),
        }
    }

    fn element(&mut self, schema: &'a Node) -> Result<Option<u16>, String> {
        let Some((s, name)) = self.resolve(schema)? else {
            return Ok(None);
        };
        if Self::kind(s) == "object" {
            return self.def_of(s, name);
        }
        Ok(None)
    }

    /// A property's type (None: its `$ref` names no definition).
    fn ty(&mut self, schema: &'a Node) -> Result<Option<Ty>, String> {
        let Some((s, name)) = self.resolve(schema)? else {
            return Ok(None);
        };
        Ok(Some(match Self::kind(s) {
            "array" => {
                let item = match s.get("items") {
                    Some(it) => self.element(it)?,
                    None => None,
                };
                let ps = s
                    .get("x-kubernetes-patch-strategy")
                    .and_then(Node::as_str)
                    .unwrap_or("");
                let parts: Vec<&str> = ps.split(',').filter(|p| !p.is_empty()).collect();
                let has = |p: &str| parts.contains(&p);
                let strategy = if has("merge") && has("retainKeys") {
                    Strategy::MergeRetainKeys
                } else if has("merge") {
                    Strategy::Merge
                } else if has("retainKeys") {
                    Strategy::RetainKeys
                } else if has("replace") {
                    Strategy::Replace
                } else {
                    Strategy::None
                };
                let merge_key = s
                    .get("x-kubernetes-patch-merge-key")
                    .and_then(Node::as_str)
                    .map(leak);
                Ty::List {
                    item,
                    merge_key,
                    strategy,
                }
            }
            "map" => {
                let ap = s.get("additionalProperties").expect("map schema");
                Ty::MapOf(self.element(ap)?)
            }
            "object" => match self.def_of(s, name)? {
                Some(d) => Ty::Object(d),
                None => Ty::Scalar,
            },
            _ => Ty::Scalar,
        }))
    }
}
