//! Flux post-build substitution: never panics, strict or not, and text
//! without `$` (or NUL) comes back unchanged.
#![no_main]
use libfuzzer_sys::fuzz_target;

fn lookup(name: &str) -> Option<String> {
    match name {
        "A" => Some("a".into()),
        "EMPTY" => Some(String::new()),
        "PATH" => Some("/usr/local/bin:/usr/bin".into()),
        "UNI" => Some("ünïcødé ✓".into()),
        "NUM" => Some("12345".into()),
        _ => None,
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for strict in [false, true] {
        if let Ok(out) = flate::flux::envsubst::substitute(text, &lookup, strict)
            && !text.bytes().any(|b| b == b'$' || b == 0)
        {
            assert_eq!(out.text, text);
        }
    }
});
