//! argmend for JavaScript: the WebAssembly module behind the `argmend` npm
//! package.
//!
//! This layer is deliberately thin and low-level: every export takes and
//! returns strings, byte arrays and numbers, and anything structured crosses
//! the boundary as JSON text. `JSON.parse` on the JavaScript side and
//! `serde_json` here are each the fastest way in on their side, far faster
//! than building objects one property at a time through the boundary. The
//! friendly API (classes, `Error` subclasses, `FinalizationRegistry`, the
//! drop-ins) is plain JavaScript in `js/lib/`, which wraps these exports.
//!
//! Errors thrown from here are JSON strings, `{"kind", "message"}`; the
//! wrapper turns them into `ArgmendError` with that `kind`.
//!
//! Offsets: the engine counts input bytes (UTF-8). JavaScript strings count
//! UTF-16 code units, and a UI that highlights a fix needs the index into its
//! own string, so every offset of an input given as a string is converted
//! (`offsets::Utf16Map`); input given as `Uint8Array` keeps byte offsets.

#![forbid(unsafe_code)]

mod call;
mod offsets;
mod options;
mod partial;
mod stream;

use std::cell::RefCell;

use argmend::{Doubt, Fix, Outcome, Verdict};
use serde_json::{Value, json};
use wasm_bindgen::prelude::*;

use crate::offsets::Utf16Map;

pub use crate::call::{RawAdapter, RawToolCall, normalize_tool_args};
pub use crate::partial::partial_parse;
pub use crate::stream::RawRepairer;

thread_local! {
    /// The verdict, fixes and doubts of the last `repair_*` call, as JSON,
    /// for `take_meta`. The hot path (`jsonrepair`, a plain `repair` of valid
    /// input) then returns one string and builds no object at all.
    static META: RefCell<String> = const { RefCell::new(String::new()) };
}

/// An error for JavaScript: `{"kind": …, "message": …}` as a string, which
/// the wrapper rethrows as `ArgmendError`.
pub(crate) fn error(kind: &str, message: impl std::fmt::Display) -> JsValue {
    JsValue::from_str(&json!({"kind": kind, "message": message.to_string()}).to_string())
}

/// The engine's limit error, with its kind's stable name.
pub(crate) fn limit_error(error: &argmend::Error) -> JsValue {
    let kind = match error.kind() {
        argmend::ErrorKind::TooDeep => "too_deep",
        argmend::ErrorKind::TooLarge => "too_large",
        _ => "stuck",
    };
    self::error(kind, error)
}

/// A fix as JSON, its offset in the caller's units.
pub(crate) fn fix_json(fix: &Fix, map: &Utf16Map) -> Value {
    json!({
        "kind": fix.kind.name(),
        "offset": map.units(fix.offset),
        "truncation": fix.kind.is_truncation(),
    })
}

/// A doubt as JSON, its offset in the caller's units.
pub(crate) fn doubt_json(doubt: &Doubt, map: &Utf16Map) -> Value {
    json!({
        "kind": doubt.kind.name(),
        "offset": map.units(doubt.offset),
        "reason": doubt.reason(),
    })
}

/// What `take_meta` hands out for an outcome.
pub(crate) fn outcome_meta(outcome: &Outcome<'_>, map: &Utf16Map) -> String {
    let mut meta = json!({
        "verdict": outcome.verdict().name(),
        "fixes": outcome.fixes().iter().map(|fix| fix_json(fix, map)).collect::<Vec<_>>(),
        "doubts": outcome.doubts().iter().map(|doubt| doubt_json(doubt, map)).collect::<Vec<_>>(),
    });
    if let Some(reason) = outcome.reason() {
        meta["reason"] = Value::from(reason);
    }
    meta.to_string()
}

pub(crate) fn set_meta(meta: String) {
    META.with(|cell| *cell.borrow_mut() = meta);
}

/// The verdict, fixes and doubts of the last `repair_str`, `repair_bytes` or
/// `RawRepairer::finish`, as JSON text (emptied by the call).
#[wasm_bindgen]
pub fn take_meta() -> String {
    META.with(|cell| std::mem::take(&mut *cell.borrow_mut()))
}

/// Meta for a valid input, without going through serde_json: the common case.
const VALID_META: &str = r#"{"verdict":"valid","fixes":[],"doubts":[]}"#;

/// Repair a whole string; the text is returned, the rest is in `take_meta`.
#[wasm_bindgen]
pub fn repair_str(input: &str, options: &str) -> Result<String, JsValue> {
    let options = options::repair(options)?;
    let outcome = argmend::repair_with(input.as_bytes(), options.engine)
        .map_err(|error| limit_error(&error))?;
    finish_outcome(outcome, || Utf16Map::of_str(input))
}

/// Repair a whole byte array (UTF-8; offsets stay in bytes).
#[wasm_bindgen]
pub fn repair_bytes(input: &[u8], options: &str) -> Result<String, JsValue> {
    let options = options::repair(options)?;
    let outcome =
        argmend::repair_with(input, options.engine).map_err(|error| limit_error(&error))?;
    finish_outcome(outcome, Utf16Map::bytes)
}

fn finish_outcome(outcome: Outcome<'_>, map: impl FnOnce() -> Utf16Map) -> Result<String, JsValue> {
    if outcome.verdict() == Verdict::Valid && outcome.doubts().is_empty() {
        set_meta(VALID_META.to_owned());
    } else {
        set_meta(outcome_meta(&outcome, &map()));
    }
    Ok(outcome.into_text().into_owned())
}

/// jsonrepair's contract, as fast as the boundary allows: the repaired text,
/// or `undefined` where argmend finds no JSON (the wrapper throws
/// `JSONRepairError` then, with `not_json_reason`).
#[wasm_bindgen]
pub fn jsonrepair(input: &str) -> Option<String> {
    let outcome = argmend::repair(input.as_bytes());
    match outcome.verdict() {
        Verdict::NotJson => {
            set_meta(outcome.reason().unwrap_or("no JSON value found").to_owned());
            None
        }
        _ => Some(outcome.into_text().into_owned()),
    }
}

/// The engine's version (the crate's), for `argmend.version`.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}
