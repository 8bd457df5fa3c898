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
    s.push_str(&by_rule(r));
    s.push_str(&format!(
        "{}, {} in {} ({} validated)\n",
        plural(r.errors(), "error"),
        plural(r.warnings(), "warning"),
        plural(r.envs.len(), "environment"),
        plural(r.validated, "object")
    ));
    s
}

/// Findings printed before the summary, at least this many, get a line
/// counting them by rule (a rule that finds one object in seventy would
/// otherwise scroll out of sight).
const BY_RULE_FROM: usize = 10;

/// `by rule: flux-api-removed 73 warnings, render-failed 1 error`, most
/// findings first, or nothing for a short report.
fn by_rule(r: &CheckReport) -> String {
    let mut counts: Vec<(&str, Severity, usize)> = Vec::new();
    for f in r.findings.iter().filter(|f| f.severity != Severity::Info) {
        match counts
            .iter_mut()
            .find(|(rule, sev, _)| *rule == f.rule && *sev == f.severity)
        {
            Some(c) => c.2 += 1,
            None => counts.push((f.rule, f.severity, 1)),
        }
    }
    let total: usize = counts.iter().map(|c| c.2).sum();
    if total < BY_RULE_FROM {
        return String::new();
    }
    counts.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(b.0)));
    let parts: Vec<String> = counts
        .iter()
        .map(|(rule, sev, n)| format!("{rule} {}", plural(*n, sev.as_str())))
        .collect();
    format!("by rule: {}\n", parts.join(", "))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn report(findings: Vec<Finding>) -> CheckReport {
        CheckReport {
            envs: vec!["production".into()],
            findings,
            validated: 12,
            no_schema: Vec::new(),
            skipped: Default::default(),
        }
    }

    #[test]
    fn many_findings_are_counted_by_rule_before_the_summary() {
        let mut findings: Vec<Finding> = (0..9)
            .map(|i| Finding::new("flux-api-removed", format!("HelmRelease default/app{i}")))
            .collect();
        findings.push(Finding::new(
            "render-failed",
            "Kustomization flux-system/x failed",
        ));
        findings.push(Finding::new("image-unpinned", "Deployment default/web"));
        let text = text(&report(findings));
        assert!(
            text.ends_with(
                "by rule: flux-api-removed 9 warnings, image-unpinned 1 warning, render-failed 1 error\n\
                 1 error, 10 warnings in 1 environment (12 objects validated)\n"
            ),
            "{text}"
        );
        // A short report has the summary alone.
        let few: Vec<Finding> = (0..9)
            .map(|i| Finding::new("image-unpinned", format!("Deployment default/w{i}")))
            .collect();
        let text = super::text(&report(few));
        assert!(!text.contains("by rule:"), "{text}");
        assert!(text.ends_with("0 errors, 9 warnings in 1 environment (12 objects validated)\n"));
    }
}
