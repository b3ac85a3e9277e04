//! From a position in the normalized text back to an input offset, so that
//! normalize-level fixes carry input offsets like the engine's.

use crate::repair::SourceMap;

/// How the text being normalized relates to the input.
#[derive(Debug, Clone)]
pub(super) enum Locator<'a> {
    /// The text is the input: offsets are the same.
    Identity,
    /// Everything traces back to one input offset (a wrapped or unwrapped value).
    Fixed(usize),
    /// Exact anchors from text positions to input offsets (a parsed command
    /// line); any other position maps to `fallback`.
    Anchors {
        anchors: Vec<(usize, usize)>,
        fallback: usize,
    },
    /// The engine rewrote the input and recorded where each piece of its
    /// output came from (`Options::source_map`).
    Mapped {
        input: &'a [u8],
        map: SourceMap,
        /// Where the last curly character was found: the string's text
        /// position, the character's rank and its input offset. Characters
        /// are asked for in order, so each search resumes from the last.
        cursor: Option<(usize, usize, usize)>,
    },
}

impl Locator<'_> {
    /// A locator over the engine's record of where its output came from.
    pub(super) fn mapped(input: &[u8], map: SourceMap) -> Locator<'_> {
        Locator::Mapped {
            input,
            map,
            cursor: None,
        }
    }

    /// The input offset where the value whose text starts at `at` came from.
    pub(super) fn value(&self, at: usize) -> usize {
        match self {
            Locator::Identity => at,
            Locator::Fixed(offset) => *offset,
            // Anchors are made in text order.
            Locator::Anchors { anchors, fallback } => anchors
                .binary_search_by_key(&at, |&(text_at, _)| text_at)
                .map_or(*fallback, |i| anchors[i].1),
            Locator::Mapped { map, .. } => map.input_offset(at),
        }
    }

    /// The input offset of the `nth` curly character (counting those kept
    /// too) of the string whose literal starts at `string_at`; `within` is
    /// the character's offset inside the literal's text. Characters are
    /// asked for in order.
    pub(super) fn in_string(&mut self, string_at: usize, within: usize, nth: usize) -> usize {
        let start = self.value(string_at);
        match self {
            Locator::Identity => string_at + within,
            Locator::Mapped { input, cursor, .. } => {
                // Resume after the last character found, or start in the
                // string, after its opening quote (which may be curly too).
                let (skip, from) = match *cursor {
                    Some((at, rank, offset)) if at == string_at && rank < nth => {
                        (nth - rank - 1, next_char(input, offset))
                    }
                    _ => (nth, after_quote(input, start)),
                };
                match nth_curly(input, from, skip) {
                    Some(offset) => {
                        *cursor = Some((string_at, nth, offset));
                        offset
                    }
                    None => from,
                }
            }
            _ => start,
        }
    }
}

/// The offset just after the character (or `\u` escape) at `offset`.
fn next_char(input: &[u8], offset: usize) -> usize {
    let len = match input.get(offset) {
        Some(b'\\') => 6,
        Some(&b) if b >= 0xF0 => 4,
        Some(&b) if b >= 0xE0 => 3,
        Some(&b) if b >= 0xC0 => 2,
        _ => 1,
    };
    (offset + len).min(input.len())
}

/// The offset after the quote that opens the string at `offset`: a straight,
/// curly or backtick quote (the engine reads each as one); `offset` itself
/// when the string was a bare word.
fn after_quote(input: &[u8], offset: usize) -> usize {
    let rest = &input[offset.min(input.len())..];
    let quote = [
        "\"", "'", "`", "\u{2018}", "\u{2019}", "\u{201C}", "\u{201D}",
    ]
    .iter()
    .find(|q| rest.starts_with(q.as_bytes()));
    offset + quote.map_or(0, |q| q.len())
}

/// The offset of the `nth` curly quote character (or `\u` escape of one) at
/// or after `from`.
fn nth_curly(input: &[u8], from: usize, nth: usize) -> Option<usize> {
    const CURLY: [&str; 8] = [
        "\u{2018}", "\u{2019}", "\u{2032}", "\u{201C}", "\u{201D}", "\u{2033}", "\u{00AB}",
        "\u{00BB}",
    ];
    const ESCAPES: [&[u8]; 8] = [
        b"\\u2018", b"\\u2019", b"\\u2032", b"\\u201c", b"\\u201d", b"\\u2033", b"\\u00ab",
        b"\\u00bb",
    ];
    let mut seen = 0;
    let mut i = from;
    while i < input.len() {
        let rest = &input[i..];
        let curly = CURLY.iter().find(|c| rest.starts_with(c.as_bytes()));
        let escape = ESCAPES
            .iter()
            .find(|e| rest.len() >= 6 && rest[..6].eq_ignore_ascii_case(e));
        let len = curly.map(|c| c.len()).or(escape.map(|e| e.len()));
        match len {
            Some(len) => {
                if seen == nth {
                    return Some(i);
                }
                seen += 1;
                i += len;
            }
            None => i += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_map_finds_the_input_of_each_value() {
        let input = b"{'a': 'x, y', b: 12, c: True}";
        let options = crate::repair::Options::default().source_map(true);
        let mut outcome = crate::repair::repair_with(input, options).unwrap();
        assert_eq!(outcome.text(), r#"{"a": "x, y", "b": 12, "c": true}"#);
        let map = outcome.take_sources().unwrap();
        let locator = Locator::mapped(input, map);
        assert_eq!(locator.value(6), 6); // "x, y" ← 'x, y'
        assert_eq!(locator.value(19), 17); // 12
        assert_eq!(locator.value(28), 24); // true ← True
    }

    #[test]
    fn a_curly_opening_quote_is_not_a_character_of_the_string() {
        let input = "{“c”: “a ‘b’”}".as_bytes();
        assert_eq!(after_quote(input, 10), 13);
        assert_eq!(after_quote(input, 13), 13);
        assert_eq!(after_quote(b"'x'", 0), 1);
    }

    #[test]
    fn curly_characters_are_found_by_rank() {
        let input = "{c: 'a “b” \\u2019'}".as_bytes();
        assert_eq!(nth_curly(input, 4, 0), Some(7));
        assert_eq!(nth_curly(input, 4, 1), Some(11));
        assert_eq!(nth_curly(input, 4, 2), Some(15));
        assert_eq!(nth_curly(input, 4, 3), None);
    }
}
