//! Where output came from: anchors from output positions to input offsets,
//! recorded as the engine writes (see [`Options::source_map`](crate::Options::source_map)).
//!
//! The engine notes an anchor where each token's output begins, where the
//! fast lane starts copying a run of valid JSON, and on each side of a
//! lenient edit inside such a run. Between two anchors the
//! output is either that copied run (byte for byte the input, so the offset
//! grows with the position) or one token's rewrite (`True` → `true`, `abc` →
//! `"abc"`), where the same rule gives the token's start for the position of
//! its first byte. Layers above the engine (normalize, which reports its own
//! fixes by input offset) read it instead of running the engine again.
//!
//! Positions are absolute output positions: the anchors move when the engine
//! inserts a separator or closer before them, and go when it cuts output back.

/// `(output position, input offset)` anchors in output order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SourceMap {
    anchors: Vec<(usize, usize)>,
    /// The input's length, the bound of every answer.
    input_len: usize,
}

impl SourceMap {
    /// The output at `out` on comes from the input at `input` on. A later
    /// anchor at the same position replaces an earlier one: the token that
    /// wrote nothing (a comment, a removed comma) is not where output came from.
    #[inline]
    pub(super) fn note(&mut self, out: usize, input: usize) {
        match self.anchors.last_mut() {
            Some(last) if last.0 == out => last.1 = input,
            Some(last) if last.0 > out => {
                // Output was cut back below the last anchor without a
                // truncation (cannot happen: every cut goes through `cut`).
                debug_assert!(false, "anchor {out} before {}", last.0);
            }
            _ => self.anchors.push((out, input)),
        }
    }

    /// `n` bytes were inserted at `at`: what was at or after `at` moves.
    pub(super) fn shift(&mut self, at: usize, n: usize) {
        for anchor in self.anchors.iter_mut().rev() {
            if anchor.0 < at {
                break;
            }
            anchor.0 += n;
        }
    }

    /// `n` bytes were removed at `at`: what was after them moves back.
    pub(super) fn unshift(&mut self, at: usize, n: usize) {
        for anchor in self.anchors.iter_mut().rev() {
            if anchor.0 <= at {
                break;
            }
            anchor.0 = anchor.0.saturating_sub(n).max(at);
        }
    }

    /// The output was cut back to `at`.
    pub(super) fn cut(&mut self, at: usize) {
        while self.anchors.last().is_some_and(|a| a.0 > at) {
            self.anchors.pop();
        }
    }

    /// The input is `len` bytes long in all.
    pub(super) fn set_input_len(&mut self, len: usize) {
        self.input_len = len;
    }

    /// The input offset the output byte at `at` came from: the anchor at or
    /// before it, plus the distance from there, kept below the next anchor's
    /// input (a rewrite that grew, like `abc` → `"abc"`, maps its extra bytes
    /// onto the token's own) and within the input.
    pub(crate) fn input_offset(&self, at: usize) -> usize {
        let k = self.anchors.partition_point(|a| a.0 <= at);
        let Some(&(out, input)) = k.checked_sub(1).and_then(|k| self.anchors.get(k)) else {
            // Output before any token (the `[` that `Values::Array` opens with).
            return self.anchors.first().map_or(0, |a| a.1);
        };
        let mut offset = input + (at - out);
        if let Some(&(_, next)) = self.anchors.get(k)
            && next > input
        {
            offset = offset.min(next - 1);
        }
        offset.min(self.input_len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_move_with_insertions_and_cuts() {
        let mut map = SourceMap::default();
        map.set_input_len(20);
        map.note(0, 0);
        map.note(3, 5);
        map.note(6, 9);
        map.shift(3, 1); // a comma before the second token
        assert_eq!(map.input_offset(4), 5);
        assert_eq!(map.input_offset(3), 3);
        map.unshift(4, 1);
        assert_eq!(map.input_offset(6), 9);
        map.cut(5);
        assert_eq!(map.anchors, [(0, 0), (4, 5)]);
        map.note(4, 7);
        assert_eq!(map.input_offset(4), 7);
    }

    #[test]
    fn a_grown_token_stays_within_its_input() {
        let mut map = SourceMap::default();
        map.set_input_len(9);
        map.note(0, 0); // `abc` → `"abc"`
        map.note(5, 3);
        assert_eq!(map.input_offset(0), 0);
        assert_eq!(map.input_offset(4), 2);
        assert_eq!(map.input_offset(7), 5);
        assert_eq!(map.input_offset(99), 9);
    }
}
