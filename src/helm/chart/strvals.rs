//! `--set` and `--set-string` arguments, as Helm's `strvals` reads them:
//! `a.b=c,d[0]=e,list={x,y}`, `\` escaping `.`, `,`, `=`, `[`; values typed
//! as int64 (no leading zero), bool, null or string (`--set-string`: always
//! string).

use super::values::M;
use crate::template::Value;

/// Applies one `--set` argument to `into`.
pub fn parse_into(arg: &str, strings: bool, into: &mut M) -> Result<(), String> {
    let chars: Vec<char> = arg.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        // the key: segments and indexes up to '='
        let mut path: Vec<Seg> = Vec::new();
        let mut cur = String::new();
        loop {
            if i >= chars.len() {
                return Err(format!("key {:?} has no value", cur));
            }
            match chars[i] {
                '\\' if i + 1 < chars.len() => {
                    cur.push(chars[i + 1]);
                    i += 2;
                }
                '.' => {
                    path.push(Seg::Key(std::mem::take(&mut cur)));
                    i += 1;
                }
                '[' => {
                    if !cur.is_empty() {
                        path.push(Seg::Key(std::mem::take(&mut cur)));
                    }
                    let end = chars[i..]
                        .iter()
                        .position(|c| *c == ']')
                        .ok_or_else(|| format!("key {:?} has an unclosed index", arg))?;
                    let idx: String = chars[i + 1..i + end].iter().collect();
                    let n: usize = idx
                        .parse()
                        .map_err(|_| format!("failed to parse index: {idx:?}"))?;
                    path.push(Seg::Index(n));
                    i += end + 1;
                    if i < chars.len() && chars[i] == '.' {
                        i += 1;
                    }
                }
                '=' => {
                    if !cur.is_empty() {
                        path.push(Seg::Key(std::mem::take(&mut cur)));
                    }
                    i += 1;
                    break;
                }
                ',' => return Err(format!("key {cur:?} has no value (cannot end with ,)")),
                c => {
                    cur.push(c);
                    i += 1;
                }
            }
        }
        // the value: up to an unescaped ',' (or a {list})
        let value = if i < chars.len() && chars[i] == '{' {
            let end = chars[i..]
                .iter()
                .position(|c| *c == '}')
                .ok_or("list must terminate with '}'")?;
            let inner: Vec<char> = chars[i + 1..i + end].to_vec();
            i += end + 1;
            let items = split_unescaped(&inner);
            Value::List(items.iter().map(|s| typed(s, strings)).collect())
        } else {
            let start = i;
            let mut end = i;
            while end < chars.len() && chars[end] != ',' {
                if chars[end] == '\\' {
                    end += 1;
                }
                end += 1;
            }
            let end = end.min(chars.len());
            i = end;
            let raw = unescape(&chars[start..end]);
            typed(&raw, strings)
        };
        if i < chars.len() && chars[i] == ',' {
            i += 1;
        }
        if path.is_empty() {
            return Err("key has no name".into());
        }
        set(into, &path, value);
    }
    Ok(())
}

enum Seg {
    Key(String),
    Index(usize),
}

fn unescape(c: &[char]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < c.len() {
        if c[i] == '\\' && i + 1 < c.len() {
            out.push(c[i + 1]);
            i += 2;
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

fn split_unescaped(c: &[char]) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = Vec::new();
    let mut i = 0;
    while i < c.len() {
        match c[i] {
            '\\' if i + 1 < c.len() => {
                cur.push(c[i]);
                cur.push(c[i + 1]);
                i += 2;
                continue;
            }
            ',' => out.push(unescape(&std::mem::take(&mut cur))),
            ch => cur.push(ch),
        }
        i += 1;
    }
    out.push(unescape(&cur));
    out
}

/// `typedVal`.
fn typed(v: &str, strings: bool) -> Value {
    if strings {
        return Value::Str(v.to_string());
    }
    if v.eq_ignore_ascii_case("true") {
        return Value::Bool(true);
    }
    if v.eq_ignore_ascii_case("false") {
        return Value::Bool(false);
    }
    if v.eq_ignore_ascii_case("null") {
        return Value::Nil;
    }
    if v == "0" {
        return Value::Int(0);
    }
    if !v.is_empty()
        && !v.starts_with('0')
        && let Ok(i) = v.parse::<i64>()
    {
        return Value::Int(i);
    }
    Value::Str(v.to_string())
}

fn set(m: &mut M, path: &[Seg], value: Value) {
    let Seg::Key(k) = &path[0] else {
        return;
    };
    if path.len() == 1 {
        m.insert(k.clone(), value);
        return;
    }
    let slot = m.entry(k.clone()).or_insert(Value::Nil);
    set_value(slot, &path[1..], value);
}

fn set_value(slot: &mut Value, path: &[Seg], value: Value) {
    match &path[0] {
        Seg::Key(_) => {
            if !matches!(slot, Value::Map(_)) {
                *slot = Value::map(M::new());
            }
            if let Value::Map(m) = slot {
                set(&mut m.write(), path, value);
            }
        }
        Seg::Index(n) => {
            if !matches!(slot, Value::List(_)) {
                *slot = Value::List(Vec::new());
            }
            if let Value::List(l) = slot {
                while l.len() <= *n {
                    l.push(Value::Nil);
                }
                if path.len() == 1 {
                    l[*n] = value;
                } else {
                    set_value(&mut l[*n], &path[1..], value);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::template::value::sprint_value;

    fn run(args: &[&str]) -> String {
        let mut m = M::new();
        for a in args {
            parse_into(a, false, &mut m).unwrap();
        }
        sprint_value(&Value::map(m))
    }

    #[test]
    fn set_arguments() {
        assert_eq!(run(&["a.b=1,c=true"]), "map[a:map[b:1] c:true]");
        assert_eq!(run(&["s=007,n=null"]), "map[n:<nil> s:007]");
        assert_eq!(run(&["l={x,y}"]), "map[l:[x y]]");
        assert_eq!(run(&["k\\.x=v"]), "map[k.x:v]");
        assert_eq!(run(&["i[1].name=b"]), "map[i:[<nil> map[name:b]]]");
        assert_eq!(run(&["v=a\\,b"]), "map[v:a,b]");
        let mut m = M::new();
        parse_into("p=12", true, &mut m).unwrap();
        assert_eq!(m.get("p"), Some(&Value::Str("12".into())));
        assert!(matches!(
            run(&["big=123456789012"]).as_str(),
            "map[big:123456789012]"
        ));
    }
}
