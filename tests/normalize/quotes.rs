//! Curly quotes in code: the path rule (`is_code_path`), `normalize_quotes`,
//! and the content argument of write, patch and edit tools.

use argmend::{ToolFixKind, ToolOptions, is_code_path, normalize_quotes};

use super::{run, table};

#[test]
fn curly_quotes_rule() {
    for path in [
        "main.go",
        "a/b/c.PY",
        "x.tsx",
        "Makefile",
        "sub/Dockerfile",
        ".gitignore",
        "app.Dockerfile",
        "k8s.yml",
        ".env",
        "C:\\src\\lib.rs",
    ] {
        assert!(is_code_path(path), "{path}");
    }
    for path in [
        "README.md",
        "notes.txt",
        "doc.rst",
        "LICENSE",
        "file.unknown",
        "main.go.md",
        "",
    ] {
        assert!(!is_code_path(path), "{path}");
    }
    let fixed = normalize_quotes("q.sh", "echo ‘a’ “b” ′c″ «d»");
    assert_eq!(fixed.text(), "echo 'a' \"b\" 'c\" <<d>>");
    assert_eq!(fixed.fixes().len(), 8);
    assert!(
        fixed
            .fixes()
            .iter()
            .all(|f| f.kind == ToolFixKind::StraightenedQuote)
    );
    assert_eq!(normalize_quotes("q.md", "‘a’").text(), "‘a’");
}

#[test]
fn curly_quotes_in_tool_content() {
    table(&[
        (
            "write_file",
            r#"{"file": "main.go", "content": "fmt.Println(“hi”)"}"#,
            r#"{"file": "main.go", "content": "fmt.Println(\"hi\")"}"#,
            Some(1),
        ),
        (
            "write_file",
            r#"{"file": "NOTES.md", "content": "“hi”"}"#,
            r#"{"file": "NOTES.md", "content": "“hi”"}"#,
            Some(1),
        ),
        (
            "write_file",
            r#"{"file": "notes", "content": "it’s"}"#,
            r#"{"file": "notes", "content": "it’s"}"#,
            Some(1),
        ),
        // Only write, patch and edit tools; only the content argument.
        (
            "read_file",
            r#"{"file": "main.go", "content": "it’s"}"#,
            r#"{"file": "main.go", "content": "it’s"}"#,
            Some(1),
        ),
        (
            "write_file",
            r#"{"file": "a.py", "content": "s = ‘x’", "note": "it’s"}"#,
            r#"{"file": "a.py", "content": "s = 'x'", "note": "it’s"}"#,
            Some(1),
        ),
        (
            "Edit",
            r#"{"file_path": "a.rs", "old_string": "“x”", "new_string": "“y”"}"#,
            r#"{"file_path": "a.rs", "old_string": "“x”", "new_string": "\"y\""}"#,
            Some(1),
        ),
        (
            "@coder",
            r#"{"cmd": "write", "args": {"file": "a.js", "content": "\u201cz\u201d"}}"#,
            r#"{"cmd": "write", "args": {"file": "a.js", "content": "\"z\""}}"#,
            Some(1),
        ),
        (
            "@coder",
            r#"{"cmd": "read", "args": {"file": "a.js", "content": "“z”"}}"#,
            r#"{"cmd": "read", "args": {"file": "a.js", "content": "“z”"}}"#,
            Some(1),
        ),
        (
            "patch_file",
            "{file: 'x.c', patch: '-a\n+b “c”'}",
            "{\"file\": \"x.c\", \"patch\": \"-a\\n+b \\\"c\\\"\"}",
            Some(4),
        ),
    ]);
    // Each replacement is a fix at the character's input offset.
    let raw = "{'file': 'm.go', 'content': 'a, b “c”'}";
    let normalized = run("write_file", raw, &ToolOptions::default());
    let quotes: Vec<usize> = normalized
        .fixes()
        .iter()
        .filter(|f| f.kind == ToolFixKind::StraightenedQuote)
        .map(|f| f.offset)
        .collect();
    assert_eq!(quotes, [raw.find('“').unwrap(), raw.find('”').unwrap()]);
    // Curly quotes standing where delimiters belong are the engine's.
    let delimiters = run("read_file", "{“file”: “a.go”}", &ToolOptions::default());
    assert_eq!(delimiters.text(), r#"{"file": "a.go"}"#);
}
