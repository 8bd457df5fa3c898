//! The Flux layer. So far: Flux's post-build variable substitution grammar
//! (fluxcd/pkg/envsubst), ported with its tests.

pub mod envsubst;
