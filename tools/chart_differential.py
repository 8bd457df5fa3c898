#!/usr/bin/env python3
"""Differential check of how Helm builds a chart's values: Helm against flate.

Draws random chart trees: a parent chart with one to three dependencies in
`charts/` (directories or `.tgz` archives, a dependency of a dependency
sometimes), each dependency with or without an `alias`, a `condition` (one
path or several, to a boolean, a string, a map or nothing), `tags`,
`import-values` (an `exports` name, or `child`/`parent` paths), and values
files at every level holding scalars, lists, maps, nulls (which delete a
default), `global` values and tables meeting scalars. The user's values
(`-f`) override any of it. Every chart's template prints its name, its
values as JSON and the names of its subcharts, so any difference in what
is enabled, imported, coalesced, deleted or scoped shows. Some charts also
hold a file their template reads with `.Files`, a `crds/` document, a hook,
a test, or are library charts whose partial the parent includes; some runs
pass `--include-crds`, `--skip-tests` or `--no-hooks`. Each tree is
rendered by `helm template` and by `flate helm template`, and standard
output (or the error) is compared, as the other differential scripts do.

Usage: tools/chart_differential.py FLATE HELM [COUNT] [SEED]
Prints each differing tree (its files) and a summary.
"""
import concurrent.futures as cf
import io
import os
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import helm_differential  # noqa: E402

TEMPLATE = """# {{ .Chart.Name }} {{ .Chart.Version }}
values: {{ toJson .Values | quote }}
subcharts: {{ keys .Subcharts | sortAlpha | toJson | quote }}
template: {{ printf "%s %s" .Template.Name .Template.BasePath | quote }}
"""
# What some charts hold besides (drawn per chart): a file read with
# `.Files`, a `crds/` document, a hook, a test, a library's partial.
FILES_LINE = 'file: {{ printf "%s %d" (.Files.Get "files/f.txt") (len (.Files.Glob "files/*")) | quote }}\n'
CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: %ss.example.com
spec:
  group: example.com
  names: {kind: %s, plural: %ss}
  scope: Namespaced
  versions: [{name: v1, served: true, storage: true}]
"""
HOOK = """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Chart.Name }}-%s
  annotations:
    "helm.sh/hook": %s
    "helm.sh/hook-weight": "%d"
data:
  x: {{ .Values.x | toJson | quote }}
"""
KEYS = ["x", "y", "enabled", "list", "data", "z"]


class Gen(helm_differential.Draws):
    def scalar(self):
        return self.rng.choice([0, 1, -3, 2.5, "s", "", "true", True, False, None, "null"])

    def value(self, depth):
        r = self.rng.random()
        if depth > 2 or r < 0.5:
            return self.scalar()
        if r < 0.65:
            return [self.value(depth + 1) for _ in range(self.rng.randint(0, 2))]
        return self.table(depth + 1)

    def table(self, depth, keys=KEYS):
        # (`enabled` is mostly a boolean: a condition that names anything
        # else fails the whole render.)
        return {k: self.rng.choice([True, False, True, False, None]) if k == "enabled" and self.chance(0.95)
                else self.value(depth) for k in self.rng.sample(keys, self.rng.randint(0, 3))}

    def values(self, subnames):
        """A chart's values: a table, sometimes with `global`, `tags` and
        values for its subcharts (`subnames`)."""
        v = self.table(0)
        if self.chance(0.4):
            v["global"] = self.table(1) if self.chance(0.9) else self.scalar()
        if self.chance(0.3):
            v["tags"] = {t: self.rng.choice([True, False, None, "yes"]) for t in self.rng.sample(["t1", "t2"], 1)}
        for n in subnames:
            if self.chance(0.6):
                v[n] = self.table(1, KEYS + ["sub"]) if self.chance(0.85) else self.scalar()
        if self.chance(0.3):
            v["exports"] = {"data": self.table(1)}
        return v

    def dependency(self, name, parent_keys):
        """A `dependencies` entry of the parent (`parent_keys`: the names
        its conditions may refer to)."""
        d = {"name": name, "version": "0.1.0"}
        key = name
        if self.chance(0.3):
            d["alias"] = self.rng.choice([name + "x", "al", name])
            key = d["alias"]
        if self.chance(0.5):
            paths = [self.rng.choice([key, self.rng.choice(parent_keys)]) + "." + self.rng.choice(["enabled"] * 16 + ["on"] * 3 + ["x"])
                     for _ in range(self.rng.randint(1, 2))]
            d["condition"] = ",".join(paths) if self.chance(0.85) else ", ".join(paths)
        if self.chance(0.3):
            d["tags"] = self.rng.sample(["t1", "t2"], self.rng.randint(1, 2))
        if self.chance(0.35):
            items = []
            for _ in range(self.rng.randint(1, 2)):
                if self.chance(0.5):
                    items.append(self.rng.choice(["data", "missing"]))
                else:
                    items.append({"child": self.rng.choice(["data", "x", "exports.data", "y.x", "list"]),
                                  "parent": self.rng.choice(["imported", "x", "y", "global.g", key + ".x"])})
            d["import-values"] = items
        return d, key

    def chart(self, name, depth):
        """{path: text} of a chart directory named `name`, and the ways to
        package its dependencies."""
        deps, keys, files, libraries = [], [], {}, []
        n = self.rng.randint(1, 3) if depth == 0 else (1 if self.chance(0.3) else 0)
        names = ["a", "b", "c"] if depth == 0 else ["d"]
        for sub in self.rng.sample(names, n):
            d, key = self.dependency(sub, KEYS)
            deps.append(d)
            keys.append(key)
            sub_files = self.chart(sub, depth + 1)
            if depth == 0 and self.chance(0.15):
                # A library chart: its partial is included by this chart.
                sub_files["Chart.yaml"] = sub_files["Chart.yaml"].replace(
                    'version: "0.1.0"', 'version: "0.1.0"\ntype: "library"', 1)
                sub_files["templates/_lib.tpl"] = (
                    '{{- define "lib.%s" -}}{{ .Chart.Name }} {{ toJson .Values.x }}{{- end -}}\n' % sub)
                libraries.append(sub)
            files[("tgz:" if self.chance(0.25) else "") + "charts/" + sub] = sub_files
        meta = {"apiVersion": "v2", "name": name, "version": "0.1.0"}
        if deps:
            meta["dependencies"] = deps
        files["Chart.yaml"] = dump(meta)
        files["values.yaml"] = dump(self.values(keys))
        template = TEMPLATE
        for lib in libraries:
            template += 'lib: {{ include "lib.%s" . | quote }}\n' % lib
        if self.chance(0.2):
            files["files/f.txt"] = "text of %s\n" % name
            template += FILES_LINE
        if self.chance(0.2):
            files["crds/crd.yaml"] = CRD % (name, name.upper(), name)
        if self.chance(0.2):
            files["templates/hook.yaml"] = HOOK % (
                "hook", self.rng.choice(["pre-install", "post-install", "pre-install,post-upgrade"]),
                self.rng.randint(-2, 2))
        if self.chance(0.1):
            files["templates/tests/t.yaml"] = HOOK % ("test", "test", 0)
        files["templates/v.yaml"] = template
        return files


def dump(v, indent=0):
    """YAML of plain data: block maps and lists, JSON-quoted strings."""
    import json
    pad = " " * indent
    if isinstance(v, dict):
        if not v:
            return "{}\n" if indent == 0 else " {}\n"
        out = "" if indent == 0 else "\n"
        for k, e in v.items():
            out += "%s%s:%s" % (pad, k, dump(e, indent + 2) if isinstance(e, (dict, list)) and e else " " + scalar_text(e) + "\n")
        return out
    if isinstance(v, list):
        out = "\n"
        for e in v:
            if isinstance(e, dict) and e:
                inner = dump(e, indent + 2).lstrip("\n")
                out += "%s- %s" % (pad, inner[indent + 2:])
            else:
                out += "%s- %s\n" % (pad, scalar_text(e) if not isinstance(e, (dict, list)) else json.dumps(e))
        return out
    return scalar_text(v) + "\n"


def scalar_text(v):
    import json
    if v is None:
        return "null"
    if isinstance(v, (dict, list)):
        return json.dumps(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    return json.dumps(v)


def write(files, root):
    for path, content in files.items():
        if isinstance(content, dict):
            if path.startswith("tgz:"):
                path = path[4:]
                name = os.path.basename(path)
                buf = io.BytesIO()
                with tarfile.open(fileobj=buf, mode="w:gz") as t:
                    add_tree(t, content, name)
                os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
                open(os.path.join(root, path + "-0.1.0.tgz"), "wb").write(buf.getvalue())
            else:
                write(content, os.path.join(root, path))
            continue
        p = os.path.join(root, path)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        open(p, "w").write(content)


def add_tree(t, files, prefix):
    for path, content in files.items():
        if isinstance(content, dict):
            if path.startswith("tgz:"):
                # A packaged chart inside a packaged chart: kept a directory.
                path = path[4:]
            add_tree(t, content, prefix + "/" + path)
            continue
        data = content.encode()
        info = tarfile.TarInfo(prefix + "/" + path)
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))


def show(files, indent=""):
    out = ""
    for path, content in files.items():
        if isinstance(content, dict):
            out += show(content, indent + path + "/")
        else:
            out += "--- %s%s\n%s" % (indent, path, content)
    return out


def main():
    flate, helm, count, rng = helm_differential.arguments()
    g = Gen(rng)
    items = []
    for _ in range(count):
        files = g.chart("p", 0)
        user = dump(g.values([k for k in ["a", "b", "c", "ax", "al", "bx", "cx"] if g.chance(0.4)]))
        flags = [f for f in ["--include-crds", "--skip-tests", "--no-hooks"] if g.chance(0.2)]
        items.append((files, user, flags))

    def render(tool, is_helm, d, flags):
        if is_helm:
            args = [tool, "template", "x", d]
        else:
            args = [tool, "helm", "template", d, "--name", "x"]
        args += ["-f", os.path.join(d, "..", "user.yaml")] + flags
        return helm_differential.run_args(args)

    def one(item):
        files, user, flags = item
        with tempfile.TemporaryDirectory() as top:
            d = os.path.join(top, "p")
            write(files, d)
            open(os.path.join(top, "user.yaml"), "w").write(user)
            return item, render(helm, True, d, flags), render(flate, False, d, flags)

    same = {"ok": 0, "error": 0}
    differ = 0
    with cf.ThreadPoolExecutor(2) as ex:
        for (files, user, flags), h, f in ex.map(one, items):
            if h == f:
                same[h[0]] += 1
            else:
                differ += 1
                print("DIFF %s\n%s--- user.yaml\n%s  helm:  %s %r\n  flate: %s %r\n"
                      % (" ".join(flags), show(files), user, h[0], h[1][:2000], f[0], f[1][:2000]))
    print("trees: %d, identical: %d (%d render, %d fail alike), different: %d"
          % (len(items), same["ok"] + same["error"], same["ok"], same["error"], differ))


if __name__ == "__main__":
    main()
