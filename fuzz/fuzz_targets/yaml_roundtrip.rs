//! YAML parser and writer: parsing never panics, the quick reader of simple
//! documents agrees with the event parser, and whatever parses prints as
//! YAML that parses again and prints the same.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // The quick reader of simple documents reads what the event parser
    // reads, metadata included.
    if let Some(m) = flate::yaml::fast::mismatch(text) {
        panic!("quick reader and event parser disagree: {m}");
    }
    // sigs.k8s.io/yaml reading (kustomization files, JSON patches).
    let _ = flate::yaml::parse::parse_stream_json_keys(text);
    let Ok(docs) = flate::yaml::parse_stream(text) else {
        return;
    };
    let nodes: Vec<_> = docs.into_iter().map(|d| d.node).collect();
    flate_fuzz::assert_print_stable(&nodes, "yaml");
});
