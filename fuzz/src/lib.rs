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
        let mut name = "kustomization.yaml".to_string();
        let mut body = String::new();
        for line in text.split_inclusive('\n') {
            if let Some(rest) = line.strip_prefix(FILE_HEADER) {
                fs.add(&root.join(&name), std::mem::take(&mut body).into_bytes());
                name = rest.trim_end_matches(['\n', '\r']).to_string();
            } else {
                body.push_str(line);
            }
        }
        fs.add(&root.join(&name), body.into_bytes());
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
            if p.parent() == Some(path) {
                if let Some(n) = p.file_name() {
                    names.insert(n.to_string_lossy().into_owned());
                }
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
    let again = match flate::yaml::parse::parse_stream_with(&out, flate::yaml::resolve::Schema::V2) {
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
