#!/usr/bin/env bash
# Regenerates schemas/ (the JSON Schemas flate check embeds):
#   schemas/kubernetes/kubernetes.json          Kubernetes 1.33-1.36 built-in kinds (k8s-openapi 0.29.0),
#                                               each definition stored once per distinct content
#   schemas/<flux group>/<kind>_<version>.json  Flux kinds, from src/check/flux_types.rs
#   schemas/kustomize.config.k8s.io/*.json      kustomization files, from src/check/kustomize_types.rs
# The generator (tools/schemagen) is its own crate with a committed
# Cargo.lock, so the output is reproducible; it is built once per
# Kubernetes version (k8s-openapi serves one version per build) into
# target/schemagen. Needs the crates in Cargo.lock (fetched once).
#
# Usage: tools/gen-schemas.sh [OUT_DIR]   (default: schemas)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-schemas}
versions=(1.33 1.34 1.35 1.36) # oldest to newest; the newest also writes the Flux schemas
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() {
  local feature=v${1/./_}
  shift
  cargo run --quiet --locked --no-default-features --features "schemars,$feature" \
    --manifest-path tools/schemagen/Cargo.toml \
    --target-dir target/schemagen -- "$@"
}
bundles=()
for v in "${versions[@]}"; do
  run "$v" version "$tmp/v$v.json"
  bundles+=("$tmp/v$v.json")
done
run "${versions[-1]}" finish "$out" "${bundles[@]}"
