#!/usr/bin/env bash
# Renders charts with `flate helm template` and with `helm template` in the
# same run, one process per render (process start included for both, the
# two alternating), and reports per chart the median wall-clock time of
# each and the ratio, then the median and the lowest ratio over all charts.
#
# Charts:
# - fixture charts of this repository (fixtures/helm/*: the realistic app
#   chart with a library dependency, the basic chart, dependencies, hooks),
#   with the arguments of their `args` file;
# - every chart directory (holding Chart.yaml) directly under
#   $HELM_BENCH_CHARTS (default /work/ext/helm_realworld/charts, where
#   tools/helm_realworld/run.py gather puts the public charts; skipped when
#   absent). A chart is rendered with the values of the first case under
#   $HELM_BENCH_CASES (default /work/ext/helm_realworld/cases: CASE/case.json
#   naming the chart, release and namespace, CASE/values.yaml; with
#   --skip-schema-validation for both when the chart's schema refers to a
#   remote URL) that both tools render, else with its default values.
#
# Usage: bench/helm.sh [ROUNDS]   (default 10)
#   FLATE_BIN=PATH     use this flate binary (default: flate as distributed,
#                      built by tools/release-build.sh)
#   FLATE_HELM=PATH    the helm binary (default: `helm` on PATH, else /work/helm/helm)
#   HELM_BENCH_FILTER=REGEX   only the charts whose name matches
#   FLATE_BIN_B=PATH   also time this second flate executable, in the same
#                      alternation (flate, flate B, helm), and report B's
#                      time against the first's per chart and over all:
#                      how two builds compare, free of the drift between
#                      two runs of this script
# Timing uses bash's $EPOCHREALTIME: no process is started to read the clock.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
rounds=${1:-10}
source bench/flate_bin.sh
helm=${FLATE_HELM:-$(command -v helm || echo /work/helm/helm)}
[ -x "$helm" ] || { echo "helm is not on PATH and FLATE_HELM is not set: nothing to compare with"; exit 2; }
filter=${HELM_BENCH_FILTER:-.}

# Both executables are measured from fresh copies, written now: how long
# a process takes to start depends on its executable file's pages in the
# page cache, and files cached long ago (before the machine was suspended
# and resumed, as virtual machines are) start markedly slower. Measured
# on this project's VM: the same flate file rendered a small chart in
# 4.8 ms from a day-old copy and 3.4 ms from a fresh one; Helm 108 and
# 102 ms. Fresh copies put both tools in the same, reproducible state.
fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT
cp "$flate" "$fresh/flate" && flate=$fresh/flate
cp "$helm" "$fresh/helm" && helm=$fresh/helm
flate_b=
if [ -n "${FLATE_BIN_B:-}" ]; then cp "$FLATE_BIN_B" "$fresh/flate-b" && flate_b=$fresh/flate-b; fi
export HOME=${TMPDIR:-/tmp}/flate-bench-helm-home
mkdir -p "$HOME"

# Microseconds since the epoch, read inline: `$(now)` from a function would
# fork a subshell, and that fork (about 0.4 ms here) would land inside the
# measured interval of every run.
usec() { now_us=${EPOCHREALTIME/[.,]/}; }
median() { sort -n | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# Each case: name|directory|release|chart|arguments common to both (one string, split on spaces)
cases=()
for f in 036-app-with-library core-basic core-basic-values core-deps core-hooks; do
  d=fixtures/helm/$f
  [ -f "$d/args" ] || continue
  release=release-name; common=()
  mapfile -t a <"$d/args"
  i=0
  while [ $i -lt ${#a[@]} ]; do
    if [ "${a[$i]}" = --name ]; then release=${a[$((i + 1))]}; i=$((i + 2)); continue; fi
    common+=("${a[$i]}"); i=$((i + 1))
  done
  cases+=("fixture/$f|$root/$d|$release|chart|${common[*]}")
done
charts=${HELM_BENCH_CHARTS:-/work/ext/helm_realworld/charts}
case_dir=${HELM_BENCH_CASES:-/work/ext/helm_realworld/cases}
if [ -d "$charts" ]; then
  for d in "$charts"/*/; do
    d=${d%/}
    [ -f "$d/Chart.yaml" ] || continue
    cases+=("$(basename "$d")|$d|bench|.|--namespace bench")
  done
fi

field() { sed -n "s/^ *\"$1\": *\"\\([^\"]*\\)\".*/\\1/p" "$2" | head -1; }
renders() { # dir release chart args...: both tools render it
  local dir=$1 release=$2 chart=$3; shift 3
  (cd "$dir" && "$helm" template "$release" "$chart" "$@" >/dev/null 2>&1) &&
    (cd "$dir" && "$flate" helm template "$chart" --name "$release" "$@" >/dev/null 2>&1)
}

startup() { # median of 51 runs of a command, in ms
  local t=()
  for _ in $(seq 51); do usec; s=$now_us; "$@" >/dev/null 2>&1 || true; usec; e=$now_us; t+=($((e - s))); done
  printf '%s\n' "${t[@]}" | median | awk '{ printf "%.2f", $1 / 1000 }'
}
echo "process start alone (median of 51): flate --version $(startup "$flate" --version) ms, helm version $(startup "$helm" version) ms, /bin/true $(startup /bin/true) ms"
echo

printf "%-40s %-20s %10s %10s %8s" chart values "flate ms" "helm ms" ratio
if [ -n "$flate_b" ]; then printf " %10s %8s %8s" "B ms" "B ratio" "B/flate"; fi
echo
ratios=(); ratios_b=(); changes=(); sum_f=0; sum_h=0; sum_b=0; n=0
for c in "${cases[@]}"; do
  IFS='|' read -r name dir release chart extra <<<"$c"
  [[ $name =~ $filter ]] || continue
  read -r -a args <<<"$extra"
  values=defaults
  case $name in fixture/*) values=args ;; esac
  if [ "$values" = defaults ] && [ -d "$case_dir" ]; then
    tried=0
    for cj in $(grep -l "\"chart\": \"$dir\"" "$case_dir"/*/case.json 2>/dev/null | sort); do
      [ $tried -lt 12 ] || break
      tried=$((tried + 1))
      r=$(field release "$cj"); ns=$(field namespace "$cj")
      cargs=(--namespace "${ns:-default}" -f "$(dirname "$cj")/values.yaml")
      # A schema that refers to a remote URL: Helm would download it (it
      # fails offline), flate skips it; both skip schema validation here.
      if grep -q '"remoteSchema": true' "$cj"; then cargs+=(--skip-schema-validation); fi
      if renders "$dir" "${r:-bench}" "$chart" "${cargs[@]}"; then
        release=${r:-bench}; args=("${cargs[@]}"); values=$(basename "$(dirname "$cj")"); break
      fi
    done
  fi
  if ! renders "$dir" "$release" "$chart" "${args[@]}"; then
    printf "%-40s %s\n" "$name" "skipped: one of the two fails on it"; continue
  fi
  tf=(); th=(); tb=()
  cd "$dir"
  for _ in $(seq "$rounds"); do
    usec; s=$now_us; "$flate" helm template "$chart" --name "$release" "${args[@]}" >/dev/null; usec; e=$now_us; tf+=($((e - s)))
    if [ -n "$flate_b" ]; then
      usec; s=$now_us; "$flate_b" helm template "$chart" --name "$release" "${args[@]}" >/dev/null; usec; e=$now_us; tb+=($((e - s)))
    fi
    usec; s=$now_us; "$helm" template "$release" "$chart" "${args[@]}" >/dev/null 2>&1; usec; e=$now_us; th+=($((e - s)))
  done
  cd "$root"
  mf=$(printf '%s\n' "${tf[@]}" | median); mh=$(printf '%s\n' "${th[@]}" | median)
  ratio=$(awk -v f="$mf" -v h="$mh" 'BEGIN { printf "%.1f", h / f }')
  ratios+=("$ratio")
  awk -v n="$name" -v v="${values:0:20}" -v f="$mf" -v h="$mh" -v r="$ratio" 'BEGIN { printf "%-40s %-20s %10.2f %10.2f %7.1fx", n, v, f / 1000, h / 1000, r }'
  if [ -n "$flate_b" ]; then
    mb=$(printf '%s\n' "${tb[@]}" | median)
    ratios_b+=("$(awk -v b="$mb" -v h="$mh" 'BEGIN { printf "%.1f", h / b }')")
    changes+=("$(awk -v b="$mb" -v f="$mf" 'BEGIN { printf "%.4f", b / f }')")
    awk -v b="$mb" -v f="$mf" -v h="$mh" 'BEGIN { printf " %10.2f %7.1fx %8.3f", b / 1000, h / b, b / f }'
    sum_b=$((sum_b + ${mb%.*}))
  fi
  echo
  sum_f=$((sum_f + ${mf%.*})); sum_h=$((sum_h + ${mh%.*})); n=$((n + 1))
done
echo
if [ "$n" -eq 0 ]; then echo "no chart rendered by both"; exit 0; fi
med=$(printf '%s\n' "${ratios[@]}" | median)
low=$(printf '%s\n' "${ratios[@]}" | sort -n | head -1)
at20=$(printf '%s\n' "${ratios[@]}" | awk '$1 >= 20 { c++ } END { print c + 0 }')
echo "charts: $n, rounds: $rounds; wall clock per render, process start included for both"
awk -v f="$sum_f" -v h="$sum_h" -v n="$n" 'BEGIN { printf "mean of the medians: flate %.2f ms, helm %.2f ms\n", f / n / 1000, h / n / 1000 }'
echo "ratio helm/flate: median ${med}x, lowest ${low}x, charts at 20x or more: $at20 of $n"
if [ -n "$flate_b" ]; then
  medb=$(printf '%s\n' "${ratios_b[@]}" | median)
  lowb=$(printf '%s\n' "${ratios_b[@]}" | sort -n | head -1)
  at20b=$(printf '%s\n' "${ratios_b[@]}" | awk '$1 >= 20 { c++ } END { print c + 0 }')
  medc=$(printf '%s\n' "${changes[@]}" | median)
  range=$(printf '%s\n' "${changes[@]}" | sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f to %.3f", lo, hi }')
  awk -v b="$sum_b" -v n="$n" 'BEGIN { printf "B (%s): mean of the medians %.2f ms\n", ENVIRON["FLATE_BIN_B"], b / n / 1000 }'
  echo "ratio helm/B: median ${medb}x, lowest ${lowb}x, charts at 20x or more: $at20b of $n"
  echo "B/flate per chart: median $medc, range $range"
fi
