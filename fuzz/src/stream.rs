//! The `normalize` target's second half: `ToolCallStream` on the same
//! input. After every fragment its value is the parsed snapshot; its events
//! do not depend on the fragments; and its end is `normalize_tool_args`'s.

use argmend::{FieldEvent, ToolCallStream, ToolOptions, Verdict};
use serde_json::Value;

/// Feed `raw` in `chunk`-byte fragments; the events with adjacent string
/// deltas of one path merged, and the end.
fn run(
    tool: &str,
    raw: &[u8],
    chunk: usize,
) -> Result<(Vec<FieldEvent>, argmend::CallEnd), String> {
    let mut call = ToolCallStream::new(tool, ToolOptions::default());
    let mut events: Vec<FieldEvent> = Vec::new();
    for piece in raw.chunks(chunk.max(1)) {
        events.extend(call.feed(piece).events);
        let snapshot = call.snapshot();
        if snapshot.is_empty() {
            if call.value().is_some() {
                return Err(format!("empty snapshot but a value {:?}", call.value()));
            }
            continue;
        }
        // serde_json refuses numbers beyond f64 (`1e400`); nothing to compare then.
        if let Ok(parsed) = serde_json::from_str::<Value>(&snapshot)
            && call.value() != Some(&parsed)
        {
            return Err(format!(
                "the value {:?} is not the snapshot {snapshot:?}",
                call.value()
            ));
        }
    }
    let mut end = call.finish();
    events.append(&mut end.events);
    Ok((merge_deltas(events), end))
}

/// `events` with adjacent string deltas of one path merged: how the deltas
/// split depends on the fragments, not what they say.
pub fn merge_deltas(events: Vec<FieldEvent>) -> Vec<FieldEvent> {
    let mut merged: Vec<FieldEvent> = Vec::new();
    for event in events {
        if let (
            Some(FieldEvent::StringDelta {
                path: last,
                text: so_far,
            }),
            FieldEvent::StringDelta { path, text },
        ) = (merged.last_mut(), &event)
            && last == path
        {
            so_far.push_str(text);
            continue;
        }
        merged.push(event);
    }
    merged
}

/// The check: see the module docs.
pub fn check_tool_stream(tool: &str, raw: &str, chunk: usize) -> Result<(), String> {
    let (whole_events, whole) = run(tool, raw.as_bytes(), usize::MAX)?;
    let (cut_events, cut) = run(tool, raw.as_bytes(), chunk)?;
    // A crossed limit (`NotJson`) stops the engine at a point that depends on
    // the fragments: what it committed before differs, and so do the events.
    if whole.verdict != Verdict::NotJson && whole_events != cut_events {
        return Err(format!(
            "tool {tool:?}: events in {chunk}-byte fragments differ\n  whole: {whole_events:?}\n  cut:   {cut_events:?}"
        ));
    }
    if (&whole.text, whole.verdict, &whole.fixes, whole.complete)
        != (&cut.text, cut.verdict, &cut.fixes, cut.complete)
    {
        return Err(format!(
            "tool {tool:?}: the end in {chunk}-byte fragments differs"
        ));
    }
    let normalized = argmend::normalize_tool_args(tool, raw);
    if whole.text != normalized.text() || whole.verdict != normalized.verdict() {
        return Err(format!(
            "tool {tool:?}: the stream ends with {:?} ({}), normalize_tool_args gives {:?} ({})",
            whole.text,
            whole.verdict,
            normalized.text(),
            normalized.verdict()
        ));
    }
    if whole.verdict != Verdict::NotJson
        && let Ok(value) = serde_json::from_str::<Value>(&whole.text)
        && value != whole.args
    {
        return Err(format!(
            "tool {tool:?}: args {:?} are not the text {:?}",
            whole.args, whole.text
        ));
    }
    Ok(())
}
