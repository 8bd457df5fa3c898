//! Typed models of the Talos (v1.12) config documents flate emits, used to
//! read every generated document back. Each struct lists the fields the
//! Talos reference documents for it (`website/content/v1.12/reference/
//! configuration/...`, `pkg/machinery/config/types/...`) and rejects any
//! other, so a misspelt field name fails a test instead of a node's boot.
//! Sub-structures flate never emits are kept as opaque JSON values.
//!
//! Beyond field names, [`Document::check`] repeats the semantic rules Talos
//! applies to these documents (hostname vs `auto`, port ranges, volume
//! provisioning) as facts, not as ported code.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use super::cidr::Cidr;

type Opaque = Option<Value>;

/// The v1alpha1 document of a patch (no `apiVersion`/`kind`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct V1Alpha1 {
    pub version: Option<String>,
    pub debug: Option<bool>,
    pub persist: Option<bool>,
    pub machine: Option<MachineConfig>,
    pub cluster: Option<ClusterConfig>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct MachineConfig {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub token: Option<String>,
    pub ca: Opaque,
    #[serde(rename = "acceptedCAs")]
    pub accepted_cas: Opaque,
    #[serde(rename = "certSANs")]
    pub cert_sans: Option<Vec<String>>,
    pub control_plane: Opaque,
    pub kubelet: Option<KubeletConfig>,
    pub pods: Opaque,
    pub network: Option<NetworkConfig>,
    pub disks: Opaque,
    pub install: Option<InstallConfig>,
    pub files: Option<Vec<MachineFile>>,
    pub env: Opaque,
    pub time: Opaque,
    pub sysctls: Option<BTreeMap<String, String>>,
    pub sysfs: Option<BTreeMap<String, String>>,
    pub registries: Opaque,
    pub system_disk_encryption: Opaque,
    pub features: Opaque,
    pub udev: Opaque,
    pub logging: Opaque,
    pub kernel: Opaque,
    pub seccomp_profiles: Opaque,
    pub base_runtime_spec_overrides: Opaque,
    pub node_labels: Option<BTreeMap<String, String>>,
    pub node_annotations: Option<BTreeMap<String, String>>,
    pub node_taints: Option<BTreeMap<String, String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct KubeletConfig {
    pub image: Option<String>,
    #[serde(rename = "clusterDNS")]
    pub cluster_dns: Option<Vec<String>>,
    pub extra_args: Option<BTreeMap<String, String>>,
    pub extra_mounts: Opaque,
    pub extra_config: Opaque,
    pub credential_provider_config: Opaque,
    pub default_runtime_seccomp_profile_enabled: Option<bool>,
    #[serde(rename = "registerWithFQDN")]
    pub register_with_fqdn: Option<bool>,
    #[serde(rename = "nodeIP")]
    pub node_ip: Option<KubeletNodeIp>,
    pub skip_node_registration: Option<bool>,
    pub disable_manifests_directory: Option<bool>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct KubeletNodeIp {
    pub valid_subnets: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NetworkConfig {
    pub hostname: Option<String>,
    pub interfaces: Option<Vec<Device>>,
    pub nameservers: Option<Vec<String>>,
    pub search_domains: Option<Vec<String>>,
    pub extra_host_entries: Opaque,
    pub kubespan: Opaque,
    pub disable_search_domain: Option<bool>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Device {
    pub interface: Option<String>,
    pub device_selector: Opaque,
    pub addresses: Option<Vec<String>>,
    pub cidr: Option<String>,
    pub routes: Opaque,
    pub bond: Opaque,
    pub bridge: Opaque,
    pub bridge_port: Opaque,
    pub vlans: Opaque,
    pub mtu: Option<u32>,
    pub dhcp: Option<bool>,
    pub ignore: Option<bool>,
    pub dummy: Option<bool>,
    pub dhcp_options: Opaque,
    pub wireguard: Opaque,
    pub vip: Option<DeviceVip>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DeviceVip {
    pub ip: Option<String>,
    pub equinix_metal: Opaque,
    pub hcloud: Opaque,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct InstallConfig {
    pub disk: Option<String>,
    pub disk_selector: Opaque,
    pub extra_kernel_args: Option<Vec<String>>,
    pub image: Option<String>,
    pub extensions: Opaque,
    pub bootloader: Option<bool>,
    pub wipe: Option<bool>,
    #[serde(rename = "legacyBIOSSupport")]
    pub legacy_bios_support: Option<bool>,
    #[serde(rename = "grubUseUKICmdline")]
    pub grub_use_uki_cmdline: Option<bool>,
}

#[derive(Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum FileOp {
    Create,
    Append,
    Overwrite,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MachineFile {
    pub content: String,
    pub permissions: Option<u32>,
    pub path: String,
    pub op: FileOp,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ClusterConfig {
    pub id: Option<String>,
    pub secret: Option<String>,
    pub control_plane: Option<ControlPlaneConfig>,
    pub cluster_name: Option<String>,
    pub network: Option<ClusterNetworkConfig>,
    pub token: Option<String>,
    pub aescbc_encryption_secret: Option<String>,
    pub secretbox_encryption_secret: Option<String>,
    pub ca: Opaque,
    #[serde(rename = "acceptedCAs")]
    pub accepted_cas: Opaque,
    #[serde(rename = "aggregatorCA")]
    pub aggregator_ca: Opaque,
    pub service_account: Opaque,
    pub api_server: Option<ApiServerConfig>,
    pub controller_manager: Option<ComponentConfig>,
    pub proxy: Option<ProxyConfig>,
    pub scheduler: Option<SchedulerConfig>,
    pub discovery: Opaque,
    pub etcd: Option<EtcdConfig>,
    #[serde(rename = "coreDNS")]
    pub core_dns: Option<CoreDns>,
    pub external_cloud_provider: Opaque,
    pub extra_manifests: Option<Vec<String>>,
    pub extra_manifest_headers: Option<BTreeMap<String, String>>,
    pub inline_manifests: Opaque,
    pub admin_kubeconfig: Opaque,
    pub allow_scheduling_on_control_planes: Option<bool>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ControlPlaneConfig {
    pub endpoint: String,
    #[serde(rename = "localAPIServerPort")]
    pub local_api_server_port: Option<u16>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ClusterNetworkConfig {
    pub cni: Option<CniConfig>,
    pub dns_domain: Option<String>,
    pub pod_subnets: Option<Vec<String>>,
    pub service_subnets: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CniConfig {
    pub name: Option<String>,
    pub urls: Option<Vec<String>>,
    pub flannel: Option<FlannelConfig>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FlannelConfig {
    pub extra_args: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ApiServerConfig {
    pub image: Option<String>,
    pub extra_args: Option<BTreeMap<String, String>>,
    pub extra_volumes: Opaque,
    pub env: Opaque,
    #[serde(rename = "certSANs")]
    pub cert_sans: Option<Vec<String>>,
    pub disable_pod_security_policy: Option<bool>,
    pub admission_control: Opaque,
    pub audit_policy: Opaque,
    pub resources: Opaque,
    pub authorization_config: Opaque,
}

/// controllerManager.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ComponentConfig {
    pub image: Option<String>,
    pub extra_args: Option<BTreeMap<String, String>>,
    pub extra_volumes: Opaque,
    pub env: Opaque,
    pub resources: Opaque,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SchedulerConfig {
    pub image: Option<String>,
    pub extra_args: Option<BTreeMap<String, String>>,
    pub extra_volumes: Opaque,
    pub env: Opaque,
    pub resources: Opaque,
    pub config: Opaque,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ProxyConfig {
    pub disabled: Option<bool>,
    pub image: Option<String>,
    pub mode: Option<String>,
    pub extra_args: Option<BTreeMap<String, String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct EtcdConfig {
    pub image: Option<String>,
    pub ca: Opaque,
    pub extra_args: Option<BTreeMap<String, String>>,
    pub subnet: Option<String>,
    pub advertised_subnets: Option<Vec<String>>,
    pub listen_subnets: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoreDns {
    pub disabled: Option<bool>,
    pub image: Option<String>,
}

#[derive(Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum AutoHostname {
    Stable,
    Off,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct HostnameConfig {
    pub api_version: String,
    pub kind: String,
    pub auto: Option<AutoHostname>,
    pub hostname: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ExtensionServiceConfig {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    pub config_files: Option<Vec<ExtensionConfigFile>>,
    pub environment: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ExtensionConfigFile {
    pub content: String,
    pub mount_path: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ProvisioningSpec {
    pub disk_selector: Option<DiskSelector>,
    pub grow: Option<bool>,
    pub min_size: Option<String>,
    pub max_size: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiskSelector {
    #[serde(rename = "match")]
    pub expr: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct VolumeConfig {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    pub provisioning: Option<ProvisioningSpec>,
    pub encryption: Opaque,
}

#[derive(Debug, Deserialize, PartialEq, Eq, Clone, Copy)]
#[serde(rename_all = "lowercase")]
pub enum VolumeType {
    Directory,
    Disk,
    Partition,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct UserVolumeConfig {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    pub volume_type: Option<VolumeType>,
    pub provisioning: Option<ProvisioningSpec>,
    pub filesystem: Option<FilesystemSpec>,
    pub encryption: Opaque,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FilesystemSpec {
    #[serde(rename = "type")]
    pub fs_type: Option<String>,
    pub project_quota_support: Option<bool>,
}

#[derive(Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum DefaultAction {
    Accept,
    Block,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NetworkDefaultActionConfig {
    pub api_version: String,
    pub kind: String,
    pub ingress: DefaultAction,
}

#[derive(Debug, Deserialize, PartialEq, Eq, Clone, Copy)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    Tcp,
    Udp,
    Icmp,
    Icmpv6,
}

/// A port or an inclusive `lo-hi` range, as Talos reads `ports` entries.
#[derive(Debug, Deserialize, Clone)]
#[serde(untagged)]
pub enum PortEntry {
    Single(u16),
    Range(String),
}

impl PortEntry {
    pub fn bounds(&self) -> Result<(u16, u16), String> {
        match self {
            PortEntry::Single(p) => Ok((*p, *p)),
            PortEntry::Range(s) => {
                let (lo, hi) = s
                    .split_once('-')
                    .ok_or_else(|| format!("invalid port range {s:?}"))?;
                let lo: u16 = lo
                    .parse()
                    .map_err(|_| format!("invalid port range {s:?}"))?;
                let hi: u16 = hi
                    .parse()
                    .map_err(|_| format!("invalid port range {s:?}"))?;
                Ok((lo, hi))
            }
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RulePortSelector {
    pub ports: Vec<PortEntry>,
    pub protocol: Protocol,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IngressRule {
    pub subnet: String,
    pub except: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NetworkRuleConfig {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    pub port_selector: RulePortSelector,
    pub ingress: Vec<IngressRule>,
}

/// One document of a generated patch file.
#[derive(Debug)]
pub enum Document {
    V1Alpha1(Box<V1Alpha1>),
    Hostname(HostnameConfig),
    ExtensionService(ExtensionServiceConfig),
    Volume(VolumeConfig),
    UserVolume(UserVolumeConfig),
    DefaultAction(NetworkDefaultActionConfig),
    Rule(NetworkRuleConfig),
}

fn typed<T: serde::de::DeserializeOwned>(v: Value, kind: &str) -> Result<T, String> {
    serde_path_to_error::deserialize(v).map_err(|e| {
        let path = e.path().to_string();
        format!("{kind}: {path}: {}", e.into_inner())
    })
}

impl Document {
    /// Reads one document into its typed model, dispatching on `kind`
    /// (a document without `kind` is the v1alpha1 machine config).
    pub fn from_node(node: &crate::yaml::Node) -> Result<Document, String> {
        let v = node.to_json();
        let kind = v.get("kind").and_then(Value::as_str).map(str::to_string);
        let Some(kind) = kind else {
            return Ok(Document::V1Alpha1(Box::new(typed(v, "v1alpha1")?)));
        };
        let api = v.get("apiVersion").and_then(Value::as_str).unwrap_or("");
        if api != "v1alpha1" {
            return Err(format!("{kind}: apiVersion {api:?} is not v1alpha1"));
        }
        let doc = match kind.as_str() {
            "HostnameConfig" => Document::Hostname(typed(v, &kind)?),
            "ExtensionServiceConfig" => Document::ExtensionService(typed(v, &kind)?),
            "VolumeConfig" => Document::Volume(typed(v, &kind)?),
            "UserVolumeConfig" => Document::UserVolume(typed(v, &kind)?),
            "NetworkDefaultActionConfig" => Document::DefaultAction(typed(v, &kind)?),
            "NetworkRuleConfig" => Document::Rule(typed(v, &kind)?),
            other => return Err(format!("unknown Talos document kind {other:?}")),
        };
        doc.check()?;
        Ok(doc)
    }

    /// Talos' own validation rules for these documents.
    pub fn check(&self) -> Result<(), String> {
        match self {
            Document::V1Alpha1(_) => Ok(()),
            Document::Hostname(h) => {
                let off = h.auto == Some(AutoHostname::Off);
                let host = h.hostname.as_deref().unwrap_or("");
                if off && host.is_empty() {
                    return Err("HostnameConfig: either 'auto' or 'hostname' must be set".into());
                }
                if !off && !host.is_empty() {
                    return Err(
                        "HostnameConfig: 'auto' and 'hostname' cannot be set at the same time (use auto: \"off\")".into(),
                    );
                }
                Ok(())
            }
            Document::ExtensionService(e) => {
                if e.name.is_empty() {
                    return Err("ExtensionServiceConfig: name is required".into());
                }
                for env in e.environment.iter().flatten() {
                    if !env.contains('=') {
                        return Err(format!(
                            "ExtensionServiceConfig {}: environment entry {env:?} is not NAME=VALUE",
                            e.name
                        ));
                    }
                }
                Ok(())
            }
            Document::Volume(v) => {
                if !["STATE", "EPHEMERAL", "IMAGECACHE"].contains(&v.name.as_str()) {
                    return Err(format!(
                        "VolumeConfig: only STATE, EPHEMERAL and IMAGECACHE volumes are supported, not {:?}",
                        v.name
                    ));
                }
                if v.name == "STATE" && v.provisioning.is_some() {
                    return Err("VolumeConfig STATE: provisioning is not allowed".into());
                }
                Ok(())
            }
            Document::UserVolume(u) => {
                if u.name.is_empty()
                    || u.name.len() > 34
                    || !u
                        .name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-')
                {
                    return Err(format!(
                        "UserVolumeConfig: name {:?} must be 1-34 ASCII letters, digits or hyphens",
                        u.name
                    ));
                }
                let p = u.provisioning.as_ref();
                let selector = p
                    .and_then(|p| p.disk_selector.as_ref())
                    .and_then(|d| d.expr.as_deref())
                    .is_some_and(|e| !e.is_empty());
                let sized = p.is_some_and(|p| p.min_size.is_some() || p.max_size.is_some());
                let grow = p.is_some_and(|p| p.grow.is_some());
                match u.volume_type.unwrap_or(VolumeType::Partition) {
                    VolumeType::Directory => {
                        if p.is_some() || u.filesystem.is_some() {
                            return Err(format!(
                                "UserVolumeConfig {}: provisioning and filesystem are invalid for volumeType directory",
                                u.name
                            ));
                        }
                    }
                    VolumeType::Disk => {
                        if !selector {
                            return Err(format!(
                                "UserVolumeConfig {}: disk selector is required",
                                u.name
                            ));
                        }
                        if sized || grow {
                            return Err(format!(
                                "UserVolumeConfig {}: min size, max size and grow are not supported for volumeType disk",
                                u.name
                            ));
                        }
                    }
                    VolumeType::Partition => {
                        if !selector {
                            return Err(format!(
                                "UserVolumeConfig {}: disk selector is required",
                                u.name
                            ));
                        }
                        if !sized {
                            return Err(format!(
                                "UserVolumeConfig {}: min size or max size is required",
                                u.name
                            ));
                        }
                    }
                }
                Ok(())
            }
            Document::DefaultAction(_) => Ok(()),
            Document::Rule(r) => {
                if r.name.is_empty() {
                    return Err("NetworkRuleConfig: name is required".into());
                }
                if r.port_selector.ports.is_empty() {
                    return Err(format!(
                        "NetworkRuleConfig {}: portSelector.ports is required",
                        r.name
                    ));
                }
                let mut ranges = r
                    .port_selector
                    .ports
                    .iter()
                    .map(PortEntry::bounds)
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| format!("NetworkRuleConfig {}: {e}", r.name))?;
                ranges.sort();
                for (i, (lo, hi)) in ranges.iter().enumerate() {
                    if lo > hi {
                        return Err(format!(
                            "NetworkRuleConfig {}: invalid port range {lo}-{hi}",
                            r.name
                        ));
                    }
                    if i > 0 && *lo <= ranges[i - 1].1 {
                        return Err(format!(
                            "NetworkRuleConfig {}: port range {lo}-{hi} overlaps {}-{}",
                            r.name,
                            ranges[i - 1].0,
                            ranges[i - 1].1
                        ));
                    }
                }
                for rule in &r.ingress {
                    rule.subnet.parse::<Cidr>().map_err(|e| {
                        format!("NetworkRuleConfig {}: invalid subnet: {e}", r.name)
                    })?;
                    if let Some(x) = &rule.except {
                        x.parse::<Cidr>().map_err(|e| {
                            format!("NetworkRuleConfig {}: invalid except: {e}", r.name)
                        })?;
                    }
                }
                Ok(())
            }
        }
    }
}

/// Reads back a generated multi-document patch file.
pub fn parse_patch(text: &str) -> Result<Vec<Document>, String> {
    let docs = crate::yaml::parse_stream(text).map_err(|e| e.to_string())?;
    docs.iter()
        .enumerate()
        .map(|(i, d)| Document::from_node(&d.node).map_err(|e| format!("document {}: {e}", i + 1)))
        .collect()
}
