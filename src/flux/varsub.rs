//! Post-build variable substitution as kustomize-controller runs it
//! (fluxcd/pkg/kustomize, kustomize_varsub.go): each object is printed as
//! kustomize prints it, substituted with Flux's envsubst grammar, and read
//! back with `sigs.k8s.io/yaml` (go-yaml v2, YAML 1.1), so `"${PORT}"`
//! written quoted in the source becomes a number when PORT is `8443`.

use crate::resource::Resource;
use crate::yaml::resolve::Schema;
use crate::yaml::{Map, Node};

use super::envsubst;

pub const DISABLE_KEY: &str = "kustomize.toolkit.fluxcd.io/substitute";

/// Outcome of substituting one object.
pub struct Outcome {
    pub unset: Vec<String>,
    /// Strings that substitution made another type in a way worth a
    /// warning (see [`Retyped`]).
    pub retyped: Vec<Retyped>,
}

/// A string value, holding a variable, that substitution turned into
/// another type, where that is a mistake whatever the object's schema:
///
/// - it became null from an empty text (not from a `null` or `~` written
///   in the variable or its default, which is meant);
/// - its text changed (`1.10` read as the number 1.1, `0755` as 493, `on`
///   as true): the value applied is not the variable's value;
/// - it became a number or a boolean in a field that is a string in every
///   Kubernetes object (labels and annotations, a ConfigMap's or Secret's
///   data, a container's environment value), which the API server
///   rejects.
///
/// Other changes are what these repositories write on purpose
/// (`runAsUser: ${APP_UID}`, `replicas: ${REPLICAS}`, `accessModes:
/// ${MODES:=[]}`): not reported here.
/// `flate check` validates the substituted objects against their schemas,
/// which finds a number wherever a string is wanted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retyped {
    /// `.spec.x[0].y`
    pub path: String,
    /// The new type's name (`int`, `float`, `bool`, `null`).
    pub after: &'static str,
    pub why: RetypeReason,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetypeReason {
    Null,
    /// The value does not print as the substituted text.
    TextChanged,
    /// A field that is a string in every Kubernetes object.
    StringField,
}

impl Retyped {
    /// The warning, for the object `kind`/`name`.
    pub fn message(&self, kind: &str, name: &str) -> String {
        let Retyped { path, after, why } = self;
        let head =
            format!("substitution changed the type of {kind}/{name} {path} from string to {after}");
        match why {
            RetypeReason::Null => head,
            RetypeReason::TextChanged => format!(
                "{head}, and the value is no longer the substituted text (1.10 reads as 1.1, on as true)"
            ),
            RetypeReason::StringField => {
                format!("{head}, where Kubernetes wants a string: the API server rejects it")
            }
        }
    }
}

pub fn is_disabled(r: &Resource) -> bool {
    r.label(DISABLE_KEY) == Some("disabled") || r.annotation(DISABLE_KEY) == Some("disabled")
}

/// Substitutes `vars` into `r`. `strict` fails on unset variables.
pub fn substitute(
    r: &mut Resource,
    vars: &[(String, String)],
    strict: bool,
) -> Result<Outcome, String> {
    substitute_with(r, vars, strict, true)
}

/// Substitutes `vars` into `r` and records in `r.secret_paths` every value
/// that took in a variable for which `secret` is true (one that came from
/// a Secret).
pub fn substitute_tainted(
    r: &mut Resource,
    vars: &[(String, String)],
    strict: bool,
    secret: &dyn Fn(&str) -> bool,
) -> Result<Outcome, String> {
    let lookup = |name: &str| -> Option<String> {
        vars.iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let paths = secret_paths(&r.obj, &lookup, secret);
    let out = substitute_with(r, vars, strict, true)?;
    for p in paths {
        crate::secret::taint_decrypted(r, [p]);
    }
    Ok(out)
}

/// The paths of the values of `obj` (before substitution) in which a
/// secret variable is substituted. A key holding one taints the whole
/// map it is in; an expression that cannot be placed (it does not parse
/// within one value) taints every field but `apiVersion`, `kind` and the
/// object's name and namespace.
fn secret_paths(
    obj: &Node,
    lookup: &dyn Fn(&str) -> Option<String>,
    secret: &dyn Fn(&str) -> bool,
) -> crate::secret::SecretPaths {
    use crate::resource::PathElem;
    use std::cell::Cell;
    struct W<'a> {
        lookup: &'a dyn Fn(&str) -> Option<String>,
        secret: &'a dyn Fn(&str) -> bool,
        out: crate::secret::SecretPaths,
        unplaced: bool,
    }
    impl W<'_> {
        /// Whether substituting `s` reads a secret variable.
        fn reads_secret(&mut self, s: &str) -> bool {
            if !s.contains('$') {
                return false;
            }
            let hit = Cell::new(false);
            let rec = |name: &str| {
                let v = (self.lookup)(name);
                if v.is_some() && (self.secret)(name) {
                    hit.set(true);
                }
                v
            };
            if envsubst::substitute(s, &rec, false).is_err() {
                // An expression split across values: placed by the
                // fallback below when a secret is used at all.
                self.unplaced = true;
            }
            hit.get()
        }
        fn walk(&mut self, n: &Node, path: &mut Vec<PathElem>) {
            match n {
                Node::Str(s) if self.reads_secret(s) => self.out.push(path.clone()),
                Node::Seq(items) => {
                    for (i, v) in items.iter().enumerate() {
                        path.push(PathElem::Index(i));
                        self.walk(v, path);
                        path.pop();
                    }
                }
                Node::Map(m) => {
                    if m.keys().any(|k| self.reads_secret(k)) {
                        self.out.push(path.clone());
                        return;
                    }
                    for (k, v) in m.iter() {
                        path.push(PathElem::Key(k.clone()));
                        self.walk(v, path);
                        path.pop();
                    }
                }
                _ => {}
            }
        }
    }
    let mut w = W {
        lookup,
        secret,
        out: Vec::new(),
        unplaced: false,
    };
    w.walk(obj, &mut Vec::new());
    if w.unplaced || w.out.iter().any(|p| p.is_empty()) {
        // Does the object as a whole read a secret variable?
        let text = crate::yaml::to_string(obj);
        let hit = Cell::new(false);
        let rec = |name: &str| {
            let v = lookup(name);
            if v.is_some() && secret(name) {
                hit.set(true);
            }
            v
        };
        let _ = envsubst::substitute(&text, &rec, false);
        if hit.get() {
            w.out.retain(|p| !p.is_empty());
            if let Node::Map(m) = obj {
                for k in m.keys() {
                    match k.as_str() {
                        "apiVersion" | "kind" => {}
                        "metadata" => {
                            for f in ["labels", "annotations"] {
                                w.out
                                    .push(vec![PathElem::Key(k.clone()), PathElem::Key(f.into())]);
                            }
                        }
                        _ => w.out.push(vec![PathElem::Key(k.clone())]),
                    }
                }
            }
        }
    }
    w.out
}

/// [`substitute`]; `fast: false` always takes the text route (tests compare
/// the two).
fn substitute_with(
    r: &mut Resource,
    vars: &[(String, String)],
    strict: bool,
    fast: bool,
) -> Result<Outcome, String> {
    let lookup = |name: &str| -> Option<String> {
        vars.iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let route = if fast {
        fast::substitute(&r.obj, &lookup, strict)
    } else {
        fast::Fast::Text
    };
    match route {
        fast::Fast::Unchanged(unset) => {
            return Ok(Outcome {
                unset,
                retyped: Vec::new(),
            });
        }
        fast::Fast::Changed(node, unset) => {
            let retyped = retypes(&r.obj, &node, &lookup);
            r.obj = node;
            return Ok(Outcome { unset, retyped });
        }
        fast::Fast::Text => {}
    }
    let text = crate::yaml::to_string(&r.obj);
    if !text.contains('$') {
        // Nothing to substitute (and no `$$` to unescape).
        return Ok(Outcome {
            unset: Vec::new(),
            retyped: Vec::new(),
        });
    }
    let out =
        envsubst::substitute(&text, &lookup, strict).map_err(|e| format!("envsubst error: {e}"))?;
    if out.text == text {
        return Ok(Outcome {
            unset: out.unset,
            retyped: Vec::new(),
        });
    }
    let docs = crate::yaml::parse::parse_stream_with(&out.text, Schema::V2)
        .map_err(|e| format!("YAMLToJSON: the substituted object is not valid YAML: {e}"))?;
    let node = match docs.len() {
        0 => Node::Map(Map::new()),
        1 => docs.into_iter().next().expect("one").node,
        _ => return Err("the substituted object became several YAML documents".into()),
    };
    if !matches!(node, Node::Map(_)) {
        return Err("the substituted object is no longer a mapping".into());
    }
    let retyped = retypes(&r.obj, &node, &lookup);
    r.obj = node;
    Ok(Outcome {
        unset: out.unset,
        retyped,
    })
}

/// The changes of type from `before` to `after` (the object before and
/// after substitution) that [`Retyped`] reports.
fn retypes(before: &Node, after: &Node, lookup: &dyn Fn(&str) -> Option<String>) -> Vec<Retyped> {
    let mut walk = RetypeWalk {
        kind: before.get("kind").and_then(Node::as_str).unwrap_or(""),
        lookup,
        path: Vec::new(),
        out: Vec::new(),
    };
    walk.compare(before, after);
    walk.out
}

#[derive(Clone, Copy)]
enum Seg<'a> {
    Key(&'a str),
    Index(usize),
}

struct RetypeWalk<'a> {
    kind: &'a str,
    lookup: &'a dyn Fn(&str) -> Option<String>,
    path: Vec<Seg<'a>>,
    out: Vec<Retyped>,
}

impl<'a> RetypeWalk<'a> {
    fn compare(&mut self, before: &'a Node, after: &Node) {
        match (before, after) {
            (Node::Map(a), Node::Map(b)) => {
                for (k, v) in a.iter() {
                    if let Some(w) = b.get(k) {
                        self.path.push(Seg::Key(k));
                        self.compare(v, w);
                        self.path.pop();
                    }
                }
            }
            (Node::Seq(a), Node::Seq(b)) => {
                for (i, (v, w)) in a.iter().zip(b.iter()).enumerate() {
                    self.path.push(Seg::Index(i));
                    self.compare(v, w);
                    self.path.pop();
                }
            }
            (Node::Str(s), other) if s.contains("${") && !matches!(other, Node::Str(_)) => {
                // The substituted text, as the text route reads it (a
                // value that became another type was printed plain).
                let text = envsubst::substitute(s, self.lookup, false)
                    .ok()
                    .map(|t| t.text);
                // A null, a list or a map written as such (`null`, `[]`,
                // `{a: 1}`, in the variable or its default) is meant.
                let written = text.as_deref().is_some_and(|t| {
                    let t = t.trim();
                    if other.is_null() {
                        matches!(t, "null" | "Null" | "NULL" | "~")
                    } else {
                        matches!(other, Node::Seq(_) | Node::Map(_))
                    }
                });
                let why = if written {
                    if !self.string_everywhere() {
                        return;
                    }
                    RetypeReason::StringField
                } else if other.is_null() {
                    RetypeReason::Null
                } else if other.scalar_text() != text {
                    RetypeReason::TextChanged
                } else if self.string_everywhere() {
                    RetypeReason::StringField
                } else {
                    return;
                };
                self.out.push(Retyped {
                    path: self.printed_path(),
                    after: other.kind_name(),
                    why,
                });
            }
            _ => {}
        }
    }

    fn printed_path(&self) -> String {
        let mut p = String::new();
        for s in &self.path {
            match s {
                Seg::Key(k) => {
                    p.push('.');
                    p.push_str(k);
                }
                Seg::Index(i) => p.push_str(&format!("[{i}]")),
            }
        }
        p
    }

    /// Whether the value at the current path is a string in every
    /// Kubernetes object: a label or an annotation (of the object or of a
    /// template in it), an entry of a ConfigMap's or a Secret's data, or
    /// a container's environment value.
    fn string_everywhere(&self) -> bool {
        let p = &self.path;
        let n = p.len();
        let key = |i: usize, k: &str| matches!(p.get(i), Some(Seg::Key(x)) if *x == k);
        if n >= 3 && key(n - 3, "metadata") && (key(n - 2, "labels") || key(n - 2, "annotations")) {
            return true;
        }
        if n == 2
            && ((self.kind == "ConfigMap" && key(0, "data"))
                || (self.kind == "Secret" && (key(0, "data") || key(0, "stringData"))))
        {
            return true;
        }
        n >= 3 && key(n - 3, "env") && matches!(p[n - 2], Seg::Index(_)) && key(n - 1, "value")
    }
}

/// Substitution without printing and parsing the object, when that gives
/// exactly what the text route gives.
///
/// In the printed text, a `$` can only come from a key or a string value.
/// A string written plain on one line (no quotes, no spaces, so never
/// folded) appears in the text as itself, followed by a line break; when
/// its substituted text is again a plain one-line scalar, reading the text
/// back yields `resolve_plain` of that text at the same place, and every
/// other value is unchanged. Anything else (a `$` in a key, in a quoted or
/// multi-line string, a result that would not read back as a plain scalar,
/// an error) takes the text route, which also reports errors.
pub(crate) mod fast {
    use crate::yaml::resolve::{Schema, plain_round_trips, resolve_plain, v2_needs_quotes};
    use crate::yaml::{Map, Node};

    use super::envsubst;

    pub enum Fast {
        /// No string changes; the variables referenced but unset.
        Unchanged(Vec<String>),
        /// The substituted object and the unset variables.
        Changed(Node, Vec<String>),
        /// Print, substitute and parse the text instead.
        Text,
    }

    /// Whether a string value is printed plain, on one line, as itself.
    fn printed_as_itself(s: &str) -> bool {
        plain_round_trips(s) && !s.contains(' ') && !s.ends_with('$') && !v2_needs_quotes(s)
    }

    struct Walk<'a> {
        lookup: &'a dyn Fn(&str) -> Option<String>,
        strict: bool,
        unset: Vec<String>,
        changed: bool,
    }

    impl Walk<'_> {
        /// The substituted value of string `s`; None to take the text
        /// route. Some((node, raw)): raw is the plain text when it is not
        /// the value's own text (the parser records it).
        fn scalar(&mut self, s: &str) -> Option<Option<(Node, Option<String>)>> {
            if !s.contains('$') {
                return Some(None);
            }
            if !printed_as_itself(s) {
                return None;
            }
            let out = envsubst::substitute(s, self.lookup, self.strict).ok()?;
            for u in out.unset {
                if !self.unset.contains(&u) {
                    self.unset.push(u);
                }
            }
            if out.text == s {
                return Some(None);
            }
            self.changed = true;
            if out.text.is_empty() {
                return Some(Some((Node::Null, None)));
            }
            if !plain_round_trips(&out.text) {
                return None;
            }
            let v = resolve_plain(&out.text, Schema::V2);
            let raw = (v.scalar_text().as_deref() != Some(out.text.as_str())).then_some(out.text);
            Some(Some((v, raw)))
        }

        /// Walks `n` in printed order; None to take the text route.
        fn node(&mut self, n: &mut Node) -> Option<()> {
            match n {
                Node::Map(m) => self.map(m),
                Node::Seq(items) => {
                    for item in items.iter_mut() {
                        if let Node::Str(s) = item {
                            if let Some((v, _)) = self.scalar(s)? {
                                *item = v;
                            }
                        } else {
                            self.node(item)?;
                        }
                    }
                    Some(())
                }
                _ => Some(()),
            }
        }

        fn map(&mut self, m: &mut Map) -> Option<()> {
            let keys: Vec<String> = crate::yaml::emit::sorted_keys(m)
                .into_iter()
                .cloned()
                .collect();
            for k in keys {
                if k.contains('$') {
                    return None;
                }
                let v = m.get_mut(&k).expect("key");
                if let Node::Str(s) = v {
                    if let Some((nv, raw)) = self.scalar(s)? {
                        m.insert(k.as_str(), nv);
                        if let Some(t) = raw {
                            m.set_raw(&k, t);
                        }
                    }
                } else {
                    self.node(v)?;
                }
            }
            Some(())
        }
    }

    /// Whether any key or string value of `n` contains a `$`.
    fn has_dollar(n: &Node) -> bool {
        match n {
            Node::Str(s) => s.contains('$'),
            Node::Seq(items) => items.iter().any(has_dollar),
            Node::Map(m) => m.iter().any(|(k, v)| k.contains('$') || has_dollar(v)),
            _ => false,
        }
    }

    pub fn substitute(obj: &Node, lookup: &dyn Fn(&str) -> Option<String>, strict: bool) -> Fast {
        if !has_dollar(obj) {
            return Fast::Unchanged(Vec::new());
        }
        let mut copy = obj.clone();
        let mut w = Walk {
            lookup,
            strict,
            unset: Vec::new(),
            changed: false,
        };
        match w.node(&mut copy) {
            None => Fast::Text,
            Some(()) if w.changed => Fast::Changed(copy, w.unset),
            Some(()) => Fast::Unchanged(w.unset),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::Origin;

    fn object(t: &str) -> Node {
        let text = format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  k: {t}\n  n: 1.5\nlist:\n- {t}\n- {{a: {t}, b: 2}}\n"
        );
        let docs = crate::yaml::parse::parse_stream(&text).expect("parses");
        docs.into_iter().next().expect("a document").node
    }

    /// Every template over fragments that matter to YAML and to envsubst,
    /// up to three long, quoted so that it reaches the object as a string:
    /// the direct substitution and the text route agree on the object, the
    /// unset variables, the type changes and the errors.
    #[test]
    fn direct_substitution_equals_the_text_route() {
        let frags = [
            "${A}", "${B}", "${UNSET}", "$$", "x", ".", "${A:-d}", "${N}", "${E}", ":", "-",
            "${A/a/b}", "${#A}", "${C}", "${S}", "${H}", "${Z}", "$", " ", "${", "}", "#",
            "${E:-}", "${N^^}",
        ];
        let vars: Vec<(String, String)> = [
            ("A", "a"),
            ("B", "8443"),
            ("N", "true"),
            ("E", ""),
            ("C", "x: y"),
            ("S", "a b"),
            ("H", "#c"),
            ("Z", "0x1F"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let mut templates: Vec<String> = frags.iter().map(|f| f.to_string()).collect();
        for a in frags {
            for b in frags {
                templates.push(format!("{a}{b}"));
                for c in ["${A}", "x", "$$", "${B}", ":", " "] {
                    templates.push(format!("{a}{b}{c}"));
                }
            }
        }
        let mut fast_taken = 0;
        for t in &templates {
            let quoted = format!("'{}'", t.replace('\'', "''"));
            for strict in [false, true] {
                let obj = object(&quoted);
                let mut a = Resource::new(obj.clone(), Origin::default());
                let mut b = Resource::new(obj.clone(), Origin::default());
                let ra = substitute_with(&mut a, &vars, strict, true);
                let rb = substitute_with(&mut b, &vars, strict, false);
                let lookup = |n: &str| vars.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
                if !matches!(fast::substitute(&obj, &lookup, strict), fast::Fast::Text) {
                    fast_taken += 1;
                }
                match (ra, rb) {
                    (Ok(x), Ok(y)) => {
                        assert_eq!(x.unset, y.unset, "{t:?}");
                        assert_eq!(x.retyped, y.retyped, "{t:?}");
                        assert_eq!(
                            crate::yaml::to_string(&a.obj),
                            crate::yaml::to_string(&b.obj),
                            "{t:?}"
                        );
                        assert_eq!(a.obj.to_json(), b.obj.to_json(), "{t:?}");
                    }
                    (Err(x), Err(y)) => assert_eq!(x, y, "{t:?}"),
                    (x, y) => panic!("{t:?}: {:?} vs {:?}", x.is_ok(), y.is_ok()),
                }
            }
        }
        // Both routes were exercised.
        let total = 2 * templates.len();
        eprintln!("direct route: {fast_taken} of {total}");
        assert!(
            fast_taken > total / 4 && fast_taken < total,
            "{fast_taken} of {total}"
        );
    }

    /// Which changes of type are reported: a value that became null from
    /// an empty text, one whose text changed, and a number or boolean
    /// where every Kubernetes object wants a string; not a number where
    /// the author wrote a variable for one (`runAsUser: ${UID}`), the
    /// idiom of these repositories, nor a null, a list or a map written as
    /// such in a default (`${MODES:=[]}`).
    #[test]
    fn only_type_changes_that_are_mistakes_are_reported() {
        let text = r#"apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
  labels:
    replicas: ${N}
  annotations:
    enabled: ${YES}
spec:
  replicas: ${N}
  template:
    metadata:
      labels:
        build: ${N}
    spec:
      securityContext:
        runAsUser: ${UID}
        runAsNonRoot: ${YES}
      containers:
      - name: app
        env:
        - name: PORT
          value: ${N}
        - name: VERSION
          value: ${VERSION}
        args:
        - ${N}
        image: ${EMPTY}
        workingDir: ${MODE}
        command: ${CMD:=null}
        ports: ${PORTS:=[]}
        resources: ${RES:={}}
        stdin: ${NONE:=~}
"#;
        let obj = crate::yaml::parse::parse_stream(text)
            .unwrap()
            .remove(0)
            .node;
        let vars: Vec<(String, String)> = [
            ("N", "3"),
            ("YES", "true"),
            ("UID", "1000"),
            ("VERSION", "1.10"),
            ("EMPTY", ""),
            ("MODE", "on"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        for fast in [true, false] {
            let mut r = Resource::new(obj.clone(), Origin::default());
            let out = substitute_with(&mut r, &vars, false, fast).unwrap();
            let got: Vec<(&str, &str, RetypeReason)> = out
                .retyped
                .iter()
                .map(|t| (t.path.as_str(), t.after, t.why))
                .collect();
            use RetypeReason::*;
            assert_eq!(
                got,
                [
                    (".metadata.labels.replicas", "int", StringField),
                    (".metadata.annotations.enabled", "bool", StringField),
                    (".spec.template.metadata.labels.build", "int", StringField),
                    (
                        ".spec.template.spec.containers[0].env[0].value",
                        "int",
                        StringField
                    ),
                    (
                        ".spec.template.spec.containers[0].env[1].value",
                        "float",
                        TextChanged
                    ),
                    (".spec.template.spec.containers[0].image", "null", Null),
                    (
                        ".spec.template.spec.containers[0].workingDir",
                        "bool",
                        TextChanged
                    ),
                ],
                "fast route: {fast}"
            );
        }
        // A ConfigMap's and a Secret's data are strings; the same key
        // elsewhere is not.
        for (kind, field, reported) in [
            ("ConfigMap", "data", true),
            ("Secret", "stringData", true),
            ("Secret", "data", true),
            ("Other", "data", false),
        ] {
            let text = format!(
                "apiVersion: v1\nkind: {kind}\nmetadata:\n  name: x\n{field}:\n  k: ${{N}}\n"
            );
            let obj = crate::yaml::parse::parse_stream(&text)
                .unwrap()
                .remove(0)
                .node;
            let mut r = Resource::new(obj, Origin::default());
            let out = substitute(&mut r, &vars, false).unwrap();
            assert_eq!(out.retyped.len(), usize::from(reported), "{kind} {field}");
        }
    }
}
