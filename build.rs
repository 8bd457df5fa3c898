//! Links the flate executable as a fixed-address (non-PIE) binary on Linux:
//! a position-independent executable spends part of every start applying
//! tens of thousands of relocations to the embedded tables (schemas, the
//! kustomize OpenAPI data), which is noticeable when a pre-commit hook or
//! a benchmark starts flate hundreds of times.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
