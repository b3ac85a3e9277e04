//! One pass over a whole input to see whether it is strictly valid JSON.
//!
//! Most inputs are valid, and for those one-shot repair returns the input
//! itself. The machine's fast lane would reach the same answer, but it keeps
//! what it needs to stop anywhere and hand over to the general machine: safe
//! points, the pending comma, where the last value ended, the frame stack.
//! This loop keeps only the kinds of the open containers, as bits, so valid
//! input costs about what a strict parser costs. On the first byte it does
//! not expect it gives up, and the machine repairs the input from the start:
//! an input broken early costs nothing extra here, one broken at its end
//! (JSON cut off mid-stream) at most this one pass.
//!
//! It accepts only what the lane takes as it is (strings, numbers and
//! literals are scanned by the lane's own functions), so its yes is the
//! machine's `Valid` with the text unchanged; the fuzz target
//! `repair_oneshot` and the corpus check that the two agree.

use super::strict::{scan_body, scan_literal, scan_number};
use crate::lex;

/// The deepest nesting checked here; deeper input goes to the machine,
/// which knows the limit the options set.
const MAX_DEPTH: usize = 512;

/// Whether `src` is one strictly valid JSON object or array, with only
/// whitespace around it, nested at most `depth_limit` deep.
pub(crate) fn is_strict_json(src: &[u8], depth_limit: usize) -> bool {
    let limit = depth_limit.min(MAX_DEPTH);
    // Bit `d` of the stack: the container at depth `d + 1` is an object.
    let mut objects = [0u64; MAX_DEPTH / 64];
    let mut depth = 0usize;
    let mut i = skip_ws(src, 0);
    // Scalars at the top level (a lone string or number) are rare as tool
    // arguments, and the machine has rules for what may follow them.
    if !matches!(src.get(i), Some(b'{' | b'[')) {
        return false;
    }
    loop {
        // A value is expected at `i`.
        let Some(&b) = src.get(i) else {
            return false;
        };
        match b {
            b'{' | b'[' => {
                if depth == limit {
                    return false;
                }
                let object = b == b'{';
                let (word, bit) = (depth / 64, 1u64 << (depth % 64));
                if object {
                    objects[word] |= bit;
                } else {
                    objects[word] &= !bit;
                }
                depth += 1;
                i = skip_ws(src, i + 1);
                let close = if object { b'}' } else { b']' };
                if src.get(i) == Some(&close) {
                    depth -= 1;
                    i += 1;
                } else {
                    if object {
                        let Some(next) = key(src, i) else {
                            return false;
                        };
                        i = next;
                    }
                    continue;
                }
            }
            b'"' => match scan_body(src, i + 1) {
                Some(end) => i = end,
                None => return false,
            },
            b't' | b'f' | b'n' => match scan_literal(src, i) {
                Some(end) => i = end,
                None => return false,
            },
            b'-' | b'0'..=b'9' => match scan_number(src, i) {
                Some(end) => i = end,
                None => return false,
            },
            _ => return false,
        }
        // After a value: a comma and the next one, or closers.
        loop {
            i = skip_ws(src, i);
            if depth == 0 {
                return i == src.len();
            }
            let object = objects[(depth - 1) / 64] & (1u64 << ((depth - 1) % 64)) != 0;
            match (src.get(i), object) {
                (Some(b','), true) => {
                    let Some(next) = key(src, skip_ws(src, i + 1)) else {
                        return false;
                    };
                    i = next;
                    break;
                }
                (Some(b','), false) => {
                    i = skip_ws(src, i + 1);
                    break;
                }
                (Some(b'}'), true) | (Some(b']'), false) => {
                    depth -= 1;
                    i += 1;
                }
                _ => return false,
            }
        }
    }
}

/// A key and its colon at `i`: where its value starts.
#[inline]
fn key(src: &[u8], i: usize) -> Option<usize> {
    if src.get(i) != Some(&b'"') {
        return None;
    }
    let end = skip_ws(src, scan_body(src, i + 1)?);
    (src.get(end) == Some(&b':')).then(|| skip_ws(src, end + 1))
}

#[inline]
fn skip_ws(src: &[u8], mut i: usize) -> usize {
    while i < src.len() && lex::is_ws(src[i]) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::is_strict_json;

    #[test]
    fn accepts_strict_json_only() {
        for ok in [
            "{}",
            "[]",
            " {\"a\": [1, -2.5e+3, true, false, null, \"x\\n\\u00e9\"], \"b\": {}}\n",
            "[[], [[]], {\"k\": {\"l\": []}}]",
            "[\"\\ud83d\\ude00\"]",
        ] {
            assert!(is_strict_json(ok.as_bytes(), 512), "{ok}");
        }
        for bad in [
            "",
            "1",
            "\"a\"",
            "{",
            "{\"a\": 1,}",
            "[1, 2,]",
            "{'a': 1}",
            "{a: 1}",
            "[1 2]",
            "[01]",
            "[1.]",
            "[\"\\ud800\"]",
            "[\"a\nb\"]",
            "{\"a\" 1}",
            "[1] [2]",
            "[True]",
            "[1]]",
            "{\"a\": 1]",
        ] {
            assert!(!is_strict_json(bad.as_bytes(), 512), "{bad}");
        }
    }

    /// Every yes here is the machine's `Valid` with the text unchanged: on
    /// every corpus input, every prefix of it, and each with a byte changed
    /// (for UTF-8 input: `repair_with` checks that apart).
    #[test]
    fn agrees_with_the_machine() {
        use super::super::Options;
        use super::super::Verdict;
        use super::super::machine::Machine;
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
        let mut inputs = Vec::new();
        for family in std::fs::read_dir(&corpus).unwrap().flatten() {
            for file in std::fs::read_dir(family.path())
                .into_iter()
                .flatten()
                .flatten()
            {
                let path = file.path();
                if matches!(
                    path.extension().and_then(|e| e.to_str()),
                    Some("in" | "out")
                ) {
                    inputs.push(std::fs::read(&path).unwrap());
                }
            }
        }
        assert!(inputs.len() > 100, "the corpus is missing");
        let (mut checked, mut yes) = (0, 0);
        for input in &inputs {
            let cut = input.len().min(400);
            let mut variants: Vec<Vec<u8>> = (0..=cut).map(|n| input[..n].to_vec()).collect();
            for at in (0..cut).step_by(7) {
                for byte in [b'"', b',', b'}', b'\\', 0xFF, b'1'] {
                    let mut changed = input.clone();
                    changed[at] = byte;
                    variants.push(changed);
                }
            }
            for variant in variants {
                checked += 1;
                // As `repair_with` asks: strict, and UTF-8 (checked apart).
                if !is_strict_json(&variant, 512) || std::str::from_utf8(&variant).is_err() {
                    continue;
                }
                yes += 1;
                let mut machine = Machine::new(Options::default());
                machine.run_whole(None, &variant).unwrap();
                assert_eq!(
                    machine.verdict(),
                    Verdict::Valid,
                    "{:?}",
                    String::from_utf8_lossy(&variant)
                );
                let (text, _, _, _) = machine.take_parts();
                assert_eq!(text.as_bytes(), &variant[..]);
            }
        }
        assert!(yes > 100, "{yes} of {checked}");
    }

    #[test]
    fn depth_beyond_the_limit_is_left_to_the_machine() {
        let deep = format!("{}{}", "[".repeat(10), "]".repeat(10));
        assert!(is_strict_json(deep.as_bytes(), 10));
        assert!(!is_strict_json(deep.as_bytes(), 9));
        let deeper = format!("{}{}", "[".repeat(600), "]".repeat(600));
        assert!(!is_strict_json(deeper.as_bytes(), 1000));
    }
}
