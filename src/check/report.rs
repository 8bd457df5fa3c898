//! Printing a [`CheckReport`]: text for people, JSON for scripts, SARIF
//! 2.1.0 for code-scanning UIs.

use serde_json::{Value, json};

use super::finding::{RULES, Severity};
use super::{CheckReport, Finding};

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

fn context(f: &Finding, all_envs: usize) -> String {
    let mut parts = Vec::new();
    if !f.envs.is_empty() && (all_envs > 1 || f.envs.len() > 1) {
        parts.push(f.envs.join(", "));
    }
    if let Some(k) = &f.kustomization {
        parts.push(format!("Kustomization {k}"));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" [{}]", parts.join("; "))
    }
}

/// `file:line: severity[rule]: message [envs; Kustomization]`, then a
/// summary line.
pub fn text(r: &CheckReport) -> String {
    let mut s = String::new();
    for f in r.findings.iter().filter(|f| f.severity != Severity::Info) {
        s.push_str(&format!(
            "{}: {}[{}]: {}{}\n",
            f.location(),
            f.severity.as_str(),
            f.rule,
            f.message,
            context(f, r.envs.len())
        ));
    }
    let infos: Vec<&Finding> = r
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Info)
        .collect();
    if !infos.is_empty() {
        s.push_str(&format!(
            "no schema ({}; skipped, --strict makes them errors):\n",
            plural(infos.len(), "kind")
        ));
        for (a, k, n, envs) in &r.no_schema {
            s.push_str(&format!(
                "  {k} {a}: {}{}\n",
                plural(*n, "object"),
                if r.envs.len() > 1 {
                    format!(" ({})", envs.join(", "))
                } else {
                    String::new()
                }
            ));
        }
    }
    // What the summary does not cover is said next to it.
    let u = r.skipped;
    let mut parts = Vec::new();
    if u.kustomizations > 0 {
        parts.push(format!(
            "{} skipped",
            plural(u.kustomizations, "Kustomization")
        ));
    }
    if u.helmreleases > 0 {
        parts.push(format!(
            "{} not rendered offline",
            plural(u.helmreleases, "HelmRelease")
        ));
    }
    if u.resource_sets > 0 {
        parts.push(format!(
            "{} not expanded",
            plural(u.resource_sets, "ResourceSet")
        ));
    }
    if !parts.is_empty() {
        s.push_str(&format!(
            "not checked: the objects of {} (`flate build -v` says why)\n",
            crate::diff::group::and_list(&parts)
        ));
    }
    s.push_str(&format!(
        "{}, {} in {} ({} validated)\n",
        plural(r.errors(), "error"),
        plural(r.warnings(), "warning"),
        plural(r.envs.len(), "environment"),
        plural(r.validated, "object")
    ));
    s
}

fn finding_json(f: &Finding) -> Value {
    json!({
        "rule": f.rule,
        "severity": f.severity.as_str(),
        "message": f.message,
        "file": f.file.as_ref().map(|p| p.display().to_string()),
        "line": if f.line > 0 { Some(f.line) } else { None },
        "envs": f.envs,
        "kustomization": f.kustomization,
        "object": f.object.as_ref().map(|o| json!({
            "apiVersion": o.api_version, "kind": o.kind, "namespace": o.namespace, "name": o.name,
        })),
        "path": f.path,
    })
}

/// One JSON object: environments, findings, kinds without a schema,
/// summary.
pub fn json(r: &CheckReport) -> Value {
    json!({
        "environments": r.envs,
        "findings": r.findings.iter().map(finding_json).collect::<Vec<_>>(),
        "noSchema": r.no_schema.iter().map(|(a, k, n, e)| json!({
            "apiVersion": a, "kind": k, "objects": n, "envs": e,
        })).collect::<Vec<_>>(),
        "summary": {
            "errors": r.errors(),
            "warnings": r.warnings(),
            "validated": r.validated,
        },
    })
}

/// A SARIF 2.1.0 log with one run.
pub fn sarif(r: &CheckReport) -> Value {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|rule| {
            json!({
                "id": rule.id,
                "name": rule.id,
                "shortDescription": {"text": rule.summary},
                "defaultConfiguration": {"level": rule.severity.sarif_level()},
            })
        })
        .collect();
    let results: Vec<Value> = r
        .findings
        .iter()
        .map(|f| {
            let mut res = json!({
                "ruleId": f.rule,
                "ruleIndex": RULES.iter().position(|x| x.id == f.rule),
                "level": f.severity.sarif_level(),
                "message": {"text": format!("{}{}", f.message, context(f, r.envs.len()))},
            });
            if let Some(file) = &f.file {
                let mut loc = json!({
                    "physicalLocation": {
                        "artifactLocation": {"uri": file.display().to_string(), "uriBaseId": "%SRCROOT%"},
                    }
                });
                if f.line > 0 {
                    loc["physicalLocation"]["region"] = json!({"startLine": f.line});
                }
                res["locations"] = json!([loc]);
            }
            if !f.envs.is_empty() {
                res["properties"] = json!({"environments": f.envs});
            }
            res
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "flate",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "results": results,
        }],
    })
}
