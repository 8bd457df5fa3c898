#!/usr/bin/env python3
"""Differential check of Go regular expressions: Helm against flate.

Generates random patterns over an alphabet of Go's regexp syntax (classes,
escapes, repetitions, groups, flags, non-ASCII letters and digits), and for
each one renders a one-template chart with both tools:

    {{ mustRegexFindAll PATTERN SUBJECT -1 | toJson }} for a few subjects

then compares standard output and the error message (Helm's "Error: "
prefix and flate's wording of the command line are set aside; the template
error itself must match).

Usage: tools/regex_differential.py FLATE HELM [COUNT] [SEED]
Prints one line per differing pattern and a summary.
"""
import concurrent.futures as cf
import os
import random
import re
import subprocess
import sys
import tempfile

ATOMS = [
    "a", "b", "k", "K", "é", "٢", "1", "_", " ", ".", "^", "$", "|", "-", ",", "&", "~", ":",
    "\\d", "\\D", "\\w", "\\W", "\\s", "\\S", "\\b", "\\B", "\\A", "\\z", "\\pL", "\\PN",
    "\\p{Greek}", "\\p{^L}", "\\Q", "\\E", "\\x41", "\\x{e9}", "\\01", "\\1", "\\q", "\\.",
    "\\-", "\\]", "\\[", "[", "]", "[^", "[:alpha:]", "[:^digit:]", "[:foo:]", "(", ")", "(?:",
    "(?i)", "(?s)", "(?m)", "(?U)", "(?-i)", "(?i:", "(?P<n>", "(?<m>", "(?x)", "*", "+", "?",
    "*?", "{2}", "{1,3}", "{2,}", "{,2}", "{", "}", "{1001}", "{0}",
]
SUBJECTS = ["", "abc", "a-b_c k", "héllo wörld ٢٣", "A\u000bB\tC\nd", "[x]&~:{2}", "ſK1é"]


def pattern(rng):
    return "".join(rng.choice(ATOMS) for _ in range(rng.randint(1, 6)))


def go_string(s):
    out = []
    for c in s:
        if c in '"\\':
            out.append("\\" + c)
        elif c == "\n":
            out.append("\\n")
        elif c == "\t":
            out.append("\\t")
        elif ord(c) < 32:
            out.append("\\x%02x" % ord(c))
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def render(tool, chart):
    if tool[1] == "helm":
        args = [tool[0], "template", "x", chart]
    else:
        args = [tool[0], "helm", "template", chart, "--name", "x"]
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode == 0:
        return "ok", p.stdout
    m = re.search(r"(template: .*)", p.stderr)
    return "error", m.group(1) if m else p.stderr.strip()


def one(flate, helm, pat):
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "templates"))
        open(os.path.join(d, "Chart.yaml"), "w").write("apiVersion: v2\nname: c\nversion: 0.1.0\n")
        lines = [
            "s%d: {{ mustRegexFindAll %s %s -1 | toJson | quote }}" % (i, go_string(pat), go_string(s))
            for i, s in enumerate(SUBJECTS)
        ]
        open(os.path.join(d, "templates", "t.yaml"), "w").write("\n".join(lines) + "\n")
        return pat, render((helm, "helm"), d), render((flate, "flate"), d)


def main():
    flate, helm = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 500
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    rng = random.Random(seed)
    pats = sorted({pattern(rng) for _ in range(count)})
    same = {"ok": 0, "error": 0}
    differ = 0
    with cf.ThreadPoolExecutor(2) as ex:
        for pat, h, f in ex.map(lambda p: one(flate, helm, p), pats):
            if h == f:
                same[h[0]] += 1
            else:
                differ += 1
                print("DIFF %r\n  helm:  %r\n  flate: %r" % (pat, h, f))
    print("patterns: %d, identical: %d (%d render, %d fail alike), different: %d"
          % (len(pats), same["ok"] + same["error"], same["ok"], same["error"], differ))


if __name__ == "__main__":
    main()
