//! What `call`, `serve` and `mcp` share: the options that make their
//! dispatcher, the `"repairs"` member of an answer, and a request's id read
//! from a line that is not a request.

use std::path::PathBuf;
use std::time::Duration;

use argmend::Dispatcher;
use argmend::tools::Workspace;
use clap::Args;

/// Options shared by `call` and `serve`: where tools may reach, and limits.
#[derive(Debug, Args)]
pub(crate) struct RuntimeArgs {
    /// Every path a tool touches stays inside DIR (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub(crate) workspace: Option<PathBuf>,

    /// Cut each call's output at N bytes.
    #[arg(long, value_name = "N", default_value_t = argmend::DEFAULT_OUTPUT_CAP)]
    pub(crate) max_output: usize,

    /// Give each call at most MS milliseconds.
    #[arg(long, value_name = "MS", default_value_t = argmend::DEFAULT_TIME_LIMIT.as_millis() as u64)]
    pub(crate) timeout_ms: u64,
}

impl RuntimeArgs {
    /// The dispatcher these options describe.
    pub(crate) fn dispatcher(&self) -> Result<Dispatcher, String> {
        let root = self.workspace.clone().unwrap_or_else(|| PathBuf::from("."));
        let workspace = Workspace::new(&root).map_err(|error| error.to_string())?;
        // Desktop MCP clients may start servers in `/`: a workspace there
        // would put every file on the machine in a model's reach.
        if workspace.root().parent().is_none() {
            return Err(format!(
                "refusing `{}` as the workspace: it would let the tools read and patch every \
                 file on the machine; pass --workspace DIR (the project directory)",
                workspace.root().display()
            ));
        }
        Ok(Dispatcher::new(workspace)
            .output_cap(self.max_output)
            .time_limit(Duration::from_millis(self.timeout_ms)))
    }
}

/// `{"strategy": N, "fixes": [{"kind", "offset"}, …]}`, and `"doubt": [{"kind",
/// "offset", "reason"}, …]` when the engine doubted (absent when it did not).
pub(crate) fn repairs_json(
    strategy: Option<u8>,
    fixes: &[argmend::ToolFix],
    doubts: &[argmend::Doubt],
) -> serde_json::Value {
    let fixes: Vec<serde_json::Value> = fixes
        .iter()
        .map(|fix| serde_json::json!({"kind": fix.kind.name(), "offset": fix.offset}))
        .collect();
    let mut repairs = serde_json::json!({"strategy": strategy, "fixes": fixes});
    if let (false, Some(object)) = (doubts.is_empty(), repairs.as_object_mut()) {
        let doubts = doubts.iter().map(super::log::doubt_value).collect();
        object.insert("doubt".to_owned(), serde_json::Value::Array(doubts));
    }
    repairs
}

/// The id of a line that is not a request, when it can be read at all: the
/// repair engine reads broken JSON, so `{"id": 7, "tool": ` still has one.
#[cfg(feature = "mcp")]
pub(crate) fn find_id(bytes: &[u8]) -> serde_json::Value {
    use serde_json::Value;
    let text = String::from_utf8_lossy(bytes);
    match argmend::repair(text.as_bytes()).to_value() {
        Some(Value::Object(mut object)) => match object.remove("id") {
            Some(id @ (Value::Number(_) | Value::String(_))) => id,
            _ => Value::Null,
        },
        _ => Value::Null,
    }
}
