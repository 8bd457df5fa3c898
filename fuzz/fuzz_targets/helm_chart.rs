//! Helm charts: a chart directory (and archived subcharts) from a tree
//! input (`flate_fuzz::ChartTree`), loaded and rendered. Nothing panics;
//! failures are errors with a message.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // One directory per process, emptied for each input.
    let dir = std::env::temp_dir().join(format!("flate-fuzz-chart-{}", std::process::id()));
    flate_fuzz::chart_case(text, &dir);
});
