//! Variables that xunholy's kustomize-mutating-webhook writes into Flux
//! Kustomizations at admission.
//!
//! The webhook (chart `kustomize-mutating-webhook`, from
//! `oci://ghcr.io/xunholy/charts` or its Helm repository) watches
//! ConfigMaps (`configMaps[].name` of its values, default
//! `cluster-config`) and Secrets (`secrets[].name`, default none) in the
//! namespace it runs in, and mutates every Kustomization created or
//! updated in a namespace its `webhook.namespaceSelector` selects
//! (default: every namespace but `flux-system`). The mutation is a JSON
//! patch: `spec.postBuild` and `spec.postBuild.substitute` are added when
//! absent, then each key of the watched objects (ConfigMaps by name, then
//! Secrets by name, a later one winning) is added to
//! `spec.postBuild.substitute`: it overrides the Kustomization's own
//! value of that key, which overrides its `substituteFrom` sources.
//! Repositories that run it write `${CLUSTER_DOMAIN}` in an app's
//! manifests with no `substituteFrom` in sight (the webhook's sources live
//! in another namespace, where `substituteFrom` cannot reach).
//!
//! A watched object that does not exist is skipped by the webhook, as
//! here; one made at runtime (an ExternalSecret's Secret) is absent
//! offline, and its variables with it. Read from the webhook's sources
//! (`internal/handlers/mutate.go`, `pkg/utils/configwatcher.go`, the
//! chart's values and templates). Installed by a HelmRelease only: a
//! webhook applied from plain manifests is not recognised.

use crate::resource::Resource;
use crate::yaml::Node;

use super::helm::HelmReleaseReport;

/// The chart's name.
pub const CHART: &str = "kustomize-mutating-webhook";

/// One webhook installed by a HelmRelease.
#[derive(Debug, Clone)]
pub struct Webhook {
    /// `HelmRelease namespace/name`.
    pub by: String,
    /// Where it runs, and reads its ConfigMaps and Secrets.
    pub namespace: String,
    /// Sorted, as the webhook reads them (duplicates dropped).
    pub config_maps: Vec<String>,
    pub secrets: Vec<String>,
    /// `webhook.namespaceSelector` (a Kubernetes `LabelSelector`).
    pub selector: Node,
}

/// Whether any of `objects` may install the webhook: a HelmRelease naming
/// the chart, or an OCIRepository serving it (cheap, before the
/// HelmReleases are resolved).
pub fn maybe_installed<'a>(objects: impl IntoIterator<Item = &'a Resource>) -> bool {
    objects.into_iter().any(|r| match r.kind() {
        "HelmRelease" => r
            .obj
            .get_str(&["spec", "chart", "spec", "chart"])
            .is_some_and(|c| last_segment(c) == CHART),
        "OCIRepository" => r
            .obj
            .get_str(&["spec", "url"])
            .is_some_and(|u| last_segment(u) == CHART),
        _ => false,
    })
}

/// Whether HelmRelease `hr` may install the webhook: its chart named so,
/// or a `chartRef` (whose source's URL [`of_release`] reads once
/// resolved).
pub fn may_install(hr: &Resource) -> bool {
    hr.obj
        .get_path(&["spec", "chartRef"])
        .is_some_and(|c| !c.is_null())
        || hr
            .obj
            .get_str(&["spec", "chart", "spec", "chart"])
            .is_some_and(|c| last_segment(c) == CHART)
}

fn last_segment(s: &str) -> &str {
    s.trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or_default()
}

/// The webhook `hr` installs, if its chart is the webhook's; `None` for a
/// suspended or failed release (its values unknown).
pub fn of_release(hr: &HelmReleaseReport) -> Option<Webhook> {
    let chart = if hr.chart.chart.is_empty() {
        last_segment(&hr.chart.url)
    } else {
        last_segment(&hr.chart.chart)
    };
    if chart != CHART || !hr.ok {
        return None;
    }
    if hr
        .object
        .obj
        .get_path(&["spec", "suspend"])
        .and_then(Node::as_bool)
        .unwrap_or(false)
    {
        return None;
    }
    let names = |key: &str, default: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = match hr.values.get(key) {
            // A list given replaces the chart's (Helm merges maps only).
            Some(Node::Seq(items)) => items
                .iter()
                .filter_map(|i| i.get_str(&["name"]))
                .filter(|n| !n.is_empty())
                .map(str::to_string)
                .collect(),
            Some(Node::Null) => Vec::new(),
            Some(_) => Vec::new(),
            None => default.iter().map(|s| s.to_string()).collect(),
        };
        v.sort();
        v.dedup();
        v
    };
    Some(Webhook {
        by: format!("HelmRelease {}/{}", hr.namespace, hr.name),
        namespace: hr.release_namespace.clone(),
        config_maps: names("configMaps", &["cluster-config"]),
        secrets: names("secrets", &[]),
        selector: selector(hr.values.get_path(&["webhook", "namespaceSelector"])),
    })
}

/// The chart's default selector (every namespace but `flux-system`) with
/// the release's values coalesced over it as Helm does: maps merge key by
/// key, a `null` removes the default's key, anything else replaces it.
fn selector(given: Option<&Node>) -> Node {
    let mut sel = crate::yaml::parse_one(
        "matchExpressions:\n- key: kubernetes.io/metadata.name\n  operator: NotIn\n  values:\n  - flux-system\n",
    )
    .expect("the default selector parses");
    match given {
        Some(Node::Map(m)) => coalesce(&mut sel, m),
        // `null` (or a scalar, which the template would print as is)
        // leaves `namespaceSelector` empty: every namespace.
        Some(_) => sel = Node::map(),
        None => {}
    }
    sel
}

fn coalesce(base: &mut Node, over: &crate::yaml::Map) {
    let Some(b) = base.as_map_mut() else { return };
    for (k, v) in over.iter() {
        match v {
            Node::Null => {
                b.remove(k);
            }
            Node::Map(vm) => match b.get_mut(k) {
                Some(bv @ Node::Map(_)) => coalesce(bv, vm),
                _ => {
                    b.insert(k.clone(), v.clone());
                }
            },
            _ => {
                b.insert(k.clone(), v.clone());
            }
        }
    }
}

impl Webhook {
    /// Whether the webhook mutates Kustomizations in namespace `ns`, whose
    /// labels (Namespace object and `kubernetes.io/metadata.name`) are
    /// `labels`.
    pub fn selects(&self, labels: &Node) -> bool {
        super::render::label_selector_matches(&self.selector, labels)
    }

    /// The watched objects, in the order the webhook reads them: (kind,
    /// name).
    pub fn sources(&self) -> impl Iterator<Item = (&'static str, &str)> {
        self.config_maps
            .iter()
            .map(|n| ("ConfigMap", n.as_str()))
            .chain(self.secrets.iter().map(|n| ("Secret", n.as_str())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flux::helm::{ChartInfo, HelmReleaseReport, HrStatus};

    fn release(chart: ChartInfo, values: &str) -> HelmReleaseReport {
        let object = crate::resource::Resource::new(
            crate::yaml::parse_one(
                "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: kmw\n  namespace: flux-system\n",
            )
            .unwrap(),
            Default::default(),
        );
        HelmReleaseReport {
            name: "kmw".into(),
            namespace: "flux-system".into(),
            kustomization: "flux-system/kmw".into(),
            chart,
            ok: true,
            status: HrStatus::Skipped,
            message: String::new(),
            release_name: "kmw".into(),
            release_namespace: "system".into(),
            objects: Vec::new(),
            crds: 0,
            warnings: Vec::new(),
            values: crate::yaml::parse_one(values).unwrap(),
            secret_paths: Default::default(),
            object,
            calls_lookup: false,
        }
    }

    fn oci() -> ChartInfo {
        ChartInfo {
            kind: "OCIRepository".into(),
            url: "oci://ghcr.io/xunholy/charts/kustomize-mutating-webhook".into(),
            ..Default::default()
        }
    }

    fn labels(ns: &str) -> Node {
        crate::yaml::parse_one(&format!("kubernetes.io/metadata.name: {ns}\n")).unwrap()
    }

    #[test]
    fn chart_defaults() {
        let w = of_release(&release(oci(), "{}")).unwrap();
        assert_eq!(w.namespace, "system");
        assert_eq!(w.config_maps, ["cluster-config"]);
        assert!(w.secrets.is_empty());
        assert!(w.selects(&labels("media")));
        assert!(!w.selects(&labels("flux-system")));
        assert_eq!(w.by, "HelmRelease flux-system/kmw");
    }

    #[test]
    fn values_given() {
        let w = of_release(&release(
            oci(),
            "configMaps:\n- name: z\n  create: false\n- name: a\nsecrets:\n- name: s2\n- name: s1\nwebhook:\n  namespaceSelector:\n    matchExpressions: null\n    matchLabels:\n      team: a\n",
        ))
        .unwrap();
        assert_eq!(w.config_maps, ["a", "z"]);
        assert_eq!(w.secrets, ["s1", "s2"]);
        assert_eq!(
            w.sources().collect::<Vec<_>>(),
            [
                ("ConfigMap", "a"),
                ("ConfigMap", "z"),
                ("Secret", "s1"),
                ("Secret", "s2")
            ]
        );
        // The default's matchExpressions removed, matchLabels added.
        assert!(w.selects(
            &crate::yaml::parse_one("team: a\nkubernetes.io/metadata.name: flux-system\n").unwrap()
        ));
        assert!(!w.selects(&labels("media")));
        // matchLabels merged over the default: both apply.
        let w = of_release(&release(
            oci(),
            "webhook:\n  namespaceSelector:\n    matchLabels:\n      team: a\n",
        ))
        .unwrap();
        assert!(!w.selects(
            &crate::yaml::parse_one("team: a\nkubernetes.io/metadata.name: flux-system\n").unwrap()
        ));
        assert!(w.selects(
            &crate::yaml::parse_one("team: a\nkubernetes.io/metadata.name: media\n").unwrap()
        ));
        // An empty list watches nothing.
        let w = of_release(&release(oci(), "configMaps: []\n")).unwrap();
        assert!(w.config_maps.is_empty());
    }

    #[test]
    fn other_charts_and_repository_charts() {
        let mut c = oci();
        c.url = "oci://ghcr.io/bjw-s-labs/helm/app-template".into();
        assert!(of_release(&release(c, "{}")).is_none());
        let c = ChartInfo {
            kind: "HelmRepository".into(),
            chart: "kustomize-mutating-webhook".into(),
            ..Default::default()
        };
        assert!(of_release(&release(c, "{}")).is_some());
        let mut failed = release(oci(), "{}");
        failed.ok = false;
        assert!(of_release(&failed).is_none());
    }
}
