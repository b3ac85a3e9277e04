//! The streaming form of [`normalize_tool_args`](super::normalize_tool_args).

use super::{Normalized, ToolOptions, pipeline};
use crate::repair::{Repairer, Snapshot};

/// Where the stream stands.
#[derive(Debug, Clone)]
enum Mode {
    /// Only whitespace so far: nothing is decided.
    Undecided,
    /// The input starts with `{` or `[`: every chunk goes straight to the
    /// engine. After a crossed limit the engine only repeats its error.
    Streaming(Box<Repairer>),
    /// Anything else: wrapping and command lines need the whole text.
    Buffering,
}

/// Normalize a tool call's arguments as they stream in.
///
/// When the arguments start with `{` or `[`, each chunk goes straight into
/// the engine ([`Repairer`]) as it arrives, and [`snapshot`](Self::snapshot)
/// shows valid JSON of everything so far. Anything else (a plain value, a
/// command line) is held until [`finish`](Self::finish), because whether it
/// is wrapped or parsed depends on all of it. The input is kept either way:
/// fix offsets are computed from it at the end.
///
/// The result is the same as [`normalize_tool_args_with`](super::normalize_tool_args_with)
/// on the whole input, however it was cut into chunks.
///
/// ```
/// use argmend::{normalize_tool_args, ToolOptions, ToolRepairer};
/// let mut stream = ToolRepairer::new("write_file", ToolOptions::default());
/// for chunk in ["{'file': 'main.go', ", "content: 'fmt.Println(“hi”)'", "}"] {
///     stream.feed(chunk.as_bytes());
///     if let Some(preview) = stream.snapshot() {
///         assert!(serde_json::from_str::<serde_json::Value>(&preview.to_string()).is_ok());
///     }
/// }
/// let normalized = stream.finish();
/// assert_eq!(normalized.text(), r#"{"file": "main.go", "content": "fmt.Println(\"hi\")"}"#);
/// let whole = "{'file': 'main.go', content: 'fmt.Println(“hi”)'}";
/// assert_eq!(normalized, normalize_tool_args("write_file", whole));
/// ```
#[derive(Debug, Clone)]
pub struct ToolRepairer {
    tool: String,
    options: ToolOptions,
    input: Vec<u8>,
    mode: Mode,
    /// How much engine output `feed` has returned (the rest is returned by
    /// `finish_with_tail`).
    returned: usize,
}

impl ToolRepairer {
    /// A stream of arguments for `tool`.
    pub fn new(tool: &str, options: ToolOptions) -> Self {
        let options = match options.for_tool(tool) {
            std::borrow::Cow::Owned(resolved) => resolved,
            std::borrow::Cow::Borrowed(_) => options,
        };
        ToolRepairer {
            tool: tool.to_owned(),
            options,
            input: Vec::new(),
            mode: Mode::Undecided,
            returned: 0,
        }
    }

    /// Feed the next chunk (it may end anywhere, even inside a character);
    /// returns the engine's output newly committed by it (empty while the
    /// input is held, see above). A caller that previews the arguments as
    /// they stream reads them from here instead of running a second engine.
    ///
    /// Nothing here fails: a crossed limit shows in the result of
    /// [`finish`](Self::finish) as `NotJson` with the reason.
    pub fn feed(&mut self, chunk: &[u8]) -> &str {
        let mut from = self.input.len();
        self.input.extend_from_slice(chunk);
        if let Mode::Undecided = self.mode {
            let Some(first) = self.input.iter().position(|b| !b.is_ascii_whitespace()) else {
                return "";
            };
            if !matches!(self.input[first], b'{' | b'[') {
                self.mode = Mode::Buffering;
                return "";
            }
            let options = pipeline::engine_options(&self.options);
            let hints = pipeline::engine_hints(&self.tool, &self.options);
            self.mode = Mode::Streaming(Box::new(Repairer::with_hints(options, hints)));
            // Everything so far goes in, the leading whitespace included.
            from = 0;
        }
        let Mode::Streaming(repairer) = &mut self.mode else {
            return "";
        };
        // A crossed limit shows at `finish`; what was committed before it
        // is handed out all the same.
        let (committed, _) = repairer.feed_until_failure(&self.input[from..]);
        self.returned += committed.len();
        committed
    }

    /// Valid JSON of everything so far, while the input streams straight
    /// through the engine (it starts with `{` or `[`); `None` otherwise.
    ///
    /// The preview shows the engine's repair only: the tool-level rules
    /// (quotes in code, the schema) apply at [`finish`](Self::finish).
    pub fn snapshot(&self) -> Option<Snapshot<'_>> {
        match &self.mode {
            Mode::Streaming(repairer) if !repairer.has_failed() => Some(repairer.snapshot()),
            _ => None,
        }
    }

    /// The number of bytes fed so far.
    pub fn bytes_fed(&self) -> usize {
        self.input.len()
    }

    /// End the input and normalize.
    pub fn finish(self) -> Normalized {
        self.finish_with_tail().0
    }

    /// [`finish`](Self::finish), and the engine output that `feed` did not
    /// return (what the end of input committed).
    pub(crate) fn finish_with_tail(self) -> (Normalized, String) {
        let (engine, tail) = match self.mode {
            Mode::Streaming(repairer) => {
                let outcome = repairer.finish();
                let tail = match &outcome {
                    Ok(outcome) => outcome.text().get(self.returned..).unwrap_or(""),
                    Err(_) => "",
                };
                let tail = tail.to_owned();
                (Some(outcome), tail)
            }
            Mode::Undecided | Mode::Buffering => (None, String::new()),
        };
        let normalized = pipeline::normalize(&self.tool, &self.input, &self.options, engine);
        (normalized, tail)
    }
}
