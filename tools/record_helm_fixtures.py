#!/usr/bin/env python3
"""Record the expected output of every case under fixtures/helm/ from Helm.

A case directory holds:

  chart/       the chart rendered (this project's own small charts)
  tgz/NAME/    optional: charts packed by this script into
               chart/charts/NAME-VERSION.tgz (deterministically: sorted
               entries, mtime 0, owner 0), to test archived dependencies
  args         the arguments, one per line (blank lines and lines starting
               with `#` are ignored): `--name RELEASE` (or
               `--name-template TEMPLATE` alone) and any of
               `--namespace NS`, `-f FILE` (relative to the case directory),
               `--set K=V`, `--set-string`, `--set-json`, `--set-file`
               (paths relative to the case directory), `--set-literal`,
               `--kube-version`, `--api-versions` / `-a`,
               `--include-crds`, `--skip-crds`, `--skip-tests`,
               `--skip-schema-validation`, `--show-only` / `-s`,
               `--no-hooks`
  *.yaml       values files the args name

Helm runs in the case directory as `helm template RELEASE chart ARGS...`
(the arguments of `flate helm template chart --name RELEASE ARGS...`).
On success its standard output is written to expected.yaml; on failure
its standard error, without the leading "Error: " and the trailing
"Use --debug flag ..." line, is written to expected-error.txt.

Usage: tools/record_helm_fixtures.py [HELM] [CASE...]
HELM defaults to `helm` on PATH, else /work/helm/helm. Without CASE, every
case is recorded (the chart engine's own `core-*` cases too;
tools/record_helm_core.py records only those).
"""
import gzip
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "helm")


def helm_bin(args):
    if args and not os.path.isdir(os.path.join(ROOT, args[0])):
        return args.pop(0)
    return shutil.which("helm") or "/work/helm/helm"


def read_args(case_dir):
    """The args file: (release name, the other arguments)."""
    words = []
    for line in open(os.path.join(case_dir, "args")).read().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            words.append(line)
    if "--name" not in words:
        if "--name-template" in words:
            return None, words
        sys.exit(f"{case_dir}/args: no --name")
    i = words.index("--name")
    name = words[i + 1]
    return name, words[:i] + words[i + 2:]


def chart_version(chart_dir):
    for line in open(os.path.join(chart_dir, "Chart.yaml")).read().splitlines():
        m = re.match(r"^version:\s*['\"]?([^'\"\s]+)", line)
        if m:
            return m.group(1)
    sys.exit(f"{chart_dir}/Chart.yaml: no version")


def pack(src, name, dest):
    """Packs the chart directory src as NAME/... into dest (a .tgz),
    byte for byte the same every time."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        entries = []
        for d, dirs, files in os.walk(src):
            dirs.sort()
            for f in sorted(files):
                entries.append(os.path.join(d, f))
        for p in entries:
            rel = os.path.relpath(p, src)
            info = tarfile.TarInfo(f"{name}/{rel}")
            data = open(p, "rb").read()
            info.size = len(data)
            info.mtime = 0
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
    with open(dest, "wb") as f:
        with gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0) as gz:
            gz.write(buf.getvalue())


def pack_tgz(case_dir):
    tgz = os.path.join(case_dir, "tgz")
    if not os.path.isdir(tgz):
        return
    charts = os.path.join(case_dir, "chart", "charts")
    os.makedirs(charts, exist_ok=True)
    for name in sorted(os.listdir(tgz)):
        src = os.path.join(tgz, name)
        pack(src, name, os.path.join(charts, f"{name}-{chart_version(src)}.tgz"))


def record(helm, case):
    d = os.path.join(ROOT, case)
    pack_tgz(d)
    name, rest = read_args(d)
    for f in ("expected.yaml", "expected-error.txt"):
        if os.path.exists(os.path.join(d, f)):
            os.remove(os.path.join(d, f))
    with tempfile.TemporaryDirectory() as home:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": home,
            "HELM_CACHE_HOME": os.path.join(home, "cache"),
            "HELM_CONFIG_HOME": os.path.join(home, "config"),
            "HELM_DATA_HOME": os.path.join(home, "data"),
        }
        named = [name] if name is not None else []
        p = subprocess.run([helm, "template", *named, "chart", *rest], cwd=d,
                           capture_output=True, env=env)
    if p.returncode == 0:
        open(os.path.join(d, "expected.yaml"), "wb").write(p.stdout)
        return "ok"
    err = p.stderr.decode()
    err = re.sub(r"\n*Use --debug flag to render out invalid YAML\n*$", "", err)
    err = err[len("Error: "):] if err.startswith("Error: ") else err
    open(os.path.join(d, "expected-error.txt"), "w").write(err.rstrip("\n") + "\n")
    return "error"


def main(prefix=""):
    """Records the cases named on the command line, else every case whose
    name starts with `prefix`."""
    args = sys.argv[1:]
    helm = helm_bin(args)
    cases = args or sorted(c for c in os.listdir(ROOT)
                           if c.startswith(prefix) and os.path.isfile(os.path.join(ROOT, c, "args")))
    for c in cases:
        print(c, record(helm, c))


if __name__ == "__main__":
    main()
