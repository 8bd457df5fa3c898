#!/usr/bin/env python3
"""Compare `flate kustomize build` with `kubectl kustomize` on extracted krusty cases.

Usage: krusty_compare.py CASES_DIR [--flate PATH] [--refresh] [-v] [--only SUBSTR]

CASES_DIR comes from tools/krusty_extract.py. kubectl (the oracle, kustomize
v5.5.0) runs once per case; its output is cached in the case directory as
kubectl.out / kubectl.rc (--refresh runs it again). flate runs every time.

Exclusion rule (decided from the test's inputs, before anything runs): a case is
excluded when the Go test enables plugins (MakeOptionsPluginsEnabled,
PrepExecPlugin, BuildGoPlugin) or its files declare a KRM function
(config.kubernetes.io/function, exec:, container image) -> "plugins"; when it
uses Helm (ErrIfNoHelm, helmCharts, HelmChartInflationGenerator) -> "helm";
when a resource is a remote URL (https://, github.com/, git@, ssh://, git::)
-> "network"; when it needs an option `kubectl kustomize` does not have
(AddManagedbyLabel) -> "option"; when the build directory is the root and
refers to ../X, which the in-memory file system of the Go test maps onto the root
itself -> "not reproducible on disk".

A case is identical when both succeed with the same bytes on stdout, or both
fail. Every other case gets a class:
  flate-error: <message>   kubectl succeeded, flate failed
  flate-ok-kubectl-error   kubectl failed, flate succeeded
  output: <first differing line>
"""

import concurrent.futures
import json
import os
import re
import subprocess
import sys
from collections import Counter


def run(cmd, cwd=None):
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=60, cwd=cwd)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 124, b"", b"timeout"


def kubectl(case_dir, meta, refresh):
    out_f = os.path.join(case_dir, "kubectl.out")
    rc_f = os.path.join(case_dir, "kubectl.rc")
    err_f = os.path.join(case_dir, "kubectl.err")
    if not refresh and os.path.exists(rc_f):
        with open(out_f, "rb") as f:
            out = f.read()
        with open(rc_f) as f:
            rc = int(f.read())
        with open(err_f, "rb") as f:
            err = f.read()
        return rc, out, err
    rc, out, err = run(["kubectl", "kustomize", os.path.join("tree", meta["run"])] + meta["flags"],
                       cwd=case_dir)
    with open(out_f, "wb") as f:
        f.write(out)
    with open(err_f, "wb") as f:
        f.write(err)
    with open(rc_f, "w") as f:
        f.write(str(rc))
    return rc, out, err


def flate_flags(flags):
    out = []
    for f in flags:
        if f == "LoadRestrictionsNone":
            out.append("none")
        elif f == "LoadRestrictionsRootOnly":
            out.append("rootonly")
        else:
            out.append(f)
    return out


def first_diff(a, b):
    al, bl = a.decode(errors="replace").split("\n"), b.decode(errors="replace").split("\n")
    for i, (x, y) in enumerate(zip(al, bl)):
        if x != y:
            return f"line {i + 1}: kubectl {x.strip()[:60]!r} flate {y.strip()[:60]!r}"
    return f"length: kubectl {len(al)} lines, flate {len(bl)} lines"


def normalize_error(err):
    text = err.decode(errors="replace").strip()
    # klog: E1201 14:38:07.633639   26306 run.go:72] "command failed" err=...
    m = re.search(r'"command failed" err=(?:<\s*\n\s*(.*)|"(.*))', text)
    if m:
        text = (m.group(1) or m.group(2) or "").split("\n")[0]
    else:
        text = text.split("\n")[-1]
    text = re.sub(r"^error: ", "", text)
    text = re.sub(r"\S*/tree/\S*?: ", "", text)
    text = re.sub(r"\S*/tree/\S*", "PATH", text)
    text = re.sub(r"\d+", "N", text)
    return text[:110]


def compare(case_dir, flate, refresh):
    with open(os.path.join(case_dir, "case.json")) as f:
        meta = json.load(f)
    name = os.path.basename(case_dir)
    if meta["exclude"]:
        return name, "excluded", meta["exclude"], ""
    krc, kout, kerr = kubectl(case_dir, meta, refresh)
    frc, fout, ferr = run([flate, "kustomize", "build", os.path.join("tree", meta["run"])]
                          + flate_flags(meta["flags"]), cwd=case_dir)
    if krc == 0 and frc == 0:
        if kout == fout:
            return name, "identical", "both succeed", ""
        return name, "different", "output: " + first_diff(kout, fout), ""
    if krc != 0 and frc != 0:
        return name, "identical", "both fail", normalize_error(kerr) + " || " + normalize_error(ferr)
    if krc == 0:
        return name, "different", "flate-error: " + normalize_error(ferr), ""
    return name, "different", "flate-ok-kubectl-error", normalize_error(kerr)


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        sys.exit(__doc__)
    cases_dir = args[0]
    flate = os.path.abspath("target/debug/flate")
    refresh = "--refresh" in args
    verbose = "-v" in args
    only = None
    if "--flate" in args:
        flate = os.path.abspath(args[args.index("--flate") + 1])
    if "--only" in args:
        only = args[args.index("--only") + 1]
    dirs = sorted(
        os.path.join(cases_dir, d) for d in os.listdir(cases_dir)
        if os.path.isfile(os.path.join(cases_dir, d, "case.json")) and (only is None or only in d))
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
        results = list(ex.map(lambda d: compare(d, flate, refresh), dirs))
    status = Counter(r[1] for r in results)
    excluded = Counter(r[2] for r in results if r[1] == "excluded")
    classes = Counter(re.sub(r"^output: .*", "output differs", r[2])
                      for r in results if r[1] == "different")
    considered = len(results) - status["excluded"]
    for r in results:
        if r[1] == "different" or (verbose and r[1] != "excluded"):
            print(f"{r[1]:10} {r[0]}: {r[2]}" + (f"  [{r[3]}]" if r[3] else ""))
    print()
    print(f"cases: {len(results)}")
    print(f"excluded: {status['excluded']} (" + ", ".join(f"{k}: {v}" for k, v in sorted(excluded.items())) + ")")
    both_fail = sum(1 for r in results if r[2] == "both fail")
    pct = 100.0 * status["identical"] / considered if considered else 0.0
    print(f"identical: {status['identical']} of {considered} ({pct:.1f}%; {both_fail} of them fail in both)")
    print(f"different: {status['different']}")
    for k, v in classes.most_common():
        print(f"  {v:4}  {k}")


if __name__ == "__main__":
    main()
