//! One tool call on its way to the client: its arguments mended as they
//! stream and re-sent as append-only pieces, and argmend's verdict at its end.
//!
//! Two kinds of call pass through here. A *native* call is one the upstream
//! sent in `tool_calls`: its argument fragments go through a
//! [`ToolCallStream`], whose committed text only grows, so each fragment's
//! committed text is the next piece the client appends. A *lifted* call is
//! one the model wrote into `content` and [`CallParser`](argmend::CallParser)
//! found there; the parser gives its mended arguments when the call ends.

use argmend::{CallEnd, Doubt, ToolCallStream, ToolFix, ToolOptions, Verdict};
use serde_json::{Map, Value, json};

use crate::cli::shared::log::doubt_value;

/// Where a call's arguments come from.
enum Source {
    /// `tool_calls` fragments, before the name arrived (held until it does).
    Waiting(Vec<u8>),
    /// `tool_calls` fragments, mended as they come.
    Native(Box<ToolCallStream>),
    /// A call lifted from `content`: the parser mends it.
    Lifted,
    /// Ended.
    Done,
}

/// One call of one choice, under the index the client sees.
pub(super) struct Call {
    /// The index in the client's `tool_calls`.
    pub(super) index: usize,
    id: Option<String>,
    name: Option<String>,
    /// Whether the client has had the call's id, type and name.
    announced: bool,
    source: Source,
    /// The argument text the client has had: the mended text's prefix.
    sent: String,
    /// Argument bytes read for this call (counted against the stream's cap).
    pub(super) bytes_in: usize,
}

/// How a call ended, for its extension field.
pub(super) struct Report<'a> {
    pub(super) verdict: Verdict,
    pub(super) complete: bool,
    pub(super) strategy: Option<u8>,
    /// Whether the call's own end was seen (a lifted call's `</tool_call>`).
    pub(super) closed: bool,
    pub(super) fixes: &'a [ToolFix],
    pub(super) doubts: &'a [Doubt],
    pub(super) cut: Option<&'a str>,
    pub(super) reason: Option<&'a str>,
}

impl Call {
    /// A call the upstream sent in `tool_calls`.
    pub(super) fn native(index: usize) -> Self {
        Call {
            index,
            id: None,
            name: None,
            announced: false,
            source: Source::Waiting(Vec::new()),
            sent: String::new(),
            bytes_in: 0,
        }
    }

    /// A call found in `content`, named as it began.
    pub(super) fn lifted(index: usize, id: String, name: String) -> Self {
        Call {
            index,
            id: Some(id),
            name: Some(name),
            announced: false,
            source: Source::Lifted,
            sent: String::new(),
            bytes_in: 0,
        }
    }

    /// Whether the call has ended.
    pub(super) fn is_done(&self) -> bool {
        matches!(self.source, Source::Done)
    }

    /// The call's id, once known (the upstream's, or argmend's for a lifted call).
    pub(super) fn set_id(&mut self, id: &str) {
        if self.id.is_none() && !id.is_empty() {
            self.id = Some(id.to_owned());
        }
    }

    /// The tool's name: from it on, the arguments are mended with the
    /// tool's own schema. Some servers repeat the name, or send `""` after
    /// it: the first non-empty one counts.
    pub(super) fn set_name(&mut self, name: &str, options: &ToolOptions) {
        if self.name.is_some() || name.is_empty() {
            return;
        }
        self.name = Some(name.to_owned());
        if let Source::Waiting(held) = &mut self.source {
            let held = std::mem::take(held);
            let mut stream = Box::new(ToolCallStream::new(name, options.clone()));
            let committed = stream.feed(&held).committed;
            self.sent.push_str(&committed);
            self.source = Source::Native(stream);
        }
    }

    /// One fragment of the arguments; returns the mended text to append.
    pub(super) fn feed(&mut self, fragment: &str) -> String {
        self.bytes_in += fragment.len();
        match &mut self.source {
            Source::Waiting(held) => {
                held.extend_from_slice(fragment.as_bytes());
                String::new()
            }
            Source::Native(stream) => {
                let committed = stream.feed(fragment.as_bytes()).committed;
                self.sent.push_str(&committed);
                committed
            }
            Source::Lifted | Source::Done => String::new(),
        }
    }

    /// Record `piece` as sent, and return it.
    fn send(&mut self, piece: &str) -> String {
        self.sent.push_str(piece);
        piece.to_owned()
    }

    /// Forget what the client has had: a response that is not streamed
    /// sends the whole final text at the end.
    pub(super) fn unsend(&mut self) {
        self.sent = String::new();
    }

    /// End a native call: the rest of its arguments, and its verdict.
    /// `cut` is why the stream says it stopped short (`length`,
    /// `stream_ended`), if it did.
    pub(super) fn finish_native(&mut self, options: &ToolOptions, cut: Option<&str>) -> Ending {
        let source = std::mem::replace(&mut self.source, Source::Done);
        let stream = match source {
            Source::Native(stream) => stream,
            Source::Waiting(held) => {
                // The name never came: the arguments are mended without a tool.
                let mut stream = Box::new(ToolCallStream::new(
                    self.name.as_deref().unwrap_or(""),
                    options.clone(),
                ));
                stream.feed(&held);
                stream
            }
            Source::Lifted | Source::Done => return Ending::default(),
        };
        let snapshot = stream.snapshot();
        let end: CallEnd = stream.finish();
        let complete = end.complete && cut.is_none();
        let verdict = Report {
            verdict: end.verdict,
            complete,
            closed: true,
            strategy: end.strategy.map(|s| s.number()),
            fixes: &end.fixes,
            doubts: &end.doubts,
            cut,
            reason: end.reason.as_deref(),
        };
        let (piece, rewritten) = self.rest_of(&end.text, &snapshot);
        self.sent = String::new();
        let mut extension = extension(&verdict);
        if let Some(text) = rewritten {
            extension.insert("arguments".to_owned(), Value::String(text));
        }
        Ending {
            piece,
            extension: Some(extension),
        }
    }

    /// End a lifted call with the parser's mended arguments.
    pub(super) fn finish_lifted(&mut self, args: &str, verdict: &Report<'_>) -> Ending {
        self.source = Source::Done;
        let mut extension = extension(verdict);
        extension.insert("from_content".to_owned(), Value::Bool(true));
        let (piece, rewritten) = self.rest_of(args, "");
        self.sent = String::new();
        if let Some(text) = rewritten {
            extension.insert("arguments".to_owned(), Value::String(text));
        }
        Ending {
            piece,
            extension: Some(extension),
        }
    }

    /// What to append so the client's text is the call's final text; when
    /// the client already has text the final one does not start with (a
    /// tool-level rule rewrote a value already sent: `"5"` coerced to `5`),
    /// the engine's own completion of what was sent (`snapshot`, valid JSON)
    /// and the final text apart, for the extension.
    fn rest_of(&mut self, text: &str, snapshot: &str) -> (String, Option<String>) {
        if let Some(rest) = text.strip_prefix(self.sent.as_str()) {
            let rest = rest.to_owned();
            return (self.send(&rest), None);
        }
        let rest = snapshot
            .strip_prefix(self.sent.as_str())
            .unwrap_or_default()
            .to_owned();
        (self.send(&rest), Some(text.to_owned()))
    }

    /// The `tool_calls` entry for a piece of this call: the index, the id,
    /// type and name the first time, the arguments text, and the extension
    /// at the end. `None` when there is nothing to tell.
    pub(super) fn delta(
        &mut self,
        arguments: &str,
        extension: Option<Map<String, Value>>,
    ) -> Option<Value> {
        let announce = !self.announced && self.name.is_some();
        if !announce && arguments.is_empty() && extension.is_none() {
            return None;
        }
        let mut function = Map::new();
        let mut entry = Map::new();
        entry.insert("index".to_owned(), json!(self.index));
        if announce || (!self.announced && extension.is_some()) {
            self.announced = true;
            if let Some(id) = &self.id {
                entry.insert("id".to_owned(), json!(id));
            }
            entry.insert("type".to_owned(), json!("function"));
            function.insert("name".to_owned(), json!(self.name.as_deref().unwrap_or("")));
        }
        function.insert("arguments".to_owned(), json!(arguments));
        entry.insert("function".to_owned(), Value::Object(function));
        if let Some(extension) = extension {
            entry.insert("argmend".to_owned(), Value::Object(extension));
        }
        Some(Value::Object(entry))
    }
}

/// The end of a call: the last piece of its arguments, and the extension.
#[derive(Default)]
pub(super) struct Ending {
    pub(super) piece: String,
    pub(super) extension: Option<Map<String, Value>>,
}

/// argmend's word on a call, in the extension field `argmend` that clients
/// ignore: `{"verdict", "complete", "strategy", "fixes", "doubt"?, "cut"?,
/// "reason"?}`.
pub(super) fn extension(verdict: &Report<'_>) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("verdict".to_owned(), json!(verdict.verdict.name()));
    out.insert("complete".to_owned(), json!(verdict.complete));
    out.insert("strategy".to_owned(), json!(verdict.strategy));
    let fixes: Vec<Value> = verdict
        .fixes
        .iter()
        .map(|fix| json!({"kind": fix.kind.name(), "offset": fix.offset}))
        .collect();
    out.insert("fixes".to_owned(), Value::Array(fixes));
    if !verdict.doubts.is_empty() {
        let doubts = verdict.doubts.iter().map(doubt_value).collect();
        out.insert("doubt".to_owned(), Value::Array(doubts));
    }
    if !verdict.closed {
        out.insert("closed".to_owned(), json!(false));
    }
    if let Some(cut) = verdict.cut {
        out.insert("cut".to_owned(), json!(cut));
    }
    if let Some(reason) = verdict.reason {
        out.insert("reason".to_owned(), json!(reason));
    }
    out
}
