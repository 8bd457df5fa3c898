#!/usr/bin/env python3
"""Differential check of how values files are read: Helm against flate.

Draws random values files from YAML 1.1 as Helm reads it (go-yaml v2
through `sigs.k8s.io/yaml`): plain scalars that are booleans, nulls,
integers, floats, timestamps or strings there (`yes`, `0o17`, `017`,
`1_000`, `.inf`, `2001-12-14`...), quoted scalars with escapes, block
scalars with chomping and indentation indicators, flow and block
collections, anchors, aliases and merge keys, tags, non-string keys, and
documents a values file may hold. Each file is the chart's `values.yaml`
(or a `-f` file) of a one-template chart that prints `.Values` as JSON
and each top-level value's Go type; both tools render it and the output
or error is compared.

Usage: tools/values_differential.py FLATE HELM [COUNT] [SEED]
"""
import concurrent.futures as cf
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import helm_differential  # noqa: E402

TEMPLATE = """values: {{ toJson .Values | quote }}
types: {{ $t := list }}{{ range $k, $v := .Values }}{{ $t = append $t (printf "%s=%T" $k $v) }}{{ end }}{{ join ";" $t | quote }}
"""
PLAIN = ["yes", "no", "on", "off", "y", "n", "Y", "N", "Yes", "NO", "true", "True", "TRUE", "false",
         "~", "null", "Null", "NULL", "0", "-0", "+1", "0x1F", "0o17", "017", "08", "09.5", "1_000",
         "1e3", "1E3", "1.5e-3", ".5", "5.", ".inf", "-.Inf", "+.INF", ".NaN", "2001-12-14",
         "2001-12-14t21:59:43.10-05:00", "2001-12-14 21:59:43.10 -5", "12:30:45", "0b1010", "+0x1",
         "1.0", "-1.5", "9223372036854775807", "9223372036854775808", "18446744073709551616",
         "1e400", "0.1", "3.14159265358979", "1e-7", "100000000000000000000", "-9223372036854775809",
         "abc", "a b", "a:b", "a#b", "é", "0.", "-", "+", ".", "1.2.3", "0x", "1e", "=", "<<",
         "+12_3.4_5", "190:20:30", "-0x10", "0777", "00", "0.0", "-0.0", "1__0", "_1"]
QUOTED = ['"yes"', "'no'", '"\\x41\\u00e9\\n\\t\\\\"', '"\\N\\_\\L"', "'it''s'", '"1e3"', "''", '""',
          '"a\\\n  b"', "'multi\n  line'", '"\\U0001F600"']
BLOCK = ["|\n  a\n  b\n", "|-\n  a\n\n", "|+\n  a\n\n", ">\n  a\n  b\n\n  c\n", ">-\n  folded\n   more\n",
         "|2\n   indented\n", ">+\n  k\n"]
TAGS = ["!!str 1", "!!int \"3\"", "!!float 1", "!!null ''", "!!bool yes", "!!str yes", "!!binary aGk=",
        "!!int 0x10", "!!float .5", "!!str", "!!map {}", "!!seq []", "!custom x"]
KEYS = ["a", "b", "1", "true", "yes", "1.5", "0x1", '"q"', "'s'", "on", "k k", "<<"]
# (A null key fails the whole file in both tools; drawn rarely.)
NULL_KEYS = ["null", "~"]


class Gen(helm_differential.Draws):
    def __init__(self, rng):
        super().__init__(rng)
        self.anchors = []

    def scalar(self):
        r = self.rng.random()
        if r < 0.55:
            return self.rng.choice(PLAIN)
        if r < 0.7:
            return self.rng.choice(QUOTED)
        if r < 0.85:
            return self.rng.choice(TAGS)
        if self.anchors and r < 0.95:
            return "*" + self.rng.choice(self.anchors)
        return self.rng.choice(PLAIN)

    def flow(self, depth):
        if depth > 1 or self.chance(0.5):
            return self.rng.choice(PLAIN + QUOTED)
        if self.chance(0.5):
            return "[" + ", ".join(self.flow(depth + 1) for _ in range(self.rng.randint(0, 3))) + "]"
        return "{" + ", ".join("%s: %s" % (self.rng.choice(KEYS[:6]), self.flow(depth + 1))
                               for _ in range(self.rng.randint(0, 3))) + "}"

    def node(self, indent, depth):
        """The text after `key:` (with its line break) at `indent`."""
        pad = " " * (indent + 2)
        r = self.rng.random()
        anchor = ""
        if self.chance(0.1):
            name = "a%d" % len(self.anchors)
            anchor = " &" + name
        if depth > 2 or r < 0.45:
            text = "%s %s\n" % (anchor, self.scalar())
        elif r < 0.55:
            b = self.rng.choice(BLOCK)
            text = "%s %s" % (anchor, b.replace("\n  ", "\n" + pad))
        elif r < 0.65:
            text = "%s %s\n" % (anchor, self.flow(0))
        elif r < 0.8:
            text = anchor + "\n" + "".join(
                "%s- %s" % (pad, self.node(indent + 2, depth + 1).lstrip())
                for _ in range(self.rng.randint(1, 3)))
        else:
            text = anchor + "\n" + self.mapping(indent + 2, depth + 1)
        if anchor:
            self.anchors.append(anchor[2:])
        return text

    def mapping(self, indent, depth):
        pad = " " * indent
        out = ""
        keys = self.rng.sample(KEYS, self.rng.randint(1, 4))
        if self.chance(0.02):
            keys.append(self.rng.choice(NULL_KEYS))
        for k in keys:
            if k == "<<":
                if not self.anchors:
                    continue
                target = ("*" + self.rng.choice(self.anchors) if self.chance(0.7)
                          else "[" + ", ".join("*" + a for a in self.anchors[:2]) + "]")
                out += "%s<<: %s\n" % (pad, target)
                continue
            out += "%s%s:%s" % (pad, k, self.node(indent, depth))
        return out or "%sa: 1\n" % pad

    def document(self):
        text = self.mapping(0, 0)
        if self.chance(0.1):
            text = "---\n" + text
        if self.chance(0.08):
            text += "---\n" + Gen(self.rng).mapping(0, 0)
        if self.chance(0.05):
            text += "# a comment\n"
        return text


def main():
    flate, helm, count, rng = helm_differential.arguments()
    items = []
    for _ in range(count):
        g = Gen(rng)
        items.append((g.document(), rng.random() < 0.3))

    def one(item):
        values, as_file = item
        with tempfile.TemporaryDirectory() as d:
            chart = os.path.join(d, "c")
            os.makedirs(os.path.join(chart, "templates"))
            open(os.path.join(chart, "Chart.yaml"), "w").write(helm_differential.CHART_YAML)
            open(os.path.join(chart, "templates", "t.yaml"), "w").write(TEMPLATE)
            extra = []
            if as_file:
                open(os.path.join(chart, "values.yaml"), "w").write("")
                open(os.path.join(d, "user.yaml"), "w").write(values)
                extra = ["-f", os.path.join(d, "user.yaml")]
            else:
                open(os.path.join(chart, "values.yaml"), "w").write(values)
            h = helm_differential.run_args([helm, "template", "x", chart] + extra)
            f = helm_differential.run_args([flate, "helm", "template", chart, "--name", "x"] + extra)
            return item, h, f

    same = {"ok": 0, "error": 0}
    differ = 0
    with cf.ThreadPoolExecutor(2) as ex:
        for (values, as_file), h, f in ex.map(one, items):
            if h == f:
                same[h[0]] += 1
                continue
            differ += 1
            print("DIFF%s\n%s  helm:  %s %r\n  flate: %s %r\n"
                  % (" (-f)" if as_file else "", values, h[0], h[1][:1500], f[0], f[1][:1500]))
    print("values files: %d, identical: %d (%d render, %d fail alike), different: %d"
          % (len(items), same["ok"] + same["error"], same["ok"], same["error"], differ))


if __name__ == "__main__":
    main()
