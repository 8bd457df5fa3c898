//! Parsing YAML text into [`Node`]s with a maintained event parser
//! (yaml-rust2). Aliases are expanded (with a cap against alias bombs),
//! `<<` merge keys are applied, duplicate keys are rejected, and every
//! document records the line it starts on.

use std::collections::HashMap;

use yaml_rust2::parser::{Event, Parser, Tag};
use yaml_rust2::scanner::TScalarStyle;

use super::node::{Map, Node};
use super::resolve::{Schema, resolve_plain};

/// A YAML syntax error with its position (1-based line and column).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.col, self.message
        )
    }
}

impl std::error::Error for ParseError {}

/// One document of a stream.
#[derive(Debug, Clone)]
pub struct Document {
    pub node: Node,
    /// 1-based line of the document's first content.
    pub line: usize,
}

/// Upper bound on nodes produced by alias expansion in one stream.
const MAX_ALIAS_NODES: usize = 1_000_000;

/// Parses every document of `text` (V3 resolution rules).
pub fn parse_stream(text: &str) -> Result<Vec<Document>, ParseError> {
    parse_stream_with(text, Schema::V3)
}

pub fn parse_stream_with(text: &str, schema: Schema) -> Result<Vec<Document>, ParseError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if let Some((i, c)) = text
        .char_indices()
        .find(|&(_, c)| (c < ' ' && c != '\t' && c != '\n' && c != '\r') || c == '\u{7f}')
    {
        let line = text[..i].matches('\n').count() + 1;
        return Err(ParseError {
            line,
            col: 1,
            message: format!(
                "control characters are not allowed (found U+{:04X})",
                c as u32
            ),
        });
    }
    let mut b = Builder {
        parser: Parser::new_from_str(text),
        schema,
        anchors: HashMap::new(),
        alias_nodes: 0,
    };
    let mut docs = Vec::new();
    loop {
        let (ev, mark) = b.next()?;
        match ev {
            Event::StreamStart | Event::DocumentEnd | Event::Nothing => {}
            Event::StreamEnd => break,
            Event::DocumentStart => {
                let (ev, mark) = b.next()?;
                if matches!(ev, Event::DocumentEnd) {
                    continue;
                }
                let node = b.node(ev, mark.line())?;
                if !node.is_null() {
                    docs.push(Document {
                        node,
                        line: mark.line(),
                    });
                }
            }
            other => {
                let node = b.node(other, mark.line())?;
                docs.push(Document {
                    node,
                    line: mark.line(),
                });
            }
        }
    }
    Ok(docs)
}

/// Parses exactly one document (an empty text is `Null`).
pub fn parse_one(text: &str) -> Result<Node, ParseError> {
    let mut docs = parse_stream(text)?;
    match docs.len() {
        0 => Ok(Node::Null),
        1 => Ok(docs.remove(0).node),
        n => Err(ParseError {
            line: docs[1].line,
            col: 1,
            message: format!("expected a single document, found {n}"),
        }),
    }
}

struct Builder<'a> {
    parser: Parser<std::str::Chars<'a>>,
    schema: Schema,
    anchors: HashMap<usize, (Node, usize)>,
    alias_nodes: usize,
}

fn count(n: &Node) -> usize {
    match n {
        Node::Seq(s) => 1 + s.iter().map(count).sum::<usize>(),
        Node::Map(m) => 1 + m.iter().map(|(_, v)| 1 + count(v)).sum::<usize>(),
        _ => 1,
    }
}

fn is_core_tag(tag: &Tag) -> Option<&str> {
    if tag.handle == "!!" || tag.handle == "tag:yaml.org,2002:" {
        Some(tag.suffix.as_str())
    } else {
        None
    }
}

impl Builder<'_> {
    fn next(&mut self) -> Result<(Event, yaml_rust2::scanner::Marker), ParseError> {
        self.parser.next_token().map_err(|e| ParseError {
            line: e.marker().line(),
            col: e.marker().col() + 1,
            message: e.info().to_string(),
        })
    }

    fn anchor(&mut self, id: usize, node: &Node) {
        if id > 0 {
            let c = count(node);
            self.anchors.insert(id, (node.clone(), c));
        }
    }

    fn node(&mut self, ev: Event, line: usize) -> Result<Node, ParseError> {
        match ev {
            Event::Scalar(text, style, anchor, tag) => {
                let n = self.scalar(text, style, tag.as_ref(), line)?;
                self.anchor(anchor, &n);
                Ok(n)
            }
            Event::Alias(id) => {
                let (n, c) = self.anchors.get(&id).cloned().ok_or_else(|| ParseError {
                    line,
                    col: 1,
                    message: "unknown anchor".into(),
                })?;
                self.alias_nodes += c;
                if self.alias_nodes > MAX_ALIAS_NODES {
                    return Err(ParseError {
                        line,
                        col: 1,
                        message: format!(
                            "document contains excessive aliasing (more than {MAX_ALIAS_NODES} nodes from aliases)"
                        ),
                    });
                }
                Ok(n)
            }
            Event::SequenceStart(anchor, _) => {
                let mut items = Vec::new();
                loop {
                    let (ev, mark) = self.next()?;
                    if matches!(ev, Event::SequenceEnd) {
                        break;
                    }
                    items.push(self.node(ev, mark.line())?);
                }
                let n = Node::Seq(items);
                self.anchor(anchor, &n);
                Ok(n)
            }
            Event::MappingStart(anchor, _) => {
                let mut map = Map::new();
                let mut merges: Vec<Node> = Vec::new();
                let mut lines: HashMap<String, usize> = HashMap::new();
                loop {
                    let (ev, mark) = self.next()?;
                    if matches!(ev, Event::MappingEnd) {
                        break;
                    }
                    let key_line = mark.line();
                    let is_merge =
                        matches!(&ev, Event::Scalar(t, TScalarStyle::Plain, _, None) if t == "<<");
                    let key = self.node(ev, key_line)?;
                    let (ev, mark) = self.next()?;
                    let value = self.node(ev, mark.line())?;
                    if is_merge {
                        merges.push(value);
                        continue;
                    }
                    let key = match key {
                        Node::Str(s) => s,
                        Node::Map(_) | Node::Seq(_) => {
                            return Err(ParseError {
                                line: key_line,
                                col: mark.col() + 1,
                                message: "complex mapping keys are not supported".into(),
                            });
                        }
                        other => {
                            return Err(ParseError {
                                line: key_line,
                                col: 1,
                                message: format!(
                                    "non-string map key {} ({}): quote it",
                                    other.scalar_text().unwrap_or_default(),
                                    other.kind_name()
                                ),
                            });
                        }
                    };
                    if let Some(prev) = lines.get(&key) {
                        return Err(ParseError {
                            line: key_line,
                            col: 1,
                            message: format!(
                                "mapping key \"{key}\" already defined at line {prev}"
                            ),
                        });
                    }
                    lines.insert(key.clone(), key_line);
                    map.insert(key, value);
                }
                for m in merges {
                    let sources = match m {
                        Node::Map(m) => vec![m],
                        Node::Seq(items) => {
                            let mut v = Vec::new();
                            for it in items {
                                match it {
                                    Node::Map(m) => v.push(m),
                                    _ => {
                                        return Err(ParseError {
                                            line,
                                            col: 1,
                                            message: "map merge requires map or sequence of maps as the value".into(),
                                        });
                                    }
                                }
                            }
                            v
                        }
                        _ => {
                            return Err(ParseError {
                                line,
                                col: 1,
                                message: "map merge requires map or sequence of maps as the value"
                                    .into(),
                            });
                        }
                    };
                    for src in sources {
                        for (k, v) in src {
                            if !map.contains_key(&k) {
                                map.insert(k, v);
                            }
                        }
                    }
                }
                let n = Node::Map(map);
                self.anchor(anchor, &n);
                Ok(n)
            }
            other => Err(ParseError {
                line,
                col: 1,
                message: format!("unexpected YAML event {other:?}"),
            }),
        }
    }

    fn scalar(
        &self,
        text: String,
        style: TScalarStyle,
        tag: Option<&Tag>,
        line: usize,
    ) -> Result<Node, ParseError> {
        if let Some(t) = tag
            && let Some(core) = is_core_tag(t)
        {
            let bad = |what: &str| ParseError {
                line,
                col: 1,
                message: format!("cannot decode {text:?} as !!{what}"),
            };
            return match core {
                "str" | "binary" => Ok(Node::Str(text)),
                "null" => Ok(Node::Null),
                "bool" => match resolve_plain(&text, self.schema) {
                    n @ Node::Bool(_) => Ok(n),
                    _ => Err(bad("bool")),
                },
                "int" => match resolve_plain(&text, self.schema) {
                    n @ (Node::Int(_) | Node::UInt(_)) => Ok(n),
                    _ => Err(bad("int")),
                },
                "float" => match resolve_plain(&text, self.schema) {
                    n @ Node::Float(_) => Ok(n),
                    Node::Int(i) => Ok(Node::Float(i as f64)),
                    _ => Err(bad("float")),
                },
                "timestamp" => Ok(resolve_plain(&text, self.schema)),
                _ => Ok(Node::Str(text)),
            };
        }
        // An application tag (`!Ref x`): quoted stays a string, plain
        // resolves as usual.
        Ok(match style {
            TScalarStyle::Plain => resolve_plain(&text, self.schema),
            _ => Node::Str(text),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_and_lines() {
        let docs = parse_stream("---\na: 1\n---\n# c\n---\nb: \"2\"\n").unwrap();
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[0].node.get("a"), Some(&Node::Int(1)));
        assert_eq!(docs[1].node.get("b"), Some(&Node::str("2")));
        assert_eq!(docs[1].line, 6);
    }

    #[test]
    fn merge_keys_and_aliases() {
        let n = parse_one("base: &b {x: 1, y: 2}\nd:\n  <<: *b\n  y: 3\n").unwrap();
        assert_eq!(n.get_path(&["d", "x"]), Some(&Node::Int(1)));
        assert_eq!(n.get_path(&["d", "y"]), Some(&Node::Int(3)));
    }

    #[test]
    fn alias_bomb_is_refused() {
        let mut s = String::from(
            "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
        );
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
        for w in names.windows(2) {
            s.push_str(&format!(
                "{}: &{} [*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p}]\n",
                w[1],
                w[1],
                p = w[0]
            ));
        }
        let err = parse_stream(&s).unwrap_err();
        assert!(err.message.contains("excessive aliasing"), "{err}");
    }

    #[test]
    fn duplicate_keys_fail() {
        let err = parse_one("a: 1\nb: 2\na: 3\n").unwrap_err();
        assert_eq!(err.line, 3);
    }

    #[test]
    fn syntax_errors_have_lines() {
        let err = parse_stream("a: 1\nb: [1, 2\nc: 3\n").unwrap_err();
        assert!(err.line >= 2, "{err}");
    }
}
