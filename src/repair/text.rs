//! Text as bytes: the searches that stop a string body's copy (the machine's,
//! the lane's and the judge's quick rule run the same ones), and text
//! written as the body of a JSON string. Below every layer, so none of them
//! owns what the others use.

/// How a raw control character inside a string body is written: the short
/// escapes JSON has, else `\u00XX`. The machine (`string_step`) and the
/// lane (`fast/lenient.rs` `value_body`) both write from this table.
pub(in crate::repair) const CONTROL_ESCAPES: [&str; 32] = {
    let mut table = [
        "\\u0000", "\\u0001", "\\u0002", "\\u0003", "\\u0004", "\\u0005", "\\u0006", "\\u0007",
        "\\u0008", "\\u0009", "\\u000a", "\\u000b", "\\u000c", "\\u000d", "\\u000e", "\\u000f",
        "\\u0010", "\\u0011", "\\u0012", "\\u0013", "\\u0014", "\\u0015", "\\u0016", "\\u0017",
        "\\u0018", "\\u0019", "\\u001a", "\\u001b", "\\u001c", "\\u001d", "\\u001e", "\\u001f",
    ];
    table[0x08] = "\\b";
    table[0x09] = "\\t";
    table[0x0A] = "\\n";
    table[0x0C] = "\\f";
    table[0x0D] = "\\r";
    table
};

/// The offset of the first `"`, `\\`, control character, or lead byte of a
/// typographic double quote (`“ ” „ ‟ ″` start with 0xE2, `＂` with 0xEF):
/// where a `"`-string body must stop, since its twin quote may end it.
#[inline(always)]
pub(in crate::repair) fn find_quote_escape_control_or_twin(bytes: &[u8]) -> Option<usize> {
    // (Every lead byte of a three- or four-byte character stops it, found
    // with one test: cheaper than two more stops; the caller steps over
    // those that are not a twin's.)
    find_special::<2, 0xE0>(bytes, [b'"', b'\\'])
}

/// The offset of the first `"`, `\\` or control character (below U+0020):
/// where a plain copy of a `"`-string body must stop.
#[inline(always)]
pub(in crate::repair) fn find_quote_escape_or_control(bytes: &[u8]) -> Option<usize> {
    find_special::<2, 0>(bytes, [b'"', b'\\'])
}

/// The offset of the first `'`, `"`, `\\`, control character, backtick or
/// lead byte of a typographic single quote (`’`, `´`, `＇`: the twins of
/// `'`): what a `'`-string body must stop at, in the machine and in the
/// lane (`fast/lenient.rs`), found in one pass.
#[inline(always)]
pub(in crate::repair) fn find_single_quote_special(bytes: &[u8]) -> Option<usize> {
    // (Every lead byte of a multi-byte character stops it, found with one
    // test; the caller steps over those that are not a twin's.)
    find_special::<4, 0xC0>(bytes, [b'\'', b'"', b'\\', b'`'])
}

/// The offset of the first of the bytes `stops`, of a control character
/// (below U+0020), or (with `LEAD` 0xC0 or 0xE0) of a byte at or above
/// `LEAD`. Eight bytes at a time in a `u64`, as serde_json does, so short
/// bodies cost no setup.
#[inline(always)]
fn find_special<const N: usize, const LEAD: u8>(bytes: &[u8], stops: [u8; N]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut chunks = bytes.chunks_exact(8);
    let mut offset = 0;
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let v = u64::from_le_bytes(word);
        // A byte is zero (matched), or below 0x20, when subtracting sets its
        // high bit where the byte's own high bit was clear. Only the lowest
        // flagged byte is exact, which is the one needed. For a stop at or
        // above 0x80 the byte's own high bit is set, so the test is the
        // exact one (`x` is zero only where the byte matched).
        let mut found = v.wrapping_sub(ONES * 0x20) & !v;
        // A byte at or above 0xC0 has its top two bits set, at or above
        // 0xE0 its top three (shifts carry across bytes only into bits
        // the mask drops).
        match LEAD {
            0xC0 => found |= v & (v << 1),
            0xE0 => found |= v & (v << 1) & (v << 2),
            _ => {}
        }
        for stop in stops {
            let x = v ^ (ONES * u64::from(stop));
            found |= x.wrapping_sub(ONES) & !x;
        }
        let found = found & HIGH;
        if found != 0 {
            return Some(offset + (found.trailing_zeros() / 8) as usize);
        }
        offset += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| stops.contains(&b) || b < 0x20 || (LEAD != 0 && b >= LEAD))
        .map(|k| offset + k)
}

/// Append `text` as the body of a JSON string; `true` if invalid UTF-8 was replaced.
pub(in crate::repair) fn escape_into(out: &mut String, text: &[u8]) -> bool {
    if text
        .iter()
        .all(|&b| (0x20..0x7F).contains(&b) && b != b'"' && b != b'\\')
    {
        // Printable ASCII with nothing to escape, the common bare word.
        // Printable ASCII, so one char per byte.
        out.extend(text.iter().map(|&b| char::from(b)));
        return false;
    }
    let mut invalid = false;
    for chunk in text.utf8_chunks() {
        push_json_escaped(out, chunk.valid());
        if !chunk.invalid().is_empty() {
            invalid = true;
            out.push('\u{FFFD}');
        }
    }
    invalid
}

/// Append `text` as the body of a JSON string, escaping only what JSON
/// requires (`"`, `\\`, control characters). Shared by every place that
/// turns text into a JSON string.
pub(crate) fn push_json_escaped(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
}

/// Input bytes known to be ASCII (whitespace, digits, escapes) as text.
/// Were that ever wrong, the bytes come through replaced, never dropped.
pub(in crate::repair) fn ascii(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    debug_assert!(bytes.is_ascii());
    String::from_utf8_lossy(bytes)
}

/// `src[from..to]` as text: a slice of the whole input's text when there is
/// one (O(1)), else checked.
#[inline]
pub(in crate::repair) fn text_at<'s>(
    src: &'s [u8],
    whole: Option<&'s str>,
    from: usize,
    to: usize,
) -> Result<&'s str, std::str::Utf8Error> {
    match whole.and_then(|text| text.get(from..to)) {
        Some(text) => Ok(text),
        None => crate::utf8::from_utf8(&src[from..to]),
    }
}

#[cfg(test)]
mod tests {
    use super::{
        find_quote_escape_control_or_twin, find_quote_escape_or_control, find_single_quote_special,
    };

    #[test]
    fn swar_scans_match_the_naive_ones() {
        let plain = |b: &[u8]| b.iter().position(|&c| c == b'"' || c == b'\\' || c < 0x20);
        let twin = |b: &[u8]| {
            b.iter()
                .position(|&c| c == b'"' || c == b'\\' || !(0x20..0xE0).contains(&c))
        };
        let single = |b: &[u8]| {
            b.iter().position(|&c| {
                matches!(c, b'\'' | b'"' | b'\\' | b'`') || !(0x20..0xC0).contains(&c)
            })
        };
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for len in 0..80 {
            for _ in 0..200 {
                let bytes: Vec<u8> = (0..len)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        // Mostly plain text, sometimes a byte that stops a scan.
                        match seed % 40 {
                            0 => b'"',
                            1 => b'\\',
                            2 => (seed >> 8) as u8 % 0x20,
                            3 | 4 => 0x80 | (seed >> 8) as u8,
                            5 => b'\'',
                            _ => b'a' + (seed >> 8) as u8 % 26,
                        }
                    })
                    .collect();
                assert_eq!(
                    find_quote_escape_or_control(&bytes),
                    plain(&bytes),
                    "{bytes:?}"
                );
                assert_eq!(
                    find_quote_escape_control_or_twin(&bytes),
                    twin(&bytes),
                    "{bytes:?}"
                );
                assert_eq!(
                    find_single_quote_special(&bytes),
                    single(&bytes),
                    "{bytes:?}"
                );
            }
        }
    }
}
