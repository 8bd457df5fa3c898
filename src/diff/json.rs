//! `-o json`: per environment, every pair with its status, structural
//! changes (`path`, `type`: changed/added/removed/reordered/lines) and
//! hunks, the version changes, the problems and the kinds skipped.

use serde_json::{Value as J, json as j};

use super::{Change, EnvDiff, KsState, Producer};

fn producer(p: &Producer) -> J {
    j!({"kind": p.kind(), "name": p.key()})
}

fn change(c: &Change) -> J {
    match c {
        Change::Changed { path, old, new } => {
            j!({"path": path, "type": "changed", "old": old, "new": new})
        }
        Change::Added { path, value } => j!({"path": path, "type": "added", "new": value}),
        Change::Removed { path, value } => j!({"path": path, "type": "removed", "old": value}),
        Change::Reordered { path } => j!({"path": path, "type": "reordered"}),
        Change::Lines { path, .. } => {
            j!({"path": path, "type": "lines", "lines": c.diff_lines()})
        }
    }
}

fn state(s: &KsState) -> J {
    j!({"status": s.as_str(), "message": s.message()})
}

/// The JSON document for `diffs`.
pub fn json(diffs: &[EnvDiff]) -> J {
    let envs: Vec<J> = diffs
        .iter()
        .map(|d| {
            let c = d.counts();
            let pairs: Vec<J> = d
                .pairs
                .iter()
                .map(|p| {
                    let mut o = j!({
                        "status": p.status.as_str(),
                        "producer": producer(&p.producer),
                        "group": p.key.group,
                        "kind": p.key.kind,
                        "namespace": p.key.namespace,
                        "name": p.key.name,
                    });
                    if let Some(b) = &p.base_name {
                        o["baseName"] = j!(b);
                    }
                    if let Some(f) = &p.moved_from {
                        o["movedFrom"] = producer(f);
                    }
                    if !p.changes.is_empty() {
                        o["changes"] = p.changes.iter().map(change).collect();
                    }
                    if !p.hidden.is_empty() {
                        o["hidden"] = j!(p.hidden);
                    }
                    if !p.hunks.is_empty() {
                        o["hunks"] = p
                            .hunks
                            .iter()
                            .map(|h| {
                                j!({
                                    "header": h.header(),
                                    "oldStart": h.old_start, "oldLines": h.old_lines,
                                    "newStart": h.new_start, "newLines": h.new_lines,
                                    "lines": h.lines.iter().map(|l| format!("{}{}", l.tag, l.text)).collect::<Vec<_>>(),
                                })
                            })
                            .collect();
                    }
                    o
                })
                .collect();
            j!({
                "environment": d.env,
                "base": d.base_label,
                "status": if d.is_fatal() { "failed" } else if d.has_changes() { "changed" } else { "unchanged" },
                "counts": {
                    "changed": c.changed, "added": c.added, "removed": c.removed,
                    "moved": c.moved, "unchanged": c.unchanged,
                },
                "errors": d.errors.iter().map(|(s, e)| j!({"side": s.as_str(), "message": e})).collect::<Vec<_>>(),
                "problems": d.problems.iter().map(|p| j!({
                    "kind": p.kind,
                    "kustomization": p.kustomization,
                    "fatal": p.is_fatal(),
                    "base": state(&p.base),
                    "head": state(&p.head),
                    "descendants": p.descendants,
                    "touched": p.touched,
                    "message": p.describe(),
                })).collect::<Vec<_>>(),
                "notes": d.notes,
                "skipped": d.skipped.iter().map(|(k, n)| j!({"kind": k, "count": n})).collect::<Vec<_>>(),
                "versions": d.versions.iter().map(|v| j!({
                    "kind": v.kind.as_str(), "name": v.name, "source": v.source,
                    "old": v.old, "new": v.new, "usedBy": v.used_by,
                })).collect::<Vec<_>>(),
                "pairs": pairs,
            })
        })
        .collect();
    j!({ "environments": envs })
}
