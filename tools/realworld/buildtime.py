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

import run as realworld  # this directory's run.py: repos.txt


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
    rows = []
    for r in realworld.read_repos():
        owner_name, entries, sources = r["name"], r["entries"], r["sources"]
        base = a.dir / r["dir"] / r["root"]
        if not base.is_dir():
            print(f"skipped (not checked out): {owner_name}")
            continue
        for e in entries:
            args = ["build", Path(e).name, "--repo", str(base), "--path", e, "-o", "json"]
            args += realworld.source_args(base, sources)
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
