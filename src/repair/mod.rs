//! The streaming repair engine: public face.
//!
//! [`repair`] is the one-shot call; [`Repairer`] is the push engine it is built
//! on (`repair(bytes)` is `feed(bytes)` then `finish()`). The state machine
//! itself lives in `machine`, string bodies in `string`, scalars in `scalar`.

mod context;
mod doubt;
mod end;
mod fast;
mod fix;
mod frame;
mod grammar;
mod hints;
mod judge;
mod lane;
mod machine;
mod open_string;
mod options;
mod out;
mod prelude;
mod quote;
mod scalar;
mod shape;
mod source;
mod states;
mod step;
mod strict;
mod string;
mod structure;
mod text;
mod top;
mod valid;

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

pub use self::doubt::{Doubt, DoubtKind};
pub use self::fix::{Fix, FixKind, Verdict};
use self::frame::Frame;
pub use self::hints::Hints;
use self::machine::Machine;
pub use self::options::{Options, Retain, Values};
use self::prelude::{Leave, Prelude};
pub(crate) use self::source::SourceMap;
pub(crate) use self::text::push_json_escaped;
#[cfg(feature = "tools")]
pub(crate) use self::valid::is_strict_json;
use crate::error::Error;

/// The result of a repair: the JSON text, the verdict, and the fixes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome<'a> {
    text: Cow<'a, str>,
    verdict: Verdict,
    fixes: Vec<Fix>,
    doubts: Vec<Doubt>,
    error: Option<Error>,
    /// The error's message, kept so [`Outcome::reason`] can lend it.
    reason: Option<Box<str>>,
    /// Where the output came from, when [`Options::source_map`] asked.
    sources: Option<Box<SourceMap>>,
}

impl<'a> Outcome<'a> {
    /// The repaired JSON text (empty when the verdict is [`Verdict::NotJson`]).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The text, owned or borrowed from the input when it was already valid.
    pub fn into_text(self) -> Cow<'a, str> {
        self.text
    }

    /// The verdict.
    pub fn verdict(&self) -> Verdict {
        self.verdict
    }

    /// Every fix, in input order.
    ///
    /// ```
    /// use argmend::{repair, Fix, FixKind};
    /// let outcome = repair(b"[1, 2,]");
    /// assert_eq!(outcome.fixes(), &[Fix { kind: FixKind::RemovedComma, offset: 5 }]);
    /// ```
    pub fn fixes(&self) -> &[Fix] {
        &self.fixes
    }

    /// Every choice between readings that the input could not settle, in
    /// input order; empty when there was none (always, for valid input).
    /// The verdict does not change: a caller that cannot afford a guess
    /// refuses an outcome with doubts, or asks the model again.
    ///
    /// ```
    /// use argmend::repair;
    /// assert!(repair(br#"{"a": "x", "b": 1}"#).doubts().is_empty());
    /// ```
    pub fn doubts(&self) -> &[Doubt] {
        &self.doubts
    }

    /// The limit that stopped a one-shot [`repair`], if one did.
    pub fn error(&self) -> Option<&Error> {
        self.error.as_ref()
    }

    /// Why there is no JSON, when the verdict is [`Verdict::NotJson`].
    ///
    /// ```
    /// let outcome = argmend::repair(b"  // only a comment\n");
    /// assert_eq!(outcome.verdict(), argmend::Verdict::NotJson);
    /// assert!(outcome.reason().is_some());
    /// ```
    pub fn reason(&self) -> Option<&str> {
        match (&self.reason, self.verdict) {
            (Some(reason), _) => Some(reason),
            (None, Verdict::NotJson) => Some("no JSON value found in the input"),
            _ => None,
        }
    }

    /// The input offset that the output byte at `at` came from: `Some` when
    /// the input was valid (the same offset) or the repair recorded its
    /// sources ([`Options::source_map`]). For the first byte of a value, a
    /// key or a separator the engine read, it is where that token starts in
    /// the input; within a copied run of valid JSON it is exact; anything
    /// the engine added maps to the input it was added for.
    ///
    /// ```
    /// use argmend::{repair_with, Options};
    /// let outcome = repair_with(b"{a: 'x', b: 12}", Options::default().source_map(true)).unwrap();
    /// assert_eq!(outcome.text(), r#"{"a": "x", "b": 12}"#);
    /// assert_eq!(outcome.input_offset(6), Some(4)); // "x" ← 'x'
    /// assert_eq!(outcome.input_offset(16), Some(12)); // 12
    /// assert_eq!(argmend::repair(b"[1]").input_offset(1), Some(1));
    /// ```
    pub fn input_offset(&self, at: usize) -> Option<usize> {
        match (&self.sources, self.verdict) {
            (Some(map), _) => Some(map.input_offset(at)),
            (None, Verdict::Valid) => Some(at.min(self.text.len())),
            (None, _) => None,
        }
    }

    /// Take the recorded sources out (normalize keeps them beside the text).
    pub(crate) fn take_sources(&mut self) -> Option<SourceMap> {
        self.sources.take().map(|map| *map)
    }

    /// The text parsed into a [`serde_json::Value`], unless the verdict is `NotJson`.
    ///
    /// ```
    /// let value = argmend::repair(b"{a: 1,}").to_value().unwrap();
    /// assert_eq!(value["a"], 1);
    /// ```
    pub fn to_value(&self) -> Option<serde_json::Value> {
        match self.verdict {
            Verdict::NotJson => None,
            _ => parse_value(&self.text),
        }
    }

    /// The outcome of valid input: its text, as it came.
    fn valid(text: Cow<'a, str>) -> Outcome<'a> {
        Outcome {
            text,
            verdict: Verdict::Valid,
            fixes: Vec::new(),
            doubts: Vec::new(),
            error: None,
            reason: None,
            sources: None,
        }
    }

    /// The outcome of a machine that has seen the end of its input.
    fn from_machine(machine: &mut Machine<'_>) -> Outcome<'static> {
        let verdict = machine.verdict();
        let (text, fixes, doubts, sources) = machine.take_parts();
        Outcome {
            text: Cow::Owned(text),
            verdict,
            fixes,
            doubts,
            error: None,
            reason: None,
            sources: sources.map(Box::new),
        }
    }

    /// Detach the outcome from the input's lifetime.
    pub fn into_owned(self) -> Outcome<'static> {
        Outcome {
            text: Cow::Owned(self.text.into_owned()),
            verdict: self.verdict,
            fixes: self.fixes,
            doubts: self.doubts,
            error: self.error,
            reason: self.reason,
            sources: self.sources,
        }
    }
}

/// The best-effort valid JSON of everything fed so far.
///
/// It borrows the repairer's output and frame stack and owns nothing, so
/// taking one after every chunk costs O(1); writing it out costs O(length).
///
/// ```
/// let mut repairer = argmend::Repairer::new(argmend::Options::default());
/// repairer.feed(br#"{"items": [1, 2, "thr"#).unwrap();
/// assert_eq!(repairer.snapshot().to_string(), r#"{"items": [1, 2, "thr"]}"#);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Snapshot<'a> {
    head: &'a str,
    rest: &'a str,
    value_tail: &'a str,
    frames: &'a [Frame],
}

impl<'a> Snapshot<'a> {
    /// The pieces whose concatenation is the snapshot, in order: the output
    /// so far (without a comma that may still be dropped), what completes the
    /// value being written, and the closers.
    ///
    /// ```
    /// let mut repairer = argmend::Repairer::new(argmend::Options::default());
    /// repairer.feed(br#"{"a": [1, "x"#).unwrap();
    /// let pieces: Vec<&str> = repairer.snapshot().pieces().collect();
    /// assert_eq!(pieces, [r#"{"a": [1, "x"#, "\"", "]", "}"]);
    /// ```
    pub fn pieces(&self) -> impl Iterator<Item = &'a str> + 'a {
        let frames = self.frames;
        [self.head, self.rest, self.value_tail]
            .into_iter()
            .chain(frames.iter().rev().map(|frame| frame.closer()))
            .filter(|piece| !piece.is_empty())
    }

    /// The length of the snapshot in bytes.
    pub fn len(&self) -> usize {
        // Every closer is one byte but a call wrapper's, which writes none
        // (`Frame::closer`): counted without walking the pieces, since a
        // caller may ask after every chunk.
        let closers = self
            .frames
            .iter()
            .filter(|frame| **frame != Frame::Call)
            .count();
        self.head.len() + self.rest.len() + self.value_tail.len() + closers
    }

    /// Whether the snapshot is empty (no value has started yet).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl fmt::Display for Snapshot<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.pieces().try_for_each(|piece| f.write_str(piece))
    }
}

/// The push engine: feed chunks as they arrive, read committed output and
/// snapshots, then finish.
///
/// ```
/// use argmend::{Options, Repairer, Verdict};
/// let mut repairer = Repairer::new(Options::default());
/// let mut streamed = String::new();
/// for chunk in [&b"{'city': 'Par"[..], b"is', temp: 21,"] {
///     streamed.push_str(repairer.feed(chunk).unwrap());
/// }
/// let outcome = repairer.finish().unwrap();
/// assert_eq!(outcome.text(), r#"{"city": "Paris", "temp": 21}"#);
/// assert!(outcome.text().starts_with(&streamed));
/// assert_eq!(outcome.verdict(), Verdict::Repaired);
/// ```
#[derive(Debug, Clone)]
pub struct Repairer {
    machine: Machine<'static>,
    /// While the input is strictly valid JSON, it is read here and the
    /// machine has not run (see `prelude.rs`).
    prelude: Option<Box<Prelude>>,
    failed: Option<Error>,
}

impl Repairer {
    /// A repairer with the given options.
    pub fn new(options: Options) -> Self {
        // The prelude gives the machine's answers for one value with no
        // source map, whether the output is kept whole or forgotten once
        // returned: other options take the machine from the start.
        let prelude = (options.values == Values::First && !options.sources).then(|| {
            Box::new(Prelude::new(
                options.depth_limit(),
                options.input_limit(),
                options.retain == Retain::Unreturned,
            ))
        });
        Repairer {
            machine: Machine::new(options),
            prelude,
            failed: None,
        }
    }

    /// A repairer that knows which keys the objects may have (see [`Hints`]):
    /// where a string's quotes were not escaped, a `, "name":` that names no
    /// declared key does not end it.
    ///
    /// ```
    /// use argmend::{Hints, Options, Repairer};
    /// let hints = Hints::from_fields(["path", "content"]);
    /// let mut repairer = Repairer::with_hints(Options::default(), hints);
    /// repairer.feed(br#"{"content": "f("a", "b": 1)", "path": "x.py"}"#).unwrap();
    /// let outcome = repairer.finish().unwrap();
    /// assert_eq!(outcome.text(), r#"{"content": "f(\"a\", \"b\": 1)", "path": "x.py"}"#);
    /// ```
    pub fn with_hints(options: Options, hints: Hints) -> Self {
        if hints.is_empty() {
            return Repairer::new(options);
        }
        // Hints weigh in where a quote ends a string (`, "name":` naming no
        // declared key may not end it), and the prelude's rules were read
        // off the machine without them: the machine reads from the first
        // byte.
        let mut machine = Machine::new(options);
        machine.hints = Some(Arc::new(hints));
        Repairer {
            machine,
            prelude: None,
            failed: None,
        }
    }

    /// Feed the next chunk; returns the output newly committed by it.
    ///
    /// Committed output never changes afterwards. A chunk may end anywhere,
    /// even inside a UTF-8 sequence or an escape: what cannot be decided yet
    /// is held back. After an error every further call returns it again.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<&str, Error> {
        // The prelude's path first, without the machine's (a chunk of valid
        // input costs a few dozen instructions less).
        if let Some(prelude) = self.prelude.as_deref_mut() {
            if let Err(leave) = prelude.feed(chunk) {
                return match self.hand_over(chunk, leave) {
                    (committed, None) => Ok(committed),
                    (_, Some(error)) => Err(error),
                };
            }
            return Ok(self.prelude.as_deref().map_or("", Prelude::delta));
        }
        match self.feed_until_failure(chunk) {
            (committed, None) => Ok(committed),
            (_, Some(error)) => Err(error),
        }
    }

    /// [`feed`](Self::feed) that also hands out, when this chunk crosses a
    /// limit, the output committed before the limit was crossed. A caller
    /// that reports what the output settled (the call runtime's finished
    /// fields) then reports the same whether the input came whole or in
    /// pieces: before, a whole input lost what pieces had already handed out.
    #[inline]
    pub(crate) fn feed_until_failure(&mut self, chunk: &[u8]) -> (&str, Option<Error>) {
        if let Some(error) = &self.failed {
            return ("", Some(error.clone()));
        }
        if self.prelude.is_some() {
            return self.feed_prelude(chunk);
        }
        let failed = self.machine.push(chunk).err();
        if let Some(error) = &failed {
            self.failed = Some(error.clone());
        }
        (self.machine.take_committed(), failed)
    }

    /// [`feed_until_failure`](Self::feed_until_failure) while the input is
    /// strictly valid so far (see `prelude.rs`).
    // Not inlined: the machine's path above stays as short as before it.
    #[inline(never)]
    fn feed_prelude(&mut self, chunk: &[u8]) -> (&str, Option<Error>) {
        let fed = match self.prelude.as_mut() {
            Some(prelude) => prelude.feed(chunk),
            None => return ("", None),
        };
        match fed {
            Ok(()) => (self.prelude.as_deref().map_or("", Prelude::delta), None),
            Err(leave) => self.hand_over(chunk, leave),
        }
    }

    /// The machine takes over from the prelude: it reads everything so far
    /// in one push. What the prelude handed out is the start of what the
    /// machine commits (`prelude/tests.rs`), and is not handed out again.
    #[cold]
    fn hand_over(&mut self, chunk: &[u8], leave: Leave) -> (&str, Option<Error>) {
        let Some(prelude) = self.prelude.take() else {
            return ("", None);
        };
        let (text, cut) = prelude.input();
        let mut failed = self.machine.push(&[text.as_bytes(), cut].concat()).err();
        if failed.is_none() && leave == Leave::Before {
            failed = self.machine.push(chunk).err();
        }
        if let Some(error) = &failed {
            self.failed = Some(error.clone());
        }
        // What the prelude handed out counts as returned: with
        // `Retain::Unreturned` the machine forgets it, and its snapshots
        // start with the piece this call returns.
        self.machine.count_returned(prelude.committed());
        (self.machine.take_committed(), failed)
    }

    /// Whether a limit was crossed (every call now returns that error).
    pub(crate) fn has_failed(&self) -> bool {
        self.failed.is_some()
    }

    /// Feed every chunk of a [`bytes::Buf`]; returns the output newly committed.
    ///
    /// ```
    /// use bytes::Buf;
    /// let mut repairer = argmend::Repairer::new(argmend::Options::default());
    /// let buf = (&b"{'a'"[..]).chain(&b": 1}"[..]);
    /// // The last closer is committed once what follows it (here the end)
    /// // shows which containers it closes.
    /// assert_eq!(repairer.feed_buf(buf).unwrap(), r#"{"a": 1"#);
    /// assert_eq!(repairer.finish().unwrap().text(), r#"{"a": 1}"#);
    /// ```
    pub fn feed_buf(&mut self, mut buf: impl bytes::Buf) -> Result<String, Error> {
        let mut committed = String::new();
        while buf.has_remaining() {
            let n = buf.chunk().len();
            committed.push_str(self.feed(buf.chunk())?);
            buf.advance(n);
        }
        Ok(committed)
    }

    /// Hand out the fixes made so far that no later input can undo, in the
    /// order they were made; [`finish`](Self::finish) then reports only the
    /// rest. A long stream that calls this after each `feed` keeps its fix log
    /// bounded, as [`Retain::Unreturned`] does its output.
    ///
    /// ```
    /// let mut repairer = argmend::Repairer::new(argmend::Options::default());
    /// repairer.feed(b"{'a': 1, ").unwrap();
    /// let early = repairer.take_fixes();
    /// assert_eq!(early[0].kind, argmend::FixKind::ReplacedQuotes);
    /// let outcome = repairer.finish().unwrap();
    /// assert!(outcome.fixes().iter().all(|fix| !early.contains(fix)));
    /// ```
    pub fn take_fixes(&mut self) -> Vec<Fix> {
        if self.prelude.is_some() {
            return Vec::new();
        }
        self.machine.take_fixes()
    }

    /// The best-effort valid JSON of everything fed so far (see [`Snapshot`]).
    ///
    /// Once a value has started it parses as JSON and begins with everything
    /// committed so far; before that it is empty.
    pub fn snapshot(&self) -> Snapshot<'_> {
        let (head, rest, value_tail, frames) = match self.prelude.as_deref() {
            Some(prelude) => prelude.view(),
            None => self.machine.snapshot(),
        };
        Snapshot {
            head,
            rest,
            value_tail,
            frames,
        }
    }

    /// The number of input bytes fed so far.
    ///
    /// ```
    /// let mut repairer = argmend::Repairer::new(argmend::Options::default());
    /// repairer.feed(b"[1, ").unwrap();
    /// assert_eq!(repairer.bytes_fed(), 4);
    /// ```
    pub fn bytes_fed(&self) -> usize {
        match self.prelude.as_deref() {
            Some(prelude) => prelude.bytes_fed(),
            None => self.machine.bytes_fed(),
        }
    }

    /// End the input: close whatever is open and return the outcome.
    ///
    /// The text is the whole output (with [`Retain::Unreturned`], only the
    /// part `feed` has not returned yet). An error is a limit crossed, by an
    /// earlier `feed` or by what the end of input completes.
    ///
    /// ```
    /// let mut repairer = argmend::Repairer::new(argmend::Options::default());
    /// repairer.feed(br#"{"a": "trunc"#).unwrap();
    /// let outcome = repairer.finish().unwrap();
    /// assert_eq!(outcome.text(), r#"{"a": "trunc"}"#);
    /// assert_eq!(outcome.verdict(), argmend::Verdict::Completed);
    /// ```
    pub fn finish(mut self) -> Result<Outcome<'static>, Error> {
        if let Some(error) = self.failed {
            return Err(error);
        }
        if let Some(mut prelude) = self.prelude.take() {
            if let Some(text) = prelude.take_whole() {
                return Ok(Outcome::valid(Cow::Owned(text)));
            }
            let (text, cut) = prelude.input();
            self.machine.push(&[text.as_bytes(), cut].concat())?;
            self.machine.count_returned(prelude.committed());
        }
        self.machine.end()?;
        Ok(Outcome::from_machine(&mut self.machine))
    }
}

/// Parse text the engine wrote as a value. Its nesting is bounded by the
/// engine's `max_depth`, not by serde_json's default recursion limit of 128,
/// which turned a repaired 129-deep value into `None`. serde_json recurses
/// per level: a caller who raises `max_depth` far past its default of 512
/// also raises the stack this needs.
pub(crate) fn parse_value(text: &str) -> Option<serde_json::Value> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    deserializer.disable_recursion_limit();
    let mut values = deserializer.into_iter::<serde_json::Value>();
    let value = values.next()?.ok()?;
    values.next().is_none().then_some(value)
}

/// Repair one whole input with the default [`Options`].
///
/// The text is borrowed from the input when it was already valid JSON. If a
/// default limit is crossed (nesting deeper than 512), the verdict is
/// [`Verdict::NotJson`] and [`Outcome::error`] says which limit.
///
/// ```
/// let outcome = argmend::repair(b"{name: 'John', tags: ['a', 'b',],}");
/// assert_eq!(outcome.text(), r#"{"name": "John", "tags": ["a", "b"]}"#);
/// assert_eq!(outcome.verdict(), argmend::Verdict::Repaired);
/// ```
pub fn repair(input: &[u8]) -> Outcome<'_> {
    match repair_with(input, Options::default()) {
        Ok(outcome) => outcome,
        Err(error) => Outcome {
            text: Cow::Borrowed(""),
            verdict: Verdict::NotJson,
            fixes: Vec::new(),
            doubts: Vec::new(),
            reason: Some(error.to_string().into()),
            error: Some(error),
            sources: None,
        },
    }
}

/// Repair one whole input with the given options; a crossed limit is an [`Error`].
///
/// ```
/// use argmend::{repair_with, Options, ErrorKind};
/// let error = repair_with(b"[[[1]]]", Options::default().max_depth(2)).unwrap_err();
/// assert_eq!(error.kind(), ErrorKind::TooDeep);
/// ```
pub fn repair_with(input: &[u8], options: Options) -> Result<Outcome<'_>, Error> {
    repair_whole(input, options, None)
}

/// [`repair_with`] for input whose object keys are known (see [`Hints`]).
///
/// ```
/// use argmend::{repair_with_hints, Hints, Options};
/// let hints = Hints::from_fields(["command"]);
/// let outcome = repair_with_hints(br#"{"command": "echo "a", "b": c"}"#, Options::default(), &hints).unwrap();
/// assert_eq!(outcome.text(), r#"{"command": "echo \"a\", \"b\": c"}"#);
/// ```
pub fn repair_with_hints<'a>(
    input: &'a [u8],
    options: Options,
    hints: &Hints,
) -> Result<Outcome<'a>, Error> {
    let hints = (!hints.is_empty()).then(|| Arc::new(hints.clone()));
    repair_whole(input, options, hints)
}

fn repair_whole(
    input: &[u8],
    options: Options,
    hints: Option<Arc<Hints>>,
) -> Result<Outcome<'_>, Error> {
    let options = options.retain(Retain::All);
    if options.values == Values::First
        && input.len() <= options.input_limit()
        && valid::is_strict_json(input, options.depth_limit())
        && let Ok(text) = crate::utf8::from_utf8(input)
    {
        return Ok(Outcome::valid(Cow::Borrowed(text)));
    }
    let mut machine = Machine::new(options);
    machine.run_whole(hints, input)?;
    let verdict = machine.verdict();
    // With `Values::Lines` or `Values::Array` the output adds separators to
    // valid input, so only `Values::First` can hand the input back.
    if verdict == Verdict::Valid
        && options.values == Values::First
        && let Some(text) = machine.whole_text
    {
        return Ok(Outcome::valid(Cow::Borrowed(text)));
    }
    Ok(Outcome::from_machine(&mut machine))
}
