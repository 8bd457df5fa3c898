//! Local copies of remote kustomize references (`--remote URL=PATH`,
//! `remotes` of .flate.yaml): a remote file resource, a remote base (a
//! directory), a remote component and a remote generator file build as
//! the same tree with the copies named by relative paths, which
//! `kubectl kustomize` is the oracle for when it is on PATH.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::write;

const CRD_URL: &str = "https://raw.githubusercontent.com/example/operator/v1.2.0/crd.yaml";
const BASE_URL: &str = "github.com/example/apps/base?ref=v0.3.0";
const COMP_URL: &str = "https://github.com/example/apps//components/labels?ref=v0.3.0";
const DASH_URL: &str = "https://raw.githubusercontent.com/example/dashboards/main/cluster.json";

/// The copies under `vendor/`, a kustomization naming them by URL in
/// `app/`, and the same kustomization naming them by path in `local/`.
fn tree(d: &Path) {
    write(
        d,
        "vendor/crd.yaml",
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.org\nspec:\n  group: example.org\n  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n  versions: []\n",
    );
    write(
        d,
        "vendor/base/kustomization.yaml",
        "resources: [deployment.yaml]\nimages:\n  - name: app\n    newTag: \"1.0\"\n",
    );
    write(
        d,
        "vendor/base/deployment.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n  template:\n    spec:\n      containers:\n        - name: app\n          image: app\n",
    );
    write(
        d,
        "vendor/comp/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nlabels:\n  - pairs: {team: platform}\n",
    );
    write(d, "vendor/cluster.json", "{\"title\": \"Cluster\"}\n");
    let kustomization = |crd: &str, base: &str, comp: &str, dash: &str| {
        format!(
            "namespace: apps\nresources:\n  - {crd}\n  - {base}\ncomponents:\n  - {comp}\nconfigMapGenerator:\n  - name: dashboards\n    files:\n      - {dash}\n"
        )
    };
    write(
        d,
        "app/kustomization.yaml",
        &kustomization(CRD_URL, BASE_URL, COMP_URL, DASH_URL),
    );
    write(
        d,
        "local/kustomization.yaml",
        &kustomization(
            "../vendor/crd.yaml",
            "../vendor/base",
            "../vendor/comp",
            "cluster.json",
        ),
    );
    // kustomize names a generated key after the file: the copy sits
    // beside the local kustomization under the URL's last segment.
    write(d, "local/cluster.json", "{\"title\": \"Cluster\"}\n");
}

/// Each URL and its copy under the tree.
const COPIES: [(&str, &str); 4] = [
    (CRD_URL, "vendor/crd.yaml"),
    (BASE_URL, "vendor/base"),
    (COMP_URL, "vendor/comp"),
    (DASH_URL, "vendor/cluster.json"),
];

fn remote_args(d: &Path) -> Vec<String> {
    COPIES
        .iter()
        .flat_map(|(u, p)| {
            [
                "--remote".to_string(),
                format!("{u}={}", d.join(p).display()),
            ]
        })
        .collect()
}

fn flate(args: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_flate"))
        .args(args)
        .output()
        .expect("run flate")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn remote_copies_build_as_the_same_tree_by_path() {
    let d = common::scratch("remotes-kustomize");
    tree(&d);
    let mut args: Vec<String> = ["kustomize", "build"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.push(d.join("app").display().to_string());

    // Without copies: the first remote reference fails the build, naming
    // the option.
    let o = flate(&args);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stdout));
    let err = text(&o.stderr);
    assert!(
        err.contains(&format!("resource '{CRD_URL}' is remote"))
            && err.contains(&format!("--remote {CRD_URL}=PATH")),
        "{err}"
    );

    args.extend(remote_args(&d));
    let with = flate(&args);
    assert_eq!(with.status.code(), Some(0), "{}", text(&with.stderr));
    let local = flate(&[
        "kustomize".into(),
        "build".into(),
        "--load-restrictor".into(),
        "none".into(),
        d.join("local").display().to_string(),
    ]);
    assert_eq!(local.status.code(), Some(0), "{}", text(&local.stderr));
    assert_eq!(text(&with.stdout), text(&local.stdout));
    for want in [
        "name: widgets.example.org",
        "image: app:1.0",
        "team: platform",
        "cluster.json: |",
    ] {
        assert!(text(&with.stdout).contains(want), "{want}");
    }

    match Command::new("kubectl")
        .args(["kustomize", "--load-restrictor", "LoadRestrictionsNone"])
        .arg(d.join("local"))
        .output()
    {
        Ok(k) if k.status.success() => assert_eq!(text(&with.stdout), text(&k.stdout)),
        Ok(k) => panic!("kubectl failed: {}", text(&k.stderr)),
        Err(_) => eprintln!("SKIPPED: kubectl is not on PATH; the oracle comparison did not run"),
    }
}

#[test]
fn a_remote_copy_that_is_missing_or_not_a_url_is_refused() {
    let d = common::scratch("remotes-bad");
    tree(&d);
    let run = |spec: String| {
        flate(&[
            "kustomize".into(),
            "build".into(),
            d.join("app").display().to_string(),
            "--remote".into(),
            spec,
        ])
    };
    let o = run(format!(
        "{CRD_URL}={}",
        d.join("vendor/nothing.yaml").display()
    ));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("does not exist"),
        "{}",
        text(&o.stderr)
    );
    let o = run(format!(
        "vendor/crd.yaml={}",
        d.join("vendor/crd.yaml").display()
    ));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("'vendor/crd.yaml' is not a remote reference"),
        "{}",
        text(&o.stderr)
    );
}

/// A Flux Kustomization that reaches a remote resource is skipped, with
/// the option that renders it; with `remotes` in .flate.yaml it renders.
#[test]
fn flux_renders_a_kustomization_with_remote_resources_from_copies() {
    let d = common::scratch("remotes-flux");
    tree(&d);
    write(
        &d,
        "cluster/ks.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: app\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ./app\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n",
    );
    let (v, _) = common::build_cluster_json(&d);
    let app = common::report(&v, "app");
    assert_eq!(app["status"], "skipped", "{app:#}");
    assert!(
        app["message"]
            .as_str()
            .unwrap()
            .contains(&format!("--remote {CRD_URL}=PATH")),
        "{app:#}"
    );

    let remotes: String = COPIES
        .iter()
        .map(|(u, p)| format!("  \"{u}\": {p}\n"))
        .collect();
    write(&d, ".flate.yaml", &format!("remotes:\n{remotes}"));
    let (v, err) = common::build_cluster_json(&d);
    let app = common::report(&v, "app");
    assert_eq!(app["status"], "rendered", "{app:#}\n{err}");
    let kinds: Vec<&str> = app["objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["CustomResourceDefinition", "ConfigMap", "Deployment"],
        "{app:#}"
    );

    // `flate get envs -o json` carries them, resolved.
    let o = common::flate_in(&["get", "envs", "-o", "json"], &d);
    let envs: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        envs["remotes"][CRD_URL],
        d.join("vendor/crd.yaml").display().to_string(),
        "{envs:#}"
    );

    // A key that is not a URL is a configuration error naming the line.
    write(
        &d,
        ".flate.yaml",
        "remotes:\n  vendor/crd.yaml: vendor/crd.yaml\n",
    );
    let o = common::flate_in(&["build", "x", "--path", "cluster"], &d);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("'vendor/crd.yaml' is not a remote reference") && err.contains(".flate.yaml"),
        "{err}"
    );
}

/// A change to what flate skips (a remote resource's version bumped, as
/// Renovate does) is a note of `flate diff`, not "no changes" alone; the
/// same skip on both sides stays quiet unless the change touches files
/// under the Kustomization's path, which the note then names.
#[test]
fn diff_notes_a_changed_remote_reference() {
    let d = common::scratch("remotes-diff");
    write(
        &d,
        "cluster/ks.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: app\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ./app\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n",
    );
    write(
        &d,
        "app/kustomization.yaml",
        &format!("resources:\n  - {CRD_URL}\n"),
    );
    common::git(&d, &["init", "-q"]);
    common::git(&d, &["add", "-A"]);
    common::git(&d, &["commit", "-qm", "init"]);
    let diff = || {
        let o = common::flate_in(&["diff", "x", "--path", "cluster", "--base", "HEAD"], &d);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        text(&o.stdout)
    };
    assert!(!diff().contains("note:"), "{}", diff());

    // Files outside its path change: still quiet.
    write(&d, "docs/notes.md", "notes\n");
    let out = diff();
    assert!(
        !out.contains("note:") && out.contains("no changes"),
        "{out}"
    );

    // Files under its path change while it stays skipped the same way:
    // the diff names them, and does not say "no changes".
    write(&d, "app/deployment.yaml", "kind: Deployment\n");
    write(&d, "app/sub/config.yaml", "a: 1\n");
    let out = diff();
    assert!(
        out.contains("no rendered changes (the change touches files flate could not render, below)")
            && out.contains(&format!(
                "note: Kustomization flux-system/app is skipped on both sides: remote resource {CRD_URL}: not fetched offline"
            ))
            && out.contains(
                "its objects are not compared, and the change touches 2 files under its path, which this diff does not show: app/deployment.yaml, app/sub/config.yaml"
            ),
        "{out}"
    );
    let o = common::flate_in(
        &[
            "diff", "x", "--path", "cluster", "--base", "HEAD", "-o", "json",
        ],
        &d,
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let problems = &v["environments"][0]["problems"];
    assert_eq!(
        problems[0]["touched"],
        serde_json::json!(["app/deployment.yaml", "app/sub/config.yaml"]),
        "{v:#}"
    );
    assert_eq!(problems[0]["fatal"], false, "{v:#}");
    std::fs::remove_file(d.join("app/deployment.yaml")).unwrap();
    std::fs::remove_dir_all(d.join("app/sub")).unwrap();

    let bumped = CRD_URL.replace("v1.2.0", "v1.3.0");
    write(
        &d,
        "app/kustomization.yaml",
        &format!("resources:\n  - {bumped}\n"),
    );
    let out = diff();
    assert!(
        out.contains(&format!(
            "note: Kustomization flux-system/app skipped on head: remote resource {bumped}: not fetched offline (named in app/kustomization.yaml:2; render it from a local copy with --remote {bumped}=PATH) (skipped on base: remote resource {CRD_URL}"
        )) && out.contains("its objects are not compared"),
        "{out}"
    );
}

/// The entry's own Kustomization skipped on both sides (a remote resource
/// in the cluster's root kustomization): nothing renders, and `flate diff`
/// says so whatever the change touches.
#[test]
fn diff_says_when_the_entry_itself_is_skipped() {
    let d = common::scratch("remotes-diff-root");
    write(
        &d,
        "cluster/kustomization.yaml",
        &format!("resources:\n  - {CRD_URL}\n  - ../apps\n"),
    );
    write(&d, "apps/kustomization.yaml", "resources:\n  - cm.yaml\n");
    write(
        &d,
        "apps/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: b\n",
    );
    common::git(&d, &["init", "-q"]);
    common::git(&d, &["add", "-A"]);
    common::git(&d, &["commit", "-qm", "init"]);
    write(
        &d,
        "apps/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: c\n",
    );
    let o = common::flate_in(&["diff", "x", "--path", "cluster", "--base", "HEAD"], &d);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(
        out.contains(&format!(
            "note: Kustomization flux-system/flux-system is skipped on both sides: remote resource {CRD_URL}: not fetched offline"
        )),
        "{out}"
    );
}
