//! What several commands share. Nothing here imports a command.

pub(crate) mod failure; // Failure, the exit codes, messages on stderr
pub(crate) mod gone; // the client of `serve`/`mcp` has gone
pub(crate) mod limits; // line size, workers and queue of `serve` and `mcp`
pub(crate) mod log; // fixes and doubts as JSON (the fix log, batch lines, `repairs`)
pub(crate) mod runtime; // RuntimeArgs (the dispatcher of call, serve, mcp), `repairs`, ids
pub(crate) mod schema; // a tool's JSON Schema read and checked (repair --schema, batch, mcp)
pub(crate) mod tool_command; // what `json` and `diff` share: options, messages, exit codes
