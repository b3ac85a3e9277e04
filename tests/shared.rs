//! Other projects' data, which the tests read from `../shared/` beside the
//! checkout and never from the repository (issue 41): the peers' suites,
//! the SDKs' recorded streams, excerpts of real files, and whatever the
//! team adds there later.
//!
//! A test that needs such a folder asks for it with [`dir`], naming what it
//! holds:
//!
//! ```text
//! let Some(suites) = shared::dir("conformance", "jsonrepair's and json_repair's suites") else {
//!     return; // skipped, and said so
//! };
//! ```
//!
//! - The folder is `<crate root>/../shared/<sub>`, or `$ARGMEND_SHARED/<sub>`
//!   when `ARGMEND_SHARED` is set (absolute, or relative to the crate root).
//! - When it is missing, the test returns early and one line goes to the
//!   test binary's stderr, past libtest's capture, so a run always shows
//!   it: `argmend: skipped 1 test: shared data missing: <path> (<what>) [<test>]`.
//!   `scripts/test` adds these lines up at the end of its summary
//!   (`SKIP_PREFIX` is what it looks for).
//! - With `ARGMEND_REQUIRE_SHARED=1` (`.ci/run` sets it) a missing folder
//!   fails the test instead, naming the folder.
//!
//! Beside [`dir`], the one call a test needs: [`root`], the shared folder
//! itself (for a test that writes a snapshot there, or hands the place to
//! a child process), and [`skipped`], for a driver that runs another
//! language's tests and passes their skips on.

use std::io::Write as _;
use std::path::{Component, Path, PathBuf};

/// The start of the line a skipped test writes; `scripts/test` counts it.
const SKIP_PREFIX: &str = "argmend: skipped";

/// What every skip reason starts with, in the Rust, Python and JavaScript
/// tests alike, so the drivers (`tests/python.rs`, `tests/js.rs`) can pass
/// the Python and JavaScript skips on to `scripts/test`.
pub(crate) const MISSING: &str = "shared data missing:";

/// The shared folder: `$ARGMEND_SHARED`, or `../shared` beside the crate root.
pub(crate) fn root() -> PathBuf {
    let crate_root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = match std::env::var_os("ARGMEND_SHARED") {
        Some(dir) if !dir.is_empty() => crate_root.join(dir),
        _ => crate_root.join("..").join("shared"),
    };
    lexical(&path)
}

/// `path` with its `.` and `..` steps taken by name (as Node's
/// `path.resolve` and Python's `os.path.normpath` take them), so the Rust,
/// Python and JavaScript tests name a missing folder alike.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir
                if matches!(out.components().next_back(), Some(Component::Normal(_))) =>
            {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Whether a missing folder fails the test (`ARGMEND_REQUIRE_SHARED=1`).
fn required() -> bool {
    std::env::var("ARGMEND_REQUIRE_SHARED").is_ok_and(|value| value == "1")
}

/// The shared folder `sub` (`"conformance"`, `"model_streams/sdk"`), or
/// `None` after writing the skip line when it is missing; `what` says what
/// the test needs from it, for that line. Panics when it is missing and
/// `ARGMEND_REQUIRE_SHARED=1`.
pub(crate) fn dir(sub: &str, what: &str) -> Option<PathBuf> {
    let path = root().join(sub);
    if path.is_dir() {
        return Some(path);
    }
    let reason = format!("{MISSING} {} ({what})", path.display());
    assert!(
        !required(),
        "{reason}: ARGMEND_REQUIRE_SHARED=1 makes it a failure; \
         put the team's shared folder beside the checkout or point ARGMEND_SHARED at it"
    );
    skipped(1, &reason);
    None
}

/// Writes the skip line for `count` tests that did not run for `reason`
/// (which starts with [`MISSING`]), straight to the stderr handle: libtest
/// captures `eprintln!` of a passing test, and this line must be seen.
pub(crate) fn skipped(count: usize, reason: &str) {
    let test = std::thread::current()
        .name()
        .map(str::to_owned)
        .unwrap_or_default();
    let tests = if count == 1 { "test" } else { "tests" };
    let line = format!("{SKIP_PREFIX} {count} {tests}: {reason} [{test}]\n");
    // One write of the whole line, so tests running beside it cannot split it.
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}
