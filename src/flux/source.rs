//! The source artifact: what source-controller packages from a source, so
//! that neither the generator nor a build sees what Flux would not.
//!
//! Facts (fluxcd/pkg `sourceignore` and `artifact/storage/archive.go`,
//! read at e2cfd1a; fluxcd/source-controller's reconcilers):
//!
//! * patterns are gitignore lines as go-git parses them
//!   (`sourceignore/gitignore/pattern.go`): `!` includes, a trailing `/`
//!   is for directories only, a pattern with a `/` is matched component
//!   by component from the pattern's directory (`**` crosses any number
//!   of directories) and may match a prefix of the path (so `/*` matches
//!   every path), one without is matched against every component; each
//!   component with Go's `filepath.Match`. The *last* pattern that
//!   matches decides. Lines starting with `#` and blank lines are skipped.
//! * GitRepository: every `.sourceignore` file of the tree (its patterns
//!   relative to its directory), then `spec.ignore`. When there is no
//!   pattern at all, the default exclusions apply (VCS files, CI
//!   configuration, images and archives, `**/.sops.yaml`…); when there is
//!   any, only the VCS ones stay under them (`SourceIgnoreFilter`).
//!   OCIRepository: `spec.ignore` the same way. Bucket: the root
//!   `.sourceignore` and `spec.ignore`, no default. ExternalArtifact: the
//!   artifact as produced.
//! * the archive walk does not prune excluded directories: each file is
//!   matched on its own path, so a file re-included under an excluded
//!   directory is in the artifact.

use std::io;
use std::path::{Path, PathBuf};

use crate::fs::FileSystem;

pub const IGNORE_FILE: &str = ".sourceignore";
const EXCLUDE_VCS: &[&str] = &[".git/", ".gitignore", ".gitmodules", ".gitattributes"];
const EXCLUDE_DEFAULT: &[&str] = &[
    "*.jpg",
    "*.jpeg",
    "*.gif",
    "*.png",
    "*.wmv",
    "*.flv",
    "*.tar.gz",
    "*.zip",
    ".github/",
    ".circleci/",
    ".travis.yml",
    ".gitlab-ci.yml",
    "appveyor.yml",
    ".drone.yml",
    "cloudbuild.yaml",
    "codeship-services.yml",
    "codeship-steps.yml",
    "**/.goreleaser.yml",
    "**/.sops.yaml",
    "**/.flux.yaml",
];

/// Go's `filepath.Match` of one path component (no separators in `name`).
/// None for a malformed pattern (go-git then reports no match).
fn go_match(pattern: &[char], name: &[char]) -> Option<bool> {
    let Some((&c, rest)) = pattern.split_first() else {
        return Some(name.is_empty());
    };
    match c {
        '*' => {
            // Collapse runs of stars; try every split.
            let rest: &[char] = {
                let mut r = rest;
                while r.first() == Some(&'*') {
                    r = &r[1..];
                }
                r
            };
            for i in 0..=name.len() {
                match go_match(rest, &name[i..]) {
                    Some(true) => return Some(true),
                    None => return None,
                    Some(false) => {}
                }
                if name.get(i) == Some(&'/') {
                    break;
                }
            }
            Some(false)
        }
        '?' => match name.split_first() {
            Some((&n, nrest)) if n != '/' => go_match(rest, nrest),
            _ => {
                // Still validate the rest of the pattern.
                go_match(rest, &[]).map(|_| false)
            }
        },
        '[' => {
            let mut i = 0;
            let negated = rest.first() == Some(&'^');
            if negated {
                i = 1;
            }
            let mut matched = false;
            let n = name.first().copied();
            let mut first = true;
            loop {
                let &lo = rest.get(i)?;
                if lo == ']' && !first {
                    i += 1;
                    break;
                }
                first = false;
                let lo = if lo == '\\' {
                    i += 1;
                    *rest.get(i)?
                } else {
                    lo
                };
                i += 1;
                let mut hi = lo;
                if rest.get(i) == Some(&'-') && rest.get(i + 1).is_some_and(|c| *c != ']') {
                    i += 1;
                    hi = if rest[i] == '\\' {
                        i += 1;
                        *rest.get(i)?
                    } else {
                        rest[i]
                    };
                    i += 1;
                    if hi < lo {
                        return None;
                    }
                }
                if let Some(n) = n
                    && lo <= n
                    && n <= hi
                {
                    matched = true;
                }
            }
            match n {
                Some(n) if n != '/' && matched != negated => go_match(&rest[i..], &name[1..]),
                _ => go_match(&rest[i..], &[]).map(|_| false),
            }
        }
        '\\' => {
            let (&lit, rest) = rest.split_first()?;
            match name.split_first() {
                Some((&n, nrest)) if n == lit => go_match(rest, nrest),
                _ => go_match(rest, &[]).map(|_| false),
            }
        }
        _ => match name.split_first() {
            Some((&n, nrest)) if n == c => go_match(rest, nrest),
            _ => go_match(rest, &[]).map(|_| false),
        },
    }
}

fn component_match(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    go_match(&p, &n) == Some(true)
}

/// One component of a pattern, compiled: most are a literal name or
/// `*suffix`, matched without the general matcher.
#[derive(Debug, Clone)]
struct Part {
    text: String,
    how: How,
}

#[derive(Debug, Clone)]
enum How {
    Literal,
    /// `*` followed by literal text (what follows the star).
    Suffix(usize),
    Glob,
}

impl Part {
    fn new(p: &str) -> Part {
        let special = |s: &str| s.contains(['*', '?', '[', '\\']);
        let how = if !special(p) {
            How::Literal
        } else if let Some(rest) = p.strip_prefix('*')
            && !special(rest)
        {
            How::Suffix(1)
        } else {
            How::Glob
        };
        Part {
            text: p.to_string(),
            how,
        }
    }
    fn text(&self) -> &str {
        &self.text
    }
    fn matches(&self, name: &str) -> bool {
        match self.how {
            How::Literal => self.text == name,
            How::Suffix(at) => name.ends_with(&self.text[at..]),
            How::Glob => component_match(&self.text, name),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    NoMatch,
    Exclude,
    Include,
}

/// One ignore pattern, scoped to the directory (`domain`) it was read in.
#[derive(Debug, Clone)]
pub struct Pattern {
    domain: Vec<String>,
    parts: Vec<Part>,
    inclusion: bool,
    dir_only: bool,
    is_glob: bool,
}

impl Pattern {
    pub fn parse(line: &str, domain: &[String]) -> Pattern {
        let mut p = line;
        let inclusion = p.starts_with('!');
        if inclusion {
            p = &p[1..];
        }
        if !p.ends_with("\\ ") {
            p = p.trim_end_matches(' ');
        }
        let dir_only = p.ends_with('/');
        if dir_only {
            p = &p[..p.len() - 1];
        }
        Pattern {
            domain: domain.to_vec(),
            parts: p.split('/').map(Part::new).collect(),
            inclusion,
            dir_only,
            is_glob: p.contains('/'),
        }
    }

    fn matches(&self, path: &[&str], is_dir: bool) -> Outcome {
        if path.len() <= self.domain.len() || path.iter().zip(&self.domain).any(|(a, b)| a != b) {
            return Outcome::NoMatch;
        }
        let path = &path[self.domain.len()..];
        let hit = if self.is_glob {
            self.glob_match(path, is_dir)
        } else {
            self.simple_match(path, is_dir)
        };
        match (hit, self.inclusion) {
            (false, _) => Outcome::NoMatch,
            (true, true) => Outcome::Include,
            (true, false) => Outcome::Exclude,
        }
    }

    fn simple_match(&self, path: &[&str], is_dir: bool) -> bool {
        for (i, name) in path.iter().enumerate() {
            if !self.parts[0].matches(name) {
                continue;
            }
            if self.dir_only && !is_dir && i == path.len() - 1 {
                return false;
            }
            return true;
        }
        false
    }

    fn glob_match(&self, mut path: &[&str], is_dir: bool) -> bool {
        let mut matched = false;
        let mut traverse = false;
        for (i, part) in self.parts.iter().enumerate() {
            let pat = part.text();
            if pat.is_empty() {
                traverse = false;
                continue;
            }
            if pat == "**" {
                if i == self.parts.len() - 1 {
                    break;
                }
                traverse = true;
                continue;
            }
            if pat.contains("**") {
                return false;
            }
            if path.is_empty() {
                return false;
            }
            if traverse {
                traverse = false;
                while let Some((e, rest)) = path.split_first() {
                    path = rest;
                    if part.matches(e) {
                        matched = true;
                        break;
                    } else if path.is_empty() {
                        matched = false;
                    }
                }
            } else {
                if !part.matches(path[0]) {
                    return false;
                }
                matched = true;
                path = &path[1..];
            }
        }
        if matched && self.dir_only && !is_dir && path.is_empty() {
            matched = false;
        }
        matched
    }
}

/// The patterns of an ignore file's text (`ReadPatterns`).
pub fn read_patterns(text: &str, domain: &[String]) -> Vec<Pattern> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| Pattern::parse(l, domain))
        .collect()
}

/// Which files of a source root reach the artifact.
#[derive(Debug, Clone, Default)]
pub struct Ignore {
    /// In increasing priority; the last match decides.
    patterns: Vec<Pattern>,
}

impl Ignore {
    /// Nothing excluded (an ExternalArtifact, a `--source` directory given
    /// as the artifact itself).
    pub fn none() -> Ignore {
        Ignore::default()
    }

    /// `SourceIgnoreFilter`: the default exclusions when `ps` is empty,
    /// else the VCS exclusions under `ps`.
    pub fn filter(ps: Vec<Pattern>) -> Ignore {
        let base = |lines: &[&str]| -> Vec<Pattern> {
            lines.iter().map(|l| Pattern::parse(l, &[])).collect()
        };
        let mut patterns = base(EXCLUDE_VCS);
        if ps.is_empty() {
            patterns.extend(base(EXCLUDE_DEFAULT));
        } else {
            patterns.extend(ps);
        }
        Ignore { patterns }
    }

    /// A GitRepository (or OCIRepository: `walk` false, no `.sourceignore`
    /// files): `.sourceignore` files under `root`, then `spec_ignore`.
    pub fn git(fs: &dyn FileSystem, root: &Path, spec_ignore: Option<&str>) -> Ignore {
        let mut ps = Vec::new();
        load_ignore_files(fs, root, &mut ps);
        if let Some(s) = spec_ignore {
            ps.extend(read_patterns(s, &[]));
        }
        Ignore::filter(ps)
    }

    /// An OCIRepository: `spec.ignore` only.
    pub fn oci(spec_ignore: Option<&str>) -> Ignore {
        Ignore::filter(spec_ignore.map_or_else(Vec::new, |s| read_patterns(s, &[])))
    }

    /// A Bucket: the root `.sourceignore`, then `spec.ignore`, no default.
    pub fn bucket(fs: &dyn FileSystem, root: &Path, spec_ignore: Option<&str>) -> Ignore {
        let mut patterns = fs
            .read_to_string(&root.join(IGNORE_FILE))
            .map(|t| read_patterns(&t, &[]))
            .unwrap_or_default();
        if let Some(s) = spec_ignore {
            patterns.extend(read_patterns(s, &[]));
        }
        Ignore { patterns }
    }

    /// Whether `rel` (relative to the source root) is left out.
    pub fn excluded(&self, rel: &Path, is_dir: bool) -> bool {
        let Some(path) = rel
            .components()
            .map(|c| c.as_os_str().to_str())
            .collect::<Option<Vec<&str>>>()
        else {
            return false;
        };
        if path.is_empty() {
            return false;
        }
        for p in self.patterns.iter().rev() {
            match p.matches(&path, is_dir) {
                Outcome::NoMatch => continue,
                o => return o == Outcome::Exclude,
            }
        }
        false
    }

    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// Whether a `!` pattern may bring back a file under an excluded
    /// directory (without one, everything under it is excluded too: every
    /// pattern that matches a directory matches the paths below it).
    fn reincludes(&self) -> bool {
        self.patterns.iter().any(|p| p.inclusion)
    }
}

/// `LoadIgnorePatterns`: the `.sourceignore` of `dir`, then those of its
/// sub-directories (not `.git`), depth first in name order. As there (Go's
/// `os.ReadDir` and `DirEntry.IsDir`), a symlink to a directory is not
/// walked into. Each directory is opened from its parent's descriptor
/// ([`crate::fs::DirHandle`]).
///
/// Source-controller reads them from a clone, which holds only what the
/// repository tracks; flate reads a working tree. So the walk does not go
/// into a directory the repository's `.gitignore` files exclude (`target/`,
/// `node_modules/`, a virtual environment): nothing there is in the clone,
/// and walking it would only cost time (git does not look into an
/// excluded directory either, whatever a `!` pattern says below it).
fn load_ignore_files(fs: &dyn FileSystem, dir: &Path, out: &mut Vec<Pattern>) {
    if let Ok(mut handle) = fs.open_dir(dir) {
        load_ignore_files_in(fs, &mut *handle, dir, &mut Vec::new(), out, &mut Vec::new());
    }
}

/// The walk below `dir` (open as `handle`, at `domain` from the root), the
/// `.gitignore` patterns met on the way down in `gitignore`.
fn load_ignore_files_in(
    fs: &dyn FileSystem,
    handle: &mut dyn crate::fs::DirHandle,
    dir: &Path,
    domain: &mut Vec<String>,
    out: &mut Vec<Pattern>,
    gitignore: &mut Vec<Pattern>,
) {
    use crate::fs::EntryKind;
    let Ok(entries) = handle.entries() else {
        return;
    };
    // A file read from the directory; one that is a symlink through the
    // file system (which refuses one leading out of the repository).
    let read = |name: &str| -> Option<String> {
        let i = entries
            .binary_search_by(|(n, _)| n.as_str().cmp(name))
            .ok()?;
        let data = match entries[i].1 {
            EntryKind::File => handle.read_file(name).ok()?,
            EntryKind::Link => fs.read(&dir.join(name)).ok()?,
            _ => return None,
        };
        String::from_utf8(data).ok()
    };
    if let Some(t) = read(IGNORE_FILE) {
        out.extend(read_patterns(&t, domain));
    }
    let outer = gitignore.len();
    if let Some(t) = read(".gitignore") {
        gitignore.extend(read_patterns(&t, domain));
    }
    for (n, kind) in &entries {
        if *kind != EntryKind::Dir || n == ".git" {
            continue;
        }
        domain.push(n.clone());
        if !git_excludes_dir(gitignore, domain)
            && let Ok(mut sub) = handle.open_dir(n)
        {
            load_ignore_files_in(fs, &mut *sub, &dir.join(n), domain, out, gitignore);
        }
        domain.pop();
    }
    gitignore.truncate(outer);
}

/// Adds the patterns of the `.gitignore` of `dir` (listed as `names`; its
/// path from the repository root is `domain`) to `into`, when it has one.
pub fn read_gitignore(
    fs: &dyn FileSystem,
    dir: &Path,
    names: &[(String, bool)],
    domain: &[String],
    into: &mut Vec<Pattern>,
) {
    if names.iter().any(|(n, d)| n == ".gitignore" && !d)
        && let Ok(t) = fs.read_to_string(&dir.join(".gitignore"))
    {
        into.extend(read_patterns(&t, domain));
    }
}

/// Whether the `.gitignore` patterns `gitignore` (those of the files met
/// on the way down, outermost first) exclude the directory at `path`
/// (from the repository root): a clone holds nothing there.
pub fn git_excludes_dir(gitignore: &[Pattern], path: &[String]) -> bool {
    let path: Vec<&str> = path.iter().map(String::as_str).collect();
    gitignore
        .iter()
        .rev()
        .map(|p| p.matches(&path, true))
        .find(|o| *o != Outcome::NoMatch)
        == Some(Outcome::Exclude)
}

/// Whether source-controller's default exclusions leave `rel` out of a
/// GitRepository artifact without ignore patterns.
pub fn excluded(rel: &Path, is_dir: bool) -> bool {
    Ignore::filter(Vec::new()).excluded(rel, is_dir)
}

/// A file system that hides what the artifact would not contain.
pub struct ArtifactFs<'a> {
    pub inner: &'a dyn FileSystem,
    pub root: PathBuf,
    pub ignore: Ignore,
}

impl ArtifactFs<'_> {
    fn hidden(&self, p: &Path, is_dir: bool) -> bool {
        p.strip_prefix(&self.root)
            .is_ok_and(|rel| self.ignore.excluded(rel, is_dir))
    }
    /// An excluded directory is still in the artifact when a file under it
    /// is not (the archive creates it to hold that file).
    fn holds_visible(&self, dir: &Path) -> bool {
        if !self.ignore.reincludes() {
            return false;
        }
        let Ok(names) = self.inner.list_typed(dir) else {
            return false;
        };
        names.iter().any(|(n, is_dir)| {
            let p = dir.join(n);
            if *is_dir {
                self.holds_visible(&p)
            } else {
                !self.hidden(&p, false)
            }
        })
    }
}

impl FileSystem for ArtifactFs<'_> {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        if self.hidden(path, false) {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                "excluded from the source artifact",
            ));
        }
        self.inner.read(path)
    }
    fn is_dir(&self, path: &Path) -> bool {
        self.inner.is_dir(path) && (!self.hidden(path, true) || self.holds_visible(path))
    }
    fn is_file(&self, path: &Path) -> bool {
        !self.hidden(path, false) && self.inner.is_file(path)
    }
    fn real_path(&self, path: &Path) -> Option<PathBuf> {
        self.inner.real_path(path)
    }
    fn list(&self, path: &Path) -> io::Result<Vec<String>> {
        Ok(self.list_typed(path)?.into_iter().map(|(n, _)| n).collect())
    }
    fn list_typed(&self, path: &Path) -> io::Result<Vec<(String, bool)>> {
        let names = self.inner.list_typed(path)?;
        Ok(names
            .into_iter()
            .filter(|(n, is_dir)| {
                let p = path.join(n);
                if *is_dir {
                    !self.hidden(&p, true) || self.holds_visible(&p)
                } else {
                    !self.hidden(&p, false)
                }
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ignore(text: &str) -> Ignore {
        Ignore::filter(read_patterns(text, &[]))
    }

    #[test]
    fn default_exclusions() {
        assert!(excluded(Path::new("a/.github/workflows/ci.yaml"), false));
        assert!(excluded(Path::new("apps/.sops.yaml"), false));
        assert!(excluded(Path::new(".sops.yaml"), false));
        assert!(excluded(Path::new("logo.png"), false));
        assert!(excluded(Path::new("x/.git"), true));
        assert!(!excluded(Path::new("apps/app.yaml"), false));
        assert!(!excluded(Path::new("apps/github/app.yaml"), false));
    }

    #[test]
    fn go_filepath_match() {
        for (p, n, want) in [
            ("*.yaml", "a.yaml", true),
            ("*.yaml", "a.yml", false),
            ("a?c", "abc", true),
            ("[a-c]x", "bx", true),
            ("[^a-c]x", "bx", false),
            ("[^a-c]x", "dx", true),
            ("\\*", "*", true),
            ("*", "", true),
            ("[", "x", false),
            ("*", "anything", true),
            ("*.tar.gz", "a.tar.gz", true),
            (".git", ".git", true),
            (".git", ".github", false),
        ] {
            assert_eq!(component_match(p, n), want, "{p} {n}");
            // The compiled form agrees with the general matcher.
            assert_eq!(Part::new(p).matches(n), want, "{p} {n}");
        }
    }

    #[test]
    fn flux_style_allow_list() {
        // The common GitRepository spec.ignore: everything but one tree.
        let i = ignore("# exclude all\n/*\n# include kubernetes directory\n!/kubernetes\n");
        assert!(i.excluded(Path::new("README.md"), false));
        assert!(i.excluded(Path::new("docs/x.yaml"), false));
        assert!(!i.excluded(Path::new("kubernetes/apps/x.yaml"), false));
        // With patterns, the defaults other than VCS no longer apply.
        assert!(!i.excluded(Path::new("kubernetes/logo.png"), false));
        assert!(i.excluded(Path::new(".git/config"), false));
    }

    #[test]
    fn a_file_reincluded_under_an_excluded_directory_is_in_the_artifact() {
        let t = tempfile::tempdir().expect("tempdir");
        let root = t.path().to_path_buf();
        std::fs::create_dir_all(root.join("a")).unwrap();
        std::fs::write(root.join("a/x.yaml"), "x").unwrap();
        std::fs::write(root.join("a/keep.yaml"), "k").unwrap();
        let fs = crate::fs::RealFs;
        let art = |text: &str| ArtifactFs {
            inner: &fs,
            root: root.clone(),
            ignore: ignore(text),
        };
        let a = art("/a/\n!/a/keep.yaml\n");
        assert!(a.is_dir(&root.join("a")));
        assert_eq!(a.list(&root.join("a")).unwrap(), ["keep.yaml"]);
        assert!(a.read(&root.join("a/x.yaml")).is_err());
        let b = art("/a/\n");
        assert!(!b.is_dir(&root.join("a")));
        assert!(!b.is_file(&root.join("a/keep.yaml")));
    }

    /// `.sourceignore` files are read from every directory a clone holds:
    /// not from one the repository's `.gitignore` files exclude.
    #[test]
    fn sourceignore_files_of_untracked_directories_are_not_read() {
        let t = tempfile::tempdir().expect("tempdir");
        let root = t.path().to_path_buf();
        for d in [
            "apps/drafts",
            "node_modules/pkg",
            "apps/build/keep",
            "apps/cache",
        ] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        // Ignored by the root file, by a nested one, and one a later `!`
        // pattern brings back.
        std::fs::write(root.join(".gitignore"), "node_modules/\n/apps/build/\n").unwrap();
        std::fs::write(root.join("apps/.gitignore"), "cache\n!build/\n").unwrap();
        std::fs::write(root.join("node_modules/pkg/.sourceignore"), "*.yaml\n").unwrap();
        std::fs::write(root.join("apps/cache/.sourceignore"), "*.yml\n").unwrap();
        // Only untracked directories have one: no pattern, so the default
        // exclusions apply.
        let i = Ignore::git(&crate::fs::RealFs, &root, None);
        assert!(i.excluded(Path::new("apps/logo.png"), false));
        assert!(i.excluded(Path::new("node_modules/pkg/logo.png"), false));
        // Tracked directories' files are read: apps/drafts, and apps/build,
        // which apps/.gitignore brings back.
        std::fs::write(root.join("apps/drafts/.sourceignore"), "*.draft.yaml\n").unwrap();
        std::fs::write(root.join("apps/build/keep/.sourceignore"), "*.json\n").unwrap();
        let i = Ignore::git(&crate::fs::RealFs, &root, None);
        assert!(i.excluded(Path::new("apps/drafts/a.draft.yaml"), false));
        assert!(i.excluded(Path::new("apps/build/keep/a.json"), false));
        assert!(!i.excluded(Path::new("apps/logo.png"), false));
        // The untracked ones' patterns are not among them.
        assert!(!i.excluded(Path::new("node_modules/pkg/a.yaml"), false));
        assert!(!i.excluded(Path::new("apps/cache/a.yml"), false));
    }

    /// As source-controller's walk (`os.ReadDir`, `DirEntry.IsDir`): a
    /// symlink to a directory is not walked into; a `.sourceignore` that is
    /// a symlink to a file of the repository is read.
    #[cfg(unix)]
    #[test]
    fn symlinked_directories_are_not_walked_for_sourceignore_files() {
        let t = tempfile::tempdir().expect("tempdir");
        let root = t.path().join("repo");
        std::fs::create_dir_all(root.join("apps/a")).unwrap();
        std::fs::create_dir_all(root.join("shared")).unwrap();
        std::fs::write(root.join("apps/a/.sourceignore"), "*.draft.yaml\n").unwrap();
        std::fs::write(root.join("shared/ignore.txt"), "*.tmp.yaml\n").unwrap();
        std::os::unix::fs::symlink(root.join("apps/a"), root.join("linked")).unwrap();
        std::os::unix::fs::symlink("../shared/ignore.txt", root.join("apps/.sourceignore"))
            .unwrap();
        let fs = crate::fs::Confined::new(&crate::fs::RealFs, &root);
        let i = Ignore::git(&fs, &root, None);
        assert!(i.excluded(Path::new("apps/a/x.draft.yaml"), false));
        assert!(!i.excluded(Path::new("linked/x.draft.yaml"), false));
        assert!(i.excluded(Path::new("apps/b/x.tmp.yaml"), false));
        // A `.sourceignore` leading out of the repository is not read.
        std::fs::write(t.path().join("outside"), "*.yaml\n").unwrap();
        std::os::unix::fs::symlink(t.path().join("outside"), root.join("shared/.sourceignore"))
            .unwrap();
        let i = Ignore::git(&fs, &root, None);
        assert!(!i.excluded(Path::new("shared/x.yaml"), false));
        assert!(i.excluded(Path::new("apps/b/x.tmp.yaml"), false));
    }

    #[test]
    fn patterns_follow_go_git() {
        // A name without a slash matches any component; a trailing slash
        // is for directories; `**` crosses directories; the last match wins.
        let i = ignore("*.md\ntmp/\n**/secret/*.yaml\n!keep.md\n");
        assert!(i.excluded(Path::new("a/b/notes.md"), false));
        assert!(!i.excluded(Path::new("a/keep.md"), false));
        assert!(i.excluded(Path::new("a/tmp/x.yaml"), false));
        assert!(!i.excluded(Path::new("a/tmp"), false));
        assert!(i.excluded(Path::new("x/y/secret/s.yaml"), false));
        assert!(!i.excluded(Path::new("x/y/secret/s.json"), false));
        // Patterns of a nested .sourceignore are scoped to its directory.
        let scoped = Ignore::filter(read_patterns("*.yaml\n", &["apps".to_string()]));
        assert!(scoped.excluded(Path::new("apps/a.yaml"), false));
        assert!(!scoped.excluded(Path::new("infra/a.yaml"), false));
    }
}
