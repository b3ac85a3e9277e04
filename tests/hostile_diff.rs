//! Issue 13, `@diff`'s part: patches git writes that argmend cannot apply
//! are refused naming the file; quoted names are decoded; a failed write
//! says it rolled back; messages that help a model find its mistake.

use std::process::Command;

use argmend::tools::WorkspaceErrorKind;
use argmend::tools::diff::{self, ErrorKind, Mode};

use crate::support::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_argmend");

#[test]
fn git_quoted_paths_are_decoded() {
    let dir = TempDir::new();
    dir.write("ü.txt", "old\n");
    let patch = "diff --git \"a/\\303\\274.txt\" \"b/\\303\\274.txt\"\nindex 3367afd..3e75765 100644\n\
                 --- \"a/\\303\\274.txt\"\n+++ \"b/\\303\\274.txt\"\n@@ -1 +1 @@\n-old\n+new\n";
    let report = diff::apply(&dir.workspace(), ".", patch.as_bytes(), Mode::Write).unwrap();
    assert_eq!(report.files()[0].path, "ü.txt");
    assert_eq!(dir.read("ü.txt"), b"new\n");
    // Escapes other than octal: a tab and a quote in a name.
    dir.write("a\t\"b\".txt", "x\n");
    let patch = "--- \"a/a\\t\\\"b\\\".txt\"\n+++ \"b/a\\t\\\"b\\\".txt\"\n@@ -1 +1 @@\n-x\n+y\n";
    diff::apply(&dir.workspace(), ".", patch.as_bytes(), Mode::Write).unwrap();
    assert_eq!(dir.read("a\t\"b\".txt"), b"y\n");
}

#[test]
fn patches_argmend_cannot_apply_name_their_file() {
    let dir = TempDir::new();
    dir.write("logo.png", "not really a png\n");
    dir.write("run.sh", "echo hi\n");
    dir.write("old.txt", "text\n");
    let cases = [
        (
            "diff --git a/logo.png b/logo.png\nindex 1..2 100644\nBinary files a/logo.png and b/logo.png differ\n",
            "`logo.png` is a binary patch",
        ),
        (
            "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n",
            "`run.sh` only changes the file's mode",
        ),
        (
            "diff --git a/old.txt b/new.txt\nsimilarity index 100%\nrename from old.txt\nrename to new.txt\n",
            "`new.txt` renames or copies a file",
        ),
        (
            "diff --git a/link b/link\nnew file mode 120000\nindex 0000000..1b2c3d4\n--- /dev/null\n+++ b/link\n@@ -0,0 +1 @@\n+target.txt\n\\ No newline at end of file\n",
            "`link` is for a symbolic link (mode 120000)",
        ),
    ];
    for (patch, want) in cases {
        let error = diff::apply(&dir.workspace(), ".", patch.as_bytes(), Mode::Write).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Unsupported, "{error}");
        assert!(
            error.to_string().contains(want),
            "{error}\n  wanted: {want}"
        );
    }
    // The symlink patch wrote nothing: no regular file named `link`.
    assert!(!dir.path().join("link").exists());
    assert_eq!(dir.read("run.sh"), b"echo hi\n");
    // A mode change with content: the content is applied and the note says
    // the mode was not.
    let patch = "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n--- a/run.sh\n+++ b/run.sh\n@@ -1 +1 @@\n-echo hi\n+echo bye\n";
    let report = diff::apply(&dir.workspace(), ".", patch.as_bytes(), Mode::Write).unwrap();
    assert!(
        report.to_string().contains("the mode was left as it was"),
        "{report}"
    );
}

#[test]
fn a_patch_without_the_no_newline_marker_gets_no_line_ending_note() {
    let dir = TempDir::new();
    dir.write("f.txt", "a\nb");
    // A model's patch: no `\ No newline at end of file`.
    let patch = "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n";
    let report = diff::apply(&dir.workspace(), "f.txt", patch.as_bytes(), Mode::Write).unwrap();
    assert!(!report.to_string().contains("line endings"), "{report}");
    // A real CRLF/LF difference still gets its note.
    dir.write("g.txt", "a\r\nb\r\n");
    let patch = "--- a/g.txt\n+++ b/g.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n";
    let report = diff::apply(&dir.workspace(), "g.txt", patch.as_bytes(), Mode::Write).unwrap();
    assert!(
        report.to_string().contains("line endings differ"),
        "{report}"
    );
    assert_eq!(dir.read("g.txt"), b"a\r\nc\r\n");
}

#[test]
fn a_file_name_given_as_the_patch_is_named() {
    let dir = TempDir::new();
    dir.write("app.py", "x = 1\n");
    dir.write(
        "fix.diff",
        "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n",
    );
    for patch in ["fix.diff", "changes.patch"] {
        let error =
            diff::apply(&dir.workspace(), "app.py", patch.as_bytes(), Mode::DryRun).unwrap_err();
        assert!(
            error
                .to_string()
                .contains(&format!("and `{patch}` is a file name"))
                || error
                    .to_string()
                    .contains(&format!("and `{patch}` looks like a file name")),
            "{error}"
        );
    }
    // Other one-line junk keeps the usual message.
    let error =
        diff::apply(&dir.workspace(), "app.py", b"please fix it", Mode::DryRun).unwrap_err();
    assert!(error.to_string().contains("holds no hunk"), "{error}");
}

#[test]
fn a_missing_file_gets_the_nearest_name() {
    let dir = TempDir::new();
    dir.write("src/main.rs", "fn main() {}\n");
    dir.write("data.json", "{\"a\": 1}");
    let workspace = dir.workspace();
    let error =
        diff::diff_files(&workspace, "src/mian.rs", "src/main.rs", Default::default()).unwrap_err();
    assert!(
        error.to_string().contains("did you mean `src/main.rs`?"),
        "{error}"
    );
    let error = argmend::tools::json::get(
        &workspace,
        argmend::tools::json::Source::File("dta.json".as_ref()),
        "a",
    )
    .unwrap_err();
    assert!(
        error.to_string().contains("did you mean `data.json`?"),
        "{error}"
    );
    let patch = "--- a/src/man.rs\n+++ b/src/man.rs\n@@ -1 +1 @@\n-fn main() {}\n+fn main() { }\n";
    let error = diff::apply(&workspace, ".", patch.as_bytes(), Mode::DryRun).unwrap_err();
    assert!(
        error.to_string().contains("did you mean `src/main.rs`?"),
        "{error}"
    );
    // Nothing near: no guess.
    let error =
        diff::diff_files(&workspace, "zzzzzz.txt", "data.json", Default::default()).unwrap_err();
    assert!(!error.to_string().contains("did you mean"), "{error}");
}

#[test]
fn a_dangling_link_inside_is_not_said_to_lead_out() {
    let dir = TempDir::new();
    std::os::unix::fs::symlink("runs/7.json", dir.path().join("latest.json")).unwrap();
    std::os::unix::fs::symlink("/nonexistent/elsewhere", dir.path().join("out.json")).unwrap();
    let workspace = dir.workspace();
    let error = workspace.resolve("latest.json").unwrap_err();
    assert_eq!(error.kind(), WorkspaceErrorKind::DanglingLink);
    assert_eq!(
        error.to_string(),
        "`latest.json` is a symbolic link to `runs/7.json`, which does not exist: fix or remove \
         the link, or use the file it should point to"
    );
    let error = workspace.resolve("out.json").unwrap_err();
    assert_eq!(error.kind(), WorkspaceErrorKind::SymlinkOut);
}

#[test]
fn the_cli_dry_run_names_its_flag_and_the_tool_names_dry_run() {
    let dir = TempDir::new();
    dir.write("a.txt", "old\n");
    dir.write(
        "p.diff",
        "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+new\n",
    );
    let run = |args: &[&str]| {
        let output = Command::new(BIN)
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let flags = run(&["diff", "apply", "a.txt", "--patch", "p.diff"]);
    assert!(flags.contains("(write it with --write)"), "{flags}");
    let envelope = r#"{"cmd":"apply","args":{"file":"a.txt","patch":"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+new\n"}}"#;
    let tool = run(&["diff", envelope]);
    assert!(
        tool.contains("call again with \"dry_run\": false") && !tool.contains("--write"),
        "{tool}"
    );
}

#[test]
fn the_command_line_forms_work_as_calls() {
    use argmend::Dispatcher;
    let dir = TempDir::new();
    dir.write("a.txt", "one\n");
    dir.write("b.txt", "two\n");
    dir.write(
        "fix.diff",
        "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+uno\n",
    );
    dir.write("resp.json", "{\"a\": [1, 2]}");
    let dispatcher = Dispatcher::new(dir.workspace());
    let files = dispatcher.run("@diff", "files a.txt b.txt");
    assert!(files.ok, "{}", files.output);
    assert!(files.output.contains("-one\n+two\n"), "{}", files.output);
    let apply = dispatcher.run("@diff", "apply a.txt --patch fix.diff");
    assert!(apply.ok, "{}", apply.output);
    assert!(
        apply
            .output
            .starts_with("dry run: the patch applies cleanly"),
        "{}",
        apply.output
    );
    let get = dispatcher.run("@json", "get resp.json --path a[1]");
    assert!(get.ok, "{}", get.output);
    assert_eq!(get.output, "2\n");
    // A word too many is named, in words a model can act on.
    let extra = dispatcher.run("@diff", "files a.txt b.txt c.txt");
    assert!(!extra.ok);
    assert!(
        extra
            .output
            .contains("1 more word than it takes (\"c.txt\")"),
        "{}",
        extra.output
    );
    assert!(!extra.output.contains("ToolMap"), "{}", extra.output);
}
