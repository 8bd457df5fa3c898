//! Flux post-build variable substitution (`spec.postBuild.substitute`).
//!
//! This is a behavioural re-implementation of `github.com/fluxcd/pkg/envsubst`
//! (Flux's fork of `drone/envsubst`), the engine kustomize-controller runs over
//! the YAML of every built resource. It mirrors the fork's scanner, parser and
//! string functions closely, quirks included, because the goal is to produce
//! byte-for-byte what Flux would apply. Notable facts (all checked against the
//! Go sources and tests):
//!
//! * Only `${...}` substitutes; `$VAR` is plain text. Outside expressions
//!   `$$` is a literal `$` everywhere in the document (so `$${VAR}` renders as
//!   `${VAR}` and `$$VAR` as `$VAR`); a lone `$` stays `$`.
//! * Default-style operators are `${V:-w}`, `${V:=w}`, `${V=w}`, `${V:+w}` and
//!   `${V:?w}`, and all five mean the same thing: the value of `V` if it is
//!   non-empty, else `w`. Nothing is ever assigned, `:+` is not "alternate
//!   value" and `:?` never fails. `${V-w}`, `${V+w}`, `${V?w}` are parse errors.
//! * `${#V}` is the length of the value in bytes; `${V:off}` / `${V:off:len}`
//!   count bytes too. The default word of `:-`-style operators may mix text and
//!   nested `${...}`; every other argument is either plain text or exactly one
//!   nested `${...}`.
//! * `${V#p}`, `${V##p}`, `${V%p}`, `${V%%p}` use the fork's modified
//!   `path.Match` glob, in which `*` and `?` *do* match `/`. `${V/p/r}` and
//!   friends replace literal text, not globs.
//! * `${V^}`, `${V^^}`, `${V,}`, `${V,,}` use Go's simple (one rune to one
//!   rune) Unicode case mapping.
//! * In strict mode a reference to an unset variable is an error unless it is
//!   under a default-style operator; nested expressions are always evaluated,
//!   even inside a default that ends up unused.
//! * A NUL character ends the input: Go's scanner uses rune 0 as its
//!   end-of-input marker, so everything from the first NUL on is dropped.
//!
//! What the surrounding controller does (the caller's job, not this module's):
//! values have every `\n` removed before use, every variable *name* must pass
//! [`is_valid_var_name`], substitution only runs when at least one variable is
//! defined (unless the Kustomization asks for it always), and resources
//! labelled or annotated `kustomize.toolkit.fluxcd.io/substitute: disabled`
//! are left alone.

use std::collections::HashSet;
use std::fmt;

/// Result of substituting one text.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Substituted {
    /// The substituted text.
    pub text: String,
    /// Names of variables referenced but not set, in first-seen order,
    /// deduplicated. A name is listed whenever `lookup` returned `None` for a
    /// reference that was evaluated, except references under a
    /// default-style operator such as `${NAME:=default}`, which take their
    /// default (the references a strict build would reject). Arguments are
    /// evaluated before the variable that owns them, as Flux does, so in
    /// `${A:-${B}}` the name `B` is seen before `A`.
    pub unset: Vec<String>,
}

/// A parse or evaluation failure; `message` says what and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubstError {
    pub message: String,
}

impl SubstError {
    fn new(message: impl Into<String>) -> Self {
        SubstError {
            message: message.into(),
        }
    }
}

impl fmt::Display for SubstError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SubstError {}

/// Substitute `${...}` expressions in `input` using `lookup`. With `strict`, a
/// reference to an unset variable (without a default) is an error naming the
/// variable, like Flux's StrictPostBuildSubstitutions; otherwise it becomes "".
///
/// The whole input is parsed before anything is evaluated, so a syntax error
/// anywhere fails the whole text (as it fails the whole resource in Flux) and
/// no lookups happen in that case.
pub fn substitute(
    input: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
    strict: bool,
) -> Result<Substituted, SubstError> {
    if !input.bytes().any(|b| b == b'$' || b == 0) {
        return Ok(Substituted {
            text: input.to_owned(),
            unset: Vec::new(),
        });
    }
    let nodes = Parser::new(input).parse()?;
    let mut evaluator = Evaluator {
        lookup,
        strict,
        unset: Vec::new(),
        seen: HashSet::new(),
    };
    let mut out = Vec::with_capacity(input.len());
    for node in &nodes {
        evaluator.eval(node, &mut out)?;
    }
    let text = String::from_utf8(out).map_err(|_| {
        SubstError::new(
            "substitution produced invalid UTF-8: a byte-based operation \
             (${VAR:offset:length}, ${VAR#pattern} and the like) split a \
             multi-byte character",
        )
    })?;
    Ok(Substituted {
        text,
        unset: evaluator.unset,
    })
}

/// Flux's rule for valid variable names (the regex in kustomize_varsub.go):
/// `^[_[:alpha:]][_[:alpha:][:digit:]]*$`, where the POSIX classes are ASCII
/// only and `$` matches only at the very end.
pub fn is_valid_var_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    match bytes.next() {
        Some(b) if b == b'_' || b.is_ascii_alphabetic() => {}
        _ => return false,
    }
    bytes.all(|b| b == b'_' || b.is_ascii_alphanumeric())
}

// ---------------------------------------------------------------------------
// Syntax tree
// ---------------------------------------------------------------------------

/// A piece of parsed input. Text is kept as bytes because evaluation works on
/// bytes, like Go strings do.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Node {
    Text(Vec<u8>),
    Func(FuncNode),
}

/// `${param<op>args...}`; `op` is empty for a plain `${param}`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FuncNode {
    param: String,
    op: String,
    args: Vec<Node>,
}

// ---------------------------------------------------------------------------
// Scanner
// ---------------------------------------------------------------------------

/// Returned by `read` at the end of input and, as in Go, for a NUL character.
const EOF: char = '\0';
const REPLACEMENT: char = '\u{FFFD}';

// Scanner mode bits.
const SCAN_IDENT: u8 = 1;
const SCAN_LBRACK: u8 = 2;
const SCAN_RBRACK: u8 = 4;
const SCAN_ESCAPE: u8 = 8;

// Escape-character bits.
const ESCAPE_DOLLAR: u8 = 1;
const ESCAPE_BACKSLASH: u8 = 2;
const ESCAPE_ALL: u8 = ESCAPE_DOLLAR | ESCAPE_BACKSLASH;

/// Nesting deeper than this is rejected (Go has no limit; this keeps the
/// recursive parser and evaluator well inside the stack).
const MAX_NESTING: usize = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    Illegal,
    Eof,
    Ident,
    Lbrack,
    Rbrack,
}

/// Decides whether rune `r` at 1-based token index `i` belongs to the token.
type Accept = fn(char, usize) -> bool;

/// The fork's scanner. Go deletes an escape character from its buffer when it
/// meets one; here the input stays untouched and the escape character's offset
/// is remembered instead (the escaped character, always ASCII, is consumed
/// with it), which yields the same tokens without quadratic copying.
struct Scanner<'a> {
    buf: &'a [u8],
    pos: usize,
    start: usize,
    width: usize,
    mode: u8,
    escape: u8,
    accept: Accept,
    /// Offsets of escape characters dropped from the current token.
    dropped: Vec<usize>,
}

impl<'a> Scanner<'a> {
    fn read(&mut self) -> char {
        if self.pos >= self.buf.len() {
            self.width = 0;
            return EOF;
        }
        let (r, w) = decode_rune(&self.buf[self.pos..]);
        self.width = w;
        self.pos += w;
        r
    }

    /// Steps back by the width of the last read. Like Go, this uses whatever
    /// width the last `read` (possibly a `peek`) recorded.
    fn unread(&mut self) {
        self.pos = self.pos.saturating_sub(self.width);
    }

    fn peek(&mut self) -> char {
        let r = self.read();
        self.unread();
        r
    }

    /// Drops the escape character just read and takes the next character
    /// literally.
    fn skip(&mut self) {
        self.dropped.push(self.pos - 1);
        self.pos += 1;
    }

    /// Text of the most recently scanned token.
    fn token(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.pos.saturating_sub(self.start));
        let mut from = self.start;
        for &d in &self.dropped {
            if from <= d && d < self.pos {
                out.extend_from_slice(&self.buf[from..d]);
                from = d + 1;
            }
        }
        if from < self.pos {
            out.extend_from_slice(&self.buf[from..self.pos]);
        }
        out
    }

    fn token_string(&self) -> String {
        String::from_utf8_lossy(&self.token()).into_owned()
    }

    fn scan(&mut self) -> Token {
        self.start = self.pos;
        self.dropped.clear();
        let r = self.read();
        if r == EOF {
            Token::Eof
        } else if self.scan_lbrack(r) {
            Token::Lbrack
        } else if self.scan_rbrack(r) {
            Token::Rbrack
        } else if self.scan_ident(r) {
            Token::Ident
        } else {
            Token::Illegal
        }
    }

    fn index(&self) -> usize {
        (self.pos - self.start).saturating_sub(self.dropped.len())
    }

    fn scan_ident(&mut self, r: char) -> bool {
        if self.mode & SCAN_IDENT == 0 {
            return false;
        }
        if self.scan_escaped(r) {
            self.skip();
        } else if !(self.accept)(r, self.index()) {
            return false;
        }
        loop {
            let r = self.read();
            if r == EOF {
                self.unread();
                break;
            }
            if self.scan_lbrack(r) {
                self.unread();
                self.unread();
                break;
            }
            if self.scan_escaped(r) {
                self.skip();
                continue;
            }
            if !(self.accept)(r, self.index()) {
                self.unread();
                break;
            }
        }
        true
    }

    fn scan_lbrack(&mut self, r: char) -> bool {
        if self.mode & SCAN_LBRACK == 0 || r != '$' {
            return false;
        }
        if self.read() == '{' {
            return true;
        }
        self.unread();
        false
    }

    fn scan_rbrack(&self, r: char) -> bool {
        self.mode & SCAN_RBRACK != 0 && r == '}'
    }

    fn scan_escaped(&mut self, r: char) -> bool {
        if self.mode & SCAN_ESCAPE == 0 {
            return false;
        }
        if r == '$' && self.escape & ESCAPE_DOLLAR != 0 && self.peek() == '$' {
            return true;
        }
        r == '\\' && self.escape & ESCAPE_BACKSLASH != 0 && matches!(self.peek(), '/' | '\\')
    }
}

fn accept_rune(_: char, _: usize) -> bool {
    true
}

/// Go's `unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_'`.
fn accept_ident(r: char, _: usize) -> bool {
    r == '_' || is_go_letter(r) || is_go_digit(r)
}

fn accept_colon(r: char, _: usize) -> bool {
    r == ':'
}

fn accept_one_hash(r: char, i: usize) -> bool {
    r == '#' && i == 1
}

fn accept_not_closing(r: char, _: usize) -> bool {
    r != '}'
}

fn accept_hash_func(r: char, i: usize) -> bool {
    r == '#' && i < 3
}

fn accept_percent_func(r: char, i: usize) -> bool {
    r == '%' && i < 3
}

fn accept_default_func(r: char, i: usize) -> bool {
    (i == 1 && r == ':') || (i == 2 && matches!(r, '=' | '-' | '?' | '+'))
}

fn accept_replace_func(r: char, i: usize) -> bool {
    (i == 1 && r == '/') || (i == 2 && matches!(r, '/' | '#' | '%'))
}

fn accept_one_equal(r: char, i: usize) -> bool {
    i == 1 && r == '='
}

fn accept_one_colon(r: char, i: usize) -> bool {
    i == 1 && r == ':'
}

fn reject_colon_close(r: char, _: usize) -> bool {
    r != ':' && r != '}'
}

fn accept_slash(r: char, _: usize) -> bool {
    r == '/'
}

fn accept_not_slash(r: char, _: usize) -> bool {
    r != '/'
}

fn accept_casing_func(r: char, i: usize) -> bool {
    (r == ',' || r == '^') && i < 3
}

// ---------------------------------------------------------------------------
// Parser
// ---------------------------------------------------------------------------

/// Go's parse error values, which carry no position; the position of the
/// innermost `${` being parsed is attached on the way out.
#[derive(Debug)]
struct ParseError {
    kind: &'static str,
    at: Option<usize>,
}

const BAD_SUBSTITUTION: &str = "bad substitution";
const MISSING_CLOSING_BRACE: &str = "missing closing brace";
const BAD_VARIABLE_NAME: &str = "unable to parse variable name";
const BAD_FUNC_SUBSTITUTION: &str = "unable to parse substitution within function";
const BAD_DEFAULT_FUNCTION: &str = "unable to parse default function";
const TOO_DEEP: &str = "expressions nested too deeply";

fn fail<T>(kind: &'static str) -> Result<T, ParseError> {
    Err(ParseError { kind, at: None })
}

struct Parser<'a> {
    input: &'a str,
    s: Scanner<'a>,
}

impl<'a> Parser<'a> {
    fn new(input: &'a str) -> Self {
        Parser {
            input,
            s: Scanner {
                buf: input.as_bytes(),
                pos: 0,
                start: 0,
                width: 0,
                mode: 0,
                escape: 0,
                accept: accept_rune,
                dropped: Vec::new(),
            },
        }
    }

    fn parse(mut self) -> Result<Vec<Node>, SubstError> {
        let mut nodes = Vec::new();
        loop {
            self.s.accept = accept_rune;
            self.s.mode = SCAN_IDENT | SCAN_LBRACK | SCAN_ESCAPE;
            self.s.escape = ESCAPE_DOLLAR;
            match self.s.scan() {
                Token::Ident => nodes.push(Node::Text(self.s.token())),
                Token::Eof => return Ok(nodes),
                Token::Lbrack => match self.parse_func(1) {
                    Ok(node) => nodes.push(node),
                    Err(err) => return Err(self.describe(err)),
                },
                _ => {
                    let at = self.s.start;
                    return Err(self.describe(ParseError {
                        kind: BAD_SUBSTITUTION,
                        at: Some(at),
                    }));
                }
            }
        }
    }

    /// Turns a parse error into a message quoting the offending expression.
    fn describe(&self, err: ParseError) -> SubstError {
        let at = err.at.unwrap_or(self.s.start).min(self.input.len());
        let at = (0..=at)
            .rev()
            .find(|&i| self.input.is_char_boundary(i))
            .unwrap_or(0);
        let before = &self.input[..at];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
        let rest = &self.input[at..];
        // Quote up to the matching '}', the end of the line, or 80 chars.
        let mut snippet = String::new();
        let mut truncated = false;
        let mut open = 0usize;
        for (n, c) in rest.chars().enumerate() {
            if c == '\n' || c == '\0' {
                break;
            }
            if n == 80 {
                truncated = true;
                break;
            }
            if c == '{' && snippet.ends_with('$') {
                open += 1;
            }
            snippet.push(c);
            if c == '}' {
                open = open.saturating_sub(1);
                if open == 0 {
                    break;
                }
            }
        }
        if truncated {
            snippet.push_str("...");
        }
        SubstError::new(format!(
            "{} in expression {:?} at line {}, column {}",
            err.kind, snippet, line, column
        ))
    }

    /// Called right after `${` has been consumed.
    fn parse_func(&mut self, depth: usize) -> Result<Node, ParseError> {
        let start = self.s.pos.saturating_sub(2);
        let result = if depth > MAX_NESTING {
            fail(TOO_DEEP)
        } else {
            self.parse_func_body(depth)
        };
        result.map_err(|mut err| {
            err.at.get_or_insert(start);
            err
        })
    }

    fn parse_func_body(&mut self, depth: usize) -> Result<Node, ParseError> {
        self.s.escape = ESCAPE_ALL;
        if self.s.peek() == '#' {
            return self.parse_len_func();
        }

        self.s.accept = accept_ident;
        self.s.mode = SCAN_IDENT;
        let name = match self.s.scan() {
            Token::Ident => self.s.token_string(),
            _ => return fail(BAD_VARIABLE_NAME),
        };

        match self.s.peek() {
            ':' => return self.parse_default_or_substr(name, depth),
            '=' => return self.parse_default_func(name, depth),
            ',' | '^' => return self.parse_casing_func(name),
            '/' => return self.parse_replace_func(name, depth),
            '#' => return self.parse_remove_func(name, accept_hash_func, depth),
            '%' => return self.parse_remove_func(name, accept_percent_func, depth),
            _ => {}
        }

        self.s.accept = accept_ident;
        self.s.mode = SCAN_RBRACK;
        match self.s.scan() {
            Token::Rbrack => Ok(func(name, String::new(), Vec::new())),
            _ => fail(MISSING_CLOSING_BRACE),
        }
    }

    /// One function argument: a run of accepted text or one nested `${...}`.
    fn parse_param(&mut self, accept: Accept, mode: u8, depth: usize) -> Result<Node, ParseError> {
        self.s.accept = accept;
        self.s.mode = mode | SCAN_LBRACK;
        match self.s.scan() {
            Token::Lbrack => self.parse_func(depth + 1),
            Token::Ident | Token::Rbrack => Ok(Node::Text(self.s.token())),
            _ => fail(BAD_FUNC_SUBSTITUTION),
        }
    }

    /// Scans an operator token with `accept`.
    fn scan_op(&mut self, accept: Accept, kind: &'static str) -> Result<String, ParseError> {
        self.s.accept = accept;
        self.s.mode = SCAN_IDENT;
        match self.s.scan() {
            Token::Ident => Ok(self.s.token_string()),
            _ => fail(kind),
        }
    }

    fn parse_default_or_substr(&mut self, name: String, depth: usize) -> Result<Node, ParseError> {
        // Go reads the ':', peeks, then unreads with the *peeked* rune's
        // width; a multi-byte rune after ':' therefore rewinds too far and the
        // expression fails to parse. Reproduced on purpose.
        self.s.read();
        let r = self.s.peek();
        self.s.unread();
        match r {
            '=' | '-' | '?' | '+' => self.parse_default_func(name, depth),
            _ => self.parse_substr_func(name, depth),
        }
    }

    /// `${param:offset}` and `${param:offset:length}`.
    fn parse_substr_func(&mut self, name: String, depth: usize) -> Result<Node, ParseError> {
        let op = self.scan_op(accept_one_colon, BAD_SUBSTITUTION)?;
        let mut args = vec![self.parse_param(reject_colon_close, SCAN_IDENT, depth)?];

        self.s.accept = accept_colon;
        self.s.mode = SCAN_IDENT | SCAN_RBRACK;
        match self.s.scan() {
            Token::Rbrack => return Ok(func(name, op, args)),
            Token::Ident => {}
            _ => return fail(BAD_SUBSTITUTION),
        }

        args.push(self.parse_param(accept_not_closing, SCAN_IDENT, depth)?);
        self.consume_rbrack()?;
        Ok(func(name, op, args))
    }

    /// `${param#word}`, `${param##word}`, `${param%word}`, `${param%%word}`.
    fn parse_remove_func(
        &mut self,
        name: String,
        accept: Accept,
        depth: usize,
    ) -> Result<Node, ParseError> {
        let op = self.scan_op(accept, BAD_SUBSTITUTION)?;
        let args = vec![self.parse_param(accept_not_closing, SCAN_IDENT, depth)?];
        self.consume_rbrack()?;
        Ok(func(name, op, args))
    }

    /// `${param/pattern/string}` and the `//`, `/#`, `/%` variants.
    fn parse_replace_func(&mut self, name: String, depth: usize) -> Result<Node, ParseError> {
        let op = self.scan_op(accept_replace_func, BAD_SUBSTITUTION)?;
        let mut args = vec![self.parse_param(accept_not_slash, SCAN_IDENT | SCAN_ESCAPE, depth)?];

        self.scan_op(accept_slash, BAD_SUBSTITUTION)?;
        if self.s.peek() != '}' {
            args.push(self.parse_param(accept_not_closing, SCAN_IDENT | SCAN_ESCAPE, depth)?);
        }
        self.consume_rbrack()?;
        Ok(func(name, op, args))
    }

    /// `${param=word}`, `${param:=word}`, `${param:-word}`, `${param:?word}`,
    /// `${param:+word}`.
    fn parse_default_func(&mut self, name: String, depth: usize) -> Result<Node, ParseError> {
        let accept: Accept = if self.s.peek() == '=' {
            accept_one_equal
        } else {
            accept_default_func
        };
        let op = self.scan_op(accept, BAD_DEFAULT_FUNCTION)?;
        let mut args = Vec::new();
        while self.s.peek() != '}' {
            args.push(self.parse_param(accept_not_closing, SCAN_IDENT, depth)?);
        }
        self.consume_rbrack()?;
        Ok(func(name, op, args))
    }

    /// `${param,}`, `${param,,}`, `${param^}`, `${param^^}`.
    fn parse_casing_func(&mut self, name: String) -> Result<Node, ParseError> {
        let op = self.scan_op(accept_casing_func, BAD_SUBSTITUTION)?;
        self.consume_rbrack()?;
        Ok(func(name, op, Vec::new()))
    }

    /// `${#param}`.
    fn parse_len_func(&mut self) -> Result<Node, ParseError> {
        let op = self.scan_op(accept_one_hash, BAD_SUBSTITUTION)?;
        let name = self.scan_op(accept_ident, BAD_SUBSTITUTION)?;
        self.consume_rbrack()?;
        Ok(func(name, op, Vec::new()))
    }

    fn consume_rbrack(&mut self) -> Result<(), ParseError> {
        self.s.mode = SCAN_RBRACK;
        if self.s.scan() == Token::Rbrack {
            Ok(())
        } else {
            fail(BAD_SUBSTITUTION)
        }
    }
}

fn func(param: String, op: String, args: Vec<Node>) -> Node {
    Node::Func(FuncNode { param, op, args })
}

// ---------------------------------------------------------------------------
// Evaluation
// ---------------------------------------------------------------------------

struct Evaluator<'a> {
    lookup: &'a dyn Fn(&str) -> Option<String>,
    strict: bool,
    unset: Vec<String>,
    seen: HashSet<String>,
}

impl Evaluator<'_> {
    fn eval(&mut self, node: &Node, out: &mut Vec<u8>) -> Result<(), SubstError> {
        match node {
            Node::Text(text) => out.extend_from_slice(text),
            Node::Func(f) => {
                let value = self.eval_func(f)?;
                out.extend_from_slice(&value);
            }
        }
        Ok(())
    }

    fn eval_func(&mut self, f: &FuncNode) -> Result<Vec<u8>, SubstError> {
        // Arguments first, all of them, even when they end up unused.
        let mut args = Vec::with_capacity(f.args.len());
        for arg in &f.args {
            let mut buf = Vec::new();
            self.eval(arg, &mut buf)?;
            args.push(buf);
        }

        let value = match (self.lookup)(&f.param) {
            Some(v) => v.into_bytes(),
            None => {
                // A default-style use is substituted with its default:
                // not unset (kustomize-controller's strict mode accepts it
                // too, fluxcd/pkg/envsubst parse.go `strict` check skips
                // these operators).
                if !is_default_op(&f.op) && self.seen.insert(f.param.clone()) {
                    self.unset.push(f.param.clone());
                }
                if self.strict && !is_default_op(&f.op) {
                    return Err(SubstError::new(format!(
                        "variable not set (strict mode): {:?}",
                        f.param
                    )));
                }
                Vec::new()
            }
        };
        apply(&f.op, &f.param, value, &args)
    }
}

/// Operators that tolerate an unset variable in strict mode. `-`, `+` and `?`
/// are listed by Flux too but cannot be parsed.
fn is_default_op(op: &str) -> bool {
    matches!(op, "-" | "+" | "=" | "?" | ":-" | ":+" | ":=" | ":?")
}

fn apply(op: &str, param: &str, s: Vec<u8>, args: &[Vec<u8>]) -> Result<Vec<u8>, SubstError> {
    let arg = |i: usize| args.get(i).map(Vec::as_slice);
    Ok(match op {
        "," => map_first_rune(&s, go_to_lower),
        ",," => map_runes(&s, go_to_lower),
        "^" => map_first_rune(&s, go_to_upper),
        "^^" => map_runes(&s, go_to_upper),
        "#" if args.is_empty() => s.len().to_string().into_bytes(),
        "#" => trim_prefix(&s, arg(0), false),
        "##" => trim_prefix(&s, arg(0), true),
        "%" => trim_suffix(&s, arg(0), false),
        "%%" => trim_suffix(&s, arg(0), true),
        ":" => return substring(param, s, args),
        "/#" => match args {
            [old, new] if s.starts_with(old) => go_replace(&s, old, new, Some(1)),
            _ => s,
        },
        "/%" => match args {
            [old, new] if s.ends_with(old) => {
                let mut out = s[..s.len() - old.len()].to_vec();
                out.extend_from_slice(new);
                out
            }
            _ => s,
        },
        "/" | "//" => {
            let limit = if op == "/" { Some(1) } else { None };
            match args {
                [] => s,
                [old] => go_replace(&s, old, b"", limit),
                [old, new, ..] => go_replace(&s, old, new, limit),
            }
        }
        // "", "=", ":=", ":-", ":?", ":+" and anything unknown (e.g. "^,").
        _ => {
            if s.is_empty() && !args.is_empty() {
                args.concat()
            } else {
                s
            }
        }
    })
}

/// `${param:offset}` / `${param:offset:length}`, on bytes like Go's `s[i:j]`.
fn substring(param: &str, s: Vec<u8>, args: &[Vec<u8>]) -> Result<Vec<u8>, SubstError> {
    let Some(offset) = args.first() else {
        return Ok(s);
    };
    let Some(mut pos) = go_atoi(offset) else {
        return Ok(s); // like bash, an unparsable offset returns the value
    };
    let len = s.len() as i64;
    if pos < 0 {
        pos = (len + pos).max(0);
    }
    let tail = |pos: i64| {
        if pos < len {
            s[pos as usize..].to_vec()
        } else {
            Vec::new()
        }
    };
    let Some(length) = args.get(1) else {
        return Ok(tail(pos));
    };
    let Some(count) = go_atoi(length) else {
        return Ok(s);
    };
    let end = pos.wrapping_add(count);
    if end >= len {
        return Ok(tail(pos));
    }
    if end < pos {
        // Go slices s[pos:end] here and panics.
        return Err(SubstError::new(format!(
            "substring length {} is out of range for variable {:?} \
             (Flux fails on this with a slice-bounds panic)",
            String::from_utf8_lossy(length),
            param
        )));
    }
    Ok(s[pos as usize..end as usize].to_vec())
}

/// Go's `strconv.Atoi` on a 64-bit platform.
fn go_atoi(s: &[u8]) -> Option<i64> {
    std::str::from_utf8(s).ok()?.parse().ok()
}

fn trim_prefix(s: &[u8], pattern: Option<&[u8]>, longest: bool) -> Vec<u8> {
    match pattern {
        None => s.to_vec(),
        Some(p) if longest => trim_longest(s, p).to_vec(),
        Some(p) => trim_shortest(s, p).to_vec(),
    }
}

/// Suffix trimming works on rune-reversed value and pattern (so classes and
/// escapes in a suffix pattern are reversed too, as in Flux).
fn trim_suffix(s: &[u8], pattern: Option<&[u8]>, longest: bool) -> Vec<u8> {
    match pattern {
        None => s.to_vec(),
        Some(p) => {
            let (rs, rp) = (reverse_runes(s), reverse_runes(p));
            reverse_runes(&trim_prefix(&rs, Some(&rp), longest))
        }
    }
}

/// Removes the shortest non-empty prefix matching `pattern`; the empty prefix
/// is never tried.
fn trim_shortest<'s>(s: &'s [u8], pattern: &[u8]) -> &'s [u8] {
    let mut shortest = 0;
    for end in (1..=s.len()).rev() {
        match path_match(pattern, &s[..end]) {
            Err(BadPattern) => return s,
            Ok(true) => shortest = end,
            Ok(false) => {}
        }
    }
    &s[shortest..]
}

/// Removes the longest non-empty prefix matching `pattern`.
fn trim_longest<'s>(s: &'s [u8], pattern: &[u8]) -> &'s [u8] {
    for end in (1..=s.len()).rev() {
        match path_match(pattern, &s[..end]) {
            Err(BadPattern) => return s,
            Ok(true) => return &s[end..],
            Ok(false) => {}
        }
    }
    s
}

// ---------------------------------------------------------------------------
// The fork's path.Match: Go's, except that `*` and `?` also match '/', and a
// trailing `*` matches anything.
// ---------------------------------------------------------------------------

#[derive(Debug, PartialEq, Eq)]
struct BadPattern;

fn path_match(mut pattern: &[u8], mut name: &[u8]) -> Result<bool, BadPattern> {
    'pattern: while !pattern.is_empty() {
        let (star, chunk, rest) = scan_chunk(pattern);
        pattern = rest;
        if star && chunk.is_empty() {
            return Ok(true);
        }
        // Go ignores an error when the chunk matched; a chunk that fails
        // with an error has not matched, so returning the error early is the
        // same thing.
        let first = match_chunk(chunk, name)?;
        if let Some(t) = first.filter(|t| t.is_empty() || !pattern.is_empty()) {
            name = t;
            continue;
        }
        if star {
            for i in 0..name.len() {
                match match_chunk(chunk, &name[i + 1..]) {
                    Ok(Some(t)) => {
                        if pattern.is_empty() && !t.is_empty() {
                            continue;
                        }
                        name = t;
                        continue 'pattern;
                    }
                    Ok(None) => {}
                    Err(e) => return Err(e),
                }
            }
        }
        return Ok(false);
    }
    Ok(name.is_empty())
}

/// Splits off the next run of non-star pattern, noting whether stars preceded
/// it.
fn scan_chunk(pattern: &[u8]) -> (bool, &[u8], &[u8]) {
    let stars = pattern.iter().take_while(|&&b| b == b'*').count();
    let pattern = &pattern[stars..];
    let mut in_range = false;
    let mut i = 0;
    while i < pattern.len() {
        match pattern[i] {
            b'\\' if i + 1 < pattern.len() => i += 1,
            b'[' => in_range = true,
            b']' => in_range = false,
            b'*' if !in_range => break,
            _ => {}
        }
        i += 1;
    }
    (stars > 0, &pattern[..i], &pattern[i..])
}

/// Matches `chunk` (no stars) against the start of `s`; returns the rest.
fn match_chunk<'s>(mut chunk: &[u8], mut s: &'s [u8]) -> Result<Option<&'s [u8]>, BadPattern> {
    while let Some(&c) = chunk.first() {
        let Some(&b) = s.first() else {
            return Ok(None);
        };
        match c {
            b'[' => {
                let (r, n) = decode_rune(s);
                s = &s[n..];
                chunk = &chunk[1..];
                let negated = chunk.first() == Some(&b'^');
                if negated {
                    chunk = &chunk[1..];
                }
                let mut matched = false;
                let mut ranges = 0;
                loop {
                    if chunk.first() == Some(&b']') && ranges > 0 {
                        chunk = &chunk[1..];
                        break;
                    }
                    let (lo, rest) = get_esc(chunk)?;
                    chunk = rest;
                    let mut hi = lo;
                    if chunk[0] == b'-' {
                        let (h, rest) = get_esc(&chunk[1..])?;
                        hi = h;
                        chunk = rest;
                    }
                    if lo <= r && r <= hi {
                        matched = true;
                    }
                    ranges += 1;
                }
                if matched == negated {
                    return Ok(None);
                }
            }
            b'?' => {
                let (_, n) = decode_rune(s);
                s = &s[n..];
                chunk = &chunk[1..];
            }
            _ => {
                if c == b'\\' {
                    chunk = &chunk[1..];
                    if chunk.is_empty() {
                        return Err(BadPattern);
                    }
                }
                if chunk[0] != b {
                    return Ok(None);
                }
                s = &s[1..];
                chunk = &chunk[1..];
            }
        }
    }
    Ok(Some(s))
}

/// A possibly escaped character of a character class; the class must go on
/// after it.
fn get_esc(chunk: &[u8]) -> Result<(char, &[u8]), BadPattern> {
    let chunk = match chunk.first() {
        None | Some(b'-') | Some(b']') => return Err(BadPattern),
        Some(b'\\') if chunk.len() == 1 => return Err(BadPattern),
        Some(b'\\') => &chunk[1..],
        Some(_) => chunk,
    };
    let (r, n) = decode_rune(chunk);
    if (r == REPLACEMENT && n == 1) || chunk.len() == n {
        return Err(BadPattern);
    }
    Ok((r, &chunk[n..]))
}

// ---------------------------------------------------------------------------
// Go string helpers (bytes that are usually, but not always, valid UTF-8)
// ---------------------------------------------------------------------------

/// Go's `utf8.DecodeRune`: an invalid or truncated sequence decodes as U+FFFD
/// with width 1; empty input has width 0.
fn decode_rune(b: &[u8]) -> (char, usize) {
    let Some(&b0) = b.first() else {
        return (REPLACEMENT, 0);
    };
    if b0 < 0x80 {
        return (char::from(b0), 1);
    }
    let need = match b0 {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return (REPLACEMENT, 1),
    };
    if let Some(c) = b
        .get(..need)
        .and_then(|seq| std::str::from_utf8(seq).ok())
        .and_then(|s| s.chars().next())
    {
        return (c, need);
    }
    (REPLACEMENT, 1)
}

fn push_char(out: &mut Vec<u8>, c: char) {
    let mut buf = [0u8; 4];
    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
}

/// Decodes Go-style; invalid bytes become U+FFFD each.
fn runes(mut s: &[u8]) -> Vec<char> {
    let mut out = Vec::with_capacity(s.len());
    while !s.is_empty() {
        let (r, n) = decode_rune(s);
        out.push(r);
        s = &s[n..];
    }
    out
}

/// `string([]rune(s))` reversed.
fn reverse_runes(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for r in runes(s).into_iter().rev() {
        push_char(&mut out, r);
    }
    out
}

/// `strings.Map(f, s)`.
fn map_runes(s: &[u8], f: fn(char) -> char) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for r in runes(s) {
        push_char(&mut out, f(r));
    }
    out
}

/// `string(f(first rune)) + rest`.
fn map_first_rune(s: &[u8], f: fn(char) -> char) -> Vec<u8> {
    if s.is_empty() {
        return Vec::new();
    }
    let (r, n) = decode_rune(s);
    let mut out = Vec::with_capacity(s.len() + 3);
    push_char(&mut out, f(r));
    out.extend_from_slice(&s[n..]);
    out
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// `strings.Count`.
fn go_count(s: &[u8], sep: &[u8]) -> usize {
    if sep.is_empty() {
        return runes(s).len() + 1;
    }
    let mut count = 0;
    let mut rest = s;
    while let Some(i) = find(rest, sep) {
        count += 1;
        rest = &rest[i + sep.len()..];
    }
    count
}

/// `strings.Replace(s, old, new, n)`; `None` means all. An empty `old`
/// matches before every rune and at the end.
fn go_replace(s: &[u8], old: &[u8], new: &[u8], limit: Option<usize>) -> Vec<u8> {
    if old == new || limit == Some(0) {
        return s.to_vec();
    }
    let matches = go_count(s, old);
    if matches == 0 {
        return s.to_vec();
    }
    let n = limit.map_or(matches, |l| l.min(matches));
    let mut out = Vec::with_capacity(s.len() + n * new.len());
    let mut start = 0;
    for i in 0..n {
        let mut j = start;
        if old.is_empty() {
            if i > 0 {
                j += decode_rune(&s[start..]).1;
            }
        } else {
            match find(&s[start..], old) {
                Some(k) => j += k,
                None => break,
            }
        }
        out.extend_from_slice(&s[start..j]);
        out.extend_from_slice(new);
        start = j + old.len();
    }
    out.extend_from_slice(&s[start..]);
    out
}

// ---------------------------------------------------------------------------
// Unicode, as Go 1.21+ sees it (Unicode 15.0.0)
// ---------------------------------------------------------------------------

/// Go's `unicode.IsLetter`: general category L.
pub(crate) fn is_go_letter(c: char) -> bool {
    crate::gounicode::is_letter(c)
}

/// Go's `unicode.IsDigit`: general category Nd.
pub(crate) fn is_go_digit(c: char) -> bool {
    crate::gounicode::is_digit(c)
}

use crate::gounicode::{to_lower as go_to_lower, to_upper as go_to_upper};

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::{Cell, RefCell};
    use std::collections::HashMap;

    type Vars<'a> = &'a [(&'a str, &'a str)];

    fn map(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    /// Substitutes with the variables in `vars`.
    fn run(
        input: &str,
        vars: &HashMap<String, String>,
        strict: bool,
    ) -> Result<Substituted, SubstError> {
        substitute(input, &|name| vars.get(name).cloned(), strict)
    }

    fn expand(input: &str, pairs: &[(&str, &str)]) -> String {
        match run(input, &map(pairs), false) {
            Ok(s) => s.text,
            Err(e) => panic!("{input:?} failed: {e}"),
        }
    }

    fn error(input: &str, pairs: &[(&str, &str)], strict: bool) -> String {
        match run(input, &map(pairs), strict) {
            Ok(s) => panic!("{input:?} unexpectedly gave {:?}", s.text),
            Err(e) => e.message,
        }
    }

    fn parse(input: &str) -> Vec<Node> {
        Parser::new(input)
            .parse()
            .unwrap_or_else(|e| panic!("{input:?}: {e}"))
    }

    fn t(text: &str) -> Node {
        Node::Text(text.as_bytes().to_vec())
    }

    fn f(param: &str, op: &str, args: Vec<Node>) -> Node {
        func(param.to_string(), op.to_string(), args)
    }

    fn v(param: &str) -> Node {
        f(param, "", vec![])
    }

    // -- envsubst/eval_test.go: TestExpand (its mapper reports every name as
    // set, i.e. Flux's non-strict mode).

    #[test]
    fn go_expand_cases() {
        let cases: &[(Vars, &str, &str)] = &[
            (&[], "abcdEFGH28ij", "abcdEFGH28ij"),
            (&[("var01", "abcdEFGH28ij")], "${#var01}", "12"),
            (&[("var01", "abcdEFGH28ij")], "${var01^}", "AbcdEFGH28ij"),
            (&[("var01", "abcdEFGH28ij")], "${var01^^}", "ABCDEFGH28IJ"),
            (&[("var01", "ABCDEFGH28IJ")], "${var01,}", "aBCDEFGH28IJ"),
            (&[("var01", "ABCDEFGH28IJ")], "${var01,,}", "abcdefgh28ij"),
            (
                &[("path_name", "/home/bozo/ideas/thoughts.for.today")],
                "${path_name:11}",
                "ideas/thoughts.for.today",
            ),
            (
                &[("path_name", "/home/bozo/ideas/thoughts.for.today")],
                "${path_name:11:5}",
                "ideas",
            ),
            (&[("var", "abc")], "${var=xyz}", "abc"),
            (&[], "${var=xyz}", "xyz"),
            (
                &[("default_var", "foo")],
                "something ${var=${default_var}}",
                "something foo",
            ),
            (
                &[("default_var", "foo1")],
                "foo: ${var=${default_var}-suffix}",
                "foo: foo1-suffix",
            ),
            (
                &[("default_var", "foo1")],
                "foo: ${var=prefix${default_var}-suffix}",
                "foo: prefixfoo1-suffix",
            ),
            (&[], "${var:=xyz}", "xyz"),
            (
                &[("stringZ", "abcABC123ABCabc")],
                "${stringZ/%abc/XYZ}",
                "abcABC123ABCXYZ",
            ),
            (
                &[("stringZ", "abcABC123ABCabc")],
                "${stringZ/#abc/XYZ}",
                "XYZABC123ABCabc",
            ),
            (
                &[("stringZ", "abcABC123ABCabc")],
                "${stringZ//abc/xyz}",
                "xyzABC123ABCxyz",
            ),
            (
                &[("stringZ", "abcABC123ABCabc")],
                "${stringZ/abc/xyz}",
                "xyzABC123ABCabc",
            ),
            (
                &[("filename", "bash.string.txt")],
                "${filename#*.}",
                "string.txt",
            ),
            (&[("filename", "path/to/file")], "${filename#*/}", "to/file"),
            (
                &[("filename", "/path/to/file")],
                "${filename#*/}",
                "path/to/file",
            ),
            (&[("filename", "bash.string.txt")], "${filename##*.}", "txt"),
            (&[("filename", "path/to/file")], "${filename##*/}", "file"),
            (&[("filename", "/path/to/file")], "${filename##*/}", "file"),
            (
                &[("filename", "bash.string.txt")],
                "${filename%.*}",
                "bash.string",
            ),
            (
                &[("filename", "bash.string.txt")],
                "${filename%%.*}",
                "bash",
            ),
            (
                &[("var01", "abcdEFGH28ij")],
                "${var=${var01^^}}",
                "ABCDEFGH28IJ",
            ),
            (&[("var01", "abcdEFGH28ij")], "$${var01}", "${var01}"),
            (
                &[("var01", "abcdEFGH28ij")],
                "some text ${var01}$${var$${var01}$var01${var01}",
                "some text abcdEFGH28ij${var${var01}$var01abcdEFGH28ij",
            ),
            (
                &[("default_var", "foo")],
                "something $${var=${default_var}}",
                "something ${var=foo}",
            ),
            (&[("stringZ", "foo/bar")], r"${stringZ/\//-}", "foo-bar"),
            (
                &[("stringZ", "foo/bar/baz")],
                r"${stringZ//\//-}",
                "foo-bar-baz",
            ),
            (
                &[("default_var", "foo")],
                "\\\\something ${var=${default_var}}",
                "\\\\something foo",
            ),
            (&[("stringZ", "foo.bar")], "${stringZ/./}", "foobar"),
        ];
        for (pairs, input, want) in cases {
            assert_eq!(expand(input, pairs), *want, "input {input:?}");
        }
    }

    // -- envsubst/eval_test.go: TestExpandStrict.

    #[test]
    fn go_expand_strict_cases() {
        let ok: &[(Vars, &str, &str)] = &[
            (&[], "abcdEFGH28ij", "abcdEFGH28ij"),
            (&[("foo", "bar")], "${foo}", "bar"),
            (&[("foo", "")], "${foo}", ""),
            (&[("foo", "bar")], "${missing:=default}", "default"),
            (&[], "${missing:-fallback}", "fallback"),
            (&[], "${missing:=assigned}", "assigned"),
            (&[], "${missing=assigned}", "assigned"),
        ];
        for (pairs, input, want) in ok {
            let got = run(input, &map(pairs), true).map(|s| s.text);
            assert_eq!(got.as_deref(), Ok(*want), "input {input:?}");
        }
        let missing = [
            "${missing}",
            "${#missing}",
            "${missing^}",
            "${missing^^}",
            "${missing,}",
            "${missing,,}",
            "${missing:0}",
            "${missing:0:10}",
            "${missing/pattern/replacement}",
            "${missing//pattern/replacement}",
            "${missing/#pattern/replacement}",
            "${missing/%pattern/replacement}",
            "${missing#pattern}",
            "${missing##pattern}",
            "${missing%pattern}",
            "${missing%%pattern}",
        ];
        for input in missing {
            assert_eq!(
                error(input, &[], true),
                r#"variable not set (strict mode): "missing""#,
                "input {input:?}"
            );
            // Not strict: the same references evaluate quietly.
            assert!(run(input, &map(&[]), false).is_ok(), "input {input:?}");
        }
    }

    // -- envsubst/funcs_test.go, through `apply`.

    fn call(op: &str, s: &str, args: &[&str]) -> Result<String, SubstError> {
        let args: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
        apply(op, "v", s.as_bytes().to_vec(), &args).map(|b| String::from_utf8(b).unwrap())
    }

    fn call_ok(op: &str, s: &str, args: &[&str]) -> String {
        call(op, s, args).unwrap()
    }

    #[test]
    fn go_funcs_cases() {
        assert_eq!(call_ok("#", "Hello World", &[]), "11");
        assert_eq!(call_ok(",,", "Hello World", &[]), "hello world");
        assert_eq!(call_ok(",", "HELLO WORLD", &[]), "hELLO WORLD");
        assert_eq!(call_ok(",", "", &[]), "");
        assert_eq!(call_ok("^^", "Hello World", &[]), "HELLO WORLD");
        assert_eq!(call_ok("^", "hello world", &[]), "Hello world");
        assert_eq!(call_ok("^", "", &[]), "");
        assert_eq!(call_ok(":-", "Hello World", &["Hola Mundo"]), "Hello World");
        assert_eq!(call_ok(":-", "", &["Hola Mundo"]), "Hola Mundo");
        assert_eq!(
            call_ok(
                ":-",
                "",
                &["Hola Mundo", "-Bonjour le monde", "-Halló heimur"]
            ),
            "Hola Mundo-Bonjour le monde-Halló heimur"
        );
        let s = "123456789123456789";
        assert_eq!(call_ok(":", s, &["0", "8"]), "12345678");
        assert_eq!(call_ok(":", s, &["1", "8"]), "23456789");
        assert_eq!(call_ok(":", s, &["9"]), "123456789");
        assert_eq!(call_ok(":", s, &["9", "50"]), "123456789");
        assert_eq!(call_ok(":", s, &["-3", "2"]), "78");
        assert_eq!(call_ok(":", s, &["-300", "3"]), "123");
        assert_eq!(call_ok(":", "12345678", &["9", "1"]), "");
    }

    #[test]
    fn substring_edges() {
        assert_eq!(call_ok(":", "abcdef", &[]), "abcdef");
        assert_eq!(call_ok(":", "abcdef", &["x"]), "abcdef");
        assert_eq!(call_ok(":", "abcdef", &["2", "x"]), "abcdef");
        assert_eq!(call_ok(":", "abcdef", &["+2"]), "cdef");
        assert_eq!(call_ok(":", "abcdef", &[" 2"]), "abcdef");
        assert_eq!(call_ok(":", "abcdef", &["6"]), "");
        assert_eq!(call_ok(":", "abcdef", &["-2"]), "ef");
        assert_eq!(call_ok(":", "abcdef", &["2", "0"]), "");
        assert_eq!(call_ok(":", "abcdef", &["2", "4"]), "cdef");
        assert_eq!(call_ok(":", "abcdef", &["-9223372036854775808"]), "abcdef");
        assert_eq!(call_ok(":", "abcdef", &["9223372036854775808"]), "abcdef");
        // Go panics slicing s[3:2]; here it is an error.
        let err = call(":", "abcdef", &["3", "-1"]).unwrap_err();
        assert!(err.message.contains("out of range"), "{err}");
        let huge = "9223372036854775807";
        assert!(call(":", "abcdef", &[huge, huge]).is_err());
        assert!(call(":", "abcdef", &["3", "-3"]).is_err());
    }

    #[test]
    fn replace_follows_go_strings_replace() {
        assert_eq!(call_ok("//", "aaa", &["a", "bb"]), "bbbbbb");
        assert_eq!(call_ok("//", "aaaa", &["aa", "b"]), "bb");
        assert_eq!(call_ok("/", "aaa", &["a"]), "aa");
        assert_eq!(call_ok("//", "aaa", &["a"]), "");
        assert_eq!(call_ok("//", "hé", &["", "-"]), "-h-é-");
        assert_eq!(call_ok("/", "hé", &["", "-"]), "-hé");
        assert_eq!(call_ok("/#", "abc", &["", "-"]), "-abc");
        assert_eq!(call_ok("/%", "abc", &["", "-"]), "abc-");
        assert_eq!(call_ok("/#", "abc", &["b", "-"]), "abc");
        assert_eq!(call_ok("/%", "abcb", &["b", "-"]), "abc-");
        // A missing replacement makes "/#" and "/%" no-ops, unlike "/" and "//".
        assert_eq!(call_ok("/#", "abc", &["a"]), "abc");
        assert_eq!(call_ok("/%", "abc", &["c"]), "abc");
        assert_eq!(go_replace(b"abc", b"b", b"b", None), b"abc");
        assert_eq!(go_replace(b"abc", b"b", b"x", Some(0)), b"abc");
        assert_eq!(go_count(b"ab\xffc", b""), 5);
    }

    #[test]
    fn trim_functions() {
        assert_eq!(call_ok("#", "a/b/c", &["*/"]), "b/c");
        assert_eq!(call_ok("##", "a/b/c", &["*/"]), "c");
        assert_eq!(call_ok("%", "a/b/c", &["/*"]), "a/b");
        assert_eq!(call_ok("%%", "a/b/c", &["/*"]), "a");
        // The empty prefix is never tried, so `*` removes one byte.
        assert_eq!(call_ok("#", "abc", &["*"]), "bc");
        assert_eq!(call_ok("%", "abc", &["*"]), "ab");
        assert_eq!(call_ok("##", "abc", &["*"]), "");
        assert_eq!(call_ok("#", "abc", &["x*"]), "abc");
        assert_eq!(call_ok("#", "", &["*"]), "");
        // A malformed pattern leaves the value alone.
        assert_eq!(call_ok("#", "[abc", &["[a"]), "[abc");
        assert_eq!(call_ok("##", "abc", &["\\"]), "abc");
        // Suffix patterns are reversed rune-wise, so classes and escapes break.
        assert_eq!(call_ok("%", "abc", &["[c]"]), "abc");
        assert_eq!(call_ok("%", "abc", &["]c["]), "ab");
        assert_eq!(call_ok("%", "a.b", &["\\.b"]), "a.b");
        assert_eq!(call_ok("%", "a.b", &["b\\."]), "a.b");
        // Byte-wise prefixes can cut a rune; reversing turns the pieces into U+FFFD.
        assert_eq!(call_ok("%", "aé", &["*"]), "a\u{FFFD}");
        assert_eq!(
            apply("#", "v", "éa".as_bytes().to_vec(), &[b"*".to_vec()]).unwrap(),
            b"\xa9a"
        );
    }

    #[test]
    fn case_mapping_is_go_simple_mapping() {
        assert_eq!(call_ok("^^", "straße", &[]), "STRAßE");
        assert_eq!(call_ok("^", "ßa", &[]), "ßa");
        assert_eq!(call_ok("^^", "ǆ ǅ", &[]), "Ǆ Ǆ");
        assert_eq!(call_ok(",,", "ǅ", &[]), "ǆ");
        assert_eq!(call_ok(",", "İx", &[]), "ix");
        assert_eq!(call_ok(",,", "İSTANBUL", &[]), "istanbul");
        assert_eq!(call_ok("^^", "ıi", &[]), "II");
        assert_eq!(call_ok("^^", "ᾳῃῳᾀ", &[]), "ᾼῌῼᾈ");
        assert_eq!(call_ok("^^", "ŉǰ", &[]), "ŉǰ");
        assert_eq!(call_ok("^^", "ⓐⅰ\u{345}", &[]), "ⒶⅠ\u{399}");
        assert_eq!(call_ok(",,", "ⒶⅠ", &[]), "ⓐⅰ");
        // Mappings added after Unicode 15 are not applied.
        assert_eq!(call_ok("^^", "\u{19B}\u{264}", &[]), "\u{19B}\u{264}");
        assert_eq!(call_ok(",,", "\u{A7CB}\u{1C89}", &[]), "\u{A7CB}\u{1C89}");
        assert_eq!(call_ok("^^", "\u{10D70}", &[]), "\u{10D70}");
        // Invalid bytes become U+FFFD, as Go's strings.Map does.
        assert_eq!(map_runes(b"a\xffb", go_to_upper), "A\u{FFFD}B".as_bytes());
        assert_eq!(
            map_first_rune(b"\xffb", go_to_upper),
            "\u{FFFD}b".as_bytes()
        );
    }

    // -- envsubst/parse/parse_test.go.

    #[test]
    fn go_parse_cases() {
        let cases: Vec<(&str, Vec<Node>)> = vec![
            ("text", vec![t("text")]),
            ("}text", vec![t("}text")]),
            ("http://github.com", vec![t("http://github.com")]),
            ("$${string}", vec![t("${string}")]),
            ("$$string", vec![t("$string")]),
            (r"\\.\pipe\pipename", vec![t(r"\\.\pipe\pipename")]),
            ("${string}", vec![v("string")]),
            ("${string,}", vec![f("string", ",", vec![])]),
            ("${string,,}", vec![f("string", ",,", vec![])]),
            ("${string^}", vec![f("string", "^", vec![])]),
            ("${string^^}", vec![f("string", "^^", vec![])]),
            (
                "${string:position}",
                vec![f("string", ":", vec![t("position")])],
            ),
            (
                "${string:position:length}",
                vec![f("string", ":", vec![t("position"), t("length")])],
            ),
            (
                "${string#substring}",
                vec![f("string", "#", vec![t("substring")])],
            ),
            (
                "${string##substring}",
                vec![f("string", "##", vec![t("substring")])],
            ),
            (
                "${string%substring}",
                vec![f("string", "%", vec![t("substring")])],
            ),
            (
                "${string%%substring}",
                vec![f("string", "%%", vec![t("substring")])],
            ),
            (
                "${string/substring/replacement}",
                vec![f("string", "/", vec![t("substring"), t("replacement")])],
            ),
            (
                "${string//substring/replacement}",
                vec![f("string", "//", vec![t("substring"), t("replacement")])],
            ),
            (
                "${string/#substring/replacement}",
                vec![f("string", "/#", vec![t("substring"), t("replacement")])],
            ),
            (
                "${string/%substring/replacement}",
                vec![f("string", "/%", vec![t("substring"), t("replacement")])],
            ),
            (
                "${string=default}",
                vec![f("string", "=", vec![t("default")])],
            ),
            (
                "${string:=default}",
                vec![f("string", ":=", vec![t("default")])],
            ),
            (
                "${string:-default}",
                vec![f("string", ":-", vec![t("default")])],
            ),
            (
                "${string:?default}",
                vec![f("string", ":?", vec![t("default")])],
            ),
            (
                "${string:+default}",
                vec![f("string", ":+", vec![t("default")])],
            ),
            ("${#string}", vec![f("string", "#", vec![])]),
            ("${string#$%:*{}", vec![f("string", "#", vec![t("$%:*{")])]),
            (
                "hello ${#string} world",
                vec![t("hello "), f("string", "#", vec![]), t(" world")],
            ),
            (
                r"\\ hello ${#string} world \\",
                vec![t(r"\\ hello "), f("string", "#", vec![]), t(r" world \\")],
            ),
            (
                r"${string/\/position/length}",
                vec![f("string", "/", vec![t("/position"), t("length")])],
            ),
            (
                r"${string/\/position\\/length}",
                vec![f("string", "/", vec![t(r"/position\"), t("length")])],
            ),
            (
                r"${string/position/\/length}",
                vec![f("string", "/", vec![t("position"), t("/length")])],
            ),
            (
                r"${string/position/\/length\\}",
                vec![f("string", "/", vec![t("position"), t(r"/length\")])],
            ),
            (
                r"${string/position/\/leng\\th}",
                vec![f("string", "/", vec![t("position"), t(r"/leng\th")])],
            ),
            (
                "${string:${position}}",
                vec![f("string", ":", vec![v("position")])],
            ),
            (
                "${string:${stringy:position:length}:${stringz,,}}",
                vec![f(
                    "string",
                    ":",
                    vec![
                        f("stringy", ":", vec![t("position"), t("length")]),
                        f("stringz", ",,", vec![]),
                    ],
                )],
            ),
            (
                "${string#${stringz}}",
                vec![f("string", "#", vec![v("stringz")])],
            ),
            (
                "${string=${stringz}}",
                vec![f("string", "=", vec![v("stringz")])],
            ),
            (
                "${string=prefix-${var}}",
                vec![f("string", "=", vec![t("prefix-"), v("var")])],
            ),
            (
                "${string=${var}-suffix}",
                vec![f("string", "=", vec![v("var"), t("-suffix")])],
            ),
            (
                "${string=prefix-${var}-suffix}",
                vec![f("string", "=", vec![t("prefix-"), v("var"), t("-suffix")])],
            ),
            (
                "${string=prefix${var} suffix}",
                vec![f("string", "=", vec![t("prefix"), v("var"), t(" suffix")])],
            ),
            (
                "${string//${stringy}/${stringz}}",
                vec![f("string", "//", vec![v("stringy"), v("stringz")])],
            ),
        ];
        for (input, want) in cases {
            assert_eq!(parse(input), want, "input {input:?}");
        }
    }

    #[test]
    fn parse_shapes_beyond_go_tests() {
        assert_eq!(parse(""), vec![]);
        assert_eq!(parse("a$"), vec![t("a$")]);
        assert_eq!(parse("$$$"), vec![t("$$")]);
        assert_eq!(parse("$$${x}"), vec![t("$"), v("x")]);
        assert_eq!(parse("${a}${b}"), vec![v("a"), v("b")]);
        assert_eq!(parse("${a,^}"), vec![f("a", ",^", vec![])]);
        assert_eq!(parse("${a==b}"), vec![f("a", "=", vec![t("=b")])]);
        assert_eq!(parse("${a:--b}"), vec![f("a", ":-", vec![t("-b")])]);
        assert_eq!(parse("${a:=}"), vec![f("a", ":=", vec![])]);
        assert_eq!(parse("${a:-$$}"), vec![f("a", ":-", vec![t("$$")])]);
        assert_eq!(
            parse("${a:-$${b}}"),
            vec![f("a", ":-", vec![t("$"), v("b")])]
        );
        assert_eq!(parse("${a/b/}"), vec![f("a", "/", vec![t("b")])]);
        assert_eq!(parse("${a/b//c}"), vec![f("a", "/", vec![t("b"), t("c")])]);
        assert_eq!(
            parse("${a/b}c/d}"),
            vec![f("a", "/", vec![t("b}c"), t("d")])]
        );
        assert_eq!(
            parse("${a/b/$${c}}"),
            vec![f("a", "/", vec![t("b"), t("${c")]), t("}")]
        );
        assert_eq!(parse("${a:1::2}"), vec![f("a", ":", vec![t("1"), t("2")])]);
        assert_eq!(parse("${a###}"), vec![f("a", "##", vec![t("#")])]);
        assert_eq!(parse("${9é_}"), vec![v("9é_")]);
        assert_eq!(parse("${x٣}"), vec![v("x٣")]);
    }

    // -- Vectors recorded from the Go implementation itself (fluxcd/pkg
    // envsubst at the reference commit, run with Flux's mapper). Columns:
    // input, result when not strict, result when strict. `Err(s)` means an
    // error whose message starts with `s` (parse errors) or contains it.

    const GO_VARS: &[(&str, &str)] = &[
        ("a", "abcABC123ABCabc"),
        ("b", "bash.string.txt"),
        ("p", "/path/to/file"),
        ("e", ""),
        ("u", "héllo wörld ǅ"),
        ("n", "3"),
        ("m", "-2"),
        ("s", "/"),
        ("d", "$"),
        ("x", "a.b"),
        ("big", "ÀÉÎõü"),
        ("z", "zz}z"),
        ("k", "*"),
        ("q", "b"),
    ];

    type Expect = Result<&'static str, &'static str>;

    #[rustfmt::skip]
    const GO_VECTORS: &[(&str, Expect, Expect)] = &[
            ("plain text, no dollars", Ok("plain text, no dollars"), Ok("plain text, no dollars")),
            ("$VAR and $a stay text", Ok("$VAR and $a stay text"), Ok("$VAR and $a stay text")),
            ("a lone $ stays", Ok("a lone $ stays"), Ok("a lone $ stays")),
            ("trailing $", Ok("trailing $"), Ok("trailing $")),
            ("$$", Ok("$"), Ok("$")),
            ("$$$", Ok("$$"), Ok("$$")),
            ("$$$$", Ok("$$"), Ok("$$")),
            ("$${a}", Ok("${a}"), Ok("${a}")),
            ("$$${a}", Ok("$abcABC123ABCabc"), Ok("$abcABC123ABCabc")),
            ("$$a", Ok("$a"), Ok("$a")),
            ("\\${a}", Ok("\\abcABC123ABCabc"), Ok("\\abcABC123ABCabc")),
            ("\\\\${a}", Ok("\\\\abcABC123ABCabc"), Ok("\\\\abcABC123ABCabc")),
            ("{}}{ ${a}}", Ok("{}}{ abcABC123ABCabc}"), Ok("{}}{ abcABC123ABCabc}")),
            ("${a}", Ok("abcABC123ABCabc"), Ok("abcABC123ABCabc")),
            ("${e}", Ok(""), Ok("")),
            ("${missing}", Ok(""), Err("variable not set (strict mode): \"missing\"")),
            ("${a}${b}", Ok("abcABC123ABCabcbash.string.txt"), Ok("abcABC123ABCabcbash.string.txt")),
            ("x${a}y${a}z", Ok("xabcABC123ABCabcyabcABC123ABCabcz"), Ok("xabcABC123ABCabcyabcABC123ABCabcz")),
            ("${9a}", Ok(""), Err("variable not set (strict mode): \"9a\"")),
            ("${_a}", Ok(""), Err("variable not set (strict mode): \"_a\"")),
            ("${é}", Ok(""), Err("variable not set (strict mode): \"é\"")),
            ("${a.b}", Err("missing closing brace"), Err("missing closing brace")),
            ("${ a }", Err("unable to parse variable name"), Err("unable to parse variable name")),
            ("${}", Err("unable to parse variable name"), Err("unable to parse variable name")),
            ("${", Err("unable to parse variable name"), Err("unable to parse variable name")),
            ("${a", Err("missing closing brace"), Err("missing closing brace")),
            ("${a:", Err("bad substitution"), Err("bad substitution")),
            ("${#}", Err("bad substitution"), Err("bad substitution")),
            ("${##a}", Err("bad substitution"), Err("bad substitution")),
            ("${#a:1}", Err("bad substitution"), Err("bad substitution")),
            ("${a:-x}", Ok("abcABC123ABCabc"), Ok("abcABC123ABCabc")),
            ("${e:-x}", Ok("x"), Ok("x")),
            ("${missing:-x}", Ok("x"), Ok("x")),
            ("${a:=x}", Ok("abcABC123ABCabc"), Ok("abcABC123ABCabc")),
            ("${e:=x}", Ok("x"), Ok("x")),
            ("${missing:=x}", Ok("x"), Ok("x")),
            ("${a=x}", Ok("abcABC123ABCabc"), Ok("abcABC123ABCabc")),
            ("${e=x}", Ok("x"), Ok("x")),
            ("${missing=x}", Ok("x"), Ok("x")),
            ("${a:+x}", Ok("abcABC123ABCabc"), Ok("abcABC123ABCabc")),
            ("${e:+x}", Ok("x"), Ok("x")),
            ("${missing:+x}", Ok("x"), Ok("x")),
            ("${a:?x}", Ok("abcABC123ABCabc"), Ok("abcABC123ABCabc")),
            ("${e:?x}", Ok("x"), Ok("x")),
            ("${missing:?x}", Ok("x"), Ok("x")),
            ("${missing:-}", Ok(""), Ok("")),
            ("${missing:--x}", Ok("-x"), Ok("-x")),
            ("${missing==x}", Ok("=x"), Ok("=x")),
            ("${missing:-a:b}", Ok("a:b"), Ok("a:b")),
            ("${missing:-{x}", Ok("{x"), Ok("{x")),
            ("${missing-x}", Err("missing closing brace"), Err("missing closing brace")),
            ("${missing+x}", Err("missing closing brace"), Err("missing closing brace")),
            ("${missing?x}", Err("missing closing brace"), Err("missing closing brace")),
            ("${a-x}", Err("missing closing brace"), Err("missing closing brace")),
            ("${missing:=x}${missing}", Ok("x"), Err("variable not set (strict mode): \"missing\"")),
            ("${missing:-${a}}", Ok("abcABC123ABCabc"), Ok("abcABC123ABCabc")),
            ("${missing:-pre${a}post}", Ok("preabcABC123ABCabcpost"), Ok("preabcABC123ABCabcpost")),
            ("${missing:-${e:-${n}}}", Ok("3"), Ok("3")),
            ("${missing:-$$}", Ok("$$"), Ok("$$")),
            ("${missing:-$${a}}", Ok("$abcABC123ABCabc"), Ok("$abcABC123ABCabc")),
            ("${missing:-\\/}", Ok("\\/"), Ok("\\/")),
            ("${missing:-${a}${b}}", Ok("abcABC123ABCabcbash.string.txt"), Ok("abcABC123ABCabcbash.string.txt")),
            ("${missing:-x}}", Ok("x}"), Ok("x}")),
            ("${missing:-x", Err("unable to parse substitution within function"), Err("unable to parse substitution within function")),
            ("${#a}", Ok("15"), Ok("15")),
            ("${#u}", Ok("16"), Ok("16")),
            ("${#missing}", Ok("0"), Err("variable not set (strict mode): \"missing\"")),
            ("${#e}", Ok("0"), Ok("0")),
            ("${u^}", Ok("Héllo wörld ǅ"), Ok("Héllo wörld ǅ")),
            ("${u^^}", Ok("HÉLLO WÖRLD Ǆ"), Ok("HÉLLO WÖRLD Ǆ")),
            ("${u,}", Ok("héllo wörld ǅ"), Ok("héllo wörld ǅ")),
            ("${u,,}", Ok("héllo wörld ǆ"), Ok("héllo wörld ǆ")),
            ("${big,}", Ok("àÉÎõü"), Ok("àÉÎõü")),
            ("${big,,}", Ok("àéîõü"), Ok("àéîõü")),
            ("${a^,}", Ok("abcABC123ABCabc"), Ok("abcABC123ABCabc")),
            ("${a,^}", Ok("abcABC123ABCabc"), Ok("abcABC123ABCabc")),
            ("${a^^^}", Err("bad substitution"), Err("bad substitution")),
            ("${a^x}", Err("bad substitution"), Err("bad substitution")),
            ("${missing^^}", Ok(""), Err("variable not set (strict mode): \"missing\"")),
            ("${a:3}", Ok("ABC123ABCabc"), Ok("ABC123ABCabc")),
            ("${a:3:4}", Ok("ABC1"), Ok("ABC1")),
            ("${a:0}", Ok("abcABC123ABCabc"), Ok("abcABC123ABCabc")),
            ("${a:-3}", Ok("abcABC123ABCabc"), Ok("abcABC123ABCabc")),
            ("${a:${m}}", Ok("bc"), Ok("bc")),
            ("${a:${m}:1}", Ok("b"), Ok("b")),
            ("${a:1:${n}}", Ok("bcA"), Ok("bcA")),
            ("${a:100}", Ok(""), Ok("")),
            ("${a:3:100}", Ok("ABC123ABCabc"), Ok("ABC123ABCabc")),
            ("${a:100:1}", Ok(""), Ok("")),
            ("${a: 1}", Ok("abcABC123ABCabc"), Ok("abcABC123ABCabc")),
            ("${a:+1}", Ok("abcABC123ABCabc"), Ok("abcABC123ABCabc")),
            ("${a:x}", Ok("abcABC123ABCabc"), Ok("abcABC123ABCabc")),
            ("${a:1:x}", Ok("abcABC123ABCabc"), Ok("abcABC123ABCabc")),
            ("${a:1:-1}", Err("out of range"), Err("out of range")),
            ("${a:3:-3}", Err("out of range"), Err("out of range")),
            ("${a:1::2}", Ok("bc"), Ok("bc")),
            ("${a:1:}", Err("unable to parse substitution within function"), Err("unable to parse substitution within function")),
            ("${a:}", Err("unable to parse substitution within function"), Err("unable to parse substitution within function")),
            ("${a::1}", Err("unable to parse substitution within function"), Err("unable to parse substitution within function")),
            ("${u:1:2}", Ok("é"), Ok("é")),
            ("${u:1:1}", Err("invalid UTF-8"), Err("invalid UTF-8")),
            ("${u:0:2}", Err("invalid UTF-8"), Err("invalid UTF-8")),
            ("${a:é}", Err("bad substitution"), Err("bad substitution")),
            ("${a:1:é}", Ok("abcABC123ABCabc"), Ok("abcABC123ABCabc")),
            ("${a:9223372036854775807:9223372036854775807}", Err("out of range"), Err("out of range")),
            ("${a:99999999999999999999}", Ok("abcABC123ABCabc"), Ok("abcABC123ABCabc")),
            ("${b#*.}", Ok("string.txt"), Ok("string.txt")),
            ("${b##*.}", Ok("txt"), Ok("txt")),
            ("${b%.*}", Ok("bash.string"), Ok("bash.string")),
            ("${b%%.*}", Ok("bash"), Ok("bash")),
            ("${p#*/}", Ok("path/to/file"), Ok("path/to/file")),
            ("${p##*/}", Ok("file"), Ok("file")),
            ("${p%/*}", Ok("/path/to"), Ok("/path/to")),
            ("${p%%/*}", Ok(""), Ok("")),
            ("${b#bash}", Ok(".string.txt"), Ok(".string.txt")),
            ("${b#nomatch*}", Ok("bash.string.txt"), Ok("bash.string.txt")),
            ("${b#?}", Ok("ash.string.txt"), Ok("ash.string.txt")),
            ("${b#*}", Ok("ash.string.txt"), Ok("ash.string.txt")),
            ("${b##*}", Ok(""), Ok("")),
            ("${b%*}", Ok("bash.string.tx"), Ok("bash.string.tx")),
            ("${b%%*}", Ok(""), Ok("")),
            ("${b#[a-c]}", Ok("ash.string.txt"), Ok("ash.string.txt")),
            ("${b#[!a]}", Ok("bash.string.txt"), Ok("bash.string.txt")),
            ("${b#[^a]}", Ok("ash.string.txt"), Ok("ash.string.txt")),
            ("${b#[}", Ok("bash.string.txt"), Ok("bash.string.txt")),
            ("${b#[a}", Ok("bash.string.txt"), Ok("bash.string.txt")),
            ("${b#\\b}", Ok("ash.string.txt"), Ok("ash.string.txt")),
            ("${b%\\t}", Ok("bash.string.txt"), Ok("bash.string.txt")),
            ("${b%[t]}", Ok("bash.string.txt"), Ok("bash.string.txt")),
            ("${b%%[a-z].*}", Ok("bash.string.txt"), Ok("bash.string.txt")),
            ("${b#${x}}", Ok("bash.string.txt"), Ok("bash.string.txt")),
            ("${b#b${x}}", Err("bad substitution"), Err("bad substitution")),
            ("${b#}", Err("unable to parse substitution within function"), Err("unable to parse substitution within function")),
            ("${u#h?}", Err("invalid UTF-8"), Err("invalid UTF-8")),
            ("${u%?}", Ok("héllo wörld �"), Ok("héllo wörld �")),
            ("${big#*}", Err("invalid UTF-8"), Err("invalid UTF-8")),
            ("${big%*}", Ok("ÀÉÎõ�"), Ok("ÀÉÎõ�")),
            ("${e#*}", Ok(""), Ok("")),
            ("${missing#*}", Ok(""), Err("variable not set (strict mode): \"missing\"")),
            ("${a/abc/X}", Ok("XABC123ABCabc"), Ok("XABC123ABCabc")),
            ("${a//abc/X}", Ok("XABC123ABCX"), Ok("XABC123ABCX")),
            ("${a/#abc/X}", Ok("XABC123ABCabc"), Ok("XABC123ABCabc")),
            ("${a/%abc/X}", Ok("abcABC123ABCX"), Ok("abcABC123ABCX")),
            ("${a/ABC/}", Ok("abc123ABCabc"), Ok("abc123ABCabc")),
            ("${a//ABC/}", Ok("abc123abc"), Ok("abc123abc")),
            ("${a/#abc/}", Ok("abcABC123ABCabc"), Ok("abcABC123ABCabc")),
            ("${a/%abc/}", Ok("abcABC123ABCabc"), Ok("abcABC123ABCabc")),
            ("${a/a*/X}", Ok("abcABC123ABCabc"), Ok("abcABC123ABCabc")),
            ("${a/nomatch/X}", Ok("abcABC123ABCabc"), Ok("abcABC123ABCabc")),
            ("${a/#nomatch/X}", Ok("abcABC123ABCabc"), Ok("abcABC123ABCabc")),
            ("${p//\\//-}", Ok("-path-to-file"), Ok("-path-to-file")),
            ("${p/\\//-}", Ok("-path/to/file"), Ok("-path/to/file")),
            ("${a/\\\\/x}", Ok("abcABC123ABCabc"), Ok("abcABC123ABCabc")),
            ("${x/./\\/}", Ok("a/b"), Ok("a/b")),
            ("${a/${e}/X}", Ok("XabcABC123ABCabc"), Ok("XabcABC123ABCabc")),
            ("${a//${e}/X}", Ok("XaXbXcXAXBXCX1X2X3XAXBXCXaXbXcX"), Ok("XaXbXcXAXBXCX1X2X3XAXBXCXaXbXcX")),
            ("${a/#${e}/X}", Ok("XabcABC123ABCabc"), Ok("XabcABC123ABCabc")),
            ("${a/%${e}/X}", Ok("abcABC123ABCabcX"), Ok("abcABC123ABCabcX")),
            ("${a/b}/x}", Ok("abcABC123ABCabc"), Ok("abcABC123ABCabc")),
            ("${a/b}", Err("bad substitution"), Err("bad substitution")),
            ("${a//${q}/${n}}", Ok("a3cABC123ABCa3c"), Ok("a3cABC123ABCa3c")),
            ("${a/b/${n}x}", Err("bad substitution"), Err("bad substitution")),
            ("${a/b/x${n}}", Err("bad substitution"), Err("bad substitution")),
            ("${a/b/$${n}}", Ok("a${ncABC123ABCabc}"), Ok("a${ncABC123ABCabc}")),
            ("${a///x}", Err("unable to parse substitution within function"), Err("unable to parse substitution within function")),
            ("${missing/a/b}", Ok(""), Err("variable not set (strict mode): \"missing\"")),
    ];

    #[test]
    fn go_recorded_vectors() {
        let vars = map(GO_VARS);
        for &(input, lax, strict) in GO_VECTORS {
            for (want, is_strict) in [(lax, false), (strict, true)] {
                let got = run(input, &vars, is_strict);
                match (want, &got) {
                    (Ok(w), Ok(g)) => assert_eq!(g.text, w, "input {input:?} strict={is_strict}"),
                    (Err(w), Err(g)) => assert!(
                        g.message.starts_with(w) || g.message.contains(w),
                        "input {input:?} strict={is_strict}: {:?} lacks {w:?}",
                        g.message
                    ),
                    _ => panic!("input {input:?} strict={is_strict}: want {want:?}, got {got:?}"),
                }
            }
        }
    }

    // -- The fork's path.Match, with results recorded from Go.

    #[test]
    fn path_match_cases() {
        #[rustfmt::skip]
        let cases: &[(&str, &str, Result<bool, BadPattern>)] = &[
            ("abc", "abc", Ok(true)),
            ("*", "abc", Ok(true)),
            ("*c", "abc", Ok(true)),
            ("a*", "a", Ok(true)),
            ("a*", "abc", Ok(true)),
            ("a*", "ab/c", Ok(true)),
            ("a*/b", "abc/b", Ok(true)),
            ("a*/b", "a/c/b", Ok(true)),
            ("a*b*c*d*e*/f", "axbxcxdxe/f", Ok(true)),
            ("a*b*c*d*e*/f", "axbxcxdxexxx/f", Ok(true)),
            ("a*b*c*d*e*/f", "axbxcxdxe/xxx/f", Ok(true)),
            ("a*b*c*d*e*/f", "axbxcxdxexxx/fff", Ok(false)),
            ("a*b?c*x", "abxbbxdbxebxczzx", Ok(true)),
            ("a*b?c*x", "abxbbxdbxebxczzy", Ok(false)),
            ("ab[c]", "abc", Ok(true)),
            ("ab[b-d]", "abc", Ok(true)),
            ("ab[e-g]", "abc", Ok(false)),
            ("ab[^c]", "abc", Ok(false)),
            ("ab[^b-d]", "abc", Ok(false)),
            ("ab[^e-g]", "abc", Ok(true)),
            ("a\\*b", "a*b", Ok(true)),
            ("a\\*b", "ab", Ok(false)),
            ("a?b", "a☺b", Ok(true)),
            ("a[^a]b", "a☺b", Ok(true)),
            ("a???b", "a☺b", Ok(false)),
            ("a[^a][^a][^a]b", "a☺b", Ok(false)),
            ("[a-ζ]*", "α", Ok(true)),
            ("*[a-ζ]", "A", Ok(false)),
            ("a?b", "a/b", Ok(true)),
            ("a*b", "a/b", Ok(true)),
            ("[\\]a]", "]", Ok(true)),
            ("[\\-]", "-", Ok(true)),
            ("[x\\-]", "x", Ok(true)),
            ("[x\\-]", "-", Ok(true)),
            ("[x\\-]", "z", Ok(false)),
            ("[\\-x]", "x", Ok(true)),
            ("[\\-x]", "-", Ok(true)),
            ("[\\-x]", "a", Ok(false)),
            ("[]a]", "]", Err(BadPattern)),
            ("[-]", "-", Err(BadPattern)),
            ("[x-]", "x", Err(BadPattern)),
            ("[x-]", "-", Err(BadPattern)),
            ("[x-]", "z", Err(BadPattern)),
            ("[-x]", "x", Err(BadPattern)),
            ("[-x]", "-", Err(BadPattern)),
            ("[-x]", "a", Err(BadPattern)),
            ("\\", "a", Err(BadPattern)),
            ("[a-b-c]", "a", Err(BadPattern)),
            ("[", "a", Err(BadPattern)),
            ("[^", "a", Err(BadPattern)),
            ("[^bc", "a", Err(BadPattern)),
            ("a[", "a", Ok(false)),
            ("a[", "ab", Err(BadPattern)),
            ("a[", "x", Ok(false)),
            ("a/b[", "x", Ok(false)),
            ("*x", "xxx", Ok(true)),
            ("", "", Ok(true)),
            ("", "a", Ok(false)),
            ("*", "", Ok(true)),
            ("a*", "a/b/c", Ok(true)),
            ("*/", "a/b/", Ok(true)),
            ("*.txt", "x/y.txt", Ok(true)),
            ("?", "é", Ok(true)),
            ("??", "é", Ok(false)),
            ("[é]", "é", Ok(true)),
            ("*a", "aaa", Ok(true)),
            ("a*a", "aaa", Ok(true)),
            ("[a-c]*[x]", "bzzx", Ok(true)),
            ("*x*", "axbxc", Ok(true)),
            ("[a", "a", Err(BadPattern)),
            ("a\\", "a", Ok(false)),
            ("x\\", "a", Ok(false)),
            ("[!a]", "!", Ok(true)),
            ("\\[", "[", Ok(true)),
        ];
        for (pattern, name, want) in cases {
            assert_eq!(
                &path_match(pattern.as_bytes(), name.as_bytes()),
                want,
                "pattern {pattern:?} name {name:?}"
            );
        }
    }

    // -- Behaviour specific to this API.

    #[test]
    fn unset_names_are_listed_once_in_evaluation_order() {
        let vars = map(&[("set", "1")]);
        let got = run("${b}${set}${a:-${c}}${b}${c}${#d}", &vars, false).unwrap();
        assert_eq!(got.text, "10");
        assert_eq!(got.unset, ["b", "c", "d"]);
        // Default-style references take their default: not unset, in
        // either mode; a reference inside the default still counts.
        let got = run("${x:=1}${y=2}${z:-}${set}", &vars, true).unwrap();
        assert_eq!(got.text, "121");
        assert!(got.unset.is_empty());
        let got = run("${x:-${APP}}${y:-${set}}", &vars, false).unwrap();
        assert_eq!(got.text, "1");
        assert_eq!(got.unset, ["APP"]);
        // A set-but-empty variable is set.
        let got = run("${e}", &map(&[("e", "")]), true).unwrap();
        assert!(got.unset.is_empty());
    }

    #[test]
    fn strict_mode_evaluates_unused_defaults() {
        // Flux evaluates arguments before looking at the variable, so an
        // unset reference inside an unused default still fails.
        let vars = map(&[("a", "1")]);
        assert_eq!(
            error("${a:-${b}}", &[("a", "1")], true),
            r#"variable not set (strict mode): "b""#
        );
        assert_eq!(run("${a:-${b:-2}}", &vars, true).unwrap().text, "1");
        assert_eq!(run("${a:-${b}}", &vars, false).unwrap().unset, ["b"]);
    }

    #[test]
    fn strict_error_names_the_first_unset_variable() {
        let msg = error("ok ${set}\n${first} ${second}", &[("set", "x")], true);
        assert_eq!(msg, r#"variable not set (strict mode): "first""#);
    }

    #[test]
    fn non_strict_turns_unset_into_empty() {
        let got = run(
            "[${missing}] [${#missing}] [${missing:-d}]",
            &map(&[]),
            false,
        )
        .unwrap();
        assert_eq!(got.text, "[] [0] [d]");
    }

    #[test]
    fn parse_errors_quote_the_expression_and_position() {
        assert_eq!(
            error("a: 1\nb: ${VAR-d} x", &[], false),
            r#"missing closing brace in expression "${VAR-d}" at line 2, column 4"#
        );
        assert_eq!(
            error("key: ${unterminated", &[], false),
            r#"missing closing brace in expression "${unterminated" at line 1, column 6"#
        );
        assert_eq!(
            error("x ${", &[], false),
            r#"unable to parse variable name in expression "${" at line 1, column 3"#
        );
        // The innermost expression being parsed is the one quoted.
        assert_eq!(
            error("é ${a:-${b+c}}", &[], false),
            r#"missing closing brace in expression "${b+c}" at line 1, column 8"#
        );
        assert_eq!(
            error("${a#${b}c}", &[], false),
            r#"bad substitution in expression "${a#${b}c}" at line 1, column 1"#
        );
        assert_eq!(
            error("${a:-x\nmore", &[], false),
            r#"unable to parse substitution within function in expression "${a:-x" at line 1, column 1"#
        );
        assert_eq!(expand("${a:-x\nmore}", &[]), "x\nmore");
        let long = format!("${{a:-{}", "x".repeat(200));
        let msg = error(&long, &[], false);
        assert!(
            msg.contains(&format!("\"${{a:-{}...\"", "x".repeat(75))),
            "{msg}"
        );
        // The message is the Display form too.
        let err = run("${-}", &map(&[]), false).unwrap_err();
        assert_eq!(err.to_string(), err.message);
        let _: &dyn std::error::Error = &err;
    }

    #[test]
    fn parse_errors_happen_before_any_lookup() {
        let calls = Cell::new(0);
        let lookup = |_: &str| {
            calls.set(calls.get() + 1);
            Some("v".to_string())
        };
        assert!(substitute("${a} ${b} ${c-d}", &lookup, true).is_err());
        assert_eq!(calls.get(), 0);
        assert_eq!(substitute("${a} ${b}", &lookup, true).unwrap().text, "v v");
        assert_eq!(calls.get(), 2);
    }

    #[test]
    fn lookup_sees_names_in_evaluation_order() {
        let seen = RefCell::new(Vec::new());
        let lookup = |n: &str| {
            seen.borrow_mut().push(n.to_string());
            None
        };
        substitute("${a:-${b}${c}} ${d//${e}/${f}}", &lookup, false).unwrap();
        assert_eq!(*seen.borrow(), ["b", "c", "a", "e", "f", "d"]);
    }

    #[test]
    fn dollar_handling() {
        let vars = [("A", "x")];
        assert_eq!(expand("$A ${A}", &vars), "$A x");
        assert_eq!(expand("$", &vars), "$");
        assert_eq!(expand("cost: $5", &vars), "cost: $5");
        assert_eq!(expand("$$", &vars), "$");
        assert_eq!(expand("$$$", &vars), "$$");
        assert_eq!(expand("$$$$", &vars), "$$");
        assert_eq!(expand("$${A}", &vars), "${A}");
        assert_eq!(expand("$$${A}", &vars), "$x");
        assert_eq!(expand("$$A", &vars), "$A");
        assert_eq!(expand("${A:-$$}", &vars), "x");
        assert_eq!(expand("${B:-$$}", &vars), "$$");
        assert_eq!(expand("${B:-$${A}}", &vars), "$x");
        assert_eq!(expand(r"\${A}", &vars), r"\x");
        assert_eq!(expand("{A} $}{ }", &vars), "{A} $}{ }");
    }

    #[test]
    fn default_operators_all_mean_value_or_default() {
        for op in [":-", ":=", "=", ":+", ":?"] {
            for (pairs, want) in [
                (&[("V", "val")][..], "val"),
                (&[("V", "")][..], "d"),
                (&[][..], "d"),
            ] {
                let input = format!("${{V{op}d}}");
                assert_eq!(expand(&input, pairs), want, "{input} with {pairs:?}");
                assert_eq!(
                    run(&input, &map(pairs), true).unwrap().text,
                    want,
                    "strict {input} with {pairs:?}"
                );
            }
        }
        for op in ["-", "+", "?"] {
            let msg = error(&format!("${{V{op}d}}"), &[("V", "x")], false);
            assert!(msg.starts_with("missing closing brace"), "{msg}");
        }
        // No assignment happens.
        assert_eq!(expand("${V:=d}|${V}|${V=e}", &[]), "d||e");
    }

    #[test]
    fn lengths_and_offsets_are_bytes() {
        let vars = [("U", "héllo")];
        assert_eq!(expand("${#U}", &vars), "6");
        assert_eq!(expand("${U:1:2}", &vars), "é");
        assert_eq!(expand("${U:3}", &vars), "llo");
        assert_eq!(expand("${U:-3}", &vars), "héllo");
        let msg = error("${U:1:1}", &vars, false);
        assert!(msg.contains("invalid UTF-8"), "{msg}");
        // A multi-byte rune right after ':' makes Go rewind too far.
        let msg = error("${U:é}", &vars, false);
        assert!(msg.starts_with("bad substitution"), "{msg}");
    }

    #[test]
    fn nul_ends_the_input_like_go() {
        let vars = [("A", "x")];
        assert_eq!(expand("a\0${A}", &vars), "a");
        assert_eq!(expand("${A}\0rest", &vars), "x");
        assert_eq!(expand("\0", &vars), "");
        let msg = error("${A:-x\0}", &vars, false);
        assert!(
            msg.starts_with("unable to parse substitution within function"),
            "{msg}"
        );
        // Without any '$' the NUL rule still applies.
        assert_eq!(expand("before\0after", &[]), "before");
    }

    #[test]
    fn names_use_unicode_letters_and_digits_like_go() {
        assert!(accept_ident('é', 1) && accept_ident('٣', 1) && accept_ident('_', 1));
        assert!(accept_ident('中', 1) && accept_ident('ǅ', 1));
        assert!(!accept_ident('²', 1), "No is not Nd");
        assert!(!accept_ident('Ⅻ', 1), "Nl is not a letter");
        assert!(
            !accept_ident('\u{94D}', 1),
            "combining marks are not letters"
        );
        assert!(!accept_ident('-', 1) && !accept_ident('.', 1) && !accept_ident(' ', 1));
        assert!(
            accept_ident('\u{31350}', 1),
            "CJK Ext H (Unicode 15.0) is a letter"
        );
        let msg = error("${x²}", &[], false);
        assert!(msg.starts_with("missing closing brace"), "{msg}");
    }

    #[test]
    fn valid_var_names() {
        for ok in [
            "a",
            "A",
            "_",
            "_1",
            "cluster_env",
            "CLUSTER_REGION2",
            "a1b2",
        ] {
            assert!(is_valid_var_name(ok), "{ok:?}");
        }
        for bad in [
            "", "1a", "9", "a-b", "a.b", "a b", "é", "aé", "a\n", "$a", "${a}", " a",
        ] {
            assert!(!is_valid_var_name(bad), "{bad:?}");
        }
    }

    #[test]
    fn nesting_is_limited() {
        let nest = |depth: usize| format!("{}x{}", "${a:-".repeat(depth), "}".repeat(depth));
        assert_eq!(expand(&nest(MAX_NESTING), &[]), "x");
        let msg = error(&nest(MAX_NESTING + 1), &[], false);
        assert!(msg.starts_with("expressions nested too deeply"), "{msg}");
    }

    #[test]
    fn large_inputs_are_linear() {
        let unit = "key: $$literal ${A} \\\\ $${B} text\n";
        let input = unit.repeat(50_000);
        let got = run(&input, &map(&[("A", "v")]), true).unwrap();
        assert_eq!(got.text, "key: $literal v \\\\ ${B} text\n".repeat(50_000));
        let escapes = format!("${{A/{}/x}}", "\\/".repeat(100_000));
        assert_eq!(expand(&escapes, &[("A", "a")]), "a");
    }

    #[test]
    fn text_without_dollars_is_returned_as_is() {
        let got = run("plain: yaml\n", &map(&[]), true).unwrap();
        assert_eq!(
            got,
            Substituted {
                text: "plain: yaml\n".into(),
                unset: vec![]
            }
        );
    }

    // -- The kustomize package's varsub testdata, at the text level.

    #[test]
    fn flux_kustomize_testdata() {
        let deployment = "\
metadata:
  labels:
    environment: ${cluster_env:=dev}
    region: ${cluster_region}
spec:
  template:
    metadata:
      annotations:
        prometheus.io/scrape: ${prometheus_scrape:=false}
        prometheus.io/port: ${prometheus_port}
    spec:
      containers:
      - name: nginx
        image: ${image}
";
        let vars = map(&[
            ("cluster_env", "prod"),
            ("cluster_region", "eu-central-1"),
            ("prometheus_scrape", "\"true\""),
            ("prometheus_port", "\"9797\""),
            ("image", "nginx:1.21.4"),
        ]);
        let got = run(deployment, &vars, true).unwrap();
        assert_eq!(
            got.text,
            deployment
                .replace("${cluster_env:=dev}", "prod")
                .replace("${cluster_region}", "eu-central-1")
                .replace("${prometheus_scrape:=false}", "\"true\"")
                .replace("${prometheus_port}", "\"9797\"")
                .replace("${image}", "nginx:1.21.4")
        );
        assert!(got.unset.is_empty());

        // varsubstrict: strict fails on ${missing}, lax renders it empty.
        let config = "labels:\n  environment: ${cluster_env:=dev}\n  region: ${cluster_region}\ndata:\n  missing: ${missing}\n";
        let msg = run(config, &vars, true).unwrap_err().message;
        assert!(msg.contains("variable not set"), "{msg}");
        let lax = run(config, &vars, false).unwrap();
        assert!(lax.text.ends_with("missing: \n"), "{:?}", lax.text);
        assert_eq!(lax.unset, ["missing"]);

        // varsubalways: with no variables the defaults apply.
        let always = "environment: ${cluster_env:=dev}\nregion: ${cluster_region:=eu-central-1}\n";
        assert_eq!(
            run(always, &map(&[]), true).unwrap().text,
            "environment: dev\nregion: eu-central-1\n"
        );

        // varsubstrictempty: variables set to "" are set.
        let empty = map(&[("empty_inline", ""), ("empty_cm", ""), ("empty_secret", "")]);
        let text = "a: \"${empty_inline}\"\nb: \"${empty_cm}\"\nc: \"${empty_secret}\"\n";
        assert_eq!(
            run(text, &empty, true).unwrap().text,
            "a: \"\"\nb: \"\"\nc: \"\"\n"
        );
    }

    #[test]
    fn go_decode_rune() {
        assert_eq!(decode_rune(b""), (REPLACEMENT, 0));
        assert_eq!(decode_rune(b"a"), ('a', 1));
        assert_eq!(decode_rune("é".as_bytes()), ('é', 2));
        assert_eq!(decode_rune("😀".as_bytes()), ('😀', 4));
        assert_eq!(decode_rune(b"\xc3"), (REPLACEMENT, 1));
        assert_eq!(decode_rune(b"\xe2\x82"), (REPLACEMENT, 1));
        assert_eq!(decode_rune(b"\xed\xa0\x80"), (REPLACEMENT, 1));
        assert_eq!(decode_rune(b"\xc0\xaf"), (REPLACEMENT, 1));
        assert_eq!(decode_rune(b"\xef\xbf\xbd"), (REPLACEMENT, 3));
        assert_eq!(reverse_runes(b"ab\xc3"), "\u{FFFD}ba".as_bytes());
    }
}
