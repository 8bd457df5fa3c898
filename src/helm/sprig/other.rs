//! Sprig's type tests, defaults and flow control, paths, URLs, semantic
//! versions, UUIDs and random bytes, and Helm's offline `getHostByName`.

use std::collections::BTreeMap;

use base64::Engine as _;

use super::lists::kind_name;
use super::{Rng, dict_arg, empty, want_bool, want_str};
use crate::helm::semver::{Constraint, Version};
use crate::template::value::{Json, Object};
use crate::template::{Templates, Value};

/// Go's `path.Clean`.
pub fn clean(p: &str) -> String {
    if p.is_empty() {
        return ".".into();
    }
    let rooted = p.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|l| *l != "..") {
                    parts.pop();
                } else if !rooted {
                    parts.push("..");
                }
            }
            s => parts.push(s),
        }
    }
    let body = parts.join("/");
    match (rooted, body.is_empty()) {
        (true, _) => format!("/{body}"),
        (false, true) => ".".into(),
        (false, false) => body,
    }
}

/// Go's `path.Base`.
pub fn base(p: &str) -> String {
    if p.is_empty() {
        return ".".into();
    }
    let t = p.trim_end_matches('/');
    if t.is_empty() {
        return "/".into();
    }
    t.rsplit('/').next().unwrap_or(t).to_string()
}

/// Go's `path.Dir`.
pub fn dir(p: &str) -> String {
    let cut = p.rfind('/').map_or(0, |i| i + 1);
    clean(&p[..cut])
}

/// Go's `path.Ext`.
pub fn ext(p: &str) -> String {
    for (i, c) in p.char_indices().rev() {
        if c == '/' {
            break;
        }
        if c == '.' {
            return p[i..].to_string();
        }
    }
    String::new()
}

/// The parts of a URL as Go's `url.Parse` splits them (`urlParse`), or
/// Sprig's panic when it cannot.
fn url_parse(raw: &str) -> Result<BTreeMap<String, Value>, String> {
    let u = crate::helm::gonet::parse_url(raw.as_bytes())
        .map_err(|e| format!("unable to parse url: {e}"))?;
    let text = |b: &[u8]| Value::Str(String::from_utf8_lossy(b).into_owned());
    let mut m = BTreeMap::new();
    for (k, v) in [
        ("scheme", Value::Str(u.scheme.clone())),
        ("host", text(&u.host)),
        ("hostname", text(u.hostname())),
        ("path", text(&u.path)),
        ("query", text(&u.raw_query)),
        ("opaque", text(&u.opaque)),
        ("fragment", text(&u.fragment)),
        ("userinfo", text(&u.userinfo())),
    ] {
        m.insert(k.to_string(), v);
    }
    Ok(m)
}

/// Go's `url.URL.String` for the parts `urlJoin` takes.
fn url_join(d: &BTreeMap<String, Value>) -> Result<String, String> {
    let get = |k: &str| -> Result<String, String> {
        match d.get(k) {
            None => Ok(String::new()),
            Some(Value::Str(s)) => Ok(s.clone()),
            Some(other) => Err(format!(
                "unable to parse {k} key, must be of type string, but {} found",
                kind_name(other)
            )),
        }
    };
    let (scheme, host, path, query, opaque, fragment, user) = (
        get("scheme")?,
        get("host")?,
        get("path")?,
        get("query")?,
        get("opaque")?,
        get("fragment")?,
        get("userinfo")?,
    );
    let mut out = String::new();
    if !scheme.is_empty() {
        out.push_str(&scheme);
        out.push(':');
    }
    if !opaque.is_empty() {
        out.push_str(&opaque);
    } else {
        if !scheme.is_empty() || !host.is_empty() || !user.is_empty() {
            if !host.is_empty() || !path.is_empty() || !user.is_empty() {
                out.push_str("//");
            }
            if !user.is_empty() {
                out.push_str(&user);
                out.push('@');
            }
            out.push_str(&host);
        }
        if !path.is_empty() && !path.starts_with('/') && !host.is_empty() {
            out.push('/');
        }
        out.push_str(&path);
    }
    if !query.is_empty() {
        out.push('?');
        out.push_str(&query);
    }
    if !fragment.is_empty() {
        out.push('#');
        out.push_str(&fragment);
    }
    Ok(out)
}

/// What Sprig's `semver` returns: Masterminds' `*semver.Version`, which
/// prints and encodes to JSON as its `String()` (`v1.2` is `1.2.0`), with
/// the methods `Major`, `Minor`, `Patch`, `Prerelease`, `Metadata`,
/// `Original` and `String`.
#[derive(Debug)]
struct SemverVersion(Version);

impl Object for SemverVersion {
    fn type_name(&self) -> &'static str {
        "*semver.Version"
    }
    fn print(&self) -> String {
        self.0.to_string()
    }
    fn field(&self, name: &str) -> Option<Value> {
        let v = &self.0;
        Some(match name {
            "Major" => Value::Int(v.major as i64),
            "Minor" => Value::Int(v.minor as i64),
            "Patch" => Value::Int(v.patch as i64),
            "Prerelease" => Value::Str(v.pre.clone()),
            "Metadata" => Value::Str(v.metadata.clone()),
            "Original" => Value::Str(v.original.clone()),
            "String" => Value::Str(v.to_string()),
            _ => return None,
        })
    }
    fn call(&self, _name: &str, _args: &[Value]) -> Option<Result<Value, String>> {
        None
    }
    fn plain(&self) -> Value {
        version_value(&self.0)
    }
    fn json(&self) -> Option<Json> {
        Some(Json::Value(Value::Str(self.0.to_string())))
    }
    fn string_method(&self) -> Option<String> {
        Some(self.0.to_string())
    }
}

/// A version as plain data (what functions that see no objects get): its
/// methods' values under their names.
fn version_value(v: &Version) -> Value {
    let mut m = BTreeMap::new();
    m.insert("Major".into(), Value::Int(v.major as i64));
    m.insert("Minor".into(), Value::Int(v.minor as i64));
    m.insert("Patch".into(), Value::Int(v.patch as i64));
    m.insert("Prerelease".into(), Value::Str(v.pre.clone()));
    m.insert("Metadata".into(), Value::Str(v.metadata.clone()));
    m.insert("Original".into(), Value::Str(v.original.clone()));
    Value::map(m)
}

fn uuid(rng: &Rng) -> String {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&rng.next_u64().to_le_bytes());
    b[8..].copy_from_slice(&rng.next_u64().to_le_bytes());
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &h[..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..]
    )
}

pub(super) fn add(t: &mut Templates) {
    t.add_func("hello", 0, Some(0), |_, _| Ok(Value::Str("Hello!".into())));
    t.add_func("typeOf", 1, Some(1), |_, a| {
        Ok(Value::Str(a[0].type_name().to_string()))
    });
    t.add_func("typeIs", 2, Some(2), |_, a| {
        Ok(Value::Bool(want_str(&a[0], "typeIs")? == a[1].type_name()))
    });
    t.add_func("typeIsLike", 2, Some(2), |_, a| {
        let want = want_str(&a[0], "typeIsLike")?;
        let ty = a[1].type_name();
        Ok(Value::Bool(want == ty || format!("*{want}") == ty))
    });
    t.add_func("kindOf", 1, Some(1), |_, a| {
        Ok(Value::Str(kind_name(&a[0]).to_string()))
    });
    t.add_func("kindIs", 2, Some(2), |_, a| {
        Ok(Value::Bool(want_str(&a[0], "kindIs")? == kind_name(&a[1])))
    });
    t.add_func("deepEqual", 2, Some(2), |_, a| {
        Ok(Value::Bool(a[0] == a[1]))
    });
    t.add_func("empty", 1, Some(1), |_, a| Ok(Value::Bool(empty(&a[0]))));
    t.add_func("default", 1, None, |_, a| match a.get(1) {
        Some(given) if !empty(given) => Ok(given.clone()),
        _ => Ok(a[0].clone()),
    });
    t.add_func("coalesce", 0, None, |_, a| {
        Ok(a.iter().find(|v| !empty(v)).cloned().unwrap_or_default())
    });
    t.add_func("all", 0, None, |_, a| {
        Ok(Value::Bool(a.iter().all(|v| !empty(v))))
    });
    t.add_func("any", 0, None, |_, a| {
        Ok(Value::Bool(a.iter().any(|v| !empty(v))))
    });
    t.add_func("ternary", 3, Some(3), |_, a| {
        Ok(if want_bool(&a[2])? {
            a[0].clone()
        } else {
            a[1].clone()
        })
    });
    for (name, f) in [
        ("base", base as fn(&str) -> String),
        ("dir", dir),
        ("clean", clean),
        ("ext", ext),
        ("osBase", base),
        ("osDir", dir),
        ("osClean", clean),
        ("osExt", ext),
    ] {
        t.add_func(name, 1, Some(1), move |_, a| {
            Ok(Value::Str(f(want_str(&a[0], name)?)))
        });
    }
    for name in ["isAbs", "osIsAbs"] {
        t.add_func(name, 1, Some(1), move |_, a| {
            Ok(Value::Bool(want_str(&a[0], name)?.starts_with('/')))
        });
    }
    t.add_func("urlParse", 1, Some(1), |_, a| {
        Ok(Value::map(url_parse(want_str(&a[0], "urlParse")?)?))
    });
    t.add_func("urlJoin", 1, Some(1), |_, a| {
        url_join(&dict_arg(&a[0], "urlJoin")?.read()).map(Value::Str)
    });
    t.add_func("semver", 1, Some(1), |_, a| {
        Version::parse(want_str(&a[0], "semver")?).map(|v| Value::object(SemverVersion(v)))
    });
    t.add_func("semverCompare", 2, Some(2), |_, a| {
        let c = Constraint::parse(want_str(&a[0], "semverCompare")?)?;
        let v = Version::parse(want_str(&a[1], "semverCompare")?)?;
        Ok(Value::Bool(c.matches(&v)))
    });
    t.add_func("uuidv4", 0, Some(0), |ex, _| {
        Ok(Value::Str(uuid(&Rng::of(ex))))
    });
    t.add_func("randBytes", 1, Some(1), move |ex, a| {
        let r = Rng::of(ex);
        let n = super::want_int(&a[0], "randBytes")?.max(0) as usize;
        let bytes: Vec<u8> = (0..n).map(|_| r.next_u64() as u8).collect();
        Ok(Value::Str(
            base64::engine::general_purpose::STANDARD.encode(bytes),
        ))
    });
    // Helm renders with DNS lookups disabled unless `--enable-dns`: the
    // function then returns "".
    t.add_func("getHostByName", 1, Some(1), |_, a| {
        want_str(&a[0], "getHostByName")?;
        Ok(Value::Str(String::new()))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_as_go() {
        assert_eq!(clean("a/../../b/./c//"), "../b/c");
        assert_eq!(clean("/../a"), "/a");
        assert_eq!(base("/a/b.txt/"), "b.txt");
        assert_eq!(dir("/a/b/c"), "/a/b");
        assert_eq!(dir("c"), ".");
        assert_eq!(ext("a/b.tar.gz"), ".gz");
    }

    #[test]
    fn urls_round_trip() {
        let m = url_parse("https://u:p@example.com:8080/a%20b?x=1#f").unwrap();
        assert_eq!(m["hostname"], Value::from("example.com"));
        assert_eq!(m["path"], Value::from("/a b"));
        assert_eq!(m["userinfo"], Value::from("u:p"));
        assert_eq!(
            url_join(&url_parse("https://example.com/x?q=1").unwrap()).unwrap(),
            "https://example.com/x?q=1"
        );
    }

    #[test]
    fn uuids_are_version_4() {
        let u = uuid(&Rng::new(1));
        assert_eq!(u.len(), 36);
        assert_eq!(&u[14..15], "4");
        assert!("89ab".contains(&u[19..20]));
    }
}
