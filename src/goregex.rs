//! Go's regular expressions (package `regexp`, RE2 syntax as Go parses it
//! with its Perl flags) run on the `regex` crate.
//!
//! The two syntaxes look alike but differ where charts notice: Go's `\d`,
//! `\w`, `\s` and `\b` are ASCII (the crate's are Unicode), Go's `\s` has no
//! vertical tab, a `[` inside a class is a literal in Go (a nested class in
//! the crate), `&&`, `--` and `~~` in a class are literals in Go (set
//! operations in the crate), Go reads `\Q...\E`, octal escapes, `x{`
//! and `a{,2}` as literals, and Go refuses `a**`, `x{1001}` and `(?x)`.
//! [`translate`] reads a pattern as Go's parser does, refuses what Go
//! refuses (with Go's message and the part of the pattern Go names), and
//! writes a pattern of the crate's syntax that matches what Go's matches:
//! every literal of a class as `\x{...}`, Perl classes as ASCII ranges,
//! word boundaries as ASCII ones.
//!
//! Left to the crate: Unicode class names (`\p{...}`; the crate knows a few
//! more than Go), nesting deeper than the crate's limit (250; Go's is
//! 1,000) and the size of the compiled program. A named group whose name the
//! crate refuses (Go allows a leading digit) or repeats (Go keeps the first)
//! becomes an unnamed group.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::rc::Rc;

use regex::Regex;

/// Go's `regexp/syntax` error: what is wrong and the part of the pattern
/// it is about.
#[derive(Debug, PartialEq)]
pub struct GoError {
    code: &'static str,
    expr: String,
}

impl std::fmt::Display for GoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "error parsing regexp: {}: `{}`", self.code, self.expr)
    }
}

const INVALID_CHAR_RANGE: &str = "invalid character class range";
const INVALID_ESCAPE: &str = "invalid escape sequence";
const INVALID_NAMED_CAPTURE: &str = "invalid named capture";
const INVALID_PERL_OP: &str = "invalid or unsupported Perl syntax";
const INVALID_REPEAT_OP: &str = "invalid nested repetition operator";
const INVALID_REPEAT_SIZE: &str = "invalid repeat count";
const MISSING_BRACKET: &str = "missing closing ]";
const MISSING_PAREN: &str = "missing closing )";
const MISSING_REPEAT_ARGUMENT: &str = "missing argument to repetition operator";
const TRAILING_BACKSLASH: &str = "trailing backslash at end of expression";
const UNEXPECTED_PAREN: &str = "unexpected )";

/// Go's largest count in `x{n,m}`, and the largest product of nested
/// counts.
const MAX_REPEAT: u64 = 1000;

/// The POSIX classes Go knows inside brackets (the crate knows the same
/// names, with the same ASCII members).
const POSIX: [&str; 14] = [
    "alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct",
    "space", "upper", "word", "xdigit",
];

/// A class that matches nothing (what Go makes of a class of surrogates).
const NOTHING: &str = r"[^\x{0}-\x{10FFFF}]";

/// Compiles a Go regular expression. Compiled expressions are kept per
/// thread (a chart calling `regexMatch` in a loop compiles its pattern once;
/// the crate's compilation costs ~200 K instructions for a small pattern),
/// shared (`Rc`): a clone of a `Regex` would start with empty search
/// caches of its own, which every search would then build again.
pub fn compile(re: &str) -> Result<Rc<Regex>, String> {
    thread_local! {
        static COMPILED: RefCell<HashMap<String, Result<Rc<Regex>, String>>> =
            RefCell::new(HashMap::new());
    }
    if let Some(hit) = COMPILED.with(|c| c.borrow().get(re).cloned()) {
        return hit;
    }
    let compiled = compile_uncached(re).map(Rc::new);
    COMPILED.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= 256 {
            c.clear();
        }
        c.insert(re.to_string(), compiled.clone());
    });
    compiled
}

fn compile_uncached(re: &str) -> Result<Regex, String> {
    let rust = translate(re).map_err(|e| e.to_string())?;
    Regex::new(&rust).map_err(|e| {
        // What the crate alone refuses (sizes, nesting, class names).
        let detail = e.to_string();
        let last = detail.lines().last().unwrap_or("").trim();
        let last = last.trim_start_matches("error: ");
        format!("error parsing regexp: {last}: `{re}`")
    })
}

/// One level of groups: the largest product of nested repeat counts over
/// its finished operands, and that of its last operand (`None`: no
/// operand since the group or the last `|` began).
#[derive(Default)]
struct Frame {
    /// Whether `U` (ungreedy) was set where the group began (restored at
    /// its end, as Go and the crate both do).
    ungreedy: bool,
    max: u64,
    last: Option<u64>,
}

impl Frame {
    fn close_operand(&mut self) {
        if let Some(w) = self.last.take() {
            self.max = self.max.max(w);
        }
    }

    fn weight(&self) -> u64 {
        self.max.max(self.last.unwrap_or(1)).max(1)
    }
}

struct Translator<'a> {
    src: &'a str,
    out: String,
    frames: Vec<Frame>,
    /// Where the previous token began, when it was a repetition.
    last_repeat: Option<usize>,
    names: HashSet<&'a str>,
    /// Flag groups (`(?i)`) not yet written: Go lets a repetition after
    /// them apply to the operand before them (`a(?i)*`), which the crate
    /// refuses, so they are written after that repetition.
    pending: String,
    /// Go's `U` flag here, and where the pending flags begin.
    ungreedy: bool,
    pending_ungreedy: bool,
}

/// Rewrites a Go pattern in the crate's syntax; Go's error when Go's parser
/// refuses it.
pub fn translate(src: &str) -> Result<String, GoError> {
    let mut t = Translator {
        src,
        out: String::with_capacity(src.len() + 16),
        frames: vec![Frame::default()],
        last_repeat: None,
        names: HashSet::new(),
        pending: String::new(),
        ungreedy: false,
        pending_ungreedy: false,
    };
    let mut i = 0;
    while i < src.len() {
        let last_repeat = t.last_repeat.take();
        let c = src[i..].chars().next().unwrap_or_default();
        i = match c {
            '(' if src[i + 1..].starts_with('?') => t.perl_group(i)?,
            '(' => {
                t.flush();
                t.open();
                t.out.push('(');
                i + 1
            }
            '|' => {
                t.flush();
                t.top().close_operand();
                t.out.push('|');
                i + 1
            }
            ')' => {
                if t.frames.len() == 1 {
                    return Err(err(UNEXPECTED_PAREN, src));
                }
                let w = t.frames.pop().map_or(1, |f| {
                    t.ungreedy = f.ungreedy;
                    f.weight()
                });
                t.operand(w);
                t.out.push(')');
                i + 1
            }
            '^' | '$' | '.' => {
                t.operand(1);
                t.out.push(c);
                i + 1
            }
            '[' => t.class(i)?,
            '*' | '+' | '?' => {
                let end = i + 1 + usize::from(src[i + 1..].starts_with('?'));
                t.repeat(i, end, last_repeat, None)?
            }
            '{' => match parse_repeat(&src[i..]) {
                Some((min, max, len)) => {
                    let bad = |n: i64| n < 0 || n as u64 > MAX_REPEAT;
                    if bad(min) || max > MAX_REPEAT as i64 || (max >= 0 && min > max) {
                        return Err(err(INVALID_REPEAT_SIZE, &src[i..i + len]));
                    }
                    let end = i + len + usize::from(src[i + len..].starts_with('?'));
                    t.repeat(i, end, last_repeat, Some((min, max)))?
                }
                None => {
                    t.literal('{' as u32);
                    i + 1
                }
            },
            '\\' => t.escape(i)?,
            c => {
                t.literal(c as u32);
                i + c.len_utf8()
            }
        };
    }
    if t.frames.len() > 1 {
        return Err(err(MISSING_PAREN, src));
    }
    t.flush();
    Ok(t.out)
}

fn err(code: &'static str, expr: &str) -> GoError {
    GoError {
        code,
        expr: expr.to_string(),
    }
}

impl<'a> Translator<'a> {
    fn top(&mut self) -> &mut Frame {
        self.frames.last_mut().expect("the outermost frame stays")
    }

    fn open(&mut self) {
        let ungreedy = self.ungreedy;
        self.frames.push(Frame {
            ungreedy,
            ..Frame::default()
        });
    }

    fn flush(&mut self) {
        self.out.push_str(&self.pending);
        self.pending.clear();
    }

    /// A new operand (what a repetition would apply to) of weight `w`,
    /// whose text follows.
    fn operand(&mut self, w: u64) {
        self.flush();
        let top = self.top();
        top.close_operand();
        top.last = Some(w);
    }

    fn literal(&mut self, c: u32) {
        self.operand(1);
        match char::from_u32(c) {
            Some(c) if c.is_ascii_alphanumeric() || !c.is_ascii() => self.out.push(c),
            Some(_) => {
                let _ = write!(self.out, r"\x{{{c:X}}}");
            }
            None => self.out.push_str(NOTHING),
        }
    }

    /// `*`, `+`, `?` or `{min,max}` (perhaps non-greedy) over `start..end`.
    fn repeat(
        &mut self,
        start: usize,
        end: usize,
        last_repeat: Option<usize>,
        counts: Option<(i64, i64)>,
    ) -> Result<usize, GoError> {
        let src = self.src;
        if let Some(prev) = last_repeat {
            return Err(err(INVALID_REPEAT_OP, &src[prev..end]));
        }
        let top = self.top();
        let Some(sub) = top.last else {
            return Err(err(MISSING_REPEAT_ARGUMENT, &src[start..end]));
        };
        // `?` after the operator swaps its greed; so do flags written
        // after it that Go applies before it (see `pending`).
        let question = match counts {
            None => end - start == 2,
            Some(_) => src[..end].ends_with('?'),
        };
        let swap = !self.pending.is_empty() && self.ungreedy != self.pending_ungreedy;
        let lazy = if question != swap { "?" } else { "" };
        let top = self.top();
        match counts {
            None => {
                let _ = write!(self.out, "{}{lazy}", &src[start..start + 1]);
            }
            Some((min, max)) => {
                // Go walks the repeated expression dividing 1,000 by each
                // count (`repeatIsValid`): the product of the counts of
                // nested `{}` repetitions on any path.
                let w = match max {
                    0 => 1,
                    m if m < 0 && min == 0 => sub,
                    m => (if m < 0 { min } else { m }) as u64 * sub,
                };
                if (min >= 2 || max >= 2) && w > MAX_REPEAT {
                    return Err(err(INVALID_REPEAT_SIZE, &src[start..end]));
                }
                top.last = Some(w);
                let _ = match max {
                    m if m < 0 => write!(self.out, "{{{min},}}{lazy}"),
                    m if m == min => write!(self.out, "{{{min}}}{lazy}"),
                    m => write!(self.out, "{{{min},{m}}}{lazy}"),
                };
            }
        }
        self.last_repeat = Some(start);
        Ok(end)
    }

    /// `(?` at `i`: a named group, or flags with or without a group.
    fn perl_group(&mut self, i: usize) -> Result<usize, GoError> {
        let src = self.src;
        let s = &src[i..];
        let name_at = if s.len() > 4 && s.starts_with("(?P<") {
            Some(4)
        } else if s.len() > 3 && s.starts_with("(?<") {
            Some(3)
        } else {
            None
        };
        if let Some(at) = name_at {
            let Some(end) = s.find('>') else {
                return Err(err(INVALID_NAMED_CAPTURE, s));
            };
            let name = &s[at..end];
            if name.is_empty() || !name.bytes().all(|b| b == b'_' || b.is_ascii_alphanumeric()) {
                return Err(err(INVALID_NAMED_CAPTURE, &s[..=end]));
            }
            self.flush();
            self.open();
            // The crate wants a name to start with a letter or `_` and to be
            // unique; `${name}` in Go means the first group of that name.
            if !name.starts_with(|c: char| c.is_ascii_digit()) && self.names.insert(name) {
                let _ = write!(self.out, "(?P<{name}>");
            } else {
                self.out.push('(');
            }
            return Ok(i + end + 1);
        }
        let mut negated = false;
        let mut saw_flag = false;
        // Each flag's last setting: Go takes `(?)`, `(?ii)` and `(?i-i)`,
        // which the crate refuses, so the flags are written out again.
        let mut set: Vec<(char, bool)> = Vec::new();
        for (k, c) in s[2..].char_indices() {
            let consumed = 2 + k + c.len_utf8();
            match c {
                'i' | 'm' | 's' | 'U' => {
                    saw_flag = true;
                    set.retain(|&(f, _)| f != c);
                    set.push((c, !negated));
                }
                '-' if !negated => {
                    negated = true;
                    saw_flag = false;
                }
                ':' | ')' if !negated || saw_flag => {
                    let on: String = set.iter().filter(|f| f.1).map(|f| f.0).collect();
                    let off: String = set.iter().filter(|f| !f.1).map(|f| f.0).collect();
                    let flags = match (on.is_empty(), off.is_empty()) {
                        (true, true) => String::new(),
                        (_, true) => on,
                        _ => format!("{on}-{off}"),
                    };
                    if c == ':' {
                        self.flush();
                        self.open();
                        let _ = write!(self.out, "(?{flags}:");
                    } else if !flags.is_empty() {
                        if self.pending.is_empty() {
                            self.pending_ungreedy = self.ungreedy;
                        }
                        let _ = write!(self.pending, "(?{flags})");
                    }
                    if let Some(&(_, on)) = set.iter().find(|f| f.0 == 'U') {
                        self.ungreedy = on;
                    }
                    return Ok(i + consumed);
                }
                _ => return Err(err(INVALID_PERL_OP, &s[..consumed])),
            }
        }
        Err(err(INVALID_PERL_OP, s))
    }

    /// A backslash at `i` outside a class.
    fn escape(&mut self, i: usize) -> Result<usize, GoError> {
        let src = self.src;
        let s = &src[i..];
        let rust = match s.as_bytes().get(1) {
            Some(b'A') => r"\A",
            Some(b'z') => r"\z",
            Some(b'b') => r"(?-u:\b)",
            Some(b'B') => r"(?-u:\B)",
            Some(b'C') => return Err(err(INVALID_ESCAPE, &s[..2])),
            Some(b'Q') => {
                let (lit, rest) = match s[2..].find(r"\E") {
                    Some(e) => (&s[2..2 + e], 2 + e + 2),
                    None => (&s[2..], s.len()),
                };
                for c in lit.chars() {
                    self.literal(c as u32);
                }
                return Ok(i + rest);
            }
            Some(b'p' | b'P') => {
                let (class, len) = unicode_class(s)?;
                self.operand(1);
                self.out.push_str(&class);
                return Ok(i + len);
            }
            Some(&b) => match perl_class(b) {
                Some((set, negated)) => {
                    self.operand(1);
                    let _ = write!(self.out, "[{}{set}]", if negated { "^" } else { "" });
                    return Ok(i + 2);
                }
                None => {
                    let (c, len) = parse_escape(s)?;
                    self.literal(c);
                    return Ok(i + len);
                }
            },
            None => return Err(err(TRAILING_BACKSLASH, "")),
        };
        self.operand(1);
        self.out.push_str(rust);
        Ok(i + 2)
    }

    /// A bracketed class at `start`.
    fn class(&mut self, start: usize) -> Result<usize, GoError> {
        let src = self.src;
        let whole = &src[start..];
        let mut t = start + 1;
        let negated = src[t..].starts_with('^');
        if negated {
            t += 1;
        }
        let mut items = String::new();
        let mut first = true;
        loop {
            let rest = &src[t..];
            if rest.is_empty() {
                return Err(err(MISSING_BRACKET, whole));
            }
            if rest.starts_with(']') && !first {
                break;
            }
            first = false;
            if rest.len() > 2
                && rest.starts_with("[:")
                && let Some(k) = rest[2..].find(":]")
            {
                let name = &rest[..k + 4];
                let bare = name[2..name.len() - 2].trim_start_matches('^');
                if !POSIX.contains(&bare) || name[2..].starts_with("^^") {
                    return Err(err(INVALID_CHAR_RANGE, name));
                }
                items.push_str(name);
                t += name.len();
                continue;
            }
            if rest.starts_with(r"\p") || rest.starts_with(r"\P") {
                let (class, len) = unicode_class(rest)?;
                items.push_str(&class);
                t += len;
                continue;
            }
            if rest.starts_with('\\')
                && let Some((set, neg)) = rest.as_bytes().get(1).and_then(|&b| perl_class(b))
            {
                if neg {
                    let _ = write!(items, "[^{set}]");
                } else {
                    items.push_str(set);
                }
                t += 2;
                continue;
            }
            let item = t;
            let (lo, len) = class_char(rest, whole)?;
            let mut hi = lo;
            t += len;
            let after = &src[t..];
            if after.len() >= 2 && after.starts_with('-') && !after[1..].starts_with(']') {
                let (h, len) = class_char(&after[1..], whole)?;
                hi = h;
                t += 1 + len;
                if hi < lo {
                    return Err(err(INVALID_CHAR_RANGE, &src[item..t]));
                }
            }
            // Surrogates match nothing (Go keeps them; the crate refuses them).
            let lo = if (0xD800..=0xDFFF).contains(&lo) {
                0xE000
            } else {
                lo
            };
            let hi = if (0xD800..=0xDFFF).contains(&hi) {
                0xD7FF
            } else {
                hi
            };
            if lo <= hi {
                let _ = write!(items, r"\x{{{lo:X}}}-\x{{{hi:X}}}");
            }
        }
        self.operand(1);
        match (items.is_empty(), negated) {
            (true, false) => self.out.push_str(NOTHING),
            (true, true) => self.out.push_str(r"[\x{0}-\x{10FFFF}]"),
            (false, _) => {
                let _ = write!(self.out, "[{}{items}]", if negated { "^" } else { "" });
            }
        }
        Ok(t + 1)
    }
}

/// A Perl class escape's letter: its members (for inside brackets) and
/// whether it is the negation. Go's are ASCII.
fn perl_class(b: u8) -> Option<(&'static str, bool)> {
    Some(match b {
        b'd' => ("0-9", false),
        b'D' => ("0-9", true),
        b's' => (r"\t\n\x0C\r ", false),
        b'S' => (r"\t\n\x0C\r ", true),
        b'w' => ("0-9A-Za-z_", false),
        b'W' => ("0-9A-Za-z_", true),
        _ => return None,
    })
}

/// `\pX`, `\p{Name}` or `\p{^Name}` (and `\P`) at the start of `s`: the
/// class in the crate's syntax and the length read.
fn unicode_class(s: &str) -> Result<(String, usize), GoError> {
    let mut negated = s.as_bytes()[1] == b'P';
    let (mut name, len) = if s[2..].starts_with('{') {
        let Some(end) = s.find('}') else {
            return Err(err(INVALID_CHAR_RANGE, s));
        };
        (&s[3..end], end + 1)
    } else {
        match s[2..].chars().next() {
            Some(c) => (&s[2..2 + c.len_utf8()], 2 + c.len_utf8()),
            None => return Err(err(INVALID_CHAR_RANGE, s)),
        }
    };
    if let Some(n) = name.strip_prefix('^') {
        negated = !negated;
        name = n;
    }
    let p = if negated { 'P' } else { 'p' };
    let class = format!(r"\{p}{{{name}}}");
    // A name Go does not know (the crate's own forms, `sc=Greek`, are
    // refused here as Go refuses them).
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_- ".contains(c))
        || Regex::new(&class).is_err()
    {
        return Err(err(INVALID_CHAR_RANGE, &s[..len]));
    }
    Ok((class, len))
}

/// A class member at the start of `s`: an escape or one character.
fn class_char(s: &str, whole: &str) -> Result<(u32, usize), GoError> {
    match s.chars().next() {
        None => Err(err(MISSING_BRACKET, whole)),
        Some('\\') => parse_escape(s),
        Some(c) => Ok((c as u32, c.len_utf8())),
    }
}

/// A single-character escape at the start of `s` (Go's `parseEscape`): the
/// code point and the length read.
fn parse_escape(s: &str) -> Result<(u32, usize), GoError> {
    let t = &s[1..];
    let Some(c) = t.chars().next() else {
        return Err(err(TRAILING_BACKSLASH, ""));
    };
    let mut len = 1 + c.len_utf8();
    let octal = |b: Option<&u8>| b.is_some_and(|b| (b'0'..=b'7').contains(b));
    let bytes = s.as_bytes();
    match c {
        '1'..='7' if !octal(bytes.get(len)) => {}
        '0'..='7' => {
            let mut r = c as u32 - '0' as u32;
            for _ in 1..3 {
                if !octal(bytes.get(len)) {
                    break;
                }
                r = r * 8 + u32::from(bytes[len] - b'0');
                len += 1;
            }
            return Ok((r, len));
        }
        'x' => {
            let hex = |c: char| c.to_digit(16);
            let mut rest = s[len..].chars();
            match rest.next() {
                None => {}
                Some('{') => {
                    len += 1;
                    let mut r: u32 = 0;
                    let mut digits = 0;
                    for c in rest.by_ref() {
                        len += c.len_utf8();
                        if c == '}' {
                            if digits == 0 {
                                break;
                            }
                            return Ok((r, len));
                        }
                        match hex(c) {
                            Some(v) if r * 16 + v <= 0x10FFFF => {
                                r = r * 16 + v;
                                digits += 1;
                            }
                            _ => break,
                        }
                    }
                }
                Some(x) => {
                    len += x.len_utf8();
                    let y = rest.next();
                    len += y.map_or(0, char::len_utf8);
                    if let (Some(x), Some(y)) = (hex(x), y.and_then(hex)) {
                        return Ok((x * 16 + y, len));
                    }
                }
            }
        }
        'a' => return Ok((7, len)),
        'f' => return Ok((12, len)),
        'n' => return Ok((10, len)),
        'r' => return Ok((13, len)),
        't' => return Ok((9, len)),
        'v' => return Ok((11, len)),
        c if c.is_ascii() && !c.is_ascii_alphanumeric() => return Ok((c as u32, len)),
        _ => {}
    }
    Err(err(INVALID_ESCAPE, &s[..len]))
}

/// Go's `parseRepeat`: `{n}`, `{n,}` or `{n,m}` at the start of `s` (no
/// leading zeros): min, max (-1: none) and the length, or `None` when `{`
/// is a literal. A number past 10^8 reads as -1 (Go's "too big").
fn parse_repeat(s: &str) -> Option<(i64, i64, usize)> {
    let b = s.as_bytes();
    let int = |at: usize| -> Option<(i64, usize)> {
        let digits = b[at..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 || (digits >= 2 && b[at] == b'0') {
            return None;
        }
        let mut n: i64 = 0;
        for &d in &b[at..at + digits] {
            if n >= 100_000_000 {
                return Some((-1, at + digits));
            }
            n = n * 10 + i64::from(d - b'0');
        }
        Some((n, at + digits))
    };
    let (min, mut at) = int(1)?;
    let max;
    match b.get(at)? {
        b',' => {
            at += 1;
            if *b.get(at)? == b'}' {
                max = -1;
            } else {
                let (m, next) = int(at)?;
                at = next;
                max = m;
                if m < 0 {
                    return (*b.get(at)? == b'}').then_some((-1, m, at + 1));
                }
            }
        }
        _ => max = min,
    }
    (*b.get(at)? == b'}').then_some((min, max, at + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn go_err(re: &str) -> String {
        translate(re).unwrap_err().to_string()
    }

    #[test]
    fn perl_classes_and_word_boundaries_are_ascii() {
        let m = |re: &str, s: &str| compile(re).unwrap().is_match(s);
        assert!(!m(r"^\d+$", "١٢٣"));
        assert!(m(r"^\D$", "٢"));
        assert!(!m(r"^\w+$", "héllo"));
        assert!(!m(r"^\s$", "\u{b}"));
        assert!(m(r"^\S$", "\u{b}"));
        assert!(!m(r"^[\d\s]+$", "1 ٢"));
        let r = compile(r"\b").unwrap();
        assert_eq!(r.replace_all("héllo", "|"), "|h|é|llo|");
    }

    #[test]
    fn class_members_are_literals() {
        let m = |re: &str, s: &str| compile(re).unwrap().is_match(s);
        assert!(m("^[[]$", "["));
        assert!(m("^[a&&b]+$", "&"));
        assert!(m("^[~~]+$", "~"));
        assert!(m("^[]a]+$", "]a"));
        assert!(m(r"^[\x{D800}a]$", "a"));
        assert!(!m(r"^[\x{D800}]$", "a"));
        assert!(m(r"^\Qa.b\E$", "a.b"));
        assert!(!m(r"^\Qa.b\E$", "axb"));
        assert!(m(r"^\08$", "\u{0}8"));
        assert!(m("^a{,2}$", "a{,2}"));
        assert!(m("^x{$", "x{"));
        assert!(m("^a{01}$", "a{01}"));
    }

    #[test]
    fn go_refuses_what_go_refuses() {
        for (re, want) in [
            ("a**", "invalid nested repetition operator: `**`"),
            ("a*??", "invalid nested repetition operator: `*??`"),
            ("x{2}{3}", "invalid nested repetition operator: `{2}{3}`"),
            ("(?x)a", "invalid or unsupported Perl syntax: `(?x`"),
            ("(?i-)", "invalid or unsupported Perl syntax: `(?i-)`"),
            ("(?P=a)", "invalid or unsupported Perl syntax: `(?P`"),
            ("a{1001}", "invalid repeat count: `{1001}`"),
            ("(a{100}){20}", "invalid repeat count: `{20}`"),
            ("[a", "missing closing ]: `[a`"),
            ("[[:foo:]]", "invalid character class range: `[:foo:]`"),
            ("[z-a]", "invalid character class range: `z-a`"),
            (r"\q", "invalid escape sequence: `\\q`"),
            (r"\C", "invalid escape sequence: `\\C`"),
            (r"\1", "invalid escape sequence: `\\1`"),
            ("a\\", "trailing backslash at end of expression: ``"),
            ("(?P<a", "invalid named capture: `(?P<a`"),
            ("(?P<a-b>x)", "invalid named capture: `(?P<a-b>`"),
            ("a)", "unexpected ): `a)`"),
            ("(a", "missing closing ): `(a`"),
            ("**", "missing argument to repetition operator: `*`"),
            ("(*)", "missing argument to repetition operator: `*`"),
            ("a|?", "missing argument to repetition operator: `?`"),
        ] {
            assert_eq!(go_err(re), format!("error parsing regexp: {want}"), "{re}");
        }
    }

    #[test]
    fn accepted_patterns_compile() {
        for re in [
            "^*$",
            "(?i)k",
            "_(?-i)*?",
            r"\S?\d*(?U)*",
            r"\S\D(?i){0}\Q(?-i)",
            "(?)a(?ii)(?i-i)(?i-s:b)",
            "(?P<x>a)(?P<x>b)",
            "(?P<1a>a)",
            "(?<n>a)",
            r"(?s:.)+?",
            r"\pL\p{Greek}\PN\p{^L}",
            "[[:^alpha:][:digit:]]",
            r"[\d-z]",
            "a{2,}b{0,3}?c{0}",
            r"[\x{41}-\x{5A}\n\t\-\]]",
        ] {
            let t = translate(re).unwrap();
            assert!(Regex::new(&t).is_ok(), "{re} -> {t}");
        }
        // A repetition after flags applies to the operand before them,
        // with the flags' greed.
        let first = |re: &str| {
            compile(re)
                .unwrap()
                .find("aa")
                .unwrap()
                .as_str()
                .to_string()
        };
        assert_eq!(first("a(?U)*"), "");
        assert_eq!(first("a(?U)*?"), "aa");
        assert_eq!(first("(?U)a(?-U)*"), "aa");
        let r = compile("(?P<x>a)(?P<x>b)").unwrap();
        assert_eq!(r.replace_all("ab", "${x}"), "a");
    }

    #[test]
    fn case_folding_of_perl_classes_is_go_s() {
        // Go folds \w's ASCII letters to ſ and K (Kelvin) too, and `\W` is
        // the negation of that.
        let r = compile(r"(?i)\W").unwrap();
        assert_eq!(r.replace_all("ſK", "X"), "ſK");
    }
}
