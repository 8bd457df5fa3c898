//! go-yaml's wording of YAML syntax errors, for the places that print an
//! error of `sigs.k8s.io/yaml` (Helm: rendered manifests, `fromYaml`,
//! values files), whose YAML reader is a go-yaml v2 fork.
//!
//! flate's parser (yaml-rust2) stops at the same token as go-yaml's
//! scanner and parser (both follow libyaml) for the common errors, but
//! words them differently and counts lines differently. go-yaml reports
//! the message of the problem alone (no "while parsing ..." context) and
//! its line as follows:
//!
//! - a scanner error (a token that cannot be read) gives the 1-based line
//!   of the problem, but none on the first line;
//! - a parser error (a token in the wrong place) gives the problem's
//!   0-based line, i.e. one less (a text without a final line break ends
//!   with a token on the line after its last);
//! - a 0 there (a problem on the first line) gives no line at all;
//! - errors of the decoder (unknown anchors, bad tagged values) and of the
//!   reader (control characters) have no line.

use super::parse::ParseError;

/// How go-yaml reports an error: the text after `yaml: `.
pub fn go_yaml_message(text: &str, e: &ParseError) -> String {
    let (line, message) = translate(text, e);
    match line {
        Some(l) if l > 0 => format!("line {l}: {message}"),
        _ => message,
    }
}

/// [`go_yaml_message`] for an error in a stream that Helm splits into
/// documents before reading each (`LoadValues`, with the Kubernetes YAML
/// reader: a line starting with `---` and nothing after it but blanks or a
/// comment ends a document): the line counts from the start of the
/// document holding the error.
pub fn go_yaml_message_in_documents(text: &str, e: &ParseError) -> String {
    match document_text(text, e.line.saturating_sub(1)) {
        None => go_yaml_message(text, e),
        Some((start, doc)) => {
            let shifted = ParseError {
                line: e.line - start,
                col: e.col,
                message: e.message.clone(),
            };
            go_yaml_message(&doc, &shifted)
        }
    }
}

/// The document holding line `at` (0-based) of a stream Helm splits into
/// documents (see [`go_yaml_message_in_documents`]), with the index of its
/// first line; `None` when that is the whole text.
pub fn document_text(text: &str, at: usize) -> Option<(usize, String)> {
    let lines: Vec<&str> = text.split('\n').collect();
    let (start, end) = document_lines(&lines, at);
    if start == 0 && end == lines.len() {
        return None;
    }
    let mut doc = lines[start..end].join("\n");
    if end < lines.len() {
        doc.push('\n');
    }
    Some((start, doc))
}

/// The index of the first line of the document holding line `at` (0-based)
/// of a stream Helm splits into documents (see
/// [`go_yaml_message_in_documents`]): the text before it is the documents
/// Helm reads before that one.
pub fn document_start(text: &str, at: usize) -> usize {
    let lines: Vec<&str> = text.split('\n').collect();
    document_lines(&lines, at).0
}

/// The index of the first line of the document holding line `at` and of
/// the line after it, as the Kubernetes YAML reader splits them: a line
/// starting with `---` and nothing after it but blanks or a comment ends a
/// document when the document has a line already; one that comes first
/// (the stream's opening `---`) is the first line of its document.
fn document_lines(lines: &[&str], at: usize) -> (usize, usize) {
    let is_separator = |l: &str| {
        l.strip_prefix("---").is_some_and(|rest| {
            let rest = rest.trim();
            rest.is_empty() || rest.starts_with('#')
        })
    };
    let (mut start, mut end, mut empty) = (0, lines.len(), true);
    for (i, l) in lines.iter().enumerate() {
        if is_separator(l) && !empty && i != at {
            if i > at {
                end = i;
                break;
            }
            start = i + 1;
            empty = true;
            continue;
        }
        empty = false;
    }
    (start, end)
}

/// go-yaml's `Unmarshal` reads the first document of a stream and stops
/// there: for an error `e` past the end of the first document, the text of
/// that document (which go-yaml reads without error), else `None`.
pub fn first_document_before<'a>(text: &'a str, e: &ParseError) -> Option<&'a str> {
    let line_start = |line: usize| -> Option<usize> {
        let mut at = 0;
        for _ in 1..line {
            at += text[at..].find('\n')? + 1;
        }
        Some(at)
    };
    let at_error = || -> Option<&'a str> {
        let start = line_start(e.line)?;
        let offset = text[start..]
            .char_indices()
            .nth(e.col.saturating_sub(1))
            .map_or(text.len(), |(i, _)| start + i);
        Some(&text[..offset])
    };
    let reads = |t: &str| super::parse::parse_stream_json_keys(t).is_ok();
    if e.message.contains("<document start>") {
        // Content after the first document's root node: the document ends
        // where the error is, or (the parser having read a key there) at
        // the start of the error's line.
        let cut = at_error()?;
        if reads(cut) {
            return Some(cut);
        }
        let line = &text[..line_start(e.line)?];
        return reads(line).then_some(line);
    }
    if e.message == "invalid trailing content after double-quoted scalar"
        && matches!(after_quoted_scalar(text, e), AfterQuoted::Expected(_))
        && trailing(&rest_of_line(text, e)).is_some_and(|t| !t.indicator)
    {
        // A quoted scalar that is the whole first document, more text
        // after it on its line.
        let cut = at_error()?;
        let root_scalar = super::parse::parse_stream_json_keys(cut)
            .is_ok_and(|d| d.len() == 1 && matches!(d[0].node, super::Node::Str(_)));
        return root_scalar.then_some(cut);
    }
    let is_marker = |l: &str| {
        ["---", "..."].iter().any(|m| {
            l.strip_prefix(m)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t', '\r']))
        })
    };
    let mut content = false;
    let mut start = 0;
    for (i, l) in text.split('\n').enumerate() {
        if i + 1 > e.line {
            break;
        }
        if content && is_marker(l) {
            return Some(&text[..start]);
        }
        let t = l.trim();
        if !t.is_empty() && !t.starts_with('#') && !t.starts_with('%') && !is_marker(l) {
            content = true;
        } else if is_marker(l) && l.len() > 3 && !l[3..].trim().is_empty() {
            // `--- value` starts the first document's content.
            content = true;
        }
        start += l.len() + 1;
    }
    None
}

enum Class {
    Scanner,
    Parser,
}

/// The line go-yaml prints (`None` or 0 for none) and its message.
fn translate(text: &str, e: &ParseError) -> (Option<usize>, String) {
    if let Some(next) = super::parse::error_past_flow_indentation(text, e) {
        return translate(text, &next);
    }
    // (flate's parser may stop on the line after the tab's.)
    if let Some(tab_line) = [e.line, e.line.saturating_sub(1)]
        .into_iter()
        .find(|&l| l > 0 && tab_in_block_scalar_indentation(text, l))
    {
        let line = if tab_line <= 1 { 0 } else { tab_line };
        return (
            Some(line),
            "found a tab character where an indentation space is expected".into(),
        );
    }
    let m = e.message.as_str();
    let at = |class: Class, message: &str| {
        let line = match class {
            // (go-yaml adds the 1 only to a line that is not 0.)
            Class::Scanner if e.line <= 1 => 0,
            Class::Scanner => e.line,
            Class::Parser => e.line.saturating_sub(1),
        };
        (Some(line), message.to_string())
    };
    // Decoder and reader errors.
    if m.contains("found unknown anchor") || m == "unknown anchor" {
        return match anchor_name(text, e) {
            Some(name) => (None, format!("unknown anchor '{name}' referenced")),
            None => (Some(e.line), m.to_string()),
        };
    }
    if m == "!!binary value contains invalid base64 data"
        || m == "map merge requires map or sequence of maps as the value"
    {
        return (None, m.to_string());
    }
    if m.starts_with("control characters are not allowed") {
        return (None, "control characters are not allowed".into());
    }
    if let Some(rest) = m.strip_prefix("cannot decode ")
        && let Some((value, tag)) = rest.rsplit_once(" as !!")
    {
        let value = unquote_debug(value);
        return (None, format!("cannot decode !!str `{value}` as a !!{tag}"));
    }
    // Scanner errors.
    match m {
        "mapping values are not allowed in this context"
        | "block sequence entries are not allowed in this context"
        | "mapping keys are not allowed in this context"
        | "did not find expected alphabetic or numeric character" => {
            return at(Class::Scanner, m);
        }
        "simple key expected" | "simple key expect ':'" => {
            return at(Class::Scanner, "could not find expected ':'");
        }
        "tabs disallowed within this context (block indentation)"
        | super::parse::TAB_AFTER_ENTRY
        | super::parse::TAB_IN_BLANK_LINE
        | "tabs disallowed in this context"
        | "tab cannot be used as indentation" => {
            return at(
                Class::Scanner,
                "found character that cannot start any token",
            );
        }
        "while scanning a plain scalar, found a tab" | super::parse::TAB_AFTER_PLAIN => {
            return at(
                Class::Scanner,
                "found a tab character that violates indentation",
            );
        }
        // (flate re-indents a quoted scalar's continuation lines, which
        // go-yaml does not check; this error is left when the scalar is
        // never closed.)
        "while scanning a quoted scalar, found unexpected end of stream"
        | "invalid indentation in quoted scalar" => return end_of_stream(text),
        "missing explicit document end marker before directive" => {
            let line = text.split('\n').nth(e.line.saturating_sub(1)).unwrap_or("");
            if !line.starts_with("%YAML") && !line.starts_with("%TAG") {
                return at(Class::Scanner, "found unknown directive name");
            }
        }
        _ => {}
    }
    if m == "while parsing a quoted scalar, did not find expected hexadecimal number" {
        // (go-yaml's spelling.)
        return at(Class::Scanner, "did not find expected hexdecimal number");
    }
    if let Some(problem) = m
        .strip_prefix("while parsing a quoted scalar, ")
        .or_else(|| m.strip_prefix("while parsing a tag, "))
    {
        // Scanner errors in yaml-rust2's words.
        return at(Class::Scanner, problem);
    }
    if m == "the handle wasn't declared" {
        return at(Class::Parser, "found undefined tag handle");
    }
    if m == "duplicate version directive" {
        return at(Class::Parser, "found duplicate %YAML directive");
    }
    if m == "while parsing a flow mapping, did not find expected ',' or '}'"
        && open_flow(text, e.line, e.col) == Some(']')
    {
        // A single-pair mapping inside a flow sequence (`[a: b: c]`).
        return at(Class::Parser, "did not find expected ',' or ']'");
    }
    if m.starts_with("unexpected character: ") {
        return at(
            Class::Scanner,
            "found character that cannot start any token",
        );
    }
    // Parser errors.
    if m == "while parsing a flow sequence, expected ',' or ']'" {
        return at(Class::Parser, "did not find expected ',' or ']'");
    }
    if m == "invalid trailing content after double-quoted scalar" {
        // go-yaml reads the scalar, then the token after it: an error of
        // its scanner when that cannot be read, else a token the parser
        // does not expect where the scalar is.
        return match after_quoted_scalar(text, e) {
            AfterQuoted::Unterminated => end_of_stream(text),
            AfterQuoted::Unreadable(problem) => at(Class::Scanner, problem),
            AfterQuoted::Expected(what) => {
                at(Class::Parser, &format!("did not find expected {what}"))
            }
            AfterQuoted::RequiredKey(line) => (Some(line), "could not find expected ':'".into()),
        };
    }
    if m == "illegal placement of ':' indicator"
        && let Some(close) = open_flow(text, e.line, 1)
    {
        // A `key: value` line after an unclosed flow collection.
        return at(
            Class::Parser,
            &format!("did not find expected ',' or '{close}'"),
        );
    }
    if m == "did not find expected ',' or ']'" || m == "did not find expected <document start>" {
        return at(Class::Parser, m);
    }
    if let Some(rest) = m.strip_prefix("while parsing ")
        && let Some((_, problem)) = rest.split_once(", ")
    {
        return at(Class::Parser, problem);
    }
    if let Some(rest) = m.strip_prefix("while scanning ")
        && let Some((_, problem)) = rest.split_once(", ")
    {
        return at(Class::Scanner, problem);
    }
    (Some(e.line), m.to_string())
}

/// go-yaml's scanner error for a quoted scalar never closed: at the end
/// of the text.
fn end_of_stream(text: &str) -> (Option<usize>, String) {
    let end = text.matches('\n').count() + 1;
    (
        Some(if end == 1 { 0 } else { end }),
        "found unexpected end of stream".into(),
    )
}

const CANNOT_START: &str = "found character that cannot start any token";

/// What go-yaml finds after a quoted scalar followed on its line by more
/// than a comment, a `:` or (in a flow collection) `,`, `]`, `}`, which
/// yaml-rust2 refuses at once.
enum AfterQuoted {
    /// A quoted scalar that is never closed.
    Unterminated,
    /// A token that cannot be read: the scanner's problem.
    Unreadable(&'static str),
    /// A token the parser does not expect there: what it expected.
    Expected(String),
    /// A scalar where a key of a block collection must be (at its
    /// indentation), never followed by a `:`: go-yaml's scanner gives up
    /// on it at the next token, on this line.
    RequiredKey(usize),
}

fn after_quoted_scalar(text: &str, e: &ParseError) -> AfterQuoted {
    let lines: Vec<&str> = text.split('\n').collect();
    let line = lines.get(e.line.saturating_sub(1)).copied().unwrap_or("");
    let col = e.col.saturating_sub(1);
    let rest: String = line.chars().skip(col).collect();
    let flow = open_flow(text, e.line, e.col);
    match rest.chars().next() {
        Some(q @ ('"' | '\'')) => {
            // The rest of the text after the opening quote.
            let start = lines[..e.line.saturating_sub(1)]
                .iter()
                .map(|l| l.len() + 1)
                .sum::<usize>()
                + line.char_indices().nth(col).map_or(line.len(), |(i, _)| i);
            if super::parse::close_offset(&text[start + 1..], q).is_none() {
                return AfterQuoted::Unterminated;
            }
        }
        Some('@' | '`' | '%') => return AfterQuoted::Unreadable(CANNOT_START),
        Some('|' | '>') if flow.is_some() => return AfterQuoted::Unreadable(CANNOT_START),
        // A `-` or `?` indicator where no new line of a block starts.
        Some(c @ ('-' | '?'))
            if flow.is_none()
                && rest[1..]
                    .chars()
                    .next()
                    .is_none_or(|n| n == ' ' || n == '\t') =>
        {
            return AfterQuoted::Unreadable(if c == '-' {
                "block sequence entries are not allowed in this context"
            } else {
                "mapping keys are not allowed in this context"
            });
        }
        Some('|' | '>') => {
            // A block scalar's header: its indicators, then a comment or
            // the end of the line.
            // (go-yaml: a chomping indicator and an indentation digit,
            // in either order.)
            let mut header = &rest[1..];
            fn chomp(h: &str) -> Option<&str> {
                h.strip_prefix(['+', '-'])
            }
            fn digit(h: &str) -> Option<&str> {
                h.strip_prefix(|c: char| c.is_ascii_digit())
            }
            let first_chomp = chomp(header).is_some();
            for step in 0..2 {
                let next = if (step == 0) == first_chomp {
                    chomp(header)
                } else {
                    digit(header)
                };
                let Some(next) = next else { break };
                if header.starts_with('0') {
                    return AfterQuoted::Unreadable("found an indentation indicator equal to 0");
                }
                header = next;
            }
            let after = header.trim_start_matches([' ', '\t']);
            if !after.is_empty() && !after.starts_with('#') {
                return AfterQuoted::Unreadable("did not find expected comment or line break");
            }
        }
        _ => {}
    }
    if let Some(close) = flow {
        return AfterQuoted::Expected(format!("',' or '{close}'"));
    }
    // In block context: what holds the scalar, from the text before it on
    // its line (its tag and anchor aside).
    let before: String = line.chars().take(col).collect();
    let before = before.trim_end();
    let scalar_start = quoted_scalar_start(before);
    let mut words: Vec<&str> = before[..scalar_start].split_whitespace().collect();
    while words
        .last()
        .is_some_and(|w| w.starts_with('&') || w.starts_with('!'))
    {
        words.pop();
    }
    if words.last().is_some_and(|w| w.ends_with(':')) {
        AfterQuoted::Expected("key".into())
    } else if !words.is_empty() && words.iter().all(|w| *w == "-") {
        AfterQuoted::Expected("'-' indicator".into())
    } else if words.is_empty()
        && let Some(block) = required_key_block(&lines, e.line.saturating_sub(1))
        && let Some(t) = trailing(&rest)
    {
        let at = e.line.saturating_sub(1);
        match (t.indicator, block) {
            (false, _) => AfterQuoted::RequiredKey(required_key_line(
                &lines,
                at,
                line.len() - line.trim_start_matches(' ').len(),
                t.plain_to_end,
            )),
            (true, Block::Sequence) => AfterQuoted::Expected("'-' indicator".into()),
            (true, Block::Mapping) => AfterQuoted::Expected("key".into()),
        }
    } else {
        AfterQuoted::Expected("key".into())
    }
}

/// The spaces a line starts with.
fn indent(l: &str) -> usize {
    l.len() - l.trim_start_matches(' ').len()
}

/// What follows a quoted scalar on its line, as go-yaml's scanner reads
/// it.
struct Trailing {
    /// A `:` that is a mapping's value indicator (outside any flow
    /// collection or quoted scalar, before any comment): the scalar before
    /// it is a key.
    indicator: bool,
    /// Whether a plain scalar runs to the end of the line (it may go on
    /// over the next lines), rather than a comment, a flow collection or a
    /// quoted scalar ending it.
    plain_to_end: bool,
}

/// The tokens of `rest` (a line's text after a quoted scalar); `None`
/// when a flow collection or a quoted scalar is not closed on the line.
fn trailing(rest: &str) -> Option<Trailing> {
    let b = rest.as_bytes();
    let blank = |c: u8| c == b' ' || c == b'\t';
    let mut t = Trailing {
        indicator: false,
        plain_to_end: false,
    };
    let mut i = 0;
    loop {
        while i < b.len() && blank(b[i]) {
            i += 1;
        }
        let Some(&c) = b.get(i) else {
            return Some(t);
        };
        match c {
            b'#' => return Some(t),
            b'"' | b'\'' => {
                i += 1 + super::parse::close_offset(&rest[i + 1..], c as char)? + 1;
                t.plain_to_end = false;
            }
            b'[' | b'{' => {
                let mut depth = 0usize;
                loop {
                    match b.get(i)? {
                        b'[' | b'{' => depth += 1,
                        b']' | b'}' => depth -= 1,
                        &q @ (b'"' | b'\'') => {
                            i += super::parse::close_offset(&rest[i + 1..], q as char)? + 1;
                        }
                        _ => {}
                    }
                    i += 1;
                    if depth == 0 {
                        break;
                    }
                }
                t.plain_to_end = false;
            }
            _ => {
                // A plain scalar, up to a value indicator, a comment or the
                // end of the line.
                loop {
                    match b.get(i) {
                        None => {
                            t.plain_to_end = true;
                            return Some(t);
                        }
                        Some(b':') if b.get(i + 1).is_none_or(|&n| blank(n)) => {
                            t.indicator = true;
                            return Some(t);
                        }
                        Some(&c) if blank(c) && b.get(i + 1) == Some(&b'#') => break,
                        Some(_) => i += 1,
                    }
                }
            }
        }
    }
}

/// The block collection whose entries stand at a column.
#[derive(Clone, Copy, PartialEq)]
enum Block {
    Mapping,
    Sequence,
}

/// For a scalar that starts line `at` (0-based) of `lines` (after its
/// indentation): the block collection it stands in at that collection's
/// indentation (the nearest line above at its indentation or less is an
/// entry of a mapping or a sequence at the same column), where go-yaml
/// requires a key; `None` elsewhere.
fn required_key_block(lines: &[&str], at: usize) -> Option<Block> {
    let blank = |l: &str| {
        let t = l.trim();
        t.is_empty() || t.starts_with('#')
    };
    let col = indent(lines.get(at)?);
    // The collections that have entries on a line, by column: its
    // indentation for an entry, and after each `- ` the column of what
    // follows when that is an entry too (`- x: 1` holds a mapping at 2).
    let entries = |l: &str| {
        let mut out = Vec::new();
        let mut c = indent(l);
        let mut rest = &l[c..];
        loop {
            if rest.trim_end() == "-" || rest.starts_with("- ") {
                out.push((c, Block::Sequence));
                let after = rest[1..].len() - rest[1..].trim_start_matches(' ').len();
                c += 1 + after;
                rest = &rest[1 + after..];
            } else {
                if rest.contains(": ") || rest.trim_end().ends_with(':') || rest.starts_with("? ") {
                    out.push((c, Block::Mapping));
                }
                return out;
            }
        }
    };
    let above = lines[..at]
        .iter()
        .rev()
        .find(|l| !blank(l) && indent(l) <= col)?;
    if above.trim_start().starts_with("---") {
        return None;
    }
    let block = entries(above)
        .into_iter()
        .find(|&(c, _)| c == col)
        .map(|(_, block)| block)?;
    if block == Block::Sequence && indent(above) == col {
        // A sequence at its key's indentation (`a:` then `- 1`) is ended by
        // a line at that column that is not an entry: the key is the
        // mapping's.
        let parent = lines[..at].iter().rev().find(|l| {
            !blank(l) && indent(l) <= col && !(indent(l) == col && l.trim_start().starts_with('-'))
        });
        if parent.is_some_and(|l| indent(l) == col && l.trim_end().ends_with(':')) {
            return Some(Block::Mapping);
        }
    }
    Some(block)
}

/// The line go-yaml reports for the `:` a required key (the scalar
/// starting line `at`, 0-based, at column `col`) never got: where its
/// scanner stands once the key's line is behind it. A plain scalar running
/// to the end of the line goes on over more indented lines and stops at
/// the next other one (a comment's too); otherwise the next token is on
/// the next line that is neither blank nor a comment. At the end of the
/// text: its last line, or the line after the key's when the text ends on
/// the key's line (go-yaml starts a line of its own there).
fn required_key_line(lines: &[&str], at: usize, col: usize, plain_to_end: bool) -> usize {
    for (i, l) in lines.iter().enumerate().skip(at + 1) {
        let t = l.trim();
        if t.is_empty() {
            continue;
        }
        if plain_to_end {
            let continues = indent(l) > col
                && !t.starts_with('#')
                && !l.contains(": ")
                && !l.trim_end().ends_with(':');
            if !continues {
                return i + 1;
            }
        } else if !t.starts_with('#') {
            return i + 1;
        }
    }
    let end = lines.len() - 1;
    if end > at { end + 1 } else { at + 2 }
}

/// The text of `e`'s line from its column on.
fn rest_of_line(text: &str, e: &ParseError) -> String {
    let line = text.split('\n').nth(e.line.saturating_sub(1)).unwrap_or("");
    line.chars().skip(e.col.saturating_sub(1)).collect()
}

/// Where the last quoted scalar of `before` (a line's text up to the end
/// of that scalar) starts: its byte offset, 0 when it is not found on the
/// line.
fn quoted_scalar_start(before: &str) -> usize {
    let mut start = 0;
    let mut i = 0;
    let mut prev_blank = true;
    while let Some(c) = before[i..].chars().next() {
        if matches!(c, '"' | '\'') && prev_blank {
            start = i;
            match super::parse::close_offset(&before[i + 1..], c) {
                Some(end) => i += 1 + end,
                None => break,
            }
            prev_blank = false;
            continue;
        }
        prev_blank = c == ' ' || c == '\t';
        i += c.len_utf8();
    }
    start
}

/// Whether line `line` (1-based) of `text` is a line of a block scalar
/// whose indentation holds a tab before the scalar's indentation is
/// reached, which go-yaml's scanner refuses.
fn tab_in_block_scalar_indentation(text: &str, line: usize) -> bool {
    let lines: Vec<&str> = text.split('\n').collect();
    let Some(target) = line.checked_sub(1).and_then(|i| lines.get(i)) else {
        return false;
    };
    let lead = target.len() - target.trim_start_matches([' ', '\t']).len();
    let Some(tab) = target[..lead].find('\t') else {
        return false;
    };
    // Back to the line that opens the scalar, over blank lines and lines
    // of content.
    let mut content_indent = None;
    for i in (0..line - 1).rev() {
        let l = lines[i];
        if l.trim().is_empty() {
            continue;
        }
        if opens_block_scalar(l) {
            let parent = indent(l);
            return match content_indent {
                Some(ci) if ci > parent => tab < ci,
                Some(_) => false,
                None => true,
            };
        }
        if l.starts_with('\t') || l.trim_start_matches(' ').starts_with('\t') {
            return false;
        }
        content_indent = Some(indent(l));
    }
    false
}

/// Whether a line ends with a block scalar indicator (`|`, `>-`, `|2+`,
/// and an optional comment).
fn opens_block_scalar(l: &str) -> bool {
    let l = match l.find(" #") {
        Some(i) => &l[..i],
        None => l,
    };
    let l = l.trim_end();
    let body = l.trim_end_matches(|c: char| c == '-' || c == '+' || c.is_ascii_digit());
    (body.ends_with('|') || body.ends_with('>'))
        && body[..body.len() - 1]
            .chars()
            .last()
            .is_none_or(|c| c == ' ' || c == '\t')
}

/// The message of `e`, with the alias named when it is an unknown anchor
/// (`unknown anchor 'pvc' referenced`, as go-yaml says; the parser's own
/// message names none).
pub fn with_anchor_named(text: &str, e: &ParseError) -> String {
    if e.message.contains("unknown anchor")
        && let Some(name) = anchor_name(text, e)
    {
        return format!(
            "unknown anchor '{name}' referenced (an anchor holds in its own document only)"
        );
    }
    e.message.clone()
}

/// The name of the alias at the error's position (`*name`).
fn anchor_name(text: &str, e: &ParseError) -> Option<String> {
    let line = text.split('\n').nth(e.line.checked_sub(1)?)?;
    let from = line
        .char_indices()
        .nth(e.col.saturating_sub(1))
        .map_or(0, |(i, _)| i);
    let star = line[from..]
        .find('*')
        .map(|i| from + i)
        .or_else(|| line.find('*'))?;
    let name: String = line[star + 1..]
        .chars()
        .take_while(|c| !c.is_whitespace() && !matches!(c, ',' | '[' | ']' | '{' | '}'))
        .collect();
    (!name.is_empty()).then_some(name)
}

/// The closing bracket of the innermost flow collection still open at
/// line `line`, column `col` (1-based), skipping quoted text and comments.
fn open_flow(text: &str, line: usize, col: usize) -> Option<char> {
    let mut stack: Vec<char> = Vec::new();
    for (i, l) in text.split('\n').take(line).enumerate() {
        let l: String = if i + 1 == line {
            l.chars().take(col.saturating_sub(1)).collect()
        } else {
            l.to_string()
        };
        let mut chars = l.chars();
        let mut prev_blank = true;
        while let Some(c) = chars.next() {
            match c {
                '[' => stack.push(']'),
                '{' => stack.push('}'),
                ']' | '}' => {
                    stack.pop();
                }
                '#' if prev_blank => break,
                '"' | '\'' if prev_blank => {
                    // A quoted scalar on one line.
                    while let Some(q) = chars.next() {
                        if q == '\\' && c == '"' {
                            chars.next();
                        } else if q == c {
                            break;
                        }
                    }
                }
                _ => {}
            }
            prev_blank = c == ' ' || c == '\t' || c == '[' || c == '{' || c == ',';
        }
    }
    stack.last().copied()
}

/// The string inside a Rust `{:?}` quoting (escapes left as they are).
fn unquote_debug(s: &str) -> String {
    s.strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(s)
        .replace("\\\"", "\"")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse::parse_stream_json_keys;

    fn go(text: &str) -> String {
        go_yaml_message(text, &parse_stream_json_keys(text).unwrap_err())
    }

    #[test]
    fn messages_and_lines_as_go_yaml_gives_them() {
        for (text, want) in [
            ("a: [", "line 1: did not find expected node content"),
            ("a: [x, y", "line 1: did not find expected ',' or ']'"),
            ("a: {x: 1", "line 1: did not find expected ',' or '}'"),
            ("a: b: c", "mapping values are not allowed in this context"),
            (
                "a: 1\n b: 2",
                "line 2: mapping values are not allowed in this context",
            ),
            ("a: 1\n- b", "line 1: did not find expected key"),
            ("- a\nb: 1", "line 1: did not find expected '-' indicator"),
            ("a:\n  - b\n c: d", "line 2: did not find expected key"),
            ("key: @x", "found character that cannot start any token"),
            ("a: \"unterminated", "found unexpected end of stream"),
            ("a: 1\nb: 'x", "line 2: found unexpected end of stream"),
            (
                "a:\n\tb: 1",
                "line 2: found character that cannot start any token",
            ),
            (
                "a: 1\n\tb: 2",
                "line 2: found a tab character that violates indentation",
            ),
            ("a: *x", "unknown anchor 'x' referenced"),
            ("a: 1\nb: *nope", "unknown anchor 'nope' referenced"),
            ("- a\n- b\nc", "line 4: could not find expected ':'"),
            ("a: 1\nb\nc: 2", "line 3: could not find expected ':'"),
            ("a: 1\nb: \"x\" y", "line 1: did not find expected key"),
            // After a quoted scalar, Helm v4.1.4's words: the next token
            // unreadable, or unexpected where the scalar is.
            ("a: [\"v1\" x]", "did not find expected ',' or ']'"),
            ("a: {\"v1\" x}", "did not find expected ',' or '}'"),
            ("a: [\"v1\" \"ab", "found unexpected end of stream"),
            ("a: 'v1' 'ab", "found unexpected end of stream"),
            (
                "a: \"v1\" @x",
                "found character that cannot start any token",
            ),
            (
                "x:\n  - \"a\" b",
                "line 1: did not find expected '-' indicator",
            ),
            ("a: !!int x", "cannot decode !!str `x` as a !!int"),
            ("a: 1\nb: c\u{1}", "control characters are not allowed"),
            (
                "a: 1\nb: [1, 2\nc: 3",
                "line 2: did not find expected ',' or ']'",
            ),
            (
                "a: 1\nb: {x: 1\nc: 3",
                "line 2: did not find expected ',' or '}'",
            ),
            ("a: 1\nb: ]", "line 1: did not find expected node content"),
            (
                "a: -\n- b",
                "block sequence entries are not allowed in this context",
            ),
            ("a: 1\n%x", "line 2: found unknown directive name"),
            (
                "a:\n  b: [1,\n  2",
                "line 3: did not find expected ',' or ']'",
            ),
            (
                "a: 1\nb: |\n  x\n\ty",
                "line 4: found a tab character where an indentation space is expected",
            ),
        ] {
            assert_eq!(go(text), want, "{text:?}");
        }
    }

    #[test]
    fn an_error_past_the_first_document_is_not_seen() {
        let first = |text: &str| {
            let e = parse_stream_json_keys(text).unwrap_err();
            first_document_before(text, &e).map(str::to_string)
        };
        assert_eq!(first("a: 1\n---\nb: [").as_deref(), Some("a: 1\n"));
        assert_eq!(first("{a: 1} x").as_deref(), Some("{a: 1} "));
        assert_eq!(
            first("# c\n---\na: 1\n---\nb: {").as_deref(),
            Some("# c\n---\na: 1\n")
        );
        // (The first document is itself invalid: its error stands.)
        assert!(parse_stream_json_keys(&first("a: [\n---\nb: 1").unwrap()).is_err());
    }
}
