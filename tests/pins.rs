//! `flate pins`: the pin table of the example tree, and the three rules
//! `--base REV` fails on, each on a scratch git repository holding a copy
//! of the example tree.

mod common;

use std::path::Path;

use serde_json::Value;

fn pins_json(repo: &Path, args: &[&str]) -> (i32, Value) {
    let mut all = vec!["pins", "-o", "json"];
    all.extend_from_slice(args);
    let o = common::flate_in(&all, repo);
    let js = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    });
    (o.status.code().unwrap_or(-1), js)
}

/// A git repository with the example tree committed.
fn scratch_repo(name: &str) -> common::Scratch {
    let d = common::scratch(&format!("pins-{name}"));
    common::copy_dir(&common::root().join("kubernetes"), &d.join("kubernetes"));
    common::git(&d, &["init", "-q"]);
    common::git(&d, &["add", "-A"]);
    common::git(&d, &["commit", "-q", "-m", "base"]);
    d
}

fn edit(path: &Path, from: &str, to: &str) {
    let s = std::fs::read_to_string(path).unwrap();
    assert!(s.contains(from), "{} lacks {from:?}", path.display());
    std::fs::write(path, s.replacen(from, to, 1)).unwrap();
}

const VM_PATCH: &str = "kubernetes/apps/production/observability/patches/victoria-metrics.yaml";
const KSM_DIGEST: &str = "sha256:b9061daed5244df8a29a6e9d027c8e37a8358c5cf1885c9bac260b0616f8cf20";
/// The digest line of production's node-exporter pin, whole.
const NODE_EXPORTER_DIGEST: &str =
    "          digest: sha256:dd65b876ebabdc1e0011bb3b2c9eaf44b1b5d8672897af67afa9e05aebb366a8\n";

fn messages(js: &Value) -> Vec<String> {
    js["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| format!("{} {} {}", f["env"], f["name"], f["message"]))
        .collect()
}

#[test]
fn lists_every_pin_of_the_example_tree() {
    let (code, js) = pins_json(&common::root(), &[]);
    assert_eq!(code, 0, "{js:#}");
    let pins = js["pins"].as_array().unwrap();
    let find = |env: &str, name: &str| {
        pins.iter()
            .find(|p| p["env"] == env && p["name"] == name)
            .unwrap_or_else(|| panic!("no pin {env} {name}"))
    };
    // Production pins node-exporter with a tag and digest patch; staging
    // follows base/.
    let p = find("production", "observability/prometheus-node-exporter");
    assert_eq!(p["kind"], "OCIRepository");
    assert_eq!(p["tag"], "4.47.1");
    assert_eq!(
        p["digest"],
        NODE_EXPORTER_DIGEST.trim().trim_start_matches("digest: ")
    );
    assert_eq!(
        p["source"],
        "oci://ghcr.io/prometheus-community/charts/prometheus-node-exporter"
    );
    assert_eq!(
        find("staging", "observability/prometheus-node-exporter")["tag"],
        "4.47.3"
    );
    // The CloudNativePG image.
    let img = find(
        "production",
        "Cluster observability/grafana-postgres/postgres",
    );
    assert_eq!(img["kind"], "Image");
    assert_eq!(img["source"], "ghcr.io/cloudnative-pg/postgresql");
    assert_eq!(img["tag"], "17.5-standard-bookworm");
    assert!(
        img["digest"]
            .as_str()
            .unwrap()
            .starts_with("sha256:eb6b379b")
    );
    assert!(js["failures"].as_array().unwrap().is_empty());

    let o = common::flate_in(&["pins", "staging"], &common::root());
    assert_eq!(o.status.code(), Some(0));
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(table.starts_with("ENV "), "{table}");
    assert!(table.contains("\nstaging  OCIRepository  "), "{table}");
    assert!(!table.contains("production"), "{table}");
}

#[test]
fn unchanged_tree_and_a_consistent_bump_pass() {
    let d = scratch_repo("ok");
    let (code, js) = pins_json(&d, &["--base", "HEAD"]);
    assert_eq!(code, 0, "{js:#}");
    // Tag and digest moved together.
    edit(&d.join(VM_PATCH), "tag: 6.1.0", "tag: 6.1.1");
    edit(
        &d.join(VM_PATCH),
        KSM_DIGEST,
        &format!("sha256:{}", "0".repeat(64)),
    );
    let (code, js) = pins_json(&d, &["--base", "HEAD"]);
    assert_eq!(code, 0, "{js:#}");
}

#[test]
fn a_tag_changed_without_its_digest_fails() {
    let d = scratch_repo("tag");
    edit(&d.join(VM_PATCH), "tag: 6.1.0", "tag: 6.1.1");
    let (code, js) = pins_json(&d, &["--base", "HEAD"]);
    assert_eq!(code, 1);
    let m = messages(&js);
    assert_eq!(m.len(), 1, "{m:?}");
    assert!(
        m[0].contains("\"kube-state-metrics\"")
            && m[0].contains("6.1.0 → 6.1.1 but its digest did not"),
        "{m:?}"
    );
    assert_eq!(js["failures"][0]["file"], VM_PATCH);
    // Table output names the place.
    let o = common::flate_in(&["pins", "--base", "HEAD"], &d);
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains(&format!("FAIL {VM_PATCH}:")), "{out}");
}

#[test]
fn a_digest_that_disappears_from_an_override_fails() {
    let d = scratch_repo("digest");
    edit(&d.join(VM_PATCH), NODE_EXPORTER_DIGEST, "");
    let (code, js) = pins_json(&d, &["--base", "HEAD"]);
    assert_eq!(code, 1);
    let m = messages(&js).join("\n");
    assert!(m.contains("the override lost its digest"), "{m}");
    // And the pin that results is not the one production asked for.
    assert!(
        m.contains("pinned to tag 4.47.1 but Flux resolves digest sha256:56ff147ffa18 (tag 4.47.3 in the base)"),
        "{m}"
    );
}

#[test]
fn a_pin_flux_does_not_honour_fails_without_base() {
    // An override written with a tag only from the start: no --base needed
    // to see that production would run the base's digest.
    let d = scratch_repo("lost");
    edit(&d.join(VM_PATCH), NODE_EXPORTER_DIGEST, "");
    common::git(&d, &["commit", "-q", "-am", "tag-only pin"]);
    let (code, js) = pins_json(&d, &[]);
    assert_eq!(code, 1);
    let m = messages(&js);
    assert_eq!(m.len(), 1, "{m:?}");
    assert!(
        m[0].contains("pinned to tag 4.47.1 but Flux resolves digest"),
        "{m:?}"
    );
    // flate check reports the same mistake as pin-digest-lost.
    let o = common::flate_in(&["check", "production"], &d);
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains(&format!("{VM_PATCH}:33: error[pin-digest-lost]")),
        "{out}"
    );
}

#[test]
fn a_bad_base_revision_exits_2() {
    let d = scratch_repo("rev");
    let o = common::flate_in(&["pins", "--base", "no-such-branch"], &d);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no-such-branch"));
}

#[test]
fn a_broken_talos_spec_does_not_stop_the_pin_report() {
    // Renovate's post-upgrade check runs `flate pins`; the spec is
    // `flate check`'s business, so pins warns and goes on (both sides).
    let d = scratch_repo("talos");
    edit(
        &d.join("kubernetes/clusters/production/talos.yaml"),
        "vipOffset: 5",
        "vipOffset: 500",
    );
    let o = common::flate_in(&["pins", "production", "--base", "HEAD"], &d);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("warning: ") && err.contains("vipOffset"),
        "{err}"
    );
    assert!(err.contains("without the bootstrap-settings"), "{err}");
    // `flate build` stops on it, naming the fix.
    let o = common::flate_in(&["build", "production"], &d);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--no-talos-settings"), "{err}");
}

const SPEGEL_HR: &str = "kubernetes/apps/base/spegel/app/helmrelease.yaml";
const DIGEST_A: &str = "sha256:1111111111111111111111111111111111111111111111111111111111111111";

#[test]
fn images_in_helmrelease_values_are_pins() {
    // The bjw-s app-template shape (a map at any depth, the digest in the
    // tag) and a `repo:tag@digest` string, both in a HelmRelease's values.
    let d = scratch_repo("values");
    edit(
        &d.join(SPEGEL_HR),
        "  values:\n",
        &format!(
            "  values:\n    controllers:\n      main:\n        containers:\n          app:\n            \
             image:\n              repository: ghcr.io/example/app\n              tag: 1.0.0@{DIGEST_A}\n    \
             sidecar:\n      image: docker.io/library/busybox:1.36@{DIGEST_A}\n    \
             exporter:\n      image:\n        registry: quay.io\n        repository: prometheus/exporter\n        \
             tag: v2.0.0\n"
        ),
    );
    common::git(&d, &["commit", "-q", "-am", "images in values"]);
    let (code, js) = pins_json(&d, &[]);
    assert_eq!(code, 0, "{js:#}");
    let pins: Vec<String> = js["pins"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["env"] == "staging" && p["name"].as_str().unwrap().starts_with("HelmRelease"))
        .map(|p| format!("{} {} {} {}", p["name"], p["source"], p["tag"], p["digest"]))
        .collect();
    assert!(
        pins.contains(&format!(
            "\"HelmRelease network/spegel values.controllers.main.containers.app.image\" \"ghcr.io/example/app\" \"1.0.0\" \"{DIGEST_A}\""
        )),
        "{pins:#?}"
    );
    assert!(
        pins.iter()
            .any(|p| p.contains("\"docker.io/library/busybox\" \"1.36\"")),
        "{pins:#?}"
    );
    assert!(
        pins.iter()
            .any(|p| p.contains("\"quay.io/prometheus/exporter\" \"v2.0.0\" \"\"")),
        "{pins:#?}"
    );
    // A tag bump that keeps the old digest deploys the old image.
    edit(&d.join(SPEGEL_HR), "tag: 1.0.0@", "tag: 1.0.1@");
    let (code, js) = pins_json(&d, &["--base", "HEAD"]);
    assert_eq!(code, 1, "{js:#}");
    let m = messages(&js).join("\n");
    assert!(
        m.contains("values.controllers.main.containers.app.image")
            && m.contains("tag changed 1.0.0 → 1.0.1 but the digest did not"),
        "{m}"
    );
    assert!(
        js["failures"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["file"] == SPEGEL_HR),
        "{js:#}"
    );
    // Tag and digest together pass.
    edit(
        &d.join(SPEGEL_HR),
        &format!("tag: 1.0.1@{DIGEST_A}"),
        &format!("tag: 1.0.1@sha256:{}", "2".repeat(64)),
    );
    let (code, js) = pins_json(&d, &["--base", "HEAD"]);
    assert_eq!(code, 0, "{js:#}");
}

#[test]
fn a_kustomization_patch_that_selects_nothing_fails_when_it_sets_a_pin() {
    let dir = common::root().join("fixtures/check/kustomize-patch-unmatched");
    let (code, js) = pins_json(&dir.join("bad"), &[]);
    assert_eq!(code, 1, "{js:#}");
    let failures = js["failures"].as_array().unwrap();
    // patches[0] sets the image (the pin is lost); patchesJson6902[0] only
    // adds an annotation, which `flate check` reports but pins does not.
    assert_eq!(failures.len(), 1, "{js:#}");
    assert_eq!(
        failures[0]["file"],
        "kubernetes/apps/test/app/kustomization.yaml"
    );
    assert_eq!(failures[0]["line"], 9);
    assert!(
        failures[0]["message"]
            .as_str()
            .unwrap()
            .contains("name=wbe"),
        "{js:#}"
    );
    // The base's tag is what renders.
    assert_eq!(js["pins"][0]["tag"], "4.2.0", "{js:#}");
    let (code, js) = pins_json(&dir.join("good"), &[]);
    assert_eq!(code, 0, "{js:#}");
    assert_eq!(js["pins"][0]["tag"], "4.1.2", "{js:#}");
}
