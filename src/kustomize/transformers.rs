//! The builtin transformers, one file each under `transformers/`: a
//! configured filter (its configuration type, read from a kustomization
//! field or from a builtin plugin configuration, and `apply`).
//!
//! As in kustomize (`api/internal/target/kusttarget_configplugin.go`), a
//! kustomization's fields are first translated into builtin configurations,
//! in one fixed order, and the `transformers:` entries (see `plugins`) are
//! read into the same configurations and run after them.

pub mod images;
pub mod labels;
pub mod namespace;
pub mod plugins;
pub mod prefix_suffix;
pub mod replicas;

use std::borrow::Cow;

use crate::resource::{ResMap, Resource};
use crate::yaml::Node;

use super::Error;
use super::build::Loader;
use super::fieldspecs::FieldSpec;
use super::kustfile::{Kustomization, node_str_map};
use super::origin::{self, Origin};
use super::tconfig::{self, Table, TransformerConfig};

pub use images::{ImageTagTransformer, split_image};
pub use labels::MapEntriesTransformer;
pub use namespace::NamespaceTransformer;
pub use prefix_suffix::PrefixSuffixTransformer;
pub use replicas::ReplicaCountTransformer;

/// A builtin plugin's configuration object, read as kustomize reads it
/// (`yaml.Unmarshal` into the plugin's struct: unknown fields are ignored,
/// field names match case-insensitively, a value of the wrong type fails).
#[derive(Debug, Clone)]
pub struct Config {
    pub node: Node,
}

/// A field of a map, its name matched as Go's `encoding/json` does.
fn get_ci<'a>(n: &'a Node, key: &str) -> Option<&'a Node> {
    let m = n.as_map()?;
    m.get(key).or_else(|| {
        m.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v)
    })
}

impl Config {
    pub fn kind(&self) -> &str {
        self.node.get_str(&["kind"]).unwrap_or("")
    }

    pub fn get(&self, key: &str) -> Option<&Node> {
        get_ci(&self.node, key)
    }

    /// A string field (missing or null: empty).
    pub fn str_at(&self, path: &[&str]) -> Result<String, String> {
        let mut n = &self.node;
        for p in path {
            match get_ci(n, p) {
                Some(v) => n = v,
                None => return Ok(String::new()),
            }
        }
        match n {
            Node::Null => Ok(String::new()),
            Node::Str(s) => Ok(s.clone()),
            other => Err(format!(
                "json: cannot unmarshal {} into Go struct field .{} of type string",
                other.json_kind(),
                path.join(".")
            )),
        }
    }

    pub fn bool_at(&self, key: &str) -> Result<bool, String> {
        match self.get(key) {
            None | Some(Node::Null) => Ok(false),
            Some(Node::Bool(b)) => Ok(*b),
            Some(other) => Err(format!(
                "json: cannot unmarshal {} into Go struct field .{key} of type bool",
                other.json_kind()
            )),
        }
    }

    pub fn str_map(&self, key: &str) -> Result<Vec<(String, String)>, String> {
        node_str_map(self.get(key)).map_err(|e| format!("{key}: {e}"))
    }

    /// `fieldSpecs`.
    pub fn field_specs(&self) -> Result<Vec<FieldSpec>, String> {
        tconfig::parse_field_specs(self.get("fieldSpecs"), "fieldSpecs", false)
    }
}

/// The kustomization fields whose transformers read files or run patches:
/// they keep the kustomization (or a builtin configuration turned into
/// one) as their configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    PatchesStrategicMerge,
    Patches,
    PatchesJson6902,
    Replacements,
}

/// One configured builtin transformer.
#[derive(Debug, Clone)]
pub enum Transformer<'a> {
    Namespace(NamespaceTransformer),
    PrefixSuffix(PrefixSuffixTransformer),
    Labels(MapEntriesTransformer),
    Annotations(MapEntriesTransformer),
    Replicas(ReplicaCountTransformer),
    Images(ImageTagTransformer),
    Field(Cow<'a, Kustomization>, Field),
    /// `HashTransformer`: hash suffixes on generated objects.
    Hash,
}

impl Transformer<'_> {
    pub fn apply(&self, ldr: &Loader, m: &mut ResMap) -> Result<(), Error> {
        match self {
            Transformer::Namespace(t) => t.apply(m),
            Transformer::PrefixSuffix(t) => t.apply(m),
            Transformer::Labels(t) | Transformer::Annotations(t) => t.apply(m),
            Transformer::Replicas(t) => t.apply(m),
            Transformer::Images(t) => t.apply(m),
            Transformer::Field(k, f) => match f {
                Field::PatchesStrategicMerge => super::patch::patches_strategic_merge(k, ldr, m),
                Field::Patches => super::patch::patches(k, ldr, m),
                Field::PatchesJson6902 => super::patch::patches_json6902(k, ldr, m),
                Field::Replacements => super::replacements::apply(k, ldr, m),
            },
            Transformer::Hash => super::generators::add_hashes(m),
        }
    }
}

/// A transformer where kustomize's pipeline has it: with its origin and
/// how many of kustomize's transformers it stands for (the
/// transformations recorded for `buildMetadata`).
#[derive(Debug, Clone)]
pub struct Step<'a> {
    pub transformer: Transformer<'a>,
    pub origin: Origin,
    pub records: usize,
}

/// Runs transformers in order. After each, fields kustomize shares between
/// maps (see `resource::Link`) take the value any of them was changed to;
/// with `track`, the transformer is recorded on every object.
pub fn run(list: &[Step], ldr: &Loader, m: &mut ResMap, track: bool) -> Result<(), Error> {
    for s in list {
        s.transformer.apply(ldr, m)?;
        m.iter_mut().for_each(Resource::sync_links);
        if track {
            for _ in 0..s.records {
                origin::record(m, &s.origin);
            }
        }
    }
    Ok(())
}

/// Field specs `more` merged into `base` (`FsSlice.MergeAll`).
fn merge_specs(base: &mut Vec<FieldSpec>, more: &[FieldSpec]) -> Result<(), String> {
    tconfig::merge_all(base, more).map_err(|c| c.to_string())
}

/// The builtin transformers a kustomization's fields configure, in
/// kustomize's order, with the field specs of `cfg`.
pub fn from_kustomization<'a>(
    k: &'a Kustomization,
    cfg: &TransformerConfig,
    configured_in: &str,
) -> Result<Vec<Step<'a>>, Error> {
    let mut list: Vec<(Transformer, &str, usize)> = Vec::new();
    let mut out = Vec::new();
    let has = |key: &str| k.get(key).is_some();
    let field = |f: Field| Transformer::Field(Cow::Borrowed(k), f);
    if has("patchesStrategicMerge") {
        list.push((
            field(Field::PatchesStrategicMerge),
            "PatchStrategicMergeTransformer",
            1,
        ));
    }
    if has("patches") {
        let n = k.list("patches")?.len();
        list.push((field(Field::Patches), "PatchTransformer", n));
    }
    if let Some(ns) = k.str_field("namespace")?
        && !ns.is_empty()
    {
        list.push((
            Transformer::Namespace(NamespaceTransformer {
                namespace: ns,
                field_specs: cfg.specs(Table::Namespace).into_owned(),
                unset_only: false,
                subjects: namespace::SubjectMode::DefaultOnly,
            }),
            "NamespaceTransformer",
            1,
        ));
    }
    for (key, table, is_prefix, kind) in [
        ("namePrefix", Table::NamePrefix, true, "PrefixTransformer"),
        ("nameSuffix", Table::NameSuffix, false, "SuffixTransformer"),
    ] {
        if let Some(affix) = k.str_field(key)?
            && !affix.is_empty()
        {
            list.push((
                Transformer::PrefixSuffix(PrefixSuffixTransformer {
                    affix,
                    is_prefix,
                    field_specs: cfg.specs(table).into_owned(),
                }),
                kind,
                1,
            ));
        }
    }
    for item in k.list("labels")? {
        let pairs =
            node_str_map(item.get("pairs")).map_err(|e| k.err(format!("labels.pairs: {e}")))?;
        let flag = |key: &str| item.get(key).and_then(Node::as_bool).unwrap_or(false);
        let mut specs = tconfig::parse_field_specs(item.get("fields"), "Label.fields", true)
            .map_err(|e| k.err(format!("labels: {e}")))?;
        let merged = (|| -> Result<(), String> {
            merge_specs(&mut specs, &cfg.specs(Table::Labels))?;
            if flag("includeSelectors") {
                merge_specs(&mut specs, &cfg.specs(Table::CommonLabels))?;
            } else {
                if flag("includeTemplates") {
                    merge_specs(&mut specs, &cfg.specs(Table::TemplateLabels))?;
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
                )?;
            }
            Ok(())
        })();
        merged.map_err(|e| k.err(format!("failed to merge labels: {e}")))?;
        list.push((
            Transformer::Labels(MapEntriesTransformer {
                pairs,
                field_specs: specs,
            }),
            "LabelTransformer",
            1,
        ));
    }
    // kustomize configures the commonLabels transformer whenever either
    // labels field is set (it changes nothing without commonLabels).
    let common = k.str_map("commonLabels")?;
    if !common.is_empty() || !k.list("labels")?.is_empty() {
        list.push((
            Transformer::Labels(MapEntriesTransformer {
                pairs: common,
                field_specs: cfg.specs(Table::CommonLabels).into_owned(),
            }),
            "LabelTransformer",
            1,
        ));
    }
    let annotations = k.str_map("commonAnnotations")?;
    if !annotations.is_empty() {
        list.push((
            Transformer::Annotations(MapEntriesTransformer {
                pairs: annotations,
                field_specs: cfg.specs(Table::CommonAnnotations).into_owned(),
            }),
            "AnnotationsTransformer",
            1,
        ));
    }
    if has("patchesJson6902") {
        let n = k.list("patchesJson6902")?.len();
        list.push((field(Field::PatchesJson6902), "PatchJson6902Transformer", n));
    }
    for item in k.list("replicas")? {
        let (name, count) = replicas::read_replica(&item).map_err(|e| k.err(e))?;
        list.push((
            Transformer::Replicas(ReplicaCountTransformer {
                name,
                count,
                field_specs: cfg.specs(Table::Replicas).into_owned(),
            }),
            "ReplicaCountTransformer",
            1,
        ));
    }
    for item in k.list("images")? {
        list.push((
            Transformer::Images(
                ImageTagTransformer::new(&item, cfg.specs(Table::Images).into_owned())
                    .map_err(|e| k.err(e))?,
            ),
            "ImageTagTransformer",
            1,
        ));
    }
    if has("replacements") {
        list.push((field(Field::Replacements), "ReplacementTransformer", 1));
    }
    for (transformer, kind, records) in list {
        out.push(Step {
            transformer,
            origin: Origin::builtin(configured_in, kind),
            records,
        });
    }
    Ok(out)
}
