//! Issue 43, the files-and-git half: one test per hole the second review
//! found in `@diff` and the workspace (1, 5, 8, 11, 12, 13, and the reads
//! of control files, lookalike names and non-UTF-8 names it also saw). Each
//! failed on the main of that day (2026-12-04, 8813f53).

#![cfg(unix)]

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use argmend::tools::WorkspaceErrorKind;
use argmend::tools::diff::{self, Change, Mode};
use argmend::tools::json::{self, Source};
use serde_json::{Value, json};

use crate::rng::Rng;
use crate::support::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_argmend");

// ---------------------------------------------------------------------------
// Hole 1: the git guard agrees with git.

/// Every directory under `root` (itself included, `.git` directories not
/// entered, links not followed) where `git rev-parse --git-dir` finds a
/// repository, with the answer. Discovery stops at `root`.
fn repositories(root: &Path) -> BTreeMap<PathBuf, String> {
    let mut found = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let output = Command::new("git")
            .args(["rev-parse", "--git-dir"])
            .current_dir(&dir)
            .env("GIT_CEILING_DIRECTORIES", root.parent().unwrap())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env_remove("GIT_DIR")
            .env_remove("GIT_COMMON_DIR")
            .env_remove("GIT_OBJECT_DIRECTORY")
            .output()
            .expect("git is installed (scripts/test installs it)");
        if output.status.success() {
            let answer = String::from_utf8_lossy(&output.stdout).trim().to_owned();
            found.insert(dir.strip_prefix(root).unwrap().to_path_buf(), answer);
        }
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() && entry.file_name() != ".git" {
                stack.push(entry.path());
            }
        }
    }
    found
}

/// Apply `patch` at the root of `dir` and check git's view: a patch that
/// is accepted makes no repository git finds, and one that is refused
/// writes nothing. Returns whether it was accepted.
fn apply_and_ask_git(dir: &TempDir, patch: &str) -> bool {
    let before = repositories(dir.path());
    let listing = listing(dir.path());
    let result = diff::apply(&dir.workspace(), ".", patch.as_bytes(), Mode::Write);
    let after = repositories(dir.path());
    match &result {
        Ok(_) => {
            let made: Vec<_> = after
                .iter()
                .filter(|(dir, answer)| before.get(*dir) != Some(answer))
                .collect();
            assert!(
                made.is_empty(),
                "the patch was accepted and git now finds repositories at {made:?}\n{patch}"
            );
        }
        Err(_) => assert_eq!(listing, self::listing(dir.path()), "refused, yet written"),
    }
    result.is_ok()
}

/// Every path under `root` with its content (files) or target (links).
fn listing(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let meta = path.symlink_metadata().unwrap();
            let content = if meta.is_dir() {
                stack.push(path.clone());
                Vec::new()
            } else if meta.file_type().is_symlink() {
                std::fs::read_link(&path)
                    .unwrap()
                    .into_os_string()
                    .into_vec()
            } else {
                std::fs::read(&path).unwrap()
            };
            out.push((path, content));
        }
    }
    out.sort();
    out
}

/// A patch that creates each `(path, content)`.
fn creating(files: &[(&str, &str)]) -> String {
    let mut patch = String::new();
    for (path, content) in files {
        let lines: Vec<&str> = content.lines().collect();
        patch.push_str(&format!(
            "--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{} @@\n",
            lines.len()
        ));
        for line in lines {
            patch.push_str(&format!("+{line}\n"));
        }
    }
    patch
}

const PAGER: &str = "[core]\n\tpager = touch pwned\n";
const HEAD: &str = "ref: refs/heads/main\n";

/// The review's split: `x/HEAD` and `x/commondir` (`../y`) in one
/// directory, `y/objects/`, `y/refs/` and `y/config` in another. Main took
/// it, and `git branch` in `x` ran `y/config`'s pager.
#[test]
fn a_repository_split_over_two_directories_is_refused() {
    let dir = TempDir::new();
    let patch = creating(&[
        ("x/HEAD", HEAD),
        ("x/commondir", "../y\n"),
        ("y/objects/.keep", "\n"),
        ("y/refs/.keep", "\n"),
        ("y/config", PAGER),
    ]);
    assert!(!apply_and_ask_git(&dir, &patch));
    let error = diff::apply(&dir.workspace(), ".", patch.as_bytes(), Mode::DryRun).unwrap_err();
    assert_eq!(error.kind(), diff::ErrorKind::OutsideWorkspace, "{error}");
    assert!(error.to_string().contains("commondir"), "{error}");
    // Either half alone is refused too: `x` is a repository whose common
    // directory is wherever `commondir` points, and `y` a common directory
    // any `commondir` may name.
    for half in [
        creating(&[("x/HEAD", HEAD), ("x/commondir", "../y\n")]),
        creating(&[
            ("y/objects/.keep", "\n"),
            ("y/refs/.keep", "\n"),
            ("y/config", PAGER),
        ]),
        creating(&[("w/HEAD", HEAD), ("w/gitdir", "/elsewhere/.git\n")]),
    ] {
        assert!(!apply_and_ask_git(&dir, &half), "{half}");
    }
    // A `commondir` already there (not made by a patch) makes the other
    // half a repository's config.
    dir.write("x/HEAD", HEAD);
    dir.write("x/commondir", "../y\n");
    let other_half = creating(&[
        ("y/objects/.keep", "\n"),
        ("y/refs/.keep", "\n"),
        ("y/config", PAGER),
    ]);
    assert!(!apply_and_ask_git(&dir, &other_half));
}

/// `objects` and `refs` as links: git follows them (`access(X_OK)`), the
/// old check counted directories only.
#[test]
fn objects_and_refs_given_as_links_count() {
    let dir = TempDir::new();
    dir.write("store/objects/.keep", "");
    dir.write("store/refs/heads/.keep", "");
    std::fs::create_dir(dir.path().join("z")).unwrap();
    symlink("../store/objects", dir.path().join("z/objects")).unwrap();
    symlink("../store/refs", dir.path().join("z/refs")).unwrap();
    let patch = creating(&[("z/HEAD", HEAD), ("z/config", PAGER)]);
    assert!(!apply_and_ask_git(&dir, &patch));
    // Writing a valid HEAD over an invalid one is refused as well.
    dir.write("v/HEAD", "not a ref\n");
    symlink("../store/objects", dir.path().join("v/objects")).unwrap();
    symlink("../store/refs", dir.path().join("v/refs")).unwrap();
    let patch = "--- a/v/HEAD\n+++ b/v/HEAD\n@@ -1 +1 @@\n-not a ref\n+ref: refs/heads/main\n";
    assert!(!apply_and_ask_git(&dir, patch));
    // An ordinary project beside them still takes patches.
    assert!(apply_and_ask_git(
        &dir,
        &creating(&[("src/HEAD.md", "# x\n")])
    ));
}

/// Trees and patches drawn at random from the pieces of a repository
/// (`HEAD`, `commondir`, `gitdir`, `objects`, `refs`, `config`, links to
/// them, in one directory or split over several): after every patch
/// argmend accepts, `git rev-parse --git-dir` run in every directory of
/// the tree finds no repository it did not find before.
#[test]
fn git_finds_no_repository_any_accepted_patch_made() {
    let dirs = ["a", "b", "a/c", "d"];
    let mut rng = Rng::new(43);
    let (mut n_accepted, mut n_refused) = (0, 0);
    for _ in 0..60 {
        let dir = TempDir::new();
        for _ in 0..rng.below(5) {
            let at = rng.pick(&dirs);
            match rng.below(6) {
                0 => drop(dir.write(&format!("{at}/HEAD"), HEAD)),
                1 => drop(dir.write(&format!("{at}/commondir"), "../b\n")),
                2 => drop(dir.write(&format!("{at}/objects/.keep"), "")),
                3 => drop(dir.write(&format!("{at}/refs/heads/.keep"), "")),
                4 => {
                    let target = dir.path().join(rng.pick(&dirs));
                    std::fs::create_dir_all(&target).unwrap();
                    std::fs::create_dir_all(dir.path().join(at)).unwrap();
                    let name = rng.pick(&["objects", "refs"]);
                    let _ = symlink(&target, dir.path().join(at).join(name));
                }
                _ => drop(dir.write(&format!("{at}/notes.txt"), "x\n")),
            }
        }
        let mut files: Vec<(String, String)> = Vec::new();
        for _ in 0..1 + rng.below(4) {
            let at = rng.pick(&dirs);
            let (name, content) = *rng.pick(&[
                ("HEAD", HEAD),
                ("HEAD", "0123456789012345678901234567890123456789\n"),
                ("commondir", "../b\n"),
                ("commondir", "../a/c\n"),
                ("gitdir", "../b/.git\n"),
                ("objects/info/packs", "\n"),
                (
                    "refs/heads/main",
                    "0123456789012345678901234567890123456789\n",
                ),
                ("config", PAGER),
                ("readme.txt", "hello\n"),
            ]);
            let path = format!("{at}/{name}");
            if !files.iter().any(|(p, _)| *p == path) && !dir.path().join(&path).exists() {
                files.push((path, content.to_owned()));
            }
        }
        let files: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, c)| (p.as_str(), c.as_str()))
            .collect();
        if apply_and_ask_git(&dir, &creating(&files)) {
            n_accepted += 1;
        } else {
            n_refused += 1;
        }
    }
    // Both kinds were drawn.
    assert!(
        n_accepted >= 10 && n_refused >= 10,
        "{n_accepted} accepted, {n_refused} refused"
    );
}

// ---------------------------------------------------------------------------
// Reads of control files, lookalike names.

#[test]
fn a_repositorys_control_files_are_not_read() {
    let dir = TempDir::new();
    let config = "[remote \"origin\"]\n\turl = https://user:s3cret@example.com/r.git\n";
    dir.write(".git/config", config);
    dir.write(".git/HEAD", HEAD);
    dir.write("mirror.git/HEAD", HEAD);
    dir.write("mirror.git/config", config);
    dir.write("mirror.git/objects/.keep", "");
    dir.write("mirror.git/refs/.keep", "");
    dir.write("empty", "");
    let workspace = dir.workspace();
    for path in [
        ".git/config",
        "mirror.git/config",
        ".GIT/config",
        "./x/../.git/config",
    ] {
        let error = diff::diff_files(&workspace, "empty", path, Default::default()).unwrap_err();
        assert!(!error.to_string().contains("s3cret"), "{error}");
        assert_eq!(
            error.kind(),
            diff::ErrorKind::OutsideWorkspace,
            "{path}: {error}"
        );
        let error = json::validate(&workspace, Source::File(Path::new(path))).unwrap_err();
        assert!(!error.to_string().contains("s3cret"), "{error}");
        let error = workspace.resolve_for_read(path).unwrap_err();
        assert_eq!(error.kind(), WorkspaceErrorKind::Protected, "{path}");
    }
    // Through a link too: where it leads is what counts.
    symlink(".git/config", dir.path().join("notes.txt")).unwrap();
    assert!(diff::diff_files(&workspace, "empty", "notes.txt", Default::default()).is_err());
    // The command line says the same as the library.
    let output = Command::new(BIN)
        .args(["diff", "files", "empty", ".git/config"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("never read or write"), "{stdout}");
    assert!(!stdout.contains("s3cret"), "{stdout}");
    // A tree diff skips them: neither `.hg` nor a bare repository is walked.
    for side in ["old", "new"] {
        dir.write(&format!("{side}/.hg/hgrc"), side);
        dir.write(&format!("{side}/bare/HEAD"), side);
        dir.write(&format!("{side}/bare/objects/x"), side);
        dir.write(&format!("{side}/bare/refs/x"), side);
        dir.write(&format!("{side}/bare/config"), side);
        dir.write(&format!("{side}/src.txt"), "x");
    }
    let diff = diff::diff_dirs(&workspace, "old", "new", None).unwrap();
    assert_eq!(diff.entries(), &[], "{diff}");
    assert_eq!(diff.n_identical(), 1);
    assert!(diff::diff_dirs(&workspace, "old/bare", "new/bare", None).is_err());
}

#[test]
fn lookalike_names_are_folded_before_they_are_compared() {
    let dir = TempDir::new();
    for name in [
        ".g\u{131}t",
        ".\u{17f}vn",
        "\u{ff0e}git",
        ".\u{ff27}IT",
        ".gi\u{0074}\u{200b}",
    ] {
        let patch = creating(&[(&format!("{name}/config"), PAGER)]);
        let error = diff::apply(&dir.workspace(), ".", patch.as_bytes(), Mode::Write).unwrap_err();
        assert_eq!(
            error.kind(),
            diff::ErrorKind::OutsideWorkspace,
            "{name:?}: {error}"
        );
        dir.write(&format!("{name}/config"), PAGER);
        let read = dir.workspace().resolve_for_read(format!("{name}/config"));
        assert_eq!(read.unwrap_err().kind(), WorkspaceErrorKind::Protected);
    }
    // Names that only look a little alike are files like any other.
    let patch = creating(&[(".gut/config", "x\n"), (".github/x.yml", "x\n")]);
    diff::apply(&dir.workspace(), ".", patch.as_bytes(), Mode::Write).unwrap();
}

// ---------------------------------------------------------------------------
// Hole 5: the dry run's layout check, linear.

/// A `serve` child, asked one line at a time.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Server {
    /// `serve` in `dir` under `ulimit -n n_files`, with a time limit.
    fn start(dir: &Path, n_files: u32, timeout_ms: u64) -> Server {
        let script = format!("ulimit -n {n_files} && exec {BIN} serve --timeout-ms {timeout_ms}");
        let mut child = Command::new("sh")
            .args(["-c", &script])
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Server {
            child,
            stdin,
            stdout,
        }
    }

    fn send(&mut self, request: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{request}").unwrap();
        stdin.flush().unwrap();
    }

    fn answer(&mut self) -> Value {
        let mut line = String::new();
        assert!(self.stdout.read_line(&mut line).unwrap() > 0, "serve ended");
        serde_json::from_str(&line).unwrap()
    }

    /// A field of `/proc/PID/status`, in kB.
    fn status_kb(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        status
            .lines()
            .find_map(|line| line.strip_prefix(field))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap()
    }

    /// User and system CPU time so far, in clock ticks (`/proc/PID/stat`).
    fn cpu_ticks(&self) -> u64 {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap();
        let after = &stat[stat.rfind(')').unwrap() + 2..];
        let fields: Vec<&str> = after.split(' ').collect();
        // utime and stime are fields 14 and 15; `after` starts at field 3.
        fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn diff_call(id: u64, cmd: &str, args: Value) -> Value {
    json!({"id": id, "tool": "@diff", "args": {"cmd": cmd, "args": args}})
}

/// The review's 800 KB patch: 200 new files, each 2,000 directories deep.
/// Main's dry run kept every ancestor's path twice: 1.67 GB and 28 s.
#[cfg(target_os = "linux")]
#[test]
fn the_dry_run_of_deep_new_files_is_linear() {
    let dir = TempDir::new();
    let mut patch = String::new();
    for file in 0..200 {
        let path = format!("t{file}/{}f.txt", "d/".repeat(1999));
        patch.push_str(&format!("--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+x\n"));
    }
    assert!(patch.len() > 800_000);
    let mut server = Server::start(dir.path(), 1024, 20_000);
    let started = Instant::now();
    server.send(&diff_call(1, "apply", json!({"file": ".", "patch": patch})));
    let answer = server.answer();
    let elapsed = started.elapsed();
    let peak_kb = server.status_kb("VmHWM:");
    println!("dry run of 200 files 2,000 deep: {elapsed:?}, peak {peak_kb} kB");
    assert_eq!(answer["ok"], true, "{answer}");
    assert!(
        answer["output"]
            .as_str()
            .unwrap()
            .starts_with("dry run: the patch applies cleanly")
    );
    assert!(peak_kb < 150_000, "peak {peak_kb} kB");
}

// ---------------------------------------------------------------------------
// Holes 8 and 13, and names that are not UTF-8: `diff dirs`.

/// Two trees holding one 1 TB sparse file each, the same size: comparing
/// them reads zeros at memory speed for minutes. Main compared without
/// looking at the deadline: the call was answered "out of time" and its
/// thread went on reading. Measured as CPU time after the answer.
#[cfg(target_os = "linux")]
#[test]
fn diff_dirs_stops_comparing_contents_at_the_deadline() {
    let dir = TempDir::new();
    for side in ["old", "new"] {
        let file = std::fs::File::create(dir.write(&format!("{side}/big.bin"), "")).unwrap();
        file.set_len(1 << 40).unwrap();
    }
    let mut server = Server::start(dir.path(), 1024, 300);
    server.send(&diff_call(1, "dirs", json!({"a": "old", "b": "new"})));
    let answer = server.answer();
    assert_eq!(answer["ok"], false, "{answer}");
    assert!(
        answer["error"].as_str().unwrap().contains("out of time"),
        "{answer}"
    );
    // The worker may still be between two checks: give it a moment, then
    // measure two seconds. Reading burns a whole core (100 ticks a second;
    // main burnt 29 to 100 a second, as loaded as the machine was).
    std::thread::sleep(Duration::from_millis(200));
    let before = server.cpu_ticks();
    std::thread::sleep(Duration::from_secs(2));
    let burnt = server.cpu_ticks() - before;
    assert!(
        burnt < 15,
        "{burnt} ticks of CPU in the 2 s after the answer"
    );
}

/// A tree `depth` directories deep (names `d`) with `leaf.txt` at the
/// bottom holding `leaf`, built one handle at a time (no path that long
/// could be given to `mkdir`).
fn deep_tree(top: &Path, depth: usize, leaf: &str) {
    use cap_std::ambient_authority;
    use cap_std::fs::Dir;
    std::fs::create_dir_all(top).unwrap();
    let mut dir = Dir::open_ambient_dir(top, ambient_authority()).unwrap();
    for _ in 0..depth {
        dir.create_dir("d").unwrap();
        dir = dir.open_dir("d").unwrap();
    }
    dir.write("leaf.txt", leaf).unwrap();
}

/// Main held one open directory per level: 3,000 levels failed with "Too
/// many open files" at `ulimit -n 1024`.
#[test]
fn diff_dirs_walks_3000_levels_at_ulimit_1024() {
    let dir = TempDir::new();
    deep_tree(&dir.path().join("old"), 3000, "1\n");
    deep_tree(&dir.path().join("new"), 3000, "2\n");
    let output = Command::new("sh")
        .args([
            "-c",
            &format!("ulimit -n 1024 && exec {BIN} diff dirs old new"),
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    let expected = format!("changed  {}leaf.txt\n", "d/".repeat(3000));
    assert!(
        stdout.starts_with(&expected),
        "{}",
        &stdout[..stdout.len().min(300)]
    );
    assert!(stdout.contains("1 differ (0 added, 0 removed, 1 changed), 0 identical"));
}

/// Two walks at once share one process's descriptors: on main, two trees
/// 700 deep under `ulimit -n 1024` made one of them fail. A comb (a side
/// directory at every level) makes the walk come back to directories it
/// let go of, so it reopens them: the way back stays within the bound too
/// (the first version opened it whole, and a 3,000-level comb failed).
#[test]
fn concurrent_walks_do_not_make_each_other_fail() {
    let dir = TempDir::new();
    for side in ["old", "new"] {
        deep_tree(&dir.path().join(side), 700, side);
        // A comb: a side branch at every level, after `d` in name order,
        // keeps every directory waiting with a subdirectory left.
        let mut at =
            cap_std::fs::Dir::open_ambient_dir(dir.path().join(side), cap_std::ambient_authority())
                .unwrap();
        for _ in 0..700 {
            at.create_dir("e").unwrap();
            at.write("e/f.txt", side).unwrap();
            at = at.open_dir("d").unwrap();
        }
    }
    let mut server = Server::start(dir.path(), 1024, 60_000);
    for id in 0..4 {
        server.send(&diff_call(id, "dirs", json!({"a": "old", "b": "new"})));
    }
    for _ in 0..4 {
        let answer = server.answer();
        assert_eq!(answer["ok"], true, "{answer}");
        let output = answer["output"].as_str().unwrap();
        assert!(output.contains("changed"), "{output}");
    }
}

#[test]
fn names_that_are_not_utf8_stay_apart() {
    let dir = TempDir::new();
    for side in ["old", "new"] {
        std::fs::create_dir_all(dir.path().join(side)).unwrap();
    }
    let name = |bytes: &[u8]| OsStr::from_bytes(bytes).to_owned();
    let (x, y) = (name(b"caf\xe9.txt"), name(b"caf\xe8.txt"));
    for side in ["old", "new"] {
        std::fs::write(dir.path().join(side).join(&x), "same").unwrap();
    }
    std::fs::write(dir.path().join("old").join(&y), "one").unwrap();
    std::fs::write(dir.path().join("new").join(&y), "two").unwrap();
    std::fs::write(dir.path().join("new").join(name(b"caf\xe7.txt")), "new").unwrap();
    let diff = diff::diff_dirs(&dir.workspace(), "old", "new", None).unwrap();
    assert_eq!(
        diff.entries(),
        &[
            ("\"caf\\347.txt\"".to_owned(), Change::Added),
            ("\"caf\\350.txt\"".to_owned(), Change::Changed),
        ],
        "{diff}"
    );
    assert_eq!(diff.n_identical(), 1);
}

// ---------------------------------------------------------------------------
// Hole 11: owner kept, setuid dropped.

#[test]
fn a_patched_file_keeps_its_owner_and_loses_setuid() {
    let dir = TempDir::new();
    let path = dir.write("tool.sh", "echo old\n");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o6755)).unwrap();
    // Run as root (CI is), the file belongs to `nobody`; otherwise to us.
    let is_root = std::fs::metadata("/proc/self")
        .map(|meta| meta.uid() == 0)
        .unwrap_or(false);
    let (uid, gid) = if is_root {
        (65534, 65534)
    } else {
        let meta = std::fs::metadata(&path).unwrap();
        (meta.uid(), meta.gid())
    };
    std::os::unix::fs::chown(&path, Some(uid), Some(gid)).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o6755)).unwrap();
    let patch = "--- a/tool.sh\n+++ b/tool.sh\n@@ -1 +1 @@\n-echo old\n+echo new\n";
    diff::apply(&dir.workspace(), "tool.sh", patch.as_bytes(), Mode::Write).unwrap();
    for name in ["tool.sh", "tool.sh.bak"] {
        let meta = std::fs::metadata(dir.path().join(name)).unwrap();
        assert_eq!((meta.uid(), meta.gid()), (uid, gid), "{name}'s owner");
        assert_eq!(meta.mode() & 0o7777, 0o755, "{name}'s mode");
    }
    assert_eq!(dir.read("tool.sh"), b"echo new\n");
    assert_eq!(dir.read("tool.sh.bak"), b"echo old\n");
}

// ---------------------------------------------------------------------------
// Hole 12: names in reports.

/// Git's quoted names decode `\n`: printed raw, the name forged a line of
/// the answer ("nothing was written") while a file was created.
#[test]
fn a_newline_in_a_quoted_name_forges_no_line() {
    let dir = TempDir::new();
    let patch = "--- /dev/null\n+++ \"b/x\\nnothing was written\"\n@@ -0,0 +1 @@\n+x\n";
    let report = diff::apply(&dir.workspace(), ".", patch.as_bytes(), Mode::Write).unwrap();
    let text = report.to_string();
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(
        text.contains("\"x\\nnothing was written\": 1 hunk"),
        "{text}"
    );
    assert_eq!(dir.read("x\nnothing was written"), b"x\n");
    // Refusals name it the same way, on one line.
    let patch = "--- \"a/x\\nnothing was written\"\n+++ \"b/x\\nnothing was written\"\n@@ -1 +1 @@\n-y\n+z\n";
    let error = diff::apply(&dir.workspace(), ".", patch.as_bytes(), Mode::Write).unwrap_err();
    let text = error.to_string();
    assert!(
        text.starts_with("refused: hunk 1 of `\"x\\nnothing was written\"`"),
        "{text}"
    );
    let alone: Vec<usize> = (text.lines().enumerate())
        .filter(|(_, line)| *line == "nothing was written")
        .map(|(idx, _)| idx)
        .collect();
    assert_eq!(alone, [text.lines().count() - 1], "{text}");
    let error = dir.workspace().resolve("../a\nb").unwrap_err().to_string();
    assert!(!error.contains('\n'), "{error}");
}
