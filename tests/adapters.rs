//! Issue 27: the adapters read every event that can carry a call or its
//! arguments (a whole value at the start, a final text at the end, the stop
//! reasons), give each call its own tool's schema from the request's tools,
//! end Chat calls on time, keep a live value per call, and report what they
//! do not handle. Corruptions of the recorded streams never give different
//! arguments marked complete.

use argmend::{
    AnthropicStream, CallEnd, ClientEvent, OpenAiChatStream, OpenAiResponsesStream, ToolFixKind,
    ToolMap, ToolOptions,
};
use serde_json::{Value, json};

/// Every `CallDone`'s end, in order.
fn ends(events: &[ClientEvent]) -> Vec<&CallEnd> {
    (events.iter())
        .filter_map(|event| match event {
            ClientEvent::CallDone { end, .. } => Some(end),
            _ => None,
        })
        .collect()
}

fn skipped(events: &[ClientEvent]) -> Vec<String> {
    (events.iter())
        .filter_map(|event| match event {
            ClientEvent::Skipped { kind, .. } => Some(kind.clone()),
            _ => None,
        })
        .collect()
}

fn anthropic(events: &[Value]) -> Vec<ClientEvent> {
    let mut stream = AnthropicStream::new(ToolOptions::default());
    let mut out: Vec<ClientEvent> = events.iter().flat_map(|e| stream.push(e)).collect();
    out.extend(stream.finish());
    out
}

fn responses(events: &[Value]) -> Vec<ClientEvent> {
    let mut stream = OpenAiResponsesStream::new(ToolOptions::default());
    let mut out: Vec<ClientEvent> = events.iter().flat_map(|e| stream.push(e)).collect();
    out.extend(stream.finish());
    out
}

fn chat(events: &[Value]) -> Vec<ClientEvent> {
    let mut stream = OpenAiChatStream::new(ToolOptions::default());
    let mut out: Vec<ClientEvent> = events.iter().flat_map(|e| stream.push(e)).collect();
    out.extend(stream.finish());
    out
}

fn chat_delta(index: u64, id: Option<&str>, name: Option<&str>, arguments: &str) -> Value {
    let mut call = json!({"index": index, "function": {"arguments": arguments}});
    if let Some(id) = id {
        call["id"] = json!(id);
        call["type"] = json!("function");
    }
    if let Some(name) = name {
        call["function"]["name"] = json!(name);
    }
    json!({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]})
}

fn chat_finish(reason: &str) -> Value {
    json!({"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]})
}

fn block_start(index: u64, block: Value) -> Value {
    json!({"type": "content_block_start", "index": index, "content_block": block})
}

fn input_delta(index: u64, partial: &str) -> Value {
    json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": partial}})
}

fn block_stop(index: u64) -> Value {
    json!({"type": "content_block_stop", "index": index})
}

fn stop_reason(reason: &str) -> Value {
    json!({"type": "message_delta", "delta": {"stop_reason": reason}, "usage": {"output_tokens": 9}})
}

#[test]
fn anthropic_input_sent_whole_at_the_block_start_is_the_arguments() {
    // Programmatic tool calling: the input comes complete, with no deltas.
    let input = json!({"code": "print(\"hi\")", "timeout": 5});
    let out = anthropic(&[
        block_start(
            0,
            json!({"type": "tool_use", "id": "toolu_1", "name": "run", "input": input,
            "caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_1"}}),
        ),
        block_stop(0),
        stop_reason("tool_use"),
        json!({"type": "message_stop"}),
    ]);
    let ends = ends(&out);
    assert_eq!(ends.len(), 1, "{out:?}");
    assert_eq!(ends[0].args, input);
    assert!(ends[0].complete);
}

#[test]
fn anthropic_deltas_after_a_start_input_replace_it() {
    let out = anthropic(&[
        block_start(
            0,
            json!({"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"stale": true}}),
        ),
        input_delta(0, r#"{"fresh": "#),
        input_delta(0, "1}"),
        block_stop(0),
        stop_reason("tool_use"),
    ]);
    assert_eq!(ends(&out)[0].args, json!({"fresh": 1}));
    assert!(ends(&out)[0].complete);
}

#[test]
fn anthropic_tool_use_blocks_in_message_start_are_calls() {
    let out = anthropic(&[
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
            "content": [
                {"type": "text", "text": "Replaying."},
                {"type": "tool_use", "id": "toolu_a", "name": "read_file", "input": {"path": "a.txt"}},
            ], "stop_reason": null}}),
        block_start(
            2,
            json!({"type": "tool_use", "id": "toolu_b", "name": "read_file", "input": {}}),
        ),
        input_delta(2, r#"{"path": "b.txt"}"#),
        block_stop(2),
        stop_reason("tool_use"),
    ]);
    let ends = ends(&out);
    assert_eq!(ends.len(), 2, "{out:?}");
    assert_eq!(ends[0].args, json!({"path": "a.txt"}));
    assert_eq!(ends[1].args, json!({"path": "b.txt"}));
    assert!(ends.iter().all(|end| end.complete));
}

#[test]
fn anthropic_max_tokens_cuts_a_call_whose_json_is_whole() {
    for (reason, complete) in [
        ("max_tokens", false),
        ("refusal", false),
        ("tool_use", true),
        ("end_turn", true),
    ] {
        let out = anthropic(&[
            block_start(
                0,
                json!({"type": "tool_use", "id": "toolu_1", "name": "write_file", "input": {}}),
            ),
            input_delta(0, r#"{"path": "a.txt", "content": "first line"}"#),
            block_stop(0),
            stop_reason(reason),
            json!({"type": "message_stop"}),
        ]);
        let end = ends(&out)[0];
        assert_eq!(end.complete, complete, "{reason}");
        assert_eq!(
            end.cut.as_deref(),
            (!complete).then_some(reason),
            "{reason}"
        );
    }
    // A later block shows the model went on: the earlier call was whole,
    // and only the last one is cut.
    let out = anthropic(&[
        block_start(
            0,
            json!({"type": "tool_use", "id": "t0", "name": "a", "input": {}}),
        ),
        input_delta(0, r#"{"x": 1}"#),
        block_stop(0),
        block_start(
            1,
            json!({"type": "tool_use", "id": "t1", "name": "b", "input": {}}),
        ),
        input_delta(1, r#"{"y": 2}"#),
        block_stop(1),
        stop_reason("max_tokens"),
    ]);
    let ends = ends(&out);
    assert_eq!((ends[0].complete, ends[1].complete), (true, false));
}

#[test]
fn anthropic_events_that_stop_before_the_stop_reason_leave_the_call_unconfirmed() {
    let out = anthropic(&[
        block_start(
            0,
            json!({"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}),
        ),
        input_delta(0, r#"{"a": 1}"#),
        block_stop(0),
    ]);
    assert_eq!(ends(&out)[0].cut.as_deref(), Some("stream_ended"));
    let out = anthropic(&[
        block_start(
            0,
            json!({"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}),
        ),
        input_delta(0, r#"{"a": 1}"#),
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
    ]);
    assert_eq!(ends(&out)[0].cut.as_deref(), Some("error"));
}

#[test]
fn anthropic_server_and_mcp_tool_blocks_are_reported_as_skipped() {
    let out = anthropic(&[
        block_start(
            0,
            json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}),
        ),
        input_delta(0, r#"{"query": "rust"}"#),
        block_stop(0),
        block_start(
            1,
            json!({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []}),
        ),
        block_stop(1),
        block_start(
            2,
            json!({"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "echo", "server_name": "s", "input": {"a": 1}}),
        ),
        block_stop(2),
        stop_reason("end_turn"),
    ]);
    assert!(ends(&out).is_empty(), "{out:?}");
    assert_eq!(skipped(&out), ["server_tool_use", "mcp_tool_use"]);
    let json = out[0].to_json();
    assert_eq!(
        (json["event"].as_str(), json["name"].as_str()),
        (Some("skipped"), Some("web_search"))
    );
}

#[test]
fn responses_final_text_alone_gives_the_arguments() {
    let added = json!({"type": "response.output_item.added", "output_index": 0,
        "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather", "arguments": "", "status": "in_progress"}});
    // Only the arguments' `.done`, then the end of the response.
    let out = responses(&[
        added.clone(),
        json!({"type": "response.function_call_arguments.done", "item_id": "fc_1", "output_index": 0, "arguments": "{\"city\": \"Paris\"}"}),
        json!({"type": "response.completed", "response": {"status": "completed"}}),
    ]);
    assert_eq!(ends(&out)[0].args, json!({"city": "Paris"}));
    assert!(ends(&out)[0].complete);
    // Only the item's `.done`, without even its `added`.
    let out = responses(&[
        json!({"type": "response.output_item.done", "output_index": 0,
        "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather",
                 "arguments": "{\"city\": \"Oslo\"}", "status": "completed"}}),
    ]);
    let ends = ends(&out);
    assert_eq!(ends[0].args, json!({"city": "Oslo"}));
    assert_eq!(ends[0].name, "get_weather");
    assert!(ends[0].complete);
    // Only the final response object.
    let out = responses(&[
        json!({"type": "response.completed", "response": {"status": "completed", "output": [
        {"type": "function_call", "id": "fc_9", "call_id": "call_9", "name": "f", "arguments": "{\"n\": 9}", "status": "completed"}]}}),
    ]);
    assert_eq!(self::ends(&out)[0].args, json!({"n": 9}));
}

#[test]
fn responses_final_text_that_differs_from_the_deltas_wins_with_a_fix() {
    let out = responses(&[
        json!({"type": "response.output_item.added", "output_index": 0,
            "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": ""}}),
        json!({"type": "response.function_call_arguments.delta", "item_id": "fc_1", "delta": "{\"n\": 1"}),
        json!({"type": "response.function_call_arguments.delta", "item_id": "fc_1", "delta": "2}"}),
        json!({"type": "response.function_call_arguments.done", "item_id": "fc_1", "arguments": "{\"n\": 13}"}),
        json!({"type": "response.output_item.done", "output_index": 0,
            "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": "{\"n\": 13}", "status": "completed"}}),
    ]);
    let end = ends(&out)[0];
    assert_eq!(end.args, json!({"n": 13}));
    assert_eq!(end.fixes[0].kind, ToolFixKind::FinalText);
    assert_eq!(end.fixes[0].offset, 7);
    // Deltas that were a prefix of the final text (some lost): the rest is
    // fed, no fix.
    let out = responses(&[
        json!({"type": "response.function_call_arguments.delta", "item_id": "fc_2", "delta": "{\"n\": "}),
        json!({"type": "response.function_call_arguments.done", "item_id": "fc_2", "arguments": "{\"n\": 2}"}),
        json!({"type": "response.completed", "response": {}}),
    ]);
    assert_eq!(ends(&out)[0].args, json!({"n": 2}));
    assert!(ends(&out)[0].fixes.is_empty());
}

#[test]
fn responses_statuses_cut_calls_whose_json_is_whole() {
    let item = |status: &str| {
        json!({"type": "response.output_item.done", "output_index": 0,
        "item": {"type": "function_call", "id": "fc_1", "call_id": "c", "name": "f", "arguments": "{\"a\": 1}", "status": status}})
    };
    assert!(ends(&responses(&[item("completed")]))[0].complete);
    let out = responses(&[item("incomplete")]);
    assert_eq!(ends(&out)[0].cut.as_deref(), Some("incomplete"));
    // The final response object lists the call still `in_progress`: the
    // response's own cut applies (what openai's `responses.stream()` sends).
    let out = responses(&[
        json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "function_call", "id": "fc_1", "name": "f", "arguments": ""}}),
        json!({"type": "response.function_call_arguments.delta", "item_id": "fc_1", "delta": "{\"a\": 1}"}),
        json!({"type": "response.incomplete", "response": {"status": "incomplete", "output": [
            {"type": "function_call", "id": "fc_1", "name": "f", "arguments": "{\"a\": 1}", "status": "in_progress"}]}}),
    ]);
    assert_eq!(ends(&out)[0].cut.as_deref(), Some("incomplete"));
    for (event, cut) in [
        ("response.incomplete", "incomplete"),
        ("response.failed", "failed"),
    ] {
        let out = responses(&[
            json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "function_call", "id": "fc_1", "name": "f", "arguments": ""}}),
            json!({"type": "response.function_call_arguments.delta", "item_id": "fc_1", "delta": "{\"a\": 1}"}),
            json!({"type": event, "response": {"status": cut}}),
        ]);
        let end = ends(&out)[0];
        assert_eq!(
            (end.complete, end.cut.as_deref()),
            (false, Some(cut)),
            "{event}"
        );
    }
}

#[test]
fn responses_other_call_items_are_reported_as_skipped() {
    let out = responses(&[
        json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_1", "name": "apply_patch", "input": ""}}),
        json!({"type": "response.custom_tool_call_input.delta", "item_id": "ctc_1", "output_index": 0, "delta": "*** Begin Patch"}),
        json!({"type": "response.output_item.added", "output_index": 1, "item": {"type": "web_search_call", "id": "ws_1", "status": "in_progress"}}),
        json!({"type": "response.output_item.added", "output_index": 2, "item": {"type": "reasoning", "id": "rs_1"}}),
        json!({"type": "response.completed", "response": {}}),
    ]);
    assert!(ends(&out).is_empty());
    assert_eq!(skipped(&out), ["custom_tool_call", "web_search_call"]);
}

#[test]
fn chat_calls_end_when_the_next_index_starts() {
    let mut stream = OpenAiChatStream::new(ToolOptions::default());
    assert!(ends(&stream.push(&chat_delta(0, Some("c0"), Some("a"), r#"{"x": 1}"#))).is_empty());
    let out = stream.push(&chat_delta(1, Some("c1"), Some("b"), r#"{"y""#));
    let first = ends(&out);
    assert_eq!(first.len(), 1, "call 0 ends as call 1 starts: {out:?}");
    assert_eq!(first[0].args, json!({"x": 1}));
    assert!(first[0].complete);
    // Text for an ended call is not silently dropped.
    let late = stream.push(&chat_delta(0, None, None, r#", "z": 2"#));
    assert_eq!(skipped(&late), ["arguments_after_end"]);
    let out = stream.push(&chat_finish("tool_calls"));
    assert!(!ends(&out)[0].complete, "cut inside a key: {out:?}");
}

#[test]
fn chat_length_and_content_filter_cut_a_call_whose_json_is_whole() {
    for (reason, complete) in [
        ("length", false),
        ("content_filter", false),
        ("tool_calls", true),
        ("stop", true),
    ] {
        let out = chat(&[
            chat_delta(0, Some("c0"), Some("f"), r#"{"a": 1}"#),
            chat_finish(reason),
        ]);
        assert_eq!(ends(&out)[0].complete, complete, "{reason}");
    }
    // No argument text at all: `{}`, not complete.
    let out = chat(&[
        chat_delta(0, Some("c0"), Some("f"), ""),
        chat_finish("tool_calls"),
    ]);
    assert_eq!(
        (ends(&out)[0].complete, ends(&out)[0].cut.as_deref()),
        (false, Some("no_arguments"))
    );
}

#[test]
fn chat_legacy_function_call_and_custom_tools() {
    let out = chat(&[
        json!({"choices": [{"index": 0, "delta": {"function_call": {"name": "f", "arguments": "{\"a\""}}}]}),
        json!({"choices": [{"index": 0, "delta": {"function_call": {"arguments": ": 1}"}}}]}),
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "c", "type": "custom", "custom": {"name": "grammar", "input": "x"}}]}}]}),
        chat_finish("function_call"),
    ]);
    assert_eq!(ends(&out)[0].args, json!({"a": 1}));
    assert_eq!(skipped(&out), ["custom"]);
}

/// The request's tools give each call its own schema: a `write_file` whose
/// content has unescaped quotes keeps its `mode`, which the built-in table
/// alone lets the string swallow.
#[test]
fn each_call_gets_its_tool_schema_from_the_request() {
    let raw = r#"{"path": "a.py", "content": "d = {"a": 1, "path": 2}", "mode": "w"}"#;
    let truth = json!({"path": "a.py", "content": "d = {\"a\": 1, \"path\": 2}", "mode": "w"});
    let parameters = json!({"type": "object", "additionalProperties": false, "required": ["path", "content"],
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}, "mode": {"type": "string"}}});
    let openai_tools = json!([
        {"type": "function", "function": {"name": "read_file", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}},
        {"type": "function", "function": {"name": "write_file", "parameters": parameters}},
    ]);
    let anthropic_tools = json!([{"name": "write_file", "input_schema": parameters}]);
    let responses_tools = json!({"model": "gpt-5", "tools": [{"type": "function", "name": "write_file", "parameters": parameters}]});

    let chat_events = [
        chat_delta(0, Some("c"), Some("write_file"), raw),
        chat_finish("tool_calls"),
    ];
    let run_chat = |mut stream: OpenAiChatStream| {
        let mut out: Vec<ClientEvent> = chat_events.iter().flat_map(|e| stream.push(e)).collect();
        out.extend(stream.finish());
        ends(&out)[0].args.clone()
    };
    assert_eq!(run_chat(OpenAiChatStream::from_tools(&openai_tools)), truth);
    assert_ne!(
        run_chat(OpenAiChatStream::new(ToolOptions::default())),
        truth
    );

    let mut stream = AnthropicStream::from_tools(&anthropic_tools);
    let mut out = Vec::new();
    for event in [
        block_start(
            0,
            json!({"type": "tool_use", "id": "t", "name": "write_file", "input": {}}),
        ),
        input_delta(0, raw),
        block_stop(0),
        stop_reason("tool_use"),
    ] {
        out.extend(stream.push(&event));
    }
    assert_eq!(ends(&out)[0].args, truth);

    let mut stream = OpenAiResponsesStream::from_tools(&responses_tools);
    let out = stream.push(&json!({"type": "response.output_item.done", "output_index": 0,
        "item": {"type": "function_call", "id": "fc", "call_id": "c", "name": "write_file", "arguments": raw, "status": "completed"}}));
    assert_eq!(ends(&out)[0].args, truth);
    assert!(
        ToolMap::from_openai_tools(&openai_tools)
            .schema("read_file")
            .is_some()
    );
}

/// The live value of each call after every event is the snapshot's value.
#[test]
fn each_call_has_a_live_value() {
    let mut stream = AnthropicStream::new(ToolOptions::default());
    let mut seen = Vec::new();
    for event in [
        block_start(
            0,
            json!({"type": "tool_use", "id": "t", "name": "write_file", "input": {}}),
        ),
        input_delta(0, r#"{"path": "a.t"#),
        input_delta(0, r#"xt", "content": "line"#),
        input_delta(0, r#" one"}"#),
        block_stop(0),
        stop_reason("tool_use"),
    ] {
        stream.push(&event);
        if let Some(snapshot) = stream.snapshot(0).filter(|s| !s.is_empty()) {
            let parsed: Value = serde_json::from_str(&snapshot).unwrap();
            assert_eq!(stream.value(0), Some(&parsed));
        }
        seen.push(stream.value(0).cloned());
    }
    assert_eq!(seen[1], Some(json!({"path": "a.t"})));
    assert_eq!(seen[2], Some(json!({"path": "a.txt", "content": "line"})));
    // After the end, the value is the mended arguments.
    assert_eq!(
        seen[5],
        Some(json!({"path": "a.txt", "content": "line one"}))
    );
    assert_eq!(
        (stream.calls(), stream.id(0), stream.name(0)),
        (1, Some("t"), Some("write_file"))
    );
}
