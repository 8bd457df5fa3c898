//! The host firewall, exactly as the table in the cluster architecture
//! guide (seed 002, "Host firewall"): default-deny ingress on every node,
//! then one rule per service with the sources the table lists. Rows without
//! a role apply to every node.
//!
//! | Service                   | Port(s)                | Sources              | Nodes |
//! |---------------------------|------------------------|----------------------|-------|
//! | apid                      | 50000/tcp              | vRack + NetBird      | all   |
//! | trustd                    | 50001/tcp              | vRack                | all   |
//! | kube-apiserver            | 6443/tcp               | vRack + NetBird      | CPs   |
//! | etcd                      | 2379-2380/tcp          | vRack                | CPs   |
//! | kubelet                   | 10250/tcp              | vRack + pod CIDR     | all   |
//! | flannel VXLAN             | 4789/udp               | vRack                | all   |
//! | Spegel registry           | 29999, 30021/tcp       | vRack                | workers |
//! | Envoy ingress             | 30443/tcp (NodePort)   | IPLB NAT range only  | workers |
//! | CP component metrics      | 10257, 10259, 2381/tcp | vRack + pod CIDR     | CPs   |
//! | Node metrics              | 10249, 9100/tcp        | vRack + pod CIDR     | all   |

use crate::yaml::Node;

use super::machine::{map, seq, str_node};
use super::validate::{Env, Role};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Vrack,
    NetbirdPeers,
    PodCidr,
    IplbNat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    All,
    ControlPlanes,
    Workers,
}

impl Scope {
    pub fn applies_to(&self, role: Role) -> bool {
        match self {
            Scope::All => true,
            Scope::ControlPlanes => role == Role::ControlPlane,
            Scope::Workers => role == Role::Worker,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    Tcp,
    Udp,
}

/// A port or an inclusive range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ports(pub u16, pub u16);

impl Ports {
    const fn one(p: u16) -> Ports {
        Ports(p, p)
    }
    fn to_node(self) -> Node {
        if self.0 == self.1 {
            Node::Int(i64::from(self.0))
        } else {
            Node::str(format!("{}-{}", self.0, self.1))
        }
    }
}

#[derive(Debug, Clone)]
pub struct Rule {
    /// The NetworkRuleConfig name.
    pub name: &'static str,
    pub service: &'static str,
    pub ports: Vec<Ports>,
    pub protocol: Protocol,
    pub sources: Vec<Source>,
    pub scope: Scope,
}

/// Name of the Envoy ingress rule (the cross-checks look for it).
pub const ENVOY_RULE: &str = "envoy-ingress";
/// Name of the Spegel rule.
pub const SPEGEL_RULE: &str = "spegel-registry-ingress";

/// The rules of the table, in table order. The Envoy port is the spec's
/// NodePort (30443 in both environments).
pub fn rules(env: &Env) -> Vec<Rule> {
    use Protocol::*;
    use Scope::*;
    use Source::*;
    let r = |name, service, ports: &[Ports], protocol, sources: &[Source], scope| Rule {
        name,
        service,
        ports: ports.to_vec(),
        protocol,
        sources: sources.to_vec(),
        scope,
    };
    vec![
        r(
            "apid-ingress",
            "apid",
            &[Ports::one(50000)],
            Tcp,
            &[Vrack, NetbirdPeers],
            All,
        ),
        r(
            "trustd-ingress",
            "trustd",
            &[Ports::one(50001)],
            Tcp,
            &[Vrack],
            All,
        ),
        r(
            "kube-apiserver-ingress",
            "kube-apiserver",
            &[Ports::one(6443)],
            Tcp,
            &[Vrack, NetbirdPeers],
            ControlPlanes,
        ),
        r(
            "etcd-ingress",
            "etcd",
            &[Ports(2379, 2380)],
            Tcp,
            &[Vrack],
            ControlPlanes,
        ),
        r(
            "kubelet-ingress",
            "kubelet",
            &[Ports::one(10250)],
            Tcp,
            &[Vrack, PodCidr],
            All,
        ),
        r(
            "flannel-vxlan-ingress",
            "flannel VXLAN",
            &[Ports::one(4789)],
            Udp,
            &[Vrack],
            All,
        ),
        r(
            SPEGEL_RULE,
            "Spegel registry",
            &[Ports::one(29999), Ports::one(30021)],
            Tcp,
            &[Vrack],
            Workers,
        ),
        r(
            ENVOY_RULE,
            "Envoy ingress",
            &[Ports::one(env.envoy_node_port)],
            Tcp,
            &[IplbNat],
            Workers,
        ),
        r(
            "controlplane-metrics-ingress",
            "CP component metrics",
            &[Ports::one(10257), Ports::one(10259), Ports::one(2381)],
            Tcp,
            &[Vrack, PodCidr],
            ControlPlanes,
        ),
        r(
            "node-metrics-ingress",
            "node metrics",
            &[Ports::one(10249), Ports::one(9100)],
            Tcp,
            &[Vrack, PodCidr],
            All,
        ),
    ]
}

fn source_cidr(env: &Env, s: Source) -> String {
    match s {
        Source::Vrack => env.private_cidr.to_string(),
        Source::NetbirdPeers => env.netbird_cidr.to_string(),
        Source::PodCidr => env.pod_cidr.to_string(),
        Source::IplbNat => env.iplb_nat_cidr.to_string(),
    }
}

/// `NetworkDefaultActionConfig` (ingress: block).
pub fn default_action() -> Node {
    map(vec![
        ("apiVersion", str_node("v1alpha1")),
        ("kind", str_node("NetworkDefaultActionConfig")),
        ("ingress", str_node("block")),
    ])
}

/// The `NetworkRuleConfig` documents for a node of `role`.
pub fn rule_documents(env: &Env, role: Role) -> Vec<Node> {
    rules(env)
        .into_iter()
        .filter(|r| r.scope.applies_to(role))
        .map(|r| {
            map(vec![
                ("apiVersion", str_node("v1alpha1")),
                ("kind", str_node("NetworkRuleConfig")),
                ("name", str_node(r.name)),
                (
                    "portSelector",
                    map(vec![
                        ("ports", seq(r.ports.iter().map(|p| p.to_node()))),
                        (
                            "protocol",
                            str_node(match r.protocol {
                                Protocol::Tcp => "tcp",
                                Protocol::Udp => "udp",
                            }),
                        ),
                    ]),
                ),
                (
                    "ingress",
                    seq(r
                        .sources
                        .iter()
                        .map(|s| map(vec![("subnet", str_node(&source_cidr(env, *s)))]))),
                ),
            ])
        })
        .collect()
}
