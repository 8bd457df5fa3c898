#!/usr/bin/env python3
"""Times `flate build` over the real-world set, for one or more flate
executables side by side (each cluster rendered by each executable in turn,
ROUNDS times): CPU time (user + system, from the kernel's account of the
child) and wall-clock time per render, the median of the rounds.

Prints per executable the sum over all clusters of those medians, and for
each executable after the first the median over clusters of its CPU time
divided by the first's.

Usage: tools/realworld/buildtime.py DIR FLATE [FLATE...] [--rounds N]
  DIR    where the repositories of tools/realworld/repos.txt are checked out
         (DIR/OWNER+NAME, as tools/realworld/run.py leaves them)
"""

import argparse
import os
import statistics
import subprocess
import time
from pathlib import Path


def repos(listing):
    for line in listing.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        owner_name, _commit, root, *rest = line.split()
        entries = [t for t in rest if not t.startswith("--source=")]
        sources = [t[len("--source="):] for t in rest if t.startswith("--source=")]
        yield owner_name, root, entries, sources


def timed(cmd):
    """(CPU seconds, wall seconds) of one run of `cmd`, output discarded."""
    t = time.monotonic()
    with open(os.devnull, "wb") as null:
        p = subprocess.Popen(cmd, stdout=null, stderr=null)
        _, _, usage = os.wait4(p.pid, 0)
    return usage.ru_utime + usage.ru_stime, time.monotonic() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir", type=Path)
    ap.add_argument("flate", nargs="+")
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    listing = Path(__file__).with_name("repos.txt")
    rows = []
    for owner_name, root, entries, sources in repos(listing):
        base = a.dir / owner_name.replace("/", "+") / root
        if not base.is_dir():
            print(f"skipped (not checked out): {owner_name}")
            continue
        for e in entries:
            args = ["build", Path(e).name, "--repo", str(base), "--path", e, "-o", "json"]
            for src in sources:
                ref, _, rel = src.rpartition("=")
                args += ["--source", f"{ref}={(base / rel).resolve()}"]
            samples = [[] for _ in a.flate]
            for _ in range(a.rounds):
                for i, f in enumerate(a.flate):
                    samples[i].append(timed([f] + args))
            med = [
                (statistics.median(c for c, _ in s), statistics.median(w for _, w in s))
                for s in samples
            ]
            rows.append((owner_name, e, med))
    print(f"{len(rows)} clusters, {a.rounds} rounds, median per cluster")
    for i, f in enumerate(a.flate):
        cpu = sum(r[2][i][0] for r in rows) * 1000
        wall = sum(r[2][i][1] for r in rows) * 1000
        line = f"{f}: CPU {cpu:.0f} ms, wall {wall:.0f} ms"
        if i > 0:
            ratio = statistics.median(r[2][i][0] / r[2][0][0] for r in rows if r[2][0][0] > 0)
            line += f"; CPU per cluster against the first: median {ratio:.3f}"
        print(line)


if __name__ == "__main__":
    main()
