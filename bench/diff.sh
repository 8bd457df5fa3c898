#!/usr/bin/env bash
# `flate diff` between two revisions, process start included, median of
# ROUNDS runs.
#
# Usage: bench/diff.sh [ROUNDS]   (default 11)
#   APPS=1000   apps in the synthetic repository (bench/gen_synthetic.py)
#   FORMATS     the -o formats timed (default: unified human markdown)
#   FLATE       a flate binary to time (default: a release build)
#
# Each case is a temporary git repository with commits made here:
#   example     the example tree (kubernetes/), then a Renovate-like commit:
#               a production chart pin bump (tag + digest) and a base
#               HelmRelease value change
#   synthetic   the synthetic repository, then the same kind of commit (a
#               production pin bump, a base image tag change), then a wide
#               one: a cluster-settings value every app uses
# and `flate diff ENV... --base HEAD~1 -o FORMAT > /dev/null` is timed for
# FORMATS (default: unified human markdown): the base tree is read from the
# git object database (gix), both sides render, every object pairs and
# diffs. The target for the example tree is < 100 ms. After the table: the
# median ratio human/unified per case, and the size of `-o html` of the wide
# change; with chromium and tests/browser/node_modules present, the time
# the browser check (tests/browser/report.test.mjs) takes to open it.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-11}
apps=${APPS:-1000}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS must be a positive integer" >&2; exit 2; }
command -v git >/dev/null || { echo "git is needed to make the benchmark repositories" >&2; exit 2; }
command -v python3 >/dev/null || { echo "python3 is needed (synthetic repository, JSON)" >&2; exit 2; }
# FLATE_BIN=path/to/flate times that binary instead of building one.
source bench/flate_bin.sh

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
g() { # g DIR git-args...
  local d=$1
  shift
  GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 git -C "$d" -c user.name=bench \
    -c user.email=bench@flate.invalid -c commit.gpgsign=false -c init.defaultBranch=main -c gc.auto=0 "$@"
}
commit() { g "$1" add -A && g "$1" commit -qm "$2"; }

# The example tree: one commit, then a pin bump and a value change.
ex=$tmp/example
mkdir -p "$ex"
cp -r kubernetes "$ex/"
g "$ex" init -q
commit "$ex" "example tree"
sed -i 's/tag: 6.1.0/tag: 6.2.0/; s/b9061daed5244df8/0000000000000000/' \
  "$ex/kubernetes/apps/production/observability/patches/victoria-metrics.yaml"
sed -i 's/replicaCount: 1/replicaCount: 2/' "$ex/kubernetes/apps/base/cert-manager/app/helmrelease.yaml"
commit "$ex" "pin bump and a value"

# The synthetic repository: a pin bump and an image tag, then a wide change.
syn=$tmp/synthetic
python3 bench/gen_synthetic.py "$syn" --apps "$apps" >/dev/null 2>&1
g "$syn" init -q
commit "$syn" "synthetic"
pin=$(find "$syn/kubernetes/apps/production" -path '*/patches/*.yaml' | sort | sed -n 1p)
sed -i -E 's/tag: ([0-9]+)\.([0-9]+)\.([0-9]+)/tag: \1.\2.99/' "$pin"
sed -i 's/:1\.1\.1$/:1.1.2/' "$syn/kubernetes/apps/base/app-0001/app/deployment.yaml"
commit "$syn" "pin bump and an image"
cp -r "$syn" "$tmp/synthetic-wide"
syn_wide=$tmp/synthetic-wide
sed -i 's/CLUSTER_LOG_LEVEL: info/CLUSTER_LOG_LEVEL: debug/' "$syn_wide/kubernetes/clusters/production/cluster-settings.yaml"
commit "$syn_wide" "log level"

median() { sort -n | awk '{ v[NR] = $1 } END { m = int((NR + 1) / 2); if (NR % 2) printf "%.1f", v[m]; else printf "%.1f", (v[m] + v[m + 1]) / 2 }'; }
TIMEFORMAT='%3R'

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "rounds: $rounds; ms: wall clock of one flate diff process, median (min-max)"
echo

status=0
rows=()
declare -A medians
for case in "example|$ex|production" "example|$ex|staging" "example|$ex|production staging" \
            "synthetic|$syn|production" "synthetic|$syn|production staging" \
            "synthetic-wide|$syn_wide|production" "synthetic-wide|$syn_wide|production staging"; do
  IFS='|' read -r label repo envs <<<"$case"
  for format in ${FORMATS:-unified human markdown}; do
    # shellcheck disable=SC2086 # envs is a word list
    "$flate" diff $envs --base HEAD~1 --repo "$repo" -o json >"$tmp/out.json" 2>"$tmp/err" || {
      echo "flate diff failed on $label ($envs): $(cat "$tmp/err")" >&2
      status=1
      continue 2
    }
    facts=$(python3 - "$tmp/out.json" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
pairs = sum(len(e["pairs"]) for e in doc["environments"])
changed = sum(e["counts"]["changed"] + e["counts"]["added"] + e["counts"]["removed"] + e["counts"]["moved"] for e in doc["environments"])
print(pairs, changed)
EOF
)
    read -r n_pairs n_changed <<<"$facts"
    : >"$tmp/times"
    for _ in $(seq "$rounds"); do
      # shellcheck disable=SC2086
      { time "$flate" diff $envs --base HEAD~1 --repo "$repo" -o "$format" >"$tmp/out" 2>/dev/null; } 2>>"$tmp/times"
    done
    ms=$(awk '{ printf "%.3f\n", $1 * 1000 }' "$tmp/times")
    med=$(median <<<"$ms")
    range="$(sort -n <<<"$ms" | sed -n 1p | awk '{ printf "%.0f", $1 }')-$(sort -n <<<"$ms" | sed -n '$p' | awk '{ printf "%.0f", $1 }')"
    size=$(wc -c <"$tmp/out")
    rows+=("$label|$envs|$format|$n_pairs|$n_changed|$med ($range)|$size")
    medians["$label|$envs|$format"]=$med
    if [[ $label == example ]] && awk -v m="$med" 'BEGIN { exit !(m >= 100) }'; then
      echo "note: example $envs $format: median $med ms is over the 100 ms target" >&2
      status=1
    fi
  done
done

{
  echo "case|environments|format|objects|changed|ms|output bytes"
  printf '%s\n' "${rows[@]}"
} | column -t -s '|'
echo
for key in "${!medians[@]}"; do
  [[ $key == *"|unified" ]] || continue
  base=${key%|unified}
  h=${medians["$base|human"]:-}
  if [[ -n $h ]]; then
    awk -v c="$base" -v u="${medians[$key]}" -v h="$h" 'BEGIN { printf "human/unified %-40s %.2f\n", c, h / u }'
  fi
done | sort
echo
# The HTML report of the wide change.
"$flate" diff production --base HEAD~1 --repo "$syn_wide" -o html >"$tmp/report.html" 2>/dev/null || true
echo "html report, synthetic-wide production: $(wc -c <"$tmp/report.html") bytes"
if [[ -x ${CHROMIUM:-/usr/bin/chromium} && -d tests/browser/node_modules/playwright-core ]]; then
  n=$(python3 - "$syn_wide" "$flate" <<'EOF'
import json, subprocess, sys
out = subprocess.run([sys.argv[2], "diff", "production", "--base", "HEAD~1", "--repo", sys.argv[1], "-o", "json"], capture_output=True).stdout
print(sum(1 for e in json.loads(out)["environments"] for p in e["pairs"] if p["status"] != "unchanged"))
EOF
)
  echo "{\"count\": $n, \"maxOpenMs\": 2000}" >"$tmp/expect.json"
  node tests/browser/report.test.mjs "$tmp/report.html" "$tmp/expect.json" | sed 's/^/  /' || status=1
fi
echo
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit "$status"
