//! The JSON Schema of the Talos environment spec. It is the source of
//! `schemas/talos-spec.schema.json`, which `flate talos schema` prints (a
//! test keeps the file in step). The schema describes the shape; the
//! semantic rules (ranges inside prefixes, overlaps, quorum, duplicates)
//! are `flate talos gen`'s validation.

use serde_json::{Value, json};

use super::spec::{API_VERSION, KIND, defaults};

fn string(description: &str) -> Value {
    json!({"type": "string", "minLength": 1, "description": description})
}

fn cidr(description: &str, default: Option<&str>) -> Value {
    let mut v = json!({
        "type": "string",
        "pattern": r"^\d{1,3}(\.\d{1,3}){3}/\d{1,2}$",
        "description": description,
    });
    if let Some(d) = default {
        v["default"] = json!(d);
    }
    v
}

fn ipv4(description: &str) -> Value {
    json!({
        "type": "string",
        "pattern": r"^\d{1,3}(\.\d{1,3}){3}$",
        "description": description,
    })
}

fn offset(description: &str, default: u32) -> Value {
    json!({"type": "integer", "minimum": 1, "default": default, "description": description})
}

fn size(description: &str, default: &str) -> Value {
    json!({
        "type": "string",
        "pattern": r"^[0-9]+(\.[0-9]+)?(B|kB|KB|MB|GB|TB|PB|KiB|MiB|GiB|TiB|PiB)$",
        "default": default,
        "description": description,
    })
}

fn nic(description: &str) -> Value {
    json!({"type": "string", "minLength": 1, "description": description})
}

/// The schema document.
pub fn json_schema() -> Value {
    let version = json!({"type": "string", "pattern": r"^v[0-9]+\.[0-9]+\.[0-9]+(-.+)?$"});
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "flate Talos environment spec",
        "description": "One environment's machines and networks; `flate talos gen ENV` derives every Talos document, the host firewall, the IPLB description and the bootstrap-settings values from it.",
        "type": "object",
        "additionalProperties": false,
        "required": ["apiVersion", "kind", "cluster", "network", "mesh", "iplb", "platforms", "controlPlanes", "workers"],
        "properties": {
            "apiVersion": {"const": API_VERSION},
            "kind": {"const": KIND},
            "cluster": {
                "type": "object",
                "additionalProperties": false,
                "required": ["name", "talosVersion", "kubernetesVersion"],
                "properties": {
                    "name": {
                        "type": "string",
                        "pattern": "^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$",
                        "description": "Talos cluster name (o11y-staging)."
                    },
                    "talosVersion": {"description": "Talos version; the tag of every installer image.", "allOf": [version]},
                    "kubernetesVersion": {"description": "Kubernetes version; pins the kubelet and control-plane images.", "allOf": [version]}
                }
            },
            "network": {
                "type": "object",
                "additionalProperties": false,
                "required": ["privateCidr"],
                "properties": {
                    "privateCidr": cidr("The environment's vRack prefix; every node IP and the VIP are inside it, and the host firewall trusts it.", None),
                    "vipOffset": offset("Control-plane VIP = network address of privateCidr + this offset.", defaults::VIP_OFFSET),
                    "podCidr": cidr("Pod CIDR.", Some(defaults::POD_CIDR)),
                    "serviceCidr": cidr("Service CIDR.", Some(defaults::SERVICE_CIDR)),
                    "clusterDns": ipv4("kubelet clusterDNS (default: the 10th address of serviceCidr)."),
                    "netbirdCidr": cidr("NetBird peer range, trusted on apid and kube-apiserver.", Some(defaults::NETBIRD_CIDR)),
                    "iplbNatCidr": cidr("OVH IPLB NAT range, the only source allowed on the Envoy NodePort.", Some(defaults::IPLB_NAT_CIDR)),
                    "envoyNodePort": {"type": "integer", "minimum": 30000, "maximum": 32767, "default": defaults::ENVOY_NODE_PORT, "description": "NodePort of the public Envoy; the IPLB farm port and the firewall port."}
                }
            },
            "mesh": {
                "type": "object",
                "additionalProperties": false,
                "required": ["domain", "gatewayServiceCidr", "egressCidr"],
                "properties": {
                    "domain": string("Mesh domain; kube.<domain> is an apiserver certSAN (BOOTSTRAP_MESH_DOMAIN)."),
                    "gatewayServiceCidr": cidr("Secondary ServiceCIDR of the mesh gateway (BOOTSTRAP_SERVICE_CIDR).", None),
                    "gatewayVipOffset": offset("Mesh gateway VIP offset in gatewayServiceCidr (BOOTSTRAP_GATEWAY_VIP).", defaults::GATEWAY_VIP_OFFSET),
                    "dnsVipOffset": offset("Mesh DNS VIP offset in gatewayServiceCidr (BOOTSTRAP_MESH_DNS_VIP).", defaults::MESH_DNS_VIP_OFFSET),
                    "egressCidr": cidr("Multus pod-egress range (BOOTSTRAP_EGRESS_CIDR).", None),
                    "egressGatewayOffset": offset("Egress gateway offset in egressCidr (BOOTSTRAP_EGRESS_GATEWAY).", defaults::EGRESS_GATEWAY_OFFSET)
                }
            },
            "iplb": {
                "type": "object",
                "additionalProperties": false,
                "required": ["zones"],
                "properties": {
                    "zones": {
                        "type": "array",
                        "minItems": 1,
                        "uniqueItems": true,
                        "items": {"type": "string", "pattern": "^[a-z0-9-]+$"},
                        "description": "OVH IPLB zones; more than one is anycast."
                    }
                }
            },
            "platforms": {
                "type": "object",
                "description": "Per Talos platform (openstack for OVH Public Cloud, metal for bare metal): schematic and install settings.",
                "minProperties": 1,
                "additionalProperties": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["installDisk"],
                    "properties": {
                        "systemExtensions": {
                            "type": "array",
                            "uniqueItems": true,
                            "items": {"type": "string", "pattern": "^[a-z0-9][a-z0-9._-]*/[a-z0-9][a-z0-9._-]*$"},
                            "description": "Official Image Factory system extensions of the schematic."
                        },
                        "installerImage": string("Installer image (default: the Image Factory installer of the systemExtensions schematic, tagged talosVersion)."),
                        "installDisk": {"type": "string", "pattern": "^/dev/", "description": "machine.install.disk"},
                        "publicNic": nic("Default public NIC name for nodes of this platform."),
                        "privateNic": nic("Default private (vRack) NIC name for nodes of this platform.")
                    }
                }
            },
            "extensions": {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "netbird": {
                        "type": "object",
                        "additionalProperties": false,
                        "required": ["setupKeyEnv"],
                        "properties": {
                            "managementUrl": {"type": "string", "pattern": "^https://", "default": defaults::NETBIRD_MANAGEMENT_URL},
                            "setupKeyEnv": {"type": "string", "pattern": "^[A-Z_][A-Z0-9_]*$", "description": "Environment variable holding the setup key at apply time; the output carries ${NAME}, never the key."}
                        }
                    }
                }
            },
            "storage": {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "ephemeralSize": size("Fixed size of the workers' EPHEMERAL partition.", "100GiB"),
                    "hostpathMinSize": size("Minimum size of the growing hostpath user volume on the workers' system disk.", "50GiB")
                }
            },
            "controlPlanes": {
                "type": "array",
                "minItems": 1,
                "description": "An odd number (etcd quorum).",
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["name", "datacenter", "platform", "publicIp", "privateIp"],
                    "properties": {
                        "name": {"type": "string", "pattern": "^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$", "description": "Hostname."},
                        "datacenter": string("Datacenter (topology.kubernetes.io/zone)."),
                        "platform": string("A key of platforms."),
                        "plan": string("Instance plan (node.kubernetes.io/instance-type)."),
                        "publicIp": ipv4("Public IP."),
                        "privateIp": ipv4("Static vRack IP, inside network.privateCidr."),
                        "publicNic": nic("Public NIC (DHCP); default: the platform's."),
                        "privateNic": nic("Private NIC (static IP + VIP); default: the platform's.")
                    }
                }
            },
            "workers": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["name", "datacenter", "publicIp", "privateIp", "spareDiskModel"],
                    "properties": {
                        "name": {"type": "string", "pattern": "^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$", "description": "Hostname."},
                        "datacenter": string("Datacenter (topology.kubernetes.io/zone)."),
                        "platform": {"type": "string", "minLength": 1, "default": defaults::WORKER_PLATFORM, "description": "A key of platforms."},
                        "plan": string("Server plan (node.kubernetes.io/instance-type)."),
                        "publicIp": ipv4("Public IP; an IPLB farm server."),
                        "privateIp": ipv4("Static vRack IP, inside network.privateCidr."),
                        "publicNic": nic("Public NIC (DHCP, IPLB ingress); required here or on the platform."),
                        "privateNic": nic("Private NIC (static vRack IP); required here or on the platform."),
                        "spareDiskModel": string("Exact model of the spare NVMe backing the local-hostpath user volume.")
                    }
                }
            }
        }
    })
}

/// The schema as the file holds it (pretty JSON, trailing newline).
pub fn to_string() -> String {
    let mut s = serde_json::to_string_pretty(&json_schema()).expect("JSON value");
    s.push('\n');
    s
}
