//! The Talos cross-checks of `flate talos check`, as part of `flate check`:
//! when an environment has a Talos spec (`kubernetes/clusters/ENV/talos.yaml`),
//! the spec is validated and the configs generated from it are compared with
//! the rendered Flux tree (Envoy NodePort, private CIDR, control-plane
//! endpoint, cluster name, Spegel ports).

use crate::talos;

use super::locate::{find_in_text, parse_path};
use super::{Env, Finding};

/// The findings of one environment (none when it has no Talos spec).
pub fn run_env(env: &Env<'_>, out: &mut Vec<Finding>) {
    let spec = talos::spec_path(&env.repo, &env.name);
    if !env.fs.is_file(&spec) {
        return;
    }
    let rel = env.rel(&spec);
    let text = match env.fs.read_to_string(&spec) {
        Ok(t) => t,
        Err(e) => {
            out.push(
                Finding::new("talos-spec-invalid", format!("cannot be read: {e}"))
                    .at(Some(rel), 0)
                    .env(&env.name),
            );
            return;
        }
    };
    let loaded = talos::load_str(&text, &rel);
    let tenv = match loaded {
        Ok(t) => t,
        Err(talos::Error::Spec { errors, .. }) => {
            for e in errors {
                let line = field_line(&text, &e.field);
                out.push(
                    Finding::new("talos-spec-invalid", format!("{}: {}", e.field, e.message))
                        .at(Some(rel.clone()), line)
                        .env(&env.name)
                        .path(e.field.clone()),
                );
            }
            return;
        }
        Err(talos::Error::Yaml { error, .. }) => {
            out.push(
                Finding::new(
                    "talos-spec-invalid",
                    format!("not valid YAML: {}", error.message),
                )
                .at(Some(rel), error.line)
                .env(&env.name),
            );
            return;
        }
        Err(e) => {
            out.push(
                Finding::new("talos-spec-invalid", e.to_string())
                    .at(Some(rel), 0)
                    .env(&env.name),
            );
            return;
        }
    };
    let objects = talos::render::objects(&env.rendered);
    for f in talos::check::run(&tenv, &objects) {
        if f.status != talos::check::Status::Fail {
            continue;
        }
        // The spec field the check compares, for the line.
        let field = match f.check {
            "envoy-nodeport" => Some("network.envoyNodePort"),
            "private-cidr" => Some("network.privateCidr"),
            "endpoint" => Some("network.vipOffset"),
            "cluster-name" => Some("cluster.name"),
            _ => None,
        };
        let line = field.map(|p| field_line(&text, p)).unwrap_or(0);
        let mut finding = Finding::new("talos-mismatch", format!("{}: {}", f.check, f.message))
            .at(Some(rel.clone()), line)
            .env(&env.name);
        if let Some(p) = field {
            finding = finding.path(p);
        }
        out.push(finding);
    }
}

/// The line of a dotted spec field (`nodes.workers[1].privateIp`), 0 when
/// it cannot be found.
fn field_line(text: &str, field: &str) -> usize {
    find_in_text(text, 1, &parse_path(field)).unwrap_or(0)
}
