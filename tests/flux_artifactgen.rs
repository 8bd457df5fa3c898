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
#[test]
fn a_helmrelease_chart_from_an_external_artifact_is_skipped_not_an_error() {
    let d = common::scratch("artifactgen-hr");
    tree(&d);
    write(
        &d,
        "apps/production/hr.yaml",
        "apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: podinfo
  namespace: prod
spec:
  interval: 10m
  chartRef:
    kind: ExternalArtifact
    name: apps
    namespace: flux-system
",
    );
    write(
        &d,
        "apps/production/kustomization.yaml",
        "namespace: prod\nresources:\n  - ../base/podinfo\n  - hr.yaml\n",
    );
    let (v, err) = common::build_cluster_json(&d);
    assert_eq!(report(&v, "apps")["status"], "rendered", "{v:#}\n{err}");
    let hr = &v["helmreleases"][0];
    assert_eq!(hr["renderStatus"], "skipped", "{hr:#}");
    let m = hr["message"].as_str().unwrap();
    assert!(
        m.contains("spec.chartRef ExternalArtifact flux-system/apps is made by ArtifactGenerator flux-system/flux-system")
            && m.contains("a chart from a generated artifact is not rendered offline"),
        "{m}"
    );
    let o = common::flate_in(&["check", "--path", "cluster"], &d);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(!out.contains("is not supported"), "{out}");
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
