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
    /// Fields whose type changed (path, before, after).
    pub retyped: Vec<(String, String, String)>,
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
    let text = crate::yaml::to_string(&r.obj);
    if !text.contains('$') {
        // Nothing to substitute (and no `$$` to unescape).
        return Ok(Outcome {
            unset: Vec::new(),
            retyped: Vec::new(),
        });
    }
    let lookup = |name: &str| -> Option<String> {
        vars.iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
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
    let mut retyped = Vec::new();
    compare(&r.obj, &node, &mut String::new(), &mut retyped);
    r.obj = node;
    Ok(Outcome {
        unset: out.unset,
        retyped,
    })
}

fn compare(
    before: &Node,
    after: &Node,
    path: &mut String,
    out: &mut Vec<(String, String, String)>,
) {
    match (before, after) {
        (Node::Map(a), Node::Map(b)) => {
            for (k, v) in a.iter() {
                if let Some(w) = b.get(k) {
                    let len = path.len();
                    path.push('.');
                    path.push_str(k);
                    compare(v, w, path, out);
                    path.truncate(len);
                }
            }
        }
        (Node::Seq(a), Node::Seq(b)) => {
            for (i, (v, w)) in a.iter().zip(b.iter()).enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                compare(v, w, path, out);
                path.truncate(len);
            }
        }
        (Node::Str(s), other) if s.contains("${") && !matches!(other, Node::Str(_)) => {
            out.push((path.clone(), "string".into(), other.kind_name().into()));
        }
        _ => {}
    }
}
