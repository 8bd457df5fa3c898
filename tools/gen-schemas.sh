#!/usr/bin/env bash
# Regenerates schemas/ (the JSON Schemas flate check embeds):
#   schemas/kubernetes/v1.35.json            Kubernetes 1.35 built-in kinds (k8s-openapi 0.29.0)
#   schemas/<flux group>/<kind>_<version>.json  Flux kinds, from src/check/flux_types.rs
#   schemas/kustomize.config.k8s.io/*.json   kustomization files, from src/check/kustomize_types.rs
# The generator (tools/schemagen) is its own crate with a committed
# Cargo.lock, so the output is reproducible; it builds into
# target/schemagen. Needs the crates in Cargo.lock (fetched once).
#
# Usage: tools/gen-schemas.sh [OUT_DIR]   (default: schemas)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-schemas}
cargo run --quiet --release --locked \
  --manifest-path tools/schemagen/Cargo.toml \
  --target-dir target/schemagen -- "$out"
