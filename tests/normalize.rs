//! Tool-aware normalization (issue 3): every example of the issue as a golden
//! test through the library, tables for the wrapping rule, the command-line
//! parser and the curly-quote rule, and schema-guided repair.
//!
//! Every library case also runs through `ToolRepairer` one byte at a time and
//! must give the same `Normalized` as the one-shot call.

mod cli; // the built binary: `repair --tool/--schema`, batch lines, `quotes`
mod conformance; // the `schema` cases of ../shared/conformance/json_repair.jsonl
mod quotes; // typographic quotes: the path rule, each language family, markup
mod schema; // double-encoded arguments and schema-guided coercion
mod stream; // chunk invariance: tables one byte at a time, proptest chunkings

use argmend::{
    Normalized, Strategy, ToolFixKind, ToolMap, ToolOptions, ToolRepairer, Verdict,
    normalize_tool_args, normalize_tool_args_with,
};
use serde_json::json;

/// Normalize one-shot and one byte at a time; both must agree.
fn run(tool: &str, raw: &str, options: &ToolOptions) -> Normalized {
    let whole = normalize_tool_args_with(tool, raw, options);
    let mut stream = ToolRepairer::new(tool, options.clone());
    for byte in raw.as_bytes() {
        stream.feed(std::slice::from_ref(byte));
    }
    assert_eq!(
        stream.finish(),
        whole,
        "byte by byte vs one-shot: {tool} {raw:?}"
    );
    whole
}

/// `(tool, raw, expected text, expected strategy number)` with default options.
#[track_caller]
fn table(cases: &[(&str, &str, &str, Option<u8>)]) {
    for &(tool, raw, text, strategy) in cases {
        let normalized = run(tool, raw, &ToolOptions::default());
        assert_eq!(normalized.text(), text, "{tool} {raw:?}");
        assert_eq!(
            normalized.strategy().map(Strategy::number),
            strategy,
            "{tool} {raw:?}"
        );
    }
}

fn kinds(normalized: &Normalized) -> Vec<&'static str> {
    normalized
        .fixes()
        .iter()
        .map(|fix| fix.kind.name())
        .collect()
}

#[test]
fn the_seven_strategies() {
    table(&[
        (
            "read_file",
            r#"{"cmd":"read","args":{"file":"main.go"}}"#,
            r#"{"cmd":"read","args":{"file":"main.go"}}"#,
            Some(1),
        ),
        (
            "read_file",
            "{'cmd':'read','file':'main.go'}",
            r#"{"cmd":"read","file":"main.go"}"#,
            Some(2),
        ),
        (
            "read_file",
            r#"{cmd: "read", file: "main.go"}"#,
            r#"{"cmd": "read", "file": "main.go"}"#,
            Some(3),
        ),
        (
            "read_file",
            "{cmd: 'read', file: 'main.go'}",
            r#"{"cmd": "read", "file": "main.go"}"#,
            Some(4),
        ),
        (
            "read_file",
            r#"{"cmd":"read","file":"main.go",}"#,
            r#"{"cmd":"read","file":"main.go"}"#,
            Some(5),
        ),
        ("read_file", "main.go", r#"{"file":"main.go"}"#, Some(6)),
        // The issue's table prints this one without spaces; argmend keeps the
        // input's layout, as the engine does everywhere.
        (
            "read_file",
            "{cmd: read, file: main.go, append: true}",
            r#"{"cmd": "read", "file": "main.go", "append": true}"#,
            Some(7),
        ),
    ]);
    let valid = run("read_file", r#"{"cmd":"read"}"#, &ToolOptions::default());
    assert_eq!(valid.verdict(), Verdict::Valid);
    assert!(valid.fixes().is_empty());
}

#[test]
fn empty_arguments_are_an_empty_object() {
    for raw in ["", "  ", "\n\t "] {
        let normalized = run("read_file", raw, &ToolOptions::default());
        assert_eq!(normalized.text(), "{}");
        assert_eq!(kinds(&normalized), ["empty_arguments"]);
    }
}

#[test]
fn valid_json_of_any_kind_passes_unchanged() {
    for raw in [
        r#""main.go""#,
        "42",
        "true",
        "null",
        "[1, 2]",
        r#"{"a": [1, {"b": null}]}"#,
        " 1.50 ",
    ] {
        let normalized = run("read_file", raw, &ToolOptions::default());
        assert_eq!(normalized.text(), raw);
        assert_eq!(normalized.verdict(), Verdict::Valid, "{raw}");
        assert_eq!(normalized.strategy(), Some(Strategy::StrictParse));
    }
}

#[test]
fn numbers_order_duplicates_and_nesting_survive() {
    table(&[
        // Integers above 2^53 and number spellings keep their text.
        (
            "t",
            "{n: 12345678901234567890123, x: 1.50, e: 2E+3}",
            r#"{"n": 12345678901234567890123, "x": 1.50, "e": 2E+3}"#,
            Some(3),
        ),
        // Key order and duplicate keys are kept.
        (
            "t",
            "{b: 1, a: 2, b: 3}",
            r#"{"b": 1, "a": 2, "b": 3}"#,
            Some(3),
        ),
        // A nested unquoted object stays an object.
        (
            "t",
            "{args: {file: x}}",
            r#"{"args": {"file": "x"}}"#,
            Some(7),
        ),
        // Text inside strings is never touched by the syntax strategies.
        (
            "t",
            r#"{a: "it's {b: c}, 'd',"}"#,
            r#"{"a": "it's {b: c}, 'd',"}"#,
            Some(3),
        ),
    ]);
}

#[test]
fn bare_values_are_typed() {
    table(&[
        (
            "t",
            "{a: TRUE, b: fAlSe, c: None, d: nUlL, e: NONE, f: 7, g: -1.5e3, h: word, i: 'q'}",
            r#"{"a": true, "b": false, "c": null, "d": null, "e": null, "f": 7, "g": -1.5e3, "h": "word", "i": "q"}"#,
            Some(7),
        ),
        ("t", "[tRuE, nOnE]", "[true, null]", Some(7)),
    ]);
    let normalized = run("t", "{a: tRuE}", &ToolOptions::default());
    assert_eq!(kinds(&normalized), ["quoted_key", "replaced_literal"]);
    assert_eq!(normalized.fixes()[1].offset, 4);
}

#[test]
fn nothing_is_lost_when_nothing_yields_json() {
    for (tool, raw) in [
        ("unknown_tool", "main.go"),
        ("@coder", "read --file 'main.go"),
        ("t", "   "),
    ] {
        let normalized = run(tool, raw, &ToolOptions::default());
        if raw.trim().is_empty() {
            continue;
        }
        assert_eq!(normalized.verdict(), Verdict::NotJson, "{raw}");
        assert_eq!(normalized.text(), raw);
        assert_eq!(normalized.strategy(), None);
        assert!(normalized.reason().is_some());
        assert!(normalized.fixes().is_empty());
    }
    let unbalanced = run("@coder", "read --file \"main.go", &ToolOptions::default());
    assert_eq!(
        unbalanced.reason(),
        Some("a command line that cannot be split: unbalanced double quote at byte 12")
    );
}

#[test]
fn the_wrapping_rule() {
    // (tool, raw, wrapped?)
    let cases = [
        ("run_command", "ls -la", true),
        // A command-line tool takes the whole line, flags and all.
        ("run_command", "ls -l", true),
        ("run_command", "ls", true),
        ("run_command", "git status --short", true),
        ("bash", "grep -rn 'TODO' src", true),
        ("read_file", "my notes.txt", true),
        ("read_file", "read main.go", false), // first word is a coder subcommand
        ("read_file", "read", true),          // ... but one word is a value
        ("read_file", "git-diff HEAD", false),
        ("read_file", "--file main.go", false),
        ("read_file", "a -b", false),
        ("read_file", "a -bc", true),
        ("read_file", "a-b c", true),
        ("read_file", "{file: 'x'}", false), // starts with `{`: the engine's
        ("read_file", "[1, 2", false),       // starts with `[`: the engine's
        ("read_file", "'main.go'", true),
    ];
    for (tool, raw, wrapped) in cases {
        let normalized = run(tool, raw, &ToolOptions::default());
        let is_wrapped = normalized
            .fixes()
            .iter()
            .any(|f| f.kind == ToolFixKind::WrappedValue);
        assert_eq!(
            is_wrapped,
            wrapped,
            "{tool} {raw:?} → {}",
            normalized.text()
        );
    }
    table(&[
        ("run_command", "ls -la", r#"{"cmd":"ls -la"}"#, Some(6)),
        ("READ_FILE", "main.go", r#"{"file":"main.go"}"#, Some(6)),
        ("Read", "main.go", r#"{"file_path":"main.go"}"#, Some(6)),
        ("read", "main.go", r#"{"file":"main.go"}"#, Some(6)),
        ("Bash", "make test", r#"{"command":"make test"}"#, Some(6)),
        ("BASH", "make", r#"{"command":"make"}"#, Some(6)),
        ("search_files", "TODO", r#"{"term":"TODO"}"#, Some(6)),
        // Quoted text loses its quotes; other bare values are typed.
        ("read_file", "'main.go'", r#"{"file":"main.go"}"#, Some(6)),
        ("read_file", "“main.go”", r#"{"file":"main.go"}"#, Some(6)),
        ("git_log", "TRUE", r#"{"dir":true}"#, Some(6)),
        ("git_log", "None", r#"{"dir":null}"#, Some(6)),
        (
            "run_command",
            "  echo \"hi\"\n",
            r#"{"cmd":"echo \"hi\""}"#,
            Some(6),
        ),
    ]);
}

#[test]
fn the_builtin_table() {
    let tools = ToolMap::builtin();
    let fields = tools.fields();
    assert_eq!(fields.len(), 38);
    for (tool, field) in fields {
        let normalized = run(tool, "value", &ToolOptions::default());
        assert_eq!(
            normalized.text(),
            format!(r#"{{"{field}":"value"}}"#),
            "{tool}"
        );
    }
    for (tool, field) in [
        ("read_file", "file"),
        ("write_file", "file"),
        ("patch_file", "file"),
        ("rollback_file", "file"),
        ("list_directory", "dir"),
        ("git_status", "dir"),
        ("git_diff", "dir"),
        ("git_log", "dir"),
        ("git_changed", "dir"),
        ("git_branch", "dir"),
        ("run_tests", "dir"),
        ("clean_backups", "dir"),
        ("search_files", "term"),
        ("run_command", "cmd"),
        ("read", "file"),
        ("write", "file"),
        ("patch", "file"),
        ("rollback", "file"),
        ("tree", "dir"),
        ("git-status", "dir"),
        ("git-diff", "dir"),
        ("git-log", "dir"),
        ("git-changed", "dir"),
        ("git-branch", "dir"),
        ("test", "dir"),
        ("clean", "dir"),
        ("search", "term"),
        ("exec", "cmd"),
        ("@coder", "cmd"),
        ("coder", "cmd"),
        ("bash", "command"),
        ("shell", "command"),
        ("Bash", "command"),
        ("Read", "file_path"),
        ("Write", "file_path"),
        ("Edit", "file_path"),
        ("Glob", "pattern"),
        ("Grep", "pattern"),
    ] {
        assert_eq!(tools.primary_field(tool), Some(field), "{tool}");
    }
}

#[test]
fn registered_tools_and_schema_fields() {
    let options = ToolOptions::default().tools(ToolMap::default().with_tool("fetch", "url"));
    assert_eq!(
        run("fetch", "https://x.dev", &options).text(),
        r#"{"url":"https://x.dev"}"#
    );
    assert_eq!(
        run("FETCH", "https://x.dev", &options).text(),
        r#"{"url":"https://x.dev"}"#
    );
    let only = ToolOptions::default().schema(json!({"properties": {"query": {"type": "string"}}}));
    assert_eq!(
        run("web", "rust streaming json", &only).text(),
        r#"{"query":"rust streaming json"}"#
    );
    let required = ToolOptions::default().schema(json!({
        "properties": {"q": {"type": "string"}, "n": {"type": "integer"}, "lang": {"type": "string"}},
        "required": ["q", "n"]
    }));
    assert_eq!(run("web", "rust", &required).text(), r#"{"q":"rust"}"#);
    // The schema names the field even for a tool of the table.
    assert_eq!(
        run("read_file", "a.go", &only).text(),
        r#"{"query":"a.go"}"#
    );
}

#[test]
fn command_lines() {
    table(&[
        (
            "@coder",
            "read --file main.go",
            r#"{"cmd":"read","args":{"file":"main.go"}}"#,
            Some(6),
        ),
        (
            "coder",
            "read main.go",
            r#"{"cmd":"read","args":{"file":"main.go"}}"#,
            Some(6),
        ),
        (
            "@coder",
            "read a.go b.go c.go",
            r#"{"cmd":"read","args":{"file":"a.go","positional":["b.go","c.go"]}}"#,
            Some(6),
        ),
        (
            "@coder",
            "search --term 'two words' --max 5 --regex",
            r#"{"cmd":"search","args":{"term":"two words","max":5,"regex":true}}"#,
            Some(6),
        ),
        (
            "@json",
            "get --path a.b --pretty=true",
            r#"{"cmd":"get","args":{"path":"a.b","pretty":true}}"#,
            Some(6),
        ),
        (
            "@diff",
            "files --a x --b y",
            r#"{"cmd":"files","args":{"a":"x","b":"y"}}"#,
            Some(6),
        ),
        (
            "read_file",
            "--file main.go",
            r#"{"file":"main.go"}"#,
            Some(6),
        ),
        (
            "read_file",
            "--file=main.go --start 10 -n 5",
            r#"{"file":"main.go","start":10,"n":5}"#,
            Some(6),
        ),
        (
            "read_file",
            "a.go --tag x --tag y --tag z",
            r#"{"file":"a.go","tag":["x","y","z"]}"#,
            Some(6),
        ),
        (
            "read_file",
            "--verbose --quiet a.go",
            r#"{"verbose":true,"quiet":"a.go"}"#,
            Some(6),
        ),
        (
            "read_file",
            "--append TRUE --n \"5\" --x none",
            r#"{"append":true,"n":"5","x":null}"#,
            Some(6),
        ),
        (
            "read_file",
            "--offset -5 -- --not-a-flag",
            r#"{"offset":-5,"file":"--not-a-flag"}"#,
            Some(6),
        ),
        (
            "read_file",
            r#"--msg "say \"hi\" \$x \n" --lit 'a\b'"#,
            r#"{"msg":"say \"hi\" $x \\n","lit":"a\\b"}"#,
            Some(6),
        ),
        ("run_command", "ls -l", r#"{"cmd":"ls -l"}"#, Some(6)),
        (
            "@coder",
            "read --file a.go",
            r#"{"cmd":"read","args":{"file":"a.go"}}"#,
            Some(6),
        ),
        (
            "unknown",
            "x --flag",
            r#"{"positional":["x"],"flag":true}"#,
            Some(6),
        ),
    ]);
    let registered = ToolOptions::default().tools(ToolMap::default().with_subcommands("@git"));
    assert_eq!(
        run("@git", "log --n 3", &registered).text(),
        r#"{"cmd":"log","args":{"n":3}}"#
    );
    let line = run("@coder", "  read --file main.go", &ToolOptions::default());
    assert_eq!(kinds(&line), ["parsed_command_line"]);
    assert_eq!(line.fixes()[0].offset, 2);
}

#[test]
fn telemetry_counts_kinds_and_never_content() {
    let normalized = run(
        "write_file",
        "{file: 'secret.go', content: 'password = “hunter2”',}",
        &ToolOptions::default(),
    );
    let telemetry = normalized.telemetry();
    assert_eq!(telemetry.count(ToolFixKind::StraightenedQuote), 2);
    let line = telemetry.to_string();
    assert_eq!(
        line,
        r#"{"strategy":4,"verdict":"repaired","fixes":{"quoted_key":2,"removed_comma":1,"replaced_quotes":2,"straightened_quote":2}}"#
    );
    for secret in ["secret", "hunter2", "password", "file"] {
        assert!(!line.contains(secret));
    }
    let not_json = run("unknown", "plain", &ToolOptions::default()).telemetry();
    assert_eq!(
        not_json.to_string(),
        r#"{"strategy":null,"verdict":"not_json","fixes":{}}"#
    );
}

#[test]
fn public_types_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Normalized>();
    assert_send_sync::<ToolRepairer>();
    assert_send_sync::<ToolOptions>();
    assert_send_sync::<ToolMap>();
    assert_send_sync::<argmend::Telemetry>();
    assert_send_sync::<argmend::NormalizedQuotes<'static>>();
}

#[test]
fn limits_are_reported_not_panicked() {
    let options = ToolOptions::default().repair_options(argmend::Options::default().max_depth(3));
    let normalized = run("t", "[[[[[1]]]]]", &options);
    assert_eq!(normalized.verdict(), Verdict::NotJson);
    assert_eq!(normalized.text(), "[[[[[1]]]]]");
    assert!(
        normalized.reason().is_some_and(|r| r.contains("deep")),
        "{:?}",
        normalized.reason()
    );
}

#[test]
fn one_shot_default_is_the_same_as_with_default_options() {
    let raw = "{cmd: 'read'}";
    assert_eq!(
        normalize_tool_args("@coder", raw),
        normalize_tool_args_with("@coder", raw, &ToolOptions::default())
    );
}

/// JSON inside a string (an `object` field sent as text) is mended with the
/// caller's engine limits, not the defaults.
#[test]
fn nested_repairs_obey_the_callers_limits() {
    let schema = json!({"type": "object", "properties": {"cfg": {"type": "object"}}});
    let raw = r#"{"cfg": "{'a': {'b': {'c': {'d': 1}}}}"}"#;
    let loose = ToolOptions::default().schema(schema.clone());
    let decoded = normalize_tool_args_with("t", raw, &loose)
        .to_value()
        .unwrap();
    assert_eq!(decoded["cfg"]["a"]["b"]["c"]["d"], 1, "{decoded}");
    let tight = ToolOptions::default()
        .schema(schema)
        .repair_options(argmend::Options::default().max_depth(3));
    let kept = normalize_tool_args_with("t", raw, &tight)
        .to_value()
        .unwrap();
    assert!(kept["cfg"].is_string(), "{kept}");
}

/// The engine's doubts come with the normalized arguments, at offsets of the
/// text passed in (leading whitespace included), the same however the input
/// was cut; a reading the engine's text is not used for (a wrapped plain
/// value) carries none, and the verdict does not change.
#[test]
fn doubts_travel_with_the_normalized_arguments() {
    use argmend::{Doubt, DoubtKind};
    let early = |offset| Doubt {
        kind: DoubtKind::EarlyClose,
        offset,
    };
    for (raw, offset) in [
        (r#"{"file": "a.go"} note: "done""#, 17),
        (r#"  {"file": "a.go"} note: "done""#, 19),
    ] {
        let normalized = run("read_file", raw, &ToolOptions::default());
        assert_eq!(normalized.doubts(), &[early(offset)], "{raw:?}");
        assert_eq!(normalized.to_value(), Some(json!({"file": "a.go"})));
        assert_eq!(normalized.verdict(), Verdict::Repaired);
        // With a schema too (the engine is told the keys).
        let schema = json!({"type": "object", "properties": {"file": {"type": "string"}}});
        let with_schema = run("read_file", raw, &ToolOptions::default().schema(schema));
        assert_eq!(with_schema.doubts(), &[early(offset)], "{raw:?}");
        // In two chunks, cut before the quote of the trailing text.
        let mut stream = ToolRepairer::new("read_file", ToolOptions::default());
        let cut = raw.find("note").unwrap();
        stream.feed(&raw.as_bytes()[..cut]);
        stream.feed(&raw.as_bytes()[cut..]);
        assert_eq!(stream.finish().doubts(), &[early(offset)]);
    }
    for raw in [r#"{"file": "a.go"}"#, "{file: 'a.go',}", "main.go"] {
        let normalized = run("read_file", raw, &ToolOptions::default());
        assert!(normalized.doubts().is_empty(), "{raw:?}");
    }
}

/// A bare value for a tool the built-in table knows goes to the table's
/// field only when the caller's schema declares it: with a schema of
/// `query` and `limit`, `search` refuses rather than invent `term` (issue
/// 29's SDK work found it); with `query` required, `query` gets it.
#[test]
fn the_builtin_field_yields_to_a_schema_that_does_not_declare_it() {
    let schema = json!({"type": "object", "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}}});
    let options = ToolOptions::default().schema(schema);
    let normalized = normalize_tool_args_with("search", "weather", &options);
    assert_eq!(
        normalized.verdict(),
        Verdict::NotJson,
        "{}",
        normalized.text()
    );
    assert!(!normalized.text().contains("term"));
    let required = json!({"type": "object", "required": ["query"], "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}}});
    let normalized = normalize_tool_args_with(
        "search",
        "weather",
        &ToolOptions::default().schema(required),
    );
    assert_eq!(normalized.text(), r#"{"query":"weather"}"#);
    // Without a schema, the table's field is the best there is.
    assert_eq!(
        argmend::normalize_tool_args("search", "weather").text(),
        r#"{"term":"weather"}"#
    );
}
