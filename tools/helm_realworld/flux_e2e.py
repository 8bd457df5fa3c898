#!/usr/bin/env python3
"""End-to-end check of the HelmReleases `flate build` renders in public
Flux repositories, against `helm template` of the same chart and values.

For every cluster entry of the real-world set (tools/realworld/repos.txt,
checked out under --repos as tools/realworld/run.py does), runs `flate
build ENTRY -o json --show-secrets --charts CACHE` and counts the
HelmReleases rendered, skipped and failed (printing each failure). Then,
for every rendered release without post-renderers, `commonMetadata` or
values files (what those change is covered by tests/flux_helm.rs), it
renders the chart flate used (with the version helm-controller's digest
tracking gives it when its OCIRepository pins a digest) with `helm
template` (release name and
namespace as flate resolved them, flate's effective values, the
environment's Kubernetes version, `--api-versions` for the stable
built-in versions of that Kubernetes version (embedded schemas) and every
served version of every CustomResourceDefinition the environment renders,
`--include-crds` unless the release's CRD policy is Skip,
`--skip-tests`, `--skip-schema-validation`) and compares the objects as a
multiset, after taking off what helm-controller adds and Helm does not
print (the two `helm.toolkit.fluxcd.io` origin labels, and the release
namespace flate gives namespaced objects), and reading Helm's output as
its install does where the text shows how (a hook's document trimmed; a
List as its items). One thing the text cannot show: whether a template's
output ended with a line break, which decides whether a block scalar that
ends its last document keeps its final line break when installed
(docs/flux.md); such objects show as `different` and need a look at the
template. A release whose two Helm renders differ is `helm-random`.

The chart cache is a directory of chart directories or `helm pull`
archives (any names; Chart.yaml says name and version), such as the one
`cache` below builds from the charts tools/helm_realworld/run.py gathered:

  cache  links every gathered chart directory (WORK/charts/NAME-VERSION)
         into --cache; with --substitute, also copies the newest gathered
         version of a chart under each version a HelmRelease asks for that
         was not gathered, with that version written into its Chart.yaml
         (the charts were released after the mirrors were taken; what
         renders is then the older chart with the newer values, as
         run.py's substitution does).
  run    the comparison above.

Nothing it writes is committed.

Usage: tools/helm_realworld/flux_e2e.py cache [--work DIR] [--cache DIR] [--substitute]
       tools/helm_realworld/flux_e2e.py run [--flate BIN] [--helm BIN] [--cache DIR] [--repos DIR]
"""

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "realworld"))
import run as realworld  # noqa: E402

KUBERNETES_VERSION = "v1.36.0"


class Loader(yaml.SafeLoader):
    """YAML as Kubernetes reads a manifest (YAML 1.2's booleans: `yes`,
    `on` stay strings; no timestamps; `=` is a string)."""


Loader.yaml_implicit_resolvers = {
    c: [(tag, rx) for tag, rx in rs if tag not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp")]
    for c, rs in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
Loader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
                             list("tTfF"))
Loader.add_constructor("tag:yaml.org,2002:value", lambda loader, node: loader.construct_scalar(node))
ORIGIN = ("helm.toolkit.fluxcd.io/name", "helm.toolkit.fluxcd.io/namespace")


def flate_build(flate, root, entry, cache, sources=()):
    p = subprocess.run(
        [flate, "build", Path(entry).name, "--repo", str(root), "--path", entry,
         "--charts", str(cache), "-o", "json", "--show-secrets"] + realworld.source_args(root, sources),
        capture_output=True, timeout=600)
    try:
        return json.loads(p.stdout)
    except ValueError:
        sys.stderr.write(f"flate build {root} {entry}: exit {p.returncode}: {p.stderr.decode()[:500]}\n")
        return None


def version_key(v):
    return [int(x) if x.isdigit() else -1 for x in re.split(r"[.\-+]", v.lstrip("v"))]


def cache(a):
    a.cache.mkdir(parents=True, exist_ok=True)
    charts = {}
    for d in sorted((a.work / "charts").iterdir()):
        meta = d / "Chart.yaml"
        if not meta.is_file():
            continue
        m = yaml.safe_load(meta.read_text())
        charts.setdefault(m["name"], []).append((str(m["version"]), d))
        link = a.cache / d.name
        if not link.exists():
            link.symlink_to(d)
    made = 0
    if a.substitute:
        asked = set()
        for r in realworld.read_repos():
            root = (a.repos / r["dir"] / r["root"]).resolve()
            for e in r["entries"]:
                j = flate_build(a.flate, root, e, a.cache, r["sources"])
                for h in (j or {}).get("helmreleases", []):
                    m = re.match(r"chart (\S+) (\S+) is not in the chart cache", h["message"])
                    if m:
                        asked.add((m.group(1).split("/")[-1], m.group(2)))
        for name, version in sorted(asked):
            have = charts.get(name)
            dest = a.cache / f"{name}-{version}"
            if not have or dest.exists():
                continue
            _, src = max(have, key=lambda x: version_key(x[0]))
            shutil.copytree(src, dest, symlinks=False)
            meta = dest / "Chart.yaml"
            meta.write_text(re.sub(r"(?m)^version:.*$", f"version: {version}", meta.read_text(), count=1))
            made += 1
    print(f"cache {a.cache}: {sum(len(v) for v in charts.values())} gathered charts linked, {made} substituted copies")


def stable_builtin_api_versions():
    """The stable built-in versions and kinds of Kubernetes 1.36, from the
    embedded schemas, as flate gives a release (docs/flux.md)."""
    store = json.loads((HERE.parents[1] / "schemas/kubernetes/kubernetes.json").read_text())
    out = set()
    for k, variants in store["kinds"].items():
        api_version = k.rsplit("/", 1)[0]
        if re.fullmatch(r"(.*/)?v\d+", api_version) and any(
                "versions" not in v or KUBERNETES_VERSION[1:5] in v["versions"] for v in variants):
            out.update([api_version, k])
    return out


def crd_api_versions(j):
    out = stable_builtin_api_versions()
    objs = [o for k in j["kustomizations"] for o in k.get("objects", [])]
    objs += [o for h in j["helmreleases"] for o in h.get("objects", [])]
    for o in objs:
        if o.get("kind") != "CustomResourceDefinition":
            continue
        spec = o.get("spec") or {}
        group, kind = spec.get("group"), (spec.get("names") or {}).get("kind")
        for v in spec.get("versions") or []:
            if v.get("served", True) and group and kind:
                out.add(f"{group}/{v['name']}")
                out.add(f"{group}/{v['name']}/{kind}")
    return sorted(out)


def canonical(o):
    return json.dumps(o, sort_keys=True)


def key(o):
    md = o.get("metadata") or {}
    return f"{o.get('kind')}/{md.get('namespace', '')}/{md.get('name')}"


def strip_flux(o, release_ns, helm_has_ns):
    o = json.loads(json.dumps(o))
    md = o.get("metadata") or {}
    labels = md.get("labels") or {}
    for k in ORIGIN:
        labels.pop(k, None)
    if "labels" in md and not labels:
        del md["labels"]
    if not helm_has_ns and md.get("namespace") == release_ns:
        del md["namespace"]
    return o


def chart_dir(h, root):
    loc = h["chart"]["location"]
    m = re.match(r"(\S+/\S+/\S+) (\S+)$", loc)
    if m:  # a chart of a source: the repository itself
        return (root / m.group(2)).resolve()
    p = Path(loc)
    return p if p.is_absolute() else (root / p).resolve()


def compare(a, h, root, api_versions):
    chart = chart_dir(h, root)
    if chart.suffix == ".tgz" or not chart.exists():
        return "unsupported", f"chart at {h['chart']['location']}"
    with tempfile.TemporaryDirectory() as t:
        version = h["chart"].get("trackedVersion")
        if version:
            # Helm renders the chart with that version in its Chart.yaml.
            copy = Path(t) / "chart"
            shutil.copytree(chart, copy, symlinks=True)
            text = (copy / "Chart.yaml").read_text()
            text = re.sub(r"(?m)^version:.*$", f"version: {version}", text, count=1)
            (copy / "Chart.yaml").write_text(text)
            chart = copy
        vf = Path(t) / "values.yaml"
        vf.write_text(json.dumps(h["values"], ensure_ascii=False))
        cmd = [a.helm, "template", h["releaseName"], str(chart), "--namespace", h["releaseNamespace"],
               "-f", str(vf), "--kube-version", KUBERNETES_VERSION, "--skip-tests",
               "--skip-schema-validation"]
        if h.get("crdPolicy", "Create") != "Skip":
            cmd.append("--include-crds")
        for v in api_versions:
            cmd += ["--api-versions", v]
        env = dict(os.environ, HELM_CACHE_HOME=f"{t}/c", HELM_CONFIG_HOME=f"{t}/f", HELM_DATA_HOME=f"{t}/d")
        p = subprocess.run(cmd, capture_output=True, env=env, timeout=300)
        again = subprocess.run(cmd, capture_output=True, env=env, timeout=300)
    if p.returncode != 0:
        return "helm-fails", p.stderr.decode()[:400]
    want = [json.loads(json.dumps(d, default=str)) for d in installed(p.stdout.decode())]
    helm_ns = {key(w) for w in want if (w.get("metadata") or {}).get("namespace")}
    got = []
    for o in h["objects"]:
        md = o.get("metadata") or {}
        k = f"{o.get('kind')}/{md.get('namespace', '')}/{md.get('name')}"
        got.append(strip_flux(o, h["releaseNamespace"], k in helm_ns))
    cg = collections.Counter(canonical(o) for o in got)
    cw = collections.Counter(canonical(o) for o in want)
    if cg == cw:
        return "identical", ""
    if again.stdout != p.stdout:
        return "helm-random", "Helm's two renders differ (random passwords, generated certificates)"
    only_g = sorted(key(json.loads(x)) for x in (cg - cw).elements())
    only_w = sorted(key(json.loads(x)) for x in (cw - cg).elements())
    return "different", f"flate only: {only_g[:6]}; helm only: {only_w[:6]}"


def installed(text):
    """The objects Helm's install makes of `helm template`'s output: a
    hook is read from its own trimmed document (a block scalar ending it
    keeps no final line break), anything else followed by a line break; a
    List (`kind: ...List` with `items`) becomes its items."""
    out = []
    for doc in re.split(r"(?m)^---\n", text):
        if not doc.strip():
            continue
        d = yaml.load(doc, Loader=Loader)
        if not isinstance(d, dict):
            continue
        if ((d.get("metadata") or {}).get("annotations") or {}).get("helm.sh/hook"):
            d = yaml.load(doc.rstrip(), Loader=Loader)
        if str(d.get("kind", "")).endswith("List") and isinstance(d.get("items"), list):
            out.extend(i for i in d["items"] if i)
        else:
            out.append(d)
    return out


def run_all(a):
    totals = collections.Counter()
    classes = collections.Counter()
    notes = []
    for r in realworld.read_repos():
        root = (a.repos / r["dir"] / r["root"]).resolve()
        for e in r["entries"]:
            j = flate_build(a.flate, root, e, a.cache, r["sources"])
            if j is None:
                continue
            st = collections.Counter(h["renderStatus"] for h in j["helmreleases"])
            totals.update(st)
            api = crd_api_versions(j)
            hrs = {((o["metadata"].get("namespace") or "default"), o["metadata"]["name"]): o
                   for k in j["kustomizations"] for o in k.get("objects", []) if o.get("kind") == "HelmRelease"}
            for h in j["helmreleases"]:
                where = f"{r['name']} {e} {h['namespace']}/{h['name']}"
                if h["renderStatus"] == "failed":
                    notes.append(f"failed: {where}: {h['message'][:300]}")
                if h["renderStatus"] != "rendered":
                    continue
                spec = hrs.get((h["namespace"], h["name"]), {}).get("spec") or {}
                if spec.get("postRenderers") or spec.get("commonMetadata") or \
                        ((spec.get("chart") or {}).get("spec") or {}).get("valuesFiles"):
                    classes["not compared (post-renderers, commonMetadata or valuesFiles)"] += 1
                    continue
                crds = ((spec.get("install") or {}).get("crds")) or "Create"
                h["crdPolicy"] = crds
                c, msg = compare(a, h, root, api)
                classes[c] += 1
                if c != "identical":
                    notes.append(f"{c}: {where} ({h['chart'].get('chart')} {h['chart'].get('resolvedVersion')}): {msg}")
            print(f"{r['name']:40} {e:36} {dict(st)}", flush=True)
    print()
    print("HelmReleases:", dict(totals))
    print("compared with helm template:", dict(classes))
    for n in notes:
        print("-", n)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["cache", "run"])
    ap.add_argument("--work", type=Path, default=Path("/work/ext/helm_realworld"))
    ap.add_argument("--cache", type=Path, default=Path("/work/ext/chartcache"))
    ap.add_argument("--repos", type=Path, default=Path("/work/ext/realworld"))
    ap.add_argument("--flate", default=str(HERE.parents[1] / "target/release/flate"))
    ap.add_argument("--helm", default=shutil.which("helm") or "/work/helm/helm")
    ap.add_argument("--substitute", action="store_true")
    a = ap.parse_args()
    if a.command == "cache":
        cache(a)
    else:
        run_all(a)


if __name__ == "__main__":
    main()
