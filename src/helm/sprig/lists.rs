//! Sprig's list and dictionary functions.

use std::collections::BTreeMap;

use super::{dict_arg, empty, strval, want_int, want_map, want_str};
use crate::template::{Map, Templates, Value};

/// Go's `reflect.Kind` name of a value (`kindOf`).
pub fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Nil => "invalid",
        Value::Bool(_) => "bool",
        Value::Int(_) => "int",
        Value::Float(_) => "float64",
        Value::Str(_) => "string",
        Value::List(_) => "slice",
        Value::Map(_) => "map",
        Value::Object(o) => o.0.kind(),
    }
}

/// The list argument of a list function, or the error Sprig gives
/// (`Cannot WHAT on type KIND`).
fn want_list<'a>(v: &'a Value, what: &str) -> Result<std::borrow::Cow<'a, [Value]>, String> {
    list_arg(v, |kind| format!("Cannot {what} on type {kind}"))
}

/// The list argument of a list function; `bad` words the error for a
/// value of another kind (Sprig's functions do not all word it alike).
fn list_arg<'a>(
    v: &'a Value,
    bad: impl Fn(&str) -> String,
) -> Result<std::borrow::Cow<'a, [Value]>, String> {
    match v {
        Value::List(l) => Ok(std::borrow::Cow::Borrowed(l)),
        Value::Object(o) if let Some(items) = o.0.slice_items() => {
            Ok(std::borrow::Cow::Borrowed(items))
        }
        // A slice of Helm's own type (`.Capabilities.APIVersions`), which
        // the functions that keep objects receive as it is.
        Value::Object(o) if o.0.kind() == "slice" => match o.0.plain() {
            Value::List(l) => Ok(std::borrow::Cow::Owned(l)),
            _ => Err(bad("slice")),
        },
        Value::Nil => {
            Err("runtime error: invalid memory address or nil pointer dereference".into())
        }
        other => Err(bad(kind_name(other))),
    }
}

/// Sprig's `chunk`, with its float arithmetic: a size of 0 or below makes
/// a slice of negative length (Go panics), except where the arithmetic
/// happens to give none or one chunk.
fn chunk(size: i64, l: &[Value]) -> Result<Value, String> {
    const BAD_LEN: &str = "runtime error: makeslice: len out of range";
    // Go's conversion of a float out of int's range (amd64).
    let go_int = |f: f64| {
        if f.is_finite() && f >= i64::MIN as f64 && f < i64::MAX as f64 {
            f as i64
        } else {
            i64::MIN
        }
    };
    let n = l.len() as i64;
    let count = go_int(((n - 1) as f64 / size as f64).floor() + 1.0);
    if count < 0 {
        return Err(BAD_LEN.into());
    }
    let mut out = Vec::with_capacity(count as usize);
    for i in 0..count {
        let mut len = size;
        if i == count - 1 {
            len = go_int((n as f64 % size as f64).floor());
            if len == 0 {
                len = size;
            }
        }
        if len < 0 {
            return Err(BAD_LEN.into());
        }
        let from = (i * size) as usize;
        out.push(Value::List(l[from..from + len as usize].to_vec()));
    }
    Ok(Value::typed_list(out, "[][]interface {}"))
}

/// The type a failed Go type assertion names: `nil` for a nil interface.
fn conversion_type(v: &Value) -> &'static str {
    match v {
        Value::Nil => "nil",
        v => v.type_name(),
    }
}

/// mergo's `isEmptyValue` for a map element.
fn empty_elem(v: &Value) -> bool {
    empty(v)
}

/// `mergo.Merge` (`overwrite` false) and `mergo.MergeWithOverwrite` of
/// `src` into `dst`, as Sprig's `merge` and `mergeOverwrite` run them: in
/// place (`dst` and the maps nested in it are changed, as Go's maps are
/// references), a key `dst` lacks taking the very value of `src` (a map
/// there is then shared by both).
pub fn merge_into(dst: &Map, src: &Map, overwrite: bool) {
    merge_at(dst, src, overwrite, 0)
}

fn merge_at(dst: &Map, src: &Map, overwrite: bool, depth: usize) {
    // mergo stops following maps this deep (its `depth` guard).
    if depth > crate::template::MAX_VALUE_DEPTH || dst.ptr_eq(src) {
        return;
    }
    for (k, sv) in src.entries() {
        if matches!(sv, Value::Nil) {
            if overwrite {
                dst.insert(k, Value::Nil);
            }
            continue;
        }
        let dv = dst.get(&k);
        match (dv, &sv) {
            (Some(Value::Map(dm)), Value::Map(sm)) if !dm.is_empty() => {
                merge_at(&dm, sm, overwrite, depth + 1);
            }
            (Some(d), _) if !empty_elem(&d) => {
                if overwrite {
                    dst.insert(k, sv);
                }
            }
            _ => {
                dst.insert(k, sv);
            }
        }
    }
}

fn map_list(v: &Value) -> Result<Vec<Map>, String> {
    match v {
        Value::Map(m) => Ok(vec![m.clone()]),
        other => dict_arg(other, "").map(|m| vec![m]),
    }
}

pub(super) fn add(t: &mut Templates) {
    for name in ["list", "tuple"] {
        t.add_func(name, 0, None, |_, a| Ok(Value::List(a.to_vec())));
    }
    // Sprig's non-`must` list functions panic where the `must` ones
    // return an error; Go's template engine reports both as an error of
    // the call, with the same message.
    for name in ["append", "push", "mustAppend", "mustPush"] {
        t.add_func(name, 2, Some(2), |_, a| {
            let mut l = want_list(&a[0], "push")?.to_vec();
            l.push(a[1].clone());
            Ok(Value::List(l))
        });
    }
    for name in ["prepend", "mustPrepend"] {
        t.add_func(name, 2, Some(2), |_, a| {
            let mut l = vec![a[1].clone()];
            l.extend_from_slice(&want_list(&a[0], "prepend")?);
            Ok(Value::List(l))
        });
    }
    for name in ["first", "mustFirst"] {
        t.add_func(name, 1, Some(1), |_, a| {
            Ok(want_list(&a[0], "find first")?
                .first()
                .cloned()
                .unwrap_or_default())
        });
    }
    for name in ["last", "mustLast"] {
        t.add_func(name, 1, Some(1), |_, a| {
            Ok(want_list(&a[0], "find last")?
                .last()
                .cloned()
                .unwrap_or_default())
        });
    }
    for name in ["rest", "mustRest"] {
        t.add_func(name, 1, Some(1), |_, a| {
            let l = want_list(&a[0], "find rest")?;
            // Go returns a nil []interface{}.
            if l.is_empty() {
                return Ok(Value::nil_slice("[]interface {}"));
            }
            Ok(Value::List(l[1..].to_vec()))
        });
    }
    for name in ["initial", "mustInitial"] {
        t.add_func(name, 1, Some(1), |_, a| {
            let l = want_list(&a[0], "find initial")?;
            // Go returns a nil []interface{}.
            if l.is_empty() {
                return Ok(Value::nil_slice("[]interface {}"));
            }
            Ok(Value::List(l[..l.len() - 1].to_vec()))
        });
    }
    for name in ["reverse", "mustReverse"] {
        t.add_func(name, 1, Some(1), |_, a| {
            let mut l = want_list(&a[0], "find reverse")?.to_vec();
            l.reverse();
            Ok(Value::List(l))
        });
    }
    for name in ["compact", "mustCompact"] {
        t.add_func(name, 1, Some(1), |_, a| {
            let l = want_list(&a[0], "compact")?;
            Ok(Value::List(
                l.iter().filter(|v| !empty(v)).cloned().collect(),
            ))
        });
    }
    for name in ["uniq", "mustUniq"] {
        t.add_func(name, 1, Some(1), |_, a| {
            let mut out: Vec<Value> = Vec::new();
            for v in want_list(&a[0], "find uniq")?.iter() {
                if !out.iter().any(|o| o.deep_equal(v)) {
                    out.push(v.clone());
                }
            }
            Ok(Value::List(out))
        });
    }
    for name in ["without", "mustWithout"] {
        t.add_func(name, 1, None, |_, a| {
            let omit = &a[1..];
            let l = want_list(&a[0], "find without")?;
            Ok(Value::List(
                l.iter()
                    .filter(|v| !omit.iter().any(|o| o.deep_equal(v)))
                    .cloned()
                    .collect(),
            ))
        });
    }
    for name in ["has", "mustHas"] {
        t.add_func(name, 2, Some(2), |_, a| {
            if matches!(a[1], Value::Nil) {
                return Ok(Value::Bool(false));
            }
            // (`.Capabilities.APIVersions`, a Go slice type, is read as
            // its strings by `list_arg`.)
            Ok(Value::Bool(
                want_list(&a[1], "find has")?
                    .iter()
                    .any(|v| v.deep_equal(&a[0])),
            ))
        });
    }
    for name in ["slice", "mustSlice"] {
        t.add_func(name, 1, None, |_, a| {
            let l = list_arg(&a[0], |kind| {
                format!("list should be type of slice or array but {kind}")
            })?;
            // Sprig returns a nil interface{} for an empty list.
            if l.is_empty() {
                return Ok(Value::Nil);
            }
            let idx: Vec<i64> = a[1..].iter().map(super::to_i64).collect();
            let len = l.len() as i64;
            let (from, to) = match idx.as_slice() {
                [] => (0, len),
                [f] => (*f, len),
                [f, t, ..] => (*f, *t),
            };
            if from < 0 || to > len || from > to {
                return Err("reflect.Value.Slice: slice index out of bounds".into());
            }
            let part = l[from as usize..to as usize].to_vec();
            // Go's reflection slices the slice it was given: a `[]string`
            // stays one.
            Ok(match &a[0] {
                Value::Object(o) if let Some(b) = o.0.byte_slice() => {
                    Value::byte_slice(b[from as usize..to as usize].into())
                }
                Value::Object(o) if o.0.slice_items().is_some() => {
                    Value::typed_list(part, o.0.type_name())
                }
                _ => Value::List(part),
            })
        });
    }
    t.add_func("concat", 0, None, |_, a| {
        let mut out = Vec::new();
        for l in a {
            match l {
                Value::List(items) => out.extend(items.iter().cloned()),
                // Sprig asks nil for its type's kind: Go's nil dereference.
                Value::Nil => {
                    return Err(
                        "runtime error: invalid memory address or nil pointer dereference".into(),
                    );
                }
                other => {
                    return Err(format!("Cannot concat type {} as list", kind_name(other)));
                }
            }
        }
        // Go appends to a nil slice: nothing appended leaves it nil.
        Ok(Value::list_or_nil(out, "[]interface {}"))
    });
    for name in ["chunk", "mustChunk"] {
        t.add_func(name, 2, Some(2), |_, a| {
            let size = want_int(&a[0], "chunk")?;
            let l = list_arg(&a[1], |kind| format!("Cannot chunk type {kind}"))?;
            chunk(size, &l)
        });
    }
    t.add_func("dict", 0, None, |_, a| {
        let mut m = BTreeMap::new();
        for pair in a.chunks(2) {
            let v = pair.get(1).cloned().unwrap_or(Value::Str(String::new()));
            m.insert(strval(&pair[0]), v);
        }
        Ok(Value::map(m))
    });
    t.add_func("get", 2, Some(2), |_, a| {
        let m = dict_arg(&a[0], "get")?;
        let k = want_str(&a[1], "get")?;
        Ok(m.get(k).unwrap_or(Value::Str(String::new())))
    });
    // `set` and `unset` change the map itself and return it.
    t.add_func("set", 3, Some(3), |_, a| {
        if a[0] == Value::Nil || matches!(&a[0], Value::Map(m) if m.is_nil()) {
            // Go panics on an assignment to a nil map.
            return Err("assignment to entry in nil map".into());
        }
        let m = want_map(&a[0], "set")?;
        m.set(want_str(&a[1], "set")?, a[2].clone());
        Ok(Value::Map(m.as_plain()))
    });
    t.add_func("unset", 2, Some(2), |_, a| {
        let m = dict_arg(&a[0], "unset")?;
        m.remove(want_str(&a[1], "unset")?);
        Ok(Value::Map(m.as_plain()))
    });
    t.add_func("hasKey", 2, Some(2), |_, a| {
        let m = dict_arg(&a[0], "hasKey")?;
        Ok(Value::Bool(m.contains_key(want_str(&a[1], "hasKey")?)))
    });
    t.add_func("pluck", 1, None, |_, a| {
        let k = want_str(&a[0], "pluck")?;
        let mut out = Vec::new();
        for d in &a[1..] {
            if let Some(v) = dict_arg(d, "pluck")?.get(k) {
                out.push(v);
            }
        }
        Ok(Value::List(out))
    });
    // Go ranges over maps in random order; here keys come sorted (per
    // dictionary, in argument order).
    t.add_func("keys", 0, None, |_, a| {
        let mut out = Vec::new();
        for d in a {
            // `.Subcharts` is an object here, a map in Helm.
            let d = d.to_plain();
            for m in map_list(&d)? {
                out.extend(m.keys().into_iter().map(Value::Str));
            }
        }
        Ok(Value::typed_list(out, "[]string"))
    });
    t.add_func("values", 1, Some(1), |_, a| {
        Ok(Value::List(
            dict_arg(&a[0], "values")?
                .read()
                .values()
                .cloned()
                .collect(),
        ))
    });
    t.add_func("pick", 1, None, |_, a| {
        let m = dict_arg(&a[0], "pick")?;
        let mut out = BTreeMap::new();
        for k in &a[1..] {
            let k = want_str(k, "pick")?;
            if let Some(v) = m.get(k) {
                out.insert(k.to_string(), v);
            }
        }
        Ok(Value::map(out))
    });
    t.add_func("omit", 1, None, |_, a| {
        let mut m = dict_arg(&a[0], "omit")?.to_btree();
        for k in &a[1..] {
            m.remove(want_str(k, "omit")?);
        }
        Ok(Value::map(m))
    });
    for (name, overwrite) in [
        ("merge", false),
        ("mustMerge", false),
        ("mergeOverwrite", true),
        ("mustMergeOverwrite", true),
    ] {
        t.add_func(name, 1, None, move |_, a| {
            let mut dst = dict_arg(&a[0], name)?;
            // mergo makes a nil destination a new map as soon as a source
            // is a map that is not nil (the caller's map stays nil).
            if dst.is_nil()
                && a[1..]
                    .iter()
                    .any(|s| matches!(s, Value::Map(m) if !m.is_nil()))
            {
                dst = crate::template::Map::new(BTreeMap::new());
            }
            for src in &a[1..] {
                merge_into(&dst, &dict_arg(src, name)?, overwrite);
            }
            Ok(Value::Map(dst.as_plain()))
        });
    }
    for name in ["deepCopy", "mustDeepCopy"] {
        t.add_func(name, 1, Some(1), |_, a| match &a[0] {
            // copystructure asks nil for its type: reflect's panic.
            Value::Nil => Err("reflect: call of reflect.Value.Type on zero Value".into()),
            v => Ok(v.deep_copy()),
        });
    }
    t.add_func("dig", 0, None, |_, a| {
        if a.len() < 3 {
            return Err("dig needs at least three arguments".into());
        }
        // `dig` asserts `map[string]interface {}`, which Helm's named
        // `Values` type and `split`'s `map[string]string` are not.
        const ANY_MAP: &str = "map[string]interface {}";
        let mut cur = match &a[a.len() - 1] {
            Value::Map(m) if m.type_name() == ANY_MAP => m.clone(),
            other => {
                return Err(format!(
                    "interface conversion: interface {{}} is {}, not {ANY_MAP}",
                    conversion_type(other)
                ));
            }
        };
        let def = &a[a.len() - 2];
        // Every key is asserted a string before the walk starts.
        let keys = a[..a.len() - 2]
            .iter()
            .map(|k| match k {
                Value::Str(k) => Ok(k),
                other => Err(format!(
                    "interface conversion: interface {{}} is {}, not string",
                    conversion_type(other)
                )),
            })
            .collect::<Result<Vec<_>, _>>()?;
        for (i, k) in keys.iter().enumerate() {
            let Some(step) = cur.get(k) else {
                return Ok(def.clone());
            };
            if i + 1 == keys.len() {
                return Ok(step);
            }
            match step {
                Value::Map(m) if m.type_name() == ANY_MAP => cur = m,
                other => {
                    return Err(format!(
                        "interface conversion: interface {{}} is {}, not map[string]interface {{}}",
                        conversion_type(&other)
                    ));
                }
            }
        }
        Ok(def.clone())
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pairs: &[(&str, Value)]) -> Map {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    #[test]
    fn merge_keeps_or_overwrites() {
        let dst = m(&[("a", Value::Int(1)), ("b", Value::Str(String::new()))]);
        let src = m(&[
            ("a", Value::Int(2)),
            ("b", "x".into()),
            ("c", Value::Bool(true)),
        ]);
        merge_into(&dst, &src, false);
        assert_eq!(dst.get("a"), Some(Value::Int(1)));
        assert_eq!(dst.get("b"), Some(Value::from("x")));
        assert_eq!(dst.get("c"), Some(Value::Bool(true)));
        merge_into(&dst, &src, true);
        assert_eq!(dst.get("a"), Some(Value::Int(2)));
    }
}
