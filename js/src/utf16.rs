//! UTF-16, the units of JavaScript strings: how many a UTF-8 text has, and
//! the text written in them.
//!
//! Why the module hands JavaScript UTF-16 at all: a string made from UTF-8
//! that is not all ASCII costs Node 20 about 1.9 ns a byte (`TextDecoder`,
//! 104 µs for the 50 KB `write_file` call, whose one `ë` is enough), while
//! the same text as UTF-16 costs 0.13 ns a unit through `Buffer` and 0.55
//! through `TextDecoder("utf-16le")` (7 and 30 µs). Writing the units here
//! costs less than the difference.

const HIGH: u64 = 0x8080_8080_8080_8080;

fn word(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes.try_into().unwrap_or([0; 8]))
}

/// The UTF-16 length of UTF-8 `bytes` (whole characters): one unit a
/// character, two for a four-byte one. So: the bytes, less the continuation
/// bytes, plus the lead bytes of four-byte characters. A word at a time.
pub(crate) fn utf16_len(bytes: &[u8]) -> usize {
    let count = |w: u64| {
        // Bit 7 of each byte: set on a continuation byte (10xxxxxx), and on
        // a four-byte lead (11110xxx) in `four`. `w << k` brings bit 7 − k
        // of each byte to bit 7 of the same byte.
        let continuation = w & !(w << 1) & HIGH;
        let four = w & (w << 1) & (w << 2) & (w << 3) & HIGH;
        (
            four.count_ones() as usize,
            continuation.count_ones() as usize,
        )
    };
    let mut units = bytes.len();
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let w = word(chunk);
        if w & HIGH != 0 {
            let (four, continuation) = count(w);
            units = units + four - continuation;
        }
    }
    let mut rest = [0u8; 8];
    rest[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    let (four, continuation) = count(word(&rest));
    units + four - continuation
}

/// `text` in UTF-16 units, little-endian bytes (what `TextDecoder` and
/// `Buffer` read), into `out` (emptied first). ASCII, the most of almost any
/// text, goes a block at a time (`ascii_to_utf16`).
pub(crate) fn to_utf16(text: &str, out: &mut Vec<u8>) {
    let bytes = text.as_bytes();
    // Every byte is at most one unit: room for all, trimmed at the end.
    out.clear();
    out.resize(2 * bytes.len(), 0);
    let (mut i, mut j) = (0, 0);
    while i < bytes.len() {
        let run = ascii_to_utf16(&bytes[i..], &mut out[j..]);
        i += run;
        j += 2 * run;
        // One character (the text is UTF-8: its lead byte says its length).
        let Some(&lead) = bytes.get(i) else { break };
        let tail = |k: usize| u32::from(bytes.get(i + k).copied().unwrap_or(0x80) & 0x3f);
        let (code, len) = match lead {
            0..0x80 => (u32::from(lead), 1),
            0xf0.. => (
                (u32::from(lead & 0x07) << 18) | (tail(1) << 12) | (tail(2) << 6) | tail(3),
                4,
            ),
            0xe0.. => ((u32::from(lead & 0x0f) << 12) | (tail(1) << 6) | tail(2), 3),
            _ => ((u32::from(lead & 0x1f) << 6) | tail(1), 2),
        };
        let mut unit = |unit: u32| {
            if let Some(to) = out.get_mut(j..j + 2) {
                to.copy_from_slice(&(unit as u16).to_le_bytes());
            }
            j += 2;
        };
        if code >= 0x1_0000 {
            unit(0xd800 | ((code - 0x1_0000) >> 10));
            unit(0xdc00 | (code & 0x3ff));
        } else {
            unit(code);
        }
        i += len;
    }
    out.truncate(j);
}

/// UTF-16 units (little-endian bytes, as `Buffer.ucs2Write` writes them)
/// as UTF-8, into `out` (emptied first), exactly as `TextEncoder` writes
/// them: a lone surrogate becomes U+FFFD. ASCII goes a block at a time
/// (`ascii_from_utf16`).
/// Returns whether the text was all ASCII.
pub(crate) fn from_utf16(units: &[u8], out: &mut Vec<u8>) -> bool {
    let n = units.len() / 2;
    let unit = |k: usize| u32::from(u16::from_le_bytes([units[2 * k], units[2 * k + 1]]));
    out.clear();
    // At most three bytes a unit (a pair of units is four).
    out.resize(3 * n, 0);
    let (mut k, mut j) = (0, 0);
    let mut ascii = true;
    while k < n {
        let run = ascii_from_utf16(&units[2 * k..], &mut out[j..]);
        k += run;
        j += run;
        if k >= n {
            break;
        }
        let mut code = unit(k);
        k += 1;
        if code >= 0x80 {
            ascii = false;
        }
        if (0xd800..0xdc00).contains(&code) && k < n && (0xdc00..0xe000).contains(&unit(k)) {
            code = 0x1_0000 + ((code - 0xd800) << 10) + (unit(k) - 0xdc00);
            k += 1;
        } else if (0xd800..0xe000).contains(&code) {
            code = 0xfffd;
        }
        let mut put = |byte: u32| {
            out[j] = byte as u8;
            j += 1;
        };
        match code {
            0..0x80 => put(code),
            0x80..0x800 => {
                put(0xc0 | (code >> 6));
                put(0x80 | (code & 0x3f));
            }
            0x800..0x1_0000 => {
                put(0xe0 | (code >> 12));
                put(0x80 | ((code >> 6) & 0x3f));
                put(0x80 | (code & 0x3f));
            }
            _ => {
                put(0xf0 | (code >> 18));
                put(0x80 | ((code >> 12) & 0x3f));
                put(0x80 | ((code >> 6) & 0x3f));
                put(0x80 | (code & 0x3f));
            }
        }
    }
    out.truncate(j);
    ascii
}

// The ASCII runs, where the time goes on the text of a long call (the 50 KB
// `write_file` call in Node: converting its input and its answer was 30%
// of a `jsonrepair()` call, a quarter of it with these as words). The
// module is built with WebAssembly SIMD (`js/.cargo/config.toml`), so the
// shipped code takes sixteen bytes a step; the word-at-a-time twins are
// the same answer anywhere else (the native tests run them).

/// Copy the ASCII run `bytes` starts with, as UTF-16 units, to `out` (room
/// for two bytes a byte, or the run is cut where room ends): the number of
/// bytes copied (the caller copies the rest one character at a time).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn ascii_to_utf16(bytes: &[u8], out: &mut [u8]) -> usize {
    use core::arch::wasm32::{u8x16_bitmask, u16x8_extend_high_u8x16, u16x8_extend_low_u8x16};
    let mut run = 0;
    for (chunk, to) in bytes.chunks_exact(16).zip(out.chunks_exact_mut(32)) {
        let v = load(chunk);
        if u8x16_bitmask(v) != 0 {
            break;
        }
        store(u16x8_extend_low_u8x16(v), &mut to[..16]);
        store(u16x8_extend_high_u8x16(v), &mut to[16..]);
        run += 16;
    }
    // The run's last bytes (fewer than a block, or up to a wide one).
    run + ascii_to_utf16_words(&bytes[run..], &mut out[2 * run..])
}

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
fn ascii_to_utf16(bytes: &[u8], out: &mut [u8]) -> usize {
    ascii_to_utf16_words(bytes, out)
}

/// `ascii_to_utf16` a word at a time.
fn ascii_to_utf16_words(bytes: &[u8], out: &mut [u8]) -> usize {
    let mut run = 0;
    for (chunk, to) in bytes.chunks_exact(8).zip(out.chunks_exact_mut(16)) {
        let w = word(chunk);
        if w & HIGH != 0 {
            break;
        }
        to[..8].copy_from_slice(&spread(w as u32).to_le_bytes());
        to[8..].copy_from_slice(&spread((w >> 32) as u32).to_le_bytes());
        run += 8;
    }
    run
}

/// Copy the ASCII run of the UTF-16 `units` (little-endian bytes) as bytes
/// to `out`: the number of units copied.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn ascii_from_utf16(units: &[u8], out: &mut [u8]) -> usize {
    use core::arch::wasm32::{u8x16_narrow_i16x8, u16x8_splat, v128_and, v128_any_true, v128_or};
    let mut run = 0;
    for (chunk, to) in units.chunks_exact(32).zip(out.chunks_exact_mut(16)) {
        let (a, b) = (load(&chunk[..16]), load(&chunk[16..]));
        if v128_any_true(v128_and(v128_or(a, b), u16x8_splat(0xff80))) {
            break;
        }
        // Every unit is below 0x80: the saturating narrowing is exact.
        store(u8x16_narrow_i16x8(a, b), to);
        run += 16;
    }
    run + ascii_from_utf16_words(&units[2 * run..], &mut out[run..])
}

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
fn ascii_from_utf16(units: &[u8], out: &mut [u8]) -> usize {
    ascii_from_utf16_words(units, out)
}

/// `ascii_from_utf16` a word at a time.
fn ascii_from_utf16_words(units: &[u8], out: &mut [u8]) -> usize {
    const WIDE_HIGH: u64 = 0xff80_ff80_ff80_ff80;
    let mut run = 0;
    for (chunk, to) in units.chunks_exact(8).zip(out.chunks_exact_mut(4)) {
        let w = word(chunk);
        if w & WIDE_HIGH != 0 {
            break;
        }
        let packed =
            (w & 0xff) | ((w >> 8) & 0xff00) | ((w >> 16) & 0xff_0000) | ((w >> 24) & 0xff00_0000);
        to.copy_from_slice(&(packed as u32).to_le_bytes());
        run += 4;
    }
    run
}

/// Sixteen bytes as a vector (two words: safe code has no vector load;
/// LLVM makes one of it).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn load(chunk: &[u8]) -> core::arch::wasm32::v128 {
    core::arch::wasm32::u64x2(word(&chunk[..8]), word(&chunk[8..16]))
}

/// A vector's sixteen bytes into `to`.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn store(v: core::arch::wasm32::v128, to: &mut [u8]) {
    use core::arch::wasm32::u64x2_extract_lane;
    to[..8].copy_from_slice(&u64x2_extract_lane::<0>(v).to_le_bytes());
    to[8..16].copy_from_slice(&u64x2_extract_lane::<1>(v).to_le_bytes());
}

/// Four bytes spread into four 16-bit lanes: `abcd` → `a0b0c0d0`.
fn spread(x: u32) -> u64 {
    let x = u64::from(x);
    let x = (x | (x << 16)) & 0x0000_ffff_0000_ffff;
    (x | (x << 8)) & 0x00ff_00ff_00ff_00ff
}

#[cfg(test)]
mod tests {
    use super::{from_utf16, to_utf16, utf16_len};

    fn mixed() -> String {
        let mut text = String::new();
        for (i, c) in [
            "a",
            "\u{e9}",
            "\u{4e2d}",
            "\u{1F600}",
            "\u{7f}",
            "\u{10FFFF}",
            "\u{FFFD}",
        ]
        .iter()
        .cycle()
        .take(90)
        .enumerate()
        {
            text.push_str(&"x".repeat(i % 13));
            text.push_str(c);
        }
        text
    }

    #[test]
    fn utf16_len_counts_units() {
        let text = mixed();
        for (end, _) in text.char_indices() {
            let prefix = &text[..end];
            assert_eq!(
                utf16_len(prefix.as_bytes()),
                prefix.encode_utf16().count(),
                "{end}"
            );
        }
    }

    #[test]
    fn from_utf16_is_what_text_encoder_writes() {
        let text = mixed();
        let mut out = vec![1, 2, 3];
        for (end, _) in text.char_indices() {
            let units: Vec<u8> = text[..end]
                .encode_utf16()
                .flat_map(u16::to_le_bytes)
                .collect();
            let ascii = from_utf16(&units, &mut out);
            assert_eq!(out, &text.as_bytes()[..end], "{end}");
            assert_eq!(ascii, text[..end].is_ascii());
        }
        // Lone surrogates, where a pair would be and alone, at either end.
        let lone: Vec<u16> = vec![0xd800, 0x61, 0xdc00, 0xd83d, 0xde00, 0xdbff, 0xd800, 0xdfff];
        let units: Vec<u8> = lone.iter().flat_map(|u| u.to_le_bytes()).collect();
        from_utf16(&units, &mut out);
        assert_eq!(
            String::from_utf8(out.clone()).unwrap(),
            String::from_utf16_lossy(&lone)
        );
    }

    #[test]
    fn to_utf16_is_encode_utf16() {
        let text = mixed();
        let mut out = vec![1, 2, 3];
        for (end, _) in text.char_indices() {
            to_utf16(&text[..end], &mut out);
            let want: Vec<u8> = text[..end]
                .encode_utf16()
                .flat_map(u16::to_le_bytes)
                .collect();
            assert_eq!(out, want, "{end}");
        }
    }
}
