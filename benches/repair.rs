//! Throughput of argmend against serde_json, on valid and malformed input,
//! one-shot and streamed. See `benches/README.md` for how to read the numbers.
//!
//! Bench ids are `{fixture}/{impl}_{mode}` (as in jiter's benches):
//! - `api_{1k,100k,1m,10m}/serde_json_ignored_any`: the baseline, serde_json
//!   validating the VALID document into `IgnoredAny` (no allocation of a tree).
//! - `api_*/argmend_valid`: `argmend::repair` on the same valid bytes (the
//!   fast path a well-behaved model hits: the text comes back borrowed).
//! - `api_*/argmend_malformed`: `argmend::repair` on the malformed twin.
//! - `stream_100k/*`: the 100 KB malformed twin fed in 16-byte chunks, with and
//!   without a snapshot after every chunk, against one-shot `repair`; and the
//!   valid twin (`*_valid`) the same way, against one-shot `repair` on it,
//!   also with the output forgotten once returned (`*_valid_unreturned`).
//! - `tool_call_200b/*`: a ~200-byte malformed tool call against serde_json
//!   on its valid twin: per-call overhead rather than throughput.
//! - `stream_linear/{10k,100k,1m}`: the malformed twin fed ONE byte at a time
//!   with a snapshot after every byte. Linear total cost (guarantee 6) shows
//!   as the same throughput at every size; a quadratic engine would lose 10×
//!   per step.

#[path = "fixtures.rs"]
mod fixtures;

use std::hint::black_box;
use std::time::Duration;

use argmend::{Options, Repairer, Retain, Verdict, repair};
use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use serde::de::IgnoredAny;
use serde_json::Value;

use fixtures::Twin;

/// Seed of every generated document (any fixed value will do).
const SEED: u64 = 0x5EED_1234;

/// The setup assertion: the valid document is valid JSON and comes back
/// byte for byte, and the malformed twin repairs to the same value.
fn check_twin(name: &str, twin: &Twin) {
    let want: Value = serde_json::from_slice(&twin.valid)
        .unwrap_or_else(|e| panic!("{name}: generated valid document does not parse: {e}"));
    let valid = repair(&twin.valid);
    assert_eq!(
        valid.verdict(),
        Verdict::Valid,
        "{name}: valid document not judged Valid"
    );
    assert_eq!(
        valid.text().as_bytes(),
        &twin.valid[..],
        "{name}: valid document changed"
    );
    let mended = repair(&twin.malformed);
    assert_eq!(
        mended.verdict(),
        Verdict::Repaired,
        "{name}: malformed twin not Repaired"
    );
    let got: Value = serde_json::from_str(mended.text())
        .unwrap_or_else(|e| panic!("{name}: repaired text does not parse: {e}"));
    assert!(
        got == want,
        "{name}: repair(malformed) differs in value from the valid twin"
    );
}

/// Feeds `input` in `chunk`-byte pieces; with `snapshots`, takes (and forces)
/// a snapshot after every chunk. Returns the final text length.
fn stream(input: &[u8], chunk: usize, snapshots: bool) -> usize {
    stream_retaining(input, chunk, snapshots, Retain::All)
}

/// [`stream`] with the output kept or forgotten once returned (the
/// JavaScript `Repairer` and the CLI's streams forget it).
fn stream_retaining(input: &[u8], chunk: usize, snapshots: bool, retain: Retain) -> usize {
    let mut repairer = Repairer::new(Options::default().retain(retain));
    let mut committed = 0;
    for piece in input.chunks(chunk) {
        committed += repairer.feed(piece).expect("no limits are set").len();
        if snapshots {
            let snap = repairer.snapshot();
            black_box(snap.len());
            black_box(snap.len());
        }
    }
    black_box(committed);
    repairer.finish().expect("no limits are set").text().len()
}

fn api_group(c: &mut Criterion, name: &str, size: usize) {
    let twin = fixtures::api_doc(size, SEED);
    check_twin(name, &twin);

    let mut group = c.benchmark_group(name);
    if size >= 10_000_000 {
        // ~0.1–0.2 s per iteration: ten flat samples, one iteration each.
        group.sample_size(10).sampling_mode(SamplingMode::Flat);
        group
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(4));
    } else if size >= 1_000_000 {
        group.sample_size(20).sampling_mode(SamplingMode::Flat);
        group
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(3));
    }

    group.throughput(Throughput::Bytes(twin.valid.len() as u64));
    group.bench_function("serde_json_ignored_any", |b| {
        b.iter(|| serde_json::from_slice::<IgnoredAny>(black_box(&twin.valid)).unwrap())
    });
    group.bench_function("argmend_valid", |b| {
        b.iter(|| repair(black_box(&twin.valid)).text().len())
    });
    group.throughput(Throughput::Bytes(twin.malformed.len() as u64));
    group.bench_function("argmend_malformed", |b| {
        b.iter(|| repair(black_box(&twin.malformed)).text().len())
    });
    group.finish();
}

fn api(c: &mut Criterion) {
    api_group(c, "api_1k", 1_000);
    api_group(c, "api_100k", 100_000);
    api_group(c, "api_1m", 1_000_000);
    api_group(c, "api_10m", 10_000_000);
}

fn stream_100k(c: &mut Criterion) {
    const CHUNK: usize = 16;
    let twin = fixtures::api_doc(100_000, SEED);
    check_twin("stream_100k", &twin);
    // Setup assertion: streaming gives the one-shot outcome.
    let oneshot = repair(&twin.malformed);
    let mut repairer = Repairer::new(Options::default());
    let mut streamed = String::new();
    for piece in twin.malformed.chunks(CHUNK) {
        streamed.push_str(repairer.feed(piece).unwrap());
        let snap = repairer.snapshot().to_string();
        assert!(
            snap.starts_with(&streamed),
            "stream_100k: snapshot lost committed output"
        );
    }
    let chunked = repairer.finish().unwrap();
    assert_eq!(
        chunked.text(),
        oneshot.text(),
        "stream_100k: chunked text differs"
    );
    assert_eq!(
        chunked.fixes(),
        oneshot.fixes(),
        "stream_100k: chunked fixes differ"
    );

    let mut group = c.benchmark_group("stream_100k");
    // ~1.3 ms per iteration: 50 samples fit in the 3 s measurement.
    group.sample_size(50);
    group.throughput(Throughput::Bytes(twin.malformed.len() as u64));
    group.bench_function("argmend_chunked16_snapshot", |b| {
        b.iter(|| stream(black_box(&twin.malformed), CHUNK, true))
    });
    group.bench_function("argmend_chunked16", |b| {
        b.iter(|| stream(black_box(&twin.malformed), CHUNK, false))
    });
    group.bench_function("argmend_oneshot", |b| {
        b.iter(|| repair(black_box(&twin.malformed)).text().len())
    });
    // Valid input streamed is read by the stream's prelude (`repair/prelude/`).
    group.throughput(Throughput::Bytes(twin.valid.len() as u64));
    group.bench_function("argmend_chunked16_snapshot_valid", |b| {
        b.iter(|| stream(black_box(&twin.valid), CHUNK, true))
    });
    group.bench_function("argmend_chunked16_snapshot_valid_unreturned", |b| {
        b.iter(|| stream_retaining(black_box(&twin.valid), CHUNK, true, Retain::Unreturned))
    });
    group.bench_function("argmend_oneshot_valid", |b| {
        b.iter(|| repair(black_box(&twin.valid)).text().len())
    });
    group.finish();
}

fn tool_call_200b(c: &mut Criterion) {
    let twin = fixtures::tool_call();
    check_twin("tool_call_200b", &twin);

    let mut group = c.benchmark_group("tool_call_200b");
    group.throughput(Throughput::Bytes(twin.valid.len() as u64));
    group.bench_function("serde_json_ignored_any", |b| {
        b.iter(|| serde_json::from_slice::<IgnoredAny>(black_box(&twin.valid)).unwrap())
    });
    group.bench_function("argmend_valid", |b| {
        b.iter(|| repair(black_box(&twin.valid)).text().len())
    });
    group.throughput(Throughput::Bytes(twin.malformed.len() as u64));
    group.bench_function("argmend_malformed", |b| {
        b.iter(|| repair(black_box(&twin.malformed)).text().len())
    });
    group.finish();
}

fn stream_linear(c: &mut Criterion) {
    let mut group = c.benchmark_group("stream_linear");
    group.sample_size(10).sampling_mode(SamplingMode::Flat);
    for (name, size) in [("10k", 10_000), ("100k", 100_000), ("1m", 1_000_000)] {
        let twin = fixtures::api_doc(size, SEED);
        group.throughput(Throughput::Bytes(twin.malformed.len() as u64));
        group.bench_function(format!("argmend_chunked1_snapshot_{name}"), |b| {
            b.iter(|| stream(black_box(&twin.malformed), 1, true))
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = api, stream_100k, tool_call_200b, stream_linear
}
criterion_main!(benches);
