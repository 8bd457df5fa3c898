//! Loading a chart from a directory or a `.tgz` archive, as Helm's
//! `loader.Load` does: `.helmignore` (directories only), `Chart.yaml`
//! (v1 with `requirements.yaml`, v2), `values.yaml` (several documents are
//! merged), `values.schema.json`, `templates/`, `charts/` (directories and
//! archives, recursively), every other file as `.Files`.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::glob::go_match;
use super::values::{from_node, merge_maps};
use super::{
    Chart, ChartError, ChartFile, Dependency, FileData, Maintainer, Metadata, TemplateFile,
};
use crate::template::Value;
use crate::yaml::Node;

/// A file of a chart as read: its name in the chart directory, its bytes.
type NamedBytes = (String, FileData);

/// Templates queued by the directory walk are read by it below this size
/// (see [`walk`]).
const WALK_READ_MAX: u64 = 64 * 1024;

/// Helm's limits for archives.
const MAX_CHART_SIZE: u64 = 100 * 1024 * 1024;
const MAX_FILE_SIZE: u64 = 5 * 1024 * 1024;

/// Loads a chart directory or a `.tgz` archive.
pub fn load(path: &Path) -> Result<Chart, ChartError> {
    load_with(path, false)
}

/// [`load`], the chart's templates parsed ahead, on a thread of their own,
/// from the moment they are found (see [`super::ahead`]): for a chart
/// loaded to be rendered at once, by a process that has a core to spare
/// (`flate helm template`).
pub fn load_parsing_ahead(path: &Path) -> Result<Chart, ChartError> {
    load_with(path, true)
}

fn load_with(path: &Path, ahead: bool) -> Result<Chart, ChartError> {
    let ahead = ahead.then(|| super::ahead::Ahead::new(Default::default()));
    let at = ahead.as_ref().map(|a| Queue {
        ahead: a,
        parent: None,
        walk: false,
    });
    let loaded = load_top(path, at);
    if let (Err(_), Some(a)) = (&loaded, &ahead) {
        // No render will read what the job parses: it stops.
        a.close();
    }
    let mut chart = loaded?;
    if let Some(a) = ahead {
        chart.parsed = a.cache();
        chart.ahead = Some(a);
    }
    Ok(chart)
}

fn load_top(path: &Path, at: Option<Queue>) -> Result<Chart, ChartError> {
    let meta = std::fs::metadata(path)
        .map_err(|e| ChartError::at(format!("stat {}: {}", path.display(), io_text(&e)), path))?;
    if meta.is_dir() {
        // The templates of the subchart directories are queued as the
        // walk finds them (the top chart's, once it has ended).
        let files = read_dir_files(path, at.map(|q| q.ahead))?;
        load_files(files, path, at.map(|q| Queue { walk: true, ..q }))
    } else {
        let data = std::fs::read(path)
            .map_err(|e| ChartError::at(format!("{}: {}", path.display(), io_text(&e)), path))?;
        if !data.starts_with(b"\x1f\x8b\x08") {
            let name = path.display().to_string();
            let msg = if name.ends_with(".yml") || name.ends_with(".yaml") {
                format!("file '{name}' seems to be a YAML file, but expected a gzipped archive")
            } else {
                format!("file '{name}' does not appear to be a gzipped archive")
            };
            return Err(ChartError::at(msg, path));
        }
        let files = archive_files(&data).map_err(|m| ChartError::at(m, path))?;
        load_files(files, path, at)
    }
}

fn io_text(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

/// Helm's error for an entry of a chart directory that cannot be followed
/// (a symbolic link leading nowhere): Go's `filepath.EvalSymlinks` of its
/// absolute path fails where a step of the path is missing.
fn symlink_error(path: &Path, e: &std::io::Error) -> String {
    let cwd = go_getwd().unwrap_or_default();
    let abs = crate::fs::normalize(&cwd, path)
        .to_string_lossy()
        .into_owned();
    match eval_symlinks_failure(&abs) {
        Some(why) => format!("error evaluating symlink {abs}: {why}"),
        None => format!("{}: {}", path.display(), io_text(e)),
    }
}

/// The working directory as Go's `os.Getwd` gives it: `$PWD` when it is
/// absolute and names the same directory (the path the shell took, links
/// and all), else the kernel's.
fn go_getwd() -> Option<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let dot = std::fs::metadata(".").ok()?;
    if let Some(pwd) = std::env::var_os("PWD").map(PathBuf::from)
        && pwd.is_absolute()
        && std::fs::metadata(&pwd).is_ok_and(|m| m.dev() == dot.dev() && m.ino() == dot.ino())
    {
        return Some(pwd);
    }
    std::env::current_dir().ok()
}

/// Why Go's `filepath.EvalSymlinks` of the absolute path `abs` fails
/// (`lstat STEP: no such file or directory` at the first step missing,
/// links followed as it follows them); `None` when it does not.
fn eval_symlinks_failure(abs: &str) -> Option<String> {
    let mut rest: std::collections::VecDeque<String> = abs
        .split('/')
        .filter(|c| !c.is_empty())
        .map(String::from)
        .collect();
    let mut dest = String::new();
    let mut links = 0;
    while let Some(c) = rest.pop_front() {
        match c.as_str() {
            "." => continue,
            ".." => {
                if let Some(i) = dest.rfind('/') {
                    dest.truncate(i);
                }
                continue;
            }
            _ => {}
        }
        let step = format!("{dest}/{c}");
        let meta = match std::fs::symlink_metadata(&step) {
            Ok(m) => m,
            Err(e) => return Some(format!("lstat {step}: {}", io_text(&e))),
        };
        if !meta.file_type().is_symlink() {
            if !meta.is_dir() && !rest.is_empty() {
                return Some("not a directory".into());
            }
            dest = step;
            continue;
        }
        links += 1;
        if links > 255 {
            return Some("EvalSymlinks: too many links".into());
        }
        let target = std::fs::read_link(&step).ok()?;
        let target = target.to_string_lossy();
        if target.starts_with('/') {
            dest.clear();
        }
        for (i, part) in target.split('/').filter(|p| !p.is_empty()).enumerate() {
            rest.insert(i, part.to_string());
        }
    }
    None
}

/// `.helmignore` rules (Helm's `pkg/ignore`).
struct Rule {
    pattern: String,
    /// The pattern has no wildcard or escape: it matches itself only.
    literal: bool,
    /// The pattern is `*` then such a literal: it matches the names that
    /// end with it and have no `/` before.
    star_suffix: Option<String>,
    negate: bool,
    must_dir: bool,
    /// `/x`: matched against the whole path; a rule with a `/` likewise;
    /// others against the base name.
    whole_path: bool,
}

fn parse_rules(text: &str) -> Result<Vec<Rule>, String> {
    let mut rules = Vec::new();
    for line in text.trim_start_matches('\u{feff}').lines() {
        if let Some(r) = parse_rule(line)? {
            rules.push(r);
        }
    }
    Ok(rules)
}

fn parse_rule(line: &str) -> Result<Option<Rule>, String> {
    let rule = line.trim();
    if rule.is_empty() || rule.starts_with('#') {
        return Ok(None);
    }
    if rule.contains("**") {
        return Err("double-star (**) syntax is not supported".into());
    }
    go_match(rule, "abc").map_err(|_| "syntax error in pattern".to_string())?;
    let mut r = rule;
    let negate = r.starts_with('!');
    if negate {
        r = &r[1..];
    }
    let must_dir = r.ends_with('/');
    if must_dir {
        r = &r[..r.len() - 1];
    }
    let (pattern, whole_path) = match r.strip_prefix('/') {
        Some(after) => (after.to_string(), true),
        None => (r.to_string(), r.contains('/')),
    };
    let plain = |p: &str| !p.contains(['*', '?', '[', '\\']);
    Ok(Some(Rule {
        literal: plain(&pattern),
        star_suffix: pattern
            .strip_prefix('*')
            .filter(|rest| plain(rest))
            .map(str::to_string),
        pattern,
        negate,
        must_dir,
        whole_path,
    }))
}

fn ignored(rules: &[Rule], path: &str, is_dir: bool) -> bool {
    if path.is_empty() || path == "." || path == "./" {
        return false;
    }
    let base = path.rsplit('/').next().unwrap_or(path);
    for r in rules {
        let name = if r.whole_path { path } else { base };
        let m = if r.literal {
            r.pattern == name
        } else if let Some(suffix) = &r.star_suffix {
            name.ends_with(suffix.as_str()) && !name[..name.len() - suffix.len()].contains('/')
        } else {
            go_match(&r.pattern, name).unwrap_or(false)
        };
        if r.negate {
            // Helm's rule: a negated pattern ignores what it does not match.
            if r.must_dir && !is_dir {
                return true;
            }
            if !m {
                return true;
            }
            continue;
        }
        if r.must_dir && !is_dir {
            continue;
        }
        if m {
            return true;
        }
    }
    false
}

/// The files of a chart directory, `.helmignore` applied; with `ahead`,
/// the templates of the subchart directories in it are queued to be
/// parsed as the walk finds them (see [`Scope`]).
fn read_dir_files(
    dir: &Path,
    ahead: Option<&Arc<super::ahead::Ahead>>,
) -> Result<Vec<NamedBytes>, ChartError> {
    let mut rules = Vec::new();
    let ifile = dir.join(".helmignore");
    if ifile.is_file() {
        let text = std::fs::read_to_string(&ifile)
            .map_err(|e| ChartError::at(format!("{}: {}", ifile.display(), e), &ifile))?;
        rules = parse_rules(&text).map_err(|m| ChartError::at(m, &ifile))?;
    }
    rules.push(
        parse_rule("templates/.?*")
            .ok()
            .flatten()
            .expect("default rule"),
    );
    let mut files = Vec::new();
    let mut top = ahead.map(|a| (a, Scope::top()));
    let scope = top.as_mut().map(|(a, s)| (*a, s));
    walk(dir, "", None, &rules, &mut files, scope)?;
    Ok(files)
}

/// The chart whose directory a walk is in, for queuing its templates as
/// they are found, under the names [`Queue::prefix`] gives (which the
/// render looks them up by). What the walk cannot know yet is not queued:
/// a subchart's templates when its parent's dependencies are not known
/// (not in its `Chart.yaml`), or name it with a condition, tags or an
/// alias. (A `requirements.yaml`, read after `charts/`, may still change
/// the dependencies: what was queued for nothing is parsed for nothing,
/// and what the render lacks it parses itself.)
struct Scope {
    /// Its directory in the walk, "" for the top chart.
    root: String,
    /// The prefix of its templates' full names, once its `Chart.yaml` is
    /// read; `None`: not queued.
    prefix: Option<String>,
    library: bool,
    /// Its dependencies, once its `Chart.yaml` is read (`None`: unknown).
    deps: Option<Vec<super::Dependency>>,
    /// Its parent's prefix and dependencies (`None` for the top chart).
    parent: Option<(Option<String>, Option<Vec<super::Dependency>>)>,
}

impl Scope {
    fn top() -> Scope {
        Scope {
            root: String::new(),
            prefix: None,
            library: false,
            deps: None,
            parent: None,
        }
    }

    /// The scope of the subchart directory `root` of this chart.
    fn child(&self, root: String) -> Scope {
        Scope {
            root,
            prefix: None,
            library: false,
            deps: None,
            parent: Some((self.prefix.clone(), self.deps.clone())),
        }
    }

    /// The chart's `Chart.yaml` was read: its name, type and dependencies.
    fn read_chart_yaml(&mut self, data: &FileData) {
        let mut md = Metadata::default();
        let read = data
            .get()
            .ok()
            .and_then(|b| parse_metadata(&super::utf8_text(b), &mut md).ok());
        if read.is_none() {
            return;
        }
        self.library = md.is_library();
        self.prefix = match &self.parent {
            None => Some(md.name.clone()),
            Some((None, _)) | Some((_, None)) => None,
            Some((Some(parent), Some(deps))) => subchart_prefix(parent, Some(deps), &md),
        };
        self.deps = Some(md.dependencies.unwrap_or_default());
    }

    /// The full name to queue the file `name` (in the walk) under, when it
    /// is a template of this chart to queue: a subchart's. (The top chart's
    /// are queued once the walk has ended: read by the job then, alongside
    /// what follows. Read in the walk, kube-prometheus-stack's 1.4 MB made
    /// some renders 5% slower, others 3-5% faster.)
    fn template_name(&self, name: &str) -> Option<(String, String)> {
        self.parent.as_ref()?;
        let prefix = self.prefix.as_ref()?;
        let in_chart = if self.root.is_empty() {
            name
        } else {
            name.strip_prefix(self.root.as_str())?.strip_prefix('/')?
        };
        (in_chart.starts_with("templates/")
            && super::render::in_template_set(self.library, in_chart))
        .then(|| (format!("{prefix}/{in_chart}"), in_chart.to_string()))
    }
}

/// Walks the directory `rel` of the chart directory `base`, open as
/// `opened` (`None`: opened here).
fn walk(
    base: &Path,
    rel: &str,
    opened: Option<crate::fs::opened::Dir>,
    rules: &[Rule],
    out: &mut Vec<NamedBytes>,
    mut ahead: Option<(&Arc<super::ahead::Ahead>, &mut Scope)>,
) -> Result<(), ChartError> {
    let mut queued = Vec::new();
    let dir = if rel.is_empty() {
        base.to_path_buf()
    } else {
        base.join(rel)
    };
    let list_err =
        |e: std::io::Error| ChartError::at(format!("{}: {}", dir.display(), io_text(&e)), &dir);
    let mut opened = match opened {
        Some(d) => d,
        None => crate::fs::opened::Dir::open(&dir).map_err(list_err)?,
    };
    // The entry's type comes with the directory listing; only a symbolic
    // link needs a `stat` (Helm follows links).
    let mut entries = opened.entries().map_err(list_err)?;
    entries.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    for (name, os_name, kind) in entries {
        let path = dir.join(&os_name);
        let n = if rel.is_empty() {
            name.clone()
        } else {
            format!("{rel}/{name}")
        };
        let stat_err = |e: std::io::Error| {
            ChartError::at(format!("{}: {}", path.display(), io_text(&e)), &path)
        };
        let (is_dir, is_file) = match kind {
            crate::fs::opened::Kind::Dir => (true, false),
            crate::fs::opened::Kind::File => (false, true),
            crate::fs::opened::Kind::Other => (false, false),
            crate::fs::opened::Kind::Unknown => {
                let meta = std::fs::metadata(&path)
                    .map_err(|e| ChartError::at(symlink_error(&path, &e), &path))?;
                (meta.is_dir(), meta.is_file())
            }
        };
        if is_dir {
            if ignored(rules, &n, true) {
                continue;
            }
            // Opened from this directory, not from the root again.
            let sub = opened.open_dir(&os_name, &path).map_err(stat_err)?;
            match &mut ahead {
                Some((a, scope)) => {
                    // A directory in `charts/` is a subchart (as
                    // `load_files` takes them).
                    let in_chart = if scope.root.is_empty() {
                        Some(rel)
                    } else {
                        rel.strip_prefix(scope.root.as_str())
                            .and_then(|r| r.strip_prefix('/'))
                    };
                    if in_chart == Some("charts") && !name.starts_with(['_', '.']) {
                        let mut child = scope.child(n.clone());
                        walk(base, &n, Some(sub), rules, out, Some((a, &mut child)))?;
                    } else {
                        walk(base, &n, Some(sub), rules, out, Some((a, scope)))?;
                    }
                }
                None => walk(base, &n, Some(sub), rules, out, None)?,
            }
            continue;
        }
        if ignored(rules, &n, false) {
            continue;
        }
        if !is_file {
            return Err(ChartError::at(
                format!(
                    "cannot load irregular file {} as it has file mode type bits set",
                    path.display()
                ),
                &path,
            ));
        }
        let read_err = |e: std::io::Error| {
            ChartError::at(format!("error reading {n}: {}", io_text(&e)), &path)
        };
        let too_large = || {
            ChartError::at(
                format!("chart file {name:?} is larger than the maximum file size {MAX_FILE_SIZE}"),
                &path,
            )
        };
        let mut file = opened.open_file(&os_name, &path).map_err(read_err)?;
        // A template queued now is read now: read by the job instead, while
        // this walk lists directories, it made the walk wait (up to 15 ms
        // on kube-prometheus-stack, in half of the runs). But for a large
        // one (static text, such as a CRD's): the job reads it, as reading
        // it here would hold up the walk (prometheus-operator-crds' 4 MB,
        // +2.5 ms). Read without asking its size first: one system call
        // less for each of most templates.
        let queue_as = ahead.as_ref().and_then(|(_, s)| s.template_name(&n));
        let try_small = queue_as.is_some() && !read_at_load(&n);
        let small = if try_small {
            read_small(&mut file).map_err(read_err)?
        } else {
            None
        };
        let data: FileData = if let Some(bytes) = small {
            strip_bom(bytes).into()
        } else {
            // One open, the size from the open file, one read of that size
            // and one that finds the end (a file that grew meanwhile is
            // read whole).
            let len = file.metadata().map_err(stat_err)?.len();
            if len > MAX_FILE_SIZE {
                return Err(too_large());
            }
            if read_at_load(&n) || (queue_as.is_some() && len < WALK_READ_MAX) {
                strip_bom(read_shared(&mut file, len as usize).map_err(read_err)?).into()
            } else {
                let mut kept = keep_open(&n).then_some(file);
                if try_small && let Some(f) = &mut kept {
                    // (From its start: `read_small` read some.)
                    std::io::Seek::rewind(f).map_err(read_err)?;
                }
                FileData::deferred(n.clone(), path, len as usize, kept)
            }
        };
        if let Some((full, in_chart)) = queue_as {
            let file = TemplateFile {
                name: in_chart,
                data: data.clone(),
            };
            queued.push((full, file));
        } else if let Some((_, scope)) = &mut ahead {
            let chart_yaml = match scope.root.as_str() {
                "" => n == "Chart.yaml",
                root => n.strip_prefix(root) == Some("/Chart.yaml"),
            };
            if chart_yaml {
                scope.read_chart_yaml(&data);
            }
        }
        out.push((n, data));
    }
    if let Some((a, _)) = ahead {
        a.push(queued);
    }
    Ok(())
}

/// Whether loading the chart needs the file at `name` (a path in the chart
/// directory): its own `Chart.yaml`, values, schema and requirements, and
/// those of each subchart in `charts/` (an archive there is read whole).
/// Templates are read when first parsed, the rest when `.Files` and
/// `--include-crds` first read them (see [`FileData`]).
fn read_at_load(name: &str) -> bool {
    let mut rest = name;
    loop {
        match rest.split_once('/') {
            None => {
                return matches!(
                    rest,
                    "Chart.yaml"
                        | "Chart.lock"
                        | "values.yaml"
                        | "values.schema.json"
                        | "requirements.yaml"
                        | "requirements.lock"
                );
            }
            Some(("templates", _)) => return false,
            Some(("charts", sub)) => match sub.split_once('/') {
                Some((_, inner)) => rest = inner,
                None => return true,
            },
            Some(_) => return false,
        }
    }
}

/// How many files opened at load are kept open for their read (see
/// [`keep_open`]).
static KEPT_OPEN: AtomicUsize = AtomicUsize::new(0);

/// At most this many files are kept open at once: far below the usual
/// limit of 1,024 descriptors a process starts with, whatever the number
/// of charts loaded.
const MAX_KEPT_OPEN: usize = 256;

/// Whether the file `name`, just opened at load and deferred, stays open
/// until it is read: a template (nearly always read, when its chart is
/// rendered), while fewer than [`MAX_KEPT_OPEN`] are. Reading it then
/// takes one system call, not an `open`, a `stat` and a `close` more: on
/// app-template (123 templates) a tenth of the render's time.
fn keep_open(name: &str) -> bool {
    let template = name.starts_with("templates/") || name.contains("/templates/");
    template
        && KEPT_OPEN
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                (n < MAX_KEPT_OPEN).then_some(n + 1)
            })
            .is_ok()
}

/// A file kept open by [`keep_open`] was read or dropped.
pub(super) fn closed_kept() {
    KEPT_OPEN.fetch_sub(1, Ordering::Relaxed);
}

/// Reads a chart file that was opened when the chart was loaded (a
/// deferred [`FileData`]); `name` is its name in the chart; `kept`, the
/// file as opened then and its size then, if it was kept open (else it is
/// opened again).
pub(super) fn read_file(
    name: &str,
    path: &Path,
    kept: Option<(std::fs::File, usize)>,
) -> Result<Arc<[u8]>, String> {
    let read_err = |e: std::io::Error| format!("error reading {name}: {}", io_text(&e));
    if let Some((mut file, len)) = kept {
        closed_kept();
        return read_shared(&mut file, len).map(strip_bom).map_err(read_err);
    }
    let mut file = std::fs::File::open(path).map_err(read_err)?;
    let len = file.metadata().map_err(read_err)?.len();
    read_shared(&mut file, len as usize)
        .map(strip_bom)
        .map_err(read_err)
}

/// Reads what `r` holds, `len` bytes expected, into shared bytes (a
/// chart keeps its files as `Arc<[u8]>`): one allocation of that size,
/// filled in place, where reading into a vector and converting it would
/// copy every file once more. A source shorter or longer than `len` is
/// read whole all the same.
fn read_shared(r: &mut impl Read, len: usize) -> std::io::Result<Arc<[u8]>> {
    let mut data: Arc<[u8]> = std::iter::repeat_n(0u8, len).collect();
    let buf = Arc::get_mut(&mut data).expect("a new Arc is unique");
    let filled = fill(r, buf)?;
    if filled < len {
        return Ok(Arc::from(&buf[..filled]));
    }
    // One more read finds the end (`read_to_end` would first ask a file
    // for its size and position: two more system calls per file).
    let mut probe = [0u8; 1];
    let first = loop {
        match r.read(&mut probe) {
            Ok(n) => break n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    };
    if first == 0 {
        return Ok(data);
    }
    let mut all = data.to_vec();
    all.push(probe[0]);
    r.read_to_end(&mut all)?;
    Ok(all.into())
}

/// The whole of `r` when it holds less than [`WALK_READ_MAX`] bytes
/// (`None`: it holds more, some of it read), read into a buffer kept for
/// the next file, then copied to shared bytes of the right size.
fn read_small(r: &mut impl Read) -> std::io::Result<Option<Arc<[u8]>>> {
    thread_local! {
        static BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    BUF.with(|b| {
        let mut buf = b.borrow_mut();
        buf.resize(WALK_READ_MAX as usize, 0);
        let filled = fill(r, &mut buf)?;
        // (Full: there may be more.)
        Ok((filled < buf.len()).then(|| Arc::from(&buf[..filled])))
    })
}

/// Reads from `r` until `buf` is full or `r` ends; how much was read.
fn fill(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match r.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// The bytes without a leading UTF-8 byte order mark (Helm drops it).
fn strip_bom(data: Arc<[u8]>) -> Arc<[u8]> {
    match data.strip_prefix(b"\xef\xbb\xbf") {
        Some(rest) => Arc::from(rest),
        None => data,
    }
}

/// The files of a gzipped tar archive, the top directory stripped.
fn archive_files(data: &[u8]) -> Result<Vec<NamedBytes>, String> {
    let gz = flate2::read::GzDecoder::new(data);
    let mut ar = tar::Archive::new(gz);
    let mut files = Vec::new();
    let mut remaining = MAX_CHART_SIZE;
    let entries = ar.entries().map_err(|e| e.to_string())?;
    for entry in entries {
        let mut entry = entry.map_err(|e| e.to_string())?;
        let ty = entry.header().entry_type();
        if ty.is_dir() || ty.is_pax_global_extensions() || ty.is_pax_local_extensions() {
            continue;
        }
        let raw = entry
            .path()
            .map_err(|e| e.to_string())?
            .to_string_lossy()
            .into_owned();
        let n = archive_name(&raw)?;
        let size = entry.header().size().unwrap_or(0);
        within_limits(&raw, size, remaining)?;
        let buf = read_shared(&mut entry.by_ref().take(remaining), size as usize)
            .map_err(|e| e.to_string())?;
        remaining -= buf.len() as u64;
        files.push((n, strip_bom(buf).into()));
    }
    if files.is_empty() {
        return Err("no files in chart archive".into());
    }
    Ok(files)
}

/// The `name` of the `Chart.yaml` in a chart archive (`.tgz`), as Helm
/// reads it when it loads the archive as a subchart; None when the
/// archive cannot be read or has no name.
pub fn archive_chart_name(data: &[u8]) -> Option<String> {
    // Read up to the Chart.yaml entry only (`helm package` writes it
    // first): the chart is loaded, whole, later.
    let mut ar = tar::Archive::new(flate2::read::GzDecoder::new(data));
    let mut entry = ar.entries().ok()?.find_map(|e| {
        let e = e.ok()?;
        let raw = e.path().ok()?.to_string_lossy().into_owned();
        (archive_name(&raw).ok()? == "Chart.yaml").then_some(e)
    })?;
    let mut yaml = Vec::new();
    entry
        .by_ref()
        .take(MAX_FILE_SIZE)
        .read_to_end(&mut yaml)
        .ok()?;
    let yaml = yaml.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&yaml);
    let doc = crate::yaml::parse_one(&String::from_utf8_lossy(yaml)).ok()?;
    doc.get("name")
        .and_then(crate::yaml::Node::scalar_text)
        .filter(|n| !n.is_empty())
}

/// Helm's limits on a chart archive: an entry `raw` of `size` bytes when
/// `remaining` bytes of the chart's maximum size are left.
fn within_limits(raw: &str, size: u64, remaining: u64) -> Result<(), String> {
    if size > remaining {
        return Err(format!(
            "decompressed chart is larger than the maximum size {MAX_CHART_SIZE}"
        ));
    }
    if size > MAX_FILE_SIZE {
        return Err(format!(
            "decompressed chart file {raw:?} is larger than the maximum file size {MAX_FILE_SIZE}"
        ));
    }
    Ok(())
}

/// The name in the chart of the archive entry `raw`: its top directory
/// (the chart's, whatever its name) taken off, or Helm's error
/// (`LoadArchiveFiles`).
fn archive_name(raw: &str) -> Result<String, String> {
    let delim = if raw.contains('\\') { '\\' } else { '/' };
    let parts: Vec<&str> = raw.split(delim).collect();
    if parts[0] == "Chart.yaml" {
        return Err("chart yaml not in base directory".into());
    }
    let n = parts[1..].join("/");
    if n.starts_with('/') {
        return Err("chart illegally contains absolute paths".into());
    }
    let n = clean_path(&n);
    if n == "." {
        return Err(format!(
            "chart illegally contains content outside the base directory: {raw:?}"
        ));
    }
    if n.starts_with("..") {
        return Err("chart illegally references parent directory".into());
    }
    Ok(n)
}

/// Loads a chart from the entries of an archive (path in the archive,
/// contents), as Helm loads a chart archive: the top directory of every
/// entry taken off, no `.helmignore` applied. For an artifact holding a
/// chart that is not a `.tgz` file (helm-controller loads an
/// ExternalArtifact's so).
pub fn load_archive_entries(
    entries: Vec<(String, Vec<u8>)>,
    origin: &Path,
) -> Result<Chart, ChartError> {
    let mut files = Vec::new();
    let mut remaining = MAX_CHART_SIZE;
    for (raw, data) in entries {
        let n = archive_name(&raw).map_err(|m| ChartError::at(m, origin))?;
        let size = data.len() as u64;
        within_limits(&raw, size, remaining).map_err(|m| ChartError::at(m, origin))?;
        remaining -= size;
        files.push((n, strip_bom(Arc::from(data)).into()));
    }
    if files.is_empty() {
        return Err(ChartError::at("no files in chart archive", origin));
    }
    load_files(files, origin, None)
}

/// Go's `path.Clean` for relative paths.
fn clean_path(p: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for part in p.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if out.last().is_some_and(|l| *l != "..") {
                    out.pop();
                } else {
                    out.push("..");
                }
            }
            x => out.push(x),
        }
    }
    if out.is_empty() {
        ".".into()
    } else {
        out.join("/")
    }
}

fn yaml_error(text: &str, e: &crate::yaml::ParseError) -> String {
    format!(
        "error converting YAML to JSON: {}",
        crate::helm::yaml_json::conversion_error(text, e)
    )
}

fn first_doc(text: &str) -> Result<Node, String> {
    let docs =
        crate::yaml::parse::parse_stream_json_keys(text).map_err(|e| yaml_error(text, &e))?;
    Ok(docs
        .into_iter()
        .next()
        .map(|d| d.node)
        .unwrap_or(Node::Null))
}

fn scalar_text(n: &Node) -> Option<String> {
    match n {
        Node::Null => Some(String::new()),
        Node::Str(s) => Some(s.clone()),
        Node::Bool(_) | Node::Int(_) | Node::UInt(_) | Node::Float(_) => {
            Some(crate::yaml::node_text(n))
        }
        _ => None,
    }
}

fn field_str(m: &crate::yaml::Map, key: &str, what: &str) -> Result<String, String> {
    match m.get(key) {
        None => Ok(String::new()),
        Some(n) => scalar_text(n).ok_or_else(|| {
            format!("error unmarshaling JSON: json: cannot unmarshal object into Go struct field {what}.{key} of type string")
        }),
    }
}

fn field_list(m: &crate::yaml::Map, key: &str) -> Vec<String> {
    match m.get(key) {
        Some(Node::Seq(s)) => s.iter().filter_map(scalar_text).collect(),
        _ => Vec::new(),
    }
}

fn sanitize(s: &str) -> String {
    s.chars()
        .filter_map(|c| {
            if c.is_whitespace() {
                Some(' ')
            } else if c.is_control() {
                None
            } else {
                Some(c)
            }
        })
        .collect()
}

fn parse_dependencies(n: Option<&Node>) -> Result<Option<Vec<Dependency>>, String> {
    let Some(n) = n else { return Ok(None) };
    let seq = match n {
        Node::Null => return Ok(None),
        Node::Seq(s) => s,
        _ => return Err("error unmarshaling JSON: json: cannot unmarshal object into Go struct field Metadata.dependencies of type []*v2.Dependency".into()),
    };
    let mut out = Vec::new();
    for d in seq {
        let Node::Map(m) = d else {
            return Err("validation: dependencies must not contain empty or null nodes".into());
        };
        let w = "Dependency";
        let import_values = match m.get("import-values") {
            Some(Node::Seq(s)) => s.iter().map(from_node).collect(),
            _ => Vec::new(),
        };
        out.push(Dependency {
            name: sanitize(&field_str(m, "name", w)?),
            version: sanitize(&field_str(m, "version", w)?),
            repository: sanitize(&field_str(m, "repository", w)?),
            condition: sanitize(&field_str(m, "condition", w)?),
            tags: field_list(m, "tags").iter().map(|t| sanitize(t)).collect(),
            enabled: m.get("enabled").and_then(|b| b.as_bool()).unwrap_or(false),
            import_values,
            alias: field_str(m, "alias", w)?,
        });
    }
    Ok(Some(out))
}

fn parse_metadata(text: &str, into: &mut Metadata) -> Result<(), String> {
    let node = first_doc(text)?;
    let m = match node {
        Node::Map(m) => m,
        Node::Null => return Ok(()),
        _ => {
            return Err(
                "error unmarshaling JSON: json: cannot unmarshal string into Go value of type v2.Metadata"
                    .into(),
            );
        }
    };
    let w = "Metadata";
    let set = |key: &str, slot: &mut String| -> Result<(), String> {
        if m.contains_key(key) {
            *slot = field_str(&m, key, w)?;
        }
        Ok(())
    };
    set("name", &mut into.name)?;
    set("home", &mut into.home)?;
    set("version", &mut into.version)?;
    set("description", &mut into.description)?;
    set("icon", &mut into.icon)?;
    set("apiVersion", &mut into.api_version)?;
    set("condition", &mut into.condition)?;
    set("tags", &mut into.tags)?;
    set("appVersion", &mut into.app_version)?;
    set("kubeVersion", &mut into.kube_version)?;
    set("type", &mut into.chart_type)?;
    if m.contains_key("sources") {
        into.sources = field_list(&m, "sources");
    }
    if m.contains_key("keywords") {
        into.keywords = field_list(&m, "keywords");
    }
    if let Some(b) = m.get("deprecated") {
        into.deprecated = b.as_bool().unwrap_or(false);
    }
    if let Some(Node::Map(a)) = m.get("annotations") {
        into.annotations = Some(
            a.iter()
                .map(|(k, v)| (k.clone(), scalar_text(v).unwrap_or_default()))
                .collect(),
        );
    }
    if let Some(Node::Seq(ms)) = m.get("maintainers") {
        into.maintainers = Vec::new();
        for x in ms {
            let Node::Map(x) = x else {
                return Err("validation: maintainers must not contain empty or null nodes".into());
            };
            into.maintainers.push(Maintainer {
                name: sanitize(&field_str(x, "name", "Maintainer")?),
                email: sanitize(&field_str(x, "email", "Maintainer")?),
                url: sanitize(&field_str(x, "url", "Maintainer")?),
            });
        }
    }
    if m.contains_key("dependencies") {
        into.dependencies = parse_dependencies(m.get("dependencies"))?;
    }
    Ok(())
}

/// `Metadata.Validate`.
fn validate(md: &mut Metadata) -> Result<(), String> {
    md.name = sanitize(&md.name);
    md.description = sanitize(&md.description);
    md.home = sanitize(&md.home);
    md.icon = sanitize(&md.icon);
    md.condition = sanitize(&md.condition);
    md.tags = sanitize(&md.tags);
    md.app_version = sanitize(&md.app_version);
    md.kube_version = sanitize(&md.kube_version);
    let v = |m: &str| Err(format!("validation: {m}"));
    if md.api_version.is_empty() {
        return v("chart.metadata.apiVersion is required");
    }
    if md.name.is_empty() {
        return v("chart.metadata.name is required");
    }
    if md.name == "." || md.name == ".." {
        return v(&format!("chart.metadata.name {:?} is not allowed", md.name));
    }
    if md.name.contains('/') {
        return v(&format!("chart.metadata.name {:?} is invalid", md.name));
    }
    if md.version.is_empty() {
        return v("chart.metadata.version is required");
    }
    if !is_semver(&md.version) {
        return v(&format!(
            "chart.metadata.version {:?} is invalid",
            md.version
        ));
    }
    if !matches!(md.chart_type.as_str(), "" | "application" | "library") {
        return v("chart.metadata.type must be application or library");
    }
    let mut seen = std::collections::HashSet::new();
    for d in md.dependencies.iter().flatten() {
        if !d.alias.is_empty()
            && !d
                .alias
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return v(&format!(
                "dependency {:?} has disallowed characters in the alias",
                d.name
            ));
        }
        let key = if d.alias.is_empty() {
            &d.name
        } else {
            &d.alias
        };
        if !seen.insert(key.clone()) {
            return v(&format!(
                "more than one dependency with name or alias {key:?}"
            ));
        }
    }
    Ok(())
}

/// A loose check of Masterminds' `semver.NewVersion` (what `Chart.yaml`
/// versions must parse as).
pub(crate) fn is_semver(v: &str) -> bool {
    let v = v.strip_prefix('v').unwrap_or(v);
    let (main, _) = v.split_once('+').unwrap_or((v, ""));
    let (main, pre) = main.split_once('-').unwrap_or((main, ""));
    let parts: Vec<&str> = main.split('.').collect();
    if parts.is_empty() || parts.len() > 3 {
        return false;
    }
    if !parts
        .iter()
        .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
    {
        return false;
    }
    pre.chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
}

/// Values text (several documents merged), as Helm's `LoadValues`: it
/// reads the documents one after the other, each converted to JSON and
/// decoded before the next is read, so a document that fails to convert
/// fails the whole before a later one's YAML error.
pub fn load_values(text: &str) -> Result<Value, String> {
    let docs = crate::yaml::parse::parse_stream_json_keys(text).map_err(|e| {
        let start = crate::yaml::goerr::document_start(text, e.line.saturating_sub(1));
        let before: String = text.split_inclusive('\n').take(start).collect();
        if start > 0
            && let Ok(docs) = crate::yaml::parse::parse_stream_json_keys(&before)
            && let Err(m) = merge_documents(docs)
        {
            return m;
        }
        format!(
            "cannot unmarshal yaml document: error converting YAML to JSON: {}",
            crate::helm::yaml_json::conversion_error_in_documents(text, &e)
        )
    })?;
    merge_documents(docs)
}

/// The values documents of [`load_values`] merged, in order; the first
/// that cannot be converted to JSON or is not a map fails.
fn merge_documents(docs: Vec<crate::yaml::Document>) -> Result<Value, String> {
    let mut values = Value::map(BTreeMap::new());
    for d in docs {
        let v = from_node(&d.node);
        if let Some(e) = super::values::unencodable(&v) {
            return Err(format!(
                "cannot unmarshal yaml document: error converting YAML to JSON: {e}"
            ));
        }
        match v {
            Value::Map(m) => values = merge_maps(values, Value::Map(m)),
            Value::Nil => {}
            other => {
                return Err(format!(
                    "cannot unmarshal yaml document: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                    match other {
                        Value::List(_) => "array",
                        Value::Str(_) => "string",
                        Value::Bool(_) => "bool",
                        _ => "number",
                    }
                ));
            }
        }
    }
    Ok(values)
}

/// Where [`load_files`] queues a chart's templates to be parsed ahead.
#[derive(Clone, Copy)]
struct Queue<'a> {
    ahead: &'a Arc<super::ahead::Ahead>,
    /// For a subchart: its parent's template name prefix and dependencies.
    parent: Option<(&'a str, Option<&'a [super::Dependency]>)>,
    /// The chart's files come from a directory walk, which queued the
    /// templates of the subchart directories (see [`Scope`]): a subchart
    /// with `walk` set has its templates queued already.
    walk: bool,
}

impl Queue<'_> {
    /// Whether the chart's templates were queued by the walk that found
    /// them: a subchart directory's.
    fn walked(&self) -> bool {
        self.walk && self.parent.is_some()
    }
}

impl Queue<'_> {
    /// The prefix of the full names of the templates of chart `md`, when
    /// they are rendered whatever the values: the top chart's, and a
    /// subchart's that no dependency of its parent names with a condition,
    /// tags or an alias (Helm keeps the others, under their own name).
    fn prefix(&self, md: &Metadata) -> Option<String> {
        match self.parent {
            None => Some(md.name.clone()),
            Some((parent, deps)) => subchart_prefix(parent, deps, md),
        }
    }
}

/// [`Queue::prefix`] of the subchart `md` of the chart whose prefix is
/// `parent` and whose dependencies are `deps`.
fn subchart_prefix(
    parent: &str,
    deps: Option<&[super::Dependency]>,
    md: &Metadata,
) -> Option<String> {
    let varies = deps.unwrap_or(&[]).iter().any(|d| {
        d.name == md.name && !(d.condition.is_empty() && d.tags.is_empty() && d.alias.is_empty())
    });
    (!varies).then(|| format!("{parent}/charts/{}", md.name))
}

/// Builds a chart from its files (names relative to the chart root);
/// queues its templates to be parsed ahead at `at`.
fn load_files(
    files: Vec<NamedBytes>,
    origin: &Path,
    at: Option<Queue>,
) -> Result<Chart, ChartError> {
    let err = |m: String| ChartError::at(m, origin);
    let mut md: Option<Metadata> = None;
    // The files read here were read when the chart was loaded (see
    // `read_at_load`); an error names the file all the same.
    let bytes = |data: &FileData| data.get().cloned().map_err(|m| ChartError::at(m, origin));
    for (name, data) in &files {
        if name == "Chart.yaml" {
            let mut m = Metadata::default();
            parse_metadata(&super::utf8_text(&bytes(data)?), &mut m).map_err(|e| {
                ChartError::at(
                    format!("cannot load Chart.yaml: {e}"),
                    origin.join("Chart.yaml"),
                )
            })?;
            if m.api_version.is_empty() {
                m.api_version = "v1".into();
            }
            md = Some(m);
        }
    }
    let prefix = at.zip(md.as_ref()).and_then(|(q, m)| q.prefix(m));
    if let (Some(q), Some(prefix), Some(m)) = (at.filter(|q| !q.walked()), &prefix, &md) {
        let library = m.is_library();
        q.ahead.push(
            files
                .iter()
                .filter(|(name, _)| {
                    name.starts_with("templates/") && super::render::in_template_set(library, name)
                })
                .map(|(name, data)| {
                    let file = TemplateFile {
                        name: name.clone(),
                        data: data.clone(),
                    };
                    (format!("{prefix}/{name}"), file)
                })
                .collect(),
        );
    }
    let mut templates = Vec::new();
    let mut cfiles = Vec::new();
    let mut values = Value::map(BTreeMap::new());
    let mut schema = None;
    let mut subcharts: BTreeMap<String, Vec<NamedBytes>> = BTreeMap::new();
    for (name, data) in files {
        match name.as_str() {
            "Chart.yaml" | "Chart.lock" => {}
            "values.yaml" => {
                values = load_values(&super::utf8_text(&bytes(&data)?)).map_err(|e| {
                    ChartError::at(
                        format!("cannot load values.yaml: {e}"),
                        origin.join("values.yaml"),
                    )
                })?;
            }
            "values.schema.json" => schema = Some(bytes(&data)?),
            "requirements.yaml" => {
                let m = md.get_or_insert_with(Metadata::default);
                parse_metadata(&super::utf8_text(&bytes(&data)?), m)
                    .map_err(|e| err(format!("cannot load requirements.yaml: {e}")))?;
                if m.api_version == "v1" {
                    cfiles.push(ChartFile { name, data });
                }
            }
            "requirements.lock" => {
                if md.as_ref().is_some_and(|m| m.api_version == "v1") {
                    cfiles.push(ChartFile { name, data });
                }
            }
            n if n.starts_with("templates/") => templates.push(TemplateFile { data, name }),
            n if n.starts_with("charts/") => {
                if n.ends_with(".prov") {
                    cfiles.push(ChartFile { name, data });
                    continue;
                }
                let rest = &n["charts/".len()..];
                let cname = rest.split('/').next().unwrap_or(rest).to_string();
                subcharts
                    .entry(cname)
                    .or_default()
                    .push((rest.to_string(), data));
            }
            _ => cfiles.push(ChartFile { name, data }),
        }
    }
    let Some(mut metadata) = md else {
        return Err(err("Chart.yaml file is missing".into()));
    };
    validate(&mut metadata).map_err(err)?;
    let mut dependencies = Vec::new();
    let sub_at = at.zip(prefix.as_deref()).map(|(q, p)| Queue {
        ahead: q.ahead,
        parent: Some((p, metadata.dependencies.as_deref())),
        walk: q.walk,
    });
    for (n, files) in subcharts {
        if n.starts_with('_') || n.starts_with('.') {
            continue;
        }
        let sub_origin = origin.join("charts").join(&n);
        let sc = if n.ends_with(".tgz") {
            let (fname, data) = &files[0];
            if *fname != n {
                return Err(err(format!(
                    "error unpacking subchart tar in {}: expected {n}, got {fname}",
                    metadata.name
                )));
            }
            bytes(data)
                .map_err(|e| e.message)
                .and_then(|data| archive_files(&data))
                .and_then(|f| {
                    // (An archive was not walked.)
                    let at = sub_at.map(|q| Queue { walk: false, ..q });
                    load_files(f, &sub_origin, at).map_err(|e| e.message)
                })
        } else {
            let inner: Vec<NamedBytes> = files
                .into_iter()
                .filter_map(|(f, d)| f.split_once('/').map(|(_, r)| (r.to_string(), d)))
                .collect();
            load_files(inner, &sub_origin, sub_at).map_err(|e| e.message)
        };
        match sc {
            Ok(c) => dependencies.push(Arc::new(c)),
            Err(m) => {
                return Err(ChartError::at(
                    format!("error unpacking subchart {n} in {}: {m}", metadata.name),
                    sub_origin,
                ));
            }
        }
    }
    Ok(Chart {
        metadata,
        templates,
        files: cfiles,
        values,
        schema,
        dependencies,
        path: origin.to_path_buf(),
        parsed: Default::default(),
        ahead: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_reads_whatever_the_size_said() {
        let text = b"abcdef";
        for expected in [0, 3, 6, 9] {
            let got = read_shared(&mut &text[..], expected).unwrap();
            assert_eq!(&got[..], text, "size given {expected}");
        }
        assert_eq!(&strip_bom(Arc::from(&b"\xef\xbb\xbfa: 1"[..]))[..], b"a: 1");
        assert_eq!(&strip_bom(Arc::from(&b"a: 1"[..]))[..], b"a: 1");
    }

    /// Below the walk's limit a file is read whole, in reads of any
    /// size; at or above it, `None` (the file is read later, whole).
    #[test]
    fn small_reads_are_whole_below_the_limit() {
        /// Gives at most `step` bytes a read.
        struct Trickle<'a>(&'a [u8], usize);
        impl Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                let n = self.0.len().min(self.1).min(buf.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let max = WALK_READ_MAX as usize;
        for len in [0, 1, 4095, 4096, max - 1, max, max + 1, 3 * max] {
            let data: Vec<u8> = (0..len).map(|i| (i % 253) as u8).collect();
            for step in [1000, max] {
                let got = read_small(&mut Trickle(&data, step)).unwrap();
                if len < max {
                    assert_eq!(got.as_deref(), Some(&data[..]), "{len} bytes by {step}");
                } else {
                    assert!(got.is_none(), "{len} bytes by {step}");
                }
            }
        }
    }

    #[test]
    fn files_only_dot_files_reaches_are_read_on_first_use() {
        for (name, now) in [
            ("Chart.yaml", true),
            ("values.yaml", true),
            ("values.schema.json", true),
            ("templates/a.yaml", false),
            ("charts/sub.tgz", true),
            ("charts/sub/Chart.yaml", true),
            ("charts/sub/templates/x.tpl", false),
            ("charts/sub/charts/inner/values.yaml", true),
            ("README.md", false),
            ("crds/a.yaml", false),
            ("files/values.yaml", false),
            ("charts/sub/crds/a.yaml", false),
            ("charts/sub/files/x/templates/y", false),
        ] {
            assert_eq!(read_at_load(name), now, "{name}");
        }

        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |rel: &str, text: &str| write_file(root, rel, text);
        write("Chart.yaml", "apiVersion: v2\nname: c\nversion: 1.0.0\n");
        write(
            "templates/cm.yaml",
            "data:\n  a: {{ .Files.Get \"files/a.txt\" | quote }}\n",
        );
        write("files/a.txt", "\u{feff}one");
        write("crds/c.yaml", "kind: CustomResourceDefinition\n");
        let chart = load(root).unwrap();
        let deferred = |n: &str| {
            let f = chart.files.iter().find(|f| f.name == n).unwrap();
            matches!(f.data, FileData::Deferred(_))
        };
        assert!(deferred("files/a.txt") && deferred("crds/c.yaml"));
        let opts = super::super::RenderOptions {
            include_crds: true,
            ..Default::default()
        };
        let out = super::super::render(&chart, &opts).unwrap();
        let bodies: Vec<&str> = out.manifests.iter().map(|m| m.body.as_str()).collect();
        assert_eq!(
            bodies,
            ["kind: CustomResourceDefinition\n", "data:\n  a: \"one\""]
        );

        // A file removed after loading: the render that needs it fails,
        // naming it.
        let chart = load(root).unwrap();
        std::fs::remove_file(root.join("files/a.txt")).unwrap();
        let e = super::super::render(&chart, &Default::default()).unwrap_err();
        assert!(
            e.message.contains("error reading files/a.txt"),
            "{}",
            e.message
        );
        // An unreadable file fails the load, as Helm's does.
        write("files/a.txt", "one");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let p = root.join("files/a.txt");
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o000)).unwrap();
            if std::fs::File::open(&p).is_err() {
                let e = load(root).unwrap_err();
                assert!(
                    e.message.starts_with("error reading files/a.txt"),
                    "{}",
                    e.message
                );
            }
        }
    }

    /// Writes `text` at `rel` under `root`, making its directories.
    fn write_file(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn templates_are_read_when_parsed_and_a_disabled_subcharts_never() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |rel: &str, text: &str| write_file(root, rel, text);
        write(
            "Chart.yaml",
            "apiVersion: v2\nname: c\nversion: 1.0.0\ndependencies:\n- name: sub\n  version: 1.0.0\n  condition: sub.enabled\n",
        );
        write("values.yaml", "sub:\n  enabled: false\n");
        write("templates/cm.yaml", "\u{feff}kind: ConfigMap\n");
        write(
            "charts/sub/Chart.yaml",
            "apiVersion: v2\nname: sub\nversion: 1.0.0\n",
        );
        write("charts/sub/templates/s.yaml", "kind: Secret\n");
        let chart = load(root).unwrap();
        assert!(matches!(chart.templates[0].data, FileData::Deferred(_)));
        assert_eq!(
            chart.templates[0].data.size(),
            "\u{feff}kind: ConfigMap\n".len()
        );
        // The disabled subchart's template is gone after loading: the
        // render never reads it.
        std::fs::remove_file(root.join("charts/sub/templates/s.yaml")).unwrap();
        let out = super::super::render(&chart, &Default::default()).unwrap();
        let bodies: Vec<&str> = out.manifests.iter().map(|m| m.body.as_str()).collect();
        assert_eq!(bodies, ["kind: ConfigMap"]);
        // Enabled, it is needed: it was kept open at load (a template),
        // and is read as it was then, as Helm reads every file at load.
        let opts = super::super::RenderOptions {
            values: crate::yaml::parse_one("sub:\n  enabled: true\n").unwrap(),
            ..Default::default()
        };
        let out = super::super::render(&chart, &opts).unwrap();
        let bodies: Vec<&str> = out.manifests.iter().map(|m| m.body.as_str()).collect();
        assert_eq!(bodies, ["kind: Secret", "kind: ConfigMap"]);
        // A template not kept open (more than MAX_KEPT_OPEN of them are
        // open) is opened again when read: removed, the render fails,
        // naming it.
        write("charts/sub/templates/s.yaml", "kind: Secret\n");
        let data = FileData::deferred(
            "charts/sub/templates/s.yaml".into(),
            root.join("charts/sub/templates/s.yaml"),
            13,
            None,
        );
        std::fs::remove_file(root.join("charts/sub/templates/s.yaml")).unwrap();
        let e = data.get().unwrap_err();
        assert!(
            e.contains("error reading charts/sub/templates/s.yaml"),
            "{e}"
        );
    }

    /// A subchart's templates, queued to be parsed ahead as the walk finds
    /// them: a small one read in the walk, a large one (begun there, then
    /// left) read later from its start; both render whole, as without
    /// parsing ahead.
    #[test]
    fn subchart_templates_of_every_size_render_whole_when_parsed_ahead() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |rel: &str, text: &str| write_file(root, rel, text);
        write(
            "Chart.yaml",
            "apiVersion: v2\nname: c\nversion: 1.0.0\ndependencies:\n- name: sub\n  version: 1.0.0\n",
        );
        write(
            "charts/sub/Chart.yaml",
            "apiVersion: v2\nname: sub\nversion: 1.0.0\n",
        );
        let line = "# the same line, again and again, to make a large file\n";
        let large = format!(
            "kind: ConfigMap\nmetadata:\n  name: {{{{ .Chart.Name }}}}\n{}",
            line.repeat(3 * WALK_READ_MAX as usize / line.len())
        );
        write("charts/sub/templates/large.yaml", &large);
        write("charts/sub/templates/small.yaml", "kind: Secret\n");
        let render = |chart: &super::super::Chart| {
            let out = super::super::render(chart, &Default::default()).unwrap();
            out.manifests
                .iter()
                .map(|m| m.body.clone())
                .collect::<Vec<_>>()
        };
        let ahead = render(&load_parsing_ahead(root).unwrap());
        assert_eq!(ahead, render(&load(root).unwrap()));
        assert_eq!(ahead.len(), 2, "{ahead:?}");
        // (Helm's order: a Secret before a ConfigMap.)
        assert_eq!(ahead[0], "kind: Secret");
        assert_eq!(
            ahead[1],
            large.replace("{{ .Chart.Name }}", "sub").trim_end()
        );
    }

    #[test]
    fn more_templates_than_are_kept_open_all_render() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write_file(
            root,
            "Chart.yaml",
            "apiVersion: v2\nname: c\nversion: 1.0.0\n",
        );
        let n = MAX_KEPT_OPEN + 44;
        for i in 0..n {
            write_file(
                root,
                &format!("templates/t{i:03}.yaml"),
                &format!("kind: ConfigMap\nname: t{i}\n"),
            );
        }
        let chart = load(root).unwrap();
        let out = super::super::render(&chart, &Default::default()).unwrap();
        assert_eq!(out.manifests.len(), n);
        for (i, m) in out.manifests.iter().enumerate() {
            assert_eq!(m.body, format!("kind: ConfigMap\nname: t{i}"));
        }
    }

    #[test]
    fn helmignore_rules() {
        let rules = parse_rules("# c\n*.bak\n/top.txt\nsub/x.txt\nsecret/\n").unwrap();
        assert!(ignored(&rules, "a/b.bak", false));
        assert!(ignored(&rules, "top.txt", false));
        assert!(!ignored(&rules, "a/top.txt", false));
        assert!(ignored(&rules, "sub/x.txt", false));
        assert!(ignored(&rules, "secret", true));
        assert!(!ignored(&rules, "secret", false));
        assert!(parse_rules("a/**/b").is_err());
        // The fast paths (a literal, `*` and a literal) agree with Go's
        // filepath.Match.
        let rules = parse_rules("*.swp\n*~\nREADME.md\n/docs/*.txt\n").unwrap();
        assert!(ignored(&rules, "a/x.swp", false));
        assert!(ignored(&rules, ".swp", false));
        assert!(!ignored(&rules, "x.swpx", false));
        assert!(ignored(&rules, "templates/a.yaml~", false));
        assert!(ignored(&rules, "sub/README.md", false));
        assert!(!ignored(&rules, "README.mdx", false));
        assert!(ignored(&rules, "docs/a.txt", false));
        assert!(!ignored(&rules, "docs/a/b.txt", false));
        for (pattern, name) in [
            ("*.swp", "a.swp"),
            ("*.swp", "a/b.swp"),
            ("x", "x"),
            ("*", ""),
        ] {
            let r = parse_rule(pattern).unwrap().unwrap();
            let fast = if r.literal {
                r.pattern == name
            } else {
                let suffix = r.star_suffix.as_deref().unwrap();
                name.ends_with(suffix) && !name[..name.len() - suffix.len()].contains('/')
            };
            assert_eq!(fast, go_match(pattern, name).unwrap(), "{pattern} {name}");
        }
    }

    #[test]
    fn semver_check() {
        assert!(is_semver("1.2.3"));
        assert!(is_semver("v1.2"));
        assert!(is_semver("1.0.0-rc.1+build"));
        assert!(!is_semver("one"));
        assert!(!is_semver("1.2.3.4"));
    }

    #[test]
    fn values_documents_merge() {
        let v = load_values("a: 1\nb: {c: 2}\n---\nb: {d: 3}\n").unwrap();
        assert_eq!(
            crate::template::value::sprint_value(&v),
            "map[a:1 b:map[c:2 d:3]]"
        );
    }

    #[test]
    fn clean_paths() {
        assert_eq!(clean_path("a/./b//c"), "a/b/c");
        assert_eq!(clean_path("../x"), "../x");
        assert_eq!(clean_path(""), ".");
    }
}
