#!/usr/bin/env python3
"""Differential check of `printf`: Helm against flate.

Draws random format specifications (a verb, up to two flags of `-+ 0#`, a
width, a precision) and one argument from a pool of integers, floats,
strings, booleans, nil, lists, maps (some holding nil) and Sprig's int64
results, renders each as

    {{ printf "[%SPEC]" ARG }}

in a one-template chart with both tools, and compares what they print.

Usage: tools/printf_differential.py FLATE HELM [COUNT] [SEED]
Prints one line per differing format and a summary.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import helm_differential  # noqa: E402

VERBS = list("vdsqxXobOcUeEfFgGtT")
ARGS = ["5", "-5", "0", "255", "-255", "1.5", "-0.25", "1e6", "3.0", '"abc"', '""', '"h\\u00e9llo"',
        "true", "nil", "(list 1 2)", '(dict "a" 1)', "(add 1 2)", '(list "a" 1.5)', "12345678",
        "0.000012", "65", "1114112", '(list nil "a")', '(dict "k" nil)', "(until 2)",
        '(splitList "," "a,b")', "(chunk 1 (list 1 2))", '(regexFindAll "x" "y" -1)']


def spec(rng):
    flags = "".join(rng.sample(["-", "+", " ", "0", "#"], rng.randint(0, 2)))
    width = rng.choice(["", "", "3", "8", "12"])
    prec = rng.choice(["", "", ".0", ".2", ".5"])
    return '"[%%%s%s%s%s]" %s' % (flags, width, prec, rng.choice(VERBS), rng.choice(ARGS))


def template(call):
    return "out: {{ printf %s | b64enc | quote }}\n" % call


def main():
    helm_differential.run(spec, template, noun="formats")


if __name__ == "__main__":
    main()
