//! In-process assessment speed: criterion timings for programs of 20, 50 and 200 lines
//! (realistic code from the corpus, and a dense generated 200-line program), then p50/p99
//! over many single assessments, which is what the targets are stated in
//! (p50 <= 100 us, p99 <= 1 ms up to 200 lines).
//!
//! Run: `cargo bench --bench assessor` (add `-- --quick` for a shorter run).
//! Uses the `cordon` binary's allocator (mimalloc), so the figures are the service's.

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use cordon::assessor::assess;
use cordon::protocol::assessor::Origin;
use criterion::{BenchmarkId, Criterion, Throughput};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus");

/// Corpus files of one family in name order, each as its source text.
fn corpus_files(family: &str) -> Vec<String> {
    let mut paths: Vec<_> = std::fs::read_dir(Path::new(CORPUS).join(family))
        .expect("corpus family directory")
        .map(|e| e.expect("entry").path())
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| std::fs::read_to_string(p).expect("corpus file"))
        .collect()
}

/// At most `lines` lines of realistic code: whole corpus programs, benign interleaved
/// with risky ones (so the rule families are exercised), as many as fit.
fn realistic(lines: usize) -> String {
    let benign = corpus_files("benign");
    let risky: Vec<String> = [
        "reverse_shell",
        "exfiltration",
        "decode_execute",
        "persistence",
    ]
    .iter()
    .flat_map(|f| corpus_files(f))
    .collect();
    let mut out = String::new();
    let programs = benign
        .iter()
        .zip(risky.iter().cycle())
        .flat_map(|(b, r)| [b, r]);
    for program in programs {
        let room = lines.saturating_sub(out.lines().count() + 1);
        if program.lines().count() <= room {
            out.push_str(program);
            out.push('\n');
        }
    }
    out
}

/// The dense ~200-line program the README's assessor figures were taken on (data file
/// shared by every benchmark of the assessor).
fn dense_two_hundred() -> String {
    include_str!("programs/dense_200.py").to_string()
}

fn inputs() -> Vec<(String, String)> {
    vec![
        ("20_lines".to_string(), realistic(20)),
        ("50_lines".to_string(), realistic(50)),
        ("200_lines".to_string(), realistic(200)),
        ("200_lines_dense".to_string(), dense_two_hundred()),
    ]
}

fn bench_sizes(c: &mut Criterion, inputs: &[(String, String)]) {
    let mut group = c.benchmark_group("assess");
    for (name, source) in inputs {
        group.throughput(Throughput::Bytes(source.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(name), source, |b, source| {
            b.iter(|| assess(black_box(source), Origin::External))
        });
    }
    group.finish();
}

/// p50 and p99 of single assessments, each timed on its own.
fn print_percentiles(inputs: &[(String, String)], rounds: usize) {
    println!("\nsingle-assessment latency over {rounds} runs each:");
    for (name, source) in inputs {
        for _ in 0..rounds / 10 {
            black_box(assess(source, Origin::External));
        }
        let mut times: Vec<Duration> = (0..rounds)
            .map(|_| {
                let start = Instant::now();
                black_box(assess(black_box(source), Origin::External));
                start.elapsed()
            })
            .collect();
        times.sort_unstable();
        let at = |q: f64| times[((rounds as f64 * q) as usize).min(rounds - 1)];
        println!(
            "  {name:<16} {:>4} lines  p50 {:>8.1?}  p99 {:>8.1?}  max {:>8.1?}",
            source.lines().count(),
            at(0.50),
            at(0.99),
            times[rounds - 1]
        );
    }
}

/// p50 of ruff's parse alone, the floor under any assessment of the same program.
fn print_parse_floor(inputs: &[(String, String)], rounds: usize) {
    println!("\nruff's parse alone (the floor under the assessment), {rounds} runs each:");
    for (name, source) in inputs {
        let mut times: Vec<Duration> = (0..rounds)
            .map(|_| {
                let start = Instant::now();
                black_box(ruff_python_parser::parse_unchecked_source(
                    black_box(source),
                    ruff_python_ast::PySourceType::Python,
                ));
                start.elapsed()
            })
            .collect();
        times.sort_unstable();
        println!("  {name:<16} p50 {:>8.1?}", times[rounds / 2]);
    }
}

fn main() {
    let inputs = inputs();
    let mut criterion = Criterion::default().configure_from_args();
    bench_sizes(&mut criterion, &inputs);
    criterion.final_summary();
    // `cargo test --all-targets` runs each benchmark once (criterion's test mode); the
    // percentiles below are for `cargo bench` only.
    if !std::env::args().any(|arg| arg == "--bench") {
        return;
    }
    let rounds = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5_000);
    print_percentiles(&inputs, rounds);
    print_parse_floor(&inputs, rounds);
}
