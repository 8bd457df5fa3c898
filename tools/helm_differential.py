"""Shared part of the random differential scripts (regex_differential.py,
sprig_differential.py): render one-template charts with Helm and flate and
compare what they print."""
import base64
import concurrent.futures as cf
import os
import random
import re
import subprocess
import sys
import tempfile

CHART_YAML = "apiVersion: v2\nname: c\nversion: 0.1.0\n"
# Seconds a render may take before it counts as a timeout.
TIMEOUT = 30


def arguments():
    """The scripts' command line, FLATE HELM [COUNT] [SEED]: (flate, helm,
    count, a generator seeded with SEED)."""
    flate, helm = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 500
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    return flate, helm, count, random.Random(seed)


class Draws:
    """The base of the scripts' random generators: `rng` and `chance`."""

    def __init__(self, rng):
        self.rng = rng

    def chance(self, p):
        return self.rng.random() < p


def render(binary, is_helm, chart):
    """("ok", output) or ("error", message): the output is the base64 value of
    a top-level `out:` key when there is one, else standard output; the
    message is standard error without Helm's "Error: " prefix and hint."""
    if is_helm:
        args = [binary, "template", "x", chart]
    else:
        args = [binary, "helm", "template", chart, "--name", "x"]
    return run_args(args)


def run_args(args):
    """[`render`] of the command line `args`."""
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        # (Helm can take minutes, or run out of memory, printing a map that
        # holds itself.)
        return "timeout", ""
    if p.returncode == 0:
        m = re.search(r'^out: "([A-Za-z0-9+/=]*)"$', p.stdout, re.M)
        return "ok", base64.b64decode(m.group(1)).decode("utf-8", "replace") if m else p.stdout
    # (Helm v4 logs warnings and the error itself as `level=...` lines
    # before its message.)
    err = "\n".join(l for l in p.stderr.split("\n") if not l.startswith("level=")).strip()
    err = re.sub(r"\n*Use --debug flag to render out invalid YAML\n*$", "", err)
    return "error", re.sub(r"^Error: (flate: )?", "", err)


def compare(flate, helm, inputs, template, values="", noun="inputs"):
    """Renders `template(input)` for every input with both tools (two at a
    time), prints each input whose result differs and a summary line."""
    def one(item):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "templates"))
            open(os.path.join(d, "Chart.yaml"), "w").write(CHART_YAML)
            open(os.path.join(d, "values.yaml"), "w").write(values)
            open(os.path.join(d, "templates", "t.yaml"), "w").write(template(item))
            return item, render(helm, True, d), render(flate, False, d)

    same = {"ok": 0, "error": 0}
    differ = 0
    varies = 0
    with cf.ThreadPoolExecutor(2) as ex:
        for item, h, f in ex.map(one, inputs):
            if h == f:
                same[h[0]] += 1
            elif re.search(r"0xc[0-9a-f]{9}|(?<![0-9])8[2-9][0-9]{10}(?![0-9])", h[1]):
                # Helm printed a pointer (`.Capabilities` inside a map), in
                # hexadecimal or (`%d`) in decimal, 0xc000000000 and up:
                # an address that changes from run to run.
                varies += 1
            else:
                differ += 1
                print("DIFF %s\n  helm:  %s %r\n  flate: %s %r" % (item, h[0], h[1][:300], f[0], f[1][:300]))
    print("%s: %d, identical: %d (%d render, %d fail alike), Helm prints an address: %d, different: %d"
          % (noun, len(inputs), same["ok"] + same["error"], same["ok"], same["error"], varies, differ))


def run(draw, template, values="", noun="inputs"):
    """The scripts' main: COUNT inputs drawn with `draw(rng)` (each once,
    sorted), compared as `compare` does."""
    flate, helm, count, rng = arguments()
    inputs = sorted({draw(rng) for _ in range(count)})
    compare(flate, helm, inputs, template, values, noun=noun)
