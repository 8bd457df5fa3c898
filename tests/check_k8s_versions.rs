//! `flate check --kubernetes-version`: built-in kinds checked against the
//! embedded schemas of one Kubernetes minor version (1.33 to 1.36); the
//! default is the Talos spec's version, else the newest.

mod common;

use std::path::Path;
use std::process::Command;

use flate::check::schema::{
    CrdSchemas, KUBERNETES_VERSION, KUBERNETES_VERSIONS, SchemaOptions, SchemaSet,
    embedded_version, kubernetes_version, nearest_version, unserved_in, validate_object_in,
    versions_serving,
};
use flate::resource::{Origin, Resource};
use serde_json::Value;

/// Kubernetes 1.36 serves MutatingAdmissionPolicy as
/// admissionregistration.k8s.io/v1; 1.33 only as v1alpha1.
const MAP_V1: &str = r#"apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: add-team-label
spec:
  failurePolicy: Fail
  reinvocationPolicy: IfNeeded
  matchConstraints:
    resourceRules:
      - apiGroups: [apps]
        apiVersions: [v1]
        operations: [CREATE]
        resources: [deployments]
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: 'Object{metadata: Object.metadata{labels: {"team": "web"}}}'
"#;

/// Served by Kubernetes 1.33, removed in 1.35.
const REMOVED: &str = r#"apiVersion: storagemigration.k8s.io/v1alpha1
kind: StorageVersionMigration
metadata:
  name: secrets
spec:
  resource:
    group: ""
    version: v1
    resource: secrets
"#;

fn object(yaml: &str) -> Resource {
    Resource::new(flate::yaml::parse_one(yaml).unwrap(), Origin::default())
}

fn flate(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_flate"))
        .args(args)
        .output()
        .expect("run flate")
}

/// A one-cluster repository whose root holds `objects`.
fn repo(d: &Path, objects: &str, talos: Option<&str>) {
    let w = |p: &str, t: &str| {
        let p = d.join(p);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, t).unwrap();
    };
    w(
        "kubernetes/clusters/test/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [objects.yaml]\n",
    );
    w("kubernetes/clusters/test/objects.yaml", objects);
    if let Some(t) = talos {
        w("kubernetes/clusters/test/talos.yaml", t);
    }
}

/// (exit code, schema-invalid messages).
fn check(repo: &Path, args: &[&str]) -> (i32, Vec<String>) {
    let mut all = vec!["check", "--repo", repo.to_str().unwrap(), "-o", "json"];
    all.extend_from_slice(args);
    let o = flate(&all);
    let js: Value = serde_json::from_slice(&o.stdout).unwrap_or(Value::Null);
    let msgs = js["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["rule"] == "schema-invalid")
        .map(|f| f["message"].as_str().unwrap().to_string())
        .collect();
    (o.status.code().unwrap_or(-1), msgs)
}

#[test]
fn every_embedded_version_loads_and_the_default_is_the_newest() {
    assert_eq!(KUBERNETES_VERSIONS, ["1.33", "1.34", "1.35", "1.36"]);
    assert_eq!(KUBERNETES_VERSION, "1.36");
    for v in KUBERNETES_VERSIONS {
        let k = kubernetes_version(v).unwrap();
        assert_eq!(k.version, *v);
        for kind in ["v1/Pod", "apps/v1/Deployment", "batch/v1/CronJob"] {
            assert!(k.kinds.contains_key(kind), "{v}: {kind}");
        }
    }
}

#[test]
fn version_names_and_the_nearest_embedded_version() {
    assert_eq!(embedded_version("1.34"), Ok("1.34"));
    assert_eq!(embedded_version("v1.35.2"), Ok("1.35"));
    let e = embedded_version("1.20").unwrap_err();
    assert!(e.contains("1.33, 1.34, 1.35, 1.36"), "{e}");
    assert_eq!(nearest_version("v1.35.2"), ("1.35", true));
    assert_eq!(nearest_version("v1.31.0"), ("1.33", false));
    assert_eq!(nearest_version("v1.40.1"), ("1.36", false));
}

#[test]
fn mutating_admission_policy_v1_is_valid_on_1_36_and_not_served_on_1_33() {
    let set = SchemaSet::new(SchemaOptions::default());
    let o = object(MAP_V1);
    let none = CrdSchemas::default();
    let e = validate_object_in(&set, "1.36", &o, &none).unwrap();
    assert_eq!(e, Some(vec![]));
    for v in ["1.33", "1.34", "1.35"] {
        assert_eq!(validate_object_in(&set, v, &o, &none).unwrap(), None, "{v}");
    }
    let served = unserved_in(
        "1.33",
        "admissionregistration.k8s.io/v1",
        "MutatingAdmissionPolicy",
    );
    assert_eq!(
        served,
        Some(vec!["admissionregistration.k8s.io/v1alpha1".to_string()])
    );
    assert_eq!(
        unserved_in(
            "1.36",
            "admissionregistration.k8s.io/v1",
            "MutatingAdmissionPolicy"
        ),
        None
    );
    assert_eq!(
        versions_serving("admissionregistration.k8s.io/v1", "MutatingAdmissionPolicy"),
        vec!["1.36"]
    );
    assert_eq!(
        versions_serving(
            "storagemigration.k8s.io/v1alpha1",
            "StorageVersionMigration"
        ),
        vec!["1.33", "1.34"]
    );
    // A kind 1.33 has in no version at all, but a newer embedded one has.
    assert_eq!(
        unserved_in("1.33", "scheduling.k8s.io/v1alpha2", "Workload"),
        Some(vec![])
    );
    assert_eq!(
        unserved_in("1.36", "scheduling.k8s.io/v1alpha2", "Workload"),
        None
    );
    assert_eq!(unserved_in("1.33", "example.com/v1", "Widget"), None);
    // A field of the 1.36 schema is still checked.
    let bad = object(&MAP_V1.replace("failurePolicy: Fail", "failurePolicy: Fail\n  nope: 1"));
    let e = validate_object_in(&set, "1.36", &bad, &none)
        .unwrap()
        .unwrap();
    assert!(e.iter().any(|x| x.path == "spec.nope"), "{e:?}");
}

#[test]
fn check_cli_kubernetes_version() {
    let d = common::scratch("k8sver-cli");
    repo(&d, MAP_V1, None);
    // Default without a Talos spec: the newest.
    assert_eq!(check(&d, &[]), (0, vec![]));
    assert_eq!(check(&d, &["--kubernetes-version", "1.36"]), (0, vec![]));
    let (code, msgs) = check(&d, &["--kubernetes-version", "1.33"]);
    assert_eq!(code, 1);
    assert_eq!(
        msgs,
        vec![
            "MutatingAdmissionPolicy add-team-label: admissionregistration.k8s.io/v1 is not served by Kubernetes 1.33 (served: admissionregistration.k8s.io/v1alpha1)"
        ]
    );
    // Not embedded: exit 2 with the list.
    let o = flate(&[
        "check",
        "--repo",
        d.to_str().unwrap(),
        "--kubernetes-version",
        "1.20",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("embedded: 1.33, 1.34, 1.35, 1.36"), "{err}");
}

#[test]
fn talos_spec_version_is_the_default() {
    let d = common::scratch("k8sver-talos");
    // Only the field read here; the rest of the spec is another rule's business.
    repo(&d, MAP_V1, Some("cluster:\n  kubernetesVersion: v1.33.4\n"));
    let (code, msgs) = check(&d, &[]);
    assert_eq!(code, 1);
    assert!(
        msgs.iter()
            .any(|m| m.contains("is not served by Kubernetes 1.33")),
        "{msgs:?}"
    );
    // The flag wins over the spec.
    let (_, msgs) = check(&d, &["--kubernetes-version", "1.36"]);
    assert_eq!(msgs, Vec::<String>::new());
}

#[test]
fn removed_api_is_an_error_on_the_versions_that_no_longer_serve_it() {
    let d = common::scratch("k8sver-removed");
    repo(&d, REMOVED, None);
    assert_eq!(check(&d, &["--kubernetes-version", "1.33"]), (0, vec![]));
    let (code, msgs) = check(&d, &["--kubernetes-version", "1.36"]);
    assert_eq!(code, 1);
    assert_eq!(msgs.len(), 1, "{msgs:?}");
    assert!(
        msgs[0].starts_with(
            "StorageVersionMigration secrets: storagemigration.k8s.io/v1alpha1 is not served by Kubernetes 1.36"
        ),
        "{msgs:?}"
    );
}
