//! `flate test [ks|hr|all] ENV`

use clap::{Args, ValueEnum};

use flate::flux::Status;

use super::common::{EnvArgs, render};

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    Ks,
    Hr,
    All,
}

#[derive(Args, Debug)]
pub struct TestArgs {
    /// ks, hr or all, then ENV (`flate test production` means all).
    #[arg(required = true, num_args = 1..=2)]
    pub args: Vec<String>,
    #[command(flatten)]
    pub env: EnvArgs,
}

pub fn run(a: TestArgs) -> i32 {
    let (scope, env) = match a.args.as_slice() {
        [env] => (Scope::All, env.clone()),
        [s, env] => match Scope::from_str(s, true) {
            Ok(sc) => (sc, env.clone()),
            Err(_) => {
                eprintln!("error: the scope must be ks, hr or all, not '{s}'");
                return 2;
            }
        },
        _ => unreachable!("clap bounds the arguments"),
    };
    let r = match render(&env, &a.env) {
        Ok(r) => r,
        Err(c) => return c,
    };
    let (mut pass, mut fail, mut skip) = (0, 0, 0);
    if scope != Scope::Hr {
        for k in &r.kustomizations {
            match k.status {
                Status::Rendered => {
                    pass += 1;
                    println!(
                        "PASS Kustomization {} ({} objects)",
                        k.key(),
                        k.objects.len()
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
    if scope != Scope::Ks {
        for h in &r.helmreleases {
            if h.ok {
                pass += 1;
                println!("PASS HelmRelease {}/{}", h.namespace, h.name);
            } else {
                fail += 1;
                println!("FAIL HelmRelease {}/{}: {}", h.namespace, h.name, h.message);
            }
        }
    }
    println!("{pass} passed, {fail} failed, {skip} skipped");
    if fail > 0 { 1 } else { 0 }
}
