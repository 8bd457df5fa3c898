//! Semantic versions and version constraints as Helm reads them
//! (Masterminds/semver v3: `NewVersion` in its default coercing mode,
//! `NewConstraint`, `Constraints.Check`).
//!
//! Versions are parsed loosely: an optional leading `v`, a missing minor
//! or patch (`1.2` is `1.2.0`), leading zeros (`01.02` is `1.2.0`), a
//! prerelease after `-` and build metadata after `+`. Constraints are
//! `||`-separated alternatives of comma- or space-separated comparisons
//! (`=`, `!=`, `>`, `<`, `>=`, `=>`, `<=`, `=<`, `~`, `~>`, `^`, or none),
//! with `x`/`X`/`*` wildcards and hyphen ranges (`1.2 - 1.4.5`). A
//! prerelease version satisfies an alternative only when one of that
//! alternative's comparisons names a prerelease itself.

use std::cmp::Ordering;
use std::fmt;
use std::sync::LazyLock;

use regex::Regex;

#[cfg(test)]
const LOOSE: &str = r"v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?";
const CV: &str = r"v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?";
const OPS: &str = r"=||!=|>|<|>=|=>|<=|=<|~|~>|\^";

/// What [`loose_parts`] matches by hand (for the test that compares them).
#[cfg(test)]
static LOOSE_RE: LazyLock<Regex> = LazyLock::new(|| Regex::new(&format!("^{LOOSE}$")).unwrap());
static CONSTRAINT_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"^\s*({OPS})\s*({CV})\s*$")).unwrap());
static RANGE_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"\s*({CV})\s+-\s+({CV})\s*")).unwrap());
static FIND_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"({OPS})\s*({CV})")).unwrap());
static VALID_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"^(\s*({OPS})\s*({CV})\s*)((?:\s+|,\s*)({OPS})\s*({CV})\s*)*$"
    ))
    .unwrap()
});

/// The groups of `LOOSE` in a text it matches whole: the major version's
/// digits, the minor's and the patch's with their `.` (empty when absent),
/// the prerelease and the build metadata without their `-` and `+`.
#[derive(Debug, PartialEq)]
struct LooseParts<'t> {
    major: &'t str,
    minor: &'t str,
    patch: &'t str,
    pre: &'t str,
    metadata: &'t str,
}

/// `^LOOSE$` matched by hand (compiling the expression cost more than a
/// small chart's whole render): the same groups as the expression's, in
/// every text (a test compares the two). Each part of the expression is
/// followed by one that must start with another character (`.`, `-`, `+`
/// or the end), so reading each greedily is the expression's only match.
fn loose_parts(text: &str) -> Option<LooseParts<'_>> {
    let b = text.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'v'));
    let run = |from: usize, ok: &dyn Fn(u8) -> bool| {
        from + b[from..].iter().take_while(|&&c| ok(c)).count()
    };
    let digit = |c: u8| c.is_ascii_digit();
    let end = run(i, &digit);
    if end == i {
        return None;
    }
    let major = &text[i..end];
    i = end;
    // `(\.[0-9]+)?`, twice.
    let mut dotted = || {
        if b.get(i) == Some(&b'.') {
            let end = run(i + 1, &digit);
            if end > i + 1 {
                let part = &text[i..end];
                i = end;
                return part;
            }
        }
        ""
    };
    let minor = dotted();
    let patch = dotted();
    // `[0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*` after a `-` or a `+`.
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'-';
    let dotted_idents = |from: usize| -> usize {
        let mut at = from;
        loop {
            let end = run(at, &ident);
            if end == at {
                return if at == from { from } else { at - 1 };
            }
            at = end;
            if b.get(at) == Some(&b'.') && b.get(at + 1).is_some_and(|&c| ident(c)) {
                at += 1;
            } else {
                return at;
            }
        }
    };
    // `(-(...))?` and `(\+(...))?`: the part after the mark.
    let mut marked = |mark: u8| {
        if b.get(i) == Some(&mark) {
            let end = dotted_idents(i + 1);
            if end > i + 1 {
                let part = &text[i + 1..end];
                i = end;
                return part;
            }
        }
        ""
    };
    let pre = marked(b'-');
    let metadata = marked(b'+');
    (i == b.len()).then_some(LooseParts {
        major,
        minor,
        patch,
        pre,
        metadata,
    })
}

/// The error Masterminds/semver gives for text that is no version.
pub const INVALID: &str = "invalid semantic version";

/// A semantic version. Equality and order ignore build metadata and the
/// original spelling, as Masterminds' `Compare` does.
#[derive(Debug, Clone)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    /// Prerelease, without the `-` ("" when none).
    pub pre: String,
    /// Build metadata, without the `+` ("" when none).
    pub metadata: String,
    /// The text parsed.
    pub original: String,
}

fn segment(text: &str) -> Result<u64, String> {
    text.parse::<u64>().map_err(|_| {
        format!(
            "error parsing version segment: strconv.ParseUint: parsing {}: value out of range",
            crate::template::value::go_quote(text)
        )
    })
}

fn all_in(s: &str, f: impl Fn(char) -> bool) -> bool {
    s.chars().all(f)
}

fn allowed(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-'
}

fn validate_prerelease(p: &str) -> Result<(), String> {
    for part in p.split('.') {
        if part.is_empty() {
            return Err("invalid prerelease string".into());
        } else if all_in(part, |c| c.is_ascii_digit()) {
            if part.len() > 1 && part.starts_with('0') {
                return Err("version segment starts with 0".into());
            }
        } else if !all_in(part, allowed) {
            return Err("invalid prerelease string".into());
        }
    }
    Ok(())
}

pub(crate) fn validate_metadata(m: &str) -> Result<(), String> {
    for part in m.split('.') {
        if part.is_empty() || !all_in(part, allowed) {
            return Err("invalid metadata string".into());
        }
    }
    Ok(())
}

impl Version {
    /// Parses a version as Masterminds' `NewVersion` does (coercing mode).
    pub fn parse(text: &str) -> Result<Version, String> {
        let p = loose_parts(text).ok_or_else(|| INVALID.to_string())?;
        let num = |s: &str| -> Result<u64, String> {
            match s {
                "" => Ok(0),
                s => segment(s.trim_start_matches('.')),
            }
        };
        let v = Version {
            major: segment(p.major)?,
            minor: num(p.minor)?,
            patch: num(p.patch)?,
            pre: p.pre.to_string(),
            metadata: p.metadata.to_string(),
            original: text.to_string(),
        };
        if !v.pre.is_empty() {
            validate_prerelease(&v.pre)?;
        }
        if !v.metadata.is_empty() {
            validate_metadata(&v.metadata)?;
        }
        Ok(v)
    }

    fn cmp_version(&self, o: &Version) -> Ordering {
        self.major
            .cmp(&o.major)
            .then(self.minor.cmp(&o.minor))
            .then(self.patch.cmp(&o.patch))
            .then_with(|| match (self.pre.is_empty(), o.pre.is_empty()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) => compare_prerelease(&self.pre, &o.pre),
            })
    }
}

fn compare_prerelease(a: &str, b: &str) -> Ordering {
    let ap: Vec<&str> = a.split('.').collect();
    let bp: Vec<&str> = b.split('.').collect();
    for i in 0..ap.len().max(bp.len()) {
        let d = compare_pre_part(
            ap.get(i).copied().unwrap_or(""),
            bp.get(i).copied().unwrap_or(""),
        );
        if d != Ordering::Equal {
            return d;
        }
    }
    Ordering::Equal
}

fn compare_pre_part(s: &str, o: &str) -> Ordering {
    if s == o {
        return Ordering::Equal;
    }
    if s.is_empty() {
        return Ordering::Less;
    }
    if o.is_empty() {
        return Ordering::Greater;
    }
    match (s.parse::<u64>(), o.parse::<u64>()) {
        (Err(_), Err(_)) => s.cmp(o),
        // A numeric identifier sorts before an alphanumeric one.
        (Ok(_), Err(_)) => Ordering::Less,
        (Err(_), Ok(_)) => Ordering::Greater,
        (Ok(si), Ok(oi)) => {
            if si > oi {
                Ordering::Greater
            } else {
                Ordering::Less
            }
        }
    }
}

impl PartialEq for Version {
    fn eq(&self, other: &Self) -> bool {
        self.cmp_version(other) == Ordering::Equal
    }
}

impl Eq for Version {}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Self) -> Ordering {
        self.cmp_version(other)
    }
}

/// `MAJOR.MINOR.PATCH[-PRE][+META]`, without a leading `v` (Masterminds'
/// `String`).
impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        if !self.pre.is_empty() {
            write!(f, "-{}", self.pre)?;
        }
        if !self.metadata.is_empty() {
            write!(f, "+{}", self.metadata)?;
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    TildeOrEqual,
    NotEqual,
    Greater,
    Less,
    GreaterEqual,
    LessEqual,
    Tilde,
    Caret,
}

#[derive(Debug, Clone)]
struct Comparison {
    op: Op,
    con: Version,
    minor_dirty: bool,
    dirty: bool,
    patch_dirty: bool,
}

/// A version constraint (Masterminds' `Constraints`).
#[derive(Debug, Clone)]
pub struct Constraint {
    alternatives: Vec<Vec<Comparison>>,
    /// Per alternative: whether one of its comparisons names a prerelease.
    has_pre: Vec<bool>,
    text: String,
}

fn is_x(s: &str) -> bool {
    matches!(s, "x" | "X" | "*")
}

fn rewrite_range(text: &str) -> String {
    let mut out = text.to_string();
    for m in RANGE_RE.captures_iter(text) {
        let whole = m.get(0).map_or("", |g| g.as_str());
        let from = m.get(1).map_or("", |g| g.as_str());
        let to = m.get(11).map_or("", |g| g.as_str());
        out = out.replacen(whole, &format!(">= {from}, <= {to} "), 1);
    }
    out
}

fn parse_comparison(text: &str) -> Result<Comparison, String> {
    let m = CONSTRAINT_RE
        .captures(text)
        .ok_or_else(|| format!("improper constraint: {text}"))?;
    let g = |i: usize| m.get(i).map_or("", |g| g.as_str());
    comparison(g(1), g(2), g(3), g(4), g(5), g(6))
}

/// A comparison from the groups of `CONSTRAINT_RE`: the operator, the
/// version, its major, minor (with its `.`), patch (with its `.`) and
/// prerelease (with its `-`).
fn comparison(
    op: &str,
    whole: &str,
    major: &str,
    minor: &str,
    patch: &str,
    pre: &str,
) -> Result<Comparison, String> {
    let op = match op {
        "" | "=" => Op::TildeOrEqual,
        "!=" => Op::NotEqual,
        ">" => Op::Greater,
        "<" => Op::Less,
        ">=" | "=>" => Op::GreaterEqual,
        "<=" | "=<" => Op::LessEqual,
        "~" | "~>" => Op::Tilde,
        _ => Op::Caret,
    };
    let (mut dirty, mut minor_dirty, mut patch_dirty) = (false, false, false);
    let ver = if is_x(major) || major.is_empty() {
        dirty = true;
        format!("0.0.0{pre}")
    } else if is_x(minor.trim_start_matches('.')) || minor.is_empty() {
        dirty = true;
        minor_dirty = true;
        format!("{major}.0.0{pre}")
    } else if is_x(patch.trim_start_matches('.')) || patch.is_empty() {
        dirty = true;
        patch_dirty = true;
        format!("{major}{minor}.0{pre}")
    } else {
        whole.to_string()
    };
    let con = Version::parse(&ver).map_err(|_| "constraint parser error".to_string())?;
    Ok(Comparison {
        op,
        con,
        minor_dirty,
        dirty,
        patch_dirty,
    })
}

impl Constraint {
    /// Parses a constraint as Masterminds' `NewConstraint` does; errors
    /// are worded as v3.4.0 (the version Helm 4.1 uses) words them
    /// (`improper constraint: TEXT`).
    pub fn parse(text: &str) -> Result<Constraint, String> {
        if let Some(c) = simple_comparison(text) {
            let c = c?;
            return Ok(Constraint {
                has_pre: vec![!c.con.pre.is_empty()],
                alternatives: vec![vec![c]],
                text: text.to_string(),
            });
        }
        Self::parse_regex(text)
    }

    /// [`Constraint::parse`] by Masterminds' regular expressions alone.
    fn parse_regex(text: &str) -> Result<Constraint, String> {
        let rewritten = rewrite_range(text);
        let mut alternatives = Vec::new();
        let mut has_pre = Vec::new();
        for alt in rewritten.split("||") {
            if !VALID_RE.is_match(alt) {
                return Err(format!("improper constraint: {alt}"));
            }
            let mut list = Vec::new();
            let mut pre = false;
            for m in FIND_RE.find_iter(alt) {
                let c = parse_comparison(m.as_str())?;
                pre |= !c.con.pre.is_empty();
                list.push(c);
            }
            alternatives.push(list);
            has_pre.push(pre);
        }
        Ok(Constraint {
            alternatives,
            has_pre,
            text: text.to_string(),
        })
    }

    /// Whether `v` satisfies the constraint (`Constraints.Check`).
    pub fn matches(&self, v: &Version) -> bool {
        self.alternatives
            .iter()
            .zip(&self.has_pre)
            .any(|(alt, pre)| alt.iter().all(|c| c.check(v, *pre)))
    }
}

/// The operators of `OPS`.
const OPERATORS: &[&str] = &["=", "!=", ">", "<", ">=", "=>", "<=", "=<", "~", "~>", "^"];

/// The most common constraint, one comparison (`>=1.21-0`, `^1.2.3`,
/// `~ 2.0`), read without the regular expressions (compiling them cost
/// more than a small chart's whole render): spaces, an operator or none,
/// spaces, a version of digits (`v`, then one to three numbers, then
/// perhaps a prerelease; no wildcard, no build metadata), spaces. `None`
/// for any other text, which the expressions read. On such a text the
/// expressions find exactly this one comparison, with the operator as
/// written (a test compares the two readings): no range (` - ` needs a
/// space before the `-`), one alternative, and the operator alternatives
/// that match only a part of the written operator leave no version after
/// them.
fn simple_comparison(text: &str) -> Option<Result<Comparison, String>> {
    let t = text.trim_matches(' ');
    let op_len = t.bytes().take_while(|c| b"=!<>~^".contains(c)).count();
    let (op, rest) = t.split_at(op_len);
    if !op.is_empty() && !OPERATORS.contains(&op) {
        return None;
    }
    let whole = rest.trim_start_matches(' ');
    let p = loose_parts(whole)?;
    if !p.metadata.is_empty() {
        return None;
    }
    let pre_start = whole.len() - p.pre.len() - usize::from(!p.pre.is_empty());
    Some(comparison(
        op,
        whole,
        p.major,
        p.minor,
        p.patch,
        &whole[pre_start..],
    ))
}

impl fmt::Display for Constraint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Comparison {
    fn check(&self, v: &Version, include_pre: bool) -> bool {
        if !v.pre.is_empty() && !include_pre {
            return false;
        }
        let c = &self.con;
        match self.op {
            Op::NotEqual => {
                if self.dirty {
                    if c.major != v.major {
                        return true;
                    }
                    if c.minor != v.minor && !self.minor_dirty {
                        return true;
                    } else if self.minor_dirty {
                        return false;
                    } else if c.patch != v.patch && !self.patch_dirty {
                        return true;
                    } else if self.patch_dirty {
                        if !v.pre.is_empty() || !c.pre.is_empty() {
                            return compare_prerelease(&v.pre, &c.pre) != Ordering::Equal;
                        }
                        return false;
                    }
                }
                v != c
            }
            Op::Greater => {
                if !self.dirty {
                    return v > c;
                }
                if v.major > c.major {
                    true
                } else if v.major < c.major || self.minor_dirty {
                    false
                } else if self.patch_dirty {
                    v.minor > c.minor
                } else {
                    v > c
                }
            }
            Op::Less => v < c,
            Op::GreaterEqual => v >= c,
            Op::LessEqual => {
                if !self.dirty {
                    return v <= c;
                }
                !(v.major > c.major
                    || (v.major == c.major && v.minor > c.minor && !self.minor_dirty))
            }
            Op::Tilde => self.tilde(v),
            Op::TildeOrEqual => {
                if self.dirty {
                    self.tilde(v)
                } else {
                    v == c
                }
            }
            Op::Caret => {
                if v < c {
                    return false;
                }
                if c.major > 0 || self.minor_dirty {
                    return v.major == c.major;
                }
                if v.major > 0 {
                    return false;
                }
                if c.minor > 0 || self.patch_dirty {
                    return v.minor == c.minor;
                }
                if v.minor > 0 {
                    return false;
                }
                c.patch == v.patch
            }
        }
    }

    fn tilde(&self, v: &Version) -> bool {
        let c = &self.con;
        if v < c {
            return false;
        }
        if c.major == 0 && c.minor == 0 && c.patch == 0 && !self.minor_dirty && !self.patch_dirty {
            return true;
        }
        v.major == c.major && (v.minor == c.minor || self.minor_dirty)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_loosely() {
        let v = Version::parse("v1.2").unwrap();
        assert_eq!((v.major, v.minor, v.patch), (1, 2, 0));
        assert_eq!(v.to_string(), "1.2.0");
        assert_eq!(v.original, "v1.2");
        let v = Version::parse("1.2.3-beta.1+build.5").unwrap();
        assert_eq!(v.pre, "beta.1");
        assert_eq!(v.metadata, "build.5");
        assert_eq!(Version::parse("01.02.03").unwrap().to_string(), "1.2.3");
        assert_eq!(Version::parse("1").unwrap().to_string(), "1.0.0");
        for bad in ["", "a.b.c", "1.2.3.4", "V1.2", "1.2.3-", "1.2 .3", " 1.2.3"] {
            assert_eq!(Version::parse(bad).unwrap_err(), INVALID, "{bad}");
        }
        assert_eq!(
            Version::parse("1.2.3-01").unwrap_err(),
            "version segment starts with 0"
        );
        assert!(
            Version::parse("99999999999999999999.0.0")
                .unwrap_err()
                .contains("value out of range")
        );
    }

    #[test]
    fn orders_as_semver() {
        let order = [
            "1.0.0-alpha",
            "1.0.0-alpha.1",
            "1.0.0-alpha.beta",
            "1.0.0-beta",
            "1.0.0-beta.2",
            "1.0.0-beta.11",
            "1.0.0-rc.1",
            "1.0.0",
            "1.0.1",
            "1.1.0",
            "2.0.0",
        ];
        let vs: Vec<Version> = order.iter().map(|s| Version::parse(s).unwrap()).collect();
        for w in vs.windows(2) {
            assert!(w[0] < w[1], "{} < {}", w[0], w[1]);
        }
        assert_eq!(
            Version::parse("v1.2.3+a").unwrap(),
            Version::parse("1.2.3+b").unwrap()
        );
    }

    #[test]
    fn constraints_check_as_masterminds() {
        let cases = [
            ("*", "1.2.3", true),
            ("~0.0.0", "1.2.3", true),
            ("0.x.x", "1.2.3", false),
            ("0.0.x", "1.2.3", false),
            ("0.0.0", "1.2.3", false),
            ("^0.0.0", "1.2.3", false),
            ("= 2.0", "1.2.3", false),
            ("= 2.0", "2.0.0", true),
            ("4.1", "4.1.0", true),
            ("4.1.x", "4.1.3", true),
            ("1.x", "1.4", true),
            ("!=4.1", "4.1.0", false),
            ("!=4.1-alpha", "4.1.0-alpha", false),
            ("!=4.1-alpha", "4.1.1-alpha", false),
            ("!=4.1-alpha", "4.1.0", true),
            ("!=4.1", "5.1.0", true),
            ("!=4.x", "5.1.0", true),
            ("!=4.x", "4.1.0", false),
            ("!=4.1.x", "4.2.0", true),
            ("!=4.2.x", "4.2.3", false),
            (">1.1", "4.1.0", true),
            (">1.1", "1.1.0", false),
            ("<1.1", "0.1.0", true),
            ("<1.1", "1.1.0", false),
            ("<1.1", "1.1.1", false),
            ("<1.x", "1.1.1", false),
            ("<1.x", "0.1.1", true),
            ("<1.1.x", "1.0.500", true),
            (">=1.1", "4.1.0", true),
            (">=1.1", "4.1.0-beta", false),
            (">=1.1", "0.0.9", false),
            ("<=1.1", "0.1.0-alpha", false),
            ("<=1.1-a", "0.1.0-alpha", true),
            ("<=1.x", "1.1.0", true),
            ("<=2.x", "3.0.0", false),
            ("<=1.1", "1.1.1", true),
            ("<=1.1.x", "1.2.500", false),
            (">1.1, <2", "1.1.1", false),
            (">1.1, <2", "1.2.1", true),
            (">=1.1, <2, !=1.2.3", "1.2.3", false),
            (">1.1 <2", "1.2.1", true),
            (">=1.1    <2    !=1.2.3", "1.2.3", false),
            (">=1.1, <2, !=1.2.3 || > 3", "4.1.2", true),
            (">=1.1, <2, !=1.2.3 || > 3", "3.1.2", false),
            (">=1.1, <2, !=1.2.3 || >= 3", "3.0.0", true),
            ("> 1.1, <     2", "1.1.1", false),
            (">= 1.0.0  <= 2.0.0-beta", "1.0.1-beta", true),
            (">= 1.0.0  <= 2.0.0-beta || > 3", "3.0.1-beta", false),
            (
                ">= 1.0.0  <= 2.0.0-beta != 1.0.1-beta || > 3",
                "1.0.1-beta",
                false,
            ),
            (">= 1.0.0-0  <= 2.0.0", "1.0.1-beta", true),
            ("1.1 - 2", "1.1.1", true),
            ("1.5.0 - 4.5", "3.7.0", true),
            ("1.1-3", "4.3.2", false),
            ("^1.1", "1.1.1", true),
            ("^1.1", "4.3.2", false),
            ("^1.x", "1.1.1", true),
            ("^2.x", "1.1.1", false),
            ("^1.x", "1.1.1-beta1", false),
            ("^1.1.2-alpha", "1.2.1-beta1", true),
            ("^1.2.x-alpha", "1.1.1-beta1", false),
            ("^0.0.1", "0.0.1", true),
            ("^0.0.1", "0.3.1", false),
            ("~*", "2.1.1", true),
            ("~1", "2.1.1", false),
            ("~1", "1.3.5", true),
            ("~1.x", "1.4", true),
            ("~1.1", "1.1.1-alpha", false),
            ("~1.1-alpha", "1.1.1-beta", true),
            ("~1.1.1-beta", "1.1.1-alpha", false),
            ("~1.1.1-beta", "1.1.1", true),
            ("~1.2.3", "1.2.5", true),
            ("~1.2.3", "1.3.2", false),
            ("~>1.2.3", "1.2.5", true),
            ("=>1.2", "1.2.0", true),
            ("=<1.2", "1.2.0", true),
            ("1.0.0 - 2.0.0 <=2.0.0", "1.5.0", true),
            ("1.0.0 - 2.0.0, <=2.0.0", "1.5.0", true),
            ("1.2 - 1.4.5", "1.4.6", false),
            ("1.2 - 1.4.5", "1.2.0", true),
        ];
        for (c, v, want) in cases {
            let con = Constraint::parse(c).unwrap();
            let ver = Version::parse(v).unwrap();
            assert_eq!(con.matches(&ver), want, "{c} / {v}");
        }
    }

    /// Every text of up to `n` characters from `alphabet`.
    fn texts(alphabet: &[char], n: usize) -> Vec<String> {
        let mut all = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..n {
            last = last
                .iter()
                .flat_map(|t| alphabet.iter().map(move |c| format!("{t}{c}")))
                .collect();
            all.extend(last.iter().cloned());
        }
        all
    }

    #[test]
    fn versions_are_read_by_hand_as_the_expression_reads_them() {
        fn by_regex(t: &str) -> Option<LooseParts<'_>> {
            LOOSE_RE.captures(t).map(|m| {
                let g = |i: usize| m.get(i).map_or("", |g| g.as_str());
                LooseParts {
                    major: g(1),
                    minor: g(2),
                    patch: g(3),
                    pre: g(5),
                    metadata: g(8),
                }
            })
        }
        let mut cases = texts(&['v', '1', '0', '.', '-', '+', 'a'], 5);
        cases.extend(
            [
                "v1.31.0",
                "1.29.3-gke.1245000",
                "1.2.3-alpha.1+build.5",
                "1.2.3-a..b",
                "1.2.3+",
                "01.002.0003",
                "1.2.3-",
                "1.2.3-a.",
                "v",
                "1.2.3.4",
                "1.2.3-x-y.z+m-n.o",
            ]
            .map(String::from),
        );
        for t in &cases {
            assert_eq!(loose_parts(t), by_regex(t), "{t:?}");
        }
    }

    #[test]
    fn simple_constraints_are_read_by_hand_as_the_expressions_read_them() {
        let mut cases = texts(&[' ', '=', '>', '<', '~', '^', '!', '1', '.', '-', 'a'], 4);
        for op in [
            "", "=", "!=", ">", "<", ">=", "=>", "<=", "=<", "~", "~>", "^", "==", "><", "~=", "!",
        ] {
            for v in [
                "1",
                "1.21",
                "1.21.3",
                "v1.21-0",
                "1.2.3-beta.1",
                "1.2.3+m",
                "1.x",
                "*",
                "1.2.x",
                "99999999999999999999",
                "1.2.3-",
                "1 - 2",
                "1, 2",
                "1 || 2",
                "1.2.3.4",
                "x",
                "v1.2.3-rc.1-2",
            ] {
                for (a, b, c) in [
                    ("", "", ""),
                    (" ", " ", " "),
                    ("", " ", ""),
                    ("  ", "", "  "),
                    ("\t", "", ""),
                ] {
                    cases.push(format!("{a}{op}{b}{v}{c}"));
                }
            }
        }
        let mut quick = 0;
        for t in &cases {
            if simple_comparison(t).is_some() {
                quick += 1;
            }
            let (a, b) = (Constraint::parse(t), Constraint::parse_regex(t));
            assert_eq!(format!("{a:?}"), format!("{b:?}"), "{t:?}");
        }
        // (The common forms are read by hand.)
        assert!(quick > 400, "{quick}");
        for t in [">=1.21-0", "^1.2.3", "~ 2.0", "1.2.3", " >= v1.16.0-0 "] {
            assert!(simple_comparison(t).is_some(), "{t:?}");
        }
    }

    #[test]
    fn bad_constraints() {
        assert_eq!(
            Constraint::parse("foo").unwrap_err(),
            "improper constraint: foo"
        );
        assert_eq!(
            Constraint::parse(">= 1.2 || bar").unwrap_err(),
            "improper constraint:  bar"
        );
        assert_eq!(Constraint::parse("").unwrap_err(), "improper constraint: ");
        assert!(Constraint::parse("1.2.x || 2.*").is_ok());
    }
}
