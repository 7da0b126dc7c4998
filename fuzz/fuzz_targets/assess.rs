//! Fuzzes the analyser: any bytes, taken as (lossy) UTF-8 source, with either origin, must
//! be assessed without a panic, and the verdict must hold together (level = highest
//! finding severity or what the score reaches, positions 1-based). Calls only
//! `cordon::assessor::assess`. How to run it: fuzz/Cargo.toml.
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
    // The level is the highest finding's, raised by the score's thresholds.
    let by_score = cordon::assessor::Policy::defaults().level_for_score(assessment.score);
    assert_eq!(assessment.level, highest.max(by_score));
    for finding in &assessment.findings {
        assert!(finding.line >= 1 && finding.column >= 1, "{finding:?}");
    }
});
