//! The `format` checks of Helm's JSON Schema validator
//! (santhosh-tekuri/jsonschema v6), which it asserts in drafts 4, 6 and 7:
//! the same names in every draft (`duration` and `uuid` in draft 4 too),
//! each with the reason v6 gives when a string fails
//! (`'x' is not valid ipv4: expected four decimals`). A name not listed
//! here is not checked.

use crate::template::value::{go_atoi as atoi, go_quote_rune as qrune};

/// The names v6 knows.
pub const NAMES: [&str; 19] = [
    "json-pointer",
    "relative-json-pointer",
    "uuid",
    "duration",
    "period",
    "ipv4",
    "ipv6",
    "hostname",
    "email",
    "date",
    "time",
    "date-time",
    "uri",
    "iri",
    "uri-reference",
    "iri-reference",
    "uri-template",
    "semver",
    "regex",
];

/// Why `s` is not of the format `name` (`None`: it is, or the name is
/// not one v6 knows).
pub fn problem(name: &str, s: &str) -> Option<String> {
    let r = match name {
        "json-pointer" => json_pointer(s),
        "relative-json-pointer" => relative_json_pointer(s),
        "uuid" => uuid(s),
        "duration" => duration(s),
        "period" => period(s),
        "ipv4" => ipv4(s),
        "ipv6" => ipv6(s),
        "hostname" => hostname(s),
        "email" => email(s),
        "date" => date(s),
        "time" => time(s),
        "date-time" => date_time(s),
        "uri" | "iri" => uri(s),
        "uri-reference" | "iri-reference" => uri_reference(s),
        "uri-template" => uri_template(s),
        "semver" => semver(s),
        "regex" => crate::goregex::translate(s)
            .map(drop)
            .map_err(|e| e.to_string()),
        _ => Ok(()),
    };
    r.err()
}

type Check = Result<(), String>;

fn fail<T>(why: impl Into<String>) -> Result<T, String> {
    Err(why.into())
}

/// RFC 6901: empty, or `/` and tokens where `~` is followed by `0` or `1`.
fn json_pointer(s: &str) -> Check {
    if s.is_empty() {
        return Ok(());
    }
    let Some(rest) = s.strip_prefix('/') else {
        return fail("not starting with /");
    };
    for token in rest.split('/') {
        let mut chars = token.chars();
        while let Some(c) = chars.next() {
            if c == '~' && !matches!(chars.next(), Some('0' | '1')) {
                return fail("~ must be followed by 0 or 1");
            }
        }
    }
    Ok(())
}

/// A non-negative integer, then `#` or a JSON pointer.
fn relative_json_pointer(s: &str) -> Check {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return fail("must start with non-negative integer");
    }
    if digits > 1 && s.starts_with('0') {
        return fail("starts with zero");
    }
    match &s[digits..] {
        "#" => Ok(()),
        rest => json_pointer(rest),
    }
}

/// Five groups of 8-4-4-4-12 hexadecimal digits.
fn uuid(s: &str) -> Check {
    const LENGTHS: [usize; 5] = [8, 4, 4, 4, 12];
    let groups: Vec<&str> = s.split('-').collect();
    if groups.len() != LENGTHS.len() {
        return fail(format!("must have {} elements", LENGTHS.len()));
    }
    for (i, (g, want)) in groups.iter().zip(LENGTHS).enumerate() {
        if g.len() != want {
            return fail(format!("element {} must be {want} characters long", i + 1));
        }
        if let Some(c) = g.chars().find(|c| !c.is_ascii_hexdigit()) {
            return fail(format!("non-hex character {}", qrune(c)));
        }
    }
    Ok(())
}

/// RFC 3339's ISO 8601 durations: `P`, then weeks alone, or dates' `Y`,
/// `M`, `D` and after `T` times' `H`, `M`, `S`, each unit at most once and
/// in that order.
fn duration(s: &str) -> Check {
    let Some(s) = s.strip_prefix('P') else {
        return fail("must start with P");
    };
    if s.is_empty() {
        return fail("nothing after P");
    }
    if let Some(weeks) = s.strip_suffix('W') {
        if weeks.is_empty() {
            return fail("no number in week");
        }
        if !weeks.bytes().all(|b| b.is_ascii_digit()) {
            return fail("invalid week");
        }
        return Ok(());
    }
    const UNITS: [&str; 2] = ["YMD", "HMS"];
    for (i, part) in s.split('T').enumerate() {
        if i != 0 && part.is_empty() {
            return fail("no time elements");
        }
        let Some(all) = UNITS.get(i) else {
            return fail("more than one T");
        };
        let mut left = *all;
        let mut rest = part;
        while !rest.is_empty() {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 {
                return fail("missing number");
            }
            rest = &rest[digits..];
            let Some(&unit) = rest.as_bytes().first() else {
                return fail("missing unit");
            };
            match left.bytes().position(|u| u == unit) {
                Some(j) => left = &left[j + 1..],
                None if all.as_bytes().contains(&unit) => {
                    return fail(format!("unit {} out of order", qrune(unit as char)));
                }
                None => return fail(format!("invalid unit {}", qrune(unit as char))),
            }
            rest = &rest[1..];
        }
    }
    Ok(())
}

/// `start/end`: a date-time and a date-time or a duration, or a duration
/// and a date-time.
fn period(s: &str) -> Check {
    let Some((start, end)) = s.split_once('/') else {
        return fail("missing slash");
    };
    if start.starts_with('P') {
        duration(start).map_err(|e| format!("invalid start duration: {e}"))?;
        date_time(end).map_err(|e| format!("invalid end date-time: {e}"))
    } else {
        date_time(start).map_err(|e| format!("invalid start date-time: {e}"))?;
        if end.starts_with('P') {
            duration(end).map_err(|e| format!("invalid end duration: {e}"))
        } else {
            date_time(end).map_err(|e| format!("invalid end date-time: {e}"))
        }
    }
}

/// Four decimals of 0 to 255 without leading zeros.
fn ipv4(s: &str) -> Check {
    let groups: Vec<&str> = s.split('.').collect();
    if groups.len() != 4 {
        return fail("expected four decimals");
    }
    for g in groups {
        if g.len() > 1 && g.starts_with('0') {
            return fail("leading zeros");
        }
        if !(0..=255).contains(&atoi(g)?) {
            return fail("decimal must be between 0 and 255");
        }
    }
    Ok(())
}

/// An IPv6 address as `netip.ParseAddr` reads it, without a zone.
fn ipv6(s: &str) -> Check {
    if !s.contains(':') {
        return fail("missing colon");
    }
    crate::helm::gonet::parse_addr(s.as_bytes())?;
    if s.contains('%') {
        // (ParseAddr took it: a zone after the address)
        return fail("zone id is not a part of ipv6 address");
    }
    Ok(())
}

/// Labels of 1 to 63 letters, digits and inner hyphens, 253 characters in
/// all (a final dot aside).
fn hostname(s: &str) -> Check {
    let s = s.strip_suffix('.').unwrap_or(s);
    if s.len() > 253 {
        return fail("more than 253 characters long");
    }
    for label in s.split('.') {
        if label.is_empty() || label.len() > 63 {
            return fail("label must be 1 to 63 characters long");
        }
        if label.starts_with('-') {
            return fail("label starts with hyphen");
        }
        if label.ends_with('-') {
            return fail("label ends with hyphen");
        }
        if let Some(c) = label
            .chars()
            .find(|&c| !(c.is_ascii_alphanumeric() || c == '-'))
        {
            return fail(format!("invalid character {}", qrune(c)));
        }
    }
    Ok(())
}

/// `local@domain`: a quoted or dotted local part of 64 characters at
/// most, a domain that is a host name or an IP address in brackets.
fn email(s: &str) -> Check {
    if s.len() > 254 {
        // (v6's words)
        return fail("more than 255 characters long");
    }
    let Some(at) = s.rfind('@') else {
        return fail("missing @");
    };
    let (local, domain) = (&s[..at], &s[at + 1..]);
    if local.len() > 64 {
        return fail("local part more than 64 characters long");
    }
    // (v6 takes a local part that only starts with a quote for quoted:
    // its inner part is all but the first and last bytes)
    if local.len() > 1 && local.starts_with('"') {
        let inner = &local.as_bytes()[1..local.len() - 1];
        if inner.iter().any(|b| matches!(b, b'\\' | b'"')) {
            return fail("backslash and quote are not allowed within quoted local part");
        }
    } else {
        if local.starts_with('.') {
            return fail("starts with dot");
        }
        if local.ends_with('.') {
            return fail("ends with dot");
        }
        if local.contains("..") {
            return fail("consecutive dots");
        }
        if let Some(c) = local
            .chars()
            .find(|&c| !(c.is_ascii_alphanumeric() || ".!#$%&'*+-/=?^_`{|}~".contains(c)))
        {
            return fail(format!("invalid character {}", qrune(c)));
        }
    }
    if let Some(inner) = domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        if let Some(v6) = inner.strip_prefix("IPv6:") {
            return ipv6(v6).map_err(|e| format!("invalid ipv6 address: {e}"));
        }
        return ipv4(inner).map_err(|e| format!("invalid ipv4 address: {e}"));
    }
    hostname(domain).map_err(|e| format!("invalid domain: {e}"))
}

/// `time.Parse("2006-01-02", s)`.
fn date(s: &str) -> Check {
    use crate::helm::sprig::dates;
    dates::parse("2006-01-02", s, &jiff::tz::TimeZone::UTC).map(drop)
}

/// RFC 3339's `full-time`: `hh:mm:ss`, a fraction, `Z` or an offset; a
/// leap second only at 23:59 UTC.
fn time(s: &str) -> Check {
    let b = s.as_bytes();
    if b.len() < 9 {
        return fail("less than 9 characters long");
    }
    if b[2] != b':' || b[5] != b':' {
        return fail("missing colon in correct place");
    }
    let mut hms = [0i64; 3];
    for (k, range) in [(0, 0..2), (1, 3..5), (2, 6..8)] {
        let tok = String::from_utf8_lossy(&b[range]);
        let v = atoi(&tok).map_err(|_| "invalid hour/min/sec".to_string())?;
        if v < 0 {
            return fail("non-positive hour/min/sec");
        }
        hms[k] = v;
    }
    let [mut h, mut m, sec] = hms;
    if h > 23 || m > 59 || sec > 60 {
        return fail("hour/min/sec out of range");
    }
    let mut rest = &b[8..];
    if let Some(frac) = rest.strip_prefix(b".") {
        let digits = frac.iter().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 {
            return fail("no digits in second fraction");
        }
        rest = &frac[digits..];
    }
    if rest != b"z" && rest != b"Z" {
        if rest.len() != 6 {
            return fail("offset must be 6 characters long");
        }
        let sign = match rest[0] {
            b'+' => -1,
            b'-' => 1,
            _ => return fail("offset must begin with plus/minus"),
        };
        let off = &rest[1..];
        if off[2] != b':' {
            return fail("missing colon in offset in correct place");
        }
        let mut zhm = [0i64; 2];
        for (k, range) in [(0, 0..2), (1, 3..5)] {
            let tok = String::from_utf8_lossy(&off[range]);
            let v = atoi(&tok).map_err(|_| "invalid hour/min in offset".to_string())?;
            if v < 0 {
                return fail("non-positive hour/min in offset");
            }
            zhm[k] = v;
        }
        if zhm[0] > 23 || zhm[1] > 59 {
            return fail("hour/min in offset out of range");
        }
        let mut minutes = h * 60 + m + sign * (zhm[0] * 60 + zhm[1]);
        if minutes < 0 {
            minutes += 24 * 60;
        }
        (h, m) = (minutes / 60, minutes % 60);
    }
    if sec >= 60 && (h != 23 || m != 59) {
        return fail("invalid leap second");
    }
    Ok(())
}

/// A date, `T` or `t`, a time.
fn date_time(s: &str) -> Check {
    let b = s.as_bytes();
    if b.len() < 20 {
        return fail("less than 20 characters long");
    }
    if b[10] != b't' && b[10] != b'T' {
        return fail("11th character must be t or T");
    }
    // (byte 10 is ASCII: both halves are whole characters)
    date(&s[..10]).map_err(|e| format!("invalid date element: {e}"))?;
    time(&s[11..]).map_err(|e| format!("invalid time element: {e}"))
}

/// `uri` (and `iri`, the same check): an absolute URL as Go's
/// `url.Parse` reads it.
fn uri(s: &str) -> Check {
    if parse_url(s)?.scheme.is_empty() {
        return fail("relative url");
    }
    Ok(())
}

/// `uri-reference` (and `iri-reference`): any URL `url.Parse` reads,
/// without a backslash.
fn uri_reference(s: &str) -> Check {
    if s.contains('\\') {
        return fail("contains \\");
    }
    parse_url(s).map(drop)
}

/// `url.Parse`, with v6's check of an IPv6 host in brackets.
fn parse_url(s: &str) -> Result<crate::helm::gonet::Url, String> {
    let u = crate::helm::gonet::parse_url(s.as_bytes())?;
    let host = u.hostname();
    if host.contains(&b':') {
        if !(u.host.contains(&b'[') && u.host.contains(&b']')) {
            return fail("ipv6 address not enclosed in brackets");
        }
        let host = String::from_utf8_lossy(host);
        ipv6(&host).map_err(|e| format!("invalid ipv6 address: {e}"))?;
    }
    Ok(u)
}

/// A URL whose encoded path (when it differs from the default encoding)
/// has its `{` and `}` paired in each segment.
fn uri_template(s: &str) -> Check {
    let u = parse_url(s)?;
    for token in u.raw_path.split(|&b| b == b'/') {
        let token = crate::helm::gonet::path_unescape(token)
            .map_err(|e| format!("percent decode failed: {e}"))?;
        let mut open = false;
        for c in String::from_utf8_lossy(&token).chars() {
            let brace = match c {
                '{' => true,
                '}' => false,
                _ => continue,
            };
            if brace == open {
                return fail("nested curly braces");
            }
            open = !open;
        }
        if open {
            return fail("no matching closing brace");
        }
    }
    Ok(())
}

/// Semantic Versioning 2.0.0: `MAJOR.MINOR.PATCH`, a pre-release and
/// build metadata of dotted identifiers.
fn semver(s: &str) -> Check {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '-';
    let mut s = s;
    if let Some(i) = s.find('+') {
        let build = &s[i + 1..];
        if build.is_empty() {
            return fail("build is empty");
        }
        for id in build.split('.') {
            if id.is_empty() {
                return fail("build identifier is empty");
            }
            if let Some(c) = id.chars().find(|&c| !ident(c)) {
                return fail(format!(
                    "invalid character {} in build identifier",
                    qrune(c)
                ));
            }
        }
        s = &s[..i];
    }
    if let Some(i) = s.find('-') {
        for id in s[i + 1..].split('.') {
            if id.is_empty() {
                return fail("pre-release identifier is empty");
            }
            if let Some(c) = id.chars().find(|&c| !ident(c)) {
                return fail(format!(
                    "invalid character {} in pre-release identifier",
                    qrune(c)
                ));
            }
            if id.len() > 1 && id.starts_with('0') && id.bytes().all(|b| b.is_ascii_digit()) {
                return fail("pre-release numeric identifier starts with zero");
            }
        }
        s = &s[..i];
    }
    let parts: Vec<&str> = s.split('.').collect();
    if parts.len() != 3 {
        return fail("versionCore must have 3 numbers separated by dot");
    }
    for (part, name) in parts.iter().zip(["major", "minor", "patch"]) {
        if part.is_empty() {
            return fail(format!("{name} is empty"));
        }
        if part.len() > 1 && part.starts_with('0') {
            return fail(format!("{name} starts with zero"));
        }
        if !part.bytes().all(|b| b.is_ascii_digit()) {
            return fail(format!("{name} contains non-digit"));
        }
    }
    Ok(())
}
