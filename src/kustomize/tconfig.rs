//! The field-spec tables the builtin transformers use (kustomize's
//! `builtinconfig.TransformerConfig`): kustomize's defaults, what
//! `configurations:` files add, and how the tables of a build accumulate.
//!
//! Facts from kustomize v5.5.0 (`api/internal/plugins/builtinconfig`,
//! `api/types/fieldspec.go`, `api/internal/accumulator`,
//! `api/internal/target/kusttarget.go`):
//! - every table is sorted by GVK (`resid.Gvk.IsLessThan`: kinds of the
//!   legacy order first, then `group_version_kind` text where a missing
//!   part sorts last) with Go's `sort.Sort`, which is not stable (see
//!   `gosort`): when a file is read, and after every merge. The
//!   name-reference table is sorted by target GVK; the referrers of one
//!   target keep their order;
//! - merging a list into a table (`FsSlice.MergeAll`) appends each field
//!   spec unless one already there has the same path and a GVK the new
//!   one selects; that one disagreeing on `create` fails with `conflicting
//!   fieldspecs`. Name-reference entries with an equal GVK merge their
//!   referrers that way, a new target is appended;
//! - a kustomization's own table is the defaults merged with its
//!   `configurations:` files (each read with `yaml.UnmarshalStrict`, an
//!   unknown field fails, then merged into an empty table one after the
//!   other); it is not deduplicated within itself;
//! - an accumulator starts with an empty table and merges, in order, the
//!   tables of its directory bases (`MergeAccumulator`), its own table and
//!   what its `crds` add (flate merges those into the table of the final
//!   name-reference fix, see `nameref::fix`); a component shares its
//!   parent's accumulator, which is then merged into an empty one (its
//!   tables merged into empty tables once more). So
//!   the defaults themselves are deduplicated in sorted order, and a
//!   kind-specific field spec that sorts before a generic one of the same
//!   path (`metadata/name` for `kind: Foo` before the default
//!   `metadata/name`) makes the generic one be dropped;
//! - the builtin transformers and the final name-reference fix use the
//!   accumulator's table.

use std::borrow::Cow;
use std::sync::OnceLock;

use crate::resource::Gvk;
use crate::yaml::Node;

use super::Error;
use super::build::Loader;
use super::fieldspecs::{self, FieldSpec, NAME_REFERENCE};
use super::gosort;

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

/// The tables, their field names in a configuration file and their names in
/// kustomize's merge errors.
const TABLES: [(Table, &str, &str); 10] = [
    (Table::NamePrefix, "namePrefix", "NamePrefix"),
    (Table::NameSuffix, "nameSuffix", "NameSuffix"),
    (Table::Namespace, "namespace", "NameSpace"),
    (Table::CommonLabels, "commonLabels", "CommonLabels"),
    (Table::Labels, "labels", "Labels"),
    (Table::TemplateLabels, "templateLabels", "TemplateLabels"),
    (
        Table::CommonAnnotations,
        "commonAnnotations",
        "CommonAnnotations",
    ),
    (Table::VarReference, "varReference", "VarReference"),
    (Table::Images, "images", "Images"),
    (Table::Replicas, "replicas", "Replicas"),
];

/// The order in which `TransformerConfig.Merge` merges the tables (the
/// first that fails is the error); the name references come between
/// `VarReference` and `Images`.
const MERGE_ORDER: [Table; 10] = [
    Table::NamePrefix,
    Table::NameSuffix,
    Table::Namespace,
    Table::CommonAnnotations,
    Table::CommonLabels,
    Table::Labels,
    Table::TemplateLabels,
    Table::VarReference,
    Table::Images,
    Table::Replicas,
];

impl Table {
    fn index(self) -> usize {
        TABLES.iter().position(|(t, ..)| *t == self).expect("table")
    }

    fn error_name(self) -> &'static str {
        TABLES[self.index()].2
    }

    /// kustomize's default field specs for this table, in source order.
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

/// A referral target and the fields naming it (`NameBackReferences`).
#[derive(Debug, Clone)]
pub struct NameRef {
    pub gvk: Gvk,
    pub referrers: Vec<FieldSpec>,
}

type Specs = Cow<'static, [FieldSpec]>;
type Names = Cow<'static, [NameRef]>;

/// A transformer configuration: every table in full, in kustomize's
/// order. `Default` is the empty configuration an accumulator starts
/// with; [`TransformerConfig::defaults`] is kustomize's.
#[derive(Debug, Clone, Default)]
pub struct TransformerConfig {
    tables: [Specs; 10],
    names: Names,
}

/// Two tables are computed once: kustomize's defaults sorted (what a
/// kustomization without `configurations:` contributes) and those merged
/// into an empty accumulator (what the accumulator of such a kustomization
/// holds). Merging either into the latter changes nothing, which spares
/// most builds any merging.
struct Canonical {
    defaults: [Vec<FieldSpec>; 10],
    default_names: Vec<NameRef>,
    accumulated: [Vec<FieldSpec>; 10],
    accumulated_names: Vec<NameRef>,
}

fn canonical_tables() -> &'static Canonical {
    static CANONICAL: OnceLock<Canonical> = OnceLock::new();
    CANONICAL.get_or_init(|| {
        let defaults = TABLES.map(|(t, ..)| {
            let mut v = t.defaults().to_vec();
            sort_specs(&mut v);
            v
        });
        let mut default_names: Vec<NameRef> = NAME_REFERENCE
            .iter()
            .map(|b| NameRef {
                gvk: gvk_of(b.group, b.version, b.kind),
                referrers: b.referrers.to_vec(),
            })
            .collect();
        sort_names(&mut default_names);
        let accumulated = TABLES.map(|(t, ..)| {
            let mut v = Vec::new();
            merge_all(&mut v, &defaults[t.index()])
                .unwrap_or_else(|e| panic!("kustomize's default {t:?} table: {e}"));
            sort_specs(&mut v);
            v
        });
        let mut accumulated_names = Vec::new();
        merge_names(&mut accumulated_names, &default_names)
            .unwrap_or_else(|e| panic!("kustomize's default name references: {e}"));
        sort_names(&mut accumulated_names);
        Canonical {
            defaults,
            default_names,
            accumulated,
            accumulated_names,
        }
    })
}

fn gvk_of(group: &str, version: &str, kind: &str) -> Gvk {
    Gvk {
        group: group.into(),
        version: version.into(),
        kind: kind.into(),
    }
}

/// kustomize's `typeOrders`: the kinds of the legacy resource order first,
/// then every other kind, then the last ones.
fn type_order(kind: &str) -> i32 {
    use super::sort::{ORDER_FIRST, ORDER_LAST};
    if let Some(i) = ORDER_FIRST.iter().position(|k| *k == kind) {
        return i as i32 - ORDER_FIRST.len() as i32;
    }
    ORDER_LAST
        .iter()
        .position(|k| *k == kind)
        .map_or(0, |i| 1 + i as i32)
}

/// `Gvk.stableSortString`: `group_version_kind`, a missing part written
/// `~G`, `~V`, `~K` (after any letter).
fn stable_sort_string((g, v, k): (&str, &str, &str)) -> String {
    let or = |s: &'static str, x: &str| {
        if x.is_empty() {
            s.to_string()
        } else {
            x.to_string()
        }
    };
    format!("{}_{}_{}", or("~G", g), or("~V", v), or("~K", k))
}

/// Sorts with Go's `sort.Sort` by a GVK (`resid.Gvk.IsLessThan`: the
/// type order, then the stable sort string), the keys computed once.
fn sort_by_gvk<T>(v: &mut Vec<T>, gvk: impl Fn(&T) -> (&str, &str, &str)) {
    if v.len() < 2 {
        return;
    }
    let mut keyed: Vec<((i32, String), T)> = v
        .drain(..)
        .map(|x| {
            let g = gvk(&x);
            ((type_order(g.2), stable_sort_string(g)), x)
        })
        .collect();
    gosort::sort(&mut keyed, |a, b| a.0 < b.0);
    v.extend(keyed.into_iter().map(|(_, x)| x));
}

/// `sort.Sort(FsSlice)`.
fn sort_specs(v: &mut Vec<FieldSpec>) {
    sort_by_gvk(v, |f| (f.group, f.version, f.kind));
}

fn sort_names(v: &mut Vec<NameRef>) {
    sort_by_gvk(v, |n| (&n.gvk.group, &n.gvk.version, &n.gvk.kind));
}

fn same_spec_value(a: &FieldSpec, b: &FieldSpec) -> bool {
    a.group == b.group
        && a.version == b.version
        && a.kind == b.kind
        && a.path == b.path
        && a.create == b.create
}

fn same_table(a: &[FieldSpec], b: &[FieldSpec]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_spec_value(x, y))
}

fn same_slice<T>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len() && std::ptr::eq(a.as_ptr(), b.as_ptr())
}

/// A field spec refused by a merge: kustomize's `conflicting fieldspecs`.
#[derive(Debug, Clone)]
pub struct Conflict {
    pub spec: Box<FieldSpec>,
    pub present: Box<FieldSpec>,
}

impl std::fmt::Display for Conflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let on = |fs: &FieldSpec| {
            let sel: Vec<String> = [
                ("group", fs.group),
                ("version", fs.version),
                ("kind", fs.kind),
            ]
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
            if sel.is_empty() {
                "every kind".to_string()
            } else {
                sel.join(", ")
            }
        };
        write!(
            f,
            "conflicting fieldspecs ('{}' for {} with create: {}, already listed for {} with create: {})",
            self.spec.path,
            on(&self.spec),
            self.spec.create,
            on(&self.present),
            self.present.create
        )
    }
}

/// `FsSlice.MergeOne`: appends `fs` to `list` unless a field spec with the
/// same path and a GVK `fs` selects is already there (then their `create`
/// must agree).
pub fn merge_one(list: &mut Vec<FieldSpec>, fs: FieldSpec) -> Result<(), Conflict> {
    // `Gvk.IsSelected`: an empty part of the selector matches anything.
    let sel = |x: &str, s: &str| s.is_empty() || x == s;
    let present = list.iter().find(|p| {
        p.path == fs.path
            && sel(p.group, fs.group)
            && sel(p.version, fs.version)
            && sel(p.kind, fs.kind)
    });
    match present {
        Some(p) if p.create != fs.create => Err(Conflict {
            spec: Box::new(fs),
            present: Box::new(*p),
        }),
        Some(_) => Ok(()),
        None => {
            list.push(fs);
            Ok(())
        }
    }
}

/// `FsSlice.MergeAll`.
pub fn merge_all(list: &mut Vec<FieldSpec>, more: &[FieldSpec]) -> Result<(), Conflict> {
    more.iter().try_for_each(|fs| merge_one(list, *fs))
}

/// `nbrSlice.mergeAll`: an entry joins those with an equal GVK (their
/// referrers merged), or is appended as it is.
fn merge_names(list: &mut Vec<NameRef>, more: &[NameRef]) -> Result<(), Conflict> {
    for nr in more {
        let mut found = false;
        for e in list.iter_mut().filter(|e| e.gvk == nr.gvk) {
            merge_all(&mut e.referrers, &nr.referrers)?;
            found = true;
        }
        if !found {
            list.push(nr.clone());
        }
    }
    Ok(())
}

/// A failed `TransformerConfig.Merge`: the table and the conflict.
#[derive(Debug, Clone)]
pub struct MergeError {
    pub table: &'static str,
    pub conflict: Conflict,
}

impl std::fmt::Display for MergeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "failed to merge {} fieldSpec: {}",
            self.table, self.conflict
        )
    }
}

/// One table of `TransformerConfig.Merge`: `None` when `mine` stays.
fn merge_table(
    mine: &Specs,
    more: &Specs,
    t: Table,
    c: &'static Canonical,
) -> Result<Option<Specs>, MergeError> {
    let i = t.index();
    let (defaults, accumulated) = (&c.defaults[i], &c.accumulated[i]);
    let canonical = |x: &[FieldSpec]| same_slice(x, defaults) || same_slice(x, accumulated);
    if more.is_empty() || (same_slice(mine, accumulated) && canonical(more)) {
        return Ok(None);
    }
    if mine.is_empty() && canonical(more) {
        return Ok(Some(Cow::Borrowed(accumulated.as_slice())));
    }
    let mut v = mine.to_vec();
    merge_all(&mut v, more).map_err(|conflict| MergeError {
        table: t.error_name(),
        conflict,
    })?;
    sort_specs(&mut v);
    Ok(Some(if same_table(&v, accumulated) {
        Cow::Borrowed(accumulated.as_slice())
    } else {
        Cow::Owned(v)
    }))
}

/// The name references of `TransformerConfig.Merge`: `None` when `mine`
/// stays.
fn merge_name_table(
    mine: &Names,
    more: &Names,
    c: &'static Canonical,
) -> Result<Option<Names>, MergeError> {
    let (defaults, accumulated) = (&c.default_names, &c.accumulated_names);
    let canonical = |x: &[NameRef]| same_slice(x, defaults) || same_slice(x, accumulated);
    if more.is_empty() || (same_slice(mine, accumulated) && canonical(more)) {
        return Ok(None);
    }
    if mine.is_empty() && canonical(more) {
        return Ok(Some(Cow::Borrowed(accumulated.as_slice())));
    }
    let mut v = mine.to_vec();
    merge_names(&mut v, more).map_err(|conflict| MergeError {
        table: "NameReference",
        conflict,
    })?;
    sort_names(&mut v);
    Ok(Some(Cow::Owned(v)))
}

impl TransformerConfig {
    /// kustomize's default tables (sorted, as kustomize reads them).
    pub fn defaults() -> TransformerConfig {
        let c = canonical_tables();
        TransformerConfig {
            tables: std::array::from_fn(|i| Cow::Borrowed(c.defaults[i].as_slice())),
            names: Cow::Borrowed(c.default_names.as_slice()),
        }
    }

    /// The field specs of one table.
    pub fn specs(&self, t: Table) -> Cow<'_, [FieldSpec]> {
        Cow::Borrowed(&self.tables[t.index()])
    }

    /// The name-reference table.
    pub fn name_references(&self) -> &[NameRef] {
        &self.names
    }

    /// `TransformerConfig.Merge` (`other` merged into `self`, every table
    /// sorted again).
    pub fn merge(&mut self, other: &TransformerConfig) -> Result<(), MergeError> {
        let c = canonical_tables();
        let mut tables = self.tables.clone();
        let mut names = None;
        for t in MERGE_ORDER {
            if t == Table::Images {
                // kustomize merges the name references before `Images`.
                names = merge_name_table(&self.names, &other.names, c)?;
            }
            let i = t.index();
            if let Some(v) = merge_table(&tables[i], &other.tables[i], t, c)? {
                tables[i] = v;
            }
        }
        self.tables = tables;
        if let Some(n) = names {
            self.names = n;
        }
        Ok(())
    }

    /// Adds name references (`AddNamereferenceFieldSpec` for each, then
    /// sorted), as the configuration kustomize makes of `crds` files.
    pub fn from_name_references(refs: Vec<NameRef>) -> Result<TransformerConfig, MergeError> {
        let mut names = Vec::new();
        for nr in refs {
            merge_names(&mut names, std::slice::from_ref(&nr)).map_err(|conflict| MergeError {
                table: "NameReference",
                conflict,
            })?;
        }
        sort_names(&mut names);
        Ok(TransformerConfig {
            names: Cow::Owned(names),
            ..TransformerConfig::default()
        })
    }

    /// The table of a kustomization (`MakeTransformerConfig`): the
    /// defaults, merged with its `configurations:` files when it has some.
    pub fn load(paths: &[String], ldr: &Loader) -> Result<TransformerConfig, Error> {
        if paths.is_empty() {
            return Ok(TransformerConfig::defaults());
        }
        let mut files = Vec::new();
        let mut loaded = TransformerConfig::default();
        for p in paths {
            let (file, text) = ldr.load(p)?;
            let one = parse(&text).map_err(|m| Error::at(&file, m))?;
            loaded
                .merge(&one)
                .map_err(|e| Error::at(&file, e.to_string()))?;
            files.push((file, one));
        }
        let mut cfg = TransformerConfig::defaults();
        cfg.merge(&loaded).map_err(|e| {
            // The field spec that conflicts with the defaults came from
            // one of the files.
            let spec = &e.conflict.spec;
            let from = files.iter().find(|(_, one)| {
                one.tables
                    .iter()
                    .flat_map(|t| t.iter())
                    .chain(one.names.iter().flat_map(|n| n.referrers.iter()))
                    .any(|f| same_spec_value(f, spec))
            });
            match from {
                Some((file, _)) => Error::at(file, e.to_string()),
                None => Error::msg(e.to_string()),
            }
        })?;
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

/// Reads one `configurations:` file (`makeTransformerConfigFromBytes`:
/// the lists as written, each then sorted).
pub fn parse(text: &str) -> Result<TransformerConfig, String> {
    let node = crate::yaml::parse::parse_stream_json_keys(text)
        .map_err(|e| format!("malformed YAML: {}", e.message))?
        .into_iter()
        .next()
        .map(|d| d.node)
        .unwrap_or(Node::Null);
    let m = match node {
        Node::Map(m) => m,
        Node::Null => return Ok(TransformerConfig::default()),
        other => {
            return Err(format!(
                "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {} into Go value of type builtinconfig.TransformerConfig",
                other.json_kind()
            ));
        }
    };
    let mut keys: Vec<&str> = TABLES.iter().map(|(_, n, _)| *n).collect();
    keys.push("nameReference");
    // A field given twice (spelled differently: Go's decoder matches
    // names case-insensitively) keeps the last list.
    let mut tables: [Vec<FieldSpec>; 10] = Default::default();
    let mut names: Vec<NameRef> = Vec::new();
    for (k, v) in m.iter() {
        let key = canonical(k, &keys).ok_or(unknown(k))?;
        if key == "nameReference" {
            names = parse_name_references(v)?;
            continue;
        }
        let (t, ..) = TABLES.iter().find(|(_, n, _)| *n == key).expect("known");
        tables[t.index()] = parse_field_specs(Some(v), &format!("TransformerConfig.{key}"), true)?;
    }
    for v in &mut tables {
        sort_specs(v);
    }
    sort_names(&mut names);
    Ok(TransformerConfig {
        tables: tables.map(Cow::Owned),
        names: Cow::Owned(names),
    })
}

fn parse_name_references(v: &Node) -> Result<Vec<NameRef>, String> {
    let items = match v {
        Node::Null => return Ok(Vec::new()),
        Node::Seq(items) => items,
        other => {
            return Err(format!(
                "json: cannot unmarshal {} into Go struct field TransformerConfig.nameReference of type builtinconfig.nbrSlice",
                other.json_kind()
            ));
        }
    };
    let mut out = Vec::new();
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
            let ikey =
                canonical(ik, &["group", "version", "kind", "fieldSpecs"]).ok_or(unknown(ik))?;
            match ikey {
                "fieldSpecs" => {
                    referrers = parse_field_specs(Some(iv), "NameBackReferences.fieldSpecs", true)?
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
        out.push(NameRef { gvk, referrers });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The accumulator's table of one kustomization with these
    /// `configurations:` files.
    fn accumulate(files: &[&str]) -> Result<TransformerConfig, MergeError> {
        let mut loaded = TransformerConfig::default();
        for f in files {
            loaded.merge(&parse(f).unwrap())?;
        }
        let mut own = TransformerConfig::defaults();
        own.merge(&loaded)?;
        let mut acc = TransformerConfig::default();
        acc.merge(&own)?;
        Ok(acc)
    }

    fn paths(c: &TransformerConfig, t: Table) -> Vec<String> {
        c.specs(t)
            .iter()
            .map(|f| format!("{}:{}:{}", f.kind, f.create, f.path))
            .collect()
    }

    #[test]
    fn restating_the_defaults_changes_nothing() {
        let c = accumulate(&["commonLabels:\n- path: metadata/labels\n  create: true\n"]).unwrap();
        let d = accumulate(&[]).unwrap();
        for (t, ..) in TABLES {
            assert_eq!(paths(&c, t), paths(&d, t), "{t:?}");
        }
    }

    #[test]
    fn a_kind_specific_spec_sorted_first_drops_the_generic_one() {
        let c = accumulate(&["namePrefix:\n- path: metadata/name\n  kind: Foo\n"]).unwrap();
        assert_eq!(paths(&c, Table::NamePrefix), ["Foo:false:metadata/name"]);
        let c =
            accumulate(&["commonLabels:\n- path: metadata/labels\n  kind: Foo\n  create: true\n"])
                .unwrap();
        let labels = paths(&c, Table::CommonLabels);
        assert!(labels.contains(&"Foo:true:metadata/labels".to_string()));
        assert!(!labels.contains(&":true:metadata/labels".to_string()));
    }

    #[test]
    fn conflicting_create_fails() {
        // With the defaults' own entry.
        let e =
            accumulate(&["commonLabels:\n- path: metadata/labels\n  create: false\n"]).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("failed to merge CommonLabels fieldSpec: conflicting fieldspecs"),
            "{e}"
        );
        // In the accumulator, once sorted before the defaults' entry.
        let e = accumulate(&["commonLabels:\n- path: metadata/labels\n  kind: Foo\n"]).unwrap_err();
        assert_eq!(e.table, "CommonLabels");
        assert_eq!(e.conflict.spec.kind, "");
    }

    #[test]
    fn name_references_join_an_entry_with_an_equal_gvk() {
        let c = accumulate(&[
            "nameReference:\n- kind: ConfigMap\n  version: v1\n  fieldSpecs:\n  - kind: HelmRelease\n    path: spec/valuesFrom/name\n- kind: ConfigMap\n  fieldSpecs:\n  - kind: ConfigMap\n    path: data/self\n",
        ])
        .unwrap();
        let refs = c.name_references();
        assert_eq!(refs.len(), NAME_REFERENCE.len() + 1);
        let cm = refs
            .iter()
            .find(|e| e.gvk.kind == "ConfigMap" && e.gvk.version == "v1")
            .expect("ConfigMap entry");
        assert!(
            cm.referrers
                .iter()
                .any(|f| f.kind == "HelmRelease" && f.path == "spec/valuesFrom/name")
        );
        // A target without a version is another entry, sorted after it.
        let at = |v: &str| {
            refs.iter()
                .position(|e| e.gvk.kind == "ConfigMap" && e.gvk.version == v)
                .unwrap()
        };
        assert_eq!(at(""), at("v1") + 1);
    }

    #[test]
    fn defaults_are_sorted_as_kustomize_sorts_them() {
        // Recorded from kubectl's `merging config &{...}` message: Go's
        // sort.Sort moves equal-GVK entries around.
        let c = TransformerConfig::defaults();
        let got: Vec<String> = c
            .specs(Table::CommonLabels)
            .iter()
            .map(|f| format!("{}.{}.{}:{}", f.kind, f.version, f.group, f.path))
            .collect();
        let want = [
            "Service.v1.:spec/selector",
            "Deployment..apps:spec/template/spec/affinity/podAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels",
            "Deployment..apps:spec/template/spec/affinity/podAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels",
            "Deployment..apps:spec/template/spec/affinity/podAntiAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels",
            "Deployment..apps:spec/template/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels",
            "Deployment..apps:spec/template/spec/topologySpreadConstraints/labelSelector/matchLabels",
            "Deployment..:spec/template/metadata/labels",
            "Deployment..:spec/selector/matchLabels",
            "StatefulSet..apps:spec/selector/matchLabels",
            "StatefulSet..apps:spec/volumeClaimTemplates[]/metadata/labels",
        ];
        assert_eq!(got[..want.len()], want);
        // A longer table (above 50 entries Go's sort takes other paths).
        let got: Vec<String> = c
            .specs(Table::VarReference)
            .iter()
            .take(13)
            .map(|f| format!("{}:{}", f.kind, f.path))
            .collect();
        let want = [
            "Service:spec/ports/port",
            "Service:spec/ports/targetPort",
            "PersistentVolume:spec/nfs/server",
            "Deployment:spec/template/spec/initContainers/volumeMounts/mountPath",
            "Deployment:spec/template/spec/initContainers/env/value",
            "Deployment:spec/template/spec/initContainers/command",
            "Deployment:spec/template/spec/initContainers/args",
            "Deployment:spec/template/spec/containers/volumeMounts/mountPath",
            "Deployment:spec/template/spec/containers/env/value",
            "Deployment:spec/template/spec/volumes/nfs/server",
            "Deployment:spec/template/metadata/annotations",
            "Deployment:spec/template/spec/containers/command",
            "Deployment:spec/template/spec/containers/args",
        ];
        assert_eq!(got, want);
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
