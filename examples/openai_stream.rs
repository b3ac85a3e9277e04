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

use std::cell::RefCell;

use argmend::{OpenAiChatStream, ToolOptions};

#[path = "support/replay.rs"]
mod support;

const RECORDED: &str = include_str!("../corpus/model_streams/openai_chat.jsonl");

fn main() -> Result<(), serde_json::Error> {
    let stream = RefCell::new(OpenAiChatStream::new(ToolOptions::default()));
    support::replay(
        RECORDED,
        |event| stream.borrow_mut().push(event),
        || stream.take().finish(),
    )
}
