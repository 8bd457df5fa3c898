//! `LabelTransformer` and `AnnotationsTransformer` (kustomize's
//! `api/filters/labels` and `annotations`): set map entries at the fields
//! their field specs name, creating the maps where a spec says so.

use crate::resource::{Link, PathElem, ResMap};

use super::super::Error;
use super::super::fieldspec::{self, CreateKind};
use super::super::fieldspecs::FieldSpec;
use super::Config;

/// Labels or annotations to set.
#[derive(Debug, Clone)]
pub struct MapEntriesTransformer {
    pub pairs: Vec<(String, String)>,
    pub field_specs: Vec<FieldSpec>,
}

impl MapEntriesTransformer {
    /// Reads `labels` (or `annotations`) and `fieldSpecs`.
    pub fn from_config(c: &Config, key: &str) -> Result<Self, String> {
        Ok(MapEntriesTransformer {
            pairs: c.str_map(key)?,
            field_specs: c.field_specs()?,
        })
    }

    pub fn apply(&self, m: &mut ResMap) -> Result<(), Error> {
        let pairs = &self.pairs;
        if pairs.is_empty() {
            return Ok(());
        }
        for r in m.iter_mut() {
            // Where each key is added: kustomize adds one shared value node.
            let mut added: Vec<Vec<Vec<PathElem>>> = vec![Vec::new(); pairs.len()];
            for fs in &self.field_specs {
                fieldspec::apply_to_resource(r, fs, Some(CreateKind::Map), &mut |at, n| {
                    // A null the spec does not create stays (kyaml's
                    // FieldSetter finds no map to set in).
                    if n.is_null() {
                        return Ok(());
                    }
                    let had: Vec<bool> = pairs
                        .iter()
                        .map(|(k, _)| n.as_map().is_some_and(|m| m.contains_key(k)))
                        .collect();
                    fieldspec::set_entries(n, pairs)?;
                    for (i, (k, _)) in pairs.iter().enumerate() {
                        if !had[i] {
                            let mut p = at.to_vec();
                            p.push(PathElem::Key(k.clone()));
                            added[i].push(p);
                        }
                    }
                    Ok(())
                })?;
            }
            for (i, members) in added.into_iter().enumerate() {
                if members.len() > 1 {
                    r.links.push(Link {
                        members,
                        value: crate::yaml::Node::Str(pairs[i].1.clone()),
                    });
                }
            }
        }
        Ok(())
    }
}
