//! Sprig's string, conversion, encoding, hash and regular-expression
//! functions.

use std::collections::BTreeMap;
use std::rc::Rc;

use base64::Engine as _;
use regex::Regex;
use sha2::Digest as _;

use super::gotext;
use super::{Rng, parse_go_int, strval, to_f64, to_i64, want_int, want_str};
use crate::goregex::compile;
use crate::helm::chart::go_string;
use crate::template::value::{go_quote, go_quote_bytes, sprint_value};
use crate::template::{Templates, Value};

fn s(v: String) -> Result<Value, String> {
    Ok(Value::Str(v))
}

fn str_list(v: Vec<String>) -> Value {
    Value::typed_list(v.into_iter().map(Value::Str).collect(), "[]string")
}

/// Sprig's `strslice` (`toStrings`): list elements as strings (nils
/// dropped), nil as an empty list, anything else as a one-element list.
pub fn strslice(v: &Value) -> Vec<String> {
    match v {
        Value::List(l) => l
            .iter()
            .filter(|e| !matches!(e, Value::Nil))
            .map(strval)
            .collect(),
        Value::Nil => Vec::new(),
        other => vec![strval(other)],
    }
}

/// The bytes `from..to` of a string, as Go slices it.
fn byte_slice(s: &str, from: usize, to: usize) -> Value {
    go_string(s.as_bytes()[from..to].to_vec())
}

/// goutils' `AbbreviateFull`, on bytes as Go's is.
fn abbreviate_full(s: &[u8], offset: i64, max: i64) -> Vec<u8> {
    let len = s.len() as i64;
    if s.is_empty() || max < 4 || len <= max {
        return s.to_vec();
    }
    let mut offset = offset.min(len);
    if len - offset < max - 3 {
        offset = len - (max - 3);
    }
    let dots = |a: &[u8], b: &[u8]| [a, b].concat();
    if offset <= 4 {
        return dots(&s[..(max - 3) as usize], b"...");
    }
    if max < 7 {
        return s.to_vec();
    }
    if offset + max - 3 < len {
        return dots(b"...", &abbreviate_full(&s[offset as usize..], 0, max - 3));
    }
    dots(b"...", &s[(len - (max - 3)) as usize..])
}

/// goutils' `WrapCustom`, on bytes as Go's is (a cut may fall inside a
/// character).
fn wrap_custom(s: &str, width: i64, nl: &str, long_words: bool) -> Vec<u8> {
    if s.is_empty() {
        return Vec::new();
    }
    let nl = if nl.is_empty() { "\n" } else { nl }.as_bytes();
    let width = width.max(1) as usize;
    let b = s.as_bytes();
    let len = b.len();
    let space_in = |from: usize, to: usize| b[from..to].iter().rposition(|&c| c == b' ');
    let mut offset = 0;
    let mut out: Vec<u8> = Vec::with_capacity(len + len / width.max(1) * nl.len());
    while len - offset > width {
        if b[offset] == b' ' {
            offset += 1;
            continue;
        }
        let end = (width + offset + 1).min(len);
        match space_in(offset, end).map(|i| i + offset) {
            Some(at) => {
                out.extend_from_slice(&b[offset..at]);
                out.extend_from_slice(nl);
                offset = at + 1;
            }
            None => {
                let end = width + offset;
                if long_words {
                    out.extend_from_slice(&b[offset..end]);
                    out.extend_from_slice(nl);
                    offset += width;
                } else {
                    match b[end..].iter().position(|&c| c == b' ') {
                        None => {
                            out.extend_from_slice(&b[offset..]);
                            offset = len;
                        }
                        Some(i) => {
                            let at = i + end;
                            out.extend_from_slice(&b[offset..at]);
                            out.extend_from_slice(nl);
                            offset = at + 1;
                        }
                    }
                }
            }
        }
    }
    out.extend_from_slice(&b[offset..]);
    out
}

/// Go's `strings.Title` separator rule: ASCII but letters, digits and
/// `_`; past ASCII, spaces.
fn is_separator(c: char) -> bool {
    if c.is_ascii() {
        return !(c.is_ascii_alphanumeric() || c == '_');
    }
    gotext::is_space(c)
}

/// `strings.Title`.
fn title(s: &str) -> String {
    let mut prev = ' ';
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        out.push(if is_separator(prev) {
            gotext::to_title(c)
        } else {
            c
        });
        prev = c;
    }
    out
}

/// goutils' `Uncapitalize`: the first letter of each word lowered.
fn untitle(s: &str) -> String {
    let mut next = true;
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if gotext::is_space(c) {
            next = true;
            out.push(c);
        } else if next {
            out.push(gotext::to_lower(c));
            next = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// goutils' `SwapCase`: upper and title case to lower; lower case to title
/// case at the start and after white space (`ǆ` to `ǅ`, Georgian
/// Mkhedruli stays), else to upper case.
fn swapcase(s: &str) -> String {
    let mut after_space = true;
    s.chars()
        .map(|c| {
            if gotext::is_upper(c) || gotext::is_title(c) {
                after_space = false;
                gotext::to_lower(c)
            } else if gotext::is_lower(c) {
                if std::mem::take(&mut after_space) {
                    gotext::to_title(c)
                } else {
                    gotext::to_upper(c)
                }
            } else {
                after_space = gotext::is_space(c);
                c
            }
        })
        .collect()
}

/// Go's `unicode.IsSpace` of a byte taken as a character, as goutils'
/// `Initials` and `DeleteWhiteSpace` read strings (byte by byte).
fn byte_is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' ' | 0x85 | 0xa0)
}

/// goutils' `Initials`: the first byte of each word, taken as the
/// character of that number (a word starting past ASCII gives its first
/// byte's Latin-1 character, as Go's does).
fn initials(s: &str) -> String {
    let mut out = String::new();
    let mut gap = true;
    for &b in s.as_bytes() {
        if byte_is_space(b) {
            gap = true;
        } else if gap {
            out.push(char::from(b));
            gap = false;
        }
    }
    out
}

/// goutils' `DeleteWhiteSpace`: byte by byte, each kept byte written as the
/// character of that number; the text itself when nothing is removed.
fn nospace(s: &str) -> String {
    if !s.bytes().any(byte_is_space) {
        return s.to_string();
    }
    s.bytes()
        .filter(|&b| !byte_is_space(b))
        .map(char::from)
        .collect()
}

/// Go's `strings.Split` (an empty separator splits into characters).
pub fn go_split(s: &str, sep: &str, n: i64) -> Vec<String> {
    if n == 0 {
        return Vec::new();
    }
    if sep.is_empty() {
        let chars: Vec<String> = s.chars().map(String::from).collect();
        if n < 0 || chars.len() <= n as usize {
            return chars;
        }
        let n = n as usize;
        let head: String = chars[..n - 1].concat();
        let mut out: Vec<String> = chars[..n - 1].to_vec();
        out.push(s[head.len()..].to_string());
        return out;
    }
    if n < 0 {
        s.split(sep).map(String::from).collect()
    } else {
        s.splitn(n as usize, sep).map(String::from).collect()
    }
}

/// Sprig's `split`/`splitn` result: a Go `map[string]string`, which the
/// functions taking a `map[string]interface {}` (`get`, `hasKey`, `merge`,
/// `keys`...) refuse as Helm does.
fn split_map(parts: Vec<String>) -> Value {
    let m: BTreeMap<String, String> = parts
        .into_iter()
        .enumerate()
        .map(|(i, p)| (format!("_{i}"), p))
        .collect();
    Value::Map(crate::template::value::Map::strings(Some(m)))
}

const BASE32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

fn b32enc(data: &[u8]) -> String {
    let mut out = String::new();
    for chunk in data.chunks(5) {
        let mut buf = [0u8; 5];
        buf[..chunk.len()].copy_from_slice(chunk);
        let n = u64::from_be_bytes([0, 0, 0, buf[0], buf[1], buf[2], buf[3], buf[4]]);
        let chars = match chunk.len() {
            1 => 2,
            2 => 4,
            3 => 5,
            4 => 7,
            _ => 8,
        };
        for i in 0..8 {
            if i < chars {
                out.push(BASE32[((n >> (35 - 5 * i)) & 31) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Go's `base32.StdEncoding.DecodeString`: line breaks dropped, then
/// quanta of eight characters read in order, so an error names the first
/// bad character (or where the input ends too soon, or bad padding).
fn b32dec(text: &str) -> Result<Vec<u8>, String> {
    let src: Vec<u8> = text.bytes().filter(|&b| b != b'\r' && b != b'\n').collect();
    let bad = |i: usize| format!("illegal base32 data at input byte {i}");
    let olen = src.len();
    let mut pos = 0;
    let mut out = Vec::with_capacity(olen / 8 * 5 + 5);
    let mut end = false;
    while pos < olen && !end {
        let mut quantum = [0u8; 8];
        let mut dlen = 8;
        let mut j = 0;
        while j < 8 {
            if pos == olen {
                return Err(bad(olen - j));
            }
            let c = src[pos];
            pos += 1;
            let left = olen - pos;
            if c == b'=' && j >= 2 && left < 8 {
                if left + j < 7 {
                    return Err(bad(olen));
                }
                for k in 0..7 - j {
                    if left > k && src[pos + k] != b'=' {
                        return Err(bad(olen - left + k - 1));
                    }
                }
                dlen = j;
                end = true;
                if matches!(dlen, 1 | 3 | 6) {
                    return Err(bad(olen - left - 1));
                }
                break;
            }
            match BASE32.iter().position(|&x| x == c) {
                Some(v) => quantum[j] = v as u8,
                None => return Err(bad(olen - left - 1)),
            }
            j += 1;
        }
        let n = quantum.iter().fold(0u64, |n, &v| (n << 5) | u64::from(v));
        let bytes = match dlen {
            8 => 5,
            7 => 4,
            5 => 3,
            4 => 2,
            2 => 1,
            _ => 0,
        };
        out.extend_from_slice(&n.to_be_bytes()[3..3 + bytes]);
    }
    Ok(out)
}

/// Go's `base64.StdEncoding.DecodeString`: quanta of four characters read
/// in order (line breaks skipped), so an error names the first bad
/// character, missing padding or what trails the padding.
fn b64dec(text: &str) -> Result<Vec<u8>, String> {
    let src = text.as_bytes();
    let bad = |i: usize| format!("illegal base64 data at input byte {i}");
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let newline = |c: u8| c == b'\n' || c == b'\r';
    let mut out = Vec::with_capacity(src.len() / 4 * 3 + 3);
    let mut si = 0;
    while si < src.len() {
        let mut quantum = [0u8; 4];
        let mut dlen = 4;
        let mut j = 0;
        let mut trailing = None;
        while j < 4 {
            if si == src.len() {
                if j == 0 {
                    return Ok(out);
                }
                return Err(bad(si - j));
            }
            let c = src[si];
            si += 1;
            if let Some(v) = value(c) {
                quantum[j] = v;
                j += 1;
                continue;
            }
            if newline(c) {
                continue;
            }
            if c != b'=' || j < 2 {
                return Err(bad(si - 1));
            }
            if j == 2 {
                // A second `=` must follow (line breaks aside).
                while si < src.len() && newline(src[si]) {
                    si += 1;
                }
                if si == src.len() {
                    return Err(bad(src.len()));
                }
                if src[si] != b'=' {
                    return Err(bad(si - 1));
                }
                si += 1;
            }
            while si < src.len() && newline(src[si]) {
                si += 1;
            }
            if si < src.len() {
                trailing = Some(si);
            }
            dlen = j;
            break;
        }
        let n = quantum.iter().fold(0u32, |n, &v| (n << 6) | u32::from(v));
        out.extend_from_slice(&n.to_be_bytes()[1..dlen]);
        if let Some(at) = trailing {
            return Err(bad(at));
        }
    }
    Ok(out)
}

pub(crate) fn adler32(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &x in data {
        a = (a + u32::from(x)) % 65521;
        b = (b + a) % 65521;
    }
    (b << 16) | a
}

fn sha1_hex(data: &[u8]) -> String {
    let mut h = gix::hash::hasher(gix::hash::Kind::Sha1);
    h.update(data);
    h.try_finalize()
        .map(|id| id.to_hex().to_string())
        .unwrap_or_default()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Go's `Regexp.Split`.
fn regex_split(r: &Regex, s: &str, n: i64) -> Vec<String> {
    if n == 0 {
        return Vec::new();
    }
    if !r.as_str().is_empty() && s.is_empty() {
        return vec![String::new()];
    }
    let mut out = Vec::new();
    let (mut beg, mut end) = (0, 0);
    let limit = if n < 0 { usize::MAX } else { n as usize };
    for m in r.find_iter(s).take(limit) {
        if n > 0 && out.len() as i64 == n - 1 {
            break;
        }
        end = m.start();
        if m.end() != 0 {
            out.push(s[beg..end].to_string());
        }
        beg = m.end();
    }
    if end != s.len() {
        out.push(s[beg..].to_string());
    }
    out
}

fn find_all(r: &Regex, s: &str, n: i64) -> Value {
    let limit = if n < 0 { usize::MAX } else { n as usize };
    let found = r.find_iter(s).take(limit);
    // Go's `FindAllString` returns a nil slice when nothing matches.
    Value::list_or_nil(
        found.map(|m| Value::Str(m.as_str().into())).collect(),
        "[]string",
    )
}

fn random_string(rng: &Rng, n: i64, alphabet: &[u8]) -> String {
    (0..n.max(0))
        .map(|_| alphabet[rng.below(alphabet.len() as u64) as usize] as char)
        .collect()
}

const ALPHA: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const ALNUM: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const DIGITS: &[u8] = b"0123456789";

fn ascii_printable() -> Vec<u8> {
    (32u8..=126).collect()
}

pub(super) fn add(t: &mut Templates) {
    t.add_func("abbrev", 2, Some(2), |_, a| {
        let w = want_int(&a[0], "abbrev")?;
        let st = want_str(&a[1], "abbrev")?;
        Ok(go_string(abbreviate_full(st.as_bytes(), 0, w)))
    });
    t.add_func("abbrevboth", 3, Some(3), |_, a| {
        let l = want_int(&a[0], "abbrevboth")?;
        let r = want_int(&a[1], "abbrevboth")?;
        let st = want_str(&a[2], "abbrevboth")?;
        if r < 4 || l > 0 && r < 7 {
            return s(st.to_string());
        }
        Ok(go_string(abbreviate_full(st.as_bytes(), l, r)))
    });
    t.add_func("trunc", 2, Some(2), |_, a| {
        let c = want_int(&a[0], "trunc")?;
        let st = want_str(&a[1], "trunc")?;
        let len = st.len() as i64;
        if c < 0 && len + c > 0 {
            return Ok(byte_slice(st, (len + c) as usize, st.len()));
        }
        if c >= 0 && len > c {
            return Ok(byte_slice(st, 0, c as usize));
        }
        s(st.to_string())
    });
    t.add_func("trim", 1, Some(1), |_, a| {
        s(want_str(&a[0], "trim")?.trim().to_string())
    });
    for name in ["trimAll", "trimall"] {
        t.add_func(name, 2, Some(2), |_, a| {
            let cut: Vec<char> = want_str(&a[0], "trimAll")?.chars().collect();
            s(want_str(&a[1], "trimAll")?
                .trim_matches(cut.as_slice())
                .to_string())
        });
    }
    t.add_func("trimPrefix", 2, Some(2), |_, a| {
        let p = want_str(&a[0], "trimPrefix")?;
        let st = want_str(&a[1], "trimPrefix")?;
        s(st.strip_prefix(p).unwrap_or(st).to_string())
    });
    t.add_func("trimSuffix", 2, Some(2), |_, a| {
        let p = want_str(&a[0], "trimSuffix")?;
        let st = want_str(&a[1], "trimSuffix")?;
        s(st.strip_suffix(p).unwrap_or(st).to_string())
    });
    t.add_func("upper", 1, Some(1), |_, a| {
        s(gotext::upper(want_str(&a[0], "upper")?))
    });
    t.add_func("lower", 1, Some(1), |_, a| {
        s(gotext::lower(want_str(&a[0], "lower")?))
    });
    t.add_func("title", 1, Some(1), |_, a| {
        s(title(want_str(&a[0], "title")?))
    });
    t.add_func("untitle", 1, Some(1), |_, a| {
        s(untitle(want_str(&a[0], "untitle")?))
    });
    t.add_func("swapcase", 1, Some(1), |_, a| {
        s(swapcase(want_str(&a[0], "swapcase")?))
    });
    t.add_func("initials", 1, Some(1), |_, a| {
        s(initials(want_str(&a[0], "initials")?))
    });
    t.add_func("nospace", 1, Some(1), |_, a| {
        s(nospace(want_str(&a[0], "nospace")?))
    });
    t.add_func("snakecase", 1, Some(1), |_, a| {
        s(gotext::connected_lower(want_str(&a[0], "snakecase")?, '_'))
    });
    t.add_func("kebabcase", 1, Some(1), |_, a| {
        s(gotext::connected_lower(want_str(&a[0], "kebabcase")?, '-'))
    });
    t.add_func("camelcase", 1, Some(1), |_, a| {
        s(gotext::camel(want_str(&a[0], "camelcase")?))
    });
    t.add_func("substr", 3, Some(3), |_, a| {
        let start = want_int(&a[0], "substr")?;
        let end = want_int(&a[1], "substr")?;
        let st = want_str(&a[2], "substr")?;
        let len = st.len() as i64;
        let (from, to) = if start < 0 {
            (0, end)
        } else if end < 0 || end > len {
            (start, len)
        } else {
            (start, end)
        };
        if to < 0 {
            return Err(format!("runtime error: slice bounds out of range [:{to}]"));
        }
        if to > len {
            return Err(format!(
                "runtime error: slice bounds out of range [:{to}] with length {len}"
            ));
        }
        if from > to {
            return Err(format!(
                "runtime error: slice bounds out of range [{from}:{to}]"
            ));
        }
        Ok(byte_slice(st, from as usize, to as usize))
    });
    t.add_func("repeat", 2, Some(2), |_, a| {
        let n = want_int(&a[0], "repeat")?;
        let st = want_str(&a[1], "repeat")?;
        if n < 0 {
            return Err("strings: negative Repeat count".into());
        }
        s(st.repeat(n as usize))
    });
    t.add_func("wrap", 2, Some(2), |_, a| {
        let w = want_int(&a[0], "wrap")?;
        Ok(go_string(wrap_custom(
            want_str(&a[1], "wrap")?,
            w,
            "",
            false,
        )))
    });
    t.add_func("wrapWith", 3, Some(3), |_, a| {
        let w = want_int(&a[0], "wrapWith")?;
        let sep = want_str(&a[1], "wrapWith")?;
        Ok(go_string(wrap_custom(
            want_str(&a[2], "wrapWith")?,
            w,
            sep,
            true,
        )))
    });
    t.add_func("contains", 2, Some(2), |_, a| {
        let sub = want_str(&a[0], "contains")?;
        Ok(Value::Bool(want_str(&a[1], "contains")?.contains(sub)))
    });
    t.add_func("hasPrefix", 2, Some(2), |_, a| {
        let sub = want_str(&a[0], "hasPrefix")?;
        Ok(Value::Bool(want_str(&a[1], "hasPrefix")?.starts_with(sub)))
    });
    t.add_func("hasSuffix", 2, Some(2), |_, a| {
        let sub = want_str(&a[0], "hasSuffix")?;
        Ok(Value::Bool(want_str(&a[1], "hasSuffix")?.ends_with(sub)))
    });
    t.add_func("quote", 0, None, |_, a| {
        let parts: Vec<String> = a
            .iter()
            .filter(|v| !matches!(v, Value::Nil))
            .map(|v| match v {
                // A Go string that is not UTF-8, or a `[]byte`, quotes its
                // bytes.
                Value::Object(o) if let Some(b) = o.0.bytes().or(o.0.byte_slice()) => {
                    go_quote_bytes(b)
                }
                v => go_quote(&strval(v)),
            })
            .collect();
        s(parts.join(" "))
    });
    t.add_func("squote", 0, None, |_, a| {
        let parts: Vec<String> = a
            .iter()
            .filter(|v| !matches!(v, Value::Nil))
            .map(|v| format!("'{}'", sprint_value(v)))
            .collect();
        s(parts.join(" "))
    });
    t.add_func("cat", 0, None, |_, a| {
        let parts: Vec<String> = a
            .iter()
            .filter(|v| !matches!(v, Value::Nil))
            .map(sprint_value)
            .collect();
        s(parts.join(" "))
    });
    // `strings.Repeat` panics on a negative count.
    let spaces = |v: &Value, what: &str| match want_int(v, what)? {
        n if n < 0 => Err("strings: negative Repeat count".to_string()),
        n => Ok(n),
    };
    t.add_func("indent", 2, Some(2), move |_, a| {
        s(indent(spaces(&a[0], "indent")?, want_str(&a[1], "indent")?))
    });
    t.add_func("nindent", 2, Some(2), move |_, a| {
        let n = spaces(&a[0], "nindent")?;
        s(format!("\n{}", indent(n, want_str(&a[1], "nindent")?)))
    });
    t.add_func("replace", 3, Some(3), |_, a| {
        let old = want_str(&a[0], "replace")?;
        let new = want_str(&a[1], "replace")?;
        s(want_str(&a[2], "replace")?.replace(old, new))
    });
    t.add_func("plural", 3, Some(3), |_, a| {
        let one = want_str(&a[0], "plural")?;
        let many = want_str(&a[1], "plural")?;
        let n = want_int(&a[2], "plural")?;
        s(if n == 1 { one } else { many }.to_string())
    });
    t.add_func("sha1sum", 1, Some(1), |_, a| {
        s(sha1_hex(super::want_bytes(&a[0], "sha1sum")?))
    });
    t.add_func("sha256sum", 1, Some(1), |_, a| {
        s(hex(&sha2::Sha256::digest(super::want_bytes(
            &a[0],
            "sha256sum",
        )?)))
    });
    t.add_func("sha512sum", 1, Some(1), |_, a| {
        s(hex(&sha2::Sha512::digest(super::want_bytes(
            &a[0],
            "sha512sum",
        )?)))
    });
    t.add_func("adler32sum", 1, Some(1), |_, a| {
        s(adler32(super::want_bytes(&a[0], "adler32sum")?).to_string())
    });
    t.add_func("toString", 1, Some(1), |_, a| match &a[0] {
        // A Go string, or the string of a `[]byte`, keeps its bytes.
        Value::Object(o) if o.0.bytes().is_some() => Ok(a[0].clone()),
        Value::Object(o) if let Some(b) = o.0.byte_slice() => Ok(go_string(b.to_vec())),
        v => s(strval(v)),
    });
    t.add_func("toStrings", 1, Some(1), |_, a| {
        Ok(str_list(strslice(&a[0])))
    });
    t.add_func("atoi", 1, Some(1), |_, a| {
        let st = want_str(&a[0], "atoi")?;
        let ok = !st.is_empty()
            && st
                .strip_prefix(['+', '-'])
                .unwrap_or(st)
                .chars()
                .all(|c| c.is_ascii_digit());
        Ok(Value::Int(if ok { st.parse().unwrap_or(0) } else { 0 }))
    });
    t.add_func("int", 1, Some(1), |_, a| Ok(Value::Int(to_i64(&a[0]))));
    t.add_func("int64", 1, Some(1), |_, a| Ok(Value::int64(to_i64(&a[0]))));
    t.add_func("float64", 1, Some(1), |_, a| {
        Ok(Value::Float(to_f64(&a[0])))
    });
    t.add_func("toDecimal", 1, Some(1), |_, a| {
        let text = sprint_value(&a[0]);
        let ok = !text.is_empty() && !text.contains('_');
        let v = if ok {
            parse_go_int(&format!("0o{}", text.trim_start_matches(['+', '-'])))
                .map(|v| if text.starts_with('-') { -v } else { v })
                .unwrap_or(0)
        } else {
            0
        };
        Ok(Value::int64(v))
    });
    t.add_func("split", 2, Some(2), |_, a| {
        let sep = want_str(&a[0], "split")?;
        Ok(split_map(go_split(want_str(&a[1], "split")?, sep, -1)))
    });
    t.add_func("splitn", 3, Some(3), |_, a| {
        let sep = want_str(&a[0], "splitn")?;
        let n = want_int(&a[1], "splitn")?;
        Ok(split_map(go_split(want_str(&a[2], "splitn")?, sep, n)))
    });
    t.add_func("splitList", 2, Some(2), |_, a| {
        let sep = want_str(&a[0], "splitList")?;
        Ok(str_list(go_split(want_str(&a[1], "splitList")?, sep, -1)))
    });
    t.add_func("join", 2, Some(2), |_, a| {
        let sep = want_str(&a[0], "join")?;
        s(strslice(&a[1]).join(sep))
    });
    t.add_func("sortAlpha", 1, Some(1), |_, a| {
        let mut l = match &a[0] {
            Value::List(_) => strslice(&a[0]),
            other => vec![strval(other)],
        };
        l.sort();
        Ok(str_list(l))
    });
    t.add_func("b64enc", 1, Some(1), |_, a| {
        s(base64::engine::general_purpose::STANDARD.encode(super::want_bytes(&a[0], "b64enc")?))
    });
    t.add_func("b64dec", 1, Some(1), |_, a| {
        // Go's string of the decoded bytes, UTF-8 or not.
        Ok(match b64dec(want_str(&a[0], "b64dec")?) {
            Ok(b) => go_string(b),
            Err(e) => Value::Str(e),
        })
    });
    t.add_func("b32enc", 1, Some(1), |_, a| {
        s(b32enc(want_str(&a[0], "b32enc")?.as_bytes()))
    });
    t.add_func("b32dec", 1, Some(1), |_, a| {
        // Go's string of the decoded bytes, UTF-8 or not.
        Ok(match b32dec(want_str(&a[0], "b32dec")?) {
            Ok(b) => go_string(b),
            Err(e) => Value::Str(e),
        })
    });
    // Regular expressions: Go's syntax, read by `goregex`.
    for (name, must) in [("regexMatch", false), ("mustRegexMatch", true)] {
        t.add_func(name, 2, Some(2), move |_, a| {
            let re = want_str(&a[0], "regexMatch")?;
            let st = want_str(&a[1], "regexMatch")?;
            match compile(re) {
                Ok(r) => Ok(Value::Bool(r.is_match(st))),
                Err(e) if must => Err(e),
                Err(_) => Ok(Value::Bool(false)),
            }
        });
    }
    for (name, must) in [("regexFindAll", false), ("mustRegexFindAll", true)] {
        t.add_func(name, 3, Some(3), move |_, a| {
            let r = regex_arg(&a[0], must)?;
            let st = want_str(&a[1], "regexFindAll")?;
            let n = want_int(&a[2], "regexFindAll")?;
            Ok(find_all(&r, st, n))
        });
    }
    for (name, must) in [("regexFind", false), ("mustRegexFind", true)] {
        t.add_func(name, 2, Some(2), move |_, a| {
            let r = regex_arg(&a[0], must)?;
            let st = want_str(&a[1], "regexFind")?;
            s(r.find(st).map_or(String::new(), |m| m.as_str().to_string()))
        });
    }
    for (name, must) in [("regexReplaceAll", false), ("mustRegexReplaceAll", true)] {
        t.add_func(name, 3, Some(3), move |_, a| {
            let r = regex_arg(&a[0], must)?;
            let st = want_str(&a[1], "regexReplaceAll")?;
            let repl = want_str(&a[2], "regexReplaceAll")?;
            s(r.replace_all(st, repl).into_owned())
        });
    }
    for (name, must) in [
        ("regexReplaceAllLiteral", false),
        ("mustRegexReplaceAllLiteral", true),
    ] {
        t.add_func(name, 3, Some(3), move |_, a| {
            let r = regex_arg(&a[0], must)?;
            let st = want_str(&a[1], "regexReplaceAllLiteral")?;
            let repl = want_str(&a[2], "regexReplaceAllLiteral")?;
            s(r.replace_all(st, regex::NoExpand(repl)).into_owned())
        });
    }
    for (name, must) in [("regexSplit", false), ("mustRegexSplit", true)] {
        t.add_func(name, 3, Some(3), move |_, a| {
            let r = regex_arg(&a[0], must)?;
            let st = want_str(&a[1], "regexSplit")?;
            let n = want_int(&a[2], "regexSplit")?;
            // Go's `Split` returns a nil slice for n == 0.
            if n == 0 {
                return Ok(Value::nil_slice("[]string"));
            }
            Ok(str_list(regex_split(&r, st, n)))
        });
    }
    t.add_func("regexQuoteMeta", 1, Some(1), |_, a| {
        // Go's `regexp.QuoteMeta` escapes these only (the crate's `escape`
        // also escapes `-`, `#`, `&` and `~`).
        let text = want_str(&a[0], "regexQuoteMeta")?;
        let mut out = String::with_capacity(text.len() + 8);
        for c in text.chars() {
            if "\\.+*?()|[]{}^$".contains(c) {
                out.push('\\');
            }
            out.push(c);
        }
        s(out)
    });
    // Random strings: drawn from the set's seeded generator.
    t.add_func("randAlphaNum", 1, Some(1), move |ex, a| {
        let r = Rng::of(ex);
        s(random_string(&r, want_int(&a[0], "randAlphaNum")?, ALNUM))
    });
    t.add_func("randAlpha", 1, Some(1), move |ex, a| {
        let r = Rng::of(ex);
        s(random_string(&r, want_int(&a[0], "randAlpha")?, ALPHA))
    });
    t.add_func("randNumeric", 1, Some(1), move |ex, a| {
        let r = Rng::of(ex);
        s(random_string(&r, want_int(&a[0], "randNumeric")?, DIGITS))
    });
    t.add_func("randAscii", 1, Some(1), move |ex, a| {
        let r = Rng::of(ex);
        s(random_string(
            &r,
            want_int(&a[0], "randAscii")?,
            &ascii_printable(),
        ))
    });
    t.add_func("shuffle", 1, Some(1), move |ex, a| {
        let r = Rng::of(ex);
        let mut cs: Vec<char> = want_str(&a[0], "shuffle")?.chars().collect();
        for i in (1..cs.len()).rev() {
            let j = r.below(i as u64 + 1) as usize;
            cs.swap(i, j);
        }
        s(cs.into_iter().collect())
    });
}

/// The regular expression argument: compile errors are errors of the call
/// (Sprig's non-`must` functions panic on them, which Go's template engine
/// also reports as an error of the call).
fn regex_arg(v: &Value, must: bool) -> Result<Rc<Regex>, String> {
    let re = want_str(v, "regex")?;
    compile(re).map_err(|e| {
        if must {
            e
        } else {
            format!("regexp: Compile({}): {e}", go_backquote(re))
        }
    })
}

fn go_backquote(s: &str) -> String {
    if s.contains('`') {
        go_quote(s)
    } else {
        format!("`{s}`")
    }
}

/// Sprig's `indent`.
pub fn indent(n: i64, s: &str) -> String {
    let pad = " ".repeat(n.max(0) as usize);
    format!("{pad}{}", s.replace('\n', &format!("\n{pad}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings_and_sums() {
        assert_eq!(b32enc(b"hello"), "NBSWY3DP");
        assert_eq!(b32enc(b"hi"), "NBUQ====");
        assert_eq!(b32dec("NBUQ====").unwrap(), b"hi");
        assert_eq!(adler32(b"Wikipedia"), 300_286_872);
        assert_eq!(sha1_hex(b"abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
    }

    #[test]
    fn wrapping_and_abbreviating() {
        assert_eq!(
            wrap_custom("Hello world out there", 5, "", false),
            b"Hello\nworld\nout\nthere"
        );
        assert_eq!(abbreviate_full(b"hello world", 0, 5), b"he...");
        assert_eq!(abbreviate_full(b"1234 5678 9123", 5, 10), b"...5678...");
        assert_eq!(title("hello world-wide"), "Hello World-Wide");
    }

    #[test]
    fn regex_split_as_go() {
        let r = Regex::new("z+").unwrap();
        assert_eq!(regex_split(&r, "pizza", -1), vec!["pi", "a"]);
        assert_eq!(regex_split(&r, "pizza", 1), vec!["pizza"]);
        let r = Regex::new("").unwrap();
        assert_eq!(regex_split(&r, "abc", -1), vec!["a", "b", "c"]);
    }
}
