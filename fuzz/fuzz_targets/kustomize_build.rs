//! The kustomization loader and build on an in-memory tree (see
//! `MemFs::from_tree_input`): never panics, and a successful build prints
//! as YAML that reads back (unless it holds a key `<<`).
#![no_main]
use libfuzzer_sys::fuzz_target;

use flate::kustomize::{BuildOptions, Kustomizer};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let fs = flate_fuzz::MemFs::from_tree_input(text);
    let k = Kustomizer::new(&fs, BuildOptions::default());
    if let Ok(m) = k.build(std::path::Path::new(flate_fuzz::TREE_ROOT)) {
        // A key `<<` kept by kyaml's rules (a quoted `"<<"` after a merge
        // key) prints plain, as kubectl prints it, and reads back as a
        // merge key.
        if m.resources
            .iter()
            .any(|r| flate_fuzz::has_merge_key_text(&r.obj))
        {
            return;
        }
        let out = flate::kustomize::build::to_yaml(&m);
        if let Ok(docs) = flate::yaml::parse_stream(&out) {
            let nodes: Vec<_> = docs.into_iter().map(|d| d.node).collect();
            let again = flate::yaml::stream_to_string(nodes.iter());
            let reparsed = flate::yaml::parse_stream(&again);
            assert!(
                reparsed.is_ok(),
                "build output does not read back:\n{again}"
            );
        } else {
            panic!("build output does not parse:\n{out}");
        }
    }
});
