//! What follows a run of closers, read in the lookahead window: whether it
//! is a key, what shape the next element has, whether it could stand in the
//! container left on top at all, and how many mends the rest of the window
//! needs under a reading. The openers' judge asks the same questions.

use smallvec::SmallVec;

use crate::lex::Closer;
use crate::repair::frame::{Frame, LOOKAHEAD};
use crate::repair::hints::{Hints, KeyHint};
use crate::repair::judge::cursor::{Cursor, Scan, Short};
use crate::repair::judge::fit::Fit;
use crate::repair::judge::subject::MAX_KEY;
use crate::repair::shape::{Element, Shape};

/// The closers the open `frames` expect, outermost first (the stack a
/// lenient count of what follows starts from).
pub(in crate::repair::judge) fn closers_of(frames: &[Frame]) -> SmallVec<[u8; 32]> {
    closers_doubled(frames, &[])
}

/// [`closers_of`], with the closers of the containers opened with a
/// doubled brace (their indices in `doubled`) twice.
pub(super) fn closers_doubled(frames: &[Frame], doubled: &[usize]) -> SmallVec<[u8; 32]> {
    let mut closers = SmallVec::new();
    for (index, frame) in frames.iter().enumerate() {
        let closer = frame.closer().as_bytes().first().copied().unwrap_or(b']');
        closers.push(closer);
        if doubled.contains(&index) {
            closers.push(closer);
        }
    }
    closers
}

/// How many mends `bytes[from..]` (the rest of the window) needs with the
/// containers whose closers `stack` holds open: closers that close no
/// container on top (each container skipped counts), closers with none
/// open, and, where the input ends inside the window, containers left open.
/// A lenient bracket count that skips `"` strings: enough to tell a reading
/// whose containers the document later closes from one it does not.
/// `Short` until the window is complete.
pub(in crate::repair::judge) fn faults_after(
    bytes: &[u8],
    from: usize,
    eof: bool,
    mut stack: SmallVec<[u8; 32]>,
) -> Scan<usize> {
    let window_ends = eof || bytes.len() >= LOOKAHEAD;
    if !window_ends {
        return Err(Short);
    }
    let mut faults = 0;
    let mut j = from;
    while j < bytes.len() {
        match bytes[j] {
            b'"' => {
                j += 1;
                while j < bytes.len() && bytes[j] != b'"' {
                    j += if bytes[j] == b'\\' { 2 } else { 1 };
                }
                // A key where an array holds its elements: the object it
                // belongs to was closed too early (or never opened).
                if stack.last() == Some(&b']') {
                    let mut k = j + 1;
                    while k < bytes.len() && bytes[k].is_ascii_whitespace() {
                        k += 1;
                    }
                    if bytes.get(k) == Some(&b':') {
                        faults += 1;
                    }
                }
            }
            b'{' => stack.push(b'}'),
            b'[' => stack.push(b']'),
            b @ (b'}' | b']') => match stack.iter().rposition(|&c| c == b) {
                Some(at) => {
                    faults += stack.len() - 1 - at;
                    stack.truncate(at);
                }
                None => faults += 1,
            },
            _ => {}
        }
        j += 1;
    }
    if eof && bytes.len() < LOOKAHEAD {
        faults += stack.len();
    }
    Ok(faults)
}

/// How much the member or element that follows looks like the container's
/// own, `depth` containers deep once the run has closed what it closes:
/// positive when alike, negative when unlike, zero when nothing is known.
pub(super) fn likeness(
    hints: Option<&Hints>,
    cursor: &Cursor<'_>,
    fit: Fit,
    depth: usize,
    shape: Option<&Shape>,
) -> Scan<i32> {
    Ok(match fit {
        Fit::Key(key) => {
            let name = &cursor.bytes[key.name.0..key.name.1];
            let hint = hints.map_or(KeyHint::Unknown, |h| h.key(depth, name));
            let has = shape.is_some_and(|s| s.knows_key(name));
            match (hint, has) {
                (KeyHint::Undeclared, _) | (_, true) => -1,
                (KeyHint::Declared, _) => 1,
                _ => 0,
            }
        }
        Fit::Element { at, .. } if keyed(cursor.at(at))? => {
            // A member whose object's `{` is missing: like the array's
            // elements when they are objects with that key (an object
            // whose first key none of them has tells nothing: the member
            // may as well be the closed object's own, `}}` written for `}`).
            match shape.and_then(Shape::uniform) {
                Some(Element::Object(keys)) => {
                    let name = key_name(cursor.at(at))?;
                    2 * i32::from(keys.iter().any(|k| &k[..] == name))
                }
                Some(_) => -1,
                None => 0,
            }
        }
        Fit::Element { at, .. } => {
            let next = element_at(cursor.at(at))?;
            match (shape.and_then(Shape::uniform), next) {
                (None, _) | (_, None) => 0,
                (Some(Element::Object(keys)), Some(Element::Object(first))) => {
                    let shared = first.first().is_some_and(|k| keys.contains(k));
                    1 + i32::from(shared)
                }
                (Some(Element::Array(n)), Some(Element::Array(m))) => 1 + i32::from(*n == m),
                (Some(kind), Some(next)) if kind.same_kind(&next) => 1,
                _ => -1,
            }
        }
        _ => 0,
    })
}

/// Whether what follows the run at `c` (after a separator, if any) cannot
/// stand in `top` at all: an opening bracket where an object wants a key, a
/// key and its colon in an array.
pub(in crate::repair::judge) fn misplaced(mut c: Cursor<'_>, top: Option<&Frame>) -> Scan<bool> {
    c.skip_ws()?;
    if matches!(c.peek()?, Some(b',' | b';')) {
        c.pos += 1;
        c.skip_ws()?;
    }
    // A closer here is one no open container takes.
    if matches!(c.peek()?, Some(b'}' | b']')) {
        return Ok(true);
    }
    Ok(match top {
        Some(Frame::Object) => matches!(c.peek()?, Some(b'{' | b'[')),
        Some(Frame::Array) => keyed(c)?,
        _ => false,
    })
}

/// The text of the key at `c` (a quoted string's body, or a bare word).
fn key_name<'b>(c: Cursor<'b>) -> Scan<&'b [u8]> {
    let bytes = c.bytes;
    if let Some((_, len)) = c.quote_here()? {
        let start = c.pos + len;
        let end = bytes[start..]
            .iter()
            .position(|&b| b == b'"' || b == b'\'' || b == b'\n')
            .map_or(bytes.len(), |k| start + k);
        return Ok(&bytes[start..end]);
    }
    let end = bytes[c.pos..]
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'-')))
        .map_or(bytes.len(), |k| c.pos + k);
    Ok(&bytes[c.pos..end])
}

/// Whether a quoted string or a bare word at `c` is followed by a colon: a
/// key.
pub(in crate::repair::judge) fn keyed(c: Cursor<'_>) -> Scan<bool> {
    let Some((quote, len)) = c.quote_here()? else {
        // A bare key: `false: "x"`, `name: 1`.
        let mut k = c.pos;
        while let Some(b) = c.at(k).peek()? {
            if !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'-'))
                || k - c.pos > MAX_KEY
            {
                break;
            }
            k += 1;
        }
        if k == c.pos {
            return Ok(false);
        }
        let mut colon = c.at(k);
        colon.skip_spaces()?;
        return Ok(colon.peek()? == Some(b':'));
    };
    let mut k = c.pos + len;
    loop {
        let probe = c.at(k);
        match probe.peek()? {
            None | Some(b'\n') => return Ok(false),
            Some(b'\\') => k += 2,
            Some(_) => match probe.closing_quote(quote)? {
                Some((n, Closer::Own)) => {
                    let mut colon = c.at(k + n);
                    colon.skip_spaces()?;
                    return Ok(colon.peek()? == Some(b':'));
                }
                _ if k - c.pos > MAX_KEY => return Ok(false),
                Some((n, _)) => k += n,
                None => k += 1,
            },
        }
    }
}

/// The shape of the value that starts at `c`, as far as the window shows:
/// an object with its first key, an array with its length, a string or a
/// scalar. `None` when it cannot be told.
fn element_at(c: Cursor<'_>) -> Scan<Option<Element>> {
    let bytes = c.bytes;
    let Some(&b) = bytes.get(c.pos) else {
        return Ok(None);
    };
    Ok(Some(match b {
        b'"' => Element::String,
        b'{' => {
            let mut k = c.pos + 1;
            while bytes.get(k).is_some_and(|b| crate::lex::is_ws(*b)) {
                k += 1;
            }
            match bytes.get(k) {
                None if c.eof => return Ok(None),
                None => return Err(Short),
                Some(b'"') => {}
                Some(_) => return Ok(Some(Element::Object(Vec::new()))),
            }
            let start = k + 1;
            let mut j = start;
            loop {
                match bytes.get(j) {
                    None if c.eof => return Ok(None),
                    None => return Err(Short),
                    Some(b'\\') => j += 2,
                    Some(b'"') => break,
                    Some(b'\n') => return Ok(None),
                    Some(_) => j += 1,
                }
            }
            Element::Object(vec![bytes[start..j].into()])
        }
        b'[' => {
            // Its length: the elements at its own level, to its `]`.
            let (mut depth, mut n, mut started) = (0usize, 0usize, false);
            let mut j = c.pos;
            loop {
                let Some(&b) = bytes.get(j) else {
                    return if c.eof { Ok(None) } else { Err(Short) };
                };
                match b {
                    b'"' => {
                        if depth == 1 && !started {
                            started = true;
                            n += 1;
                        }
                        j += 1;
                        while let Some(&s) = bytes.get(j) {
                            match s {
                                b'\\' => j += 2,
                                b'"' => break,
                                _ => j += 1,
                            }
                        }
                    }
                    b'[' | b'{' => {
                        if depth == 1 && !started {
                            started = true;
                            n += 1;
                        }
                        depth += 1;
                    }
                    b']' | b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            break Element::Array(n);
                        }
                    }
                    b',' if depth == 1 => started = false,
                    b if depth == 1 && !started && !crate::lex::is_ws(b) => {
                        started = true;
                        n += 1;
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        b'-' | b'0'..=b'9' | b't' | b'f' | b'n' => Element::Scalar,
        _ => return Ok(None),
    }))
}
