//! How `flate build` renders what a running cluster settles on: sources of
//! `substituteFrom` applied by another Kustomization that is not applied
//! before (no `dependsOn`), or by the Kustomization itself; Secrets a
//! ClusterExternalSecret makes; `spec.path` joined as kustomize-controller
//! joins it.

mod common;

use common::build_cluster_json as build;
use common::{report, write};

use serde_json::Value;

/// A Flux Kustomization `name` in flux-system rendering `path`, with
/// `extra` appended to its spec (indented by four spaces).
fn ks(name: &str, path: &str, extra: &str) -> String {
    format!(
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: {name}\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: {path}\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n{extra}"
    )
}

/// A Flux Kustomization `name` of `./apps/NAME` substituting from Secret
/// `secret`.
fn substituting_from(name: &str, secret: &str) -> String {
    substituting_from_kind(name, "Secret", secret)
}

fn substituting_from_kind(name: &str, kind: &str, source: &str) -> String {
    ks(
        name,
        &format!("./apps/{name}"),
        &format!(
            "  postBuild:\n    substituteFrom:\n      - kind: {kind}\n        name: {source}\n"
        ),
    )
}

/// Asserts that the Kustomizations `apps` rendered without the variables
/// of a Secret that `producer` makes at runtime.
#[track_caller]
fn rendered_without(v: &Value, apps: &[&str], producer: &str) {
    for app in apps {
        let k = report(v, app);
        assert_eq!(k["status"], "rendered", "{k:#}");
        assert!(
            k["message"]
                .as_str()
                .unwrap()
                .contains(&format!("produced at runtime by {producer}")),
            "{k:#}"
        );
    }
}

fn configmap(name: &str, ns: &str, data: &str) -> String {
    format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: {ns}\ndata:\n{data}"
    )
}

fn object<'a>(k: &'a Value, kind: &str, name: &str) -> &'a Value {
    k["objects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["kind"] == kind && o["metadata"]["name"] == name)
        .unwrap_or_else(|| panic!("no {kind} {name} in {k:#}"))
}

#[test]
fn a_source_applied_by_a_sibling_renders_with_a_warning() {
    let d = common::scratch("steady-sibling");
    // `first` substitutes from a ConfigMap that `second` applies; neither
    // depends on the other, so both are in one wave. `third` needs what
    // `first` applies, and waits for it: it renders in a second round.
    write(
        &d,
        "cluster/ks.yaml",
        &[
            ks(
                "first",
                "./apps/first",
                "  postBuild:\n    substituteFrom:\n      - kind: ConfigMap\n        name: settings\n",
            ),
            ks("second", "./apps/second", ""),
            ks(
                "third",
                "./apps/third",
                "  dependsOn:\n    - name: first\n  postBuild:\n    substituteFrom:\n      - kind: ConfigMap\n        name: derived\n",
            ),
        ]
        .join("---\n"),
    );
    write(
        &d,
        "apps/first/cm.yaml",
        &configmap("derived", "flux-system", "  COLOR: ${COLOR}-ish\n"),
    );
    write(
        &d,
        "apps/second/cm.yaml",
        &configmap("settings", "flux-system", "  COLOR: blue\n"),
    );
    write(
        &d,
        "apps/third/cm.yaml",
        &configmap("out", "default", "  color: ${COLOR}\n"),
    );
    let (v, err) = build(&d);
    for name in ["first", "second", "third"] {
        assert_eq!(report(&v, name)["status"], "rendered", "{name}: {v:#}");
    }
    let first = report(&v, "first");
    // `third` waits for `first` (dependsOn): the order Flux wants, no warning.
    assert!(
        !report(&v, "third")["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().contains("does not wait for")),
        "{v:#}"
    );
    assert_eq!(
        object(first, "ConfigMap", "derived")["data"]["COLOR"],
        "blue-ish"
    );
    let third = report(&v, "third");
    assert_eq!(
        object(third, "ConfigMap", "out")["data"]["color"],
        "blue-ish"
    );
    let warned = first["warnings"].as_array().unwrap();
    assert!(
        warned.iter().any(|w| w
            .as_str()
            .unwrap()
            .contains("substituteFrom ConfigMap/settings comes from Kustomization flux-system/second, which this one does not wait for (no dependsOn)")),
        "{warned:?}\n{err}"
    );
}

#[test]
fn a_source_applied_only_by_one_that_waits_for_it_renders_as_in_a_running_cluster() {
    let d = common::scratch("steady-deadlock");
    // `app` needs what `settings` applies; `settings` waits for `app`: on
    // an empty cluster neither becomes ready, in a running cluster that
    // was given the ConfigMap at bootstrap both are.
    write(
        &d,
        "cluster/ks.yaml",
        &[
            ks(
                "app",
                "./apps/app",
                "  postBuild:\n    substituteFrom:\n      - kind: ConfigMap\n        name: settings\n",
            ),
            ks("settings", "./apps/settings", "  dependsOn:\n    - name: app\n"),
        ]
        .join("---\n"),
    );
    write(
        &d,
        "apps/app/cm.yaml",
        &configmap("x", "default", "  a: ${A}\n"),
    );
    write(
        &d,
        "apps/settings/cm.yaml",
        &configmap("settings", "flux-system", "  A: b\n"),
    );
    let (v, _) = build(&d);
    let app = report(&v, "app");
    assert_eq!(app["status"], "rendered", "{app:#}");
    assert_eq!(object(app, "ConfigMap", "x")["data"]["a"], "b");
    assert!(
        app["warnings"].as_array().unwrap().iter().any(|w| w.as_str().unwrap().contains(
            "substituteFrom ConfigMap/settings comes only from Kustomization flux-system/settings, which waits for this one (dependsOn, or created by it): rendered as in a running cluster that has it; on an empty cluster neither becomes ready until ConfigMap/settings is created by hand (at bootstrap)"
        )),
        "{app:#}"
    );
    // `flate check` says so, as a warning.
    let o = common::flate_in(&["check", "--path", "cluster", "-o", "json"], &d);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("\"substitutefrom-bootstrap\""), "{out}");
}

#[test]
fn a_source_a_descendant_applies_renders_the_whole_tree() {
    let d = common::scratch("steady-descendant");
    // The root substitutes from a Secret that a ClusterExternalSecret
    // makes in every namespace; that one comes from an app the root
    // itself applies (through `apps`). Children substitute from a
    // ConfigMap a grandchild applies.
    write(
        &d,
        "cluster/ks.yaml",
        &ks(
            "cluster",
            "./apps",
            "  postBuild:\n    substitute:\n      TZ: UTC\n    substituteFrom:\n      - kind: Secret\n        name: cluster-secrets\n",
        ),
    );
    write(
        &d,
        "apps/kustomization.yaml",
        "resources:\n  - secrets.yaml\n  - app.yaml\n",
    );
    write(&d, "apps/secrets.yaml", &ks("secrets", "./secrets", ""));
    write(
        &d,
        "apps/app.yaml",
        &ks(
            "app",
            "./app",
            "  postBuild:\n    substitute:\n      ZONE: ${TZ}\n",
        ),
    );
    write(
        &d,
        "secrets/ces.yaml",
        "apiVersion: external-secrets.io/v1\nkind: ClusterExternalSecret\nmetadata:\n  name: cluster-secrets\nspec:\n  externalSecretName: cluster-secrets\n  namespaceSelectors:\n    - matchLabels: {}\n  externalSecretSpec:\n    secretStoreRef: {name: vault, kind: ClusterSecretStore}\n    target:\n      name: cluster-secrets\n",
    );
    write(
        &d,
        "app/cm.yaml",
        &configmap("app", "default", "  zone: ${ZONE}\n"),
    );
    let (v, err) = build(&d);
    let root = report(&v, "cluster");
    assert_eq!(root["status"], "rendered", "{root:#}\n{err}");
    assert!(
        root["warnings"].as_array().unwrap().iter().any(|w| w.as_str().unwrap().contains(
            "substituteFrom Secret/cluster-secrets comes only from Kustomization flux-system/secrets, which waits for this one"
        )),
        "{root:#}"
    );
    // Everything below renders, with the root's own substitutions.
    let app = report(&v, "app");
    assert_eq!(app["status"], "rendered", "{app:#}");
    assert_eq!(object(app, "ConfigMap", "app")["data"]["zone"], "UTC");
    assert_eq!(report(&v, "secrets")["status"], "rendered");
    // Once each (the entry's flux-system, then the three): the tentative
    // render leaves no trace.
    let names: Vec<&str> = v["kustomizations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["flux-system", "cluster", "app", "secrets"], "{v:#}");
}

#[test]
fn a_source_nobody_applies_still_fails() {
    let d = common::scratch("steady-missing");
    write(
        &d,
        "cluster/ks.yaml",
        &ks(
            "app",
            "./apps/app",
            "  postBuild:\n    substituteFrom:\n      - kind: ConfigMap\n        name: nowhere\n",
        ),
    );
    write(
        &d,
        "apps/app/cm.yaml",
        &configmap("x", "default", "  a: b\n"),
    );
    let (v, _) = build(&d);
    let app = report(&v, "app");
    assert_eq!(app["status"], "failed");
    assert!(
        app["message"].as_str().unwrap().contains(
            "substitute from 'ConfigMap/nowhere' error: not found in namespace 'flux-system'"
        ),
        "{app:#}"
    );
}

#[test]
fn a_source_the_kustomization_applies_itself_is_read_from_its_output() {
    let d = common::scratch("steady-self");
    write(
        &d,
        "cluster/ks.yaml",
        &ks(
            "apps",
            "./apps",
            "  postBuild:\n    substituteFrom:\n      - kind: ConfigMap\n        name: cluster-settings\n",
        ),
    );
    write(
        &d,
        "apps/settings.yaml",
        &configmap("cluster-settings", "flux-system", "  DOMAIN: example.org\n"),
    );
    write(
        &d,
        "apps/app.yaml",
        &configmap("app", "default", "  url: https://app.${DOMAIN}\n"),
    );
    let (v, _) = build(&d);
    let apps = report(&v, "apps");
    assert_eq!(apps["status"], "rendered", "{apps:#}");
    assert_eq!(
        object(apps, "ConfigMap", "app")["data"]["url"],
        "https://app.example.org"
    );
    assert!(
        apps["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().contains(
                "substituteFrom ConfigMap/cluster-settings is applied by this Kustomization itself"
            )),
        "{apps:#}"
    );
}

#[test]
fn a_cluster_external_secret_produces_its_secret_in_the_namespaces_it_selects() {
    let d = common::scratch("steady-ces");
    let uses = |name: &str, ns: &str| {
        format!(
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: {name}\n  namespace: {ns}\nspec:\n  interval: 1h\n  path: ./apps/{name}\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n    namespace: flux-system\n  postBuild:\n    substituteFrom:\n      - kind: Secret\n        name: cluster-secrets\n"
        )
    };
    write(
        &d,
        "cluster/ks.yaml",
        &[
            ks("secrets", "./apps/secrets", ""),
            uses("media", "media"),
            uses("games", "games"),
        ]
        .join("---\n"),
    );
    // Selects namespaces by the label Kubernetes gives every namespace,
    // and by a label of a rendered Namespace; `games` matches neither.
    write(
        &d,
        "apps/secrets/ces.yaml",
        "apiVersion: external-secrets.io/v1\nkind: ClusterExternalSecret\nmetadata:\n  name: shared\nspec:\n  externalSecretName: cluster-secrets\n  namespaceSelectors:\n    - matchExpressions:\n        - {key: kubernetes.io/metadata.name, operator: In, values: [media]}\n    - matchLabels:\n        secrets: wanted\n  externalSecretSpec:\n    secretStoreRef: {name: vault, kind: ClusterSecretStore}\n    data:\n      - secretKey: DOMAIN\n        remoteRef: {key: domain}\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: games\n  labels:\n    secrets: not-wanted\n",
    );
    for app in ["media", "games"] {
        write(
            &d,
            &format!("apps/{app}/cm.yaml"),
            &configmap("x", app, "  a: b\n"),
        );
    }
    let (v, _) = build(&d);
    let media = report(&v, "media");
    assert_eq!(media["status"], "rendered", "{media:#}");
    assert!(
        media["message"]
            .as_str()
            .unwrap()
            .contains("produced at runtime by ClusterExternalSecret shared"),
        "{media:#}"
    );
    let games = report(&v, "games");
    assert_eq!(games["status"], "failed", "{games:#}");

    // With the label the selector wants, `games` is selected too.
    let ns = d.join("apps/secrets/ces.yaml");
    let text = std::fs::read_to_string(&ns).unwrap();
    std::fs::write(&ns, text.replace("secrets: not-wanted", "secrets: wanted")).unwrap();
    let (v, _) = build(&d);
    assert_eq!(report(&v, "games")["status"], "rendered", "{v:#}");
}

#[test]
fn spec_path_parent_steps_stop_at_the_source_root() {
    let d = common::scratch("steady-path");
    write(
        &d,
        "cluster/ks.yaml",
        &[
            ks("up", "./../../apps/here", ""),
            ks("gone", "./../../nowhere", ""),
        ]
        .join("---\n"),
    );
    write(
        &d,
        "apps/here/cm.yaml",
        &configmap("here", "default", "  a: b\n"),
    );
    let (v, _) = build(&d);
    let up = report(&v, "up");
    assert_eq!(up["status"], "rendered", "{up:#}");
    object(up, "ConfigMap", "here");
    let gone = report(&v, "gone");
    assert_eq!(gone["status"], "failed");
    assert!(
        gone["message"]
            .as_str()
            .unwrap()
            .contains("spec.path './../../nowhere' does not exist in the source (kustomization path not found)"),
        "{gone:#}"
    );
}

#[test]
fn an_ext_postgres_operator_user_produces_its_secret() {
    let d = common::scratch("steady-pguser");
    write(
        &d,
        "cluster/ks.yaml",
        &[
            ks("users", "./apps/users", ""),
            substituting_from("suffixed", "database-app"),
            substituting_from("kept", "database"),
            substituting_from("other", "database-other"),
        ]
        .join("---\n"),
    );
    // The operator names the Secret SECRETNAME-NAME, or SECRETNAME with
    // KEEP_SECRET_NAME; no user is named `other`.
    write(
        &d,
        "apps/users/user.yaml",
        "apiVersion: db.movetokube.com/v1alpha1\nkind: PostgresUser\nmetadata:\n  name: app\n  namespace: flux-system\nspec:\n  role: app\n  database: app\n  secretName: database\n  privileges: OWNER\n",
    );
    for app in ["suffixed", "kept", "other"] {
        write(
            &d,
            &format!("apps/{app}/cm.yaml"),
            &configmap("x", "db", "  a: b\n"),
        );
    }
    let (v, _) = build(&d);
    rendered_without(&v, &["suffixed", "kept"], "PostgresUser flux-system/app");
    assert_eq!(report(&v, "other")["status"], "failed", "{v:#}");
}

/// A CloudNativePG Cluster makes `NAME-app` (unless its initdb names the
/// application user's Secret) and `NAME-superuser` (with superuser access
/// and no Secret given for it) at runtime.
#[test]
fn a_cloudnative_pg_cluster_produces_its_secrets() {
    let d = common::scratch("steady-cnpg");
    write(
        &d,
        "cluster/ks.yaml",
        &[
            ks("db", "./apps/db", ""),
            substituting_from("app", "pg-app"),
            substituting_from("superuser", "pg-superuser"),
            substituting_from("given", "given-app"),
            substituting_from("nosuper", "given-superuser"),
        ]
        .join("---\n"),
    );
    let cluster = |name: &str, spec: &str| {
        format!(
            "apiVersion: postgresql.cnpg.io/v1\nkind: Cluster\nmetadata:\n  name: {name}\n  namespace: flux-system\nspec:\n  instances: 1\n{spec}"
        )
    };
    write(
        &d,
        "apps/db/clusters.yaml",
        &[
            cluster("pg", "  enableSuperuserAccess: true\n"),
            cluster(
                "given",
                "  bootstrap:\n    initdb:\n      secret:\n        name: app-credentials\n",
            ),
        ]
        .join("---\n"),
    );
    for app in ["app", "superuser", "given", "nosuper"] {
        write(
            &d,
            &format!("apps/{app}/cm.yaml"),
            &configmap("x", "db", "  a: b\n"),
        );
    }
    let (v, _) = build(&d);
    rendered_without(&v, &["app", "superuser"], "Cluster flux-system/pg");
    for app in ["given", "nosuper"] {
        assert_eq!(report(&v, app)["status"], "failed", "{app}: {v:#}");
    }
    // Nothing in the repository defines it either: the message says how
    // to stand for what the cluster has.
    let m = report(&v, "given")["message"].as_str().unwrap().to_string();
    assert!(
        m.contains("no file of the repository defines Secret/given-app: if it is created in the cluster another way"),
        "{m}"
    );
}

/// Objects other operators make at runtime: an ObjectBucketClaim's
/// ConfigMap and Secret (its own name), a cert-manager Certificate's
/// Secret (`spec.secretName`), a OnePasswordItem's Secret (its own name),
/// and a trust-manager Bundle's ConfigMap in every namespace its selector
/// takes. An ExternalSecret makes a Secret, never a ConfigMap of its name.
#[test]
fn operators_produce_their_secrets_and_configmaps() {
    let d = common::scratch("steady-operators");
    write(
        &d,
        "cluster/ks.yaml",
        &[
            ks("makers", "./apps/makers", ""),
            substituting_from_kind("obc-cm", "ConfigMap", "bucket"),
            substituting_from_kind("obc-secret", "Secret", "bucket"),
            substituting_from_kind("cert", "Secret", "cert-tls"),
            substituting_from_kind("op", "Secret", "op-item"),
            substituting_from_kind("bundle", "ConfigMap", "ca-bundle"),
            substituting_from_kind("bundle-secret", "Secret", "ca-bundle"),
            substituting_from_kind("es-cm", "ConfigMap", "es-only"),
        ]
        .join("---\n"),
    );
    let obj = |api: &str, kind: &str, name: &str, ns: &str, spec: &str| {
        format!("apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: {name}\n{ns}spec:\n{spec}")
    };
    let here = "  namespace: flux-system\n";
    write(
        &d,
        "apps/makers/makers.yaml",
        &[
            obj(
                "objectbucket.io/v1alpha1",
                "ObjectBucketClaim",
                "bucket",
                here,
                "  generateBucketName: b\n  storageClassName: ceph-bucket\n",
            ),
            obj(
                "cert-manager.io/v1",
                "Certificate",
                "cert",
                here,
                "  secretName: cert-tls\n  dnsNames: [a.example.org]\n  issuerRef: {name: le, kind: ClusterIssuer}\n",
            ),
            obj(
                "onepassword.com/v1",
                "OnePasswordItem",
                "op-item",
                here,
                "  itemPath: vaults/v/items/i\n",
            ),
            obj(
                "trust.cert-manager.io/v1alpha1",
                "Bundle",
                "ca-bundle",
                "",
                "  sources:\n    - useDefaultCAs: true\n  target:\n    configMap:\n      key: ca.crt\n",
            ),
            obj(
                "external-secrets.io/v1",
                "ExternalSecret",
                "es-only",
                here,
                "  secretStoreRef: {name: vault, kind: ClusterSecretStore}\n",
            ),
        ]
        .join("---\n"),
    );
    let apps = [
        "obc-cm",
        "obc-secret",
        "cert",
        "op",
        "bundle",
        "bundle-secret",
        "es-cm",
    ];
    for app in apps {
        write(
            &d,
            &format!("apps/{app}/cm.yaml"),
            &configmap("x", "db", "  a: b\n"),
        );
    }
    let (v, _) = build(&d);
    rendered_without(
        &v,
        &["obc-cm", "obc-secret"],
        "ObjectBucketClaim flux-system/bucket",
    );
    rendered_without(&v, &["cert"], "Certificate flux-system/cert");
    rendered_without(&v, &["op"], "OnePasswordItem flux-system/op-item");
    rendered_without(&v, &["bundle"], "Bundle ca-bundle");
    // The Bundle targets no Secret; the ExternalSecret makes no ConfigMap.
    for app in ["bundle-secret", "es-cm"] {
        assert_eq!(report(&v, app)["status"], "failed", "{app}: {v:#}");
    }

    // A Bundle reaches only the namespaces its selector takes.
    let path = d.join("apps/makers/makers.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replace(
            "    configMap:\n",
            "    namespaceSelector:\n      matchLabels:\n        trust: wanted\n    configMap:\n",
        ),
    )
    .unwrap();
    let (v, _) = build(&d);
    assert_eq!(report(&v, "bundle")["status"], "failed", "{v:#}");
}

/// A root whose GitRepository no file defines (the bootstrap made it for
/// this repository under its own name) is skipped with the `--source` that
/// renders it from the repository; given, everything renders. A source some
/// file defines gets no such hint.
#[test]
fn a_source_only_the_bootstrap_makes_is_named_with_its_source_flag() {
    let d = common::scratch("steady-own-name");
    write(
        &d,
        "cluster/ks.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ./apps\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: home-ops\n",
    );
    write(&d, "apps/cm.yaml", &configmap("x", "default", "  a: b\n"));
    let (v, _) = build(&d);
    let apps = report(&v, "apps");
    assert_eq!(apps["status"], "skipped", "{apps:#}");
    assert!(
        apps["message"].as_str().unwrap().ends_with(
            "no file of the repository defines it and spec.path ./apps is here: if the bootstrap makes it for this repository, render it with --source GitRepository/flux-system/home-ops=. from the repository's root (or `sources` in .flate.yaml)"
        ),
        "{apps:#}"
    );
    let source = format!("GitRepository/flux-system/home-ops={}", d.display());
    let (v, _) = common::build_cluster_json_with(&d, &["--source", &source]);
    assert_eq!(report(&v, "apps")["status"], "rendered", "{v:#}");

    // `flate diff` of a change under its path names the files, skipped
    // the same way on both sides; with the --source it shows the change
    // (the base read from the revision, not the working tree).
    common::git(&d, &["init", "-q"]);
    common::git(&d, &["add", "-A"]);
    common::git(&d, &["commit", "-qm", "init"]);
    write(&d, "apps/cm.yaml", &configmap("x", "default", "  a: c\n"));
    let o = common::flate_in(&["diff", "x", "--path", "cluster", "--base", "HEAD"], &d);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains(
            "the change touches 1 file under its path, which this diff does not show: apps/cm.yaml"
        ),
        "{out}"
    );
    let o = common::flate_in(
        &[
            "diff", "x", "--path", "cluster", "--base", "HEAD", "--source", &source,
        ],
        &d,
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("1 changed") && out.contains("a: b → c"),
        "{out}"
    );
    std::fs::remove_dir_all(d.join(".git")).unwrap();

    write(
        &d,
        "bootstrap/source.yaml",
        "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: home-ops\n  namespace: flux-system\nspec:\n  url: https://example.org/other.git\n",
    );
    let (v, _) = build(&d);
    let m = report(&v, "apps")["message"].as_str().unwrap().to_string();
    assert!(m.ends_with("not fetched offline"), "{m}");
}

/// A FluxInstance (the Flux Operator) whose `spec.sync.path` is the entry
/// syncs the repository through the source it names (`sync.name`, else its
/// namespace's name): Kustomizations of that source render from the
/// repository. One of another path names no such source.
#[test]
fn a_flux_instance_names_the_repositorys_source() {
    let d = common::scratch("steady-fluxinstance");
    let instance = |name: &str, path: &str| {
        format!(
            "apiVersion: fluxcd.controlplane.io/v1\nkind: FluxInstance\nmetadata:\n  name: flux\n  namespace: flux-system\nspec:\n  distribution:\n    version: \"2.x\"\n    registry: ghcr.io/fluxcd\n  sync:\n    kind: GitRepository\n    name: {name}\n    url: https://github.com/example/fleet.git\n    ref: refs/heads/main\n    path: {path}\n"
        )
    };
    let app = ks("apps", "./apps", "").replace("name: flux-system\n", "name: cluster-repo\n");
    write(
        &d,
        "cluster/flux.yaml",
        &[instance("cluster-repo", "./cluster"), app.clone()].join("---\n"),
    );
    write(&d, "apps/cm.yaml", &configmap("x", "default", "  a: b\n"));
    let (v, _) = build(&d);
    assert_eq!(report(&v, "apps")["status"], "rendered", "{v:#}");

    // The same instance syncing another path: its source is not this
    // repository's.
    write(
        &d,
        "cluster/flux.yaml",
        &[instance("cluster-repo", "./elsewhere"), app].join("---\n"),
    );
    let (v, _) = build(&d);
    assert_eq!(report(&v, "apps")["status"], "skipped", "{v:#}");
}

/// A Flux Kustomization `name` in namespace `ns` rendering `./apps/NAME`
/// and substituting from Secret `cluster-secrets`, after `meta`.
fn app_in(name: &str, ns: &str) -> String {
    app_ks(
        name,
        ns,
        "  dependsOn:\n    - name: meta\n      namespace: flux-system\n  postBuild:\n    substituteFrom:\n      - kind: Secret\n        name: cluster-secrets\n",
    )
}

#[test]
fn a_source_reflector_copies_renders_with_its_data() {
    let d = common::scratch("steady-reflector");
    // `meta` applies Secret cluster-secrets in flux-system, which
    // emberstack's Reflector copies into namespace media (and no other:
    // the auto namespaces are a pattern list). The app Kustomizations
    // read it in their own namespaces.
    write(&d, "cluster/meta.yaml", &ks("meta", "./meta", ""));
    write(
        &d,
        "cluster/apps.yaml",
        &format!(
            "{}---\n{}",
            app_in("player", "media"),
            app_in("server", "games")
        ),
    );
    write(
        &d,
        "meta/secret.yaml",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: cluster-secrets\n  namespace: flux-system\n  annotations:\n    reflector.v1.k8s.emberstack.com/reflection-allowed: \"true\"\n    reflector.v1.k8s.emberstack.com/reflection-auto-enabled: \"true\"\n    reflector.v1.k8s.emberstack.com/reflection-auto-namespaces: \"med.*\"\nstringData:\n  DOMAIN: example.com\n",
    );
    for app in ["player", "server"] {
        write(
            &d,
            &format!("apps/{app}/cm.yaml"),
            &configmap(app, "default", "  host: www.${DOMAIN}\n"),
        );
    }
    let (v, err) = build(&d);
    let player = report(&v, "player");
    assert_eq!(player["status"], "rendered", "{player:#}\n{err}");
    // A value from a Secret is redacted unless asked for.
    let host =
        |v: &Value| object(report(v, "player"), "ConfigMap", "player")["data"]["host"].clone();
    assert_eq!(host(&v), "**redacted**");
    let (shown, _) = common::build_cluster_json_with(&d, &["--show-secrets"]);
    assert_eq!(host(&shown), "www.example.com");
    // Reflector leaves namespace games alone: Flux finds nothing there.
    let server = report(&v, "server");
    assert_eq!(server["status"], "failed", "{server:#}");
    assert!(
        server["message"].as_str().unwrap().contains(
            "substitute from 'Secret/cluster-secrets' error: not found in namespace 'games'"
        ),
        "{server:#}"
    );
    // Without the annotations, media has no copy either.
    let plain = std::fs::read_to_string(d.join("meta/secret.yaml"))
        .unwrap()
        .replace(
            "reflection-auto-enabled: \"true\"",
            "reflection-auto-enabled: \"false\"",
        );
    write(&d, "meta/secret.yaml", &plain);
    let (v, _) = build(&d);
    assert_eq!(report(&v, "player")["status"], "failed");
}

#[test]
fn a_source_a_skipped_kustomization_makes_skips_instead_of_failing() {
    let d = common::scratch("steady-skipped-producer");
    // `operator` names a remote resource (skipped offline) and applies an
    // ExternalSecret making `db-secret`, which `cluster` substitutes from.
    write(
        &d,
        "cluster/operator.yaml",
        &ks("operator", "./apps/operator", ""),
    );
    write(
        &d,
        "cluster/cluster.yaml",
        &ks(
            "db",
            "./apps/db",
            "  dependsOn:\n    - name: operator\n  postBuild:\n    substituteFrom:\n      - kind: Secret\n        name: db-secret\n",
        ),
    );
    write(
        &d,
        "apps/operator/kustomization.yaml",
        "resources:\n  - https://example.com/crds.yaml\n  - ./externalsecret.yaml\n",
    );
    let external_secret = |name: &str| {
        format!(
            "apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata:\n  name: {name}\nspec:\n  secretStoreRef: {{name: vault, kind: ClusterSecretStore}}\n"
        )
    };
    let es_file = "apps/operator/externalsecret.yaml";
    write(&d, es_file, &external_secret("db-secret"));
    write(
        &d,
        "apps/db/cm.yaml",
        &configmap("db", "default", "  a: ${PASSWORD}\n"),
    );
    let (v, err) = build(&d);
    assert_eq!(report(&v, "operator")["status"], "skipped", "{err}");
    let db = report(&v, "db");
    assert_eq!(db["status"], "skipped", "{db:#}");
    assert!(
        db["message"].as_str().unwrap().contains(
            "it may come from Kustomization flux-system/operator, which is not rendered offline and applies apps/operator/externalsecret.yaml, which makes it"
        ),
        "{db:#}"
    );
    // A Secret nothing in the skipped Kustomization makes: still a failure.
    write(&d, es_file, &external_secret("other-secret"));
    let (v, _) = build(&d);
    assert_eq!(report(&v, "db")["status"], "failed");
}

#[test]
fn a_source_only_a_bootstrap_template_defines_is_named() {
    let d = common::scratch("steady-template-source");
    write(
        &d,
        "cluster/ks.yaml",
        &ks(
            "app",
            "./apps/app",
            "  postBuild:\n    substituteFrom:\n      - kind: Secret\n        name: tunnel-id\n",
        ),
    );
    write(
        &d,
        "apps/app/cm.yaml",
        &configmap("x", "default", "  a: b\n"),
    );
    let template = |ns: &str| {
        format!(
            "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: other\n  namespace: flux-system\nstringData:\n  K: '{{{{ ENV.K }}}}'\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: tunnel-id\n  namespace: {ns}\nstringData:\n  ID: op://vault/tunnel/ID\n"
        )
    };
    write(&d, "bootstrap/resources.yaml.j2", &template("flux-system"));
    let (v, _) = build(&d);
    let app = report(&v, "app");
    assert_eq!(app["status"], "failed");
    assert!(
        app["message"].as_str().unwrap().contains(
            "Secret/tunnel-id is defined only in bootstrap/resources.yaml.j2, a template that bootstrap renders: give the rendered file to --settings"
        ),
        "{app:#}"
    );
    // In another namespace, the template does not define it there.
    write(&d, "bootstrap/resources.yaml.j2", &template("network"));
    let (v, _) = build(&d);
    let app = report(&v, "app");
    assert!(
        app["message"]
            .as_str()
            .unwrap()
            .contains("no file of the repository defines Secret/tunnel-id"),
        "{app:#}"
    );
}

/// A Flux Kustomization `name` in namespace `ns` rendering `./apps/NAME`,
/// with `extra` appended to its spec.
fn app_ks(name: &str, ns: &str, extra: &str) -> String {
    format!(
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: {name}\n  namespace: {ns}\nspec:\n  interval: 1h\n  path: ./apps/{name}\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n    namespace: flux-system\n{extra}"
    )
}

#[test]
fn kustomize_mutating_webhook_variables_reach_the_kustomizations_it_selects() {
    let d = common::scratch("steady-mutating-webhook");
    // `meta` installs xunholy's kustomize-mutating-webhook (chart from an
    // OCIRepository, values from a generated ConfigMap as home-ops
    // repositories write them) and its ConfigMap cluster-config; its
    // Secret cluster-secrets is made at runtime by an ExternalSecret. The
    // app Kustomizations name neither.
    write(&d, "cluster/meta.yaml", &ks("meta", "./meta", ""));
    write(
        &d,
        "meta/kustomization.yaml",
        "resources:\n  - webhook.yaml\n  - settings.yaml\n  - apps.yaml\nconfigMapGenerator:\n  - name: kmw-values\n    namespace: flux-system\n    files:\n      - values.yaml\ngeneratorOptions:\n  disableNameSuffixHash: true\n",
    );
    write(
        &d,
        "meta/webhook.yaml",
        "apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata:\n  name: kustomize-mutating-webhook\n  namespace: flux-system\nspec:\n  interval: 1h\n  url: oci://ghcr.io/xunholy/charts/kustomize-mutating-webhook\n  ref:\n    tag: 0.12.0\n---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: kustomize-mutating-webhook\n  namespace: flux-system\nspec:\n  interval: 1h\n  chartRef:\n    kind: OCIRepository\n    name: kustomize-mutating-webhook\n  valuesFrom:\n    - kind: ConfigMap\n      name: kmw-values\n",
    );
    write(
        &d,
        "meta/values.yaml",
        "configMaps:\n  - name: cluster-config\n    create: false\nsecrets:\n  - name: cluster-secrets\n",
    );
    write(
        &d,
        "meta/settings.yaml",
        &format!(
            "{}---\napiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata:\n  name: cluster-secrets\n  namespace: flux-system\nspec:\n  secretStoreRef:\n    kind: ClusterSecretStore\n    name: vault\n  target:\n    name: cluster-secrets\n  dataFrom:\n    - extract:\n        key: cluster\n",
            configmap(
                "cluster-config",
                "flux-system",
                "  DOMAIN: example.com\n  APP: from-webhook\n"
            )
        ),
    );
    // player (media): no postBuild at all; server (games): its own APP,
    // which the webhook's replaces; tools (flux-system): left alone by the
    // webhook's default selector.
    write(
        &d,
        "meta/apps.yaml",
        &format!(
            "{}---\n{}---\n{}",
            app_ks("player", "media", ""),
            app_ks(
                "server",
                "games",
                "  postBuild:\n    substitute:\n      APP: server\n"
            ),
            app_ks("tools", "flux-system", "")
        ),
    );
    for app in ["player", "server", "tools"] {
        write(
            &d,
            &format!("apps/{app}/cm.yaml"),
            &configmap(
                app,
                "default",
                "  host: www.${DOMAIN}\n  app: ${APP}\n  token: x${TOKEN}\n  script: echo $${HOME}\n",
            ),
        );
    }
    let (v, err) = build(&d);
    let data = |name: &str| object(report(&v, name), "ConfigMap", name)["data"].clone();
    let player = data("player");
    assert_eq!(player["host"], "www.example.com", "{v:#}\n{err}");
    assert_eq!(player["app"], "from-webhook");
    // TOKEN would come from the Secret, absent offline.
    assert_eq!(player["token"], "x");
    assert_eq!(player["script"], "echo ${HOME}");
    let server = data("server");
    assert_eq!(server["host"], "www.example.com");
    assert_eq!(server["app"], "from-webhook", "the webhook's key wins");
    // No postBuild in flux-system: nothing is substituted.
    let tools = data("tools");
    assert_eq!(tools["host"], "www.${DOMAIN}");
    assert_eq!(tools["script"], "echo $${HOME}");
    let warnings = report(&v, "player")["warnings"].to_string();
    assert!(
        warnings.contains("Secret/cluster-secrets (in flux-system, read by kustomize-mutating-webhook HelmRelease flux-system/kustomize-mutating-webhook) is produced at runtime by ExternalSecret flux-system/cluster-secrets"),
        "{warnings}"
    );
    // `flate check`: TOKEN unset is a warning naming where it may come from.
    let o = common::flate_in(&["check", "--path", "cluster", "-o", "json"], &d);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}");
    assert!(
        out.contains("${TOKEN} is not set in Kustomization media/player and becomes an empty string in ConfigMap player: it may come from Secret/cluster-secrets (in flux-system, read by kustomize-mutating-webhook HelmRelease flux-system/kustomize-mutating-webhook) (created at runtime by ExternalSecret flux-system/cluster-secrets)"),
        "{out}"
    );
    // A selector given in the values, merged over the chart's: only
    // namespaces labelled for it.
    write(
        &d,
        "meta/values.yaml",
        "webhook:\n  namespaceSelector:\n    matchLabels:\n      substitution: enabled\n",
    );
    write(
        &d,
        "meta/ns.yaml",
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: games\n  labels:\n    substitution: enabled\n",
    );
    write(
        &d,
        "meta/kustomization.yaml",
        &std::fs::read_to_string(d.join("meta/kustomization.yaml"))
            .unwrap()
            .replace("  - apps.yaml\n", "  - apps.yaml\n  - ns.yaml\n"),
    );
    let (v, err) = build(&d);
    let data = |name: &str| object(report(&v, name), "ConfigMap", name)["data"].clone();
    assert_eq!(data("player")["host"], "www.${DOMAIN}", "{v:#}\n{err}");
    assert_eq!(data("server")["host"], "www.example.com");
    assert_eq!(data("server")["token"], "x");
}
