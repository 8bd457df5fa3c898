//! Typed views of the Flux objects flate reads, taken from rendered nodes.

use crate::resource::{Origin, Resource};
use crate::yaml::Node;

pub const KUSTOMIZE_GROUP: &str = "kustomize.toolkit.fluxcd.io";
pub const HELM_GROUP: &str = "helm.toolkit.fluxcd.io";
pub const SOURCE_GROUP: &str = "source.toolkit.fluxcd.io";

/// `namespace/name`
pub fn key(namespace: &str, name: &str) -> String {
    format!("{namespace}/{name}")
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceRef {
    pub kind: String,
    pub name: String,
    pub namespace: String,
}

impl std::fmt::Display for SourceRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}/{}", self.kind, self.namespace, self.name)
    }
}

#[derive(Debug, Clone)]
pub struct SubstituteFrom {
    pub kind: String,
    pub name: String,
    pub optional: bool,
}

/// A Flux Kustomization (`kustomize.toolkit.fluxcd.io/v1`, `v1beta2`).
#[derive(Debug, Clone)]
pub struct FluxKustomization {
    pub name: String,
    pub namespace: String,
    pub node: Node,
    pub origin: Origin,
    pub path: String,
    pub source: SourceRef,
    pub suspend: bool,
    pub depends_on: Vec<String>,
    pub substitute: Vec<(String, String)>,
    /// Names of `substitute` whose value was substituted from a Secret
    /// (into this object, by its parent's post-build).
    pub secret_substitute: std::collections::HashSet<String>,
    pub substitute_from: Vec<SubstituteFrom>,
    pub has_post_build: bool,
}

pub fn is_flux_kustomization(r: &Resource) -> bool {
    let g = r.gvk();
    g.group == KUSTOMIZE_GROUP && g.kind == "Kustomization"
}

fn str_at(n: &Node, path: &[&str]) -> String {
    n.get_path(path)
        .and_then(Node::scalar_text)
        .unwrap_or_default()
}

impl FluxKustomization {
    pub fn from_resource(r: &Resource) -> FluxKustomization {
        let n = &r.obj;
        let namespace = {
            let ns = r.namespace();
            if ns.is_empty() {
                "default".to_string()
            } else {
                ns.to_string()
            }
        };
        let src = n.get_path(&["spec", "sourceRef"]);
        let source = SourceRef {
            kind: src.map(|s| str_at(s, &["kind"])).unwrap_or_default(),
            name: src.map(|s| str_at(s, &["name"])).unwrap_or_default(),
            namespace: src
                .map(|s| str_at(s, &["namespace"]))
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| namespace.clone()),
        };
        let depends_on = match n.get_path(&["spec", "dependsOn"]) {
            Some(Node::Seq(items)) => items
                .iter()
                .map(|d| {
                    let ns = str_at(d, &["namespace"]);
                    key(
                        if ns.is_empty() { &namespace } else { &ns },
                        &str_at(d, &["name"]),
                    )
                })
                .collect(),
            _ => Vec::new(),
        };
        let pb = n.get_path(&["spec", "postBuild"]);
        let substitute = match pb.and_then(|p| p.get("substitute")) {
            Some(Node::Map(m)) => m
                .iter()
                .map(|(k, v)| (k.clone(), v.scalar_text().unwrap_or_default()))
                .collect(),
            _ => Vec::new(),
        };
        let secret_substitute = substitute
            .iter()
            .filter(|(k, _)| {
                crate::secret::covers(
                    &r.secret_paths,
                    &["spec", "postBuild", "substitute", k.as_str()]
                        .map(|e| crate::resource::PathElem::Key(e.into())),
                )
            })
            .map(|(k, _)| k.clone())
            .collect();
        let substitute_from = match pb.and_then(|p| p.get("substituteFrom")) {
            Some(Node::Seq(items)) => items
                .iter()
                .map(|s| SubstituteFrom {
                    kind: str_at(s, &["kind"]),
                    name: str_at(s, &["name"]),
                    optional: s.get("optional").and_then(Node::as_bool).unwrap_or(false),
                })
                .collect(),
            _ => Vec::new(),
        };
        FluxKustomization {
            name: r.name().to_string(),
            namespace,
            node: n.clone(),
            origin: r.origin.clone(),
            path: str_at(n, &["spec", "path"]),
            source,
            suspend: n
                .get_path(&["spec", "suspend"])
                .and_then(Node::as_bool)
                .unwrap_or(false),
            depends_on,
            substitute,
            secret_substitute,
            substitute_from,
            has_post_build: pb.is_some_and(|p| !p.is_null()),
        }
    }

    pub fn key(&self) -> String {
        key(&self.namespace, &self.name)
    }

    pub fn spec(&self, field: &str) -> Option<&Node> {
        self.node
            .get_path(&["spec", field])
            .filter(|n| !n.is_null())
    }
}
