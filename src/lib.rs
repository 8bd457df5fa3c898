//! flate: an offline compiler and validator for Flux GitOps repositories.
//!
//! The embeddable API: [`kustomize::build_dir`] builds one kustomization
//! directory exactly as `kustomize build` (v5.5.0) prints it;
//! [`flux::render`] renders a whole cluster the way Flux would.

pub mod check;
pub mod diff;
pub mod flux;
pub mod fs;
pub mod git;
pub mod goregex;
pub mod gounicode;
pub mod helm;
pub mod kustomize;
pub mod outdir;
pub mod output;
pub mod resource;
pub mod secret;
pub mod talos;
pub mod template;
pub mod yaml;
