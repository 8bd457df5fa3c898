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
    /// Zero or more levels.
    Deep,
    /// A key pattern with `*` inside.
    Glob(String),
}

/// `pat` (with `*` matching any text) matches `key`.
fn glob(pat: &str, key: &str) -> bool {
    let mut parts = pat.split('*');
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = key.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    for (i, p) in parts.iter().enumerate() {
        if i + 1 == parts.len() {
            return rest.len() >= p.len() && rest.ends_with(p);
        }
        match rest.find(p) {
            Some(at) => rest = &rest[at + p.len()..],
            None => return false,
        }
    }
    rest.is_empty()
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

/// The default ignore set (off with `--no-default-ignores`):
/// - kustomize's build-metadata annotations: the file and the transformers
///   an object came from (`buildMetadata: [originAnnotations,
///   transformerAnnotations]`); they change when a file moves, never what
///   the object does;
/// - chart-bump noise: the `helm.sh/chart` and `app.kubernetes.io/version`
///   labels and the `checksum/*` annotations charts stamp on every object
///   and pod template, at any depth.
pub const DEFAULTS: [&str; 5] = [
    "metadata.annotations[config.kubernetes.io/origin]",
    "metadata.annotations[alpha.config.kubernetes.io/transformations]",
    "**.labels[helm.sh/chart]",
    "**.labels[app.kubernetes.io/version]",
    "**.annotations[checksum/*]",
];

pub fn defaults() -> Vec<FieldPath> {
    DEFAULTS
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
                    segs.push(if key.contains('*') && key != "*" {
                        Seg::Glob(key)
                    } else {
                        Seg::Key(key)
                    });
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
        self.apply_collect(kind, obj, &mut Vec::new());
    }

    /// Removes the designated fields from `obj` and appends what was
    /// removed to `removed` as (path, value).
    pub fn apply_collect(&self, kind: &str, obj: &mut Node, removed: &mut Vec<(String, Node)>) {
        if self.kind.as_deref().is_some_and(|k| k != kind) {
            return;
        }
        remove(obj, &self.segs, &mut String::new(), removed);
    }
}

fn seg(s: String) -> Seg {
    match s.as_str() {
        "*" => Seg::Any,
        "**" => Seg::Deep,
        _ if s.contains('*') => Seg::Glob(s),
        _ => Seg::Key(s),
    }
}

fn remove(node: &mut Node, segs: &[Seg], path: &mut String, out: &mut Vec<(String, Node)>) {
    let Some((first, rest)) = segs.split_first() else {
        return;
    };
    let at = path.len();
    let step = |path: &mut String, k: &str| {
        path.truncate(at);
        let p = super::structural::child(path, k);
        *path = p;
    };
    if let Seg::Deep = first {
        remove(node, rest, path, out);
        match node {
            Node::Map(m) => {
                for (k, v) in m.iter_mut() {
                    step(path, k);
                    remove(v, segs, path, out);
                }
            }
            Node::Seq(items) => {
                for (i, v) in items.iter_mut().enumerate() {
                    step(path, &i.to_string());
                    remove(v, segs, path, out);
                }
            }
            _ => {}
        }
        path.truncate(at);
        return;
    }
    let matches = |k: &str| match first {
        Seg::Key(x) => x == k,
        Seg::Glob(g) => glob(g, k),
        Seg::Any => true,
        Seg::Deep => false,
    };
    match node {
        Node::Map(m) => {
            if rest.is_empty() {
                let hit: Vec<String> = m.keys().filter(|k| matches(k)).cloned().collect();
                for k in hit {
                    if let Some(v) = m.remove(&k) {
                        step(path, &k);
                        out.push((path.clone(), v));
                    }
                }
            } else if let Seg::Key(k) = first {
                if let Some(v) = m.get_mut(k) {
                    step(path, k);
                    remove(v, rest, path, out);
                }
            } else {
                for (k, v) in m.iter_mut() {
                    if matches(k) {
                        step(path, k);
                        remove(v, rest, path, out);
                    }
                }
            }
        }
        Node::Seq(items) => match first {
            Seg::Key(k) => {
                let Ok(i) = k.parse::<usize>() else { return };
                step(path, k);
                if rest.is_empty() {
                    if i < items.len() {
                        out.push((path.clone(), items.remove(i)));
                    }
                } else if let Some(v) = items.get_mut(i) {
                    remove(v, rest, path, out);
                }
            }
            Seg::Any if rest.is_empty() => {
                for (i, v) in items.drain(..).enumerate() {
                    step(path, &i.to_string());
                    out.push((path.clone(), v));
                }
            }
            Seg::Any => {
                for (i, v) in items.iter_mut().enumerate() {
                    step(path, &i.to_string());
                    remove(v, rest, path, out);
                }
            }
            Seg::Glob(_) | Seg::Deep => {}
        },
        _ => {}
    }
    path.truncate(at);
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
    fn globs_and_any_depth_collect_what_they_remove() {
        let y = "metadata:\n  labels:\n    helm.sh/chart: x-1.0\n    app: web\nspec:\n  template:\n    metadata:\n      annotations:\n        checksum/config: abc\n        checksum/secret: def\n        keep: k\n      labels:\n        helm.sh/chart: x-1.0\n";
        let mut n = parse_one(y).unwrap();
        let mut removed = Vec::new();
        for p in defaults() {
            p.apply_collect("Deployment", &mut n, &mut removed);
        }
        let paths: Vec<&str> = removed.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            paths,
            [
                "metadata.labels[helm.sh/chart]",
                "spec.template.metadata.labels[helm.sh/chart]",
                "spec.template.metadata.annotations.checksum/config",
                "spec.template.metadata.annotations.checksum/secret",
            ]
        );
        let t = crate::yaml::to_string(&n);
        assert!(
            t.contains("app: web") && t.contains("keep: k") && !t.contains("x-1.0"),
            "{t}"
        );
        assert!(glob("a*c*e", "abcde") && !glob("a*c", "abcd") && glob("checksum/*", "checksum/"));
    }

    #[test]
    fn malformed_paths_are_errors() {
        for p in ["a..b", "a[b", "a[b]c", ""] {
            assert!(FieldPath::parse(p).is_err(), "{p}");
        }
    }
}
