//! Per-node Talos config patches: the v1alpha1 machine/cluster patch and
//! the multi-document configs (HostnameConfig, ExtensionServiceConfig,
//! VolumeConfig, UserVolumeConfig, host firewall).
//!
//! Facts relied on (Talos v1.12 configuration reference and seed 002):
//! - containerd reads CRI customizations from `/etc/cri/conf.d/20-customization.part`;
//!   with containerd 2 the image-service options live under
//!   `[plugins."io.containerd.cri.v1.images"]`. Spegel needs
//!   `discard_unpacked_layers = false` on the workers.
//! - `HostnameConfig` with a static `hostname` must say `auto: off`
//!   (Talos refuses `hostname` together with any other `auto`); `off` is
//!   quoted so no YAML 1.1 reader takes it for a boolean.
//! - Image Factory schematic system extensions are configured through an
//!   `ExtensionServiceConfig` named after the extension; the NetBird
//!   extension reads `NB_SETUP_KEY` and `NB_MANAGEMENT_URL`.
//! - `VolumeConfig` may only size STATE, EPHEMERAL and IMAGECACHE; a
//!   `UserVolumeConfig` of type `partition` needs a disk selector and a size,
//!   one of type `disk` takes the whole selected disk and no size. User
//!   volumes mount under `/var/mnt/<name>`, which is where the openebs
//!   StorageClasses point (`hostpath`, `local-hostpath`).

use crate::yaml::{Map, Node};

use super::firewall;
use super::validate::{Env, Machine, Role};

pub(crate) fn str_node(s: &str) -> Node {
    Node::str(s)
}

pub(crate) fn map(entries: Vec<(&str, Node)>) -> Node {
    let mut m = Map::new();
    for (k, v) in entries {
        m.insert(k, v);
    }
    Node::Map(m)
}

pub(crate) fn seq(items: impl IntoIterator<Item = Node>) -> Node {
    Node::Seq(items.into_iter().collect())
}

fn strs<'a>(items: impl IntoIterator<Item = &'a str>) -> Node {
    seq(items.into_iter().map(Node::str))
}

/// Where containerd picks up CRI customizations on Talos.
pub const CRI_CUSTOMIZATION_PATH: &str = "/etc/cri/conf.d/20-customization.part";

/// The containerd customization that keeps unpacked layers so Spegel can
/// serve them to peers.
pub const CRI_SPEGEL_PART: &str =
    "[plugins.\"io.containerd.cri.v1.images\"]\n  discard_unpacked_layers = false\n";

pub const KUBELET_IMAGE: &str = "ghcr.io/siderolabs/kubelet";
pub const APISERVER_IMAGE: &str = "registry.k8s.io/kube-apiserver";
pub const CONTROLLER_MANAGER_IMAGE: &str = "registry.k8s.io/kube-controller-manager";
pub const SCHEDULER_IMAGE: &str = "registry.k8s.io/kube-scheduler";
pub const PROXY_IMAGE: &str = "registry.k8s.io/kube-proxy";

/// User volume names (mounted at `/var/mnt/<name>`).
pub const HOSTPATH_VOLUME: &str = "hostpath";
pub const SPARE_VOLUME: &str = "local-hostpath";

fn machine_section(env: &Env, m: &Machine) -> Node {
    let mut machine = Map::new();
    machine.insert(
        "install",
        map(vec![
            ("disk", str_node(&m.install_disk)),
            ("image", str_node(&m.installer_image)),
            ("wipe", Node::Bool(false)),
        ]),
    );
    machine.insert(
        "kubelet",
        map(vec![
            (
                "image",
                Node::str(format!("{KUBELET_IMAGE}:{}", env.kubernetes_version)),
            ),
            ("clusterDNS", strs([env.cluster_dns.to_string().as_str()])),
            (
                "nodeIP",
                map(vec![(
                    "validSubnets",
                    strs([env.private_cidr.to_string().as_str()]),
                )]),
            ),
        ]),
    );
    let mut interfaces = Vec::new();
    if let Some(nic) = &m.public_nic {
        interfaces.push(map(vec![
            ("interface", str_node(nic)),
            ("dhcp", Node::Bool(true)),
        ]));
    }
    let mut private = vec![
        ("interface", str_node(&m.private_nic)),
        (
            "addresses",
            strs([format!("{}/{}", m.private_ip, env.private_cidr.prefix_len()).as_str()]),
        ),
    ];
    if m.role == Role::ControlPlane {
        private.push(("vip", map(vec![("ip", Node::str(env.vip.to_string()))])));
    }
    interfaces.push(map(private));
    machine.insert("network", map(vec![("interfaces", Node::Seq(interfaces))]));
    if m.role == Role::Worker {
        machine.insert(
            "files",
            seq([map(vec![
                ("path", str_node(CRI_CUSTOMIZATION_PATH)),
                ("op", str_node("create")),
                ("content", str_node(CRI_SPEGEL_PART)),
            ])]),
        );
    }
    let mut labels = vec![("topology.kubernetes.io/zone", str_node(&m.datacenter))];
    if let Some(plan) = &m.plan {
        labels.push(("node.kubernetes.io/instance-type", str_node(plan)));
    }
    machine.insert("nodeLabels", map(labels));
    Node::Map(machine)
}

fn cluster_section(env: &Env, m: &Machine) -> Node {
    let k8s = &env.kubernetes_version;
    let mut cluster = Map::new();
    cluster.insert("clusterName", str_node(&env.cluster_name));
    cluster.insert(
        "controlPlane",
        map(vec![("endpoint", Node::str(env.endpoint()))]),
    );
    let mut network = vec![
        ("podSubnets", strs([env.pod_cidr.to_string().as_str()])),
        (
            "serviceSubnets",
            strs([env.service_cidr.to_string().as_str()]),
        ),
    ];
    if m.role == Role::ControlPlane {
        network.push((
            "cni",
            map(vec![
                ("name", str_node("flannel")),
                (
                    "flannel",
                    map(vec![(
                        "extraArgs",
                        strs([
                            format!("--iface-can-reach={}", env.private_cidr.first_host()).as_str(),
                        ]),
                    )]),
                ),
            ]),
        ));
    }
    cluster.insert("network", map(network));
    if m.role == Role::ControlPlane {
        cluster.insert("allowSchedulingOnControlPlanes", Node::Bool(false));
        cluster.insert("coreDNS", map(vec![("disabled", Node::Bool(true))]));
        let mut sans: Vec<String> = vec![env.vip.to_string()];
        sans.extend(env.control_planes().map(|cp| cp.private_ip.to_string()));
        sans.push(format!("kube.{}", env.mesh_domain));
        cluster.insert(
            "apiServer",
            map(vec![
                ("image", Node::str(format!("{APISERVER_IMAGE}:{k8s}"))),
                ("certSANs", seq(sans.into_iter().map(Node::Str))),
            ]),
        );
        let bind_all = || map(vec![("bind-address", str_node("0.0.0.0"))]);
        cluster.insert(
            "controllerManager",
            map(vec![
                (
                    "image",
                    Node::str(format!("{CONTROLLER_MANAGER_IMAGE}:{k8s}")),
                ),
                ("extraArgs", bind_all()),
            ]),
        );
        cluster.insert(
            "scheduler",
            map(vec![
                ("image", Node::str(format!("{SCHEDULER_IMAGE}:{k8s}"))),
                ("extraArgs", bind_all()),
            ]),
        );
        cluster.insert(
            "proxy",
            map(vec![
                ("image", Node::str(format!("{PROXY_IMAGE}:{k8s}"))),
                ("mode", str_node("nftables")),
                (
                    "extraArgs",
                    map(vec![
                        ("nodeport-addresses", str_node("0.0.0.0/0")),
                        ("metrics-bind-address", str_node("0.0.0.0:10249")),
                    ]),
                ),
            ]),
        );
        cluster.insert(
            "etcd",
            map(vec![
                (
                    "advertisedSubnets",
                    strs([env.private_cidr.to_string().as_str()]),
                ),
                (
                    "extraArgs",
                    map(vec![(
                        "listen-metrics-urls",
                        str_node("http://0.0.0.0:2381"),
                    )]),
                ),
            ]),
        );
    }
    Node::Map(cluster)
}

/// The v1alpha1 patch document.
pub fn v1alpha1_patch(env: &Env, m: &Machine) -> Node {
    map(vec![
        ("machine", machine_section(env, m)),
        ("cluster", cluster_section(env, m)),
    ])
}

pub fn hostname_config(m: &Machine) -> Node {
    map(vec![
        ("apiVersion", str_node("v1alpha1")),
        ("kind", str_node("HostnameConfig")),
        ("auto", str_node("off")),
        ("hostname", str_node(&m.name)),
    ])
}

/// The NetBird `ExtensionServiceConfig`: the setup key is a `${VAR}`
/// placeholder the operator fills when applying, never a value.
pub fn netbird_config(env: &Env) -> Option<Node> {
    let nb = env.netbird.as_ref()?;
    Some(map(vec![
        ("apiVersion", str_node("v1alpha1")),
        ("kind", str_node("ExtensionServiceConfig")),
        ("name", str_node("netbird")),
        (
            "environment",
            seq([
                Node::str(format!("NB_SETUP_KEY=${{{}}}", nb.setup_key_env)),
                Node::str(format!("NB_MANAGEMENT_URL={}", nb.management_url)),
            ]),
        ),
    ]))
}

/// Worker storage: a fixed EPHEMERAL partition and a growing `hostpath`
/// user volume on the system disk, and the whole spare NVMe (matched by
/// exact model, never the system disk) as `local-hostpath`.
pub fn worker_volumes(env: &Env, m: &Machine) -> Vec<Node> {
    let mut docs = vec![
        map(vec![
            ("apiVersion", str_node("v1alpha1")),
            ("kind", str_node("VolumeConfig")),
            ("name", str_node("EPHEMERAL")),
            (
                "provisioning",
                map(vec![
                    (
                        "diskSelector",
                        map(vec![("match", str_node("system_disk"))]),
                    ),
                    ("grow", Node::Bool(false)),
                    ("maxSize", str_node(&env.ephemeral_size)),
                ]),
            ),
        ]),
        map(vec![
            ("apiVersion", str_node("v1alpha1")),
            ("kind", str_node("UserVolumeConfig")),
            ("name", str_node(HOSTPATH_VOLUME)),
            ("volumeType", str_node("partition")),
            (
                "provisioning",
                map(vec![
                    (
                        "diskSelector",
                        map(vec![("match", str_node("system_disk"))]),
                    ),
                    ("grow", Node::Bool(true)),
                    ("minSize", str_node(&env.hostpath_min_size)),
                ]),
            ),
        ]),
    ];
    if let Some(model) = &m.spare_disk_model {
        docs.push(map(vec![
            ("apiVersion", str_node("v1alpha1")),
            ("kind", str_node("UserVolumeConfig")),
            ("name", str_node(SPARE_VOLUME)),
            ("volumeType", str_node("disk")),
            (
                "provisioning",
                map(vec![(
                    "diskSelector",
                    map(vec![(
                        "match",
                        Node::str(format!("disk.model == \"{model}\" && !system_disk")),
                    )]),
                )]),
            ),
        ]));
    }
    docs
}

/// Every document of a node's patch file, in file order.
pub fn documents(env: &Env, m: &Machine) -> Vec<Node> {
    let mut docs = vec![v1alpha1_patch(env, m), hostname_config(m)];
    docs.extend(netbird_config(env));
    if m.role == Role::Worker {
        docs.extend(worker_volumes(env, m));
    }
    docs.push(firewall::default_action());
    docs.extend(firewall::rule_documents(env, m.role));
    docs
}

/// The patch file's text: a header comment, then the documents.
pub fn patch_file(env: &Env, m: &Machine) -> String {
    let mut out = format!(
        "# Talos config patch for {} ({}, cluster {}), Talos {}.\n# Generated by `flate talos gen` from the environment spec: do not edit.\n",
        m.name,
        m.role.as_str(),
        env.cluster_name,
        env.talos_version,
    );
    if let Some(nb) = &env.netbird {
        out.push_str(&format!(
            "# ${{{}}} is a placeholder: substitute it (envsubst) when applying.\n",
            nb.setup_key_env
        ));
    }
    out.push_str(&crate::yaml::stream_to_string(&documents(env, m)));
    out
}
