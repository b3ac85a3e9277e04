//! `@json` (issue 4): a table per verb with every error message, the
//! envelope, YAML, the output cap, workspace escapes, golden tests of the
//! built binary, and `get` checked against serde_json on generated documents
//! and paths.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use argmend::tools::Workspace;
use argmend::tools::json::{
    self, Answer, ErrorKind, Format, Layout, MAX_OUTPUT, Query, Source, get, keys, pretty, query,
    schema, validate,
};
use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;
use serde_json::Value;

use crate::support::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_argmend");

const RESP: &str = r#"{"data": {"total": 3, "items": [
  {"id": 1, "name": "web-1", "status": "failed", "cpu": 1.50, "tags": ["a", "b"]},
  {"id": 2, "name": "db-1", "status": "failed", "cpu": 12345678901234567890},
  {"id": 3, "name": "web-2", "status": "ok", "cpu": 0.25, "tags": []}
], "key.with.dots": true, "empty": [], "none": {}}}"#;

fn ws() -> Workspace {
    Workspace::new(std::env::temp_dir()).unwrap()
}

fn get_text(path: &str) -> Result<String, (ErrorKind, String)> {
    get(&ws(), Source::Text(RESP), path)
        .map(|got| got.to_string())
        .map_err(|error| (error.kind(), error.to_string()))
}

#[test]
fn get_answers() {
    let cases: &[(&str, &str)] = &[
        ("data.total", "3\n"),
        ("data.items[1].cpu", "12345678901234567890\n"),
        ("data.items[0].cpu", "1.50\n"),
        ("data.items[-1].name", "\"web-2\"\n"),
        ("data.items[-3].id", "1\n"),
        (r#"data["key.with.dots"]"#, "true\n"),
        ("$.data.items[0].tags", "[\n  \"a\",\n  \"b\"\n]\n"),
        (
            "data.items[*].name",
            "data.items[0].name: \"web-1\"\ndata.items[1].name: \"db-1\"\ndata.items[2].name: \"web-2\"\n3 matches\n",
        ),
        // Elements without the key are skipped once the path has fanned out.
        (
            "data.items[*].tags[0]",
            "data.items[0].tags[0]: \"a\"\n1 match\n",
        ),
        (
            "data.empty[*]",
            "nothing at `data.empty[*]`: the containers there are empty\n",
        ),
        ("data.none", "{}\n"),
    ];
    for (path, expected) in cases {
        assert_eq!(get_text(path).as_deref(), Ok(*expected), "path {path}");
    }
}

#[test]
fn get_errors_name_the_segment() {
    let cases: &[(&str, ErrorKind, &str)] = &[
        (
            "data.itms",
            ErrorKind::NoSuchKey,
            "no key `itms` at `data`: the keys there are total, items, [\"key.with.dots\"], empty, none (did you mean `items`?)",
        ),
        (
            "data.Items",
            ErrorKind::NoSuchKey,
            "no key `Items` at `data`: the keys there are total, items, [\"key.with.dots\"], empty, none (did you mean `items`?)",
        ),
        (
            "data.none.x",
            ErrorKind::NoSuchKey,
            "no key `x` at `data.none`: the object is empty",
        ),
        (
            "data.items[3]",
            ErrorKind::OutOfRange,
            "index [3] is out of range at `data.items`: the array has 3 elements (indexes 0 to 2, or -3 to -1 from the end)",
        ),
        (
            "data.items[-4]",
            ErrorKind::OutOfRange,
            "index [-4] is out of range at `data.items`: the array has 3 elements (indexes 0 to 2, or -3 to -1 from the end)",
        ),
        (
            "data.empty[0]",
            ErrorKind::OutOfRange,
            "index [0] is out of range at `data.empty`: the array is empty",
        ),
        (
            "data.total.x",
            ErrorKind::WrongType,
            "`x` needs an object, but `data.total` is a number; ask for `data.total` itself, or use `keys` to see what is there",
        ),
        (
            "data[0]",
            ErrorKind::WrongType,
            "`[0]` needs an array, but `data` is an object{5}; ask for `data` itself, or use `keys` to see what is there",
        ),
        (
            "data.items[0].name.*",
            ErrorKind::WrongType,
            "`*` needs an object or an array, but `data.items[0].name` is a string(5); ask for `data.items[0].name` itself, or use `keys` to see what is there",
        ),
        (
            "data.items[*].nope",
            ErrorKind::NoSuchKey,
            "no key `nope` at `data.items[0]`: the keys there are id, name, status, cpu, tags",
        ),
        (
            "data.items[x]",
            ErrorKind::InvalidPath,
            "the path \"data.items[x]\" does not parse at offset 11: expected an index, `*` or a quoted key inside `[…]`, e.g. [0], [-1], [*], [\"a.b\"]; paths look like `data.items[0].name`, `items[-1]`, `items[*].id`, `[\"key.with.dots\"]`; e.g.\n  {\"cmd\":\"get\",\"args\":{\"file\":\"resp.json\",\"path\":\"data.items[3].name\"}}",
        ),
    ];
    for (path, kind, message) in cases {
        assert_eq!(
            get_text(path),
            Err((*kind, (*message).to_owned())),
            "path {path}"
        );
    }
}

#[test]
fn malformed_paths_are_refused() {
    for path in ["a..b", "a[0", "a.", "a[0]b", r#"a["b"x]"#, "a b"] {
        let error = get(&ws(), Source::Text("{}"), path).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::InvalidPath, "path {path}");
        assert!(
            error.to_string().contains("e.g.\n  {\"cmd\":\"get\""),
            "{error}"
        );
    }
}

#[test]
fn keys_answers() {
    let answer = keys(&ws(), Source::Text(RESP), "data").unwrap();
    assert_eq!(
        answer.to_string(),
        "data: object{5}\n  total: number\n  items: array[3]\n  [\"key.with.dots\"]: bool\n  empty: array[0]\n  none: object{0}\n"
    );
    assert_eq!(answer.summary(), "object{5}");
    assert_eq!(answer.entries()[2].key, "key.with.dots");
    let answer = keys(&ws(), Source::Text(RESP), "data.items[0].tags").unwrap();
    assert_eq!(
        answer.to_string(),
        "data.items[0].tags: array[2]\n  [0]: string(1)\n  [1]: string(1)\n"
    );
    let answer = keys(&ws(), Source::Text(RESP), "data.total").unwrap();
    assert_eq!(
        answer.to_string(),
        "data.total: number\n  (a scalar has no keys: read it with `get`)\n"
    );
    let error = keys(&ws(), Source::Text(RESP), "data.items[*]").unwrap_err();
    assert_eq!(error.kind(), ErrorKind::InvalidArgument);
    assert_eq!(
        error.to_string(),
        "`keys`: the path \"data.items[*]\" has `*`; `keys` looks at one value: give a plain path such as `items[0]`; e.g.\n  {\"cmd\":\"keys\",\"args\":{\"file\":\"resp.json\",\"path\":\"data\"}}"
    );
}

const QUERY_EXAMPLE: &str = "e.g.\n  {\"cmd\":\"query\",\"args\":{\"file\":\"resp.json\",\"path\":\"data.items\",\"where\":\"status=failed && name~^web\",\"select\":\"id,name\",\"limit\":20}}";

#[test]
fn query_answers() {
    let cases: &[(Query<'_>, &str)] = &[
        (
            Query::new("status=failed && name~^web")
                .path("data.items")
                .select("id,name"),
            "[0] {\"id\":1,\"name\":\"web-1\"}\n1 of 3 elements matched\n",
        ),
        (
            Query::new("status!=ok")
                .path("data.items")
                .select("name, tags[0]"),
            "[0] {\"name\":\"web-1\",\"tags[0]\":\"a\"}\n[1] {\"name\":\"db-1\"}\n2 of 3 elements matched\n",
        ),
        (
            Query::new("cpu=1.5").path("data.items").select("id,cpu"),
            "[0] {\"id\":1,\"cpu\":1.50}\n1 of 3 elements matched\n",
        ),
        (
            Query::new("status=\"failed\"")
                .path("data.items")
                .select("id")
                .limit(1),
            "[0] {\"id\":1}\n2 of 3 elements matched; showing the first 1 (raise `limit`, at most 200, or narrow `where`)\n",
        ),
        (
            Query::new("tags~.").path("data.items").select("id"),
            "[0] {\"id\":1}\n[2] {\"id\":3}\n2 of 3 elements matched\n",
        ),
        (
            Query::new("missing=1").path("data.items"),
            "0 of 3 elements matched\n",
        ),
    ];
    for (q, expected) in cases {
        let answer = query(&ws(), Source::Text(RESP), q).unwrap();
        assert_eq!(answer.to_string(), *expected, "{q:?}");
    }
    let answer = query(
        &ws(),
        Source::Text(RESP),
        &Query::new("id!=2").path("data.items"),
    )
    .unwrap();
    assert_eq!(answer.n_matched(), 2);
    // Dotted fields, in `where` and in `select`, and a root array.
    let nested = r#"[{"id":1,"meta":{"owner":"ana","ports":[80]}},{"id":2,"meta":{"owner":"bo"}}]"#;
    let filtered = query(
        &ws(),
        Source::Text(nested),
        &Query::new("meta.owner~^a && meta.ports[0]=80").select("id,meta.owner"),
    )
    .unwrap();
    assert_eq!(
        filtered.to_string(),
        "[0] {\"id\":1,\"meta.owner\":\"ana\"}\n1 of 2 elements matched\n"
    );
    assert_eq!(answer.n_elements(), 3);
    assert_eq!(answer.rows()[1].index, 2);
}

#[test]
fn query_errors() {
    let cases: &[(Query<'_>, ErrorKind, String)] = &[
        (
            Query::new("status failed").path("data.items"),
            ErrorKind::InvalidWhere,
            format!("the `where` clause \"status failed\" does not parse: no operator (`=`, `!=` or `~`); write `field=value`, `field!=value` or `field~regex`, joined by `&&`; {QUERY_EXAMPLE}"),
        ),
        (
            Query::new("a=1 && ").path("data.items"),
            ErrorKind::InvalidWhere,
            format!("the `where` clause \"a=1 && \" does not parse: an empty clause around `&&`; write `field=value`, `field!=value` or `field~regex`, joined by `&&`; {QUERY_EXAMPLE}"),
        ),
        (
            Query::new("=1").path("data.items"),
            ErrorKind::InvalidWhere,
            format!("the `where` clause \"=1\" does not parse: a field name is missing before the operator; write `field=value`, `field!=value` or `field~regex`, joined by `&&`; {QUERY_EXAMPLE}"),
        ),
        (
            Query::new("a!1").path("data.items"),
            ErrorKind::InvalidWhere,
            format!("the `where` clause \"a!1\" does not parse: `!` must be followed by `=`; write `field=value`, `field!=value` or `field~regex`, joined by `&&`; {QUERY_EXAMPLE}"),
        ),
        (
            Query::new("name~(").path("data.items"),
            ErrorKind::InvalidRegex,
            format!("the pattern \"(\" after `~` is not a valid regex: unclosed group; {QUERY_EXAMPLE}"),
        ),
        (
            Query::new("a=1").path("data.items").limit(500),
            ErrorKind::InvalidArgument,
            format!("`query`: `limit` must be from 1 to 200 (default 20); {QUERY_EXAMPLE}"),
        ),
        (
            Query::new("a=1").path("data"),
            ErrorKind::WrongType,
            "`query` needs an array of objects, but `data` is a object{5}; ask for `data` itself, or use `keys` to see what is there".to_owned(),
        ),
    ];
    for (q, kind, message) in cases {
        let error = query(&ws(), Source::Text(RESP), q).unwrap_err();
        assert_eq!(
            (error.kind(), error.to_string()),
            (*kind, message.clone()),
            "{q:?}"
        );
    }
}

#[test]
fn schema_answers() {
    let answer = schema(&ws(), Source::Text(RESP), 3).unwrap();
    assert_eq!(
        answer.to_string(),
        "(root): object{1}\n\
         data: object{5}\n\
         data.total: integer\n\
         data.items: array[object] (3 elements)\n\
         data.items[].id: integer (100%)\n\
         data.items[].name: string (100%)\n\
         data.items[].status: string (100%)\n\
         data.items[].cpu: number (100%)\n\
         data.items[].tags: array[string] (67%)\n\
         data[\"key.with.dots\"]: bool\n\
         data.empty: array[] (0 elements)\n\
         data.none: object{0}\n"
    );
    assert_eq!(answer.shapes()[8].percent, Some(67));
    let answer = schema(&ws(), Source::Text(RESP), 1).unwrap();
    assert_eq!(answer.to_string(), "(root): object{1}\ndata: object{5}\n");
    // Large arrays are sampled, and the answer says so.
    let big: Vec<Value> = (0..250)
        .map(|i| {
            if i < 50 {
                serde_json::json!({"id": i, "x": true})
            } else {
                serde_json::json!({"id": i})
            }
        })
        .collect();
    let text = serde_json::to_string(&big).unwrap();
    let answer = schema(&ws(), Source::Text(&text), 3).unwrap();
    assert_eq!(
        answer.to_string(),
        "(root): array[object] (250 elements, 100 sampled)\n\
         [].id: integer (100%)\n\
         [].x: bool (50%)\n\
         note: 1 array had more than 100 elements; the first 100 of each were sampled\n"
    );
    for depth in [0, 9] {
        let error = schema(&ws(), Source::Text(RESP), depth).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::InvalidArgument);
        assert_eq!(
            error.to_string(),
            "`schema`: `depth` must be from 1 to 8 (default 3); e.g.\n  {\"cmd\":\"schema\",\"args\":{\"file\":\"resp.json\",\"depth\":4}}"
        );
    }
}

#[test]
fn validate_answers() {
    let cases: &[(&str, &str)] = &[
        (
            "{\"a\": [1, 2.5e3, null]}",
            "valid JSON: an object{1} (23 bytes)\n",
        ),
        ("  42 ", "valid JSON: a number (5 bytes)\n"),
        (
            "{\"a\": 1,}",
            "invalid JSON: line 1 column 9: trailing comma before the closer\n  {\"a\": 1,}\n          ^\n",
        ),
        (
            "[1, 2] x",
            "invalid JSON: line 1 column 8: data after the end of the value\n  [1, 2] x\n         ^\n",
        ),
        (
            "{\"a\" 1}",
            "invalid JSON: line 1 column 6: expected `:` after the key\n  {\"a\" 1}\n       ^\n",
        ),
        (
            "{'a': 1}",
            "invalid JSON: line 1 column 2: single quotes are not JSON: use double quotes\n  {'a': 1}\n   ^\n",
        ),
        (
            "[True]",
            "invalid JSON: line 1 column 2: not a JSON literal: use `true`, `false` or `null`\n  [True]\n   ^\n",
        ),
        (
            "[01]",
            "invalid JSON: line 1 column 2: invalid number\n  [01]\n   ^\n",
        ),
        (
            "[1 2]",
            "invalid JSON: line 1 column 4: expected `,` or `]` after the element\n  [1 2]\n     ^\n",
        ),
        (
            "{\"a\":1 \"b\":2}",
            "invalid JSON: line 1 column 8: expected `,` or `}` after the member\n  {\"a\":1 \"b\":2}\n         ^\n",
        ),
        (
            "[\"a\\x\"]",
            "invalid JSON: line 1 column 4: invalid escape in a string\n  [\"a\\x\"]\n     ^\n",
        ),
        (
            "[\"a\tb\"]",
            "invalid JSON: line 1 column 4: control character in a string (escape it, e.g. `\\n`)\n  [\"a b\"]\n     ^\n",
        ),
        (
            "[\"abc",
            "invalid JSON: line 1 column 2: the string is never closed\n  [\"abc\n   ^\n",
        ),
        (
            "{\"a\": [1,\n",
            "invalid JSON: line 2 column 1: the input ends inside a value\n  \n  ^\n",
        ),
        (
            "[1] // c",
            "invalid JSON: line 1 column 5: comments are not JSON\n  [1] // c\n      ^\n",
        ),
        (
            "",
            "invalid JSON: line 1 column 1: the document is empty\n  \n  ^\n",
        ),
        (
            "[1}",
            "invalid JSON: line 1 column 3: expected `,` or `]` after the element\n  [1}\n    ^\n",
        ),
        (
            "{,}",
            "invalid JSON: line 1 column 2: expected a key in double quotes\n  {,}\n   ^\n",
        ),
    ];
    for (text, expected) in cases {
        let answer = validate(&ws(), Source::Text(text)).unwrap();
        assert_eq!(answer.to_string(), *expected, "text {text:?}");
        assert_eq!(answer.is_valid(), expected.starts_with("valid"));
    }
    let answer = validate(&ws(), Source::Text("{\"a\":\n  [1,,2]}")).unwrap();
    let invalid = answer.error().unwrap();
    assert_eq!((invalid.line, invalid.column), (2, 6));
    assert_eq!(
        invalid.message,
        "expected a value (object, array, string, number, true, false or null)"
    );
    // A long line is shown around the caret.
    let long = format!("[{}x]", "1,".repeat(100));
    let answer = validate(&ws(), Source::Text(&long)).unwrap();
    assert!(answer.to_string().contains("\n  …1,1,1,"), "{answer}");
}

#[test]
fn validate_agrees_with_serde_json() {
    let samples = [
        "{}",
        "[]",
        "[1,2,3]",
        "{\"a\":{\"b\":[true,false,null]}}",
        "-0",
        "-0.0e-0",
        "1e5",
        "\"\\u00e9\\n\"",
        "[1,]",
        "{\"a\":1,}",
        "[.5]",
        "[+1]",
        "[1.]",
        "[-]",
        "nul",
        "[\"\\u12\"]",
        "{\"a\":1}}",
        "[[]",
        "\"\u{7f}\"",
        "[1e]",
        "{\"a\":[}",
        "[\"a\"\"b\"]",
    ];
    for text in samples {
        let ours = validate(&ws(), Source::Text(text)).unwrap().is_valid();
        let theirs = serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok();
        assert_eq!(ours, theirs, "text {text:?}");
    }
}

#[test]
fn pretty_keeps_what_was_written() {
    let text = r#"{"b":1.0,"a":[1e3,{},[]],"b":"\u00e9 \"q\"","n":12345678901234567890}"#;
    let answer = pretty(&ws(), Source::Text(text), Layout::Indented).unwrap();
    assert_eq!(
        answer.to_string(),
        "{\n  \"b\": 1.0,\n  \"a\": [\n    1e3,\n    {},\n    []\n  ],\n  \"b\": \"\\u00e9 \\\"q\\\"\",\n  \"n\": 12345678901234567890\n}\n\
         note: the key `b` appears more than once in the object at `(root)`: the other verbs use \
         the last one, as jq and JSON.parse do; `pretty` keeps every copy as written\n"
    );
    let indented = answer.to_string();
    let indented = &indented[..indented.find("note:").unwrap()];
    let compact = pretty(&ws(), Source::Text(indented), Layout::Compact).unwrap();
    assert_eq!(compact.to_string().lines().next(), Some(text));
    let error = pretty(&ws(), Source::Text("{\"a\":1,}"), Layout::Indented).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::InvalidJson);
    assert_eq!(
        error.to_string(),
        "refused: the text is not valid JSON: line 1 column 8: trailing comma before the closer\n  {\"a\":1,}\n         ^\n(repair it with `argmend repair`, or see every problem with the `validate` verb)"
    );
}

#[test]
fn yaml_is_read() {
    let dir = TempDir::new();
    let yaml = "image:\n  repository: nginx\n  tag: \"1.27\"\nreplicas: 3\nratio: 1.0\nports:\n  - 80\n  - 443\n";
    dir.write("values.yaml", yaml);
    dir.write("values.yml", "a: [1\n");
    dir.write("data.json", yaml);
    let ws = dir.workspace();
    let file = Source::File(Path::new("values.yaml"));
    assert_eq!(
        get(&ws, file, "image.tag").unwrap().to_string(),
        "\"1.27\"\n"
    );
    assert_eq!(get(&ws, file, "ports[-1]").unwrap().to_string(), "443\n");
    assert_eq!(get(&ws, file, "ratio").unwrap().to_string(), "1.0\n");
    assert_eq!(
        keys(&ws, file, "").unwrap().to_string(),
        "(root): object{4}\n  image: object{2}\n  replicas: number\n  ratio: number\n  ports: array[2]\n"
    );
    assert_eq!(
        pretty(&ws, file, Layout::Compact).unwrap().to_string(),
        "{\"image\":{\"repository\":\"nginx\",\"tag\":\"1.27\"},\"replicas\":3,\"ratio\":1.0,\"ports\":[80,443]}\n"
    );
    let answer = validate(&ws, file).unwrap();
    assert!(answer.is_valid());
    assert_eq!(answer.format(), Format::Yaml);
    // A broken YAML file.
    let answer = validate(&ws, Source::File(Path::new("values.yml"))).unwrap();
    assert!(!answer.is_valid());
    assert!(answer.to_string().starts_with("invalid YAML: "), "{answer}");
    let error = get(&ws, Source::File(Path::new("values.yml")), "a").unwrap_err();
    assert_eq!(error.kind(), ErrorKind::InvalidYaml);
    assert!(
        error
            .to_string()
            .starts_with("refused: `values.yml` is not valid YAML: "),
        "{error}"
    );
    // A `.json` file holding YAML is judged as JSON.
    let error = get(&ws, Source::File(Path::new("data.json")), "image").unwrap_err();
    assert_eq!(error.kind(), ErrorKind::InvalidJson);
    // Inline text: YAML when it is not JSON but a YAML mapping or list.
    assert_eq!(
        get(&ws, Source::Text("- a\n- b\n"), "[1]")
            .unwrap()
            .to_string(),
        "\"b\"\n"
    );
    assert_eq!(
        get(&ws, Source::Text("name: web"), "name")
            .unwrap()
            .to_string(),
        "\"web\"\n"
    );
    // Text starting with `{` is judged only as JSON, never as YAML flow syntax.
    let error = get(&ws, Source::Text("{a: 1}"), "a").unwrap_err();
    assert_eq!(error.kind(), ErrorKind::InvalidJson);
    // A YAML scalar is not taken as a document.
    let error = get(&ws, Source::Text("just words"), "a").unwrap_err();
    assert_eq!(error.kind(), ErrorKind::InvalidJson);
}

/// Issue 28: a YAML file whose name does not end in `.yaml`/`.yml` was read
/// as JSON and refused, the `.bak` that `@diff apply` writes for a YAML file
/// included. Backup suffixes are looked through to the real extension, and
/// a name that says neither JSON nor YAML leaves it to the content.
#[test]
fn a_yaml_file_is_yaml_behind_a_backup_suffix_or_without_an_extension() {
    let dir = TempDir::new();
    let yaml = "name: web\nreplicas: 2\n";
    let names = [
        "config.yaml.bak",
        "config.yaml.bak.3",
        "config.yml~",
        "config.YAML.orig",
        "config.yaml.old",
        "config.yaml.bak~",
        "config",
        "config.txt",
        "config.conf.dist",
    ];
    for name in names {
        dir.write(name, yaml);
    }
    let ws = dir.workspace();
    for name in names {
        let file = Source::File(Path::new(name));
        let got = get(&ws, file, "replicas").map(|got| got.to_string());
        assert_eq!(
            got.map_err(|e| e.to_string()),
            Ok("2\n".to_owned()),
            "{name}"
        );
        assert_eq!(
            validate(&ws, file).unwrap().format(),
            Format::Yaml,
            "{name}"
        );
    }
    // JSON content without a telling name is JSON, and so are its errors.
    dir.write("data", r#"{"replicas": 4}"#);
    dir.write("broken", r#"{"replicas": 4,}"#);
    let get_in = |name: &str| get(&ws, Source::File(Path::new(name)), "replicas");
    assert_eq!(get_in("data").unwrap().to_string(), "4\n");
    assert_eq!(get_in("broken").unwrap_err().kind(), ErrorKind::InvalidJson);
    // Behind a backup suffix the real extension decides the errors too.
    dir.write("values.yaml.bak", "a: [1\n");
    dir.write("data.json.bak", "a: 1\n");
    dir.write("words.txt", "just words\n");
    assert_eq!(
        get_in("values.yaml.bak").unwrap_err().kind(),
        ErrorKind::InvalidYaml
    );
    assert_eq!(
        get_in("data.json.bak").unwrap_err().kind(),
        ErrorKind::InvalidJson
    );
    assert_eq!(
        get_in("words.txt").unwrap_err().kind(),
        ErrorKind::InvalidJson
    );
    // A name that is only a suffix, or a dot file, has no extension to find.
    dir.write(".bak", yaml);
    dir.write(".yaml", r#"{"replicas": 5}"#);
    assert_eq!(get_in(".bak").unwrap().to_string(), "2\n");
    assert_eq!(get_in(".yaml").unwrap().to_string(), "5\n");

    // End to end: the backup `@diff apply` writes for a YAML file is read as
    // YAML by `argmend json` and by `argmend diff json`.
    dir.write("app.yaml", yaml);
    dir.write(
        "up.diff",
        "--- a/app.yaml\n+++ b/app.yaml\n@@ -1,2 +1,2 @@\n name: web\n-replicas: 2\n+replicas: 3\n",
    );
    let run = |args: &[&str]| {
        let output = Command::new(BIN)
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
        )
    };
    let (code, out) = run(&["diff", "apply", "app.yaml", "--patch", "up.diff", "--write"]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(
        run(&[
            "json",
            "get",
            "--file",
            "app.yaml.bak",
            "--path",
            "replicas"
        ]),
        (Some(0), "2\n".to_owned())
    );
    assert_eq!(
        run(&["diff", "json", "app.yaml.bak", "app.yaml"]),
        (
            Some(0),
            "~ replicas: 2 → 3\n1 path differs (0 added, 0 removed, 1 changed)\n".to_owned()
        )
    );
}

#[test]
fn answers_are_capped() {
    let items: Vec<Value> = (0..3000)
        .map(|i| serde_json::json!({"id": i, "name": format!("item-{i}")}))
        .collect();
    let text = serde_json::to_string(&serde_json::json!({ "items": items })).unwrap();
    let got = get(&ws(), Source::Text(&text), "items")
        .unwrap()
        .to_string();
    assert!(got.len() <= MAX_OUTPUT, "{}", got.len());
    assert!(
        got.ends_with("(answers are capped at 24000): ask for a deeper path, or see the shape first with `keys` or `schema`\n"),
        "{}",
        &got[got.len() - 300..]
    );
    // The cut is at a line boundary: every line before the note is whole.
    let body = &got[..got.rfind("… cut at").unwrap()];
    assert!(body.ends_with("\n"));
    // A fan-out past the cap keeps its count above the cut, and every match
    // in the structured data.
    let fanned = get(&ws(), Source::Text(&text), "items[*].name").unwrap();
    assert_eq!(fanned.matches().len(), 3000);
    assert_eq!(fanned.matches()[2999].json, "\"item-2999\"");
    let shown = fanned.to_string();
    assert!(
        shown.starts_with("3000 matches\nitems[0].name: \"item-0\"\n"),
        "{}",
        &shown[..100]
    );
    assert!(shown.len() <= MAX_OUTPUT);
    let matched = query(
        &ws(),
        Source::Text(&text),
        &Query::new("id~.").path("items").limit(200),
    )
    .unwrap();
    assert_eq!(matched.rows().len(), 200);
    assert_eq!(matched.n_matched(), 3000);
    let pretty = pretty(&ws(), Source::Text(&text), Layout::Indented).unwrap();
    assert!(pretty.to_string().len() <= MAX_OUTPUT);
    assert!(pretty.len() > MAX_OUTPUT);
    assert!(
        pretty
            .to_string()
            .ends_with("`get` a deeper path (objects come back indented)\n")
    );
}

#[test]
fn workspace_escapes_are_refused() {
    let outer = TempDir::new();
    fs::create_dir_all(outer.path().join("ws")).unwrap();
    outer.write("secret.json", "{\"token\": 1}");
    let ws = Workspace::new(outer.path().join("ws")).unwrap();
    let secret = outer.path().join("secret.json");
    let cases: Vec<(PathBuf, &str)> = vec![
        (
            PathBuf::from("../secret.json"),
            "climbs out of the workspace",
        ),
        (secret.clone(), "is outside the workspace"),
    ];
    #[cfg(unix)]
    let cases = {
        let mut cases = cases;
        std::os::unix::fs::symlink(&secret, outer.path().join("ws/link.json")).unwrap();
        cases.push((PathBuf::from("link.json"), "through a symbolic link"));
        cases
    };
    for (path, why) in cases {
        let error = get(&ws, Source::File(&path), "token").unwrap_err();
        assert_eq!(error.kind(), ErrorKind::OutsideWorkspace, "{path:?}");
        assert!(error.is_refusal());
        let message = error.to_string();
        assert!(
            message.starts_with("refused: ") && message.contains(why),
            "{message}"
        );
    }
    let error = get(&ws, Source::File(Path::new("missing.json")), "a").unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Io);
    assert!(
        error
            .to_string()
            .starts_with("cannot read `missing.json`: "),
        "{error}"
    );
}

#[test]
fn large_files_are_refused() {
    let dir = TempDir::new();
    let file = fs::File::create(dir.path().join("big.json")).unwrap();
    file.set_len(20 * 1024 * 1024 + 1).unwrap();
    let error = get(&dir.workspace(), Source::File(Path::new("big.json")), "a").unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TooLarge);
    assert_eq!(
        error.to_string(),
        "refused: `big.json` has 20971521 bytes, over the 20 MB limit (20971520 bytes) for one file"
    );
}

#[test]
fn envelope_calls() {
    let dir = TempDir::new();
    dir.write("resp.json", RESP);
    let ws = dir.workspace();
    let ok: &[(&str, &str)] = &[
        (
            r#"{"cmd":"get","args":{"file":"resp.json","path":"data.items[1].cpu"}}"#,
            "12345678901234567890\n",
        ),
        (
            r#"{"cmd":"keys","args":{"text":"[1,\"x\"]"}}"#,
            "(root): array[2]\n  [0]: number\n  [1]: string(1)\n",
        ),
        (
            r#"{"cmd":"query","args":{"file":"resp.json","path":"data.items","where":"id=3","select":"name"}}"#,
            "[2] {\"name\":\"web-2\"}\n1 of 3 elements matched\n",
        ),
        (
            r#"{"cmd":"schema","args":{"text":"{\"a\":[1]}","depth":1}}"#,
            "(root): object{1}\na: array[integer] (1 element)\n",
        ),
        (
            r#"{"cmd":"validate","args":{"text":"[1]"}}"#,
            "valid JSON: an array[1] (3 bytes)\n",
        ),
        (
            r#"{"cmd":"pretty","args":{"text":"[1, 2]","compact":true}}"#,
            "[1,2]\n",
        ),
    ];
    for (envelope, expected) in ok {
        let answer = json::call(&ws, envelope).unwrap();
        assert_eq!(answer.to_string(), *expected, "{envelope}");
    }
    assert!(matches!(json::call(&ws, ok[0].0).unwrap(), Answer::Get(_)));
    let get_example = "e.g.\n  {\"cmd\":\"get\",\"args\":{\"file\":\"resp.json\",\"path\":\"data.items[3].name\"}}";
    let bad: &[(&str, String)] = &[
        (r#"{"cmd":"get","args":{"file":"resp.json"}}"#, format!("`get`: `path` is missing; it takes file, text, path; {get_example}")),
        (r#"{"cmd":"get","args":{"path":"a"}}"#, format!("`get`: `file` (a path in the workspace) or `text` is missing; it takes file, text, path; {get_example}")),
        (r#"{"cmd":"get","args":{"file":"a","text":"b","path":"a"}}"#, format!("`get`: give `file` or `text`, not both; it takes file, text, path; {get_example}")),
        (r#"{"cmd":"get","args":{"file":"a","path":"a","depth":1}}"#, format!("`get`: unknown argument `depth`; it takes file, text, path; {get_example}")),
        (r#"{"cmd":"get","args":{"file":1,"path":"a"}}"#, format!("`get`: `file` must be a string; it takes file, text, path; {get_example}")),
        (
            r#"{"cmd":"query","args":{"text":"[]","where":"a=1","limit":0}}"#,
            format!("`query`: `limit` must be a whole number from 1 to 200; it takes file, text, path, where, select, limit; {QUERY_EXAMPLE}"),
        ),
        (
            r#"{"cmd":"pretty","args":{"text":"[]","compact":"yes"}}"#,
            "`pretty`: `compact` must be true or false; it takes file, text, compact; e.g.\n  {\"cmd\":\"pretty\",\"args\":{\"file\":\"values.yaml\",\"compact\":true}}".to_owned(),
        ),
    ];
    for (envelope, message) in bad {
        let error = json::call(&ws, envelope).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::InvalidArgument, "{envelope}");
        assert!(!error.is_refusal());
        assert_eq!(error.to_string(), *message, "{envelope}");
    }
    for envelope in [
        "nope",
        "[1]",
        r#"{"args":{}}"#,
        r#"{"cmd":"grep"}"#,
        r#"{"cmd":"get","args":[]}"#,
        r#"{"cmd":"get","x":1}"#,
    ] {
        let error = json::call(&ws, envelope).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::InvalidArgument, "{envelope}");
        assert!(
            error
                .to_string()
                .contains("\n  {\"cmd\":\"get\",\"args\":{\"file\":\"resp.json\""),
            "{error}"
        );
    }
    assert_eq!(
        json::call(&ws, r#"{"cmd":"grep"}"#)
            .unwrap_err()
            .to_string()
            .lines()
            .next(),
        Some(
            "unknown verb \"grep\": the verbs are get, keys, query, schema, validate and pretty; e.g."
        )
    );
}

#[test]
fn public_types_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<json::Error>();
    check::<Answer>();
    check::<Query<'static>>();
}

// ---------------------------------------------------------------------------
// The built binary

fn run(dir: &Path, args: &[&str]) -> (i32, String) {
    let output = Command::new(BIN)
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).unwrap(),
    )
}

#[test]
fn cli_golden() {
    let dir = TempDir::new();
    dir.write("resp.json", RESP);
    dir.write("values.yaml", "image:\n  tag: \"1.27\"\n");
    let cases: &[(&[&str], i32, &str)] = &[
        (
            &[
                "json",
                "get",
                "--file",
                "resp.json",
                "--path",
                "data.items[1].cpu",
            ],
            0,
            "12345678901234567890\n",
        ),
        (
            &["json", "get", "--file", "resp.json", "--path", "data.itms"],
            1,
            "no key `itms` at `data`: the keys there are total, items, [\"key.with.dots\"], empty, none (did you mean `items`?)\n",
        ),
        (
            &["json", "get", "--text", "[1,2]", "--path", "[-1]"],
            0,
            "2\n",
        ),
        (
            &["json", "keys", "--file", "values.yaml"],
            0,
            "(root): object{1}\n  image: object{1}\n",
        ),
        (
            &[
                "json",
                "query",
                "--file",
                "resp.json",
                "--path",
                "data.items",
                "--where",
                "status=failed && name~^web",
                "--select",
                "id,name",
            ],
            0,
            "[0] {\"id\":1,\"name\":\"web-1\"}\n1 of 3 elements matched\n",
        ),
        (
            &["json", "schema", "--text", "[{\"a\":1}]"],
            0,
            "(root): array[object] (1 element)\n[].a: integer (100%)\n",
        ),
        (
            &["json", "validate", "--text", "[1,]"],
            1,
            "invalid JSON: line 1 column 4: trailing comma before the closer\n  [1,]\n     ^\n",
        ),
        (
            &["json", "validate", "--file", "values.yaml"],
            0,
            "valid YAML: an object{1} (21 bytes)\n",
        ),
        (
            &["json", "pretty", "--text", "{\"a\":[1.0]}"],
            0,
            "{\n  \"a\": [\n    1.0\n  ]\n}\n",
        ),
        (
            &["json", "pretty", "--file", "values.yaml", "--compact"],
            0,
            "{\"image\":{\"tag\":\"1.27\"}}\n",
        ),
        (
            &[
                "json",
                r#"{"cmd":"get","args":{"file":"values.yaml","path":"image.tag"}}"#,
            ],
            0,
            "\"1.27\"\n",
        ),
        (
            &["json", "get", "--file", "../x.json", "--path", "a"],
            1,
            "",
        ),
        (
            &["json", "get", "--file", "nope.json", "--path", "a"],
            2,
            "",
        ),
        (&["json", "get", "--text", "{}", "--path", "a[x"], 2, ""),
        (&["json", r#"{"cmd":"nope"}"#], 2, ""),
        (
            &["json"],
            2,
            "say what to ask: a verb (get, keys, query, schema, validate, pretty) or an envelope '{\"cmd\":…,\"args\":…}'; see `argmend json --help`\n",
        ),
    ];
    for (args, code, expected) in cases {
        let (got_code, stdout) = run(dir.path(), args);
        assert_eq!(got_code, *code, "{args:?}: {stdout}");
        if !expected.is_empty() {
            assert_eq!(stdout, *expected, "{args:?}");
        } else {
            assert!(!stdout.is_empty(), "{args:?}: the message goes to stdout");
        }
    }
    // --workspace confines paths to another root.
    let (code, stdout) = run(
        Path::new("/"),
        &[
            "json",
            "--workspace",
            dir.path().to_str().unwrap(),
            "get",
            "--file",
            "resp.json",
            "--path",
            "data.total",
        ],
    );
    assert_eq!((code, stdout.as_str()), (0, "3\n"));
    // --file and --text together are a usage error from clap.
    let (code, _) = run(
        dir.path(),
        &["json", "get", "--file", "a", "--text", "b", "--path", "a"],
    );
    assert_eq!(code, 2);
}

// ---------------------------------------------------------------------------
// `get` against serde_json on generated documents and paths

fn value_strategy() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        "[a-z\\\\\"\u{e9} .]{0,6}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-c.\"\\\\]{1,3}", inner, 0..6)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

/// A path of up to 4 steps, each chosen by the document where it can (an
/// existing key or index, or a near miss).
/// One step of a generated path, for the serde_json lookup.
enum Step {
    Key(String),
    Index(i64),
}

fn walk_path(value: &Value, choices: &[(u8, u8)]) -> (String, Vec<Step>) {
    let mut path = String::new();
    let mut steps = Vec::new();
    let mut current = Some(value);
    for &(kind, pick) in choices {
        match current {
            Some(Value::Object(map)) if !map.is_empty() && kind % 4 != 0 => {
                let key = map.keys().nth(pick as usize % map.len()).unwrap().clone();
                path.push_str(&format!("[{}]", Value::from(key.as_str())));
                current = map.get(&key);
                steps.push(Step::Key(key));
            }
            Some(Value::Array(items)) if kind % 4 != 0 => {
                let len = items.len() as i64;
                let idx = i64::from(pick % 8) - if kind % 2 == 0 { 4 } else { 0 };
                path.push_str(&format!("[{idx}]"));
                let real = if idx < 0 { len + idx } else { idx };
                current = usize::try_from(real).ok().and_then(|i| items.get(i));
                steps.push(Step::Index(idx));
            }
            _ => {
                let key = format!("k{pick}");
                path.push_str(&format!(".{key}"));
                current = current.and_then(|v| v.get(&key));
                steps.push(Step::Key(key));
            }
        }
    }
    (path.trim_start_matches('.').to_owned(), steps)
}

fn lookup<'v>(value: &'v Value, steps: &[Step]) -> Option<&'v Value> {
    let mut current = value;
    for step in steps {
        current = match step {
            Step::Key(key) => current.as_object()?.get(key)?,
            Step::Index(idx) => {
                let items = current.as_array()?;
                let real = if *idx < 0 {
                    items.len() as i64 + idx
                } else {
                    *idx
                };
                items.get(usize::try_from(real).ok()?)?
            }
        };
    }
    Some(current)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn get_agrees_with_serde_json(
        value in value_strategy(),
        choices in prop::collection::vec((any::<u8>(), any::<u8>()), 0..5),
        indent in any::<bool>(),
    ) {
        let text = if indent { serde_json::to_string_pretty(&value).unwrap() } else { serde_json::to_string(&value).unwrap() };
        // The oracle is serde_json reading the same bytes (its float parsing
        // is not an exact round trip of the generated value).
        let value: Value = serde_json::from_str(&text).unwrap();
        let (path, steps) = walk_path(&value, &choices);
        let ours = get(&ws(), Source::Text(&text), &path);
        match lookup(&value, &steps) {
            Some(expected) => {
                let got = ours.unwrap();
                prop_assert_eq!(got.matches().len(), 1);
                let parsed: Value = serde_json::from_str(&got.matches()[0].json).unwrap();
                prop_assert_eq!(&parsed, expected);
                // The shown text (reindented) parses to the same value.
                let shown: Value = serde_json::from_str(&got.to_string()).unwrap();
                prop_assert_eq!(&shown, expected);
            }
            None => {
                let error = ours.unwrap_err();
                prop_assert!(matches!(error.kind(), ErrorKind::NoSuchKey | ErrorKind::OutOfRange | ErrorKind::WrongType), "{}", error);
            }
        }
        // The wildcard over the root agrees with serde_json's children.
        if let Ok(got) = get(&ws(), Source::Text(&text), "*") {
            let children: Vec<Value> = match &value {
                Value::Array(items) => items.clone(),
                Value::Object(map) => map.values().cloned().collect(),
                _ => Vec::new(),
            };
            let ours: Vec<Value> = got.matches().iter().map(|m| serde_json::from_str(&m.json).unwrap()).collect();
            prop_assert_eq!(ours, children);
        }
        // validate and pretty agree too.
        prop_assert!(validate(&ws(), Source::Text(&text)).unwrap().is_valid());
        let compact = pretty(&ws(), Source::Text(&text), Layout::Compact).unwrap().to_string();
        if compact.len() < MAX_OUTPUT {
            let reparsed: Value = serde_json::from_str(&compact).unwrap();
            prop_assert_eq!(reparsed, value);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    /// One character inserted or removed anywhere: `validate` judges the text
    /// as serde_json does.
    #[test]
    fn validate_agrees_with_serde_json_on_mutations(
        value in value_strategy(),
        at in any::<prop::sample::Index>(),
        insert in prop::option::of(prop::sample::select(vec![',', ':', '{', '}', '[', ']', '"', '\\', '0', '-', '.', 'e', 'a', ' ', '\n', '\t'])),
    ) {
        let mut chars: Vec<char> = serde_json::to_string(&value).unwrap().chars().collect();
        let idx = at.index(chars.len() + 1);
        match insert {
            Some(c) => chars.insert(idx, c),
            None if idx < chars.len() => { chars.remove(idx); }
            None => {}
        }
        let text: String = chars.into_iter().collect();
        let ours = validate(&ws(), Source::Text(&text)).unwrap();
        // Text that is not JSON but a YAML mapping or list is read as YAML.
        prop_assume!(ours.format() == Format::Json);
        let theirs = serde_json::from_str::<serde::de::IgnoredAny>(&text);
        prop_assert_eq!(ours.is_valid(), theirs.is_ok(), "{:?}: ours {}, serde_json {:?}", text, ours, theirs.err());
    }
}

#[test]
fn get_refuses_a_broken_document_with_its_place() {
    // A broken tail is found even when the answer comes before it (issue 13:
    // a truncated document must not answer as if it were whole)...
    let text = "{\"a\": 1, \"b\": [1, 2 ";
    let error = get(&ws(), Source::Text(text), "a").unwrap_err().to_string();
    assert!(
        error.contains("line 1 column 21: the input ends inside a value"),
        "{error}"
    );
    // ...and named, with its place, when the question goes through it.
    let cases: &[(&str, &str, &str)] = &[
        (
            text,
            "b",
            "line 1 column 21: the input ends inside a value\n  {\"a\": 1, \"b\": [1, 2 \n                      ^",
        ),
        (
            "{\"a\": [1}, \"b\": 2}",
            "b",
            "line 1 column 9: expected `,` or `]` after the element\n  {\"a\": [1}, \"b\": 2}\n          ^",
        ),
        (
            "{\"a\": \"x, \"b\": 2}",
            "c",
            "line 1 column 12: expected `,` or `}` after the member\n  {\"a\": \"x, \"b\": 2}\n             ^",
        ),
        (
            "{\"a\" 1}",
            "a",
            "line 1 column 6: expected `:` after the key\n  {\"a\" 1}\n       ^",
        ),
        (
            "[1 2]",
            "[1]",
            "line 1 column 4: expected `,` or `]` after the element\n  [1 2]\n     ^",
        ),
        (
            "[1, ]",
            "[1]",
            "line 1 column 5: trailing comma before the closer\n  [1, ]\n      ^",
        ),
        (
            "{\"a\": tru}",
            "b",
            "line 1 column 7: expected a value (object, array, string, number, true, false or null)\n  {\"a\": tru}\n        ^",
        ),
        (
            "{\"a\": 01}",
            "b",
            "line 1 column 7: invalid number\n  {\"a\": 01}\n        ^",
        ),
        (
            "{\"a\": \"x}",
            "b",
            "line 1 column 7: the string is never closed\n  {\"a\": \"x}\n        ^",
        ),
        (
            "{1: 2}",
            "a",
            "line 1 column 2: expected a key in double quotes\n  {1: 2}\n   ^",
        ),
    ];
    for (text, path, detail) in cases {
        let error = get(&ws(), Source::Text(text), path).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::InvalidJson, "{text}");
        assert_eq!(
            error.to_string(),
            format!(
                "refused: the text is not valid JSON: {detail}\n(repair it with `argmend repair`, or see every problem with the `validate` verb)"
            ),
            "{text}"
        );
    }
}
