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
        let mut map = Utf16Map::default();
        map.push_str(text);
        map
    }

    /// Add the next piece of a streamed string.
    pub(crate) fn push_str(&mut self, text: &str) {
        let (mut byte, mut unit) = self.total;
        if text.is_ascii() {
            self.total = (byte + text.len(), unit + text.len());
            return;
        }
        let mut ascii_run = 0;
        for c in text.chars() {
            if c.is_ascii() {
                ascii_run += 1;
                continue;
            }
            byte += ascii_run + c.len_utf8();
            unit += ascii_run + c.len_utf16();
            ascii_run = 0;
            self.ends.push((byte, unit));
        }
        self.total = (byte + ascii_run, unit + ascii_run);
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
