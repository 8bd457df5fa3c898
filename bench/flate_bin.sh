# Sourced by the benchmarks, from the repository root: sets `flate` to the
# executable they measure. FLATE_BIN=PATH measures that one; otherwise
# flate is built as distributed (tools/release-build.sh: link-time
# optimization, and on x86-64 Linux a static executable).
if [[ -n ${FLATE_BIN:-} ]]; then
  flate=$FLATE_BIN
else
  flate=$(tools/release-build.sh)
fi
echo "flate executable measured: $flate" >&2
