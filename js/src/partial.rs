//! partial-json's `parse(text, allow)` (`lib/partial-json.js` wraps it).
//!
//! Two readings of the text, then one set of rules:
//!
//! - **A strict JSON prefix** (with partial-json's `NaN`, `Infinity` and
//!   `-Infinity`) is read by [`Prefix::read`], strictly, as partial-json
//!   reads it, and completed where the end cut it: a string closed (an
//!   escape cut short dropped), a member whose value never came dropped,
//!   the open containers closed. The engine is not asked: its quote
//!   judgement, made for model output with unescaped quotes, may read a
//!   valid prefix that ends inside an odd key (`{"a": "x", "http:`)
//!   otherwise than strict JSON does, and partial-json's answer is defined
//!   by the strict reading.
//! - **Anything else** is malformed, and the engine mends it. Its output is
//!   complete JSON; its truncation fixes (`closed_container`,
//!   `closed_string`, `completed_literal`, `completed_value`) and its source
//!   map say what the end of the input cut.
//!
//! Either way the result is one complete JSON text, and one linear scan of
//! it with an explicit stack ([`Scan`]; no recursion, whatever the depth)
//! finds what the `Allow` flags decide about: the chain of containers the
//! end left open, and the last member of the innermost one. Its own input
//! text says what it was when the end came ([`judge`]): a cut string, a
//! number the end may still grow, a literal cut short (`tr`). It is kept,
//! rewritten as partial-json gives it (`1e` is `1`; `Na` with `Allow.NAN`
//! is `NaN`) or dropped. An open container whose flag is not allowed is
//! dropped from its parent, or makes the call throw `PartialJSON` if it is
//! the outermost.
//!
//! Two values partial-json gives have no JSON text; they are written so
//! that `JSON.parse` on the JavaScript side gives them back: `Infinity` and
//! `-Infinity` as `1e999` and `-1e999`, and `NaN` as a string marker the
//! wrapper chose, which its reviver turns into `NaN`. Where the engine
//! wrote `\ufffd` for a lone surrogate escape of the input (`"\ud800"`), the
//! input's escape is written back, so it parses as `JSON.parse` parses it.

use argmend::{FixKind, Options, Outcome, Verdict};
use wasm_bindgen::prelude::*;

use crate::limit_error;
use crate::offsets::Utf16Map;

// partial-json's `Allow` bits (its `options.js`).
const STR: u32 = 0b1;
const NUM: u32 = 0b10;
const ARR: u32 = 0b100;
const OBJ: u32 = 0b1000;
const NULL: u32 = 0b1_0000;
const BOOL: u32 = 0b10_0000;
const NAN: u32 = 0b100_0000;
const INFINITY: u32 = 0b1000_0000;
const NEG_INFINITY: u32 = 0b1_0000_0000;

/// partial-json's `parse(text, allow)` on trimmed, non-empty text.
///
/// The answer is a status letter, then its text:
///
/// - `v`: the text is valid JSON as it is: `JSON.parse(text)`;
/// - `j` + JSON text: the value;
/// - `n` + JSON text: the value, `NaN` written as the JSON string
///   `nan_marker`, for a reviver;
/// - `N`: the value holds `NaN`: call again with a `nan_marker`;
/// - `P` + message: throw `PartialJSON` (the wrapper adds the position);
/// - `M`: throw `MalformedJSON` with `JSON.parse`'s own message, as
///   partial-json does for a top-level scalar it cannot read;
/// - `E` + message: throw `MalformedJSON` with this message (nesting deeper
///   than the engine's limit of 512 levels).
///
/// `allow` is partial-json's bit set. Only a bug in the engine (its
/// `stuck` error) is an `Err`.
#[wasm_bindgen]
pub fn partial_parse(
    text: &str,
    allow: u32,
    nan_marker: Option<String>,
) -> Result<String, JsValue> {
    answer(text, allow, nan_marker.as_deref()).map_err(|error| limit_error(&error))
}

/// [`partial_parse`], its `Err` the engine's.
fn answer(text: &str, allow: u32, nan_marker: Option<&str>) -> Result<String, argmend::Error> {
    match Prefix::read(text) {
        Read::Prefix(prefix) if prefix.valid => Ok("v".to_owned()),
        Read::Prefix(prefix) => {
            let reading = Reading {
                out: &prefix.out,
                end: prefix.end,
                source: Source::Input,
            };
            Ok(reading.answer(text, allow, nan_marker))
        }
        Read::TooDeep(offset) => Ok(too_deep(text, offset)),
        Read::Malformed => mended(text, allow, nan_marker),
    }
}

/// The answer for text that is not a strict prefix: the engine's repair.
fn mended(text: &str, allow: u32, nan_marker: Option<&str>) -> Result<String, argmend::Error> {
    let options = Options::default().source_map(true);
    match argmend::repair_with(text.as_bytes(), options) {
        Ok(outcome) => Ok(mended_answer(text, &outcome, allow, nan_marker)),
        Err(error) if error.kind() == argmend::ErrorKind::TooDeep => {
            Ok(too_deep(text, error.offset()))
        }
        Err(error) => Err(error),
    }
}

/// The answer for the engine's repair of `text` (with its source map).
fn mended_answer(
    text: &str,
    outcome: &Outcome<'_>,
    allow: u32,
    nan_marker: Option<&str>,
) -> String {
    match outcome.verdict() {
        Verdict::Valid => return "v".to_owned(),
        Verdict::NotJson => return "M".to_owned(),
        _ => {}
    }
    let reading = Reading {
        out: outcome.text(),
        end: End::of(outcome),
        source: Source::Engine(outcome),
    };
    reading.answer(text, allow, nan_marker)
}

/// The depth limit's message, in the engine's words, its offset in UTF-16
/// units.
fn too_deep(text: &str, offset: usize) -> String {
    let limit = Options::default().depth_limit();
    let at = Utf16Map::of_str(text).units(offset.min(text.len()));
    format!("Enesting deeper than {limit} levels at position {at}")
}

// ---------------------------------------------------------------------------
// The strict reading.

/// What [`Prefix::read`] found.
enum Read {
    Prefix(Prefix),
    /// A strict prefix nested deeper than the engine's limit; the opener at
    /// this offset crossed it.
    TooDeep(usize),
    /// Not a strict JSON prefix.
    Malformed,
}

/// A strict JSON prefix, completed where its end cut it.
struct Prefix {
    /// The text, completed: a cut string closed, a member without its
    /// value dropped, the open containers closed. A number or literal cut
    /// short (`1.`, `tr`) stays as it was: the flags decide what it becomes.
    out: String,
    end: End,
    /// The text is one complete JSON value as it is.
    valid: bool,
}

/// What comes next in a strict reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// A value: at the top, after `:`, after `,` in an array.
    Value,
    /// A value or `]`, after `[`.
    ValueOrClose,
    /// A key, after `,` in an object.
    Key,
    /// A key or `}`, after `{`.
    KeyOrClose,
    Colon,
    /// After a value in a container.
    CommaOrClose,
    /// After the top-level value: nothing more.
    Done,
}

/// How the end cut a strict prefix.
enum Cut {
    /// Between tokens: complete as `expect` says.
    Between,
    /// Inside a value string; an escape cut short starts at this offset (or
    /// it is the end).
    String(usize),
    /// Inside a key: the member goes.
    Key,
    /// Inside a number or a literal at the end.
    Token,
}

impl Prefix {
    /// Read `text` strictly (one pass, an explicit stack).
    fn read(text: &str) -> Read {
        let bytes = text.as_bytes();
        let limit = Options::default().depth_limit();
        // Each open container: whether it is an object, and where a member
        // the end cut would be cut from (just after the opener or at the
        // container's last comma).
        let mut frames: Vec<(bool, usize)> = Vec::new();
        let mut expect = Expect::Value;
        let mut special = false;
        let mut at = 0;
        let cut = loop {
            let Some(&byte) = bytes.get(at) else {
                break Cut::Between;
            };
            if matches!(byte, b' ' | b'\t' | b'\n' | b'\r') {
                at += 1;
                continue;
            }
            match (expect, byte) {
                (Expect::Done, _) => return Read::Malformed,
                (Expect::Colon, b':') => {
                    expect = Expect::Value;
                    at += 1;
                }
                (Expect::CommaOrClose, b',') => {
                    let Some(frame) = frames.last_mut() else {
                        return Read::Malformed;
                    };
                    frame.1 = at;
                    expect = if frame.0 { Expect::Key } else { Expect::Value };
                    at += 1;
                }
                (Expect::CommaOrClose | Expect::ValueOrClose, b']')
                | (Expect::CommaOrClose | Expect::KeyOrClose, b'}') => {
                    match frames.pop() {
                        Some((object, _)) if object == (byte == b'}') => {}
                        _ => return Read::Malformed,
                    }
                    expect = after_value(&frames);
                    at += 1;
                }
                (Expect::Key | Expect::KeyOrClose, b'"') => match string(bytes, at) {
                    Some(Str::Complete(end)) => {
                        expect = Expect::Colon;
                        at = end;
                    }
                    Some(Str::Cut(_)) => break Cut::Key,
                    None => return Read::Malformed,
                },
                (Expect::Value | Expect::ValueOrClose, b'[' | b'{') => {
                    if frames.len() == limit {
                        return Read::TooDeep(at);
                    }
                    frames.push((byte == b'{', at + 1));
                    expect = if byte == b'{' {
                        Expect::KeyOrClose
                    } else {
                        Expect::ValueOrClose
                    };
                    at += 1;
                }
                (Expect::Value | Expect::ValueOrClose, b'"') => match string(bytes, at) {
                    Some(Str::Complete(end)) => {
                        expect = after_value(&frames);
                        at = end;
                    }
                    Some(Str::Cut(escape)) => break Cut::String(escape),
                    None => return Read::Malformed,
                },
                (Expect::Value | Expect::ValueOrClose, _) => {
                    // A number or a literal; what follows it is checked as
                    // the next token.
                    let rest = &bytes[at..];
                    let word = rest.strip_prefix(b"-").unwrap_or(rest);
                    let len = if word.first().is_some_and(u8::is_ascii_alphabetic) {
                        rest.len() - word.len()
                            + word.iter().take_while(|b| b.is_ascii_alphabetic()).count()
                    } else {
                        rest.iter().take_while(|&&b| is_number_byte(b)).count()
                    };
                    let token = &rest[..len];
                    if len == 0 {
                        return Read::Malformed;
                    }
                    if at + len == bytes.len() {
                        if is_json_number_prefix(token) || is_literal_prefix(token) {
                            break Cut::Token;
                        }
                        return Read::Malformed;
                    }
                    if Special::of_literal(token).is_some() {
                        special = true;
                    } else if !is_json_number(token)
                        && !matches!(token, b"true" | b"false" | b"null")
                    {
                        return Read::Malformed;
                    }
                    expect = after_value(&frames);
                    at += len;
                }
                _ => return Read::Malformed,
            }
        };

        // Complete what the end cut.
        let member_cut = frames.last().map_or(0, |&(_, cut)| cut);
        let (mut out, closed_string) = match cut {
            Cut::Between if expect == Expect::Done => {
                let valid = !special;
                let prefix = Prefix {
                    out: if valid {
                        String::new()
                    } else {
                        text.to_owned()
                    },
                    end: End::default(),
                    valid,
                };
                return Read::Prefix(prefix);
            }
            // Nothing but whitespace: no value (the wrapper throws first).
            Cut::Between if frames.is_empty() => return Read::Malformed,
            Cut::Between if expect == Expect::CommaOrClose => (text.to_owned(), false),
            Cut::Between | Cut::Key => (text[..member_cut].to_owned(), false),
            Cut::Token => (text.to_owned(), false),
            Cut::String(escape) => (format!("{}\"", &text[..escape]), true),
        };
        out.extend(
            frames
                .iter()
                .rev()
                .map(|&(object, _)| if object { '}' } else { ']' }),
        );
        Read::Prefix(Prefix {
            out,
            end: End {
                n_closed: frames.len(),
                closed_string,
                ..End::default()
            },
            valid: false,
        })
    }
}

/// What comes after a complete value in the container `frames` ends with.
fn after_value(frames: &[(bool, usize)]) -> Expect {
    if frames.is_empty() {
        Expect::Done
    } else {
        Expect::CommaOrClose
    }
}

/// A strict string at `start` (its opening quote).
enum Str {
    /// It ends just before this offset.
    Complete(usize),
    /// The end cut it; an escape cut short starts at this offset (or it is
    /// the end of the text).
    Cut(usize),
}

/// Read the strict JSON string that opens at `start`; `None` if it is not
/// one (a raw control character, an unknown escape).
fn string(bytes: &[u8], start: usize) -> Option<Str> {
    let mut at = start + 1;
    loop {
        let Some(skip) = bytes[at..]
            .iter()
            .position(|&byte| byte == b'"' || byte == b'\\' || byte < 0x20)
        else {
            return Some(Str::Cut(bytes.len()));
        };
        at += skip;
        match bytes[at] {
            b'"' => return Some(Str::Complete(at + 1)),
            b'\\' => match bytes.get(at + 1) {
                None => return Some(Str::Cut(at)),
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => at += 2,
                Some(b'u') => {
                    let hex = bytes[at + 2..]
                        .iter()
                        .take(4)
                        .take_while(|byte| byte.is_ascii_hexdigit())
                        .count();
                    if hex == 4 {
                        at += 6;
                    } else if at + 2 + hex == bytes.len() {
                        return Some(Str::Cut(at));
                    } else {
                        return None;
                    }
                }
                Some(_) => return None,
            },
            _ => return None,
        }
    }
}

fn is_number_byte(byte: u8) -> bool {
    matches!(byte, b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')
}

/// Whether `text` is one JSON number, whole.
fn is_json_number(text: &[u8]) -> bool {
    number_prefix(text) == Some(true)
}

/// Whether `text` is the start of a JSON number (or one, whole).
fn is_json_number_prefix(text: &[u8]) -> bool {
    number_prefix(text).is_some()
}

/// Read `text` as a JSON number: `Some(true)` if it is one, `Some(false)`
/// if it is only the start of one (`-`, `1.`, `1e+`), `None` if neither.
fn number_prefix(text: &[u8]) -> Option<bool> {
    let digits = |text: &[u8]| text.iter().take_while(|byte| byte.is_ascii_digit()).count();
    let mut rest = text.strip_prefix(b"-").unwrap_or(text);
    match rest.first() {
        None => return Some(false),
        Some(b'0') => rest = &rest[1..],
        Some(b'1'..=b'9') => rest = &rest[digits(rest)..],
        Some(_) => return None,
    }
    if let Some(fraction) = rest.strip_prefix(b".") {
        let n = digits(fraction);
        if n == fraction.len() {
            return Some(n > 0);
        }
        if n == 0 {
            return None;
        }
        rest = &fraction[n..];
    }
    if let Some(exponent) = rest.strip_prefix(b"e").or_else(|| rest.strip_prefix(b"E")) {
        let exponent = exponent
            .strip_prefix(b"+")
            .or_else(|| exponent.strip_prefix(b"-"))
            .unwrap_or(exponent);
        let n = digits(exponent);
        if n == exponent.len() {
            return Some(n > 0);
        }
        return None;
    }
    rest.is_empty().then_some(true)
}

/// The literals partial-json reads, with the flag that lets each be cut
/// short and what it is written as.
const LITERALS: [(&[u8], u32, Text); 6] = [
    (b"null", NULL, Text::Static("null")),
    (b"true", BOOL, Text::Static("true")),
    (b"false", BOOL, Text::Static("false")),
    (b"Infinity", INFINITY, Text::Static("1e999")),
    (b"-Infinity", NEG_INFINITY, Text::Static("-1e999")),
    (b"NaN", NAN, Text::NaN),
];

/// Whether `token` is one of partial-json's literals or the start of one
/// (`-` alone is a number's start).
fn is_literal_prefix(token: &[u8]) -> bool {
    token != b"-" && LITERALS.iter().any(|(name, _, _)| name.starts_with(token))
}

// ---------------------------------------------------------------------------
// The flags, on either reading.

/// Where the text a [`Reading`] holds came from.
#[derive(Clone, Copy)]
enum Source<'a> {
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
struct Reading<'a> {
    out: &'a str,
    end: End,
    source: Source<'a>,
}

/// What the end of the input left open, as a [`Reading`]'s completion says.
#[derive(Debug, Default)]
struct End {
    /// Containers the end left open, closed by the last bytes of the text.
    n_closed: usize,
    /// The end cut a string: the last value is that string.
    closed_string: bool,
    /// A key's value never came and the engine wrote `null`.
    completed_value: bool,
    /// The engine completed a literal the end cut short.
    completed_literal: bool,
    /// Input offsets of literals the engine replaced (`NaN`, `Infinity` and
    /// `-Infinity` among them, written `null`), in input order.
    replaced_literals: Vec<usize>,
    /// Input offsets of lone surrogate escapes the engine wrote `\ufffd`.
    surrogates: Vec<usize>,
}

impl End {
    /// The engine's truncation fixes, and the fixes the scan writes back.
    fn of(outcome: &Outcome<'_>) -> End {
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
    /// The status and text for this reading (see [`partial_parse`]).
    fn answer(&self, input: &str, allow: u32, nan_marker: Option<&str>) -> String {
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
enum Special {
    NaN,
    Infinity,
    NegInfinity,
}

impl Special {
    /// The special a whole literal names, as partial-json reads them.
    fn of_literal(token: &[u8]) -> Option<Special> {
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
enum Text {
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

#[cfg(test)]
mod tests {
    use argmend::{FixKind, Options, Outcome};

    use super::{answer, mended_answer};

    /// Valid JSON (and partial-json's `NaN`, `Infinity`), cut at every
    /// character below.
    const DOCUMENTS: &[&str] = &[
        r#"{"path": "src/main.rs", "content": "fn main() {\n\tprintln!(\"hi \\\"x\\\"\");\n}\n", "mode": "w"}"#,
        r#"{"query": "Zürich", "filters": {"date": {"from": "2024-01-01", "to": null}, "tags": ["rain", "wind"], "limit": 10, "exact": false, "on": true}, "score": -0.75, "boost": 1.5e-3, "e": 6.02E23, "tiny": -1e-7, "zero": 0, "negzero": -0}"#,
        "{\n  \"calls\": [\n    {\n      \"id\": \"call_1\",\n      \"args\": {\"city\": \"Paris\", \"days\": 3}\n    },\n    {}\n  ],\n  \"note\": null\n}",
        r#"{"emoji": "😀 🎉", "escaped": "\ud83d\ude00 \uD83C\uDF89", "lone": "\ud800", "cjk": "東京", "ctl": "a\tb\nc\r\\d\/e\bf\f", "q": "say \"hi\""}"#,
        r#"[1, [2, [3, [4, []]]], {"a": [{}]}, "end", -12.5e+3, [true, false, null], [], {}]"#,
        r#"{"a": NaN, "b": Infinity, "c": -Infinity, "d": [NaN, -Infinity, Infinity, 1], "e": "NaN"}"#,
        r#""a string with \" and \\ and \u00e9""#,
        "-12.5e+3",
        "true",
        "-Infinity",
    ];

    /// Whether the engine read the text as strict JSON does: only truncation
    /// fixes, and those the scan writes back.
    fn strict_reading(outcome: &Outcome<'_>) -> bool {
        outcome.fixes().iter().all(|fix| {
            fix.kind.is_truncation()
                || matches!(
                    fix.kind,
                    FixKind::ReplacedSurrogate | FixKind::ReplacedLiteral | FixKind::QuotedWord
                )
        })
    }

    /// JSON text without the whitespace between tokens (the engine drops
    /// the whitespace around what it drops; the strict reading keeps it).
    fn tight(answer: &str) -> String {
        let mut tight = String::with_capacity(answer.len());
        let mut in_string = false;
        let mut escaped = false;
        for c in answer.chars() {
            if in_string {
                in_string = escaped || c != '"';
                escaped = !escaped && c == '\\';
            } else if c.is_ascii_whitespace() {
                continue;
            } else {
                in_string = c == '"';
            }
            tight.push(c);
        }
        tight
    }

    #[test]
    fn the_engine_reading_of_a_valid_prefix_gives_the_strict_answer() {
        let (mut compared, mut skipped) = (0, 0);
        for document in DOCUMENTS {
            let ends = document.char_indices().map(|(end, _)| end).skip(1);
            for end in ends.chain([document.len()]) {
                let text = document[..end].trim();
                if text.is_empty() {
                    continue;
                }
                let options = Options::default().source_map(true);
                let outcome = argmend::repair_with(text.as_bytes(), options).unwrap();
                if !strict_reading(&outcome) {
                    skipped += 1;
                    continue;
                }
                for allow in 0..512 {
                    // `v` is the text itself, valid as it is.
                    let value = |answer: String| match answer.as_str() {
                        "v" => tight(&format!("j{text}")),
                        _ => tight(&answer),
                    };
                    let strict = value(answer(text, allow, Some("NaN!")).unwrap());
                    let engine = value(mended_answer(text, &outcome, allow, Some("NaN!")));
                    assert_eq!(strict, engine, "{text:?} allow={allow}");
                    compared += 1;
                }
            }
        }
        // The engine may read a valid prefix otherwise where the end cuts a
        // key that holds JSON's punctuation (`{"a": "x", "http:`); these
        // keys hold none, so every prefix counts.
        assert_eq!(skipped, 0);
        assert!(compared > 300_000, "{compared}");
    }

    #[test]
    fn the_strict_reading_answers() {
        let cases: &[(&str, u32, &str)] = &[
            (r#"{"a": "x"#, 511, r#"j{"a": "x"}"#),
            (r#"{"a": "x"#, 8, "j{}"),
            (r#"{"a": "x"#, 4, "PExpected '}' at end of object"),
            (r#"{"a":"x","http:"#, 511, r#"j{"a":"x"}"#),
            ("[1.", 511, "j[]"),
            ("[1e", 511, "j[1]"),
            ("[1, 2", 4, "j[1]"),
            ("[tr", 511, "j[true]"),
            ("[tr", 4, "j[]"),
            ("[Na", 511, r#"n["NaN!"]"#),
            ("[Na", 4, "j[]"),
            ("[-Inf", 511, "j[-1e999]"),
            ("[Infinity", 0, "PExpected ']' at end of array"),
            ("[Infinity", 4, "j[1e999]"),
            ("[NaN", 4, "N"),
            (r#""ab\u12"#, 511, r#"j"ab""#),
            (r#""ab\"#, 511, r#"j"ab""#),
            (r#""ab"#, 0, "PUnterminated string literal"),
            ("1.", 511, "M"),
            ("1e", 511, "j1"),
            ("1e", 0, "M"),
            ("12", 0, "j12"),
            ("-", 511, "M"),
            ("tr", 0, "M"),
            ("[1, 2]", 0, "v"),
            ("NaN", 0, "N"),
        ];
        for &(text, allow, expected) in cases {
            let marker = if expected == "N" { None } else { Some("NaN!") };
            assert_eq!(
                answer(text, allow, marker).unwrap(),
                expected,
                "{text:?} {allow}"
            );
        }
    }

    #[test]
    fn deep_nesting_is_refused_at_the_engine_limit_without_recursion() {
        let deep = "[".repeat(1_000_000);
        assert_eq!(
            answer(&deep, 511, None).unwrap(),
            "Enesting deeper than 512 levels at position 512"
        );
        let mended_deep = format!("{}'a'", "[".repeat(100_000));
        assert!(
            answer(&mended_deep, 511, None)
                .unwrap()
                .starts_with("Enesting deeper than 512")
        );
        let within = "[".repeat(512);
        let expected = format!("j{}{}", "[".repeat(512), "]".repeat(512));
        assert_eq!(answer(&within, 511, None).unwrap(), expected);
    }

    #[test]
    fn malformed_text_is_mended() {
        assert_eq!(
            answer("{'a': 'b', c: True,}", 511, None).unwrap(),
            r#"j{"a": "b", "c": true}"#
        );
        assert_eq!(answer("{'a': 'b", 511, None).unwrap(), r#"j{"a": "b"}"#);
        assert_eq!(answer("{'a': 'b", 8, None).unwrap(), "j{}");
        assert_eq!(answer("// nothing", 511, None).unwrap(), "M");
    }
}
