//! Lists every listable Kubernetes kind k8s-openapi defines for the pinned
//! Kubernetes minor version (types with `impl crate::ListableResource`),
//! and writes `$OUT_DIR/kinds.rs`: one `add::<Type>()` call per kind.

use std::path::{Path, PathBuf};

/// Must match the `v1_*` feature of k8s-openapi in Cargo.toml.
const K8S_MODULE: &str = "v1_35";

fn k8s_openapi_src() -> PathBuf {
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
        .join(K8S_MODULE)
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
    let src = k8s_openapi_src();
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
    let code = format!(
        "/// Every listable kind of Kubernetes {K8S_MODULE} in k8s-openapi ({} kinds).\npub fn all_kinds(g: &mut Gen) {{\n{}\n}}\n",
        calls.len(),
        calls.join("\n")
    );
    let out = Path::new(&std::env::var("OUT_DIR").unwrap()).join("kinds.rs");
    std::fs::write(out, code).unwrap();
    println!("cargo::rerun-if-changed=build.rs");
}
