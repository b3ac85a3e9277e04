//! What the MCP gate decides about one client line: forward it to rmcp, or
//! answer it itself (and with which id), or drop it.
//!
//! Why the gate decodes every message with rmcp's own types before
//! forwarding it: a message rmcp cannot decode is answered `-32600` with no
//! id, or not at all. The client then waits for an answer to its id until
//! its own timeout, and the gate, which counts requests until their answer
//! is written, would wait for it for ever. So what rmcp would fail on is
//! answered here, with the id the client sent, and only what rmcp will
//! answer under that id is forwarded.

use rmcp::model::{ClientJsonRpcMessage, RequestId};
use serde_json::{Map, Value};

use crate::cli::shared::runtime::find_id;

/// What the gate does with a line.
#[derive(Debug, PartialEq)]
pub(crate) enum Verdict {
    /// Forward it. `request`: the id rmcp will answer (a request); `cancels`:
    /// the request a `notifications/cancelled` withdraws (rmcp then drops its
    /// answer).
    Forward {
        request: Option<RequestId>,
        cancels: Option<RequestId>,
    },
    /// Answer it here: the id (`null` when none can be read), the JSON-RPC
    /// error code and the message.
    Refuse(Value, i64, String),
    /// A batch: one refusal per element that has an id (JSON-RPC answers a
    /// batch with an array).
    RefuseBatch(Vec<Value>),
    /// Nothing to answer: a blank line, or a malformed notification or
    /// response (neither takes a response).
    Drop,
}

/// Decide what to do with `line` (without its end of line or with it).
pub(crate) fn check(line: &[u8]) -> Verdict {
    let body = line.strip_suffix(b"\n").unwrap_or(line);
    let body = body.strip_suffix(b"\r").unwrap_or(body);
    if body.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Drop;
    }
    let text = match std::str::from_utf8(body) {
        Ok(text) => text,
        Err(bad) => {
            return Verdict::Refuse(
                find_id(body),
                -32700,
                format!(
                    "Parse error: the message is not valid UTF-8 (at byte {})",
                    bad.valid_up_to()
                ),
            );
        }
    };
    let message: Value = match serde_json::from_str(text) {
        Ok(message) => message,
        Err(error) => {
            return Verdict::Refuse(find_id(body), -32700, format!("Parse error: {error}"));
        }
    };
    match message {
        Value::Object(message) => check_message(message),
        Value::Array(batch) if !batch.is_empty() => {
            // MCP dropped JSON-RPC batches (2025-06-18), and rmcp reads none.
            let ids = batch
                .iter()
                .filter_map(|element| match element {
                    Value::Object(element) if !is_response(element) => element.get("id").map(echo),
                    Value::Object(_) => None,
                    _ => Some(Value::Null),
                })
                .collect();
            Verdict::RefuseBatch(ids)
        }
        _ => Verdict::Refuse(
            Value::Null,
            -32600,
            "Invalid Request: a message must be a JSON object {\"jsonrpc\": \"2.0\", \"id\": …, \
             \"method\": …}"
                .to_owned(),
        ),
    }
}

/// The refusal of each element of a batch.
pub(crate) const BATCH_REFUSAL: &str =
    "Invalid Request: batches are not supported (MCP removed them); send one message a line";

/// A message the client sends in answer to one of the server's requests.
fn is_response(message: &Map<String, Value>) -> bool {
    !message.contains_key("method")
        && (message.contains_key("result") || message.contains_key("error"))
}

/// The id as the answer echoes it: a string or a number as sent (`1.5`
/// too: JSON-RPC says ids should not have fractions, not that they are
/// unreadable), anything else as `null`.
fn echo(id: &Value) -> Value {
    match id {
        Value::String(_) | Value::Number(_) => id.clone(),
        _ => Value::Null,
    }
}

fn check_message(mut message: Map<String, Value>) -> Verdict {
    let response = is_response(&message);
    let id = message.get("id").cloned();
    let echoed = id.as_ref().map_or(Value::Null, echo);
    // A request (it has an id) is answered; a notification is not.
    let refuse = |code: i64, text: String| match &id {
        Some(_) => Verdict::Refuse(echoed.clone(), code, text),
        None => Verdict::Drop,
    };
    let request_id = match (&id, response) {
        (Some(raw), false) => match serde_json::from_value::<RequestId>(raw.clone()) {
            Ok(id) => Some(id),
            Err(_) => {
                return refuse(
                    -32600,
                    format!(
                        "Invalid Request: `id` must be a string or an integer (JSON-RPC ids \
                         should not have fractions; rmcp reads none), not {raw}"
                    ),
                );
            }
        },
        _ => None,
    };
    if !response {
        if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return refuse(
                -32600,
                "Invalid Request: `jsonrpc` must be \"2.0\"".to_owned(),
            );
        }
        if !matches!(message.get("method"), Some(Value::String(_))) {
            return refuse(
                -32600,
                "Invalid Request: `method` must be a string, e.g. \"tools/call\"".to_owned(),
            );
        }
    }
    let method = message
        .get("method")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    if method == "tools/call" {
        if let Some(problem) = tool_call_problem(message.get("params")) {
            return refuse(-32602, format!("Invalid params: {problem}"));
        }
        // Checked above; left out of the decoding below, which would copy it.
        if let Some(Value::Object(params)) = message.get_mut("params") {
            params.remove("arguments");
        }
    }
    let cancels = (method == "notifications/cancelled")
        .then(|| message.get("params")?.get("requestId").cloned())
        .flatten()
        .and_then(|id| serde_json::from_value::<RequestId>(id).ok());
    if let Err(error) = serde_json::from_value::<ClientJsonRpcMessage>(Value::Object(message)) {
        if response {
            return Verdict::Drop;
        }
        return refuse(
            -32602,
            format!("Invalid params: the params of `{method}` are not what MCP says ({error})"),
        );
    }
    Verdict::Forward {
        request: request_id,
        cancels,
    }
}

/// What is wrong with the params of a `tools/call`, if anything: rmcp
/// reports a missing `name` as "method not found".
fn tool_call_problem(params: Option<&Value>) -> Option<&'static str> {
    let Some(Value::Object(params)) = params else {
        return Some("`params` must be an object {\"name\": TOOL, \"arguments\": {…}}");
    };
    if !matches!(params.get("name"), Some(Value::String(_))) {
        return Some("`name` must be the tool to call, a string: json, diff or repair");
    }
    if !matches!(
        params.get("arguments"),
        None | Some(Value::Null | Value::Object(_))
    ) {
        return Some(
            "`arguments` must be an object, e.g. {\"cmd\": \"get\", \"args\": {\"file\": \
             \"a.json\", \"path\": \"a\"}}",
        );
    }
    None
}

/// The id of an answer rmcp wrote (a line with `result` or `error`), so
/// the gate knows which request it settles; `None` for anything else.
///
/// rmcp writes `{"jsonrpc":"2.0","id":…,"result"|"error":…}`: the id is
/// read from there without parsing the result, which may be large; any
/// other layout is parsed whole.
pub(crate) fn answered_id(line: &[u8]) -> Option<RequestId> {
    const HEAD: &[u8] = br#"{"jsonrpc":"2.0","id":"#;
    if let Some(rest) = line.strip_prefix(HEAD) {
        let mut values = serde_json::Deserializer::from_slice(rest).into_iter::<Value>();
        if let Some(Ok(id)) = values.next() {
            let after = &rest[values.byte_offset()..];
            if after.starts_with(br#","result":"#) || after.starts_with(br#","error":"#) {
                return serde_json::from_value(id).ok();
            }
        }
    }
    let Ok(Value::Object(mut message)) = serde_json::from_slice::<Value>(line) else {
        return None;
    };
    if message.contains_key("method") {
        return None;
    }
    serde_json::from_value(message.remove("id")?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn code(line: &str) -> Option<(Value, i64)> {
        match check(line.as_bytes()) {
            Verdict::Refuse(id, code, _) => Some((id, code)),
            _ => None,
        }
    }

    #[test]
    fn lines_rmcp_would_drop_are_answered() {
        assert_eq!(code("{not json"), Some((Value::Null, -32700)));
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":4,"method":"x","params":{"a":"\ud800"}}"#),
            Some((json!(4), -32700))
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{}}"#),
            Some((json!(5), -32602))
        );
        assert_eq!(
            code(
                r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"json","arguments":"get"}}"#
            ),
            Some((json!(6), -32602))
        );
        assert_eq!(
            code(
                r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"json","arguments":{}}}"#
            ),
            None
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":8,"method":"tools/list"}"#),
            None
        );
    }

    /// Issue 26, hole 13: a bad shape with a readable id is refused with it.
    #[test]
    fn a_bad_shape_is_refused_with_its_id() {
        for (line, id) in [
            (
                r#"{"jsonrpc":"1.0","id":1,"method":"tools/list"}"#,
                json!(1),
            ),
            (r#"{"jsonrpc":"2.0","id":"a","method":5}"#, json!("a")),
            (r#"{"jsonrpc":"2.0","id":3}"#, json!(3)),
            (
                r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}"#,
                json!(1.5),
            ),
            (
                r#"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":5}"#,
                json!(4),
            ),
        ] {
            let verdict = check(line.as_bytes());
            assert!(
                matches!(&verdict, Verdict::Refuse(got, _, _) if *got == id),
                "{line}: {verdict:?}"
            );
        }
        // A notification is never answered, however malformed.
        assert_eq!(check(br#"{"jsonrpc":"1.0","method":"x"}"#), Verdict::Drop);
        assert_eq!(
            check(
                br#"[{"jsonrpc":"2.0","id":9,"method":"ping"},{"jsonrpc":"2.0","method":"x"},7]"#
            ),
            Verdict::RefuseBatch(vec![json!(9), Value::Null])
        );
    }

    #[test]
    fn forwarded_requests_carry_their_id_and_cancels_theirs() {
        assert_eq!(
            check(br#"{"jsonrpc":"2.0","id":"x","method":"ping"}"#),
            Verdict::Forward {
                request: Some(RequestId::String("x".into())),
                cancels: None
            }
        );
        assert_eq!(
            check(
                br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#
            ),
            Verdict::Forward {
                request: None,
                cancels: Some(RequestId::Number(3))
            }
        );
    }

    #[test]
    fn the_id_of_an_answer_is_read_from_its_head() {
        assert_eq!(
            answered_id(br#"{"jsonrpc":"2.0","id":7,"result":{"content":[]}}"#),
            Some(RequestId::Number(7))
        );
        assert_eq!(
            answered_id(br#"{"jsonrpc":"2.0","id":"q","error":{"code":1}}"#),
            Some(RequestId::String("q".into()))
        );
        assert_eq!(
            answered_id(br#"{"result":{},"id":8,"jsonrpc":"2.0"}"#),
            Some(RequestId::Number(8))
        );
        assert_eq!(
            answered_id(br#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#),
            None
        );
        assert_eq!(
            answered_id(br#"{"jsonrpc":"2.0","method":"notifications/x"}"#),
            None
        );
    }
}
