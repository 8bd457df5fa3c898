//! `flate talos gen` on the example tree: snapshots of the staging and
//! production outputs (in fixtures/talos/snapshots/), the host firewall
//! against seed 002's table, the read-back through the typed Talos models,
//! byte stability, the IPLB and bootstrap-settings values, and `--out-dir`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use flate::talos::{self, GeneratedFile, model};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn env(name: &str) -> talos::Env {
    talos::load(&talos::spec_path(&repo(), name)).expect("the example spec validates")
}

fn files(name: &str) -> Vec<GeneratedFile> {
    talos::generate(&env(name))
}

fn joined(files: &[GeneratedFile]) -> String {
    let mut out = String::new();
    for f in files {
        out.push_str(&format!("==> {} <==\n{}", f.name, f.contents));
    }
    out
}

fn snapshot(name: &str, text: &str) {
    insta::with_settings!({
        snapshot_path => "../fixtures/talos/snapshots",
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::assert_snapshot!(name, text);
    });
}

#[test]
fn staging_snapshot() {
    snapshot("staging", &joined(&files("staging")));
}

#[test]
fn production_snapshot() {
    snapshot("production", &joined(&files("production")));
}

#[test]
fn output_is_byte_stable() {
    for e in ["staging", "production"] {
        let a = joined(&files(e));
        let b = joined(&talos::generate(&env(e)));
        assert_eq!(a, b);
    }
}

#[test]
fn file_set() {
    let names: Vec<String> = files("production").into_iter().map(|f| f.name).collect();
    assert_eq!(
        names,
        [
            "o11y-production-cp-rbx.yaml",
            "o11y-production-cp-gra.yaml",
            "o11y-production-cp-par.yaml",
            "o11y-production-worker-rbx.yaml",
            "o11y-production-worker-gra.yaml",
            "o11y-production-worker-sbg.yaml",
            "bootstrap-settings.yaml",
            "iplb.yaml",
            "iplb.json",
        ]
    );
}

#[test]
fn every_document_reads_back_into_typed_models() {
    for e in ["staging", "production"] {
        let env = env(e);
        let files = talos::generate(&env);
        talos::verify(&env, &files).expect("typed read-back");
        for m in &env.machines {
            let f = talos::generate_node(&env, &m.name).unwrap();
            let docs = model::parse_patch(&f.contents).unwrap();
            // v1alpha1, HostnameConfig, ExtensionServiceConfig, (3 volumes),
            // NetworkDefaultActionConfig, the rules.
            let rules = docs
                .iter()
                .filter(|d| matches!(d, model::Document::Rule(_)))
                .count();
            match m.role {
                talos::validate::Role::ControlPlane => assert_eq!(rules, 8),
                talos::validate::Role::Worker => assert_eq!(rules, 7),
            }
        }
    }
}

/// A misspelt Talos field fails the read-back, naming the field.
#[test]
fn field_name_typos_are_caught() {
    let env = env("staging");
    let cp = talos::generate_node(&env, "o11y-staging-cp-rbx").unwrap();
    let worker = talos::generate_node(&env, "o11y-staging-worker-rbx").unwrap();
    let cases = [
        (&cp.contents, "validSubnets:", "validSubnet:", "validSubnet"),
        (&cp.contents, "certSANs:", "certSans:", "certSans"),
        (
            &cp.contents,
            "allowSchedulingOnControlPlanes:",
            "allowSchedulingOnControlPlane:",
            "allowSchedulingOnControlPlane",
        ),
        (
            &cp.contents,
            "portSelector:",
            "portSelectors:",
            "portSelectors",
        ),
        (&cp.contents, "hostname: o11y", "hostName: o11y", "hostName"),
        (&worker.contents, "volumeType:", "type:", "type"),
        (
            &worker.contents,
            "diskSelector:",
            "diskselector:",
            "diskselector",
        ),
        (
            &worker.contents,
            "\n    op: create",
            "\n    mode: create",
            "mode",
        ),
    ];
    for (text, from, to, field) in cases {
        assert!(text.contains(from), "{from}");
        let broken = text.replacen(from, to, 1);
        let err = model::parse_patch(&broken).expect_err(from);
        assert!(err.contains(&format!("`{field}`")), "{from} -> {to}: {err}");
    }
    // Values are checked too: `auto` only takes stable or off.
    let err =
        model::parse_patch(&cp.contents.replace("auto: \"off\"", "auto: \"no\"")).unwrap_err();
    assert!(err.contains("HostnameConfig"), "{err}");
    // A static hostname without auto: off is refused, as Talos does.
    let err = model::parse_patch(&cp.contents.replace("auto: \"off\"\n", "")).unwrap_err();
    assert!(err.contains("cannot be set at the same time"), "{err}");
}

#[test]
fn hostname_auto_off_is_quoted() {
    for f in files("staging")
        .iter()
        .filter(|f| f.name.contains("-cp-") || f.name.contains("-worker-"))
    {
        assert!(f.contents.contains("\nauto: \"off\"\n"), "{}", f.name);
    }
}

#[test]
fn netbird_setup_key_is_never_inlined() {
    for e in ["staging", "production"] {
        for f in files(e) {
            if f.name.ends_with(".yaml") && f.name.contains("o11y-") {
                assert!(f.contents.contains("- NB_SETUP_KEY=${NETBIRD_SETUP_KEY}\n"));
            }
        }
    }
}

/// (rule name, ports, protocol, sources) for one role, as the host firewall
/// table of seed 002 reads with staging's ranges.
type Row = (&'static str, Vec<String>, &'static str, Vec<&'static str>);

fn firewall_of(env: &talos::Env, node: &str) -> (Vec<Row>, bool) {
    let f = talos::generate_node(env, node).unwrap();
    let docs = model::parse_patch(&f.contents).unwrap();
    let mut block = false;
    let mut rows = Vec::new();
    for d in docs {
        match d {
            model::Document::DefaultAction(a) => {
                block = a.ingress == model::DefaultAction::Block;
            }
            model::Document::Rule(r) => {
                let ports = r
                    .port_selector
                    .ports
                    .iter()
                    .map(|p| match p {
                        model::PortEntry::Single(p) => p.to_string(),
                        model::PortEntry::Range(s) => s.clone(),
                    })
                    .collect();
                let proto = match r.port_selector.protocol {
                    model::Protocol::Tcp => "tcp",
                    model::Protocol::Udp => "udp",
                    _ => "other",
                };
                let sources = r
                    .ingress
                    .iter()
                    .map(|i| match i.subnet.as_str() {
                        "10.150.200.0/24" => "vRack",
                        "10.254.0.0/15" => "NetBird",
                        "10.244.0.0/16" => "pod",
                        "10.108.0.0/14" => "IPLB NAT",
                        _ => "unexpected",
                    })
                    .collect();
                rows.push((leak(r.name), ports, proto, sources));
            }
            _ => {}
        }
    }
    (rows, block)
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

fn row(name: &'static str, ports: &[&str], proto: &'static str, src: &[&'static str]) -> Row {
    (
        name,
        ports.iter().map(|p| p.to_string()).collect(),
        proto,
        src.to_vec(),
    )
}

/// Seed 002, "Host firewall": default-deny ingress, then exactly these.
#[test]
fn firewall_matches_the_seed_table() {
    let env = env("staging");
    let all_nodes = [
        row("apid-ingress", &["50000"], "tcp", &["vRack", "NetBird"]),
        row("trustd-ingress", &["50001"], "tcp", &["vRack"]),
    ];
    let (cp, cp_block) = firewall_of(&env, "o11y-staging-cp-gra");
    assert!(cp_block, "default action must be block");
    assert_eq!(
        cp,
        vec![
            all_nodes[0].clone(),
            all_nodes[1].clone(),
            row(
                "kube-apiserver-ingress",
                &["6443"],
                "tcp",
                &["vRack", "NetBird"]
            ),
            row("etcd-ingress", &["2379-2380"], "tcp", &["vRack"]),
            row("kubelet-ingress", &["10250"], "tcp", &["vRack", "pod"]),
            row("flannel-vxlan-ingress", &["4789"], "udp", &["vRack"]),
            row(
                "controlplane-metrics-ingress",
                &["10257", "10259", "2381"],
                "tcp",
                &["vRack", "pod"]
            ),
            row(
                "node-metrics-ingress",
                &["10249", "9100"],
                "tcp",
                &["vRack", "pod"]
            ),
        ]
    );
    let (w, w_block) = firewall_of(&env, "o11y-staging-worker-sbg");
    assert!(w_block);
    assert_eq!(
        w,
        vec![
            all_nodes[0].clone(),
            all_nodes[1].clone(),
            row("kubelet-ingress", &["10250"], "tcp", &["vRack", "pod"]),
            row("flannel-vxlan-ingress", &["4789"], "udp", &["vRack"]),
            row(
                "spegel-registry-ingress",
                &["29999", "30021"],
                "tcp",
                &["vRack"]
            ),
            row("envoy-ingress", &["30443"], "tcp", &["IPLB NAT"]),
            row(
                "node-metrics-ingress",
                &["10249", "9100"],
                "tcp",
                &["vRack", "pod"]
            ),
        ]
    );
}

/// The BOOTSTRAP_* values equal the ones the example tree documents in
/// kubernetes/clusters/<env>/cluster-settings.yaml.
#[test]
fn bootstrap_settings_match_the_documented_values() {
    for e in ["staging", "production"] {
        let text = std::fs::read_to_string(
            repo().join(format!("kubernetes/clusters/{e}/cluster-settings.yaml")),
        )
        .unwrap();
        let documented: BTreeMap<String, String> = text
            .lines()
            .filter_map(|l| l.strip_prefix("#   BOOTSTRAP_"))
            .map(|l| {
                let (k, rest) = l.split_once(':').unwrap();
                let v = rest.split_whitespace().next().unwrap();
                (format!("BOOTSTRAP_{k}"), v.to_string())
            })
            .collect();
        assert_eq!(documented.len(), 6, "{e}");
        assert_eq!(talos::settings::values(&env(e)), documented, "{e}");
        // bootstrap_settings_for is the renderer's pick-up hook.
        let cm = talos::bootstrap_settings_for(&repo(), e).unwrap().unwrap();
        assert_eq!(
            cm.get_str(&["metadata", "name"]),
            Some("bootstrap-settings")
        );
        assert_eq!(cm.get_str(&["metadata", "namespace"]), Some("flux-system"));
    }
    assert!(
        talos::bootstrap_settings_for(&repo(), "nowhere")
            .unwrap()
            .is_none()
    );
}

#[test]
fn iplb_zones_and_farm() {
    for (e, zones, anycast) in [
        ("staging", vec!["gra"], false),
        ("production", vec!["gra", "rbx", "sbg"], true),
    ] {
        let files = files(e);
        let json = &files
            .iter()
            .find(|f| f.name == "iplb.json")
            .unwrap()
            .contents;
        let yaml = &files
            .iter()
            .find(|f| f.name == "iplb.yaml")
            .unwrap()
            .contents;
        let j: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(flate::yaml::parse_one(yaml).unwrap().to_json(), j);
        assert_eq!(j["anycast"], anycast);
        let got: Vec<&str> = j["zones"]
            .as_array()
            .unwrap()
            .iter()
            .map(|z| z.as_str().unwrap())
            .collect();
        assert_eq!(got, zones);
        assert_eq!(j["frontends"].as_array().unwrap().len(), zones.len());
        for f in j["frontends"].as_array().unwrap() {
            assert_eq!(f["port"], 443);
        }
        for farm in j["farms"].as_array().unwrap() {
            assert_eq!(farm["port"], 30443);
            let servers = farm["servers"].as_array().unwrap();
            assert_eq!(servers.len(), 3);
            for s in servers {
                assert_eq!(s["port"], 30443);
                assert_eq!(s["proxy_protocol_version"], "v2");
            }
        }
    }
}

#[test]
fn installer_images_follow_the_schematics() {
    let env = env("staging");
    let cp = env.control_planes().next().unwrap();
    let w = env.workers().next().unwrap();
    // netbird + qemu-guest-agent for Public Cloud, netbird only on metal.
    assert_eq!(
        cp.installer_image,
        format!(
            "factory.talos.dev/openstack-installer/{}:v1.12.6",
            talos::validate::schematic_id(&[
                "siderolabs/netbird".into(),
                "siderolabs/qemu-guest-agent".into()
            ])
        )
    );
    assert_eq!(
        w.installer_image,
        format!(
            "factory.talos.dev/metal-installer/{}:v1.12.6",
            talos::validate::schematic_id(&["siderolabs/netbird".into()])
        )
    );
}

fn flate(args: &[&str], cwd: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_flate"))
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap()
}

#[test]
fn cli_prints_one_node() {
    let out = flate(
        &[
            "talos",
            "gen",
            "staging",
            "--node",
            "o11y-staging-worker-gra",
        ],
        &repo(),
    );
    assert_eq!(out.status.code(), Some(0));
    let env = env("staging");
    let want = talos::generate_node(&env, "o11y-staging-worker-gra").unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), want.contents);

    let out = flate(&["talos", "gen", "staging", "--node", "nope"], &repo());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no node named \"nope\""));
}

#[test]
fn cli_stdout_is_one_yaml_stream() {
    let out = flate(&["talos", "gen", "production"], &repo());
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let docs = flate::yaml::parse_stream(&text).unwrap();
    // 6 nodes (3 x 12 documents for control planes, 3 x 14 for workers),
    // bootstrap-settings, iplb.
    assert_eq!(docs.len(), 3 * 12 + 3 * 14 + 2);
}

#[test]
fn cli_schema_matches_the_committed_file() {
    let out = flate(&["talos", "schema"], &repo());
    assert_eq!(out.status.code(), Some(0));
    let file = std::fs::read_to_string(repo().join("schemas/talos-spec.schema.json")).unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        file,
        "regenerate with: cargo run -- talos schema > schemas/talos-spec.schema.json"
    );
}

#[test]
fn out_dir_is_written_atomically() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let out_s = out.to_str().unwrap();
    let spec = repo().join("kubernetes/clusters/staging/talos.yaml");
    let spec_s = spec.to_str().unwrap();

    let r = flate(&["talos", "gen", "staging", "--out-dir", out_s], &repo());
    assert_eq!(
        r.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
    let stdout = String::from_utf8(r.stdout).unwrap();
    assert_eq!(
        stdout.lines().filter(|l| l.starts_with("wrote ")).count(),
        9
    );
    for f in files("staging") {
        assert_eq!(
            std::fs::read_to_string(out.join(&f.name)).unwrap(),
            f.contents
        );
    }

    // Same input: nothing is rewritten.
    let r = flate(&["talos", "gen", "staging", "--out-dir", out_s], &repo());
    let stdout = String::from_utf8(r.stdout).unwrap();
    assert_eq!(
        stdout
            .lines()
            .filter(|l| l.starts_with("unchanged "))
            .count(),
        9
    );

    let snapshot_dir = |d: &Path| {
        let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).unwrap_or_default(),
                )
            })
            .collect();
        v.sort();
        v
    };
    let before = snapshot_dir(&out);

    // An invalid spec: exit 2, nothing touched.
    let bad = dir.path().join("bad.yaml");
    std::fs::write(
        &bad,
        std::fs::read_to_string(&spec)
            .unwrap()
            .replace("privateIp: 10.150.200.22", "privateIp: 10.150.201.22"),
    )
    .unwrap();
    let r = flate(
        &[
            "talos",
            "gen",
            "staging",
            "--spec",
            bad.to_str().unwrap(),
            "--out-dir",
            out_s,
        ],
        &repo(),
    );
    assert_eq!(r.status.code(), Some(2));
    assert_eq!(snapshot_dir(&out), before);

    // A changed spec whose write fails (a target is a directory): exit 2,
    // no file changed, no temporary file left.
    let changed = dir.path().join("changed.yaml");
    std::fs::write(
        &changed,
        std::fs::read_to_string(spec_s)
            .unwrap()
            .replace("ephemeralSize: 100GiB", "ephemeralSize: 120GiB"),
    )
    .unwrap();
    std::fs::remove_file(out.join("iplb.json")).unwrap();
    std::fs::create_dir(out.join("iplb.json")).unwrap();
    let before = snapshot_dir(&out);
    let r = flate(
        &[
            "talos",
            "gen",
            "staging",
            "--spec",
            changed.to_str().unwrap(),
            "--out-dir",
            out_s,
        ],
        &repo(),
    );
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("iplb.json"));
    assert_eq!(snapshot_dir(&out), before);
}
