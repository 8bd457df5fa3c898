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
//!   start: the maps it could reach from outside are older than that (the
//!   ones it makes itself are unreachable once it returns a text, unless
//!   it stores them in an older map, which is a change of that map). A
//!   running call notes every older map it reads, those its own calls
//!   read, and those of the kept texts it is given; a kept text is
//!   forgotten when a map it read changes. A call that changes an older
//!   map is not kept (a kept text would not make that change again).
//!   Sprig's `set` of a scalar equal to the one there changes nothing
//!   ([`super::Map::set`]).
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

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicU64, Ordering};

use super::Value;

/// Serial numbers of maps; 0 is never given.
static SERIAL: AtomicU64 = AtomicU64::new(1);

/// Texts kept per execution, in bytes: past it, no more are kept.
const MAX_BYTES: usize = 4 << 20;

/// A call's noted reads are first sorted and freed of repeats at this
/// many, then each time they double.
const COMPACT_AT: usize = 4096;

/// The serial number of a new map.
pub(crate) fn next_serial() -> u64 {
    SERIAL.fetch_add(1, Ordering::Relaxed)
}

struct Frame {
    /// The serial counter at the call's start.
    start: u64,
    keep: bool,
    /// Serial numbers of the older maps it read (repeats possible).
    reads: Vec<u64>,
    /// The length of `reads` at which its repeats are taken out.
    compact_at: usize,
}

impl Frame {
    /// Takes the repeats out of `reads` when they have grown enough (a
    /// long loop reading a few maps in turn repeats them).
    fn compact_if_due(&mut self) {
        if self.reads.len() >= self.compact_at {
            self.reads.sort_unstable();
            self.reads.dedup();
            self.compact_at = COMPACT_AT.max(2 * self.reads.len());
        }
    }
}

struct Kept {
    hash: u64,
    name: String,
    arg: Value,
    start: u64,
    text: String,
    /// Serial numbers of the older maps the call read, sorted.
    reads: Vec<u64>,
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
    /// The start of the innermost running call, 0 when none: a map read
    /// is noted only when it is older (read often, checked quickly).
    static WATCH: Cell<u64> = const { Cell::new(0) };
    /// A read or a change could not be noted (never expected): nothing
    /// more is kept in this execution.
    static LOST: Cell<bool> = const { Cell::new(false) };
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
    let watch = WATCH.replace(0);
    let lost = LOST.replace(false);
    struct Restore(Option<Option<Memo>>, u64, bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            let outer = self.0.take().flatten();
            // (A thread being torn down has no memo to put back.)
            let _ = MEMO.try_with(|m| *m.borrow_mut() = outer);
            let _ = WATCH.try_with(|w| w.set(self.1));
            let _ = LOST.try_with(|l| l.set(self.2));
        }
    }
    let _restore = Restore(Some(outer), watch, lost);
    f()
}

/// A map with serial number `serial` is about to change.
pub(crate) fn changed(serial: u64) {
    let _ = MEMO.try_with(|m| {
        let Ok(mut m) = m.try_borrow_mut() else {
            LOST.set(true);
            return;
        };
        let Some(m) = m.as_mut() else { return };
        for f in m.frames.iter_mut().rev() {
            if f.start <= serial {
                break;
            }
            f.keep = false;
        }
        if serial < m.latest {
            m.kept.retain(|k| k.reads.binary_search(&serial).is_err());
            m.latest = m.kept.iter().map(|k| k.start).max().unwrap_or(0);
            m.bytes = m.kept.iter().map(|k| k.text.len()).sum();
        }
    });
}

/// A map with serial number `serial` is read.
#[inline]
pub(crate) fn read(serial: u64) {
    let _ = WATCH.try_with(|w| {
        if serial < w.get() {
            note_read(serial);
        }
    });
}

#[inline(never)]
fn note_read(serial: u64) {
    MEMO.with(|m| {
        let Ok(mut m) = m.try_borrow_mut() else {
            LOST.set(true);
            return;
        };
        if let Some(f) = m.as_mut().and_then(|m| m.frames.last_mut())
            && f.reads.last() != Some(&serial)
        {
            f.reads.push(serial);
            f.compact_if_due();
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
    if LOST.get() {
        return run();
    }
    let key = MEMO.with(|m| {
        let mut m = m.borrow_mut();
        let m = m.as_mut().filter(|m| m.set == set)?;
        let hash = hash_arg(name, arg)?;
        if let Some(k) = m
            .kept
            .iter()
            .find(|k| k.hash == hash && k.name == name && same_arg(&k.arg, arg))
        {
            let text = k.text.clone();
            // The caller's text depends on what this one read.
            if let Some(f) = m.frames.last_mut() {
                let start = f.start;
                f.reads.extend(k.reads.iter().filter(|&&r| r < start));
                f.compact_if_due();
            }
            return Some(Err(text));
        }
        let start = SERIAL.load(Ordering::Relaxed);
        m.frames.push(Frame {
            start,
            keep: true,
            reads: Vec::new(),
            compact_at: COMPACT_AT,
        });
        WATCH.set(start);
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
        let Some(mut frame) = m.frames.pop() else {
            return;
        };
        frame.reads.sort_unstable();
        frame.reads.dedup();
        WATCH.set(m.frames.last().map_or(0, |f| f.start));
        if let Some(parent) = m.frames.last_mut() {
            let start = parent.start;
            parent
                .reads
                .extend(frame.reads.iter().filter(|&&r| r < start));
            parent.compact_if_due();
        }
        let Ok(text) = &r else { return };
        if !frame.keep || LOST.get() || m.bytes + text.len() > MAX_BYTES {
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
            reads: frame.reads,
        });
    });
    r
}

/// A hash of `name` and the shape of `arg` (its kind, and a map's type and
/// size), to find the kept texts [`same_arg`] compares with; `None` for a
/// map being changed. (Hashing whole arguments cost more than it saved.)
fn hash_arg(name: &str, arg: &Value) -> Option<u64> {
    use std::hash::{BuildHasher, Hash, Hasher};
    let mut h = foldhash::fast::FixedState::with_seed(0x3e30).build_hasher();
    name.hash(&mut h);
    match arg {
        Value::Map(m) => (m.type_name(), m.peek()?.len()).hash(&mut h),
        Value::List(l) => (1u8, l.len()).hash(&mut h),
        _ => 2u8.hash(&mut h),
    }
    Some(h.finish())
}

/// Whether two arguments are the same as [`include`] compares them: a
/// map by its entries, compared as [`same_inner`] compares.
fn same_arg(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Map(x), Value::Map(y)) => x.same_entries(y, false, same_inner),
        (a, b) => same_inner(a, b),
    }
}

/// Maps and objects by identity, other values by content.
fn same_inner(a: &Value, b: &Value) -> bool {
    a.same_by(
        b,
        &|x: &super::Map, y: &super::Map| x.ptr_eq(y) && x.same_type(y),
        true,
    )
}
