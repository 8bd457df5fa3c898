#!/usr/bin/env python3
"""Differential check of the template language itself: Helm against flate.

Draws random templates from a small grammar of Go's text/template as Helm
uses it (text, actions with `{{-`/`-}}` trimming, comments, pipelines with
parentheses and chained functions, variables declared and assigned in
nested scopes, `if`/`else if`/`else`, `with`/`else with`, `range` over
lists, maps, integers, strings and nil with one or two variables and
`break`/`continue`, `define`/`template`/`include`/`block`, field chains on
maps, nil and scalars, comparison and logic functions on mixed types,
`index`, `slice`, `len`, `print`/`printf`/`println`), renders each in a
one-template chart with both tools and compares standard output and the
template error (as sprig_differential.py does).

Where sprig_differential.py draws one function call with literal
arguments, this draws the structure around the calls: scoping, control
flow, trimming and what `<no value>` becomes.

Usage: tools/template_differential.py FLATE HELM [COUNT] [SEED]
Prints one line per differing template and a summary.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import helm_differential  # noqa: E402

VALUES = """i: 3
f: 2.5
z: 0
big: 12345678901
s: hello
e: ""
n: null
b: true
no: false
l: [1, two, 3.5, null]
sl: [b, a, c]
el: []
m: {a: 1, b: x, c: [1, 2], d: {e: deep}}
em: {}
"""

PATHS = [".Values.i", ".Values.f", ".Values.z", ".Values.big", ".Values.s", ".Values.e",
         ".Values.n", ".Values.b", ".Values.no", ".Values.l", ".Values.sl", ".Values.el",
         ".Values.m", ".Values.em", ".Values.m.a", ".Values.m.d.e", ".Values.m.zz",
         ".Values.missing", ".Values.missing.deeper", ".Values.n.x", ".Release.Name",
         ".Chart.Name", ".Capabilities.KubeVersion.Minor", ".Template.Name", ".", "$"]
LITERALS = ["0", "1", "-2", "3", "1.5", "1e2", "0x10", "'a'", '""', '"a"', '"b,c"', '"10"',
            "true", "false", "nil", "(list 1 2)", '(list "x" "y")', "(list)", '(dict "k" 1)',
            "(dict)", '(tpl "{{ .Values.s }}-{{ .Values.i }}" $)', "(toYaml .Values.m)",
            '(dict "a" (list 1 (dict "b" nil)) "c" "")', "(fromYaml \"a: [1, {b: 2}]\")",
            '(splitList "," "a,,b")', "(until 3)", '(set (dict) "k" .Values.l)']
# name: argument count (None: the function takes a pipeline's value last)
# Functions that take any value (most pipelines then render) and functions
# with typed parameters (which fail as Go fails on the wrong type).
SAFE1 = ["print", "println", "quote", "toString", "toJson", "empty", "kindOf", "typeOf",
         "default 7", 'default "d"', "toYaml", "not", 'printf "%v"', 'printf "%T"', "squote",
         "coalesce nil", "ternary 1 2", "toPrettyJson", "list", 'printf "%s|%q"',
         "toYaml | nindent 2", "toJson | fromJson | toYaml", "toYaml | fromYaml | toJson",
         "toString | trim", "typeIs \"string\"", "kindIs \"map\"", "deepCopy", "uniq | toJson",
         "toJson | b64enc"]
SAFE_N = ["print", 'printf "%v-%v"', "and", "or", "list", "coalesce", "default", "cat",
          "println", "not"]
FUNCS1 = ["len", "not", "print", "println", "quote", "toString", "toJson", "empty", "kindOf",
          "typeOf", "default 7", 'default "d"', "toYaml", "int", "float64", "upper", "first",
          "keys", "compact", "uniq", "b64enc", "trim", "nindent 2", "indent 1", "add1",
          "sortAlpha", "reverse", "last", "rest", "initial", "coalesce nil", "ternary 1 2",
          "eq 1", "ne 3", 'printf "%v"', 'printf "%d"', 'printf "%s|%q"', 'printf "%T"',
          "index", "html", "js", "urlquery"]
FUNCS_N = ["eq", "ne", "lt", "le", "gt", "ge", "and", "or", "print", "printf \"%v-%v\"",
           "index", "slice", "max", "min", "add", "mul", "list", "concat", "has", "hasKey",
           "get", "dig \"a\"", "coalesce", "default", "cat", "join \",\"", "contains", "split \",\""]


class Gen(helm_differential.Draws):
    def __init__(self, rng):
        super().__init__(rng)
        self.defines = []

    def operand(self, depth, scope):
        r = self.rng.random()
        if r < 0.35:
            return self.rng.choice(PATHS)
        if r < 0.55 and scope:
            v = self.rng.choice(scope)
            return v + self.rng.choice(["", "", ".a", ".x", ".Values.s"])
        if r < 0.8 or depth > 2:
            return self.rng.choice(LITERALS)
        return "(" + self.pipeline(depth + 1, scope) + ")"

    def command(self, depth, scope, piped):
        if not piped and self.chance(0.4):
            return self.operand(depth, scope)
        if piped and self.chance(0.6):
            return self.rng.choice(SAFE1 if self.chance(0.85) else FUNCS1)
        f = self.rng.choice(SAFE_N if self.chance(0.75) else FUNCS_N)
        n = self.rng.randint(0 if piped else 1, 2)
        return " ".join([f] + [self.operand(depth, scope) for _ in range(n)])

    def pipeline(self, depth, scope):
        parts = [self.command(depth, scope, False)]
        for _ in range(self.rng.choice([0, 0, 1, 1, 2])):
            parts.append(self.command(depth, scope, True))
        return " | ".join(parts)

    def open(self):
        return "{{- " if self.chance(0.3) else "{{ "

    def close(self):
        return " -}}" if self.chance(0.3) else " }}"

    def act(self, body):
        return self.open() + body + self.close()

    def text(self):
        return self.rng.choice(["x", " y ", "\n", "\n  ", "a\n\nb", "-", ":", "  \n"])

    def block(self, depth, scope, in_range=False):
        out = []
        scope = list(scope)
        for _ in range(self.rng.randint(1, 4 if depth < 2 else 2)):
            out.append(self.stmt(depth, scope, in_range))
        return "".join(out)

    def conditional(self, keyword, p_chained, p_else, depth, scope, in_range):
        """`if` or `with`: its branch, an `else if`/`else with` branch with
        probability p_chained, an `else` branch with probability p_else."""
        def branch(head):
            return self.act(head) + self.block(depth + 1, scope, in_range)
        s = branch(keyword + " " + self.pipeline(0, scope))
        if self.chance(p_chained):
            s += branch("else " + keyword + " " + self.pipeline(0, scope))
        if self.chance(p_else):
            s += branch("else")
        return s + self.act("end")

    def stmt(self, depth, scope, in_range):
        r = self.rng.random()
        if r < 0.15:
            return self.text()
        if r < 0.35 or depth > 2:
            return self.act(self.pipeline(0, scope))
        if r < 0.45:
            v = "$v%d" % len(scope)
            s = self.act("%s := %s" % (v, self.pipeline(0, scope)))
            scope.append(v)
            return s
        if r < 0.5 and scope:
            return self.act("%s = %s" % (self.rng.choice(scope), self.pipeline(0, scope)))
        if r < 0.6:
            return self.conditional("if", 0.4, 0.5, depth, scope, in_range)
        if r < 0.68:
            return self.conditional("with", 0.3, 0.4, depth, scope, in_range)
        if r < 0.8:
            over = self.rng.choice([".Values.l", ".Values.sl", ".Values.m", ".Values.el", ".Values.em",
                                    ".Values.n", "3", "0", ".Values.i", '"abc"', ".Values.m.c",
                                    "(list 1 2 3)", '(dict "b" 1 "a" 2)', ".Values.missing"] + PATHS[:4])
            inner = list(scope)
            head = "range "
            k = self.rng.random()
            if k < 0.3:
                a, b = "$k%d" % depth, "$e%d" % depth
                head += "%s, %s := " % (a, b)
                inner += [a, b]
            elif k < 0.6:
                a = "$e%d" % depth
                head += "%s := " % a
                inner.append(a)
            body = self.block(depth + 1, inner, True)
            if self.chance(0.3):
                body = self.act("if " + self.pipeline(0, inner)) + self.act(
                    self.rng.choice(["break", "continue"])) + self.act("end") + body
            s = self.act(head + over) + body
            if self.chance(0.3):
                s += self.act("else") + self.block(depth + 1, scope, in_range)
            return s + self.act("end")
        if r < 0.85:
            return "{{/* c */}}" if self.chance(0.5) else "{{- /* c */ -}}"
        if r < 0.95:
            name = "d%d" % len(self.defines)
            self.defines.append(self.act('define "%s"' % name) + self.block(2, ["$"], False) + self.act("end"))
            arg = self.operand(0, scope)
            how = self.rng.choice(["template", "include", "include-pipe", "block"])
            if how == "template":
                return self.act('template "%s" %s' % (name, arg))
            if how == "include":
                return self.act('include "%s" %s' % (name, arg))
            if how == "include-pipe":
                return self.act('include "%s" %s | %s' % (name, arg, self.rng.choice(FUNCS1)))
            return self.act('block "b%s" %s' % (name, arg)) + self.block(depth + 1, ["$"], False) + self.act("end")
        if in_range:
            return self.act(self.rng.choice(["break", "continue"]))
        return self.text()


def draw(rng):
    g = Gen(rng)
    body = g.block(0, [])
    return "".join(g.defines) + "\x00" + body


def template(item):
    defines, body = item.split("\x00")
    return (defines + '{{- define "body" }}' + body + "{{ end }}"
            + '{{- $out := include "body" . }}\nout: {{ $out | b64enc | quote }}\n')


def main():
    helm_differential.run(draw, template, VALUES, noun="templates")


if __name__ == "__main__":
    main()
