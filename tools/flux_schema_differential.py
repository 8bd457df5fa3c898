#!/usr/bin/env python3
"""Differential check of flate's embedded Flux schemas against the CRDs.

flate embeds JSON Schemas for the Flux kinds (schemas/, generated from the
typed models of src/check/flux_types.rs). The oracle is the kinds' own
CustomResourceDefinitions (`config/crd/bases/*.yaml` of the Flux
controllers and of flux-operator, fetched by you, never committed),
turned into schemas by `flate schemas import` (kubeconform's strict
reading) and given to `flate check --schema-dir`, which then wins over the
embedded ones. For every object of those kinds that the real-world set
renders, and for random mutations of them, both verdicts are compared:

- each object as rendered: the embedded schema must accept what the CRD
  accepts (a difference here is a false alarm or a miss on real input);
- mutations (a field removed, a value of the wrong type, an enum value
  that is not one, an unknown field, a malformed duration, an empty name,
  a list emptied): valid or not, as the CRD says.

CEL rules (`x-kubernetes-validations`) are evaluated by neither side. The
Alert and Receiver CRDs are taken as Flux Operator installs them: it adds
FluxInstance, ResourceSet and ResourceSetInputProvider to the object kinds
they may name (flux-operator's `notificationPatchTmpl`).

Usage: tools/flux_schema_differential.py --flate BIN --crds DIR [--set DIR]
           [--mutations N] [--seed S] [--only KIND] [-v]
  --crds DIR   CRD YAML files (every *.yaml in DIR)
  --objects F  cache the gathered objects in F (read when it exists)
  --set DIR    the real-world checkouts (tools/realworld/run.py's DIR;
               default /work/ext/rwall); objects are taken from `flate
               build -o json` of every cluster entry of
               tools/realworld/repos.txt
Prints per kind: objects, mutations, and each disagreement.
"""
import argparse
import collections
import copy
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cluster_entries(set_dir):
    for line in open(ROOT / "tools/realworld/repos.txt"):
        if not line.strip() or line.startswith("#"):
            continue
        p = line.split()
        root = Path(set_dir) / p[0].replace("/", "+") / p[2]
        if not root.is_dir():
            continue
        extra, entries = [], []
        for e in p[3:]:
            if e.startswith("--source="):
                k, d = e[len("--source="):].rsplit("=", 1)
                extra += ["--source", f"{k}={root / d}"]
            else:
                entries.append(e)
        for e in entries:
            yield p[0], root, e, extra


DURATION_FIELDS = {"interval", "timeout", "window", "retryInterval"}


def paths(v, at=()):
    """Every (path, value) inside v."""
    yield at, v
    if isinstance(v, dict):
        for k, x in v.items():
            yield from paths(x, at + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from paths(x, at + (i,))


def set_at(obj, path, value, delete=False):
    cur = obj
    for k in path[:-1]:
        cur = cur[k]
    if delete:
        if isinstance(cur, list):
            cur.pop(path[-1])
        else:
            del cur[path[-1]]
    else:
        cur[path[-1]] = value


def mutate(obj, rng):
    """One random mutation of obj's spec: (description, mutated object)."""
    o = copy.deepcopy(obj)
    spec = o.get("spec")
    if not isinstance(spec, dict) or not spec:
        return None
    cands = [(("spec",) + p, v) for p, v in paths(spec) if p]
    path, v = rng.choice(cands)
    last = path[-1]
    kind = rng.choice(["delete", "type", "enum", "unknown", "duration", "empty"])
    if kind == "delete" and not isinstance(last, int):
        set_at(o, path, None, delete=True)
        return f"delete {'.'.join(map(str, path))}", o
    if kind == "type":
        new = {str: 12, int: "twelve", bool: "yes", float: "x", dict: "text", list: {"a": 1}}.get(type(v), 1)
        set_at(o, path, new)
        return f"type {'.'.join(map(str, path))} = {new!r}", o
    if kind == "enum" and isinstance(v, str):
        set_at(o, path, "not-a-" + re.sub(r"[^a-z]", "", v.lower())[:10])
        return f"enum {'.'.join(map(str, path))}", o
    if kind == "unknown":
        parent = path[:-1] if not isinstance(v, dict) else path
        cur = o
        for k in parent:
            cur = cur[k]
        if isinstance(cur, dict):
            cur["unknownFieldX"] = "x"
            return f"unknown field under {'.'.join(map(str, parent))}", o
    if kind == "duration" and isinstance(last, str) and last in DURATION_FIELDS and isinstance(v, str):
        set_at(o, path, "5 minutes")
        return f"duration {'.'.join(map(str, path))}", o
    if kind == "empty" and isinstance(v, (str, list)):
        set_at(o, path, type(v)())
        return f"empty {'.'.join(map(str, path))}", o
    return None


def operator_kinds(schema_dir):
    """The notification CRDs as Flux Operator installs them: its kinds
    added to the object kinds an Alert or a Receiver may name."""
    def add(v):
        if isinstance(v, dict):
            e = v.get("enum")
            if isinstance(e, list) and "Kustomization" in e and "OCIRepository" in e:
                e += [k for k in ("FluxInstance", "ResourceSet", "ResourceSetInputProvider") if k not in e]
            for x in v.values():
                add(x)
        elif isinstance(v, list):
            for x in v:
                add(x)
    for f in list(schema_dir.glob("notification.toolkit.fluxcd.io/alert_*.json")) + \
            list(schema_dir.glob("notification.toolkit.fluxcd.io/receiver_*.json")):
        v = json.load(open(f))
        add(v)
        json.dump(v, open(f, "w"))


def check(flate, objs, schema_dir, batch=400):
    """Schema verdicts of objs (one file each): index -> [messages]."""
    out = {}
    for start in range(0, len(objs), batch):
        for i, m in check_batch(flate, objs[start:start + batch], schema_dir).items():
            out[start + i] = m
    return out


def check_batch(flate, objs, schema_dir):
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        (d / ".git").mkdir()
        entry = d / "e"
        entry.mkdir()
        names = []
        for i, o in enumerate(objs):
            o = copy.deepcopy(o)
            o.setdefault("metadata", {})
            o["metadata"]["name"] = f"o{i}"
            o["metadata"]["namespace"] = "ns"
            f = f"o{i}.yaml"
            (entry / f).write_text(json.dumps(o))
            names.append(f)
        (entry / "kustomization.yaml").write_text(json.dumps({"resources": names}))
        cmd = [flate, "check", "--repo", str(d), "--path", "e", "-o", "json"]
        if schema_dir:
            cmd += ["--schema-dir", str(schema_dir)]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            keep = tempfile.mkdtemp(prefix="flux-schema-timeout-")
            subprocess.run(["cp", "-r", str(d) + "/.", keep])
            sys.exit(f"flate check took over 300 s on {len(objs)} objects (kept in {keep})")
        try:
            j = json.loads(r.stdout)
        except ValueError:
            sys.exit(f"flate check gave no JSON: {r.stderr[:500]}")
        out = collections.defaultdict(list)
        for f in j["findings"]:
            if f["rule"] != "schema-invalid":
                continue
            m = re.search(r"o(\d+)\.yaml$", f.get("file") or "")
            if m:
                out[int(m.group(1))].append(f["message"])
        return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--flate", required=True)
    ap.add_argument("--crds", required=True)
    ap.add_argument("--set", default="/work/ext/rwall")
    ap.add_argument("--mutations", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only")
    ap.add_argument("--objects", help="a JSON file caching the gathered objects (written when absent)")
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    with tempfile.TemporaryDirectory() as sd:
        crds = sorted(str(p) for p in Path(a.crds).glob("*.yaml"))
        r = subprocess.run([a.flate, "schemas", "import", "-q", "--out-dir", sd] + crds,
                           capture_output=True, text=True)
        if r.returncode:
            sys.exit(r.stderr)
        operator_kinds(Path(sd))
        kinds = set()
        for f in Path(sd).rglob("*.json"):
            group = f.parent.name
            stem = f.stem
            kind_l, version = stem.rsplit("_", 1)
            kinds.add((f"{group}/{version}", kind_l))
        # the schema files name kinds in lower case: objects match them so
        if a.objects and os.path.exists(a.objects):
            found = {tuple(k.split(" ", 1)): v for k, v in json.load(open(a.objects)).items()}
        else:
            found = gather(a.flate, a.set, kinds)
            if a.objects:
                json.dump({" ".join(k): v for k, v in found.items()}, open(a.objects, "w"))
        total = collections.Counter()
        for (av, kind), objs in sorted(found.items()):
            if a.only and kind != a.only:
                continue
            bodies = [o for _, o in objs]
            cases = [("as rendered", o, src) for src, o in objs]
            for src, o in objs:
                for _ in range(a.mutations):
                    m = mutate(o, rng)
                    if m:
                        cases.append((m[0], m[1], src))
            emb = check(a.flate, [c[1] for c in cases], None)
            crd = check(a.flate, [c[1] for c in cases], sd)
            diffs = []
            for i, (what, o, src) in enumerate(cases):
                if bool(emb.get(i)) != bool(crd.get(i)):
                    diffs.append((what, src, emb.get(i), crd.get(i)))
            real = sum(1 for d in diffs if d[0] == "as rendered")
            print(f"{kind} {av}: {len(bodies)} objects, {len(cases) - len(bodies)} mutations, "
                  f"{sum(1 for i in range(len(cases)) if crd.get(i))} invalid by the CRD, "
                  f"{len(diffs)} disagreements ({real} on objects as rendered)")
            classes = collections.Counter(
                (re.sub(r"\.\d+(?=\.|$| )", "[]", w.split(" = ")[0]), "embedded" if e else "CRD")
                for w, _, e, _ in diffs)
            for (what, side), n in classes.most_common():
                print(f"  {n} x {what}: only the {side} schema refuses")
            for what, src, e, c in diffs[: (50 if a.v else 3)]:
                print(f"  {what} [{src}]\n    embedded: {e}\n    CRD:      {c}")
            total["objects"] += len(bodies)
            total["cases"] += len(cases)
            total["diffs"] += len(diffs)
        print(f"total: {total['objects']} objects, {total['cases']} cases, {total['diffs']} disagreements")


def gather(flate, set_dir, wanted):
    """Every distinct object of the wanted (apiVersion, lower-case kind) the set renders."""
    low = set(wanted)
    seen, out = set(), collections.defaultdict(list)
    for name, root, entry, extra in cluster_entries(set_dir):
        r = subprocess.run([flate, "build", "--repo", str(root), "--path", entry, "-o", "json"] + extra,
                           capture_output=True, text=True)
        try:
            j = json.loads(r.stdout)
        except ValueError:
            continue
        for ks in j.get("kustomizations", []):
            for o in ks.get("objects") or []:
                key = (o.get("apiVersion"), o.get("kind"))
                if (key[0], (key[1] or "").lower()) not in low:
                    continue
                text = json.dumps(o, sort_keys=True)
                if text in seen:
                    continue
                seen.add(text)
                out[key].append((f"{name}:{entry}", o))
    return out


if __name__ == "__main__":
    main()
