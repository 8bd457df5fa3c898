//! Typed models of the Flux custom resources flate renders and checks:
//! Kustomization v1, HelmRelease v2, OCIRepository v1, GitRepository v1,
//! HelmRepository v1 and HelmChart v1, field for field as the CRDs of Flux
//! v2.9 define them (kustomize-controller v1.9, helm-controller v1.6,
//! source-controller v1.9: `config/crd/bases/*.yaml` in those repositories);
//! and the other kinds a Flux repository applies: Bucket v1
//! (source-controller v1.9), Alert and Provider v1beta3 and Receiver v1
//! (notification-controller v1.9), ImageRepository, ImagePolicy and
//! ImageUpdateAutomation v1 (image-reflector-controller and
//! image-automation-controller v1.2), ArtifactGenerator v1beta1
//! (source-watcher v2.2), and Flux Operator's FluxInstance, ResourceSet and
//! ResourceSetInputProvider v1 (flux-operator v0.58). The CRDs' CEL rules
//! (`x-kubernetes-validations`) are not modelled. An Alert's or Receiver's
//! object kinds include Flux Operator's, which the operator adds to the
//! notification CRDs of the Flux it installs.
//!
//! They are the single source of the Flux JSON Schemas in `schemas/`:
//! `tools/gen-schemas.sh` derives the schemas from these types (the
//! `schemars` feature), so the fields the validator accepts are the fields
//! these types spell. The paths the Flux layer reads (`src/flux/model.rs`,
//! `src/flux/helm.rs`) are asserted to exist here by
//! `tests/check_schemas.rs`.
//!
//! This file depends on serde, serde_json and (optionally) schemars only:
//! the generator compiles it on its own.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Go `time.Duration` strings as the Flux CRDs accept them.
pub const DURATION: &str = r"^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$";
/// Source timeouts: no hours.
pub const SHORT_DURATION: &str = r"^([0-9]+(\.[0-9]+)?(ms|s|m))+$";

pub type StringMap = BTreeMap<String, String>;

/// The metadata fields flate reads; the generated schema replaces this
/// with the full Kubernetes `ObjectMeta`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct ObjectMeta {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<StringMap>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<StringMap>,
}

// ---------------------------------------------------------------- shared

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct LocalObjectReference {
    pub name: String,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SecretKeyReference {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    pub name: String,
}

/// `kubeConfig`: exactly one of `configMapRef` and `secretRef`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(
    feature = "schemars",
    schemars(extend("oneOf" = [{"required": ["configMapRef"]}, {"required": ["secretRef"]}]))
)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KubeConfigReference {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_map_ref: Option<LocalObjectReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_ref: Option<SecretKeyReference>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CommonMetadata {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<StringMap>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<StringMap>,
}

/// A kustomize selector (`target:` of a patch or an ignore rule). Name
/// and namespace are regular expressions, anchored.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Selector {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotation_selector: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_selector: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// A strategic-merge or JSON 6902 patch with an optional target.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Patch {
    pub patch: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Selector>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Image {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_tag: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DependencyReference {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready_expr: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CustomHealthCheck {
    pub api_version: String,
    pub current: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_progress: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct IgnoreRule {
    pub paths: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Selector>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum SecretOrConfigMap {
    Secret,
    ConfigMap,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct OidcIdentityMatch {
    pub issuer: String,
    pub subject: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum VerificationProvider {
    Cosign,
    Notation,
}

/// `verify` of an OCIRepository.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OciVerification {
    #[serde(
        default,
        rename = "matchOIDCIdentity",
        skip_serializing_if = "Option::is_none"
    )]
    pub match_oidc_identity: Option<Vec<OidcIdentityMatch>>,
    /// Defaults to `cosign`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<VerificationProvider>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_ref: Option<LocalObjectReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trusted_root_secret_ref: Option<LocalObjectReference>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum CloudProvider {
    Generic,
    Aws,
    Azure,
    Gcp,
}

// ------------------------------------------------ kustomize.toolkit.fluxcd.io

/// `kustomize.toolkit.fluxcd.io/v1` Kustomization.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Kustomization {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    pub spec: KustomizationSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum BuildMetadata {
    OriginAnnotations,
    TransformerAnnotations,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum DeletionPolicy {
    MirrorPrune,
    Delete,
    WaitForTermination,
    Orphan,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum DecryptionProvider {
    Sops,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Decryption {
    pub provider: DecryptionProvider,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_ref: Option<LocalObjectReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_account_name: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NamespacedObjectKindReference {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    pub kind: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum KustomizationSourceKind {
    #[serde(rename = "OCIRepository")]
    OciRepository,
    GitRepository,
    Bucket,
    ExternalArtifact,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KustomizationSourceReference {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    pub kind: KustomizationSourceKind,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SubstituteReference {
    pub kind: SecretOrConfigMap,
    #[cfg_attr(feature = "schemars", schemars(length(min = 1, max = 253)))]
    pub name: String,
    /// Defaults to false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optional: Option<bool>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum SubstituteStrategy {
    WithVariables,
    Always,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PostBuild {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub substitute: Option<StringMap>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub substitute_from: Option<Vec<SubstituteReference>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub substitute_strategy: Option<SubstituteStrategy>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KustomizationSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build_metadata: Option<Vec<BuildMetadata>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub common_metadata: Option<CommonMetadata>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub components: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decryption: Option<Decryption>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletion_policy: Option<DeletionPolicy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depends_on: Option<Vec<DependencyReference>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub force: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health_check_exprs: Option<Vec<CustomHealthCheck>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health_checks: Option<Vec<NamespacedObjectKindReference>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignore: Option<Vec<IgnoreRule>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignore_missing_components: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub images: Option<Vec<Image>>,
    #[cfg_attr(feature = "schemars", schemars(pattern(DURATION)))]
    pub interval: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kube_config: Option<KubeConfigReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(length(min = 1, max = 200)))]
    pub name_prefix: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(length(min = 1, max = 200)))]
    pub name_suffix: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patches: Option<Vec<Patch>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub post_build: Option<PostBuild>,
    pub prune: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(pattern(DURATION)))]
    pub retry_interval: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_account_name: Option<String>,
    pub source_ref: KustomizationSourceReference,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(length(min = 1, max = 63)))]
    pub target_namespace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(pattern(DURATION)))]
    pub timeout: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait: Option<bool>,
}

// ------------------------------------------------- source.toolkit.fluxcd.io

/// `source.toolkit.fluxcd.io/v1` OCIRepository.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OciRepository {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    pub spec: OciRepositorySpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum LayerOperation {
    Extract,
    Copy,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OciLayerSelector {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation: Option<LayerOperation>,
}

/// The artifact reference. Flux resolves `digest` first, then `semver`,
/// then `tag`: a digest silently wins over a tag set next to it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OciRepositoryRef {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub semver: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub semver_filter: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OciRepositorySpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cert_secret_ref: Option<LocalObjectReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignore: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub insecure: Option<bool>,
    #[cfg_attr(feature = "schemars", schemars(pattern(DURATION)))]
    pub interval: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layer_selector: Option<OciLayerSelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<CloudProvider>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy_secret_ref: Option<LocalObjectReference>,
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<OciRepositoryRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_ref: Option<LocalObjectReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_account_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(pattern(SHORT_DURATION)))]
    pub timeout: Option<String>,
    #[cfg_attr(feature = "schemars", schemars(pattern(r"^oci://.*$")))]
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<OciVerification>,
}

/// `source.toolkit.fluxcd.io/v1` GitRepository.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GitRepository {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    pub spec: GitRepositorySpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Value>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GitRepositoryInclude {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_path: Option<String>,
    pub repository: LocalObjectReference,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_path: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum GitProvider {
    Generic,
    Aws,
    Azure,
    Github,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct GitRepositoryRef {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub semver: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum GitVerifyMode {
    #[serde(rename = "head")]
    HeadLower,
    #[serde(rename = "HEAD")]
    Head,
    Tag,
    TagAndHEAD,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GitRepositoryVerification {
    /// Defaults to `HEAD`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<GitVerifyMode>,
    pub secret_ref: LocalObjectReference,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GitRepositorySpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignore: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include: Option<Vec<GitRepositoryInclude>>,
    #[cfg_attr(feature = "schemars", schemars(pattern(DURATION)))]
    pub interval: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<GitProvider>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy_secret_ref: Option<LocalObjectReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recurse_submodules: Option<bool>,
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<GitRepositoryRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_ref: Option<LocalObjectReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_account_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sparse_checkout: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(pattern(SHORT_DURATION)))]
    pub timeout: Option<String>,
    #[cfg_attr(feature = "schemars", schemars(pattern(r"^(http|https|ssh)://.*$")))]
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<GitRepositoryVerification>,
}

/// `source.toolkit.fluxcd.io/v1` HelmRepository.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HelmRepository {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    pub spec: HelmRepositorySpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Value>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NamespaceSelector {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_labels: Option<StringMap>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AccessFrom {
    pub namespace_selectors: Vec<NamespaceSelector>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum HelmRepositoryType {
    Default,
    Oci,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HelmRepositorySpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_from: Option<AccessFrom>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cert_secret_ref: Option<LocalObjectReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub insecure: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(pattern(DURATION)))]
    pub interval: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass_credentials: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<CloudProvider>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_ref: Option<LocalObjectReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(pattern(SHORT_DURATION)))]
    pub timeout: Option<String>,
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub repository_type: Option<HelmRepositoryType>,
    #[cfg_attr(feature = "schemars", schemars(pattern(r"^(http|https|oci)://.*$")))]
    pub url: String,
}

/// `source.toolkit.fluxcd.io/v1` HelmChart.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HelmChart {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    pub spec: HelmChartSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum ChartSourceKind {
    HelmRepository,
    GitRepository,
    Bucket,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LocalHelmChartSourceReference {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    pub kind: ChartSourceKind,
    pub name: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum ReconcileStrategy {
    ChartVersion,
    Revision,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HelmChartSpec {
    pub chart: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignore_missing_values_files: Option<bool>,
    #[cfg_attr(feature = "schemars", schemars(pattern(DURATION)))]
    pub interval: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reconcile_strategy: Option<ReconcileStrategy>,
    pub source_ref: LocalHelmChartSourceReference,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values_files: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<HelmChartVerification>,
    /// A semver range; defaults to `*`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// `verify` of a HelmChart (an OCIRepository's, without a trusted root).
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HelmChartVerification {
    #[serde(
        default,
        rename = "matchOIDCIdentity",
        skip_serializing_if = "Option::is_none"
    )]
    pub match_oidc_identity: Option<Vec<OidcIdentityMatch>>,
    /// Defaults to `cosign`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<VerificationProvider>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_ref: Option<LocalObjectReference>,
}

// --------------------------------------------------- helm.toolkit.fluxcd.io

/// `helm.toolkit.fluxcd.io/v2` HelmRelease.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HelmRelease {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    pub spec: HelmReleaseSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Value>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CrossNamespaceChartSourceReference {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    pub kind: ChartSourceKind,
    #[cfg_attr(feature = "schemars", schemars(length(min = 1, max = 253)))]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(length(min = 1, max = 63)))]
    pub namespace: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HelmChartTemplateVerification {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<VerificationProvider>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_ref: Option<LocalObjectReference>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HelmChartTemplateSpec {
    #[cfg_attr(feature = "schemars", schemars(length(min = 1, max = 2048)))]
    pub chart: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignore_missing_values_files: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(pattern(DURATION)))]
    pub interval: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reconcile_strategy: Option<ReconcileStrategy>,
    pub source_ref: CrossNamespaceChartSourceReference,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values_files: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<HelmChartTemplateVerification>,
    /// A semver range; defaults to `*`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HelmChartTemplate {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<CommonMetadata>,
    pub spec: HelmChartTemplateSpec,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum ChartRefKind {
    #[serde(rename = "OCIRepository")]
    OciRepository,
    HelmChart,
    ExternalArtifact,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ChartReference {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    pub kind: ChartRefKind,
    #[cfg_attr(feature = "schemars", schemars(length(min = 1, max = 253)))]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(length(min = 1, max = 63)))]
    pub namespace: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum DriftDetectionMode {
    Enabled,
    Warn,
    Disabled,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct DriftDetection {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignore: Option<Vec<IgnoreRule>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<DriftDetectionMode>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum CrdsPolicy {
    Skip,
    Create,
    CreateReplace,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InstallRemediation {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignore_test_failures: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remediate_last_failure: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retries: Option<i64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum StrategyName {
    RemediateOnFailure,
    RetryOnFailure,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Strategy {
    pub name: StrategyName,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(pattern(DURATION)))]
    pub retry_interval: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Install {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crds: Option<CrdsPolicy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub create_namespace: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disable_hooks: Option<bool>,
    #[serde(
        default,
        rename = "disableOpenAPIValidation",
        skip_serializing_if = "Option::is_none"
    )]
    pub disable_openapi_validation: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disable_schema_validation: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disable_take_ownership: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disable_wait: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disable_wait_for_jobs: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remediation: Option<InstallRemediation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replace: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_side_apply: Option<bool>,
    #[serde(default, rename = "skipCRDs", skip_serializing_if = "Option::is_none")]
    pub skip_crds: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<Strategy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(pattern(DURATION)))]
    pub timeout: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum ServerSideApplyMode {
    Enabled,
    Disabled,
    Auto,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum RemediationStrategy {
    Rollback,
    Uninstall,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpgradeRemediation {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignore_test_failures: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remediate_last_failure: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retries: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<RemediationStrategy>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum ChartNameChangeStrategy {
    InPlaceUpdate,
    Reinstall,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Upgrade {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chart_name_change_strategy: Option<ChartNameChangeStrategy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cleanup_on_fail: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crds: Option<CrdsPolicy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disable_hooks: Option<bool>,
    #[serde(
        default,
        rename = "disableOpenAPIValidation",
        skip_serializing_if = "Option::is_none"
    )]
    pub disable_openapi_validation: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disable_schema_validation: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disable_take_ownership: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disable_wait: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disable_wait_for_jobs: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub force: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preserve_values: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remediation: Option<UpgradeRemediation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_side_apply: Option<ServerSideApplyMode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<Strategy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(pattern(DURATION)))]
    pub timeout: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Rollback {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cleanup_on_fail: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disable_hooks: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disable_wait: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disable_wait_for_jobs: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub force: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recreate: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_side_apply: Option<ServerSideApplyMode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(pattern(DURATION)))]
    pub timeout: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TestFilter {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude: Option<bool>,
    #[cfg_attr(feature = "schemars", schemars(length(min = 1, max = 253)))]
    pub name: String,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Test {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enable: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filters: Option<Vec<TestFilter>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignore_failures: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(pattern(DURATION)))]
    pub timeout: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum DeletionPropagation {
    Background,
    Foreground,
    Orphan,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Uninstall {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletion_propagation: Option<DeletionPropagation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disable_hooks: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disable_wait: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep_history: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(pattern(DURATION)))]
    pub timeout: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct KustomizePostRenderer {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub images: Option<Vec<Image>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patches: Option<Vec<Patch>>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PostRenderer {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kustomize: Option<KustomizePostRenderer>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum PostRenderStrategy {
    Nohooks,
    Combined,
    Separate,
}

/// One `valuesFrom` entry.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ValuesReference {
    pub kind: SecretOrConfigMap,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub literal: Option<bool>,
    #[cfg_attr(feature = "schemars", schemars(length(min = 1, max = 253)))]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optional: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "schemars",
        schemars(length(max = 250), pattern(r"^([a-zA-Z0-9_\-.\\\/]|\[[0-9]{1,5}\])+$"))
    )]
    pub target_path: Option<String>,
    /// Defaults to `values.yaml`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "schemars",
        schemars(length(max = 253), pattern(r"^[\-._a-zA-Z0-9]+$"))
    )]
    pub values_key: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum WaitStrategyName {
    Poller,
    Legacy,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct WaitStrategy {
    pub name: WaitStrategyName,
}

/// Exactly one of `chart` and `chartRef`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(
    feature = "schemars",
    schemars(extend("oneOf" = [{"required": ["chart"]}, {"required": ["chartRef"]}]))
)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HelmReleaseSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chart: Option<HelmChartTemplate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chart_ref: Option<ChartReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub common_metadata: Option<CommonMetadata>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depends_on: Option<Vec<DependencyReference>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drift_detection: Option<DriftDetection>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health_check_exprs: Option<Vec<CustomHealthCheck>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub install: Option<Install>,
    #[cfg_attr(feature = "schemars", schemars(pattern(DURATION)))]
    pub interval: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kube_config: Option<KubeConfigReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_history: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persistent_client: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub post_render_strategy: Option<PostRenderStrategy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub post_renderers: Option<Vec<PostRenderer>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(length(min = 1, max = 53)))]
    pub release_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rollback: Option<Rollback>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(length(min = 1, max = 253)))]
    pub service_account_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(length(min = 1, max = 63)))]
    pub storage_namespace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(length(min = 1, max = 63)))]
    pub target_namespace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test: Option<Test>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(pattern(DURATION)))]
    pub timeout: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uninstall: Option<Uninstall>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upgrade: Option<Upgrade>,
    /// Chart values: any JSON object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<BTreeMap<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values_from: Option<Vec<ValuesReference>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_strategy: Option<WaitStrategy>,
}

// ---------------------------------------------------------------- notifications, images, buckets,
// artifact generators and Flux Operator (the fields of their CRDs; CEL rules not modelled)

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum AlertEventSeverity {
    #[serde(rename = "info")]
    Info,
    #[serde(rename = "error")]
    Error,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum NotificationObjectKind {
    #[serde(rename = "Bucket")]
    Bucket,
    #[serde(rename = "GitRepository")]
    GitRepository,
    #[serde(rename = "Kustomization")]
    Kustomization,
    #[serde(rename = "HelmRelease")]
    HelmRelease,
    #[serde(rename = "HelmChart")]
    HelmChart,
    #[serde(rename = "HelmRepository")]
    HelmRepository,
    #[serde(rename = "ImageRepository")]
    ImageRepository,
    #[serde(rename = "ImagePolicy")]
    ImagePolicy,
    #[serde(rename = "ImageUpdateAutomation")]
    ImageUpdateAutomation,
    #[serde(rename = "OCIRepository")]
    OCIRepository,
    #[serde(rename = "ArtifactGenerator")]
    ArtifactGenerator,
    #[serde(rename = "ExternalArtifact")]
    ExternalArtifact,
    // Flux Operator adds its kinds to the CRDs of the Flux it installs
    // (its `notificationPatchTmpl`): an Alert or Receiver may name them.
    #[serde(rename = "FluxInstance")]
    FluxInstance,
    #[serde(rename = "ResourceSet")]
    ResourceSet,
    #[serde(rename = "ResourceSetInputProvider")]
    ResourceSetInputProvider,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NotificationObjectReference {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    pub kind: NotificationObjectKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_labels: Option<StringMap>,
    #[cfg_attr(feature = "schemars", schemars(length(min = 1, max = 253)))]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(length(min = 1, max = 253)))]
    pub namespace: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AlertSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event_metadata: Option<StringMap>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event_severity: Option<AlertEventSeverity>,
    pub event_sources: Vec<NotificationObjectReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclusion_list: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inclusion_list: Option<Vec<String>>,
    pub provider_ref: LocalObjectReference,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(length(max = 255)))]
    pub summary: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
}

/// `notification.toolkit.fluxcd.io/v1beta3` Alert.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Alert {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<AlertSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum ProviderType {
    #[serde(rename = "slack")]
    Slack,
    #[serde(rename = "discord")]
    Discord,
    #[serde(rename = "msteams")]
    Msteams,
    #[serde(rename = "rocket")]
    Rocket,
    #[serde(rename = "generic")]
    Generic,
    #[serde(rename = "generic-hmac")]
    GenericHmac,
    #[serde(rename = "github")]
    Github,
    #[serde(rename = "gitlab")]
    Gitlab,
    #[serde(rename = "gitea")]
    Gitea,
    #[serde(rename = "giteapullrequestcomment")]
    Giteapullrequestcomment,
    #[serde(rename = "bitbucketserver")]
    Bitbucketserver,
    #[serde(rename = "bitbucket")]
    Bitbucket,
    #[serde(rename = "azuredevops")]
    Azuredevops,
    #[serde(rename = "googlechat")]
    Googlechat,
    #[serde(rename = "googlepubsub")]
    Googlepubsub,
    #[serde(rename = "webex")]
    Webex,
    #[serde(rename = "sentry")]
    Sentry,
    #[serde(rename = "azureeventhub")]
    Azureeventhub,
    #[serde(rename = "telegram")]
    Telegram,
    #[serde(rename = "lark")]
    Lark,
    #[serde(rename = "matrix")]
    Matrix,
    #[serde(rename = "opsgenie")]
    Opsgenie,
    #[serde(rename = "alertmanager")]
    Alertmanager,
    #[serde(rename = "grafana")]
    Grafana,
    #[serde(rename = "githubdispatch")]
    Githubdispatch,
    #[serde(rename = "githubpullrequestcomment")]
    Githubpullrequestcomment,
    #[serde(rename = "gitlabmergerequestcomment")]
    Gitlabmergerequestcomment,
    #[serde(rename = "pagerduty")]
    Pagerduty,
    #[serde(rename = "datadog")]
    Datadog,
    #[serde(rename = "nats")]
    Nats,
    #[serde(rename = "zulip")]
    Zulip,
    #[serde(rename = "otel")]
    Otel,
    #[serde(rename = "zoom")]
    Zoom,
    #[serde(rename = "incident.io")]
    IncidentIo,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProviderSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(length(max = 2048)))]
    pub address: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cert_secret_ref: Option<LocalObjectReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(length(max = 2048)))]
    pub channel: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit_status_expr: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(pattern(DURATION)))]
    pub interval: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "schemars",
        schemars(pattern(r"^(http|https)://.*$"), length(max = 2048))
    )]
    pub proxy: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy_secret_ref: Option<LocalObjectReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_ref: Option<LocalObjectReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_account_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(pattern(SHORT_DURATION)))]
    pub timeout: Option<String>,
    pub r#type: ProviderType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(length(max = 2048)))]
    pub username: Option<String>,
}

/// `notification.toolkit.fluxcd.io/v1beta3` Provider.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Provider {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<ProviderSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Value>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReceiverOidcProviderValidation {
    pub expression: String,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReceiverOidcProviderVariable {
    pub expression: String,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReceiverOidcProvider {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<String>,
    #[serde(rename = "issuerURL")]
    #[cfg_attr(feature = "schemars", schemars(pattern(r"^https?://")))]
    pub issuer_url: String,
    #[cfg_attr(feature = "schemars", schemars(length(min = 1)))]
    pub validations: Vec<ReceiverOidcProviderValidation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variables: Option<Vec<ReceiverOidcProviderVariable>>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReceiverResource {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
    pub kind: NotificationObjectKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_labels: Option<StringMap>,
    #[cfg_attr(feature = "schemars", schemars(length(min = 1, max = 253)))]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(length(min = 1, max = 253)))]
    pub namespace: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum ReceiverType {
    #[serde(rename = "generic")]
    Generic,
    #[serde(rename = "generic-hmac")]
    GenericHmac,
    #[serde(rename = "generic-oidc")]
    GenericOidc,
    #[serde(rename = "github")]
    Github,
    #[serde(rename = "gitlab")]
    Gitlab,
    #[serde(rename = "bitbucket")]
    Bitbucket,
    #[serde(rename = "harbor")]
    Harbor,
    #[serde(rename = "dockerhub")]
    Dockerhub,
    #[serde(rename = "quay")]
    Quay,
    #[serde(rename = "gcr")]
    Gcr,
    #[serde(rename = "nexus")]
    Nexus,
    #[serde(rename = "acr")]
    Acr,
    #[serde(rename = "cdevents")]
    Cdevents,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReceiverSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(pattern(DURATION)))]
    pub interval: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oidc_providers: Option<Vec<ReceiverOidcProvider>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_filter: Option<String>,
    pub resources: Vec<ReceiverResource>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_ref: Option<LocalObjectReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
    pub r#type: ReceiverType,
}

/// `notification.toolkit.fluxcd.io/v1` Receiver.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Receiver {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<ReceiverSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Value>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResourceSetDependency {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready_expr: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum ResourceSetInputStrategyName {
    #[serde(rename = "Flatten")]
    Flatten,
    #[serde(rename = "Permute")]
    Permute,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResourceSetInputStrategy {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_empty_providers: Option<bool>,
    pub name: ResourceSetInputStrategyName,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum InputProviderApiVersion {
    #[serde(rename = "fluxcd.controlplane.io/v1")]
    FluxcdControlplaneIoV1,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum InputProviderKind {
    #[serde(rename = "ResourceSetInputProvider")]
    ResourceSetInputProvider,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LabelSelectorRequirement {
    pub key: String,
    pub operator: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LabelSelector {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_expressions: Option<Vec<LabelSelectorRequirement>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_labels: Option<StringMap>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InputProviderReference {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<InputProviderApiVersion>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<InputProviderKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResourceSetStep {
    #[cfg_attr(
        feature = "schemars",
        schemars(pattern(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"), length(max = 63))
    )]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<Vec<BTreeMap<String, Value>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources_template: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(pattern(DURATION)))]
    pub timeout: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResourceSetSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub common_metadata: Option<CommonMetadata>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depends_on: Option<Vec<ResourceSetDependency>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_strategy: Option<ResourceSetInputStrategy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inputs: Option<Vec<BTreeMap<String, Value>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inputs_from: Option<Vec<InputProviderReference>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<Vec<BTreeMap<String, Value>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources_template: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_account_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(length(min = 1, max = 20)))]
    pub steps: Option<Vec<ResourceSetStep>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait: Option<bool>,
}

/// `fluxcd.controlplane.io/v1` ResourceSet.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResourceSet {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<ResourceSetSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Value>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResourceSetInputProviderFilter {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude_branch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude_environment: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude_tag: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_branch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_environment: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_tag: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(range(max = 10000)))]
    pub limit: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub semver: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResourceSetInputProviderSchedule {
    pub cron: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_zone: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(pattern(DURATION)))]
    pub window: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResourceSetInputProviderSelector {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_expressions: Option<Vec<LabelSelectorRequirement>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_labels: Option<StringMap>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResourceSetInputProviderSkip {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<Vec<String>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum ResourceSetInputProviderType {
    #[serde(rename = "Static")]
    Static,
    #[serde(rename = "GitHubBranch")]
    GitHubBranch,
    #[serde(rename = "GitHubTag")]
    GitHubTag,
    #[serde(rename = "GitHubPullRequest")]
    GitHubPullRequest,
    #[serde(rename = "GitLabBranch")]
    GitLabBranch,
    #[serde(rename = "GitLabTag")]
    GitLabTag,
    #[serde(rename = "GitLabMergeRequest")]
    GitLabMergeRequest,
    #[serde(rename = "GitLabEnvironment")]
    GitLabEnvironment,
    #[serde(rename = "AzureDevOpsBranch")]
    AzureDevOpsBranch,
    #[serde(rename = "AzureDevOpsTag")]
    AzureDevOpsTag,
    #[serde(rename = "AzureDevOpsPullRequest")]
    AzureDevOpsPullRequest,
    #[serde(rename = "AWSCodeCommitBranch")]
    AWSCodeCommitBranch,
    #[serde(rename = "AWSCodeCommitTag")]
    AWSCodeCommitTag,
    #[serde(rename = "AWSCodeCommitPullRequest")]
    AWSCodeCommitPullRequest,
    #[serde(rename = "GiteaBranch")]
    GiteaBranch,
    #[serde(rename = "GiteaTag")]
    GiteaTag,
    #[serde(rename = "GiteaPullRequest")]
    GiteaPullRequest,
    #[serde(rename = "OCIArtifactTag")]
    OCIArtifactTag,
    #[serde(rename = "ACRArtifactTag")]
    ACRArtifactTag,
    #[serde(rename = "ECRArtifactTag")]
    ECRArtifactTag,
    #[serde(rename = "GARArtifactTag")]
    GARArtifactTag,
    #[serde(rename = "ExternalService")]
    ExternalService,
    #[serde(rename = "ExternalArtifact")]
    ExternalArtifact,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResourceSetInputProviderSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cert_secret_ref: Option<LocalObjectReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_values: Option<BTreeMap<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<ResourceSetInputProviderFilter>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub insecure: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<Vec<ResourceSetInputProviderSchedule>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_ref: Option<LocalObjectReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selectors: Option<Vec<ResourceSetInputProviderSelector>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_account_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip: Option<ResourceSetInputProviderSkip>,
    pub r#type: ResourceSetInputProviderType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "schemars",
        schemars(pattern(r"^((http|https|oci)://.*){0,1}$"))
    )]
    pub url: Option<String>,
}

/// `fluxcd.controlplane.io/v1` ResourceSetInputProvider.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResourceSetInputProvider {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<ResourceSetInputProviderSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum FluxInstanceClusterSize {
    #[serde(rename = "small")]
    Small,
    #[serde(rename = "medium")]
    Medium,
    #[serde(rename = "large")]
    Large,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum FluxInstanceClusterType {
    #[serde(rename = "kubernetes")]
    Kubernetes,
    #[serde(rename = "openshift")]
    Openshift,
    #[serde(rename = "aws")]
    Aws,
    #[serde(rename = "azure")]
    Azure,
    #[serde(rename = "gcp")]
    Gcp,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FluxInstanceCluster {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multitenant: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multitenant_workload_identity: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network_policy: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_level_workload_identity: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<FluxInstanceClusterSize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant_default_decryption_service_account: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant_default_kube_config_service_account: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant_default_service_account: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r#type: Option<FluxInstanceClusterType>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum FluxInstanceComponent {
    #[serde(rename = "source-controller")]
    SourceController,
    #[serde(rename = "kustomize-controller")]
    KustomizeController,
    #[serde(rename = "helm-controller")]
    HelmController,
    #[serde(rename = "notification-controller")]
    NotificationController,
    #[serde(rename = "image-reflector-controller")]
    ImageReflectorController,
    #[serde(rename = "image-automation-controller")]
    ImageAutomationController,
    #[serde(rename = "source-watcher")]
    SourceWatcher,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum FluxInstanceDistributionVariant {
    #[serde(rename = "upstream-alpine")]
    UpstreamAlpine,
    #[serde(rename = "enterprise-alpine")]
    EnterpriseAlpine,
    #[serde(rename = "enterprise-distroless")]
    EnterpriseDistroless,
    #[serde(rename = "enterprise-distroless-fips")]
    EnterpriseDistrolessFips,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FluxInstanceDistribution {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(pattern(r"^oci://.*$")))]
    pub artifact: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact_pull_secret: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_pull_secret: Option<String>,
    pub registry: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<FluxInstanceDistributionVariant>,
    pub version: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FluxInstanceKustomize {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patches: Option<Vec<Patch>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum FluxInstanceShardingStorage {
    #[serde(rename = "ephemeral")]
    Ephemeral,
    #[serde(rename = "persistent")]
    Persistent,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FluxInstanceSharding {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    #[cfg_attr(feature = "schemars", schemars(length(min = 1)))]
    pub shards: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage: Option<FluxInstanceShardingStorage>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FluxInstanceStorage {
    pub class: String,
    pub size: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum FluxInstanceSyncKind {
    #[serde(rename = "OCIRepository")]
    OCIRepository,
    #[serde(rename = "GitRepository")]
    GitRepository,
    #[serde(rename = "Bucket")]
    Bucket,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum FluxInstanceSyncProvider {
    #[serde(rename = "generic")]
    Generic,
    #[serde(rename = "aws")]
    Aws,
    #[serde(rename = "azure")]
    Azure,
    #[serde(rename = "gcp")]
    Gcp,
    #[serde(rename = "github")]
    Github,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FluxInstanceSync {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(pattern(DURATION)))]
    pub interval: Option<String>,
    pub kind: FluxInstanceSyncKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(length(max = 63)))]
    pub name: Option<String>,
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<FluxInstanceSyncProvider>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pull_secret: Option<String>,
    pub r#ref: String,
    pub url: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FluxInstanceSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<FluxInstanceCluster>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub common_metadata: Option<CommonMetadata>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub components: Option<Vec<FluxInstanceComponent>>,
    pub distribution: FluxInstanceDistribution,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kustomize: Option<FluxInstanceKustomize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub migrate_resources: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sharding: Option<FluxInstanceSharding>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage: Option<FluxInstanceStorage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync: Option<FluxInstanceSync>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait: Option<bool>,
}

/// `fluxcd.controlplane.io/v1` FluxInstance.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FluxInstance {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<FluxInstanceSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum ArtifactGeneratorCopyStrategy {
    #[serde(rename = "Overwrite")]
    Overwrite,
    #[serde(rename = "Merge")]
    Merge,
    #[serde(rename = "Extract")]
    Extract,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ArtifactGeneratorCopy {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(length(max = 100)))]
    pub exclude: Option<Vec<String>>,
    #[cfg_attr(
        feature = "schemars",
        schemars(
            pattern(r"^@([a-z0-9]([a-z0-9_-]*[a-z0-9])?)/(.*)$"),
            length(min = 1, max = 1024)
        )
    )]
    pub from: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<ArtifactGeneratorCopyStrategy>,
    #[cfg_attr(
        feature = "schemars",
        schemars(pattern(r"^@(artifact)/(.*)$"), length(min = 1, max = 1024))
    )]
    pub to: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ArtifactGeneratorArtifact {
    #[cfg_attr(feature = "schemars", schemars(length(min = 1)))]
    pub copy: Vec<ArtifactGeneratorCopy>,
    #[cfg_attr(feature = "schemars", schemars(length(min = 1, max = 253)))]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "schemars",
        schemars(pattern(r"^@([a-z0-9]([a-z0-9_-]*[a-z0-9])?)$"), length(max = 64))
    )]
    pub origin_revision: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "schemars",
        schemars(pattern(r"^@([a-z0-9]([a-z0-9_-]*[a-z0-9])?)$"), length(max = 64))
    )]
    pub revision: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum ArtifactGeneratorSourceKind {
    #[serde(rename = "Bucket")]
    Bucket,
    #[serde(rename = "GitRepository")]
    GitRepository,
    #[serde(rename = "OCIRepository")]
    OCIRepository,
    #[serde(rename = "HelmChart")]
    HelmChart,
    #[serde(rename = "ExternalArtifact")]
    ExternalArtifact,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ArtifactGeneratorSource {
    #[cfg_attr(
        feature = "schemars",
        schemars(pattern(r"^[a-z0-9]([a-z0-9_-]*[a-z0-9])?$"), length(max = 63))
    )]
    pub alias: String,
    pub kind: ArtifactGeneratorSourceKind,
    #[cfg_attr(
        feature = "schemars",
        schemars(pattern(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?$"), length(max = 253))
    )]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "schemars",
        schemars(pattern(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"), length(min = 1, max = 63))
    )]
    pub namespace: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ArtifactGeneratorSpec {
    #[cfg_attr(feature = "schemars", schemars(length(min = 1, max = 1000)))]
    pub artifacts: Vec<ArtifactGeneratorArtifact>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub common_metadata: Option<CommonMetadata>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "schemars",
        schemars(
            pattern(r"^@([a-z0-9]([a-z0-9_-]*[a-z0-9])?)/(.*)$"),
            length(max = 1024)
        )
    )]
    pub path_pattern: Option<String>,
    #[cfg_attr(feature = "schemars", schemars(length(min = 1, max = 1000)))]
    pub sources: Vec<ArtifactGeneratorSource>,
}

/// `source.extensions.fluxcd.io/v1beta1` ArtifactGenerator.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ArtifactGenerator {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<ArtifactGeneratorSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Value>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageRepositoryAccessFromNamespaceSelector {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_labels: Option<StringMap>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageRepositoryAccessFrom {
    pub namespace_selectors: Vec<ImageRepositoryAccessFromNamespaceSelector>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum ImageRepositoryProvider {
    #[serde(rename = "generic")]
    Generic,
    #[serde(rename = "aws")]
    Aws,
    #[serde(rename = "azure")]
    Azure,
    #[serde(rename = "gcp")]
    Gcp,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageRepositorySpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_from: Option<ImageRepositoryAccessFrom>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cert_secret_ref: Option<LocalObjectReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(length(max = 25)))]
    pub exclusion_list: Option<Vec<String>>,
    pub image: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub insecure: Option<bool>,
    #[cfg_attr(feature = "schemars", schemars(pattern(DURATION)))]
    pub interval: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<ImageRepositoryProvider>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy_secret_ref: Option<LocalObjectReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_ref: Option<LocalObjectReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(length(max = 253)))]
    pub service_account_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(pattern(SHORT_DURATION)))]
    pub timeout: Option<String>,
}

/// `image.toolkit.fluxcd.io/v1` ImageRepository.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageRepository {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<ImageRepositorySpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum ImagePolicyDigestReflectionPolicy {
    #[serde(rename = "Always")]
    Always,
    #[serde(rename = "IfNotPresent")]
    IfNotPresent,
    #[serde(rename = "Never")]
    Never,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImagePolicyFilterTags {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extract: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImagePolicyImageRepositoryRef {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum SortOrder {
    #[serde(rename = "asc")]
    Asc,
    #[serde(rename = "desc")]
    Desc,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImagePolicyOrder {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<SortOrder>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImagePolicySemver {
    pub range: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImagePolicyChoice {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alphabetical: Option<ImagePolicyOrder>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub numerical: Option<ImagePolicyOrder>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub semver: Option<ImagePolicySemver>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImagePolicySpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest_reflection_policy: Option<ImagePolicyDigestReflectionPolicy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter_tags: Option<ImagePolicyFilterTags>,
    pub image_repository_ref: ImagePolicyImageRepositoryRef,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(pattern(DURATION)))]
    pub interval: Option<String>,
    pub policy: ImagePolicyChoice,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
}

/// `image.toolkit.fluxcd.io/v1` ImagePolicy.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImagePolicy {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<ImagePolicySpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Value>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageUpdateAutomationGitCheckoutRef {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub semver: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageUpdateAutomationGitCheckout {
    pub r#ref: ImageUpdateAutomationGitCheckoutRef,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageUpdateAutomationGitCommitAuthor {
    pub email: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum ImageUpdateAutomationGitCommitSigningKeyType {
    #[serde(rename = "gpg")]
    Gpg,
    #[serde(rename = "ssh")]
    Ssh,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageUpdateAutomationGitCommitSigningKey {
    pub secret_ref: LocalObjectReference,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r#type: Option<ImageUpdateAutomationGitCommitSigningKeyType>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageUpdateAutomationGitCommit {
    pub author: ImageUpdateAutomationGitCommitAuthor,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_template: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_template_values: Option<StringMap>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signing_key: Option<ImageUpdateAutomationGitCommitSigningKey>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageUpdateAutomationGitPush {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<StringMap>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refspec: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageUpdateAutomationGit {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkout: Option<ImageUpdateAutomationGitCheckout>,
    pub commit: ImageUpdateAutomationGitCommit,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push: Option<ImageUpdateAutomationGitPush>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum ImageUpdateAutomationSourceRefKind {
    #[serde(rename = "GitRepository")]
    GitRepository,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageUpdateAutomationSourceRef {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    /// Required, but defaults to `GitRepository`: the API server fills it
    /// in before validating.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ImageUpdateAutomationSourceRefKind>,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum ImageUpdateAutomationUpdateStrategy {
    #[serde(rename = "Setters")]
    Setters,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageUpdateAutomationUpdate {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<ImageUpdateAutomationUpdateStrategy>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageUpdateAutomationSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git: Option<ImageUpdateAutomationGit>,
    #[cfg_attr(feature = "schemars", schemars(pattern(DURATION)))]
    pub interval: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy_selector: Option<LabelSelector>,
    pub source_ref: ImageUpdateAutomationSourceRef,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub update: Option<ImageUpdateAutomationUpdate>,
}

/// `image.toolkit.fluxcd.io/v1` ImageUpdateAutomation.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageUpdateAutomation {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<ImageUpdateAutomationSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum BucketProvider {
    #[serde(rename = "generic")]
    Generic,
    #[serde(rename = "aws")]
    Aws,
    #[serde(rename = "gcp")]
    Gcp,
    #[serde(rename = "azure")]
    Azure,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum BucketStsProvider {
    #[serde(rename = "aws")]
    Aws,
    #[serde(rename = "ldap")]
    Ldap,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BucketSts {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cert_secret_ref: Option<LocalObjectReference>,
    #[cfg_attr(feature = "schemars", schemars(pattern(r"^(http|https)://.*$")))]
    pub endpoint: String,
    pub provider: BucketStsProvider,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_ref: Option<LocalObjectReference>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BucketSpec {
    pub bucket_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cert_secret_ref: Option<LocalObjectReference>,
    pub endpoint: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignore: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub insecure: Option<bool>,
    #[cfg_attr(feature = "schemars", schemars(pattern(DURATION)))]
    pub interval: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<BucketProvider>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy_secret_ref: Option<LocalObjectReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_ref: Option<LocalObjectReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_account_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sts: Option<BucketSts>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(pattern(SHORT_DURATION)))]
    pub timeout: Option<String>,
}

/// `source.toolkit.fluxcd.io/v1` Bucket.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Bucket {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<BucketSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Value>,
}
