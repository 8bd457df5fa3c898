#!/usr/bin/env bash
# Short smoke run of every fuzz target, for CI: every target `cargo fuzz
# list` names (yaml_roundtrip, envsubst, kustomize_build, strategic_merge,
# json6902, template, helm_chart, resourceset). Deterministic: a fixed seed, a fixed number of runs
# (a few seconds each on two cores), and the seeds seed-corpora.py writes
# (none of the units earlier runs added), so what passes here passes in CI;
# longer runs that explore are in fuzz/README.md. SMOKE_RUNS_SCALE
# multiplies the runs (default 1).
set -euo pipefail
cd "$(dirname "$0")"
scale="${SMOKE_RUNS_SCALE:-1}"
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
python3 seed-corpora.py >/dev/null
export RUSTC_BOOTSTRAP=1
cargo fuzz build -s none -a -O
runs_for() {
    case "$1" in
        envsubst) echo 300000 ;;
        json6902 | strategic_merge) echo 80000 ;;
        yaml_roundtrip | kustomize_build) echo 30000 ;;
        template) echo 1500 ;;
        helm_chart) echo 3000 ;;
        resourceset) echo 30000 ;;
        *) echo 20000 ;;
    esac
}
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for t in $(cargo fuzz list); do
    extra=()
    case "$t" in kustomize_build | helm_chart) extra=(-max_len=65536) ;; esac
    runs=$(( $(runs_for "$t") * scale ))
    mkdir -p "$work/$t/seeds" "$work/$t/new"
    cp corpus/"$t"/seed-* "$work/$t/seeds/"
    echo "fuzz smoke: $t ($runs runs, seed 1)"
    log="$work/$t.log"
    if ! cargo fuzz run -s none -a -O "$t" "$work/$t/new" "$work/$t/seeds" -- \
        -seed=1 -runs="$runs" -max_total_time=120 -timeout=60 -rss_limit_mb=2048 "${extra[@]}" \
        -print_final_stats=1 >"$log" 2>&1; then
        tail -50 "$log"
        echo "fuzz smoke: $t found a failure (see fuzz/artifacts/$t)"
        exit 1
    fi
    grep -E "^stat::(number_of_executed_units|average_exec_per_sec)" "$log" || true
done
