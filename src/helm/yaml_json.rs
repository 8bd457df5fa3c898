//! What `sigs.k8s.io/yaml` (Helm's reader of values, `Chart.yaml`,
//! `fromYaml` and rendered manifests) says of YAML it cannot convert to
//! JSON: the text after "error converting YAML to JSON: ".
//!
//! Most of it is go-yaml's own error ("yaml: line 3: ..."). A key that
//! JSON cannot take (null, or an integer past `int64` that go-yaml v2
//! decodes as `uint64`) is the converter's: "unsupported map key of type:
//! T, key: K, value: V", the key and the value under it written as Go's
//! `%+#v` writes them (`map[interface {}]interface {}{"a":1}`).

use crate::template::value::{format_float_g, go_quote};
use crate::yaml::node::Node;
use crate::yaml::parse::{GoKey, go_key, parse_stream_typed_keys};
use crate::yaml::{ParseError, goerr};

/// The conversion error of `text`, which the reader refused with `e`.
pub(crate) fn conversion_error(text: &str, e: &ParseError) -> String {
    unsupported_key(text, e).unwrap_or_else(|| format!("yaml: {}", goerr::go_yaml_message(text, e)))
}

/// [`conversion_error`] for a stream Helm reads document by document (see
/// [`goerr::go_yaml_message_in_documents`]).
pub(crate) fn conversion_error_in_documents(text: &str, e: &ParseError) -> String {
    unsupported_key(text, e)
        .unwrap_or_else(|| format!("yaml: {}", goerr::go_yaml_message_in_documents(text, e)))
}

/// The converter's error for the key JSON cannot take that `e` reports, if
/// it is one: the first such key of the document holding `e`, keys before
/// values, in the order the document gives them. (Go converts a map's
/// entries in the random order of its map: of several such keys, which
/// one Helm names varies from run to run.)
fn unsupported_key(text: &str, e: &ParseError) -> Option<String> {
    if !e.message.starts_with("non-string map key ") {
        return None;
    }
    // The whole stream, else the document alone (a later document may
    // not read).
    let (docs, start) = match parse_stream_typed_keys(text) {
        Ok(docs) => (docs, 0),
        Err(_) => {
            let (start, doc) = goerr::document_text(text, e.line.saturating_sub(1))?;
            (parse_stream_typed_keys(&doc).ok()?, start)
        }
    };
    let doc = docs.iter().rev().find(|d| d.line + start <= e.line)?;
    first_unsupported(&doc.node)
}

fn first_unsupported(n: &Node) -> Option<String> {
    match n {
        Node::Map(m) => m.iter().find_map(|(k, v)| match go_key(k) {
            GoKey::Nil => Some(format!(
                "unsupported map key of type: %!s(<nil>), key: <nil>, value: {}",
                top_value(v)
            )),
            GoKey::UInt(u) => Some(format!(
                "unsupported map key of type: uint64, key: {u:#x}, value: {}",
                top_value(v)
            )),
            _ => first_unsupported(v),
        }),
        Node::Seq(items) => items.iter().find_map(first_unsupported),
        _ => None,
    }
}

/// A value as an argument of `fmt.Errorf`'s `%+#v`: nil is `<nil>`.
fn top_value(v: &Node) -> String {
    match v {
        Node::Null => "<nil>".into(),
        v => go_syntax(v),
    }
}

/// `%#v` of a value go-yaml v2 decoded into `interface{}`, as an element
/// of a slice or map.
fn go_syntax(v: &Node) -> String {
    match v {
        Node::Null => "interface {}(nil)".into(),
        Node::Bool(b) => b.to_string(),
        Node::Int(i) => i.to_string(),
        Node::UInt(u) => format!("{u:#x}"),
        Node::Float(f) => format_float_g(*f, None, false),
        Node::Str(s) => go_quote(s),
        Node::Seq(items) => {
            let parts: Vec<String> = items.iter().map(go_syntax).collect();
            format!("[]interface {{}}{{{}}}", parts.join(", "))
        }
        Node::Map(m) => {
            let mut entries: Vec<(GoKey, &Node)> = m.iter().map(|(k, v)| (go_key(k), v)).collect();
            entries.sort_by(|a, b| key_order(&a.0, &b.0));
            let parts: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("{}:{}", go_syntax(&key_node(k)), go_syntax(v)))
                .collect();
            format!("map[interface {{}}]interface {{}}{{{}}}", parts.join(", "))
        }
    }
}

/// A key as the value it is (printed as any element is).
fn key_node(k: &GoKey) -> Node {
    match k {
        GoKey::Nil => Node::Null,
        GoKey::Str(s) => Node::Str(s.clone()),
        GoKey::UInt(u) => Node::UInt(*u),
        GoKey::Int(i) => Node::Int(*i),
        GoKey::Float(f) => Node::Float(*f),
        GoKey::Bool(b) => Node::Bool(*b),
    }
}

/// The order `fmt` prints a map's keys in (`internal/fmtsort`): nil
/// first; keys of different types by their type (the address of its
/// descriptor in the executable, so Helm's: in Helm v4.1.4, string,
/// uint64, int, float64, bool); of one type by value, NaN first.
fn key_order(a: &GoKey, b: &GoKey) -> std::cmp::Ordering {
    let rank = |k: &GoKey| match k {
        GoKey::Nil => 0,
        GoKey::Str(_) => 1,
        GoKey::UInt(_) => 2,
        GoKey::Int(_) => 3,
        GoKey::Float(_) => 4,
        GoKey::Bool(_) => 5,
    };
    match (a, b) {
        (GoKey::Str(x), GoKey::Str(y)) => x.cmp(y),
        (GoKey::UInt(x), GoKey::UInt(y)) => x.cmp(y),
        (GoKey::Int(x), GoKey::Int(y)) => x.cmp(y),
        (GoKey::Float(x), GoKey::Float(y)) => x
            .partial_cmp(y)
            .unwrap_or_else(|| x.is_nan().cmp(&y.is_nan()).reverse()),
        (GoKey::Bool(x), GoKey::Bool(y)) => x.cmp(y),
        _ => rank(a).cmp(&rank(b)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(text: &str) -> String {
        let e = crate::yaml::parse::parse_stream_json_keys(text).unwrap_err();
        conversion_error(text, &e)
    }

    #[test]
    fn keys_of_every_type_in_go_order() {
        // Helm v4.1.4 on these values: `helm template` fails with this
        // text after "error converting YAML to JSON: ".
        assert_eq!(
            message(
                "x:\n  ~: {18446744073709551615: 1, ~: 2, 2: 3, \"s\": 4, 0.5: 5, true: 6, -9223372036854775809: 7}\n"
            ),
            "unsupported map key of type: %!s(<nil>), key: <nil>, value: map[interface {}]interface {}{interface {}(nil):2, \"s\":4, 0xffffffffffffffff:1, 2:3, -9.223372036854776e+18:7, 0.5:5, true:6}"
        );
    }

    #[test]
    fn other_errors_are_go_yamls() {
        assert_eq!(
            message("a: [\n"),
            "yaml: line 1: did not find expected node content"
        );
    }
}
