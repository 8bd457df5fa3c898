//! Sprig's functions (Masterminds/sprig v3, `TxtFuncMap`) as Helm exposes
//! them: every function but `env` and `expandenv`, which Helm removes.
//!
//! Grouped as Sprig's documentation groups them: [`strings`] (strings,
//! conversions, encodings, hashes, regular expressions), [`lists`] (lists
//! and dictionaries), [`math`] (integer and float arithmetic), [`other`]
//! (type tests, flow control, paths, URLs, semantic versions, random
//! values, dates). Where Sprig is random (`rand*`, `shuffle`, `uuidv4`,
//! `randInt`, `randBytes`) this implementation draws from a generator
//! seeded with a fixed value, so one template set renders the same text
//! every time; `keys` and `values` follow sorted key order where Go's is
//! random.

pub mod crypto;
pub mod dates;
mod ed25519;
pub mod gotext;
pub mod lists;
pub mod math;
pub mod other;
pub mod strings;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::template::value::sprint_value;
use crate::template::{Templates, Value};

/// Sprig's `strval`: strings as they are, other values as `%v` prints them.
pub fn strval(v: &Value) -> String {
    match v {
        Value::Str(s) => s.clone(),
        // A `[]byte` is the string of its bytes.
        Value::Object(o) if let Some(b) = o.0.byte_slice() => {
            String::from_utf8_lossy(b).into_owned()
        }
        other => sprint_value(other),
    }
}

/// Sprig's `empty` (Go's zero values and empty collections).
pub fn empty(v: &Value) -> bool {
    !v.is_true()
}

/// A string parameter, as Go's template engine converts an argument for a
/// function whose parameter is a `string`.
pub fn want_str<'a>(v: &'a Value, _func: &str) -> Result<&'a str, String> {
    match v {
        Value::Str(s) => Ok(s),
        Value::Nil => Err("invalid value; expected string".into()),
        other => Err(format!(
            "wrong type for value; expected string; got {}",
            other.type_name()
        )),
    }
}

/// The bytes of a `string` parameter: a Go string may hold any bytes (a
/// binary file from `.Files.Get`).
pub fn want_bytes<'a>(v: &'a Value, func: &str) -> Result<&'a [u8], String> {
    if let Value::Object(o) = v
        && let Some(b) = o.0.bytes()
    {
        return Ok(b);
    }
    want_str(v, func).map(str::as_bytes)
}

/// An `int` parameter (Go converts only integer values to it).
pub fn want_int(v: &Value, _func: &str) -> Result<i64, String> {
    match v {
        Value::Int(i) => Ok(*i),
        Value::Nil => Err("invalid value; expected int".into()),
        other => Err(format!(
            "wrong type for value; expected int; got {}",
            other.type_name()
        )),
    }
}

/// A `map[string]interface{}` parameter.
pub fn want_map<'a>(v: &'a Value, _func: &str) -> Result<&'a crate::template::Map, String> {
    match v {
        Value::Map(m) => Ok(m),
        Value::Nil => Err("invalid value; expected map[string]interface {}".into()),
        other => Err(format!(
            "wrong type for value; expected map[string]interface {{}}; got {}",
            other.type_name()
        )),
    }
}

/// A `map[string]interface {}` parameter of a dictionary function, where
/// no value is Go's nil map: empty (Go reads and deletes in a nil map;
/// only `set` fails on one).
pub fn dict_arg(v: &Value, func: &str) -> Result<crate::template::Map, String> {
    match v {
        Value::Nil => Ok(crate::template::Map::new(Default::default())),
        v => want_map(v, func).cloned(),
    }
}

/// A `bool` parameter.
pub fn want_bool(v: &Value) -> Result<bool, String> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::Nil => Err("invalid value; expected bool".into()),
        other => Err(format!(
            "wrong type for value; expected bool; got {}",
            other.type_name()
        )),
    }
}

/// `spf13/cast.ToInt64`: numbers truncated, booleans 0/1, strings parsed
/// (with a base prefix; a trailing `.0` ignored), anything else 0.
pub fn to_i64(v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i,
        Value::Float(f) => *f as i64,
        Value::Bool(b) => i64::from(*b),
        Value::Str(s) => parse_go_int(trim_zero_decimal(s)).unwrap_or(0),
        // An `int64` (a function that keeps objects passes it as it is).
        Value::Object(o) => o.0.as_int().unwrap_or(0),
        _ => 0,
    }
}

/// `spf13/cast.ToFloat64`.
pub fn to_f64(v: &Value) -> f64 {
    match v {
        Value::Int(i) => *i as f64,
        Value::Float(f) => *f,
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::Str(s) => s
            .parse::<f64>()
            .ok()
            .filter(|_| !s.contains('_'))
            .unwrap_or(0.0),
        _ => 0.0,
    }
}

fn trim_zero_decimal(s: &str) -> &str {
    if let Some((int, frac)) = s.split_once('.')
        && !int.is_empty()
        && !frac.is_empty()
        && frac.chars().all(|c| c == '0')
    {
        return int;
    }
    s
}

/// Go's `strconv.ParseInt(s, 0, 64)`: sign, `0x`/`0o`/`0b`/`0` prefixes,
/// `_` separators after a prefix.
pub fn parse_go_int(s: &str) -> Option<i64> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let lower = body.to_ascii_lowercase();
    let (radix, digits) = if let Some(r) = lower.strip_prefix("0x") {
        (16, r.to_string())
    } else if let Some(r) = lower.strip_prefix("0o") {
        (8, r.to_string())
    } else if let Some(r) = lower.strip_prefix("0b") {
        (2, r.to_string())
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, lower[1..].to_string())
    } else {
        (10, lower.clone())
    };
    // Underscores only between digits (or after a base prefix).
    let prefixed = radix != 10 && lower.len() > 1;
    let bytes = digits.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'_' {
            let before_ok = if i == 0 {
                prefixed
            } else {
                bytes[i - 1] != b'_'
            };
            if !before_ok || i + 1 == bytes.len() || bytes[i + 1] == b'_' {
                return None;
            }
        }
    }
    let digits = digits.replace('_', "");
    if digits.is_empty() || digits.starts_with(['+', '-']) {
        return None;
    }
    let mag = i128::from_str_radix(&digits, radix).ok()?;
    let v = if neg { -mag } else { mag };
    i64::try_from(v).ok()
}

/// The generator behind Sprig's random functions: SplitMix64 from a fixed
/// seed, the state of one template set (and its clones, such as the set
/// `tpl` parses into: [`Templates::random_state`]). It is `Send + Sync`, so
/// template sets can be shared between threads; renders that must not
/// depend on each other's order need a set (or a seed) each.
#[derive(Clone)]
pub struct Rng(Arc<AtomicU64>);

/// The seed every template set starts from.
pub const SEED: u64 = 0x5eed_f1a7_e000_0001;

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(Arc::new(AtomicU64::new(seed)))
    }

    /// The generator of the template set a function runs in.
    /// (A call drawing from it is not kept: [`crate::template::memo`].)
    pub fn of(ex: &crate::template::Exec) -> Rng {
        crate::template::memo::impure();
        Rng(ex.templates.random_state().clone())
    }

    pub fn next_u64(&self) -> u64 {
        const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;
        let s = self
            .0
            .fetch_add(GAMMA, Ordering::Relaxed)
            .wrapping_add(GAMMA);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// What makes Sprig's output vary between runs: the random generator's
/// seed and the clock `now` reads.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub seed: u64,
    pub clock: dates::Clock,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            seed: SEED,
            clock: dates::Clock::System,
        }
    }
}

/// Adds every Sprig function Helm keeps to a template set (seeded
/// generator, system clock).
pub fn add_funcs(t: &mut Templates) {
    add_funcs_with(t, &Options::default());
}

/// [`add_funcs`] with a chosen seed and clock.
pub fn add_funcs_with(t: &mut Templates, opts: &Options) {
    t.reseed(opts.seed);
    strings::add(t);
    lists::add(t);
    math::add(t);
    other::add(t);
    dates::add(t, opts.clock);
    crypto::add(t, opts.clock);
}
