//! Go templates with Helm's functions: a template and its values (YAML,
//! after a `#%%` line). Parsing never panics or overflows the stack, and
//! neither does executing; errors print as Helm prints them.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (tpl, values) = flate_fuzz::two_parts(text).unwrap_or((text, ""));
    flate_fuzz::template_case(tpl, values);
});
