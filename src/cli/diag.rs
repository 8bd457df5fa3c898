//! One printer for every warning and error of every command: a compiler's
//! layout (`error: message`, then the file, line and the source line with
//! carets when they are known, then `note:`/`help:` lines), coloured on a
//! terminal, plain under `NO_COLOR` or when standard error is not a
//! terminal. `--quiet` keeps errors only; `--verbose` adds `info:` lines.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};

/// How much goes to standard error: 0 quiet, 1 normal, 2 verbose.
static VERBOSITY: AtomicU8 = AtomicU8::new(1);

/// Sets the verbosity from `--quiet`/`--verbose`.
pub fn set_verbosity(quiet: bool, verbose: bool) {
    let v = if quiet {
        0
    } else if verbose {
        2
    } else {
        1
    };
    VERBOSITY.store(v, Ordering::Relaxed);
}

pub fn quiet() -> bool {
    VERBOSITY.load(Ordering::Relaxed) == 0
}

pub fn verbose() -> bool {
    VERBOSITY.load(Ordering::Relaxed) >= 2
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
    /// Worth knowing (hidden by --quiet).
    Note,
    /// With --verbose only.
    Info,
}

/// One diagnostic: a message, where (file and 1-based line, when known),
/// and notes and hints below it.
#[derive(Debug, Clone)]
pub struct Diag(Box<DiagData>);

/// What a [`Diag`] holds (boxed: diagnostics travel in `Result`s).
#[derive(Debug, Clone)]
pub struct DiagData {
    pub severity: Severity,
    pub message: String,
    pub file: Option<PathBuf>,
    pub line: usize,
    /// Text under the carets.
    pub label: String,
    pub notes: Vec<String>,
    pub help: Vec<String>,
}

impl std::ops::Deref for Diag {
    type Target = DiagData;
    fn deref(&self) -> &DiagData {
        &self.0
    }
}

impl std::ops::DerefMut for Diag {
    fn deref_mut(&mut self) -> &mut DiagData {
        &mut self.0
    }
}

impl Diag {
    pub fn new(severity: Severity, message: impl Into<String>) -> Diag {
        Diag(Box::new(DiagData {
            severity,
            message: message.into(),
            file: None,
            line: 0,
            label: String::new(),
            notes: Vec::new(),
            help: Vec::new(),
        }))
    }
    pub fn error(message: impl Into<String>) -> Diag {
        Diag::new(Severity::Error, message)
    }
    pub fn warning(message: impl Into<String>) -> Diag {
        Diag::new(Severity::Warning, message)
    }
    pub fn info(message: impl Into<String>) -> Diag {
        Diag::new(Severity::Info, message)
    }
    /// At `line` (1-based; 0 for the file as a whole) of `file`.
    pub fn at(mut self, file: impl Into<PathBuf>, line: usize) -> Diag {
        self.file = Some(file.into());
        self.line = line;
        self
    }
    pub fn label(mut self, label: impl Into<String>) -> Diag {
        self.label = label.into();
        self
    }
    pub fn note(mut self, note: impl Into<String>) -> Diag {
        self.notes.push(note.into());
        self
    }
    pub fn help(mut self, help: impl Into<String>) -> Diag {
        self.help.push(help.into());
        self
    }
    /// Prints it to standard error (unless `--quiet` hides it).
    pub fn emit(&self) {
        let shown = match self.severity {
            Severity::Error => true,
            Severity::Warning | Severity::Note => !quiet(),
            Severity::Info => verbose(),
        };
        if !shown {
            return;
        }
        let text = self.render(use_color());
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(text.as_bytes());
        let _ = err.write_all(b"\n");
    }
    /// Prints it and returns exit status 2 (flate could not run).
    pub fn fail(&self) -> i32 {
        self.emit();
        2
    }

    /// The text `emit` prints, without the final newline.
    pub fn render(&self, color: bool) -> String {
        let level = match self.severity {
            Severity::Error => Level::ERROR,
            Severity::Warning => Level::WARNING,
            Severity::Note => Level::NOTE,
            Severity::Info => Level::INFO,
        };
        let source = self
            .file
            .as_deref()
            .filter(|_| self.line > 0)
            .and_then(|f| std::fs::read_to_string(f).ok());
        let path = self.file.as_deref().map(shown);
        let title = level.primary_title(self.message.as_str());
        let group = match (&source, &path) {
            (Some(src), Some(p)) if line_span(src, self.line).is_some() => {
                let (start, end) = line_span(src, self.line).unwrap_or((0, 0));
                let snippet = Snippet::source(src.as_str()).path(p.as_str()).annotation(
                    AnnotationKind::Primary
                        .span(start..end)
                        .label(Some(self.label.as_str()).filter(|l| !l.is_empty())),
                );
                title.element(snippet)
            }
            (_, Some(p)) => {
                // A file without a readable line: name it, with the line when known.
                let origin = annotate_snippets::Origin::path(p.as_str());
                let origin = if self.line > 0 {
                    origin.line(self.line)
                } else {
                    origin
                };
                title.element(origin)
            }
            _ => Group::with_title(title),
        };
        let mut group = group;
        for n in &self.notes {
            group = group.element(Level::NOTE.message(n.as_str()));
        }
        for h in &self.help {
            group = group.element(Level::HELP.message(h.as_str()));
        }
        let report = [group];
        let renderer = if color {
            Renderer::styled()
        } else {
            Renderer::plain()
        };
        renderer.render(&report)
    }
}

/// Byte range of the content of 1-based `line` (leading blanks skipped).
fn line_span(text: &str, line: usize) -> Option<(usize, usize)> {
    let mut offset = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            let body = l.trim_end_matches(['\n', '\r']);
            let lead = body.len() - body.trim_start().len();
            if body.trim().is_empty() {
                return None;
            }
            return Some((offset + lead, offset + body.len()));
        }
        offset += l.len();
    }
    None
}

/// A path relative to the working directory when it is below it.
pub fn shown(p: &Path) -> String {
    let cwd = flate::fs::absolute(Path::new("."));
    p.strip_prefix(&cwd).unwrap_or(p).display().to_string()
}

/// Colour on standard error: a terminal and no `NO_COLOR`.
pub fn use_color() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// `error: message` (and exit status 2).
pub fn error(message: impl Into<String>) -> i32 {
    Diag::error(message).fail()
}

/// `warning: message`.
pub fn warning(message: impl Into<String>) {
    Diag::warning(message).emit()
}

/// `note: message` (not with --quiet).
pub fn note(message: impl Into<String>) {
    Diag::new(Severity::Note, message).emit()
}

/// `info: message`, with `--verbose` only.
pub fn info(message: impl Into<String>) {
    if verbose() {
        Diag::info(message).emit()
    }
}

/// A library error (kustomize, Flux render) as a diagnostic at its file
/// and line; paths under `root` are shown relative to it in the message.
pub fn from_error(e: &flate::kustomize::Error, root: Option<&Path>) -> Diag {
    let msg = match root {
        Some(r) => e.message.replace(&format!("{}/", r.display()), ""),
        None => e.message.clone(),
    };
    let mut d = Diag::error(msg);
    if let Some(f) = &e.file {
        d = d.at(f.clone(), e.line.unwrap_or(0));
    }
    d
}

/// "1 object", "2 objects".
pub fn plural(n: usize, one: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else if one.ends_with('s') || one.ends_with("ch") {
        format!("{n} {one}es")
    } else if let Some(stem) = one
        .strip_suffix('y')
        .filter(|s| !s.ends_with(['a', 'e', 'o', 'u']))
    {
        format!("{n} {stem}ies")
    } else {
        format!("{n} {one}s")
    }
}

/// The names closest to `wanted` (edit distance), at most three, best first.
pub fn closest<'a>(wanted: &str, names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut scored: Vec<(usize, &str)> = names
        .into_iter()
        .map(|n| {
            let d = distance(&wanted.to_lowercase(), &n.to_lowercase());
            let d = if n.contains(wanted) || wanted.contains(n) {
                d.min(1)
            } else {
                d
            };
            (d, n)
        })
        .filter(|(d, n)| *d <= (n.chars().count().max(wanted.chars().count()) / 2).max(2))
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored
        .into_iter()
        .take(3)
        .map(|(_, n)| n.to_string())
        .collect()
}

/// Levenshtein distance on characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plurals() {
        assert_eq!(plural(1, "object"), "1 object");
        assert_eq!(plural(0, "object"), "0 objects");
        assert_eq!(plural(2, "pin failure"), "2 pin failures");
        assert_eq!(plural(3, "match"), "3 matches");
        assert_eq!(plural(2, "dependency"), "2 dependencies");
        assert_eq!(plural(2, "key"), "2 keys");
    }

    #[test]
    fn closest_names() {
        let names = [
            "podinfo",
            "cert-manager",
            "flux-system",
            "infra-controllers",
        ];
        assert_eq!(closest("podinf", names), vec!["podinfo"]);
        assert_eq!(closest("cert", names), vec!["cert-manager"]);
        assert!(closest("zzzzzzzz", names).is_empty());
    }

    #[test]
    fn plain_render_names_file_line_and_source() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.yaml");
        std::fs::write(&f, "a: 1\nbad: [\nc: 3\n").unwrap();
        let text = Diag::error("unexpected thing")
            .at(&f, 2)
            .label("here")
            .help("fix it")
            .render(false);
        assert!(text.starts_with("error: unexpected thing"), "{text}");
        assert!(text.contains("a.yaml:2:1"), "{text}");
        assert!(text.contains("bad: ["), "{text}");
        assert!(text.contains("^^^^^^ here"), "{text}");
        assert!(text.contains("help: fix it"), "{text}");
        assert!(!text.contains('\u{1b}'), "no colour: {text}");
        let styled = Diag::warning("w").render(true);
        assert!(styled.contains('\u{1b}'), "colour: {styled}");
    }
}
