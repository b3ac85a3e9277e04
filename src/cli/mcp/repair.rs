//! The MCP `repair` tool: mend a JSON text, with the tool name (and a
//! schema) optional, within the server's output cap and time limit.
//!
//! Why it checks its own token: `json` and `diff` run through the
//! dispatcher, which sets the request's token on the tool's thread;
//! `repair` calls the engine directly. A worker of the server's pool stays
//! taken until the work really ends, and the call is answered then, so the
//! text is fed to the engine a chunk at a time and the token (its deadline,
//! the client's cancel) is read between chunks: the work stops within one
//! chunk (1 MiB, a few milliseconds) of it. What the engine does at the end of
//! input (closing what is open, the tool-level rules) is one pass over what
//! it has, bounded by the line limit, and is not cut.

use std::time::Duration;

use argmend::{
    CancelToken, Options, Repairer, SchemaMode, ToolMap, ToolOptions, ToolRepairer, Verdict, repair,
};
use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use serde_json::{Map, Value, json};

use crate::cli::shared::log::doubt_value;
use crate::cli::shared::runtime::repairs_json;

/// How much text the engine takes between two looks at the clock.
const CHUNK: usize = 1 << 20;

/// The limits `repair` obeys like the other tools.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Caps {
    pub(crate) max_output: usize,
    /// `json` and `diff` get it from the dispatcher; `repair` here.
    pub(crate) time_limit: Duration,
}

impl Caps {
    /// What a call that ran out of time is told.
    pub(crate) fn timeout_message(&self) -> String {
        format!(
            "the call took longer than the server's --timeout-ms of {} ms",
            self.time_limit.as_millis()
        )
    }
}

/// An answer that is a refusal, with `reason` in the structured content.
pub(crate) fn refused(message: String) -> CallToolResult {
    let mut answer = CallToolResult::error(vec![ContentBlock::text(message.clone())]);
    answer.structured_content = Some(json!({"verdict": "refused", "reason": message}));
    answer
}

/// `repair`: mend `text` (with `tool` and `schema`, as its arguments),
/// giving up once `token` has expired.
pub(crate) fn repair_call(
    mut arguments: JsonObject,
    caps: Caps,
    token: &CancelToken,
) -> CallToolResult {
    let text = match take_text(&mut arguments) {
        Ok(text) => text,
        Err(message) => return refused(message),
    };
    let tool = match arguments.remove("tool") {
        Some(Value::String(tool)) => Some(tool),
        None | Some(Value::Null) => None,
        Some(_) => return usage("`tool` must be a string (a tool name such as write_file)"),
    };
    let schema = match arguments.remove("schema") {
        Some(schema @ Value::Object(_)) => Some(schema),
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => match repair(text.as_bytes()).to_value() {
            Some(schema @ Value::Object(_)) => Some(schema),
            _ => return usage("`schema` must be a JSON Schema object"),
        },
        Some(_) => return usage("`schema` must be a JSON Schema object"),
    };
    if let Some(Err(why)) = schema
        .as_ref()
        .map(crate::cli::shared::schema::check_schema)
    {
        return usage(&format!("`schema` is not a JSON Schema: {why}"));
    }
    let strict = matches!(arguments.remove("strict"), Some(Value::Bool(true)));
    if let Some(key) = arguments.keys().next() {
        return usage(&format!("unknown argument `{key}`"));
    }
    let out_of_time = || refused(caps.timeout_message());
    if tool.is_none() && schema.is_none() {
        let mut repairer = Repairer::new(Options::default());
        for chunk in text.as_bytes().chunks(CHUNK) {
            if token.is_expired() {
                return out_of_time();
            }
            if repairer.feed(chunk).is_err() {
                break; // `finish` reports the limit crossed.
            }
        }
        let outcome = match repairer.finish() {
            Ok(outcome) => outcome,
            Err(error) => {
                let repairs = json!({"fixes": []});
                return repaired(Verdict::NotJson, "", Some(error.to_string()), repairs, caps);
            }
        };
        let fixes: Vec<Value> = outcome
            .fixes()
            .iter()
            .map(|fix| json!({"kind": fix.kind.name(), "offset": fix.offset}))
            .collect();
        let mut repairs = json!({"fixes": fixes});
        if !outcome.doubts().is_empty() {
            let doubts = outcome.doubts().iter().map(doubt_value).collect();
            repairs["doubt"] = Value::Array(doubts);
        }
        return repaired(
            outcome.verdict(),
            outcome.text(),
            outcome.reason().map(str::to_owned),
            repairs,
            caps,
        );
    }
    let mut options = ToolOptions::default().tools(ToolMap::builtin());
    if let Some(schema) = schema {
        options = options.schema(schema);
    }
    if strict {
        options = options.mode(SchemaMode::Strict);
    }
    let mut repairer = ToolRepairer::new(tool.as_deref().unwrap_or(""), options);
    for chunk in text.as_bytes().chunks(CHUNK) {
        if token.is_expired() {
            return out_of_time();
        }
        repairer.feed(chunk);
    }
    drop(text);
    let normalized = repairer.finish();
    let repairs = repairs_json(
        normalized.strategy().map(|s| s.number()),
        normalized.fixes(),
        normalized.doubts(),
    );
    repaired(
        normalized.verdict(),
        normalized.text(),
        normalized.reason().map(str::to_owned),
        repairs,
        caps,
    )
}

/// The text to repair: `text` (or `input`, `json`), a string; a value the
/// client already parsed is written back as JSON.
fn take_text(arguments: &mut JsonObject) -> Result<String, String> {
    for key in ["text", "input", "json"] {
        match arguments.remove(key) {
            Some(Value::String(text)) => return Ok(text),
            Some(Value::Null) | None => continue,
            Some(value) => return Ok(value.to_string()),
        }
    }
    Err("`repair` needs `text`: the JSON to mend, e.g. {\"text\": \"{name: 'Ada',}\"}".to_owned())
}

fn usage(problem: &str) -> CallToolResult {
    let message = format!(
        "`repair`: {problem}; it takes text, tool?, schema?, strict?; e.g. \
         {{\"text\": \"main.go\", \"tool\": \"read_file\"}}"
    );
    let mut answer = CallToolResult::error(vec![ContentBlock::text(message.clone())]);
    answer.structured_content = Some(json!({"verdict": "refused", "reason": message}));
    answer
}

/// The answer of `repair`: the mended text, or why there was none.
fn repaired(
    verdict: Verdict,
    text: &str,
    reason: Option<String>,
    repairs: Value,
    caps: Caps,
) -> CallToolResult {
    let mut structured = Map::new();
    structured.insert("verdict".to_owned(), Value::from(verdict.name()));
    if let Value::Object(repairs) = repairs {
        structured.extend(repairs);
    }
    if verdict == Verdict::NotJson {
        let reason = reason.unwrap_or_else(|| "no JSON found".to_owned());
        structured.insert("reason".to_owned(), Value::from(reason.clone()));
        let mut answer =
            CallToolResult::error(vec![ContentBlock::text(format!("not JSON: {reason}"))]);
        answer.structured_content = Some(Value::Object(structured));
        return answer;
    }
    // `--max-output` holds here as for every tool: the mended JSON is cut
    // short no more than an answer is, so a too-large one is refused, with
    // its size, rather than returned half.
    if text.len() > caps.max_output {
        let message = format!(
            "the mended JSON is {} bytes, over the server's --max-output of {} bytes: mend it \
             with `argmend repair FILE` instead",
            text.len(),
            caps.max_output
        );
        structured.insert("reason".to_owned(), Value::from(message.clone()));
        let mut answer = CallToolResult::error(vec![ContentBlock::text(message)]);
        answer.structured_content = Some(Value::Object(structured));
        return answer;
    }
    // The JSON is the text content; the structured content says how it was
    // mended, without a second copy of it.
    let mut answer = CallToolResult::success(vec![ContentBlock::text(text)]);
    answer.structured_content = Some(Value::Object(structured));
    answer
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    fn arguments(value: Value) -> JsonObject {
        match value {
            Value::Object(map) => map,
            _ => JsonObject::new(),
        }
    }

    /// Issue 26, hole 7: past its deadline, `repair` stops instead of
    /// working on unheard; before it, it mends as ever.
    #[test]
    fn repair_stops_at_its_deadline() {
        let caps = Caps {
            max_output: 1 << 20,
            time_limit: Duration::from_millis(5),
        };
        let text = format!("[{}]", vec!["{a: 'x',}"; 1000].join(","));
        let past = CancelToken::with_deadline(Instant::now());
        for with_tool in [false, true] {
            let mut call = json!({"text": text});
            if with_tool {
                call["tool"] = json!("write_file");
            }
            let late = repair_call(arguments(call.clone()), caps, &past);
            assert_eq!(late.is_error, Some(true));
            let reason = &late.structured_content.as_ref().unwrap()["reason"];
            assert!(
                reason.as_str().unwrap().contains("--timeout-ms of 5 ms"),
                "{reason}"
            );
            let soon = CancelToken::with_deadline(Instant::now() + Duration::from_secs(60));
            let done = repair_call(arguments(call), caps, &soon);
            assert_eq!(done.is_error, Some(false), "{done:?}");
        }
    }
}
