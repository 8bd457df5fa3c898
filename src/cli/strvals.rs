//! Helm's `strvals` (`pkg/strvals/parser.go` and `literal_parser.go` of
//! Helm v4): the `--set`, `--set-string`, `--set-json`, `--set-file` and
//! `--set-literal` arguments of `helm template`, parsed into values the way
//! Helm parses them, errors included.
//!
//! * `--set` / `--set-string`: `a.b=c,d[0]=e,l={x,y}`; `\` escapes the next
//!   character in keys and values; `--set` types a value as int64 (no
//!   leading zero), bool or null, else string; `--set-string` keeps
//!   strings.
//! * `--set-json`: the value after `=` is one JSON value (numbers become
//!   float64); an empty value is null.
//! * `--set-file`: each value (and each `{a,b}` list item) names a file
//!   whose contents become the string value.
//! * `--set-literal`: everything after the first `=` is the string value,
//!   nothing escaped.
//!
//! Values are built in a small tree of their own ([`V`]) that the caller
//! converts to template data.

use std::collections::BTreeMap;

use flate::template::value::{go_atoi as atoi, go_quote};

/// Parsed values, with Go's dynamic types.
#[derive(Debug, Clone, PartialEq)]
pub enum V {
    Nil,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<V>),
    Map(VMap),
}

pub type VMap = BTreeMap<String, V>;

impl V {
    /// The Go type, as a failed type assertion names it.
    fn go_type(&self) -> &'static str {
        match self {
            V::Nil => "nil",
            V::Bool(_) => "bool",
            V::Int(_) => "int64",
            V::Float(_) => "float64",
            V::Str(_) => "string",
            V::List(_) => "[]interface {}",
            V::Map(_) => "map[string]interface {}",
        }
    }

    /// A JSON value as `encoding/json` decodes it into `interface{}`.
    pub fn from_json(j: &serde_json::Value) -> V {
        use serde_json::Value as J;
        match j {
            J::Null => V::Nil,
            J::Bool(b) => V::Bool(*b),
            J::Number(n) => V::Float(n.as_f64().unwrap_or(f64::NAN)),
            J::String(s) => V::Str(s.clone()),
            J::Array(a) => V::List(a.iter().map(V::from_json).collect()),
            J::Object(o) => V::Map(
                o.iter()
                    .map(|(k, v)| (k.clone(), V::from_json(v)))
                    .collect(),
            ),
        }
    }
}

/// How values are read.
pub enum Mode<'a> {
    /// `--set` (false) or `--set-string` (true).
    Typed(bool),
    /// `--set-json`.
    Json,
    /// `--set-file`: reads the file a value names.
    File(&'a dyn Fn(&str) -> Result<String, String>),
    /// `--set-literal`.
    Literal,
}

/// Maximum list index (`MaxIndex`).
const MAX_INDEX: i64 = 65536;
/// Maximum nesting of names (`MaxNestedNameLevel`).
const MAX_NESTED: usize = 30;

enum E {
    /// `io.EOF`: the input ended where a key could start.
    Eof,
    /// `ErrNotList`.
    NotList,
    Msg(String),
}

fn msg(s: impl Into<String>) -> E {
    E::Msg(s.into())
}

fn conversion(got: &V, want: &str) -> E {
    msg(format!(
        "unable to parse key: interface conversion: interface {{}} is {}, not {want}",
        got.go_type()
    ))
}

struct Parser<'a> {
    sc: Vec<char>,
    pos: usize,
    mode: Mode<'a>,
}

/// Applies one argument to `dest`, as `strvals.ParseInto` (and its
/// siblings) do. The error is Helm's message (without the `failed parsing
/// --set data:` prefix the caller adds).
pub fn parse_into(s: &str, dest: &mut VMap, mode: Mode<'_>) -> Result<(), String> {
    let mut p = Parser {
        sc: s.chars().collect(),
        pos: 0,
        mode,
    };
    loop {
        match p.key(dest, 0) {
            Ok(()) => continue,
            Err(E::Eof) => return Ok(()),
            Err(E::NotList) => return Err("not a list".into()),
            Err(E::Msg(m)) => return Err(m),
        }
    }
}

impl Parser<'_> {
    fn literal(&self) -> bool {
        matches!(self.mode, Mode::Literal)
    }

    fn read(&mut self) -> Option<char> {
        let c = self.sc.get(self.pos).copied();
        if c.is_some() {
            self.pos += 1;
        }
        c
    }

    /// `runesUntil` (`runesUntilLiteral`: no escapes): the runes up to
    /// one of `stop` (consumed), or None at the end.
    fn until(&mut self, stop: &[char]) -> (String, Option<char>) {
        let mut v = String::new();
        loop {
            let Some(r) = self.read() else {
                return (v, None);
            };
            if stop.contains(&r) {
                return (v, Some(r));
            }
            if r == '\\' && !self.literal() {
                match self.read() {
                    Some(n) => v.push(n),
                    None => return (v, None),
                }
            } else {
                v.push(r);
            }
        }
    }

    fn key(&mut self, data: &mut VMap, mut level: usize) -> Result<(), E> {
        let stop: &[char] = if self.literal() {
            &['=', '[', '.']
        } else {
            &['=', '[', ',', '.']
        };
        let (k, last) = self.until(stop);
        let Some(last) = last else {
            if k.is_empty() {
                return Err(E::Eof);
            }
            return Err(msg(format!("key {} has no value", go_quote(&k))));
        };
        match last {
            '[' => {
                let i = self.key_index()?;
                let list = match data.get(&k) {
                    Some(V::List(l)) => l.clone(),
                    Some(other) => return Err(conversion(other, "[]interface {}")),
                    None => Vec::new(),
                };
                let (list, r) = self.list_item(list, i, level);
                set(data, &k, V::List(list));
                r
            }
            '=' => {
                if self.literal() {
                    let (value, _) = self.until(&[]);
                    set(data, &k, V::Str(value));
                    return Ok(());
                }
                if matches!(self.mode, Mode::Json) {
                    if self.empty_val() {
                        set(data, &k, V::Nil);
                        return Ok(());
                    }
                    let v = self.json_value()?;
                    set(data, &k, v);
                    self.empty_val();
                    return Ok(());
                }
                match self.val_list() {
                    Ok(vl) => {
                        set(data, &k, V::List(vl));
                        Ok(())
                    }
                    Err(E::Eof) => {
                        set(data, &k, V::Str(String::new()));
                        Err(E::Eof)
                    }
                    Err(E::NotList) => {
                        let (rs, _) = self.until(&[',']);
                        let v = self.reader(&rs);
                        match v {
                            Ok(v) => {
                                set(data, &k, v);
                                Ok(())
                            }
                            Err(e) => {
                                set(data, &k, V::Nil);
                                Err(e)
                            }
                        }
                    }
                    Err(e) => Err(e),
                }
            }
            ',' => {
                set(data, &k, V::Str(String::new()));
                Err(msg(format!(
                    "key {} has no value (cannot end with ,)",
                    go_quote(&k)
                )))
            }
            _ => {
                // '.'
                level += 1;
                if level > MAX_NESTED {
                    return Err(msg(format!(
                        "value name nested level is greater than maximum supported nested level of {MAX_NESTED}"
                    )));
                }
                let mut inner = match data.get(&k) {
                    Some(V::Map(m)) => m.clone(),
                    Some(other) => return Err(conversion(other, "map[string]interface {}")),
                    None => VMap::new(),
                };
                let r = self.key(&mut inner, level);
                if r.is_ok() && inner.is_empty() {
                    return Err(msg(format!("key map {} has no value", go_quote(&k))));
                }
                if !inner.is_empty() {
                    set(data, &k, V::Map(inner));
                }
                r
            }
        }
    }

    /// `keyIndex`: the index up to `]`, as `strconv.Atoi` reads it.
    fn key_index(&mut self) -> Result<i64, E> {
        let (v, last) = self.until(&[']']);
        if last.is_none() {
            return Err(msg("error parsing index: EOF"));
        }
        atoi(&v).map_err(|e| msg(format!("error parsing index: {e}")))
    }

    fn list_item(&mut self, mut list: Vec<V>, i: i64, level: usize) -> (Vec<V>, Result<(), E>) {
        if i < 0 {
            return (list, Err(msg(format!("negative {i} index not allowed"))));
        }
        let (k, last) = self.until(&['[', '.', '=']);
        if !k.is_empty() {
            return (
                list,
                Err(msg(format!(
                    "unexpected data at end of array index: {}",
                    go_quote(&k)
                ))),
            );
        }
        let Some(last) = last else {
            return (list, Err(E::Eof));
        };
        match last {
            '=' => {
                if self.literal() {
                    let (value, _) = self.until(&[]);
                    return set_index(list, i, V::Str(value));
                }
                if matches!(self.mode, Mode::Json) {
                    if self.empty_val() {
                        return set_index(list, i, V::Nil);
                    }
                    let v = match self.json_value() {
                        Ok(v) => v,
                        Err(e) => return (list, Err(e)),
                    };
                    let (list, r) = set_index(list, i, v);
                    if r.is_err() {
                        return (list, r);
                    }
                    self.empty_val();
                    return (list, Ok(()));
                }
                match self.val_list() {
                    Ok(vl) => set_index(list, i, V::List(vl)),
                    Err(E::Eof) => set_index(list, i, V::Str(String::new())),
                    Err(E::NotList) => {
                        let (rs, _) = self.until(&[',']);
                        match self.reader(&rs) {
                            Ok(v) => set_index(list, i, v),
                            Err(e) => (list, Err(e)),
                        }
                    }
                    Err(e) => (list, Err(e)),
                }
            }
            '[' => {
                let next = match self.key_index() {
                    Ok(n) => n,
                    Err(e) => return (list, Err(e)),
                };
                let crt = match list.get(i as usize) {
                    Some(V::List(l)) => l.clone(),
                    Some(V::Nil) | None => Vec::new(),
                    Some(other) => {
                        let e = conversion(other, "[]interface {}");
                        return (list, Err(e));
                    }
                };
                let (list2, r) = self.list_item(crt, next, level);
                if r.is_err() {
                    return (list, r);
                }
                set_index(list, i, V::List(list2))
            }
            _ => {
                // '.'
                let mut inner = match list.get_mut(i as usize) {
                    Some(V::Map(m)) => m.clone(),
                    Some(slot) => {
                        // Indices out of order: an empty map.
                        *slot = V::Map(VMap::new());
                        VMap::new()
                    }
                    None => VMap::new(),
                };
                if let Err(e) = self.key(&mut inner, level) {
                    return (list, Err(e));
                }
                set_index(list, i, V::Map(inner))
            }
        }
    }

    /// `emptyVal`: skips blanks; true at the end or at a `,` (consumed).
    fn empty_val(&mut self) -> bool {
        loop {
            match self.read() {
                None | Some(',') => return true,
                Some(c) if c.is_whitespace() => {}
                Some(_) => {
                    self.pos -= 1;
                    return false;
                }
            }
        }
    }

    /// One JSON value from the rest of the input (`json.Decoder.Decode`).
    fn json_value(&mut self) -> Result<V, E> {
        let rest: String = self.sc[self.pos..].iter().collect();
        let mut it = serde_json::Deserializer::from_str(&rest).into_iter::<serde_json::Value>();
        match it.next() {
            Some(Ok(j)) => {
                let used = rest[..it.byte_offset()].chars().count();
                self.pos += used;
                Ok(V::from_json(&j))
            }
            Some(Err(e)) => Err(msg(e.to_string())),
            None => Err(E::Eof),
        }
    }

    /// `valList`: a `{a,b}` list, or NotList.
    fn val_list(&mut self) -> Result<Vec<V>, E> {
        match self.read() {
            None => return Err(E::Eof),
            Some('{') => {}
            Some(_) => {
                self.pos -= 1;
                return Err(E::NotList);
            }
        }
        let mut list = Vec::new();
        loop {
            let (rs, last) = self.until(&[',', '}']);
            match last {
                None => return Err(msg("list must terminate with '}'")),
                Some('}') => {
                    if let Some(r) = self.read()
                        && r != ','
                    {
                        self.pos -= 1;
                    }
                    let v = self.reader(&rs)?;
                    list.push(v);
                    return Ok(list);
                }
                _ => {
                    let v = self.reader(&rs)?;
                    list.push(v);
                }
            }
        }
    }

    fn reader(&self, rs: &str) -> Result<V, E> {
        match &self.mode {
            Mode::Typed(strings) => Ok(typed_val(rs, *strings)),
            Mode::File(read) => read(rs).map(V::Str).map_err(E::Msg),
            Mode::Json | Mode::Literal => Ok(V::Str(rs.to_string())),
        }
    }
}

fn set(data: &mut VMap, key: &str, v: V) {
    if !key.is_empty() {
        data.insert(key.to_string(), v);
    }
}

fn set_index(mut list: Vec<V>, i: i64, v: V) -> (Vec<V>, Result<(), E>) {
    if i < 0 {
        return (list, Err(msg(format!("negative {i} index not allowed"))));
    }
    if i > MAX_INDEX {
        return (
            list,
            Err(msg(format!(
                "index of {i} is greater than maximum supported index of {MAX_INDEX}"
            ))),
        );
    }
    let i = i as usize;
    while list.len() <= i {
        list.push(V::Nil);
    }
    list[i] = v;
    (list, Ok(()))
}

/// `typedVal`.
fn typed_val(v: &str, strings: bool) -> V {
    if strings {
        return V::Str(v.to_string());
    }
    if v.eq_ignore_ascii_case("true") {
        return V::Bool(true);
    }
    if v.eq_ignore_ascii_case("false") {
        return V::Bool(false);
    }
    if v.eq_ignore_ascii_case("null") {
        return V::Nil;
    }
    if v == "0" {
        return V::Int(0);
    }
    if !v.is_empty()
        && !v.starts_with('0')
        && let Some(i) = parse_int(v)
    {
        return V::Int(i);
    }
    V::Str(v.to_string())
}

/// `strconv.ParseInt(v, 10, 64)`: an optional sign and decimal digits.
fn parse_int(v: &str) -> Option<i64> {
    let digits = v.strip_prefix(['+', '-']).unwrap_or(v);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    v.parse().ok()
}

/// `loader.MergeMaps`: `b` over `a`, maps merged recursively.
pub fn merge_maps(a: &mut VMap, b: VMap) {
    for (k, v) in b {
        if let V::Map(bm) = v {
            if let Some(V::Map(am)) = a.get_mut(&k) {
                merge_maps(am, bm);
            } else {
                a.insert(k, V::Map(bm));
            }
        } else {
            a.insert(k, v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str], mode: fn() -> Mode<'static>) -> Result<VMap, String> {
        let mut m = VMap::new();
        for a in args {
            parse_into(a, &mut m, mode())?;
        }
        Ok(m)
    }

    fn set_(args: &[&str]) -> Result<VMap, String> {
        run(args, || Mode::Typed(false))
    }

    fn s(x: &str) -> V {
        V::Str(x.into())
    }

    fn map(entries: &[(&str, V)]) -> V {
        V::Map(
            entries
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }

    // The cases below follow pkg/strvals/parser_test.go of Helm v4.
    #[test]
    fn set_values_are_typed() {
        let m = set_(&["name=value,i=5,b=true,z=0,lead=007,neg=-3,n=null,e="]).unwrap();
        assert_eq!(m["name"], s("value"));
        assert_eq!(m["i"], V::Int(5));
        assert_eq!(m["b"], V::Bool(true));
        assert_eq!(m["z"], V::Int(0));
        assert_eq!(m["lead"], s("007"));
        assert_eq!(m["neg"], V::Int(-3));
        assert_eq!(m["n"], V::Nil);
        assert_eq!(m["e"], s(""));
        let m = set_(&["long_int_string=1234567890123456789012"]).unwrap();
        assert_eq!(m["long_int_string"], s("1234567890123456789012"));
    }

    #[test]
    fn set_keys_lists_and_escapes() {
        let m = set_(&["outer.inner=value,list={a,b},x[1].y=z,esc=a\\,b,k\\.d=v"]).unwrap();
        assert_eq!(m["outer"], map(&[("inner", s("value"))]));
        assert_eq!(m["list"], V::List(vec![s("a"), s("b")]));
        assert_eq!(m["x"], V::List(vec![V::Nil, map(&[("y", s("z"))])]));
        assert_eq!(m["esc"], s("a,b"));
        assert_eq!(m["k.d"], s("v"));
        let m = set_(&["nested[0][1]=1"]).unwrap();
        assert_eq!(m["nested"], V::List(vec![V::List(vec![V::Nil, V::Int(1)])]));
    }

    #[test]
    fn set_errors_are_helms() {
        assert_eq!(set_(&["name"]).unwrap_err(), "key \"name\" has no value");
        assert_eq!(
            set_(&["name1=value1,name2"]).unwrap_err(),
            "key \"name2\" has no value"
        );
        assert_eq!(
            set_(&["a,b=c"]).unwrap_err(),
            "key \"a\" has no value (cannot end with ,)"
        );
        assert_eq!(
            set_(&["list={a,b"]).unwrap_err(),
            "list must terminate with '}'"
        );
        assert_eq!(
            set_(&["a[x]=1"]).unwrap_err(),
            "error parsing index: strconv.Atoi: parsing \"x\": invalid syntax"
        );
        assert_eq!(
            set_(&["a[-1]=1"]).unwrap_err(),
            "negative -1 index not allowed"
        );
        assert_eq!(
            set_(&["a[65537]=1"]).unwrap_err(),
            "index of 65537 is greater than maximum supported index of 65536"
        );
        assert_eq!(
            set_(&["a=1", "a.b=2"]).unwrap_err(),
            "unable to parse key: interface conversion: interface {} is int64, not map[string]interface {}"
        );
        assert_eq!(
            set_(&["a=x", "a[0]=2"]).unwrap_err(),
            "unable to parse key: interface conversion: interface {} is string, not []interface {}"
        );
        assert_eq!(
            set_(&["a[0]x=1"]).unwrap_err(),
            "unexpected data at end of array index: \"x\""
        );
        let deep = format!("{}=1", vec!["a"; 32].join("."));
        assert_eq!(
            set_(&[&deep]).unwrap_err(),
            "value name nested level is greater than maximum supported nested level of 30"
        );
    }

    #[test]
    fn json_values() {
        let m = run(
            &[
                "a={\"x\":[1,\"y\"]},b=\"s,t\",c=,d=[1,2] ,e=true",
                "f[1]=null",
            ],
            || Mode::Json,
        )
        .unwrap();
        assert_eq!(m["a"], map(&[("x", V::List(vec![V::Float(1.0), s("y")]))]));
        assert_eq!(m["b"], s("s,t"));
        assert_eq!(m["c"], V::Nil);
        assert_eq!(m["d"], V::List(vec![V::Float(1.0), V::Float(2.0)]));
        assert_eq!(m["e"], V::Bool(true));
        assert_eq!(m["f"], V::List(vec![V::Nil, V::Nil]));
        assert!(run(&["a={x"], || Mode::Json).is_err());
    }

    #[test]
    fn literal_values() {
        let m = run(&["a.b=x,y=z\\n{q}"], || Mode::Literal).unwrap();
        assert_eq!(m["a"], map(&[("b", s("x,y=z\\n{q}"))]));
        let m = run(&["l[1]=a,b"], || Mode::Literal).unwrap();
        assert_eq!(m["l"], V::List(vec![V::Nil, s("a,b")]));
        assert_eq!(
            run(&["novalue"], || Mode::Literal).unwrap_err(),
            "key \"novalue\" has no value"
        );
    }

    #[test]
    fn file_values() {
        let read = |p: &str| -> Result<String, String> {
            match p {
                "one" => Ok("1\n".into()),
                "two" => Ok("2".into()),
                _ => Err(format!("open {p}: no such file or directory")),
            }
        };
        let mut m = VMap::new();
        parse_into("a=one,l={one,two}", &mut m, Mode::File(&read)).unwrap();
        assert_eq!(m["a"], s("1\n"));
        assert_eq!(m["l"], V::List(vec![s("1\n"), s("2")]));
        assert_eq!(
            parse_into("b=three", &mut m, Mode::File(&read)).unwrap_err(),
            "open three: no such file or directory"
        );
    }

    #[test]
    fn maps_merge_as_helm_merges_them() {
        let mut a = set_(&["x.a=1,x.b=2,l={1}"]).unwrap();
        let b = set_(&["x.b=3,x.c=4,l={2}"]).unwrap();
        merge_maps(&mut a, b);
        assert_eq!(
            a["x"],
            map(&[("a", V::Int(1)), ("b", V::Int(3)), ("c", V::Int(4))])
        );
        assert_eq!(a["l"], V::List(vec![V::Int(2)]));
    }
}
