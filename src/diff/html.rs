//! `-o html`: one self-contained page for reviewing a change.
//!
//! Everything is inline (style, script, data); a Content-Security-Policy
//! forbids the page any request. The page shows the version table and the
//! changes shared by several objects on top, a navigation tree environment
//! → producer → kind → object, filters (changed kinds, text search),
//! keyboard navigation (j/k or the arrow keys, `/` to search, `v` for the
//! view, `t` for the theme), and per object its changes by YAML path and
//! its line diff, unified or side by side, with word-level highlighting.
//! The data is the diff the other formats print: Secret values are
//! already redacted.

use serde_json::{Value as J, json};

use super::group;
use super::unified::{headline, pair_title};
use super::{EnvDiff, Status};

const STYLE: &str = include_str!("html/report.css");
const SCRIPT: &str = include_str!("html/report.js");

/// Text safe in HTML element content and attribute values.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// JSON that can sit inside a `<script>` element.
fn script_json(v: &J) -> String {
    serde_json::to_string(v)
        .unwrap_or_default()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

fn data(diffs: &[EnvDiff]) -> J {
    let (groups, _) = group::shared(diffs);
    let mut envs = Vec::new();
    for (ei, d) in diffs.iter().enumerate() {
        let mut objects = Vec::new();
        for (pi, p) in d.pairs.iter().enumerate() {
            if p.status == Status::Unchanged {
                continue;
            }
            let changes: Vec<J> = p
                .changes
                .iter()
                .map(|c| json!({"p": c.path(), "l": c.diff_lines()}))
                .collect();
            let hunks: Vec<J> = p
                .hunks
                .iter()
                .map(|h| {
                    json!({
                        "h": h.header(),
                        "o": h.old_start,
                        "n": h.new_start,
                        "l": h.lines.iter().map(|l| format!("{}{}", l.tag, l.text)).collect::<Vec<_>>(),
                    })
                })
                .collect();
            objects.push(json!({
                "id": format!("o{ei}-{pi}"),
                "producer": p.producer.to_string(),
                "kind": p.key.kind,
                "name": p.key.qualified_name(),
                "status": p.status.as_str(),
                "title": pair_title(p),
                "changes": changes,
                "hunks": hunks,
            }));
        }
        let mut notes: Vec<String> = d
            .errors
            .iter()
            .map(|(side, e)| format!("error: {} could not be rendered: {e}", side.as_str()))
            .collect();
        notes.extend(d.problems.iter().map(|p| {
            format!(
                "{}: {}",
                if p.is_fatal() { "error" } else { "warning" },
                p.describe()
            )
        }));
        notes.extend(d.notes.iter().map(|n| format!("note: {n}")));
        notes.extend(
            super::human::noise_notes(d)
                .into_iter()
                .map(|n| format!("note: {n}")),
        );
        envs.push(json!({
            "name": d.env,
            "headline": headline(d),
            "notes": notes,
            "objects": objects,
        }));
    }
    let groups: Vec<J> = groups
        .iter()
        .map(|g| {
            let text = match (g.changes, g.changes[0].one_line()) {
                ([_], Some(l)) => l,
                ([c], None) => c.path().to_string(),
                (cs, _) => format!("{} changes", cs.len()),
            };
            json!({
                "text": text,
                "where": group::places(diffs, &g.members),
                "members": g.members.iter().map(|(e, p)| format!("o{e}-{p}")).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({ "envs": envs, "groups": groups })
}

fn versions_table(diffs: &[EnvDiff]) -> String {
    let rows = group::versions(diffs);
    if rows.is_empty() {
        return String::new();
    }
    let mut s = format!(
        "<section id=\"versions\"><h2>{}</h2><table><thead><tr><th></th><th>Old</th><th>New</th><th></th><th>Where</th></tr></thead><tbody>",
        esc(&group::version_headline(&rows))
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
        s.push_str(&format!(
            "<tr><td>{} <code>{}</code></td><td><code>{}</code></td><td><code>{}</code></td><td>{}</td><td>{} in {}</td></tr>",
            r.kind.as_str(),
            esc(&r.what),
            esc(&r.old),
            esc(&r.new),
            r.direction(),
            esc(&used),
            esc(&group::and_list(&r.envs))
        ));
    }
    s.push_str("</tbody></table></section>");
    s
}

/// The page for `diffs`.
pub fn html(diffs: &[EnvDiff]) -> String {
    let envs: Vec<&str> = diffs.iter().map(|d| d.env.as_str()).collect();
    let title = format!("flate diff {}", envs.join(" "));
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; form-action 'none'; base-uri 'none'\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<title>{t}</title><style>{STYLE}</style></head>\n<body>\
<header><h1>{t}</h1><div class=\"tools\">\
<input id=\"search\" type=\"search\" placeholder=\"Search objects and paths (/)\" aria-label=\"Search\">\
<span class=\"views\" role=\"group\" aria-label=\"View\"><button id=\"view-unified\" class=\"on\">Unified</button><button id=\"view-split\">Side by side</button></span>\
<button id=\"theme\" title=\"Light or dark (t)\">Theme</button></div>\
<div id=\"kinds\" aria-label=\"Changed kinds\"></div></header>\n\
<div id=\"top\"><div id=\"headlines\"></div>{v}<section id=\"groups\"></section></div>\n\
<div id=\"main\"><nav id=\"tree\" aria-label=\"Objects\"></nav><main id=\"detail\"><p class=\"hint\">Select an object (j/k or ↑/↓ to move).</p></main></div>\n\
<script type=\"application/json\" id=\"data\">{d}</script>\n<script>{SCRIPT}</script>\n</body></html>\n",
        t = esc(&title),
        v = versions_table(diffs),
        d = script_json(&data(diffs)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_cannot_close_its_script_element() {
        let v = json!({"a": "</script><b>&"});
        let s = script_json(&v);
        assert!(!s.contains('<') && !s.contains('>') && !s.contains('&'));
        assert_eq!(
            serde_json::from_str::<J>(&s).unwrap(),
            v,
            "still the same JSON"
        );
        assert_eq!(
            esc("<a href='x'>&\""),
            "&lt;a href=&#39;x&#39;&gt;&amp;&quot;"
        );
    }
}
