#!/usr/bin/env bash
# `flate check` on the example tree (kubernetes/), both environments: the
# pre-commit path, whose target is under 100 ms.
#
# Usage: bench/check.sh [ROUNDS]   (default 20)
#   MISSING_APPS=N  time a synthetic repository of N apps instead
#                   (bench/gen_synthetic.py --missing-refs: every
#                   HelmRelease depends on a HelmRelease and takes values
#                   from a ConfigMap that nothing defines, so every check
#                   that looks for them runs); no target applies
#
# Builds the release binary, then runs `flate check` (every environment,
# text output to /dev/null) ROUNDS times and prints the median, minimum
# and maximum wall-clock time (process start included) and the median CPU
# time (user + sys, all threads), then one run's phase breakdown
# (FLATE_TIMINGS=1: the walk for .sourceignore files, render + that walk,
# schema validation, lints; schemas and lints run side by side). Also times `flate check --skip-schemas`
# and `flate pins`. Exits 0; the verdict line compares the median with the
# target.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-20}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS must be a positive integer" >&2; exit 2; }
# FLATE_BIN=PATH times that binary instead of building one.
source bench/flate_bin.sh
target_ms=100

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
TIMEFORMAT='%3R %3U %3S'

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
repo=()
if [[ -n ${MISSING_APPS:-} ]]; then
  [[ $MISSING_APPS =~ ^[1-9][0-9]*$ ]] || { echo "MISSING_APPS must be a positive integer" >&2; exit 2; }
  python3 bench/gen_synthetic.py "$tmp/syn" --apps "$MISSING_APPS" --missing-refs
  repo=(--repo "$tmp/syn")
  # Every HelmRelease is reported: the run fails, as it should.
  "$flate" check "${repo[@]}" >/dev/null 2>&1 && { echo "flate check found nothing missing" >&2; exit 1; }
else
  "$flate" check >/dev/null 2>&1 || { echo "flate check fails on the example tree" >&2; exit 1; }
fi

bench() { # $1 = label, rest = flate arguments
  local label=$1; shift
  : >"$tmp/times"
  "$flate" "$@" "${repo[@]}" >/dev/null 2>&1 || true   # warm the page cache
  for _ in $(seq "$rounds"); do
    { time "$flate" "$@" "${repo[@]}" >/dev/null 2>&1 || true; } 2>>"$tmp/times"
  done
  awk '{ printf "%.3f %.3f\n", $1 * 1000, ($2 + $3) * 1000 }' "$tmp/times" >"$tmp/both"
  awk '{ print $1 }' "$tmp/both" | sort -n >"$tmp/ms"
  local cpu
  cpu=$(awk '{ print $2 }' "$tmp/both" | sort -n | median)
  printf '%-34s median %6.1f ms  min %6.1f  max %6.1f  CPU %6.1f ms\n' "$label" \
    "$(median <"$tmp/ms")" "$(head -n1 "$tmp/ms")" "$(tail -n1 "$tmp/ms")" "$cpu"
}

median() { # stdin: sorted numbers
  awk '{ v[NR] = $1 } END { m = int((NR + 1) / 2); printf "%.1f\n", (NR % 2) ? v[m] : (v[m] + v[m + 1]) / 2 }'
}

echo "rounds: $rounds"
bench "flate check (both environments)" check
med=$(median <"$tmp/ms")
bench "flate check --skip-schemas" check --skip-schemas
bench "flate check production" check production
bench "flate pins" pins
echo
echo "phases of one run (FLATE_TIMINGS=1):"
FLATE_TIMINGS=1 "$flate" check "${repo[@]}" 2>&1 >/dev/null | grep -E '^timing: (working|render|schemas|lints)' | sed 's/^timing: /  /'
echo
if [[ ${#repo[@]} -gt 0 ]]; then
  echo "verdict: none (the ${target_ms} ms target is for the example tree)"
elif awk -v m="$med" -v t="$target_ms" 'BEGIN { exit !(m < t) }'; then
  echo "verdict: median ${med} ms < ${target_ms} ms target"
else
  echo "verdict: median ${med} ms is over the ${target_ms} ms target"
fi
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
