//! The golden corpus: `corpus/<family>/<name>.in` beside `<name>.out` (the
//! exact output text) and `<name>.fixes` (one `<offset> <kind>` line per fix,
//! then `verdict: <name>`).
//!
//! Every input is repaired twice, in one shot and fed one byte at a time, and
//! both runs must agree before the result is compared with the expectations.
//! `UPDATE_EXPECT=1 cargo test --test main corpus` (re)writes `.out` and
//! `.fixes` from today's behaviour instead of failing.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use argmend::{Fix, Options, Repairer, Verdict};

/// What one run of the engine produced.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Run {
    text: String,
    verdict: Verdict,
    fixes: Vec<Fix>,
}

impl Run {
    /// The `.fixes` file for this run.
    fn fixes_file(&self) -> String {
        let mut out = String::new();
        for fix in &self.fixes {
            let _ = writeln!(out, "{} {}", fix.offset, fix.kind.name());
        }
        let _ = writeln!(out, "verdict: {}", self.verdict.name());
        out
    }
}

fn corpus_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

/// Every `corpus/<family>/<name>.in`, sorted.
fn corpus_inputs() -> Vec<PathBuf> {
    let root = corpus_root();
    let mut inputs = Vec::new();
    let Ok(families) = fs::read_dir(&root) else {
        return inputs;
    };
    for family in families.flatten() {
        let path = family.path();
        if !path.is_dir() {
            continue;
        }
        let Ok(entries) = fs::read_dir(&path) else {
            continue;
        };
        for entry in entries.flatten() {
            let file = entry.path();
            if file.is_file() && file.extension().is_some_and(|ext| ext == "in") {
                inputs.push(file);
            }
        }
    }
    inputs.sort();
    inputs
}

/// `family/name.in`, for messages.
fn display_name(path: &Path) -> String {
    path.strip_prefix(corpus_root())
        .unwrap_or(path)
        .display()
        .to_string()
}

fn one_shot(input: &[u8]) -> Run {
    let outcome = argmend::repair(input);
    Run {
        text: outcome.text().to_owned(),
        verdict: outcome.verdict(),
        fixes: outcome.fixes().to_vec(),
    }
}

/// Feed `input` one byte at a time; also checks that the committed output is
/// a prefix of the final text.
fn byte_at_a_time(input: &[u8]) -> Result<Run, String> {
    let mut repairer = Repairer::new(Options::default());
    let mut committed = String::new();
    for (at, byte) in input.iter().enumerate() {
        match repairer.feed(std::slice::from_ref(byte)) {
            Ok(out) => committed.push_str(out),
            Err(error) => return Err(format!("feed failed at byte {at}: {error}")),
        }
    }
    let outcome = repairer
        .finish()
        .map_err(|error| format!("finish failed: {error}"))?;
    if !outcome.text().starts_with(&committed) {
        return Err(format!(
            "committed output is not a prefix of the final text\n  committed: {committed:?}\n  final:     {:?}",
            outcome.text()
        ));
    }
    Ok(Run {
        text: outcome.text().to_owned(),
        verdict: outcome.verdict(),
        fixes: outcome.fixes().to_vec(),
    })
}

fn update_mode() -> bool {
    std::env::var_os("UPDATE_EXPECT").is_some_and(|value| value == "1")
}

/// Fail once with every collected failure.
fn report(what: &str, failures: &[String]) {
    if !failures.is_empty() {
        panic!(
            "{} {what} failure(s):\n\n{}",
            failures.len(),
            failures.join("\n\n")
        );
    }
}

#[test]
fn corpus_matches_expectations() {
    let inputs = corpus_inputs();
    assert!(
        !inputs.is_empty(),
        "no corpus inputs under {}",
        corpus_root().display()
    );
    let update = update_mode();
    let mut failures = Vec::new();
    for path in &inputs {
        let name = display_name(path);
        let input = match fs::read(path) {
            Ok(input) => input,
            Err(error) => {
                failures.push(format!("{name}: cannot read: {error}"));
                continue;
            }
        };
        let shot = one_shot(&input);
        match byte_at_a_time(&input) {
            Ok(streamed) if streamed == shot => {}
            Ok(streamed) => failures.push(format!(
                "{name}: one-shot and byte-at-a-time runs differ\n  one-shot:  {:?} {} [{}]\n  streamed:  {:?} {} [{}]",
                shot.text,
                shot.verdict,
                shot.fixes_file().replace('\n', "; "),
                streamed.text,
                streamed.verdict,
                streamed.fixes_file().replace('\n', "; "),
            )),
            Err(error) => failures.push(format!("{name}: byte-at-a-time run: {error}")),
        }

        if shot.verdict != Verdict::NotJson
            && let Err(error) = parses(&shot.text)
        {
            failures.push(format!(
                "{name}: verdict {} but the output does not parse ({error})\n  output: {:?}",
                shot.verdict, shot.text
            ));
        }

        let out_path = path.with_extension("out");
        let fixes_path = path.with_extension("fixes");
        let fixes = shot.fixes_file();
        if update {
            if let Err(error) = fs::write(&out_path, &shot.text) {
                failures.push(format!("{name}: cannot write .out: {error}"));
            }
            if let Err(error) = fs::write(&fixes_path, &fixes) {
                failures.push(format!("{name}: cannot write .fixes: {error}"));
            }
            continue;
        }
        match fs::read(&out_path) {
            Ok(expected) if expected == shot.text.as_bytes() => {}
            Ok(expected) => failures.push(format!(
                "{name}: output differs from {}\n  input:    {:?}\n  expected: {:?}\n  actual:   {:?}",
                display_name(&out_path),
                String::from_utf8_lossy(&input),
                String::from_utf8_lossy(&expected),
                shot.text,
            )),
            Err(error) => failures.push(format!(
                "{name}: cannot read {} ({error}); run with UPDATE_EXPECT=1",
                display_name(&out_path)
            )),
        }
        match fs::read_to_string(&fixes_path) {
            Ok(expected) if expected == fixes => {}
            Ok(expected) => failures.push(format!(
                "{name}: fixes differ from {}\n  input: {:?}\n  expected:\n{}  actual:\n{}",
                display_name(&fixes_path),
                String::from_utf8_lossy(&input),
                indent(&expected),
                indent(&fixes),
            )),
            Err(error) => failures.push(format!(
                "{name}: cannot read {} ({error}); run with UPDATE_EXPECT=1",
                display_name(&fixes_path)
            )),
        }
    }
    report("corpus", &failures);
}

/// Whether `text` is one JSON value, as serde_json reads it, except that a
/// number too large for an `f64` (`1e400`, which is JSON) is accepted.
fn parses(text: &str) -> Result<(), serde_json::Error> {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(_) => Ok(()),
        Err(error) if error.to_string().starts_with("number out of range") => {
            serde_json::from_str::<serde::de::IgnoredAny>(text).map(|_| ())
        }
        Err(error) => Err(error),
    }
}

fn indent(text: &str) -> String {
    text.lines().map(|line| format!("    {line}\n")).collect()
}

#[test]
fn corpus_valid_family_is_untouched() {
    let mut failures = Vec::new();
    let mut seen = 0;
    for path in corpus_inputs() {
        let in_valid = path
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|family| family == "valid");
        if !in_valid {
            continue;
        }
        seen += 1;
        let name = display_name(&path);
        let input = fs::read(&path).unwrap_or_default();
        let outcome = argmend::repair(&input);
        if outcome.verdict() != Verdict::Valid {
            failures.push(format!(
                "{name}: verdict {} (expected valid)",
                outcome.verdict()
            ));
        }
        if !outcome.fixes().is_empty() {
            failures.push(format!(
                "{name}: fixes {:?} (expected none)",
                outcome.fixes()
            ));
        }
        if outcome.text().as_bytes() != input.as_slice() {
            failures.push(format!(
                "{name}: output is not the input\n  input:  {:?}\n  output: {:?}",
                String::from_utf8_lossy(&input),
                outcome.text()
            ));
        }
    }
    assert!(seen > 0, "corpus/valid/ holds no inputs");
    report("corpus/valid", &failures);
}

#[test]
fn corpus_prefix_snapshots_parse() {
    let mut failures = Vec::new();
    for path in corpus_inputs() {
        let name = display_name(&path);
        let input = fs::read(&path).unwrap_or_default();
        let mut repairer = Repairer::new(Options::default());
        let mut committed = String::new();
        for (at, byte) in input.iter().enumerate() {
            match repairer.feed(std::slice::from_ref(byte)) {
                Ok(out) => committed.push_str(out),
                Err(error) => {
                    failures.push(format!("{name}: feed failed at byte {at}: {error}"));
                    break;
                }
            }
            let snapshot = repairer.snapshot().to_string();
            let prefix = String::from_utf8_lossy(&input[..=at]);
            if !snapshot.is_empty()
                && let Err(error) = parses(&snapshot)
            {
                failures.push(format!(
                        "{name}: snapshot after {} byte(s) does not parse ({error})\n  prefix:   {prefix:?}\n  snapshot: {snapshot:?}",
                        at + 1
                    ));
                break;
            }
            if !snapshot.starts_with(&committed) {
                failures.push(format!(
                    "{name}: snapshot after {} byte(s) does not start with the committed output\n  prefix:    {prefix:?}\n  committed: {committed:?}\n  snapshot:  {snapshot:?}",
                    at + 1
                ));
                break;
            }
        }
    }
    report("snapshot", &failures);
}

/// The output positions where a number or a string starts (outside strings).
fn value_starts(text: &str) -> Vec<(usize, u8)> {
    let bytes = text.as_bytes();
    let mut starts = Vec::new();
    let mut in_string = false;
    let mut escaped = false;
    let mut prev = b'[';
    for (at, &b) in bytes.iter().enumerate() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        let after_separator = matches!(prev, b'[' | b'{' | b',' | b':' | b' ' | b'\n' | b'\t');
        if b == b'"' {
            in_string = true;
            starts.push((at, b));
        } else if (b.is_ascii_digit() || b == b'-') && after_separator {
            starts.push((at, b));
        }
        prev = b;
    }
    starts
}

/// The engine's source map: where a value starts in the output, the input
/// has what such a value is written from (a digit, sign or dot for a number;
/// a quote or the first byte of a bare word for a string), and the map says
/// the same whether the input came in one piece or a byte at a time.
#[test]
fn corpus_source_map_points_at_each_value() {
    let options = Options::default().source_map(true);
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in corpus_inputs() {
        let name = display_name(&path);
        let Ok(input) = fs::read(&path) else {
            continue;
        };
        let Ok(shot) = argmend::repair_with(&input, options) else {
            continue;
        };
        if shot.verdict() == Verdict::NotJson {
            continue;
        }
        let mut repairer = Repairer::new(options);
        let streamed = input
            .iter()
            .try_for_each(|b| repairer.feed(std::slice::from_ref(b)).map(drop))
            .and_then(|()| repairer.finish());
        let Ok(streamed) = streamed else {
            continue;
        };
        for (at, first) in value_starts(shot.text()) {
            checked += 1;
            let Some(offset) = shot.input_offset(at) else {
                failures.push(format!("{name}: no offset for output {at}"));
                continue;
            };
            if streamed.input_offset(at) != Some(offset) {
                failures.push(format!(
                    "{name}: output {at} maps to {offset} in one shot, {:?} streamed",
                    streamed.input_offset(at)
                ));
            }
            let Some(&source) = input.get(offset) else {
                failures.push(format!(
                    "{name}: output {at} maps past the input ({offset})"
                ));
                continue;
            };
            let plausible = match first {
                b'"' => {
                    !matches!(source, b',' | b':' | b'[' | b'{' | b']' | b'}')
                        && !source.is_ascii_whitespace()
                }
                _ => source.is_ascii_digit() || matches!(source, b'-' | b'+' | b'.'),
            };
            if !plausible {
                failures.push(format!(
                    "{name}: the {:?} at output {at} maps to {:?} at input {offset}",
                    char::from(first),
                    String::from_utf8_lossy(&input[offset..(offset + 12).min(input.len())])
                ));
            }
        }
    }
    assert!(checked > 300, "only {checked} values checked");
    report("source map", &failures);
}
