//! A quick reader for the common shapes of YAML documents: one document
//! (a leading `---` line allowed, after comment lines too), or several
//! each between lines that are `---` alone (see `parse`), of block
//! mappings and block sequences whose scalars are plain or quoted (on one
//! line or folded over several, as the long descriptions of
//! CustomResourceDefinitions are), empty flow collections (`{}`, `[]`,
//! also as the whole document), flow collections on one line (of words,
//! quoted scalars, aliases and such collections: `{ drop: ["ALL"] }`) and
//! block scalars (`|`, `>`), with comment lines, empty lines and comments
//! after a value; values and items may carry an anchor (`&name`) or be an
//! alias (`*name`), as HelmReleases' values often do.
//! It reads nothing the event parser would read differently: it gives up
//! (`None`) on the first thing that is anything else (a merge key, an
//! anchor on a key, a tag, a flow collection over several lines or with a
//! plain scalar of several words, a complex or repeated key, a key
//! that is not a string, a tab, a CR, a directive, a document end
//! marker, an empty document, an escape it does not know, a line that
//! continues a scalar in a way it does not spell out) and the text goes
//! to the event parser (`parse::parse_text`), which also reports every
//! error.
//! Its result is exactly the event parser's, metadata included (the
//! source text of a plain value whose text is not its canonical text, the
//! quoted flag, the print flags of block scalars and flow collections,
//! the document's foot comment and its line); `mismatch` compares the two.

use super::node::{Map, Node, PRINT_FLOW, PRINT_FOLDED, PRINT_LITERAL};
use super::parse::{Anchored, Document, Keys, MAX_SCALAR_BYTES, foot_comment_follows};
use super::resolve::{Schema, plain_round_trips, resolve_plain_owned};

/// Nesting deeper than this goes to the event parser (which enforces the
/// limit and names the line).
const MAX_FAST_DEPTH: usize = 64;

/// What aliases may expand to in a text the quick reader takes, far below
/// the event parser's limits (`MAX_ALIAS_NODES`, `MAX_ALIAS_BYTES`): a
/// text that aliases more (an alias bomb, short of those limits or past
/// them) goes to the event parser before the quick reader has copied much
/// of it, not after (it would copy it all again). Real files alias a few
/// dozen nodes.
const FAST_ALIAS_NODES: usize = 10_000;
const FAST_ALIAS_BYTES: usize = 1 << 20;

/// yaml-rust2 refuses a simple key longer than 1024 characters.
const MAX_KEY_BYTES: usize = 1000;

/// A block collection this large makes room for as many more entries as
/// the text has lines left (see `parse::RESERVE_AT`).
const RESERVE_AT: usize = 1024;

/// What a mapping entry records about its value besides the value, as the
/// event parser records it (`Map::raw_text`, `is_quoted`, `print_breaks`).
#[derive(Default)]
struct Meta {
    /// The source text of a plain scalar whose text is not its value's.
    raw: Option<String>,
    /// A scalar that is not plain (quoted or a block scalar).
    quoted: bool,
    /// `PRINT_*` flags: a block scalar's style, a flow collection, or a
    /// block sequence whose last item is a block scalar.
    breaks: u8,
}

/// Reads `text` when it is one document of the shapes above, or several,
/// each on lines of its own between lines that are `---` alone; `None`
/// when the event parser must read it.
pub(crate) fn parse(text: &str, schema: Schema) -> Option<Vec<Document>> {
    let Some(starts) = document_starts(text) else {
        return read(text, schema, None);
    };
    if starts.len() >= super::parse::MAX_DOCUMENTS {
        // (The event parser names the line.)
        return None;
    }
    // Each document is read as a text of its own, from its `---` line
    // (which the reader takes) to the line before the next one. A
    // document the reader leaves (an empty one among them: the event
    // parser gives none for it) leaves the whole text to the event parser.
    let mut docs = Vec::with_capacity(starts.len() + 1);
    let mut from = (0, 0);
    for &(byte, line) in starts.iter().chain([&(text.len(), 0)]) {
        let mut read = read(&text[from.0..byte], schema, None)?;
        for d in &mut read {
            d.line += from.1;
        }
        docs.append(&mut read);
        from = (byte, line);
    }
    Some(docs)
}

/// Where the documents after the first start in `text` (the byte offset
/// of each `---` line and its 0-based line number), when there are such
/// `---` lines after a line of content (the first document's `---` may
/// follow comment lines), and no line that starts with `...` or `%` (a
/// document end, a directive: left to the event parser); `None`
/// otherwise.
fn document_starts(text: &str) -> Option<Vec<(usize, usize)>> {
    let b = text.as_bytes();
    // Most texts hold one document: one search, no walk over their lines.
    memchr::memmem::find(b, b"\n---")?;
    let mut starts = Vec::new();
    let mut line = 0;
    let mut at = 0;
    let mut content = false;
    while at < b.len() {
        let end = memchr::memchr(b'\n', &b[at..]).map_or(b.len(), |i| at + i);
        let l = &b[at..end];
        if l.starts_with(b"...") || l.starts_with(b"%") {
            return None;
        }
        if l == b"---" {
            if content {
                starts.push((at, line));
            }
        } else if !content {
            let t = l.trim_ascii_start();
            content = !t.is_empty() && t[0] != b'#';
        }
        line += 1;
        at = end + 1;
    }
    (!starts.is_empty()).then_some(starts)
}

/// What [`parse_head`] keeps of a document's top-level mapping: the keys
/// whose values it reads whole.
pub(crate) type KeepKey = fn(&str) -> bool;

/// Reads `text` as [`parse`] does (it takes exactly the texts `parse`
/// takes) but builds only the values of the top-level keys `keep` accepts:
/// every other value is checked and left out (a skipped key stays in the
/// mapping, with a null value; a skipped document's nested collections are
/// empty). For reading a document's kind and metadata without building the
/// rest of it. Texts longer than [`MAX_SCALAR_BYTES`] are left to `parse`
/// (no scalar of a shorter text can exceed the limit `parse` checks).
pub(crate) fn parse_head(text: &str, schema: Schema, keep: KeepKey) -> Option<Node> {
    if text.len() > MAX_SCALAR_BYTES {
        return None;
    }
    read(text, schema, Some(keep)).map(|mut docs| docs.remove(0).node)
}

fn read(text: &str, schema: Schema, keep: Option<KeepKey>) -> Option<Vec<Document>> {
    let (body, terminated) = match text.strip_suffix('\n') {
        Some(body) => (body, true),
        None => (text, false),
    };
    if body.is_empty() || has_control(body) {
        return None;
    }
    let lines = split_lines(body);
    let mut r = Reader {
        lines,
        terminated,
        pos: 0,
        col: 0,
        schema,
        depth: 0,
        last_content: 0,
        trailing_empty: false,
        keep,
        skip: false,
        last_folded: Vec::new(),
        anchors: std::collections::HashMap::new(),
        alias_nodes: 0,
        alias_bytes: 0,
    };
    // An explicit document start, perhaps after comment lines (the event
    // parser marks the document at its first node all the same).
    if let Some(i) = r.lines.iter().position(|l| {
        let t = l.trim_start_matches(' ');
        !t.is_empty() && !t.starts_with('#')
    }) && r.lines[i] == "---"
    {
        r.pos = i + 1;
    }
    let (at, rest) = r.peek()?;
    if at != 0 {
        return None;
    }
    let line = r.pos + 1;
    let mut node = match rest.get(..2) {
        // A document that is an empty flow collection (`toYaml` of an
        // empty value), perhaps with a comment after it.
        Some(empty @ ("{}" | "[]")) if is_end(&rest[2..]) => {
            r.content();
            r.advance();
            if empty == "[]" {
                Node::Seq(Vec::new())
            } else {
                let mut m = Map::new();
                m.set_flow(true);
                Node::Map(m)
            }
        }
        _ => r.collection(0)?.0,
    };
    if r.peek().is_some() {
        return None;
    }
    let n = r.lines.len() + usize::from(terminated);
    let line_at = |i: usize| r.lines.get(i).copied().unwrap_or("");
    // The event parser marks an empty value at the end of a document
    // after what follows it.
    if r.trailing_empty && (r.last_content + 1..n).any(|i| !line_at(i).trim().is_empty()) {
        return None;
    }
    if let Node::Map(m) = &mut node
        && keep.is_none()
    {
        m.set_doc_foot_comment(foot_comment_follows(n, line_at, r.last_content));
    }
    Some(vec![Document { node, line }])
}

/// The lines of `body` (`body.split('\n')`, with a quicker search).
fn split_lines(body: &str) -> Vec<&str> {
    let mut lines = Vec::with_capacity(body.len() / 32 + 1);
    let mut start = 0;
    for i in memchr::memchr_iter(b'\n', body.as_bytes()) {
        lines.push(&body[start..i]);
        start = i + 1;
    }
    lines.push(&body[start..]);
    lines
}

/// Whether `body` holds a tab, a CR or another control character but the
/// line break (which the event parser refuses, see `parse::check_text`).
/// In blocks without a branch inside, which the compiler makes vector
/// code of: this looks at every byte of every text the reader takes.
fn has_control(body: &str) -> bool {
    super::any_byte(body.as_bytes(), |b| (b < b' ') & (b != b'\n') | (b == 0x7f))
}

/// The state of a reading: the text's lines and where it is in them.
struct Reader<'a> {
    /// The lines of the text, without the final line break.
    lines: Vec<&'a str>,
    /// Whether the text ends with a line break.
    terminated: bool,
    /// The line being read.
    pos: usize,
    /// The column the line is read from: past the `- ` of a sequence item
    /// whose node starts on the same line (`- a: b`, `- - x`); 0 at the
    /// start of a line.
    col: usize,
    schema: Schema,
    /// How many collections enclose the node being read.
    depth: usize,
    /// The last line that holds content read so far (as the event parser
    /// counts it for the foot comment: a key's, an item's, or the last
    /// non-empty line of a block scalar).
    last_content: usize,
    /// Whether the last node read is an empty value (null).
    trailing_empty: bool,
    /// The items of the block sequence read last that are folded block
    /// scalars (the map entry holding it keeps them).
    last_folded: Vec<String>,
    /// The top-level keys whose values are built ([`parse_head`]); `None`:
    /// all.
    keep: Option<KeepKey>,
    /// Whether the node being read is checked only, not built: its
    /// collections come out empty (a mapping keeps its keys, each with a
    /// null value, to find repeated ones) and its scalars null.
    skip: bool,
    /// The anchors of the document read so far, each with its node (built
    /// whole even where the reader skips: an alias may be kept).
    anchors: std::collections::HashMap<&'a str, Anchored>,
    /// What the aliases read so far expanded to (see `FAST_ALIAS_NODES`).
    alias_nodes: usize,
    alias_bytes: usize,
}

/// How many spaces `line` starts with.
fn indentation(line: &str) -> usize {
    line.bytes().position(|b| b != b' ').unwrap_or(line.len())
}

/// Whether a line holds a `:` followed by a space or at its end (which
/// would end a key there).
fn has_key_colon(rest: &str) -> bool {
    let b = rest.as_bytes();
    memchr::memchr_iter(b':', b).any(|i| b.get(i + 1).is_none_or(|&c| c == b' '))
}

/// A sequence entry: `-` alone or followed by a space.
fn is_dash(rest: &str) -> bool {
    rest == "-" || rest.starts_with("- ")
}

/// What may follow a value on its line: nothing, or white space and a
/// comment.
fn is_end(rest: &str) -> bool {
    if rest.is_empty() {
        return true;
    }
    if !rest.starts_with(' ') {
        return false;
    }
    let t = rest.trim_start_matches(' ');
    t.is_empty() || t.starts_with('#')
}

/// A character the event parser takes as itself inside a quoted or block
/// scalar (printable, and none it might take as a line break or a byte
/// order mark).
fn ordinary(c: char) -> bool {
    matches!(c, ' '..='~' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
        && !matches!(c, '\u{feff}' | '\u{2028}' | '\u{2029}')
}

/// A plain scalar: its value and what the entry records (its source text
/// where that is not the value's text).
fn plain(text: &str, schema: Schema) -> (Node, Meta) {
    plain_owned(text.to_string(), schema)
}

/// `plain` for a text of its own.
fn plain_owned(text: String, schema: Schema) -> (Node, Meta) {
    let (node, source) = resolve_plain_owned(text, schema);
    let raw = source.filter(|t| node.scalar_text().as_ref() != Some(t));
    (
        node,
        Meta {
            raw,
            ..Meta::default()
        },
    )
}

/// The text of a plain scalar's line `v` (from the scalar or past the
/// indentation) before a comment (a `#` after a space) and the spaces
/// before it, and whether there is a comment.
fn before_comment(v: &str) -> (&str, bool) {
    let b = v.as_bytes();
    match memchr::memchr_iter(b'#', b).find(|&i| i > 0 && b[i - 1] == b' ') {
        Some(i) => (v[..i].trim_end_matches(' '), true),
        None => (v.trim_end_matches(' '), false),
    }
}

/// Whether `t`, the text of a line that continues a plain scalar (see
/// `Reader::plain_lines`), is read as text to its end: no `: ` and no
/// final `:` (where the scalar would end, which the event parser then
/// refuses), characters the event parser takes as themselves (see
/// `ordinary`), and, to be safe, not the start of an explicit key or
/// value (`? `, `: `), which the event parser does read as text there.
/// A `- ` there is text to the scanners of go-yaml and yaml-rust2 alike
/// (a wrapped description may hold one: `... or absent` and then the line
/// `- defaults to "present".`).
fn plain_continuation(t: &str) -> bool {
    let b = t.as_bytes();
    if matches!(b, [b'?' | b':'] | [b'?' | b':', b' ', ..])
        || b.last() == Some(&b':')
        || t.contains(": ")
    {
        return false;
    }
    t.is_ascii() || t.chars().all(|c| c.is_ascii() || ordinary(c))
}

/// A plain scalar as a value or an item (never at the start of a line,
/// where `---` and `...` would end the document): one that round-trips,
/// or such a text after one `.`, one `:` or one or two `-` (`.spec.version`,
/// `.5`, `:8080`, `-1`, `-v`, `--port=80`), which a plain scalar may start with
/// when no space follows, or after `./` and `../` (relative paths, as the
/// `resources` of kustomizations list them). Characters past ASCII count
/// as letters where the event parser takes them as themselves (see
/// `ordinary`).
fn plain_value(text: &str) -> bool {
    let ok = |t: &str| {
        let rest = t
            .strip_prefix('.')
            .or_else(|| t.strip_prefix(':'))
            .or_else(|| t.strip_prefix("--"))
            .or_else(|| t.strip_prefix('-'));
        plain_round_trips(t) || rest.is_some_and(plain_round_trips) || {
            let mut path = t;
            while let Some(r) = path.strip_prefix("../").or_else(|| path.strip_prefix("./")) {
                path = r;
            }
            path.len() < t.len() && plain_round_trips(path)
        }
    };
    if text.is_ascii() {
        return ok(text);
    }
    let letters: String = text
        .chars()
        .map(|c| match c {
            c if c.is_ascii() => c,
            c if ordinary(c) => 'a',
            _ => '\0',
        })
        .collect();
    ok(&letters)
}

/// A key as the event parser keeps it: a plain scalar that resolves to
/// the string of its own text, or a quoted one.
fn key_string(key: &str, schema: Schema) -> Option<String> {
    match resolve_plain_owned(key.to_string(), schema) {
        (Node::Str(s), None) => Some(s),
        _ => None,
    }
}

/// A mapping entry's line (from its key): the key and what follows its
/// `:`. A plain key has no space or `#` in it, no `:` but before a
/// character other than a space, and is not a merge key
/// (`<<`); a quoted key is on one line (and not `"<<"` in V3). `None` for
/// anything else.
fn split_key(rest: &str, schema: Schema) -> Option<(String, &str)> {
    if rest.starts_with(['\'', '"']) {
        let (key, after) = quoted(rest)?;
        let after = after.strip_prefix(':')?;
        let used = rest.len() - after.len();
        if used > MAX_KEY_BYTES || !(after.is_empty() || after.starts_with(' ')) {
            return None;
        }
        // kyaml drops a map's first `<<` key, quoted or not (see
        // `parse.rs`): left to the event parser.
        if key == "<<" && schema == Schema::V3 {
            return None;
        }
        return Some((key, after));
    }
    // The first `:` followed by a space or at the end (a plain key may
    // hold others: `k8s:io.kubernetes.pod.namespace`).
    let b = rest.as_bytes();
    let colon = memchr::memchr_iter(b':', b).find(|&i| b.get(i + 1).is_none_or(|&c| c == b' '))?;
    let key = &rest[..colon];
    if key.len() > MAX_KEY_BYTES
        || key == "<<"
        || !plain_round_trips(key)
        || key.bytes().any(|c| c == b' ' || c == b'#')
    {
        return None;
    }
    let after = &rest[colon + 1..];
    if !(after.is_empty() || after.starts_with(' ')) {
        return None;
    }
    Some((key_string(key, schema)?, after))
}

/// A quoted scalar that starts and ends on this line at the start of `v`
/// (see `quoted_scalar`): its value and the text after the closing quote.
fn quoted(v: &str) -> Option<(String, &str)> {
    let (s, _, rest) = quoted_scalar(v, &[], 0)?;
    Some((s, rest))
}

/// A quoted scalar at the start of `v` (`'...'` with `''` for a quote, or
/// `"..."` with the escapes `\\`, `\"`, `\/`, `\ `, `\n`, `\t`, `\xXX` and `\uXXXX` but
/// for a surrogate, and `\` at the end of a line for an escaped line
/// break), closed on this line or on one of the lines `more` after it,
/// each of which (but for empty ones) must be indented more than `indent`
/// (the column of the key or item that holds it). Its value, how many
/// lines of `more` it takes, and the text after the closing quote. The
/// lines are folded as the scanner folds them: a line's trailing spaces
/// and the next one's leading spaces are dropped, and the line break
/// between them becomes a space, or, when empty lines follow it, as many
/// line breaks as there are empty lines; after an escaped line break only
/// those empty lines count. `None` for a quote left open, another escape,
/// a character the event parser might read otherwise (see `ordinary`), or
/// a line indented no more than `indent` (which the event parser refuses,
/// or reads after re-indenting it).
fn quoted_scalar<'t>(
    v: &'t str,
    more: &[&'t str],
    indent: usize,
) -> Option<(String, usize, &'t str)> {
    let double = v.starts_with('"');
    let mut out = String::new();
    let mut line = &v[1..];
    let mut used = 0;
    loop {
        let escaped = match quoted_line(line, double, &mut out)? {
            QuotedLine::Closed(rest) => return Some((out, used, rest)),
            QuotedLine::Open { escaped } => escaped,
        };
        // The next line that is not empty, past its indentation.
        let mut empty = 0;
        line = loop {
            let l = more.get(used)?;
            used += 1;
            let t = l.trim_start_matches(' ');
            if t.is_empty() {
                empty += 1;
                continue;
            }
            if l.len() - t.len() <= indent {
                return None;
            }
            break t;
        };
        if empty > 0 {
            out.extend(std::iter::repeat_n('\n', empty));
        } else if !escaped {
            out.push(' ');
        }
    }
}

/// How a line of a quoted scalar ends.
enum QuotedLine<'t> {
    /// With the closing quote, and this text after it.
    Closed(&'t str),
    /// Without it: the scalar goes on on the next line; `escaped` when the
    /// line ends with `\` (in double quotes).
    Open { escaped: bool },
}

/// Reads one line of a quoted scalar (from past its opening quote, or
/// from the first character that is not a space) into `out`. Spaces are
/// kept but at the end of a line that does not close the scalar; see
/// `quoted_scalar`.
fn quoted_line<'t>(line: &'t str, double: bool, out: &mut String) -> Option<QuotedLine<'t>> {
    // Spaces read and not yet known to be followed by anything.
    let mut spaces = 0;
    let bytes = line.as_bytes();
    let mut chars = line.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        // A run of printable ASCII characters that are neither a space,
        // a quote nor a backslash is taken whole (long values, such as a
        // JSON document in an environment variable, are mostly that).
        if plain_quoted_byte(c as u32) {
            let run = super::run_len(&bytes[i..], |b| plain_quoted_byte(u32::from(b)));
            out.extend(std::iter::repeat_n(' ', spaces));
            spaces = 0;
            out.push_str(&line[i..i + run]);
            if run > 1 {
                chars.nth(run - 2);
            }
            continue;
        }
        if c == ' ' {
            spaces += 1;
            continue;
        }
        out.extend(std::iter::repeat_n(' ', spaces));
        spaces = 0;
        match c {
            '\'' if !double => {
                if chars.next_if(|&(_, c)| c == '\'').is_none() {
                    return Some(QuotedLine::Closed(&line[i + 1..]));
                }
                out.push('\'');
            }
            '"' if double => return Some(QuotedLine::Closed(&line[i + 1..])),
            '\\' if double => {
                let Some((_, e)) = chars.next() else {
                    return Some(QuotedLine::Open { escaped: true });
                };
                out.push(match e {
                    '\\' => '\\',
                    '"' => '"',
                    '/' => '/',
                    // (An escaped space is kept where a line's
                    // trailing spaces are dropped.)
                    ' ' => ' ',
                    'n' => '\n',
                    't' => '\t',
                    'u' | 'x' => {
                        let digits = if e == 'u' { 4 } else { 2 };
                        let hex = line.get(i + 2..i + 2 + digits)?;
                        if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                            return None;
                        }
                        for _ in 0..digits {
                            chars.next();
                        }
                        char::from_u32(u32::from_str_radix(hex, 16).ok()?)?
                    }
                    _ => return None,
                });
            }
            c if ordinary(c) => out.push(c),
            _ => return None,
        }
    }
    Some(QuotedLine::Open { escaped: false })
}

/// Whether a character (or byte) is printable ASCII other than a space,
/// a quote or a backslash: inside either kind of quotes, it stands for
/// itself.
fn plain_quoted_byte(c: u32) -> bool {
    (0x21..0x7f).contains(&c)
        && c != u32::from(b'\'')
        && c != u32::from(b'"')
        && c != u32::from(b'\\')
}

/// The name of an anchor or alias at the start of `v` (past its `&` or
/// `*`): one or more letters, digits, `_` or `-`, followed by a space or
/// nothing, or (`flow`, inside a flow collection) by `,`, `]` or `}`
/// (go-yaml takes more after a name, yaml-rust2 more in a name; the quick
/// reader takes what both read alike). The name and what follows it.
fn name_at(v: &str, flow: bool) -> Option<(&str, &str)> {
    let n = super::run_len(&v.as_bytes()[1..], |b| {
        b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
    });
    let rest = &v[1 + n..];
    let ends = match rest.as_bytes().first() {
        None | Some(b' ') => true,
        Some(b',' | b']' | b'}') => flow,
        _ => false,
    };
    (n > 0 && ends).then(|| (&v[1..1 + n], rest))
}

/// Adds an entry to `map` with what the event parser records of it; `None`
/// for a key the map holds already.
fn put(map: &mut Map, key: String, value: Node, meta: Meta, folded: Vec<String>) -> Option<()> {
    let fresh = meta.raw.is_some() || meta.quoted || meta.breaks != 0 || !folded.is_empty();
    let key_again = fresh.then(|| key.clone());
    map.push_unique(key, value).ok()?;
    if let Some(k) = key_again {
        if let Some(t) = meta.raw {
            map.set_raw(&k, t);
        }
        if meta.quoted {
            map.set_quoted(&k, true);
        }
        if meta.breaks != 0 {
            map.set_print_breaks(&k, meta.breaks);
        }
        if !folded.is_empty() {
            map.set_folded_items(&k, folded);
        }
    }
    Some(())
}

/// A plain scalar inside a one-line flow collection: a word of letters,
/// digits and `_./-` starting with a letter, a digit or `_` (`__name__`,
/// `x.y/z-1`, `0.5`; no character the flow context gives a meaning to,
/// no space), and the text after it. `None` when `v` starts with no such
/// word or the word runs into anything but a space, `,`, `]`, `}` or
/// (`colon`, for a key) a `:`.
fn flow_word(v: &str, colon: bool) -> Option<(&str, &str)> {
    let first = *v.as_bytes().first()?;
    if !(first.is_ascii_alphanumeric() || first == b'_') {
        return None;
    }
    let end = super::run_len(v.as_bytes(), |b| {
        b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'/' | b'-')
    });
    let (word, after) = v.split_at(end);
    match after.as_bytes().first() {
        None | Some(b' ' | b',' | b']' | b'}') => Some((word, after)),
        Some(b':') if colon => Some((word, after)),
        _ => None,
    }
}

/// How a block scalar ends (its chomping indicator).
#[derive(Clone, Copy, PartialEq)]
enum Chomp {
    /// `-`: no final line break.
    Strip,
    /// (none): one final line break.
    Clip,
    /// `+`: the final line break and the empty lines after it.
    Keep,
}

impl<'a> Reader<'a> {
    /// The next line that holds content, as its indentation and its text
    /// from there (empty lines and comment lines are skipped); past the
    /// `- ` of a sequence item, the rest of its line.
    fn peek(&mut self) -> Option<(usize, &'a str)> {
        if self.col > 0 {
            let line = self.lines[self.pos];
            return Some((self.col, &line[self.col..]));
        }
        while let Some(&line) = self.lines.get(self.pos) {
            let at = indentation(line);
            match line.as_bytes().get(at) {
                None | Some(b'#') => self.pos += 1,
                Some(_) => return Some((at, &line[at..])),
            }
        }
        None
    }

    /// Moves to the start of the next line.
    fn advance(&mut self) {
        self.pos += 1;
        self.col = 0;
    }

    /// Notes that the line being read holds content (a key or an item).
    fn content(&mut self) {
        self.last_content = self.pos;
        self.trailing_empty = false;
    }

    /// The block collection whose first line (at `indent`) comes next: a
    /// sequence when that line is an entry `- `, else a mapping. The flags
    /// are a sequence's (`Meta::breaks`).
    fn collection(&mut self, indent: usize) -> Option<(Node, u8)> {
        self.depth += 1;
        if self.depth > MAX_FAST_DEPTH {
            return None;
        }
        let (_, rest) = self.peek()?;
        let read = if is_dash(rest) {
            // A document that is a sequence has no head to keep.
            if self.depth == 1 && self.keep.is_some() {
                self.skip = true;
            }
            let (items, breaks) = self.seq(indent)?;
            (Node::Seq(items), breaks)
        } else {
            (Node::Map(self.map(indent)?), 0)
        };
        self.depth -= 1;
        Some(read)
    }

    /// A block mapping whose keys are at `indent`. A line indented more
    /// than a key, or an entry `- ` at a key's indentation, is not read
    /// here (a continuation, or an error).
    fn map(&mut self, indent: usize) -> Option<Map> {
        let mut map = Map::new();
        while let Some((at, rest)) = self.peek() {
            if at < indent {
                break;
            }
            if at > indent || is_dash(rest) {
                return None;
            }
            let (key, after) = split_key(rest, self.schema)?;
            self.content();
            let skipping = self.skip;
            let skip = skipping || self.keep.is_some_and(|keep| self.depth == 1 && !keep(&key));
            if skip {
                self.skip = true;
                let read = self.value(indent, after);
                self.skip = skipping;
                read?;
                map.push_unique(key, Node::Null).ok()?;
                if map.len() == RESERVE_AT {
                    map.reserve(self.lines.len() - self.pos);
                }
                continue;
            }
            self.last_folded.clear();
            let (value, meta) = self.value(indent, after)?;
            let folded = std::mem::take(&mut self.last_folded);
            put(&mut map, key, value, meta, folded)?;
            if map.len() == RESERVE_AT {
                map.reserve(self.lines.len() - self.pos);
            }
        }
        map.shrink_if_sparse();
        Some(map)
    }

    /// A block sequence whose entries `- ` are at `indent`, and the flags
    /// of its last item when that is a block scalar (the event parser
    /// records them on the entry that holds the sequence).
    fn seq(&mut self, indent: usize) -> Option<(Vec<Node>, u8)> {
        let mut items = Vec::new();
        let mut last = 0;
        let mut folded = Vec::new();
        while let Some((at, rest)) = self.peek() {
            if at > indent {
                return None;
            }
            if at < indent || !is_dash(rest) {
                break;
            }
            self.content();
            let (item, meta) = self.item(at, &rest[1..])?;
            if self.skip {
                continue;
            }
            last = if item.is_scalar() { meta.breaks } else { 0 };
            if meta.breaks & PRINT_FOLDED != 0
                && let Node::Str(s) = &item
            {
                folded.push(s.clone());
            }
            items.push(item);
            if items.len() == RESERVE_AT {
                items.reserve(self.lines.len() - self.pos);
            }
        }
        if items.capacity() > 2 * items.len() + RESERVE_AT {
            items.shrink_to_fit();
        }
        self.last_folded = folded;
        Some((items, last))
    }

    /// The value after `key:` of a mapping entry at `indent`, on the
    /// same line or below it.
    fn value(&mut self, indent: usize, after: &'a str) -> Option<(Node, Meta)> {
        if is_end(after) {
            self.advance();
            return self.below(indent, true);
        }
        let v = after.strip_prefix(' ')?.trim_start_matches(' ');
        match v.as_bytes().first() {
            Some(b'&') => self.anchored(v, indent, true),
            Some(b'*') => self.alias(v),
            _ => self.inline(v, indent),
        }
    }

    /// The item after the `-` of a sequence entry at `indent`: a node on
    /// the same line (a scalar, or a compact mapping or sequence whose
    /// further lines align under its first), or below it.
    fn item(&mut self, indent: usize, after: &'a str) -> Option<(Node, Meta)> {
        if is_end(after) {
            self.advance();
            return self.below(indent, false);
        }
        let v0 = after.strip_prefix(' ')?;
        let v = v0.trim_start_matches(' ');
        match v.as_bytes().first() {
            Some(b'&') => return self.anchored(v, indent, false),
            Some(b'*') => return self.alias(v),
            _ => {}
        }
        if is_dash(v) || split_key(v, self.schema).is_some() {
            self.col = indent + 2 + (v0.len() - v.len());
            let (node, breaks) = self.collection(self.col)?;
            return Some((
                node,
                Meta {
                    breaks,
                    ..Meta::default()
                },
            ));
        }
        self.inline(v, indent)
    }

    /// A node with an anchor, `&name` at the start of `v` (after the `:`
    /// of a mapping entry at `indent` when `in_map`, else after the `-` of
    /// a sequence entry): a node that [`Self::inline`] reads on the same
    /// line, or one [`Self::below`] reads after a line that ends with the
    /// anchor. A name is letters, digits, `_` and `-` (what go-yaml and
    /// yaml-rust2 alike read as a name) followed by a space or the end of
    /// the line; anything else is left to the event parser, as is an
    /// anchor before a compact collection (`- &a b: c`, where it would
    /// stand on the key) or before another anchor, an alias or a tag.
    fn anchored(&mut self, v: &'a str, indent: usize, in_map: bool) -> Option<(Node, Meta)> {
        let (name, rest) = name_at(v, false)?;
        // Inside the node, its name stands for nothing: an alias to it
        // there is the event parser's error (an earlier node of that name
        // is not meant). A name holds for the anchor that comes last in
        // the text: one inside the node wins over the node's own.
        self.anchors.remove(name);
        // The anchored node is built whole even where the reader skips.
        let skipping = std::mem::replace(&mut self.skip, false);
        let read = if is_end(rest) {
            self.advance();
            self.below(indent, in_map)
        } else {
            let v = rest.trim_start_matches(' ');
            if v.starts_with(['&', '*', '!']) || is_dash(v) || split_key(v, self.schema).is_some() {
                None
            } else {
                self.inline(v, indent)
            }
        };
        self.skip = skipping;
        let (node, meta) = read?;
        let (node, kept) = if skipping {
            (Node::Null, node)
        } else {
            (node.clone(), node)
        };
        self.anchors
            .entry(name)
            .or_insert_with(|| Anchored::new(kept));
        Some((node, meta))
    }

    /// A flow collection that starts and ends on this line at the start of
    /// `v`, `[...]` or `{...}` (`{}` and `[]` too), and the text after it.
    /// Its items, and its entries' keys and values, are quoted scalars
    /// (see `quoted`), plain words (see [`flow_word`]), aliases (items
    /// and values) and such collections, separated by a comma and spaces;
    /// a key is followed by `: `. Anything else (an empty item, a comma
    /// before the end, a plain scalar of several words or other
    /// characters, a key without a value, a line that does not close the
    /// collection) is left to the event parser. What the event parser
    /// records of the entries is recorded as in a block mapping (a flow
    /// collection as a value: `PRINT_FLOW`), and a mapping is marked flow.
    fn flow(&mut self, v: &'a str) -> Option<(Node, &'a str)> {
        self.depth += 1;
        if self.depth > MAX_FAST_DEPTH {
            return None;
        }
        let map = v.starts_with('{');
        let close = if map { '}' } else { ']' };
        let mut rest = &v[1..];
        let mut items = Vec::new();
        let mut m = Map::new();
        m.set_flow(map);
        if let Some(r) = rest.strip_prefix(close) {
            rest = r;
        } else {
            rest = rest.trim_start_matches(' ');
            loop {
                let key = if map {
                    let (key, after) = if rest.starts_with(['\'', '"']) {
                        let (k, after) = quoted(rest)?;
                        // (kyaml drops a map's first `<<` key: see
                        // `split_key`.)
                        if k == "<<" && self.schema == Schema::V3 {
                            return None;
                        }
                        (k, after)
                    } else {
                        let (word, after) = flow_word(rest, true)?;
                        (key_string(word, self.schema)?, after)
                    };
                    rest = after.strip_prefix(": ")?.trim_start_matches(' ');
                    Some(key)
                } else {
                    None
                };
                let (node, meta, after) = self.flow_item(rest)?;
                match key {
                    Some(k) => put(&mut m, k, node, meta, Vec::new())?,
                    None => items.push(node),
                }
                let after = after.trim_start_matches(' ');
                if let Some(r) = after.strip_prefix(close) {
                    rest = r;
                    break;
                }
                rest = after.strip_prefix(',')?.trim_start_matches(' ');
                if rest.starts_with(close) {
                    return None;
                }
            }
        }
        self.depth -= 1;
        let node = if map { Node::Map(m) } else { Node::Seq(items) };
        Some((node, rest))
    }

    /// An item or a value inside a one-line flow collection (see
    /// [`Self::flow`]), what its entry records, and the text after it.
    fn flow_item(&mut self, v: &'a str) -> Option<(Node, Meta, &'a str)> {
        match v.as_bytes().first()? {
            b'\'' | b'"' => {
                let (s, after) = quoted(v)?;
                if s.len() > MAX_SCALAR_BYTES {
                    return None;
                }
                let meta = Meta {
                    quoted: true,
                    ..Meta::default()
                };
                Some((Node::Str(s), meta, after))
            }
            b'[' | b'{' => {
                let (node, after) = self.flow(v)?;
                let meta = Meta {
                    breaks: PRINT_FLOW,
                    ..Meta::default()
                };
                Some((node, meta, after))
            }
            b'*' => {
                let (name, after) = name_at(v, true)?;
                let node = self.aliased(name)?;
                Some((node, Meta::default(), after))
            }
            _ => {
                let (word, after) = flow_word(v, false)?;
                let (node, meta) = plain(word, self.schema);
                Some((node, meta, after))
            }
        }
    }

    /// An alias, `*name` at the start of `v` and nothing after it on its
    /// line but a comment: a copy of the node anchored last with that
    /// name. The entry that holds it records nothing of the node's own
    /// (it is no scalar of this text), as in the event parser. An unknown
    /// name, or an alias past the quick reader's limits (aliased nodes and
    /// bytes in all, nesting), is left to the event parser, which reports
    /// what is an error.
    fn alias(&mut self, v: &str) -> Option<(Node, Meta)> {
        let (name, rest) = name_at(v, false)?;
        if !is_end(rest) {
            return None;
        }
        let node = self.aliased(name)?;
        self.advance();
        Some((node, Meta::default()))
    }

    /// The node an alias to `name` stands for (null where the reader
    /// skips), counted against the limits on aliasing.
    fn aliased(&mut self, name: &str) -> Option<Node> {
        let a = self.anchors.get(name)?;
        self.alias_nodes += a.nodes;
        self.alias_bytes += a.bytes;
        if self.alias_nodes > FAST_ALIAS_NODES
            || self.alias_bytes > FAST_ALIAS_BYTES
            || self.depth + a.depth > MAX_FAST_DEPTH
        {
            return None;
        }
        Some(if self.skip {
            Node::Null
        } else {
            a.node.clone()
        })
    }

    /// The node below a line that ends after `key:` (`in_map`) or `-` at
    /// `indent`: a collection indented more, a sequence at a key's
    /// indentation, `{}`, `[]`, a block scalar or another scalar indented
    /// more, or else an empty value (null).
    fn below(&mut self, indent: usize, in_map: bool) -> Option<(Node, Meta)> {
        match self.peek() {
            // `{}`, `[]` or a block scalar's header on a line of its own
            // (as Helm's `toYaml | nindent` writes them).
            Some((at, rest)) if at > indent && rest.starts_with(['{', '[', '|', '>']) => {
                self.content();
                self.inline(rest, indent)
            }
            // A plain or quoted scalar on a line of its own (a long
            // description): a line that is no entry and holds no `:` that
            // would end a key (a line that does is read as a mapping).
            Some((at, rest)) if at > indent && !is_dash(rest) && !has_key_colon(rest) => {
                self.content();
                self.inline(rest, indent)
            }
            Some((at, rest)) if at > indent || (in_map && at == indent && is_dash(rest)) => {
                let (node, breaks) = self.collection(at)?;
                Some((
                    node,
                    Meta {
                        breaks,
                        ..Meta::default()
                    },
                ))
            }
            _ => {
                self.trailing_empty = true;
                Some(plain("", self.schema))
            }
        }
    }

    /// A node that starts at `v` on the line of its key or `-` (at
    /// `indent`), or on a line of its own below it, and is no collection
    /// in block style: a plain or quoted scalar (on this line or more),
    /// `{}` or `[]` on this line, or a block scalar.
    fn inline(&mut self, v: &'a str, indent: usize) -> Option<(Node, Meta)> {
        let read = match v.as_bytes().first()? {
            b'\'' | b'"' => {
                let more = &self.lines[self.pos + 1..];
                let (s, used, rest) = quoted_scalar(v, more, indent)?;
                if !is_end(rest) || s.len() > MAX_SCALAR_BYTES {
                    return None;
                }
                self.pos += used;
                let meta = Meta {
                    quoted: true,
                    ..Meta::default()
                };
                (Node::Str(s), meta)
            }
            b'|' | b'>' => return self.block_scalar(v, indent),
            b'{' | b'[' => {
                let (node, rest) = self.flow(v)?;
                if !is_end(rest) {
                    return None;
                }
                let meta = Meta {
                    breaks: PRINT_FLOW,
                    ..Meta::default()
                };
                (node, meta)
            }
            _ => {
                let (text, comment) = before_comment(v);
                if !plain_value(text) {
                    return None;
                }
                // A comment ends the scalar; else the lines below may
                // continue it.
                let more = if comment {
                    None
                } else {
                    self.plain_lines(text, indent)?
                };
                if self.skip {
                    // (The scalar is no longer than the text: see
                    // `parse_head`.)
                    self.advance();
                    return Some((Node::Null, Meta::default()));
                }
                let text = more.unwrap_or_else(|| text.to_string());
                if text.len() > MAX_SCALAR_BYTES {
                    return None;
                }
                plain_owned(text, self.schema)
            }
        };
        self.advance();
        Some(read)
    }

    /// The lines below line `self.pos` that continue the plain scalar
    /// that ends it with `first` (with no comment after it), a scalar in
    /// a block collection at `indent`: its whole text, folded (`None` when
    /// no line continues it), with the reader moved to its last line. A
    /// line continues it when it is indented more than `indent` and is no
    /// comment line, with the empty lines before it; its text is what
    /// comes before a comment (which ends the scalar) and after its
    /// indentation. The lines are folded as the scanner folds them: a
    /// line break becomes a space, or, when empty lines follow it, as many
    /// line breaks as there are empty lines. Gives up (`None`) on a line
    /// that is not text to its end (see `plain_continuation`).
    fn plain_lines(&mut self, first: &str, indent: usize) -> Option<Option<String>> {
        let mut text: Option<String> = None;
        let mut empty = 0;
        let mut i = self.pos + 1;
        while let Some(&line) = self.lines.get(i) {
            i += 1;
            let at = indentation(line);
            let t = &line[at..];
            if t.is_empty() {
                empty += 1;
                continue;
            }
            if at <= indent || t.starts_with('#') {
                break;
            }
            let (part, comment) = before_comment(t);
            if !plain_continuation(part) {
                return None;
            }
            self.pos = i - 1;
            if self.skip {
                // Checked, not kept.
                if comment {
                    break;
                }
                continue;
            }
            let s = text.get_or_insert_with(|| first.to_string());
            if empty == 0 {
                s.push(' ');
            } else {
                s.extend(std::iter::repeat_n('\n', empty));
                empty = 0;
            }
            s.push_str(part);
            if comment {
                break;
            }
        }
        Some(text)
    }

    /// A block scalar whose header `v` (`|` or `>`, and `-` or `+`, then
    /// perhaps a comment) ends the line of a node at `indent` (or is on a
    /// line of its own below it). Its lines are the ones below indented
    /// at least as its first, which must be indented more than `indent`,
    /// and the empty lines among and after them; it ends at the first
    /// line indented less that is not empty. (No indentation indicator, no
    /// empty line before the first: the event parser reads those too, but
    /// this reader does not spell out their rules.) Chomping as the
    /// scanner does it: `-` drops the final line break, `+` keeps the
    /// empty lines after it.
    fn block_scalar(&mut self, v: &str, indent: usize) -> Option<(Node, Meta)> {
        let folded = v.starts_with('>');
        let (chomp, rest) = match v.as_bytes().get(1) {
            Some(b'-') => (Chomp::Strip, &v[2..]),
            Some(b'+') => (Chomp::Keep, &v[2..]),
            _ => (Chomp::Clip, &v[1..]),
        };
        if !is_end(rest) {
            return None;
        }
        let first = self.pos + 1;
        let line = *self.lines.get(first)?;
        let m = indentation(line);
        if m <= indent || m == line.len() {
            return None;
        }
        // `last` is the last line of content (a line of spaces longer than
        // the indentation is one: those spaces); `visible` the last that
        // is not all spaces (where the event parser counts the content to
        // end, see `Builder::block_region`); `end` is past the empty lines
        // after them.
        let (mut last, mut visible, mut end) = (first, first, first);
        while let Some(&line) = self.lines.get(end) {
            let at = indentation(line);
            let blank = at == line.len();
            if !blank && at < m {
                break;
            }
            if line.len() > m {
                last = end;
            }
            if !blank {
                visible = end;
            }
            end += 1;
        }
        let body = &self.lines[first..=last];
        // (ASCII is printable here: control characters are refused
        // above.)
        if body
            .iter()
            .any(|l| !l.is_ascii() && !l.chars().all(ordinary))
        {
            return None;
        }
        let at_eof = end == self.lines.len() && !self.terminated;
        if self.skip {
            // Checked, not kept (the scalar is no longer than the text:
            // see `parse_head`).
            if at_eof && (last + 1 != end || last != visible) {
                return None;
            }
            self.last_content = visible;
            self.pos = end;
            self.col = 0;
            return Some((Node::Null, Meta::default()));
        }
        let mut text = if folded {
            fold(body, m)
        } else {
            literal(body, m)
        };
        // Without a final line break, a block scalar on the last line ends
        // without one (libyaml keeps only a line break that is there).
        if at_eof && (last + 1 != end || last != visible) {
            return None;
        }
        if chomp != Chomp::Strip && !at_eof {
            text.push('\n');
            if chomp == Chomp::Keep {
                text.extend(std::iter::repeat_n('\n', end - last - 1));
            }
        }
        if text.len() > MAX_SCALAR_BYTES {
            return None;
        }
        self.last_content = visible;
        self.pos = end;
        self.col = 0;
        let meta = Meta {
            quoted: true,
            breaks: if folded { PRINT_FOLDED } else { PRINT_LITERAL },
            ..Meta::default()
        };
        Some((Node::Str(text), meta))
    }
}

/// A literal block scalar's lines (indented `m`, empty lines shorter) as
/// one text: each line past its indentation, joined by line breaks.
fn literal(body: &[&str], m: usize) -> String {
    let mut text = String::new();
    for (i, line) in body.iter().enumerate() {
        if i > 0 {
            text.push('\n');
        }
        text.push_str(line.get(m..).unwrap_or(""));
    }
    text
}

/// A folded block scalar's lines as one text, folded as libyaml (and
/// yaml-rust2) fold them: the line break between two lines that do not
/// start with a space becomes a space, or disappears when empty lines
/// follow it (each of which is a line break); next to a more indented
/// line it stays.
fn fold(body: &[&str], m: usize) -> String {
    let mut text = String::new();
    let mut empty = 0;
    // Whether the line before started with a space; `None` before the
    // first.
    let mut prev_blank: Option<bool> = None;
    for line in body {
        let s = line.get(m..).unwrap_or("");
        if s.is_empty() {
            empty += 1;
            continue;
        }
        let blank = s.starts_with(' ');
        match prev_blank {
            // Folded: a space, or nothing before empty lines.
            Some(false) if !blank && empty == 0 => text.push(' '),
            Some(false) if !blank => {}
            Some(_) => text.push('\n'),
            None => {}
        }
        text.extend(std::iter::repeat_n('\n', empty));
        empty = 0;
        text.push_str(s);
        prev_blank = Some(blank);
    }
    text
}

/// Where the quick reader and the event parser disagree on `text` (in
/// either reading: go-yaml v3's, and `sigs.k8s.io/yaml`'s with JSON keys),
/// as a description; `None` when they agree or the quick reader leaves the
/// text to the event parser. For tests and the fuzz target.
pub fn mismatch(text: &str) -> Option<String> {
    if let Some(m) = head_mismatch(text) {
        return Some(m);
    }
    for (schema, keys) in [(Schema::V3, Keys::Yaml), (Schema::V2, Keys::Json)] {
        let Some(fast) = parse(text, schema) else {
            continue;
        };
        let slow = match super::parse::parse_events(text, schema, keys) {
            Ok(docs) => docs,
            Err(e) => return Some(format!("{schema:?}: the event parser fails: {e}")),
        };
        let (a, b) = (dump_docs(&fast), dump_docs(&slow));
        if a != b {
            return Some(format!("{schema:?}: quick reader\n{a}\nevent parser\n{b}"));
        }
    }
    None
}

/// Where [`parse_head`] differs from [`parse`]: it must take exactly the
/// texts `parse` takes, and give the same top-level keys in the same order,
/// the kept ones with the same values (metadata included), the others null.
fn head_mismatch(text: &str) -> Option<String> {
    fn keep_none(_: &str) -> bool {
        false
    }
    fn keep_head(k: &str) -> bool {
        matches!(k, "apiVersion" | "kind" | "metadata")
    }
    // (It reads one document: a text of several is not its to take.)
    if text.len() > MAX_SCALAR_BYTES || document_starts(text).is_some() {
        return None;
    }
    let schema = Schema::V2;
    let full = parse(text, schema).map(|mut d| d.remove(0).node);
    for keep in [keep_none as KeepKey, keep_head] {
        let head = parse_head(text, schema, keep);
        let (full, head) = match (&full, &head) {
            (None, None) => continue,
            (Some(f), Some(h)) => (f, h),
            (f, h) => {
                return Some(format!(
                    "the skipping reader {} the text, the quick reader {}",
                    if h.is_some() { "takes" } else { "leaves" },
                    if f.is_some() { "takes" } else { "leaves" }
                ));
            }
        };
        let kept = match full {
            Node::Map(m) => {
                let mut want = Map::new();
                for (k, v) in m.iter() {
                    let v = if keep(k) { v.clone() } else { Node::Null };
                    want.push_unique(k.clone(), v).ok()?;
                    if keep(k) {
                        if let Some(t) = m.raw_text(k) {
                            want.set_raw(k, t.to_string());
                        }
                        want.set_quoted(k, m.is_quoted(k));
                        want.set_print_breaks(k, m.print_breaks(k));
                        want.set_folded_items(k, m.folded_items(k).to_vec());
                    }
                }
                want.set_flow(m.is_flow());
                Node::Map(want)
            }
            Node::Seq(_) => Node::Seq(Vec::new()),
            other => other.clone(),
        };
        let (mut a, mut b) = (String::new(), String::new());
        dump(&kept, 0, &mut a);
        dump(head, 0, &mut b);
        if a != b {
            return Some(format!(
                "skipping reader\n{b}\nquick reader, kept values\n{a}"
            ));
        }
    }
    None
}

fn dump_docs(docs: &[Document]) -> String {
    let mut out = String::new();
    for d in docs {
        out.push_str(&format!("--- line {}\n", d.line));
        dump(&d.node, 0, &mut out);
    }
    out
}

/// A node with every piece of metadata a map keeps for its keys.
fn dump(n: &Node, depth: usize, out: &mut String) {
    let pad = "  ".repeat(depth);
    match n {
        Node::Map(m) => {
            out.push_str(&format!(
                "{pad}map flow={} foot={}\n",
                m.is_flow(),
                m.has_doc_foot_comment()
            ));
            for (k, v) in m.iter() {
                out.push_str(&format!(
                    "{pad}{k:?} raw={:?} quoted={} breaks={} tagless={} bad_tag={:?} folded={:?}\n",
                    m.raw_text(k),
                    m.is_quoted(k),
                    m.print_breaks(k),
                    m.is_tagless(k),
                    m.bad_tag(k),
                    m.folded_items(k)
                ));
                dump(v, depth + 1, out);
            }
        }
        Node::Seq(items) => {
            out.push_str(&format!("{pad}seq\n"));
            for it in items {
                dump(it, depth + 1, out);
            }
        }
        other => out.push_str(&format!("{pad}{other:?}\n")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The quick reader takes each of `taken` and reads it as the event
    /// parser does; it leaves each of `left` to the event parser, under
    /// both schemas.
    /// A quoted `"<<"` key: an ordinary key for go-yaml v2, and dropped by
    /// kyaml, which the quick reader leaves to the event parser.
    #[test]
    fn a_quoted_merge_text_key_is_left_to_the_event_parser_in_v3() {
        let t = "a: b\n\"<<\": d\n";
        assert!(parse(t, Schema::V3).is_none());
        assert!(parse(t, Schema::V2).is_some());
        assert_eq!(mismatch(t), None);
        let t = "a: {b: c, \"<<\": d}\n";
        assert!(parse(t, Schema::V3).is_none());
        assert!(parse(t, Schema::V2).is_some());
        assert_eq!(mismatch(t), None);
    }

    /// Keys about as long as yaml-rust2 allows a simple key in a block
    /// mapping, in block and flow mappings.
    #[test]
    fn agrees_on_long_keys() {
        for n in [990, 999, 1000, 1001, 1020, 1030, 1100] {
            let k = "k".repeat(n);
            for t in [
                format!("{k}: v\n"),
                format!("a: {{{k}: v}}\n"),
                format!("a: {{'{k}': v}}\n"),
                format!("a: [{k}]\n"),
            ] {
                assert_eq!(mismatch(&t), None, "{n}: {}", &t[..20]);
            }
        }
    }

    /// Plain keys with a `:` inside that might read as numbers (`1:20`,
    /// base 60 in YAML 1.1): strings under both schemas, as the event
    /// parser reads them.
    #[test]
    fn keys_with_colons_are_strings() {
        for t in ["1:20: x\n", "a:1: x\n", "- 1:2:3: x\n"] {
            assert!(parse(t, Schema::V3).is_some(), "{t:?}");
            assert!(parse(t, Schema::V2).is_some(), "{t:?}");
            assert_eq!(mismatch(t), None, "{t:?}");
        }
    }

    /// Aliases that expand to more than the quick reader's limit (here
    /// 9^5 = 59,049 strings, well within the event parser's) leave the text
    /// to the event parser; fewer are taken.
    #[test]
    fn an_alias_bomb_is_left_to_the_event_parser() {
        let bomb = |levels: usize| {
            let mut t = "a0: [x, x, x, x, x, x, x, x, x]\n".to_string();
            for i in 1..=levels {
                let p = format!("*a{}", i - 1);
                let items = [p.as_str(); 9].join(", ");
                t = t.replacen(
                    &format!("a{}: [", i - 1),
                    &format!("a{}: &a{} [", i - 1, i - 1),
                    1,
                );
                t.push_str(&format!("a{i}: [{items}]\n"));
            }
            t
        };
        let small = bomb(3);
        assert!(parse(&small, Schema::V3).is_some(), "{small}");
        assert_eq!(mismatch(&small), None);
        let big = bomb(5);
        assert!(parse(&big, Schema::V3).is_none());
        assert!(super::super::parse::parse_stream(&big).is_ok());
    }

    fn takes_and_leaves(taken: &[&str], left: &[&str]) {
        for t in taken {
            assert!(parse(t, Schema::V3).is_some(), "not taken: {t:?}");
            assert_eq!(mismatch(t), None, "{t:?}");
        }
        for t in left {
            assert!(parse(t, Schema::V3).is_none(), "taken: {t:?}");
            assert!(parse(t, Schema::V2).is_none(), "taken: {t:?}");
        }
    }

    /// Texts the quick reader takes, and texts it must leave to the event
    /// parser, each read by both where it takes them.
    #[test]
    fn agrees_with_the_event_parser() {
        let taken = [
            "a: b\n",
            "a: [b, \"c\", 'd', 1, y, 0o17, x.y/z-1, 1.0, null]\n",
            "rules:\n- apiGroups: [\"\"]\n  verbs: [get, list, watch]\n- [a]\n- [ b ,c ] # d\n",
            "labels: [__name__, _x, _1, __a.b__]\n",
            "k8s:io.kubernetes.pod.namespace: x\na:b:c: d\nhttp://x: y\n",
            "- a:b: c\n  e:f:\n    - g\n",
            "a:\n  - [\"ALL\"]\nb: ['it''s', \"\\u00e9\"]\n",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  key0: value0\n  key1: value1\n",
            "a:\n  b:\n    c: 1\n  d: 0o17\ne: 1.0\nf: TRUE\ng: 2001-12-14\nh: yes\ni: 0x1F\nj: 1e3\nk: null\n",
            "a: b c  d\nurl: https://example.org/x?y=1#z\np: a:b\nq: 100_000\nr: 1:20\ns: ${VAR}\n",
            "a:\n    deep: 1\nb: 2\n",
            "a: ~\ng: \\x\nb: it's\nc: say \"hi\"\nd: x[y\ne: x]\nf: a,b{c}\n",
            // No final line break (Helm's documents), a leading `---`.
            "a: b",
            "# Source: x\na: b\nc:\n  d: e",
            "---\na: b\n",
            // Several documents.
            "a: b\n---\nc: d\n",
            "---\na: b\n---\nc: d",
            "# c\n---\na: b\n",
            "\n  # c\n\n---\na: b\n---\n# d\nc: d\n",
            "{}\n---\n{}\n",
            "a: |\n  x\n\n---\nb: >\n  y\n# c\n---\n- 1\n",
            "a:\n---\n# c\nb:\n\n",
            // Comments and empty lines.
            "# c\na: b\n",
            "a: b # c\n",
            "a: b#c\nd: e # f # g\n",
            "a: b\n\n",
            "a: 1\n\n# foot\n",
            "a: 1\n# not a foot\n",
            "a: 1\n  # indented\nb: 2\n",
            "a: # c\n  b: 1\n",
            "a:  b\n",
            "a: b \n",
            // Empty values.
            "a:\n",
            "a:\nb: c\n",
            "a: 1\nb:\n  # c\nc: 2\n",
            // Values after a `-` or a `.`, and past ASCII.
            "a: -1\nb: .5\nc: -v\nd: --port=80\ne: .spec.version\n",
            "a: :8080\nb: :x-y # c\n",
            "- :9\n",
            "- -v\n- --x\n",
            "- ../a\n- ./../../b/c.yaml\n- ./d\n- ../e # c\n",
            "a: 60°C\nb: é é\n",
            // Block sequences.
            "- a\n- b\n",
            "- a: 1\n  b: 2\n- c: 3\n",
            "-   a: 1\n    b: 2\n",
            "- - x\n  - y\n- z\n",
            "- - - a\n    - b\n  - c\n",
            "k:\n- a\n- b\nl: 1\n",
            "k:\n  - a\n  - b\nl: 1\n",
            "k:\n  -\n    a: 1\n",
            "a:\n-\n  - x\n",
            "-\n- a\n",
            "- a\n-\n",
            "- # c\n  a: b\n",
            "a:\n  - b: 1\n    c:\n    - d\n  - e\ng: h\n",
            // Quoted scalars.
            "a: 'b'\n",
            "a: 'it''s'\nb: ''\n",
            "a: \"b\\n\\t\\\"\\\\\\/\"\n",
            "a: \"\\u0026 \\u00e9\"\nb: \"\"\n",
            "a: \"x\\ \\\n  \\ y \\ \n  z\"\n",
            "a: \"\\x41\\xA9\\xa7b \\x00 \\x7f\\x85\\xff\"\n",
            "a: 'é'\nb: \"x # y\" # z\n",
            "'a b': c\n\"1\": c\n'true': c\n",
            "\"\": c\n",
            "- 'x'\n- \"y\" # c\n",
            "- 'a': b\n",
            // Empty flow collections.
            "a: {}\nb: []\n",
            "- {}\n- []\n",
            "a:\n  {}\nb:\n  []\n",
            "- x: {} # c\n",
            // Block scalars.
            "a: |\n  x\n  y\n",
            "a: |-\n  x\n\n  y\n\n",
            "a: |+\n  x\n\n\nb: 1\n",
            "a: |+\n  x\n\n",
            "a: | # c\n  x\n",
            "a: |\n  x\n    y\n  # z\nb: 1\n",
            "a: |\n    x\n  # c\nb: 1\n",
            "a: |\n  x\n      \n  y\n",
            "a: >\n  x\n     \n  y\n",
            "a: |\n  x\n    \nb: 1\n",
            "a: >\n  x\n  y\n\n  z\n   w\n  v\n",
            "a: >-\n  x\n\n\n  y\n",
            "a: >\n  x\n\n",
            "a: >+\n  x\n\n",
            "k:\n- |\n  x\n",
            "k:\n- |\n  x\n- a\n",
            "- |\n x\n",
            "- a: |\n    x\n  b: 1\n",
            "a:\n  |\n    x\n",
            "a: |\n  x",
            "a: |-\n  x",
            "a: |+\n  x",
            "a: >\n  x\n  y",
            "a: |\n  x\n\n# foot\n",
            "a: |\n  x\n\n  # not a foot\n",
            // Anchors and aliases.
            "a: &x b\nc: *x\n",
            "- &x a\n- *x\n",
            "a: &x-1_b 0x10\nc: *x-1_b\nd: *x-1_b # c\n",
            "a: &x \"q\"\nb: *x\n",
            "a: &x 'q'\nb: *x\n",
            "a: &x\n  b: 1\n  c: [d]\ne: *x\nf:\n  g: *x\n",
            "a: &x # c\n  - 1\n  - |\n    t\nb: *x\n",
            "a: &x\n- 1\nb: *x\n",
            "- &x\n  a: 1\n- *x\n",
            "a: &x\nb: *x\n",
            "a: &x {}\nb: &y []\nc: *x\nd: *y\n",
            "a: &x [b, c]\nd: *x\n",
            "a: &x |\n  t\nb: *x\n",
            "a: &x >-\n  t\n  u\nb: *x\n",
            "a: &x b\n  c\nd: *x\n",
            "a: &x b\na2: &x c\nd: *x\n",
            "a: &x b\n---\na: &x c\nd: *x\n",
            "- - &x a\n  - *x\n",
            "a: &x\n  b: &y 1\n  c: *y\nd: *x\n",
            // Flow collections on one line.
            "a: {b: c}\n",
            "a: [[b]]\n",
            "a: &x b\nc: [*x]\n",
            "c:\n  capabilities: { drop: [\"ALL\"] }\n  seccompProfile: {type: RuntimeDefault}\n",
            "- { key: somekey, operator: In, values: [a, 'b'] }\n",
            "a: {b: {c: [1, {d: 0o17}], e: []}, f: {}}\n",
            "a: ['x', {\"y\": z}]\n",
            "a: [ b , c ]\n",
            "a: &h host\nb: [*h, *h ]\nc: {d: *h}\n",
            "a: &h\n  x: [1]\nb: [*h]\nc: {d: *h}\n",
            "a: {b: null, c: 1.0, d: true, e: 2001-12-14, f: 0x1F, 'g': 'h'}\n",
            "- [a]\n- {b: c} # d\n",
            "a:\n  {b: c}\n",
            "a: &x {b: [c]}\nd: *x\n",
        ];
        let left = [
            "",
            "a: [b,]\n",
            "a: [b, ]\n",
            "a: [b: c]\n",
            "a: {b: c d}\n",
            "a: {b}\n",
            "a: {b: }\n",
            "a: {b:c}\n",
            "a: {b: c,}\n",
            "a: {b: c, b: d}\n",
            "a: [b, {c: d]\n",
            "a: {b: [c, d}\n",
            "a: {b: c}}\n",
            "a: [*x]\n",
            "a: &x [*x]\n",
            "a: {b: -1}\n",
            "a: {b: c\n  }\n",
            "a: {b: *x d}\n",
            "a: [b, *x.y]\n",
            "a: {? b: c}\n",
            "a: [b c]\n",
            "a: [*b]\n",
            "a: [-b]\n",
            "a: [b]c\n",
            "a: [b\n",
            "a: [b,\n  c]\n",
            "a: [\"b\": c]\n",
            "a: [b #c]\n",
            "# only a comment\n",
            "a: b\na: c\n",
            // An empty value last with a comment after it (the event
            // parser marks it past the comment).
            "a:\n\n# c\n",
            "- a\n-\n\n# c\n",
            "a: - b\n",
            "a: 1\n- b\n",
            "- a\nb: 1\n",
            "a: 'b'#c\n",
            "a: 'b' c\n",
            "a: \"\\x4\"\n",
            "a: \"\\x4g\"\n",
            "a: \"\\x\"\n",
            "a: \"\\ud800\"\n",
            "a: { }\n",
            "a: {}x\n",
            "a: |2\n  x\n",
            "a: |\n\n  x\n",
            "a: |\nb: 1\n",
            "- a: |\n  x\n",
            "a: >\n   x\n  y\n",
            "a: |\n  x\n  ",
            "a: |\n  x\n\n  ",
            // Anchors and aliases the quick reader leaves.
            "a: &x.y b\nc: *x.y\n",
            "a: &x b\nc: *y\n",
            "a: *x\n",
            "a: &x b\n---\nc: *x\n",
            "a: &x &y b\n",
            "a: &x *y\n",
            "a: &x !!str b\n",
            "- &x b: c\n",
            "- &x - b\n",
            "&x a: b\n",
            "*x: b\n",
            "a:\n  &x b: c\n",
            "a: &x b\nc: *x d\n",
            "a: &x\n  b: c\nd:\n  <<: *x\n",
            "a: &x\n  b: *x\n",
            "a: !!str b\n",
            "- !t b\n",
            "1: b\n",
            "true: b\n",
            "2001-12-14: b\n",
            "<<: b\n",
            "a:\tb\n",
            "a: b\r\n",
            "# \u{1}\na: b\n",
            "a: |\n  \u{7f}\n",
            "  a: b\n",
            "a:\n  b: 1\n c: 2\n",
            "a:\n    b: 1\n  c: 2\n",
            "a: b\n---\n",
            "# c\n---\n",
            "# c\n---\n# d\n---\na: b\n",
            "---\n---\na: b\n",
            "a: b\n---\n# c\n---\nc: d\n",
            "a: b\n--- # c\nc: d\n",
            "a: b\n---\nc: d\n...\n",
            "a: b\n...\n",
            "%YAML 1.2\n---\na: b\n",
            "? a\n: b\n",
            "a b: c\n",
            "a: b:\n",
            "a: b: c\n",
            "a:b\n",
            "a: ---\n",
            "- ../\n",
            "a: ::1\n",
            "a:: b\n",
            "a: b:c: d\n",
            "a: :\n",
            "a: :#x\n",
            "a: : b\n",
            "a: :b: c\n",
            "- ..\n",
            "- ../-f\n",
            "- ../.e\n",
            "a: ../ b: c\n",
            "a: -\n",
            "a: - \n",
            "- ...\n",
            "a: \u{2028}\n",
        ];
        takes_and_leaves(&taken, &left);
    }

    /// Scalars over several lines, and documents that are an empty flow
    /// collection: what the quick reader takes, and the edges it leaves
    /// to the event parser.
    #[test]
    fn agrees_on_scalars_over_several_lines() {
        let taken = [
            // Plain scalars.
            "a: b\n  c\n",
            "- a\n  b\n",
            "a: b\n\n  c\n",
            "a: b\n  c\n\n\n  d\ne: f\n",
            "a: b  c\n   d  \n    e\n",
            "a: x\n      y\n  z\n",
            "a:\n  b: x\n    y\n  c: z\n",
            "a: x\n  y # c\nb: 1\n",
            "a: x\n  y\n  # c\nb: 1\n",
            "a: x\n  y\n\n# foot\n",
            "a: x\n  y\n\n  # not a foot\n",
            "a: x\n  y",
            "a: x\n  y\n\n",
            "a: x\n  y\n   ",
            "k:\n- a\n  b\n- c\n",
            "k:\n- a\n b\n",
            "- - a\n    b\n",
            "- a: x\n    y\n  b: z\n",
            "a: 1\n  2\n",
            "a: true\n  x\n",
            "a: ~\n  x\n",
            "a: -x\n  y\n",
            "a: .x\n  y\n",
            "a: x\n  -y\n",
            "a: x\n  - y\n  -\nb: 1\n",
            "- a\n  - b\n- c\n",
            "description: Ensure it is `present` or `absent`\n  - defaults to \"present\".\nenum:\n- present\n",
            "a: x\n  [y] {z} `w`\n",
            "a: x\n  'y\n",
            "a: x\n  \"y\n",
            "a: x\n  *y &z !w |v >u %t @s\n",
            "a: x\n  ---\n  ...\n",
            "a: x\n  y#z\n",
            "a: x\n  a:b http://h/#c\n",
            "a: x\n  é 60°C\n",
            "description: APIVersion defines the versioned schema of this representation\n  of an object. Servers should convert recognized schemas to the latest\n  internal value.\ntype: string\n",
            // Single-quoted scalars.
            "a: 'b\n  c'\n",
            "a: 'b\n\n  c'\n",
            "a: 'b\n\n\n  c'\nd: e\n",
            "a: 'it''s\n  ok'''\n",
            "a: 'b  \n    c  '\n",
            "a: '\n  b'\n",
            "a: 'b\n  '\n",
            "a: 'b\n\n  '\n",
            "a: 'b\n   \n  c'\n",
            "a: ' b\n  c '\n",
            "a: 'b\n  c' # d\ne: f\n",
            "a: 'b\n  c'",
            "a: 'b\\\n  c'\n",
            "a: 'x # y\n  z: w\n  - v\n  # u\n  ---'\n",
            "- 'a\n  b'\n- c\n",
            "a:\n  - 'x\n    y'\n",
            "a: 'x\n  y'\n\n# foot\n",
            // Double-quoted scalars.
            "a: \"x\n  \\x41\"\n",
            "a: \"b\n  c\"\n",
            "a: \"b\\\n  c\"\n",
            "a: \"b \\\n  c\"\n",
            "a: \"b\\\n\n  c\"\n",
            "a: \"b\\\n\n\n   c\"\n",
            "a: \"b\\n\n  c\\t\"\n",
            "a: \"\\u00e9\n  \\u0041\\\"\"\n",
            "a: \"b  \n  \\\\  c\"\n",
            "a: \"\\\n  b\"\n",
            "a: \"x # y\n  z: w\n  - v\n  # u\"\n",
            "- \"a\n  b\" # c\n- \"d\"\n",
            // Scalars on a line of their own below their key or `-`.
            "a:\n  b\n",
            "a:\n  b\n  c\n",
            "a:\n    b\n c\n",
            "a:\n  b # c\nd: e\n",
            "a:\n  b\n\n  c\nd: e\n",
            "a:\n  b\n\n# foot\n",
            "a:\n  b:c\n",
            "a:\n  -b\n",
            "a:\n  b\n  - c\n",
            "a:\n  'b'\n",
            "a:\n  'b\n  c'\n",
            "a:\n  \"b\\\n   c\" # d\n",
            "-\n  b\n",
            "- \n  b\n  c\n",
            "k:\n-\n  b\n",
            "- a:\n    b\n   c\n  d: e\n",
            "help:\n  The time (in hundredths of a second) since the network management portion\n  of the system was last re-initialized. - 1.3.6.1.2.1.1.3\n",
            // A document that is an empty flow collection.
            "{}\n",
            "[]\n",
            "{}",
            "[]",
            "---\n{}\n",
            "# c\n{}\n",
            "{} # c\n",
            "{}\n\n# foot\n",
            "{}\n# c\n",
            "[]\n\n# c\n",
            "{}\n\n",
        ];
        let left = [
            // Plain: a line the event parser reads otherwise or refuses,
            // or that only looks like text.
            "a: x\n  ? y\n",
            "a: x\n  ?\n",
            "a: x\n  : y\n",
            "a: x\n  y: z\n",
            "a: x\n  y:\n",
            "a: x\n  y # c\n  z\n",
            "a: x # c\n  y\n",
            "a: x\n  # c\n  y\n",
            "a: x\n\ty\n",
            "a: x\n  \u{2028}\n",
            "a: x\n  \u{85}\n",
            "a: x\n  y\r\n",
            "- a: x\n  y\n",
            "a: x\n---\n  y\n",
            // Quoted: indented no more than the key, a document marker,
            // a tab, trailing content, never closed, an unknown escape.
            "a: 'x\nb'\n",
            "a:\n  b: 'x\n  y'\n",
            "a: \"x\\\n\"\n",
            "a: 'x\n---\n  y'\n",
            "a: 'x\n...'\n",
            "a: 'x\n\ty'\n",
            "a: 'x\n  y' z\n",
            "a: 'x\n  y':\n",
            "a: 'x\n  y'#c\n",
            "a: 'x\n",
            "a: 'x\n  y\n",
            "a: \"x\\\n",
            "a: \"x\\q\n  y\"\n",
            "a: \"x\n  \\x4\"\n",
            "'a\n  b': c\n",
            "a: ['x\n  y']\n",
            // Below a key: what is no scalar, or is a key.
            "a:\n  b\n  c: d\n",
            "a:\n  &x b\n",
            "a:\n  ? b\n",
            "a:\n  ---\n",
            "a:\n  ...\n",
            "a:\n  'b'x\n",
            "a:\n  \"b\n  c\": d\n",
            "a:\n  \"b: x\n  c\"\n",
            "a:\n  b\nc\n",
            "- a:\n    b\n  c\n",
            // Documents that are more than an empty flow collection.
            "{}\na: b\n",
            "{ }\n",
            "{}x\n",
            "  {}\n",
            "[a]\n",
            "{}\n  x\n",
        ];
        takes_and_leaves(&taken, &left);
    }

    /// Plain and quoted scalars over several lines among other lines.
    #[test]
    fn agrees_on_combined_scalars_over_lines() {
        let parts = [
            "a: x",
            "  y z",
            "  - y",
            "    w # c",
            "",
            "  ",
            "- 'q",
            "  r''",
            "  s'",
            "b: \"t\\",
            "  u\"",
            "  # c",
            "c:",
            "{}",
            "  d: e",
            "-  - f",
            "g:",
            "   'h",
        ];
        let taken = combine(&parts, 4);
        assert!(taken > 1000, "{taken}");
    }

    /// Every text of up to `lines` lines built from `parts` (with and
    /// without a final line break) reads the same both ways wherever the
    /// quick reader takes it; how many it takes.
    fn combine(parts: &[&str], lines: usize) -> usize {
        let mut texts = vec![String::new()];
        let mut taken = 0;
        for _ in 0..lines {
            let mut next = Vec::new();
            for t in &texts {
                for p in parts {
                    let text = format!("{t}{p}\n");
                    if parse(&text, Schema::V3).is_some() {
                        taken += 1;
                    }
                    assert_eq!(mismatch(&text), None, "{text:?}");
                    assert_eq!(mismatch(&text[..text.len() - 1]), None, "{text:?}");
                    next.push(text);
                }
            }
            texts = next;
        }
        taken
    }

    /// Mappings of plain scalars.
    #[test]
    fn agrees_on_combined_lines() {
        let parts = [
            "a: b",
            "a:",
            "  b: 1",
            "  b:",
            "    c: x y",
            "  d: 0o17",
            "e: 2001-12-14",
            " f: g",
            "h: i:j",
            "a: c",
            "  a: TRUE",
            "y: n",
            "k: 1_0",
            "    l: .inf",
        ];
        let taken = combine(&parts, 4);
        assert!(taken > 500, "{taken}");
    }

    /// Sequences, comments, empty lines, quoted scalars, empty flow
    /// collections and block scalars.
    #[test]
    fn agrees_on_combined_shapes() {
        let parts = [
            "- a",
            "- b: 1",
            "  c: -2",
            "  - d",
            "-",
            "  - 'x''y' # c",
            "a:",
            "a: |",
            "  x",
            "     y",
            "",
            "   ",
            "  # c",
            "b: >-",
            "c: {}",
            "  []",
            "- \"q\\n\" # c",
            "---",
        ];
        let taken = combine(&parts, 4);
        assert!(taken > 5000, "{taken}");
    }

    /// Anchors and aliases among mappings, sequences and scalars: an alias
    /// before its anchor, in another document, of an anchor named twice,
    /// of a collection, a block scalar or an empty value.
    #[test]
    fn agrees_on_combined_anchors() {
        let parts = [
            "a: &x b",
            "c: *x",
            "- &x",
            "  d: *x",
            "- *x # c",
            "e: &y",
            "  - &x 'q'",
            "  f: &x |",
            "    t",
            "g: *y",
            "- *y",
            "---",
            "  h: &y 0o17",
        ];
        let taken = combine(&parts, 4);
        assert!(taken > 400, "{taken}");
    }

    /// One-line flow collections among block ones, with anchors and
    /// aliases.
    #[test]
    fn agrees_on_combined_flow_collections() {
        let parts = [
            "- {b: [c, 'd'], e: {}}",
            "- [1, {f: 0o17}] # c",
            "- &x {h: \"i\"}",
            "- [*x, k]",
            "- {l: *x}",
            "  m: []",
            "- { o: y, p: [ ] }",
            "-",
            "  {r: s}",
            "  - [t]",
        ];
        let taken = combine(&parts, 4);
        assert!(taken > 600, "{taken}");
    }

    /// Every fixture file the quick reader takes reads the same both ways.
    #[test]
    fn agrees_on_the_fixtures() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let mut taken = 0;
        for p in yaml_files(root) {
            let Ok(text) = std::fs::read_to_string(&p) else {
                continue;
            };
            if parse(&text, Schema::V3).is_some() {
                taken += 1;
            }
            assert_eq!(mismatch(&text), None, "{}", p.display());
        }
        assert!(taken > 10, "only {taken} fixture files take the quick path");
    }

    /// Every `.yaml`/`.yml` file under `root`, sorted.
    fn yaml_files(root: std::path::PathBuf) -> Vec<std::path::PathBuf> {
        let mut files = Vec::new();
        let mut stack = vec![root];
        while let Some(d) = stack.pop() {
            let Ok(rd) = std::fs::read_dir(&d) else {
                continue;
            };
            for e in rd.flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "yaml" || x == "yml") {
                    files.push(p);
                }
            }
        }
        files.sort();
        files
    }

    /// Every YAML file under the directories `FLATE_YAML_CORPUS` names
    /// (`dir1:dir2`; skipped without it) reads the same both ways wherever
    /// the quick reader takes it, whole and (for a file of several
    /// documents) each document on its own; prints the share of texts and
    /// bytes it takes.
    #[test]
    fn agrees_on_a_corpus() {
        let Ok(dirs) = std::env::var("FLATE_YAML_CORPUS") else {
            return;
        };
        for dir in dirs.split(':').filter(|d| !d.is_empty()) {
            let files = yaml_files(std::path::PathBuf::from(dir));
            // (texts, bytes) taken and in all; the same for documents.
            let (mut taken, mut all) = ((0, 0), (0, 0));
            let (mut doc_taken, mut docs) = ((0, 0), (0, 0));
            for p in &files {
                let Ok(text) = std::fs::read_to_string(p) else {
                    continue;
                };
                assert_eq!(mismatch(&text), None, "{}", p.display());
                all = (all.0 + 1, all.1 + text.len());
                if parse(&text, Schema::V3).is_some() {
                    taken = (taken.0 + 1, taken.1 + text.len());
                }
                for doc in documents(&text) {
                    assert_eq!(mismatch(doc), None, "{}: {doc:?}", p.display());
                    docs = (docs.0 + 1, docs.1 + doc.len());
                    if parse(doc, Schema::V3).is_some() {
                        doc_taken = (doc_taken.0 + 1, doc_taken.1 + doc.len());
                    }
                }
            }
            let pct = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
            println!(
                "{dir}: files {}/{} taken, bytes {}/{} ({:.1}%); documents {}/{}, bytes {}/{} ({:.1}%)",
                taken.0,
                all.0,
                taken.1,
                all.1,
                pct(taken.1, all.1),
                doc_taken.0,
                docs.0,
                doc_taken.1,
                docs.1,
                pct(doc_taken.1, docs.1)
            );
        }
    }

    /// The documents of a text split at its `---` lines (each with the
    /// line break before the next).
    fn documents(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        let mut start = 0;
        let mut at = 0;
        for line in text.split_inclusive('\n') {
            if line.starts_with("---") && at > start {
                out.push(&text[start..at]);
                start = at;
            }
            at += line.len();
        }
        out.push(&text[start..]);
        out
    }
}
