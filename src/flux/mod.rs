//! The Flux layer: render a whole cluster the way kustomize-controller and
//! helm-controller would, offline.

pub mod artifactgen;
pub mod charts;
pub mod envsubst;
pub mod generator;
pub mod helm;
pub mod helmrender;
pub mod model;
pub mod reflector;
pub mod render;
pub mod resourceset;
pub mod sops;
pub mod source;
pub mod substwebhook;
pub mod varsub;

pub use render::{KsReport, RenderOptions, Rendered, Status, render};
