//! `-o markdown` / `-o github` / `-o gitlab`: a comment ready to post on a
//! pull request, made from the structural diff. First a headline over all
//! environments ("1 chart upgraded in 39 releases, 2 images changed"), the
//! version table grouped by chart and image, and the changes shared by
//! several objects, each shown once with where it is. Then per
//! environment: counts, problems, what the default ignores hid, and one
//! collapsible `<details>` per changed producer with a fenced `diff` block
//! in which every change is an `@@ path @@` section (GitHub and GitLab
//! highlight those lines). The whole text stays under the comment limit
//! (GitHub: 65,536 characters; GitLab: 1,000,000) by cutting the largest
//! object diffs first and saying which were cut. The GitLab flavour writes
//! alerts as bold blockquotes instead of GitHub's `[!CAUTION]` syntax.

use std::collections::HashSet;

use super::group;
use super::unified::{group_counts, pair_title};
use super::{EnvDiff, Pair, Status};

/// GitHub's limit on the body of an issue or pull request comment.
pub const GITHUB_COMMENT_LIMIT: usize = 65_536;
/// GitLab's limit on the body of a note (merge request comment).
pub const GITLAB_NOTE_LIMIT: usize = 1_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Flavor {
    #[default]
    GitHub,
    GitLab,
}

#[derive(Debug, Clone)]
pub struct MarkdownOptions {
    /// The text stays strictly under this many bytes (hence characters).
    pub limit: usize,
    pub flavor: Flavor,
    /// The whole text of added and removed objects.
    pub full: bool,
}

impl Default for MarkdownOptions {
    fn default() -> Self {
        MarkdownOptions {
            limit: GITHUB_COMMENT_LIMIT,
            flavor: Flavor::GitHub,
            full: false,
        }
    }
}

/// The lines of a pair in a fenced `diff` block: an `@@ path @@` header per
/// change, then its lines; the whole text of an added or removed object
/// when `full`.
pub fn pair_body(p: &Pair, full: bool) -> Vec<String> {
    let mut out = Vec::new();
    if matches!(p.status, Status::Added | Status::Removed) {
        if full {
            for h in &p.hunks {
                out.extend(h.lines.iter().map(|l| format!("{}{}", l.tag, l.text)));
            }
        }
        return out;
    }
    for c in &p.changes {
        out.push(format!("@@ {} @@", c.path()));
        out.extend(c.diff_lines());
    }
    out
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

/// A diff that can be cut: an object's, `(env, pair)`, or a shared
/// group's, `(GROUP, group)`.
struct Block {
    id: (usize, usize),
    size: usize,
    lines: usize,
    /// Objects whose diff it is.
    objects: usize,
    title: String,
}

/// The first half of the id of a group's block.
const GROUP: usize = usize::MAX;

/// The diff lines of a group of identical changes.
fn group_body(changes: &[super::Change]) -> String {
    let mut body = String::new();
    for l in changes
        .iter()
        .flat_map(|c| std::iter::once(format!("@@ {} @@", c.path())).chain(c.diff_lines()))
    {
        body.push_str(&l);
        body.push('\n');
    }
    body
}

/// A group shows as one line when it has one short change.
fn group_line(changes: &[super::Change]) -> Option<String> {
    match changes {
        [c] => c.one_line().filter(|l| l.len() < 200),
        _ => None,
    }
}

/// The first line of an alert blockquote.
fn alert(flavor: Flavor, kind: &str) -> String {
    match flavor {
        Flavor::GitHub => format!("> [!{kind}]\n"),
        Flavor::GitLab => {
            let word = match kind {
                "CAUTION" => "Caution",
                "WARNING" => "Warning",
                _ => "Note",
            };
            format!("> **{word}**\n>\n")
        }
    }
}

/// The overview over every environment: the version headline and table,
/// and the changes shared by several objects.
fn overview(diffs: &[EnvDiff], cut: &Cut, s: &mut String) {
    let rows = group::versions(diffs);
    if !rows.is_empty() {
        s.push_str(&format!("**{}**\n\n", group::version_headline(&rows)));
        s.push_str("| | Old | New | Where |\n| --- | --- | --- | --- |\n");
        for r in &rows {
            let mut used = group::count_kinds(&r.objects);
            if !r.users.is_empty() {
                used.push_str(&format!(
                    ", used by {} HelmRelease{}",
                    r.users.len(),
                    if r.users.len() == 1 { "" } else { "s" }
                ));
            }
            s.push_str(&format!(
                "| {} {} | {} | {} | {} in {} |\n",
                r.kind.as_str(),
                code(&r.what),
                code(&r.old),
                code(&r.new),
                esc(&used),
                esc(&group::and_list(&r.envs)),
            ));
        }
        s.push('\n');
    }
    let (groups, _) = group::shared(diffs);
    if groups.is_empty() {
        return;
    }
    s.push_str("### Changed the same way in several objects\n\n");
    const MAX: usize = 50;
    for (gi, g) in groups.iter().enumerate().take(MAX) {
        let where_ = esc(&group::places(diffs, &g.members));
        let names = group::member_names(diffs, &g.members, 20);
        let names: Vec<String> = names.iter().map(|n| code(n)).collect();
        if let Some(l) = group_line(g.changes) {
            s.push_str(&format!("- {} in {where_}\n", code(&l)));
        } else {
            let what = match g.changes {
                [c] => code(c.path()),
                cs => format!("{} changes", cs.len()),
            };
            if cut.contains(&(GROUP, gi)) {
                s.push_str(&format!("- {what} in {where_} (diff cut to fit)\n"));
            } else {
                let body = group_body(g.changes);
                let fence = "`".repeat((longest_run(&body, '`') + 1).max(3));
                s.push_str(&format!(
                    "- {what} in {where_}\n\n  <details><summary>changes</summary>\n\n{fence}diff\n{body}{fence}\n\n  </details>\n\n"
                ));
            }
        }
        s.push_str(&format!("  <sub>{}</sub>\n", names.join(", ")));
    }
    if groups.len() > MAX {
        s.push_str(&format!(
            "- and {} more groups; run `flate diff` locally to see them\n",
            groups.len() - MAX
        ));
    }
    s.push('\n');
}

/// The text, and the producers left out because every diff of theirs was cut.
fn render(
    diffs: &[EnvDiff],
    cut: &Cut,
    with_details: bool,
    opts: &MarkdownOptions,
) -> (String, Vec<String>) {
    let mut hidden = Vec::new();
    let mut s = String::new();
    s.push_str(&marker(diffs));
    s.push('\n');
    overview(diffs, cut, &mut s);
    let (_, covered) = group::shared(diffs);
    for (ei, d) in diffs.iter().enumerate() {
        let c = d.counts();
        s.push_str(&format!("## flate diff `{}`\n\n", d.env));
        if !d.errors.is_empty() {
            s.push_str("**could not diff**");
        } else if c.total_changes() == 0 && d.touches_unrendered() {
            s.push_str(&format!(
                "**no rendered changes** · the change touches files flate could not render (below) · {} unchanged",
                c.unchanged
            ));
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
            s.push_str(&alert(opts.flavor, kind));
            for i in items {
                s.push_str(&format!("> - {i}\n"));
            }
            s.push('\n');
        }
        let noise = super::human::noise_notes(d);
        if !noise.is_empty() {
            for n in noise {
                s.push_str(&format!("<sub>{}</sub><br>\n", esc(&n)));
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
            let pairs: Vec<&super::Pair> = pairs
                .into_iter()
                .filter(|p| !covered.contains(&(ei, idx(p))))
                .collect();
            if pairs.is_empty() {
                continue;
            }
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
                for l in pair_body(p, opts.full) {
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

fn blocks(diffs: &[EnvDiff], opts: &MarkdownOptions) -> Vec<Block> {
    let (groups, covered) = group::shared(diffs);
    let mut out = Vec::new();
    for (gi, g) in groups.iter().enumerate() {
        if group_line(g.changes).is_some() {
            continue;
        }
        let body = group_body(g.changes);
        let names = group::member_names(diffs, &g.members, 3);
        out.push(Block {
            id: (GROUP, gi),
            size: body.len(),
            lines: body.lines().filter(|l| l.starts_with(['+', '-'])).count(),
            objects: g.members.len(),
            title: names.join(", "),
        });
    }
    for (ei, d) in diffs.iter().enumerate() {
        for (pi, p) in d.pairs.iter().enumerate() {
            if p.status == Status::Unchanged
                || covered.contains(&(ei, pi))
                || pair_body(p, opts.full).is_empty()
            {
                continue;
            }
            let size: usize = pair_body(p, opts.full)
                .iter()
                .map(|l| l.len() + 1)
                .sum::<usize>()
                + pair_title(p).len()
                + 3;
            out.push(Block {
                id: (ei, pi),
                size,
                lines: p.changed_lines(),
                objects: 1,
                title: format!("{} ({})", p.key, d.env),
            });
        }
    }
    // Largest first; ties in output order.
    out.sort_by(|a, b| b.size.cmp(&a.size).then(a.id.cmp(&b.id)));
    out
}

fn cut_note(cut: &[&Block], hidden: &[String], opts: &MarkdownOptions) -> String {
    let limit = opts.limit;
    let site = match opts.flavor {
        Flavor::GitHub => "GitHub's",
        Flavor::GitLab => "GitLab's",
    };
    let lines: usize = cut.iter().map(|b| b.lines).sum();
    let objects: usize = cut.iter().map(|b| b.objects).sum();
    let list = |items: Vec<String>, total: usize| {
        let mut v: Vec<String> = items.into_iter().take(20).collect();
        if total > 20 {
            v.push(format!("and {} more", total - 20));
        }
        v.join(", ")
    };
    let mut s = format!(
        "{}> Cut to stay under {site} {}-character comment limit, largest first: the diffs of {} object{} ({lines} changed lines): {}.",
        alert(opts.flavor, "NOTE"),
        group_thousands(limit),
        objects,
        if objects == 1 { "" } else { "s" },
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
    let (full, _) = render(diffs, &cut, true, opts);
    if full.len() < opts.limit {
        return full;
    }
    let blocks = blocks(diffs, opts);
    // The text with the `k` largest diffs cut, if it fits.
    let attempt = |k: usize| -> Option<String> {
        let cut: Cut = blocks[..k].iter().map(|b| b.id).collect();
        let list: Vec<&Block> = blocks[..k].iter().collect();
        let (body, hidden) = render(diffs, &cut, true, opts);
        let text = body + "\n" + &cut_note(&list, &hidden, opts);
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
    let note = cut_note(&list, &[], opts) + "> The per-Kustomization details were left out too.\n";
    let (head, _) = render(diffs, &cut, false, opts);
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
            changes: (0..lines)
                .map(|i| crate::diff::Change::Changed {
                    path: format!("data.key{i}"),
                    old: format!("old-{obj}"),
                    new: format!("new-{obj}"),
                })
                .collect(),
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
