//! Name references: after prefixes, suffixes and hashes renamed objects,
//! every field that refers to them by name (kustomize's nameReference
//! table) gets the new name. Candidate selection follows kustomize's
//! `api/filters/nameref`: previous names, the referral kind, roleRef kinds,
//! namespaces, then prefixes/suffixes to break ties. The candidates are the
//! objects the referrer could refer to (`SubsetThatCouldBeReferencedByResource`),
//! the referrer itself among them: an object can name itself.

use std::collections::HashSet;

use crate::resource::{Gvk, ResId, ResMap, Resource, node_at_mut};
use crate::yaml::Node;

use super::Error;
use super::fieldspec::{self, StandIn, has_build_annotations, split_path};
use super::fieldspecs::{FieldSpec, NAME_REFERENCE};
use super::tconfig::{NameRef, TransformerConfig};

fn has_field(node: &Node, path: &[String]) -> bool {
    if path.is_empty() {
        return true;
    }
    match node {
        Node::Map(m) => {
            let key = path[0].trim_end_matches("[]");
            m.get(key).is_some_and(|v| has_field(v, &path[1..]))
        }
        Node::Seq(s) => s.iter().any(|x| has_field(x, path)),
        _ => false,
    }
}

fn could_reference(referrer: &Resource, target: &Resource) -> bool {
    let rid = referrer.cur_id();
    if rid.gvk.is_cluster_scoped() {
        return true;
    }
    let tid = target.cur_id();
    if tid.gvk.is_cluster_scoped() || tid.effective_namespace() == rid.effective_namespace() {
        return true;
    }
    if referrer.kind() == "RoleBinding"
        && let Some(Node::Seq(subjects)) = referrer.obj.get("subjects")
    {
        return subjects.iter().any(|s| {
            s.get_str(&["kind"]) == Some("ServiceAccount")
                && s.get_str(&["namespace"]) == Some(target.namespace())
        });
    }
    false
}

/// kustomize's message for a list element that is neither a scalar nor a
/// map (it prints the Go value of the node).
fn not_string_or_map(n: &Node) -> String {
    format!(
        "{} is expected to be either a string or a map of string",
        crate::yaml::to_string(n).trim_end()
    )
}

/// The failures of kustomize's name reference setter that do not depend on
/// the candidates: a map without a `name` field (a path that does not end
/// at a name), a list holding a list. kustomize runs the setter on every
/// field a name reference spec reaches, renamed objects or not.
fn check_shape(node: &Node) -> Result<(), String> {
    let no_name = |m: &crate::yaml::Map| {
        if m.contains_key("name") {
            Ok(())
        } else {
            Err("path config error; no 'name' field in node".to_string())
        }
    };
    match node {
        Node::Map(m) => no_name(m),
        Node::Seq(items) => {
            for it in items {
                match it {
                    Node::Map(m) => no_name(m)?,
                    Node::Seq(_) => return Err(not_string_or_map(it)),
                    _ => {}
                }
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

struct Ctx<'a> {
    /// Set when `set_scalar` rewrote the field it was given.
    changed: std::cell::Cell<bool>,
    all: &'a [Resource],
    candidates: Vec<usize>,
    referrer: &'a Resource,
    /// The referrer's index in `all` (where its object is taken out): it
    /// is a candidate too, read from `referrer`.
    this: usize,
    target: Gvk,
    fs: &'a FieldSpec,
}

impl Ctx<'_> {
    fn res(&self, i: usize) -> &Resource {
        if i == self.this {
            self.referrer
        } else {
            &self.all[i]
        }
    }

    fn select(
        &self,
        old_name: &str,
        cands: &[usize],
        by_ns: bool,
    ) -> Result<Option<usize>, String> {
        let mut c: Vec<usize> = cands
            .iter()
            .copied()
            .filter(|&i| self.res(i).prev_ids.iter().any(|id| id.name == old_name))
            .filter(|&i| {
                self.res(i).prev_ids.iter().any(|id| {
                    id.gvk.is_selected_by(
                        &self.target.group,
                        &self.target.version,
                        &self.target.kind,
                    )
                })
            })
            .collect();
        if self.fs.path.ends_with("roleRef/name") {
            let g = self.referrer.obj.get_str(&["roleRef", "apiGroup"]);
            let k = self.referrer.obj.get_str(&["roleRef", "kind"]);
            if let (Some(g), Some(k)) = (g, k) {
                c.retain(|&i| {
                    self.res(i)
                        .prev_ids
                        .iter()
                        .any(|id| id.gvk.is_selected_by(g, "", k))
                });
            }
        }
        let rid = self.referrer.cur_id();
        if !rid.gvk.is_cluster_scoped() {
            c.retain(|&i| {
                let t = self.res(i).cur_id();
                t.gvk.is_cluster_scoped()
                    || self.res(i).kind() == "ServiceAccount"
                    || t.effective_namespace() == rid.effective_namespace()
            });
        }
        if c.len() == 1 {
            return Ok(Some(c[0]));
        }
        c.retain(|&i| self.res(i).prefixes_suffixes_equal(self.referrer, true));
        if c.len() > 1 {
            c.retain(|&i| self.res(i).prefixes_suffixes_equal(self.referrer, false));
        }
        match c.len() {
            0 => Ok(None),
            1 => Ok(Some(c[0])),
            _ => {
                let first = self.res(c[0]);
                let same = c.iter().all(|&i| {
                    self.res(i).name() == first.name()
                        && (!by_ns || self.res(i).namespace() == first.namespace())
                });
                if same {
                    Ok(Some(c[0]))
                } else {
                    let ids: Vec<String> = c
                        .iter()
                        .map(|&i| self.res(i).cur_id().to_string())
                        .collect();
                    Err(format!(
                        "found multiple possible referrals: {}",
                        ids.join(", ")
                    ))
                }
            }
        }
    }

    fn set(&self, node: &mut Node) -> Result<(), String> {
        match node {
            Node::Null => Ok(()),
            Node::Str(_) => self.set_scalar(node),
            Node::Map(_) => self.set_mapping(node),
            Node::Seq(items) => {
                for it in items.iter_mut() {
                    match it {
                        Node::Map(_) => self.set_mapping(it)?,
                        Node::Seq(_) => return Err(not_string_or_map(it)),
                        _ if it.is_scalar() && !it.is_null() => {
                            // kyaml matches the element's text.
                            let orig = it.clone();
                            let old = crate::yaml::node_text(&orig);
                            *it = Node::Str(old.clone());
                            self.set_scalar(it)?;
                            // An untagged scalar replaces the element (a list
                            // item keeps no flag: its text is read as YAML
                            // right away, `9090` becoming a number).
                            match it {
                                Node::Str(new) if *new != old => {
                                    *it = crate::yaml::resolve::resolve_plain(
                                        new,
                                        crate::yaml::resolve::Schema::V3,
                                    );
                                }
                                _ => *it = orig,
                            }
                        }
                        _ => {}
                    }
                }
                Ok(())
            }
            // Another scalar (a number, a bool) is matched by its text; a
            // new name replaces it as an untagged scalar.
            _ => {
                let mut text = Node::Str(crate::yaml::node_text(node));
                self.set_scalar(&mut text)?;
                if self.changed.get() {
                    *node = text;
                }
                Ok(())
            }
        }
    }

    fn set_scalar(&self, node: &mut Node) -> Result<(), String> {
        let Some(old) = node.as_str().map(str::to_string) else {
            return Ok(());
        };
        if let Some(i) = self.select(&old, &self.candidates, false)? {
            let new = self.res(i).name();
            if new != old {
                *node = Node::str(new);
                self.changed.set(true);
            }
        }
        Ok(())
    }

    fn set_mapping(&self, node: &mut Node) -> Result<(), String> {
        check_shape(node)?;
        // kyaml's FieldMatcher finds a `name` of any kind; its text is the
        // old name.
        let old = node
            .as_map()
            .and_then(|m| m.scalar_source_text("name"))
            .unwrap_or_default();
        let cands: Vec<usize> = match node.get_str(&["namespace"]) {
            None => self.candidates.clone(),
            Some(ns) => {
                let by_org: Vec<usize> = self
                    .candidates
                    .iter()
                    .copied()
                    .filter(|&i| {
                        self.res(i).org_id().namespace == ns
                            || (self.res(i).prev_ids.is_empty() && self.res(i).namespace() == ns)
                    })
                    .collect();
                if !by_org.is_empty() {
                    by_org
                } else {
                    self.candidates
                        .iter()
                        .copied()
                        .filter(|&i| self.res(i).namespace() == ns)
                        .collect()
                }
            }
        };
        let Some(i) = self.select(&old, &cands, true)? else {
            return Ok(());
        };
        let r = self.res(i);
        if r.name() == old && r.namespace().is_empty() {
            return Ok(());
        }
        // kyaml writes untagged scalars (FieldSetter with StringValue).
        let m = node.as_map_mut().expect("map");
        crate::resource::set_untagged(m, "name", r.name());
        if !r.namespace().is_empty() {
            crate::resource::set_untagged(m, "namespace", r.namespace());
        }
        Ok(())
    }
}

/// kustomize lists, for every RoleBinding holding a name reference, the
/// namespaces of its ServiceAccount subjects; a subject whose `namespace`
/// is present but not a string (`namespace:` left blank) stops the build.
fn check_role_binding_subjects(m: &ResMap) -> Result<(), Error> {
    for r in m.iter() {
        if r.kind() != "RoleBinding" {
            continue;
        }
        let org = r.org_id();
        let holds_reference = NAME_REFERENCE.iter().any(|back| {
            back.referrers.iter().any(|fs| {
                org.gvk.is_selected_by(fs.group, fs.version, fs.kind)
                    && has_field(&r.obj, &split_path(fs.path))
            })
        });
        let Some(Node::Seq(subjects)) = r.obj.get("subjects") else {
            continue;
        };
        if !holds_reference {
            continue;
        }
        for s in subjects {
            let (Some(ns), Some(kind)) = (s.get("namespace"), s.get("kind")) else {
                continue;
            };
            if kind.as_str() == Some("ServiceAccount") && !matches!(ns, Node::Str(_)) {
                let msg = format!(
                    "Invalid Input: namespace is blank for resource \"{}\" (give the ServiceAccount subject a namespace or remove the key)",
                    r.cur_id()
                );
                return Err(match &r.origin.file {
                    Some(f) => Error {
                        file: Some(f.to_path_buf()),
                        line: (r.origin.line > 0).then_some(r.origin.line),
                        message: msg,
                    },
                    None => Error::msg(msg),
                });
            }
        }
    }
    Ok(())
}

/// Rewrites references to renamed objects, with the name-reference table
/// of `cfg` (the top-level accumulator's: kustomize's defaults and every
/// layer's `configurations:`) and what `crds` files added.
pub fn fix(m: &mut ResMap, cfg: &TransformerConfig) -> Result<(), Error> {
    check_role_binding_subjects(m)?;
    // Only resources that were renamed can be referral targets; without
    // them the fields are still visited, for kustomize's errors.
    let renamed = m.iter().any(|r| !r.prev_ids.is_empty());
    let org_ids: Vec<ResId> = m.resources.iter().map(Resource::org_id).collect();
    let count = m.resources.len();
    let mut done: HashSet<(usize, usize, usize)> = HashSet::new();
    // kustomize merges the references `crds` files add into its table (an
    // equal target gets more referrers, a new one is sorted in).
    let with_crds;
    let cfg = if m.crd_name_refs.is_empty() {
        cfg
    } else {
        let refs = m
            .crd_name_refs
            .iter()
            .map(|c| NameRef {
                gvk: Gvk {
                    group: String::new(),
                    version: c.target_version.into(),
                    kind: c.target_kind.into(),
                },
                referrers: vec![c.referrer],
            })
            .collect();
        let mut merged = cfg.clone();
        TransformerConfig::from_name_references(refs)
            .and_then(|crds| merged.merge(&crds))
            .map_err(|e| Error::msg(format!("merging CRDs: {e}")))?;
        with_crds = merged;
        &with_crds
    };
    let table = cfg.name_references();
    for (bi, back) in table.iter().enumerate() {
        let target = back.gvk.clone();
        for (fi, fs) in back.referrers.iter().enumerate() {
            let spec = FieldSpec {
                group: "",
                version: "",
                kind: "",
                path: fs.path,
                create: false,
            };
            for (ri, org) in org_ids.iter().enumerate() {
                if !org.gvk.is_selected_by(fs.group, fs.version, fs.kind) {
                    continue;
                }
                if !done.insert((bi, fi, ri)) {
                    continue;
                }
                let gvk = m.resources[ri].gvk();
                // The walk first only reads: kustomize's errors on the way
                // and at the fields (whatever was renamed), and whether
                // there is a field at all. The object's build annotations
                // stand in for `metadata/annotations`.
                let build = has_build_annotations(&m.resources[ri]);
                let stand_in = StandIn::put(&mut m.resources[ri].obj, build, fs.path);
                let mut reached = false;
                let probe = fieldspec::apply_at(
                    &mut m.resources[ri].obj,
                    &gvk,
                    &spec,
                    None,
                    &mut |_, n| {
                        reached = true;
                        check_shape(n)
                    },
                );
                if probe.is_err() || !reached || !renamed {
                    stand_in.take(&mut m.resources[ri].obj);
                    let id = m.resources[ri].cur_id();
                    probe.map_err(|e| {
                        e.context(format!(
                            "updating name reference in '{}' field of '{id}'",
                            fs.path
                        ))
                    })?;
                    continue;
                }
                // The referrer's object is taken out while the others are
                // read as candidates (no copy of the whole map).
                let referrer = m.resources[ri].clone();
                let mut obj = std::mem::replace(&mut m.resources[ri].obj, Node::Null);
                let all: &[Resource] = &m.resources;
                // kustomize's candidates include the referrer itself.
                let candidates: Vec<usize> = (0..count)
                    .filter(|&i| {
                        could_reference(&referrer, if i == ri { &referrer } else { &all[i] })
                    })
                    .collect();
                let ctx = Ctx {
                    changed: std::cell::Cell::new(false),
                    all,
                    candidates,
                    referrer: &referrer,
                    this: ri,
                    target: target.clone(),
                    fs,
                };
                let mut rewritten: Vec<Vec<crate::resource::PathElem>> = Vec::new();
                let walked = fieldspec::apply_at(&mut obj, &gvk, &spec, None, &mut |at, n| {
                    ctx.changed.set(false);
                    ctx.set(n)?;
                    if ctx.changed.get() {
                        rewritten.push(at.to_vec());
                    }
                    Ok(())
                });
                if let Err(e) = walked {
                    return Err(e.context(format!(
                        "updating name reference in '{}' field of '{}'",
                        fs.path,
                        referrer.cur_id()
                    )));
                }
                // A rewritten name is an untagged scalar (kyaml's FieldSetter
                // with a StringValue), keeping the field's style.
                for at in rewritten {
                    let Some((crate::resource::PathElem::Key(k), parent)) = at.split_last() else {
                        continue;
                    };
                    if let Some(Node::Map(pm)) = node_at_mut(&mut obj, parent)
                        && let Some(Node::Str(v)) = pm.get(k)
                    {
                        let v = v.clone();
                        crate::resource::set_untagged(pm, k, &v);
                    }
                }
                stand_in.take(&mut obj);
                m.resources[ri].obj = obj;
            }
        }
    }
    Ok(())
}
