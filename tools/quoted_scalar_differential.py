#!/usr/bin/env python3
"""Differential check of YAML texts where a quoted scalar is followed by
more on its line: Helm's `fromYaml`/`fromYamlArray` against flate's.

go-yaml (Helm's reader) reads the first document only and then stops, and
its scanner takes a scalar at a block collection's indentation for a key
it requires: whether such a text reads, and the error and line when it
does not, depend on where the scalar stands (the root of the document, a
key of a mapping or a sequence, an indentless sequence), what follows it
(a plain scalar, a flow collection, a quoted scalar, a comment, a `:`),
and the lines after it. flate's parser (yaml-rust2) refuses all of these
at once, and flate works out go-yaml's answer (src/yaml/goerr.rs).

Draws COUNT texts from SEED, renders them all in one chart with each
tool (one `helm template` run per 200 texts), and reports each text
whose results differ.

Usage: tools/quoted_scalar_differential.py FLATE HELM [COUNT] [SEED]
"""
import json
import os
import random
import subprocess
import sys
import tempfile

TEMPLATE = """out:
{{- range .Values.texts }}
  - {{ printf "%q => %s %s" . (fromYaml . | toJson) (fromYamlArray . | toJson) | b64enc }}
{{- end }}
"""

CONTEXTS = ["", "x: 1\n", "- 1\n", "k:\n  x: 1\n", "k:\n", "- x: 1\n", "---\n", "# c\n",
            "x: [1]\n", "- - 1\n", "a:\n  - 1\n", "a:\n- 1\n", "? x\n: y\n", "x: |\n  t\n"]
QUOTED = ['"a"', "'a'", '"x y"', '"a\\"b"', "'it''s'"]
TRAILING = [" b", " b c", " b: c", " #c", " b #c: d", " [1]", " {a: 1}", " - x", " b:", ' "c"', "",
            ' b "c: d"', " [a: 1]", " {a: [1, 2]} # x", " b\tc", ' "c" d', " [1]: x", " b # c",
            " b:c"]
AFTER = ["", "\n", "\ny: 2", "\n  c", "\n  c\ny: 2", "\n\n# c\n", "\n  # c\n", "\n  c: d", "\n- z"]


def draw(rng):
    ctx = rng.choice(CONTEXTS)
    if ctx in ("k:\n  x: 1\n", "k:\n"):
        indent = "  "
    elif ctx == "- x: 1\n":
        indent = rng.choice(["  ", ""])
    elif ctx == "- - 1\n":
        indent = rng.choice(["  ", "", "    "])
    else:
        indent = rng.choice(["", "", "  "])
    prop = rng.choice(["", "", "&x ", "!!str "])
    return ctx + indent + prop + rng.choice(QUOTED) + rng.choice(TRAILING) + rng.choice(AFTER)


def render(cmd, chart, texts):
    with open(os.path.join(chart, "values.yaml"), "w") as f:
        json.dump({"texts": texts}, f)
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.stdout + p.stderr


def main():
    flate, helm = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
    texts = [draw(rng) for _ in range(count)]
    same = 0
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "templates"))
        with open(os.path.join(d, "Chart.yaml"), "w") as f:
            f.write("apiVersion: v2\nname: c\nversion: 0.1.0\n")
        with open(os.path.join(d, "templates", "t.yaml"), "w") as f:
            f.write(TEMPLATE)
        for start in range(0, count, 200):
            batch = texts[start:start + 200]
            h = render([helm, "template", "r", d], d, batch).splitlines()
            f = render([flate, "helm", "template", d, "--name", "r"], d, batch).splitlines()
            if len(h) != len(f) or len(h) < len(batch):
                print("RUN DIFF (batch %d)\n  helm:  %s\n  flate: %s" % (start, h[:3], f[:3]))
                continue
            for a, b in zip(h[-len(batch):], f[-len(batch):]):
                if a == b:
                    same += 1
                    continue
                dec = lambda l: subprocess.run(["base64", "-d"], input=l.split("- ", 1)[-1],
                                               capture_output=True, text=True).stdout
                print("DIFF\n  helm:  %s\n  flate: %s" % (dec(a), dec(b)))
    print("texts: %d, identical: %d, different: %d" % (count, same, count - same))


if __name__ == "__main__":
    main()
