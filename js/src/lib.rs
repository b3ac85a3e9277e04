//! argmend for JavaScript: the WebAssembly module behind the `argmend` npm
//! package.
//!
//! This layer is deliberately thin and low-level: every export takes and
//! returns strings, byte arrays and numbers, and anything structured crosses
//! the boundary as JSON text. `JSON.parse` on the JavaScript side and
//! `serde_json` here are each the fastest way in on their side, far faster
//! than building objects one property at a time through the boundary. The
//! one-shot calls go further (`oneshot.rs`): the input's UTF-8 is written
//! into the module's memory, and the answer is numbers there (the caller's
//! string itself, ranges of it, or bytes to decode; fixes by number). The
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
mod oneshot;
mod options;
mod partial;
mod pieces;
mod stream;
mod utf16;

use argmend::{Doubt, Fix};
use serde_json::{Value, json};
use wasm_bindgen::prelude::*;

use crate::offsets::Utf16Map;

pub use crate::call::{RawAdapter, RawToolCall, normalize_tool_args};
pub use crate::oneshot::{
    header, input_buffer, jsonrepair_input, names, repair_input, take_reason,
};
pub use crate::partial::partial_parse;
pub use crate::stream::RawRepairer;

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

/// Whether UTF-8 `bytes` hold U+FFFD (`EF BF BD`), eight bytes at a time:
/// only a word with an `EF` byte is looked at closely. `str::contains` took
/// 36 µs of the 115 µs a valid 50 KB call cost (0.7 ms of 3.3 ms at 1 MB).
pub(crate) fn has_replacement_char(bytes: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
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

/// The engine's version (the crate's), for `argmend.version`.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}

#[cfg(test)]
mod tests {
    fn has_replacement_char(text: &str) -> bool {
        super::has_replacement_char(text.as_bytes())
    }

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
