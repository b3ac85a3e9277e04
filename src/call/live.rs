//! One tool call's arguments as a model streams them: mended, previewed as
//! text and as a value, and reported field by field.

use serde_json::Value;

use super::walk::{FieldEvent, Walker};
use crate::normalize::{Strategy, ToolFix, ToolFixKind, ToolOptions, ToolRepairer};
use crate::repair::{Doubt, Verdict};

/// The arguments of one tool call, fed fragment by fragment as the model
/// streams them (OpenAI's `function.arguments` deltas, Anthropic's
/// `partial_json`).
///
/// After each fragment it has the newly committed text, the snapshot as text
/// ([`snapshot`](Self::snapshot)) and as a `serde_json::Value`
/// ([`value`](Self::value), grown in place rather than re-parsed), and the
/// [`FieldEvent`]s: a value started, characters added to a string, a value
/// is final. [`finish`](Self::finish) gives the mended arguments, the fixes,
/// and whether the call was complete.
///
/// ```
/// use argmend::{FieldEvent, ToolCallStream, ToolOptions};
/// use serde_json::json;
///
/// let mut call = ToolCallStream::new("write_file", ToolOptions::default());
/// let mut done = Vec::new();
/// for fragment in [r#"{"path": "a.py", "con"#, r#"tent": "print(1)\n"#, r#"", "mode": 'w'}"#] {
///     let update = call.feed(fragment.as_bytes());
///     for event in update.events {
///         if let FieldEvent::Done { path, value } = event {
///             done.push((path, value));
///         }
///     }
///     assert!(call.value().is_some()); // the snapshot, as a value, after every fragment
/// }
/// assert_eq!(done[0], ("/path".to_owned(), json!("a.py")));
/// assert_eq!(done[1], ("/content".to_owned(), json!("print(1)\n")));
/// let end = call.finish();
/// assert_eq!(end.args, json!({"path": "a.py", "content": "print(1)\n", "mode": "w"}));
/// assert!(end.complete); // nothing was cut off
/// ```
#[derive(Debug, Clone)]
pub struct ToolCallStream {
    name: String,
    normalizer: ToolRepairer,
    walker: Walker,
    /// Bytes of engine output committed so far.
    committed: usize,
}

/// What one fragment did.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ArgsUpdate {
    /// The mended text this fragment committed (it never changes afterwards).
    pub committed: String,
    /// The field events, in text order.
    pub events: Vec<FieldEvent>,
}

/// The end of one call.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CallEnd {
    /// The tool's name.
    pub name: String,
    /// The mended arguments (`Value::Null` when they are not JSON; see `reason`).
    pub args: Value,
    /// The same, as JSON text (the raw arguments when they are not JSON).
    pub text: String,
    /// `Valid`, `Repaired`, `Completed` (only a cut-off was closed) or `NotJson`.
    pub verdict: Verdict,
    /// Which strategy the arguments needed.
    pub strategy: Option<Strategy>,
    /// Every repair, with offsets into the raw arguments.
    pub fixes: Vec<ToolFix>,
    /// The choices between readings that the raw arguments could not
    /// settle, with offsets into them (empty when there was none). The
    /// verdict and `complete` do not change because of a doubt: a caller
    /// that cannot afford a guess asks the model again.
    pub doubts: Vec<Doubt>,
    /// Whether the arguments arrived whole: they are JSON and nothing had to
    /// be closed because the input ended, and (through the client adapters)
    /// the stream said the call ended normally.
    pub complete: bool,
    /// Why the stream says the call stopped short, whatever its JSON looks
    /// like (set by the client adapters only): the stream's own stop reason
    /// (`max_tokens`, `length`, `content_filter`, `incomplete`, `failed`,
    /// `error`), `stream_ended` (the events stopped before the call's end was
    /// confirmed), or `no_arguments` (no argument text arrived at all).
    /// `complete` is `false` whenever this is set.
    pub cut: Option<String>,
    /// Why there are no arguments, when the verdict is `NotJson`.
    pub reason: Option<String>,
    /// The last field events (what the end of input completed or closed).
    pub events: Vec<FieldEvent>,
}

impl ToolCallStream {
    /// A call to `name`; `options` carries the tool table and the schema.
    pub fn new(name: &str, options: ToolOptions) -> Self {
        ToolCallStream {
            name: name.to_owned(),
            normalizer: ToolRepairer::new(name, options),
            walker: Walker::default(),
            committed: 0,
        }
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Feed the next fragment (it may end anywhere, even inside a character
    /// or an escape).
    pub fn feed(&mut self, fragment: &[u8]) -> ArgsUpdate {
        let committed = self.normalizer.feed(fragment).to_owned();
        self.committed += committed.len();
        self.walker.commit(&committed);
        let events = self.walker.take_events();
        self.lay_overlay();
        ArgsUpdate { committed, events }
    }

    /// The snapshot's provisional tail, over the committed value.
    fn lay_overlay(&mut self) {
        let Some(snapshot) = self.normalizer.snapshot() else {
            return;
        };
        let mut pieces = snapshot.pieces();
        let Some(head) = pieces.next() else { return };
        let Some(tail) = head.get(self.committed..) else {
            return;
        };
        // The rest and the value's completion; the closers need no text
        // here. Most fragments have neither: no copy is made for them.
        let is_closer = |piece: &str| matches!(piece, "}" | "]" | ")");
        let mut provisional = std::borrow::Cow::Borrowed(tail);
        for piece in pieces.take_while(|piece| !is_closer(piece)) {
            provisional.to_mut().push_str(piece);
        }
        self.walker.overlay(&provisional);
    }

    /// Valid JSON of the arguments so far (empty before they start, or while
    /// arguments that do not start with `{` or `[` are held for the end).
    pub fn snapshot(&self) -> String {
        self.normalizer
            .snapshot()
            .map(|snapshot| snapshot.to_string())
            .unwrap_or_default()
    }

    /// The snapshot as a value (`None` before the arguments start). It is
    /// the same value as parsing [`snapshot`](Self::snapshot), kept up to
    /// date in place.
    pub fn value(&self) -> Option<&Value> {
        // No snapshot (arguments held for the end, or a limit crossed): no value.
        self.normalizer.snapshot()?;
        self.walker.value()
    }

    /// The number of bytes fed so far.
    pub fn bytes_fed(&self) -> usize {
        self.normalizer.bytes_fed()
    }

    /// End the arguments: the last events and the mended arguments.
    pub fn finish(mut self) -> CallEnd {
        let (normalized, tail) = self.normalizer.finish_with_tail();
        let verdict = normalized.verdict();
        if self.committed == 0 && tail.is_empty() && verdict != Verdict::NotJson {
            // Arguments held for the end (a plain value such as `main.go`, a
            // fence): their events come now, from the mended text.
            self.walker.commit(normalized.text());
        } else {
            self.walker.commit(&tail);
        }
        let events = self.walker.take_events();
        let truncated = normalized.fixes().iter().any(|fix| match fix.kind {
            ToolFixKind::Repair(kind) => kind.is_truncation(),
            _ => false,
        });
        let args = match verdict {
            Verdict::NotJson => Value::Null,
            _ => normalized.to_value().unwrap_or(Value::Null),
        };
        CallEnd {
            name: self.name,
            args,
            verdict,
            strategy: normalized.strategy(),
            fixes: normalized.fixes().to_vec(),
            doubts: normalized.doubts().to_vec(),
            complete: verdict != Verdict::NotJson && !truncated,
            cut: None,
            reason: normalized.reason().map(str::to_owned),
            text: normalized.into_text(),
            events,
        }
    }
}
