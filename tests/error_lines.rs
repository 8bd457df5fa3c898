//! Errors name the file and the line to fix: one case per mistake, each
//! checked for the `file:line:` the message starts with.

mod common;

use std::path::Path;
use std::process::Output;

const CM: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: \"1\"\n";

fn scratch(name: &str, files: &[(&str, &str)]) -> common::Scratch {
    let d = common::scratch(&format!("errlines-{name}"));
    for (f, text) in files {
        let p = d.join(f);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    d
}

fn kustomize_build(dir: &Path) -> String {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_flate"))
        .args(["kustomize", "build"])
        .arg(dir)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    stderr(&o)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn assert_at(err: &str, file: &Path, line: usize, what: &str) {
    let want = format!("{}:{line}:", file.display());
    assert!(err.contains(&want), "want {want:?} in: {err}");
    assert!(err.contains(what), "want {what:?} in: {err}");
}

#[test]
fn a_missing_resource_file_points_at_its_listing() {
    let d = scratch(
        "missing",
        &[
            ("cm.yaml", CM),
            (
                "kustomization.yaml",
                "resources:\n- cm.yaml\n- nothere.yaml\n",
            ),
        ],
    );
    let err = kustomize_build(&d);
    assert_at(
        &err,
        &d.join("kustomization.yaml"),
        3,
        "nothere.yaml' does not exist",
    );
}

#[test]
fn an_unknown_kustomization_field_points_at_its_key() {
    let d = scratch(
        "typo",
        &[
            ("cm.yaml", CM),
            (
                "kustomization.yaml",
                "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresorces:\n- cm.yaml\n",
            ),
        ],
    );
    let err = kustomize_build(&d);
    assert_at(
        &err,
        &d.join("kustomization.yaml"),
        3,
        "unknown field \"resorces\"",
    );
}

#[test]
fn a_json6902_operation_on_a_missing_path_points_at_the_operation() {
    // Inline: the line of the operation in the kustomization.
    let d = scratch(
        "6902-inline",
        &[
            ("cm.yaml", CM),
            (
                "kustomization.yaml",
                "resources:\n- cm.yaml\npatches:\n- target: {kind: ConfigMap}\n  patch: |\n    - op: replace\n      path: /data/x\n      value: \"2\"\n    - op: replace\n      path: /data/missing/deeper\n      value: \"3\"\n",
            ),
        ],
    );
    let err = kustomize_build(&d);
    assert_at(
        &err,
        &d.join("kustomization.yaml"),
        10,
        "doc is missing path: /data/missing/deeper",
    );
    // From a file: the line in the patch file.
    let d = scratch(
        "6902-file",
        &[
            ("cm.yaml", CM),
            (
                "kustomization.yaml",
                "resources:\n- cm.yaml\npatches:\n- target: {kind: ConfigMap}\n  path: p.yaml\n",
            ),
            (
                "p.yaml",
                "- op: add\n  path: /data/y\n  value: \"2\"\n- op: remove\n  path: /data/nope\n",
            ),
        ],
    );
    let err = kustomize_build(&d);
    assert_at(
        &err,
        &d.join("p.yaml"),
        5,
        "Unable to remove nonexistent key: nope",
    );
}

#[test]
fn a_resource_listed_twice_points_at_the_second_listing() {
    let d = scratch(
        "twice",
        &[
            ("cm.yaml", CM),
            ("other.yaml", &CM.replace("name: a", "name: b")),
            (
                "kustomization.yaml",
                "resources:\n- cm.yaml\n- ./other.yaml\n- cm.yaml\n",
            ),
        ],
    );
    let err = kustomize_build(&d);
    assert_at(
        &err,
        &d.join("kustomization.yaml"),
        4,
        "already registered id",
    );
}

#[test]
fn a_tab_indenting_a_line_is_reported_on_that_line() {
    let d = scratch(
        "tab",
        &[
            ("kustomization.yaml", "resources:\n- cm.yaml\n"),
            (
                "cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: b\n\tc: d\n",
            ),
        ],
    );
    let err = kustomize_build(&d);
    assert_at(&err, &d.join("cm.yaml"), 7, "tab");
}

/// A scratch copy of the example tree.
fn example(name: &str) -> common::Scratch {
    let d = common::scratch(&format!("errlines-{name}"));
    common::copy_dir(&common::root().join("kubernetes"), &d.join("kubernetes"));
    d
}

#[test]
fn an_unterminated_variable_points_at_the_source_file() {
    let d = example("envsubst");
    let app = d.join("kubernetes/apps/base/mesh-gateway-api/app");
    std::fs::write(
        app.join("var.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: v\ndata:\n  a: \"${CLUSTER_APP_DOMAIN\"\n",
    )
    .unwrap();
    let k = app.join("kustomization.yaml");
    let text = std::fs::read_to_string(&k).unwrap() + "  - ./var.yaml\n";
    std::fs::write(&k, text).unwrap();
    let o = common::flate_in(&["build", "production"], &d);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains(
            "failed: kubernetes/apps/base/mesh-gateway-api/app/var.yaml:6: ConfigMap v: envsubst error: missing closing brace"
        ),
        "{err}"
    );
}

#[test]
fn a_missing_substitute_from_config_map_names_its_declaration() {
    let d = example("substitute-from");
    let settings = d.join("kubernetes/clusters/production/cluster-settings.yaml");
    common::edit(
        &settings,
        "name: cluster-settings",
        "name: renamed-settings",
    );
    let apps = std::fs::read_to_string(d.join("kubernetes/clusters/production/apps.yaml")).unwrap();
    let line = apps
        .lines()
        .position(|l| l.trim() == "name: cluster-settings")
        .unwrap()
        + 1;
    let o = common::flate_in(&["build", "production"], &d);
    let err = stderr(&o);
    let failures: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("substitute from 'ConfigMap/cluster-settings'"))
        .collect();
    assert!(!failures.is_empty(), "{err}");
    let want = format!("failed: kubernetes/clusters/production/apps.yaml:{line}: substitute from");
    for f in failures {
        assert!(f.contains(&want), "want {want:?} in: {f}");
    }
}
