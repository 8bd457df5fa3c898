//! Command-line types (clap) and the verbs.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

pub mod build;
pub mod check;
pub mod common;
pub mod diff;
pub mod get;
pub mod kustomize;
pub mod pins;
pub mod schemas;
pub mod talos;
pub mod test;

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
    /// Render every object Flux would apply to an environment.
    ///
    /// `flate build ENV` renders kubernetes/clusters/ENV; `flate build hr ENV
    /// [NAME]` prints HelmReleases with their effective values and chart.
    Build(build::BuildArgs),
    /// List Kustomizations, HelmReleases or sources of an environment.
    Get(get::GetArgs),
    /// One PASS/FAIL/SKIPPED line per Kustomization and HelmRelease.
    Test(test::TestArgs),
    /// What a change does to the rendered clusters: a diff of every object
    /// against a base revision or another checkout.
    Diff(diff::DiffArgs),
    /// Validate every environment: JSON Schemas and lints (pre-commit, CI).
    ///
    /// Exit code 1 when there is an error finding, 2 when flate could not
    /// run.
    Check(check::CheckArgs),
    /// Chart and image pins (tag, digest) per environment; with --base,
    /// fail on a tag that moved without its digest (Renovate, CI).
    Pins(pins::PinsArgs),
    /// JSON Schemas: import CustomResourceDefinitions.
    Schemas {
        #[command(subcommand)]
        command: schemas::SchemasCommand,
    },
    /// Talos machine configs, host firewall, IPLB and bootstrap-settings
    /// from kubernetes/clusters/ENV/talos.yaml.
    Talos {
        #[command(subcommand)]
        command: talos::TalosCommand,
    },
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
        Command::Build(a) => build::run(a),
        Command::Get(a) => get::run(a),
        Command::Test(a) => test::run(a),
        Command::Check(a) => check::run(a),
        Command::Pins(a) => pins::run(a),
        Command::Schemas { command } => schemas::run(command),
        Command::Diff(a) => diff::run(a),
        Command::Kustomize {
            command:
                KustomizeCommand::Build {
                    dir,
                    load_restrictor,
                },
        } => kustomize::build(dir, load_restrictor),
        Command::Talos { command } => talos::run(command),
    }
}
