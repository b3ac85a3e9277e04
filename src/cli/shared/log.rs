//! Fixes and doubts as JSON: the `--fixes` log, batch lines, and the
//! `"repairs"` of `call --events`, `serve` and `mcp`.

use argmend::{Doubt, Fix, ToolFix};
use serde_json::Value;

/// `{"kind":"quoted_key","offset":12}`, as in `--fixes` and batch lines.
pub(crate) fn fix_json(fix: &Fix) -> String {
    // Kind names are snake_case ASCII: nothing to escape.
    format!(
        r#"{{"kind":"{}","offset":{}}}"#,
        fix.kind.name(),
        fix.offset
    )
}

/// `{"kind":"early_close","offset":11,"reason":"…"}`: one doubt of a batch
/// line's `"doubt"`, and of the runtime's `"repairs"` (`call`, `serve`, `mcp`).
pub(crate) fn doubt_value(doubt: &Doubt) -> Value {
    // Written in the order serde_json's sorted map keeps them in too.
    serde_json::json!({"kind": doubt.kind.name(), "offset": doubt.offset, "reason": doubt.reason()})
}

/// `{"doubt":"early_close","offset":11,"reason":"…"}`: a doubt in the
/// `--fixes` log, told apart from a fix (`"kind"`) by its first key.
pub(crate) fn doubt_log_json(doubt: &Doubt) -> String {
    serde_json::json!({"doubt": doubt.kind.name(), "offset": doubt.offset, "reason": doubt.reason()})
        .to_string()
}

/// `{"kind":"wrapped_value","offset":0}`, as in `--fixes` and batch lines.
pub(crate) fn tool_fix_json(fix: &ToolFix) -> String {
    // Kind names are snake_case ASCII: nothing to escape.
    format!(
        r#"{{"kind":"{}","offset":{}}}"#,
        fix.kind.name(),
        fix.offset
    )
}
