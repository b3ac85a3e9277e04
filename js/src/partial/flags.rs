//! The flags, on either reading: one scan of the complete text finds what
//! the end left open, and the `Allow` flags decide what is kept.

use argmend::{FixKind, Outcome};

use super::prefix::{LITERALS, is_json_number, is_number_byte};
use super::{ARR, BOOL, NULL, NUM, OBJ, STR};

/// Where the text a [`Reading`] holds came from.
#[derive(Clone, Copy)]
pub(super) enum Source<'a> {
    /// The input itself, completed at its end: offsets are the input's up
    /// to where the completion starts.
    Input,
    /// The engine's repair of the input, with its source map.
    Engine(&'a Outcome<'a>),
}

impl Source<'_> {
    /// The input offset the output byte at `at` came from.
    fn input_offset(self, at: usize) -> Option<usize> {
        match self {
            Source::Input => Some(at),
            Source::Engine(outcome) => outcome.input_offset(at),
        }
    }
}

/// A complete JSON text for the input, and what its end closed.
pub(super) struct Reading<'a> {
    pub(super) out: &'a str,
    pub(super) end: End,
    pub(super) source: Source<'a>,
}

/// What the end of the input left open, as a [`Reading`]'s completion says.
#[derive(Debug, Default)]
pub(super) struct End {
    /// Containers the end left open, closed by the last bytes of the text.
    pub(super) n_closed: usize,
    /// The end cut a string: the last value is that string.
    pub(super) closed_string: bool,
    /// A key's value never came and the engine wrote `null`.
    pub(super) completed_value: bool,
    /// The engine completed a literal the end cut short.
    pub(super) completed_literal: bool,
    /// Input offsets of literals the engine replaced (`NaN`, `Infinity` and
    /// `-Infinity` among them, written `null`), in input order.
    pub(super) replaced_literals: Vec<usize>,
    /// Input offsets of lone surrogate escapes the engine wrote `\ufffd`.
    pub(super) surrogates: Vec<usize>,
}

impl End {
    /// The engine's truncation fixes, and the fixes the scan writes back.
    pub(super) fn of(outcome: &Outcome<'_>) -> End {
        let mut end = End::default();
        for fix in outcome.fixes() {
            match fix.kind {
                FixKind::ClosedContainer => end.n_closed += 1,
                FixKind::ClosedString => end.closed_string = true,
                FixKind::CompletedValue => end.completed_value = true,
                FixKind::CompletedLiteral => end.completed_literal = true,
                FixKind::ReplacedLiteral => end.replaced_literals.push(fix.offset),
                FixKind::ReplacedSurrogate => end.surrogates.push(fix.offset),
                _ => {}
            }
        }
        end
    }
}

impl Reading<'_> {
    /// The status and text for this reading (see [`partial_parse`](super::partial_parse)).
    pub(super) fn answer(&self, input: &str, allow: u32, nan_marker: Option<&str>) -> String {
        let out = self.out;
        // The closers the end added are the text's last bytes, the
        // outermost last; the scan stops before them, inside every
        // container they close.
        let closers = trailing_closers(out.as_bytes(), self.end.n_closed);
        let stop = closers
            .as_ref()
            .and_then(|closers| closers.last().copied())
            .unwrap_or(out.len());
        let scan = Scan::run(input, self, stop);
        let (Some(closers), Some(scan)) = (closers, scan) else {
            // Not what the engine promises; not known to happen. Its
            // value as it is, with no flag applied.
            return plain(input, out, &[], nan_marker);
        };
        let matches =
            scan.frames.len() == closers.len()
                && scan.frames.iter().zip(&closers).all(|(frame, &at)| {
                    out.as_bytes()[at] == if frame.object { b'}' } else { b']' }
                });
        if !matches {
            return plain(input, out, &scan.edits, nan_marker);
        }

        // The outermost open container whose flag is not allowed fails:
        // its parent drops it (partial-json's containers catch any error
        // below them and return what they have), or, at the top, the call
        // throws.
        let failing = scan.frames.iter().position(|frame| {
            let flag = if frame.object { OBJ } else { ARR };
            allow & flag == 0
        });
        let last = match failing {
            Some(0) if scan.frames[0].object => {
                return "PExpected '}' at end of object".to_owned();
            }
            Some(0) => return "PExpected ']' at end of array".to_owned(),
            Some(index) => Edit {
                start: scan.frames[index - 1].prev_end,
                end: closers[index - 1],
                text: Text::Cut,
            },
            None => {
                let Some((start, stop)) = scan.last_value() else {
                    return plain(input, out, &scan.edits, nan_marker);
                };
                let judged = if self.end.completed_value {
                    // `{"a":` is `{}` to partial-json, not `{"a":null}`.
                    Judged::Reject(Reject::Other)
                } else {
                    judge(input, self, start, stop, allow, scan.frames.is_empty())
                };
                match (judged, scan.frames.last()) {
                    (Judged::Keep, _) => return plain(input, out, &scan.edits, nan_marker),
                    (Judged::Replace(text), _) => Edit {
                        start,
                        end: stop,
                        text,
                    },
                    (Judged::Reject(Reject::Str), None) => {
                        return "PUnterminated string literal".to_owned();
                    }
                    (Judged::Reject(Reject::Other), None) => return "M".to_owned(),
                    (Judged::Reject(_), Some(frame)) => Edit {
                        start: frame.cut_from,
                        end: closers[closers.len() - 1],
                        text: Text::Cut,
                    },
                }
            }
        };
        // Edits inside the range the last edit replaces go with it.
        let mut edits: Vec<Edit> = scan
            .edits
            .into_iter()
            .filter(|edit| edit.end <= last.start)
            .collect();
        edits.push(last);
        plain(input, out, &edits, nan_marker)
    }
}

/// A value JSON text cannot hold, which partial-json gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Special {
    NaN,
    Infinity,
    NegInfinity,
}

impl Special {
    /// The special a whole literal names, as partial-json reads them.
    pub(super) fn of_literal(token: &[u8]) -> Option<Special> {
        match token {
            b"NaN" => Some(Special::NaN),
            b"Infinity" => Some(Special::Infinity),
            b"-Infinity" => Some(Special::NegInfinity),
            _ => None,
        }
    }

    /// How it is written for `JSON.parse` on the other side.
    fn text(self) -> Text {
        match self {
            Special::NaN => Text::NaN,
            Special::Infinity => Text::Static("1e999"),
            Special::NegInfinity => Text::Static("-1e999"),
        }
    }
}

/// What replaces a range of a reading's text.
#[derive(Debug, Clone, Copy)]
pub(super) enum Text {
    /// Nothing: the range is dropped.
    Cut,
    Static(&'static str),
    /// A piece of the input (a number's digits, a surrogate escape).
    Input(usize, usize),
    /// The wrapper's `NaN` marker.
    NaN,
}

#[derive(Debug)]
struct Edit {
    start: usize,
    end: usize,
    text: Text,
}

/// One container the scan is inside.
#[derive(Debug)]
struct Frame {
    object: bool,
    /// Where its opener is.
    open: usize,
    /// Where the last complete member's text starts, its comma included
    /// (dropping that member cuts from here).
    cut_from: usize,
    /// Just after the opener or the last complete member's value: a member
    /// still being read starts here.
    prev_end: usize,
    /// The last complete member's value.
    value: Option<(usize, usize)>,
    /// In an object: the next string is a key.
    expect_key: bool,
}

/// The scan of a reading's text up to the closers the end added.
#[derive(Debug)]
struct Scan {
    /// The open containers at that point, outermost first.
    frames: Vec<Frame>,
    /// The top-level value, once complete.
    top: Option<(usize, usize)>,
    /// Specials and surrogate escapes to write back, in text order.
    edits: Vec<Edit>,
}

impl Scan {
    /// Scan `reading.out` before `stop`. `None` if it is not what a reading
    /// promises (JSON, but for numbers and literals the end cut short),
    /// which would be a bug.
    fn run(input: &str, reading: &Reading<'_>, stop: usize) -> Option<Scan> {
        let out = reading.out.as_bytes();
        let specials = read_specials(input.as_bytes(), &reading.end.replaced_literals);
        let mut scan = Scan {
            frames: Vec::new(),
            top: None,
            edits: Vec::new(),
        };
        let mut at = 0;
        while at < stop {
            match out[at] {
                b' ' | b'\t' | b'\n' | b'\r' | b',' | b':' => at += 1,
                byte @ (b'[' | b'{') => {
                    scan.frames.push(Frame {
                        object: byte == b'{',
                        open: at,
                        cut_from: at + 1,
                        prev_end: at + 1,
                        value: None,
                        expect_key: byte == b'{',
                    });
                    at += 1;
                }
                b']' | b'}' => {
                    let frame = scan.frames.pop()?;
                    at += 1;
                    scan.value(frame.open, at);
                }
                b'"' => {
                    let start = at;
                    at = string_end(input, reading, &mut scan.edits, start)?;
                    match scan.frames.last_mut() {
                        Some(frame) if frame.expect_key => {
                            frame.cut_from = frame.prev_end;
                            frame.expect_key = false;
                        }
                        _ => scan.value(start, at),
                    }
                }
                _ => {
                    let start = at;
                    while at < stop && !is_delimiter(out[at]) {
                        at += 1;
                    }
                    let token = &out[start..at];
                    // Written as a token by the strict reading, as `null`
                    // by the engine.
                    let special = match Special::of_literal(token) {
                        Some(special) => Some(special),
                        None if token == b"null" && !specials.is_empty() => {
                            let source = reading.source.input_offset(start)?;
                            specials
                                .binary_search_by_key(&source, |&(offset, _)| offset)
                                .ok()
                                .map(|found| specials[found].1)
                        }
                        None => None,
                    };
                    if let Some(special) = special {
                        scan.edits.push(Edit {
                            start,
                            end: at,
                            text: special.text(),
                        });
                    }
                    scan.value(start, at);
                }
            }
        }
        Some(scan)
    }

    /// A value from `start` to `end` is complete in the current container.
    fn value(&mut self, start: usize, end: usize) {
        match self.frames.last_mut() {
            Some(frame) => {
                if !frame.object {
                    frame.cut_from = frame.prev_end;
                }
                frame.value = Some((start, end));
                frame.prev_end = end;
                frame.expect_key = frame.object;
            }
            None => self.top = Some((start, end)),
        }
    }

    /// The last complete value of the innermost open container, or the
    /// top-level value when nothing is open.
    fn last_value(&self) -> Option<(usize, usize)> {
        match self.frames.last() {
            Some(frame) => frame.value,
            None => self.top,
        }
    }
}

/// Where a number or literal token ends.
fn is_delimiter(byte: u8) -> bool {
    matches!(
        byte,
        b',' | b']' | b'}' | b':' | b' ' | b'\t' | b'\n' | b'\r'
    )
}

/// Just after the end quote of the string that opens at `start`; each
/// `\ufffd` the engine wrote for a lone surrogate escape of the input gets
/// an edit that writes the input's escape back.
fn string_end(
    input: &str,
    reading: &Reading<'_>,
    edits: &mut Vec<Edit>,
    start: usize,
) -> Option<usize> {
    let out = reading.out.as_bytes();
    let surrogates = &reading.end.surrogates;
    let mut at = start + 1;
    loop {
        at += out
            .get(at..)?
            .iter()
            .position(|&byte| byte == b'"' || byte == b'\\')?;
        if out[at] == b'"' {
            return Some(at + 1);
        }
        if !surrogates.is_empty() && out.get(at + 1..at + 6) == Some(b"ufffd") {
            let source = reading.source.input_offset(at)?;
            let escape = input.as_bytes().get(source..source + 6);
            if surrogates.binary_search(&source).is_ok() && escape.is_some_and(is_surrogate_escape)
            {
                edits.push(Edit {
                    start: at,
                    end: at + 6,
                    text: Text::Input(source, source + 6),
                });
            }
        }
        at += 2;
    }
}

/// `\uD800` to `\uDFFF`, in either case.
fn is_surrogate_escape(escape: &[u8]) -> bool {
    matches!(
        escape,
        [b'\\', b'u', b'd' | b'D', b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F', rest @ ..]
            if rest.len() == 2 && rest.iter().all(u8::is_ascii_hexdigit)
    )
}

/// Which literals the engine replaced were `NaN`, `Infinity` or
/// `-Infinity` (whole words), in input order.
fn read_specials(input: &[u8], replaced: &[usize]) -> Vec<(usize, Special)> {
    replaced
        .iter()
        .filter_map(|&offset| {
            let rest = input.get(offset..)?;
            let len = rest
                .iter()
                .enumerate()
                .take_while(|&(index, &byte)| {
                    byte.is_ascii_alphanumeric() || (index == 0 && byte == b'-')
                })
                .count();
            Special::of_literal(&rest[..len]).map(|special| (offset, special))
        })
        .collect()
}

/// The positions of the `n` closers that end `out` (whitespace between
/// them allowed), outermost first; `None` if `out` does not end so.
fn trailing_closers(out: &[u8], n: usize) -> Option<Vec<usize>> {
    let mut closers = Vec::with_capacity(n);
    let mut at = out.len();
    for _ in 0..n {
        while at > 0 && out[at - 1].is_ascii_whitespace() {
            at -= 1;
        }
        at = at.checked_sub(1)?;
        if !matches!(out[at], b']' | b'}') {
            return None;
        }
        closers.push(at);
    }
    Some(closers)
}

/// What happens to the last value.
#[derive(Debug)]
enum Judged {
    Keep,
    Replace(Text),
    /// Not allowed: an element or member is dropped, a top-level value
    /// throws.
    Reject(Reject),
}

/// What a rejected top-level value throws.
#[derive(Debug, Clone, Copy)]
enum Reject {
    /// `PartialJSON`: "Unterminated string literal".
    Str,
    /// `MalformedJSON`, with `JSON.parse`'s message.
    Other,
}

/// partial-json's reading of the last value, `reading.out[start..stop]`,
/// from what its input was when the end came.
fn judge(
    input: &str,
    reading: &Reading<'_>,
    start: usize,
    stop: usize,
    allow: u32,
    top: bool,
) -> Judged {
    if reading.end.closed_string {
        // The end cut this string; what it holds is partial-json's (an
        // escape cut short dropped, a lone surrogate written back).
        return if allow & STR != 0 {
            Judged::Keep
        } else {
            Judged::Reject(Reject::Str)
        };
    }
    let Some(source) = reading.source.input_offset(start) else {
        return Judged::Keep;
    };
    let raw = input.as_bytes().get(source..).unwrap_or_default();
    let Some(&first) = raw.first() else {
        return Judged::Keep;
    };
    if (first.is_ascii_digit() || first == b'-') && raw.iter().all(|&byte| is_number_byte(byte)) {
        // A number the end may still grow.
        return number(raw, source, allow, top);
    }
    let word = raw.strip_prefix(b"-").unwrap_or(raw);
    if !word.is_empty() && word.iter().all(u8::is_ascii_alphabetic) {
        // A literal at the end.
        let value = &reading.out.as_bytes()[start..stop];
        return literal(raw, value, allow, reading.end.completed_literal);
    }
    Judged::Keep
}

/// A number at the end of the input, `raw`, which starts at input offset
/// `source`.
///
/// In a container partial-json needs `Allow.NUM` for any number at the end
/// (`[12` may become `[123`), reads `1e`, `1e+`, `1e-` as `1`, and drops
/// what `JSON.parse` cannot read (`1.`, `1E`, `-`). At the top it reads the
/// whole text with `JSON.parse` first, so `12` is `12` whatever the flags,
/// and it throws `MalformedJSON` where a container would drop.
fn number(raw: &[u8], source: usize, allow: u32, top: bool) -> Judged {
    if !top && allow & NUM == 0 {
        return Judged::Reject(Reject::Other);
    }
    if is_json_number(raw) {
        return Judged::Replace(Text::Input(source, source + raw.len()));
    }
    if allow & NUM != 0 {
        let digits = [&b"e"[..], b"e+", b"e-"]
            .iter()
            .find_map(|suffix| raw.strip_suffix(*suffix));
        if let Some(digits) = digits.filter(|digits| is_json_number(digits)) {
            return Judged::Replace(Text::Input(source, source + digits.len()));
        }
    }
    Judged::Reject(Reject::Other)
}

/// A literal at the end of the input, `raw`; `value` is what the reading
/// made of it.
///
/// partial-json reads a literal cut short only with its flag (`nu` with
/// `Allow.NULL`, `Na` with `Allow.NAN`, `-Inf` with `Allow._INFINITY`). A
/// literal the engine completed that partial-json does not know (`Tr`,
/// `Non`) follows the flag of the value the engine made of it.
fn literal(raw: &[u8], value: &[u8], allow: u32, completed: bool) -> Judged {
    for (name, flag, text) in LITERALS {
        if name == raw {
            // Whole: the scan wrote a special back already.
            return Judged::Keep;
        }
        if name.starts_with(raw) {
            return if allow & flag != 0 {
                Judged::Replace(text)
            } else {
                Judged::Reject(Reject::Other)
            };
        }
    }
    let flag = match value {
        b"true" | b"false" => BOOL,
        b"null" => NULL,
        _ => return Judged::Keep,
    };
    if completed && allow & flag == 0 {
        Judged::Reject(Reject::Other)
    } else {
        Judged::Keep
    }
}

/// The answer `j` (or `n`) with `edits` applied to `out`.
fn plain(input: &str, out: &str, edits: &[Edit], nan_marker: Option<&str>) -> String {
    let has_nan = edits.iter().any(|edit| matches!(edit.text, Text::NaN));
    let marker = match (has_nan, nan_marker) {
        (false, _) => String::new(),
        (true, None) => return "N".to_owned(),
        (true, Some(marker)) => serde_json::Value::from(marker).to_string(),
    };
    let mut text = String::with_capacity(out.len() + 1);
    text.push(if has_nan { 'n' } else { 'j' });
    let mut at = 0;
    for edit in edits {
        text.push_str(&out[at..edit.start]);
        match edit.text {
            Text::Cut => {}
            Text::Static(piece) => text.push_str(piece),
            Text::Input(from, to) => text.push_str(&input[from..to]),
            Text::NaN => text.push_str(&marker),
        }
        at = edit.end;
    }
    text.push_str(&out[at..]);
    text
}
