//! HelmReleases rendered in the cluster render: where charts come from,
//! helm-controller's semantics, and every command seeing the objects.
//!
//! The chart part of the expected objects comes from the real Helm
//! (`helm template`, found on PATH or through FLATE_HELM) and the
//! kustomize post-renderer from the real kustomize (`kubectl kustomize`);
//! the tests that need them print SKIPPED when they are absent.

mod common;

use common::write;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value as J;

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The real Helm: FLATE_HELM, else `helm` on PATH.
fn helm() -> Option<PathBuf> {
    common::helm::helm_binary()
}

fn kubectl() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("kubectl"))
        .find(|p| p.is_file())
}

/// The chart every test uses: a Deployment, a Service, a ConfigMap of
/// values, a CRD in crds/, a hook, a test, and a ConfigMap that shows the
/// release, the capabilities and a value (`secretText`).
/// The gzipped tar archive of directory `dir`, its files under `top/`
/// (as `helm package` writes a chart).
fn tgz(dir: &Path, top: &str) -> Vec<u8> {
    let mut b = tar::Builder::new(flate2::write::GzEncoder::new(
        Vec::new(),
        flate2::Compression::default(),
    ));
    b.append_dir_all(top, dir).unwrap();
    b.into_inner().unwrap().finish().unwrap()
}

fn chart(root: &Path, dir: &str, version: &str, image_tag: &str) {
    write(
        root,
        &format!("{dir}/Chart.yaml"),
        &format!("apiVersion: v2\nname: demo\nversion: {version}\nappVersion: \"{image_tag}\"\n"),
    );
    write(
        root,
        &format!("{dir}/values.yaml"),
        "replicas: 1\nimage:\n  repository: ghcr.io/example/demo\n  tag: \"\"\nsecretText: none\nextra: {}\n",
    );
    write(
        root,
        &format!("{dir}/crds/widget.yaml"),
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.demo.example.com\nspec:\n  group: demo.example.com\n  names:\n    kind: Widget\n    plural: widgets\n  scope: Namespaced\n  versions:\n    - name: v1\n      served: true\n      storage: true\n      schema:\n        openAPIV3Schema:\n          type: object\n          x-kubernetes-preserve-unknown-fields: true\n",
    );
    write(
        root,
        &format!("{dir}/templates/_helpers.tpl"),
        "{{- define \"demo.labels\" -}}\nhelm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}\napp.kubernetes.io/name: demo\napp.kubernetes.io/instance: {{ .Release.Name }}\napp.kubernetes.io/version: {{ .Chart.AppVersion | quote }}\n{{- end }}\n",
    );
    write(
        root,
        &format!("{dir}/templates/deployment.yaml"),
        r#"apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
  labels:
    {{- include "demo.labels" . | nindent 4 }}
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels:
      app.kubernetes.io/instance: {{ .Release.Name }}
  template:
    metadata:
      annotations:
        checksum/config: {{ include (print $.Template.BasePath "/configmap.yaml") . | sha256sum }}
      labels:
        app.kubernetes.io/instance: {{ .Release.Name }}
    spec:
      containers:
        - name: demo
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
"#,
    );
    write(
        root,
        &format!("{dir}/templates/configmap.yaml"),
        r#"apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-info
  labels:
    {{- include "demo.labels" . | nindent 4 }}
data:
  release: {{ .Release.Name | quote }}
  namespace: {{ .Release.Namespace | quote }}
  kubeVersion: {{ .Capabilities.KubeVersion.Version | quote }}
  hasWidget: {{ .Capabilities.APIVersions.Has "demo.example.com/v1/Widget" | quote }}
  hasGadget: {{ .Capabilities.APIVersions.Has "gadgets.example.com/v1alpha1" | quote }}
  isInstall: {{ .Release.IsInstall | quote }}
  secretText: {{ .Values.secretText | quote }}
  {{- with .Values.extra }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
"#,
    );
    write(
        root,
        &format!("{dir}/templates/hook.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-hook\n  annotations:\n    helm.sh/hook: pre-install\ndata:\n  at: install\n",
    );
    write(
        root,
        &format!("{dir}/templates/tests/test.yaml"),
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ .Release.Name }}-test\n  annotations:\n    helm.sh/hook: test\nspec:\n  containers:\n    - name: t\n      image: busybox:1.36\n",
    );
}

/// A repository with one environment (`test`) whose entry holds `files`.
fn repo(files: &[(&str, &str)]) -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    for (rel, text) in files {
        write(t.path(), rel, text);
    }
    t
}

fn build_json(repo: &Path, extra: &[&str]) -> (Output, J) {
    let mut args = vec!["build", "test", "-o", "json"];
    args.extend_from_slice(extra);
    let o = common::flate_in(&args, repo);
    let js = serde_json::from_slice(&o.stdout).unwrap_or(J::Null);
    (o, js)
}

fn hr<'a>(js: &'a J, name: &str) -> &'a J {
    js["helmreleases"]
        .as_array()
        .expect("helmreleases")
        .iter()
        .find(|h| h["name"] == name)
        .unwrap_or_else(|| panic!("no HelmRelease {name} in {js:#}"))
}

fn object<'a>(objs: &'a J, kind: &str, name: &str) -> Option<&'a J> {
    objs.as_array()?
        .iter()
        .find(|o| o["kind"] == kind && o["metadata"]["name"] == name)
}

/// Parses a YAML stream into JSON documents (null documents dropped).
fn docs(text: &str) -> Vec<J> {
    flate::yaml::parse_stream(text)
        .unwrap()
        .into_iter()
        .map(|d| d.node.to_json())
        .filter(|j| !j.is_null())
        .collect()
}

/// `helm template` of `chart` (the oracle).
fn helm_template(
    helm: &Path,
    chart: &Path,
    release: &str,
    ns: &str,
    values: &str,
    extra: &[&str],
) -> Vec<J> {
    let dir = tempfile::tempdir().unwrap();
    let vf = dir.path().join("values.yaml");
    std::fs::write(&vf, values).unwrap();
    let o = Command::new(helm)
        .args(["template", release])
        .arg(chart)
        .args(["--namespace", ns, "-f"])
        .arg(&vf)
        .args(extra)
        .env("HELM_CACHE_HOME", dir.path().join("cache"))
        .env("HELM_CONFIG_HOME", dir.path().join("config"))
        .env("HELM_DATA_HOME", dir.path().join("data"))
        .output()
        .unwrap();
    assert!(o.status.success(), "helm template: {}", stderr(&o));
    docs(&stdout(&o))
}

/// `kubectl kustomize` of `objects` with a kustomization's `extra` fields
/// (helm-controller's kustomize post-renderer runs kustomize this way).
fn kustomize(kubectl: &Path, objects: &[J], extra: &str) -> Vec<J> {
    let dir = tempfile::tempdir().unwrap();
    let stream: Vec<String> = objects
        .iter()
        .map(|o| serde_json::to_string(o).unwrap())
        .collect();
    std::fs::write(dir.path().join("helm-output.yaml"), stream.join("\n---\n")).unwrap();
    std::fs::write(
        dir.path().join("kustomization.yaml"),
        format!("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [helm-output.yaml]\n{extra}"),
    )
    .unwrap();
    let o = Command::new(kubectl)
        .arg("kustomize")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "kubectl kustomize: {}", stderr(&o));
    docs(&stdout(&o))
}

fn set_labels(o: &mut J, field: &str, entries: &[(&str, &str)]) {
    let md = o["metadata"].as_object_mut().unwrap();
    let m = md
        .entry(field)
        .or_insert_with(|| J::Object(Default::default()));
    if m.is_null() {
        *m = J::Object(Default::default());
    }
    for (k, v) in entries {
        m[*k] = J::from(*v);
    }
}

/// Objects compared as a set, keyed by kind and name.
fn assert_same_objects(mut got: Vec<J>, mut want: Vec<J>) {
    let key = |o: &J| format!("{}/{}", o["kind"], o["metadata"]["name"]);
    got.sort_by_key(key);
    want.sort_by_key(key);
    let names = |v: &[J]| v.iter().map(key).collect::<Vec<_>>();
    assert_eq!(names(&got), names(&want));
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g, w, "{}", key(w));
    }
}

const HR_FULL: &str = r#"apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: demo
  namespace: team
spec:
  interval: 1h
  targetNamespace: apps
  chart:
    spec:
      chart: ./charts/demo
      sourceRef:
        kind: GitRepository
        name: flux-system
        namespace: flux-system
  commonMetadata:
    labels:
      team: blue
      helm.toolkit.fluxcd.io/name: overridden-by-origin
    annotations:
      owner: blue-team
  postRenderers:
    - kustomize:
        patches:
          - target:
              kind: Deployment
            patch: |-
              - op: add
                path: /spec/revisionHistoryLimit
                value: 3
          - patch: |-
              apiVersion: v1
              kind: ConfigMap
              metadata:
                name: apps-demo-info
                labels:
                  patched: "yes"
        images:
          - name: ghcr.io/example/demo
            newName: registry.example.com/demo
            newTag: "2.0.0"
  values:
    replicas: 3
    extra:
      fromValues: "yes"
"#;

/// The whole chain against the oracles: `helm template` of the same chart
/// and values with the release name and namespace helm-controller uses,
/// the kustomize post-renderer through `kubectl kustomize`, then
/// commonMetadata, the origin labels (which win), the release namespace
/// on namespaced objects, the CRD from crds/ (policy Create) with the
/// origin labels only, and no test hook.
#[test]
fn a_release_renders_as_helm_template_plus_flux_post_rendering() {
    let (Some(helm), Some(kubectl)) = (helm(), kubectl()) else {
        println!("SKIPPED: helm or kubectl not found (set FLATE_HELM)");
        return;
    };
    let t = repo(&[("kubernetes/clusters/test/hr.yaml", HR_FULL)]);
    chart(t.path(), "charts/demo", "1.0.0", "1.0.0");
    let (o, js) = build_json(t.path(), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let h = hr(&js, "demo");
    assert_eq!(h["renderStatus"], "rendered", "{h:#}");
    // GetReleaseName: targetNamespace-name; GetReleaseNamespace: targetNamespace.
    assert_eq!(h["releaseName"], "apps-demo");
    assert_eq!(h["releaseNamespace"], "apps");
    let values = "replicas: 3\nextra:\n  fromValues: \"yes\"\n";
    let kube = format!("v{}.0", flate::check::schema::KUBERNETES_VERSION);
    let all = helm_template(
        &helm,
        &t.path().join("charts/demo"),
        "apps-demo",
        "apps",
        values,
        // The chart's own CRD is among the environment's API versions.
        &[
            "--kube-version",
            &kube,
            "--include-crds",
            "--skip-tests",
            "--api-versions",
            "demo.example.com/v1/Widget",
        ],
    );
    let (crds, rest): (Vec<J>, Vec<J>) = all
        .into_iter()
        .partition(|o| o["kind"] == "CustomResourceDefinition");
    let mut want = kustomize(
        &kubectl,
        &rest,
        "patches:\n- target: {kind: Deployment}\n  patch: |-\n    - op: add\n      path: /spec/revisionHistoryLimit\n      value: 3\n- patch: |-\n    apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: apps-demo-info\n      labels:\n        patched: \"yes\"\nimages:\n- name: ghcr.io/example/demo\n  newName: registry.example.com/demo\n  newTag: \"2.0.0\"\n",
    );
    let origin = [
        ("helm.toolkit.fluxcd.io/name", "demo"),
        ("helm.toolkit.fluxcd.io/namespace", "team"),
    ];
    for o in want.iter_mut() {
        set_labels(
            o,
            "labels",
            &[
                ("team", "blue"),
                ("helm.toolkit.fluxcd.io/name", "overridden-by-origin"),
            ],
        );
        set_labels(o, "annotations", &[("owner", "blue-team")]);
        set_labels(o, "labels", &origin);
        o["metadata"]["namespace"] = J::from("apps");
    }
    for mut c in crds {
        set_labels(&mut c, "labels", &origin);
        want.push(c);
    }
    assert_same_objects(h["objects"].as_array().unwrap().clone(), want);
    // The values the template saw.
    let info = object(&h["objects"], "ConfigMap", "apps-demo-info").unwrap();
    assert_eq!(info["data"]["isInstall"], "true");
    assert_eq!(info["data"]["kubeVersion"], J::from(kube.as_str()));
}

/// `install.crds: Skip` leaves the chart's crds/ out; hooks are kept and
/// post-rendered (postRenderStrategy combined, the default) unless
/// `postRenderStrategy: nohooks`.
#[test]
fn crd_policy_skip_and_hooks() {
    let release = |policy: &str, strategy: &str| {
        format!(
            "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: demo\n  namespace: apps\nspec:\n  interval: 1h\n{strategy}  install:\n    crds: {policy}\n  chart:\n    spec:\n      chart: ./charts/demo\n      sourceRef:\n        kind: GitRepository\n        name: flux-system\n        namespace: flux-system\n  commonMetadata:\n    labels:\n      common: x\n"
        )
    };
    for (policy, strategy, crd, hook_common) in [
        ("Create", "", true, true),
        ("CreateReplace", "", true, true),
        ("Skip", "", false, true),
        ("Create", "  postRenderStrategy: nohooks\n", true, false),
    ] {
        let t = repo(&[(
            "kubernetes/clusters/test/hr.yaml",
            &release(policy, strategy),
        )]);
        chart(t.path(), "charts/demo", "1.0.0", "1.0.0");
        let (o, js) = build_json(t.path(), &[]);
        assert!(o.status.success(), "{}", stderr(&o));
        let objs = &hr(&js, "demo")["objects"];
        assert_eq!(
            object(objs, "CustomResourceDefinition", "widgets.demo.example.com").is_some(),
            crd,
            "{policy}"
        );
        let hook = object(objs, "ConfigMap", "demo-hook").expect("the hook");
        assert_eq!(
            hook["metadata"]["labels"]["common"].is_string(),
            hook_common
        );
        assert_eq!(
            hook["metadata"]["labels"]["helm.toolkit.fluxcd.io/name"],
            "demo"
        );
        assert!(
            object(objs, "Pod", "demo-test").is_none(),
            "tests are not installed"
        );
    }
    let t = repo(&[(
        "kubernetes/clusters/test/hr.yaml",
        &release("Sometimes", ""),
    )]);
    chart(t.path(), "charts/demo", "1.0.0", "1.0.0");
    let (o, js) = build_json(t.path(), &[]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(hr(&js, "demo")["renderStatus"], "failed");
    assert!(
        hr(&js, "demo")["message"]
            .as_str()
            .unwrap()
            .contains("spec.install.crds: invalid CRD upgrade policy 'Sometimes'")
    );
}

/// A release name past 53 characters is shortened as helm-controller's
/// ShortenName does (the vector of its name_test.go), and `.Release.Name`
/// is that name.
#[test]
fn long_release_names_are_shortened() {
    let release = "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: name-with-very-long-name-which-is-longer-than-53-characters\n  namespace: apps\nspec:\n  interval: 1h\n  targetNamespace: release\n  chart:\n    spec:\n      chart: ./charts/demo\n      sourceRef:\n        kind: GitRepository\n        name: flux-system\n        namespace: flux-system\n";
    let t = repo(&[("kubernetes/clusters/test/hr.yaml", release)]);
    chart(t.path(), "charts/demo", "1.0.0", "1.0.0");
    let (o, js) = build_json(t.path(), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let h = &js["helmreleases"][0];
    let want = "release-name-with-very-long-name-which-i-788ca0d0d7b0";
    assert_eq!(h["releaseName"], want);
    let info = object(&h["objects"], "ConfigMap", &format!("{want}-info")).unwrap();
    assert_eq!(info["data"]["release"], want);
    // spec.releaseName wins, shortened the same way.
    let hr2 = release.replace(
        "  targetNamespace: release\n",
        "  targetNamespace: release\n  releaseName: short\n",
    );
    let t = repo(&[("kubernetes/clusters/test/hr.yaml", &hr2)]);
    chart(t.path(), "charts/demo", "1.0.0", "1.0.0");
    let (_, js) = build_json(t.path(), &[]);
    assert_eq!(js["helmreleases"][0]["releaseName"], "short");
}

const SOURCES: &str = r#"apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata:
  name: example
  namespace: flux-system
spec:
  interval: 1h
  url: https://charts.example.com
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata:
  name: example-oci
  namespace: flux-system
spec:
  interval: 1h
  type: oci
  url: oci://ghcr.io/example/charts
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata:
  name: demo
  namespace: flux-system
spec:
  interval: 1h
  url: oci://ghcr.io/example/charts/demo
  ref:
    semver: ">=1.0.0 <2.0.0"
"#;

fn hr_spec(name: &str, chart: &str) -> String {
    format!(
        "---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: {name}\n  namespace: flux-system\nspec:\n  interval: 1h\n{chart}"
    )
}

/// Charts from the cache: `.flate/charts` and `--charts` directories, as
/// unpacked directories or `helm pull`'s `NAME-VERSION.tgz`; version
/// ranges pick the highest cached match; a missing chart is skipped with
/// the `helm pull` command that fetches it, or fails with
/// `--require-charts`.
#[test]
fn charts_come_from_the_cache_with_versions_resolved() {
    let mut text = SOURCES.to_string();
    text += &hr_spec(
        "ranged",
        "  chart:\n    spec:\n      chart: demo\n      version: \"~1.1\"\n      sourceRef:\n        kind: HelmRepository\n        name: example\n",
    );
    text += &hr_spec(
        "exact-oci",
        "  chart:\n    spec:\n      chart: demo\n      version: 1.0.0\n      sourceRef:\n        kind: HelmRepository\n        name: example-oci\n",
    );
    text += &hr_spec(
        "by-ref",
        "  chartRef:\n    kind: OCIRepository\n    name: demo\n",
    );
    text += &hr_spec(
        "missing",
        "  chart:\n    spec:\n      chart: other\n      version: 3.1.4\n      sourceRef:\n        kind: HelmRepository\n        name: example\n",
    );
    text += &hr_spec(
        "missing-oci",
        "  chart:\n    spec:\n      chart: other\n      version: \">=3\"\n      sourceRef:\n        kind: HelmRepository\n        name: example-oci\n",
    );
    let t = repo(&[("kubernetes/clusters/test/all.yaml", &text)]);
    chart(t.path(), ".flate/charts/demo-1.0.0", "1.0.0", "1.0.0");
    chart(t.path(), ".flate/charts/demo-1.1.2", "1.1.2", "1.1.2");
    chart(
        t.path(),
        ".flate/charts/demo-1.2.0-rc.1",
        "1.2.0-rc.1",
        "1.2.0",
    );
    let extra = tempfile::tempdir().unwrap();
    chart(extra.path(), "demo-1.1.5", "1.1.5", "1.1.5");
    if let Some(helm) = helm() {
        // `helm package` writes NAME-VERSION.tgz, as `helm pull` does.
        chart(extra.path(), "src/demo", "1.9.0", "1.9.0");
        let o = Command::new(&helm)
            .arg("package")
            .arg(extra.path().join("src/demo"))
            .arg("-d")
            .arg(extra.path())
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        std::fs::remove_dir_all(extra.path().join("src")).unwrap();
    }
    let charts = extra.path().to_str().unwrap();
    let (o, js) = build_json(t.path(), &["--charts", charts]);
    assert!(o.status.success(), "{}", stderr(&o));
    let version = |n: &str| {
        hr(&js, n)["chart"]["resolvedVersion"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        version("ranged"),
        "1.1.5",
        "the highest match of ~1.1 in both directories"
    );
    assert_eq!(version("exact-oci"), "1.0.0");
    let by_ref = if helm().is_some() { "1.9.0" } else { "1.1.5" };
    assert_eq!(
        version("by-ref"),
        by_ref,
        "semver of the OCIRepository; no prerelease"
    );
    assert_eq!(hr(&js, "by-ref")["renderStatus"], "rendered");
    let missing = hr(&js, "missing");
    assert_eq!(missing["renderStatus"], "skipped");
    assert_eq!(
        missing["chart"]["pull"],
        "helm pull other --repo https://charts.example.com --version 3.1.4 -d .flate/charts"
    );
    assert!(
        missing["message"]
            .as_str()
            .unwrap()
            .contains("helm pull other --repo")
    );
    assert_eq!(
        hr(&js, "missing-oci")["chart"]["pull"],
        "helm pull oci://ghcr.io/example/charts/other --version '>=3' -d .flate/charts"
    );
    // --require-charts: the missing ones fail the build.
    let (o, js) = build_json(t.path(), &["--charts", charts, "--require-charts"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(hr(&js, "missing")["renderStatus"], "failed");
    assert!(stderr(&o).contains("--require-charts"));
    // get charts: every chart, cached or not.
    let o = common::flate_in(
        &["get", "charts", "test", "-o", "json", "--charts", charts],
        t.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let js: J = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(js["kind"], "ChartList");
    let items = js["items"].as_array().unwrap();
    assert_eq!(items.len(), 5);
    let item = |n: &str| {
        items
            .iter()
            .find(|i| i["helmrelease"] == format!("flux-system/{n}"))
            .unwrap()
    };
    assert_eq!(item("ranged")["cached"], true);
    assert_eq!(item("missing")["cached"], false);
    assert_eq!(
        item("by-ref")["source"],
        "oci://ghcr.io/example/charts/demo"
    );
    let o = common::flate_in(&["get", "charts", "test", "--charts", charts], t.path());
    let table = stdout(&o);
    assert!(table.starts_with("RELEASE"), "{table}");
    assert!(table.contains("helm pull other"), "{table}");
}

/// `.Capabilities.KubeVersion` is the environment's Kubernetes version,
/// `.Capabilities.APIVersions` has every CRD the environment renders (a
/// Kustomization's and a chart's).
#[test]
fn capabilities_follow_the_environment() {
    let gadget_crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: gadgets.gadgets.example.com\nspec:\n  group: gadgets.example.com\n  names:\n    kind: Gadget\n    plural: gadgets\n  scope: Cluster\n  versions:\n    - name: v1alpha1\n      served: true\n      storage: true\n      schema:\n        openAPIV3Schema:\n          type: object\n";
    let release = hr_spec(
        "demo",
        "  chart:\n    spec:\n      chart: ./charts/demo\n      sourceRef:\n        kind: GitRepository\n        name: flux-system\n",
    );
    let t = repo(&[
        ("kubernetes/clusters/test/hr.yaml", &release),
        ("kubernetes/clusters/test/crd.yaml", gadget_crd),
        (
            ".flate.yaml",
            "environments:\n  test:\n    path: kubernetes/clusters/test\n    kubernetesVersion: \"1.34\"\n",
        ),
    ]);
    chart(t.path(), "charts/demo", "1.0.0", "1.0.0");
    let (o, js) = build_json(t.path(), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let info = object(&hr(&js, "demo")["objects"], "ConfigMap", "demo-info")
        .unwrap()
        .clone();
    assert_eq!(info["data"]["hasGadget"], "true", "a Kustomization's CRD");
    assert_eq!(info["data"]["hasWidget"], "true", "the chart's own CRD");
    if let Some(helm) = helm() {
        // The same as helm template with that version and those API versions.
        let want = helm_template(
            &helm,
            &t.path().join("charts/demo"),
            "demo",
            "flux-system",
            "{}",
            &[
                "--kube-version",
                "v1.34.0",
                "--api-versions",
                "gadgets.example.com/v1alpha1",
                "--api-versions",
                "demo.example.com/v1/Widget",
            ],
        );
        let mut w = want
            .into_iter()
            .find(|o| o["metadata"]["name"] == "demo-info")
            .unwrap();
        set_labels(
            &mut w,
            "labels",
            &[
                ("helm.toolkit.fluxcd.io/name", "demo"),
                ("helm.toolkit.fluxcd.io/namespace", "flux-system"),
            ],
        );
        w["metadata"]["namespace"] = J::from("flux-system");
        assert_eq!(info, w);
    } else {
        println!("SKIPPED (oracle part): helm not found");
    }
    // flate check --kubernetes-version renders with that version.
    let o = common::flate_in(
        &["check", "--kubernetes-version", "1.33", "-o", "json"],
        t.path(),
    );
    assert!(o.status.code().is_some(), "{}", stderr(&o));
}

/// Everything downstream sees the objects: `build` YAML groups, `--out-dir`,
/// `build hr`, `check` (schemas, image-unpinned, duplicate-object across a
/// Kustomization and a HelmRelease), `pins`, `test hr` on a template error.
#[test]
fn every_command_sees_the_objects() {
    let release = hr_spec(
        "demo",
        "  chart:\n    spec:\n      chart: ./charts/demo\n      sourceRef:\n        kind: GitRepository\n        name: flux-system\n  values:\n    image:\n      repository: nginx\n      tag: latest\n",
    );
    // The same ConfigMap from a Kustomization: duplicate-object.
    let dup = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo-info\n  namespace: flux-system\ndata: {}\n";
    let t = repo(&[
        ("kubernetes/clusters/test/hr.yaml", &release),
        ("kubernetes/clusters/test/dup.yaml", dup),
    ]);
    chart(t.path(), "charts/demo", "1.0.0", "1.0.0");
    let o = common::flate_in(&["build", "test"], t.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let y = stdout(&o);
    assert!(
        y.contains("# Source: HelmRelease flux-system/demo (chart ./charts/demo 1.0.0)\n"),
        "{y}"
    );
    assert!(y.contains("image: nginx:latest"), "{y}");
    // --out-dir
    let out = t.path().join("out");
    let o = common::flate_in(
        &["build", "test", "--out-dir", out.to_str().unwrap()],
        t.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let f = std::fs::read_to_string(out.join("helmrelease__flux-system__demo.yaml")).unwrap();
    assert!(f.contains("kind: Deployment"), "{f}");
    // build hr NAME: the HelmRelease, then its objects.
    let o = common::flate_in(&["build", "hr", "test", "demo"], t.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let y = stdout(&o);
    assert!(
        y.find("kind: HelmRelease").unwrap() < y.find("kind: Deployment").unwrap(),
        "{y}"
    );
    // check
    let o = common::flate_in(&["check", "-o", "json"], t.path());
    let js: J = serde_json::from_slice(&o.stdout).unwrap_or(J::Null);
    let rules: Vec<&str> = js["findings"]
        .as_array()
        .map(|f| f.iter().filter_map(|x| x["rule"].as_str()).collect())
        .unwrap_or_default();
    assert!(rules.contains(&"image-unpinned"), "{}", stdout(&o));
    assert!(rules.contains(&"duplicate-object"), "{}", stdout(&o));
    // pins
    let o = common::flate_in(&["pins", "-o", "json"], t.path());
    assert!(
        stdout(&o).contains("Deployment flux-system/demo/demo"),
        "{}",
        stdout(&o)
    );
    // test hr: PASS, then FAIL on a template error.
    let o = common::flate_in(&["test", "hr", "test"], t.path());
    assert!(o.status.success(), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("PASS HelmRelease flux-system/demo"),
        "{}",
        stdout(&o)
    );
    write(
        t.path(),
        "charts/demo/templates/broken.yaml",
        "{{ required \"broken.value is required\" .Values.broken.value }}\n",
    );
    let o = common::flate_in(&["test", "hr", "test"], t.path());
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let out = stdout(&o);
    assert!(out.contains("FAIL HelmRelease flux-system/demo"), "{out}");
    if let Some(helm) = helm() {
        // The message is Helm's.
        let h = Command::new(helm)
            .args(["template", "demo"])
            .arg(t.path().join("charts/demo"))
            .output()
            .unwrap();
        let msg = stderr(&h);
        let first = msg.lines().next().unwrap().trim_start_matches("Error: ");
        let first = first.split(": ").last().unwrap();
        assert!(out.contains(first), "{out}\nhelm: {msg}");
    }
}

/// A value from a Secret (`valuesFrom`) that a template copies into a
/// ConfigMap is redacted in the rendered object unless --show-secrets.
#[test]
fn secret_values_stay_redacted_in_rendered_objects() {
    let secret = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: demo-values\n  namespace: flux-system\nstringData:\n  values.yaml: |\n    secretText: hunter2-very-secret\n";
    let release = hr_spec(
        "demo",
        "  chart:\n    spec:\n      chart: ./charts/demo\n      sourceRef:\n        kind: GitRepository\n        name: flux-system\n  valuesFrom:\n    - kind: Secret\n      name: demo-values\n",
    );
    let t = repo(&[
        ("kubernetes/clusters/test/hr.yaml", &release),
        ("kubernetes/clusters/test/secret.yaml", secret),
    ]);
    chart(t.path(), "charts/demo", "1.0.0", "1.0.0");
    for args in [
        vec!["build", "test"],
        vec!["build", "test", "-o", "json"],
        vec!["build", "hr", "test"],
    ] {
        let o = common::flate_in(&args, t.path());
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(!stdout(&o).contains("hunter2"), "{args:?}: {}", stdout(&o));
        assert!(stdout(&o).contains("**redacted**"), "{args:?}");
    }
    let o = common::flate_in(&["build", "test", "--show-secrets"], t.path());
    assert!(
        stdout(&o).contains("secretText: hunter2-very-secret"),
        "{}",
        stdout(&o)
    );
}

/// `valuesFrom` a Secret that emberstack's Reflector copies into the
/// release's namespace from another one: rendered with the source's data.
#[test]
fn values_from_a_reflected_secret_render() {
    let secret = |auto: &str| {
        format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: demo-values\n  namespace: shared\n  annotations:\n    reflector.v1.k8s.emberstack.com/reflection-allowed: \"true\"\n    reflector.v1.k8s.emberstack.com/reflection-auto-enabled: \"{auto}\"\nstringData:\n  values.yaml: |\n    secretText: reflected-value\n"
        )
    };
    let release = hr_spec(
        "demo",
        "  chart:\n    spec:\n      chart: ./charts/demo\n      sourceRef:\n        kind: GitRepository\n        name: flux-system\n  valuesFrom:\n    - kind: Secret\n      name: demo-values\n",
    );
    let t = repo(&[
        ("kubernetes/clusters/test/hr.yaml", &release),
        ("kubernetes/clusters/test/secret.yaml", &secret("true")),
    ]);
    chart(t.path(), "charts/demo", "1.0.0", "1.0.0");
    let (o, js) = build_json(t.path(), &["--show-secrets"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let h = hr(&js, "demo");
    assert_eq!(h["renderStatus"], "rendered", "{h:#}");
    let info = object(&h["objects"], "ConfigMap", "demo-info").unwrap();
    assert_eq!(info["data"]["secretText"], "reflected-value", "{info:#}");
    // Not reflected: not there, and an error, as helm-controller's.
    std::fs::write(
        t.path().join("kubernetes/clusters/test/secret.yaml"),
        secret("false"),
    )
    .unwrap();
    let (o, js) = build_json(t.path(), &["--show-secrets"]);
    let h = hr(&js, "demo");
    assert_ne!(h["renderStatus"], "rendered", "{h:#}");
    assert!(
        h.to_string().contains(
            "valuesFrom Secret/flux-system/demo-values is not among the rendered objects"
        ),
        "{h:#}\n{}",
        stderr(&o)
    );
}

/// A chart bump shows the real Deployment diff under the HelmRelease, and
/// the chart-bump noise (helm.sh/chart, app.kubernetes.io/version,
/// checksum/*) is ignored by default.
#[test]
fn a_chart_bump_diffs_the_rendered_objects() {
    let release = hr_spec(
        "demo",
        "  chart:\n    spec:\n      chart: ./charts/demo\n      sourceRef:\n        kind: GitRepository\n        name: flux-system\n",
    );
    let t = repo(&[("kubernetes/clusters/test/hr.yaml", &release)]);
    chart(t.path(), "charts/demo", "1.0.0", "1.0.0");
    common::git(t.path(), &["init", "-q"]);
    common::git(t.path(), &["add", "-A"]);
    common::git(t.path(), &["commit", "-qm", "base"]);
    chart(t.path(), "charts/demo", "1.1.0", "1.1.0");
    let o = common::flate_in(
        &[
            "diff",
            "test",
            "--base",
            "HEAD",
            "-o",
            "json",
            "--exit-code",
        ],
        t.path(),
    );
    assert_eq!(o.status.code(), Some(1), "changes: {}", stderr(&o));
    let js: J = serde_json::from_slice(&o.stdout).unwrap();
    let objects = js["environments"][0]["pairs"].as_array().unwrap();
    let deploy = objects
        .iter()
        .find(|o| o["kind"] == "Deployment")
        .unwrap_or_else(|| panic!("{js:#}"));
    assert_eq!(deploy["status"], "changed");
    assert_eq!(deploy["producer"]["kind"], "HelmRelease");
    assert_eq!(deploy["producer"]["name"], "flux-system/demo");
    let changes: Vec<&str> = deploy["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["path"].as_str().unwrap())
        .collect();
    assert_eq!(changes, ["spec.template.spec.containers[name=demo].image"]);
    let hidden = deploy["hidden"].to_string();
    for noise in [
        "metadata.labels[helm.sh/chart]",
        "metadata.labels[app.kubernetes.io/version]",
        "spec.template.metadata.annotations.checksum/config",
    ] {
        assert!(hidden.contains(noise), "{noise} hidden: {hidden}");
    }
}

/// A copy of the chart at `chart` whose `values.yaml` is empty: what
/// source-controller's `OverwriteChartDefaultValues` starts from, so that
/// `helm template -f FILE...` of the copy merges the values files as
/// `MergeMaps` does (Helm's `-f` merge is the same function).
fn chart_without_defaults(chart: &Path) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let o = Command::new("cp")
        .arg("-r")
        .arg(chart)
        .arg(d.path().join("demo"))
        .output()
        .unwrap();
    assert!(o.status.success());
    std::fs::write(d.path().join("demo/values.yaml"), "").unwrap();
    d
}

/// `helm template` of `chart` with several `-f` files, then `values`.
fn helm_template_files(
    helm: &Path,
    chart: &Path,
    release: &str,
    ns: &str,
    files: &[PathBuf],
    values: &str,
) -> Vec<J> {
    let mut extra: Vec<String> = Vec::new();
    for f in files {
        extra.push("-f".into());
        extra.push(f.display().to_string());
    }
    // As the environment renders: its Kubernetes version, the chart's CRD.
    extra.extend([
        "--skip-tests".to_string(),
        "--kube-version".into(),
        format!("v{}.0", flate::check::schema::KUBERNETES_VERSION),
        "--api-versions".into(),
        "demo.example.com/v1/Widget".into(),
    ]);
    let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
    helm_template(helm, chart, release, ns, values, &extra)
}

fn without_crds_and_hooks(objs: &J) -> Vec<J> {
    objs.as_array()
        .unwrap()
        .iter()
        .filter(|o| o["kind"] != "CustomResourceDefinition")
        .cloned()
        .map(|mut o| {
            let md = o["metadata"].as_object_mut().unwrap();
            md.remove("namespace");
            if let Some(l) = md.get_mut("labels").and_then(J::as_object_mut) {
                l.remove("helm.toolkit.fluxcd.io/name");
                l.remove("helm.toolkit.fluxcd.io/namespace");
                if l.is_empty() {
                    md.remove("labels");
                }
            }
            o
        })
        .collect()
}

const VALUES_PROD: &str =
    "replicas: 5\nimage:\n  tag: \"9.9.9\"\nextra:\n  fromFile: prod\n  both: prod\n";
const VALUES_ENV: &str = "extra:\n  both: env\n  fromEnv: \"yes\"\n";

/// `spec.chart.spec.valuesFiles` of a chart in the repository: the files
/// (paths relative to the GitRepository's root) are merged in order and
/// replace the chart's own values.yaml; `spec.values` goes on top. The
/// oracle: `helm template` of the chart with an empty values.yaml and the
/// files as `-f` in the same order.
#[test]
fn values_files_of_a_source_chart_replace_the_chart_defaults() {
    let hr_text = "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: demo\n  namespace: apps\nspec:\n  interval: 1h\n  chart:\n    spec:\n      chart: ./charts/demo\n      valuesFiles:\n        - ./charts/demo/values-prod.yaml\n        - envs/../envs/prod.yaml\n      sourceRef:\n        kind: GitRepository\n        name: flux-system\n        namespace: flux-system\n  values:\n    extra:\n      fromValues: \"yes\"\n";
    let t = repo(&[
        ("kubernetes/clusters/test/hr.yaml", hr_text),
        ("charts/demo/values-prod.yaml", VALUES_PROD),
        ("envs/prod.yaml", VALUES_ENV),
    ]);
    chart(t.path(), "charts/demo", "1.0.0", "1.0.0");
    let (o, js) = build_json(t.path(), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let h = hr(&js, "demo");
    assert_eq!(h["renderStatus"], "rendered", "{h:#}");
    let info = object(&h["objects"], "ConfigMap", "demo-info").unwrap();
    // values.yaml's secretText is gone: the chart's defaults are replaced.
    assert!(info["data"]["secretText"].is_null(), "{info:#}");
    assert_eq!(info["data"]["both"], "env");
    assert_eq!(info["data"]["fromFile"], "prod");
    assert_eq!(info["data"]["fromValues"], "yes");
    let dep = object(&h["objects"], "Deployment", "demo").unwrap();
    assert_eq!(dep["spec"]["replicas"], 5);
    if let Some(helm) = helm() {
        let bare = chart_without_defaults(&t.path().join("charts/demo"));
        let want = helm_template_files(
            &helm,
            &bare.path().join("demo"),
            "demo",
            "apps",
            &[
                t.path().join("charts/demo/values-prod.yaml"),
                t.path().join("envs/prod.yaml"),
            ],
            "extra:\n  fromValues: \"yes\"\n",
        );
        let want: Vec<J> = want
            .into_iter()
            .filter(|o| o["kind"] != "CustomResourceDefinition")
            .collect();
        assert_same_objects(without_crds_and_hooks(&h["objects"]), want);
    } else {
        println!("SKIPPED: the helm comparison (helm not found; set FLATE_HELM)");
    }

    // Listing the chart's values.yaml (relative to the source root) keeps
    // its defaults under the other files.
    let listed = hr_text.replace(
        "        - ./charts/demo/values-prod.yaml\n",
        "        - charts/demo/values.yaml\n        - ./charts/demo/values-prod.yaml\n",
    );
    write(t.path(), "kubernetes/clusters/test/hr.yaml", &listed);
    let (o, js) = build_json(t.path(), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let info = object(&hr(&js, "demo")["objects"], "ConfigMap", "demo-info").unwrap();
    assert_eq!(info["data"]["secretText"], "none");
    assert_eq!(info["data"]["both"], "env");

    // The deprecated single valuesFile is not read by helm-controller v2:
    // a warning, and the chart's defaults.
    let single = hr_text.replace(
        "      valuesFiles:\n        - ./charts/demo/values-prod.yaml\n        - envs/../envs/prod.yaml\n",
        "      valuesFile: ./charts/demo/values-prod.yaml\n",
    );
    write(t.path(), "kubernetes/clusters/test/hr.yaml", &single);
    let (o, js) = build_json(t.path(), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let h = hr(&js, "demo");
    let dep = object(&h["objects"], "Deployment", "demo").unwrap();
    assert_eq!(dep["spec"]["replicas"], 1);
    assert!(
        h["warnings"]
            .to_string()
            .contains("valuesFile (deprecated) is ignored"),
        "{h:#}"
    );

    // Only `values.yaml` is no values file at all (GetValuesFiles): the
    // chart's defaults, although the source root has no values.yaml.
    let only = hr_text.replace(
        "        - ./charts/demo/values-prod.yaml\n        - envs/../envs/prod.yaml\n",
        "        - ./values.yaml\n",
    );
    write(t.path(), "kubernetes/clusters/test/hr.yaml", &only);
    let (o, js) = build_json(t.path(), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let info = object(&hr(&js, "demo")["objects"], "ConfigMap", "demo-info").unwrap();
    assert_eq!(info["data"]["secretText"], "none");
}

/// A values file that is not there fails the release with
/// source-controller's message and the HelmRelease's file, unless
/// `ignoreMissingValuesFiles` (then it is left out); a directory is never
/// a values file; a list is not a map of values.
#[test]
fn missing_values_files_fail_unless_ignored() {
    let hr_text = |files: &str, ignore: bool| {
        format!(
            "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: demo\n  namespace: apps\nspec:\n  interval: 1h\n  chart:\n    spec:\n      chart: ./charts/demo\n{}      valuesFiles:\n{files}      sourceRef:\n        kind: GitRepository\n        name: flux-system\n        namespace: flux-system\n",
            if ignore {
                "      ignoreMissingValuesFiles: true\n"
            } else {
                ""
            }
        )
    };
    let files = "        - ./charts/demo/missing.yaml\n        - ./charts/demo/values-prod.yaml\n";
    let t = repo(&[
        ("kubernetes/clusters/test/hr.yaml", &hr_text(files, false)),
        ("charts/demo/values-prod.yaml", VALUES_PROD),
        ("lists/list.yaml", "- a\n- b\n"),
    ]);
    chart(t.path(), "charts/demo", "1.0.0", "1.0.0");
    let (o, js) = build_json(t.path(), &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let h = hr(&js, "demo");
    assert_eq!(h["renderStatus"], "failed");
    assert_eq!(
        h["message"],
        "kubernetes/clusters/test/hr.yaml:1: spec.chart.spec.valuesFiles: values files merge error: no values file found at path '/charts/demo/missing.yaml' (reference './charts/demo/missing.yaml')"
    );
    write(
        t.path(),
        "kubernetes/clusters/test/hr.yaml",
        &hr_text(files, true),
    );
    let (o, js) = build_json(t.path(), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let h = hr(&js, "demo");
    let dep = object(&h["objects"], "Deployment", "demo").unwrap();
    assert_eq!(dep["spec"]["replicas"], 5);
    // A directory fails even with ignoreMissingValuesFiles.
    write(
        t.path(),
        "kubernetes/clusters/test/hr.yaml",
        &hr_text("        - charts/demo/templates\n", true),
    );
    let (_, js) = build_json(t.path(), &[]);
    assert!(
        hr(&js, "demo")["message"]
            .as_str()
            .unwrap()
            .ends_with("no values file found at path '/charts/demo/templates' (reference 'charts/demo/templates')"),
        "{js:#}"
    );
    write(
        t.path(),
        "kubernetes/clusters/test/hr.yaml",
        &hr_text("        - lists/list.yaml\n", false),
    );
    let (_, js) = build_json(t.path(), &[]);
    assert!(
        hr(&js, "demo")["message"]
            .as_str()
            .unwrap()
            .ends_with("unmarshaling values from 'lists/list.yaml' failed: error unmarshaling JSON: json: cannot unmarshal array into Go value of type map[string]interface {}"),
        "{js:#}"
    );
}

/// A chart from a Helm repository (the cache): `valuesFiles` name files
/// of the chart, `values.yaml` being its own defaults.
#[test]
fn values_files_of_a_cached_chart_are_files_of_the_chart() {
    let mut text = SOURCES.to_string();
    text += &hr_spec(
        "layered",
        "  chart:\n    spec:\n      chart: demo\n      version: 1.0.0\n      valuesFiles: [values.yaml, ./values-prod.yaml]\n      sourceRef:\n        kind: HelmRepository\n        name: example\n  values:\n    extra:\n      fromValues: \"yes\"\n",
    );
    text += &hr_spec(
        "replaced",
        "  chart:\n    spec:\n      chart: demo\n      version: 1.0.0\n      valuesFiles: [values-prod.yaml]\n      sourceRef:\n        kind: HelmRepository\n        name: example\n",
    );
    text += &hr_spec(
        "absent",
        "  chart:\n    spec:\n      chart: demo\n      version: 1.0.0\n      valuesFiles: [values-prod.yaml, values-qa.yaml]\n      sourceRef:\n        kind: HelmRepository\n        name: example\n",
    );
    let t = repo(&[("kubernetes/clusters/test/all.yaml", &text)]);
    chart(t.path(), ".flate/charts/demo-1.0.0", "1.0.0", "1.0.0");
    write(
        t.path(),
        ".flate/charts/demo-1.0.0/values-prod.yaml",
        VALUES_PROD,
    );
    let (o, js) = build_json(t.path(), &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let layered = hr(&js, "layered");
    assert_eq!(layered["renderStatus"], "rendered", "{layered:#}");
    let info = object(&layered["objects"], "ConfigMap", "layered-info").unwrap();
    assert_eq!(info["data"]["secretText"], "none");
    assert_eq!(info["data"]["fromFile"], "prod");
    let replaced = hr(&js, "replaced");
    let info = object(&replaced["objects"], "ConfigMap", "replaced-info").unwrap();
    assert!(info["data"]["secretText"].is_null(), "{info:#}");
    assert_eq!(
        hr(&js, "absent")["message"],
        "kubernetes/clusters/test/all.yaml:66: spec.chart.spec.valuesFiles: values files merge error: failed to merge chart values: no values file found at path 'values-qa.yaml'"
    );
    if let Some(helm) = helm() {
        let chart_dir = t.path().join(".flate/charts/demo-1.0.0");
        let want = helm_template_files(
            &helm,
            &chart_dir,
            "layered",
            "flux-system",
            &[chart_dir.join("values-prod.yaml")],
            "extra:\n  fromValues: \"yes\"\n",
        );
        let want: Vec<J> = want
            .into_iter()
            .filter(|o| o["kind"] != "CustomResourceDefinition")
            .collect();
        assert_same_objects(without_crds_and_hooks(&layered["objects"]), want);
    } else {
        println!("SKIPPED: the helm comparison (helm not found; set FLATE_HELM)");
    }
}

/// `spec.chartRef` to a HelmChart over the repository's own GitRepository
/// (with the HelmChart's valuesFiles); a HelmChart the environment does
/// not render skips the release with a message naming its file (fails
/// with --require-charts).
#[test]
fn chart_ref_to_a_helm_chart_of_the_repository() {
    let text = "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmChart\nmetadata:\n  name: demo\n  namespace: flux-system\nspec:\n  interval: 1h\n  chart: ./charts/demo\n  valuesFiles: [charts/demo/values-prod.yaml]\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: demo\n  namespace: apps\nspec:\n  interval: 1h\n  chartRef:\n    kind: HelmChart\n    name: demo\n    namespace: flux-system\n---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: elsewhere\n  namespace: apps\nspec:\n  interval: 1h\n  chartRef:\n    kind: HelmChart\n    name: not-here\n---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmChart\nmetadata:\n  name: orphan\n  namespace: apps\nspec:\n  interval: 1h\n  chart: ./charts/demo\n  sourceRef:\n    kind: GitRepository\n    name: other\n---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: orphaned\n  namespace: apps\nspec:\n  interval: 1h\n  chartRef:\n    kind: HelmChart\n    name: orphan\n";
    // The HelmChart's sourceRef has no namespace: the HelmChart's own,
    // here flux-system, whose flux-system GitRepository is the repository.
    let t = repo(&[
        ("kubernetes/clusters/test/all.yaml", text),
        ("charts/demo/values-prod.yaml", VALUES_PROD),
    ]);
    chart(t.path(), "charts/demo", "1.0.0", "1.0.0");
    let (o, js) = build_json(t.path(), &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let h = hr(&js, "demo");
    assert_eq!(h["renderStatus"], "rendered", "{h:#}");
    assert_eq!(
        h["chart"]["location"],
        "GitRepository/flux-system/flux-system ./charts/demo"
    );
    let dep = object(&h["objects"], "Deployment", "demo").unwrap();
    assert_eq!(dep["spec"]["replicas"], 5);
    let info = object(&h["objects"], "ConfigMap", "demo-info").unwrap();
    assert!(info["data"]["secretText"].is_null(), "{info:#}");
    let e = hr(&js, "elsewhere");
    assert_eq!(e["renderStatus"], "skipped");
    assert_eq!(
        e["message"],
        "kubernetes/clusters/test/all.yaml:26: spec.chartRef HelmChart apps/not-here is not among the objects this environment renders, so its chart is unknown offline (add the HelmChart to the repository, or use spec.chart)"
    );
    // The HelmChart's GitRepository (apps/other) is unknown: an error
    // naming the HelmChart's file.
    assert_eq!(hr(&js, "orphaned")["renderStatus"], "failed");
    assert_eq!(
        hr(&js, "orphaned")["message"],
        "kubernetes/clusters/test/all.yaml:37: chart source GitRepository/apps/other (spec.sourceRef of HelmChart apps/orphan) is not among the rendered objects"
    );
    let (o, js) = build_json(t.path(), &["--require-charts"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(hr(&js, "elsewhere")["renderStatus"], "failed");
}

/// `upgrade.crds` is checked like `install.crds`: an invalid policy
/// fails the release naming the HelmRelease's file.
#[test]
fn invalid_upgrade_crd_policy_fails() {
    let text = "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: demo\n  namespace: apps\nspec:\n  interval: 1h\n  upgrade:\n    crds: Always\n  chart:\n    spec:\n      chart: ./charts/demo\n      sourceRef:\n        kind: GitRepository\n        name: flux-system\n        namespace: flux-system\n";
    let t = repo(&[("kubernetes/clusters/test/hr.yaml", text)]);
    chart(t.path(), "charts/demo", "1.0.0", "1.0.0");
    let (o, js) = build_json(t.path(), &[]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        hr(&js, "demo")["message"],
        "kubernetes/clusters/test/hr.yaml:1: spec.upgrade.crds: invalid CRD upgrade policy 'Always', valid values are 'Skip', 'Create' or 'CreateReplace'"
    );
    let ok = text.replace("crds: Always", "crds: CreateReplace");
    write(t.path(), "kubernetes/clusters/test/hr.yaml", &ok);
    let (o, js) = build_json(t.path(), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        object(
            &hr(&js, "demo")["objects"],
            "CustomResourceDefinition",
            "widgets.demo.example.com"
        )
        .is_some(),
        "the install's policy (Create) renders the CRDs"
    );
}

/// A HelmChart over another GitRepository, mapped to a local directory
/// with `--source`: the chart and its valuesFiles (relative to that
/// artifact's root) come from the directory; unmapped, the release is
/// skipped with the `--source` hint.
#[test]
fn chart_ref_to_a_helm_chart_of_a_mapped_source() {
    let text = "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: charts-repo\n  namespace: apps\nspec:\n  interval: 1h\n  url: https://git.example.com/charts.git\n  ref:\n    branch: main\n---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmChart\nmetadata:\n  name: demo\n  namespace: apps\nspec:\n  interval: 1h\n  chart: charts/demo\n  valuesFiles: [envs/prod.yaml]\n  sourceRef:\n    kind: GitRepository\n    name: charts-repo\n---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: demo\n  namespace: apps\nspec:\n  interval: 1h\n  chartRef:\n    kind: HelmChart\n    name: demo\n";
    let t = repo(&[("kubernetes/clusters/test/all.yaml", text)]);
    let art = tempfile::tempdir().unwrap();
    chart(art.path(), "charts/demo", "2.0.0", "2.0.0");
    write(art.path(), "envs/prod.yaml", VALUES_PROD);
    let (o, js) = build_json(t.path(), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let h = hr(&js, "demo");
    assert_eq!(h["renderStatus"], "skipped");
    assert!(
        h["message"]
            .as_str()
            .unwrap()
            .contains("--source GitRepository/apps/charts-repo=DIR"),
        "{h:#}"
    );
    let src = format!("GitRepository/apps/charts-repo={}", art.path().display());
    let (o, js) = build_json(t.path(), &["--source", &src]);
    assert!(o.status.success(), "{}", stderr(&o));
    let h = hr(&js, "demo");
    assert_eq!(h["renderStatus"], "rendered", "{h:#}");
    assert_eq!(h["chart"]["resolvedVersion"], "2.0.0");
    let dep = object(&h["objects"], "Deployment", "demo").unwrap();
    assert_eq!(dep["spec"]["replicas"], 5);
    let info = object(&h["objects"], "ConfigMap", "demo-info").unwrap();
    assert!(info["data"]["secretText"].is_null(), "{info:#}");
}

/// A warning that several HelmReleases share (a chart's remote schema,
/// a Secret produced at runtime) is printed once, naming them; the JSON
/// keeps it on each.
#[test]
fn a_warning_shared_by_releases_is_printed_once() {
    let eso = "apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata:\n  name: demo-eso\n  namespace: flux-system\nspec:\n  target:\n    name: demo-secret\n  data: []\n";
    let mut text = SOURCES.to_string();
    for name in ["one", "two", "three"] {
        text += &hr_spec(
            name,
            "  chart:\n    spec:\n      chart: demo\n      version: 1.0.0\n      sourceRef:\n        kind: HelmRepository\n        name: example\n  valuesFrom:\n    - kind: Secret\n      name: demo-secret\n      valuesKey: text\n      targetPath: secretText\n",
        );
    }
    let repository = "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: example\nspec:\n  interval: 1h\n  url: https://charts.example.com\n";
    let t = repo(&[
        ("kubernetes/clusters/test/repository.yaml", repository),
        ("kubernetes/clusters/test/eso.yaml", eso),
        ("kubernetes/clusters/test/all.yaml", &text),
    ]);
    chart(t.path(), ".flate/charts/demo-1.0.0", "1.0.0", "1.0.0");
    let (o, js) = build_json(t.path(), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let w = "valuesFrom Secret/flux-system/demo-secret is produced at runtime by ExternalSecret flux-system/demo-eso: absent offline, rendered without its values";
    for name in ["one", "two", "three"] {
        assert_eq!(hr(&js, name)["warnings"], serde_json::json!([w]));
    }
    let err = stderr(&o);
    assert_eq!(err.matches(w).count(), 1, "{err}");
    assert!(
        err.contains(&format!(
            "warning: {w} (3 HelmReleases: flux-system/one, flux-system/three, flux-system/two)"
        )),
        "{err}"
    );
}

/// What a HelmRelease refers to is found as Flux finds it: objects
/// without a namespace are in `default`, like the HelmRelease; a
/// `valuesFrom` Secret that an ExternalSecret creates at runtime is left
/// out with a warning (as `substituteFrom` does); an object missing while
/// some Kustomization was not rendered offline (here: an external source)
/// makes the release skipped, not failed, since it may be among that
/// Kustomization's objects.
#[test]
fn releases_find_their_objects_as_flux_does_offline() {
    let plain = "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: example\nspec:\n  interval: 1h\n  url: https://charts.example.com\n---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: plain\nspec:\n  interval: 1h\n  chart:\n    spec:\n      chart: demo\n      version: 1.0.0\n      sourceRef:\n        kind: HelmRepository\n        name: example\n";
    let eso = "apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata:\n  name: demo-eso\n  namespace: flux-system\nspec:\n  target:\n    name: demo-secret\n  data: []\n";
    let mut text = SOURCES.to_string();
    text += &hr_spec(
        "from-eso",
        "  chart:\n    spec:\n      chart: demo\n      version: 1.0.0\n      sourceRef:\n        kind: HelmRepository\n        name: example\n  valuesFrom:\n    - kind: Secret\n      name: demo-secret\n      valuesKey: text\n      targetPath: secretText\n",
    );
    text += &hr_spec(
        "no-source",
        "  chart:\n    spec:\n      chart: demo\n      version: 1.0.0\n      sourceRef:\n        kind: HelmRepository\n        name: nowhere\n",
    );
    text += &hr_spec(
        "no-values",
        "  chart:\n    spec:\n      chart: demo\n      version: 1.0.0\n      sourceRef:\n        kind: HelmRepository\n        name: example\n  valuesFrom:\n    - kind: ConfigMap\n      name: nowhere\n",
    );
    let t = repo(&[
        ("kubernetes/clusters/test/plain.yaml", plain),
        ("kubernetes/clusters/test/eso.yaml", eso),
        ("kubernetes/clusters/test/all.yaml", &text),
    ]);
    chart(t.path(), ".flate/charts/demo-1.0.0", "1.0.0", "1.0.0");
    let (o, js) = build_json(t.path(), &[]);
    let p = hr(&js, "plain");
    assert_eq!(p["namespace"], "default");
    assert_eq!(p["renderStatus"], "rendered", "{p:#}");
    assert_eq!(p["chart"]["url"], "https://charts.example.com");
    let e = hr(&js, "from-eso");
    assert_eq!(e["renderStatus"], "rendered", "{e:#}");
    assert_eq!(
        e["warnings"],
        serde_json::json!([
            "valuesFrom Secret/flux-system/demo-secret is produced at runtime by ExternalSecret flux-system/demo-eso: absent offline, rendered without its values"
        ])
    );
    let info = object(&e["objects"], "ConfigMap", "from-eso-info").unwrap();
    assert_eq!(info["data"]["secretText"], "none");
    // Every Kustomization rendered: what is missing is missing.
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(hr(&js, "no-source")["renderStatus"], "failed");
    assert_eq!(
        hr(&js, "no-source")["message"],
        "chart source HelmRepository/flux-system/nowhere (spec.chart.spec.sourceRef) is not among the rendered objects"
    );
    assert_eq!(hr(&js, "no-values")["renderStatus"], "failed");
    assert_eq!(
        hr(&js, "no-values")["message"],
        "valuesFrom ConfigMap/flux-system/nowhere is not among the rendered objects: if something in the cluster creates it (flate follows ExternalSecrets, ClusterExternalSecrets, SealedSecrets, cert-manager Certificates, trust-manager Bundles, ObjectBucketClaims, OnePasswordItems, PostgresUsers and CloudNativePG Clusters), give a file that defines it to --settings (or list it under `settings` in .flate.yaml)"
    );
    assert!(stderr(&o).contains("warning: HelmRelease flux-system/from-eso: valuesFrom Secret/flux-system/demo-secret is produced at runtime"), "{}", stderr(&o));

    // A Kustomization whose source is not in the repository is not
    // rendered offline: the two releases are skipped, naming it.
    write(
        t.path(),
        "kubernetes/clusters/test/remote.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: remote\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ./\n  prune: true\n  sourceRef:\n    kind: OCIRepository\n    name: remote-manifests\n",
    );
    let (o, js) = build_json(t.path(), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(hr(&js, "plain")["renderStatus"], "rendered");
    let n = hr(&js, "no-source");
    assert_eq!(n["renderStatus"], "skipped", "{n:#}");
    assert_eq!(
        n["message"],
        "chart source HelmRepository/flux-system/nowhere (spec.chart.spec.sourceRef) is not among the rendered objects, and may be among those of the 1 Kustomization not rendered offline (flux-system/remote)"
    );
    let v = hr(&js, "no-values");
    assert_eq!(v["renderStatus"], "skipped", "{v:#}");
    assert_eq!(
        v["message"],
        "valuesFrom ConfigMap/flux-system/nowhere is not among the rendered objects, and may be among those of the 1 Kustomization not rendered offline (flux-system/remote)"
    );
    // --require-charts: a release that cannot be rendered offline fails.
    let (o, js) = build_json(t.path(), &["--require-charts"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(hr(&js, "no-source")["renderStatus"], "failed");
}

/// A block scalar that ends a document keeps its final line break as
/// Helm's install reads the document (helm v4 `pkg/action/action.go`:
/// the post-renderer parses each template's output with kyaml, where
/// every document but the last is followed by a line break and the last
/// as the output ends; a hook is then installed from its own trimmed
/// document, `releaseutil.SplitManifests`, and go-yaml keeps no line
/// break at the end of the input), not as `helm template`'s text shows
/// it, where a line break follows every document.
#[test]
fn final_line_breaks_of_block_scalars_are_helms_install() {
    let release = hr_spec(
        "demo",
        "  chart:\n    spec:\n      chart: ./charts/blocks\n      sourceRef:\n        kind: GitRepository\n        name: flux-system\n",
    );
    let cm = |name: &str, hook: bool| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n{}data:\n  script: |\n    echo {name}\n",
            if hook {
                "  annotations:\n    helm.sh/hook: pre-install\n"
            } else {
                ""
            }
        )
    };
    let t = repo(&[
        ("kubernetes/clusters/test/hr.yaml", &release),
        (
            "charts/blocks/Chart.yaml",
            "apiVersion: v2\nname: blocks\nversion: 1.0.0\n",
        ),
        ("charts/blocks/templates/one.yaml", &cm("one", false)),
        (
            "charts/blocks/templates/two.yaml",
            // Two documents, and the output ends without a line break.
            &format!(
                "{}---\n{}",
                cm("first", false),
                cm("last", false).trim_end()
            ),
        ),
        ("charts/blocks/templates/hook.yaml", &cm("hook", true)),
    ]);
    let (o, js) = build_json(t.path(), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let objs = &hr(&js, "demo")["objects"];
    let script = |name: &str| object(objs, "ConfigMap", name).unwrap()["data"]["script"].clone();
    assert_eq!(script("one"), "echo one\n");
    assert_eq!(script("first"), "echo first\n");
    assert_eq!(script("last"), "echo last");
    assert_eq!(script("hook"), "echo hook");
}

/// `duplicate-object` on the objects of HelmReleases: two releases that
/// install the same objects in one cluster clash; the CRDs of a chart's
/// `crds/` directory do not (helm-controller creates them when missing
/// and never deletes them), nor do releases whose `spec.kubeConfig` sends
/// them to different clusters (a hub and its spokes).
#[test]
fn duplicate_objects_of_releases_follow_the_cluster_they_go_to() {
    let release = |name: &str, ns: &str, extra: &str| {
        format!(
            "---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: {name}\n  namespace: {ns}\nspec:\n  interval: 1h\n  releaseName: shared\n  targetNamespace: apps\n  chart:\n    spec:\n      chart: ./charts/demo\n      sourceRef:\n        kind: GitRepository\n        name: flux-system\n        namespace: flux-system\n{extra}"
        )
    };
    let duplicates = |text: &str| {
        let t = repo(&[("kubernetes/clusters/test/hr.yaml", text)]);
        chart(t.path(), "charts/demo", "1.0.0", "1.0.0");
        let o = common::flate_in(&["check", "test", "-o", "json"], t.path());
        let js: J = serde_json::from_slice(&o.stdout).expect("check JSON");
        let mut found: Vec<String> = js["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["rule"] == "duplicate-object")
            .map(|f| f["message"].as_str().unwrap().to_string())
            .collect();
        found.sort();
        found
    };
    // The same release installed twice into one cluster: every object of
    // the chart clashes but the CRD of crds/.
    let both = release("one", "team-a", "") + &release("two", "team-b", "");
    let found = duplicates(&both);
    assert!(!found.is_empty());
    assert!(
        found
            .iter()
            .any(|m| m.starts_with("Deployment apps/shared is produced by HelmRelease team-a/one and HelmRelease team-b/two")),
        "{found:#?}"
    );
    assert!(
        found
            .iter()
            .all(|m| !m.contains("CustomResourceDefinition")),
        "{found:#?}"
    );
    // Each to its own cluster: no clash.
    let kube = |secret: &str| format!("  kubeConfig:\n    secretRef:\n      name: {secret}\n");
    let spokes =
        release("one", "team-a", &kube("spoke-a")) + &release("two", "team-b", &kube("spoke-b"));
    assert_eq!(duplicates(&spokes), Vec::<String>::new());
    // One to a spoke, one here: no clash either.
    let mixed = release("one", "team-a", &kube("spoke-a")) + &release("two", "team-b", "");
    assert_eq!(duplicates(&mixed), Vec::<String>::new());
}

/// `.Capabilities.APIVersions` of a release holds what the cluster's
/// discovery lists: the stable built-in versions of the environment's
/// Kubernetes version too, such as `apiregistration.k8s.io/v1`, which
/// Helm's offline defaults (client-go's scheme) lack; not the alpha and
/// beta versions (off by default) that the defaults lack, such as
/// `scheduling.k8s.io/v1alpha2`. (Those the defaults have stay.)
#[test]
fn releases_see_the_stable_built_in_api_versions() {
    let release = hr_spec(
        "caps",
        "  chart:\n    spec:\n      chart: ./charts/caps\n      sourceRef:\n        kind: GitRepository\n        name: flux-system\n",
    );
    let t = repo(&[
        ("kubernetes/clusters/test/hr.yaml", &release),
        (
            "charts/caps/Chart.yaml",
            "apiVersion: v2\nname: caps\nversion: 1.0.0\n",
        ),
        (
            "charts/caps/templates/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: caps\ndata:\n  apiService: {{ .Capabilities.APIVersions.Has \"apiregistration.k8s.io/v1/APIService\" | quote }}\n  alpha: {{ .Capabilities.APIVersions.Has \"scheduling.k8s.io/v1alpha2\" | quote }}\n  apps: {{ .Capabilities.APIVersions.Has \"apps/v1/Deployment\" | quote }}\n",
        ),
    ]);
    let (o, js) = build_json(t.path(), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let cm = object(&hr(&js, "caps")["objects"], "ConfigMap", "caps").unwrap();
    assert_eq!(cm["data"]["apiService"], "true");
    assert_eq!(cm["data"]["alpha"], "false");
    assert_eq!(cm["data"]["apps"], "true");
    // `flate helm template` keeps Helm's offline defaults, as `helm
    // template` does.
    let o = Command::new(env!("CARGO_BIN_EXE_flate"))
        .arg("helm")
        .arg("template")
        .arg(t.path().join("charts/caps"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("apiService: \"false\""),
        "{}",
        stdout(&o)
    );
}

/// A release's warnings are said once: a chart whose CRDs make every
/// release render a second time (with their API versions) does not repeat
/// the engine's warnings, and several `valuesFrom` entries of one Secret
/// created at runtime give one warning.
#[test]
fn release_warnings_are_not_repeated() {
    let eso = "apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata:\n  name: demo-eso\n  namespace: flux-system\nspec:\n  target:\n    name: demo-secret\n  data: []\n";
    let entry = |key: &str| {
        format!(
            "    - kind: Secret\n      name: demo-secret\n      valuesKey: {key}\n      targetPath: extra.{key}\n"
        )
    };
    let release = hr_spec(
        "demo",
        &format!(
            "  chart:\n    spec:\n      chart: ./charts/demo\n      sourceRef:\n        kind: GitRepository\n        name: flux-system\n  valuesFrom:\n{}{}",
            entry("a"),
            entry("b")
        ),
    );
    let t = repo(&[
        ("kubernetes/clusters/test/hr.yaml", &release),
        ("kubernetes/clusters/test/eso.yaml", eso),
        (
            "charts/demo/values.schema.json",
            r#"{"$ref": "https://schemas.example.com/values.json"}"#,
        ),
    ]);
    // (The chart's crds/ has a CRD: the release renders twice.)
    chart(t.path(), "charts/demo", "1.0.0", "1.0.0");
    let (o, js) = build_json(t.path(), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let h = hr(&js, "demo");
    assert_eq!(h["renderStatus"], "rendered", "{h:#}");
    let warnings: Vec<&str> = h["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert_eq!(warnings.len(), 2, "{warnings:#?}");
    assert!(
        warnings[0].starts_with("valuesFrom Secret/flux-system/demo-secret is produced at runtime")
    );
    assert!(
        warnings[1].contains("https://schemas.example.com/values.json"),
        "{warnings:#?}"
    );
}

/// A chart document without a kind, which `helm template` prints, fails
/// the release as helm-controller's post-renderers (kustomize) fail it,
/// naming the document.
#[test]
fn a_rendered_document_without_a_kind_fails_naming_it() {
    let mut text = SOURCES.to_string();
    text += &hr_spec(
        "raw",
        "  chart:\n    spec:\n      chart: demo\n      version: 1.0.0\n      sourceRef:\n        kind: HelmRepository\n        name: example\n  values:\n    raw:\n      manifest:\n        kind: ResourceClaimTemplate\n",
    );
    let t = repo(&[("kubernetes/clusters/test/all.yaml", &text)]);
    chart(t.path(), ".flate/charts/demo-1.0.0", "1.0.0", "1.0.0");
    // As a library chart's raw resources do: `kind` read one level too high.
    write(
        t.path(),
        ".flate/charts/demo-1.0.0/templates/raw.yaml",
        "{{- with .Values.raw }}\napiVersion: {{ .apiVersion }}\nkind: {{ .kind }}\nmetadata:\n  name: {{ $.Release.Name }}-raw\n{{- end }}\n",
    );
    let (o, js) = build_json(t.path(), &[]);
    assert!(!o.status.success());
    let h = hr(&js, "raw");
    assert_eq!(h["status"], "failed", "{h}");
    let m = h["message"].as_str().unwrap();
    assert!(
        m.starts_with("demo/templates/raw.yaml: missing Resource metadata: 'kind' is required"),
        "{m}"
    );
    assert!(
        m.contains("the document named \"raw-raw\" has no kind"),
        "{m}"
    );
}

/// A `valuesFrom` Secret that nothing rendered creates fails the release,
/// saying how to stand for it; given with `--settings` (as something in
/// the cluster would create it), it is found, by the render and by
/// `flate check` alike.
#[test]
fn a_values_from_secret_given_with_settings_is_found() {
    let mut text = SOURCES.to_string();
    text += &hr_spec(
        "db-user",
        "  chart:\n    spec:\n      chart: demo\n      version: 1.0.0\n      sourceRef:\n        kind: HelmRepository\n        name: example\n  valuesFrom:\n    - kind: Secret\n      name: made-by-an-operator\n      valuesKey: password\n      targetPath: secretText\n",
    );
    let t = repo(&[("kubernetes/clusters/test/all.yaml", &text)]);
    chart(t.path(), ".flate/charts/demo-1.0.0", "1.0.0", "1.0.0");
    let (o, js) = build_json(t.path(), &[]);
    assert!(!o.status.success());
    let m = hr(&js, "db-user")["message"].as_str().unwrap().to_string();
    assert!(
        m.starts_with("valuesFrom Secret/flux-system/made-by-an-operator is not among the rendered objects: if something in the cluster creates it"),
        "{m}"
    );
    assert!(m.contains("--settings"), "{m}");
    write(
        t.path(),
        "settings/secret.yaml",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: made-by-an-operator\n  namespace: flux-system\nstringData:\n  password: from-the-cluster\n",
    );
    let settings = t.path().join("settings/secret.yaml");
    let settings = settings.to_str().unwrap();
    let (o, js) = build_json(t.path(), &["--settings", settings]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(hr(&js, "db-user")["renderStatus"], "rendered", "{js}");
    let o = common::flate_in(
        &["check", "test", "--settings", settings, "-o", "json"],
        t.path(),
    );
    let check: J = serde_json::from_slice(&o.stdout).unwrap();
    let rules: Vec<&str> = check["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["rule"].as_str())
        .collect();
    assert!(!rules.contains(&"valuesfrom-missing"), "{check}");
}

/// `flate build` says, without `-v`, in one note, how many HelmReleases
/// it did not render and why (a chart not cached, a source or values not
/// rendered offline), and in another how many Kustomizations it skipped;
/// `-v` lists them, `--quiet` says nothing; `flate check` says next to
/// its summary that their objects were not checked.
#[test]
fn what_is_left_unrendered_is_counted_without_verbose() {
    let mut text = SOURCES.to_string();
    text += &hr_spec(
        "uncached",
        "  chart:\n    spec:\n      chart: demo\n      version: 9.9.9\n      sourceRef:\n        kind: HelmRepository\n        name: example\n",
    );
    text += &hr_spec(
        "novalues",
        "  chart:\n    spec:\n      chart: demo\n      version: 1.0.0\n      sourceRef:\n        kind: HelmRepository\n        name: example\n  valuesFrom:\n    - kind: Secret\n      name: db-app\n",
    );
    text += GITHUB_PROVIDER;
    text += "---\napiVersion: fluxcd.controlplane.io/v1\nkind: ResourceSet\nmetadata:\n  name: db\n  namespace: flux-system\nspec:\n  inputsFrom:\n    - name: pull-requests\n  resourcesTemplate: |\n    apiVersion: v1\n    kind: Secret\n    metadata:\n      name: db-app\n";
    // A Kustomization of a source that is not rendered offline.
    text += "---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: remote\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ./deploy\n  prune: true\n  sourceRef:\n    kind: OCIRepository\n    name: elsewhere\n";
    let t = repo(&[("kubernetes/clusters/test/all.yaml", &text)]);
    chart(t.path(), ".flate/charts/demo-1.0.0", "1.0.0", "1.0.0");
    let o = common::flate_in(&["build", "test"], t.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("note: 2 HelmReleases not rendered: 1 whose chart is not cached (`flate get charts` lists them and how to fetch them); 1 whose source or values are not rendered offline (`-v` lists them)\n"),
        "{e}"
    );
    assert!(
        e.contains("note: 1 Kustomization skipped, not rendered offline (`-v` says why)\n"),
        "{e}"
    );
    assert!(
        e.contains("note: 1 ResourceSet not expanded: the objects the Flux Operator makes from it are not in this output (`-v` lists it)\n"),
        "{e}"
    );
    // `flate check` says what its summary does not cover.
    let o = common::flate_in(&["check", "test"], t.path());
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(
        out.contains("not checked: the objects of 1 Kustomization skipped, 2 HelmReleases not rendered offline and 1 ResourceSet not expanded (`flate build -v` says why)\n"),
        "{out}"
    );
    let o = common::flate_in(&["-v", "build", "test"], t.path());
    let e = stderr(&o);
    assert!(!e.contains("note: 2 HelmReleases"), "{e}");
    assert!(
        e.contains("info: Kustomization flux-system/remote skipped: external source OCIRepository/flux-system/elsewhere"),
        "{e}"
    );
    assert!(
        e.contains("info: 1 HelmRelease not rendered (`flate get charts`"),
        "{e}"
    );
    assert!(e.contains("info: HelmRelease flux-system/novalues not rendered: valuesFrom Secret/flux-system/db-app"), "{e}");
    assert!(
        e.contains("info: ResourceSet flux-system/db not expanded: its input provider ResourceSetInputProvider flux-system/pull-requests is of type \"GitHubPullRequest\", whose inputs come from an external service at runtime\n"),
        "{e}"
    );
    let o = common::flate_in(&["--quiet", "build", "test"], t.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("not rendered"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("not expanded"), "{}", stderr(&o));
}

/// A Flux Operator ResourceSetInputProvider whose inputs come from GitHub
/// at runtime: a ResourceSet taking its inputs is not expanded offline.
const GITHUB_PROVIDER: &str = "---\napiVersion: fluxcd.controlplane.io/v1\nkind: ResourceSetInputProvider\nmetadata:\n  name: pull-requests\n  namespace: flux-system\nspec:\n  type: GitHubPullRequest\n  url: https://github.com/example/app\n";

/// A Flux Operator ResourceSet flate expands makes the `valuesFrom`
/// Secret of a release: the release renders with its value.
#[test]
fn a_values_from_secret_a_resource_set_makes_renders_the_release() {
    let mut text = SOURCES.to_string();
    text += &hr_spec(
        "app",
        "  chart:\n    spec:\n      chart: demo\n      version: 1.0.0\n      sourceRef:\n        kind: HelmRepository\n        name: example\n  valuesFrom:\n    - kind: Secret\n      name: db-app\n      valuesKey: password\n      targetPath: secretText\n",
    );
    text += "---\napiVersion: fluxcd.controlplane.io/v1\nkind: ResourceSet\nmetadata:\n  name: db\n  namespace: flux-system\nspec:\n  inputs:\n    - name: db\n      password: from-the-set\n  resourcesTemplate: |\n    apiVersion: v1\n    kind: Secret\n    metadata:\n      name: << inputs.name >>-app\n      namespace: flux-system\n    stringData:\n      password: << inputs.password >>\n";
    let t = repo(&[("kubernetes/clusters/test/all.yaml", &text)]);
    chart(t.path(), ".flate/charts/demo-1.0.0", "1.0.0", "1.0.0");
    let (o, js) = build_json(t.path(), &["--show-secrets"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let h = hr(&js, "app");
    assert_eq!(h["renderStatus"], "rendered", "{h}");
    assert_eq!(h["values"]["secretText"], "from-the-set", "{h}");
}

/// A Flux Operator ResourceSet makes objects at runtime that flate cannot
/// render offline: a `valuesFrom` Secret missing beside one skips the
/// release (not a failure), and `flate check` warns, naming the
/// ResourceSet.
#[test]
fn a_values_from_secret_a_resource_set_may_make_skips_the_release() {
    let mut text = SOURCES.to_string();
    text += &hr_spec(
        "app",
        "  chart:\n    spec:\n      chart: demo\n      version: 1.0.0\n      sourceRef:\n        kind: HelmRepository\n        name: example\n  valuesFrom:\n    - kind: Secret\n      name: db-app\n      valuesKey: password\n      targetPath: secretText\n",
    );
    text += GITHUB_PROVIDER;
    text += "---\napiVersion: fluxcd.controlplane.io/v1\nkind: ResourceSet\nmetadata:\n  name: db\n  namespace: flux-system\nspec:\n  inputsFrom:\n    - name: pull-requests\n  resourcesTemplate: |\n    apiVersion: postgresql.cnpg.io/v1\n    kind: Cluster\n    metadata:\n      name: << inputs.name >>\n";
    let t = repo(&[("kubernetes/clusters/test/all.yaml", &text)]);
    chart(t.path(), ".flate/charts/demo-1.0.0", "1.0.0", "1.0.0");
    let (o, js) = build_json(t.path(), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let h = hr(&js, "app");
    assert_eq!(h["renderStatus"], "skipped", "{h}");
    assert!(
        h["message"].as_str().unwrap().ends_with(
            "may be made at runtime by ResourceSet flux-system/db (the Flux Operator's, which flate could not expand offline)"
        ),
        "{h}"
    );
    // With -v, the release is said not rendered for its own reason, not
    // counted with the releases whose charts are not cached.
    let o = common::flate_in(&["-v", "build", "test"], t.path());
    let e = stderr(&o);
    assert!(
        e.contains(
            "info: HelmRelease flux-system/app not rendered: valuesFrom Secret/flux-system/db-app"
        ),
        "{e}"
    );
    assert!(!e.contains("`flate get charts` lists the charts"), "{e}");
    let o = common::flate_in(&["check", "test", "-o", "json"], t.path());
    let check: J = serde_json::from_slice(&o.stdout).unwrap();
    let f = check["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "valuesfrom-missing")
        .expect("a valuesfrom-missing finding");
    assert_eq!(f["severity"], "warning", "{f}");
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .contains("unless ResourceSet flux-system/db, which flate did not expand"),
        "{f}"
    );
}

/// helm-controller's chart digest tracking: the chart of an OCIRepository
/// that pins a digest renders with the digest's first 12 hex digits as the
/// build metadata of its version (`.Chart.Version`, so the chart's
/// `helm.sh/chart` label), as `helm template` renders the same chart
/// whose Chart.yaml says that version; with a tag alone the digest is the
/// registry's, unknown offline, and the chart's own version stays; a pin
/// helm-controller cannot read fails the release with its message.
#[test]
fn an_oci_digest_pin_is_tracked_in_the_chart_version() {
    let digest = "sha256:aadbb3a49248f605490009acca04693b7eef0d46969bb56a593ed0b49624c782";
    let oci = |name: &str, reference: &str| {
        format!(
            "---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata:\n  name: {name}\n  namespace: flux-system\nspec:\n  interval: 1h\n  url: oci://ghcr.io/example/charts/demo\n  ref:\n{reference}"
        )
    };
    let by_ref = |name: &str| {
        hr_spec(
            name,
            &format!("  chartRef:\n    kind: OCIRepository\n    name: {name}\n"),
        )
    };
    let mut text = String::new();
    text += &oci("pinned", &format!("    tag: 1.0.0\n    digest: {digest}\n"));
    text += &oci("tagged", "    tag: 1.0.0\n");
    text += &oci("bad", "    tag: 1.0.0\n    digest: sha256:abc\n");
    for name in ["pinned", "tagged", "bad"] {
        text += &by_ref(name);
    }
    let t = repo(&[("kubernetes/clusters/test/all.yaml", &text)]);
    chart(t.path(), ".flate/charts/demo-1.0.0", "1.0.0", "1.0.0");
    let (o, js) = build_json(t.path(), &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let label = |name: &str, kind: &str, object: &str| {
        let objs = &hr(&js, name)["objects"];
        object_label(objs, kind, object)
    };
    let tracked = "demo-1.0.0+aadbb3a49248";
    assert_eq!(
        hr(&js, "pinned")["chart"]["trackedVersion"],
        "1.0.0+aadbb3a49248"
    );
    assert_eq!(hr(&js, "pinned")["chart"]["resolvedVersion"], "1.0.0");
    assert_eq!(hr(&js, "tagged")["chart"]["trackedVersion"], "");
    assert_eq!(label("pinned", "Deployment", "pinned"), tracked);
    assert_eq!(label("pinned", "ConfigMap", "pinned-info"), tracked);
    assert_eq!(label("tagged", "Deployment", "tagged"), "demo-1.0.0");
    let bad = hr(&js, "bad");
    assert_eq!(bad["renderStatus"], "failed");
    assert!(
        bad["message"]
            .as_str()
            .unwrap()
            .ends_with("invalid artifact revision sha256:abc"),
        "{bad:#}"
    );
    // The gate on a FluxInstance applied from outside the repository,
    // given as a settings file.
    write(
        t.path(),
        "settings/flux-instance.yaml",
        "apiVersion: fluxcd.controlplane.io/v1\nkind: FluxInstance\nmetadata:\n  name: flux\n  namespace: flux-system\nspec:\n  kustomize:\n    patches:\n      - target:\n          kind: Deployment\n          name: helm-controller\n        patch: |\n          - op: add\n            path: /spec/template/spec/containers/0/args/-\n            value: --feature-gates=DisableChartDigestTracking=true\n",
    );
    let settings = t.path().join("settings/flux-instance.yaml");
    let (o, js) = build_json(t.path(), &["--settings", settings.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        object_label(&hr(&js, "pinned")["objects"], "Deployment", "pinned"),
        "demo-1.0.0"
    );
    // helm-controller's feature gate DisableChartDigestTracking, set as
    // flux-operator's FluxInstance is patched from a HelmRelease's values:
    // charts keep their own versions.
    let gate = "---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: flux-instance\n  namespace: flux-system\nspec:\n  interval: 1h\n  chartRef:\n    kind: OCIRepository\n    name: flux-instance\n  values:\n    instance:\n      kustomize:\n        patches:\n          - patch: |-\n              - op: add\n                path: /spec/template/spec/containers/0/args/-\n                value: --feature-gates=DefaultToRetryOnFailure=true,DisableChartDigestTracking=true\n            target:\n              kind: Deployment\n              name: helm-controller\n";
    let text = text + gate + &oci("flux-instance", "    tag: 0.1.0\n");
    std::fs::write(t.path().join("kubernetes/clusters/test/all.yaml"), text).unwrap();
    let (o, js) = build_json(t.path(), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        object_label(&hr(&js, "pinned")["objects"], "Deployment", "pinned"),
        "demo-1.0.0"
    );
    assert_eq!(hr(&js, "bad")["renderStatus"], "rendered");
    assert_eq!(hr(&js, "pinned")["chart"]["trackedVersion"], "");
    let Some(helm) = helm() else {
        eprintln!("SKIPPED: the differential part (helm is not on PATH)");
        return;
    };
    // The oracle: the chart with that version in its Chart.yaml.
    let c = tempfile::tempdir().unwrap();
    chart(c.path(), "demo", "1.0.0+aadbb3a49248", "1.0.0");
    let want = helm_template(
        &helm,
        &c.path().join("demo"),
        "pinned",
        "flux-system",
        "{}",
        &[],
    );
    let want = J::Array(want);
    assert_eq!(object_label(&want, "Deployment", "pinned"), tracked);
    assert_eq!(object_label(&want, "ConfigMap", "pinned-info"), tracked);
}

fn object_label(objs: &J, kind: &str, name: &str) -> String {
    object(objs, kind, name).unwrap_or_else(|| panic!("no {kind} {name} in {objs:#}"))["metadata"]
        ["labels"]["helm.sh/chart"]
        .as_str()
        .unwrap()
        .to_string()
}

/// source-controller's dependency build of a chart from the repository:
/// the dependencies its Chart.yaml lists and `charts/` lacks are added, a
/// `file://` one from the repository, a remote one from the chart cache;
/// the release renders as `helm template` renders the chart once `helm
/// dependency build` has filled `charts/`. A remote one that is not cached
/// skips the release with the `helm pull` that fetches it; a local one of
/// another version fails it, as source-controller fails; one already in
/// `charts/` as an archive counts by the name in its Chart.yaml, whatever
/// the file's name.
#[test]
fn a_repository_chart_gets_its_dependencies_as_source_controller_builds_them() {
    let umbrella = |version_of_lib: &str| {
        format!(
            "apiVersion: v2\nname: umbrella\nversion: 0.1.0\ndependencies:\n  - name: lib\n    version: \"{version_of_lib}\"\n    repository: file://../lib\n  - name: demo\n    version: \"~1.0\"\n    repository: https://charts.example.com\n    alias: web\n"
        )
    };
    let release = |name: &str, chart: &str| {
        hr_spec(
            name,
            &format!(
                "  chart:\n    spec:\n      chart: ./charts/{chart}\n      sourceRef:\n        kind: GitRepository\n        name: flux-system\n  values:\n    web:\n      replicas: 2\n"
            ),
        )
    };
    let mut text = release("umbrella", "umbrella");
    text += &release("wrong-lib", "wrong-lib");
    text += &release("uncached", "uncached");
    text += &release("packaged", "packaged");
    let t = repo(&[
        ("kubernetes/clusters/test/all.yaml", &text),
        ("charts/umbrella/Chart.yaml", &umbrella("^1.0.0")),
        (
            "charts/umbrella/templates/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ include \"lib.name\" . }}\n",
        ),
        ("charts/wrong-lib/Chart.yaml", &umbrella("^2.0.0")),
        (
            "charts/uncached/Chart.yaml",
            "apiVersion: v2\nname: uncached\nversion: 0.1.0\ndependencies:\n  - name: other\n    version: 3.1.4\n    repository: https://charts.example.com\n  - name: second\n    version: 0.2.0\n    repository: oci://ghcr.io/example/charts\n",
        ),
        (
            "charts/lib/Chart.yaml",
            "apiVersion: v2\nname: lib\nversion: 1.2.0\ntype: library\n",
        ),
        (
            "charts/lib/templates/_name.tpl",
            "{{ define \"lib.name\" }}{{ .Release.Name }}-from-lib{{ end }}",
        ),
    ]);
    chart(t.path(), ".flate/charts/demo-1.0.3", "1.0.3", "1.0.3");
    // A dependency already in charts/ as an archive of any file name
    // counts by the name in its Chart.yaml: nothing is added.
    write(
        t.path(),
        "charts/packaged/Chart.yaml",
        "apiVersion: v2\nname: packaged\nversion: 0.1.0\ndependencies:\n  - name: demo\n    version: 9.9.9\n    repository: https://charts.example.com\n",
    );
    let src = tempfile::tempdir().unwrap();
    chart(src.path(), "demo", "9.9.9", "9.9.9");
    std::fs::create_dir_all(t.path().join("charts/packaged/charts")).unwrap();
    std::fs::write(
        t.path().join("charts/packaged/charts/vendored.tgz"),
        tgz(&src.path().join("demo"), "demo"),
    )
    .unwrap();
    let (o, js) = build_json(t.path(), &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let h = hr(&js, "umbrella");
    assert_eq!(h["renderStatus"], "rendered", "{h:#}");
    assert!(
        object(&h["objects"], "ConfigMap", "umbrella-from-lib").is_some(),
        "{h:#}"
    );
    let web = object(&h["objects"], "Deployment", "umbrella")
        .expect("the aliased dependency's Deployment");
    assert_eq!(web["spec"]["replicas"], 2);
    let wrong = hr(&js, "wrong-lib");
    assert_eq!(wrong["renderStatus"], "failed");
    assert!(
        wrong["message"]
            .as_str()
            .unwrap()
            .ends_with("failed to add local dependency 'lib': can't get a valid version for constraint '^2.0.0'"),
        "{wrong:#}"
    );
    let packaged = hr(&js, "packaged");
    assert_eq!(packaged["renderStatus"], "rendered", "{packaged:#}");
    assert!(
        object(&packaged["objects"], "Deployment", "packaged").is_some(),
        "{packaged:#}"
    );
    // Each dependency the cache lacks is named, and one command fetches
    // them all.
    let uncached = hr(&js, "uncached");
    assert_eq!(uncached["renderStatus"], "skipped");
    let pull = "helm pull other --repo https://charts.example.com --version 3.1.4 -d .flate/charts && helm pull oci://ghcr.io/example/charts/second --version 0.2.0 -d .flate/charts";
    assert!(
        uncached["message"].as_str().unwrap().ends_with(&format!(
            "dependencies 'other' (chart other 3.1.4 of https://charts.example.com), 'second' (chart second 0.2.0 of oci://ghcr.io/example/charts) of the chart are not in the chart cache: fetch them with `{pull}`"
        )),
        "{uncached:#}"
    );
    // `flate get charts` says how to fetch what the release lacks.
    assert_eq!(uncached["chart"]["pull"], pull);
    let o = common::flate_in(&["get", "charts", "test", "-o", "json"], t.path());
    let items: J = serde_json::from_slice(&o.stdout).unwrap();
    let item = items["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["helmrelease"] == "flux-system/uncached")
        .unwrap();
    assert_eq!(item["pull"], pull, "{item:#}");
    assert_eq!(item["cached"], false);
    let Some(helm) = helm() else {
        eprintln!("SKIPPED: the differential part (helm is not on PATH)");
        return;
    };
    // The oracle: the chart with charts/ filled as `helm dependency
    // build` fills it.
    let c = tempfile::tempdir().unwrap();
    let root = c.path().join("umbrella");
    for (from, to) in [
        ("charts/umbrella", ""),
        ("charts/lib", "charts/lib"),
        (".flate/charts/demo-1.0.3", "charts/demo"),
    ] {
        copy_dir(&t.path().join(from), &root.join(to));
    }
    let want = helm_template(
        &helm,
        &root,
        "umbrella",
        "flux-system",
        "web:\n  replicas: 2\n",
        &[
            "--skip-tests",
            "--kube-version",
            "v1.36.0",
            "--api-versions",
            "demo.example.com/v1/Widget",
        ],
    );
    let got: Vec<J> = without_crds_and_hooks(&h["objects"]);
    let want: Vec<J> = without_crds_and_hooks(&J::Array(want));
    let names = |v: &[J]| {
        let mut n: Vec<String> = v
            .iter()
            .map(|o| format!("{}/{}", o["kind"], o["metadata"]["name"]))
            .collect();
        n.sort();
        n
    };
    assert_eq!(names(&got), names(&want));
    let got = J::Array(got);
    for w in &want {
        let (kind, name) = (
            w["kind"].as_str().unwrap(),
            w["metadata"]["name"].as_str().unwrap(),
        );
        let g = object(&got, kind, name).unwrap();
        assert_eq!(g["spec"], w["spec"], "{name}");
        assert_eq!(g["data"], w["data"], "{name}");
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display())) {
        let e = e.unwrap();
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}
