//! Typographic quotes in code: the path rule (`is_code_path`),
//! `normalize_quotes` per language family and for markup, and the content
//! argument of write, patch and edit tools. Straightened where they stand
//! as the code's delimiters; kept in its literals and comments, in markup
//! text and in prose.

use argmend::{ToolFixKind, ToolOptions, Verdict, is_code_path, normalize_quotes};
use serde_json::json;

use super::{run, table};

mod generated; // generated calls and texts: quotes as data, any text in any family

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
    // A pair of guillemets is a quotation, not two shifts: it stays.
    let fixed = normalize_quotes("q.sh", "echo ‘a’ “b” ′c″ «d»");
    assert_eq!(fixed.text(), "echo 'a' \"b\" 'c\" «d»");
    assert_eq!(fixed.fixes().len(), 6);
    assert!(
        fixed
            .fixes()
            .iter()
            .all(|f| f.kind == ToolFixKind::StraightenedQuote)
    );
    assert_eq!(normalize_quotes("q.md", "‘a’").text(), "‘a’");
    for path in ["page.htm", "INDEX.HTML"] {
        assert!(is_code_path(path), "{path}");
    }
}

/// `(path, text, expected)`: through `normalize_quotes`, and as the content
/// of a `write_file` call (JSON-escaped, one shot and byte by byte), where
/// text that does not change must come back byte for byte.
#[track_caller]
fn families(cases: &[(&str, &str, &str)]) {
    for &(path, text, expected) in cases {
        let fixed = normalize_quotes(path, text);
        assert_eq!(fixed.text(), expected, "{path}: {text:?}");
        let curly = |s: &str| s.chars().filter(|c| "‘’′“”″«»".contains(*c)).count();
        let changed = curly(text) - curly(expected);
        assert_eq!(fixed.fixes().len(), changed, "{path}: {text:?}");
        let raw = json!({"path": path, "content": text}).to_string();
        let normalized = run("write_file", &raw, &ToolOptions::default());
        let value = normalized.to_value().expect("JSON");
        assert_eq!(value["content"], expected, "{path}: {raw}");
        if text == expected {
            assert_eq!(normalized.text(), raw, "{path}");
            assert_eq!(normalized.verdict(), Verdict::Valid, "{path}");
        } else {
            assert_eq!(normalized.fixes().len(), changed, "{path}: {raw}");
        }
    }
}

#[test]
fn python_and_the_hash_family() {
    families(&[
        ("a.py", "print(“hi”)", "print(\"hi\")"),
        ("a.py", "x = ‘a’", "x = 'a'"),
        (
            "a.py",
            "print(\"the ‘^’ marking\")",
            "print(\"the ‘^’ marking\")",
        ),
        ("a.py", "# it’s fine, “really”", "# it’s fine, “really”"),
        // A delimiter pair holds a literal: the apostrophe inside is data.
        ("a.py", "print(“it’s”)", "print(\"it’s\")"),
        ("a.py", "s = f“{name}’s”", "s = f\"{name}’s\""),
        (
            "a.py",
            "CP437 = {0xAE: \"«\", 0xAF: \"»\"}  # «»",
            "CP437 = {0xAE: \"«\", 0xAF: \"»\"}  # «»",
        ),
        (
            "a.py",
            "def f():\n    \"\"\"She said “hi”.\n    It’s ‘fine’.\"\"\"\n    return ‘y’\n",
            "def f():\n    \"\"\"She said “hi”.\n    It’s ‘fine’.\"\"\"\n    return 'y'\n",
        ),
        // An edit's fragment of a docstring keeps its words, and where it
        // ends the docstring, what follows is code.
        (
            "a.py",
            "    Return the user’s name.\n",
            "    Return the user’s name.\n",
        ),
        (
            "a.py",
            "    The user’s “name”.\n    \"\"\"\n    return “x”\n",
            "    The user’s “name”.\n    \"\"\"\n    return \"x\"\n",
        ),
        (
            "a.py",
            "def f():\n    return “x”\n\ndef g():\n    \"\"\"The “g”.\n",
            "def f():\n    return \"x\"\n\ndef g():\n    \"\"\"The “g”.\n",
        ),
        (
            "pyproject.toml",
            "name = “app”\ndesc = \"it’s “x”\" # “c”",
            "name = \"app\"\ndesc = \"it’s “x”\" # “c”",
        ),
        (
            "schema.graphql",
            "\"\"\"The “main” type\"\"\"\ntype Q { a(x: String = “d”): Int }",
            "\"\"\"The “main” type\"\"\"\ntype Q { a(x: String = \"d\"): Int }",
        ),
        ("lib.ex", "IO.puts(“hi”) # it’s", "IO.puts(\"hi\") # it’s"),
    ]);
}

#[test]
fn the_c_family() {
    families(&[
        ("main.go", "fmt.Println(“hi”)", "fmt.Println(\"hi\")"),
        (
            "main.go",
            "s := `it’s “raw”`\nr := '’' // “c”",
            "s := `it’s “raw”`\nr := '’' // “c”",
        ),
        (
            "main.go",
            "/* it’s\n “multi” */ x := “y”",
            "/* it’s\n “multi” */ x := \"y\"",
        ),
        ("a.c", "printf(“%d\\n”, n);", "printf(\"%d\\n\", n);"),
        // Digit separators and character literals are no strings.
        (
            "a.cpp",
            "int n = 1'000'000; char c = '“'; auto s = “x”;",
            "int n = 1'000'000; char c = '“'; auto s = \"x\";",
        ),
        ("a.h", "puts(\"it’s\"); // “ok”", "puts(\"it’s\"); // “ok”"),
        // Rust: raw strings, lifetimes, nested comments.
        (
            "lib.rs",
            "let s = r#\"a “b” \"c\"#; let t = “d”;",
            "let s = r#\"a “b” \"c\"#; let t = \"d\";",
        ),
        (
            "lib.rs",
            "fn f<'a>(x: &'a str) -> &'a str { “x” }",
            "fn f<'a>(x: &'a str) -> &'a str { \"x\" }",
        ),
        (
            "lib.rs",
            "/* a /* b */ “still” */ let q = '”';",
            "/* a /* b */ “still” */ let q = '”';",
        ),
        (
            "lib.rs",
            "/// Returns the user’s “name”.\nfn name() {}",
            "/// Returns the user’s “name”.\nfn name() {}",
        ),
        // The brace languages: Java text blocks, JS templates and regexes.
        (
            "App.java",
            "String s = \"\"\"\n  “quoted”\n  \"\"\";\nSystem.out.println(“x”);",
            "String s = \"\"\"\n  “quoted”\n  \"\"\";\nSystem.out.println(\"x\");",
        ),
        ("app.ts", "const s = ‘hi’;", "const s = 'hi';"),
        (
            "app.ts",
            "const t = `it’s “${x}”`;",
            "const t = `it’s “${x}”`;",
        ),
        (
            "app.ts",
            "text.replace(/[“”]/g, '\"')",
            "text.replace(/[“”]/g, '\"')",
        ),
        (
            "app.ts",
            "const a = b / c; const d = “e”; // “f”",
            "const a = b / c; const d = \"e\"; // “f”",
        ),
        (
            "style.css",
            "a::before { content: “→”; } /* it’s “c” */",
            "a::before { content: \"→\"; } /* it’s “c” */",
        ),
        (
            "package.json",
            "{“name”: \"it’s “x”\"}",
            "{\"name\": \"it’s “x”\"}",
        ),
        // A `*/` in code: the fragment began inside a comment; so do lines
        // led by ` * `, even before another comment opens.
        (
            "a.js",
            " * It’s “fast”.\n */\nrun(“x”);",
            " * It’s “fast”.\n */\nrun(\"x\");",
        ),
        (
            "a.h",
            " * Which aren’t “X”.\n/**\n */\n#define A “b”",
            " * Which aren’t “X”.\n/**\n */\n#define A \"b\"",
        ),
        (
            "Locale.java",
            "     * tags (marked as “Type: grandfathered”)\n     * are converted.",
            "     * tags (marked as “Type: grandfathered”)\n     * are converted.",
        ),
        ("a.c", "*p = ‘x’;", "*p = 'x';"),
    ]);
}

#[test]
fn jsx_text_is_prose() {
    families(&[
        (
            "Card.tsx",
            "return <p className=“note”>It’s “fun”</p>;",
            "return <p className=\"note\">It’s “fun”</p>;",
        ),
        (
            "Card.jsx",
            "const el = (\n  <div>\n    <p>Hello {name}, “you”</p>\n    <Button onClick={() => go(“x”)} />\n  </div>\n);",
            "const el = (\n  <div>\n    <p>Hello {name}, “you”</p>\n    <Button onClick={() => go(\"x\")} />\n  </div>\n);",
        ),
        // A comparison is no element.
        (
            "a.js",
            "if (a <b && c > d) f(“x”);",
            "if (a <b && c > d) f(\"x\");",
        ),
    ]);
}

#[test]
fn shell_and_scripts() {
    families(&[
        ("run.sh", "echo “hello”", "echo \"hello\""),
        (
            "run.sh",
            "echo 'it’s “ok”'  # “note”",
            "echo 'it’s “ok”'  # “note”",
        ),
        (
            "run.sh",
            "cat <<'EOF' > NOTES.md\nIt’s “quoted”\nEOF\necho “x”",
            "cat <<'EOF' > NOTES.md\nIt’s “quoted”\nEOF\necho \"x\"",
        ),
        ("run.sh", "echo ${#arr[@]} “y”", "echo ${#arr[@]} \"y\""),
        (
            "Makefile",
            "all:\n\techo “hi” # “c”",
            "all:\n\techo \"hi\" # “c”",
        ),
        ("app.rb", "puts “hi” # it’s “c”", "puts \"hi\" # it’s “c”"),
        (
            "app.rb",
            "s = <<~TXT\n  “Hi”\nTXT\nputs ‘x’",
            "s = <<~TXT\n  “Hi”\nTXT\nputs 'x'",
        ),
        (
            "a.pl",
            "print “hi” if $s =~ /[“”]/;",
            "print \"hi\" if $s =~ /[“”]/;",
        ),
        (
            "main.tf",
            "name = “web” # “c”\ndesc = <<EOT\n“x”\nEOT",
            "name = \"web\" # “c”\ndesc = <<EOT\n“x”\nEOT",
        ),
    ]);
}

#[test]
fn sql_and_the_dash_family() {
    families(&[
        (
            "q.sql",
            "SELECT ‘a’ FROM t; -- it’s “x”",
            "SELECT 'a' FROM t; -- it’s “x”",
        ),
        (
            "q.sql",
            "INSERT INTO t VALUES ('“quoted”'); /* “c” */",
            "INSERT INTO t VALUES ('“quoted”'); /* “c” */",
        ),
        (
            "a.lua",
            "print(“x”) -- “c”\n--[[ “block”\n ]] s = [[it’s “long”]]",
            "print(\"x\") -- “c”\n--[[ “block”\n ]] s = [[it’s “long”]]",
        ),
        (
            "Main.hs",
            "main = putStrLn “hi” -- “c”\ng = foldl' f “x”",
            "main = putStrLn \"hi\" -- “c”\ng = foldl' f \"x\"",
        ),
        ("a.el", "(message “hi”) ; “c”", "(message \"hi\") ; “c”"),
        (
            "a.erl",
            "io:format(“hi~n”). % “c”\nX = $“.",
            "io:format(\"hi~n\"). % “c”\nX = $“.",
        ),
        (
            "a.vim",
            "\" it’s a “comment”\necho “x”",
            "\" it’s a “comment”\necho \"x\"",
        ),
    ]);
}

#[test]
fn guillemets_only_as_operators() {
    families(&[
        (
            "a.cpp",
            "std::cout « “hi” « std::endl;",
            "std::cout << \"hi\" << std::endl;",
        ),
        ("a.cpp", "x »= 2;", "x >>= 2;"),
        // A pair is a quotation; in a literal or a comment, data.
        ("a.py", "x = «a»", "x = «a»"),
        (
            "a.cpp",
            "cout << \"«\"; // « and »",
            "cout << \"«\"; // « and »",
        ),
        ("a.py", "x = « Bonjour »", "x = « Bonjour »"),
    ]);
}

#[test]
fn configuration_values_are_data() {
    families(&[
        ("config.yaml", "name: “app”", "name: \"app\""),
        ("config.yaml", "title: It’s “fine”", "title: It’s “fine”"),
        (
            "config.yaml",
            "quote: “Be yourself” — Wilde",
            "quote: “Be yourself” — Wilde",
        ),
        (
            "ci.yml",
            "items: [“a”, “b”]\n“key”: v\n- ‘x’  # “c”",
            "items: [\"a\", \"b\"]\n\"key\": v\n- 'x'  # “c”",
        ),
        (
            "ci.yml",
            "run: |\n  echo “Hello”\n  it’s\nnext: “x”",
            "run: |\n  echo “Hello”\n  it’s\nnext: \"x\"",
        ),
        (
            "ci.yml",
            "a: \"it’s “x”\"\nb: 'say “hi”'",
            "a: \"it’s “x”\"\nb: 'say “hi”'",
        ),
        (
            "app.ini",
            "[main]\nname = “app”\ngreeting = Say “hi”\n; “c”",
            "[main]\nname = \"app\"\ngreeting = Say “hi”\n; “c”",
        ),
        (
            ".env",
            "KEY=“x” # c\nMSG=It’s “on”",
            "KEY=\"x\" # c\nMSG=It’s “on”",
        ),
        (".gitignore", "“weird name”.txt", "“weird name”.txt"),
    ]);
}

#[test]
fn markup_text_is_prose() {
    families(&[
        (
            "index.html",
            "<p class=“note”>It’s “fine”</p>",
            "<p class=\"note\">It’s “fine”</p>",
        ),
        (
            "index.html",
            "<!-- “c” --><a title=\"“x”\">‘y’</a>",
            "<!-- “c” --><a title=\"“x”\">‘y’</a>",
        ),
        (
            "page.htm",
            "<script>const s = “x”; // “c”</script><p>“text”</p><style>a::after { content: “»” }</style>",
            "<script>const s = \"x\"; // “c”</script><p>“text”</p><style>a::after { content: \"»\" }</style>",
        ),
        (
            "pom.xml",
            "<?xml version=“1.0”?><note>“hi”</note><![CDATA[ “x” ]]>",
            "<?xml version=\"1.0\"?><note>“hi”</note><![CDATA[ “x” ]]>",
        ),
        (
            "page.php",
            "<?php echo “hi”; // “c” ?>\n<p>It’s “fine”</p>",
            "<?php echo \"hi\"; // “c” ?>\n<p>It’s “fine”</p>",
        ),
        // A fragment without `<?php` is PHP code.
        ("page.php", "echo “hi”;", "echo \"hi\";"),
        // Prose files keep everything, even what looks like code.
        ("README.md", "Run `print(“hi”)`", "Run `print(“hi”)`"),
        ("notes.txt", "x = ‘a’", "x = ‘a’"),
        ("doc.rst", "``print(“hi”)``", "``print(“hi”)``"),
        ("post.markdown", "“hi”", "“hi”"),
    ]);
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
    // In a string the model delimited with curly quotes too, the offsets
    // are those of the characters inside it.
    let raw = "{“file”: “m.go”, “content”: “x = ‘a’ // ‘b’”}";
    let normalized = run("write_file", raw, &ToolOptions::default());
    assert_eq!(
        normalized.to_value().expect("JSON")["content"],
        "x = 'a' // ‘b’"
    );
    let quotes: Vec<usize> = normalized
        .fixes()
        .iter()
        .filter(|f| f.kind == ToolFixKind::StraightenedQuote)
        .map(|f| f.offset)
        .collect();
    assert_eq!(quotes, [raw.find('‘').unwrap(), raw.find("’ //").unwrap()]);
    // Curly quotes standing where delimiters belong are the engine's.
    let delimiters = run("read_file", "{“file”: “a.go”}", &ToolOptions::default());
    assert_eq!(delimiters.text(), r#"{"file": "a.go"}"#);
}
