use clap::Parser;

// The renderer allocates many small nodes on every thread; mimalloc is
// markedly faster than the system allocator at that (bench/flux.sh).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod cli;

fn main() {
    let cli = cli::Cli::parse();
    std::process::exit(cli::run(cli));
}
