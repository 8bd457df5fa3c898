//! Helpers shared by the fuzz targets: how one fuzz input becomes several
//! texts, and an in-memory file system for kustomization trees.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Path, PathBuf};

use flate::fs::FileSystem;

/// Separates the parts of a two-part input (an object and its patch).
pub const PART_SEPARATOR: &str = "\n#%%\n";

/// Splits a two-part input; `None` when the separator is missing.
pub fn two_parts(text: &str) -> Option<(&str, &str)> {
    text.split_once(PART_SEPARATOR)
}

/// Starts a file in a tree input: `#> path/in/tree` on a line of its own.
pub const FILE_HEADER: &str = "#> ";

/// The directory a tree input is built in.
pub const TREE_ROOT: &str = "/fuzz";

/// A read-only in-memory file tree.
#[derive(Debug, Default)]
pub struct MemFs {
    files: BTreeMap<PathBuf, Vec<u8>>,
    dirs: BTreeSet<PathBuf>,
}

/// The files of a tree input, in order: text before the first
/// [`FILE_HEADER`] line is `first`; every header line names the file the
/// lines after it (up to the next header) fill.
fn tree_parts(text: &str, first: &str) -> Vec<(String, String)> {
    let mut parts = Vec::new();
    let mut name = first.to_string();
    let mut body = String::new();
    for line in text.split_inclusive('\n') {
        if let Some(rest) = line.strip_prefix(FILE_HEADER) {
            let next = rest.trim_end_matches(['\n', '\r']).to_string();
            parts.push((
                std::mem::replace(&mut name, next),
                std::mem::take(&mut body),
            ));
        } else {
            body.push_str(line);
        }
    }
    parts.push((name, body));
    parts
}

impl MemFs {
    /// Reads a tree input: text before the first `#> ` header is
    /// `kustomization.yaml`; every header line names the file the lines
    /// after it (up to the next header) fill. Paths are relative to
    /// [`TREE_ROOT`]; `..` and absolute paths are kept as written, so the
    /// loader's own checks see them.
    pub fn from_tree_input(text: &str) -> MemFs {
        let mut fs = MemFs::default();
        fs.dirs.insert(PathBuf::from("/"));
        let root = Path::new(TREE_ROOT);
        for (name, body) in tree_parts(text, "kustomization.yaml") {
            fs.add(&root.join(&name), body.into_bytes());
        }
        fs
    }

    fn add(&mut self, path: &Path, data: Vec<u8>) {
        let path = flate::fs::normalize(Path::new("/"), path);
        if path.as_os_str().is_empty() || path == Path::new("/") {
            return;
        }
        let mut dir = path.parent();
        while let Some(d) = dir {
            self.dirs.insert(d.to_path_buf());
            dir = d.parent();
        }
        if !self.dirs.contains(&path) {
            self.files.insert(path, data);
        }
    }
}

impl FileSystem for MemFs {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.files
            .get(path)
            .cloned()
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such file"))
    }
    fn is_dir(&self, path: &Path) -> bool {
        self.dirs.contains(path)
    }
    fn is_file(&self, path: &Path) -> bool {
        self.files.contains_key(path)
    }
    fn list(&self, path: &Path) -> io::Result<Vec<String>> {
        if !self.dirs.contains(path) {
            return Err(io::Error::new(io::ErrorKind::NotFound, "no such directory"));
        }
        let mut names: BTreeSet<String> = BTreeSet::new();
        for p in self.files.keys().chain(self.dirs.iter()) {
            if p.parent() == Some(path)
                && let Some(n) = p.file_name()
            {
                names.insert(n.to_string_lossy().into_owned());
            }
        }
        Ok(names.into_iter().collect())
    }
}

/// Prints documents and checks the printed text reads back to the same
/// text when printed again (the writer's output is stable YAML).
///
/// Not for documents with a mapping key `<<` (read from a quoted `"<<"`):
/// go-yaml's writers, and so kubectl's and Helm's output, which flate's
/// writer matches byte for byte, print it plain, and a plain `<<` key
/// reads back as a merge key.
pub fn assert_print_stable(nodes: &[flate::yaml::Node], what: &str) {
    if nodes.iter().any(has_merge_key_text) {
        return;
    }
    let out = flate::yaml::stream_to_string(nodes.iter());
    // Read back as the writer quotes for: go-yaml v2's rules (kustomize's
    // output). Under v3's, some strings it leaves plain read as numbers
    // (`0o-7` is -7), in kustomize's output as in flate's.
    let again = match flate::yaml::parse::parse_stream_with(&out, flate::yaml::resolve::Schema::V2)
    {
        Ok(d) => d,
        Err(e) => panic!("{what}: printed YAML does not parse ({e}):\n{out}"),
    };
    let again: Vec<_> = again.into_iter().map(|d| d.node).collect();
    let out2 = flate::yaml::stream_to_string(again.iter());
    // go-yaml (and so kustomize, which flate's writer matches byte for
    // byte) reads U+0085, U+2028 and U+2029 as line breaks in some
    // scalars, so text holding them may change on every round trip.
    if !out.contains(['\u{85}', '\u{2028}', '\u{2029}']) {
        assert_eq!(out, out2, "{what}: printing is not stable");
    }
}

/// The name the `template` target parses its input under.
pub const TEMPLATE_NAME: &str = "c/templates/t.yaml";

/// Whether executing `text` (a template and its values) stays small.
/// A template language can ask for exponential work in a few bytes: a
/// template that calls itself twice per level, a `range` around a
/// recursive call, a string that doubles with each of 50 assignments.
/// That is as slow in Helm as in flate and no fault of either. So a
/// template is always parsed, and executed only when it has few of the
/// constructs that multiply work:
///
/// - at most two calls (`template`, `include`, `tpl`, `block`) and nothing else
///   of this list, and not the name of the main template (two calls of
///   it would double the work per level); or no call and at most two of
///   `range`, `print*`, `indent`, `=` (assignments and declarations),
///   `list`, `dict`, `quote`, `join`, `repeat`, `until`, `seq`. Two calls
///   are enough for unbounded recursion (`include "a"` from the main
///   template and from `a`), which the engine's depth limit must stop.
/// - no number token longer than three characters and no character
///   constant (`'\U0010FFFF'` is a number too).
pub fn small_execution(text: &str) -> bool {
    const CALLS: &[&str] = &["template", "include", "tpl", "block"];
    const AMPLIFIERS: &[&str] = &[
        "range", "print", "indent", "=", "list", "dict", "quote", "join", "repeat", "until", "seq",
    ];
    let count = |words: &[&str]| -> usize { words.iter().map(|w| text.matches(w).count()).sum() };
    let (calls, amplifiers) = (count(CALLS), count(AMPLIFIERS));
    let calls_only = calls <= 2 && amplifiers == 0 && !text.contains(TEMPLATE_NAME);
    if !(calls_only || calls == 0 && amplifiers <= 2) {
        return false;
    }
    if text.contains('\'') {
        return false;
    }
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '_'))
        .all(|tok| !tok.starts_with(|c: char| c.is_ascii_digit()) || tok.len() <= 3)
}

/// The `template` target's property on one case: parse `tpl` with Helm's
/// functions and, when [`small_execution`] allows, execute it with the
/// values in `values` (YAML) as `.Values`. Nothing panics; an error
/// prints as Helm's error text.
pub fn template_case(tpl: &str, values: &str) {
    use flate::template::{Templates, Value};
    let mut t = Templates::new();
    t.name = "gotpl".into();
    flate::helm::funcs::add_funcs(&mut t);
    let name = TEMPLATE_NAME;
    if let Err(e) = t.parse(name, tpl) {
        let _ = flate::helm::error_text(&e);
        return;
    }
    if !small_execution(&format!("{tpl}\n{values}")) {
        return;
    }
    let values = match flate::yaml::parse_one(values) {
        Ok(n) => flate::helm::funcs::from_node(&n),
        Err(_) => return,
    };
    let values = match values {
        Value::Nil => Value::map(BTreeMap::new()),
        v => v,
    };
    let data = Value::map(BTreeMap::from([("Values".to_string(), values)]));
    if let Err(e) = t.execute(name, &data) {
        let _ = flate::helm::error_text(&e);
    }
}

/// Whether a mapping in `n` has the string key `<<`: go-yaml, and so
/// kustomize and flate, print it plain, and it reads back as a merge key.
pub fn has_merge_key_text(n: &flate::yaml::Node) -> bool {
    match n {
        flate::yaml::Node::Map(m) => m.iter().any(|(k, v)| k == "<<" || has_merge_key_text(v)),
        flate::yaml::Node::Seq(items) => items.iter().any(has_merge_key_text),
        _ => false,
    }
}

/// In a chart tree input, a header `#> charts/NAME.tgz!PATH` puts the file
/// at `PATH` (raw: `..` and absolute paths kept) into the gzipped tar
/// archive `charts/NAME.tgz`.
pub const ARCHIVE_MARK: char = '!';

/// In a chart tree input, the file named so holds the user values (what
/// `-f` gives), not a file of the chart.
pub const USER_VALUES: &str = "@values";

/// A chart tree input read: files of the chart directory (relative paths,
/// as written), archives to pack (their path, then each entry's raw name
/// and data), user values.
#[derive(Debug, Default)]
pub struct ChartTree {
    pub files: Vec<(String, String)>,
    pub archives: BTreeMap<String, Vec<(String, String)>>,
    pub values: String,
}

impl ChartTree {
    /// Reads a chart tree input: text before the first `#> ` header is
    /// `Chart.yaml`; then as [`MemFs::from_tree_input`], with
    /// [`ARCHIVE_MARK`] and [`USER_VALUES`].
    pub fn from_input(text: &str) -> ChartTree {
        let mut tree = ChartTree::default();
        for (name, body) in tree_parts(text, "Chart.yaml") {
            tree.add(name, body);
        }
        tree
    }

    fn add(&mut self, name: String, body: String) {
        if name == USER_VALUES {
            self.values = body;
        } else if let Some((archive, entry)) = name.split_once(ARCHIVE_MARK) {
            self.archives
                .entry(archive.to_string())
                .or_default()
                .push((entry.to_string(), body));
        } else {
            self.files.push((name, body));
        }
    }

    /// The text of every template the render may execute: files under a
    /// `templates/` directory, in the chart or in an archive.
    pub fn template_text(&self) -> String {
        let archived = self.archives.values().flatten();
        self.files
            .iter()
            .chain(archived)
            .filter(|(n, _)| is_template_path(n))
            .map(|(_, t)| t.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Writes the chart into `dir` (emptied first), leaving out templates
    /// when `templates` is false. A path that would leave `dir` (absolute,
    /// or with `..`) is not written: the directory walk never meets such a
    /// name. Archives are packed with their entries' names as written.
    pub fn write(&self, dir: &Path, templates: bool) -> io::Result<()> {
        if dir.exists() {
            std::fs::remove_dir_all(dir)?;
        }
        std::fs::create_dir_all(dir)?;
        let keep = |n: &str| templates || !is_template_path(n);
        for (name, body) in &self.files {
            let Some(rel) = inside(name) else { continue };
            if keep(name) {
                write_file(&dir.join(rel), body.as_bytes());
            }
        }
        for (name, entries) in &self.archives {
            let Some(rel) = inside(name) else { continue };
            let entries: Vec<_> = entries.iter().filter(|(n, _)| keep(n)).collect();
            write_file(&dir.join(rel), &tgz(&entries)?);
        }
        Ok(())
    }
}

/// Whether a chart path is a template's (under some `templates/`).
fn is_template_path(name: &str) -> bool {
    name.starts_with("templates/") || name.contains("/templates/")
}

/// A relative path that stays inside its directory, or `None`.
fn inside(name: &str) -> Option<PathBuf> {
    let p = Path::new(name);
    let ok = !name.is_empty()
        && p.components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
    ok.then(|| p.to_path_buf())
}

/// Writes a file, making its directories; a name that clashes with a
/// directory (or a file where a directory must go) is skipped, as a tree
/// cannot hold both.
fn write_file(path: &Path, data: &[u8]) {
    if let Some(parent) = path.parent()
        && std::fs::create_dir_all(parent).is_err()
    {
        return;
    }
    let _ = std::fs::write(path, data);
}

/// A gzipped tar archive of the entries, names written raw into the
/// header (at most 100 bytes; longer names are cut).
fn tgz(entries: &[&(String, String)]) -> io::Result<Vec<u8>> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut ar = tar::Builder::new(gz);
    for (name, body) in entries {
        let mut h = tar::Header::new_old();
        let raw = name.as_bytes();
        let n = raw.len().min(100);
        h.as_old_mut().name[..n].copy_from_slice(&raw[..n]);
        h.set_size(body.len() as u64);
        h.set_mode(0o644);
        h.set_entry_type(tar::EntryType::Regular);
        h.set_cksum();
        ar.append(&h, body.as_bytes())?;
    }
    ar.into_inner()?.finish()
}

/// The `helm_chart` target's property on one case: the chart written to
/// `dir` loads and renders (with the user values) without a panic; a
/// failure is an error with a message, and a render prints. Templates are
/// executed only when [`small_execution`] allows their text; otherwise
/// the chart is written without them, so that loading, values, schemas and
/// dependencies are still exercised.
pub fn chart_case(input: &str, dir: &Path) {
    let tree = ChartTree::from_input(input);
    let templates = small_execution(&tree.template_text());
    if tree.write(dir, templates).is_err() {
        return;
    }
    let chart = match flate::helm::chart::load(dir) {
        Ok(c) => c,
        Err(e) => {
            assert!(!e.to_string().is_empty(), "an empty load error");
            return;
        }
    };
    let values = match flate::yaml::parse_one(&tree.values) {
        Ok(flate::yaml::Node::Map(m)) => flate::yaml::Node::Map(m),
        _ => flate::yaml::Node::Map(flate::yaml::Map::new()),
    };
    let opts = flate::helm::chart::RenderOptions {
        values,
        ..Default::default()
    };
    match flate::helm::chart::render(&chart, &opts) {
        Ok(r) => {
            let _ = flate::helm::chart::print_template(&r);
        }
        Err(e) => assert!(!e.to_string().is_empty(), "an empty render error"),
    }
}

/// The `resourceset` target's property on one input, a YAML stream: every
/// Flux Operator ResourceSet in it (with the stream's other objects as
/// its possible input providers) expands to objects carrying its owner
/// labels, or fails with a message, and does the same again. Templates
/// run only when [`small_execution`] allows the whole text.
pub fn resourceset_case(text: &str) {
    use flate::flux::resourceset::{expand, is_resource_set};
    use flate::resource::{Origin, Resource};
    let Ok(docs) = flate::yaml::parse_stream(text) else {
        return;
    };
    let objects: Vec<Resource> = docs
        .into_iter()
        .filter(|d| matches!(d.node, flate::yaml::Node::Map(_)))
        .map(|d| Resource::new(d.node, Origin::default()))
        .collect();
    if !small_execution(text) {
        return;
    }
    let all: Vec<&Resource> = objects.iter().collect();
    for r in objects.iter().filter(|r| is_resource_set(r)) {
        let first = expand(r, &all);
        let again = expand(r, &all);
        match (&first, &again) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a.warnings, b.warnings, "warned differently twice");
                let (a, b) = (&a.objects, &b.objects);
                let nodes = |v: &[Resource]| v.iter().map(|o| o.obj.clone()).collect::<Vec<_>>();
                assert_eq!(nodes(a), nodes(b), "expanded differently twice");
                for o in a {
                    let owner = o
                        .obj
                        .get_path(&[
                            "metadata",
                            "labels",
                            "resourceset.fluxcd.controlplane.io/name",
                        ])
                        .and_then(flate::yaml::Node::scalar_text);
                    assert_eq!(
                        owner.as_deref(),
                        Some(r.name()),
                        "owner label of {:?}",
                        o.obj
                    );
                }
            }
            (Err(a), Err(b)) => {
                assert_eq!(a, b, "failed differently twice");
                assert!(!a.message().is_empty());
            }
            _ => panic!("expanded once, failed once: {first:?} / {again:?}"),
        }
    }
}
