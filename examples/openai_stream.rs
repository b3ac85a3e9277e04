//! Replays a recorded OpenAI Chat Completions stream (four parallel tool
//! calls: one split inside escapes, one malformed, one with split `\u`
//! escapes, one cut off by `finish_reason: "length"`) through
//! `OpenAiChatStream`, printing every event as it would reach a UI, then each
//! call's mended arguments.
//!
//!     cargo run --release --example openai_stream
//!
//! With your own client: parse each `data:` line of the server-sent events
//! into a `serde_json::Value` and hand it to `push`, exactly as below.

use argmend::{ClientEvent, OpenAiChatStream, ToolOptions};

const RECORDED: &str = include_str!("../corpus/model_streams/openai_chat.jsonl");

fn main() -> Result<(), serde_json::Error> {
    let mut stream = OpenAiChatStream::new(ToolOptions::default());
    let mut ended = Vec::new();
    for line in RECORDED.lines() {
        let chunk: serde_json::Value = serde_json::from_str(line)?;
        for event in stream.push(&chunk) {
            print(&event, &mut ended);
        }
    }
    for event in stream.finish() {
        print(&event, &mut ended);
    }
    println!("\nfinal arguments:");
    for (call, name, args, complete) in ended {
        println!("  #{call} {name} (complete: {complete}): {args}");
    }
    Ok(())
}

fn print(event: &ClientEvent, ended: &mut Vec<(usize, String, String, bool)>) {
    println!("{}", event.to_json());
    if let ClientEvent::CallDone { call, end, .. } = event {
        ended.push((*call, end.name.clone(), end.args.to_string(), end.complete));
    }
}
