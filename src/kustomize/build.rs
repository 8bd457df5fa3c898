//! The build pipeline and the loader (root restriction, cycles).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::fs::{FileSystem, normalize};
use crate::resource::{Origin, ResMap, Resource};
use crate::yaml::Node;

use super::Error;
use super::kustfile::Kustomization;

/// kustomize's `--load-restrictor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LoadRestrictor {
    /// Files must be in or below the kustomization's directory.
    #[default]
    RootOnly,
    None,
}

#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    pub load_restrictor: LoadRestrictor,
    /// No file or directory outside this one may be read, whatever the
    /// restrictor (Flux never reads outside its source).
    pub boundary: Option<PathBuf>,
}

/// Reads files on behalf of one kustomization directory.
pub struct Loader<'a> {
    pub fs: &'a dyn FileSystem,
    pub root: PathBuf,
    pub opts: &'a BuildOptions,
    /// The kustomization file, for error messages.
    pub file: PathBuf,
}

impl Loader<'_> {
    pub fn resolve(&self, rel: &str) -> PathBuf {
        normalize(&self.root, Path::new(rel))
    }

    fn check_boundary(&self, p: &Path) -> Result<(), Error> {
        if let Some(b) = &self.opts.boundary
            && !p.starts_with(b)
        {
            return Err(Error::at(
                &self.file,
                format!(
                    "path '{}' is outside the source root '{}'",
                    p.display(),
                    b.display()
                ),
            ));
        }
        Ok(())
    }

    /// Reads a file as bytes, enforcing the restrictor.
    pub fn load_bytes(&self, rel: &str) -> Result<(PathBuf, Vec<u8>), Error> {
        let p = self.check(rel)?;
        let b = self.fs.read(&p).map_err(|e| Error::at(&p, e.to_string()))?;
        Ok((p, b))
    }

    fn check(&self, rel: &str) -> Result<PathBuf, Error> {
        if is_remote(rel) {
            return Err(Error::at(
                &self.file,
                format!("remote file '{rel}' is not supported offline"),
            ));
        }
        let p = self.resolve(rel);
        self.check_boundary(&p)?;
        if self.opts.load_restrictor == LoadRestrictor::RootOnly && !p.starts_with(&self.root) {
            return Err(Error::at(
                &self.file,
                format!(
                    "security; file '{}' is not in or below '{}' (use --load-restrictor none to allow it)",
                    p.display(),
                    self.root.display()
                ),
            ));
        }
        if !self.fs.is_file(&p) {
            return Err(Error::at(
                &self.file,
                format!("'{}' does not exist or is not a file", p.display()),
            ));
        }
        Ok(p)
    }

    /// Reads a file named relative to the root, enforcing the restrictor.
    pub fn load(&self, rel: &str) -> Result<(PathBuf, String), Error> {
        let p = self.check(rel)?;
        let text = self
            .fs
            .read_to_string(&p)
            .map_err(|e| Error::at(&p, e.to_string()))?;
        Ok((p, text))
    }
}

pub fn is_remote(s: &str) -> bool {
    s.starts_with("http://")
        || s.starts_with("https://")
        || s.starts_with("git::")
        || s.starts_with("git@")
        || s.starts_with("ssh://")
        || s.starts_with("github.com/")
        || s.starts_with("oci://")
}

/// Parses the objects of a YAML stream, expanding `List` kinds.
pub fn resources_from_text(file: &Path, text: &str) -> Result<Vec<Resource>, Error> {
    let docs = crate::yaml::parse_stream(text).map_err(|e| Error::yaml(file, &e))?;
    let fileref = Arc::new(file.to_path_buf());
    let mut out = Vec::new();
    for d in docs {
        let origin = Origin {
            file: Some(fileref.clone()),
            line: d.line,
        };
        push_object(file, d.line, d.node, &origin, &mut out)?;
    }
    Ok(out)
}

fn push_object(
    file: &Path,
    line: usize,
    node: Node,
    origin: &Origin,
    out: &mut Vec<Resource>,
) -> Result<(), Error> {
    let err = |m: String| Error {
        file: Some(file.to_path_buf()),
        line: Some(line),
        message: m,
    };
    let Node::Map(m) = node else {
        return Err(err(format!(
            "expected a Kubernetes object (a mapping), found a {}",
            node.kind_name()
        )));
    };
    let kind = m
        .get("kind")
        .and_then(Node::as_str)
        .unwrap_or("")
        .to_string();
    if kind.ends_with("List") && m.get("items").is_some() {
        if let Some(Node::Seq(items)) = m.get("items") {
            for it in items.clone() {
                push_object(file, line, it, origin, out)?;
            }
        }
        return Ok(());
    }
    if kind.is_empty() {
        return Err(err("missing Resource metadata: 'kind' is required".into()));
    }
    if m.get("metadata")
        .and_then(|md| md.get("name"))
        .and_then(Node::as_str)
        .is_none_or(str::is_empty)
    {
        return Err(err(format!(
            "missing metadata.name in object of kind '{kind}'"
        )));
    }
    if m.get("apiVersion")
        .and_then(Node::as_str)
        .is_none_or(str::is_empty)
    {
        return Err(err(format!("object of kind '{kind}' has no 'apiVersion'")));
    }
    out.push(Resource::new(Node::Map(m), origin.clone()));
    Ok(())
}

/// Builds kustomization directories.
pub struct Kustomizer<'a> {
    pub fs: &'a dyn FileSystem,
    pub opts: BuildOptions,
}

impl<'a> Kustomizer<'a> {
    pub fn new(fs: &'a dyn FileSystem, opts: BuildOptions) -> Self {
        Kustomizer { fs, opts }
    }

    /// `kustomize build DIR`: the final, sorted resources.
    pub fn build(&self, dir: &Path) -> Result<ResMap, Error> {
        let k = self.load_dir(dir, &[])?;
        self.build_kustomization(&k)
    }

    /// Builds an already loaded (possibly modified) kustomization.
    pub fn build_kustomization(&self, k: &Kustomization) -> Result<ResMap, Error> {
        let mut stack = vec![k.dir().to_path_buf()];
        let mut m = self.accumulate(k, ResMap::new(), &mut stack)?;
        for r in m.iter() {
            if let Some(bad) = non_finite(&r.obj) {
                return Err(Error {
                    file: r.origin.file.as_deref().cloned(),
                    line: Some(r.origin.line),
                    message: format!(
                        "json: unsupported value: {bad} in {} (quote it)",
                        r.cur_id()
                    ),
                });
            }
        }
        super::generators::add_hashes(&mut m)?;
        super::nameref::fix(&mut m)?;
        m.resources.retain(|r| !r.is_local_config());
        super::sort::sort(k, &mut m)?;
        Ok(m)
    }

    fn load_dir(&self, dir: &Path, stack: &[PathBuf]) -> Result<Kustomization, Error> {
        if let Some(b) = &self.opts.boundary
            && !dir.starts_with(b)
        {
            return Err(Error::at(
                dir,
                format!("directory is outside the source root '{}'", b.display()),
            ));
        }
        if !self.fs.is_dir(dir) {
            return Err(Error::at(
                dir,
                "must build at directory: not a valid directory",
            ));
        }
        for visited in stack {
            if visited.starts_with(dir) {
                return Err(Error::at(
                    dir,
                    format!(
                        "cycle detected: candidate root '{}' contains visited root '{}'",
                        dir.display(),
                        visited.display()
                    ),
                ));
            }
        }
        Kustomization::load(self.fs, dir)
    }

    pub fn loader<'b>(&'b self, k: &'b Kustomization) -> Loader<'b> {
        Loader {
            fs: self.fs,
            root: k.dir().to_path_buf(),
            opts: &self.opts,
            file: k.file.clone(),
        }
    }

    fn accumulate(
        &self,
        k: &Kustomization,
        mut ra: ResMap,
        stack: &mut Vec<PathBuf>,
    ) -> Result<ResMap, Error> {
        let ldr = self.loader(k);
        let mut paths = k.str_list("resources")?;
        paths.extend(k.str_list("bases")?);
        for p in &paths {
            self.accumulate_path(k, &ldr, p, &mut ra, stack)?;
        }
        super::generators::run(k, &ldr, &mut ra)?;
        for c in k.str_list("components")? {
            if is_remote(&c) {
                return Err(k.err(format!("remote component '{c}' is not supported offline")));
            }
            let dir = ldr.resolve(&c);
            let ck = self
                .load_dir(&dir, stack)
                .map_err(|e| e.context(format!("accumulating components: '{c}'")))?;
            if !ck.is_component {
                return Err(k.err(format!(
                    "accumulating components: expected kind 'Component' for path '{}' but got 'Kustomization'",
                    dir.display()
                )));
            }
            stack.push(dir);
            ra = self.accumulate(&ck, ra, stack)?;
            stack.pop();
        }
        self.transform(k, &ldr, &mut ra)?;
        Ok(ra)
    }

    fn accumulate_path(
        &self,
        k: &Kustomization,
        ldr: &Loader,
        p: &str,
        ra: &mut ResMap,
        stack: &mut Vec<PathBuf>,
    ) -> Result<(), Error> {
        if is_remote(p) {
            return Err(k.err(format!(
                "resource '{p}' is remote: remote resources are not supported offline (vendor it into the repository)"
            )));
        }
        let full = ldr.resolve(p);
        if self.fs.is_file(&full) {
            let (file, text) = ldr.load(p)?;
            for r in resources_from_text(&file, &text)? {
                ra.append(r)
                    .map_err(|m| k.err(format!("accumulating resources from '{p}': {m}")))?;
            }
            return Ok(());
        }
        if self.fs.is_dir(&full) {
            let sub = self.load_dir(&full, stack)?;
            if sub.is_component {
                return Err(k.err(format!(
                    "accumulating resources: expected kind != 'Component' for path '{}' (list it under 'components')",
                    full.display()
                )));
            }
            stack.push(full.clone());
            let m = self.accumulate(&sub, ResMap::new(), stack)?;
            stack.pop();
            ra.append_all(m)
                .map_err(|m| k.err(format!("accumulating resources from '{p}': {m}")))?;
            return Ok(());
        }
        Err(k.err(format!(
            "accumulating resources: '{}' does not exist (not a file, not a directory)",
            full.display()
        )))
    }

    fn transform(&self, k: &Kustomization, ldr: &Loader, m: &mut ResMap) -> Result<(), Error> {
        super::patch::patches_strategic_merge(k, ldr, m)?;
        super::patch::patches(k, ldr, m)?;
        super::transformers::namespace(k, m)?;
        super::transformers::prefix_suffix(k, m)?;
        super::transformers::labels(k, m)?;
        super::transformers::annotations(k, m)?;
        super::patch::patches_json6902(k, ldr, m)?;
        super::transformers::replicas(k, m)?;
        super::transformers::images(k, m)?;
        super::replacements::apply(k, ldr, m)?;
        Ok(())
    }
}

fn non_finite(n: &Node) -> Option<String> {
    match n {
        Node::Float(f) if !f.is_finite() => Some(crate::yaml::emit::format_float(*f)),
        Node::Map(m) => m.iter().find_map(|(_, v)| non_finite(v)),
        Node::Seq(s) => s.iter().find_map(non_finite),
        _ => None,
    }
}

/// kustomize's output: documents separated by `---`.
pub fn to_yaml(m: &ResMap) -> String {
    crate::yaml::stream_to_string(m.iter().map(|r| &r.obj))
}
