//! Findings and the rules that produce them.

use std::path::PathBuf;

use crate::resource::Resource;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
    /// Reported, never fails (kinds without a schema).
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
    /// SARIF `level`.
    pub fn sarif_level(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "note",
        }
    }
}

/// A rule: stable id, default severity, one-line summary.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    pub id: &'static str,
    pub severity: Severity,
    pub summary: &'static str,
}

/// Every rule `flate check` knows, in the order the README lists them.
pub const RULES: &[Rule] = &[
    Rule {
        id: "schema-invalid",
        severity: Severity::Error,
        summary: "an object or kustomization file does not match its JSON Schema",
    },
    Rule {
        id: "schema-missing",
        severity: Severity::Info,
        summary: "no schema for a kind: its objects are not validated (an error with --strict)",
    },
    Rule {
        id: "render-failed",
        severity: Severity::Error,
        summary: "a Kustomization or HelmRelease could not be rendered, or a ResourceSet the Flux Operator would fail",
    },
    Rule {
        id: "pin-digest-lost",
        severity: Severity::Error,
        summary: "a patch sets an OCIRepository ref.tag without ref.digest while the base has a digest, which wins",
    },
    Rule {
        id: "pin-digest-mismatch",
        severity: Severity::Error,
        summary: "the same chart URL (or image) and tag pinned to different digests",
    },
    Rule {
        id: "unresolved-variable",
        severity: Severity::Error,
        summary: "a ${VAR} substituted with an empty string (a warning when an optional source is absent offline)",
    },
    Rule {
        id: "dependson-missing",
        severity: Severity::Error,
        summary: "a dependsOn (of a Kustomization, HelmRelease or ResourceSet) names a Flux object that does not exist",
    },
    Rule {
        id: "dependson-cycle",
        severity: Severity::Error,
        summary: "dependsOn entries form a cycle",
    },
    Rule {
        id: "duplicate-object",
        severity: Severity::Error,
        summary: "two Kustomizations or HelmReleases of one environment produce the same object in one cluster (a warning when two Kustomizations apply it identically)",
    },
    Rule {
        id: "chart-source-missing",
        severity: Severity::Error,
        summary: "a HelmRelease's chart source (chartRef or chart.spec.sourceRef) is not rendered",
    },
    Rule {
        id: "valuesfrom-missing",
        severity: Severity::Error,
        summary: "a HelmRelease valuesFrom ConfigMap/Secret (or its key) does not exist",
    },
    Rule {
        id: "substitutefrom-bootstrap",
        severity: Severity::Warning,
        summary: "a postBuild.substituteFrom source applied only by the Kustomization itself or by one that waits for it: an empty cluster needs it created by hand",
    },
    Rule {
        id: "sops-decryption-missing",
        severity: Severity::Error,
        summary: "a Kustomization applies a SOPS-encrypted Secret without spec.decryption: Flux fails it whole",
    },
    Rule {
        id: "targetnamespace-mismatch",
        severity: Severity::Error,
        summary: "a Kustomization's targetNamespace differs from the namespace overlay that lists it",
    },
    Rule {
        id: "patch-target-unmatched",
        severity: Severity::Error,
        summary: "a Flux spec.patches target names no rendered object (kustomize ignores it silently)",
    },
    Rule {
        id: "patch-overrides-value",
        severity: Severity::Warning,
        summary: "a Flux spec.patches strategic-merge patch for many objects (no name in its target) replaces a value an object's own file writes (the file's value is silently lost)",
    },
    Rule {
        id: "kustomize-patch-unmatched",
        severity: Severity::Error,
        summary: "a kustomization `patches`/`patchesJson6902` target selects no object (kustomize ignores it silently)",
    },
    Rule {
        id: "talos-spec-invalid",
        severity: Severity::Error,
        summary: "the environment's Talos spec (kubernetes/clusters/ENV/talos.yaml) does not validate",
    },
    Rule {
        id: "talos-mismatch",
        severity: Severity::Error,
        summary: "the Talos configs generated from the spec disagree with the rendered Flux tree (NodePort, CIDR, endpoint)",
    },
    Rule {
        id: "flux-api-removed",
        severity: Severity::Warning,
        summary: "a Flux object in an API version Flux no longer serves (an error when the environment runs a Flux that refuses it)",
    },
    Rule {
        id: "image-unpinned",
        severity: Severity::Warning,
        summary: "a container image with no tag, or `latest`, and no digest",
    },
];

/// The rule with id `id`.
pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

/// An object a finding is about.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ObjectRef {
    pub api_version: String,
    pub kind: String,
    pub namespace: String,
    pub name: String,
}

impl ObjectRef {
    pub fn of(r: &Resource) -> ObjectRef {
        ObjectRef {
            api_version: r.api_version().to_string(),
            kind: r.kind().to_string(),
            namespace: r.namespace().to_string(),
            name: r.name().to_string(),
        }
    }
}

impl std::fmt::Display for ObjectRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.namespace.is_empty() {
            write!(f, "{} {}", self.kind, self.name)
        } else {
            write!(f, "{} {}/{}", self.kind, self.namespace, self.name)
        }
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub rule: &'static str,
    pub severity: Severity,
    pub message: String,
    /// Relative to the repository root.
    pub file: Option<PathBuf>,
    /// 1-based; 0 when unknown.
    pub line: usize,
    pub envs: Vec<String>,
    /// `namespace/name` of the Flux Kustomization that produced the object.
    pub kustomization: Option<String>,
    pub object: Option<ObjectRef>,
    /// The failing field, as a JSON path (`spec.template.spec.containers[0].image`).
    pub path: Option<String>,
}

impl Finding {
    /// A finding with the rule's default severity.
    pub fn new(rule_id: &'static str, message: impl Into<String>) -> Finding {
        Finding {
            rule: rule_id,
            severity: rule(rule_id).map(|r| r.severity).unwrap_or(Severity::Error),
            message: message.into(),
            file: None,
            line: 0,
            envs: Vec::new(),
            kustomization: None,
            object: None,
            path: None,
        }
    }
    pub fn severity(mut self, s: Severity) -> Finding {
        self.severity = s;
        self
    }
    pub fn at(mut self, file: Option<PathBuf>, line: usize) -> Finding {
        self.file = file;
        self.line = line;
        self
    }
    pub fn env(mut self, env: &str) -> Finding {
        self.envs = vec![env.to_string()];
        self
    }
    pub fn ks(mut self, ks: impl Into<String>) -> Finding {
        self.kustomization = Some(ks.into());
        self
    }
    pub fn object(mut self, r: &Resource) -> Finding {
        self.object = Some(ObjectRef::of(r));
        self
    }
    pub fn path(mut self, p: impl Into<String>) -> Finding {
        self.path = Some(p.into());
        self
    }
    /// `file:line` or `file` or `-`.
    pub fn location(&self) -> String {
        match (&self.file, self.line) {
            (Some(f), l) if l > 0 => format!("{}:{l}", f.display()),
            (Some(f), _) => f.display().to_string(),
            _ => "-".into(),
        }
    }
}

/// Merges findings that differ only in their environment (the same file
/// and message seen in production and staging), and sorts them by file,
/// line, rule.
pub fn merge(findings: Vec<Finding>) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::new();
    for f in findings {
        if let Some(prev) = out.iter_mut().find(|p| {
            p.rule == f.rule
                && p.file == f.file
                && p.line == f.line
                && p.message == f.message
                && p.path == f.path
                && p.object == f.object
        }) {
            for e in f.envs {
                if !prev.envs.contains(&e) {
                    prev.envs.push(e);
                }
            }
            if prev.severity > f.severity {
                prev.severity = f.severity;
            }
            continue;
        }
        out.push(f);
    }
    for f in out.iter_mut() {
        f.envs.sort();
    }
    out.sort_by(|a, b| {
        (a.file.is_none(), &a.file, a.line, a.rule, &a.message).cmp(&(
            b.file.is_none(),
            &b.file,
            b.line,
            b.rule,
            &b.message,
        ))
    });
    out
}
