use clap::Parser;

// The renderer allocates many small nodes on every thread; mimalloc is
// markedly faster than the system allocator at that (bench/flux.sh).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod cli;

/// Runs before `main` (and before the first allocation): transparent huge
/// pages off for this process. mimalloc asks for them (`MADV_HUGEPAGE` on
/// its arena), and the kernel then zero-fills a whole 2 MiB page on the
/// first touch of each: about a third of the start of a short command
/// such as `flate --version` or `flate helm template`.
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static NO_HUGE_PAGES: extern "C" fn() = no_huge_pages;

#[cfg(target_os = "linux")]
extern "C" fn no_huge_pages() {
    // SAFETY: prctl with PR_SET_THP_DISABLE takes integer arguments only
    // and changes no memory; a failure (old kernel) changes nothing.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

fn main() {
    let cli = cli::Cli::parse();
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
