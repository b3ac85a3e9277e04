//! The Rust side of `run.sh`: times one implementation on one workload's
//! files with the same loop as `harness/bench.mjs` (jsonrepair, JavaScript)
//! and `harness/bench.py` (json_repair, Python), and prints one JSON line.
//!
//! ```sh
//! timing IMPL DIR VARIANT MODE [BUDGET_SECS]
//! timing argmend out/api_100k malformed stream 1.0
//! timing --list          # the implementation names
//! timing --show IMPL FILE # what IMPL returns on FILE
//! ```
//!
//! - DIR holds `valid/NN.json` and `malformed/NN.json` (examples/fixtures.rs).
//! - MODE `oneshot`: one call per case. MODE `stream`: each case fed in
//!   16-byte chunks with a snapshot after every chunk; argmend keeps its
//!   state, every other implementation re-runs on each prefix (cut back to a
//!   char boundary), which is what its users do for a live preview.
//! - The loop (identical in the three harnesses): a first call per case is
//!   the correctness check (a panic is caught and reported, and nothing is
//!   timed). A pass is one call on every case. If one pass takes at least
//!   BUDGET it is the only sample; otherwise passes are batched to at least
//!   10 ms a sample, warmed up for BUDGET/4, and sampled until BUDGET has
//!   passed and there are at least 5 samples. Median and mean are per pass.
//! - A stream whose estimated pass (one call on the middle prefix × the
//!   number of prefixes, timed after the check) exceeds 3 s
//!   runs every k-th prefix only and scales the time by the prefix count
//!   (`stride` > 1 in the output; the table marks it `≈`).

#[path = "../common/impls.rs"]
mod impls;

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

/// The longest estimated stream pass before prefixes are sampled.
const STREAM_PASS_MAX: f64 = 3.0;
/// The shortest sample.
const MIN_SAMPLE: f64 = 0.010;
/// Samples taken at least.
const MIN_SAMPLES: usize = 5;

fn read_cases(dir: &Path) -> Vec<String> {
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a folder entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    names.sort();
    names
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--list") {
        for imp in impls::all() {
            println!("{} {} {:?}", imp.name, imp.krate, imp.kind);
        }
        return;
    }
    if args.first().map(String::as_str) == Some("--show") && args.len() == 3 {
        // timing --show IMPL FILE: what IMPL returns on FILE (for diagnosis).
        let imp = impls::all()
            .into_iter()
            .find(|i| i.name == args[1])
            .expect("IMPL");
        let input = std::fs::read_to_string(&args[2]).expect("FILE");
        match (imp.text)(&input) {
            Ok(text) => println!("{text}"),
            Err(e) => println!("error: {e}"),
        }
        return;
    }
    if args.len() < 4 {
        eprintln!("usage: timing IMPL DIR VARIANT MODE [BUDGET_SECS]");
        std::process::exit(2);
    }
    let (name, dir, variant, mode) = (&args[0], Path::new(&args[1]), &args[2], &args[3]);
    let budget: f64 = args.get(4).map_or(1.0, |b| b.parse().expect("BUDGET_SECS"));
    let malformed = variant == "malformed";
    let stream = mode == "stream";
    let imp = impls::all()
        .into_iter()
        .find(|i| i.name == *name)
        .unwrap_or_else(|| panic!("unknown implementation {name}"));
    let workload = dir.file_name().unwrap().to_string_lossy().into_owned();
    let mut line = serde_json::json!({
        "impl": imp.name, "lang": "rust", "workload": workload, "variant": variant, "mode": mode,
    });
    if !impls::applies(&imp, malformed, stream) {
        line["status"] = "n/a".into();
        println!("{line}");
        return;
    }
    let inputs = read_cases(&dir.join(variant));
    let wants: Vec<Value> = read_cases(&dir.join("valid"))
        .iter()
        .map(|s| serde_json::from_str(s).expect("valid twin parses"))
        .collect();
    let bytes: usize = inputs.iter().map(String::len).sum();

    // Silence panic messages from peers: the check reports them.
    std::panic::set_hook(Box::new(|_| {}));

    // The check: the first call on each case.
    let mut checks = Vec::new();
    for (input, want) in inputs.iter().zip(&wants) {
        let (check, _detail) = if stream && imp.kind == impls::Kind::Argmend {
            impls::check(
                || {
                    Ok(impls::argmend_stream_text(
                        input.as_bytes(),
                        argmend_peers::CHUNK,
                    ))
                },
                want,
            )
        } else {
            impls::check(|| (imp.text)(input), want)
        };
        checks.push(check.as_str());
    }
    line["bytes"] = bytes.into();
    line["cases"] = inputs.len().into();
    line["checks"] = checks.clone().into();
    if checks.contains(&"panic") {
        line["status"] = "panic".into();
        println!("{line}");
        return;
    }

    // A stride for re-parsing streams that would take too long.
    let mut stride = 1;
    let mut scale = 1.0;
    if stream && imp.kind != impls::Kind::Argmend {
        // One call on the middle prefix of each case, × the prefix count.
        let t = Instant::now();
        for input in &inputs {
            std::hint::black_box((imp.run)(impls::middle_prefix(input)).ok());
        }
        let middle = t.elapsed().as_secs_f64();
        let prefixes: usize = inputs
            .iter()
            .map(|s| argmend_peers::prefix_ends(s.len()).count())
            .sum();
        let est = middle * prefixes as f64;
        if est > STREAM_PASS_MAX {
            stride = (est / STREAM_PASS_MAX).ceil() as usize;
            let run: usize = inputs
                .iter()
                .map(|s| impls::reparse_count(s.len(), stride))
                .sum();
            scale = prefixes as f64 / run as f64;
        }
    }
    let run = imp.run;
    let kind = imp.kind;
    let pass = || -> usize {
        let mut total = 0;
        for input in &inputs {
            total += if !stream {
                run(input).unwrap_or(1)
            } else if kind == impls::Kind::Argmend {
                impls::argmend_stream(input.as_bytes(), argmend_peers::CHUNK)
            } else {
                impls::reparse_stream(run, input, stride)
            };
        }
        std::hint::black_box(total)
    };
    let samples = measure(pass, budget);
    let mut per: Vec<f64> = samples.iter().map(|s| s * scale * 1e9).collect();
    per.sort_by(f64::total_cmp);
    line["status"] = "ok".into();
    line["stride"] = stride.into();
    line["samples"] = per.len().into();
    line["median_ns"] = median(&per).into();
    line["mean_ns"] = (per.iter().sum::<f64>() / per.len() as f64).into();
    println!("{line}");
}

/// Seconds per pass, one entry a sample.
fn measure(mut pass: impl FnMut() -> usize, budget: f64) -> Vec<f64> {
    let t = Instant::now();
    pass();
    let once = t.elapsed().as_secs_f64();
    if once >= budget {
        return vec![once];
    }
    let batch = ((MIN_SAMPLE / once.max(1e-9)).ceil() as usize).max(1);
    let warm = Instant::now();
    while warm.elapsed().as_secs_f64() < budget / 4.0 {
        pass();
    }
    let mut samples = Vec::new();
    let start = Instant::now();
    while start.elapsed().as_secs_f64() < budget || samples.len() < MIN_SAMPLES {
        let t = Instant::now();
        for _ in 0..batch {
            pass();
        }
        samples.push(t.elapsed().as_secs_f64() / batch as f64);
        if start.elapsed() > Duration::from_secs_f64(budget * 3.0) {
            break;
        }
    }
    samples
}

fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}
