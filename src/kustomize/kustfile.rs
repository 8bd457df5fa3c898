//! The kustomization file: finding it, reading it, rejecting unknown fields.

use std::path::{Path, PathBuf};

use crate::fs::FileSystem;
use crate::yaml::{Map, Node};

use super::Error;

/// File names kustomize recognizes, in its order.
pub const KUSTOMIZATION_FILE_NAMES: [&str; 3] =
    ["kustomization.yaml", "kustomization.yml", "Kustomization"];

const KNOWN_FIELDS: &[&str] = &[
    "apiVersion",
    "kind",
    "metadata",
    "openapi",
    "namePrefix",
    "nameSuffix",
    "namespace",
    "commonLabels",
    "labels",
    "commonAnnotations",
    "patchesStrategicMerge",
    "patchesJson6902",
    "patches",
    "images",
    "imageTags",
    "replacements",
    "replicas",
    "vars",
    "sortOptions",
    "resources",
    "components",
    "crds",
    "bases",
    "configMapGenerator",
    "secretGenerator",
    "helmGlobals",
    "helmCharts",
    "helmChartInflationGenerator",
    "generatorOptions",
    "configurations",
    "generators",
    "transformers",
    "validators",
    "buildMetadata",
];

/// A parsed kustomization (or Component).
#[derive(Debug, Clone, Default)]
pub struct Kustomization {
    pub file: PathBuf,
    pub is_component: bool,
    pub raw: Map,
}

/// Finds the kustomization file in `dir`.
pub fn find(fs: &dyn FileSystem, dir: &Path) -> Result<Option<PathBuf>, Error> {
    let found: Vec<PathBuf> = KUSTOMIZATION_FILE_NAMES
        .iter()
        .map(|n| dir.join(n))
        .filter(|p| fs.is_file(p))
        .collect();
    match found.len() {
        0 => Ok(None),
        1 => Ok(Some(found[0].clone())),
        _ => Err(Error::at(
            dir,
            format!(
                "found multiple kustomization files ({}); keep exactly one",
                found
                    .iter()
                    .map(|p| p
                        .file_name()
                        .unwrap_or_default()
                        .to_string_lossy()
                        .into_owned())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

impl Kustomization {
    /// Reads the kustomization of directory `dir`.
    pub fn load(fs: &dyn FileSystem, dir: &Path) -> Result<Kustomization, Error> {
        let Some(file) = find(fs, dir)? else {
            return Err(Error::at(
                dir,
                format!(
                    "unable to find one of 'kustomization.yaml', 'kustomization.yml' or 'Kustomization' in directory '{}'",
                    dir.display()
                ),
            ));
        };
        let text = fs
            .read_to_string(&file)
            .map_err(|e| Error::at(&file, e.to_string()))?;
        Self::parse(&file, &text)
    }

    pub fn parse(file: &Path, text: &str) -> Result<Kustomization, Error> {
        // kustomize reads its own file with sigs.k8s.io/yaml (YAML 1.1).
        let node = crate::yaml::parse::parse_stream_with(text, crate::yaml::resolve::Schema::V2)
            .map_err(|e| Error::yaml(file, &e))?
            .into_iter()
            .next()
            .map(|d| d.node)
            .unwrap_or(Node::Null);
        let raw = match node {
            // Go's encoding/json matches field names case-insensitively.
            Node::Map(m) => m
                .into_iter()
                .map(|(k, v)| {
                    let canon = KNOWN_FIELDS
                        .iter()
                        .find(|f| f.eq_ignore_ascii_case(&k))
                        .map(|f| f.to_string())
                        .unwrap_or(k);
                    (canon, v)
                })
                .collect(),
            Node::Null => Map::new(),
            other => {
                return Err(Error::at(
                    file,
                    format!(
                        "invalid Kustomization: expected a mapping, found a {}",
                        other.kind_name()
                    ),
                ));
            }
        };
        for k in raw.keys() {
            if !KNOWN_FIELDS.contains(&k.as_str()) {
                return Err(Error::at(
                    file,
                    format!(
                        "invalid Kustomization: json: unknown field \"{k}\" (remove it or fix its spelling)"
                    ),
                ));
            }
        }
        if raw.keys().all(|k| k == "apiVersion" || k == "kind") {
            return Err(Error::at(
                file,
                "kustomization file is empty: it lists nothing to build",
            ));
        }
        let kind = raw
            .get("kind")
            .and_then(Node::as_str)
            .unwrap_or("Kustomization");
        let is_component = match kind {
            "Kustomization" | "" => false,
            "Component" => true,
            other => {
                return Err(Error::at(
                    file,
                    format!(
                        "invalid Kustomization: kind '{other}' is not Kustomization or Component"
                    ),
                ));
            }
        };
        let k = Kustomization {
            file: file.to_path_buf(),
            is_component,
            raw,
        };
        for unsupported in ["helmCharts", "helmChartInflationGenerator", "helmGlobals"] {
            if k.raw.contains_key(unsupported) {
                return Err(Error::at(
                    file,
                    format!(
                        "'{unsupported}' is not supported offline: flate never runs helm; render the chart elsewhere and list its output under 'resources'"
                    ),
                ));
            }
        }
        for plugin in [
            "generators",
            "transformers",
            "validators",
            "crds",
            "configurations",
            "vars",
            "openapi",
        ] {
            if k.raw
                .get(plugin)
                .is_some_and(|n| !n.is_null() && n.as_seq().is_none_or(|s| !s.is_empty()))
            {
                return Err(Error::at(
                    file,
                    format!("'{plugin}' is not supported by flate"),
                ));
            }
        }
        Ok(k)
    }

    pub fn dir(&self) -> &Path {
        self.file.parent().unwrap_or(Path::new("/"))
    }

    pub fn get(&self, key: &str) -> Option<&Node> {
        self.raw.get(key).filter(|n| !n.is_null())
    }

    pub fn str_field(&self, key: &str) -> Result<Option<String>, Error> {
        match self.get(key) {
            None => Ok(None),
            Some(Node::Str(s)) => Ok(Some(s.clone())),
            Some(other) => other
                .scalar_text()
                .map(Some)
                .ok_or_else(|| self.err(format!("'{key}' must be a string"))),
        }
    }

    /// A list of strings field.
    pub fn str_list(&self, key: &str) -> Result<Vec<String>, Error> {
        match self.get(key) {
            None => Ok(Vec::new()),
            Some(Node::Seq(items)) => items
                .iter()
                .map(|n| {
                    n.scalar_text()
                        .ok_or_else(|| self.err(format!("'{key}' must be a list of strings")))
                })
                .collect(),
            Some(_) => Err(self.err(format!("'{key}' must be a list of strings"))),
        }
    }

    /// A list field (items as nodes).
    pub fn list(&self, key: &str) -> Result<Vec<Node>, Error> {
        match self.get(key) {
            None => Ok(Vec::new()),
            Some(Node::Seq(items)) => Ok(items.clone()),
            Some(_) => Err(self.err(format!("'{key}' must be a list"))),
        }
    }

    /// A string-to-string map field.
    pub fn str_map(&self, key: &str) -> Result<Vec<(String, String)>, Error> {
        node_str_map(self.get(key)).map_err(|m| self.err(format!("'{key}': {m}")))
    }

    pub fn err(&self, msg: impl Into<String>) -> Error {
        Error::at(&self.file, msg.into())
    }
}

/// Reads a `map[string]string`.
pub fn node_str_map(n: Option<&Node>) -> Result<Vec<(String, String)>, String> {
    match n {
        None | Some(Node::Null) => Ok(Vec::new()),
        Some(Node::Map(m)) => m
            .iter()
            .map(|(k, v)| match v {
                Node::Str(s) => Ok((k.clone(), s.clone())),
                Node::Null => Ok((k.clone(), String::new())),
                other if other.is_scalar() => {
                    Ok((k.clone(), other.scalar_text().unwrap_or_default()))
                }
                _ => Err(format!("value of '{k}' must be a string")),
            })
            .collect(),
        Some(_) => Err("must be a map of strings".into()),
    }
}
