//! The repaired text as pieces of the caller's own string (issue 45).
//!
//! A JavaScript string made from the module's UTF-8 costs a decode of every
//! byte, and a slow one when the text holds a character outside ASCII (the
//! string is then two bytes a unit: about 1.8 ns a byte in Node 20, 97 µs
//! for the 50 KB `write_file` call). But a repaired text is mostly the
//! input: runs of it between small edits (a quote added, a line break
//! escaped). JavaScript already has the input as a string, and
//! `input.slice(a, b)` is a view of it, not a copy. So the answer can be
//! the input's ranges and the few bytes between them (the literal text,
//! decoded once): a few slices and concatenations, 15 µs for the 1,320
//! lines of that call.
//!
//! The pieces are found by walking the input and the output together: a
//! run of equal bytes is a range of the input, and where they differ the
//! walk looks for the nearest place where they agree again (the edits are
//! small and local). The answer is right by construction: a range is only
//! ever bytes the output has at that place. A poor alignment costs only
//! speed, and [`Pieces::split`] gives up (the caller decodes the whole
//! text instead) once it stops paying: too many pieces, too much literal
//! text, or no place found where the two agree again.

use crate::utf16::utf16_len;

/// Bytes that must agree after a place where input and output agree again
/// (fewer only where one of them ends), for it to be taken at once: fewer
/// would take a chance equality inside an edit for that place.
const MATCH: usize = 4;

/// The largest shift, input and output bytes together, tried around an
/// edit (`'` → `"` is 2, a raw line break → `\n` is 3, `None` → `null` is 8).
const MAX_SHIFT: usize = 8;

/// How far ahead a long deletion (a comment, prose, a fence) or insertion is
/// looked for, in bytes.
const SEARCH: usize = 256;

/// The shortest run worth a range of its own: a range costs a slice and a
/// concatenation in JavaScript (about as much as decoding 16 to 100 bytes),
/// so a shorter run goes into the literal text instead.
const MIN_RUN: usize = 24;

/// Literal bytes, beyond half the output so far, past which pieces stop
/// paying (so a text full of edits gives up early, not at its end).
const LITERAL_SLACK: usize = 64;

/// The output as ranges of the input and literal text.
///
/// `words` holds one triple per range, `[literal_end, start, end]`: the
/// output goes on with the literal text up to `literal_end` (UTF-16 units of
/// the decoded `literal`), then the input's units `start..end` (`start ==
/// end` for the literal text after the last range).
#[derive(Debug, Default)]
pub(crate) struct Pieces {
    pub(crate) words: Vec<u32>,
    pub(crate) literal: Vec<u8>,
}

impl Pieces {
    /// Write `output` as pieces of `input` (both UTF-8; `ascii`: the input
    /// is all ASCII, so its units are its bytes). Returns false, with `self`
    /// emptied, where pieces would not pay: edits closer than one a
    /// `per_piece` bytes of output, or literal text over about half of it,
    /// so far or at the end; a text full of edits is given up on within
    /// its first edits. Linear time: the long searches share a budget.
    pub(crate) fn split(
        &mut self,
        input: &[u8],
        output: &[u8],
        ascii: bool,
        per_piece: usize,
    ) -> bool {
        self.words.clear();
        self.literal.clear();
        let per_piece = per_piece.max(1);
        let units = |bytes: &[u8]| if ascii { bytes.len() } else { utf16_len(bytes) };
        // Input and output positions; units of the input before `i`, of the
        // literal text so far; where in the output the literal text not yet
        // written starts.
        let (mut i, mut o) = (0, 0);
        let (mut input_units, mut literal_units) = (0, 0);
        let mut literal_from = 0;
        let mut resyncs = 0;
        let mut search = Search {
            budget: output.len() / 32 + 4 * SEARCH,
        };
        loop {
            let mut run = common_prefix(&input[i..], &output[o..]);
            // A run ends before a character's continuation bytes: both texts
            // are cut at character boundaries only.
            while run > 0 && output.get(o + run).is_some_and(|&b| is_continuation(b)) {
                run -= 1;
            }
            let run_units = units(&input[i..i + run]);
            if run >= MIN_RUN {
                let literal = &output[literal_from..o];
                literal_units += utf16_len(literal);
                self.literal.extend_from_slice(literal);
                let start = input_units;
                input_units += run_units;
                self.words.extend_from_slice(&[
                    literal_units as u32,
                    start as u32,
                    input_units as u32,
                ]);
                literal_from = o + run;
            } else {
                // Too short for a range: it stays in the literal text.
                input_units += run_units;
            }
            i += run;
            o += run;
            if o == output.len() || i == input.len() {
                break;
            }
            // Edits closer together than a piece must be long to pay, or
            // literal text past half the output: pieces do not pay here.
            resyncs += 1;
            let literal = self.literal.len() + (o - literal_from);
            if resyncs > o / per_piece + 8 || literal > o / 2 + LITERAL_SLACK {
                return self.give_up();
            }
            match search.resync(input, i, output, o) {
                Some((skip_in, skip_out)) => {
                    input_units += units(&input[i..i + skip_in]);
                    i += skip_in;
                    o += skip_out;
                }
                None => {
                    // The output's character goes into the literal text; the
                    // input waits where it is.
                    o += 1;
                    while output.get(o).is_some_and(|&b| is_continuation(b)) {
                        o += 1;
                    }
                }
            }
        }
        if literal_from < output.len() {
            let literal = &output[literal_from..];
            literal_units += utf16_len(literal);
            self.literal.extend_from_slice(literal);
            self.words.extend_from_slice(&[
                literal_units as u32,
                input_units as u32,
                input_units as u32,
            ]);
        }
        if self.literal.len() > output.len() / 2 + LITERAL_SLACK
            || self.words.len() / 3 > output.len() / per_piece + 1
        {
            return self.give_up();
        }
        // Units count in `u32`: an input over 4 G units never gets here
        // (the module's memory is 4 GiB), but say so rather than wrap.
        input_units <= u32::MAX as usize && literal_units <= u32::MAX as usize
    }

    fn give_up(&mut self) -> bool {
        self.words.clear();
        self.literal.clear();
        false
    }
}

/// The search for where input and output agree again.
struct Search {
    /// Positions the long searches may still look at.
    budget: usize,
}

impl Search {
    /// Where input and output agree again after they differ at `i` and
    /// `o`: the bytes to skip in each. The smallest shift with `MATCH`
    /// bytes agreeing; else a long deletion (`SEARCH` bytes of input) or
    /// insertion, while the budget lasts; else the shift with the most
    /// bytes agreeing (edits a byte apart: `\n}\n` for a raw `⏎}⏎`).
    fn resync(
        &mut self,
        input: &[u8],
        i: usize,
        output: &[u8],
        o: usize,
    ) -> Option<(usize, usize)> {
        // The bytes the shifts look at, in arrays of a fixed size (padded
        // with bytes UTF-8 never has, different on each side), so the
        // candidates unroll into plain compares.
        let mut ahead_in = [0xfe; MAX_SHIFT + 1];
        let mut ahead_out = [0xff; MAX_SHIFT + 1];
        let n_in = (input.len() - i).min(MAX_SHIFT + 1);
        let n_out = (output.len() - o).min(MAX_SHIFT + 1);
        ahead_in[..n_in].copy_from_slice(&input[i..i + n_in]);
        ahead_out[..n_out].copy_from_slice(&output[o..o + n_out]);
        let mut best = None;
        let mut best_agree = 0;
        for shift in 1..MAX_SHIFT + 1 {
            for (skip_out, &first) in ahead_out.iter().enumerate().take(shift + 1) {
                let skip_in = shift - skip_out;
                // Most candidates differ at once, on their first byte.
                if ahead_in[skip_in] != first || is_continuation(first) {
                    continue;
                }
                let agree = agreement(input, i + skip_in, output, o + skip_out);
                if agree == MATCH {
                    return Some((skip_in, skip_out));
                }
                if agree > best_agree {
                    best_agree = agree;
                    best = Some((skip_in, skip_out));
                }
            }
        }
        if best_agree < MATCH - 1 && self.budget > 0 {
            if let Some(skip) = self.find(input, i, output, o) {
                return Some((skip, 0));
            }
            if let Some(skip) = self.find(output, o, input, i)
                && agreement(input, i, output, o + skip) == MATCH
            {
                return Some((0, skip));
            }
        }
        best
    }

    /// Where the `MATCH` bytes of `needle` at `at` first occur in the
    /// `SEARCH` bytes of `hay` from `from` on (a rolling word: a byte a
    /// position), charged to the budget.
    fn find(&mut self, hay: &[u8], from: usize, needle: &[u8], at: usize) -> Option<usize> {
        let needle = u32::from_le_bytes(needle.get(at..at + MATCH)?.try_into().ok()?);
        let hay = &hay[from..hay.len().min(from + SEARCH)];
        self.budget = self.budget.saturating_sub(hay.len());
        let mut window = 0u32;
        for (k, &byte) in hay.iter().enumerate() {
            window = (window >> 8) | (u32::from(byte) << 24);
            if k + 1 >= MATCH && window == needle {
                return Some(k + 1 - MATCH);
            }
        }
        None
    }
}

/// How many of the next `MATCH` bytes agree from `i` and `o` on (all that is
/// left of either counts as `MATCH`); 0 where `o` is not the start of a
/// character or either has ended.
fn agreement(input: &[u8], i: usize, output: &[u8], o: usize) -> usize {
    let (Some(a), Some(b)) = (input.get(i..), output.get(o..)) else {
        return 0;
    };
    match (a.get(..MATCH), b.get(..MATCH)) {
        _ if b.first().is_none_or(|&b| is_continuation(b)) || a.is_empty() => 0,
        (Some(a), Some(b)) => {
            let x = u32::from_le_bytes(a.try_into().unwrap_or([0; 4]))
                ^ u32::from_le_bytes(b.try_into().unwrap_or([0; 4]));
            (x.trailing_zeros() / 8) as usize
        }
        _ => {
            let n = a.len().min(b.len());
            let agree = a.iter().zip(b).take_while(|(x, y)| x == y).count();
            if agree >= n { MATCH } else { agree }
        }
    }
}

/// The length of the common prefix of `a` and `b`, a word at a time.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut k = 0;
    while k + 8 <= n {
        let x = word(&a[k..k + 8]) ^ word(&b[k..k + 8]);
        if x != 0 {
            return k + (x.trailing_zeros() / 8) as usize;
        }
        k += 8;
    }
    while k < n && a[k] == b[k] {
        k += 1;
    }
    k
}

fn word(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes.try_into().unwrap_or([0; 8]))
}

fn is_continuation(byte: u8) -> bool {
    byte & 0xc0 == 0x80
}

#[cfg(test)]
mod tests {
    use super::Pieces;

    /// The output the pieces describe, built as JavaScript builds it.
    fn rebuild(input: &str, pieces: &Pieces) -> String {
        let input: Vec<u16> = input.encode_utf16().collect();
        let literal: Vec<u16> = std::str::from_utf8(&pieces.literal)
            .expect("the literal text is whole characters")
            .encode_utf16()
            .collect();
        let mut out = Vec::new();
        let mut at = 0;
        for triple in pieces.words.chunks(3) {
            let [end, start, stop] = [triple[0], triple[1], triple[2]].map(|n| n as usize);
            out.extend_from_slice(&literal[at..end]);
            out.extend_from_slice(&input[start..stop]);
            at = end;
        }
        assert_eq!(at, literal.len(), "every literal unit is used");
        String::from_utf16(&out).expect("pieces cut no surrogate pair")
    }

    fn check(input: &str, output: &str) -> bool {
        let mut pieces = Pieces::default();
        let split = pieces.split(input.as_bytes(), output.as_bytes(), input.is_ascii(), 1);
        if split {
            assert_eq!(rebuild(input, &pieces), output, "input {input:?}");
        } else {
            assert!(pieces.words.is_empty() && pieces.literal.is_empty());
        }
        split
    }

    #[test]
    fn edits_of_every_kind_rebuild_the_output() {
        let code = "fn main() {\n    println!(\"h\u{e9}llo \u{1F600}, a line long enough for a range\");\n}\n"
            .repeat(8);
        let raw = format!("{{path: 'src/main.rs', content: \"{code}\", mode: True,}}");
        let escaped = code.replace('\n', "\\n").replace('"', "\\\"");
        let mended =
            format!("{{\"path\": \"src/main.rs\", \"content\": \"{escaped}\", \"mode\": true}}");
        assert!(check(&raw, &mended));
        // A long deletion (a comment) and a long insertion.
        let long = "x".repeat(100);
        assert!(check(
            &format!("[\"{long}\", /* a comment of some length */ \"{long}\"]"),
            &format!("[\"{long}\", \"{long}\"]"),
        ));
        assert!(check(
            &format!("[\"{long}\"\"{long}\"]"),
            &format!("[\"{long}\", null, null, null, \"{long}\"]"),
        ));
        // Cut off: closers after the input's end.
        assert!(check(
            &format!("{{\"a\": \"{long}"),
            &format!("{{\"a\": \"{long}\"}}")
        ));
    }

    #[test]
    fn any_pair_of_texts_rebuilds_or_gives_up() {
        // Not only repairs: whatever the two texts, the pieces are right.
        let texts = [
            "",
            "{}",
            "{\"a\": 1}",
            "\u{e9}\u{e8}\u{1F600}\u{1F601}",
            "\u{e8}\u{e9}\u{1F601}\u{1F600}",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaabaaaaaaaaaaaaaaaaaaaaaaaaa",
            "\u{1F600}aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\u{e9}aaaaaaaaaaaaaaaaaaaaaaaaaaa\u{1F600}",
            "\u{1F601}aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\u{e8}aaaaaaaaaaaaaaaaaaaaaaaaaaa\u{1F601}",
        ];
        for a in texts {
            for b in texts {
                check(a, b);
            }
        }
    }

    #[test]
    fn text_unlike_its_input_gives_up() {
        let input = "abcdefghijklmnopqrstuvwxyz".repeat(10);
        let output = "0123456789".repeat(26);
        assert!(!check(&input, &output));
    }
}
