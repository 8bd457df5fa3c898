//! Helm's `SimpleHead` of a rendered document: its kind and annotations,
//! read as Helm reads them with `sigs.k8s.io/yaml.Unmarshal`.
//!
//! That reading has three steps, each with its own failures:
//! 1. go-yaml v2 reads the whole document (the caller's YAML reader);
//! 2. the YAML value becomes JSON, guided by the target struct: a number or
//!    boolean bound for a string field (`apiVersion`, `kind`,
//!    `metadata.name`, an annotation's value) is turned into its text; any
//!    other infinite or NaN float makes `json.Marshal` fail ("unsupported
//!    value"), the first one in the order `json.Marshal` writes (keys
//!    sorted);
//! 3. `encoding/json` decodes that JSON into the struct: keys match fields
//!    exactly or case-insensitively, an object or array bound for a string
//!    (or a scalar for a struct or map) is a type error; decoding goes on
//!    after one and the first is reported; `null` leaves a string as it was
//!    and empties a struct pointer or a map.

use std::collections::BTreeMap;

use crate::yaml::Node;

/// What Helm keeps of a document to sort it and find its hooks.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Head {
    pub kind: String,
    pub annotations: BTreeMap<String, String>,
}

/// The Go type `json.Unmarshal` names for the `metadata` field.
const METADATA_TYPE: &str = r#"struct { Name string "json:\"name\""; Annotations map[string]string "json:\"annotations\"" }"#;

/// The head of `doc`, read as YAML from `text`; `Err` is Helm's message
/// after "YAML parse error on PATH: ".
pub(crate) fn read(doc: &Node, text: &str) -> Result<Head, String> {
    if may_spell_non_finite(text)
        && let Some(v) = unsupported_float(doc, Target::Head)
    {
        return Err(format!(
            "error converting YAML to JSON: json: unsupported value: {v}"
        ));
    }
    decode(doc).map_err(|e| format!("error unmarshaling JSON: while decoding JSON: json: {e}"))
}

/// The head of the document `text`, read without building the values it
/// does not need (see `fast::parse_head`): the same answer as reading the
/// whole document and then [`read`]. `None` when the quick reader does not
/// take the text, or the text may hold an infinite or NaN float (which
/// step 2 looks for everywhere): the caller reads it whole.
pub(crate) fn read_quick(text: &str) -> Option<Result<Head, String>> {
    if may_spell_non_finite(text) {
        return None;
    }
    let doc = crate::yaml::parse::parse_head_json_keys(text, is_head_field)?;
    Some(
        decode(&doc)
            .map_err(|e| format!("error unmarshaling JSON: while decoding JSON: json: {e}")),
    )
}

/// Whether a top-level key is one `SimpleHead` reads, in step 2 or 3.
fn is_head_field(key: &str) -> bool {
    json_field(key, HEAD_FIELDS).is_some() || conversion_field(key, HEAD_FIELDS).is_some()
}

/// `SimpleHead`'s fields.
const HEAD_FIELDS: &[&str] = &["apiVersion", "kind", "metadata"];

/// Whether `text` may hold an infinite or NaN float: go-yaml v2 reads one
/// only from `.inf` or `.nan` (signed, in three spellings each), so a text
/// without either (in any case) holds none, and its tree, which can be
/// large (a CRD), is not walked.
fn may_spell_non_finite(text: &str) -> bool {
    let b = text.as_bytes();
    memchr::memchr_iter(b'.', b).any(|i| {
        b.get(i + 1..i + 4)
            .is_some_and(|w| w.eq_ignore_ascii_case(b"inf") || w.eq_ignore_ascii_case(b"nan"))
    })
}

/// Where a value goes in `SimpleHead` (step 2's JSON target).
#[derive(Clone, Copy, PartialEq)]
enum Target {
    /// The document: the struct itself.
    Head,
    /// `metadata`: a pointer to a struct.
    Metadata,
    /// `metadata.annotations`: a map of strings.
    Annotations,
    /// A string field or an annotation's value.
    Text,
    /// Nothing in the struct.
    None,
}

/// The first infinite or NaN float, in `json.Marshal`'s order, that step 2
/// leaves a float (one bound for a string becomes text), as Go prints it.
/// (Only walked when the text spells one: see `may_spell_non_finite`.)
fn unsupported_float(n: &Node, target: Target) -> Option<&'static str> {
    match n {
        Node::Float(f) if target != Target::Text => non_finite_name(*f),
        Node::Seq(items) => items
            .iter()
            .find_map(|i| unsupported_float(i, Target::None)),
        Node::Map(m) => sorted(m)
            .into_iter()
            .find_map(|(k, v)| unsupported_float(v, field_target(target, k))),
        _ => None,
    }
}

fn non_finite_name(f: f64) -> Option<&'static str> {
    if f.is_nan() {
        Some("NaN")
    } else if f == f64::INFINITY {
        Some("+Inf")
    } else if f == f64::NEG_INFINITY {
        Some("-Inf")
    } else {
        None
    }
}

/// The target of the value at `key` of a mapping bound for `target`, as
/// `sigs.k8s.io/yaml` finds struct fields (exactly, else ignoring case).
fn field_target(target: Target, key: &str) -> Target {
    match target {
        Target::Head => match conversion_field(key, HEAD_FIELDS) {
            Some("metadata") => Target::Metadata,
            Some(_) => Target::Text,
            None => Target::None,
        },
        Target::Metadata => match conversion_field(key, &["name", "annotations"]) {
            Some("annotations") => Target::Annotations,
            Some(_) => Target::Text,
            None => Target::None,
        },
        Target::Annotations => Target::Text,
        Target::Text | Target::None => Target::None,
    }
}

/// Step 3: `json.Unmarshal` into `SimpleHead`.
fn decode(doc: &Node) -> Result<Head, String> {
    let map = match doc {
        Node::Null => return Ok(Head::default()),
        Node::Map(m) => m,
        other => {
            return Err(format!(
                "cannot unmarshal {} into Go value of type util.SimpleHead",
                other.json_kind()
            ));
        }
    };
    let mut head = Head::default();
    // `None` while the metadata pointer is nil.
    let mut annotations: Option<BTreeMap<String, String>> = None;
    let mut first_error: Option<String> = None;
    let mut error = |e: String| {
        first_error.get_or_insert(e);
    };
    for (key, value) in sorted(map) {
        let Some(field) = json_field(key, HEAD_FIELDS) else {
            continue;
        };
        let converted = conversion_field(key, &[field]).is_some();
        match field {
            "metadata" => match value {
                Node::Null => annotations = None,
                Node::Map(m) => {
                    let ann = annotations.get_or_insert_with(BTreeMap::new);
                    decode_metadata(m, ann, &mut error);
                }
                other => error(format!(
                    "cannot unmarshal {} into Go struct field SimpleHead.metadata of type {METADATA_TYPE}",
                    other.json_kind()
                )),
            },
            _ => {
                let place = format!("SimpleHead.{field}");
                if let Some(s) = string_field(value, converted, &place, &mut error)
                    && field == "kind"
                {
                    head.kind = s;
                }
            }
        }
    }
    if let Some(e) = first_error {
        return Err(e);
    }
    head.annotations = annotations.unwrap_or_default();
    Ok(head)
}

/// The fields of `metadata` (a struct reused across keys that match it).
fn decode_metadata(
    map: &crate::yaml::node::Map,
    annotations: &mut BTreeMap<String, String>,
    error: &mut impl FnMut(String),
) {
    for (key, value) in sorted(map) {
        let Some(field) = json_field(key, &["name", "annotations"]) else {
            continue;
        };
        let converted = conversion_field(key, &[field]).is_some();
        if field == "name" {
            string_field(value, converted, ".metadata.name", error);
            continue;
        }
        match value {
            Node::Null => annotations.clear(),
            Node::Map(m) => {
                for (k, v) in m.iter() {
                    // An annotation's value is always bound for a string.
                    let text = string_field(v, true, ".metadata.annotations", error);
                    annotations.insert(k.clone(), text.unwrap_or_default());
                }
            }
            other => error(format!(
                "cannot unmarshal {} into Go struct field .metadata.annotations of type map[string]string",
                other.json_kind()
            )),
        }
    }
}

/// A string field's new value (`None`: `null` leaves it as it was, or a
/// type error, passed to `error`). `converted`: step 2 bound the value for
/// this string, so a number or boolean arrives as its text.
fn string_field(
    value: &Node,
    converted: bool,
    place: &str,
    error: &mut impl FnMut(String),
) -> Option<String> {
    let text = match value {
        Node::Null => return None,
        Node::Str(s) => return Some(s.clone()),
        Node::Bool(b) if converted => b.to_string(),
        Node::Int(i) if converted => i.to_string(),
        Node::UInt(u) if converted => u.to_string(),
        Node::Float(f) if converted => match non_finite_name(*f) {
            Some(name) => name.to_string(),
            // `strconv.FormatFloat(f, 'g', -1, 32)`.
            None => crate::yaml::emit::go_format_g32(*f as f32),
        },
        other => {
            error(format!(
                "cannot unmarshal {} into Go struct field {place} of type string",
                other.json_kind()
            ));
            return None;
        }
    };
    Some(text)
}

/// A mapping's entries in the order `json.Marshal` writes them.
fn sorted(map: &crate::yaml::node::Map) -> Vec<(&String, &Node)> {
    let mut entries: Vec<(&String, &Node)> = map.iter().collect();
    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
    entries
}

/// The struct field `key` fills when `encoding/json` decodes (Go 1.21's
/// `foldName`: ASCII letters without case, and the non-ASCII letters whose
/// upper case of their lower case is an ASCII one).
fn json_field<'f>(key: &str, fields: &[&'f str]) -> Option<&'f str> {
    find_field(key, fields, |c| match c {
        '\u{212a}' => Some('K'),
        '\u{17f}' => Some('S'),
        '\u{130}' | '\u{131}' => Some('I'),
        _ => None,
    })
}

/// The struct field `key` is converted for in step 2 (`sigs.k8s.io/yaml`'s
/// older `equalFold` functions: ASCII letters without case, and the Kelvin
/// sign and long s for `k` and `s`).
fn conversion_field<'f>(key: &str, fields: &[&'f str]) -> Option<&'f str> {
    find_field(key, fields, |c| match c {
        '\u{212a}' => Some('K'),
        '\u{17f}' => Some('S'),
        _ => None,
    })
}

fn find_field<'f>(
    key: &str,
    fields: &[&'f str],
    fold_other: impl Fn(char) -> Option<char>,
) -> Option<&'f str> {
    if let Some(f) = fields.iter().find(|f| **f == key) {
        return Some(f);
    }
    let folds = |name: &str| {
        let mut k = key.chars();
        for n in name.chars() {
            let Some(c) = k.next() else {
                return false;
            };
            let c = if c.is_ascii() {
                c.to_ascii_uppercase()
            } else {
                match fold_other(c) {
                    Some(c) => c,
                    None => return false,
                }
            };
            if c != n.to_ascii_uppercase() {
                return false;
            }
        }
        k.next().is_none()
    };
    fields.iter().find(|f| folds(f)).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(text: &str) -> Result<Head, String> {
        let doc = crate::yaml::parse::parse_stream_json_keys(text)
            .unwrap()
            .into_iter()
            .next()
            .map(|d| d.node)
            .unwrap_or(Node::Null);
        let whole = read(&doc, text);
        // The quick reading, where it applies, gives the same answer.
        if let Some(quick) = read_quick(text) {
            assert_eq!(quick, whole, "{text:?}");
        }
        whole
    }

    #[test]
    fn the_quick_reading_applies_to_common_documents() {
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    helm.sh/hook: pre-install\ndata:\n  k: |\n    x\n  j: v\n";
        let h = read_quick(text).unwrap().unwrap();
        assert_eq!(h.kind, "ConfigMap");
        assert_eq!(
            h.annotations.get("helm.sh/hook").map(String::as_str),
            Some("pre-install")
        );
        // A type error found in a kept value.
        assert!(read_quick("kind: [a]\nspec: 1\n").unwrap().is_err());
        // Left to the whole reading: a document that may hold `.inf`.
        assert!(read_quick("kind: A\nspec:\n  x: .inf\n").is_none());
    }

    #[test]
    fn scalars_bound_for_strings_become_text() {
        let h = head(
            "kind: 7\nmetadata:\n  annotations:\n    a: 5\n    b: true\n    c: null\n    d: 1.5\n    e: 1e7\n    f: .inf\n    g: 12345678901234567890\n    h: 123456789.0\n",
        )
        .unwrap();
        assert_eq!(h.kind, "7");
        let got: Vec<(&str, &str)> = h
            .annotations
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("a", "5"),
                ("b", "true"),
                ("c", ""),
                ("d", "1.5"),
                ("e", "1e+07"),
                ("f", "+Inf"),
                ("g", "12345678901234567890"),
                ("h", "1.2345679e+08"),
            ]
        );
    }

    #[test]
    fn fields_match_without_case() {
        // (`y` would be YAML 1.1 true, read as "true".)
        let h = head("Kind: A\nMETADATA:\n  Annotations:\n    x: z\n").unwrap();
        assert_eq!(h.kind, "A");
        assert_eq!(h.annotations.get("x").map(String::as_str), Some("z"));
        // "Kind" sorts before "kind": the last one decoded wins.
        assert_eq!(head("kind: B\nKind: A\n").unwrap().kind, "B");
        // The Kelvin sign folds to K.
        assert_eq!(head("\u{212a}ind: K\n").unwrap().kind, "K");
        // `null` keeps a string, empties the metadata.
        let h = head("kind: A\nKIND: null\nMetadata:\n  annotations: {a: b}\nmetadata: null\n")
            .unwrap();
        assert_eq!(h.kind, "A");
        assert!(h.annotations.is_empty());
    }

    #[test]
    fn type_errors_in_key_order() {
        let e = head("metadata: []\nkind: [a]\n").unwrap_err();
        assert!(
            e.ends_with(
                "cannot unmarshal array into Go struct field SimpleHead.kind of type string"
            ),
            "{e}"
        );
        let e = head("metadata:\n  name: {a: 1}\n").unwrap_err();
        assert!(
            e.ends_with(
                "cannot unmarshal object into Go struct field .metadata.name of type string"
            ),
            "{e}"
        );
        let e = head("true\n").unwrap_err();
        assert!(
            e.ends_with("cannot unmarshal bool into Go value of type util.SimpleHead"),
            "{e}"
        );
        // With a dotless i the key matches when decoding, not when
        // converting: the number stays a number.
        let e = head("ap\u{131}Version: 5\n").unwrap_err();
        assert!(
            e.ends_with(
                "cannot unmarshal number into Go struct field SimpleHead.apiVersion of type string"
            ),
            "{e}"
        );
    }

    #[test]
    fn unsupported_floats_first_in_sorted_order() {
        let e = head("kind: .inf\nspec:\n  z: .nan\n  a: [1, -.inf]\n").unwrap_err();
        assert_eq!(
            e,
            "error converting YAML to JSON: json: unsupported value: -Inf"
        );
        // Under an array bound for a string, a float is not converted.
        let e = head("kind: [.nan]\n").unwrap_err();
        assert_eq!(
            e,
            "error converting YAML to JSON: json: unsupported value: NaN"
        );
        assert!(head("kind: .nan\nmetadata:\n  name: -.inf\n").is_ok());
        assert!(head("a: .NaN\n").is_err());
        assert!(head("a: +.Inf\n").is_err());
        // A quick look: more texts than hold one (a word with ".info").
        assert!(may_spell_non_finite("b: x.info\n"));
        assert!(!may_spell_non_finite("a: 1.5\nc: .in"));
        assert!(may_spell_non_finite("a: -.INF\n"));
    }
}
