//! Secrecy travels with the data.
//!
//! A value is *tainted* when it comes from a Secret: the `data` and
//! `stringData` of a core Secret (written in the repository or made by a
//! `secretGenerator`), and everything derived from one: a variable of
//! `postBuild.substituteFrom` kind Secret substituted into any object, the
//! effective values a HelmRelease reads with `valuesFrom` from a Secret (or
//! from a ConfigMap key that is itself tainted). Decrypted SOPS values
//! enter through [`taint_decrypted`].
//!
//! Taint is kept next to the object as a list of paths ([`SecretPaths`]);
//! a path covers the node there and everything below it. Every printer
//! (build YAML/JSON/out-dir, `build hr`, diff, check findings) redacts the
//! covered values unless `--show-secrets` is given: a value prints as
//! [`REDACTED`], and in a diff a changed one as `<redacted: changed>`.
//! Keys stay visible; values never.

use crate::resource::{PathElem, Resource};
use crate::yaml::Node;

/// What replaces every secret value in human-facing output.
pub const REDACTED: &str = "**redacted**";

/// Paths of the tainted values of one object.
pub type SecretPaths = Vec<Vec<PathElem>>;

/// A value of a Secret's `data` as the API server holds it: base64 (line
/// breaks and spaces in it ignored, as YAML folds long values), read as
/// text (bytes that are not UTF-8 replaced).
pub fn decode_data(text: &str) -> Result<String, base64::DecodeError> {
    use base64::Engine;
    let clean: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let bytes = base64::engine::general_purpose::STANDARD.decode(clean.as_bytes())?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Whether `r` is a core Secret, or an object that held SOPS-encrypted
/// values (`flux::sops`): its `data` and `stringData` are secret.
pub fn is_secret(r: &Resource) -> bool {
    (r.kind() == "Secret" && r.gvk().group.is_empty()) || crate::flux::sops::is_encrypted(r)
}

/// Every tainted path of `r`: its own secret fields plus what reached it
/// from a Secret.
pub fn paths_of(r: &Resource) -> SecretPaths {
    let mut out = r.secret_paths.clone();
    if is_secret(r) {
        for f in ["data", "stringData"] {
            out.push(vec![PathElem::Key(f.into())]);
        }
    }
    out
}

/// Taints every field of `r` that holds `value` (a node copied there
/// whole) or whose text contains `text` (a scalar, also when a replacement
/// wrote it between delimiters), unless already covered; `apiVersion`,
/// `kind` and the object's name and namespace stay untainted.
pub fn taint_holders(r: &mut Resource, value: &Node, text: &str) {
    fn walk(n: &Node, value: &Node, text: &str, at: &mut Vec<PathElem>, out: &mut SecretPaths) {
        // A short text is only matched whole, so that a secret "1" does
        // not taint every number holding a 1.
        let holds_text = n.is_scalar() && !text.is_empty() && {
            let t = crate::yaml::node_text(n);
            t == text || (text.len() >= 4 && t.contains(text))
        };
        if n == value || holds_text {
            out.push(at.clone());
            return;
        }
        match n {
            Node::Map(m) => {
                for (k, v) in m.iter() {
                    at.push(PathElem::Key(k.clone()));
                    walk(v, value, text, at, out);
                    at.pop();
                }
            }
            Node::Seq(s) => {
                for (i, v) in s.iter().enumerate() {
                    at.push(PathElem::Index(i));
                    walk(v, value, text, at, out);
                    at.pop();
                }
            }
            _ => {}
        }
    }
    let mut found = Vec::new();
    walk(&r.obj, value, text, &mut Vec::new(), &mut found);
    // What identifies the object stays visible, as for substitution.
    let key = |k: &str| PathElem::Key(k.to_string());
    let identity = [
        vec![key("apiVersion")],
        vec![key("kind")],
        vec![key("metadata"), key("name")],
        vec![key("metadata"), key("namespace")],
    ];
    found.retain(|p| !identity.contains(p));
    for p in found {
        if !covers(&r.secret_paths, &p) {
            r.secret_paths.push(p);
        }
    }
}

/// Whether `path` is covered by (at or below) one of `paths`.
pub fn covers(paths: &[Vec<PathElem>], path: &[PathElem]) -> bool {
    paths.iter().any(|p| path.starts_with(p))
}

/// Whether anything at or below `path` is tainted (a covering path, or a
/// tainted path inside it).
pub fn touches(paths: &[Vec<PathElem>], path: &[PathElem]) -> bool {
    paths
        .iter()
        .any(|p| path.starts_with(p) || p.starts_with(path))
}

/// The node at `path`, mutable.
pub fn get_path_mut<'a>(n: &'a mut Node, path: &[PathElem]) -> Option<&'a mut Node> {
    let mut cur = n;
    for e in path {
        cur = match (e, cur) {
            (PathElem::Key(k), Node::Map(m)) => m.get_mut(k)?,
            (PathElem::Index(i), Node::Seq(s)) => s.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// Replaces every scalar at or below `n` with [`REDACTED`] (map keys and
/// the shape of lists stay).
pub fn redact_all(n: &mut Node) {
    match n {
        Node::Map(m) => {
            for (_, v) in m.iter_mut() {
                redact_all(v);
            }
        }
        Node::Seq(items) => items.iter_mut().for_each(redact_all),
        other => *other = Node::str(REDACTED),
    }
}

/// Redacts the values at `paths` in `n`.
pub fn redact_paths(n: &mut Node, paths: &[Vec<PathElem>]) {
    for p in paths {
        if let Some(v) = get_path_mut(n, p) {
            redact_all(v);
        }
    }
}

/// `r`'s object as printed without `--show-secrets`: None when nothing in
/// it is secret (print the object itself).
pub fn redacted(r: &Resource) -> Option<Node> {
    let paths = paths_of(r);
    if paths.is_empty() {
        return None;
    }
    let mut n = r.obj.clone();
    redact_paths(&mut n, &paths);
    Some(n)
}

/// The paths of the scalar leaves of `n` that are `true` in a taint tree
/// (a tree of the same shape as some values whose leaves say whether the
/// value there came from a Secret).
pub fn true_leaves(taint: &Node) -> SecretPaths {
    fn walk(n: &Node, path: &mut Vec<PathElem>, out: &mut SecretPaths) {
        match n {
            Node::Map(m) => {
                for (k, v) in m.iter() {
                    path.push(PathElem::Key(k.clone()));
                    walk(v, path, out);
                    path.pop();
                }
            }
            Node::Seq(items) => {
                for (i, v) in items.iter().enumerate() {
                    path.push(PathElem::Index(i));
                    walk(v, path, out);
                    path.pop();
                }
            }
            Node::Bool(true) => out.push(path.clone()),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(taint, &mut Vec::new(), &mut out);
    out
}

/// A taint tree for `n`: the same maps and lists, every scalar replaced
/// by `Bool(secret)`.
pub fn taint_tree(n: &Node, secret: bool) -> Node {
    match n {
        Node::Map(m) => {
            let mut out = crate::yaml::Map::new();
            for (k, v) in m.iter() {
                out.insert(k.clone(), taint_tree(v, secret));
            }
            Node::Map(out)
        }
        Node::Seq(items) => Node::Seq(items.iter().map(|v| taint_tree(v, secret)).collect()),
        _ => Node::Bool(secret),
    }
}

/// A taint tree for `n` whose leaves under `paths` (relative to `n`) are
/// secret.
pub fn taint_tree_from_paths(n: &Node, paths: &[Vec<PathElem>]) -> Node {
    let mut t = taint_tree(n, false);
    for p in paths {
        if let Some(v) = get_path_mut(&mut t, p) {
            *v = taint_tree(v, true);
        }
    }
    t
}

/// The paths in `paths` that lie under `prefix`, made relative to it (a
/// path covering the prefix itself covers everything: one empty path).
pub fn under(paths: &[Vec<PathElem>], prefix: &[PathElem]) -> SecretPaths {
    let mut out = Vec::new();
    for p in paths {
        if prefix.starts_with(p) {
            return vec![Vec::new()];
        }
        if let Some(rest) = p.strip_prefix(prefix) {
            out.push(rest.to_vec());
        }
    }
    out
}

/// Hook for values decrypted from SOPS-encrypted files: every value of a
/// decrypted object that is not a Secret's `data`/`stringData` (those are
/// tainted by kind) is recorded as secret at `paths`. The SOPS reader calls
/// this on each object it decrypts.
pub fn taint_decrypted(r: &mut Resource, paths: impl IntoIterator<Item = Vec<PathElem>>) {
    for p in paths {
        if !covers(&r.secret_paths, &p) {
            r.secret_paths.push(p);
        }
    }
}

/// The secret values of `r` as JSON (scalars at or below its secret
/// paths), for scrubbing messages that quote values.
pub fn secret_values(r: &Resource) -> Vec<serde_json::Value> {
    fn leaves(n: &Node, out: &mut Vec<serde_json::Value>) {
        match n {
            Node::Map(m) => m.iter().for_each(|(_, v)| leaves(v, out)),
            Node::Seq(items) => items.iter().for_each(|v| leaves(v, out)),
            Node::Null => {}
            other => out.push(other.to_json()),
        }
    }
    let mut out = Vec::new();
    for p in paths_of(r) {
        let mut cur = Some(&r.obj);
        for e in &p {
            cur = match (e, cur) {
                (PathElem::Key(k), Some(Node::Map(m))) => m.get(k),
                (PathElem::Index(i), Some(Node::Seq(s))) => s.get(*i),
                _ => None,
            };
        }
        if let Some(n) = cur {
            leaves(n, &mut out);
        }
    }
    out
}

/// Replaces each of `secrets` (at least 4 bytes long) in `text` by
/// [`REDACTED`]: the last line of defence for free text (messages) that may
/// quote a value.
pub fn scrub(text: &str, secrets: &[String]) -> String {
    let mut out = text.to_string();
    for s in secrets {
        if s.len() >= 4 && out.contains(s.as_str()) {
            out = out.replace(s.as_str(), REDACTED);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(s: &str) -> PathElem {
        PathElem::Key(s.into())
    }

    #[test]
    fn redacts_covered_values_keeping_keys() {
        let mut n = crate::yaml::parse_one("a: 1\nb:\n  c: x\n  d: [y, z]\ne: keep\n").unwrap();
        redact_paths(&mut n, &[vec![k("a")], vec![k("b")]]);
        assert_eq!(
            crate::yaml::to_string(&n),
            "a: '**redacted**'\nb:\n  c: '**redacted**'\n  d:\n  - '**redacted**'\n  - '**redacted**'\ne: keep\n"
        );
    }

    #[test]
    fn taint_trees_follow_merges() {
        let secret = crate::yaml::parse_one("auth: {token: t}\nx: 1\n").unwrap();
        let plain = crate::yaml::parse_one("x: 2\n").unwrap();
        let mut t = taint_tree(&secret, true);
        crate::flux::helm::merge_values(&mut t, &taint_tree(&plain, false));
        assert_eq!(true_leaves(&t), vec![vec![k("auth"), k("token")]]);
    }

    #[test]
    fn under_makes_paths_relative() {
        let paths = vec![vec![k("spec"), k("values"), k("a")], vec![k("data")]];
        assert_eq!(under(&paths, &[k("spec"), k("values")]), vec![vec![k("a")]]);
        assert_eq!(
            under(&paths, &[k("data"), k("x")]),
            vec![Vec::<PathElem>::new()]
        );
    }
}
