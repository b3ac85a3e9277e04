//! partial-json's `parse(text, allow)` (`lib/partial-json.js` wraps it).
//!
//! Two readings of the text, then one set of rules:
//!
//! - **A strict JSON prefix** (with partial-json's `NaN`, `Infinity` and
//!   `-Infinity`) is read by `Prefix::read` (`prefix.rs`), strictly, as partial-json
//!   reads it, and completed where the end cut it: a string closed (an
//!   escape cut short dropped), a member whose value never came dropped,
//!   the open containers closed. The engine is not asked: its quote
//!   judgement, made for model output with unescaped quotes, may read a
//!   valid prefix that ends inside an odd key (`{"a": "x", "http:`)
//!   otherwise than strict JSON does, and partial-json's answer is defined
//!   by the strict reading.
//! - **Anything else** is malformed, and the engine mends it. Its output is
//!   complete JSON; its truncation fixes (`closed_container`,
//!   `closed_string`, `completed_literal`, `completed_value`) and its source
//!   map say what the end of the input cut.
//!
//! Either way the result is one complete JSON text, and one linear scan of
//! it with an explicit stack (`Scan` in `flags.rs`; no recursion, whatever the depth)
//! finds what the `Allow` flags decide about: the chain of containers the
//! end left open, and the last member of the innermost one. Its own input
//! text says what it was when the end came (`judge`): a cut string, a
//! number the end may still grow, a literal cut short (`tr`). It is kept,
//! rewritten as partial-json gives it (`1e` is `1`; `Na` with `Allow.NAN`
//! is `NaN`) or dropped. An open container whose flag is not allowed is
//! dropped from its parent, or makes the call throw `PartialJSON` if it is
//! the outermost.
//!
//! Two values partial-json gives have no JSON text; they are written so
//! that `JSON.parse` on the JavaScript side gives them back: `Infinity` and
//! `-Infinity` as `1e999` and `-1e999`, and `NaN` as a string marker the
//! wrapper chose, which its reviver turns into `NaN`. Where the engine
//! wrote `\ufffd` for a lone surrogate escape of the input (`"\ud800"`), the
//! input's escape is written back, so it parses as `JSON.parse` parses it.

use argmend::{Options, Outcome, Verdict};
use wasm_bindgen::prelude::*;

use crate::limit_error;
use crate::offsets::Utf16Map;

mod flags;
mod prefix;
#[cfg(test)]
mod tests;

use self::flags::{End, Reading, Source};
use self::prefix::{Prefix, Read};

// partial-json's `Allow` bits (its `options.js`).
const STR: u32 = 0b1;
const NUM: u32 = 0b10;
const ARR: u32 = 0b100;
const OBJ: u32 = 0b1000;
const NULL: u32 = 0b1_0000;
const BOOL: u32 = 0b10_0000;
const NAN: u32 = 0b100_0000;
const INFINITY: u32 = 0b1000_0000;
const NEG_INFINITY: u32 = 0b1_0000_0000;

/// partial-json's `parse(text, allow)` on trimmed, non-empty text.
///
/// The answer is a status letter, then its text:
///
/// - `v`: the text is valid JSON as it is: `JSON.parse(text)`;
/// - `j` + JSON text: the value;
/// - `n` + JSON text: the value, `NaN` written as the JSON string
///   `nan_marker`, for a reviver;
/// - `N`: the value holds `NaN`: call again with a `nan_marker`;
/// - `P` + message: throw `PartialJSON` (the wrapper adds the position);
/// - `M`: throw `MalformedJSON` with `JSON.parse`'s own message, as
///   partial-json does for a top-level scalar it cannot read;
/// - `E` + message: throw `MalformedJSON` with this message (nesting deeper
///   than the engine's limit of 512 levels).
///
/// `allow` is partial-json's bit set. Only a bug in the engine (its
/// `stuck` error) is an `Err`.
#[wasm_bindgen]
pub fn partial_parse(
    text: &str,
    allow: u32,
    nan_marker: Option<String>,
) -> Result<String, JsValue> {
    answer(text, allow, nan_marker.as_deref()).map_err(|error| limit_error(&error))
}

/// [`partial_parse`], its `Err` the engine's.
fn answer(text: &str, allow: u32, nan_marker: Option<&str>) -> Result<String, argmend::Error> {
    match Prefix::read(text) {
        Read::Prefix(prefix) if prefix.valid => Ok("v".to_owned()),
        Read::Prefix(prefix) => {
            let reading = Reading {
                out: &prefix.out,
                end: prefix.end,
                source: Source::Input,
            };
            Ok(reading.answer(text, allow, nan_marker))
        }
        Read::TooDeep(offset) => Ok(too_deep(text, offset)),
        Read::Malformed => mended(text, allow, nan_marker),
    }
}

/// The answer for text that is not a strict prefix: the engine's repair.
fn mended(text: &str, allow: u32, nan_marker: Option<&str>) -> Result<String, argmend::Error> {
    let options = Options::default().source_map(true);
    match argmend::repair_with(text.as_bytes(), options) {
        Ok(outcome) => Ok(mended_answer(text, &outcome, allow, nan_marker)),
        Err(error) if error.kind() == argmend::ErrorKind::TooDeep => {
            Ok(too_deep(text, error.offset()))
        }
        Err(error) => Err(error),
    }
}

/// The answer for the engine's repair of `text` (with its source map).
fn mended_answer(
    text: &str,
    outcome: &Outcome<'_>,
    allow: u32,
    nan_marker: Option<&str>,
) -> String {
    match outcome.verdict() {
        Verdict::Valid => return "v".to_owned(),
        Verdict::NotJson => return "M".to_owned(),
        _ => {}
    }
    let reading = Reading {
        out: outcome.text(),
        end: End::of(outcome),
        source: Source::Engine(outcome),
    };
    reading.answer(text, allow, nan_marker)
}

/// The depth limit's message, in the engine's words, its offset in UTF-16
/// units.
fn too_deep(text: &str, offset: usize) -> String {
    let limit = Options::default().depth_limit();
    let at = Utf16Map::of_str(text).units(offset.min(text.len()));
    format!("Enesting deeper than {limit} levels at position {at}")
}
