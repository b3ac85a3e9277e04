//! The output buffer: every byte the engine writes goes through here.
//!
//! Positions are absolute: the offset in the whole output since the first
//! byte, whatever has been drained from the front since (a streaming caller
//! takes committed text, and the buffer lets go of it). Holding that one
//! convention in one type is the point: before it, call sites subtracted the
//! drained length by hand at each use.

use std::ops::Range;

use super::source::SourceMap;
use super::text::text_at;

#[derive(Debug, Clone, Default)]
pub(super) struct Out {
    /// The output from `base` on, after `dead` bytes already let go of.
    text: String,
    /// How many bytes were drained from the front.
    base: usize,
    /// Bytes at the front of `text` that were drained but not yet removed:
    /// they are removed once they are as many as the bytes held, so each
    /// byte is moved O(1) times. Removing them on every drain moved the
    /// whole held window (8 KiB) for each 16-byte feed of a stream, half
    /// the engine's time on small chunks. Nothing but storage sees them.
    dead: usize,
    /// Where the output came from, when asked for: kept here so that every
    /// insertion and cut moves the anchors with the text.
    sources: Option<Box<SourceMap>>,
}

impl Out {
    /// The absolute end: everything written so far.
    #[inline]
    pub(super) fn len(&self) -> usize {
        self.base + self.text.len() - self.dead
    }

    /// The absolute position of the first byte still held.
    #[inline]
    pub(super) fn base(&self) -> usize {
        self.base
    }

    /// The text still held, from [`Out::base`] on.
    #[inline]
    pub(super) fn held(&self) -> &str {
        &self.text[self.dead..]
    }

    /// The index in `text` of absolute position `at` (held, or its end).
    #[inline]
    fn index(&self, at: usize) -> usize {
        at - self.base + self.dead
    }

    #[inline]
    pub(super) fn push(&mut self, c: char) {
        self.text.push(c);
    }

    #[inline]
    pub(super) fn push_str(&mut self, text: &str) {
        self.text.push_str(text);
    }

    /// Bytes known to be ASCII (whitespace, digits), one char each.
    #[inline]
    pub(super) fn push_ascii(&mut self, bytes: &[u8]) {
        debug_assert!(bytes.is_ascii());
        self.text.extend(bytes.iter().map(|&b| char::from(b)));
    }

    /// Room for `additional` more bytes.
    pub(super) fn reserve(&mut self, additional: usize) {
        if self.text.capacity() == 0 {
            // A first allocation straight away: `reserve` on an empty
            // string takes the growth path (about 200 instructions more,
            // 2% of a 192-byte call).
            self.text = String::with_capacity(additional);
            return;
        }
        self.text.reserve(additional);
    }

    /// The held text between two absolute positions.
    #[inline]
    pub(super) fn range(&self, range: Range<usize>) -> &str {
        &self.text[self.index(range.start)..self.index(range.end)]
    }

    /// The held text from an absolute position on (from the first byte
    /// held, for a position already drained).
    #[inline]
    pub(super) fn since(&self, from: usize) -> &str {
        self.held()
            .get(from.saturating_sub(self.base)..)
            .unwrap_or_default()
    }

    /// Insert `text` at an absolute position.
    pub(super) fn insert_str(&mut self, at: usize, text: &str) {
        let i = self.index(at);
        self.text.insert_str(i, text);
        if let Some(map) = &mut self.sources {
            map.shift(at, text.len());
        }
    }

    /// Remove the character at an absolute position.
    pub(super) fn remove(&mut self, at: usize) -> char {
        let c = self.text.remove(self.index(at));
        if let Some(map) = &mut self.sources {
            map.unshift(at, c.len_utf8());
        }
        c
    }

    /// Cut the output back to an absolute position.
    pub(super) fn truncate(&mut self, at: usize) {
        self.text.truncate(self.index(at));
        if let Some(map) = &mut self.sources {
            map.cut(at);
        }
    }

    /// Start recording where output comes from (see [`SourceMap`]).
    pub(super) fn record_sources(&mut self) {
        self.sources = Some(Box::default());
    }

    /// The output from absolute position `out` on comes from input offset
    /// `input` on; a no-op unless sources are recorded.
    #[inline]
    pub(super) fn note_source(&mut self, out: usize, input: usize) {
        if let Some(map) = &mut self.sources {
            map.note(out, input);
        }
    }

    /// The recorded sources, for an input of `input_len` bytes.
    pub(super) fn take_sources(&mut self, input_len: usize) -> Option<SourceMap> {
        let mut map = *self.sources.take()?;
        map.set_input_len(input_len);
        Some(map)
    }

    /// Let go of the held text before an absolute position.
    /// The nearest character boundary at or before absolute position `at`
    /// (and not before the first byte held).
    pub(super) fn boundary_at_or_before(&self, at: usize) -> usize {
        let held = self.held();
        let mut k = at.saturating_sub(self.base).min(held.len());
        while !held.is_char_boundary(k) {
            k -= 1;
        }
        self.base + k
    }

    pub(super) fn drain_to(&mut self, at: usize) {
        self.dead += at - self.base;
        self.base = at;
        if self.dead >= self.text.len() - self.dead {
            self.text.drain(..self.dead);
            self.dead = 0;
        }
    }

    /// The whole output, when nothing was drained; else what is held.
    pub(super) fn into_string(mut self) -> String {
        self.text.drain(..self.dead);
        self.text
    }

    /// `text` as the body of a JSON string (see `text::escape_into`);
    /// `true` if invalid UTF-8 was replaced.
    pub(super) fn push_escaped(&mut self, text: &[u8]) -> bool {
        super::text::escape_into(&mut self.text, text)
    }
}

/// [`Machine::write_out`] on the fields it needs, so a caller can hold a
/// `&str` borrowed from the input while it writes.
pub(in crate::repair) fn write_unwritten(
    src: &[u8],
    whole: Option<&str>,
    out: &mut Out,
    unwritten: &mut usize,
) {
    if *unwritten > 0 {
        let from = out.len();
        // The lane leaves output unwritten only when it checked it (or the
        // whole input) first.
        match text_at(src, whole, from, from + *unwritten) {
            Ok(text) => out.push_str(text),
            // Never dropped, should the lane's check ever be wrong.
            Err(_) => out.push_str(&String::from_utf8_lossy(&src[from..from + *unwritten])),
        }
        *unwritten = 0;
    }
}
