//! Issue 31: `argmend repair --batch --jobs N` on a dataset of tool calls.
//!
//! The dataset is generated (a seeded PRNG, so every run reads the same
//! bytes): 100,000 lines of every shape `--batch` reads (a raw string,
//! `{"input"}`, `{"chunks"}`, with `"tool"` or `"schema"`, and bad lines),
//! whose texts are broken tool calls of mixed faults: half from
//! `beside_strings`' generator (faults beside strings), half written here
//! (single quotes, bare keys, Python literals, trailing and missing commas,
//! comments, fences and prose, cut-off calls, some valid calls, and a few
//! replies with no call at all).
//!
//! The tests: every `--jobs` writes what `--jobs 1` writes, byte for byte;
//! `--summary` counts what the output lines carry; the peak memory of a
//! run stays flat when the input grows tenfold. The 100k file is also
//! written to `target/batch-jobs-100k.jsonl` (under `CARGO_TARGET_DIR` when
//! it is set), which `benches/batch_jobs.sh` times.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Output, Stdio};
use std::thread;

use serde_json::{Value, json};

use crate::beside_strings::{broken_texts, target_dir};
use crate::rng::Rng;
use crate::support::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_argmend");

/// The seed of the dataset; a constant, so every run reads the same lines.
const SEED: u64 = 0x0031_0B5E_7C00_0001;

/// The lines of the dataset of the issue.
const LINES: usize = 100_000;

// ---------------------------------------------------------------------------
// The dataset.
// ---------------------------------------------------------------------------

/// The fields a generated call draws from: a tool's arguments.
const PATHS: &[&str] = &[
    "src/main.rs",
    "README.md",
    "app/models/user.py",
    "C:\\Users\\ada\\notes.txt",
    "web/index.html",
    "docs/guide, part 2.md",
];
const CODE: &[&str] = &[
    "fn main() {\n    println!(\"hi\");\n}\n",
    "def f(x):\n    return x * 2  # doubled\n",
    "SELECT * FROM users WHERE name = 'Ada';",
    "const a = {b: [1, 2], c: \"d\"};",
    "echo \"done\" && ls -la | grep '.rs'",
    "Dear team, the build is green: ship it.",
    "if (a < b && c > d) { return; }",
    "<p class=\"note\">Zoë's café — 東京</p>",
];
const WORDS: &[&str] = &["todo", "fixme", "café", "main", "x = 1", "a, b", "{ok}"];

/// One way a model breaks a call.
#[derive(Clone, Copy)]
enum Fault {
    None,
    SingleQuotes,
    BareKeys,
    Python,
    TrailingComma,
    MissingComma,
    Comment,
    Fenced,
    Truncated,
}

const FAULTS: &[(Fault, u64)] = &[
    (Fault::None, 6),
    (Fault::SingleQuotes, 14),
    (Fault::BareKeys, 14),
    (Fault::Python, 10),
    (Fault::TrailingComma, 12),
    (Fault::MissingComma, 10),
    (Fault::Comment, 8),
    (Fault::Fenced, 10),
    (Fault::Truncated, 16),
];

/// A string literal in `quote` (`"` or `'`).
fn literal(text: &str, quote: char) -> String {
    if quote == '"' {
        return Value::from(text).to_string();
    }
    let mut out = String::from("'");
    for c in text.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            _ => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// A tool call's arguments written with `fault` (and, a third of the time,
/// single quotes as well).
fn call(rng: &mut Rng) -> String {
    let fault = rng.weighted(FAULTS);
    let quote = match fault {
        Fault::SingleQuotes => '\'',
        Fault::None => '"',
        _ if rng.chance(30) => '\'',
        _ => '"',
    };
    let mut fields: Vec<(&str, String)> = vec![("path", literal(rng.pick::<&str>(PATHS), quote))];
    if rng.chance(70) {
        fields.push(("content", literal(rng.pick::<&str>(CODE), quote)));
    }
    if rng.chance(50) {
        fields.push(("line", rng.below(5000).to_string()));
    }
    if rng.chance(50) {
        let flag = rng.chance(50);
        let word = match (fault, flag) {
            (Fault::Python, true) => "True",
            (Fault::Python, false) => "None",
            (_, true) => "true",
            (_, false) => "null",
        };
        fields.push(("recursive", word.to_owned()));
    }
    if rng.chance(40) {
        let tags: Vec<String> = (0..rng.below(4))
            .map(|_| literal(rng.pick::<&str>(WORDS), quote))
            .collect();
        fields.push(("tags", format!("[{}]", tags.join(", "))));
    }
    let missing = rng.below(fields.len());
    let mut text = String::from("{");
    for (i, (key, value)) in fields.iter().enumerate() {
        if i > 0 {
            let gap = matches!(fault, Fault::MissingComma) && i == missing.max(1);
            text.push_str(if gap { " " } else { ", " });
        }
        if matches!(fault, Fault::BareKeys) {
            text.push_str(key);
        } else {
            text.push_str(&literal(key, quote));
        }
        text.push_str(": ");
        text.push_str(value);
        if matches!(fault, Fault::Comment) && i == 0 {
            text.push_str(" // the file to open");
        }
    }
    if matches!(fault, Fault::TrailingComma) {
        text.push(',');
    }
    text.push('}');
    match fault {
        Fault::Fenced => format!("Here are the arguments:\n```json\n{text}\n```\nDone."),
        Fault::Truncated => {
            let mut cut = 1 + rng.below(text.len() - 1);
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
            text
        }
        _ => text,
    }
}

/// `text` cut into 1 to 5 chunks at char boundaries.
fn chunks(rng: &mut Rng, text: &str) -> Vec<String> {
    let mut cuts: Vec<usize> = (0..rng.below(5))
        .map(|_| rng.below(text.len() + 1))
        .filter(|&cut| text.is_char_boundary(cut))
        .collect();
    cuts.sort_unstable();
    cuts.push(text.len());
    let mut start = 0;
    cuts.into_iter()
        .map(|end| {
            let chunk = text[start..end].to_owned();
            start = end;
            chunk
        })
        .collect()
}

/// One input line (without its newline).
fn line(rng: &mut Rng, beside: &[&str]) -> String {
    let text = match rng.below(100) {
        0..49 => (*rng.pick(beside)).to_owned(),
        // A reply with no call in it: not JSON.
        49..51 => (*rng.pick(&["I could not find that file.", "", "Done!"])).to_owned(),
        _ => call(rng),
    };
    match rng.below(100) {
        0..50 => Value::from(text).to_string(),
        50..65 => json!({"input": text}).to_string(),
        65..80 => json!({"chunks": chunks(rng, &text)}).to_string(),
        80..88 => {
            let tool = *rng.pick(&["read_file", "write_file", "bash", "search"]);
            let text = if rng.chance(40) {
                (*rng.pick(PATHS)).to_owned()
            } else {
                text
            };
            json!({"input": text, "tool": tool}).to_string()
        }
        88..95 => json!({
            "input": text,
            "schema": {"type": "object", "properties": {
                "path": {"type": "string"}, "line": {"type": "integer"},
                "recursive": {"type": "boolean"}}}
        })
        .to_string(),
        95..97 => String::new(),
        97 => "not json".to_owned(),
        98 => "[1, 2]".to_owned(),
        _ => r#"{"input": 1}"#.to_owned(),
    }
}

/// The first `n` lines of the dataset, as JSON Lines: the same seed, so a
/// shorter dataset is the start of a longer one.
fn dataset(n: usize) -> String {
    let beside = broken_texts();
    let mut rng = Rng::new(SEED);
    let mut out = String::with_capacity(n * 256);
    for _ in 0..n {
        let _ = writeln!(out, "{}", line(&mut rng, &beside));
    }
    out
}

// ---------------------------------------------------------------------------
// Running the binary.
// ---------------------------------------------------------------------------

fn repair(args: &[&str]) -> Output {
    let output = Command::new(BIN)
        .arg("repair")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// The counts of what the output lines carry, as `--summary` writes them.
fn count(output: &str) -> Value {
    let mut lines = 0u64;
    let mut errors = 0u64;
    let mut verdicts = BTreeMap::<String, u64>::new();
    let mut fixes = BTreeMap::<String, u64>::new();
    let mut doubts = BTreeMap::<String, u64>::new();
    for line in output.lines() {
        let value: Value = serde_json::from_str(line).unwrap();
        lines += 1;
        if value.get("error").is_some() {
            errors += 1;
            continue;
        }
        *verdicts
            .entry(value["verdict"].as_str().unwrap().to_owned())
            .or_default() += 1;
        for (member, counts) in [("fixes", &mut fixes), ("doubt", &mut doubts)] {
            for item in value
                .get(member)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                *counts
                    .entry(item["kind"].as_str().unwrap().to_owned())
                    .or_default() += 1;
            }
        }
    }
    json!({"lines": lines, "errors": errors, "verdicts": verdicts, "fixes": fixes, "doubts": doubts})
}

// ---------------------------------------------------------------------------
// The tests.
// ---------------------------------------------------------------------------

/// `argmend repair --batch` with `args`, its three streams piped.
fn batch(args: &[&str]) -> Child {
    Command::new(BIN)
        .args(["repair", "--batch"])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// `--jobs 2` and `--jobs 4` write what `--jobs 1` writes on the 100k
/// dataset, and `--summary` counts exactly what those lines carry. Nothing
/// else reaches stderr: an 11 MB input gets no progress bar when stderr is
/// not a terminal.
#[test]
fn jobs_write_what_one_job_writes() {
    let data = dataset(LINES);
    let dir = TempDir::new();
    let path = dir.write("calls.jsonl", &data);
    // For benches/batch_jobs.sh; a failed write only costs the bench its input.
    let _ = std::fs::write(target_dir().join("batch-jobs-100k.jsonl"), &data);
    let path = path.to_str().unwrap();

    let one = repair(&["--batch", "--jobs", "1", path]);
    assert_eq!(String::from_utf8_lossy(&one.stderr), "");
    let one = String::from_utf8(one.stdout).unwrap();
    assert_eq!(one.lines().count(), LINES);

    let four = repair(&["--batch", "--jobs", "4", path]);
    assert_eq!(String::from_utf8_lossy(&four.stderr), "");
    assert!(
        four.stdout == one.as_bytes(),
        "--jobs 4 differs from --jobs 1"
    );

    let two = repair(&["--batch", "--jobs", "2", "--summary", path]);
    assert!(
        two.stdout == one.as_bytes(),
        "--jobs 2 differs from --jobs 1"
    );
    let summary: Value = serde_json::from_slice(&two.stderr).unwrap();
    let counted = count(&one);
    assert_eq!(summary, counted);
    // The dataset is what it says: mixed faults, bad lines and doubts.
    assert!(counted["errors"].as_u64().unwrap() > 1000, "{counted}");
    for verdict in ["valid", "repaired", "completed", "not_json"] {
        assert!(
            counted["verdicts"][verdict].as_u64().unwrap() > 100,
            "{counted}"
        );
    }
    assert!(
        counted["fixes"].as_object().unwrap().len() >= 15,
        "{counted}"
    );
    assert!(
        !counted["doubts"].as_object().unwrap().is_empty(),
        "{counted}"
    );
}

/// `--snapshots` and the `--summary` of `--jobs 1` work with jobs too, and
/// stdin serves as well as a file.
#[test]
fn snapshots_and_stdin_with_jobs() {
    let data = dataset(3000);
    let run = |jobs: &str| {
        let mut child = batch(&["--snapshots", "--summary", "--jobs", jobs]);
        let mut stdin = child.stdin.take().unwrap();
        let input = data.clone();
        let writer = thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
        let output = child.wait_with_output().unwrap();
        writer.join().unwrap();
        assert!(output.status.success());
        output
    };
    let one = run("1");
    let three = run("3");
    assert!(three.stdout == one.stdout, "--jobs 3 differs from --jobs 1");
    assert_eq!(
        String::from_utf8_lossy(&three.stderr),
        String::from_utf8_lossy(&one.stderr)
    );
    let summary: Value = serde_json::from_slice(&one.stderr).unwrap();
    assert_eq!(summary, count(&String::from_utf8(one.stdout).unwrap()));
}

/// A pipeline that sends one line and waits gets its answer from the pool
/// at once, as from one thread.
#[test]
fn jobs_answer_each_line_before_the_next_arrives() {
    let mut child = batch(&["--jobs", "2"]);
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    for i in 0..3 {
        writeln!(stdin, "\"[{i},]\"").unwrap();
        stdin.flush().unwrap();
        let mut answer = String::new();
        stdout.read_line(&mut answer).unwrap();
        assert_eq!(
            answer,
            format!(
                "{{\"json\":[{i}],\"verdict\":\"repaired\",\"fixes\":[{{\"kind\":\"removed_comma\",\"offset\":2}}]}}\n"
            )
        );
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

#[test]
fn jobs_and_summary_need_batch_and_a_sane_count() {
    for args in [
        &["repair", "--jobs", "2"][..],
        &["repair", "--summary"],
        &["repair", "--batch", "--jobs", "0"],
        &["repair", "--batch", "--jobs", "257"],
        &["repair", "--batch", "--jobs", "many"],
    ] {
        let output = Command::new(BIN)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(output.stdout.is_empty(), "{args:?}");
    }
}

/// The peak resident memory (`VmHWM`, in kB) of `repair --batch --jobs 2`
/// over `input`, read once every answer is out but before stdin closes, so
/// the process is still there to ask.
#[cfg(target_os = "linux")]
fn peak_kb(input: String) -> u64 {
    let n_lines = input.lines().count();
    let mut child = batch(&["--jobs", "2"]);
    let mut stdin = child.stdin.take().unwrap();
    let writer = thread::spawn(move || {
        stdin.write_all(input.as_bytes()).unwrap();
        stdin
    });
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = Vec::new();
    for _ in 0..n_lines {
        line.clear();
        assert!(stdout.read_until(b'\n', &mut line).unwrap() > 0);
    }
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let peak = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    drop(writer.join().unwrap());
    assert!(child.wait().unwrap().success());
    peak
}

/// Ten times the lines, the same peak memory: the window of lines in
/// flight bounds it, not the input (200k lines are 21 MB). Measured on
/// 2026-12-02: about 8 MB for 20k lines and 9 MB for 200k.
#[cfg(target_os = "linux")]
#[test]
fn memory_stays_flat_as_the_input_grows_tenfold() {
    let small = dataset(20_000);
    let big = dataset(200_000);
    let big_mb = big.len() >> 20;
    let small_kb = peak_kb(small);
    let big_kb = peak_kb(big);
    println!("peak RSS: 20k lines {small_kb} kB, 200k lines ({big_mb} MB) {big_kb} kB");
    assert!(
        big_kb < small_kb + small_kb / 2,
        "20k lines: {small_kb} kB, 200k lines: {big_kb} kB"
    );
}
