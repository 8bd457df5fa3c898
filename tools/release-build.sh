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
#   When musl-gcc is installed (Debian's musl-tools), the executable is
#   linked with musl's C library instead of glibc's: glibc identifies the
#   processor at every start, with `CPUID` instructions a virtual machine
#   traps, about 0.4 ms of a small chart's 1.5 ms here; musl asks nothing.
#   The standard library stays the one for the gnu target (this toolchain
#   has no musl one); tools/musl/glibc-compat.c supplies what it expects
#   of glibc, and a probe program (tools/musl/probe.rs) linked the same
#   way must pass before flate is built so (else: glibc, with a warning).
#   FLATE_LIBC=glibc chooses glibc. tools/musl/README.md has the details.
#   The musl link goes through tools/musl/link.sh, which links with the
#   toolchain's lld and lays out the functions of
#   tools/musl/hot-functions.txt first (fewer page faults on code at each
#   start); FLATE_DIST_SYMBOLS=1 keeps the symbols, in target/musl-symbols
#   (tools/musl/hot-functions.py, which writes that list, runs it so).
# - Elsewhere: `cargo build --profile dist`.
#
# Usage: tools/release-build.sh   (quiet; the path on standard output)
#        tools/release-build.sh --probe   (only links and runs the musl
#        probe, as CI does; fails when musl-gcc is missing or the probe fails)
set -euo pipefail
cd "$(dirname "$0")/.."
# (ldd's text is read whole first: `ldd --version | grep -q` under pipefail
# fails at random when grep exits before ldd has written its last line.)
libc=$(ldd --version 2>&1 || true)
# Prepares the musl link in target/musl-link/HASH (HASH: of the files it
# is made from and of this script, which says how; a change makes a new
# linker path and so a full rebuild) and
# prints its RUSTFLAGS; fails, saying why on standard error, when the probe
# does not pass.
musl_link() {
  local hash dir flags lld_dir
  lld_dir=$(rustc --print sysroot)/lib/rustlib/$target/bin/gcc-ld
  hash=$({
    cat tools/musl/glibc-compat.c tools/musl/probe.rs tools/musl/link.sh tools/musl/normalize.sed tools/release-build.sh
    cat tools/musl/hot-functions.txt 2>/dev/null || true
    echo "$lld_dir"
  } | sha256sum | cut -c1-16)
  dir=$PWD/target/musl-link/$hash
  flags="-C target-feature=+crt-static -C relocation-model=static -C linker=$dir/flate-musl-gcc -C linker-features=-lld"
  if [[ ! -f $dir/probe-passed ]]; then
    rm -rf "$dir" && mkdir -p "$dir"
    musl-gcc -O2 -fno-builtin -fno-tree-loop-distribute-patterns \
      -c tools/musl/glibc-compat.c -o "$dir/glibc-compat.o" >&2 || return 1
    printf '#!/bin/sh\nexec sh %q %q %q "$@"\n' "$PWD/tools/musl/link.sh" "$dir/glibc-compat.o" "$lld_dir" >"$dir/flate-musl-gcc"
    chmod +x "$dir/flate-musl-gcc"
    # shellcheck disable=SC2086
    rustc --edition 2021 -O $flags --target "$target" tools/musl/probe.rs -o "$dir/probe" >&2 || return 1
    [[ $("$dir/probe" one "two words" "") == ok ]] || return 1
    # Static: no program interpreter (lld, unlike GNU ld, would ask for
    # musl's dynamic loader if the C library were taken as a shared one).
    if readelf -lW "$dir/probe" 2>/dev/null | grep -q INTERP; then
      echo "release-build: the musl probe was linked dynamically" >&2
      return 1
    fi
    touch "$dir/probe-passed"
  fi
  echo "$flags"
}

if [[ ${1:-} == --probe ]]; then
  target=x86_64-unknown-linux-gnu
  command -v musl-gcc >/dev/null || { echo "release-build: musl-gcc is not installed (apt-get install musl-tools)" >&2; exit 1; }
  musl_link >/dev/null || { echo "release-build: the musl probe failed" >&2; exit 1; }
  echo "release-build: the musl probe passed"
  exit 0
fi

if [[ $(uname -s) == Linux && $(uname -m) == x86_64 ]] && grep -qi 'glibc\|gnu libc' <<<"$libc"; then
  target=x86_64-unknown-linux-gnu
  if [[ ${FLATE_LIBC:-} != glibc ]] && command -v musl-gcc >/dev/null; then
    if flags=$(musl_link); then
      out=target/musl
      if [[ ${FLATE_DIST_SYMBOLS:-} == 1 ]]; then
        export CARGO_PROFILE_DIST_STRIP=false
        out=target/musl-symbols
      fi
      CC_x86_64_unknown_linux_gnu=musl-gcc RUSTFLAGS="${RUSTFLAGS:-} $flags" \
        cargo build --locked --quiet --profile dist --target "$target" --target-dir "$out"
      echo "$PWD/$out/$target/dist/flate"
      exit 0
    fi
    echo "release-build: linking with musl failed its probe (above); linking with glibc" >&2
  fi
  RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+crt-static -C relocation-model=static" \
    cargo build --locked --quiet --profile dist --target "$target"
  echo "$PWD/target/$target/dist/flate"
else
  cargo build --locked --quiet --profile dist
  echo "$PWD/target/dist/flate"
fi
