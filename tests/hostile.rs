//! Issue 13, the first items: a careless or hostile model must not hang the
//! tools with a FIFO, nor write into version-control metadata.

use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

use argmend::tools::diff::{self, Mode};
use argmend::tools::{WorkspaceErrorKind, json};

use crate::support::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_argmend");

/// `f()` must answer within 10 s (a FIFO used to block its reader forever).
fn within_seconds<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(f());
    });
    receive
        .recv_timeout(Duration::from_secs(10))
        .expect("no answer in 10 s: the tool blocked")
}

#[test]
fn a_fifo_is_refused_before_it_is_opened() {
    let dir = TempDir::new();
    let fifo = dir.path().join("pipe.json");
    let made = Command::new("mkfifo").arg(&fifo).status();
    assert!(
        made.is_ok_and(|status| status.success()),
        "mkfifo failed, and this test needs a FIFO: install coreutils"
    );
    let workspace = dir.workspace();
    let error = workspace.resolve("pipe.json").unwrap_err();
    assert_eq!(error.kind(), WorkspaceErrorKind::NotAFile);
    assert!(
        error
            .to_string()
            .contains("neither a regular file nor a directory"),
        "{error}"
    );
    // Through the library…
    let answer = within_seconds({
        let workspace = workspace.clone();
        move || {
            json::get(&workspace, json::Source::File("pipe.json".as_ref()), "a")
                .map(|got| got.to_string())
                .map_err(|error| error.to_string())
        }
    });
    assert!(answer.is_err(), "{answer:?}");
    // …and the CLI, for @json and @diff.
    let root = dir.path().to_path_buf();
    let outputs = within_seconds(move || {
        [
            vec!["json", "get", "--file", "pipe.json", "--path", "a"],
            vec!["diff", "files", "pipe.json", "pipe.json"],
        ]
        .map(|args| {
            Command::new(BIN)
                .current_dir(&root)
                .args(&args)
                .output()
                .unwrap()
        })
    });
    for output in outputs {
        assert!(!output.status.success());
        let stderr = String::from_utf8_lossy(&output.stderr);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            format!("{stdout}{stderr}").contains("neither a regular file nor a directory"),
            "{stdout}{stderr}"
        );
    }
}

#[test]
fn patches_never_write_into_version_control_metadata() {
    let dir = TempDir::new();
    dir.write(".git/config", "[core]\n\tbare = false\n");
    dir.write("sub/.Git/hooks/x", "old\n");
    dir.write(".github/ci.yml", "on: push\n");
    let workspace = dir.workspace();
    let evil = "--- a/.git/config\n+++ b/.git/config\n@@ -1,2 +1,3 @@\n [core]\n \tbare = false\n+\tfsmonitor = \"touch pwned\"\n";
    for mode in [Mode::DryRun, Mode::Write] {
        // Named as the file, or reached through the directory.
        for file in [".git/config", "."] {
            let error = diff::apply(&workspace, file, evil.as_bytes(), mode).unwrap_err();
            assert!(
                error.to_string().contains("version-control metadata"),
                "{error}"
            );
        }
    }
    let hook = "--- a/sub/.Git/hooks/x\n+++ b/sub/.Git/hooks/x\n@@ -1 +1 @@\n-old\n+new\n";
    assert!(diff::apply(&workspace, ".", hook.as_bytes(), Mode::Write).is_err());
    assert_eq!(
        String::from_utf8(dir.read(".git/config")).unwrap(),
        "[core]\n\tbare = false\n"
    );
    assert_eq!(
        String::from_utf8(dir.read("sub/.Git/hooks/x")).unwrap(),
        "old\n"
    );
    // A name that only looks alike is an ordinary directory.
    let fine = "--- a/.github/ci.yml\n+++ b/.github/ci.yml\n@@ -1 +1 @@\n-on: push\n+on: [push, pull_request]\n";
    diff::apply(&workspace, ".", fine.as_bytes(), Mode::Write).unwrap();
    assert_eq!(
        String::from_utf8(dir.read(".github/ci.yml")).unwrap(),
        "on: [push, pull_request]\n"
    );
}

#[test]
fn query_compares_numbers_as_decimals_not_floats() {
    let workspace = TempDir::new().workspace();
    let text = r#"[{"id": 9007199254740992}, {"id": 9007199254740993}, {"id": 9.007199254740993e15},
                   {"id": 1}, {"id": 1.0}, {"id": 10e-1}, {"id": -0}, {"id": 0.0}]"#;
    let matched = |filter: &str| -> Vec<usize> {
        let answer = json::query(
            &workspace,
            json::Source::Text(text),
            &json::Query::new(filter),
        )
        .unwrap();
        answer
            .to_string()
            .lines()
            .filter_map(|line| line.strip_prefix('[')?.split(']').next()?.parse().ok())
            .collect()
    };
    assert_eq!(matched("id=9007199254740993"), [1, 2]);
    assert_eq!(matched("id=9007199254740992"), [0]);
    assert_eq!(matched("id=1"), [3, 4, 5]);
    assert_eq!(matched("id=0"), [6, 7]);
    assert_eq!(matched("id!=1 && id!=0"), [0, 1, 2]);
}

#[test]
fn query_refuses_operators_it_does_not_have() {
    let workspace = TempDir::new().workspace();
    let text = r#"[{"id": 5, "name": "a || b"}, {"id": 6, "name": "c"}]"#;
    let run = |filter: &str| {
        json::query(
            &workspace,
            json::Source::Text(text),
            &json::Query::new(filter),
        )
    };
    for filter in [
        "id==5",
        "id=5 || id=6",
        "id>5",
        "id>=5",
        "id<=5",
        "name=~^a",
        "name!~^a",
        "id!==5",
    ] {
        let error = run(filter).unwrap_err().to_string();
        assert!(error.contains("`where` does not have"), "{filter}: {error}");
        assert!(
            error.contains("write `field=value`, `field!=value` or `field~regex`, joined by `&&`"),
            "{filter}: {error}"
        );
    }
    // Quoted, `||` is text.
    let answer = run(r#"name="a || b""#).unwrap().to_string();
    assert!(answer.contains("1 of 2 elements matched"), "{answer}");
}

#[test]
fn a_backup_never_replaces_a_file_that_is_there() {
    let dir = TempDir::new();
    dir.write("app.py", "x = 1\n");
    dir.write("app.py.bak", "the user's own backup\n");
    dir.write("app.py.bak.1", "another one\n");
    let workspace = dir.workspace();
    let patch = "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n";
    let report = diff::apply(&workspace, "app.py", patch.as_bytes(), Mode::Write).unwrap();
    assert!(
        report
            .to_string()
            .contains("the original is saved as app.py.bak.2"),
        "{report}"
    );
    assert_eq!(dir.read("app.py.bak"), b"the user's own backup\n");
    assert_eq!(dir.read("app.py.bak.1"), b"another one\n");
    assert_eq!(dir.read("app.py.bak.2"), b"x = 1\n");
    assert_eq!(dir.read("app.py"), b"x = 2\n");
}

#[cfg(unix)]
#[test]
fn a_failed_write_takes_its_backups_away_and_keeps_modes() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempDir::new();
    dir.write("a.sh", "echo a\n");
    dir.write("x.txt", "a file, not a directory\n");
    std::fs::set_permissions(
        dir.path().join("a.sh"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    // The second file would go under `x.txt/`, a file: the walk that plans
    // the write sees it, so nothing is written at all (the rollback of a
    // write that fails half way is tested beside the writer, in
    // `tools::diff::write`, where a failure can be made to happen).
    let patch = "--- a/a.sh\n+++ b/a.sh\n@@ -1 +1 @@\n-echo a\n+echo A\n--- /dev/null\n+++ b/x.txt/new.txt\n@@ -0,0 +1 @@\n+new\n";
    let result = diff::apply(&dir.workspace(), ".", patch.as_bytes(), Mode::Write);
    let error = result.unwrap_err().to_string();
    assert!(
        error.contains("`x.txt` is a file, not a directory"),
        "{error}"
    );
    assert_eq!(dir.read("a.sh"), b"echo a\n");
    let mode = std::fs::metadata(dir.path().join("a.sh"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o755);
    assert!(
        !dir.path().join("a.sh.bak").exists(),
        "the rollback left a backup behind"
    );
}

#[test]
fn a_file_with_a_long_name_can_be_patched() {
    let dir = TempDir::new();
    let name = format!("{}.txt", "ü".repeat(120)); // 244 bytes: the longest names fit
    dir.write(&name, "old\n");
    let patch = format!("--- a/{name}\n+++ b/{name}\n@@ -1 +1 @@\n-old\n+new\n");
    diff::apply(&dir.workspace(), &name, patch.as_bytes(), Mode::Write).unwrap();
    assert_eq!(dir.read(&name), b"new\n");
}

#[test]
fn a_newline_in_a_file_name_cannot_forge_a_line_of_a_listing() {
    let dir = TempDir::new();
    dir.write("a/ok.txt", "1\n");
    dir.write("b/ok.txt", "1\n");
    dir.write("b/x\nchanged  secret.txt", "forged\n");
    let listing = diff::diff_dirs(&dir.workspace(), "a", "b", None)
        .unwrap()
        .to_string();
    assert!(
        listing.contains(r#"added    "x\nchanged  secret.txt""#),
        "{listing}"
    );
    assert!(
        !listing.lines().any(|line| line.starts_with("changed")),
        "{listing}"
    );
    // A patch header quotes such a name as git does, and applies back.
    let workspace = dir.workspace();
    let name = "b/x\nchanged  secret.txt";
    dir.write("new.txt", "real\n");
    let patch = diff::diff_files(&workspace, name, "new.txt", Default::default()).unwrap();
    let text = patch.to_string();
    assert!(
        text.starts_with("--- \"b/x\\nchanged  secret.txt\"\n+++ new.txt\n"),
        "{text}"
    );
    let error =
        argmend::tools::json::get(&workspace, json::Source::File("q\nw.json".as_ref()), "a")
            .unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with(r#"cannot read `"q\nw.json"`"#),
        "{error}"
    );
}

#[test]
fn a_byte_order_mark_is_not_part_of_the_document() {
    let dir = TempDir::new();
    dir.write("bom.json", b"\xEF\xBB\xBF{\"a\": {\"b\": 1}}");
    dir.write("bom.yaml", b"\xEF\xBB\xBFa:\n  b: 2\n");
    let workspace = dir.workspace();
    let note = "note: a UTF-8 byte-order mark at the start was skipped\n";
    for (file, want) in [("bom.json", "1"), ("bom.yaml", "2")] {
        let got = json::get(&workspace, json::Source::File(file.as_ref()), "a.b").unwrap();
        assert_eq!(got.to_string(), format!("{want}\n{note}"), "{file}");
        assert_eq!(got.matches()[0].json, want);
        assert_eq!(got.notes().len(), 1);
    }
    let got = json::get(
        &workspace,
        json::Source::Text("\u{FEFF}{\"a\": {\"b\": 3}}"),
        "a.b",
    )
    .unwrap();
    assert_eq!(got.to_string(), format!("3\n{note}"));
    // Without a mark, no note.
    let got = json::get(&workspace, json::Source::Text("{\"a\": 4}"), "a").unwrap();
    assert_eq!(got.to_string(), "4\n");
}

#[test]
fn broken_json_is_refused_never_printed_as_a_value() {
    let workspace = TempDir::new().workspace();
    let broken = r#"{"a": {b: 1, c: tru, "d": [1,,2]}}"#;
    let error = json::get(&workspace, json::Source::Text(broken), "a").unwrap_err();
    assert_eq!(error.kind(), json::ErrorKind::InvalidJson);
    assert!(error.to_string().contains("line 1 column 8"), "{error}");
    let rows = r#"[{"a": 1, "b": xx}, {"a": 2}]"#;
    let error = json::query(
        &workspace,
        json::Source::Text(rows),
        &json::Query::new("a=1"),
    )
    .unwrap_err();
    assert_eq!(error.kind(), json::ErrorKind::InvalidJson, "{error}");
    let cut = r#"{"a": 1, "b": {"c": [1, 2"#;
    for verb in ["get", "keys", "schema", "pretty"] {
        let answer = match verb {
            "get" => json::get(&workspace, json::Source::Text(cut), "a").map(|a| a.to_string()),
            "keys" => json::keys(&workspace, json::Source::Text(cut), "").map(|a| a.to_string()),
            "schema" => json::schema(&workspace, json::Source::Text(cut), 4).map(|a| a.to_string()),
            _ => json::pretty(&workspace, json::Source::Text(cut), json::Layout::Indented)
                .map(|a| a.to_string()),
        };
        let error = answer.unwrap_err();
        assert!(
            error.to_string().contains("the input ends inside a value"),
            "{verb}: {error}"
        );
    }
}

#[test]
fn deep_documents_are_refused_at_once_and_answers_stay_within_the_cap() {
    let dir = TempDir::new();
    dir.write(
        "deep.json",
        format!("{}1{}", "{\"a\":".repeat(16_000), "}".repeat(16_000)),
    );
    dir.write(
        "deeparr.json",
        format!("{}{}", "[".repeat(200_000), "]".repeat(200_000)),
    );
    let workspace = dir.workspace();
    for (file, path) in [("deep.json", "a"), ("deeparr.json", "[0][0][0]")] {
        let error = within_seconds({
            let workspace = workspace.clone();
            move || {
                json::get(&workspace, json::Source::File(file.as_ref()), path)
                    .map(|got| got.to_string())
                    .unwrap_err()
                    .to_string()
            }
        });
        assert!(
            error.contains("nests deeper than 512 levels"),
            "{file}: {error}"
        );
    }
    // 100 levels with 100,000 numbers inside: indented whole that is about
    // 20 MB of spaces; the answer keeps the cap and says the true size.
    let wide = format!(
        "{}{}{}",
        "[".repeat(100),
        vec!["1"; 100_000].join(","),
        "]".repeat(100)
    );
    // serde_json's pretty printer lays out this document the same way.
    let value: serde_json::Value = serde_json::from_str(&wide).unwrap();
    let truth = serde_json::to_string_pretty(&value).unwrap().len() + 1;
    let answer = within_seconds(move || {
        json::pretty(
            &TempDir::new().workspace(),
            json::Source::Text(&wide),
            json::Layout::Indented,
        )
        .unwrap()
        .to_string()
    });
    assert!(answer.len() < json::MAX_OUTPUT + 500, "{}", answer.len());
    let note = answer.lines().last().unwrap();
    let of = true_size(note);
    assert_eq!(of, truth, "{note}");
}

#[test]
fn a_capped_fan_out_keeps_its_count_and_tells_the_true_size() {
    let items: Vec<String> = (0..5_000)
        .map(|i| format!("{{\"id\": {i}, \"name\": \"item number {i}\"}}"))
        .collect();
    let doc = format!("{{\"items\": [{}]}}", items.join(","));
    let answer = json::get(
        &TempDir::new().workspace(),
        json::Source::Text(&doc),
        "items[*].id",
    )
    .unwrap()
    .to_string();
    assert!(answer.starts_with("5000 matches\n"), "{}", &answer[..80]);
    let note = answer.lines().last().unwrap();
    let of = true_size(note);
    // `items[4999].id: 4999` and the like, one a line.
    let truth: usize = (0..5_000)
        .map(|i: usize| format!("items[{i}].id: {i}\n").len())
        .sum::<usize>()
        + "5000 matches\n".len();
    assert_eq!(of, truth, "{note}");
}

#[test]
fn an_unknown_verb_is_named_with_the_verbs_there_are() {
    for (args, verbs) in [
        (
            vec!["json", "gett", "--file", "a.json"],
            "get, keys, query, schema, validate, pretty",
        ),
        (vec!["diff", "patch", "x"], "files, text, dirs, apply, json"),
    ] {
        let output = Command::new(BIN).args(&args).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        // `json` answers refusals on stdout (a model reads them), `diff` on stderr.
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(
            said.contains(&format!("unknown verb `{}`", args[1])),
            "{said}"
        );
        assert!(said.contains(verbs), "{said}");
    }
}

/// The answer's true size from its cut note (`… cut at 23562 of 20560999 bytes …`).
fn true_size(note: &str) -> usize {
    let after = note.split(" of ").nth(1).unwrap_or_default();
    after
        .split(' ')
        .next()
        .unwrap_or_default()
        .parse()
        .unwrap_or(0)
}
