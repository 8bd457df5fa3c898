//! `--ignore-field PATH`: fields dropped from both sides before comparing.
//!
//! PATH is `[Kind:]seg.seg...`; a segment is a map key, a sequence index,
//! `*` (every key or element), or any text in brackets, for keys that
//! contain dots: `metadata.annotations[checksum/config]`,
//! `Deployment:spec.replicas`, `spec.template.spec.containers.*.image`.

use std::fmt;

use crate::yaml::Node;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Seg {
    Key(String),
    Any,
}

/// A parsed `--ignore-field` path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldPath {
    kind: Option<String>,
    segs: Vec<Seg>,
    text: String,
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Drops kustomize's build-metadata annotations: the file and the
/// transformers an object came from (`buildMetadata: [originAnnotations,
/// transformerAnnotations]`). They change when a file moves, never what
/// the object does.
pub fn defaults() -> Vec<FieldPath> {
    [
        "metadata.annotations[config.kubernetes.io/origin]",
        "metadata.annotations[alpha.config.kubernetes.io/transformations]",
    ]
    .iter()
    .map(|p| FieldPath::parse(p).expect("valid default path"))
    .collect()
}

impl FieldPath {
    pub fn parse(text: &str) -> Result<FieldPath, String> {
        let bad = |why: &str| Err(format!("--ignore-field '{text}': {why}"));
        let (kind, path) = match text.split_once(':') {
            Some((k, p))
                if !k.is_empty()
                    && k.chars().all(|c| c.is_ascii_alphanumeric())
                    && !p.starts_with(']') =>
            {
                (Some(k.to_string()), p)
            }
            _ => (None, text),
        };
        let mut segs = Vec::new();
        let mut cur = String::new();
        let mut chars = path.chars().peekable();
        let mut closed = false;
        while let Some(c) = chars.next() {
            match c {
                '[' => {
                    if !cur.is_empty() {
                        segs.push(seg(std::mem::take(&mut cur)));
                    }
                    let mut key = String::new();
                    let mut ok = false;
                    for c in chars.by_ref() {
                        if c == ']' {
                            ok = true;
                            break;
                        }
                        key.push(c);
                    }
                    if !ok {
                        return bad("unclosed '['");
                    }
                    segs.push(Seg::Key(key));
                    closed = true;
                    if let Some('.') = chars.peek() {
                        chars.next();
                        closed = false;
                    }
                }
                '.' => {
                    if cur.is_empty() {
                        return bad("empty segment");
                    }
                    segs.push(seg(std::mem::take(&mut cur)));
                }
                c => {
                    if closed {
                        return bad("'.' expected after ']'");
                    }
                    cur.push(c)
                }
            }
        }
        if !cur.is_empty() {
            segs.push(seg(cur));
        } else if !closed {
            return bad("empty segment");
        }
        Ok(FieldPath {
            kind,
            segs,
            text: text.to_string(),
        })
    }

    /// Removes the designated fields from `obj` (an object of `kind`).
    pub fn apply(&self, kind: &str, obj: &mut Node) {
        if self.kind.as_deref().is_some_and(|k| k != kind) {
            return;
        }
        remove(obj, &self.segs);
    }
}

fn seg(s: String) -> Seg {
    if s == "*" { Seg::Any } else { Seg::Key(s) }
}

fn remove(node: &mut Node, segs: &[Seg]) {
    let Some((first, rest)) = segs.split_first() else {
        return;
    };
    match node {
        Node::Map(m) => match first {
            Seg::Key(k) if rest.is_empty() => {
                m.remove(k);
            }
            Seg::Key(k) => {
                if let Some(v) = m.get_mut(k) {
                    remove(v, rest);
                }
            }
            Seg::Any if rest.is_empty() => m.retain(|_, _| false),
            Seg::Any => {
                for (_, v) in m.iter_mut() {
                    remove(v, rest);
                }
            }
        },
        Node::Seq(items) => match first {
            Seg::Key(k) => {
                let Ok(i) = k.parse::<usize>() else { return };
                if rest.is_empty() {
                    if i < items.len() {
                        items.remove(i);
                    }
                } else if let Some(v) = items.get_mut(i) {
                    remove(v, rest);
                }
            }
            Seg::Any if rest.is_empty() => items.clear(),
            Seg::Any => {
                for v in items.iter_mut() {
                    remove(v, rest);
                }
            }
        },
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse_one;

    fn apply(path: &str, kind: &str, yaml: &str) -> String {
        let mut n = parse_one(yaml).unwrap();
        FieldPath::parse(path).unwrap().apply(kind, &mut n);
        crate::yaml::to_string(&n)
    }

    #[test]
    fn dotted_keys_in_brackets_and_wildcards() {
        let y = "metadata:\n  annotations:\n    a.b/c: v1\n    d: v2\nspec:\n  c:\n  - image: i\n    name: nm\n  - image: j\n";
        assert_eq!(
            apply("metadata.annotations[a.b/c]", "X", y),
            "metadata:\n  annotations:\n    d: v2\nspec:\n  c:\n  - image: i\n    name: nm\n  - image: j\n"
        );
        assert_eq!(
            apply("spec.c.*.image", "X", y),
            "metadata:\n  annotations:\n    a.b/c: v1\n    d: v2\nspec:\n  c:\n  - name: nm\n  - {}\n"
        );
        assert_eq!(apply("Deployment:spec", "X", y), apply("nothing", "X", y));
        assert!(!apply("Deployment:spec", "Deployment", y).contains("spec"));
        assert!(!apply("spec.c.1", "X", y).contains("image: j"));
    }

    #[test]
    fn malformed_paths_are_errors() {
        for p in ["a..b", "a[b", "a[b]c", ""] {
            assert!(FieldPath::parse(p).is_err(), "{p}");
        }
    }
}
