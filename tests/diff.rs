//! `flate diff` end to end: temporary git repositories holding a copy of
//! the example tree, with commits made by the test (the `git` binary is
//! used here only, to make commits; flate itself reads them with gix).

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

fn example() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("kubernetes")
}

/// A git repository at `dir`, in or below a scratch directory that is
/// removed when the `Repo` is dropped.
struct Repo {
    dir: PathBuf,
    _scratch: common::Scratch,
}

impl Repo {
    /// A repository whose first commit is the example tree.
    fn new(name: &str) -> Repo {
        let scratch = common::scratch(&format!("diff-{name}"));
        let dir = scratch.to_path_buf();
        common::copy_dir(&example(), &dir.join("kubernetes"));
        let r = Repo {
            dir,
            _scratch: scratch,
        };
        r.git(&["init", "-q"]);
        r.commit("example tree");
        r
    }
    fn git(&self, args: &[&str]) -> String {
        common::git(&self.dir, args)
    }
    fn commit(&self, msg: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", msg]);
    }
    fn path(&self, rel: &str) -> PathBuf {
        self.dir.join(rel)
    }
    fn edit(&self, rel: &str, from: &str, to: &str) {
        let p = self.path(rel);
        let s = std::fs::read_to_string(&p).unwrap();
        assert!(s.contains(from), "{rel} does not contain {from:?}");
        std::fs::write(&p, s.replacen(from, to, 1)).unwrap();
    }
    fn write(&self, rel: &str, text: &str) {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    /// Moves openebs' storageclasses.yaml to the victoria-metrics app (the
    /// file and its line in each kustomization.yaml), uncommitted.
    fn move_storage_classes_to_victoria_metrics(&self) {
        self.git(&[
            "mv",
            "kubernetes/apps/base/openebs/app/storageclasses.yaml",
            "kubernetes/apps/base/victoria-metrics/app/storageclasses.yaml",
        ]);
        self.edit(
            "kubernetes/apps/base/openebs/app/kustomization.yaml",
            "  - ./storageclasses.yaml\n",
            "",
        );
        self.edit(
            "kubernetes/apps/base/victoria-metrics/app/kustomization.yaml",
            "  - ./vmauth.yaml\n",
            "  - ./vmauth.yaml\n  - ./storageclasses.yaml\n",
        );
    }
    fn flate(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_flate"))
            .args(args)
            .arg("--repo")
            .arg(&self.dir)
            .current_dir(&self.dir)
            .env_remove("NO_COLOR")
            .output()
            .expect("run flate")
    }
    fn json(&self, args: &[&str]) -> (Value, Output) {
        let mut a = args.to_vec();
        a.extend(["-o", "json"]);
        let o = self.flate(&a);
        let v = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
            panic!("{e}: {}\n{}", stdout(&o), stderr(&o));
        });
        (v, o)
    }
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts that flate failed with exit code 2 and a standard error that
/// contains `text`.
#[track_caller]
fn fails_saying(o: &Output, text: &str) {
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(o).contains(text), "{}", stderr(o));
}

fn env<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["environments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["environment"] == name)
        .unwrap_or_else(|| panic!("no environment {name} in {doc}"))
}

/// `status Kind ns/name` of every pair that is not unchanged.
fn changes(e: &Value) -> Vec<String> {
    e["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["status"] != "unchanged")
        .map(|p| {
            let ns = p["namespace"].as_str().unwrap();
            let name = p["name"].as_str().unwrap();
            let id = if ns.is_empty() {
                name.to_string()
            } else {
                format!("{ns}/{name}")
            };
            format!(
                "{} {} {id}",
                p["status"].as_str().unwrap(),
                p["kind"].as_str().unwrap()
            )
        })
        .collect()
}

fn lines(p: &Value) -> Vec<String> {
    p["hunks"]
        .as_array()
        .map(|hs| {
            hs.iter()
                .flat_map(|h| h["lines"].as_array().unwrap().iter())
                .map(|l| l.as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

fn pair<'a>(e: &'a Value, kind: &str, name: &str) -> &'a Value {
    e["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["kind"] == kind && p["name"] == name)
        .unwrap_or_else(|| panic!("no pair {kind} {name}"))
}

const VM_PATCH: &str = "kubernetes/apps/production/observability/patches/victoria-metrics.yaml";
const CM_HR: &str = "kubernetes/apps/base/cert-manager/app/helmrelease.yaml";

#[test]
fn production_only_pin_bump_changes_only_production() {
    let r = Repo::new("pin");
    r.edit(VM_PATCH, "tag: 6.1.0", "tag: 6.2.0");
    r.commit("bump kube-state-metrics in production");
    let (doc, o) = r.json(&["diff", "production", "staging", "--base", "HEAD~1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let staging = env(&doc, "staging");
    assert!(changes(staging).is_empty(), "{:?}", changes(staging));
    assert_eq!(staging["versions"], serde_json::json!([]));
    let prod = env(&doc, "production");
    // The OCIRepository, and the production Kustomization that carries the
    // pin in its spec.patches.
    assert_eq!(
        changes(prod),
        [
            "changed Kustomization flux-system/victoria-metrics",
            "changed OCIRepository observability/kube-state-metrics"
        ]
    );
    let oci = pair(prod, "OCIRepository", "kube-state-metrics");
    assert_eq!(oci["producer"]["name"], "flux-system/victoria-metrics");
    assert!(lines(oci).contains(&"+    tag: 6.2.0".to_string()));
    let versions = prod["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 1, "{versions:?}");
    let digest = "sha256:b9061daed5244df8a29a6e9d027c8e37a8358c5cf1885c9bac260b0616f8cf20";
    assert_eq!(
        versions[0]["name"],
        "OCIRepository observability/kube-state-metrics"
    );
    assert_eq!(versions[0]["old"], format!("6.1.0@{digest}"));
    assert_eq!(versions[0]["new"], format!("6.2.0@{digest}"));
    assert_eq!(
        versions[0]["usedBy"],
        serde_json::json!(["HelmRelease observability/kube-state-metrics"])
    );

    // --exit-code: 1 with changes, 0 without.
    let o = r.flate(&["diff", "production", "--base", "HEAD~1", "--exit-code"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let o = r.flate(&["diff", "staging", "--base", "HEAD~1", "--exit-code"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("staging: no changes"), "{}", stdout(&o));
    // The summary in the unified and markdown outputs.
    let u = stdout(&r.flate(&["diff", "production", "--base", "HEAD~1", "-o", "unified"]));
    assert!(
        u.contains("chart OCIRepository observability/kube-state-metrics: 6.1.0@sha256:b9061daed524 → 6.2.0@sha256:b9061daed524"),
        "{u}"
    );
    let m = stdout(&r.flate(&["diff", "production", "--base", "HEAD~1", "-o", "markdown"]));
    assert!(
        m.contains("| chart `kube-state-metrics` | `6.1.0@sha256:b9061daed524` | `6.2.0@sha256:b9061daed524` | 1 OCIRepository, used by 1 HelmRelease in production |"),
        "{m}"
    );
}

#[test]
fn base_helmrelease_value_changes_both_environments() {
    let r = Repo::new("hrvalue");
    r.edit(CM_HR, "replicaCount: 1", "replicaCount: 2");
    r.commit("two cert-manager replicas");
    let (doc, o) = r.json(&["diff", "production", "staging", "--base", "HEAD~1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for name in ["production", "staging"] {
        let e = env(&doc, name);
        assert_eq!(
            changes(e),
            ["changed HelmRelease cert-manager/cert-manager"],
            "{name}"
        );
        let l = lines(pair(e, "HelmRelease", "cert-manager"));
        assert!(l.contains(&"-    replicaCount: 1".to_string()), "{l:?}");
        assert!(l.contains(&"+    replicaCount: 2".to_string()), "{l:?}");
        assert!(e["versions"].as_array().unwrap().is_empty());
    }
}

/// A release whose chart renders on neither side (not cached) gets a note
/// naming why and how to fetch it: the review sees its spec change, not
/// what it does to the chart's objects. A release whose chart renders (the
/// example's whoami, from a chart in the repository) gets none: its
/// objects are compared.
#[test]
fn a_changed_release_rendered_on_neither_side_is_noted() {
    let r = Repo::new("hrnote");
    r.edit(CM_HR, "replicaCount: 1", "replicaCount: 2");
    r.edit(
        "kubernetes/apps/production/default/patches/whoami.yaml",
        "replicaCount: 2",
        "replicaCount: 3",
    );
    r.commit("more replicas");
    let (doc, o) = r.json(&["diff", "production", "--base", "HEAD~1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let e = env(&doc, "production");
    let notes: Vec<&str> = e["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].starts_with("HelmRelease cert-manager/cert-manager changes, but its chart is not rendered on either side, so the objects it renders are not compared: chart cert-manager v1.18.1 is not in the chart cache"),
        "{notes:?}"
    );
    assert!(notes[0].contains("helm pull "), "{notes:?}");
    // whoami's rendered Deployment is compared instead.
    let got = changes(e);
    assert!(
        got.contains(&"changed Deployment default/whoami".to_string()),
        "{got:?}"
    );
}

#[test]
fn cluster_settings_change_shows_in_every_object_that_used_the_variable() {
    let r = Repo::new("settings");
    r.edit(
        "kubernetes/clusters/production/cluster-settings.yaml",
        "CLUSTER_APP_DOMAIN: futostat.us",
        "CLUSTER_APP_DOMAIN: apps.example.test",
    );
    r.commit("new application domain");
    // Every object of the head render that contains the new value.
    let o = r.flate(&["build", "production", "-o", "json"]);
    let built: Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut expected: Vec<String> = Vec::new();
    // The Kustomizations' objects and those the HelmReleases render.
    let producers = built["kustomizations"]
        .as_array()
        .unwrap()
        .iter()
        .chain(built["helmreleases"].as_array().unwrap());
    for k in producers {
        for obj in k["objects"].as_array().unwrap() {
            if obj.to_string().contains("apps.example.test") {
                let md = &obj["metadata"];
                let ns = md["namespace"].as_str().unwrap_or("");
                let name = md["name"].as_str().unwrap();
                let id = if ns.is_empty() {
                    name.to_string()
                } else {
                    format!("{ns}/{name}")
                };
                expected.push(format!("changed {} {id}", obj["kind"].as_str().unwrap()));
            }
        }
    }
    assert!(
        expected.len() >= 3,
        "the variable is used by several objects: {expected:?}"
    );
    let (doc, o) = r.json(&["diff", "production", "staging", "--base", "HEAD~1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mut got = changes(env(&doc, "production"));
    got.sort();
    expected.sort();
    assert_eq!(got, expected);
    assert!(changes(env(&doc, "staging")).is_empty());
}

#[test]
fn talos_spec_change_reaches_the_bootstrap_variables_of_each_side() {
    // Each side derives bootstrap-settings from its own talos.yaml: the
    // base from the revision's tree, the head from the working tree.
    let r = Repo::new("talos-settings");
    r.edit(
        "kubernetes/clusters/production/talos.yaml",
        "domain: o11y.futo.network",
        "domain: mesh.example.test",
    );
    let (doc, o) = r.json(&["diff", "production", "staging", "--base", "HEAD"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let got = changes(env(&doc, "production"));
    assert!(
        got.iter().any(|c| c.starts_with("changed Gateway ")),
        "{got:?}"
    );
    assert!(changes(env(&doc, "staging")).is_empty());
    let text = doc.to_string();
    assert!(
        text.contains("mesh.example.test"),
        "the head value is shown"
    );
    assert!(
        text.contains("o11y.futo.network"),
        "the base value is shown"
    );
    // --no-talos-settings: both sides substitute an empty domain alike.
    let (doc, _) = r.json(&[
        "diff",
        "production",
        "--base",
        "HEAD",
        "--no-talos-settings",
    ]);
    assert!(changes(env(&doc, "production")).is_empty(), "{doc:#}");
}

#[test]
fn an_object_that_changes_kustomization_is_a_move() {
    let r = Repo::new("move");
    r.move_storage_classes_to_victoria_metrics();
    r.edit(
        "kubernetes/apps/base/victoria-metrics/app/storageclasses.yaml",
        "reclaimPolicy: Retain",
        "reclaimPolicy: Delete",
    );
    r.commit("storage classes belong to victoria-metrics");
    let (doc, o) = r.json(&["diff", "staging", "--base", "HEAD~1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let e = env(&doc, "staging");
    assert_eq!(
        changes(e),
        [
            "moved StorageClass openebs-spare-disk",
            "moved StorageClass openebs-system-disk"
        ]
    );
    let spare = pair(e, "StorageClass", "openebs-spare-disk");
    assert_eq!(spare["producer"]["name"], "flux-system/victoria-metrics");
    assert_eq!(spare["movedFrom"]["name"], "flux-system/openebs");
    assert_eq!(
        lines(spare)
            .iter()
            .filter(|l| !l.starts_with(' '))
            .collect::<Vec<_>>(),
        ["-reclaimPolicy: Retain", "+reclaimPolicy: Delete"]
    );
    assert!(pair(e, "StorageClass", "openebs-system-disk")["hunks"].is_null());
    let u = stdout(&r.flate(&["diff", "staging", "--base", "HEAD~1", "-o", "unified"]));
    assert!(
        u.contains("# moved StorageClass openebs-system-disk from Kustomization flux-system/openebs, content unchanged"),
        "{u}"
    );
    assert!(u.contains("0 added, 0 removed, 2 moved"), "{u}");
}

const SECRET_OLD: &str = "hunter2-old-value";
const SECRET_NEW: &str = "correct-horse-new";
const TOKEN_OLD: &str = "tok-aaaa-1111";
const TOKEN_NEW: &str = "tok-bbbb-2222";
const LITERAL_OLD: &str = "literal-old-9876";
const LITERAL_NEW: &str = "literal-new-5432";

fn b64(s: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(s)
}

fn secret_repo(name: &str) -> Repo {
    let r = Repo::new(name);
    let secret = |pw: &str, tok: &str| {
        format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: grafana-extra\ntype: Opaque\ndata:\n  password: {}\n  username: {}\nstringData:\n  token: {tok}\n",
            b64(pw),
            b64("admin")
        )
    };
    r.write(
        "kubernetes/apps/base/grafana/app/secret.yaml",
        &secret(SECRET_OLD, TOKEN_OLD),
    );
    r.edit(
        "kubernetes/apps/base/grafana/app/kustomization.yaml",
        "resources:\n",
        &format!(
            "secretGenerator:\n  - name: grafana-generated\n    literals:\n      - api-key={LITERAL_OLD}\nresources:\n  - ./secret.yaml\n"
        ),
    );
    r.commit("grafana secrets");
    r.write(
        "kubernetes/apps/base/grafana/app/secret.yaml",
        &secret(SECRET_NEW, TOKEN_NEW),
    );
    r.edit(
        "kubernetes/apps/base/grafana/app/kustomization.yaml",
        LITERAL_OLD,
        LITERAL_NEW,
    );
    r.commit("rotate grafana secrets");
    r
}

#[test]
fn changed_secret_values_never_appear_in_any_format() {
    let r = secret_repo("secret");
    let forbidden: Vec<String> = [
        SECRET_OLD,
        SECRET_NEW,
        TOKEN_OLD,
        TOKEN_NEW,
        LITERAL_OLD,
        LITERAL_NEW,
    ]
    .iter()
    .flat_map(|s| [s.to_string(), b64(s)])
    .chain([b64("admin")])
    .collect();
    for format in [
        "unified", "json", "human", "markdown", "github", "gitlab", "html",
    ] {
        let o = r.flate(&["diff", "staging", "--base", "HEAD~1", "-o", format]);
        assert_eq!(o.status.code(), Some(0), "{format}: {}", stderr(&o));
        let out = stdout(&o) + &stderr(&o);
        for f in &forbidden {
            assert!(!out.contains(f.as_str()), "{format} shows {f}:\n{out}");
        }
        let text = matches!(format, "unified" | "json");
        for key in ["password", "token", "api-key"] {
            let line = match format {
                "unified" | "json" => format!("+  {key}: '<redacted: changed>'"),
                "human" => format!(".{key}: **redacted** → <redacted: changed>"),
                "html" => "redacted: changed".to_string(),
                _ => format!(".{key} @@\n-**redacted**\n+<redacted: changed>"),
            };
            assert!(
                out.contains(&line),
                "{format}: no changed line for {key}:\n{out}"
            );
        }
        // An unchanged value is redacted too, and does not show as changed.
        if text {
            assert!(
                out.contains("  username: '**redacted**'"),
                "{format}:\n{out}"
            );
        }
        assert!(
            !out.contains("+  username") && !out.contains(".username"),
            "{format}:\n{out}"
        );
    }
    // The generated Secret's name hash changed: it pairs with its old self.
    let (doc, _) = r.json(&["diff", "staging", "--base", "HEAD~1"]);
    let e = env(&doc, "staging");
    let generated = pair_name_with_prefix(e, "grafana-generated-");
    assert_eq!(
        changes(e),
        [
            "changed Secret observability/grafana-extra".to_string(),
            format!("changed Secret observability/{generated}")
        ]
    );
    let g = pair(e, "Secret", &generated);
    assert!(
        g["baseName"]
            .as_str()
            .is_some_and(|b| b.starts_with("grafana-generated-") && b != generated),
        "{g}"
    );
}

#[test]
fn version_summary_lists_helm_repository_charts_and_images() {
    let r = Repo::new("versions");
    let extra = |chart: &str, tag: &str, digest: char| {
        format!(
            "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: charts\nspec:\n  url: https://charts.example.test\n---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: redis\nspec:\n  chart:\n    spec:\n      chart: redis\n      version: {chart}\n      sourceRef:\n        kind: HelmRepository\n        name: charts\n  values:\n    image:\n      registry: docker.io\n      repository: bitnami/redis\n      tag: {tag}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27@sha256:{}\n",
            digest.to_string().repeat(64)
        )
    };
    r.write(
        "kubernetes/apps/base/spegel/app/extra.yaml",
        &extra("19.0.1", "7.2.4", 'a'),
    );
    r.edit(
        "kubernetes/apps/base/spegel/app/kustomization.yaml",
        "  - ./helmrelease.yaml\n",
        "  - ./helmrelease.yaml\n  - ./extra.yaml\n",
    );
    r.commit("redis and web");
    r.write(
        "kubernetes/apps/base/spegel/app/extra.yaml",
        &extra("19.1.0", "7.2.5", 'b'),
    );
    r.commit("bump");
    let (doc, o) = r.json(&["diff", "staging", "--base", "HEAD~1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let rows: Vec<String> = env(&doc, "staging")["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            format!(
                "{} {}: {} -> {} {}",
                v["kind"].as_str().unwrap(),
                v["name"].as_str().unwrap(),
                v["old"].as_str().unwrap(),
                v["new"].as_str().unwrap(),
                v["usedBy"]
            )
        })
        .collect();
    let (a, b) = ("a".repeat(64), "b".repeat(64));
    assert_eq!(
        rows,
        [
            "chart HelmRelease network/redis: redis 19.0.1 -> redis 19.1.0 []".to_string(),
            format!("image nginx: 1.27@sha256:{a} -> 1.27@sha256:{b} [\"Deployment network/web\"]"),
            "image docker.io/bitnami/redis: 7.2.4 -> 7.2.5 [\"HelmRelease network/redis\"]"
                .to_string(),
        ]
    );
}

#[test]
fn helmrelease_values_from_a_secret_are_redacted() {
    let r = Repo::new("valuesfrom");
    let values = |token: &str, team: &str| {
        format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: cm-values\nstringData:\n  values.yaml: |\n    webhook:\n      token: {token}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-plain\ndata:\n  values.yaml: |\n    podLabels:\n      team: {team}\n"
        )
    };
    r.write(
        "kubernetes/apps/base/cert-manager/app/values.yaml",
        &values(TOKEN_OLD, "alpha"),
    );
    r.edit(
        "kubernetes/apps/base/cert-manager/app/kustomization.yaml",
        "  - ./helmrelease.yaml\n",
        "  - ./helmrelease.yaml\n  - ./values.yaml\n",
    );
    r.edit(
        CM_HR,
        "\n  values:\n",
        "\n  valuesFrom:\n    - kind: Secret\n      name: cm-values\n    - kind: ConfigMap\n      name: cm-plain\n  values:\n",
    );
    r.commit("values from a Secret and a ConfigMap");
    r.write(
        "kubernetes/apps/base/cert-manager/app/values.yaml",
        &values(TOKEN_NEW, "beta"),
    );
    r.commit("rotate");
    for format in ["unified", "json", "markdown", "human", "html"] {
        let o = r.flate(&["diff", "staging", "--base", "HEAD~1", "-o", format]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let out = stdout(&o);
        for f in [TOKEN_OLD, TOKEN_NEW] {
            assert!(!out.contains(f), "{format} shows {f}:\n{out}");
        }
        // The ConfigMap is not secret; in the HelmRelease's effective
        // values, what came from the Secret is redacted and what came
        // from the ConfigMap is not.
        let wants: &[&str] = match format {
            "unified" | "json" => &[
                "+      team: beta",
                "+  token: '<redacted: changed>'",
                "+  team: beta",
            ],
            // The page embeds the diff as escaped data.
            "html" => &["redacted: changed", "team: beta"],
            _ => &["<redacted: changed>", "team: beta"],
        };
        for want in wants {
            assert!(out.contains(want), "{format}: {want}\n{out}");
        }
    }
    let (doc, _) = r.json(&["diff", "staging", "--base", "HEAD~1"]);
    let e = env(&doc, "staging");
    let v = pair(e, "Values", "cert-manager");
    assert_eq!(v["producer"]["kind"], "HelmRelease");
    assert_eq!(v["producer"]["name"], "cert-manager/cert-manager");
    let u = stdout(&r.flate(&["diff", "staging", "--base", "HEAD~1", "-o", "unified"]));
    assert!(
        u.contains("=== staging: HelmRelease cert-manager/cert-manager (1 changed)\n# changed effective values of HelmRelease cert-manager/cert-manager"),
        "{u}"
    );
}

fn pair_name_with_prefix(e: &Value, prefix: &str) -> String {
    e["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["name"].as_str())
        .find(|n| n.starts_with(prefix))
        .unwrap()
        .to_string()
}

#[test]
fn a_broken_side_gives_exit_2_with_a_one_sided_report() {
    let r = Repo::new("broken");
    r.edit(
        "kubernetes/apps/base/spegel/app/kustomization.yaml",
        "  - ./helmrelease.yaml\n",
        "  - ./helmrelease.yaml\n  - ./missing.yaml\n",
    );
    r.edit(CM_HR, "replicaCount: 1", "replicaCount: 2");
    r.commit("break spegel");
    let (doc, o) = r.json(&["diff", "staging", "--base", "HEAD~1"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("spegel"), "{}", stderr(&o));
    let e = env(&doc, "staging");
    assert_eq!(e["status"], "failed");
    let problems = e["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0]["kustomization"], "flux-system/spegel");
    assert_eq!(problems[0]["base"]["status"], "rendered");
    assert_eq!(problems[0]["head"]["status"], "failed");
    assert!(
        problems[0]["head"]["message"]
            .as_str()
            .unwrap()
            .contains("missing.yaml"),
        "{problems:?}"
    );
    // spegel's objects are neither added nor removed; the rest is diffed.
    assert_eq!(
        changes(e),
        ["changed HelmRelease cert-manager/cert-manager"]
    );
    let u = r.flate(&["diff", "staging", "--base", "HEAD~1"]);
    assert_eq!(u.status.code(), Some(2));
    let text = stdout(&u);
    assert!(
        text.contains("error: Kustomization flux-system/spegel fails on head: ")
            && text.contains("(renders on base); its objects are not compared"),
        "{text}"
    );
    let m = stdout(&r.flate(&["diff", "staging", "--base", "HEAD~1", "-o", "markdown"]));
    assert!(
        m.contains("> [!CAUTION]\n> - Kustomization `flux-system/spegel` fails on head"),
        "{m}"
    );

    // Still broken after an unrelated change: the same failure on both
    // sides is not the change's doing, a note, not exit 2.
    r.edit(CM_HR, "replicaCount: 2", "replicaCount: 3");
    r.commit("unrelated");
    let (doc, o) = r.json(&["diff", "staging", "--base", "HEAD~1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let e = env(&doc, "staging");
    assert_eq!(e["status"], "changed");
    let p = &e["problems"][0];
    assert_eq!(p["fatal"], false, "{p}");
    let msg = p["message"].as_str().unwrap();
    assert!(
        msg.contains("fails the same way on both sides") && msg.contains("--settings"),
        "{p}"
    );
    let u = stdout(&r.flate(&["diff", "staging", "--base", "HEAD~1"]));
    assert!(
        u.contains("note: Kustomization flux-system/spegel fails the same way"),
        "{u}"
    );

    // The other way round: broken on the base, fixed on the head. The
    // failure was already there: a note, not exit 2.
    r.edit(
        "kubernetes/apps/base/spegel/app/kustomization.yaml",
        "  - ./missing.yaml\n",
        "",
    );
    r.commit("fix spegel");
    let (doc, o) = r.json(&["diff", "staging", "--base", "HEAD~1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let p = &env(&doc, "staging")["problems"][0];
    assert_eq!(p["base"]["status"], "failed");
    assert_eq!(p["head"]["status"], "rendered");
    assert_eq!(p["fatal"], false, "{p}");
    assert!(
        p["message"].as_str().unwrap().contains("fails on base"),
        "{p}"
    );
}

#[test]
fn a_failing_root_hides_nothing_as_removed() {
    let r = Repo::new("rendererror");
    r.edit(
        "kubernetes/clusters/staging/kustomization.yaml",
        "  - ./apps.yaml\n",
        "  - ./apps.yaml\n  - ./nope.yaml\n",
    );
    r.commit("break the root");
    let (doc, o) = r.json(&["diff", "staging", "--base", "HEAD~1"]);
    assert_eq!(o.status.code(), Some(2));
    let e = env(&doc, "staging");
    // The root fails: what it would have produced is not reported removed.
    let p = &e["problems"][0];
    assert_eq!(p["kustomization"], "flux-system/flux-system", "{p}");
    assert_eq!(p["head"]["status"], "failed");
    assert!(p["descendants"].as_array().unwrap().len() > 10, "{p}");
    assert_eq!(e["counts"]["removed"], 0, "{}", e["counts"]);
    assert!(changes(e).is_empty());
}

#[test]
fn default_base_is_the_merge_base_with_the_upstream() {
    let r = Repo::new("mergebase");
    r.git(&["checkout", "-q", "-b", "feature"]);
    r.edit(CM_HR, "replicaCount: 1", "replicaCount: 2");
    r.commit("feature: replicas");
    // main moves on after the branch point: its change must not show.
    r.git(&["checkout", "-q", "main"]);
    r.edit(
        "kubernetes/apps/base/spegel/app/helmrelease.yaml",
        "spec:\n",
        "spec:\n  suspend: false\n",
    );
    r.commit("main: spegel");
    let main = r.git(&["rev-parse", "HEAD"]);
    r.git(&["update-ref", "refs/remotes/origin/main", &main]);
    r.git(&["checkout", "-q", "feature"]);
    let branch_point = r.git(&["rev-parse", "--short=12", "HEAD~1"]);

    let (doc, o) = r.json(&["diff", "staging"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let e = env(&doc, "staging");
    assert_eq!(
        changes(e),
        ["changed HelmRelease cert-manager/cert-manager"]
    );
    assert_eq!(
        e["base"],
        format!("merge-base of HEAD and origin/main ({branch_point})")
    );

    // With an upstream configured, the upstream wins.
    r.git(&["config", "branch.feature.remote", "origin"]);
    r.git(&["config", "branch.feature.merge", "refs/heads/main"]);
    r.git(&[
        "config",
        "remote.origin.url",
        "https://example.invalid/repo.git",
    ]);
    r.git(&[
        "config",
        "remote.origin.fetch",
        "+refs/heads/*:refs/remotes/origin/*",
    ]);
    let (doc, o) = r.json(&["diff", "staging"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        env(&doc, "staging")["base"],
        format!("merge-base of HEAD and upstream ({branch_point})")
    );

    // No upstream and no origin: a clear error.
    r.git(&["update-ref", "-d", "refs/remotes/origin/main"]);
    r.git(&["config", "--unset", "branch.feature.merge"]);
    let o = r.flate(&["diff", "staging"]);
    fails_saying(&o, "pass --base REV");
}

#[test]
fn a_shallow_clone_without_the_base_says_to_fetch_more_history() {
    let r = Repo::new("shallow-src");
    r.edit(CM_HR, "replicaCount: 1", "replicaCount: 2");
    r.commit("second");
    let scratch = common::scratch("diff-shallow");
    let clone = scratch.join("clone");
    common::git(
        &scratch,
        &[
            "clone",
            "-q",
            "--depth",
            "1",
            &format!("file://{}", r.dir.display()),
            clone.to_str().unwrap(),
        ],
    );
    let c = Repo {
        dir: clone,
        _scratch: scratch,
    };
    let o = c.flate(&["diff", "staging", "--base", "HEAD~1"]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    let err = stderr(&o);
    assert!(
        err.contains("shallow clone") && err.contains("fetch"),
        "{err}"
    );
}

#[test]
fn path_orig_diffs_against_another_checkout_and_key_order_never_shows() {
    let r = Repo::new("pathorig");
    let orig = common::scratch("diff-orig");
    common::copy_dir(&example(), &orig.join("kubernetes"));
    // Reordered keys and re-quoted scalars: the same objects.
    r.edit(
        CM_HR,
        "    crds:\n      enabled: true\n      keep: true\n    replicaCount: 1\n",
        "    replicaCount: 1\n    crds:\n      keep: true\n      enabled: \"true\"\n",
    );
    r.edit(
        CM_HR,
        "    replicaCount: 1\n    crds:\n      keep: true\n      enabled: \"true\"\n",
        "    replicaCount: 1\n    crds:\n      keep: true\n      enabled: true\n",
    );
    let o = r.flate(&[
        "diff",
        "staging",
        "production",
        "--path-orig",
        orig.to_str().unwrap(),
        "--exit-code",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("production: no changes"),
        "{}",
        stdout(&o)
    );
    // A real change against the other checkout.
    r.edit(CM_HR, "replicaCount: 1", "replicaCount: 3");
    let (doc, _) = r.json(&["diff", "staging", "--path-orig", orig.to_str().unwrap()]);
    let e = env(&doc, "staging");
    assert_eq!(
        changes(e),
        ["changed HelmRelease cert-manager/cert-manager"]
    );
    assert_eq!(e["base"], orig.to_str().unwrap());
    // --ignore-field drops it.
    let (doc, _) = r.json(&[
        "diff",
        "staging",
        "--path-orig",
        orig.to_str().unwrap(),
        "--ignore-field",
        "HelmRelease:spec.values.replicaCount",
    ]);
    assert!(changes(env(&doc, "staging")).is_empty());
    let o = r.flate(&[
        "diff",
        "staging",
        "--path-orig",
        ".",
        "--ignore-field",
        "a..b",
    ]);
    fails_saying(&o, "--ignore-field 'a..b'");
}

#[test]
fn colour_only_when_asked_or_on_a_terminal() {
    let r = Repo::new("colour");
    r.edit(CM_HR, "replicaCount: 1", "replicaCount: 2");
    r.commit("replicas");
    let plain = stdout(&r.flate(&["diff", "staging", "--base", "HEAD~1", "-o", "unified"]));
    assert!(!plain.contains('\x1b'), "piped output is plain");
    assert!(plain.contains("\n+    replicaCount: 2\n"), "{plain}");
    let coloured = stdout(&r.flate(&[
        "diff", "staging", "--base", "HEAD~1", "--color", "always", "-o", "unified",
    ]));
    assert!(
        coloured.contains("\x1b[32m+    replicaCount: 2\x1b[0m"),
        "{coloured:?}"
    );
}

#[test]
fn a_new_environment_is_all_added() {
    let r = Repo::new("newenv");
    common::copy_dir(
        &r.path("kubernetes/clusters/staging"),
        &r.path("kubernetes/clusters/dev"),
    );
    r.commit("dev environment");
    let (doc, o) = r.json(&["diff", "dev", "--base", "HEAD~1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let e = env(&doc, "dev");
    let c = &e["counts"];
    assert!(c["added"].as_u64().unwrap() > 50, "{c}");
    assert_eq!(c["removed"], 0);
    assert!(
        e["notes"][0]
            .as_str()
            .unwrap()
            .contains("does not exist on base")
    );
    let o = r.flate(&["diff", "nowhere", "--base", "HEAD~1"]);
    fails_saying(&o, "exists on neither side");
}

#[test]
fn markdown_stays_under_the_comment_limit_cutting_the_largest_diffs_first() {
    let r = Repo::new("big");
    // A ConfigMap with a large value that changes on every line.
    let big = |v: &str| {
        let mut s = String::from(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  conf: |\n",
        );
        for i in 0..4000 {
            s.push_str(&format!("    line {i} = {v}\n"));
        }
        s
    };
    r.write("kubernetes/apps/base/spegel/app/big.yaml", &big("old"));
    r.edit(
        "kubernetes/apps/base/spegel/app/kustomization.yaml",
        "  - ./helmrelease.yaml\n",
        "  - ./helmrelease.yaml\n  - ./big.yaml\n",
    );
    r.commit("big");
    r.write("kubernetes/apps/base/spegel/app/big.yaml", &big("new"));
    r.edit(CM_HR, "replicaCount: 1", "replicaCount: 2");
    r.edit(VM_PATCH, "tag: 6.1.0", "tag: 6.2.0");
    r.commit("change big");
    let m = stdout(&r.flate(&[
        "diff",
        "staging",
        "production",
        "--base",
        "HEAD~1",
        "-o",
        "markdown",
    ]));
    assert!(m.chars().count() < 65_536, "{}", m.len());
    assert!(
        m.contains("Cut to stay under GitHub's 65,536-character comment limit, largest first: the diffs of 2 objects (8000 changed lines): `staging: ConfigMap network/big, production: ConfigMap network/big`."),
        "{}",
        &m[m.len().saturating_sub(600)..]
    );
    // The big change is the same in both environments: one group, whose
    // diff was cut.
    assert!(
        m.contains(
            "- `data.conf` in 2 ConfigMaps (big) in staging and production (diff cut to fit)\n"
        ),
        "{m}"
    );
    // The rest is kept.
    assert!(m.contains("- `spec.values.replicaCount: 1 → 2` in 2 HelmReleases (cert-manager) in staging and production\n"), "{m}");
    assert!(m.contains("@@ spec.ref.tag @@\n-6.1.0\n+6.2.0\n"), "{m}");
    // A smaller limit cuts more, largest first.
    let m = stdout(&r.flate(&[
        "diff",
        "staging",
        "production",
        "--base",
        "HEAD~1",
        "-o",
        "markdown",
        "--max-chars",
        "3000",
    ]));
    assert!(m.len() < 3000, "{}", m.len());
    assert!(
        m.contains("Cut to stay under GitHub's 3,000-character"),
        "{m}"
    );
    assert!(m.contains("## flate diff `production`"), "{m}");
}

/// The example tree, then a commit with a bit of everything: a chart pin
/// bump, a value change, an image tag, a Secret value, two objects moved to
/// another Kustomization, and a Kustomization that fails on head.
fn everything_repo(name: &str) -> Repo {
    let r = Repo::new(name);
    let secret = |pw: &str| {
        format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: grafana-extra\ndata:\n  password: {}\n",
            b64(pw)
        )
    };
    r.write(
        "kubernetes/apps/base/grafana/app/secret.yaml",
        &secret(SECRET_OLD),
    );
    r.edit(
        "kubernetes/apps/base/grafana/app/kustomization.yaml",
        "resources:\n",
        "resources:\n  - ./secret.yaml\n",
    );
    r.commit("grafana secret");
    r.edit(VM_PATCH, "tag: 6.1.0", "tag: 6.2.0");
    r.edit(
        VM_PATCH,
        "digest: sha256:b9061daed5244df8a29a6e9d027c8e37a8358c5cf1885c9bac260b0616f8cf20",
        "digest: sha256:0000000000000000000000000000000000000000000000000000000000000001",
    );
    r.edit(CM_HR, "replicaCount: 1", "replicaCount: 2");
    r.edit(
        "kubernetes/apps/base/multus/app/helmrelease.yaml",
        "tag: v4.2.2@",
        "tag: v4.2.3@",
    );
    r.write(
        "kubernetes/apps/base/grafana/app/secret.yaml",
        &secret(SECRET_NEW),
    );
    r.move_storage_classes_to_victoria_metrics();
    r.edit(
        "kubernetes/apps/base/spegel/app/kustomization.yaml",
        "  - ./helmrelease.yaml\n",
        "  - ./helmrelease.yaml\n  - ./missing.yaml\n",
    );
    r.commit("a bit of everything");
    r
}

#[test]
fn markdown_of_a_reviewed_example() {
    let r = everything_repo("snapshot");
    let base = r.git(&["rev-parse", "--short=12", "HEAD~1"]);
    let o = r.flate(&[
        "diff",
        "production",
        "staging",
        "--base",
        "HEAD~1",
        "-o",
        "markdown",
    ]);
    assert_eq!(o.status.code(), Some(2), "spegel fails on head");
    let m = stdout(&o).replace(&base, "BASE");
    assert!(!m.contains(SECRET_OLD) && !m.contains(&b64(SECRET_NEW)));
    insta::assert_snapshot!(m);
}

/// The objects a JSON diff lists as changed: `env|Kind|namespace/name`.
fn changed_objects(doc: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for e in doc["environments"].as_array().unwrap() {
        for p in e["pairs"].as_array().unwrap() {
            if p["status"] == "unchanged" {
                continue;
            }
            let (ns, name) = (
                p["namespace"].as_str().unwrap(),
                p["name"].as_str().unwrap(),
            );
            let q = if ns.is_empty() {
                name.to_string()
            } else {
                format!("{ns}/{name}")
            };
            out.push(format!(
                "{}|{}|{q}",
                e["environment"].as_str().unwrap(),
                p["kind"].as_str().unwrap()
            ));
        }
    }
    out
}

/// Why the browser check cannot run here, if it cannot.
fn browser_missing() -> Option<String> {
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    if !std::path::Path::new(&chromium).exists() {
        return Some(format!("{chromium} is missing (apt-get install chromium)"));
    }
    if Command::new("node").arg("--version").output().is_err() {
        return Some("node is not on PATH".into());
    }
    let pw = common::root().join("tests/browser/node_modules/playwright-core");
    if !pw.exists() {
        return Some(
            "tests/browser/node_modules is missing (npm ci --prefix tests/browser)".into(),
        );
    }
    None
}

#[test]
fn html_report_is_self_contained_and_works_in_a_browser() {
    let r = everything_repo("html");
    let o = r.flate(&[
        "diff",
        "production",
        "staging",
        "--base",
        "HEAD~1",
        "-o",
        "html",
    ]);
    assert_eq!(o.status.code(), Some(2), "spegel fails on head");
    let page = stdout(&o);
    // Self-contained: no external resources, and a policy that forbids them.
    assert!(page.contains("Content-Security-Policy\" content=\"default-src 'none'"));
    for bad in ["<link", " src=", "@import", "url("] {
        assert!(!page.contains(bad), "the page has {bad}");
    }
    assert!(!page.contains(SECRET_OLD) && !page.contains(&b64(SECRET_NEW)));
    assert!(page.contains("1 chart upgraded in 1 release, 1 image changed"));
    let (doc, _) = r.json(&["diff", "production", "staging", "--base", "HEAD~1"]);
    let objects = changed_objects(&doc);
    for want in [
        "production|OCIRepository|observability/kube-state-metrics",
        "staging|Secret|observability/grafana-extra",
        "staging|StorageClass|openebs-system-disk",
    ] {
        assert!(objects.iter().any(|o| o == want), "{want} in {objects:?}");
    }
    if let Some(why) = browser_missing() {
        assert!(
            std::env::var_os("FLATE_BROWSER_TEST").is_none(),
            "FLATE_BROWSER_TEST is set but {why}"
        );
        println!("SKIPPED: browser check of the HTML report: {why}");
        return;
    }
    let report = r.path("report.html");
    std::fs::write(&report, &page).unwrap();
    let keeps: Vec<&String> = objects
        .iter()
        .filter(|o| o.contains("|StorageClass|"))
        .collect();
    let mut expect = serde_json::json!({
        "objects": objects,
        "hideKind": "Secret",
        "search": "storageclass",
        "searchKeeps": keeps,
        "maxOpenMs": 2000,
    });
    if let Some(shot) = std::env::var_os("FLATE_SCREENSHOT") {
        expect["screenshot"] = shot.to_string_lossy().into();
        expect["screenshotSelect"] = "HelmRelease network/multus".into();
    }
    let expect_path = r.path("expect.json");
    std::fs::write(&expect_path, expect.to_string()).unwrap();
    let o = Command::new("node")
        .arg(common::root().join("tests/browser/report.test.mjs"))
        .arg(&report)
        .arg(&expect_path)
        .output()
        .expect("run node");
    let out = stdout(&o) + &stderr(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("ok tree lists the expected"), "{out}");
    println!("{out}");
}

#[test]
fn human_output_names_paths_groups_identical_changes_and_skips_kinds() {
    let r = everything_repo("human");
    let args = ["diff", "production", "staging", "--base", "HEAD~1"];
    let o = r.flate(&args);
    assert_eq!(o.status.code(), Some(2), "spegel fails on head");
    let h = stdout(&o);
    assert!(
        h.contains("Versions: 1 chart upgraded in 1 release, 1 image changed"),
        "{h}"
    );
    // One line for the change both environments share, with where.
    assert!(
        h.contains("~ spec.values.replicaCount: 1 → 2\n    in 2 HelmReleases (cert-manager) in production and staging\n"),
        "{h}"
    );
    assert_eq!(h.matches("replicaCount").count(), 1, "{h}");
    assert!(
        h.contains("~ changed OCIRepository observability/kube-state-metrics\n"),
        "{h}"
    );
    assert!(h.contains("    spec.ref.tag: 6.1.0 → 6.2.0\n"), "{h}");
    assert!(h.contains("→ moved StorageClass openebs-system-disk from Kustomization flux-system/openebs, content unchanged"), "{h}");
    assert!(
        !h.contains("@@ -"),
        "no line hunks in the human output:\n{h}"
    );

    // The comment formats: `@@ path @@` sections, GitLab's alert syntax.
    let gh = stdout(&r.flate(&[&args[..], &["-o", "github"]].concat()));
    assert!(gh.contains("@@ spec.ref.tag @@\n-6.1.0\n+6.2.0\n"), "{gh}");
    assert!(gh.contains("> [!CAUTION]"), "{gh}");
    let gl = stdout(&r.flate(&[&args[..], &["-o", "gitlab"]].concat()));
    assert!(
        gl.contains("> **Caution**") && !gl.contains("[!CAUTION]"),
        "{gl}"
    );
    assert_eq!(
        gh.replace("> [!CAUTION]\n", "")
            .replace("> [!WARNING]\n", ""),
        gl.replace("> **Caution**\n>\n", "")
            .replace("> **Warning**\n>\n", "")
    );
    // The two releases whose values change render on neither side (their
    // charts are not cached): one note says that their objects are not
    // compared.
    assert!(
        h.contains("note: 2 HelmReleases change, but their charts are not rendered on either side, so the objects they render are not compared: cert-manager/cert-manager (cert-manager v1.18.1), network/multus (app-template 4.1.2); `flate get charts production` lists the charts and how to fetch them\n"),
        "{h}"
    );

    // Images: the multus tag moved, its digest did not.
    let o = r.flate(&["diff", "images", "staging", "--base", "HEAD~1"]);
    let t = stdout(&o);
    assert!(
        t.lines().any(
            |l| l.starts_with("staging  ghcr.io/k8snetworkplumbingwg/multus-cni")
                && l.contains("v4.2.2@sha256:5ca9ea201015")
                && l.contains("v4.2.3@sha256:5ca9ea201015")
                && l.contains("! tag changed, digest did not")
                && l.ends_with("HelmRelease network/multus")
        ),
        "{t}"
    );
    // Its JSON is a document of the contract; its page escapes and flags.
    let j: serde_json::Value = serde_json::from_str(&stdout(&r.flate(&[
        "diff", "images", "staging", "--base", "HEAD~1", "-o", "json",
    ])))
    .unwrap();
    assert_eq!(j["apiVersion"], "flate.dev/v1");
    assert_eq!(j["kind"], "ImageDiff");
    let img = &j["environments"][0]["images"][0];
    assert_eq!(img["image"], "ghcr.io/k8snetworkplumbingwg/multus-cni");
    assert_eq!(img["tagWithoutDigest"], true);
    let page = stdout(&r.flate(&[
        "diff", "images", "staging", "--base", "HEAD~1", "-o", "html",
    ]));
    assert!(
        page.starts_with("<!doctype html>") && page.ends_with("</html>\n"),
        "{page}"
    );
    assert!(
        page.contains("<td><code>ghcr.io/k8snetworkplumbingwg/multus-cni</code></td>")
            && page.contains("⚠️ tag changed, digest did not")
            && page.contains("<td>HelmRelease network/multus</td>"),
        "{page}"
    );
    let g = stdout(&r.flate(&["get", "images", "staging"]));
    assert!(
        g.lines()
            .any(|l| l.starts_with("ghcr.io/k8snetworkplumbingwg/multus-cni")
                && l.contains("v4.2.3")
                && l.ends_with("HelmRelease network/multus")),
        "{g}"
    );

    // Skipping kinds.
    let (doc, _) = r.json(
        &[
            &args[..],
            &["--skip-secrets", "--skip-kinds", "StorageClass"],
        ]
        .concat(),
    );
    let objects = changed_objects(&doc);
    assert!(!objects.is_empty());
    assert!(
        objects
            .iter()
            .all(|o| !o.contains("|Secret|") && !o.contains("|StorageClass|")),
        "{objects:?}"
    );
    let h = stdout(
        &r.flate(
            &[
                &args[..],
                &["--skip-secrets", "--skip-kinds", "StorageClass"],
            ]
            .concat(),
        ),
    );
    assert!(
        h.contains("note: skipped: 1 Secret and 2 StorageClasses"),
        "{h}"
    );
}

#[test]
fn chart_bump_noise_is_hidden_and_said_and_lists_pair_by_name() {
    let r = Repo::new("noise");
    let deploy = |chart: &str, sum: &str, env: &str, image: &str| {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels:\n    helm.sh/chart: web-{chart}\n    app.kubernetes.io/version: '{chart}'\nspec:\n  selector:\n    matchLabels: {{app: web}}\n  template:\n    metadata:\n      labels: {{app: web}}\n      annotations:\n        checksum/config: '{sum}'\n    spec:\n      containers:\n      - name: app\n        image: {image}\n        env:\n{env}      - name: sidecar\n        image: envoy:1\n"
        )
    };
    let ab = "        - name: A\n          value: '1'\n        - name: B\n          value: '2'\n";
    let ba = "        - name: B\n          value: '2'\n        - name: A\n          value: '1'\n";
    r.write(
        "kubernetes/apps/base/grafana/app/web.yaml",
        &deploy("1.0.0", "aaa", ab, "nginx:1.26"),
    );
    r.edit(
        "kubernetes/apps/base/grafana/app/kustomization.yaml",
        "resources:\n",
        "resources:\n  - ./web.yaml\n",
    );
    r.commit("web");
    r.write(
        "kubernetes/apps/base/grafana/app/web.yaml",
        &deploy("1.1.0", "bbb", ba, "nginx:1.27"),
    );
    r.write(
        "kubernetes/apps/base/grafana/app/extra.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\ndata:\n  k: v\n",
    );
    r.edit(
        "kubernetes/apps/base/grafana/app/kustomization.yaml",
        "resources:\n",
        "resources:\n  - ./extra.yaml\n",
    );
    r.commit("chart bump");
    let h = stdout(&r.flate(&["diff", "staging", "--base", "HEAD~1"]));
    assert!(
        h.contains("~ changed Deployment observability/web\n    spec.template.spec.containers[name=app].env: ⇆ order changed\n    spec.template.spec.containers[name=app].image: nginx:1.26 → nginx:1.27\n"),
        "{h}"
    );
    assert!(
        !h.contains("helm.sh/chart:") && !h.contains("checksum/config:"),
        "{h}"
    );
    assert!(
        h.contains("note: the default ignores hid 3 differences in 1 object (helm.sh/chart, app.kubernetes.io/version, checksum/*); --no-default-ignores shows them"),
        "{h}"
    );
    assert!(
        h.contains("+ added ConfigMap observability/extra (--full prints it)"),
        "{h}"
    );
    let full = stdout(&r.flate(&["diff", "staging", "--base", "HEAD~1", "--full"]));
    assert!(
        full.contains("+ added ConfigMap observability/extra\n    +apiVersion: v1\n"),
        "{full}"
    );
    let all = stdout(&r.flate(&[
        "diff",
        "staging",
        "--base",
        "HEAD~1",
        "--no-default-ignores",
    ]));
    assert!(
        all.contains("    metadata.labels[helm.sh/chart]: web-1.0.0 → web-1.1.0\n"),
        "{all}"
    );
    assert!(
        all.contains("    spec.template.metadata.annotations.checksum/config: aaa → bbb\n"),
        "{all}"
    );
    assert!(!all.contains("default ignores hid"), "{all}");
}

#[test]
fn a_value_the_change_writes_that_a_patch_replaces_is_noted() {
    let r = Repo::new("overridden");
    // Production gives every HelmRelease of whoami's Kustomization a 30m
    // interval (a kind-wide defaults patch): the interval this change
    // writes in the base reaches staging only.
    let patches = "kubernetes/apps/production/default/patches/whoami.yaml";
    let text = std::fs::read_to_string(r.path(patches)).unwrap();
    r.write(
        patches,
        &format!(
            "{text}- op: add\n  path: /spec/patches/-\n  value:\n    target:\n      group: helm.toolkit.fluxcd.io\n      kind: HelmRelease\n    patch: |-\n      apiVersion: helm.toolkit.fluxcd.io/v2\n      kind: HelmRelease\n      metadata:\n        name: defaults\n      spec:\n        interval: 30m\n"
        ),
    );
    r.commit("production defaults");
    let hr = "kubernetes/apps/base/whoami/app/helmrelease.yaml";
    r.edit(hr, "  interval: 1h\n", "  interval: 2h\n");
    r.commit("slower");
    let (doc, o) = r.json(&["diff", "--base", "HEAD~1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let notes = |name: &str| -> Vec<String> {
        env(&doc, name)["notes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap().to_string())
            .filter(|n| n.ends_with("[patch-overrides-value]"))
            .collect()
    };
    let production = notes("production");
    assert_eq!(production.len(), 1, "{production:?}");
    assert!(
        production[0].starts_with("kubernetes/apps/base/whoami/app/helmrelease.yaml:7: HelmRelease default/whoami: spec.interval is written as 2h here, but the cluster gets 30m: Kustomization flux-system/whoami spec.patches[1] (kubernetes/apps/production/default/patches/whoami.yaml:"),
        "{production:?}"
    );
    assert!(
        !changes(env(&doc, "production"))
            .iter()
            .any(|c| c.contains("HelmRelease default/whoami")),
        "{doc:#}"
    );
    assert!(notes("staging").is_empty());
    assert!(
        changes(env(&doc, "staging")).contains(&"changed HelmRelease default/whoami".to_string()),
        "{doc:#}"
    );
    // The text output says it under the environment's headline.
    let o = r.flate(&["diff", "production", "--base", "HEAD~1"]);
    assert!(
        stdout(&o).contains("note: kubernetes/apps/base/whoami/app/helmrelease.yaml:7:"),
        "{}",
        stdout(&o)
    );
    // Not for a file the change does not touch (the value stays
    // overridden; `flate check` says so).
    r.commit("nothing");
    let (doc, _) = r.json(&["diff", "production", "--base", "HEAD~1"]);
    assert!(
        notes_of(&doc, "production")
            .iter()
            .all(|n| !n.contains("patch-overrides-value"))
    );
}

fn notes_of(doc: &Value, name: &str) -> Vec<String> {
    env(doc, name)["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect()
}
