//! Tool-aware normalization: the repair engine plus what the tool's name and
//! schema tell about its arguments.
//!
//! [`normalize_tool_args`] takes the tool's name and the raw arguments and
//! gives [`Normalized`]: JSON text, which of ChatCLI's seven [`Strategy`]s the
//! input needed, the fixes (engine repairs and tool-level ones, each with an
//! input offset), and the verdict. [`ToolRepairer`] does the same on chunks.
//!
//! The layers, in order: the engine repairs the syntax (strategies 2 to 5
//! and 7); a plain value is wrapped into the tool's primary field, or a
//! command line turned into fields (6); a double-encoded object is unwrapped;
//! typographic quotes standing as delimiters in code content are
//! straightened (those in its literals and comments are data and stay); and
//! with a JSON Schema, values are coerced to the types it asks for.

mod argv;
mod locate;
mod pipeline;
mod quotes;
mod request;
mod schema;
mod strategy;
mod stream;
mod validate;
mod wrap;

use std::fmt;

use serde_json::Value;

pub use self::quotes::{NormalizedQuotes, is_code_path, normalize_quotes};
pub use self::strategy::Strategy;
pub use self::stream::ToolRepairer;
pub use self::validate::Violation;
pub use self::wrap::ToolMap;
use crate::repair::{Doubt, FixKind, Options, Verdict};

/// One tool-level change: what was done, at which input byte offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ToolFix {
    /// What was done.
    pub kind: ToolFixKind,
    /// Where in the input (absolute byte offset). A change inside a value
    /// points at the input byte where that value (or character) begins.
    pub offset: usize,
}

/// The kinds of change [`normalize_tool_args`] reports. Each doc line shows
/// input → output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolFixKind {
    /// A syntax repair made by the engine (see [`FixKind`]).
    Repair(FixKind),
    /// `` (empty or whitespace) → `{}`.
    EmptyArguments,
    /// `main.go` for `read_file` → `{"file":"main.go"}`.
    WrappedValue,
    /// `read --file main.go` for `@coder` → `{"cmd":"read","args":{"file":"main.go"}}`.
    ParsedCommandLine,
    /// `"{\"file\":\"a.go\"}"` → `{"file":"a.go"}` (a double-encoded object or array).
    UnwrappedString,
    /// `fmt.Println(“hi”)` in Go content → `fmt.Println("hi")`; never in a
    /// literal or a comment (`fmt.Println("it’s")` stays).
    StraightenedQuote,
    /// `"5"` → `5` where the schema says number or integer.
    CoercedNumber,
    /// `"true"`, `"yes"`, `1` → `true` where the schema says boolean.
    CoercedBoolean,
    /// `5` → `"5"` where the schema says string.
    CoercedString,
    /// `"a"` → `["a"]` where the schema says array.
    WrappedInArray,
    /// `{"result": {"a": 1}}` → `{"a": 1}` when only the inner object fits the schema.
    UnwrappedObject,
    /// `{"a": 1, "extra": 2}` → `{"a": 1}` in strict mode, when the schema does not declare `extra`.
    DroppedUnknownKey,
    /// The argument deltas built `{"a": 1}` and the stream's final text for
    /// the call (`response.function_call_arguments.done`,
    /// `response.output_item.done`) says `{"a": 2}`: the final text wins,
    /// and the offset is the first byte where the two differ.
    FinalText,
}

impl ToolFixKind {
    /// The stable snake_case name (an engine repair keeps its own name).
    pub fn name(self) -> &'static str {
        match self {
            ToolFixKind::Repair(kind) => kind.name(),
            ToolFixKind::EmptyArguments => "empty_arguments",
            ToolFixKind::WrappedValue => "wrapped_value",
            ToolFixKind::ParsedCommandLine => "parsed_command_line",
            ToolFixKind::UnwrappedString => "unwrapped_string",
            ToolFixKind::StraightenedQuote => "straightened_quote",
            ToolFixKind::CoercedNumber => "coerced_number",
            ToolFixKind::CoercedBoolean => "coerced_boolean",
            ToolFixKind::CoercedString => "coerced_string",
            ToolFixKind::WrappedInArray => "wrapped_in_array",
            ToolFixKind::UnwrappedObject => "unwrapped_object",
            ToolFixKind::DroppedUnknownKey => "dropped_unknown_key",
            ToolFixKind::FinalText => "final_text",
        }
    }
}

display_by_name!(ToolFixKind);

/// What to do with keys the schema does not declare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum SchemaMode {
    /// Keep them (the default): the caller's validator decides.
    #[default]
    Lenient,
    /// Drop them, each a [`ToolFixKind::DroppedUnknownKey`], where the schema
    /// declares `properties` (or `patternProperties`) and does not allow other
    /// keys explicitly (`additionalProperties: true` or a schema).
    Strict,
}

/// Options for [`normalize_tool_args_with`] and [`ToolRepairer`].
///
/// ```
/// use argmend::{normalize_tool_args_with, SchemaMode, ToolMap, ToolOptions};
/// let options = ToolOptions::default()
///     .tools(ToolMap::default().with_tool("fetch_url", "url"))
///     .mode(SchemaMode::Strict);
/// let normalized = normalize_tool_args_with("fetch_url", "https://example.com", &options);
/// assert_eq!(normalized.text(), r#"{"url":"https://example.com"}"#);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolOptions {
    tools: ToolMap,
    schema: Option<Value>,
    mode: SchemaMode,
    repair: Options,
}

impl ToolOptions {
    /// The tool's JSON Schema: the `parameters` object of an OpenAI tool, or
    /// the `input_schema` of an Anthropic one.
    pub fn schema(mut self, schema: Value) -> Self {
        self.schema = Some(schema);
        self
    }

    setters! {
        /// The tool table (default: [`ToolMap::builtin`]).
        tools(tools): ToolMap;

        /// What to do with undeclared keys (default [`SchemaMode::Lenient`]).
        mode(mode): SchemaMode;

        /// The engine's limits (depth, input size). Tool arguments are one value,
        /// so [`Options::values`] is always `First`.
        repair_options(repair): Options;
    }

    /// The engine's limits in use (see [`ToolOptions::repair_options`]).
    #[cfg(feature = "tools")]
    pub(crate) fn engine_options(&self) -> Options {
        self.repair
    }

    /// These options with no schema and an empty tool table, for arguments
    /// already typed as they were written (the call parser writes the JSON
    /// of an XML or Python call itself): nothing is coerced again.
    pub(crate) fn without_schema(&self) -> ToolOptions {
        ToolOptions {
            tools: ToolMap::empty(),
            schema: None,
            mode: self.mode,
            repair: self.repair,
        }
    }

    /// The tool table in use.
    pub fn tool_map(&self) -> &ToolMap {
        &self.tools
    }

    /// The schema in use, if any.
    pub fn json_schema(&self) -> Option<&Value> {
        self.schema.as_ref()
    }

    /// The options for a call to `tool`: these, with the tool table's schema
    /// for `tool` ([`ToolMap::with_schema`]) when they give none of their own.
    pub(crate) fn for_tool(&self, tool: &str) -> std::borrow::Cow<'_, ToolOptions> {
        match (&self.schema, self.tools.schema(tool)) {
            (None, Some(schema)) => std::borrow::Cow::Owned(self.clone().schema(schema.clone())),
            _ => std::borrow::Cow::Borrowed(self),
        }
    }
}

/// The result of normalizing one tool call's arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Normalized {
    text: String,
    strategy: Option<Strategy>,
    verdict: Verdict,
    fixes: Vec<ToolFix>,
    doubts: Vec<Doubt>,
    reason: Option<String>,
    violations: Vec<Violation>,
}

impl Normalized {
    /// The JSON text; with [`Verdict::NotJson`], the original input untouched.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The text, owned.
    pub fn into_text(self) -> String {
        self.text
    }

    /// Which strategy the input needed; `None` when the verdict is `NotJson`.
    pub fn strategy(&self) -> Option<Strategy> {
        self.strategy
    }

    /// `Valid` (the input came back as it was), `Completed` (only a
    /// truncation was closed), `Repaired`, or `NotJson`.
    pub fn verdict(&self) -> Verdict {
        self.verdict
    }

    /// Every change, engine repairs and tool-level ones, in input order.
    pub fn fixes(&self) -> &[ToolFix] {
        &self.fixes
    }

    /// The engine's doubts about the input (see [`Outcome::doubts`](crate::Outcome::doubts)),
    /// at offsets of the text that was passed in, in input order; empty when
    /// the engine's reading was not used (a plain value, a command line) or
    /// had nothing to doubt. The verdict does not change because of a doubt.
    ///
    /// ```
    /// use argmend::{normalize_tool_args, DoubtKind, Verdict};
    /// // The text after the object holds a quote: did the object end too early?
    /// let normalized = normalize_tool_args("read_file", r#"{"file": "a.go"} note: "done""#);
    /// assert_eq!(normalized.to_value(), Some(serde_json::json!({"file": "a.go"})));
    /// assert_eq!(normalized.verdict(), Verdict::Repaired); // the verdict is the same with or without a doubt
    /// let doubt = normalized.doubts()[0];
    /// assert_eq!((doubt.kind, doubt.offset), (DoubtKind::EarlyClose, 17));
    /// ```
    pub fn doubts(&self) -> &[Doubt] {
        &self.doubts
    }

    /// Why there is no JSON, when the verdict is `NotJson`.
    pub fn reason(&self) -> Option<&str> {
        self.reason.as_deref()
    }

    /// What the schema (if one was given) still rejects after repair. A
    /// best-effort check of the common keywords, for telling the model what
    /// to fix; it does not replace the caller's validator.
    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }

    /// The text parsed into a [`serde_json::Value`], unless the verdict is `NotJson`.
    pub fn to_value(&self) -> Option<Value> {
        match self.verdict {
            Verdict::NotJson => None,
            _ => crate::repair::parse_value(&self.text),
        }
    }

    /// Counts of fixes per kind, with the strategy and verdict: safe to log,
    /// since it holds no content.
    pub fn telemetry(&self) -> Telemetry {
        let mut counts: Vec<(ToolFixKind, usize)> = Vec::new();
        for fix in &self.fixes {
            match counts.iter_mut().find(|(kind, _)| *kind == fix.kind) {
                Some((_, n)) => *n += 1,
                None => counts.push((fix.kind, 1)),
            }
        }
        counts.sort_by_key(|(kind, _)| kind.name());
        Telemetry {
            strategy: self.strategy,
            verdict: self.verdict,
            counts,
        }
    }
}

/// What a normalization did, without any content: the strategy, the verdict
/// and a count of fixes per kind. Its `Display` is one JSON object.
///
/// ```
/// let normalized = argmend::normalize_tool_args("read_file", "{file: 'a.go', line: 3,}");
/// assert_eq!(
///     normalized.telemetry().to_string(),
///     r#"{"strategy":4,"verdict":"repaired","fixes":{"quoted_key":2,"removed_comma":1,"replaced_quotes":1}}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Telemetry {
    strategy: Option<Strategy>,
    verdict: Verdict,
    counts: Vec<(ToolFixKind, usize)>,
}

impl Telemetry {
    /// The strategy (none when not recovered).
    pub fn strategy(&self) -> Option<Strategy> {
        self.strategy
    }

    /// The verdict.
    pub fn verdict(&self) -> Verdict {
        self.verdict
    }

    /// Each kind that occurred and how often, sorted by name.
    pub fn counts(&self) -> &[(ToolFixKind, usize)] {
        &self.counts
    }

    /// How many fixes of `kind` were made.
    pub fn count(&self, kind: ToolFixKind) -> usize {
        self.counts
            .iter()
            .find(|(k, _)| *k == kind)
            .map_or(0, |(_, n)| *n)
    }
}

impl fmt::Display for Telemetry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.strategy {
            Some(strategy) => write!(f, "{{\"strategy\":{}", strategy.number())?,
            None => f.write_str("{\"strategy\":null")?,
        }
        write!(f, ",\"verdict\":\"{}\",\"fixes\":{{", self.verdict.name())?;
        for (i, (kind, n)) in self.counts.iter().enumerate() {
            let comma = if i > 0 { "," } else { "" };
            write!(f, "{comma}\"{}\":{n}", kind.name())?;
        }
        f.write_str("}}")
    }
}

/// Normalize the raw arguments of a call to `tool` with the built-in tool
/// table and no schema.
///
/// ```
/// use argmend::{normalize_tool_args, Strategy, Verdict};
/// let normalized = normalize_tool_args("read_file", "main.go");
/// assert_eq!(normalized.text(), r#"{"file":"main.go"}"#);
/// assert_eq!(normalized.strategy(), Some(Strategy::PlainValue));
///
/// let normalized = normalize_tool_args("@coder", "read --file main.go");
/// assert_eq!(normalized.text(), r#"{"cmd":"read","args":{"file":"main.go"}}"#);
///
/// let normalized = normalize_tool_args("@coder", "read --file 'main.go");
/// assert_eq!(normalized.verdict(), Verdict::NotJson);
/// assert_eq!(normalized.text(), "read --file 'main.go"); // untouched, for the caller's own parser
/// assert!(normalized.reason().unwrap().contains("unbalanced single quote"));
/// ```
pub fn normalize_tool_args(tool: &str, raw: &str) -> Normalized {
    normalize_tool_args_with(tool, raw, &ToolOptions::default())
}

/// Normalize the raw arguments of a call to `tool` with a tool table, a JSON
/// Schema and a [`SchemaMode`].
///
/// ```
/// use argmend::{normalize_tool_args_with, ToolOptions};
/// let schema = serde_json::json!({
///     "type": "object",
///     "properties": {"path": {"type": "string"}, "limit": {"type": "integer", "default": 100}},
///     "required": ["path"]
/// });
/// let options = ToolOptions::default().schema(schema);
/// let normalized = normalize_tool_args_with("list", r#"{"path": 7}"#, &options);
/// // Coerced to the schema's type; the default is left to the tool.
/// assert_eq!(normalized.text(), r#"{"path": "7"}"#);
/// let kinds: Vec<&str> = normalized.fixes().iter().map(|fix| fix.kind.name()).collect();
/// assert_eq!(kinds, ["coerced_string"]);
/// ```
pub fn normalize_tool_args_with(tool: &str, raw: &str, options: &ToolOptions) -> Normalized {
    pipeline::normalize(tool, raw.as_bytes(), &options.for_tool(tool), None)
}
