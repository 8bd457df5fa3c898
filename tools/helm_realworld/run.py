#!/usr/bin/env python3
"""Differential run of `flate helm template` against `helm template` on
public charts, with values taken from real HelmReleases.

Nothing it gathers is committed: the charts and the results stay under
--work (default /work/ext/helm_realworld).

  gather   reads every HelmRelease of the Flux repositories under --repos
           (default /work/ext/realworld/*; checkouts named OWNER+NAME),
           keeps those whose chart is one the chart sources below provide,
           resolves the chart version (the HelmRelease's
           spec.chart.spec.version, or the OCIRepository's ref.tag /
           ref.semver its chartRef names; a range takes the highest
           released version in it), extracts that chart from the source's
           git tag (`git archive`) into WORK/charts/NAME-VERSION/ with its
           dependencies assembled under charts/ from the same sources, and
           writes one case per distinct (chart, values, release name,
           namespace) to WORK/cases/ID/ (values.yaml from spec.values;
           valuesFrom is ignored). A HelmRelease whose chart version is not
           in the sources (released after the snapshot) renders the newest
           release there instead; the case records it (substitutedFor).
           A chart whose values.schema.json has a `$ref` to a URL (which
           Helm downloads) is rendered with --skip-schema-validation by
           both (recorded as remoteSchema).
  run      renders every case with helm (twice, and four more times when
           flate's output differs from two equal ones: a chart whose helm
           renders differ is nondeterministic, such as one that generates
           random passwords or certificates, or one that ranges over
           Sprig's unsorted `keys`) and with flate, and classifies it:
           identical / same-documents (Helm's renders differ from run to
           run; flate's documents, each with its `# Source:` line, are the
           same multiset as one of Helm's: only the order differs; where
           Helm is not deterministic, docs/helm-fidelity.md compares
           outputs as sets of documents) / nondeterministic (Helm's
           renders differ and flate's documents match neither) /
           different / helm-fails / flate-fails / both-fail. Writes
           WORK/summary.md and WORK/results/ID.diff.

Usage: tools/helm_realworld/run.py gather [--mirrors DIR] [--repos DIR] [--work DIR]
       tools/helm_realworld/run.py run [--flate BIN] [--helm BIN] [--work DIR] [--jobs N]

The chart sources are bare git repositories as the project's `fetch` tool
writes them, under --mirrors (default /work/.mirror), as OWNER+NAME/repo.
"""

import argparse
import collections
import concurrent.futures as cf
import difflib
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import yaml

# Where charts come from: (mirror, tag pattern with {n} for the chart name
# and {v} for its version, the only chart names the pattern applies to or
# None for any). A chart is found at a tag by the `name:` of a Chart.yaml.
SOURCES = [
    ("bjw-s-labs+helm-charts", "{n}-{v}", None),
    ("bjw-s-labs+helm-charts", "common-{v}", {"app-template"}),
    ("bjw-s+helm-charts", "{n}-{v}", None),
    ("prometheus-community+helm-charts", "{n}-{v}", None),
    ("grafana+helm-charts", "{n}-{v}", None),
    ("grafana-community+helm-charts", "{n}-{v}", None),
    ("cert-manager+cert-manager", "v{v}", {"cert-manager"}),
    ("kubernetes-sigs+external-dns", "external-dns-helm-chart-{v}", {"external-dns"}),
    ("external-secrets+external-secrets", "helm-chart-{v}", {"external-secrets"}),
    ("external-secrets+bitwarden-sdk-server", "v{v}", {"bitwarden-sdk-server"}),
    ("cloudnative-pg+charts", "{n}-v{v}", None),
    ("kubernetes+ingress-nginx", "helm-chart-{v}", {"ingress-nginx"}),
    ("kubernetes-sigs+descheduler", "descheduler-helm-chart-{v}", {"descheduler"}),
    ("kubernetes-sigs+metrics-server", "metrics-server-helm-chart-{v}", {"metrics-server"}),
    ("stakater+Reloader", "chart-{v}", {"reloader"}),
    ("spegel-org+spegel", "{v}", {"spegel"}),
    ("stefanprodan+podinfo", "{v}", {"podinfo"}),
    ("kyverno+kyverno", "{n}-chart-{v}", {"kyverno", "kyverno-policies"}),
    ("rook+rook", "{v}", {"rook-ceph", "rook-ceph-cluster"}),
    ("ceph+ceph-csi-operator", "v{v}", {"ceph-csi-operator"}),
    ("goauthentik+helm", "{n}-{v}", None),
    ("dexidp+helm-charts", "{n}-{v}", {"dex"}),
    ("kubernetes-sigs+node-feature-discovery", "v{v}", {"node-feature-discovery"}),
    ("backube+volsync", "v{v}", {"volsync"}),
    ("actions+actions-runner-controller", "gha-runner-scale-set-{v}",
     {"gha-runner-scale-set", "gha-runner-scale-set-controller"}),
    ("actions+actions-runner-controller", "{n}-{v}", {"actions-runner-controller"}),
    ("postfinance+kubelet-csr-approver", "v{v}", {"kubelet-csr-approver"}),
    ("piraeusdatastore+helm-charts", "{n}-{v}", None),
    ("VictoriaMetrics+helm-charts", "{n}-{v}", None),
    ("bitnami+charts", "{n}/{v}", None),
    ("vectordotdev+helm-charts", "{n}-{v}", {"vector"}),
    ("controlplaneio-fluxcd+charts", "v{v}", {"flux-operator", "flux-instance"}),
    ("coredns+helm", "{n}-{v}", {"coredns"}),
    ("envoyproxy+gateway", "v{v}", {"gateway-helm"}),
    ("grafana+grafana-operator", "v{v}", {"grafana-operator"}),
    ("1Password+connect-helm-charts", "{n}-{v}", None),
    ("openebs+openebs", "v{v}", {"openebs"}),
    ("dragonflydb+dragonfly-operator", "v{v}", {"dragonfly-operator"}),
    ("traefik+traefik-helm-chart", "v{v}", {"traefik"}),
    # Tags that do not name the chart's version: each tag's Chart.yaml
    # under the given directory says it.
    ("minio+minio", "@chart:helm/minio", {"minio"}),
]
# The charts a HelmRelease may name to become a case (the families the
# differential covers); their dependencies may come from any source.
WANTED = {
    "app-template", "kube-prometheus-stack", "prometheus-blackbox-exporter",
    "prometheus-adapter", "prometheus-operator-crds", "prometheus-smartctl-exporter",
    "prometheus-snmp-exporter", "prometheus-node-exporter", "kube-state-metrics",
    "prometheus-pushgateway", "prometheus-postgres-exporter", "prometheus-redis-exporter",
    "prometheus", "alertmanager", "grafana", "loki-stack", "promtail", "tempo-distributed",
    "cert-manager", "external-dns", "external-secrets", "cloudnative-pg", "cluster",
    "plugin-barman-cloud", "ingress-nginx", "descheduler", "metrics-server", "reloader",
    "spegel", "podinfo", "kyverno", "kyverno-policies", "rook-ceph", "rook-ceph-cluster",
    "authentik", "dex", "node-feature-discovery", "volsync", "gha-runner-scale-set",
    "gha-runner-scale-set-controller", "actions-runner-controller", "kubelet-csr-approver",
    "snapshot-controller", "victoria-metrics-k8s-stack", "victoria-metrics-operator",
    "victoria-logs-single", "victoria-metrics-single", "thanos", "redis", "loki", "tempo",
    "flux-operator", "flux-instance", "coredns", "gateway-helm", "grafana-operator", "connect",
    "openebs", "dragonfly-operator", "traefik",
}
SEMVER = re.compile(r"^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$")


# ---------------------------------------------------------------- versions

def parse_version(s):
    m = SEMVER.match(str(s).strip())
    if not m:
        return None
    return (int(m.group(1)), int(m.group(2) or 0), int(m.group(3) or 0), m.group(4) or "")


def vkey(v):
    major, minor, patch, pre = v
    return (major, minor, patch, pre == "", pre)


def match_one(v, c):
    """v (parsed) satisfies one constraint term c (Masterminds/semver style)."""
    c = c.strip()
    if c in ("", "*", "x", "X"):
        return True
    m = re.match(r"^(>=|<=|!=|=>|=<|>|<|=|~>|~|\^)?\s*v?([0-9xX*]+)(?:\.([0-9xX*]+))?(?:\.([0-9xX*]+))?(?:-([0-9A-Za-z.-]+))?$", c)
    if not m:
        return False
    op = m.group(1) or "="
    parts = [m.group(2), m.group(3), m.group(4)]
    wild = [p is None or p in ("x", "X", "*") for p in parts]
    nums = [0 if w else int(p) for p, w in zip(parts, wild)]
    pre = m.group(5) or ""
    base = (nums[0], nums[1], nums[2], pre)
    t = vkey(v)
    b = vkey(base)
    if op in ("=",) and any(wild):
        if wild[0]:
            return True
        if wild[1]:
            return v[0] == nums[0]
        return v[0] == nums[0] and v[1] == nums[1]
    if op == "=":
        return v[:3] == base[:3] and v[3] == pre
    if op == "!=":
        return not (v[:3] == base[:3] and v[3] == pre)
    if op == ">":
        return t > b
    if op in (">=", "=>"):
        return t >= b
    if op == "<":
        return t < b
    if op in ("<=", "=<"):
        return t <= b
    if op in ("~", "~>"):
        upper = (nums[0] + 1, 0, 0) if wild[1] else (nums[0], nums[1] + 1, 0)
        return t >= b and v[:3] < upper
    if op == "^":
        if nums[0] > 0 or wild[1]:
            upper = (nums[0] + 1, 0, 0)
        elif nums[1] > 0 or wild[2]:
            upper = (0, nums[1] + 1, 0)
        else:
            upper = (0, 0, nums[2] + 1)
        return t >= b and v[:3] < upper
    return False


def satisfies(v, constraint):
    constraint = str(constraint).strip()
    for alt in constraint.split("||"):
        alt = alt.strip()
        hy = re.match(r"^(\S+)\s+-\s+(\S+)$", alt)
        if hy:
            terms = [">=" + hy.group(1), "<=" + hy.group(2)]
        else:
            terms = [t for t in re.split(r"[,\s]+", re.sub(r"(>=|<=|!=|>|<|=|~|\^)\s+", r"\1", alt)) if t]
        if v[3] and not any("-" in t for t in terms):
            continue  # prereleases only when the constraint names one
        if all(match_one(v, t) for t in terms or ["*"]):
            return True
    return False


# ---------------------------------------------------------------- sources

def git(gitdir, *args, text=True):
    return subprocess.run(["git", "--git-dir", str(gitdir), *args], capture_output=True,
                          text=text, check=False)


class Sources:
    def __init__(self, mirrors):
        self.mirrors = Path(mirrors)
        self.tags = {}
        for mirror, _, _ in SOURCES:
            g = self.gitdir(mirror)
            self.tags[mirror] = set(git(g, "tag").stdout.split()) if g.is_dir() else set()
        self.cache = {}

    def gitdir(self, mirror):
        return self.mirrors / mirror / "repo"

    def chart_path(self, mirror, tag, name):
        """The directory of chart NAME at TAG in MIRROR, or None."""
        key = (mirror, tag, name)
        if key in self.cache:
            return self.cache[key]
        g = self.gitdir(mirror)
        files = git(g, "ls-tree", "-r", "--name-only", tag).stdout.split("\n")
        found = None
        for f in sorted((f for f in files if f.endswith(("/Chart.yaml", "/Chart.template.yaml"))), key=len):
            d = f.rsplit("/", 1)[0]
            if "/test" in d or d.startswith(("test", "examples", "make/")):
                continue
            try:
                doc = yaml.safe_load(git(g, "show", f"{tag}:{f}").stdout) or {}
            except yaml.YAMLError:
                continue
            if doc.get("name") == name:
                found = d
                break
        self.cache[key] = found
        return found

    def versions(self, name):
        """Every released version of chart NAME: [(version, mirror, tag)]."""
        out = []
        for mirror, pat, names in SOURCES:
            if names is not None and name not in names:
                continue
            if pat.startswith("@chart:"):
                out.extend(self.chart_versions(mirror, pat[len("@chart:"):], name))
                continue
            prefix, _, suffix = pat.replace("{n}", name).partition("{v}")
            for t in self.tags[mirror]:
                if t.startswith(prefix) and t.endswith(suffix) and len(t) > len(prefix) + len(suffix):
                    v = parse_version(t[len(prefix):len(t) - len(suffix)])
                    if v:
                        out.append((v, mirror, t))
        out.sort(key=lambda x: vkey(x[0]), reverse=True)
        return out

    def chart_versions(self, mirror, path, name):
        """[(version, mirror, tag)] from the Chart.yaml at PATH of every tag
        (the newest tag of each version)."""
        g = self.gitdir(mirror)
        found = {}
        for t in sorted(self.tags[mirror]):
            r = git(g, "show", f"{t}:{path}/Chart.yaml")
            if r.returncode != 0:
                continue
            try:
                doc = yaml.safe_load(r.stdout) or {}
            except yaml.YAMLError:
                continue
            v = parse_version(str(doc.get("version", ""))) if doc.get("name") == name else None
            if v:
                found[v] = t
        return [(v, mirror, t) for v, t in found.items()]

    def resolve(self, name, constraint):
        """The highest (version, mirror, tag, path) satisfying constraint."""
        for v, mirror, tag in self.versions(name):
            if constraint and not satisfies(v, constraint):
                continue
            path = self.chart_path(mirror, tag, name)
            if path:
                return v, mirror, tag, path
        return None


def vstr(v):
    return f"{v[0]}.{v[1]}.{v[2]}" + (f"-{v[3]}" if v[3] else "")


def extract(sources, mirror, tag, path, dest):
    g = sources.gitdir(mirror)
    data = git(g, "archive", "--format=tar", tag, path, text=False).stdout
    strip = path.count("/") + 1
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        for m in tar.getmembers():
            parts = m.name.split("/")
            if len(parts) <= strip:
                continue
            m.name = "/".join(parts[strip:])
            if m.issym():
                # `helm package` stores what a symbolic link points at:
                # read it from the same tag (LICENSE -> ../../LICENSE).
                target = os.path.normpath(os.path.join(os.path.dirname("/".join(parts)), m.linkname))
                if git(g, "cat-file", "-t", f"{tag}:{target}").stdout.strip() == "tree":
                    # A link to a directory (rook's charts/library): its files.
                    extract(sources, mirror, tag, target, Path(dest) / m.name)
                    continue
                content = git(g, "show", f"{tag}:{target}", text=False)
                if content.returncode == 0:
                    out = Path(dest) / m.name
                    out.parent.mkdir(parents=True, exist_ok=True)
                    out.write_bytes(content.stdout)
                continue
            tar.extract(m, dest, filter="tar") if hasattr(tarfile, "data_filter") else tar.extract(m, dest)


def chart_meta(d):
    doc = yaml.safe_load((d / "Chart.yaml").read_text()) or {}
    deps = doc.get("dependencies") or []
    req = d / "requirements.yaml"
    if req.is_file():
        deps = (yaml.safe_load(req.read_text()) or {}).get("dependencies") or deps
    return doc, deps


def assemble(sources, name, constraint, dest, missing, depth=0):
    """Extracts chart NAME into dest with its dependencies; records what
    cannot be assembled in `missing`. Returns the version or None."""
    r = sources.resolve(name, constraint)
    if not r:
        missing.append(f"{name} {constraint or '(any)'}: no source")
        return None
    v, mirror, tag, path = r
    dest.mkdir(parents=True)
    extract(sources, mirror, tag, path, dest)
    tmpl = dest / "Chart.template.yaml"
    if tmpl.is_file() and not (dest / "Chart.yaml").is_file():
        text = re.sub(r"\{\{IS_PRERELEASE\}\}", "false", tmpl.read_text())
        doc = yaml.safe_load(text) or {}
        text = re.sub(r"(?m)^version:.*$", "", text)
        text = re.sub(r"(?m)^appVersion:.*$", "", text)
        text = text.rstrip("\n") + f"\nversion: v{vstr(v)}\nappVersion: v{vstr(v)}\n"
        (dest / "Chart.yaml").write_text(text)
    _, deps = chart_meta(dest)
    for dep in deps:
        dname = dep.get("name")
        repo = str(dep.get("repository") or "")
        local = dest / "charts" / dname
        if local.is_dir() or list((dest / "charts").glob(f"{dname}-*.tgz")):
            continue
        if repo.startswith("file://"):
            src = (dest / repo[len("file://"):]).resolve()
            if src.is_dir():
                shutil.copytree(src, local)
                continue
            # A chart beside this one in the same source (rook's
            # `file://../library`): taken from the same tag.
            beside = os.path.normpath(os.path.join(path, repo[len("file://"):]))
            if git(sources.gitdir(mirror), "cat-file", "-e", f"{tag}:{beside}/Chart.yaml").returncode == 0:
                local.mkdir(parents=True)
                extract(sources, mirror, tag, beside, local)
                continue
        if depth > 4 or not assemble(sources, dname, dep.get("version"), local, missing, depth + 1):
            missing.append(f"{name}: dependency {dname} {dep.get('version')} ({repo}) not assembled")
    return v


# ---------------------------------------------------------------- gather

def load_docs(p):
    try:
        return [d for d in yaml.safe_load_all(p.read_text()) if isinstance(d, dict)]
    except Exception:
        return []


def helm_release_name(hr):
    spec = hr.get("spec") or {}
    if spec.get("releaseName"):
        return spec["releaseName"]
    name = hr["metadata"]["name"]
    tn = spec.get("targetNamespace")
    full = f"{tn}-{name}" if tn else name
    if len(full) > 53:
        h = hashlib.sha256(full.encode()).hexdigest()[:12]
        full = f"{full[:40]}-{h}"
    return full


def gather(args):
    work = Path(args.work)
    sources = Sources(args.mirrors)
    repos = sorted(Path(args.repos).iterdir())
    hrs, ocis = [], {}
    for repo in repos:
        for p in sorted(repo.rglob("*.y*ml")):
            if ".git" in p.parts or p.suffix not in (".yaml", ".yml"):
                continue
            for d in load_docs(p):
                kind = d.get("kind")
                if kind == "OCIRepository":
                    ocis[(repo.name, (d.get("metadata") or {}).get("name"))] = d.get("spec") or {}
                elif kind == "HelmRelease" and isinstance(d.get("metadata"), dict):
                    hrs.append((repo, p, d))
    cases_dir = work / "cases"
    if cases_dir.exists():
        shutil.rmtree(cases_dir)
    cases_dir.mkdir(parents=True)
    charts_dir = work / "charts"
    charts_dir.mkdir(parents=True, exist_ok=True)
    stats = collections.Counter()
    unassembled = {}
    seen = {}
    for repo, p, hr in hrs:
        spec = hr.get("spec") or {}
        chart, constraint = None, None
        if isinstance(spec.get("chart"), dict):
            cs = spec["chart"].get("spec") or {}
            chart, constraint = cs.get("chart"), cs.get("version")
        elif isinstance(spec.get("chartRef"), dict):
            oci = ocis.get((repo.name, spec["chartRef"].get("name")))
            if oci and oci.get("url"):
                chart = oci["url"].rstrip("/").rsplit("/", 1)[-1]
                ref = oci.get("ref") or {}
                constraint = ref.get("tag") or ref.get("semver")
        if not chart or "/" in str(chart) or chart not in WANTED:
            stats["other chart"] += 1
            continue
        if constraint and "${" in str(constraint):
            constraint = None
        r = sources.resolve(chart, constraint)
        substituted = None
        if not r:
            # The version is not in the sources (released after the
            # snapshot): the newest release stands in, and the case says so.
            r = sources.resolve(chart, None)
            if not r:
                stats["chart not in the sources"] += 1
                continue
            stats["version substituted"] += 1
            substituted = str(constraint)
        v = vstr(r[0])
        cdir = charts_dir / f"{chart}-{v}"
        key = f"{chart}-{v}"
        if not cdir.exists():
            missing = []
            assemble(sources, chart, f"={v}" if not r[0][3] else v, cdir, missing)
            if missing:
                unassembled[key] = missing
        values = spec.get("values") or {}
        release = helm_release_name(hr)
        ns = spec.get("targetNamespace") or hr["metadata"].get("namespace") or "default"
        vtext = yaml.safe_dump(values, sort_keys=True)
        cid = hashlib.sha256(f"{key}\0{release}\0{ns}\0{vtext}".encode()).hexdigest()[:12]

        stats["helmreleases"] += 1
        src = f"{repo.name}/{p.relative_to(repo)}"
        if cid in seen:
            seen[cid]["sources"].append(src)
            continue
        cd = cases_dir / f"{chart}-{cid}"
        cd.mkdir()
        (cd / "values.yaml").write_text(vtext)
        meta = {"chart": str(cdir), "chartName": chart, "version": v, "release": release,
                "namespace": ns, "sources": [src], "substitutedFor": substituted}
        seen[cid] = meta
    remote = {}
    for cid, meta in seen.items():
        c = meta["chart"]
        if c not in remote:
            remote[c] = any(re.search(r'"\$ref"\s*:\s*"https?://', f.read_text(errors="replace"))
                            for f in Path(c).rglob("values.schema.json"))
        meta["remoteSchema"] = remote[c]
        (cases_dir / f"{meta['chartName']}-{cid}" / "case.json").write_text(json.dumps(meta, indent=1))
    (work / "gather.json").write_text(json.dumps({"stats": stats, "unassembled": unassembled}, indent=1))
    print(f"HelmReleases read: {len(hrs)}; cases: {len(seen)} distinct of {stats['helmreleases']}")
    for k, v in sorted(stats.items()):
        print(f"  {k}: {v}")
    for k, v in sorted(unassembled.items()):
        print(f"  not assembled: {k}: {'; '.join(v)}")


# ---------------------------------------------------------------- run

def render(cmd, cwd, env):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, env=env, timeout=300)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def documents(out):
    """The documents of a `helm template` output, as a sorted list (a
    multiset): split where a `---` line is followed by a `# Source:` line
    (a `---` line inside a block scalar does not start a document)."""
    docs, cur = [], []
    lines = out.decode(errors="replace").splitlines(keepends=True)
    for i, line in enumerate(lines):
        starts = (line.rstrip() == "---" and i + 1 < len(lines)
                  and lines[i + 1].startswith("# Source:"))
        if starts and cur:
            docs.append("".join(cur))
            cur = []
        cur.append(line)
    if cur:
        docs.append("".join(cur))
    return sorted(d if d.endswith("\n") else d + "\n" for d in docs)


def run_case(cd, flate, helm, home):
    meta = json.loads((cd / "case.json").read_text())
    env = dict(os.environ, HOME=home, HELM_CACHE_HOME=f"{home}/cache",
               HELM_CONFIG_HOME=f"{home}/config", HELM_DATA_HOME=f"{home}/data")
    common = ["--namespace", meta["namespace"], "-f", str(cd / "values.yaml")]
    if meta.get("remoteSchema"):
        # Helm downloads a schema's remote $ref and fails offline; both
        # engines render such a chart without schema validation.
        common.append("--skip-schema-validation")
    h1 = render([helm, "template", meta["release"], meta["chart"], *common], cd, env)
    h2 = render([helm, "template", meta["release"], meta["chart"], *common], cd, env) if h1[0] == 0 else h1
    f = render([flate, "helm", "template", meta["chart"], "--name", meta["release"], *common], cd, env)
    runs = [h1, h2]
    if h1[0] == 0 and h1[1] == h2[1] and f[0] == 0 and f[1] != h1[1]:
        # Helm's order can vary between runs (ranging over Sprig's
        # unsorted `keys`) yet agree twice by chance: look again before
        # calling flate's output different.
        runs += [render([helm, "template", meta["release"], meta["chart"], *common], cd, env)
                 for _ in range(4)]
    nondet = h1[0] == 0 and any(r[1] != h1[1] for r in runs)
    if h1[0] != 0 and f[0] != 0:
        cls = "both-fail"
    elif h1[0] != 0:
        cls = "helm-fails"
    elif f[0] != 0:
        cls = "flate-fails"
    elif f[1] == h1[1]:
        cls = "identical"
    elif nondet and documents(f[1]) in [documents(r[1]) for r in runs]:
        cls = "same-documents"
    elif nondet:
        cls = "nondeterministic"
    else:
        cls = "different"
    detail = ""
    if cls in ("different", "nondeterministic"):
        a = h1[1].decode(errors="replace").splitlines(keepends=True)
        b = f[1].decode(errors="replace").splitlines(keepends=True)
        detail = "".join(difflib.unified_diff(a, b, "helm", "flate", n=2))
    elif cls == "flate-fails":
        detail = f[2]
    elif cls in ("helm-fails", "both-fail"):
        detail = f"helm: {h1[2]}\nflate: {f[2]}"
    return cd.name, meta, cls, nondet, detail


def run(args):
    work = Path(args.work)
    cases = sorted(d for d in (work / "cases").iterdir() if (d / "case.json").is_file())
    if args.only:
        cases = [c for c in cases if args.only in c.name]
    out = work / "results"
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    home = work / "home"
    home.mkdir(exist_ok=True)
    results = []
    with cf.ThreadPoolExecutor(args.jobs) as ex:
        futs = [ex.submit(run_case, c, args.flate, args.helm, str(home)) for c in cases]
        for fu in cf.as_completed(futs):
            name, meta, cls, nondet, detail = fu.result()
            results.append((name, meta, cls, nondet))
            if detail:
                (out / f"{name}.{cls}.txt").write_text(detail)
    results.sort()
    by = collections.Counter(r[2] for r in results)
    per_chart = collections.defaultdict(collections.Counter)
    for name, meta, cls, _ in results:
        per_chart[f"{meta['chartName']}"][cls] += 1
    n = len(results)
    rendered = n - by["helm-fails"] - by["both-fail"]
    subst = sum(1 for r in results if r[1].get("substitutedFor"))
    lines = ["# flate helm template vs helm template on public charts", "",
             f"cases: {n} (distinct chart, version, values, release, namespace), "
             f"from {sum(len(r[1]['sources']) for r in results)} HelmReleases; "
             f"{subst} render the newest release in the sources in place of a newer version", ""]
    for k in ("identical", "same-documents", "different", "nondeterministic", "flate-fails", "helm-fails", "both-fail"):
        lines.append(f"- {k}: {by[k]}")
    if rendered:
        same = by['identical'] + by['same-documents']
        lines += ["", f"identical: {by['identical']}/{rendered} of the cases Helm renders "
                  f"({100.0 * by['identical'] / rendered:.1f}%); with the cases where Helm's "
                  f"own output varies compared as sets of documents: {same}/{rendered} "
                  f"({100.0 * same / rendered:.1f}%)"]
    lines += ["", "| chart | " + " | ".join(("identical", "same-documents", "different", "nondeterministic", "flate-fails", "helm-fails", "both-fail")) + " |",
              "|---|" + "---|" * 7]
    for chart, c in sorted(per_chart.items()):
        lines.append(f"| {chart} | " + " | ".join(str(c[k]) for k in ("identical", "same-documents", "different", "nondeterministic", "flate-fails", "helm-fails", "both-fail")) + " |")
    lines += ["", "## Cases not identical", ""]
    for name, meta, cls, _ in results:
        if cls != "identical":
            lines.append(f"- {name} ({meta['chartName']} {meta['version']}): {cls}; {meta['sources'][0]}")
    (work / "summary.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines[:12]))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["gather", "run"])
    ap.add_argument("--mirrors", default="/work/.mirror")
    ap.add_argument("--repos", default="/work/ext/realworld")
    ap.add_argument("--work", default="/work/ext/helm_realworld")
    ap.add_argument("--flate", default=str(Path(__file__).resolve().parents[2] / "target/release/flate"))
    ap.add_argument("--helm", default=shutil.which("helm") or "/work/helm/helm")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", help="only the cases whose name contains this")
    args = ap.parse_args()
    # Both run in each case's directory: paths are made absolute first.
    for k in ("flate", "helm"):
        v = getattr(args, k)
        if "/" in v:
            setattr(args, k, os.path.abspath(v))
    {"gather": gather, "run": run}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
