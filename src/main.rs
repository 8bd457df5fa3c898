use clap::Parser;

// The renderer allocates many small nodes on every thread; mimalloc is
// markedly faster than the system allocator at that (bench/flux.sh).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod cli;

fn main() {
    #[cfg(target_os = "linux")]
    no_huge_pages();
    let cli = cli::Cli::parse();
    let code = cli::run(cli);
    exit(code)
}

/// Turns transparent huge pages off for this process. mimalloc asks for
/// them on its arenas, and the kernel then clears 2 MiB at the first touch
/// of each: a render that needs a few hundred KiB paid for whole huge
/// pages (a fifth of a large chart's render, a quarter of a small one's).
#[cfg(target_os = "linux")]
fn no_huge_pages() {
    // SAFETY: PR_SET_THP_DISABLE takes integer arguments and changes only
    // how the kernel backs this process's future page faults.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
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
