//! `PrefixTransformer` and `SuffixTransformer` (and `PrefixSuffixTransformer`,
//! which is both with one configuration): add a prefix or a suffix to the
//! name fields their field specs name, recording it for name references.

use crate::resource::{Gvk, PathElem, ResMap, node_at_mut};
use crate::yaml::Node;

use super::super::Error;
use super::super::fieldspec::{self, CreateKind};
use super::super::fieldspecs::FieldSpec;
use super::Config;

#[derive(Debug, Clone)]
pub struct PrefixSuffixTransformer {
    pub affix: String,
    pub is_prefix: bool,
    pub field_specs: Vec<FieldSpec>,
}

/// Kinds kustomize never renames (`prefixFieldSpecsToSkip`).
fn skipped(gvk: &Gvk) -> bool {
    gvk.kind == "CustomResourceDefinition"
        || (gvk.group == "apiregistration.k8s.io" && gvk.kind == "APIService")
        || gvk.kind == "Namespace"
}

impl PrefixSuffixTransformer {
    /// Reads `prefix` (or `suffix`) and `fieldSpecs`, which the builtin
    /// requires.
    pub fn from_config(c: &Config, is_prefix: bool) -> Result<Self, String> {
        if c.get("fieldSpecs").is_none_or(Node::is_null) {
            return Err("fieldSpecs is not expected to be nil".into());
        }
        Ok(PrefixSuffixTransformer {
            affix: c.str_at(&[if is_prefix { "prefix" } else { "suffix" }])?,
            is_prefix,
            field_specs: c.field_specs()?,
        })
    }

    pub fn apply(&self, m: &mut ResMap) -> Result<(), Error> {
        let affix = &self.affix;
        for r in m.iter_mut() {
            let org = r.org_id();
            if skipped(&org.gvk) {
                continue;
            }
            for fs in &self.field_specs {
                if !org.gvk.is_selected_by(fs.group, fs.version, fs.kind) {
                    continue;
                }
                if fs.path == "metadata/name" && !affix.is_empty() {
                    // kustomize appends each layer's affix to a list.
                    if self.is_prefix {
                        r.prefixes.push(affix.clone());
                    } else {
                        r.suffixes.push(affix.clone());
                    }
                    r.store_previous_id();
                }
                let with_affix = |cur: &str| {
                    if self.is_prefix {
                        format!("{affix}{cur}")
                    } else {
                        format!("{cur}{affix}")
                    }
                };
                // kyaml's SetScalar: a map or a list at the path fails; the
                // affix goes around the scalar's source text (a null's `~`
                // or empty text, a number as written), which the map that
                // holds it gives below, and the result is an untagged scalar
                // (in its old style: a plain `0x1F0` is read as a number).
                let mut written: Vec<(Vec<PathElem>, bool)> = Vec::new();
                let mut setter = |at: &[PathElem], n: &mut Node| {
                    fieldspec::expect_scalar(n)?;
                    written.push((at.to_vec(), !matches!(n, Node::Str(_))));
                    *n = Node::Str(with_affix(&n.scalar_text().unwrap_or_default()));
                    Ok(())
                };
                fieldspec::apply_to_resource(r, fs, Some(CreateKind::Scalar), &mut setter)?;
                for (at, non_string) in written {
                    let Some((PathElem::Key(key), parent)) = at.split_last() else {
                        continue;
                    };
                    let Some(Node::Map(pm)) = node_at_mut(&mut r.obj, parent) else {
                        continue;
                    };
                    if non_string && let Some(text) = pm.raw_text(key).map(str::to_string) {
                        pm.insert(key.clone(), Node::Str(with_affix(&text)));
                    }
                    pm.set_tagless(key, true);
                }
            }
        }
        Ok(())
    }
}
