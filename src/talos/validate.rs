//! Spec validation: every error names the field it is about and says why.
//! A valid spec becomes an [`Env`], the checked model the generators read
//! (addresses parsed, defaults applied, installer images resolved).

use std::collections::BTreeMap;
use std::net::Ipv4Addr;

use sha2::{Digest, Sha256};

use super::SpecError;
use super::cidr::{Cidr, parse_ipv4};
use super::spec::{self, Spec, defaults};

/// Talos platform names (`talosctl` / Image Factory spelling).
pub const TALOS_PLATFORMS: &[&str] = &[
    "akamai",
    "aws",
    "azure",
    "cloudstack",
    "digital-ocean",
    "equinixMetal",
    "exoscale",
    "gcp",
    "hcloud",
    "metal",
    "nocloud",
    "opennebula",
    "openstack",
    "oracle",
    "scaleway",
    "upcloud",
    "vmware",
    "vultr",
];

/// The Image Factory that derived installer images come from.
pub const IMAGE_FACTORY: &str = "factory.talos.dev";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    ControlPlane,
    Worker,
}

impl Role {
    pub fn as_str(&self) -> &'static str {
        match self {
            Role::ControlPlane => "controlplane",
            Role::Worker => "worker",
        }
    }
}

/// One machine, checked.
#[derive(Debug, Clone)]
pub struct Machine {
    pub name: String,
    pub role: Role,
    pub datacenter: String,
    pub plan: Option<String>,
    pub platform: String,
    pub installer_image: String,
    pub install_disk: String,
    pub public_ip: Ipv4Addr,
    pub private_ip: Ipv4Addr,
    /// Absent for a control plane whose platform configures it.
    pub public_nic: Option<String>,
    pub private_nic: String,
    pub spare_disk_model: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Netbird {
    pub management_url: String,
    pub setup_key_env: String,
}

/// A validated environment.
#[derive(Debug, Clone)]
pub struct Env {
    pub cluster_name: String,
    pub talos_version: String,
    pub kubernetes_version: String,
    pub private_cidr: Cidr,
    pub vip: Ipv4Addr,
    pub pod_cidr: Cidr,
    pub service_cidr: Cidr,
    pub cluster_dns: Ipv4Addr,
    pub netbird_cidr: Cidr,
    pub iplb_nat_cidr: Cidr,
    pub envoy_node_port: u16,
    pub mesh_domain: String,
    pub gateway_service_cidr: Cidr,
    pub gateway_vip: Ipv4Addr,
    pub mesh_dns_vip: Ipv4Addr,
    pub egress_cidr: Cidr,
    pub egress_gateway: Ipv4Addr,
    pub iplb_zones: Vec<String>,
    pub netbird: Option<Netbird>,
    pub ephemeral_size: String,
    pub hostpath_min_size: String,
    /// Control planes first, then workers, each in spec order.
    pub machines: Vec<Machine>,
}

impl Env {
    pub fn control_planes(&self) -> impl Iterator<Item = &Machine> {
        self.machines
            .iter()
            .filter(|m| m.role == Role::ControlPlane)
    }
    pub fn workers(&self) -> impl Iterator<Item = &Machine> {
        self.machines.iter().filter(|m| m.role == Role::Worker)
    }
    /// `https://<VIP>:6443`, the control-plane endpoint.
    pub fn endpoint(&self) -> String {
        format!("https://{}:6443", self.vip)
    }
}

struct V {
    errors: Vec<SpecError>,
}

impl V {
    fn err(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.errors.push(SpecError::new(field, message));
    }

    fn cidr(&mut self, field: &str, text: &str) -> Option<Cidr> {
        match text.parse::<Cidr>() {
            Ok(c) => Some(c),
            Err(e) => {
                self.err(field, e);
                None
            }
        }
    }

    fn ip(&mut self, field: &str, text: &str) -> Option<Ipv4Addr> {
        match parse_ipv4(text) {
            Ok(ip) => Some(ip),
            Err(e) => {
                self.err(field, e);
                None
            }
        }
    }

    fn non_empty(&mut self, field: &str, text: &str) -> bool {
        if text.trim().is_empty() {
            self.err(field, "must not be empty");
            false
        } else {
            true
        }
    }

    /// The host `offset` positions into `cidr`, which must be a usable host.
    fn offset_host(
        &mut self,
        field: &str,
        what: &str,
        cidr: Option<Cidr>,
        cidr_field: &str,
        offset: u32,
    ) -> Option<Ipv4Addr> {
        let cidr = cidr?;
        match cidr.nth(u64::from(offset)) {
            Some(ip) if cidr.is_host(ip) => Some(ip),
            Some(ip) => {
                self.err(
                    field,
                    format!(
                        "the {what} {ip} (offset {offset}) is the network or broadcast address of {cidr_field} {cidr}"
                    ),
                );
                None
            }
            None => {
                let ip = cidr
                    .nth_unchecked(u64::from(offset))
                    .map(|ip| ip.to_string())
                    .unwrap_or_else(|| "past 255.255.255.255".into());
                self.err(
                    field,
                    format!("the {what} {ip} (offset {offset}) is outside {cidr_field} {cidr}"),
                );
                None
            }
        }
    }
}

fn is_version(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('v') else {
        return false;
    };
    let core = rest.split_once('-').map(|(c, _)| c).unwrap_or(rest);
    let parts: Vec<&str> = core.split('.').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
}

/// A DNS label: lowercase letters, digits and hyphens, 1 to 63 characters,
/// no hyphen at either end.
fn is_dns_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !s.starts_with('-')
        && !s.ends_with('-')
}

fn is_dns_name(s: &str) -> bool {
    s.len() <= 253 && s.split('.').all(is_dns_label)
}

fn is_env_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_uppercase() || c == '_')
        && chars.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// A Kubernetes label value (the datacenter and plan become node labels).
fn is_label_value(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
        && s.starts_with(|c: char| c.is_ascii_alphanumeric())
        && s.ends_with(|c: char| c.is_ascii_alphanumeric())
}

fn is_extension_name(s: &str) -> bool {
    let ok = |p: &str| {
        !p.is_empty()
            && p.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
            && p.chars().all(|c| {
                c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_' || c == '.'
            })
    };
    matches!(s.split_once('/'), Some((a, b)) if ok(a) && ok(b))
}

/// A Talos byte size such as `100GiB` or `2.5TB`.
fn is_byte_size(s: &str) -> bool {
    let digits_end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(digits_end);
    !num.is_empty()
        && num.parse::<f64>().is_ok()
        && [
            "B", "kB", "KB", "MB", "GB", "TB", "PB", "KiB", "MiB", "GiB", "TiB", "PiB",
        ]
        .contains(&unit)
}

/// The schematic an Image Factory builds for a list of official system
/// extensions, as the factory serializes it before hashing (go-yaml v3,
/// four-space indent, empty fields omitted). Its SHA-256 is the schematic
/// ID; the form was checked against well-known IDs (`customization: {}` is
/// the default schematic 376567988ad3…, a lone qemu-guest-agent is
/// ce4c980550dd…).
pub fn schematic_yaml(extensions: &[String]) -> String {
    if extensions.is_empty() {
        return "customization: {}\n".to_string();
    }
    let mut s =
        String::from("customization:\n    systemExtensions:\n        officialExtensions:\n");
    for e in extensions {
        s.push_str("            - ");
        s.push_str(e);
        s.push('\n');
    }
    s
}

pub fn schematic_id(extensions: &[String]) -> String {
    let digest = Sha256::digest(schematic_yaml(extensions).as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The Image Factory installer image of a platform.
pub fn factory_installer(platform: &str, extensions: &[String], talos_version: &str) -> String {
    format!(
        "{IMAGE_FACTORY}/{platform}-installer/{}:{talos_version}",
        schematic_id(extensions)
    )
}

/// The tag of an image reference (`repo:tag` or `repo:tag@digest`).
fn image_tag(image: &str) -> Option<&str> {
    let no_digest = image.split_once('@').map(|(a, _)| a).unwrap_or(image);
    let last = no_digest.rsplit('/').next().unwrap_or(no_digest);
    last.split_once(':').map(|(_, t)| t)
}

/// Validates a parsed spec. All errors are collected, in field order.
pub fn validate(spec: &Spec) -> Result<Env, Vec<SpecError>> {
    let mut v = V { errors: Vec::new() };

    if spec.api_version != spec::API_VERSION {
        v.err(
            "apiVersion",
            format!(
                "must be {:?}, found {:?}",
                spec::API_VERSION,
                spec.api_version
            ),
        );
    }
    if spec.kind != spec::KIND {
        v.err(
            "kind",
            format!("must be {:?}, found {:?}", spec::KIND, spec.kind),
        );
    }

    // cluster
    let c = &spec.cluster;
    if !is_dns_label(&c.name) {
        v.err(
            "cluster.name",
            format!(
                "{:?} is not a DNS label (lowercase letters, digits, '-', at most 63)",
                c.name
            ),
        );
    }
    if !is_version(&c.talos_version) {
        v.err(
            "cluster.talosVersion",
            format!("{:?} is not a version like v1.12.6", c.talos_version),
        );
    }
    if !is_version(&c.kubernetes_version) {
        v.err(
            "cluster.kubernetesVersion",
            format!("{:?} is not a version like v1.35.2", c.kubernetes_version),
        );
    }

    // network ranges
    let n = &spec.network;
    let private = v.cidr("network.privateCidr", &n.private_cidr);
    let pod = v.cidr(
        "network.podCidr",
        n.pod_cidr.as_deref().unwrap_or(defaults::POD_CIDR),
    );
    let service = v.cidr(
        "network.serviceCidr",
        n.service_cidr.as_deref().unwrap_or(defaults::SERVICE_CIDR),
    );
    let netbird = v.cidr(
        "network.netbirdCidr",
        n.netbird_cidr.as_deref().unwrap_or(defaults::NETBIRD_CIDR),
    );
    let iplb_nat = v.cidr(
        "network.iplbNatCidr",
        n.iplb_nat_cidr
            .as_deref()
            .unwrap_or(defaults::IPLB_NAT_CIDR),
    );
    let m = &spec.mesh;
    let gateway = v.cidr("mesh.gatewayServiceCidr", &m.gateway_service_cidr);
    let egress = v.cidr("mesh.egressCidr", &m.egress_cidr);

    // Pairwise overlaps; the error is reported on the later field.
    let ranges: Vec<(&str, Option<Cidr>)> = vec![
        ("network.privateCidr", private),
        ("network.podCidr", pod),
        ("network.serviceCidr", service),
        ("network.netbirdCidr", netbird),
        ("network.iplbNatCidr", iplb_nat),
        ("mesh.gatewayServiceCidr", gateway),
        ("mesh.egressCidr", egress),
    ];
    // One pair is exempt: Talos' default service CIDR 10.96.0.0/12 contains
    // OVH's IPLB NAT range 10.108.0.0/14. Service IPs are virtual (never a
    // packet's source, never routed), so NAT sources inside the service
    // range reach the NodePort and get their replies like any other.
    let exempt = |a: &str, b: &str| {
        matches!(
            (a, b),
            ("network.serviceCidr", "network.iplbNatCidr")
                | ("network.iplbNatCidr", "network.serviceCidr")
        )
    };
    for (i, (fa, a)) in ranges.iter().enumerate() {
        for (fb, b) in ranges.iter().skip(i + 1) {
            if exempt(fa, fb) {
                continue;
            }
            if let (Some(a), Some(b)) = (a, b)
                && a.overlaps(b)
            {
                v.err(*fb, format!("{b} overlaps {fa} {a}"));
            }
        }
    }

    let vip_offset = n.vip_offset.unwrap_or(defaults::VIP_OFFSET);
    let vip = v.offset_host(
        "network.vipOffset",
        "VIP",
        private,
        "network.privateCidr",
        vip_offset,
    );

    let cluster_dns = match &n.cluster_dns {
        Some(text) => {
            let ip = v.ip("network.clusterDns", text);
            match (ip, service) {
                (Some(ip), Some(svc)) if !svc.is_host(ip) => {
                    v.err(
                        "network.clusterDns",
                        format!("{ip} is not a host address of network.serviceCidr {svc}"),
                    );
                    None
                }
                _ => ip,
            }
        }
        None => match service {
            Some(svc) => match svc.nth(defaults::CLUSTER_DNS_OFFSET) {
                Some(ip) if svc.is_host(ip) => Some(ip),
                _ => {
                    v.err(
                        "network.serviceCidr",
                        format!(
                            "{svc} has no {}th address for the default clusterDns: set network.clusterDns",
                            defaults::CLUSTER_DNS_OFFSET
                        ),
                    );
                    None
                }
            },
            None => None,
        },
    };

    let envoy_node_port = n.envoy_node_port.unwrap_or(defaults::ENVOY_NODE_PORT);
    if !(30000..=32767).contains(&envoy_node_port) {
        v.err(
            "network.envoyNodePort",
            format!("{envoy_node_port} is outside the Kubernetes NodePort range 30000-32767"),
        );
    }

    // mesh
    if !is_dns_name(&m.domain) {
        v.err("mesh.domain", format!("{:?} is not a DNS name", m.domain));
    }
    let gateway_vip = v.offset_host(
        "mesh.gatewayVipOffset",
        "gateway VIP",
        gateway,
        "mesh.gatewayServiceCidr",
        m.gateway_vip_offset.unwrap_or(defaults::GATEWAY_VIP_OFFSET),
    );
    let mesh_dns_vip = v.offset_host(
        "mesh.dnsVipOffset",
        "mesh DNS VIP",
        gateway,
        "mesh.gatewayServiceCidr",
        m.dns_vip_offset.unwrap_or(defaults::MESH_DNS_VIP_OFFSET),
    );
    if let (Some(a), Some(b)) = (gateway_vip, mesh_dns_vip)
        && a == b
    {
        v.err(
            "mesh.dnsVipOffset",
            format!("the mesh DNS VIP {b} equals the gateway VIP"),
        );
    }
    let egress_gateway = v.offset_host(
        "mesh.egressGatewayOffset",
        "egress gateway",
        egress,
        "mesh.egressCidr",
        m.egress_gateway_offset
            .unwrap_or(defaults::EGRESS_GATEWAY_OFFSET),
    );

    // iplb
    if spec.iplb.zones.is_empty() {
        v.err("iplb.zones", "at least one IPLB zone is required");
    }
    for (i, z) in spec.iplb.zones.iter().enumerate() {
        let field = format!("iplb.zones[{i}]");
        if !is_dns_label(z) {
            v.err(
                &field,
                format!("{z:?} is not a zone name (lowercase letters, digits, '-')"),
            );
        }
        if spec.iplb.zones[..i].contains(z) {
            v.err(&field, format!("duplicate zone {z:?}"));
        }
    }

    // platforms
    let mut installers: BTreeMap<&str, String> = BTreeMap::new();
    for (name, p) in &spec.platforms {
        let base = format!("platforms.{name}");
        if !TALOS_PLATFORMS.contains(&name.as_str()) {
            v.err(
                &base,
                format!(
                    "unknown platform {name:?} (Talos platforms: {})",
                    TALOS_PLATFORMS.join(", ")
                ),
            );
            continue;
        }
        for (i, e) in p.system_extensions.iter().enumerate() {
            let field = format!("{base}.systemExtensions[{i}]");
            if !is_extension_name(e) {
                v.err(
                    &field,
                    format!("{e:?} is not an extension name like siderolabs/netbird"),
                );
            } else if p.system_extensions[..i].contains(e) {
                v.err(&field, format!("duplicate extension {e:?}"));
            }
        }
        // Seed 002: qemu-guest-agent on bare metal waits on a virtio-serial
        // port that is not there and reboot-loops the node.
        if name == "metal"
            && p.system_extensions
                .iter()
                .any(|e| e == "siderolabs/qemu-guest-agent")
        {
            v.err(
                format!("{base}.systemExtensions"),
                "siderolabs/qemu-guest-agent must not be in the bare-metal schematic (it waits for a virtio-serial port and reboot-loops the node)",
            );
        }
        if !p.install_disk.starts_with("/dev/") {
            v.err(
                format!("{base}.installDisk"),
                format!("{:?} is not a device path under /dev/", p.install_disk),
            );
        }
        let image = match &p.installer_image {
            Some(img) => {
                match image_tag(img) {
                    Some(tag) if tag == c.talos_version => {}
                    Some(tag) => v.err(
                        format!("{base}.installerImage"),
                        format!(
                            "tag {tag} does not match cluster.talosVersion {}",
                            c.talos_version
                        ),
                    ),
                    None => v.err(
                        format!("{base}.installerImage"),
                        format!("{img:?} has no tag (expected :{})", c.talos_version),
                    ),
                }
                img.clone()
            }
            None => factory_installer(name, &p.system_extensions, &c.talos_version),
        };
        installers.insert(name.as_str(), image);
    }

    // extensions
    let netbird_ext = spec.extensions.netbird.as_ref().map(|nb| {
        if !is_env_name(&nb.setup_key_env) {
            v.err(
                "extensions.netbird.setupKeyEnv",
                format!(
                    "{:?} is not an environment variable name (A-Z, 0-9, _)",
                    nb.setup_key_env
                ),
            );
        }
        let url = nb
            .management_url
            .clone()
            .unwrap_or_else(|| defaults::NETBIRD_MANAGEMENT_URL.to_string());
        if !url.starts_with("https://") {
            v.err(
                "extensions.netbird.managementUrl",
                format!("{url:?} is not an https:// URL"),
            );
        }
        Netbird {
            management_url: url,
            setup_key_env: nb.setup_key_env.clone(),
        }
    });

    // storage
    let ephemeral_size = spec
        .storage
        .ephemeral_size
        .clone()
        .unwrap_or_else(|| "100GiB".into());
    if !is_byte_size(&ephemeral_size) {
        v.err(
            "storage.ephemeralSize",
            format!("{ephemeral_size:?} is not a size like 100GiB"),
        );
    }
    let hostpath_min_size = spec
        .storage
        .hostpath_min_size
        .clone()
        .unwrap_or_else(|| "50GiB".into());
    if !is_byte_size(&hostpath_min_size) {
        v.err(
            "storage.hostpathMinSize",
            format!("{hostpath_min_size:?} is not a size like 50GiB"),
        );
    }

    // machines
    let cps = spec.control_planes.len();
    if cps == 0 {
        v.err("controlPlanes", "at least one control plane is required");
    } else if cps.is_multiple_of(2) {
        v.err(
            "controlPlanes",
            format!(
                "{cps} control planes: etcd needs an odd number for quorum ({} tolerate as many failures as {})",
                cps,
                cps - 1
            ),
        );
    }
    if spec.workers.is_empty() {
        v.err(
            "workers",
            "at least one worker is required (the IPLB farm targets the workers)",
        );
    }

    struct Raw<'a> {
        field: String,
        role: Role,
        name: &'a str,
        datacenter: &'a str,
        plan: Option<&'a String>,
        platform: &'a str,
        public_ip: &'a str,
        private_ip: &'a str,
        public_nic: Option<&'a String>,
        private_nic: Option<&'a String>,
        spare_disk_model: Option<&'a String>,
    }
    let mut raws: Vec<Raw> = Vec::new();
    for (i, cp) in spec.control_planes.iter().enumerate() {
        raws.push(Raw {
            field: format!("controlPlanes[{i}]"),
            role: Role::ControlPlane,
            name: &cp.name,
            datacenter: &cp.datacenter,
            plan: cp.plan.as_ref(),
            platform: &cp.platform,
            public_ip: &cp.public_ip,
            private_ip: &cp.private_ip,
            public_nic: cp.public_nic.as_ref(),
            private_nic: cp.private_nic.as_ref(),
            spare_disk_model: None,
        });
    }
    for (i, w) in spec.workers.iter().enumerate() {
        raws.push(Raw {
            field: format!("workers[{i}]"),
            role: Role::Worker,
            name: &w.name,
            datacenter: &w.datacenter,
            plan: w.plan.as_ref(),
            platform: w.platform.as_deref().unwrap_or(defaults::WORKER_PLATFORM),
            public_ip: &w.public_ip,
            private_ip: &w.private_ip,
            public_nic: w.public_nic.as_ref(),
            private_nic: w.private_nic.as_ref(),
            spare_disk_model: w.spare_disk_model.as_ref(),
        });
    }

    let mut machines = Vec::new();
    let mut names: BTreeMap<&str, String> = BTreeMap::new();
    let mut private_ips: BTreeMap<Ipv4Addr, String> = BTreeMap::new();
    let mut public_ips: BTreeMap<Ipv4Addr, String> = BTreeMap::new();
    let mut used_platforms: Vec<(&str, String)> = Vec::new();
    for r in &raws {
        let f = &r.field;
        if !is_dns_label(r.name) {
            v.err(
                format!("{f}.name"),
                format!(
                    "{:?} is not a hostname (lowercase letters, digits, '-', at most 63)",
                    r.name
                ),
            );
        } else if let Some(prev) = names.get(r.name) {
            v.err(
                format!("{f}.name"),
                format!("duplicate node name {:?} (also {prev}.name)", r.name),
            );
        } else {
            names.insert(r.name, f.clone());
        }
        if v.non_empty(&format!("{f}.datacenter"), r.datacenter) && !is_label_value(r.datacenter) {
            v.err(
                format!("{f}.datacenter"),
                format!("{:?} is not a valid label value", r.datacenter),
            );
        }
        if let Some(plan) = r.plan
            && !is_label_value(plan)
        {
            v.err(
                format!("{f}.plan"),
                format!("{plan:?} is not a valid label value"),
            );
        }

        let platform = spec.platforms.get(r.platform);
        if platform.is_none() {
            let known: Vec<&str> = spec.platforms.keys().map(String::as_str).collect();
            v.err(
                format!("{f}.platform"),
                format!(
                    "unknown platform {:?} (platforms defines: {})",
                    r.platform,
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                ),
            );
        } else {
            used_platforms.push((r.platform, format!("{f}.platform")));
        }

        let public_ip = v.ip(&format!("{f}.publicIp"), r.public_ip);
        if let Some(ip) = public_ip {
            if let Some(prev) = public_ips.get(&ip) {
                v.err(
                    format!("{f}.publicIp"),
                    format!("duplicate IP {ip} (also {prev}.publicIp)"),
                );
            } else {
                public_ips.insert(ip, f.clone());
            }
        }
        let private_ip = v.ip(&format!("{f}.privateIp"), r.private_ip);
        if let (Some(ip), Some(cidr)) = (private_ip, private) {
            if !cidr.contains(ip) {
                v.err(
                    format!("{f}.privateIp"),
                    format!("{ip} is outside network.privateCidr {cidr}"),
                );
            } else if !cidr.is_host(ip) {
                v.err(
                    format!("{f}.privateIp"),
                    format!(
                        "{ip} is the network or broadcast address of network.privateCidr {cidr}"
                    ),
                );
            } else if Some(ip) == vip {
                v.err(
                    format!("{f}.privateIp"),
                    format!("{ip} is the control-plane VIP (network.vipOffset {vip_offset})"),
                );
            } else if let Some(prev) = private_ips.get(&ip) {
                v.err(
                    format!("{f}.privateIp"),
                    format!("duplicate IP {ip} (also {prev}.privateIp)"),
                );
            } else {
                private_ips.insert(ip, f.clone());
            }
        }

        let nic = |own: Option<&String>, default: Option<&String>| {
            own.or(default).filter(|s| !s.trim().is_empty()).cloned()
        };
        let public_nic = nic(r.public_nic, platform.and_then(|p| p.public_nic.as_ref()));
        let private_nic = nic(r.private_nic, platform.and_then(|p| p.private_nic.as_ref()));
        match r.role {
            Role::Worker => {
                if public_nic.is_none() && private_nic.is_none() {
                    v.err(
                        f.clone(),
                        format!(
                            "worker without NIC names: set publicNic (DHCP, IPLB ingress) and privateNic (static vRack IP), on the worker or on platforms.{}",
                            r.platform
                        ),
                    );
                } else if public_nic.is_none() {
                    v.err(
                        format!("{f}.publicNic"),
                        "required for a worker (the public NIC runs DHCP and receives IPLB traffic)",
                    );
                } else if private_nic.is_none() {
                    v.err(
                        format!("{f}.privateNic"),
                        "required for a worker (the private NIC carries the static vRack IP)",
                    );
                }
                match r.spare_disk_model {
                    None => v.err(
                        format!("{f}.spareDiskModel"),
                        "required for a worker (the local-hostpath user volume backs the openebs-spare-disk StorageClass)",
                    ),
                    Some(m) if m.trim().is_empty() || m.contains(['"', '\\', '\n']) => v.err(
                        format!("{f}.spareDiskModel"),
                        format!("{m:?} is not a disk model (non-empty, no quotes or backslashes)"),
                    ),
                    Some(_) => {}
                }
            }
            Role::ControlPlane => {
                if private_nic.is_none() {
                    v.err(
                        format!("{f}.privateNic"),
                        format!(
                            "required (the VIP and the static vRack IP live on it): set it on the control plane or on platforms.{}",
                            r.platform
                        ),
                    );
                }
            }
        }
        if let (Some(a), Some(b)) = (&public_nic, &private_nic)
            && a == b
        {
            v.err(
                format!("{f}.privateNic"),
                format!("{b:?} is also the public NIC"),
            );
        }

        if let (Some(public_ip), Some(private_ip), Some(p), Some(private_nic)) =
            (public_ip, private_ip, platform, private_nic)
        {
            machines.push(Machine {
                name: r.name.to_string(),
                role: r.role,
                datacenter: r.datacenter.to_string(),
                plan: r.plan.cloned(),
                platform: r.platform.to_string(),
                installer_image: installers.get(r.platform).cloned().unwrap_or_default(),
                install_disk: p.install_disk.clone(),
                public_ip,
                private_ip,
                public_nic,
                private_nic,
                spare_disk_model: r.spare_disk_model.cloned(),
            });
        }
    }

    // The ExtensionServiceConfig only works when the extension is in the
    // image: every platform a node uses must carry siderolabs/netbird.
    if netbird_ext.is_some() {
        let mut seen: Vec<&str> = Vec::new();
        for (p, _field) in &used_platforms {
            if seen.contains(p) {
                continue;
            }
            seen.push(p);
            if let Some(ps) = spec.platforms.get(*p)
                && !ps
                    .system_extensions
                    .iter()
                    .any(|e| e == "siderolabs/netbird")
            {
                v.err(
                    format!("platforms.{p}.systemExtensions"),
                    "extensions.netbird is configured but siderolabs/netbird is not in this platform's schematic",
                );
            }
        }
    }

    if !v.errors.is_empty() {
        return Err(v.errors);
    }
    let (Some(private), Some(pod), Some(service), Some(netbird), Some(iplb_nat)) =
        (private, pod, service, netbird, iplb_nat)
    else {
        unreachable!("a failed parse records an error");
    };
    let (Some(gateway), Some(egress), Some(vip), Some(cluster_dns)) =
        (gateway, egress, vip, cluster_dns)
    else {
        unreachable!("a failed parse records an error");
    };
    let (Some(gateway_vip), Some(mesh_dns_vip), Some(egress_gateway)) =
        (gateway_vip, mesh_dns_vip, egress_gateway)
    else {
        unreachable!("a failed parse records an error");
    };
    Ok(Env {
        cluster_name: c.name.clone(),
        talos_version: c.talos_version.clone(),
        kubernetes_version: c.kubernetes_version.clone(),
        private_cidr: private,
        vip,
        pod_cidr: pod,
        service_cidr: service,
        cluster_dns,
        netbird_cidr: netbird,
        iplb_nat_cidr: iplb_nat,
        envoy_node_port: envoy_node_port as u16,
        mesh_domain: m.domain.clone(),
        gateway_service_cidr: gateway,
        gateway_vip,
        mesh_dns_vip,
        egress_cidr: egress,
        egress_gateway,
        iplb_zones: spec.iplb.zones.clone(),
        netbird: netbird_ext,
        ephemeral_size,
        hostpath_min_size,
        machines,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schematic_ids_match_known_factory_ids() {
        assert_eq!(
            schematic_id(&[]),
            "376567988ad370138ad8b2698212367b8edcb69b5fd68c80be1f2ec7d603b4ba"
        );
        assert_eq!(
            schematic_id(&["siderolabs/qemu-guest-agent".to_string()]),
            "ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515"
        );
    }

    #[test]
    fn helpers() {
        assert!(is_version("v1.12.6"));
        assert!(is_version("v1.14.0-beta.1"));
        assert!(!is_version("1.12.6"));
        assert!(!is_version("v1.12"));
        assert!(is_byte_size("100GiB"));
        assert!(is_byte_size("2.5TB"));
        assert!(!is_byte_size("GiB"));
        assert!(!is_byte_size("100 GiB"));
        assert_eq!(image_tag("ghcr.io/a/b:v1.2.3"), Some("v1.2.3"));
        assert_eq!(image_tag("localhost:5000/a/b"), None);
        assert_eq!(image_tag("a/b:v1@sha256:00"), Some("v1"));
        assert!(is_env_name("NETBIRD_SETUP_KEY"));
        assert!(!is_env_name("netbird"));
    }
}
