//! The quick rule: the commonest continuations of a clean `"` string, read
//! without the general scan. It answers `End` only where the general rule
//! (`fit.rs`, under the lenient grammar) ends the string too; a unit test
//! checks that on generated followers. The fast lane asks it directly.

use crate::repair::frame::Frame;
use crate::repair::text::find_quote_escape_control_or_twin;

/// What the quick look at a clean string's continuation found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::repair) enum Quick {
    /// It ends the string.
    End,
    /// It ends the string, and a comma, a `"key"` without a backslash
    /// (strictly valid, then: the scan stopped at no control byte) and its
    /// colon follow; `colon` indexes `after`. The fast lane takes the key
    /// with the string.
    EndAtKey { colon: usize },
    /// So far it looks like the common case, and the bytes ran out: the
    /// general scan would wait as well.
    Need,
    /// Anything else: the general scan decides.
    Unknown,
}

/// The bytes a bare key goes on with (`[A-Za-z0-9_$-]`), as a table.
static KEY_BYTE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c == b'-';
        b += 1;
    }
    table
};

/// Where the bare key starting at `k` ends (the first byte past it), or
/// `None` when the input ends in it.
#[inline]
pub(in crate::repair) fn bare_key_end(src: &[u8], k: usize) -> Option<usize> {
    src[k..]
        .iter()
        .position(|&c| !KEY_BYTE[usize::from(c)])
        .map(|n| k + n)
}

/// The commonest answer, found without the general scan: a clean string
/// followed (after spaces) by the closer of its container, or by a comma and
/// then a key with its colon (in an object) or a value (in an array), ends.
#[inline]
pub(in crate::repair) fn quick_clean_end(frames: &[Frame], after: &[u8], eof: bool) -> Quick {
    let Some(&top) = frames.last() else {
        return Quick::Unknown;
    };
    // Running out of bytes on the common path: wait, unless the input ended
    // (then the general scan reads the end of input).
    let short = if eof { Quick::Unknown } else { Quick::Need };
    let skip = |mut k: usize| {
        while k < after.len() && matches!(after[k], b' ' | b'\n' | b'\t' | b'\r') {
            k += 1;
        }
        k
    };
    let k = skip(0);
    let Some(&b) = after.get(k) else {
        return short;
    };
    match (b, top) {
        (b'}', Frame::Object) | (b']', Frame::Array) => Quick::End,
        (b',', Frame::Array) => match after.get(skip(k + 1)) {
            None => short,
            // A value, or a trailing comma before the closer.
            Some(b'"' | b'{' | b'[' | b'-' | b'0'..=b'9' | b']') => Quick::End,
            Some(_) => Quick::Unknown,
        },
        (b',', Frame::Object) => {
            let k = skip(k + 1);
            match after.get(k) {
                None => return short,
                Some(b'/') => {}
                _ => return key_then_colon(after, k, short),
            }
            // `"x", // note⏎  key:` and `"x", /* note */ key:`: comments
            // after the comma, then a key (the general rule ends the string
            // too; the lane does not take the key, hence `End`).
            let mut k = k;
            while let Some(end) = comment_end(after, k) {
                k = skip(end);
            }
            match key_then_colon(after, k, short) {
                Quick::EndAtKey { .. } => Quick::End,
                other => other,
            }
        }
        // `"x"⏎  key: 1`: a missing comma before a key on the next line.
        (b'"' | b'\'' | b'a'..=b'z' | b'A'..=b'Z' | b'_' | b'$', Frame::Object)
            if after[..k].contains(&b'\n') =>
        {
            match key_then_colon(after, k, short) {
                Quick::EndAtKey { .. } => Quick::End,
                other => other,
            }
        }
        _ => Quick::Unknown,
    }
}

/// Where a whole `//` (to its line break) or `/* */` comment at `k` ends;
/// `None` when there is none, or it does not end in `after`.
fn comment_end(after: &[u8], k: usize) -> Option<usize> {
    match after.get(k..k + 2)? {
        b"//" => memchr::memchr(b'\n', &after[k + 2..]).map(|n| k + 2 + n),
        b"/*" => memchr::memmem::find(&after[k + 2..], b"*/").map(|n| k + 4 + n),
        _ => None,
    }
}

/// A key at `k` (`"key"` with no escape, `'key'` or a bare one) and its
/// colon: `EndAtKey` for a plain `"` key (the lane takes it), `End` for
/// another, `short` when the bytes run out, `Unknown` otherwise.
#[inline]
fn key_then_colon(after: &[u8], k: usize, short: Quick) -> Quick {
    let skip = |mut k: usize| {
        while k < after.len() && matches!(after[k], b' ' | b'\n' | b'\t' | b'\r') {
            k += 1;
        }
        k
    };
    // A `"` key with no escape in it, as the lane can take it.
    let mut plain = after.get(k) == Some(&b'"');
    let close = match after.get(k) {
        None => return short,
        Some(b'}') => return Quick::End,
        Some(&quote @ (b'"' | b'\'')) => {
            let mut j = k + 1;
            loop {
                // A `"` key is found with the string scan (SWAR): it
                // stops at the quote, a backslash or a control byte.
                let next = match quote {
                    b'"' => find_quote_escape_control_or_twin(&after[j..]),
                    _ => {
                        let mut n = j;
                        while n < after.len()
                            && !(after[n] == quote || after[n] == b'\\' || after[n] < 0x20)
                        {
                            n += 1;
                        }
                        (n < after.len()).then_some(n - j)
                    }
                };
                let Some(n) = next else {
                    return short;
                };
                j += n;
                match after[j] {
                    b'\\' => {
                        plain = false;
                        j += 2;
                    }
                    b if b < 0x20 => return Quick::Unknown,
                    // A `”` in the key may end it: the machine reads
                    // such a key (a lead byte of another character
                    // is text).
                    0xE2 | 0xEF => {
                        plain = false;
                        j += 1;
                    }
                    // The lead byte of another character: text.
                    0xE0..=0xFF => j += 1,
                    _ => break j + 1,
                }
                if j >= after.len() {
                    return short;
                }
            }
        }
        Some(&b) if b.is_ascii_alphabetic() || b == b'_' || b == b'$' => {
            let mut n = k + 1;
            while n < after.len() && KEY_BYTE[usize::from(after[n])] {
                n += 1;
            }
            n
        }
        Some(_) => return Quick::Unknown,
    };
    let colon = skip(close);
    match after.get(colon) {
        None => short,
        Some(b':') if plain => Quick::EndAtKey { colon },
        Some(b':') => Quick::End,
        Some(_) => Quick::Unknown,
    }
}
