#!/usr/bin/env bash
# Times `flate kustomize build` on one ConfigMap whose `data` holds KEYS
# keys (default 1,000,000): median wall clock, user CPU time and peak
# memory of RUNS runs (default 5), then `kubectl kustomize` once on the
# same input for comparison when kubectl is on PATH (skip it with
# KUBECTL=0; it needs minutes for large maps).
#
#   bench/bigmap.sh [KEYS] [RUNS]
#
# FLATE names the binary (default target/release/flate; build it with
# `cargo build --release`).
set -euo pipefail
cd "$(dirname "$0")/.."
KEYS="${1:-1000000}"
RUNS="${2:-5}"
FLATE="${FLATE:-target/release/flate}"
[ -x "$FLATE" ] || { echo "no $FLATE: run cargo build --release" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (GNU time)" >&2; exit 1; }

dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
python3 - "$dir" "$KEYS" <<'PY'
import sys
d, n = sys.argv[1], int(sys.argv[2])
with open(f"{d}/cm.yaml", "w") as f:
    f.write("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n")
    f.writelines(f"  key{i}: value{i}\n" for i in range(n))
with open(f"{d}/kustomization.yaml", "w") as f:
    f.write("resources:\n- cm.yaml\n")
PY
echo "input: $KEYS keys, $(du -h "$dir/cm.yaml" | cut -f1) ($FLATE, $RUNS runs)"

"$FLATE" kustomize build "$dir" >"$dir/out.yaml"
echo "output: $(wc -l <"$dir/out.yaml") lines"

for _ in $(seq "$RUNS"); do
    /usr/bin/time -f "%e %U %M" -o "$dir/t" "$FLATE" kustomize build "$dir" >/dev/null
    cat "$dir/t"
done >"$dir/times"
sort -n -k1 "$dir/times" | awk -v n="$RUNS" '{w[NR]=$1} END {printf "wall   median %.2f s (min %.2f, max %.2f)\n", w[int((n+1)/2)], w[1], w[n]}'
sort -n -k2 "$dir/times" | awk -v n="$RUNS" '{u[NR]=$2} END {printf "user   median %.2f s (min %.2f, max %.2f)\n", u[int((n+1)/2)], u[1], u[n]}'
sort -n -k3 "$dir/times" | awk -v n="$RUNS" '{m[NR]=$3} END {printf "maxrss median %.0f MiB\n", m[int((n+1)/2)]/1024}'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

if [ "${KUBECTL:-1}" != 0 ] && command -v kubectl >/dev/null; then
    /usr/bin/time -f "%e %U %M" -o "$dir/k" kubectl kustomize "$dir" >"$dir/kubectl.yaml"
    read -r w u m <"$dir/k"
    echo "kubectl kustomize: wall $w s, user $u s, maxrss $((m / 1024)) MiB"
    if cmp -s "$dir/out.yaml" "$dir/kubectl.yaml"; then
        echo "output identical to kubectl's"
    else
        echo "output DIFFERS from kubectl's"
    fi
fi
