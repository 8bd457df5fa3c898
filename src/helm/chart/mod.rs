//! Helm charts: loading (`Chart.yaml`, `values.yaml`, `charts/`, `.tgz`),
//! values coalescing, dependencies (`condition`, `tags`, `alias`,
//! `import-values`), `values.schema.json`, and rendering exactly as `helm
//! template` does (Helm v4).
//!
//! [`load`] reads a chart once; a [`Chart`] is immutable, `Send + Sync` and
//! caches its parsed templates, so one loaded chart renders many releases
//! (in parallel) with [`render`]. [`print_template`] prints what `helm
//! template` prints.

mod ahead;
mod deps;
pub(crate) mod glob;
mod head;
mod load;
mod objects;
mod render;
mod schema;
mod schema_cycle;
mod schema_formats;
mod schema_quick;
pub mod strvals;
pub mod values;

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use crate::template::{ParsedText, Value};

pub use load::{archive_chart_name, load, load_archive_entries, load_parsing_ahead, load_values};
pub use objects::{DEFAULT_API_VERSIONS, go_string};
pub use render::{print_template, render, render_values, write_template};

/// A chart error: `Display` is Helm's message text.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartError {
    pub message: String,
    /// The file the error is about, where known.
    pub path: Option<PathBuf>,
    /// The error happened while rendering templates (Helm then adds
    /// "Use --debug flag to render out invalid YAML").
    pub in_render: bool,
}

impl ChartError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        ChartError {
            message: message.into(),
            path: None,
            in_render: false,
        }
    }

    pub(crate) fn at(message: impl Into<String>, path: impl Into<PathBuf>) -> Self {
        ChartError {
            message: message.into(),
            path: Some(path.into()),
            in_render: false,
        }
    }

    pub(crate) fn rendering(mut self) -> Self {
        self.in_render = true;
        self
    }
}

impl fmt::Display for ChartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ChartError {}

/// A file of a chart (path relative to the chart's root, `/`-separated).
#[derive(Debug, Clone)]
pub struct ChartFile {
    pub name: String,
    pub data: FileData,
}

/// A file of a chart's `templates/`. A chart directory's templates are
/// opened when the chart is loaded and read when first parsed (see
/// [`FileData`]): those of a subchart the values disable are never read.
#[derive(Debug, Clone)]
pub struct TemplateFile {
    pub name: String,
    pub data: FileData,
}

impl TemplateFile {
    /// The template as text (invalid UTF-8 replaced, as Go's conversion
    /// of the bytes to a string prints them), borrowed when it is valid;
    /// an error names the file when reading it fails.
    pub fn text(&self) -> Result<std::borrow::Cow<'_, str>, String> {
        self.data.get().map(|d| utf8_text(d))
    }

    /// The template as shared text: the bytes read, not a copy, when they
    /// are valid UTF-8 (see [`TemplateFile::text`]).
    pub fn shared_text(&self) -> Result<Arc<str>, String> {
        self.data.get().map(shared_utf8)
    }
}

/// The bytes of a chart file. A chart directory's templates and the files
/// that only `.Files` and `--include-crds` reach (`crds/`, `files/`,
/// READMEs, every file outside `templates/`, `charts/` and the chart's own
/// YAML) are opened when the chart is loaded, so that the errors Helm
/// reports while loading come at the same point (a template's stays open
/// until it is read, up to 256 at once), and read on first use: a
/// chart such as kube-prometheus-stack carries 4.7 MB of files that a
/// render without `--include-crds` never looks at, and
/// victoria-metrics-k8s-stack 0.23.2 2.8 MB of templates in a subchart its
/// default values disable. Every other file, and every file of an archive,
/// is read when the chart is loaded.
#[derive(Debug, Clone)]
pub enum FileData {
    Read(Arc<[u8]>),
    Deferred(Arc<Deferred>),
}

/// A file to read on first use.
#[derive(Debug)]
pub struct Deferred {
    /// Its name in the chart, for the error message.
    name: String,
    path: PathBuf,
    /// Its size when the chart was loaded.
    len: usize,
    /// The file as opened when the chart was loaded, kept for the read (a
    /// template's: see [`load::keep_open`]), else `None` (opened again).
    file: std::sync::Mutex<Option<std::fs::File>>,
    bytes: OnceLock<Result<Arc<[u8]>, String>>,
}

impl Drop for Deferred {
    fn drop(&mut self) {
        if let Ok(f) = self.file.get_mut()
            && f.take().is_some()
        {
            load::closed_kept();
        }
    }
}

impl FileData {
    pub(crate) fn deferred(
        name: String,
        path: PathBuf,
        len: usize,
        file: Option<std::fs::File>,
    ) -> FileData {
        FileData::Deferred(Arc::new(Deferred {
            name,
            path,
            len,
            file: std::sync::Mutex::new(file),
            bytes: OnceLock::new(),
        }))
    }

    /// The size in bytes: of the bytes read, else of the file when the
    /// chart was loaded.
    pub fn size(&self) -> usize {
        match self {
            FileData::Read(b) => b.len(),
            FileData::Deferred(d) => match d.bytes.get() {
                Some(Ok(b)) => b.len(),
                _ => d.len,
            },
        }
    }

    /// The bytes (a leading byte order mark dropped, as Helm drops it); an
    /// error names the file when a deferred read fails (the file was
    /// removed or changed after the chart was loaded).
    pub fn get(&self) -> Result<&Arc<[u8]>, String> {
        match self {
            FileData::Read(b) => Ok(b),
            FileData::Deferred(d) => d
                .bytes
                .get_or_init(|| {
                    let kept = d.file.lock().ok().and_then(|mut f| f.take());
                    let kept = kept.map(|f| (f, d.len));
                    load::read_file(&d.name, &d.path, kept)
                })
                .as_ref()
                .map_err(Clone::clone),
        }
    }
}

impl From<Arc<[u8]>> for FileData {
    fn from(b: Arc<[u8]>) -> Self {
        FileData::Read(b)
    }
}

/// Shared bytes as shared text, without a copy when they are valid UTF-8
/// (the same allocation), else with invalid UTF-8 replaced (as Go prints
/// such a string).
pub(crate) fn shared_utf8(b: &Arc<[u8]>) -> Arc<str> {
    match std::str::from_utf8(b) {
        Ok(_) => {
            let raw = Arc::into_raw(b.clone()) as *const str;
            // SAFETY: the bytes were just checked to be UTF-8, and `str` has
            // the layout of `[u8]`: the pointer came from `Arc::into_raw`
            // of an `Arc` of that layout (std builds `Rc<str>` from
            // `Rc<[u8]>` the same way).
            unsafe { Arc::from_raw(raw) }
        }
        Err(_) => Arc::from(String::from_utf8_lossy(b).as_ref()),
    }
}

/// Bytes as text, invalid UTF-8 replaced (as Go prints such a string);
/// borrowed when valid, which is checked first (the quick check).
pub(crate) fn utf8_text(b: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(b) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(b),
    }
}

impl ChartFile {
    /// The file as text (invalid UTF-8 replaced, as Go's conversion of
    /// the bytes to a string prints them), borrowed when it is valid.
    pub fn text(&self) -> Result<std::borrow::Cow<'_, str>, String> {
        self.data.get().map(|d| utf8_text(d))
    }
}

/// A maintainer entry of `Chart.yaml`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Maintainer {
    pub name: String,
    pub email: String,
    pub url: String,
}

/// A dependency entry of `Chart.yaml` (or `requirements.yaml`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dependency {
    pub name: String,
    pub version: String,
    pub repository: String,
    pub condition: String,
    pub tags: Vec<String>,
    pub enabled: bool,
    /// Entries as written: strings or `{child, parent}` maps.
    pub import_values: Vec<Value>,
    pub alias: String,
}

/// `Chart.yaml`, with Helm's field names.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Metadata {
    pub api_version: String,
    pub name: String,
    pub home: String,
    pub sources: Vec<String>,
    pub version: String,
    pub description: String,
    pub keywords: Vec<String>,
    pub maintainers: Vec<Maintainer>,
    pub icon: String,
    pub condition: String,
    pub tags: String,
    pub app_version: String,
    pub deprecated: bool,
    /// `None` when Chart.yaml has no annotations map (Go's nil map).
    pub annotations: Option<BTreeMap<String, String>>,
    pub kube_version: String,
    /// `None` when the chart lists no dependencies at all.
    pub dependencies: Option<Vec<Dependency>>,
    pub chart_type: String,
}

impl Metadata {
    pub fn is_library(&self) -> bool {
        self.chart_type == "library"
    }
}

/// A loaded chart with its subcharts and files.
#[derive(Debug)]
pub struct Chart {
    pub metadata: Metadata,
    /// `templates/...` files.
    pub templates: Vec<TemplateFile>,
    /// Every other file the chart exposes as `.Files` (including `crds/`).
    pub files: Vec<ChartFile>,
    /// `values.yaml` (a map).
    pub values: Value,
    /// `values.schema.json`, when present.
    pub schema: Option<Arc<[u8]>>,
    /// Subcharts found in `charts/` (directories and archives).
    pub dependencies: Vec<Arc<Chart>>,
    /// Where the chart was loaded from (a directory, an archive, or an
    /// archive inside a parent chart).
    pub path: PathBuf,
    /// Parsed templates by full template name (`parent/charts/sub/templates/x.yaml`).
    parsed: ParseCache,
    /// Templates being parsed on a thread of their own (see
    /// [`load_parsing_ahead`]).
    ahead: Option<Arc<ahead::Ahead>>,
}

/// Parsed templates by full template name.
type ParseCache = Arc<Mutex<BTreeMap<String, Arc<Result<ParsedText, crate::template::Error>>>>>;

impl Chart {
    /// Whether a template of the chart or of a subchart calls Helm's
    /// `lookup` (the word `lookup` followed by a blank, then an argument:
    /// a string, a variable, a field or a parenthesis), which finds
    /// nothing offline, where helm-controller asks the cluster.
    pub fn calls_lookup(&self) -> bool {
        let calls = |text: &str| {
            memchr::memmem::find_iter(text.as_bytes(), b"lookup").any(|i| {
                let before = text[..i].chars().next_back();
                let after = text[i + 6..].trim_start_matches([' ', '\t']);
                !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.' || c == '$')
                    && text[i + 6..].starts_with([' ', '\t'])
                    && after.starts_with(['"', '$', '.', '(', '`'])
            })
        };
        self.templates
            .iter()
            .any(|t| t.text().is_ok_and(|s| calls(&s)))
            || self.dependencies.iter().any(|d| d.calls_lookup())
    }
}

impl Drop for Chart {
    fn drop(&mut self) {
        if let Some(a) = &self.ahead {
            a.close();
        }
    }
}

impl Chart {
    pub fn name(&self) -> &str {
        &self.metadata.name
    }

    /// Reads every file whose reading was deferred (see [`FileData`]), in
    /// this chart and its subcharts: for a chart whose directory is about
    /// to be removed.
    pub fn read_all(&self) -> Result<(), ChartError> {
        let files = self.files.iter().map(|f| (&f.name, &f.data));
        let templates = self.templates.iter().map(|t| (&t.name, &t.data));
        for (name, data) in files.chain(templates) {
            data.get()
                .map_err(|m| ChartError::at(m, self.path.join(name)))?;
        }
        self.dependencies.iter().try_for_each(|d| d.read_all())
    }

    /// The chart's CRD files (`crds/*.yaml|yml|json`).
    pub fn crd_files(&self) -> impl Iterator<Item = &ChartFile> {
        self.files.iter().filter(|f| {
            f.name.starts_with("crds/") && {
                let ext = f.name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
                matches!(ext.as_deref(), Some("yaml" | "yml" | "json"))
            }
        })
    }
}

/// What to render a chart with (`helm template`'s flags).
#[derive(Debug, Clone)]
pub struct RenderOptions {
    pub release_name: String,
    pub namespace: String,
    /// User values, already merged from `-f` files (a map).
    pub values: crate::yaml::Node,
    /// `--kube-version` (default: Helm's, v1.35.0).
    pub kube_version: Option<String>,
    /// `--api-versions`, added to Helm's default set.
    pub api_versions: Vec<String>,
    pub is_upgrade: bool,
    pub include_crds: bool,
    pub skip_tests: bool,
    pub skip_schema_validation: bool,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            release_name: "release-name".into(),
            namespace: "default".into(),
            values: crate::yaml::Node::Map(crate::yaml::Map::new()),
            kube_version: None,
            api_versions: Vec::new(),
            is_upgrade: false,
            include_crds: false,
            skip_tests: false,
            skip_schema_validation: false,
        }
    }
}

/// One document of the output.
#[derive(Debug, Clone, PartialEq)]
pub struct Manifest {
    /// The template path, as in `# Source:` (`chart/templates/x.yaml`).
    pub source: String,
    /// The document text (without the `---` and `# Source:` lines).
    pub body: String,
    /// Whether Helm's install reads the document followed by a line
    /// break, which a block scalar ending the document keeps (`|`): a
    /// manifest that is not the last of its template's output, or the
    /// last when the output ends with a line break. Not a hook (installed
    /// from its own, trimmed document) nor a CRD (from its file as is).
    pub final_break: bool,
    /// A hook (`helm.sh/hook` annotation).
    pub hook: bool,
    /// A test hook (`helm.sh/hook: test`).
    pub test: bool,
    /// A file of a chart's `crds/` directory.
    pub crd: bool,
}

/// The result of rendering.
#[derive(Debug, Clone, PartialEq)]
pub struct Rendered {
    /// In `helm template`'s output order: CRDs (when asked for), manifests,
    /// then hooks.
    pub manifests: Vec<Manifest>,
    /// The rendered `NOTES.txt` of the top chart (`helm template` does not print it).
    pub notes: Option<String>,
    /// What Helm would log (coalescing conflicts, skipped schemas).
    pub warnings: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shareable<T: Send + Sync>() {}

    #[test]
    fn shared_text_is_the_bytes_themselves_when_valid() {
        let b: Arc<[u8]> = Arc::from(&b"kind: ConfigMap # \xc3\xa9"[..]);
        let t = shared_utf8(&b);
        assert_eq!(&*t, "kind: ConfigMap # \u{e9}");
        assert_eq!(t.as_ptr(), b.as_ptr(), "no copy");
        drop(b);
        assert_eq!(&*t, "kind: ConfigMap # \u{e9}", "the text keeps the bytes");
        let bad: Arc<[u8]> = Arc::from(&b"a\xffb"[..]);
        assert_eq!(&*shared_utf8(&bad), "a\u{fffd}b");
    }

    #[test]
    fn charts_are_shareable_across_threads() {
        shareable::<Chart>();
        shareable::<Rendered>();
        shareable::<RenderOptions>();
    }
}
