//! `NamespaceTransformer` (kustomize's `api/filters/namespace`): sets
//! `metadata.namespace` of namespaced objects, the namespace fields its
//! field specs name, and the namespace of (Cluster)RoleBinding subjects.

use crate::resource::ResMap;
use crate::yaml::Node;

use super::super::Error;
use super::super::fieldspec::{self, CreateKind};
use super::super::fieldspecs::FieldSpec;
use super::Config;

/// Which (Cluster)RoleBinding subjects get the namespace
/// (`setRoleBindingSubjects`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SubjectMode {
    /// `defaultOnly`: subjects named `default`.
    #[default]
    DefaultOnly,
    /// `allServiceAccounts`: subjects of kind ServiceAccount.
    AllServiceAccounts,
    /// `none`.
    None,
}

#[derive(Debug, Clone)]
pub struct NamespaceTransformer {
    pub namespace: String,
    pub field_specs: Vec<FieldSpec>,
    /// Only fields that are empty get the namespace.
    pub unset_only: bool,
    pub subjects: SubjectMode,
}

impl NamespaceTransformer {
    /// Reads the builtin's configuration (`metadata.namespace`,
    /// `fieldSpecs`, `unsetOnly`, `setRoleBindingSubjects`).
    pub fn from_config(c: &Config) -> Result<Self, String> {
        let subjects = match c.str_at(&["setRoleBindingSubjects"])?.as_str() {
            "" | "defaultOnly" => SubjectMode::DefaultOnly,
            "allServiceAccounts" => SubjectMode::AllServiceAccounts,
            "none" => SubjectMode::None,
            other => {
                return Err(format!(
                    "unmarshalling NamespaceTransformer config: invalid value \"{other}\" for setRoleBindingSubjects: must be one of \"defaultOnly\", \"none\" or \"allServiceAccounts\""
                ));
            }
        };
        Ok(NamespaceTransformer {
            namespace: c.str_at(&["metadata", "namespace"])?,
            field_specs: c.field_specs()?,
            unset_only: c.bool_at("unsetOnly")?,
            subjects,
        })
    }

    /// kyaml's `SetEntry` (or `SetEntryIfEmpty`) with an empty name: a
    /// map or a list fails, also where `unsetOnly` would leave a value.
    /// Says whether it wrote (the node written is then tagged `!!str`).
    fn set(&self, n: &mut Node) -> Result<bool, String> {
        fieldspec::expect_scalar(n)?;
        if self.unset_only && !n.is_null() && n.scalar_text().is_none_or(|t| !t.is_empty()) {
            return Ok(false);
        }
        *n = Node::Str(self.namespace.clone());
        Ok(true)
    }

    pub fn apply(&self, m: &mut ResMap) -> Result<(), Error> {
        if self.namespace.is_empty() {
            return Ok(());
        }
        let ns = &self.namespace;
        for i in 0..m.resources.len() {
            let r = &mut m.resources[i];
            r.store_previous_id();
            let gvk = r.gvk();
            let api_version = r.api_version().to_string();
            if !gvk.is_cluster_scoped() && (!self.unset_only || r.namespace().is_empty()) {
                r.set_namespace(ns);
            }
            let is_rb = gvk.kind == "RoleBinding" || gvk.kind == "ClusterRoleBinding";
            if is_rb && let Some(Node::Seq(subjects)) = r.obj.get_mut("subjects") {
                for s in subjects.iter_mut() {
                    let Node::Map(sm) = s else { continue };
                    let hit = match self.subjects {
                        SubjectMode::None => false,
                        SubjectMode::DefaultOnly => {
                            sm.get("name").and_then(Node::as_str) == Some("default")
                        }
                        SubjectMode::AllServiceAccounts => {
                            sm.get("kind").and_then(Node::as_str) == Some("ServiceAccount")
                        }
                    };
                    if !hit {
                        continue;
                    }
                    let mut cur = sm.get("namespace").cloned().unwrap_or(Node::Null);
                    let wrote = self.set(&mut cur).map_err(|e| {
                        Error::msg(format!(
                            "setting namespace on (cluster)role binding subjects: {e}"
                        ))
                    })?;
                    sm.insert("namespace", cur);
                    if wrote {
                        sm.set_tagless("namespace", false);
                    }
                }
            }
            for fs in &self.field_specs {
                if fs.path == "metadata/namespace"
                    || (fs.path == "metadata/name" && api_version != "v1")
                {
                    continue;
                }
                if is_rb
                    && fs.path == "subjects/namespace"
                    && (fs.kind == "RoleBinding" || fs.kind == "ClusterRoleBinding")
                {
                    continue;
                }
                let mut wrote = false;
                fieldspec::apply_to_resource(r, fs, Some(CreateKind::Scalar), &mut |_, n| {
                    wrote |= self.set(n)?;
                    Ok(())
                })
                .map_err(|e| {
                    if e.message.contains("wrong node kind: expected ScalarNode") {
                        e.context("namespace field specs must target scalar nodes")
                    } else {
                        e.context("namespace transformation failed")
                    }
                })?;
                // kyaml's `SetEntry` puts a node tagged `!!str` in place: a
                // Namespace's name that a patch left untagged is a string
                // again (a replacement writing `9090` there then keeps it
                // quoted).
                if wrote
                    && fs.path == "metadata/name"
                    && let Some(Node::Map(md)) = r.obj.get_mut("metadata")
                {
                    md.set_tagless("name", false);
                }
            }
            let id = m.resources[i].cur_id();
            let n = m
                .resources
                .iter()
                .filter(|x| {
                    x.name() == id.name && x.kind() == id.gvk.kind && x.cur_id().equals(&id)
                })
                .count();
            if n != 1 {
                return Err(Error::msg(format!(
                    "namespace transformation produces ID conflict: {id}"
                )));
            }
        }
        Ok(())
    }
}
