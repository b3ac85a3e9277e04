//! Issue 27: the official SDKs' own recorded streams, from their public test
//! fixtures (`../shared/model_streams/sdk/<format>/<source>-<name>.sse`,
//! kept beside the checkout, not in it: `tests/shared.rs`; the README there
//! says where each comes from). Without that folder these tests are skipped. Each file is replayed through
//! the matching client adapter, and every call's `CallDone` is checked
//! against what the SDK itself accumulates as the call's final arguments,
//! computed here from the events without argmend:
//!
//! - Chat Completions (openai-python's `ChatCompletionStreamState`): per
//!   choice index and tool call index, the `function.arguments` fragments
//!   concatenated, then `json.loads`.
//! - Responses: the `response.output_item.done` item's `arguments`, else the
//!   `response.function_call_arguments.done` event's `arguments`, else the
//!   deltas concatenated.
//! - Anthropic (anthropic-sdk-python's `accumulate_event`): a `tool_use`
//!   block's input is `content_block.input` from `content_block_start` (or
//!   the block itself inside `message_start.message.content`); when
//!   `input_json_delta`s arrive, their `partial_json` concatenated and
//!   parsed replaces it (an empty concatenation keeps the start's input).
//!
//! A call the stream cut must come back with `complete: false`: the
//! Anthropic block being written when `max_tokens` (or
//! `model_context_window_exceeded`) stopped the message, or one left open;
//! a choice's last call when its `finish_reason` is `length`; a Responses
//! item finished `incomplete`, or not finished before
//! `response.incomplete`/`response.failed` or the end; any call in a stream
//! that stops before saying how it ended. Its arguments must extend what
//! the SDK keeps of it: the SDKs parse a cut buffer with jiter's partial
//! mode, which keeps the whole members and drops a cut string, where argmend
//! may keep the cut string too. Every other call must be `complete`, with
//! exactly the SDK's arguments.
//!
//! Only client tool calls are compared: Anthropic `tool_use` blocks and
//! Responses `function_call` items. Server-side calls (`server_tool_use`,
//! `code_execution`, `program`, `tool_search_call`…) are run by the API, not
//! by the caller; the SDK accumulates their input too, but an adapter may or
//! may not report them, so the oracle lists their ids as skipped and a
//! `CallDone` with such an id is neither required nor an error.
//!
//! Some files are several recorded responses one after the other (a
//! multi-step run recorded into one fixture): each response is replayed
//! through its own adapter, as a client would, and one more test feeds the
//! whole file to one adapter, as vercel/ai's own tests do.
//!
//! Each stream is replayed twice: as recorded, and with every argument
//! fragment split into single characters.

use std::path::PathBuf;

use argmend::{AnthropicStream, ClientEvent, OpenAiChatStream, OpenAiResponsesStream, ToolOptions};
use serde_json::{Value, json};

use oracle::{Oracle, extends, oracle_anthropic, oracle_chat, oracle_of, partial_json};

mod oracle;

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Format {
    Chat,
    Responses,
    Anthropic,
}

impl Format {
    pub(crate) fn of(path: &str) -> Format {
        match path.split('/').next() {
            Some("openai_chat") => Format::Chat,
            Some("openai_responses") => Format::Responses,
            Some("anthropic") => Format::Anthropic,
            _ => panic!("{path}: not under openai_chat/, openai_responses/ or anthropic/"),
        }
    }
}

/// The SDKs' recordings, `../shared/model_streams/sdk`; `None` when the
/// folder is missing (the test is skipped and says so).
pub(crate) fn dir() -> Option<PathBuf> {
    crate::shared::dir("model_streams/sdk", "the SDKs' recorded streams")
}

// ---------------------------------------------------------------------------
// Server-sent events

/// The events of an SSE body: the `data:` lines of each event joined with
/// newlines and parsed as JSON. `event:`, `id:` and comment lines are
/// skipped, and so are an empty data and `[DONE]`.
pub(crate) fn sse_events(file: &str, text: &str) -> Vec<Value> {
    let mut events = Vec::new();
    let mut data: Vec<&str> = Vec::new();
    let mut flush = |data: &mut Vec<&str>| {
        let joined = data.join("\n");
        data.clear();
        let joined = joined.trim();
        if joined.is_empty() || joined == "[DONE]" {
            return;
        }
        match serde_json::from_str(joined) {
            Ok(value) => events.push(value),
            Err(err) => panic!("{file}: an event is not JSON ({err}): {joined}"),
        }
    };
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            flush(&mut data);
        } else if let Some(rest) = line.strip_prefix("data:") {
            data.push(rest.strip_prefix(' ').unwrap_or(rest));
        }
        // `event:`, `id:`, `retry:` and `:` comments carry no JSON.
    }
    flush(&mut data);
    events
}

fn kind(event: &Value) -> &str {
    event.get("type").and_then(Value::as_str).unwrap_or("")
}

/// The recorded responses of a file: a new one at each `message_start`
/// (Anthropic) or `response.created` (Responses); a Chat file is one.
pub(crate) fn responses(format: Format, events: &[Value]) -> Vec<Vec<Value>> {
    let starts = |event: &Value| match format {
        Format::Chat => false,
        Format::Responses => kind(event) == "response.created",
        Format::Anthropic => kind(event) == "message_start",
    };
    let mut out: Vec<Vec<Value>> = Vec::new();
    for event in events {
        if out.is_empty() || (starts(event) && !out.last().unwrap().is_empty()) {
            out.push(Vec::new());
        }
        out.last_mut().unwrap().push(event.clone());
    }
    out
}

// ---------------------------------------------------------------------------
// The adapters

pub(crate) fn replay(format: Format, events: &[Value]) -> Vec<ClientEvent> {
    let mut out = Vec::new();
    match format {
        Format::Chat => {
            let mut stream = OpenAiChatStream::new(ToolOptions::default());
            for event in events {
                out.extend(stream.push(event));
            }
            out.extend(stream.finish());
        }
        Format::Responses => {
            let mut stream = OpenAiResponsesStream::new(ToolOptions::default());
            for event in events {
                out.extend(stream.push(event));
            }
            out.extend(stream.finish());
        }
        Format::Anthropic => {
            let mut stream = AnthropicStream::new(ToolOptions::default());
            for event in events {
                out.extend(stream.push(event));
            }
            out.extend(stream.finish());
        }
    }
    out
}

/// The same events with every argument fragment (Chat `function.arguments`,
/// Responses `delta`, Anthropic `partial_json`) split into single
/// characters: the first piece keeps the event's other fields, the others
/// carry only what routes them to their call. A Chat chunk's
/// `finish_reason` moves to a piece after the last character.
fn one_char_at_a_time(format: Format, events: &[Value]) -> Vec<Value> {
    let mut out = Vec::new();
    for event in events {
        match format {
            Format::Chat => {
                let mut first = event.clone();
                let mut rest: Vec<Value> = Vec::new();
                let mut finishes: Vec<Value> = Vec::new();
                let top = |choice: Value| {
                    let mut piece = event.clone();
                    piece["choices"] = json!([choice]);
                    piece.as_object_mut().unwrap().remove("usage");
                    piece
                };
                let mut split = false;
                if let Some(choices) = first.get_mut("choices").and_then(Value::as_array_mut) {
                    for choice in choices {
                        let n = choice.get("index").cloned().unwrap_or(json!(0));
                        let mut split_here = false;
                        if let Some(calls) = choice
                            .pointer_mut("/delta/tool_calls")
                            .and_then(Value::as_array_mut)
                        {
                            for call in calls {
                                let j = call.get("index").cloned().unwrap_or(json!(0));
                                let Some(Value::String(args)) =
                                    call.pointer_mut("/function/arguments")
                                else {
                                    continue;
                                };
                                let chars: Vec<char> = args.chars().collect();
                                if chars.len() < 2 {
                                    continue;
                                }
                                *args = chars[0].to_string();
                                split_here = true;
                                for c in &chars[1..] {
                                    rest.push(top(json!({"index": n, "delta": {"tool_calls": [
                                        {"index": j, "function": {"arguments": c.to_string()}}
                                    ]}})));
                                }
                            }
                        }
                        if split_here
                            && let Some(reason) = choice.get_mut("finish_reason")
                            && !reason.is_null()
                        {
                            finishes.push(top(
                                json!({"index": n, "delta": {}, "finish_reason": reason.take()}),
                            ));
                        }
                        split |= split_here;
                    }
                }
                if !split {
                    out.push(event.clone());
                    continue;
                }
                out.push(first);
                out.extend(rest);
                out.extend(finishes);
            }
            Format::Responses => match event.get("delta").and_then(Value::as_str) {
                Some(delta)
                    if kind(event) == "response.function_call_arguments.delta"
                        && delta.chars().count() > 1 =>
                {
                    for (i, c) in delta.chars().enumerate() {
                        let mut piece = if i == 0 {
                            event.clone()
                        } else {
                            let mut piece =
                                json!({"type": "response.function_call_arguments.delta"});
                            for key in ["item_id", "output_index"] {
                                if let Some(value) = event.get(key) {
                                    piece[key] = value.clone();
                                }
                            }
                            piece
                        };
                        piece["delta"] = Value::String(c.to_string());
                        out.push(piece);
                    }
                }
                _ => out.push(event.clone()),
            },
            Format::Anthropic => match event.pointer("/delta/partial_json").and_then(Value::as_str)
            {
                Some(fragment) if fragment.chars().count() > 1 => {
                    for (i, c) in fragment.chars().enumerate() {
                        let mut piece = if i == 0 {
                            event.clone()
                        } else {
                            json!({"type": "content_block_delta", "index": event["index"],
                                "delta": {"type": "input_json_delta"}})
                        };
                        piece["delta"]["partial_json"] = Value::String(c.to_string());
                        out.push(piece);
                    }
                }
                _ => out.push(event.clone()),
            },
        }
    }
    out
}

// ---------------------------------------------------------------------------
// The check

struct Done {
    call: usize,
    id: Option<String>,
    args: Value,
    complete: bool,
}

/// Each expected call against the adapter's `CallDone`s: matched by id when
/// the call has one, else by its place among the calls without one; in the
/// same order; no call left over but the skipped server-side ones.
fn compare(what: &str, oracle: &Oracle, events: &[ClientEvent]) -> Vec<String> {
    let mut problems = Vec::new();
    let done: Vec<Done> = events
        .iter()
        .filter_map(|event| match event {
            ClientEvent::CallDone { call, id, end } => Some(Done {
                call: *call,
                id: id.clone().filter(|id| !id.is_empty()),
                args: end.args.clone(),
                complete: end.complete,
            }),
            _ => None,
        })
        .collect();
    // A CallDone whose id is another expected call's, or a skipped one's,
    // is no candidate for a call without id.
    let spoken_for = |id: &Option<String>| {
        id.as_ref().is_some_and(|id| {
            oracle.skipped.contains(id) || oracle.calls.iter().any(|c| c.id.as_ref() == Some(id))
        })
    };
    let mut used = vec![false; done.len()];
    let mut last_call: Option<usize> = None;
    for (n, want) in oracle.calls.iter().enumerate() {
        let label = format!(
            "{what}: call {n} ({} {})",
            want.name,
            want.id.as_deref().unwrap_or("without id")
        );
        let found = match &want.id {
            Some(id) => (0..done.len()).find(|&k| !used[k] && done[k].id.as_deref() == Some(id)),
            None => (0..done.len()).find(|&k| !used[k] && !spoken_for(&done[k].id)),
        };
        let Some(k) = found else {
            problems.push(format!("{label}: no CallDone; expected args {}", want.args));
            continue;
        };
        used[k] = true;
        let got = &done[k];
        if last_call.is_some_and(|last| got.call < last) {
            problems.push(format!(
                "{label}: reported as call {} after call {}",
                got.call,
                last_call.unwrap()
            ));
        }
        last_call = Some(got.call);
        if want.cut {
            if !extends(&got.args, &want.args) {
                problems.push(format!(
                    "{label}: cut call; args should extend the SDK's partial value\n  expected ⊑ {}\n  got       {}",
                    want.args, got.args
                ));
            }
            if got.complete {
                problems.push(format!("{label}: the stream cut it, but complete is true"));
            }
        } else {
            if got.args != want.args {
                problems.push(format!(
                    "{label}: args differ\n  expected {}\n  got      {}",
                    want.args, got.args
                ));
            }
            if !got.complete {
                problems.push(format!("{label}: a whole call, but complete is false"));
            }
        }
    }
    for (k, got) in done.iter().enumerate() {
        let skipped = got
            .id
            .as_ref()
            .is_some_and(|id| oracle.skipped.contains(id));
        if !used[k] && !skipped {
            problems.push(format!(
                "{what}: an unexpected CallDone (call {}, id {:?}): args {}",
                got.call, got.id, got.args
            ));
        }
    }
    problems
}

fn check_file(path: &str) {
    let Some(dir) = dir() else {
        return;
    };
    let format = Format::of(path);
    let bytes = std::fs::read(dir.join(path)).unwrap_or_else(|err| panic!("{path}: {err}"));
    let text = String::from_utf8(bytes).unwrap_or_else(|err| panic!("{path}: not UTF-8: {err}"));
    let events = sse_events(path, &text);
    assert!(!events.is_empty(), "{path}: no events");
    let mut problems = Vec::new();
    let mut calls = 0;
    for (r, response) in responses(format, &events).iter().enumerate() {
        let oracle = oracle_of(format, path, response);
        calls += oracle.calls.len();
        let what = format!("{path} (response {r})");
        problems.extend(compare(&what, &oracle, &replay(format, response)));
        let fine = one_char_at_a_time(format, response);
        // The split stream says the same to the SDK: the splitting is sound.
        let split = oracle_of(format, path, &fine);
        assert_eq!(
            (split
                .calls
                .iter()
                .map(|c| (&c.id, &c.args, c.cut))
                .collect::<Vec<_>>()),
            (oracle
                .calls
                .iter()
                .map(|c| (&c.id, &c.args, c.cut))
                .collect::<Vec<_>>()),
            "{what}: the SDK reads the stream split into characters differently"
        );
        problems.extend(compare(
            &format!("{what}, one character at a time"),
            &oracle,
            &replay(format, &fine),
        ));
    }
    assert!(calls > 0, "{path}: no client tool call in the stream");
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

macro_rules! streams {
    ($($test:ident => $path:literal,)*) => {
        $(
            #[test]
            fn $test() {
                check_file($path);
            }
        )*

        const FILES: &[&str] = &[$($path),*];
    };
}

streams! {
    chat_openai_python_allows_non_strict_tools => "openai_chat/openai-python-allows_non_strict_tools.sse",
    chat_openai_python_parse_multiple_pydantic_tools => "openai_chat/openai-python-parse_multiple_pydantic_tools.sse",
    chat_openai_python_parse_pydantic_tool => "openai_chat/openai-python-parse_pydantic_tool.sse",
    chat_openai_python_parse_strict_tools => "openai_chat/openai-python-parse_strict_tools.sse",
    chat_vercel_ai_alibaba_tool_call => "openai_chat/vercel-ai-alibaba-tool-call.sse",
    chat_vercel_ai_deepseek_tool_call => "openai_chat/vercel-ai-deepseek-tool-call.sse",
    chat_vercel_ai_groq_tool_call => "openai_chat/vercel-ai-groq-tool-call.sse",
    chat_vercel_ai_mistral_incremental_tool_call => "openai_chat/vercel-ai-mistral-incremental-tool-call.sse",
    responses_vercel_ai_azure_tool_call => "openai_responses/vercel-ai-azure-tool-call.1.sse",
    responses_vercel_ai_lmstudio_tool_call => "openai_responses/vercel-ai-lmstudio-tool-call.1.sse",
    responses_vercel_ai_openai_reasoning_encrypted_content => "openai_responses/vercel-ai-openai-reasoning-encrypted-content.1.sse",
    responses_vercel_ai_openai_tool_search => "openai_responses/vercel-ai-openai-tool-search.1.sse",
    responses_vercel_ai_programmatic_tool_calling => "openai_responses/vercel-ai-programmatic-tool-calling.1.sse",
    anthropic_sdk_python_incomplete_partial_json_response => "anthropic/anthropic-sdk-python-incomplete_partial_json_response.sse",
    anthropic_sdk_python_tool_use_response => "anthropic/anthropic-sdk-python-tool_use_response.sse",
    anthropic_vercel_ai_json_tool => "anthropic/vercel-ai-anthropic-json-tool.1.sse",
    anthropic_vercel_ai_programmatic_tool_calling => "anthropic/vercel-ai-anthropic-programmatic-tool-calling.1.sse",
    anthropic_vercel_ai_tool_no_args => "anthropic/vercel-ai-anthropic-tool-no-args.sse",
    anthropic_vercel_ai_tool_search_deferred_bm25 => "anthropic/vercel-ai-anthropic-tool-search-deferred-bm25.sse",
}

/// Every `.sse` file under the directory has its test above and its row in
/// the README, and every test's file exists.
#[test]
fn every_recorded_stream_is_tested_and_described() {
    let Some(dir) = dir() else {
        return;
    };
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    let mut found = Vec::new();
    for format in ["openai_chat", "openai_responses", "anthropic"] {
        for entry in std::fs::read_dir(dir.join(format)).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            if name.ends_with(".sse") {
                found.push(format!("{format}/{name}"));
            }
        }
    }
    found.sort();
    let mut listed: Vec<String> = FILES.iter().map(|path| path.to_string()).collect();
    listed.sort();
    assert_eq!(found, listed, "the .sse files on disk and the tests above");
    for path in &listed {
        assert!(
            readme.contains(path.as_str()),
            "README.md has no row for {path}"
        );
    }
    for source in [
        "openai-openai-python",
        "anthropics-anthropic-sdk-python",
        "vercel-ai",
    ] {
        assert!(
            dir.join(format!("LICENSES/{source}.txt")).is_file(),
            "no LICENSES/{source}.txt"
        );
    }
}

/// vercel/ai's tests feed a fixture of several recorded responses to its
/// provider as one stream; an adapter fed the same must not lose or merge
/// the calls of a later response whose blocks reuse the earlier indices.
#[test]
fn several_recorded_responses_fed_as_one_stream() {
    let Some(dir) = dir() else {
        return;
    };
    let mut problems = Vec::new();
    let mut files = 0;
    for path in FILES {
        let format = Format::of(path);
        let text = std::fs::read_to_string(dir.join(path)).unwrap();
        let events = sse_events(path, &text);
        let parts = responses(format, &events);
        if parts.len() < 2 {
            continue;
        }
        files += 1;
        let mut all = Oracle::default();
        for part in &parts {
            let oracle = oracle_of(format, path, part);
            all.calls.extend(oracle.calls);
            all.skipped.extend(oracle.skipped);
        }
        let what = format!("{path} (all {} responses as one stream)", parts.len());
        problems.extend(compare(&what, &all, &replay(format, &events)));
    }
    assert!(files >= 2, "the multi-response fixtures are gone");
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// The oracle's own footing: jiter's partial mode on a few prefixes, and
/// the SDK tests' expected values (with the recordings).
#[test]
fn the_oracle_agrees_with_the_sdks_own_assertions() {
    for (prefix, kept) in [
        (r#"{"a": [1, 2"#, json!({"a": [1, 2]})),
        (r#"{"a": "x", "b": "y"#, json!({"a": "x"})),
        (r#"{"a": {"b": tr"#, json!({"a": {}})),
        (r#"["aa", "bb", "c"#, json!(["aa", "bb"])),
        (r#"{"a"#, json!({})),
        (r#"{"a": "x\"", "#, json!({"a": "x\""})),
    ] {
        assert_eq!(partial_json(prefix), Ok(kept), "{prefix}");
    }
    assert!(extends(
        &json!({"a": [1, 2, 3], "b": "c"}),
        &json!({"a": [1, 2]})
    ));
    assert!(!extends(&json!({"a": [1]}), &json!({"a": [1, 2]})));

    let Some(dir) = dir() else {
        return;
    };
    // anthropic-sdk-python tests/lib/streaming/test_beta_messages.py,
    // EXPECTED_INCOMPLETE_MESSAGE: the cut tool_use input.
    let path = "anthropic/anthropic-sdk-python-incomplete_partial_json_response.sse";
    let text = std::fs::read_to_string(dir.join(path)).unwrap();
    let oracle = oracle_anthropic(path, &sse_events(path, &text));
    assert_eq!(oracle.calls.len(), 1);
    assert!(oracle.calls[0].cut);
    assert_eq!(
        oracle.calls[0].args,
        json!({"filename": "taxes.txt", "lines_of_text": [
            "# COMPREHENSIVE TAX GUIDE FOR INDIVIDUALS WITH MULTIPLE W-2s", "", "## INTRODUCTION", ""]})
    );
    // test_messages.py assert_tool_use_response.
    let path = "anthropic/anthropic-sdk-python-tool_use_response.sse";
    let text = std::fs::read_to_string(dir.join(path)).unwrap();
    let oracle = oracle_anthropic(path, &sse_events(path, &text));
    assert_eq!(oracle.calls.len(), 1);
    assert_eq!(oracle.calls[0].args, json!({"location": "Paris"}));
    assert_eq!(
        oracle.calls[0].id.as_deref(),
        Some("toolu_01NRLabsLyVHZPKxbKvkfSMn")
    );
    // openai-python test_completions_streaming.py
    // test_allows_non_strict_tools_but_no_parsing: arguments='{"city":"New York City"}'.
    let path = "openai_chat/openai-python-allows_non_strict_tools.sse";
    let text = std::fs::read_to_string(dir.join(path)).unwrap();
    let oracle = oracle_chat(path, &sse_events(path, &text));
    assert_eq!(oracle.calls.len(), 1);
    assert_eq!(oracle.calls[0].args, json!({"city": "New York City"}));
    assert_eq!(oracle.calls[0].name, "get_weather");
}
