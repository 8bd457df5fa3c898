#!/usr/bin/env bash
# Short smoke run of every fuzz target (seconds each), for CI: every target
# `cargo fuzz list` names (yaml_roundtrip, envsubst, kustomize_build,
# strategic_merge, json6902, template).
set -euo pipefail
cd "$(dirname "$0")"
SECONDS_PER_TARGET="${SECONDS_PER_TARGET:-5}"
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
python3 seed-corpora.py >/dev/null
export RUSTC_BOOTSTRAP=1
cargo fuzz build -s none -a -O
for t in $(cargo fuzz list); do
    extra=()
    [ "$t" = kustomize_build ] && extra=(-max_len=65536)
    echo "fuzz smoke: $t (${SECONDS_PER_TARGET}s)"
    log="$(mktemp)"
    if ! cargo fuzz run -s none -a -O "$t" "corpus/$t" -- \
        -max_total_time="$SECONDS_PER_TARGET" -timeout=60 -rss_limit_mb=2048 "${extra[@]}" \
        -print_final_stats=1 >"$log" 2>&1; then
        tail -50 "$log"
        echo "fuzz smoke: $t found a failure (see fuzz/artifacts/$t)"
        exit 1
    fi
    grep -E "^stat::number_of_executed_units" "$log" || true
    rm -f "$log"
done
