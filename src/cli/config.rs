//! The repository's `.flate.yaml` (every field optional) and the
//! environments of a repository: the file's, else those discovered in the
//! tree (the directories under kubernetes/clusters/, else every directory
//! holding a Flux sync, as `flux bootstrap` writes it).
//!
//! ```yaml
//! environments:
//!   production:
//!     path: kubernetes/clusters/production
//!     settings: [bootstrap/settings.yaml]
//!     kubernetesVersion: "1.35"
//! charts: [.flate/charts]
//! sources: {"OCIRepository/flux-system/shared": ../shared-manifests}
//! remotes: {"https://example.org/crds.yaml": vendor/crds.yaml}
//! check: {disable: [image-unpinned], schemaDirs: [schemas/crds]}
//! diff: {ignoreFields: ["metadata.labels[helm.sh/chart]"]}
//! ```

use std::path::{Path, PathBuf};

use flate::check::locate::{Seg, find_in_text};
use flate::yaml::Node;

use super::diag::{Diag, closest};

/// The file's name at the repository root.
pub const FILE_NAME: &str = ".flate.yaml";

/// The repository's configuration (all empty without a file).
#[derive(Debug, Clone, Default)]
pub struct RepoConfig {
    /// The file it was read from.
    pub file: Option<PathBuf>,
    pub environments: Vec<EnvConfig>,
    /// Directories of chart archives, relative to the repository root.
    pub charts: Vec<String>,
    /// `Kind/namespace/name` of a Flux source → a local directory holding
    /// its artifact (relative to the repository root).
    pub sources: Vec<(String, String)>,
    /// URL of a remote kustomize resource → its local copy (relative to
    /// the repository root).
    pub remotes: Vec<(String, String)>,
    pub check: CheckConfig,
    pub diff: DiffConfig,
}

#[derive(Debug, Clone, Default)]
pub struct EnvConfig {
    pub name: String,
    /// The entry directory, relative to the repository root.
    pub path: Option<String>,
    /// Files of objects that exist before the render (as `--settings`).
    pub settings: Vec<String>,
    pub kubernetes_version: Option<String>,
    /// Line of the environment in the file.
    pub line: usize,
}

#[derive(Debug, Clone, Default)]
pub struct CheckConfig {
    pub disable: Vec<String>,
    pub schema_dirs: Vec<String>,
}

#[derive(Debug, Clone, Default)]
pub struct DiffConfig {
    pub ignore_fields: Vec<String>,
}

/// Reads `.flate.yaml` of `repo` when there is one.
pub fn load(repo: &Path) -> Result<RepoConfig, Diag> {
    let file = repo.join(FILE_NAME);
    let text = match std::fs::read_to_string(&file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(RepoConfig::default()),
        Err(e) => return Err(Diag::error(format!("cannot read {FILE_NAME}: {e}")).at(&file, 0)),
    };
    parse(&file, &text)
}

/// Parses and validates the text of a `.flate.yaml`.
pub fn parse(file: &Path, text: &str) -> Result<RepoConfig, Diag> {
    let docs = flate::yaml::parse_stream(text).map_err(|e| {
        Diag::error(format!("{FILE_NAME} is not valid YAML: {}", e.message))
            .at(file, e.line)
            .help("every field is optional; see docs/config.md")
    })?;
    let mut cfg = RepoConfig {
        file: Some(file.to_path_buf()),
        ..RepoConfig::default()
    };
    let doc = match docs.as_slice() {
        [] => return Ok(cfg),
        [d] => d,
        [_, d, ..] => {
            return Err(
                Diag::error(format!("{FILE_NAME} holds more than one document")).at(file, d.line),
            );
        }
    };
    let v = Validator {
        file,
        text,
        doc_line: doc.line,
    };
    if doc.node.is_null() {
        return Ok(cfg);
    }
    let top = v.map(&doc.node, &[])?;
    v.known_keys(
        top,
        &[],
        &[
            "environments",
            "charts",
            "sources",
            "remotes",
            "check",
            "diff",
        ],
    )?;
    if let Some(envs) = top.get("environments").filter(|n| !n.is_null()) {
        let path = ["environments"];
        for (name, e) in v.map(envs, &path)?.iter() {
            let here = ["environments", name.as_str()];
            let line = v.line(&here);
            if name.is_empty() || name.contains('/') {
                return Err(v.err(
                    &here,
                    "an environment's name is a non-empty word without '/'",
                ));
            }
            let mut env = EnvConfig {
                name: name.clone(),
                line,
                ..EnvConfig::default()
            };
            if !e.is_null() {
                let m = v.map(e, &here)?;
                v.known_keys(m, &here, &["path", "settings", "kubernetesVersion"])?;
                if let Some(p) = m.get("path") {
                    env.path = Some(v.string(p, &[&here[..], &["path"]].concat())?);
                }
                if let Some(s) = m.get("settings") {
                    env.settings = v.strings(s, &[&here[..], &["settings"]].concat())?;
                }
                if let Some(k) = m.get("kubernetesVersion") {
                    let at = [&here[..], &["kubernetesVersion"]].concat();
                    let k = match k {
                        Node::Str(s) => s.clone(),
                        Node::Float(_) | Node::Int(_) | Node::UInt(_) => {
                            return Err(v.err(
                                &at,
                                "kubernetesVersion must be a quoted string such as \"1.35\" (unquoted, 1.30 reads as the number 1.3)",
                            ));
                        }
                        _ => return Err(v.err(&at, "expected a string such as \"1.35\"")),
                    };
                    let ok = {
                        let t = k.strip_prefix('v').unwrap_or(&k);
                        let parts: Vec<&str> = t.split('.').collect();
                        (2..=3).contains(&parts.len())
                            && parts
                                .iter()
                                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
                    };
                    if !ok {
                        return Err(v.err(
                            &at,
                            &format!("'{k}' is not a Kubernetes version such as \"1.35\""),
                        ));
                    }
                    env.kubernetes_version = Some(k);
                }
            }
            cfg.environments.push(env);
        }
    }
    if let Some(c) = top.get("charts").filter(|n| !n.is_null()) {
        cfg.charts = v.strings(c, &["charts"])?;
    }
    if let Some(s) = top.get("sources").filter(|n| !n.is_null()) {
        for (key, dir) in v.map(s, &["sources"])?.iter() {
            let at = ["sources", key.as_str()];
            let parts: Vec<&str> = key.split('/').collect();
            let kinds = [
                "GitRepository",
                "OCIRepository",
                "Bucket",
                "ExternalArtifact",
            ];
            if parts.len() != 3 || parts.iter().any(|p| p.is_empty()) || !kinds.contains(&parts[0])
            {
                return Err(v.err(
                    &at,
                    &format!(
                        "'{key}' is not a Flux source: write Kind/namespace/name with Kind one of {}",
                        kinds.join(", ")
                    ),
                ));
            }
            cfg.sources.push((key.clone(), v.string(dir, &at)?));
        }
    }
    if let Some(s) = top.get("remotes").filter(|n| !n.is_null()) {
        for (url, path) in v.map(s, &["remotes"])?.iter() {
            let at = ["remotes", url.as_str()];
            if !flate::kustomize::build::is_remote(url) {
                return Err(v.err(
                    &at,
                    &format!(
                        "'{url}' is not a remote reference: write the URL as the kustomization does (https://…, github.com/…, git::…)"
                    ),
                ));
            }
            cfg.remotes.push((url.clone(), v.string(path, &at)?));
        }
    }
    if let Some(c) = top.get("check").filter(|n| !n.is_null()) {
        let m = v.map(c, &["check"])?;
        v.known_keys(m, &["check"], &["disable", "schemaDirs"])?;
        if let Some(d) = m.get("disable") {
            let at = ["check", "disable"];
            cfg.check.disable = v.strings(d, &at)?;
            for (i, id) in cfg.check.disable.iter().enumerate() {
                if flate::check::rule(id).is_none() {
                    let ids: Vec<&str> = flate::check::RULES.iter().map(|r| r.id).collect();
                    let mut msg = format!("check.disable: unknown rule '{id}'");
                    if let Some(c) = closest(id, ids.iter().copied()).first() {
                        msg.push_str(&format!(" (did you mean '{c}'?)"));
                    }
                    return Err(v
                        .err_line(v.item_line(&at, i), &msg)
                        .help("`flate check --list-rules` lists the rules"));
                }
            }
        }
        if let Some(d) = m.get("schemaDirs") {
            cfg.check.schema_dirs = v.strings(d, &["check", "schemaDirs"])?;
        }
    }
    if let Some(d) = top.get("diff").filter(|n| !n.is_null()) {
        let m = v.map(d, &["diff"])?;
        v.known_keys(m, &["diff"], &["ignoreFields"])?;
        if let Some(f) = m.get("ignoreFields") {
            let at = ["diff", "ignoreFields"];
            cfg.diff.ignore_fields = v.strings(f, &at)?;
            for (i, p) in cfg.diff.ignore_fields.iter().enumerate() {
                if let Err(e) = flate::diff::FieldPath::parse(p) {
                    return Err(v.err_line(v.item_line(&at, i), &format!("diff.ignoreFields: {e}")));
                }
            }
        }
    }
    Ok(cfg)
}

/// Checks shapes and says where a field is wrong.
struct Validator<'a> {
    file: &'a Path,
    text: &'a str,
    doc_line: usize,
}

impl Validator<'_> {
    fn line(&self, path: &[&str]) -> usize {
        let segs: Vec<Seg> = path.iter().map(|k| Seg::Key(k.to_string())).collect();
        find_in_text(self.text, self.doc_line, &segs).unwrap_or(self.doc_line)
    }
    fn item_line(&self, path: &[&str], i: usize) -> usize {
        let mut segs: Vec<Seg> = path.iter().map(|k| Seg::Key(k.to_string())).collect();
        segs.push(Seg::Index(i));
        find_in_text(self.text, self.doc_line, &segs).unwrap_or_else(|| self.line(path))
    }
    fn err_line(&self, line: usize, msg: &str) -> Diag {
        Diag::error(format!("{FILE_NAME}: {msg}")).at(self.file, line)
    }
    fn err(&self, path: &[&str], msg: &str) -> Diag {
        let field = if path.is_empty() {
            "the document".to_string()
        } else {
            path.join(".")
        };
        self.err_line(self.line(path), &format!("{field}: {msg}"))
            .label(path.last().copied().unwrap_or(""))
    }
    fn map<'n>(&self, n: &'n Node, path: &[&str]) -> Result<&'n flate::yaml::Map, Diag> {
        n.as_map()
            .ok_or_else(|| self.err(path, &format!("expected a mapping, found {}", kind(n))))
    }
    fn string(&self, n: &Node, path: &[&str]) -> Result<String, Diag> {
        match n {
            Node::Str(s) if !s.is_empty() => Ok(s.clone()),
            _ => Err(self.err(
                path,
                &format!("expected a non-empty string, found {}", kind(n)),
            )),
        }
    }
    /// A list of strings (one string is taken as a list of one).
    fn strings(&self, n: &Node, path: &[&str]) -> Result<Vec<String>, Diag> {
        match n {
            Node::Str(_) => Ok(vec![self.string(n, path)?]),
            Node::Seq(items) => items
                .iter()
                .enumerate()
                .map(|(i, it)| match it {
                    Node::Str(s) if !s.is_empty() => Ok(s.clone()),
                    _ => Err(self.err_line(
                        self.item_line(path, i),
                        &format!(
                            "{}[{i}]: expected a non-empty string, found {}",
                            path.join("."),
                            kind(it)
                        ),
                    )),
                })
                .collect(),
            _ => Err(self.err(
                path,
                &format!("expected a list of strings, found {}", kind(n)),
            )),
        }
    }
    fn known_keys(&self, m: &flate::yaml::Map, path: &[&str], known: &[&str]) -> Result<(), Diag> {
        for k in m.keys() {
            if !known.contains(&k.as_str()) {
                let here: Vec<&str> = path.iter().copied().chain([k.as_str()]).collect();
                let mut d = self.err(&here, "unknown field");
                match closest(k, known.iter().copied()).first() {
                    Some(c) => d = d.help(format!("did you mean '{c}'?")),
                    None => {
                        d = d.help(format!(
                            "the fields{} are: {}",
                            if path.is_empty() {
                                String::new()
                            } else {
                                format!(" of {}", path.join("."))
                            },
                            known.join(", ")
                        ))
                    }
                }
                return Err(d);
            }
        }
        Ok(())
    }
}

fn kind(n: &Node) -> &'static str {
    match n {
        Node::Null => "nothing",
        Node::Bool(_) => "a boolean",
        Node::Int(_) | Node::UInt(_) | Node::Float(_) => "a number",
        Node::Str(_) => "a string",
        Node::Seq(_) => "a list",
        Node::Map(_) => "a mapping",
    }
}

/// Where an environment was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// `.flate.yaml`, at this line.
    Config(usize),
    /// A directory under kubernetes/clusters/.
    ClustersDir,
    /// A Flux sync (Kustomization and GitRepository) in this file,
    /// relative to the repository root.
    FluxSync(String),
    /// `--path`.
    PathFlag,
}

/// One environment: a name and its entry directory.
#[derive(Debug, Clone)]
pub struct Environment {
    pub name: String,
    /// The entry directory, relative to the repository root.
    pub path: String,
    pub settings: Vec<PathBuf>,
    pub kubernetes_version: Option<String>,
    pub found: Found,
}

impl Environment {
    /// Where it was found, for `flate get envs` and messages.
    pub fn origin(&self) -> String {
        match &self.found {
            Found::Config(l) => format!("{FILE_NAME}:{l}"),
            Found::ClustersDir => "kubernetes/clusters/".into(),
            Found::FluxSync(f) => format!("Flux sync in {f}"),
            Found::PathFlag => "--path".into(),
        }
    }
}

/// The environments of `repo`: those of the file when it names any, else
/// the discovered ones.
pub fn environments(repo: &Path, cfg: &RepoConfig) -> Vec<Environment> {
    if !cfg.environments.is_empty() {
        return cfg
            .environments
            .iter()
            .map(|e| Environment {
                name: e.name.clone(),
                path: e
                    .path
                    .clone()
                    .unwrap_or_else(|| format!("kubernetes/clusters/{}", e.name)),
                settings: e.settings.iter().map(|s| repo.join(s)).collect(),
                kubernetes_version: e.kubernetes_version.clone(),
                found: Found::Config(e.line),
            })
            .collect();
    }
    discover(repo)
}

/// Environments found in the tree: the directories under
/// kubernetes/clusters/, else every directory holding a Flux sync.
pub fn discover(repo: &Path) -> Vec<Environment> {
    let mut v: Vec<Environment> = std::fs::read_dir(repo.join("kubernetes/clusters"))
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter(|e| e.path().is_dir())
                .map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    Environment {
                        path: format!("kubernetes/clusters/{name}"),
                        name,
                        settings: Vec::new(),
                        kubernetes_version: None,
                        found: Found::ClustersDir,
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    if v.is_empty() {
        v = flux_syncs(repo);
    }
    v.sort_by(|a, b| a.name.cmp(&b.name));
    v
}

/// Directories that hold a Flux sync: a Flux Kustomization and a
/// GitRepository in the same directory. The environment's entry is the
/// Kustomization's `spec.path` when that directory exists, else the
/// directory itself; it is named after its entry directory (the path
/// relative to the repository, with '-', when two would share a name).
fn flux_syncs(repo: &Path) -> Vec<Environment> {
    let mut found = Vec::new();
    walk(repo, repo, 0, &mut found);
    let mut envs: Vec<Environment> = Vec::new();
    for (dir, ks_path, file) in found {
        let entry = ks_path
            .map(|p| p.trim_start_matches("./").trim_end_matches('/').to_string())
            .filter(|p| !p.is_empty() && repo.join(p).is_dir())
            .unwrap_or(dir);
        if entry.is_empty() || envs.iter().any(|e| e.path == entry) {
            continue;
        }
        envs.push(Environment {
            name: entry.rsplit('/').next().unwrap_or(&entry).to_string(),
            path: entry,
            settings: Vec::new(),
            kubernetes_version: None,
            found: Found::FluxSync(file),
        });
    }
    let names: Vec<String> = envs.iter().map(|e| e.name.clone()).collect();
    for e in envs.iter_mut() {
        if names.iter().filter(|n| **n == e.name).count() > 1 {
            e.name = e.path.replace('/', "-");
        }
    }
    envs
}

/// Collects (directory, the sync Kustomization's spec.path, file) under `dir`.
fn walk(repo: &Path, dir: &Path, depth: usize, out: &mut Vec<(String, Option<String>, String)>) {
    if depth > 8 {
        return;
    }
    // Sorted, each said a directory or not by the listing (a symbolic
    // link followed).
    let Ok(entries) = flate::fs::FileSystem::list_typed(&flate::fs::RealFs, dir) else {
        return;
    };
    // The Flux files of the directory (path, text); read whole, parsed
    // only when one of them may define a GitRepository: a sync needs one
    // here, and most directories of a Flux repository hold Flux objects
    // but no source (parsing them all was most of the time of this walk).
    let mut flux_files: Vec<(std::path::PathBuf, String)> = Vec::new();
    for (name, is_dir) in entries {
        let p = dir.join(&name);
        if is_dir {
            if !name.starts_with('.') && name != "target" && name != "node_modules" {
                walk(repo, &p, depth + 1, out);
            }
            continue;
        }
        if !(name.ends_with(".yaml") || name.ends_with(".yml")) {
            continue;
        }
        let Ok(text) = flate::fs::FileSystem::read_to_string(&flate::fs::RealFs, &p) else {
            continue;
        };
        if text.contains("toolkit.fluxcd.io") {
            flux_files.push((p, text));
        }
    }
    if !flux_files.iter().any(|(_, t)| t.contains("GitRepository")) {
        return;
    }
    // GitRepository names, and Flux Kustomizations (source name, spec.path, file).
    let mut gits: Vec<String> = Vec::new();
    let mut kss: Vec<(String, Option<String>, String)> = Vec::new();
    for (p, text) in &flux_files {
        let Ok(docs) = flate::yaml::parse_stream(text) else {
            continue;
        };
        for d in docs {
            let api = d.node.get_str(&["apiVersion"]).unwrap_or("");
            match d.node.get_str(&["kind"]) {
                Some("GitRepository") if api.starts_with("source.toolkit.fluxcd.io/") => gits.push(
                    d.node
                        .get_str(&["metadata", "name"])
                        .unwrap_or("")
                        .to_string(),
                ),
                Some("Kustomization") if api.starts_with("kustomize.toolkit.fluxcd.io/") => {
                    let rel = p.strip_prefix(repo).unwrap_or(p).display().to_string();
                    kss.push((
                        d.node
                            .get_str(&["spec", "sourceRef", "name"])
                            .unwrap_or("")
                            .to_string(),
                        d.node.get_str(&["spec", "path"]).map(str::to_string),
                        rel,
                    ));
                }
                _ => {}
            }
        }
    }
    // A sync: a Kustomization of a GitRepository defined next to it.
    if let Some((_, path, file)) = kss.into_iter().find(|(src, _, _)| gits.contains(src)) {
        let rel = dir.strip_prefix(repo).unwrap_or(dir).display().to_string();
        out.push((rel, path, file));
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        parse(Path::new("/nonexistent/.flate.yaml"), text)
            .unwrap_err()
            .render(false)
    }

    #[test]
    fn full_example_parses() {
        let c = parse(
            Path::new(".flate.yaml"),
            r#"environments:
  production: {path: kubernetes/clusters/production, settings: [bootstrap/settings.yaml], kubernetesVersion: "1.35"}
  staging:
charts: [.flate/charts]
sources: {"OCIRepository/flux-system/shared": ../shared-manifests}
check: {disable: [image-unpinned], schemaDirs: [schemas/crds]}
diff: {ignoreFields: ["metadata.labels[helm.sh/chart]"]}
"#,
        )
        .unwrap();
        assert_eq!(c.environments.len(), 2);
        assert_eq!(c.environments[0].name, "production");
        assert_eq!(
            c.environments[0].path.as_deref(),
            Some("kubernetes/clusters/production")
        );
        assert_eq!(c.environments[0].settings, vec!["bootstrap/settings.yaml"]);
        assert_eq!(
            c.environments[0].kubernetes_version.as_deref(),
            Some("1.35")
        );
        assert_eq!(c.environments[1].name, "staging");
        assert_eq!(c.environments[1].line, 3);
        assert_eq!(c.charts, vec![".flate/charts"]);
        assert_eq!(
            c.sources,
            vec![(
                "OCIRepository/flux-system/shared".to_string(),
                "../shared-manifests".to_string()
            )]
        );
        assert_eq!(c.check.disable, vec!["image-unpinned"]);
        assert_eq!(c.check.schema_dirs, vec!["schemas/crds"]);
        assert_eq!(c.diff.ignore_fields, vec!["metadata.labels[helm.sh/chart]"]);
    }

    #[test]
    fn empty_file_is_fine() {
        assert!(parse(Path::new("x"), "").unwrap().environments.is_empty());
        assert!(
            parse(Path::new("x"), "# nothing\n")
                .unwrap()
                .environments
                .is_empty()
        );
    }

    #[test]
    fn errors_name_field_and_line() {
        let e = err("environments:\n  prod:\n    path: a\n    setings: [x]\n");
        assert!(
            e.contains("environments.prod.setings: unknown field"),
            "{e}"
        );
        assert!(e.contains(".flate.yaml:4"), "{e}");
        assert!(e.contains("did you mean 'settings'?"), "{e}");

        let e = err("check:\n  disable:\n    - image-unpined\n");
        assert!(
            e.contains("unknown rule 'image-unpinned'")
                || e.contains("unknown rule 'image-unpined'"),
            "{e}"
        );
        assert!(e.contains(".flate.yaml:3"), "{e}");
        assert!(e.contains("did you mean 'image-unpinned'"), "{e}");

        let e = err("environments:\n  prod:\n    kubernetesVersion: 1.30\n");
        assert!(e.contains("environments.prod.kubernetesVersion"), "{e}");
        assert!(e.contains(".flate.yaml:3"), "{e}");
        assert!(e.contains("quoted"), "{e}");

        let e = err("sources:\n  shared: ../x\n");
        assert!(e.contains("sources.shared"), "{e}");
        assert!(e.contains("Kind/namespace/name"), "{e}");
        let e = err("sources:\n  HelmRepository/flux-system/charts: ../x\n");
        assert!(
            e.contains("GitRepository, OCIRepository, Bucket, ExternalArtifact"),
            "{e}"
        );

        let e = err("charts: 3\n");
        assert!(
            e.contains("charts: expected a list of strings, found a number"),
            "{e}"
        );
        assert!(e.contains(".flate.yaml:1"), "{e}");

        let e = err("environments: [a]\n");
        assert!(
            e.contains("environments: expected a mapping, found a list"),
            "{e}"
        );

        let e = err("diff:\n  ignoreFields:\n    - 'a[b'\n");
        assert!(e.contains("diff.ignoreFields"), "{e}");
        assert!(e.contains(".flate.yaml:3"), "{e}");

        let e = err("environments: {a: [\n");
        assert!(e.contains("not valid YAML"), "{e}");
    }

    #[test]
    fn discovery_finds_flux_syncs_named_after_their_entry() {
        let d = tempfile::tempdir().unwrap();
        let sync = |dir: &str, path: &str| {
            let p = d.path().join(dir);
            std::fs::create_dir_all(&p).unwrap();
            std::fs::write(
                p.join("gotk-sync.yaml"),
                format!(
                    "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {{name: flux-system, namespace: flux-system}}\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: flux-system, namespace: flux-system}}\nspec:\n  path: {path}\n  sourceRef: {{kind: GitRepository, name: flux-system}}\n"
                ),
            )
            .unwrap();
        };
        sync("clusters/production/flux-system", "./clusters/production");
        sync("clusters/staging/flux-system", "./clusters/staging");
        // A Flux Kustomization whose GitRepository is defined elsewhere is
        // not a sync.
        let app = d.path().join("apps/podinfo");
        std::fs::create_dir_all(&app).unwrap();
        std::fs::write(
            app.join("ks.yaml"),
            "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: other}\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: podinfo}\nspec:\n  path: ./apps/podinfo\n  sourceRef: {kind: GitRepository, name: flux-system}\n",
        )
        .unwrap();
        // The GitRepository and the Kustomization in two files of one
        // directory (reached through a symbolic link) make a sync too.
        let split = d.path().join("real/split/flux-system");
        std::fs::create_dir_all(&split).unwrap();
        std::fs::write(
            split.join("a-repo.yaml"),
            "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: flux-system}\n",
        )
        .unwrap();
        std::fs::write(
            split.join("b-sync.yaml"),
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: flux-system}\nspec:\n  path: ./nowhere\n  sourceRef: {kind: GitRepository, name: flux-system}\n",
        )
        .unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(d.path().join("real/split"), d.path().join("clusters/split"))
            .unwrap();
        let envs = discover(d.path());
        let got: Vec<(&str, &str)> = envs
            .iter()
            .map(|e| (e.name.as_str(), e.path.as_str()))
            .collect();
        #[cfg(unix)]
        assert_eq!(
            got,
            vec![
                // Two entries named flux-system: each named by its path.
                ("clusters-split-flux-system", "clusters/split/flux-system"),
                ("production", "clusters/production"),
                ("real-split-flux-system", "real/split/flux-system"),
                ("staging", "clusters/staging"),
            ]
        );
        #[cfg(not(unix))]
        assert_eq!(got.len(), 3);
        let production = envs.iter().find(|e| e.name == "production").unwrap();
        assert_eq!(
            production.found,
            Found::FluxSync("clusters/production/flux-system/gotk-sync.yaml".into())
        );
    }
}
