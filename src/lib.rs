//! # argmend
//!
//! Mends the broken JSON that language models write into tool-call
//! arguments, while it streams.
//!
//! ## One shot or streaming
//!
//! [`repair`] takes a whole input. [`Repairer`] takes chunks of any size as
//! they arrive: [`Repairer::feed`] returns the output committed by each chunk
//! (it never changes afterwards), [`Repairer::snapshot`] gives valid JSON of
//! everything so far, and [`Repairer::finish`] gives the [`Outcome`].
//!
//! ```
//! let outcome = argmend::repair(b"```json\n{'path': 'main.go', append: True,}\n```");
//! assert_eq!(outcome.text(), "{\"path\": \"main.go\", \"append\": true}");
//! ```
//!
//! ## Fixes and verdicts
//!
//! Every change is a [`Fix`]: a [`FixKind`] and the absolute input offset
//! where it applied. The [`Verdict`] sums them up: `Valid` (input returned
//! byte for byte), `Completed` (only a truncation was closed), `Repaired`, or
//! `NotJson`.
//!
//! ## Guarantees
//!
//! 1. Valid JSON comes back byte for byte, with no fixes.
//! 2. Unless the verdict is `NotJson`, the output parses as JSON.
//! 3. The outcome is the same for every way of cutting the input into chunks.
//! 4. Committed output only grows: what `feed` returned is a prefix of the final text.
//! 5. Once a value has started, every snapshot parses as JSON.
//! 6. The total cost is linear in the input, snapshots after every chunk included.
//!
//! Bad syntax is never an error; only the limits in [`Options`] are ([`Error`]).
//!
//! ## Strings as a stream sees them
//!
//! String text is committed as it arrives; only a quote waits, and it ends
//! its string only if what follows continues the open containers (a comma
//! and a key with its colon, a closer, the end). Code whose quotes the model
//! forgot to escape stays whole, its quotes escaped and reported. [`Hints`]
//! (the keys the objects may have, from a JSON Schema) sharpen the decision:
//!
//! ```
//! let hints = argmend::Hints::from_fields(["path", "content"]);
//! let raw = br#"{"path": "a.py", "content": "print("hi, there")"}"#;
//! let outcome = argmend::repair_with_hints(raw, argmend::Options::default(), &hints).unwrap();
//! assert_eq!(outcome.text(), r#"{"path": "a.py", "content": "print(\"hi, there\")"}"#);
//! ```
//!
//! A stream cut off shows what was read: a cut string keeps its text, a key
//! without its colon is left out, `tr` is `true`, `2e` is `2`.
//!
//! ## Tools
//!
//! [`tools`] holds what an agent calls with a verb and arguments:
//! [`tools::diff`] diffs files, texts, trees and JSON documents and applies a
//! unified patch only when every line of context matches; [`tools::json`]
//! answers questions about a JSON or YAML payload (one field, the keys at a
//! path, a filter, the shape) without reading it whole. Tool paths stay
//! inside a [`tools::Workspace`].
//!
//! ## Tool-aware normalization
//!
//! [`normalize_tool_args`] knows which tool the arguments are for: `main.go`
//! for `read_file` becomes `{"file":"main.go"}`, `read --file main.go` for
//! `@coder` becomes `{"cmd":"read","args":{"file":"main.go"}}`, curly quotes
//! standing as delimiters in Go source written by `write_file`
//! (`fmt.Println(“hi”)`) are straightened while those in its strings and
//! comments stay, and a JSON Schema
//! ([`ToolOptions::schema`]) coerces `"5"` to `5` where it wants a number.
//! The result ([`Normalized`]) says which of ChatCLI's seven [`Strategy`]s the
//! input needed; [`ToolRepairer`] does the same on a stream.
//!
//! ```
//! let normalized = argmend::normalize_tool_args("read_file", "{file: 'main.go',}");
//! assert_eq!(normalized.text(), r#"{"file": "main.go"}"#);
//! assert_eq!(normalized.strategy().map(|s| s.number()), Some(4));
//! ```
//!
//! ## Tool calls
//!
//! [`CallParser`] finds tool calls in streamed model text (`<tool_call …>`,
//! `<tool …>`, `{"tool_call": …}`) and mends their arguments as they arrive;
//! [`ArgsStream`] does the same for native tool use, where one call's arguments
//! arrive as string deltas. [`Dispatcher`] runs calls against a [`Tool`] table
//! (`@json` and `@diff` built in) inside a workspace, with an output cap and a
//! time limit per call.
//!
//! ## Feature flags
//!
//! - `tools` (default): [`tools::json`], [`tools::diff`], the workspace and
//!   the [`Dispatcher`] that runs them (regex, similar, saphyr-parser). With
//!   `default-features = false` the crate is the engine alone: repair,
//!   normalization, the call parser and the streams (logos, memchr,
//!   smallvec, bytes, simdutf8, serde_json).
//! - `cli` (default): builds the `argmend` binary (clap, anyhow; implies
//!   `tools`).
//! - `mcp` (default): `argmend mcp`, the MCP server (rmcp, tokio,
//!   tracing-subscriber).

#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![warn(unreachable_pub)]
#![deny(clippy::dbg_macro, clippy::print_stdout, clippy::print_stderr)]

#[macro_use]
mod macros;

mod call;
mod doc;
mod error;
mod lex;
mod normalize;
mod repair;
#[cfg(feature = "tools")]
pub mod tools;
mod utf8;

#[cfg(feature = "tools")]
pub use crate::call::{
    Access, DEFAULT_OUTPUT_CAP, DEFAULT_TIME_LIMIT, DiffTool, Dispatcher, JsonTool, Tool,
    ToolError, ToolErrorKind, ToolResult,
};
pub use crate::call::{
    AnthropicStream, ArgsStream, ArgsUpdate, CallEnd, CallParser, ClientEvent, Event, FieldEvent,
    Format, OpenAiChatStream, OpenAiResponsesStream, ToolCallStream, ValueKind,
};
pub use crate::error::{Error, ErrorKind};
pub use crate::normalize::{
    Normalized, NormalizedQuotes, SchemaMode, Strategy, Telemetry, ToolFix, ToolFixKind, ToolMap,
    ToolOptions, ToolRepairer, Violation, is_code_path, normalize_quotes, normalize_tool_args,
    normalize_tool_args_with,
};
pub use crate::repair::{
    Doubt, DoubtKind, Fix, FixKind, Hints, Options, Outcome, Repairer, Retain, Snapshot, Values,
    Verdict, repair, repair_with, repair_with_hints,
};
#[cfg(feature = "tools")]
pub use crate::tools::deadline::CancelToken;

/// The README's examples run as doc tests.
#[cfg(all(doctest, feature = "tools"))]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

/// The examples of `docs/streams.md` (the client adapters) run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../docs/streams.md")]
struct StreamsDoctests;

/// The guide's examples (`docs/guide.md`) run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../docs/guide.md")]
struct GuideDoctests;
