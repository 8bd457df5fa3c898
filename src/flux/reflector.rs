//! Copies of Secrets and ConfigMaps that emberstack's Reflector
//! (`reflector.v1.k8s.emberstack.com`) makes at runtime.
//!
//! A source annotated `reflection-allowed: "true"` and
//! `reflection-auto-enabled: "true"` is copied by the operator, data and
//! all, under its own name, into every other namespace that both
//! `reflection-allowed-namespaces` and `reflection-auto-namespaces` admit.
//! Each is a comma-separated list of regular expressions, each matched
//! against the whole namespace name; newer versions add a label selector
//! for each (`…-namespaces-selector`, Kubernetes' text form: `k=v`,
//! `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`), which admits a
//! namespace the patterns do not; neither given admits every namespace.
//! A common use in Flux repositories: a `cluster-secrets` Secret applied
//! once in `flux-system` and reflected into every namespace, where each
//! app's Kustomization reads it through `postBuild.substituteFrom` (Flux
//! reads that source in the Kustomization's own namespace), and
//! HelmReleases through `valuesFrom`. Flate finds such a copy where the
//! source itself is missing, with the source's data.

use crate::resource::Resource;
use crate::yaml::Node;

const PREFIX: &str = "reflector.v1.k8s.emberstack.com/";

/// The object Reflector copies into namespace `ns` as `kind` `name`, among
/// `candidates` (namespace as the caller counts it, object), if any; the
/// first one, as a source of two would be the operator's race to settle.
/// `namespace_labels` gives a rendered Namespace object.
pub fn source<'a>(
    candidates: impl IntoIterator<Item = (&'a str, &'a Resource)>,
    kind: &str,
    ns: &str,
    name: &str,
    namespace_labels: &dyn Fn(&str) -> Option<Node>,
) -> Option<&'a Resource> {
    if !matches!(kind, "Secret" | "ConfigMap") || ns.is_empty() {
        return None;
    }
    let mut labels = None;
    candidates.into_iter().find_map(|(r_ns, r)| {
        if r.kind() != kind || r.name() != name || r_ns == ns || !r.gvk().group.is_empty() {
            return None;
        }
        let ann = |key: &str| {
            r.obj
                .get_path(&["metadata", "annotations", &format!("{PREFIX}{key}")])
                .and_then(Node::scalar_text)
                .unwrap_or_default()
        };
        if !is_true(&ann("reflection-allowed")) || !is_true(&ann("reflection-auto-enabled")) {
            return None;
        }
        let labels =
            labels.get_or_insert_with(|| super::render::labels_of_namespace(ns, namespace_labels));
        let admits = |list: &str| {
            namespace_admitted(&ann(list), &ann(&format!("{list}-selector")), ns, labels)
        };
        (admits("reflection-allowed-namespaces") && admits("reflection-auto-namespaces"))
            .then_some(r)
    })
}

/// Reflector reads its switches as booleans: `true` in any case.
fn is_true(v: &str) -> bool {
    v.trim().eq_ignore_ascii_case("true")
}

/// Whether a pattern list or a label selector (either admits) admits
/// namespace `ns`; both empty admit every namespace.
fn namespace_admitted(patterns: &str, selector: &str, ns: &str, labels: &Node) -> bool {
    let (patterns, selector) = (patterns.trim(), selector.trim());
    if patterns.is_empty() && selector.is_empty() {
        return true;
    }
    let by_name = patterns
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .any(|p| regex::Regex::new(&format!("^(?:{p})$")).is_ok_and(|re| re.is_match(ns)));
    by_name
        || (!selector.is_empty()
            && parse_selector(selector)
                .is_some_and(|sel| super::render::label_selector_matches(&sel, labels)))
}

/// A label selector in Kubernetes' text form, as a `LabelSelector`
/// (`matchExpressions`); `None` when it does not parse (the operator then
/// admits nothing by it).
fn parse_selector(text: &str) -> Option<Node> {
    let mut exprs = Vec::new();
    for req in split_requirements(text)? {
        let req = req.trim();
        let expr = |key: &str, op: &str, values: Vec<&str>| -> Option<Node> {
            let key = key.trim();
            if key.is_empty() || key.contains(char::is_whitespace) {
                return None;
            }
            let mut m = crate::yaml::Map::new();
            m.insert("key", Node::Str(key.to_string()));
            m.insert("operator", Node::Str(op.to_string()));
            m.insert(
                "values",
                Node::Seq(
                    values
                        .iter()
                        .map(|v| Node::Str(v.trim().to_string()))
                        .collect(),
                ),
            );
            Some(Node::Map(m))
        };
        let e = if let Some(key) = req.strip_prefix('!') {
            expr(key, "DoesNotExist", vec![])?
        } else if let Some((key, value)) = req.split_once("!=") {
            expr(key, "NotIn", vec![value])?
        } else if let Some((key, value)) = req.split_once("==").or_else(|| req.split_once('=')) {
            expr(key, "In", vec![value])?
        } else if let Some((key, rest)) = req.split_once(char::is_whitespace) {
            let rest = rest.trim_start();
            let (op, list) = if let Some(l) = rest.strip_prefix("notin") {
                ("NotIn", l)
            } else if let Some(l) = rest.strip_prefix("in") {
                ("In", l)
            } else {
                return None;
            };
            let list = list.trim().strip_prefix('(')?.strip_suffix(')')?;
            let values: Vec<&str> = list.split(',').map(str::trim).collect();
            if values.iter().any(|v| v.is_empty()) {
                return None;
            }
            expr(key, op, values)?
        } else {
            expr(req, "Exists", vec![])?
        };
        exprs.push(e);
    }
    let mut sel = crate::yaml::Map::new();
    sel.insert("matchExpressions", Node::Seq(exprs));
    Some(Node::Map(sel))
}

/// The requirements of a text selector: split at commas outside
/// parentheses; `None` when the parentheses do not pair or one is empty.
fn split_requirements(text: &str) -> Option<Vec<&str>> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.checked_sub(1)?,
            ',' if depth == 0 => {
                out.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&text[start..]);
    (depth == 0 && out.iter().all(|r| !r.trim().is_empty())).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(yaml: &str) -> Resource {
        let node = crate::yaml::parse::parse_one(yaml).unwrap();
        Resource::new(node, crate::resource::Origin::default())
    }

    fn secret(ns: &str, annotations: &str) -> Resource {
        obj(&format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: cluster-secrets\n  namespace: {ns}\n  annotations:\n{annotations}stringData:\n  DOMAIN: example.com\n"
        ))
    }

    const AUTO: &str = "    reflector.v1.k8s.emberstack.com/reflection-allowed: \"true\"\n    reflector.v1.k8s.emberstack.com/reflection-auto-enabled: \"true\"\n";

    fn found(r: &Resource, ns: &str, labels: Option<&str>) -> bool {
        let labels = labels.map(|l| {
            obj(&format!(
                "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {ns}\n  labels: {l}\n"
            ))
            .obj
        });
        let lookup = move |_: &str| labels.clone();
        source(
            [(r.namespace(), r)],
            "Secret",
            ns,
            "cluster-secrets",
            &lookup,
        )
        .is_some()
    }

    #[test]
    fn auto_reflection_reaches_every_other_namespace() {
        let r = secret("flux-system", AUTO);
        assert!(found(&r, "media", None));
        assert!(!found(&r, "flux-system", None), "not its own namespace");
        let other_kind = source(
            [(r.namespace(), &r)],
            "ConfigMap",
            "media",
            "cluster-secrets",
            &|_| None,
        );
        assert!(other_kind.is_none());
        let other_name = source([(r.namespace(), &r)], "Secret", "media", "x", &|_| None);
        assert!(other_name.is_none());
    }

    #[test]
    fn both_switches_are_needed() {
        let allowed_only =
            "    reflector.v1.k8s.emberstack.com/reflection-allowed: \"true\"\n    x: y\n";
        assert!(!found(&secret("flux-system", allowed_only), "media", None));
        let auto_only =
            "    reflector.v1.k8s.emberstack.com/reflection-auto-enabled: \"True\"\n    x: y\n";
        assert!(!found(&secret("flux-system", auto_only), "media", None));
        let off = AUTO.replacen("\"true\"", "\"false\"", 1);
        assert!(!found(&secret("flux-system", &off), "media", None));
    }

    #[test]
    fn patterns_match_whole_names_and_both_lists_must_admit() {
        let r = secret(
            "flux-system",
            &format!(
                "{AUTO}    reflector.v1.k8s.emberstack.com/reflection-allowed-namespaces: \"media, home-.*\"\n    reflector.v1.k8s.emberstack.com/reflection-auto-namespaces: \"home-.*,media\"\n"
            ),
        );
        assert!(found(&r, "media", None));
        assert!(found(&r, "home-automation", None));
        assert!(
            !found(&r, "multimedia", None),
            "a pattern matches the whole name"
        );
        assert!(!found(&r, "default", None));
        let narrower = secret(
            "flux-system",
            &format!(
                "{AUTO}    reflector.v1.k8s.emberstack.com/reflection-auto-namespaces: media\n"
            ),
        );
        assert!(found(&narrower, "media", None));
        assert!(!found(&narrower, "games", None), "allowed, not auto");
        let broken = secret(
            "flux-system",
            &format!(
                "{AUTO}    reflector.v1.k8s.emberstack.com/reflection-auto-namespaces: \"(\"\n"
            ),
        );
        assert!(
            !found(&broken, "media", None),
            "a pattern that does not compile admits nothing"
        );
    }

    #[test]
    fn selectors_admit_by_namespace_labels() {
        let r = secret(
            "flux-system",
            &format!(
                "{AUTO}    reflector.v1.k8s.emberstack.com/reflection-auto-namespaces: games\n    reflector.v1.k8s.emberstack.com/reflection-auto-namespaces-selector: \"secrets in (wanted, yes),!private\"\n"
            ),
        );
        assert!(found(&r, "games", None), "the pattern admits it");
        assert!(found(&r, "media", Some("{secrets: wanted}")));
        assert!(!found(
            &r,
            "media",
            Some("{secrets: wanted, private: \"1\"}")
        ));
        assert!(!found(&r, "media", Some("{secrets: no}")));
        assert!(!found(&r, "media", None), "no Namespace object: no labels");
        let by_name = secret(
            "flux-system",
            &format!(
                "{AUTO}    reflector.v1.k8s.emberstack.com/reflection-allowed-namespaces-selector: kubernetes.io/metadata.name!=kube-system\n"
            ),
        );
        assert!(found(&by_name, "media", None));
        assert!(!found(&by_name, "kube-system", None));
    }

    #[test]
    fn text_selectors_parse_as_kubernetes_reads_them() {
        let ops = |t: &str| -> Option<Vec<(String, String, usize)>> {
            let sel = parse_selector(t)?;
            let Some(Node::Seq(exprs)) = sel.get("matchExpressions") else {
                return None;
            };
            Some(
                exprs
                    .iter()
                    .map(|e| {
                        let n = match e.get("values") {
                            Some(Node::Seq(v)) => v.len(),
                            _ => 0,
                        };
                        (
                            e.get_str(&["key"]).unwrap().to_string(),
                            e.get_str(&["operator"]).unwrap().to_string(),
                            n,
                        )
                    })
                    .collect(),
            )
        };
        let t = |k: &str, o: &str, n: usize| (k.to_string(), o.to_string(), n);
        assert_eq!(
            ops("a=1, b==2,c!=3,d,!e, f in (x,y), g notin (z)"),
            Some(vec![
                t("a", "In", 1),
                t("b", "In", 1),
                t("c", "NotIn", 1),
                t("d", "Exists", 0),
                t("e", "DoesNotExist", 0),
                t("f", "In", 2),
                t("g", "NotIn", 1),
            ])
        );
        assert_eq!(ops("a in (x"), None);
        assert_eq!(ops("a in ()"), None);
        assert_eq!(ops("a,,b"), None);
        assert_eq!(ops("a b"), None);
        assert_eq!(ops("a > 3"), None);
    }
}
