//! The command line on repositories of other layouts: environments from
//! `.flate.yaml` or discovered, `--path` alone, selection, `--path-orig`,
//! completions, the man page and the JSON envelope.

mod common;

use common::write;

use std::path::Path;
use std::process::{Command, Output};

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `flate ARGS` run in `dir` (no --repo: found from the directory).
fn flate_at(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_flate"))
        .args(args)
        .current_dir(dir)
        .env_remove("COLUMNS")
        .env("NO_COLOR", "1")
        .output()
        .expect("run flate")
}

/// A Flux sync as `flux bootstrap --path PATH` writes it.
fn gotk_sync(path: &str) -> String {
    format!(
        r#"---
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 1m0s
  ref:
    branch: main
  secretRef:
    name: flux-system
  url: ssh://git@example.com/org/fleet
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 10m0s
  path: ./{path}
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
"#
    )
}

/// An app directory: a ConfigMap, and a Flux Kustomization pointing at it
/// (labelled, in namespace `flux-system`).
fn app(root: &Path, entry: &str, name: &str, apps_dir: &str) {
    write(
        root,
        &format!("{entry}/{name}.yaml"),
        &format!(
            r#"apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: {name}
  namespace: flux-system
  labels:
    tier: {name}-tier
spec:
  interval: 10m
  path: ./{apps_dir}/{name}
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
"#
        ),
    );
    write(
        root,
        &format!("{apps_dir}/{name}/kustomization.yaml"),
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - configmap.yaml\n",
    );
    write(
        root,
        &format!("{apps_dir}/{name}/configmap.yaml"),
        &format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}-config\n  namespace: default\ndata:\n  key: value\n"
        ),
    );
}

/// A repository whose entry directory `entry` holds two apps and a
/// kustomization.yaml listing them (and `extra` resources).
fn repo_with_entry(root: &Path, entry: &str, extra: &[&str]) {
    app(root, entry, "podinfo", "apps");
    app(root, entry, "redis", "apps");
    let mut res: Vec<&str> = vec!["podinfo.yaml", "redis.yaml"];
    res.extend(extra);
    write(
        root,
        &format!("{entry}/kustomization.yaml"),
        &format!(
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n{}",
            res.iter().map(|r| format!("  - {r}\n")).collect::<String>()
        ),
    );
}

fn git_init(root: &Path) {
    common::git(root, &["init", "-q"]);
    common::git(root, &["add", "-A"]);
    common::git(root, &["commit", "-q", "-m", "init"]);
}

/// Layout 1: `flux bootstrap --path clusters/production` (discovered from
/// the Flux sync). Layout 2: kubernetes/flux/cluster, named in
/// .flate.yaml. Layout 3: kubernetes/main/cluster/config with its sync
/// next to it (discovered).
fn three_layouts(tag: &str) -> Vec<(common::Scratch, &'static str, &'static str)> {
    let a = common::scratch(&format!("cli-{tag}-bootstrap"));
    repo_with_entry(&a, "clusters/production", &["flux-system"]);
    write(
        &a,
        "clusters/production/flux-system/gotk-sync.yaml",
        &gotk_sync("clusters/production"),
    );
    write(
        &a,
        "clusters/production/flux-system/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - gotk-sync.yaml\n",
    );
    git_init(&a);

    let b = common::scratch(&format!("cli-{tag}-config"));
    repo_with_entry(&b, "kubernetes/flux/cluster", &[]);
    write(
        &b,
        ".flate.yaml",
        "environments:\n  main:\n    path: kubernetes/flux/cluster\n",
    );
    git_init(&b);

    let c = common::scratch(&format!("cli-{tag}-multi"));
    repo_with_entry(&c, "kubernetes/main/cluster/config", &["cluster.yaml"]);
    write(
        &c,
        "kubernetes/main/cluster/config/cluster.yaml",
        &gotk_sync("kubernetes/main/cluster/config"),
    );
    git_init(&c);
    vec![
        (a, "production", "clusters/production"),
        (b, "main", "kubernetes/flux/cluster"),
        (c, "config", "kubernetes/main/cluster/config"),
    ]
}

#[test]
fn three_layouts_check_pins_and_diff_with_no_arguments() {
    for (root, name, path) in three_layouts("noargs") {
        // From a subdirectory: the repository is found above it.
        let sub = root.join("apps/podinfo");
        let o = flate_at(&["get", "envs"], &sub);
        assert!(o.status.success(), "{}: {}", root.display(), stderr(&o));
        let envs = stdout(&o);
        let line = envs.lines().nth(1).unwrap_or_default();
        assert!(
            line.starts_with(name) && line.contains(path),
            "{}: {envs}",
            root.display()
        );
        assert_eq!(envs.lines().count(), 2, "one environment: {envs}");

        let o = flate_at(&["check"], &sub);
        assert!(
            o.status.success(),
            "check in {}: {}\n{}",
            root.display(),
            stdout(&o),
            stderr(&o)
        );
        let o = flate_at(&["pins"], &sub);
        assert!(o.status.success(), "pins: {}", stderr(&o));
        let o = flate_at(&["diff", "--base", "HEAD", "--exit-code"], &sub);
        assert!(
            o.status.success(),
            "diff against HEAD is empty in {}: {}\n{}",
            root.display(),
            stdout(&o),
            stderr(&o)
        );
        // Every rendering command needs nothing else either.
        let o = flate_at(&["test"], &sub);
        assert!(o.status.success(), "test: {}{}", stdout(&o), stderr(&o));
        assert!(
            stdout(&o).contains("PASS Kustomization flux-system/podinfo (1 object)"),
            "{}",
            stdout(&o)
        );
        let o = flate_at(&["build"], &sub);
        assert!(stdout(&o).contains("name: redis-config"), "{}", stderr(&o));
    }
}

#[test]
fn path_alone_names_the_environment() {
    let root = common::scratch("cli-path-alone");
    repo_with_entry(&root, "kubernetes/flux/cluster", &[]);
    git_init(&root);
    for args in [
        vec!["build", "--path", "kubernetes/flux/cluster"],
        vec!["get", "ks", "--path", "kubernetes/flux/cluster"],
        vec!["test", "--path", "kubernetes/flux/cluster"],
        vec!["check", "--path", "kubernetes/flux/cluster"],
        vec!["pins", "--path", "kubernetes/flux/cluster"],
    ] {
        let o = flate_at(&args, &root);
        assert!(o.status.success(), "{args:?}: {}{}", stdout(&o), stderr(&o));
    }
    let o = flate_at(
        &["build", "-o", "json", "--path", "kubernetes/flux/cluster"],
        &root,
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["cluster"], "cluster", "named after the entry directory");
    // A path relative to the working directory works too.
    let o = flate_at(
        &["get", "ks", "--path", "."],
        &root.join("kubernetes/flux/cluster"),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("podinfo"), "{}", stdout(&o));
    // --path nope names the path.
    let o = flate_at(&["build", "--path", "nope"], &root);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--path nope: no such directory"),
        "{}",
        stderr(&o)
    );
    assert!(!stderr(&o).contains("ENV"), "no ENV hint: {}", stderr(&o));
}

#[test]
fn unknown_environment_lists_the_known_ones() {
    let o = common::flate_in(&["build", "prodution"], &common::root());
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("unknown environment 'prodution'"), "{e}");
    assert!(e.contains("did you mean 'production'?"), "{e}");
    assert!(
        e.contains("production (kubernetes/clusters/production)")
            && e.contains("staging (kubernetes/clusters/staging)"),
        "{e}"
    );
}

#[test]
fn selection_by_type_name_namespace_and_labels() {
    let root = common::scratch("cli-select");
    repo_with_entry(&root, "kubernetes/flux/cluster", &[]);
    write(
        &root,
        ".flate.yaml",
        "environments:\n  main: {path: kubernetes/flux/cluster}\n",
    );
    git_init(&root);
    // Aliases; NAME; the environment may be left out (there is one).
    for t in ["ks", "kustomization", "kustomizations", "Kustomizations"] {
        let o = flate_at(&["get", t, "podinfo", "-o", "name"], &root);
        assert!(o.status.success(), "{t}: {}", stderr(&o));
        assert_eq!(stdout(&o), "Kustomization/flux-system/podinfo\n", "{t}");
    }
    let o = flate_at(
        &["get", "ks", "main", "flux-system/redis", "-o", "name"],
        &root,
    );
    assert_eq!(
        stdout(&o),
        "Kustomization/flux-system/redis\n",
        "{}",
        stderr(&o)
    );
    // -l on the Kustomizations' labels.
    let o = flate_at(&["get", "ks", "-l", "tier=redis-tier", "-o", "name"], &root);
    assert_eq!(
        stdout(&o),
        "Kustomization/flux-system/redis\n",
        "{}",
        stderr(&o)
    );
    let o = flate_at(&["get", "ks", "-l", "tier", "-o", "name"], &root);
    assert_eq!(stdout(&o).lines().count(), 2, "{}", stdout(&o));
    // -n: a namespace that holds nothing is an error that names the ones there are.
    let o = flate_at(&["get", "ks", "-n", "flux-sytem"], &root);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(
        stderr(&o).contains("did you mean namespace 'flux-system'?"),
        "{}",
        stderr(&o)
    );
    // A NAME that matches nothing: exit 2 with the closest names.
    let o = flate_at(&["build", "ks", "podinf"], &root);
    assert_eq!(o.status.code(), Some(2));
    assert!(stdout(&o).is_empty());
    assert!(
        stderr(&o).contains("no Kustomization named 'podinf' in environment main"),
        "{}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains("did you mean 'podinfo'"),
        "{}",
        stderr(&o)
    );
    let o = flate_at(&["build", "main", "--ks", "nope"], &root);
    assert_eq!(o.status.code(), Some(2), "--ks nope: {}", stdout(&o));
    // build ks NAME prints only that Kustomization's objects.
    let o = flate_at(&["build", "ks", "redis"], &root);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("redis-config") && !out.contains("podinfo-config"),
        "{out}"
    );
    // test ks NAME.
    let o = flate_at(&["test", "ks", "podinfo"], &root);
    assert_eq!(
        stdout(&o),
        "PASS Kustomization flux-system/podinfo (1 object)\n1 passed, 0 failed, 0 skipped\n"
    );
    // diff narrows both sides.
    write(
        &root,
        "apps/redis/configmap.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: redis-config\n  namespace: default\ndata:\n  key: changed\n",
    );
    let o = flate_at(
        &["diff", "ks", "podinfo", "--base", "HEAD", "--exit-code"],
        &root,
    );
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let o = flate_at(
        &["diff", "ks", "redis", "--base", "HEAD", "--exit-code"],
        &root,
    );
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let o = flate_at(&["diff", "ks", "nope", "--base", "HEAD"], &root);
    assert_eq!(o.status.code(), Some(2), "{}{}", stdout(&o), stderr(&o));
}

#[test]
fn tables_fit_the_terminal_width() {
    let o = Command::new(env!("CARGO_BIN_EXE_flate"))
        .args(["get", "ks", "production", "--repo"])
        .arg(common::root())
        .env("COLUMNS", "100")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.lines().all(|l| l.chars().count() <= 100), "{out}");
    let o = common::flate_in(&["get", "ks", "production", "-o", "wide"], &common::root());
    assert!(stdout(&o).contains("DEPENDS ON"), "{}", stdout(&o));
}

#[test]
fn path_orig_takes_a_root_or_the_counterpart_of_path() {
    let head = common::scratch("cli-orig-head");
    repo_with_entry(&head, "clusters/prod", &[]);
    let base = common::scratch("cli-orig-base");
    repo_with_entry(&base, "clusters/prod", &[]);
    write(
        &head,
        "apps/redis/configmap.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: redis-config\n  namespace: default\ndata:\n  key: changed\n",
    );
    let base_entry = base.join("clusters/prod");
    for (orig, took) in [
        (base.to_path_buf(), "another checkout's root"),
        (
            base_entry.clone(),
            "the other checkout's counterpart of clusters/prod",
        ),
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_flate"))
            .args([
                "diff",
                "--path",
                "clusters/prod",
                "-o",
                "json",
                "--path-orig",
            ])
            .arg(&orig)
            .arg("--repo")
            .arg(&head)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(stderr(&o).contains(took), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let counts = &v["environments"][0]["counts"];
        assert_eq!(counts["changed"], 1, "{orig:?}: {counts}");
        assert_eq!(counts["added"], 0, "{orig:?}: {counts}");
    }
}

#[test]
fn config_errors_name_field_and_line() {
    let root = common::scratch("cli-badconfig");
    repo_with_entry(&root, "kubernetes/flux/cluster", &[]);
    write(
        &root,
        ".flate.yaml",
        "environments:\n  main:\n    path: kubernetes/flux/cluster\ncheck:\n  disable: [image-unpined]\n",
    );
    let o = flate_at(&["check"], &root);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("check.disable: unknown rule 'image-unpined'"),
        "{e}"
    );
    assert!(e.contains(".flate.yaml:5"), "{e}");
    assert!(e.contains("did you mean 'image-unpinned'?"), "{e}");
    // Flags add to the file; a valid file's fields are used.
    write(
        &root,
        ".flate.yaml",
        "environments:\n  main:\n    path: kubernetes/flux/cluster\ncheck:\n  disable: [image-unpinned]\ndiff:\n  ignoreFields: [data.key]\n",
    );
    let o = flate_at(&["check", "-v"], &root);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(stderr(&o).contains("configuration from"), "{}", stderr(&o));
}

#[test]
fn completions_load_in_bash_and_the_man_page_renders() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_flate"))
            .args(args)
            .output()
            .unwrap()
    };
    let o = run(&["completions", "bash"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let dir = common::scratch("cli-completion");
    let script = dir.join("flate.bash");
    std::fs::write(&script, &o.stdout).unwrap();
    // Load it and ask bash what `flate bu<TAB>` completes to.
    let probe = format!(
        "source {}\nCOMP_WORDS=(flate bu)\nCOMP_CWORD=1\nCOMP_LINE='flate bu'\nCOMP_POINT=8\n_flate flate bu flate\necho \"${{COMPREPLY[@]}}\"\ncomplete -p flate\n",
        script.display()
    );
    let b = Command::new("bash")
        .args(["--norc", "-c", &probe])
        .output()
        .unwrap();
    assert!(b.status.success(), "{}", String::from_utf8_lossy(&b.stderr));
    let out = String::from_utf8_lossy(&b.stdout);
    assert!(out.lines().next() == Some("build"), "{out}");
    assert!(out.contains("-F _flate flate"), "{out}");
    for shell in ["zsh", "fish", "powershell"] {
        let o = run(&["completions", shell]);
        assert!(o.status.success() && o.stdout.len() > 1000, "{shell}");
    }
    let o = run(&["man"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with(".ie") || stdout(&o).contains(".TH flate"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn quiet_hides_warnings_and_verbose_says_which_environment() {
    let o = common::flate_in(&["build", "production", "-v"], &common::root());
    assert!(
        stderr(&o).contains("environment production at kubernetes/clusters/production"),
        "{}",
        stderr(&o)
    );
    let o = common::flate_in(
        &["build", "production", "-q", "--ks", "nope"],
        &common::root(),
    );
    assert!(stderr(&o).contains("error:"), "errors stay: {}", stderr(&o));
}

/// Checks that `example` has the shape of `real`: the same JSON types and
/// the same keys (both ways) down to the first item of each list; inside
/// rendered objects and Helm values (free-form), only the example's keys
/// must exist.
fn conforms(
    example: &serde_json::Value,
    real: &serde_json::Value,
    at: &str,
    free: bool,
) -> Result<(), String> {
    use serde_json::Value as J;
    match (example, real) {
        (J::Object(e), J::Object(r)) => {
            for (k, v) in e {
                let Some(rv) = r.get(k) else {
                    return Err(format!("{at}.{k}: in the example, not in the output"));
                };
                let free = free || matches!(k.as_str(), "objects" | "values" | "schema");
                conforms(v, rv, &format!("{at}.{k}"), free)?;
            }
            if !free && let Some(k) = r.keys().find(|k| !e.contains_key(*k)) {
                return Err(format!("{at}.{k}: in the output, not in the example"));
            }
            Ok(())
        }
        (J::Array(e), J::Array(r)) => match (e.first(), r.first()) {
            (Some(e0), Some(r0)) => conforms(e0, r0, &format!("{at}[0]"), free),
            _ => Ok(()),
        },
        (J::Null, _) | (_, J::Null) => Ok(()),
        (J::String(_), J::String(_)) | (J::Bool(_), J::Bool(_)) | (J::Number(_), J::Number(_)) => {
            Ok(())
        }
        _ => Err(format!(
            "{at}: {example} in the example, {real} in the output"
        )),
    }
}

#[test]
fn docs_json_examples_match_the_real_output() {
    let doc = std::fs::read_to_string(common::root().join("docs/json.md")).unwrap();
    let blocks: Vec<&str> = doc.split("```").collect();
    let mut checked = 0;
    for i in 0..blocks.len() {
        let Some(cmd) = blocks[i].strip_prefix("sh\n") else {
            continue;
        };
        let Some(json) = blocks.get(i + 2).and_then(|b| b.strip_prefix("json\n")) else {
            continue;
        };
        let cmd = cmd.trim();
        let args: Vec<&str> = cmd.split_whitespace().skip(1).collect();
        assert_eq!(cmd.split_whitespace().next(), Some("flate"), "{cmd}");
        let o = Command::new(env!("CARGO_BIN_EXE_flate"))
            .args(&args)
            .current_dir(common::root())
            .output()
            .unwrap();
        let real: serde_json::Value = serde_json::from_slice(&o.stdout)
            .unwrap_or_else(|e| panic!("{cmd}: {e}: {}", stderr(&o)));
        let example: serde_json::Value =
            serde_json::from_str(json).unwrap_or_else(|e| panic!("{cmd}: the example: {e}"));
        assert_eq!(real["apiVersion"], "flate.dev/v1", "{cmd}");
        assert_eq!(example["apiVersion"], real["apiVersion"], "{cmd}");
        assert_eq!(example["kind"], real["kind"], "{cmd}");
        if let Err(e) = conforms(&example, &real, "", false) {
            panic!("docs/json.md, `{cmd}`: {e}");
        }
        checked += 1;
    }
    assert!(checked >= 10, "{checked} examples");
}

/// A Flux Kustomization `flux-system/app` of `./app`, with `spec` lines
/// `extra` (indented two spaces) after the usual ones.
fn app_kustomization(extra: &str) -> String {
    format!(
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: app\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./app\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n{extra}"
    )
}

#[test]
fn a_type_change_warning_names_the_object_after_substitution() {
    let root = common::scratch("cli-retype");
    write(
        &root,
        "cluster/app.yaml",
        &app_kustomization("  postBuild:\n    substitute:\n      APP: web\n      COUNT: \"3\"\n"),
    );
    write(
        &root,
        "app/configmap.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${APP}-settings\n  namespace: default\n  annotations:\n    count: ${COUNT}\n",
    );
    let o = flate_at(&["build", "--path", "cluster"], &root);
    let e = stderr(&o);
    assert!(
        e.contains("substitution changed the type of ConfigMap/web-settings"),
        "{e}"
    );
    assert!(!e.contains("${APP}"), "{e}");
}

/// A warning that two objects of one Kustomization give alike (here two
/// accounts whose names are unset variables) is printed once, naming the
/// Kustomization once; a number substituted where the author wrote a
/// variable for one (`runAsUser`) is no warning at all.
#[test]
fn a_warning_repeated_within_one_kustomization_is_printed_once() {
    let root = common::scratch("cli-retype-twice");
    write(
        &root,
        "cluster/app.yaml",
        &app_kustomization("  postBuild:\n    substitute:\n      UID: \"1000\"\n"),
    );
    let account = |var: &str| {
        format!(
            "apiVersion: example.com/v1\nkind: Account\nmetadata:\n  name: ${{{var}}}\n  namespace: default\nspec:\n  runAsUser: ${{UID}}\n"
        )
    };
    write(
        &root,
        "app/accounts.yaml",
        &format!("{}---\n{}", account("ONE"), account("TWO")),
    );
    let o = flate_at(&["build", "--path", "cluster"], &root);
    let e = stderr(&o);
    let w = "Kustomization flux-system/app: substitution changed the type of Account/ .metadata.name from string to null";
    assert_eq!(e.matches(w).count(), 1, "{e}");
    assert!(!e.contains("flux-system/app, flux-system/app"), "{e}");
    assert!(!e.contains("runAsUser"), "{e}");
}

/// The SOPS warning names each encrypted object with its namespace (the
/// same Secret in two namespaces is two objects), and an object whose kind
/// and name are encrypted too (a file encrypted whole) by its file and
/// line, not by its ciphertext.
#[test]
fn the_sops_warning_names_objects_by_namespace_or_place() {
    let root = common::scratch("cli-sops-names");
    write(
        &root,
        "cluster/app.yaml",
        &app_kustomization("  decryption:\n    provider: sops\n"),
    );
    let enc = "ENC[AES256_GCM,data:AAAA,iv:BB,tag:CC,type:str]";
    let sops = format!("sops:\n  mac: {enc}\n  version: 3.9.0\n");
    let secret = |ns: &str| {
        format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: age\n  namespace: {ns}\nstringData:\n  key: {enc}\n{sops}"
        )
    };
    write(&root, "app/a.yaml", &secret("one"));
    write(&root, "app/b.yaml", &secret("two"));
    write(
        &root,
        "app/whole.yaml",
        &format!(
            "apiVersion: v1\nkind: {enc}\nmetadata:\n  name: {enc}\n  namespace: one\ndata:\n  x: {enc}\n{sops}"
        ),
    );
    write(
        &root,
        "app/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- a.yaml\n- b.yaml\n- whole.yaml\n",
    );
    let o = flate_at(&["build", "--path", "cluster"], &root);
    let e = stderr(&o);
    assert!(
        e.contains("SOPS-encrypted, not decrypted offline: Secret one/age, Secret two/age, an object whose kind or name is encrypted (app/whole.yaml:1)"),
        "{e}"
    );
    assert!(!e.contains("ENC["), "{e}");
}

/// Encrypted objects in several Kustomizations make one warning, counting
/// them; `-o json` keeps each Kustomization's own.
#[test]
fn sops_warnings_of_several_kustomizations_are_one() {
    let root = common::scratch("cli-sops-several");
    let enc = "ENC[AES256_GCM,data:AAAA,iv:BB,tag:CC,type:str]";
    let secret = |ns: &str| {
        format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: {ns}\nstringData:\n  key: {enc}\nsops:\n  mac: {enc}\n"
        )
    };
    let decrypt = "  decryption:\n    provider: sops\n";
    write(&root, "cluster/app.yaml", &app_kustomization(decrypt));
    write(
        &root,
        "cluster/other.yaml",
        &app_kustomization(decrypt)
            .replace("name: app", "name: other")
            .replace("./app", "./other"),
    );
    write(&root, "app/s.yaml", &secret("one"));
    write(&root, "other/s.yaml", &secret("two"));
    let o = flate_at(&["build", "--path", "cluster"], &root);
    let e = stderr(&o);
    assert_eq!(e.matches("SOPS-encrypted").count(), 1, "{e}");
    assert!(
        e.contains("SOPS-encrypted, not decrypted offline: 2 objects in 2 Kustomizations"),
        "{e}"
    );
    let o = flate_at(&["build", "--path", "cluster", "-o", "json"], &root);
    let js: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let per_ks: Vec<&str> = js["kustomizations"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|k| k["warnings"].as_array().unwrap())
        .filter_map(|w| w.as_str())
        .filter(|w| w.starts_with("SOPS-encrypted, not decrypted offline: Secret"))
        .collect();
    assert_eq!(per_ks.len(), 2, "{per_ks:?}");
}

#[test]
fn docs_commands_names_every_flag() {
    let doc = std::fs::read_to_string(common::root().join("docs/commands.md")).unwrap();
    let subs: &[&[&str]] = &[
        &["build"],
        &["get"],
        &["test"],
        &["diff"],
        &["check"],
        &["pins"],
        &["schemas", "import"],
        &["talos", "gen"],
        &["talos", "check"],
        &["kustomize", "build"],
        &["completions"],
        &["man"],
    ];
    let mut missing = Vec::new();
    for sub in subs {
        let o = Command::new(env!("CARGO_BIN_EXE_flate"))
            .args(*sub)
            .arg("--help")
            .output()
            .unwrap();
        let help = stdout(&o);
        for line in help.lines() {
            let line = line.trim_start();
            if !line.starts_with('-') {
                continue;
            }
            // `-o, --output <OUTPUT>` → `--output`
            let Some(flag) = line
                .split([' ', ','])
                .find(|w| w.starts_with("--") && w.len() > 2)
            else {
                continue;
            };
            if !doc.contains(&format!("`{flag}"))
                && !doc.contains(&format!("`-{}`, `{flag}", &flag[2..3]))
            {
                missing.push(format!("flate {} {flag}", sub.join(" ")));
            }
        }
    }
    assert!(missing.is_empty(), "not in docs/commands.md: {missing:?}");
}

/// `--path` with a name renders that directory under that name, whatever
/// the layout: the same objects as the environment found by discovery
/// (which the name and path make unnecessary), and, when `.flate.yaml`
/// lists the directory, that environment (its origin said with `-v`).
/// The words before --path: with a TYPE, a word naming a discovered
/// environment is that environment and another word is NAME; without one,
/// the word names the environment, whatever it is (and the repository's
/// environments are not looked for).
#[test]
fn words_with_a_path_name_the_environment_or_the_object() {
    let sources = |o: &std::process::Output| -> Vec<String> {
        stdout(o)
            .lines()
            .filter(|l| l.starts_with("# Source:"))
            .map(str::to_string)
            .collect()
    };
    for (root, name, path) in three_layouts("pathwords") {
        let all = flate_at(&["build", "ks", name], &root);
        assert!(all.status.success(), "{}", stderr(&all));
        assert!(sources(&all).len() > 1, "{}", stdout(&all));
        let o = flate_at(&["build", "ks", name, "--path", path], &root);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(sources(&o), sources(&all), "{}", root.display());
        let o = flate_at(&["build", "ks", "podinfo", "--path", path], &root);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(
            sources(&o),
            ["# Source: Kustomization flux-system/podinfo (apps/podinfo)"],
            "{}",
            root.display()
        );
        let by_name = flate_at(&["build", name], &root);
        let o = flate_at(&["build", "elsewhere", "--path", path], &root);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(sources(&o), sources(&by_name), "{}", root.display());
    }
}

#[test]
fn a_path_with_a_name_renders_as_the_discovered_environment() {
    for (root, name, path) in three_layouts("pathname") {
        let by_name = flate_at(&["build", name, "-o", "json"], &root);
        assert!(by_name.status.success(), "{}", stderr(&by_name));
        let o = flate_at(&["-v", "build", name, "--path", path, "-o", "json"], &root);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(stdout(&o), stdout(&by_name), "{}", root.display());
        let origin = if name == "main" {
            "(.flate.yaml:2)"
        } else {
            "(--path)"
        };
        assert!(
            stderr(&o).contains(&format!("environment {name} at {path} {origin}")),
            "{}",
            stderr(&o)
        );
    }
}
