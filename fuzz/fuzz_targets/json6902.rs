//! JSON 6902: an object (YAML) and a patch (YAML or JSON), separated by a
//! `#%%` line. Parsing and applying never panic; the result prints as
//! stable YAML.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Some((obj, patch)) = flate_fuzz::two_parts(text) else {
        return;
    };
    let Ok(ops) = flate::kustomize::patch::parse_json6902(patch) else {
        return;
    };
    let Ok(mut obj) = flate::yaml::parse_one(obj) else {
        return;
    };
    if obj.as_map().is_none() {
        return;
    }
    if flate::kustomize::patch::apply_json6902(&mut obj, &ops).is_ok() {
        flate_fuzz::assert_print_stable(&[obj], "json 6902");
    }
});
