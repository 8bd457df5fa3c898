//! `-o markdown`: a comment ready to post on a pull request. Per
//! environment: a headline with counts, a table of version changes, the
//! problems, and one collapsible `<details>` per changed producer with a
//! fenced `diff` block. The whole text stays under GitHub's comment limit
//! (65,536 characters) by cutting the largest object diffs first and
//! saying which were cut.

use std::collections::HashSet;

use super::unified::{group_counts, pair_body, pair_title};
use super::versions::display;
use super::{EnvDiff, Status};

/// GitHub's limit on the body of an issue or pull request comment.
pub const GITHUB_COMMENT_LIMIT: usize = 65_536;

#[derive(Debug, Clone)]
pub struct MarkdownOptions {
    /// The text stays strictly under this many bytes (hence characters).
    pub limit: usize,
}

impl Default for MarkdownOptions {
    fn default() -> Self {
        MarkdownOptions {
            limit: GITHUB_COMMENT_LIMIT,
        }
    }
}

/// The hidden first line that identifies the comment (the workflow finds
/// its previous comment by it).
pub fn marker(diffs: &[EnvDiff]) -> String {
    let envs: Vec<&str> = diffs.iter().map(|d| d.env.as_str()).collect();
    format!("<!-- flate-diff: {} -->", envs.join(" "))
}

/// Text safe in a table cell or a paragraph: no HTML, no newlines, no pipes.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('|', "\\|")
        .replace(['\n', '\r'], " ")
}

/// `text` as an inline code span (backticks inside are handled).
fn code(s: &str) -> String {
    let s = s.replace(['\n', '\r'], " ").replace('|', "\\|");
    let longest = longest_run(&s, '`');
    let fence = "`".repeat(longest + 1);
    if longest > 0 {
        format!("{fence} {s} {fence}")
    } else {
        format!("{fence}{s}{fence}")
    }
}

fn longest_run(s: &str, c: char) -> usize {
    let (mut best, mut cur) = (0, 0);
    for x in s.chars() {
        if x == c {
            cur += 1;
            best = best.max(cur);
        } else {
            cur = 0;
        }
    }
    best
}

/// A problem's sentence with the Kustomization as code.
fn problem(p: &super::Problem) -> String {
    esc(&p.describe()).replacen(&p.kustomization, &code(&p.kustomization), 1)
}

type Cut = HashSet<(usize, usize)>;

struct Block {
    id: (usize, usize),
    size: usize,
    lines: usize,
    title: String,
}

/// The text, and the producers left out because every diff of theirs was cut.
fn render(diffs: &[EnvDiff], cut: &Cut, with_details: bool) -> (String, Vec<String>) {
    let mut hidden = Vec::new();
    let mut s = String::new();
    s.push_str(&marker(diffs));
    s.push('\n');
    for (ei, d) in diffs.iter().enumerate() {
        let c = d.counts();
        s.push_str(&format!("## flate diff `{}`\n\n", d.env));
        if !d.errors.is_empty() {
            s.push_str("**could not diff**");
        } else if c.total_changes() == 0 {
            s.push_str(&format!("**no changes** · {} unchanged", c.unchanged));
        } else {
            let parts: Vec<String> = [
                (c.changed, "changed"),
                (c.added, "added"),
                (c.removed, "removed"),
                (c.moved, "moved"),
            ]
            .iter()
            .map(|(n, w)| {
                if *n > 0 {
                    format!("**{n} {w}**")
                } else {
                    format!("{n} {w}")
                }
            })
            .collect();
            s.push_str(&format!(
                "{} · {} unchanged",
                parts.join(" · "),
                c.unchanged
            ));
        }
        if !d.base_label.is_empty() {
            s.push_str(&format!(" · base {}", code(&d.base_label)));
        }
        s.push_str("\n\n");
        let fatal: Vec<String> = d
            .errors
            .iter()
            .map(|(side, e)| format!("{} could not be rendered: {}", side.as_str(), esc(e)))
            .chain(d.problems.iter().filter(|p| p.is_fatal()).map(problem))
            .collect();
        let warn: Vec<String> = d
            .problems
            .iter()
            .filter(|p| !p.is_fatal())
            .map(problem)
            .chain(d.notes.iter().map(|n| esc(n)))
            .collect();
        for (kind, items) in [("CAUTION", fatal), ("WARNING", warn)] {
            if items.is_empty() {
                continue;
            }
            s.push_str(&format!("> [!{kind}]\n"));
            for i in items {
                s.push_str(&format!("> - {i}\n"));
            }
            s.push('\n');
        }
        if !d.versions.is_empty() {
            s.push_str("| Version | Old | New | Used by |\n| --- | --- | --- | --- |\n");
            for v in &d.versions {
                let name = match v.name.split_once(' ') {
                    Some((kind, n)) if v.kind == super::versions::VersionKind::Chart => {
                        format!("{kind} {}", code(n))
                    }
                    _ => format!("image {}", code(&v.name)),
                };
                let used: Vec<String> = v
                    .used_by
                    .iter()
                    .map(|u| match u.split_once(' ') {
                        Some((k, n)) => format!("{k} {}", code(n)),
                        None => code(u),
                    })
                    .collect();
                s.push_str(&format!(
                    "| {name} | {} | {} | {} |\n",
                    code(&display(&v.old)),
                    code(&display(&v.new)),
                    used.join(", ")
                ));
            }
            s.push('\n');
        }
        if !with_details {
            continue;
        }
        let index: std::collections::HashMap<*const super::Pair, usize> = d
            .pairs
            .iter()
            .enumerate()
            .map(|(i, p)| (p as *const super::Pair, i))
            .collect();
        for (producer, pairs) in d.changed_groups() {
            let idx = |p: &super::Pair| {
                index
                    .get(&(p as *const super::Pair))
                    .copied()
                    .unwrap_or(usize::MAX)
            };
            let (kept, dropped): (Vec<&super::Pair>, Vec<&super::Pair>) =
                pairs.iter().partition(|p| !cut.contains(&(ei, idx(p))));
            if kept.is_empty() {
                hidden.push(format!("{producer} ({})", d.env));
                continue;
            }
            s.push_str(&format!(
                "<details><summary>{} <code>{}</code>: {}</summary>\n\n",
                producer.kind(),
                esc(producer.key()),
                group_counts(&pairs)
            ));
            let mut body = String::new();
            for p in &kept {
                body.push_str(&format!("# {}\n", pair_title(p)));
                for l in pair_body(p) {
                    body.push_str(&l);
                    body.push('\n');
                }
            }
            if !dropped.is_empty() {
                let lines: usize = dropped.iter().map(|p| p.changed_lines()).sum();
                let mut names: Vec<String> =
                    dropped.iter().take(5).map(|p| p.key.to_string()).collect();
                if dropped.len() > 5 {
                    names.push("…".into());
                }
                body.push_str(&format!(
                    "# cut to fit the comment, {} more ({lines} changed lines): {}\n",
                    dropped.len(),
                    names.join(", ")
                ));
            }
            let fence = "`".repeat((longest_run(&body, '`') + 1).max(3));
            s.push_str(&format!("{fence}diff\n{body}{fence}\n\n</details>\n\n"));
        }
    }
    (s, hidden)
}

fn blocks(diffs: &[EnvDiff]) -> Vec<Block> {
    let mut out = Vec::new();
    for (ei, d) in diffs.iter().enumerate() {
        for (pi, p) in d.pairs.iter().enumerate() {
            if p.status == Status::Unchanged || p.hunks.is_empty() {
                continue;
            }
            let size: usize =
                pair_body(p).iter().map(|l| l.len() + 1).sum::<usize>() + pair_title(p).len() + 3;
            out.push(Block {
                id: (ei, pi),
                size,
                lines: p.changed_lines(),
                title: format!("{} ({})", p.key, d.env),
            });
        }
    }
    // Largest first; ties in output order.
    out.sort_by(|a, b| b.size.cmp(&a.size).then(a.id.cmp(&b.id)));
    out
}

fn cut_note(cut: &[&Block], hidden: &[String], limit: usize) -> String {
    let lines: usize = cut.iter().map(|b| b.lines).sum();
    let list = |items: Vec<String>, total: usize| {
        let mut v: Vec<String> = items.into_iter().take(20).collect();
        if total > 20 {
            v.push(format!("and {} more", total - 20));
        }
        v.join(", ")
    };
    let mut s = format!(
        "> [!NOTE]\n> Cut to stay under GitHub's {}-character comment limit, largest first: the diffs of {} object{} ({lines} changed lines): {}.",
        group_thousands(limit),
        cut.len(),
        if cut.len() == 1 { "" } else { "s" },
        list(cut.iter().map(|b| code(&b.title)).collect(), cut.len())
    );
    if !hidden.is_empty() {
        s.push_str(&format!(
            " Left out because all their diffs were cut: {}.",
            list(hidden.iter().map(|h| code(h)).collect(), hidden.len())
        ));
    }
    s.push_str(" Run `flate diff` locally to see everything.\n");
    s
}

fn group_thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The comment for `diffs`, strictly shorter than `opts.limit` bytes.
pub fn markdown(diffs: &[EnvDiff], opts: &MarkdownOptions) -> String {
    let cut: Cut = HashSet::new();
    let (full, _) = render(diffs, &cut, true);
    if full.len() < opts.limit {
        return full;
    }
    let blocks = blocks(diffs);
    // The text with the `k` largest diffs cut, if it fits.
    let attempt = |k: usize| -> Option<String> {
        let cut: Cut = blocks[..k].iter().map(|b| b.id).collect();
        let list: Vec<&Block> = blocks[..k].iter().collect();
        let (body, hidden) = render(diffs, &cut, true);
        let text = body + "\n" + &cut_note(&list, &hidden, opts.limit);
        (text.len() < opts.limit).then_some(text)
    };
    // The fewest cuts that fit (the length falls as k grows; the note's
    // lists are capped), found by bisection: a dozen renders at most.
    if attempt(blocks.len()).is_some() {
        let (mut lo, mut hi) = (1, blocks.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if attempt(mid).is_some() {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        if let Some(text) = attempt(lo) {
            return text;
        }
    }
    // Still too long with every diff cut: headlines and tables only.
    let list: Vec<&Block> = blocks.iter().collect();
    let note =
        cut_note(&list, &[], opts.limit) + "> The per-Kustomization details were left out too.\n";
    let (head, _) = render(diffs, &cut, false);
    let room = opts.limit.saturating_sub(note.len() + 2);
    if head.len() <= room {
        return head + "\n" + &note;
    }
    let mut end = room.saturating_sub(40);
    while end > 0 && !head.is_char_boundary(end) {
        end -= 1;
    }
    let end = head[..end].rfind('\n').unwrap_or(end);
    format!("{}\n\n_… truncated_\n\n{note}", &head[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::diff::{Hunk, Line, ObjectKey, Pair, Producer};

    fn pair(app: usize, obj: usize, lines: usize) -> Pair {
        Pair {
            status: Status::Changed,
            key: ObjectKey {
                group: String::new(),
                kind: "ConfigMap".into(),
                namespace: format!("ns-{app}"),
                name: format!("cm-{obj}"),
            },
            base_name: None,
            producer: Producer::Kustomization(format!("flux-system/app-{app:04}")),
            moved_from: None,
            hunks: vec![Hunk {
                old_start: 1,
                old_lines: lines,
                new_start: 1,
                new_lines: lines,
                lines: (0..lines)
                    .flat_map(|i| {
                        [
                            Line {
                                tag: '-',
                                text: format!("  key{i}: old"),
                            },
                            Line {
                                tag: '+',
                                text: format!("  key{i}: new"),
                            },
                        ]
                    })
                    .collect(),
            }],
            changes: Vec::new(),
            hidden: Vec::new(),
        }
    }

    fn env(pairs: Vec<Pair>) -> EnvDiff {
        EnvDiff {
            env: "production".into(),
            base_label: "main".into(),
            pairs,
            problems: Vec::new(),
            errors: Vec::new(),
            notes: Vec::new(),
            versions: Vec::new(),
            skipped: Vec::new(),
        }
    }

    #[test]
    fn a_wide_change_keeps_what_fits_and_lists_the_rest() {
        // 2000 objects in 1000 Kustomizations: about 300 KB of diffs.
        let pairs: Vec<Pair> = (0..2000).map(|i| pair(i / 2, i, 4)).collect();
        let d = [env(pairs)];
        let m = markdown(&d, &MarkdownOptions::default());
        assert!(m.len() < GITHUB_COMMENT_LIMIT, "{}", m.len());
        let shown = m.matches("# changed ConfigMap").count();
        assert!(shown > 100, "most of the room is used: {shown} diffs shown");
        assert!(m.contains(
            "Left out because all their diffs were cut: `Kustomization flux-system/app-"
        ));
        assert!(m.contains("and "), "the lists are capped");
        // One big diff among small ones is cut first.
        let mut pairs: Vec<Pair> = (0..10).map(|i| pair(i, i, 3)).collect();
        pairs.push(pair(10, 10, 3000));
        let d = [env(pairs)];
        let m = markdown(&d, &MarkdownOptions::default());
        assert!(m.len() < GITHUB_COMMENT_LIMIT);
        assert_eq!(m.matches("# changed ConfigMap").count(), 10);
        assert!(
            m.contains(
                "the diffs of 1 object (6000 changed lines): `ConfigMap ns-10/cm-10 (production)`"
            ),
            "{m}"
        );
    }

    #[test]
    fn code_spans_survive_backticks_and_pipes() {
        assert_eq!(code("a"), "`a`");
        assert_eq!(code("a`b"), "`` a`b ``");
        assert_eq!(code("a|b"), "`a\\|b`");
        assert_eq!(group_thousands(65536), "65,536");
        assert_eq!(esc("<b>|x\n"), "&lt;b&gt;\\|x ");
    }
}
