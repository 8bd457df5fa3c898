//! LINE SEPARATOR (U+2028) and PARAGRAPH SEPARATOR (U+2029) as go-yaml
//! reads them.
//!
//! go-yaml (as libyaml) takes both for line breaks everywhere: they end a
//! line, a comment, a plain or block scalar's line, and the indentation
//! after one is the next line's. Unlike a line feed, one that a scalar
//! keeps is kept as itself, and it never folds into a space. yaml-rust2
//! (YAML 1.2) takes them for ordinary characters. So a text holding them
//! is read with each made a line feed (the structure go-yaml sees, and
//! its errors), and the value of every scalar whose lines one of them
//! ends is read again from those lines by go-yaml's rules with the break
//! as it is. That second reading is checked: read with line feeds, it
//! must give what yaml-rust2 gave; where it does not (a case these rules
//! do not cover), the text is refused rather than read differently.

use super::Lines;
// (A NEL is a line feed by the time these run: `parse` made it one.)
use crate::yaml::emit::is_break;

/// The lines (0-based) of `text` that a LINE SEPARATOR or PARAGRAPH
/// SEPARATOR ends, with the one that does, and the text with each made a
/// line feed. `None` when there is none.
pub(super) fn split(text: &str) -> Option<(String, Vec<(usize, char)>)> {
    if !text.contains(['\u{2028}', '\u{2029}']) {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut seps = Vec::new();
    let mut line = 0;
    for c in text.chars() {
        match c {
            '\n' => line += 1,
            '\u{2028}' | '\u{2029}' => {
                seps.push((line, c));
                line += 1;
                out.push('\n');
                continue;
            }
            _ => {}
        }
        out.push(c);
    }
    Some((out, seps))
}

/// Whether a separator ends one of the lines `from..to`.
pub(super) fn any_in(seps: &[(usize, char)], from: usize, to: usize) -> bool {
    let i = seps.partition_point(|&(l, _)| l < from);
    seps.get(i).is_some_and(|&(l, _)| l < to)
}

fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// The characters of a scalar's lines from a position on, each line with
/// its break (a line feed, or the separator that ends it unless `as_nl`),
/// decoded as they are read (a long line holding many scalars is not
/// copied for each).
struct Src<'a, 'b> {
    lines: &'b Lines<'a>,
    seps: &'b [(usize, char)],
    as_nl: bool,
    line: usize,
    /// The current line, without its break.
    text: &'a str,
    /// Its break (`None` on the last line).
    brk: Option<char>,
    /// The byte offset in `text` (`text.len()`: at the break).
    pos: usize,
}

impl<'a, 'b> Src<'a, 'b> {
    /// From byte `at` of line `line`.
    fn new(
        lines: &'b Lines<'a>,
        seps: &'b [(usize, char)],
        as_nl: bool,
        line: usize,
        at: usize,
    ) -> Self {
        let mut s = Src {
            lines,
            seps,
            as_nl,
            line,
            text: "",
            brk: None,
            pos: at,
        };
        s.load();
        s
    }

    fn load(&mut self) {
        self.text = self.lines.line(self.line);
        self.brk = (self.line + 1 < self.lines.len()).then(|| {
            match self.seps.binary_search_by_key(&self.line, |&(l, _)| l) {
                Ok(i) if !self.as_nl => self.seps[i].1,
                _ => '\n',
            }
        });
    }

    fn char_at(&self, p: usize) -> Option<char> {
        match p.cmp(&self.text.len()) {
            std::cmp::Ordering::Less => self.text.get(p..)?.chars().next(),
            std::cmp::Ordering::Equal => self.brk,
            std::cmp::Ordering::Greater => None,
        }
    }

    /// The bytes the character at `p` takes (the break: one).
    fn width(&self, p: usize) -> usize {
        if p < self.text.len() {
            self.char_at(p).map_or(1, char::len_utf8)
        } else {
            1
        }
    }

    fn peek(&self, k: usize) -> Option<char> {
        let mut p = self.pos;
        for _ in 0..k {
            self.char_at(p)?;
            p += self.width(p);
        }
        self.char_at(p)
    }

    fn bump(&mut self) {
        if self.pos < self.text.len() {
            self.pos += self.width(self.pos);
        } else if self.brk.is_some() {
            self.line += 1;
            self.pos = 0;
            self.load();
        } else {
            self.pos = self.text.len() + 1;
        }
    }

    /// Reads a line break as go-yaml's `read_line` does: CR LF and CR
    /// become a line feed, a separator stays itself.
    fn read_line(&mut self) -> char {
        let c = self.peek(0).unwrap_or('\n');
        if c == '\r' && self.peek(1) == Some('\n') {
            self.bump();
        }
        self.bump();
        if c == '\r' { '\n' } else { c }
    }
}

/// The breaks and blanks go-yaml holds between two runs of a flow or
/// plain scalar's text.
#[derive(Default)]
struct Fold {
    leading_blanks: bool,
    whitespaces: String,
    leading_break: Option<char>,
    trailing_breaks: String,
}

impl Fold {
    /// Takes one blank or break (go-yaml: "consume blank characters").
    fn take(&mut self, src: &mut Src) {
        let c = src.peek(0).unwrap_or('\n');
        if is_blank(c) {
            if !self.leading_blanks {
                self.whitespaces.push(c);
            }
            src.bump();
        } else if !self.leading_blanks {
            self.whitespaces.clear();
            self.leading_break = Some(src.read_line());
            self.leading_blanks = true;
        } else {
            self.trailing_breaks.push(src.read_line());
        }
    }

    /// Joins what was held to `s`: a line feed folds into a space (or
    /// gives way to the empty lines after it), a separator stays.
    fn join(&mut self, s: &mut String) {
        if self.leading_blanks {
            match self.leading_break {
                Some('\n') if self.trailing_breaks.is_empty() => s.push(' '),
                Some('\n') => s.push_str(&self.trailing_breaks),
                other => {
                    s.extend(other);
                    s.push_str(&self.trailing_breaks);
                }
            }
            self.leading_break = None;
            self.trailing_breaks.clear();
            self.leading_blanks = false;
        } else {
            s.push_str(&self.whitespaces);
        }
        self.whitespaces.clear();
    }
}

/// A quoted scalar whose opening quote is at byte `at` of line `line`
/// (0-based), read as go-yaml does. `None` when it is not one (no closing
/// quote, an unknown escape).
pub(super) fn quoted(
    lines: &Lines,
    seps: &[(usize, char)],
    as_nl: bool,
    line: usize,
    at: usize,
) -> Option<String> {
    let mut src = Src::new(lines, seps, as_nl, line, at);
    let quote = src.peek(0)?;
    let single = match quote {
        '\'' => true,
        '"' => false,
        _ => return None,
    };
    src.bump();
    let mut s = String::new();
    let mut fold = Fold::default();
    loop {
        fold.leading_blanks = false;
        // The text up to a blank, a break or the closing quote.
        loop {
            let c = src.peek(0)?;
            if is_blank(c) || is_break(c) {
                break;
            }
            if single && c == '\'' {
                if src.peek(1) == Some('\'') {
                    s.push('\'');
                    src.bump();
                    src.bump();
                    continue;
                }
                break;
            }
            if !single && c == '"' {
                break;
            }
            if !single && c == '\\' {
                match src.peek(1) {
                    Some(b) if is_break(b) => {
                        // An escaped line break.
                        src.bump();
                        src.read_line();
                        fold.leading_blanks = true;
                        break;
                    }
                    Some(e) => {
                        src.bump();
                        src.bump();
                        escape(e, &mut src, &mut s)?;
                        continue;
                    }
                    None => return None,
                }
            }
            s.push(c);
            src.bump();
        }
        if src.peek(0)? == quote {
            return Some(s);
        }
        while let Some(c) = src.peek(0) {
            if !(is_blank(c) || is_break(c)) {
                break;
            }
            fold.take(&mut src);
        }
        fold.join(&mut s);
    }
}

/// The character escape `\e` of a double-quoted scalar (its `\` and `e`
/// read), as go-yaml reads it.
fn escape(e: char, src: &mut Src, s: &mut String) -> Option<()> {
    let c = match e {
        '0' => '\0',
        'a' => '\x07',
        'b' => '\x08',
        't' | '\t' => '\t',
        'n' => '\n',
        'v' => '\x0b',
        'f' => '\x0c',
        'r' => '\r',
        'e' => '\x1b',
        ' ' => ' ',
        '"' => '"',
        '/' => '/',
        '\'' => '\'',
        '\\' => '\\',
        'N' => '\u{85}',
        '_' => '\u{a0}',
        'L' => '\u{2028}',
        'P' => '\u{2029}',
        'x' | 'u' | 'U' => {
            let n = match e {
                'x' => 2,
                'u' => 4,
                _ => 8,
            };
            let mut v = 0u32;
            for _ in 0..n {
                v = v * 16 + src.peek(0)?.to_digit(16)?;
                src.bump();
            }
            char::from_u32(v)?
        }
        _ => return None,
    };
    s.push(c);
    Some(())
}

/// A plain scalar that starts at byte `at` of line `line` (0-based), read
/// as go-yaml does, up to where read with line feeds it gives `want` (what
/// yaml-rust2 read). `None` when it never does.
pub(super) fn plain(
    lines: &Lines,
    seps: &[(usize, char)],
    line: usize,
    at: usize,
    flow: bool,
    want: &str,
) -> Option<String> {
    let runs = plain_runs(&mut Src::new(lines, seps, true, line, at), flow, |s| {
        s == want
    })?;
    let mut src = Src::new(lines, seps, false, line, at);
    let mut n = 0;
    plain_runs(&mut src, flow, |_| {
        n += 1;
        n == runs.1
    })
    .map(|(s, _)| s)
}

/// Reads a plain scalar's runs of text until `done` says the value so far
/// is all; the value and the number of runs read.
fn plain_runs(
    src: &mut Src,
    flow: bool,
    mut done: impl FnMut(&str) -> bool,
) -> Option<(String, usize)> {
    let mut s = String::new();
    let mut fold = Fold::default();
    let mut runs = 0;
    loop {
        if src.peek(0) == Some('#') {
            return None;
        }
        let mut any = false;
        while let Some(c) = src.peek(0) {
            if is_blank(c) || is_break(c) {
                break;
            }
            let next_ends = src
                .peek(1)
                .is_none_or(|n| is_blank(n) || is_break(n) || (flow && ",[]{}".contains(n)));
            if (c == ':' && next_ends) || (flow && ",[]{}".contains(c)) {
                break;
            }
            if !any {
                fold.join(&mut s);
                any = true;
            }
            s.push(c);
            src.bump();
        }
        if !any {
            return None;
        }
        runs += 1;
        if done(&s) {
            return Some((s, runs));
        }
        let c = src.peek(0)?;
        if !(is_blank(c) || is_break(c)) {
            return None;
        }
        while let Some(c) = src.peek(0) {
            if !(is_blank(c) || is_break(c)) {
                break;
            }
            fold.take(src);
        }
    }
}

/// How a block scalar ends (its chomping indicator).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(in crate::yaml) enum Chomp {
    Strip,
    Clip,
    Keep,
}

/// A block scalar whose content lines are `start..end`, indented by
/// `indent`, read as go-yaml does.
pub(super) fn block(
    lines: &Lines,
    seps: &[(usize, char)],
    as_nl: bool,
    (start, end, indent): (usize, usize, usize),
    literal: bool,
    chomp: Chomp,
) -> String {
    let brk = |i: usize| -> Option<char> {
        if i + 1 >= lines.len() {
            return None;
        }
        match seps.binary_search_by_key(&i, |&(l, _)| l) {
            Ok(k) if !as_nl => Some(seps[k].1),
            _ => Some('\n'),
        }
    };
    // A line's text past the indentation (`None` for an empty line).
    let content = |i: usize| -> Option<&str> {
        let l = lines.line(i).trim_end_matches('\r');
        let spaces = l.len() - l.trim_start_matches(' ').len();
        let rest = &l[spaces.min(indent)..];
        (spaces >= indent && !rest.is_empty()).then_some(rest)
    };
    read_block((start..end).map(|i| (content(i), brk(i))), literal, chomp)
}

/// go-yaml's reading of a block scalar from its lines after the header:
/// each line's text past the indentation (`None` for an empty line) and
/// the break that ends it (`None` at the end of the input).
pub(in crate::yaml) fn read_block<'s>(
    lines: impl IntoIterator<Item = (Option<&'s str>, Option<char>)>,
    literal: bool,
    chomp: Chomp,
) -> String {
    let mut s = String::new();
    let mut leading_break: Option<char> = None;
    let mut trailing = String::new();
    let mut leading_blank = false;
    for (text, brk) in lines {
        let Some(text) = text else {
            trailing.extend(brk);
            continue;
        };
        let first_blank = text.starts_with([' ', '\t']);
        if !literal && leading_break == Some('\n') && !leading_blank && !first_blank {
            if trailing.is_empty() {
                s.push(' ');
            }
        } else {
            s.extend(leading_break);
        }
        s.push_str(&trailing);
        trailing.clear();
        leading_blank = first_blank;
        s.push_str(text);
        leading_break = brk;
    }
    match chomp {
        Chomp::Strip => {}
        Chomp::Clip => s.extend(leading_break),
        Chomp::Keep => {
            s.extend(leading_break);
            s.push_str(&trailing);
        }
    }
    s
}
