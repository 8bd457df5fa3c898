//! The Talos generator: one spec per environment
//! (`kubernetes/clusters/<env>/talos.yaml`) in, every Talos document of
//! that environment out.
//!
//! ```text
//! talos.yaml ─► spec (parse, unknown fields rejected) ─► validate (Env) ─┬─► machine  (per-node patch files)
//!                                                                         ├─► firewall (NetworkRuleConfig per service)
//!                                                                         ├─► iplb     (Terraform input, YAML + JSON)
//!                                                                         └─► settings (bootstrap-settings ConfigMap)
//! rendered Flux tree (render) + generated docs (model) ─► check
//! ```
//!
//! Output is deterministic and byte-stable: no timestamps, no map
//! iteration order, documents in a fixed order, keys sorted by the YAML
//! writer.

pub mod check;
pub mod cidr;
pub mod firewall;
pub mod iplb;
pub mod machine;
pub mod model;
pub mod render;
pub mod schema;
pub mod settings;
pub mod spec;
pub mod validate;
pub mod write;

use std::fmt;
use std::path::{Path, PathBuf};

pub use validate::Env;

/// A spec problem, naming the field (a path such as `workers[1].privateIp`)
/// and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecError {
    pub field: String,
    pub message: String,
}

impl SpecError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> SpecError {
        SpecError {
            field: field.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.field, self.message)
        }
    }
}

#[derive(Debug)]
pub enum Error {
    Io {
        path: PathBuf,
        message: String,
    },
    Yaml {
        file: PathBuf,
        error: crate::yaml::ParseError,
    },
    /// The spec does not validate; every problem is listed.
    Spec {
        file: PathBuf,
        errors: Vec<SpecError>,
    },
    UnknownNode {
        name: String,
        known: Vec<String>,
    },
    /// A generated document does not read back into its typed model (a bug
    /// in flate, never the user's input).
    Model {
        file: String,
        message: String,
    },
    /// The Flux tree could not be rendered for the cross-checks.
    Render {
        kustomization: String,
        message: String,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { path, message } => write!(f, "{}: {message}", path.display()),
            Error::Yaml { file, error } => write!(
                f,
                "{}:{}: malformed YAML: {}",
                file.display(),
                error.line,
                error.message
            ),
            Error::Spec { file, errors } => {
                write!(f, "{}: invalid Talos spec", file.display())?;
                for e in errors {
                    write!(f, "\n  {e}")?;
                }
                Ok(())
            }
            Error::UnknownNode { name, known } => write!(
                f,
                "no node named {name:?} in the spec (nodes: {})",
                known.join(", ")
            ),
            Error::Model { file, message } => write!(
                f,
                "internal error: generated {file} does not read back as Talos config: {message}"
            ),
            Error::Render {
                kustomization,
                message,
            } => write!(f, "rendering Kustomization {kustomization}: {message}"),
        }
    }
}

impl std::error::Error for Error {}

/// One generated file (a name inside the output directory, and its text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedFile {
    pub name: String,
    pub contents: String,
}

pub const BOOTSTRAP_SETTINGS_FILE: &str = "bootstrap-settings.yaml";
pub const IPLB_YAML_FILE: &str = "iplb.yaml";
pub const IPLB_JSON_FILE: &str = "iplb.json";

/// Where an environment's spec lives: `<repo>/kubernetes/clusters/<env>/talos.yaml`.
pub fn spec_path(repo_root: &Path, env: &str) -> PathBuf {
    repo_root
        .join("kubernetes/clusters")
        .join(env)
        .join("talos.yaml")
}

/// Parses and validates a spec text (`file` names it in errors).
pub fn load_str(text: &str, file: &Path) -> Result<Env, Error> {
    let spec = spec::parse(text, file)?;
    validate::validate(&spec).map_err(|errors| Error::Spec {
        file: file.to_path_buf(),
        errors,
    })
}

/// Reads, parses and validates the spec at `path`.
pub fn load(path: &Path) -> Result<Env, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    load_str(&text, path)
}

fn node_file_name(name: &str) -> String {
    format!("{name}.yaml")
}

/// Every file of an environment: one patch per node (control planes, then
/// workers, in spec order), then `bootstrap-settings.yaml`, `iplb.yaml`
/// and `iplb.json`.
pub fn generate(env: &Env) -> Vec<GeneratedFile> {
    let mut files: Vec<GeneratedFile> = env
        .machines
        .iter()
        .map(|m| GeneratedFile {
            name: node_file_name(&m.name),
            contents: machine::patch_file(env, m),
        })
        .collect();
    files.push(GeneratedFile {
        name: BOOTSTRAP_SETTINGS_FILE.into(),
        contents: settings::yaml(env),
    });
    files.push(GeneratedFile {
        name: IPLB_YAML_FILE.into(),
        contents: iplb::yaml(env),
    });
    files.push(GeneratedFile {
        name: IPLB_JSON_FILE.into(),
        contents: iplb::json(env),
    });
    files
}

/// The patch file of one node.
pub fn generate_node(env: &Env, name: &str) -> Result<GeneratedFile, Error> {
    let m = env
        .machines
        .iter()
        .find(|m| m.name == name)
        .ok_or_else(|| Error::UnknownNode {
            name: name.to_string(),
            known: env.machines.iter().map(|m| m.name.clone()).collect(),
        })?;
    Ok(GeneratedFile {
        name: node_file_name(&m.name),
        contents: machine::patch_file(env, m),
    })
}

/// Reads every generated node patch back through the typed Talos models.
pub fn verify(env: &Env, files: &[GeneratedFile]) -> Result<(), Error> {
    for f in files {
        let is_node = env
            .machines
            .iter()
            .any(|m| node_file_name(&m.name) == f.name);
        if is_node {
            model::parse_patch(&f.contents).map_err(|message| Error::Model {
                file: f.name.clone(),
                message,
            })?;
        }
    }
    Ok(())
}

/// The `bootstrap-settings` ConfigMap of environment `env_name` when the
/// repository has a Talos spec for it: the hook a Flux renderer calls to
/// substitute `${BOOTSTRAP_*}` offline without a settings file.
pub fn bootstrap_settings_for(
    repo_root: &Path,
    env_name: &str,
) -> Result<Option<crate::yaml::Node>, Error> {
    bootstrap_settings_in(&crate::fs::RealFs, repo_root, env_name)
}

/// [`bootstrap_settings_for`] reading through `fs` (a git revision's tree
/// for the base side of `flate diff`).
pub fn bootstrap_settings_in(
    fs: &dyn crate::fs::FileSystem,
    repo_root: &Path,
    env_name: &str,
) -> Result<Option<crate::yaml::Node>, Error> {
    let path = spec_path(repo_root, env_name);
    use crate::fs::FileSystem;
    let fs = crate::fs::Confined::new(fs, repo_root);
    if !fs.is_file(&path) {
        return Ok(None);
    }
    let text = fs.read_to_string(&path).map_err(|e| Error::Io {
        path: path.clone(),
        message: e.to_string(),
    })?;
    let env = load_str(&text, &path)?;
    Ok(Some(settings::configmap(&env)))
}

/// [`bootstrap_settings_in`] as a resource whose origin is the spec: what
/// the commands add to a render's pre-existing objects.
pub fn bootstrap_settings_resource(
    fs: &dyn crate::fs::FileSystem,
    repo_root: &Path,
    env_name: &str,
) -> Result<Option<crate::resource::Resource>, Error> {
    Ok(bootstrap_settings_in(fs, repo_root, env_name)?.map(|node| {
        crate::resource::Resource::new(
            node,
            crate::resource::Origin {
                file: Some(std::sync::Arc::new(spec_path(repo_root, env_name))),
                line: 0,
            },
        )
    }))
}
