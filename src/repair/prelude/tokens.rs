//! The prelude's token scanners: how far a strictly valid string body,
//! escape or number goes in what has arrived.

/// Whether the body's stop at `k` is only cut by the end of the input: an
/// escape that may still complete. (A character cut by the chunk's end is
/// never in the text, see `Prelude::append`; a twin of a quote is whole.)
pub(super) fn cut_at(src: &[u8], k: usize) -> bool {
    match src[k] {
        b'\\' => {
            let rest = &src[k..];
            // `\`, `\u`, `\u00`, or a high surrogate waiting for its low one.
            match rest.get(1) {
                None => true,
                Some(b'u') => {
                    let hex = &rest[2..rest.len().min(6)];
                    if !hex.iter().all(u8::is_ascii_hexdigit) {
                        return false;
                    }
                    if rest.len() < 6 {
                        return true;
                    }
                    // A whole `\uD8xx`: its low half may follow.
                    let low = &rest[6..];
                    low.len() < 6
                        && b"\\u".starts_with(&low[..low.len().min(2)])
                        && low.iter().skip(2).all(u8::is_ascii_hexdigit)
                }
                Some(_) => false,
            }
        }
        _ => false,
    }
}

/// Where an escape that may end at `end` (after `body`) starts: the first
/// backslash of the last 12 bytes, the longest escape (`\uD83D\uDE00`).
/// It may be earlier than the escape's start, never later: it only holds
/// back more.
pub(super) fn escape_before(src: &[u8], body: usize, end: usize) -> Option<usize> {
    let from = end.saturating_sub(12).max(body);
    src[from..end]
        .iter()
        .position(|&b| b == b'\\')
        .map(|k| from + k)
}

/// A key's first byte that the machine does not read as a key's.
pub(super) fn odd_key_start(b: u8) -> bool {
    matches!(b, b',' | b':' | b'{' | b'[' | b'}' | b']')
}

/// Whether `s` may begin a strictly valid number.
pub(super) fn number_prefix(s: &[u8]) -> bool {
    // States: 0 start, 1 after `-`, 2 after a leading `0`, 3 in integer
    // digits, 4 after `.`, 5 in fraction, 6 after `e`, 7 after its sign,
    // 8 in exponent digits.
    let mut st = 0u8;
    for &b in s {
        st = match (st, b) {
            (0, b'-') => 1,
            (0 | 1, b'0') => 2,
            (0 | 1, b'1'..=b'9') => 3,
            (3, b'0'..=b'9') => 3,
            (2 | 3, b'.') => 4,
            (4 | 5, b'0'..=b'9') => 5,
            (2 | 3 | 5, b'e' | b'E') => 6,
            (6, b'+' | b'-') => 7,
            (6..=8, b'0'..=b'9') => 8,
            _ => return false,
        };
    }
    true
}
