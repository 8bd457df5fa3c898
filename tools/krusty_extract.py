#!/usr/bin/env python3
"""Extract kustomize's api/krusty tests into build directories.

Usage: krusty_extract.py KUSTOMIZE_SRC OUT_DIR

KUSTOMIZE_SRC is a checkout of kubernetes-sigs/kustomize (tag kustomize/v5.5.0;
api/krusty, api/testutils and api/internal/konfig are read);
OUT_DIR receives one directory per build the tests run (it is wiped first).
Nothing is taken from the tests' expected strings: the output of each case is
recorded later from `kubectl kustomize` (see krusty_compare.py).

Each case directory holds:
  tree/       the files the test writes (th.WriteK / WriteC / WriteF), as the
              in-memory file system of the Go harness held them at that Run
  case.json   {"source": "file.go:TestName", "run": "path inside tree",
               "flags": [...], "expect_error": bool, "exclude": reason|null}

The Go source is read with a small tokenizer and a sequential interpreter of
the calls the harness makes: string literals, package constants, local string
variables, `+`, filepath.Join, helper functions that take the harness, and
the table-driven form `for _, tc := range cases { ...th.Run(tc.x...) }` over
a slice or map of struct literals. A test whose arguments cannot be evaluated
(fmt.Sprintf, computed file systems, ...) is listed as not extracted.
"""

import json
import os
import re
import shutil
import sys

# ---------------------------------------------------------------- tokenizer

TOKEN_RE = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<lcomment>//[^\n]*)
  | (?P<bcomment>/\*.*?\*/)
  | (?P<raw>`[^`]*`)
  | (?P<str>"(?:\\.|[^"\\\n])*")
  | (?P<rune>'(?:\\.|[^'\\\n])+')
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<num>[0-9][0-9a-fA-FxX_.]*)
  | (?P<op>:=|\.\.\.|==|!=|<=|>=|&&|\|\||<-|\+\+|--|\+=|-=|[-+*/%&|^<>=!(){}\[\],;:.])
    """,
    re.S | re.X,
)


def _op(t):
    return t.val if t.kind == "op" else "\0"


class Tok:
    __slots__ = ("kind", "val", "line")

    def __init__(self, kind, val, line):
        self.kind, self.val, self.line = kind, val, line

    def __repr__(self):
        return f"{self.kind}:{self.val!r}"


def go_unquote(s):
    body = s[1:-1]
    out = bytearray()
    i = 0
    simple = {"n": 10, "t": 9, "r": 13, "\\": 92, '"': 34, "'": 39, "a": 7,
              "b": 8, "f": 12, "v": 11}
    while i < len(body):
        c = body[i]
        if c != "\\":
            out += c.encode()
            i += 1
            continue
        e = body[i + 1]
        if e in simple:
            out.append(simple[e])
            i += 2
        elif e == "x":
            out.append(int(body[i + 2:i + 4], 16))
            i += 4
        elif e == "u":
            out += chr(int(body[i + 2:i + 6], 16)).encode()
            i += 6
        elif e == "U":
            out += chr(int(body[i + 2:i + 10], 16)).encode()
            i += 10
        elif e in "01234567":
            out.append(int(body[i + 1:i + 4], 8))
            i += 4
        else:
            raise ValueError(f"escape {e}")
    return bytes(out)


def tokenize(src):
    toks = []
    pos = 0
    line = 1
    while pos < len(src):
        m = TOKEN_RE.match(src, pos)
        if not m:
            raise ValueError(f"cannot tokenize at line {line}: {src[pos:pos+20]!r}")
        kind = m.lastgroup
        text = m.group()
        if kind == "raw":
            # Go drops carriage returns from raw strings.
            toks.append(Tok("str", text[1:-1].replace("\r", "").encode(), line))
        elif kind == "str":
            toks.append(Tok("str", go_unquote(text), line))
        elif kind in ("ident", "num", "op", "rune"):
            toks.append(Tok(kind, text, line))
        line += text.count("\n")
        pos = m.end()
    return toks


# ---------------------------------------------------------------- structure


def match_close(toks, i):
    """toks[i] is an opening bracket; returns the index of its match."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    opener = toks[i].val
    closer = pairs[opener]
    depth = 0
    for j in range(i, len(toks)):
        t = toks[j]
        if t.kind != "op":
            continue
        if t.val in pairs:
            depth += 1
        elif t.val in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                if t.val != closer:
                    raise ValueError("mismatched brackets")
                return j
    raise ValueError("unclosed bracket")


def split_top(toks, sep=","):
    """Splits a token list at top-level separators."""
    parts, cur, depth = [], [], 0
    for t in toks:
        if t.kind == "op" and _op(t) in "([{":
            depth += 1
        elif t.kind == "op" and _op(t) in ")]}":
            depth -= 1
        if depth == 0 and t.kind == "op" and t.val == sep:
            parts.append(cur)
            cur = []
        else:
            cur.append(t)
    if cur:
        parts.append(cur)
    return parts


class Func:
    def __init__(self, name, params, body):
        self.name, self.params, self.body = name, params, body


def parse_file(toks):
    """Returns (funcs, consts) of a Go file's top level."""
    funcs, consts = {}, {}
    i = 0
    raw_consts = []
    while i < len(toks):
        t = toks[i]
        if t.kind == "ident" and t.val == "func" and (i == 0 or toks[i - 1].line != t.line):
            j = i + 1
            if toks[j].val == "(":  # method
                j = match_close(toks, j) + 1
            name = toks[j].val
            j += 1
            pclose = match_close(toks, j)
            params = []
            for p in split_top(toks[j + 1:pclose]):
                if p and p[0].kind == "ident":
                    params.append(p[0].val)
            k = pclose + 1
            while not (toks[k].kind == "op" and toks[k].val == "{"):
                k += 1
            end = match_close(toks, k)
            funcs[name] = Func(name, params, toks[k + 1:end])
            i = end + 1
            continue
        if t.kind == "ident" and t.val in ("const", "var") and (i == 0 or toks[i - 1].line != t.line):
            j = i + 1
            if toks[j].val == "(":
                end = match_close(toks, j)
                body = toks[j + 1:end]
                # one declaration per line
                decl = []
                lines = {}
                for tk in body:
                    lines.setdefault(tk.line, []).append(tk)
                # a declaration starts at an identifier followed by '=' or a type
                cur = None
                for tk in body:
                    if cur is None or (tk.kind == "ident" and is_decl_start(body, tk, cur)):
                        cur = [tk]
                        decl.append(cur)
                    else:
                        cur.append(tk)
                for d in decl:
                    raw_consts.append(d)
                i = end + 1
                continue
            # single declaration up to the end of the line (or of a raw string)
            k = j
            depth = 0
            while k < len(toks):
                tk = toks[k]
                if tk.kind == "op" and _op(tk) in "([{":
                    depth += 1
                elif tk.kind == "op" and _op(tk) in ")]}":
                    depth -= 1
                if k + 1 < len(toks) and depth == 0 and toks[k + 1].line != tk.line \
                        and not (tk.kind == "op" and _op(tk) in "+,(=") \
                        and not (toks[k + 1].kind == "op" and _op(toks[k + 1]) in "+"):
                    break
                k += 1
            raw_consts.append(toks[j:k + 1])
            i = k + 1
            continue
        i += 1
    # resolve constants iteratively (they may refer to one another)
    for _ in range(4):
        for d in raw_consts:
            if len(d) >= 3 and d[0].kind == "ident":
                eq = next((n for n, tk in enumerate(d) if tk.kind == "op" and tk.val == "="), None)
                if eq is None:
                    continue
                try:
                    v = eval_expr(d[eq + 1:], Env(consts, {}), None)
                except Unresolved:
                    continue
                if isinstance(v, bytes):
                    consts[d[0].val] = v
    return funcs, consts


def is_decl_start(body, tk, cur):
    # inside a const ( ... ) group: a new declaration starts on a new line
    # with an identifier, when the previous token does not continue an expression
    prev = cur[-1]
    if prev.line == tk.line:
        return False
    if prev.kind == "op" and _op(prev) in "+=,(":
        return False
    return True


# ---------------------------------------------------------------- evaluation


class Unresolved(Exception):
    pass


class Env:
    def __init__(self, consts, local, parent=None):
        self.consts, self.local, self.parent = consts, local, parent

    def get(self, name):
        e = self
        while e is not None:
            if name in e.local:
                return e.local[name]
            e = e.parent
        if name in self.consts:
            return self.consts[name]
        raise Unresolved(f"unknown identifier {name}")


def eval_expr(toks, env, harness):
    """Evaluates a Go expression made of strings; raises Unresolved."""
    try:
        return _eval(toks, env, harness)
    except (Unresolved, IndexError, ValueError, KeyError) as e:
        if isinstance(e, Unresolved):
            raise
        raise Unresolved(str(e))


def _eval(toks, env, harness):
    if not toks:
        raise Unresolved("empty expression")
    terms = split_top(toks, "+")
    if len(terms) > 1:
        vals = [_eval(t, env, harness) for t in terms]
        if all(isinstance(v, bytes) for v in vals):
            return b"".join(vals)
        raise Unresolved("non-string +")
    t = toks
    if len(t) == 1:
        if t[0].kind == "str":
            return t[0].val
        if t[0].kind == "ident":
            if t[0].val in ("true", "false"):
                return t[0].val == "true"
            if t[0].val == "nil":
                return None
            return env.get(t[0].val)
        if t[0].kind == "num":
            return t[0].val
        raise Unresolved(f"literal {t[0]}")
    # parenthesised
    if t[0].val == "(" and match_close(t, 0) == len(t) - 1:
        return _eval(t[1:-1], env, harness)
    # []byte{0xff, 'h', ...}
    if len(t) >= 4 and t[0].val == "[" and t[1].val == "]" and t[2].val == "byte" and t[3].val == "{":
        out = bytearray()
        for e in split_top(t[4:match_close(t, 3)]):
            if len(e) != 1:
                raise Unresolved("byte literal")
            if e[0].kind == "num":
                out.append(int(e[0].val, 0))
            elif e[0].kind == "rune":
                out += go_unquote('"' + e[0].val[1:-1] + '"')
            else:
                raise Unresolved("byte literal")
        return bytes(out)
    # an immediately called func literal building options
    if t[0].kind == "ident" and t[0].val == "func":
        text = " ".join(x.val for x in t if isinstance(x.val, str))
        if "Options" in text:
            o = Options()
            o.load_none = "LoadRestrictionsNone" in text
            o.plugins = "PluginConfig" in text
            return o
        raise Unresolved("func literal")
    # selector chains and calls
    names = []
    k = 0
    while k < len(t) and t[k].kind == "ident":
        names.append(t[k].val)
        if k + 1 < len(t) and t[k + 1].val == ".":
            k += 2
            continue
        k += 1
        break
    dotted = ".".join(names)
    if k < len(t) and t[k].val == "(" and match_close(t, k) == len(t) - 1:
        args = split_top(t[k + 1:-1])
        if dotted in ("filepath.Join", "path.Join"):
            parts = [_eval(a, env, harness).decode() for a in args]
            return os.path.join(*parts).encode() if parts else b""
        if dotted.endswith(".GetRoot") or dotted == "th.GetRoot":
            return b"/"
        if dotted.endswith(".String") and len(names) == 2:
            return _eval(t[:1], env, harness)
        if dotted == "os.ReadFile":
            with open(os.path.join(KRUSTY_DIR, _eval(args[0], env, harness).decode()), "rb") as f:
                return f.read()
        if dotted == "konfig.DefaultKustomizationFileName":
            return b"kustomization.yaml"
        if dotted == "strings.ReplaceAll":
            a, b, c = (_eval(x, env, harness) for x in args)
            return a.replace(b, c)
        if dotted == "fmt.Sprintf":
            fmt_ = _eval(args[0], env, harness)
            vals = [_eval(x, env, harness) for x in args[1:]]
            if not all(isinstance(v, bytes) for v in vals):
                raise Unresolved("Sprintf argument")
            parts = re.split(rb"(%[sv])", fmt_)
            if b"%" in b"".join(parts[::2]).replace(b"%%", b""):
                raise Unresolved("Sprintf verb")
            out, n = b"", 0
            for i, p in enumerate(parts):
                if i % 2:
                    out += vals[n]
                    n += 1
                else:
                    out += p.replace(b"%%", b"%")
            return out
        if dotted in KNOWN_HELPERS:
            return KNOWN_HELPERS[dotted](env, [_eval(a, env, harness) for a in args])
        if dotted in ("strings.TrimSpace",):
            return _eval(args[0], env, harness).strip()
        if dotted in ("[]byte", "string"):
            return _eval(args[0], env, harness)
        if dotted.endswith("MakeDefaultOptions") or dotted.endswith("MakeOptionsPluginsDisabled"):
            return Options()
        if dotted.endswith("MakeOptionsPluginsEnabled"):
            o = Options()
            o.plugins = True
            return o
        if dotted == "krusty.MakeDefaultOptions":
            return Options()
        raise Unresolved(f"call {dotted}")
    if k == len(t) and names:
        if names[0] in ("types", "krusty", "konfig"):
            return dotted
        try:
            v = env.get(names[0])
        except Unresolved:
            raise
        for n in names[1:]:
            if isinstance(v, dict) and n in v:
                v = v[n]
            else:
                raise Unresolved(f"field {dotted}")
        return v
    # & prefix
    if t[0].val == "&":
        return _eval(t[1:], env, harness)
    raise Unresolved("expression " + " ".join(str(x.val) for x in t[:6]))


# Helpers of the test files that compute data, read by hand (the interpreter
# runs only helpers that take the harness).
KNOWN_HELPERS = {
    # configmaps_test.go: binaryHello repeated count times
    "manyHellos": lambda env, args: env.get("binaryHello") * int(args[0]),
}


class Options:
    def __init__(self):
        self.plugins = False
        self.load_none = False
        self.managed_by = False
        self.legacy_reorder = False

    def flags(self):
        f = []
        if self.load_none:
            f += ["--load-restrictor", "LoadRestrictionsNone"]
        return f


# ---------------------------------------------------------------- interpretation


class Harness:
    def __init__(self):
        self.files = {}
        self.helm = False
        self.exec_plugins = False


HEADER_K = b"\napiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
HEADER_C = b"\napiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"


KRUSTY_DIR = "."

# builtinpluginconsts.GetDefaultFieldSpecsAsMap, in its source order.
LEGACY_CONFIGS = ["namePrefixFieldSpecs", "nameSuffixFieldSpecs", "commonLabelFieldSpecs",
                  "templateLabelFieldSpecs", "commonAnnotationFieldSpecs", "namespaceFieldSpecs",
                  "varReferenceFieldSpecs", "nameReferenceFieldSpecs", "imagesFieldSpecs",
                  "replicasFieldSpecs"]


def legacy_configs():
    d = os.path.join(KRUSTY_DIR, "..", "internal", "konfig", "builtinpluginconsts")
    src = ""
    for n in sorted(os.listdir(d)):
        if n.endswith(".go"):
            with open(os.path.join(d, n), encoding="utf-8") as f:
                src += f.read() + "\n"
    consts = parse_file(tokenize(src))[1]
    return b"".join(consts[n] for n in LEGACY_CONFIGS)


def norm_path(p):
    p = p.decode() if isinstance(p, bytes) else p
    p = os.path.normpath("/" + p).lstrip("/")
    return p


class Extractor:
    def __init__(self, funcs, consts, fname):
        self.funcs, self.consts, self.fname = funcs, consts, fname
        self.cases = []
        self.failures = []

    def run_test(self, name):
        f = self.funcs[name]
        env = Env(self.consts, {})
        self.test = name
        self.n = 0
        self.harnesses = {}
        try:
            self.exec_block(f.body, env)
        except Unresolved as e:
            self.failures.append((f"{self.fname}:{name}", str(e)))
        except (RecursionError, StopIteration, IndexError) as e:
            self.failures.append((f"{self.fname}:{name}", f"cannot interpret: {type(e).__name__}"))

    def harness(self, env, var):
        h = self.harnesses.get(var)
        if h is None:
            raise Unresolved(f"no harness {var}")
        return h

    def exec_block(self, toks, env, depth=0):
        if depth > 20:
            raise Unresolved("nesting")
        stmts = split_statements(toks)
        for st in stmts:
            self.exec_stmt(st, env, depth)

    def exec_stmt(self, st, env, depth):
        if not st:
            return
        first = st[0]
        # for _, tc := range X { body }
        if first.kind == "ident" and first.val == "for":
            self.exec_for(st, env, depth)
            return
        if first.kind == "ident" and first.val in ("const", "var"):
            st = st[1:]
            if not st:
                return
        if first.kind == "ident" and first.val == "if":
            # `if X != "" { ... }` / `if X == "" {...}` on evaluable strings
            # runs its body when true; other conditions (error checks) skip it.
            b = next((i for i, x in enumerate(st) if x.val == "{"), None)
            if b is None:
                return
            cond = st[1:b]
            ops = [i for i, x in enumerate(cond) if x.val in ("!=", "==")]
            if len(ops) == 1 and cond[ops[0] + 1:] and cond[-1].kind == "str" and cond[-1].val == b"":
                try:
                    v = eval_expr(cond[:ops[0]], env, None)
                except Unresolved:
                    return
                if not isinstance(v, bytes):
                    return
                if (v != b"") == (cond[ops[0]].val == "!="):
                    self.exec_block(st[b + 1:match_close(st, b)], env, depth + 1)
            return
        if first.kind == "ident" and first.val in ("return", "defer", "go", "switch"):
            return
        # t.Run("name", func(t *testing.T) { ... }), runOpenApiTest(t, func(t *testing.T) {...})
        fl = next((i for i in range(len(st) - 3) if st[i].val == "func" and st[i + 1].val == "("
                   and any(x.val == "testing" for x in st[i:i + 8])), None)
        if fl is not None and st[0].val not in ("func",):
            k = next(i for i in range(fl, len(st)) if st[i].val == "{")
            end = match_close(st, k)
            self.exec_block(st[k + 1:end], Env(self.consts, {}, env), depth + 1)
            return
        # assignment
        assign = None
        depth0 = 0
        for i, tk in enumerate(st):
            if tk.kind == "op" and _op(tk) in "([{":
                depth0 += 1
            elif tk.kind == "op" and _op(tk) in ")]}":
                depth0 -= 1
            elif depth0 == 0 and tk.kind == "op" and tk.val in (":=", "="):
                assign = i
                break
        if assign is not None:
            lhs = [p for p in split_top(st[:assign])]
            rhs = st[assign + 1:]
            lhs_names = [".".join(x.val for x in p if x.kind == "ident") for p in lhs]
            rhs_text = " ".join(x.val if isinstance(x.val, str) else "STR" for x in rhs)
            if re.search(r"Make(Enhanced)?Harness", rhs_text):
                h = Harness()
                self.harnesses[lhs_names[0]] = h
                env.local[lhs_names[0]] = h
                return
            if "tmpDir" in lhs_names[0] or "fSys" in lhs_names[0]:
                env.local[lhs_names[0]] = b"/"
                return
            if len(lhs_names) == 2 and "ReadFile" in rhs_text:
                env.local[lhs_names[0]] = eval_expr(rhs, env, None)
                return
            if len(lhs_names) == 1:
                name = lhs_names[0]
                if "." in name:
                    obj, field = name.split(".", 1)
                    try:
                        o = env.get(obj)
                    except Unresolved:
                        return
                    if isinstance(o, Options):
                        if field == "LoadRestrictions":
                            o.load_none = "None" in rhs_text
                        elif field == "PluginConfig":
                            o.plugins = True
                        elif field == "AddManagedbyLabel":
                            o.managed_by = True
                        elif field == "Reorder":
                            o.legacy_reorder = True
                    return
                try:
                    env.local[name] = eval_expr(rhs, env, None)
                except Unresolved:
                    env.local[name] = UNRESOLVED
                    if len(rhs) > 3 and rhs[2].val == "FileGen" and rhs[0].val == "[":
                        env.local[name] = FileGens(rhs)
                    elif any(x.val == "struct" for x in rhs):
                        try:
                            env.local[name] = self.composite(rhs, env)
                        except (Unresolved, StopIteration, IndexError):
                            pass
                try:
                    self.exec_calls_in(rhs, env, depth)
                except Unresolved:
                    raise
                return
            self.exec_calls_in(rhs, env, depth)
            return
        self.exec_calls_in(st, env, depth)

    def exec_calls_in(self, st, env, depth):
        # a call statement: X.Method(args) or helper(args)
        i = 0
        while i < len(st):
            tk = st[i]
            if tk.kind == "ident" and i + 3 < len(st) and st[i + 1].val == "." \
                    and st[i + 2].kind == "ident" and st[i + 3].val == "(":
                obj, meth = tk.val, st[i + 2].val
                close = match_close(st, i + 3)
                args = split_top(st[i + 4:close])
                if self.harness_call(obj, meth, args, env):
                    i = close + 1
                    continue
                i = close + 1 if False else i + 1
                continue
            if tk.kind == "ident" and i + 1 < len(st) and st[i + 1].val == "(" \
                    and tk.val in self.funcs and (i == 0 or st[i - 1].val != "."):
                close = match_close(st, i + 1)
                args = split_top(st[i + 2:close])
                if close + 1 < len(st) and st[close + 1].val == "(":
                    # helper(args)(th): a FileGen applied to the harness
                    c2 = match_close(st, close + 1)
                    h = env.get(st[close + 2].val)
                    FileGenCall(st[i:close + 1], env).run(self, h, depth)
                    i = c2 + 1
                    continue
                self.call_helper(tk.val, args, env, depth)
                i = close + 1
                continue
            i += 1

    def call_helper(self, name, args, env, depth):
        f = self.funcs[name]
        if name.startswith("Test"):
            return
        local = {}
        for p, a in zip(f.params, args):
            txt = [x.val for x in a]
            if len(a) == 3 and a[2].val == "Harness" and isinstance(env_try(env, a[0].val), Harness):
                a = a[:1]
            if len(a) == 1 and a[0].kind == "ident" and isinstance(env_try(env, a[0].val), Harness):
                local[p] = env.get(a[0].val)
                self.harnesses[p] = local[p]
            else:
                try:
                    local[p] = eval_expr(a, env, None)
                except Unresolved:
                    local[p] = UNRESOLVED
        # only helpers that receive a harness write files
        if not any(isinstance(v, Harness) for v in local.values()):
            # a helper returning a FileGen list etc. is not interpreted
            return
        sub = Env(self.consts, local, None)
        saved = dict(self.harnesses)
        self.exec_block(f.body, sub, depth + 1)
        self.harnesses = saved

    def harness_call(self, obj, meth, args, env):
        h = env_try(env, obj)
        if not isinstance(h, Harness):
            return False
        def arg(n):
            v = eval_expr(args[n], env, h)
            if v is UNRESOLVED or not isinstance(v, (bytes, str)):
                raise Unresolved(f"{meth} argument {n}")
            return v if isinstance(v, bytes) else v.encode()
        if meth in ("WriteK", "WriteC"):
            path = norm_path(arg(0))
            head = HEADER_K if meth == "WriteK" else HEADER_C
            h.files[os.path.join(path, "kustomization.yaml")] = head + arg(1)
        elif meth == "WriteF":
            h.files[norm_path(arg(0))] = arg(1)
        elif meth in ("Run", "RunWithErr"):
            path = norm_path(arg(0))
            opts = eval_expr(args[1], env, h) if len(args) > 1 else Options()
            if not isinstance(opts, Options):
                raise Unresolved("options")
            self.record(h, path, opts, meth == "RunWithErr")
        elif meth == "WriteLegacyConfigs":
            h.files[norm_path(arg(0))] = legacy_configs()
        elif meth in ("ErrIfNoHelm",):
            h.helm = True
        elif meth in ("PrepExecPlugin", "BuildGoPlugin"):
            h.exec_plugins = True
        elif meth == "Reset":
            h.files = {}
        elif meth in ("MkDir",):
            pass
        elif meth in ("LoadAndRunGenerator", "LoadAndRunTransformer", "RunTransformerAndCheckResult"):
            raise Unresolved(f"{meth} runs a plugin directly, not a build")
        else:
            return False
        return True

    def record(self, h, path, opts, expect_error):
        self.n += 1
        files = dict(h.files)
        blob = b"\n".join(files.values())
        exclude = None
        if opts.plugins or h.exec_plugins:
            exclude = "plugins"
        elif h.helm or re.search(rb"helmCharts|HelmChartInflationGenerator|helmGlobals", blob):
            exclude = "helm"
        elif re.search(rb"config\.kubernetes\.io/function|\bexec:|container:\s*\n\s*image:", blob):
            exclude = "plugins"
        elif re.search(rb"(?m)^\s*(-|path:)\s*(https?://|github\.com/|git@|ssh://|git::)", blob):
            exclude = "network"
        elif re.search(rb"(?m)^- \.\./", files.get(os.path.join(path, "kustomization.yaml") if path not in ("", ".") else "kustomization.yaml", b"")) \
                and path in ("", "."):
            # the in-memory file system of the test maps "/.." to "/"
            exclude = "not reproducible on disk (refers above the root)"
        elif opts.managed_by:
            exclude = "option kubectl has not (--enable-managedby-label)"
        self.cases.append({
            "name": f"{self.fname[:-len('_test.go')]}.{self.test}" + (f".{self.n}" if self.n > 1 else ""),
            "source": f"{self.fname}:{self.test}",
            "run": path or ".",
            "flags": opts.flags(),
            "expect_error": expect_error,
            "exclude": exclude,
            "files": files,
        })

    def exec_for(self, st, env, depth):
        # for _, tc := range X {  or  for name, tc := range X {
        try:
            r = next(i for i, x in enumerate(st) if x.val == "range")
        except StopIteration:
            raise Unresolved("for loop without range")
        vars_ = [x.val for x in st[1:r] if x.kind == "ident"]
        k = r + 1
        # the range expression ends at the body's brace at depth 0
        d = 0
        while True:
            x = st[k]
            if x.val == "{" and d == 0 and not (st[k - 1].kind == "ident" and st[k - 1].val not in vars_ and k - 1 > r and st[k - 2].val in ("]", "struct")):
                break
            if _op(x) in "([":
                d += 1
            elif _op(x) in ")]":
                d -= 1
            elif x.val == "{":
                k = match_close(st, k)
            k += 1
        rng = st[r + 1:k]
        body_end = match_close(st, k)
        body = st[k + 1:body_end]
        items = self.table(rng, env)
        for key, item in items:
            local = {}
            if len(vars_) == 2:
                local[vars_[0]] = key
                local[vars_[1]] = item
            elif vars_:
                local[vars_[0]] = item
            sub = Env(self.consts, local, env)
            saved_n = self.n
            self.exec_block(body, sub, depth + 1)

    def table(self, rng, env):
        # a variable holding a composite literal, or the literal itself
        if len(rng) == 1 and rng[0].kind == "ident":
            v = env.get(rng[0].val)
            if isinstance(v, Table):
                return v.items
            raise Unresolved("range over unknown value")
        return self.composite(rng, env).items

    def composite(self, toks, env):
        # map[string]struct{...}{ "k": {...}, } or []struct{...}{ {...}, }
        k = len(toks) - 1
        if toks[k].val != "}":
            raise Unresolved("not a literal")
        # find the opening brace matching the final one
        depth = 0
        for j in range(k, -1, -1):
            if toks[j].val == "}":
                depth += 1
            elif toks[j].val == "{":
                depth -= 1
                if depth == 0:
                    start = j
                    break
        elems = split_top(toks[start + 1:k])
        items = []
        for n, e in enumerate(elems):
            if not e:
                continue
            colon = None
            d = 0
            for i, x in enumerate(e):
                if _op(x) in "([{":
                    d += 1
                elif _op(x) in ")]}":
                    d -= 1
                elif d == 0 and x.val == ":":
                    colon = i
                    break
            if colon is not None and e[colon + 1].val == "{":
                key = eval_expr(e[:colon], env, None)
                body = e[colon + 1:]
            else:
                key = n
                body = e
            if body[0].val != "{":
                # a struct type name before the brace
                b = next(i for i, x in enumerate(body) if x.val == "{")
                body = body[b:]
            items.append((key, self.struct(body[1:-1], env)))
        return Table(items)

    def struct(self, toks, env):
        fields = {}
        for f in split_top(toks):
            if len(f) < 3 or f[1].val != ":":
                continue
            name = f[0].val
            val = f[2:]
            try:
                fields[name] = eval_expr(val, env, None)
            except Unresolved:
                fields[name] = FileGens(val)
        return fields


class Table:
    def __init__(self, items):
        self.items = items


class FileGens:
    """An unevaluated field (e.g. []FileGen{writeK(...), helper}); evaluated
    when the loop body calls it."""

    def __init__(self, toks):
        self.toks = toks


UNRESOLVED = object()


def env_try(env, name):
    try:
        return env.get(name)
    except Unresolved:
        return None


def split_statements(toks):
    """Splits a block into statements (newline or ';' at depth 0)."""
    stmts, cur, depth = [], [], 0
    for n, t in enumerate(toks):
        if t.kind == "op" and _op(t) in "([{":
            depth += 1
        elif t.kind == "op" and _op(t) in ")]}":
            depth -= 1
        if depth == 0 and t.kind == "op" and t.val == ";":
            stmts.append(cur)
            cur = []
            continue
        cur.append(t)
        if depth == 0 and n + 1 < len(toks) and toks[n + 1].line != t.line:
            # Go's automatic semicolon: after an identifier, literal, ) ] } ++ --
            last = t
            if last.kind in ("ident", "str", "num", "rune") or last.val in (")", "]", "}", "++", "--"):
                # except `else` continuation on the next line
                nxt = toks[n + 1]
                if not (nxt.kind == "ident" and nxt.val == "else"):
                    stmts.append(cur)
                    cur = []
    if cur:
        stmts.append(cur)
    return stmts


# the loop body uses fields of the table item: hook FileGens into the harness

_orig_exec_calls_in = Extractor.exec_calls_in


def _exec_calls_in(self, st, env, depth):
    # `for _, f := range tc.input { f(th) }`: run the FileGen list
    if len(st) >= 4 and st[0].kind == "ident" and st[1].val == "(":
        v = env_try(env, st[0].val)
        if isinstance(v, FileGenCall):
            close = match_close(st, 1)
            args = split_top(st[2:close])
            h = env.get(args[0][0].val)
            v.run(self, h, depth)
            return
    return _orig_exec_calls_in(self, st, env, depth)


Extractor.exec_calls_in = _exec_calls_in


class FileGenCall:
    def __init__(self, toks, env):
        self.toks, self.env = toks, env

    def run(self, ex, h, depth):
        # toks: writeK("a", `...`)  or helperName
        t = self.toks
        if len(t) == 1 and t[0].kind == "ident":
            f = ex.funcs.get(t[0].val)
            if f is None:
                raise Unresolved(f"FileGen {t[0].val}")
            sub = Env(ex.consts, {f.params[0]: h})
            ex.exec_block(f.body, sub, depth + 1)
            return
        if t[0].kind == "ident" and t[1].val == "(":
            f = ex.funcs.get(t[0].val)
            close = match_close(t, 1)
            args = split_top(t[2:close])
            if f is None:
                raise Unresolved(f"FileGen {t[0].val}")
            # writeK(path, content) -> a closure calling th.WriteK
            local = {}
            for p, a in zip(f.params, args):
                local[p] = eval_expr(a, self.env, None)
            # the body returns func(th Harness) { th.WriteX(path, content) }
            body = f.body
            k = next((i for i, x in enumerate(body) if x.val == "func"), None)
            if k is None:
                r = next(i for i, x in enumerate(body) if x.val == "return")
                FileGenCall(body[r + 1:], Env(ex.consts, local)).run(ex, h, depth + 1)
                return
            p = body[k + 2].val  # parameter name of the closure
            b = next(i for i in range(k, len(body)) if body[i].val == "{")
            end = match_close(body, b)
            local[p] = h
            ex.exec_block(body[b + 1:end], Env(ex.consts, local), depth + 1)
            return
        raise Unresolved("FileGen form")


_orig_exec_for = Extractor.exec_for


def _exec_for(self, st, env, depth):
    # for _, f := range tc.input { f(th) }
    r = next((i for i, x in enumerate(st) if x.val == "range"), None)
    if r is not None:
        b = next(i for i in range(r, len(st)) if st[i].val == "{")
        rng = st[r + 1:b]
        names = [x.val for x in rng if x.kind == "ident"]
        if rng and rng[0].kind == "ident" and len(names) in (1, 2):
            try:
                v = env.get(names[0])
            except Unresolved:
                v = None
            fg = None
            if len(names) == 2 and isinstance(v, dict) and isinstance(v.get(names[1]), FileGens):
                fg = v[names[1]]
            elif len(names) == 1 and isinstance(v, FileGens):
                fg = v
            if fg is not None:
                t = fg.toks
                ob = next(i for i, x in enumerate(t) if x.val == "{")
                elems = split_top(t[ob + 1:match_close(t, ob)])
                vars_ = [x.val for x in st[1:r] if x.kind == "ident"]
                end = match_close(st, b)
                for e in elems:
                    if not e:
                        continue
                    local = {vars_[-1]: FileGenCall(e, env)}
                    self.exec_block(st[b + 1:end], Env(self.consts, local, env), depth + 1)
                return
    return _orig_exec_for(self, st, env, depth)


Extractor.exec_for = _exec_for


# ---------------------------------------------------------------- main


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, out = sys.argv[1], sys.argv[2]
    krusty = os.path.join(src, "api", "krusty")
    global KRUSTY_DIR
    KRUSTY_DIR = krusty
    if os.path.isdir(out):
        shutil.rmtree(out)
    os.makedirs(out)
    all_cases, failures, tests = [], [], 0
    names = sorted(n for n in os.listdir(krusty) if n.endswith("_test.go"))
    parsed = {}
    gfuncs, gconsts = {}, {}
    for fname in names:
        with open(os.path.join(krusty, fname), encoding="utf-8") as f:
            toks = tokenize(f.read())
        funcs, consts = parse_file(toks)
        parsed[fname] = funcs
        gfuncs.update({k: v for k, v in funcs.items() if not k.startswith("Test")})
        gconsts.update(consts)
    for fname in names:
        funcs = dict(gfuncs)
        funcs.update(parsed[fname])
        ex = Extractor(funcs, gconsts, fname)
        for name in parsed[fname]:
            if name.startswith("Test"):
                tests += 1
                before = len(ex.cases)
                ex.run_test(name)
                if len(ex.cases) == before and not any(n == f"{fname}:{name}" for n, _ in ex.failures):
                    ex.failures.append((f"{fname}:{name}", "no build (th.Run) found"))
        all_cases += ex.cases
        failures += ex.failures
    seen = set()
    for c in all_cases:
        name = c["name"]
        while name in seen:
            name += "_"
        seen.add(name)
        d = os.path.join(out, name)
        for p, content in c["files"].items():
            fp = os.path.join(d, "tree", p)
            os.makedirs(os.path.dirname(fp), exist_ok=True)
            with open(fp, "wb") as f:
                f.write(content)
        os.makedirs(os.path.join(d, "tree", c["run"]), exist_ok=True)
        meta = {k: v for k, v in c.items() if k != "files"}
        with open(os.path.join(d, "case.json"), "w") as f:
            json.dump(meta, f, indent=1)
    with open(os.path.join(out, "not-extracted.txt"), "w") as f:
        for n, why in failures:
            f.write(f"{n}: {why}\n")
    print(f"{tests} test functions, {len(all_cases)} build cases extracted, "
          f"{len(failures)} tests not extracted (see {out}/not-extracted.txt)")


if __name__ == "__main__":
    main()
