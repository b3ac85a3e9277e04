//! Issue 14, the call parser's part: prose that mentions a tag stays text,
//! a call cut off by the end of input is not run, an attribute ends at its
//! quote and the tag's close, and messages name the real problem.

use std::process::Command;

use argmend::Event;

use crate::call::{parse_cut, text as text_of};

use crate::support::TempDir;

/// All events for `input` fed in chunks of `size` bytes.
fn events(input: &str, size: usize) -> Vec<Event> {
    let cuts: Vec<usize> = (size.max(1)..input.len()).step_by(size.max(1)).collect();
    parse_cut(input.as_bytes(), &cuts)
}

fn calls(events: &[Event]) -> usize {
    events
        .iter()
        .filter(|e| matches!(e, Event::CallReady { .. } | Event::Error { .. }))
        .count()
}

#[test]
fn a_prose_mention_of_a_tag_is_text() {
    for input in [
        "I could emit a <tool_call> here, but I do not need one. The answer is 3.",
        "Use a <tool_call tag for that, then pass it to the @json tool.</think> The answer is 3.",
        "A bare <tool_call>\n\n",
        "Or <tool> maybe.",
    ] {
        for size in [1, 3, 7, 64] {
            let events = events(input, size);
            assert_eq!(
                calls(&events),
                0,
                "{input:?} in {size}-byte chunks: {events:?}"
            );
            assert_eq!(text_of(&events), input, "{input:?} in {size}-byte chunks");
        }
    }
    // A real call in the same position still runs.
    let events = events(
        "<tool_call>{\"name\": \"@json\", \"arguments\": {\"cmd\": \"keys\"}}</tool_call>",
        5,
    );
    assert!(
        matches!(events.last(), Some(Event::CallReady { closed: true, .. })),
        "{events:?}"
    );
}

#[test]
fn a_call_cut_off_says_so() {
    let input = "<tool_call name=\"@json\">get --file resp.json --path data.items[2].na";
    for size in [1, 4, 100] {
        let events = events(input, size);
        assert!(
            matches!(events.last(), Some(Event::CallReady { closed: false, .. })),
            "{events:?}"
        );
    }
    let closed = events("<tool_call name=\"@json\">get --file a.json</tool_call>", 3);
    assert!(
        matches!(closed.last(), Some(Event::CallReady { closed: true, .. })),
        "{closed:?}"
    );
    let object = events(
        "{\"tool_call\": \"@json\", \"args\": {\"cmd\": \"keys\", \"args\": {\"file\": \"a.json\"",
        2,
    );
    assert!(
        matches!(object.last(), Some(Event::CallReady { closed: false, .. })),
        "{object:?}"
    );
}

#[test]
fn an_attribute_ends_at_its_quote_and_the_tag_close() {
    let input = "<tool_call name=\"@json\" args='{\"cmd\":\"get\",\"args\":{\"file\":\"resp.json\",\"path\":\"data.items[0].name\"' />\nDone.";
    for size in [1, 2, 5, 13, 200] {
        let events = events(input, size);
        let Some(Event::CallReady { args, closed, .. }) =
            events.iter().find(|e| matches!(e, Event::CallReady { .. }))
        else {
            panic!("{events:?}");
        };
        assert_eq!(
            args, r#"{"cmd":"get","args":{"file":"resp.json","path":"data.items[0].name"}}"#,
            "{size}-byte chunks"
        );
        assert!(*closed);
        assert_eq!(text_of(&events), "\nDone.", "{size}-byte chunks");
    }
    // A quote of the JSON's own (single-quoted strings) is not the end.
    let events = events("<tool_call name=\"@json\" args='{'cmd': 'keys'}' />", 3);
    let Some(Event::CallReady { args, .. }) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(args, r#"{"cmd": "keys"}"#);
}

#[test]
fn the_cli_reports_cut_off_calls_and_unknown_tools() {
    let dir = TempDir::new();
    dir.write(
        "resp.json",
        "{\"data\": {\"items\": [{\"name\": \"web\"}]}}",
    );
    let run = |input: &str, extra: &[&str]| {
        let path = dir.path().join("in.txt");
        std::fs::write(&path, input).unwrap();
        let output = Command::new(env!("CARGO_BIN_EXE_argmend"))
            .arg("call")
            .args(extra)
            .arg(&path)
            .current_dir(dir.path())
            .output()
            .unwrap();
        (
            String::from_utf8_lossy(&output.stdout).into_owned(),
            output.status.code(),
        )
    };
    let cut =
        "Reading it: <tool_call name=\"@json\">get --file resp.json --path data.items[0].name";
    let (out, code) = run(cut, &[]);
    assert_eq!(code, Some(1));
    assert!(
        out.starts_with(
            "Reading it: \n<tool_result name=\"@json\" ok=\"false\">\nnot run: the input ended"
        ),
        "{out}"
    );
    let (out, code) = run(cut, &["--run-incomplete"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("\"web\""), "{out}");
    let (out, _) = run("<tool_call name=\"@bash\">ls -la</tool_call>", &[]);
    assert!(
        out.contains("unknown tool `@bash`: the tools are @diff, @json, diff, json"),
        "{out}"
    );
    assert!(!out.contains("ToolMap"), "{out}");
    let (out, _) = run("<tool_call>{\"arguments\": {\"a\": 1}}</tool_call>", &[]);
    assert!(out.contains("the call object names no tool"), "{out}");
    assert!(!out.contains("add name="), "{out}");
    // Prose is printed as prose.
    let prose = "I could emit a <tool_call> here, but I do not need one. The answer is 3.\n";
    assert_eq!(run(prose, &[]), (prose.to_owned(), Some(0)));
}

/// Issue 28: an unknown tool's message listed the tools in one order when
/// the call's arguments could not be read (`@json, @diff, json, diff`, the
/// CLI's own list) and in another when they could (the dispatcher's). Now
/// every form gives the dispatcher's sorted list, and `serve` and the
/// library say the same.
#[test]
fn an_unknown_tool_lists_the_tools_in_one_order() {
    const LISTED: &str = "the tools are @diff, @json, diff, json";
    let dir = TempDir::new();
    let forms = [
        // A command line, which only a known tool's table could read.
        "<tool_call name=\"@bash\">ls -la</tool_call>",
        // Arguments cut off inside their object.
        "<tool_call name=\"@bash\">{\"a\": </tool_call>",
        "<tool_call name=\"@bash\" args='{\"a\": 1}' />",
        "<tool name=\"@bash\">{\"cmd\": \"ls\"}</tool>",
        "{\"tool_call\": \"@bash\", \"args\": {\"a\": 1}}",
    ];
    for form in forms {
        let path = dir.path().join("in.txt");
        std::fs::write(&path, form).unwrap();
        let output = Command::new(env!("CARGO_BIN_EXE_argmend"))
            .args(["call", "--workspace"])
            .arg(dir.path())
            .arg(&path)
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&output.stdout);
        assert!(
            out.contains(&format!("unknown tool `@bash`: {LISTED}\n")),
            "{form}: {out}"
        );
        assert_eq!(output.status.code(), Some(1), "{form}: {out}");
    }
    let dispatcher = argmend::Dispatcher::new(dir.workspace());
    let result = dispatcher.run("@bash", "{}");
    assert_eq!(result.output, format!("unknown tool `@bash`: {LISTED}"));
    assert_eq!(dispatcher.tool_names(), ["@diff", "@json", "diff", "json"]);
    // MCP names its own three tools, sorted the same way.
    let mut session = crate::mcp::Session::start(&dir, &[]);
    session.send(
        &serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "bash", "arguments": {}}}),
    );
    let answer = session.receive();
    assert_eq!(
        answer["error"]["message"], "unknown tool `bash`: the tools are diff, json, repair",
        "{answer}"
    );
    assert!(session.finish().0);
}
