//! `@diff` (issue 5): the round trip `apply(diff(a, b), a) == b` as a
//! property, GNU `patch`, `diff -u` and `git diff` as oracles, a golden test
//! for every refusal message, the strict apply's guarantees on disk, the
//! caps, `dirs`, `json`, the envelope, the CLI, and the fuzz seeds.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use argmend::tools::diff::{
    self, Answer, Change, DiffOptions, ErrorKind, FileChange, Mode, apply, apply_to, diff_bytes,
    diff_dirs, diff_files, diff_json, diff_text,
};
use argmend::tools::{Workspace, WorkspaceErrorKind};
use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;

use crate::support::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_argmend");

// ---------------------------------------------------------------------------
// Helpers

fn text_diff(a: &str, b: &str) -> Vec<u8> {
    diff_text(a, b, DiffOptions::default())
        .unwrap()
        .patch()
        .to_vec()
}

/// Fails, saying what to install, when the peer tool an oracle check runs
/// is missing: the check never passes without running it. `scripts/test`
/// installs all three.
fn require(tool: &str, package: &str) {
    assert!(
        Command::new(tool).arg("--version").output().is_ok(),
        "`{tool}` is not installed, and this oracle check runs it: install {package} \
         (apt-get install {package}), or run scripts/test, which does"
    );
}

/// Deterministic pseudo-random texts for the oracle checks: lines from a
/// small alphabet (so diffs find matches), mixed endings, sometimes no final
/// newline.
fn generated_pairs(n_pairs: usize) -> Vec<(String, String)> {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |m: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % m
    };
    let words = [
        "alpha",
        "beta",
        "",
        "  indented",
        "gamma delta",
        "}",
        "{",
        "x = 1;",
        "\ttab",
    ];
    let mut pairs = Vec::new();
    for idx in 0..n_pairs {
        let crlf = idx % 3 == 0;
        let mut lines: Vec<String> = (0..next(40))
            .map(|_| words[next(9) as usize].to_owned())
            .collect();
        let mut changed = lines.clone();
        for _ in 0..next(6) + 1 {
            let at = next(changed.len() as u64 + 1) as usize;
            match next(3) {
                0 => changed.insert(at, format!("new {}", next(100))),
                1 if at < changed.len() => {
                    changed.remove(at);
                }
                _ if at < changed.len() => changed[at] = format!("changed {}", next(100)),
                _ => changed.push("tail".to_owned()),
            }
        }
        if idx % 5 == 0 {
            lines.reverse();
        }
        let join = |lines: &[String], final_newline: bool| {
            let eol = if crlf { "\r\n" } else { "\n" };
            let mut text = lines.join(eol);
            if final_newline && !lines.is_empty() {
                text.push_str(eol);
            }
            text
        };
        pairs.push((join(&lines, idx % 4 != 1), join(&changed, idx % 4 != 2)));
    }
    pairs
}

// ---------------------------------------------------------------------------
// Round trip (property)

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(256);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// A text: lines from a small alphabet, each ending in LF or CRLF, the last
/// one sometimes with no ending at all.
fn text() -> impl Strategy<Value = String> {
    let line = prop_oneof![
        Just("a".to_owned()),
        Just("b".to_owned()),
        Just(String::new()),
        Just(" c ".to_owned()),
        Just("\\ No newline at end of file".to_owned()),
        Just("-dash".to_owned()),
        Just("+plus".to_owned()),
        Just("@@ -1 +1 @@".to_owned()),
        "[a-z é\t]{0,6}",
    ];
    let eol = prop_oneof![3 => Just("\n"), 1 => Just("\r\n"), 1 => Just("\r")];
    (prop::collection::vec((line, eol), 0..24), any::<bool>()).prop_map(|(lines, final_newline)| {
        let mut text = String::new();
        for (line, eol) in &lines {
            text.push_str(line);
            text.push_str(eol);
        }
        if !final_newline {
            while text.ends_with(['\n', '\r']) {
                text.pop();
            }
        }
        text
    })
}

/// `b` as an edit of `a` (most real diffs), or an unrelated text.
fn pair() -> impl Strategy<Value = (String, String)> {
    prop_oneof![
        (text(), text()),
        (text(), text(), any::<prop::sample::Index>()).prop_map(|(a, insert, at)| {
            let mut cut = at.index(a.len() + 1);
            while !a.is_char_boundary(cut) {
                cut -= 1;
            }
            let b = format!("{}{insert}{}", &a[..cut], &a[cut..]);
            (a, b)
        }),
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn applying_the_diff_gives_b((a, b) in pair(), context in 0usize..5) {
        let diff = diff_text(&a, &b, DiffOptions::default().context(context)).unwrap();
        prop_assert_eq!(diff.is_identical(), a == b);
        if a != b {
            let applied = apply_to(a.as_bytes(), diff.patch());
            prop_assert_eq!(applied.map_err(|e| e.to_string()), Ok(b.clone().into_bytes()));
        }
    }

    #[test]
    fn a_patch_on_the_wrong_text_is_refused_or_exact((a, b) in pair(), other in text()) {
        // Never a panic; and if it applies, every old line matched, so the
        // file was equal to `a` around every hunk.
        let diff = diff_text(&a, &b, DiffOptions::default()).unwrap();
        if !diff.is_identical() {
            let _ = apply_to(other.as_bytes(), diff.patch());
        }
    }
}

// ---------------------------------------------------------------------------
// Oracles: GNU patch, diff -u, git diff

#[test]
fn gnu_patch_applies_our_diffs() {
    require("patch", "patch");
    let dir = TempDir::new();
    for (idx, (a, b)) in generated_pairs(40).iter().enumerate() {
        if a == b {
            continue;
        }
        dir.write("a.txt", a);
        dir.write("ours.diff", text_diff(a, b));
        let output = Command::new("patch")
            .args(["--quiet", "--force", "-o", "out.txt", "a.txt", "ours.diff"])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "pair {idx}: patch failed: {output:?}"
        );
        assert_eq!(
            String::from_utf8_lossy(&dir.read("out.txt")),
            *b,
            "pair {idx}"
        );
    }
}

#[test]
fn we_apply_diff_u_patches() {
    require("diff", "diffutils");
    let dir = TempDir::new();
    for (idx, (a, b)) in generated_pairs(40).iter().enumerate() {
        dir.write("a.txt", a);
        dir.write("b.txt", b);
        let output = Command::new("diff")
            .args(["-u", "a.txt", "b.txt"])
            .current_dir(dir.path())
            .output()
            .unwrap();
        if a == b {
            assert!(output.stdout.is_empty());
            continue;
        }
        let applied =
            apply_to(a.as_bytes(), &output.stdout).unwrap_or_else(|e| panic!("pair {idx}: {e}"));
        assert_eq!(String::from_utf8_lossy(&applied), *b, "pair {idx}");
        // Our own diff has the same hunks as GNU's, timestamps aside.
        let ours = text_diff(a, b);
        let theirs: Vec<&[u8]> = output.stdout.split(|&c| c == b'\n').skip(2).collect();
        let mine: Vec<&[u8]> = ours.split(|&c| c == b'\n').skip(2).collect();
        assert_eq!(applied.len(), b.len());
        assert_eq!(
            theirs.len(),
            mine.len(),
            "pair {idx}: hunk lines differ in number"
        );
    }
}

fn git(dir: &Path, args: &[&str]) -> Output {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .unwrap();
    assert!(
        output.status.success() || args[0] == "diff",
        "git {args:?}: {output:?}"
    );
    output
}

#[test]
fn we_apply_git_diff_patches_to_several_files() {
    require("git", "git");
    let dir = TempDir::new();
    let pairs = generated_pairs(12);
    for (idx, (a, _)) in pairs.iter().enumerate() {
        dir.write(&format!("src/f{idx}.txt"), a);
    }
    dir.write("gone.txt", "bye\n");
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "-A"]);
    for (idx, (_, b)) in pairs.iter().enumerate() {
        dir.write(&format!("src/f{idx}.txt"), b);
    }
    dir.write("src/new file.txt", "hello\r\nworld\r\n");
    fs::remove_file(dir.path().join("gone.txt")).unwrap();
    git(dir.path(), &["add", "-N", "src/new file.txt"]);
    let patch = git(dir.path(), &["diff", "--no-color", "--no-ext-diff"]).stdout;
    // Put the old tree back, then apply git's patch with argmend.
    for (idx, (a, _)) in pairs.iter().enumerate() {
        dir.write(&format!("src/f{idx}.txt"), a);
    }
    fs::remove_file(dir.path().join("src/new file.txt")).unwrap();
    dir.write("gone.txt", "bye\n");
    let report =
        apply(&dir.workspace(), ".", &patch, Mode::Write).unwrap_or_else(|e| panic!("{e}"));
    for (idx, (_, b)) in pairs.iter().enumerate() {
        assert_eq!(
            String::from_utf8_lossy(&dir.read(&format!("src/f{idx}.txt"))),
            *b,
            "file {idx}"
        );
    }
    assert_eq!(dir.read("src/new file.txt"), b"hello\r\nworld\r\n");
    assert!(!dir.path().join("gone.txt").exists());
    assert!(
        report
            .files()
            .iter()
            .any(|f| f.change == FileChange::Created)
    );
    assert!(
        report
            .files()
            .iter()
            .any(|f| f.change == FileChange::Deleted)
    );
}

// ---------------------------------------------------------------------------
// Refusals: one golden message each

const FILE: &str = "def total(xs):\n    s = 0\n    for x in xs:\n        s += x\n    return s\n";

fn refusal(original: &str, patch: &str) -> (ErrorKind, String) {
    let error = apply_to(original.as_bytes(), patch.as_bytes()).unwrap_err();
    (error.kind(), error.to_string())
}

#[test]
fn refusal_wrong_context_line() {
    let patch = "--- a/sum.py\n+++ b/sum.py\n@@ -3,3 +3,3 @@\n     for x in items:\n-        s += x\n+        s += 2 * x\n     return s\n";
    assert_eq!(
        refusal(FILE, patch),
        (
            ErrorKind::ContextMismatch,
            "refused: hunk 1 of `sum.py` (@@ -3,3 +3,3 @@) does not match at line 3 (a context line)
  the patch expects: \"    for x in items:\"
  the file has:      \"    for x in xs:\"
  hint: the hunk's lines occur nowhere in the file: re-read `sum.py` and regenerate the hunk
nothing was written"
                .to_owned()
        )
    );
}

#[test]
fn refusal_removed_line_mismatch_with_a_hint() {
    // The hunk's lines are really at 2-4, not at 1-3.
    let patch = "@@ -1,3 +1,3 @@\n     s = 0\n-    for x in xs:\n+    for x in sorted(xs):\n         s += x\n";
    assert_eq!(
        refusal(FILE, patch),
        (
            ErrorKind::ContextMismatch,
            "refused: hunk 1 of `the text` (@@ -1,3 +1,3 @@) does not match at line 1 (a context line)
  the patch expects: \"    s = 0\"
  the file has:      \"def total(xs):\"
  hint: the hunk's lines occur at line 2 of the file (not applied there: fix the hunk header if that is the place)
nothing was written"
                .to_owned()
        )
    );
    let patch = "@@ -2,2 +2,2 @@\n     s = 0\n-    for x in ys:\n+    for x in sorted(xs):\n";
    assert_eq!(
        refusal(FILE, patch),
        (
            ErrorKind::RemovedMismatch,
            "refused: hunk 1 of `the text` (@@ -2,2 +2,2 @@) does not match at line 3 (a removed line)
  the patch expects: \"    for x in ys:\"
  the file has:      \"    for x in xs:\"
  hint: the hunk's lines occur nowhere in the file: re-read `the text` and regenerate the hunk
nothing was written"
                .to_owned()
        )
    );
}

#[test]
fn refusal_hunk_past_the_end() {
    let patch = "@@ -4,3 +4,3 @@\n         s += x\n     return s\n-\n+# end\n";
    assert_eq!(
        refusal(FILE, patch),
        (
            ErrorKind::PastEnd,
            "refused: hunk 1 of `the text` (@@ -4,3 +4,3 @@) needs lines 4-6, but the file has only 5 lines
  hint: the expected line occurs at line 4, but the whole hunk matches nowhere: re-read `the text` and regenerate the hunk
nothing was written"
                .to_owned()
        )
    );
}

/// Issue 28: a patch applied a second time said "the hunk's lines occur
/// nowhere"; the file already has the hunk's new side there, so it says so.
#[test]
fn refusal_already_applied() {
    let patch = "--- a/sum.py\n+++ b/sum.py\n@@ -4,2 +4,2 @@\n         s += x\n-    return s\n+    return s / len(xs)\n";
    let once = apply_to(FILE.as_bytes(), patch.as_bytes()).unwrap();
    let once = String::from_utf8(once).unwrap();
    assert_eq!(
        refusal(&once, patch),
        (
            ErrorKind::RemovedMismatch,
            "refused: hunk 1 of `sum.py` (@@ -4,2 +4,2 @@) does not match at line 5 (a removed line)
  the patch expects: \"    return s\"
  the file has:      \"    return s / len(xs)\"
  hint: already applied? the file already has the hunk's new lines at line 4, where the hunk applies: if the patch was applied before, there is nothing left to do
nothing was written"
                .to_owned()
        )
    );
    // The result moved down by two lines: found, but not where the hunk applies.
    let moved = format!("# stats\n\n{once}");
    assert_eq!(
        refusal(&moved, patch),
        (
            ErrorKind::ContextMismatch,
            "refused: hunk 1 of `sum.py` (@@ -4,2 +4,2 @@) does not match at line 4 (a context line)
  the patch expects: \"        s += x\"
  the file has:      \"    s = 0\"
  hint: already applied? the file already has the hunk's new lines at line 6: if the patch was applied before, there is nothing left to do; if not, re-read `sum.py` and regenerate the hunk
nothing was written"
                .to_owned()
        )
    );
    // A deletion at the end of the file, applied again, asks for lines past it.
    let cut = "@@ -4,2 +4,1 @@\n         s += x\n-    return s\n";
    let once = String::from_utf8(apply_to(FILE.as_bytes(), cut.as_bytes()).unwrap()).unwrap();
    let (kind, message) = refusal(&once, cut);
    assert_eq!(kind, ErrorKind::PastEnd);
    assert!(
        message.contains("hint: already applied? the file already has the hunk's new lines at line 4, where the hunk applies"),
        "{message}"
    );
    // Context alone found elsewhere is no sign of anything.
    let (_, message) = refusal(FILE, "@@ -1,2 +1,1 @@\n-nothing like it\n     s = 0\n");
    assert!(!message.contains("already applied"), "{message}");
}

/// Issue 28: a patch for several files, applied again after one of them was
/// put back, is refused as a whole (nothing written, no new backup), and the
/// message says which file has the patch already; a creation applied again
/// says so too.
#[test]
fn an_applied_patch_applied_again_is_refused_whole() {
    let dir = TempDir::new();
    dir.write("a.txt", "one\ntwo\n");
    dir.write("b.txt", "three\nfour\n");
    let patch = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n three\n-four\n+4\n--- /dev/null\n+++ b/c.txt\n@@ -0,0 +1,1 @@\n+five\n";
    dir.write("p.diff", patch);
    let (code, _) = cli(
        &dir,
        &["diff", "apply", ".", "--patch", "p.diff", "--write"],
    );
    assert_eq!(code, 0);
    // b.txt as it was: a.txt and c.txt have the patch, b.txt does not.
    dir.write("b.txt", "three\nfour\n");
    fs::remove_file(dir.path().join("a.txt.bak")).unwrap();
    fs::remove_file(dir.path().join("b.txt.bak")).unwrap();
    let (code, out) = cli(
        &dir,
        &["diff", "apply", ".", "--patch", "p.diff", "--write"],
    );
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        out,
        "refused: hunk 1 of `a.txt` (@@ -1,2 +1,2 @@) does not match at line 2 (a removed line)
  the patch expects: \"two\"
  the file has:      \"2\"
  hint: already applied? the file already has the hunk's new lines at line 1, where the hunk applies: if the patch was applied before, there is nothing left to do
nothing was written
"
    );
    assert_eq!(dir.read("a.txt"), b"one\n2\n");
    assert_eq!(dir.read("b.txt"), b"three\nfour\n");
    assert!(!dir.path().join("a.txt.bak").exists());
    assert!(!dir.path().join("b.txt.bak").exists());
    let creation = "--- /dev/null\n+++ b/c.txt\n@@ -0,0 +1,1 @@\n+five\n";
    dir.write("c.diff", creation);
    let (code, out) = cli(
        &dir,
        &["diff", "apply", ".", "--patch", "c.diff", "--write"],
    );
    assert_eq!(
        (code, out.as_str()),
        (
            1,
            "refused: the patch creates `c.txt`, which already exists with exactly the lines the patch adds: already applied? If the patch was applied before, there is nothing left to do\nnothing was written\n"
        )
    );
    dir.write("c.txt", "six\n");
    let (code, out) = cli(
        &dir,
        &["diff", "apply", ".", "--patch", "c.diff", "--write"],
    );
    assert_eq!(
        (code, out.as_str()),
        (
            1,
            "refused: the patch creates `c.txt`, which already exists: patch it with a hunk against its content instead\nnothing was written\n"
        )
    );
    assert_eq!(dir.read("c.txt"), b"six\n");
}

#[test]
fn refusal_bad_header_counts() {
    let patch =
        "--- a/sum.py\n+++ b/sum.py\n@@ -1,3 +1,3 @@\n def total(xs):\n-    s = 0\n+    s = 1\n";
    assert_eq!(
        refusal(FILE, patch),
        (
            ErrorKind::BadCounts,
            "refused: patch line 6: hunk 1 (@@ -1,3 +1,3 @@) ends before its header counts: the header says 3 old and 3 new lines, the body has 2 old and 2 new (context lines count on both sides): fix the counts or add the missing lines"
                .to_owned()
        )
    );
    let patch = "@@ -1,2 +1,2 @@\n def total(xs):\n-    s = 0\n+    s = 1\n     for x in xs:\n";
    assert_eq!(
        refusal(FILE, patch),
        (
            ErrorKind::BadCounts,
            "refused: patch line 5: hunk 1 (@@ -1,2 +1,2 @@) has more lines than its header counts: the header says 2 old and 2 new lines, the body has 3 old and 3 new (context lines count on both sides): raise the counts"
                .to_owned()
        )
    );
}

#[test]
fn refusal_malformed_hunk_header() {
    let patch = "--- a/sum.py\n+++ b/sum.py\n@@ -1,3 +x @@\n def total(xs):\n";
    assert_eq!(
        refusal(FILE, patch),
        (
            ErrorKind::MalformedHeader,
            "refused: patch line 3: malformed hunk header \"@@ -1,3 +x @@\": expected `@@ -START,COUNT +START,COUNT @@` (a count of 1 may be left out)"
                .to_owned()
        )
    );
}

#[test]
fn refusal_malformed_patches() {
    assert_eq!(
        refusal(FILE, "just some prose\n"),
        (
            ErrorKind::MalformedPatch,
            "refused: the patch holds no hunk: a unified patch has `--- old` and `+++ new` lines, then hunks that start with `@@ -START,COUNT +START,COUNT @@`".to_owned()
        )
    );
    assert_eq!(
        refusal(FILE, "--- a/x\n+++ b/x\n-    s = 0\n+    s = 1\n"),
        (
            ErrorKind::MalformedPatch,
            "refused: patch line 3: \"-    s = 0\" stands outside any hunk: every `+`, `-` and ` ` line must follow an `@@ -START,COUNT +START,COUNT @@` header whose counts include it".to_owned()
        )
    );
}

#[test]
fn refusal_binary_file() {
    let dir = TempDir::new();
    dir.write("a.bin", b"PNG\0\x01\x02");
    dir.write("b.bin", b"PNG\0\x01\x03");
    let error = diff_files(&dir.workspace(), "a.bin", "b.bin", DiffOptions::default()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Binary);
    assert_eq!(
        error.to_string(),
        "refused: `a.bin` is a binary file (a NUL byte at offset 3); only text files get a line diff"
    );
    // Identical binaries are simply identical.
    let same = diff_files(&dir.workspace(), "a.bin", "a.bin", DiffOptions::default()).unwrap();
    assert!(same.is_identical());
}

#[test]
fn refusal_file_too_large() {
    let dir = TempDir::new();
    dir.write("big.log", vec![b'x'; 4 * 1024 * 1024 + 1]);
    dir.write("small.log", "x\n");
    let error = diff_files(
        &dir.workspace(),
        "small.log",
        "big.log",
        DiffOptions::default(),
    )
    .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TooLarge);
    assert_eq!(
        error.to_string(),
        "refused: `big.log` has 4194305 bytes, over the 4 MB limit (4194304 bytes) for one file: diff a smaller piece of it"
    );
}

#[test]
fn refusal_path_outside_the_workspace() {
    let dir = TempDir::new();
    dir.write("inside/a.txt", "a\n");
    let outside = TempDir::new();
    outside.write("secret.txt", "s\n");
    let workspace = Workspace::new(dir.path().join("inside")).unwrap();
    let root = workspace.root().display().to_string();
    let secret = outside.path().join("secret.txt");

    let error = diff_files(&workspace, "a.txt", &secret, DiffOptions::default()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::OutsideWorkspace);
    assert_eq!(
        error.to_string(),
        format!(
            "refused: `{}` is outside the workspace `{root}`: use a path inside it (relative paths start at the workspace root)",
            secret.display()
        )
    );

    let error = diff_files(
        &workspace,
        "a.txt",
        "../inside/../../x",
        DiffOptions::default(),
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "refused: `../inside/../../x` climbs out of the workspace `{root}` with `..`: use a path inside it"
        )
    );

    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(outside.path(), dir.path().join("inside/link")).unwrap();
        let error = diff_files(
            &workspace,
            "a.txt",
            "link/secret.txt",
            DiffOptions::default(),
        )
        .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::OutsideWorkspace);
        assert_eq!(
            error.to_string(),
            format!(
                "refused: `link/secret.txt` leads out of the workspace `{root}` through a symbolic link (to `{}`): use a path inside it",
                secret.display()
            )
        );
        let patch = "--- a/link/secret.txt\n+++ b/link/secret.txt\n@@ -1 +1 @@\n-s\n+t\n";
        let error = apply(&workspace, ".", patch.as_bytes(), Mode::Write).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::OutsideWorkspace);
        assert_eq!(outside.read("secret.txt"), b"s\n");
        // A dangling link out is refused too (writing through it would create its target).
        std::os::unix::fs::symlink(
            outside.path().join("nothing"),
            dir.path().join("inside/dangling"),
        )
        .unwrap();
        let error = workspace.resolve("dangling").unwrap_err();
        assert_eq!(error.kind(), WorkspaceErrorKind::SymlinkOut);
    }
    // Inside paths, `.` and `..` that stay inside are fine.
    assert!(workspace.resolve("./x/../a.txt").is_ok());
    assert!(workspace.resolve(workspace.root().join("a.txt")).is_ok());
}

// ---------------------------------------------------------------------------
// Apply on disk

#[test]
fn dry_run_writes_nothing_and_write_keeps_a_backup() {
    let dir = TempDir::new();
    dir.write("app.py", FILE);
    let new = FILE.replace("s = 0", "s = 10");
    let patch = text_diff(FILE, &new);
    let workspace = dir.workspace();

    let report = apply(&workspace, "app.py", &patch, Mode::DryRun).unwrap();
    assert_eq!(
        report.to_string(),
        "dry run: the patch applies cleanly; nothing was written (to write it, call again with \"dry_run\": false)\n  app.py: 1 hunk, +1 -1 lines\n"
    );
    // The command line's wording names its own flag.
    assert!(format!("{report:#}").starts_with(
        "dry run: the patch applies cleanly; nothing was written (write it with --write)\n"
    ));
    assert_eq!(dir.read("app.py"), FILE.as_bytes());
    assert!(!dir.path().join("app.py.bak").exists());

    let report = apply(&workspace, "app.py", &patch, Mode::Write).unwrap();
    assert_eq!(
        report.to_string(),
        "applied:\n  app.py: 1 hunk, +1 -1 lines; the original is saved as app.py.bak\n"
    );
    assert_eq!(dir.read("app.py"), new.as_bytes());
    assert_eq!(dir.read("app.py.bak"), FILE.as_bytes());
    // No temporary file is left behind.
    let names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

#[test]
fn a_patch_for_several_files_applies_to_all_or_none() {
    let dir = TempDir::new();
    dir.write("one.txt", "1\n2\n3\n");
    dir.write("two.txt", "a\nb\nc\n");
    let good = "--- a/one.txt\n+++ b/one.txt\n@@ -2 +2 @@\n-2\n+two\n";
    let bad = "--- a/two.txt\n+++ b/two.txt\n@@ -2 +2 @@\n-B\n+bee\n";
    let workspace = dir.workspace();
    let error = apply(
        &workspace,
        ".",
        format!("{good}{bad}").as_bytes(),
        Mode::Write,
    )
    .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::RemovedMismatch);
    assert!(error.to_string().contains("hunk 1 of `two.txt`"), "{error}");
    assert_eq!(dir.read("one.txt"), b"1\n2\n3\n");
    assert!(!dir.path().join("one.txt.bak").exists());

    let bad_fixed = bad.replace("-B", "-b");
    let report = apply(
        &workspace,
        ".",
        format!("{good}{bad_fixed}").as_bytes(),
        Mode::Write,
    )
    .unwrap();
    assert_eq!(report.files().len(), 2);
    assert_eq!(dir.read("one.txt"), b"1\ntwo\n3\n");
    assert_eq!(dir.read("two.txt"), b"a\nbee\nc\n");

    // Several files against a single file is a usage error.
    let error = apply(
        &workspace,
        "one.txt",
        format!("{good}{bad}").as_bytes(),
        Mode::DryRun,
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "the patch changes 2 files (one.txt, two.txt), but `file` is `one.txt`, a single file: pass a directory (e.g. \".\") to apply it to all of them"
    );
}

#[test]
fn crlf_and_a_missing_final_newline_are_kept() {
    // The patch came through a channel that turned CRLF into LF and dropped
    // the `\ No newline` marker: the file keeps both.
    let original = "one\r\ntwo\r\nthree";
    let patch = "@@ -2,2 +2,3 @@\n two\n+two and a half\n three\n";
    let applied = apply_to(original.as_bytes(), patch.as_bytes()).unwrap();
    assert_eq!(applied, b"one\r\ntwo\r\ntwo and a half\r\nthree");

    let dir = TempDir::new();
    dir.write("w.txt", original);
    let report = apply(&dir.workspace(), "w.txt", patch.as_bytes(), Mode::Write).unwrap();
    assert_eq!(
        report.to_string(),
        "applied:\n  w.txt: 1 hunk, +1 -0 lines; the original is saved as w.txt.bak\n    note: the patch's line endings differ from the file's; the file's were kept\n"
    );
    assert_eq!(dir.read("w.txt"), b"one\r\ntwo\r\ntwo and a half\r\nthree");

    // With the marker, a patch may add the final newline.
    let diff = text_diff("x\ny", "x\ny\n");
    assert_eq!(
        String::from_utf8_lossy(&diff),
        "--- a\n+++ b\n@@ -1,2 +1,2 @@\n x\n-y\n\\ No newline at end of file\n+y\n"
    );
    assert_eq!(apply_to(b"x\ny", &diff).unwrap(), b"x\ny\n");
}

#[test]
fn overlapping_hunks_are_refused() {
    let patch = "@@ -2,2 +2,2 @@\n-    s = 0\n+    s = 1\n     for x in xs:\n@@ -1,2 +1,2 @@\n def total(xs):\n-    s = 0\n+    s = 2\n";
    let (kind, message) = refusal(FILE, patch);
    assert_eq!(kind, ErrorKind::HunkOrder);
    assert!(message.starts_with("refused: hunk 2 of `the text` (@@ -1,2 +1,2 @@) starts at line 1, before the previous hunk ends (line 3)"), "{message}");
}

// ---------------------------------------------------------------------------
// Caps and the deadline

#[test]
fn output_is_capped_at_a_hunk_boundary() {
    let a: String = (0..4000).map(|i| format!("line {i}\n")).collect();
    let b: String = (0..4000)
        .map(|i| {
            if i % 10 == 0 {
                format!("LINE {i}\n")
            } else {
                format!("line {i}\n")
            }
        })
        .collect();
    let diff = diff_text(&a, &b, DiffOptions::default()).unwrap();
    let text = diff.to_string();
    assert!(text.len() <= 30_000, "{}", text.len());
    assert!(diff.is_truncated());
    let note = text.lines().last().unwrap();
    assert!(
        note.starts_with("note: output cut at 30000 bytes after hunk "),
        "{note}"
    );
    assert!(
        note.ends_with(
            "narrow it: a smaller `context`, one file at a time, or a piece of the file"
        )
    );
    // The hunks shown still apply.
    let partial = apply_to(a.as_bytes(), diff.patch()).unwrap();
    assert!(partial.starts_with(b"LINE 0\n"));
    assert_eq!(diff.stats().n_hunks, 400);
}

#[test]
fn past_the_deadline_the_middle_is_one_block() {
    let a = "keep\nx1\nx2\nx3\nkeep too\n";
    let b = "keep\ny1\nx2\ny3\nkeep too\n";
    let diff = diff_text(a, b, DiffOptions::default().timeout(Duration::ZERO)).unwrap();
    assert!(diff.is_approximate());
    assert_eq!(
        diff.to_string(),
        "warning: the line diff took longer than 0.0 s and was stopped; lines 2-4 of `a` and 2-4 of `b` are shown as one block replacement (diff smaller pieces for a finer answer)
--- a
+++ b
@@ -1,5 +1,5 @@
 keep
-x1
-x2
-x3
+y1
+x2
+y3
 keep too
"
    );
    assert_eq!(apply_to(a.as_bytes(), diff.patch()).unwrap(), b.as_bytes());
}

#[test]
fn context_is_bounded() {
    let error = diff_text("a", "b", DiffOptions::default().context(51)).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::InvalidArgument);
    assert_eq!(
        error.to_string(),
        "`context` must be at most 50 lines (got 51); the default is 3"
    );
}

#[test]
fn identical_inputs_say_so_in_one_line() {
    let diff = diff_text("a\nb\n", "a\nb\n", DiffOptions::default()).unwrap();
    assert_eq!(diff.to_string(), "`a` and `b` are identical (2 lines)\n");
    assert!(diff.patch().is_empty());
}

#[test]
fn non_utf8_files_diff_and_apply_as_bytes() {
    let a = b"caf\xe9\nbar\n";
    let b = b"caf\xe9\nbaz\n";
    let diff = diff_bytes(a, b, ["a", "b"], DiffOptions::default()).unwrap();
    assert_eq!(apply_to(a, diff.patch()).unwrap(), b);
}

// ---------------------------------------------------------------------------
// dirs and json

#[test]
fn dirs_lists_names_with_skips_and_glob() {
    let dir = TempDir::new();
    for side in ["v1", "v2"] {
        dir.write(&format!("{side}/same.rs"), "x");
        dir.write(&format!("{side}/.git/HEAD"), side);
        dir.write(&format!("{side}/node_modules/m.js"), side);
    }
    dir.write("v1/src/changed.rs", "1");
    dir.write("v2/src/changed.rs", "2");
    dir.write("v1/src/gone.go", "g");
    dir.write("v2/src/new/added.rs", "n");
    let workspace = dir.workspace();
    let diff = diff_dirs(&workspace, "v1", "v2", None).unwrap();
    assert_eq!(
        diff.to_string(),
        "changed  src/changed.rs
removed  src/gone.go
added    src/new/added.rs
3 differ (1 added, 1 removed, 1 changed), 1 identical; version control (.git, .hg, .svn, .jj, repositories), node_modules and vendor skipped
"
    );
    let diff = diff_dirs(&workspace, "v1", "v2", Some("src/**/*.rs")).unwrap();
    assert_eq!(
        diff.entries(),
        &[
            ("src/changed.rs".to_owned(), Change::Changed),
            ("src/new/added.rs".to_owned(), Change::Added)
        ]
    );
    let diff = diff_dirs(&workspace, "v1", "v1", Some("*.go")).unwrap();
    assert_eq!(
        diff.to_string(),
        "`v1` and `v1` hold the same files (1 compared, names matching `*.go`; version control (.git, .hg, .svn, .jj, repositories), node_modules and vendor skipped)\n"
    );
}

#[test]
fn dirs_caps_the_list() {
    let dir = TempDir::new();
    fs::create_dir_all(dir.path().join("a")).unwrap();
    for idx in 0..2100 {
        dir.write(&format!("b/f{idx:04}.txt"), "");
    }
    let diff = diff_dirs(&dir.workspace(), "a", "b", None).unwrap();
    let text = diff.to_string();
    assert!(text.len() <= 30_000);
    assert!(text.contains("2100 differ (2100 added, 0 removed, 0 changed), 0 identical"));
    let note = text.lines().last().unwrap();
    assert!(note.starts_with("note: ") && note.ends_with("more not listed; narrow it with `glob` (e.g. \"src/**/*.rs\") or diff a subdirectory"), "{note}");
}

#[test]
fn json_diff_by_path() {
    let dir = TempDir::new();
    dir.write(
        "old.json",
        r#"{"spec": {"replicas": 2, "ports": [80], "a.b": 1}, "gone": true}"#,
    );
    dir.write("new.json", "{\n  \"spec\": {\n    \"a.b\": 1,\n    \"replicas\": 3,\n    \"ports\": [80, 443]\n  },\n  \"added\": null\n}\n");
    let diff = diff_json(&dir.workspace(), "old.json", "new.json").unwrap();
    assert_eq!(
        diff.to_string(),
        // Document order: the old document's keys, then the keys only the new has.
        "~ spec.replicas: 2 → 3
+ spec.ports[1]: 443
- gone: true
+ added: null
4 paths differ (2 added, 1 removed, 1 changed)
"
    );
    dir.write("old.yaml", "spec:\n  replicas: 2\n  image: web:1\n");
    let diff = diff_json(
        &dir.workspace(),
        "old.yaml",
        "spec:\n    image: web:1\n    replicas: 3\n",
    )
    .unwrap();
    assert_eq!(
        diff.to_string(),
        "~ spec.replicas: 2 → 3\n1 path differs (0 added, 0 removed, 1 changed)\n"
    );
    let error = diff_json(&dir.workspace(), "old.yaml", "a: [1\n").unwrap_err();
    assert_eq!(error.kind(), ErrorKind::InvalidYaml);
    let same = diff_json(
        &dir.workspace(),
        r#"{"a":[1,{"b":2}]}"#,
        "{ \"a\" : [ 1 , { \"b\" : 2 } ] }",
    )
    .unwrap();
    assert!(same.is_identical());
    // Numbers are exact decimals: equal when equal as numbers, never rounded.
    let big = diff_json(
        &dir.workspace(),
        r#"{"n": 18446744073709551616, "m": 1.0, "e": 1e400}"#,
        r#"{"n": 18446744073709551617, "m": 1, "e": 10e399}"#,
    )
    .unwrap();
    assert_eq!(
        big.to_string(),
        "~ n: 18446744073709551616 → 18446744073709551617\n1 path differs (0 added, 0 removed, 1 changed)\n"
    );
    // Duplicate keys: the last counts, and the answer says so.
    let dup = diff_json(&dir.workspace(), r#"{"a": 1, "a": 2}"#, r#"{"a": 2}"#).unwrap();
    assert!(dup.is_identical(), "{dup}");
    assert!(
        dup.to_string()
            .contains("note: `a`: the key `a` appears more than once"),
        "{dup}"
    );
    // Several YAML documents, as `@json` reads them.
    let docs = diff_json(&dir.workspace(), "a: 1\n---\nb: 2\n", "a: 1\n---\nb: 3\n").unwrap();
    assert_eq!(docs.changes()[0].path, "[1].b");
    let error = diff_json(&dir.workspace(), r#"{"a":}"#, "{}").unwrap_err();
    assert_eq!(error.kind(), ErrorKind::InvalidJson);
    assert_eq!(
        error.to_string(),
        "refused: `a` (inline) is not valid JSON: line 1 column 6: expected a value (object, \
         array, string, number, true, false or null)\n  {\"a\":}\n       ^\n(check it with `argmend repair`)"
    );
}

// ---------------------------------------------------------------------------
// The envelope

#[test]
fn envelope_calls_and_their_errors() {
    let dir = TempDir::new();
    dir.write("a.txt", "1\n");
    dir.write("b.txt", "2\n");
    let workspace = dir.workspace();
    let answer = diff::call(
        &workspace,
        r#"{"cmd":"files","args":{"a":"a.txt","b":"b.txt","context":0}}"#,
    )
    .unwrap();
    assert!(matches!(answer, Answer::Diff(_)));
    assert_eq!(
        answer.to_string(),
        "--- a.txt\n+++ b.txt\n@@ -1 +1 @@\n-1\n+2\n"
    );

    let patch = answer.to_string();
    let call = serde_json::json!({"cmd": "apply", "args": {"file": "a.txt", "patch": patch, "dry_run": false}});
    let answer = diff::call(&workspace, &call.to_string()).unwrap();
    assert!(answer.to_string().starts_with("applied:\n  a.txt: 1 hunk"));
    assert_eq!(dir.read("a.txt"), b"2\n");

    let error = diff::call(&workspace, r#"{"cmd":"files","args":{"a":"a.txt"}}"#).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::InvalidArgument);
    assert_eq!(
        error.to_string(),
        "`files`: `b` is missing; it takes a, b, context; e.g.\n  {\"cmd\":\"files\",\"args\":{\"a\":\"old.txt\",\"b\":\"new.txt\",\"context\":3}}"
    );
    let error = diff::call(
        &workspace,
        r#"{"cmd":"dirs","args":{"a":"x","b":"y","depth":2}}"#,
    )
    .unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("`dirs`: unknown argument `depth`; it takes a, b, glob")
    );
    let error = diff::call(&workspace, r#"{"cmd":"patch"}"#).unwrap_err();
    assert!(error.to_string().starts_with("unknown verb \"patch\": the verbs are files, text, dirs, apply and json; e.g.\n  {\"cmd\":\"files\""));
    let error = diff::call(&workspace, "not json").unwrap_err();
    assert!(!error.is_refusal());
}

// ---------------------------------------------------------------------------
// The CLI

fn cli(dir: &TempDir, args: &[&str]) -> (i32, String) {
    let output = Command::new(BIN)
        .args(args)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "",
        "stderr of {args:?}"
    );
    (
        output.status.code().unwrap(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

#[test]
fn cli_golden() {
    let dir = TempDir::new();
    dir.write("config/old.yaml", "name: web\nreplicas: 2\nimage: web:1\n");
    dir.write("config/new.yaml", "name: web\nreplicas: 3\nimage: web:1\n");
    let diff = "--- config/old.yaml\n+++ config/new.yaml\n@@ -1,3 +1,3 @@\n name: web\n-replicas: 2\n+replicas: 3\n image: web:1\n";
    assert_eq!(
        cli(
            &dir,
            &["diff", "files", "config/old.yaml", "config/new.yaml"]
        ),
        (0, diff.to_owned())
    );
    assert_eq!(
        cli(
            &dir,
            &["diff", "files", "config/old.yaml", "config/old.yaml"]
        ),
        (
            0,
            "`config/old.yaml` and `config/old.yaml` are identical (3 lines)\n".to_owned()
        )
    );
    assert_eq!(
        cli(
            &dir,
            &[
                "diff",
                "text",
                "--a",
                "x\n",
                "--b",
                "-y\n",
                "--context",
                "0"
            ]
        ),
        (0, "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+-y\n".to_owned())
    );
    let envelope = r#"{"cmd":"files","args":{"a":"config/old.yaml","b":"config/new.yaml"}}"#;
    assert_eq!(cli(&dir, &["diff", envelope]), (0, diff.to_owned()));

    // A refused apply: exit 1, the message on stdout, the file untouched.
    dir.write("fix.diff", diff);
    dir.write("config/app.yaml", "name: api\nreplicas: 2\nimage: web:1\n");
    assert_eq!(
        cli(&dir, &["diff", "apply", "config/app.yaml", "--patch", "fix.diff", "--write"]),
        (
            1,
            "refused: hunk 1 of `config/app.yaml` (@@ -1,3 +1,3 @@) does not match at line 1 (a context line)
  the patch expects: \"name: web\"
  the file has:      \"name: api\"
  hint: the hunk's lines occur nowhere in the file: re-read `config/app.yaml` and regenerate the hunk
nothing was written
"
            .to_owned()
        )
    );
    assert_eq!(
        dir.read("config/app.yaml"),
        b"name: api\nreplicas: 2\nimage: web:1\n"
    );
    assert_eq!(
        cli(&dir, &["diff", "apply", "config/old.yaml", "--patch", "fix.diff", "--write"]),
        (0, "applied:\n  config/old.yaml: 1 hunk, +1 -1 lines; the original is saved as config/old.yaml.bak\n".to_owned())
    );
    assert_eq!(dir.read("config/old.yaml"), dir.read("config/new.yaml"));

    // Outside the workspace: exit 1. A missing file or a bad argument: exit 2.
    let (code, out) = cli(
        &dir,
        &[
            "diff",
            "--workspace",
            "config",
            "files",
            "old.yaml",
            "../fix.diff",
        ],
    );
    assert_eq!(code, 1);
    assert!(
        out.starts_with("refused: `../fix.diff` climbs out of the workspace"),
        "{out}"
    );
    let (code, out) = cli(&dir, &["diff", "files", "nope.txt", "config/new.yaml"]);
    assert_eq!(code, 2);
    assert!(out.starts_with("cannot read `nope.txt`: "), "{out}");
    let (code, out) = cli(
        &dir,
        &[
            "diff",
            "files",
            "config/old.yaml",
            "config/new.yaml",
            "--context",
            "99",
        ],
    );
    assert_eq!(
        (code, out.as_str()),
        (
            2,
            "`context` must be at most 50 lines (got 99); the default is 3\n"
        )
    );
    let (code, _) = cli(&dir, &["diff", "json", "fix.diff", "{}"]);
    assert_eq!(code, 1);
    let (code, out) = cli(&dir, &["diff", "json", r#"{"a":1}"#, r#"{"a":2}"#]);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "~ a: 1 → 2\n1 path differs (0 added, 0 removed, 1 changed)\n"
        )
    );
}

// ---------------------------------------------------------------------------
// Fuzz seeds (the `diff_apply` target's check, on stable)

/// The fuzz target's check: the input is `context byte, a, 0xFF, b`.
fn check_diff_apply(data: &[u8]) -> Result<(), String> {
    let Some((&context, rest)) = data.split_first() else {
        return Ok(());
    };
    let (a, b) = match rest.iter().position(|&c| c == 0xFF) {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => rest.split_at(rest.len() / 2),
    };
    let options = DiffOptions::default().context(usize::from(context % 8));
    let diff = match diff_bytes(a, b, ["a", "b"], options) {
        Ok(diff) => diff,
        Err(error) if error.kind() == ErrorKind::Binary => return Ok(()),
        Err(error) => return Err(format!("diff failed: {error}")),
    };
    if diff.is_identical() {
        return if a == b {
            Ok(())
        } else {
            Err("different inputs called identical".to_owned())
        };
    }
    let applied = apply_to(a, diff.patch()).map_err(|e| format!("apply failed: {e}"))?;
    if applied != b {
        return Err(format!(
            "round trip gave {:?}",
            String::from_utf8_lossy(&applied)
        ));
    }
    let _ = apply_to(b, diff.patch());
    let _ = apply_to(a, b);
    Ok(())
}

#[test]
fn diff_apply_seeds_round_trip() {
    let seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/diff_apply");
    let mut n_seeds = 0;
    for entry in fs::read_dir(&seeds).unwrap() {
        let path = entry.unwrap().path();
        let data = fs::read(&path).unwrap();
        if let Err(failure) = check_diff_apply(&data) {
            panic!("{}: {failure}", path.display());
        }
        n_seeds += 1;
    }
    assert!(n_seeds >= 8, "only {n_seeds} seeds in {}", seeds.display());
}

#[test]
fn public_types_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<diff::Diff>();
    check::<diff::Error>();
    check::<diff::ApplyReport>();
    check::<diff::DirDiff>();
    check::<diff::JsonDiff>();
    check::<Workspace>();
}
