//! The client adapters (issue 15) on recorded streams in each real format:
//! `corpus/model_streams/*.jsonl`, one server-sent event's JSON per line.
//! Each stream has four parallel calls: one whose arguments are split inside
//! escapes, one malformed, one with `\u` escapes split in the middle, and one
//! cut off. The events are compared with `<name>.events` (`UPDATE_EXPECT=1`
//! rewrites them), and replayed again with every argument fragment split
//! into single characters.

use std::path::{Path, PathBuf};

use argmend::{
    AnthropicStream, ClientEvent, OpenAiChatStream, OpenAiResponsesStream, ToolOptions, Verdict,
};
use serde_json::{Value, json};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/model_streams")
}

fn events_of(name: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(dir().join(format!("{name}.jsonl"))).unwrap();
    text.lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// Where each format keeps an argument fragment.
fn fragment_pointer(name: &str) -> &'static [&'static str] {
    match name {
        "openai_chat" => &["/choices/0/delta/tool_calls/0/function/arguments"],
        "openai_responses" => &["/delta"],
        _ => &["/delta/partial_json"],
    }
}

/// The same stream with every argument fragment split into single characters.
fn one_char_at_a_time(name: &str, events: &[Value]) -> Vec<Value> {
    let mut out = Vec::new();
    for event in events {
        let pointer = fragment_pointer(name)[0];
        match event.pointer(pointer).and_then(Value::as_str) {
            Some(fragment) if fragment.chars().count() > 1 => {
                for c in fragment.chars() {
                    let mut piece = event.clone();
                    if let Some(slot) = piece.pointer_mut(pointer) {
                        *slot = Value::String(c.to_string());
                    }
                    // Only the first piece of a chat delta carries the id and name.
                    out.push(piece);
                }
            }
            _ => out.push(event.clone()),
        }
    }
    out
}

fn replay(name: &str, events: &[Value]) -> Vec<ClientEvent> {
    let mut out = Vec::new();
    match name {
        "openai_chat" => {
            let mut stream = OpenAiChatStream::new(ToolOptions::default());
            for event in events {
                out.extend(stream.push(event));
            }
            out.extend(stream.finish());
        }
        "openai_responses" => {
            let mut stream = OpenAiResponsesStream::new(ToolOptions::default());
            for event in events {
                out.extend(stream.push(event));
            }
            out.extend(stream.finish());
        }
        _ => {
            let mut stream = AnthropicStream::new(ToolOptions::default());
            for event in events {
                out.extend(stream.push(event));
            }
            out.extend(stream.finish());
        }
    }
    out
}

/// Adjacent deltas of one call and path merged: how they split depends on
/// the fragments, not what they say.
fn merged(events: &[ClientEvent]) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for event in events {
        let json = event.to_json();
        if let Some(last) = out.last_mut()
            && last["event"] == "delta"
            && json["event"] == "delta"
            && last["call"] == json["call"]
            && last["path"] == json["path"]
        {
            let text = format!(
                "{}{}",
                last["text"].as_str().unwrap_or(""),
                json["text"].as_str().unwrap_or("")
            );
            last["text"] = Value::String(text);
            continue;
        }
        out.push(json);
    }
    out
}

fn check(name: &str) {
    let events = events_of(name);
    let out = replay(name, &events);
    let rendered: String = out
        .iter()
        .map(|event| format!("{}\n", event.to_json()))
        .collect();
    let golden = dir().join(format!("{name}.events"));
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&golden, &rendered).unwrap();
    } else {
        let expected = std::fs::read_to_string(&golden).unwrap_or_default();
        assert_eq!(
            rendered, expected,
            "{name}: run with UPDATE_EXPECT=1 and read the diff"
        );
    }

    // Four calls, with the model's ids and names, in order.
    let started: Vec<(usize, Option<String>, String)> = out
        .iter()
        .filter_map(|event| match event {
            ClientEvent::CallStarted { call, id, name } => Some((*call, id.clone(), name.clone())),
            _ => None,
        })
        .collect();
    let names: Vec<&str> = started.iter().map(|(_, _, name)| name.as_str()).collect();
    assert_eq!(
        names,
        ["write_file", "read_file", "search", "write_file"],
        "{name}"
    );
    assert!(started.iter().all(|(_, id, _)| id.is_some()), "{name}");

    let done: Vec<&argmend::CallEnd> = out
        .iter()
        .filter_map(|event| match event {
            ClientEvent::CallDone { end, .. } => Some(end),
            _ => None,
        })
        .collect();
    assert_eq!(done.len(), 4, "{name}");
    assert_eq!(
        done[0].args,
        json!({"path": "src/greet.py", "content": "def greet(name):\n    print(f\"Hello, {name}!\")\n    return {\"greeted\": name}\n"})
    );
    assert_eq!(
        (done[0].verdict, done[0].complete),
        (Verdict::Valid, true),
        "{name}"
    );
    assert_eq!(
        done[1].args,
        json!({"path": "README.md", "lines": [1, 20], "follow_links": true})
    );
    assert_eq!(
        (done[1].verdict, done[1].complete),
        (Verdict::Repaired, true),
        "{name}"
    );
    assert_eq!(
        done[2].args,
        json!({"query": "café \"quoted\" ✓", "limit": 5, "filters": {"lang": ["py", "rs"]}})
    );
    assert!(done[2].complete, "{name}");
    assert_eq!(
        done[3].args,
        json!({"path": "notes/todo.md", "content": "# TODO\n- fix the pars"})
    );
    assert!(!done[3].complete, "{name}: the last call was cut off");

    // Every field event's value is the final value at its pointer (for the
    // calls that arrived whole).
    for event in &out {
        if let ClientEvent::Field { call, event } = event
            && *call < 3
            && let argmend::FieldEvent::Done { path, value } = event
        {
            assert_eq!(
                done[*call].args.pointer(path),
                Some(value),
                "{name}: call {call} {path}"
            );
        }
    }

    // The same stream one character at a time tells the same story.
    let fine = replay(name, &one_char_at_a_time(name, &events));
    assert_eq!(
        merged(&fine),
        merged(&out),
        "{name}: one character at a time"
    );
}

#[test]
fn openai_chat_completions_stream() {
    check("openai_chat");
}

#[test]
fn openai_responses_stream() {
    check("openai_responses");
}

#[test]
fn anthropic_messages_stream() {
    check("anthropic");
}

#[test]
fn a_stream_that_stops_without_a_finish_leaves_its_open_calls_incomplete() {
    let mut stream = OpenAiChatStream::new(ToolOptions::default());
    let chunk = json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "c", "function": {"name": "read_file", "arguments": "{\"path\": \"a.txt\"}"}}]}}]});
    assert!(!stream.push(&chunk).is_empty());
    let end = stream.finish();
    let Some(ClientEvent::CallDone { end, .. }) = end.last() else {
        panic!("{end:?}")
    };
    // The JSON is whole, but the stream never said the call was over.
    assert_eq!(end.args, json!({"path": "a.txt"}));
    assert!(!end.complete);
}

/// A `tool_use` block with no argument event at all: `{}`, and not complete
/// (issue 27: nothing arrived, so nothing says the model meant `{}`). The
/// one empty `partial_json` the API sends for a tool without parameters, or
/// `"{}"`, is the model's `{}`: complete.
#[test]
fn anthropic_tool_use_with_no_input_is_an_empty_object_not_complete() {
    for (deltas, complete) in [(&[][..], false), (&[""][..], true), (&["{}"][..], true)] {
        let mut stream = AnthropicStream::new(ToolOptions::default());
        let mut out = Vec::new();
        let mut events = vec![
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_x", "name": "list_files", "input": {}}}),
        ];
        for delta in deltas {
            events.push(json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": delta}}));
        }
        events.push(json!({"type": "content_block_stop", "index": 0}));
        events.push(json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}}));
        for event in events {
            out.extend(stream.push(&event));
        }
        let Some(ClientEvent::CallDone { end, id, .. }) = out.last() else {
            panic!("{out:?}")
        };
        assert_eq!(id.as_deref(), Some("toolu_x"));
        assert_eq!(end.args, json!({}));
        assert_eq!(end.complete, complete, "{deltas:?}");
        let cut = (!complete).then(|| "no_arguments".to_owned());
        assert_eq!(end.cut, cut, "{deltas:?}");
    }
}

/// Each adapter's `CallDone` carries the doubts of the call's arguments, and
/// its JSON has them as `"doubt"`; a call without one has no `"doubt"`.
#[test]
fn call_done_carries_the_doubts_in_every_adapter() {
    use argmend::{Doubt, DoubtKind};
    // The first half of the arguments, then the rest (the trailing text).
    let (head, tail) = (r#"{"path": "a.txt", "content": "x"}"#, r#" note: "done""#);
    let clean = r#"{"path": "b.txt"}"#;
    let chat = |index: u64, id: &str, name: &str, arguments: &str| {
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": index, "id": id,
            "function": {"name": name, "arguments": arguments}}]}}]})
    };
    let chat_more = |index: u64, arguments: &str| {
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": index,
            "function": {"arguments": arguments}}]}}]})
    };
    let mut openai = OpenAiChatStream::new(ToolOptions::default());
    let mut chat_events = Vec::new();
    for chunk in [
        chat(0, "call_1", "write_file", head),
        chat_more(0, tail),
        chat(1, "call_2", "read_file", clean),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
    ] {
        chat_events.extend(openai.push(&chunk));
    }
    let mut responses = OpenAiResponsesStream::new(ToolOptions::default());
    let mut responses_events = Vec::new();
    for event in [
        json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "write_file", "arguments": ""}}),
        json!({"type": "response.function_call_arguments.delta", "item_id": "fc_1", "delta": head}),
        json!({"type": "response.function_call_arguments.delta", "item_id": "fc_1", "delta": tail}),
        json!({"type": "response.output_item.done", "output_index": 0, "item": {"id": "fc_1"}}),
        json!({"type": "response.output_item.added", "output_index": 1, "item": {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "read_file", "arguments": clean}}),
        json!({"type": "response.completed"}),
    ] {
        responses_events.extend(responses.push(&event));
    }
    let mut anthropic = AnthropicStream::new(ToolOptions::default());
    let mut anthropic_events = Vec::new();
    let delta = |index: u64, partial: &str| json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": partial}});
    for event in [
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "write_file", "input": {}}}),
        delta(0, head),
        delta(0, tail),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_2", "name": "read_file", "input": {}}}),
        delta(1, clean),
        json!({"type": "content_block_stop", "index": 1}),
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}}),
    ] {
        anthropic_events.extend(anthropic.push(&event));
    }
    let expected = Doubt {
        kind: DoubtKind::EarlyClose,
        offset: head.len() + 1,
    };
    for (name, events) in [
        ("openai_chat", chat_events),
        ("openai_responses", responses_events),
        ("anthropic", anthropic_events),
    ] {
        let done: Vec<&ClientEvent> = (events.iter())
            .filter(|event| matches!(event, ClientEvent::CallDone { .. }))
            .collect();
        assert_eq!(done.len(), 2, "{name}: {events:?}");
        let ClientEvent::CallDone { end, .. } = done[0] else {
            unreachable!()
        };
        assert_eq!(end.doubts, [expected], "{name}");
        assert_eq!(end.args, json!({"path": "a.txt", "content": "x"}), "{name}");
        assert_eq!(end.verdict, Verdict::Repaired, "{name}");
        assert!(end.complete, "{name}");
        assert_eq!(
            done[0].to_json()["doubt"],
            json!([{"kind": "early_close", "offset": expected.offset,
                "reason": DoubtKind::EarlyClose.reason()}]),
            "{name}"
        );
        let ClientEvent::CallDone { end, .. } = done[1] else {
            unreachable!()
        };
        assert!(end.doubts.is_empty(), "{name}");
        assert_eq!(done[1].to_json().get("doubt"), None, "{name}");
    }
}
