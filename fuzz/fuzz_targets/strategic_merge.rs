//! Strategic merge: an object and a patch (YAML, separated by a `#%%`
//! line). Merging never panics and its result prints as stable YAML.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Some((obj, patch)) = flate_fuzz::two_parts(text) else {
        return;
    };
    let (Ok(obj), Ok(patch)) = (flate::yaml::parse_one(obj), flate::yaml::parse_one(patch)) else {
        return;
    };
    if obj.as_map().is_none() || patch.as_map().is_none() {
        return;
    }
    if let Ok(Some(out)) = flate::kustomize::smp::merge(&obj, &patch) {
        flate_fuzz::assert_print_stable(&[out], "strategic merge");
    }
});
