//! The Python package (issue 12): pytest over `python/tests`, in the virtual
//! environment `.ci/run` makes (`target/py-venv`, with the pinned
//! `python/requirements-test.txt`).
//!
//! The extension is rebuilt from this checkout first (`maturin develop`:
//! cargo's incremental build makes that a no-op when nothing changed), so the
//! tests never run a stale build. Without the environment the test says how to
//! make it and passes, unless `ARGMEND_REQUIRE_PYTHON` is set (CI sets it).

use std::path::{Path, PathBuf};
use std::process::Command;

fn venv() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/py-venv");
    root.join("bin/python").exists().then_some(root)
}

#[test]
fn python_package_tests_pass() {
    let Some(venv) = venv() else {
        assert!(
            std::env::var_os("ARGMEND_REQUIRE_PYTHON").is_none(),
            "the Python tests are required but target/py-venv is missing (see .ci/run)"
        );
        eprintln!(
            "skipped: no target/py-venv (python3 -m venv target/py-venv && \
             target/py-venv/bin/pip install -r python/requirements-test.txt ./python)"
        );
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = venv.join("bin/python");
    let build = Command::new(&python)
        .args(["-m", "maturin", "develop", "--release", "--quiet", "-m"])
        .arg(root.join("python/Cargo.toml"))
        .env("VIRTUAL_ENV", &venv)
        .output()
        .expect("run maturin");
    assert!(
        build.status.success(),
        "maturin develop failed:\n{}",
        String::from_utf8_lossy(&build.stderr)
    );
    let tests = Command::new(&python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(root.join("python/tests"))
        .current_dir(root.join("python"))
        .output()
        .expect("run pytest");
    let stdout = String::from_utf8_lossy(&tests.stdout);
    assert!(
        tests.status.success(),
        "pytest failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&tests.stderr)
    );
    eprintln!("{}", stdout.lines().last().unwrap_or_default());
}
