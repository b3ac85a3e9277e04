//! `RawRepairer`: the engine's push repairer for one stream.
//!
//! The engine runs with `Retain::Unreturned`: once `feed` has handed a piece
//! of committed text to JavaScript, the module forgets it. The wrapper keeps
//! the text (or not, when the caller only wants the pieces), so the module's
//! memory stays flat however long the stream. A snapshot is then the text
//! the wrapper holds plus `snapshot_tail()`: what the engine would add to
//! close everything that is open (a closing quote, brackets), usually a few
//! bytes, so a snapshot after every chunk costs the tail, not the text.

use argmend::{Options, Repairer, Retain};
use wasm_bindgen::prelude::*;

use crate::offsets::Utf16Map;
use crate::oneshot::{set_bytes, set_meta, set_tail, with_input};
use crate::{error, fix_json, has_replacement_char, limit_error, options};

/// One stream of chunks in, committed text out.
#[wasm_bindgen]
pub struct RawRepairer {
    /// `None` once finished.
    inner: Option<Repairer>,
    /// Bytes of the piece the last `feed` returned: the engine's snapshot
    /// starts with it.
    last: usize,
    map: Utf16Map,
    /// `feed_input_coded`'s committed text, when JavaScript must read it (from
    /// the module's memory: `oneshot::set_bytes`).
    text: String,
    /// `feed_input_coded`'s last tail; `None` after any other feed, when
    /// JavaScript's copy of the tail may be another.
    tail: Option<String>,
    /// Room for the next tail, kept so a chunk allocates nothing.
    scratch: String,
    /// The error `feed_input_coded` answered `FAILED` for.
    error: Option<JsValue>,
}

/// `feed_input_coded`'s answer when it fails (no code has every bit set:
/// the units it counts stay below 2^28).
const FAILED: u32 = u32::MAX;

/// The length of `text` in UTF-16 code units.
fn utf16_len(text: &str) -> usize {
    if text.is_ascii() {
        text.len()
    } else {
        text.encode_utf16().count()
    }
}

#[wasm_bindgen]
impl RawRepairer {
    /// `options`: JSON text of the wrapper's options (empty: defaults).
    #[wasm_bindgen(constructor)]
    pub fn new(options: &str) -> Result<RawRepairer, JsValue> {
        let options::RepairOptions { engine, hints } = options::repair(options)?;
        let engine: Options = engine.retain(Retain::Unreturned);
        let inner = match hints {
            Some(hints) => Repairer::with_hints(engine, hints),
            None => Repairer::new(engine),
        };
        Ok(RawRepairer {
            inner: Some(inner),
            last: 0,
            map: Utf16Map::default(),
            text: String::new(),
            tail: None,
            scratch: String::new(),
            error: None,
        })
    }

    fn repairer(&mut self) -> Result<&mut Repairer, JsValue> {
        self.inner
            .as_mut()
            .ok_or_else(|| error("finished", "this Repairer has finished"))
    }

    /// Feed a chunk of text (whole characters: the wrapper holds back a
    /// high surrogate that ends a chunk). Returns the newly committed text.
    pub fn feed_str(&mut self, chunk: &str) -> Result<String, JsValue> {
        self.tail = None;
        self.feed_text(chunk)
    }

    fn feed_text(&mut self, chunk: &str) -> Result<String, JsValue> {
        let committed = self
            .repairer()?
            .feed(chunk.as_bytes())
            .map_err(|why| limit_error(&why))?
            .to_owned();
        self.map.push_str(chunk);
        self.last = committed.len();
        Ok(committed)
    }

    /// Feed a chunk of UTF-8 bytes; it may split a character.
    pub fn feed_bytes(&mut self, chunk: &[u8]) -> Result<String, JsValue> {
        self.tail = None;
        let committed = self
            .repairer()?
            .feed(chunk)
            .map_err(|why| limit_error(&why))?
            .to_owned();
        self.map.push_bytes(chunk.len());
        self.last = committed.len();
        Ok(committed)
    }

    /// What follows the committed text in the snapshot (empty before a
    /// value starts, and when nothing is open).
    pub fn snapshot_tail(&self) -> Result<String, JsValue> {
        let mut tail = String::new();
        self.push_tail(&mut tail)?;
        Ok(tail)
    }

    /// `feed_str` and `snapshot_tail` in one call, on the `len` bytes of
    /// the chunk's UTF-8 JavaScript wrote at `input_buffer` (as a one-shot
    /// input: wasm-bindgen's `&str` cost a JavaScript loop, an allocation
    /// and a free per chunk), for a caller that takes
    /// a snapshot after every chunk, without building a string where
    /// JavaScript has it already: on a stream of small chunks, turning the
    /// module's output into JavaScript strings costs more than the engine,
    /// and mostly the committed text is the start of the chunk itself and
    /// the tail (a closing quote, brackets) has not changed. Returns a code:
    /// bits 0–1 say what was committed (0 nothing, 1 the chunk's first
    /// `code >> 3` UTF-16 units, 2 other text, whose UTF-8 the header's
    /// bytes fields point at), bit 2 that the tail is the previous one; the
    /// header's tail fields point at the tail either way (`oneshot::Field`).
    /// JavaScript reads both from the module's memory, as a one-shot answer:
    /// a short ASCII text by a loop, where wasm-bindgen's `String` went
    /// through `TextDecoder`, which costs more than the engine's whole
    /// step on a 16-byte chunk. `FAILED` when it throws: the error waits for
    /// `take_error` (a `Result` crosses as three values and a table slot,
    /// on every chunk).
    pub fn feed_input_coded(&mut self, len: usize) -> u32 {
        match with_input(len, |chunk| self.feed_coded(chunk)) {
            Ok(code) => code,
            Err(why) => {
                self.error = Some(why);
                FAILED
            }
        }
    }

    /// The error of the last `feed_input_coded` that answered `FAILED`.
    pub fn take_error(&mut self) -> JsValue {
        self.error.take().unwrap_or(JsValue::UNDEFINED)
    }

    fn feed_coded(&mut self, chunk: &[u8]) -> Result<u32, JsValue> {
        // No allocation per chunk: the committed text is looked at where the
        // engine keeps it and copied only when JavaScript must read it, and
        // the tail is built in a buffer kept from chunk to chunk.
        let fed = match self.inner.as_mut() {
            Some(repairer) => repairer.feed(chunk),
            None => {
                self.tail = None;
                return Err(error("finished", "this Repairer has finished"));
            }
        };
        let committed = match fed {
            Ok(committed) => committed,
            Err(why) => {
                self.tail = None;
                return Err(limit_error(&why));
            }
        };
        self.map.push_utf8(chunk);
        self.last = committed.len();
        let mut code = if committed.is_empty() {
            0
        } else if let Some(units) = (chunk.starts_with(committed.as_bytes())
            // The chunk's U+FFFD may stand for a lone surrogate of the
            // caller's string (`putString`'s encoding writes one for it),
            // which the committed text must not keep: then it is read from
            // here (`oneshot.rs` `Answer::write` guards its pieces alike).
            && (committed.is_ascii() || !has_replacement_char(committed.as_bytes())))
        .then(|| utf16_len(committed))
        .filter(|&units| units < 1 << 28)
        {
            1 | (units as u32) << 3
        } else {
            self.text.clear();
            self.text.push_str(committed);
            set_bytes(self.text.as_bytes());
            2
        };
        let mut tail = std::mem::take(&mut self.scratch);
        tail.clear();
        self.push_tail(&mut tail)?;
        if self.tail.as_ref() == Some(&tail) {
            code |= 4;
            self.scratch = tail;
        } else {
            self.scratch = self.tail.replace(tail).unwrap_or_default();
        }
        set_tail(self.tail.as_deref().unwrap_or_default().as_bytes());
        Ok(code)
    }

    fn push_tail(&self, tail: &mut String) -> Result<(), JsValue> {
        let Some(repairer) = &self.inner else {
            return Err(error("finished", "this Repairer has finished"));
        };
        let mut skip = self.last;
        for piece in repairer.snapshot().pieces() {
            match piece.get(skip..) {
                Some(rest) => {
                    tail.push_str(rest);
                    skip = 0;
                }
                None => skip -= piece.len().min(skip),
            }
        }
        Ok(())
    }

    /// The fixes so far that no later input can undo, as JSON (`[{kind,
    /// offset, truncation}]`); `finish` then reports only the rest. A long
    /// stream that takes them as it goes keeps the engine's fix log, and so
    /// the module's memory, bounded.
    pub fn take_fixes(&mut self) -> Result<String, JsValue> {
        let fixes = self.repairer()?.take_fixes();
        let fixes: Vec<_> = fixes.iter().map(|fix| fix_json(fix, &self.map)).collect();
        Ok(serde_json::Value::Array(fixes).to_string())
    }

    /// Input bytes fed so far.
    pub fn bytes_fed(&self) -> f64 {
        self.inner.as_ref().map_or(0, Repairer::bytes_fed) as f64
    }

    /// End the input; returns the text not handed out yet. The verdict,
    /// fixes and doubts are numbers in the module's memory, as after
    /// `repair_input` (`oneshot.rs`). Frees the engine's state.
    pub fn finish(&mut self) -> Result<String, JsValue> {
        let repairer = self
            .inner
            .take()
            .ok_or_else(|| error("finished", "this Repairer has finished"))?;
        let outcome = repairer.finish().map_err(|why| limit_error(&why))?;
        set_meta(&outcome, &self.map);
        Ok(outcome.into_text().into_owned())
    }
}
