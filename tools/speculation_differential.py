#!/usr/bin/env python3
"""Differential check of changes one template makes for the next: Helm
against flate, on charts large enough for flate to run their templates
speculatively (docs/helm.md).

Each drawn chart has ten templates and three partials that pass one of
flate's two thresholds for running templates on every thread: 94 KB of
comments each (every other chart), or 400 short comments each (1,200
actions in 14 KB, the others). Each template makes zero to three random changes that
later templates see in Helm: `set`/`unset` on `.Values`, on a map inside
it and on `$`, `merge`/`mergeOverwrite` into a values map, a change made
through a `dict` holding a values map; or changes that later templates do
not see (on a `deepCopy`, on a `dict` of its own). Then it prints what it
reads: the whole of `.Values` as JSON, a key another template may have
set, `$`'s extra key, `.Template.Name`. Both tools render the chart and
their whole outputs are compared (or their errors, as
helm_differential.py words them).

Usage: tools/speculation_differential.py FLATE HELM [COUNT] [SEED]
Prints each chart whose output differs and a summary.
"""
import concurrent.futures as cf
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import helm_differential  # noqa: E402

VALUES = """m:
  a: 1
  inner: {x: 1}
l: [1, 2]
s: text
n: 3
"""
PADS = ["{{/*" + ("padding " * 11750) + "*/}}\n", "{{/* p */}}\n" * 400]
KEYS = ["k0", "k1", "k2"]


def value(rng):
    return rng.choice(["1", "-2", "2.5", '"v"', "(dict \"a\" 7)", "(list 1 \"x\")", "nil", "true",
                       ".Values.n", "(add .Values.n 1)", ".Values.m.inner"])


def change(rng):
    k = rng.choice(KEYS)
    return rng.choice([
        '{{- $_ := set .Values "%s" %s }}' % (k, value(rng)),
        '{{- $_ := unset .Values "%s" }}' % k,
        '{{- $_ := set .Values.m "a" %s }}' % value(rng),
        '{{- $_ := set .Values.m.inner "%s" %s }}' % (k, value(rng)),
        '{{- $_ := merge .Values.m (dict "b" %s) }}' % value(rng),
        '{{- $_ := mergeOverwrite .Values.m (dict "a" %s "c" 1) }}' % value(rng),
        '{{- $_ := set $ "Extra" %s }}' % value(rng),
        '{{- $d := dict "v" .Values.m }}{{- $_ := set $d.v "via" %s }}' % value(rng),
        '{{- $c := deepCopy .Values.m }}{{- $_ := set $c "copy" %s }}' % value(rng),
        '{{- $o := dict "own" 1 }}{{- $_ := set $o "own" %s }}' % value(rng),
        '{{- $_ := set .Values "%s" (deepCopy .Values.m) }}' % k,
    ])


def reads(rng, i):
    out = []
    for j, r in enumerate(rng.sample([
        "{{ .Values | toJson }}", "{{ .Values.%s | toJson }}" % rng.choice(KEYS),
        "{{ $.Extra | toJson }}", "{{ .Template.Name }}", "{{ .Values.m | toJson }}",
        "{{ hasKey .Values \"%s\" }}" % rng.choice(KEYS),
    ], rng.randint(1, 3))):
        out.append("r%d_%d: %s" % (i, j, r))
    return "\n".join(out)


def draw(rng):
    files = []
    for i in range(10):
        body = "".join(change(rng) for _ in range(rng.choice([0, 0, 1, 1, 2, 3])))
        files.append(body + "\n" + reads(rng, i) + "\n")
    return files


def one(flate, helm, files, pad):
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "templates"))
        open(os.path.join(d, "Chart.yaml"), "w").write(helm_differential.CHART_YAML)
        open(os.path.join(d, "values.yaml"), "w").write(VALUES)
        for p in range(3):
            open(os.path.join(d, "templates", "_pad%d.tpl" % p), "w").write(pad)
        for i, body in enumerate(files):
            open(os.path.join(d, "templates", "t%02d.yaml" % i), "w").write(body)
        return helm_differential.render(helm, True, d), helm_differential.render(flate, False, d)


def main():
    flate, helm, count, rng = helm_differential.arguments()
    charts = [draw(rng) for _ in range(count)]
    same = {"ok": 0, "error": 0}
    differ = timeouts = 0
    with cf.ThreadPoolExecutor(2) as ex:
        pads = [PADS[i % 2] for i in range(len(charts))]
        for files, (h, f) in zip(charts, ex.map(lambda c, p: one(flate, helm, c, p), charts, pads)):
            if h[0] == "timeout":
                timeouts += 1
            elif h == f:
                same[h[0]] += 1
            else:
                differ += 1
                print("DIFF\n%s\n  helm:  %s %r\n  flate: %s %r" % (
                    "\n".join("--- t%02d\n%s" % (i, b) for i, b in enumerate(files)),
                    h[0], h[1][:600], f[0], f[1][:600]))
    print("charts: %d, identical: %d (%d render, %d fail alike), Helm timed out: %d, different: %d"
          % (count, same["ok"] + same["error"], same["ok"], same["error"], timeouts, differ))


if __name__ == "__main__":
    main()
