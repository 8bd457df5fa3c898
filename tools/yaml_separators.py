#!/usr/bin/env python3
"""Differential check of YAML text holding LINE SEPARATOR (U+2028) and
PARAGRAPH SEPARATOR (U+2029): generated documents (separators, line feeds
and blanks in plain, quoted and block scalars, flow collections, keys,
comments and list items) built by `kubectl kustomize` (the oracle) and by
`flate kustomize build`; prints the counts (identical, different, both
fail, one fails) and the first cases that differ.

Usage: tools/yaml_separators.py FLATE_BIN [N] [SEED]
(N documents of each of two shapes; docs/fidelity-kustomize.md gives the
figures for N=600, SEED=7.)"""

import os
import random
import subprocess
import sys
import tempfile

LS, PS = "\u2028", "\u2029"


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def brk(self):
        return self.r.choice(["\n", LS, PS])

    def ws(self):
        return self.r.choice(["", " ", "  ", "\t", " \t"])

    def scalar(self, ind, flow=False):
        r, pad = self.r, " " * ind
        kinds = ["plain", "single", "double"] + ([] if flow else ["plain", "literal", "folded"])
        k = r.choice(kinds)
        if k == "plain":
            s = r.choice(["a", "b c", "x:y", "v"])
            for _ in range(r.randint(0, 2)):
                s += self.ws() + self.brk() + r.choice(["", self.brk()]) + pad
                s += r.choice(["  ", "    ", " "]) + r.choice(["w", "p q", "#z"])
            return s
        if k in ("single", "double"):
            q = "'" if k == "single" else '"'
            s = q + r.choice(["a", "b c", ""])
            for _ in range(r.randint(0, 3)):
                s += self.ws() + self.brk() + r.choice(["", pad + " ", "\t", pad + "   "])
                s += r.choice(["w", "p q", "", "\\\\" if q == '"' else "v"])
            return s + q
        s = r.choice(["|", ">", "|-", ">+", "|2", "> # c"]) + "\n"
        for _ in range(r.randint(1, 4)):
            s += r.choice([pad + "  " + r.choice(["t", "u v", " w", "  more"]), "", pad + "  "])
            s += self.brk()
        return s[:-1]

    def node(self, ind, depth):
        r, pad = self.r, " " * ind
        x = r.random()
        if depth > 1 or x < 0.4:
            return " " + self.scalar(ind)
        if x < 0.6:
            items = [self.scalar(ind, True) for _ in range(r.randint(1, 3))]
            return " [" + ("," + r.choice([" ", self.brk() + pad + "  "])).join(items) + "]"
        if x < 0.8:
            return "\n" + "\n".join(
                pad + "- " + self.node(ind + 2, depth + 1).lstrip(" ")
                for _ in range(r.randint(1, 2))
            )
        keys = ["m", '"m n"', "'m" + r.choice([LS, " "]) + "o'"]
        return "\n" + "\n".join(
            pad + "  " + r.choice(keys) + str(i) + ":" + self.node(ind + 2, depth + 1)
            for i in range(r.randint(1, 2))
        )

    def doc(self):
        r = self.r
        s = "apiVersion: v1\nkind: X\nmetadata:\n  name: a"
        s += r.choice(["", " # c" + self.brk() + "  # d"]) + "\ndata:"
        for i in range(r.randint(1, 4)):
            key = r.choice(["k%d" % i, '"k%d"' % i, "'k%d'" % i])
            s += "\n  %s:" % key + self.node(2, 0 if r.random() < 0.5 else 2)
            s += r.choice(["", "", " # c" + self.brk(), " # c" + LS + "  z%d: 1" % i])
        return s + r.choice(["\n", "", "\n" + self.brk()])


def main():
    flate = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 600
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    gen = Gen(seed)
    stats = {}
    shown = 0
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "kustomization.yaml"), "w") as f:
            f.write("resources:\n- r.yaml\n")
        for _ in range(2 * n):
            text = gen.doc()
            with open(os.path.join(d, "r.yaml"), "w", encoding="utf-8") as f:
                f.write(text)
            k = subprocess.run(["kubectl", "kustomize", d], capture_output=True)
            fl = subprocess.run([flate, "kustomize", "build", d], capture_output=True)
            if k.returncode and fl.returncode:
                kind = "both fail"
            elif not k.returncode and not fl.returncode:
                kind = "identical" if k.stdout == fl.stdout else "different"
            else:
                kind = "flate alone fails" if fl.returncode else "kubectl alone fails"
            stats[kind] = stats.get(kind, 0) + 1
            if kind not in ("identical", "both fail") and shown < 5:
                shown += 1
                print("==", kind, repr(text))
                print("   kubectl:", repr(k.stdout.decode()[:400]), k.stderr.decode()[-200:])
                print("   flate:  ", repr(fl.stdout.decode()[:400]), fl.stderr.decode()[-200:])
    print(stats)


if __name__ == "__main__":
    main()
