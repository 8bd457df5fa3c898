//! Schema lookup and validation.
//!
//! A kind's schema is the first found of:
//! 1. the user's locations (`--schema-dir`, and `.flate/schemas` in the
//!    repository when it exists): a directory in the CRDs-catalog layout
//!    (`{group}/{kind}_{version}.json`) or kubeconform's
//!    (`{kind}-{group}-{version}.json`), or a kubeconform
//!    `--schema-location` template (`{{.Group}}`, `{{.ResourceKind}}`,
//!    `{{.ResourceAPIVersion}}`, `{{.KindSuffix}}`,
//!    `{{.NormalizedKubernetesVersion}}`, `{{.StrictSuffix}}`);
//! 2. a CustomResourceDefinition rendered in the same environment;
//! 3. the schemas embedded from `schemas/`: Flux kinds, kustomization
//!    files, and the Kubernetes built-in kinds.
//!
//! Compiled validators are cached per schema and shared by every
//! environment. No schema is ever fetched over the network: references
//! resolve inside the embedded bundle or to local files only.

use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use jsonschema::{Draft, Registry, Retrieve, Uri, Validator};
use rayon::prelude::*;
use serde_json::{Value, json};

use super::Env;
use super::crd;
use super::finding::Finding;
use super::locate::{Locator, pointer_to_path};
use crate::resource::{Gvk, Resource};
use crate::yaml::Node;

/// The Kubernetes minor versions whose built-in schemas are embedded,
/// oldest first.
pub const KUBERNETES_VERSIONS: &[&str] = &["1.33", "1.34", "1.35", "1.36"];
/// The newest of them: the version checked against by default.
pub const KUBERNETES_VERSION: &str = "1.36";
/// Where the generator took them from.
pub const KUBERNETES_SOURCE: &str = "k8s-openapi 0.29.0";

/// Every version's definitions and kinds, each stored once per distinct
/// content with the versions it belongs to (tools/schemagen).
const K8S_STORE: &str = include_str!("../../schemas/kubernetes/kubernetes.json");

/// The embedded version `v` names ("1.35", "v1.35", "1.35.2", "v1.35.2"),
/// or an error listing the embedded ones.
pub fn embedded_version(v: &str) -> Result<&'static str, String> {
    let t = v.trim().trim_start_matches('v');
    let mut parts = t.split('.');
    let (major, minor) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let wanted = format!("{major}.{minor}");
    KUBERNETES_VERSIONS
        .iter()
        .find(|x| **x == wanted)
        .copied()
        .ok_or_else(|| {
            format!(
                "Kubernetes {v}: no embedded schemas for it (embedded: {})",
                KUBERNETES_VERSIONS.join(", ")
            )
        })
}

/// The embedded version closest to `v` (for a cluster older or newer than
/// the embedded range), and whether it is `v` itself.
pub fn nearest_version(v: &str) -> (&'static str, bool) {
    if let Ok(x) = embedded_version(v) {
        return (x, true);
    }
    let minor = |s: &str| -> Option<u32> {
        let t = s.trim().trim_start_matches('v');
        let mut p = t.split('.');
        (p.next()? == "1").then_some(())?;
        p.next()?.parse().ok()
    };
    let newest = KUBERNETES_VERSIONS[KUBERNETES_VERSIONS.len() - 1];
    match minor(v) {
        Some(m) if m < minor(KUBERNETES_VERSIONS[0]).unwrap_or(0) => {
            (KUBERNETES_VERSIONS[0], false)
        }
        _ => (newest, false),
    }
}

fn k8s_uri(version: &str) -> String {
    format!("urn:flate:schemas:kubernetes-v{version}")
}

/// Embedded standalone schemas: (apiVersion, kind, JSON).
pub const EMBEDDED: &[(&str, &str, &str)] = &[
    (
        "kustomize.toolkit.fluxcd.io/v1",
        "Kustomization",
        include_str!("../../schemas/kustomize.toolkit.fluxcd.io/kustomization_v1.json"),
    ),
    (
        "helm.toolkit.fluxcd.io/v2",
        "HelmRelease",
        include_str!("../../schemas/helm.toolkit.fluxcd.io/helmrelease_v2.json"),
    ),
    (
        "source.toolkit.fluxcd.io/v1",
        "OCIRepository",
        include_str!("../../schemas/source.toolkit.fluxcd.io/ocirepository_v1.json"),
    ),
    (
        "source.toolkit.fluxcd.io/v1",
        "GitRepository",
        include_str!("../../schemas/source.toolkit.fluxcd.io/gitrepository_v1.json"),
    ),
    (
        "source.toolkit.fluxcd.io/v1",
        "HelmRepository",
        include_str!("../../schemas/source.toolkit.fluxcd.io/helmrepository_v1.json"),
    ),
    (
        "source.toolkit.fluxcd.io/v1",
        "HelmChart",
        include_str!("../../schemas/source.toolkit.fluxcd.io/helmchart_v1.json"),
    ),
    (
        "source.toolkit.fluxcd.io/v1",
        "Bucket",
        include_str!("../../schemas/source.toolkit.fluxcd.io/bucket_v1.json"),
    ),
    (
        "notification.toolkit.fluxcd.io/v1beta3",
        "Alert",
        include_str!("../../schemas/notification.toolkit.fluxcd.io/alert_v1beta3.json"),
    ),
    (
        "notification.toolkit.fluxcd.io/v1beta3",
        "Provider",
        include_str!("../../schemas/notification.toolkit.fluxcd.io/provider_v1beta3.json"),
    ),
    (
        "notification.toolkit.fluxcd.io/v1",
        "Receiver",
        include_str!("../../schemas/notification.toolkit.fluxcd.io/receiver_v1.json"),
    ),
    (
        "image.toolkit.fluxcd.io/v1",
        "ImageRepository",
        include_str!("../../schemas/image.toolkit.fluxcd.io/imagerepository_v1.json"),
    ),
    (
        "image.toolkit.fluxcd.io/v1",
        "ImagePolicy",
        include_str!("../../schemas/image.toolkit.fluxcd.io/imagepolicy_v1.json"),
    ),
    (
        "image.toolkit.fluxcd.io/v1",
        "ImageUpdateAutomation",
        include_str!("../../schemas/image.toolkit.fluxcd.io/imageupdateautomation_v1.json"),
    ),
    (
        "source.extensions.fluxcd.io/v1beta1",
        "ArtifactGenerator",
        include_str!("../../schemas/source.extensions.fluxcd.io/artifactgenerator_v1beta1.json"),
    ),
    (
        "fluxcd.controlplane.io/v1",
        "FluxInstance",
        include_str!("../../schemas/fluxcd.controlplane.io/fluxinstance_v1.json"),
    ),
    (
        "fluxcd.controlplane.io/v1",
        "ResourceSet",
        include_str!("../../schemas/fluxcd.controlplane.io/resourceset_v1.json"),
    ),
    (
        "fluxcd.controlplane.io/v1",
        "ResourceSetInputProvider",
        include_str!("../../schemas/fluxcd.controlplane.io/resourcesetinputprovider_v1.json"),
    ),
    (
        "kustomize.config.k8s.io/v1beta1",
        "Kustomization",
        include_str!("../../schemas/kustomize.config.k8s.io/kustomization_v1beta1.json"),
    ),
    (
        "kustomize.config.k8s.io/v1alpha1",
        "Component",
        include_str!("../../schemas/kustomize.config.k8s.io/component_v1alpha1.json"),
    ),
];

/// Where user schemas come from.
#[derive(Debug, Clone, Default)]
pub struct SchemaOptions {
    /// Directories or kubeconform templates, in order.
    pub locations: Vec<String>,
    /// `{{.StrictSuffix}}` is `-strict`.
    pub strict: bool,
    /// `{{.NormalizedKubernetesVersion}}` (kubeconform's default: master).
    pub kubernetes_version: String,
}

/// The built-in schemas of one Kubernetes version.
pub struct K8s {
    /// The version ("1.35").
    pub version: &'static str,
    /// `apiVersion/kind` → definition name.
    pub kinds: HashMap<String, String>,
    /// `(group, kind)` → served apiVersions.
    pub served: HashMap<(String, String), Vec<String>>,
    registry: Registry<'static>,
    /// The version's definitions, for standalone schemas (`schemas import`).
    pub defs: serde_json::Map<String, Value>,
}

/// Whether a stored variant belongs to `version` (no `versions` list: every
/// version).
fn in_version(variant: &Value, version: &str) -> bool {
    match variant.get("versions").and_then(Value::as_array) {
        None => true,
        Some(vs) => vs.iter().any(|v| v.as_str() == Some(version)),
    }
}

/// The parsed store, once.
fn store() -> Result<&'static Value, String> {
    static STORE: OnceLock<Result<Value, String>> = OnceLock::new();
    STORE
        .get_or_init(|| {
            serde_json::from_str(K8S_STORE).map_err(|e| format!("embedded Kubernetes schemas: {e}"))
        })
        .as_ref()
        .map_err(Clone::clone)
}

impl K8s {
    fn load(version: &'static str) -> Result<K8s, String> {
        let store = store()?;
        let mut kinds = HashMap::new();
        let mut served: HashMap<(String, String), Vec<String>> = HashMap::new();
        for (k, variants) in store
            .get("kinds")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            let Some(def) = variants
                .as_array()
                .into_iter()
                .flatten()
                .find(|v| in_version(v, version))
                .and_then(|v| v.get("def"))
                .and_then(Value::as_str)
            else {
                continue;
            };
            let (api_version, kind) = k.rsplit_once('/').unwrap_or(("", k));
            let gvk = Gvk::from_api_version(api_version, kind);
            served
                .entry((gvk.group.clone(), kind.to_string()))
                .or_default()
                .push(api_version.to_string());
            kinds.insert(k.clone(), def.to_string());
        }
        let mut defs = serde_json::Map::new();
        for (name, variants) in store
            .get("defs")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            if let Some(schema) = variants
                .as_array()
                .into_iter()
                .flatten()
                .find(|v| in_version(v, version))
                .and_then(|v| v.get("schema"))
            {
                defs.insert(name.clone(), schema.clone());
            }
        }
        let bundle = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$defs": defs,
        });
        let registry = Registry::new()
            .add(k8s_uri(version), bundle)
            .and_then(|b| b.prepare())
            .map_err(|e| format!("embedded Kubernetes {version} schemas: {e}"))?;
        Ok(K8s {
            version,
            kinds,
            served,
            registry,
            defs,
        })
    }
}

/// `group/version` and `group/version/Kind` of every built-in kind that
/// Kubernetes `version` (the nearest embedded one) has in a stable
/// version (`v1`, `v2`...), from the embedded schemas: what an API
/// server's discovery lists whatever its feature gates (alpha and, since
/// 1.24, new beta versions are off by default). Sorted.
pub fn stable_api_versions(version: &str) -> Result<&'static [String], String> {
    static DONE: [OnceLock<Result<Vec<String>, String>>; KUBERNETES_VERSIONS.len()] =
        [const { OnceLock::new() }; KUBERNETES_VERSIONS.len()];
    let (version, _) = nearest_version(version);
    let i = KUBERNETES_VERSIONS
        .iter()
        .position(|v| *v == version)
        .unwrap_or(0);
    DONE[i]
        .get_or_init(|| read_stable_api_versions(version))
        .as_deref()
        .map_err(Clone::clone)
}

fn read_stable_api_versions(version: &str) -> Result<Vec<String>, String> {
    // Only the kinds are read (the definitions, most of the store, are
    // skipped unparsed): a render that needs no schema pays little.
    #[derive(serde::Deserialize)]
    struct Kinds {
        kinds: BTreeMap<String, Vec<Variant>>,
    }
    #[derive(serde::Deserialize)]
    struct Variant {
        versions: Option<Vec<String>>,
    }
    let store: Kinds =
        serde_json::from_str(K8S_STORE).map_err(|e| format!("embedded Kubernetes schemas: {e}"))?;
    let stable = |api_version: &str| {
        let v = api_version.rsplit('/').next().unwrap_or(api_version);
        v.len() > 1 && v.starts_with('v') && v[1..].bytes().all(|b| b.is_ascii_digit())
    };
    let mut out = std::collections::BTreeSet::new();
    for (k, variants) in &store.kinds {
        let (api_version, _) = k.rsplit_once('/').unwrap_or(("", k));
        if stable(api_version)
            && variants.iter().any(|v| {
                v.versions
                    .as_ref()
                    .is_none_or(|vs| vs.iter().any(|x| x == version))
            })
        {
            out.insert(api_version.to_string());
            out.insert(k.clone());
        }
    }
    Ok(out.into_iter().collect())
}

/// The built-in schemas of Kubernetes `version` (one of
/// [`KUBERNETES_VERSIONS`]), built once.
pub fn kubernetes_version(version: &str) -> Result<&'static K8s, String> {
    static K8S: [OnceLock<Result<K8s, String>>; KUBERNETES_VERSIONS.len()] =
        [const { OnceLock::new() }; KUBERNETES_VERSIONS.len()];
    let version = embedded_version(version)?;
    let i = KUBERNETES_VERSIONS
        .iter()
        .position(|v| *v == version)
        .expect("embedded version");
    K8S[i]
        .get_or_init(|| K8s::load(version))
        .as_ref()
        .map_err(Clone::clone)
}

/// The built-in schemas of the newest embedded version.
pub fn kubernetes() -> Result<&'static K8s, String> {
    kubernetes_version(KUBERNETES_VERSION)
}

/// Resolves `file://` references to local files; nothing else.
struct FileRetriever;

impl Retrieve for FileRetriever {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        if uri.scheme().as_str() != "file" {
            return Err(
                format!("{uri}: only local schema files are read (flate never fetches)").into(),
            );
        }
        let path = percent_decode(uri.path().as_str());
        read_schema_file(Path::new(&path)).map_err(Into::into)
    }
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let Ok(v) = u8::from_str_radix(&s[i + 1..i + 3], 16)
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A schema file: JSON, or YAML.
pub fn read_schema_file(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    match serde_json::from_str(&text) {
        Ok(v) => Ok(v),
        Err(je) => match crate::yaml::parse_one(&text) {
            Ok(n) if !n.is_null() => Ok(n.to_json()),
            _ => Err(format!("{}: not JSON: {je}", path.display())),
        },
    }
}

/// The result of looking a kind up.
#[derive(Clone)]
pub enum Lookup {
    Found {
        validator: Arc<Validator>,
        /// Where the schema came from (for messages).
        source: String,
    },
    Missing,
    /// A schema exists but cannot be used.
    Broken(String),
}

type Slot = Arc<OnceLock<Lookup>>;

/// Schemas and their compiled validators.
pub struct SchemaSet {
    opts: SchemaOptions,
    cache: Mutex<HashMap<String, Slot>>,
}

/// `{{ .Name }}` variables of a kubeconform template.
fn template_vars(
    api_version: &str,
    kind: &str,
    opts: &SchemaOptions,
) -> BTreeMap<&'static str, String> {
    // As kubeconform's registry.schemaPath computes them.
    let parts: Vec<&str> = api_version.split('/').collect();
    let group = parts[0];
    let group_first = group.split('.').next().unwrap_or("").to_lowercase();
    let mut kind_suffix = format!("-{group_first}");
    if parts.len() > 1 {
        kind_suffix.push('-');
        kind_suffix.push_str(&parts[1].to_lowercase());
    }
    let version = if opts.kubernetes_version.is_empty() || opts.kubernetes_version == "master" {
        "master".to_string()
    } else {
        format!("v{}", opts.kubernetes_version.trim_start_matches('v'))
    };
    BTreeMap::from([
        ("NormalizedKubernetesVersion", version),
        (
            "StrictSuffix",
            if opts.strict {
                "-strict".into()
            } else {
                String::new()
            },
        ),
        ("ResourceKind", kind.to_lowercase()),
        (
            "ResourceAPIVersion",
            parts.last().copied().unwrap_or("").to_string(),
        ),
        ("Group", group.to_string()),
        ("KindSuffix", kind_suffix),
    ])
}

/// Expands a kubeconform template.
pub fn expand_template(
    tpl: &str,
    api_version: &str,
    kind: &str,
    opts: &SchemaOptions,
) -> Result<String, String> {
    let vars = template_vars(api_version, kind, opts);
    let mut out = String::new();
    let mut rest = tpl;
    while let Some(i) = rest.find("{{") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let j = after
            .find("}}")
            .ok_or_else(|| format!("unclosed '{{{{' in schema location {tpl}"))?;
        let name = after[..j].trim().trim_start_matches('.');
        let v = vars.get(name).ok_or_else(|| {
            format!(
                "unknown variable {{{{.{name}}}}} in schema location {tpl} (known: {})",
                vars.keys()
                    .map(|k| format!(".{k}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })?;
        out.push_str(v);
        rest = &after[j + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Checks the locations' templates once, up front.
pub fn check_locations(opts: &SchemaOptions) -> Result<(), String> {
    for l in &opts.locations {
        if l.starts_with("http://") || l.starts_with("https://") {
            return Err(format!(
                "--schema-dir {l}: flate reads local schemas only (check the catalog out and name its directory)"
            ));
        }
        if l.contains("{{") {
            expand_template(l, "apps/v1", "Deployment", opts)?;
        } else if !Path::new(l).is_dir() {
            return Err(format!("--schema-dir {l}: not a directory"));
        }
    }
    Ok(())
}

/// Files a location may hold for a kind.
fn candidates(loc: &str, api_version: &str, kind: &str, opts: &SchemaOptions) -> Vec<PathBuf> {
    if loc.contains("{{") {
        return expand_template(loc, api_version, kind, opts)
            .map(|p| vec![PathBuf::from(p)])
            .unwrap_or_default();
    }
    let v = template_vars(api_version, kind, opts);
    let d = Path::new(loc);
    let file = format!("{}{}.json", v["ResourceKind"], v["KindSuffix"]);
    vec![
        // CRDs-catalog / `flate schemas import`.
        d.join(&v["Group"]).join(format!(
            "{}_{}.json",
            v["ResourceKind"], v["ResourceAPIVersion"]
        )),
        // kubeconform / kubernetes-json-schema.
        d.join(format!(
            "{}-standalone{}",
            v["NormalizedKubernetesVersion"], v["StrictSuffix"]
        ))
        .join(&file),
        d.join(&file),
    ]
}

fn known_meta_schema(s: &str) -> bool {
    let s = s.trim_end_matches('#');
    [
        "http://json-schema.org/draft-04/schema",
        "http://json-schema.org/draft-06/schema",
        "http://json-schema.org/draft-07/schema",
        "https://json-schema.org/draft/2019-09/schema",
        "https://json-schema.org/draft/2020-12/schema",
    ]
    .contains(&s)
}

fn compile_file(path: &Path) -> Result<Validator, String> {
    let mut schema = read_schema_file(path)?;
    let mut draft = None;
    if let Some(m) = schema.as_object_mut() {
        // kubeconform's and the catalog's files say "http://json-schema.org/schema#":
        // read them as draft 4, as kubeconform does.
        if let Some(s) = m.get("$schema").and_then(Value::as_str) {
            if !known_meta_schema(s) {
                m.remove("$schema");
                draft = Some(Draft::Draft4);
            }
        } else {
            draft = Some(Draft::Draft4);
        }
    }
    let base = format!("file://{}", crate::fs::absolute(path).display());
    let mut o = jsonschema::options()
        .with_base_uri(base)
        .with_retriever(FileRetriever)
        .should_validate_formats(false);
    if let Some(d) = draft {
        o = o.with_draft(d);
    }
    o.build(&schema)
        .map_err(|e| format!("{}: not a usable JSON Schema: {e}", path.display()))
}

fn compile_value(schema: &Value) -> Result<Validator, String> {
    jsonschema::options()
        .with_retriever(FileRetriever)
        .should_validate_formats(false)
        .build(schema)
        .map_err(|e| e.to_string())
}

impl SchemaSet {
    pub fn new(opts: SchemaOptions) -> SchemaSet {
        SchemaSet {
            opts,
            cache: Mutex::new(HashMap::new()),
        }
    }

    fn cached(&self, key: String, make: impl FnOnce() -> Lookup) -> Lookup {
        let slot = {
            let mut c = self.cache.lock().expect("schema cache");
            c.entry(key).or_default().clone()
        };
        slot.get_or_init(make).clone()
    }

    /// The schema for a kind, built-in kinds as the newest embedded
    /// Kubernetes version has them; `crds` are the CRD schemas of the
    /// object's environment.
    pub fn lookup(&self, api_version: &str, kind: &str, crds: &CrdSchemas) -> Lookup {
        self.lookup_in(KUBERNETES_VERSION, api_version, kind, crds)
    }

    /// [`SchemaSet::lookup`] with built-in kinds as Kubernetes `version`
    /// (one of [`KUBERNETES_VERSIONS`]) has them.
    pub fn lookup_in(
        &self,
        version: &str,
        api_version: &str,
        kind: &str,
        crds: &CrdSchemas,
    ) -> Lookup {
        for loc in &self.opts.locations {
            for p in candidates(loc, api_version, kind, &self.opts) {
                if p.is_file() {
                    let key = format!("file:{}", p.display());
                    return self.cached(key, || match compile_file(&p) {
                        Ok(v) => Lookup::Found {
                            validator: Arc::new(v),
                            source: p.display().to_string(),
                        },
                        Err(e) => Lookup::Broken(e),
                    });
                }
            }
        }
        if let Some((hash, schema, origin)) = crds.get(api_version, kind) {
            let key = format!("crd:{api_version}/{kind}:{hash:x}");
            return self.cached(key, || match compile_value(schema) {
                Ok(v) => Lookup::Found {
                    validator: Arc::new(v),
                    source: format!("CustomResourceDefinition in {origin}"),
                },
                Err(e) => Lookup::Broken(format!("CustomResourceDefinition in {origin}: {e}")),
            });
        }
        if let Some((_, _, text)) = EMBEDDED
            .iter()
            .find(|(a, k, _)| *a == api_version && *k == kind)
        {
            let key = format!("embedded:{api_version}/{kind}");
            return self.cached(key, || {
                match serde_json::from_str::<Value>(text)
                    .map_err(|e| e.to_string())
                    .and_then(|s| compile_value(&s))
                {
                    Ok(v) => Lookup::Found {
                        validator: Arc::new(v),
                        source: "embedded".into(),
                    },
                    Err(e) => Lookup::Broken(format!("embedded schema: {e}")),
                }
            });
        }
        let k8s = match kubernetes_version(version) {
            Ok(k) => k,
            Err(e) => return Lookup::Broken(e),
        };
        let Some(def) = k8s.kinds.get(&format!("{api_version}/{kind}")) else {
            return Lookup::Missing;
        };
        let key = format!("k8s:{}:{api_version}/{kind}", k8s.version);
        self.cached(key, || {
            let root = json!({"$ref": format!("{}#/$defs/{def}", k8s_uri(k8s.version))});
            match jsonschema::options()
                .with_registry(&k8s.registry)
                .should_validate_formats(false)
                .build(&root)
            {
                Ok(v) => Lookup::Found {
                    validator: Arc::new(v),
                    source: format!("Kubernetes {}", k8s.version),
                },
                Err(e) => Lookup::Broken(format!("embedded Kubernetes schema {def}: {e}")),
            }
        })
    }
}

/// CRD schemas of one environment: `apiVersion/kind` → (hash, schema,
/// where the CRD is).
#[derive(Default)]
pub struct CrdSchemas {
    map: HashMap<String, (u64, Value, String)>,
}

impl CrdSchemas {
    /// From the CustomResourceDefinitions among `objects`.
    pub fn from_objects<'r>(
        objects: impl Iterator<Item = &'r Resource>,
        rel: impl Fn(&Path) -> PathBuf,
    ) -> CrdSchemas {
        let mut map = HashMap::new();
        for r in objects {
            let g = r.gvk();
            if g.group != "apiextensions.k8s.io" || g.kind != "CustomResourceDefinition" {
                continue;
            }
            let origin = match &r.origin.file {
                Some(f) => format!("{}:{}", rel(f).display(), r.origin.line),
                None => format!("CustomResourceDefinition {}", r.name()),
            };
            let Ok(schemas) = crd::from_crd(&r.obj) else {
                continue;
            };
            for s in schemas {
                let text = s.schema.to_string();
                let mut h = std::collections::hash_map::DefaultHasher::new();
                text.hash(&mut h);
                map.insert(
                    format!("{}/{}", s.api_version(), s.kind),
                    (h.finish(), s.schema, origin.clone()),
                );
            }
        }
        CrdSchemas { map }
    }

    pub fn get(&self, api_version: &str, kind: &str) -> Option<(u64, &Value, &str)> {
        self.map
            .get(&format!("{api_version}/{kind}"))
            .map(|(h, v, o)| (*h, v, o.as_str()))
    }
}

/// Removes null values from maps (Kubernetes treats them as unset).
pub fn strip_nulls(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.retain(|_, x| !x.is_null());
            m.values_mut().for_each(strip_nulls);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_nulls),
        _ => {}
    }
}

/// One schema error: field path and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    pub path: String,
    pub message: String,
}

/// At most this many errors per object.
const MAX_ERRORS: usize = 10;

/// The message and path of one error, made readable: for `anyOf` /
/// `oneOf` failures the branch that explains it (not the "wrong type"
/// of the alternatives), a Kubernetes quantity named as such, an unknown
/// field pointed at.
fn describe(e: &jsonschema::ValidationError<'_>) -> (String, String) {
    use jsonschema::error::ValidationErrorKind as K;
    let branches = match e.kind() {
        K::AnyOf { context } | K::OneOfNotValid { context } => Some(context),
        _ => None,
    };
    if let Some(branches) = branches {
        let subs: Vec<&jsonschema::ValidationError> = branches.iter().flatten().collect();
        let telling: Vec<&&jsonschema::ValidationError> = subs
            .iter()
            .filter(|x| !matches!(x.kind(), K::Type { .. }))
            .collect();
        if let [one] = telling.as_slice() {
            return describe(one);
        }
        if telling.is_empty() && !subs.is_empty() {
            let types: Vec<String> = subs
                .iter()
                .filter_map(|x| match x.kind() {
                    K::Type { kind } => Some(format!("{kind:?}").to_lowercase()),
                    _ => None,
                })
                .collect();
            return (
                pointer_to_path(e.instance_path().as_str()),
                format!(
                    "{} is not of the expected type ({})",
                    e.instance(),
                    types
                        .iter()
                        .map(|t| t
                            .trim_start_matches("single(")
                            .trim_end_matches(')')
                            .to_string())
                        .collect::<Vec<_>>()
                        .join(" or ")
                ),
            );
        }
    }
    let mut path = pointer_to_path(e.instance_path().as_str());
    let mut message = e.to_string();
    // The instance is printed first; a whole object is noise.
    let inst = e.instance().to_string();
    if inst.len() > 60 && message.starts_with(&inst) {
        let what = match e.instance().as_ref() {
            Value::Object(_) => "the object",
            Value::Array(_) => "the list",
            _ => "the value",
        };
        message = format!("{what}{}", &message[inst.len()..]);
    }
    match e.kind() {
        K::AdditionalProperties { unexpected } if !unexpected.is_empty() => {
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(&unexpected[0]);
            message = format!(
                "unknown field{} {} (not in the schema)",
                if unexpected.len() == 1 { "" } else { "s" },
                unexpected
                    .iter()
                    .map(|u| format!("\"{u}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        K::Pattern { pattern } if pattern.contains("[KMGTPE]i") => {
            message = format!(
                "{} is not a Kubernetes quantity (such as 512Mi, 2Gi, 500m, 1.5)",
                e.instance()
            );
        }
        _ => {}
    }
    (path, message)
}

/// Validates a JSON document.
pub fn errors(validator: &Validator, doc: &Value) -> Vec<SchemaError> {
    errors_redacted(validator, doc, &[])
}

/// [`errors`], with every value of `secrets` (the object's secret values)
/// replaced by `**redacted**` in the messages, which quote the values they
/// complain about.
pub fn errors_redacted(validator: &Validator, doc: &Value, secrets: &[Value]) -> Vec<SchemaError> {
    let mut out: Vec<SchemaError> = Vec::new();
    for e in validator.iter_errors(doc).take(MAX_ERRORS) {
        // A value flate could not see (SOPS-encrypted, not decrypted
        // offline, see flux::sops): its real type and text are unknown,
        // and the render already warned once about it.
        if let Value::String(s) = e.instance().as_ref()
            && crate::flux::sops::holds_placeholder(s)
        {
            continue;
        }
        let (path, mut message) = describe(&e);
        for v in secrets {
            let quoted = v.to_string();
            message = message.replace(&quoted, "\"**redacted**\"");
            if let Value::String(raw) = v
                && raw.len() >= 4
            {
                message = message.replace(raw.as_str(), crate::secret::REDACTED);
            }
        }
        if message.len() > 300 {
            let mut cut = 300;
            while !message.is_char_boundary(cut) {
                cut -= 1;
            }
            message.truncate(cut);
            message.push('…');
        }
        let err = SchemaError { path, message };
        if !out.contains(&err) {
            out.push(err);
        }
    }
    out
}

/// Validates one object (built-in kinds as the newest embedded Kubernetes
/// version has them): its schema errors, or `None` without a schema.
pub fn validate_object(
    schemas: &SchemaSet,
    r: &Resource,
    crds: &CrdSchemas,
) -> Result<Option<Vec<SchemaError>>, String> {
    validate_object_in(schemas, KUBERNETES_VERSION, r, crds)
}

/// [`validate_object`] against Kubernetes `version`.
pub fn validate_object_in(
    schemas: &SchemaSet,
    version: &str,
    r: &Resource,
    crds: &CrdSchemas,
) -> Result<Option<Vec<SchemaError>>, String> {
    match schemas.lookup_in(version, r.api_version(), r.kind(), crds) {
        Lookup::Found { validator, .. } => {
            let mut doc = r.obj.to_json();
            strip_nulls(&mut doc);
            let secrets = crate::secret::secret_values(r);
            Ok(Some(errors_redacted(&validator, &doc, &secrets)))
        }
        Lookup::Missing => Ok(None),
        Lookup::Broken(e) => Err(e),
    }
}

type MissingEntry = (usize, Vec<String>, Option<(PathBuf, usize)>);

/// Kinds without a schema across environments.
#[derive(Debug, Default, Clone)]
pub struct MissingKinds {
    /// (apiVersion, kind) → (objects, environments, first location).
    map: BTreeMap<(String, String), MissingEntry>,
}

impl MissingKinds {
    fn add(&mut self, env: &str, api_version: &str, kind: &str, at: Option<(PathBuf, usize)>) {
        let e = self
            .map
            .entry((api_version.to_string(), kind.to_string()))
            .or_insert((0, Vec::new(), None));
        e.0 += 1;
        if !e.1.iter().any(|x| x == env) {
            e.1.push(env.to_string());
        }
        if e.2.is_none() {
            e.2 = at;
        }
    }
    pub fn merge(&mut self, _env: &str, other: MissingKinds) {
        for ((a, k), (n, envs, at)) in other.map {
            let e = self.map.entry((a, k)).or_insert((0, Vec::new(), None));
            e.0 += n;
            for x in envs {
                if !e.1.contains(&x) {
                    e.1.push(x);
                }
            }
            if e.2.is_none() {
                e.2 = at;
            }
        }
    }
    /// (apiVersion, kind, objects, environments, first location).
    #[allow(clippy::type_complexity)]
    pub fn list(&self) -> Vec<(String, String, usize, Vec<String>, Option<(PathBuf, usize)>)> {
        self.map
            .iter()
            .map(|((a, k), (n, e, at))| (a.clone(), k.clone(), *n, e.clone(), at.clone()))
            .collect()
    }
}

/// What validating one environment found.
pub struct EnvValidation {
    pub findings: Vec<Finding>,
    pub validated: usize,
    pub missing: MissingKinds,
}

/// The apiVersions serving a built-in kind in the newest embedded
/// Kubernetes version, when `api_version` is not one of them (a removed or
/// mistyped version).
pub fn unserved(api_version: &str, kind: &str) -> Option<Vec<String>> {
    unserved_in(KUBERNETES_VERSION, api_version, kind)
}

/// [`unserved`] in Kubernetes `version`.
pub fn unserved_in(version: &str, api_version: &str, kind: &str) -> Option<Vec<String>> {
    let k8s = kubernetes_version(version).ok()?;
    let g = Gvk::from_api_version(api_version, kind);
    match k8s.served.get(&(g.group.clone(), kind.to_string())) {
        Some(served) => (!served.iter().any(|a| a == api_version)).then(|| served.clone()),
        // A kind this version does not have at all, but another embedded
        // version has: not served either (an empty list).
        None => (!versions_serving(api_version, kind).is_empty()).then(Vec::new),
    }
}

/// The embedded Kubernetes versions that serve `api_version` `kind`
/// (read from the store's index: no version's schemas are built).
pub fn versions_serving(api_version: &str, kind: &str) -> Vec<&'static str> {
    let Ok(store) = store() else {
        return Vec::new();
    };
    let Some(variants) = store
        .get("kinds")
        .and_then(|k| k.get(format!("{api_version}/{kind}")))
        .and_then(Value::as_array)
    else {
        return Vec::new();
    };
    KUBERNETES_VERSIONS
        .iter()
        .copied()
        .filter(|v| variants.iter().any(|x| in_version(x, v)))
        .collect()
}

/// Validates every rendered object and kustomization file of `env`.
pub fn validate_env(env: &Env<'_>, schemas: &SchemaSet) -> EnvValidation {
    let locator = Locator::new(env.fs);
    let crds = CrdSchemas::from_objects(env.rendered.all_objects().map(|(_, o)| o), |p| env.rel(p));
    let objects: Vec<_> = env.rendered.rendered_objects().collect();
    // The HelmReleases whose chart calls `lookup` (namespace, name), by
    // the origin labels helm-controller puts on their objects.
    let lookups: std::collections::HashSet<(&str, &str)> = env
        .rendered
        .helmreleases
        .iter()
        .filter(|h| h.calls_lookup)
        .map(|h| (h.namespace.as_str(), h.name.as_str()))
        .collect();
    let lookup_note = |o: &crate::resource::Resource| -> Option<String> {
        let group = crate::flux::model::HELM_GROUP;
        let ns = o.label(&format!("{group}/namespace"))?;
        let name = o.label(&format!("{group}/name"))?;
        lookups.contains(&(ns, name)).then(|| {
            format!(
                " (the chart of HelmRelease {ns}/{name} calls lookup, which finds nothing offline: \
                 a value it reads from the cluster may be missing here)"
            )
        })
    };
    enum Outcome {
        Errors(Vec<Finding>),
        Missing(String, String, Option<(PathBuf, usize)>),
    }
    let outcomes: Vec<Outcome> = objects
        .par_iter()
        .map(|(k, o)| {
            let (file, doc_line) = match &o.origin.file {
                Some(f) => (Some(f.as_path().to_path_buf()), o.origin.line),
                None => (
                    k.origin.file.as_ref().map(|f| f.as_path().to_path_buf()),
                    k.origin.line,
                ),
            };
            let rel = file.as_ref().map(|f| env.rel(f));
            let base = |msg: String| {
                Finding::new("schema-invalid", msg)
                    .env(&env.name)
                    .ks(k.key())
                    .object(o)
            };
            if super::opted_out(o, "schema-invalid") {
                return Outcome::Errors(Vec::new());
            }
            match validate_object_in(schemas, &env.kubernetes_version, o, &crds) {
                Ok(Some(errs)) => {
                    // Variables left unset because an optional source is
                    // absent offline: an error in a field written with
                    // `${...}` is their consequence, a warning like them.
                    // (Matched by origin: the id may itself have been substituted.)
                    let unset: Vec<&str> = if k.absent_sources.is_empty() {
                        Vec::new()
                    } else {
                        k.unset_vars
                            .iter()
                            .filter(|u| u.origin == o.origin && u.object.gvk.kind == o.kind())
                            .map(|u| u.name.as_str())
                            .collect()
                    };
                    Outcome::Errors(
                        errs.into_iter()
                            .map(|e| {
                                let (line, substituted) = match (&file, o.origin.file.is_some()) {
                                    (Some(f), true) => {
                                        let text = locator.text(f);
                                        let written_with_var = |l: usize| {
                                            l != doc_line
                                                && text.as_ref().is_some_and(|t| {
                                                    t.lines()
                                                        .nth(l - 1)
                                                        .is_some_and(|x| x.contains("${"))
                                                })
                                        };
                                        let l = locator.field_line(f, doc_line, &e.path);
                                        // A required property written as
                                        // `server: ${HOST}` is null once the
                                        // variable is empty: the error names its
                                        // parent, the variable is on its line.
                                        let child = required_property(&e.message).map(|p| {
                                            let path = if e.path.is_empty() {
                                                p.to_string()
                                            } else {
                                                format!("{}.{p}", e.path)
                                            };
                                            locator.field_line(f, doc_line, &path)
                                        });
                                        match child {
                                            Some(c) if written_with_var(c) => (c, true),
                                            _ => (l, written_with_var(l)),
                                        }
                                    }
                                    _ => (doc_line, false),
                                };
                                let what = super::ObjectRef::of(o);
                                let field = if e.path.is_empty() {
                                    String::new()
                                } else {
                                    format!("{}: ", e.path)
                                };
                                let f = base(format!("{what}: {field}{}", e.message))
                                    .at(rel.clone(), line)
                                    .path(e.path);
                                if substituted && !unset.is_empty() {
                                    let vars: Vec<String> =
                                        unset.iter().map(|v| format!("${{{v}}}")).collect();
                                    let mut f = f.severity(super::Severity::Warning);
                                    f.message.push_str(&format!(
                                        " (the field is substituted and {} is unset offline)",
                                        vars.join(", ")
                                    ));
                                    f
                                } else if substituted
                                    && e.message.ends_with("is not of type \"string\"")
                                {
                                    let mut f = f;
                                    f.message.push_str(
                                        " (the field is written with ${...}: Flux reads the \
                                         substituted text as YAML, so a variable whose value reads \
                                         as a number or a boolean gives one)",
                                    );
                                    f
                                } else if let Some(note) = lookup_note(o) {
                                    let mut f = f;
                                    f.message.push_str(&note);
                                    f
                                } else {
                                    f
                                }
                            })
                            .collect(),
                    )
                }
                Ok(None) => {
                    if let Some(served) =
                        unserved_in(&env.kubernetes_version, o.api_version(), o.kind())
                    {
                        let what = super::ObjectRef::of(o);
                        let served = if served.is_empty() {
                            format!(
                                "served in Kubernetes {}",
                                versions_serving(o.api_version(), o.kind()).join(", ")
                            )
                        } else {
                            format!("served: {}", served.join(", "))
                        };
                        return Outcome::Errors(vec![
                            base(format!(
                                "{what}: {} is not served by Kubernetes {} ({served})",
                                o.api_version(),
                                env.kubernetes_version,
                            ))
                            .at(
                                rel.clone(),
                                locator.field_line(
                                    file.as_deref().unwrap_or(Path::new("")),
                                    doc_line,
                                    "apiVersion",
                                ),
                            )
                            .path("apiVersion"),
                        ]);
                    }
                    Outcome::Missing(
                        o.api_version().to_string(),
                        o.kind().to_string(),
                        rel.map(|r| (r, doc_line)),
                    )
                }
                Err(e) => Outcome::Errors(vec![
                    base(format!("{}: cannot validate: {e}", super::ObjectRef::of(o)))
                        .at(rel, doc_line),
                ]),
            }
        })
        .collect();
    let mut out = EnvValidation {
        findings: Vec::new(),
        validated: 0,
        missing: MissingKinds::default(),
    };
    for o in outcomes {
        match o {
            Outcome::Errors(f) => {
                out.validated += 1;
                out.findings.extend(f);
            }
            Outcome::Missing(a, k, at) => out.missing.add(&env.name, &a, &k, at),
        }
    }
    // Kustomization files.
    let empty = CrdSchemas::default();
    for kf in &env.kfiles.files {
        let Some(node) = &kf.node else { continue };
        let kind = node.get_str(&["kind"]).unwrap_or("Kustomization");
        let (api_version, kind) = if kind == "Component" {
            ("kustomize.config.k8s.io/v1alpha1", "Component")
        } else {
            ("kustomize.config.k8s.io/v1beta1", "Kustomization")
        };
        if node
            .get_path(&["metadata", "annotations", super::DISABLE_ANNOTATION])
            .and_then(Node::as_str)
            .is_some_and(|v| v.split(',').any(|x| x.trim() == "schema-invalid"))
        {
            continue;
        }
        let Lookup::Found { validator, .. } = schemas.lookup(api_version, kind, &empty) else {
            continue;
        };
        // Validated as kustomize reads it: field names in any case.
        let decoded = crate::kustomize::kustfile::as_decoded(node);
        let mut doc = decoded.as_ref().unwrap_or(node).to_json();
        strip_nulls(&mut doc);
        out.validated += 1;
        for e in errors(&validator, &doc) {
            let line = locator.field_line(&kf.file, kf.line, &e.path);
            let field = if e.path.is_empty() {
                String::new()
            } else {
                format!("{}: ", e.path)
            };
            out.findings.push(
                Finding::new(
                    "schema-invalid",
                    format!("{kind} file: {field}{}", e.message),
                )
                .env(&env.name)
                .at(Some(env.rel(&kf.file)), line)
                .path(e.path),
            );
        }
    }
    out
}

/// The property a `"name" is a required property` error names.
fn required_property(message: &str) -> Option<&str> {
    message
        .strip_suffix("\" is a required property")?
        .strip_prefix('"')
}
