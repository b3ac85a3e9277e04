//! From a position in the normalized text back to an input offset, so that
//! normalize-level fixes carry input offsets like the engine's.

use crate::repair::{Hints, Options, Repairer, Retain, Values};

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
    /// The engine rewrote the input. Replaying it one byte at a time tells
    /// which input byte committed each output byte; built on first use only.
    Replay {
        input: &'a [u8],
        options: Options,
        hints: Hints,
        commits: Option<Vec<usize>>,
        /// Where the last curly character was found: the string's text
        /// position, the character's rank and its input offset. Characters
        /// are asked for in order, so each search resumes from the last.
        cursor: Option<(usize, usize, usize)>,
    },
}

/// The bytes that end a bare token when scanning backwards.
fn is_boundary(b: u8) -> bool {
    matches!(
        b,
        b',' | b':' | b'[' | b']' | b'{' | b'}' | b'(' | b')' | b'\n' | b'"' | b'\'' | b'`'
    )
}

impl Locator<'_> {
    /// A locator that replays `input` through the engine with `options`.
    pub(super) fn replay<'a>(input: &'a [u8], options: Options, hints: &Hints) -> Locator<'a> {
        Locator::Replay {
            input,
            options,
            hints: hints.clone(),
            commits: None,
            cursor: None,
        }
    }

    /// The input offset where the value whose text starts at `at` came from.
    pub(super) fn value(&mut self, at: usize) -> usize {
        match self {
            Locator::Identity => at,
            Locator::Fixed(offset) => *offset,
            // Anchors are made in text order.
            Locator::Anchors { anchors, fallback } => anchors
                .binary_search_by_key(&at, |&(text_at, _)| text_at)
                .map_or(*fallback, |i| anchors[i].1),
            Locator::Replay {
                input,
                options,
                hints,
                commits,
                ..
            } => {
                let commits = commits.get_or_insert_with(|| commit_map(input, *options, hints));
                // The first input byte whose arrival committed text byte `at`.
                let i = commits.partition_point(|&n| n <= at).min(input.len());
                token_start(input, i)
            }
        }
    }

    /// The input offset of the `nth` curly character replaced in the string
    /// whose literal starts at `string_at`; `within` is the character's
    /// offset inside the literal's text.
    pub(super) fn in_string(&mut self, string_at: usize, within: usize, nth: usize) -> usize {
        match self {
            Locator::Identity => string_at + within,
            Locator::Replay { .. } => {
                let resume = match self {
                    Locator::Replay {
                        cursor: Some((at, rank, offset)),
                        ..
                    } if *at == string_at && *rank < nth => Some((*rank, *offset)),
                    _ => None,
                };
                // Resume after the last character found, or start at the string.
                let (skip, from) = match resume {
                    Some((rank, offset)) => (nth - rank - 1, next_char(self, offset)),
                    None => (nth, self.value(string_at)),
                };
                let Locator::Replay { input, cursor, .. } = self else {
                    return from;
                };
                match nth_curly(input, from, skip) {
                    Some(offset) => {
                        *cursor = Some((string_at, nth, offset));
                        offset
                    }
                    None => from,
                }
            }
            _ => self.value(string_at),
        }
    }
}

/// The offset just after the character at `offset` of a replayed input.
fn next_char(locator: &Locator<'_>, offset: usize) -> usize {
    match locator {
        Locator::Replay { input, .. } => {
            let len = match input.get(offset) {
                Some(b'\\') => 6,
                Some(&b) if b >= 0xF0 => 4,
                Some(&b) if b >= 0xE0 => 3,
                Some(&b) if b >= 0xC0 => 2,
                _ => 1,
            };
            (offset + len).min(input.len())
        }
        _ => offset + 1,
    }
}

/// For each input byte, the committed output length once it was fed; the
/// last entry is the length after `finish`.
fn commit_map(input: &[u8], options: Options, hints: &Hints) -> Vec<usize> {
    let options = options.values(Values::First).retain(Retain::Unreturned);
    let mut repairer = Repairer::with_hints(options, hints.clone());
    let mut commits = Vec::with_capacity(input.len() + 1);
    let mut total = 0;
    for &byte in input {
        // The original run succeeded with the same options, so this cannot
        // fail; if it did, later positions all map to the end.
        if let Ok(piece) = repairer.feed(&[byte]) {
            total += piece.len();
        }
        commits.push(total);
    }
    commits.push(total + repairer.finish().map_or(0, |outcome| outcome.text().len()));
    commits
}

/// The start of the token that the byte at `i` committed: `i` itself for an
/// opening quote or bracket; otherwise the engine had to see the byte after a
/// bare token (a number, a word), so step back over it.
fn token_start(input: &[u8], i: usize) -> usize {
    if let Some(&b) = input.get(i)
        && (matches!(b, b'"' | b'\'' | b'`' | b'{' | b'[' | b'(') || b >= 0x80)
    {
        return i;
    }
    let mut start = i;
    while start > 0 && !is_boundary(input[start - 1]) {
        start -= 1;
    }
    while start < i && input[start].is_ascii_whitespace() {
        start += 1;
    }
    start
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
    fn replay_finds_the_input_of_each_value() {
        let input = b"{'a': 'x, y', b: 12, c: True}";
        // {"a": "x, y", "b": 12, "c": true}
        let mut locator = Locator::replay(input, Options::default(), &Hints::default());
        assert_eq!(locator.value(6), 6); // "x, y" ← 'x, y'
        assert_eq!(locator.value(19), 17); // 12
        assert_eq!(locator.value(28), 24); // true ← True
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
