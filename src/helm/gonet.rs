//! Go's `net/url.Parse` and `net/netip.ParseAddr` as Helm v4.1.4 (Go
//! 1.25) runs them: what they accept, what they make of it, and their
//! error messages word for word. Sprig's `urlParse` and the `uri`, `ipv6`
//! and related formats of Helm's JSON Schema validator rest on them.
//!
//! Go strings are bytes: the parts are kept as bytes (an escape such as
//! `%C3` alone decodes to a byte that is not UTF-8) and errors quote them
//! as Go's `strconv.Quote` does.

use crate::template::value::go_quote_bytes as quote;

/// A URL as `url.Parse` splits it (the fields Sprig and the validator
/// read).
#[derive(Debug, Default, PartialEq)]
pub struct Url {
    pub scheme: String,
    pub opaque: Vec<u8>,
    /// The user name and, when a `:` was written, the password (decoded).
    pub user: Option<(Vec<u8>, Option<Vec<u8>>)>,
    /// `host[:port]`, decoded.
    pub host: Vec<u8>,
    /// The path, decoded.
    pub path: Vec<u8>,
    pub raw_path: Vec<u8>,
    pub raw_query: Vec<u8>,
    /// The fragment, decoded.
    pub fragment: Vec<u8>,
}

impl Url {
    /// `URL.Hostname`: the host without a valid port, brackets removed.
    pub fn hostname(&self) -> &[u8] {
        let mut host = &self.host[..];
        if let Some(colon) = host.iter().rposition(|&b| b == b':')
            && valid_optional_port(&host[colon..])
        {
            host = &host[..colon];
        }
        if host.len() >= 2 && host[0] == b'[' && host[host.len() - 1] == b']' {
            host = &host[1..host.len() - 1];
        }
        host
    }

    /// `Userinfo.String`: the user name and password escaped again.
    pub fn userinfo(&self) -> Vec<u8> {
        let Some((name, password)) = &self.user else {
            return Vec::new();
        };
        let mut out = escape(name, Mode::UserPassword);
        if let Some(p) = password {
            out.push(b':');
            out.extend(escape(p, Mode::UserPassword));
        }
        out
    }
}

/// `url.Parse(raw)`; the error is `url.Error`'s text (`parse "RAW": ...`).
pub fn parse_url(raw: &[u8]) -> Result<Url, String> {
    let (u, frag) = match raw.iter().position(|&b| b == b'#') {
        Some(i) => (&raw[..i], Some(&raw[i + 1..])),
        None => (raw, None),
    };
    let mut url = parse(u).map_err(|e| format!("parse {}: {e}", quote(u)))?;
    if let Some(f) = frag.filter(|f| !f.is_empty()) {
        url.fragment =
            unescape(f, Mode::Fragment).map_err(|e| format!("parse {}: {e}", quote(raw)))?;
    }
    Ok(url)
}

fn parse(raw: &[u8]) -> Result<Url, String> {
    if raw.iter().any(|&b| b < b' ' || b == 0x7f) {
        return Err("net/url: invalid control character in URL".into());
    }
    let mut url = Url::default();
    if raw == b"*" {
        url.path = b"*".to_vec();
        return Ok(url);
    }
    let (scheme, mut rest) = scheme(raw)?;
    url.scheme = String::from_utf8_lossy(scheme).to_ascii_lowercase();
    if rest.last() == Some(&b'?') && rest.iter().filter(|&&b| b == b'?').count() == 1 {
        rest = &rest[..rest.len() - 1];
    } else if let Some(q) = rest.iter().position(|&b| b == b'?') {
        url.raw_query = rest[q + 1..].to_vec();
        rest = &rest[..q];
    }
    if !rest.starts_with(b"/") {
        if !url.scheme.is_empty() {
            // A rootless path after a scheme is opaque.
            url.opaque = rest.to_vec();
            return Ok(url);
        }
        let segment = rest.split(|&b| b == b'/').next().unwrap_or(b"");
        if segment.contains(&b':') {
            return Err("first path segment in URL cannot contain colon".into());
        }
    }
    if (!url.scheme.is_empty() || !rest.starts_with(b"///")) && rest.starts_with(b"//") {
        let after = &rest[2..];
        let (authority, path) = match after.iter().position(|&b| b == b'/') {
            Some(i) => (&after[..i], &after[i..]),
            None => (after, &b""[..]),
        };
        let (user, host) = parse_authority(authority)?;
        url.user = user;
        url.host = host;
        rest = path;
    }
    url.path = unescape(rest, Mode::Path)?;
    if escape(&url.path, Mode::Path) != rest {
        url.raw_path = rest.to_vec();
    }
    Ok(url)
}

/// `getScheme`: a leading `[a-zA-Z][a-zA-Z0-9+-.]*:`, else no scheme.
fn scheme(raw: &[u8]) -> Result<(&[u8], &[u8]), String> {
    for (i, &c) in raw.iter().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return Err("missing protocol scheme".into()),
            b':' => return Ok((&raw[..i], &raw[i + 1..])),
            _ => return Ok((b"", raw)),
        }
    }
    Ok((b"", raw))
}

type User = Option<(Vec<u8>, Option<Vec<u8>>)>;

fn parse_authority(authority: &[u8]) -> Result<(User, Vec<u8>), String> {
    let at = authority.iter().rposition(|&b| b == b'@');
    let host = parse_host(at.map_or(authority, |i| &authority[i + 1..]))?;
    let Some(at) = at else {
        return Ok((None, host));
    };
    let info = &authority[..at];
    let valid = |c: u8| c.is_ascii_alphanumeric() || b"-._:~!$&'()*+,;=%@".contains(&c);
    if !info.iter().all(|&c| valid(c)) {
        return Err("net/url: invalid userinfo".into());
    }
    let user = match info.iter().position(|&b| b == b':') {
        None => (unescape(info, Mode::UserPassword)?, None),
        Some(i) => (
            unescape(&info[..i], Mode::UserPassword)?,
            Some(unescape(&info[i + 1..], Mode::UserPassword)?),
        ),
    };
    Ok((Some(user), host))
}

/// `url.PathUnescape`.
pub fn path_unescape(s: &[u8]) -> Result<Vec<u8>, String> {
    unescape(s, Mode::Path)
}

/// `parseHost`: `host[:port]`, an IP literal in brackets only at the start
/// and only for an IPv6 address (with an optional `%25` zone).
fn parse_host(host: &[u8]) -> Result<Vec<u8>, String> {
    let invalid_port = |p: &[u8]| format!("invalid port {} after host", quote(p));
    if let Some(open) = host.iter().rposition(|&b| b == b'[') {
        if open > 0 {
            return Err("invalid IP-literal".into());
        }
        let Some(close) = host.iter().rposition(|&b| b == b']') else {
            return Err("missing ']' in host".into());
        };
        let port = &host[close + 1..];
        if !valid_optional_port(port) {
            return Err(invalid_port(port));
        }
        let inside = &host[1..close];
        let name = match memchr::memmem::find(inside, b"%25") {
            Some(z) => {
                let mut name = unescape(&inside[..z], Mode::Host)?;
                name.extend(unescape(&inside[z..], Mode::Zone)?);
                name
            }
            None => unescape(inside, Mode::Host)?,
        };
        match parse_addr(&name) {
            Err(e) => return Err(format!("invalid host: {e}")),
            Ok(Addr::V4) => return Err("invalid IP-literal".into()),
            Ok(Addr::V6) => {}
        }
        let mut out = b"[".to_vec();
        out.extend(name);
        out.push(b']');
        out.extend(unescape(port, Mode::Host)?);
        return Ok(out);
    }
    if let Some(colon) = host.iter().rposition(|&b| b == b':') {
        let port = &host[colon..];
        if !valid_optional_port(port) {
            return Err(invalid_port(port));
        }
    }
    unescape(host, Mode::Host)
}

/// Empty, or `:` and digits.
fn valid_optional_port(port: &[u8]) -> bool {
    match port.split_first() {
        None => true,
        Some((b':', digits)) => digits.iter().all(u8::is_ascii_digit),
        Some(_) => false,
    }
}

/// The part of a URL being escaped or unescaped (Go's `encoding`).
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Path,
    Host,
    Zone,
    UserPassword,
    Fragment,
}

/// `shouldEscape`.
fn should_escape(c: u8, mode: Mode) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
    if matches!(mode, Mode::Host | Mode::Zone) && b"!$&'()*+,;=:[]<>\"".contains(&c) {
        return false;
    }
    match c {
        b'-' | b'_' | b'.' | b'~' => false,
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => match mode {
            Mode::Path => c == b'?',
            Mode::UserPassword => matches!(c, b'@' | b'/' | b'?' | b':'),
            Mode::Fragment => false,
            Mode::Host | Mode::Zone => true,
        },
        b'!' | b'(' | b')' | b'*' if mode == Mode::Fragment => false,
        _ => true,
    }
}

fn escape_error(s: &[u8]) -> String {
    format!("invalid URL escape {}", quote(s))
}

/// `unescape`: `%XX` decoded, with the checks of hosts and zones.
fn unescape(s: &[u8], mode: Mode) -> Result<Vec<u8>, String> {
    let hex = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b'%' => {
                let (Some(hi), Some(lo)) = (
                    s.get(i + 1).and_then(|&b| hex(b)),
                    s.get(i + 2).and_then(|&b| hex(b)),
                ) else {
                    return Err(escape_error(&s[i..(i + 3).min(s.len())]));
                };
                let v = hi << 4 | lo;
                let escaped = &s[i..i + 3];
                if mode == Mode::Host && hi < 8 && escaped != b"%25" {
                    return Err(escape_error(escaped));
                }
                if mode == Mode::Zone
                    && escaped != b"%25"
                    && v != b' '
                    && should_escape(v, Mode::Host)
                {
                    return Err(escape_error(escaped));
                }
                out.push(v);
                i += 3;
            }
            c => {
                if matches!(mode, Mode::Host | Mode::Zone) && c < 0x80 && should_escape(c, mode) {
                    return Err(format!("invalid character {} in host name", quote(&[c])));
                }
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(out)
}

/// `escape`.
fn escape(s: &[u8], mode: Mode) -> Vec<u8> {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = Vec::with_capacity(s.len());
    for &c in s {
        if should_escape(c, mode) {
            out.extend([b'%', HEX[usize::from(c >> 4)], HEX[usize::from(c & 15)]]);
        } else {
            out.push(c);
        }
    }
    out
}

/// What `netip.ParseAddr` parsed.
#[derive(Debug, PartialEq)]
pub enum Addr {
    V4,
    V6,
}

/// `netip.ParseAddr(s)`; the error is Go's text
/// (`ParseAddr("s"): why (at "rest")`).
pub fn parse_addr(s: &[u8]) -> Result<Addr, String> {
    for &c in s {
        match c {
            b'.' => return parse_v4(s).map(|_| Addr::V4).map_err(|e| e.text(s)),
            b':' => return parse_v6(s).map(|()| Addr::V6).map_err(|e| e.text(s)),
            b'%' => return Err(AddrError::new("missing IPv6 address").text(s)),
            _ => {}
        }
    }
    Err(AddrError::new("unable to parse IP").text(s))
}

/// `parseAddrError` without its input.
struct AddrError {
    msg: String,
    at: Vec<u8>,
}

impl AddrError {
    fn new(msg: &str) -> AddrError {
        AddrError {
            msg: msg.into(),
            at: Vec::new(),
        }
    }

    fn at(msg: &str, at: &[u8]) -> AddrError {
        AddrError {
            msg: msg.into(),
            at: at.to_vec(),
        }
    }

    fn text(&self, input: &[u8]) -> String {
        let mut out = format!("ParseAddr({}): {}", quote(input), self.msg);
        if !self.at.is_empty() {
            out.push_str(&format!(" (at {})", quote(&self.at)));
        }
        out
    }
}

/// `parseIPv4`: four decimal fields.
fn parse_v4(s: &[u8]) -> Result<(), AddrError> {
    let (mut val, mut pos, mut digits) = (0u32, 0, 0);
    for (i, &c) in s.iter().enumerate() {
        match c {
            b'0'..=b'9' => {
                if digits == 1 && val == 0 {
                    return Err(AddrError::new("IPv4 field has octet with leading zero"));
                }
                val = val * 10 + u32::from(c - b'0');
                digits += 1;
                if val > 255 {
                    return Err(AddrError::new("IPv4 field has value >255"));
                }
            }
            b'.' => {
                if i == 0 || i == s.len() - 1 || s[i - 1] == b'.' {
                    return Err(AddrError::at(
                        "IPv4 field must have at least one digit",
                        &s[i..],
                    ));
                }
                if pos == 3 {
                    return Err(AddrError::new("IPv4 address too long"));
                }
                pos += 1;
                val = 0;
                digits = 0;
            }
            _ => return Err(AddrError::at("unexpected character", &s[i..])),
        }
    }
    if pos < 3 {
        return Err(AddrError::new("IPv4 address too short"));
    }
    Ok(())
}

/// `parseIPv6`: hexadecimal fields, one `::`, an IPv4 address in the last
/// two fields, a zone after `%`.
fn parse_v6(input: &[u8]) -> Result<(), AddrError> {
    let mut s = input;
    if let Some(i) = s.iter().position(|&b| b == b'%') {
        if i + 1 == s.len() {
            return Err(AddrError::new("zone must be a non-empty string"));
        }
        s = &s[..i];
    }
    let mut ellipsis: Option<usize> = None;
    if s.starts_with(b"::") {
        ellipsis = Some(0);
        s = &s[2..];
        if s.is_empty() {
            return Ok(());
        }
    }
    let mut i = 0;
    while i < 16 {
        let mut off = 0;
        let mut acc = 0u32;
        while off < s.len() {
            // (`acc` is the field's value, 16 bits at most)
            let Some(d) = (s[off] as char).to_digit(16) else {
                break;
            };
            if off == 4 {
                return Err(AddrError::at("each group must have 4 or less digits", s));
            }
            acc = (acc << 4) + d;
            off += 1;
        }
        if off == 0 {
            return Err(AddrError::at(
                "each colon-separated field must have at least one digit",
                s,
            ));
        }
        if s.get(off) == Some(&b'.') {
            if ellipsis.is_none() && i != 12 {
                return Err(AddrError::at(
                    "embedded IPv4 address must replace the final 2 fields of the address",
                    s,
                ));
            }
            if i + 4 > 16 {
                return Err(AddrError::at(
                    "too many hex fields to fit an embedded IPv4 at the end of the address",
                    s,
                ));
            }
            // (its error is reported against the whole input)
            parse_v4(s)?;
            s = b"";
            i += 4;
            break;
        }
        i += 2;
        s = &s[off..];
        if s.is_empty() {
            break;
        }
        if s[0] != b':' {
            return Err(AddrError::at("unexpected character, want colon", s));
        }
        if s.len() == 1 {
            return Err(AddrError::at(
                "colon must be followed by more characters",
                s,
            ));
        }
        s = &s[1..];
        if s[0] == b':' {
            if ellipsis.is_some() {
                return Err(AddrError::at("multiple :: in address", s));
            }
            ellipsis = Some(i);
            s = &s[1..];
            if s.is_empty() {
                break;
            }
        }
    }
    if !s.is_empty() {
        return Err(AddrError::at("trailing garbage after address", s));
    }
    if i < 16 {
        if ellipsis.is_none() {
            return Err(AddrError::new("address string too short"));
        }
    } else if ellipsis.is_some() {
        return Err(AddrError::new(
            "the :: must expand to at least one field of zeros",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(u: &str) -> String {
        parse_url(u.as_bytes()).unwrap_err()
    }

    // Expected texts: Helm v4.1.4's `urlParse` of the same URL (its error
    // after "unable to parse url: ").
    #[test]
    fn errors_as_go() {
        for (u, want) in [
            ("%zz", r#"parse "%zz": invalid URL escape "%zz""#),
            (
                "http://a b/",
                r#"parse "http://a b/": invalid character " " in host name"#,
            ),
            (
                "1:x",
                r#"parse "1:x": first path segment in URL cannot contain colon"#,
            ),
            ("http://[::1", r#"parse "http://[::1": missing ']' in host"#),
            (
                "http://h:x/",
                r#"parse "http://h:x/": invalid port ":x" after host"#,
            ),
            (
                "http://[a]/",
                r#"parse "http://[a]/": invalid host: ParseAddr("a"): unable to parse IP"#,
            ),
            (
                "http://x[::1]/",
                r#"parse "http://x[::1]/": invalid IP-literal"#,
            ),
            (
                "http://[::1]x/",
                r#"parse "http://[::1]x/": invalid port "x" after host"#,
            ),
            (
                "http://[1.2.3.4]/",
                r#"parse "http://[1.2.3.4]/": invalid IP-literal"#,
            ),
            (
                "http://[fe80::1%en0]/",
                r#"parse "http://[fe80::1%en0]/": invalid URL escape "%en""#,
            ),
            (
                "http://a%41/",
                r#"parse "http://a%41/": invalid URL escape "%41""#,
            ),
            (
                "http://u{@h/",
                r#"parse "http://u{@h/": net/url: invalid userinfo"#,
            ),
            (
                "http://h/\x01",
                r#"parse "http://h/\x01": net/url: invalid control character in URL"#,
            ),
            (":x", r#"parse ":x": missing protocol scheme"#),
            (
                "http://h#a%zz",
                r#"parse "http://h#a%zz": invalid URL escape "%zz""#,
            ),
            (
                "http://[v1.x]/",
                r#"parse "http://[v1.x]/": invalid host: ParseAddr("v1.x"): unexpected character (at "v1.x")"#,
            ),
            (
                "http://[::1]]/",
                r#"parse "http://[::1]]/": invalid host: ParseAddr("::1]"): unexpected character, want colon (at "]")"#,
            ),
            (
                "http://[::1%25]/",
                r#"parse "http://[::1%25]/": invalid host: ParseAddr("::1%"): zone must be a non-empty string"#,
            ),
            (
                "http://[::1]%3a80/",
                r#"parse "http://[::1]%3a80/": invalid port "%3a80" after host"#,
            ),
            (
                "http://a%2/",
                r#"parse "http://a%2/": invalid URL escape "%2""#,
            ),
            (
                "ht_tp://x",
                r#"parse "ht_tp://x": first path segment in URL cannot contain colon"#,
            ),
        ] {
            assert_eq!(err(u), want, "{u}");
        }
    }

    #[test]
    fn parts_as_go() {
        let u = parse_url(b"http://u:p:q@[::1%25%41]:80/a%20b?x=1#f%21").unwrap();
        assert_eq!(u.scheme, "http");
        assert_eq!(u.host, b"[::1%A]:80");
        assert_eq!(u.hostname(), b"::1%A");
        assert_eq!(u.userinfo(), b"u:p%3Aq");
        assert_eq!(u.path, b"/a b");
        assert_eq!(u.raw_query, b"x=1");
        assert_eq!(u.fragment, b"f!");
        let u = parse_url(b"a:b:c").unwrap();
        assert_eq!((u.scheme.as_str(), &u.opaque[..]), ("a", &b"b:c"[..]));
        let u = parse_url(b"http://h?a?").unwrap();
        assert_eq!(u.raw_query, b"a?");
        assert_eq!(parse_url(b"x?").unwrap().raw_query, b"");
        assert_eq!(parse_url(b"http://h:/").unwrap().hostname(), b"h");
        assert_eq!(parse_url(b"///p").unwrap().path, b"///p");
        assert_eq!(parse_url(b"http://a]b/").unwrap().host, b"a]b");
    }
}
