//! Flux Operator ResourceSets: a YAML stream of ResourceSets and input
//! providers, each ResourceSet expanded twice. Nothing panics; the two
//! expansions agree; every object made carries the owner labels.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    flate_fuzz::resourceset_case(text);
});
