//! The structural diff: what changed in an object, field by field.
//!
//! Two versions of an object (ignored fields already dropped, Secret
//! values already replaced) are walked together. Every difference is one
//! [`Change`] at a YAML path such as
//! `spec.template.spec.containers[name=app].image`:
//! - maps compare key by key;
//! - list entries pair by identity: the strategic-merge keys of the
//!   built-in schema kustomize uses (containers, env, volumes by `name`,
//!   container ports by `containerPort` and `protocol`, ...), else, for
//!   custom kinds, the first of `name`, `key`, `id` that every entry has
//!   with distinct values. Paired entries that only moved give one
//!   [`Change::Reordered`] for the list instead of phantom churn;
//! - lists of scalars compare as sets when only the order changed, else as
//!   a line diff of their items;
//! - strings with several lines (embedded configuration, scripts) give a
//!   line diff inside the field.

use similar::{Algorithm, DiffOp, capture_diff_slices};

use crate::kustomize::openapi::{self, Ty};
use crate::yaml::Node;
use crate::yaml::emit::key_less;

use super::text::{Hunk, hunks};

/// One difference between two versions of an object.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Change {
    /// A value replaced (a scalar, or a value whose type changed). Values
    /// are shown as one line when they are scalars, else as YAML.
    Changed {
        path: String,
        old: String,
        new: String,
    },
    /// A field or list entry that only the head has (`value` as YAML).
    Added { path: String, value: String },
    /// A field or list entry that only the base has.
    Removed { path: String, value: String },
    /// The same list entries in another order.
    Reordered { path: String },
    /// A multi-line string, or a list of scalars, as a line diff.
    Lines { path: String, hunks: Vec<Hunk> },
}

impl Change {
    pub fn path(&self) -> &str {
        match self {
            Change::Changed { path, .. }
            | Change::Added { path, .. }
            | Change::Removed { path, .. }
            | Change::Reordered { path }
            | Change::Lines { path, .. } => path,
        }
    }

    /// The change as one line when it fits on one (`path: old → new`), with
    /// the sign a diff would give it.
    pub fn one_line(&self) -> Option<String> {
        let single = |s: &str| !s.contains('\n');
        match self {
            Change::Changed { path, old, new } if single(old) && single(new) => {
                Some(format!("{path}: {} → {}", shown(old), shown(new)))
            }
            Change::Added { path, value } if single(value) => {
                Some(format!("{path}: added {}", shown(value)))
            }
            Change::Removed { path, value } if single(value) => {
                Some(format!("{path}: removed {}", shown(value)))
            }
            Change::Reordered { path } => Some(format!("{path}: ⇆ order changed")),
            _ => None,
        }
    }

    /// The change as diff lines (`-old`, `+new`, or the hunks of a line
    /// diff without their headers), for fenced `diff` blocks and views.
    pub fn diff_lines(&self) -> Vec<String> {
        let block = |sign: char, s: &str| -> Vec<String> {
            s.strip_suffix('\n')
                .unwrap_or(s)
                .split('\n')
                .map(|l| format!("{sign}{l}"))
                .collect()
        };
        match self {
            Change::Changed { old, new, .. } => {
                let mut v = block('-', old);
                v.extend(block('+', new));
                v
            }
            Change::Added { value, .. } => block('+', value),
            Change::Removed { value, .. } => block('-', value),
            Change::Reordered { .. } => vec![" ⇆ order changed".into()],
            Change::Lines { hunks, .. } => {
                let mut v = Vec::new();
                for (i, h) in hunks.iter().enumerate() {
                    if i > 0 {
                        v.push(" …".into());
                    }
                    v.extend(h.lines.iter().map(|l| format!("{}{}", l.tag, l.text)));
                }
                v
            }
        }
    }
}

/// An empty string or one with surrounding spaces, quoted so it shows.
fn shown(s: &str) -> String {
    if s.is_empty() || s.trim() != s {
        format!("{s:?}")
    } else {
        s.to_string()
    }
}

/// A value as text: a scalar's text, else YAML.
pub fn value_text(n: &Node) -> String {
    match n {
        Node::Map(m) if m.is_empty() => "{}".into(),
        Node::Seq(s) if s.is_empty() => "[]".into(),
        Node::Map(_) | Node::Seq(_) => crate::yaml::to_string(n),
        Node::Str(s) => s.clone(),
        other => other.scalar_text().unwrap_or_default(),
    }
}

/// `path.key`, or `path[key]` for a key that would not read as one segment.
pub fn child(path: &str, key: &str) -> String {
    let plain = !key.is_empty() && !key.contains(['.', '[', ']', ' ', '=']);
    match (path.is_empty(), plain) {
        (true, true) => key.to_string(),
        (false, true) => format!("{path}.{key}"),
        (_, false) => format!("{path}[{key}]"),
    }
}

/// Where a node is in the built-in schema kustomize uses.
#[derive(Clone, Copy)]
enum Schema {
    /// Unknown (custom kinds, free-form values).
    None,
    /// An object of this definition.
    Def(u16),
    /// A map whose keys are data (labels, a ConfigMap's data) and whose
    /// values are objects of this definition, if any.
    MapOf(Option<u16>),
}

impl Schema {
    fn def(d: Option<u16>) -> Schema {
        d.map_or(Schema::None, Schema::Def)
    }
    /// The schema of the value at `key` of a map of this schema, and the
    /// merge keys when it is a keyed list.
    fn field(self, key: &str) -> (Schema, &'static [&'static str]) {
        match self {
            Schema::None => (Schema::None, &[]),
            Schema::MapOf(d) => (Schema::def(d), &[]),
            Schema::Def(def) => match openapi::field(def, key) {
                Some(Ty::Object(d)) => (Schema::Def(d), &[]),
                Some(Ty::MapOf(d)) => (Schema::MapOf(d), &[]),
                Some(Ty::List { item, .. }) => (Schema::def(item), openapi::merge_keys(def, key)),
                _ => (Schema::None, &[]),
            },
        }
    }
    fn or(self, other: Schema) -> Schema {
        if matches!(self, Schema::None) {
            other
        } else {
            self
        }
    }
}

struct Walker<'o> {
    context: usize,
    out: &'o mut Vec<Change>,
}

/// The changes turning `old` into `new` (two versions of one object).
pub fn diff(old: &Node, new: &Node, context: usize) -> Vec<Change> {
    let mut out = Vec::new();
    if old == new {
        return out;
    }
    let schema = schema_of(new).or(schema_of(old));
    let mut w = Walker {
        context,
        out: &mut out,
    };
    w.node("", old, new, schema);
    out
}

fn schema_of(n: &Node) -> Schema {
    let api = n.get_str(&["apiVersion"]).unwrap_or_default();
    let kind = n.get_str(&["kind"]).unwrap_or_default();
    let (group, version) = api.rsplit_once('/').unwrap_or(("", api));
    Schema::def(openapi::def_for_gvk(group, version, kind))
}

impl Walker<'_> {
    fn node(&mut self, path: &str, a: &Node, b: &Node, schema: Schema) {
        if a == b {
            return;
        }
        match (a, b) {
            (Node::Map(x), Node::Map(y)) => {
                let mut keys: Vec<&String> = x.keys().collect();
                keys.extend(y.keys().filter(|k| !x.contains_key(k)));
                keys.sort_by(|p, q| {
                    if key_less(p, q) {
                        std::cmp::Ordering::Less
                    } else if key_less(q, p) {
                        std::cmp::Ordering::Greater
                    } else {
                        std::cmp::Ordering::Equal
                    }
                });
                for k in keys {
                    let p = child(path, k);
                    let (sub, merge) = schema.field(k);
                    match (x.get(k), y.get(k)) {
                        (Some(u), Some(v)) => match (u, v) {
                            (Node::Seq(s), Node::Seq(t)) => self.seq(&p, s, t, sub, merge),
                            _ => self.node(&p, u, v, sub),
                        },
                        (Some(u), None) => self.out.push(Change::Removed {
                            path: p,
                            value: value_text(u),
                        }),
                        (None, Some(v)) => self.out.push(Change::Added {
                            path: p,
                            value: value_text(v),
                        }),
                        (None, None) => {}
                    }
                }
            }
            (Node::Seq(s), Node::Seq(t)) => self.seq(path, s, t, schema, &[]),
            (Node::Str(s), Node::Str(t)) if s.contains('\n') || t.contains('\n') => {
                let line = |x: &str| {
                    if x.ends_with('\n') || x.is_empty() {
                        x.to_string()
                    } else {
                        format!("{x}\n")
                    }
                };
                self.out.push(Change::Lines {
                    path: path.to_string(),
                    hunks: hunks(&line(s), &line(t), self.context),
                });
            }
            _ => self.out.push(Change::Changed {
                path: path.to_string(),
                old: value_text(a),
                new: value_text(b),
            }),
        }
    }

    fn seq(&mut self, path: &str, a: &[Node], b: &[Node], item: Schema, merge: &[&str]) {
        if a == b {
            return;
        }
        if let Some(keys) = identity(a, b, merge) {
            self.keyed(path, a, b, item, &keys);
        } else if a.iter().chain(b).all(Node::is_scalar) {
            self.scalars(path, a, b);
        } else if a.len() == b.len() {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                self.item(&format!("{path}[{i}]"), x, y, item);
            }
        } else {
            let (ta, tb): (Vec<String>, Vec<String>) = (
                a.iter().map(crate::yaml::to_string).collect(),
                b.iter().map(crate::yaml::to_string).collect(),
            );
            for op in capture_diff_slices(Algorithm::Myers, &ta, &tb) {
                match op {
                    DiffOp::Equal { .. } => {}
                    DiffOp::Delete {
                        old_index, old_len, ..
                    } => self.removed_items(path, a, old_index, old_len),
                    DiffOp::Insert {
                        new_index, new_len, ..
                    } => self.added_items(path, b, new_index, new_len),
                    DiffOp::Replace {
                        old_index,
                        old_len,
                        new_index,
                        new_len,
                    } => {
                        let n = old_len.min(new_len);
                        for i in 0..n {
                            self.item(
                                &format!("{path}[{}]", new_index + i),
                                &a[old_index + i],
                                &b[new_index + i],
                                item,
                            );
                        }
                        self.removed_items(path, a, old_index + n, old_len - n);
                        self.added_items(path, b, new_index + n, new_len - n);
                    }
                }
            }
        }
    }

    fn item(&mut self, path: &str, a: &Node, b: &Node, schema: Schema) {
        match (a, b) {
            (Node::Seq(s), Node::Seq(t)) => self.seq(path, s, t, Schema::None, &[]),
            _ => self.node(path, a, b, schema),
        }
    }

    fn removed_items(&mut self, path: &str, a: &[Node], from: usize, len: usize) {
        for (i, n) in a.iter().enumerate().skip(from).take(len) {
            self.out.push(Change::Removed {
                path: format!("{path}[{i}]"),
                value: value_text(n),
            });
        }
    }

    fn added_items(&mut self, path: &str, b: &[Node], from: usize, len: usize) {
        for (i, n) in b.iter().enumerate().skip(from).take(len) {
            self.out.push(Change::Added {
                path: format!("{path}[{i}]"),
                value: value_text(n),
            });
        }
    }

    fn keyed(&mut self, path: &str, a: &[Node], b: &[Node], item: Schema, keys: &[String]) {
        let ids = |s: &[Node]| -> Vec<String> { s.iter().map(|n| id_of(n, keys)).collect() };
        let (ia, ib) = (ids(a), ids(b));
        let pos = |ids: &[String]| -> std::collections::HashMap<String, usize> {
            ids.iter()
                .enumerate()
                .map(|(i, k)| (k.clone(), i))
                .collect()
        };
        let (pa, pb) = (pos(&ia), pos(&ib));
        for (i, id) in ia.iter().enumerate() {
            if !pb.contains_key(id) {
                self.out.push(Change::Removed {
                    path: format!("{path}[{id}]"),
                    value: value_text(&a[i]),
                });
            }
        }
        for (j, id) in ib.iter().enumerate() {
            match pa.get(id) {
                None => self.out.push(Change::Added {
                    path: format!("{path}[{id}]"),
                    value: value_text(&b[j]),
                }),
                Some(&i) => self.item(&format!("{path}[{id}]"), &a[i], &b[j], item),
            }
        }
        let common_a: Vec<&String> = ia.iter().filter(|k| pb.contains_key(*k)).collect();
        let common_b: Vec<&String> = ib.iter().filter(|k| pa.contains_key(*k)).collect();
        if common_a != common_b {
            self.out.push(Change::Reordered {
                path: path.to_string(),
            });
        }
    }

    fn scalars(&mut self, path: &str, a: &[Node], b: &[Node]) {
        let text = |s: &[Node]| -> Vec<String> {
            s.iter()
                .map(|n| value_text(n).replace('\n', "\\n"))
                .collect()
        };
        let (ta, tb) = (text(a), text(b));
        let (mut sa, mut sb) = (ta.clone(), tb.clone());
        sa.sort();
        sb.sort();
        if sa == sb {
            self.out.push(Change::Reordered {
                path: path.to_string(),
            });
            return;
        }
        let join = |v: &[String]| v.iter().map(|s| format!("{s}\n")).collect::<String>();
        self.out.push(Change::Lines {
            path: path.to_string(),
            hunks: hunks(&join(&ta), &join(&tb), self.context),
        });
    }
}

/// `name=app`, or `containerPort=80,protocol=TCP`.
fn id_of(n: &Node, keys: &[String]) -> String {
    keys.iter()
        .filter_map(|k| {
            let v = n.get(k)?.scalar_text()?;
            Some(format!("{k}={v}"))
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// The keys that identify the entries of a list on both sides: the
/// schema's merge keys, else the first of `name`, `key`, `id` that every
/// entry has as a scalar; `None` when entries are not maps or two entries
/// of one side share an identity.
fn identity(a: &[Node], b: &[Node], merge: &[&str]) -> Option<Vec<String>> {
    if a.is_empty() && b.is_empty() {
        return None;
    }
    let maps = a.iter().chain(b).all(|n| matches!(n, Node::Map(_)));
    if !maps {
        return None;
    }
    let unique = |keys: &[String]| {
        [a, b].iter().all(|side| {
            let mut seen = std::collections::HashSet::new();
            side.iter().all(|n| {
                let id = id_of(n, keys);
                !id.is_empty() && seen.insert(id)
            })
        })
    };
    if !merge.is_empty() {
        let keys: Vec<String> = merge.iter().map(|s| s.to_string()).collect();
        // The first key must be present (protocol defaults when absent).
        let first = a
            .iter()
            .chain(b)
            .all(|n| n.get(&keys[0]).is_some_and(Node::is_scalar));
        if first && unique(&keys) {
            return Some(keys);
        }
    }
    for k in ["name", "key", "id"] {
        let keys = vec![k.to_string()];
        let all = a
            .iter()
            .chain(b)
            .all(|n| n.get(k).is_some_and(Node::is_scalar));
        if all && unique(&keys) {
            return Some(keys);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse_one;

    fn d(a: &str, b: &str) -> Vec<Change> {
        diff(&parse_one(a).unwrap(), &parse_one(b).unwrap(), 3)
    }

    fn lines(c: &[Change]) -> Vec<String> {
        c.iter()
            .map(|c| c.one_line().unwrap_or_else(|| c.path().to_string()))
            .collect()
    }

    const DEPLOY: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n";

    #[test]
    fn containers_pair_by_name_and_paths_name_them() {
        let a = format!(
            "{DEPLOY}      - name: sidecar\n        image: envoy:1\n      - name: app\n        image: nginx:1.26\n        env:\n        - name: A\n          value: '1'\n        - name: B\n          value: '2'\n"
        );
        let b = format!(
            "{DEPLOY}      - name: app\n        image: nginx:1.27\n        env:\n        - name: B\n          value: '2'\n        - name: A\n          value: '1'\n      - name: sidecar\n        image: envoy:1\n"
        );
        assert_eq!(
            lines(&d(&a, &b)),
            [
                "spec.template.spec.containers[name=app].env: ⇆ order changed",
                "spec.template.spec.containers[name=app].image: nginx:1.26 → nginx:1.27",
                "spec.template.spec.containers: ⇆ order changed",
            ]
        );
    }

    #[test]
    fn container_ports_use_the_schema_keys_and_custom_kinds_fall_back_to_name() {
        let a = format!(
            "{DEPLOY}      - name: app\n        ports:\n        - containerPort: 80\n          name: http\n        - containerPort: 9090\n          name: metrics\n"
        );
        let b = format!(
            "{DEPLOY}      - name: app\n        ports:\n        - containerPort: 80\n          name: web\n"
        );
        assert_eq!(
            lines(&d(&a, &b)),
            [
                "spec.template.spec.containers[name=app].ports[containerPort=9090]",
                "spec.template.spec.containers[name=app].ports[containerPort=80].name: http → web",
            ]
        );
        let c = d(
            "kind: Widget\nspec:\n  items:\n  - key: x\n    v: 1\n  - key: y\n    v: 2\n",
            "kind: Widget\nspec:\n  items:\n  - key: y\n    v: 3\n  - key: x\n    v: 1\n",
        );
        assert_eq!(
            lines(&c),
            ["spec.items[key=y].v: 2 → 3", "spec.items: ⇆ order changed"]
        );
    }

    #[test]
    fn multi_line_strings_diff_by_line_and_dotted_keys_use_brackets() {
        let c = d(
            "data:\n  app.conf: |\n    a\n    b\n    c\n  plain: x\nmetadata:\n  labels:\n    app.kubernetes.io/name: web\n",
            "data:\n  app.conf: |\n    a\n    B\n    c\n  plain: ''\nmetadata:\n  labels:\n    app.kubernetes.io/name: api\n",
        );
        assert_eq!(c[0].path(), "data[app.conf]");
        assert_eq!(
            c[0].diff_lines(),
            [" a", "-b", "+B", " c"].map(String::from)
        );
        assert_eq!(c[1].one_line().unwrap(), "data.plain: x → \"\"");
        assert_eq!(
            c[2].one_line().unwrap(),
            "metadata.labels[app.kubernetes.io/name]: web → api"
        );
    }

    #[test]
    fn scalar_lists_reorder_or_diff_by_item() {
        assert_eq!(
            lines(&d("args: [a, b, c]\n", "args: [c, a, b]\n")),
            ["args: ⇆ order changed"]
        );
        let c = d("args: [a, b, c]\n", "args: [a, x, c]\n");
        assert_eq!(
            c[0].diff_lines(),
            [" a", "-b", "+x", " c"].map(String::from)
        );
        assert!(d("a: 1\n", "a: 1\n").is_empty());
        let c = d("a: {b: 1}\n", "a: 2\n");
        assert_eq!(c[0].one_line(), None);
        assert_eq!(c[0].diff_lines(), ["-b: 1", "+2"].map(String::from));
    }
}
