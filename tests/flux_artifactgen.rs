//! Flux's ArtifactGenerator: a Kustomization whose source is an
//! ExternalArtifact that a generator in the repository makes renders from
//! the files the generator copies (as fluxcd/flux2-kustomize-helm-example
//! lays out its apps), a source that is not offline skips it, a failing
//! copy operation fails it.

mod common;

use common::{report, write};

const KS: &str = "apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: apps
  namespace: flux-system
spec:
  interval: 1h
  path: ./production
  prune: true
  sourceRef:
    kind: ExternalArtifact
    name: apps
";

fn generator(copy: &str) -> String {
    format!(
        "apiVersion: source.extensions.fluxcd.io/v1beta1
kind: ArtifactGenerator
metadata:
  name: flux-system
  namespace: flux-system
spec:
  sources:
    - alias: monorepo
      kind: GitRepository
      name: flux-system
  artifacts:
    - name: apps
      originRevision: \"@monorepo\"
      copy:
{copy}"
    )
}

const COPY: &str = "        - from: \"@monorepo/apps/base/**\"
          to: \"@artifact/base/\"
        - from: \"@monorepo/apps/production/**\"
          to: \"@artifact/production/\"
          exclude: [\"*.md\"]
";

fn tree(d: &std::path::Path) {
    write(d, "cluster/apps.yaml", KS);
    write(d, "cluster/artifacts.yaml", &generator(COPY));
    write(
        d,
        "apps/base/podinfo/kustomization.yaml",
        "resources:\n  - deploy.yaml\n",
    );
    write(
        d,
        "apps/base/podinfo/deploy.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: podinfo\nspec:\n  template:\n    spec:\n      containers:\n        - name: app\n          image: podinfo:1.0\n",
    );
    write(
        d,
        "apps/production/kustomization.yaml",
        "namespace: prod\nresources:\n  - ../base/podinfo\nimages:\n  - name: podinfo\n    newTag: \"2.0\"\n",
    );
    write(d, "apps/production/README.md", "not copied\n");
}

#[test]
fn a_kustomization_renders_from_a_generated_artifact() {
    let d = common::scratch("artifactgen");
    tree(&d);
    let (v, err) = common::build_cluster_json(&d);
    let apps = report(&v, "apps");
    assert_eq!(apps["status"], "rendered", "{apps:#}\n{err}");
    let objects = apps["objects"].as_array().unwrap();
    assert_eq!(objects.len(), 1, "{apps:#}");
    assert_eq!(objects[0]["metadata"]["namespace"], "prod");
    assert_eq!(
        objects[0]["spec"]["template"]["spec"]["containers"][0]["image"],
        "podinfo:2.0"
    );

    // The artifact holds base/ and production/ as apps/ does: the same
    // objects as kubectl's build of apps/production.
    let k = common::flate_in(&["build", "ks", "x", "apps", "--path", "cluster"], &d);
    let text = String::from_utf8_lossy(&k.stdout);
    let body: String = text
        .lines()
        .filter(|l| !l.starts_with("# Source:"))
        .map(|l| format!("{l}\n"))
        .collect();
    match std::process::Command::new("kubectl")
        .args(["kustomize", "apps/production"])
        .current_dir(&*d)
        .output()
    {
        Ok(o) if o.status.success() => assert_eq!(body, String::from_utf8_lossy(&o.stdout)),
        Ok(o) => panic!("kubectl failed: {}", String::from_utf8_lossy(&o.stderr)),
        Err(_) => eprintln!("SKIPPED: kubectl is not on PATH; the oracle comparison did not run"),
    }
}

#[test]
fn a_generator_source_not_offline_skips_and_a_failing_copy_fails() {
    let d = common::scratch("artifactgen-errors");
    tree(&d);
    // A source that is another repository: skipped, saying how to give a copy.
    write(
        &d,
        "cluster/artifacts.yaml",
        &generator(COPY).replace(
            "      kind: GitRepository\n      name: flux-system\n",
            "      kind: GitRepository\n      name: elsewhere\n",
        ),
    );
    let (v, err) = common::build_cluster_json(&d);
    let apps = report(&v, "apps");
    assert_eq!(apps["status"], "skipped", "{apps:#}\n{err}");
    let m = apps["message"].as_str().unwrap();
    assert!(
        m.starts_with(
            "ExternalArtifact flux-system/apps (made by ArtifactGenerator flux-system/flux-system, "
        ) && m.contains("--source GitRepository/flux-system/elsewhere=DIR"),
        "{m}"
    );

    // A copy operation that matches nothing fails the Kustomization with
    // source-watcher's message.
    write(
        &d,
        "cluster/artifacts.yaml",
        &generator(&COPY.replace("apps/production/**", "apps/prod/**")),
    );
    let (v, _) = common::build_cluster_json(&d);
    let apps = report(&v, "apps");
    assert_eq!(apps["status"], "failed", "{apps:#}");
    let m = apps["message"].as_str().unwrap();
    assert!(
        m.contains("failed to apply copy operation from '@monorepo/apps/prod/**' to '@artifact/production/': no files match pattern 'apps/prod/**' in source 'monorepo'"),
        "{m}"
    );

    // No generator makes it: an external source, as before.
    write(&d, "cluster/artifacts.yaml", "");
    let (v, _) = common::build_cluster_json(&d);
    let apps = report(&v, "apps");
    assert_eq!(apps["status"], "skipped", "{apps:#}");
    assert!(
        apps["message"]
            .as_str()
            .unwrap()
            .starts_with("external source ExternalArtifact/flux-system/apps"),
        "{apps:#}"
    );
}

/// A generator with a path pattern makes one artifact per matched
/// directory; a Kustomization names one of them.
#[test]
fn a_path_pattern_artifact_renders() {
    let d = common::scratch("artifactgen-pattern");
    tree(&d);
    write(
        &d,
        "cluster/artifacts.yaml",
        "apiVersion: source.extensions.fluxcd.io/v1beta1
kind: ArtifactGenerator
metadata:
  name: per-env
  namespace: flux-system
spec:
  sources:
    - alias: repo
      kind: GitRepository
      name: flux-system
  pathPattern: \"@repo/apps/{env}\"
  artifacts:
    - name: \"apps-{env}\"
      copy:
        - from: \"@repo/apps/{env}/**\"
          to: \"@artifact/\"
        - from: \"@repo/apps/base/\"
          to: \"@artifact/\"
",
    );
    // The artifact holds production's files at its root and base/ beside
    // them: the overlay's `../base/podinfo` becomes `base/podinfo`.
    write(
        &d,
        "cluster/apps.yaml",
        &KS.replace("    name: apps\n", "    name: apps-production\n")
            .replace("path: ./production", "path: ./"),
    );
    write(
        &d,
        "apps/production/kustomization.yaml",
        "namespace: prod\nresources:\n  - base/podinfo\n",
    );
    let (v, err) = common::build_cluster_json(&d);
    let apps = report(&v, "apps");
    assert_eq!(apps["status"], "rendered", "{apps:#}\n{err}");
    let objects = apps["objects"].as_array().unwrap();
    assert_eq!(objects.len(), 1, "{apps:#}");
    assert_eq!(objects[0]["metadata"]["namespace"], "prod");
}

/// A HelmRelease whose chartRef is an ExternalArtifact (helm-controller
/// accepts it, for charts a generator composes) is skipped with the reason,
/// not an error.
/// A chart composed by a generator, as source-watcher's documentation
/// composes one: the chart's directory copied into the artifact and an
/// environment's values merged into its values.yaml. A HelmRelease whose
/// `chartRef` is that ExternalArtifact renders it as helm-controller loads
/// it (as a chart archive: the artifact's top directory is the chart's),
/// as `helm template` renders the chart so composed; an artifact with the
/// chart's files at its root fails as helm-controller fails, and one that
/// holds no chart too.
#[test]
fn a_helmrelease_renders_the_chart_a_generator_composes() {
    let d = common::scratch("artifactgen-hr");
    tree(&d);
    write(
        &d,
        "cluster/releases.yaml",
        "apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: podinfo
  namespace: prod
spec:
  interval: 10m
  chartRef:
    kind: ExternalArtifact
    name: podinfo-composite
    namespace: flux-system
  values:
    replicas: 3
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: flat
  namespace: prod
spec:
  interval: 10m
  chartRef:
    kind: ExternalArtifact
    name: podinfo-flat
    namespace: flux-system
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: nochart
  namespace: prod
spec:
  interval: 10m
  chartRef:
    kind: ExternalArtifact
    name: apps
    namespace: flux-system
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: elsewhere
  namespace: prod
spec:
  interval: 10m
  chartRef:
    kind: ExternalArtifact
    name: made-by-someone
    namespace: flux-system
",
    );
    write(
        &d,
        "cluster/artifacts.yaml",
        &(generator(COPY)
            + "    - name: podinfo-composite
      copy:
        - from: \"@monorepo/charts/podinfo/\"
          to: \"@artifact/\"
        - from: \"@monorepo/envs/prod/values.yaml\"
          to: \"@artifact/podinfo/values.yaml\"
          strategy: Merge
    - name: podinfo-flat
      copy:
        - from: \"@monorepo/charts/podinfo/**\"
          to: \"@artifact/\"
"),
    );
    write(
        &d,
        "charts/podinfo/Chart.yaml",
        "apiVersion: v2\nname: podinfo\nversion: 6.7.0\n",
    );
    write(
        &d,
        "charts/podinfo/values.yaml",
        "replicas: 1\nlevel: info\nui:\n  color: blue\n  message: hello\n",
    );
    write(
        &d,
        "charts/podinfo/templates/configmap.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n  labels:\n    chart: {{ .Chart.Name }}-{{ .Chart.Version }}\ndata:\n  replicas: {{ .Values.replicas | quote }}\n  level: {{ .Values.level }}\n  ui: {{ toJson .Values.ui | quote }}\n",
    );
    write(
        &d,
        "envs/prod/values.yaml",
        "level: debug\nui:\n  color: green\n",
    );
    let (v, err) = common::build_cluster_json(&d);
    let hr = |name: &str| {
        v["helmreleases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {v:#}\n{err}"))
            .clone()
    };
    let podinfo = hr("podinfo");
    assert_eq!(podinfo["renderStatus"], "rendered", "{podinfo:#}");
    let objects = podinfo["objects"].as_array().unwrap();
    assert_eq!(objects.len(), 1, "{podinfo:#}");
    let data = &objects[0]["data"];
    assert_eq!(data["replicas"], "3");
    assert_eq!(data["level"], "debug");
    assert_eq!(data["ui"], r#"{"color":"green","message":"hello"}"#);
    // (release, status, text its message holds)
    for (name, status, text) in [
        (
            "flat",
            "failed",
            "chart ExternalArtifact/flux-system/podinfo-flat: chart yaml not in base directory",
        ),
        (
            "nochart",
            "failed",
            "chart ExternalArtifact/flux-system/apps: Chart.yaml file is missing",
        ),
        (
            "elsewhere",
            "skipped",
            "render it from a local copy of the artifact with --source ExternalArtifact/flux-system/made-by-someone=DIR",
        ),
    ] {
        let h = hr(name);
        assert_eq!(h["renderStatus"], status, "{h:#}");
        assert!(h["message"].as_str().unwrap().ends_with(text), "{h:#}");
    }
    let o = common::flate_in(&["check", "--path", "cluster"], &d);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(!out.contains("is not supported"), "{out}");

    // The oracle: `helm template` of the chart so composed (its values
    // merged as Helm merges a values file over the defaults).
    let Some(helm) = common::helm::helm_binary() else {
        eprintln!("SKIPPED: helm is not on PATH; the oracle comparison did not run");
        return;
    };
    write(
        &d,
        "composed/podinfo/values.yaml",
        "replicas: 1\nlevel: debug\nui:\n  color: green\n  message: hello\n",
    );
    for f in ["Chart.yaml", "templates/configmap.yaml"] {
        std::fs::create_dir_all(d.join("composed/podinfo/templates")).unwrap();
        std::fs::copy(
            d.join("charts/podinfo").join(f),
            d.join("composed/podinfo").join(f),
        )
        .unwrap();
    }
    write(&d, "composed/user.yaml", "replicas: 3\n");
    let o = std::process::Command::new(helm)
        .args([
            "template",
            "podinfo",
            "composed/podinfo",
            "--namespace",
            "prod",
            "-f",
            "composed/user.yaml",
        ])
        .current_dir(&*d)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let want = flate::yaml::parse_stream(&String::from_utf8_lossy(&o.stdout)).unwrap();
    assert_eq!(want.len(), 1);
    let want = want[0].node.to_json();
    assert_eq!(want["data"], *data);
    assert_eq!(
        want["metadata"]["labels"]["chart"],
        objects[0]["metadata"]["labels"]["chart"]
    );

    // An artifact made in the cluster renders from a copy of it.
    std::fs::remove_file(d.join("composed/user.yaml")).unwrap();
    let mapping = format!(
        "ExternalArtifact/flux-system/made-by-someone={}",
        d.join("composed").display()
    );
    let (v, err) = common::build_cluster_json_with(&d, &["--source", &mapping]);
    let elsewhere = v["helmreleases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == "elsewhere")
        .unwrap();
    assert_eq!(
        elsewhere["renderStatus"], "rendered",
        "{elsewhere:#}\n{err}"
    );
    assert_eq!(elsewhere["objects"][0]["data"]["level"], "debug");
}

/// `flate get sources` lists the ExternalArtifacts a generator makes.
#[test]
fn get_sources_lists_generated_artifacts() {
    let d = common::scratch("artifactgen-sources");
    tree(&d);
    let o = common::flate_in(&["get", "sources", "--path", "cluster", "-o", "json"], &d);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let items = v["items"].as_array().unwrap();
    let apps = items
        .iter()
        .find(|i| i["kind"] == "ExternalArtifact" && i["name"] == "apps")
        .unwrap_or_else(|| panic!("{v:#}"));
    assert_eq!(apps["namespace"], "flux-system");
    assert_eq!(apps["generator"], "flux-system/flux-system");
    // NAME narrows to it; another name matches nothing.
    let o = common::flate_in(&["get", "sources", "apps", "--path", "cluster"], &d);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("ExternalArtifact")
            && text.contains("ArtifactGenerator flux-system/flux-system"),
        "{text}"
    );
    let o = common::flate_in(&["get", "sources", "nope", "--path", "cluster"], &d);
    assert_eq!(o.status.code(), Some(2));
}

/// source-watcher's "Helm chart composition" example: the chart of an
/// OCIRepository (from the chart cache, where `helm pull` puts it) with an
/// environment's values merged in, rendered by a HelmRelease.
#[test]
fn a_chart_of_an_oci_repository_composed_with_values_from_git() {
    let d = common::scratch("artifactgen-oci-chart");
    write(
        &d,
        "cluster/podinfo.yaml",
        "apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata:
  name: podinfo-chart
  namespace: apps
spec:
  interval: 10m
  url: oci://ghcr.io/stefanprodan/charts/podinfo
  ref:
    tag: 6.7.0
---
apiVersion: source.extensions.fluxcd.io/v1beta1
kind: ArtifactGenerator
metadata:
  name: podinfo
  namespace: apps
spec:
  sources:
    - alias: chart
      kind: OCIRepository
      name: podinfo-chart
      namespace: apps
    - alias: repo
      kind: GitRepository
      name: flux-system
      namespace: flux-system
  artifacts:
    - name: podinfo-composite
      originRevision: \"@chart\"
      copy:
        - from: \"@chart/\"
          to: \"@artifact/\"
        - from: \"@repo/charts/podinfo/values-prod.yaml\"
          to: \"@artifact/podinfo/values.yaml\"
          strategy: Merge
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: podinfo
  namespace: apps
spec:
  interval: 10m
  releaseName: podinfo
  chartRef:
    kind: ExternalArtifact
    name: podinfo-composite
",
    );
    write(&d, "charts/podinfo/values-prod.yaml", "level: debug\n");
    let chart = d.join(".flate/charts/podinfo");
    write(
        &chart,
        "Chart.yaml",
        "apiVersion: v2\nname: podinfo\nversion: 6.7.0\n",
    );
    write(&chart, "values.yaml", "level: info\nreplicas: 1\n");
    write(
        &chart,
        "templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  level: {{ .Values.level }}\n  replicas: {{ .Values.replicas | quote }}\n",
    );
    let (v, err) = common::build_cluster_json(&d);
    let h = &v["helmreleases"][0];
    assert_eq!(h["renderStatus"], "rendered", "{h:#}\n{err}");
    assert_eq!(h["objects"][0]["data"]["level"], "debug");
    assert_eq!(h["objects"][0]["data"]["replicas"], "1");
    // Without the chart in the cache, the release is skipped saying where
    // the generator's source may come from.
    std::fs::remove_dir_all(&chart).unwrap();
    let (v, err) = common::build_cluster_json(&d);
    let h = &v["helmreleases"][0];
    assert_eq!(h["renderStatus"], "skipped", "{h:#}\n{err}");
    assert!(
        h["message"]
            .as_str()
            .unwrap()
            .contains("--source OCIRepository/apps/podinfo-chart=DIR, or put the chart it holds in the chart cache"),
        "{h:#}"
    );
}
