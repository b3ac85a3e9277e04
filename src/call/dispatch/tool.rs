//! What a tool is to the dispatcher: the trait, the built-in `@json` and
//! `@diff`, the error a tool answers with and the result the model reads.
//! Kept apart from the dispatcher so a caller writing a tool reads only
//! this, and the pool, deadlines and caps stay in one place.

use std::fmt;

use serde_json::Value;

use crate::normalize::{Strategy, ToolFix};
use crate::repair::Doubt;
use crate::tools::Workspace;

/// What a call does to the workspace, so the dispatcher knows what may run
/// side by side.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Access {
    /// Reads only: runs in parallel with anything.
    Read,
    /// Writes this file (a workspace path): calls writing the same file run
    /// one after the other.
    Write(String),
}

/// Why a tool gave no answer: the message the model reads, and a kind the
/// caller can match (retry an I/O error, count refusals, fix its own bug).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    pub(super) kind: ToolErrorKind,
    pub(super) message: String,
}

/// What kind of failure a [`ToolError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolErrorKind {
    /// The call was understood and refused: the model should ask otherwise
    /// (a key that is not there, a patch that does not match, a path out of
    /// the workspace).
    Refused,
    /// The arguments are missing, unknown or of the wrong type.
    InvalidArguments,
    /// Reading or writing a file failed.
    Io,
    /// The tool ran out of time, or failed unexpectedly (it panicked).
    Failed,
    /// No tool of that name is registered.
    UnknownTool,
}

impl ToolError {
    /// An error of `kind` with the message the model reads.
    pub fn new(kind: ToolErrorKind, message: impl Into<String>) -> Self {
        ToolError {
            kind,
            message: message.into(),
        }
    }

    /// What kind of failure it is.
    pub fn kind(&self) -> ToolErrorKind {
        self.kind
    }

    /// The message the model reads.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ToolError {}

/// A plain message is a refusal: `Err("no such user".into())`.
impl From<String> for ToolError {
    fn from(message: String) -> Self {
        ToolError::new(ToolErrorKind::Refused, message)
    }
}

impl From<&str> for ToolError {
    fn from(message: &str) -> Self {
        ToolError::new(ToolErrorKind::Refused, message)
    }
}

impl From<crate::tools::json::Error> for ToolError {
    fn from(error: crate::tools::json::Error) -> Self {
        use crate::tools::json::ErrorKind as K;
        let kind = match error.kind() {
            K::InvalidArgument | K::InvalidPath | K::InvalidWhere | K::InvalidRegex => {
                ToolErrorKind::InvalidArguments
            }
            K::Io => ToolErrorKind::Io,
            K::TimedOut => ToolErrorKind::Failed,
            _ => ToolErrorKind::Refused,
        };
        ToolError::new(kind, error.to_string())
    }
}

impl From<crate::tools::diff::Error> for ToolError {
    fn from(error: crate::tools::diff::Error) -> Self {
        use crate::tools::diff::ErrorKind as K;
        let kind = match error.kind() {
            K::InvalidArgument => ToolErrorKind::InvalidArguments,
            K::Io => ToolErrorKind::Io,
            K::TimedOut => ToolErrorKind::Failed,
            _ => ToolErrorKind::Refused,
        };
        ToolError::new(kind, error.to_string())
    }
}

/// A tool the dispatcher can run.
///
/// `run` gets the normalized arguments (a JSON value) and returns the text
/// the model sees, or a [`ToolError`] whose message tells it how to do
/// better (a `String` converts into a refusal).
///
/// ```
/// use argmend::tools::Workspace;
/// use argmend::{Dispatcher, Tool, ToolError, ToolErrorKind};
/// use serde_json::{Map, Value};
///
/// struct Echo;
/// impl Tool for Echo {
///     fn run(&self, _workspace: &Workspace, args: &Value) -> Result<String, ToolError> {
///         match args.get("say") {
///             Some(say) => Ok(say.to_string()),
///             None => Err(ToolError::new(ToolErrorKind::InvalidArguments, "`say` is missing")),
///         }
///     }
/// }
/// let workspace = Workspace::new(std::env::temp_dir()).unwrap();
/// let dispatcher = Dispatcher::new(workspace).with_tool("echo", Echo);
/// let result = dispatcher.run("echo", "{say: 'hi',}");
/// assert!(result.ok);
/// assert_eq!(result.output, r#""hi""#);
/// let result = dispatcher.run("echo", "{}");
/// assert_eq!(result.error, Some(ToolErrorKind::InvalidArguments));
/// ```
pub trait Tool: Send + Sync + 'static {
    /// Run one call.
    fn run(&self, workspace: &Workspace, args: &Value) -> Result<String, ToolError>;

    /// What this call does to the workspace; by default it only reads.
    fn access(&self, args: &Value) -> Access {
        let _ = args;
        Access::Read
    }
}

/// `@json`: questions about a JSON or YAML payload (read only).
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonTool;

impl Tool for JsonTool {
    fn run(&self, workspace: &Workspace, args: &Value) -> Result<String, ToolError> {
        Ok(crate::tools::json::call_value(workspace, args)?.to_string())
    }
}

/// `@diff`: diffs, and patches applied only when every context line matches.
#[derive(Debug, Clone, Copy, Default)]
pub struct DiffTool;

impl Tool for DiffTool {
    fn run(&self, workspace: &Workspace, args: &Value) -> Result<String, ToolError> {
        Ok(crate::tools::diff::call_value(workspace, args)?.to_string())
    }

    fn access(&self, args: &Value) -> Access {
        let verb = args.get("cmd").and_then(Value::as_str);
        let inner = args.get("args");
        let writes = inner
            .and_then(|a| a.get("dry_run"))
            .is_some_and(|d| d == &Value::Bool(false));
        match (
            verb,
            inner.and_then(|a| a.get("file")).and_then(Value::as_str),
        ) {
            (Some("apply"), Some(file)) if writes => Access::Write(file.to_owned()),
            _ => Access::Read,
        }
    }
}

/// The result of one call, as the model will see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResult {
    /// Whether the tool answered (`false`: `output` is the error message).
    pub ok: bool,
    /// The answer, or the error, capped at the output limit.
    pub output: String,
    /// The strategy the arguments needed (`None` when they were not JSON).
    pub strategy: Option<Strategy>,
    /// What the normalizer changed in the arguments.
    pub fixes: Vec<ToolFix>,
    /// The choices between readings that the arguments could not settle
    /// (see [`Normalized::doubts`](crate::Normalized::doubts)); the call ran
    /// all the same.
    pub doubts: Vec<Doubt>,
    /// What kind of failure it was (`None` when the tool answered).
    pub error: Option<ToolErrorKind>,
}

impl fmt::Display for ToolResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.output)
    }
}
