//! The `call_formats` target (issue 44): `CallParser` reading one
//! open-weight format, chosen by the input, on arbitrary text. It never
//! panics; the calls, their arguments' JSON pieces and the text around them
//! are the same whole and in chunks; and a finished call's `ArgsJson`
//! pieces add up to JSON equal to its arguments (the append-only deltas a
//! server passes on as OpenAI `arguments`), unless a tool-level rule
//! rewrote them at the end, which its fixes then say.

use std::collections::BTreeMap;

use argmend::{CallParser, Event, Format, ToolFixKind, ToolMap, ToolOptions};
use serde_json::Value;

/// The tools every run knows: one with a typed schema (so parameters written
/// as text are typed: integer, boolean, object, array, nullable string) and
/// one without.
fn tools() -> ToolMap {
    let tools = serde_json::json!([
        {"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {
            "a": {"type": "string"},
            "n": {"type": "integer"},
            "x": {"type": "number"},
            "b": {"type": "boolean"},
            "o": {"type": "object"},
            "l": {"type": "array", "items": {"type": "integer"}},
            "s": {"type": ["string", "null"]}
        }}}},
        {"type": "function", "function": {"name": "g", "parameters": {"type": "object"}}}
    ]);
    ToolMap::from_openai_tools(&tools)
}

/// What a run gives: the events but text and pieces, the text, and per
/// call its `ArgsJson` pieces joined.
type Run = (Vec<Event>, String, BTreeMap<usize, String>);

fn run(format: Format, input: &[u8], chunk: usize) -> Run {
    let mut parser = CallParser::with_format(format, ToolOptions::default().tools(tools()));
    let mut events = Vec::new();
    for piece in input.chunks(chunk.max(1)) {
        events.extend(parser.feed(piece));
    }
    events.extend(parser.finish());
    let mut text = String::new();
    let mut json: BTreeMap<usize, String> = BTreeMap::new();
    let events = events
        .into_iter()
        .filter(|event| match event {
            Event::Text(piece) => {
                text.push_str(piece);
                false
            }
            Event::ArgsJson { call, json: piece } => {
                json.entry(*call).or_default().push_str(piece);
                false
            }
            Event::ArgsDelta { .. } => false,
            _ => true,
        })
        .collect();
    (events, text, json)
}

/// Splits a fuzz input: byte 0 picks the format, byte 1 the chunk length
/// (1 to 64); the rest is the model's text.
pub fn split_call_format_input(data: &[u8]) -> Option<(Format, usize, &[u8])> {
    let (&pick, rest) = data.split_first()?;
    let (&chunk, input) = rest.split_first()?;
    let formats: Vec<Format> = Format::all().collect();
    let format = formats[usize::from(pick) % formats.len()];
    Some((format, usize::from(chunk % 64) + 1, input))
}

/// The target's check on one input (see the module's doc).
pub fn check_call_format(data: &[u8]) -> Result<(), String> {
    let Some((format, chunk, input)) = split_call_format_input(data) else {
        return Ok(());
    };
    let whole = run(format, input, input.len().max(1));
    let chunked = run(format, input, chunk);
    if whole != chunked {
        return Err(format!(
            "{}: chunks of {chunk} differ from one shot:\n{:?}\n{:?}",
            format.name(),
            chunked,
            whole
        ));
    }
    let (events, _, json) = whole;
    for event in events {
        let Event::CallReady {
            call, args, fixes, ..
        } = event
        else {
            continue;
        };
        let rewritten = fixes
            .iter()
            .any(|fix| !matches!(fix.kind, ToolFixKind::Repair(_)));
        // serde_json refuses numbers beyond f64 (`1e400`): nothing to compare then.
        let Ok(args) = serde_json::from_str::<Value>(&args) else {
            continue;
        };
        let pieces = json.get(&call).map(String::as_str).unwrap_or("");
        match serde_json::from_str::<Value>(pieces) {
            Ok(streamed) if rewritten || streamed == args => {}
            Err(_) if pieces.contains("e") || pieces.contains("E") => {}
            _ => {
                return Err(format!(
                    "{}: call {call}'s ArgsJson pieces {pieces:?} are not its arguments {args}",
                    format.name()
                ));
            }
        }
    }
    Ok(())
}
