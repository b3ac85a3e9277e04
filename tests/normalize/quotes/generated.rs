//! Generated inputs: valid calls whose typographic quotes are all data
//! come back byte for byte in every mode, and any text bound for any family
//! is straightened only at typographic quotes, in linear time.

use argmend::{ToolOptions, Verdict, normalize_quotes};
use serde_json::json;

use super::super::{cli, run};
use crate::rng::Rng;

/// Text full of typographic quotes, none of them a delimiter once placed in
/// a literal, a comment or prose: no straight quote, backslash, line break,
/// `<`, `{` or comment marker, so it cannot end what holds it.
const DATA: [&str; 18] = [
    "it’s",
    "“quoted”",
    "‘single’",
    "«guillemets»",
    "« spaced »",
    "a » b",
    "x « y",
    "5′ 3″",
    "the ‘^’ marking",
    "“open",
    "close”",
    "’tis",
    "rock ’n’ roll",
    "«",
    "»",
    "“",
    "’",
    "‘",
];

/// Per file, places for data (`{d}`) where the language reads it as a
/// string literal, a comment, markup text or prose.
const PLACES: [(&str, &[&str]); 16] = [
    (
        "app.py",
        &[
            "print(\"{d}\")  # {d}\n",
            "s = '{d}'\n",
            "def f():\n    \"\"\"{d}\n    {d}\n    \"\"\"\n    return 1\n",
            "CP437 = {0xAE: \"{d}\", 0xAF: \"{d}\"}\n",
        ],
    ),
    (
        "main.go",
        &[
            "fmt.Println(\"{d}\") // {d}\n",
            "/* {d}\n   {d} */\n",
            "s := `{d}`\n",
        ],
    ),
    (
        "lib.c",
        &[
            "puts(\"{d}\"); /* {d} */\n",
            "// {d}\n",
            "#define MSG \"{d}\"\n",
        ],
    ),
    (
        "src/lib.rs",
        &[
            "let s = \"{d}\"; // {d}\n",
            "/// {d}\nfn f() {}\n",
            "let r = r#\"{d}\"#;\n",
            "/* {d} /* {d} */ */\n",
        ],
    ),
    (
        "app.ts",
        &[
            "const s = '{d}'; // {d}\n",
            "const t = `{d}`;\n",
            "/**\n * {d}\n */\n",
        ],
    ),
    ("Card.jsx", &["return <p title=\"{d}\">{d}</p>;\n"]),
    (
        "run.sh",
        &[
            "echo '{d}'  # {d}\n",
            "echo \"{d}\"\n",
            "cat <<'EOF'\n{d}\nEOF\n",
        ],
    ),
    ("q.sql", &["SELECT '{d}'; -- {d}\n"]),
    ("ci.yml", &["title: x {d}\n", "# {d}\n", "msg: \"{d}\"\n"]),
    ("Cargo.toml", &["name = \"{d}\"  # {d}\n"]),
    (
        "index.html",
        &["<p>{d}</p>\n<!-- {d} -->\n", "<a title=\"{d}\">{d}</a>\n"],
    ),
    (
        "style.css",
        &["a::before { content: \"{d}\"; } /* {d} */\n"],
    ),
    ("README.md", &["# {d}\n\nRun print({d}) and x = {d}\n"]),
    ("notes.txt", &["x = {d}\n"]),
    ("doc.rst", &["``print({d})`` {d}\n"]),
    ("page.php", &["<?php echo '{d}'; // {d} ?>\n<p>{d}</p>\n"]),
];

/// A call's tool, its arguments and a schema that declares every key.
fn data_call(rng: &mut Rng) -> (&'static str, serde_json::Value, serde_json::Value) {
    let &(path, places) = rng.pick(&PLACES);
    let mut content = String::new();
    for _ in 0..1 + rng.below(3) {
        let mut place = *rng.pick(places);
        while let Some(at) = place.find("{d}") {
            content.push_str(&place[..at]);
            let words: Vec<&str> = (0..1 + rng.below(4)).map(|_| *rng.pick(&DATA)).collect();
            content.push_str(&words.join(" "));
            place = &place[at + 3..];
        }
        content.push_str(place);
    }
    assert!(
        !normalize_quotes(path, &content).changed(),
        "{path}: {content:?}"
    );
    let string = json!({"type": "string"});
    match rng.below(4) {
        0 => (
            "write_file",
            json!({"path": path, "content": content}),
            json!({"type": "object", "properties": {"path": string, "content": string}}),
        ),
        1 => (
            "Edit",
            json!({"file_path": path, "old_string": content, "new_string": content}),
            json!({"type": "object", "properties": {
                "file_path": string, "old_string": string, "new_string": string
            }}),
        ),
        2 => (
            "@coder",
            json!({"cmd": "write", "args": {"file": path, "content": content}}),
            json!({"type": "object", "properties": {
                "cmd": string,
                "args": {"type": "object", "properties": {"file": string, "content": string}}
            }}),
        ),
        _ => (
            "str_replace_editor",
            json!({"command": "create", "path": path, "file_text": content}),
            json!({"type": "object", "properties": {
                "command": string, "path": string, "file_text": string
            }}),
        ),
    }
}

/// How many generated calls run through the library, and how many of them
/// through the binary too (a process each per mode).
const DATA_CALLS: usize = 400;
const DATA_CALLS_CLI: usize = 24;

/// The property of issue 25: a valid call whose typographic quotes are all
/// data (in the code's literals and comments, in markup text, in prose)
/// comes back byte for byte, verdict `Valid`, no fix, in every mode: the
/// library with and without a schema (lenient and strict), one shot and
/// streamed one byte at a time, and the binary's `repair --tool` plain,
/// `--stream`, `--fixes`, `--schema`, `--schema --strict` and `--batch`.
#[test]
fn valid_calls_with_quotes_as_data_come_back_byte_for_byte() {
    let mut rng = Rng::new(0x0025_C0DE_DA7A_0001);
    let mut batch = String::new();
    let mut expected_batch = String::new();
    for i in 0..DATA_CALLS {
        let (tool, args, schema) = data_call(&mut rng);
        let raw = match rng.below(3) {
            0 => serde_json::to_string(&args).expect("a value serialises"),
            1 => serde_json::to_string_pretty(&args).expect("a value serialises"),
            _ => {
                let mut out = Vec::new();
                let tabs = serde_json::ser::PrettyFormatter::with_indent(b"\t");
                let mut serializer = serde_json::Serializer::with_formatter(&mut out, tabs);
                serde::Serialize::serialize(&args, &mut serializer).expect("a value serialises");
                String::from_utf8(out).expect("JSON is UTF-8")
            }
        };
        let lenient = ToolOptions::default().schema(schema.clone());
        let strict = lenient.clone().mode(argmend::SchemaMode::Strict);
        for (mode, options) in [
            ("default", ToolOptions::default()),
            ("schema", lenient),
            ("strict schema", strict),
        ] {
            // One shot and one byte at a time (`run` checks they agree).
            let normalized = run(tool, &raw, &options);
            assert_eq!(normalized.text(), raw, "{mode}: {tool} {raw}");
            assert_eq!(normalized.verdict(), Verdict::Valid, "{mode}: {raw}");
            assert!(normalized.fixes().is_empty(), "{mode}: {raw}");
        }
        assert_eq!(argmend::normalize_tool_args(tool, &raw).text(), raw);
        if i >= DATA_CALLS_CLI {
            continue;
        }
        let schema_file = cli::scratch(&format!("quotes-data-{i}.json"), &schema.to_string());
        let schema_file = schema_file.to_str().expect("a UTF-8 path");
        for flags in [
            &[][..],
            &["--stream"],
            &["--fixes"],
            &["--schema", schema_file],
            &["--schema", schema_file, "--strict"],
        ] {
            let args: Vec<&str> = ["repair", "--tool", tool]
                .iter()
                .chain(flags)
                .copied()
                .collect();
            let output = cli::run(&args, &raw);
            assert_eq!(cli::stdout(&output), raw, "{flags:?}: {raw}");
            assert_eq!(cli::stderr(&output), "", "{flags:?}: {raw}");
            assert_eq!(output.status.code(), Some(0), "{flags:?}: {raw}");
        }
        batch.push_str(&json!({"input": raw, "tool": tool, "schema": schema}).to_string());
        batch.push('\n');
        let value: serde_json::Value = serde_json::from_str(&raw).expect("valid JSON");
        expected_batch.push_str(&format!(
            r#"{{"json":{value},"verdict":"valid","strategy":1,"fixes":[]}}"#
        ));
        expected_batch.push('\n');
    }
    let output = cli::run(&["repair", "--batch"], &batch);
    assert_eq!(cli::stdout(&output), expected_batch);
}

/// One path of each way of reading a file.
const EVERY_FAMILY: [&str; 24] = [
    "a.py",
    "a.go",
    "a.c",
    "a.rs",
    "a.ts",
    "a.jsx",
    "a.sh",
    "a.rb",
    "a.php",
    "a.tf",
    "a.sql",
    "a.lua",
    "a.hs",
    "a.el",
    "a.erl",
    "a.vim",
    "a.html",
    "a.xml",
    "a.yaml",
    "a.ini",
    ".gitignore",
    "a.css",
    "a.toml",
    "a.md",
];

/// Pieces of code and text that open, close and mislead the scans.
const PIECES: [&str; 40] = [
    "“", "”", "‘", "’", "′", "″", "«", "»", "\"", "'", "`", "\\", "\n", " ", "a", "{", "}", "<",
    ">", "/", "*", "#", "-", "--", "/*", "*/", "<<EOF", "EOF", "r#\"", "\"\"\"", "<p>", "</p>",
    "<!--", "-->", "<?php", "?>", "$", "=", ":", "[",
];

/// Any text bound for any family: no panic, every fix stands on a
/// typographic quote, and the text is the input with exactly those
/// replaced. Long runs of one piece, the inputs that would make a scan
/// quadratic, finish (each is 60,000 pieces).
#[test]
fn any_text_in_any_family() {
    let mut rng = Rng::new(0x0025_C0DE_A11A_0002);
    let mut texts: Vec<String> = (0..300)
        .map(|_| {
            (0..1 + rng.below(200))
                .map(|_| *rng.pick(&PIECES))
                .collect()
        })
        .collect();
    for piece in PIECES {
        texts.push(piece.repeat(60_000));
        let pair = format!("{piece}{}", rng.pick(&PIECES));
        texts.push(pair.repeat(30_000));
    }
    for text in &texts {
        for path in EVERY_FAMILY {
            let fixed = normalize_quotes(path, text);
            let mut expected = String::with_capacity(text.len());
            let mut copied = 0;
            for fix in fixed.fixes() {
                let c = text[fix.offset..].chars().next().expect("a character");
                let with = match c {
                    '‘' | '’' | '′' => "'",
                    '“' | '”' | '″' => "\"",
                    '«' => "<<",
                    '»' => ">>",
                    other => panic!("{path}: a fix on {other:?}"),
                };
                expected.push_str(&text[copied..fix.offset]);
                expected.push_str(with);
                copied = fix.offset + c.len_utf8();
            }
            expected.push_str(&text[copied..]);
            assert_eq!(
                fixed.text(),
                expected,
                "{path}: {:?}",
                &text[..text.len().min(200)]
            );
        }
    }
}
