//! Finding the line of a field. The node model keeps one line per
//! document, so the line of `spec.template.spec.containers[0].image` is
//! found again in the source text: from the document's first line, keys
//! are followed by indentation through block mappings and sequences (the
//! style every manifest in these repositories uses). Flow style, fields a
//! patch added, or anything unexpected fall back to the document's line.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::fs::FileSystem;

/// One step of a field path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seg {
    Key(String),
    Index(usize),
}

/// `spec.containers[0].image` → segments.
pub fn parse_path(p: &str) -> Vec<Seg> {
    let mut out = Vec::new();
    for part in p.split('.').filter(|s| !s.is_empty()) {
        let (key, rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !key.is_empty() {
            out.push(Seg::Key(key.to_string()));
        }
        for idx in rest.split('[').filter(|s| !s.is_empty()) {
            if let Ok(n) = idx.trim_end_matches(']').parse() {
                out.push(Seg::Index(n));
            }
        }
    }
    out
}

/// A JSON pointer (`/spec/containers/0/image`) as a dotted path
/// (`spec.containers[0].image`).
pub fn pointer_to_path(ptr: &str) -> String {
    let mut s = String::new();
    for raw in ptr.split('/').skip(1) {
        let seg = raw.replace("~1", "/").replace("~0", "~");
        if !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) {
            s.push_str(&format!("[{seg}]"));
        } else {
            if !s.is_empty() {
                s.push('.');
            }
            s.push_str(&seg);
        }
    }
    s
}

#[derive(Debug, Clone)]
struct Line {
    /// Column of the first token (a dash or a key).
    indent: usize,
    dash: bool,
    /// Key and its column.
    key: Option<(String, usize)>,
    blank: bool,
    doc_sep: bool,
}

fn unquote(k: &str) -> String {
    let k = k.trim();
    if k.len() >= 2
        && ((k.starts_with('"') && k.ends_with('"')) || (k.starts_with('\'') && k.ends_with('\'')))
    {
        k[1..k.len() - 1].to_string()
    } else {
        k.to_string()
    }
}

fn key_of(s: &str) -> Option<String> {
    // `key: value`, `key:`; quoted keys; not a flow mapping or a scalar.
    if s.starts_with('{') || s.starts_with('[') || s.starts_with('#') {
        return None;
    }
    let bytes = s.as_bytes();
    let mut in_q: Option<u8> = None;
    for (i, &b) in bytes.iter().enumerate() {
        match in_q {
            Some(q) if b == q => in_q = None,
            Some(_) => {}
            None if b == b'"' || b == b'\'' => in_q = Some(b),
            None if b == b':' && (i + 1 == bytes.len() || bytes[i + 1] == b' ') => {
                return Some(unquote(&s[..i]));
            }
            None if b == b'#' && i > 0 && bytes[i - 1] == b' ' => return None,
            _ => {}
        }
    }
    None
}

fn scan(line: &str) -> Line {
    let trimmed = line.trim_start_matches(' ');
    let indent = line.len() - trimmed.len();
    if trimmed.is_empty() || trimmed.starts_with('#') {
        return Line {
            indent,
            dash: false,
            key: None,
            blank: true,
            doc_sep: false,
        };
    }
    if trimmed.starts_with("---") || trimmed.starts_with("...") {
        return Line {
            indent,
            dash: false,
            key: None,
            blank: false,
            doc_sep: indent == 0,
        };
    }
    if trimmed == "-" || trimmed.starts_with("- ") {
        let rest = trimmed[1..].trim_start_matches(' ');
        let col = indent + (trimmed.len() - rest.len());
        return Line {
            indent,
            dash: true,
            key: key_of(rest).map(|k| (k, col)),
            blank: false,
            doc_sep: false,
        };
    }
    Line {
        indent,
        dash: false,
        key: key_of(trimmed).map(|k| (k, indent)),
        blank: false,
        doc_sep: false,
    }
}

/// The 1-based line of `path` in the document starting at 1-based line
/// `doc_line` of `text`.
pub fn find_in_text(text: &str, doc_line: usize, path: &[Seg]) -> Option<usize> {
    let lines: Vec<Line> = text.lines().map(scan).collect();
    let mut i = doc_line.checked_sub(1)?;
    // Skip to the first content line of the document.
    while i < lines.len() && (lines[i].blank || lines[i].doc_sep) {
        i += 1;
    }
    if i >= lines.len() {
        return None;
    }
    // The current node: a block mapping whose first key is on line `i`
    // at column `col` (when `inline` is true) or on the lines after `i`
    // deeper than `parent`.
    let mut start = i;
    let mut inline = true;
    let mut col: Option<usize> = lines[i].key.as_ref().map(|(_, c)| *c);
    let mut parent: isize = -1;
    // A document that is a sequence starts with its first item.
    let mut root_seq = lines[i].dash;
    for seg in path {
        match seg {
            Seg::Key(k) => {
                let mut target = if inline { col } else { None };
                let mut j = if inline { start } else { start + 1 };
                let mut found = None;
                while j < lines.len() {
                    let l = &lines[j];
                    if l.blank {
                        j += 1;
                        continue;
                    }
                    if l.doc_sep {
                        break;
                    }
                    if !(inline && j == start) {
                        let c = if l.dash {
                            l.indent
                        } else {
                            l.key.as_ref().map_or(l.indent, |x| x.1)
                        };
                        if (c as isize) <= parent {
                            break;
                        }
                        match target {
                            None if l.dash => return None,
                            None => target = Some(c),
                            Some(t) if c < t => break,
                            _ => {}
                        }
                        if l.dash {
                            // Items of a sequence that is a sibling's value.
                            j += 1;
                            continue;
                        }
                    }
                    if let Some((key, kc)) = &l.key
                        && Some(*kc) == target
                        && key == k
                    {
                        found = Some((j, *kc));
                        break;
                    }
                    j += 1;
                }
                let (j, kc) = found?;
                root_seq = false;
                start = j;
                inline = false;
                parent = kc as isize;
                col = None;
            }
            Seg::Index(n) => {
                // A block sequence: dash lines at one column after `start`.
                let mut j = if root_seq { start } else { start + 1 };
                root_seq = false;
                let mut dash_col: Option<usize> = None;
                let mut count = 0;
                let mut found = None;
                while j < lines.len() {
                    let l = &lines[j];
                    if l.doc_sep {
                        break;
                    }
                    if l.blank {
                        j += 1;
                        continue;
                    }
                    let c = l.indent;
                    match dash_col {
                        None => {
                            if !l.dash || (c as isize) < parent {
                                return None;
                            }
                            dash_col = Some(c);
                        }
                        Some(d) if c < d || (c == d && !l.dash) => break,
                        _ => {}
                    }
                    if l.dash && Some(c) == dash_col {
                        if count == *n {
                            found = Some(j);
                            break;
                        }
                        count += 1;
                    }
                    j += 1;
                }
                let j = found?;
                let d = dash_col? as isize;
                start = j;
                match &lines[j].key {
                    Some((_, kc)) => {
                        inline = true;
                        col = Some(*kc);
                    }
                    None => {
                        inline = false;
                        col = None;
                    }
                }
                parent = d;
            }
        }
    }
    Some(start + 1)
}

/// File contents read through a [`FileSystem`], cached, shared across
/// threads.
pub struct Locator<'a> {
    fs: &'a dyn FileSystem,
    cache: Mutex<HashMap<PathBuf, Option<Arc<String>>>>,
}

impl<'a> Locator<'a> {
    pub fn new(fs: &'a dyn FileSystem) -> Locator<'a> {
        Locator {
            fs,
            cache: Mutex::new(HashMap::new()),
        }
    }

    pub fn text(&self, file: &Path) -> Option<Arc<String>> {
        if let Some(t) = self.cache.lock().ok()?.get(file) {
            return t.clone();
        }
        let t = self.fs.read_to_string(file).ok().map(Arc::new);
        self.cache
            .lock()
            .ok()?
            .insert(file.to_path_buf(), t.clone());
        t
    }

    /// The line of `path` (dotted) in the document at `doc_line` of
    /// `file`, else `doc_line`.
    pub fn field_line(&self, file: &Path, doc_line: usize, path: &str) -> usize {
        self.text(file)
            .and_then(|t| find_in_text(&t, doc_line, &parse_path(path)))
            .unwrap_or(doc_line)
    }

    /// The first line at or after `from` (1-based) containing `needle`
    /// outside a comment line.
    pub fn line_containing(&self, file: &Path, from: usize, needle: &str) -> Option<usize> {
        let t = self.text(file)?;
        t.lines()
            .enumerate()
            .skip(from.saturating_sub(1))
            .find(|(_, l)| !l.trim_start().starts_with('#') && l.contains(needle))
            .map(|(i, _)| i + 1)
    }

    /// The line of `key: value` (quoted or not) at or after `from`, else of
    /// `value` alone.
    pub fn value_line(&self, file: &Path, from: usize, key: &str, value: &str) -> Option<usize> {
        [
            format!("{key}: {value}"),
            format!("{key}: \"{value}\""),
            format!("{key}: '{value}'"),
            value.to_string(),
        ]
        .iter()
        .find_map(|n| self.line_containing(file, from, n))
    }

    /// The first line containing `needle` in the first of `files` that
    /// holds it, preferring files that also contain every `context`
    /// string; the line is searched after the first line holding
    /// `after`, when given.
    pub fn search(
        &self,
        files: &[PathBuf],
        needle: &str,
        context: &[&str],
        after: Option<&str>,
    ) -> Option<(PathBuf, usize)> {
        let mut fallback = None;
        for f in files {
            let Some(t) = self.text(f) else { continue };
            if !t.contains(needle) {
                continue;
            }
            let from = after
                .and_then(|a| self.line_containing(f, 1, a))
                .unwrap_or(1);
            let line = self
                .line_containing(f, from, needle)
                .or_else(|| self.line_containing(f, 1, needle))?;
            if context.iter().all(|c| t.contains(c)) {
                return Some((f.clone(), line));
            }
            if fallback.is_none() {
                fallback = Some((f.clone(), line));
            }
        }
        fallback
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "# comment
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
        - name: a
          image: nginx
        - name: b
          image: busybox
          ports:
          - containerPort: 80
      volumes: []
---
apiVersion: v1
kind: Service
metadata:
  name: web
";

    fn at(doc: usize, p: &str) -> Option<usize> {
        find_in_text(DOC, doc, &parse_path(p))
    }

    #[test]
    fn follows_keys_and_items() {
        assert_eq!(at(2, "kind"), Some(3));
        assert_eq!(at(2, "metadata.name"), Some(5));
        assert_eq!(at(2, "spec.template.spec.containers[0].image"), Some(11));
        assert_eq!(at(2, "spec.template.spec.containers[1]"), Some(12));
        assert_eq!(at(2, "spec.template.spec.containers[1].name"), Some(12));
        assert_eq!(at(2, "spec.template.spec.containers[1].image"), Some(13));
        assert_eq!(
            at(2, "spec.template.spec.containers[1].ports[0].containerPort"),
            Some(15)
        );
        assert_eq!(at(2, "spec.template.spec.volumes"), Some(16));
        assert_eq!(at(18, "metadata.name"), Some(21));
    }

    #[test]
    fn misses_fall_back() {
        assert_eq!(at(2, "spec.replicas"), None);
        assert_eq!(at(2, "spec.template.spec.containers[5]"), None);
        // Does not run into the next document.
        assert_eq!(at(2, "apiVersion.x"), None);
        assert_eq!(at(18, "spec"), None);
    }

    #[test]
    fn pointers() {
        assert_eq!(
            pointer_to_path("/spec/containers/0/image"),
            "spec.containers[0].image"
        );
        assert_eq!(pointer_to_path(""), "");
        assert_eq!(
            pointer_to_path("/metadata/annotations/a~1b"),
            "metadata.annotations.a/b"
        );
        assert_eq!(
            parse_path("a.b[2][3].c"),
            vec![
                Seg::Key("a".into()),
                Seg::Key("b".into()),
                Seg::Index(2),
                Seg::Index(3),
                Seg::Key("c".into())
            ]
        );
    }
}
