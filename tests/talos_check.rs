//! `flate talos check`: the generated firewall and endpoint against the
//! rendered Flux tree, on the example tree and on the small repository in
//! fixtures/talos/repo (one environment per mismatch).

use std::path::{Path, PathBuf};
use std::process::Command;

use flate::talos::{self, check::Status};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixture_repo() -> PathBuf {
    root().join("fixtures/talos/repo")
}

fn base_spec() -> PathBuf {
    root().join("fixtures/talos/base.yaml")
}

fn findings(repo: &Path, entry: &str, spec: &Path) -> Vec<talos::check::Finding> {
    let env = talos::load(spec).unwrap();
    let objects = talos::render::render_env(repo, &repo.join(entry)).unwrap();
    talos::check::run(&env, &objects)
}

fn status_of(f: &[talos::check::Finding], check: &str) -> Status {
    f.iter().find(|f| f.check == check).unwrap().status
}

#[test]
fn example_tree_passes() {
    for e in ["staging", "production"] {
        let f = findings(
            &root(),
            &format!("kubernetes/clusters/{e}"),
            &talos::spec_path(&root(), e),
        );
        let text: Vec<String> = f.iter().map(|f| f.to_string()).collect();
        assert!(f.iter().all(|f| f.status != Status::Fail), "{text:#?}");
        assert_eq!(status_of(&f, "envoy-nodeport"), Status::Pass, "{text:#?}");
        assert_eq!(status_of(&f, "endpoint"), Status::Pass);
        assert_eq!(status_of(&f, "cluster-name"), Status::Pass);
        assert_eq!(status_of(&f, "spegel-ports"), Status::Pass);
        assert_eq!(status_of(&f, "private-cidr"), Status::Pass, "{text:#?}");
    }
}

#[test]
fn matching_fixture_passes() {
    let f = findings(&fixture_repo(), "kubernetes/clusters/match", &base_spec());
    assert_eq!(status_of(&f, "envoy-nodeport"), Status::Pass);
    assert_eq!(status_of(&f, "private-cidr"), Status::Pass);
    assert_eq!(status_of(&f, "endpoint"), Status::Pass);
}

#[test]
fn mismatching_node_port_is_a_finding() {
    let f = findings(
        &fixture_repo(),
        "kubernetes/clusters/nodeport-mismatch",
        &base_spec(),
    );
    let envoy = f.iter().find(|f| f.check == "envoy-nodeport").unwrap();
    assert_eq!(envoy.status, Status::Fail);
    assert_eq!(
        envoy.message,
        "the firewall's envoy-ingress rule allows 30443/tcp but EnvoyProxy network/public (from flux-system/envoy) pins NodePort 30444"
    );
    assert_eq!(status_of(&f, "private-cidr"), Status::Pass);
}

#[test]
fn mismatching_private_cidr_is_a_finding() {
    let f = findings(
        &fixture_repo(),
        "kubernetes/clusters/cidr-mismatch",
        &base_spec(),
    );
    let cidr = f.iter().find(|f| f.check == "private-cidr").unwrap();
    assert_eq!(cidr.status, Status::Fail);
    assert!(
        cidr.message
            .contains("CLUSTER_PRIVATE_CIDR=10.150.201.0/24"),
        "{}",
        cidr.message
    );
    assert_eq!(status_of(&f, "envoy-nodeport"), Status::Pass);
}

#[test]
fn node_port_read_from_a_spec_that_disagrees_with_the_tree() {
    // The spec moves the NodePort; the example tree still pins 30443.
    let text = std::fs::read_to_string(talos::spec_path(&root(), "staging"))
        .unwrap()
        .replace("envoyNodePort: 30443", "envoyNodePort: 30080");
    let env = talos::load_str(&text, Path::new("talos.yaml")).unwrap();
    let objects =
        talos::render::render_env(&root(), &root().join("kubernetes/clusters/staging")).unwrap();
    let f = talos::check::run(&env, &objects);
    let envoy = f.iter().find(|f| f.check == "envoy-nodeport").unwrap();
    assert_eq!(envoy.status, Status::Fail);
    assert!(
        envoy.message.contains("allows 30080/tcp"),
        "{}",
        envoy.message
    );
    assert!(
        envoy.message.contains("pins NodePort 30443"),
        "{}",
        envoy.message
    );
}

fn flate(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_flate"))
        .args(args)
        .current_dir(root())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn cli_exit_codes() {
    let repo = fixture_repo();
    let spec = base_spec();
    let (repo, spec) = (repo.to_str().unwrap(), spec.to_str().unwrap());

    let (code, out, _) = flate(&["talos", "check", "match", "--repo", repo, "--spec", spec]);
    assert_eq!(code, 0, "{out}");
    assert!(out.ends_with("4 passed, 0 failed, 1 skipped\n"), "{out}");

    let (code, out, _) = flate(&[
        "talos",
        "check",
        "nodeport-mismatch",
        "--repo",
        repo,
        "--spec",
        spec,
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("FAIL envoy-nodeport: "), "{out}");

    let (code, out, _) = flate(&["talos", "check", "staging"]);
    assert_eq!(code, 0, "{out}");

    // Could not run: no spec, or a tree that does not build.
    let (code, _, err) = flate(&["talos", "check", "nowhere"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("no Talos spec for environment \"nowhere\""),
        "{err}"
    );
    let (code, _, err) = flate(&[
        "talos",
        "check",
        "match",
        "--repo",
        repo,
        "--spec",
        spec,
        "--path",
        "does/not/exist",
    ]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn cli_invalid_spec_is_a_finding() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("talos.yaml");
    std::fs::write(
        &spec,
        std::fs::read_to_string(base_spec())
            .unwrap()
            .replace("name: worker-2", "name: worker-1"),
    )
    .unwrap();
    let repo = fixture_repo();
    let (code, out, _) = flate(&[
        "talos",
        "check",
        "match",
        "--repo",
        repo.to_str().unwrap(),
        "--spec",
        spec.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(
        out.contains("workers[1].name: duplicate node name"),
        "{out}"
    );
}
