#!/usr/bin/env bash
# Builds flate as distributed and prints the executable's path.
#
# - The `dist` profile (Cargo.toml): the release profile with link-time
#   optimization over the whole program.
# - On x86-64 Linux with glibc: linked statically at a fixed address
#   (`+crt-static`, relocation model `static`). Such an executable starts
#   without the dynamic loader, the three shared libraries and their
#   relocations: about 0.35 ms less per start here (docs/benchmarks.md),
#   which a pre-commit hook or a benchmark starting flate many times sees.
#   The flags need an explicit `--target`: without one, Cargo would also
#   apply them to the build's procedural macros, which cannot be static.
# - Elsewhere: `cargo build --profile dist`.
#
# Usage: tools/release-build.sh   (quiet; the path on standard output)
set -euo pipefail
cd "$(dirname "$0")/.."
# (ldd's text is read whole first: `ldd --version | grep -q` under pipefail
# fails at random when grep exits before ldd has written its last line.)
libc=$(ldd --version 2>&1 || true)
if [[ $(uname -s) == Linux && $(uname -m) == x86_64 ]] && grep -qi 'glibc\|gnu libc' <<<"$libc"; then
  target=x86_64-unknown-linux-gnu
  RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+crt-static -C relocation-model=static" \
    cargo build --locked --quiet --profile dist --target "$target"
  echo "$PWD/target/$target/dist/flate"
else
  cargo build --locked --quiet --profile dist
  echo "$PWD/target/dist/flate"
fi
