//! A kustomize engine whose output is byte-identical to kustomize v5.5.0.
//!
//! The pipeline follows kustomize's `KustTarget`: resources, then generators,
//! then components (each runs its own pipeline on the accumulated objects),
//! then the builtin transformers in kustomize's fixed order (patchesStrategicMerge,
//! patches, namespace, prefix, suffix, labels, annotations, patchesJson6902,
//! replicas, images, replacements). At the top level only: hash suffixes,
//! name-reference fixing, dropping local-config objects, sorting.

pub mod build;
pub mod crds;
pub mod fieldspec;
pub mod fieldspecs;
pub mod generators;
pub mod gosort;
pub mod helm;
pub mod kustfile;
pub mod nameref;
pub mod openapi;
pub mod openapi_custom;
pub mod origin;
pub mod patch;
pub mod replacements;
pub mod smp;
pub mod sort;
pub mod tconfig;
pub mod transformers;
pub mod vars;

use std::fmt;
use std::path::{Path, PathBuf};

pub use build::{BuildOptions, Kustomizer, LoadRestrictor, UnmatchedPatch};

/// A build error, naming the file (and line when known) it is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub file: Option<PathBuf>,
    pub line: Option<usize>,
    pub message: String,
}

impl Error {
    pub fn at(file: &Path, message: impl Into<String>) -> Error {
        Error {
            file: Some(file.to_path_buf()),
            line: None,
            message: message.into(),
        }
    }
    pub fn msg(message: impl Into<String>) -> Error {
        Error {
            file: None,
            line: None,
            message: message.into(),
        }
    }
    pub fn yaml(file: &Path, e: &crate::yaml::ParseError) -> Error {
        Error {
            file: Some(file.to_path_buf()),
            line: Some(e.line),
            message: format!("malformed YAML: {}", e.message),
        }
    }
    /// [`Error::yaml`] for the text `text`, which lets the message name
    /// what it is about (the alias of an unknown anchor), and points at
    /// its last line an error the parser met at the end of the text
    /// (past its final line break).
    pub fn yaml_in(file: &Path, text: &str, e: &crate::yaml::ParseError) -> Error {
        let last = text.lines().count().max(1);
        Error {
            line: Some(e.line.min(last)),
            message: format!(
                "malformed YAML: {}",
                crate::yaml::goerr::with_anchor_named(text, e)
            ),
            ..Error::yaml(file, e)
        }
    }
    /// Adds context in front of the message.
    pub fn context(mut self, ctx: impl fmt::Display) -> Error {
        self.message = format!("{ctx}: {}", self.message);
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.file, self.line) {
            (Some(p), Some(l)) => write!(f, "{}:{}: {}", p.display(), l, self.message),
            (Some(p), None) => write!(f, "{}: {}", p.display(), self.message),
            _ => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Error {}

/// Builds `dir` on the real file system and returns kustomize's YAML output.
pub fn build_dir(dir: &Path, opts: &BuildOptions) -> Result<String, Error> {
    let fs = crate::fs::RealFs;
    let k = Kustomizer::new(&fs, opts.clone());
    let m = k.build(&crate::fs::absolute(dir))?;
    Ok(build::to_yaml(&m))
}
