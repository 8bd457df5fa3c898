//! `flate schemas import CRD.yaml... [--out-dir DIR]`: JSON Schemas from
//! CustomResourceDefinitions, one file per served version, in the
//! CRDs-catalog layout (`DIR/{group}/{kind}_{version}.json`) that
//! `flate check` reads from `.flate/schemas` and `--schema-dir`.

use std::path::PathBuf;

use clap::Subcommand;

use flate::check::crd;
use flate::fs::absolute;

use super::common::repo_root;
use super::diag::{self, Diag};

#[derive(Subcommand, Debug)]
pub enum SchemasCommand {
    /// Write a schema for every served version of every
    /// CustomResourceDefinition in the files (YAML streams; other objects
    /// are skipped; `-` reads stdin).
    Import {
        #[arg(required = true, value_name = "CRD.yaml")]
        files: Vec<PathBuf>,
        /// Where to write (default: .flate/schemas in the repository,
        /// which `flate check` reads on its own).
        #[arg(long = "out-dir", value_name = "DIR")]
        out_dir: Option<PathBuf>,
        /// Repository root (default: the git top level of the working
        /// directory, else the working directory).
        #[arg(long)]
        repo: Option<PathBuf>,
    },
}

pub fn run(cmd: SchemasCommand) -> i32 {
    match cmd {
        SchemasCommand::Import {
            files,
            out_dir,
            repo,
        } => import(&files, out_dir, repo),
    }
}

fn import(files: &[PathBuf], out_dir: Option<PathBuf>, repo: Option<PathBuf>) -> i32 {
    let out = out_dir
        .map(|d| absolute(&d))
        .unwrap_or_else(|| repo_root(&repo).join(".flate/schemas"));
    let mut written = 0;
    for f in files {
        let text = if f.as_os_str() == "-" {
            let mut s = String::new();
            if let Err(e) = std::io::Read::read_to_string(&mut std::io::stdin(), &mut s) {
                return diag::error(format!("stdin: {e}"));
            }
            s
        } else {
            match std::fs::read_to_string(f) {
                Ok(t) => t,
                Err(e) => {
                    return Diag::error(format!("cannot read {}: {e}", f.display())).fail();
                }
            }
        };
        let docs = match flate::yaml::parse_stream(&text) {
            Ok(d) => d,
            Err(e) => {
                return Diag::error(format!("not valid YAML: {}", e.message))
                    .at(f.clone(), e.line)
                    .fail();
            }
        };
        let mut found = 0;
        for d in docs {
            if d.node.get_str(&["kind"]) != Some("CustomResourceDefinition") {
                continue;
            }
            found += 1;
            let schemas = match crd::from_crd(&d.node) {
                Ok(s) => s,
                Err(e) => {
                    return Diag::error(e.to_string()).at(f.clone(), d.line).fail();
                }
            };
            for s in schemas {
                let path = out.join(s.file_name());
                let text = serde_json::to_string_pretty(&s.schema).unwrap_or_default() + "\n";
                let res = path
                    .parent()
                    .map(std::fs::create_dir_all)
                    .unwrap_or(Ok(()))
                    .and_then(|_| std::fs::write(&path, text));
                if let Err(e) = res {
                    return diag::error(format!("writing {}: {e}", path.display()));
                }
                println!("{} ({} {})", path.display(), s.kind, s.api_version());
                written += 1;
            }
        }
        if found == 0 {
            return Diag::error("no CustomResourceDefinition in the file")
                .at(f.clone(), 0)
                .fail();
        }
    }
    if !diag::quiet() {
        eprintln!("wrote {}", diag::plural(written, "schema file"));
    }
    0
}
