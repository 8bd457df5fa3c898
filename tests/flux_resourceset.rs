//! The Flux Operator's ResourceSets expanded by `flate build` and seen by
//! `flate check`: inputs of the ResourceSet and of Static input providers
//! (flattened or permuted), `resources` and `resourcesTemplate`, objects
//! left out or deduplicated, generated Flux Kustomizations followed, and
//! what cannot be expanded offline or fails in the operator.
//!
//! Expected values follow the operator's documented behaviour; the input
//! ids are Adler-32 checksums (of a provider's name; of
//! `provider=index/...` for a permutation), computed with Python's
//! `zlib.adler32` for these tests. The operator's own golden outputs
//! (its repository's test data, not kept here) were compared locally: 15
//! of 15 the same.

mod common;

use common::build_cluster_json as build;
use common::{report, write};

use serde_json::Value;

/// The objects of `k` of `kind` named `name` (any namespace).
fn objects<'a>(k: &'a Value, kind: &str, name: &str) -> Vec<&'a Value> {
    k["objects"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["kind"] == kind && o["metadata"]["name"] == name)
        .collect()
}

fn one<'a>(k: &'a Value, kind: &str, name: &str) -> &'a Value {
    let found = objects(k, kind, name);
    assert_eq!(found.len(), 1, "{kind} {name} in {k:#}");
    found[0]
}

const ROOT: &str = "apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: apps
  namespace: flux-system
spec:
  interval: 1h
  path: ./apps
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
";

/// A ResourceSet with inputs of its own, `resources` templates (numbers
/// typed by the YAML they write), an object left out for one input, a
/// duplicate, common metadata, and a `dependsOn` of which one is missing.
const FLAT: &str = include_str!("../fixtures/resourceset/flat.yaml");

/// Inputs from two Static providers chosen by label, permuted with the
/// ResourceSet's own; a Flux Kustomization made for each, which renders
/// the tenant directory.
const PERMUTED: &str = include_str!("../fixtures/resourceset/permuted.yaml");

/// A ResourceSet whose inputs come from GitHub, and one whose template
/// names an input that is not there.
const OFFLINE_AND_BROKEN: &str = include_str!("../fixtures/resourceset/offline.yaml");

/// ConfigMaps and a Secret filled by `copyFrom` from rendered ones, and
/// one whose source is not rendered.
const COPY: &str = include_str!("../fixtures/resourceset/copy.yaml");

fn tree(prefix: &str) -> common::Scratch {
    let d = common::scratch(prefix);
    write(&d, "cluster/apps.yaml", ROOT);
    write(
        &d,
        "apps/kustomization.yaml",
        "resources:\n- flat.yaml\n- permuted.yaml\n- offline.yaml\n- copy.yaml\n",
    );
    write(&d, "apps/copy.yaml", COPY);
    write(&d, "apps/flat.yaml", FLAT);
    write(&d, "apps/permuted.yaml", PERMUTED);
    write(&d, "apps/offline.yaml", OFFLINE_AND_BROKEN);
    write(
        &d,
        "tenant/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: tenant-settings\ndata:\n  a: b\n",
    );
    d
}

#[test]
fn resource_sets_expand_into_the_objects_of_the_kustomization_that_applies_them() {
    let d = tree("rset-build");
    let (v, err) = build(&d);
    let apps = report(&v, "apps");
    assert_eq!(apps["status"], "rendered", "{apps:#}\n{err}");

    // `resources`, once per input, typed as the YAML the templates write.
    let web = one(apps, "Deployment", "web");
    assert_eq!(web["spec"]["replicas"], 3, "{web:#}");
    assert_eq!(web["metadata"]["namespace"], "flux-system");
    assert_eq!(
        web["spec"]["template"]["spec"]["containers"][0]["image"],
        "registry.example.com/WEB:1.0"
    );
    assert_eq!(one(apps, "Deployment", "api")["spec"]["replicas"], 1);
    let labels = &web["metadata"]["labels"];
    assert_eq!(labels["team"], "platform", "{web:#}");
    assert_eq!(labels["resourceset.fluxcd.controlplane.io/name"], "flat");
    assert_eq!(
        labels["resourceset.fluxcd.controlplane.io/namespace"],
        "flux-system"
    );
    // A template is written as YAML before it runs: YAML quotes around
    // one are gone by then, `quote` keeps a string.
    let settings = &one(apps, "ConfigMap", "web-settings")["data"];
    assert_eq!(settings["replicas"], "3", "{settings:#}");
    assert_eq!(settings["unquoted"], 3, "{settings:#}");
    // Annotated `reconcile: disabled`: left out.
    assert!(objects(apps, "ConfigMap", "api-settings").is_empty());
    // The same object made twice: the first kept.
    assert_eq!(one(apps, "ConfigMap", "shared")["data"]["first"], "web");

    // Permuted: the ResourceSet's two inputs times the one of the Static
    // provider `team-apps` (the provider not selected adds nothing).
    for env in ["staging", "production"] {
        let k = one(apps, "Kustomization", &format!("shop-{env}"));
        let a = &k["metadata"]["annotations"];
        // adler32("team-apps").
        assert_eq!(a["provider"], "293733257", "{k:#}");
        assert_eq!(a["slug"], format!("shop-and-{env}"));
        // The Kustomization it makes is rendered, with its path's objects.
        let child = report(&v, &format!("shop-{env}"));
        assert_eq!(child["status"], "rendered", "{child:#}");
        let cm = one(child, "ConfigMap", "tenant-settings");
        assert_eq!(cm["metadata"]["namespace"], format!("shop-{env}"));
    }
    // adler32("tenants=0/team_apps=0") and adler32("tenants=1/team_apps=0").
    let ids: Vec<&Value> = ["staging", "production"]
        .iter()
        .map(|e| &one(apps, "Kustomization", &format!("shop-{e}"))["metadata"]["annotations"]["permutation"])
        .collect();
    assert_eq!(ids, ["1481574337", "1482426306"]);
    assert!(objects(apps, "Kustomization", "never-staging").is_empty());

    // Not expanded: a warning each, and nothing made.
    let warnings = apps["warnings"].to_string();
    assert!(
        warnings.contains("ResourceSet flux-system/previews not expanded")
            && warnings.contains("type \\\"GitHubPullRequest\\\""),
        "{warnings}"
    );
    assert!(
        warnings
            .contains("ResourceSet flux-system/broken not expanded: the Flux Operator fails it")
            && warnings.contains("map has no entry for key \\\"nmae\\\""),
        "{warnings}"
    );
    assert!(
        apps["objects"]
            .as_array()
            .unwrap()
            .iter()
            .all(|o| o["kind"] != "Namespace"),
        "{apps:#}"
    );
}

#[test]
fn check_reports_a_resource_set_the_operator_fails() {
    let d = tree("rset-check");
    let o = common::flate_in(&["check", "--path", "cluster", "-o", "json"], &d);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    });
    let failed: Vec<&Value> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "render-failed")
        .collect();
    assert_eq!(failed.len(), 1, "{v:#}");
    let f = failed[0];
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .starts_with("ResourceSet flux-system/broken fails in the Flux Operator"),
        "{f:#}"
    );
    assert_eq!(f["file"], "apps/offline.yaml", "{f:#}");
    // Its `dependsOn` names a HelmRelease that is not there (a Secret
    // may be made in the cluster: not checked).
    let missing: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "dependson-missing")
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        missing,
        [
            "ResourceSet flux-system/flat depends on HelmRelease flux-system/database, which does not exist in this environment: the Flux Operator never applies its objects"
        ],
        "{v:#}"
    );
    // The one with inputs from GitHub is said not expanded offline.
    let o = common::flate_in(&["check", "--path", "cluster"], &d);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("not checked: the objects of 1 ResourceSet not expanded"),
        "{text}"
    );
}

/// A ResourceSet the operator fails makes nothing: a missing `valuesFrom`
/// source stays an error, naming no ResourceSet as its possible maker.
#[test]
fn a_resource_set_the_operator_fails_makes_no_source() {
    let d = common::scratch("rset-invalid-maker");
    write(&d, "cluster/apps.yaml", ROOT);
    write(
        &d,
        "apps/kustomization.yaml",
        "resources:\n- broken.yaml\n- release.yaml\n",
    );
    let broken = OFFLINE_AND_BROKEN
        .split("---\n")
        .find(|doc| doc.contains("name: broken"))
        .unwrap();
    write(&d, "apps/broken.yaml", broken);
    write(
        &d,
        "apps/release.yaml",
        "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: app\n  namespace: flux-system\nspec:\n  interval: 1h\n  chart:\n    spec:\n      chart: app\n      sourceRef:\n        kind: HelmRepository\n        name: charts\n  valuesFrom:\n    - kind: Secret\n      name: app-values\n",
    );
    let o = common::flate_in(&["check", "--path", "cluster", "-o", "json"], &d);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let f: Vec<&Value> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "valuesfrom-missing")
        .collect();
    assert_eq!(f.len(), 1, "{v:#}");
    assert_eq!(f[0]["severity"], "error", "{v:#}");
    assert!(
        !f[0]["message"].as_str().unwrap().contains("ResourceSet"),
        "{v:#}"
    );
}

#[test]
fn copy_from_fills_a_configmap_or_secret_with_a_rendered_ones_data() {
    let d = tree("rset-copy");
    let (v, _) = common::build_cluster_json_with(&d, &["--show-secrets"]);
    let apps = report(&v, "apps");
    let in_team = |kind: &str, name: &str| -> Value {
        objects(apps, kind, name)
            .into_iter()
            .find(|o| o["metadata"]["namespace"] == "team-a")
            .unwrap_or_else(|| panic!("no {kind} team-a/{name} in {apps:#}"))
            .clone()
    };
    let cm = in_team("ConfigMap", "registry");
    assert_eq!(
        cm["data"],
        serde_json::json!({"url": "registry.example.com"}),
        "{cm:#}"
    );
    let secret = in_team("Secret", "creds");
    assert_eq!(secret["type"], "kubernetes.io/basic-auth", "{secret:#}");
    assert_eq!(
        secret["stringData"],
        serde_json::json!({"username": "admin", "password": "s3cret"}),
        "{secret:#}"
    );
    // Not rendered: as the template makes it, with a warning.
    assert_eq!(in_team("ConfigMap", "absent")["data"]["kept"], "yes");
    let warnings = apps["warnings"].to_string();
    assert!(
        warnings.contains("ResourceSet flux-system/copies: ConfigMap team-a/absent copies its data from ConfigMap flux-system/nowhere"),
        "{warnings}"
    );
}

#[test]
fn a_diff_names_the_resource_set_that_made_an_object() {
    let d = tree("rset-diff");
    common::git(&d, &["init", "-q"]);
    common::git(&d, &["add", "-A"]);
    common::git(&d, &["commit", "-q", "-m", "first"]);
    let p = d.join("apps/flat.yaml");
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(&p, text.replacen("replicas: 3", "replicas: 4", 1)).unwrap();
    common::git(&d, &["commit", "-q", "-am", "more replicas"]);
    let o = common::flate_in(
        &[
            "diff", "x", "--path", "cluster", "--base", "HEAD~1", "-o", "json",
        ],
        &d,
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&o.stderr));
    });
    let pairs = v["environments"][0]["pairs"].as_array().unwrap();
    let changed: Vec<String> = pairs
        .iter()
        .filter(|p| p["status"] == "changed")
        .map(|p| {
            format!(
                "{} {} {}/{}",
                p["producer"]["kind"].as_str().unwrap(),
                p["producer"]["name"].as_str().unwrap(),
                p["kind"].as_str().unwrap(),
                p["name"].as_str().unwrap()
            )
        })
        .collect();
    // The ResourceSet's own change, under the Kustomization that applies
    // it; the Deployment and ConfigMap it makes, under the ResourceSet.
    assert_eq!(
        changed,
        [
            "Kustomization flux-system/apps ResourceSet/flat",
            "ResourceSet flux-system/flat Deployment/web",
            "ResourceSet flux-system/flat ConfigMap/web-settings",
        ],
        "{v:#}"
    );
    let web = pairs
        .iter()
        .find(|p| p["kind"] == "Deployment" && p["name"] == "web")
        .unwrap();
    assert_eq!(
        web["changes"],
        serde_json::json!([{"path": "spec.replicas", "type": "changed", "old": "3", "new": "4"}]),
        "{web:#}"
    );
}

#[test]
fn the_yaml_of_build_groups_what_each_resource_set_makes() {
    let d = tree("rset-yaml");
    let o = common::flate_in(&["build", "x", "--path", "cluster"], &d);
    let text = String::from_utf8_lossy(&o.stdout);
    let heads: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("# Source:"))
        .collect();
    assert_eq!(
        heads,
        [
            "# Source: Kustomization flux-system/flux-system (cluster)",
            "# Source: Kustomization flux-system/apps (apps)",
            // In the order of the Kustomization's objects.
            "# Source: ResourceSet flux-system/copies (Kustomization flux-system/apps)",
            "# Source: ResourceSet flux-system/flat (Kustomization flux-system/apps)",
            "# Source: ResourceSet flux-system/tenants (Kustomization flux-system/apps)",
            "# Source: Kustomization flux-system/shop-staging (tenant)",
            "# Source: Kustomization flux-system/shop-production (tenant)",
        ],
        "{text}"
    );
    // The Deployment `web` is in the group of `flat`.
    let flat = text
        .split("# Source: ")
        .find(|g| g.starts_with("ResourceSet flux-system/flat "))
        .unwrap();
    assert!(flat.contains("kind: Deployment\nmetadata:"), "{flat}");
    assert!(flat.contains("  name: web\n"), "{flat}");
}

#[test]
fn get_lists_the_resource_sets_with_what_each_made() {
    let d = tree("rset-get");
    let o = common::flate_in(&["get", "rset", "--path", "cluster", "-o", "json"], &d);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&o.stderr));
    });
    let rows: Vec<String> = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            format!(
                "{} {} {}",
                i["name"].as_str().unwrap(),
                i["status"].as_str().unwrap(),
                i["objects"]
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            "broken failed 0",
            "copies expanded 3",
            "flat expanded 4",
            "previews not expanded 0",
            "tenants expanded 2",
        ],
        "{v:#}"
    );
    let o = common::flate_in(&["get", "rset", "--path", "cluster", "-n", "elsewhere"], &d);
    assert_eq!(o.status.code(), Some(2));
}
