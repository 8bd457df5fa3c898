//! Command-line types (clap) and the verbs.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

pub mod kustomize;

#[derive(Parser, Debug)]
#[command(
    name = "flate",
    version,
    about = "Offline compiler and validator for Flux GitOps repositories"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// kustomize-compatible commands
    Kustomize {
        #[command(subcommand)]
        command: KustomizeCommand,
    },
}

#[derive(Subcommand, Debug)]
pub enum KustomizeCommand {
    /// Print the YAML stream `kustomize build DIR` prints, byte for byte.
    Build {
        /// The kustomization directory (default: the current directory).
        dir: Option<PathBuf>,
        /// Which files may be read: rootonly (kustomize's default) or none.
        #[arg(long = "load-restrictor", value_enum, default_value = "rootonly")]
        load_restrictor: Restrictor,
    },
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum Restrictor {
    #[value(name = "rootonly", alias = "LoadRestrictionsRootOnly")]
    RootOnly,
    #[value(name = "none", alias = "LoadRestrictionsNone")]
    None,
}

/// Exit codes: 0 ok, 1 findings, 2 could not run.
pub fn run(cli: Cli) -> i32 {
    match cli.command {
        Command::Kustomize {
            command:
                KustomizeCommand::Build {
                    dir,
                    load_restrictor,
                },
        } => kustomize::build(dir, load_restrictor),
    }
}
