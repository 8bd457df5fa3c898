#!/usr/bin/env python3
"""Reference renderer for the Flux layer of flate: the test oracle.

Renders a fixture repository the way Flux (kustomize-controller +
fluxcd/pkg/kustomize + fluxcd/pkg/envsubst) would, using the REAL kustomize
(`kubectl kustomize --load-restrictor LoadRestrictionsNone`, kustomize v5.5.0)
for every build, like flux-local does. Requires python3, PyYAML and kubectl on
PATH. Only used to produce `fixtures/flux/*/expected/`; flate never runs it.

Usage:
    flux_reference.py CASE_DIR...          # reads CASE/repo + CASE/entry, writes CASE/expected/
    flux_reference.py --repo R --path P [--out DIR] [--strict]

Behaviour reproduced, with where it comes from (fluxcd/pkg kustomize/v1.39.0 =
envsubst/v1.7.0 = what kustomize-controller main vendors):

* Source artifact: the GitRepository artifact excludes source-controller's
  default ignore patterns (sourceignore.ExcludeVCS/Ext/CI/Extra), e.g.
  `**/.sops.yaml`, `.github/`, `*.png`. `.sourceignore` files and
  GitRepository `spec.ignore` are NOT modelled.
* Generator (kustomize_generator.go, GenerateManifest): an existing
  kustomization file (kustomization.yaml, kustomization.yml, Kustomization) is
  used; otherwise one is generated from a lexical-order walk of spec.path:
  sub-directories holding a kustomization file become resources (not
  descended), every other `.yaml`/`.yml` must decode as Kubernetes objects
  ("failed to decode Kubernetes YAML from <file>") and becomes a resource;
  nothing found -> `namespace: _placeholder`. An existing kustomization
  without resources gets `buildMetadata: [originAnnotations]`. Then:
  targetNamespace -> namespace, namePrefix, nameSuffix, spec.patches appended,
  spec.components appended (local relative paths; ignoreMissingComponents),
  patchesStrategicMerge / patchesJson6902 appended, spec.images merged by name
  (newName replaced when set; newTag+digest replaced as a unit when either is
  set; otherwise appended), spec.buildMetadata.
* Build: krusty with LoadRestrictionsNone (SecureBuild), then every object
  must have apiVersion, kind and name.
* postBuild (kustomize_varsub.go): for every object not labelled/annotated
  `kustomize.toolkit.fluxcd.io/substitute: disabled`: vars from substituteFrom
  (ConfigMap data / Secret data, looked up among the objects rendered so far in
  the Kustomization's namespace, list order, later wins; Secret stringData is
  merged into data as the API server would; optional + not found -> skipped),
  then spec.postBuild.substitute (wins); "\n" removed from every value; every
  var name must match ^[_[:alpha:]][_[:alpha:][:digit:]]*$; substitution runs
  only if there is >= 1 var (or substituteStrategy: Always). The text
  substituted is the object's YAML as kustomize prints it (Resource.AsYAML =
  JSON -> sigs.k8s.io/yaml JSONToYAML, which is also what `kubectl kustomize`
  prints), the result is parsed back with go-yaml v2 semantics (YAML 1.1:
  yes/no/on/off/y/n are booleans) to JSON, as sigs.k8s.io/yaml.YAMLToJSON does.
* Re-print: the substituted objects (as JSON) and the untouched ones are fed
  back through `kubectl kustomize` with `sortOptions: {order: fifo}`, so the
  printed stream is kustomize's own printing of the final objects.
* commonMetadata (kustomization_controller.go apply, ssautil.SetCommonMetadata):
  spec.commonMetadata labels and annotations set on every object after the
  substitution (the values are not substituted), overriding the object's own
  values; re-printed as above.
* Children: Flux Kustomizations (kustomize.toolkit.fluxcd.io/v1, v1beta2) in
  rendered output are rendered breadth-first, each <ns>/<name> once. Checks in
  the controller's order: spec.suspend -> skipped; sourceRef other than
  GitRepository flux-system/flux-system -> skipped with its URL (never
  fetched), or failed when no such source object is rendered anywhere;
  dependsOn targets (namespace defaults to the Kustomization's) must exist among
  discovered Kustomizations (a Kustomization waits until the end of discovery
  for them) and must not form a cycle.

Not Flux but flate policy from the issue (implemented so fixtures can test it):
a missing non-optional Secret substituteFrom source that an ExternalSecret or
SealedSecret rendered so far (same namespace) produces at runtime does not
fail the Kustomization: it renders with the variables it has, and the message
says the source was absent offline.

SOPS offline (flate policy, src/flux/sops.rs): after the build and before
postBuild (where kustomize-controller decrypts), an object with a non-empty
top-level `sops` map loses it and every `ENC[...]` value becomes the
placeholder (base64 in a Secret's `data`; `0`/`false` for SOPS types
int/float/bool); a Secret's `data` entry that decodes to a SOPS document, or
an encrypted dotenv (`sops_mac` entry: `sops_*` entries dropped), likewise;
marked with the annotation `flate.dev/sops`; `kustomize.toolkit.fluxcd.io/
decrypt: disabled` opts out.

The self-managing root (flate policy): a Flux Kustomization in the entry's
own output whose spec.path is the entry is the root (rendered instead of the
made-up flux-system/flux-system, with the entry's objects visible to its
substituteFrom); its sourceRef counts as the repository.
"""

import argparse
import base64
import collections
import json
import math
import os
import re
import shutil
import subprocess
import tempfile

import yaml  # PyYAML (pip install pyyaml)

KUBECTL = os.environ.get("KUBECTL", "kubectl")
FLUX_KS_APIS = ("kustomize.toolkit.fluxcd.io/v1", "kustomize.toolkit.fluxcd.io/v1beta2")
KFILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
SUBST_KEY = "kustomize.toolkit.fluxcd.io/substitute"
VARNAME = re.compile(r"^[_A-Za-z][_A-Za-z0-9]*$")  # Go [:alpha:] is ASCII


class KsError(Exception):
    """A failure of one Flux Kustomization: message + the short substring
    fixtures assert on (chosen to be implementation independent)."""

    def __init__(self, message, key=""):
        super().__init__(message)
        self.message = message
        self.key = key


# ---------------------------------------------------------------------------
# fluxcd/pkg/envsubst: a port of the scanner/parser/evaluator (a fork of
# drone/envsubst). Operates on str; Go works on UTF-8 bytes, which only
# matters for ${#VAR}, ${VAR:pos:len} and globs on non-ASCII values.
# ---------------------------------------------------------------------------

class EnvsubstError(Exception):
    pass


ERR_BAD = "bad substitution"
ERR_BRACE = "missing closing brace"
ERR_VARNAME = "unable to parse variable name"
ERR_FUNC = "unable to parse substitution within function"
ERR_DEFAULT = "unable to parse default function"

T_ILLEGAL, T_EOF, T_IDENT, T_LBRACK, T_RBRACK = range(5)
M_IDENT, M_LBRACK, M_RBRACK, M_ESCAPE = 1, 2, 4, 8
E_DOLLAR, E_BACKSLASH = 1, 2
E_ALL = E_DOLLAR | E_BACKSLASH


class _Scanner:
    def __init__(self, buf):
        self.buf, self.pos, self.start, self.width = buf, 0, 0, 0
        self.mode, self.escape, self.accept = 0, 0, None

    def read(self):
        if self.pos >= len(self.buf):
            self.width = 0
            return None
        r = self.buf[self.pos]
        self.width = 1
        self.pos += 1
        return r

    def unread(self):
        self.pos -= self.width

    def skip(self):
        # drop the character just read; the next one becomes part of the token
        self.buf = self.buf[: self.pos - 1] + self.buf[self.pos:]

    def peek(self):
        r = self.read()
        self.unread()
        return r

    def string(self):
        return self.buf[self.start:self.pos]

    def scan(self):
        self.start = self.pos
        r = self.read()
        if r is None:
            return T_EOF
        if self.scan_lbrack(r):
            return T_LBRACK
        if self.scan_rbrack(r):
            return T_RBRACK
        if self.scan_ident(r):
            return T_IDENT
        return T_ILLEGAL

    def scan_ident(self, r):
        if not self.mode & M_IDENT:
            return False
        if self.scan_escaped(r):
            self.skip()
        elif not self.accept(r, self.pos - self.start):
            return False
        while True:
            r = self.read()
            if r is None:
                self.unread()
                break
            if self.scan_lbrack(r):
                self.unread()
                self.unread()
                break
            if self.scan_escaped(r):
                self.skip()
                continue
            if not self.accept(r, self.pos - self.start):
                self.unread()
                break
        return True

    def scan_lbrack(self, r):
        if not self.mode & M_LBRACK:
            return False
        if r == "$":
            if self.read() == "{":
                return True
            self.unread()
        return False

    def scan_rbrack(self, r):
        return bool(self.mode & M_RBRACK) and r == "}"

    def scan_escaped(self, r):
        if not self.mode & M_ESCAPE:
            return False
        if r == "$" and self.escape & E_DOLLAR and self.peek() == "$":
            return True
        if r == "\\" and self.escape & E_BACKSLASH and self.peek() in ("/", "\\"):
            return True
        return False


def _is_ident_char(r):
    return r.isalpha() or r.isdigit() or r == "_"


_acc_rune = lambda r, i: True
_acc_ident = lambda r, i: _is_ident_char(r)
_acc_colon = lambda r, i: r == ":"
_acc_one_hash = lambda r, i: r == "#" and i == 1
_acc_not_closing = lambda r, i: r != "}"
_acc_hash = lambda r, i: r == "#" and i < 3
_acc_percent = lambda r, i: r == "%" and i < 3
_acc_one_equal = lambda r, i: i == 1 and r == "="
_acc_one_colon = lambda r, i: i == 1 and r == ":"
_rej_colon_close = lambda r, i: r != ":" and r != "}"
_acc_slash = lambda r, i: r == "/"
_acc_not_slash = lambda r, i: r != "/"
_acc_casing = lambda r, i: r in (",", "^") and i < 3


def _acc_default(r, i):
    return (i == 1 and r == ":") or (i == 2 and r in "=-?+")


def _acc_replace(r, i):
    return (i == 1 and r == "/") or (i == 2 and r in "/#%")


class _Text:
    def __init__(self, v):
        self.v = v


class _Func:
    def __init__(self, param="", name=""):
        self.param, self.name, self.args = param, name, []


class _List:
    def __init__(self, nodes):
        self.nodes = nodes


_EMPTY = _Text("")


class _Parser:
    def __init__(self, buf):
        self.s = _Scanner(buf)

    def parse_any(self):
        s = self.s
        s.accept, s.mode, s.escape = _acc_rune, M_IDENT | M_LBRACK | M_ESCAPE, E_DOLLAR
        t = s.scan()
        if t == T_IDENT:
            left = _Text(s.string())
        elif t == T_EOF:
            return _EMPTY
        elif t == T_LBRACK:
            left = self.parse_func()
        else:
            raise EnvsubstError(ERR_BAD)
        right = self.parse_any()
        return left if right is _EMPTY else _List([left, right])

    def parse_func(self):
        s = self.s
        s.escape = E_ALL
        if s.peek() == "#":
            return self.parse_len()
        s.accept, s.mode = _acc_ident, M_IDENT
        if s.scan() != T_IDENT:
            raise EnvsubstError(ERR_VARNAME)
        name = s.string()
        p = s.peek()
        if p == ":":
            return self.parse_default_or_substr(name)
        if p == "=":
            return self.parse_default(name)
        if p in (",", "^"):
            return self.parse_casing(name)
        if p == "/":
            return self.parse_replace(name)
        if p == "#":
            return self.parse_remove(name, _acc_hash)
        if p == "%":
            return self.parse_remove(name, _acc_percent)
        s.accept, s.mode = _acc_ident, M_RBRACK
        if s.scan() == T_RBRACK:
            return _Func(name)
        raise EnvsubstError(ERR_BRACE)

    def parse_param(self, accept, mode):
        s = self.s
        s.accept, s.mode = accept, mode | M_LBRACK
        t = s.scan()
        if t == T_LBRACK:
            return self.parse_func()
        if t in (T_IDENT, T_RBRACK):
            return _Text(s.string())
        raise EnvsubstError(ERR_FUNC)

    def parse_default_or_substr(self, name):
        s = self.s
        s.read()
        r = s.peek()
        s.unread()
        if r is not None and r in "=-?+":
            return self.parse_default(name)
        return self.parse_substr(name)

    def parse_substr(self, name):
        s = self.s
        node = _Func(name)
        s.accept, s.mode = _acc_one_colon, M_IDENT
        if s.scan() != T_IDENT:
            raise EnvsubstError(ERR_BAD)
        node.name = s.string()
        node.args.append(self.parse_param(_rej_colon_close, M_IDENT))
        s.accept, s.mode = _acc_colon, M_IDENT | M_RBRACK
        t = s.scan()
        if t == T_RBRACK:
            return node
        if t != T_IDENT:
            raise EnvsubstError(ERR_BAD)
        node.args.append(self.parse_param(_acc_not_closing, M_IDENT))
        self.consume_rbrack()
        return node

    def parse_remove(self, name, accept):
        s = self.s
        node = _Func(name)
        s.accept, s.mode = accept, M_IDENT
        if s.scan() != T_IDENT:
            raise EnvsubstError(ERR_BAD)
        node.name = s.string()
        node.args.append(self.parse_param(_acc_not_closing, M_IDENT))
        self.consume_rbrack()
        return node

    def parse_replace(self, name):
        s = self.s
        node = _Func(name)
        s.accept, s.mode = _acc_replace, M_IDENT
        if s.scan() != T_IDENT:
            raise EnvsubstError(ERR_BAD)
        node.name = s.string()
        node.args.append(self.parse_param(_acc_not_slash, M_IDENT | M_ESCAPE))
        s.accept, s.mode = _acc_slash, M_IDENT
        if s.scan() != T_IDENT:
            raise EnvsubstError(ERR_BAD)
        if s.peek() == "}":
            self.consume_rbrack()
            return node
        node.args.append(self.parse_param(_acc_not_closing, M_IDENT | M_ESCAPE))
        self.consume_rbrack()
        return node

    def parse_default(self, name):
        s = self.s
        node = _Func(name)
        s.accept = _acc_default
        if s.peek() == "=":
            s.accept = _acc_one_equal
        s.mode = M_IDENT
        if s.scan() != T_IDENT:
            raise EnvsubstError(ERR_DEFAULT)
        node.name = s.string()
        while True:
            if s.peek() == "}":
                self.consume_rbrack()
                return node
            node.args.append(self.parse_param(_acc_not_closing, M_IDENT))

    def parse_casing(self, name):
        s = self.s
        node = _Func(name)
        s.accept, s.mode = _acc_casing, M_IDENT
        if s.scan() != T_IDENT:
            raise EnvsubstError(ERR_BAD)
        node.name = s.string()
        self.consume_rbrack()
        return node

    def parse_len(self):
        s = self.s
        node = _Func()
        s.accept, s.mode = _acc_one_hash, M_IDENT
        if s.scan() != T_IDENT:
            raise EnvsubstError(ERR_BAD)
        node.name = s.string()
        s.accept, s.mode = _acc_ident, M_IDENT
        if s.scan() != T_IDENT:
            raise EnvsubstError(ERR_BAD)
        node.param = s.string()
        self.consume_rbrack()
        return node

    def consume_rbrack(self):
        s = self.s
        s.mode = M_RBRACK
        if s.scan() != T_RBRACK:
            raise EnvsubstError(ERR_BAD)


class _BadPattern(Exception):
    pass


def _path_match(pattern, name):
    """fluxcd/pkg/envsubst/path.Match: Go's path.Match, modified so that `*`
    (and `?`) also match '/'."""
    while pattern:
        star, chunk, pattern = _scan_chunk(pattern)
        if star and chunk == "":
            return True
        t, ok = _match_chunk(chunk, name)
        if ok and (len(t) == 0 or len(pattern) > 0):
            name = t
            continue
        if star:
            found = False
            for i in range(len(name)):
                t, ok = _match_chunk(chunk, name[i + 1:])
                if ok:
                    if len(pattern) == 0 and len(t) > 0:
                        continue
                    name = t
                    found = True
                    break
            if found:
                continue
        return False
    return len(name) == 0


def _scan_chunk(pattern):
    star = False
    while pattern and pattern[0] == "*":
        pattern = pattern[1:]
        star = True
    inrange = False
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            if i + 1 < len(pattern):
                i += 1
        elif c == "[":
            inrange = True
        elif c == "]":
            inrange = False
        elif c == "*" and not inrange:
            break
        i += 1
    return star, pattern[:i], pattern[i:]


def _get_esc(chunk):
    if not chunk or chunk[0] in "-]":
        raise _BadPattern()
    if chunk[0] == "\\":
        chunk = chunk[1:]
        if not chunk:
            raise _BadPattern()
    r, n = chunk[0], chunk[1:]
    if not n:
        raise _BadPattern()
    return r, n


def _match_chunk(chunk, s):
    while chunk:
        if not s:
            return "", False
        c = chunk[0]
        if c == "[":
            r, s = s[0], s[1:]
            chunk = chunk[1:]
            negated = False
            if chunk and chunk[0] == "^":
                negated = True
                chunk = chunk[1:]
            match, nrange = False, 0
            while True:
                if chunk and chunk[0] == "]" and nrange > 0:
                    chunk = chunk[1:]
                    break
                lo, chunk = _get_esc(chunk)
                hi = lo
                if chunk[0] == "-":
                    hi, chunk = _get_esc(chunk[1:])
                if lo <= r <= hi:
                    match = True
                nrange += 1
            if match == negated:
                return "", False
        elif c == "?":
            s, chunk = s[1:], chunk[1:]
        else:
            if c == "\\":
                chunk = chunk[1:]
                if not chunk:
                    raise _BadPattern()
            if chunk[0] != s[0]:
                return "", False
            s, chunk = s[1:], chunk[1:]
    return s, True


def _trim_shortest(s, arg):
    shortest = ""
    for i in range(len(s)):
        try:
            m = _path_match(arg, s[: len(s) - i])
        except _BadPattern:
            return s
        if m:
            shortest = s[: len(s) - i]
    if shortest:
        return s[len(shortest):]
    return s


def _trim_longest(s, arg):
    for i in range(len(s)):
        try:
            m = _path_match(arg, s[: len(s) - i])
        except _BadPattern:
            return s
        if m:
            return s[len(s) - i:]
    return s


def _atoi(x):
    if not re.fullmatch(r"[+-]?[0-9]+", x):
        raise ValueError(x)
    return int(x)


def _substr(s, *args):
    if not args:
        return s
    try:
        pos = _atoi(args[0])
    except ValueError:
        return s
    if pos < 0:
        pos = max(len(s) + pos, 0)
    if len(args) == 1:
        return s[pos:] if pos < len(s) else ""
    try:
        length = _atoi(args[1])
    except ValueError:
        return s
    if pos + length >= len(s):
        return s[pos:] if pos < len(s) else ""
    return s[pos:pos + length]


def _default(s, *args):
    if len(s) == 0 and args:
        return "".join(args)
    return s


def _replace_prefix(s, *args):
    if len(args) != 2:
        return s
    return s.replace(args[0], args[1], 1) if s.startswith(args[0]) else s


def _replace_suffix(s, *args):
    if len(args) != 2:
        return s
    if s.endswith(args[0]):
        s = s[: len(s) - len(args[0])] + args[1]
    return s


def _lookup_func(name, nargs):
    rev = lambda x: x[::-1]
    table = {
        ",": lambda s, *a: s[:1].lower() + s[1:],
        ",,": lambda s, *a: s.lower(),
        "^": lambda s, *a: s[:1].upper() + s[1:],
        "^^": lambda s, *a: s.upper(),
        "##": lambda s, *a: _trim_longest(s, a[0]) if a else s,
        "%": lambda s, *a: rev(_trim_shortest(rev(s), rev(a[0]))) if a else s,
        "%%": lambda s, *a: rev(_trim_longest(rev(s), rev(a[0]))) if a else s,
        ":": _substr,
        "/#": _replace_prefix,
        "/%": _replace_suffix,
        "/": lambda s, *a: s if not a else s.replace(a[0], a[1] if len(a) > 1 else "", 1),
        "//": lambda s, *a: s if not a else s.replace(a[0], a[1] if len(a) > 1 else ""),
    }
    if name == "#":
        if nargs == 0:
            return lambda s, *a: str(len(s.encode("utf-8")))
        return lambda s, *a: _trim_shortest(s, a[0]) if a else s
    return table.get(name, _default)


DEFAULT_OPS = {"-", "+", "=", "?", ":-", ":+", ":=", ":?"}


def envsubst(text, variables, strict=False, unset=None):
    """fluxcd/pkg/envsubst.Eval with kustomize_varsub's mapping. `unset`
    collects variables read but not set (what strict mode would reject)."""
    root = _Parser(text).parse_any()
    out = []

    def ev(node, w):
        if isinstance(node, _Text):
            w.append(node.v)
        elif isinstance(node, _List):
            for n in node.nodes:
                ev(n, w)
        else:
            args = []
            for a in node.args:
                buf = []
                ev(a, buf)
                args.append("".join(buf))
            exists = node.param in variables
            if not exists and node.name not in DEFAULT_OPS:
                if strict:
                    raise EnvsubstError('variable not set (strict mode): "%s"' % node.param)
                if unset is not None:
                    unset.add(node.param)
            v = variables.get(node.param, "")
            w.append(_lookup_func(node.name, len(args))(v, *args))

    ev(root, out)
    return "".join(out)


# ---------------------------------------------------------------------------
# go-yaml v2 scalar resolution (sigs.k8s.io/yaml YAMLToJSON after substitution)
# ---------------------------------------------------------------------------

_V2_MAP = {}
for _v, _l in ((True, "y Y yes Yes YES true True TRUE on On ON"),
               (False, "n N no No NO false False FALSE off Off OFF")):
    for _w in _l.split():
        _V2_MAP[_w] = ("bool", _v)
for _w in ("", "~", "null", "Null", "NULL"):
    _V2_MAP[_w] = ("null", None)
for _w in (".nan", ".NaN", ".NAN"):
    _V2_MAP[_w] = ("float", float("nan"))
for _w in (".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"):
    _V2_MAP[_w] = ("float", float("inf"))
for _w in ("-.inf", "-.Inf", "-.INF"):
    _V2_MAP[_w] = ("float", float("-inf"))
_V2_MAP["<<"] = ("merge", "<<")
_V2_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_V2_TS = re.compile(
    r"^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}"
    r"([Tt ]+[0-9]{1,2}:[0-9]{2}:[0-9]{2}(\.[0-9]*)?[ \t]*(Z|[-+][0-9]{1,2}(:[0-9]{2})?)?)?$")


def _go_parse_int(s):
    """strconv.ParseInt(s, 0, 64) / ParseUint."""
    m = re.fullmatch(r"([+-]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)", s)
    if not m:
        return None
    sign, body = m.groups()
    b = body.lower()
    if b.startswith("0x"):
        v = int(b[2:], 16)
    elif b.startswith("0o"):
        v = int(b[2:], 8)
    elif b.startswith("0b"):
        v = int(b[2:], 2)
    elif b.startswith("0") and len(b) > 1:
        v = int(b[1:], 8)
    else:
        v = int(b)
    v = -v if sign == "-" else v
    if -(1 << 63) <= v < (1 << 64):
        return v
    return None


def v2_resolve(s):
    """(kind, value) of a plain scalar under go-yaml v2's resolve()."""
    if s in _V2_MAP:
        return _V2_MAP[s]
    c = s[:1]
    if c == ".":
        try:
            if re.fullmatch(r"\.[0-9]+([eE][-+]?[0-9]+)?", s):
                return ("float", float(s))
        except ValueError:
            pass
        return ("str", s)
    if c and (c in "+-" or c.isdigit()):
        if _V2_TS.match(s):
            return ("str", s)  # v2 keeps timestamps as strings for interface{}
        plain = s.replace("_", "")
        iv = _go_parse_int(plain)
        if iv is not None:
            return ("int", iv)
        if _V2_FLOAT.match(plain):
            return ("float", float(plain))
        return ("str", s)
    return ("str", s)


class V2Loader(yaml.SafeLoader):
    """PyYAML loader whose plain-scalar typing follows go-yaml v2."""

    def resolve(self, kind, value, implicit):
        if kind is yaml.ScalarNode and implicit[0]:
            k, _ = v2_resolve(value)
            if k == "merge":
                return "tag:yaml.org,2002:merge"
            return "v2:" + k
        if kind is yaml.ScalarNode:
            return "tag:yaml.org,2002:str"
        return super().resolve(kind, value, implicit)


def _v2_construct(loader, node):
    return v2_resolve(loader.construct_scalar(node))[1]


for _k in ("str", "int", "float", "bool", "null"):
    V2Loader.add_constructor("v2:" + _k, _v2_construct)


def _to_json_value(v):
    """sigs.k8s.io/yaml's YAML -> JSON conversion of decoded values."""
    if isinstance(v, dict):
        out = {}
        for k, val in v.items():
            if isinstance(k, bool):
                k = "true" if k else "false"
            elif isinstance(k, (int, float)):
                k = str(k)
            elif k is None:
                k = "null"
            out[k] = _to_json_value(val)
        return out
    if isinstance(v, list):
        return [_to_json_value(x) for x in v]
    if isinstance(v, float) and (math.isinf(v) or math.isnan(v)):
        raise ValueError("unsupported float value %r" % v)
    return v


class CanonicalDumper(yaml.SafeDumper):
    pass


def _repr_str(dumper, s):
    if "\n" in s:
        return dumper.represent_scalar("tag:yaml.org,2002:str", s, style="|")
    quote = v2_resolve(s)[0] != "str"
    try:
        quote = quote or yaml.safe_load(s) != s  # YAML 1.1 and 1.2 readers alike
    except Exception:
        quote = True
    if quote:
        return dumper.represent_scalar("tag:yaml.org,2002:str", s, style='"')
    return dumper.represent_scalar("tag:yaml.org,2002:str", s)


CanonicalDumper.add_representer(str, _repr_str)


def dump_yaml(obj):
    return yaml.dump(obj, Dumper=CanonicalDumper, sort_keys=False, default_flow_style=False,
                     width=1 << 30, allow_unicode=True)


# ---------------------------------------------------------------------------
# kubectl
# ---------------------------------------------------------------------------

def kubectl_error(stderr):
    msgs = []
    for line in stderr.splitlines():
        m = re.search(r'err="((?:[^"\\]|\\.)*)"', line)
        if m:
            try:
                msgs.append(json.loads('"' + m.group(1) + '"'))
            except ValueError:
                msgs.append(m.group(1))
        elif line.startswith("Error:") or line.startswith("error:"):
            msgs.append(line.split(":", 1)[1].strip())
    return "; ".join(msgs) if msgs else stderr.strip()


def kustomize(dirpath):
    r = subprocess.run([KUBECTL, "kustomize", "--load-restrictor", "LoadRestrictionsNone", dirpath],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise KsError("kustomize build failed: " + kubectl_error(r.stderr))
    return r.stdout


def split_docs(text):
    """Split kustomize's AsYaml stream (documents joined by '---\\n')."""
    if not text.strip():
        return []
    docs, cur = [], []
    for line in text.splitlines(keepends=True):
        if line.rstrip("\n") == "---":
            docs.append("".join(cur))
            cur = []
        else:
            cur.append(line)
    docs.append("".join(cur))
    return [d for d in docs if d.strip()]


def load_v2(text):
    return yaml.load(text, Loader=V2Loader)


# ---------------------------------------------------------------------------
# source artifact
# ---------------------------------------------------------------------------

_IGN_DIRS = {".git", ".github", ".circleci"}
_IGN_NAMES = {".gitignore", ".gitmodules", ".gitattributes", ".travis.yml", ".gitlab-ci.yml",
              "appveyor.yml", ".drone.yml", "cloudbuild.yaml", "codeship-services.yml",
              "codeship-steps.yml", ".goreleaser.yml", ".sops.yaml", ".flux.yaml"}
_IGN_EXT = (".jpg", ".jpeg", ".gif", ".png", ".wmv", ".flv", ".tar.gz", ".zip")


def copy_artifact(src, dst):
    """Copy the repository as source-controller would package it (default
    exclusions of fluxcd/pkg/sourceignore). When src is a git work tree, only
    the files git knows (tracked, or untracked and not ignored) are taken, as
    a commit would hold them; fixture repos have no .git and are copied whole."""
    if os.path.exists(os.path.join(src, ".git")):
        r = subprocess.run(["git", "-C", src, "ls-files", "-z", "--cached", "--others",
                            "--exclude-standard"], capture_output=True, check=True)
        tmp = dst + ".git-files"
        for rel in sorted(set(r.stdout.decode().split("\0")) - {""}):
            s = os.path.join(src, rel)
            if not os.path.lexists(s):
                continue  # deleted in the work tree
            d = os.path.join(tmp, rel)
            os.makedirs(os.path.dirname(d), exist_ok=True)
            shutil.copy2(s, d, follow_symlinks=False)
        src = tmp
    def ignore(d, names):
        out = set()
        for n in names:
            p = os.path.join(d, n)
            if os.path.isdir(p) and not os.path.islink(p):
                if n in _IGN_DIRS:
                    out.add(n)
            elif n in _IGN_NAMES or n.endswith(_IGN_EXT):
                out.add(n)
        return out
    shutil.copytree(src, dst, ignore=ignore, symlinks=True)
    if src.endswith(".git-files"):
        shutil.rmtree(src)


# ---------------------------------------------------------------------------
# Flux generator (fluxcd/pkg/kustomize GenerateManifest)
# ---------------------------------------------------------------------------

def find_kfile(d):
    for n in KFILES:
        p = os.path.join(d, n)
        if os.path.isfile(p):
            return p
    return None


def check_k8s_yaml(path, root):
    """rf.SliceFromBytes(file) must succeed: checked with kustomize itself on a
    throw-away kustomization holding just that file."""
    with tempfile.TemporaryDirectory() as t:
        shutil.copy(path, os.path.join(t, "f.yaml"))
        with open(os.path.join(t, "kustomization.yaml"), "w") as f:
            f.write("resources:\n- f.yaml\n")
        r = subprocess.run([KUBECTL, "kustomize", t], capture_output=True, text=True)
        if r.returncode != 0:
            err = kubectl_error(r.stderr)
            m = re.search(r"accumulating resources from 'f\.yaml': (.*?)': must build at directory", err)
            if m:
                err = m.group(1)
            rel = os.path.relpath(path, root)
            raise KsError("failed to decode Kubernetes YAML from %s: %s" % (rel, err),
                          os.path.basename(path))


def scan_manifests(base, root):
    paths = []

    def walk(d):
        for n in sorted(os.listdir(d)):
            p = os.path.join(d, n)
            if os.path.isdir(p) and not os.path.islink(p):
                if find_kfile(p):
                    paths.append(p)
                    continue
                walk(p)
                continue
            if os.path.splitext(n)[1] not in (".yaml", ".yml"):
                continue
            check_k8s_yaml(p, root)
            paths.append(p)

    walk(base)
    return ["." + p[len(base):] for p in paths]


def is_local_relative(p):
    for pre in ("git::", "gh:", "ssh://", "https://", "http://", "git@", "github.com:", "github.com/"):
        if len(pre) < len(p) and p[: len(pre)].lower() == pre:
            return False
    low = p.lower()
    if os.path.isabs(p) or os.path.isabs(low[len("file://"):] if low.startswith("file://") else low):
        return False
    return True


def _selector(t):
    if t is None:
        return None
    out = {}
    for k in ("group", "version", "kind", "name", "namespace", "labelSelector", "annotationSelector"):
        if t.get(k):
            out[k] = t[k]
    return out


def generate(ks, dirpath, root):
    spec = ks.get("spec") or {}
    kfile = find_kfile(dirpath)
    if kfile:
        created = False
        with open(kfile) as f:
            kus = load_v2(f.read()) or {}
        if not isinstance(kus, dict):
            raise KsError("invalid kustomization file %s" % os.path.relpath(kfile, root))
    else:
        created = True
        res = scan_manifests(dirpath, root)
        kus = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization"}
        if res:
            kus["resources"] = res
        else:
            kus["namespace"] = "_placeholder"
        kfile = os.path.join(dirpath, "kustomization.yaml")
    kus.setdefault("apiVersion", "kustomize.config.k8s.io/v1beta1")
    kus.setdefault("kind", "Kustomization")
    if not created and not kus.get("resources"):
        kus["buildMetadata"] = ["originAnnotations"]
    if "targetNamespace" in spec:
        kus["namespace"] = spec["targetNamespace"]
    if "namePrefix" in spec:
        kus["namePrefix"] = spec["namePrefix"]
    if "nameSuffix" in spec:
        kus["nameSuffix"] = spec["nameSuffix"]
    for p in spec.get("patches") or []:
        e = {"patch": p.get("patch", "")}
        sel = _selector(p.get("target"))
        if sel is not None:
            e["target"] = sel
        kus.setdefault("patches", []).append(e)
    for c in spec.get("components") or []:
        if not is_local_relative(c):
            raise KsError("component path '%s' must be local and relative" % c, c)
        if not os.path.exists(os.path.join(dirpath, c)) and spec.get("ignoreMissingComponents"):
            continue
        kus.setdefault("components", []).append(c)
    for p in spec.get("patchesStrategicMerge") or []:
        kus.setdefault("patchesStrategicMerge", []).append(json.dumps(p, separators=(",", ":")))
    for p in spec.get("patchesJson6902") or []:
        e = {"patch": json.dumps(p.get("patch"), separators=(",", ":"))}
        sel = _selector(p.get("target"))
        if sel is not None:
            e["target"] = sel
        kus.setdefault("patchesJson6902", []).append(e)
    for img in spec.get("images") or []:
        images = kus.setdefault("images", [])
        idx = next((i for i, x in enumerate(images) if x.get("name") == img.get("name")), None)
        if idx is not None:
            cur = images[idx]
            if img.get("newName"):
                cur["newName"] = img["newName"]
            if img.get("newTag") or img.get("digest"):
                for k in ("newTag", "digest"):
                    if img.get(k):
                        cur[k] = img[k]
                    else:
                        cur.pop(k, None)
        else:
            images.append({k: img[k] for k in ("name", "newName", "newTag", "digest") if img.get(k)})
    if spec.get("buildMetadata"):
        kus["buildMetadata"] = spec["buildMetadata"]
    with open(kfile, "w") as f:
        f.write(dump_yaml(kus))


# ---------------------------------------------------------------------------
# the cluster render
# ---------------------------------------------------------------------------

# ---------------------------------------------------------------------------
# SOPS offline (flate policy; what is decrypted follows kustomize-controller
# internal/decryptor/decryptor.go: DecryptResource, DecryptSources)
# ---------------------------------------------------------------------------

SOPS_PLACEHOLDER = "sops-encrypted-not-decrypted-offline"
SOPS_ANNOTATION = "flate.dev/sops"
SOPS_MARKERS = ("mac: ENC[", '"mac": "ENC[', "sops_mac=ENC[", "[sops]")
ENC_RE = re.compile(r"^ENC\[(.*data:.*)\]$", re.S)


def _enc_type(v):
    if not isinstance(v, str):
        return None
    m = ENC_RE.match(v)
    if not m:
        return None
    for part in reversed(m.group(1).split(",")):
        if part.startswith("type:"):
            return part[5:]
    return "str"


def _b64(s):
    return base64.b64encode(s.encode("utf-8")).decode("ascii")


def _sops_value(ty, in_data):
    if in_data:
        return _b64(SOPS_PLACEHOLDER)
    if ty in ("int", "float"):
        return 0
    if ty == "bool":
        return False
    return SOPS_PLACEHOLDER


def _sops_replace(v, in_data):
    if isinstance(v, dict):
        return {k: _sops_replace(x, in_data) for k, x in v.items()}
    if isinstance(v, list):
        return [_sops_replace(x, in_data) for x in v]
    ty = _enc_type(v)
    return v if ty is None else _sops_value(ty, in_data)


def sops_mask(o):
    """Replaces SOPS-encrypted values in object `o` (a dict, changed in
    place); True when it held any. See src/flux/sops.rs."""
    md = o.get("metadata") or {}
    if str((md.get("annotations") or {}).get("kustomize.toolkit.fluxcd.io/decrypt", "")).lower() \
            == "disabled":
        return False
    secret = o.get("kind") == "Secret" and o.get("apiVersion") == "v1"
    masked = False
    if isinstance(o.get("sops"), dict) and o["sops"]:
        del o["sops"]
        for k in list(o):
            if k in ("apiVersion", "kind", "metadata"):
                continue
            o[k] = _sops_replace(o[k], secret and k == "data")
        masked = True
    elif secret and isinstance(o.get("data"), dict):
        data = o["data"]

        def dec(v):
            try:
                return base64.b64decode("".join(str(v).split()), validate=True).decode(
                    "utf-8", "replace")
            except ValueError:
                return None
        dotenv = _enc_type(dec(data.get("sops_mac", "")) or "") is not None
        if dotenv:
            for k in [k for k in data if k.startswith("sops_")]:
                del data[k]
                masked = True
        for k in list(data):
            text = dec(data[k])
            if text is None:
                continue
            if any(m in text for m in SOPS_MARKERS) or (dotenv and _enc_type(text.rstrip())):
                data[k] = _b64(SOPS_PLACEHOLDER)
                masked = True
    if masked:
        o.setdefault("metadata", {}).setdefault("annotations", {})[SOPS_ANNOTATION] = \
            "encrypted, not decrypted offline"
    return masked


def path_key(p):
    return "/".join(c for c in p.split("/") if c not in ("", "."))


def key_of(obj):
    md = obj.get("metadata") or {}
    return "%s/%s" % (md.get("namespace") or "default", md.get("name"))


def gvk_string(obj):
    api = obj.get("apiVersion", "")
    g, _, v = api.rpartition("/")
    return "%s_%s_%s" % (g or "~G", v or "~V", obj.get("kind") or "~K")


class Renderer:
    def __init__(self, repo, entry, strict=False):
        self.repo = os.path.abspath(repo)
        self.entry = entry.strip().strip("/")
        self.strict = strict
        self.tmp = tempfile.mkdtemp(prefix="flux-ref-")
        # Nest the artifact so that paths escaping it find nothing.
        self.artifact = os.path.join(self.tmp, "a", "b", "c", "artifact")
        copy_artifact(self.repo, self.artifact)
        self.rendered = []   # (ks key, obj) in render order
        self.root_source = None
        self.builds = 0
        self.results = collections.OrderedDict()
        self.outputs = {}

    def close(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    # -- lookups among rendered objects ------------------------------------
    def find_obj(self, pred):
        found = None
        for _, o in self.rendered:
            if pred(o):
                found = o
        return found

    def find_source(self, kind, ns, name):
        return self.find_obj(lambda o: o.get("kind") == kind
                             and str(o.get("apiVersion", "")).startswith("source.toolkit.fluxcd.io/")
                             and (o.get("metadata") or {}).get("namespace") == ns
                             and (o.get("metadata") or {}).get("name") == name)

    def runtime_producer(self, kind, ns, name):
        if kind != "Secret":
            return None
        for _, o in reversed(self.rendered):
            md = o.get("metadata") or {}
            if md.get("namespace") != ns:
                continue
            api = str(o.get("apiVersion", ""))
            spec = o.get("spec") or {}
            if o.get("kind") == "ExternalSecret" and api.startswith("external-secrets.io/"):
                tgt = (spec.get("target") or {}).get("name") or md.get("name")
                if tgt == name:
                    return "ExternalSecret %s/%s" % (ns, md.get("name"))
            if o.get("kind") == "SealedSecret" and api.startswith("bitnami.com/"):
                tgt = (((spec.get("template") or {}).get("metadata")) or {}).get("name") or md.get("name")
                if tgt == name:
                    return "SealedSecret %s/%s" % (ns, md.get("name"))
        return None

    # -- one Kustomization ---------------------------------------------------
    def is_local(self, kind, ns, name):
        return (kind, ns, name) in (("GitRepository", "flux-system", "flux-system"),
                                    self.root_source)

    def source_of(self, ks):
        ns = ks["metadata"].get("namespace") or "default"
        ref = (ks.get("spec") or {}).get("sourceRef") or {}
        return ref.get("kind", ""), ref.get("namespace") or ns, ref.get("name", "")

    def load_variables(self, ks, notes):
        ns = ks["metadata"].get("namespace") or "default"
        vars_ = {}
        for ref in ((ks.get("spec") or {}).get("postBuild") or {}).get("substituteFrom") or []:
            kind, name = ref.get("kind"), ref.get("name")
            if kind not in ("ConfigMap", "Secret"):
                continue
            obj = self.find_obj(lambda o: o.get("kind") == kind and o.get("apiVersion") == "v1"
                                and (o.get("metadata") or {}).get("namespace") == ns
                                and (o.get("metadata") or {}).get("name") == name)
            if obj is None:
                if ref.get("optional"):
                    continue
                producer = self.runtime_producer(kind, ns, name)
                if producer:
                    notes["substituteFrom %s/%s absent offline (produced at runtime by %s)"
                          % (kind, name, producer)] = name
                    continue
                raise KsError("substitute from '%s/%s' error: %ss \"%s\" not found"
                              % (kind, name, kind.lower(), name), name)
            if kind == "ConfigMap":
                for k, v in (obj.get("data") or {}).items():
                    vars_[k] = str(v).replace("\n", "")
            else:
                data = {}
                for k, v in (obj.get("data") or {}).items():
                    try:
                        data[k] = base64.b64decode(str(v), validate=True).decode("utf-8", "surrogateescape")
                    except ValueError:
                        raise KsError("Secret/%s data.%s is not valid base64" % (name, k), name)
                for k, v in (obj.get("stringData") or {}).items():
                    data[k] = str(v)
                for k, v in data.items():
                    vars_[k] = v.replace("\n", "")
        return vars_

    def render_one(self, ks):
        """Returns (final YAML stream, objects, notes, unset variables)."""
        out, objs, notes, unset = self.build_and_substitute(ks)
        # kustomize-controller apply(): ssautil.SetCommonMetadata on every
        # object after the build and the substitution, each key set
        # (overriding the object's own value).
        cm = (ks.get("spec") or {}).get("commonMetadata") or {}
        labels = cm.get("labels") or {}
        annotations = cm.get("annotations") or {}
        if not labels and not annotations:
            return out, objs, notes, unset
        vals = [_to_json_value(o) for o in objs]
        for v in vals:
            md = v.setdefault("metadata", {})
            for field, entries in (("labels", labels), ("annotations", annotations)):
                if not entries:
                    continue
                cur = md.get(field)
                if not isinstance(cur, dict):
                    cur = md[field] = {}
                for k, val in entries.items():
                    cur[str(k)] = str(val)
        key = "%s#common%d" % (key_of(ks), self.builds)
        final = self.reprint(key, "common", [json.dumps(v, ensure_ascii=False) + "\n" for v in vals])
        return final, [load_v2(d) for d in split_docs(final)], notes, unset

    def build_and_substitute(self, ks):
        """The objects of `ks` built and substituted: (YAML stream, objects,
        notes, unset variables)."""
        spec = ks.get("spec") or {}
        key = key_of(ks)
        self.builds += 1  # a Kustomization may be built twice (the adopted root)
        key = "%s#%d" % (key, self.builds)
        work = os.path.join(self.tmp, "ks", key.replace("/", "__"), "a", "b", "c", "artifact")
        shutil.copytree(self.artifact, work, symlinks=True)
        path = str(spec.get("path") or "")
        parts = []  # securejoin.SecureJoin: ".." never climbs above the root
        for c in path.split("/"):
            if c in ("", "."):
                continue
            if c == "..":
                if parts:
                    parts.pop()
                continue
            parts.append(c)
        dirpath = os.path.join(work, *parts)
        if not os.path.isdir(dirpath):
            rel = "/".join(parts)
            raise KsError("kustomization path not found: %s" % rel, rel)
        generate(ks, dirpath, work)
        out = kustomize(dirpath)
        docs = split_docs(out)
        objs = [load_v2(d) for d in docs]
        for o in objs:
            md = o.get("metadata") or {}
            if not md.get("name") or not o.get("kind") or not o.get("apiVersion"):
                raise KsError("failed to decode Kubernetes apiVersion, kind and name from: %s"
                              % json.dumps(o), "apiVersion, kind and name")
        notes, unset = {}, set()  # notes: message -> message_contains key
        # SOPS: decrypted (here: masked) after the build, before postBuild.
        vals = [_to_json_value(o) for o in objs]
        if [sops_mask(v) for v in vals].count(True):
            out = self.reprint(key, "sops", [json.dumps(v, ensure_ascii=False) + "\n" for v in vals])
            docs = split_docs(out)
            objs = [load_v2(d) for d in docs]
        post = spec.get("postBuild")
        if post is None:
            return out, objs, notes, unset
        always = post.get("substituteStrategy") == "Always"
        new_docs, changed = [], False
        for text, o in zip(docs, objs):
            md = o.get("metadata") or {}
            if (md.get("labels") or {}).get(SUBST_KEY) == "disabled" or \
               (md.get("annotations") or {}).get(SUBST_KEY) == "disabled":
                new_docs.append(text)
                continue
            where = "post build failed for '%s/%s': " % (gvk_string(o), md.get("name"))
            try:
                vars_ = self.load_variables(ks, notes)
            except KsError as e:
                raise KsError(where + e.message, e.key)
            for k, v in (post.get("substitute") or {}).items():
                vars_[k] = str(v).replace("\n", "")
            if not vars_ and not always:
                new_docs.append(text)
                continue
            for k in vars_:
                if not VARNAME.match(k):
                    raise KsError(where + "envsubst error: '%s' var name is invalid, must match "
                                  "'^[_[:alpha:]][_[:alpha:][:digit:]]*$'" % k, k)
            try:
                res = envsubst(text, vars_, self.strict, unset)
            except EnvsubstError as e:
                raise KsError(where + "envsubst error: variable substitution failed: %s" % e,
                              md.get("name"))
            try:
                val = _to_json_value(load_v2(res))
            except (yaml.YAMLError, ValueError) as e:
                raise KsError(where + "envsubst error: YAMLToJSON: %s" % str(e).replace("\n", " "),
                              md.get("name"))
            new_docs.append(json.dumps(val, ensure_ascii=False) + "\n")
            changed = True
        if not changed:
            return out, objs, notes, unset
        final = self.reprint(key, "final", new_docs)
        return final, [load_v2(d) for d in split_docs(final)], notes, unset

    def reprint(self, key, stage, docs):
        """Re-print objects through kustomize (fifo) so the printing is
        kustomize's."""
        rp = os.path.join(self.tmp, "reprint", key.replace("/", "__"), stage)
        os.makedirs(rp)
        with open(os.path.join(rp, "objects.yaml"), "w") as f:
            f.write("---\n".join(docs))
        with open(os.path.join(rp, "kustomization.yaml"), "w") as f:
            f.write("resources:\n- objects.yaml\nsortOptions:\n  order: fifo\n")
        try:
            return kustomize(rp)
        except KsError as e:
            raise KsError("re-printing substituted objects: " + e.message, "")

    # -- the whole cluster ---------------------------------------------------
    def run(self):
        root = {"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
                "metadata": {"name": "flux-system", "namespace": "flux-system"},
                "spec": {"interval": "10m", "path": "./" + self.entry, "prune": True,
                         "sourceRef": {"kind": "GitRepository", "name": "flux-system"}}}
        # The self-managing root (flate policy, see src/flux/render.rs
        # adopt_root): a Flux Kustomization in the entry's output whose
        # spec.path is the entry replaces the made-up root; its postBuild
        # sees the objects of the entry (the cluster once applied).
        try:
            _, first, _, _ = self.render_one(root)
        except KsError:
            first = []
        want = path_key(self.entry)
        for o in first:
            if o.get("kind") == "Kustomization" and o.get("apiVersion") in FLUX_KS_APIS \
                    and path_key(str((o.get("spec") or {}).get("path") or "")) == want:
                root = o
                self.root_source = self.source_of(o)
                self.rendered = [(None, x) for x in first]
                break
        root_key = key_of(root)
        ks_objs = collections.OrderedDict([(root_key, root)])
        queue = collections.deque([root_key])
        waiting = []

        def set_result(k, status, message="", key="", **extra):
            r = {"status": status, "message_contains": key, "message": message}
            r.update(extra)
            self.results[k] = r

        def deps_of(k):
            ks = ks_objs[k]
            ns = ks["metadata"].get("namespace") or "default"
            return ["%s/%s" % (d.get("namespace") or ns, d.get("name"))
                    for d in (ks.get("spec") or {}).get("dependsOn") or []]

        def find_cycle(start):
            stack = [(start, [start])]
            seen = set()
            while stack:
                n, chain = stack.pop()
                for d in deps_of(n):
                    if d == start:
                        return chain + [d]
                    if d in ks_objs and d not in seen:
                        seen.add(d)
                        stack.append((d, chain + [d]))
            return None

        def attempt(k, final):
            """True when handled (result set), False to wait."""
            ks = ks_objs[k]
            spec = ks.get("spec") or {}
            if spec.get("suspend") is True:
                set_result(k, "skipped", "suspended (spec.suspend: true)", "suspend")
                return True
            kind, sns, sname = self.source_of(ks)
            if not self.is_local(kind, sns, sname):
                src = self.find_source(kind, sns, sname)
                if src is None:
                    if not final:
                        return False
                    ref = "%s/%s/%s" % (kind, sns, sname)
                    set_result(k, "failed", "Source '%s' not found" % ref, ref)
                    return True
                sspec = src.get("spec") or {}
                url = sspec.get("url") or sspec.get("endpoint") or ""
                if kind == "Bucket" and sspec.get("bucketName"):
                    url = "%s/%s" % (url, sspec["bucketName"])
                ref = sspec.get("ref") or {}
                refs = ", ".join("%s=%s" % (x, ref[x]) for x in
                                 ("tag", "semver", "digest", "branch", "commit", "name") if ref.get(x))
                set_result(k, "skipped", "external source %s/%s/%s %s%s: not fetched offline"
                           % (kind, sns, sname, url, " (%s)" % refs if refs else ""), url)
                return True
            deps = deps_of(k)
            missing = [d for d in deps if d not in ks_objs]
            if missing:
                if not final:
                    return False
                set_result(k, "failed", "dependency '%s' not found" % missing[0], missing[0])
                return True
            cyc = find_cycle(k)
            if cyc:
                set_result(k, "failed", "dependency cycle: " + " -> ".join(cyc), "cycle")
                return True
            try:
                text, objs, notes, unset = self.render_one(ks)
            except KsError as e:
                msg, key = e.message, e.key
                if "doc is missing path" in msg and "/spec/patches/-" in msg:
                    msg += (" (a JSON6902 `add /spec/patches/-` targets a child Flux Kustomization"
                            " without spec.patches; seed `patches: []` in its ks.yaml)")
                    key = "patches: []"
                set_result(k, "failed", msg, key)
                return True
            # The entry's objects were visible to the adopted root only.
            self.rendered = [x for x in self.rendered if x[0] is not None]
            extra = {}
            if unset:
                extra["unset_variables"] = sorted(unset)
            set_result(k, "rendered", "; ".join(notes), next(iter(notes.values()), ""), **extra)
            self.outputs[k] = text
            for o in objs:
                self.rendered.append((k, o))
            for o in objs:
                if o.get("kind") == "Kustomization" and o.get("apiVersion") in FLUX_KS_APIS:
                    ck = key_of(o)
                    if ck not in ks_objs:
                        ks_objs[ck] = o
                        queue.append(ck)
            return True

        while True:
            while queue:
                k = queue.popleft()
                if not attempt(k, False):
                    waiting.append(k)
            progressed = False
            for k in list(waiting):
                kind, sns, sname = self.source_of(ks_objs[k])
                local = self.is_local(kind, sns, sname)
                src_ok = local or self.find_source(kind, sns, sname) is not None
                if src_ok and all(d in ks_objs for d in deps_of(k)):
                    waiting.remove(k)
                    attempt(k, True)
                    progressed = True
            if not progressed and not queue:
                break
        for k in waiting:
            attempt(k, True)
        order = list(ks_objs.keys())
        return order


def render_case(case_dir, strict=False):
    repo = os.path.join(case_dir, "repo")
    with open(os.path.join(case_dir, "entry")) as f:
        entry = f.read().strip()
    out_dir = os.path.join(case_dir, "expected")
    write_output(repo, entry, out_dir, strict)


def write_output(repo, entry, out_dir, strict=False):
    r = Renderer(repo, entry, strict)
    try:
        order = r.run()
    finally:
        r.close()
    if os.path.isdir(out_dir):
        shutil.rmtree(out_dir)
    os.makedirs(out_dir)
    status = {"order": order, "kustomizations": {k: r.results[k] for k in order}}
    with open(os.path.join(out_dir, "status.json"), "w") as f:
        json.dump(status, f, indent=2, ensure_ascii=False)
        f.write("\n")
    for k in order:
        if k in r.outputs:
            with open(os.path.join(out_dir, k.replace("/", "__") + ".yaml"), "w") as f:
                f.write(r.outputs[k])
    return status


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cases", nargs="*", help="fixture case directories (repo/ + entry)")
    ap.add_argument("--repo")
    ap.add_argument("--path", help="entry path relative to --repo")
    ap.add_argument("--out", help="output directory (with --repo/--path)")
    ap.add_argument("--strict", action="store_true", help="StrictPostBuildSubstitutions")
    a = ap.parse_args()
    if a.repo:
        if not a.path:
            ap.error("--repo needs --path")
        out = a.out or tempfile.mkdtemp(prefix="flux-ref-out-")
        st = write_output(a.repo, a.path, out, a.strict)
        for k in st["order"]:
            r = st["kustomizations"][k]
            print("%-50s %-9s %s" % (k, r["status"], r["message"]))
        print("written to", out)
        return
    if not a.cases:
        ap.error("give case directories or --repo/--path")
    for c in a.cases:
        render_case(c, a.strict)
        with open(os.path.join(c, "expected", "status.json")) as f:
            st = json.load(f)
        summary = collections.Counter(v["status"] for v in st["kustomizations"].values())
        print("%s: %s" % (c, ", ".join("%d %s" % (n, s) for s, n in sorted(summary.items()))))


if __name__ == "__main__":
    main()
