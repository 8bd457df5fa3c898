#!/usr/bin/env python3
"""Writes tools/musl/hot-functions.txt: the functions flate runs, in the order to lay them out.

The musl link of tools/release-build.sh (tools/musl/link.sh) lays these
functions out first and together in the executable, so a run faults in a
few stretches of code instead of pages all over its 12 MB of text (each
fault costs microseconds in a virtual machine; docs/benchmarks.md, "Code
laid out by use").

How: builds the distributed executable with its symbols kept
(`FLATE_DIST_SYMBOLS=1 tools/release-build.sh`), runs it under valgrind's
callgrind on workloads made of this repository's own material (every chart
fixture of fixtures/helm, a sample of fixtures/kustomize, and `build`,
`check`, `pins` and `talos gen` on the example tree), and collects the
functions each workload ran. The smallest workload's functions come
first, then those the next smallest adds, and so on. Names are
written demangled, without the hashes that change from build to build
(tools/musl/normalize.sed), so the list outlives small changes to the code;
link.sh maps them back to the symbols of the build it links.

Usage: tools/musl/hot-functions.py [--jobs N]   (needs valgrind and musl-gcc;
about two minutes on two cores)
"""

import argparse
import concurrent.futures
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tools/musl/hot-functions.txt"
NAME = re.compile(r"^c?fn=\((\d+)\)(?: (.*))?$")
RECURSION = re.compile(r"'\d+$")


def workloads(exe):
    """(name, cwd, argv) of every workload."""
    helm = ROOT / "fixtures/helm"
    for case in sorted(helm.iterdir()):
        if not (case / "chart").is_dir() or not (case / "args").is_file():
            continue
        args = (case / "args").read_text().split("\n")
        args = [a for a in args if a != ""]
        yield f"helm/{case.name}", case, [exe, "helm", "template", "chart", *args]
    kust = sorted((ROOT / "fixtures/kustomize").iterdir())
    for case in kust[::6]:
        if (case / "in").is_dir():
            yield f"kustomize/{case.name}", case / "in", [exe, "kustomize", "build", "."]
    for env in ("production", "staging"):
        yield f"build/{env}", ROOT, [exe, "build", env]
        yield f"build-json/{env}", ROOT, [exe, "build", env, "-o", "json"]
    yield "check", ROOT, [exe, "check"]
    yield "pins", ROOT, [exe, "pins", "production"]
    yield "talos", ROOT, [exe, "talos", "gen", "production"]


def functions(work, name, cwd, argv):
    """The mangled names of the functions one workload ran, in first-run order."""
    out = Path(work) / (re.sub(r"[^A-Za-z0-9]+", "_", name) + ".out")
    subprocess.run(
        ["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={out}", *argv],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    if not out.exists():
        sys.exit(f"hot-functions: callgrind wrote nothing for {name}: {shlex.join(argv)}")
    names = {}
    for line in out.read_text(errors="replace").splitlines():
        m = NAME.match(line)
        # (unnamed code shows as an address; "(below main)" is callgrind's own)
        if m and m.group(2) and not m.group(2).startswith(("0x", "(")):
            # (a name callgrind gives a deeper recursion, `f'2`, is f)
            names.setdefault(int(m.group(1)), RECURSION.sub("", m.group(2)))
    # callgrind numbers names as it first meets them
    return [names[k] for k in sorted(names)]


def normalize(mangled):
    """Demangled, hash-free names, one per mangled name (c++filt, normalize.sed)."""
    text = "\n".join(mangled) + "\n"
    demangled = subprocess.run(["c++filt"], input=text, capture_output=True, text=True, check=True).stdout
    plain = subprocess.run(
        ["sed", "-f", str(ROOT / "tools/musl/normalize.sed")],
        input=demangled,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    result = plain.split("\n")[: len(mangled)]
    assert len(result) == len(mangled)
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--keep", type=Path, help="also write each workload's functions (mangled, in run order) to this directory")
    opts = ap.parse_args()
    exe = subprocess.run(
        [str(ROOT / "tools/release-build.sh")],
        env={**os.environ, "FLATE_DIST_SYMBOLS": "1"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if "musl" not in exe:
        sys.exit("hot-functions: the executable was not linked with musl (is musl-gcc installed?)")
    jobs = list(workloads(exe))
    with tempfile.TemporaryDirectory() as work, concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
        runs = list(pool.map(lambda j: functions(work, *j), jobs))
    if opts.keep:
        opts.keep.mkdir(parents=True, exist_ok=True)
        (opts.keep / "exe").write_text(exe + "\n")
        for (name, _, _), ran in zip(jobs, runs):
            (opts.keep / (re.sub(r"[^A-Za-z0-9]+", "_", name) + ".txt")).write_text("\n".join(ran) + "\n")
    # The functions of the smallest workload first (what every run
    # starts with), then those the next smallest adds, and so on: a
    # function's place is decided by the smallest workload that runs it,
    # ties by the next. Each workload's code then lies in few stretches.
    # (Measured against ordering by how many workloads run a function:
    # fewer 64 KiB windows of code for chart renders and kustomize builds,
    # docs/benchmarks.md "Code laid out by use".)
    sets = sorted((set(normalize(ran)) for ran in runs), key=len)
    names = sorted(set().union(*sets))
    ranked = sorted(names, key=lambda n: (tuple(n not in s for s in sets), n))
    header = [
        "# Written by tools/musl/hot-functions.py: the functions flate runs, in the order to lay them out",
        f"# ({len(jobs)} workloads, {len(ranked)} functions). Read by tools/musl/link.sh.",
    ]
    OUT.write_text("\n".join(header + ranked) + "\n")
    print(f"hot-functions: {len(ranked)} functions from {len(jobs)} workloads -> {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
