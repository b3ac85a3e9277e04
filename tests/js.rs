//! The JavaScript package (issue 29): `npm test` and the browser test in
//! `js/`, on the WebAssembly build of this checkout.
//!
//! `js_package_tests_pass` builds the module (`node scripts/build.mjs`: the
//! wasm target, the pinned wasm-bindgen-cli, cargo and wasm-bindgen, each
//! only when missing or changed), then runs `npm test` (node --test over
//! js/test) and `npm run test:browser` (the playground in Debian's chromium).
//! Ignored by plain `cargo test` because it needs `js/node_modules` and
//! chromium, which `scripts/test` installs; run without them, it fails and
//! says what to install.
//!
//! The JavaScript drop-in is held to the Rust engine's answer on every
//! input of jsonrepair's suite, so the two faces of the engine give the same
//! answer on every case. The suite is other projects' data, kept in
//! `../shared/conformance/` (`tests/shared.rs`), so the answers are not
//! committed: `engine_answers_are_written_for_the_js_tests`, an ordinary
//! test, writes them to `target/js-engine-answers.jsonl`, where
//! `js/test/conformance.test.js` reads them (`ARGMEND_ENGINE_ANSWERS` names
//! another file); `js_package_tests_pass` writes them too before `npm test`.
//! Without the shared folder both skip that part and say so.
//!
//! The skips of the JavaScript tests (node's TAP lines `# SKIP shared data
//! missing: …`) are passed on as this crate's skip lines, so `scripts/test`
//! counts them with the Rust ones.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use argmend::Verdict;
use serde_json::{Value, json};

const MAKE_NODE_MODULES: &str = "run scripts/test, which installs them; by hand: \
    (cd js && npm ci) and apt-get install chromium";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Where the engine's answers go for the JavaScript tests.
fn answers_path() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"));
    root().join(target).join("js-engine-answers.jsonl")
}

/// The engine's answer on every case's input of jsonrepair's suite in
/// `dir`, one line each, and how many cases there are.
fn answers(dir: &Path) -> (String, usize) {
    let path = dir.join("jsonrepair.jsonl");
    let suite = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let mut cases = 0;
    let mut out = String::new();
    for line in suite.lines().filter(|line| !line.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).expect("a JSON line");
        let input = case["input"].as_str().expect("an input");
        let outcome = argmend::repair(input.as_bytes());
        let answer = match outcome.verdict() {
            Verdict::NotJson => json!({"id": case["id"], "input": input, "error": true}),
            verdict => json!({
                "id": case["id"],
                "input": input,
                "text": outcome.text(),
                "verdict": verdict.name(),
            }),
        };
        out.push_str(&answer.to_string());
        out.push('\n');
        cases += 1;
    }
    (out, cases)
}

/// Writes the answers on the suite in `dir` where the JavaScript tests read
/// them (unless the file already holds them: tests running side by side may
/// both write), and returns the path.
fn write_answers(dir: &Path) -> PathBuf {
    let (now, cases) = answers(dir);
    // The suite has cases; every one has its answer, a line of JSON.
    assert!(cases > 400, "{cases} cases in jsonrepair's suite");
    assert_eq!(now.lines().count(), cases);
    let path = answers_path();
    if std::fs::read_to_string(&path).ok().as_deref() != Some(now.as_str()) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        // Written beside and renamed, so a reader never sees half a file;
        // each writer under its own name, as two tests may write at once.
        static WRITES: AtomicUsize = AtomicUsize::new(0);
        let n = WRITES.fetch_add(1, Ordering::Relaxed);
        let partial = path.with_extension(format!("jsonl.{}.{n}", std::process::id()));
        std::fs::write(&partial, &now).unwrap();
        std::fs::rename(&partial, &path).unwrap();
    }
    path
}

#[test]
fn engine_answers_are_written_for_the_js_tests() {
    let Some(dir) = crate::shared::dir(
        "conformance",
        "jsonrepair's suite, for the JavaScript drop-in",
    ) else {
        return;
    };
    let path = write_answers(&dir);
    let written = std::fs::read_to_string(&path).unwrap();
    let refused = written
        .lines()
        .filter(|line| line.contains(r#""error":true"#));
    // The engine finds JSON in nearly every case; jsonrepair's error cases
    // (no value at all) are the rest.
    assert!(refused.count() < 10, "{}", path.display());
}

fn run(command: &mut Command, what: &str) {
    let output = command
        .current_dir(root().join("js"))
        .output()
        .unwrap_or_else(|error| panic!("{what}: cannot run it ({error}): {MAKE_NODE_MODULES}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{what} failed (if a package or chromium is missing: {MAKE_NODE_MODULES}):\n{stdout}\n{stderr}"
    );
    // node --test's summary: "# tests N", "# pass N", "# fail 0", …, for
    // scripts/test's summary.
    for line in stdout.lines().filter(|line| line.starts_with("# ")) {
        crate::support::tell(&format!("{what}: {line}"));
    }
    // A test skipped for want of the shared folder: `ok 3 - name # SKIP
    // shared data missing: …` (TAP, at any depth of subtests).
    let marker = format!("# SKIP {}", crate::shared::MISSING);
    for line in stdout.lines() {
        if let Some(at) = line.find(&marker) {
            let name = line[..at].trim().trim_start_matches("ok ");
            let reason = &line[at + "# SKIP ".len()..];
            crate::shared::skipped(1, &format!("{reason} ({what}: {name})"));
        }
    }
}

#[test]
#[ignore = "needs Node, js/node_modules and chromium: run scripts/test"]
fn js_package_tests_pass() {
    assert!(
        root().join("js/node_modules/.package-lock.json").exists(),
        "the JavaScript tests need js/node_modules, which is missing: {MAKE_NODE_MODULES}"
    );
    run(
        Command::new("node").arg("scripts/build.mjs"),
        "node scripts/build.mjs",
    );
    // The JavaScript tests find the shared folder the way this crate does.
    let shared = crate::shared::root();
    let mut npm_test = Command::new("npm");
    npm_test.arg("test").env("ARGMEND_SHARED", &shared);
    // Without the suite the JavaScript test skips that part itself, and says so.
    let suite = shared.join("conformance");
    if suite.is_dir() {
        npm_test.env("ARGMEND_ENGINE_ANSWERS", write_answers(&suite));
    }
    run(&mut npm_test, "npm test");
    run(
        Command::new("npm")
            .args(["run", "test:browser"])
            .env("ARGMEND_SHARED", &shared),
        "npm run test:browser",
    );
}
