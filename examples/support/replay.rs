//! What both stream examples do: replay a recorded stream, one parsed
//! server-sent event per line, print every event as a UI would get it, then
//! each call's mended arguments.

use argmend::ClientEvent;

/// Push every line of `recorded` through `push`, then `finish`, printing.
pub fn replay(
    recorded: &str,
    mut push: impl FnMut(&serde_json::Value) -> Vec<ClientEvent>,
    finish: impl FnOnce() -> Vec<ClientEvent>,
) -> Result<(), serde_json::Error> {
    let mut ended = Vec::new();
    for line in recorded.lines() {
        let event: serde_json::Value = serde_json::from_str(line)?;
        for event in push(&event) {
            print(&event, &mut ended);
        }
    }
    for event in finish() {
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
