//! `flate helm template CHART`: what `helm template` prints.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Subcommand};
use flate::helm::chart::values::{M, merge_maps};
use flate::helm::chart::{self, RenderOptions};
use flate::template::Value;
use flate::yaml::{Map, Node};

use super::strvals::{self, Mode, V, VMap};

#[derive(Subcommand, Debug)]
pub enum HelmCommand {
    /// Render a chart locally, byte for byte as `helm template` does.
    ///
    /// `flate helm template CHART` or `flate helm template RELEASE CHART`;
    /// CHART is a chart directory or a .tgz. Exit 1 when the chart fails
    /// to render (Helm's message on standard error), 2 when flate could
    /// not run (no such chart, unreadable values file).
    Template(TemplateArgs),
}

#[derive(Args, Debug)]
pub struct TemplateArgs {
    /// [RELEASE] CHART
    #[arg(required = true, num_args = 1..=2, value_name = "ARGS")]
    pub args: Vec<String>,
    /// The release name (default: release-name).
    #[arg(long)]
    pub name: Option<String>,
    /// The release namespace.
    #[arg(short = 'n', long, default_value = "default")]
    pub namespace: String,
    /// Values files, merged in order.
    #[arg(short = 'f', long = "values", value_name = "FILE")]
    pub values: Vec<PathBuf>,
    /// Values on the command line (a.b=c,d[0]=e).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Values on the command line, always strings.
    #[arg(long = "set-string", value_name = "KEY=VALUE")]
    pub set_string: Vec<String>,
    /// JSON values on the command line (a.b=JSONVALUE,... or a JSON object).
    #[arg(long = "set-json", value_name = "KEY=JSON")]
    pub set_json: Vec<String>,
    /// Values read from files (a.b=PATH,...): the file's contents, a string.
    #[arg(long = "set-file", value_name = "KEY=PATH")]
    pub set_file: Vec<String>,
    /// One literal string value (everything after the first `=`).
    #[arg(long = "set-literal", value_name = "KEY=VALUE")]
    pub set_literal: Vec<String>,
    /// Only print the manifests of these templates (chart-relative paths
    /// such as templates/deployment.yaml; shell globs allowed).
    #[arg(short = 's', long = "show-only", value_name = "TEMPLATE")]
    pub show_only: Vec<String>,
    /// Leave hooks out of the output.
    #[arg(long = "no-hooks")]
    pub no_hooks: bool,
    /// Write each template's manifests to DIR/<chart>/templates/... instead
    /// of printing them (as `helm template --output-dir`).
    #[arg(long = "output-dir", value_name = "DIR")]
    pub output_dir: Option<String>,
    /// With --output-dir: write into DIR/RELEASE.
    #[arg(long = "release-name")]
    pub release_name: bool,
    /// Name the release with this Go template (Sprig functions, no data)
    /// instead of RELEASE / --name.
    #[arg(long = "name-template", value_name = "TEMPLATE")]
    pub name_template: Option<String>,
    /// Kubernetes version for .Capabilities.KubeVersion (default 1.35.0).
    #[arg(long = "kube-version")]
    pub kube_version: Option<String>,
    /// Extra API versions for .Capabilities.APIVersions.
    #[arg(short = 'a', long = "api-versions", value_delimiter = ',')]
    pub api_versions: Vec<String>,
    /// Print the charts' crds/ files too.
    #[arg(long = "include-crds")]
    pub include_crds: bool,
    /// Accepted for Helm's sake (helm template prints no CRDs unless --include-crds).
    #[arg(long = "skip-crds")]
    pub skip_crds: bool,
    /// Leave test hooks out.
    #[arg(long = "skip-tests")]
    pub skip_tests: bool,
    /// Do not validate values against values.schema.json.
    #[arg(long = "skip-schema-validation")]
    pub skip_schema_validation: bool,
    /// Set .Release.IsUpgrade instead of .Release.IsInstall.
    #[arg(long = "is-upgrade")]
    pub is_upgrade: bool,
}

/// `flate helm template ...` read by hand when every argument is in a
/// common form (a long option and its value, as one argument with `=` or
/// as two; `-n`, `-f`, `-s`, `-a` and their value as two; the flags; one
/// or two positional arguments): the quiet and verbose flags and the
/// arguments, exactly as clap reads them. Anything else (help, an option
/// given twice, a value starting with `-`, an unknown or combined option,
/// `--`, a text that is not UTF-8) gives `None`, and clap reads the line
/// and reports what is wrong. Building clap's whole description of the
/// command takes longer than rendering a small chart's first template:
/// about 0.2 M instructions and 20 page faults at every start.
pub fn quick_template_args(line: &[std::ffi::OsString]) -> Option<(bool, bool, TemplateArgs)> {
    let line: Vec<&str> = line.iter().map(|a| a.to_str()).collect::<Option<_>>()?;
    let [_, "helm", "template", rest @ ..] = line.as_slice() else {
        return None;
    };
    let mut a = TemplateArgs {
        args: Vec::new(),
        name: None,
        namespace: "default".into(),
        values: Vec::new(),
        set: Vec::new(),
        set_string: Vec::new(),
        set_json: Vec::new(),
        set_file: Vec::new(),
        set_literal: Vec::new(),
        show_only: Vec::new(),
        no_hooks: false,
        output_dir: None,
        release_name: false,
        name_template: None,
        kube_version: None,
        api_versions: Vec::new(),
        include_crds: false,
        skip_crds: false,
        skip_tests: false,
        skip_schema_validation: false,
        is_upgrade: false,
    };
    let (mut quiet, mut verbose, mut namespace_given) = (false, false, false);
    let mut i = 0;
    while let Some(&arg) = rest.get(i) {
        i += 1;
        let (option, inline) = if let Some(long) = arg.strip_prefix("--") {
            match long.split_once('=') {
                Some((o, v)) => (o, Some(v)),
                None => (long, None),
            }
        } else if arg.len() == 2 && arg.starts_with('-') {
            (
                match &arg[1..] {
                    "n" => "namespace",
                    "f" => "values",
                    "s" => "show-only",
                    "a" => "api-versions",
                    "q" => "quiet",
                    "v" => "verbose",
                    _ => return None,
                },
                None,
            )
        } else if arg.starts_with('-') {
            return None;
        } else {
            a.args.push(arg.to_string());
            continue;
        };
        let flag = match option {
            "quiet" => Some(&mut quiet),
            "verbose" => Some(&mut verbose),
            "no-hooks" => Some(&mut a.no_hooks),
            "release-name" => Some(&mut a.release_name),
            "include-crds" => Some(&mut a.include_crds),
            "skip-crds" => Some(&mut a.skip_crds),
            "skip-tests" => Some(&mut a.skip_tests),
            "skip-schema-validation" => Some(&mut a.skip_schema_validation),
            "is-upgrade" => Some(&mut a.is_upgrade),
            _ => None,
        };
        if let Some(flag) = flag {
            if inline.is_some() || *flag {
                return None;
            }
            *flag = true;
            continue;
        }
        let value = match inline {
            Some(v) => v,
            None => {
                i += 1;
                rest.get(i - 1)?
            }
        };
        if value.is_empty() || value.starts_with('-') {
            return None;
        }
        let once =
            |slot: &mut Option<String>| slot.is_none().then(|| *slot = Some(value.to_string()));
        match option {
            "name" => once(&mut a.name)?,
            "output-dir" => once(&mut a.output_dir)?,
            "name-template" => once(&mut a.name_template)?,
            "kube-version" => once(&mut a.kube_version)?,
            "namespace" if !namespace_given => {
                namespace_given = true;
                a.namespace = value.to_string();
            }
            "values" => a.values.push(value.into()),
            "set" => a.set.push(value.to_string()),
            "set-string" => a.set_string.push(value.to_string()),
            "set-json" => a.set_json.push(value.to_string()),
            "set-file" => a.set_file.push(value.to_string()),
            "set-literal" => a.set_literal.push(value.to_string()),
            "show-only" => a.show_only.push(value.to_string()),
            "api-versions" if value.split(',').all(|v| !v.is_empty()) => {
                a.api_versions.extend(value.split(',').map(str::to_string));
            }
            _ => return None,
        }
    }
    if a.args.is_empty() || a.args.len() > 2 || (quiet && verbose) {
        return None;
    }
    Some((quiet, verbose, a))
}

fn helm_error(msg: &str, code: i32) -> i32 {
    let mut e = std::io::stderr().lock();
    let _ = writeln!(e, "Error: {msg}");
    code
}

pub fn run(cmd: HelmCommand) -> i32 {
    match cmd {
        HelmCommand::Template(a) => template(a),
    }
}

fn template(a: TemplateArgs) -> i32 {
    // `Install.NameAndChart`: a name given with --name-template is an
    // error; the template names the release otherwise.
    let named = a.name.is_some() || a.args.len() == 2;
    let (release, chart_path) = match a.args.as_slice() {
        [c] => (a.name.clone().unwrap_or_else(|| "release-name".into()), c),
        [r, c] => (a.name.clone().unwrap_or_else(|| r.clone()), c),
        _ => return helm_error("expected [RELEASE] CHART", 2),
    };
    let release = match (&a.name_template, named) {
        (Some(_), true) => {
            return helm_error("cannot set --name-template and also specify a name", 2);
        }
        (Some(t), false) => match flate::kustomize::helm::template_name(t) {
            Ok(n) => n,
            Err(e) => return helm_error(&e, 2),
        },
        (None, _) => release,
    };
    let mut values = Value::map(M::new());
    for f in &a.values {
        let bytes = match read_file(&f.to_string_lossy()) {
            Ok(b) => b,
            Err(e) => return helm_error(&e, 2),
        };
        let text = String::from_utf8_lossy(&bytes);
        // Every document of the file, merged, as Helm's `ReadValuesFile`
        // reads it (the loader of a chart's values.yaml).
        match flate::helm::chart::load_values(&text) {
            Ok(m) => values = merge_maps(values, m),
            Err(e) => return helm_error(&format!("failed to parse {}: {e}", f.display()), 2),
        }
    }
    // The command-line values in Helm's order (`values.Options.MergeValues`):
    // --set-json, --set, --set-string, --set-file, --set-literal. (Without
    // any, the values of the files are the template data as they are.)
    let no_set = a.set_json.is_empty()
        && a.set.is_empty()
        && a.set_string.is_empty()
        && a.set_file.is_empty()
        && a.set_literal.is_empty();
    let values = if no_set {
        values
    } else {
        match with_set_values(&a, &values) {
            Ok(v) => v,
            Err(code) => return code,
        }
    };
    let Value::Map(values) = values else {
        unreachable!("a map")
    };
    let path = PathBuf::from(chart_path);
    if !path.exists() {
        return helm_error(&format!("path {chart_path:?} not found"), 2);
    }
    let timings = std::env::var_os("FLATE_TIMINGS").is_some();
    let started = std::time::Instant::now();
    let ch = match chart::load_parsing_ahead(&path) {
        Ok(c) => c,
        Err(e) => return helm_error(&e.message, 2),
    };
    // `Install.availableName` runs after the installable and dependency
    // checks (which `render_values` makes, with their own errors).
    let installable = matches!(ch.metadata.chart_type.as_str(), "" | "application");
    let deps_ok = ch.metadata.dependencies.as_ref().is_none_or(|reqs| {
        reqs.iter()
            .all(|r| ch.dependencies.iter().any(|d| d.metadata.name == r.name))
    });
    if installable
        && deps_ok
        && let Err(e) = flate::kustomize::helm::validate_release_name(&release)
    {
        // Helm v4 logs the failure, then returns it wrapped.
        eprintln!("level=ERROR msg=\"release name check failed\" error={e:?}");
        return helm_error(&format!("release name check failed: {e}"), 1);
    }
    let release_dir = a.release_name.then(|| release.clone());
    let loaded = started.elapsed();
    let parse_time = if timings {
        parse_all(&ch)
    } else {
        std::time::Duration::ZERO
    };
    let render_start = std::time::Instant::now();
    let opts = RenderOptions {
        release_name: release,
        namespace: a.namespace,
        values: Node::Map(Map::new()),
        kube_version: a.kube_version,
        api_versions: a.api_versions,
        is_upgrade: a.is_upgrade,
        include_crds: a.include_crds,
        skip_tests: a.skip_tests,
        skip_schema_validation: a.skip_schema_validation,
    };
    let rendered = chart::render_values(&ch, &opts, values.to_btree());
    let render_time = render_start.elapsed();
    // The process ends after this command: the chart (its files and
    // parsed templates) is not taken apart piece by piece.
    std::mem::forget(ch);
    match rendered {
        Ok(r) => {
            for w in &r.warnings {
                super::diag::warning(w.clone());
            }
            let print_start = std::time::Instant::now();
            let mut r = r;
            if a.no_hooks {
                r.manifests.retain(|m| !m.hook);
            }
            let written = if a.output_dir.is_none() && a.show_only.is_empty() {
                // Straight to standard output, piece by piece.
                write_stdout_pieces(&r)
            } else {
                let out = match &a.output_dir {
                    None => chart::print_template(&r),
                    Some(dir) => match write_output_dir(&r, dir, release_dir.as_deref()) {
                        Ok(o) => o,
                        Err(e) => return helm_error(&e, 1),
                    },
                };
                let out = if a.show_only.is_empty() {
                    out
                } else {
                    match show_only(&out, &a.show_only) {
                        Ok(o) => o,
                        Err(e) => return helm_error(&e, 1),
                    }
                };
                let mut stdout = std::io::stdout().lock();
                stdout
                    .write_all(out.as_bytes())
                    .and_then(|_| stdout.flush())
            };
            std::mem::forget(r);
            if timings {
                print_timings(loaded, render_time, parse_time, print_start.elapsed());
            }
            match written {
                Ok(()) => 0,
                Err(e) => stdout_error(&e),
            }
        }
        Err(e) if e.in_render => helm_error(
            &format!(
                "{}\n\nUse --debug flag to render out invalid YAML",
                e.message
            ),
            1,
        ),
        Err(e) => helm_error(&e.message, 1),
    }
}

/// Exit code 2 for output that could not be written; said on standard
/// error unless the reader went away (a closed pipe, as `| head` closes
/// it).
fn stdout_error(e: &std::io::Error) -> i32 {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        return 2;
    }
    helm_error(&format!("writing standard output: {e}"), 2)
}

/// `FLATE_TIMINGS`: where the time of `helm template` went, on standard error.
fn print_timings(
    load: std::time::Duration,
    render: std::time::Duration,
    parse: std::time::Duration,
    print: std::time::Duration,
) {
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1000.0;
    eprintln!(
        "timings: load {:.2} ms, render {:.2} ms (of which parsing every template, measured apart: {:.2} ms), print {:.2} ms",
        ms(load),
        ms(render),
        ms(parse),
        ms(print)
    );
}

/// Writes the rendered chart to standard output as `helm template` prints
/// it, with vectored writes to the file descriptor itself (what was
/// buffered before flushed first): standard output's own writer is
/// line-buffered and would copy every piece.
fn write_stdout_pieces(r: &chart::Rendered) -> std::io::Result<()> {
    std::io::stdout().flush()?;
    #[cfg(unix)]
    {
        use std::os::fd::{AsRawFd, FromRawFd};
        let fd = std::io::stdout().as_raw_fd();
        // SAFETY: standard output's descriptor stays open for the whole
        // process; `ManuallyDrop` keeps this `File` from closing it.
        let mut file = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(fd) });
        chart::write_template(r, &mut *file).map(|_| ())
    }
    #[cfg(not(unix))]
    {
        let mut out = std::io::stdout().lock();
        chart::write_template(r, &mut out)?;
        out.flush()
    }
}

/// The values of the `-f` files with the command-line values set on them
/// (`Err`: the exit code, the error printed).
fn with_set_values(a: &TemplateArgs, values: &Value) -> Result<Value, i32> {
    let V::Map(mut base) = to_v(values) else {
        unreachable!("merged values are a map")
    };
    for s in &a.set_json {
        let t = s.trim();
        if t.starts_with('{') {
            match serde_json::from_str::<serde_json::Value>(t) {
                Ok(j @ serde_json::Value::Object(_)) => {
                    let V::Map(m) = V::from_json(&j) else {
                        unreachable!("an object")
                    };
                    strvals::merge_maps(&mut base, m);
                }
                _ => {
                    return Err(helm_error(
                        &format!("failed parsing --set-json data JSON: {s}"),
                        2,
                    ));
                }
            }
        } else if strvals::parse_into(s, &mut base, Mode::Json).is_err() {
            return Err(helm_error(
                &format!("failed parsing --set-json data {s}"),
                2,
            ));
        }
    }
    let reader = |p: &str| read_file(p).map(|b| String::from_utf8_lossy(&b).into_owned());
    for (list, mode, what) in [
        (&a.set, Mode::Typed(false), "--set"),
        (&a.set_string, Mode::Typed(true), "--set-string"),
        (&a.set_file, Mode::File(&reader), "--set-file"),
        (&a.set_literal, Mode::Literal, "--set-literal"),
    ] {
        for s in list {
            let mode = match &mode {
                Mode::Typed(b) => Mode::Typed(*b),
                Mode::File(r) => Mode::File(*r),
                Mode::Json => Mode::Json,
                Mode::Literal => Mode::Literal,
            };
            if let Err(e) = strvals::parse_into(s, &mut base, mode) {
                return Err(helm_error(&format!("failed parsing {what} data: {e}"), 2));
            }
        }
    }
    Ok(from_v(V::Map(base)))
}

/// Template data from parsed values.
fn from_v(v: V) -> Value {
    match v {
        V::Nil => Value::Nil,
        V::Bool(b) => Value::Bool(b),
        V::Int(i) => Value::Int(i),
        V::Float(f) => Value::Float(f),
        V::Str(s) => Value::Str(s),
        V::List(l) => Value::List(l.into_iter().map(from_v).collect()),
        V::Map(m) => Value::map(m.into_iter().map(|(k, v)| (k, from_v(v))).collect()),
    }
}

/// Parsed values from template data (what `-f` files made).
fn to_v(v: &Value) -> V {
    match v {
        Value::Bool(b) => V::Bool(*b),
        Value::Int(i) => V::Int(*i),
        Value::Float(f) => V::Float(*f),
        Value::Str(s) => V::Str(s.clone()),
        Value::List(l) => V::List(l.iter().map(to_v).collect()),
        Value::Map(m) => V::Map(
            m.read()
                .iter()
                .map(|(k, v)| (k.clone(), to_v(v)))
                .collect::<VMap>(),
        ),
        _ => V::Nil,
    }
}

/// Helm's `readFile` for `-f` and `--set-file`: `-` is standard input,
/// a URL of a getter (http, https, oci) would be downloaded (flate does
/// not), anything else is a local file; errors as Go prints them.
fn read_file(path: &str) -> Result<Vec<u8>, String> {
    use std::io::Read;
    if path.trim() == "-" {
        let mut b = Vec::new();
        return std::io::stdin()
            .read_to_end(&mut b)
            .map(|_| b)
            .map_err(|e| format!("read /dev/stdin: {e}"));
    }
    if let Some((scheme, _)) = path.split_once("://")
        && ["http", "https", "oci"].contains(&scheme.to_ascii_lowercase().as_str())
    {
        return Err(format!(
            "{path}: flate does not download values files; save it and pass the local file"
        ));
    }
    let p = std::path::Path::new(path);
    if p.is_dir() {
        return Err(format!("read {path}: is a directory"));
    }
    std::fs::read(p).map_err(|e| {
        let why = match e.kind() {
            std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
            std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
            _ => e.to_string(),
        };
        format!("open {path}: {why}")
    })
}

/// `--output-dir` (Helm's `renderResources` and `template` command):
/// CRDs (with `--include-crds`) go to `DIR/<chart path>`, manifests and
/// hooks to `DIR[/RELEASE]/<template path>`, each document appended to
/// its template's file after the first (a hook's file is appended to when
/// it already exists, even from an earlier run, as Helm does); each write
/// prints `wrote FILE`. What is left to print is the empty manifest.
fn write_output_dir(
    r: &chart::Rendered,
    dir: &str,
    release: Option<&str>,
) -> Result<String, String> {
    use std::collections::HashSet;
    let joined = |name: &str| {
        flate::flux::helmrender::go_clean(&format!("{}/{name}", dir.trim_end_matches('/')))
    };
    let new_dir = match release {
        Some(rel) => joined(rel),
        None => dir.to_string(),
    };
    let mut written: HashSet<String> = HashSet::new();
    let mut out = std::io::stdout().lock();
    let mut write = |base: &str, name: &str, data: &str, append: bool| -> Result<(), String> {
        let file = format!("{base}/{name}");
        let p = std::path::Path::new(&file);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("mkdir {}: {e}", parent.display()))?;
        }
        let mut f = if append {
            std::fs::OpenOptions::new().append(true).open(p)
        } else {
            std::fs::File::create(p)
        }
        .map_err(|e| format!("open {file}: {e}"))?;
        f.write_all(format!("---\n# Source: {name}\n{data}\n").as_bytes())
            .map_err(|e| format!("write {file}: {e}"))?;
        let _ = writeln!(out, "wrote {file}");
        Ok(())
    };
    for m in r.manifests.iter().filter(|m| m.crd) {
        write(dir, &m.source, &m.body, written.contains(&m.source))?;
        written.insert(m.source.clone());
    }
    let mut written_here: HashSet<String> = HashSet::new();
    for m in r.manifests.iter().filter(|m| !m.crd && !m.hook) {
        write(
            &new_dir,
            &m.source,
            &m.body,
            written_here.contains(&m.source),
        )?;
        written_here.insert(m.source.clone());
    }
    for m in r.manifests.iter().filter(|m| m.hook) {
        let exists = std::path::Path::new(&flate::flux::helmrender::go_clean(&format!(
            "{new_dir}/{}",
            m.source
        )))
        .exists();
        write(&new_dir, &m.source, &m.body, exists)?;
    }
    Ok("\n".to_string())
}

/// `--show-only`: the documents of the output whose `# Source:` path,
/// without the chart's name, matches one of the patterns (Go's
/// `filepath.Match`), pattern by pattern in output order, as `helm
/// template` prints them; a pattern that matches nothing is Helm's error.
fn show_only(out: &str, patterns: &[String]) -> Result<String, String> {
    let sep = regex::Regex::new(r"(?:^|[\t\n\x0c\r ]*\n)---[\t\n\x0c\r ]*").expect("regex");
    let name = regex::Regex::new(r"# Source: [^/]+/(.+)").expect("regex");
    let docs: Vec<&str> = sep
        .split(out.trim())
        .filter(|d| !d.is_empty())
        .map(str::trim)
        .collect();
    let mut shown = String::new();
    for f in patterns {
        let mut missing = true;
        for d in &docs {
            let Some(c) = name.captures(d) else { continue };
            if go_match(f, &c[1]) {
                shown.push_str(&format!("---\n{d}\n"));
                missing = false;
            }
        }
        if missing {
            return Err(format!("could not find template {f} in chart"));
        }
    }
    Ok(shown)
}

/// Go's `filepath.Match` on `/`-separated paths (a malformed pattern
/// matches nothing).
fn go_match(pattern: &str, name: &str) -> bool {
    fn class(p: &[char], c: char) -> Option<(bool, usize)> {
        // p starts after '['; returns (matched, length consumed incl. ']').
        let mut i = 0;
        let negate = p.first() == Some(&'^');
        if negate {
            i += 1;
        }
        if matches!(p.get(i), Some(']' | '-')) {
            return None;
        }
        let mut matched = false;
        let mut first = true;
        loop {
            let ch = *p.get(i)?;
            if ch == ']' && !first {
                return Some((matched != negate, i + 1));
            }
            first = false;
            let lo = if ch == '\\' {
                i += 1;
                *p.get(i)?
            } else {
                ch
            };
            i += 1;
            let mut hi = lo;
            if p.get(i) == Some(&'-') && p.get(i + 1).is_some_and(|c| *c != ']') {
                i += 1;
                hi = if p[i] == '\\' {
                    i += 1;
                    *p.get(i)?
                } else {
                    p[i]
                };
                i += 1;
            }
            if lo <= c && c <= hi {
                matched = true;
            }
        }
    }
    fn go(p: &[char], n: &[char]) -> bool {
        match p.first() {
            None => n.is_empty(),
            Some('*') => {
                let rest = &p[1..];
                for k in 0..=n.len() {
                    if k > 0 && n[k - 1] == '/' {
                        break;
                    }
                    if go(rest, &n[k..]) {
                        return true;
                    }
                }
                false
            }
            Some('?') => !n.is_empty() && n[0] != '/' && go(&p[1..], &n[1..]),
            Some('[') => match (n.first(), class(&p[1..], n.first().copied().unwrap_or('/'))) {
                (Some(c), Some((m, len))) if *c != '/' => m && go(&p[1 + len..], &n[1..]),
                _ => false,
            },
            Some('\\') => match p.get(1) {
                Some(c) => n.first() == Some(c) && go(&p[2..], &n[1..]),
                None => false,
            },
            Some(c) => n.first() == Some(c) && go(&p[1..], &n[1..]),
        }
    }
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    go(&p, &n)
}

/// `FLATE_TIMINGS`: the time to parse every template of the chart and its
/// subcharts once, apart from the render (which parses them again).
fn parse_all(ch: &chart::Chart) -> std::time::Duration {
    let mut set = flate::template::Templates::new();
    flate::helm::funcs::add_funcs(&mut set);
    let names = set.func_names();
    let started = std::time::Instant::now();
    fn walk(c: &chart::Chart, names: &std::collections::HashSet<String>) {
        for t in &c.templates {
            if let Ok(text) = t.text() {
                let _ = flate::template::Templates::parse_text_with(&t.name, &text, names);
            }
        }
        for d in &c.dependencies {
            walk(d, names);
        }
    }
    walk(ch, &names);
    started.elapsed()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn show_only_patterns_match_as_go_does() {
        assert!(go_match("templates/*.yaml", "templates/a.yaml"));
        assert!(!go_match("templates/*.yaml", "templates/sub/a.yaml"));
        assert!(go_match("templates/?.yaml", "templates/a.yaml"));
        assert!(go_match("templates/[a-c].yaml", "templates/b.yaml"));
        assert!(!go_match("templates/[^a-c].yaml", "templates/b.yaml"));
        assert!(go_match("templates/\\*.yaml", "templates/*.yaml"));
        assert!(!go_match("templates/[", "templates/["));
        let out =
            "---\n# Source: c/templates/a.yaml\na: 1\n---\n# Source: c/templates/b.yaml\nb: 2\n";
        assert_eq!(
            show_only(out, &["templates/b.yaml".into(), "templates/*".into()]).unwrap(),
            "---\n# Source: c/templates/b.yaml\nb: 2\n---\n# Source: c/templates/a.yaml\na: 1\n---\n# Source: c/templates/b.yaml\nb: 2\n"
        );
        assert_eq!(
            show_only(out, &["templates/x.yaml".into()]).unwrap_err(),
            "could not find template templates/x.yaml in chart"
        );
    }
}
