//! Values as Helm handles them: YAML read the `sigs.k8s.io/yaml` way
//! (numbers are float64), documents merged, and Helm's coalescing rules
//! (`pkg/chart/common/util/coalesce.go`): chart defaults under user values,
//! a user `null` deletes a default, subchart sections and `global`
//! propagated down.

use std::collections::{BTreeMap, HashSet};

use super::deps::WChart;
use crate::template::value::{sprint_value, sprintf};
use crate::template::{Map, Value};

pub type M = BTreeMap<String, Value>;

/// A YAML node as Helm's data: integers become float64 (JSON numbers).
pub use crate::helm::funcs::from_node;

/// `loader.MergeMaps`: `b` over `a`, maps merged recursively.
pub fn merge_maps(a: Value, b: Value) -> Value {
    let (Value::Map(out), Value::Map(b)) = (a, b) else {
        return Value::map(M::new());
    };
    let mut out = out.to_btree();
    for (k, v) in b.entries() {
        if let Value::Map(_) = v
            && let Some(Value::Map(_)) = out.get(&k)
        {
            let old = out.remove(&k).unwrap_or_default();
            out.insert(k, merge_maps(old, v));
            continue;
        }
        out.insert(k, v);
    }
    Value::map(out)
}

fn concat_prefix(a: &str, b: &str) -> String {
    if a.is_empty() {
        b.to_string()
    } else {
        format!("{a}.{b}")
    }
}

// The coalescing works as Helm's does, on shared maps changed in place,
// copying where Helm copies: the user's values and each chart's values
// deeply (`copystructure.Copy`), a parent's `global` tables shallowly
// (`copyMap`). A table two or more levels below `global` is therefore one
// map for a chart and all its subcharts, and what a subchart's values add
// into it shows in every chart's `global` (Helm's behaviour, kept).

/// `CoalesceValues` (merge = false) / `MergeValues` (merge = true): the
/// chart's values (and its subcharts') coalesced under `vals`.
pub(crate) fn coalesce_values(
    ch: &WChart,
    vals: M,
    merge: bool,
    warn: &mut Vec<String>,
) -> Result<M, String> {
    let dest = Map::new(vals).deep_copy();
    coalesce(ch, &dest, "", merge, warn)?;
    Ok(dest.to_btree())
}

fn coalesce(
    ch: &WChart,
    dest: &Map,
    prefix: &str,
    merge: bool,
    warn: &mut Vec<String>,
) -> Result<(), String> {
    coalesce_chart_values(ch, dest, prefix, merge, warn);
    coalesce_deps(ch, dest, prefix, merge, warn)
}

fn coalesce_deps(
    ch: &WChart,
    dest: &Map,
    prefix: &str,
    merge: bool,
    warn: &mut Vec<String>,
) -> Result<(), String> {
    for sub in &ch.deps {
        let dv = match dest.get(&sub.name) {
            None => {
                let m = Map::default();
                dest.insert(sub.name.clone(), Value::Map(m.clone()));
                m
            }
            Some(Value::Map(m)) => m,
            Some(other) => {
                return Err(format!(
                    "type mismatch on {}: {}",
                    sub.name,
                    sprintf("%t", std::slice::from_ref(&other))
                ));
            }
        };
        let sub_prefix = concat_prefix(prefix, &ch.name);
        coalesce_globals(&dv, dest, &sub_prefix, warn);
        coalesce(sub, &dv, &sub_prefix, merge, warn)?;
    }
    Ok(())
}

/// `coalesceGlobals`: the parent's (`src`) `global` into the subchart's
/// (`dest`), each table of it copied one level deep.
fn coalesce_globals(dest: &Map, src: &Map, prefix: &str, warn: &mut Vec<String>) {
    let dg = match dest.get("global") {
        None => Map::default(),
        Some(Value::Map(m)) => m,
        Some(_) => {
            warn.push(
                "warning: skipping globals because destination global is not a table.".into(),
            );
            return;
        }
    };
    let sg = match src.get("global") {
        None => Map::default(),
        Some(Value::Map(m)) => m,
        Some(_) => {
            warn.push("warning: skipping globals because source global is not a table.".into());
            return;
        }
    };
    for (key, val) in sg.entries() {
        if let Value::Map(vm) = val {
            let vv = Map::new(vm.to_btree());
            match dg.get(&key) {
                None => {
                    dg.insert(key, Value::Map(vv));
                }
                Some(Value::Map(destv)) => {
                    coalesce_maps(&vv, &destv, &concat_prefix(prefix, &key), true, warn);
                    dg.insert(key, Value::Map(vv));
                }
                Some(_) => warn.push(format!(
                    "Conflict: cannot merge map onto non-map for {key:?}. Skipping."
                )),
            }
        } else if let Some(Value::Map(_)) = dg.get(&key) {
            warn.push(format!("key {key} is table. Skipping"));
        } else {
            dg.insert(key, val);
        }
    }
    dest.insert("global", Value::Map(dg));
}

/// `coalesceValues`: a copy of the chart's values under `v`.
fn coalesce_chart_values(ch: &WChart, v: &Map, prefix: &str, merge: bool, warn: &mut Vec<String>) {
    let sub_prefix = concat_prefix(prefix, &ch.name);
    for (key, val) in Map::new(ch.values.clone()).deep_btree() {
        match v.get(&key) {
            Some(Value::Nil) if !merge => {
                v.remove(&key);
            }
            Some(Value::Map(dest)) => match val {
                Value::Map(src) => {
                    let merge = merge || ch.deps.iter().any(|d| d.name == key);
                    let full = concat_prefix(&sub_prefix, &key);
                    coalesce_maps(&dest, &src, &full, merge, warn);
                }
                Value::Nil => {}
                _ => warn.push(format!(
                    "warning: skipped value for {sub_prefix}.{key}: Not a table."
                )),
            },
            Some(_) => {}
            None => {
                v.insert(key, val);
            }
        }
    }
}

/// `coalesceTablesFullKey` on plain maps: `src` fills what `dst` lacks; a
/// `null` in `dst` deletes the key (unless merging).
pub(crate) fn coalesce_tables(
    dst: &mut M,
    src: M,
    prefix: &str,
    merge: bool,
    warn: &mut Vec<String>,
) {
    let d = Map::new(std::mem::take(dst));
    coalesce_maps(&d, &Map::new(src), prefix, merge, warn);
    *dst = d.to_btree();
}

/// `coalesceTablesFullKey`, changing `dst` (and, as Helm does, `src`) in
/// place.
fn coalesce_maps(dst: &Map, src: &Map, prefix: &str, merge: bool, warn: &mut Vec<String>) {
    let nonnil: HashSet<String> = src
        .entries()
        .into_iter()
        .filter(|(_, v)| *v != Value::Nil)
        .map(|(k, _)| k)
        .collect();
    for (k, v) in dst.entries() {
        if v == Value::Nil {
            src.insert(k, Value::Nil);
        }
    }
    for (key, val) in src.entries() {
        let fullkey = concat_prefix(prefix, &key);
        match dst.get(&key) {
            Some(Value::Nil) if !merge && nonnil.contains(&key) => {
                dst.remove(&key);
            }
            None => {
                dst.insert(key, val);
            }
            Some(dv) => match val {
                Value::Map(vm) => {
                    if let Value::Map(dm) = dv {
                        coalesce_maps(&dm, &vm, &fullkey, merge, warn);
                    } else {
                        warn.push(format!(
                            "warning: cannot overwrite table with non table for {fullkey} ({})",
                            sprint_value(&Value::Map(vm))
                        ));
                    }
                }
                Value::Nil => {}
                val => {
                    if let Value::Map(_) = dv {
                        warn.push(format!(
                            "warning: destination for {fullkey} is a table. Ignoring non-table value ({})",
                            sprint_value(&val)
                        ));
                    }
                }
            },
        }
    }
}

/// Go's JSON encoder's error for the first value of `v` it cannot write
/// (map keys in sorted order, as it writes them): a float that is infinite
/// or not a number. `sigs.k8s.io/yaml` encodes what it read to JSON, so a
/// values file holding `.inf` or `.nan` fails to load in Helm.
pub fn unencodable(v: &Value) -> Option<String> {
    match v {
        Value::Float(f) if !f.is_finite() => Some(format!(
            "json: unsupported value: {}",
            if f.is_nan() {
                "NaN"
            } else if *f > 0.0 {
                "+Inf"
            } else {
                "-Inf"
            }
        )),
        Value::List(l) => l.iter().find_map(unencodable),
        Value::Map(m) => m.read().values().find_map(unencodable),
        _ => None,
    }
}

/// `Values.Table`: the map at a dotted path (the same shared map).
pub(crate) fn table(v: &M, path: &str) -> Option<Map> {
    let mut parts = path.split('.');
    let mut cur = match v.get(parts.next()?) {
        Some(Value::Map(m)) => m.clone(),
        _ => return None,
    };
    for part in parts {
        match cur.get(part) {
            Some(Value::Map(m)) => cur = m,
            _ => return None,
        }
    }
    Some(cur)
}

/// `Values.PathValue`: the non-table value at a dotted path.
pub(crate) fn path_value(v: &M, path: &str) -> Option<Value> {
    if path.is_empty() {
        return None;
    }
    let found = match path.rsplit_once('.') {
        Some((p, k)) => table(v, p)?.get(k),
        None => v.get(path).cloned(),
    };
    match found {
        Some(Value::Map(_)) | None => None,
        Some(x) => Some(x),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(text: &str) -> M {
        match super::super::load::load_values(text).unwrap() {
            Value::Map(m) => m.to_btree(),
            _ => unreachable!(),
        }
    }

    #[test]
    fn tables_coalesce_and_null_deletes() {
        let mut dst = m("a: 1\nb: null\nc: {x: 1}\n");
        let src = m("a: 2\nb: 3\nc: {z: 2}\nd: 4\n");
        let mut w = Vec::new();
        coalesce_tables(&mut dst, src, "", false, &mut w);
        assert_eq!(
            sprint_value(&Value::map(dst)),
            "map[a:1 c:map[x:1 z:2] d:4]"
        );
    }

    #[test]
    fn table_over_scalar_warns() {
        let mut dst = m("a: 1\n");
        let src = m("a: {x: 1}\n");
        let mut w = Vec::new();
        coalesce_tables(&mut dst, src, "", false, &mut w);
        assert_eq!(
            w,
            vec!["warning: cannot overwrite table with non table for a (map[x:1])".to_string()]
        );
    }

    #[test]
    fn paths() {
        let v = m("a: {b: {c: true}}\n");
        assert_eq!(path_value(&v, "a.b.c"), Some(Value::Bool(true)));
        assert_eq!(path_value(&v, "a.b"), None);
        assert!(table(&v, "a.b").is_some());
        assert!(table(&v, "a.x").is_none());
    }
}
