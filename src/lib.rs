//! flate: an offline compiler and validator for Flux GitOps repositories.

pub mod yaml;
