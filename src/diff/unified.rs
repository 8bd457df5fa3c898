//! `-o unified`: a headline per environment with counts, version changes
//! and problems, then one section per changed producer with a unified diff
//! per object. ANSI colour only when asked (the CLI decides: a terminal and
//! no `NO_COLOR`).

use super::versions::display;
use super::{Counts, EnvDiff, Pair, Status};

const RESET: &str = "\x1b[0m";
const BOLD: &str = "\x1b[1m";
const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const YELLOW: &str = "\x1b[33m";
const CYAN: &str = "\x1b[36m";

struct Out {
    s: String,
    color: bool,
}

impl Out {
    fn line(&mut self, style: &str, text: &str) {
        if self.color && !style.is_empty() {
            self.s.push_str(style);
            self.s.push_str(text);
            self.s.push_str(RESET);
        } else {
            self.s.push_str(text);
        }
        self.s.push('\n');
    }
}

/// `changed Kind ns/name`, with the old name or the previous producer.
pub fn pair_title(p: &Pair) -> String {
    let mut t = if p.key.group == "flate.dev" && p.key.kind == "Values" {
        format!(
            "{} effective values of HelmRelease {} (valuesFrom merged with spec.values)",
            p.status.as_str(),
            p.key.qualified_name()
        )
    } else {
        format!("{} {}", p.status.as_str(), p.key)
    };
    if let Some(b) = &p.base_name {
        t.push_str(&format!(" (was {b})"));
    }
    if let Some(from) = &p.moved_from {
        t.push_str(&format!(" from {from}"));
        if p.hunks.is_empty() && p.changes.is_empty() {
            t.push_str(", content unchanged");
        }
    }
    t
}

/// `1 changed, 2 added` for the pairs of one group (non-zero counts only).
pub fn group_counts(pairs: &[&Pair]) -> String {
    let mut parts = Vec::new();
    for s in [
        Status::Changed,
        Status::Added,
        Status::Removed,
        Status::Moved,
    ] {
        let n = pairs.iter().filter(|p| p.status == s).count();
        if n > 0 {
            parts.push(format!("{n} {}", s.as_str()));
        }
    }
    parts.join(", ")
}

/// The headline of an environment.
pub fn headline(d: &EnvDiff) -> String {
    let c: Counts = d.counts();
    let base = if d.base_label.is_empty() {
        String::new()
    } else {
        format!(" (base: {})", d.base_label)
    };
    if !d.errors.is_empty() {
        return format!("{}: could not diff{base}", d.env);
    }
    if c.total_changes() == 0 && d.touches_unrendered() {
        format!(
            "{}: no rendered changes (the change touches files flate could not render, below), {} unchanged{base}",
            d.env, c.unchanged
        )
    } else if c.total_changes() == 0 {
        format!("{}: no changes, {} unchanged{base}", d.env, c.unchanged)
    } else {
        format!("{}: {}{base}", d.env, c.summary())
    }
}

/// The diff lines of one pair (hunk headers and lines).
pub fn pair_body(p: &Pair) -> Vec<String> {
    let mut out = Vec::new();
    for h in &p.hunks {
        out.push(h.header());
        for l in &h.lines {
            out.push(format!("{}{}", l.tag, l.text));
        }
    }
    out
}

/// Renders every environment.
pub fn unified(diffs: &[EnvDiff], color: bool) -> String {
    let mut o = Out {
        s: String::new(),
        color,
    };
    for (i, d) in diffs.iter().enumerate() {
        if i > 0 {
            o.s.push('\n');
        }
        o.line(BOLD, &headline(d));
        for (side, e) in &d.errors {
            o.line(
                RED,
                &format!("  error: {} could not be rendered: {e}", side.as_str()),
            );
        }
        for p in &d.problems {
            let failed = matches!(p.base, super::KsState::Failed(_))
                || matches!(p.head, super::KsState::Failed(_));
            let (style, word) = if p.is_fatal() {
                (RED, "error")
            } else if failed {
                (YELLOW, "note")
            } else {
                (YELLOW, "warning")
            };
            o.line(style, &format!("  {word}: {}", p.describe()));
        }
        for n in &d.notes {
            o.line(YELLOW, &format!("  note: {n}"));
        }
        if !d.versions.is_empty() {
            o.line("", "  versions:");
            for v in &d.versions {
                let used = if v.used_by.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", v.used_by.join(", "))
                };
                o.line(
                    "",
                    &format!(
                        "    {} {}: {} → {}{used}",
                        v.kind.as_str(),
                        v.name,
                        display(&v.old),
                        display(&v.new)
                    ),
                );
            }
        }
        for (producer, pairs) in d.changed_groups() {
            o.s.push('\n');
            o.line(
                BOLD,
                &format!("=== {}: {producer} ({})", d.env, group_counts(&pairs)),
            );
            for p in pairs {
                o.line(CYAN, &format!("# {}", pair_title(p)));
                for l in pair_body(p) {
                    let style = match l.as_bytes().first() {
                        Some(b'+') => GREEN,
                        Some(b'-') => RED,
                        Some(b'@') => CYAN,
                        _ => "",
                    };
                    o.line(style, &l);
                }
            }
        }
    }
    o.s
}
