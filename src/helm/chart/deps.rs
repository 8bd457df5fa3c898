//! Dependencies as `helm template` resolves them
//! (`pkg/chart/v2/util/dependencies.go`): subcharts matched to
//! `Chart.yaml` entries by name and version range, `alias` renaming,
//! `tags` and `condition` enabling, then `import-values`.

use std::cmp::Ordering;

use super::values::{M, coalesce_tables, coalesce_values, path_value, table};
use super::{Chart, Dependency};
use crate::template::Value;
use crate::template::value::sprint_value;

/// A chart as one render sees it: renamed by its alias, its values
/// replaced by import processing, disabled subcharts removed.
#[derive(Debug, Clone)]
pub(crate) struct WChart<'c> {
    pub chart: &'c Chart,
    pub name: String,
    pub values: M,
    pub meta_deps: Option<Vec<Dependency>>,
    pub deps: Vec<WChart<'c>>,
}

impl<'c> WChart<'c> {
    pub fn new(chart: &'c Chart) -> WChart<'c> {
        WChart {
            chart,
            name: chart.metadata.name.clone(),
            // A render changes its values in place (templates `set` into
            // `.Values`): it works on its own copy of the chart's defaults.
            values: match &chart.values {
                Value::Map(m) => m.deep_btree(),
                _ => M::new(),
            },
            meta_deps: chart.metadata.dependencies.clone(),
            deps: chart.dependencies.iter().map(|d| WChart::new(d)).collect(),
        }
    }
}

/// `ProcessDependencies`.
pub(crate) fn process(c: &mut WChart, vals: &M, warn: &mut Vec<String>) -> Result<(), String> {
    enabled(c, vals, "", warn)?;
    import_values(c, warn)
}

fn enabled(c: &mut WChart, v: &M, path: &str, warn: &mut Vec<String>) -> Result<(), String> {
    let Some(mut reqs) = c.meta_deps.take() else {
        return Ok(());
    };
    let existing = std::mem::take(&mut c.deps);
    let mut chart_deps: Vec<WChart> = existing
        .iter()
        .filter(|e| {
            !reqs
                .iter()
                .any(|r| e.name == r.name && compatible(&r.version, &e.chart.metadata.version))
        })
        .cloned()
        .collect();
    for req in reqs.iter_mut() {
        if let Some(found) = existing
            .iter()
            .find(|e| e.name == req.name && compatible(&req.version, &e.chart.metadata.version))
        {
            let mut out = found.clone();
            if !req.alias.is_empty() {
                out.name = req.alias.clone();
            }
            chart_deps.push(out);
        }
        if !req.alias.is_empty() {
            req.name = req.alias.clone();
        }
    }
    c.deps = chart_deps;
    for r in reqs.iter_mut() {
        r.enabled = true;
    }
    let cvals = coalesce_values(c, v.clone(), false, warn)?;
    // tags
    if let Some(tags) = table(&cvals, "tags") {
        for r in reqs.iter_mut() {
            let (mut has_true, mut has_false) = (false, false);
            for k in &r.tags {
                match tags.get(k) {
                    Some(Value::Bool(true)) => has_true = true,
                    Some(Value::Bool(false)) => has_false = true,
                    Some(_) => {
                        warn.push(format!("returned non-bool value tag={k} chart={}", r.name))
                    }
                    None => {}
                }
            }
            r.enabled = has_true || !has_false;
        }
    }
    // conditions
    for r in reqs.iter_mut() {
        for cond in r.condition.trim().split(',') {
            if cond.is_empty() {
                continue;
            }
            match path_value(&cvals, &format!("{path}{cond}")) {
                Some(Value::Bool(b)) => {
                    r.enabled = b;
                    break;
                }
                Some(_) => warn.push(format!(
                    "returned non-bool value path={cond} chart={}",
                    r.name
                )),
                None => {}
            }
        }
    }
    let removed: Vec<String> = reqs
        .iter()
        .filter(|r| !r.enabled)
        .map(|r| r.name.clone())
        .collect();
    c.deps.retain(|d| !removed.contains(&d.name));
    reqs.retain(|r| !removed.contains(&r.name));
    for t in c.deps.iter_mut() {
        let sub = format!("{path}{}.", t.name);
        enabled(t, &cvals, &sub, warn)?;
    }
    c.meta_deps = if reqs.is_empty() { None } else { Some(reqs) };
    Ok(())
}

fn path_to_map(path: &str, data: M) -> M {
    if path == "." {
        return data;
    }
    let mut cur = data;
    for p in path.split('.').rev() {
        let mut m = M::new();
        m.insert(p.to_string(), Value::map(cur));
        cur = m;
    }
    cur
}

fn import_values(c: &mut WChart, warn: &mut Vec<String>) -> Result<(), String> {
    for d in c.deps.iter_mut() {
        import_values(d, warn)?;
    }
    let Some(reqs_snapshot) = c.meta_deps.clone() else {
        return Ok(());
    };
    let cvals = coalesce_values(c, M::new(), true, warn)?;
    let mut b = M::new();
    let mut new_ivs = Vec::new();
    for r in &reqs_snapshot {
        let mut outiv = Vec::new();
        for riv in &r.import_values {
            match riv {
                Value::Map(iv) => {
                    let text = |k: &str| sprint_value(&iv.get(k).unwrap_or_default());
                    let (child, parent) = (text("child"), text("parent"));
                    outiv.push(Value::map(M::from([
                        ("child".to_string(), Value::Str(child.clone())),
                        ("parent".to_string(), Value::Str(parent.clone())),
                    ])));
                    match table(&cvals, &format!("{}.{child}", r.name)) {
                        Some(vv) => coalesce_tables(
                            &mut b,
                            path_to_map(&parent, vv.to_btree()),
                            "",
                            true,
                            warn,
                        ),
                        None => warn.push(format!(
                            "ImportValues missing table from chart {}: {child}",
                            r.name
                        )),
                    }
                }
                Value::Str(iv) => {
                    let child = format!("exports.{iv}");
                    outiv.push(Value::map(M::from([
                        ("child".to_string(), Value::Str(child.clone())),
                        ("parent".to_string(), Value::Str(".".into())),
                    ])));
                    match table(&cvals, &format!("{}.{child}", r.name)) {
                        Some(vm) => coalesce_tables(&mut b, vm.to_btree(), "", true, warn),
                        None => warn.push(format!("ImportValues missing table {child}")),
                    }
                }
                _ => {}
            }
        }
        new_ivs.push(outiv);
    }
    let reqs = c.meta_deps.as_mut().expect("dependencies");
    for (r, iv) in reqs.iter_mut().zip(new_ivs) {
        r.import_values = iv;
    }
    // (A deep copy first, as Helm makes one: `b` shares tables with
    // `cvals`, and merging changes them in place.)
    let mut merged = crate::template::Map::new(cvals).deep_btree();
    coalesce_tables(&mut merged, b, "", true, warn);
    c.values = merged;
    Ok(())
}

// ------------------------------------------------------------ versions

#[derive(Debug, Clone, PartialEq, Eq)]
struct Ver {
    major: u64,
    minor: u64,
    patch: u64,
    pre: String,
}

fn cmp_pre(a: &str, b: &str) -> Ordering {
    match (a.is_empty(), b.is_empty()) {
        (true, true) => return Ordering::Equal,
        (true, false) => return Ordering::Greater,
        (false, true) => return Ordering::Less,
        _ => {}
    }
    let (pa, pb): (Vec<&str>, Vec<&str>) = (a.split('.').collect(), b.split('.').collect());
    for (x, y) in pa.iter().zip(pb.iter()) {
        let o = match (x.parse::<u64>(), y.parse::<u64>()) {
            (Ok(i), Ok(j)) => i.cmp(&j),
            (Ok(_), Err(_)) => Ordering::Less,
            (Err(_), Ok(_)) => Ordering::Greater,
            _ => x.cmp(y),
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    pa.len().cmp(&pb.len())
}

impl Ver {
    fn cmp(&self, o: &Ver) -> Ordering {
        (self.major, self.minor, self.patch)
            .cmp(&(o.major, o.minor, o.patch))
            .then_with(|| cmp_pre(&self.pre, &o.pre))
    }
}

/// A version with possibly missing or wildcard parts.
struct Partial {
    parts: Vec<Option<u64>>,
    pre: String,
}

fn parse_partial(s: &str) -> Option<Partial> {
    let s = s.trim().trim_start_matches('v');
    let s = s.split_once('+').map_or(s, |(a, _)| a);
    let (main, pre) = s.split_once('-').unwrap_or((s, ""));
    let mut parts = Vec::new();
    for p in main.split('.') {
        match p {
            "x" | "X" | "*" => parts.push(None),
            n => parts.push(Some(n.parse().ok()?)),
        }
    }
    if parts.is_empty() || parts.len() > 3 {
        return None;
    }
    Some(Partial {
        parts,
        pre: pre.to_string(),
    })
}

fn parse_ver(s: &str) -> Option<Ver> {
    let p = parse_partial(s)?;
    let g = |i: usize| p.parts.get(i).copied().flatten().unwrap_or(0);
    if p.parts.iter().any(|x| x.is_none()) {
        return None;
    }
    Some(Ver {
        major: g(0),
        minor: g(1),
        patch: g(2),
        pre: p.pre,
    })
}

fn term_matches(op: &str, p: &Partial, v: &Ver) -> bool {
    if !v.pre.is_empty() && p.pre.is_empty() {
        return false;
    }
    let known = p.parts.iter().take_while(|x| x.is_some()).count();
    let g = |i: usize| p.parts.get(i).copied().flatten().unwrap_or(0);
    let lo = Ver {
        major: g(0),
        minor: if known > 1 { g(1) } else { 0 },
        patch: if known > 2 { g(2) } else { 0 },
        pre: p.pre.clone(),
    };
    let next = |level: usize| -> Ver {
        match level {
            0 => Ver {
                major: 0,
                minor: 0,
                patch: 0,
                pre: String::new(),
            },
            1 => Ver {
                major: lo.major + 1,
                minor: 0,
                patch: 0,
                pre: String::new(),
            },
            2 => Ver {
                major: lo.major,
                minor: lo.minor + 1,
                patch: 0,
                pre: String::new(),
            },
            _ => Ver {
                major: lo.major,
                minor: lo.minor,
                patch: lo.patch + 1,
                pre: String::new(),
            },
        }
    };
    let wild = known < 3;
    let ge = |a: &Ver| v.cmp(a) != Ordering::Less;
    let lt = |a: &Ver| v.cmp(a) == Ordering::Less;
    match op {
        "" | "=" => {
            if known == 0 {
                true
            } else if wild {
                ge(&lo) && lt(&next(known))
            } else {
                v.cmp(&lo) == Ordering::Equal
            }
        }
        "!=" => !term_matches("=", p, v),
        ">" => {
            if known == 0 {
                false
            } else if wild {
                ge(&next(known))
            } else {
                v.cmp(&lo) == Ordering::Greater
            }
        }
        ">=" | "=>" => ge(&lo),
        "<" => lt(&lo),
        "<=" | "=<" => {
            if known == 0 {
                true
            } else if wild {
                lt(&next(known))
            } else {
                v.cmp(&lo) != Ordering::Greater
            }
        }
        "~" | "~>" => ge(&lo) && lt(&next(if known <= 1 { 1 } else { 2 })),
        "^" => {
            let upper = if lo.major > 0 || known <= 1 {
                next(1)
            } else if lo.minor > 0 || known == 2 {
                next(2)
            } else {
                next(3)
            };
            ge(&lo) && lt(&upper)
        }
        _ => false,
    }
}

/// `IsCompatibleRange`: whether `version` satisfies the constraint
/// (Masterminds semver syntax: `||`, `,`, ranges, `~`, `^`, wildcards).
pub(crate) fn compatible(constraint: &str, version: &str) -> bool {
    let Some(v) = parse_ver(version) else {
        return false;
    };
    if constraint.trim().is_empty() {
        return false;
    }
    constraint.split("||").any(|group| {
        let group = group.trim();
        if let Some((a, b)) = group.split_once(" - ") {
            return match (parse_partial(a), parse_partial(b)) {
                (Some(pa), Some(pb)) => term_matches(">=", &pa, &v) && term_matches("<=", &pb, &v),
                _ => false,
            };
        }
        let mut terms = Vec::new();
        let mut pending_op = String::new();
        for tok in group.split(|c: char| c == ',' || c.is_whitespace()) {
            if tok.is_empty() {
                continue;
            }
            let op_len = tok
                .find(|c: char| c.is_ascii_alphanumeric() || c == '*')
                .unwrap_or(tok.len());
            let (op, ver) = tok.split_at(op_len);
            if ver.is_empty() {
                pending_op = op.to_string();
                continue;
            }
            let op = if op.is_empty() {
                std::mem::take(&mut pending_op)
            } else {
                op.to_string()
            };
            terms.push((op, ver.to_string()));
        }
        !terms.is_empty()
            && terms.iter().all(|(op, ver)| match parse_partial(ver) {
                Some(p) => term_matches(op, &p, &v),
                None => false,
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_ranges() {
        assert!(compatible("1.2.3", "1.2.3"));
        assert!(!compatible("1.2.3", "1.2.4"));
        assert!(compatible("~1.2.0", "1.2.9"));
        assert!(!compatible("~1.2.0", "1.3.0"));
        assert!(compatible("^1.2.0", "1.9.0"));
        assert!(!compatible("^1.2.0", "2.0.0"));
        assert!(compatible(">=1.0.0, <2.0.0", "1.5.0"));
        assert!(compatible("1.x", "1.7.2"));
        assert!(compatible("*", "3.0.0"));
        assert!(!compatible("*", "3.0.0-rc.1"));
        assert!(compatible(">= 1.0.0-0", "1.0.0-rc.1"));
        assert!(compatible("1.0.0 - 2.0.0", "1.5.0"));
        assert!(compatible("<1.0.0 || >=3.0.0", "3.1.0"));
        assert!(!compatible("", "1.0.0"));
    }
}
