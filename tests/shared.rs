//! Third-party data the tests read from the team's shared folder, beside
//! the checkout (`<crate root>/../shared`, or `ARGMEND_SHARED`).
//!
//! Interim: the `shared-data` branch (issue 41) brings the full helper;
//! this is the same behaviour for the tests that need it first.

use std::io::Write as _;
use std::path::PathBuf;

/// `<shared>/<name>` when it exists. When it does not, a line naming the
/// folder and what it holds goes to stderr (past libtest's capture) and the
/// caller skips; with `ARGMEND_REQUIRE_SHARED=1` it is a failure instead.
pub(crate) fn dir(name: &str, holds: &str) -> Option<PathBuf> {
    let root = std::env::var_os("ARGMEND_SHARED").map_or_else(
        || {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .parent()
                .map(|p| p.join("shared"))
                .unwrap_or_default()
        },
        PathBuf::from,
    );
    let path = root.join(name);
    if path.is_dir() {
        return Some(path);
    }
    assert!(
        std::env::var_os("ARGMEND_REQUIRE_SHARED").is_none_or(|v| v != "1"),
        "{} is missing: it holds {holds} (ARGMEND_REQUIRE_SHARED=1)",
        path.display()
    );
    let _ = writeln!(
        std::io::stderr().lock(),
        "argmend-skip: {} is absent: it holds {holds}",
        path.display()
    );
    None
}
