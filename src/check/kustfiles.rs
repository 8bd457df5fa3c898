//! The kustomization files an environment's render read: from the path of
//! every Flux Kustomization sourced from the repository, through
//! `resources`, `bases` and `components` directories. Their text is
//! validated against the kustomization schema, and their resource and patch
//! entries tell the lints where a Kustomization is listed and which files
//! carry patches.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};

use crate::flux::{Rendered, Status};
use crate::fs::{FileSystem, normalize};
use crate::yaml::Node;

/// One `patches` / `patchesStrategicMerge` / `patchesJson6902` entry.
#[derive(Debug, Clone)]
pub struct PatchRef {
    /// The patch file, when the patch is not inline.
    pub file: Option<PathBuf>,
    /// The inline patch text.
    pub inline: Option<String>,
    /// The `target:` selector.
    pub target: Option<Node>,
}

/// One kustomization file.
#[derive(Debug, Clone)]
pub struct KustFile {
    pub dir: PathBuf,
    pub file: PathBuf,
    /// None when the file is not valid YAML (the render reports it).
    pub node: Option<Node>,
    /// 1-based line of the document.
    pub line: usize,
    pub resource_files: Vec<PathBuf>,
    pub resource_dirs: Vec<PathBuf>,
    pub components: Vec<PathBuf>,
    pub patches: Vec<PatchRef>,
}

/// The kustomization files of one environment, in discovery order.
#[derive(Debug, Clone, Default)]
pub struct KustFiles {
    pub files: Vec<KustFile>,
    by_dir: HashMap<PathBuf, usize>,
}

fn is_remote(s: &str) -> bool {
    s.contains("://") || s.starts_with("github.com/") || s.starts_with("git@")
}

fn strings(n: &Node, key: &str) -> Vec<String> {
    match n.get(key) {
        Some(Node::Seq(items)) => items.iter().filter_map(Node::scalar_text).collect(),
        _ => Vec::new(),
    }
}

impl KustFiles {
    /// Walks from every rendered Kustomization's path.
    pub fn walk(fs: &dyn FileSystem, repo: &Path, rendered: &Rendered) -> KustFiles {
        let mut out = KustFiles::default();
        let mut queue: VecDeque<PathBuf> = rendered
            .kustomizations
            .iter()
            .filter(|k| k.status != Status::Skipped)
            .filter(|k| k.source.kind == "GitRepository" && k.source.name == "flux-system")
            .map(|k| normalize(repo, Path::new(&k.path)))
            .collect();
        let mut seen = std::collections::HashSet::new();
        while let Some(dir) = queue.pop_front() {
            if !seen.insert(dir.clone()) {
                continue;
            }
            let Ok(Some(file)) = crate::kustomize::kustfile::find(fs, &dir) else {
                continue;
            };
            let Ok(text) = fs.read_to_string(&file) else {
                continue;
            };
            let (node, line) = match crate::yaml::parse_stream(&text) {
                Ok(docs) if !docs.is_empty() => (Some(docs[0].node.clone()), docs[0].line),
                _ => (None, 1),
            };
            let mut kf = KustFile {
                dir: dir.clone(),
                file,
                node: node.clone(),
                line,
                resource_files: Vec::new(),
                resource_dirs: Vec::new(),
                components: Vec::new(),
                patches: Vec::new(),
            };
            if let Some(n) = &node {
                for r in strings(n, "resources")
                    .into_iter()
                    .chain(strings(n, "bases"))
                {
                    if is_remote(&r) {
                        continue;
                    }
                    let p = normalize(&dir, Path::new(&r));
                    if fs.is_dir(&p) {
                        kf.resource_dirs.push(p.clone());
                        queue.push_back(p);
                    } else {
                        kf.resource_files.push(p);
                    }
                }
                for c in strings(n, "components") {
                    if is_remote(&c) {
                        continue;
                    }
                    let p = normalize(&dir, Path::new(&c));
                    kf.components.push(p.clone());
                    queue.push_back(p);
                }
                for key in ["patches", "patchesJson6902"] {
                    if let Some(Node::Seq(items)) = n.get(key) {
                        for it in items {
                            let file = it.get_str(&["path"]).map(|p| normalize(&dir, Path::new(p)));
                            kf.patches.push(PatchRef {
                                file,
                                inline: it.get_str(&["patch"]).map(str::to_string),
                                target: it.get("target").cloned(),
                            });
                        }
                    }
                }
                for s in strings(n, "patchesStrategicMerge") {
                    let p = normalize(&dir, Path::new(s.trim()));
                    if !s.contains('\n') && fs.is_file(&p) {
                        kf.patches.push(PatchRef {
                            file: Some(p),
                            inline: None,
                            target: None,
                        });
                    } else {
                        kf.patches.push(PatchRef {
                            file: None,
                            inline: Some(s),
                            target: None,
                        });
                    }
                }
            }
            out.by_dir.insert(dir, out.files.len());
            out.files.push(kf);
        }
        out
    }

    pub fn get(&self, dir: &Path) -> Option<&KustFile> {
        self.by_dir.get(dir).map(|&i| &self.files[i])
    }

    /// Every patch file of the environment.
    pub fn patch_files(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = self
            .files
            .iter()
            .flat_map(|k| k.patches.iter().filter_map(|p| p.file.clone()))
            .collect();
        v.sort();
        v.dedup();
        v
    }
}
