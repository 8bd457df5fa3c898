//! `buildMetadata:` (`originAnnotations`, `transformerAnnotations`,
//! `managedByLabel`).
//!
//! Facts from kustomize v5.5.0 (`api/internal/target/kusttarget.go`,
//! `kusttarget_configplugin.go`, `api/resource/origin.go`,
//! `api/resmap/reswrangler.go`, `api/krusty/kustomizer.go`):
//! - only the kustomization being built counts: every kustomization it
//!   reaches takes its `buildMetadata` (their own is overwritten);
//! - when the list is not empty (whatever it holds), every object read
//!   from a file gets `config.kubernetes.io/origin: "path: P"`, P the path
//!   written in the kustomizations joined from the built directory; a
//!   generated object gets `configuredIn:` (the kustomization file) and
//!   `configuredBy:` (apiVersion `builtin`, the generator's kind, and for a
//!   `generators:` entry its name and namespace), unless it has an origin;
//! - after each transformer, every object gets the transformer's origin
//!   appended to `alpha.config.kubernetes.io/transformations` (or as its
//!   origin when it has none), changed or not; the kustomization's
//!   builtin transformers are one per `patches`, `patchesJson6902`,
//!   `replicas`, `images` and `labels` entry, plus one for
//!   `commonLabels` when either labels field is set;
//! - after sorting, `managedByLabel` sets `app.kubernetes.io/managed-by:
//!   kustomize-(devel)` (the version kubectl's kustomize reports), then the
//!   origin and transformations annotations are removed unless asked for.

use std::path::{Component, Path};

use crate::resource::{ResMap, Resource};
use crate::yaml::{Map, Node};

use super::Error;
use super::kustfile::Kustomization;

pub const ORIGIN: &str = "config.kubernetes.io/origin";
pub const TRANSFORMATIONS: &str = "alpha.config.kubernetes.io/transformations";
pub const MANAGED_BY: &str = "app.kubernetes.io/managed-by";
/// What `kubectl kustomize` (v1.32, kustomize v5.5.0) writes.
pub const MANAGED_BY_VALUE: &str = "kustomize-(devel)";

/// The options of the built kustomization's `buildMetadata`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BuildMeta {
    pub origin: bool,
    pub transformations: bool,
    pub managed_by: bool,
}

impl BuildMeta {
    /// `None` when the list is empty (nothing is tracked).
    pub fn of(k: &Kustomization) -> Result<Option<BuildMeta>, Error> {
        let list = k.str_list("buildMetadata")?;
        if list.is_empty() {
            return Ok(None);
        }
        let has = |s: &str| list.iter().any(|x| x == s);
        Ok(Some(BuildMeta {
            origin: has("originAnnotations"),
            transformations: has("transformerAnnotations"),
            managed_by: has("managedByLabel"),
        }))
    }
}

/// kustomize's `resource.Origin`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Origin {
    pub path: String,
    pub configured_in: String,
    pub api_version: String,
    pub kind: String,
    pub name: String,
    pub namespace: String,
}

/// A scalar as go-yaml v3 writes it in a block mapping.
fn scalar(s: &str) -> String {
    // A leading `.` (a relative path) is no indicator.
    let probe = match s.strip_prefix('.') {
        Some(rest) => format!("x{rest}"),
        None => s.to_string(),
    };
    let plain = crate::yaml::resolve::plain_round_trips(&probe)
        && matches!(
            crate::yaml::resolve::resolve_plain(s, crate::yaml::resolve::Schema::V3),
            Node::Str(_)
        );
    if plain {
        s.to_string()
    } else {
        let mut out = String::new();
        super::generators::go_json_string(s, &mut out);
        out
    }
}

impl Origin {
    /// The origin of objects read from a file.
    pub fn file(path: String) -> Origin {
        Origin {
            path,
            ..Origin::default()
        }
    }

    /// The origin of a builtin generator or transformer configured by a
    /// kustomization's fields.
    pub fn builtin(configured_in: &str, kind: &str) -> Origin {
        Origin {
            configured_in: configured_in.to_string(),
            api_version: "builtin".into(),
            kind: kind.into(),
            ..Origin::default()
        }
    }

    /// The text kustomize writes (`kyaml.Marshal` of the struct).
    pub fn text(&self) -> String {
        let mut out = String::new();
        let mut field = |indent: &str, k: &str, v: &str| {
            if !v.is_empty() {
                out.push_str(&format!("{indent}{k}: {}\n", scalar(v)));
            }
        };
        field("", "path", &self.path);
        field("", "configuredIn", &self.configured_in);
        let by = !(self.api_version.is_empty()
            && self.kind.is_empty()
            && self.name.is_empty()
            && self.namespace.is_empty());
        if by {
            out.push_str("configuredBy:\n");
            let mut field = |k: &str, v: &str| {
                if !v.is_empty() {
                    out.push_str(&format!("  {k}: {}\n", scalar(v)));
                }
            };
            field("apiVersion", &self.api_version);
            field("kind", &self.kind);
            field("name", &self.name);
            field("namespace", &self.namespace);
        }
        if out.is_empty() {
            out.push_str("{}\n");
        }
        out
    }

    /// Reads an origin annotation written by `text`.
    pub fn parse(text: &str) -> Option<Origin> {
        let n = crate::yaml::parse_one(text).ok()?;
        let s = |p: &[&str]| n.get_str(p).unwrap_or("").to_string();
        Some(Origin {
            path: s(&["path"]),
            configured_in: s(&["configuredIn"]),
            api_version: s(&["configuredBy", "apiVersion"]),
            kind: s(&["configuredBy", "kind"]),
            name: s(&["configuredBy", "name"]),
            namespace: s(&["configuredBy", "namespace"]),
        })
    }
}

/// `filepath.Join`-like path of `p` seen from `root` (both absolute and
/// normalized).
pub fn relative(root: &Path, p: &Path) -> String {
    let a: Vec<Component> = root.components().collect();
    let b: Vec<Component> = p.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = Vec::new();
    for _ in common..a.len() {
        parts.push("..".into());
    }
    for c in &b[common..] {
        parts.push(c.as_os_str().to_string_lossy().into_owned());
    }
    if parts.is_empty() {
        ".".into()
    } else {
        parts.join("/")
    }
}

pub fn annotation(r: &Resource, key: &str) -> Option<String> {
    r.annotations()?.get(key)?.as_str().map(str::to_string)
}

pub fn set_annotation(r: &mut Resource, key: &str, value: Option<String>) {
    let Node::Map(obj) = &mut r.obj else { return };
    let md = obj.entry_map("metadata");
    let Node::Map(md) = md else { return };
    match value {
        Some(v) => {
            if !matches!(md.get("annotations"), Some(Node::Map(_))) {
                md.insert("annotations", Node::Map(Map::new()));
            }
            if let Some(Node::Map(a)) = md.get_mut("annotations") {
                a.insert(key, Node::Str(v));
            }
        }
        None => {
            if let Some(Node::Map(a)) = md.get_mut("annotations") {
                a.remove(key);
            }
        }
    }
}

/// `AddOriginAnnotation`: objects without an origin get `o`.
pub fn set_if_absent(r: &mut Resource, o: &Origin) {
    if annotation(r, ORIGIN).is_none() {
        set_annotation(r, ORIGIN, Some(o.text()));
    }
}

/// `AddTransformerAnnotation`: after a transformer ran.
pub fn record(m: &mut ResMap, o: &Origin) {
    let entry: String = {
        let text = o.text();
        let mut out = String::new();
        for (i, line) in text.lines().enumerate() {
            out.push_str(if i == 0 { "- " } else { "  " });
            out.push_str(line);
            out.push('\n');
        }
        out
    };
    for r in m.iter_mut() {
        match annotation(r, ORIGIN) {
            None => set_annotation(r, ORIGIN, Some(o.text())),
            Some(_) => {
                let mut list = annotation(r, TRANSFORMATIONS).unwrap_or_default();
                list.push_str(&entry);
                set_annotation(r, TRANSFORMATIONS, Some(list));
            }
        }
    }
}

/// The last steps of a build: the managed-by label, then the annotations
/// not asked for are removed.
pub fn finish(m: &mut ResMap, meta: &BuildMeta) -> Result<(), Error> {
    if meta.managed_by {
        let t = super::transformers::MapEntriesTransformer {
            pairs: vec![(MANAGED_BY.to_string(), MANAGED_BY_VALUE.to_string())],
            field_specs: vec![super::fieldspecs::FieldSpec {
                group: "",
                version: "",
                kind: "",
                path: "metadata/labels",
                create: true,
            }],
        };
        t.apply(m)?;
    }
    for r in m.iter_mut() {
        if !meta.origin {
            set_annotation(r, ORIGIN, None);
        }
        if !meta.transformations {
            set_annotation(r, TRANSFORMATIONS, None);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths() {
        assert_eq!(
            relative(Path::new("/a/b"), Path::new("/a/b/c.yaml")),
            "c.yaml"
        );
        assert_eq!(
            relative(Path::new("/a/b"), Path::new("/a/base/k.yaml")),
            "../base/k.yaml"
        );
    }

    #[test]
    fn origin_text() {
        let o = Origin {
            name: "gen".into(),
            ..Origin::builtin("kustomization.yaml", "ConfigMapGenerator")
        };
        assert_eq!(
            o.text(),
            "configuredIn: kustomization.yaml\nconfiguredBy:\n  apiVersion: builtin\n  kind: ConfigMapGenerator\n  name: gen\n"
        );
        assert_eq!(Origin::parse(&o.text()), Some(o));
        assert_eq!(Origin::file("a.yaml".into()).text(), "path: a.yaml\n");
    }
}
