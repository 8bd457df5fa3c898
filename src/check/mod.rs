//! `flate check`: JSON Schema validation of every rendered object and
//! kustomization file, and lints for the mistakes that break Flux
//! repositories silently; `flate pins`: the tag/digest pins of every
//! environment.
//!
//! Everything here works on [`Rendered`] clusters: one render per
//! environment, nothing renders twice. A finding carries a stable rule id,
//! a severity, a one-line message, a file and line, and the environments
//! it was found in; an object opts out of a rule with the annotation
//! `flate.dev/disable: ID[,ID]`.

pub mod crd;
pub mod finding;
pub mod flux_types;
pub mod kustfiles;
pub mod kustomize_types;
pub mod lints;
pub mod locate;
pub mod pins;
pub mod report;
pub mod schema;
pub mod talos;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::flux::Rendered;
use crate::fs::FileSystem;
use crate::resource::Resource;

pub use finding::{Finding, ObjectRef, RULES, Rule, Severity, rule};
pub use schema::{SchemaOptions, SchemaSet};

/// The annotation that turns rules off for one object.
pub const DISABLE_ANNOTATION: &str = "flate.dev/disable";

/// Whether `r` opts out of `rule` with `flate.dev/disable`.
pub fn opted_out(r: &Resource, rule: &str) -> bool {
    r.annotation(DISABLE_ANNOTATION)
        .is_some_and(|v| v.split(',').any(|x| x.trim() == rule))
}

/// One rendered environment and what the checks need around it.
pub struct Env<'a> {
    pub name: String,
    pub repo: PathBuf,
    pub fs: &'a dyn FileSystem,
    pub rendered: Rendered,
    pub kfiles: kustfiles::KustFiles,
    /// The Kubernetes minor version built-in kinds are checked against
    /// (one of [`schema::KUBERNETES_VERSIONS`]): the Talos spec's
    /// `cluster.kubernetesVersion` when the environment has one (the
    /// nearest embedded version when it is outside their range), else the
    /// newest embedded; `flate check --kubernetes-version` sets it.
    pub kubernetes_version: String,
}

impl<'a> Env<'a> {
    /// Wraps a render: walks the kustomization files it used.
    pub fn new(name: &str, repo: &Path, fs: &'a dyn FileSystem, rendered: Rendered) -> Env<'a> {
        let kfiles = kustfiles::KustFiles::walk(fs, repo, &rendered);
        let kubernetes_version = talos_kubernetes_version(fs, repo, name)
            .map(|v| schema::nearest_version(&v).0)
            .unwrap_or(schema::KUBERNETES_VERSION)
            .to_string();
        Env {
            name: name.to_string(),
            repo: repo.to_path_buf(),
            fs,
            rendered,
            kfiles,
            kubernetes_version,
        }
    }

    /// An environment for the lints that read only the rendered objects and
    /// their files (not the kustomization files, which [`Env::new`] walks).
    pub fn of_objects(
        name: &str,
        repo: &Path,
        fs: &'a dyn FileSystem,
        rendered: Rendered,
    ) -> Env<'a> {
        Env {
            name: name.to_string(),
            repo: repo.to_path_buf(),
            fs,
            rendered,
            kfiles: Default::default(),
            kubernetes_version: schema::KUBERNETES_VERSION.to_string(),
        }
    }

    /// The rendered cluster, given back.
    pub fn into_rendered(self) -> Rendered {
        self.rendered
    }

    /// `path` relative to the repository, for messages.
    pub fn rel(&self, path: &Path) -> PathBuf {
        path.strip_prefix(&self.repo)
            .map(Path::to_path_buf)
            .unwrap_or_else(|_| path.to_path_buf())
    }
}

/// `cluster.kubernetesVersion` of the environment's Talos spec, when it
/// has one (read leniently: the spec's own errors are `talos-spec-invalid`).
pub fn talos_kubernetes_version(fs: &dyn FileSystem, repo: &Path, env: &str) -> Option<String> {
    let spec = crate::talos::spec_path(repo, env);
    if !fs.is_file(&spec) {
        return None;
    }
    let text = fs.read_to_string(&spec).ok()?;
    let doc = crate::yaml::parse_one(&text).ok()?;
    doc.get_str(&["cluster", "kubernetesVersion"])
        .map(str::to_string)
}

/// What `flate check` runs.
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    /// Rule ids switched off.
    pub disabled: BTreeSet<String>,
    /// Kinds without a schema are errors.
    pub strict: bool,
    /// Skip schema validation (lints only).
    pub no_schemas: bool,
}

/// Everything `flate check` found.
#[derive(Debug, Clone, Default)]
pub struct CheckReport {
    pub envs: Vec<String>,
    pub findings: Vec<Finding>,
    /// Objects validated against a schema.
    pub validated: usize,
    /// Kinds with no schema: (apiVersion, kind, objects, environments).
    pub no_schema: Vec<(String, String, usize, Vec<String>)>,
    /// What was not rendered offline, so not checked, over every
    /// environment.
    pub skipped: Unchecked,
}

/// What `flate check` could not check, not having rendered it offline.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Unchecked {
    /// Kustomizations skipped (an external source, suspended).
    pub kustomizations: usize,
    /// HelmReleases skipped (a chart not cached, a source or values not
    /// rendered).
    pub helmreleases: usize,
    /// Flux Operator ResourceSets, whose objects are made in the cluster.
    pub resource_sets: usize,
}

impl CheckReport {
    pub fn errors(&self) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .count()
    }
    pub fn warnings(&self) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == Severity::Warning)
            .count()
    }
}

/// Validates and lints the environments.
pub fn check(envs: &[Env<'_>], schemas: &SchemaSet, opts: &CheckOptions) -> CheckReport {
    let timings = std::env::var_os("FLATE_TIMINGS").is_some();
    let t0 = std::time::Instant::now();
    // Schemas and lints are independent: run them side by side.
    let (schema_out, lint_findings) = rayon::join(
        || {
            let mut findings = Vec::new();
            let mut validated = 0;
            let mut missing = schema::MissingKinds::default();
            if !opts.no_schemas {
                let outs: Vec<schema::EnvValidation> = envs
                    .par_iter()
                    .map(|env| schema::validate_env(env, schemas))
                    .collect();
                for (env, out) in envs.iter().zip(outs) {
                    validated += out.validated;
                    findings.extend(out.findings);
                    missing.merge(&env.name, out.missing);
                }
            }
            if timings {
                eprintln!("timing: schemas {:.1} ms", t0.elapsed().as_secs_f64() * 1e3);
            }
            (findings, validated, missing)
        },
        || {
            // Each environment's lints on a core of their own (in the
            // environments' order).
            let per_env: Vec<Vec<Finding>> = envs
                .par_iter()
                .map(|env| {
                    let mut findings = Vec::new();
                    lints::run_env(env, &mut findings);
                    talos::run_env(env, &mut findings);
                    findings
                })
                .collect();
            let mut findings: Vec<Finding> = per_env.into_iter().flatten().collect();
            lints::run_all(envs, &mut findings);
            if timings {
                eprintln!("timing: lints {:.1} ms", t0.elapsed().as_secs_f64() * 1e3);
            }
            findings
        },
    );
    let (mut findings, validated, missing) = schema_out;
    findings.extend(lint_findings);
    if !opts.no_schemas {
        for (api_version, kind, count, in_envs, origin) in missing.list() {
            findings.push(Finding {
                rule: "schema-missing",
                severity: if opts.strict {
                    Severity::Error
                } else {
                    Severity::Info
                },
                message: format!(
                    "no schema for {kind} {api_version} ({count} object{}): not validated; add one with --schema-dir or `flate schemas import`",
                    if count == 1 { "" } else { "s" }
                ),
                file: origin.as_ref().map(|(f, _)| f.clone()),
                line: origin.as_ref().map(|(_, l)| *l).unwrap_or(0),
                envs: in_envs,
                kustomization: None,
                object: None,
                path: None,
            });
        }
    }
    findings.retain(|f| !opts.disabled.contains(f.rule));
    let findings = finding::merge(findings);
    let no_schema = missing
        .list()
        .into_iter()
        .map(|(a, k, n, e, _)| (a, k, n, e))
        .collect();
    let mut skipped = Unchecked::default();
    for e in envs {
        let r = &e.rendered;
        skipped.kustomizations += r
            .kustomizations
            .iter()
            .filter(|k| k.status == crate::flux::Status::Skipped)
            .count();
        skipped.helmreleases += r
            .helmreleases
            .iter()
            .filter(|h| h.status == crate::flux::helm::HrStatus::Skipped)
            .count();
        skipped.resource_sets += r.not_expanded_offline().count();
    }
    CheckReport {
        envs: envs.iter().map(|e| e.name.clone()).collect(),
        findings,
        validated,
        no_schema,
        skipped,
    }
}
