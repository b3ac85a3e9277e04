//! argmend and its Rust peers behind one signature, shared by the criterion
//! group (`benches/peers.rs`) and the timing harness (`examples/timing.rs`)
//! through `#[path]` (they use dev-dependencies, which `src/` cannot).
//!
//! Each implementation is called the way its README shows, with its default
//! options; what is timed is that call, returning what the crate returns
//! (a `String` for most, a value tree for `json_partial` and `jiter`).
//!
//! Excluded (see README.md): `json-repair` 0.4.0 (needs nightly:
//! `#![feature(trait_alias)]`), `json_repair_rs` 1.1.1 (calls the Python
//! package through pyo3 rather than porting it, and its `links = "python"`
//! conflicts with jiter's in resolution).

#![allow(dead_code)] // each user takes a different subset

use std::hint::black_box;

use argmend::{Options, Repairer};
use serde::de::IgnoredAny;
use serde_json::Value;

/// What an implementation can be given.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// argmend: both twins, one-shot and incremental stream.
    Argmend,
    /// A strict parser: valid twins only (serde_json).
    Strict,
    /// A partial-JSON parser: valid twins and their prefixes only (jiter).
    Partial,
    /// A repair crate: both twins; streams by re-repairing every prefix.
    Repair,
}

/// One implementation.
pub struct Impl {
    /// The id in bench names and the table (`llm_json`).
    pub name: &'static str,
    /// The crate name in Cargo.lock.
    pub krate: &'static str,
    pub kind: Kind,
    /// The timed call; returns something to keep it from being optimized away.
    /// `Err` when the implementation rejects the input.
    pub run: fn(&str) -> Result<usize, String>,
    /// The same call, returning JSON text for the correctness check.
    pub text: fn(&str) -> Result<String, String>,
}

fn err<E: std::fmt::Display>(e: E) -> String {
    let s = e.to_string();
    s.chars().take(120).collect()
}

/// Every implementation, argmend first.
pub fn all() -> Vec<Impl> {
    vec![
        Impl {
            name: "argmend",
            krate: "argmend",
            kind: Kind::Argmend,
            run: |s| Ok(argmend::repair(s.as_bytes()).text().len()),
            text: |s| {
                let o = argmend::repair(s.as_bytes());
                match o.error() {
                    Some(e) => Err(err(e)),
                    None => Ok(o.text().to_owned()),
                }
            },
        },
        Impl {
            name: "serde_json",
            krate: "serde_json",
            kind: Kind::Strict,
            run: |s| {
                serde_json::from_slice::<IgnoredAny>(s.as_bytes())
                    .map(|_| 0)
                    .map_err(err)
            },
            text: |s| {
                serde_json::from_slice::<IgnoredAny>(s.as_bytes()).map_err(err)?;
                Ok(s.to_owned())
            },
        },
        Impl {
            name: "jiter",
            krate: "jiter",
            kind: Kind::Partial,
            run: |s| {
                jiter::JsonValue::parse_with_config(
                    s.as_bytes(),
                    false,
                    jiter::PartialMode::TrailingStrings,
                )
                .map(|v| matches!(v, jiter::JsonValue::Object(_)) as usize)
                .map_err(err)
            },
            text: |s| {
                let v = jiter::JsonValue::parse_with_config(
                    s.as_bytes(),
                    false,
                    jiter::PartialMode::TrailingStrings,
                )
                .map_err(err)?;
                Ok(jiter_to_serde(&v).to_string())
            },
        },
        Impl {
            name: "llm_json",
            krate: "llm_json",
            kind: Kind::Repair,
            run: |s| {
                llm_json::repair_json(s, &llm_json::RepairOptions::default())
                    .map(|t| t.len())
                    .map_err(err)
            },
            text: |s| llm_json::repair_json(s, &llm_json::RepairOptions::default()).map_err(err),
        },
        Impl {
            name: "jsonrepair_rs",
            krate: "jsonrepair-rs",
            kind: Kind::Repair,
            run: |s| jsonrepair_rs::jsonrepair(s).map(|t| t.len()).map_err(err),
            text: |s| jsonrepair_rs::jsonrepair(s).map_err(err),
        },
        Impl {
            name: "jsonrepair",
            krate: "jsonrepair",
            kind: Kind::Repair,
            run: |s| {
                jsonrepair::repair_to_string(s, &jsonrepair::Options::default())
                    .map(|t| t.len())
                    .map_err(err)
            },
            text: |s| jsonrepair::repair_to_string(s, &jsonrepair::Options::default()).map_err(err),
        },
        Impl {
            name: "json_partial",
            krate: "json_partial",
            kind: Kind::Repair,
            run: |s| {
                json_partial::jsonish::parse(s, json_partial::jsonish::ParseOptions::default())
                    .map(|v| matches!(v, json_partial::jsonish::Value::Object(_)) as usize)
                    .map_err(err)
            },
            text: |s| {
                let v =
                    json_partial::jsonish::parse(s, json_partial::jsonish::ParseOptions::default())
                        .map_err(err)?;
                json_partial::jsonish::to_json_string(&v).map_err(err)
            },
        },
        Impl {
            name: "partial_json_fixer",
            krate: "partial-json-fixer",
            kind: Kind::Repair,
            run: |s| {
                partial_json_fixer::fix_json_parse(s)
                    .map(|v| v.to_string().len())
                    .map_err(err)
            },
            text: |s| {
                partial_json_fixer::fix_json_parse(s)
                    .map(|v| v.to_string())
                    .map_err(err)
            },
        },
        Impl {
            name: "jsonfixer",
            krate: "jsonfixer",
            kind: Kind::Repair,
            run: |s| {
                jsonfixer::repair_json(s, jsonfixer::JsonRepairOptions::default())
                    .map(|t| t.len())
                    .map_err(err)
            },
            text: |s| {
                jsonfixer::repair_json(s, jsonfixer::JsonRepairOptions::default()).map_err(err)
            },
        },
        Impl {
            name: "llm_json_repair",
            krate: "llm-json-repair",
            kind: Kind::Repair,
            run: |s| Ok(llm_json_repair::repair(s).len()),
            text: |s| Ok(llm_json_repair::repair(s)),
        },
        Impl {
            name: "anyrepair",
            krate: "anyrepair",
            kind: Kind::Repair,
            run: |s| anyrepair::jsonrepair(s).map(|t| t.len()).map_err(err),
            text: |s| anyrepair::jsonrepair(s).map_err(err),
        },
    ]
}

/// Whether `imp` takes this variant (`malformed`) in this mode (`stream`).
pub fn applies(imp: &Impl, malformed: bool, stream: bool) -> bool {
    match imp.kind {
        Kind::Argmend | Kind::Repair => true,
        Kind::Partial => !malformed,
        Kind::Strict => !malformed && !stream,
    }
}

/// argmend's incremental stream: `input` fed in `chunk`-byte pieces with a
/// snapshot after every piece (its length forced, as in `benches/repair.rs`).
/// Returns the final text's length.
pub fn argmend_stream(input: &[u8], chunk: usize) -> usize {
    let mut repairer = Repairer::new(Options::default());
    let mut committed = 0;
    for piece in input.chunks(chunk) {
        committed += repairer.feed(piece).expect("no limits are set").len();
        black_box(repairer.snapshot().len());
    }
    black_box(committed);
    repairer.finish().expect("no limits are set").text().len()
}

/// The incremental stream's final text (for the check).
pub fn argmend_stream_text(input: &[u8], chunk: usize) -> String {
    let mut repairer = Repairer::new(Options::default());
    for piece in input.chunks(chunk) {
        repairer.feed(piece).expect("no limits are set");
        black_box(repairer.snapshot().len());
    }
    repairer
        .finish()
        .expect("no limits are set")
        .text()
        .to_owned()
}

/// The largest char boundary of `s` at or below `end`.
pub fn floor_boundary(s: &str, mut end: usize) -> usize {
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    end
}

/// What a peer without incremental state does to show a live preview:
/// re-run on every prefix that ends a `chunk`-byte chunk (cut back to a
/// char boundary). Only every `stride`-th prefix is run when `stride > 1`
/// (the caller scales the time). Errors on a prefix count, they do not stop.
pub fn reparse_stream(run: fn(&str) -> Result<usize, String>, s: &str, stride: usize) -> usize {
    let mut total = 0;
    for (i, end) in argmend_peers::prefix_ends(s.len()).enumerate() {
        if stride > 1 && i % stride != stride - 1 && end != s.len() {
            continue;
        }
        total += run(&s[..floor_boundary(s, end)]).unwrap_or(1);
    }
    black_box(total)
}

/// The middle one of the prefixes `reparse_stream` runs: one call on it,
/// times their number, estimates a pass. (A whole valid document would not
/// do: several crates validate it first and never reach their slow path,
/// which every cut prefix takes.)
pub fn middle_prefix(s: &str) -> &str {
    let ends: Vec<usize> = argmend_peers::prefix_ends(s.len()).collect();
    &s[..floor_boundary(s, ends[ends.len() / 2])]
}

/// How many prefixes `reparse_stream` runs.
pub fn reparse_count(len: usize, stride: usize) -> usize {
    argmend_peers::prefix_ends(len)
        .enumerate()
        .filter(|(i, end)| stride <= 1 || i % stride == stride - 1 || *end == len)
        .count()
}

/// A jiter value as a serde_json value (for the check only).
pub fn jiter_to_serde(v: &jiter::JsonValue<'_>) -> Value {
    use jiter::JsonValue as J;
    match v {
        J::Null => Value::Null,
        J::Bool(b) => Value::Bool(*b),
        J::Int(i) => Value::from(*i),
        J::BigInt(b) => Value::String(b.to_string()),
        J::Float(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
        J::Str(s) => Value::String(s.to_string()),
        J::Array(a) => Value::Array(a.iter().map(jiter_to_serde).collect()),
        J::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (k.to_string(), jiter_to_serde(v)))
                .collect(),
        ),
    }
}

/// Value equality with numbers compared by value (`1.50` = `1.5`, `2` =
/// `2.0`) and object keys in any order.
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            if let (Some(x), Some(y)) = (x.as_i64(), y.as_i64()) {
                return x == y;
            }
            if let (Some(x), Some(y)) = (x.as_u64(), y.as_u64()) {
                return x == y;
            }
            match (x.as_f64(), y.as_f64()) {
                (Some(x), Some(y)) => x == y || (x - y).abs() <= 1e-12 * x.abs().max(y.abs()),
                _ => false,
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// The outcome of the correctness check of one call.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Check {
    /// Parses and equals the valid twin's value.
    Correct,
    /// Parses as JSON but is a different value.
    Wrong,
    /// Not JSON (does not parse).
    Invalid,
    /// The implementation returned an error.
    Error,
    /// The implementation panicked.
    Panic,
}

impl Check {
    pub fn as_str(self) -> &'static str {
        match self {
            Check::Correct => "correct",
            Check::Wrong => "wrong",
            Check::Invalid => "invalid",
            Check::Error => "error",
            Check::Panic => "panic",
        }
    }
}

/// Runs `text` on `input` (catching a panic) and compares with `want`.
pub fn check(text: impl FnOnce() -> Result<String, String>, want: &Value) -> (Check, String) {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(text)) {
        Err(_) => (Check::Panic, String::new()),
        Ok(Err(e)) => (Check::Error, e),
        Ok(Ok(out)) => match serde_json::from_str::<Value>(&out) {
            Err(e) => (Check::Invalid, err(e)),
            Ok(got) if same(&got, want) => (Check::Correct, String::new()),
            Ok(_) => (Check::Wrong, String::new()),
        },
    }
}
