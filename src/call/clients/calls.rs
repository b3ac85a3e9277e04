//! The calls of one model stream, kept apart by the handle the format gives
//! them (a choice and call index, an item id, a block index).
//!
//! Each call owns a [`ToolCallStream`] while it is open. What the adapters
//! add over feeding fragments is the stream's own word about each call: a
//! final text that overrides the deltas, a stop reason that marks the call
//! cut off whatever its JSON looks like, a call that got no argument text at
//! all, and event kinds that carry calls argmend does not run (reported as
//! [`ClientEvent::Skipped`], never dropped in silence).

use serde_json::Value;

use super::ClientEvent;
use crate::call::live::ToolCallStream;
use crate::normalize::{ToolFix, ToolFixKind, ToolOptions};

/// The calls of one stream.
#[derive(Debug, Clone, Default)]
pub(super) struct Calls {
    options: ToolOptions,
    slots: Vec<Slot>,
    /// Handles already reported as skipped, so each is reported once.
    skipped: Vec<String>,
}

#[derive(Debug, Clone)]
struct Slot {
    key: String,
    id: Option<String>,
    name: String,
    /// `None` once the call has ended.
    stream: Option<ToolCallStream>,
    /// The argument text fed so far, to compare with a final text.
    raw: String,
    /// Where `raw` came from: a whole value at the call's start (Anthropic's
    /// `content_block_start.input`), which deltas replace if any arrive.
    from_start: bool,
    /// The deltas' text differed from the stream's final text, which won.
    replaced_at: Option<usize>,
    /// The format said the call's arguments ended (Anthropic's
    /// `content_block_stop`); the call is reported when the stream says how
    /// the message stopped, or moves on to another block.
    held: bool,
    /// Argument text arrived after the call ended (reported once).
    late: bool,
    /// The format sent an argument event for the call, even an empty one
    /// (Anthropic's one `partial_json: ""` for a tool without parameters).
    touched: bool,
    /// The call belongs to an earlier message of the same stream: its handle
    /// may be used again by a new call.
    retired: bool,
    /// The value the call ended with, for [`Calls::value`] after its end.
    last: Option<Value>,
}

impl Calls {
    pub(super) fn new(options: ToolOptions) -> Self {
        Calls {
            options,
            slots: Vec::new(),
            skipped: Vec::new(),
        }
    }

    pub(super) fn find(&self, key: &str) -> Option<usize> {
        (self.slots.iter()).position(|slot| !slot.retired && slot.key == key)
    }

    /// A new message begins on the same stream (an agent loop that keeps one
    /// adapter): what is still open was never confirmed, and the handles
    /// (block indexes, output indexes) start over.
    pub(super) fn new_message(&mut self, out: &mut Vec<ClientEvent>) {
        self.end_all(Some("stream_ended"), out);
        for slot in &mut self.slots {
            slot.retired = true;
        }
        self.skipped.clear();
    }

    /// The format sent an argument event for the call `key`, empty or not.
    pub(super) fn touch(&mut self, key: &str) {
        if let Some(call) = self.find(key) {
            self.slots[call].touched = true;
        }
    }

    /// The number of calls seen.
    pub(super) fn len(&self) -> usize {
        self.slots.len()
    }

    /// The call's current value: the snapshot while it streams, the mended
    /// arguments once it has ended.
    pub(super) fn value(&self, call: usize) -> Option<&Value> {
        let slot = self.slots.get(call)?;
        match &slot.stream {
            Some(stream) => stream.value(),
            None => slot.last.as_ref(),
        }
    }

    /// The call's snapshot as JSON text (`None` once it has ended).
    pub(super) fn snapshot(&self, call: usize) -> Option<String> {
        Some(self.slots.get(call)?.stream.as_ref()?.snapshot())
    }

    pub(super) fn id(&self, call: usize) -> Option<&str> {
        self.slots.get(call)?.id.as_deref()
    }

    pub(super) fn name(&self, call: usize) -> Option<&str> {
        Some(self.slots.get(call)?.name.as_str())
    }

    /// Whether the call `key` is still open (started and not ended).
    pub(super) fn is_open(&self, key: &str) -> bool {
        self.find(key)
            .is_some_and(|call| self.slots[call].stream.is_some())
    }

    /// The call `key`, started if it is new; a later id fills a missing one.
    pub(super) fn start(
        &mut self,
        key: &str,
        id: Option<&str>,
        name: &str,
        out: &mut Vec<ClientEvent>,
    ) -> usize {
        if let Some(call) = self.find(key) {
            let slot = &mut self.slots[call];
            if let (Some(id), None) = (id, &slot.id) {
                slot.id = Some(id.to_owned());
            }
            return call;
        }
        let call = self.slots.len();
        self.slots.push(Slot {
            key: key.to_owned(),
            id: id.map(str::to_owned),
            name: name.to_owned(),
            stream: Some(ToolCallStream::new(name, self.options.clone())),
            raw: String::new(),
            from_start: false,
            replaced_at: None,
            held: false,
            late: false,
            touched: false,
            retired: false,
            last: None,
        });
        out.push(ClientEvent::CallStarted {
            call,
            id: id.map(str::to_owned),
            name: name.to_owned(),
        });
        call
    }

    /// An argument fragment of the call `key` (started, nameless, if its
    /// start was not seen).
    pub(super) fn feed(&mut self, key: &str, fragment: &str, out: &mut Vec<ClientEvent>) {
        if fragment.is_empty() {
            return;
        }
        let call = match self.find(key) {
            Some(call) => call,
            None => self.start(key, None, "", out),
        };
        let slot = &mut self.slots[call];
        if slot.stream.is_none() {
            // After its end nothing can change it: say so, once, rather than
            // let the reported arguments pass for the whole call.
            if !std::mem::replace(&mut slot.late, true) {
                out.push(ClientEvent::Skipped {
                    kind: "arguments_after_end".to_owned(),
                    id: slot.id.clone(),
                    name: Some(slot.name.clone()),
                });
            }
            return;
        }
        if std::mem::take(&mut slot.from_start) {
            // Deltas after a whole start value replace it, as the SDKs do.
            slot.stream = Some(ToolCallStream::new(&slot.name, self.options.clone()));
            slot.raw.clear();
        }
        slot.raw.push_str(fragment);
        if let Some(stream) = slot.stream.as_mut() {
            let update = stream.feed(fragment.as_bytes());
            out.extend(
                update
                    .events
                    .into_iter()
                    .map(|event| ClientEvent::Field { call, event }),
            );
        }
    }

    /// The whole arguments given at the call's start (Anthropic's
    /// `content_block_start.input` when it is not the empty placeholder).
    pub(super) fn start_value(&mut self, key: &str, text: &str, out: &mut Vec<ClientEvent>) {
        self.feed(key, text, out);
        if let Some(call) = self.find(key) {
            self.slots[call].from_start = true;
        }
    }

    /// The stream's final text for the call `key`. When the deltas built a
    /// prefix of it (none arrived, or some were lost), the rest is fed; when
    /// they built something else, the final text replaces them and the end
    /// reports a [`ToolFixKind::FinalText`] fix.
    pub(super) fn final_text(&mut self, key: &str, text: &str, out: &mut Vec<ClientEvent>) {
        let Some(call) = self.find(key) else {
            return self.feed(key, text, out);
        };
        let slot = &mut self.slots[call];
        if slot.stream.is_none() || slot.raw == text {
            return;
        }
        if let Some(rest) = text.strip_prefix(slot.raw.as_str()) {
            let rest = rest.to_owned();
            return self.feed(key, &rest, out);
        }
        let differ = (slot.raw.bytes().zip(text.bytes()))
            .position(|(a, b)| a != b)
            .unwrap_or(slot.raw.len().min(text.len()));
        // The field events of the deltas' text stand; the value and the end
        // come from the final text.
        let mut stream = ToolCallStream::new(&slot.name, self.options.clone());
        stream.feed(text.as_bytes());
        slot.stream = Some(stream);
        slot.raw = text.to_owned();
        slot.from_start = false;
        slot.replaced_at = Some(differ);
    }

    /// The format said the call's arguments ended; it is reported by
    /// [`end_held`](Self::end_held) when the stream says how it stopped.
    pub(super) fn hold(&mut self, key: &str) {
        if let Some(call) = self.find(key) {
            self.slots[call].held = true;
        }
    }

    /// Report the held calls, cut off for the reason `cut` when there is one.
    pub(super) fn end_held(&mut self, cut: Option<&str>, out: &mut Vec<ClientEvent>) {
        for call in 0..self.slots.len() {
            if self.slots[call].held {
                self.end_call(call, cut, out);
            }
        }
    }

    /// End the call `key`, cut off for the reason `cut` when there is one.
    pub(super) fn end(&mut self, key: &str, cut: Option<&str>, out: &mut Vec<ClientEvent>) {
        if let Some(call) = self.find(key) {
            self.end_call(call, cut, out);
        }
    }

    /// End every open call whose key starts with `prefix`.
    pub(super) fn end_prefixed(
        &mut self,
        prefix: &str,
        cut: Option<&str>,
        out: &mut Vec<ClientEvent>,
    ) {
        for call in 0..self.slots.len() {
            if self.slots[call].key.starts_with(prefix) {
                self.end_call(call, cut, out);
            }
        }
    }

    pub(super) fn end_all(&mut self, cut: Option<&str>, out: &mut Vec<ClientEvent>) {
        for call in 0..self.slots.len() {
            self.end_call(call, cut, out);
        }
    }

    fn end_call(&mut self, call: usize, cut: Option<&str>, out: &mut Vec<ClientEvent>) {
        let slot = &mut self.slots[call];
        slot.held = false;
        let Some(stream) = slot.stream.take() else {
            return;
        };
        let mut end = stream.finish();
        let events = std::mem::take(&mut end.events);
        out.extend(
            events
                .into_iter()
                .map(|event| ClientEvent::Field { call, event }),
        );
        if let Some(offset) = slot.replaced_at {
            end.fixes.insert(
                0,
                ToolFix {
                    kind: ToolFixKind::FinalText,
                    offset,
                },
            );
        }
        let cut = match cut {
            Some(reason) => Some(reason),
            // `{}` from nothing is not what the model sent: it sent nothing.
            None if slot.raw.trim().is_empty() && !slot.touched => Some("no_arguments"),
            None => None,
        };
        if let Some(reason) = cut {
            end.complete = false;
            end.cut = Some(reason.to_owned());
        }
        slot.last = Some(end.args.clone());
        out.push(ClientEvent::CallDone {
            call,
            id: slot.id.clone(),
            end,
        });
    }

    /// A call-carrying event kind argmend does not handle (a server tool, a
    /// custom tool's free text): reported once per handle.
    pub(super) fn skip(
        &mut self,
        handle: &str,
        kind: &str,
        id: Option<&str>,
        name: Option<&str>,
        out: &mut Vec<ClientEvent>,
    ) {
        if self.skipped.iter().any(|seen| seen == handle) {
            return;
        }
        self.skipped.push(handle.to_owned());
        out.push(ClientEvent::Skipped {
            kind: kind.to_owned(),
            id: id.map(str::to_owned),
            name: name.map(str::to_owned),
        });
    }

    /// Whether `handle` was reported as skipped.
    pub(super) fn is_skipped(&self, handle: &str) -> bool {
        self.skipped.iter().any(|seen| seen == handle)
    }

    /// The end of the events: calls still open were not confirmed whole.
    pub(super) fn finish(mut self) -> Vec<ClientEvent> {
        let mut out = Vec::new();
        self.end_all(Some("stream_ended"), &mut out);
        out
    }
}

/// A string field of an event.
pub(super) fn text<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

/// The value at `path` (object keys) inside `value`: `Value::pointer`
/// without its parsing and its two allocations per step, which were most of
/// an adapter's cost per event.
pub(super) fn at<'a>(value: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(value, |value, key| value.get(key))
}
