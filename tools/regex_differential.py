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
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import helm_differential  # noqa: E402

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


def template(pat):
    lines = [
        "s%d: {{ mustRegexFindAll %s %s -1 | toJson | quote }}" % (i, go_string(pat), go_string(s))
        for i, s in enumerate(SUBJECTS)
    ]
    return "\n".join(lines) + "\n"


def main():
    helm_differential.run(pattern, template, noun="patterns")


if __name__ == "__main__":
    main()
