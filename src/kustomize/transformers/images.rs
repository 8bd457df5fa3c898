//! `ImageTagTransformer` (kustomize's `api/filters/imagetag`): rewrites
//! image references matching a name, in containers anywhere and at the
//! fields its field specs name.

use crate::resource::{PathElem, ResMap, node_at_mut};
use crate::yaml::Node;

use super::super::Error;
use super::super::fieldspec;
use super::super::fieldspecs::FieldSpec;
use super::Config;

/// Splits an image reference into name, tag and digest (kustomize's
/// `image.Split`).
pub fn split_image(image: &str) -> (String, String, String) {
    let slash = image.find('/').filter(|&i| i > 0).unwrap_or(0);
    let search = &image[slash..];
    let id = search.find('@');
    let ic = search.find(':');
    match (ic, id) {
        (None, None) => (image.to_string(), String::new(), String::new()),
        (ic, Some(id)) if ic.is_none_or(|c| id < c) => {
            let id = id + slash;
            (
                image[..id].to_string(),
                String::new(),
                image[id + 1..].to_string(),
            )
        }
        (Some(ic), Some(id)) => {
            let (ic, id) = (ic + slash, id + slash);
            (
                image[..ic].to_string(),
                image[ic + 1..id].to_string(),
                image[id + 1..].to_string(),
            )
        }
        (Some(ic), None) => {
            let ic = ic + slash;
            (
                image[..ic].to_string(),
                image[ic + 1..].to_string(),
                String::new(),
            )
        }
        (None, Some(_)) => unreachable!("handled above"),
    }
}

#[derive(Debug, Clone)]
struct ImageRule {
    new_name: String,
    new_tag: String,
    tag_suffix: String,
    digest: String,
    matcher: Option<std::rc::Rc<regex::Regex>>,
}

impl ImageRule {
    /// kustomize's `imageTagUpdater.SetImageValue`.
    fn apply(&self, value: &str) -> Option<String> {
        if !self.matcher.as_ref()?.is_match(value) {
            return None;
        }
        let (mut name, mut tag, mut digest) = split_image(value);
        if !self.new_name.is_empty() {
            name = self.new_name.clone();
        }
        if !self.new_tag.is_empty() && !self.digest.is_empty() {
            tag = self.new_tag.clone();
            digest = self.digest.clone();
        } else if !self.new_tag.is_empty() {
            tag = self.new_tag.clone();
            digest.clear();
        } else if !self.digest.is_empty() {
            tag.clear();
            digest = self.digest.clone();
        } else if !self.tag_suffix.is_empty() {
            tag.push_str(&self.tag_suffix);
            digest.clear();
        }
        if !tag.is_empty() {
            name = format!("{name}:{tag}");
        }
        if !digest.is_empty() {
            name = format!("{name}@{digest}");
        }
        Some(name)
    }

    /// Updates the image; whether it changed. kyaml's `SetScalar` puts an
    /// untagged scalar in its place (with the old style).
    fn update(&self, image: &mut Node) -> Result<bool, String> {
        fieldspec::expect_scalar(image)?;
        let text = crate::yaml::node_text(image);
        match self.apply(&text) {
            Some(new) => {
                *image = Node::Str(new);
                Ok(true)
            }
            None => Ok(false),
        }
    }
}

/// The legacy image filter: every `containers`/`initContainers` list
/// anywhere in the object (nested ones first).
fn update_images(node: &mut Node, rule: &ImageRule) -> Result<(), String> {
    match node {
        Node::Map(m) => {
            for (k, v) in m.iter_mut() {
                update_images(v, rule)?;
                if (k == "containers" || k == "initContainers")
                    && let Node::Seq(items) = v
                {
                    for c in items.iter_mut() {
                        match c {
                            Node::Map(cm) => {
                                if let Some(img) = cm.get_mut("image")
                                    && !img.is_null()
                                    && rule.update(img)?
                                {
                                    cm.set_tagless("image", true);
                                }
                            }
                            Node::Null => {}
                            other => {
                                return Err(format!(
                                    "wrong node kind: expected MappingNode but got {}",
                                    other.kind_name()
                                ));
                            }
                        }
                    }
                }
            }
            Ok(())
        }
        Node::Seq(items) => {
            for it in items.iter_mut() {
                update_images(it, rule)?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// `ImageTagTransformer`: one image rule (`imageTag`) and its field specs.
/// kustomize runs the legacy filter, then the field-spec filter: an image
/// in a standard place is updated twice, which only shows with
/// `tagSuffix`. Neither touches a CustomResourceDefinition.
#[derive(Debug, Clone)]
pub struct ImageTagTransformer {
    rule: ImageRule,
    pub field_specs: Vec<FieldSpec>,
}

impl ImageTagTransformer {
    /// An `images:` entry (a `types.Image`) and field specs.
    pub fn new(item: &Node, field_specs: Vec<FieldSpec>) -> Result<Self, String> {
        let s = |key: &str| -> Result<String, String> {
            match item.get(key) {
                None | Some(Node::Null) => Ok(String::new()),
                Some(Node::Str(s)) => Ok(s.clone()),
                Some(n) if n.is_scalar() => Ok(n.scalar_text().unwrap_or_default()),
                Some(_) => Err(format!("image '{key}' must be a string")),
            }
        };
        let name = s("name")?;
        Ok(ImageTagTransformer {
            rule: ImageRule {
                // Go's syntax, as kustomize compiles it.
                matcher: crate::goregex::compile(&format!(
                    "^{name}(:[a-zA-Z0-9_.{{}}-]*)?(@sha256:[a-zA-Z0-9_.{{}}-]*)?$"
                ))
                .ok(),
                new_name: s("newName")?,
                new_tag: s("newTag")?,
                tag_suffix: s("tagSuffix")?,
                digest: s("digest")?,
            },
            field_specs,
        })
    }

    /// Replaces the new name the rule writes.
    pub fn set_new_name(&mut self, name: &str) {
        self.rule.new_name = name.to_string();
    }

    /// Reads `imageTag` and `fieldSpecs`.
    pub fn from_config(c: &Config) -> Result<Self, String> {
        let empty = Node::map();
        ImageTagTransformer::new(c.get("imageTag").unwrap_or(&empty), c.field_specs()?)
    }

    pub fn apply(&self, m: &mut ResMap) -> Result<(), Error> {
        let rule = &self.rule;
        for r in m.iter_mut() {
            if r.kind() == "CustomResourceDefinition" {
                continue;
            }
            update_images(&mut r.obj, rule).map_err(|e| Error::msg(format!("images: {e}")))?;
        }
        for r in m.iter_mut() {
            if r.kind() == "CustomResourceDefinition" {
                continue;
            }
            for fs in &self.field_specs {
                let spec = FieldSpec {
                    create: false,
                    ..*fs
                };
                let mut set = Vec::new();
                fieldspec::apply_to_resource(r, &spec, None, &mut |at, n| {
                    if rule.update(n)? {
                        set.push(at.to_vec());
                    }
                    Ok(())
                })?;
                for at in set {
                    if let Some((PathElem::Key(key), parent)) = at.split_last()
                        && let Some(Node::Map(pm)) = node_at_mut(&mut r.obj, parent)
                    {
                        pm.set_tagless(key, true);
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_split() {
        assert_eq!(
            split_image("registry:5000/app:1.2"),
            ("registry:5000/app".into(), "1.2".into(), "".into())
        );
        assert_eq!(
            split_image("nginx@sha256:abc"),
            ("nginx".into(), "".into(), "sha256:abc".into())
        );
        assert_eq!(
            split_image("a/b:1@sha256:abc"),
            ("a/b".into(), "1".into(), "sha256:abc".into())
        );
    }
}
