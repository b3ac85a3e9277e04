//! Openers the input left out: a row of a table written without its `[`
//! (`["a", "b"], "c", "d"], ["e", "f"]`), an object without its `{` (a key
//! and its colon where an element or the top-level value stands), an object
//! opened with `[`.
//!
//! The question is asked at the element's first byte, before anything of it
//! is written: the values up to the next closer are read, and the two
//! readings (the values are elements of the array as written; they are a row
//! whose `[` is missing) are compared by what follows that closer, as a run
//! of closers is (`closers/`): the reading the container goes on well
//! after wins, and where both do, the closers the document writes later.

use super::closers::{Grade, closers_of, faults_after, grade, keyed, misplaced};
use super::cursor::{Cursor, Scan, Short};
use super::fit::{Fit, fit_after_value};
use crate::repair::frame::{Frame, LOOKAHEAD};
use crate::repair::grammar::Faults;

/// The most values a row read for a missing `[` may hold.
const MAX_ROW: usize = 64;

/// What an opener question answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::repair) enum Opener {
    /// Supply it; `doubt` when the other reading held up as well and only
    /// the closers further on told them apart.
    Supply { doubt: bool },
    /// Read on as written.
    No,
    /// The bytes that decide have not arrived.
    Need,
}

fn answer(scan: Scan<Opener>) -> Opener {
    scan.unwrap_or(Opener::Need)
}

/// Whether a key and its colon (quoted or bare) start at `after[0]`, after
/// whitespace: `None` while the bytes that decide have not arrived.
pub(in crate::repair) fn key_first(after: &[u8], eof: bool) -> Option<bool> {
    let mut c = Cursor {
        bytes: after,
        pos: 0,
        eof: eof || after.len() >= LOOKAHEAD,
        open_comments: true,
    };
    c.skip_ws().ok()?;
    keyed(c).ok()
}

/// At an element of the innermost array of `frames`, starting at
/// `after[0]` and right after an element that was an array: whether the
/// `[` of a row is missing before it (see the module's doc).
pub(in crate::repair) fn row_opener(
    frames: &[Frame],
    after: &[u8],
    eof: bool,
    style: Faults,
) -> Opener {
    answer(row(frames, after, eof, style))
}

fn row(frames: &[Frame], after: &[u8], eof: bool, style: Faults) -> Scan<Opener> {
    if frames.last() != Some(&Frame::Array) {
        return Ok(Opener::No);
    }
    let eof = eof || after.len() >= LOOKAHEAD;
    let c = Cursor {
        bytes: after,
        pos: 0,
        eof,
        open_comments: true,
    };
    // The values up to the closer that would end the row.
    let mut k = 0;
    let mut n = 0;
    let close = loop {
        let mut v = c.at(k);
        v.skip_ws()?;
        let Some(end) = skip_value(&v)? else {
            return Ok(Opener::No);
        };
        n += 1;
        let mut sep = v.at(end);
        sep.skip_ws()?;
        match sep.peek()? {
            Some(b',') if n < MAX_ROW => k = sep.pos + 1,
            Some(b']') => break sep.pos,
            _ => return Ok(Opener::No),
        }
    };
    let follow = |mut frames: &[Frame]| -> Scan<Grade> {
        let mut from = close + 1;
        let mut fit = fit_after_value(&mut c.at(from), frames)?;
        // More closers, each closing its container as written: what
        // follows them decides.
        while let Fit::Closed {
            skipped: false,
            after,
            depth,
            ..
        } = fit
        {
            frames = &frames[..depth];
            from = after;
            fit = fit_after_value(&mut c.at(from), frames)?;
        }
        let mut g = grade(style, fit, frames);
        if let Fit::Element { at, .. } = fit
            && keyed(c.at(at))?
        {
            g = Grade::Bad;
        }
        if fit == Fit::Misfit && !misplaced(c.at(from), frames.last())? {
            g = Grade::Weak;
        }
        Ok(g)
    };
    // As a row: its `]` ends it, and the array goes on. As written: the
    // `]` ends the array, and its container goes on.
    let outer = &frames[..frames.len() - 1];
    let (row, written) = (follow(frames)?, follow(outer)?);
    if row != Grade::Good {
        return Ok(Opener::No);
    }
    if written != Grade::Good {
        return Ok(Opener::Supply { doubt: false });
    }
    let as_row = faults_after(after, close + 1, eof, closers_of(frames))?;
    let as_written = faults_after(after, close + 1, eof, closers_of(outer))?;
    Ok(if as_row < as_written {
        Opener::Supply { doubt: true }
    } else {
        Opener::No
    })
}

/// A member of an object begun again (`{"a": 1,{"a": 1, "b": 2}`), as
/// the object's first writing has it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::repair) enum Repeat {
    /// It repeats a member, key and value the same: `(start, end)` in the
    /// bytes after the `{`, its separator and whitespace included.
    Same(usize, usize),
    /// Its key is one the object has, with another value.
    Changed,
    /// Its key is a new one, or it is no plain member: read on as written.
    New,
}

/// The members at the start of `after` (just past a `{` that begins the
/// innermost object again), each as `member(key, value)` says the object
/// has it (`None`: the key is new; `Some(same)`: it has the key, with the
/// same value as written, whitespace aside). Stops at the first member that
/// is not the same. `None` while the bytes that decide have not arrived.
pub(in crate::repair) fn repeated_members(
    after: &[u8],
    eof: bool,
    mut member: impl FnMut(&[u8], &[u8]) -> Option<bool>,
) -> Option<Vec<Repeat>> {
    let c = Cursor {
        bytes: after,
        pos: 0,
        eof: eof || after.len() >= LOOKAHEAD,
        open_comments: true,
    };
    let mut repeats = Vec::new();
    let mut k = 0;
    loop {
        let mut m = c.at(k);
        m.skip_ws().ok()?;
        if m.peek().ok()? != Some(b'"') {
            repeats.push(Repeat::New);
            return Some(repeats);
        }
        let Some(key_end) = skip_value(&m).ok()? else {
            repeats.push(Repeat::New);
            return Some(repeats);
        };
        let mut v = m.at(key_end);
        v.skip_ws().ok()?;
        if v.peek().ok()? != Some(b':') {
            repeats.push(Repeat::New);
            return Some(repeats);
        }
        v.pos += 1;
        v.skip_ws().ok()?;
        let Some(value_end) = skip_value(&v).ok()? else {
            repeats.push(Repeat::New);
            return Some(repeats);
        };
        let key = &after[m.pos + 1..key_end - 1];
        let value = crate::repair::shape::compact(&after[v.pos..value_end]);
        match member(key, &value) {
            Some(true) => {}
            Some(false) => {
                repeats.push(Repeat::Changed);
                return Some(repeats);
            }
            None => {
                repeats.push(Repeat::New);
                return Some(repeats);
            }
        }
        let mut sep = c.at(value_end);
        sep.skip_ws().ok()?;
        if sep.peek().ok()? == Some(b',') {
            sep.pos += 1;
            sep.skip_ws().ok()?;
        }
        repeats.push(Repeat::Same(k, sep.pos));
        k = sep.pos;
    }
}

/// The end of the value at `c` (a string in any quote, a number or a word, a
/// container with what it holds), read leniently: `None` where no value
/// starts (a closer, a colon, a separator).
fn skip_value(c: &Cursor<'_>) -> Scan<Option<usize>> {
    let bytes = c.bytes;
    let Some(b) = c.peek()? else {
        return Ok(None);
    };
    if let Some((quote, len)) = c.quote_here()? {
        let mut k = c.pos + len;
        loop {
            let probe = c.at(k);
            match probe.peek()? {
                None | Some(b'\n') => return Ok(None),
                Some(b'\\') => k += 2,
                Some(_) => match probe.closing_quote(quote)? {
                    Some((n, _)) => return Ok(Some(k + n)),
                    None => k += 1,
                },
            }
        }
    }
    match b {
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut k = c.pos;
            loop {
                let Some(&b) = bytes.get(k) else {
                    return if c.eof { Ok(None) } else { Err(Short) };
                };
                match b {
                    b'"' => {
                        k += 1;
                        loop {
                            match bytes.get(k) {
                                None if c.eof => return Ok(None),
                                None => return Err(Short),
                                Some(b'\\') => k += 2,
                                Some(b'"') => break,
                                Some(_) => k += 1,
                            }
                        }
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Ok(Some(k + 1));
                        }
                    }
                    _ => {}
                }
                k += 1;
            }
        }
        b',' | b']' | b'}' | b':' | b')' => Ok(None),
        _ => {
            let mut k = c.pos;
            loop {
                match bytes.get(k) {
                    None if c.eof => return Ok(Some(k)),
                    None => return Err(Short),
                    Some(b) if crate::lex::is_ws(*b) || matches!(b, b',' | b']' | b'}' | b':') => {
                        return Ok(Some(k));
                    }
                    Some(_) => k += 1,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Frame::{Array as A, Object as O};

    #[test]
    fn a_row_without_its_opener() {
        let rows = [O, A];
        let after = br#""c", "d"], ["e", "f"]]}"#;
        assert_eq!(
            row_opener(&rows, after, true, Faults::NONE),
            Opener::Supply { doubt: false }
        );
        // The last row.
        assert_eq!(
            row_opener(&rows, br#""c", "d"]]}"#, true, Faults::NONE),
            Opener::Supply { doubt: false }
        );
        // Scalars that end the array as written.
        assert_eq!(
            row_opener(&rows, br#""c", "d"]}"#, true, Faults::NONE),
            Opener::No
        );
        assert_eq!(
            row_opener(&rows, br#"3], "b": 1}"#, true, Faults::NONE),
            Opener::No
        );
    }

    #[test]
    fn valid_mixed_arrays_stay() {
        // `[[[1, 2], 3], [4]]` at `3`: the document closes what it opened.
        assert_eq!(
            row_opener(&[A, A], b"3], [4]]", true, Faults::NONE),
            Opener::No
        );
    }

    #[test]
    fn waits_for_the_closer() {
        assert_eq!(
            row_opener(&[O, A], br#""c", "d"#, false, Faults::NONE),
            Opener::Need
        );
    }

    #[test]
    fn keys_first() {
        assert_eq!(key_first(br#" "bbox": [1]"#, true), Some(true));
        assert_eq!(key_first(br#"name: 1"#, true), Some(true));
        assert_eq!(key_first(br#""a", "b""#, true), Some(false));
        assert_eq!(key_first(br#""bbo"#, false), None);
    }
}
