//! The YAML writer. It reproduces what kustomize prints: every object goes
//! through JSON and then `sigs.k8s.io/yaml`, i.e. go-yaml v2 (a port of
//! libyaml's emitter). Facts this relies on:
//!
//! - keys are sorted with go-yaml v2's "natural" order (non-letters before
//!   letters, digit runs compared as numbers);
//! - block style with 2-space indent; a sequence that is a mapping value is
//!   not indented; empty collections are `{}` and `[]`;
//! - a string that would read back as another type is double-quoted; a
//!   string containing `\n` is a literal block unless libyaml's analysis
//!   forbids it; otherwise plain, else single-quoted, else double-quoted;
//! - plain, single- and double-quoted scalars fold at a space once the
//!   column passes 80;
//! - floats print as Go's `encoding/json` prints them, read back by go-yaml
//!   v2 and printed with `strconv.FormatFloat(f, 'g', -1, 64)`.

use super::node::Node;
use super::parse::seps::{Chomp, read_block};
use super::resolve::{v2_needs_quotes, v3_needs_quotes};

const BEST_INDENT: i32 = 2;
const BEST_WIDTH: i32 = 80;

/// Prints one document (no `---`), ending with a newline.
pub fn to_string(node: &Node) -> String {
    let mut e = Emitter::new();
    e.out.reserve(size_hint(node));
    e.root(node);
    e.out
}

/// About how many bytes a document prints as (a little more for plain
/// scalars), so that the output of a large one is not copied again and
/// again as it grows.
fn size_hint(node: &Node) -> usize {
    const SMALL: usize = 1 << 12;
    fn scalar(n: &Node) -> usize {
        match n {
            Node::Str(s) => s.len() + 1,
            _ => 8,
        }
    }
    let mut total = scalar(node);
    // (A walk without recursion: a tree built in code may be deep.)
    let mut stack: Vec<(&Node, usize)> = Vec::new();
    if !node.is_scalar() {
        stack.push((node, 0));
    }
    while let Some((n, indent)) = stack.pop() {
        let mut child = |c: &'_ Node, extra: usize| {
            total += indent + extra;
            if c.is_scalar() {
                total += scalar(c);
            }
        };
        match n {
            Node::Seq(items) => {
                for it in items {
                    child(it, 2);
                }
                stack.extend(
                    items
                        .iter()
                        .filter(|c| !c.is_scalar())
                        .map(|c| (c, indent + 2)),
                );
            }
            Node::Map(m) => {
                for (k, v) in m.iter() {
                    child(v, k.len() + 2);
                }
                stack.extend(
                    m.iter()
                        .filter(|(_, c)| !c.is_scalar())
                        .map(|(_, c)| (c, indent + 2)),
                );
            }
            _ => {}
        }
    }
    // Small documents grow as strings do.
    if total < SMALL { 0 } else { total + total / 16 }
}

/// Prints one value as go-yaml v3's `Encoder` with `SetIndent(2)` does
/// (Helm's `toYamlPretty`), ending with a newline. Unlike go-yaml v2, a
/// sequence that is a mapping value is indented under its key, lines are
/// not folded, a string is quoted when go-yaml v3 would read it back as
/// another type (or as a YAML 1.1 bool or base-60 float), a tab does not
/// rule out a literal block, keys sort with v3's order, and floats print
/// as `strconv.FormatFloat(f, 'g', -1, 64)`.
pub fn to_string_v3(node: &Node) -> String {
    let mut e = Emitter::new();
    e.v3 = true;
    e.width = i32::MAX;
    e.root(node);
    e.out
}

/// Prints documents separated by `---` lines, as kustomize does.
pub fn stream_to_string<'a>(nodes: impl IntoIterator<Item = &'a Node>) -> String {
    let mut out = String::new();
    for (i, n) in nodes.into_iter().enumerate() {
        if i > 0 {
            out.push_str("---\n");
        }
        let mut e = Emitter::new();
        e.out = out;
        e.out.reserve(size_hint(n));
        e.root(n);
        out = e.out;
    }
    out
}

/// What a string becomes on its way to the output: kustomize prints JSON
/// (Go's encoder leaves U+0085 NEL unescaped) and reads it back with go-yaml
/// v2, which takes a raw NEL inside a quoted scalar as a line break and
/// folds it: a run of spaces and NELs becomes one space when it holds a
/// single NEL, else one newline per NEL after the first.
pub fn fold_nel(s: &str) -> std::borrow::Cow<'_, str> {
    if !has_nel(s) {
        return std::borrow::Cow::Borrowed(s);
    }
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != ' ' && chars[i] != '\u{85}' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && (chars[i] == ' ' || chars[i] == '\u{85}') {
            i += 1;
        }
        let run = &chars[start..i];
        let nels = run.iter().filter(|&&c| c == '\u{85}').count();
        match nels {
            0 => out.extend(run),
            1 => out.push(' '),
            n => out.extend(std::iter::repeat_n('\n', n - 1)),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Whether `s` holds U+0085 (bytes C2 85): a search for its last byte
/// first, which is quicker than a search for the character in the short
/// texts most keys and values are.
pub(crate) fn has_nel(s: &str) -> bool {
    s.as_bytes().contains(&0x85) && s.contains('\u{85}')
}

/// Whether go-yaml v3 may print `value` as a block scalar (else a block
/// style falls back to double quotes): unlike go-yaml v2 it takes a tab
/// for an ordinary character.
pub fn v3_block_allowed(value: &str) -> bool {
    if value.contains('\t') {
        analyze(&value.replace('\t', "x")).block_allowed
    } else {
        analyze(value).block_allowed
    }
}

/// go-yaml v3 prints a block scalar without an indentation indicator unless
/// it starts with a space or a line break; reading it back then fails when
/// its first line starts with a tab.
pub fn v3_block_unreadable(value: &str) -> bool {
    value.starts_with('\t') && v3_block_allowed(value)
}

/// The value go-yaml v3 reads back after printing `value` as a folded
/// block scalar, the style a field keeps when it was written `>` in its
/// source (kustomize prints every object with go-yaml v3 and reads it
/// back). The folded writer decides whether a line break after a text line
/// needs an extra (folding) break by looking at the first character of the
/// whole value instead of the next line's: it puts the extra break before
/// trailing empty lines and before a more-indented line (each then reads
/// back as one more line break), and none at all when the value starts with
/// a blank (two text lines then fold into one). A value that cannot be a
/// block (trailing space, space before a break, unprintable characters) is
/// printed double-quoted and comes back unchanged.
pub fn folded_round_trip(value: &str) -> String {
    if !v3_block_allowed(value) || value.contains(['\r', '\u{85}']) {
        return value.to_string();
    }
    let blank = |c: char| c == ' ' || c == '\t';
    let fold_breaks = value
        .trim_start_matches(is_break)
        .chars()
        .next()
        .is_some_and(|c| !blank(c) && c != '\0');
    // The writer: the printed lines (their text, empty for an empty line,
    // and the break that ends each).
    let mut lines: Vec<(String, Option<char>)> = vec![(String::new(), None)];
    let (mut breaks, mut leading_blank) = (true, true);
    let end_line = |lines: &mut Vec<(String, Option<char>)>, c: char| {
        lines.last_mut().expect("never empty").1 = Some(c);
        lines.push((String::new(), None));
    };
    for c in value.chars() {
        if is_break(c) {
            if !breaks && !leading_blank && c == '\n' && fold_breaks {
                end_line(&mut lines, '\n');
            }
            end_line(&mut lines, c);
            breaks = true;
        } else {
            if breaks {
                leading_blank = blank(c);
            }
            lines.last_mut().expect("never empty").0.push(c);
            breaks = false;
        }
    }
    // The chomping indicator the writer chose.
    let mut last = value.chars().rev();
    let chomp = match (last.next(), last.next()) {
        (Some(a), b) if is_break(a) && b.is_none_or(is_break) => Chomp::Keep,
        (Some(a), _) if is_break(a) => Chomp::Clip,
        _ => Chomp::Strip,
    };
    if chomp != Chomp::Strip {
        lines.pop();
    }
    // The reader.
    read_block(
        lines
            .iter()
            .map(|(t, b)| ((!t.is_empty()).then_some(t.as_str()), *b)),
        false,
        chomp,
    )
}

/// go-yaml v2's key order.
pub fn key_less(a: &str, b: &str) -> bool {
    key_less_in(a, b, false)
}

/// go-yaml v2's key order, or v3's (`v3`): v3 puts a letter before a digit
/// when the text before them ends with a digit (`a1b` before `a10`).
fn key_less_in(a: &str, b: &str, v3: bool) -> bool {
    if a.is_ascii() && b.is_ascii() {
        // The same comparison on bytes: for ASCII text a byte is a char.
        return runes_less(a.as_bytes(), b.as_bytes(), |c| c.is_ascii_alphabetic(), v3);
    }
    let ar: Vec<char> = a.chars().collect();
    let br: Vec<char> = b.chars().collect();
    runes_less(&ar, &br, |c| c.is_alphabetic(), v3)
}

/// go-yaml's `keyList.Less` over runes (chars, or the bytes of ASCII
/// text); `v3` for go-yaml v3's.
fn runes_less<T: Copy + Ord + Into<u32>>(
    ar: &[T],
    br: &[T],
    alphabetic: impl Fn(T) -> bool,
    v3: bool,
) -> bool {
    let digit = |c: T| (u32::from('0')..=u32::from('9')).contains(&c.into());
    let zero = |c: T| c.into() == u32::from('0');
    let value = |c: T| i64::from(c.into()) - i64::from(u32::from('0'));
    let mut i = 0;
    let mut digits = false;
    while i < ar.len() && i < br.len() {
        if ar[i] == br[i] {
            digits = digit(ar[i]);
            i += 1;
            continue;
        }
        let al = alphabetic(ar[i]);
        let bl = alphabetic(br[i]);
        if al && bl {
            return ar[i] < br[i];
        }
        if al || bl {
            return if v3 && digits { al } else { bl };
        }
        let (mut an, mut bn): (i64, i64) = (0, 0);
        if zero(ar[i]) || zero(br[i]) {
            let mut j = i;
            while j > 0 {
                j -= 1;
                if !digit(ar[j]) {
                    break;
                }
                if !zero(ar[j]) {
                    an = 1;
                    bn = 1;
                    break;
                }
            }
        }
        let mut ai = i;
        while ai < ar.len() && digit(ar[ai]) {
            an = an.wrapping_mul(10).wrapping_add(value(ar[ai]));
            ai += 1;
        }
        let mut bi = i;
        while bi < br.len() && digit(br[bi]) {
            bn = bn.wrapping_mul(10).wrapping_add(value(br[bi]));
            bi += 1;
        }
        if an != bn {
            return an < bn;
        }
        if ai != bi {
            return ai < bi;
        }
        return ar[i] < br[i];
    }
    ar.len() < br.len()
}

/// go-yaml v2's key order as an ordering.
fn key_order(a: &str, b: &str) -> std::cmp::Ordering {
    key_order_in(a, b, false)
}

/// go-yaml v2's (or v3's) key order as an ordering.
fn key_order_in(a: &str, b: &str, v3: bool) -> std::cmp::Ordering {
    if key_less_in(a, b, v3) {
        std::cmp::Ordering::Less
    } else if key_less_in(b, a, v3) {
        std::cmp::Ordering::Greater
    } else {
        std::cmp::Ordering::Equal
    }
}

pub fn sorted_keys(m: &super::node::Map) -> Vec<&String> {
    let mut keys: Vec<&String> = m.keys().collect();
    keys.sort_by(|a, b| key_order(a, b));
    keys
}

/// A float as kustomize prints it.
pub fn format_float(f: f64) -> String {
    if f.is_nan() {
        return ".nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            ".inf".into()
        } else {
            "-.inf".into()
        };
    }
    if f.fract() == 0.0 && f.abs() < 1e21 {
        // Go's encoding/json writes the shortest decimal that reads back
        // as f, padded with zeros (9223372036854776000); go-yaml v2 reads
        // that as an integer when it fits in 64 bits, else as a float.
        if f == 0.0 {
            return "0".into();
        }
        let sci = format!("{:e}", f.abs());
        let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
        let exp: usize = exp.parse().unwrap_or(0);
        let mut digits: String = mant.chars().filter(|c| *c != '.').collect();
        while digits.len() < exp + 1 {
            digits.push('0');
        }
        let text = if f < 0.0 {
            format!("-{digits}")
        } else {
            digits
        };
        if text.parse::<i64>().is_ok() || text.parse::<u64>().is_ok() {
            return text;
        }
    }
    go_format_g(f)
}

/// The text kyaml gives a float it did not read from a file (one that went
/// through Go's JSON decoder): `strconv.FormatFloat(f, 'g', -1, 64)`.
pub fn kyaml_float_text(f: f64) -> String {
    if f.is_nan() {
        ".nan".into()
    } else if f.is_infinite() {
        if f > 0.0 {
            ".inf".into()
        } else {
            "-.inf".into()
        }
    } else {
        go_format_g(f)
    }
}

/// `strconv.FormatFloat(f, 'g', -1, 64)`.
pub fn go_format_g(f: f64) -> String {
    format_g(format!("{:e}", f))
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 32)`: the shortest text that reads
/// back as the same float32.
pub fn go_format_g32(f: f32) -> String {
    format_g(format!("{:e}", f))
}

/// 'g' formatting of a number given in Rust's shortest `{:e}` form.
fn format_g(sci: String) -> String {
    let (neg, sci) = match sci.strip_prefix('-') {
        Some(s) => (true, s.to_string()),
        None => (false, sci),
    };
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mant.chars().filter(|c| *c != '.').collect();
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if !(-4..6).contains(&exp) {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        out.push_str(&format!("{:02}", exp.abs()));
    } else if exp < 0 {
        out.push_str("0.");
        for _ in 0..(-exp - 1) {
            out.push('0');
        }
        out.push_str(&digits);
    } else {
        let dp = (exp + 1) as usize;
        if digits.len() <= dp {
            out.push_str(&digits);
            for _ in digits.len()..dp {
                out.push('0');
            }
        } else {
            out.push_str(&digits[..dp]);
            out.push('.');
            out.push_str(&digits[dp..]);
        }
    }
    out
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Style {
    Plain,
    Single,
    Double,
    Literal,
}

struct Analysis {
    multiline: bool,
    block_plain_allowed: bool,
    single_quoted_allowed: bool,
    block_allowed: bool,
}

fn is_printable(c: char) -> bool {
    let c = c as u32;
    c == 0x0A
        || (0x20..=0x7E).contains(&c)
        || (0xA0..=0xD7FF).contains(&c)
        || ((0xE000..=0xFFFD).contains(&c) && c != 0xFEFF)
}

pub(super) fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

fn is_blankz(c: Option<char>) -> bool {
    match c {
        None => true,
        Some(c) => c == ' ' || c == '\t' || is_break(c) || c == '\0',
    }
}

/// Whether `s` holds a line break (libyaml's analysis: multiline).
fn has_break(s: &str) -> bool {
    if s.is_ascii() {
        s.bytes().any(|b| b == b'\n' || b == b'\r')
    } else {
        s.chars().any(is_break)
    }
}

/// Whether [`analyze`] allows everything for `value` on a look at its
/// bytes alone: printable ASCII without spaces, `:` or `#`, not starting
/// with an indicator (nor `-` or `.`, which may start `---` or `...`).
fn plain_safe(value: &str) -> bool {
    let b = value.as_bytes();
    let Some(&first) = b.first() else {
        return false;
    };
    first.is_ascii_alphanumeric()
        && b.iter()
            .all(|&c| c.is_ascii_graphic() && c != b':' && c != b'#')
}

/// An ASCII character that, past a scalar's first, sets no flag of
/// [`analyze`]: printable, not white space or a break, and no indicator
/// that counts inside a scalar (`,?[]{}:#`).
fn ordinary_byte(b: u8) -> bool {
    b.is_ascii_graphic() && !matches!(b, b',' | b'?' | b'[' | b']' | b'{' | b'}' | b':' | b'#')
}

/// Whether go-yaml v3 may write `value` as a plain scalar in block context
/// (else it quotes it, whatever it resolves to).
pub fn plain_allowed(value: &str) -> bool {
    analyze(value).block_plain_allowed
}

fn analyze(value: &str) -> Analysis {
    if plain_safe(value) {
        return Analysis {
            multiline: false,
            block_plain_allowed: true,
            single_quoted_allowed: true,
            block_allowed: true,
        };
    }
    if value.is_empty() {
        return Analysis {
            multiline: false,
            block_plain_allowed: true,
            single_quoted_allowed: true,
            block_allowed: false,
        };
    }
    let mut block_indicators = false;
    let mut flow_indicators = false;
    let mut line_breaks = false;
    let mut special_characters = false;
    let mut leading_space = false;
    let mut leading_break = false;
    let mut trailing_space = false;
    let mut trailing_break = false;
    let mut break_space = false;
    let mut space_break = false;
    let mut previous_space = false;
    let mut previous_break = false;

    if value.starts_with("---") || value.starts_with("...") {
        block_indicators = true;
        flow_indicators = true;
    }
    let mut preceded_by_whitespace = true;
    let bytes = value.as_bytes();
    let mut pos = 0;
    let mut first = true;
    while pos < bytes.len() {
        // Past the first character, a run of ordinary ones (see
        // `ordinary_byte`) only says the previous character was neither
        // white space nor a break: skip it whole.
        if !first && ordinary_byte(bytes[pos]) {
            pos += bytes[pos..]
                .iter()
                .take_while(|b| ordinary_byte(**b))
                .count();
            previous_space = false;
            previous_break = false;
            preceded_by_whitespace = false;
            continue;
        }
        let Some(c) = value[pos..].chars().next() else {
            break;
        };
        pos += c.len_utf8();
        let next = value[pos..].chars().next();
        let last = next.is_none();
        let followed_by_whitespace = is_blankz(next);
        if first {
            match c {
                '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"'
                | '%' | '@' | '`' => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                '?' | ':' => {
                    flow_indicators = true;
                    if followed_by_whitespace {
                        block_indicators = true;
                    }
                }
                '-' if followed_by_whitespace => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                _ => {}
            }
        } else {
            match c {
                ',' | '?' | '[' | ']' | '{' | '}' => flow_indicators = true,
                ':' => {
                    flow_indicators = true;
                    if followed_by_whitespace {
                        block_indicators = true;
                    }
                }
                '#' if preceded_by_whitespace => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                _ => {}
            }
        }
        if !is_printable(c) {
            special_characters = true;
        }
        if is_break(c) {
            line_breaks = true;
        }
        if c == ' ' {
            if first {
                leading_space = true;
            }
            if last {
                trailing_space = true;
            }
            if previous_break {
                break_space = true;
            }
            previous_space = true;
            previous_break = false;
        } else if is_break(c) {
            if first {
                leading_break = true;
            }
            if last {
                trailing_break = true;
            }
            if previous_space {
                space_break = true;
            }
            previous_break = true;
            previous_space = false;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = is_blankz(Some(c));
        first = false;
    }
    let _ = flow_indicators;
    let mut a = Analysis {
        multiline: line_breaks,
        block_plain_allowed: true,
        single_quoted_allowed: true,
        block_allowed: true,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        a.block_plain_allowed = false;
    }
    if trailing_space {
        a.block_allowed = false;
    }
    if break_space {
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
    }
    if space_break || special_characters {
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
        a.block_allowed = false;
    }
    if line_breaks {
        a.block_plain_allowed = false;
    }
    if block_indicators {
        a.block_plain_allowed = false;
    }
    a
}

struct Emitter {
    out: String,
    column: i32,
    indent: i32,
    indents: Vec<i32>,
    whitespace: bool,
    indention: bool,
    open_ended: bool,
    /// go-yaml v3's layout and rules (see [`to_string_v3`]).
    v3: bool,
    /// The column past which lines fold at a space.
    width: i32,
}

impl Emitter {
    fn new() -> Self {
        Emitter {
            out: String::new(),
            column: 0,
            indent: -1,
            indents: Vec::new(),
            whitespace: true,
            indention: true,
            open_ended: false,
            v3: false,
            width: BEST_WIDTH,
        }
    }

    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    /// [`Emitter::put_run`] in a scalar's line: after the indentation of
    /// a line break when one is pending (`breaks`).
    fn put_line_run(&mut self, s: &str, breaks: &mut bool) {
        if *breaks {
            self.write_indent();
        }
        self.put_run(s);
        self.indention = false;
        *breaks = false;
    }

    /// Writes a text without line breaks, as `put` of each of its
    /// characters would.
    fn put_run(&mut self, s: &str) {
        self.out.push_str(s);
        self.column += if s.is_ascii() {
            s.len() as i32
        } else {
            s.chars().count() as i32
        };
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    /// libyaml's write_break: a line feed is written as a newline, any
    /// other break character (LS, PS) as itself; both start a new line.
    fn write_break(&mut self, c: char) {
        if c == '\n' {
            self.put_break();
        } else {
            self.out.push(c);
            self.column = 0;
        }
    }

    fn write_str(&mut self, s: &str) {
        for c in s.chars() {
            self.put(c);
        }
    }

    fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { BEST_INDENT } else { 0 };
        } else if !indentless {
            self.indent += BEST_INDENT;
        }
    }

    fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    fn write_indent(&mut self) {
        let indent = self.indent.max(0);
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(' ');
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn write_indicator(
        &mut self,
        ind: &str,
        need_whitespace: bool,
        is_whitespace: bool,
        is_indention: bool,
    ) {
        if need_whitespace && !self.whitespace {
            self.put(' ');
        }
        self.write_str(ind);
        self.whitespace = is_whitespace;
        self.indention = self.indention && is_indention;
        self.open_ended = false;
    }

    fn root(&mut self, node: &Node) {
        self.node(node, false, false, true);
        // document end
        self.write_indent_end();
        // (go-yaml v3 ends a document implicitly, never with `...`.)
        if self.open_ended && !self.v3 {
            self.write_indicator("...", true, false, false);
            self.write_indent_end();
        }
    }

    fn write_indent_end(&mut self) {
        self.indent = -1;
        self.write_indent();
    }

    fn node(&mut self, node: &Node, mapping_context: bool, simple_key: bool, root: bool) {
        match node {
            Node::Map(m) if m.is_empty() => self.flow_empty("{", "}"),
            Node::Seq(s) if s.is_empty() => self.flow_empty("[", "]"),
            Node::Map(m) if self.v3 => {
                self.increase_indent(false, false);
                let mut keys: Vec<(&str, &Node)> = m.iter().map(|(k, v)| (k.as_str(), v)).collect();
                keys.sort_by(|a, b| key_order_in(a.0, b.0, true));
                for (k, v) in keys {
                    self.entry(k, v);
                }
                self.pop_indent();
            }
            Node::Map(m) => {
                self.increase_indent(false, false);
                if m.keys().any(|k| has_nel(k)) {
                    let mut keys: Vec<(std::borrow::Cow<'_, str>, &Node)> =
                        m.iter().map(|(k, v)| (fold_nel(k), v)).collect();
                    keys.sort_by(|a, b| key_order(&a.0, &b.0));
                    for (k, v) in keys {
                        self.entry(&k, v);
                    }
                } else if m.keys().zip(m.keys().skip(1)).all(|(a, b)| !key_less(b, a)) {
                    // Already in order (as every map kustomize printed
                    // is): the stable sort would change nothing.
                    for (k, v) in m.iter() {
                        self.entry(k, v);
                    }
                } else {
                    let mut keys: Vec<(&str, &Node)> =
                        m.iter().map(|(k, v)| (k.as_str(), v)).collect();
                    keys.sort_by(|a, b| key_order(a.0, b.0));
                    for (k, v) in keys {
                        self.entry(k, v);
                    }
                }
                self.pop_indent();
            }
            Node::Seq(items) => {
                // go-yaml v3 indents every block sequence.
                let indentless = !self.v3 && mapping_context && !self.indention;
                self.increase_indent(false, indentless);
                for it in items {
                    self.write_indent();
                    self.write_indicator("-", true, false, true);
                    self.node(it, false, false, false);
                }
                self.pop_indent();
            }
            scalar => {
                let _ = simple_key;
                self.scalar(scalar, false, root);
            }
        }
    }

    /// One entry of a block mapping (its key already NEL-folded).
    fn entry(&mut self, k: &str, v: &Node) {
        self.write_indent();
        // libyaml's check_simple_key: at most 128 bytes, one line.
        let simple = k.len() <= 128 && !has_break(k);
        if simple {
            self.str_scalar(k, true, false);
            self.write_indicator(":", false, false, false);
        } else {
            self.write_indicator("?", true, false, true);
            self.node(&Node::Str(k.to_string()), true, false, false);
            self.write_indent();
            self.write_indicator(":", true, false, true);
        }
        self.node(v, true, false, false);
    }

    fn flow_empty(&mut self, open: &str, close: &str) {
        self.write_indicator(open, true, true, false);
        self.write_indicator(close, false, false, false);
    }

    fn scalar(&mut self, node: &Node, simple_key: bool, root: bool) {
        match node {
            Node::Str(s) => self.str_scalar(s, simple_key, root),
            Node::Float(f) if self.v3 => {
                self.styled_scalar(&kyaml_float_text(*f), Style::Plain, simple_key, root)
            }
            other => {
                let text = other.scalar_text().unwrap_or_default();
                self.styled_scalar(&text, Style::Plain, simple_key, root);
            }
        }
    }

    fn str_scalar(&mut self, s: &str, simple_key: bool, root: bool) {
        if self.v3 {
            let style = if s.contains('\n') {
                Style::Literal
            } else if v3_needs_quotes(s) {
                Style::Double
            } else {
                Style::Plain
            };
            self.styled_scalar(s, style, simple_key, root);
            return;
        }
        let s = fold_nel(s);
        let style = if v2_needs_quotes(&s) {
            Style::Double
        } else if s.contains('\n') {
            Style::Literal
        } else {
            Style::Plain
        };
        self.styled_scalar(&s, style, simple_key, root);
    }

    fn styled_scalar(&mut self, text: &str, style: Style, simple_key: bool, root: bool) {
        let a = if self.v3 && text.contains('\t') {
            // go-yaml v3 takes a tab for an ordinary character that only
            // rules out the plain and single-quoted styles.
            let mut a = analyze(&text.replace('\t', "x"));
            a.block_plain_allowed = false;
            a.single_quoted_allowed = false;
            a
        } else {
            analyze(text)
        };
        let mut style = style;
        if simple_key && a.multiline {
            style = Style::Double;
        }
        if style == Style::Plain && (!a.block_plain_allowed || (text.is_empty() && simple_key)) {
            style = Style::Single;
        }
        if style == Style::Single && !a.single_quoted_allowed {
            style = Style::Double;
        }
        if style == Style::Literal && (!a.block_allowed || simple_key) {
            style = Style::Double;
        }
        self.increase_indent(true, false);
        let allow_breaks = !simple_key;
        match style {
            Style::Plain => self.write_plain(text, allow_breaks, root),
            Style::Single => self.write_single(text, allow_breaks),
            Style::Double => self.write_double(text, allow_breaks),
            Style::Literal => self.write_literal(text),
        }
        self.pop_indent();
    }

    fn write_plain(&mut self, value: &str, allow_breaks: bool, root: bool) {
        if !self.whitespace {
            self.put(' ');
        }
        if !value.contains(' ') {
            // Nothing to break at: the text as it is.
            self.out.push_str(value);
            self.column += value.chars().count() as i32;
            if !value.is_empty() {
                self.indention = false;
            }
        } else {
            let bytes = value.as_bytes();
            let mut spaces = false;
            let mut i = 0;
            while i < bytes.len() {
                if bytes[i] == b' ' {
                    if allow_breaks
                        && !spaces
                        && self.column > self.width
                        && bytes.get(i + 1) != Some(&b' ')
                    {
                        self.write_indent();
                    } else {
                        self.put(' ');
                    }
                    spaces = true;
                    i += 1;
                } else {
                    // Up to the next space, written whole.
                    let run = super::run_len(&bytes[i..], |b| b != b' ');
                    self.put_run(&value[i..i + run]);
                    self.indention = false;
                    spaces = false;
                    i += run;
                }
            }
        }
        self.whitespace = false;
        self.indention = false;
        if root {
            self.open_ended = true;
        }
    }

    fn write_single(&mut self, value: &str, allow_breaks: bool) {
        self.write_indicator("'", true, false, false);
        let mut spaces = false;
        let mut breaks = false;
        let bytes = value.as_bytes();
        let n = bytes.len();
        let mut i = 0;
        while i < n {
            // A run of printable ASCII but spaces and quotes: as it is.
            let run = super::run_len(&bytes[i..], |b| b > b' ' && b < 0x7f && b != b'\'');
            if run > 0 {
                self.put_line_run(&value[i..i + run], &mut breaks);
                spaces = false;
                i += run;
                continue;
            }
            let Some(c) = value[i..].chars().next() else {
                break;
            };
            let next = i + c.len_utf8();
            if c == ' ' {
                if allow_breaks
                    && !spaces
                    && self.column > self.width
                    && i > 0
                    && next < n
                    && bytes[next] != b' '
                {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if c == '\'' {
                    self.put('\'');
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
            i = next;
        }
        self.write_indicator("'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_double(&mut self, value: &str, allow_breaks: bool) {
        self.write_indicator("\"", true, false, false);
        let mut spaces = false;
        let bytes = value.as_bytes();
        let n = bytes.len();
        let mut i = 0;
        while i < n {
            // A run of printable ASCII but spaces, quotes and backslashes:
            // as it is.
            let run = super::run_len(&bytes[i..], |b| {
                b > b' ' && b < 0x7f && b != b'"' && b != b'\\'
            });
            if run > 0 {
                self.put_run(&value[i..i + run]);
                spaces = false;
                i += run;
                continue;
            }
            let Some(c) = value[i..].chars().next() else {
                break;
            };
            let next = i + c.len_utf8();
            if !is_printable(c) || c == '\u{feff}' || is_break(c) || c == '"' || c == '\\' {
                self.put('\\');
                match c {
                    '\0' => self.put('0'),
                    '\u{7}' => self.put('a'),
                    '\u{8}' => self.put('b'),
                    '\t' => self.put('t'),
                    '\n' => self.put('n'),
                    '\u{b}' => self.put('v'),
                    '\u{c}' => self.put('f'),
                    '\r' => self.put('r'),
                    '\u{1b}' => self.put('e'),
                    '"' => self.put('"'),
                    '\\' => self.put('\\'),
                    '\u{85}' => self.put('N'),
                    '\u{a0}' => self.put('_'),
                    '\u{2028}' => self.put('L'),
                    '\u{2029}' => self.put('P'),
                    _ => {
                        let v = c as u32;
                        let s = if v <= 0xFF {
                            format!("x{v:02X}")
                        } else if v <= 0xFFFF {
                            format!("u{v:04X}")
                        } else {
                            format!("U{v:08X}")
                        };
                        self.write_str(&s);
                    }
                }
                spaces = false;
            } else if c == ' ' {
                if allow_breaks && !spaces && self.column > self.width && i != 0 && next != n {
                    self.write_indent();
                    if bytes.get(next) == Some(&b' ') {
                        self.put('\\');
                    }
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                self.put(c);
                spaces = false;
            }
            i = next;
        }
        self.write_indicator("\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_literal(&mut self, value: &str) {
        self.write_indicator("|", true, false, false);
        // block scalar hints
        let first = value.chars().next();
        if matches!(first, Some(c) if c == ' ' || is_break(c)) {
            self.write_indicator(&BEST_INDENT.to_string(), false, false, false);
        }
        self.open_ended = false;
        let mut from_end = value.chars().rev();
        let chomp = if let Some(last) = from_end.next() {
            let before = from_end.next();
            if !is_break(last) {
                Some('-')
            } else if before.is_none_or(is_break) {
                self.open_ended = true;
                Some('+')
            } else {
                None
            }
        } else {
            Some('-')
        };
        if let Some(ch) = chomp {
            // go-yaml v2's write_indicator clears open_ended again here.
            self.write_indicator(&ch.to_string(), false, false, false);
        }
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut breaks = true;
        let mut i = 0;
        while i < value.len() {
            // A run of ASCII but line breaks: as it is.
            let run = super::run_len(&value.as_bytes()[i..], |b| {
                b < 0x80 && b != b'\n' && b != b'\r'
            });
            if run > 0 {
                self.put_line_run(&value[i..i + run], &mut breaks);
                i += run;
                continue;
            }
            let Some(c) = value[i..].chars().next() else {
                break;
            };
            i += c.len_utf8();
            if is_break(c) {
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                breaks = false;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse::parse_one;

    fn rt(s: &str) -> String {
        to_string(&parse_one(s).unwrap())
    }

    #[test]
    fn folded_blocks_like_go_yaml_v3() {
        for (value, back) in [
            ("a b\n", "a b\n"),
            ("a\nb", "a\nb"),
            ("a\n\nb\n", "a\n\nb\n"),
            ("team-a\n\n\n", "team-a\n\n\n\n"),
            ("y\n\n", "y\n\n\n"),
            ("a\n  b\n", "a\n\n  b\n"),
            ("  k\nl\nm\n", "  k\nl m\n"),
            ("\n\n", "\n\n"),
            ("a \nb", "a \nb"),
        ] {
            assert_eq!(folded_round_trip(value), back, "{value:?}");
        }
    }

    #[test]
    fn sorts_keys_naturally() {
        assert_eq!(rt("b: 1\na: 2\n"), "a: 2\nb: 1\n");
        assert!(key_less("a-b", "ab"));
        assert!(key_less("a2", "a10"));
        assert!(key_less("app", "app.kubernetes.io/name"));
    }

    #[test]
    fn quotes_like_go_yaml_v2() {
        assert_eq!(rt("a: \"on\"\n"), "a: \"on\"\n");
        assert_eq!(rt("a: on\n"), "a: \"on\"\n");
        assert_eq!(rt("a: \"8080\"\n"), "a: \"8080\"\n");
        assert_eq!(rt("a: 1.0\n"), "a: 1\n");
        assert_eq!(rt("a: '#x'\n"), "a: '#x'\n");
        assert_eq!(rt("a: \"x #y\"\n"), "a: 'x #y'\n");
        assert_eq!(rt("a: \"it's: x\"\n"), "a: 'it''s: x'\n");
        assert_eq!(rt("a: \"tab\\there\"\n"), "a: \"tab\\there\"\n");
        assert_eq!(rt("\"y\": 1\n"), "\"y\": 1\n");
        assert_eq!(rt("a: \"\"\n"), "a: \"\"\n");
        assert_eq!(rt("a: ~\n"), "a: null\n");
        assert_eq!(rt("a: 2001-12-14\n"), "a: \"2001-12-14T00:00:00Z\"\n");
        assert_eq!(rt("a: \"\\x01\"\n"), "a: \"\\x01\"\n");
        assert_eq!(rt("a: \"\\U0001F600\"\n"), "a: \"\\U0001F600\"\n");
    }

    #[test]
    fn floats_like_go() {
        assert_eq!(format_float(1.5), "1.5");
        assert_eq!(format_float(1e23), "1e+23");
        assert_eq!(format_float(3e-5), "3e-05");
        assert_eq!(format_float(1234567.5), "1.2345675e+06");
        assert_eq!(format_float(0.0001), "0.0001");
        assert_eq!(
            format_float(1e20),
            "100000000000000000000"
                .parse::<f64>()
                .map(|_| "1e+20")
                .unwrap()
        );
    }

    #[test]
    fn block_layout() {
        assert_eq!(
            rt("a:\n  b:\n  - x: 1\n    y: [1, 2]\n  - []\n  c: {}\n"),
            "a:\n  b:\n  - x: 1\n    \"y\":\n    - 1\n    - 2\n  - []\n  c: {}\n"
        );
        assert_eq!(rt("- - a\n  - b\n"), "- - a\n  - b\n");
    }

    #[test]
    fn literal_blocks_and_chomping() {
        assert_eq!(rt("a: \"l1\\nl2\"\n"), "a: |-\n  l1\n  l2\n");
        assert_eq!(rt("a: \"l1\\nl2\\n\"\n"), "a: |\n  l1\n  l2\n");
        assert_eq!(rt("a: \"l1\\n\\n\"\nb: 1\n"), "a: |+\n  l1\n\nb: 1\n");
        assert_eq!(rt("a: \" x\\ny\"\n"), "a: |2-\n   x\n  y\n");
        assert_eq!(rt("a: \"x \\ny\"\n"), "a: \"x \\ny\"\n");
        assert_eq!(rt("- \"l1\\nl2\"\n"), "- |-\n  l1\n  l2\n");
    }

    #[test]
    fn folds_long_lines_at_80() {
        let long = "this is a very long line that goes on and on and on and on beyond eighty characters wide for sure yes";
        assert_eq!(
            rt(&format!("  o: {long}\n").replacen("  o", "o", 1)),
            "o: this is a very long line that goes on and on and on and on beyond eighty characters\n  wide for sure yes\n"
        );
    }
}
