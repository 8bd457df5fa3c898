#!/usr/bin/env python3
"""Record the expected output of every case under fixtures/template/ from Helm.

Each case directory holds template.tpl and values.yaml. The template is run
by Helm inside a throwaway chart named `c`:

  * success: the template is stored as templates/_t.tpl (a partial, so Helm
    does not parse its output as YAML nor trim it) and templates/t.yaml is
    `out: {{ include "c/templates/_t.tpl" . | b64enc | quote }}`. The recorded
    expected.txt is the base64-decoded value of `out`: exactly the bytes the
    template produced, before Helm's own post-processing (Helm later trims
    whitespace and replaces "<no value>" with "" in whole files; neither is
    applied here).
  * error: if that run fails, the template is stored as templates/t.yaml and
    rendered directly; expected-error.txt is Helm's stderr with the leading
    "Error: " and the trailing "Use --debug flag ..." lines removed.

Usage: tools/record_template_fixtures.py [HELM] [CASE...]
HELM defaults to `helm` on PATH, else /work/helm/helm.
"""
import base64, os, re, shutil, subprocess, sys, tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "template")
CHART_YAML = "apiVersion: v2\nname: c\nversion: 0.1.0\n"
WRAPPER = 'out: {{ include "c/templates/_t.tpl" . | b64enc | quote }}\n'


def helm_bin(args):
    if args and not os.path.isdir(os.path.join(ROOT, args[0])):
        return args.pop(0)
    return shutil.which("helm") or "/work/helm/helm"


def run(helm, chart):
    p = subprocess.run([helm, "template", "x", chart, "--show-only", "templates/t.yaml"],
                       capture_output=True)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def record(helm, case):
    d = os.path.join(ROOT, case)
    tpl = open(os.path.join(d, "template.tpl"), "rb").read()
    values = b""
    if os.path.exists(os.path.join(d, "values.yaml")):
        values = open(os.path.join(d, "values.yaml"), "rb").read()
    for f in ("expected.txt", "expected-error.txt"):
        if os.path.exists(os.path.join(d, f)):
            os.remove(os.path.join(d, f))
    with tempfile.TemporaryDirectory() as tmp:
        chart = os.path.join(tmp, "c")
        os.makedirs(os.path.join(chart, "templates"))
        open(os.path.join(chart, "Chart.yaml"), "w").write(CHART_YAML)
        open(os.path.join(chart, "values.yaml"), "wb").write(values)
        open(os.path.join(chart, "templates", "_t.tpl"), "wb").write(tpl)
        open(os.path.join(chart, "templates", "t.yaml"), "w").write(WRAPPER)
        rc, out, err = run(helm, chart)
        if rc == 0:
            m = re.search(r'^out: "([A-Za-z0-9+/=]*)"$', out, re.M)
            if not m:
                sys.exit(f"{case}: unexpected helm output {out!r}")
            open(os.path.join(d, "expected.txt"), "wb").write(base64.b64decode(m.group(1)))
            return "ok"
        os.remove(os.path.join(chart, "templates", "_t.tpl"))
        open(os.path.join(chart, "templates", "t.yaml"), "wb").write(tpl)
        rc, out, err = run(helm, chart)
        if rc == 0:
            sys.exit(f"{case}: fails only inside include: {err}")
        err = re.sub(r"\n*Use --debug flag to render out invalid YAML\n*$", "", err)
        err = err[len("Error: "):] if err.startswith("Error: ") else err
        open(os.path.join(d, "expected-error.txt"), "w").write(err.rstrip("\n") + "\n")
        return "error"


def main():
    args = sys.argv[1:]
    helm = helm_bin(args)
    cases = args or sorted(c for c in os.listdir(ROOT) if os.path.isdir(os.path.join(ROOT, c)))
    for c in cases:
        print(c, record(helm, c))


if __name__ == "__main__":
    main()
