//! `flate build --out-dir` replaces the directory as a whole: a build
//! killed (SIGKILL) at a random moment leaves the directory exactly as the
//! previous run wrote it or exactly as the new one would have, never a
//! mix; the next complete run cleans what the killed ones left.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const APPS: usize = 16;
const KEYS: usize = 300;
const KILLS: usize = 12;

/// A repository of APPS Flux Kustomizations, each rendering a ConfigMap
/// of KEYS keys whose values name `variant`.
fn repo(root: &Path, variant: &str) -> PathBuf {
    let d = root.join(format!("repo-{variant}"));
    let clusters = d.join("kubernetes/clusters/test");
    std::fs::create_dir_all(&clusters).unwrap();
    let mut list = String::from(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n",
    );
    for i in 0..APPS {
        list.push_str(&format!("  - ks-{i}.yaml\n"));
        std::fs::write(
            clusters.join(format!("ks-{i}.yaml")),
            format!(
                "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: app-{i}\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ./kubernetes/apps/app-{i}\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n"
            ),
        )
        .unwrap();
        let app = d.join(format!("kubernetes/apps/app-{i}"));
        std::fs::create_dir_all(&app).unwrap();
        let mut cm = format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings-{i}\n  namespace: default\ndata:\n"
        );
        for k in 0..KEYS {
            cm.push_str(&format!(
                "  key-{k:04}: variant {variant} value {k} of app {i}\n"
            ));
        }
        std::fs::write(app.join("configmap.yaml"), cm).unwrap();
    }
    std::fs::write(clusters.join("kustomization.yaml"), list).unwrap();
    d
}

fn build(repo: &Path, out: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_flate"));
    c.args(["build", "test", "--out-dir"])
        .arg(out)
        .arg("--repo")
        .arg(repo)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    c
}

type Snapshot = BTreeMap<String, Vec<u8>>;

fn snapshot(dir: &Path) -> Snapshot {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

/// A small deterministic generator (xorshift), seeded from the clock; the
/// seed is printed so a failure can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn a_killed_build_leaves_the_out_dir_entirely_old_or_entirely_new() {
    let t = tempfile::tempdir().unwrap();
    let repos = [repo(t.path(), "A"), repo(t.path(), "B")];
    // Reference renders, and how long a whole run takes.
    let mut refs: Vec<Snapshot> = Vec::new();
    let mut took = Duration::ZERO;
    for (i, r) in repos.iter().enumerate() {
        let dir = t.path().join(format!("ref-{i}"));
        let start = Instant::now();
        assert!(build(r, &dir).status().unwrap().success());
        took = took.max(start.elapsed());
        let s = snapshot(&dir);
        assert_eq!(s.len(), APPS + 1, "one file per Kustomization");
        refs.push(s);
    }
    assert_ne!(refs[0], refs[1]);

    let out = t.path().join("out");
    assert!(build(&repos[0], &out).status().unwrap().success());
    let mut state = 0;
    let seed = std::env::var("FLATE_KILL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        });
    eprintln!("FLATE_KILL_SEED={seed} (a whole run takes {took:?})");
    let mut rng = Rng(seed);
    let (mut old, mut new) = (0, 0);
    for i in 0..KILLS {
        let want = 1 - state;
        let mut child = build(&repos[want], &out).spawn().unwrap();
        // Anywhere from the start to just past the end of a typical run,
        // weighted towards the end, where the files are written.
        let frac = 0.3 + (rng.next() % 1000) as f64 / 1000.0 * 0.9;
        std::thread::sleep(took.mul_f64(frac));
        let _ = child.kill();
        let _ = child.wait();
        let now = snapshot(&out);
        if now == refs[state] {
            old += 1;
        } else if now == refs[want] {
            new += 1;
            state = want;
        } else {
            let mixed: Vec<&String> = now
                .iter()
                .filter(|(k, v)| refs[0].get(*k) != Some(v) && refs[1].get(*k) != Some(v))
                .map(|(k, _)| k)
                .collect();
            panic!(
                "kill {i} (seed {seed}) left a directory that is neither the old nor the new render; files matching neither: {mixed:?}; names: {:?}",
                now.keys().collect::<Vec<_>>()
            );
        }
    }
    eprintln!("{KILLS} kills: {old} left the old render, {new} the new one");
    // A complete run cleans every leftover of the killed ones.
    assert!(build(&repos[0], &out).status().unwrap().success());
    assert_eq!(snapshot(&out), refs[0]);
    let siblings: Vec<String> = std::fs::read_dir(t.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".out."))
        .collect();
    assert!(siblings.is_empty(), "leftovers: {siblings:?}");
}
