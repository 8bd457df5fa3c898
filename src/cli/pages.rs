//! Transparent huge pages, per process, as the work needs them.
//!
//! The allocator (mimalloc) asks for transparent huge pages on its memory,
//! so the first touch of each 2 MiB region makes the kernel zero all of
//! it. That pays off when a run allocates tens of megabytes (a large chart,
//! a whole cluster: fewer page faults), and costs a small run about as much
//! as its work: `flate helm template` of a small chart touches two such
//! pages for well under a megabyte of data. So `main` turns huge pages off
//! first, and every command but `helm template` turns them back on at
//! once; `helm template` does while reading the chart, once it turns out
//! large ([`LargeChart`]). Measured in docs/benchmarks.md.
//!
//! Only the process's own setting changes (`PR_SET_THP_DISABLE`): where
//! the system has them off, they stay off. Elsewhere than Linux, nothing
//! happens.

/// Template bytes (the chart's and its subcharts') from which a chart's
/// render is faster with huge pages on this project's benchmark machine:
/// charts of 88 KiB and more of templates were faster with them, charts of
/// 49 KiB and less without them.
pub const LARGE_CHART_TEMPLATE_BYTES: usize = 64 * 1024;

/// Bytes of files of any kind from which a chart counts as large all the
/// same: reading them touches that much memory (a chart of CRDs).
pub const LARGE_CHART_BYTES: usize = 512 * 1024;

/// Watches the files of a chart as they are read and turns huge pages on
/// once [`LARGE_CHART_TEMPLATE_BYTES`] of templates or [`LARGE_CHART_BYTES`]
/// of files have been read (before the rest is read: loading a large chart
/// is faster with them too). An archive counts as templates with its
/// compressed size (a chart archive, or a subchart's, unpacked later).
#[derive(Default)]
pub struct LargeChart {
    template_bytes: usize,
    bytes: usize,
    on: bool,
}

impl LargeChart {
    pub fn seen(&mut self, name: &str, len: usize) {
        if self.on {
            return;
        }
        let template = name.starts_with("templates/") || name.contains("/templates/");
        if template || name.ends_with(".tgz") {
            self.template_bytes += len;
        }
        self.bytes += len;
        if self.template_bytes >= LARGE_CHART_TEMPLATE_BYTES || self.bytes >= LARGE_CHART_BYTES {
            self.on = true;
            huge_pages(true);
        }
    }
}

/// Allows (`true`) or forbids transparent huge pages for the memory this
/// process touches from now on.
pub fn huge_pages(on: bool) {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `prctl(PR_SET_THP_DISABLE, flag, 0, 0, 0)` only sets a
        // flag of this process; no memory is passed to the kernel. A
        // failure (an old kernel) leaves the default, which is harmless.
        unsafe {
            libc::prctl(libc::PR_SET_THP_DISABLE, libc::c_ulong::from(!on), 0, 0, 0);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = on;
}
