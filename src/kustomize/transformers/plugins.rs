//! `generators:`, `transformers:` and `validators:`: kustomize's builtin
//! plugins configured by objects (`apiVersion: builtin`), given inline as
//! YAML strings or as paths to files or kustomization directories (whose
//! built objects are the configurations).
//!
//! Facts from kustomize v5.5.0 (`api/internal/target/kusttarget.go`,
//! `api/internal/plugins/loader/loader.go`):
//! - an entry that parses as objects is inline, any other is a path; the
//!   paths are accumulated as `resources:` are (a directory is built by
//!   its own kustomization), then every configuration is loaded in order;
//! - a configuration is builtin when its group is empty and its version is
//!   `builtin`; any other is an exec, container or Go plugin, which kubectl
//!   refuses without `--enable-alpha-plugins`: `external plugins disabled;
//!   unable to load external plugin 'KIND'`;
//! - a builtin kind kustomize does not know (SortOrderTransformer among
//!   them: it is not wired as a plugin) fails with `unable to load builtin
//!   KIND.builtin.[noGrp]`; a generator listed under `transformers:` (or
//!   the reverse) fails with `plugin ID not a transformer` (`generator`);
//! - builtin plugins read their configuration non-strictly and get no
//!   default field specs: a LabelTransformer without `fieldSpecs` changes
//!   nothing; Prefix/SuffixTransformer require `fieldSpecs`;
//! - configured transformers run after the kustomization's own, generators
//!   after its `configMapGenerator`/`secretGenerator`; a validator runs
//!   like a transformer and the build fails if it changed anything.

use std::borrow::Cow;
use std::path::PathBuf;

use crate::resource::{Gvk, ResId, ResMap};
use crate::yaml::{Map, Node};

use super::super::Error;
use super::super::build::{Kustomizer, Loader, is_remote};
use super::super::kustfile::Kustomization;
use super::super::origin::{self, Origin};
use super::super::tconfig::TransformerConfig;
use super::{
    Config, Field, ImageTagTransformer, MapEntriesTransformer, NamespaceTransformer,
    PrefixSuffixTransformer, ReplicaCountTransformer, Step, Transformer,
};

const GENERATOR_KINDS: [&str; 4] = [
    "ConfigMapGenerator",
    "SecretGenerator",
    "IAMPolicyGenerator",
    "HelmChartInflationGenerator",
];
const TRANSFORMER_KINDS: [&str; 14] = [
    "AnnotationsTransformer",
    "HashTransformer",
    "ImageTagTransformer",
    "LabelTransformer",
    "NamespaceTransformer",
    "PatchJson6902Transformer",
    "PatchStrategicMergeTransformer",
    "PatchTransformer",
    "PrefixSuffixTransformer",
    "PrefixTransformer",
    "SuffixTransformer",
    "ReplacementTransformer",
    "ReplicaCountTransformer",
    "ValueAddTransformer",
];

/// An entry is inline when it parses as one or more objects.
fn is_inline(entry: &str) -> bool {
    crate::yaml::parse_stream(entry)
        .is_ok_and(|docs| !docs.is_empty() && docs.iter().all(|d| matches!(d.node, Node::Map(_))))
}

/// The configurations listed in `field` of `k`, in order.
fn load_configs(
    kz: &Kustomizer,
    k: &Kustomization,
    ldr: &Loader,
    field: &str,
    stack: &mut Vec<PathBuf>,
) -> Result<Vec<(Config, ResId)>, Error> {
    let entries = k.str_list(field)?;
    if entries.is_empty() {
        return Ok(Vec::new());
    }
    let mut inline = ResMap::new();
    let mut paths = Vec::new();
    for e in &entries {
        if !is_inline(e) {
            paths.push(e.clone());
            continue;
        }
        let objs = super::super::build::resources_from_text(&k.file, e)
            .map_err(|err| err.context(format!("configuring {field}")))?;
        for mut r in objs {
            if kz.tracks_origins() {
                let o = Origin::file(origin::relative(&stack[0], &k.file));
                origin::set_annotation(&mut r, origin::ORIGIN, Some(o.text()));
            }
            inline
                .append(r)
                .map_err(|m| k.err(format!("configuring {field}: {m}")))?;
        }
    }
    let mut from_paths = ResMap::new();
    let mut throwaway = TransformerConfig::default();
    for p in &paths {
        if is_remote(p) {
            return Err(k.err(format!(
                "{field}: remote configuration '{p}' is not supported offline"
            )));
        }
        kz.accumulate_path(k, ldr, p, 0, &mut from_paths, &mut throwaway, stack)
            .map_err(|e| e.context(format!("loading {field}")))?;
    }
    inline
        .append_all(from_paths)
        .map_err(|m| k.err(format!("configuring {field}: {m}")))?;
    Ok(inline
        .resources
        .into_iter()
        .map(|r| {
            let id = r.org_id();
            (Config { node: r.obj }, id)
        })
        .collect())
}

/// `OriginFromCustomPlugin`: where a configuration came from and what it is.
fn plugin_origin(c: &Config) -> Origin {
    let from = c
        .node
        .get_path(&["metadata", "annotations", origin::ORIGIN])
        .and_then(Node::as_str)
        .and_then(Origin::parse)
        .unwrap_or_default();
    let s = |p: &[&str]| c.node.get_str(p).unwrap_or("").to_string();
    Origin {
        path: String::new(),
        configured_in: from.path,
        api_version: s(&["apiVersion"]),
        kind: s(&["kind"]),
        name: s(&["metadata", "name"]),
        namespace: s(&["metadata", "namespace"]),
    }
}

/// Refuses what is not a builtin plugin, as kubectl does.
fn check_builtin(c: &Config, id: &ResId) -> Result<(), String> {
    let gvk: &Gvk = &id.gvk;
    if !(gvk.group.is_empty() && gvk.version == "builtin") {
        return Err(format!(
            "external plugins disabled; unable to load external plugin '{}' (flate runs no exec, container or Go plugin)",
            c.kind()
        ));
    }
    let kind = c.kind();
    if !GENERATOR_KINDS.contains(&kind) && !TRANSFORMER_KINDS.contains(&kind) {
        return Err(format!("unable to load builtin {}", gvk.kustomize_string()));
    }
    Ok(())
}

/// A configuration turned into the kustomization field the same builtin
/// reads, for the transformers that load files and run patches.
fn as_field<'a>(k: &Kustomization, key: &str, value: Node, f: Field) -> Transformer<'a> {
    let mut raw = Map::new();
    raw.insert(key, value);
    Transformer::Field(
        Cow::Owned(Kustomization {
            file: k.file.clone(),
            is_component: false,
            raw,
            text: None,
        }),
        f,
    )
}

/// A map with the listed fields of the configuration (keys matched
/// case-insensitively), renamed.
fn pick(c: &Config, fields: &[(&str, &str)]) -> Node {
    let mut m = Map::new();
    for (from, to) in fields {
        if let Some(v) = c.get(from)
            && !v.is_null()
        {
            m.insert(*to, v.clone());
        }
    }
    Node::Map(m)
}

/// The transformers one builtin configuration makes.
fn transformers_of(
    k: &Kustomization,
    c: &Config,
    id: &ResId,
) -> Result<Vec<Transformer<'static>>, String> {
    check_builtin(c, id)?;
    let one = |t: Transformer<'static>| Ok(vec![t]);
    match c.kind() {
        "AnnotationsTransformer" => one(Transformer::Annotations(MapEntriesTransformer::from_config(
            c,
            "annotations",
        )?)),
        "LabelTransformer" => one(Transformer::Labels(MapEntriesTransformer::from_config(
            c, "labels",
        )?)),
        "NamespaceTransformer" => one(Transformer::Namespace(NamespaceTransformer::from_config(c)?)),
        "PrefixTransformer" => one(Transformer::PrefixSuffix(
            PrefixSuffixTransformer::from_config(c, true)?,
        )),
        "SuffixTransformer" => one(Transformer::PrefixSuffix(
            PrefixSuffixTransformer::from_config(c, false)?,
        )),
        "PrefixSuffixTransformer" => Ok(vec![
            Transformer::PrefixSuffix(PrefixSuffixTransformer::from_config(c, true)?),
            Transformer::PrefixSuffix(PrefixSuffixTransformer::from_config(c, false)?),
        ]),
        "ImageTagTransformer" => one(Transformer::Images(ImageTagTransformer::from_config(c)?)),
        "ReplicaCountTransformer" => one(Transformer::Replicas(
            ReplicaCountTransformer::from_config(c)?,
        )),
        "HashTransformer" => one(Transformer::Hash),
        "PatchTransformer" => {
            let item = pick(
                c,
                &[
                    ("path", "path"),
                    ("patch", "patch"),
                    ("target", "target"),
                    ("options", "options"),
                ],
            );
            if c.str_at(&["path"])?.is_empty() && c.str_at(&["patch"])?.trim().is_empty() {
                return Err("must specify one of patch and path".into());
            }
            one(as_field(k, "patches", Node::Seq(vec![item]), Field::Patches))
        }
        "PatchStrategicMergeTransformer" => {
            let mut entries: Vec<Node> = match c.get("paths") {
                None | Some(Node::Null) => Vec::new(),
                Some(Node::Seq(items)) => items.clone(),
                Some(_) => return Err("'paths' must be a list of strings".into()),
            };
            let inline = c.str_at(&["patches"])?;
            if entries.is_empty() && inline.is_empty() {
                return Err("empty file path and empty patch content".into());
            }
            if !inline.is_empty() {
                entries.push(Node::Str(inline));
            }
            one(as_field(
                k,
                "patchesStrategicMerge",
                Node::Seq(entries),
                Field::PatchesStrategicMerge,
            ))
        }
        "PatchJson6902Transformer" => {
            if c.str_at(&["target", "name"])?.is_empty() {
                return Err("must specify the target name".into());
            }
            let path = c.str_at(&["path"])?;
            let op = c.str_at(&["jsonOp"])?;
            if path.is_empty() && op.is_empty() {
                return Err("empty file path and empty jsonOp".into());
            }
            if !path.is_empty() && !op.is_empty() {
                return Err("must specify a file path or jsonOp, not both".into());
            }
            let item = pick(c, &[("target", "target"), ("path", "path"), ("jsonOp", "patch")]);
            one(as_field(
                k,
                "patchesJson6902",
                Node::Seq(vec![item]),
                Field::PatchesJson6902,
            ))
        }
        "ReplacementTransformer" => {
            let list = match c.get("replacements") {
                None | Some(Node::Null) => Node::Seq(Vec::new()),
                Some(l @ Node::Seq(_)) => l.clone(),
                Some(_) => return Err("'replacements' must be a list".into()),
            };
            one(as_field(k, "replacements", list, Field::Replacements))
        }
        "ValueAddTransformer" => Err(
            "ValueAddTransformer is not supported by flate (kustomize has no kustomization field for it)"
                .into(),
        ),
        _ => Err(format!("plugin {id} not a transformer")),
    }
}

/// The transformers configured by `field` (`transformers` or `validators`).
pub fn configured(
    kz: &Kustomizer,
    k: &Kustomization,
    ldr: &Loader,
    field: &str,
    stack: &mut Vec<PathBuf>,
) -> Result<Vec<Step<'static>>, Error> {
    let mut out = Vec::new();
    for (c, id) in load_configs(kz, k, ldr, field, stack)? {
        let ts = transformers_of(k, &c, &id).map_err(|m| {
            if m.starts_with("external plugins disabled")
                || m.starts_with("unable to load builtin")
                || m.ends_with("not a transformer")
            {
                k.err(m)
            } else {
                k.err(format!("plugin {id} fails configuration: {m}"))
            }
        })?;
        // One configuration is one transformer for kustomize, recorded once.
        let origin = plugin_origin(&c);
        let last = ts.len().saturating_sub(1);
        out.extend(ts.into_iter().enumerate().map(|(i, transformer)| Step {
            transformer,
            origin: origin.clone(),
            records: usize::from(i == last),
        }));
    }
    Ok(out)
}

/// The same transformer writing a value no object holds: kustomize
/// compares the nodes before and after a validator deeply (positions and
/// tags included), so a validator that writes a field fails even when it
/// writes the value already there.
fn with_sentinel(t: &Transformer<'static>) -> Option<Transformer<'static>> {
    const S: &str = "\u{0}flate-validator-probe";
    let mut t = t.clone();
    match &mut t {
        Transformer::Labels(x) | Transformer::Annotations(x) => {
            x.pairs.iter_mut().for_each(|(_, v)| *v = S.into())
        }
        Transformer::Namespace(x) => x.namespace = S.into(),
        Transformer::PrefixSuffix(x) => x.affix = S.into(),
        Transformer::Replicas(x) => x.count = i64::MIN + 7,
        Transformer::Images(x) => x.set_new_name(S),
        Transformer::Field(..) | Transformer::Hash => return None,
    }
    Some(t)
}

/// Whether a patch transformer patches any object (kustomize's patches
/// rebuild the nodes they touch, even with the values already there): an
/// untargeted strategic-merge patch always does (it fails otherwise), a
/// targeted one when its target selects something.
fn patch_touches(t: &Transformer, m: &ResMap) -> bool {
    let Transformer::Field(k, f) = t else {
        return false;
    };
    let key = match f {
        Field::PatchesStrategicMerge => return true,
        Field::Patches => "patches",
        Field::PatchesJson6902 => "patchesJson6902",
        Field::Replacements => return false,
    };
    k.list(key)
        .unwrap_or_default()
        .iter()
        .any(|item| match item.get("target") {
            None | Some(Node::Null) => true,
            Some(sel) => {
                super::super::patch::select(m, &super::super::patch::Selector::from_node(sel))
                    .is_ok_and(|v| !v.is_empty())
            }
        })
}

/// Runs `validators:`: each runs on a copy of the objects, and the build
/// fails if it wrote to them.
pub fn validate(
    kz: &Kustomizer,
    k: &Kustomization,
    ldr: &Loader,
    m: &ResMap,
    stack: &mut Vec<PathBuf>,
) -> Result<(), Error> {
    let shown = |m: &ResMap| -> Vec<String> {
        m.iter()
            .map(|r| crate::yaml::stream_to_string(std::iter::once(&r.obj)))
            .collect()
    };
    for step in configured(kz, k, ldr, "validators", stack)? {
        let v = step.transformer;
        let before = shown(m);
        let mut copy = m.clone();
        v.apply(ldr, &mut copy)?;
        // The namespace transformer records every object's previous id.
        let mut changed = before != shown(&copy)
            || matches!(&v, Transformer::Namespace(x) if !x.namespace.is_empty() && !m.is_empty())
            || patch_touches(&v, m);
        if !changed && let Some(probe) = with_sentinel(&v) {
            let mut copy = m.clone();
            probe.apply(ldr, &mut copy)?;
            changed = before != shown(&copy);
        }
        if changed {
            return Err(k.err(
                "validator shouldn't modify the resource map (a builtin transformer listed under 'validators' writes to the objects)",
            ));
        }
    }
    Ok(())
}

/// `IAMPolicyGenerator` (kustomize's `api/filters/iampolicygenerator`): a
/// ServiceAccount bound to a GKE service account, made from the same YAML
/// text kustomize parses.
fn iam_policy_service_account(c: &Config) -> Result<crate::resource::Resource, String> {
    let cloud = c.str_at(&["cloud"])?;
    if cloud != "gke" {
        return Err(format!("cloud provider {cloud} not supported yet"));
    }
    let mut text = format!(
        "\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  annotations:\n    iam.gke.io/gcp-service-account: {}@{}.iam.gserviceaccount.com\n  name: {}\n",
        c.str_at(&["serviceAccount", "name"])?,
        c.str_at(&["serviceAccount", "projectId"])?,
        c.str_at(&["kubernetesService", "name"])?,
    );
    let ns = c.str_at(&["kubernetesService", "namespace"])?;
    if !ns.is_empty() {
        text.push_str(&format!("\n  namespace: {ns}"));
    }
    let file = std::path::Path::new("IAMPolicyGenerator");
    let mut objs = super::super::build::resources_from_text(file, &text).map_err(|e| e.message)?;
    if objs.len() != 1 {
        return Err("the generated ServiceAccount does not parse as one object".into());
    }
    Ok(objs.remove(0))
}

/// Runs `generators:`, adding what they generate to `m`.
pub fn generate(
    kz: &Kustomizer,
    k: &Kustomization,
    ldr: &Loader,
    m: &mut ResMap,
    stack: &mut Vec<PathBuf>,
) -> Result<(), Error> {
    for (c, id) in load_configs(kz, k, ldr, "generators", stack)? {
        check_builtin(&c, &id).map_err(|m| k.err(m))?;
        let key = match c.kind() {
            "ConfigMapGenerator" => "configMapGenerator",
            "SecretGenerator" => "secretGenerator",
            "IAMPolicyGenerator" => {
                let mut sa = iam_policy_service_account(&c)
                    .map_err(|m| k.err(format!("plugin {id}: {m}")))?;
                if kz.tracks_origins() {
                    origin::set_if_absent(&mut sa, &plugin_origin(&c));
                }
                m.append(sa).map_err(|e| k.err(e))?;
                continue;
            }
            "HelmChartInflationGenerator" => {
                return Err(k.err(format!("{} is not supported offline by flate", c.kind())));
            }
            _ => {
                return Err(k.err(format!(
                    "failed to load generator: plugin {id} not a generator"
                )));
            }
        };
        let mut args = Map::new();
        if let Node::Map(cm) = &c.node {
            for (f, v) in cm.iter() {
                if ["apiVersion", "kind", "metadata"]
                    .iter()
                    .any(|x| x.eq_ignore_ascii_case(f))
                {
                    continue;
                }
                args.insert(f.clone(), v.clone());
            }
        }
        for f in ["name", "namespace"] {
            let own = args.get(f).and_then(Node::as_str).unwrap_or("");
            if own.is_empty() {
                let meta = c
                    .str_at(&["metadata", f])
                    .map_err(|m| k.err(format!("plugin {id} fails configuration: {m}")))?;
                args.insert(f, Node::Str(meta));
            }
        }
        let synthetic = Kustomization {
            file: k.file.clone(),
            is_component: false,
            raw: [(key.to_string(), Node::Seq(vec![Node::Map(args)]))]
                .into_iter()
                .collect(),
            text: None,
        };
        if kz.tracks_origins() {
            let o = plugin_origin(&c);
            super::super::generators::run_with(&synthetic, ldr, m, &|r, _| {
                origin::set_if_absent(r, &o)
            })?;
        } else {
            super::super::generators::run(&synthetic, ldr, m)?;
        }
    }
    Ok(())
}
