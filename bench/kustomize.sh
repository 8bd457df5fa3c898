#!/usr/bin/env bash
# Renders realistic overlays with flate and with `kubectl kustomize` in the
# same run and reports the time per directory and the ratio.
# Usage: bench/kustomize.sh [ROUNDS]   (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
# FLATE_BIN=PATH times that binary instead of building one.
source bench/flate_bin.sh
command -v kubectl >/dev/null || { echo "kubectl is not on PATH: nothing to compare with"; exit 2; }
# Every kustomization directory of the example tree except the Component.
mapfile -t dirs < <(find kubernetes -name kustomization.yaml -printf '%h\n' | grep -v components | sort)
# Nanoseconds since the epoch, read inline (no process started inside the
# measured interval).
nsec() { now_ns=${EPOCHREALTIME/[.,]/}000; }
run_all() { # $1 = command prefix
  for d in "${dirs[@]}"; do $1 "$d" >/dev/null; done
}
t_flate=0; t_kubectl=0
for _ in $(seq "$rounds"); do
  nsec; s=$now_ns; run_all "$flate kustomize build"; nsec; e=$now_ns; t_flate=$((t_flate + e - s))
  nsec; s=$now_ns; run_all "kubectl kustomize"; nsec; e=$now_ns; t_kubectl=$((t_kubectl + e - s))
done
n=$(( ${#dirs[@]} * rounds ))
awk -v f="$t_flate" -v k="$t_kubectl" -v n="$n" -v d="${#dirs[@]}" -v r="$rounds" 'BEGIN {
  printf "directories: %d, rounds: %d (process start included for both)\n", d, r
  printf "flate:   %8.2f ms per directory\n", f / n / 1e6
  printf "kubectl: %8.2f ms per directory\n", k / n / 1e6
  printf "ratio:   %8.1fx\n", k / f
}'
