//! Remembered `include` texts: within one execution of a top-level
//! template, an `include` of a name with an argument it was given before
//! gives the text it made then, without running the template again, when
//! nothing that text could depend on has changed since.
//!
//! Library charts compute the same things again and again: bjw-s's
//! `common` library (app-template, most HelmReleases of home-ops
//! repositories) runs `enabledServices` once for every lookup of a
//! service, each time with `dict "rootContext" $`; 120 of app-template's
//! 260 `include` calls repeat an earlier one.
//!
//! What a template's text depends on is its argument, what it can reach
//! from there (maps are shared: see [`super::Map`]), and the set of
//! templates it runs in. So:
//!
//! - **The key** is the template set, the name, and the argument compared
//!   one level deep: a map argument (usually a `dict` made for the call)
//!   by its entries; within it (or within a list), maps and objects by
//!   identity (the same map, not an equal one), other values by content
//!   (kinds of values, float bits). A kept entry holds its argument, so
//!   the maps it names stay alive and no other map takes their address.
//! - **Changes.** Every map gets a serial number when it is made, from a
//!   counter shared by all threads. A call remembers the counter at its
//!   start: the maps it could read from outside are older than that. A
//!   change to a map older than a call's start, while the call runs,
//!   makes the call's text not kept (it may have changed what it read, or
//!   what its caller sees); a change to a map older than a kept text's
//!   start, after it was made, forgets it. (Maps a call made itself are
//!   unreachable once it returns a text, unless it stored them in an older
//!   map, which is such a change.) This is conservative: a change to any
//!   older map counts, reachable from the argument or not.
//! - **What else a template can observe** is the random generator (its
//!   state advances: a call that draws from it is never kept, see
//!   [`impure`]) and the clock, fixed for the process
//!   (`sprig::dates`). Objects (`.Files`, `.Capabilities`, `.Release`) do
//!   not change.
//! - Only the top-level set's templates are kept: the sets `tpl` parses
//!   into are made and dropped within the execution, and one may take
//!   another's address.
//! - A call that fails keeps nothing.
//!
//! Texts are kept per thread, for one top-level execution ([`scope`]),
//! at most [`MAX_BYTES`] of them.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::Value;

/// Serial numbers of maps; 0 is never given.
static SERIAL: AtomicU64 = AtomicU64::new(1);

/// Texts kept per execution, in bytes: past it, no more are kept.
const MAX_BYTES: usize = 4 << 20;

/// The serial number of a new map.
pub(crate) fn next_serial() -> u64 {
    SERIAL.fetch_add(1, Ordering::Relaxed)
}

struct Frame {
    /// The serial counter at the call's start.
    start: u64,
    keep: bool,
}

struct Kept {
    hash: u64,
    name: String,
    arg: Value,
    start: u64,
    text: String,
}

struct Memo {
    /// The top-level set's address.
    set: usize,
    /// Calls running now, outermost first (their starts never decrease).
    frames: Vec<Frame>,
    kept: Vec<Kept>,
    /// The latest start among `kept`.
    latest: u64,
    bytes: usize,
}

thread_local! {
    static MEMO: RefCell<Option<Memo>> = const { RefCell::new(None) };
}

/// Runs `f`, a top-level execution of the set at address `set`, with
/// texts kept for it alone (what was kept before on this thread is put
/// back after).
pub(crate) fn scope<T>(set: usize, f: impl FnOnce() -> T) -> T {
    let fresh = Memo {
        set,
        frames: Vec::new(),
        kept: Vec::new(),
        latest: 0,
        bytes: 0,
    };
    let outer = MEMO.with(|m| m.replace(Some(fresh)));
    struct Restore(Option<Option<Memo>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let outer = self.0.take().flatten();
            // (A thread being torn down has no memo to put back.)
            let _ = MEMO.try_with(|m| *m.borrow_mut() = outer);
        }
    }
    let _restore = Restore(Some(outer));
    f()
}

/// A map with serial number `serial` is about to change.
pub(crate) fn changed(serial: u64) {
    let _ = MEMO.try_with(|m| {
        let mut m = m.borrow_mut();
        let Some(m) = m.as_mut() else { return };
        for f in m.frames.iter_mut().rev() {
            if f.start <= serial {
                break;
            }
            f.keep = false;
        }
        if serial < m.latest {
            m.kept.retain(|k| k.start <= serial);
            m.latest = m.kept.iter().map(|k| k.start).max().unwrap_or(0);
            m.bytes = m.kept.iter().map(|k| k.text.len()).sum();
        }
    });
}

/// The running calls did something whose effect a kept text would not
/// repeat (drew from the random generator): none of them is kept.
pub(crate) fn impure() {
    let _ = MEMO.try_with(|m| {
        if let Some(m) = m.borrow_mut().as_mut() {
            for f in &mut m.frames {
                f.keep = false;
            }
        }
    });
}

/// Template `name` of the set at address `set`, run on `arg` by `run`,
/// or the text kept from an earlier call on the same argument.
pub(crate) fn include<E>(
    set: usize,
    name: &str,
    arg: &Value,
    run: impl FnOnce() -> Result<String, E>,
) -> Result<String, E> {
    let key = MEMO.with(|m| {
        let mut m = m.borrow_mut();
        let m = m.as_mut().filter(|m| m.set == set)?;
        let hash = hash_arg(name, arg)?;
        if let Some(k) = m
            .kept
            .iter()
            .find(|k| k.hash == hash && k.name == name && same_arg(&k.arg, arg))
        {
            return Some(Err(k.text.clone()));
        }
        m.frames.push(Frame {
            start: SERIAL.load(Ordering::Relaxed),
            keep: true,
        });
        Some(Ok(hash))
    });
    let hash = match key {
        None => return run(),
        Some(Err(text)) => return Ok(text),
        Some(Ok(hash)) => hash,
    };
    let r = run();
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        let Some(m) = m.as_mut() else { return };
        let Some(frame) = m.frames.pop() else { return };
        let Ok(text) = &r else { return };
        if !frame.keep || m.bytes + text.len() > MAX_BYTES {
            return;
        }
        m.bytes += text.len();
        m.latest = m.latest.max(frame.start);
        m.kept.push(Kept {
            hash,
            name: name.to_string(),
            arg: arg.clone(),
            start: frame.start,
            text: text.clone(),
        });
    });
    r
}

/// A hash of `name` and `arg` as [`same_arg`] compares them; `None` for
/// an argument not compared so (a map nested in a map is compared by
/// identity, but a map read while it is changed cannot be hashed).
fn hash_arg(name: &str, arg: &Value) -> Option<u64> {
    use std::hash::{BuildHasher, Hash, Hasher};
    let mut h = foldhash::fast::FixedState::with_seed(0x3e30).build_hasher();
    name.hash(&mut h);
    match arg {
        Value::Map(m) => {
            m.type_name().hash(&mut h);
            let entries = m.try_read()?;
            entries.len().hash(&mut h);
            for (k, v) in entries.iter() {
                k.hash(&mut h);
                hash_inner(v, &mut h);
            }
        }
        v => hash_inner(v, &mut h),
    }
    Some(h.finish())
}

fn hash_inner(v: &Value, h: &mut impl std::hash::Hasher) {
    use std::hash::Hash;
    match v {
        Value::Nil => 0u8.hash(h),
        Value::Bool(b) => (1u8, b).hash(h),
        Value::Int(i) => (2u8, i).hash(h),
        Value::Float(f) => (3u8, f.to_bits()).hash(h),
        Value::Str(s) => (4u8, s).hash(h),
        Value::List(l) => {
            (5u8, l.len()).hash(h);
            for x in l {
                hash_inner(x, h);
            }
        }
        Value::Map(m) => (6u8, m.id()).hash(h),
        Value::Object(o) => (7u8, Arc::as_ptr(&o.0) as *const () as usize).hash(h),
    }
}

/// Whether two arguments are the same as [`include`] compares them.
fn same_arg(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Map(x), Value::Map(y)) => {
            if !x.same_type(y) {
                return false;
            }
            if x.ptr_eq(y) {
                return true;
            }
            let (Some(x), Some(y)) = (x.try_read(), y.try_read()) else {
                return false;
            };
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|((k1, v1), (k2, v2))| k1 == k2 && same_inner(v1, v2))
        }
        (a, b) => same_inner(a, b),
    }
}

fn same_inner(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Nil, Value::Nil) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_inner(p, q))
        }
        (Value::Map(x), Value::Map(y)) => x.ptr_eq(y) && x.same_type(y),
        (Value::Object(x), Value::Object(y)) => x == y,
        _ => false,
    }
}
