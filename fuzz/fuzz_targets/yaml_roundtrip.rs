//! YAML parser and writer: parsing never panics, and whatever parses prints
//! as YAML that parses again and prints the same.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // sigs.k8s.io/yaml reading (kustomization files, JSON patches).
    let _ = flate::yaml::parse::parse_stream_json_keys(text);
    let Ok(docs) = flate::yaml::parse_stream(text) else {
        return;
    };
    let nodes: Vec<_> = docs.into_iter().map(|d| d.node).collect();
    flate_fuzz::assert_print_stable(&nodes, "yaml");
});
