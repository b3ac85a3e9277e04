//! Issue 26: the workspace boundary held by the kernel. One test per hole
//! the adversarial review found in `@json`, `@diff` and their writes; each
//! failed on the main of that day.

#![cfg(unix)]

use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use argmend::Dispatcher;
use argmend::tools::diff::{self, Mode};
use argmend::tools::json::{self, Source};
use argmend::tools::{Workspace, WorkspaceErrorKind};

use crate::support::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_argmend");

/// A workspace `ws` and a sibling `outside` holding `secret.json`.
fn outer() -> (TempDir, std::path::PathBuf, Workspace) {
    let outer = TempDir::new();
    outer.write("outside/secret.json", r#"{"token": "s3cret"}"#);
    outer.write("ws/readme.txt", "hello\n");
    let ws = outer.path().join("ws");
    let workspace = Workspace::new(&ws).unwrap();
    (outer, ws, workspace)
}

/// Run `script` with `sh` in `dir` (a shell's relative `cd` builds trees
/// deeper than PATH_MAX, which no absolute path can name).
fn sh(dir: &Path, script: &str) {
    let status = Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(status.success(), "{script}");
}

#[test]
fn a_link_at_the_bottom_of_a_tree_deeper_than_path_max_is_followed_and_refused() {
    let (outer, ws, workspace) = outer();
    let outside = outer.path().join("outside");
    let name = "n".repeat(250);
    // Two chains of 10 directories of 250 bytes, joined by links (a link's
    // target may not pass 4,095 bytes), so the real path runs past 5,000
    // bytes; at the bottom, a link out and a link to the workspace's `.git`.
    let chain = [name.as_str(); 10].join("/");
    sh(
        &ws,
        &format!(
            "mkdir .git && echo '[core]' > .git/config && mkdir -p {chain} b/{chain} && \
             ln -s '{}' b/{chain}/esc && ln -s '{}/.git' b/{chain}/g && \
             mv b/{name} {chain}/{name} && rmdir b",
            outside.display(),
            ws.display()
        ),
    );
    // `p2`, at the bottom of the first chain, leads down the second.
    sh(&ws, &format!("ln -s {chain} {chain}/p2"));
    symlink(format!("{chain}/p2/esc"), ws.join("short")).unwrap();
    symlink(format!("{chain}/p2/g"), ws.join("git")).unwrap();

    let error = workspace.resolve("short/secret.json").unwrap_err();
    assert_eq!(error.kind(), WorkspaceErrorKind::SymlinkOut, "{error}");
    let error = json::get(
        &workspace,
        Source::File(Path::new("short/secret.json")),
        "token",
    )
    .unwrap_err();
    assert!(error.is_refusal(), "{error}");
    let patch = "--- a/short/secret.json\n+++ b/short/secret.json\n@@ -1 +1 @@\n-{\"token\": \"s3cret\"}\n+{}\n";
    let error = diff::apply(&workspace, ".", patch.as_bytes(), Mode::Write).unwrap_err();
    assert_eq!(error.kind(), diff::ErrorKind::OutsideWorkspace, "{error}");
    assert_eq!(
        std::fs::read_to_string(outside.join("secret.json")).unwrap(),
        r#"{"token": "s3cret"}"#
    );
    assert!(!outside.join("secret.json.bak").exists());
    // The `.git` guard looks where the path leads, not at its spelling.
    let error = workspace.resolve_for_write("git/config").unwrap_err();
    assert_eq!(error.kind(), WorkspaceErrorKind::Protected, "{error}");
    let patch =
        "--- a/git/config\n+++ b/git/config\n@@ -1 +1,2 @@\n [core]\n+\tfsmonitor = touch pwned\n";
    assert!(diff::apply(&workspace, ".", patch.as_bytes(), Mode::Write).is_err());
    assert_eq!(
        std::fs::read_to_string(ws.join(".git/config")).unwrap(),
        "[core]\n"
    );
    // The command line refuses it too.
    let output = Command::new(BIN)
        .args([
            "json",
            "get",
            "--file",
            "short/secret.json",
            "--path",
            "token",
        ])
        .current_dir(&ws)
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(!String::from_utf8_lossy(&output.stdout).contains("s3cret"));
}

#[test]
fn diff_dirs_never_opens_a_fifo_or_a_device() {
    let dir = TempDir::new();
    dir.write("old/same.txt", "x");
    dir.write("new/same.txt", "x");
    for side in ["old", "new"] {
        let fifo = dir.path().join(side).join("pipe");
        assert!(
            Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .is_ok_and(|s| s.success()),
            "mkfifo failed, and this test needs a FIFO: install coreutils"
        );
        // A device node needs root; where one cannot be made, the FIFO and the
        // link to `/dev/zero` still stand for it.
        let _ = Command::new("mknod")
            .arg(dir.path().join(side).join("zero"))
            .args(["c", "1", "5"])
            .status();
        symlink("/dev/zero", dir.path().join(side).join("zero-link")).unwrap();
    }
    let workspace = dir.workspace();
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(diff::diff_dirs(&workspace, "old", "new", None).map(|d| d.to_string()));
    });
    let answer = receive
        .recv_timeout(Duration::from_secs(20))
        .expect("diff dirs hung on a FIFO or a device");
    let answer = answer.unwrap();
    assert!(
        answer.contains("hold the same files (4 compared"),
        "{answer}"
    );
    // A file read is refused for a FIFO, without blocking in open().
    let workspace = dir.workspace();
    let error = json::get(&workspace, Source::File(Path::new("old/pipe")), "a").unwrap_err();
    assert!(
        error.is_refusal() || error.kind() == json::ErrorKind::InvalidArgument,
        "{error}"
    );
}

#[test]
fn two_applies_of_one_file_under_two_names_never_lose_a_change() {
    let dir = TempDir::new();
    let lines: String = (1..=9).map(|n| format!("line {n}\n")).collect();
    let dispatcher = Arc::new(Dispatcher::new(dir.workspace()));
    for trial in 0..20 {
        dir.write("a.txt", &lines);
        dir.write("b.txt", "b\n");
        for backup in ["a.txt.bak", "a.txt.bak.1", "b.txt.bak"] {
            let _ = std::fs::remove_file(dir.path().join(backup));
        }
        // Through `.`, a two-file patch; through `a.txt`, another line of it.
        let wide = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-line 1\n+LINE 1\n line 2\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-b\n+B\n";
        let narrow = "--- a/a.txt\n+++ b/a.txt\n@@ -8,2 +8,2 @@\n line 8\n-line 9\n+LINE 9\n";
        let call = |file: &str, patch: &str| {
            serde_json::json!({"cmd": "apply", "args": {"file": file, "patch": patch, "dry_run": false}})
                .to_string()
        };
        let (one, two) = (call(".", wide), call("a.txt", narrow));
        let first = {
            let dispatcher = Arc::clone(&dispatcher);
            std::thread::spawn(move || dispatcher.run("@diff", &one))
        };
        let second = dispatcher.run("@diff", &two);
        let first = first.join().unwrap();
        assert!(
            first.ok && second.ok,
            "{} / {}",
            first.output,
            second.output
        );
        let text = String::from_utf8(dir.read("a.txt")).unwrap();
        assert!(
            text.starts_with("LINE 1\n") && text.ends_with("LINE 9\n"),
            "trial {trial}: a change was lost:\n{text}"
        );
        // Each write kept its own backup: the second never replaced the first.
        assert!(dir.path().join("a.txt.bak").exists() && dir.path().join("a.txt.bak.1").exists());
    }
}

#[test]
fn a_directory_swapped_for_a_link_during_applies_never_sends_a_write_outside() {
    let (outer, ws, workspace) = outer();
    let outside = outer.path().join("outside");
    let file = "value = 1\n";
    std::fs::create_dir_all(ws.join("d")).unwrap();
    std::fs::write(ws.join("d/f.txt"), file).unwrap();
    std::fs::write(outside.join("f.txt"), file).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (stop, ws, outside) = (Arc::clone(&stop), ws.clone(), outside.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let _ = std::fs::rename(ws.join("d"), ws.join("d.real"));
                let _ = symlink(&outside, ws.join("d"));
                std::thread::yield_now();
                let _ = std::fs::remove_file(ws.join("d"));
                let _ = std::fs::rename(ws.join("d.real"), ws.join("d"));
            }
        })
    };
    let patch = "--- a/d/f.txt\n+++ b/d/f.txt\n@@ -1 +1 @@\n-value = 1\n+value = 2\n";
    let reverse = "--- a/d/f.txt\n+++ b/d/f.txt\n@@ -1 +1 @@\n-value = 2\n+value = 1\n";
    let start = Instant::now();
    let mut n_applied = 0;
    while start.elapsed() < Duration::from_millis(1500) {
        for patch in [patch, reverse] {
            if diff::apply(&workspace, "d/f.txt", patch.as_bytes(), Mode::Write).is_ok() {
                n_applied += 1;
            }
        }
        for entry in std::fs::read_dir(ws.join("d.real"))
            .into_iter()
            .flatten()
            .flatten()
        {
            if entry.file_name().to_string_lossy().contains(".bak") {
                let _ = std::fs::remove_file(entry.path());
            }
        }
        for entry in std::fs::read_dir(ws.join("d"))
            .into_iter()
            .flatten()
            .flatten()
        {
            if entry.file_name().to_string_lossy().contains(".bak") {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    let names: Vec<String> = std::fs::read_dir(&outside)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        std::fs::read_to_string(outside.join("f.txt")).unwrap(),
        file
    );
    let mut names = names;
    names.sort();
    assert_eq!(
        names,
        ["f.txt", "secret.json"],
        "something was written outside"
    );
    eprintln!("{n_applied} applies went through during the swaps");
}

#[test]
fn deleting_a_link_removes_the_link_not_its_target() {
    let dir = TempDir::new();
    dir.write("target.txt", "x\n");
    symlink("target.txt", dir.path().join("link.txt")).unwrap();
    let patch = "--- a/link.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n";
    let report = diff::apply(&dir.workspace(), "link.txt", patch.as_bytes(), Mode::Write).unwrap();
    assert!(
        report.to_string().contains("saved as link.txt.bak"),
        "{report}"
    );
    assert!(dir.path().join("link.txt").symlink_metadata().is_err());
    assert_eq!(dir.read("target.txt"), b"x\n");
    let backup = dir.path().join("link.txt.bak");
    assert!(backup.symlink_metadata().unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read_link(backup).unwrap(), Path::new("target.txt"));
}

#[test]
fn a_patch_may_not_plant_a_bare_repository() {
    let dir = TempDir::new();
    let patch = "--- /dev/null\n+++ b/docs/HEAD\n@@ -0,0 +1 @@\n+ref: refs/heads/main\n\
                 --- /dev/null\n+++ b/docs/config\n@@ -0,0 +1,2 @@\n+[core]\n+\tpager = touch pwned\n\
                 --- /dev/null\n+++ b/docs/objects/info/packs\n@@ -0,0 +1 @@\n+\n\
                 --- /dev/null\n+++ b/docs/refs/heads/main\n@@ -0,0 +1 @@\n+0000000000000000000000000000000000000000\n";
    for mode in [Mode::DryRun, Mode::Write] {
        let error = diff::apply(&dir.workspace(), ".", patch.as_bytes(), mode).unwrap_err();
        assert!(
            error.to_string().contains("laid out as a git repository"),
            "{error}"
        );
    }
    assert!(!dir.path().join("docs").exists());
    // A directory that already is one takes no write either.
    dir.write("fixture.git/HEAD", "ref: refs/heads/main\n");
    dir.write("fixture.git/objects/.keep", "");
    dir.write("fixture.git/refs/.keep", "");
    dir.write("fixture.git/config", "[core]\n");
    let patch = "--- a/fixture.git/config\n+++ b/fixture.git/config\n@@ -1 +1,2 @@\n [core]\n+\tpager = touch pwned\n";
    assert!(diff::apply(&dir.workspace(), ".", patch.as_bytes(), Mode::Write).is_err());
    assert_eq!(dir.read("fixture.git/config"), b"[core]\n");
    // Two of the three are not a repository.
    let patch = "--- /dev/null\n+++ b/site/HEAD\n@@ -0,0 +1 @@\n+x\n--- /dev/null\n+++ b/site/refs/a\n@@ -0,0 +1 @@\n+y\n";
    diff::apply(&dir.workspace(), ".", patch.as_bytes(), Mode::Write).unwrap();
}

#[test]
fn the_dry_run_refuses_a_file_whose_backup_name_would_be_too_long() {
    let dir = TempDir::new();
    let name = format!("{}.txt", "a".repeat(248)); // 252 bytes: `.bak` makes 256
    dir.write(&name, "old\n");
    let patch = format!("--- a/{name}\n+++ b/{name}\n@@ -1 +1 @@\n-old\n+new\n");
    let error = diff::apply(&dir.workspace(), &name, patch.as_bytes(), Mode::DryRun).unwrap_err();
    assert!(error.to_string().contains("more than the 255"), "{error}");
    assert_eq!(dir.read(&name), b"old\n");
}

#[test]
fn git_spellings_a_file_system_folds_are_protected() {
    let dir = TempDir::new();
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    for name in [
        ".g\u{200c}it/config",
        ".GIT/config",
        ".git./config",
        "x/\u{feff}.git/hooks/pre-commit",
    ] {
        let patch = format!("--- /dev/null\n+++ b/{name}\n@@ -0,0 +1 @@\n+x\n");
        let error = diff::apply(&dir.workspace(), ".", patch.as_bytes(), Mode::Write).unwrap_err();
        assert_eq!(
            error.kind(),
            diff::ErrorKind::OutsideWorkspace,
            "{name:?}: {error}"
        );
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}
