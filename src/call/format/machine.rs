//! The one streaming machine every format runs on. It reads the format's
//! table entry ([`Spec`]): in each state a few markers are expected (the
//! block's close, the end of a key, …) and every other byte is the state's
//! own text (prose, a name, a value). A byte that may begin a marker is
//! held until the marker is whole or cannot be, so a marker cut by a chunk
//! is found all the same, and every decision is a function of the bytes.
//!
//! Arguments become JSON text for the call's engine (`ArgsStream`): JSON
//! arguments as written, parameters and Python or Gemma arguments as the
//! JSON they mean (`value.rs`, `python.rs`, `gemma.rs`). The engine mends
//! and previews them, as it does for every other call.
//!
//! The machine's steps are in `calls.rs` (what a marker does: blocks,
//! names, arguments), `free.rs` (what the bytes between markers do) and
//! `judge.rs` (whether a value's closing tag ends it).

use serde_json::Value;
use smallvec::SmallVec;

use super::gemma::GemmaArgs;
use super::python::PythonArgs;
use super::spec::{Args, Calls, Named, Params, Spec};
use super::unquote::Unquote;
use super::value::{Kinds, ValueWriter};
use crate::call::Event;
use crate::call::pending::{Call, incomplete_utf8_tail};
use crate::call::scan::ObjectScanner;
use crate::normalize::ToolOptions;

/// What a marker means where it is expected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tok {
    Open,
    Close,
    Separator,
    Start,
    NameEnd,
    Tail,
    ArgsOpen,
    ArgsClose,
    CallEnd,
    ParamOpen,
    KeyEnd,
    ValueOpen,
    ValueClose,
    Quote,
    QuietOpen,
    QuietClose,
}

pub(super) type Markers = SmallVec<[(&'static str, Tok); 16]>;

/// The longest name taken, and the most bytes dropped after a name.
pub(super) const MAX_NAME: usize = 256;
/// The longest key of a parameter.
pub(super) const MAX_KEY: usize = 1024;
/// Bytes of noise a special block (`<|tool_calls_section_begin|>`) may hold
/// before its first call, before it is taken to have none (and given back
/// as text).
pub(super) const MAX_JUNK: usize = 256;

/// A tag inside a value, waiting for the bytes that say what it is (the
/// state `judge.rs` reads; kept here, with the other states, so the judge
/// imports the machine and not the other way round).
#[derive(Debug)]
pub(crate) struct Judging {
    pub(super) writer: ValueWriter,
    pub(super) tok: Tok,
    pub(super) marker: &'static str,
    pub(super) ahead: Vec<u8>,
}

impl Judging {
    pub(super) fn new(writer: ValueWriter, tok: Tok, marker: &'static str) -> Self {
        Judging {
            writer,
            tok,
            marker,
            ahead: Vec::new(),
        }
    }
}

#[derive(Debug)]
pub(super) enum State {
    /// Outside calls.
    Text,
    /// Inside a region whose calls are not read (`<think>…`): its close.
    Quiet(&'static str),
    /// Bytes that may open a bare call (`{"name": …`, `name(` at a line's start).
    Head(Vec<u8>),
    /// In a block, between calls.
    Between,
    /// A call's name.
    Name(Vec<u8>),
    /// After a name, up to its tag's end.
    NameTail(usize),
    /// Before JSON arguments.
    BeforeJson,
    /// JSON arguments. `None`: a close marker ends them; otherwise a `}`
    /// followed by the end or the next block does, and the held `}` with
    /// the bytes after it is here.
    Json(Option<Vec<u8>>),
    /// A JSON call object.
    Object(ObjectScanner, Unquote),
    /// The arguments of a call object whose name came first, up to the
    /// object's end as what follows it shows (`objects.rs`): the decoding of
    /// a string that holds them, and a `}` with the bytes after it, held.
    ObjectArgs(Unquote, Vec<u8>),
    /// Between parameters.
    Params,
    /// A parameter's key.
    Key(Vec<u8>),
    /// A parameter's attributes after its key.
    KeyTail(Vec<u8>, Vec<u8>),
    /// After a key, before the value's marker.
    BeforeValue(Kinds),
    /// A parameter's value.
    Value(ValueWriter),
    /// A tag inside a value that may end it, and the bytes after it.
    Judge(Box<Judging>),
    /// A Python call's name.
    PyName(Vec<u8>),
    /// A Python call's arguments.
    Python(PythonArgs),
    /// Gemma's argument object.
    Gemma(GemmaArgs),
}

/// Whether a list's `[` has been seen in a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum List {
    No,
    Open,
    Closed,
}

/// A block of calls: between an opening marker and its close.
#[derive(Debug)]
pub(super) struct Block {
    /// The block's bytes while it may still be prose (no call in it yet).
    pub(super) raw: Vec<u8>,
    pub(super) tentative: bool,
    pub(super) list: List,
    /// Calls begun in it.
    pub(super) n_calls: usize,
    /// Whether the block ends at a close marker (one opened by a marker of
    /// a format that has them) rather than at the first text after its calls.
    pub(super) waits_for_close: bool,
    /// Whether a marker opened it (a bare call's block has none).
    pub(super) marked: bool,
    /// The markers that close it: the format's, or the one paired with the
    /// marker that opened it (xLAM's "```json" with "```", its
    /// `<tool_call>` with `</tool_call>`).
    pub(super) close: &'static [&'static str],
    /// Whether its marker is a special token (`<|…|>`, `<｜…｜>`,
    /// `[TOOL_CALLS]`), which prose never writes: noise before its first call
    /// does not end it.
    pub(super) special: bool,
    /// Bytes of noise seen in it before its first call.
    pub(super) junk: usize,
}

/// Finds the calls of one format in streamed text.
#[derive(Debug)]
pub(crate) struct FormatParser {
    pub(super) spec: &'static Spec,
    pub(super) options: ToolOptions,
    pub(super) state: State,
    held: Vec<u8>,
    /// Bytes to read again before the rest of the input: a lookahead's, once
    /// it decided.
    replay: Vec<u8>,
    pub(super) text: Vec<u8>,
    pub(super) events: Vec<Event>,
    pub(super) calls: usize,
    pub(super) call: Option<Call>,
    pub(super) block: Option<Block>,
    /// The schema of the call being read, for its parameters' kinds.
    pub(super) schema: Option<Value>,
    /// The keys written in the call's object.
    pub(super) keys: Vec<String>,
    /// The JSON before the value being read (`,"key": `): written with the
    /// value's first byte, so a value the input cuts before it starts
    /// leaves no key behind.
    pub(super) value_key: Vec<u8>,
    /// Scratch space for a value's JSON.
    pub(super) scratch: Vec<u8>,
    /// Whether the last text byte ended a line (a bare Python call starts a line).
    pub(super) line_start: bool,
    /// Whether JSON arguments had a byte that is not whitespace.
    pub(super) json_started: bool,
    /// A high surrogate waiting for its pair, in a decoded argument string.
    pub(super) surrogate: Option<u32>,
    /// Whether a block was given back as text while reading free bytes.
    pub(super) gave_back: bool,
    /// Whether the input has ended (lookaheads decide with what they have).
    pub(super) at_end: bool,
}

impl FormatParser {
    pub(crate) fn new(spec: &'static Spec, options: ToolOptions, calls: usize) -> Self {
        FormatParser {
            spec,
            options,
            state: State::Text,
            held: Vec::new(),
            replay: Vec::new(),
            text: Vec::new(),
            events: Vec::new(),
            calls,
            call: None,
            block: None,
            schema: None,
            keys: Vec::new(),
            value_key: Vec::new(),
            scratch: Vec::new(),
            line_start: true,
            json_started: false,
            surrogate: None,
            gave_back: false,
            at_end: false,
        }
    }

    pub(crate) fn feed(&mut self, chunk: &[u8]) -> Vec<Event> {
        self.run(chunk);
        self.flush_text(false);
        if let Some(call) = &mut self.call {
            call.flush(&mut self.events);
        }
        std::mem::take(&mut self.events)
    }

    pub(crate) fn finish(mut self) -> Vec<Event> {
        // From here a held byte cannot grow into a longer marker, and a
        // lookahead decides with what it has.
        self.at_end = true;
        loop {
            if !self.held.is_empty() {
                // No marker can grow any more: the longest whole one the held
                // bytes begin with, or their first byte is text. Inside a
                // call's arguments, a tag cut by the end (`</param`) is
                // structure, not text of the value, and is dropped.
                let held = std::mem::take(&mut self.held);
                if self.in_arguments() {
                    continue;
                }
                let rest = self.take_held(&held);
                self.replay(&rest);
            } else if let State::Judge(_) = self.state {
                self.free(&[]);
            } else {
                break;
            }
            self.run(&[]);
        }
        // A `}` waiting on what follows it: the bytes after it are read
        // again once it is settled, and may hold another.
        while self.object_args_at_end() || self.json_at_end() {
            self.run(&[]);
        }
        if let State::Python(args) = &mut self.state {
            args.end_of_input();
            if args.done() {
                let leftover = args.take_leftover();
                self.end_args(true);
                self.text.extend_from_slice(&leftover);
            }
        }
        match std::mem::replace(&mut self.state, State::Text) {
            State::Head(bytes) => self.text.extend_from_slice(&bytes),
            // A value the input cut before its first byte is left out.
            State::Value(writer) if writer.started() => {
                self.write_value(|out| writer.finish(out));
            }
            State::Python(args) => {
                if let Some(call) = &mut self.call {
                    args.finish_into(&mut call.pending);
                }
            }
            State::Gemma(args) => {
                if let Some(call) = &mut self.call {
                    args.finish(&mut call.pending);
                }
            }
            _ => {}
        }
        if self.block.as_ref().is_some_and(|block| block.tentative) && self.call.is_none() {
            self.give_back();
        }
        if let Some(call) = self.call.take() {
            call.finish(&mut self.events, false);
        }
        self.flush_text(true);
        self.events
    }

    /// The markers the current state expects.
    pub(super) fn markers(&self) -> Markers {
        let spec = self.spec;
        let close = self.close_markers();
        let mut markers = Markers::new();
        let mut add = |list: &[&'static str], tok: Tok| {
            for marker in list {
                if !markers.iter().any(|(known, _)| known == marker) {
                    markers.push((*marker, tok));
                }
            }
        };
        let named = self.named();
        let params = self.params();
        match &self.state {
            State::Text => {
                for (open, _) in spec.quiet {
                    add(&[open], Tok::QuietOpen);
                }
                add(spec.open, Tok::Open);
            }
            State::Quiet(close) => add(&[close], Tok::QuietClose),
            State::Head(_) | State::Judge(_) => {}
            State::Between => {
                if let Some(named) = named {
                    add(named.start, Tok::Start);
                    add(named.end, Tok::Separator);
                }
                add(close, Tok::Close);
                add(spec.separators, Tok::Separator);
                add(spec.open, Tok::Open);
            }
            State::Name(_) => {
                if let Some(named) = named {
                    add(named.name_end, Tok::NameEnd);
                    match &named.args {
                        Args::Json { open, .. } => add(open, Tok::ArgsOpen),
                        Args::Params(params) => add(&[params.open], Tok::ParamOpen),
                        Args::Gemma { .. } => {}
                    }
                    add(named.end, Tok::CallEnd);
                }
                add(close, Tok::Close);
            }
            State::NameTail(_) => {
                if let Some(tail) = named.and_then(|named| named.name_tail) {
                    add(&[tail], Tok::Tail);
                }
                add(close, Tok::Close);
            }
            State::Json(Some(tail)) if !tail.is_empty() => {}
            State::BeforeJson | State::Json(_) => {
                if let Some(Args::Json { open, close: ends }) = named.map(|named| &named.args) {
                    if matches!(self.state, State::BeforeJson) {
                        add(open, Tok::ArgsOpen);
                    }
                    add(ends, Tok::ArgsClose);
                    if ends.is_empty() && close.is_empty() {
                        add(spec.open, Tok::Open);
                    }
                }
                if let Some(named) = named {
                    add(named.end, Tok::CallEnd);
                }
                add(close, Tok::Close);
            }
            State::Object(..) | State::PyName(_) | State::Python(_) => add(close, Tok::Close),
            State::ObjectArgs(_, tail) => {
                // A `}` waiting on what follows reads the bytes itself.
                if tail.is_empty() {
                    add(close, Tok::Close);
                }
            }
            State::Params | State::BeforeValue(_) => {
                if let Some(params) = params {
                    add(&[params.open], Tok::ParamOpen);
                    if let (State::BeforeValue(_), Some(open)) = (&self.state, params.value_open) {
                        add(&[open], Tok::ValueOpen);
                    }
                }
                if let Some(named) = named {
                    add(named.end, Tok::CallEnd);
                }
                add(close, Tok::Close);
            }
            State::Key(_) => {
                if let Some(params) = params {
                    add(&[params.key_end], Tok::KeyEnd);
                }
            }
            State::KeyTail(..) => {
                if let Some(tail) = params.and_then(|params| params.key_tail) {
                    add(&[tail], Tok::Tail);
                }
            }
            State::Value(_) => {
                if let Some(params) = params {
                    add(&[params.value_close], Tok::ValueClose);
                    add(&[params.open], Tok::ParamOpen);
                }
                if let Some(named) = named {
                    add(named.end, Tok::CallEnd);
                }
                add(close, Tok::Close);
            }
            State::Gemma(_) => {
                if let Some(Args::Gemma { quote, .. }) = named.map(|named| &named.args) {
                    add(&[quote], Tok::Quote);
                }
                add(close, Tok::Close);
            }
        }
        markers
    }

    /// Read `input` in the current states. A lookahead that decides hands
    /// the bytes it held back through `replay`; they are read before the
    /// rest of the input, in this loop (no recursion, whatever the input).
    fn run(&mut self, input: &[u8]) {
        let mut owned: Vec<u8> = Vec::new();
        let mut at = 0;
        let mut borrowed = input;
        let mut stuck = 0;
        loop {
            let bytes: &[u8] = if owned.is_empty() {
                borrowed
            } else {
                &owned[at..]
            };
            if bytes.is_empty() {
                if owned.is_empty() && self.replay.is_empty() {
                    return;
                }
                if self.replay.is_empty() {
                    owned.clear();
                    borrowed = &[];
                    continue;
                }
            }
            let used = if bytes.is_empty() {
                0
            } else {
                self.step(bytes)
            };
            if owned.is_empty() {
                borrowed = &borrowed[used..];
            } else {
                at += used;
            }
            if !self.replay.is_empty() {
                // Fewer bytes given back than taken is progress (a bare
                // call's head that was prose: its first byte is text, the
                // rest is read again), so `{{{…` in prose is not "stuck".
                if used > self.replay.len() {
                    stuck = 0;
                }
                let rest: Vec<u8> = if owned.is_empty() {
                    borrowed.to_vec()
                } else {
                    owned[at..].to_vec()
                };
                owned = std::mem::take(&mut self.replay);
                owned.extend_from_slice(&rest);
                at = 0;
                borrowed = &[];
                if owned.is_empty() {
                    return;
                }
                continue;
            }
            // A state change that took no byte must be followed by one that
            // does: the "parser seems stuck" guard.
            stuck = if used == 0 { stuck + 1 } else { 0 };
            debug_assert!(stuck < 64, "format parser seems stuck in {:?}", self.state);
            if stuck >= 64 {
                return;
            }
        }
    }

    /// One step over `bytes`: held bytes against the markers, or a run of
    /// free bytes. Returns how many bytes it took.
    fn step(&mut self, bytes: &[u8]) -> usize {
        if !self.held.is_empty() {
            self.held.push(bytes[0]);
            self.check_held();
            return 1;
        }
        let markers = self.markers();
        let n = next_marker_start(bytes, &markers);
        if n > 0 {
            return self.free(&bytes[..n]);
        }
        self.held.push(bytes[0]);
        self.check_held();
        1
    }

    /// The held bytes against the markers: a marker whole, a marker still
    /// possible, or text.
    fn check_held(&mut self) {
        let markers = self.markers();
        let held = &self.held;
        let longer = markers
            .iter()
            .any(|(marker, _)| marker.len() > held.len() && marker.as_bytes().starts_with(held));
        if longer {
            return;
        }
        let held = std::mem::take(&mut self.held);
        let mut rest = self.take_held(&held);
        // Read again, before what replays already waits.
        rest.append(&mut self.replay);
        self.replay = rest;
    }

    /// Act on held bytes no marker can grow from: the longest marker they
    /// begin with, or their first byte as the state's text. Returns the
    /// bytes left to read again.
    fn take_held(&mut self, held: &[u8]) -> Vec<u8> {
        let markers = self.markers();
        let found = markers
            .iter()
            .filter(|(marker, _)| held.starts_with(marker.as_bytes()))
            .max_by_key(|(marker, _)| marker.len())
            .copied();
        match found {
            Some((marker, tok)) => {
                self.gave_back = false;
                self.on_marker(tok, marker);
                if tok != Tok::Open && !self.gave_back {
                    self.record(marker.as_bytes());
                }
                self.gave_back = false;
                held[marker.len()..].to_vec()
            }
            None => {
                let used = self.free(&held[..1]);
                held[used..].to_vec()
            }
        }
    }

    /// Write a parameter's value through `write`: its key goes out with the
    /// value's first byte.
    pub(super) fn write_value(&mut self, write: impl FnOnce(&mut Vec<u8>)) {
        let mut out = std::mem::take(&mut self.scratch);
        out.clear();
        write(&mut out);
        if !out.is_empty()
            && let Some(call) = &mut self.call
        {
            call.pending.append(&mut self.value_key);
            call.pending.extend_from_slice(&out);
        }
        self.scratch = out;
    }

    /// Whether the state is inside a call's arguments.
    fn in_arguments(&self) -> bool {
        matches!(
            self.state,
            State::NameTail(_)
                | State::BeforeJson
                | State::Json(None)
                | State::Params
                | State::Key(_)
                | State::KeyTail(..)
                | State::BeforeValue(_)
                | State::Value(_)
                | State::Gemma(_)
        )
    }

    /// Keep a block's bytes while it may still be prose.
    pub(super) fn record(&mut self, bytes: &[u8]) {
        if let Some(block) = &mut self.block
            && block.tentative
        {
            block.raw.extend_from_slice(bytes);
        }
    }

    /// Bytes to read again after the current step.
    pub(super) fn replay(&mut self, bytes: &[u8]) {
        self.replay.extend_from_slice(bytes);
    }

    /// The markers that close the current block (outside one: the format's).
    pub(super) fn close_markers(&self) -> &'static [&'static str] {
        match &self.block {
            Some(block) => block.close,
            None => self.spec.close,
        }
    }

    pub(super) fn named(&self) -> Option<&'static Named> {
        named_of(self.spec)
    }

    pub(super) fn params(&self) -> Option<&'static Params> {
        match self.named().map(|named| &named.args) {
            Some(Args::Params(params)) => Some(params),
            _ => None,
        }
    }

    pub(super) fn pending(&mut self) -> Option<&mut Vec<u8>> {
        self.call.as_mut().map(|call| &mut call.pending)
    }

    pub(super) fn flush_text(&mut self, all: bool) {
        if self.text.is_empty() {
            return;
        }
        let keep = if all {
            0
        } else {
            incomplete_utf8_tail(&self.text)
        };
        let cut = self.text.len() - keep;
        if cut == 0 {
            return;
        }
        let text = String::from_utf8_lossy(&self.text[..cut]).into_owned();
        self.text.drain(..cut);
        self.events.push(Event::Text(text));
    }
}

/// The named-call layout of `spec`, if it has one.
pub(super) fn named_of(spec: &'static Spec) -> Option<&'static Named> {
    match &spec.calls {
        Calls::Named(named) => Some(named),
        _ => None,
    }
}

/// The first byte in `input` that may begin one of `markers` (its length
/// when there is none).
fn next_marker_start(input: &[u8], markers: &Markers) -> usize {
    let mut firsts: SmallVec<[u8; 8]> = SmallVec::new();
    for (marker, _) in markers {
        if let Some(&b) = marker.as_bytes().first()
            && !firsts.contains(&b)
        {
            firsts.push(b);
        }
    }
    match firsts.as_slice() {
        [] => input.len(),
        [a] => memchr::memchr(*a, input).unwrap_or(input.len()),
        [a, b] => memchr::memchr2(*a, *b, input).unwrap_or(input.len()),
        [a, b, c] => memchr::memchr3(*a, *b, *c, input).unwrap_or(input.len()),
        _ => input
            .iter()
            .position(|b| firsts.contains(b))
            .unwrap_or(input.len()),
    }
}

/// Bytes a tool's name may hold: anything but whitespace, quotes and
/// brackets (`get-weather`, `fs.read_file`, `functions.f:0`, `@json`).
pub(crate) fn is_tool_name_byte(b: u8) -> bool {
    !b.is_ascii_whitespace() && !b"<>{}()[]\"',;=`|".contains(&b)
}

/// Whether a block's marker is a special token, which prose never writes.
pub(super) fn is_special(marker: &[u8]) -> bool {
    let contains = |needle: &[u8]| marker.windows(needle.len()).any(|window| window == needle);
    contains(b"<|") || contains(b"|>") || contains("｜".as_bytes()) || marker == b"[TOOL_CALLS]"
}
