//! `@json get` of one deep field from a ~20 MB document, against serde_json
//! building the whole `Value` and then doing the same lookup. See
//! `benches/README.md`; `benches/jq.sh` times jq on the same file.
//!
//! Bench ids are `{fixture}/{impl}_{mode}`:
//! - `deep20m/argmend_get`: `tools::json::get` of
//!   `summary.build.stages[-1].result.exit_code`, a field placed after the
//!   20 MB `records` array (the worst case: the whole array is skipped).
//! - `deep20m/argmend_get_front`: `records[3].id`, near the start (the walk
//!   stops there; the rest is never read).
//! - `deep20m/serde_json_value_get`: `serde_json::from_slice::<Value>` then
//!   `Value::pointer` to the same field (the route the issue compares with).
//! - `deep20m/serde_json_ignored_any`: serde_json validating the bytes without
//!   building anything: the floor for any reader that looks at every byte.

#[path = "fixtures.rs"]
mod fixtures;

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use argmend::tools::Workspace;
use argmend::tools::json::{Source, get};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde::de::IgnoredAny;
use serde_json::Value;

const SEED: u64 = 0x5EED_1234;
const DEEP: &str = "summary.build.stages[-1].result.exit_code";
const POINTER: &str = "/summary/build/stages/1/result/exit_code";

/// `{"records": <~20 MB API response>, "summary": {…}}`, just under 20 MB.
fn document() -> String {
    let api = fixtures::api_doc(20 * 1000 * 1000 - 400, SEED).valid;
    let mut doc = String::with_capacity(api.len() + 400);
    doc.push_str("{\"records\": ");
    doc.push_str(std::str::from_utf8(&api).expect("fixtures are UTF-8"));
    doc.push_str(
        ", \"summary\": {\"build\": {\"stages\": [{\"name\": \"test\", \"result\": {\"exit_code\": 0}}, \
         {\"name\": \"deploy\", \"result\": {\"exit_code\": 12345678901234567890, \"log\": \"ok\"}}]}}}",
    );
    doc
}

/// Where `benches/jq.sh` finds the same bytes.
fn fixture_path() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"),
        PathBuf::from,
    );
    target.join("bench-data").join("json_deep20m.json")
}

fn bench_get(c: &mut Criterion) {
    let doc = document();
    assert!(doc.len() <= 20 * 1024 * 1024, "{} bytes", doc.len());
    let path = fixture_path();
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = std::fs::write(&path, &doc);
    let workspace = Workspace::new(std::env::temp_dir()).expect("temp dir");

    // Setup assertions: both routes give the same exact answer.
    let ours = get(&workspace, Source::Text(&doc), DEEP).expect("get");
    assert_eq!(ours.matches()[0].json, "12345678901234567890");
    let value: Value = serde_json::from_slice(doc.as_bytes()).expect("valid");
    assert_eq!(
        value.pointer(POINTER).map(ToString::to_string).as_deref(),
        Some("12345678901234567890")
    );
    drop(value);

    let mut group = c.benchmark_group("deep20m");
    group.throughput(Throughput::Bytes(doc.len() as u64));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(8));
    group.bench_function("argmend_get", |b| {
        b.iter(|| get(&workspace, Source::Text(black_box(&doc)), DEEP).expect("get"));
    });
    group.bench_function("argmend_get_front", |b| {
        b.iter(|| {
            get(
                &workspace,
                Source::Text(black_box(&doc)),
                "records.data[3].id",
            )
            .expect("get")
        });
    });
    group.bench_function("serde_json_value_get", |b| {
        b.iter(|| {
            let value: Value = serde_json::from_slice(black_box(doc.as_bytes())).expect("valid");
            value.pointer(POINTER).map(ToString::to_string)
        });
    });
    group.bench_function("serde_json_ignored_any", |b| {
        b.iter(|| serde_json::from_slice::<IgnoredAny>(black_box(doc.as_bytes())).expect("valid"));
    });
    group.finish();
}

/// `small/*`: the cost of the workspace walk (issue 26) on a small file,
/// where it weighs most: `get` of one field from a 300-byte file at the root
/// and eight directories down, against `std::fs::read` of the same file by
/// its absolute path plus serde_json (the naive route, no boundary at all).
fn bench_small_file(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("argmend-bench-small-{}", std::process::id()));
    let deep = "a/b/c/d/e/f/g/h";
    std::fs::create_dir_all(dir.join(deep)).expect("temp dir");
    let text = r#"{"name": "web", "replicas": 3, "ports": [80, 443], "env": {"LOG": "info"}}"#;
    let text = format!("{text}{}", " ".repeat(300 - text.len()));
    std::fs::write(dir.join("small.json"), &text).expect("write");
    let nested = format!("{deep}/small.json");
    std::fs::write(dir.join(&nested), &text).expect("write");
    let workspace = Workspace::new(&dir).expect("workspace");
    let mut group = c.benchmark_group("small");
    group.bench_function("argmend_get_root", |b| {
        b.iter(|| {
            get(
                &workspace,
                Source::File(black_box("small.json".as_ref())),
                "env.LOG",
            )
            .expect("get")
        });
    });
    group.bench_function("argmend_get_depth8", |b| {
        b.iter(|| {
            get(
                &workspace,
                Source::File(black_box(nested.as_ref())),
                "env.LOG",
            )
            .expect("get")
        });
    });
    let absolute = dir.join(&nested);
    group.bench_function("std_read_serde_depth8", |b| {
        b.iter(|| {
            let bytes = std::fs::read(black_box(&absolute)).expect("read");
            let value: Value = serde_json::from_slice(&bytes).expect("valid");
            value.pointer("/env/LOG").map(ToString::to_string)
        });
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench_get, bench_small_file);
criterion_main!(benches);
