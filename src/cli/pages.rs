//! Transparent huge pages off for the whole process.
//!
//! With huge pages, the first touch of each 2 MiB region of the
//! allocator's memory makes the kernel find a free 2 MiB block (compacting
//! memory for it when there is none) and zero all of it. flate's runs are
//! short: that cost is never paid back by the fewer page faults. Measured
//! on this project's benchmark machine, with Helm run in between
//! (docs/benchmarks.md, "Huge pages off for every run"): cert-manager
//! 1.20.2 rendered in 9.5 ms with them and 4.7 ms without, the example
//! tree's `flate build production` in 64 and 60 ms, a synthetic cluster of
//! 1,000 apps in 254 and 241 ms. The allocator is built without its own
//! request for them (libmimalloc-sys' `no_thp`), and `main` turns them off
//! for the process ([`huge_pages_off`]) where the system gives them to every
//! large mapping unasked (`always`).
//!
//! Only the process's own setting changes (`PR_SET_THP_DISABLE`).
//! Elsewhere than Linux, nothing happens.

/// Forbids transparent huge pages for the memory this process touches
/// from now on.
pub fn huge_pages_off() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0)` only sets a flag
        // of this process; no memory is passed to the kernel. A failure
        // (an old kernel) leaves the default, which is harmless.
        unsafe {
            libc::prctl(libc::PR_SET_THP_DISABLE, 1 as libc::c_ulong, 0, 0, 0);
        }
    }
}
