//! Fuzzes the analyser: any bytes, taken as (lossy) UTF-8 source, with either origin, must
//! be assessed without a panic, and the verdict must hold together (level = highest
//! finding severity, positions 1-based). `cordon::assessor::assess` is all it calls.
#![no_main]

use cordon::protocol::assessor::{Level, Origin};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let origin = if first & 1 == 0 {
        Origin::External
    } else {
        Origin::SelfWritten
    };
    let source = String::from_utf8_lossy(rest);
    let assessment = cordon::assessor::assess(&source, origin);
    let highest = assessment
        .findings
        .iter()
        .map(|f| f.severity)
        .max()
        .unwrap_or(Level::Low);
    assert_eq!(assessment.level, highest);
    for finding in &assessment.findings {
        assert!(finding.line >= 1 && finding.column >= 1, "{finding:?}");
    }
});
