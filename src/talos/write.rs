//! Writing generated files into `--out-dir` without ever leaving a
//! half-written set: everything is generated in memory first, then the
//! directory's contents are replaced as a whole (see `crate::outdir`):
//! a reader sees the previous set or the new one, never a mix, and a
//! failure or a kill leaves the previous files untouched. Files whose
//! content is unchanged are reported as such.

use std::path::Path;

use super::{Error, GeneratedFile};

pub use crate::outdir::Outcome;

fn io(path: &Path, e: std::io::Error) -> Error {
    Error::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// Writes `files` into `dir` (created when missing).
pub fn write_files(dir: &Path, files: &[GeneratedFile]) -> Result<Vec<Outcome>, Error> {
    let out: Vec<crate::outdir::OutFile> = files
        .iter()
        .map(|f| crate::outdir::OutFile {
            name: f.name.clone(),
            contents: f.contents.as_bytes().to_vec(),
        })
        .collect();
    crate::outdir::write_dir(dir, &out).map_err(|e| io(dir, e))
}
