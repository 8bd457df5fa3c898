//! `flate diff [ks|hr|all] [ENV...] [NAME] [--base REV | --path-orig DIR]
//! [-o human|unified|markdown|github|gitlab|html|json] [--exit-code]`;
//! `flate diff images [ENV...]`

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use rayon::prelude::*;

use flate::diff::markdown::{self, Flavor};
use flate::diff::{DiffOptions, EnvDiff, FieldPath, Input, MarkdownOptions};
use flate::flux::RenderOptions;
use flate::fs::{FileSystem, RealFs, absolute, normalize};

use super::common::{EnvArgs, SpecErrors, pick_all_with};
use super::config::Environment;
use super::diag::{self, Diag};
use super::select::{self, Kind, SelectArgs};

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// The structural diff, grouped (the default).
    Human,
    /// Line hunks of the YAML each object prints as.
    Unified,
    /// A pull-request comment (GitHub flavour; same as github).
    Markdown,
    /// A GitHub pull-request comment.
    Github,
    /// A GitLab merge-request comment.
    Gitlab,
    /// One self-contained HTML page.
    Html,
    Json,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Color {
    Auto,
    Always,
    Never,
}

#[derive(Args, Debug)]
pub struct DiffArgs {
    /// [TYPE] [ENV...] [NAME]: TYPE (ks, hr or all) and NAME narrow the
    /// diff to some Kustomizations or HelmReleases; without ENV, every
    /// environment (as for `flate check`). `images [ENV...]` compares the
    /// container images instead (a table per image with the workloads that
    /// run it, flagging a tag change without a digest change).
    #[arg(value_name = "ARGS")]
    pub envs: Vec<String>,
    /// The base revision (any revision git understands). Default: the
    /// merge-base of HEAD with its upstream, else with origin/HEAD,
    /// origin/main or origin/master.
    #[arg(long, value_name = "REV", conflicts_with = "path_orig")]
    pub base: Option<String>,
    /// Diff against another checkout instead of a revision: its root, or
    /// (as flux-local) its counterpart of the entry directory (--path).
    #[arg(long = "path-orig", value_name = "DIR")]
    pub path_orig: Option<PathBuf>,
    #[arg(short = 'o', long = "output", value_enum, default_value = "human")]
    pub output: Format,
    /// Exit with status 1 when something changed.
    #[arg(long)]
    pub exit_code: bool,
    /// Drop a field from both sides before comparing (repeatable):
    /// `[Kind:]a.b.c`, `*` for any key or element, `[key.with.dots]`.
    #[arg(long = "ignore-field", value_name = "PATH")]
    pub ignore_field: Vec<String>,
    /// Keep the fields ignored by default: kustomize's build-metadata
    /// annotations (config.kubernetes.io/origin,
    /// alpha.config.kubernetes.io/transformations) and chart-bump noise
    /// (helm.sh/chart and app.kubernetes.io/version labels, checksum/*
    /// annotations).
    #[arg(long)]
    pub no_default_ignores: bool,
    /// Leave objects of this kind out (repeatable, or comma-separated).
    #[arg(long = "skip-kinds", value_name = "KIND", value_delimiter = ',')]
    pub skip_kinds: Vec<String>,
    /// Leave CustomResourceDefinitions out.
    #[arg(long)]
    pub skip_crds: bool,
    /// Leave Secrets out.
    #[arg(long)]
    pub skip_secrets: bool,
    /// Print the whole text of added and removed objects (-o human and the
    /// comment formats), not only their kind and name.
    #[arg(long)]
    pub full: bool,
    /// Lines of context around each change.
    #[arg(short = 'U', long, default_value_t = 3, value_name = "N")]
    pub context: usize,
    /// Colour for -o human and unified: auto is on a terminal unless
    /// NO_COLOR is set.
    #[arg(long, value_enum, default_value = "auto")]
    pub color: Color,
    /// -o markdown/github/gitlab stays under this many characters (default:
    /// GitHub's comment limit, 65536; GitLab's note limit, 1000000).
    #[arg(long, value_name = "N")]
    pub max_chars: Option<usize>,
    #[command(flatten)]
    pub select: SelectArgs,
    #[command(flatten)]
    pub env: EnvArgs,
}

fn render_options(env: &Environment, a: &EnvArgs) -> Result<RenderOptions, String> {
    let (sources, remotes) = super::common::local_copies(a)?;
    Ok(RenderOptions {
        strict_substitute: a.strict_substitute,
        preexisting: super::common::settings_objects(env)?,
        sources,
        remotes,
        // The working tree's chart cache serves both sides.
        helm: super::common::helm_options(
            &flate::fs::RealFs,
            &super::common::repo_root(&a.repo),
            env,
            a,
        ),
        repo_ignore: None,
    })
}

/// What `--path-orig DIR` is for one environment: (the other checkout's
/// root, the entry directory there, what was understood).
fn other_checkout(dir: &Path, env: &Environment) -> (PathBuf, String, String) {
    let entry = env.path.trim_start_matches("./").trim_end_matches('/');
    if dir.join(entry).is_dir() {
        return (
            dir.to_path_buf(),
            entry.to_string(),
            format!("another checkout's root (entry {entry})"),
        );
    }
    // The counterpart of --path: its root is where the entry path ends.
    let comps = Path::new(entry).components().count();
    if dir.ends_with(entry) {
        let mut root = dir.to_path_buf();
        for _ in 0..comps {
            root.pop();
        }
        return (
            root.clone(),
            entry.to_string(),
            format!(
                "the other checkout's counterpart of {entry} (its root: {})",
                root.display()
            ),
        );
    }
    // An entry directory elsewhere: the root is the nearest directory
    // above it holding .flate.yaml or .git, else the directory itself.
    let mut cur = Some(dir);
    while let Some(d) = cur {
        if d.join(super::config::FILE_NAME).is_file() || d.join(".git").exists() {
            let rel = dir.strip_prefix(d).unwrap_or(dir).display().to_string();
            let rel = if rel.is_empty() { ".".to_string() } else { rel };
            return (
                d.to_path_buf(),
                rel.clone(),
                format!(
                    "the other checkout's entry directory {rel} (its root: {})",
                    d.display()
                ),
            );
        }
        cur = d.parent();
    }
    (
        dir.to_path_buf(),
        ".".to_string(),
        "an entry directory of its own (no .git or .flate.yaml above it)".to_string(),
    )
}

fn render_side(
    fs: &dyn FileSystem,
    root: &Path,
    entry: &str,
    env: &Environment,
    opts: &RenderOptions,
    a: &EnvArgs,
) -> Input {
    if !fs.is_dir(&normalize(root, Path::new(entry))) {
        return Input::Absent(format!("{entry} does not exist"));
    }
    // Each side derives bootstrap-settings from its own Talos spec.
    let opts = match super::common::talos_settings(fs, root, env, a, SpecErrors::Fatal) {
        Ok(Some(r)) => {
            let mut o = opts.clone();
            o.preexisting.push(r);
            std::borrow::Cow::Owned(o)
        }
        Ok(None) => std::borrow::Cow::Borrowed(opts),
        Err(e) => return Input::Error(e),
    };
    match flate::flux::render(fs, root, entry, &env.name, &opts) {
        Ok(r) => Input::Rendered(Box::new(r)),
        Err(e) => Input::Error(flate::flux::render::show_error(root, &e)),
    }
}

fn use_color(c: Color) -> bool {
    match c {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => {
            std::io::stdout().is_terminal()
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        }
    }
}

pub fn run(mut a: DiffArgs) -> i32 {
    let images_mode = a.envs.first().is_some_and(|e| e == "images");
    if images_mode {
        a.envs.remove(0);
    }
    let (w, sel) = match select::rendering_words(&a.envs, true, &a.env, &a.select) {
        Ok(p) => p,
        Err(d) => return d.fail(),
    };
    let kind = w.kind.unwrap_or(Kind::All);
    let (repo, targets) = match pick_all_with(&w.envs, &a.env, true) {
        Ok(p) => p,
        Err(c) => return c,
    };
    let defaults = if a.no_default_ignores {
        Vec::new()
    } else {
        flate::diff::ignore::defaults()
    };
    let mut ignore = Vec::new();
    // The file's diff.ignoreFields, then --ignore-field.
    for p in repo.config.diff.ignore_fields.iter().chain(&a.ignore_field) {
        match FieldPath::parse(p) {
            Ok(f) => ignore.push(f),
            Err(e) => return diag::error(format!("--ignore-field {p}: {e}")),
        }
    }
    let head_root = repo.root.clone();
    // The base side: another checkout (per environment: its root and
    // entry), or a revision's tree mounted where the working tree is so
    // that every path matches.
    let mut sides: Vec<(PathBuf, String)> = Vec::new();
    let (base_fs, base_label): (Box<dyn FileSystem>, String) = match &a.path_orig {
        Some(dir) => {
            let d = absolute(dir);
            if !d.is_dir() {
                return Diag::error(format!("--path-orig {}: no such directory", dir.display()))
                    .help("--path-orig is the other checkout's root, or its counterpart of --path")
                    .fail();
            }
            for t in &targets {
                let (root, entry, how) = other_checkout(&d, t);
                diag::note(format!(
                    "--path-orig {}: {how}, for environment {}",
                    dir.display(),
                    t.name
                ));
                sides.push((root, entry));
            }
            (Box::new(RealFs), dir.display().to_string())
        }
        None => {
            let base = match &a.base {
                Some(rev) => flate::diff::base::explicit(&head_root, rev),
                None => flate::diff::base::default_base(&head_root),
            };
            let opened = base.and_then(|b| {
                let mount = flate::diff::base::mount_point(&head_root)?;
                let fs = flate::git::GitTreeFs::open(&head_root, &b.commit, &mount)?;
                Ok((fs, b.label))
            });
            match opened {
                Ok((fs, label)) => {
                    for t in &targets {
                        sides.push((head_root.clone(), t.path.clone()));
                    }
                    (Box::new(fs), label)
                }
                Err(e) => return diag::error(e.to_string()),
            }
        }
    };
    let mut skip_kinds = a.skip_kinds.clone();
    if a.skip_crds {
        skip_kinds.push("CustomResourceDefinition".into());
    }
    if a.skip_secrets {
        skip_kinds.push("Secret".into());
    }
    let diff_opts = DiffOptions {
        ignore,
        defaults,
        skip_kinds,
        context: a.context,
        base_label,
        text: matches!(a.output, Format::Unified | Format::Json | Format::Html),
        structural: a.output != Format::Unified,
    };
    // Every (environment, side) renders in parallel.
    let jobs: Vec<(usize, bool)> = (0..targets.len())
        .flat_map(|i| [(i, false), (i, true)])
        .collect();
    let mut inputs: Vec<((usize, bool), Input)> = jobs
        .par_iter()
        .map(|&(i, head)| {
            let env = &targets[i];
            let opts = match render_options(env, &a.env) {
                Ok(o) => o,
                Err(e) => return ((i, head), Input::Error(e)),
            };
            let input = if head {
                render_side(&RealFs, &head_root, &env.path, env, &opts, &a.env)
            } else {
                let (root, entry) = &sides[i];
                render_side(base_fs.as_ref(), root, entry, env, &opts, &a.env)
            };
            ((i, head), input)
        })
        .collect();
    inputs.sort_by_key(|(k, _)| *k);
    // NAME, -n and -l narrow both sides; a NAME or namespace that is on
    // neither side is an error.
    for pair in inputs.chunks_mut(2) {
        let mut misses = Vec::new();
        let mut rendered = 0;
        for (_, input) in pair.iter_mut() {
            if let Input::Rendered(r) = input {
                rendered += 1;
                if let Err(d) = select::filter(r, kind, &sel) {
                    misses.push(d);
                }
            }
        }
        if rendered > 0 && misses.len() == rendered {
            return misses.swap_remove(0).fail();
        }
    }
    if images_mode {
        return images(&a, &inputs);
    }
    let mut diffs: Vec<EnvDiff> = Vec::new();
    let mut code = 0;
    for (i, pair) in inputs.chunks_mut(2).enumerate() {
        let env = &targets[i].name;
        let (base, head) = (&pair[0].1, &pair[1].1);
        if let (Input::Absent(_), Input::Absent(_)) = (base, head) {
            let mut d = Diag::error(format!(
                "environment {env}: {} exists on neither side",
                targets[i].path
            ));
            let known = repo.environments();
            if let Some(c) = diag::closest(env, known.iter().map(|e| e.name.as_str())).first() {
                d = d.help(format!("did you mean '{c}'?"));
            }
            d.help("--path names the entry directory relative to the repository root (see --repo)")
                .emit();
            code = 2;
        }
        // What the change touches under a Kustomization neither side
        // renders: the base's files (its checkout or revision) against the
        // working tree's.
        let base_root = sides[i].0.as_path();
        let touched = |rel: &str| {
            flate::diff::base::changed_files(base_fs.as_ref(), base_root, &RealFs, &head_root, rel)
        };
        let mut d = flate::diff::diff_env_touched(env, base, head, &diff_opts, &touched);
        // Values the change writes that a Flux Kustomization's patch
        // replaces: the cluster does not get them, and the diff may say
        // "no changes".
        if let Input::Rendered(r) = std::mem::replace(&mut pair[1].1, Input::Absent(String::new()))
        {
            let changed = |rel: &Path| {
                let (b, h) = (normalize(base_root, rel), head_root.join(rel));
                rel.is_relative() && base_fs.read(&b).ok() != RealFs.read(&h).ok()
            };
            d.notes.extend(overridden_notes(&head_root, *r, &changed));
        }
        for (side, e) in &d.errors {
            diag::error(format!(
                "{env}: {} could not be rendered: {e}",
                side.as_str()
            ));
        }
        for p in d.problems.iter().filter(|p| p.is_fatal()) {
            diag::error(format!("{env}: {}", p.describe()));
        }
        if d.is_fatal() {
            code = 2;
        }
        diffs.push(d);
    }
    let text = match a.output {
        Format::Human => flate::diff::human(
            &diffs,
            &flate::diff::HumanOptions {
                color: use_color(a.color),
                full: a.full,
            },
        ),
        Format::Unified => flate::diff::unified(&diffs, use_color(a.color)),
        Format::Markdown | Format::Github | Format::Gitlab => {
            let (flavor, limit) = if a.output == Format::Gitlab {
                (Flavor::GitLab, markdown::GITLAB_NOTE_LIMIT)
            } else {
                (Flavor::GitHub, markdown::GITHUB_COMMENT_LIMIT)
            };
            flate::diff::markdown(
                &diffs,
                &MarkdownOptions {
                    limit: a.max_chars.unwrap_or(limit),
                    flavor,
                    full: a.full,
                },
            )
        }
        Format::Html => flate::diff::html(&diffs),
        Format::Json => {
            let doc = flate::output::envelope("Diff", flate::diff::json(&diffs));
            let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
            s.push('\n');
            s
        }
    };
    let mut out = std::io::stdout().lock();
    if out
        .write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .is_err()
    {
        return 2;
    }
    if code != 0 {
        return code;
    }
    if a.exit_code && diffs.iter().any(EnvDiff::has_changes) {
        return 1;
    }
    0
}

/// `flate diff images ENV...`.
fn images(a: &DiffArgs, inputs: &[((usize, bool), Input)]) -> i32 {
    use flate::diff::images::{ImageChange, changes, uses};
    let mut code = 0;
    let mut all: Vec<(String, Vec<ImageChange>)> = Vec::new();
    for (i, pair) in inputs.chunks(2).enumerate() {
        let env = &a.envs[i];
        let mut side = |input: &Input, which: &str| match input {
            Input::Rendered(r) => {
                if r.failed() {
                    eprintln!(
                        "warning: {env}: some Kustomizations fail on {which}; their images are not listed"
                    );
                }
                uses(r)
            }
            Input::Absent(_) => Vec::new(),
            Input::Error(e) => {
                eprintln!("error: {env}: {which} could not be rendered: {e}");
                code = 2;
                Vec::new()
            }
        };
        let (b, h) = (side(&pair[0].1, "base"), side(&pair[1].1, "head"));
        all.push((env.clone(), changes(&b, &h)));
    }
    let dash = |s: String| if s.is_empty() { "-".to_string() } else { s };
    let text = match a.output {
        Format::Json => {
            let v = flate::output::envelope(
                "ImageDiff",
                serde_json::json!({"environments": all.iter().map(|(env, cs)| serde_json::json!({
                "environment": env,
                "images": cs.iter().map(|c| serde_json::json!({
                    "image": c.name,
                    "old": {"tag": c.old.0, "digest": c.old.1},
                    "new": {"tag": c.new.0, "digest": c.new.1},
                    "change": c.what(),
                    "tagWithoutDigest": c.tag_without_digest(),
                    "workloads": c.workloads,
                })).collect::<Vec<_>>(),
            })).collect::<Vec<_>>()}),
            );
            serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
        }
        Format::Html => {
            use flate::diff::html::esc;
            let envs: Vec<&str> = all.iter().map(|(e, _)| e.as_str()).collect();
            let title = esc(&format!("flate diff images {}", envs.join(" ")));
            let mut s = format!(
                "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\
<title>{title}</title><style>body{{font-family:sans-serif}}table{{border-collapse:collapse}}\
th,td{{border:1px solid #8884;padding:.2em .5em;text-align:left}}code{{font-size:90%}}</style></head>\n<body><h1>{title}</h1>\n"
            );
            for (env, cs) in &all {
                s.push_str(&format!("<h2>{}</h2>\n", esc(env)));
                if cs.is_empty() {
                    s.push_str("<p>No image changes.</p>\n");
                    continue;
                }
                s.push_str("<table><thead><tr><th>Image</th><th>Old</th><th>New</th><th>Change</th><th>Workloads</th></tr></thead><tbody>\n");
                for c in cs {
                    let flag = if c.tag_without_digest() {
                        "⚠️ "
                    } else {
                        ""
                    };
                    s.push_str(&format!(
                        "<tr><td><code>{}</code></td><td><code>{}</code></td><td><code>{}</code></td><td>{flag}{}</td><td>{}</td></tr>\n",
                        esc(&c.name),
                        esc(&dash(c.old_ref())),
                        esc(&dash(c.new_ref())),
                        esc(c.what()),
                        esc(&c.workloads.join(", "))
                    ));
                }
                s.push_str("</tbody></table>\n");
            }
            if all
                .iter()
                .flat_map(|(_, cs)| cs)
                .any(ImageChange::tag_without_digest)
            {
                s.push_str("<p>⚠️ the tag changed but the digest did not: the cluster still pulls the old image</p>\n");
            }
            s.push_str("</body></html>\n");
            s
        }
        Format::Markdown | Format::Github | Format::Gitlab => {
            let mut s = String::new();
            for (env, cs) in &all {
                s.push_str(&format!("## flate diff images `{env}`\n\n"));
                if cs.is_empty() {
                    s.push_str("No image changes.\n\n");
                    continue;
                }
                s.push_str(
                    "| Image | Old | New | Change | Workloads |\n| --- | --- | --- | --- | --- |\n",
                );
                for c in cs {
                    let flag = if c.tag_without_digest() {
                        "⚠️ "
                    } else {
                        ""
                    };
                    s.push_str(&format!(
                        "| `{}` | `{}` | `{}` | {flag}{} | {} |\n",
                        c.name,
                        dash(c.old_ref()),
                        dash(c.new_ref()),
                        c.what(),
                        c.workloads.join(", ")
                    ));
                }
                s.push('\n');
            }
            s
        }
        _ => {
            let mut rows: Vec<[String; 6]> = vec![[
                "ENV".into(),
                "IMAGE".into(),
                "OLD".into(),
                "NEW".into(),
                "CHANGE".into(),
                "WORKLOADS".into(),
            ]];
            for (env, cs) in &all {
                for c in cs {
                    let flag = if c.tag_without_digest() { "! " } else { "" };
                    rows.push([
                        env.clone(),
                        c.name.clone(),
                        dash(flate::diff::versions::display(&c.old_ref())),
                        dash(flate::diff::versions::display(&c.new_ref())),
                        format!("{flag}{}", c.what()),
                        c.workloads.join(", "),
                    ]);
                }
            }
            if rows.len() == 1 {
                "no image changes\n".to_string()
            } else {
                let mut w = [0usize; 6];
                for r in &rows {
                    for (i, c) in r.iter().enumerate() {
                        w[i] = w[i].max(c.chars().count());
                    }
                }
                let mut s = String::new();
                for r in &rows {
                    let mut line = String::new();
                    for (i, c) in r.iter().enumerate() {
                        if i + 1 == r.len() {
                            line.push_str(c);
                        } else {
                            line.push_str(&format!("{:w$}  ", c, w = w[i]));
                        }
                    }
                    s.push_str(line.trim_end());
                    s.push('\n');
                }
                if all
                    .iter()
                    .flat_map(|(_, cs)| cs)
                    .any(ImageChange::tag_without_digest)
                {
                    s.push_str("! the tag changed but the digest did not: the cluster still pulls the old image\n");
                }
                s
            }
        }
    };
    print!("{text}");
    if code == 0 && a.exit_code && all.iter().any(|(_, cs)| !cs.is_empty()) {
        return 1;
    }
    code
}

/// `patch-overrides-value`'s findings in the files `changed` (relative to
/// the repository) of the head's render, as notes.
fn overridden_notes(
    head_root: &Path,
    rendered: flate::flux::Rendered,
    changed: &dyn Fn(&Path) -> bool,
) -> Vec<String> {
    let fs = flate::fs::Confined::new(&RealFs, head_root);
    let in_change = |env: &flate::check::Env| -> Vec<flate::check::Finding> {
        flate::check::lints::overridden_values(env)
            .into_iter()
            .filter(|f| f.file.as_deref().is_some_and(changed))
            .collect()
    };
    // The kustomization files (where an overlay's patch is written) are
    // walked only when there is something to say.
    let env = flate::check::Env::of_objects("", head_root, &fs, rendered);
    if in_change(&env).is_empty() {
        return Vec::new();
    }
    let env = flate::check::Env::new("", head_root, &fs, env.into_rendered());
    in_change(&env)
        .into_iter()
        .map(|f| {
            let at = f.file.as_deref().map(Path::display);
            match at {
                Some(p) => format!("{p}:{}: {} [patch-overrides-value]", f.line, f.message),
                None => f.message,
            }
        })
        .collect()
}
