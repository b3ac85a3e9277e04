//! The criterion group `peers`: argmend and the Rust crates a user could
//! pick instead, on the same inputs. See `benches/peers/README.md`.
//!
//! ```sh
//! cd benches/peers && cargo bench                  # ~5 minutes on 2 cores
//! cd benches/peers && cargo bench -- api_100k      # a criterion filter
//! ```
//!
//! Ids are `peers/{workload}_{variant}/{impl}` for one call per case and
//! `peers/stream_{workload}_{variant}/{impl}` for the 16-byte-chunk stream
//! with a snapshot after every chunk (argmend keeps state; every other crate
//! re-runs on each prefix). Throughput is the bytes of the input.
//!
//! Setup runs each implementation once on every case and prints whether its
//! output is the valid twin's value; an implementation that panics on a
//! workload is not timed on it. Not timed either (printed): a 10 MB
//! one-shot taking over 2 s, and a re-parsing stream pass taking over 1.5 s
//! (run.sh estimates those from every k-th prefix instead).

#[path = "../common/impls.rs"]
mod impls;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, SamplingMode, Throughput, criterion_main};
use serde_json::Value;

use argmend_peers::{CHUNK, Workload};
use impls::{Check, Impl, Kind};

/// The stream rows (as in harness/run.py).
const STREAMS: &[(&str, bool)] = &[
    ("tool_call_200b", true),
    ("tool_calls_100_400b", true),
    ("write_file_50k", true),
    ("api_100k", false),
    ("api_100k", true),
];
/// Longest one-shot pass benched on api_10m.
const ONESHOT_MAX: f64 = 2.0;
/// Longest re-parsing stream pass benched.
const STREAM_MAX: f64 = 1.5;

struct Case {
    text: String,
    want: Value,
}

fn cases(w: &Workload, malformed: bool) -> Vec<Case> {
    w.cases
        .iter()
        .map(|t| Case {
            text: String::from_utf8(if malformed {
                t.malformed.clone()
            } else {
                t.valid.clone()
            })
            .expect("fixtures are UTF-8"),
            want: serde_json::from_slice(&t.valid).expect("valid twin parses"),
        })
        .collect()
}

/// Checks `imp` on every case; prints and returns false when it panics.
fn checked(id: &str, imp: &Impl, cases: &[Case], stream: bool) -> bool {
    let checks: Vec<Check> = cases
        .iter()
        .map(|c| {
            if stream && imp.kind == Kind::Argmend {
                impls::check(
                    || Ok(impls::argmend_stream_text(c.text.as_bytes(), CHUNK)),
                    &c.want,
                )
                .0
            } else {
                impls::check(|| (imp.text)(&c.text), &c.want).0
            }
        })
        .collect();
    let right = checks.iter().filter(|c| **c == Check::Correct).count();
    if right < checks.len() {
        let worst = checks.iter().find(|c| **c != Check::Correct).unwrap();
        println!(
            "peers/{id}/{}: {right}/{} right (first other: {})",
            imp.name,
            checks.len(),
            worst.as_str()
        );
    }
    if checks.contains(&Check::Panic) {
        println!("peers/{id}/{}: panics, not timed", imp.name);
        return false;
    }
    true
}

fn oneshot_pass(run: fn(&str) -> Result<usize, String>, cases: &[Case]) -> usize {
    cases
        .iter()
        .map(|c| run(black_box(&c.text)).unwrap_or(1))
        .sum()
}

fn stream_pass(imp: &Impl, cases: &[Case]) -> usize {
    cases
        .iter()
        .map(|c| {
            if imp.kind == Kind::Argmend {
                impls::argmend_stream(black_box(c.text.as_bytes()), CHUNK)
            } else {
                impls::reparse_stream(imp.run, black_box(&c.text), 1)
            }
        })
        .sum()
}

/// The first positional argument (criterion's filter), when it is a plain
/// substring: setup (the checks, the size probes) is skipped for ids it
/// rules out. A filter with regex syntax turns this off.
fn filter() -> Option<String> {
    let arg = std::env::args().skip(1).find(|a| !a.starts_with('-'))?;
    let plain = arg
        .chars()
        .all(|c| c.is_alphanumeric() || "_/-".contains(c));
    plain.then_some(arg)
}

fn wanted(filter: &Option<String>, id: &str) -> bool {
    filter.as_ref().is_none_or(|f| id.contains(f.as_str()))
}

fn seconds(f: impl FnOnce() -> usize) -> f64 {
    let t = Instant::now();
    black_box(f());
    t.elapsed().as_secs_f64()
}

/// Sampling for a pass of about `secs`.
fn configure(group: &mut BenchmarkGroup<'_, WallTime>, secs: f64) {
    if secs > 0.05 {
        group.sample_size(10).sampling_mode(SamplingMode::Flat);
    } else {
        group.sample_size(20).sampling_mode(SamplingMode::Auto);
    }
}

fn peers(c: &mut Criterion) {
    std::panic::set_hook(Box::new(|_| {})); // the checks report panics
    let all = impls::all();
    let only = filter();
    let mut group = c.benchmark_group("peers");
    group
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));

    for w in argmend_peers::all() {
        for malformed in [false, true] {
            let variant = if malformed { "malformed" } else { "valid" };
            let cs = cases(&w, malformed);
            let id = format!("{}_{variant}", w.name);
            group.throughput(Throughput::Bytes(w.bytes(malformed) as u64));
            for imp in all.iter().filter(|i| impls::applies(i, malformed, false)) {
                if !wanted(&only, &format!("peers/{id}/{}", imp.name)) {
                    continue;
                }
                if !checked(&id, imp, &cs, false) {
                    continue;
                }
                let secs = seconds(|| oneshot_pass(imp.run, &cs));
                if secs > ONESHOT_MAX {
                    println!("peers/{id}/{}: {secs:.1} s a call, not timed", imp.name);
                    continue;
                }
                configure(&mut group, secs);
                let run = imp.run;
                group.bench_function(format!("{id}/{}", imp.name), |b| {
                    b.iter(|| oneshot_pass(run, &cs))
                });
            }
        }
    }

    for &(name, malformed) in STREAMS {
        let w = argmend_peers::by_name(name).expect("a workload");
        let variant = if malformed { "malformed" } else { "valid" };
        let cs = cases(&w, malformed);
        let id = format!("stream_{name}_{variant}");
        group.throughput(Throughput::Bytes(w.bytes(malformed) as u64));
        for imp in all.iter().filter(|i| impls::applies(i, malformed, true)) {
            if !wanted(&only, &format!("peers/{id}/{}", imp.name)) {
                continue;
            }
            if !checked(&id, imp, &cs, true) {
                continue;
            }
            let secs = if imp.kind == Kind::Argmend {
                seconds(|| stream_pass(imp, &cs))
            } else {
                // One call on the middle prefix × the prefix count, as run.sh estimates.
                let prefixes: usize = cs
                    .iter()
                    .map(|c| argmend_peers::prefix_ends(c.text.len()).count())
                    .sum();
                let middle = seconds(|| {
                    cs.iter()
                        .map(|c| (imp.run)(impls::middle_prefix(&c.text)).unwrap_or(1))
                        .sum()
                });
                middle * prefixes as f64
            };
            if secs > STREAM_MAX {
                println!("peers/{id}/{}: ≈{secs:.1} s a pass, not timed", imp.name);
                continue;
            }
            configure(&mut group, secs);
            group.bench_function(format!("{id}/{}", imp.name), |b| {
                b.iter(|| stream_pass(imp, &cs))
            });
        }
    }
    group.finish();
}

fn benches() {
    // ~190 benches: no plots and fewer resamples keep the group near 5 minutes.
    let mut c = Criterion::default()
        .without_plots()
        .nresamples(20_000)
        .configure_from_args();
    peers(&mut c);
}

criterion_main!(benches);
