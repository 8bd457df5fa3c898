//! End-to-end tests of `flate build`, `get` and `test` on the example tree
//! in kubernetes/ and on broken copies of it.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A scratch copy of the example tree.
fn scratch(name: &str) -> common::Scratch {
    let d = common::scratch(&format!("flux-cli-{name}"));
    common::copy_dir(&repo().join("kubernetes"), &d.join("kubernetes"));
    d
}

fn edit(path: &Path, from: &str, to: &str) {
    let s = std::fs::read_to_string(path).unwrap();
    assert!(
        s.contains(from),
        "{} does not contain {from:?}",
        path.display()
    );
    std::fs::write(path, s.replacen(from, to, 1)).unwrap();
}

#[test]
fn example_tree_renders_and_tests_green_in_both_environments() {
    for env in ["staging", "production"] {
        let o = common::flate_in(&["test", "all", env], &repo());
        let out = stdout(&o);
        assert!(o.status.success(), "{env}: {out}\n{}", stderr(&o));
        assert!(out.contains(" 0 failed"), "{env}: {out}");
        assert!(
            out.contains("SKIPPED Kustomization flux-system/grafana-dashboards: external source OCIRepository"),
            "{env}: the OCI-sourced Kustomization must be skipped: {out}"
        );
        // A chart that is not cached: skipped with the command that fetches it.
        assert!(
            out.contains("SKIPPED HelmRelease observability/victoria-metrics-operator: chart victoria-metrics-operator ")
                && out.contains("helm pull oci://ghcr.io/victoriametrics/helm-charts/victoria-metrics-operator --version "),
            "{out}"
        );
        // The chart of the repository renders.
        assert!(
            out.contains("PASS HelmRelease default/whoami (3 objects)"),
            "{out}"
        );
    }
}

#[test]
fn build_yaml_groups_by_kustomization_and_substitutes() {
    let o = common::flate_in(&["build", "production"], &repo());
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with(
        "# Source: Kustomization flux-system/flux-system (kubernetes/clusters/production)\n"
    ));
    assert!(out.contains(
        "# Source: Kustomization flux-system/cluster-apps (kubernetes/apps/production)\n"
    ));
    // cluster-settings values reached the apps; no CLUSTER_ variable is left.
    assert!(
        !out.contains("${CLUSTER_"),
        "unsubstituted CLUSTER_ variable"
    );
    assert!(out.contains("futostat.us"));
    // bootstrap-settings is derived from clusters/production/talos.yaml.
    assert!(
        !out.contains("${BOOTSTRAP_"),
        "unsubstituted BOOTSTRAP_ variable"
    );
    assert!(!stderr(&o).contains("is not set"), "{}", stderr(&o));
}

#[test]
fn without_talos_settings_bootstrap_variables_are_reported_unset() {
    let o = common::flate_in(&["build", "production", "--no-talos-settings"], &repo());
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("variable ${BOOTSTRAP_MESH_DOMAIN} is not set"),
        "{err}"
    );
    assert!(err.contains("optional substituteFrom ConfigMap/bootstrap-settings is absent offline"));
}

#[test]
fn build_json_follows_the_contract() {
    let o = common::flate_in(&["build", "production", "-o", "json"], &repo());
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["cluster"], "production");
    assert_eq!(v["root"], "kubernetes/clusters/production");
    let ks = v["kustomizations"].as_array().unwrap();
    assert_eq!(ks[0]["name"], "flux-system");
    assert_eq!(ks[1]["name"], "cluster-apps");
    assert_eq!(ks[1]["path"], "kubernetes/apps/production");
    assert_eq!(ks[1]["source"], "GitRepository/flux-system/flux-system");
    for k in ks {
        for key in [
            "name",
            "namespace",
            "path",
            "source",
            "status",
            "message",
            "dependsOn",
            "objects",
        ] {
            assert!(k.get(key).is_some(), "missing {key} in {k}");
        }
    }
    let vm = ks.iter().find(|k| k["name"] == "victoria-metrics").unwrap();
    assert_eq!(vm["status"], "rendered");
    assert!(
        vm["dependsOn"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d == "flux-system/victoria-metrics-operator")
    );
    let hr = v["helmreleases"].as_array().unwrap();
    let cm = hr.iter().find(|h| h["name"] == "cert-manager").unwrap();
    assert_eq!(cm["chart"]["kind"], "OCIRepository");
    assert_eq!(cm["kustomization"], "flux-system/cert-manager");
    assert!(
        cm["chart"]["digest"]
            .as_str()
            .unwrap()
            .starts_with("sha256:")
    );
    assert_eq!(cm["status"], "ok");
}

#[test]
fn production_pin_carries_tag_and_digest() {
    let o = common::flate_in(&["get", "sources", "production", "-o", "json"], &repo());
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // The production pin patch rides the child Kustomization's spec.patches;
    // the rendered OCIRepository carries both tag and digest.
    assert_eq!(v["kind"], "SourceList");
    let oci = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["kind"] == "OCIRepository" && s["name"] == "cert-manager")
        .unwrap();
    assert!(!oci["ref"].as_str().unwrap().is_empty());
    assert!(oci["digest"].as_str().unwrap().starts_with("sha256:"));
}

#[test]
fn missing_patches_seed_fails_loudly_naming_ks_yaml() {
    let r = scratch("seed");
    edit(
        &r.join("kubernetes/apps/base/spegel/ks.yaml"),
        "patches: []",
        "",
    );
    for env in ["staging", "production"] {
        let o = common::flate_in(&["test", "ks", env], &r);
        assert_eq!(o.status.code(), Some(1), "{env}");
        let out = stdout(&o);
        assert!(
            out.contains("FAIL Kustomization flux-system/cluster-apps"),
            "{env}: {out}"
        );
        assert!(
            out.contains("kubernetes/apps/base/spegel/ks.yaml"),
            "{env}: {out}"
        );
        assert!(out.contains("patches: []"), "{env}: {out}");
    }
}

#[test]
fn missing_depends_on_target_fails_that_kustomization_only() {
    let r = scratch("dep");
    edit(
        &r.join("kubernetes/apps/base/spegel/ks.yaml"),
        "name: prometheus-operator-crds",
        "name: no-such-app",
    );
    let o = common::flate_in(&["test", "ks", "staging"], &r);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.contains("FAIL Kustomization flux-system/spegel: dependsOn target 'flux-system/no-such-app' does not exist"),
        "{out}"
    );
    assert!(
        out.contains("PASS Kustomization flux-system/openebs"),
        "others still render: {out}"
    );
}

/// `flate get` exits 1 when a Kustomization failed, and says which on
/// standard error, whatever the listing shows (here the charts, and a
/// selection that leaves the failed one out).
#[test]
fn get_says_why_it_exits_1() {
    let r = scratch("get-fail");
    edit(
        &r.join("kubernetes/apps/base/spegel/ks.yaml"),
        "name: prometheus-operator-crds",
        "name: no-such-app",
    );
    for args in [
        vec!["get", "charts", "staging"],
        vec!["get", "ks", "staging", "flux-system/openebs", "-o", "name"],
    ] {
        let o = common::flate_in(&args, &r);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(
            stderr(&o).contains("error: Kustomization flux-system/spegel failed: dependsOn target 'flux-system/no-such-app' does not exist"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
    // Nothing failed: exit 0, no error.
    let o = common::flate_in(&["get", "charts", "production"], &repo());
    assert_eq!(o.status.code(), Some(0));
    assert!(!stderr(&o).contains("error:"), "{}", stderr(&o));
}

#[test]
fn strict_substitute_fails_on_unset_variables() {
    let o = common::flate_in(
        &[
            "test",
            "ks",
            "production",
            "--strict-substitute",
            "--no-talos-settings",
        ],
        &repo(),
    );
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.contains("FAIL Kustomization flux-system/multus"),
        "{out}"
    );
    assert!(out.contains("BOOTSTRAP_EGRESS"), "{out}");
}

#[test]
fn settings_file_feeds_bootstrap_variables() {
    let dir = common::scratch("settings");
    let f = dir.join("bootstrap-settings.yaml");
    std::fs::write(
        &f,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bootstrap-settings\n  namespace: flux-system\ndata:\n  BOOTSTRAP_EGRESS_CIDR: 10.69.2.0/24\n  BOOTSTRAP_EGRESS_GATEWAY: 10.69.2.1\n",
    )
    .unwrap();
    let o = common::flate_in(
        &[
            "build",
            "production",
            "--ks",
            "multus",
            "--no-talos-settings",
            "--settings",
            f.to_str().unwrap(),
        ],
        &repo(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("10.69.2.0/24"));
    assert!(
        !stderr(&o).contains("BOOTSTRAP_EGRESS_CIDR} is not set"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn secrets_are_redacted_unless_asked() {
    let r = scratch("secret");
    std::fs::write(
        r.join("kubernetes/clusters/staging/secret.yaml"),
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: demo\n  namespace: flux-system\nstringData:\n  token: hunter2\ndata:\n  key: aHVudGVyMg==\n",
    )
    .unwrap();
    edit(
        &r.join("kubernetes/clusters/staging/kustomization.yaml"),
        "resources:\n",
        "resources:\n  - secret.yaml\n",
    );
    for fmt in ["yaml", "json"] {
        let o = common::flate_in(&["build", "staging", "-o", fmt], &r);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        assert!(
            !out.contains("hunter2") && !out.contains("aHVudGVyMg=="),
            "{fmt} leaks a secret"
        );
        assert!(
            out.contains("token") && out.contains(flate::output::REDACTED),
            "{fmt} keeps the keys"
        );
    }
    let o = common::flate_in(&["build", "staging", "--show-secrets"], &r);
    assert!(stdout(&o).contains("hunter2"));
}

#[test]
fn out_dir_is_written_atomically_and_survives_a_failed_run() {
    let r = scratch("outdir");
    let out = r.join("out");
    let o = common::flate_in(
        &["build", "staging", "--out-dir", out.to_str().unwrap()],
        &r,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let apps = out.join("flux-system__cluster-apps.yaml");
    let before = std::fs::read_to_string(&apps).unwrap();
    assert!(before.contains("kind: Kustomization"));
    assert!(out.join("flux-system__spegel.yaml").exists());
    // Break cluster-apps: its file and its children's files stay as they were.
    edit(
        &r.join("kubernetes/apps/base/spegel/ks.yaml"),
        "patches: []",
        "",
    );
    let o = common::flate_in(
        &["build", "staging", "--out-dir", out.to_str().unwrap()],
        &r,
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&apps).unwrap(), before);
    assert!(out.join("flux-system__spegel.yaml").exists());
    let leftovers: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left behind");
}

#[test]
fn unknown_environment_is_exit_2_with_a_hint() {
    let o = common::flate_in(&["build", "nowhere"], &repo());
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("unknown environment 'nowhere'"), "{e}");
    // The known environments, with their entry directories.
    assert!(
        e.contains("production (kubernetes/clusters/production)"),
        "{e}"
    );
}

#[test]
fn build_hr_prints_effective_values_and_chart() {
    let o = common::flate_in(&["build", "hr", "production", "cert-manager"], &repo());
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("kind: HelmRelease"));
    assert!(out.contains("flate.dev/chart: oci://"), "{out}");
    // The cluster-apps default patch was applied before values were resolved.
    assert!(out.contains("CreateReplace"), "{out}");
}

/// A JSON build of `env` in `repo` with extra arguments.
fn build_json(repo: &Path, env: &str, extra: &[&str]) -> (Output, serde_json::Value) {
    let mut args = vec!["build", env, "-o", "json"];
    args.extend_from_slice(extra);
    let o = common::flate_in(&args, repo);
    let js = serde_json::from_slice(&o.stdout).unwrap_or(serde_json::Value::Null);
    (o, js)
}

fn ks_json<'a>(js: &'a serde_json::Value, key: &str) -> &'a serde_json::Value {
    js["kustomizations"]
        .as_array()
        .expect("kustomizations")
        .iter()
        .find(|k| {
            format!(
                "{}/{}",
                k["namespace"].as_str().unwrap_or(""),
                k["name"].as_str().unwrap_or("")
            ) == key
        })
        .unwrap_or_else(|| panic!("{key} not in {js:#}"))
}

fn object_names(k: &serde_json::Value) -> Vec<String> {
    k["objects"]
        .as_array()
        .map(|v| {
            v.iter()
                .map(|o| {
                    format!(
                        "{} {}",
                        o["kind"].as_str().unwrap_or(""),
                        o["metadata"]["name"].as_str().unwrap_or("")
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_source_from_a_local_directory_renders_with_its_ignore_rules() {
    // The OCI artifact of grafana-dashboards, as a local directory: the
    // Kustomization renders from it (spec.path `./` is its root), with
    // the default exclusions (no spec.ignore) applied.
    let d = scratch("source");
    let art = d.join("artifact");
    std::fs::create_dir_all(art.join(".github")).unwrap();
    std::fs::write(
        art.join("dashboard.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dashboard\n  namespace: observability\ndata:\n  a: b\n",
    )
    .unwrap();
    std::fs::write(art.join(".github/ci.yaml"), "not: [a kubernetes object\n").unwrap();
    std::fs::write(art.join(".sops.yaml"), "creation_rules: []\n").unwrap();
    let (o, js) = build_json(&d, "staging", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let k = ks_json(&js, "flux-system/grafana-dashboards");
    assert_eq!(k["status"], "skipped");
    assert!(
        k["message"]
            .as_str()
            .unwrap()
            .contains("--source OCIRepository/flux-system/grafana-dashboards=DIR"),
        "{k}"
    );
    let dir = art.to_string_lossy().into_owned();
    for spec in [
        format!("OCIRepository/flux-system/grafana-dashboards={dir}"),
        format!("grafana-dashboards={dir}"),
    ] {
        let (o, js) = build_json(&d, "staging", &["--source", &spec]);
        assert!(o.status.success(), "{spec}: {}", stderr(&o));
        let k = ks_json(&js, "flux-system/grafana-dashboards");
        assert_eq!(k["status"], "rendered", "{spec}: {k}");
        assert_eq!(object_names(k), ["ConfigMap dashboard"], "{spec}: {k}");
    }
    // Another kind or namespace does not match.
    let (_, js) = build_json(
        &d,
        "staging",
        &[
            "--source",
            &format!("Bucket/flux-system/grafana-dashboards={dir}"),
        ],
    );
    assert_eq!(
        ks_json(&js, "flux-system/grafana-dashboards")["status"],
        "skipped"
    );
    // A malformed --source is exit 2 naming the form.
    let o = common::flate_in(&["build", "staging", "--source", "a/b=x"], &d);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("KIND/NAMESPACE/NAME=DIR"),
        "{}",
        stderr(&o)
    );
    // spec.ignore on the OCIRepository replaces the default exclusions
    // (VCS files only stay excluded): the CI file now reaches the build.
    edit(
        &d.join("kubernetes/apps/base/grafana-dashboards/ks.yaml"),
        "  interval: 15m\n",
        "  interval: 15m\n  ignore: |\n    *.md\n",
    );
    let (_, js) = build_json(
        &d,
        "staging",
        &["--source", &format!("grafana-dashboards={dir}")],
    );
    let k = ks_json(&js, "flux-system/grafana-dashboards");
    assert_eq!(k["status"], "failed", "{k}");
    assert!(k["message"].as_str().unwrap().contains("ci.yaml"), "{k}");
}

#[test]
fn sourceignore_and_gitrepository_ignore_shape_the_repository_artifact() {
    let d = scratch("sourceignore");
    // A plain directory rendered through the generator: every YAML file.
    let app = d.join("kubernetes/apps/base/extra");
    std::fs::create_dir_all(app.join("drafts")).unwrap();
    std::fs::write(
        app.join("cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n  namespace: default\n",
    )
    .unwrap();
    std::fs::write(app.join("drafts/broken.yaml"), "not: [valid\n").unwrap();
    std::fs::write(
        d.join("kubernetes/clusters/staging/extra.yaml"),
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: extra\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ./kubernetes/apps/base/extra\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n",
    )
    .unwrap();
    edit(
        &d.join("kubernetes/clusters/staging/kustomization.yaml"),
        "resources:\n",
        "resources:\n  - ./extra.yaml\n",
    );
    let (_, js) = build_json(&d, "staging", &[]);
    let k = ks_json(&js, "flux-system/extra");
    assert_eq!(k["status"], "failed", "the draft is read: {k}");
    // A nested .sourceignore, scoped to its directory, hides the drafts.
    std::fs::write(app.join(".sourceignore"), "# work in progress\ndrafts/\n").unwrap();
    let (_, js) = build_json(&d, "staging", &[]);
    let k = ks_json(&js, "flux-system/extra");
    assert_eq!(k["status"], "rendered", "{k}");
    assert_eq!(object_names(k), ["ConfigMap extra"]);
    std::fs::remove_file(app.join(".sourceignore")).unwrap();
    // The repository's GitRepository spec.ignore, once the entry renders
    // it, applies to every Kustomization of the repository.
    std::fs::write(
        d.join("kubernetes/clusters/staging/gitrepository.yaml"),
        "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  interval: 1h\n  url: https://example.org/repo\n  ref:\n    branch: main\n  ignore: |\n    /*\n    !/kubernetes\n    /kubernetes/apps/base/extra/drafts/\n",
    )
    .unwrap();
    edit(
        &d.join("kubernetes/clusters/staging/kustomization.yaml"),
        "resources:\n",
        "resources:\n  - ./gitrepository.yaml\n",
    );
    let (o, js) = build_json(&d, "staging", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let k = ks_json(&js, "flux-system/extra");
    assert_eq!(k["status"], "rendered", "{k}");
}

#[test]
fn a_remote_kustomize_resource_skips_its_kustomization_with_the_url() {
    let d = scratch("remote");
    edit(
        &d.join("kubernetes/apps/base/spegel/app/kustomization.yaml"),
        "  - ./helmrelease.yaml\n",
        "  - ./helmrelease.yaml\n  - https://github.com/example/manifests//deploy?ref=v1.0.0\n",
    );
    let (o, js) = build_json(&d, "staging", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let k = ks_json(&js, "flux-system/spegel");
    assert_eq!(k["status"], "skipped", "{k}");
    assert!(
        k["message"]
            .as_str()
            .unwrap()
            .contains("remote resource https://github.com/example/manifests//deploy?ref=v1.0.0: not fetched offline"),
        "{k}"
    );
}

/// A Kustomization of an external source that a sibling of the same wave
/// renders is skipped naming the source's URL and the `--source` that
/// renders it, as when the source was rendered before it.
#[test]
fn skipped_for_a_source_a_sibling_renders_names_its_url() {
    let d = common::scratch("flux-cli-late-source");
    let ks = |name: &str, path: &str, source: &str, extra: &str| {
        format!(
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: {name}\n  namespace: flux-system\nspec:\n{extra}  interval: 10m\n  path: {path}\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: {source}\n"
        )
    };
    common::write(
        &d,
        "clusters/main/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ./deploy.yaml\n",
    );
    common::write(
        &d,
        "clusters/main/deploy.yaml",
        &ks("deploy", "./clusters/main/deploy", "flux-system", ""),
    );
    common::write(
        &d,
        "clusters/main/deploy/ks.yaml",
        &format!(
            "{}---\n{}",
            ks("repos", "./clusters/main/repos", "flux-system", ""),
            ks(
                "manage-flux",
                "./manifests/install",
                "flux",
                "  dependsOn:\n    - name: repos\n"
            )
        ),
    );
    common::write(
        &d,
        "clusters/main/repos/flux.yaml",
        "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux\n  namespace: flux-system\nspec:\n  interval: 10m\n  ref:\n    tag: v2.4.0\n  url: https://github.com/fluxcd/flux2\n",
    );
    let o = common::flate_in(
        &["build", "main", "--path", "clusters/main", "-o", "json"],
        &d,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let js: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let k = js["kustomizations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["name"] == "manage-flux")
        .unwrap();
    assert_eq!(k["status"], "skipped", "{k:#}");
    assert_eq!(
        k["message"],
        "external source GitRepository/flux-system/flux (https://github.com/fluxcd/flux2): not fetched offline (render it from a local copy with --source GitRepository/flux-system/flux=DIR)",
        "{k:#}"
    );
}
