//! `flate check` on fixtures/check/RULE/{bad,good}: every bad tree triggers
//! its rule at the expected places, every good one is clean; rules can be
//! disabled by flag and by annotation; the example tree passes; output
//! formats and exit codes.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixtures() -> PathBuf {
    root().join("fixtures/check")
}

fn flate(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_flate"))
        .args(args)
        .output()
        .expect("run flate")
}

/// `flate check --repo REPO -o json ARGS`: exit code and report.
fn check(repo: &Path, args: &[&str]) -> (i32, Value) {
    let repo = repo.to_str().unwrap();
    let mut all = vec!["check", "--repo", repo, "-o", "json"];
    all.extend_from_slice(args);
    let o = flate(&all);
    let code = o.status.code().unwrap_or(-1);
    let js: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    });
    (code, js)
}

fn with_rule<'a>(js: &'a Value, rule: &str) -> Vec<&'a Value> {
    js["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == rule)
        .collect()
}

fn location(f: &Value) -> String {
    format!("{}:{}", f["file"].as_str().unwrap_or("-"), f["line"])
}

fn case(rule: &str) {
    let dir = fixtures().join(rule);
    let bad = dir.join("bad");
    let (code, js) = check(&bad, &[]);
    let hits = with_rule(&js, rule);
    assert!(!hits.is_empty(), "{rule}: bad/ does not trigger it: {js:#}");
    let expected = std::fs::read_to_string(dir.join("expected-locations")).unwrap();
    for want in expected.lines().filter(|l| !l.trim().is_empty()) {
        assert!(
            hits.iter().any(|f| location(f) == want),
            "{rule}: no finding at {want}; found {:?}",
            hits.iter().map(|f| location(f)).collect::<Vec<_>>()
        );
    }
    for f in &hits {
        assert!(!f["message"].as_str().unwrap().is_empty());
        assert_eq!(f["envs"], serde_json::json!(["test"]), "{rule}: {f}");
    }
    let severity = flate::check::rule(rule).unwrap().severity;
    let errors = js["summary"]["errors"].as_u64().unwrap();
    match severity {
        flate::check::Severity::Error => {
            assert_eq!(code, 1, "{rule}: an error exits 1");
            assert!(hits.iter().all(|f| f["severity"] == "error"), "{rule}");
        }
        _ => {
            assert_eq!(errors, 0, "{rule}: {js:#}");
            assert_eq!(code, 0, "{rule}: warnings and infos exit 0");
        }
    }
    // --disable turns it off.
    let (_, js) = check(&bad, &["--disable", rule]);
    assert!(with_rule(&js, rule).is_empty(), "{rule}: --disable");
    // The fixed tree is clean.
    let (code, js) = check(&dir.join("good"), &[]);
    assert!(
        with_rule(&js, rule).is_empty(),
        "{rule}: good/ triggers it: {js:#}"
    );
    assert_eq!(
        js["summary"]["errors"], 0,
        "{rule}: good/ has errors: {js:#}"
    );
    assert_eq!(code, 0);
}

#[test]
fn every_rule_has_fixtures() {
    for r in flate::check::RULES {
        let d = fixtures().join(r.id);
        for sub in ["bad", "good", "expected-locations"] {
            assert!(d.join(sub).exists(), "missing {}", d.join(sub).display());
        }
    }
}

#[test]
fn schema_invalid() {
    case("schema-invalid");
}

#[test]
fn schema_missing() {
    case("schema-missing");
    // --strict makes a kind without a schema an error.
    let (code, js) = check(&fixtures().join("schema-missing/bad"), &["--strict"]);
    assert_eq!(code, 1);
    assert_eq!(with_rule(&js, "schema-missing")[0]["severity"], "error");
    assert_eq!(js["noSchema"][0]["kind"], "Widget");
}

#[test]
fn render_failed() {
    case("render-failed");
}

#[test]
fn pin_digest_lost() {
    case("pin-digest-lost");
}

#[test]
fn pin_digest_mismatch() {
    case("pin-digest-mismatch");
}

#[test]
fn unresolved_variable() {
    case("unresolved-variable");
}

#[test]
fn dependson_missing() {
    case("dependson-missing");
}

/// A missing `dependsOn` target that a file of the repository defines (one
/// no Kustomization of the environment applies, or a bootstrap template)
/// is named in the message.
#[test]
fn dependson_missing_names_where_the_target_is_defined() {
    let d = common::scratch("check-dependson-elsewhere");
    common::copy_dir(&fixtures().join("dependson-missing/bad"), &d);
    let ks = |name: &str| {
        format!(
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: {name}\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ./nowhere\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n"
        )
    };
    let message = |d: &Path| {
        let (_, js) = check(d, &[]);
        let hits = with_rule(&js, "dependson-missing");
        assert_eq!(hits.len(), 1, "{js:#}");
        hits[0]["message"].as_str().unwrap().to_string()
    };
    let m = message(&d);
    assert!(
        m.ends_with("does not exist in this environment: it never becomes ready"),
        "{m}"
    );

    // A copy in a directory .gitignore excludes is in no clone: not named.
    common::write(&d, ".gitignore", "/build/\n");
    common::write(&d, "build/databse.yaml", &ks("databse"));
    let m = message(&d);
    assert!(
        m.ends_with("does not exist in this environment: it never becomes ready"),
        "{m}"
    );

    common::write(&d, "bootstrap/databse.yaml.templ", &ks("databse"));
    let m = message(&d);
    assert!(
        m.contains("(it is defined only in bootstrap/databse.yaml.templ, a template that bootstrap renders)"),
        "{m}"
    );

    common::write(&d, "other-cluster/databse.yaml", &ks("databse"));
    let m = message(&d);
    assert!(
        m.contains("(it is defined in other-cluster/databse.yaml, which no Kustomization of this environment applies)"),
        "{m}"
    );
}

/// A HelmRelease's dependsOn target and chart source defined under the
/// path of a Kustomization that fails to render (a substituteFrom Secret
/// created outside the repository): the render failure is the error; the
/// two knock-on findings are warnings that name the failed Kustomization,
/// not errors saying no Kustomization applies the file.
#[test]
fn missing_objects_behind_a_failed_kustomization_are_warnings() {
    let d = common::scratch("check-behind-failed");
    common::write(
        &d,
        "clusters/c/ks.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: infra\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./infra\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n  postBuild:\n    substituteFrom:\n      - kind: Secret\n        name: cluster-vars\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  dependsOn:\n    - name: infra\n  interval: 10m\n  path: ./apps\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n",
    );
    let release = |name: &str, depends: &str| {
        format!(
            "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: {name}\n  namespace: flux-system\nspec:\n  interval: 1h\n{depends}  chart:\n    spec:\n      chart: {name}\n      version: 1.0.0\n      sourceRef:\n        kind: HelmRepository\n        name: charts\n"
        )
    };
    // The failed Kustomization's path takes the file in from a directory
    // outside it.
    common::write(
        &d,
        "infra/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ../base/infra\n",
    );
    common::write(
        &d,
        "base/infra/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - infra.yaml\n",
    );
    common::write(
        &d,
        "base/infra/infra.yaml",
        &format!(
            "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: charts\n  namespace: flux-system\nspec:\n  interval: 1h\n  url: https://example.com/charts\n---\n{}",
            release("base", "")
        ),
    );
    common::write(
        &d,
        "apps/app.yaml",
        &release("app", "  dependsOn:\n    - name: base\n"),
    );
    let (code, js) = check(&d, &["--path", "clusters/c"]);
    assert_eq!(code, 1, "{js:#}");
    let failed = with_rule(&js, "render-failed");
    assert_eq!(failed.len(), 1, "{js:#}");
    assert_eq!(failed[0]["severity"], "error", "{js:#}");
    let behind = "(it is defined in base/infra/infra.yaml, which Kustomization flux-system/infra builds, which failed to render)";
    for (rule, says) in [
        (
            "dependson-missing",
            "depends on HelmRelease flux-system/base, which is not among the objects rendered offline ",
        ),
        (
            "chart-source-missing",
            "chart source HelmRepository flux-system/charts (spec.chart.spec.sourceRef) is not in this environment ",
        ),
    ] {
        let hits = with_rule(&js, rule);
        assert_eq!(hits.len(), 1, "{rule}: {js:#}");
        assert_eq!(hits[0]["severity"], "warning", "{rule}: {js:#}");
        let m = hits[0]["message"].as_str().unwrap();
        assert!(m.ends_with(&format!("{says}{behind}")), "{rule}: {m}");
    }
    // With the Secret given, everything renders and nothing is missing.
    common::write(
        &d,
        "settings/vars.yaml",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: cluster-vars\n  namespace: flux-system\nstringData: {}\n",
    );
    let vars = d.join("settings/vars.yaml");
    let (code, js) = check(
        &d,
        &["--path", "clusters/c", "--settings", vars.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{js:#}");
    for rule in ["render-failed", "dependson-missing", "chart-source-missing"] {
        assert!(with_rule(&js, rule).is_empty(), "{rule}: {js:#}");
    }
}

/// A missing target defined under the path of a Kustomization skipped
/// offline is applied by that one in the cluster: the finding is a
/// warning naming it, and the dependent still renders. A target defined
/// nowhere stays an error, skipped Kustomizations or not.
#[test]
fn dependson_missing_behind_a_skipped_kustomization_is_a_warning() {
    let d = common::scratch("check-dependson-skipped");
    common::copy_dir(&fixtures().join("dependson-missing/bad"), &d);
    edit(
        &d.join("kubernetes/apps/test/kustomization.yaml"),
        "  - ../base/database\n",
        "  - ../base/database\n  - ../base/extra\n",
    );
    common::write(
        &d,
        "kubernetes/apps/base/extra/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ./ks.yaml\n",
    );
    common::write(
        &d,
        "kubernetes/apps/base/extra/ks.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: extra\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ./kubernetes/apps/base/extra/app\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n",
    );
    // Skipped offline: it names a remote resource.
    common::write(
        &d,
        "kubernetes/apps/base/extra/app/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - https://example.com/crds.yaml\n",
    );
    let finding = |d: &Path, severity: &str| {
        let (code, js) = check(d, &[]);
        let hits = with_rule(&js, "dependson-missing");
        assert_eq!(hits.len(), 1, "{js:#}");
        assert_eq!(hits[0]["severity"], severity, "{js:#}");
        assert_eq!(code, i32::from(severity == "error"), "{js:#}");
        hits[0]["message"].as_str().unwrap().to_string()
    };
    let m = finding(&d, "error");
    assert!(
        m.ends_with("does not exist in this environment: it never becomes ready"),
        "{m}"
    );
    common::write(
        &d,
        "kubernetes/apps/base/extra/app/databse.yaml",
        &std::fs::read_to_string(d.join("kubernetes/apps/base/database/ks.yaml"))
            .unwrap()
            .replace("name: database", "name: databse"),
    );
    let m = finding(&d, "warning");
    assert!(
        m.ends_with(
            "depends on Kustomization flux-system/databse, which is not among the objects rendered offline (it is defined in kubernetes/apps/base/extra/app/databse.yaml, which Kustomization flux-system/extra builds, which was skipped offline)"
        ),
        "{m}"
    );
    // The same when the skipped Kustomization's source is the repository
    // under another name, given with --source.
    edit(
        &d.join("kubernetes/apps/base/extra/ks.yaml"),
        "    name: flux-system\n",
        "    name: repo\n",
    );
    let source = format!("--source=GitRepository/flux-system/repo={}", d.display());
    let (code, js) = check(&d, &[&source]);
    let hits = with_rule(&js, "dependson-missing");
    assert_eq!(hits.len(), 1, "{js:#}");
    assert_eq!(hits[0]["severity"], "warning", "{js:#}");
    assert_eq!(code, 0, "{js:#}");
    edit(
        &d.join("kubernetes/apps/base/extra/ks.yaml"),
        "    name: repo\n",
        "    name: flux-system\n",
    );
    // The dependent renders, with a warning.
    let out = flate(&["build", "test", "--repo", d.to_str().unwrap(), "-o", "json"]);
    let js: Value = serde_json::from_slice(&out.stdout).unwrap();
    let app = js["kustomizations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["name"] == "app")
        .unwrap();
    assert_eq!(app["status"], "rendered", "{app:#}");
    assert!(
        app["warnings"][0]
            .as_str()
            .unwrap()
            .starts_with("dependsOn target 'flux-system/databse' is not among the Kustomizations rendered offline: it is defined in kubernetes/apps/base/extra/app/databse.yaml, which Kustomization flux-system/extra builds"),
        "{app:#}"
    );
}

#[test]
fn dependson_cycle() {
    case("dependson-cycle");
}

#[test]
fn duplicate_object() {
    case("duplicate-object");
}

/// Two Kustomizations applying the very same object is a warning: only
/// kustomize-controller's owner labels change hands (docs/rules.md).
#[test]
fn identical_duplicates_are_warnings() {
    let d = common::scratch("check-identical-duplicate");
    common::copy_dir(&fixtures().join("duplicate-object/bad"), &d);
    let two = d.join("kubernetes/apps/base/two/app/configmap.yaml");
    let one =
        std::fs::read_to_string(d.join("kubernetes/apps/base/one/app/configmap.yaml")).unwrap();
    std::fs::write(&two, &one).unwrap();
    let (code, js) = check(&d, &[]);
    let hits = with_rule(&js, "duplicate-object");
    assert_eq!(hits.len(), 1, "{js:#}");
    assert_eq!(hits[0]["severity"], "warning", "{js:#}");
    assert!(
        hits[0]["message"]
            .as_str()
            .unwrap()
            .contains("the same object: each reconciliation labels it as the last one's"),
        "{js:#}"
    );
    assert_eq!(code, 0, "{js:#}");
    // A copy in a SOPS-encrypted file, which flate marks (it cannot
    // decrypt it) and kustomize-controller applies decrypted: the same.
    let sops = "sops:\n    age: []\n    mac: ENC[AES256_GCM,data:abc,iv:def,tag:ghi,type:str]\n    version: 3.9.0\n";
    std::fs::write(&two, format!("{one}{sops}")).unwrap();
    let (code, js) = check(&d, &[]);
    let hits = with_rule(&js, "duplicate-object");
    assert_eq!(hits[0]["severity"], "warning", "{js:#}");
    assert_eq!(code, 0, "{js:#}");
    // Different data: the error again.
    std::fs::write(&two, one.replace("value", "changed")).unwrap();
    let (code, js) = check(&d, &[]);
    let hits = with_rule(&js, "duplicate-object");
    assert_eq!(hits[0]["severity"], "error", "{js:#}");
    assert_eq!(code, 1);
}

/// A custom resource whose CRD says `scope: Cluster` is one object
/// whatever namespace `targetNamespace` gave it (the API server drops it):
/// two Kustomizations with different target namespaces applying it clash.
/// A namespaced custom resource in two namespaces is two objects.
#[test]
fn cluster_scoped_custom_resources_ignore_namespace() {
    let d = common::scratch("check-cluster-scoped-duplicate");
    common::copy_dir(&fixtures().join("duplicate-object/bad"), &d);
    let base = d.join("kubernetes/apps/base");
    common::edit(
        &base.join("two/ks.yaml"),
        "targetNamespace: default",
        "targetNamespace: other",
    );
    let crd = |scope: &str| {
        format!(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: issuers.example.com\nspec:\n  group: example.com\n  names:\n    kind: Issuer\n    plural: issuers\n  scope: {scope}\n  versions:\n    - name: v1\n      served: true\n      storage: true\n      schema:\n        openAPIV3Schema:\n          type: object\n          x-kubernetes-preserve-unknown-fields: true\n"
        )
    };
    let issuer = |server: &str| {
        format!(
            "apiVersion: example.com/v1\nkind: Issuer\nmetadata:\n  name: letsencrypt\nspec:\n  server: {server}\n"
        )
    };
    for (app, server) in [("one", "a"), ("two", "a")] {
        std::fs::write(base.join(app).join("app/configmap.yaml"), issuer(server)).unwrap();
    }
    // The CRD lives in a Kustomization of its own.
    let crds = d.join("kubernetes/apps/base/crds");
    std::fs::create_dir_all(&crds).unwrap();
    std::fs::write(crds.join("crd.yaml"), crd("Cluster")).unwrap();
    let ks_one = std::fs::read_to_string(base.join("one/ks.yaml")).unwrap();
    std::fs::write(
        base.join("one/crds-ks.yaml"),
        ks_one
            .replace("name: one", "name: crds")
            .replace("base/one/app", "base/crds")
            .replace("  targetNamespace: default\n", ""),
    )
    .unwrap();
    let kfile = base.join("one/kustomization.yaml");
    let k = std::fs::read_to_string(&kfile).unwrap();
    std::fs::write(&kfile, format!("{}\n  - ./crds-ks.yaml\n", k.trim_end())).unwrap();

    // The same object: a warning, named without a namespace.
    let (code, js) = check(&d, &[]);
    let hits = with_rule(&js, "duplicate-object");
    assert_eq!(hits.len(), 1, "{js:#}");
    let msg = hits[0]["message"].as_str().unwrap();
    assert!(
        msg.starts_with("Issuer letsencrypt is produced by"),
        "{js:#}"
    );
    assert_eq!(hits[0]["severity"], "warning", "{js:#}");
    assert_eq!(code, 0, "{js:#}");
    // Different specs: they overwrite each other.
    std::fs::write(base.join("two/app/configmap.yaml"), issuer("b")).unwrap();
    let (code, js) = check(&d, &[]);
    let hits = with_rule(&js, "duplicate-object");
    assert_eq!(hits.len(), 1, "{js:#}");
    assert_eq!(hits[0]["severity"], "error", "{js:#}");
    assert_eq!(code, 1, "{js:#}");
    // A namespaced kind: one object in each namespace, no clash.
    std::fs::write(crds.join("crd.yaml"), crd("Namespaced")).unwrap();
    let (_, js) = check(&d, &[]);
    assert!(with_rule(&js, "duplicate-object").is_empty(), "{js:#}");
}

#[test]
fn chart_source_missing() {
    case("chart-source-missing");
}

#[test]
fn valuesfrom_missing() {
    case("valuesfrom-missing");
}

/// A key missing from a ConfigMap or Secret of the repository is an
/// error, unless its data is written at runtime: a service account token
/// Secret's `token`, `ca.crt` and `namespace`, and any key of an object
/// with no data at all (a placeholder an operator or Reflector fills).
#[test]
fn valuesfrom_key_missing_unless_written_at_runtime() {
    let d = scratch(
        &fixtures().join("valuesfrom-missing/good"),
        "valuesfrom-keys",
    );
    let app = "kubernetes/apps/base/app/app";
    edit(
        &d.join(app).join("helmrelease.yaml"),
        "  valuesFrom:\n",
        "  valuesFrom:\n    - kind: Secret\n      name: sa-token\n      valuesKey: token\n      targetPath: grafana.token\n    - kind: Secret\n      name: placeholder\n      valuesKey: token\n      targetPath: other.token\n    - kind: Secret\n      name: written\n      valuesKey: token\n      targetPath: third.token\n",
    );
    edit(
        &d.join(app).join("kustomization.yaml"),
        "resources:\n",
        "resources:\n  - ./secrets.yaml\n",
    );
    common::write(
        &d,
        &format!("{app}/secrets.yaml"),
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: sa-token\n  annotations:\n    kubernetes.io/service-account.name: grafana\ntype: kubernetes.io/service-account-token\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: placeholder\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: written\nstringData:\n  password: x\n",
    );
    let (code, js) = check(&d, &[]);
    let hits = with_rule(&js, "valuesfrom-missing");
    assert_eq!(hits.len(), 1, "{js:#}");
    assert_eq!(hits[0]["severity"], "error", "{js:#}");
    assert!(
        hits[0]["message"]
            .as_str()
            .unwrap()
            .contains("Secret default/written has no key \"token\""),
        "{js:#}"
    );
    assert_eq!(code, 1);
}

#[test]
fn substitutefrom_bootstrap() {
    case("substitutefrom-bootstrap");
}

#[test]
fn sops_decryption_missing() {
    case("sops-decryption-missing");
}

#[test]
fn targetnamespace_mismatch() {
    case("targetnamespace-mismatch");
}

#[test]
fn patch_target_unmatched() {
    case("patch-target-unmatched");
}

#[test]
fn patch_overrides_value() {
    case("patch-overrides-value");
}

#[test]
fn kustomize_patch_unmatched() {
    case("kustomize-patch-unmatched");
}

/// A kustomization one of whose resources holds no object yet (a
/// placeholder `gotk-components.yaml`, as Flux's example repositories
/// commit it before `flux bootstrap` writes it) gets warnings, naming the
/// file, instead of errors: the patch may select what the file will hold.
#[test]
fn kustomize_patch_unmatched_beside_an_empty_resource_warns() {
    let t = tempfile::tempdir().unwrap();
    common::copy_dir(&fixtures().join("kustomize-patch-unmatched/bad"), t.path());
    let app = t.path().join("kubernetes/apps/test/app");
    std::fs::write(
        app.join("gotk-components.yaml"),
        "# This file will be generated automatically by flux bootstrap.\n",
    )
    .unwrap();
    let k = std::fs::read_to_string(app.join("kustomization.yaml")).unwrap();
    let k = k.replace(
        "  - ../../base/app/app\n",
        "  - ../../base/app/app\n  - gotk-components.yaml\n",
    );
    std::fs::write(app.join("kustomization.yaml"), k).unwrap();
    let (code, js) = check(t.path(), &[]);
    let hits = with_rule(&js, "kustomize-patch-unmatched");
    assert_eq!(hits.len(), 2, "{js:#}");
    for f in &hits {
        assert_eq!(f["severity"], "warning", "{f}");
        assert!(
            f["message"]
                .as_str()
                .unwrap()
                .contains("resource gotk-components.yaml holds no object"),
            "{f}"
        );
    }
    assert_eq!(code, 0, "{js:#}");
}

#[test]
fn image_unpinned() {
    case("image-unpinned");
}

/// A removed Flux API version is a warning while the environment does not
/// say which Flux it runs, an error when it runs one that refuses it, and
/// nothing when it runs one that still serves it.
#[test]
fn flux_api_removed() {
    case("flux-api-removed");
    let d = common::scratch("check-flux-api-removed");
    common::copy_dir(&fixtures().join("flux-api-removed/bad"), &d);
    let instance = |version: &str| {
        format!(
            "apiVersion: fluxcd.controlplane.io/v1\nkind: FluxInstance\nmetadata:\n  name: flux\n  namespace: flux-system\nspec:\n  distribution:\n    version: \"{version}\"\n    registry: ghcr.io/fluxcd\n"
        )
    };
    let app = d.join("kubernetes/apps/base/app/app");
    std::fs::write(
        app.join("kustomization.yaml"),
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ./sources.yaml\n  - ./instance.yaml\n",
    )
    .unwrap();
    // Flux 2.8 no longer serves the HelmRepository's v1beta2; it still
    // serves the Alert's (until 2.9).
    std::fs::write(app.join("instance.yaml"), instance("2.8.x")).unwrap();
    let (code, js) = check(&d, &[]);
    let hits = with_rule(&js, "flux-api-removed");
    assert_eq!(code, 1, "{js:#}");
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0]["severity"], "error");
    let msg = hits[0]["message"].as_str().unwrap();
    assert!(
        msg.starts_with("HelmRepository default/charts: source.toolkit.fluxcd.io/v1beta2 is not served since Flux 2.8: this cluster runs Flux 2.8 (FluxInstance default/flux (2.8.x)), which refuses it; write apiVersion source.toolkit.fluxcd.io/v1"),
        "{msg}"
    );
    // `2.x` installs the newest: both are refused.
    std::fs::write(app.join("instance.yaml"), instance("2.x")).unwrap();
    let (_, js) = check(&d, &[]);
    let hits = with_rule(&js, "flux-api-removed");
    assert_eq!(hits.len(), 2, "{hits:?}");
    assert!(hits.iter().all(|f| f["severity"] == "error"));
    // Flux 2.7 serves both.
    std::fs::write(app.join("instance.yaml"), instance("2.7.2")).unwrap();
    let (code, js) = check(&d, &[]);
    assert!(with_rule(&js, "flux-api-removed").is_empty(), "{js:#}");
    assert_eq!(code, 0, "{js:#}");
}

#[test]
fn talos_spec_invalid() {
    case("talos-spec-invalid");
}

#[test]
fn talos_spec_that_is_not_yaml_is_a_finding_at_its_line() {
    let d = scratch(&fixtures().join("talos-spec-invalid/good"), "talos-yaml");
    let spec = d.join("kubernetes/clusters/test/talos.yaml");
    edit(
        &spec,
        "  domain: test.example.net",
        "  domain: [test.example.net",
    );
    let (code, js) = check(&d, &[]);
    assert_eq!(code, 1, "{js:#}");
    let hits = with_rule(&js, "talos-spec-invalid");
    assert_eq!(hits.len(), 1, "{js:#}");
    assert_eq!(hits[0]["file"], "kubernetes/clusters/test/talos.yaml");
    assert!(hits[0]["line"].as_u64().unwrap() >= 12, "{:#}", hits[0]);
    assert!(
        hits[0]["message"]
            .as_str()
            .unwrap()
            .contains("not valid YAML"),
        "{:#}",
        hits[0]
    );
    // The Flux tree still renders and is checked.
    assert!(js["summary"]["validated"].as_u64().unwrap() > 0, "{js:#}");
}

#[test]
fn talos_mismatch() {
    case("talos-mismatch");
    // The message names the check and both sides.
    let (_, js) = check(&fixtures().join("talos-mismatch/bad"), &[]);
    let f = with_rule(&js, "talos-mismatch")[0];
    let msg = f["message"].as_str().unwrap();
    assert!(msg.starts_with("envoy-nodeport: "), "{msg}");
    assert!(
        msg.contains("30443/tcp") && msg.contains("NodePort 30444"),
        "{msg}"
    );
    assert_eq!(f["path"], "network.envoyNodePort");
}

fn scratch(from: &Path, name: &str) -> common::Scratch {
    let d = common::scratch(&format!("check-{name}"));
    common::copy_dir(from, &d);
    d
}

fn edit(path: &Path, from: &str, to: &str) {
    let s = std::fs::read_to_string(path).unwrap();
    assert!(s.contains(from), "{} lacks {from:?}", path.display());
    std::fs::write(path, s.replacen(from, to, 1)).unwrap();
}

#[test]
fn annotation_opts_an_object_out() {
    let d = scratch(&fixtures().join("image-unpinned/bad"), "optout");
    edit(
        &d.join("kubernetes/apps/base/app/app/deployment.yaml"),
        "  name: web\n",
        "  name: web\n  annotations:\n    flate.dev/disable: schema-invalid, image-unpinned\n",
    );
    let (code, js) = check(&d, &[]);
    assert!(with_rule(&js, "image-unpinned").is_empty(), "{js:#}");
    assert_eq!(code, 0);
    // On a Kustomization, for the rules about it.
    let d = scratch(&fixtures().join("dependson-missing/bad"), "optout-ks");
    edit(
        &d.join("kubernetes/apps/base/app/ks.yaml"),
        "  namespace: flux-system\n",
        "  namespace: flux-system\n  annotations:\n    flate.dev/disable: dependson-missing\n",
    );
    let (_, js) = check(&d, &[]);
    assert!(with_rule(&js, "dependson-missing").is_empty(), "{js:#}");
}

#[test]
fn example_tree_passes() {
    let (code, js) = check(&root(), &[]);
    assert_eq!(js["summary"]["errors"], 0, "{js:#}");
    // Nor warnings: the tree flate was designed for is written as such
    // repositories should be, so a warning on it is a false alarm.
    assert_eq!(js["summary"]["warnings"], 0, "{js:#}");
    assert_eq!(code, 0);
    assert_eq!(
        js["environments"],
        serde_json::json!(["production", "staging"])
    );
    // Every built-in and Flux object has a schema; CRs of charts not in the
    // tree are listed, not failed.
    assert!(js["summary"]["validated"].as_u64().unwrap() > 200);
    let no_schema: Vec<&str> = js["noSchema"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["kind"].as_str().unwrap())
        .collect();
    for k in [
        "Deployment",
        "HelmRelease",
        "OCIRepository",
        "Kustomization",
        "Namespace",
    ] {
        assert!(!no_schema.contains(&k), "{k} has no schema");
    }
    // The multus CRD rendered in the tree validates its custom resources.
    assert!(!no_schema.contains(&"NetworkAttachmentDefinition"));
}

#[test]
fn text_and_sarif_output() {
    let bad = fixtures().join("duplicate-object/bad");
    let o = flate(&["check", "--repo", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("kubernetes/apps/base/two/app/configmap.yaml:4: error[duplicate-object]: "),
        "{text}"
    );
    assert!(
        text.ends_with("1 error, 0 warnings in 1 environment (10 objects validated)\n"),
        "{text}"
    );
    let o = flate(&["check", "--repo", bad.to_str().unwrap(), "-o", "sarif"]);
    let s: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(s["version"], "2.1.0");
    let run = &s["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "flate");
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), flate::check::RULES.len());
    let r = &run["results"][0];
    assert_eq!(r["ruleId"], "duplicate-object");
    assert_eq!(r["level"], "error");
    assert_eq!(
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "kubernetes/apps/base/two/app/configmap.yaml"
    );
    assert_eq!(
        r["locations"][0]["physicalLocation"]["region"]["startLine"],
        4
    );
    assert_eq!(
        rules[r["ruleIndex"].as_u64().unwrap() as usize]["id"],
        "duplicate-object"
    );
}

#[test]
fn usage_errors_exit_2() {
    let bad = fixtures().join("duplicate-object/bad");
    let repo = bad.to_str().unwrap();
    let o = flate(&["check", "--repo", repo, "--disable", "no-such-rule"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown rule"));
    let o = flate(&["check", "nowhere", "--repo", repo]);
    assert_eq!(o.status.code(), Some(2));
    let o = flate(&["check", "--repo", repo, "--schema-dir", "/nonexistent/dir"]);
    assert_eq!(o.status.code(), Some(2));
    let o = flate(&["check", "--repo", repo, "--schema-dir", "/x/{{.Nope}}.json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown variable"));
    let o = flate(&["check", "--list-rules"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).lines().count(),
        flate::check::RULES.len()
    );
}

fn write(root: &Path, files: &[(&str, &str)]) {
    for (p, t) in files {
        let p = root.join(p);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, t).unwrap();
    }
}

#[test]
fn variables_unset_offline_are_warnings_down_to_their_schema_errors() {
    let d = common::scratch("check-offline");
    let ks = |from: &str| {
        format!(
            "apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: net
  namespace: flux-system
spec:
  interval: 1h
  path: ./kubernetes/apps/net
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
  postBuild:
    substitute:
      NAME: mesh
{from}"
        )
    };
    let optional = "    substituteFrom:\n      - kind: ConfigMap\n        name: bootstrap-settings\n        optional: true\n";
    write(
        &d,
        &[
            (
                "kubernetes/clusters/test/kustomization.yaml",
                "resources: [ks.yaml]\n",
            ),
            ("kubernetes/clusters/test/ks.yaml", &ks(optional)),
            (
                "kubernetes/apps/net/cidr.yaml",
                "apiVersion: networking.k8s.io/v1\nkind: ServiceCIDR\nmetadata:\n  name: ${NAME}\nspec:\n  cidrs:\n    - ${SERVICE_CIDR}\n",
            ),
            // A required field written with only a variable is null once
            // the variable is empty: the error names its parent.
            (
                "kubernetes/apps/net/pv.yaml",
                "apiVersion: v1\nkind: PersistentVolume\nmetadata:\n  name: media\nspec:\n  capacity:\n    storage: 1Gi\n  accessModes: [ReadWriteMany]\n  nfs:\n    path: /media\n    server: ${NFS_HOST}\n",
            ),
        ],
    );
    let (code, js) = check(&d, &[]);
    assert_eq!(code, 0, "{js:#}");
    let pv = with_rule(&js, "schema-invalid")
        .into_iter()
        .find(|f| f["message"].as_str().unwrap().contains("PersistentVolume"))
        .expect("the PersistentVolume's finding");
    assert_eq!(pv["severity"], "warning", "{pv:#}");
    assert!(
        pv["message"]
            .as_str()
            .unwrap()
            .contains("\"server\" is a required property (the field is substituted and ${NFS_HOST} is unset offline)"),
        "{pv:#}"
    );
    // Located at the variable, not at `nfs:`.
    assert_eq!(location(pv), "kubernetes/apps/net/pv.yaml:11");
    let cidr = |js: &serde_json::Value| -> Vec<serde_json::Value> {
        with_rule(js, "schema-invalid")
            .into_iter()
            .filter(|f| !f["message"].as_str().unwrap().contains("PersistentVolume"))
            .cloned()
            .collect()
    };
    let v: Vec<_> = with_rule(&js, "unresolved-variable")
        .into_iter()
        .filter(|f| f["message"].as_str().unwrap().contains("SERVICE_CIDR"))
        .collect();
    assert_eq!(v.len(), 1);
    assert_eq!(v[0]["severity"], "warning");
    assert!(
        v[0]["message"]
            .as_str()
            .unwrap()
            .contains("optional ConfigMap/bootstrap-settings")
    );
    assert_eq!(location(v[0]), "kubernetes/apps/net/cidr.yaml:7");
    let s = cidr(&js);
    assert_eq!(s.len(), 1, "{js:#}");
    assert_eq!(s[0]["severity"], "warning");
    assert_eq!(s[0]["path"], "spec.cidrs[0]");
    // Without the optional source, nothing can set it: errors.
    write(&d, &[("kubernetes/clusters/test/ks.yaml", &ks(""))]);
    let (code, js) = check(&d, &[]);
    assert_eq!(code, 1);
    assert!(
        with_rule(&js, "unresolved-variable")
            .iter()
            .all(|f| f["severity"] == "error")
    );
    assert!(
        with_rule(&js, "schema-invalid")
            .iter()
            .all(|f| f["severity"] == "error")
    );
    assert_eq!(with_rule(&js, "schema-invalid").len(), 2);
}

/// A patch a parent writes into every child Kustomization (its own
/// `spec.patches` of `kind: Kustomization`), targeting a named object that
/// only some children render, is a broadcast: no finding while one child
/// matches it, one finding (not one per child) when none does.
#[test]
fn patch_target_unmatched_of_a_patch_every_child_carries() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    let put = |rel: &str, text: &str| common::write(d, rel, text);
    put(
        "kubernetes/clusters/test/kustomization.yaml",
        "resources:\n  - apps.yaml\n",
    );
    put(
        "kubernetes/clusters/test/apps.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: apps
  namespace: flux-system
spec:
  interval: 1h
  path: ./kubernetes/apps
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
  patches:
    - patch: |-
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata:
          name: _
        spec:
          patches:
            - patch: |-
                apiVersion: v1
                kind: ConfigMap
                metadata:
                  name: _
                data:
                  level: debug
              target:
                kind: ConfigMap
                name: (special|other)
      target:
        group: kustomize.toolkit.fluxcd.io
        kind: Kustomization
",
    );
    put(
        "kubernetes/apps/kustomization.yaml",
        "resources:\n  - a/ks.yaml\n  - b/ks.yaml\n  - c/ks.yaml\n",
    );
    for (app, cm) in [("a", "special"), ("b", "plain"), ("c", "plain")] {
        put(
            &format!("kubernetes/apps/{app}/ks.yaml"),
            &format!(
                "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: {app}\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ./kubernetes/apps/{app}/app\n  prune: true\n  targetNamespace: default\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n"
            ),
        );
        put(
            &format!("kubernetes/apps/{app}/app/cm.yaml"),
            &format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {cm}\ndata:\n  a: b\n"),
        );
    }
    let (_, js) = check(d, &[]);
    assert!(
        with_rule(&js, "patch-target-unmatched").is_empty(),
        "{js:#}"
    );

    // No child renders `special` any more: one finding for the three.
    put(
        "kubernetes/apps/a/app/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: renamed\ndata:\n  a: b\n",
    );
    let (code, js) = check(d, &[]);
    let hits = with_rule(&js, "patch-target-unmatched");
    assert_eq!(hits.len(), 1, "{js:#}");
    assert!(
        hits[0]["message"].as_str().unwrap().contains(
            "but neither it nor any of the other 2 Kustomizations of flux-system/apps carrying the same patch renders such an object"
        ),
        "{js:#}"
    );
    assert_eq!(code, 1);
}

/// `patch-overrides-value` compares scalar fields of patches for many
/// objects only: not values written with `${...}`, a JSON6902 patch, a
/// list, an object that opts out, nor a patch that names its object (with
/// a target, or without one).
#[test]
fn patch_overrides_value_cases() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    let put = |rel: &str, text: &str| common::write(d, rel, text);
    put(
        "kubernetes/clusters/test/kustomization.yaml",
        "resources:\n  - app.yaml\n",
    );
    put(
        "kubernetes/clusters/test/app.yaml",
        r#"apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: app
  namespace: flux-system
spec:
  interval: 1h
  path: ./kubernetes/app
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
  postBuild:
    substitute:
      LEVEL: info
  patches:
    # Every ConfigMap.
    - patch: |-
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: any
        data:
          mode: fast
          level: debug
          same: kept
          list: changed
      target:
        kind: ConfigMap
    - patch: |-
        - op: replace
          path: /data/other
          value: replaced
      target:
        kind: ConfigMap
        name: settings
    - patch: |-
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: web
        spec:
          replicas: 3
          template:
            spec:
              containers:
                - name: web
                  image: web:2
      target:
        kind: Deployment
    # Patches that name their object mean to replace its values.
    - patch: |-
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: any
        data:
          named: by-target
      target:
        kind: ConfigMap
        name: settings
    - patch: |-
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: settings
          namespace: default
        data:
          untargeted: by-name
"#,
    );
    put(
        "kubernetes/app/kustomization.yaml",
        "resources:\n  - settings.yaml\n  - web.yaml\n  - quiet.yaml\n",
    );
    put(
        "kubernetes/app/settings.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: default\ndata:\n  mode: safe\n  level: ${LEVEL}\n  same: kept\n  other: mine\n  named: mine\n  untargeted: mine\n",
    );
    put(
        "kubernetes/app/web.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: default\nspec:\n  replicas: 1\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n        - name: web\n          image: web:1\n",
    );
    put(
        "kubernetes/app/quiet.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: quiet\n  namespace: default\n  annotations:\n    flate.dev/disable: patch-overrides-value\nspec:\n  replicas: 1\n  selector:\n    matchLabels:\n      app: quiet\n  template:\n    metadata:\n      labels:\n        app: quiet\n    spec:\n      containers:\n        - name: quiet\n          image: quiet:1\n",
    );
    let (code, js) = check(d, &[]);
    let hits = with_rule(&js, "patch-overrides-value");
    let found: Vec<(String, String)> = hits
        .iter()
        .map(|f| (location(f), f["path"].as_str().unwrap().to_string()))
        .collect();
    // mode and the Deployment's replicas; not level (written with a
    // variable), same (equal), other (JSON6902), the containers list, the
    // Deployment that opts out, named and untargeted (named patches).
    assert_eq!(
        found,
        [
            (
                "kubernetes/app/settings.yaml:7".to_string(),
                "data.mode".to_string()
            ),
            (
                "kubernetes/app/web.yaml:7".to_string(),
                "spec.replicas".to_string()
            ),
        ],
        "{js:#}"
    );
    assert!(
        hits[0]["message"].as_str().unwrap().contains(
            "ConfigMap default/settings: data.mode is written as safe here, but the cluster gets fast: Kustomization flux-system/app spec.patches[0] (kubernetes/clusters/test/app.yaml:"
        ),
        "{:#}",
        hits[0]
    );
    assert!(hits.iter().all(|f| f["severity"] == "warning"));
    assert_eq!(code, 0, "{js:#}");
}

/// Objects from a `--source` directory outside the repository (or the
/// repository itself reached through a symlink) are checked with their
/// files read: a finding that needs the file is made, and located there.
#[test]
fn source_directories_outside_the_repository_are_read() {
    let t = tempfile::tempdir().unwrap();
    let repo = t.path().join("repo");
    let other = t.path().join("other");
    common::write(
        &repo,
        "kubernetes/clusters/test/kustomization.yaml",
        "resources:\n  - app.yaml\n",
    );
    common::write(
        &repo,
        "kubernetes/clusters/test/app.yaml",
        "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: other\n  namespace: flux-system\nspec:\n  interval: 1h\n  url: https://example.com/other.git\n  ref:\n    branch: main\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: app\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ./app\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: other\n  patches:\n    - patch: |-\n        apiVersion: v1\n        kind: ConfigMap\n        metadata:\n          name: any\n        data:\n          mode: fast\n      target:\n        kind: ConfigMap\n",
    );
    common::write(
        &other,
        "app/kustomization.yaml",
        "resources:\n  - settings.yaml\n",
    );
    common::write(
        &other,
        "app/settings.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: default\ndata:\n  mode: safe\n",
    );
    #[cfg(unix)]
    std::os::unix::fs::symlink(&other, t.path().join("link")).unwrap();
    let mut dirs = vec![other.clone()];
    #[cfg(unix)]
    dirs.push(t.path().join("link"));
    for dir in dirs {
        let source = format!("GitRepository/flux-system/other={}", dir.display());
        let (_, js) = check(&repo, &["--source", &source]);
        let hits = with_rule(&js, "patch-overrides-value");
        assert_eq!(hits.len(), 1, "{}: {js:#}", dir.display());
        assert_eq!(
            location(hits[0]),
            format!("{}:7", dir.join("app/settings.yaml").display()),
            "{js:#}"
        );
    }
}

/// A chart that calls `lookup` and fails offline on what it found nothing
/// of (an index into the empty result) fails in `helm template` too, but
/// helm-controller asks the cluster: a warning that says so. A failure the
/// chart means (`required`) stays an error. A schema error of an object
/// such a chart renders says that the chart calls lookup.
#[test]
fn render_failed_after_lookup_is_a_warning() {
    let t = tempfile::tempdir().unwrap();
    let ks = "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./kubernetes/apps\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n";
    let hr = |name: &str, required: bool| {
        format!(
            "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: {name}\n  namespace: default\nspec:\n  interval: 1h\n  chart:\n    spec:\n      chart: ./kubernetes/charts/np\n      sourceRef:\n        kind: GitRepository\n        name: flux-system\n        namespace: flux-system\n  values:\n    needName: {required}\n"
        )
    };
    let template = "{{- if .Values.needName }}\nname: {{ required \"name is required\" .Values.name }}\n{{- end }}\n{{- $ep := index (lookup \"v1\" \"Endpoints\" \"default\" \"kubernetes\").subsets 0 }}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: np\ndata:\n  ip: {{ (index $ep.addresses 0).ip }}\n";
    write(
        t.path(),
        &[
            ("kubernetes/clusters/test/apps.yaml", ks),
            ("kubernetes/apps/lookup.yaml", &hr("lookup", false)),
            ("kubernetes/apps/required.yaml", &hr("required", true)),
            (
                "kubernetes/charts/np/Chart.yaml",
                "apiVersion: v2\nname: np\nversion: 0.1.0\n",
            ),
            ("kubernetes/charts/np/templates/cm.yaml", template),
        ],
    );
    let (_, js) = check(t.path(), &[]);
    let hits = with_rule(&js, "render-failed");
    let of = |name: &str| {
        hits.iter()
            .find(|f| {
                f["message"]
                    .as_str()
                    .unwrap()
                    .starts_with(&format!("HelmRelease default/{name}:"))
            })
            .unwrap_or_else(|| panic!("no render-failed for {name}: {js:#}"))
    };
    let lookup = of("lookup");
    assert_eq!(lookup["severity"], "warning", "{lookup}");
    let msg = lookup["message"].as_str().unwrap();
    assert!(msg.contains("index of untyped nil"), "{msg}");
    assert!(
        msg.contains("the chart calls lookup, which finds nothing offline"),
        "{msg}"
    );
    let required = of("required");
    assert_eq!(required["severity"], "error", "{required}");
    assert!(
        required["message"]
            .as_str()
            .unwrap()
            .contains("name is required")
    );

    // A chart that renders without what `lookup` would find: a schema
    // error of its objects says the chart calls lookup.
    let netpol = "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: dns\nspec:\n  podSelector: {}\n  egress:\n    - to:\n        - ipBlock:\n            {{- with dig \"spec\" \"clusterIP\" \"\" (lookup \"v1\" \"Service\" \"kube-system\" \"kube-dns\") }}\n            cidr: {{ . }}/32\n            {{- end }}\n            except: []\n";
    std::fs::remove_file(t.path().join("kubernetes/apps/lookup.yaml")).unwrap();
    std::fs::remove_file(t.path().join("kubernetes/apps/required.yaml")).unwrap();
    write(
        t.path(),
        &[
            ("kubernetes/charts/np/templates/cm.yaml", netpol),
            ("kubernetes/apps/dns.yaml", &hr("dns", false)),
        ],
    );
    let (_, js) = check(t.path(), &[]);
    let hits = with_rule(&js, "schema-invalid");
    assert_eq!(hits.len(), 1, "{js:#}");
    let msg = hits[0]["message"].as_str().unwrap();
    assert!(
        msg.ends_with("(the chart of HelmRelease default/dns calls lookup, which finds nothing offline: a value it reads from the cluster may be missing here)"),
        "{msg}"
    );
}
