#!/usr/bin/env python3
"""Replays real pull requests through `flate diff` and checks what it says.

For each repository of the real-world set (tools/realworld/repos.txt) that
has a full clone with history, and for each of the last N first-parent
commits up to the pinned one (each such commit is what a merged pull
request or a pushed change did), in a git worktree checked out at the
commit:

1. `flate diff NAME --repo ROOT --path ENTRY --base COMMIT^ -o json
   --no-default-ignores` per cluster entry: the base read in-process from
   git, as in CI;
2. `flate build NAME -o json` of the same entry in that worktree and in a
   second worktree checked out at COMMIT^: the two sides built apart.

The diff is then checked against the two builds, object by object, by
(producer, group, kind, namespace, name) and by content:
- every object the diff calls `unchanged` is the same in both builds, and
  every object the same in both builds is `unchanged` in the diff;
- the objects of each side are those of the build of that side
  (changed + moved + unchanged + removed = base, changed + moved +
  unchanged + added = head), once pairs the diff made across names
  (generated ConfigMaps and Secrets whose hash changed, `moved` objects)
  are counted on both sides;
- a Kustomization that renders on both sides in the builds renders on both
  sides in the diff (no `errors`, no one-sided `skipped`).
A commit that changes YAML files of the repository while no entry's diff
reports a change, names a touched file of a Kustomization it could not
render, or notes a value the change writes that a patch replaces, is
listed as quiet (often right: a file no cluster reads, a
docker-compose file; listed to be looked at). A cluster entry that does not
exist at a commit is left out there; one the commit adds has an empty base.

Usage: tools/realworld/diffreplay.py --mirrors DIR --flate BIN [--commits N]
          [--only OWNER+NAME]... [--out FILE] [--work DIR]
  --mirrors DIR   DIR/OWNER+NAME/repo is a clone (bare) with history
  --commits N     the last N first-parent commits per repository (default 10)
  --work DIR      where the worktrees go (default: a temporary directory)
Nothing of the repositories is written into this project's tree.
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import run as realworld  # this directory's run.py: repos.txt



def git(gitdir, *args, cwd=None):
    r = subprocess.run(["git", "--git-dir", str(gitdir)] + list(args) if cwd is None else ["git"] + list(args),
                       cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout


def run(cmd, cwd=None, timeout=600):
    t = time.monotonic()
    try:
        r = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=timeout)
        return r.returncode, r.stdout, r.stderr.decode(errors="replace"), time.monotonic() - t
    except subprocess.TimeoutExpired:
        return -1, b"", "timeout", time.monotonic() - t


def checkout(gitdir, wt, rev):
    """Writes the files of rev into the worktree wt (made with
    --no-checkout, its HEAD moved to rev), leaving out the files whose
    blobs the clone lacks (a partial clone leaves out its largest files,
    which `git checkout` refuses)."""
    git(None, "update-ref", "--no-deref", "HEAD", rev, cwd=wt)
    for p in wt.iterdir():
        if p.name != ".git":
            subprocess.run(["rm", "-rf", str(p)], check=True)
    tree = git(gitdir, "ls-tree", "-r", "-z", "--format=%(objectmode) %(objectname) %(path)", rev)
    entries = [e.split(" ", 2) for e in tree.split("\0") if e]
    entries = [e for e in entries if e[0] != "160000"]  # submodules
    proc = subprocess.Popen(["git", "--git-dir", str(gitdir), "cat-file", "--batch"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    import threading
    threading.Thread(target=lambda: (proc.stdin.write("".join(e[1] + "\n" for e in entries).encode()),
                                     proc.stdin.close()), daemon=True).start()
    for mode, sha, path in entries:
        header = proc.stdout.readline().decode().split()
        if len(header) < 3 or header[1] == "missing":
            continue
        data = proc.stdout.read(int(header[2]))
        proc.stdout.read(1)
        dest = wt / path
        dest.parent.mkdir(parents=True, exist_ok=True)
        if mode == "120000":
            os.symlink(data.decode(), dest)
        else:
            dest.write_bytes(data)
            if mode == "100755":
                dest.chmod(0o755)
    proc.wait()


def key(producer, o):
    return (producer, o["group"], o["kind"], o["namespace"], o["name"])


def build_objects(flate, root, entry, sources):
    """(objects by key, Kustomizations by status) of `flate build -o json`,
    or (None, message) when it fails."""
    rc, so, se, _ = run([flate, "build", Path(entry).name, "--repo", str(root), "--path", entry,
                         "-o", "json", "--show-secrets"] + realworld.source_args(Path(root), sources))
    try:
        j = json.loads(so)
    except Exception:
        return None, f"exit {rc}: {se.strip()[:300]}"
    objs, status = {}, {}
    for k in j.get("kustomizations", []):
        ks = f"Kustomization {k['namespace']}/{k['name']}"
        status[f"{k['namespace']}/{k['name']}"] = k["status"]
        for o in k.get("objects", []) or []:
            labels = (o.get("metadata") or {}).get("labels") or {}
            rs = labels.get("resourceset.fluxcd.controlplane.io/name")
            prod = ks
            if rs:
                prod = f"ResourceSet {labels.get('resourceset.fluxcd.controlplane.io/namespace', '')}/{rs}"
            objs[key(prod, meta(o))] = o
    hr_objects = {(m["namespace"], m["name"]): o for (_, g, kind, *_), o in objs.items()
                  for m in [meta(o)] if kind == "HelmRelease" and g == "helm.toolkit.fluxcd.io"}
    for h in j.get("helmreleases", []) or []:
        hr = f"HelmRelease {h['namespace']}/{h['name']}"
        for o in h.get("objects", []) or []:
            objs[key(hr, meta(o))] = o
        # A release reading valuesFrom: its effective values pair as an
        # object of their own.
        spec = (hr_objects.get((h["namespace"], h["name"])) or {}).get("spec") or {}
        if spec.get("valuesFrom"):
            objs[(hr, "flate.dev", "Values", h["namespace"], h["name"])] = h.get("values")
    return objs, status


def meta(o):
    api = o.get("apiVersion", "")
    group = api.rsplit("/", 1)[0] if "/" in api else ""
    md = o.get("metadata") or {}
    return {"group": group, "kind": o.get("kind", ""), "namespace": md.get("namespace", "") or "",
            "name": md.get("name", "") or ""}


def check(diff, base, head, bstatus, hstatus):
    """What disagrees between the diff and the two builds."""
    bad = []
    pairs = diff.get("pairs", [])
    seen_b, seen_h = set(), set()
    for p in pairs:
        prod = f"{p['producer']['kind']} {p['producer']['name']}"
        k = (prod, p["group"], p["kind"], p["namespace"], p["name"])
        st = p["status"]
        if st == "unchanged":
            if k not in base or k not in head:
                bad.append(f"unchanged but missing in a build: {k}")
            elif base[k] != head[k]:
                bad.append(f"unchanged but different in the builds: {k}")
            seen_b.add(k)
            seen_h.add(k)
        elif st == "added":
            if k not in head:
                bad.append(f"added but not in the head build: {k}")
            if k in base and base[k] == head.get(k):
                bad.append(f"added but the same in both builds: {k}")
            seen_h.add(k)
        elif st == "removed":
            if k not in base:
                bad.append(f"removed but not in the base build: {k}")
            seen_b.add(k)
        elif st in ("changed", "moved"):
            # The pair may join two names (a generated ConfigMap's new hash:
            # `baseName`) or two producers (moved: `movedFrom`).
            bprod = prod
            if p.get("movedFrom"):
                bprod = f"{p['movedFrom']['kind']} {p['movedFrom']['name']}"
            bk = (bprod, p["group"], p["kind"], p["namespace"], p.get("baseName") or p["name"])
            if k not in head:
                bad.append(f"{st} but not in the head build: {k}")
            if bk not in base:
                bad.append(f"{st} but not in the base build: {bk}")
            elif k in head and base[bk] == head[k] and st == "changed":
                bad.append(f"changed but the same in both builds: {k}")
            seen_b.add(bk)
            seen_h.add(k)
    for k in base:
        if k not in seen_b and not skipped_producer(k, diff):
            bad.append(f"in the base build, not in the diff: {k}")
    for k in head:
        if k not in seen_h and not skipped_producer(k, diff):
            bad.append(f"in the head build, not in the diff: {k}")
    for ks, st in hstatus.items():
        if st == "rendered" and bstatus.get(ks) == "rendered":
            for e in diff.get("errors", []):
                if ks in json.dumps(e):
                    bad.append(f"renders on both sides when built apart, the diff says: {json.dumps(e)[:300]}")
    return bad


def skipped_producer(k, diff):
    """The diff leaves out the objects of a Kustomization that failed or
    was skipped on one side: so do we."""
    name = k[0].split(" ", 1)[1]
    for s in diff.get("skipped", []) + diff.get("errors", []) + diff.get("problems", []):
        if name in json.dumps(s):
            return True
    return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mirrors", type=Path, required=True)
    ap.add_argument("--flate", required=True)
    ap.add_argument("--commits", type=int, default=10)
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--out", type=Path)
    ap.add_argument("--work", type=Path)
    a = ap.parse_args()
    flate = os.path.abspath(a.flate)
    work = a.work or Path(tempfile.mkdtemp(prefix="diffreplay-"))
    work.mkdir(parents=True, exist_ok=True)
    report = []
    tot = collections.Counter()
    times = []
    # (Kustomize-only repositories have no cluster entry.)
    for r in (r for r in realworld.read_repos() if r["entries"]):
        if a.only and r["dir"] not in a.only:
            continue
        gitdir = a.mirrors / r["dir"] / "repo"
        if not gitdir.is_dir():
            continue
        try:
            commits = git(gitdir, "rev-list", "--first-parent", f"-{a.commits}", r["commit"]).split()
        except RuntimeError as e:
            print(f"{r['name']}: {e}", file=sys.stderr)
            continue
        head_wt, base_wt = work / (r["dir"] + "-head"), work / (r["dir"] + "-base")
        for wt in (head_wt, base_wt):
            if not wt.exists():
                git(gitdir, "worktree", "add", "--no-checkout", "--detach", "-f", str(wt), r["commit"])
        for c in commits:
            try:
                parent = git(gitdir, "rev-parse", f"{c}^").strip()
            except RuntimeError:
                continue
            checkout(gitdir, head_wt, c)
            checkout(gitdir, base_wt, parent)
            changed = git(gitdir, "diff", "--name-only", parent, c).split()
            subject = git(gitdir, "log", "-1", "--format=%s", c).strip()
            for e in r["entries"]:
                hroot, broot = head_wt / r["root"], base_wt / r["root"]
                if not (hroot / e).is_dir():
                    tot["entry absent at the commit"] += 1
                    continue
                rc, so, se, dt = run([flate, "diff", Path(e).name, "--repo", str(hroot), "--path", e,
                                      "--base", parent, "-o", "json", "--no-default-ignores"]
                                     + realworld.source_args(Path(hroot), r["sources"]))
                row = {"repo": r["name"], "commit": c[:10], "subject": subject[:80], "entry": e,
                       "exit": rc, "seconds": round(dt, 3), "problems": []}
                times.append(dt)
                try:
                    d = json.loads(so)["environments"][0]
                except Exception:
                    row["problems"].append(f"no diff document (exit {rc}): {se.strip()[:400]}")
                    tot["no document"] += 1
                    report.append(row)
                    continue
                row["counts"] = d.get("counts")
                # A cluster the commit adds: its base is empty.
                base, bstatus = build_objects(flate, broot, e, r["sources"]) if (broot / e).is_dir() else ({}, {})
                head, hstatus = build_objects(flate, hroot, e, r["sources"])
                if base is None or head is None:
                    row["problems"].append(f"a build failed: {bstatus if base is None else hstatus}")
                    tot["build failed"] += 1
                else:
                    row["problems"] += check(d, base, head, bstatus, hstatus)
                    c_ = d.get("counts", {})
                    moved = sum(c_.get(x, 0) for x in ("changed", "added", "removed", "moved"))
                    under = [f for f in changed if f.startswith(r["root"].rstrip("/") + "/" if r["root"] != "." else "")]
                    yaml_changed = [f for f in under if f.endswith((".yaml", ".yml"))]
                    touched = [f for p in d.get("problems", []) for f in p.get("touched", [])]
                    row["touched"] = touched[:10]
                    # Values the change writes that a patch replaces: the
                    # diff says why nothing changed.
                    overridden = [n for n in d.get("notes", []) if n.endswith("[patch-overrides-value]")]
                    row["overridden"] = overridden[:5]
                    if moved == 0 and not touched and not overridden and yaml_changed and not d.get("versions"):
                        row["quiet"] = yaml_changed[:5]
                tot["commits x entries"] += 1
                tot["with problems"] += bool(row["problems"])
                report.append(row)
                flag = "PROBLEM" if row["problems"] else ("quiet" if row.get("quiet") else
                                                          ("touched" if row.get("touched") else "ok"))
                print(f"{r['name']} {c[:10]} {e}: exit {rc} {dt:.2f}s {d.get('counts')} {flag}", file=sys.stderr)
                for p in row["problems"][:5]:
                    print(f"    {p}", file=sys.stderr)
    # A commit is quiet when it changes YAML files of the repository (out
    # of dot-directories) and no entry's diff shows a change or names a
    # touched file it could not render: to be looked at.
    by_commit = collections.defaultdict(list)
    for row in report:
        by_commit[(row["repo"], row["commit"])].append(row)
    quiet = []
    for (repo, commit), rows in by_commit.items():
        if all("quiet" in x for x in rows):
            files = sorted({f for x in rows for f in x["quiet"]
                            if not any(part.startswith(".") for part in f.split("/")[:-1])})
            if files:
                quiet.append({"repo": repo, "commit": commit, "subject": rows[0]["subject"], "files": files})
    tot["quiet commits"] = len(quiet)
    tot["commits"] = len(by_commit)
    tot["with touched notes"] = sum(1 for x in report if x.get("touched"))
    tot["with overridden-value notes"] = sum(1 for x in report if x.get("overridden"))
    times.sort()
    summary = {"totals": dict(tot),
               "diff_seconds": {"median": times[len(times) // 2] if times else None,
                                "max": times[-1] if times else None},
               "quiet": quiet,
               "rows": report}
    text = json.dumps(summary, indent=1)
    if a.out:
        a.out.write_text(text)
    print(json.dumps(summary["totals"]), json.dumps(summary["diff_seconds"]))


if __name__ == "__main__":
    main()
