//! `PrefixTransformer` and `SuffixTransformer` (and `PrefixSuffixTransformer`,
//! which is both with one configuration): add a prefix or a suffix to the
//! name fields their field specs name, recording it for name references.

use crate::resource::{Gvk, ResMap};
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
                let gvk = r.gvk();
                let mut setter = |n: &mut Node| {
                    let cur = n.scalar_text().unwrap_or_default();
                    *n = Node::Str(if self.is_prefix {
                        format!("{affix}{cur}")
                    } else {
                        format!("{cur}{affix}")
                    });
                    Ok(())
                };
                fieldspec::apply(&mut r.obj, &gvk, fs, Some(CreateKind::Scalar), &mut setter)?;
                // kyaml sets the name with an untagged scalar (SetScalar).
                if fs.path == "metadata/name"
                    && let Some(Node::Map(md)) = r.obj.get_mut("metadata")
                {
                    md.set_tagless("name", true);
                }
            }
        }
        Ok(())
    }
}
