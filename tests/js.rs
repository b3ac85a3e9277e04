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
//! `engine_answers_are_the_fixture_the_js_tests_read` is an ordinary test:
//! it holds `js/test/fixtures/engine-answers.jsonl`, the Rust engine's
//! answer on every input of jsonrepair's suite, to the engine's answers now.
//! The JavaScript drop-in is tested against that file, so the two faces of
//! the engine give the same answer on every case. `ARGMEND_JS_ANSWERS=1`
//! rewrites the file.

use std::path::Path;
use std::process::Command;

use argmend::Verdict;
use serde_json::{Value, json};

const MAKE_NODE_MODULES: &str = "run scripts/test, which installs them; by hand: \
    (cd js && npm ci) and apt-get install chromium";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The engine's answer on every jsonrepair case's input, one line each.
fn answers() -> String {
    let suite = std::fs::read_to_string(root().join("corpus/conformance/jsonrepair.jsonl"))
        .expect("corpus/conformance/jsonrepair.jsonl");
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
    }
    out
}

#[test]
fn engine_answers_are_the_fixture_the_js_tests_read() {
    let path = root().join("js/test/fixtures/engine-answers.jsonl");
    let now = answers();
    if std::env::var_os("ARGMEND_JS_ANSWERS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &now).unwrap();
        return;
    }
    let fixture = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        fixture == now,
        "{} is not the engine's answers now: the engine's output changed. \
         Rewrite it with `ARGMEND_JS_ANSWERS=1 cargo test --test main js::` and review the diff",
        path.display()
    );
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
    // node --test's summary: "# tests N", "# pass N", "# fail 0", …
    for line in stdout.lines().filter(|line| line.starts_with("# ")) {
        eprintln!("{what}: {line}");
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
    run(Command::new("npm").args(["test"]), "npm test");
    run(
        Command::new("npm").args(["run", "test:browser"]),
        "npm run test:browser",
    );
}
