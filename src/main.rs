// The renderer allocates many small nodes on every thread; mimalloc is
// markedly faster than the system allocator at that (bench/flux.sh).
#[global_allocator]
static GLOBAL: MiMalloc = MiMalloc;

/// mimalloc as the global allocator, asked for an alignment only where
/// its plain functions do not give it already: every mimalloc block is
/// aligned to a word (its blocks are whole words, in pages aligned far
/// more), and its plain `mi_malloc` is a few instructions quicker than
/// `mi_malloc_aligned`, on every one of the renderer's many small
/// allocations. (Not 16 bytes: a block of three words is aligned to 8.)
struct MiMalloc;

/// The alignment `mi_malloc` gives every block (`MI_INTPTR_SIZE`).
const MI_ALIGN: usize = std::mem::size_of::<usize>();

/// Whether `mi_malloc` is aligned enough for `align`.
fn plain(align: usize) -> bool {
    align <= MI_ALIGN
}

/// A new block for `layout`: from `plain_fn` (`mi_malloc`, `mi_zalloc`)
/// where its alignment is enough, else from `aligned_fn`.
///
/// # Safety
/// The functions are mimalloc's allocation functions.
unsafe fn mi_new(
    layout: std::alloc::Layout,
    plain_fn: unsafe extern "C" fn(usize) -> *mut std::ffi::c_void,
    aligned_fn: unsafe extern "C" fn(usize, usize) -> *mut std::ffi::c_void,
) -> *mut u8 {
    // SAFETY: plain calls into the allocator.
    unsafe {
        if plain(layout.align()) {
            plain_fn(layout.size()).cast()
        } else {
            aligned_fn(layout.size(), layout.align()).cast()
        }
    }
}

// SAFETY: every block comes from mimalloc with at least the alignment the
// layout asks for (`plain`), and goes back to it.
unsafe impl std::alloc::GlobalAlloc for MiMalloc {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: mimalloc's functions.
        unsafe {
            mi_new(
                layout,
                libmimalloc_sys::mi_malloc,
                libmimalloc_sys::mi_malloc_aligned,
            )
        }
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: mimalloc's functions.
        unsafe {
            mi_new(
                layout,
                libmimalloc_sys::mi_zalloc,
                libmimalloc_sys::mi_zalloc_aligned,
            )
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, _layout: std::alloc::Layout) {
        // SAFETY: `ptr` came from this allocator.
        unsafe { libmimalloc_sys::mi_free(ptr.cast()) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        use libmimalloc_sys::{mi_realloc, mi_realloc_aligned};
        // SAFETY: `ptr` came from this allocator, with `layout`.
        unsafe {
            if plain(layout.align()) {
                mi_realloc(ptr.cast(), new_size).cast()
            } else {
                mi_realloc_aligned(ptr.cast(), new_size, layout.align()).cast()
            }
        }
    }
}

mod cli;

/// Huge pages off (cli/pages.rs), from before `main`: the runtime's first
/// allocation, before `main`, would already touch a 2 MiB page.
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static HUGE_PAGES_OFF: extern "C" fn() = {
    extern "C" fn off() {
        cli::pages::huge_pages_off();
    }
    off
};

fn main() {
    let cli = cli::parse();
    let code = cli::run(cli);
    exit(code)
}

/// Exits without the process teardown: standard output and error are
/// flushed, then the process ends at once (the allocator's own exit work,
/// returning its memory to the system page by page, is for nothing here).
fn exit(code: i32) -> ! {
    use std::io::Write;
    let flushed = std::io::stdout().flush().is_ok() && std::io::stderr().flush().is_ok();
    #[cfg(target_os = "linux")]
    if flushed {
        // SAFETY: `_exit` ends the process; every buffer this program
        // writes through has been flushed above.
        unsafe { libc::_exit(code) }
    }
    let _ = flushed;
    std::process::exit(code)
}
