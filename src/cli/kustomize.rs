//! `flate kustomize build DIR`

use std::io::Write;
use std::path::PathBuf;

use super::Restrictor;
use flate::kustomize::{BuildOptions, LoadRestrictor};

pub fn build(
    dir: Option<PathBuf>,
    restrictor: Restrictor,
    enable_helm: bool,
    remotes: &[String],
) -> i32 {
    let dir = dir.unwrap_or_else(|| PathBuf::from("."));
    let remotes = match remotes
        .iter()
        .map(|s| super::common::parse_remote(s))
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(pairs) => flate::kustomize::build::Remotes::new(pairs),
        Err(e) => return super::diag::Diag::error(e).fail(),
    };
    let opts = BuildOptions {
        load_restrictor: match restrictor {
            Restrictor::RootOnly => LoadRestrictor::RootOnly,
            Restrictor::None => LoadRestrictor::None,
        },
        boundary: None,
        enable_helm,
        remotes,
    };
    match flate::kustomize::build_dir(&dir, &opts) {
        Ok(out) => {
            let mut stdout = std::io::stdout().lock();
            if stdout
                .write_all(out.as_bytes())
                .and_then(|_| stdout.flush())
                .is_err()
            {
                return 2;
            }
            0
        }
        Err(e) => super::diag::from_error(&e, None).fail(),
    }
}
