#!/usr/bin/env python3
"""Differential fuzzer: flate's kustomize engine against `kubectl kustomize`.

Every case is a random but realistic kustomization tree (bases, overlays,
components; workloads, services, config, RBAC, ingress, Flux CRDs; all the
builtin transformers, patches, replacements and generators; odd scalars,
keys, long and multi-line strings, several YAML styles). Both engines build
it; a case is a mismatch when the outputs differ or when exactly one of them
fails. Error messages are not compared.

Reproducible: case K of seed N is always the same tree, whatever --count,
--jobs or the other cases. Failing cases are kept (tree plus both outputs and
a diff) under --keep.

    tools/kustomize_fuzz.py --seed 1 --count 2000
    tools/kustomize_fuzz.py --seed 1 --only 417 --keep /tmp/kf   # one case again
    tools/kustomize_fuzz.py --seed 1 --only 417 --print          # show its tree

Only the Python standard library is used.
"""

import argparse
import collections
import concurrent.futures
import difflib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# --------------------------------------------------------------------------
# YAML writer with randomized (but always valid) styles.


class Raw(str):
    """A scalar written verbatim as a plain scalar (its meaning is whatever
    YAML makes of it: `0x1F`, `on`, `1e3`, `2001-12-14` ...)."""


class Lit(str):
    """A string that prefers a literal block scalar."""


PLAIN_BAD_FIRST = set("-?:,[]{}#&*!|>'\"%@`")


def is_odd_char(c):
    o = ord(c)
    return (
        o < 0x20
        or o == 0x7F
        or 0x80 <= o < 0xA0
        or c in "\u2028\u2029\ufeff"
        or 0xD800 <= o <= 0xDFFF
    )


def plain_ok(s, flow):
    if not s or s != s.strip(" "):
        return False
    if any(is_odd_char(c) for c in s):
        return False
    if s[0] in PLAIN_BAD_FIRST:
        if not (s[0] in "-?" and len(s) > 1 and s[1] != " " and not flow):
            return False
    if ": " in s or " #" in s or s.endswith(":"):
        return False
    if flow and any(c in s for c in ",[]{}:#'\""):
        return False
    if s.startswith("---") or s.startswith("..."):
        return False
    return True


def double_quoted(s, rng):
    ascii_only = rng.random() < 0.2
    out = ['"']
    for c in s:
        o = ord(c)
        if c == '"':
            out.append('\\"')
        elif c == "\\":
            out.append("\\\\")
        elif c == "\n":
            out.append("\\n")
        elif c == "\t":
            out.append("\\t" if rng.random() < 0.7 else "\t")
        elif c == "\r":
            out.append("\\r")
        elif is_odd_char(c):
            out.append("\\x%02x" % o if o <= 0xFF else "\\u%04x" % o)
        elif ascii_only and o > 0x7E:
            out.append("\\u%04x" % o if o <= 0xFFFF else "\\U%08x" % o)
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


def single_ok(s):
    return "\n" not in s and not any(is_odd_char(c) for c in s) and "\t" not in s


def literal_ok(s):
    if "\n" not in s or s.startswith((" ", "\n", "\t")):
        return False
    if any(is_odd_char(c) and c != "\n" for c in s) or "\t" in s:
        return False
    body = s.rstrip("\n")
    for line in body.split("\n"):
        if line.strip(" ") == "" and line != "":
            return False
    return True


def folded_ok(s):
    return bool(s) and "\n" not in s and s == s.strip() and not any(is_odd_char(c) for c in s) and "\t" not in s


def folded(s, indent, rng, exact=False):
    """A folded block scalar for a one-line text, with random chomping and
    trailing empty lines (what the text then means is up to the parsers).
    `exact` keeps the text as it is (strip chomping), almost always."""
    chomp = rng.choice(["-", "", "+"]) if not exact or rng.random() < 0.01 else "-"
    extra = "\n" * rng.choice([0, 0, 1, 2]) if chomp == "+" else ""
    return ">" + chomp + "\n" + " " * indent + s + "\n" + extra


def literal(s, indent):
    trailing = len(s) - len(s.rstrip("\n"))
    chomp = "-" if trailing == 0 else ("" if trailing == 1 else "+")
    body = s.rstrip("\n")
    pad = " " * indent
    lines = [(pad + line) if line else "" for line in body.split("\n")]
    extra = [""] * (trailing - 1) if trailing > 1 else []
    return "|" + chomp + "\n" + "\n".join(lines + extra) + "\n"


QUOTE = {"p": 0.2, "safe": False}

NONSTR_RE = re.compile(r"""^(?:
    ~|null|Null|NULL|
    [yY]|yes|Yes|YES|[nN]|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|
    [-+]?(?:0|[1-9][0-9_]*)|[-+]?0[0-7_]+|[-+]?0o[0-7_]+|[-+]?0x[0-9a-fA-F_]+|[-+]?0b[01_]+|
    [-+]?(?:[0-9][0-9_]*)?\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[-+]?[0-9][0-9_]*(?:[eE][-+]?[0-9]+)|
    [-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?|
    [-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|
    [0-9]{4}-[0-9]{1,2}-[0-9]{1,2}.*
)$""", re.X)


def looks_nonstring(s):
    return bool(NONSTR_RE.match(s))


def scalar_text(v, rng, flow, key=False):
    if v is None:
        return rng.choice(["null", "~", "null", "Null"]) if not key else '""'
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, Raw):
        return str(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        r = repr(v)
        return r if r not in ("inf", "-inf", "nan") else {
            "inf": ".inf", "-inf": "-.inf", "nan": ".nan"}[r]
    s = str(v)
    if plain_ok(s, flow) and rng.random() >= QUOTE["p"] and not (QUOTE["safe"] and looks_nonstring(s)):
        style = "plain"
    elif single_ok(s) and rng.random() < 0.5:
        style = "single"
    else:
        style = "double"
    if style == "plain":
        return s
    if style == "single":
        return "'" + s.replace("'", "''") + "'"
    return double_quoted(s, rng)


def key_text(k, rng, flow):
    k = k if isinstance(k, str) else str(k)
    if looks_nonstring(k) and rng.random() < 0.995:
        # A key YAML reads as a number or bool makes kustomize fail early.
        return "'" + k + "'" if rng.random() < 0.5 else double_quoted(k, rng)
    return scalar_text(k, rng, flow, key=True)


def flow_text(v, rng):
    if isinstance(v, dict):
        if not v:
            return "{}"
        return "{" + ", ".join(
            key_text(k, rng, True) + ": " + flow_text(x, rng) for k, x in v.items()
        ) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(flow_text(x, rng) for x in v) + "]"
    if isinstance(v, str) and not isinstance(v, Raw) and "\n" in v:
        return double_quoted(v, rng)
    if isinstance(v, Raw) and not plain_ok(v, True):
        return double_quoted(str(v), rng)
    return scalar_text(v, rng, True)


class BlockWriter:
    def __init__(self, rng, flow_prob=0.08, indentless_prob=0.5, seq_indent=None):
        self.rng = rng
        self.flow_prob = flow_prob
        # One choice per file: kyaml-style indented sequences or not.
        self.indentless = rng.random() < indentless_prob if seq_indent is None else not seq_indent

    def value_after_key(self, v, ind, key=None):
        """Text after `key:` (starting with a space or newline)."""
        rng = self.rng
        if isinstance(v, (dict, list)):
            if not v:
                return " " + ("{}" if isinstance(v, dict) else "[]") + "\n"
            if rng.random() < self.flow_prob:
                return " " + flow_text(v, rng) + "\n"
            if isinstance(v, dict):
                return "\n" + self.mapping(v, ind + 2)
            return "\n" + self.sequence(v, ind if self.indentless else ind + 2)
        if isinstance(v, str) and not isinstance(v, Raw) and literal_ok(v) and (
            isinstance(v, Lit) or rng.random() < 0.7
        ):
            return " " + literal(v, ind + 2)
        if isinstance(v, str) and not isinstance(v, Raw) and folded_ok(v) and rng.random() < 0.1:
            # Identity fields and kustomization fields (typed) keep their
            # text: a line break there just makes both engines fail.
            exact = QUOTE["safe"] or key in ("apiVersion", "kind", "name", "namespace")
            return " " + folded(v, ind + 2, rng, exact)
        return " " + scalar_text(v, rng, False) + "\n"

    def mapping(self, m, ind):
        out = []
        for k, v in m.items():
            out.append(" " * ind + key_text(k, self.rng, False) + ":" + self.value_after_key(v, ind, k))
        return "".join(out)

    def sequence(self, s, ind):
        out = []
        rng = self.rng
        for v in s:
            if isinstance(v, dict) and v and rng.random() >= self.flow_prob:
                body = self.mapping(v, ind + 2)
                out.append(" " * ind + "- " + body[ind + 2:])
            elif isinstance(v, list) and v and rng.random() >= self.flow_prob:
                body = self.sequence(v, ind + 2)
                out.append(" " * ind + "- " + body[ind + 2:])
            elif isinstance(v, (dict, list)):
                out.append(" " * ind + "- " + flow_text(v, rng) + "\n")
            elif isinstance(v, str) and not isinstance(v, Raw) and literal_ok(v) and rng.random() < 0.6:
                out.append(" " * ind + "- " + literal(v, ind + 2))
            else:
                out.append(" " * ind + "- " + scalar_text(v, rng, False) + "\n")
        return "".join(out)

    def document(self, v):
        if isinstance(v, dict):
            return self.mapping(v, 0) if v else "{}\n"
        if isinstance(v, list):
            return self.sequence(v, 0) if v else "[]\n"
        return scalar_text(v, self.rng, False) + "\n"


def to_jsonable(v):
    if isinstance(v, dict):
        return {str(k): to_jsonable(x) for k, x in v.items()}
    if isinstance(v, list):
        return [to_jsonable(x) for x in v]
    if isinstance(v, Raw):
        return str(v)
    if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
        return str(v)
    return v


def dump_docs(docs, rng, allow_json=True):
    """A YAML stream for `docs` in a random style."""
    QUOTE["p"] = rng.choice([0.02, 0.05, 0.1, 0.4])
    r = rng.random()
    if allow_json and len(docs) == 1 and r < 0.08:
        return json.dumps(to_jsonable(docs[0]), indent=rng.choice([None, 2, 4]),
                          ensure_ascii=rng.random() < 0.1) + "\n"
    w = BlockWriter(rng)
    parts = []
    for i, d in enumerate(docs):
        text = w.document(d)
        if i > 0 or rng.random() < 0.2:
            text = "---\n" + text
        if rng.random() < 0.1:
            text = "# generated by kustomize_fuzz\n" + text
        if rng.random() < 0.1:
            text += rng.choice(["\n# trailing comment\n", "# trailing comment\n", "\n  # indented comment\n"])
        parts.append(text)
    out = "".join(parts)
    if rng.random() < 0.05:
        out += "---\n"
    return out


def dump(doc, rng, allow_json=True):
    return dump_docs([doc], rng, allow_json)


# --------------------------------------------------------------------------
# Values.

WORDS = [
    "web", "api", "db", "cache", "worker", "frontend", "backend", "auth", "queue",
    "metrics", "gateway", "search", "billing", "mail", "cron", "store", "proxy",
    "redis", "kafka", "ingest",
]

ODD_STRINGS = [
    "on", "off", "yes", "no", "y", "n", "Y", "N", "true", "True", "false", "FALSE",
    "null", "Null", "~", "", "0", "00", "007", "08", "0x1F", "0o17", "0b101", "1e3",
    "1E+3", "1.0", "-1", "+1", ".5", "5.", "1_000", "1:20", "12:30:45", "-0",
    "2001-12-14", "2001-12-14t21:59:43.10-05:00", "2024-01-01T00:00:00Z", "2024-1-1",
    ".inf", "-.Inf", ".nan", "0.1.2", "v1.2.3", "1.2.3.4", "*", "&x", "!tag", "%x",
    "@at", "`bt", "#hash", "x #y", "a#b", "key: value", "a:b", "http://x.y/z?q=1&r=2",
    "-", "- x", "--", "?", "? x", "[a]", "{a}", "a,b", "|", ">", "'", '"', "'single'",
    '"double"', " lead", "trail ", "  ", "\t", "tab\there", "a\\b", "é", "日本語",
    "emoji 😀", "nbsp\u00a0x", "zw\u200bsp", "<html>&amp;</html>", "a  b", "x: ",
    "=", "a=b", "${VAR}", "$(VAR)", "{{ .Values.x }}", "%{x}", "\\n", "0.0.0.0/0",
    "*.example.com", "/", "./path", "C:\\dir", "100m", "1Gi", "0.5", "1e-7", "12e",
    "+.5", "0x", "0xG", "1__0", "_1", "1,000", "NaN", "Infinity", "inf",
]

MULTILINE_STRINGS = [
    "line1\nline2", "line1\nline2\n", "line1\n\n", "x\n indented\n", " indented\nx",
    "trailing space \nx", "a\r\nb\r\n", "\n", "\nleading", "x\n\ny\n",
    "#!/bin/sh\necho \"$HOME\"\nexit 0\n", "key: value\nlist:\n  - a\n  - b\n",
    '{"json": [1, 2, {"a": "b"}]}\n', "tab\tin\nblock\n", "x\n\n\n", "ends\nwith space ",
    "[section]\nkey = value\n# comment\n", "a\u2028b", "a\u0085b\n", "\tleading tab\nline\n",
]


def long_text(rng):
    kind = rng.random()
    if kind < 0.5:
        n = rng.randint(8, 40)
        sep = lambda: rng.choice([" ", " ", " ", " ", "  ", ", ", " - "])  # noqa: E731
        s = rng.choice(WORDS)
        for _ in range(n):
            s += sep() + rng.choice(WORDS + ["lorem", "ipsum", "dolor", "x" * rng.randint(1, 30)])
        return s
    if kind < 0.7:
        return "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
                       for _ in range(rng.randint(60, 300)))
    if kind < 0.85:
        return "https://example.com/" + "/".join(rng.choice(WORDS) for _ in range(rng.randint(10, 30)))
    lines = [long_text(rng) if rng.random() < 0.3 else " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 8)))
             for _ in range(rng.randint(2, 6))]
    return "\n".join(lines) + rng.choice(["", "\n", "\n\n"])


def odd_scalar(rng, allow_nonstr=True):
    r = rng.random()
    if r < 0.35:
        s = rng.choice(ODD_STRINGS)
        if allow_nonstr and rng.random() < 0.3 and plain_ok(s, False):
            return Raw(s)
        return s
    if r < 0.5:
        return rng.choice(MULTILINE_STRINGS)
    if r < 0.6:
        return long_text(rng)
    if r < 0.8 or not allow_nonstr:
        return rng.choice(WORDS) + rng.choice(["", "-1", ".v2", "_x", " two words"])
    return rng.choice([
        0, 1, -5, 42, 3.14, 1.5e-7, 1e21, 123456789.125, 2 ** 53 + 1, 2 ** 63 - 1, -(2 ** 63),
        Raw("18446744073709551615"), Raw("18446744073709551616"), Raw("1e400"), Raw("0.1"),
        Raw("1.0"), Raw("-0.0"), Raw("1e+3"), Raw("0x10"), Raw("0o10"), Raw("010"),
        True, False, None, 1.0, 100.0, 0.000001, 1e-5,
    ])


def odd_key(rng):
    if rng.random() < 0.01:
        # Keys YAML reads as numbers, bools or null.
        return rng.choice(["1", "10", "true", "null", "~", "0x10", "1e3"])
    return rng.choice([
        "app.kubernetes.io/name", "example.com/team", "a/b", "2a", "y", "n",
        "on", "yes", "NO", "x y", "x.y", "_under", "-dash", "UPPER",
        "a" * 130, "key:colon", "é", "k#1", "k=v", "a10", "a2",
        "A", "b", "Z", "z", "@at", "'q'", "[k]", "ü" * 70,
    ])


def label_value(rng):
    r = rng.random()
    if r < 0.75:
        return rng.choice(WORDS) + rng.choice(["", "-v1", ".x", "_1"])
    return rng.choice(["true", "1", "on", "", "1.0", "0x1F", "null", "yes", "v1.2.3", "2024-01-01"])


def label_key(rng):
    if rng.random() < 0.01:
        # Added untagged, a key YAML reads as a number fails the build.
        return "1"
    return rng.choice(["app", "tier", "team", "env", "app.kubernetes.io/part-of",
                       "example.com/owner", "version", "track", "a", "on", "y"])


# --------------------------------------------------------------------------
# Resources.

IMAGES = [
    "nginx", "nginx:1.25", "busybox", "redis:7@sha256:" + "a" * 64,
    "registry.example.com/team/app:v1.2.3", "registry.example.com:5000/app",
    "ghcr.io/org/worker:latest", "docker.io/library/postgres:16", "gcr.io/proj/img@sha256:" + "b" * 64,
    "app", "app:1.0", "quay.io/prometheus/node-exporter:v1.7.0",
]


def image_name(img):
    # kustomize's image.Split without tag/digest
    slash = img.find("/")
    head, tail = (img[: slash + 1], img[slash + 1:]) if slash > 0 else ("", img)
    for sep in ("@", ":"):
        if sep in tail:
            tail = tail[: tail.index(sep)]
    return head + tail


class Res:
    def __init__(self, obj):
        self.obj = obj

    @property
    def kind(self):
        return self.obj["kind"]

    @property
    def api(self):
        return self.obj["apiVersion"]

    @property
    def name(self):
        return self.obj["metadata"]["name"]

    @property
    def namespace(self):
        return self.obj["metadata"].get("namespace")


class World:
    """What a case knows about its objects, for references and patches."""

    def __init__(self, rng):
        self.rng = rng
        self.names = set()
        self.configmaps = []   # names usable as references
        self.secrets = []
        self.services = []
        self.serviceaccounts = []
        self.roles = []
        self.clusterroles = []
        self.pvcs = []
        self.workloads = []
        self.images = []
        self.containers = collections.defaultdict(list)

    def fresh(self, base):
        rng = self.rng
        for _ in range(100):
            n = base if rng.random() < 0.4 else base + "-" + rng.choice(WORDS)
            if rng.random() < 0.05:
                n = n + "." + rng.choice(WORDS)
            if n not in self.names:
                self.names.add(n)
                return n
        n = base + "-" + str(len(self.names))
        self.names.add(n)
        return n


def meta(w, rng, name, ns=None):
    m = {"name": name}
    if ns:
        m["namespace"] = ns
    if rng.random() < 0.5:
        m["labels"] = {label_key(rng): label_value(rng) for _ in range(rng.randint(1, 3))}
    if rng.random() < 0.3:
        m["annotations"] = {rng.choice([odd_key(rng), "description", "example.com/note"]): odd_scalar(rng, allow_nonstr=rng.random() < 0.2)
                            for _ in range(rng.randint(1, 3))}
    return m


def maybe_ref(rng, pool, fallback):
    return rng.choice(pool) if pool and rng.random() < 0.8 else fallback


def container(w, rng, cname):
    img = rng.choice(IMAGES)
    w.images.append(img)
    c = {"name": cname, "image": img}
    if rng.random() < 0.6:
        ports = []
        for p in rng.sample([80, 443, 8080, 9090, 53], rng.randint(1, 3)):
            port = {"containerPort": p}
            if rng.random() < 0.5:
                port["name"] = rng.choice(["http", "https", "metrics", "dns", "grpc"]) + str(p)
            if rng.random() < 0.4:
                port["protocol"] = rng.choice(["TCP", "UDP"])
            ports.append(port)
        c["ports"] = ports
    if rng.random() < 0.6:
        env = []
        for i in range(rng.randint(1, 4)):
            e = {"name": rng.choice(["LOG_LEVEL", "MODE", "DB_HOST", "PORT", "FLAG", "EMPTY"]) + str(i)}
            r = rng.random()
            if r < 0.5:
                e["value"] = odd_scalar(rng, allow_nonstr=rng.random() < 0.15)
            elif r < 0.75:
                e["valueFrom"] = {"configMapKeyRef": {"name": maybe_ref(rng, w.configmaps, "ext-config"), "key": "key" + str(i)}}
            elif r < 0.9:
                e["valueFrom"] = {"secretKeyRef": {"name": maybe_ref(rng, w.secrets, "ext-secret"), "key": "password"}}
            else:
                e["valueFrom"] = {"fieldRef": {"fieldPath": "metadata.namespace"}}
            env.append(e)
        c["env"] = env
    if rng.random() < 0.3:
        ef = []
        if rng.random() < 0.7:
            ef.append({"configMapRef": {"name": maybe_ref(rng, w.configmaps, "ext-config")}})
        if rng.random() < 0.5:
            ef.append({"secretRef": {"name": maybe_ref(rng, w.secrets, "ext-secret")}, "prefix": "S_"})
        if ef:
            c["envFrom"] = ef
    if rng.random() < 0.4:
        c["resources"] = {"limits": {"cpu": rng.choice([Raw("1"), "500m", Raw("0.5"), "2"]), "memory": rng.choice(["128Mi", "1Gi"])},
                          "requests": {"cpu": rng.choice(["100m", Raw("0.1")])}}
    if rng.random() < 0.3:
        c["args"] = [odd_scalar(rng, allow_nonstr=False) for _ in range(rng.randint(1, 3))]
    if rng.random() < 0.2:
        c["command"] = ["/bin/sh", "-c", rng.choice(MULTILINE_STRINGS + ["echo hi"])]
    if rng.random() < 0.3:
        c["volumeMounts"] = [{"name": "config", "mountPath": "/etc/config", "readOnly": True}]
    return c


def pod_spec(w, rng, base):
    cs = [container(w, rng, base)]
    if rng.random() < 0.3:
        cs.append(container(w, rng, "sidecar"))
    w.containers[base] = [c["name"] for c in cs]
    spec = {"containers": cs}
    if rng.random() < 0.2:
        spec["initContainers"] = [container(w, rng, "init")]
    if rng.random() < 0.5:
        vols = [{"name": "config", "configMap": {"name": maybe_ref(rng, w.configmaps, "ext-config")}}]
        if rng.random() < 0.5:
            vols.append({"name": "secret", "secret": {"secretName": maybe_ref(rng, w.secrets, "ext-secret")}})
        if rng.random() < 0.3:
            vols.append({"name": "data", "persistentVolumeClaim": {"claimName": maybe_ref(rng, w.pvcs, "ext-pvc")}})
        if rng.random() < 0.2:
            vols.append({"name": "tmp", "emptyDir": {}})
        spec["volumes"] = vols
    if rng.random() < 0.3:
        spec["serviceAccountName"] = maybe_ref(rng, w.serviceaccounts, "default")
    if rng.random() < 0.2:
        spec["imagePullSecrets"] = [{"name": maybe_ref(rng, w.secrets, "regcred")}]
    if rng.random() < 0.2:
        spec["nodeSelector"] = {"kubernetes.io/os": "linux", label_key(rng): label_value(rng)}
    if rng.random() < 0.15:
        spec["tolerations"] = [{"key": "dedicated", "operator": "Equal", "value": rng.choice(WORDS), "effect": "NoSchedule"}]
    if rng.random() < 0.15:
        spec["affinity"] = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 100, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname",
                                                "labelSelector": {"matchLabels": {"app": base}}}}]}}
    return spec


def gen_workload(w, rng, kind, ns):
    base = rng.choice(WORDS)
    name = w.fresh(base)
    sel = {"app": base} if rng.random() < 0.8 else {"app": base, "tier": label_value(rng)}
    tmpl = {"metadata": {"labels": dict(sel)}, "spec": pod_spec(w, rng, name)}
    if rng.random() < 0.2:
        tmpl["metadata"]["annotations"] = {"prometheus.io/scrape": rng.choice(["true", Raw("true")])}
    if kind == "Deployment":
        obj = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta(w, rng, name, ns),
               "spec": {"selector": {"matchLabels": sel}, "template": tmpl}}
        if rng.random() < 0.7:
            obj["spec"]["replicas"] = rng.choice([1, 2, 3, 0, 2, "2"])
        if rng.random() < 0.2:
            obj["spec"]["strategy"] = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": rng.choice([1, "25%"]), "maxUnavailable": 0}}
    elif kind == "StatefulSet":
        obj = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": meta(w, rng, name, ns),
               "spec": {"serviceName": maybe_ref(rng, w.services, name), "replicas": rng.choice([1, 3]),
                        "selector": {"matchLabels": sel}, "template": tmpl}}
        if rng.random() < 0.6:
            obj["spec"]["volumeClaimTemplates"] = [{"metadata": {"name": "data"}, "spec": {
                "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}]
    elif kind == "DaemonSet":
        obj = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": meta(w, rng, name, ns),
               "spec": {"selector": {"matchLabels": sel}, "template": tmpl}}
    else:
        tmpl["spec"]["restartPolicy"] = "OnFailure"
        obj = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": meta(w, rng, name, ns),
               "spec": {"schedule": rng.choice(["*/5 * * * *", "0 0 * * *", "@hourly"]),
                        "jobTemplate": {"spec": {"template": tmpl}}}}
        if rng.random() < 0.3:
            obj["spec"]["concurrencyPolicy"] = "Forbid"
    w.workloads.append((kind, name))
    return obj


def gen_service(w, rng, ns):
    name = w.fresh(rng.choice(WORDS))
    ports = []
    for p in rng.sample([80, 443, 8080, 9090], rng.randint(1, 3)):
        port = {"port": p, "targetPort": rng.choice([p, "http", p + 1])}
        if rng.random() < 0.6:
            port["name"] = "p" + str(p)
        if rng.random() < 0.3:
            port["protocol"] = "TCP"
        ports.append(port)
    obj = {"apiVersion": "v1", "kind": "Service", "metadata": meta(w, rng, name, ns),
           "spec": {"selector": {"app": rng.choice(WORDS)}, "ports": ports}}
    if rng.random() < 0.3:
        obj["spec"]["type"] = rng.choice(["ClusterIP", "NodePort", "LoadBalancer"])
    w.services.append(name)
    return obj


def gen_configmap(w, rng, ns):
    name = w.fresh(rng.choice(WORDS) + "-config")
    data = {}
    for _ in range(rng.randint(1, 5)):
        k = rng.choice(["key0", "key1", "config.yaml", "LOG_LEVEL", "empty", "script.sh", "flag", odd_key(rng)])
        data[k] = odd_scalar(rng, allow_nonstr=rng.random() < 0.15)
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta(w, rng, name, ns), "data": data}
    if rng.random() < 0.1:
        obj["immutable"] = True
    w.configmaps.append(name)
    return obj


def gen_secret(w, rng, ns):
    name = w.fresh(rng.choice(WORDS) + "-secret")
    obj = {"apiVersion": "v1", "kind": "Secret", "metadata": meta(w, rng, name, ns),
           "type": rng.choice(["Opaque", "kubernetes.io/dockerconfigjson", "Opaque"])}
    if rng.random() < 0.5:
        obj["stringData"] = {"password": odd_scalar(rng, allow_nonstr=False)}
    else:
        obj["data"] = {"password": "cGFzc3dvcmQ=", "user": "YWRtaW4="}
    w.secrets.append(name)
    return obj


def gen_rbac(w, rng, ns):
    out = []
    sa = w.fresh("sa")
    out.append({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta(w, rng, sa, ns)})
    w.serviceaccounts.append(sa)
    cluster = rng.random() < 0.5
    role = w.fresh("role")
    rules = [{"apiGroups": [""], "resources": ["configmaps", "secrets"], "verbs": ["get", "list"]}]
    if rng.random() < 0.4:
        rules[0]["resourceNames"] = [maybe_ref(rng, w.configmaps, "x")]
    if cluster:
        out.append({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": meta(w, rng, role), "rules": rules})
        w.clusterroles.append(role)
    else:
        out.append({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": meta(w, rng, role, ns), "rules": rules})
        w.roles.append(role)
    subj = {"kind": "ServiceAccount", "name": rng.choice([sa, sa, "default"])}
    if rng.random() < 0.5:
        subj["namespace"] = rng.choice([ns or "default", "other", "kube-system"])
    subjects = [subj]
    if rng.random() < 0.2:
        subjects.append({"kind": "User", "name": "jane", "apiGroup": "rbac.authorization.k8s.io"})
    bkind = "ClusterRoleBinding" if (cluster and rng.random() < 0.6) else "RoleBinding"
    b = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": bkind,
         "metadata": meta(w, rng, w.fresh("binding"), ns if bkind == "RoleBinding" else None),
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole" if cluster else "Role", "name": role},
         "subjects": subjects}
    out.append(b)
    return out


def gen_ingress(w, rng, ns):
    svc = maybe_ref(rng, w.services, "ext-svc")
    name = w.fresh("ingress")
    obj = {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": meta(w, rng, name, ns),
           "spec": {"rules": [{"host": rng.choice(["example.com", "*.example.com", "a.b.c"]),
                               "http": {"paths": [{"path": "/", "pathType": "Prefix",
                                                   "backend": {"service": {"name": svc, "port": {"number": 80}}}}]}}]}}
    if rng.random() < 0.4:
        obj["spec"]["tls"] = [{"hosts": ["example.com"], "secretName": maybe_ref(rng, w.secrets, "tls")}]
    if rng.random() < 0.3:
        obj["spec"]["ingressClassName"] = "nginx"
    return obj


def gen_helmrelease(w, rng, ns):
    name = w.fresh("release")
    values = {
        "replicaCount": rng.choice([1, 2, Raw("3")]),
        "image": {"repository": image_name(rng.choice(IMAGES)), "tag": rng.choice(["1.0", Raw("1.0"), "latest"])},
        "list": [{"name": "a", "value": odd_scalar(rng)}, {"name": "b"}],
        "plain": [odd_scalar(rng) for _ in range(rng.randint(0, 3))],
        odd_key(rng): odd_scalar(rng),
    }
    if rng.random() < 0.3:
        values["config"] = rng.choice(MULTILINE_STRINGS)
    obj = {"apiVersion": rng.choice(["helm.toolkit.fluxcd.io/v2", "helm.toolkit.fluxcd.io/v2beta1"]),
           "kind": "HelmRelease", "metadata": meta(w, rng, name, ns),
           "spec": {"interval": rng.choice(["5m", "1h0m0s", Raw("10m")]),
                    "chart": {"spec": {"chart": rng.choice(WORDS), "version": rng.choice(["1.2.3", ">=1.0.0", Raw("1.0")]),
                                       "sourceRef": {"kind": "HelmRepository", "name": "charts", "namespace": "flux-system"}}},
                    "values": values}}
    if rng.random() < 0.4:
        obj["spec"]["valuesFrom"] = [{"kind": "ConfigMap", "name": maybe_ref(rng, w.configmaps, "vals")}]
    return obj


def gen_flux_ks(w, rng, ns):
    name = w.fresh("apps")
    obj = {"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
           "metadata": meta(w, rng, name, ns or "flux-system"),
           "spec": {"interval": "10m", "path": rng.choice(["./apps/prod", "./infra", "."]), "prune": rng.choice([True, False]),
                    "sourceRef": {"kind": "GitRepository", "name": "flux-system"}}}
    if rng.random() < 0.5:
        obj["spec"]["postBuild"] = {"substitute": {"cluster_name": rng.choice(WORDS), "replicas": rng.choice(["2", Raw("2"), "on"])}}
    if rng.random() < 0.3:
        obj["spec"]["dependsOn"] = [{"name": rng.choice(WORDS)}]
    if rng.random() < 0.3:
        obj["spec"]["patches"] = [{"patch": "- op: add\n  path: /metadata/labels/x\n  value: y\n", "target": {"kind": "Deployment"}}]
    return obj


def gen_misc(w, rng, ns):
    r = rng.random()
    if r < 0.25:
        name = w.fresh("data")
        w.pvcs.append(name)
        return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta(w, rng, name, ns),
                "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": rng.choice(["1Gi", "500Mi"])}}}}
    if r < 0.45 and w.workloads:
        kind, target = rng.choice(w.workloads)
        return {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": meta(w, rng, w.fresh("hpa"), ns),
                "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": kind, "name": target},
                         "minReplicas": 1, "maxReplicas": rng.choice([3, 10])}}
    if r < 0.6:
        return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": meta(w, rng, w.fresh("pdb"), ns),
                "spec": {"minAvailable": rng.choice([1, "50%"]), "selector": {"matchLabels": {"app": rng.choice(WORDS)}}}}
    if r < 0.7:
        return {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": meta(w, rng, w.fresh("netpol"), ns),
                "spec": {"podSelector": {"matchLabels": {"app": rng.choice(WORDS)}},
                         "ingress": [{"from": [{"podSelector": {"matchLabels": {"role": "frontend"}}}]}]}}
    if r < 0.8:
        return {"apiVersion": "v1", "kind": "Namespace", "metadata": meta(w, rng, w.fresh("ns"))}
    if r < 0.9:
        plural = rng.choice(WORDS) + "s"
        return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                "metadata": {"name": plural + ".example.com"},
                "spec": {"group": "example.com", "names": {"kind": plural.capitalize()[:-1], "plural": plural},
                         "scope": "Namespaced", "versions": [{"name": "v1", "served": True, "storage": True,
                                                              "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]}}
    return {"apiVersion": "example.com/v1alpha1", "kind": "Widget", "metadata": meta(w, rng, w.fresh("widget"), ns),
            "spec": {"size": odd_scalar(rng), "items": [{"name": "a", "v": 1}, {"name": "b", "v": odd_scalar(rng)}],
                     "containers": [{"name": "c", "image": rng.choice(IMAGES)}]}}


def gen_resources(w, rng, ns, n):
    out = []
    # Config first so workloads can reference it.
    for _ in range(rng.randint(0, 2)):
        out.append(gen_configmap(w, rng, ns))
    if rng.random() < 0.5:
        out.append(gen_secret(w, rng, ns))
    for _ in range(n):
        r = rng.random()
        if r < 0.3:
            out.append(gen_workload(w, rng, rng.choice(["Deployment", "Deployment", "StatefulSet", "CronJob", "DaemonSet"]), ns))
        elif r < 0.45:
            out.append(gen_service(w, rng, ns))
        elif r < 0.55:
            out.extend(gen_rbac(w, rng, ns))
        elif r < 0.63:
            out.append(gen_ingress(w, rng, ns))
        elif r < 0.72:
            out.append(gen_helmrelease(w, rng, ns))
        elif r < 0.78:
            out.append(gen_flux_ks(w, rng, ns))
        else:
            out.append(gen_misc(w, rng, ns))
    return out


# --------------------------------------------------------------------------
# Kustomization features.


def pick_res(rng, res, kinds=None):
    cands = [r for r in res if kinds is None or r.kind in kinds]
    return rng.choice(cands) if cands else None


def target_of(rng, r, regex=True):
    t = {}
    if rng.random() < 0.8:
        t["kind"] = r.kind
    if rng.random() < 0.7 or not t:
        n = r.name
        if regex and rng.random() < 0.2:
            n = n[: max(1, len(n) // 2)] + ".*"
        t["name"] = n
    if rng.random() < 0.2:
        g, _, v = r.api.rpartition("/")
        if g:
            t["group"] = g
        t["version"] = v
    if rng.random() < 0.1 and r.namespace:
        t["namespace"] = r.namespace
    if regex and rng.random() < 0.1:
        t = {"labelSelector": rng.choice(["app", "app=web", "tier in (web,api)", "!team", "env!=prod"])}
    if regex and rng.random() < 0.05:
        t = {"annotationSelector": "example.com/note"}
    return t


def header(r, rng, with_ns=True):
    h = {"apiVersion": r.api, "kind": r.kind, "metadata": {"name": r.name}}
    if with_ns and r.namespace and rng.random() < 0.8:
        h["metadata"]["namespace"] = r.namespace
    return h


def smp_body(rng, r, w):
    """A strategic-merge patch body for resource r (without header)."""
    k = r.kind
    obj = r.obj
    choices = []
    body = {}
    if k in ("Deployment", "StatefulSet", "DaemonSet"):
        spec = obj["spec"]
        cs = spec["template"]["spec"]["containers"]
        c0 = rng.choice(cs)["name"]
        choices = ["replicas", "image", "env", "newc", "delc", "ports", "tmpl_labels", "volumes", "resources", "replace", "null", "tolerations", "setorder"]
        what = rng.choice(choices)
        if what == "replicas":
            body = {"spec": {"replicas": rng.choice([0, 5, Raw("7"), "3"])}}
        elif what == "image":
            body = {"spec": {"template": {"spec": {"containers": [{"name": c0, "image": rng.choice(IMAGES)}]}}}}
        elif what == "env":
            env = [{"name": rng.choice(["LOG_LEVEL0", "NEW", "MODE1"]), "value": odd_scalar(rng)}]
            if rng.random() < 0.3:
                env.append({"name": "LOG_LEVEL0", "$patch": "delete"})
            body = {"spec": {"template": {"spec": {"containers": [{"name": c0, "env": env}]}}}}
        elif what == "newc":
            body = {"spec": {"template": {"spec": {"containers": [container(w, rng, rng.choice(["extra", "sidecar", c0]))]}}}}
        elif what == "delc":
            body = {"spec": {"template": {"spec": {"containers": [{"name": c0, "$patch": "delete"}]}}}}
        elif what == "ports":
            ports = []
            for _ in range(rng.randint(1, 2)):
                p = {"containerPort": rng.choice([80, 443, 8080, 53])}
                if rng.random() < 0.5:
                    p["protocol"] = rng.choice(["TCP", "UDP"])
                if rng.random() < 0.5:
                    p["name"] = rng.choice(["http", "new", "dns"])
                ports.append(p)
            body = {"spec": {"template": {"spec": {"containers": [{"name": c0, "ports": ports}]}}}}
        elif what == "tmpl_labels":
            body = {"spec": {"template": {"metadata": {"labels": {label_key(rng): label_value(rng)},
                                                        "annotations": {odd_key(rng): odd_scalar(rng, False)}}}}}
        elif what == "volumes":
            body = {"spec": {"template": {"spec": {"volumes": [{"name": rng.choice(["config", "extra"]), "configMap": {"name": maybe_ref(rng, w.configmaps, "x")}}]}}}}
        elif what == "resources":
            body = {"spec": {"template": {"spec": {"containers": [{"name": c0, "resources": {"limits": {"memory": "2Gi"}, "requests": None}}]}}}}
        elif what == "replace":
            body = {"spec": {"template": {"metadata": {"$patch": "replace", "labels": dict(spec["selector"]["matchLabels"])}}}}
        elif what == "null":
            body = {"spec": {rng.choice(["replicas", "strategy", "template"]): None}}
            if rng.random() < 0.5:
                body = {"metadata": {"labels": None, "annotations": {"a": "b"}}}
        elif what == "tolerations":
            body = {"spec": {"template": {"spec": {"tolerations": [{"key": "x", "operator": "Exists"}],
                                                   "nodeSelector": {"disk": "ssd"}}}}}
        elif what == "setorder":
            body = {"spec": {"template": {"spec": {"$setElementOrder/containers": [{"name": c0}],
                                                   "containers": [{"name": c0, "imagePullPolicy": "Always"}]}}}}
    elif k == "CronJob":
        body = rng.choice([
            {"spec": {"schedule": "0 * * * *", "suspend": True}},
            {"spec": {"jobTemplate": {"spec": {"template": {"spec": {"containers": [{"name": obj["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]["name"], "image": "busybox:1.36"}]}}}}}},
        ])
    elif k == "Service":
        ports = [{"port": rng.choice([80, 443, 8443]), "targetPort": rng.choice([8443, "https"]), "name": rng.choice(["https", "p80"])}]
        if rng.random() < 0.3:
            ports[0]["protocol"] = rng.choice(["TCP", "UDP"])
        body = rng.choice([{"spec": {"ports": ports}}, {"spec": {"type": "NodePort"}},
                           {"spec": {"selector": {"app": "patched"}}}, {"spec": {"ports": [{"port": 80, "$patch": "delete"}]}}])
    elif k == "ConfigMap":
        body = {"data": {rng.choice(["key0", "new", "LOG_LEVEL"]): odd_scalar(rng, allow_nonstr=rng.random() < 0.2)}}
        if rng.random() < 0.3:
            body["data"][rng.choice(list(obj.get("data", {"x": 1})))] = None
    elif k == "HelmRelease":
        body = rng.choice([
            {"spec": {"values": {"replicaCount": rng.choice([2, Raw("5")]), "list": [{"name": "c"}]}}},
            {"spec": {"values": {"image": {"tag": rng.choice(["2.0", Raw("2.0")])}, "new": {odd_key(rng): odd_scalar(rng)}}}},
            {"spec": {"values": {"plain": None}, "suspend": True}},
            {"spec": {"chart": {"spec": {"version": Raw("2.0.0")}}}},
            {"spec": {"values": {"list": [{"name": "a", "$patch": "delete"}]}}},
            {"spec": {"values": {"$patch": "replace", "only": "this"}}},
        ])
    elif k == "Kustomization":
        body = rng.choice([
            {"spec": {"postBuild": {"substitute": {"region": odd_scalar(rng)}}}},
            {"spec": {"path": "./patched", "prune": False}},
            {"spec": {"dependsOn": [{"name": "infra"}]}},
        ])
    elif k == "Ingress":
        body = {"spec": {"rules": [{"host": "patched.example.com"}]}}
    else:
        body = {"metadata": {"labels": {label_key(rng): label_value(rng)}}}
    if rng.random() < 0.15:
        body.setdefault("metadata", {})["annotations"] = {odd_key(rng): odd_scalar(rng, allow_nonstr=False)}
    if rng.random() < 0.03:
        body = {"$patch": "delete"}
    return body


def json_ops(rng, r, exact_target=True):
    """JSON 6902 operations that mostly apply to r (a few do not)."""
    k = r.kind
    obj = r.obj
    md = obj["metadata"]
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else None
    ops = []
    for _ in range(rng.randint(1, 3)):
        x = rng.random()
        choices = []
        if k in ("Deployment", "StatefulSet", "DaemonSet") and x < 0.4:
            c0 = spec["template"]["spec"]["containers"][0]
            choices = [
                {"op": "replace", "path": "/spec/replicas", "value": rng.choice([1, 4, Raw("9")])},
                {"op": "add", "path": "/spec/template/spec/containers/0/image", "value": rng.choice(IMAGES)},
                {"op": "add", "path": "/spec/template/spec/containers/-", "value": {"name": "added", "image": "busybox"}},
                {"op": "add", "path": "/spec/template/spec/containers/" + rng.choice(["0", "-1", "1"]) + "/args",
                 "value": ["--flag", odd_scalar(rng)]},
                {"op": "test", "path": "/kind", "value": k},
                {"op": "test", "path": "/spec/missing", "value": None},
                {"op": "copy", "from": "/metadata/name", "path": "/spec/template/metadata/labels/copied"},
                {"op": "copy", "from": "/metadata/nothing", "path": "/spec/template/metadata/labels/copied"},
                {"op": "move", "from": "/spec/selector", "path": "/spec/selector"},
                {"op": "replace", "path": "spec/template", "value": spec["template"]},
            ]
            if "ports" in c0:
                choices.append({"op": "remove", "path": "/spec/template/spec/containers/0/ports"})
                choices.append({"op": "replace", "path": "/spec/template/spec/containers/0/ports/-1",
                                "value": {"containerPort": 1234}})
        elif x < 0.7:
            choices = [
                {"op": "add", "path": "/metadata/annotations/" + rng.choice(["x", "a~1b", "note"]),
                 "value": odd_scalar(rng, rng.random() < 0.2)},
                {"op": "add", "path": "/metadata/labels", "value": {label_key(rng): label_value(rng)}},
            ]
            if md.get("labels"):
                choices.append({"op": "add", "path": "/metadata/labels/" + rng.choice(["x", "a~1b", "t~0"]),
                                "value": rng.choice(["v", Raw("1"), Raw("true")])})
                choices.append({"op": "remove", "path": "/metadata/labels"})
            if exact_target and rng.random() < 0.5:
                choices.append({"op": "replace", "path": "/metadata/name", "value": r.name + "-renamed"})
        else:
            choices = [
                {"op": "add", "path": "/data", "value": {"k": odd_scalar(rng)}},
                {"op": "replace", "path": "/data2", "value": {"k": odd_scalar(rng)}},
                {"op": "add", "path": "/metadata/annotations", "value": {odd_key(rng): odd_scalar(rng, False)}},
            ]
            if spec is not None:
                choices.append({"op": "add", "path": "/spec/extra", "value": odd_scalar(rng)})
                choices.append({"op": "add", "path": "/spec/list", "value": [1, "two", {"three": 3}, None, 1.5]})
        ops.append(rng.choice(choices))
    return ops


def gen_patches(rng, kdir, ks, res, w, files):
    """Adds patches/patchesStrategicMerge/patchesJson6902 to kustomization ks."""
    if not res:
        return
    npatch = rng.randint(1, 3)
    for i in range(npatch):
        r = rng.choice(res)
        kind = rng.random()
        entry = {}
        if kind < 0.55:
            # SMP
            body = smp_body(rng, r, w)
            with_target = rng.random() < 0.3
            if with_target:
                # kustomize needs kind and name to parse an SM patch, even
                # with a target.
                p = {**header(r, rng, False), **body}
                md = {"name": r.name if rng.random() < 0.6 else "not-important"}
                if isinstance(body.get("metadata"), dict):
                    md.update(body["metadata"])
                p["metadata"] = md
                if rng.random() < 0.3:
                    del p["apiVersion"]
                entry["target"] = target_of(rng, r)
            else:
                h = header(r, rng)
                if "metadata" in body and isinstance(body["metadata"], dict):
                    h["metadata"].update(body["metadata"])
                p = {**body, **h}
                if rng.random() < 0.5:
                    p = {**h, **{k: v for k, v in body.items() if k != "metadata"}}
            if rng.random() < 0.5:
                fn = "patch-%d.yaml" % len(files)
                files[os.path.join(kdir, fn)] = dump(p, rng, allow_json=False)
                entry["path"] = fn
            else:
                entry["patch"] = Lit(dump(p, rng, allow_json=False))
            if rng.random() < 0.1:
                entry["options"] = {"allowNameChange": True}
            ks.setdefault("patches", []).append(entry)
        elif kind < 0.85:
            entry["target"] = target_of(rng, r)
            t = entry["target"]
            ops = json_ops(rng, r, "kind" in t and "name" in t and ".*" not in t["name"])
            if rng.random() < 0.3:
                text = json.dumps(to_jsonable(ops))
            else:
                text = dump(ops, rng, allow_json=False)
            if rng.random() < 0.4:
                fn = "json-%d.%s" % (len(files), "json" if text.startswith("[") else "yaml")
                files[os.path.join(kdir, fn)] = text
                entry["path"] = fn
            else:
                entry["patch"] = Lit(text)
            if rng.random() < 0.25:
                # legacy field
                t = {"kind": r.kind, "name": r.name, "version": r.api.rpartition("/")[2]}
                g = r.api.rpartition("/")[0]
                if g:
                    t["group"] = g
                if r.namespace and rng.random() < 0.5:
                    t["namespace"] = r.namespace
                entry["target"] = t
                ks.setdefault("patchesJson6902", []).append(entry)
            else:
                ks.setdefault("patches", []).append(entry)
        else:
            body = smp_body(rng, r, w)
            h = header(r, rng)
            p = {**h, **{k: v for k, v in body.items() if k != "metadata"}}
            if rng.random() < 0.5:
                fn = "smp-%d.yaml" % len(files)
                files[os.path.join(kdir, fn)] = dump(p, rng, allow_json=False)
                ks.setdefault("patchesStrategicMerge", []).append(fn)
            else:
                ks.setdefault("patchesStrategicMerge", []).append(Lit(dump(p, rng, allow_json=False)))


def get_path(obj, parts):
    cur = obj
    for p in parts:
        if isinstance(cur, dict) and p in cur:
            cur = cur[p]
        elif isinstance(cur, list) and p.isdigit() and int(p) < len(cur):
            cur = cur[int(p)]
        else:
            return None
    return cur


def gen_replacements(rng, kdir, ks, res, files):
    srcs = [r for r in res if r.kind in ("ConfigMap", "Deployment", "Service", "Secret", "HelmRelease")]
    if not srcs:
        return
    s = rng.choice(srcs)
    src = {"kind": s.kind, "name": s.name}
    if rng.random() < 0.2 and s.namespace:
        src["namespace"] = s.namespace
    if s.kind == "ConfigMap" and s.obj.get("data"):
        key = rng.choice(list(s.obj["data"]))
        src["fieldPath"] = "data." + ("[" + key + "]" if "." in key or rng.random() < 0.1 else key)
    elif s.kind == "Deployment":
        src["fieldPath"] = rng.choice(["metadata.name", "spec.template.spec.containers.0.image",
                                       "spec.selector.matchLabels", "metadata.name",
                                       "spec.template.spec.containers.[name=%s].image" % s.obj["spec"]["template"]["spec"]["containers"][0]["name"]]
                                      + (["spec.replicas"] if "replicas" in s.obj["spec"] else []))
    elif s.kind == "Service":
        port = rng.choice(s.obj["spec"]["ports"])
        src["fieldPath"] = rng.choice(["spec.ports.0.port", "metadata.name"]
                                      + (["spec.ports.[name=%s].port" % port["name"]] if "name" in port else []))
    elif s.kind == "HelmRelease":
        src["fieldPath"] = rng.choice(["spec.values.image.tag", "spec.values.replicaCount", "spec.values.image", "spec.chart.spec.version"])
    if rng.random() < 0.1:
        src["options"] = {"delimiter": rng.choice(["-", ":", "/"]), "index": rng.choice([0, 0, 1, 1, 5])}
    targets = []
    for _ in range(rng.randint(1, 2)):
        t = pick_res(rng, res)
        sel = {"kind": t.kind}
        if rng.random() < 0.6:
            sel["name"] = t.name
        if rng.random() < 0.1:
            sel = {"labelSelector": rng.choice(["app", "app=web"])} if rng.random() < 0.5 else {"group": "apps"}
        tgt = {"select": sel}
        need_create = False
        if t.kind in ("Deployment", "StatefulSet"):
            c = t.obj["spec"]["template"]["spec"]["containers"][0]["name"]
            fps = rng.choice([
                ["spec.template.spec.containers.[name=%s].image" % c],
                ["spec.template.spec.containers.0.env.[name=NEW].value"],
                ["spec.replicas"],
                ["metadata.annotations.replaced"],
                ["spec.template.metadata.labels.[app]"],
                ["spec.template.spec.containers.*.image"],
                ["spec.template.spec.containers.[name=%s].image" % c, "metadata.labels.copied"],
            ])
            need_create = any(x.startswith(("spec.template.spec.containers.0.env", "metadata.")) for x in fps) or (
                "spec.replicas" in fps and "replicas" not in t.obj["spec"])
        elif t.kind == "ConfigMap":
            fps = [rng.choice(["data.key0", "data.new", "metadata.labels.x", "data.[a.b]"])]
            head, _, key = fps[0].partition(".")
            need_create = get_path(t.obj, [head, key.strip("[]")]) is None
        elif t.kind == "HelmRelease":
            fps = [rng.choice(["spec.values.image.tag", "spec.values.new.deep", "spec.chart.spec.version"])]
            need_create = "new" in fps[0]
        else:
            fps = [rng.choice(["metadata.annotations.replaced", "metadata.name", "spec.x"])]
            need_create = fps[0] != "metadata.name"
        if rng.random() < 0.9:
            tgt["fieldPaths"] = fps
        opts = {}
        if rng.random() < (0.9 if need_create else 0.2):
            opts["create"] = True
        if rng.random() < 0.15:
            opts["delimiter"] = rng.choice([":", "-", "."])
            opts["index"] = rng.choice([0, 1, -1, 3])
        if opts:
            tgt["options"] = opts
        if rng.random() < 0.15:
            tgt["reject"] = [{"name": rng.choice(res).name}] if rng.random() < 0.7 else [{"kind": rng.choice(res).kind}]
        targets.append(tgt)
    rep = {"source": src, "targets": targets}
    if rng.random() < 0.3:
        fn = "replacement-%d.yaml" % len(files)
        files[os.path.join(kdir, fn)] = dump(rep if rng.random() < 0.5 else [rep], rng)
        ks.setdefault("replacements", []).append({"path": fn})
    else:
        ks.setdefault("replacements", []).append(rep)


def gen_generators(rng, kdir, ks, files, existing, is_overlay, w=None):
    """configMapGenerator / secretGenerator entries; `existing` are generator
    names from below (for behaviors)."""
    made = []
    for field in ("configMapGenerator", "secretGenerator"):
        if rng.random() < 0.5:
            continue
        for _ in range(rng.randint(1, 2)):
            g = {}
            used = [x.get("name") for x in ks.get(field, [])]
            olds = [n for (f, n) in existing if f == field and n not in used]
            if is_overlay and olds and rng.random() < 0.6:
                g["name"] = rng.choice(olds)
                g["behavior"] = rng.choice(["merge", "replace", "merge"] * 10 + ["create"])
            else:
                g["name"] = GEN_NAMES.fresh(rng.choice(WORDS) + ("-cm" if field == "configMapGenerator" else "-sec"))
                if rng.random() < 0.1:
                    g["behavior"] = "create"
            lits = []
            for i in range(rng.randint(0, 4)):
                v = odd_scalar(rng, allow_nonstr=False)
                if "\n" in v or "\r" in v:
                    v = v.replace("\n", " ").replace("\r", "")
                lits.append(rng.choice(["KEY", "key", "a.b", "A_B", "x-y", "LOG_LEVEL"]) + str(i) + "=" + rng.choice([v, "'" + v + "'", '"' + v + '"']))
            if lits:
                g["literals"] = lits
            if rng.random() < 0.4:
                fn = rng.choice(["app.properties", "config.json", "script.sh", "data.txt", "cfg.yaml"])
                content = rng.choice(MULTILINE_STRINGS + [long_text(rng), "plain", ""])
                files[os.path.join(kdir, fn)] = content
                g["files"] = [fn if rng.random() < 0.6 else "renamed-" + fn.replace(".", "-") + "=" + fn]
            if rng.random() < 0.25:
                fn = "vars-%d.env" % len(files)
                lines = ["# comment", ""]
                for i in range(rng.randint(1, 4)):
                    v = odd_scalar(rng, allow_nonstr=False)
                    v = v.replace("\n", " ").replace("\r", "")
                    lines.append(rng.choice(["ENV", "E", "e.x"]) + str(i) + "=" + v)
                files[os.path.join(kdir, fn)] = "\n".join(lines) + rng.choice(["\n", ""])
                g["envs"] = [fn]
            if not any(x in g for x in ("literals", "files", "envs")):
                g["literals"] = ["only=one"]
            if field == "secretGenerator" and rng.random() < 0.3:
                g["type"] = rng.choice(["Opaque", "kubernetes.io/tls", "example.com/custom"])
            if rng.random() < 0.25:
                o = {}
                if rng.random() < 0.5:
                    o["disableNameSuffixHash"] = True
                if rng.random() < 0.4:
                    o["labels"] = {label_key(rng): label_value(rng)}
                if rng.random() < 0.3:
                    o["annotations"] = {"note": odd_scalar(rng, False)}
                if rng.random() < 0.1:
                    o["immutable"] = True
                g["options"] = o
            if rng.random() < 0.1:
                g["namespace"] = rng.choice(["other", "default"])
            ks.setdefault(field, []).append(g)
            if g.get("namespace") != "other":
                made.append((field, g["name"]))
    if ks.get("configMapGenerator") or ks.get("secretGenerator"):
        if rng.random() < 0.2:
            go = {}
            if rng.random() < 0.5:
                go["disableNameSuffixHash"] = True
            if rng.random() < 0.5:
                go["labels"] = {"generated": "yes"}
            if rng.random() < 0.3:
                go["annotations"] = {"gen": rng.choice(["true"] * 40 + [Raw("true")])}
            ks["generatorOptions"] = go
    return made


def gen_transformers(rng, ks, res, level):
    p = 0.35 if level == "base" else 0.55
    if rng.random() < p * 0.6:
        ks["namespace"] = rng.choice(["prod", "staging", "team-a", "default", "kube-system", "on", "ns.with.dots"])
    if rng.random() < p * 0.6:
        ks["namePrefix"] = rng.choice(["prod-", "a-", "x.", "pre"])
    if rng.random() < p * 0.5:
        ks["nameSuffix"] = rng.choice(["-v2", "-b", "-x", ".s"])
    if rng.random() < p * 0.6:
        ks["commonLabels"] = {label_key(rng): label_value(rng) for _ in range(rng.randint(1, 2))}
    if rng.random() < p * 0.6:
        lab = {"pairs": {label_key(rng): label_value(rng) for _ in range(rng.randint(1, 2))}}
        if rng.random() < 0.4:
            lab["includeSelectors"] = rng.choice([True, False])
        if rng.random() < 0.4:
            lab["includeTemplates"] = True
        if rng.random() < 0.15:
            lab["fields"] = [{"kind": "HelmRelease", "path": "spec/values/podLabels", "create": True}]
        ks["labels"] = [lab]
    if rng.random() < p * 0.6:
        ks["commonAnnotations"] = {rng.choice(["note", "example.com/owner", odd_key(rng)]): rng.choice([odd_scalar(rng, False), label_value(rng)])
                                   for _ in range(rng.randint(1, 2))}
    imgs = [c["image"] for r in res for c in iter_containers(r.obj)]
    if imgs and rng.random() < p * 0.7:
        out = []
        for _ in range(rng.randint(1, 2)):
            img = image_name(rng.choice(imgs))
            e = {"name": img}
            x = rng.random()
            if x < 0.4:
                e["newTag"] = rng.choice(["2.0", "v9", "1.10", "sha-abc"] * 15 + [Raw("1.10")])
            elif x < 0.6:
                e["newName"] = rng.choice(["mirror.local/" + img.rpartition("/")[2], "other"])
            elif x < 0.7:
                e["digest"] = "sha256:" + "c" * 64
            elif x < 0.8:
                e["tagSuffix"] = rng.choice(["-fips", "-debug", ".1"])
            else:
                e["newName"] = "mirror.local/x"
                e["newTag"] = "1"
            out.append(e)
        ks["images"] = out
    wls = [r for r in res if r.kind in ("Deployment", "StatefulSet")]
    if wls and rng.random() < p * 0.5:
        r = rng.choice(wls)
        ks["replicas"] = [{"name": r.name, "count": rng.choice([0, 1, 5])}]
    if rng.random() < 0.05:
        ks["sortOptions"] = rng.choice([{"order": "fifo"}, {"order": "legacy"},
                                        {"order": "legacy", "legacySortOptions": {"orderFirst": ["Service"], "orderLast": ["Deployment"]}}])


# Field-spec tables of `configurations:` (with --configurations): field
# specs for the kinds of the tree and a made-up one, at name, label and
# annotation maps, lists, scalars and paths that are not there, with and
# without `create`; name references between the kinds. Drawn from a
# generator of their own, so the other draws of a case stay what they are.
CFG_PATHS = ["metadata/name", "metadata/labels", "metadata/annotations", "metadata/namespace",
             "spec/template/metadata/labels", "spec/selector/matchLabels", "spec/replicas",
             "spec/values/podLabels", "spec/values", "spec/template/spec/containers",
             "spec/template/spec/containers/image", "spec/valuesFrom/name", "spec/chart/spec/sourceRef/name",
             "spec/ports", "data", "data/name", "spec/rules/host", "roleRef/name", "subjects/name"]
CFG_TABLES = ["namePrefix", "nameSuffix", "commonLabels", "commonAnnotations", "namespace",
              "images", "replicas", "labels", "templateLabels"]


def gen_configurations(crng, kdir, ks, res, files):
    if crng.random() > 0.35:
        return
    kinds = sorted({r.kind for r in res}) + ["Foo"]

    def spec():
        s = {"path": crng.choice(CFG_PATHS)}
        if crng.random() < 0.8:
            s["kind"] = crng.choice(kinds)
        if crng.random() < 0.15:
            s["group"] = crng.choice(["apps", "x", ""])
        if crng.random() < 0.3:
            s["create"] = crng.choice([True, False])
        return s

    cfg = {}
    for t in CFG_TABLES:
        if crng.random() < 0.25:
            cfg[t] = [spec() for _ in range(crng.randint(1, 2))]
    if crng.random() < 0.5:
        cfg["nameReference"] = [{"kind": crng.choice(["ConfigMap", "Secret", "Service"] + kinds),
                                 "fieldSpecs": [spec() for _ in range(crng.randint(1, 2))]}]
    if not cfg:
        return
    fn = crng.choice(["config.yaml", "kustomizeconfig.yaml"])
    files[os.path.join(kdir, fn)] = dump(cfg, crng, allow_json=False)
    ks["configurations"] = [fn]


def iter_containers(obj):
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k in ("containers", "initContainers") and isinstance(v, list):
                for c in v:
                    if isinstance(c, dict) and isinstance(c.get("image"), str):
                        yield c
            else:
                yield from iter_containers(v)
    elif isinstance(obj, list):
        for x in obj:
            yield from iter_containers(x)


def dump_kustomization(doc, rng):
    """Kustomization files are read into typed Go structs: strings that YAML
    would read as numbers or bools are quoted (almost always)."""
    QUOTE["safe"] = rng.random() < 0.99
    try:
        return dump(doc, rng, allow_json=False)
    finally:
        QUOTE["safe"] = False


def kustomization_doc(rng, ks, component=False):
    doc = {}
    if component:
        doc["apiVersion"] = "kustomize.config.k8s.io/v1alpha1"
        doc["kind"] = "Component"
    elif rng.random() < 0.6:
        doc["apiVersion"] = "kustomize.config.k8s.io/v1beta1"
        doc["kind"] = "Kustomization"
    keys = list(ks)
    if rng.random() < 0.3:
        rng.shuffle(keys)
    for k in keys:
        doc[k] = ks[k]
    return doc


def write_resources(rng, kdir, objs, files, ks):
    """Writes objects into one or more files and lists them."""
    if not objs:
        return
    groups = []
    mode = rng.random()
    if mode < 0.4:
        groups = [[o] for o in objs]
    elif mode < 0.8:
        groups = [objs]
    else:
        cut = rng.randint(1, len(objs))
        groups = [objs[:cut], objs[cut:]] if objs[cut:] else [objs]
    for g in groups:
        fn = ("%s-%d.yaml" % (g[0]["kind"].lower(), len(files))) if rng.random() < 0.8 else "res-%d.yml" % len(files)
        if len(g) > 1 and rng.random() < 0.1:
            text = dump({"apiVersion": "v1", "kind": "List", "items": g}, rng)
        else:
            text = dump_docs(g, rng)
        files[os.path.join(kdir, fn)] = text
        ks.setdefault("resources", []).append(fn)


GEN_NAMES = None


def gen_case(rng, cfg_rng=None):
    """Returns (files: {relpath: text}, build_dir, flags)."""
    global GEN_NAMES
    w = World(rng)
    GEN_NAMES = w
    files = {}
    existing_gens = []
    all_res = []
    bases = []
    nbases = rng.choice([1, 1, 2, 2, 3])
    for bi in range(nbases):
        bdir = "base%d" % bi
        ns = rng.choice([None, None, None, "apps", "default", "team-b"])
        objs = gen_resources(w, rng, ns, rng.randint(1, 5))
        ks = {}
        sobjs = []
        sub_gens = []
        # A nested base sometimes.
        if rng.random() < 0.2:
            sdir = bdir + "/common"
            sobjs = gen_resources(w, rng, ns, rng.randint(1, 2))
            sks = {}
            write_resources(rng, sdir, sobjs, files, sks)
            sub_gens = gen_generators(rng, sdir, sks, files, [], False)
            files[os.path.join(sdir, "kustomization.yaml")] = dump_kustomization(kustomization_doc(rng, sks), rng)
            ks["resources"] = ["common"]
        write_resources(rng, bdir, objs, files, ks)
        res = [Res(o) for o in sobjs + objs]
        base_gens = gen_generators(rng, bdir, ks, files, existing_gens, False) + sub_gens
        existing_gens += base_gens
        if rng.random() < 0.3:
            gen_patches(rng, bdir, ks, res, w, files)
        gen_transformers(rng, ks, res, "base")
        if cfg_rng:
            gen_configurations(cfg_rng, bdir, ks, res, files)
        if rng.random() < 0.15:
            gen_replacements(rng, bdir, ks, res, files)
        if any(k in ks for k in ("namePrefix", "nameSuffix", "namespace")) and rng.random() < 0.9:
            # Generators renamed below cannot be merged into by name from above.
            existing_gens = [g for g in existing_gens if g not in base_gens]
        name = rng.choice(["kustomization.yaml", "kustomization.yaml", "kustomization.yml", "Kustomization"])
        files[os.path.join(bdir, name)] = dump_kustomization(kustomization_doc(rng, ks), rng)
        bases.append(bdir)
        all_res += res
    if rng.random() < 0.15:
        return files, bases[0], []
    # Components.
    comps = []
    for ci in range(rng.choice([0, 0, 1, 1, 2])):
        cdir = "components/c%d" % ci
        cks = {}
        if rng.random() < 0.4:
            cobjs = gen_resources(w, rng, None, rng.randint(1, 2))
            write_resources(rng, cdir, cobjs, files, cks)
            all_res += [Res(o) for o in cobjs]
        existing_gens += gen_generators(rng, cdir, cks, files, existing_gens, True)
        if rng.random() < 0.6:
            gen_patches(rng, cdir, cks, all_res, w, files)
        if rng.random() < 0.4:
            gen_transformers(rng, cks, all_res, "component")
        if rng.random() < 0.25:
            gen_replacements(rng, cdir, cks, all_res, files)
        if any(k in cks for k in ("namePrefix", "nameSuffix", "namespace")) and rng.random() < 0.9:
            # A component renames everything accumulated so far.
            existing_gens = []
        if not cks:
            cks["commonAnnotations"] = {"component": "c%d" % ci}
        files[os.path.join(cdir, "kustomization.yaml")] = dump_kustomization(kustomization_doc(rng, cks, component=True), rng)
        comps.append(cdir)
    # Overlay.
    odir = "overlays/prod"
    oks = {"resources": ["../../" + b for b in bases]}
    if rng.random() < 0.3:
        extra = gen_resources(w, rng, None, rng.randint(1, 2))
        tmp = {}
        write_resources(rng, odir, extra, files, tmp)
        oks["resources"] += tmp["resources"]
        all_res += [Res(o) for o in extra]
    if rng.random() < 0.1:
        rng.shuffle(oks["resources"])
    if comps:
        oks["components"] = ["../../" + c for c in comps]
    gen_generators(rng, odir, oks, files, existing_gens, True)
    if rng.random() < 0.7:
        gen_patches(rng, odir, oks, all_res, w, files)
    gen_transformers(rng, oks, all_res, "overlay")
    if cfg_rng:
        gen_configurations(cfg_rng, odir, oks, all_res, files)
    if rng.random() < 0.3:
        gen_replacements(rng, odir, oks, all_res, files)
    files[os.path.join(odir, "kustomization.yaml")] = dump_kustomization(kustomization_doc(rng, oks), rng)
    return files, odir, []


# --------------------------------------------------------------------------
# Running.


def run(cmd, cwd, timeout):
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return -1, "", "timeout after %ss" % timeout


def case_rng(seed, idx):
    return random.Random("kustomize-fuzz:%d:%d" % (seed, idx))


def write_tree(root, files):
    for rel, text in files.items():
        p = os.path.join(root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8", newline="") as f:
            f.write(text)


def first_diff(a, b):
    al, bl = a.split("\n"), b.split("\n")
    for i in range(max(len(al), len(bl))):
        x = al[i] if i < len(al) else "<EOF>"
        y = bl[i] if i < len(bl) else "<EOF>"
        if x != y:
            return "line %d: kubectl %r | flate %r" % (i + 1, x[:100], y[:100])
    return "identical"


def error_gist(stderr):
    """kubectl's error without klog prefix, paths and values, for grouping."""
    lines = stderr.strip().splitlines()
    if not lines:
        return ""
    line = lines[-1]
    line = re.sub(r'^E\d{4} [\d:.]+\s+\d+ run\.go:\d+\] "command failed" err=', "", line)
    line = re.sub(r"/tmp/kfuzz-[^/'\" ]*", "<tmp>", line)
    return line[:300]


def one_case(args, idx):
    rng = case_rng(args.seed, idx)
    cfg_rng = random.Random("kustomize-fuzz-cfg:%d:%d" % (args.seed, idx)) if args.configurations else None
    files, build, flags = gen_case(rng, cfg_rng)
    tmp = tempfile.mkdtemp(prefix="kfuzz-%d-%d-" % (args.seed, idx))
    try:
        write_tree(tmp, files)
        k = run([args.kubectl, "kustomize", build] + flags, tmp, args.timeout)
        fl_flags = ["--load-restrictor", "none"] if flags else []
        f = run([args.flate, "kustomize", "build", build] + fl_flags, tmp, args.timeout)
        if k[0] == -1:
            status = "kubectl-timeout"
        elif k[0] == 0 and f[0] == 0:
            status = "ok" if k[1] == f[1] else "output-differs"
        elif k[0] != 0 and f[0] != 0:
            status = "both-fail"
        elif k[0] == 0:
            status = "flate-fails-only"
        else:
            status = "kubectl-fails-only"
        detail = ""
        if status == "output-differs":
            detail = first_diff(k[1], f[1])
        elif status == "flate-fails-only":
            detail = f[2].strip().splitlines()[-1][:300] if f[2].strip() else ""
        elif status in ("kubectl-fails-only", "both-fail"):
            detail = error_gist(k[2])
        if status not in ("ok", "both-fail", "kubectl-timeout") and args.keep:
            dest = os.path.join(args.keep, "seed%d-case%d" % (args.seed, idx))
            shutil.rmtree(dest, ignore_errors=True)
            shutil.copytree(tmp, os.path.join(dest, "in"))
            with open(os.path.join(dest, "dir"), "w") as fh:
                fh.write(build + "\n")
            for name, text in (("kubectl.out", k[1]), ("kubectl.err", k[2]), ("flate.out", f[1]), ("flate.err", f[2])):
                with open(os.path.join(dest, name), "w") as fh:
                    fh.write(text)
            with open(os.path.join(dest, "diff.txt"), "w") as fh:
                fh.write("\n".join(difflib.unified_diff(k[1].split("\n"), f[1].split("\n"), "kubectl", "flate", lineterm="")) + "\n")
            with open(os.path.join(dest, "status"), "w") as fh:
                fh.write("%s\n%s\n" % (status, detail))
        return idx, status, detail
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--start", type=int, default=0, help="first case index")
    ap.add_argument("--only", type=int, action="append", help="run just this case index (repeatable)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--keep", default="/tmp/kustomize-fuzz-failures", help="directory for failing cases ('' to keep none)")
    ap.add_argument("--kubectl", default="kubectl")
    ap.add_argument("--flate", default=os.path.join(REPO, "target", "debug", "flate"))
    ap.add_argument("--print", action="store_true", help="print the generated trees instead of running them")
    ap.add_argument("--write", metavar="DIR", help="write the generated tree(s) under DIR instead of running them")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--configurations", action="store_true",
                    help="also give bases and overlays `configurations:` field-spec tables (drawn apart: "
                         "the rest of each case stays the same)")
    ap.add_argument("--explain", action="store_true", help="summarize why cases failed on both sides")
    args = ap.parse_args()

    indexes = args.only if args.only else list(range(args.start, args.start + args.count))
    if args.print or args.write:
        for idx in indexes:
            cfg_rng = random.Random("kustomize-fuzz-cfg:%d:%d" % (args.seed, idx)) if args.configurations else None
            files, build, flags = gen_case(case_rng(args.seed, idx), cfg_rng)
            if args.write:
                dest = os.path.join(args.write, "seed%d-case%d" % (args.seed, idx)) if len(indexes) > 1 else args.write
                write_tree(dest, files)
                print("%s (build %s)" % (dest, build))
            else:
                print("### case %d: build %s %s" % (idx, build, " ".join(flags)))
                for rel in sorted(files):
                    print("=== %s" % rel)
                    sys.stdout.write(files[rel])
        return 0
    if not os.path.exists(args.flate):
        sys.exit("flate binary not found: %s (cargo build first)" % args.flate)
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    stats = collections.Counter()
    details = collections.defaultdict(list)
    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        for idx, status, detail in ex.map(lambda i: one_case(args, i), indexes):
            stats[status] += 1
            if status == "both-fail":
                details[status].append((idx, detail))
            elif status != "ok":
                details[status].append((idx, detail))
                if not args.quiet:
                    print("case %d: %s: %s" % (idx, status, detail), flush=True)
    n = len(indexes)
    mism = sum(v for k, v in stats.items() if k not in ("ok", "both-fail", "kubectl-timeout"))
    print("\nseed %d: %d cases in %.0fs: %d agree (%d both succeed, %d both fail), %d mismatches, %d kubectl timeouts" % (
        args.seed, n, time.time() - t0, stats["ok"] + stats["both-fail"], stats["ok"], stats["both-fail"], mism,
        stats["kubectl-timeout"]))
    for k in ("output-differs", "flate-fails-only", "kubectl-fails-only"):
        if stats[k]:
            print("  %-20s %d" % (k, stats[k]))
    if args.explain and details["both-fail"]:
        print("\nwhy both failed (kubectl's error, most frequent first):")
        gist = collections.Counter()
        first = {}
        for i, d in details["both-fail"]:
            g = re.sub(r"[0-9a-f]{10}|0x[0-9a-f]+", "#", d)[:200]
            gist[g] += 1
            first.setdefault(g, i)
        for g, n in gist.most_common(25):
            print("  %4d (case %d) %s" % (n, first[g], g))
    if mism and args.keep:
        print("failing cases kept under %s" % args.keep)
    return 1 if mism else 0


if __name__ == "__main__":
    sys.exit(main())
