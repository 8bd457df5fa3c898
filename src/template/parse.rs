//! Lexer and parser for Go's `text/template` language.

use std::borrow::Cow;
use std::cell::Cell;
use std::collections::HashSet;

use super::Error;

/// The keywords of the language (`nil`, `true` and `false` are tokens of
/// their own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kw {
    Block,
    Break,
    Continue,
    Define,
    Else,
    End,
    If,
    Range,
    Template,
    With,
}

impl Kw {
    fn name(self) -> &'static str {
        match self {
            Kw::Block => "block",
            Kw::Break => "break",
            Kw::Continue => "continue",
            Kw::Define => "define",
            Kw::Else => "else",
            Kw::End => "end",
            Kw::If => "if",
            Kw::Range => "range",
            Kw::Template => "template",
            Kw::With => "with",
        }
    }
}

// Tokens are small and `Copy` (16 bytes): the parser looks ahead and
// backtracks, so tokens are copied often. Their text is the range
// `pos..pos + len` of the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok {
    Text,
    LeftDelim,
    RightDelim,
    /// A field, its dot included.
    Field,
    Dot,
    /// A variable, its `$` included.
    Var,
    Ident,
    Keyword(Kw),
    /// A string literal as written, quotes included: the lexer has checked
    /// that it unquotes ([`str_value`] gives its value).
    Str,
    Char,
    Number,
    Bool(bool),
    Nil,
    LParen,
    RParen,
    Pipe,
    Decl,
    Assign,
    Comma,
    /// Any other printable ASCII character (the parser rejects it).
    Other(u8),
    /// Where the lexer stopped at an error (the parser's
    /// [`Parser::lex_error`] holds its message): the last token before
    /// the final EOF. Go's lexer emits an error item there, which the
    /// parser reports only when it reaches it (a parse error before it
    /// comes first).
    Error,
    Eof,
}

#[derive(Debug, Clone, Copy)]
struct Token {
    tok: Tok,
    /// Whether spaces come right before it in an action (they make no
    /// token of their own: they only separate operands).
    sp: bool,
    start: u32,
    len: u32,
    line: u32,
}

impl Token {
    fn pos(&self) -> usize {
        self.start as usize
    }

    fn end(&self) -> usize {
        self.start as usize + self.len as usize
    }

    fn line(&self) -> usize {
        self.line as usize
    }

    /// Its text in `src`, the text lexed.
    fn text<'s>(&self, src: &'s str) -> &'s str {
        &src[self.pos()..self.end()]
    }

    /// How Go's `item.String()` names the token in "unexpected" errors.
    fn describe(&self, src: &str) -> String {
        match self.tok {
            Tok::Eof | Tok::Error => "EOF".into(),
            Tok::Keyword(k) => format!("<{}>", k.name()),
            Tok::Field => quote_short(&self.text(src)[1..]),
            Tok::Text | Tok::Var | Tok::Ident | Tok::Number | Tok::Char | Tok::Str => {
                quote_short(self.text(src))
            }
            Tok::LeftDelim => quote_short("{{"),
            Tok::RightDelim => quote_short("}}"),
            Tok::Dot => quote_short("."),
            Tok::Bool(b) => quote_short(if b { "true" } else { "false" }),
            Tok::Nil => quote_short("nil"),
            Tok::LParen => quote_short("("),
            Tok::RParen => quote_short(")"),
            Tok::Pipe => quote_short("|"),
            Tok::Decl => quote_short(":="),
            Tok::Assign => quote_short("="),
            Tok::Comma => quote_short(","),
            Tok::Other(c) => quote_short(&(c as char).to_string()),
        }
    }
}

fn quote_short(s: &str) -> String {
    if s.chars().count() > 10 {
        let head: String = s.chars().take(10).collect();
        format!("{}...", super::value::go_quote(&head))
    } else {
        super::value::go_quote(s)
    }
}

/// The value of a string literal (raw, or double-quoted): borrowed
/// unless it has escapes; `None` when its escapes do not unquote (Go's
/// parser fails then with `strconv`'s "invalid syntax", where it reads
/// the literal: the lexer takes any escape).
fn str_value(quoted: &str) -> Option<Cow<'_, str>> {
    let inner = &quoted[1..quoted.len() - 1];
    if quoted.starts_with('`') || !inner.contains('\\') {
        Some(Cow::Borrowed(inner))
    } else {
        unquote(quoted).map(Cow::Owned)
    }
}

/// `OPEN` and `CLOSE`: the delimiters' bytes (an action opens with two
/// of `OPEN` and closes with two of `CLOSE`), constants so that the lexer
/// of `{{ }}` compares with literals, as it did before others were taken.
struct Lexer<'a, const OPEN: u8, const CLOSE: u8> {
    src: &'a str,
    name: &'a str,
    pos: usize,
    line: usize,
    toks: Vec<Token>,
    /// Whether spaces were passed since the last token.
    space: bool,
}

/// The delimiters of actions (Go's `Delims`): Go's default, or those of
/// the Flux Operator's ResourceSets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delims {
    /// `{{` and `}}`.
    Braces,
    /// `<<` and `>>`.
    Angles,
}

impl Delims {
    /// The byte an opening delimiter is two of.
    fn open(self) -> u8 {
        match self {
            Delims::Braces => b'{',
            Delims::Angles => b'<',
        }
    }
}

/// Where the next opening delimiter (`{{`) starts.
fn find_open(b: &[u8], open: u8) -> Option<usize> {
    find_pair(b, open, open)
}

/// Where the first `*/` starts.
fn find_close_comment(b: &[u8]) -> Option<usize> {
    find_pair(b, b'*', b'/')
}

/// Where the two bytes `first second` first occur (the texts searched are
/// short between hits: a byte search for the first, not a substring
/// searcher to set up).
fn find_pair(b: &[u8], first: u8, second: u8) -> Option<usize> {
    let mut i = 0;
    while let Some(j) = memchr::memchr(first, &b[i..]) {
        let k = i + j;
        if b.get(k + 1) == Some(&second) {
            return Some(k);
        }
        i = k + 1;
    }
    None
}

/// How many line breaks `b` holds.
fn newlines(b: &[u8]) -> usize {
    // Most runs counted are short (the spaces of an action, the text
    // between two actions): a plain loop, before the vector count's setup
    // pays off.
    if b.len() < 32 {
        b.iter().filter(|&&c| c == b'\n').count()
    } else {
        memchr::memchr_iter(b'\n', b).count()
    }
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

/// Go's `isAlphaNumeric`: `_`, a letter (category L) or a decimal digit
/// (Nd).
fn is_alnum(c: char) -> bool {
    c == '_' || crate::flux::envsubst::is_go_letter(c) || crate::flux::envsubst::is_go_digit(c)
}

/// Which bytes are ASCII identifier characters (`_`, letters, digits).
const ASCII_ALNUM: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 128 {
        t[c] = (c as u8).is_ascii_alphanumeric() || c == b'_' as usize;
        c += 1;
    }
    t
};

/// The length in bytes of the identifier characters (`_`, letters and
/// digits, Unicode ones too) at byte `at` of `s`: by table while they are
/// ASCII, as they nearly always are.
fn alnum_len(s: &str, at: usize) -> usize {
    let b = &s.as_bytes()[at..];
    let i = b
        .iter()
        .position(|&c| !ASCII_ALNUM[c as usize])
        .unwrap_or(b.len());
    if b.get(i).is_some_and(|&c| c >= 0x80) {
        i + s[at + i..]
            .chars()
            .take_while(|c| is_alnum(*c))
            .map(char::len_utf8)
            .sum::<usize>()
    } else {
        i
    }
}

impl<'a, const OPEN: u8, const CLOSE: u8> Lexer<'a, OPEN, CLOSE> {
    /// A lexer of `src` (named `name` in errors), its tokens pushed to
    /// `toks`.
    fn new(src: &'a str, name: &'a str, toks: Vec<Token>) -> Self {
        Lexer {
            src,
            name,
            pos: 0,
            line: 1,
            toks,
            space: false,
        }
    }

    fn err(&self, line: usize, msg: String) -> Error {
        Error::parse(self.name, line, msg)
    }

    fn push(&mut self, tok: Tok, pos: usize, len: usize, line: usize) {
        let sp = std::mem::take(&mut self.space);
        self.toks.push(Token {
            tok,
            sp,
            start: pos as u32,
            len: len as u32,
            line: line as u32,
        });
    }

    /// The bytes from the current position on.
    fn rest(&self) -> &'a [u8] {
        &self.src.as_bytes()[self.pos..]
    }

    /// Moves past `n` bytes that may hold line breaks.
    fn advance(&mut self, n: usize) {
        self.line += newlines(&self.src.as_bytes()[self.pos..self.pos + n]);
        self.pos += n;
    }

    /// Moves past `n` bytes of a token that holds no line break (most
    /// tokens of an action): nothing to count.
    fn skip(&mut self, n: usize) {
        self.pos += n;
    }

    /// The tokens of the text and, when the lexer stopped at an error,
    /// that error (its place marked by a [`Tok::Error`] token).
    fn run(mut self) -> (Vec<Token>, Option<Error>) {
        match self.tokens() {
            Ok(()) => (self.toks, None),
            Err(e) => {
                let (p, l) = (self.pos, e.line);
                self.push(Tok::Error, p, 0, l);
                self.push(Tok::Eof, p, 0, l);
                (self.toks, Some(e))
            }
        }
    }

    fn tokens(&mut self) -> Result<(), Error> {
        let mut trim_next = false;
        loop {
            let rest = self.rest();
            let (start, line) = (self.pos, self.line);
            let end = find_open(rest, OPEN).unwrap_or(rest.len());
            // The text before the action, trimmed as the delimiters ask.
            let (mut a, mut z) = (0, end);
            if trim_next {
                while a < z && is_space(rest[a]) {
                    a += 1;
                }
            }
            let trim_left = rest[end..].starts_with(&[OPEN, OPEN, b'-'])
                && rest.get(end + 3).is_some_and(|&c| is_space(c));
            if trim_left {
                while z > a && is_space(rest[z - 1]) {
                    z -= 1;
                }
            }
            if a < z {
                let tline = if a == 0 {
                    line
                } else {
                    line + newlines(&rest[..a])
                };
                self.push(Tok::Text, start + a, z - a, tline);
            }
            self.advance(end);
            if self.pos >= self.src.len() {
                let (p, l) = (self.pos, self.line);
                self.push(Tok::Eof, p, 0, l);
                return Ok(());
            }
            trim_next = self.action(trim_left)?;
        }
    }

    /// Lexes one action starting at `{{`; returns whether it ends with `-}}`.
    fn action(&mut self, trim_left: bool) -> Result<bool, Error> {
        let start_line = self.line;
        let after = if trim_left { 4 } else { 2 };
        // Comments.
        let body = &self.rest()[after..];
        if body.starts_with(b"/*") {
            let close = match find_close_comment(body) {
                Some(i) => i,
                None => return Err(self.err(start_line, "unclosed comment".into())),
            };
            let tail = &body[close + 2..];
            let (n, trim) = if tail.starts_with(&[b' ', b'-', CLOSE, CLOSE]) {
                (4, true)
            } else if tail.starts_with(&[CLOSE, CLOSE]) {
                (2, false)
            } else {
                return Err(self.err(start_line, "comment ends before closing delimiter".into()));
            };
            self.advance(after + close + 2 + n);
            return Ok(trim);
        }
        let (p, l) = (self.pos, self.line);
        self.push(Tok::LeftDelim, p, 2, l);
        self.skip(if trim_left { 3 } else { 2 });
        let mut paren = 0usize;
        loop {
            let b = self.rest();
            let (p, l) = (self.pos, self.line);
            // Dispatch on the first byte; `}}` and ` -}}` (any one space
            // before the dash) close the action.
            let Some(&c) = b.first() else {
                return Err(self.err(l, "unclosed action".into()));
            };
            match c {
                c if c == CLOSE && b.get(1) == Some(&CLOSE) => {
                    if paren > 0 {
                        return Err(self.err(l, "unclosed left paren".into()));
                    }
                    self.push(Tok::RightDelim, p, 2, l);
                    self.skip(2);
                    return Ok(false);
                }
                b' ' | b'\t' | b'\r' | b'\n' => {
                    if b[1..].starts_with(&[b'-', CLOSE, CLOSE]) {
                        self.push(Tok::RightDelim, p + 1, 3, l);
                        self.advance(4);
                        return Ok(true);
                    }
                    // The run of spaces, counting its line breaks.
                    let (mut n, mut breaks) = (0, 0);
                    while let Some(&c) = b.get(n) {
                        match c {
                            b' ' | b'\t' | b'\r' => {}
                            b'\n' => breaks += 1,
                            _ => break,
                        }
                        n += 1;
                    }
                    // Leave " -}}" for the right delimiter check.
                    if n > 1 && b[n - 1..].starts_with(&[b' ', b'-', CLOSE, CLOSE]) {
                        n -= 1;
                    }
                    self.space = true;
                    self.line += breaks;
                    self.pos += n;
                }
                b'=' => {
                    self.push(Tok::Assign, p, 1, l);
                    self.skip(1);
                }
                b':' => {
                    if b.get(1) != Some(&b'=') {
                        return Err(self.err(l, "expected :=".into()));
                    }
                    self.push(Tok::Decl, p, 2, l);
                    self.skip(2);
                }
                b'|' => {
                    self.push(Tok::Pipe, p, 1, l);
                    self.skip(1);
                }
                b',' => {
                    self.push(Tok::Comma, p, 1, l);
                    self.skip(1);
                }
                b'(' => {
                    paren += 1;
                    self.push(Tok::LParen, p, 1, l);
                    self.skip(1);
                }
                b')' => {
                    if paren == 0 {
                        return Err(self.err(l, "unexpected right paren".into()));
                    }
                    paren -= 1;
                    self.push(Tok::RParen, p, 1, l);
                    self.skip(1);
                }
                b'"' => {
                    // Go's lexer takes any escape but one of a line break
                    // (the parser unquotes the literal where it reads it).
                    let mut i = 1;
                    loop {
                        match b.get(i) {
                            None | Some(b'\n') => {
                                return Err(self.err(l, "unterminated quoted string".into()));
                            }
                            Some(b'\\') if matches!(b.get(i + 1), None | Some(b'\n')) => {
                                return Err(self.err(l, "unterminated quoted string".into()));
                            }
                            Some(b'\\') => i += 2,
                            Some(b'"') => break,
                            _ => i += 1,
                        }
                    }
                    self.push(Tok::Str, p, i + 1, l);
                    self.skip(i + 1);
                }
                b'`' => {
                    let close = match memchr::memchr(b'`', &b[1..]) {
                        Some(i) => i + 1,
                        None => return Err(self.err(l, "unterminated raw quoted string".into())),
                    };
                    self.push(Tok::Str, p, close + 1, l);
                    self.advance(close + 1);
                }
                b'\'' => {
                    let mut i = 1;
                    loop {
                        match b.get(i) {
                            None | Some(b'\n') => {
                                return Err(self.err(l, "unterminated character constant".into()));
                            }
                            Some(b'\\') if matches!(b.get(i + 1), None | Some(b'\n')) => {
                                return Err(self.err(l, "unterminated character constant".into()));
                            }
                            Some(b'\\') => i += 2,
                            Some(b'\'') => break,
                            _ => i += 1,
                        }
                    }
                    self.push(Tok::Char, p, i + 1, l);
                    self.advance(i + 1);
                }
                b'$' => {
                    let n = 1 + alnum_len(self.src, p + 1);
                    self.terminated(p + n, l)?;
                    self.push(Tok::Var, p, n, l);
                    self.skip(n);
                }
                b'.' => {
                    if b.get(1).is_some_and(u8::is_ascii_digit) {
                        self.number(p, l)?;
                    } else {
                        let n = alnum_len(self.src, p + 1);
                        self.terminated(p + 1 + n, l)?;
                        if n > 0 {
                            self.push(Tok::Field, p, 1 + n, l);
                            self.skip(1 + n);
                        } else {
                            self.push(Tok::Dot, p, 1, l);
                            self.skip(1);
                        }
                    }
                }
                b'+' | b'-' | b'0'..=b'9' => self.number(p, l)?,
                _ => {
                    let n = alnum_len(self.src, p);
                    if n > 0 {
                        self.terminated(p + n, l)?;
                        self.push(word_tok(&b[..n]), p, n, l);
                        self.skip(n);
                    } else if c.is_ascii() && !c.is_ascii_control() {
                        self.push(Tok::Other(c), p, 1, l);
                        self.skip(1);
                    } else {
                        let c = self.src[p..].chars().next().unwrap_or_default();
                        return Err(self.err(
                            l,
                            format!("unrecognized character in action: {}", go_unicode(c)),
                        ));
                    }
                }
            }
        }
    }

    /// Go's lexer ends a variable, a field or a word (an identifier, a
    /// keyword, `true`, `false`, `nil`) only before a space, `.`, `,`,
    /// `|`, `:`, a parenthesis, the closing delimiter or the end of the
    /// text: any other character at `at` is a "bad character" (`$x=1`,
    /// `.a[0]`, `.a-}}`), reported in place of the token.
    fn terminated(&self, at: usize, l: usize) -> Result<(), Error> {
        let b = &self.src.as_bytes()[at..];
        match b.first() {
            None | Some(b' ' | b'\t' | b'\r' | b'\n' | b'.' | b',' | b'|' | b':' | b')' | b'(') => {
                Ok(())
            }
            Some(_) if b.starts_with(&[CLOSE, CLOSE]) => Ok(()),
            Some(_) => {
                let c = self.src[at..].chars().next().unwrap_or_default();
                Err(self.err(l, format!("bad character {}", go_unicode(c))))
            }
        }
    }

    fn number(&mut self, p: usize, l: usize) -> Result<(), Error> {
        let b = self.rest();
        let mut i = 0;
        if matches!(b.first(), Some(b'+' | b'-')) {
            i += 1;
        }
        let mut digits: &[u8] = b"0123456789_";
        if b.get(i) == Some(&b'0')
            && matches!(b.get(i + 1), Some(b'x' | b'X' | b'o' | b'O' | b'b' | b'B'))
        {
            digits = match b[i + 1] {
                b'x' | b'X' => b"0123456789abcdefABCDEF_",
                b'o' | b'O' => b"01234567_",
                _ => b"01_",
            };
            i += 2;
        }
        let run = |i: &mut usize, set: &[u8]| {
            while b.get(*i).is_some_and(|c| set.contains(c)) {
                *i += 1;
            }
        };
        run(&mut i, digits);
        if b.get(i) == Some(&b'.') {
            i += 1;
            run(&mut i, digits);
        }
        if digits.len() == 11 && matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            run(&mut i, b"0123456789_");
        }
        // A hexadecimal float's binary exponent (`0x1p60`).
        if digits.len() == 23 && matches!(b.get(i), Some(b'p' | b'P')) {
            i += 1;
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            run(&mut i, b"0123456789_");
        }
        if b.get(i) == Some(&b'i') {
            i += 1;
        }
        let n = alnum_len(self.src, p + i);
        if n > 0 {
            return Err(self.err(
                l,
                format!("bad number syntax: {:?}", &self.src[p..p + i + n]),
            ));
        }
        self.push(Tok::Number, p, i, l);
        self.skip(i);
        Ok(())
    }
}

/// The token a word is: a keyword, `true`, `false`, `nil` or else an
/// identifier (by length first: most words are none of these).
fn word_tok(w: &[u8]) -> Tok {
    let kw = |k| Tok::Keyword(k);
    match (w.len(), w) {
        (2, b"if") => kw(Kw::If),
        (3, b"end") => kw(Kw::End),
        (3, b"nil") => Tok::Nil,
        (4, b"true") => Tok::Bool(true),
        (4, b"else") => kw(Kw::Else),
        (4, b"with") => kw(Kw::With),
        (5, b"false") => Tok::Bool(false),
        (5, b"range") => kw(Kw::Range),
        (5, b"block") => kw(Kw::Block),
        (5, b"break") => kw(Kw::Break),
        (6, b"define") => kw(Kw::Define),
        (8, b"template") => kw(Kw::Template),
        (8, b"continue") => kw(Kw::Continue),
        _ => Tok::Ident,
    }
}

/// Go's `%#U` of a character: its code point, and the character quoted
/// when it is printable.
fn go_unicode(c: char) -> String {
    if super::value::go_is_print(c) {
        format!("U+{:04X} '{c}'", c as u32)
    } else {
        format!("U+{:04X}", c as u32)
    }
}

/// Go's `strconv.Unquote` for double-quoted strings.
fn unquote(q: &str) -> Option<String> {
    let inner = &q[1..q.len() - 1];
    let mut out = String::new();
    let mut it = inner.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let e = it.next()?;
        match e {
            'a' => out.push('\x07'),
            'b' => out.push('\x08'),
            'f' => out.push('\x0c'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\x0b'),
            '\\' => out.push('\\'),
            '"' => out.push('"'),
            '\'' => return None,
            'x' | 'u' | 'U' => {
                let n = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let h: String = (0..n).filter_map(|_| it.next()).collect();
                let v = u32::from_str_radix(&h, 16).ok()?;
                out.push(char::from_u32(v)?);
            }
            '0'..='7' => {
                let mut s = e.to_string();
                s.push(it.next()?);
                s.push(it.next()?);
                out.push(char::from_u32(u32::from_str_radix(&s, 8).ok()?)?);
            }
            _ => return None,
        }
    }
    Some(out)
}

/// Value of a char constant such as `'a'` or `'\n'`.
pub(crate) fn unquote_char(q: &str) -> Option<i64> {
    char_constant(q).ok()
}

/// The value of character constant `q` (quotes included), as Go's parser
/// reads it (`strconv.UnquoteChar` of what follows the opening quote,
/// which must leave only the closing one); else its error: "invalid
/// syntax" for a bad or missing character, "malformed character
/// constant" for more than one.
fn char_constant(q: &str) -> Result<i64, String> {
    let syntax = || "invalid syntax".to_string();
    let s = &q[1..];
    let c = s.chars().next().ok_or_else(syntax)?;
    let (value, used) = match c {
        '\'' => return Err(syntax()),
        '\\' => {
            let b = s.as_bytes();
            let e = *b.get(1).ok_or_else(syntax)?;
            let digits = |n: usize, radix: u32| -> Result<u32, String> {
                let d = s.get(2..2 + n).ok_or_else(syntax)?;
                if !d.bytes().all(|c| (c as char).is_digit(radix)) {
                    return Err(syntax());
                }
                u32::from_str_radix(d, radix).map_err(|_| syntax())
            };
            match e {
                b'a' => (7, 2),
                b'b' => (8, 2),
                b'f' => (12, 2),
                b'n' => (10, 2),
                b'r' => (13, 2),
                b't' => (9, 2),
                b'v' => (11, 2),
                b'\\' => (92, 2),
                b'\'' => (39, 2),
                b'x' => (digits(2, 16)?, 4),
                b'u' | b'U' => {
                    let n = if e == b'u' { 4 } else { 8 };
                    let v = digits(n, 16)?;
                    char::from_u32(v).ok_or_else(syntax)?;
                    (v, 2 + n)
                }
                b'0'..=b'7' => {
                    let d = s.get(1..4).ok_or_else(syntax)?;
                    if !d.bytes().all(|c| (b'0'..=b'7').contains(&c)) {
                        return Err(syntax());
                    }
                    let v = u32::from_str_radix(d, 8).map_err(|_| syntax())?;
                    if v > 255 {
                        return Err(syntax());
                    }
                    (v, 4)
                }
                _ => return Err(syntax()),
            }
        }
        c => (c as u32, c.len_utf8()),
    };
    if &s[used..] != "'" {
        return Err(format!("malformed character constant: {q}"));
    }
    Ok(i64::from(value))
}

// ---------------------------------------------------------------- AST

/// A byte range of the parsed text: the names and literals of the tree
/// are ranges of the text it was parsed from (kept once, by the tree), not
/// strings of their own. Texts are far below 4 GiB ([`parse_with`] refuses
/// larger ones).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Span {
    start: u32,
    end: u32,
}

impl Span {
    fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    /// Where it starts in the text.
    pub fn start(self) -> usize {
        self.start as usize
    }

    /// Its text in `src`, the text the tree was parsed from.
    pub fn of(self, src: &str) -> &str {
        &src[self.start as usize..self.end as usize]
    }

    pub fn is_empty(self) -> bool {
        self.start == self.end
    }
}

/// A chain of field names as written, each after its dot (`.a.b`): one
/// range for the chain (the fields of an operand are adjacent in the
/// source), not one a name.
#[derive(Debug, Clone, Copy, Default)]
pub struct Fields(Span);

impl Fields {
    /// The names, in order, each with whether it is the last one (`src`:
    /// the text the tree was parsed from).
    pub fn names(self, src: &str) -> impl Iterator<Item = (&str, bool)> {
        // Names are short: a byte loop finds the next dot sooner than a
        // searcher is set up.
        let s = self.0.of(src);
        let mut at = 1;
        std::iter::from_fn(move || {
            let rest = s.get(at..).filter(|r| !r.is_empty())?;
            let n = rest.bytes().position(|b| b == b'.').unwrap_or(rest.len());
            at += n + 1;
            Some((&rest[..n], at > s.len()))
        })
    }

    pub fn is_empty(self) -> bool {
        self.0.is_empty()
    }
}

/// An operand of a command.
#[derive(Debug, Clone)]
pub enum Arg {
    Field {
        pos: usize,
        names: Fields,
    },
    Var {
        pos: usize,
        name: Span,
        fields: Fields,
    },
    Dot(usize),
    Nil(usize),
    Bool(usize, bool),
    Number {
        pos: usize,
        text: Span,
        /// Its value, computed once when parsed.
        value: super::Value,
    },
    Str {
        pos: usize,
        /// The literal as written, quotes included.
        quoted: Span,
        /// The value when it differs from the text between the quotes
        /// (escapes): most literals need no string of their own.
        unquoted: Option<Box<str>>,
    },
    Ident {
        pos: usize,
        name: Span,
    },
    Pipe(Box<Pipe>),
    Chain {
        pos: usize,
        node: Box<Arg>,
        fields: Fields,
    },
}

/// The value of a string literal of the tree ([`Arg::Str`]; `src`: the
/// text the tree was parsed from).
pub fn str_literal<'s>(src: &'s str, quoted: Span, unquoted: &'s Option<Box<str>>) -> &'s str {
    match unquoted {
        Some(u) => u,
        None => {
            let q = quoted.of(src);
            &q[1..q.len() - 1]
        }
    }
}

impl Arg {
    pub fn pos(&self) -> usize {
        match self {
            Arg::Field { pos, .. }
            | Arg::Var { pos, .. }
            | Arg::Dot(pos)
            | Arg::Nil(pos)
            | Arg::Bool(pos, _)
            | Arg::Number { pos, .. }
            | Arg::Str { pos, .. }
            | Arg::Ident { pos, .. }
            | Arg::Chain { pos, .. } => *pos,
            Arg::Pipe(p) => p.pos,
        }
    }
}

/// A node of the tree shown as Go prints it (`String()`), with the text
/// the tree was parsed from.
pub struct Show<'a, T: ?Sized>(pub &'a T, pub &'a str);

/// What prints as Go prints it, given the parsed text.
pub trait Shown {
    fn show<'a>(&'a self, src: &'a str) -> Show<'a, Self> {
        Show(self, src)
    }
}

impl Shown for Arg {}
impl Shown for Command {}
impl Shown for Pipe {}
impl Shown for TemplateCall {}

impl std::fmt::Display for Show<'_, Arg> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let src = self.1;
        match self.0 {
            Arg::Field { names, .. } => f.write_str(names.0.of(src)),
            Arg::Var { name, fields, .. } => {
                f.write_str(name.of(src))?;
                f.write_str(fields.0.of(src))
            }
            Arg::Dot(_) => write!(f, "."),
            Arg::Nil(_) => write!(f, "nil"),
            Arg::Bool(_, b) => write!(f, "{b}"),
            Arg::Number { text, .. } => f.write_str(text.of(src)),
            Arg::Str { quoted, .. } => f.write_str(quoted.of(src)),
            Arg::Ident { name, .. } => f.write_str(name.of(src)),
            Arg::Pipe(p) => write!(f, "{}", p.show(src)),
            Arg::Chain { node, fields, .. } => {
                match node.as_ref() {
                    Arg::Pipe(p) => write!(f, "({})", p.show(src))?,
                    n => write!(f, "{}", n.show(src))?,
                }
                f.write_str(fields.0.of(src))
            }
        }
    }
}

#[derive(Debug, Clone)]
pub struct Command {
    pub pos: usize,
    pub args: Vec<Arg>,
}

impl std::fmt::Display for Show<'_, Command> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, a) in self.0.args.iter().enumerate() {
            if i > 0 {
                write!(f, " ")?;
            }
            match a {
                Arg::Pipe(p) => write!(f, "({})", p.show(self.1))?,
                a => write!(f, "{}", a.show(self.1))?,
            }
        }
        Ok(())
    }
}

#[derive(Debug, Clone)]
pub struct Pipe {
    pub pos: usize,
    /// The variables declared or assigned (`range` has at most two).
    decl: [Span; 2],
    ndecl: u8,
    pub is_assign: bool,
    pub cmds: Vec<Command>,
}

impl Pipe {
    /// The variables it declares or assigns, each a range of the text.
    pub fn decl(&self) -> &[Span] {
        &self.decl[..self.ndecl as usize]
    }

    fn push_decl(&mut self, v: Span) {
        self.decl[self.ndecl as usize] = v;
        self.ndecl += 1;
    }
}

impl std::fmt::Display for Show<'_, Pipe> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (p, src) = (self.0, self.1);
        if !p.decl().is_empty() {
            for (i, d) in p.decl().iter().enumerate() {
                if i > 0 {
                    write!(f, ", ")?;
                }
                f.write_str(d.of(src))?;
            }
            write!(f, "{}", if p.is_assign { " = " } else { " := " })?;
        }
        for (i, c) in p.cmds.iter().enumerate() {
            if i > 0 {
                write!(f, " | ")?;
            }
            write!(f, "{}", c.show(src))?;
        }
        Ok(())
    }
}

#[derive(Debug, Clone)]
pub struct TemplateCall {
    pub pos: usize,
    pub name: String,
    pub pipe: Option<Pipe>,
}

impl std::fmt::Display for Show<'_, TemplateCall> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = super::value::go_quote(&self.0.name);
        match &self.0.pipe {
            Some(p) => write!(f, "{{{{template {name} {}}}}}", p.show(self.1)),
            None => write!(f, "{{{{template {name}}}}}"),
        }
    }
}

#[derive(Debug, Clone)]
pub enum Node {
    /// Text between actions: its byte range in the parsed source (a
    /// template's text is kept once, by its tree, not copied per node).
    Text(usize, usize),
    Action(Pipe),
    // The larger nodes are boxed: every node of a list is as large as the
    // largest kind, and texts and actions, the most of them, are small.
    If(Box<Control>),
    With(Box<Control>),
    Range(Box<Control>),
    Template(Box<TemplateCall>),
    Break,
    Continue,
}

/// An `if`, `with` or `range`: its pipeline, the list it runs and the list
/// after `else`.
#[derive(Debug, Clone)]
pub struct Control {
    pub pipe: Pipe,
    pub list: Vec<Node>,
    pub else_list: Vec<Node>,
}

/// The result of parsing one text: its main body and the templates it defines.
pub struct Parsed {
    pub root: Vec<Node>,
    pub defines: Vec<(String, Vec<Node>)>,
}

/// A parse step's result: the error boxed, so that results stay small
/// (they are moved up the whole descent).
type PResult<T> = Result<T, Box<Error>>;

struct Parser<'a> {
    name: &'a str,
    src: &'a str,
    toks: Vec<Token>,
    /// The error the lexer stopped at (the place of the [`Tok::Error`]
    /// token): reported when the parser reaches that token.
    lex_error: Option<Error>,
    /// The line of the `{{` of the action being parsed, as Go's
    /// `Tree.actionLine`: set at each action read as text or action, 0
    /// once it is parsed (the body of a control structure, after its
    /// first inner action, and a `define`'s header have none).
    action_line: usize,
    i: usize,
    /// The variables in scope (names borrowed from the source).
    vars: Vec<&'a str>,
    range_depth: usize,
    /// Open control structures (`if`, `with`, `range`, `block`, each
    /// `else if`) and parentheses around the current token.
    nesting: usize,
    /// Whether a function of this name is defined.
    funcs: &'a dyn Fn(&str) -> bool,
    defines: Vec<(String, Vec<Node>)>,
    /// Nodes, commands and arguments being parsed, on stacks shared by
    /// every level: a list (or pipeline, or command) pushes from the end
    /// and takes its own part off when complete, into a vector of exactly
    /// its size. (Vectors grown item by item took half again the memory
    /// of a chart's templates, and touching memory is costly.)
    node_buf: Vec<Node>,
    cmd_buf: Vec<Command>,
    arg_buf: Vec<Arg>,
}

enum End {
    End,
    Else(usize),
}

/// Deepest nesting of control structures (`if`, `with`, `range`,
/// `block`, each `else if` counting as one more) and parentheses, together.
/// Parsing, executing and dropping a template recurse once per level; Go
/// caps parentheses at 10000 on a stack that grows, a native stack needs
/// a lower limit.
pub const MAX_NESTING: usize = 100;

/// Parses `text` (named `name` in errors). `funcs` is the set of defined
/// function names: calling any other is a parse error, as in Go.
pub fn parse(name: &str, text: &str, funcs: &HashSet<String>) -> Result<Parsed, Error> {
    parse_with(name, text, &|f: &str| funcs.contains(f))
}

/// [`parse`] with the function names given as a predicate (no set to build).
pub fn parse_with(name: &str, text: &str, funcs: &dyn Fn(&str) -> bool) -> Result<Parsed, Error> {
    parse_delimited(name, text, funcs, Delims::Braces)
}

/// [`parse_with`] for actions between other delimiters.
pub fn parse_delimited(
    name: &str,
    text: &str,
    funcs: &dyn Fn(&str) -> bool,
    delims: Delims,
) -> Result<Parsed, Error> {
    // The tree holds ranges of the text as 32-bit offsets.
    if u32::try_from(text.len()).is_err() {
        return Err(Error::parse(name, 1, "template text too large".into()));
    }
    // About a dozen tokens an action: room for them at once, not by
    // doubling. An action opens with two braces: counting braces (a quick
    // count) sizes the tokens as well as finding each `{{` would.
    let braces = memchr::memchr_iter(delims.open(), text.as_bytes()).count();
    let mut toks = TOKENS.with(Cell::take);
    toks.reserve(braces * 6 + 2);
    let (toks, lex_error) = match delims {
        Delims::Braces => Lexer::<b'{', b'}'>::new(text, name, toks).run(),
        Delims::Angles => Lexer::<b'<', b'>'>::new(text, name, toks).run(),
    };
    let mut p = Parser {
        name,
        src: text,
        toks,
        lex_error,
        action_line: 0,
        i: 0,
        vars: vec!["$"],
        range_depth: 0,
        nesting: 0,
        funcs,
        defines: Vec::new(),
        node_buf: NODE_BUF.with(Cell::take),
        cmd_buf: CMD_BUF.with(Cell::take),
        arg_buf: ARG_BUF.with(Cell::take),
    };
    let root = p.root().map_err(|e| *e);
    keep(&TOKENS, std::mem::take(&mut p.toks));
    keep(&NODE_BUF, std::mem::take(&mut p.node_buf));
    keep(&CMD_BUF, std::mem::take(&mut p.cmd_buf));
    keep(&ARG_BUF, std::mem::take(&mut p.arg_buf));
    Ok(Parsed {
        root: root?,
        defines: p.defines,
    })
}

thread_local! {
    /// The token vector of the last text parsed on this thread, empty,
    /// for the next: a chart's templates are parsed one after the other,
    /// and a vector of each one's size, new each time, would be fresh
    /// memory touched for every template (a tenth of a large chart's page
    /// faults).
    static TOKENS: Cell<Vec<Token>> = const { Cell::new(Vec::new()) };
}

/// The most items of a vector kept for the next parse (16 MiB of tokens).
const MAX_KEPT: usize = 1 << 20;

thread_local! {
    // The parser's stacks, kept for the next parse as the tokens are.
    static NODE_BUF: Cell<Vec<Node>> = const { Cell::new(Vec::new()) };
    static CMD_BUF: Cell<Vec<Command>> = const { Cell::new(Vec::new()) };
    static ARG_BUF: Cell<Vec<Arg>> = const { Cell::new(Vec::new()) };
}

/// Keeps a parser stack, emptied, for the next parse on this thread.
fn keep<T: 'static>(slot: &'static std::thread::LocalKey<Cell<Vec<T>>>, mut v: Vec<T>) {
    if v.capacity() <= MAX_KEPT {
        v.clear();
        slot.with(|s| s.set(v));
    }
}

impl Parser<'_> {
    /// The nodes of the text's own template (its `define`s go aside).
    fn root(&mut self) -> PResult<Vec<Node>> {
        let p = self;
        let mut root = Vec::new();
        loop {
            match p.peek().tok {
                Tok::Eof => break,
                Tok::LeftDelim => {
                    let save = p.i;
                    p.next();
                    if matches!(p.peek().tok, Tok::Keyword(Kw::Define)) {
                        p.next();
                        p.parse_define()?;
                        continue;
                    }
                    p.i = save;
                }
                _ => {}
            }
            match p.text_or_action()? {
                Ok(node) => root.push(node),
                Err((tok, _)) => {
                    return Err(p.err_at(&tok, format!("unexpected {}", end_name(&tok, p.src))));
                }
            }
        }
        Ok(root)
    }
}

/// Go's `parse.IsEmptyTree`: only whitespace text (`src`: the text the
/// list was parsed from).
pub fn is_empty_tree(list: &[Node], src: &str) -> bool {
    list.iter()
        .all(|n| matches!(n, Node::Text(a, b) if src[*a..*b].trim().is_empty()))
}

fn end_name(t: &Token, src: &str) -> String {
    match t.tok {
        Tok::Keyword(Kw::End) => "{{end}}".into(),
        Tok::Keyword(Kw::Else) => "{{else}}".into(),
        _ => t.describe(src),
    }
}

impl<'a> Parser<'a> {
    /// The error of a parse that stopped at token `t`. At the lexer's
    /// error token, the lexer's error (Go's `unexpected` of an error
    /// item): its message, and where the action started when that is
    /// another line.
    ///
    /// Only where Go reports the token as unexpected (the messages
    /// "unexpected ..."): its other errors at a token it has only peeked
    /// at ("range can only initialize variables") stay as they are.
    fn err_at(&self, t: &Token, msg: String) -> Box<Error> {
        if let (Tok::Error, Some(e), true) =
            (t.tok, &self.lex_error, msg.starts_with("unexpected "))
        {
            let mut e = e.clone();
            if self.action_line != 0 && self.action_line != e.line {
                let started = format!(" started at {}:{}", self.name, self.action_line);
                if !e.message.ends_with(" action") {
                    e.message.push_str(" in action");
                }
                e.message.push_str(&started);
            }
            return Box::new(e);
        }
        Box::new(Error::parse(self.name, t.line(), msg))
    }

    /// The value of string literal `t`; "invalid syntax" (Go's
    /// `strconv.Unquote`) when its escapes do not unquote.
    fn string(&self, t: &Token) -> PResult<Cow<'a, str>> {
        str_value(self.text(t)).ok_or_else(|| self.err_at(t, "invalid syntax".into()))
    }

    /// The range of token `t`.
    fn span(&self, t: &Token) -> Span {
        Span::new(t.pos(), t.end())
    }

    /// The text of token `t`.
    fn text(&self, t: &Token) -> &'a str {
        t.text(self.src)
    }

    fn peek(&self) -> &Token {
        // `next` stops at the final EOF token: the index stays in bounds.
        &self.toks[self.i]
    }

    fn next(&mut self) -> Token {
        let t = *self.peek();
        if self.i < self.toks.len() - 1 {
            self.i += 1;
        }
        t
    }

    /// The line where the spaces before the next token start (its own
    /// line when none come before it).
    fn space_line(&self) -> usize {
        let t = self.peek();
        if !t.sp {
            return t.line();
        }
        // No token of an action ends with a space: the spaces run back
        // to the token before.
        let b = &self.src.as_bytes()[..t.pos()];
        let run = b.iter().rev().take_while(|c| is_space(**c)).count();
        t.line() - newlines(&b[b.len() - run..])
    }

    fn expect(&mut self, want: Tok, context: &str) -> PResult<Token> {
        let t = self.next();
        if t.tok != want {
            return Err(self.err_at(
                &t,
                format!("unexpected {} in {context}", t.describe(self.src)),
            ));
        }
        Ok(t)
    }

    /// One text or action node. `Ok(Err(token, else_pos))` reports an
    /// `{{end}}` or `{{else}}` to the enclosing list.
    #[allow(clippy::type_complexity)]
    fn text_or_action(&mut self) -> PResult<Result<Node, (Token, End)>> {
        let t = self.next();
        match t.tok {
            Tok::Text => Ok(Ok(Node::Text(t.pos(), t.end()))),
            Tok::LeftDelim => {
                self.action_line = t.line();
                let node = self.action();
                self.action_line = 0;
                node
            }
            Tok::Eof => Err(self.err_at(&t, "unexpected EOF".into())),
            _ => Err(self.err_at(&t, format!("unexpected {}", t.describe(self.src)))),
        }
    }

    #[allow(clippy::type_complexity)]
    fn action(&mut self) -> PResult<Result<Node, (Token, End)>> {
        let t = *self.peek();
        match t.tok {
            Tok::Keyword(Kw::If) => {
                self.next();
                self.control("if").map(|(pipe, list, else_list)| {
                    Ok(Node::If(Box::new(Control {
                        pipe,
                        list,
                        else_list,
                    })))
                })
            }
            Tok::Keyword(Kw::With) => {
                self.next();
                self.control("with").map(|(pipe, list, else_list)| {
                    Ok(Node::With(Box::new(Control {
                        pipe,
                        list,
                        else_list,
                    })))
                })
            }
            Tok::Keyword(Kw::Range) => {
                self.next();
                self.range_depth += 1;
                let r = self.control("range");
                self.range_depth -= 1;
                r.map(|(pipe, list, else_list)| {
                    Ok(Node::Range(Box::new(Control {
                        pipe,
                        list,
                        else_list,
                    })))
                })
            }
            Tok::Keyword(Kw::End) => {
                self.next();
                self.expect(Tok::RightDelim, "end")?;
                Ok(Err((t, End::End)))
            }
            Tok::Keyword(Kw::Else) => {
                self.next();
                let n = *self.peek();
                if matches!(n.tok, Tok::Keyword(Kw::If) | Tok::Keyword(Kw::With)) {
                    // `{{else if}}`: the caller parses the rest as a nested control.
                    return Ok(Err((t, End::Else(self.i))));
                }
                self.expect(Tok::RightDelim, "else")?;
                Ok(Err((t, End::Else(0))))
            }
            Tok::Keyword(kw @ (Kw::Break | Kw::Continue)) => {
                let k = kw.name();
                self.next();
                let n = self.next();
                if !matches!(n.tok, Tok::RightDelim) {
                    return Err(self.err_at(
                        &n,
                        format!("unexpected {} in {{{{{k}}}}}", n.describe(self.src)),
                    ));
                }
                if self.range_depth == 0 {
                    return Err(self.err_at(&t, format!("{{{{{k}}}}} outside {{{{range}}}}")));
                }
                Ok(Ok(if kw == Kw::Break {
                    Node::Break
                } else {
                    Node::Continue
                }))
            }
            Tok::Keyword(Kw::Template) => {
                self.next();
                self.template_call("template")
                    .map(|c| Ok(Node::Template(Box::new(c))))
            }
            Tok::Keyword(Kw::Block) => {
                self.next();
                let call = self.template_call("block")?;
                let saved = std::mem::replace(&mut self.vars, vec!["$"]);
                self.enter()?;
                let listed = self.list();
                self.nesting -= 1;
                let (list, end) = listed?;
                self.vars = saved;
                if let End::Else(_) = end {
                    return Err(self.err_at(&t, "unexpected {{else}}".into()));
                }
                self.add_define(call.name.clone(), list, &t)?;
                Ok(Ok(Node::Template(Box::new(call))))
            }
            Tok::Keyword(Kw::Define) => {
                Err(self.err_at(&t, "unexpected <define> in command".into()))
            }
            _ => {
                let pipe = self.pipeline("command", Tok::RightDelim)?;
                Ok(Ok(Node::Action(pipe)))
            }
        }
    }

    fn template_call(&mut self, context: &str) -> PResult<TemplateCall> {
        let t = self.next();
        let name = match &t.tok {
            Tok::Str => self.string(&t)?.into_owned(),
            _ => {
                return Err(self.err_at(
                    &t,
                    format!("unexpected {} in {context} clause", t.describe(self.src)),
                ));
            }
        };
        let n = *self.peek();
        let pipe = if matches!(n.tok, Tok::RightDelim) {
            self.next();
            None
        } else {
            Some(self.pipeline(context, Tok::RightDelim)?)
        };
        Ok(TemplateCall {
            pos: t.pos(),
            name,
            pipe,
        })
    }

    fn parse_define(&mut self) -> PResult<()> {
        let t = self.next();
        let name = match &t.tok {
            Tok::Str => self.string(&t)?.into_owned(),
            _ => {
                return Err(self.err_at(
                    &t,
                    format!("unexpected {} in define clause", t.describe(self.src)),
                ));
            }
        };
        self.expect(Tok::RightDelim, "define clause")?;
        let saved = std::mem::replace(&mut self.vars, vec!["$"]);
        let (list, end) = self.list()?;
        self.vars = saved;
        if let End::Else(_) = end {
            return Err(self.err_at(&t, "unexpected {{else}}".into()));
        }
        let end_tok = self.toks[self.i.saturating_sub(1)];
        self.add_define(name, list, &end_tok)
    }

    /// Records a definition; a second non-empty one of the same name in
    /// one text is an error, an empty one never replaces a definition.
    fn add_define(&mut self, name: String, list: Vec<Node>, at: &Token) -> PResult<()> {
        if let Some(slot) = self.defines.iter_mut().find(|(n, _)| *n == name) {
            if is_empty_tree(&slot.1, self.src) {
                slot.1 = list;
            } else if !is_empty_tree(&list, self.src) {
                return Err(self.err_at(
                    at,
                    format!("template: multiple definition of template {name:?}"),
                ));
            }
            return Ok(());
        }
        self.defines.push((name, list));
        Ok(())
    }

    /// Nodes up to `{{end}}` or `{{else}}`.
    fn list(&mut self) -> PResult<(Vec<Node>, End)> {
        let base = self.node_buf.len();
        loop {
            if matches!(self.peek().tok, Tok::LeftDelim) {
                let save = self.i;
                self.next();
                if matches!(self.peek().tok, Tok::Keyword(Kw::Define)) {
                    let t = *self.peek();
                    return Err(self.err_at(&t, "unexpected <define> in command".into()));
                }
                self.i = save;
            }
            match self.text_or_action()? {
                Ok(n) => self.node_buf.push(n),
                Err((_, end)) => return Ok((self.node_buf.split_off(base), end)),
            }
        }
    }

    #[allow(clippy::type_complexity)]
    fn control(&mut self, context: &str) -> PResult<(Pipe, Vec<Node>, Vec<Node>)> {
        self.enter()?;
        let r = self.control_body(context);
        self.nesting -= 1;
        r
    }

    /// One level deeper, unless that passes [`MAX_NESTING`].
    fn enter(&mut self) -> PResult<()> {
        if self.nesting >= MAX_NESTING {
            return Err(Box::new(Error::parse(
                self.name,
                self.space_line(),
                format!(
                    "actions and parentheses nest deeper than the limit of {MAX_NESTING} levels"
                ),
            )));
        }
        self.nesting += 1;
        Ok(())
    }

    #[allow(clippy::type_complexity)]
    fn control_body(&mut self, context: &str) -> PResult<(Pipe, Vec<Node>, Vec<Node>)> {
        let mark = self.vars.len();
        let pipe = self.pipeline(context, Tok::RightDelim)?;
        let (list, end) = self.list()?;
        let else_list = match end {
            End::End => Vec::new(),
            End::Else(0) => {
                let (l, e) = self.list()?;
                if let End::Else(_) = e {
                    let t = *self.peek();
                    return Err(self.err_at(&t, "expected end; found {{else}}".into()));
                }
                l
            }
            End::Else(_) => {
                // `{{else if ...}}` / `{{else with ...}}`: a nested control that
                // consumes the shared `{{end}}`.
                let kw = self.next();
                let nested = match kw.tok {
                    Tok::Keyword(Kw::If) => self.control("if").map(|(pipe, list, else_list)| {
                        Node::If(Box::new(Control {
                            pipe,
                            list,
                            else_list,
                        }))
                    })?,
                    _ => self.control("with").map(|(pipe, list, else_list)| {
                        Node::With(Box::new(Control {
                            pipe,
                            list,
                            else_list,
                        }))
                    })?,
                };
                vec![nested]
            }
        };
        self.vars.truncate(mark);
        Ok((pipe, list, else_list))
    }

    fn pipeline(&mut self, context: &str, end: Tok) -> PResult<Pipe> {
        let start = *self.peek();
        let mut pipe = Pipe {
            pos: start.pos(),
            decl: [Span::default(); 2],
            ndecl: 0,
            is_assign: false,
            cmds: Vec::new(),
        };
        let base = self.cmd_buf.len();
        // Declarations, as Go's parser reads them: `$x :=` or `$x =`
        // (the variable is in scope from here on, assigned or not: an
        // assignment to an undefined one fails when executed), and in a
        // range, `$i, $x :=`. A variable followed by anything else is the
        // pipeline's first operand.
        loop {
            let v = *self.peek();
            if v.tok != Tok::Var {
                break;
            }
            let save = self.i;
            self.next();
            let after = *self.peek();
            match after.tok {
                Tok::Decl | Tok::Assign => {
                    self.next();
                    pipe.is_assign = matches!(after.tok, Tok::Assign);
                    pipe.push_decl(self.span(&v));
                    self.vars.push(self.text(&v));
                }
                Tok::Comma => {
                    self.next();
                    pipe.push_decl(self.span(&v));
                    self.vars.push(self.text(&v));
                    if context == "range" && pipe.ndecl < 2 {
                        let n = *self.peek();
                        if matches!(n.tok, Tok::Var | Tok::RightDelim | Tok::RParen) {
                            continue;
                        }
                        return Err(self.err_at(&n, "range can only initialize variables".into()));
                    }
                    return Err(self.err_at(&after, format!("too many declarations in {context}")));
                }
                _ => self.i = save,
            }
            break;
        }
        loop {
            let t = self.next();
            if t.tok == end {
                if self.cmd_buf.len() == base {
                    return Err(self.err_at(&t, format!("missing value for {context}")));
                }
                for (i, c) in self.cmd_buf[base..].iter().enumerate().skip(1) {
                    if matches!(
                        c.args[0],
                        Arg::Bool(..)
                            | Arg::Dot(_)
                            | Arg::Nil(_)
                            | Arg::Number { .. }
                            | Arg::Str { .. }
                    ) {
                        return Err(self.err_at(
                            &t,
                            format!("non executable command in pipeline stage {}", i + 1),
                        ));
                    }
                }
                pipe.cmds = self.cmd_buf.split_off(base);
                return Ok(pipe);
            }
            match t.tok {
                Tok::Bool(_)
                | Tok::Char
                | Tok::Dot
                | Tok::Field
                | Tok::Ident
                | Tok::Number
                | Tok::Nil
                | Tok::Str
                | Tok::Var
                | Tok::LParen => {
                    self.i -= 1;
                    let c = self.command()?;
                    self.cmd_buf.push(c);
                }
                _ => {
                    return Err(self.err_at(
                        &t,
                        format!("unexpected {} in {context}", t.describe(self.src)),
                    ));
                }
            }
        }
    }

    fn command(&mut self) -> PResult<Command> {
        let pos = self.peek().pos();
        let base = self.arg_buf.len();
        loop {
            if let Some(a) = self.operand()? {
                self.arg_buf.push(a);
                // Spaces after an operand: another may follow.
                if self.peek().sp {
                    continue;
                }
            }
            let t = self.next();
            match t.tok {
                Tok::RightDelim | Tok::RParen => self.i -= 1,
                Tok::Pipe => {}
                _ => {
                    return Err(self.err_at(
                        &t,
                        format!("unexpected {} in operand", t.describe(self.src)),
                    ));
                }
            }
            break;
        }
        if self.arg_buf.len() == base {
            return Err(Box::new(Error::parse(
                self.name,
                self.space_line(),
                "empty command".into(),
            )));
        }
        Ok(Command {
            pos,
            args: self.arg_buf.split_off(base),
        })
    }

    fn operand(&mut self) -> PResult<Option<Arg>> {
        let Some(term) = self.term()? else {
            return Ok(None);
        };
        // Fields right after the term (no spaces between) make a chain.
        let t = self.peek();
        if !matches!(t.tok, Tok::Field) || t.sp {
            return Ok(Some(term));
        }
        let chain_pos = t.pos();
        let mut chain_end = chain_pos;
        while let (Tok::Field, false) = (self.peek().tok, self.peek().sp) {
            chain_end = self.peek().end();
            self.next();
        }
        let fields = |start: usize| Fields(Span::new(start, chain_end));
        Ok(Some(match term {
            // A field term is the first field of the chain, right before it.
            Arg::Field { pos, .. } => Arg::Field {
                pos: chain_pos,
                names: fields(pos),
            },
            // A variable term has no fields yet: they follow it.
            Arg::Var { name, .. } => Arg::Var {
                pos: chain_pos,
                name,
                fields: fields(chain_pos),
            },
            Arg::Bool(..) | Arg::Str { .. } | Arg::Number { .. } | Arg::Nil(_) | Arg::Dot(_) => {
                let t = self.toks[self.i - 1];
                return Err(self.err_at(
                    &t,
                    format!(
                        "unexpected . after term {:?}",
                        term.show(self.src).to_string()
                    ),
                ));
            }
            other => Arg::Chain {
                pos: chain_pos,
                node: Box::new(other),
                fields: fields(chain_pos),
            },
        }))
    }

    fn term(&mut self) -> PResult<Option<Arg>> {
        let t = self.next();
        Ok(Some(match t.tok {
            Tok::Ident => {
                let name = self.text(&t);
                if !(self.funcs)(name) {
                    return Err(self.err_at(&t, format!("function {name:?} not defined")));
                }
                Arg::Ident {
                    pos: t.pos(),
                    name: self.span(&t),
                }
            }
            Tok::Dot => Arg::Dot(t.pos()),
            Tok::Nil => Arg::Nil(t.pos()),
            Tok::Var => {
                let name = self.text(&t);
                if !self.vars.contains(&name) {
                    return Err(self.err_at(&t, format!("undefined variable {name:?}")));
                }
                Arg::Var {
                    pos: t.pos(),
                    name: self.span(&t),
                    fields: Fields::default(),
                }
            }
            Tok::Field => Arg::Field {
                pos: t.pos(),
                names: Fields(self.span(&t)),
            },
            Tok::Bool(b) => Arg::Bool(t.pos(), b),
            Tok::Char => {
                let text = self.text(&t);
                let value = char_constant(text).map_err(|e| self.err_at(&t, e))?;
                Arg::Number {
                    pos: t.pos(),
                    text: self.span(&t),
                    value: super::value::Value::Int(value),
                }
            }
            Tok::Number => {
                let text = self.text(&t);
                let Some(value) = super::exec::number_value(text) else {
                    return Err(self.err_at(&t, format!("illegal number syntax: {text:?}")));
                };
                Arg::Number {
                    pos: t.pos(),
                    text: self.span(&t),
                    value,
                }
            }
            Tok::LParen => {
                self.enter()?;
                let p = self.pipeline("parenthesized pipeline", Tok::RParen);
                self.nesting -= 1;
                let p = p?;
                Arg::Pipe(Box::new(p))
            }
            Tok::Str => Arg::Str {
                pos: t.pos(),
                quoted: self.span(&t),
                unquoted: match self.string(&t)? {
                    Cow::Borrowed(_) => None,
                    Cow::Owned(u) => Some(u.into()),
                },
            },
            _ => {
                self.i -= 1;
                return Ok(None);
            }
        }))
    }
}
