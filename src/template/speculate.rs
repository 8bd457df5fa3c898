//! Speculative execution: running templates of one render at the same time
//! on several threads, as if they ran one after the other.
//!
//! Templates of a chart run in a fixed order, and one can see what an
//! earlier one did: a change to a shared map (`set .Values.x`, a `merge`
//! into `$`). A template run speculatively ([`run`]) is given a run
//! number; every map it makes carries that number. The moment it would do
//! something whose effect depends on the order (change a map it did not
//! make; what else does, such as another chart's data in Helm's render,
//! calls [`order_matters`]), the run is abandoned instead: the change is
//! not made (it lands in a scratch map of the thread's, thrown away), and
//! the caller runs that template again, in order, with everything after
//! it. What a run that was not abandoned
//! produced is what the template produces in order, provided no template
//! before it was abandoned either: it read only data no earlier template
//! changed.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, Ordering};

use parking_lot::{RwLock, RwLockWriteGuard};

use super::Value;

thread_local! {
    /// The run this thread executes; 0: none (templates run in order).
    static RUN: Cell<u32> = const { Cell::new(0) };
    /// Whether the current run was abandoned.
    static ABANDONED: Cell<bool> = const { Cell::new(false) };
    /// Where the changes an abandoned run would make go.
    static SCRATCH: &'static RwLock<BTreeMap<String, Value>> =
        Box::leak(Box::new(RwLock::new(BTreeMap::new())));
}

/// Run numbers, never 0, never given twice (within 2^32 runs).
static NEXT_RUN: AtomicU32 = AtomicU32::new(1);

/// Runs `f` speculatively on this thread; the `bool` is whether the run
/// was abandoned (what `f` returned is then meaningless).
pub fn run<T>(f: impl FnOnce() -> T) -> (T, bool) {
    let mut id = NEXT_RUN.fetch_add(1, Ordering::Relaxed);
    if id == 0 {
        id = NEXT_RUN.fetch_add(1, Ordering::Relaxed);
    }
    let outer = (RUN.get(), ABANDONED.get());
    RUN.set(id);
    ABANDONED.set(false);
    let r = f();
    let abandoned = ABANDONED.get();
    RUN.set(outer.0);
    ABANDONED.set(outer.1);
    SCRATCH.with(|s| s.write().clear());
    (r, abandoned)
}

/// The speculative run on this thread, 0 when there is none.
pub(crate) fn current() -> u32 {
    RUN.get()
}

/// Called before anything whose effect depends on the order templates run
/// in: abandons a speculative run (nothing happens outside one).
pub fn order_matters() {
    if RUN.get() != 0 {
        ABANDONED.set(true);
    }
}

/// Whether the speculative run on this thread was abandoned (its
/// execution can stop).
pub(crate) fn abandoned() -> bool {
    ABANDONED.get()
}

/// The scratch map an abandoned run's changes go to.
pub(crate) fn scratch() -> RwLockWriteGuard<'static, BTreeMap<String, Value>> {
    SCRATCH.with(|s| {
        s.try_write()
            .expect("a template map was changed while it was being changed")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::template::Map;

    #[test]
    fn a_run_may_change_its_own_maps_only() {
        let shared = Map::new(BTreeMap::from([("a".into(), Value::Int(1))]));
        let (own, abandoned) = run(|| {
            let own = Map::new(BTreeMap::new());
            own.insert("b", Value::Int(2));
            own
        });
        assert!(!abandoned);
        assert_eq!(own.get("b"), Some(Value::Int(2)));
        // The map made in the run is an ordinary map afterwards.
        own.insert("c", Value::Int(3));
        assert_eq!(own.len(), 2);

        let ((), abandoned) = run(|| {
            shared.insert("a", Value::Int(9));
            shared.remove("a");
        });
        assert!(abandoned);
        assert_eq!(shared.get("a"), Some(Value::Int(1)), "unchanged");

        // A map made by one run is shared for the next.
        let ((), abandoned) = run(|| {
            own.insert("d", Value::Int(4));
        });
        assert!(abandoned);
        assert_eq!(own.get("d"), None);

        // Outside a run every map changes as usual.
        shared.insert("a", Value::Int(5));
        assert_eq!(shared.get("a"), Some(Value::Int(5)));
        order_matters();
        assert!(!super::abandoned());
    }

    #[test]
    fn runs_nest() {
        let (inner, outer_abandoned) = run(|| {
            let ((), inner) = run(order_matters);
            (inner, abandoned())
        });
        assert_eq!(inner, (true, false));
        assert!(!outer_abandoned);
    }
}
