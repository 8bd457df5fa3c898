//! `ReplicaCountTransformer` (kustomize's `api/filters/replicacount`): sets
//! the replica count of the objects with the given name (current or
//! previous) at the fields its field specs name.

use crate::resource::{Gvk, PathElem, ResMap, node_at_mut};
use crate::yaml::Node;

use super::super::Error;
use super::super::fieldspec::{self, CreateKind};
use super::super::fieldspecs::FieldSpec;
use super::Config;

#[derive(Debug, Clone)]
pub struct ReplicaCountTransformer {
    pub name: String,
    pub count: i64,
    pub field_specs: Vec<FieldSpec>,
}

/// A `types.Replica` (`name`, `count`).
pub fn read_replica(item: &Node) -> Result<(String, i64), String> {
    let name = match item.get("name") {
        None | Some(Node::Null) => String::new(),
        Some(Node::Str(s)) => s.clone(),
        Some(_) => return Err("replica name must be a string".into()),
    };
    let count = match item.get("count") {
        None | Some(Node::Null) => 0,
        Some(n) => n
            .as_i64()
            .ok_or_else(|| "replicas.count must be an integer".to_string())?,
    };
    Ok((name, count))
}

impl ReplicaCountTransformer {
    /// Reads `replica` and `fieldSpecs`.
    pub fn from_config(c: &Config) -> Result<Self, String> {
        let (name, count) = match c.get("replica") {
            Some(r) => read_replica(r)?,
            None => (String::new(), 0),
        };
        Ok(ReplicaCountTransformer {
            name,
            count,
            field_specs: c.field_specs()?,
        })
    }

    pub fn apply(&self, m: &mut ResMap) -> Result<(), Error> {
        let (name, count) = (&self.name, self.count);
        let mut found = false;
        for fs in &self.field_specs {
            for r in m.iter_mut() {
                let ids = std::iter::once(r.cur_id()).chain(r.prev_ids.iter().cloned());
                let hit = ids.into_iter().any(|id| {
                    id.name == *name && id.gvk.is_selected_by(fs.group, fs.version, fs.kind)
                });
                if !hit {
                    continue;
                }
                found = true;
                let mut set: Vec<Vec<PathElem>> = Vec::new();
                // kyaml's SetEntry with an empty name: a map or a list fails.
                fieldspec::apply_to_resource(r, fs, Some(CreateKind::Scalar), &mut |at, n| {
                    fieldspec::expect_scalar(n)?;
                    *n = Node::Int(count);
                    set.push(at.to_vec());
                    Ok(())
                })?;
                // The field keeps its style: written quoted, the count is a
                // string, but the node is tagged `!!int` now (kyaml's
                // `SetScalar` with the filter's `CreateTag`): a text of
                // another type written into it later (a replacement's
                // `1.0`) cannot be read.
                for at in set {
                    if let Some((PathElem::Key(key), parent)) = at.split_last()
                        && let Some(Node::Map(pm)) = node_at_mut(&mut r.obj, parent)
                    {
                        // The node now holds a readable count.
                        pm.set_bad_tag(key, None);
                        if pm.is_quoted(key) {
                            pm.insert(key.clone(), Node::Str(count.to_string()));
                            pm.set_quoted(key, true);
                            pm.set_bad_tag(key, Some("!!int"));
                        }
                    }
                }
            }
        }
        if !found {
            let gvks: Vec<String> = self
                .field_specs
                .iter()
                .map(|fs| {
                    Gvk {
                        group: fs.group.into(),
                        version: fs.version.into(),
                        kind: fs.kind.into(),
                    }
                    .kustomize_string()
                })
                .collect();
            return Err(Error::msg(format!(
                "resource with name {name} does not match a config with the following GVK [{}]",
                gvks.join(" ")
            )));
        }
        Ok(())
    }
}
