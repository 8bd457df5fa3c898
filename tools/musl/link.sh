#!/bin/sh
# The linker of the musl build: rustc calls it through the wrapper
# tools/release-build.sh writes (target/musl-link/HASH/flate-musl-gcc).
#
# Usage: link.sh COMPAT_OBJECT LLD_DIR ARGS...
#   COMPAT_OBJECT  glibc-compat.c compiled (linked before the C library)
#   LLD_DIR        the toolchain's gcc-ld directory (its ld.lld runs rust-lld)
#   ARGS           what rustc passes its linker
#
# It links with musl-gcc. When LLD_DIR holds ld.lld and nm and c++filt are
# installed, it links with lld and lays out the functions of
# hot-functions.txt first, in its order (`--symbol-ordering-file`): the
# list holds demangled names without hashes (normalize.sed), mapped here to
# the symbols of the object files and Rust archives being linked. Otherwise it links with
# the default linker, in the order the compiler left.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
compat=$1 lld_dir=$2
shift 2
if [ ! -x "$lld_dir/ld.lld" ] || [ ! -f "$here/hot-functions.txt" ] || ! command -v nm >/dev/null 2>&1 || ! command -v c++filt >/dev/null 2>&1; then
  exec musl-gcc "$compat" "$@" -lc
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/symbols"
for arg in "$@"; do
  case $arg in
  *.o | *.rlib) if [ -f "$arg" ]; then nm --defined-only "$arg" 2>/dev/null | awk 'NF == 3 { print $3 }' >>"$tmp/symbols"; fi ;;
  esac
done
c++filt <"$tmp/symbols" | sed -f "$here/normalize.sed" | paste "$tmp/symbols" - >"$tmp/pairs"
# The ordering: each listed name's symbols, in the list's order; a name no
# object defines is kept when it is a plain C name (the C library's and
# the allocator's functions, in archives this does not read).
awk -F '\t' '
  FNR == NR { if ($0 != "" && $0 !~ /^#/) { n++; rank[$0] = n; name[n] = $0 } next }
  ($2 in rank) { i = rank[$2]; got[i] = got[i] $1 "\n" }
  END {
    for (i = 1; i <= n; i++) {
      if (i in got) printf "%s", got[i]
      else if (name[i] ~ /^[A-Za-z_][A-Za-z0-9_]*$/) print name[i]
    }
  }' "$here/hot-functions.txt" "$tmp/pairs" >"$tmp/order"
status=0
PATH="$lld_dir:$PATH" musl-gcc "$compat" "$@" -Wl,-Bstatic -lc -fuse-ld=lld \
  -Wl,--no-dynamic-linker -Wl,--symbol-ordering-file="$tmp/order" -Wl,--no-warn-symbol-ordering || status=$?
exit $status
