//! Lists every listable Kubernetes kind k8s-openapi defines for the
//! Kubernetes minor version of the enabled `v1_*` feature (types with
//! `impl crate::ListableResource`), and writes `$OUT_DIR/kinds.rs`: one
//! `add::<Type>()` call per kind, and `K8S_VERSION`.

use std::path::{Path, PathBuf};

/// The `v1_*` module of the enabled feature.
fn k8s_module() -> String {
    let enabled: Vec<String> = (30..=40)
        .map(|v| format!("v1_{v}"))
        .filter(|f| std::env::var(format!("CARGO_FEATURE_{}", f.to_uppercase())).is_ok())
        .collect();
    assert!(
        enabled.len() == 1,
        "enable exactly one Kubernetes version feature (v1_33 ... v1_36), not {enabled:?}"
    );
    enabled[0].clone()
}

fn k8s_openapi_src(module: &str) -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let manifest = Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("Cargo.toml");
    let out = std::process::Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--locked", "--offline"])
        .arg("--manifest-path")
        .arg(&manifest)
        .output()
        .expect("cargo metadata");
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata JSON");
    let pkg = v["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "k8s-openapi")
        .expect("k8s-openapi in the dependency graph");
    Path::new(pkg["manifest_path"].as_str().unwrap())
        .parent()
        .unwrap()
        .join("src")
        .join(module)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

fn main() {
    let module = k8s_module();
    let src = k8s_openapi_src(&module);
    let mut files = Vec::new();
    walk(&src, &mut files);
    let mut calls = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for line in text.lines() {
            let Some(rest) = line.strip_prefix("impl crate::ListableResource for ") else {
                continue;
            };
            let ty = rest.trim_end_matches('{').trim();
            let rel = f.parent().unwrap().strip_prefix(&src).unwrap();
            let module: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            calls.push(format!(
                "    add::<k8s_openapi::{}::{ty}>(g);",
                module.join("::")
            ));
        }
    }
    assert!(
        calls.len() > 50,
        "found only {} kinds under {}",
        calls.len(),
        src.display()
    );
    let version = module.trim_start_matches('v').replace('_', ".");
    let code = format!(
        "/// The Kubernetes minor version generated.\npub const K8S_VERSION: &str = \"{version}\";\n/// Every listable kind of Kubernetes {version} in k8s-openapi ({} kinds).\npub fn all_kinds(g: &mut Gen) {{\n{}\n}}\n",
        calls.len(),
        calls.join("\n")
    );
    let out = Path::new(&std::env::var("OUT_DIR").unwrap()).join("kinds.rs");
    std::fs::write(out, code).unwrap();
    println!("cargo::rerun-if-changed=build.rs");
}
