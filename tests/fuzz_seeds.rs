//! Replays the fuzz seeds on stable, through the fuzz targets' own checks.
//!
//! Every file in `fuzz/seeds/*/` and every `corpus/**/*.in` goes through the
//! one-shot check (`repair_oneshot`) and the chunked check (`repair_chunked`)
//! with a few deterministic cut patterns: 1-, 2-, 3- and 7-byte chunks, cut
//! lengths derived from the file's own bytes, and the file read as a raw
//! `repair_chunked` fuzz input (header bytes, then JSON). The check functions
//! are the fuzz crate's, `fuzz/src/lib.rs`, included here by path.

use std::fs;
use std::path::{Path, PathBuf};

// Also used by `adversarial.rs` (one copy of the module: clippy::duplicate_mod).
#[path = "../fuzz/src/lib.rs"]
pub(crate) mod checks;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every file under `dir` (recursively) that `keep` accepts, sorted.
fn walk(dir: &Path, keep: &dyn Fn(&Path) -> bool, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, keep, out);
        } else if path.is_file() && keep(&path) {
            out.push(path);
        }
    }
}

/// The seed files of one fuzz target.
fn seeds(target: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    walk(
        &root().join("fuzz/seeds").join(target),
        &|_| true,
        &mut files,
    );
    files.sort();
    files
}

/// Every `corpus/**/*.in` (none if there is no corpus directory).
fn corpus_inputs() -> Vec<PathBuf> {
    let mut files = Vec::new();
    walk(
        &root().join("corpus"),
        &|p| p.extension().is_some_and(|e| e == "in"),
        &mut files,
    );
    files.sort();
    files
}

/// Every file the replay covers: all of `fuzz/seeds/*/` (other targets'
/// seeds are inputs too) and the corpus.
fn all_inputs() -> Vec<PathBuf> {
    let mut files = Vec::new();
    walk(&root().join("fuzz/seeds"), &|_| true, &mut files);
    files.sort();
    files.extend(corpus_inputs());
    files
}

fn name(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Chunk lengths derived from the input's bytes: up to 8 lengths of 1–13,
/// so every file is cut at its own, irregular points.
fn derived_lengths(input: &[u8]) -> Vec<usize> {
    let mut lengths: Vec<usize> = input
        .iter()
        .rev()
        .step_by(3)
        .take(8)
        .map(|&b| usize::from(b % 13) + 1)
        .collect();
    if lengths.is_empty() {
        lengths.push(1);
    }
    lengths
}

/// Panics listing every failure, if there were any.
fn report(what: &str, failures: Vec<String>) {
    assert!(
        failures.is_empty(),
        "{} {what} failure(s):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn seed_directories_are_populated() {
    for target in ["repair_oneshot", "repair_chunked"] {
        let n = seeds(target).len();
        assert!(n >= 20, "fuzz/seeds/{target} holds only {n} files");
    }
}

#[test]
fn oneshot_check_holds_on_every_seed() {
    let mut failures = Vec::new();
    for path in all_inputs() {
        let input = fs::read(&path).unwrap();
        if let Err(failure) = checks::check_oneshot(&input) {
            failures.push(format!("{}: {failure}", name(&path)));
        }
    }
    report("one-shot", failures);
}

#[test]
fn chunked_check_holds_on_every_seed() {
    let mut failures = Vec::new();
    for path in all_inputs() {
        let input = fs::read(&path).unwrap();
        let mut patterns = vec![vec![1], vec![2], vec![3], vec![7], derived_lengths(&input)];
        patterns.dedup();
        for lengths in &patterns {
            let pieces = checks::chunks(&input, lengths);
            if let Err(failure) = checks::check_chunked(&input, &pieces) {
                failures.push(format!(
                    "{} (chunk lengths {lengths:?}): {failure}",
                    name(&path)
                ));
            }
        }
        // With the engine told which keys the objects may have (issue 11).
        let hints = argmend::Hints::from_fields(checks::HINTED_KEYS);
        let pieces = checks::chunks(&input, &[1]);
        if let Err(failure) = checks::check_chunked_with(&input, &pieces, Some(&hints)) {
            failures.push(format!(
                "{} (hinted, 1-byte chunks): {failure}",
                name(&path)
            ));
        }
        // With the output forgotten once returned (the JavaScript
        // `Repairer`, the CLI's streams).
        let pieces = checks::chunks(&input, &[3]);
        if let Err(failure) =
            checks::check_chunked_retaining(&input, &pieces, None, argmend::Retain::Unreturned)
        {
            failures.push(format!(
                "{} (unreturned, 3-byte chunks): {failure}",
                name(&path)
            ));
        }
        // The file read as the chunked fuzz target reads its input.
        if let Err(failure) = checks::check_chunked_fuzz(&input) {
            let (lengths, _) = checks::split_fuzz_input(&input);
            failures.push(format!(
                "{} (as a repair_chunked fuzz input, chunk lengths {lengths:?}): {failure}",
                name(&path)
            ));
        }
    }
    report("chunked", failures);
}

#[test]
fn strict_validator_agrees_with_serde_json() {
    // The fallback validator used past serde_json's depth limit.
    let cases: &[&str] = &[
        "1",
        " [1, 2.5e-3, -0] ",
        r#"{"a": {"b": []}, "c": "\ud83d\ude00"}"#,
        "[]",
        "{}",
        "[1,]",
        "{\"a\" 1}",
        "01",
        "1.",
        "\"\\ud800\"",
        "\"\\udc00\"",
        "[\"\\x\"]",
        "\"a\nb\"",
        "[1] 2",
        "",
        "tru",
        "-",
        "1e",
        "{\"a\":1,}",
    ];
    for case in cases {
        let serde = serde_json::from_str::<serde_json::Value>(case).is_ok();
        let strict = checks::strict_json(case).is_ok();
        assert_eq!(
            strict, serde,
            "strict_json and serde_json disagree on {case:?}"
        );
    }
    let deep = format!("{}1{}", "[".repeat(400), "]".repeat(400));
    assert!(checks::parses(&deep).is_ok());
    let unbalanced = format!("{}1{}", "[".repeat(400), "]".repeat(399));
    assert!(checks::parses(&unbalanced).is_err());
}

/// Replays `fuzz/seeds/<target>/` through one of the tool targets' checks.
fn replay_tool_target(target: &str, check: fn(&[u8]) -> Result<(), String>) {
    let files = seeds(target);
    assert!(
        files.len() >= 5,
        "fuzz/seeds/{target} holds only {} files",
        files.len()
    );
    let mut failures = Vec::new();
    for path in files {
        let input = fs::read(&path).unwrap();
        if let Err(failure) = check(&input) {
            failures.push(format!("{}: {failure}", name(&path)));
        }
    }
    report(target, failures);
}

#[test]
fn normalize_check_holds_on_its_seeds() {
    replay_tool_target("normalize", checks::check_normalize_fuzz);
    // Every repair seed and corpus input as raw arguments, for every tool of
    // the target's list, fed whole and in 3-byte chunks, through
    // `normalize_tool_args`, `ToolRepairer` and `ToolCallStream`.
    let mut failures = Vec::new();
    for path in all_inputs() {
        let raw = String::from_utf8_lossy(&fs::read(&path).unwrap()).into_owned();
        for tool in checks::NORMALIZE_TOOLS {
            for chunk in [3, usize::MAX] {
                if let Err(failure) = checks::check_normalize(tool, &raw, chunk) {
                    failures.push(format!("{} (tool {tool:?}): {failure}", name(&path)));
                }
                if let Err(failure) = checks::check_tool_stream(tool, &raw, chunk) {
                    failures.push(format!(
                        "{} (tool {tool:?}, ToolCallStream): {failure}",
                        name(&path)
                    ));
                }
            }
        }
    }
    report("normalize", failures);
}

#[test]
fn json_path_check_holds_on_its_seeds() {
    replay_tool_target("json_path", checks::check_json_path_fuzz);
}

#[test]
fn json_query_check_holds_on_its_seeds() {
    replay_tool_target("json_query", checks::check_json_query_fuzz);
}

#[test]
fn json_yaml_check_holds_on_its_seeds() {
    replay_tool_target("json_yaml", checks::check_json_yaml_fuzz);
}

/// Issue 26: each seed builds a tree (links out, links in, a chain deeper
/// than PATH_MAX, links to `.git`, loops) and resolves paths in it against
/// the check's model.
#[test]
fn workspace_paths_check_holds_on_its_seeds() {
    replay_tool_target("workspace_paths", checks::check_workspace_paths);
}
