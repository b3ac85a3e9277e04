//! What the machine lends the lane: a view of where it stands, its frame
//! stack and the lane's scratch space. Apart from the scan (`mod.rs`) so
//! that the scan's helpers can read the view without importing the scan.

use smallvec::SmallVec;

use super::edit::LaneEdit;
use crate::lex;
use crate::repair::frame::{Frame, Stack, State};
use crate::repair::open_string::Str;

/// What the machine lends the lane for one scan: the input and where the
/// machine stands in it, read only; the frame stack, which the scan moves
/// as it goes (the frames it pops below its start are kept in the scratch
/// space, to be put back should the run not be taken); and the scratch
/// space.
pub(in crate::repair) struct Lane<'m> {
    /// The input kept (`Machine::src`); `src[0]` is input position `base`.
    pub(in crate::repair) src: &'m [u8],
    pub(in crate::repair) base: usize,
    /// Whether the input ends where `src` does.
    pub(in crate::repair) eof: bool,
    /// Whether this is a one-shot repair (see `Machine::lazy`).
    pub(in crate::repair) lazy: bool,
    /// Whether the document's strings hold quoted code (the machine's
    /// `inner_at`): its keys are then the machine's to read.
    pub(in crate::repair) wary: bool,
    /// Whether the document's structure has used a bare key: until it has,
    /// a bare word where a key belongs is the machine's (it may begin a line
    /// of prose, `Machine::prose_line`).
    pub(in crate::repair) bare_keys: bool,
    pub(in crate::repair) depth_limit: usize,
    pub(in crate::repair) state: State,
    /// The string the machine has open, if any.
    pub(in crate::repair) string: Option<&'m Str>,
    /// The machine's mark: where the last value ended in the output.
    pub(in crate::repair) mark: usize,
    /// Whether the machine holds a comma after the last value.
    pub(in crate::repair) pending_comma: bool,
    /// The output's length: where `src[start]` goes.
    pub(in crate::repair) out_start: usize,
    /// The key of the member whose value the scan starts at, if it does.
    pub(in crate::repair) key: MemberKey<'m>,
    pub(in crate::repair) stack: &'m mut Stack,
    pub(in crate::repair) scratch: &'m mut Scratch,
}

/// The key of the member whose value the scan reads next: a value string
/// that may be that key written again (`{"notes": "notes": "x"}`) is the
/// machine's to open, since its body is held until its end quote shows
/// whether a colon follows (see `open_string::Echo`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::repair) enum MemberKey<'m> {
    /// No value string here can echo a key: none is compared (no member
    /// value next, or a key the machine does not compare, see
    /// `Machine::member_key`).
    None,
    /// The key's text as written out (the key is not compared when it is
    /// empty or holds a backslash: its JSON may differ from its text).
    Text(&'m [u8]),
    /// The plain `"key"` whose colon is at this index into the scan's
    /// input, found only when a value string is compared with it: most
    /// never are, and reading every key back cost the valid 30 MB document
    /// 3% of its instructions (callgrind).
    Before(usize),
    /// The output so far, which ends with the key and its colon when a
    /// member's value comes next (see [`key_at_end`]), and the longest key
    /// compared: read only when a value string is compared with it (a
    /// stream's scan starting at a value; reading it back for every chunk
    /// cost 1% of 16-byte streams, callgrind).
    Held(&'m [u8], usize),
    /// The scan does not know it: a value string that might echo it is
    /// left to the machine.
    Unknown,
}

impl MemberKey<'_> {
    /// Whether a value string whose body so far is `body` (all of it, with
    /// `whole`) may still be the key written again; `src` is the scan's
    /// input.
    pub(in crate::repair) fn may_echo(self, src: &[u8], body: &[u8], whole: bool) -> bool {
        let key = match self {
            MemberKey::None => return false,
            MemberKey::Unknown => return true,
            MemberKey::Text(key) => key,
            MemberKey::Before(colon) => match key_before(src, colon) {
                Some(key) => key,
                None => return false,
            },
            MemberKey::Held(text, max) => match key_at_end(text, max) {
                Some((open, len)) => &text[open..open + len],
                None => return false,
            },
        };
        if key.is_empty() || key.contains(&b'\\') {
            return false;
        }
        if whole {
            key == body
        } else {
            key.starts_with(body)
        }
    }
}

/// The key of the member whose value comes next, when `text` (the output
/// so far) ends with `"key":` (whitespace between allowed): its text's
/// position in `text` and its length. `None` for a key longer than `max`,
/// holding a backslash (its text as written may differ from its JSON),
/// empty, or not there.
pub(in crate::repair) fn key_at_end(text: &[u8], max: usize) -> Option<(usize, usize)> {
    let (&b':', before) = text.split_last()? else {
        return None;
    };
    let close = before.iter().rposition(|b| !lex::is_ws(*b))?;
    if before[close] != b'"' {
        return None;
    }
    let from = close.saturating_sub(max + 1);
    let open = from
        + before[from..close]
            .iter()
            .rposition(|&b| b == b'"' || b == b'\\')?;
    // An escaped quote (`"a\"b":`) is the key's text, not its opening
    // quote: the key holds a backslash.
    if before[open] != b'"'
        || close == open + 1
        || open.checked_sub(1).is_some_and(|k| before[k] == b'\\')
    {
        return None;
    }
    Some((open + 1, close - open - 1))
}

/// The text of the `"key"` whose colon is at `colon`; `None` for a key
/// holding a backslash, whose text as written may differ from its JSON (as
/// [`key_at_end`] has it: an echo is looked for only where both agree, or
/// `"a\"b": "b":` read one shot took `b` for the key and streamed did not).
fn key_before(src: &[u8], colon: usize) -> Option<&[u8]> {
    let (open, len) = key_at_end(&src[..=colon], colon)?;
    Some(&src[open..open + len])
}

/// The lane's working space, kept by the machine so that scans reuse one
/// allocation.
#[derive(Debug, Clone, Default)]
pub(in crate::repair) struct Scratch {
    /// The lenient tokens the current scan took.
    pub(in crate::repair) edits: Vec<LaneEdit>,
    /// Frames the current scan closed below the height it started at, in
    /// order, so a scan that must be redone can put them back.
    pub(in crate::repair) undo: SmallVec<[Frame; 16]>,
}
