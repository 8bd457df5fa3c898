//! From paired objects to diff hunks: ignored fields dropped, Secret
//! values replaced, both sides printed as `flate build` prints them (keys
//! sorted, so key order never shows), then a line diff (`similar`).

use similar::{Algorithm, ChangeTag, TextDiff};

use crate::output::REDACTED;
use crate::yaml::Node;

use super::pairing::{Kind, Obj, Paired, RawPair};
use super::{DiffOptions, Pair, Status};

/// What a Secret value that differs between the sides shows as on the
/// head side (the base side shows [`REDACTED`]).
pub const REDACTED_CHANGED: &str = "<redacted: changed>";

/// One line of a hunk: `tag` is ' ', '-' or '+'; `text` has no newline.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Line {
    pub tag: char,
    pub text: String,
}

/// A unified-diff hunk. Starts are 1-based line numbers, as in
/// `@@ -old_start,old_lines +new_start,new_lines @@`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Hunk {
    pub old_start: usize,
    pub old_lines: usize,
    pub new_start: usize,
    pub new_lines: usize,
    pub lines: Vec<Line>,
}

impl Hunk {
    /// `@@ -a,b +c,d @@` (a count of 1 is omitted, as diff does).
    pub fn header(&self) -> String {
        fn range(start: usize, n: usize) -> String {
            match n {
                1 => format!("{start}"),
                _ => format!("{start},{n}"),
            }
        }
        format!(
            "@@ -{} +{} @@",
            range(self.old_start, self.old_lines),
            range(self.new_start, self.new_lines)
        )
    }
}

/// The hunks turning `old` into `new`, with `context` lines around changes.
pub fn hunks(old: &str, new: &str, context: usize) -> Vec<Hunk> {
    let diff = TextDiff::configure()
        .algorithm(Algorithm::Patience)
        .diff_lines(old, new);
    let mut out = Vec::new();
    for group in diff.grouped_ops(context) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let (o0, o1) = (first.old_range().start, last.old_range().end);
        let (n0, n1) = (first.new_range().start, last.new_range().end);
        let mut lines = Vec::new();
        for op in &group {
            for c in diff.iter_changes(op) {
                let tag = match c.tag() {
                    ChangeTag::Equal => ' ',
                    ChangeTag::Delete => '-',
                    ChangeTag::Insert => '+',
                };
                let v = c.value();
                lines.push(Line {
                    tag,
                    text: v.strip_suffix('\n').unwrap_or(v).to_string(),
                });
            }
        }
        // diff(1)'s convention: an empty range starts at the line before.
        let start = |s: usize, e: usize| if e > s { s + 1 } else { s };
        out.push(Hunk {
            old_start: start(o0, o1),
            old_lines: o1 - o0,
            new_start: start(n0, n1),
            new_lines: n1 - n0,
            lines,
        });
    }
    out
}

fn redact_all(n: &mut Node) {
    match n {
        Node::Map(m) => {
            for (_, v) in m.iter_mut() {
                redact_all(v);
            }
        }
        other => *other = Node::str(REDACTED),
    }
}

/// Replaces every value under `a` and `b` (the same field of the two
/// sides), map by map: a value equal on both sides becomes [`REDACTED`] on
/// both; a value that differs becomes [`REDACTED`] on the base and
/// [`REDACTED_CHANGED`] on the head, so the key shows as changed and the
/// values never show. Keys stay visible.
pub fn redact_pair(a: Option<&mut Node>, b: Option<&mut Node>) {
    match (a, b) {
        (Some(Node::Map(x)), Some(Node::Map(y))) => {
            let keys: Vec<String> = x.keys().chain(y.keys()).cloned().collect();
            for k in keys {
                if x.contains_key(&k) || y.contains_key(&k) {
                    redact_pair(x.get_mut(&k), y.get_mut(&k));
                }
            }
        }
        (Some(x), Some(y)) => {
            let same = x == y;
            *x = Node::str(REDACTED);
            *y = Node::str(if same { REDACTED } else { REDACTED_CHANGED });
        }
        (Some(x), None) | (None, Some(x)) => redact_all(x),
        (None, None) => {}
    }
}

/// The two sides of a pair, ignored fields dropped and secrets replaced,
/// with the paths of the differences the default ignores hid.
fn prepare(p: &RawPair<'_>, opts: &DiffOptions) -> (Option<Node>, Option<Node>, Vec<String>) {
    let both = p.base.is_some() && p.head.is_some();
    let prepare = |o: &Obj<'_>| {
        let mut n = o.node.clone().into_owned();
        for f in &opts.ignore {
            f.apply(&o.key.kind, &mut n);
        }
        let mut removed = Vec::new();
        for f in &opts.defaults {
            f.apply_collect(&o.key.kind, &mut n, &mut removed);
        }
        (n, removed)
    };
    let a = p.base.as_ref().map(prepare);
    let b = p.head.as_ref().map(prepare);
    let mut hidden = Vec::new();
    if let (true, Some((_, ra)), Some((_, rb))) = (both, &a, &b) {
        for (path, v) in ra {
            if !rb.iter().any(|(q, w)| q == path && w == v) {
                hidden.push(path.clone());
            }
        }
        for (path, _) in rb {
            if !ra.iter().any(|(q, _)| q == path) && !hidden.contains(path) {
                hidden.push(path.clone());
            }
        }
    }
    let mut a = a.map(|x| x.0);
    let mut b = b.map(|x| x.0);
    // A value secret on either side is redacted on both.
    for path in p
        .base
        .iter()
        .chain(p.head.iter())
        .flat_map(|o| &o.secret_paths)
    {
        redact_pair(
            a.as_mut()
                .and_then(|n| crate::secret::get_path_mut(n, path)),
            b.as_mut()
                .and_then(|n| crate::secret::get_path_mut(n, path)),
        );
    }
    (a, b, hidden)
}

/// The diff of every pair: the structural changes, and the line diff of
/// the YAML texts.
pub fn diff_pairs(paired: &Paired<'_>, opts: &DiffOptions) -> Vec<Pair> {
    paired
        .pairs
        .iter()
        .map(|p| {
            // Equal trees print equally: skip everything (most pairs).
            let same = matches!((&p.base, &p.head), (Some(x), Some(y)) if x.node == y.node);
            let (a, b, hidden) = if same {
                (None, None, Vec::new())
            } else {
                prepare(p, opts)
            };
            let print =
                |n: &Option<Node>| n.as_ref().map(crate::yaml::to_string).unwrap_or_default();
            let both = a.is_some() && b.is_some();
            let changes = match (&a, &b) {
                (Some(x), Some(y)) if opts.structural => {
                    super::structural::diff(x, y, opts.context)
                }
                _ => Vec::new(),
            };
            // Printing is needed for the line diff and for the text of an
            // added or removed object.
            let texts = (opts.text || !both) && !same;
            let (ta, tb) = if texts {
                (print(&a), print(&b))
            } else {
                Default::default()
            };
            let equal = same
                || (both && opts.structural && changes.is_empty())
                || (both && !opts.structural && ta == tb);
            let main = p.main();
            let status = match p.kind {
                Kind::Added => Status::Added,
                Kind::Removed => Status::Removed,
                Kind::Moved => Status::Moved,
                Kind::Matched if equal => Status::Unchanged,
                Kind::Matched => Status::Changed,
            };
            let hunks = if equal || !texts {
                Vec::new()
            } else {
                hunks(&ta, &tb, opts.context)
            };
            let base_name = match (&p.base, &p.head) {
                (Some(x), Some(y)) if x.key.name != y.key.name => Some(x.key.name.clone()),
                _ => None,
            };
            let moved_from = match (&p.base, &p.head) {
                (Some(x), Some(y)) if x.producer != y.producer => Some(x.producer.clone()),
                _ => None,
            };
            Pair {
                status,
                key: main.key.clone(),
                base_name,
                producer: main.producer.clone(),
                moved_from,
                hunks,
                changes,
                hidden,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse_one;

    #[test]
    fn hunk_headers_follow_diff_conventions() {
        let h = hunks("a\nb\nc\n", "a\nB\nc\n", 3);
        assert_eq!(h.len(), 1);
        assert_eq!(h[0].header(), "@@ -1,3 +1,3 @@");
        let added = hunks("", "x\ny\n", 3);
        assert_eq!(added[0].header(), "@@ -0,0 +1,2 @@");
        assert_eq!(added[0].lines.len(), 2);
        assert!(hunks("same\n", "same\n", 3).is_empty());
    }

    #[test]
    fn secret_values_are_replaced_and_keys_kept() {
        let mut a = parse_one("u: alice\np: old-pass\ngone: g\n").unwrap();
        let mut b = parse_one("u: alice\np: new-pass\nnew: n\n").unwrap();
        redact_pair(Some(&mut a), Some(&mut b));
        let (ta, tb) = (crate::yaml::to_string(&a), crate::yaml::to_string(&b));
        for secret in ["alice", "old-pass", "new-pass", ": g", ": n\n"] {
            assert!(!ta.contains(secret) && !tb.contains(secret), "{ta}{tb}");
        }
        assert!(tb.contains("p: '<redacted: changed>'"), "{tb}");
        assert!(ta.contains("p: '**redacted**'"), "{ta}");
        assert!(tb.contains("u: '**redacted**'") && ta.contains("u: '**redacted**'"));
        assert!(ta.contains("gone:") && tb.contains("new:"));
    }
}
