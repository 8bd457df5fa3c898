#!/usr/bin/env python3
"""Builds the fuzz seed corpora (fuzz/corpus/TARGET/) from the repository's
fixtures. Run from anywhere; re-running replaces the seeds it wrote before
(files the fuzzer added are kept)."""

import hashlib
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(os.path.dirname(HERE), "fixtures")
CORPUS = os.path.join(HERE, "corpus")
SEP = "\n#%%\n"  # flate_fuzz::PART_SEPARATOR
HEADER = "#> "  # flate_fuzz::FILE_HEADER
MAX_SEED = 64 * 1024


def read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (UnicodeDecodeError, OSError):
        return None


def put(target, text, counts):
    if text is None or len(text.encode()) > MAX_SEED:
        return
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    name = "seed-" + hashlib.sha1(text.encode()).hexdigest()[:16]
    with open(os.path.join(d, name), "w", encoding="utf-8") as f:
        f.write(text)
    counts[target] = counts.get(target, 0) + 1


def yaml_files(root):
    for dirpath, _, files in os.walk(root):
        for f in sorted(files):
            if f.endswith((".yaml", ".yml", ".json")):
                yield os.path.join(dirpath, f)


# Shapes the YAML quick reader (src/yaml/fast.rs) takes, and near misses
# it must leave to the event parser, for yaml_roundtrip.
QUICK_READER_SEEDS = [
    "# Source: x/templates/a.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels: {}\ndata:\n  k: 'v'",
    "---\na: b # c\n\n# d\nb:\n  - x\n  - y: 1\n    z: \"q\\n\\u0026\"\nc:\n- -v\n- --port=80\n",
    "a:\n  |\n    x\n\n      y\n    \nb: >-\n  p\n  q\n\n   r\nc: |+\n  s\n\n",
    "- - a\n  - b: []\n-\n  c: .spec.x\n- 'it''s': 60\u00b0C\n",
    "a: |\n  x",
    "a: b\n  c\n",
    "a: |\n  x\n\n  ",
    "a:\n\n# c\n",
    "a: 'b\n  c'\n",
    # A quoted `<<` key: a string key, printed plain as go-yaml prints it
    # (it reads back as a merge key; the round trip is not checked there).
    "a: [{\"<<\", b: c}]\n\"<<\": x\n",
    # Heads read without their trees (fast::parse_head): skipped values of
    # every shape.
    "apiVersion: v1\nkind: A\nmetadata:\n  name: n\n  annotations:\n    k: v\nspec:\n  d: |\n    x\n  e: long\n    text\n  f:\n  - [a, b]\n  - 'q'\n",
]


RS_HEAD = "apiVersion: fluxcd.controlplane.io/v1\nkind: ResourceSet\nmetadata:\n  name: rs\n  namespace: ns\nspec:\n"
RSIP = ("---\napiVersion: fluxcd.controlplane.io/v1\nkind: ResourceSetInputProvider\nmetadata:\n"
        "  name: p{n}\n  namespace: ns\n  labels:\n    role: r\nspec:\n  type: {t}\n  defaultValues:\n    v: {n}\n")
CM = "    - apiVersion: v1\n      kind: ConfigMap\n      metadata:\n        name: {name}\n      data:\n        k: {value}\n"
# Small ResourceSets for the `resourceset` target, one per shape: inputs
# flattened and permuted, providers by name and by selector (Static and
# not), `resources` and `resourcesTemplate`, steps, a disabled object.
RESOURCESET_SEEDS = [
    RS_HEAD + "  inputs:\n    - n: a\n    - n: b\n  resources:\n" + CM.format(name="<< inputs.n >>", value="<< inputs.provider.name >>"),
    RS_HEAD + "  inputsFrom:\n    - name: p1\n  resourcesTemplate: |\n    apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: c-<< inputs.id >>\n    data:\n      v: '<< inputs.v >>'\n" + RSIP.format(n=1, t="Static"),
    RS_HEAD + "  inputStrategy:\n    name: Permute\n  inputs:\n    - x: 1\n    - x: 2\n  inputsFrom:\n    - selector:\n        matchLabels:\n          role: r\n  resources:\n" + CM.format(name="c<< inputs.rs.x >>-<< inputs.p1.v >>", value="<< inputs.id >>") + RSIP.format(n=1, t="Static") + RSIP.format(n=2, t="GitHubBranch"),
    RS_HEAD + "  steps:\n    - name: one\n      resources:\n" + CM.format(name="a", value="b").replace("    - ", "        - ").replace("\n      ", "\n          ") + "    - name: two\n      resourcesTemplate: |\n        apiVersion: v1\n        kind: List\n        items:\n          - apiVersion: v1\n            kind: ConfigMap\n            metadata:\n              name: << slugify \"B & c\" >>\n",
    RS_HEAD + "  resources:\n" + CM.format(name="a", value="<< toYaml (list 1 2) | b64enc >>") + "    - apiVersion: v1\n      kind: Secret\n      metadata:\n        name: s\n        annotations:\n          fluxcd.controlplane.io/reconcile: disabled\n",
]


def main():
    counts = {}
    for d in os.listdir(CORPUS) if os.path.isdir(CORPUS) else []:
        for f in os.listdir(os.path.join(CORPUS, d)):
            if f.startswith("seed-"):
                os.remove(os.path.join(CORPUS, d, f))

    for text in QUICK_READER_SEEDS:
        put("yaml_roundtrip", text, counts)
    all_yaml = list(yaml_files(FIXTURES))
    for p in all_yaml:
        text = read(p)
        put("yaml_roundtrip", text, counts)
        if text and "${" in text:
            # Whole files, and each line holding an expression.
            put("envsubst", text, counts)
            for line in text.splitlines():
                if "${" in line:
                    put("envsubst", line.strip(), counts)

    # Kustomization trees: every fixtures/kustomize/*/in directory.
    kdir = os.path.join(FIXTURES, "kustomize")
    for case in sorted(os.listdir(kdir)):
        root = os.path.join(kdir, case, "in")
        if not os.path.isdir(root):
            continue
        parts = []
        for dirpath, _, files in os.walk(root):
            for f in sorted(files):
                rel = os.path.relpath(os.path.join(dirpath, f), root)
                text = read(os.path.join(dirpath, f))
                if text is None:
                    continue
                if not text.endswith("\n"):
                    text += "\n"
                parts.append(HEADER + rel + "\n" + text)
        put("kustomize_build", "".join(parts), counts)

    # Object + patch pairs from the same directory.
    by_dir = {}
    for p in all_yaml:
        by_dir.setdefault(os.path.dirname(p), []).append(p)
    for d, files in by_dir.items():
        texts = {p: read(p) for p in files}
        objects = [t for p, t in texts.items()
                   if t and re.search(r"^kind:", t, re.M)
                   and not os.path.basename(p).startswith("kustomization")]
        for p, t in texts.items():
            if not t:
                continue
            is_json_patch = re.search(r'^\s*-\s*op:|"op"\s*:', t, re.M)
            for obj in objects[:4]:
                if obj is t:
                    continue
                if is_json_patch:
                    put("json6902", obj + SEP + t, counts)
                elif "patch" in os.path.basename(p).lower():
                    put("strategic_merge", obj + SEP + t, counts)
        # Any two objects of a directory merge as object and patch too.
        for a in objects[:3]:
            for b in objects[:3]:
                if a is not b:
                    put("strategic_merge", a + SEP + b, counts)

    # Templates with their values: every fixtures/template case.
    tdir = os.path.join(FIXTURES, "template")
    for case in sorted(os.listdir(tdir)):
        tpl = read(os.path.join(tdir, case, "template.tpl"))
        if tpl is None:
            continue
        values = read(os.path.join(tdir, case, "values.yaml")) or ""
        put("template", tpl + SEP + values, counts)

    # Charts: every fixtures/helm/*/chart directory, as a chart tree input
    # (flate_fuzz::ChartTree): Chart.yaml first, archived subcharts
    # (tgz/NAME, packed as charts/NAME.tgz) by their entries, the case's
    # first values file as the user values.
    hdir = os.path.join(FIXTURES, "helm")
    for case in sorted(os.listdir(hdir)):
        root = os.path.join(hdir, case, "chart")
        head = read(os.path.join(root, "Chart.yaml"))
        if head is None:
            continue
        parts = [head if head.endswith("\n") else head + "\n"]

        def add(name, text):
            if text is None:
                return
            parts.append(HEADER + name + "\n" + text + ("" if text.endswith("\n") else "\n"))

        for dirpath, _, files in os.walk(root):
            for f in sorted(files):
                rel = os.path.relpath(os.path.join(dirpath, f), root)
                if rel != "Chart.yaml" and not rel.endswith(".tgz"):
                    add(rel, read(os.path.join(dirpath, f)))
        tgz = os.path.join(hdir, case, "tgz")
        for name in sorted(os.listdir(tgz)) if os.path.isdir(tgz) else []:
            for dirpath, _, files in os.walk(os.path.join(tgz, name)):
                for f in sorted(files):
                    rel = os.path.relpath(os.path.join(dirpath, f), tgz)
                    add(f"charts/{name}.tgz!{rel}", read(os.path.join(dirpath, f)))
        values = sorted(f for f in os.listdir(os.path.join(hdir, case)) if f.endswith(".yaml")
                        and f != "expected.yaml")
        if values:
            add("@values", read(os.path.join(hdir, case, values[0])))
        put("helm_chart", "".join(parts), counts)

    # ResourceSets: small ones of each shape, then every fixture YAML file
    # that holds one.
    for text in RESOURCESET_SEEDS:
        put("resourceset", text, counts)
    for p in all_yaml:
        text = read(p)
        if text and re.search(r"^kind: ResourceSet$", text, re.M):
            put("resourceset", text, counts)

    for t in sorted(counts):
        print(f"{t}: {counts[t]} seeds")


if __name__ == "__main__":
    sys.exit(main())
