//! The environment spec as written (`kubernetes/clusters/<env>/talos.yaml`).
//!
//! These types mirror the file one to one and reject unknown fields; every
//! value is still text (addresses, prefixes). [`super::validate`] turns a
//! [`Spec`] into a checked [`super::validate::Env`] with parsed addresses
//! and every default applied. Field names are documented in the README
//! (`## flate talos gen`) and in `schemas/talos-spec.schema.json`.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{Error, SpecError};

pub const API_VERSION: &str = "flate/v1alpha1";
pub const KIND: &str = "TalosSpec";

/// Defaults (seeds 000 and 002, and Talos' own defaults).
pub mod defaults {
    pub const VIP_OFFSET: u32 = 5;
    pub const POD_CIDR: &str = "10.244.0.0/16";
    pub const SERVICE_CIDR: &str = "10.96.0.0/12";
    /// Offset of the cluster DNS IP inside the service CIDR (kube-dns' `.10`).
    pub const CLUSTER_DNS_OFFSET: u64 = 10;
    pub const NETBIRD_CIDR: &str = "10.254.0.0/15";
    pub const IPLB_NAT_CIDR: &str = "10.108.0.0/14";
    pub const ENVOY_NODE_PORT: u32 = 30443;
    pub const GATEWAY_VIP_OFFSET: u32 = 10;
    pub const MESH_DNS_VIP_OFFSET: u32 = 53;
    pub const EGRESS_GATEWAY_OFFSET: u32 = 1;
    pub const NETBIRD_MANAGEMENT_URL: &str = "https://api.netbird.io:443";
    pub const WORKER_PLATFORM: &str = "metal";
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Spec {
    pub api_version: String,
    pub kind: String,
    pub cluster: ClusterSpec,
    pub network: NetworkSpec,
    pub mesh: MeshSpec,
    pub iplb: IplbSpec,
    pub platforms: BTreeMap<String, PlatformSpec>,
    #[serde(default)]
    pub extensions: ExtensionsSpec,
    #[serde(default)]
    pub storage: StorageSpec,
    pub control_planes: Vec<ControlPlaneSpec>,
    #[serde(default)]
    pub workers: Vec<WorkerSpec>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ClusterSpec {
    /// The Talos cluster name (`o11y-staging`).
    pub name: String,
    /// `vX.Y.Z`; the tag of every installer image.
    pub talos_version: String,
    /// `vX.Y.Z`; pins the kubelet and control-plane images.
    pub kubernetes_version: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NetworkSpec {
    /// The environment's vRack prefix: the host firewall's trust boundary.
    pub private_cidr: String,
    /// The control-plane VIP is this many addresses after the network
    /// address of `privateCidr` (default 5, i.e. `.5`).
    pub vip_offset: Option<u32>,
    pub pod_cidr: Option<String>,
    pub service_cidr: Option<String>,
    /// kubelet's clusterDNS (default: the 10th address of `serviceCidr`).
    pub cluster_dns: Option<String>,
    /// NetBird peer range, trusted on apid and kube-apiserver.
    pub netbird_cidr: Option<String>,
    /// OVH IPLB NAT range, the only source allowed on the Envoy NodePort.
    pub iplb_nat_cidr: Option<String>,
    pub envoy_node_port: Option<u32>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct MeshSpec {
    /// `*.<domain>` resolves to the mesh gateway; `kube.<domain>` is the HA
    /// apiserver endpoint (an apiserver certSAN).
    pub domain: String,
    /// Secondary ServiceCIDR holding the mesh gateway and mesh DNS VIPs.
    pub gateway_service_cidr: String,
    pub gateway_vip_offset: Option<u32>,
    pub dns_vip_offset: Option<u32>,
    /// Multus pod-egress range the nodes advertise to NetBird.
    pub egress_cidr: String,
    pub egress_gateway_offset: Option<u32>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct IplbSpec {
    /// OVH IPLB zones (`gra`, `rbx`, `sbg`, ...); more than one is anycast.
    pub zones: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PlatformSpec {
    /// Image Factory system extensions of this platform's schematic.
    #[serde(default)]
    pub system_extensions: Vec<String>,
    /// Installer image; default: the Image Factory installer of the
    /// schematic made of `systemExtensions`, tagged `cluster.talosVersion`.
    pub installer_image: Option<String>,
    /// The system disk (`machine.install.disk`).
    pub install_disk: String,
    /// Default NIC names for nodes of this platform.
    pub public_nic: Option<String>,
    pub private_nic: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ExtensionsSpec {
    pub netbird: Option<NetbirdSpec>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NetbirdSpec {
    pub management_url: Option<String>,
    /// Name of the environment variable that holds the setup key when the
    /// generated files are applied. The key itself never enters the spec or
    /// the output: the output carries `NB_SETUP_KEY=${<setupKeyEnv>}`.
    pub setup_key_env: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct StorageSpec {
    /// Fixed size of the workers' EPHEMERAL partition (`100GiB`).
    pub ephemeral_size: Option<String>,
    /// Minimum size of the growing `hostpath` user volume on the system disk.
    pub hostpath_min_size: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ControlPlaneSpec {
    pub name: String,
    pub datacenter: String,
    pub platform: String,
    pub plan: Option<String>,
    pub public_ip: String,
    pub private_ip: String,
    pub public_nic: Option<String>,
    pub private_nic: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WorkerSpec {
    pub name: String,
    pub datacenter: String,
    /// Default `metal`.
    pub platform: Option<String>,
    pub plan: Option<String>,
    pub public_ip: String,
    pub private_ip: String,
    pub public_nic: Option<String>,
    pub private_nic: Option<String>,
    /// Exact model (`/sys/block/<dev>/device/model`) of the spare NVMe that
    /// backs the `local-hostpath` user volume.
    pub spare_disk_model: Option<String>,
}

/// Parses a spec from YAML text. A YAML error or a field that does not fit
/// the schema (unknown, missing, wrong type) is a [`SpecError`] naming the
/// field.
pub fn parse(text: &str, file: &std::path::Path) -> Result<Spec, Error> {
    let node = crate::yaml::parse_one(text).map_err(|e| Error::Yaml {
        file: file.to_path_buf(),
        error: e,
    })?;
    let json = node.to_json();
    let spec: Spec = serde_path_to_error::deserialize(json).map_err(|e| {
        let path = e.path().to_string();
        let field = if path == "." { String::new() } else { path };
        Error::Spec {
            file: file.to_path_buf(),
            errors: vec![SpecError::new(field, e.into_inner().to_string())],
        }
    })?;
    Ok(spec)
}
