#!/usr/bin/env python3
"""Measures flate on the real-world set (tools/realworld/repos.txt).

Usage: tools/realworld/run.py DIR [--flate BIN] [--out OUT] [--jobs N] [--only OWNER+NAME]

DIR holds one checkout per repository, named OWNER+NAME, at the commit
repos.txt names (`--checkout` writes them from bare git directories:
`--checkout MIRRORS` where MIRRORS/OWNER+NAME/repo is a bare clone).

It runs, and writes OUT/summary.md (default OUT: DIR/_results) with the
details beside it:

1. kustomize: every kustomization directory (a directory with a
   kustomization.yaml, kustomization.yml or Kustomization file), built with
   `flate kustomize build --load-restrictor none DIR` and `kubectl kustomize
   --load-restrictor LoadRestrictionsNone DIR` (as Flux builds), outputs
   compared byte for byte. Excluded, with the rule: a directory whose kustomization,
   or one it reaches through local resources/components/bases, uses
   `helmCharts`/`helmChartInflationGenerator` (needs helm and the network)
   or names a remote resource (`scheme://`, `github.com/...`, `git@...`,
   `?ref=`) or a remote generator file (`URL` in `files:`): kubectl would
   have to download it.
2. build: `flate build NAME --repo ROOT --path ENTRY -o json` per cluster entry:
   Flux Kustomizations rendered / skipped / failed, with each failure.
3. check: `flate check --repo ROOT --path ENTRY -o json` per cluster:
   errors and warnings grouped by rule.
4. time: `flate check` on the repository with the most Flux
   Kustomizations (one `flate check` per cluster, in turn), median of 5.
"""

import argparse
import collections
import concurrent.futures as cf
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
KFILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
REMOTE = re.compile(r"^([a-z][a-z0-9+.-]*://|git@|github\.com/|gitlab\.com/|bitbucket\.org/)|\?ref=|//.*\?|^ssh:")


def read_repos():
    repos = []
    for line in (HERE / "repos.txt").read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, commit, root, *rest = line.split()
        entries = [t for t in rest if not t.startswith("--source=")]
        sources = [t[len("--source="):] for t in rest if t.startswith("--source=")]
        repos.append({"name": name, "dir": name.replace("/", "+"), "commit": commit,
                      "root": root, "entries": entries, "sources": sources})
    return repos


def source_args(root: Path, sources) -> list:
    """`--source KIND/NS/NAME=DIR` arguments, DIR made absolute from the
    repository root it is relative to in repos.txt."""
    out = []
    for s in sources:
        ref, _, rel = s.rpartition("=")
        out += ["--source", f"{ref}={(root / rel).resolve()}"]
    return out


def checkout(repos, mirrors, dest):
    for r in repos:
        out = dest / r["dir"]
        if out.exists():
            continue
        out.mkdir(parents=True)
        git = mirrors / r["dir"] / "repo"
        # Files git cannot read (large ones absent from a partial copy) are
        # left out: every YAML file is small and present.
        files = subprocess.run(["git", "--git-dir", str(git), "ls-tree", "-r", "-z", "--name-only", r["commit"]],
                               check=True, capture_output=True).stdout.split(b"\0")
        ok = [f for f in files if f and subprocess.run(
            ["git", "--git-dir", str(git), "cat-file", "-e", r["commit"] + ":" + f.decode()],
            capture_output=True).returncode == 0]
        arch = subprocess.run(["git", "--git-dir", str(git), "archive", r["commit"], "--"] + [f.decode() for f in ok],
                              check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(out)], input=arch, check=True)


def kfile(d: Path):
    for k in KFILES:
        if (d / k).is_file():
            return d / k
    return None


def load_yaml(p: Path):
    try:
        return yaml.safe_load(p.read_text(errors="replace"))
    except Exception:
        return None


def needs_network(d: Path, seen=None):
    """The reason a kustomization directory needs network or helm, or None."""
    seen = seen if seen is not None else set()
    d = d.resolve()
    if d in seen:
        return None
    seen.add(d)
    f = kfile(d)
    if f is None:
        return None
    k = load_yaml(f)
    if not isinstance(k, dict):
        return None
    if k.get("helmCharts") or k.get("helmGlobals"):
        return "helmCharts"
    for g in (k.get("generators") or []) + (k.get("transformers") or []):
        if isinstance(g, str) and "HelmChartInflationGenerator" in g:
            return "helmChartInflationGenerator"
        if isinstance(g, str) and (d / g).is_file() and "HelmChartInflationGenerator" in (d / g).read_text(errors="replace"):
            return "helmChartInflationGenerator"
    for gen in (k.get("configMapGenerator") or []) + (k.get("secretGenerator") or []):
        for e in (gen.get("files") or []) if isinstance(gen, dict) else []:
            if isinstance(e, str) and "://" in e:
                return f"remote generator file: {e}"
    for key in ("resources", "components", "bases"):
        for e in k.get(key) or []:
            if not isinstance(e, str):
                continue
            if REMOTE.search(e):
                return f"remote {key}: {e}"
            sub = d / e
            if sub.is_dir():
                why = needs_network(sub, seen)
                if why:
                    return why
    return None


def run(cmd, cwd=None, timeout=120):
    t = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr, time.monotonic() - t
    except subprocess.TimeoutExpired:
        return -1, b"", b"timeout", time.monotonic() - t


def kustomize_dirs(checkout: Path):
    out = []
    for root, dirs, files in os.walk(checkout):
        dirs[:] = sorted(x for x in dirs if not x.startswith(".git"))
        if any(k in files for k in KFILES):
            out.append(Path(root))
    return out


def compare_one(flate, d: Path):
    # As Flux builds: without kustomize's root-only load restriction.
    rk, ok_, ek, _ = run(["kubectl", "kustomize", "--load-restrictor", "LoadRestrictionsNone", str(d)])
    rf, of, ef, _ = run([flate, "kustomize", "build", "--load-restrictor", "none", str(d)])
    if rk == 0 and rf == 0:
        cls = "identical" if ok_ == of else "different"
    elif rk != 0 and rf != 0:
        cls = "both-fail"
    elif rk != 0:
        cls = "only-kubectl-fails"
    else:
        cls = "only-flate-fails"
    detail = ""
    if cls == "different":
        a, b = ok_.decode(errors="replace").splitlines(), of.decode(errors="replace").splitlines()
        i = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
        detail = f"line {i + 1}: kubectl {a[i] if i < len(a) else '<end>'!r} flate {b[i] if i < len(b) else '<end>'!r}"
    elif cls == "only-flate-fails":
        detail = ef.decode(errors="replace").strip().splitlines()[-1:]
        detail = detail[0] if detail else ""
    elif cls == "only-kubectl-fails":
        detail = ek.decode(errors="replace").strip()[-300:]
    elif cls == "both-fail":
        detail = "kubectl: " + ek.decode(errors="replace").strip()[-200:]
    return cls, detail


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir", type=Path)
    ap.add_argument("--flate", default=str(HERE.parent.parent / "target/release/flate"))
    ap.add_argument("--out", type=Path)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--checkout", type=Path, help="bare mirrors: MIRRORS/OWNER+NAME/repo")
    ap.add_argument("--skip", action="append", default=[], choices=["kustomize", "build", "check", "time"])
    a = ap.parse_args()
    repos = read_repos()
    if a.only:
        repos = [r for r in repos if r["dir"] in a.only]
    if a.checkout:
        checkout(repos, a.checkout, a.dir)
    out = a.out or a.dir / "_results"
    out.mkdir(parents=True, exist_ok=True)
    flate = os.path.abspath(a.flate)
    md = ["# flate on the real-world set", ""]
    details = {}

    # 1. kustomize build vs kubectl kustomize.
    if "kustomize" not in a.skip:
        rows = []
        total = collections.Counter()
        excluded_total = collections.Counter()
        kdetails = []
        for r in repos:
            co = a.dir / r["dir"]
            dirs = kustomize_dirs(co)
            todo, excluded = [], []
            for d in dirs:
                why = needs_network(d)
                (excluded if why else todo).append((d, why))
            with cf.ThreadPoolExecutor(a.jobs) as ex:
                res = list(ex.map(lambda x: compare_one(flate, x[0]), todo))
            c = collections.Counter(cls for cls, _ in res)
            for (d, _), (cls, det) in zip(todo, res):
                if cls != "identical":
                    kdetails.append({"repo": r["name"], "dir": str(d.relative_to(co)), "class": cls, "detail": det})
            for d, why in excluded:
                excluded_total[why.split(":")[0]] += 1
            total.update(c)
            rows.append((r["name"], len(dirs), len(excluded), c))
        details["kustomize"] = kdetails
        md += ["## 1. `flate kustomize build` vs `kubectl kustomize`", "",
               "| repository | dirs | excluded | identical | different | both fail | only flate fails | only kubectl fails |",
               "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for name, n, ex_, c in rows:
            md.append(f"| {name} | {n} | {ex_} | {c['identical']} | {c['different']} | {c['both-fail']} | {c['only-flate-fails']} | {c['only-kubectl-fails']} |")
        n_all = sum(x[1] for x in rows)
        ex_all = sum(x[2] for x in rows)
        md.append(f"| **total** | {n_all} | {ex_all} | {total['identical']} | {total['different']} | {total['both-fail']} | {total['only-flate-fails']} | {total['only-kubectl-fails']} |")
        md += ["", "Excluded (network or helm): " + ", ".join(f"{k} {v}" for k, v in sorted(excluded_total.items())), ""]
        for x in kdetails:
            md.append(f"- {x['class']}: {x['repo']} `{x['dir']}`: {x['detail']}")
        md.append("")

    # 2. flate build, 3. flate check.
    sizes = {}
    if "build" not in a.skip or "check" not in a.skip:
        brows, crows = [], []
        bdetails, cdetails = [], []
        rule_tot = collections.Counter()
        for r in repos:
            root = (a.dir / r["dir"] / r["root"]).resolve()
            for e in r["entries"]:
                base = ["--repo", str(root), "--path", e] + source_args(root, r["sources"])
                name = Path(e).name
                if "build" not in a.skip:
                    rc, so, se, dt = run([flate, "build", name, "-o", "json"] + base, timeout=600)
                    st = collections.Counter()
                    try:
                        j = json.loads(so)
                        for k in j.get("kustomizations", []):
                            st[k["status"]] += 1
                            if k["status"] != "rendered":
                                bdetails.append({"repo": r["name"], "entry": e, "ks": f"{k['namespace']}/{k['name']}",
                                                 "path": k.get("path", ""), "status": k["status"], "message": k.get("message", "")})
                    except Exception:
                        st["error"] += 1
                        bdetails.append({"repo": r["name"], "entry": e, "status": f"exit {rc}",
                                         "message": se.decode(errors="replace").strip()[:500]})
                    sizes[r["name"]] = sizes.get(r["name"], 0) + sum(st.values())
                    brows.append((r["name"], e, st, dt))
                if "check" not in a.skip:
                    rc, so, se, dt = run([flate, "check", "-o", "json"] + base, timeout=600)
                    rules = collections.Counter()
                    errs = warns = 0
                    try:
                        j = json.loads(so)
                        for f in j["findings"]:
                            if f["severity"] == "error":
                                rules[f["rule"]] += 1
                                cdetails.append({"repo": r["name"], "entry": e, **f})
                        errs, warns = j["summary"]["errors"], j["summary"]["warnings"]
                    except Exception:
                        rules["(flate check could not run)"] += 1
                        cdetails.append({"repo": r["name"], "entry": e, "rule": f"exit {rc}",
                                         "message": se.decode(errors="replace").strip()[:500]})
                    rule_tot.update(rules)
                    crows.append((r["name"], e, rc, errs, warns, rules))
        if brows:
            t = collections.Counter()
            md += ["## 2. `flate build` per cluster", "",
                   "| repository | entry | Kustomizations | rendered | skipped | failed | time (s) |",
                   "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
            for name, e, st, dt in brows:
                t.update(st)
                md.append(f"| {name} | `{e}` | {sum(st.values())} | {st['rendered']} | {st['skipped']} | {st['failed'] + st['error']} | {dt:.2f} |")
            md.append(f"| **total** | {len(brows)} clusters | {sum(t.values())} | {t['rendered']} | {t['skipped']} | {t['failed'] + t['error']} | |")
            md += ["", "Not rendered:", ""]
            for x in bdetails:
                md.append(f"- {x['status']}: {x['repo']} `{x['entry']}` {x.get('ks', '')} ({x.get('path', '')}): {x['message'][:300]}")
            md.append("")
            details["build"] = bdetails
        if crows:
            md += ["## 3. `flate check` per cluster", "",
                   "| repository | entry | exit | errors | warnings | errors by rule |",
                   "| --- | --- | ---: | ---: | ---: | --- |"]
            for name, e, rc, errs, warns, rules in crows:
                md.append(f"| {name} | `{e}` | {rc} | {errs} | {warns} | {', '.join(f'{k} {v}' for k, v in rules.most_common())} |")
            clean = sum(1 for x in crows if x[3] == 0)
            md += [f"| **total** | {len(crows)} clusters, {clean} without errors | | {sum(x[3] for x in crows)} | {sum(x[4] for x in crows)} | {', '.join(f'{k} {v}' for k, v in rule_tot.most_common())} |", ""]
            details["check"] = cdetails

    # 4. time of flate check on the largest repository.
    if "time" not in a.skip and sizes:
        big = max(sizes, key=sizes.get)
        r = next(x for x in repos if x["name"] == big)
        root = (a.dir / r["dir"] / r["root"]).resolve()
        times = []
        for _ in range(5):
            t = time.monotonic()
            for e in r["entries"]:
                run([flate, "check", "--repo", str(root), "--path", e] + source_args(root, r["sources"]),
                    timeout=600)
            times.append(time.monotonic() - t)
        times.sort()
        md += ["## 4. Time", "",
               f"`flate check` on {big} ({sizes[big]} Flux Kustomizations, {len(r['entries'])} cluster(s)): "
               f"median {times[len(times) // 2] * 1000:.0f} ms of 5 runs (min {times[0] * 1000:.0f} ms), "
               f"{os.cpu_count()} CPUs, process start included.", ""]
    (out / "summary.md").write_text("\n".join(md) + "\n")
    (out / "details.json").write_text(json.dumps(details, indent=1) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    sys.exit(main())
