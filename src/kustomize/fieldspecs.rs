//! Builtin transformer field specs of kustomize v5.5.0 (api v0.18.0), transcribed from
//! `api/internal/konfig/builtinpluginconsts/`: commonlabels.go, metadatalabels.go,
//! templatelabels.go, commonannotations.go, nameprefix.go, namesuffix.go, namespace.go,
//! images.go, replicas.go, namereference.go, varreference.go (volumeclaimmetadatalabels.go
//! does not exist in v5.5.0: the StatefulSet `spec/volumeClaimTemplates[]/metadata/labels`
//! entry is part of metadatalabels.go there).
//! Facts about how kustomize uses them:
//! - defaultconfig.go joins the YAML documents; builtinconfig/transformerconfig.go parses them
//!   and then sorts every list (Go `sort.Sort`, not stable) by GVK (`resid.Gvk.IsLessThan`);
//!   inner nameReference referrer lists stay in source order. Tables here keep source order.
//! - commonLabels = commonlabels.go selectors followed by metadatalabels.go;
//!   templateLabels = metadatalabels.go verbatim.
//! - `labels:` (target/kusttarget_configplugin.go): the entry's own fieldSpecs, merged with
//!   the config `labels` list, then: includeSelectors -> + COMMON_LABELS; else
//!   includeTemplates -> + TEMPLATE_LABELS; and (without includeSelectors) always +
//!   `{path: metadata/labels, create: true}`. Merging skips a spec whose GVK is selected by
//!   (and path equals) one already present (types/fieldspec.go MergeOne).
//! - Empty group/version/kind match anything (resid.Gvk.IsSelected).
//! - Paths split on `/` with `\/` as an escaped slash (kyaml/utils/pathsplitter.go); a `[]`
//!   suffix marks a sequence step (api/filters/fieldspec). Both are kept as written.
//! - images: the ImageTagTransformer also runs imagetag.LegacyFilter, which updates
//!   `containers`/`initContainers` images anywhere in the object, besides these specs.

/// A kustomizable field: an optional GVK selector plus a slash path.
#[derive(Debug, Clone, Copy)]
pub struct FieldSpec {
    pub group: &'static str,
    pub version: &'static str,
    pub kind: &'static str,
    pub path: &'static str,
    pub create: bool,
}

/// A referral target kind and the referrer fields that can hold its name.
pub struct NameBackRef {
    pub group: &'static str,
    pub version: &'static str,
    pub kind: &'static str,
    pub referrers: &'static [FieldSpec],
}

/// `commonLabels:` (commonlabels.go: selectors, then metadatalabels.go appended). Also used by `labels:` with `includeSelectors: true`.
#[rustfmt::skip]
pub static COMMON_LABELS: &[FieldSpec] = &[
    FieldSpec { group: "", version: "v1", kind: "Service", path: "spec/selector", create: true },
    FieldSpec { group: "", version: "v1", kind: "ReplicationController", path: "spec/selector", create: true },
    FieldSpec { group: "", version: "", kind: "Deployment", path: "spec/selector/matchLabels", create: true },
    FieldSpec { group: "apps", version: "", kind: "Deployment", path: "spec/template/spec/affinity/podAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels", create: false },
    FieldSpec { group: "apps", version: "", kind: "Deployment", path: "spec/template/spec/affinity/podAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels", create: false },
    FieldSpec { group: "apps", version: "", kind: "Deployment", path: "spec/template/spec/affinity/podAntiAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels", create: false },
    FieldSpec { group: "apps", version: "", kind: "Deployment", path: "spec/template/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels", create: false },
    FieldSpec { group: "apps", version: "", kind: "Deployment", path: "spec/template/spec/topologySpreadConstraints/labelSelector/matchLabels", create: false },
    FieldSpec { group: "", version: "", kind: "ReplicaSet", path: "spec/selector/matchLabels", create: true },
    FieldSpec { group: "", version: "", kind: "DaemonSet", path: "spec/selector/matchLabels", create: true },
    FieldSpec { group: "apps", version: "", kind: "StatefulSet", path: "spec/selector/matchLabels", create: true },
    FieldSpec { group: "apps", version: "", kind: "StatefulSet", path: "spec/template/spec/affinity/podAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels", create: false },
    FieldSpec { group: "apps", version: "", kind: "StatefulSet", path: "spec/template/spec/affinity/podAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels", create: false },
    FieldSpec { group: "apps", version: "", kind: "StatefulSet", path: "spec/template/spec/affinity/podAntiAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels", create: false },
    FieldSpec { group: "apps", version: "", kind: "StatefulSet", path: "spec/template/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels", create: false },
    FieldSpec { group: "apps", version: "", kind: "StatefulSet", path: "spec/template/spec/topologySpreadConstraints/labelSelector/matchLabels", create: false },
    FieldSpec { group: "batch", version: "", kind: "Job", path: "spec/selector/matchLabels", create: false },
    FieldSpec { group: "batch", version: "", kind: "CronJob", path: "spec/jobTemplate/spec/selector/matchLabels", create: false },
    FieldSpec { group: "policy", version: "", kind: "PodDisruptionBudget", path: "spec/selector/matchLabels", create: false },
    FieldSpec { group: "networking.k8s.io", version: "", kind: "NetworkPolicy", path: "spec/podSelector/matchLabels", create: false },
    FieldSpec { group: "networking.k8s.io", version: "", kind: "NetworkPolicy", path: "spec/ingress/from/podSelector/matchLabels", create: false },
    FieldSpec { group: "networking.k8s.io", version: "", kind: "NetworkPolicy", path: "spec/egress/to/podSelector/matchLabels", create: false },
    FieldSpec { group: "", version: "", kind: "", path: "metadata/labels", create: true },
    FieldSpec { group: "", version: "v1", kind: "ReplicationController", path: "spec/template/metadata/labels", create: true },
    FieldSpec { group: "", version: "", kind: "Deployment", path: "spec/template/metadata/labels", create: true },
    FieldSpec { group: "", version: "", kind: "ReplicaSet", path: "spec/template/metadata/labels", create: true },
    FieldSpec { group: "", version: "", kind: "DaemonSet", path: "spec/template/metadata/labels", create: true },
    FieldSpec { group: "apps", version: "", kind: "StatefulSet", path: "spec/template/metadata/labels", create: true },
    FieldSpec { group: "apps", version: "", kind: "StatefulSet", path: "spec/volumeClaimTemplates[]/metadata/labels", create: true },
    FieldSpec { group: "batch", version: "", kind: "Job", path: "spec/template/metadata/labels", create: true },
    FieldSpec { group: "batch", version: "", kind: "CronJob", path: "spec/jobTemplate/metadata/labels", create: true },
    FieldSpec { group: "batch", version: "", kind: "CronJob", path: "spec/jobTemplate/spec/template/metadata/labels", create: true },
];

/// `metadataLabelsFieldSpecs` (metadatalabels.go): metadata/labels plus pod-template/volumeClaimTemplate/jobTemplate labels.
#[rustfmt::skip]
pub static METADATA_LABELS: &[FieldSpec] = &[
    FieldSpec { group: "", version: "", kind: "", path: "metadata/labels", create: true },
    FieldSpec { group: "", version: "v1", kind: "ReplicationController", path: "spec/template/metadata/labels", create: true },
    FieldSpec { group: "", version: "", kind: "Deployment", path: "spec/template/metadata/labels", create: true },
    FieldSpec { group: "", version: "", kind: "ReplicaSet", path: "spec/template/metadata/labels", create: true },
    FieldSpec { group: "", version: "", kind: "DaemonSet", path: "spec/template/metadata/labels", create: true },
    FieldSpec { group: "apps", version: "", kind: "StatefulSet", path: "spec/template/metadata/labels", create: true },
    FieldSpec { group: "apps", version: "", kind: "StatefulSet", path: "spec/volumeClaimTemplates[]/metadata/labels", create: true },
    FieldSpec { group: "batch", version: "", kind: "Job", path: "spec/template/metadata/labels", create: true },
    FieldSpec { group: "batch", version: "", kind: "CronJob", path: "spec/jobTemplate/metadata/labels", create: true },
    FieldSpec { group: "batch", version: "", kind: "CronJob", path: "spec/jobTemplate/spec/template/metadata/labels", create: true },
];

/// `templateLabels:` (templatelabels.go = metadatalabels.go verbatim). Used by `labels:` with `includeTemplates: true` and `includeSelectors: false`.
#[rustfmt::skip]
pub static TEMPLATE_LABELS: &[FieldSpec] = &[
    FieldSpec { group: "", version: "", kind: "", path: "metadata/labels", create: true },
    FieldSpec { group: "", version: "v1", kind: "ReplicationController", path: "spec/template/metadata/labels", create: true },
    FieldSpec { group: "", version: "", kind: "Deployment", path: "spec/template/metadata/labels", create: true },
    FieldSpec { group: "", version: "", kind: "ReplicaSet", path: "spec/template/metadata/labels", create: true },
    FieldSpec { group: "", version: "", kind: "DaemonSet", path: "spec/template/metadata/labels", create: true },
    FieldSpec { group: "apps", version: "", kind: "StatefulSet", path: "spec/template/metadata/labels", create: true },
    FieldSpec { group: "apps", version: "", kind: "StatefulSet", path: "spec/volumeClaimTemplates[]/metadata/labels", create: true },
    FieldSpec { group: "batch", version: "", kind: "Job", path: "spec/template/metadata/labels", create: true },
    FieldSpec { group: "batch", version: "", kind: "CronJob", path: "spec/jobTemplate/metadata/labels", create: true },
    FieldSpec { group: "batch", version: "", kind: "CronJob", path: "spec/jobTemplate/spec/template/metadata/labels", create: true },
];

/// `commonAnnotations:` (commonannotations.go).
#[rustfmt::skip]
pub static COMMON_ANNOTATIONS: &[FieldSpec] = &[
    FieldSpec { group: "", version: "", kind: "", path: "metadata/annotations", create: true },
    FieldSpec { group: "", version: "v1", kind: "ReplicationController", path: "spec/template/metadata/annotations", create: true },
    FieldSpec { group: "", version: "", kind: "Deployment", path: "spec/template/metadata/annotations", create: true },
    FieldSpec { group: "", version: "", kind: "ReplicaSet", path: "spec/template/metadata/annotations", create: true },
    FieldSpec { group: "", version: "", kind: "DaemonSet", path: "spec/template/metadata/annotations", create: true },
    FieldSpec { group: "", version: "", kind: "StatefulSet", path: "spec/template/metadata/annotations", create: true },
    FieldSpec { group: "batch", version: "", kind: "Job", path: "spec/template/metadata/annotations", create: true },
    FieldSpec { group: "batch", version: "", kind: "CronJob", path: "spec/jobTemplate/metadata/annotations", create: true },
    FieldSpec { group: "batch", version: "", kind: "CronJob", path: "spec/jobTemplate/spec/template/metadata/annotations", create: true },
];

/// `namePrefix:` (nameprefix.go).
#[rustfmt::skip]
pub static NAME_PREFIX: &[FieldSpec] = &[
    FieldSpec { group: "", version: "", kind: "", path: "metadata/name", create: false },
];

/// `nameSuffix:` (namesuffix.go).
#[rustfmt::skip]
pub static NAME_SUFFIX: &[FieldSpec] = &[
    FieldSpec { group: "", version: "", kind: "", path: "metadata/name", create: false },
];

/// `namespace:` (namespace.go). The namespace filter additionally sets metadata/namespace itself.
#[rustfmt::skip]
pub static NAMESPACE: &[FieldSpec] = &[
    FieldSpec { group: "", version: "", kind: "Namespace", path: "metadata/name", create: true },
    FieldSpec { group: "apiregistration.k8s.io", version: "", kind: "APIService", path: "spec/service/namespace", create: true },
    FieldSpec { group: "apiextensions.k8s.io", version: "", kind: "CustomResourceDefinition", path: "spec/conversion/webhook/clientConfig/service/namespace", create: false },
];

/// `images:` (images.go). `[]` suffix marks a sequence step.
#[rustfmt::skip]
pub static IMAGES: &[FieldSpec] = &[
    FieldSpec { group: "", version: "", kind: "", path: "spec/containers[]/image", create: true },
    FieldSpec { group: "", version: "", kind: "", path: "spec/initContainers[]/image", create: true },
    FieldSpec { group: "", version: "", kind: "", path: "spec/template/spec/containers[]/image", create: true },
    FieldSpec { group: "", version: "", kind: "", path: "spec/template/spec/initContainers[]/image", create: true },
];

/// `replicas:` (replicas.go).
#[rustfmt::skip]
pub static REPLICAS: &[FieldSpec] = &[
    FieldSpec { group: "", version: "", kind: "Deployment", path: "spec/replicas", create: true },
    FieldSpec { group: "", version: "", kind: "ReplicationController", path: "spec/replicas", create: true },
    FieldSpec { group: "", version: "", kind: "ReplicaSet", path: "spec/replicas", create: true },
    FieldSpec { group: "", version: "", kind: "StatefulSet", path: "spec/replicas", create: true },
];

/// `varReference:` (varreference.go): fields where `$(VAR)` is expanded.
#[rustfmt::skip]
pub static VAR_REFERENCE: &[FieldSpec] = &[
    FieldSpec { group: "", version: "", kind: "CronJob", path: "spec/jobTemplate/spec/template/spec/containers/args", create: false },
    FieldSpec { group: "", version: "", kind: "CronJob", path: "spec/jobTemplate/spec/template/spec/containers/command", create: false },
    FieldSpec { group: "", version: "", kind: "CronJob", path: "spec/jobTemplate/spec/template/spec/containers/env/value", create: false },
    FieldSpec { group: "", version: "", kind: "CronJob", path: "spec/jobTemplate/spec/template/spec/containers/volumeMounts/mountPath", create: false },
    FieldSpec { group: "", version: "", kind: "CronJob", path: "spec/jobTemplate/spec/template/spec/initContainers/args", create: false },
    FieldSpec { group: "", version: "", kind: "CronJob", path: "spec/jobTemplate/spec/template/spec/initContainers/command", create: false },
    FieldSpec { group: "", version: "", kind: "CronJob", path: "spec/jobTemplate/spec/template/spec/initContainers/env/value", create: false },
    FieldSpec { group: "", version: "", kind: "CronJob", path: "spec/jobTemplate/spec/template/spec/initContainers/volumeMounts/mountPath", create: false },
    FieldSpec { group: "", version: "", kind: "CronJob", path: "spec/jobTemplate/spec/template/volumes/nfs/server", create: false },
    FieldSpec { group: "", version: "", kind: "DaemonSet", path: "spec/template/spec/containers/args", create: false },
    FieldSpec { group: "", version: "", kind: "DaemonSet", path: "spec/template/spec/containers/command", create: false },
    FieldSpec { group: "", version: "", kind: "DaemonSet", path: "spec/template/spec/containers/env/value", create: false },
    FieldSpec { group: "", version: "", kind: "DaemonSet", path: "spec/template/spec/containers/volumeMounts/mountPath", create: false },
    FieldSpec { group: "", version: "", kind: "DaemonSet", path: "spec/template/spec/initContainers/args", create: false },
    FieldSpec { group: "", version: "", kind: "DaemonSet", path: "spec/template/spec/initContainers/command", create: false },
    FieldSpec { group: "", version: "", kind: "DaemonSet", path: "spec/template/spec/initContainers/env/value", create: false },
    FieldSpec { group: "", version: "", kind: "DaemonSet", path: "spec/template/spec/initContainers/volumeMounts/mountPath", create: false },
    FieldSpec { group: "", version: "", kind: "DaemonSet", path: "spec/template/spec/volumes/nfs/server", create: false },
    FieldSpec { group: "", version: "", kind: "Deployment", path: "spec/template/spec/containers/args", create: false },
    FieldSpec { group: "", version: "", kind: "Deployment", path: "spec/template/spec/containers/command", create: false },
    FieldSpec { group: "", version: "", kind: "Deployment", path: "spec/template/spec/containers/env/value", create: false },
    FieldSpec { group: "", version: "", kind: "Deployment", path: "spec/template/spec/containers/volumeMounts/mountPath", create: false },
    FieldSpec { group: "", version: "", kind: "Deployment", path: "spec/template/spec/initContainers/args", create: false },
    FieldSpec { group: "", version: "", kind: "Deployment", path: "spec/template/spec/initContainers/command", create: false },
    FieldSpec { group: "", version: "", kind: "Deployment", path: "spec/template/spec/initContainers/env/value", create: false },
    FieldSpec { group: "", version: "", kind: "Deployment", path: "spec/template/spec/initContainers/volumeMounts/mountPath", create: false },
    FieldSpec { group: "", version: "", kind: "Deployment", path: "spec/template/spec/volumes/nfs/server", create: false },
    FieldSpec { group: "", version: "", kind: "Deployment", path: "spec/template/metadata/annotations", create: false },
    FieldSpec { group: "", version: "", kind: "Ingress", path: "spec/rules/host", create: false },
    FieldSpec { group: "", version: "", kind: "Ingress", path: "spec/tls/hosts", create: false },
    FieldSpec { group: "", version: "", kind: "Ingress", path: "spec/tls/secretName", create: false },
    FieldSpec { group: "", version: "", kind: "Job", path: "spec/template/spec/containers/args", create: false },
    FieldSpec { group: "", version: "", kind: "Job", path: "spec/template/spec/containers/command", create: false },
    FieldSpec { group: "", version: "", kind: "Job", path: "spec/template/spec/containers/env/value", create: false },
    FieldSpec { group: "", version: "", kind: "Job", path: "spec/template/spec/containers/volumeMounts/mountPath", create: false },
    FieldSpec { group: "", version: "", kind: "Job", path: "spec/template/spec/initContainers/args", create: false },
    FieldSpec { group: "", version: "", kind: "Job", path: "spec/template/spec/initContainers/command", create: false },
    FieldSpec { group: "", version: "", kind: "Job", path: "spec/template/spec/initContainers/env/value", create: false },
    FieldSpec { group: "", version: "", kind: "Job", path: "spec/template/spec/initContainers/volumeMounts/mountPath", create: false },
    FieldSpec { group: "", version: "", kind: "Job", path: "spec/template/spec/volumes/nfs/server", create: false },
    FieldSpec { group: "", version: "", kind: "Pod", path: "spec/containers/args", create: false },
    FieldSpec { group: "", version: "", kind: "Pod", path: "spec/containers/command", create: false },
    FieldSpec { group: "", version: "", kind: "Pod", path: "spec/containers/env/value", create: false },
    FieldSpec { group: "", version: "", kind: "Pod", path: "spec/containers/volumeMounts/mountPath", create: false },
    FieldSpec { group: "", version: "", kind: "Pod", path: "spec/initContainers/args", create: false },
    FieldSpec { group: "", version: "", kind: "Pod", path: "spec/initContainers/command", create: false },
    FieldSpec { group: "", version: "", kind: "Pod", path: "spec/initContainers/env/value", create: false },
    FieldSpec { group: "", version: "", kind: "Pod", path: "spec/initContainers/volumeMounts/mountPath", create: false },
    FieldSpec { group: "", version: "", kind: "Pod", path: "spec/volumes/nfs/server", create: false },
    FieldSpec { group: "", version: "", kind: "ReplicaSet", path: "spec/template/spec/containers/args", create: false },
    FieldSpec { group: "", version: "", kind: "ReplicaSet", path: "spec/template/spec/containers/command", create: false },
    FieldSpec { group: "", version: "", kind: "ReplicaSet", path: "spec/template/spec/containers/env/value", create: false },
    FieldSpec { group: "", version: "", kind: "ReplicaSet", path: "spec/template/spec/containers/volumeMounts/mountPath", create: false },
    FieldSpec { group: "", version: "", kind: "ReplicaSet", path: "spec/template/spec/initContainers/args", create: false },
    FieldSpec { group: "", version: "", kind: "ReplicaSet", path: "spec/template/spec/initContainers/command", create: false },
    FieldSpec { group: "", version: "", kind: "ReplicaSet", path: "spec/template/spec/initContainers/env/value", create: false },
    FieldSpec { group: "", version: "", kind: "ReplicaSet", path: "spec/template/spec/initContainers/volumeMounts/mountPath", create: false },
    FieldSpec { group: "", version: "", kind: "ReplicaSet", path: "spec/template/spec/volumes/nfs/server", create: false },
    FieldSpec { group: "", version: "", kind: "Service", path: "spec/ports/port", create: false },
    FieldSpec { group: "", version: "", kind: "Service", path: "spec/ports/targetPort", create: false },
    FieldSpec { group: "", version: "", kind: "StatefulSet", path: "spec/template/spec/containers/args", create: false },
    FieldSpec { group: "", version: "", kind: "StatefulSet", path: "spec/template/spec/containers/command", create: false },
    FieldSpec { group: "", version: "", kind: "StatefulSet", path: "spec/template/spec/containers/env/value", create: false },
    FieldSpec { group: "", version: "", kind: "StatefulSet", path: "spec/template/spec/containers/volumeMounts/mountPath", create: false },
    FieldSpec { group: "", version: "", kind: "StatefulSet", path: "spec/template/spec/initContainers/args", create: false },
    FieldSpec { group: "", version: "", kind: "StatefulSet", path: "spec/template/spec/initContainers/command", create: false },
    FieldSpec { group: "", version: "", kind: "StatefulSet", path: "spec/template/spec/initContainers/env/value", create: false },
    FieldSpec { group: "", version: "", kind: "StatefulSet", path: "spec/template/spec/initContainers/volumeMounts/mountPath", create: false },
    FieldSpec { group: "", version: "", kind: "StatefulSet", path: "spec/volumeClaimTemplates/spec/nfs/server", create: false },
    FieldSpec { group: "", version: "", kind: "PersistentVolume", path: "spec/nfs/server", create: false },
    FieldSpec { group: "", version: "", kind: "", path: "metadata/labels", create: false },
    FieldSpec { group: "", version: "", kind: "", path: "metadata/annotations", create: false },
];

/// `nameReference:` (namereference.go): for each referral target kind, the referrer fields holding its name.
#[rustfmt::skip]
pub static NAME_REFERENCE: &[NameBackRef] = &[
    NameBackRef {
        group: "",
        version: "",
        kind: "Deployment",
        referrers: &[
            FieldSpec { group: "", version: "", kind: "HorizontalPodAutoscaler", path: "spec/scaleTargetRef/name", create: false },
        ],
    },
    NameBackRef {
        group: "",
        version: "",
        kind: "ReplicationController",
        referrers: &[
            FieldSpec { group: "", version: "", kind: "HorizontalPodAutoscaler", path: "spec/scaleTargetRef/name", create: false },
        ],
    },
    NameBackRef {
        group: "",
        version: "",
        kind: "ReplicaSet",
        referrers: &[
            FieldSpec { group: "", version: "", kind: "HorizontalPodAutoscaler", path: "spec/scaleTargetRef/name", create: false },
        ],
    },
    NameBackRef {
        group: "",
        version: "",
        kind: "StatefulSet",
        referrers: &[
            FieldSpec { group: "", version: "", kind: "HorizontalPodAutoscaler", path: "spec/scaleTargetRef/name", create: false },
        ],
    },
    NameBackRef {
        group: "",
        version: "v1",
        kind: "ConfigMap",
        referrers: &[
            FieldSpec { group: "", version: "v1", kind: "Pod", path: "spec/volumes/configMap/name", create: false },
            FieldSpec { group: "", version: "v1", kind: "Pod", path: "spec/containers/env/valueFrom/configMapKeyRef/name", create: false },
            FieldSpec { group: "", version: "v1", kind: "Pod", path: "spec/initContainers/env/valueFrom/configMapKeyRef/name", create: false },
            FieldSpec { group: "", version: "v1", kind: "Pod", path: "spec/containers/envFrom/configMapRef/name", create: false },
            FieldSpec { group: "", version: "v1", kind: "Pod", path: "spec/initContainers/envFrom/configMapRef/name", create: false },
            FieldSpec { group: "", version: "v1", kind: "Pod", path: "spec/volumes/projected/sources/configMap/name", create: false },
            FieldSpec { group: "", version: "", kind: "PodTemplate", path: "template/spec/volumes/configMap/name", create: false },
            FieldSpec { group: "", version: "", kind: "PodTemplate", path: "template/spec/containers/env/valueFrom/configMapKeyRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "PodTemplate", path: "template/spec/initContainers/env/valueFrom/configMapKeyRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "PodTemplate", path: "template/spec/containers/envFrom/configMapRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "PodTemplate", path: "template/spec/initContainers/envFrom/configMapRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "PodTemplate", path: "template/spec/volumes/projected/sources/configMap/name", create: false },
            FieldSpec { group: "", version: "", kind: "Deployment", path: "spec/template/spec/volumes/configMap/name", create: false },
            FieldSpec { group: "", version: "", kind: "Deployment", path: "spec/template/spec/containers/env/valueFrom/configMapKeyRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "Deployment", path: "spec/template/spec/initContainers/env/valueFrom/configMapKeyRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "Deployment", path: "spec/template/spec/containers/envFrom/configMapRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "Deployment", path: "spec/template/spec/initContainers/envFrom/configMapRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "Deployment", path: "spec/template/spec/volumes/projected/sources/configMap/name", create: false },
            FieldSpec { group: "", version: "", kind: "ReplicaSet", path: "spec/template/spec/volumes/configMap/name", create: false },
            FieldSpec { group: "", version: "", kind: "ReplicaSet", path: "spec/template/spec/containers/env/valueFrom/configMapKeyRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "ReplicaSet", path: "spec/template/spec/initContainers/env/valueFrom/configMapKeyRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "ReplicaSet", path: "spec/template/spec/containers/envFrom/configMapRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "ReplicaSet", path: "spec/template/spec/initContainers/envFrom/configMapRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "ReplicaSet", path: "spec/template/spec/volumes/projected/sources/configMap/name", create: false },
            FieldSpec { group: "", version: "", kind: "DaemonSet", path: "spec/template/spec/volumes/configMap/name", create: false },
            FieldSpec { group: "", version: "", kind: "DaemonSet", path: "spec/template/spec/containers/env/valueFrom/configMapKeyRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "DaemonSet", path: "spec/template/spec/initContainers/env/valueFrom/configMapKeyRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "DaemonSet", path: "spec/template/spec/containers/envFrom/configMapRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "DaemonSet", path: "spec/template/spec/initContainers/envFrom/configMapRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "DaemonSet", path: "spec/template/spec/volumes/projected/sources/configMap/name", create: false },
            FieldSpec { group: "", version: "", kind: "StatefulSet", path: "spec/template/spec/volumes/configMap/name", create: false },
            FieldSpec { group: "", version: "", kind: "StatefulSet", path: "spec/template/spec/containers/env/valueFrom/configMapKeyRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "StatefulSet", path: "spec/template/spec/initContainers/env/valueFrom/configMapKeyRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "StatefulSet", path: "spec/template/spec/containers/envFrom/configMapRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "StatefulSet", path: "spec/template/spec/initContainers/envFrom/configMapRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "StatefulSet", path: "spec/template/spec/volumes/projected/sources/configMap/name", create: false },
            FieldSpec { group: "", version: "", kind: "Job", path: "spec/template/spec/volumes/configMap/name", create: false },
            FieldSpec { group: "", version: "", kind: "Job", path: "spec/template/spec/containers/env/valueFrom/configMapKeyRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "Job", path: "spec/template/spec/initContainers/env/valueFrom/configMapKeyRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "Job", path: "spec/template/spec/containers/envFrom/configMapRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "Job", path: "spec/template/spec/initContainers/envFrom/configMapRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "Job", path: "spec/template/spec/volumes/projected/sources/configMap/name", create: false },
            FieldSpec { group: "", version: "", kind: "CronJob", path: "spec/jobTemplate/spec/template/spec/volumes/configMap/name", create: false },
            FieldSpec { group: "", version: "", kind: "CronJob", path: "spec/jobTemplate/spec/template/spec/volumes/projected/sources/configMap/name", create: false },
            FieldSpec { group: "", version: "", kind: "CronJob", path: "spec/jobTemplate/spec/template/spec/containers/env/valueFrom/configMapKeyRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "CronJob", path: "spec/jobTemplate/spec/template/spec/initContainers/env/valueFrom/configMapKeyRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "CronJob", path: "spec/jobTemplate/spec/template/spec/containers/envFrom/configMapRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "CronJob", path: "spec/jobTemplate/spec/template/spec/initContainers/envFrom/configMapRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "Node", path: "spec/configSource/configMap", create: false },
            FieldSpec { group: "", version: "", kind: "Role", path: "rules/resourceNames", create: false },
            FieldSpec { group: "", version: "", kind: "ClusterRole", path: "rules/resourceNames", create: false },
            FieldSpec { group: "", version: "", kind: "Ingress", path: "metadata/annotations/nginx.ingress.kubernetes.io\\/fastcgi-params-configmap", create: false },
        ],
    },
    NameBackRef {
        group: "",
        version: "v1",
        kind: "Secret",
        referrers: &[
            FieldSpec { group: "", version: "v1", kind: "Pod", path: "spec/volumes/secret/secretName", create: false },
            FieldSpec { group: "", version: "v1", kind: "Pod", path: "spec/containers/env/valueFrom/secretKeyRef/name", create: false },
            FieldSpec { group: "", version: "v1", kind: "Pod", path: "spec/initContainers/env/valueFrom/secretKeyRef/name", create: false },
            FieldSpec { group: "", version: "v1", kind: "Pod", path: "spec/containers/envFrom/secretRef/name", create: false },
            FieldSpec { group: "", version: "v1", kind: "Pod", path: "spec/initContainers/envFrom/secretRef/name", create: false },
            FieldSpec { group: "", version: "v1", kind: "Pod", path: "spec/imagePullSecrets/name", create: false },
            FieldSpec { group: "", version: "v1", kind: "Pod", path: "spec/volumes/projected/sources/secret/name", create: false },
            FieldSpec { group: "", version: "", kind: "PodTemplate", path: "template/spec/volumes/secret/secretName", create: false },
            FieldSpec { group: "", version: "", kind: "PodTemplate", path: "template/spec/containers/env/valueFrom/secretKeyRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "PodTemplate", path: "template/spec/initContainers/env/valueFrom/secretKeyRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "PodTemplate", path: "template/spec/containers/envFrom/secretRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "PodTemplate", path: "template/spec/initContainers/envFrom/secretRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "PodTemplate", path: "template/spec/imagePullSecrets/name", create: false },
            FieldSpec { group: "", version: "", kind: "PodTemplate", path: "template/spec/volumes/projected/sources/secret/name", create: false },
            FieldSpec { group: "", version: "", kind: "Deployment", path: "spec/template/spec/volumes/secret/secretName", create: false },
            FieldSpec { group: "", version: "", kind: "Deployment", path: "spec/template/spec/containers/env/valueFrom/secretKeyRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "Deployment", path: "spec/template/spec/initContainers/env/valueFrom/secretKeyRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "Deployment", path: "spec/template/spec/containers/envFrom/secretRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "Deployment", path: "spec/template/spec/initContainers/envFrom/secretRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "Deployment", path: "spec/template/spec/imagePullSecrets/name", create: false },
            FieldSpec { group: "", version: "", kind: "Deployment", path: "spec/template/spec/volumes/projected/sources/secret/name", create: false },
            FieldSpec { group: "", version: "", kind: "ReplicaSet", path: "spec/template/spec/volumes/secret/secretName", create: false },
            FieldSpec { group: "", version: "", kind: "ReplicaSet", path: "spec/template/spec/containers/env/valueFrom/secretKeyRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "ReplicaSet", path: "spec/template/spec/initContainers/env/valueFrom/secretKeyRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "ReplicaSet", path: "spec/template/spec/containers/envFrom/secretRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "ReplicaSet", path: "spec/template/spec/initContainers/envFrom/secretRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "ReplicaSet", path: "spec/template/spec/imagePullSecrets/name", create: false },
            FieldSpec { group: "", version: "", kind: "ReplicaSet", path: "spec/template/spec/volumes/projected/sources/secret/name", create: false },
            FieldSpec { group: "", version: "", kind: "DaemonSet", path: "spec/template/spec/volumes/secret/secretName", create: false },
            FieldSpec { group: "", version: "", kind: "DaemonSet", path: "spec/template/spec/containers/env/valueFrom/secretKeyRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "DaemonSet", path: "spec/template/spec/initContainers/env/valueFrom/secretKeyRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "DaemonSet", path: "spec/template/spec/containers/envFrom/secretRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "DaemonSet", path: "spec/template/spec/initContainers/envFrom/secretRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "DaemonSet", path: "spec/template/spec/imagePullSecrets/name", create: false },
            FieldSpec { group: "", version: "", kind: "DaemonSet", path: "spec/template/spec/volumes/projected/sources/secret/name", create: false },
            FieldSpec { group: "", version: "", kind: "StatefulSet", path: "spec/template/spec/volumes/secret/secretName", create: false },
            FieldSpec { group: "", version: "", kind: "StatefulSet", path: "spec/template/spec/containers/env/valueFrom/secretKeyRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "StatefulSet", path: "spec/template/spec/initContainers/env/valueFrom/secretKeyRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "StatefulSet", path: "spec/template/spec/containers/envFrom/secretRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "StatefulSet", path: "spec/template/spec/initContainers/envFrom/secretRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "StatefulSet", path: "spec/template/spec/imagePullSecrets/name", create: false },
            FieldSpec { group: "", version: "", kind: "StatefulSet", path: "spec/template/spec/volumes/projected/sources/secret/name", create: false },
            FieldSpec { group: "", version: "", kind: "Job", path: "spec/template/spec/volumes/secret/secretName", create: false },
            FieldSpec { group: "", version: "", kind: "Job", path: "spec/template/spec/containers/env/valueFrom/secretKeyRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "Job", path: "spec/template/spec/initContainers/env/valueFrom/secretKeyRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "Job", path: "spec/template/spec/containers/envFrom/secretRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "Job", path: "spec/template/spec/initContainers/envFrom/secretRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "Job", path: "spec/template/spec/imagePullSecrets/name", create: false },
            FieldSpec { group: "", version: "", kind: "Job", path: "spec/template/spec/volumes/projected/sources/secret/name", create: false },
            FieldSpec { group: "", version: "", kind: "CronJob", path: "spec/jobTemplate/spec/template/spec/volumes/secret/secretName", create: false },
            FieldSpec { group: "", version: "", kind: "CronJob", path: "spec/jobTemplate/spec/template/spec/volumes/projected/sources/secret/name", create: false },
            FieldSpec { group: "", version: "", kind: "CronJob", path: "spec/jobTemplate/spec/template/spec/containers/env/valueFrom/secretKeyRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "CronJob", path: "spec/jobTemplate/spec/template/spec/initContainers/env/valueFrom/secretKeyRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "CronJob", path: "spec/jobTemplate/spec/template/spec/containers/envFrom/secretRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "CronJob", path: "spec/jobTemplate/spec/template/spec/initContainers/envFrom/secretRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "CronJob", path: "spec/jobTemplate/spec/template/spec/imagePullSecrets/name", create: false },
            FieldSpec { group: "", version: "", kind: "Ingress", path: "spec/tls/secretName", create: false },
            FieldSpec { group: "", version: "", kind: "Ingress", path: "metadata/annotations/ingress.kubernetes.io\\/auth-secret", create: false },
            FieldSpec { group: "", version: "", kind: "Ingress", path: "metadata/annotations/nginx.ingress.kubernetes.io\\/auth-secret", create: false },
            FieldSpec { group: "", version: "", kind: "Ingress", path: "metadata/annotations/nginx.ingress.kubernetes.io\\/auth-tls-secret", create: false },
            FieldSpec { group: "", version: "", kind: "Ingress", path: "spec/tls/secretName", create: false },
            FieldSpec { group: "", version: "", kind: "ServiceAccount", path: "imagePullSecrets/name", create: false },
            FieldSpec { group: "", version: "", kind: "StorageClass", path: "parameters/secretName", create: false },
            FieldSpec { group: "", version: "", kind: "StorageClass", path: "parameters/adminSecretName", create: false },
            FieldSpec { group: "", version: "", kind: "StorageClass", path: "parameters/userSecretName", create: false },
            FieldSpec { group: "", version: "", kind: "StorageClass", path: "parameters/secretRef", create: false },
            FieldSpec { group: "", version: "", kind: "Role", path: "rules/resourceNames", create: false },
            FieldSpec { group: "", version: "", kind: "ClusterRole", path: "rules/resourceNames", create: false },
            FieldSpec { group: "serving.knative.dev", version: "v1", kind: "Service", path: "spec/template/spec/containers/env/valueFrom/secretKeyRef/name", create: false },
            FieldSpec { group: "", version: "", kind: "PersistentVolume", path: "spec/azureFile/secretName", create: false },
        ],
    },
    NameBackRef {
        group: "",
        version: "v1",
        kind: "Service",
        referrers: &[
            FieldSpec { group: "apps", version: "", kind: "StatefulSet", path: "spec/serviceName", create: false },
            FieldSpec { group: "", version: "", kind: "Ingress", path: "spec/rules/http/paths/backend/serviceName", create: false },
            FieldSpec { group: "", version: "", kind: "Ingress", path: "spec/backend/serviceName", create: false },
            FieldSpec { group: "", version: "", kind: "Ingress", path: "spec/rules/http/paths/backend/service/name", create: false },
            FieldSpec { group: "", version: "", kind: "Ingress", path: "spec/defaultBackend/service/name", create: false },
            FieldSpec { group: "apiregistration.k8s.io", version: "", kind: "APIService", path: "spec/service/name", create: false },
            FieldSpec { group: "admissionregistration.k8s.io", version: "", kind: "ValidatingWebhookConfiguration", path: "webhooks/clientConfig/service", create: false },
            FieldSpec { group: "admissionregistration.k8s.io", version: "", kind: "MutatingWebhookConfiguration", path: "webhooks/clientConfig/service", create: false },
        ],
    },
    NameBackRef {
        group: "rbac.authorization.k8s.io",
        version: "",
        kind: "Role",
        referrers: &[
            FieldSpec { group: "rbac.authorization.k8s.io", version: "", kind: "RoleBinding", path: "roleRef/name", create: false },
        ],
    },
    NameBackRef {
        group: "rbac.authorization.k8s.io",
        version: "",
        kind: "ClusterRole",
        referrers: &[
            FieldSpec { group: "rbac.authorization.k8s.io", version: "", kind: "RoleBinding", path: "roleRef/name", create: false },
            FieldSpec { group: "rbac.authorization.k8s.io", version: "", kind: "ClusterRoleBinding", path: "roleRef/name", create: false },
        ],
    },
    NameBackRef {
        group: "",
        version: "v1",
        kind: "ServiceAccount",
        referrers: &[
            FieldSpec { group: "rbac.authorization.k8s.io", version: "", kind: "RoleBinding", path: "subjects", create: false },
            FieldSpec { group: "rbac.authorization.k8s.io", version: "", kind: "ClusterRoleBinding", path: "subjects", create: false },
            FieldSpec { group: "", version: "", kind: "Pod", path: "spec/serviceAccountName", create: false },
            FieldSpec { group: "", version: "", kind: "StatefulSet", path: "spec/template/spec/serviceAccountName", create: false },
            FieldSpec { group: "", version: "", kind: "Deployment", path: "spec/template/spec/serviceAccountName", create: false },
            FieldSpec { group: "", version: "", kind: "ReplicationController", path: "spec/template/spec/serviceAccountName", create: false },
            FieldSpec { group: "", version: "", kind: "CronJob", path: "spec/jobTemplate/spec/template/spec/serviceAccountName", create: false },
            FieldSpec { group: "", version: "", kind: "Job", path: "spec/template/spec/serviceAccountName", create: false },
            FieldSpec { group: "", version: "", kind: "DaemonSet", path: "spec/template/spec/serviceAccountName", create: false },
        ],
    },
    NameBackRef {
        group: "",
        version: "v1",
        kind: "PersistentVolumeClaim",
        referrers: &[
            FieldSpec { group: "", version: "", kind: "Pod", path: "spec/volumes/persistentVolumeClaim/claimName", create: false },
            FieldSpec { group: "", version: "", kind: "StatefulSet", path: "spec/template/spec/volumes/persistentVolumeClaim/claimName", create: false },
            FieldSpec { group: "", version: "", kind: "Deployment", path: "spec/template/spec/volumes/persistentVolumeClaim/claimName", create: false },
            FieldSpec { group: "", version: "", kind: "ReplicationController", path: "spec/template/spec/volumes/persistentVolumeClaim/claimName", create: false },
            FieldSpec { group: "", version: "", kind: "CronJob", path: "spec/jobTemplate/spec/template/spec/volumes/persistentVolumeClaim/claimName", create: false },
            FieldSpec { group: "", version: "", kind: "Job", path: "spec/template/spec/volumes/persistentVolumeClaim/claimName", create: false },
            FieldSpec { group: "", version: "", kind: "DaemonSet", path: "spec/template/spec/volumes/persistentVolumeClaim/claimName", create: false },
        ],
    },
    NameBackRef {
        group: "",
        version: "v1",
        kind: "PersistentVolume",
        referrers: &[
            FieldSpec { group: "", version: "", kind: "PersistentVolumeClaim", path: "spec/volumeName", create: false },
            FieldSpec { group: "", version: "", kind: "ClusterRole", path: "rules/resourceNames", create: false },
        ],
    },
    NameBackRef {
        group: "storage.k8s.io",
        version: "v1",
        kind: "StorageClass",
        referrers: &[
            FieldSpec { group: "", version: "", kind: "PersistentVolume", path: "spec/storageClassName", create: false },
            FieldSpec { group: "", version: "", kind: "PersistentVolumeClaim", path: "spec/storageClassName", create: false },
            FieldSpec { group: "", version: "", kind: "StatefulSet", path: "spec/volumeClaimTemplates/spec/storageClassName", create: false },
        ],
    },
    NameBackRef {
        group: "scheduling.k8s.io",
        version: "v1",
        kind: "PriorityClass",
        referrers: &[
            FieldSpec { group: "", version: "", kind: "Pod", path: "spec/priorityClassName", create: false },
            FieldSpec { group: "", version: "", kind: "StatefulSet", path: "spec/template/spec/priorityClassName", create: false },
            FieldSpec { group: "", version: "", kind: "Deployment", path: "spec/template/spec/priorityClassName", create: false },
            FieldSpec { group: "", version: "", kind: "ReplicationController", path: "spec/template/spec/priorityClassName", create: false },
            FieldSpec { group: "", version: "", kind: "CronJob", path: "spec/jobTemplate/spec/template/spec/priorityClassName", create: false },
            FieldSpec { group: "", version: "", kind: "Job", path: "spec/template/spec/priorityClassName", create: false },
            FieldSpec { group: "", version: "", kind: "DaemonSet", path: "spec/template/spec/priorityClassName", create: false },
        ],
    },
    NameBackRef {
        group: "networking.k8s.io/v1",
        version: "v1",
        kind: "IngressClass",
        referrers: &[
            FieldSpec { group: "", version: "", kind: "Ingress", path: "spec/ingressClassName", create: false },
        ],
    },
    NameBackRef {
        group: "admissionregistration.k8s.io",
        version: "",
        kind: "ValidatingAdmissionPolicy",
        referrers: &[
            FieldSpec { group: "admissionregistration.k8s.io", version: "", kind: "ValidatingAdmissionPolicyBinding", path: "spec/policyName", create: false },
        ],
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    fn has(list: &[FieldSpec], group: &str, kind: &str, path: &str, create: bool) -> bool {
        list.iter()
            .any(|f| f.group == group && f.kind == kind && f.path == path && f.create == create)
    }

    #[test]
    fn known_entries() {
        assert_eq!(COMMON_LABELS.len(), 32);
        assert_eq!(COMMON_LABELS[0].path, "spec/selector");
        assert_eq!(COMMON_LABELS[0].kind, "Service");
        assert_eq!(COMMON_LABELS[0].version, "v1");
        assert!(has(
            COMMON_LABELS,
            "networking.k8s.io",
            "NetworkPolicy",
            "spec/podSelector/matchLabels",
            false
        ));
        assert!(has(COMMON_LABELS, "", "", "metadata/labels", true));
        assert_eq!(METADATA_LABELS.len(), 10);
        assert_eq!(METADATA_LABELS[0].path, "metadata/labels");
        assert!(has(
            METADATA_LABELS,
            "apps",
            "StatefulSet",
            "spec/volumeClaimTemplates[]/metadata/labels",
            true
        ));
        assert_eq!(TEMPLATE_LABELS.len(), METADATA_LABELS.len());
        assert_eq!(COMMON_LABELS[22..].len(), METADATA_LABELS.len());
        assert_eq!(COMMON_LABELS[22].path, "metadata/labels");
        assert!(has(
            COMMON_ANNOTATIONS,
            "batch",
            "CronJob",
            "spec/jobTemplate/spec/template/metadata/annotations",
            true
        ));
        assert_eq!(NAME_PREFIX.len(), 1);
        assert_eq!(NAME_SUFFIX[0].path, "metadata/name");
        assert!(!NAME_SUFFIX[0].create);
        assert!(has(
            NAMESPACE,
            "apiextensions.k8s.io",
            "CustomResourceDefinition",
            "spec/conversion/webhook/clientConfig/service/namespace",
            false
        ));
        assert_eq!(IMAGES[2].path, "spec/template/spec/containers[]/image");
        assert_eq!(REPLICAS.len(), 4);
        assert_eq!(VAR_REFERENCE.last().unwrap().path, "metadata/annotations");
    }

    #[test]
    fn name_reference() {
        assert_eq!(NAME_REFERENCE.len(), 16);
        let cm = NAME_REFERENCE
            .iter()
            .find(|b| b.kind == "ConfigMap")
            .unwrap();
        assert_eq!(cm.version, "v1");
        assert_eq!(cm.referrers[0].path, "spec/volumes/configMap/name");
        assert_eq!(
            cm.referrers.last().unwrap().path,
            "metadata/annotations/nginx.ingress.kubernetes.io\\/fastcgi-params-configmap"
        );
        let ic = NAME_REFERENCE
            .iter()
            .find(|b| b.kind == "IngressClass")
            .unwrap();
        assert_eq!(ic.group, "networking.k8s.io/v1");
        let sa = NAME_REFERENCE
            .iter()
            .find(|b| b.kind == "ServiceAccount")
            .unwrap();
        assert!(has(
            sa.referrers,
            "rbac.authorization.k8s.io",
            "RoleBinding",
            "subjects",
            false
        ));
        let last = NAME_REFERENCE.last().unwrap();
        assert_eq!(last.kind, "ValidatingAdmissionPolicy");
        assert_eq!(last.referrers[0].path, "spec/policyName");
    }
}
