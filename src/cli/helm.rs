//! `flate helm template CHART`: what `helm template` prints.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Subcommand};
use flate::helm::chart::values::{M, from_node, merge_maps};
use flate::helm::chart::{self, RenderOptions, strvals};
use flate::template::Value;
use flate::yaml::{Map, Node};

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
    let (release, chart_path) = match a.args.as_slice() {
        [c] => (a.name.clone().unwrap_or_else(|| "release-name".into()), c),
        [r, c] => (a.name.clone().unwrap_or_else(|| r.clone()), c),
        _ => return helm_error("expected [RELEASE] CHART", 2),
    };
    let mut values = Value::Map(M::new());
    for f in &a.values {
        let text = match std::fs::read_to_string(f) {
            Ok(t) => t,
            Err(e) => return helm_error(&format!("open {}: {e}", f.display()), 2),
        };
        let docs = match flate::yaml::parse::parse_stream_json_keys(&text) {
            Ok(d) => d,
            Err(e) => {
                return helm_error(
                    &format!(
                        "failed to parse {}: error converting YAML to JSON: yaml: line {}: {}",
                        f.display(),
                        e.line,
                        e.message
                    ),
                    2,
                );
            }
        };
        match docs.into_iter().next().map(|d| from_node(&d.node)) {
            Some(m @ Value::Map(_)) => values = merge_maps(values, m),
            Some(Value::Nil) | None => {}
            Some(_) => {
                return helm_error(
                    &format!(
                        "failed to parse {}: error unmarshaling JSON: json: cannot unmarshal into Go value of type map[string]interface {{}}",
                        f.display()
                    ),
                    2,
                );
            }
        }
    }
    let Value::Map(mut values) = values else {
        unreachable!("merged values are a map")
    };
    for (list, strings) in [(&a.set, false), (&a.set_string, true)] {
        for s in list {
            if let Err(e) = strvals::parse_into(s, strings, &mut values) {
                return helm_error(&format!("failed parsing --set data: {e}"), 2);
            }
        }
    }
    let path = PathBuf::from(chart_path);
    if !path.exists() {
        return helm_error(&format!("path {chart_path:?} not found"), 2);
    }
    let timings = std::env::var_os("FLATE_TIMINGS").is_some();
    let started = std::time::Instant::now();
    let ch = match chart::load(&path) {
        Ok(c) => c,
        Err(e) => return helm_error(&e.message, 2),
    };
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
    let rendered = chart::render_values(&ch, &opts, values);
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
            let out = chart::print_template(&r);
            std::mem::forget(r);
            if timings {
                let ms = |d: std::time::Duration| d.as_secs_f64() * 1000.0;
                eprintln!(
                    "timings: load {:.2} ms, render {:.2} ms (of which parsing every template, measured apart: {:.2} ms), print {:.2} ms",
                    ms(loaded),
                    ms(render_time),
                    ms(parse_time),
                    ms(print_start.elapsed())
                );
            }
            let mut stdout = std::io::stdout().lock();
            if stdout
                .write_all(out.as_bytes())
                .and_then(|_| stdout.flush())
                .is_err()
            {
                return 2;
            }
            0
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

/// `FLATE_TIMINGS`: the time to parse every template of the chart and its
/// subcharts once, apart from the render (which parses them again).
fn parse_all(ch: &chart::Chart) -> std::time::Duration {
    let mut set = flate::template::Templates::new();
    flate::helm::funcs::add_funcs(&mut set);
    let names = set.func_names();
    let started = std::time::Instant::now();
    fn walk(c: &chart::Chart, names: &std::collections::HashSet<String>) {
        for t in &c.templates {
            let _ = flate::template::Templates::parse_text_with(&t.name, &t.text(), names);
        }
        for d in &c.dependencies {
            walk(d, names);
        }
    }
    walk(ch, &names);
    started.elapsed()
}
