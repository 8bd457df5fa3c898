//! Flux's ArtifactGenerator (source-watcher, `source.extensions.fluxcd.io`):
//! the ExternalArtifacts it makes by copying files out of other sources'
//! artifacts, built offline so that a Kustomization whose `sourceRef` is
//! such an ExternalArtifact renders.
//!
//! The copy operations follow source-watcher's builder (`cp`-like):
//! - `from: "@alias/path"` without glob characters copies a file, or a
//!   directory as a subdirectory of the destination (`@alias/dir/` to
//!   `@artifact/dest/` makes `dest/dir/`);
//! - a glob (`*`, `?`, `[...]`: Go's `fs.Glob`, one path segment per
//!   segment, so `**` is `*`) copies each match; a pattern ending in `/**`
//!   copies the contents of the directory before it, any other keeps each
//!   match's whole path under the destination; a matched directory is
//!   copied whole;
//! - a file to a destination ending in `/`, or naming a directory already
//!   made, goes into it under its own name; otherwise it is the
//!   destination;
//! - `exclude` patterns (doublestar: `**` spans directories) are matched
//!   against each path relative to the source and to the literal prefix of
//!   `from`; one without `/` also against the file name;
//! - `strategy: Merge` merges a YAML file into an existing destination
//!   (maps deeply, everything else replaced, as Helm merges values);
//!   `Extract` extracts tarballs (`.tar.gz`, `.tgz`: one named, or those a
//!   doublestar glob matches) into the destination directory.
//!
//! Operations run in order; later ones overwrite earlier ones' files.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Path, PathBuf};

use crate::fs::FileSystem;
use crate::helm::chart::glob::go_match;
use crate::resource::Resource;
use crate::yaml::Node;

pub const GROUP: &str = "source.extensions.fluxcd.io";

/// The artifact a generator makes: files held in memory, mounted at
/// `root` (a path of its own, `/ExternalArtifact/NAMESPACE/NAME`).
#[derive(Debug, Default)]
pub struct MemFs {
    root: PathBuf,
    files: BTreeMap<String, Vec<u8>>,
    dirs: BTreeSet<String>,
}

impl MemFs {
    pub fn new(root: PathBuf) -> MemFs {
        MemFs {
            root,
            ..MemFs::default()
        }
    }
    pub fn root(&self) -> &Path {
        &self.root
    }
    /// The artifact's files, by path inside it.
    pub fn files(&self) -> impl Iterator<Item = (&String, &Vec<u8>)> {
        self.files.iter()
    }
    fn rel(&self, p: &Path) -> Option<String> {
        let r = p.strip_prefix(&self.root).ok()?;
        Some(r.to_string_lossy().into_owned())
    }
    fn mkdir(&mut self, rel: &str) {
        let mut at = rel.trim_matches('/');
        while !at.is_empty() && at != "." {
            if !self.dirs.insert(at.to_string()) {
                break;
            }
            at = at.rsplit_once('/').map_or("", |(d, _)| d);
        }
    }
    fn write(&mut self, rel: &str, data: Vec<u8>) -> Result<(), String> {
        if self.dirs.contains(rel) {
            return Err(format!("'{rel}' is a directory in the artifact"));
        }
        if let Some((dir, _)) = rel.rsplit_once('/') {
            if self.files.contains_key(dir) {
                return Err(format!("'{dir}' is a file in the artifact"));
            }
            self.mkdir(dir);
        }
        self.files.insert(rel.to_string(), data);
        Ok(())
    }
    fn is_dir_rel(&self, rel: &str) -> bool {
        rel.is_empty() || rel == "." || self.dirs.contains(rel)
    }
}

impl FileSystem for MemFs {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        let rel = self.rel(path).unwrap_or_default();
        match self.files.get(&rel) {
            Some(d) => Ok(d.clone()),
            None if self.is_dir(path) => Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                "is a directory",
            )),
            None => Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("{} not found in the artifact", path.display()),
            )),
        }
    }
    fn is_dir(&self, path: &Path) -> bool {
        self.rel(path).is_some_and(|r| self.is_dir_rel(&r))
    }
    fn is_file(&self, path: &Path) -> bool {
        self.rel(path).is_some_and(|r| self.files.contains_key(&r))
    }
    fn list(&self, path: &Path) -> io::Result<Vec<String>> {
        let Some(rel) = self.rel(path).filter(|r| self.is_dir_rel(r)) else {
            return Err(io::Error::new(io::ErrorKind::NotFound, "not a directory"));
        };
        let prefix = if rel.is_empty() {
            String::new()
        } else {
            format!("{rel}/")
        };
        let child = |p: &String| {
            p.strip_prefix(&prefix)
                .filter(|r| !r.is_empty() && !r.contains('/'))
                .map(str::to_string)
        };
        let mut names: Vec<String> = self
            .files
            .keys()
            .filter_map(child)
            .chain(self.dirs.iter().filter_map(child))
            .collect();
        names.sort();
        names.dedup();
        Ok(names)
    }
    fn may_be_symlink(&self, _path: &Path) -> bool {
        false
    }
}

/// The artifact source-controller makes of an OCIRepository holding a
/// Helm chart (its layer, the chart's archive, extracted: `NAME/Chart.yaml`
/// …), from a chart archive as `helm pull` writes it, mounted at `root`.
pub fn chart_artifact_of_archive(data: &[u8], root: PathBuf) -> Result<MemFs, String> {
    let mut out = MemFs::new(root);
    untar(data, "", &mut out)?;
    Ok(out)
}

/// [`chart_artifact_of_archive`] from an unpacked chart directory's files:
/// under the chart's name.
pub fn chart_artifact_of_dir(
    name: &str,
    files: crate::flux::helmrender::ChartFiles,
    root: PathBuf,
) -> Result<MemFs, String> {
    let mut out = MemFs::new(root);
    for (p, b) in files {
        out.write(&format!("{name}/{}", p.to_string_lossy()), b)?;
    }
    Ok(out)
}

/// A source the generator reads, as an artifact: a file system and the
/// root its paths are under.
pub struct Input<'a> {
    pub alias: String,
    pub fs: &'a dyn FileSystem,
    pub root: PathBuf,
}

/// Whether `r` is an ArtifactGenerator.
pub fn is_generator(r: &Resource) -> bool {
    r.kind() == "ArtifactGenerator" && r.gvk().group == GROUP
}

/// The ArtifactGenerators among `objects` in `namespace`.
pub fn generators<'r>(
    objects: impl Iterator<Item = &'r Resource>,
    namespace: &str,
) -> impl Iterator<Item = &'r Resource> {
    objects
        .filter(|r| is_generator(r))
        .filter(move |r| r.namespace_or_default() == namespace)
}

/// The entry of the generator's `spec.artifacts` named `name` (a
/// generator without a path pattern).
pub fn artifact<'r>(generator: &'r Resource, name: &str) -> Option<&'r Node> {
    generator
        .obj
        .get_path(&["spec", "artifacts"])?
        .as_seq()?
        .iter()
        .find(|a| a.get_str(&["name"]) == Some(name))
}

/// A generator's `spec.pathPattern` (`@alias/apps/{app}/envs/{env}`)
/// expanded as source-watcher expands it: every directory of the source
/// (walked in lexical order) that the pattern matches whole gives one
/// artifact per entry of `spec.artifacts`, named by the entry's name with
/// the captured values lowercased, its copy operations' `from` and `to`
/// with them as captured. The one named `name`, if any; an error for what
/// source-watcher refuses (a bad pattern, a captured value that is no
/// label value, two directories giving one name).
pub fn expand(
    generator: &Resource,
    pattern: &str,
    inputs: &[Input<'_>],
    name: &str,
) -> Result<Option<Node>, String> {
    let bad = |m: String| format!("pathPattern {pattern:?}: {m}");
    let Some((alias, rest)) = pattern
        .split_once('/')
        .and_then(|(a, r)| Some((a.strip_prefix('@')?, r)))
    else {
        return Err(format!("invalid pathPattern format: {pattern}"));
    };
    let Some(input) = inputs.iter().find(|i| i.alias == alias) else {
        return Err(bad(format!(
            "source alias {alias} not found in local sources"
        )));
    };
    let names = capture_names(rest).map_err(&bad)?;
    let mut re = String::from("^");
    let mut lit = rest;
    while let Some(open) = lit.find('{') {
        let close = open + lit[open..].find('}').expect("validated");
        re.push_str(&regex::escape(&lit[..open]));
        re.push_str(&format!("(?P<{}>[^/]+)", &lit[open + 1..close]));
        lit = &lit[close + 1..];
    }
    re.push_str(&regex::escape(lit));
    re.push('$');
    let re =
        regex::Regex::new(&re).map_err(|e| bad(format!("failed to compile path pattern: {e}")))?;
    let src = Src {
        fs: input.fs,
        root: &input.root,
    };
    let mut dirs = Vec::new();
    walk_dirs(&src, ".", &mut dirs);
    let artifacts = generator
        .obj
        .get_path(&["spec", "artifacts"])
        .and_then(Node::as_seq)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    let mut found = None;
    for dir in dirs {
        let Some(c) = re.captures(&dir) else {
            continue;
        };
        let raw: BTreeMap<&str, String> = names
            .iter()
            .map(|n| (n.as_str(), c[n.as_str()].to_string()))
            .collect();
        let lower: BTreeMap<&str, String> =
            raw.iter().map(|(k, v)| (*k, v.to_lowercase())).collect();
        for (k, v) in &lower {
            if !is_label_value(v) {
                return Err(bad(format!(
                    "captured value {v:?} for variable {k:?} is not a valid Kubernetes label value"
                )));
            }
        }
        for a in artifacts {
            let template = a.get_str(&["name"]).unwrap_or_default();
            let rendered = render(template, &lower).map_err(|e| {
                bad(format!(
                    "failed to render artifact {template} for match {dir}: {e}"
                ))
            })?;
            if let Some(prev) = seen.insert(rendered.clone(), dir.clone()) {
                return Err(bad(format!(
                    "directories {prev:?} and {dir:?} both resolve to artifact name {rendered:?}"
                )));
            }
            if rendered == name && found.is_none() {
                let mut a = a.clone();
                if let Node::Map(m) = &mut a {
                    m.insert("name", Node::Str(rendered.clone()));
                    if let Some(Node::Seq(ops)) = m.get_mut("copy") {
                        for op in ops.iter_mut() {
                            for key in ["from", "to"] {
                                if let Some(t) = op.get_str(&[key]).map(str::to_string) {
                                    let r = render(&t, &raw).map_err(|e| {
                                        bad(format!(
                                            "failed to render artifact {template} for match {dir}: {e}"
                                        ))
                                    })?;
                                    if let Node::Map(om) = op {
                                        om.insert(key, Node::Str(r));
                                    }
                                }
                            }
                        }
                    }
                }
                found = Some(a);
            }
        }
    }
    Ok(found)
}

/// Every directory under `dir`, depth first in lexical order (as Go's
/// `filepath.WalkDir`), relative to the source's root.
fn walk_dirs(src: &Src<'_>, dir: &str, out: &mut Vec<String>) {
    for (name, is_dir) in src.list(dir) {
        if !is_dir {
            continue;
        }
        let path = if dir == "." {
            name
        } else {
            format!("{dir}/{name}")
        };
        out.push(path.clone());
        walk_dirs(src, &path, out);
    }
}

fn valid_capture_name(n: &str) -> bool {
    let mut c = n.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
}

/// The capture names of a pattern, in order; source-watcher's errors for a
/// brace without its pair, an empty, invalid or repeated name.
fn capture_names(p: &str) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::new();
    let b = p.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'{' => {
                let Some(end) = p[i + 1..].find('}') else {
                    return Err(format!(
                        "invalid capture starting at offset {i}: missing closing brace"
                    ));
                };
                let name = &p[i + 1..i + 1 + end];
                if name.is_empty() {
                    return Err("empty capture variable".into());
                }
                if !valid_capture_name(name) {
                    return Err(format!(
                        "capture variable {name:?} must be a valid capture name matching [A-Za-z_][A-Za-z0-9_]*"
                    ));
                }
                if out.iter().any(|n| n == name) {
                    return Err(format!("duplicate capture variable {name:?}"));
                }
                out.push(name.to_string());
                i += end + 2;
            }
            b'}' => {
                return Err(format!(
                    "invalid capture ending at offset {i}: missing opening brace"
                ));
            }
            _ => i += 1,
        }
    }
    Ok(out)
}

/// `{name}` placeholders replaced by their values.
fn render(t: &str, data: &BTreeMap<&str, String>) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = t;
    while let Some(open) = rest.find(['{', '}']) {
        if rest.as_bytes()[open] == b'}' {
            return Err(format!(
                "invalid template {t:?}: capture ending at offset {} is missing opening brace",
                t.len() - rest.len() + open
            ));
        }
        out.push_str(&rest[..open]);
        let Some(end) = rest[open + 1..].find('}') else {
            return Err(format!(
                "invalid template {t:?}: capture starting at offset {} is missing closing brace",
                t.len() - rest.len() + open
            ));
        };
        let name = &rest[open + 1..open + 1 + end];
        match data.get(name) {
            Some(v) => out.push_str(v),
            None => {
                return Err(format!(
                    "invalid template {t:?}: capture variable {name:?} is not defined by pathPattern"
                ));
            }
        }
        rest = &rest[open + end + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Kubernetes' label value syntax: at most 63 characters, alphanumerics
/// at both ends, `-`, `_`, `.` and alphanumerics between.
fn is_label_value(v: &str) -> bool {
    let b = v.as_bytes();
    b.len() <= 63
        && (b.is_empty()
            || (b[0].is_ascii_alphanumeric()
                && b[b.len() - 1].is_ascii_alphanumeric()
                && b.iter()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))))
}

/// A source of the generator: (alias, kind, namespace, name), the
/// namespace defaulting to the generator's.
pub fn sources(generator: &Resource) -> Vec<(String, String, String, String)> {
    let ns = generator.namespace_or_default();
    generator
        .obj
        .get_path(&["spec", "sources"])
        .and_then(Node::as_seq)
        .map(|s| {
            s.iter()
                .map(|e| {
                    let f = |k: &str| e.get_str(&[k]).unwrap_or_default().to_string();
                    let namespace = match f("namespace") {
                        n if n.is_empty() => ns.to_string(),
                        n => n,
                    };
                    (f("alias"), f("kind"), namespace, f("name"))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Builds the artifact `artifact` (an entry of `spec.artifacts`) from the
/// sources' artifacts; the error is source-watcher's for the operation
/// that failed.
pub fn build(artifact: &Node, inputs: &[Input<'_>], root: PathBuf) -> Result<MemFs, String> {
    let mut out = MemFs::new(root);
    let ops = artifact
        .get("copy")
        .and_then(Node::as_seq)
        .map(Vec::as_slice)
        .unwrap_or_default();
    for op in ops {
        let op = Op {
            from: op.get_str(&["from"]).unwrap_or_default(),
            to: op.get_str(&["to"]).unwrap_or_default(),
            exclude: op
                .get("exclude")
                .and_then(Node::as_seq)
                .map(|s| s.iter().filter_map(Node::as_str).collect())
                .unwrap_or_default(),
            strategy: op.get_str(&["strategy"]).unwrap_or("Overwrite"),
        };
        op.apply(inputs, &mut out).map_err(|e| {
            format!(
                "failed to apply copy operation from '{}' to '{}': {e}",
                op.from, op.to
            )
        })?;
    }
    Ok(out)
}

struct Op<'a> {
    from: &'a str,
    to: &'a str,
    exclude: Vec<&'a str>,
    strategy: &'a str,
}

fn has_glob(p: &str) -> bool {
    p.contains(['*', '?', '[', ']'])
}

/// Go's `filepath.Clean` of a relative path ("" is ".").
fn clean(p: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for c in p.split('/') {
        match c {
            "" | "." => {}
            ".." if parts.last().is_some_and(|l| *l != "..") => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    if parts.is_empty() {
        ".".into()
    } else {
        parts.join("/")
    }
}

/// Go's `filepath.Join` of relative paths.
fn join(a: &str, b: &str) -> String {
    clean(&format!("{a}/{b}"))
}

fn base(p: &str) -> &str {
    let p = p.trim_end_matches('/');
    match p.rsplit_once('/') {
        Some((_, b)) => b,
        None if p.is_empty() => ".",
        None => p,
    }
}

/// The path inside the artifact, "" for its root.
fn dest_key(p: &str) -> String {
    match clean(p).as_str() {
        "." => String::new(),
        c => c.to_string(),
    }
}

struct Src<'a> {
    fs: &'a dyn FileSystem,
    root: &'a Path,
}

impl Src<'_> {
    fn abs(&self, rel: &str) -> PathBuf {
        if rel == "." || rel.is_empty() {
            self.root.to_path_buf()
        } else {
            crate::fs::normalize(self.root, Path::new(rel))
        }
    }
    fn is_dir(&self, rel: &str) -> bool {
        self.fs.is_dir(&self.abs(rel))
    }
    fn exists(&self, rel: &str) -> bool {
        let p = self.abs(rel);
        self.fs.is_dir(&p) || self.fs.is_file(&p)
    }
    fn read(&self, rel: &str) -> Result<Vec<u8>, String> {
        self.fs
            .read(&self.abs(rel))
            .map_err(|e| format!("reading '{rel}': {e}"))
    }
    fn list(&self, rel: &str) -> Vec<(String, bool)> {
        self.fs.list_typed(&self.abs(rel)).unwrap_or_default()
    }

    /// Every path below `dir`, depth first in name order, with whether it
    /// is a directory.
    fn walk(&self, dir: &str, f: &mut dyn FnMut(&str, bool)) {
        for (name, is_dir) in self.list(dir) {
            let path = if dir == "." {
                name
            } else {
                format!("{dir}/{name}")
            };
            f(&path, is_dir);
            if is_dir {
                self.walk(&path, f);
            }
        }
    }

    /// Go's `fs.Glob`: matches sorted per directory; a pattern without
    /// glob characters matches itself when it exists.
    fn glob(&self, pattern: &str) -> Result<Vec<String>, String> {
        if !has_glob(pattern) {
            return Ok(if self.exists(pattern) {
                vec![pattern.to_string()]
            } else {
                Vec::new()
            });
        }
        let (dir, file) = match pattern.rsplit_once('/') {
            Some((d, f)) => (if d.is_empty() { "/" } else { d }, f),
            None => (".", pattern),
        };
        if go_match(file, "").is_err() {
            return Err(format!("syntax error in pattern '{pattern}'"));
        }
        let dirs = if has_glob(dir) {
            self.glob(dir)?
        } else {
            vec![dir.to_string()]
        };
        let mut out = Vec::new();
        for d in dirs {
            if !self.is_dir(&d) {
                continue;
            }
            for (name, _) in self.list(&d) {
                if go_match(file, &name) == Ok(true) {
                    out.push(if d == "." {
                        name
                    } else {
                        format!("{d}/{name}")
                    });
                }
            }
        }
        Ok(out)
    }
}

impl Op<'_> {
    fn apply(&self, inputs: &[Input<'_>], out: &mut MemFs) -> Result<(), String> {
        let Some(rest) = self.from.strip_prefix('@') else {
            return Err(format!(
                "invalid copy source '{}': source must start with '@'",
                self.from
            ));
        };
        let Some((alias, pattern)) = rest.split_once('/') else {
            return Err(format!(
                "invalid copy source '{}': source format must be '@alias/pattern'",
                self.from
            ));
        };
        let Some(dest) = self.to.strip_prefix("@artifact/") else {
            return Err(format!(
                "invalid copy destination '{}': destination must start with '@artifact/'",
                self.to
            ));
        };
        let Some(input) = inputs.iter().find(|i| i.alias == alias) else {
            return Err(format!("source alias '{alias}' not found"));
        };
        for p in &self.exclude {
            if go_match(p, "").is_err() {
                return Err(format!("invalid exclude pattern '{p}'"));
            }
        }
        let src = Src {
            fs: input.fs,
            root: &input.root,
        };
        if self.strategy == "Extract" {
            return self.extract(&src, alias, pattern, dest, out);
        }
        if !has_glob(pattern) {
            return self.single(&src, pattern, dest, out);
        }
        let matches = src
            .glob(pattern)
            .map_err(|e| format!("invalid glob pattern '{pattern}': {e}"))?;
        let exclude_base = selection_root(pattern);
        for m in self.kept(matches, pattern, alias)? {
            let to = glob_destination(pattern, &m, dest);
            self.copy(&src, &m, &to, &exclude_base, out)?;
        }
        Ok(())
    }

    /// A path without glob characters: a file or a directory.
    fn single(
        &self,
        src: &Src<'_>,
        pattern: &str,
        dest: &str,
        out: &mut MemFs,
    ) -> Result<(), String> {
        let path = existing(src, pattern)?;
        if src.is_dir(&path) {
            let to = join(dest, base(&path));
            return self.copy(src, &path, &to, &path, out);
        }
        if self.excluded(&path, ".") {
            return Ok(());
        }
        let to = if dest.ends_with('/') || out.is_dir_rel(&dest_key(dest)) {
            join(dest, base(&path))
        } else {
            clean(dest)
        };
        self.copy(src, &path, &to, ".", out)
    }

    /// Copies a file (merging it when asked and the destination exists) or
    /// a directory (every file under it, each plainly).
    fn copy(
        &self,
        src: &Src<'_>,
        path: &str,
        to: &str,
        exclude_base: &str,
        out: &mut MemFs,
    ) -> Result<(), String> {
        let to = dest_key(to);
        if src.is_dir(path) {
            out.mkdir(&to);
            return self.copy_dir(src, path, path, &to, exclude_base, out);
        }
        let data = src.read(path)?;
        if self.strategy == "Merge"
            && let Some(existing) = out.files.get(&to)
        {
            let merged =
                merge_yaml(existing, &data).map_err(|e| format!("failed to merged YAML: {e}"))?;
            out.files.insert(to, merged);
            return Ok(());
        }
        out.write(&to, data)
    }

    fn copy_dir(
        &self,
        src: &Src<'_>,
        top: &str,
        dir: &str,
        to: &str,
        exclude_base: &str,
        out: &mut MemFs,
    ) -> Result<(), String> {
        for (name, is_dir) in src.list(dir) {
            let path = if dir == "." {
                name.clone()
            } else {
                format!("{dir}/{name}")
            };
            if self.excluded(&path, exclude_base) {
                continue;
            }
            let rel = if top == "." {
                path.clone()
            } else {
                path.strip_prefix(&format!("{top}/"))
                    .unwrap_or(&path)
                    .to_string()
            };
            let target = dest_key(&join(to, &rel));
            if is_dir {
                out.mkdir(&target);
                self.copy_dir(src, top, &path, to, exclude_base, out)?;
            } else {
                out.write(&target, src.read(&path)?)?;
            }
        }
        Ok(())
    }

    /// Source-watcher's `shouldExcludePath`: the path relative to the
    /// source, then relative to the literal prefix of `from`.
    /// The `Extract` strategy: the tarballs (`.tar.gz`, `.tgz`) `from`
    /// names, each extracted into the destination directory. A path
    /// without glob characters must be one; a glob (doublestar's, `**`
    /// spanning directories) skips what is not one.
    fn extract(
        &self,
        src: &Src<'_>,
        alias: &str,
        pattern: &str,
        dest: &str,
        out: &mut MemFs,
    ) -> Result<(), String> {
        let dest = dest_key(dest);
        if !has_glob(pattern) {
            let path = existing(src, pattern)?;
            if src.is_dir(&path) {
                return Err(format!(
                    "extract strategy is not supported for directories, got '{path}'"
                ));
            }
            if self.excluded(&path, ".") {
                return Ok(());
            }
            if !is_tarball(&path) {
                return Err(format!(
                    "extract strategy requires tarball file (.tar.gz or .tgz), got '{path}'"
                ));
            }
            return untar(&src.read(&path)?, &dest, out)
                .map_err(|e| format!("failed to extract tarball {path:?} to {dest:?}: {e}"));
        }
        let mut matches = Vec::new();
        src.walk(".", &mut |p, is_dir| {
            // (A directory is matched, then skipped below as not a tarball.)
            if double_star(pattern, p) {
                matches.push(if is_dir {
                    format!("{p}/")
                } else {
                    p.to_string()
                });
            }
        });
        for m in self.kept(matches, pattern, alias)? {
            if m.ends_with('/') || !is_tarball(&m) {
                continue;
            }
            untar(&src.read(&m)?, &dest, out).map_err(|e| {
                format!("failed to extract tarball '{m}' to '{dest}': failed to extract tarball {m:?} to {dest:?}: {e}")
            })?;
        }
        Ok(())
    }

    /// The glob matches an operation copies: none is an error, and so is
    /// none left once `exclude` is applied (source-watcher's messages).
    fn kept(
        &self,
        matches: Vec<String>,
        pattern: &str,
        alias: &str,
    ) -> Result<Vec<String>, String> {
        if matches.is_empty() {
            return Err(format!(
                "no files match pattern '{pattern}' in source '{alias}'"
            ));
        }
        let exclude_base = selection_root(pattern);
        let kept: Vec<String> = matches
            .into_iter()
            .filter(|m| m != "." && m != "..")
            .filter(|m| !self.excluded(m.trim_end_matches('/'), &exclude_base))
            .collect();
        if kept.is_empty() {
            return Err(format!(
                "all files matching pattern '{pattern}' in source '{alias}' were excluded"
            ));
        }
        Ok(kept)
    }

    fn excluded(&self, path: &str, exclude_base: &str) -> bool {
        if self.exclude.is_empty() {
            return false;
        }
        if excluded_by(path, &self.exclude) {
            return true;
        }
        let base = clean(exclude_base);
        let path = clean(path);
        let rel = if base == "." {
            path.clone()
        } else {
            match path.strip_prefix(&format!("{base}/")) {
                Some(r) => r.to_string(),
                None => return false,
            }
        };
        rel != path && excluded_by(&rel, &self.exclude)
    }
}

/// The source path a `from` without glob characters names (cleaned), or
/// why there is none.
fn existing(src: &Src<'_>, pattern: &str) -> Result<String, String> {
    let path = clean(pattern);
    if path.starts_with("..") {
        return Err(format!("path escapes from parent: '{path}'"));
    }
    if !src.exists(&path) {
        return Err(format!("source '{path}' does not exist"));
    }
    Ok(path)
}

/// source-watcher's `isTarball`: the name ends with `.tar.gz` or `.tgz`,
/// in any case.
fn is_tarball(path: &str) -> bool {
    let p = path.to_ascii_lowercase();
    p.ends_with(".tar.gz") || p.ends_with(".tgz")
}

/// The most a tarball may hold, in all (fluxcd/pkg/tar's
/// `DefaultMaxUntarSize`, 100 MiB).
const MAX_UNTAR_BYTES: u64 = 100 << 20;

/// Extracts a gzipped tarball into `dest` of the artifact as
/// fluxcd/pkg/tar's `Untar` does: regular files (a later one replacing an
/// earlier one) and directories; a symbolic link, another kind of entry,
/// a name that is empty, absolute, has a `\` or climbs with `../`, or more
/// than 100 MiB in all fail.
fn untar(data: &[u8], dest: &str, out: &mut MemFs) -> Result<(), String> {
    use std::io::Read;
    // Go's `gzip.NewReader` reads the header first.
    if data.is_empty() {
        return Err("requires gzip-compressed body: EOF".into());
    }
    if !data.starts_with(&[0x1f, 0x8b]) {
        return Err("requires gzip-compressed body: gzip: invalid header".into());
    }
    let mut ar = tar::Archive::new(flate2::read::GzDecoder::new(data));
    let entries = ar.entries().map_err(|e| format!("tar error: {e}"))?;
    let mut total = 0u64;
    for entry in entries {
        let mut entry = entry.map_err(|e| format!("tar error: {e}"))?;
        let name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        total += entry.header().size().unwrap_or(0);
        if total > MAX_UNTAR_BYTES {
            return Err(format!(
                "tar {name:?} is bigger than max archive size of {MAX_UNTAR_BYTES} bytes"
            ));
        }
        if name.is_empty() || name.contains('\\') || name.starts_with('/') || name.contains("../") {
            return Err(format!("tar contained invalid name error {name:?}"));
        }
        let at = dest_key(&join(dest, &name));
        if at == ".." || at.starts_with("../") {
            return Err(format!("tar contained invalid name error {name:?}"));
        }
        let kind = entry.header().entry_type();
        if kind.is_file() {
            let mut buf = Vec::new();
            entry
                .read_to_end(&mut buf)
                .map_err(|e| format!("tar error: {e}"))?;
            out.write(&at, buf)?;
        } else if kind.is_dir() {
            out.mkdir(&at);
        } else if kind.is_symlink() {
            return Err(format!(
                "tar file entry {name} is a symlink, which is not allowed in this context"
            ));
        } else {
            return Err(format!(
                "tar file entry {name} contained unsupported file type"
            ));
        }
    }
    Ok(())
}

fn excluded_by(path: &str, patterns: &[&str]) -> bool {
    let name = base(path);
    patterns
        .iter()
        .any(|p| double_star(p, path) || (!p.contains('/') && double_star(p, name)))
}

/// doublestar's `Match`: `/`-separated segments, a `**` segment spanning
/// any number of them (none included), `{a,b}` alternatives, other
/// segments as Go's `path.Match`.
fn double_star(pattern: &str, path: &str) -> bool {
    expand_braces(pattern).iter().any(|p| {
        let ps: Vec<&str> = p.split('/').collect();
        let ns: Vec<&str> = path.split('/').collect();
        segments(&ps, &ns)
    })
}

fn segments(p: &[&str], n: &[&str]) -> bool {
    match p.split_first() {
        None => n.is_empty(),
        Some((&"**", rest)) => (0..=n.len()).any(|i| segments(rest, &n[i..])),
        Some((seg, rest)) => match n.split_first() {
            Some((name, nrest)) => go_match(seg, name) == Ok(true) && segments(rest, nrest),
            None => false,
        },
    }
}

/// `{a,b}` alternatives, expanded (nested ones too).
fn expand_braces(p: &str) -> Vec<String> {
    let Some(open) = p.find('{') else {
        return vec![p.to_string()];
    };
    let mut depth = 0;
    let mut close = None;
    let mut cuts = Vec::new();
    for (i, c) in p[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(open + i);
                    break;
                }
            }
            ',' if depth == 1 => cuts.push(open + i),
            _ => {}
        }
    }
    let Some(close) = close else {
        return vec![p.to_string()];
    };
    let mut alts = Vec::new();
    let mut start = open + 1;
    for c in cuts.into_iter().chain([close]) {
        alts.push(&p[start..c]);
        start = c + 1;
    }
    alts.iter()
        .flat_map(|a| expand_braces(&format!("{}{a}{}", &p[..open], &p[close + 1..])))
        .collect()
}

/// The literal prefix of a pattern, before its first glob segment.
fn selection_root(pattern: &str) -> String {
    let c = clean(pattern);
    let lit: Vec<&str> = c.split('/').take_while(|s| !has_glob(s)).collect();
    if lit.is_empty() {
        ".".into()
    } else {
        lit.join("/")
    }
}

/// Where a glob match goes: `dir/**` drops `dir/`, any other pattern keeps
/// the match's whole path.
fn glob_destination(pattern: &str, m: &str, dest: &str) -> String {
    if let Some(prefix) = pattern.strip_suffix("/**")
        && let Some(rel) = m.strip_prefix(&format!("{prefix}/"))
    {
        return join(dest, rel);
    }
    join(dest, m)
}

/// Every document of `overlay` merged into those of `base`, each stream
/// first merged into one map; maps merge deeply, anything else is
/// replaced.
fn merge_yaml(base: &[u8], overlay: &[u8]) -> Result<Vec<u8>, String> {
    let load = |b: &[u8]| -> Result<Node, String> {
        let text = std::str::from_utf8(b).map_err(|e| e.to_string())?;
        let docs = crate::yaml::parse::parse_stream(text).map_err(|e| e.to_string())?;
        let mut out = Node::Map(Default::default());
        for d in docs {
            match d.node {
                Node::Map(_) => merge_into(&mut out, d.node),
                Node::Null => {}
                _ => return Err("cannot unmarshal YAML document: not a map".into()),
            }
        }
        Ok(out)
    };
    let mut merged = load(base)?;
    merge_into(&mut merged, load(overlay)?);
    Ok(crate::yaml::emit::to_string(&merged).into_bytes())
}

fn merge_into(base: &mut Node, overlay: Node) {
    match (base, overlay) {
        (Node::Map(b), Node::Map(o)) => {
            for (k, v) in o.iter() {
                match b.get_mut(k) {
                    Some(existing @ Node::Map(_)) if matches!(v, Node::Map(_)) => {
                        merge_into(existing, v.clone())
                    }
                    _ => b.insert(k.clone(), v.clone()),
                }
            }
        }
        (b, o) => *b = o,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::RealFs;

    use crate::fs::put;

    fn artifact(yaml: &str) -> Node {
        crate::yaml::parse::parse_one(yaml).unwrap()
    }

    fn built(root: &Path, ops: &str) -> Result<Vec<String>, String> {
        let inputs = [Input {
            alias: "repo".into(),
            fs: &RealFs,
            root: root.to_path_buf(),
        }];
        let a = artifact(&format!("name: x\ncopy:\n{ops}"));
        let fs = build(&a, &inputs, PathBuf::from("/ExternalArtifact/ns/x"))?;
        Ok(fs.files().map(|(p, _)| p.clone()).collect())
    }

    fn tree() -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        for f in [
            "apps/base/a/kustomization.yaml",
            "apps/base/a/deploy.yaml",
            "apps/base/b/README.md",
            "apps/prod/kustomization.yaml",
            "apps/prod/testdata/t.yaml",
            "config.yaml",
        ] {
            put(d.path(), f, "k: v\n");
        }
        d
    }

    /// A gzipped tarball of `entries` (name, contents; `None`: a
    /// directory), as `helm package` or `flux build artifact` write them.
    fn tarball(entries: &[(&str, Option<&str>)]) -> Vec<u8> {
        let mut b = tar::Builder::new(flate2::write::GzEncoder::new(
            Vec::new(),
            flate2::Compression::default(),
        ));
        for (name, data) in entries {
            let mut h = tar::Header::new_gnu();
            match data {
                Some(d) => {
                    h.set_entry_type(tar::EntryType::Regular);
                    h.set_size(d.len() as u64);
                    h.set_mode(0o644);
                    // The name as written, `..` included (which the
                    // builder's own path setter refuses).
                    h.as_old_mut().name[..name.len()].copy_from_slice(name.as_bytes());
                    h.set_cksum();
                    b.append(&h, d.as_bytes()).unwrap();
                }
                None => {
                    h.set_entry_type(tar::EntryType::Directory);
                    h.set_size(0);
                    h.set_mode(0o755);
                    b.append_data(&mut h, name, &[][..]).unwrap();
                }
            }
        }
        b.into_inner().unwrap().finish().unwrap()
    }

    /// An OCIRepository's chart as its artifact: the archive extracted, or
    /// a directory's files under the chart's name; the same either way.
    #[test]
    fn chart_artifacts_hold_the_chart_under_its_name() {
        let root = || PathBuf::from("/OCIRepository/ns/x");
        let names = |m: MemFs| m.files().map(|(p, _)| p.clone()).collect::<Vec<_>>();
        let from_tgz = chart_artifact_of_archive(
            &tarball(&[
                ("podinfo/Chart.yaml", Some("name: podinfo\n")),
                ("podinfo/templates/cm.yaml", Some("kind: ConfigMap\n")),
            ]),
            root(),
        )
        .unwrap();
        let files = vec![
            (PathBuf::from("Chart.yaml"), b"name: podinfo\n".to_vec()),
            (
                PathBuf::from("templates/cm.yaml"),
                b"kind: ConfigMap\n".to_vec(),
            ),
        ];
        let from_dir = chart_artifact_of_dir("podinfo", files, root()).unwrap();
        assert_eq!(
            names(from_tgz),
            ["podinfo/Chart.yaml", "podinfo/templates/cm.yaml"]
        );
        assert_eq!(
            names(from_dir),
            ["podinfo/Chart.yaml", "podinfo/templates/cm.yaml"]
        );
    }

    #[test]
    fn extracts_tarballs_as_source_watcher_does() {
        let d = tree();
        let r = d.path();
        let chart = tarball(&[
            ("podinfo", None),
            ("podinfo/Chart.yaml", Some("name: podinfo\n")),
            ("podinfo/templates/cm.yaml", Some("kind: ConfigMap\n")),
        ]);
        std::fs::write(r.join("podinfo-6.7.0.tgz"), &chart).unwrap();
        std::fs::create_dir_all(r.join("releases/old")).unwrap();
        let other = tarball(&[("other/Chart.yaml", Some("name: other\n"))]);
        std::fs::write(r.join("releases/old/other-1.0.0.TAR.GZ"), &other).unwrap();
        // One tarball, its structure kept under the destination.
        assert_eq!(
            built(
                r,
                "- from: '@repo/podinfo-6.7.0.tgz'\n  to: '@artifact/'\n  strategy: Extract\n"
            )
            .unwrap(),
            ["podinfo/Chart.yaml", "podinfo/templates/cm.yaml"]
        );
        assert_eq!(
            built(
                r,
                "- from: '@repo/podinfo-6.7.0.tgz'\n  to: '@artifact/charts'\n  strategy: Extract\n"
            )
            .unwrap(),
            [
                "charts/podinfo/Chart.yaml",
                "charts/podinfo/templates/cm.yaml"
            ]
        );
        // A doublestar glob: `**` spans directories, what is not a tarball
        // is skipped.
        assert_eq!(
            built(
                r,
                "- from: '@repo/**'\n  to: '@artifact/x/'\n  strategy: Extract\n"
            )
            .unwrap(),
            [
                "x/other/Chart.yaml",
                "x/podinfo/Chart.yaml",
                "x/podinfo/templates/cm.yaml"
            ]
        );
        // What source-watcher refuses.
        let err = |ops: &str| built(r, ops).unwrap_err();
        assert!(
            err("- from: '@repo/config.yaml'\n  to: '@artifact/'\n  strategy: Extract\n")
                .ends_with(
                    "extract strategy requires tarball file (.tar.gz or .tgz), got 'config.yaml'"
                )
        );
        assert!(
            err("- from: '@repo/apps'\n  to: '@artifact/'\n  strategy: Extract\n")
                .ends_with("extract strategy is not supported for directories, got 'apps'")
        );
        std::fs::write(r.join("fake.tgz"), "not gzip").unwrap();
        assert!(
            err("- from: '@repo/fake.tgz'\n  to: '@artifact/'\n  strategy: Extract\n")
                .ends_with("requires gzip-compressed body: gzip: invalid header")
        );
        std::fs::write(r.join("evil.tgz"), tarball(&[("a/../../x", Some("x"))])).unwrap();
        assert!(
            err("- from: '@repo/evil.tgz'\n  to: '@artifact/'\n  strategy: Extract\n")
                .ends_with("tar contained invalid name error \"a/../../x\"")
        );
    }

    #[test]
    fn copies_as_cp_does() {
        let d = tree();
        let r = d.path();
        // dir/** copies the contents.
        assert_eq!(
            built(r, "- from: '@repo/apps/base/**'\n  to: '@artifact/base/'\n").unwrap(),
            [
                "base/a/deploy.yaml",
                "base/a/kustomization.yaml",
                "base/b/README.md"
            ]
        );
        // A directory without a glob is copied as a subdirectory.
        assert_eq!(
            built(r, "- from: '@repo/apps/prod/'\n  to: '@artifact/x/'\n").unwrap(),
            ["x/prod/kustomization.yaml", "x/prod/testdata/t.yaml"]
        );
        // The whole source.
        assert_eq!(
            built(r, "- from: '@repo/'\n  to: '@artifact/'\n")
                .unwrap()
                .len(),
            6
        );
        // A file to a directory, to a name, and into a directory made before.
        assert_eq!(
            built(
                r,
                "- from: '@repo/config.yaml'\n  to: '@artifact/c/'\n- from: '@repo/config.yaml'\n  to: '@artifact/named.yaml'\n- from: '@repo/config.yaml'\n  to: '@artifact/c'\n"
            )
            .unwrap(),
            ["c/config.yaml", "named.yaml"]
        );
        // Other globs keep the whole matched path.
        assert_eq!(
            built(
                r,
                "- from: '@repo/apps/*/kustomization.yaml'\n  to: '@artifact/'\n"
            )
            .unwrap(),
            ["apps/prod/kustomization.yaml"]
        );
    }

    #[test]
    fn excludes_by_path_prefix_and_name() {
        let d = tree();
        let r = d.path();
        assert_eq!(
            built(
                r,
                "- from: '@repo/apps/**'\n  to: '@artifact/'\n  exclude: ['*.md', '**/testdata/**', 'base/a/deploy.yaml']\n"
            )
            .unwrap(),
            ["base/a/kustomization.yaml", "prod/kustomization.yaml"]
        );
    }

    #[test]
    fn errors_are_source_watchers() {
        let d = tree();
        let r = d.path();
        let e = built(r, "- from: '@repo/nope/**'\n  to: '@artifact/'\n").unwrap_err();
        assert_eq!(
            e,
            "failed to apply copy operation from '@repo/nope/**' to '@artifact/': no files match pattern 'nope/**' in source 'repo'"
        );
        let e = built(r, "- from: '@other/x'\n  to: '@artifact/'\n").unwrap_err();
        assert!(e.ends_with("source alias 'other' not found"), "{e}");
        let e = built(r, "- from: '@repo/missing.yaml'\n  to: '@artifact/'\n").unwrap_err();
        assert!(e.ends_with("source 'missing.yaml' does not exist"), "{e}");
        let e = built(r, "- from: 'repo/x'\n  to: '@artifact/'\n").unwrap_err();
        assert!(e.ends_with("source must start with '@'"), "{e}");
        let e = built(r, "- from: '@repo/config.yaml'\n  to: 'x/'\n").unwrap_err();
        assert!(
            e.ends_with("destination must start with '@artifact/'"),
            "{e}"
        );
        let e = built(
            r,
            "- from: '@repo/apps/base/b/*'\n  to: '@artifact/'\n  exclude: ['*.md']\n",
        )
        .unwrap_err();
        assert!(e.ends_with("were excluded"), "{e}");
    }

    #[test]
    fn merge_strategy_merges_maps_and_replaces_the_rest() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        put(
            r,
            "chart/values.yaml",
            "a:\n  b: 1\n  c: [1, 2]\nkeep: true\n",
        );
        put(r, "prod.yaml", "a:\n  c: [3]\n  d: x\n");
        let inputs = [Input {
            alias: "repo".into(),
            fs: &RealFs,
            root: r.to_path_buf(),
        }];
        let a = artifact(
            "name: x\ncopy:\n- from: '@repo/chart/'\n  to: '@artifact/'\n- from: '@repo/prod.yaml'\n  to: '@artifact/chart/values.yaml'\n  strategy: Merge\n",
        );
        let fs = build(&a, &inputs, PathBuf::from("/a")).unwrap();
        let text = String::from_utf8(fs.read(Path::new("/a/chart/values.yaml")).unwrap()).unwrap();
        let v = crate::yaml::parse::parse_one(&text).unwrap();
        assert_eq!(v.get_str(&["a", "d"]), Some("x"));
        assert_eq!(
            v.get_path(&["a", "c"]).and_then(Node::as_seq).map(Vec::len),
            Some(1)
        );
        assert_eq!(v.get_path(&["a", "b"]), Some(&Node::Int(1)));
        assert_eq!(v.get_path(&["keep"]), Some(&Node::Bool(true)));
    }

    #[test]
    fn a_path_pattern_makes_one_artifact_per_matched_directory() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        for f in [
            "apps/Web/envs/prod/kustomization.yaml",
            "apps/Web/envs/dev/kustomization.yaml",
            "apps/api/envs/prod/kustomization.yaml",
            "apps/api/other/prod/kustomization.yaml",
        ] {
            put(r, f, "k: v\n");
        }
        let g = Resource::new(
            crate::yaml::parse::parse_one(
                "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: ArtifactGenerator\nmetadata:\n  name: g\n  namespace: ns\nspec:\n  pathPattern: '@repo/apps/{app}/envs/{env}'\n  artifacts:\n    - name: '{app}-{env}'\n      copy:\n        - from: '@repo/apps/{app}/envs/{env}/**'\n          to: '@artifact/'\n",
            )
            .unwrap(),
            Default::default(),
        );
        let pattern = g.obj.get_str(&["spec", "pathPattern"]).unwrap().to_string();
        let inputs = [Input {
            alias: "repo".into(),
            fs: &RealFs,
            root: r.to_path_buf(),
        }];
        // Names are lowercased; copy paths keep the directory's case.
        let a = expand(&g, &pattern, &inputs, "web-prod").unwrap().unwrap();
        assert_eq!(a.get_str(&["name"]), Some("web-prod"));
        assert_eq!(
            a.get("copy").and_then(Node::as_seq).unwrap()[0].get_str(&["from"]),
            Some("@repo/apps/Web/envs/prod/**")
        );
        let fs = build(&a, &inputs, PathBuf::from("/a")).unwrap();
        assert!(fs.is_file(Path::new("/a/kustomization.yaml")));
        assert!(expand(&g, &pattern, &inputs, "api-prod").unwrap().is_some());
        // apps/api/other/prod does not match the pattern.
        assert!(
            expand(&g, &pattern, &inputs, "api-other")
                .unwrap()
                .is_none()
        );
        // Two directories giving one name.
        put(r, "apps/web/envs/prod/kustomization.yaml", "k: v\n");
        let e = expand(&g, &pattern, &inputs, "web-prod").unwrap_err();
        assert!(
            e.contains("both resolve to artifact name \"web-prod\""),
            "{e}"
        );
        let e = expand(&g, "@repo/apps/{app", &inputs, "x").unwrap_err();
        assert!(e.ends_with("missing closing brace"), "{e}");
    }

    #[test]
    fn the_artifact_lists_as_a_file_system() {
        let d = tree();
        let inputs = [Input {
            alias: "repo".into(),
            fs: &RealFs,
            root: d.path().to_path_buf(),
        }];
        let a = artifact("name: x\ncopy:\n- from: '@repo/apps/**'\n  to: '@artifact/'\n");
        let fs = build(&a, &inputs, PathBuf::from("/r")).unwrap();
        assert_eq!(fs.list(Path::new("/r")).unwrap(), ["base", "prod"]);
        assert!(fs.is_dir(Path::new("/r/base/a")));
        assert!(fs.is_file(Path::new("/r/prod/kustomization.yaml")));
        assert!(!fs.is_file(Path::new("/r/prod")));
    }
}
