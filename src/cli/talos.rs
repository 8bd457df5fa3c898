//! `flate talos gen|check|schema`

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use flate::fs::absolute;
use flate::talos::{self, GeneratedFile, check::Status, write::Outcome};

use super::common::{print, repo_root};
use super::diag::{self, Diag};

#[derive(Args, Debug, Clone)]
pub struct SpecArgs {
    /// Environment name: the spec is kubernetes/clusters/ENV/talos.yaml.
    pub env: String,
    /// Repository root (default: the git top level of the working
    /// directory, else the working directory).
    #[arg(long)]
    pub repo: Option<PathBuf>,
    /// The spec file, instead of kubernetes/clusters/ENV/talos.yaml.
    #[arg(long)]
    pub spec: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
pub enum TalosCommand {
    /// Generate the Talos config patches (one file per node), the OVH IPLB
    /// description and the bootstrap-settings ConfigMap of an environment.
    Gen {
        #[command(flatten)]
        spec: SpecArgs,
        /// Write the files into DIR (atomically) instead of printing them.
        #[arg(long = "out-dir")]
        out_dir: Option<PathBuf>,
        /// Only the patch file of this node.
        #[arg(long)]
        node: Option<String>,
    },
    /// Validate the spec and cross-check it against the rendered Flux tree.
    Check {
        #[command(flatten)]
        spec: SpecArgs,
        /// Entry directory relative to the repository, instead of
        /// kubernetes/clusters/ENV.
        #[arg(long)]
        path: Option<String>,
    },
    /// Print the JSON Schema of the spec (schemas/talos-spec.schema.json).
    Schema,
}

fn spec_file(a: &SpecArgs, repo: &Path) -> PathBuf {
    match &a.spec {
        Some(p) => absolute(p),
        None => talos::spec_path(repo, &a.env),
    }
}

/// Shows a path relative to the working directory when it is below it.
fn shown(p: &Path) -> String {
    let cwd = absolute(Path::new("."));
    p.strip_prefix(&cwd).unwrap_or(p).display().to_string()
}

fn load(a: &SpecArgs, repo: &Path) -> Result<talos::Env, talos::Error> {
    let path = spec_file(a, repo);
    if a.spec.is_none() && !path.is_file() {
        return Err(talos::Error::Io {
            path: path.clone(),
            message: format!(
                "no Talos spec for environment {:?} (expected {}; use --repo or --spec)",
                a.env,
                shown(&path)
            ),
        });
    }
    if a.spec.is_none() {
        // The default spec is the repository's: a symlink may not lead out.
        flate::fs::Confined::new(&flate::fs::RealFs, repo)
            .guard(&path)
            .map_err(|e| talos::Error::Io {
                path: path.clone(),
                message: e.to_string(),
            })?;
    }
    talos::load(&path)
}

pub fn run(cmd: TalosCommand) -> i32 {
    match cmd {
        TalosCommand::Gen {
            spec,
            out_dir,
            node,
        } => gen_cmd(&spec, out_dir.as_deref(), node.as_deref()),
        TalosCommand::Check { spec, path } => check_cmd(&spec, path.as_deref()),
        TalosCommand::Schema => print(&talos::schema::to_string()),
    }
}

fn gen_cmd(a: &SpecArgs, out_dir: Option<&Path>, node: Option<&str>) -> i32 {
    let repo = repo_root(&a.repo);
    let env = match load(a, &repo) {
        Ok(e) => e,
        Err(e) => {
            return diag::error(e.to_string());
        }
    };
    let files: Vec<GeneratedFile> = match node {
        Some(n) => match talos::generate_node(&env, n) {
            Ok(f) => vec![f],
            Err(e) => {
                return diag::error(e.to_string());
            }
        },
        None => talos::generate(&env),
    };
    if let Err(e) = talos::verify(&env, &files) {
        return diag::error(e.to_string());
    }
    match out_dir {
        Some(dir) => match talos::write::write_files(dir, &files) {
            Ok(outcomes) => {
                let mut text = String::new();
                for o in outcomes {
                    match o {
                        Outcome::Written(p) => text.push_str(&format!("wrote {}\n", shown(&p))),
                        Outcome::Unchanged(p) => {
                            text.push_str(&format!("unchanged {}\n", shown(&p)))
                        }
                    }
                }
                print(&text)
            }
            Err(e) => Diag::error(e.to_string())
                .note(format!("no file in {} was changed", shown(dir)))
                .fail(),
        },
        None if node.is_some() => print(&files[0].contents),
        None => {
            // One YAML stream; each file starts with a `# file:` comment.
            // iplb.json repeats iplb.yaml and is only written with --out-dir.
            let mut out = String::new();
            for f in files.iter().filter(|f| f.name != talos::IPLB_JSON_FILE) {
                if !out.is_empty() {
                    out.push_str("---\n");
                }
                out.push_str(&format!("# file: {}\n", f.name));
                out.push_str(&f.contents);
            }
            print(&out)
        }
    }
}

fn check_cmd(a: &SpecArgs, path: Option<&str>) -> i32 {
    let repo = repo_root(&a.repo);
    let env = match load(a, &repo) {
        Ok(e) => e,
        Err(e @ talos::Error::Spec { .. }) => {
            // An invalid spec is a finding, not a failure to run.
            println!("FAIL spec: {e}");
            println!("0 passed, 1 failed, 0 skipped");
            return 1;
        }
        Err(e) => {
            return diag::error(e.to_string());
        }
    };
    let entry = repo.join(
        path.map(str::to_string)
            .unwrap_or_else(|| format!("kubernetes/clusters/{}", a.env)),
    );
    let objects = match talos::render::render_env(&repo, &entry) {
        Ok(o) => o,
        Err(e) => {
            return diag::error(e.to_string());
        }
    };
    let findings = talos::check::run(&env, &objects);
    let mut text = String::new();
    let (mut pass, mut fail, mut skip) = (0, 0, 0);
    for f in &findings {
        match f.status {
            Status::Pass => pass += 1,
            Status::Fail => fail += 1,
            Status::Skip => skip += 1,
        }
        text.push_str(&format!("{f}\n"));
    }
    text.push_str(&format!("{pass} passed, {fail} failed, {skip} skipped\n"));
    let code = print(&text);
    if code != 0 {
        code
    } else if fail > 0 {
        1
    } else {
        0
    }
}
