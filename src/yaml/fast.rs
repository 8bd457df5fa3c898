//! A quick reader for the simplest YAML documents: one document of block
//! mappings whose keys and values are plain one-line scalars (a large
//! ConfigMap's `data`, most generated files). It reads nothing the event
//! parser would read differently: it gives up (`None`) on the first line
//! that is anything else (a comment, an empty line, a list, a quote, a flow
//! collection, a block scalar, a key that is not a plain string, a
//! repeated key, an empty value, a continuation line) and the text goes to
//! the event parser (`parse::parse_text`), which also reports every error.
//! Its result is exactly the event parser's, metadata included (the source
//! text of a value whose text is not its canonical text).

use super::node::{Map, Node};
use super::parse::{Document, MAX_SCALAR_BYTES};
use super::resolve::{Schema, plain_round_trips, resolve_plain_owned};

/// Nesting deeper than this goes to the event parser (which enforces the
/// limit and names the line).
const MAX_FAST_DEPTH: usize = 64;

/// yaml-rust2 refuses a simple key longer than 1024 characters.
const MAX_KEY_BYTES: usize = 1000;

/// A block collection this large makes room for as many more entries as
/// the text has lines left (see `parse::RESERVE_AT`).
const RESERVE_AT: usize = 1024;

/// One line split into its parts: indentation, key, and value (`None` for
/// `key:` that opens a nested mapping).
struct Line<'a> {
    indent: usize,
    key: &'a str,
    value: Option<&'a str>,
}

fn split_line(line: &str) -> Option<Line<'_>> {
    let b = line.as_bytes();
    let indent = b.iter().take_while(|&&c| c == b' ').count();
    let rest = &line[indent..];
    let colon = rest.find(':')?;
    let key = &rest[..colon];
    // (`<<` is a merge key.)
    if key.len() > MAX_KEY_BYTES
        || key == "<<"
        || !plain_round_trips(key)
        || key.bytes().any(|c| c == b' ' || c == b'#')
    {
        return None;
    }
    let after = &rest[colon + 1..];
    if after.is_empty() {
        return Some(Line {
            indent,
            key,
            value: None,
        });
    }
    let value = after.strip_prefix(' ')?;
    if value.len() > MAX_SCALAR_BYTES || !plain_round_trips(value) {
        return None;
    }
    Some(Line {
        indent,
        key,
        value: Some(value),
    })
}

/// A key as the event parser keeps it: only a plain scalar that resolves
/// to the string of its own text.
fn key_string(key: &str, schema: Schema) -> Option<String> {
    match resolve_plain_owned(key.to_string(), schema) {
        (Node::Str(s), None) => Some(s),
        _ => None,
    }
}

/// Reads `text` when it is one document of plain block mappings; `None`
/// when the event parser must read it.
pub(crate) fn parse(text: &str, schema: Schema) -> Option<Vec<Document>> {
    let body = text.strip_suffix('\n')?;
    if body.is_empty() || body.contains(['\r', '\t']) {
        return None;
    }
    let total = body.bytes().filter(|&b| b == b'\n').count() + 1;
    // The open mappings: their indentation and entries, innermost last,
    // with the key each nested one goes under in its parent.
    let mut stack: Vec<(usize, Map, Option<String>)> = vec![(0, Map::new(), None)];
    // Set after `key:`: the next line must open the nested mapping.
    let mut pending: Option<String> = None;
    for (n, raw) in body.split('\n').enumerate() {
        let line = split_line(raw)?;
        let top = stack.last().map_or(0, |t| t.0);
        if let Some(key) = pending.take() {
            if line.indent <= top || stack.len() >= MAX_FAST_DEPTH {
                return None;
            }
            stack.push((line.indent, Map::new(), Some(key)));
        } else if line.indent > top {
            // A continuation line (or bad indentation).
            return None;
        } else {
            while stack.last().is_some_and(|t| t.0 > line.indent) {
                close(&mut stack)?;
            }
            if stack.last().map_or(0, |t| t.0) != line.indent {
                return None;
            }
        }
        let key = key_string(line.key, schema)?;
        let Some(value) = line.value else {
            pending = Some(key);
            continue;
        };
        let (node, source) = resolve_plain_owned(value.to_string(), schema);
        let raw_text = source.filter(|t| node.scalar_text().as_ref() != Some(t));
        let map = &mut stack.last_mut()?.1;
        let key_again = raw_text.as_ref().map(|_| key.clone());
        map.push_unique(key, node).ok()?;
        if let (Some(k), Some(t)) = (key_again, raw_text) {
            map.set_raw(&k, t);
        }
        if map.len() == RESERVE_AT {
            map.reserve(total - n);
        }
    }
    if pending.is_some() {
        return None;
    }
    while stack.len() > 1 {
        close(&mut stack)?;
    }
    let (_, mut root, _) = stack.pop()?;
    root.shrink_if_sparse();
    Some(vec![Document {
        node: Node::Map(root),
        line: 1,
    }])
}

/// Ends the innermost mapping and enters it under its key in its parent.
fn close(stack: &mut Vec<(usize, Map, Option<String>)>) -> Option<()> {
    let (_, mut map, key) = stack.pop()?;
    map.shrink_if_sparse();
    let parent = &mut stack.last_mut()?.1;
    parent.push_unique(key?, Node::Map(map)).ok()
}

/// Where the quick reader and the event parser disagree on `text` (in
/// either reading: go-yaml v3's, and `sigs.k8s.io/yaml`'s with JSON keys),
/// as a description; `None` when they agree or the quick reader leaves the
/// text to the event parser. For tests and the fuzz target.
pub fn mismatch(text: &str) -> Option<String> {
    for (schema, json_keys) in [(Schema::V3, false), (Schema::V2, true)] {
        let Some(fast) = parse(text, schema) else {
            continue;
        };
        let slow = match super::parse::parse_events(text, schema, json_keys) {
            Ok(docs) => docs,
            Err(e) => return Some(format!("{schema:?}: the event parser fails: {e}")),
        };
        let (a, b) = (dump_docs(&fast), dump_docs(&slow));
        if a != b {
            return Some(format!("{schema:?}: quick reader\n{a}\nevent parser\n{b}"));
        }
    }
    None
}

fn dump_docs(docs: &[Document]) -> String {
    let mut out = String::new();
    for d in docs {
        out.push_str(&format!("--- line {}\n", d.line));
        dump(&d.node, 0, &mut out);
    }
    out
}

/// A node with every piece of metadata a map keeps for its keys.
fn dump(n: &Node, depth: usize, out: &mut String) {
    let pad = "  ".repeat(depth);
    match n {
        Node::Map(m) => {
            out.push_str(&format!(
                "{pad}map flow={} foot={}\n",
                m.is_flow(),
                m.has_doc_foot_comment()
            ));
            for (k, v) in m.iter() {
                out.push_str(&format!(
                    "{pad}{k:?} raw={:?} quoted={} breaks={} tagless={} bad_tag={:?}\n",
                    m.raw_text(k),
                    m.is_quoted(k),
                    m.print_breaks(k),
                    m.is_tagless(k),
                    m.bad_tag(k)
                ));
                dump(v, depth + 1, out);
            }
        }
        Node::Seq(items) => {
            out.push_str(&format!("{pad}seq\n"));
            for it in items {
                dump(it, depth + 1, out);
            }
        }
        other => out.push_str(&format!("{pad}{other:?}\n")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Texts the quick reader takes, and texts it must leave to the event
    /// parser, each read by both where it takes them.
    #[test]
    fn agrees_with_the_event_parser() {
        let taken = [
            "a: b\n",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  key0: value0\n  key1: value1\n",
            "a:\n  b:\n    c: 1\n  d: 0o17\ne: 1.0\nf: TRUE\ng: 2001-12-14\nh: yes\ni: 0x1F\nj: 1e3\nk: null\n",
            "a: b c  d\nurl: https://example.org/x?y=1#z\np: a:b\nq: 100_000\nr: 1:20\ns: ${VAR}\n",
            "a:\n    deep: 1\nb: 2\n",
            "a: ~\ng: \\x\nb: it's\nc: say \"hi\"\nd: x[y\ne: x]\nf: a,b{c}\n",
        ];
        for t in taken {
            assert!(parse(t, Schema::V3).is_some(), "not taken: {t:?}");
            assert_eq!(mismatch(t), None, "{t:?}");
        }
        let left = [
            "",
            "a: b",
            "a: b\n\n",
            "# c\na: b\n",
            "a: b # c\n",
            "a: b\na: c\n",
            "a:\nb: c\n",
            "a:\n",
            "a: b\n  c\n",
            "a: - b\n",
            "- a\n",
            "a:\n- b\n",
            "a: 'b'\n",
            "a: \"b\"\n",
            "a: [b]\n",
            "a: {b: c}\n",
            "a: |\n  b\n",
            "a: >\n  b\n",
            "a: &x b\nc: *x\n",
            "a: !!str b\n",
            "1: b\n",
            "true: b\n",
            "2001-12-14: b\n",
            "<<: b\n",
            "a:  b\n",
            "a: b \n",
            "a:\tb\n",
            "a: b\r\n",
            "  a: b\n",
            "a:\n  b: 1\n c: 2\n",
            "a:\n    b: 1\n  c: 2\n",
            "---\na: b\n",
            "a: b\n---\nc: d\n",
            "a: b\n...\n",
            "%YAML 1.2\n---\na: b\n",
            "? a\n: b\n",
            "a b: c\n",
            "a: b:\n",
            "a: b: c\n",
            "a: -1\n",
            "a: .5\n",
            "a:b\n",
        ];
        for t in left {
            assert!(parse(t, Schema::V3).is_none(), "taken: {t:?}");
            assert!(parse(t, Schema::V2).is_none(), "taken: {t:?}");
        }
    }

    /// Every text of up to four lines built from these reads the same
    /// both ways wherever the quick reader takes it.
    #[test]
    fn agrees_on_combined_lines() {
        let parts = [
            "a: b",
            "a:",
            "  b: 1",
            "  b:",
            "    c: x y",
            "  d: 0o17",
            "e: 2001-12-14",
            " f: g",
            "h: i:j",
            "a: c",
            "  a: TRUE",
            "y: n",
            "k: 1_0",
            "    l: .inf",
        ];
        let mut texts = vec![String::new()];
        let mut taken = 0;
        for _ in 0..4 {
            let mut next = Vec::new();
            for t in &texts {
                for p in parts {
                    let text = format!("{t}{p}\n");
                    if parse(&text, Schema::V3).is_some() {
                        taken += 1;
                    }
                    assert_eq!(mismatch(&text), None, "{text:?}");
                    next.push(text);
                }
            }
            texts = next;
        }
        assert!(taken > 500, "{taken}");
    }

    /// Every fixture file the quick reader takes reads the same both ways.
    #[test]
    fn agrees_on_the_fixtures() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let mut stack = vec![root];
        let mut taken = 0;
        while let Some(dir) = stack.pop() {
            let Ok(rd) = std::fs::read_dir(&dir) else {
                continue;
            };
            for e in rd.flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "yaml" || x == "yml")
                    && let Ok(text) = std::fs::read_to_string(&p)
                {
                    if parse(&text, Schema::V3).is_some() {
                        taken += 1;
                    }
                    assert_eq!(mismatch(&text), None, "{}", p.display());
                }
            }
        }
        assert!(taken > 10, "only {taken} fixture files take the quick path");
    }
}
