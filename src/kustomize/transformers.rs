//! The builtin field transformers: namespace, name prefix/suffix, labels,
//! annotations, replicas and images.

use crate::resource::{Gvk, Link, PathElem, ResMap, node_at_mut};
use crate::yaml::Node;

use super::Error;
use super::fieldspec::{self, CreateKind};
use super::fieldspecs::{self, FieldSpec};
use super::kustfile::{Kustomization, node_str_map};

fn set_scalar(value: &str) -> impl FnMut(&mut Node) -> Result<(), String> + '_ {
    move |n: &mut Node| {
        *n = Node::Str(value.to_string());
        Ok(())
    }
}

/// `namespace:`
pub fn namespace(k: &Kustomization, m: &mut ResMap) -> Result<(), Error> {
    let Some(ns) = k.str_field("namespace")? else {
        return Ok(());
    };
    if ns.is_empty() {
        return Ok(());
    }
    for i in 0..m.resources.len() {
        let r = &mut m.resources[i];
        r.store_previous_id();
        let gvk = r.gvk();
        let api_version = r.api_version().to_string();
        if !gvk.is_cluster_scoped() {
            r.set_namespace(&ns);
        }
        let is_rb = gvk.kind == "RoleBinding" || gvk.kind == "ClusterRoleBinding";
        if is_rb && let Some(Node::Seq(subjects)) = r.obj.get_mut("subjects") {
            for s in subjects.iter_mut() {
                if let Node::Map(sm) = s
                    && sm.get("name").and_then(Node::as_str) == Some("default")
                {
                    sm.insert("namespace", Node::str(ns.clone()));
                }
            }
        }
        for fs in fieldspecs::NAMESPACE {
            if fs.path == "metadata/namespace"
                || (fs.path == "metadata/name" && api_version != "v1")
            {
                continue;
            }
            if is_rb && fs.path == "subjects/namespace" {
                continue;
            }
            fieldspec::apply(
                &mut r.obj,
                &gvk,
                fs,
                Some(CreateKind::Scalar),
                &mut set_scalar(&ns),
            )?;
        }
        let id = m.resources[i].cur_id();
        let n = m
            .resources
            .iter()
            .filter(|x| x.name() == id.name && x.kind() == id.gvk.kind && x.cur_id().equals(&id))
            .count();
        if n != 1 {
            return Err(k.err(format!(
                "namespace transformation produces ID conflict: {id}"
            )));
        }
    }
    Ok(())
}

fn skip_prefix_suffix(gvk: &Gvk) -> bool {
    gvk.kind == "CustomResourceDefinition"
        || (gvk.group == "apiregistration.k8s.io" && gvk.kind == "APIService")
        || gvk.kind == "Namespace"
}

/// `namePrefix:` then `nameSuffix:`
pub fn prefix_suffix(k: &Kustomization, m: &mut ResMap) -> Result<(), Error> {
    for (field, specs, is_prefix) in [
        ("namePrefix", fieldspecs::NAME_PREFIX, true),
        ("nameSuffix", fieldspecs::NAME_SUFFIX, false),
    ] {
        let Some(affix) = k.str_field(field)? else {
            continue;
        };
        if affix.is_empty() {
            continue;
        }
        for r in m.iter_mut() {
            let org = r.org_id();
            if skip_prefix_suffix(&org.gvk) {
                continue;
            }
            for fs in specs {
                if !org.gvk.is_selected_by(fs.group, fs.version, fs.kind) {
                    continue;
                }
                if fs.path == "metadata/name" {
                    // kustomize appends each layer's affix to a list (an
                    // empty one is not recorded).
                    if affix.is_empty() {
                    } else if is_prefix {
                        r.prefixes.push(affix.clone());
                    } else {
                        r.suffixes.push(affix.clone());
                    }
                    r.store_previous_id();
                }
                let gvk = r.gvk();
                let mut setter = |n: &mut Node| {
                    let cur = n.scalar_text().unwrap_or_default();
                    *n = Node::Str(if is_prefix {
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
    }
    Ok(())
}

fn apply_map_entries(
    m: &mut ResMap,
    pairs: &[(String, String)],
    specs: &[FieldSpec],
) -> Result<(), Error> {
    if pairs.is_empty() {
        return Ok(());
    }
    for r in m.iter_mut() {
        let gvk = r.gvk();
        // Where each key is added: kustomize adds one shared value node.
        let mut added: Vec<Vec<Vec<PathElem>>> = vec![Vec::new(); pairs.len()];
        for fs in specs {
            fieldspec::apply_at(&mut r.obj, &gvk, fs, Some(CreateKind::Map), &mut |at, n| {
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
                    value: Node::Str(pairs[i].1.clone()),
                });
            }
        }
    }
    Ok(())
}

/// Merges field specs, skipping one already covered (same path, selected).
fn merge_specs(base: &mut Vec<FieldSpec>, more: &[FieldSpec]) {
    for fs in more {
        let dup = base.iter().any(|b| {
            b.path == fs.path
                && Gvk {
                    group: fs.group.into(),
                    version: fs.version.into(),
                    kind: fs.kind.into(),
                }
                .is_selected_by(b.group, b.version, b.kind)
        });
        if !dup {
            base.push(*fs);
        }
    }
}

fn leak(s: String) -> &'static str {
    // Field specs from kustomization files live for the whole build; the
    // few bytes are intentionally kept (they are small and bounded by input).
    Box::leak(s.into_boxed_str())
}

/// `labels:` and `commonLabels:`
pub fn labels(k: &Kustomization, m: &mut ResMap) -> Result<(), Error> {
    for item in k.list("labels")? {
        let pairs =
            node_str_map(item.get("pairs")).map_err(|e| k.err(format!("labels.pairs: {e}")))?;
        let include_selectors = item
            .get("includeSelectors")
            .and_then(Node::as_bool)
            .unwrap_or(false);
        let include_templates = item
            .get("includeTemplates")
            .and_then(Node::as_bool)
            .unwrap_or(false);
        let mut specs: Vec<FieldSpec> = Vec::new();
        if let Some(Node::Seq(fields)) = item.get("fields") {
            for f in fields {
                specs.push(FieldSpec {
                    group: leak(f.get_str(&["group"]).unwrap_or("").to_string()),
                    version: leak(f.get_str(&["version"]).unwrap_or("").to_string()),
                    kind: leak(f.get_str(&["kind"]).unwrap_or("").to_string()),
                    path: leak(f.get_str(&["path"]).unwrap_or("").to_string()),
                    create: f.get("create").and_then(Node::as_bool).unwrap_or(false),
                });
            }
        }
        if include_selectors {
            merge_specs(&mut specs, fieldspecs::COMMON_LABELS);
        } else {
            if include_templates {
                merge_specs(&mut specs, fieldspecs::TEMPLATE_LABELS);
            }
            merge_specs(
                &mut specs,
                &[FieldSpec {
                    group: "",
                    version: "",
                    kind: "",
                    path: "metadata/labels",
                    create: true,
                }],
            );
        }
        apply_map_entries(m, &pairs, &specs)?;
    }
    let common = k.str_map("commonLabels")?;
    apply_map_entries(m, &common, fieldspecs::COMMON_LABELS)
}

/// `commonAnnotations:`
pub fn annotations(k: &Kustomization, m: &mut ResMap) -> Result<(), Error> {
    let pairs = k.str_map("commonAnnotations")?;
    apply_map_entries(m, &pairs, fieldspecs::COMMON_ANNOTATIONS)
}

/// `replicas:`
pub fn replicas(k: &Kustomization, m: &mut ResMap) -> Result<(), Error> {
    for item in k.list("replicas")? {
        let name = item.get_str(&["name"]).unwrap_or("").to_string();
        let count = match item.get("count") {
            Some(n) => n
                .as_i64()
                .ok_or_else(|| k.err("replicas.count must be an integer"))?,
            None => 0,
        };
        let mut found = false;
        for fs in fieldspecs::REPLICAS {
            for r in m.iter_mut() {
                let ids = std::iter::once(r.cur_id()).chain(r.prev_ids.iter().cloned());
                let hit = ids.into_iter().any(|id| {
                    id.name == name && id.gvk.is_selected_by(fs.group, fs.version, fs.kind)
                });
                if !hit {
                    continue;
                }
                found = true;
                let gvk = r.gvk();
                let mut set: Vec<Vec<PathElem>> = Vec::new();
                fieldspec::apply_at(
                    &mut r.obj,
                    &gvk,
                    fs,
                    Some(CreateKind::Scalar),
                    &mut |at, n| {
                        *n = Node::Int(count);
                        set.push(at.to_vec());
                        Ok(())
                    },
                )?;
                // The field keeps its style: written quoted, the count is a
                // string.
                for at in set {
                    if let Some((PathElem::Key(key), parent)) = at.split_last()
                        && let Some(Node::Map(pm)) = node_at_mut(&mut r.obj, parent)
                    {
                        // The node now holds a readable count.
                        pm.set_bad_tag(key, None);
                        if pm.is_quoted(key) {
                            pm.insert(key.clone(), Node::Str(count.to_string()));
                            pm.set_quoted(key, true);
                        }
                    }
                }
            }
        }
        if !found {
            return Err(k.err(format!(
                "resource with name {name} does not match a config with the following GVK [Deployment.[noVer].[noGrp] ReplicationController.[noVer].[noGrp] ReplicaSet.[noVer].[noGrp] StatefulSet.[noVer].[noGrp]]"
            )));
        }
    }
    Ok(())
}

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

struct ImageRule {
    new_name: String,
    new_tag: String,
    tag_suffix: String,
    digest: String,
    matcher: Option<regex::Regex>,
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
        if !image.is_scalar() {
            return Err(format!(
                "wrong node kind: expected ScalarNode but got {}",
                image.kind_name()
            ));
        }
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

/// `images:` (kustomize runs the legacy filter, then the field-spec filter:
/// an image in a standard place is updated twice, which only shows with
/// `tagSuffix`). Neither touches a CustomResourceDefinition.
pub fn images(k: &Kustomization, m: &mut ResMap) -> Result<(), Error> {
    for item in k.list("images")? {
        let s = |key: &str| {
            item.get(key)
                .and_then(Node::scalar_text)
                .unwrap_or_default()
        };
        let name = s("name");
        let rule = ImageRule {
            matcher: regex::Regex::new(&format!(
                "^{name}(:[a-zA-Z0-9_.{{}}-]*)?(@sha256:[a-zA-Z0-9_.{{}}-]*)?$"
            ))
            .ok(),
            new_name: s("newName"),
            new_tag: s("newTag"),
            tag_suffix: s("tagSuffix"),
            digest: s("digest"),
        };
        for r in m.iter_mut() {
            if r.kind() == "CustomResourceDefinition" {
                continue;
            }
            update_images(&mut r.obj, &rule).map_err(|e| k.err(format!("images: {e}")))?;
        }
        for r in m.iter_mut() {
            if r.kind() == "CustomResourceDefinition" {
                continue;
            }
            let gvk = r.gvk();
            for fs in fieldspecs::IMAGES {
                let spec = FieldSpec {
                    create: false,
                    ..*fs
                };
                let mut set = Vec::new();
                fieldspec::apply_at(&mut r.obj, &gvk, &spec, None, &mut |at, n| {
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
    }
    Ok(())
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
