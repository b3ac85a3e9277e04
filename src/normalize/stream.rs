//! The streaming form of [`normalize_tool_args`](super::normalize_tool_args).

use super::{Normalized, ToolOptions, pipeline};
use crate::{Error, Repairer, Retain, Snapshot, Values};

/// Where the stream stands.
#[derive(Debug, Clone)]
enum Mode {
    /// Only whitespace so far: nothing is decided.
    Undecided,
    /// The input starts with `{` or `[`: every chunk goes straight to the engine.
    Streaming(Box<Repairer>),
    /// The engine crossed a limit; the rest is only counted.
    Failed(Error),
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
}

impl ToolRepairer {
    /// A stream of arguments for `tool`.
    pub fn new(tool: &str, options: ToolOptions) -> Self {
        ToolRepairer {
            tool: tool.to_owned(),
            options,
            input: Vec::new(),
            mode: Mode::Undecided,
        }
    }

    /// Feed the next chunk (it may end anywhere, even inside a character).
    ///
    /// Nothing here fails: a crossed limit shows in the result of
    /// [`finish`](Self::finish) as `NotJson` with the reason.
    pub fn feed(&mut self, chunk: &[u8]) {
        let from = self.input.len();
        self.input.extend_from_slice(chunk);
        if let Mode::Undecided = self.mode {
            let Some(first) = self.input.iter().position(|b| !b.is_ascii_whitespace()) else {
                return;
            };
            self.mode = if matches!(self.input[first], b'{' | b'[') {
                let options = self
                    .options
                    .repair
                    .values(Values::First)
                    .retain(Retain::All);
                let repairer = Repairer::new(options);
                // Everything so far goes in, the leading whitespace included.
                self.feed_engine(repairer, 0)
            } else {
                Mode::Buffering
            };
            return;
        }
        if let Mode::Streaming(_) = self.mode {
            let Mode::Streaming(repairer) = std::mem::replace(&mut self.mode, Mode::Buffering)
            else {
                return;
            };
            self.mode = self.feed_engine(*repairer, from);
        }
    }

    fn feed_engine(&self, mut repairer: Repairer, from: usize) -> Mode {
        match repairer.feed(&self.input[from..]) {
            Ok(_) => Mode::Streaming(Box::new(repairer)),
            Err(error) => Mode::Failed(error),
        }
    }

    /// Valid JSON of everything so far, while the input streams straight
    /// through the engine (it starts with `{` or `[`); `None` otherwise.
    ///
    /// The preview shows the engine's repair only: the tool-level rules
    /// (quotes in code, the schema) apply at [`finish`](Self::finish).
    pub fn snapshot(&self) -> Option<Snapshot<'_>> {
        match &self.mode {
            Mode::Streaming(repairer) => Some(repairer.snapshot()),
            _ => None,
        }
    }

    /// The number of bytes fed so far.
    pub fn bytes_fed(&self) -> usize {
        self.input.len()
    }

    /// End the input and normalize.
    pub fn finish(self) -> Normalized {
        let engine = match self.mode {
            Mode::Streaming(repairer) => Some(repairer.finish()),
            Mode::Failed(error) => Some(Err(error)),
            Mode::Undecided | Mode::Buffering => None,
        };
        pipeline::normalize(&self.tool, &self.input, &self.options, engine)
    }
}
