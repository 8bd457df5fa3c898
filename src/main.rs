use clap::Parser;

mod cli;

fn main() {
    let cli = cli::Cli::parse();
    std::process::exit(cli::run(cli));
}
