//! The build pipeline and the loader (root restriction, cycles).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::fs::{FileSystem, normalize};
use crate::resource::{Origin, ResMap, Resource};
use crate::yaml::Node;

use super::Error;
use super::kustfile::Kustomization;
use super::origin::{self, BuildMeta};
use super::tconfig::TransformerConfig;

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
    /// Render `helmCharts` (kustomize's `--enable-helm`) with the chart
    /// engine; without it a kustomization that lists charts fails, as
    /// kustomize does.
    pub enable_helm: bool,
    /// Local copies of remote resources, components and files (see
    /// [`Remotes`]).
    pub remotes: Remotes,
}

/// Local copies standing for what a kustomization names by URL (a remote
/// file, or a remote base or component: a directory), which flate does not
/// fetch: `--remote URL=PATH`, `remotes` of .flate.yaml. The URL is matched
/// as the kustomization writes it. A copy is read from the machine's file
/// system, whatever the build reads the repository from (a Git revision
/// for `flate diff --base`), and a directory copy builds as its own root.
#[derive(Debug, Clone, Default)]
pub struct Remotes(std::sync::Arc<Vec<(String, PathBuf)>>);

impl Remotes {
    /// `pairs`: URL and absolute path.
    pub fn new(pairs: Vec<(String, PathBuf)>) -> Remotes {
        Remotes(std::sync::Arc::new(pairs))
    }

    /// The local copy standing for `url`.
    pub fn get(&self, url: &str) -> Option<&Path> {
        self.0
            .iter()
            .find(|(u, _)| u == url)
            .map(|(_, p)| p.as_path())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// What a remote reference that has no local copy says, for the errors of
/// remote resources, components and files.
fn no_copy(url: &str) -> String {
    format!("(or give a local copy: --remote {url}=PATH)")
}

/// Reads files on behalf of one kustomization directory.
pub struct Loader<'a> {
    pub fs: &'a dyn FileSystem,
    pub root: PathBuf,
    pub opts: &'a BuildOptions,
    /// The kustomization file, for error messages.
    pub file: PathBuf,
    /// Its text, to find the line that names a file in an error.
    pub text: Option<Arc<str>>,
    /// Where patches that select nothing are recorded.
    pub unmatched: &'a std::sync::Mutex<Vec<UnmatchedPatch>>,
}

/// A `patches` or `patchesJson6902` entry whose target selected no object
/// (kustomize applies it to nothing, silently).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnmatchedPatch {
    /// The kustomization file declaring it.
    pub file: PathBuf,
    /// `patches` or `patchesJson6902`.
    pub field: &'static str,
    /// Position in that list.
    pub index: usize,
    /// The target, as `kind=Deployment name=app`.
    pub target: String,
    /// The patch sets an image, tag, digest or chart version.
    pub sets_pin: bool,
}

impl Loader<'_> {
    /// An error at the kustomization's line that names `rel`.
    fn err_naming(&self, rel: &str, message: String) -> Error {
        let mut e = Error::at(&self.file, message);
        e.line = self
            .text
            .as_deref()
            .and_then(|t| super::kustfile::any_value_line(t, rel));
        e
    }

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

    /// The local copy of remote file `rel`, read.
    fn remote_copy(&self, rel: &str) -> Option<Result<(PathBuf, Vec<u8>), Error>> {
        let p = self.opts.remotes.get(rel)?;
        Some(
            crate::fs::RealFs
                .read(p)
                .map(|b| (p.to_path_buf(), b))
                .map_err(|e| {
                    self.err_naming(rel, format!("local copy '{}' of '{rel}': {e}", p.display()))
                }),
        )
    }

    /// Reads a file as bytes, enforcing the restrictor.
    pub fn load_bytes(&self, rel: &str) -> Result<(PathBuf, Vec<u8>), Error> {
        if let Some(copy) = self.remote_copy(rel) {
            return copy;
        }
        let p = self.check(rel)?;
        let b = self.fs.read(&p).map_err(|e| Error::at(&p, e.to_string()))?;
        Ok((p, b))
    }

    fn check(&self, rel: &str) -> Result<PathBuf, Error> {
        if is_remote(rel) {
            return Err(self.err_naming(
                rel,
                format!(
                    "remote file '{rel}' is not supported offline {}",
                    no_copy(rel)
                ),
            ));
        }
        let p = self.resolve(rel);
        self.check_boundary(&p)
            .map_err(|e| self.err_naming(rel, e.message))?;
        if self.opts.load_restrictor == LoadRestrictor::RootOnly && !p.starts_with(&self.root) {
            return Err(self.err_naming(
                rel,
                format!(
                    "security; file '{}' is not in or below '{}' (use --load-restrictor none to allow it)",
                    p.display(),
                    self.root.display()
                ),
            ));
        }
        if !self.fs.is_file(&p) {
            return Err(self.err_naming(
                rel,
                format!("'{}' does not exist or is not a file", p.display()),
            ));
        }
        // kustomize resolves symlinks before it applies the restrictor.
        if self.opts.load_restrictor == LoadRestrictor::RootOnly
            && let Some(real) = self.fs.real_path(&p)
            && let Some(real_root) = self.fs.real_path(&self.root)
            && !real.starts_with(&real_root)
        {
            return Err(self.err_naming(
                rel,
                format!(
                    "security; file '{}' is not in or below '{}': it is a symlink to '{}' (use --load-restrictor none to allow it)",
                    p.display(),
                    real_root.display(),
                    real.display()
                ),
            ));
        }
        Ok(p)
    }

    /// Reads a file named relative to the root, enforcing the restrictor.
    pub fn load(&self, rel: &str) -> Result<(PathBuf, String), Error> {
        if let Some(copy) = self.remote_copy(rel) {
            let (p, b) = copy?;
            let text = String::from_utf8(b).map_err(|e| Error::at(&p, e.to_string()))?;
            return Ok((p, text));
        }
        let p = self.check(rel)?;
        let text = self
            .fs
            .read_to_string(&p)
            .map_err(|e| Error::at(&p, e.to_string()))?;
        Ok((p, text))
    }
}

/// An error at the line of the `nth` listing of `p` under `resources`
/// (or `bases`).
fn resource_err(k: &Kustomization, p: &str, nth: usize, message: String) -> Error {
    let mut e = k.err(message);
    e.line = k
        .item_line("resources", p, nth)
        .or_else(|| k.item_line("bases", p, nth));
    e
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
    let docs = crate::yaml::parse_stream(text).map_err(|e| Error::yaml_in(file, text, &e))?;
    let fileref = Arc::new(file.to_path_buf());
    let mut out = Vec::new();
    // kyaml's reader unwraps a `List` or `ResourceList` that is the file's
    // only document (as its reader splits documents: on lines starting
    // with `---` after the first line) and keeps its items as they are;
    // other `*List` objects are inlined through JSON.
    let single = byte_reader_documents(text) == 1 && docs.len() == 1;
    for d in docs {
        let origin = Origin {
            file: Some(fileref.clone()),
            line: d.line,
        };
        if single
            && let Node::Map(m) = &d.node
            && matches!(
                m.get("kind").and_then(Node::as_str),
                Some("List" | "ResourceList")
            )
            && (m.contains_key("items") || m.contains_key("functionConfig"))
        {
            if let Some(Node::Seq(items)) = m.get("items") {
                for it in items.clone() {
                    push_object(file, d.line, it, &origin, &mut out)?;
                }
            }
            continue;
        }
        push_object(file, d.line, d.node, &origin, &mut out)?;
    }
    Ok(out)
}

/// How many documents kyaml's `ByteReader` splits a text into.
fn byte_reader_documents(text: &str) -> usize {
    let text = if text.contains('\r') {
        std::borrow::Cow::Owned(text.replace("\r\n", "\n"))
    } else {
        std::borrow::Cow::Borrowed(text)
    };
    let mut n = 1;
    let mut rest = &*text;
    while let Some(i) = rest.find("\n---") {
        let after = &rest[i + 1..];
        match after.find('\n') {
            Some(j) => {
                n += 1;
                rest = &after[j + 1..];
            }
            None => break,
        }
    }
    n
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
    let mut node = node;
    crate::resource::text_names(&mut node);
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
        match m.get("items") {
            Some(Node::Seq(items)) => {
                // kustomize inlines a list's items through JSON
                // (`convertObjectSliceToNodeSlice`).
                for it in items.clone() {
                    let mut it = it;
                    if let Some(bad) = non_finite(&it) {
                        return Err(err(format!("json: unsupported value: {bad}")));
                    }
                    json_reparse(&mut it);
                    push_object(file, line, it, origin, out)?;
                }
            }
            Some(Node::Null) => {}
            Some(other) => {
                return Err(err(format!(
                    "expected array in {kind}/items, but found {}",
                    other.kind_name()
                )));
            }
            None => {}
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
    // kustomize accepts an object without `apiVersion` (its group and
    // version are empty).
    let r = Resource::new(Node::Map(m), origin.clone());
    // kustomize computes every object's id as it is added, asking the
    // schema whether its kind is cluster-scoped (see `openapi_custom`).
    r.gvk().is_cluster_scoped();
    out.push(r);
    Ok(())
}

/// Builds kustomization directories.
/// Directories listed in one kustomization from which their builds run in
/// parallel.
const PARALLEL_DIRS: usize = 8;

pub struct Kustomizer<'a> {
    pub fs: &'a dyn FileSystem,
    pub opts: BuildOptions,
    /// The built kustomization's `buildMetadata`, when it asks for any.
    meta: Option<BuildMeta>,
    /// Patches whose target selected nothing, in every kustomization the
    /// builds so far read.
    pub unmatched: std::sync::Mutex<Vec<UnmatchedPatch>>,
}

impl<'a> Kustomizer<'a> {
    pub fn new(fs: &'a dyn FileSystem, opts: BuildOptions) -> Self {
        Kustomizer {
            fs,
            opts,
            meta: None,
            unmatched: Default::default(),
        }
    }

    /// The patches whose target selected nothing, in a stable order.
    pub fn take_unmatched(&self) -> Vec<UnmatchedPatch> {
        let mut v = std::mem::take(&mut *self.unmatched.lock().unwrap_or_else(|e| e.into_inner()));
        v.sort_by(|a, b| (&a.file, a.field, a.index).cmp(&(&b.file, b.field, b.index)));
        v.dedup();
        v
    }

    /// `kustomize build DIR`: the final, sorted resources.
    pub fn build(&self, dir: &Path) -> Result<ResMap, Error> {
        let k = self.load_dir(dir, &[])?;
        self.build_kustomization(&k)
    }

    /// Builds an already loaded (possibly modified) kustomization.
    pub fn build_kustomization(&self, k: &Kustomization) -> Result<ResMap, Error> {
        // Every kustomization of the build takes the built one's
        // `buildMetadata`.
        if self.meta.is_none()
            && let Some(meta) = BuildMeta::of(k)?
        {
            let kz = Kustomizer {
                fs: self.fs,
                opts: self.opts.clone(),
                meta: Some(meta),
                unmatched: Default::default(),
            };
            let built = kz.build_kustomization(k);
            let found = kz.take_unmatched();
            self.unmatched
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .extend(found);
            return built;
        }
        // The schema for strategic merge is chosen per build (see
        // `openapi_custom`): the top level first.
        let _schema = super::openapi_custom::scoped(super::openapi_custom::Active::Unset);
        self.choose_openapi(k, true)?;
        let mut stack = vec![k.dir().to_path_buf()];
        let mut cfg = TransformerConfig::default();
        let mut m = self.accumulate(k, ResMap::new(), &mut cfg, &mut stack)?;
        super::generators::add_hashes(&mut m)?;
        // Fixing back references reads every object's previous ids (the
        // hashes just added recorded the names before them).
        if let Some(r) = m.iter().find(|r| !r.prev_ids_consistent()) {
            return Err(k.err(format!(
                "number of previous names, number of previous namespaces, number of previous kinds not equal (a name with a comma: {})",
                r.cur_id()
            )));
        }
        super::nameref::fix(&mut m, &cfg)?;
        let var_specs = cfg.specs(super::tconfig::Table::VarReference);
        super::vars::resolve(&mut m, &var_specs).map_err(|e| match e.file {
            None => k.err(e.message),
            Some(_) => e,
        })?;
        // DropLocalNodes validates every object's metadata first.
        for r in m.iter() {
            if r.kind().is_empty() {
                return Err(k.err(format!("missing kind in object {}", r.cur_id())));
            }
            // kyaml reads the name into a string: a number or a bool
            // (which a field spec may have written there) is its text.
            let named = match r.obj.get_path(&["metadata", "name"]) {
                None | Some(Node::Null) => false,
                Some(n) => n.scalar_text().is_some_and(|t| !t.is_empty()),
            };
            if !r.kind().ends_with("List") && !named {
                return Err(k.err(format!("missing metadata.name in object {}", r.cur_id())));
            }
        }
        m.resources.retain(|r| !r.is_local_config());
        // IgnoreLocal rebuilds the map with Append (kustomize panics here).
        unique_ids(&m).map_err(|e| k.err(e))?;
        super::sort::sort(k, &mut m)?;
        if let Some(meta) = &self.meta {
            origin::finish(&mut m, meta)?;
        }
        for r in m.resources.iter_mut() {
            resolve_tagless(&mut r.obj);
            finalize_annotations(r)?;
            apply_print_breaks(&mut r.obj);
        }
        // kustomize prints JSON through go-yaml v2, whose reader refuses
        // characters Go's JSON encoder leaves unescaped: DEL, the C1 controls
        // other than NEL, U+FFFE and U+FFFF.
        for r in m.iter() {
            if let Some(c) = unprintable(&r.obj) {
                return Err(Error {
                    file: r.origin.file.as_deref().cloned(),
                    line: Some(r.origin.line),
                    message: format!(
                        "yaml: control characters are not allowed (U+{:04X} in {})",
                        c as u32,
                        r.cur_id()
                    ),
                });
            }
        }
        // kustomize prints each object with go-yaml v3 and reads it back.
        for r in m.iter() {
            if let Some(msg) = unreadable_tag(&r.obj).or_else(|| tab_started_block(&r.obj)) {
                return Err(Error {
                    file: r.origin.file.as_deref().cloned(),
                    line: Some(r.origin.line),
                    message: format!("{msg} in {}", r.cur_id()),
                });
            }
        }
        // The output goes through JSON, which has no NaN or infinity.
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

    /// The kustomization of the directory copy `dir` of remote `url`, and
    /// the builder that reads it: the machine's file system, the copy as
    /// the boundary (a remote base is a root of its own).
    fn remote_dir(
        &self,
        dir: &Path,
        url: &str,
    ) -> Result<(Kustomization, Kustomizer<'static>), Error> {
        static REAL: crate::fs::RealFs = crate::fs::RealFs;
        if !REAL.is_dir(dir) {
            return Err(Error::at(
                dir,
                format!("the local copy of '{url}' is neither a file nor a directory"),
            ));
        }
        let kz = Kustomizer::new(
            &REAL,
            BuildOptions {
                boundary: Some(dir.to_path_buf()),
                ..self.opts.clone()
            },
        );
        let k = kz.load_dir(dir, &[])?;
        Ok((k, kz))
    }

    /// kustomize's `openapi.SetSchema` for kustomization `k` (`reset` at
    /// the top level; elsewhere only when nothing chose yet).
    fn choose_openapi(&self, k: &Kustomization, reset: bool) -> Result<(), Error> {
        use super::openapi_custom::{self as oc, Active};
        let fields = k.str_map("openapi")?;
        let get = |key: &str| {
            fields
                .iter()
                .find(|(f, _)| f == key)
                .map(|(_, v)| v.clone())
        };
        let schema = match get("path") {
            Some(p) => {
                let (file, bytes) = self.loader(k).load_bytes(&p)?;
                let with_builtin = !reset && oc::builtin_delayed();
                Some(oc::load(&bytes, with_builtin).map_err(|e| Error::at(&file, e))?)
            }
            None => None,
        };
        if !reset && !matches!(oc::active(), Active::Unset) {
            return Ok(());
        }
        let version = get("version");
        match (schema, version) {
            (Some(_), Some(_)) => Err(k.err(
                "builtin version and custom schema provided, cannot use both (openapi: give either path or version)",
            )),
            (Some(s), None) => {
                oc::choose(Active::Custom(s), reset);
                Ok(())
            }
            (None, Some(v)) if v.is_empty() => Ok(()),
            (None, Some(v)) => {
                if !oc::BUILTIN_VERSIONS.contains(&v.as_str()) {
                    return Err(k.err(format!(
                        "the specified OpenAPI version is not built in (openapi.version '{v}'; kustomize v5.5.0 has {})",
                        oc::BUILTIN_VERSIONS.join(", ")
                    )));
                }
                oc::choose(Active::Builtin, reset);
                Ok(())
            }
            (None, None) => Ok(()),
        }
    }

    pub fn loader<'b>(&'b self, k: &'b Kustomization) -> Loader<'b> {
        Loader {
            fs: self.fs,
            root: k.dir().to_path_buf(),
            opts: &self.opts,
            file: k.file.clone(),
            text: k.text.clone(),
            unmatched: &self.unmatched,
        }
    }

    /// kustomize's `accumulateTarget`: `cfg` is the accumulator's
    /// transformer configuration, which takes the configurations of every
    /// kustomization accumulated into it.
    fn accumulate(
        &self,
        k: &Kustomization,
        mut ra: ResMap,
        cfg: &mut TransformerConfig,
        stack: &mut Vec<PathBuf>,
    ) -> Result<ResMap, Error> {
        self.choose_openapi(k, false)?;
        let ldr = self.loader(k);
        let mut paths = k.str_list("resources")?;
        paths.extend(k.str_list("bases")?);
        // Directories build independently of each other (each into its own
        // map, as kustomize does): with several, build them in parallel,
        // then append every piece in the listed order, so that the result
        // and the first error are the same as one after the other.
        let dirs = paths
            .iter()
            .filter(|p| !is_remote(p) && self.fs.is_dir(&ldr.resolve(p)))
            .count();
        // A few directories are not worth waking the thread pool for (a
        // single `kustomize build` starts it from nothing).
        // Which listing of the same path each one is (for error lines).
        let nth: Vec<usize> = (0..paths.len())
            .map(|i| paths[..i].iter().filter(|q| **q == paths[i]).count())
            .collect();
        if dirs < PARALLEL_DIRS {
            for (p, n) in paths.iter().zip(&nth) {
                self.accumulate_path(k, &ldr, p, *n, &mut ra, cfg, stack)?;
            }
        } else {
            use rayon::prelude::*;
            let schema = super::openapi_custom::active();
            let pieces: Vec<Result<(ResMap, TransformerConfig), Error>> = paths
                .par_iter()
                .zip(&nth)
                .map(|(p, n)| {
                    let _schema = super::openapi_custom::scoped(schema);
                    let mut piece = ResMap::new();
                    let mut piece_cfg = TransformerConfig::default();
                    let mut stack = stack.clone();
                    self.accumulate_path(k, &ldr, p, *n, &mut piece, &mut piece_cfg, &mut stack)
                        .map(|_| (piece, piece_cfg))
                })
                .collect();
            let mut ids = ra.id_set();
            for ((p, n), piece) in paths.iter().zip(&nth).zip(pieces) {
                let (piece, piece_cfg) = piece?;
                ra.append_with(piece, &mut ids).map_err(|m| {
                    resource_err(k, p, *n, format!("accumulating resources from '{p}': {m}"))
                })?;
                cfg.merge(&piece_cfg)
                    .map_err(|m| k.err(format!("merging config from '{p}': {m}")))?;
            }
        }
        let own = TransformerConfig::load(&k.str_list("configurations")?, &ldr)?;
        cfg.merge(&own)
            .map_err(|m| k.err(format!("merging config: {m}")))?;
        super::crds::merge(k, &ldr, &mut ra)?;
        if self.meta.is_some() {
            let configured_in = origin::relative(&stack[0], &k.file);
            super::generators::run_with(k, &ldr, &mut ra, &|r, kind| {
                origin::set_if_absent(r, &origin::Origin::builtin(&configured_in, kind))
            })?;
        } else {
            super::generators::run(k, &ldr, &mut ra)?;
        }
        super::transformers::plugins::generate(self, k, &ldr, &mut ra, stack)?;
        for c in k.str_list("components")? {
            if is_remote(&c) {
                let Some(copy) = self.opts.remotes.get(&c) else {
                    return Err(k.err(format!(
                        "remote component '{c}' is not supported offline {}",
                        no_copy(&c)
                    )));
                };
                let (ck, kz) = self.remote_dir(copy, &c)?;
                ra = kz.add_component(k, &ck, copy, ra, cfg, &mut Vec::new())?;
                continue;
            }
            if Path::new(&c).is_absolute() {
                return Err(k.err_at_item("components", &c, 0, format!(
                    "accumulating components: new root '{c}' cannot be absolute (name the directory relative to the kustomization)"
                )));
            }
            let dir = ldr.resolve(&c);
            let ck = self
                .load_dir(&dir, stack)
                .map_err(|e| e.context(format!("accumulating components: '{c}'")))?;
            ra = self.add_component(k, &ck, &dir, ra, cfg, stack)?;
        }
        self.transform(k, &ldr, &mut ra, cfg, stack)?;
        super::vars::merge(k, &mut ra)?;
        Ok(ra)
    }

    /// Whether objects are tracked for `buildMetadata`.
    pub(crate) fn tracks_origins(&self) -> bool {
        self.meta.is_some()
    }

    /// Accumulates component `ck` (directory `dir`) of `k` into `ra`.
    fn add_component(
        &self,
        k: &Kustomization,
        ck: &Kustomization,
        dir: &Path,
        ra: ResMap,
        cfg: &mut TransformerConfig,
        stack: &mut Vec<PathBuf>,
    ) -> Result<ResMap, Error> {
        if !ck.is_component {
            return Err(k.err(format!(
                "accumulating components: expected kind 'Component' for path '{}' but got 'Kustomization'",
                dir.display()
            )));
        }
        stack.push(dir.to_path_buf());
        let ra = self.accumulate(ck, ra, cfg, stack)?;
        stack.pop();
        // kustomize moves the result into a fresh accumulator
        // (MergeAccumulator), which refuses duplicate ids and merges the
        // tables into empty ones: in sorted order, so a kind-specific
        // field spec now drops a generic one of the same path after it.
        let merged = |m: String| {
            k.err(format!(
                "accumulating components: recursed merging from path '{}': {m}",
                ck.dir().display()
            ))
        };
        unique_ids(&ra).map_err(merged)?;
        let mut fresh = TransformerConfig::default();
        fresh.merge(cfg).map_err(|e| merged(e.to_string()))?;
        *cfg = fresh;
        Ok(ra)
    }

    /// Accumulates base `sub` (directory `dir`), listed as `p` (its
    /// `nth` listing) in `k`, into `ra`.
    #[allow(clippy::too_many_arguments)]
    fn add_base(
        &self,
        k: &Kustomization,
        p: &str,
        nth: usize,
        sub: &Kustomization,
        dir: &Path,
        ra: &mut ResMap,
        cfg: &mut TransformerConfig,
        stack: &mut Vec<PathBuf>,
    ) -> Result<(), Error> {
        let err = |m: String| resource_err(k, p, nth, m);
        if sub.is_component {
            return Err(err(format!(
                "accumulating resources: expected kind != 'Component' for path '{}' (list it under 'components')",
                dir.display()
            )));
        }
        stack.push(dir.to_path_buf());
        let mut sub_cfg = TransformerConfig::default();
        let m = self.accumulate(sub, ResMap::new(), &mut sub_cfg, stack)?;
        stack.pop();
        cfg.merge(&sub_cfg)
            .map_err(|m| k.err(format!("merging config from '{p}': {m}")))?;
        ra.append_all(m)
            .map_err(|m| err(format!("accumulating resources from '{p}': {m}")))
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn accumulate_path(
        &self,
        k: &Kustomization,
        ldr: &Loader,
        p: &str,
        nth: usize,
        ra: &mut ResMap,
        cfg: &mut TransformerConfig,
        stack: &mut Vec<PathBuf>,
    ) -> Result<(), Error> {
        let err = |m: String| resource_err(k, p, nth, m);
        if is_remote(p) {
            let Some(copy) = self.opts.remotes.get(p) else {
                return Err(err(format!(
                    "resource '{p}' is remote: remote resources are not supported offline (vendor it into the repository) {}",
                    no_copy(p)
                )));
            };
            if crate::fs::RealFs.is_file(copy) {
                let (file, text) = ldr.load(p)?;
                for r in resources_from_text(&file, &text)? {
                    ra.append(r)
                        .map_err(|m| err(format!("accumulating resources from '{p}': {m}")))?;
                }
                return Ok(());
            }
            let (sub, kz) = self.remote_dir(copy, p).map_err(|e| match e.file {
                None => err(e.message),
                Some(_) => e,
            })?;
            return kz.add_base(k, p, nth, &sub, copy, ra, cfg, &mut Vec::new());
        }
        let full = ldr.resolve(p);
        if self.fs.is_file(&full) {
            let (file, text) = ldr.load(p)?;
            let origin = self
                .meta
                .map(|_| origin::Origin::file(origin::relative(&stack[0], &file)).text());
            for mut r in resources_from_text(&file, &text)? {
                if let Some(o) = &origin {
                    origin::set_annotation(&mut r, origin::ORIGIN, Some(o.clone()));
                }
                ra.append(r)
                    .map_err(|m| err(format!("accumulating resources from '{p}': {m}")))?;
            }
            return Ok(());
        }
        if self.fs.is_dir(&full) {
            if Path::new(p).is_absolute() {
                return Err(err(format!(
                    "accumulating resources from '{p}': new root '{p}' cannot be absolute (name the directory relative to the kustomization)"
                )));
            }
            let sub = self.load_dir(&full, stack)?;
            return self.add_base(k, p, nth, &sub, &full, ra, cfg, stack);
        }
        Err(err(format!(
            "accumulating resources: '{}' does not exist (not a file, not a directory)",
            full.display()
        )))
    }

    fn transform(
        &self,
        k: &Kustomization,
        ldr: &Loader,
        m: &mut ResMap,
        cfg: &TransformerConfig,
        stack: &mut Vec<PathBuf>,
    ) -> Result<(), Error> {
        // An error that names no file is the kustomization's.
        self.transform_steps(k, ldr, m, cfg, stack)
            .map_err(|e| match e.file {
                None => k.err(e.message),
                Some(_) => e,
            })
    }

    /// The kustomization's builtin transformers, then those its
    /// `transformers:` configure, then its `validators:`.
    fn transform_steps(
        &self,
        k: &Kustomization,
        ldr: &Loader,
        m: &mut ResMap,
        cfg: &TransformerConfig,
        stack: &mut Vec<PathBuf>,
    ) -> Result<(), Error> {
        use super::transformers::{self, plugins};
        let configured_in = origin::relative(&stack[0], &k.file);
        let mut list = transformers::from_kustomization(k, cfg, &configured_in)?;
        list.extend(plugins::configured(self, k, ldr, "transformers", stack)?);
        transformers::run(&list, ldr, m, self.meta.is_some())?;
        plugins::validate(self, k, ldr, m, stack)
    }
}

/// kustomize's last step (`RemoveBuildAnnotations`) reads every object's
/// annotations as strings and writes them back (kyaml `SetAnnotations`): the
/// values become strings of their source text, an empty or non-map
/// `annotations` field disappears, and the keys are written as untagged
/// plain scalars. The output is then read back by go-yaml v3, so a key that
/// v3 reads as a number, bool or null makes the build fail.
fn finalize_annotations(r: &mut Resource) -> Result<(), Error> {
    let id = r.cur_id();
    let origin = r.origin.clone();
    let Some(Node::Map(md)) = r.obj.get_mut("metadata") else {
        return Ok(());
    };
    let Some(ann) = md.get("annotations") else {
        return Ok(());
    };
    // kyaml's SetAnnotations clears the field and creates it again at the
    // end of the metadata, with the keys sorted (which decides the last
    // scalar printed, see `apply_print_breaks`).
    let strings: crate::yaml::Map = match ann {
        Node::Map(a) => {
            let mut keys: Vec<&String> = a.keys().collect();
            keys.sort();
            keys.into_iter()
                .map(|k| {
                    (
                        k.clone(),
                        Node::Str(a.scalar_source_text(k).unwrap_or_default()),
                    )
                })
                .collect()
        }
        _ => crate::yaml::Map::new(),
    };
    if strings.is_empty() {
        md.remove("annotations");
        return Ok(());
    }
    for k in strings.keys() {
        let v3 = crate::yaml::resolve::resolve_plain(k, crate::yaml::resolve::Schema::V3);
        if !k.is_empty() && !matches!(v3, Node::Str(_)) {
            return Err(Error {
                file: origin.file.as_deref().cloned(),
                line: Some(origin.line),
                message: format!(
                    "json: unsupported type: map[interface {{}}]interface {{}}: annotation key '{k}' of {id} is read back as a {} (kustomize writes annotation keys unquoted)",
                    v3.kind_name()
                ),
            });
        }
    }
    md.remove("annotations");
    md.insert("annotations", Node::Map(strings));
    Ok(())
}

/// Untagged scalars (see `Map::is_tagless`) are read as YAML when kyaml
/// prints or decodes an object: `9090` becomes a number. A quoted one stays
/// a string.
pub fn resolve_tagless(n: &mut Node) {
    resolve_tagless_in(n, false);
}

/// Inside a flow collection go-yaml v3 quotes a text holding a flow
/// indicator: a timestamp with a time (`12:30`) then stays a string.
fn resolve_tagless_in(n: &mut Node, in_flow: bool) {
    match n {
        Node::Seq(items) => items
            .iter_mut()
            .for_each(|it| resolve_tagless_in(it, in_flow)),
        Node::Map(m) => {
            let in_flow = in_flow || m.is_flow();
            let keys: Vec<String> = m
                .keys()
                .filter(|k| m.is_tagless(k) && !m.is_quoted(k))
                .cloned()
                .collect();
            for k in keys {
                if let Some(Node::Str(t)) = m.get(&k) {
                    if in_flow
                        && t.contains(':')
                        && crate::yaml::resolve::parse_timestamp(t).is_some()
                    {
                        continue;
                    }
                    let t = t.clone();
                    let v =
                        crate::yaml::resolve::resolve_plain(&t, crate::yaml::resolve::Schema::V3);
                    let differs = crate::yaml::node_text(&v) != t;
                    m.insert(k.clone(), v);
                    if differs {
                        m.set_raw(&k, t);
                    }
                }
            }
            let flow_keys: Vec<String> = m
                .keys()
                .filter(|k| m.print_breaks(k) & crate::yaml::PRINT_FLOW != 0)
                .cloned()
                .collect();
            for (k, v) in m.iter_mut() {
                resolve_tagless_in(v, in_flow || flow_keys.contains(k));
            }
        }
        _ => {}
    }
}

fn unprintable(n: &Node) -> Option<char> {
    let bad = |s: &str| {
        if s.is_ascii() {
            return s.contains('\u{7f}').then_some('\u{7f}');
        }
        s.chars().find(|&c| {
            let c = c as u32;
            c == 0x7F || ((0x80..=0x9F).contains(&c) && c != 0x85) || c == 0xFFFE || c == 0xFFFF
        })
    };
    match n {
        Node::Str(s) => bad(s),
        Node::Seq(items) => items.iter().find_map(unprintable),
        // A NEL in a key is a line break in a flow key: go-yaml v2 fails too.
        Node::Map(m) => m.iter().find_map(|(k, v)| {
            bad(k)
                .or_else(|| k.chars().find(|&c| c == '\u{85}'))
                .or_else(|| unprintable(v))
        }),
        _ => None,
    }
}

/// What go-yaml v3 does to some block scalars when kustomize prints an
/// object and reads it back: a folded scalar is printed with extra breaks
/// (see `emit::folded_round_trip`), and a document foot comment is printed
/// after an empty line, which the last scalar of the document takes as one
/// more line break when it is a block that keeps its trailing breaks.
pub fn apply_print_breaks(n: &mut Node) {
    let grows = matches!(n, Node::Map(m) if m.has_doc_foot_comment())
        && last_scalar(n).is_some_and(|(s, block)| {
            block && (s == "\n" || s.ends_with("\n\n")) && crate::yaml::emit::v3_block_allowed(s)
        });
    apply_folded(n, false);
    if grows && let Some(s) = last_string_mut(n) {
        s.push('\n');
    }
}

/// The last scalar go-yaml v3 prints for `n` when it is a string, and
/// whether it is printed as a block: its style from the source, else a
/// block when it holds a line break, never inside a flow collection. The
/// last item of a list is a block when the source wrote it so (the map
/// entry holding the list records it).
fn last_scalar(n: &Node) -> Option<(&str, bool)> {
    use crate::yaml::{PRINT_FLOW, PRINT_FOLDED, PRINT_LITERAL};
    let Node::Map(m) = n else {
        return None;
    };
    let (k, v) = m.iter().last()?;
    let print = m.print_breaks(k);
    let source_block = print & (PRINT_FOLDED | PRINT_LITERAL) != 0;
    let (s, block): (&str, bool) = match v {
        Node::Str(s) => (s, source_block || (!m.is_quoted(k) && s.contains('\n'))),
        Node::Seq(items) => match items.last()? {
            Node::Str(s) => (s, source_block),
            item @ Node::Map(_) => last_scalar(item)?,
            _ => return None,
        },
        _ => last_scalar(v)?,
    };
    let in_flow = m.is_flow() || (matches!(v, Node::Seq(_)) && print & PRINT_FLOW != 0);
    Some((s, block && !in_flow))
}

fn last_string_mut(n: &mut Node) -> Option<&mut String> {
    let last = match n {
        Node::Map(m) => m.iter_mut().last()?.1,
        Node::Seq(items) => items.last_mut()?,
        _ => return None,
    };
    match last {
        Node::Str(s) => Some(s),
        other => last_string_mut(other),
    }
}

/// Folded scalars printed by go-yaml v3 and read back (none inside a flow
/// collection, where it prints them double-quoted).
fn apply_folded(n: &mut Node, in_flow: bool) {
    use crate::yaml::PRINT_FLOW;
    match n {
        Node::Seq(items) => items.iter_mut().for_each(|it| apply_folded(it, in_flow)),
        Node::Map(m) => {
            let in_flow = in_flow || m.is_flow();
            if in_flow {
                // A value left empty (`{a: , b: 1}`) is a null that
                // go-yaml v3 cannot print plain inside a flow collection:
                // it prints `''`, which reads back as an empty string.
                let empty: Vec<String> = m
                    .iter()
                    .filter(|(k, v)| matches!(v, Node::Null) && m.raw_text(k) == Some(""))
                    .map(|(k, _)| k.clone())
                    .collect();
                for k in empty {
                    m.insert(k.clone(), Node::Str(String::new()));
                    m.forget_raw(&k);
                    m.set_quoted(&k, true);
                }
            }
            if !in_flow {
                let (keys, lists) = m.folded_keys();
                for k in keys {
                    fold_again(m, &k);
                }
                // The folded items of a block sequence (those a patch did
                // not change), once.
                for k in lists {
                    let folded = m.take_folded_items(&k);
                    if m.print_breaks(&k) & PRINT_FLOW != 0 {
                        continue;
                    }
                    let folded: std::collections::HashSet<&str> =
                        folded.iter().map(String::as_str).collect();
                    if let Some(Node::Seq(items)) = m.get_mut(&k) {
                        for it in items {
                            if let Node::Str(s) = it
                                && folded.contains(s.as_str())
                            {
                                *s = crate::yaml::emit::folded_round_trip(s);
                            }
                        }
                    }
                }
            }
            let flow_keys: Vec<String> = m
                .keys()
                .filter(|k| m.print_breaks(k) & PRINT_FLOW != 0)
                .cloned()
                .collect();
            for (k, v) in m.iter_mut() {
                apply_folded(v, in_flow || flow_keys.contains(k));
            }
        }
        _ => {}
    }
}

/// The folded scalar at `k` as go-yaml v3 prints and reads it back, its
/// flags kept (apart from `apply_folded`, whose recursion keeps a small
/// frame).
fn fold_again(m: &mut crate::yaml::Map, k: &str) {
    let quoted = m.is_quoted(k);
    let tagless = m.is_tagless(k);
    let bad_tag = m.bad_tag(k);
    if let Some(Node::Str(text)) = m.get(k) {
        if crate::yaml::emit::v3_block_unreadable(text) {
            // Printed, it cannot be read back: left as it is, style
            // included, for `tab_started_block`.
            return;
        }
        let back = crate::yaml::emit::folded_round_trip(text);
        m.insert(k, Node::Str(back));
        m.set_quoted(k, quoted);
        m.set_tagless(k, tagless);
        m.set_bad_tag(k, bad_tag);
    }
}

/// `resWrangler.Append` over a whole map: no two objects may share an id.
fn unique_ids(m: &ResMap) -> Result<(), String> {
    match m.first_duplicate() {
        Some(id) => Err(format!(
            "may not add resource with an already registered id: {id}"
        )),
        None => Ok(()),
    }
}

/// A node written as JSON and read back: scalars lose the text they were
/// written with, every string is now a quoted scalar and every collection
/// is in flow style.
fn json_reparse(n: &mut Node) {
    match n {
        Node::Seq(items) => items.iter_mut().for_each(json_reparse),
        Node::Map(m) => {
            m.clear_source_texts();
            m.set_flow(true);
            let strings: Vec<String> = m
                .iter()
                .filter(|(_, v)| matches!(v, Node::Str(_)))
                .map(|(k, _)| k.clone())
                .collect();
            for k in strings {
                m.set_quoted(&k, true);
            }
            // A float is written with Go's JSON encoding (0.00001), which
            // becomes its text.
            let floats: Vec<(String, String)> = m
                .iter()
                .filter_map(|(k, v)| match v {
                    Node::Float(f) if f.is_finite() => {
                        Some((k.clone(), super::generators::go_json_float(*f)))
                    }
                    _ => None,
                })
                .collect();
            for (k, t) in floats {
                m.set_raw(&k, t);
            }
            let collections: Vec<String> = m
                .iter()
                .filter(|(_, v)| matches!(v, Node::Seq(_) | Node::Map(_)))
                .map(|(k, _)| k.clone())
                .collect();
            for k in collections {
                m.set_print_breaks(&k, crate::yaml::PRINT_FLOW);
            }
            for (_, v) in m.iter_mut() {
                json_reparse(v);
            }
        }
        _ => {}
    }
}

/// The error go-yaml v3 meets reading back an object it printed with a
/// block scalar whose first line starts with a tab (see
/// `emit::v3_block_unreadable`): a string written as a block, or a plain
/// one holding a line break, outside flow collections.
pub(crate) fn tab_started_block(n: &Node) -> Option<String> {
    fn walk(n: &Node, in_flow: bool) -> Option<String> {
        use crate::yaml::{PRINT_FLOW, PRINT_FOLDED, PRINT_LITERAL};
        let Node::Map(m) = n else {
            return None;
        };
        let in_flow = in_flow || m.is_flow();
        m.iter().find_map(|(k, v)| {
            let print = m.print_breaks(k);
            match v {
                Node::Str(s) if !in_flow && crate::yaml::emit::v3_block_unreadable(s) => {
                    let block = print & (PRINT_FOLDED | PRINT_LITERAL) != 0
                        || (!m.is_quoted(k) && s.contains('\n'));
                    block.then(|| {
                        format!(
                            "yaml: found a tab character where an indentation space is expected (the value of '{k}' starts with a tab)"
                        )
                    })
                }
                Node::Map(_) => walk(v, in_flow),
                Node::Seq(items) => {
                    let flow = in_flow || print & PRINT_FLOW != 0;
                    items.iter().find_map(|it| walk(it, flow))
                }
                _ => None,
            }
        })
    }
    walk(n, false)
}

/// The same error for an object kyaml rebuilt from JSON (every string that
/// holds a line break is a literal block).
pub(crate) fn tab_started_block_from_json(n: &Node) -> Option<String> {
    match n {
        Node::Str(s) if s.contains('\n') && crate::yaml::emit::v3_block_unreadable(s) => Some(
            "yaml: found a tab character where an indentation space is expected (a value starts with a tab)"
                .to_string(),
        ),
        Node::Map(m) => m.iter().find_map(|(_, v)| tab_started_block_from_json(v)),
        Node::Seq(items) => items.iter().find_map(tab_started_block_from_json),
        _ => None,
    }
}

/// The error go-yaml v3 meets reading back a scalar that keeps a type tag
/// its text does not resolve to (see `Map::set_bad_tag`; a quoted text
/// that does resolve to it reads back as a string).
pub(crate) fn unreadable_tag(n: &Node) -> Option<String> {
    // (The recursion keeps its frame small: deep documents run on the
    // 2 MiB stacks of worker threads.)
    match n {
        Node::Map(m) => m.iter().find_map(|(k, v)| match (m.bad_tag(k), v) {
            (Some(tag), Node::Str(text)) => tag_unreadable(tag, text),
            _ => unreadable_tag(v),
        }),
        Node::Seq(s) => s.iter().find_map(unreadable_tag),
        _ => None,
    }
}

/// go-yaml's error reading `text` tagged `tag`, unless the text resolves
/// to that tag (or an integer to `!!float`).
fn tag_unreadable(tag: &str, text: &str) -> Option<String> {
    let got =
        crate::yaml::resolve::resolve_plain(text, crate::yaml::resolve::Schema::V3).yaml_tag();
    if got == tag || (tag == "!!float" && got == "!!int") {
        return None;
    }
    Some(format!("yaml: cannot decode {got} `{text}` as a {tag}"))
}

pub(crate) fn non_finite(n: &Node) -> Option<String> {
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
