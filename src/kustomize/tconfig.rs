//! The field-spec tables the builtin transformers use (kustomize's
//! `builtinconfig.TransformerConfig`): kustomize's defaults plus what
//! `configurations:` files add.
//!
//! Facts from kustomize v5.5.0 (`api/internal/plugins/builtinconfig`,
//! `api/internal/accumulator`, `api/internal/target/kusttarget.go`):
//! - each kustomization's table is the default one merged with its
//!   `configurations:` files (read with `yaml.UnmarshalStrict`: an unknown
//!   field fails the build), merged into the accumulator after its
//!   resources;
//! - an accumulator takes the tables of the kustomizations it accumulates
//!   (`MergeAccumulator`), so a `configurations:` file of a base also
//!   applies to the overlays above it, and the top-level table drives the
//!   final name-reference fix; a component shares its parent's accumulator;
//! - merging a field spec skips one already present (same path, the
//!   present one's GVK selected by the new one's) and fails with
//!   `conflicting fieldspecs` when the two disagree on `create`;
//!   name-reference entries with the same GVK merge their referrers.
//!
//! The defaults are kept as static tables; a table only holds what the
//! configurations add.

use std::borrow::Cow;

use crate::resource::Gvk;
use crate::yaml::Node;

use super::Error;
use super::build::Loader;
use super::fieldspecs::{self, FieldSpec, NAME_REFERENCE};

/// The field-spec lists of a transformer configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    NamePrefix,
    NameSuffix,
    Namespace,
    CommonLabels,
    Labels,
    TemplateLabels,
    CommonAnnotations,
    VarReference,
    Images,
    Replicas,
}

const TABLES: [(Table, &str); 10] = [
    (Table::NamePrefix, "namePrefix"),
    (Table::NameSuffix, "nameSuffix"),
    (Table::Namespace, "namespace"),
    (Table::CommonLabels, "commonLabels"),
    (Table::Labels, "labels"),
    (Table::TemplateLabels, "templateLabels"),
    (Table::CommonAnnotations, "commonAnnotations"),
    (Table::VarReference, "varReference"),
    (Table::Images, "images"),
    (Table::Replicas, "replicas"),
];

impl Table {
    fn index(self) -> usize {
        TABLES.iter().position(|(t, _)| *t == self).expect("table")
    }

    /// kustomize's default field specs for this table.
    pub fn defaults(self) -> &'static [FieldSpec] {
        match self {
            Table::NamePrefix => fieldspecs::NAME_PREFIX,
            Table::NameSuffix => fieldspecs::NAME_SUFFIX,
            Table::Namespace => fieldspecs::NAMESPACE,
            Table::CommonLabels => fieldspecs::COMMON_LABELS,
            Table::Labels => &[],
            Table::TemplateLabels => fieldspecs::TEMPLATE_LABELS,
            Table::CommonAnnotations => fieldspecs::COMMON_ANNOTATIONS,
            Table::VarReference => fieldspecs::VAR_REFERENCE,
            Table::Images => fieldspecs::IMAGES,
            Table::Replicas => fieldspecs::REPLICAS,
        }
    }
}

/// A referral target and the fields naming it, added by a configuration.
#[derive(Debug, Clone)]
pub struct NameRef {
    pub gvk: Gvk,
    pub referrers: Vec<FieldSpec>,
}

/// One name-reference entry: the default one (with what configurations
/// added to it) or a new one.
pub struct NameRefEntry<'a> {
    pub gvk: Gvk,
    pub referrers: Cow<'a, [FieldSpec]>,
}

/// kustomize's defaults plus what `configurations:` files added.
#[derive(Debug, Clone, Default)]
pub struct TransformerConfig {
    extra: [Vec<FieldSpec>; 10],
    extra_names: Vec<NameRef>,
}

/// `FieldSpec.effectivelyEquals`: the same path, `present`'s GVK selected
/// by `new`'s.
fn same_spec(present: &FieldSpec, new: &FieldSpec) -> bool {
    present.path == new.path
        && Gvk {
            group: present.group.into(),
            version: present.version.into(),
            kind: present.kind.into(),
        }
        .is_selected_by(new.group, new.version, new.kind)
}

/// `FsSlice.MergeOne` over `base` followed by `extra`: appends `fs` to
/// `extra` unless it is already present.
pub fn merge_one(
    base: &[FieldSpec],
    extra: &mut Vec<FieldSpec>,
    fs: FieldSpec,
) -> Result<(), String> {
    match base.iter().chain(extra.iter()).find(|p| same_spec(p, &fs)) {
        Some(p) if p.create != fs.create => Err(format!(
            "conflicting fieldspecs ('{}' is already listed with create: {})",
            fs.path, p.create
        )),
        Some(_) => Ok(()),
        None => {
            extra.push(fs);
            Ok(())
        }
    }
}

fn gvk_of(group: &str, version: &str, kind: &str) -> Gvk {
    Gvk {
        group: group.into(),
        version: version.into(),
        kind: kind.into(),
    }
}

impl TransformerConfig {
    /// The field specs of one table.
    pub fn specs(&self, t: Table) -> Cow<'_, [FieldSpec]> {
        let extra = &self.extra[t.index()];
        if extra.is_empty() {
            Cow::Borrowed(t.defaults())
        } else {
            let mut v = t.defaults().to_vec();
            v.extend_from_slice(extra);
            Cow::Owned(v)
        }
    }

    /// Whether nothing was added to kustomize's defaults.
    pub fn is_default(&self) -> bool {
        self.extra.iter().all(Vec::is_empty) && self.extra_names.is_empty()
    }

    /// The name-reference table, in kustomize's order.
    pub fn name_references(&self) -> Vec<NameRefEntry<'_>> {
        let mut out: Vec<NameRefEntry> = NAME_REFERENCE
            .iter()
            .map(|b| NameRefEntry {
                gvk: gvk_of(b.group, b.version, b.kind),
                referrers: Cow::Borrowed(b.referrers),
            })
            .collect();
        for extra in &self.extra_names {
            match out.iter_mut().find(|e| e.gvk == extra.gvk) {
                Some(e) => e.referrers.to_mut().extend_from_slice(&extra.referrers),
                None => out.push(NameRefEntry {
                    gvk: extra.gvk.clone(),
                    referrers: Cow::Owned(extra.referrers.clone()),
                }),
            }
        }
        out
    }

    /// Adds one field spec to a table.
    pub fn add(&mut self, t: Table, fs: FieldSpec) -> Result<(), String> {
        merge_one(t.defaults(), &mut self.extra[t.index()], fs).map_err(|e| {
            // kustomize's names for the tables in this message.
            let name = match t {
                Table::Namespace => "NameSpace".to_string(),
                other => format!("{other:?}"),
            };
            format!("failed to merge {name} fieldSpec: {e}")
        })
    }

    /// Adds one name-reference entry (its referrers join those of an
    /// entry with the same GVK).
    pub fn add_name_reference(&mut self, nr: NameRef) -> Result<(), String> {
        let default: &[FieldSpec] = NAME_REFERENCE
            .iter()
            .find(|b| gvk_of(b.group, b.version, b.kind) == nr.gvk)
            .map(|b| b.referrers)
            .unwrap_or(&[]);
        let at = match self.extra_names.iter().position(|e| e.gvk == nr.gvk) {
            Some(i) => i,
            None => {
                self.extra_names.push(NameRef {
                    gvk: nr.gvk.clone(),
                    referrers: Vec::new(),
                });
                self.extra_names.len() - 1
            }
        };
        for fs in nr.referrers {
            merge_one(default, &mut self.extra_names[at].referrers, fs)
                .map_err(|e| format!("failed to merge NameReference fieldSpec: {e}"))?;
        }
        Ok(())
    }

    /// `TransformerConfig.Merge`.
    pub fn merge(&mut self, other: &TransformerConfig) -> Result<(), String> {
        for (t, _) in TABLES {
            for fs in &other.extra[t.index()] {
                self.add(t, *fs)?;
            }
        }
        for nr in &other.extra_names {
            self.add_name_reference(nr.clone())?;
        }
        Ok(())
    }

    /// The tables of a kustomization: the defaults and its
    /// `configurations:` files.
    pub fn load(paths: &[String], ldr: &Loader) -> Result<TransformerConfig, Error> {
        let mut cfg = TransformerConfig::default();
        for p in paths {
            let (file, text) = ldr.load(p)?;
            let one = parse(&text).map_err(|m| Error::at(&file, m))?;
            cfg.merge(&one).map_err(|m| Error::at(&file, m))?;
        }
        Ok(cfg)
    }
}

fn leak(s: &str) -> &'static str {
    // Field specs live for the whole process: the tables are shared by
    // every transformer of a build and their strings are small and bounded
    // by the input.
    Box::leak(s.to_string().into_boxed_str())
}

fn string_field(m: &crate::yaml::Map, key: &str, owner: &str) -> Result<&'static str, String> {
    match m.get(key) {
        None | Some(Node::Null) => Ok(""),
        Some(Node::Str(s)) => Ok(leak(s)),
        Some(other) => Err(format!(
            "json: cannot unmarshal {} into Go struct field {owner}.{key} of type string",
            other.json_kind()
        )),
    }
}

/// Go's `encoding/json` matches field names case-insensitively.
fn canonical<'a>(key: &str, known: &[&'a str]) -> Option<&'a str> {
    known
        .iter()
        .find(|k| **k == key)
        .or_else(|| known.iter().find(|k| k.eq_ignore_ascii_case(key)))
        .copied()
}

fn unknown(key: &str) -> String {
    format!("error unmarshaling JSON: while decoding JSON: json: unknown field \"{key}\"")
}

/// A `types.FieldSpec`; `strict` refuses unknown fields (configurations
/// files are read strictly, builtin plugin configurations are not).
pub fn parse_field_spec(n: &Node, owner: &str, strict: bool) -> Result<FieldSpec, String> {
    let Node::Map(m) = n else {
        return Err(format!(
            "json: cannot unmarshal {} into Go struct field {owner} of type types.FieldSpec",
            n.json_kind()
        ));
    };
    let mut fs = FieldSpec {
        group: "",
        version: "",
        kind: "",
        path: "",
        create: false,
    };
    for (k, v) in m.iter() {
        let Some(key) = canonical(k, &["group", "version", "kind", "path", "create"]) else {
            if strict {
                return Err(unknown(k));
            }
            continue;
        };
        match key {
            "create" => {
                fs.create = match v {
                    Node::Bool(b) => *b,
                    Node::Null => false,
                    other => {
                        return Err(format!(
                            "json: cannot unmarshal {} into Go struct field FieldSpec.create of type bool",
                            other.json_kind()
                        ));
                    }
                }
            }
            _ => {
                let mut one = crate::yaml::Map::new();
                one.insert(key, v.clone());
                let s = string_field(&one, key, "FieldSpec")?;
                match key {
                    "group" => fs.group = s,
                    "version" => fs.version = s,
                    "kind" => fs.kind = s,
                    _ => fs.path = s,
                }
            }
        }
    }
    Ok(fs)
}

/// A list of field specs (`[]types.FieldSpec`); null is an empty list.
pub fn parse_field_specs(
    n: Option<&Node>,
    owner: &str,
    strict: bool,
) -> Result<Vec<FieldSpec>, String> {
    match n {
        None | Some(Node::Null) => Ok(Vec::new()),
        Some(Node::Seq(items)) => items
            .iter()
            .map(|it| parse_field_spec(it, owner, strict))
            .collect(),
        Some(other) => Err(format!(
            "json: cannot unmarshal {} into Go struct field {owner} of type []types.FieldSpec",
            other.json_kind()
        )),
    }
}

/// Reads one `configurations:` file.
pub fn parse(text: &str) -> Result<TransformerConfig, String> {
    let node = crate::yaml::parse::parse_stream_json_keys(text)
        .map_err(|e| format!("malformed YAML: {}", e.message))?
        .into_iter()
        .next()
        .map(|d| d.node)
        .unwrap_or(Node::Null);
    let mut cfg = TransformerConfig::default();
    let m = match node {
        Node::Map(m) => m,
        Node::Null => return Ok(cfg),
        other => {
            return Err(format!(
                "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {} into Go value of type builtinconfig.TransformerConfig",
                other.json_kind()
            ));
        }
    };
    let mut names: Vec<&str> = TABLES.iter().map(|(_, n)| *n).collect();
    names.push("nameReference");
    for (k, v) in m.iter() {
        let key = canonical(k, &names).ok_or(unknown(k))?;
        if key == "nameReference" {
            let items = match v {
                Node::Null => continue,
                Node::Seq(items) => items,
                other => {
                    return Err(format!(
                        "json: cannot unmarshal {} into Go struct field TransformerConfig.nameReference of type builtinconfig.nbrSlice",
                        other.json_kind()
                    ));
                }
            };
            for it in items {
                let Node::Map(im) = it else {
                    return Err(format!(
                        "json: cannot unmarshal {} into Go struct field TransformerConfig.nameReference of type builtinconfig.NameBackReferences",
                        it.json_kind()
                    ));
                };
                let mut gvk = Gvk::default();
                let mut referrers = Vec::new();
                for (ik, iv) in im.iter() {
                    let ikey = canonical(ik, &["group", "version", "kind", "fieldSpecs"])
                        .ok_or(unknown(ik))?;
                    match ikey {
                        "fieldSpecs" => {
                            referrers =
                                parse_field_specs(Some(iv), "NameBackReferences.fieldSpecs", true)?
                        }
                        _ => {
                            let mut one = crate::yaml::Map::new();
                            one.insert(ikey, iv.clone());
                            let s = string_field(&one, ikey, "NameBackReferences")?.to_string();
                            match ikey {
                                "group" => gvk.group = s,
                                "version" => gvk.version = s,
                                _ => gvk.kind = s,
                            }
                        }
                    }
                }
                cfg.add_name_reference(NameRef { gvk, referrers })?;
            }
            continue;
        }
        let (t, _) = TABLES.iter().find(|(_, n)| *n == key).expect("known");
        for fs in parse_field_specs(Some(v), &format!("TransformerConfig.{key}"), true)? {
            cfg.add(*t, fs)?;
        }
    }
    Ok(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_not_duplicated() {
        let mut c = parse("commonLabels:\n- path: metadata/labels\n  create: true\n").unwrap();
        assert!(c.is_default());
        c.merge(&parse("images:\n- kind: Foo\n  path: spec/image\n").unwrap())
            .unwrap();
        assert_eq!(c.specs(Table::Images).len(), fieldspecs::IMAGES.len() + 1);
    }

    #[test]
    fn conflicting_create_fails() {
        let e = parse("commonLabels:\n- path: metadata/labels\n  create: false\n").unwrap_err();
        assert!(e.contains("conflicting fieldspecs"), "{e}");
    }

    #[test]
    fn name_references_join_the_default_entry() {
        let c = parse(
            "nameReference:\n- kind: ConfigMap\n  version: v1\n  fieldSpecs:\n  - kind: HelmRelease\n    path: spec/valuesFrom/name\n",
        )
        .unwrap();
        let refs = c.name_references();
        let cm = refs
            .iter()
            .find(|e| e.gvk.kind == "ConfigMap")
            .expect("ConfigMap entry");
        assert!(
            cm.referrers
                .iter()
                .any(|f| f.kind == "HelmRelease" && f.path == "spec/valuesFrom/name")
        );
        assert_eq!(refs.len(), NAME_REFERENCE.len());
    }

    #[test]
    fn unknown_field_fails() {
        assert!(
            parse("nameReferences: []\n")
                .unwrap_err()
                .contains("unknown field")
        );
    }
}
