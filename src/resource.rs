//! Resources (a Kubernetes object plus where it came from and what kustomize
//! did to its name) and ordered resource maps.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use crate::yaml::{Map, Node};

/// Group, version and kind.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Gvk {
    pub group: String,
    pub version: String,
    pub kind: String,
}

impl Gvk {
    pub fn from_api_version(api_version: &str, kind: &str) -> Gvk {
        let (group, version) = match api_version.rsplit_once('/') {
            Some((g, v)) => (g.to_string(), v.to_string()),
            None => (String::new(), api_version.to_string()),
        };
        Gvk {
            group,
            version,
            kind: kind.to_string(),
        }
    }
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }
    /// `selector` selects `self`: empty selector fields are wildcards.
    pub fn is_selected_by(&self, group: &str, version: &str, kind: &str) -> bool {
        (group.is_empty() || group == self.group)
            && (version.is_empty() || version == self.version)
            && (kind.is_empty() || kind == self.kind)
    }
    /// Whether kustomize treats this kind as cluster-scoped.
    pub fn is_cluster_scoped(&self) -> bool {
        crate::kustomize::openapi::is_cluster_scoped(&self.group, &self.version, &self.kind)
            .unwrap_or_else(|| {
                crate::kustomize::openapi_custom::note_unknown_scope();
                false
            })
    }
    /// kustomize's `Gvk.String()`: `Kind.version.group` with placeholders.
    pub fn kustomize_string(&self) -> String {
        let or = |s: &str, d: &str| {
            if s.is_empty() {
                d.to_string()
            } else {
                s.to_string()
            }
        };
        format!(
            "{}.{}.{}",
            or(&self.kind, "[noKind]"),
            or(&self.version, "[noVer]"),
            or(&self.group, "[noGrp]")
        )
    }
}

/// A resource's identity.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct ResId {
    pub gvk: Gvk,
    pub name: String,
    pub namespace: String,
}

impl ResId {
    /// The namespace used for identity comparisons (`default` for an empty
    /// namespace of a namespaced kind).
    pub fn effective_namespace(&self) -> String {
        if self.gvk.is_cluster_scoped() {
            "_non_namespaceable_".into()
        } else if self.namespace.is_empty() {
            "default".into()
        } else {
            self.namespace.clone()
        }
    }
    pub fn equals(&self, o: &ResId) -> bool {
        self.gvk == o.gvk
            && self.name == o.name
            && self.effective_namespace() == o.effective_namespace()
    }
}

impl fmt::Display for ResId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ns = if self.namespace.is_empty() {
            "[noNs]"
        } else {
            &self.namespace
        };
        let nm = if self.name.is_empty() {
            "[noName]"
        } else {
            &self.name
        };
        write!(f, "{}/{}.{}", self.gvk.kustomize_string(), nm, ns)
    }
}

/// Where a resource was read from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Origin {
    pub file: Option<Arc<PathBuf>>,
    pub line: usize,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.file {
            Some(p) if self.line > 0 => write!(f, "{}:{}", p.display(), self.line),
            Some(p) => write!(f, "{}", p.display()),
            None => f.write_str("<generated>"),
        }
    }
}

/// One step of a path into an object.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PathElem {
    Key(String),
    Index(usize),
}

/// Scalar fields that are one shared node in kustomize: a label or
/// annotation transformer adds a key to every map of an object with the same
/// value node (`filtersutil.SetEntry`), so a later in-place change of any of
/// them (a patch, another transformer) shows in all of them.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    /// Each member is a map path plus the key.
    pub members: Vec<Vec<PathElem>>,
    pub value: Node,
}

/// How a generated ConfigMap/Secret combines with an existing one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Behavior {
    #[default]
    Create,
    Merge,
    Replace,
}

/// One object and the build bookkeeping kustomize keeps in internal
/// annotations.
#[derive(Debug, Clone, PartialEq)]
pub struct Resource {
    pub obj: Node,
    pub origin: Origin,
    /// Ids the resource had before each rename (kustomize's previousNames).
    pub prev_ids: Vec<ResId>,
    pub prefixes: Vec<String>,
    pub suffixes: Vec<String>,
    pub needs_hash: bool,
    pub behavior: Option<Behavior>,
    /// Fields that share one node (see `Link`).
    pub links: Vec<Link>,
    /// Names of the `vars` whose object this is.
    pub ref_var_names: Vec<String>,
    /// Values that came from a Secret (see `crate::secret`).
    pub secret_paths: crate::secret::SecretPaths,
}

impl Resource {
    pub fn new(mut obj: Node, origin: Origin) -> Resource {
        text_names(&mut obj);
        Resource {
            obj,
            origin,
            prev_ids: Vec::new(),
            prefixes: Vec::new(),
            suffixes: Vec::new(),
            needs_hash: false,
            behavior: None,
            links: Vec::new(),
            ref_var_names: Vec::new(),
            secret_paths: Vec::new(),
        }
    }
    pub fn map(&self) -> &Map {
        self.obj.as_map().expect("resource objects are maps")
    }
    pub fn map_mut(&mut self) -> &mut Map {
        self.obj.as_map_mut().expect("resource objects are maps")
    }
    pub fn api_version(&self) -> &str {
        self.obj.get_str(&["apiVersion"]).unwrap_or("")
    }
    pub fn kind(&self) -> &str {
        self.obj.get_str(&["kind"]).unwrap_or("")
    }
    pub fn name(&self) -> &str {
        self.obj.get_str(&["metadata", "name"]).unwrap_or("")
    }
    /// `metadata.name` or `metadata.namespace` as kyaml reads it into the
    /// object's id: the text of a scalar that is not a string too (`name:
    /// 0`, which a `replicas` field spec on `metadata/name` writes), so the
    /// object sorts and matches by it.
    fn meta_text(&self, key: &str) -> String {
        let meta = self.obj.get_path(&["metadata"]).and_then(Node::as_map);
        match meta.and_then(|m| m.get(key)) {
            Some(Node::Str(s)) => s.clone(),
            Some(Node::Int(_) | Node::UInt(_) | Node::Float(_) | Node::Bool(_)) => meta
                .and_then(|m| m.scalar_source_text(key))
                .unwrap_or_default(),
            _ => String::new(),
        }
    }
    pub fn namespace(&self) -> &str {
        self.obj.get_str(&["metadata", "namespace"]).unwrap_or("")
    }
    /// The namespace, `default` when there is none (where a namespaced
    /// object without one is applied).
    pub fn namespace_or_default(&self) -> &str {
        match self.namespace() {
            "" => "default",
            n => n,
        }
    }
    pub fn gvk(&self) -> Gvk {
        Gvk::from_api_version(self.api_version(), self.kind())
    }
    pub fn cur_id(&self) -> ResId {
        ResId {
            gvk: self.gvk(),
            name: self.meta_text("name"),
            namespace: self.meta_text("namespace"),
        }
    }
    pub fn org_id(&self) -> ResId {
        self.prev_ids
            .first()
            .cloned()
            .unwrap_or_else(|| self.cur_id())
    }
    fn metadata_mut(&mut self) -> &mut Map {
        self.map_mut()
            .entry_map("metadata")
            .as_map_mut()
            .expect("metadata is a map")
    }
    /// kustomize keeps previous names, namespaces and kinds in three
    /// comma-separated annotations, appending only non-empty values; a comma
    /// inside one of them or an empty one makes the lists disagree, and
    /// reading them back fails (unless no previous name was recorded).
    pub fn prev_ids_consistent(&self) -> bool {
        let count = |f: &dyn Fn(&ResId) -> &str| -> usize {
            let n: usize = self
                .prev_ids
                .iter()
                .map(f)
                .filter(|v| !v.is_empty())
                .map(|v| v.matches(',').count() + 1)
                .sum();
            // Splitting an absent annotation gives one empty element.
            n.max(1)
        };
        if self.prev_ids.iter().all(|id| id.name.is_empty()) {
            return true;
        }
        let n = count(&|id| &id.name);
        let ns = count(&|id| &id.namespace);
        let k = count(&|id| &id.gvk.kind);
        n == ns && ns == k
    }
    /// Records the current id as a previous one (before a rename).
    pub fn store_previous_id(&mut self) {
        let id = self.cur_id();
        let ns = id.effective_namespace();
        self.prev_ids.push(ResId {
            namespace: ns,
            ..id
        });
    }
    pub fn set_name(&mut self, name: &str) {
        set_untagged(self.metadata_mut(), "name", name);
    }
    pub fn set_namespace(&mut self, ns: &str) {
        set_untagged(self.metadata_mut(), "namespace", ns);
    }
    pub fn labels(&self) -> Option<&Map> {
        self.obj.get_path(&["metadata", "labels"])?.as_map()
    }
    pub fn annotations(&self) -> Option<&Map> {
        self.obj.get_path(&["metadata", "annotations"])?.as_map()
    }
    pub fn label(&self, key: &str) -> Option<&str> {
        self.labels()?.get(key)?.as_str()
    }
    pub fn annotation(&self, key: &str) -> Option<&str> {
        self.annotations()?.get(key)?.as_str()
    }
    /// The source text of an annotation's value, the way kustomize reads
    /// annotations (`map[string]string` of each node's text: `1.0` stays
    /// `1.0`, a collection reads as an empty string).
    pub fn annotation_text(&self, key: &str) -> Option<String> {
        let a = self.annotations()?;
        a.get(key)?;
        Some(a.scalar_source_text(key).unwrap_or_default())
    }
    /// Whether the resource carries the `config.kubernetes.io/local-config`
    /// annotation (dropped from build output): kustomize keeps the object
    /// only when the annotation is absent or its text is exactly `false`.
    pub fn is_local_config(&self) -> bool {
        self.annotation_text("config.kubernetes.io/local-config")
            .is_some_and(|v| v != "false")
    }
    pub fn prefixes_suffixes_equal(&self, o: &Resource, allow_empty: bool) -> bool {
        if allow_empty {
            let pe = self.prefixes.is_empty() || o.prefixes.is_empty();
            let se = self.suffixes.is_empty() || o.suffixes.is_empty();
            (pe || same_ending(&self.prefixes, &o.prefixes))
                && (se || same_ending(&self.suffixes, &o.suffixes))
        } else {
            same_ending(&self.prefixes, &o.prefixes) && same_ending(&self.suffixes, &o.suffixes)
        }
    }
}

/// kyaml's `SetName`/`SetNamespace`: an untagged scalar that keeps the
/// field's style (a new field holding a text YAML 1.1 reads as another type
/// is quoted).
/// kustomize reads an object's name and namespace as their nodes' text,
/// whatever their type (`name: 0` is the name "0", printed as a number): a
/// non-string one becomes an untagged string of its text.
pub fn text_names(obj: &mut Node) {
    if let Some(Node::Map(md)) = obj.get_mut("metadata") {
        for key in ["name", "namespace"] {
            let text = match md.get(key) {
                Some(v) if v.is_scalar() && !matches!(v, Node::Str(_) | Node::Null) => md
                    .scalar_source_text(key)
                    .unwrap_or_else(|| crate::yaml::node_text(v)),
                _ => continue,
            };
            md.insert(key, Node::Str(text));
            md.set_tagless(key, true);
        }
    }
}

pub fn set_untagged(m: &mut Map, key: &str, value: &str) {
    let quoted = if m.contains_key(key) {
        m.is_quoted(key)
    } else {
        crate::yaml::resolve::is_yaml11_non_string(value)
    };
    let print = m.print_breaks(key);
    m.insert(key, Node::str(value));
    m.set_quoted(key, quoted);
    m.set_print_breaks(key, print);
    m.set_tagless(key, true);
    m.set_bad_tag(key, None);
}

/// The node at `path` below `n`.
pub fn node_at<'a>(n: &'a Node, path: &[PathElem]) -> Option<&'a Node> {
    let mut cur = n;
    for p in path {
        cur = match (p, cur) {
            (PathElem::Key(k), Node::Map(m)) => m.get(k)?,
            (PathElem::Index(i), Node::Seq(s)) => s.get(*i)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// The node at `path` below `n`, mutable.
pub fn node_at_mut<'a>(n: &'a mut Node, path: &[PathElem]) -> Option<&'a mut Node> {
    let mut cur = n;
    for p in path {
        cur = match (p, cur) {
            (PathElem::Key(k), Node::Map(m)) => m.get_mut(k)?,
            (PathElem::Index(i), Node::Seq(s)) => s.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(cur)
}

impl Resource {
    /// Brings shared fields (see `Link`) back in step after a change: when
    /// a member changed, all members take its value. Members that are gone
    /// leave the link.
    pub fn sync_links(&mut self) {
        if self.links.is_empty() {
            return;
        }
        let mut links = std::mem::take(&mut self.links);
        for link in links.iter_mut() {
            link.members
                .retain(|p| node_at(&self.obj, p).is_some_and(Node::is_scalar));
            let changed = link
                .members
                .iter()
                .filter_map(|p| node_at(&self.obj, p))
                .find(|v| **v != link.value)
                .cloned();
            if let Some(v) = changed {
                for p in &link.members {
                    if let Some(n) = node_at_mut(&mut self.obj, p) {
                        *n = v.clone();
                    }
                }
                link.value = v;
            }
        }
        links.retain(|l| l.members.len() > 1);
        self.links = links;
    }
}

fn same_ending(a: &[String], b: &[String]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    // kustomize's SameEndingSubSlice: an empty list only matches an empty one.
    if short.is_empty() {
        return long.is_empty();
    }
    long[long.len() - short.len()..] == *short
}

/// Resources in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResMap {
    pub resources: Vec<Resource>,
    /// The `vars` declared by the kustomizations accumulated here.
    pub vars: Vec<crate::kustomize::vars::Var>,
    /// Name references added by the `crds` files of the layers here.
    pub crd_name_refs: Vec<crate::kustomize::crds::CrdNameRef>,
}

impl ResMap {
    pub fn new() -> Self {
        ResMap::default()
    }
    pub fn len(&self) -> usize {
        self.resources.len()
    }
    pub fn is_empty(&self) -> bool {
        self.resources.is_empty()
    }
    pub fn iter(&self) -> std::slice::Iter<'_, Resource> {
        self.resources.iter()
    }
    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, Resource> {
        self.resources.iter_mut()
    }
    /// Appends, refusing a resource whose id is already present.
    pub fn append(&mut self, r: Resource) -> Result<(), String> {
        let id = r.cur_id();
        // Compare names and kinds without building ids: this runs for every
        // accumulated object.
        let (name, kind, api) = (r.name(), r.kind(), r.api_version());
        if self.resources.iter().any(|x| {
            x.name() == name && x.kind() == kind && x.api_version() == api && x.cur_id().equals(&id)
        }) {
            return Err(format!(
                "may not add resource with an already registered id: {id}"
            ));
        }
        self.resources.push(r);
        Ok(())
    }
    /// The first id that appears twice, in kustomize's identity (effective
    /// namespace), found in linear time.
    pub fn first_duplicate(&self) -> Option<ResId> {
        let mut seen = std::collections::HashSet::with_capacity(self.resources.len());
        for r in &self.resources {
            let id = r.cur_id();
            if !seen.insert(id_key(&id)) {
                return Some(id);
            }
        }
        None
    }
    pub fn append_all(&mut self, other: ResMap) -> Result<(), String> {
        let mut ids = self.id_set();
        self.append_with(other, &mut ids)
    }
    /// The identities of the resources, for [`ResMap::append_with`].
    pub fn id_set(&self) -> IdSet {
        IdSet(self.resources.iter().map(|r| id_key(&r.cur_id())).collect())
    }
    /// [`ResMap::append_all`] with the identities already here (kept up to
    /// date): one pass over what is there for many appends.
    pub fn append_with(&mut self, other: ResMap, ids: &mut IdSet) -> Result<(), String> {
        for r in other.crd_name_refs {
            if !self.crd_name_refs.contains(&r) {
                self.crd_name_refs.push(r);
            }
        }
        for v in other.vars {
            crate::kustomize::vars::add(&mut self.vars, v)?;
        }
        for r in other.resources {
            let id = r.cur_id();
            if !ids.0.insert(id_key(&id)) {
                return Err(format!(
                    "may not add resource with an already registered id: {id}"
                ));
            }
            self.resources.push(r);
        }
        Ok(())
    }
}

/// Resource identities as kustomize compares them (group, version, kind,
/// name, effective namespace).
pub struct IdSet(std::collections::HashSet<(Gvk, String, String)>);

fn id_key(id: &ResId) -> (Gvk, String, String) {
    (id.gvk.clone(), id.name.clone(), id.effective_namespace())
}
