#!/usr/bin/env python3
"""Record the expected output of the chart engine's own cases,
fixtures/helm/core-*/, from Helm (v4.1.4).

A case directory holds `chart/` (the chart, possibly a symlink to another
case's chart), optional `tgz/NAME/` chart directories packed into
`chart/charts/NAME-VERSION.tgz` (sorted entries, mtime 0), values files,
and `args`: the arguments, one per line, with `--name RELEASE`. Helm runs
in the case directory as `helm template RELEASE chart ARGS...`; its
standard output goes to expected.yaml, or on failure its standard error
(without the leading "Error: " and the trailing "Use --debug flag ..."
line) to expected-error.txt.

Usage: tools/record_helm_core.py [HELM] [CASE...]
HELM defaults to `helm` on PATH, else /work/helm/helm.
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


def read_args(d):
    words = [l.strip() for l in open(os.path.join(d, "args")).read().splitlines()]
    words = [w for w in words if w and not w.startswith("#")]
    i = words.index("--name")
    return words[i + 1], words[:i] + words[i + 2:]


def chart_version(chart_dir):
    for line in open(os.path.join(chart_dir, "Chart.yaml")).read().splitlines():
        m = re.match(r"^version:\s*['\"]?([^'\"\s]+)", line)
        if m:
            return m.group(1)
    sys.exit(f"{chart_dir}/Chart.yaml: no version")


def pack(src, name, dest):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        entries = []
        for d, dirs, files in os.walk(src):
            dirs.sort()
            entries += [os.path.join(d, f) for f in sorted(files)]
        for p in entries:
            data = open(p, "rb").read()
            info = tarfile.TarInfo(f"{name}/{os.path.relpath(p, src)}")
            info.size, info.mtime, info.mode = len(data), 0, 0o644
            tar.addfile(info, io.BytesIO(data))
    with open(dest, "wb") as f:
        with gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0) as gz:
            gz.write(buf.getvalue())


def record(helm, case):
    d = os.path.join(ROOT, case)
    tgz = os.path.join(d, "tgz")
    if os.path.isdir(tgz):
        charts = os.path.join(d, "chart", "charts")
        os.makedirs(charts, exist_ok=True)
        for name in sorted(os.listdir(tgz)):
            src = os.path.join(tgz, name)
            pack(src, name, os.path.join(charts, f"{name}-{chart_version(src)}.tgz"))
    name, rest = read_args(d)
    for f in ("expected.yaml", "expected-error.txt"):
        if os.path.exists(os.path.join(d, f)):
            os.remove(os.path.join(d, f))
    with tempfile.TemporaryDirectory() as home:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home,
               "HELM_CACHE_HOME": os.path.join(home, "cache"),
               "HELM_CONFIG_HOME": os.path.join(home, "config"),
               "HELM_DATA_HOME": os.path.join(home, "data")}
        p = subprocess.run([helm, "template", name, "chart", *rest], cwd=d,
                           capture_output=True, env=env)
    if p.returncode == 0:
        open(os.path.join(d, "expected.yaml"), "wb").write(p.stdout)
        return "ok"
    err = p.stderr.decode()
    err = re.sub(r"\n*Use --debug flag to render out invalid YAML\n*$", "", err)
    err = err[len("Error: "):] if err.startswith("Error: ") else err
    open(os.path.join(d, "expected-error.txt"), "w").write(err.rstrip("\n") + "\n")
    return "error"


def main():
    args = sys.argv[1:]
    helm = shutil.which("helm") or "/work/helm/helm"
    if args and not args[0].startswith("core-"):
        helm = args.pop(0)
    cases = args or sorted(c for c in os.listdir(ROOT)
                           if c.startswith("core-") and os.path.isfile(os.path.join(ROOT, c, "args")))
    for c in cases:
        print(c, record(helm, c))


if __name__ == "__main__":
    main()
