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
use crate::{error, fix_json, limit_error, options, outcome_meta, set_meta};

thread_local! {
    /// The split of the last `feed_str_snapshot` (the module is one thread).
    static SPLIT: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// One stream of chunks in, committed text out.
#[wasm_bindgen]
pub struct RawRepairer {
    /// `None` once finished.
    inner: Option<Repairer>,
    /// Bytes of the piece the last `feed` returned: the engine's snapshot
    /// starts with it.
    last: usize,
    map: Utf16Map,
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

    /// `feed_str` and `snapshot_tail` in one call, for a caller that takes a
    /// snapshot after every chunk: the committed text and the tail in one
    /// string, split where `last_split()` says (in UTF-16 units). One
    /// crossing and one string instead of two: on a stream of 16-byte
    /// chunks the crossings cost more than the engine.
    pub fn feed_str_snapshot(&mut self, chunk: &str) -> Result<String, JsValue> {
        let mut out = self.feed_str(chunk)?;
        let split = if out.is_ascii() {
            out.len()
        } else {
            out.encode_utf16().count()
        };
        self.push_tail(&mut out)?;
        SPLIT.with(|cell| cell.set(split as u32));
        Ok(out)
    }

    /// Where the last `feed_str_snapshot`'s committed text ends, in UTF-16 units.
    pub fn last_split(&self) -> u32 {
        SPLIT.with(std::cell::Cell::get)
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
    /// fixes and doubts are in `take_meta`. Frees the engine's state.
    pub fn finish(&mut self) -> Result<String, JsValue> {
        let repairer = self
            .inner
            .take()
            .ok_or_else(|| error("finished", "this Repairer has finished"))?;
        let outcome = repairer.finish().map_err(|why| limit_error(&why))?;
        set_meta(outcome_meta(&outcome, &self.map));
        Ok(outcome.into_text().into_owned())
    }
}
