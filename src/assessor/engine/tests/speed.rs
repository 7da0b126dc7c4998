//! Timing helpers (ignored by default; run with --release --ignored).

use super::*;

/// The dense ~200-line program the README's assessor figures were taken on (data file
/// shared by every benchmark of the assessor).
pub fn two_hundred_lines() -> String {
    include_str!("../../../../benches/programs/dense_200.py").to_string()
}

#[test]
#[ignore = "timing; run with --release --ignored"]
fn two_hundred_lines_timing() {
    // Prints p50/p90 of assessing a 200-line program (ROUNDS rounds, default 200).
    let src = two_hundred_lines();
    assert!(src.lines().count() >= 190, "{}", src.lines().count());
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let mut times: Vec<u128> = (0..rounds)
        .map(|_| {
            let start = std::time::Instant::now();
            std::hint::black_box(assess(&src, Origin::External));
            start.elapsed().as_micros()
        })
        .collect();
    times.sort_unstable();
    println!(
        "p50 {} us, p90 {} us",
        times[rounds / 2],
        times[rounds * 9 / 10]
    );
}

#[test]
#[ignore = "timing; run with --release --ignored"]
fn phase_timing() {
    // Prints the time of each pipeline phase on the 200-line program.
    let src = two_hundred_lines();
    let rounds = 100u32;
    let start = std::time::Instant::now();
    for _ in 0..rounds {
        std::hint::black_box(crate::assessor::engine::parser::parse(&src));
    }
    println!("parse {:?}", start.elapsed() / rounds);
    let module = crate::assessor::engine::parser::parse(&src);
    let start = std::time::Instant::now();
    for _ in 0..rounds {
        std::hint::black_box(
            crate::assessor::engine::input_limits::parsed_nesting_within_limit(&module),
        );
    }
    println!("nesting check {:?}", start.elapsed() / rounds);
    let start = std::time::Instant::now();
    for _ in 0..rounds {
        let mut scanner = crate::assessor::engine::scan::Scanner::new(
            crate::assessor::Policy::defaults().compiled(),
        );
        scanner.scan_block(module.body());
        std::hint::black_box(scanner.hits.list.len());
    }
    println!("scan {:?}", start.elapsed() / rounds);
}
