//! The fast lane's strict token scanners: where a strictly valid JSON
//! string, escape, number or literal starting at an index ends. They are
//! the lane's own (over the bytes that have arrived, `None` when a token
//! may still grow), apart from `fast/` so its loop reads as the grammar.

use super::text::{find_quote_escape_control_or_twin, find_quote_escape_or_control};
use crate::lex::{self, Quote};

/// Whether a number or literal ending at `e` is complete: whitespace or a
/// `,`, `}` or `]` follows (anything else may continue it, or make it a word).
#[inline]
pub(super) fn token_ends(src: &[u8], e: usize) -> bool {
    matches!(src.get(e), Some(&c) if lex::is_ws(c) || matches!(c, b',' | b'}' | b']'))
}

/// The index just past the closing quote of the strictly valid JSON
/// string whose body starts at `k`, or `None` (invalid, or not complete yet).
#[inline(always)]
pub(super) fn scan_body(src: &[u8], k: usize) -> Option<usize> {
    scan_body_prefix(src, k).1
}

/// How far the strictly valid body from `k` goes: the index of the first
/// byte the lane cannot take (its closing quote, an escape that is cut off
/// or invalid, a control character, or the end of `src`), and, when that
/// byte is the closing quote, the index just past it.
#[inline(always)]
pub(super) fn scan_body_prefix(src: &[u8], k: usize) -> (usize, Option<usize>) {
    scan_prefix::<false>(src, k, &mut 0)
}

/// [`scan_body_prefix`] for the lane, which also stops before a
/// typographic double quote (`”`): the twin of a string's `"` may end it,
/// which is the quote judge's question, so the lane leaves it to the machine.
/// Other characters with the same lead bytes (`—`, `…`, `’`) are text.
#[inline(always)]
pub(super) fn scan_value_prefix(src: &[u8], k: usize) -> (usize, Option<usize>) {
    scan_prefix::<true>(src, k, &mut 0)
}

/// [`scan_value_prefix`] that also sets `escape` to where each escape it
/// reads starts: a stream's prelude holds an escape at the end of what it
/// commits, and looks for one only when one was read near.
#[inline(always)]
pub(super) fn scan_value_prefix_noting_escapes(
    src: &[u8],
    k: usize,
    escape: &mut usize,
) -> (usize, Option<usize>) {
    scan_prefix::<true>(src, k, escape)
}

/// The two scans above, one loop: `TWINS` says whether a twin of `"`
/// stops it (the search then stops at every lead byte of a three- or
/// four-byte character, and those of other characters are stepped over).
/// `escape` is where the last escape read starts.
#[inline(always)]
fn scan_prefix<const TWINS: bool>(
    src: &[u8],
    mut k: usize,
    escape: &mut usize,
) -> (usize, Option<usize>) {
    loop {
        let found = if TWINS {
            find_quote_escape_control_or_twin(&src[k..])
        } else {
            find_quote_escape_or_control(&src[k..])
        };
        let Some(n) = found else {
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
            0xE2 | 0xEF if TWINS => {
                let twin = match src.get(k..k + 3) {
                    Some(three) => {
                        lex::quote_at(three).is_some_and(|(q, _)| q == Quote::DoubleLike)
                    }
                    // Cut by the end of what arrived: it may be one.
                    None => true,
                };
                if twin {
                    return (k, None);
                }
                k += 1;
            }
            // The lead byte of another character: text.
            0xE0..=0xFF if TWINS => k += 1,
            _ => return (k, None),
        }
    }
}

/// The length of the strictly valid escape at `k` (a `\\`), `None` when it
/// is invalid or not complete yet.
#[inline(always)]
pub(super) fn escape_len(src: &[u8], k: usize) -> Option<usize> {
    match *src.get(k + 1)? {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(2),
        b'u' => {
            let code = hex4(src.get(k + 2..k + 6)?)?;
            match code {
                0xD800..=0xDBFF => {
                    if src.get(k + 6..k + 8)? != b"\\u" {
                        return None;
                    }
                    let low = hex4(src.get(k + 8..k + 12)?)?;
                    (0xDC00..=0xDFFF).contains(&low).then_some(12)
                }
                0xDC00..=0xDFFF => None,
                _ => Some(6),
            }
        }
        _ => None,
    }
}

fn hex4(digits: &[u8]) -> Option<u32> {
    digits.iter().try_fold(0u32, |code, &h| {
        Some(code * 16 + char::from(h).to_digit(16)?)
    })
}

/// The end of the strictly valid JSON number at `q`.
#[inline]
pub(super) fn scan_number(src: &[u8], q: usize) -> Option<usize> {
    // Index loops, not `position` over an iterator: a number is a few
    // digits, and the iterator's setup per run of digits made this 107
    // instructions a number on the valid 30 MB document (callgrind).
    // `None` when the digits run to the end of `src` (more may come).
    #[inline(always)]
    fn digits(src: &[u8], mut k: usize) -> Option<usize> {
        while k < src.len() {
            if !src[k].is_ascii_digit() {
                return Some(k);
            }
            k += 1;
        }
        None
    }
    let mut k = q + usize::from(src[q] == b'-');
    let e = digits(src, k)?;
    if e == k || (e > k + 1 && src[k] == b'0') {
        return None;
    }
    k = e;
    if src[k] == b'.' {
        let e = digits(src, k + 1)?;
        if e == k + 1 {
            return None;
        }
        k = e;
    }
    if matches!(src[k], b'e' | b'E') {
        k += 1;
        if matches!(src.get(k), Some(b'+' | b'-')) {
            k += 1;
        }
        let e = digits(src, k)?;
        if e == k {
            return None;
        }
        k = e;
    }
    Some(k)
}

/// The end of `true`, `false` or `null` at `q`.
#[inline]
pub(super) fn scan_literal(src: &[u8], q: usize) -> Option<usize> {
    let rest = &src[q..];
    [&b"true"[..], b"false", b"null"]
        .iter()
        .find(|lit| rest.starts_with(lit))
        .map(|lit| q + lit.len())
}
