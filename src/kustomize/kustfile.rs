//! The kustomization file: finding it, reading it, rejecting unknown fields.

use std::path::{Path, PathBuf};

use crate::fs::FileSystem;
use crate::yaml::{Map, Node};

use super::Error;

/// File names kustomize recognizes, in its order.
pub const KUSTOMIZATION_FILE_NAMES: [&str; 3] =
    ["kustomization.yaml", "kustomization.yml", "Kustomization"];

const KNOWN_FIELDS: &[&str] = &[
    "apiVersion",
    "kind",
    "metadata",
    "openapi",
    "namePrefix",
    "nameSuffix",
    "namespace",
    "commonLabels",
    "labels",
    "commonAnnotations",
    "patchesStrategicMerge",
    "patchesJson6902",
    "patches",
    "images",
    "imageTags",
    "replacements",
    "replicas",
    "vars",
    "sortOptions",
    "resources",
    "components",
    "crds",
    "bases",
    "configMapGenerator",
    "secretGenerator",
    "helmGlobals",
    "helmCharts",
    "helmChartInflationGenerator",
    "generatorOptions",
    "configurations",
    "generators",
    "transformers",
    "validators",
    "buildMetadata",
];

/// The Go type a kustomization field is decoded into. kustomize reads its
/// file with `sigs.k8s.io/yaml.UnmarshalStrict` (YAML 1.1, then JSON into
/// the typed `types.Kustomization`): a value of the wrong JSON type or an
/// unknown field anywhere fails the build; null is accepted everywhere;
/// field names match case-insensitively.
#[derive(Clone, Copy)]
enum T {
    Str,
    Bool,
    Int,
    Any,
    StrList,
    StrMap,
    BoolMap,
    List(&'static T),
    Struct(&'static str, &'static [(&'static str, T)]),
}

const GVK_FIELDS: [(&str, T); 3] = [("group", T::Str), ("version", T::Str), ("kind", T::Str)];
static SELECTOR: T = T::Struct(
    "Selector",
    &[
        GVK_FIELDS[0],
        GVK_FIELDS[1],
        GVK_FIELDS[2],
        ("name", T::Str),
        ("namespace", T::Str),
        ("annotationSelector", T::Str),
        ("labelSelector", T::Str),
    ],
);
static FIELD_OPTIONS: T = T::Struct(
    "FieldOptions",
    &[
        ("delimiter", T::Str),
        ("index", T::Int),
        ("encoding", T::Str),
        ("create", T::Bool),
    ],
);
static FIELD_SPEC: T = T::Struct(
    "FieldSpec",
    &[
        GVK_FIELDS[0],
        GVK_FIELDS[1],
        GVK_FIELDS[2],
        ("path", T::Str),
        ("create", T::Bool),
    ],
);
static GENERATOR_OPTIONS: T = T::Struct(
    "GeneratorOptions",
    &[
        ("labels", T::StrMap),
        ("annotations", T::StrMap),
        ("disableNameSuffixHash", T::Bool),
        ("immutable", T::Bool),
    ],
);
const GENERATOR_ARGS: [(&str, T); 8] = [
    ("namespace", T::Str),
    ("name", T::Str),
    ("behavior", T::Str),
    ("literals", T::StrList),
    ("files", T::StrList),
    ("envs", T::StrList),
    ("env", T::Str),
    ("options", GENERATOR_OPTIONS),
];
static CONFIGMAP_ARGS: T = T::Struct("ConfigMapArgs", &GENERATOR_ARGS);
static SECRET_ARGS: T = T::Struct(
    "SecretArgs",
    &[
        GENERATOR_ARGS[0],
        GENERATOR_ARGS[1],
        GENERATOR_ARGS[2],
        GENERATOR_ARGS[3],
        GENERATOR_ARGS[4],
        GENERATOR_ARGS[5],
        GENERATOR_ARGS[6],
        GENERATOR_ARGS[7],
        ("type", T::Str),
    ],
);
static PATCH: T = T::Struct(
    "Patch",
    &[
        ("path", T::Str),
        ("patch", T::Str),
        ("target", SELECTOR),
        ("options", T::BoolMap),
    ],
);
static IMAGE: T = T::Struct(
    "Image",
    &[
        ("name", T::Str),
        ("newName", T::Str),
        ("tagSuffix", T::Str),
        ("newTag", T::Str),
        ("digest", T::Str),
    ],
);
static REPLICA: T = T::Struct("Replica", &[("name", T::Str), ("count", T::Int)]);
static TARGET_SELECTOR: T = T::Struct(
    "TargetSelector",
    &[
        ("select", SELECTOR),
        ("reject", T::List(&SELECTOR)),
        ("fieldPaths", T::StrList),
        ("options", FIELD_OPTIONS),
    ],
);
static REPLACEMENT_FIELD: T = T::Struct(
    "ReplacementField",
    &[
        (
            "source",
            T::Struct(
                "SourceSelector",
                &[
                    GVK_FIELDS[0],
                    GVK_FIELDS[1],
                    GVK_FIELDS[2],
                    ("name", T::Str),
                    ("namespace", T::Str),
                    ("fieldPath", T::Str),
                    ("options", FIELD_OPTIONS),
                ],
            ),
        ),
        ("targets", T::List(&TARGET_SELECTOR)),
        ("path", T::Str),
    ],
);
static LABEL: T = T::Struct(
    "Label",
    &[
        ("pairs", T::StrMap),
        ("includeSelectors", T::Bool),
        ("includeTemplates", T::Bool),
        ("fields", T::List(&FIELD_SPEC)),
    ],
);
static VAR: T = T::Struct(
    "Var",
    &[
        ("name", T::Str),
        (
            "objref",
            T::Struct(
                "Target",
                &[
                    ("apiVersion", T::Str),
                    GVK_FIELDS[0],
                    GVK_FIELDS[1],
                    GVK_FIELDS[2],
                    ("name", T::Str),
                    ("namespace", T::Str),
                ],
            ),
        ),
        (
            "fieldref",
            T::Struct("FieldSelector", &[("fieldPath", T::Str)]),
        ),
    ],
);
static KUSTOMIZATION: &[(&str, T)] = &[
    ("apiVersion", T::Str),
    ("kind", T::Str),
    (
        "metadata",
        T::Struct(
            "ObjectMeta",
            &[
                ("name", T::Str),
                ("namespace", T::Str),
                ("labels", T::StrMap),
                ("annotations", T::StrMap),
            ],
        ),
    ),
    ("openapi", T::StrMap),
    ("namePrefix", T::Str),
    ("nameSuffix", T::Str),
    ("namespace", T::Str),
    ("commonLabels", T::StrMap),
    ("labels", T::List(&LABEL)),
    ("commonAnnotations", T::StrMap),
    ("patchesStrategicMerge", T::StrList),
    ("patchesJson6902", T::List(&PATCH)),
    ("patches", T::List(&PATCH)),
    ("images", T::List(&IMAGE)),
    ("imageTags", T::List(&IMAGE)),
    ("replacements", T::List(&REPLACEMENT_FIELD)),
    ("replicas", T::List(&REPLICA)),
    ("vars", T::List(&VAR)),
    (
        "sortOptions",
        T::Struct(
            "SortOptions",
            &[
                ("order", T::Str),
                (
                    "legacySortOptions",
                    T::Struct(
                        "LegacySortOptions",
                        &[("orderFirst", T::StrList), ("orderLast", T::StrList)],
                    ),
                ),
            ],
        ),
    ),
    ("resources", T::StrList),
    ("components", T::StrList),
    ("crds", T::StrList),
    ("bases", T::StrList),
    ("configMapGenerator", T::List(&CONFIGMAP_ARGS)),
    ("secretGenerator", T::List(&SECRET_ARGS)),
    ("helmGlobals", T::Any),
    ("helmCharts", T::Any),
    ("helmChartInflationGenerator", T::Any),
    ("generatorOptions", GENERATOR_OPTIONS),
    ("configurations", T::StrList),
    ("generators", T::StrList),
    ("transformers", T::StrList),
    ("validators", T::StrList),
    ("buildMetadata", T::StrList),
];

fn check_value(n: &mut Node, t: &T, owner: &str, path: &str) -> Result<(), String> {
    let jt = n.json_kind();
    let bad = |go: &str| {
        Err(format!(
            "cannot unmarshal {jt} into Go struct field {owner}.{path} of type {go}"
        ))
    };
    match (t, n) {
        (_, Node::Null) | (T::Any, _) => Ok(()),
        (T::Str, Node::Str(_)) | (T::Bool, Node::Bool(_)) => Ok(()),
        (T::Str, _) => bad("string"),
        (T::Bool, _) => bad("bool"),
        (T::Int, Node::Int(_)) => Ok(()),
        (T::Int, Node::UInt(u)) if i64::try_from(*u).is_ok() => Ok(()),
        (T::Int, Node::Float(f)) if f.fract() == 0.0 && f.abs() < 9.2e18 => Ok(()),
        (T::Int, _) => bad("int64"),
        (T::StrList, Node::Seq(items)) => {
            for it in items.iter() {
                if !matches!(it, Node::Str(_) | Node::Null) {
                    return Err(format!(
                        "cannot unmarshal {} into Go struct field {owner}.{path} of type string",
                        it.json_kind()
                    ));
                }
            }
            Ok(())
        }
        (T::StrList, _) => bad("[]string"),
        (T::StrMap, Node::Map(m)) => {
            for (_, v) in m.iter() {
                if !matches!(v, Node::Str(_) | Node::Null) {
                    return Err(format!(
                        "cannot unmarshal {} into Go struct field {owner}.{path} of type string",
                        v.json_kind()
                    ));
                }
            }
            Ok(())
        }
        (T::StrMap, _) => bad("map[string]string"),
        (T::BoolMap, Node::Map(m)) => {
            for (_, v) in m.iter() {
                if !matches!(v, Node::Bool(_) | Node::Null) {
                    return Err(format!(
                        "cannot unmarshal {} into Go struct field {owner}.{path} of type bool",
                        v.json_kind()
                    ));
                }
            }
            Ok(())
        }
        (T::BoolMap, _) => bad("map[string]bool"),
        (T::List(inner), Node::Seq(items)) => {
            for it in items.iter_mut() {
                check_value(it, inner, owner, path)?;
            }
            Ok(())
        }
        (T::List(_), _) => bad("array"),
        (T::Struct(name, fields), Node::Map(m)) => check_struct(m, name, fields, path),
        (T::Struct(name, _), _) => bad(&format!("types.{name}")),
    }
}

/// kustomize hands each builtin plugin its configuration as YAML made from
/// JSON (`sigs.k8s.io/yaml`), and go-yaml v2 folds a raw NEL (U+0085) in a
/// quoted scalar like a line break: every string of the kustomization goes
/// through that folding before it is used.
fn fold_nels(m: &mut Map) {
    if !m.iter().any(|(k, v)| k.contains('\u{85}') || has_nel(v)) {
        return;
    }
    let mut out = Map::new();
    for (k, mut v) in std::mem::take(m) {
        fold_node(&mut v);
        out.insert(crate::yaml::emit::fold_nel(&k).into_owned(), v);
    }
    *m = out;
}

fn has_nel(n: &Node) -> bool {
    match n {
        Node::Str(s) => s.contains('\u{85}'),
        Node::Seq(items) => items.iter().any(has_nel),
        Node::Map(m) => m.iter().any(|(k, v)| k.contains('\u{85}') || has_nel(v)),
        _ => false,
    }
}

fn fold_node(n: &mut Node) {
    match n {
        Node::Str(s) if s.contains('\u{85}') => {
            *s = crate::yaml::emit::fold_nel(s).into_owned();
        }
        Node::Seq(items) => items.iter_mut().for_each(fold_node),
        Node::Map(m) => fold_nels(m),
        _ => {}
    }
}

/// Checks a struct's fields and renames them to their canonical spelling.
fn check_struct(m: &mut Map, name: &str, fields: &[(&str, T)], path: &str) -> Result<(), String> {
    let mut out = Map::new();
    for (k, mut v) in std::mem::take(m) {
        let field = fields
            .iter()
            .find(|(f, _)| *f == k)
            .or_else(|| fields.iter().find(|(f, _)| f.eq_ignore_ascii_case(&k)));
        let Some((fname, t)) = field else {
            return Err(format!("unknown field \"{k}\""));
        };
        let sub = if path.is_empty() {
            fname.to_string()
        } else {
            format!("{path}.{fname}")
        };
        check_value(&mut v, t, name, &sub)?;
        out.insert(*fname, v);
    }
    *m = out;
    Ok(())
}

/// A top-level key of a kustomization file as the field kustomize reads
/// it into: Go's encoding/json matches field names case-insensitively.
fn field_name(key: String) -> String {
    KNOWN_FIELDS
        .iter()
        .find(|f| f.eq_ignore_ascii_case(&key))
        .map_or(key, |f| f.to_string())
}

/// A kustomization file's mapping with its field names spelled as
/// kustomize decodes them (Go's encoding/json matches them ignoring
/// case: `configMapgenerator` is `configMapGenerator`), at every level of
/// the typed fields; `None` when kustomize would refuse the file (an
/// unknown field, a value of the wrong type), or it is not a mapping.
pub fn as_decoded(node: &Node) -> Option<Node> {
    let Node::Map(m) = node else { return None };
    let mut raw: Map = m
        .iter()
        .map(|(k, v)| (field_name(k.to_string()), v.clone()))
        .collect();
    check_struct(&mut raw, "Kustomization", KUSTOMIZATION, "").ok()?;
    Some(Node::Map(raw))
}

/// A parsed kustomization (or Component).
#[derive(Debug, Clone, Default)]
pub struct Kustomization {
    pub file: PathBuf,
    pub is_component: bool,
    pub raw: Map,
    /// The file's text (none for a kustomization Flux generates), to find
    /// the lines that errors point at.
    pub text: Option<std::sync::Arc<str>>,
}

/// The 1-based line of the top-level key `field` (matched as kustomize
/// matches field names, ignoring case) in a kustomization text.
fn field_line(text: &str, field: &str) -> Option<usize> {
    text.lines()
        .position(|l| {
            let key = l.split(':').next().unwrap_or("").trim_end();
            !l.starts_with([' ', '\t', '#', '-'])
                && l.contains(':')
                && key.trim_matches(['"', '\'']).eq_ignore_ascii_case(field)
        })
        .map(|i| i + 1)
}

/// The 1-based line of the first list item or map value anywhere in a
/// kustomization text that is `value` (bare or quoted).
pub fn any_value_line(text: &str, value: &str) -> Option<usize> {
    let quoted = [
        value.to_string(),
        format!("\"{value}\""),
        format!("'{value}'"),
    ];
    text.lines()
        .position(|l| {
            let t = l.trim_start().trim_start_matches("- ").trim_start();
            let t = t.split_once(": ").map_or(t, |(_, v)| v).trim_end();
            quoted.iter().any(|q| t == q)
        })
        .map(|i| i + 1)
}

/// The 1-based line, within the block of top-level key `field`, of the
/// first item or value that is `value` (bare or quoted, after `- ` or a
/// `key: `), skipping `skip` earlier matches.
fn value_line(text: &str, field: &str, value: &str, skip: usize) -> Option<usize> {
    let start = field_line(text, field)?;
    let lines: Vec<&str> = text.lines().collect();
    let quoted = [
        value.to_string(),
        format!("\"{value}\""),
        format!("'{value}'"),
    ];
    let mut seen = 0;
    // The field's own line may hold a flow list.
    for (i, l) in lines.iter().enumerate().skip(start - 1) {
        if i >= start && !l.trim().is_empty() && !l.starts_with([' ', '\t', '-', '#']) {
            break;
        }
        let t = l.trim_start().trim_start_matches("- ").trim_start();
        let t = t.split_once(": ").map_or(t, |(_, v)| v).trim_end();
        let hit =
            quoted.iter().any(|q| t == q) || (i + 1 == start && l.contains(&format!(" {value}")));
        if hit {
            if seen == skip {
                return Some(i + 1);
            }
            seen += 1;
        }
    }
    None
}

/// Finds the kustomization file in `dir`.
pub fn find(fs: &dyn FileSystem, dir: &Path) -> Result<Option<PathBuf>, Error> {
    let found: Vec<PathBuf> = KUSTOMIZATION_FILE_NAMES
        .iter()
        .map(|n| dir.join(n))
        .filter(|p| fs.is_file(p))
        .collect();
    match found.len() {
        0 => Ok(None),
        1 => Ok(Some(found[0].clone())),
        _ => Err(Error::at(
            dir,
            format!(
                "found multiple kustomization files ({}); keep exactly one",
                found
                    .iter()
                    .map(|p| p
                        .file_name()
                        .unwrap_or_default()
                        .to_string_lossy()
                        .into_owned())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

impl Kustomization {
    /// Reads the kustomization of directory `dir`.
    pub fn load(fs: &dyn FileSystem, dir: &Path) -> Result<Kustomization, Error> {
        let Some(file) = find(fs, dir)? else {
            return Err(Error::at(
                dir,
                format!(
                    "unable to find one of 'kustomization.yaml', 'kustomization.yml' or 'Kustomization' in directory '{}'",
                    dir.display()
                ),
            ));
        };
        let text = fs
            .read_to_string(&file)
            .map_err(|e| Error::at(&file, e.to_string()))?;
        Self::parse(&file, &text)
    }

    pub fn parse(file: &Path, text: &str) -> Result<Kustomization, Error> {
        let source: std::sync::Arc<str> = text.into();
        // kustomize reads its own file with sigs.k8s.io/yaml (YAML 1.1).
        let node = crate::yaml::parse::parse_stream_json_keys(text)
            .map_err(|e| Error::yaml(file, &e))?
            .into_iter()
            .next()
            .map(|d| d.node)
            .unwrap_or(Node::Null);
        let raw = match node {
            Node::Map(m) => m.into_iter().map(|(k, v)| (field_name(k), v)).collect(),
            Node::Null => Map::new(),
            other => {
                return Err(Error::at(
                    file,
                    format!(
                        "invalid Kustomization: expected a mapping, found a {}",
                        other.kind_name()
                    ),
                ));
            }
        };
        for k in raw.keys() {
            if !KNOWN_FIELDS.contains(&k.as_str()) {
                let mut e = Error::at(
                    file,
                    format!(
                        "invalid Kustomization: json: unknown field \"{k}\" (remove it or fix its spelling)"
                    ),
                );
                e.line = field_line(text, k);
                return Err(e);
            }
        }
        let mut raw = raw;
        fold_nels(&mut raw);
        check_struct(&mut raw, "Kustomization", KUSTOMIZATION, "")
            .map_err(|m| Error::at(file, format!("invalid Kustomization: json: {m}")))?;
        // kustomize compares the file read into its Go struct with an
        // empty one: a field set to its zero value (`resources:` with
        // nothing after it, `namespace: ""`) sets nothing; `[]` and `{}`
        // do (an empty list or map is not a nil one).
        let zero = |v: &Node| matches!(v, Node::Null) || matches!(v, Node::Str(s) if s.is_empty());
        if raw
            .iter()
            .all(|(k, v)| k == "apiVersion" || k == "kind" || zero(v))
        {
            return Err(Error::at(
                file,
                "kustomization file is empty: it lists nothing to build",
            ));
        }
        // kustomize's FixKustomization defaults an empty kind and apiVersion,
        // then EnforceFields lists every problem with the two together.
        let text = |key: &str| raw.get(key).and_then(Node::as_str).unwrap_or("");
        let kind = match text("kind") {
            "" => "Kustomization",
            k => k,
        };
        let is_component = kind == "Component";
        let required = if is_component {
            "kustomize.config.k8s.io/v1alpha1"
        } else {
            "kustomize.config.k8s.io/v1beta1"
        };
        let mut problems = Vec::new();
        if kind != "Kustomization" && !is_component {
            problems.push("kind should be Kustomization or Component".to_string());
        }
        if !text("apiVersion").is_empty() && text("apiVersion") != required {
            problems.push(format!("apiVersion for {kind} should be {required}"));
        }
        if !problems.is_empty() {
            return Err(Error::at(
                file,
                format!(
                    "Failed to read kustomization file under {}:\n{}",
                    file.parent().unwrap_or(Path::new("/")).display(),
                    problems.join("\n")
                ),
            ));
        }
        let k = Kustomization {
            file: file.to_path_buf(),
            is_component,
            raw,
            text: Some(source),
        };
        Ok(k)
    }

    pub fn dir(&self) -> &Path {
        self.file.parent().unwrap_or(Path::new("/"))
    }

    pub fn get(&self, key: &str) -> Option<&Node> {
        self.raw.get(key).filter(|n| !n.is_null())
    }

    pub fn str_field(&self, key: &str) -> Result<Option<String>, Error> {
        match self.get(key) {
            None => Ok(None),
            Some(Node::Str(s)) => Ok(Some(s.clone())),
            Some(other) => other
                .scalar_text()
                .map(Some)
                .ok_or_else(|| self.err(format!("'{key}' must be a string"))),
        }
    }

    /// A list of strings field.
    pub fn str_list(&self, key: &str) -> Result<Vec<String>, Error> {
        match self.get(key) {
            None => Ok(Vec::new()),
            Some(Node::Seq(items)) => items
                .iter()
                .map(|n| {
                    n.scalar_text()
                        .ok_or_else(|| self.err(format!("'{key}' must be a list of strings")))
                })
                .collect(),
            Some(_) => Err(self.err(format!("'{key}' must be a list of strings"))),
        }
    }

    /// A list field (items as nodes).
    pub fn list(&self, key: &str) -> Result<Vec<Node>, Error> {
        match self.get(key) {
            None => Ok(Vec::new()),
            Some(Node::Seq(items)) => Ok(items.clone()),
            Some(_) => Err(self.err(format!("'{key}' must be a list"))),
        }
    }

    /// A string-to-string map field.
    pub fn str_map(&self, key: &str) -> Result<Vec<(String, String)>, Error> {
        node_str_map(self.get(key)).map_err(|m| self.err(format!("'{key}': {m}")))
    }

    pub fn err(&self, msg: impl Into<String>) -> Error {
        Error::at(&self.file, msg.into())
    }

    /// The line of the `skip`-th (from 0) item `value` listed under
    /// `field`.
    pub fn item_line(&self, field: &str, value: &str, skip: usize) -> Option<usize> {
        value_line(self.text.as_deref()?, field, value, skip)
    }

    /// An error at the line of the `skip`-th (from 0) item `value` listed
    /// under `field` (the field's line when the item is not found).
    pub fn err_at_item(
        &self,
        field: &str,
        value: &str,
        skip: usize,
        msg: impl Into<String>,
    ) -> Error {
        let mut e = self.err(msg);
        e.line = self
            .text
            .as_deref()
            .and_then(|t| value_line(t, field, value, skip).or_else(|| field_line(t, field)));
        e
    }
}

/// Reads a `map[string]string`.
pub fn node_str_map(n: Option<&Node>) -> Result<Vec<(String, String)>, String> {
    match n {
        None | Some(Node::Null) => Ok(Vec::new()),
        Some(Node::Map(m)) => m
            .iter()
            .map(|(k, v)| match v {
                Node::Str(s) => Ok((k.clone(), s.clone())),
                Node::Null => Ok((k.clone(), String::new())),
                other if other.is_scalar() => {
                    Ok((k.clone(), other.scalar_text().unwrap_or_default()))
                }
                _ => Err(format!("value of '{k}' must be a string")),
            })
            .collect(),
        Some(_) => Err("must be a map of strings".into()),
    }
}
