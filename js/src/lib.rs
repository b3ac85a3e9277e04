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

/// What `take_meta` hands out for an outcome: the JSON of
/// `{verdict, fixes: [fix_json…], doubts: [doubt_json…], reason?}`, written
/// straight into one string. Building it as a `serde_json::Value` (a map and
/// its allocations per fix) cost about 2 µs a fix in the module: 2.6 ms for
/// the 1,326 fixes of the 50 KB `write_file` bench, ten times the repair.
pub(crate) fn outcome_meta(outcome: &Outcome<'_>, map: &Utf16Map) -> String {
    let fixes = outcome.fixes();
    let doubts = outcome.doubts();
    let mut meta = String::with_capacity(64 + fixes.len() * 64 + doubts.len() * 128);
    meta.push_str("{\"verdict\":");
    push_json_str(&mut meta, outcome.verdict().name());
    meta.push_str(",\"fixes\":[");
    for (i, fix) in fixes.iter().enumerate() {
        if i > 0 {
            meta.push(',');
        }
        meta.push_str("{\"kind\":");
        push_json_str(&mut meta, fix.kind.name());
        meta.push_str(",\"offset\":");
        push_count(&mut meta, map.units(fix.offset));
        meta.push_str(if fix.kind.is_truncation() {
            ",\"truncation\":true}"
        } else {
            ",\"truncation\":false}"
        });
    }
    meta.push_str("],\"doubts\":[");
    for (i, doubt) in doubts.iter().enumerate() {
        if i > 0 {
            meta.push(',');
        }
        meta.push_str("{\"kind\":");
        push_json_str(&mut meta, doubt.kind.name());
        meta.push_str(",\"offset\":");
        push_count(&mut meta, map.units(doubt.offset));
        meta.push_str(",\"reason\":");
        push_json_str(&mut meta, doubt.reason());
        meta.push('}');
    }
    meta.push(']');
    if let Some(reason) = outcome.reason() {
        meta.push_str(",\"reason\":");
        push_json_str(&mut meta, reason);
    }
    meta.push('}');
    meta
}

/// `n` in decimal (by hand: `write!` and its formatter cost more than the
/// rest of a fix's JSON in the module).
fn push_count(out: &mut String, mut n: usize) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.push_str(std::str::from_utf8(&digits[at..]).unwrap_or("0"));
}

/// `text` as a JSON string literal (the names and reasons are plain ASCII
/// almost always: one scan, one copy).
fn push_json_str(out: &mut String, text: &str) {
    if !text.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
        out.push('"');
        out.push_str(text);
        out.push('"');
        return;
    }
    out.push_str(&Value::from(text).to_string());
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
///
/// `input` is the caller's string itself (the wrapper has checked that it is
/// one): when the repaired text is the input unchanged (valid JSON), that
/// same string goes back, and the module never decodes its UTF-8 copy into
/// a new JavaScript string (half the time of a 1 MB valid call in Node 20).
#[wasm_bindgen]
pub fn repair_str(input: JsValue, options: &str) -> Result<JsValue, JsValue> {
    let text = string_arg(&input)?;
    let options = options::repair(options)?;
    let outcome = argmend::repair_with(text.as_bytes(), options.engine)
        .map_err(|error| limit_error(&error))?;
    if outcome.verdict() == Verdict::Valid && outcome.doubts().is_empty() {
        set_meta(VALID_META.to_owned());
    } else {
        set_meta(outcome_meta(&outcome, &Utf16Map::of_str(&text)));
    }
    Ok(text_value(&text, outcome.text(), input))
}

/// The string a `JsValue` argument holds.
fn string_arg(input: &JsValue) -> Result<String, JsValue> {
    input
        .as_string()
        .ok_or_else(|| error("invalid_argument", "the input must be a string"))
}

/// The repaired text as a JavaScript string: `input` itself when the text
/// is exactly the input's bytes (the engine hands valid input back
/// borrowed), a new string otherwise.
///
/// Not when the text holds U+FFFD: it may stand for a lone surrogate of the
/// input (the encoder's replacement), which the answer must not keep.
fn text_value(text: &str, repaired: &str, input: JsValue) -> JsValue {
    if repaired.as_ptr() == text.as_ptr()
        && repaired.len() == text.len()
        && !has_replacement_char(text)
    {
        input
    } else {
        JsValue::from_str(repaired)
    }
}

/// Whether `text` holds U+FFFD (`EF BF BD`), eight bytes at a time: only a
/// word with an `EF` byte is looked at closely. `str::contains` took 36 µs
/// of the 115 µs a valid 50 KB call cost (0.7 ms of 3.3 ms at 1 MB).
fn has_replacement_char(text: &str) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let bytes = text.as_bytes();
    let at = |k: usize| bytes[k] == 0xef && bytes.get(k + 1..k + 3) == Some(&[0xbf, 0xbd][..]);
    let mut i = 0;
    while let Some(word) = bytes.get(i..i + 8) {
        // A zero byte of `word ^ EF…EF` is an `EF` byte of `word`.
        let x = u64::from_le_bytes(word.try_into().unwrap_or([0xef; 8])) ^ (0xef * ONES);
        if x.wrapping_sub(ONES) & !x & HIGH != 0 && (i..i + 8).any(at) {
            return true;
        }
        i += 8;
    }
    (i..bytes.len()).any(at)
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

/// jsonrepair's contract, as fast as the boundary allows: the repaired text
/// (the input string itself when it was valid JSON), or `undefined` where
/// argmend finds no JSON (the wrapper throws `JSONRepairError` then, with
/// `not_json_reason`).
#[wasm_bindgen]
pub fn jsonrepair(input: JsValue) -> JsValue {
    let Some(text) = input.as_string() else {
        set_meta("the input must be a string".to_owned());
        return JsValue::UNDEFINED;
    };
    let outcome = argmend::repair(text.as_bytes());
    match outcome.verdict() {
        Verdict::NotJson => {
            set_meta(outcome.reason().unwrap_or("no JSON value found").to_owned());
            JsValue::UNDEFINED
        }
        _ => text_value(&text, outcome.text(), input),
    }
}

/// The engine's version (the crate's), for `argmend.version`.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}

#[cfg(test)]
mod tests {
    use super::has_replacement_char;

    #[test]
    fn finds_u_fffd_wherever_it_is() {
        assert!(!has_replacement_char(""));
        assert!(!has_replacement_char(
            "{\"a\": \"plain ASCII, longer than a word\"}"
        ));
        assert!(!has_replacement_char(
            "\u{e9}\u{1F600}\u{4e2d}\u{FFFC}\u{FFFE}\u{EFBF}"
        ));
        for at in 0..20 {
            let text = format!("{}\u{FFFD}{}", "a".repeat(at), "b".repeat(at % 7));
            assert!(has_replacement_char(&text), "at {at}");
            let text = format!("{}\u{e9}\u{FFFD}", "a".repeat(at));
            assert!(has_replacement_char(&text), "after \u{e9}, at {at}");
        }
    }
}
