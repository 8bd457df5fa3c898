//! Sprig's string, conversion, encoding, hash and regular-expression
//! functions.

use std::collections::BTreeMap;

use base64::Engine as _;
use regex::Regex;
use sha2::Digest as _;

use super::goregex::compile;
use super::{Rng, parse_go_int, strval, to_f64, to_i64, want_int, want_str};
use crate::template::value::{go_quote, sprint_value};
use crate::template::{Templates, Value};

fn s(v: String) -> Result<Value, String> {
    Ok(Value::Str(v))
}

fn str_list(v: Vec<String>) -> Value {
    Value::List(v.into_iter().map(Value::Str).collect())
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

/// Byte slice of a string as Go slices it (lossy where the cut falls inside
/// a UTF-8 sequence).
fn byte_slice(s: &str, from: usize, to: usize) -> String {
    String::from_utf8_lossy(&s.as_bytes()[from..to]).into_owned()
}

fn abbreviate_full(s: &str, offset: i64, max: i64) -> String {
    let len = s.len() as i64;
    if s.is_empty() || max < 4 || len <= max {
        return s.to_string();
    }
    let mut offset = offset.min(len);
    if len - offset < max - 3 {
        offset = len - (max - 3);
    }
    if offset <= 4 {
        return format!("{}...", byte_slice(s, 0, (max - 3) as usize));
    }
    if max < 7 {
        return s.to_string();
    }
    if offset + max - 3 < len {
        let rest = byte_slice(s, offset as usize, s.len());
        return format!("...{}", abbreviate_full(&rest, 0, max - 3));
    }
    format!("...{}", byte_slice(s, (len - (max - 3)) as usize, s.len()))
}

/// goutils' `WrapCustom`.
fn wrap_custom(s: &str, width: i64, nl: &str, long_words: bool) -> String {
    if s.is_empty() {
        return String::new();
    }
    let nl = if nl.is_empty() { "\n" } else { nl };
    let width = width.max(1) as usize;
    let b = s.as_bytes();
    let len = b.len();
    let mut offset = 0;
    let mut out = String::new();
    while len - offset > width {
        if b[offset] == b' ' {
            offset += 1;
            continue;
        }
        let end = (width + offset + 1).min(len);
        let space = s[offset..end].rfind(' ').map(|i| i + offset);
        match space {
            Some(at) if at >= offset => {
                out.push_str(&s[offset..at]);
                out.push_str(nl);
                offset = at + 1;
            }
            _ => {
                let end = width + offset;
                if long_words {
                    out.push_str(&byte_slice(s, offset, end));
                    out.push_str(nl);
                    offset += width;
                } else {
                    match s[end..].find(' ') {
                        None => {
                            out.push_str(&s[offset..]);
                            offset = len;
                        }
                        Some(i) => {
                            let at = i + end;
                            out.push_str(&s[offset..at]);
                            out.push_str(nl);
                            offset = at + 1;
                        }
                    }
                }
            }
        }
    }
    out.push_str(&byte_slice(s, offset, len));
    out
}

/// Go's `strings.Title` separator rule.
fn is_separator(c: char) -> bool {
    if c.is_ascii() {
        return !(c.is_ascii_alphanumeric() || c == '_');
    }
    if c.is_alphanumeric() {
        return false;
    }
    c.is_whitespace()
}

fn title(s: &str) -> String {
    let mut prev = ' ';
    let mut out = String::new();
    for c in s.chars() {
        if is_separator(prev) {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
        prev = c;
    }
    out
}

fn untitle(s: &str) -> String {
    let mut next = true;
    let mut out = String::new();
    for c in s.chars() {
        if c.is_whitespace() {
            next = true;
            out.push(c);
        } else if next {
            out.extend(c.to_lowercase());
            next = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// goutils' `SwapCase` (upper and title case to lower, lower to upper).
fn swapcase(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_uppercase() {
            out.extend(c.to_lowercase());
        } else if c.is_lowercase() {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn initials(s: &str) -> String {
    s.split(char::is_whitespace)
        .filter_map(|w| w.chars().next())
        .collect()
}

/// Words of an identifier for `snakecase`/`kebabcase`/`camelcase`: split
/// at separators, at lower-to-upper changes and before the last capital
/// of a run of capitals followed by a lower-case letter.
fn words(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let mut words = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            continue;
        }
        if let Some(&p) = i.checked_sub(1).and_then(|j| chars.get(j)) {
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            let split = (c.is_uppercase() && (p.is_lowercase() || p.is_ascii_digit()))
                || (c.is_uppercase() && p.is_uppercase() && next_lower);
            if split && !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
        }
        cur.push(c);
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

fn joined_lower(s: &str, sep: &str) -> String {
    words(s)
        .iter()
        .map(|w| w.to_lowercase())
        .collect::<Vec<_>>()
        .join(sep)
}

fn pascal(s: &str) -> String {
    let mut out = String::new();
    for part in s.split(['_', '-', ' ', '.']) {
        let mut cs = part.chars();
        if let Some(f) = cs.next() {
            out.extend(f.to_uppercase());
            out.push_str(cs.as_str());
        }
    }
    out
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

fn split_map(parts: Vec<String>) -> Value {
    let m: BTreeMap<String, Value> = parts
        .into_iter()
        .enumerate()
        .map(|(i, p)| (format!("_{i}"), Value::Str(p)))
        .collect();
    Value::map(m)
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

fn b32dec(text: &str) -> Result<Vec<u8>, String> {
    let b = text.as_bytes();
    let bad = |i: usize| format!("illegal base32 data at input byte {i}");
    if !b.len().is_multiple_of(8) {
        return Err(bad(b.len() / 8 * 8));
    }
    let mut out = Vec::new();
    for (ci, chunk) in b.chunks(8).enumerate() {
        let mut n: u64 = 0;
        let mut count = 0;
        for (j, &c) in chunk.iter().enumerate() {
            if c == b'=' {
                if ci * 8 + 8 != b.len() || chunk[j..].iter().any(|&x| x != b'=') {
                    return Err(bad(ci * 8 + j));
                }
                break;
            }
            let v = BASE32
                .iter()
                .position(|&x| x == c)
                .ok_or_else(|| bad(ci * 8 + j))?;
            n |= (v as u64) << (35 - 5 * j);
            count += 1;
        }
        let bytes = match count {
            8 => 5,
            7 => 4,
            5 => 3,
            4 => 2,
            2 => 1,
            _ => return Err(bad(ci * 8 + count)),
        };
        let all = n.to_be_bytes();
        out.extend_from_slice(&all[3..3 + bytes]);
    }
    Ok(out)
}

fn b64dec(text: &str) -> Result<Vec<u8>, String> {
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|e| match e {
            base64::DecodeError::InvalidByte(i, _) => {
                format!("illegal base64 data at input byte {i}")
            }
            base64::DecodeError::InvalidLastSymbol(i, _) => {
                format!("illegal base64 data at input byte {i}")
            }
            _ => format!(
                "illegal base64 data at input byte {}",
                text.trim_end_matches('=').len() / 4 * 4
            ),
        })
}

fn adler32(data: &[u8]) -> u32 {
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
        s(abbreviate_full(st, 0, w))
    });
    t.add_func("abbrevboth", 3, Some(3), |_, a| {
        let l = want_int(&a[0], "abbrevboth")?;
        let r = want_int(&a[1], "abbrevboth")?;
        let st = want_str(&a[2], "abbrevboth")?;
        if r < 4 || l > 0 && r < 7 {
            return s(st.to_string());
        }
        s(abbreviate_full(st, l, r))
    });
    t.add_func("trunc", 2, Some(2), |_, a| {
        let c = want_int(&a[0], "trunc")?;
        let st = want_str(&a[1], "trunc")?;
        let len = st.len() as i64;
        if c < 0 && len + c > 0 {
            return s(byte_slice(st, (len + c) as usize, st.len()));
        }
        if c >= 0 && len > c {
            return s(byte_slice(st, 0, c as usize));
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
        s(want_str(&a[0], "upper")?.to_uppercase())
    });
    t.add_func("lower", 1, Some(1), |_, a| {
        s(want_str(&a[0], "lower")?.to_lowercase())
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
        s(want_str(&a[0], "nospace")?
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect())
    });
    t.add_func("snakecase", 1, Some(1), |_, a| {
        s(joined_lower(want_str(&a[0], "snakecase")?, "_"))
    });
    t.add_func("kebabcase", 1, Some(1), |_, a| {
        s(joined_lower(want_str(&a[0], "kebabcase")?, "-"))
    });
    t.add_func("camelcase", 1, Some(1), |_, a| {
        s(pascal(want_str(&a[0], "camelcase")?))
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
        if to < 0 || to > len {
            return Err(format!(
                "runtime error: slice bounds out of range [:{to}] with length {len}"
            ));
        }
        if from > to {
            return Err(format!(
                "runtime error: slice bounds out of range [{from}:{to}]"
            ));
        }
        s(byte_slice(st, from as usize, to as usize))
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
        s(wrap_custom(want_str(&a[1], "wrap")?, w, "", false))
    });
    t.add_func("wrapWith", 3, Some(3), |_, a| {
        let w = want_int(&a[0], "wrapWith")?;
        let sep = want_str(&a[1], "wrapWith")?;
        s(wrap_custom(want_str(&a[2], "wrapWith")?, w, sep, true))
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
            .map(|v| go_quote(&strval(v)))
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
    t.add_func("indent", 2, Some(2), |_, a| {
        s(indent(
            want_int(&a[0], "indent")?,
            want_str(&a[1], "indent")?,
        ))
    });
    t.add_func("nindent", 2, Some(2), |_, a| {
        s(format!(
            "\n{}",
            indent(want_int(&a[0], "nindent")?, want_str(&a[1], "nindent")?)
        ))
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
    t.add_func("toString", 1, Some(1), |_, a| s(strval(&a[0])));
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
    t.add_func("int64", 1, Some(1), |_, a| Ok(Value::Int(to_i64(&a[0]))));
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
        Ok(Value::Int(v))
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
        s(match b64dec(want_str(&a[0], "b64dec")?) {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(e) => e,
        })
    });
    t.add_func("b32enc", 1, Some(1), |_, a| {
        s(b32enc(want_str(&a[0], "b32enc")?.as_bytes()))
    });
    t.add_func("b32dec", 1, Some(1), |_, a| {
        s(match b32dec(want_str(&a[0], "b32dec")?) {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(e) => e,
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
        s(regex::escape(want_str(&a[0], "regexQuoteMeta")?))
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
fn regex_arg(v: &Value, must: bool) -> Result<Regex, String> {
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
            "Hello\nworld\nout\nthere"
        );
        assert_eq!(abbreviate_full("hello world", 0, 5), "he...");
        assert_eq!(abbreviate_full("1234 5678 9123", 5, 10), "...5678...");
        assert_eq!(title("hello world-wide"), "Hello World-Wide");
        assert_eq!(joined_lower("FirstName", "_"), "first_name");
        assert_eq!(joined_lower("HTTPServer", "-"), "http-server");
        assert_eq!(pascal("http_server"), "HttpServer");
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
