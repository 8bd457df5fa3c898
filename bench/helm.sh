#!/usr/bin/env bash
# Renders charts with `flate helm template` and with `helm template` in the
# same run, one process per render (process start included for both), and
# reports the median time per chart and the ratio.
#
# Charts: the realistic app chart of fixtures/helm/036-app-with-library
# (with its values), and every chart directory (a directory holding
# Chart.yaml) directly under $HELM_BENCH_CHARTS (default
# /work/ext/helm_realworld/charts, where tools/helm_realworld/run.py gather
# puts the public charts;
# skipped when absent), rendered with its default values.
#
# Usage: bench/helm.sh [ROUNDS]   (default 10)
# Helm: $FLATE_HELM, else `helm` on PATH, else /work/helm/helm.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-10}
cargo build --release --quiet
flate=$PWD/target/release/flate
helm=${FLATE_HELM:-$(command -v helm || echo /work/helm/helm)}
[ -x "$helm" ] || { echo "helm is not on PATH and FLATE_HELM is not set: nothing to compare with"; exit 2; }
export HOME=${TMPDIR:-/tmp}/flate-bench-helm-home
mkdir -p "$HOME"

# name|directory to run in|chart|release|extra arguments
cases=("app-with-library|fixtures/helm/036-app-with-library|chart|web|--namespace media -f values.yaml")
charts=${HELM_BENCH_CHARTS:-/work/ext/helm_realworld/charts}
if [ -d "$charts" ]; then
  for d in "$charts"/*/; do
    [ -f "$d/Chart.yaml" ] || continue
    cases+=("$(basename "$d")|$d|.|bench|--namespace bench")
  done
fi

now() { date +%s%N; }
median() { sort -n | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

printf "%-32s %10s %10s %8s\n" chart "flate ms" "helm ms" ratio
sum_f=0; sum_h=0; n=0
for c in "${cases[@]}"; do
  IFS='|' read -r name dir chart release extra <<<"$c"
  # shellcheck disable=SC2086
  if ! (cd "$dir" && "$helm" template "$release" "$chart" $extra >/dev/null 2>&1); then
    printf "%-32s %s\n" "$name" "skipped: helm fails on it"; continue
  fi
  # shellcheck disable=SC2086
  if ! (cd "$dir" && "$flate" helm template "$chart" --name "$release" $extra >/dev/null 2>&1); then
    printf "%-32s %s\n" "$name" "skipped: flate fails on it"; continue
  fi
  tf=(); th=()
  for _ in $(seq "$rounds"); do
    # shellcheck disable=SC2086
    s=$(now); (cd "$dir" && "$flate" helm template "$chart" --name "$release" $extra >/dev/null); e=$(now); tf+=($((e - s)))
    # shellcheck disable=SC2086
    s=$(now); (cd "$dir" && "$helm" template "$release" "$chart" $extra >/dev/null); e=$(now); th+=($((e - s)))
  done
  mf=$(printf '%s\n' "${tf[@]}" | median); mh=$(printf '%s\n' "${th[@]}" | median)
  awk -v n="$name" -v f="$mf" -v h="$mh" 'BEGIN { printf "%-32s %10.2f %10.2f %7.1fx\n", n, f / 1e6, h / 1e6, h / f }'
  sum_f=$(awk -v a="$sum_f" -v b="$mf" 'BEGIN { print a + b }'); sum_h=$(awk -v a="$sum_h" -v b="$mh" 'BEGIN { print a + b }'); n=$((n + 1))
done
awk -v f="$sum_f" -v h="$sum_h" -v n="$n" -v r="$rounds" 'BEGIN {
  if (n == 0) { print "no chart rendered by both"; exit }
  printf "charts: %d, rounds: %d, medians (process start included for both)\n", n, r
  printf "total of medians: flate %.2f ms, helm %.2f ms, ratio %.1fx\n", f / 1e6, h / 1e6, h / f
}'
