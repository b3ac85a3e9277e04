//! Tools an agent calls with a verb and arguments, each answering with the
//! text a model reads.
//!
//! - [`diff`]: what changed between two files, texts, trees or JSON
//!   documents, and a unified patch applied only when every line of context
//!   matches.
//! - [`json`]: one field, the keys at a path, the elements matching a
//!   filter, the shape, validity or a reindent of a JSON or YAML payload,
//!   without reading it whole.
//!
//! Every path a tool is given goes through a [`Workspace`], which keeps it
//! inside one root directory.

pub(crate) mod deadline;
pub mod diff;
mod envelope;
pub mod json;
pub(crate) mod near;
mod unparsed;
mod workspace;

pub use self::deadline::CancelToken;
pub(crate) use self::unparsed::Unparsed;
pub(crate) use self::workspace::{Blame, Located, NodeKind, not_a_file};
pub use self::workspace::{PROTECTED_DIRS, Workspace, WorkspaceError, WorkspaceErrorKind};

/// A name as any tool's output shows it: as it is, or, when it holds a
/// control character (a newline would forge a line of a listing or a
/// message), as a JSON string.
pub(crate) fn shown_name(name: &str) -> std::borrow::Cow<'_, str> {
    if name.chars().any(char::is_control) || name.starts_with('"') {
        std::borrow::Cow::Owned(serde_json::Value::from(name).to_string())
    } else {
        std::borrow::Cow::Borrowed(name)
    }
}
