//! `flate talos check ENV`: the generated Talos configs against the
//! rendered Flux tree.
//!
//! - envoy-nodeport: the firewall's Envoy port (the `envoy-ingress` rule of
//!   the generated worker configs) equals the NodePort pinned by every
//!   NodePort Envoy Service / EnvoyProxy in the rendered tree;
//! - private-cidr: the firewall's vRack prefix equals the private CIDR in
//!   the rendered settings ConfigMaps (`cluster-settings`,
//!   `bootstrap-settings`: a key ending in `_PRIVATE_CIDR` or
//!   `_VRACK_CIDR`); skipped when they carry none;
//! - endpoint: every node's control-plane endpoint is the VIP, and every
//!   control plane carries the VIP on its private NIC;
//! - cluster-name: `CLUSTER_ID` in the rendered settings is the Talos
//!   cluster name (skipped when absent);
//! - spegel-ports: the Spegel registry ports of the rendered HelmRelease are
//!   open in the firewall's Spegel rule (skipped when there is no Spegel).

use std::collections::BTreeSet;
use std::fmt;

use crate::yaml::Node;

use super::firewall::{ENVOY_RULE, SPEGEL_RULE};
use super::model::{Document, PortEntry};
use super::render::RenderedObject;
use super::validate::{Env, Role};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Pass,
    Fail,
    Skip,
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::Skip => "SKIPPED",
        })
    }
}

#[derive(Debug, Clone)]
pub struct Finding {
    pub check: &'static str,
    pub status: Status,
    pub message: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: {}", self.status, self.check, self.message)
    }
}

fn finding(check: &'static str, status: Status, message: impl Into<String>) -> Finding {
    Finding {
        check,
        status,
        message: message.into(),
    }
}

/// The generated documents of every node, read back through the typed
/// models.
struct NodeDocs {
    name: String,
    role: Role,
    docs: Vec<Document>,
}

fn rule_ports(docs: &[Document], rule: &str) -> Option<BTreeSet<u16>> {
    docs.iter().find_map(|d| match d {
        Document::Rule(r) if r.name == rule => {
            let mut set = BTreeSet::new();
            for p in &r.port_selector.ports {
                if let Ok((lo, hi)) = PortEntry::bounds(p) {
                    set.extend(lo..=hi);
                }
            }
            Some(set)
        }
        _ => None,
    })
}

fn rule_subnets(docs: &[Document], rule: &str) -> Option<Vec<String>> {
    docs.iter().find_map(|d| match d {
        Document::Rule(r) if r.name == rule => {
            Some(r.ingress.iter().map(|i| i.subnet.clone()).collect())
        }
        _ => None,
    })
}

/// Runs every cross-check.
pub fn run(env: &Env, objects: &[RenderedObject]) -> Vec<Finding> {
    let mut nodes = Vec::new();
    for m in &env.machines {
        let text = super::machine::patch_file(env, m);
        match super::model::parse_patch(&text) {
            Ok(docs) => nodes.push(NodeDocs {
                name: m.name.clone(),
                role: m.role,
                docs,
            }),
            Err(e) => {
                return vec![finding(
                    "generated-config",
                    Status::Fail,
                    format!("the generated config of {} does not read back: {e}", m.name),
                )];
            }
        }
    }
    vec![
        envoy_node_port(&nodes, objects),
        private_cidr(&nodes, objects),
        endpoint(env, &nodes),
        cluster_name(env, objects),
        spegel_ports(&nodes, objects),
    ]
}

/// A NodePort an Envoy object of the rendered tree pins (or fails to).
struct EnvoyPort {
    source: String,
    node_port: Option<i64>,
}

fn ports_of(spec_ports: Option<&Node>) -> Vec<Option<i64>> {
    let Some(ports) = spec_ports.and_then(Node::as_seq) else {
        return vec![None];
    };
    let mut out: Vec<Option<i64>> = ports
        .iter()
        // Only the HTTPS listener is behind the IPLB.
        .filter(|p| {
            p.get("port")
                .and_then(Node::as_i64)
                .is_none_or(|port| port == 443)
        })
        .map(|p| p.get("nodePort").and_then(Node::as_i64))
        .collect();
    if out.is_empty() {
        out.push(None);
    }
    out
}

fn envoy_ports(objects: &[RenderedObject]) -> Vec<EnvoyPort> {
    let mut out = Vec::new();
    for o in objects {
        let source = format!("{} (from {})", o.describe(), o.kustomization);
        if o.api_version().starts_with("gateway.envoyproxy.io/") && o.kind() == "EnvoyProxy" {
            let Some(svc) = o
                .object
                .get_path(&["spec", "provider", "kubernetes", "envoyService"])
            else {
                continue;
            };
            if svc.get_str(&["type"]) != Some("NodePort") {
                continue;
            }
            for node_port in ports_of(svc.get_path(&["patch", "value", "spec", "ports"])) {
                out.push(EnvoyPort {
                    source: source.clone(),
                    node_port,
                });
            }
        } else if o.api_version() == "v1" && o.kind() == "Service" {
            let envoy = o.name().contains("envoy")
                || o.object
                    .get_path(&["metadata", "labels"])
                    .and_then(Node::as_map)
                    .is_some_and(|l| {
                        l.get("app.kubernetes.io/name").and_then(Node::as_str) == Some("envoy")
                            || l.contains_key("gateway.envoyproxy.io/owning-gateway-name")
                    });
            if envoy && o.object.get_str(&["spec", "type"]) == Some("NodePort") {
                for node_port in ports_of(o.object.get_path(&["spec", "ports"])) {
                    out.push(EnvoyPort {
                        source: source.clone(),
                        node_port,
                    });
                }
            }
        }
    }
    out
}

fn envoy_node_port(nodes: &[NodeDocs], objects: &[RenderedObject]) -> Finding {
    const C: &str = "envoy-nodeport";
    let mut fw: BTreeSet<u16> = BTreeSet::new();
    for n in nodes.iter().filter(|n| n.role == Role::Worker) {
        match rule_ports(&n.docs, ENVOY_RULE) {
            Some(p) => fw.extend(p),
            None => {
                return finding(
                    C,
                    Status::Fail,
                    format!("worker {} has no {ENVOY_RULE} firewall rule", n.name),
                );
            }
        }
    }
    let fw_text = fw.iter().map(u16::to_string).collect::<Vec<_>>().join(", ");
    let found = envoy_ports(objects);
    if found.is_empty() {
        return finding(
            C,
            Status::Fail,
            format!(
                "the firewall allows Envoy on {fw_text}/tcp but the rendered tree has no NodePort Envoy Service or EnvoyProxy"
            ),
        );
    }
    let mut problems = Vec::new();
    let mut ok = Vec::new();
    for e in &found {
        match e.node_port {
            None => problems.push(format!(
                "{} is a NodePort service without a pinned nodePort for 443 (Kubernetes would pick a random port)",
                e.source
            )),
            Some(p) if u16::try_from(p).is_ok_and(|p| fw.contains(&p)) && fw.len() == 1 => {
                ok.push(e.source.clone())
            }
            Some(p) => problems.push(format!(
                "the firewall's {ENVOY_RULE} rule allows {fw_text}/tcp but {} pins NodePort {p}",
                e.source
            )),
        }
    }
    if problems.is_empty() {
        finding(
            C,
            Status::Pass,
            format!("firewall {fw_text}/tcp = NodePort of {}", ok.join(", ")),
        )
    } else {
        finding(C, Status::Fail, problems.join("; "))
    }
}

/// `data` of the settings ConfigMaps of the rendered tree, as
/// (ConfigMap name, key, value).
fn settings(objects: &[RenderedObject]) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for o in objects {
        if o.api_version() == "v1"
            && o.kind() == "ConfigMap"
            && o.namespace() == "flux-system"
            && matches!(o.name(), "cluster-settings" | "bootstrap-settings")
            && let Some(data) = o.object.get("data").and_then(Node::as_map)
        {
            for (k, v) in data.iter() {
                if let Some(text) = v.scalar_text() {
                    out.push((o.name().to_string(), k.clone(), text));
                }
            }
        }
    }
    out
}

fn private_cidr(nodes: &[NodeDocs], objects: &[RenderedObject]) -> Finding {
    const C: &str = "private-cidr";
    // trustd's only source is the vRack (seed 002's table).
    let mut fw: BTreeSet<String> = BTreeSet::new();
    for n in nodes {
        fw.extend(rule_subnets(&n.docs, "trustd-ingress").unwrap_or_default());
    }
    let fw_text = fw.iter().cloned().collect::<Vec<_>>().join(", ");
    if fw.len() != 1 {
        return finding(
            C,
            Status::Fail,
            format!("the generated firewall trusts more than one vRack prefix: {fw_text}"),
        );
    }
    let candidates: Vec<_> = settings(objects)
        .into_iter()
        .filter(|(_, k, _)| k.ends_with("_PRIVATE_CIDR") || k.ends_with("_VRACK_CIDR"))
        .collect();
    if candidates.is_empty() {
        return finding(
            C,
            Status::Skip,
            format!(
                "the rendered settings carry no *_PRIVATE_CIDR or *_VRACK_CIDR key to compare with the firewall's {fw_text}"
            ),
        );
    }
    let mismatched: Vec<String> = candidates
        .iter()
        .filter(|(_, _, v)| !fw.contains(v.as_str()))
        .map(|(cm, k, v)| format!("{cm} {k}={v}"))
        .collect();
    if mismatched.is_empty() {
        let keys: Vec<String> = candidates
            .iter()
            .map(|(cm, k, _)| format!("{cm} {k}"))
            .collect();
        finding(
            C,
            Status::Pass,
            format!("firewall vRack {fw_text} = {}", keys.join(", ")),
        )
    } else {
        finding(
            C,
            Status::Fail,
            format!(
                "the firewall trusts the vRack {fw_text} but the rendered settings say {}",
                mismatched.join(", ")
            ),
        )
    }
}

fn endpoint(env: &Env, nodes: &[NodeDocs]) -> Finding {
    const C: &str = "endpoint";
    let want = env.endpoint();
    let vip = env.vip.to_string();
    let mut problems = Vec::new();
    let mut cps = 0;
    for n in nodes {
        let v1 = n.docs.iter().find_map(|d| match d {
            Document::V1Alpha1(v) => Some(v),
            _ => None,
        });
        let got = v1
            .and_then(|v| v.cluster.as_ref())
            .and_then(|c| c.control_plane.as_ref())
            .map(|c| c.endpoint.clone());
        if got.as_deref() != Some(want.as_str()) {
            problems.push(format!(
                "{}: control-plane endpoint is {}, not the VIP endpoint {want}",
                n.name,
                got.unwrap_or_else(|| "unset".into())
            ));
        }
        if n.role == Role::ControlPlane {
            cps += 1;
            let has_vip = v1
                .and_then(|v| v.machine.as_ref())
                .and_then(|m| m.network.as_ref())
                .and_then(|n| n.interfaces.as_ref())
                .is_some_and(|ifs| {
                    ifs.iter()
                        .any(|i| i.vip.as_ref().and_then(|v| v.ip.as_deref()) == Some(vip.as_str()))
                });
            if !has_vip {
                problems.push(format!("{}: no interface carries the VIP {vip}", n.name));
            }
        }
    }
    if problems.is_empty() {
        finding(
            C,
            Status::Pass,
            format!(
                "{want} on all {} nodes; VIP {vip} on the private NIC of {cps} control planes",
                nodes.len()
            ),
        )
    } else {
        finding(C, Status::Fail, problems.join("; "))
    }
}

fn cluster_name(env: &Env, objects: &[RenderedObject]) -> Finding {
    const C: &str = "cluster-name";
    let ids: Vec<_> = settings(objects)
        .into_iter()
        .filter(|(_, k, _)| k == "CLUSTER_ID")
        .collect();
    if ids.is_empty() {
        return finding(C, Status::Skip, "the rendered settings carry no CLUSTER_ID");
    }
    let bad: Vec<String> = ids
        .iter()
        .filter(|(_, _, v)| *v != env.cluster_name)
        .map(|(cm, _, v)| format!("{cm} CLUSTER_ID={v}"))
        .collect();
    if bad.is_empty() {
        finding(
            C,
            Status::Pass,
            format!("cluster.name {} = CLUSTER_ID", env.cluster_name),
        )
    } else {
        finding(
            C,
            Status::Fail,
            format!(
                "the spec's cluster.name is {} but {}",
                env.cluster_name,
                bad.join(", ")
            ),
        )
    }
}

fn spegel_ports(nodes: &[NodeDocs], objects: &[RenderedObject]) -> Finding {
    const C: &str = "spegel-ports";
    let release = objects.iter().find(|o| {
        o.api_version().starts_with("helm.toolkit.fluxcd.io/")
            && o.kind() == "HelmRelease"
            && o.name() == "spegel"
    });
    let Some(release) = release else {
        return finding(
            C,
            Status::Skip,
            "no Spegel HelmRelease in the rendered tree",
        );
    };
    let registry = release
        .object
        .get_path(&["spec", "values", "service", "registry"]);
    let wanted: Vec<(&str, i64)> = ["hostPort", "nodePort"]
        .iter()
        .filter_map(|k| {
            registry
                .and_then(|r| r.get(k))
                .and_then(Node::as_i64)
                .map(|p| (*k, p))
        })
        .collect();
    if wanted.is_empty() {
        return finding(
            C,
            Status::Skip,
            format!(
                "{} pins no registry hostPort or nodePort",
                release.describe()
            ),
        );
    }
    let mut problems = Vec::new();
    for n in nodes.iter().filter(|n| n.role == Role::Worker) {
        let open = rule_ports(&n.docs, SPEGEL_RULE).unwrap_or_default();
        for (k, p) in &wanted {
            if !u16::try_from(*p).is_ok_and(|p| open.contains(&p)) {
                problems.push(format!(
                    "{}: {} service.registry.{k} {p} is not open in {SPEGEL_RULE}",
                    n.name,
                    release.describe()
                ));
            }
        }
    }
    if problems.is_empty() {
        let list: Vec<String> = wanted.iter().map(|(k, p)| format!("{k} {p}")).collect();
        finding(
            C,
            Status::Pass,
            format!(
                "{} ({}) open in {SPEGEL_RULE}",
                release.describe(),
                list.join(", ")
            ),
        )
    } else {
        finding(C, Status::Fail, problems.join("; "))
    }
}
