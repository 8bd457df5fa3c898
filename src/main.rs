// The renderer allocates many small nodes on every thread; mimalloc is
// markedly faster than the system allocator at that (bench/flux.sh).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod cli;

/// Huge pages off until the work is known to be large (cli/pages.rs), from
/// before `main`: the runtime's first allocation, before `main`, would
/// already touch a 2 MiB page.
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static HUGE_PAGES_OFF: extern "C" fn() = {
    extern "C" fn off() {
        cli::pages::huge_pages(false);
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
