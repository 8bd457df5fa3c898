//! `flate test [ks|hr|all] [ENV] [NAME]`

use clap::Args;

use flate::flux::Status;
use flate::flux::helm::HrStatus;

use super::common::{EnvArgs, SpecErrors, pick, render_env};
use super::diag;
use super::select::{self, Kind, SelectArgs};

#[derive(Args, Debug)]
pub struct TestArgs {
    /// [TYPE] [ENV] [NAME]: TYPE is ks, hr or all (the default); ENV may be
    /// left out with --path or when the repository has one environment.
    #[arg(num_args = 0..=3, value_name = "ARGS")]
    pub args: Vec<String>,
    #[command(flatten)]
    pub select: SelectArgs,
    #[command(flatten)]
    pub env: EnvArgs,
}

pub fn run(a: TestArgs) -> i32 {
    let (w, sel) = match select::rendering_words(&a.args, false, &a.env, &a.select) {
        Ok(p) => p,
        Err(d) => return d.fail(),
    };
    let scope = w.kind.unwrap_or(Kind::All);
    let (repo, env) = match pick(w.envs.first().map(String::as_str), &a.env) {
        Ok(p) => p,
        Err(c) => return c,
    };
    let mut r = match render_env(&repo, &env, &a.env, SpecErrors::Fatal) {
        Ok(r) => r,
        Err(c) => return c,
    };
    if let Err(d) = select::filter(&mut r, scope, &sel) {
        return d.fail();
    }
    let (mut pass, mut fail, mut skip) = (0, 0, 0);
    if scope != Kind::Hr {
        for k in &r.kustomizations {
            match k.status {
                Status::Rendered => {
                    pass += 1;
                    println!(
                        "PASS Kustomization {} ({})",
                        k.key(),
                        diag::plural(k.objects.len(), "object")
                    );
                }
                Status::Skipped => {
                    skip += 1;
                    println!("SKIPPED Kustomization {}: {}", k.key(), k.message);
                }
                Status::Failed => {
                    fail += 1;
                    println!("FAIL Kustomization {}: {}", k.key(), k.message);
                }
            }
        }
    }
    if scope != Kind::Ks {
        for h in &r.helmreleases {
            match h.status {
                HrStatus::Rendered => {
                    pass += 1;
                    println!(
                        "PASS HelmRelease {}/{} ({})",
                        h.namespace,
                        h.name,
                        diag::plural(h.objects.len(), "object")
                    );
                }
                HrStatus::Skipped => {
                    skip += 1;
                    println!(
                        "SKIPPED HelmRelease {}/{}: {}",
                        h.namespace, h.name, h.message
                    );
                }
                HrStatus::Failed => {
                    fail += 1;
                    println!("FAIL HelmRelease {}/{}: {}", h.namespace, h.name, h.message);
                }
            }
        }
    }
    println!("{pass} passed, {fail} failed, {skip} skipped");
    if fail > 0 { 1 } else { 0 }
}
