//! The cost per streamed byte of finding tool calls in model text and
//! mending their arguments (`CallParser`), against feeding the same bytes
//! to the bare repair engine (`Repairer`).
//!
//! Bench ids are `{fixture}/{api}_{chunk}`:
//! - `agent_1m/call_parser_16b`, `_4k`: a ~1 MB recorded-style model output
//!   (prose, `<tool_call>` tags with JSON and command-line arguments, object
//!   calls in fences, `write_file` calls with long code content), fed in 16-byte
//!   and 4 KiB chunks, every event collected.
//! - `agent_1m/bare_engine_16b`, `_4k`: the same bytes into one `Repairer`
//!   (`Values::Lines`, `Retain::Unreturned`), the baseline asked for.
//! - `args_only/bare_engine_4k`: only the argument bytes of the same stream,
//!   through the engine: what mending alone costs.
//! - `write_file_50k/…` (issue 15): one 50 KB `write_file` call (malformed:
//!   a bare key, single quotes, a trailing comma) through `ToolCallStream` in
//!   16-byte fragments, taking every event and reading the snapshot as a
//!   `serde_json::Value` after every fragment (`stream_16b_value`), against
//!   one-shot `repair` of the same bytes (`repair_oneshot`, the baseline) and
//!   against parsing the text snapshot with serde_json after every fragment
//!   (`stream_16b_reparse`, what a client without the value would do).
//!   What bounds the stream, measured beside it: the bare engine in the same
//!   fragments (`engine_16b`), `normalize_tool_args` one-shot
//!   (`normalize_oneshot`, which `ToolCallStream::finish` runs), and
//!   `ToolRepairer` in the same fragments (`tool_repairer_16b`: both).
//! - `format_50k/qwen3_coder_16b`, `hermes_16b` (issue 44): one 50 KB
//!   `write_file` call (Go code with quotes, backslashes and non-ASCII text)
//!   written in Qwen3-Coder's XML parameters and in Hermes's JSON, through
//!   `CallParser::with_format` with the tool's schema in 16-byte chunks,
//!   every event taken: what turning parameters into JSON costs over JSON
//!   arguments (the baseline), which must stay under 2×.
//! - `write_file_50k/anthropic_16b`, `chat_16b` (issue 27): the same call as
//!   an SDK stream of parsed events, one 16-byte `partial_json` /
//!   `function.arguments` fragment each, through `AnthropicStream` and
//!   `OpenAiChatStream` with the request's tools, reading the live value
//!   after every event: what the adapters add over `stream_16b_value` (the
//!   baseline: the same fragments straight into `ToolCallStream`).

use std::hint::black_box;
use std::time::Duration;

use argmend::{
    AnthropicStream, CallParser, Event, Format, OpenAiChatStream, Options, Repairer, Retain,
    ToolCallStream, ToolMap, ToolOptions, Values,
};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Value, json};

/// A model output of about `size` bytes, and the argument bytes in it.
fn agent_stream(size: usize) -> (Vec<u8>, Vec<u8>) {
    let mut out = String::new();
    let mut args = String::new();
    let mut i = 0usize;
    while out.len() < size {
        i += 1;
        out.push_str(&format!(
            "Step {i}. I'll look at the payload first; it's in resp.json and the failures matter most.\n"
        ));
        let a = r#"{"cmd": "query", "args": {"file": "resp.json", "path": "data.items", "where": "status=failed", "select": "id,name",}}"#;
        out.push_str(&format!("<tool_call name=\"@json\" args='{a}' />\n"));
        args.push_str(a);
        let a = format!("get --file resp.json --path data.items[{i}].name");
        out.push_str(&format!("<tool name=\"@json\">{a}</tool>\n"));
        args.push_str(&a);
        let a = format!(
            "{{'tool_call': '@json', 'args': {{'cmd': 'keys', 'args': {{'file': 'resp.json', 'path': 'data.items[{i}]'}}}}}}"
        );
        out.push_str(&format!("```json\n{a}\n```\n"));
        args.push_str(&a);
        let mut content = String::new();
        for line in 0..40 {
            content.push_str(&format!(
                "\\tfmt.Println(\\\"line {line} of file {i}: héllo ✓\\\") // it's fine\\n"
            ));
        }
        let a = format!("{{\"file\": \"gen/{i}.go\", \"content\": \"package main\\n{content}\"}}");
        out.push_str(&format!(
            "Now the file.\n<tool_call name=\"write_file\">\n{a}\n</tool_call>\n"
        ));
        args.push_str(&a);
    }
    (out.into_bytes(), args.into_bytes())
}

fn parse(input: &[u8], chunk: usize) -> usize {
    let mut parser = CallParser::new();
    let mut n_ready = 0;
    for piece in input.chunks(chunk) {
        for event in parser.feed(piece) {
            n_ready += usize::from(matches!(event, Event::CallReady { .. }));
        }
    }
    for event in parser.finish() {
        n_ready += usize::from(matches!(event, Event::CallReady { .. }));
    }
    n_ready
}

fn engine(input: &[u8], chunk: usize) -> usize {
    let options = Options::default()
        .values(Values::Lines)
        .retain(Retain::Unreturned);
    let mut repairer = Repairer::new(options);
    let mut n = 0;
    for piece in input.chunks(chunk) {
        n += repairer.feed(piece).map_or(0, str::len);
    }
    n + repairer.finish().map_or(0, |outcome| outcome.text().len())
}

/// A `write_file` call of about `size` bytes whose content is Go code.
fn write_file_call(size: usize) -> Vec<u8> {
    let mut content = String::new();
    let mut line = 0;
    while content.len() < size {
        line += 1;
        content.push_str(&format!(
            "\\tfmt.Println(\\\"line {line}: héllo, {{}} ✓\\\", x[{line}]) // it's fine\\n"
        ));
    }
    format!("{{path: 'gen/main.go', \"content\": \"package main\\n{content}\", 'append': false,}}")
        .into_bytes()
}

/// The content of a 50 KB `write_file` call: Go code as it is.
fn go_code(size: usize) -> String {
    let mut content = String::from("package main\n");
    let mut line = 0;
    while content.len() < size {
        line += 1;
        content.push_str(&format!(
            "\tfmt.Println(\"line {line}: héllo, {{}} ✓\", x[{line}]) // it's \\fine\n"
        ));
    }
    content
}

/// The same call in Qwen3-Coder's form and in Hermes's.
fn format_calls(size: usize) -> (Vec<u8>, Vec<u8>) {
    let content = go_code(size);
    let qwen = format!(
        "<tool_call>\n<function=write_file>\n<parameter=path>\ngen/main.go\n</parameter>\n<parameter=content>\n{content}\n</parameter>\n</function>\n</tool_call>"
    );
    let args = json!({"path": "gen/main.go", "content": content});
    let hermes =
        format!("<tool_call>\n{{\"name\": \"write_file\", \"arguments\": {args}}}\n</tool_call>");
    (qwen.into_bytes(), hermes.into_bytes())
}

/// Every event of a `CallParser` reading `input` in `format`, fed in `chunk`-byte pieces.
fn format_events(format: Format, options: &ToolOptions, input: &[u8], chunk: usize) -> usize {
    let mut parser = CallParser::with_format(format, options.clone());
    let mut n = 0;
    for piece in input.chunks(chunk) {
        n += parser.feed(piece).len();
    }
    n + parser.finish().len()
}

/// Everything a UI would take from a `ToolCallStream` fed in `chunk`-byte fragments.
fn stream_events(input: &[u8], chunk: usize, reparse: bool) -> usize {
    let mut call = ToolCallStream::new("write_file", ToolOptions::default());
    let mut n = 0;
    for piece in input.chunks(chunk) {
        n += call.feed(piece).events.len();
        if reparse {
            let snapshot = call.snapshot();
            let value: serde_json::Value = serde_json::from_str(&snapshot).unwrap_or_default();
            n += usize::from(value.is_object());
        } else {
            n += usize::from(black_box(call.value()).is_some());
        }
    }
    n + call.finish().events.len()
}

/// The call as parsed SDK events, one `chunk`-byte fragment each.
fn sdk_events(input: &[u8], chunk: usize, anthropic: bool) -> Vec<Value> {
    let text = std::str::from_utf8(input).unwrap();
    let mut pieces = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let mut n = chunk.min(rest.len());
        while !rest.is_char_boundary(n) {
            n += 1;
        }
        pieces.push(&rest[..n]);
        rest = &rest[n..];
    }
    let mut events = Vec::new();
    if anthropic {
        events.push(json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "write_file", "input": {}}}));
        events.extend(pieces.iter().map(|piece| json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": piece}})));
        events.push(json!({"type": "content_block_stop", "index": 0}));
        events.push(json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}}));
    } else {
        events.push(json!({"id": "c", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_1", "function": {"name": "write_file", "arguments": ""}}]}}]}));
        events.extend(pieces.iter().map(|piece| json!({"id": "c", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}}]})));
        events.push(json!({"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}));
    }
    events
}

fn bench(c: &mut Criterion) {
    let (stream, args) = agent_stream(1 << 20);
    assert!(parse(&stream, 4096) > 100);
    let mut group = c.benchmark_group("agent_1m");
    group.throughput(Throughput::Bytes(stream.len() as u64));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    for (name, chunk) in [("16b", 16), ("4k", 4096)] {
        group.bench_function(format!("call_parser_{name}"), |b| {
            b.iter(|| parse(black_box(&stream), chunk));
        });
        group.bench_function(format!("bare_engine_{name}"), |b| {
            b.iter(|| engine(black_box(&stream), chunk));
        });
    }
    group.finish();
    let mut group = c.benchmark_group("args_only");
    group.throughput(Throughput::Bytes(args.len() as u64));
    group.sample_size(10);
    group.bench_function("bare_engine_4k", |b| {
        b.iter(|| engine(black_box(&args), 4096));
    });
    group.finish();

    let call = write_file_call(50_000);
    assert_eq!(argmend::repair(&call).verdict(), argmend::Verdict::Repaired);
    let mut group = c.benchmark_group("write_file_50k");
    group.throughput(Throughput::Bytes(call.len() as u64));
    group.bench_function("repair_oneshot", |b| {
        b.iter(|| argmend::repair(black_box(&call)).text().len());
    });
    group.bench_function("tool_repairer_16b", |b| {
        b.iter(|| {
            let mut repairer = argmend::ToolRepairer::new("write_file", ToolOptions::default());
            let mut n = 0;
            for piece in black_box(&call).chunks(16) {
                n += repairer.feed(piece).len();
            }
            n + repairer.finish().text().len()
        });
    });
    group.bench_function("engine_16b", |b| {
        b.iter(|| {
            let mut repairer = argmend::Repairer::new(Options::default());
            let mut n = 0;
            for piece in black_box(&call).chunks(16) {
                n += repairer.feed(piece).map_or(0, str::len);
            }
            n + repairer.finish().map_or(0, |o| o.text().len())
        });
    });
    group.bench_function("normalize_oneshot", |b| {
        b.iter(|| {
            argmend::normalize_tool_args(
                "write_file",
                std::str::from_utf8(black_box(&call)).unwrap(),
            )
            .text()
            .len()
        });
    });
    group.bench_function("stream_16b_value", |b| {
        b.iter(|| stream_events(black_box(&call), 16, false));
    });
    let schema = json!({"type": "object", "properties": {"path": {"type": "string"},
        "content": {"type": "string"}, "append": {"type": "boolean"}}});
    let anthropic = sdk_events(&call, 16, true);
    let anthropic_tools = json!([{"name": "write_file", "input_schema": schema}]);
    group.bench_function("anthropic_16b", |b| {
        b.iter(|| {
            let mut stream = AnthropicStream::from_tools(&anthropic_tools);
            let mut n = 0;
            for event in black_box(&anthropic) {
                n += stream.push(event).len();
                n += usize::from(black_box(stream.value(0)).is_some());
            }
            n + stream.finish().len()
        });
    });
    let chat = sdk_events(&call, 16, false);
    let chat_tools =
        json!([{"type": "function", "function": {"name": "write_file", "parameters": schema}}]);
    group.bench_function("chat_16b", |b| {
        b.iter(|| {
            let mut stream = OpenAiChatStream::from_tools(&chat_tools);
            let mut n = 0;
            for event in black_box(&chat) {
                n += stream.push(event).len();
                n += usize::from(black_box(stream.value(0)).is_some());
            }
            n + stream.finish().len()
        });
    });
    group.sample_size(10);
    group.bench_function("stream_16b_reparse", |b| {
        b.iter(|| stream_events(black_box(&call), 16, true));
    });
    group.finish();

    let (qwen, hermes) = format_calls(50_000);
    let tools = json!([{"type": "function", "function": {"name": "write_file", "parameters": {
        "type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}}}}]);
    let options = ToolOptions::default().tools(ToolMap::from_openai_tools(&tools));
    // Both forms must give the same arguments, or the ratio means nothing.
    let args = |format: &str, input: &[u8]| {
        let format = Format::from_name(format).expect("a format");
        let mut parser = CallParser::with_format(format, options.clone());
        let mut events = parser.feed(input);
        events.extend(parser.finish());
        events.into_iter().find_map(|event| match event {
            Event::CallReady { args, .. } => serde_json::from_str::<Value>(&args).ok(),
            _ => None,
        })
    };
    assert_eq!(args("qwen3_coder", &qwen), args("hermes", &hermes));
    assert!(args("hermes", &hermes).is_some());
    let mut group = c.benchmark_group("format_50k");
    group.throughput(Throughput::Bytes(qwen.len() as u64));
    for (name, format, input) in [
        ("qwen3_coder_16b", "qwen3_coder", &qwen),
        ("hermes_16b", "hermes", &hermes),
    ] {
        let format = Format::from_name(format).expect("a format");
        group.bench_function(name, |b| {
            b.iter(|| format_events(format, &options, black_box(input), 16));
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
