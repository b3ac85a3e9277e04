//! The prelude's token scanners: how far a strictly valid string body,
//! escape or number goes in what has arrived.

use crate::lex::{self, Quote};
use crate::repair::strict::escape_len;
use crate::repair::text::find_quote_escape_control_or_twin;

/// Scan a string's body from `k`: (where it stops, the index past its
/// closing quote if it has one). `escape` is set to where each escape read
/// starts (so the commit point looks for one only when one is near).
#[inline(always)]
pub(super) fn scan_text(src: &[u8], mut k: usize, escape: &mut usize) -> (usize, Option<usize>) {
    loop {
        let Some(n) = find_quote_escape_control_or_twin(&src[k..]) else {
            return (src.len(), None);
        };
        k += n;
        match src[k] {
            b'"' => return (k, Some(k + 1)),
            b'\\' => match escape_len(src, k) {
                Some(len) => {
                    *escape = k;
                    k += len;
                }
                None => return (k, None),
            },
            0xE2 | 0xEF => {
                let twin = match src.get(k..k + 3) {
                    Some(three) => {
                        lex::quote_at(three).is_some_and(|(q, _)| q == Quote::DoubleLike)
                    }
                    None => return (k, None),
                };
                if twin {
                    return (k, None);
                }
                k += 1;
            }
            0xE0..=0xFF => k += 1,
            _ => return (k, None),
        }
    }
}

/// Whether the body's stop at `k` is only cut by the end of the input: an
/// escape that may still complete, or a lead byte whose character has not
/// all arrived.
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
        0xE2 | 0xEF => src.len() - k < 3,
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

pub(super) fn utf8_len(lead: u8) -> usize {
    match lead {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    }
}

/// Whether a number or literal ends before `b`.
pub(super) fn ends_token(b: u8) -> bool {
    lex::is_ws(b) || matches!(b, b',' | b'}' | b']')
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

/// Whether `s` (a valid prefix) is a whole number.
pub(super) fn number_whole(s: &[u8]) -> bool {
    matches!(s.last(), Some(b'0'..=b'9'))
}
