//! `-o human` (the default): the structural diff for a reader.
//!
//! First the headline of each environment (counts, problems, what the
//! default ignores hid, skipped kinds), then the version table grouped by
//! chart and image, then the changes shared by several objects, shown once
//! with where they are, then per environment and producer the remaining
//! objects, each with its changes by YAML path. Added and removed objects
//! are one line each unless `full` asks for their text.

use super::group::{self, At};
use super::structural::Change;
use super::unified::{group_counts, headline, pair_title};
use super::{EnvDiff, Pair, Status};

const RESET: &str = "\x1b[0m";
const BOLD: &str = "\x1b[1m";
const DIM: &str = "\x1b[2m";
const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const YELLOW: &str = "\x1b[33m";
const CYAN: &str = "\x1b[36m";

#[derive(Debug, Clone, Copy, Default)]
pub struct HumanOptions {
    pub color: bool,
    /// Print the whole text of added and removed objects.
    pub full: bool,
}

struct Out {
    s: String,
    color: bool,
}

impl Out {
    fn line(&mut self, indent: usize, style: &str, text: &str) {
        for _ in 0..indent {
            self.s.push(' ');
        }
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

/// The lines of the notes under an environment's headline that every
/// format shows: what the default ignores hid, the kinds skipped.
pub fn noise_notes(d: &EnvDiff) -> Vec<String> {
    let mut out = Vec::new();
    let (n, objs) = d.hidden();
    if n > 0 {
        let mut what: Vec<String> = Vec::new();
        for p in &d.pairs {
            for h in &p.hidden {
                let leaf = match h.strip_suffix(']').and_then(|x| x.rsplit_once('[')) {
                    Some((_, key)) => key,
                    None => h.rsplit('.').next().unwrap_or(h),
                };
                let leaf = if leaf.starts_with("checksum/") {
                    "checksum/*".to_string()
                } else {
                    leaf.to_string()
                };
                if !what.contains(&leaf) {
                    what.push(leaf);
                }
            }
        }
        let hidden_paths = what.join(", ");
        out.push(format!(
            "the default ignores hid {n} difference{} in {objs} object{} ({hidden_paths}); --no-default-ignores shows them",
            if n == 1 { "" } else { "s" },
            if objs == 1 { "" } else { "s" },
        ));
    }
    if !d.skipped.is_empty() {
        let parts: Vec<String> = d
            .skipped
            .iter()
            .map(|(k, n)| format!("{n} {}", group::plural(k, *n)))
            .collect();
        out.push(format!("skipped: {}", group::and_list(&parts)));
    }
    out
}

fn change_lines(o: &mut Out, indent: usize, c: &Change) {
    if let Some(l) = c.one_line() {
        let style = match c {
            Change::Added { .. } => GREEN,
            Change::Removed { .. } => RED,
            Change::Reordered { .. } => YELLOW,
            _ => "",
        };
        o.line(indent, style, &l);
        return;
    }
    o.line(indent, "", &format!("{}:", c.path()));
    for l in c.diff_lines() {
        let style = match l.as_bytes().first() {
            Some(b'+') => GREEN,
            Some(b'-') => RED,
            _ => DIM,
        };
        o.line(indent + 2, style, &l);
    }
}

fn sign(p: &Pair) -> (&'static str, &'static str) {
    match p.status {
        Status::Added => ("+", GREEN),
        Status::Removed => ("-", RED),
        Status::Moved => ("→", YELLOW),
        _ => ("~", CYAN),
    }
}

fn object(o: &mut Out, p: &Pair, opts: &HumanOptions) {
    let (s, style) = sign(p);
    let mut title = format!("{s} {}", pair_title(p));
    let whole = matches!(p.status, Status::Added | Status::Removed);
    if whole && !opts.full {
        title.push_str(" (--full prints it)");
    }
    o.line(0, style, &title);
    if whole {
        if opts.full {
            for h in &p.hunks {
                for l in &h.lines {
                    o.line(4, style, &format!("{}{}", l.tag, l.text));
                }
            }
        }
        return;
    }
    for c in &p.changes {
        change_lines(o, 4, c);
    }
}

/// Renders every environment.
pub fn human(diffs: &[EnvDiff], opts: &HumanOptions) -> String {
    let mut o = Out {
        s: String::new(),
        color: opts.color,
    };
    for d in diffs {
        o.line(0, BOLD, &headline(d));
        for (side, e) in &d.errors {
            o.line(
                2,
                RED,
                &format!("error: {} could not be rendered: {e}", side.as_str()),
            );
        }
        for p in &d.problems {
            let (style, word) = if p.is_fatal() {
                (RED, "error")
            } else {
                (YELLOW, "note")
            };
            o.line(2, style, &format!("{word}: {}", p.describe()));
        }
        for n in &d.notes {
            o.line(2, YELLOW, &format!("note: {n}"));
        }
        for n in noise_notes(d) {
            o.line(2, DIM, &format!("note: {n}"));
        }
    }
    let rows = group::versions(diffs);
    if !rows.is_empty() {
        o.s.push('\n');
        o.line(
            0,
            BOLD,
            &format!("Versions: {}", group::version_headline(&rows)),
        );
        for r in &rows {
            let mut used = group::count_kinds(&r.objects);
            if !r.users.is_empty() {
                used.push_str(&format!(
                    ", used by {} HelmRelease{}",
                    r.users.len(),
                    if r.users.len() == 1 { "" } else { "s" }
                ));
            }
            o.line(
                2,
                "",
                &format!(
                    "{} {}: {} → {} {} in {}; {}",
                    r.kind.as_str(),
                    r.what,
                    r.old,
                    r.new,
                    r.direction(),
                    group::and_list(&r.envs),
                    used,
                ),
            );
        }
    }
    let (groups, covered) = group::shared(diffs);
    if !groups.is_empty() {
        o.s.push('\n');
        o.line(0, BOLD, "Changed the same way in several objects");
        for g in &groups {
            let where_ = group::places(diffs, &g.members);
            match (g.changes, g.changes[0].one_line()) {
                ([_], Some(l)) => o.line(0, CYAN, &format!("~ {l}")),
                _ => {
                    let what = match g.changes {
                        [c] => c.path().to_string(),
                        cs => format!("{} changes", cs.len()),
                    };
                    o.line(0, CYAN, &format!("~ {what}"));
                    for c in g.changes {
                        change_lines(&mut o, 4, c);
                    }
                }
            }
            o.line(4, DIM, &format!("in {where_}"));
            let names = group::member_names(diffs, &g.members, 10);
            o.line(4, DIM, &format!("objects: {}", names.join(", ")));
        }
    }
    for (ei, d) in diffs.iter().enumerate() {
        let index: std::collections::HashMap<*const Pair, usize> = d
            .pairs
            .iter()
            .enumerate()
            .map(|(i, p)| (p as *const Pair, i))
            .collect();
        for (producer, pairs) in d.changed_groups() {
            let rest: Vec<&Pair> = pairs
                .iter()
                .copied()
                .filter(|p| {
                    let at: At = (ei, index[&(*p as *const Pair)]);
                    !covered.contains(&at)
                })
                .collect();
            if rest.is_empty() {
                continue;
            }
            o.s.push('\n');
            o.line(
                0,
                BOLD,
                &format!("=== {}: {producer} ({})", d.env, group_counts(&pairs)),
            );
            for p in rest {
                object(&mut o, p, opts);
            }
        }
    }
    o.s
}
