#!/usr/bin/env python3
"""Differential check of Sprig's and Helm's functions: Helm against flate.

Draws random calls (a function from the list below and arguments from a
pool of strings, numbers, lists, maps and nil, including non-ASCII text
and YAML values, which Helm reads as float64), renders each in a
one-template chart with both tools:

    {{ $r := FUNC ARGS }}{{ $r }} | {{ $r | toJson }}

and compares standard output and the template error (Helm's "Error: "
prefix and flate's wording of the command line are set aside). Functions
whose output is random by design are left out. Numbers include Sprig's
`int64` results (`add`), which Go does not pass to an `int` parameter.

Usage: tools/sprig_differential.py FLATE HELM [COUNT] [SEED]
Prints one line per differing call and a summary.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import helm_differential  # noqa: E402

STRINGS = [
    '""', '"a"', '"Hello World"', '"héllo wörld"', '"ÉCOLE"', '"  padded  "', '"a,b,,c"',
    '"snake_case-name"', '"CamelCaseName"', '"x\\ty\\nz"', '"日本語テキスト"', '"ǅemal"', '"ß"',
    '"42"', '"-7"', '"3.5"', '"1e3"', '"0x1F"', '"true"', '"1.2.3"', '"v1.2.3-rc.1+b5"',
    '"aGVsbG8="', '"NBSWY3DP"', '"{\\"a\\":1}"', '"[1,2]"', '"a: 1"', '"- x"', '"İ"', '"ﬁ"',
    '"a\\u0085b"', '"tab\\there"', '"emoji 🎉 ok"',
]
NUMBERS = ["0", "1", "-1", "3", "7", "100", "-42", "1.5", "-2.5", "0.1", "1e3", ".Values.flt",
           ".Values.num", ".Values.neg", ".Values.zero", "(add 2 1)", "(sub 0 4)"]
OTHERS = ["nil", "true", "false", "(list)", '(list "b" "a" "c" "a")', "(list 1 2 3)",
          '(list 1 "a" nil 2.5)', '(dict)', '(dict "a" 1 "b" "x")', ".Values.list", ".Values.nested",
          ".Values.str", ".Values.empty", ".Values.t"]

CONSTRAINTS = [
    '">=1.21-0"', '"<1.25.0"', '"~1.2"', '"^1.2.3"', '"1.x"', '">= 1.2, < 2"', '">1.2.3 || <0.5"',
    '"1.2.3 - 2.3"', '"=1.2.3"', '"!=1.2.3"', '"*"', '"~1.2.3-beta"', '"^0.0.3"', '"^0.2"',
    '">=1.19.0-0"', '">= 1.21.0-0 < 1.30"', '"v1.2"', '"1.2.x"', '">1.2.3-alpha.1"', '"~> 1.2"',
    '"x"', '"^1.x"', '"<=1.2"', '"1.2.3 - 1.2"', '"a.b"', '""', '">=1.2.3+build"',
]
VERSIONS = [
    '"1.2.3"', '"v1.21.5"', '"1.21.0-gke.100"', '"v1.28.3+k3s1"', '"1.2"', '"1"', '"1.2.3-beta.2"',
    '"0.0.3"', '"0.2.9"', '"1.25.0"', '"2.0.0"', '"1.19.0-rc.1"', '"v1.30.0-eks-1234"', '"01.2.3"',
    '"1.2.3.4"', '"x"', '""', '"1.2.3+build.5"', '"1.2.3-alpha.1"',
]

# name: argument kinds (s string, n number, a any, l list, c semver
# constraint, v version); a trailing '*' means the last kind may repeat
# 0-2 more times.
FUNCS = {
    "upper": "s", "lower": "s", "title": "s", "untitle": "s", "repeat": "ns", "substr": "nns",
    "nospace": "s", "trunc": "ns", "abbrev": "ns", "abbrevboth": "nns", "initials": "s",
    "wrap": "ns", "wrapWith": "nss", "contains": "ss", "hasPrefix": "ss", "hasSuffix": "ss",
    "quote": "a*", "squote": "a*", "cat": "a*", "indent": "ns", "nindent": "ns",
    "replace": "sss", "plural": "ssn", "snakecase": "s", "camelcase": "s", "kebabcase": "s",
    "swapcase": "s", "trim": "s", "trimAll": "ss", "trimPrefix": "ss", "trimSuffix": "ss",
    "toString": "a", "atoi": "s", "int": "a", "int64": "a", "float64": "a", "add": "nn*",
    "sub": "nn", "mul": "nn*", "div": "nn", "mod": "nn", "max": "nn*", "min": "nn*",
    "addf": "nn*", "subf": "nn", "mulf": "nn*", "divf": "nn", "maxf": "nn*", "minf": "nn*",
    "floor": "n", "ceil": "n", "round": "nn", "len": "a", "first": "l", "last": "l",
    "rest": "l", "initial": "l", "join": "sa", "split": "ss", "splitList": "ss",
    "splitn": "sns", "sortAlpha": "a", "uniq": "l", "compact": "l", "reverse": "l",
    "toStrings": "a", "has": "al", "without": "la*", "append": "la", "prepend": "la",
    "concat": "l*", "b64enc": "s", "b64dec": "s", "b32enc": "s", "b32dec": "s",
    "sha256sum": "s", "sha1sum": "s", "adler32sum": "s", "toJson": "a", "toPrettyJson": "a", "toRawJson": "a", "toYaml": "a",
    "fromJson": "s", "fromJsonArray": "s", "fromYaml": "s", "fromYamlArray": "s",
    "default": "aa", "empty": "a", "coalesce": "a*", "ternary": "aaa", "kindIs": "sa",
    "typeIs": "sa", "typeOf": "a", "kindOf": "a", "deepEqual": "aa", "toDecimal": "s", "seq": "n*", "until": "n",
    "untilStep": "nnn", "shuffle": None, "chunk": "nl", "dig": "ssal", "pluck": "sa*",
    "keys": "a*", "values": "a", "pick": "as*", "omit": "as*", "hasKey": "as", "get": "as",
    "printf": "sa*", "print": "a*", "println": "a*", "urlquery": "a*", "html": "a*", "js": "a*",
    "regexQuoteMeta": "s", "htpasswd": None, "trimall": "ss", "biggest": "nn*",
    "mustToJson": "a", "toToml": "a", "eq": "aa*", "ne": "aa", "lt": "aa", "le": "aa",
    "gt": "aa", "ge": "aa", "and": "aa*", "or": "aa*", "not": "a", "index": "aa*",
    "slice": "la*", "atLeast": None,
    "semverCompare": "cv", "semver": "v", "urlParse": "u",
}
FUNCS = {k: v for k, v in FUNCS.items() if v}


def url(rng):
    """A URL (a Go string literal) drawn from parts Go's url.Parse treats
    apart: schemes good and bad, user info, host names, ports, IP literals
    (IPv4, IPv6, zones, junk), %-escapes (valid, short, not hex, control
    characters), queries and fragments."""
    pick = rng.choice
    scheme = pick(["http:", "HTTPS:", "s3+x.y:", "1a:", ":", "ht_tp:", "", "", "mailto:"])
    user = pick(["", "", "u@", "u:p@", "u:p:q@", "u@v@", "@", "u%zz@", "u{@", "%41@", "ü@"])
    host = pick(["h", "example.com", "a b", "a%41", "a%C3%A9", "h%25", "a{b}", "a]b", "x[::1]",
                 "[::1]", "[::1", "[a]", "[1.2.3.4]", "[::ffff:1.2.3.4]", "[fe80::1%25en0]",
                 "[fe80::1%en0]", "[::1%25]", "[1::2::3]", "[1:2:3:4:5:6:7:8:9]", "[::1]]",
                 "[v1.x]", "[12345::]", "[::1.2.3]", "[1:2:3:4:5:6:1.2.3.4]", "%", "h%2", ""])
    port = pick(["", "", ":80", ":", ":x", ":8%30", "%3a80", ":65536"])
    path = pick(["", "/", "/a b", "/a%20b", "/%zz", "/%", "/%2", "/a%2Fb", "/é", "/a?", "x/y",
                 "a:b/c", "//p", "/\u0001", "/\u007f", "/a;b=c"])
    query = pick(["", "", "?", "?x=1&y=%zz", "?a?b", "?q=é"])
    frag = pick(["", "", "#", "#f", "#f%21", "#a%zz", "#x y"])
    if scheme == "mailto:" or rng.random() < 0.15:
        text = scheme + user + host + path + query + frag
    else:
        text = scheme + "//" + user + host + port + path + query + frag
    if rng.random() < 0.05:
        text = "*"
    return json.dumps(text, ensure_ascii=False)


def arg(rng, kind):
    if kind == "u":
        return url(rng) if rng.random() < 0.9 else rng.choice(STRINGS)
    if kind == "c":
        return rng.choice(CONSTRAINTS)
    if kind == "v":
        return rng.choice(VERSIONS)
    if kind == "s":
        return rng.choice(STRINGS) if rng.random() < 0.9 else rng.choice(NUMBERS + OTHERS)
    if kind == "n":
        return rng.choice(NUMBERS) if rng.random() < 0.9 else rng.choice(STRINGS + OTHERS)
    if kind == "l":
        return rng.choice(OTHERS[3:9] + [".Values.list"]) if rng.random() < 0.9 else rng.choice(STRINGS + OTHERS)
    return rng.choice(STRINGS + NUMBERS + OTHERS)


def call(rng):
    name = rng.choice(sorted(FUNCS))
    kinds = FUNCS[name]
    args = []
    if kinds.endswith("*"):
        kinds = kinds[:-1]
        kinds += kinds[-1] * rng.randint(0, 2)
    for k in kinds:
        args.append(arg(rng, k))
    return ("%s %s" % (name, " ".join(args))).strip()


VALUES = """str: Hello World
num: 42
flt: 3.75
neg: -7
zero: 0
empty: ""
t: true
list: [b, a, c, a]
nested:
  a:
    b: deep
  x: 1
"""


def template(expr):
    return "{{- $r := %s }}\nout: {{ printf \"%%v | %%s\" $r ($r | toJson) | b64enc | quote }}\n" % expr


def main():
    helm_differential.run(call, template, VALUES, noun="calls")


if __name__ == "__main__":
    main()
