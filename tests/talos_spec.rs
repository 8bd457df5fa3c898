//! Spec validation: one test per error case. Each test breaks one field of
//! the valid spec `fixtures/talos/base.yaml` and checks that the error names
//! that field and says why.

use std::path::{Path, PathBuf};

use flate::talos::{self, Error, SpecError};

fn base_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/talos/base.yaml")
}

fn base() -> String {
    std::fs::read_to_string(base_path()).expect("fixtures/talos/base.yaml")
}

/// `text` with the first `old` replaced (which must be there).
fn edit(text: &str, old: &str, new: &str) -> String {
    assert!(text.contains(old), "fixture has no {old:?}");
    text.replacen(old, new, 1)
}

fn errors(text: &str) -> Vec<SpecError> {
    match talos::load_str(text, Path::new("talos.yaml")) {
        Ok(_) => panic!("the spec validated"),
        Err(Error::Spec { errors, .. }) => errors,
        Err(e) => panic!("unexpected error: {e}"),
    }
}

/// Asserts that validating `text` reports `field` with a message containing
/// `why`.
fn expect(text: &str, field: &str, why: &str) {
    let errs = errors(text);
    assert!(
        errs.iter()
            .any(|e| e.field == field && e.message.contains(why)),
        "expected `{field}: ...{why}...`, got:\n{}",
        errs.iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn base_fixture_is_valid_and_defaults_apply() {
    let env = talos::load(&base_path()).expect("valid");
    assert_eq!(env.vip.to_string(), "10.150.200.5");
    assert_eq!(env.pod_cidr.to_string(), "10.244.0.0/16");
    assert_eq!(env.service_cidr.to_string(), "10.96.0.0/12");
    assert_eq!(env.cluster_dns.to_string(), "10.96.0.10");
    assert_eq!(env.netbird_cidr.to_string(), "10.254.0.0/15");
    assert_eq!(env.iplb_nat_cidr.to_string(), "10.108.0.0/14");
    assert_eq!(env.envoy_node_port, 30443);
    assert_eq!(env.gateway_vip.to_string(), "10.69.1.10");
    assert_eq!(env.mesh_dns_vip.to_string(), "10.69.1.53");
    assert_eq!(env.egress_gateway.to_string(), "10.69.3.1");
    assert_eq!(env.machines.len(), 5);
    assert!(env.workers().all(|w| w.platform == "metal"));
}

#[test]
fn node_ip_outside_private_cidr() {
    let t = edit(
        &base(),
        "privateIp: 10.150.200.22",
        "privateIp: 10.150.201.22",
    );
    expect(
        &t,
        "workers[1].privateIp",
        "10.150.201.22 is outside network.privateCidr 10.150.200.0/24",
    );
}

#[test]
fn node_ip_is_network_or_broadcast_address() {
    let t = edit(
        &base(),
        "privateIp: 10.150.200.22",
        "privateIp: 10.150.200.255",
    );
    expect(&t, "workers[1].privateIp", "broadcast address");
}

#[test]
fn vip_outside_private_cidr() {
    let t = edit(
        &base(),
        "privateCidr: 10.150.200.0/24",
        "privateCidr: 10.150.200.0/24\n  vipOffset: 260",
    );
    expect(
        &t,
        "network.vipOffset",
        "the VIP 10.150.201.4 (offset 260) is outside network.privateCidr 10.150.200.0/24",
    );
}

#[test]
fn vip_equals_a_node_ip() {
    let t = edit(
        &base(),
        "privateIp: 10.150.200.11",
        "privateIp: 10.150.200.5",
    );
    expect(
        &t,
        "controlPlanes[0].privateIp",
        "10.150.200.5 is the control-plane VIP",
    );
}

#[test]
fn duplicate_node_names() {
    let t = edit(&base(), "name: worker-2", "name: cp-1");
    expect(
        &t,
        "workers[1].name",
        "duplicate node name \"cp-1\" (also controlPlanes[0].name)",
    );
}

#[test]
fn duplicate_private_ips() {
    let t = edit(
        &base(),
        "privateIp: 10.150.200.22",
        "privateIp: 10.150.200.21",
    );
    expect(
        &t,
        "workers[1].privateIp",
        "duplicate IP 10.150.200.21 (also workers[0].privateIp)",
    );
}

#[test]
fn duplicate_public_ips() {
    let t = edit(
        &base(),
        "publicIp: 198.51.100.13",
        "publicIp: 198.51.100.11",
    );
    expect(
        &t,
        "controlPlanes[2].publicIp",
        "duplicate IP 198.51.100.11 (also controlPlanes[0].publicIp)",
    );
}

#[test]
fn overlapping_pod_and_private_cidrs() {
    let t = edit(
        &base(),
        "privateCidr: 10.150.200.0/24",
        "privateCidr: 10.150.200.0/24\n  podCidr: 10.150.0.0/16",
    );
    expect(
        &t,
        "network.podCidr",
        "10.150.0.0/16 overlaps network.privateCidr 10.150.200.0/24",
    );
}

#[test]
fn overlapping_service_and_pod_cidrs() {
    let t = edit(
        &base(),
        "privateCidr: 10.150.200.0/24",
        "privateCidr: 10.150.200.0/24\n  serviceCidr: 10.244.128.0/17",
    );
    expect(
        &t,
        "network.serviceCidr",
        "10.244.128.0/17 overlaps network.podCidr 10.244.0.0/16",
    );
}

#[test]
fn overlapping_netbird_and_private_cidrs() {
    let t = edit(
        &base(),
        "privateCidr: 10.150.200.0/24",
        "privateCidr: 10.150.200.0/24\n  netbirdCidr: 10.150.0.0/15",
    );
    expect(
        &t,
        "network.netbirdCidr",
        "10.150.0.0/15 overlaps network.privateCidr 10.150.200.0/24",
    );
}

#[test]
fn overlapping_egress_and_pod_cidrs() {
    let t = edit(
        &base(),
        "egressCidr: 10.69.3.0/24",
        "egressCidr: 10.244.3.0/24",
    );
    expect(
        &t,
        "mesh.egressCidr",
        "10.244.3.0/24 overlaps network.podCidr 10.244.0.0/16",
    );
}

#[test]
fn overlapping_egress_and_netbird_cidrs() {
    let t = edit(
        &base(),
        "egressCidr: 10.69.3.0/24",
        "egressCidr: 10.255.0.0/24",
    );
    expect(
        &t,
        "mesh.egressCidr",
        "10.255.0.0/24 overlaps network.netbirdCidr 10.254.0.0/15",
    );
}

#[test]
fn even_number_of_control_planes() {
    let t = edit(
        &base(),
        "  - name: cp-3\n    datacenter: EU-WEST-PAR\n    platform: openstack\n    publicIp: 198.51.100.13\n    privateIp: 10.150.200.13\n",
        "",
    );
    expect(&t, "controlPlanes", "etcd needs an odd number for quorum");
}

#[test]
fn no_control_plane() {
    let text = base();
    let start = text.find("controlPlanes:").unwrap();
    let end = text.find("workers:").unwrap();
    let t = format!("{}controlPlanes: []\n{}", &text[..start], &text[end..]);
    expect(&t, "controlPlanes", "at least one control plane");
}

#[test]
fn worker_without_nic_names() {
    let t = edit(
        &base(),
        "    publicNic: eno1\n    privateNic: eno2\n    spareDiskModel",
        "    spareDiskModel",
    );
    expect(&t, "workers[0]", "worker without NIC names");
}

#[test]
fn worker_without_private_nic() {
    let t = edit(&base(), "    privateNic: eno2\n", "");
    expect(&t, "workers[0].privateNic", "required for a worker");
}

#[test]
fn control_plane_without_private_nic() {
    let t = edit(&base(), "    privateNic: ens4\n", "");
    expect(
        &t,
        "controlPlanes[0].privateNic",
        "the VIP and the static vRack IP",
    );
}

#[test]
fn unknown_platform_on_a_node() {
    let t = edit(&base(), "platform: openstack", "platform: aws");
    expect(
        &t,
        "controlPlanes[0].platform",
        "unknown platform \"aws\" (platforms defines: metal, openstack)",
    );
}

#[test]
fn unknown_platform_name() {
    let t = edit(&base(), "  metal:\n", "  baremetal:\n");
    expect(&t, "platforms.baremetal", "unknown platform \"baremetal\"");
}

#[test]
fn unknown_field_is_named() {
    let t = edit(&base(), "privateCidr:", "privateCIDR:");
    let errs = errors(&t);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].field, "network.privateCIDR");
    assert!(
        errs[0].message.contains("unknown field `privateCIDR`"),
        "{}",
        errs[0]
    );
}

#[test]
fn missing_field_is_named() {
    let t = edit(&base(), "    datacenter: GRA\n", "");
    let errs = errors(&t);
    assert_eq!(errs[0].field, "workers[1]");
    assert!(errs[0].message.contains("missing field `datacenter`"));
}

#[test]
fn qemu_guest_agent_on_bare_metal() {
    let t = edit(
        &base(),
        "systemExtensions: [siderolabs/netbird]\n",
        "systemExtensions: [siderolabs/netbird, siderolabs/qemu-guest-agent]\n",
    );
    expect(&t, "platforms.metal.systemExtensions", "reboot-loops");
}

#[test]
fn installer_tag_differs_from_talos_version() {
    let t = edit(
        &base(),
        "    installDisk: /dev/nvme0n1\n",
        "    installDisk: /dev/nvme0n1\n    installerImage: factory.talos.dev/metal-installer/abc:v1.11.5\n",
    );
    expect(
        &t,
        "platforms.metal.installerImage",
        "tag v1.11.5 does not match cluster.talosVersion v1.12.6",
    );
}

#[test]
fn netbird_configured_but_not_in_the_schematic() {
    let t = edit(
        &base(),
        "systemExtensions: [siderolabs/netbird]\n",
        "systemExtensions: []\n",
    );
    expect(
        &t,
        "platforms.metal.systemExtensions",
        "siderolabs/netbird is not in this platform's schematic",
    );
}

#[test]
fn worker_without_spare_disk_model() {
    let t = edit(
        &base(),
        "    spareDiskModel: WDC CL SN720 SDAQNTW-512G-2000\n",
        "",
    );
    expect(&t, "workers[0].spareDiskModel", "required for a worker");
}

#[test]
fn cluster_dns_outside_service_cidr() {
    let t = edit(
        &base(),
        "privateCidr: 10.150.200.0/24",
        "privateCidr: 10.150.200.0/24\n  clusterDns: 10.244.0.10",
    );
    expect(
        &t,
        "network.clusterDns",
        "10.244.0.10 is not a host address of network.serviceCidr 10.96.0.0/12",
    );
}

#[test]
fn service_cidr_too_small_for_the_default_cluster_dns() {
    let t = edit(
        &base(),
        "privateCidr: 10.150.200.0/24",
        "privateCidr: 10.150.200.0/24\n  serviceCidr: 10.96.0.0/29",
    );
    expect(&t, "network.serviceCidr", "has no 10th address");
}

#[test]
fn envoy_node_port_outside_node_port_range() {
    let t = edit(
        &base(),
        "privateCidr: 10.150.200.0/24",
        "privateCidr: 10.150.200.0/24\n  envoyNodePort: 443",
    );
    expect(
        &t,
        "network.envoyNodePort",
        "outside the Kubernetes NodePort range",
    );
}

#[test]
fn ipv6_is_refused() {
    let t = edit(&base(), "publicIp: 198.51.100.21", "publicIp: 2001:db8::21");
    expect(&t, "workers[0].publicIp", "only IPv4 is supported");
}

#[test]
fn cidr_with_host_bits() {
    let t = edit(
        &base(),
        "privateCidr: 10.150.200.0/24",
        "privateCidr: 10.150.200.1/24",
    );
    expect(&t, "network.privateCidr", "has host bits set");
}

#[test]
fn no_worker() {
    let text = base();
    let start = text.find("workers:").unwrap();
    let t = format!("{}workers: []\n", &text[..start]);
    expect(&t, "workers", "at least one worker");
}

#[test]
fn setup_key_must_be_a_variable_name() {
    let t = edit(
        &base(),
        "setupKeyEnv: NETBIRD_SETUP_KEY",
        "setupKeyEnv: nbk-1234-secret",
    );
    expect(
        &t,
        "extensions.netbird.setupKeyEnv",
        "is not an environment variable name",
    );
}

#[test]
fn every_error_is_reported_at_once() {
    let t = edit(
        &base(),
        "privateIp: 10.150.200.22",
        "privateIp: 10.150.201.22",
    );
    let t = edit(&t, "name: worker-2", "name: worker-1");
    let t = edit(&t, "platform: openstack", "platform: aws");
    let fields: Vec<String> = errors(&t).into_iter().map(|e| e.field).collect();
    for f in [
        "controlPlanes[0].platform",
        "workers[1].name",
        "workers[1].privateIp",
    ] {
        assert!(fields.iter().any(|x| x == f), "{f} missing from {fields:?}");
    }
}

#[test]
fn cli_gen_reports_fields_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("talos.yaml");
    std::fs::write(
        &spec,
        edit(
            &base(),
            "privateIp: 10.150.200.22",
            "privateIp: 10.150.201.22",
        ),
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_flate"))
        .args(["talos", "gen", "test", "--spec"])
        .arg(&spec)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("workers[1].privateIp: 10.150.201.22 is outside network.privateCidr"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}
