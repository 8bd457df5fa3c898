#!/usr/bin/env bash
# Whole-cluster Flux render: flate against `kubectl kustomize` run once per
# Flux Kustomization (what other offline renderers do).
#
# Usage: bench/flux.sh [ROUNDS]   (default 5)
#   APPS=1000   apps in the synthetic repository (bench/gen_synthetic.py)
#   SAMPLE=100  Kustomizations timed with kubectl when a cluster has more
#               than that many (the total is extrapolated linearly)
#
# For the example tree (kubernetes/) and a synthetic repository generated
# into a temporary directory, each in production and staging:
#   flate    `flate build ENV --repo R -o json > /dev/null`: median wall
#            clock of ROUNDS runs, process start included, and median CPU
#            time (user + sys, all threads); peak RSS from one more run
#            under /usr/bin/time -f %M when it exists
#   kubectl  `kubectl kustomize --load-restrictor LoadRestrictionsNone R/PATH`
#            for every Kustomization flate reports as rendered (the list and
#            the paths come from flate's JSON output), one pass, summed
#   ratio    kubectl ms / flate ms (wall clock, process start included);
#            CPU ratio: the same with user + sys CPU time, which depends
#            less on what else the machine is running
#   check    `flate test all ENV --repo R`; the script exits 1 when it reports
#            a failure on the synthetic repository
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
apps=${APPS:-1000}
sample=${SAMPLE:-100}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS must be a positive integer" >&2; exit 2; }
command -v kubectl >/dev/null || { echo "kubectl is not on PATH: nothing to compare with" >&2; exit 2; }
command -v python3 >/dev/null || { echo "python3 is needed (synthetic repository, JSON)" >&2; exit 2; }
# FLATE_BIN=PATH times that binary instead of building one.
source bench/flate_bin.sh

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gen=$(python3 bench/gen_synthetic.py "$tmp/synthetic" --apps "$apps" 2>&1)

timer=""
if [[ -x /usr/bin/time ]] && /usr/bin/time -f %M -o /dev/null true 2>/dev/null; then
  timer=/usr/bin/time
fi

median() { # $1 = column of stdin: prints the median
  awk -v c="$1" '{ print $c }' | sort -n | awk '{ v[NR] = $1 }
    END { m = int((NR + 1) / 2); if (NR % 2) printf "%.1f\n", v[m]; else printf "%.1f\n", (v[m] + v[m + 1]) / 2 }'
}
TIMEFORMAT='%3R %3U %3S'  # wall, user, sys in seconds, for `time` below

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
if rev=$(git rev-parse --short HEAD 2>/dev/null); then
  git diff --quiet HEAD -- src Cargo.toml Cargo.lock 2>/dev/null || rev="$rev + uncommitted changes to src/"
  echo "flate: $rev"
fi
echo "synthetic repository (bench/gen_synthetic.py): ${gen#*: }"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "rounds: $rounds (flate: median of the rounds; kubectl: one pass, summed over Kustomizations)"
echo "ms: wall clock, process start included; CPU ms: user + sys over all threads and processes"
[[ -n $timer ]] || echo "peak RSS: not measured (/usr/bin/time is not available)"
echo

rows=()
notes=()
status=0
for case in "example production ." "example staging ." \
            "synthetic production $tmp/synthetic" "synthetic staging $tmp/synthetic"; do
  read -r label env repo <<<"$case"
  name="$label/$env"
  json="$tmp/$label-$env.json"

  # Render once for the facts: Kustomizations, statuses, objects, paths.
  "$flate" build "$env" --repo "$repo" -o json >"$json" 2>/dev/null || true
  python3 - "$json" "$tmp/paths" "$sample" <<'EOF' >"$tmp/facts"
import json, random, sys
doc = json.load(open(sys.argv[1]))
ks = doc["kustomizations"]
rendered = [k for k in ks if k["status"] == "rendered"]
objects = sum(len(k.get("objects") or []) for k in ks)
statuses = {}
for k in ks:
    statuses[k["status"]] = statuses.get(k["status"], 0) + 1
paths = [k["path"] for k in rendered]
limit = int(sys.argv[3])
timed = paths if len(paths) <= limit else random.Random(42).sample(paths, limit)
with open(sys.argv[2], "w") as f:
    f.write("".join(p + "\n" for p in timed))
print(len(ks), len(rendered), len(timed), objects,
      ",".join(f"{n} {s}" for s, n in sorted(statuses.items())))
EOF
  read -r n_ks n_rendered n_timed n_objects statuses <"$tmp/facts"

  # flate: whole cluster, ROUNDS runs, median.
  # bash's `time` keyword: wall, user and sys of the child, in ms.
  : >"$tmp/times"
  for _ in $(seq "$rounds"); do
    { time "$flate" build "$env" --repo "$repo" -o json >/dev/null 2>&1 || true; } 2>>"$tmp/times"
  done
  awk '{ printf "%.3f %.3f\n", $1 * 1000, ($2 + $3) * 1000 }' "$tmp/times" >"$tmp/ms"
  t_flate=$(median 1 <"$tmp/ms")
  cpu=$(median 2 <"$tmp/ms")
  rss="n/a"
  if [[ -n $timer ]]; then
    $timer -f %M -o "$tmp/rss" "$flate" build "$env" --repo "$repo" -o json >/dev/null 2>&1 || true
    rss="$(awk '{ printf "%.1f MiB", $1 / 1024 }' "$tmp/rss")"
  fi

  # kubectl kustomize once per rendered Flux Kustomization (or a sample).
  fails=0
  { time {
    while read -r p; do
      kubectl kustomize --load-restrictor LoadRestrictionsNone "$repo/$p" >/dev/null 2>&1 || fails=$((fails + 1))
    done <"$tmp/paths"
  }; } 2>"$tmp/ktime"
  read -r t_timed k_cpu < <(awk '{ printf "%.3f %.3f\n", $1 * 1000, ($2 + $3) * 1000 }' "$tmp/ktime")
  t_kubectl=$(awk -v t="$t_timed" -v n="$n_timed" -v N="$n_rendered" 'BEGIN { printf "%.0f", n ? t / n * N : 0 }')
  c_kubectl=$(awk -v t="$k_cpu" -v n="$n_timed" -v N="$n_rendered" 'BEGIN { printf "%.0f", n ? t / n * N : 0 }')
  if (( n_timed < n_rendered )); then
    notes+=("$name: kubectl timed on a random sample of $n_timed of $n_rendered rendered Kustomizations ($(awk -v t="$t_timed" 'BEGIN { printf "%.0f", t }') ms, $(awk -v t="$t_timed" -v n="$n_timed" 'BEGIN { printf "%.1f", t / n }') ms each), total extrapolated linearly")
  fi
  (( fails == 0 )) || notes+=("$name: kubectl kustomize failed on $fails of $n_timed directories (their time is included)")

  # Correctness: flate test all.
  summary=$("$flate" test all "$env" --repo "$repo" 2>/dev/null | tail -n 1 || true)
  failed=$(sed -n 's/.* \([0-9][0-9]*\) failed.*/\1/p' <<<"$summary")
  if [[ $label == synthetic && $failed != 0 ]]; then
    notes+=("$name: flate test all reported failures: $summary")
    status=1
  fi

  rows+=("$(printf '%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s' "$name" "$n_ks ($statuses)" "$n_objects" \
    "$t_flate" "$cpu" "$rss" "$t_kubectl" "$c_kubectl" \
    "$(awk -v k="$t_kubectl" -v f="$t_flate" 'BEGIN { printf "%.0fx", k / f }')" \
    "$(awk -v k="$c_kubectl" -v f="$cpu" 'BEGIN { if (f > 0) printf "%.0fx", k / f; else print "n/a" }')" "$summary")")
done

{
  echo "cluster|Flux Kustomizations|objects|flate ms|flate CPU ms|flate peak RSS|kubectl ms|kubectl CPU ms|ratio|CPU ratio|flate test all"
  printf '%s\n' "${rows[@]}"
} | column -t -s '|'
echo
for n in "${notes[@]}"; do echo "note: $n"; done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit "$status"
