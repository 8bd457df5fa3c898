#!/usr/bin/env python3
"""Differential test of how flate reads two forms yaml-rust2 refuses and
go-yaml reads (src/yaml/parse/gofix.rs): single-pair mappings in flow
sequences (`[k: [v]]`) and aliases as mapping keys (`*a:`), mixed with
what could trip a rewrite of the text: quoted scalars holding brackets
and colons, comments, block scalars, URLs, nested flow collections,
anchors on keys and values, JSON-style `"k":v`, multi-line flow.

Each case is one ConfigMap-like resource with random such values, built
by `flate kustomize build` and `kubectl kustomize` (the oracle); a case is
a mismatch when the outputs differ or exactly one fails (error messages
are not compared). Reproducible: case K of seed N is always the same.

    tools/yaml_flow_differential.py --seed 1 --count 500 [--flate BIN] [--keep DIR]

Only the Python standard library is used.
"""

import argparse
import concurrent.futures
import os
import random
import shutil
import subprocess
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

WORDS = ["a", "b", "targets", "host", "x-y", "k_1", "port", "app", "ns"]
TRICKY = [
    '"[k: [v]]"', "'[k: {v: w}]'", '"a: [b]"', "'it''s [x: [y]]'",
    "http://h:80/p", "x#y", '"#not a comment"', "'{a: [b: c]}'",
    # A plain `-` ending a scalar before a flow indicator (go-yaml reads
    # the string; yaml-rust2 refuses it).
    "-", "a -", "a:b -", "x-y -", "1 -",
]


def scalar(r):
    c = r.random()
    if c < 0.5:
        return r.choice(WORDS)
    if c < 0.7:
        return r.choice(TRICKY)
    if c < 0.85:
        return str(r.randint(0, 9999))
    return '"' + r.choice(WORDS) + ":" + str(r.randint(1, 99)) + '"'


def value(r, depth, anchors, empty):
    """A pair's value: with --empty, sometimes nothing (`{a: , b: 1}`),
    decided by a generator of its own so that the other draws stay those
    of the same case without --empty."""
    v = flow(r, depth, anchors, empty)
    if empty is not None and empty.random() < 0.25:
        return ""
    return v


def flow(r, depth, anchors, empty=None):
    """A flow collection, maybe with single-pair entries."""
    if depth > 3 or r.random() < 0.25:
        if anchors and r.random() < 0.2:
            return "*" + r.choice(anchors)
        return scalar(r)
    if r.random() < 0.65:
        items = []
        for _ in range(r.randint(0, 4)):
            c = r.random()
            if c < 0.45:
                key = r.choice(WORDS) if r.random() < 0.8 else '"' + r.choice(WORDS) + '"'
                sep = ":" if key.startswith('"') and r.random() < 0.5 else ": "
                if anchors and r.random() < 0.15:
                    key = "*" + r.choice(anchors)
                    sep = ": "
                items.append(key + sep + value(r, depth + 1, anchors, empty))
            else:
                items.append(flow(r, depth + 1, anchors, empty))
        sep = r.choice([", ", ",", ",\n    "])
        return "[" + sep.join(items) + "]"
    pairs = []
    used = set()
    for _ in range(r.randint(0, 3)):
        k = r.choice(WORDS)
        if k in used:
            continue
        used.add(k)
        pairs.append(k + ": " + value(r, depth + 1, anchors, empty))
    return "{" + ", ".join(pairs) + "}"


def case(seed, k, empty=False):
    r = random.Random(f"{seed}-{k}")
    e = random.Random(f"{seed}-{k}-empty") if empty else None
    anchors = []
    lines = ["apiVersion: v1", "kind: Fuzz", "metadata:", "  name: c" + str(k), "spec:"]
    if r.random() < 0.6:
        anchors.append("app")
        lines.append("  name: &app " + r.choice(WORDS))
    if r.random() < 0.3:
        anchors.append("n-1")
        lines.append("  other: &n-1 " + r.choice(["ns", "x", "host"]))
    used = set()
    for i in range(r.randint(1, 6)):
        c = r.random()
        key = f"f{i}"
        if c < 0.55:
            lines.append(f"  {key}: " + flow(r, 0, anchors, e))
        elif c < 0.7 and anchors:
            a = r.choice(anchors)
            if a in used:
                continue
            used.add(a)
            lines.append(f"  *{a}:")
            lines.append("    v: " + flow(r, 1, anchors, e))
        elif c < 0.8:
            lines.append(f"  {key}: |")
            lines.append("    " + flow(r, 0, []))
        elif c < 0.9:
            lines.append(f"  # {key}: " + flow(r, 0, []))
        else:
            lines.append(f"  {key}:")
            lines.append("    - " + flow(r, 1, anchors, e) + r.choice(["", "  # [c: [d]]"]))
    return "\n".join(lines) + "\n"


def build(cmd, d):
    p = subprocess.run(cmd + [d], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout


def run_one(args, k):
    text = case(args.seed, k, args.empty)
    d = tempfile.mkdtemp(prefix="yflow-")
    try:
        with open(os.path.join(d, "r.yaml"), "w") as f:
            f.write(text)
        with open(os.path.join(d, "kustomization.yaml"), "w") as f:
            f.write("resources:\n- r.yaml\n")
        fr, fo = build([args.flate, "kustomize", "build"], d)
        kr, ko = build(["kubectl", "kustomize"], d)
        ok = (fr == 0) == (kr == 0) and (fr != 0 or fo == ko)
        if not ok and args.keep:
            dest = os.path.join(args.keep, f"case-{k}")
            shutil.copytree(d, dest, dirs_exist_ok=True)
            with open(os.path.join(dest, "flate.out"), "w") as f:
                f.write(fo)
            with open(os.path.join(dest, "kubectl.out"), "w") as f:
                f.write(ko)
        return k, ok, fr == 0, kr == 0
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--flate", default=os.path.join(REPO, "target/release/flate"))
    ap.add_argument("--keep")
    ap.add_argument(
        "--empty",
        action="store_true",
        help="leave some values of flow pairs empty (`{a: , b: 1}`)",
    )
    ap.add_argument("--print", type=int, help="print case K and exit")
    args = ap.parse_args()
    if args.print is not None:
        print(case(args.seed, args.print), end="")
        return
    bad = []
    both_ok = both_fail = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        for k, ok, f_ok, k_ok in ex.map(lambda k: run_one(args, k), range(args.count)):
            if not ok:
                bad.append(k)
            elif f_ok:
                both_ok += 1
            else:
                both_fail += 1
    print(f"cases: {args.count}, identical: {both_ok}, both fail: {both_fail}, mismatches: {len(bad)}")
    if bad:
        print("mismatching cases:", " ".join(map(str, bad[:50])))
        raise SystemExit(1)


if __name__ == "__main__":
    main()
