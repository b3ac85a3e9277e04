//! Running tools: a name → tool table, the envelope normalized first, a
//! workspace, an output cap, a time limit and a cancellation token per
//! call, and a bound on the calls running at once.

use std::collections::HashMap;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use crate::normalize::{Strategy, ToolFix, ToolFixKind, ToolOptions, normalize_tool_args_with};
use crate::repair::{Doubt, Verdict};
use crate::tools::Workspace;
use crate::tools::deadline::{self, CancelToken};

mod tool;
pub use tool::{Access, DiffTool, JsonTool, Tool, ToolError, ToolErrorKind, ToolResult};

/// The default output cap per call, in bytes.
pub const DEFAULT_OUTPUT_CAP: usize = 64 * 1024;
/// The default time limit per call.
pub const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(30);

/// How long a call's answer waits, once its token has expired, for the
/// tool's thread to see it and end: the tools' loops check their token every
/// few microseconds to milliseconds, so the answer comes when the work has
/// stopped; a tool that never checks is answered anyway (its thread keeps
/// its place in the pool until it ends).
const GRACE: Duration = Duration::from_millis(100);

/// What a call that never started is told.
const BEFORE_START: &str = " before it started, while other calls ran; ask again";

/// How often a waiting caller looks at its token (a cancel has no wake-up).
const POLL: Duration = Duration::from_millis(10);

/// Maps tool names to tools and runs calls.
///
/// `@json` and `@diff` are built in; others are added with
/// [`with_tool`](Self::with_tool). The dispatcher is `Sync`: share it
/// between threads and call [`run`](Self::run) from each. Calls that only
/// read run side by side; calls that write the same file wait for each
/// other. Each call runs on a thread of its own under a time limit and a
/// [`CancelToken`] ([`run_with`](Self::run_with)), and its output is capped.
/// At most [`max_running`](Self::max_running) tool threads exist at once,
/// counting those still ending after their answer; a call that cannot get
/// one before its deadline is refused without starting. A tool that fails,
/// panics or runs out of time gives an error result; it never takes the
/// caller down.
///
/// ```
/// use argmend::Dispatcher;
/// use argmend::tools::Workspace;
/// let dir = std::env::temp_dir();
/// let dispatcher = Dispatcher::new(Workspace::new(&dir).unwrap());
/// let result = dispatcher.run("@json", r#"get --text '{"a": [1, 2]}' --path a[1]"#);
/// assert!(result.ok, "{}", result.output);
/// assert_eq!(result.output, "2\n");
/// assert_eq!(result.strategy.map(|s| s.number()), Some(6));
/// ```
pub struct Dispatcher {
    workspace: Arc<Workspace>,
    tools: HashMap<String, Arc<dyn Tool>>,
    options: ToolOptions,
    output_cap: usize,
    time_limit: Duration,
    max_running: usize,
    /// The tool threads alive, from their start to their real end.
    running: Arc<Running>,
}

/// A count of tool threads and the condition a call waits on for one.
#[derive(Default)]
struct Running {
    n: Mutex<usize>,
    ended: Condvar,
}

/// A tool thread's place in the pool, given back when the thread ends.
struct Place(Arc<Running>);

impl Running {
    /// Take a place once fewer than `max` threads run, or `None` once
    /// `token` expires first.
    fn enter(running: &Arc<Running>, max: usize, token: &CancelToken) -> Option<Place> {
        let mut n = running.n.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if *n < max {
                *n += 1;
                return Some(Place(Arc::clone(running)));
            }
            if token.is_expired() {
                return None;
            }
            n = running
                .ended
                .wait_timeout(n, POLL)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut n = self.0.n.lock().unwrap_or_else(PoisonError::into_inner);
        *n = n.saturating_sub(1);
        drop(n);
        self.0.ended.notify_one();
    }
}

/// One per core, 2 to 4: the servers' own worker count.
fn default_max_running() -> usize {
    thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 4))
}

impl fmt::Debug for Dispatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names: Vec<&String> = self.tools.keys().collect();
        names.sort();
        f.debug_struct("Dispatcher")
            .field("workspace", &self.workspace)
            .field("tools", &names)
            .field("output_cap", &self.output_cap)
            .field("time_limit", &self.time_limit)
            .field("max_running", &self.max_running)
            .finish()
    }
}

impl Dispatcher {
    /// A dispatcher with `@json` and `@diff` (also named `json` and `diff`,
    /// as MCP names them), confined to `workspace`.
    pub fn new(workspace: Workspace) -> Self {
        Dispatcher {
            workspace: Arc::new(workspace),
            tools: HashMap::new(),
            options: ToolOptions::default(),
            output_cap: DEFAULT_OUTPUT_CAP,
            time_limit: DEFAULT_TIME_LIMIT,
            max_running: default_max_running(),
            running: Arc::default(),
        }
        .with_tool("@json", JsonTool)
        .with_tool("@diff", DiffTool)
        // The names MCP gives them, so a call written either way runs.
        .with_tool("json", JsonTool)
        .with_tool("diff", DiffTool)
    }

    /// Register `tool` under `name` (replacing one of the same name).
    pub fn with_tool(mut self, name: &str, tool: impl Tool) -> Self {
        self.tools.insert(name.to_owned(), Arc::new(tool));
        self
    }

    setters! {
        /// Normalize arguments with these options (a tool table, a schema).
        with_options(options): ToolOptions;

        /// Cap each call's output at this many bytes (default [`DEFAULT_OUTPUT_CAP`]).
        output_cap(output_cap): usize;

        /// Give each call at most this long (default [`DEFAULT_TIME_LIMIT`]).
        time_limit(time_limit): Duration;

        /// Run at most this many tool threads at once (default: one per
        /// core, 2 to 4), counting those still ending after an "out of time"
        /// answer; more calls wait, each until its deadline.
        max_running(max_running): usize;
    }

    /// The workspace every path is confined to.
    pub fn workspace(&self) -> &Workspace {
        &self.workspace
    }

    /// Whether a tool is registered under `name`.
    pub fn has_tool(&self, name: &str) -> bool {
        self.tools.contains_key(name)
    }

    /// The names of the registered tools, sorted, so every message that
    /// lists them lists them in one order.
    ///
    /// ```
    /// use argmend::Dispatcher;
    /// use argmend::tools::Workspace;
    /// let dispatcher = Dispatcher::new(Workspace::new(std::env::temp_dir()).unwrap());
    /// assert_eq!(dispatcher.tool_names(), ["@diff", "@json", "diff", "json"]);
    /// ```
    pub fn tool_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.tools.keys().map(String::as_str).collect();
        names.sort_unstable();
        names
    }

    /// Run a call to `name` with raw arguments (any text a model wrote:
    /// JSON, broken JSON, a command line); they are normalized first.
    pub fn run(&self, name: &str, raw_args: &str) -> ToolResult {
        self.run_with(name, raw_args, &CancelToken::new())
    }

    /// [`run`](Self::run) under `token`: the call ends when the token is
    /// cancelled or its deadline passes, whichever comes before the time
    /// limit (counted from now). A token that has expired already, or that
    /// expires while the call waits for a place to run, is answered "out of
    /// time" without the tool starting.
    ///
    /// ```
    /// use argmend::tools::Workspace;
    /// use argmend::{CancelToken, Dispatcher};
    /// let dispatcher = Dispatcher::new(Workspace::new(std::env::temp_dir()).unwrap());
    /// let token = CancelToken::new();
    /// token.cancel(); // e.g. the client withdrew the call
    /// let result = dispatcher.run_with("@json", r#"get --text '{"a": 1}' --path a"#, &token);
    /// assert!(!result.ok && result.output.contains("cancelled"), "{}", result.output);
    /// ```
    pub fn run_with(&self, name: &str, raw_args: &str, token: &CancelToken) -> ToolResult {
        // Work queued past its deadline is refused before even its
        // arguments are read.
        if token.is_expired() {
            let error = self.stopped(name, token, BEFORE_START);
            return self.error(error, None, Vec::new(), Vec::new());
        }
        let Some(tool) = self.tools.get(name) else {
            let names = self.tool_names().join(", ");
            return self.error(
                ToolError::new(
                    ToolErrorKind::UnknownTool,
                    format!("unknown tool `{name}`: the tools are {names}"),
                ),
                None,
                Vec::new(),
                Vec::new(),
            );
        };
        let normalized = normalize_tool_args_with(name, raw_args, &self.options);
        let strategy = normalized.strategy();
        let fixes = normalized.fixes().to_vec();
        let mut doubts = normalized.doubts().to_vec();
        // Arguments that are not JSON are answered with the reason and no
        // strategy (none found JSON); ones that are JSON but no value, with
        // the strategy that read them. Either way in one message.
        let read = if normalized.verdict() == Verdict::NotJson {
            let reason = normalized.reason().unwrap_or("no JSON found");
            Err((format!(": {reason}"), None))
        } else {
            normalized.to_value().ok_or((String::new(), strategy))
        };
        let mut args = match read {
            Ok(args) => args,
            Err((reason, strategy)) => {
                let message = format!("the arguments of `{name}` could not be read{reason}");
                let error = ToolError::new(ToolErrorKind::InvalidArguments, message);
                return self.error(error, strategy, fixes, doubts);
            }
        };
        let mut fixes = fixes;
        if self.options.tool_map().takes_subcommands(name) {
            self.mend_envelope(name, raw_args, &mut args, &mut fixes, &mut doubts);
        }
        match self.execute(name, Arc::clone(tool), args, token) {
            Ok(output) => ToolResult {
                ok: true,
                output: cap(output, self.output_cap),
                strategy,
                fixes,
                doubts,
                error: None,
            },
            Err(error) => self.error(error, strategy, fixes, doubts),
        }
    }

    /// Run a call whose arguments are already a JSON value.
    pub fn run_value(&self, name: &str, args: &Value) -> ToolResult {
        self.run_value_with(name, args, &CancelToken::new())
    }

    /// [`run_value`](Self::run_value) under `token` (see [`run_with`](Self::run_with)).
    pub fn run_value_with(&self, name: &str, args: &Value, token: &CancelToken) -> ToolResult {
        match args {
            Value::String(text) => self.run_with(name, text, token),
            other => self.run_with(name, &other.to_string(), token),
        }
    }

    /// A subcommand tool's envelope whose `args` is a string (broken JSON, or
    /// a command line such as `--file a.json --path data`), or whose `cmd`
    /// is a whole command line (`get --file a.json --path data`), is read
    /// again so the tool gets `{"cmd": VERB, "args": {…}}`. Clients that
    /// build the envelope themselves (an MCP host, a `serve` caller) pass
    /// what the model wrote for `args` as a string when it was not JSON.
    fn mend_envelope(
        &self,
        name: &str,
        raw: &str,
        args: &mut Value,
        fixes: &mut Vec<ToolFix>,
        doubts: &mut Vec<Doubt>,
    ) {
        let Value::Object(envelope) = args else {
            return;
        };
        let Some(Value::String(cmd)) = envelope.get("cmd") else {
            return;
        };
        let inner = match envelope.get("args") {
            Some(Value::String(inner)) => inner.trim(),
            None | Some(Value::Null) if cmd.trim().contains(char::is_whitespace) => "",
            _ => return,
        };
        let at = |key: &str| top_level_key(raw, key).unwrap_or(0);
        if inner.starts_with('{') {
            // The caller's limits hold for the inner text too.
            let outcome =
                crate::repair::repair_with(inner.as_bytes(), self.options.engine_options());
            let Ok(outcome) = outcome else { return };
            if let Some(value @ Value::Object(_)) = outcome.to_value() {
                fixes.push(ToolFix {
                    kind: ToolFixKind::UnwrappedString,
                    offset: at("args"),
                });
                // The repairs inside the text (a quoted key, a trailing
                // comma…) are reported too. Its offsets are not the call's:
                // like the fix, each repair and doubt points at the `args`
                // member that held the text.
                fixes.extend(outcome.fixes().iter().map(|fix| ToolFix {
                    kind: ToolFixKind::Repair(fix.kind),
                    offset: at("args"),
                }));
                doubts.extend(outcome.doubts().iter().map(|doubt| Doubt {
                    kind: doubt.kind,
                    offset: at("args"),
                }));
                doubts.sort_by_key(|doubt| doubt.offset);
                envelope.insert("args".to_owned(), value);
            }
            return;
        }
        let line = format!("{} {inner}", cmd.trim());
        let reread = normalize_tool_args_with(name, &line, &self.options);
        if let Some(Value::Object(mut mended)) = reread.to_value()
            && mended.get("cmd").is_some_and(Value::is_string)
        {
            if !mended.contains_key("args") {
                mended.insert("args".to_owned(), Value::Object(Map::new()));
            }
            fixes.push(ToolFix {
                kind: ToolFixKind::ParsedCommandLine,
                offset: at(if inner.is_empty() { "cmd" } else { "args" }),
            });
            *envelope = mended;
        }
    }

    fn error(
        &self,
        error: ToolError,
        strategy: Option<Strategy>,
        fixes: Vec<ToolFix>,
        doubts: Vec<Doubt>,
    ) -> ToolResult {
        ToolResult {
            ok: false,
            error: Some(error.kind),
            output: cap(error.message, self.output_cap),
            strategy,
            fixes,
            doubts,
        }
    }

    /// Why a call whose token expired got no answer: cancelled, or out of
    /// time (`when` says at which stage, and what to do).
    fn stopped(&self, name: &str, token: &CancelToken, when: &str) -> ToolError {
        ToolError::new(
            ToolErrorKind::Failed,
            if token.is_cancelled() {
                format!("`{name}` was cancelled")
            } else {
                format!(
                    "`{name}` ran out of time after {} ms{when}",
                    self.time_limit.as_millis()
                )
            },
        )
    }

    fn execute(
        &self,
        name: &str,
        tool: Arc<dyn Tool>,
        args: Value,
        token: &CancelToken,
    ) -> Result<String, ToolError> {
        let failed = |message: String| ToolError::new(ToolErrorKind::Failed, message);
        let token = token.child(Instant::now().checked_add(self.time_limit));
        let out_of_time = |token: &CancelToken, when: &str| self.stopped(name, token, when);
        // Work queued past its deadline is refused without starting.
        if token.is_expired() {
            return Err(out_of_time(&token, BEFORE_START));
        }
        let Some(place) = Running::enter(&self.running, self.max_running.max(1), &token) else {
            return Err(out_of_time(&token, BEFORE_START));
        };
        let access = tool.access(&args);
        let workspace = Arc::clone(&self.workspace);
        let (send, receive) = mpsc::channel();
        let thread_token = token.clone();
        let waited = out_of_time(
            &token,
            " while another write of the same file ran; ask again",
        )
        .message;
        let spawned = thread::Builder::new()
            .name(format!("argmend-tool-{name}"))
            .spawn(move || {
                // The place is given back when this thread ends, not when
                // its caller stops waiting: timed-out work cannot pile up.
                let _place = place;
                // The tool's long loops stop once the token expires; so does
                // the path walk of a write's lock, which runs here, under
                // the deadline (a 2 MB path took seconds before it).
                let _scope = deadline::scope_token(Some(thread_token.clone()));
                let result = catch_unwind(AssertUnwindSafe(|| {
                    // The lock is held on the tool's thread, so a write that
                    // runs out of time still keeps its file until it ends.
                    let _lock = match access {
                        Access::Read => None,
                        Access::Write(file) => {
                            let key = workspace
                                .resolve(&file)
                                .map_err(|error| ToolError::from(error.to_string()))?;
                            match workspace.lock_until(vec![key], &thread_token) {
                                Some(lock) => Some(lock),
                                None => return Err(ToolError::new(ToolErrorKind::Failed, waited)),
                            }
                        }
                    };
                    tool.run(&workspace, &args)
                }));
                // The caller may have stopped waiting (time limit).
                let _ = send.send(result);
            });
        if let Err(error) = spawned {
            return Err(failed(format!("`{name}` could not start: {error}")));
        }
        // Wait for the answer; once the token has expired, a little longer,
        // so the answer comes when the work has stopped.
        let mut expired_at: Option<Instant> = None;
        let received = loop {
            let wait = match expired_at {
                Some(at) => GRACE.saturating_sub(at.elapsed()),
                None => token.deadline().map_or(POLL, |d| {
                    d.saturating_duration_since(Instant::now()).min(POLL)
                }),
            };
            match receive.recv_timeout(wait) {
                Ok(result) => break Some(result),
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(failed(format!("`{name}` failed unexpectedly")));
                }
                Err(mpsc::RecvTimeoutError::Timeout) => match expired_at {
                    Some(_) => break None,
                    None if token.is_expired() => expired_at = Some(Instant::now()),
                    None => {}
                },
            }
        };
        match received {
            Some(Ok(result)) if !token.is_cancelled() => result,
            Some(Ok(_)) | None => Err(out_of_time(&token, "; ask for less")),
            Some(Err(_)) => Err(failed(format!(
                "`{name}` failed unexpectedly (it panicked)"
            ))),
        }
    }
}

/// Where the key `"key"` of the outermost object of `raw` (a call's
/// arguments as the model wrote them, maybe broken) starts: strings are
/// stepped over whole, so a `"args"` inside a string value or a nested
/// object is not taken for it.
fn top_level_key(raw: &str, key: &str) -> Option<usize> {
    let bytes = raw.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            quote @ (b'"' | b'\'') => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != quote {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                if depth == 1 && raw.get(start + 1..i.min(raw.len())) == Some(key) {
                    return Some(start);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Cut `output` at `limit` bytes (on a character boundary) with a note.
fn cap(mut output: String, limit: usize) -> String {
    if output.len() <= limit {
        return output;
    }
    let total = output.len();
    let mut cut = limit;
    while !output.is_char_boundary(cut) {
        cut -= 1;
    }
    output.truncate(cut);
    output.push_str(&format!(
        "\n… (output cut at {limit} of {total} bytes; ask for less)\n"
    ));
    output
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_envelope_key_is_found_at_the_top_level_only() {
        let raw = r#"{"cmd": "say \"args\"", "x": {"args": 1}, "args": "--file a"}"#;
        assert_eq!(top_level_key(raw, "args"), raw.rfind("\"args\""));
        assert_eq!(top_level_key(raw, "cmd"), Some(1));
        assert_eq!(top_level_key("{'args': 'x'}", "args"), Some(1));
        assert_eq!(top_level_key(r#"{"a": "b"}"#, "args"), None);
    }
}
