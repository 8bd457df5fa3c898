//! Command-line types (clap) and the verbs.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

pub mod build;
pub mod check;
pub mod common;
pub mod config;
pub mod diag;
pub mod diff;
pub mod get;
pub mod helm;
pub mod kustomize;
pub mod pages;
pub mod pins;
pub mod schemas;
pub mod select;
pub mod strvals;
pub mod table;
pub mod talos;
pub mod test;

#[derive(Parser, Debug)]
#[command(
    name = "flate",
    version,
    about = "Offline compiler and validator for Flux GitOps repositories"
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// The options every command takes.
#[derive(clap::Args, Debug)]
pub struct GlobalArgs {
    /// Errors only on standard error (no warnings or notes).
    #[arg(short = 'q', long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Also say which environment, entry directory and configuration
    /// were used.
    #[arg(short = 'v', long, global = true)]
    pub verbose: bool,
}

/// The command line with only the commands that are run once per chart
/// or directory, often and on small inputs (`flate helm ...`, `flate
/// kustomize ...`): what [`parse`] reads them with. Building clap's
/// description of every command is a tenth of the instructions of a
/// small chart's `flate helm template` and, in a cold process, touches
/// many pages of the executable (0.3-0.5 ms). These commands ([`Quick`],
/// flattened into [`Command`]) and the global options are the same
/// definitions as in [`Cli`], so help, errors and results are the same
/// (the tests below compare them).
#[derive(Parser, Debug)]
#[command(
    name = "flate",
    version,
    about = "Offline compiler and validator for Flux GitOps repositories"
)]
struct QuickCli {
    #[command(flatten)]
    global: GlobalArgs,
    #[command(subcommand)]
    command: Quick,
}

/// The commands [`QuickCli`] parses alone; part of [`Command`] too.
// Made once per process: the size of its largest variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand, Debug)]
pub enum Quick {
    /// Helm-compatible commands: render a chart as `helm template` does.
    Helm {
        #[command(subcommand)]
        command: helm::HelmCommand,
    },
    /// kustomize-compatible commands
    Kustomize {
        #[command(subcommand)]
        command: KustomizeCommand,
    },
}

impl From<QuickCli> for Cli {
    fn from(q: QuickCli) -> Cli {
        Cli {
            global: q.global,
            command: Command::Quick(q.command),
        }
    }
}

/// The command line of this process.
pub fn parse() -> Cli {
    let line: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(cli) = quick_helm_template(&line) {
        return cli;
    }
    if line.get(1).is_some_and(|a| a == "helm" || a == "kustomize") {
        return QuickCli::parse_from(line).into();
    }
    Cli::parse_from(line)
}

/// A `flate helm template` command line in the common forms, read without
/// clap (see `helm::quick_template_args`).
fn quick_helm_template(line: &[std::ffi::OsString]) -> Option<Cli> {
    let (quiet, verbose, args) = helm::quick_template_args(line)?;
    Some(Cli {
        global: GlobalArgs { quiet, verbose },
        command: Command::Quick(Quick::Helm {
            command: helm::HelmCommand::Template(args),
        }),
    })
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Render every object Flux would apply to an environment.
    ///
    /// `flate build ENV` renders the environment (kubernetes/clusters/ENV,
    /// or as .flate.yaml or --path say); `flate build hr ENV [NAME]` prints
    /// HelmReleases with their effective values and chart.
    Build(build::BuildArgs),
    /// List Kustomizations, HelmReleases, sources or the environments.
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
    #[command(flatten)]
    Quick(Quick),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    ///
    /// bash: `source <(flate completions bash)`; zsh: `flate completions
    /// zsh > ~/.zfunc/_flate`; fish: `flate completions fish >
    /// ~/.config/fish/completions/flate.fish`.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff): `flate man | man -l -`.
    Man,
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
        /// Render the charts `helmCharts` lists (from the chart home, never
        /// downloaded), as `kustomize build --enable-helm` does.
        #[arg(long = "enable-helm")]
        enable_helm: bool,
        /// A local copy of a remote resource, component or file the
        /// kustomization names by URL: a file, or a directory for a remote
        /// base (repeatable).
        #[arg(long = "remote", value_name = "URL=PATH")]
        remotes: Vec<String>,
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
    diag::set_verbosity(cli.global.quiet, cli.global.verbose);
    // The clock of every render (see flate::helm::sprig::dates::Clock):
    // a malformed value fails the run, as the convention asks.
    if let Err(e) = flate::helm::sprig::dates::source_date_epoch() {
        return diag::Diag::error(e)
            .help("set it to Unix seconds (e.g. `git log -1 --format=%ct`) or unset it")
            .fail();
    }
    match cli.command {
        Command::Build(a) => build::run(a),
        Command::Get(a) => get::run(a),
        Command::Test(a) => test::run(a),
        Command::Check(a) => check::run(a),
        Command::Pins(a) => pins::run(a),
        Command::Schemas { command } => schemas::run(command),
        Command::Diff(a) => diff::run(a),
        Command::Quick(Quick::Kustomize {
            command:
                KustomizeCommand::Build {
                    dir,
                    load_restrictor,
                    enable_helm,
                    remotes,
                },
        }) => kustomize::build(dir, load_restrictor, enable_helm, &remotes),
        Command::Talos { command } => talos::run(command),
        Command::Quick(Quick::Helm { command }) => helm::run(command),
        Command::Completions { shell } => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut cmd, "flate", &mut out);
            common::print(&String::from_utf8_lossy(&out))
        }
        Command::Man => {
            let cmd = <Cli as clap::CommandFactory>::command();
            let mut out = Vec::new();
            if let Err(e) = clap_mangen::Man::new(cmd).render(&mut out) {
                return diag::error(format!("man page: {e}"));
            }
            common::print(&String::from_utf8_lossy(&out))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What clap makes of a command line: the parsed arguments, or the
    /// error as printed (help and version requests are errors to clap).
    fn outcome<P: Parser + std::fmt::Debug>(args: &[&str]) -> String {
        match P::try_parse_from(args) {
            Ok(p) => format!("{p:?}"),
            Err(e) => format!("exit {}: {}", e.exit_code(), e.render()),
        }
    }

    #[test]
    fn quick_commands_parse_as_the_whole_command_line() {
        let lines: &[&[&str]] = &[
            &["flate", "helm"],
            &["flate", "helm", "--help"],
            &["flate", "helm", "-h"],
            &["flate", "helm", "template", "--help"],
            &["flate", "helm", "template", "-h"],
            &["flate", "helm", "template"],
            &["flate", "helm", "template", "a", "b", "c"],
            &["flate", "helm", "templat", "chart"],
            &["flate", "helm", "template", "chart", "--bogus"],
            &["flate", "helm", "template", "chart", "--name"],
            &["flate", "helm", "--version"],
            &["flate", "helm", "-q", "-v", "template", "chart"],
            &["flate", "helm", "template", "chart", "-q"],
            &[
                "flate", "helm", "template", "rel", "chart", "-n", "ns", "-f", "a.yaml",
            ],
            &[
                "flate",
                "helm",
                "template",
                "chart",
                "--set",
                "a=b",
                "--kube-version",
                "1.30",
            ],
            &["flate", "helm", "help"],
            &["flate", "helm", "help", "template"],
            &["flate", "kustomize"],
            &["flate", "kustomize", "--help"],
            &["flate", "kustomize", "build", "--help"],
            &["flate", "kustomize", "build"],
            &["flate", "kustomize", "build", "dir", "--enable-helm"],
            &[
                "flate",
                "kustomize",
                "build",
                "dir",
                "--load-restrictor",
                "none",
            ],
            &[
                "flate",
                "kustomize",
                "build",
                "dir",
                "--load-restrictor",
                "bogus",
            ],
            &["flate", "kustomize", "build", "a", "b"],
            &["flate", "kustomize", "biuld", "dir"],
            &["flate", "kustomize", "-q", "build"],
            &["flate", "kustomize", "help", "build"],
        ];
        for args in lines {
            let whole = outcome::<Cli>(args);
            // The parsed values are compared after the conversion `parse`
            // makes; errors as printed.
            let quick = match QuickCli::try_parse_from(*args) {
                Ok(q) => format!("{:?}", Cli::from(q)),
                Err(_) => outcome::<QuickCli>(args),
            };
            assert_eq!(quick, whole, "{args:?}");
        }
    }

    /// The hand reader of `flate helm template` lines agrees with clap on
    /// every line it takes, and takes none that clap refuses: lines drawn
    /// at random from the options, their values in both spellings, and
    /// the forms it leaves to clap.
    #[test]
    fn quick_helm_template_reads_lines_as_clap_does() {
        let words = [
            "chart",
            "rel",
            "third",
            "--name",
            "x",
            "--name=y",
            "-n",
            "ns",
            "--namespace",
            "--namespace=other",
            "-f",
            "v.yaml",
            "--values",
            "--values=w.yaml",
            "--set",
            "a=b",
            "--set=c=d",
            "--set-string",
            "--set-json",
            "k=1",
            "--set-file",
            "--set-literal",
            "--show-only",
            "-s",
            "templates/a.yaml",
            "--output-dir",
            "out",
            "--name-template",
            "--kube-version",
            "1.30",
            "--kube-version=",
            "--api-versions",
            "-a",
            "a/v1,b/v1",
            "a,,b",
            "--api-versions=c/v1",
            "--include-crds",
            "--skip-crds",
            "--skip-tests",
            "--skip-schema-validation",
            "--no-hooks",
            "--release-name",
            "--is-upgrade",
            "--include-crds=true",
            "-q",
            "-v",
            "--quiet",
            "--verbose",
            "-qv",
            "-nfoo",
            "-x",
            "--bogus",
            "--",
            "-",
            "--help",
            "-h",
            "--version",
            "-V",
            "",
        ];
        let mut taken = 0;
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..60_000 {
            let mut line = vec!["flate", "helm", "template"];
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            for _ in 0..(seed >> 61) + 1 {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                line.push(words[(seed >> 33) as usize % words.len()]);
            }
            let os: Vec<std::ffi::OsString> = line.iter().map(Into::into).collect();
            let quick = quick_helm_template(&os).map(|c| format!("{c:?}"));
            let clap = QuickCli::try_parse_from(&line).map(|q| format!("{:?}", Cli::from(q)));
            match (quick, clap) {
                (None, _) => {}
                (Some(q), Ok(c)) => {
                    assert_eq!(q, c, "{line:?}");
                    taken += 1;
                }
                (Some(q), Err(e)) => panic!("{line:?}: read as {q}, clap: {e}"),
            }
        }
        // Most lines are refused (a word clap refuses, a value missing);
        // enough are taken to count.
        assert!(taken > 3_000, "{taken} lines taken");
    }
}
