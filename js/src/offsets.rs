//! Byte offsets (the engine's) to UTF-16 code-unit offsets (JavaScript's).
//!
//! A JavaScript string indexes UTF-16 code units: `é` is one unit and two
//! UTF-8 bytes, `😀` two units and four bytes. The map keeps one entry per
//! non-ASCII character, so ASCII input (most tool calls) costs nothing, and
//! a lookup is a binary search.

/// Where each non-ASCII character of the input ends: `(byte, unit)`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Utf16Map {
    /// Offsets count bytes (the input came as `Uint8Array`): no conversion.
    bytes: bool,
    ends: Vec<(usize, usize)>,
    /// Bytes and units of everything added so far.
    total: (usize, usize),
}

impl Utf16Map {
    /// A map that converts nothing: offsets into a byte array.
    pub(crate) fn bytes() -> Self {
        Utf16Map {
            bytes: true,
            ..Utf16Map::default()
        }
    }

    /// The map of one whole string.
    pub(crate) fn of_str(text: &str) -> Self {
        Self::of_utf8(text.as_bytes())
    }

    /// The map of one whole string, as UTF-8 (valid: the input buffer
    /// `TextEncoder.encodeInto` wrote).
    pub(crate) fn of_utf8(text: &[u8]) -> Self {
        let mut map = Utf16Map::default();
        map.push_utf8(text);
        map
    }

    /// Add the next piece of a streamed string.
    ///
    /// Runs of ASCII are skipped eight bytes at a time: the character-by-
    /// character walk it replaces cost about 50 µs more on the 50 KB
    /// `write_file` call of `js/bench/speed.mjs` (13% of `repair_str` and
    /// `take_meta` there, 400 µs before).
    pub(crate) fn push_str(&mut self, text: &str) {
        self.push_utf8(text.as_bytes());
    }

    /// `push_str` on a string's UTF-8 (valid: a `str`'s, or what
    /// `encodeInto` wrote).
    pub(crate) fn push_utf8(&mut self, bytes: &[u8]) {
        let base = self.total.0;
        // Bytes minus units so far: a character of `len` UTF-8 bytes is one
        // UTF-16 unit (two from four bytes), so this only grows.
        let mut extra = self.total.0 - self.total.1;
        let mut i = 0;
        loop {
            while let Some(word) = bytes.get(i..i + 8) {
                let word = u64::from_le_bytes(word.try_into().unwrap_or([0x80; 8]));
                if word & 0x8080_8080_8080_8080 != 0 {
                    break;
                }
                i += 8;
            }
            while i < bytes.len() && bytes[i] < 0x80 {
                i += 1;
            }
            let Some(&lead) = bytes.get(i) else { break };
            // The bytes are UTF-8: `lead` starts a character of 2 to 4 bytes.
            let (len, units) = match lead {
                0xf0.. => (4, 2),
                0xe0.. => (3, 1),
                _ => (2, 1),
            };
            extra += len - units;
            i += len;
            self.ends.push((base + i, base + i - extra));
        }
        self.total = (base + bytes.len(), base + bytes.len() - extra);
    }

    /// Add the next piece of a streamed byte array (counted as bytes).
    pub(crate) fn push_bytes(&mut self, len: usize) {
        self.bytes = true;
        self.total = (self.total.0 + len, self.total.1 + len);
    }

    /// The offset, in the caller's units, of input byte `byte`.
    pub(crate) fn units(&self, byte: usize) -> usize {
        if self.bytes || self.ends.is_empty() {
            return byte;
        }
        // The last character that ends at or before `byte`; after it, ASCII.
        let i = self.ends.partition_point(|&(end, _)| end <= byte);
        match i.checked_sub(1) {
            None => byte,
            Some(i) => {
                let (end, unit) = self.ends[i];
                unit + (byte - end)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Utf16Map;

    #[test]
    fn ascii_is_identity() {
        let map = Utf16Map::of_str("{\"a\": 1}");
        assert_eq!(map.units(5), 5);
    }

    #[test]
    fn every_char_boundary_maps_to_its_utf16_index() {
        let text = "a\u{e9}b\u{1F600}c\u{4e2d}\u{6587}d";
        let map = Utf16Map::of_str(text);
        for (byte, _) in text.char_indices().chain([(text.len(), ' ')]) {
            let units = text[..byte].encode_utf16().count();
            assert_eq!(map.units(byte), units, "byte {byte}");
        }
    }

    #[test]
    fn long_mixed_text_maps_at_every_boundary() {
        // ASCII runs longer and shorter than a word, between every width.
        let mut text = String::new();
        for (i, c) in ["\u{e9}", "\u{1F600}", "\u{4e2d}", "x", "\u{7f}"]
            .iter()
            .cycle()
            .take(60)
            .enumerate()
        {
            text.push_str(&"a".repeat(i % 11));
            text.push_str(c);
        }
        let map = Utf16Map::of_str(&text);
        for (byte, _) in text.char_indices().chain([(text.len(), ' ')]) {
            assert_eq!(
                map.units(byte),
                text[..byte].encode_utf16().count(),
                "byte {byte}"
            );
        }
        assert_eq!(map.total, (text.len(), text.encode_utf16().count()));
    }

    #[test]
    fn streamed_pieces_map_as_the_whole() {
        let pieces = [
            "{\"k\u{e9}y\": \"",
            "\u{1F600}\u{1F600}",
            "abc",
            "\u{e9}\"}",
        ];
        let whole: String = pieces.concat();
        let mut map = Utf16Map::default();
        pieces.iter().for_each(|piece| map.push_str(piece));
        for (byte, _) in whole.char_indices() {
            assert_eq!(map.units(byte), whole[..byte].encode_utf16().count());
        }
    }
}
