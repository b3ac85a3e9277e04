//! Replays a recorded Anthropic Messages stream (a text block, then four tool_use
//! blocks: one split inside escapes, one malformed, one with split `\u`
//! escapes, one cut off by `max_tokens`) through
//! `AnthropicStream`, printing every event as it would reach a UI, then each
//! call's mended arguments.
//!
//!     cargo run --release --example anthropic_stream
//!
//! With your own client: parse the `data:` of each server-sent event
//! into a `serde_json::Value` and hand it to `push`, exactly as below.

use std::cell::RefCell;

use argmend::{AnthropicStream, ToolOptions};

#[path = "support/replay.rs"]
mod support;

const RECORDED: &str = include_str!("../corpus/model_streams/anthropic.jsonl");

fn main() -> Result<(), serde_json::Error> {
    let stream = RefCell::new(AnthropicStream::new(ToolOptions::default()));
    support::replay(
        RECORDED,
        |event| stream.borrow_mut().push(event),
        || stream.take().finish(),
    )
}
