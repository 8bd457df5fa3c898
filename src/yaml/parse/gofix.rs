//! Two forms go-yaml reads that yaml-rust2 refuses, rewritten (only when
//! yaml-rust2 has refused the text) into forms both read as one tree:
//!
//! - An alias as a mapping key, `*app: value`. go-yaml (as libyaml) ends an
//!   anchor or alias name at the first character that is not a letter, a
//!   digit, `_` or `-`; yaml-rust2 (YAML 1.2) takes every character up to a
//!   blank or a flow indicator, so it reads an alias named `app:` and fails
//!   on it as unknown. A blank before the `:` makes it read `*app` too.
//! - A single-pair mapping in a flow sequence, `[targets: [a, b]]`. YAML
//!   and go-yaml read it as `[{targets: [a, b]}]` (a flow mapping of one
//!   pair). yaml-rust2 tracks such pairs with one flag for the whole text
//!   and loses track of them at an inner collection, a quoted key written
//!   JSON style (`["k":"v"]`), an alias key, or a pair after another
//!   collection: it fails with one of several errors
//!   (tools/yaml_flow_differential.py finds them). The braces are written
//!   out, around every such pair.
//!
//! Both rewrites keep every line where it is, so positions in a later
//! error keep their lines.

/// A byte of go-yaml's anchor names (libyaml's `is_alpha`).
pub(super) fn go_anchor_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// For an alias at `i` (a `*`) whose go-yaml name is followed by a `:`
/// that is a value indicator: where that `:` is.
fn alias_key_colon(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    while j < b.len() && go_anchor_byte(b[j]) {
        j += 1;
    }
    (j > i + 1 && b.get(j) == Some(&b':') && is_value_end(b, j + 1)).then_some(j)
}

/// One flow collection open at the point being read.
struct Frame {
    seq: bool,
    /// Where the current entry's first character is (`None` before it).
    entry: Option<usize>,
    /// The current entry has a `:` of its own (it is a single pair).
    pair: bool,
}

/// `text` with a blank before the `:` of every alias used as a key
/// (`*app:` becomes `*app :`) and braces around every single-pair entry
/// of a flow sequence (`[k: [a]]` becomes `[{k: [a]}]`); `None` when
/// there is neither, or when the text holds what this reading does not
/// follow (an explicit key `?` in a flow sequence, a quoted scalar left
/// open). Quoted and block scalars and comments are read past, not
/// changed.
pub(super) fn rewrite(text: &str) -> Option<String> {
    let (inserts, _) = scan(text, None)?;
    if inserts.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(text.len() + inserts.len());
    let mut last = 0;
    for (at, ch) in inserts {
        out.push_str(&text[last..at]);
        out.push(ch as char);
        last = at;
    }
    out.push_str(&text[last..]);
    Some(out)
}

/// Whether 1-based line `line` of `text` starts inside a flow collection
/// (as this reading follows the text; `false` where it does not).
pub(super) fn in_flow_at_line(text: &str, line: usize) -> bool {
    let start = match line {
        0 | 1 => 0,
        n => match text.match_indices('\n').nth(n - 2) {
            Some((i, _)) => i + 1,
            None => return false,
        },
    };
    scan(text, Some(start)).is_some_and(|(_, in_flow)| in_flow)
}

/// Reads `text` as [`rewrite`] says: the insertions to make, in order,
/// and whether offset `probe` is inside a flow collection.
fn scan(text: &str, probe: Option<usize>) -> Option<(Vec<(usize, u8)>, bool)> {
    let b = text.as_bytes();
    let mut probed: Option<bool> = None;
    let mut stack: Vec<Frame> = Vec::new();
    let mut inserts: Vec<(usize, u8)> = Vec::new();
    // In block context: whether the next character starts a token (after
    // `key: `, `- `, `? `, an anchor, a tag, or at a line's start).
    let mut i = 0;
    let mut line_start = 0;
    // The last significant byte read in flow context (for a quoted key
    // followed by `:` with no blank, JSON style).
    let mut prev_quoted = false;
    while i < b.len() {
        if let Some(p) = probe
            && probed.is_none()
            && i >= p
        {
            probed = Some(!stack.is_empty());
        }
        let c = b[i];
        if c == b'\n' {
            i += 1;
            line_start = i;
            continue;
        }
        let blank_before = i == line_start || matches!(b[i - 1], b' ' | b'\t');
        if stack.is_empty() {
            // Block context.
            match c {
                b'#' if blank_before => i = line_end(b, i),
                b'\'' | b'"' if blank_before => i = skip_quoted(b, i)?,
                b'|' | b'>' if blank_before && block_token_start(b, line_start, i) => {
                    if header_at_key_column(b, line_start, i) {
                        inserts.push((i, b' '));
                    }
                    i = skip_block_scalar(b, line_start, i);
                    line_start = i;
                }
                b'[' | b'{' if block_token_start(b, line_start, i) => {
                    stack.push(Frame::new(c == b'['));
                    i += 1;
                }
                b'*' if blank_before => match alias_key_colon(b, i) {
                    Some(colon) => {
                        inserts.push((colon, b' '));
                        i = colon;
                    }
                    None => i += 1,
                },
                _ => i += 1,
            }
            prev_quoted = false;
            continue;
        }
        // Flow context.
        if matches!(c, b' ' | b'\t' | b'\r') {
            i += 1;
            continue;
        }
        if c == b'#' && blank_before {
            i = line_end(b, i);
            continue;
        }
        let top = stack.last_mut().expect("in flow context");
        match c {
            b'[' | b'{' => {
                top.start_entry(i);
                stack.push(Frame::new(c == b'['));
                i += 1;
                prev_quoted = false;
            }
            b']' | b'}' => {
                let done = stack.pop().expect("in flow context");
                done.close(i, &mut inserts);
                i += 1;
                prev_quoted = false;
                if stack.is_empty() {
                    // Back in block context, after the collection.
                    continue;
                }
            }
            b',' => {
                let seq_entry_end = i;
                let top = stack.last_mut().expect("in flow context");
                top.close(seq_entry_end, &mut inserts);
                let seq = top.seq;
                *top = Frame::new(seq);
                i += 1;
                prev_quoted = false;
            }
            b'?' if top.seq && top.entry.is_none() && is_value_end(b, i + 1) => return None,
            b':' if prev_quoted || is_value_end(b, i + 1) => {
                top.start_entry(i);
                top.pair = true;
                i += 1;
                prev_quoted = false;
            }
            b'\'' | b'"' => {
                top.start_entry(i);
                i = skip_quoted(b, i)?;
                prev_quoted = true;
            }
            _ => {
                top.start_entry(i);
                if c == b'*'
                    && let Some(colon) = alias_key_colon(b, i)
                {
                    inserts.push((colon, b' '));
                }
                // A plain scalar (or an anchor, alias or tag) up to a flow
                // indicator, a `: ` or a comment.
                let ends_plain = |i: usize| match b[i] {
                    b'\n' | b',' | b'[' | b']' | b'{' | b'}' => true,
                    b':' => is_value_end(b, i + 1),
                    b'#' => matches!(b[i - 1], b' ' | b'\t'),
                    _ => false,
                };
                i += 1;
                while i < b.len() && !ends_plain(i) {
                    i += 1;
                }
                prev_quoted = false;
            }
        }
    }
    inserts.sort_by_key(|&(at, ch)| (at, ch == b'{'));
    inserts.dedup();
    Some((inserts, probed.unwrap_or(false)))
}

impl Frame {
    fn new(seq: bool) -> Self {
        Frame {
            seq,
            entry: None,
            pair: false,
        }
    }

    fn start_entry(&mut self, at: usize) {
        if self.entry.is_none() {
            self.entry = Some(at);
        }
    }

    /// The current entry ends at `end` (a `,` or the closing bracket):
    /// braces around it when it is a single pair.
    fn close(&self, end: usize, inserts: &mut Vec<(usize, u8)>) {
        if let (true, true, Some(start)) = (self.seq, self.pair, self.entry) {
            inserts.push((start, b'{'));
            inserts.push((end, b'}'));
        }
    }
}

/// Whether the byte at `i` ends a plain scalar after a `:` (a blank, a
/// line's end, a flow indicator or the text's end).
fn is_value_end(b: &[u8], i: usize) -> bool {
    b.get(i).is_none_or(|&c| {
        matches!(
            c,
            b' ' | b'\t' | b'\r' | b'\n' | b',' | b'[' | b']' | b'{' | b'}'
        )
    })
}

fn line_end(b: &[u8], i: usize) -> usize {
    memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n)
}

/// The offset after the quoted scalar that starts at `i` (which may span
/// lines); `None` when it is left open.
fn skip_quoted(b: &[u8], i: usize) -> Option<usize> {
    let q = b[i];
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' if q == b'"' => j += 2,
            c if c == q => {
                if q == b'\'' && b.get(j + 1) == Some(&b'\'') {
                    j += 2;
                } else {
                    return Some(j + 1);
                }
            }
            _ => j += 1,
        }
    }
    None
}

/// Whether the byte at `i` (block context) starts a node: the first of
/// its line's content, or after `key: `, `- `, `? `, `--- `, an anchor or
/// a tag.
fn block_token_start(b: &[u8], line_start: usize, i: usize) -> bool {
    let before = &b[line_start..i];
    let trimmed = before.trim_ascii_end();
    if trimmed.is_empty() {
        return true;
    }
    if trimmed.len() == before.len() {
        return false;
    }
    let word_start = trimmed
        .iter()
        .rposition(|&c| c == b' ' || c == b'\t')
        .map_or(0, |p| p + 1);
    let word = &trimmed[word_start..];
    matches!(word, b"-" | b"?" | b"---") || word.ends_with(b":") || matches!(word[0], b'&' | b'!')
}

/// Whether the block scalar header at `i`, first on its line, is the
/// value of the key of the line before (the last one with content), at
/// that key's column: go-yaml (as libyaml) takes it so, yaml-rust2 wants
/// it indented more (`key:` then `|` under the `k`).
fn header_at_key_column(b: &[u8], line_start: usize, i: usize) -> bool {
    if !b[line_start..i].iter().all(|&c| c == b' ') || line_start == 0 {
        return false;
    }
    // The line before with content (not blank, not only a comment).
    let mut end = line_start - 1;
    let prev = loop {
        let start = b[..end]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |p| p + 1);
        let line = &b[start..end];
        let t = line.trim_ascii();
        if !t.is_empty() && t[0] != b'#' {
            break line;
        }
        if start == 0 {
            return false;
        }
        end = start - 1;
    };
    // Its content without a comment (` #` on: a key with no value has no
    // quoted scalar after its colon).
    let content = match prev
        .windows(2)
        .position(|w| matches!(w[0], b' ' | b'\t') && w[1] == b'#')
    {
        Some(p) => &prev[..p],
        None => prev,
    };
    let content = content.trim_ascii_end();
    if !content.ends_with(b":") || content.len() < 2 {
        return false;
    }
    // The key's column: past the indentation and any `- ` of sequences.
    let mut col = 0;
    loop {
        while prev.get(col) == Some(&b' ') {
            col += 1;
        }
        if prev.get(col) == Some(&b'-') && matches!(prev.get(col + 1), Some(b' ' | b'\t')) {
            col += 1;
        } else {
            break;
        }
    }
    col == i - line_start && !matches!(prev[col], b'|' | b'>' | b'#')
}

/// The offset of the line after the block scalar whose header is at `i`:
/// its content is every following line that is blank or indented at least
/// as much as its first non-blank line, when that one is indented more
/// than the header's line.
fn skip_block_scalar(b: &[u8], line_start: usize, i: usize) -> usize {
    let indent_of = |s: usize| b[s..].iter().take_while(|&&c| c == b' ').count();
    let parent = indent_of(line_start);
    let mut at = line_end(b, i);
    if at < b.len() {
        at += 1;
    }
    let mut content: Option<usize> = None;
    while at < b.len() {
        let end = line_end(b, at);
        let line = &b[at..end];
        let blank = line.iter().all(|&c| c == b' ' || c == b'\t' || c == b'\r');
        if !blank {
            let n = indent_of(at);
            let need = *content.get_or_insert(n);
            if n <= parent || n < need {
                return at;
            }
        }
        at = if end < b.len() { end + 1 } else { end };
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alias_keys_get_a_blank() {
        let text = "a: &app x\nb:\n  *app:\n    c: 1\nd: *app\ne: {*app: 1}\n";
        assert_eq!(
            rewrite(text).as_deref(),
            Some("a: &app x\nb:\n  *app :\n    c: 1\nd: *app\ne: {*app : 1}\n")
        );
        assert_eq!(rewrite("e: [*a: 1]\n").as_deref(), Some("e: [{*a : 1}]\n"));
        assert_eq!(rewrite("a: &x 1\nb: *x\n"), None);
        // A name go-yaml would not end at the `:`, and text, are left alone.
        assert_eq!(rewrite("a: *x.y:\n"), None);
        assert_eq!(rewrite("a: '*x: 1'\nb: |\n  *x: 1\n# *x: 1\n"), None);
    }

    #[test]
    fn flow_pairs_get_braces() {
        let cases = [
            ("s: [targets: x]\n", "s: [{targets: x}]\n"),
            (
                "s: [\"k\":\"v\", *a: b]\n",
                "s: [{\"k\":\"v\"}, {*a : b}]\n",
            ),
            ("s: [targets: [a]]\n", "s: [{targets: [a]}]\n"),
            ("s: [a, k: {b: c}, d]\n", "s: [a, {k: {b: c}}, d]\n"),
            ("s: [\"t\":[a]]\n", "s: [{\"t\":[a]}]\n"),
            ("- [k: [a: [b]]]\n", "- [{k: [{a: [b]}]}]\n"),
            ("s: {m: [k: [x]]}\n", "s: {m: [{k: [x]}]}\n"),
            ("s: [k: [a],\n  j: [b]]\n", "s: [{k: [a]},\n  {j: [b]}]\n"),
        ];
        for (text, want) in cases {
            assert_eq!(rewrite(text).as_deref(), Some(want), "{text}");
        }
    }

    #[test]
    fn other_flow_text_is_left_alone() {
        for text in [
            "s: [a, b]\n",
            "s: {a: b, c: [d]}\n",
            "s: '[k: [a]]'\n",
            "s: \"[k: [a]]\"\n",
            "s: x [k: [a]]\n",
            "s: |\n  [k: [a]]\nt: 1\n",
            "# [k: [a]]\ns: 1\n",
            "s: [http://x: [a]]\n",
            "s: [? k : [a]]\n",
        ] {
            let got = rewrite(text);
            // The URL's `:` is no indicator: `http://x: [a]` is the pair.
            if text.contains("http") {
                assert_eq!(got.as_deref(), Some("s: [{http://x: [a]}]\n"));
            } else {
                assert_eq!(got, None, "{text}");
            }
        }
    }
}
