//! Scalar resolution: which plain scalars are strings and which are numbers,
//! bools, null or timestamps.
//!
//! Two rule sets matter. kustomize reads resources with go-yaml v3 (YAML 1.2
//! core schema plus Go's integer syntax; `on`/`yes` are strings), while the
//! output writer and `sigs.k8s.io/yaml` (used by Flux after substitution and
//! by kustomize for JSON patches) use go-yaml v2 (YAML 1.1: `on`, `yes`, `y`
//! are bools). Both try timestamps for plain scalars that start with four
//! digits and a dash.

use super::node::Node;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schema {
    /// go-yaml v3
    V3,
    /// go-yaml v2
    V2,
}

/// Resolves the text of a plain (unquoted, untagged) scalar.
pub fn resolve_plain(s: &str, schema: Schema) -> Node {
    resolve_special(s, schema).unwrap_or_else(|| Node::Str(s.to_string()))
}

/// [`resolve_plain`] of a text the caller owns: a string keeps it, and
/// any other value comes with the text back.
pub fn resolve_plain_owned(s: String, schema: Schema) -> (Node, Option<String>) {
    match resolve_special(&s, schema) {
        Some(n) => (n, Some(s)),
        None => (Node::Str(s), None),
    }
}

/// What a plain scalar resolves to, `None` for the string of its text.
fn resolve_special(s: &str, schema: Schema) -> Option<Node> {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Some(Node::Null),
        "true" | "True" | "TRUE" => return Some(Node::Bool(true)),
        "false" | "False" | "FALSE" => return Some(Node::Bool(false)),
        ".nan" | ".NaN" | ".NAN" => return Some(Node::Float(f64::NAN)),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Some(Node::Float(f64::INFINITY));
        }
        "-.inf" | "-.Inf" | "-.INF" => return Some(Node::Float(f64::NEG_INFINITY)),
        _ => {}
    }
    if schema == Schema::V2 {
        match s {
            "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" => {
                return Some(Node::Bool(true));
            }
            "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" => {
                return Some(Node::Bool(false));
            }
            _ => {}
        }
    }
    let first = s.as_bytes()[0];
    match first {
        b'.' => {
            if let Some(f) = go_parse_float(s) {
                return Some(Node::Float(f));
            }
        }
        b'0'..=b'9' | b'+' | b'-' => {
            if let Some(ts) = parse_timestamp(s) {
                // go-yaml v3 decodes a timestamp into a time (printed as
                // RFC 3339); v2 keeps the text when decoding into interface{}.
                return Some(Node::Str(if schema == Schema::V3 {
                    ts
                } else {
                    s.to_string()
                }));
            }
            let plain: String = s.chars().filter(|&c| c != '_').collect();
            if let Some(n) = go_parse_int(&plain) {
                return Some(n);
            }
            if is_yaml_float(&plain)
                && let Some(f) = go_parse_float(&plain)
            {
                return Some(Node::Float(f));
            }
            // `0b` (and, in v3, `0o`) then what Go's `ParseInt` takes in
            // that base (a sign included: `0b-1` is -1), else `ParseUint`;
            // `-0b`/`-0o` then unsigned digits only.
            let radixes: &[(&str, u32)] = if schema == Schema::V3 {
                &[("0b", 2), ("0o", 8)]
            } else {
                &[("0b", 2)]
            };
            for &(prefix, radix) in radixes {
                if let Some(rest) = plain.strip_prefix(prefix) {
                    return go_parse_radix(rest, radix);
                }
                if let Some(rest) = plain.strip_prefix('-').and_then(|p| p.strip_prefix(prefix))
                    && !rest.starts_with(['+', '-'])
                {
                    let n = go_parse_radix(&format!("-{rest}"), radix);
                    if n.is_some() {
                        return n;
                    }
                }
            }
        }
        _ => {}
    }
    None
}

/// Go's `strconv.ParseInt(s, radix, 64)` (an optional sign, then at least
/// one digit of `radix`), else `ParseUint` (no sign) for what is above
/// `i64::MAX`: the integer go-yaml makes of a `0b`/`0o` scalar.
fn go_parse_radix(s: &str, radix: u32) -> Option<Node> {
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    // `ParseUint` takes no sign.
    int_of_digits(neg, digits, radix, !s.starts_with('+'))
}

/// The integer `digits` (of `radix`, at least one) spell, negated when
/// `neg`: an `Int` when it fits i64, else a `UInt` when `uint` allows and
/// it fits u64.
fn int_of_digits(neg: bool, digits: &str, radix: u32, uint: bool) -> Option<Node> {
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let mag = u128::from_str_radix(digits, radix).ok()?;
    if neg {
        return (mag <= i64::MAX as u128 + 1).then(|| Node::Int((-(mag as i128)) as i64));
    }
    if let Ok(i) = i64::try_from(mag) {
        return Some(Node::Int(i));
    }
    if !uint {
        return None;
    }
    u64::try_from(mag).ok().map(Node::UInt)
}

/// True when a string, written plain, would be read back by go-yaml v2 as
/// something other than that string (so the writer must quote it).
pub fn v2_needs_quotes(s: &str) -> bool {
    let read_as_itself = match resolve_special(s, Schema::V2) {
        None => true,
        Some(Node::Str(t)) => t == s,
        Some(_) => false,
    };
    !(read_as_itself && parse_timestamp(s).is_none()) || is_base60_float(s)
}

/// True when go-yaml v3's encoder quotes the string `s`: written plain, v3
/// would read it as another type (a timestamp included), or it is a YAML
/// 1.1 bool (`y`, `on`, `no`...) or base-60 float (`1:20`).
pub fn v3_needs_quotes(s: &str) -> bool {
    resolve_special(s, Schema::V3).is_some()
        || is_base60_float(s)
        || matches!(
            s,
            "y" | "Y"
                | "yes"
                | "Yes"
                | "YES"
                | "on"
                | "On"
                | "ON"
                | "n"
                | "N"
                | "no"
                | "No"
                | "NO"
                | "off"
                | "Off"
                | "OFF"
        )
}

/// True when `s`, written plain (unquoted) as a block mapping value or
/// sequence item, is read back by a YAML parser as one plain scalar with
/// exactly the text `s` (whatever type that text then resolves to). A
/// conservative test: printable ASCII only, no indicator at the start, no
/// `: ` or ` #` inside, no surrounding spaces, no document marker.
pub fn plain_round_trips(s: &str) -> bool {
    let b = s.as_bytes();
    let Some(&first) = b.first() else {
        return false;
    };
    if matches!(
        first,
        b'-' | b'?'
            | b':'
            | b','
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'#'
            | b'&'
            | b'*'
            | b'!'
            | b'|'
            | b'>'
            | b'\''
            | b'"'
            | b'%'
            | b'@'
            | b'`'
            | b' '
            | b'.'
    ) {
        // `-1`, `.5` and `-x` are plain too, but rare enough to leave to
        // the parser.
        return false;
    }
    if b[b.len() - 1] == b' ' || b[b.len() - 1] == b':' {
        return false;
    }
    // Printable ASCII, and no ` #` or `: ` (each byte with the one before
    // it): in blocks without a branch per byte, which the compiler makes
    // vector code of (long descriptions are read through here).
    let bad = |prev: u8, c: u8| {
        !(0x20..=0x7e).contains(&c) | (c == b'#') & (prev == b' ') | (c == b' ') & (prev == b':')
    };
    if b.len() < 64 {
        let mut prev = 0;
        for &c in b {
            if bad(prev, c) {
                return false;
            }
            prev = c;
        }
        return true;
    }
    if bad(0, b[0]) {
        return false;
    }
    let (prevs, rest) = (&b[..b.len() - 1], &b[1..]);
    !prevs
        .chunks(64)
        .zip(rest.chunks(64))
        .any(|(p, c)| p.iter().zip(c).fold(false, |acc, (&p, &c)| acc | bad(p, c)))
}

/// kyaml's `IsValueNonString`: a one-line text that a YAML 1.1 parser
/// reads as something other than a string (a number, bool, null, or even a
/// collection such as `a: b` or `[x]`). kyaml writes such string values
/// quoted.
pub fn is_yaml11_non_string(s: &str) -> bool {
    if s.is_empty() || s.contains('\n') {
        return false;
    }
    if plain_round_trips(s) {
        // A plain scalar: what it resolves to, without a parser.
        return !matches!(resolve_plain(s, Schema::V2), Node::Str(_));
    }
    match super::parse::parse_stream_with(s, Schema::V2) {
        Ok(docs) => match docs.into_iter().next() {
            Some(d) => !matches!(d.node, Node::Str(_)),
            None => true,
        },
        Err(_) => false,
    }
}

/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`
fn is_yaml_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let st = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - st
    };
    if i < b.len() && b[i] == b'.' {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if i < b.len() && b[i] == b'.' {
            i += 1;
            digits(&mut i);
        }
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// `^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`
fn is_base60_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
        i += 1;
    }
    if i >= b.len() || !b[i].is_ascii_digit() {
        return false;
    }
    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
        i += 1;
    }
    let mut groups = 0;
    while i < b.len() && b[i] == b':' {
        i += 1;
        let st = i;
        while i < b.len() && b[i].is_ascii_digit() && i - st < 2 {
            i += 1;
        }
        let n = i - st;
        if n == 0 || (n == 2 && b[st] > b'5') {
            return false;
        }
        groups += 1;
    }
    if groups == 0 {
        return false;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
            i += 1;
        }
    }
    i == b.len()
}

/// Go's `strconv.ParseInt(s, 0, 64)`, then `ParseUint`.
fn go_parse_int(s: &str) -> Option<Node> {
    let (neg, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    if body.is_empty() {
        return None;
    }
    let (radix, digits) =
        if let Some(r) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
            (16, r)
        } else if let Some(r) = body.strip_prefix("0o").or_else(|| body.strip_prefix("0O")) {
            (8, r)
        } else if let Some(r) = body.strip_prefix("0b").or_else(|| body.strip_prefix("0B")) {
            (2, r)
        } else if body.len() > 1 && body.starts_with('0') {
            (8, &body[1..])
        } else {
            (10, body)
        };
    int_of_digits(neg, digits, radix, true)
}

/// Go's `strconv.ParseFloat(s, 64)` for decimal input (no hex, no inf).
fn go_parse_float(s: &str) -> Option<f64> {
    let body = s.trim_start_matches(['+', '-']);
    if body.is_empty()
        || !body
            .bytes()
            .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
    {
        return None;
    }
    let f: f64 = s.parse().ok()?;
    if f.is_infinite() { None } else { Some(f) }
}

/// go-yaml's timestamp formats: `2006-1-2T15:4:5.999999999Z07:00`,
/// `2006-1-2t15:4:5.999999999Z07:00`, `2006-1-2 15:4:5.999999999`,
/// `2006-1-2`. Returns the value as Go's JSON encoding prints a
/// `time.Time` (RFC 3339 with nanoseconds trimmed).
pub fn parse_timestamp(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    if i != 4 || i == b.len() || b[i] != b'-' {
        return None;
    }
    let mut p = Cursor { b, i: 0 };
    let year = p.num(4, 4)?;
    p.lit(b'-')?;
    let month = p.num(1, 2)?;
    p.lit(b'-')?;
    let day = p.num(1, 2)?;
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    let date = format!("{year:04}-{month:02}-{day:02}");
    if p.i == b.len() {
        return Some(format!("{date}T00:00:00Z"));
    }
    let sep = b[p.i];
    if sep != b'T' && sep != b't' && sep != b' ' {
        return None;
    }
    p.i += 1;
    let hour = p.num(1, 2)?;
    p.lit(b':')?;
    let min = p.num(1, 2)?;
    p.lit(b':')?;
    let sec = p.num(1, 2)?;
    if hour > 23 || min > 59 || sec > 59 {
        return None;
    }
    let mut frac = String::new();
    if p.i < b.len() && b[p.i] == b'.' {
        p.i += 1;
        let st = p.i;
        while p.i < b.len() && b[p.i].is_ascii_digit() {
            p.i += 1;
        }
        if p.i == st || p.i - st > 9 {
            return None;
        }
        frac = s[st..p.i].trim_end_matches('0').to_string();
    }
    let zone = if p.i == b.len() {
        if sep == b' ' {
            "Z".to_string()
        } else {
            return None;
        }
    } else if sep == b' ' {
        return None;
    } else if b[p.i] == b'Z' && p.i + 1 == b.len() {
        "Z".to_string()
    } else if b[p.i] == b'+' || b[p.i] == b'-' {
        let rest = &s[p.i..];
        let rb = rest.as_bytes();
        if rb.len() != 6 || rb[3] != b':' {
            return None;
        }
        let hh: u32 = rest[1..3].parse().ok()?;
        let mm: u32 = rest[4..6].parse().ok()?;
        if hh > 23 || mm > 59 {
            return None;
        }
        if hh == 0 && mm == 0 {
            "Z".to_string()
        } else {
            rest.to_string()
        }
    } else {
        return None;
    };
    let frac = if frac.is_empty() {
        String::new()
    } else {
        format!(".{frac}")
    };
    Some(format!("{date}T{hour:02}:{min:02}:{sec:02}{frac}{zone}"))
}

fn days_in_month(y: u32, m: u32) -> u32 {
    match m {
        2 if (y.is_multiple_of(4) && !y.is_multiple_of(100)) || y.is_multiple_of(400) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn num(&mut self, min: usize, max: usize) -> Option<u32> {
        let st = self.i;
        while self.i < self.b.len() && self.b[self.i].is_ascii_digit() && self.i - st < max {
            self.i += 1;
        }
        if self.i - st < min {
            return None;
        }
        std::str::from_utf8(&self.b[st..self.i]).ok()?.parse().ok()
    }
    fn lit(&mut self, c: u8) -> Option<()> {
        if self.i < self.b.len() && self.b[self.i] == c {
            self.i += 1;
            Some(())
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every string over a small alphabet of YAML-significant characters
    /// (up to 4 long), plus typical values: whenever `plain_round_trips`
    /// says yes, the parser reads the text, as a document and as a mapping
    /// value, as one plain scalar resolving to `resolve_plain`'s value.
    fn same(a: &Node, b: &Node) -> bool {
        match (a, b) {
            (Node::Float(x), Node::Float(y)) if x.is_nan() && y.is_nan() => true,
            _ => a == b,
        }
    }

    #[test]
    fn plain_round_trips_agrees_with_the_parser() {
        let alphabet = [
            "a", "1", " ", ":", "#", "-", ".", "{", "}", "[", ",", "'", "\"", "$", "~", "0", "e",
            "x", "y", "+", "_", "/", "!", "&", "*", "?", "|", ">", "%", "@", "\t", "n",
        ];
        let mut corpus: Vec<String> = vec![
            "${APP}.${CLUSTER_APP_DOMAIN}".into(),
            "registry.example.org/app:1.2.3".into(),
            "8443".into(),
            "0x1F".into(),
            "1e3".into(),
            "2024-01-02".into(),
            "2024-01-02T10:00:00Z".into(),
            "yes".into(),
            "Off".into(),
            "null".into(),
            "1:20".into(),
            "190:20:30".into(),
            "a: b".into(),
            "https://example.org/a#b".into(),
            "a #b".into(),
            "1_000".into(),
            "0b101".into(),
            "0o17".into(),
            "+1".into(),
            "---x".into(),
        ];
        let mut cur = vec![String::new()];
        for _ in 0..3 {
            let mut next = Vec::new();
            for p in &cur {
                for c in alphabet {
                    next.push(format!("{p}{c}"));
                }
            }
            corpus.extend(next.iter().cloned());
            cur = next;
        }
        let mut checked = 0;
        for s in &corpus {
            if !plain_round_trips(s) {
                continue;
            }
            checked += 1;
            let want = resolve_plain(s, Schema::V2);
            let doc = crate::yaml::parse::parse_stream_with(s, Schema::V2)
                .unwrap_or_else(|e| panic!("{s:?}: {e}"));
            // A document holding only null is no document.
            let got = doc.first().map_or(Node::Null, |d| d.node.clone());
            assert!(doc.len() <= 1, "{s:?}");
            assert!(
                same(&got, &want),
                "{s:?} as a document: {got:?} vs {want:?}"
            );
            let text = format!("k: {s}\nl:\n- {s}\n");
            let doc = crate::yaml::parse::parse_stream_with(&text, Schema::V2)
                .unwrap_or_else(|e| panic!("{s:?}: {e}"));
            let m = doc[0].node.as_map().expect("a map");
            for got in [
                m.get("k").unwrap(),
                &m.get("l").unwrap().as_seq().unwrap()[0],
            ] {
                assert!(same(got, &want), "{s:?} as a value: {got:?} vs {want:?}");
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    #[test]
    fn v3_rules() {
        assert_eq!(resolve_plain("on", Schema::V3), Node::str("on"));
        assert_eq!(resolve_plain("on", Schema::V2), Node::Bool(true));
        assert_eq!(resolve_plain("017", Schema::V3), Node::Int(15));
        assert_eq!(resolve_plain("0o17", Schema::V3), Node::Int(15));
        assert_eq!(resolve_plain("1_000", Schema::V3), Node::Int(1000));
        assert_eq!(resolve_plain("0x1F", Schema::V3), Node::Int(31));
        assert_eq!(resolve_plain("1e3", Schema::V3), Node::Float(1000.0));
        assert_eq!(resolve_plain(".5", Schema::V3), Node::Float(0.5));
        assert_eq!(resolve_plain("08", Schema::V3), Node::Float(8.0));
        assert_eq!(
            resolve_plain("12345678901234567890", Schema::V3),
            Node::UInt(12345678901234567890)
        );
        assert_eq!(
            resolve_plain("2001-12-14", Schema::V3),
            Node::str("2001-12-14T00:00:00Z")
        );
        assert_eq!(resolve_plain("1.2.3", Schema::V3), Node::str("1.2.3"));
        assert_eq!(resolve_plain("-", Schema::V3), Node::str("-"));
    }

    #[test]
    fn quoting_decisions() {
        for s in [
            "on",
            "y",
            "n",
            "1",
            "1.0",
            "1e3",
            "0777",
            "1_000",
            "null",
            "",
            "~",
            "1:20",
            "2001-12-14T00:00:00Z",
        ] {
            assert!(v2_needs_quotes(s), "{s}");
        }
        for s in ["hello", "1.2.3", "a-b", "v1", "-", "yesno"] {
            assert!(!v2_needs_quotes(s), "{s}");
        }
    }
}
