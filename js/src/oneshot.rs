//! One-shot repair (`repair`, `jsonrepair`) with as little crossing the
//! boundary as the answer allows (issue 45).
//!
//! wasm-bindgen's own string passing costs, per call, an allocation and a
//! free on each side of the boundary, a JavaScript loop over the input's
//! ASCII prefix (3.6 ns a character: 200 µs for a 54 KB ASCII string,
//! against 6 µs for `TextEncoder.encodeInto`), and a UTF-8 decode of the
//! whole output, slow for any text that is not all ASCII (`utf16.rs`). Here
//! JavaScript writes the input's UTF-8 with `encodeInto` straight into a
//! buffer the module keeps (`input_buffer`), the call returns a code, and
//! the answer waits in buffers whose places a fixed header gives (`header`):
//!
//! - [`INPUT`]: the answer is the caller's string itself (valid JSON);
//! - [`PIECES`]: ranges of the caller's string and the literal text between
//!   them (`pieces.rs`), for an input with few edits: a few slices, which
//!   share the caller's string instead of copying it;
//! - [`TEXT`]: the text's UTF-8 (all ASCII, or JavaScript cannot decode
//!   UTF-16);
//! - [`WIDE`]: the text's UTF-16 units;
//! - [`NOT_JSON`]: no JSON found (`jsonrepair` only; `repair` answers with
//!   its verdict).
//!
//! The verdict, fixes and doubts of `repair` (and of `RawRepairer::finish`)
//! are numbers in the same buffers, with names by number (`names`):
//! building fix objects from numbers costs JavaScript a fraction of parsing
//! them from JSON text.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};

use argmend::{Outcome, Verdict};
use serde_json::json;
use wasm_bindgen::prelude::*;

use crate::offsets::Utf16Map;
use crate::pieces::Pieces;
use crate::utf16::{from_utf16, to_utf16};
use crate::{has_replacement_char, limit_error, options};

/// No JSON (`jsonrepair_input`).
pub const NOT_JSON: u32 = 0;
/// The answer is the input string itself.
pub const INPUT: u32 = 1;
/// The answer is pieces of the input string and literal text.
pub const PIECES: u32 = 2;
/// The answer is the UTF-8 text at `BytesAt`.
pub const TEXT: u32 = 3;
/// The answer is the UTF-16 text at `WideAt`.
pub const WIDE: u32 = 4;

/// `flags`: the input was a `Uint8Array` (offsets count bytes; no string to
/// take pieces of).
const FROM_BYTES: u32 = 1;
/// `flags`: the input string is all ASCII (`encodeInto` wrote one byte a
/// unit), so its offsets need no conversion.
const ASCII: u32 = 2;
/// `flags`: JavaScript decodes UTF-16 (`WIDE` answers).
const WIDE_OK: u32 = 4;

/// Pieces are tried only where the engine made at most one fix in this many
/// output bytes: where edits are denser, finding the pieces costs the
/// module more than writing the text costs it and JavaScript together
/// (the 50 KB `write_file` call, a fix in 41 bytes: over 100 µs to find its
/// 1,042 pieces under Node's profiler, against about 25 µs for the text as
/// UTF-16 and Node's `Buffer` decoding it).
const SPARSE: usize = 256;

/// Buffers above this size are given back once JavaScript has read them.
const KEEP: usize = 1 << 20;

/// The module's side of the exchange: the input JavaScript wrote, the
/// answer's numbers and bytes.
#[derive(Default)]
struct Io {
    input: Vec<u8>,
    /// The input as UTF-16 (little-endian bytes), where Node writes it.
    wide_input: Vec<u8>,
    pieces: Pieces,
    /// The text's UTF-8, for [`TEXT`] answers not made of the input.
    text: Vec<u8>,
    /// The text's UTF-16 (little-endian bytes), for [`WIDE`] answers.
    wide: Vec<u8>,
    /// The outcome's numbers: see `write_meta`.
    meta: Vec<u32>,
    /// The outcome's reason (`take_reason`), when it has one.
    reason: Option<String>,
}

impl Io {
    /// Give back what a big answer kept, now that JavaScript has read it
    /// (the input buffer: `input_buffer`).
    fn trim(&mut self) {
        if self.text.capacity() > KEEP {
            self.text = Vec::new();
        }
        if self.wide.capacity() > KEEP {
            self.wide = Vec::new();
        }
        if self.pieces.words.capacity() > KEEP / 4 || self.pieces.literal.capacity() > KEEP {
            self.pieces = Pieces::default();
        }
    }
}

/// Names JavaScript knows by number: the verdicts, fix kinds and doubt
/// kinds met so far, each with what JavaScript shows beside it.
#[derive(Default)]
struct Names {
    list: Vec<Name>,
}

#[derive(Clone, Copy, PartialEq)]
enum Name {
    Verdict(&'static str),
    Fix(&'static str, bool),
    Doubt(&'static str, &'static str),
}

impl Names {
    /// The number of `name`, given one if it has none yet (a few dozen
    /// names: a scan is as fast as a map).
    fn number(&mut self, name: Name) -> u32 {
        let at = match self.list.iter().position(|known| *known == name) {
            Some(at) => at,
            None => {
                self.list.push(name);
                self.list.len() - 1
            }
        };
        at as u32
    }
}

/// The header's fields (a `u32` each): where the answer's parts are.
#[derive(Clone, Copy)]
enum Field {
    /// Pieces (`[literal_end, start, end]` triples): where, and how many words.
    PiecesAt,
    PiecesLen,
    /// UTF-8 to decode (a `TEXT` answer, or the literal text of pieces):
    /// where, how many bytes, and 1 when they are all ASCII.
    BytesAt,
    BytesLen,
    BytesAscii,
    /// The outcome's numbers: where, and how many.
    MetaAt,
    MetaLen,
    /// UTF-16 to decode (a `WIDE` answer): where, and how many units.
    WideAt,
    WideLen,
    /// A stream's snapshot tail (`RawRepairer::feed_input_coded`), as the
    /// bytes fields: where, how many bytes, and 1 when they are all ASCII.
    TailAt,
    TailLen,
    TailAscii,
}

const N_FIELDS: usize = 12;

thread_local! {
    static IO: RefCell<Io> = RefCell::new(Io::default());
    static NAMES: RefCell<Names> = RefCell::new(Names::default());
    /// Its address never changes (leaked once), so JavaScript reads it
    /// through a view it made once.
    static HEADER: &'static [Cell<u32>; N_FIELDS] = Box::leak(Box::default());
}

fn set(field: Field, value: usize) {
    HEADER.with(|header| header[field as usize].set(value as u32));
}

/// Point the bytes fields at `bytes` (JavaScript reads them before the
/// next call into the module).
pub(crate) fn set_bytes(bytes: &[u8]) {
    set_text([Field::BytesAt, Field::BytesLen, Field::BytesAscii], bytes);
}

/// Point the tail fields at `tail` (as `set_bytes`).
pub(crate) fn set_tail(tail: &[u8]) {
    set_text([Field::TailAt, Field::TailLen, Field::TailAscii], tail);
}

/// Point three fields (where, how many bytes, 1 when all ASCII: what
/// `bytesAt` in `lib/core.js` reads) at `bytes`.
fn set_text([at, len, ascii]: [Field; 3], bytes: &[u8]) {
    set(at, bytes.as_ptr() as usize);
    set(len, bytes.len());
    set(ascii, usize::from(bytes.is_ascii()));
}

/// The header's address in the module's memory (its fields: `Field`).
#[wasm_bindgen]
pub fn header() -> *const u32 {
    HEADER.with(|header| header.as_ptr().cast::<u32>())
}

/// Room for `len` bytes of input: JavaScript writes the input's UTF-8 at
/// the address returned, then calls `jsonrepair_input` or `repair_input`.
/// What was written before stays (JavaScript writes in two steps when the
/// text is not ASCII: the ASCII guess, then the rest).
#[wasm_bindgen]
pub fn input_buffer(len: usize) -> *mut u8 {
    IO.with(|io| {
        let input = &mut io.borrow_mut().input;
        // A big input's room is given back once a smaller one comes (not
        // before: a `TEXT` answer may be the input's own bytes).
        if input.capacity() > KEEP && len <= KEEP {
            *input = Vec::new();
        }
        if input.len() < len {
            input.resize(len, 0);
        }
        input.as_mut_ptr()
    })
}

/// `f` on the `len` bytes of input JavaScript wrote (`input_buffer`): a
/// stream's chunk crosses as a one-shot input does (`RawRepairer::feed_input_coded`).
pub(crate) fn with_input<R>(len: usize, f: impl FnOnce(&[u8]) -> R) -> R {
    IO.with(|io| {
        let io = io.borrow();
        f(&io.input[..len.min(io.input.len())])
    })
}

/// Room for `n` UTF-16 units of input, as little-endian bytes: Node writes
/// a string there with `Buffer.ucs2Write` (a copy, where `encodeInto`
/// encodes), then calls `input_from_utf16`.
#[wasm_bindgen]
pub fn wide_input_buffer(n: usize) -> *mut u8 {
    IO.with(|io| {
        let wide = &mut io.borrow_mut().wide_input;
        if wide.capacity() > KEEP && 2 * n <= KEEP {
            *wide = Vec::new();
        }
        if wide.len() < 2 * n {
            wide.resize(2 * n, 0);
        }
        wide.as_mut_ptr()
    })
}

/// The `n` units written at `wide_input_buffer` as the input's UTF-8, as
/// `TextEncoder` would write it; returns its length in bytes, negated when
/// the text is all ASCII (then call with that flag).
#[wasm_bindgen]
pub fn input_from_utf16(n: usize) -> f64 {
    IO.with(|io| {
        let io = &mut *io.borrow_mut();
        if io.input.capacity() > KEEP && 3 * n <= KEEP {
            io.input = Vec::new();
        }
        let units = &io.wide_input[..(2 * n).min(io.wide_input.len())];
        let ascii = from_utf16(units, &mut io.input);
        let len = io.input.len() as f64;
        if ascii { -len } else { len }
    })
}

/// jsonrepair's contract on the `len` bytes of input written: `NOT_JSON`,
/// or the repaired text (`INPUT`, `PIECES`, `TEXT` or `WIDE`). `flags`: 2,
/// the input string is all ASCII; 4, JavaScript decodes UTF-16.
#[wasm_bindgen]
pub fn jsonrepair_input(len: usize, flags: u32) -> u32 {
    IO.with(|io| {
        let io = &mut *io.borrow_mut();
        io.trim();
        let input = &io.input[..len.min(io.input.len())];
        let outcome = argmend::repair(input);
        if outcome.verdict() == Verdict::NotJson {
            return NOT_JSON;
        }
        let n_fixes = outcome.fixes().len();
        let text = outcome.into_text();
        let answer = Answer {
            pieces: &mut io.pieces,
            text: &mut io.text,
            wide: &mut io.wide,
        };
        answer.write(input, text, flags & !FROM_BYTES, n_fixes)
    })
}

/// Repair the `len` bytes of input written: the text (`INPUT`, `PIECES`,
/// `TEXT` or `WIDE`), and the verdict, fixes and doubts as numbers
/// (`names`). `flags`: 1, a `Uint8Array` was written (offsets count bytes);
/// 2, the input string is all ASCII; 4, JavaScript decodes UTF-16.
/// `options`: the wrapper's options as JSON, if any.
#[wasm_bindgen]
pub fn repair_input(len: usize, flags: u32, options: Option<String>) -> Result<u32, JsValue> {
    let options = options::repair(options.as_deref().unwrap_or(""))?;
    IO.with(|io| {
        let io = &mut *io.borrow_mut();
        io.trim();
        let input = &io.input[..len.min(io.input.len())];
        // `schema` and `fields` weigh in on where a string with unescaped
        // quotes ends, as they do for a `Repairer` given the same options.
        let outcome = match &options.hints {
            Some(hints) => argmend::repair_with_hints(input, options.engine, hints),
            None => argmend::repair_with(input, options.engine),
        }
        .map_err(|error| limit_error(&error))?;
        // Offsets count the string's UTF-16 units, the bytes of a
        // `Uint8Array`; an ASCII string's units are its bytes.
        let no_offsets = outcome.fixes().is_empty() && outcome.doubts().is_empty();
        let map = if no_offsets || flags & (FROM_BYTES | ASCII) != 0 {
            Utf16Map::bytes()
        } else {
            Utf16Map::of_utf8(input)
        };
        write_meta(&outcome, &map, &mut io.meta, &mut io.reason);
        let n_fixes = outcome.fixes().len();
        let text = outcome.into_text();
        let answer = Answer {
            pieces: &mut io.pieces,
            text: &mut io.text,
            wide: &mut io.wide,
        };
        Ok(answer.write(input, text, flags, n_fixes))
    })
}

/// Where an answer's text goes.
struct Answer<'a> {
    pieces: &'a mut Pieces,
    text: &'a mut Vec<u8>,
    wide: &'a mut Vec<u8>,
}

impl Answer<'_> {
    /// The answer's text: the input itself, pieces of it, or the text as
    /// UTF-8 or UTF-16; sets the header's fields for it and returns its code.
    fn write(self, input: &[u8], text: Cow<'_, str>, flags: u32, n_fixes: usize) -> u32 {
        set(Field::PiecesLen, 0);
        let from_string = flags & FROM_BYTES == 0;
        // The input's U+FFFD may stand for a lone surrogate of the caller's
        // string (`encodeInto` writes one for it), which the answer must not
        // keep: then the caller's string is no answer, nor pieces of it.
        let whole_chars = || from_string && (flags & ASCII != 0 || !has_replacement_char(input));
        // The engine hands valid input back borrowed.
        let unchanged = text.as_ptr() == input.as_ptr() && text.len() == input.len();
        if unchanged && whole_chars() {
            return INPUT;
        }
        if !unchanged && n_fixes.saturating_mul(SPARSE) <= text.len() && whole_chars() {
            let ascii = flags & ASCII != 0;
            if self.pieces.split(input, text.as_bytes(), ascii, SPARSE / 4) {
                set(Field::PiecesAt, self.pieces.words.as_ptr() as usize);
                set(Field::PiecesLen, self.pieces.words.len());
                set_bytes(&self.pieces.literal);
                return PIECES;
            }
        }
        if flags & WIDE_OK != 0 && !text.is_ascii() {
            to_utf16(&text, self.wide);
            set(Field::WideAt, self.wide.as_ptr() as usize);
            set(Field::WideLen, self.wide.len() / 2);
            return WIDE;
        }
        match text {
            Cow::Borrowed(text) => set_bytes(text.as_bytes()),
            Cow::Owned(text) => {
                *self.text = text.into_bytes();
                set_bytes(self.text);
            }
        }
        TEXT
    }
}

/// The outcome's numbers, in `meta`: `[verdict, n_fixes, n_doubts,
/// has_reason]`, then `[kind, offset]` for each fix, then for each doubt
/// (kinds and the verdict by number: `names`; offsets in the caller's
/// units). The reason waits for `take_reason`.
pub(crate) fn write_meta(
    outcome: &Outcome<'_>,
    map: &Utf16Map,
    meta: &mut Vec<u32>,
    reason: &mut Option<String>,
) {
    meta.clear();
    NAMES.with(|names| {
        let mut names = names.borrow_mut();
        let (fixes, doubts) = (outcome.fixes(), outcome.doubts());
        meta.reserve(4 + 2 * (fixes.len() + doubts.len()));
        meta.extend_from_slice(&[
            names.number(Name::Verdict(outcome.verdict().name())),
            fixes.len() as u32,
            doubts.len() as u32,
            u32::from(outcome.reason().is_some()),
        ]);
        for fix in fixes {
            let name = Name::Fix(fix.kind.name(), fix.kind.is_truncation());
            meta.extend_from_slice(&[names.number(name), map.units(fix.offset) as u32]);
        }
        for doubt in doubts {
            let name = Name::Doubt(doubt.kind.name(), doubt.reason());
            meta.extend_from_slice(&[names.number(name), map.units(doubt.offset) as u32]);
        }
    });
    *reason = outcome.reason().map(str::to_owned);
    set(Field::MetaAt, meta.as_ptr() as usize);
    set(Field::MetaLen, meta.len());
}

/// `write_meta` into the module's own buffers (for `RawRepairer::finish`).
pub(crate) fn set_meta(outcome: &Outcome<'_>, map: &Utf16Map) {
    IO.with(|io| {
        let io = &mut *io.borrow_mut();
        write_meta(outcome, map, &mut io.meta, &mut io.reason);
    });
}

/// The reason of the last outcome written, if it had one.
#[wasm_bindgen]
pub fn take_reason() -> Option<String> {
    IO.with(|io| io.borrow_mut().reason.take())
}

/// The names from number `from` on, as JSON: `[{name, truncation?,
/// reason?}]` (a fix kind has `truncation`, a doubt kind `reason`).
/// JavaScript asks when it meets a number it has no name for.
#[wasm_bindgen]
pub fn names(from: usize) -> String {
    NAMES.with(|names| {
        let list: Vec<_> = names
            .borrow()
            .list
            .iter()
            .skip(from)
            .map(|name| match *name {
                Name::Verdict(name) => json!({"name": name}),
                Name::Fix(name, truncation) => json!({"name": name, "truncation": truncation}),
                Name::Doubt(name, reason) => json!({"name": name, "reason": reason}),
            })
            .collect();
        serde_json::Value::from(list).to_string()
    })
}
