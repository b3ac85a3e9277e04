//! The Python package (issue 12): pytest over `python/tests`, in the virtual
//! environment `scripts/test` makes (`target/py-venv`, with the pinned
//! `python/requirements-test.txt`).
//!
//! The extension is rebuilt from this checkout first (`maturin develop`:
//! cargo's incremental build makes that a no-op when nothing changed), so the
//! tests never run a stale build.
//!
//! Ignored by plain `cargo test`, with the reason in its summary, because it
//! needs that environment; `scripts/test` makes it and runs the test with
//! `--include-ignored`. Run without the environment, the test fails and says
//! how to make it: it never passes without running pytest.
//!
//! pytest runs with `-rs`, so its summary lists each skip with its reason;
//! those for want of the shared folder (`python/tests/shared_data.py`) are
//! passed on as this crate's skip lines (`tests/shared.rs`), so
//! `scripts/test` counts them with the Rust ones.

use std::path::Path;
use std::process::Command;

/// What to do when `target/py-venv` is missing or incomplete.
const MAKE_THE_VENV: &str = "run scripts/test, which makes it; by hand: \
    python3 -m venv target/py-venv && \
    target/py-venv/bin/pip install -r python/requirements-test.txt ./python";

#[test]
#[ignore = "needs target/py-venv with the Python package's test dependencies: run scripts/test"]
fn python_package_tests_pass() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let venv = root.join("target/py-venv");
    let python = venv.join("bin/python");
    assert!(
        python.exists(),
        "the Python tests need {}, which is missing: {MAKE_THE_VENV}",
        python.display()
    );
    let build = Command::new(&python)
        .args(["-m", "maturin", "develop", "--release", "--quiet", "-m"])
        .arg(root.join("python/Cargo.toml"))
        .env("VIRTUAL_ENV", &venv)
        .output()
        .expect("run maturin");
    assert!(
        build.status.success(),
        "maturin develop failed (if maturin is missing from target/py-venv: {MAKE_THE_VENV}):\n{}",
        String::from_utf8_lossy(&build.stderr)
    );
    let tests = Command::new(&python)
        .args(["-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider"])
        .arg(root.join("python/tests"))
        .current_dir(root.join("python"))
        // The Python tests find the shared folder the way this crate does.
        .env("ARGMEND_SHARED", crate::shared::root())
        .output()
        .expect("run pytest");
    let stdout = String::from_utf8_lossy(&tests.stdout);
    assert!(
        tests.status.success(),
        "pytest failed (if a module is missing from target/py-venv: {MAKE_THE_VENV}):\n{stdout}\n{}",
        String::from_utf8_lossy(&tests.stderr)
    );
    // pytest's last line, `N passed, N skipped in Ts`, for scripts/test's summary.
    crate::support::tell(&format!(
        "pytest: {}",
        stdout.lines().last().unwrap_or_default()
    ));
    // `SKIPPED [N] file:line: shared data missing: PATH (WHAT)`: N tests
    // skipped at that place for that reason.
    for line in stdout.lines().filter(|line| line.starts_with("SKIPPED [")) {
        let Some(at) = line.find(crate::shared::MISSING) else {
            continue;
        };
        let count = line["SKIPPED [".len()..]
            .split(']')
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or(1);
        crate::shared::skipped(count, &format!("{} (pytest)", &line[at..]));
    }
}
