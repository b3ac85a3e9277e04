//! Issue 25: tool calls built from real files, with the truth known
//! exactly, scored against named targets.
//!
//! `quoted_code` scores argmend on calls built from hand-written snippets;
//! this is a second, independent measure built from text the engine was
//! never tuned on: excerpts of the Rust files of crates this repository
//! builds on (pinned in `real_calls/crates.txt`), of Python's standard
//! library, of the glibc and Linux C headers, and of a few other kinds of
//! the crates' files (TOML, Markdown, JSON, YAML, shell). Never a file of
//! this repository.
//!
//! The excerpts are a snapshot in `../shared/real_files/` (3717 excerpts,
//! 3 MB; its README says what they are, where they come from and under
//! which licenses; the team keeps it beside the checkout, since the
//! excerpts are other projects' text: `tests/shared.rs`, and without it
//! these tests are skipped), and a run reads nothing else, so every machine
//! builds the same calls (issue 28). The
//! snapshot was cut from one machine's files (the cargo registry, Python's
//! standard library, `/usr/include`) by a seeded draw over their sorted
//! lists, and it records the PRNG draws each pick made, so its replay
//! builds the very calls that draw built, byte for byte. A change to the
//! builders, the seeds or the counts puts the replay out of step, which it
//! reports; then make the snapshot again, on a machine with the pinned
//! crates in its cargo registry (`cargo fetch`), python3 and libc6-dev:
//!
//! ```text
//! ARGMEND_REAL_CALLS_SNAPSHOT=1 cargo test --release --test main real_calls -- --nocapture
//! ```
//!
//! That draws from the machine's files, rewrites `../shared/real_files/`,
//! checks that it replays to the same calls, and scores them as usual;
//! review its diff (`licenses.tsv` too) and the targets before handing it
//! to the team's shared folder (`ARGMEND_SHARED` points a run elsewhere).
//!
//! An excerpt is a run of 3 to 40 consecutive lines (the first of a few
//! tries that holds a double quote), at most 4 KB. It becomes a
//! `write_file` call (`path`, `content`), an `edit_file` call (`path`,
//! `old_string`, `new_string`: a line changed, added or removed), or a
//! `shell` call (`command`, sometimes `timeout`) whose command is a shell
//! line built from the text (`grep -n "…" file`, `sed -i 's/"…"/"…"/'`,
//! `python3 -c "…"`, `echo "…" >> out.txt`, a heredoc). Each call is
//! serialised field by field, so its truth is known exactly: everything is
//! correct JSON except the double quotes inside the code fields, left
//! unescaped, and, in half the calls, newlines and tabs written as raw bytes.
//! Field order and layout (compact, spaced, pretty) vary. A call whose
//! mistake happens to spell other valid JSON is ambiguous by construction
//! (quoted_code's definition) and is dropped and counted.
//!
//! Three sets, each of its own seed:
//! - broken calls, scored in two modes: `plain` (`repair`) and `schema`
//!   (`normalize_tool_args_with` and the tool's JSON Schema). Right means the
//!   parsed result equals the truth;
//! - truncated calls: broken calls cut at a character boundary inside a code
//!   field. The repair keeps its text when the cut field is a prefix of the
//!   true text, the fields before it are equal, and there is no other key;
//! - valid calls: the same calls correctly escaped, which must come back
//!   byte for byte with verdict `Valid` in both modes; and more of them
//!   built on excerpts that hold a typographic quote (‘ ’ “ ” ′ ″ « »):
//!   in files that compile or read as they should those are data (a
//!   comment, a docstring, a string literal, prose), which the tool-aware
//!   mode must keep even in a file it reads as code (issue 25).
//!
//! The table prints with:
//!
//! ```text
//! cargo test --release --test main real_calls -- --nocapture
//! ```
//!
//! Every failure is written to `target/real-calls-failures.txt`, and every
//! broken call to `target/real-calls-cases.jsonl` (under `CARGO_TARGET_DIR`
//! when it is set).
//!
//! This file holds the scorer and the tests; `snapshot` reads and writes
//! `../shared/real_files/`, `sources` replays its picks (or finds the
//! machine's files and cuts the excerpts), `edits` makes edits and shell
//! commands of them, `build` turns them into calls, and `report` prints the
//! table.

use std::sync::OnceLock;

use argmend::{ToolOptions, Verdict};
use serde_json::Value;

mod build;
mod edits;
mod machine_files;
mod report;
mod snapshot;
mod sources;

use build::{FieldValue, Generated, Newlines, Quotes, Truncated, Valid};
use snapshot::Set;
use sources::{Family, Picker};

/// The lowest acceptable rate of right answers of `repair` on the broken
/// calls, in percent.
const PLAIN_TARGET_PERCENT: f64 = 99.0;
/// The lowest acceptable rate of right answers with the tool's schema, in percent.
const SCHEMA_TARGET_PERCENT: f64 = 99.5;
/// The share of truncated calls whose repair keeps the text read, in
/// percent, in both modes.
const TRUNCATED_KEEP_TARGET_PERCENT: f64 = 100.0;
/// The share of valid calls that come back byte for byte with verdict
/// `Valid`, in percent, in both modes.
const VALID_TARGET_PERCENT: f64 = 100.0;

/// How many broken calls are scored.
const BROKEN_CALLS: usize = 3_000;
/// How many truncated calls are scored.
const TRUNCATED_CALLS: usize = 300;
/// How many valid calls must come back byte for byte.
const VALID_CALLS: usize = 300;
/// How many more valid calls hold a typographic quote as data.
const TYPOGRAPHIC_VALID_CALLS: usize = 100;
/// The seeds, constants so every run builds the same calls; apart, so
/// each set holds other excerpts.
const BROKEN_SEED: u64 = 0x0025_4EA1_5EED_0001;
const TRUNCATED_SEED: u64 = 0x0025_4EA1_5EED_0002;
const VALID_SEED: u64 = 0x0025_4EA1_5EED_0003;
/// How many failures of the broken calls are printed per mode.
const PRINTED_FAILURES: usize = 5;
/// How many failures of the truncated and of the valid calls are printed.
const PRINTED_OTHER_FAILURES: usize = 2;

// ---------------------------------------------------------------------------
// Answers.
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Plain,
    Schema,
}

impl Mode {
    const ALL: [Mode; 2] = [Mode::Plain, Mode::Schema];

    fn name(self) -> &'static str {
        match self {
            Mode::Plain => "plain",
            Mode::Schema => "schema",
        }
    }
}

/// What one mode made of one text.
struct Reply {
    value: Option<Value>,
    verdict: Verdict,
    text: String,
    /// Whether the outcome records a doubt; `None` in schema mode, whose
    /// `Normalized` does not carry them.
    doubts: Option<bool>,
}

fn reply(tool: build::Tool, raw: &str, mode: Mode) -> Reply {
    match mode {
        Mode::Plain => {
            let outcome = argmend::repair(raw.as_bytes());
            Reply {
                value: outcome.to_value(),
                verdict: outcome.verdict(),
                text: outcome.text().to_owned(),
                doubts: Some(!outcome.doubts().is_empty()),
            }
        }
        Mode::Schema => {
            let options = ToolOptions::default().schema(tool.schema());
            let normalized = argmend::normalize_tool_args_with(tool.name(), raw, &options);
            Reply {
                value: normalized.to_value(),
                verdict: normalized.verdict(),
                doubts: None,
                text: normalized.into_text(),
            }
        }
    }
}

/// Whether a truncated call's repair keeps the text read: the cut field a
/// prefix of its true text, the fields before it equal, no other key.
fn keeps_text(truncated: &Truncated, value: Option<&Value>) -> Result<(), String> {
    let Some(Value::Object(got)) = value else {
        return Err("no object".to_owned());
    };
    let fields = &truncated.call.fields;
    for key in got.keys() {
        if !fields[..=truncated.cut_field].iter().any(|f| f.key == key) {
            return Err(format!("a key {key:?} that the text read does not hold"));
        }
    }
    for field in &fields[..truncated.cut_field] {
        if got.get(field.key) != truncated.call.truth.get(field.key) {
            return Err(format!("the complete field {:?} differs", field.key));
        }
    }
    let cut = &fields[truncated.cut_field];
    let FieldValue::Text(whole) = &cut.value else {
        unreachable!("calls are cut inside a string");
    };
    match got.get(cut.key) {
        Some(Value::String(kept)) if whole.starts_with(kept.as_str()) => Ok(()),
        Some(Value::String(_)) => Err(format!("{:?} is not a prefix of the true text", cut.key)),
        Some(_) => Err(format!("{:?} is not a string", cut.key)),
        None => Err(format!("{:?} is lost", cut.key)),
    }
}

/// Whether the cut field holds every character read (a final double quote
/// may be taken for the string's end: the text cannot tell).
fn keeps_every_character(truncated: &Truncated, value: Option<&Value>) -> bool {
    let key = truncated.call.fields[truncated.cut_field].key;
    let read = truncated.read.as_str();
    match value.and_then(|v| v.get(key)).and_then(Value::as_str) {
        Some(kept) => kept == read || (read.ends_with('"') && kept == &read[..read.len() - 1]),
        None => false,
    }
}

/// Every answer of every set, computed once for the table and the targets.
struct Scored {
    /// Where the excerpts came from, a line each, for the table.
    origin: Vec<String>,
    /// The snapshot's picks that no set asked for.
    unused_picks: usize,
    generated: Generated,
    /// Per broken call, the reply of each mode.
    broken: Vec<[Reply; 2]>,
    truncated: Vec<(Truncated, [Reply; 2])>,
    valid: Vec<(Valid, [Reply; 2])>,
}

/// The calls of the three sets, before they are scored.
struct Sets {
    generated: Generated,
    truncated: Vec<Truncated>,
    valid: Vec<Valid>,
}

/// The three sets, each from its picker (in [`Set::ALL`]'s order).
fn build_sets(pickers: &mut [Picker; 3]) -> Sets {
    let [broken, truncated, valid] = pickers;
    Sets {
        generated: build::generate(BROKEN_CALLS, BROKEN_SEED, broken),
        truncated: build::truncated(TRUNCATED_CALLS, TRUNCATED_SEED, truncated),
        valid: build::valid(VALID_CALLS, TYPOGRAPHIC_VALID_CALLS, VALID_SEED, valid),
    }
}

/// Every text the sets hold, with its truth: what a replay must build again.
fn texts(sets: &Sets) -> Vec<String> {
    let broken = sets.generated.calls.iter().chain(&sets.generated.ambiguous);
    let broken = broken.map(|c| format!("{}\n{}", c.raw, c.truth));
    let truncated = sets.truncated.iter();
    let truncated = truncated.map(|t| format!("{}\n{}", t.prefix, t.truth()));
    let valid = sets
        .valid
        .iter()
        .map(|v| format!("{}\n{}", v.text, v.call.truth));
    broken.chain(truncated).chain(valid).collect()
}

/// The sets, from the snapshot; or, with `ARGMEND_REAL_CALLS_SNAPSHOT=1`,
/// from this machine's files, written to the snapshot, which must then
/// replay to the same calls. With where the excerpts came from, and the
/// snapshot's picks no set asked for.
fn sets() -> (Sets, Vec<String>, usize) {
    if !snapshot::making() {
        let mut pickers = Set::ALL.map(Picker::snapshot);
        let sets = build_sets(&mut pickers);
        let origin = format!(
            "replayed from {}: {}",
            snapshot::dir().display(),
            snapshot::describe(&pickers)
        );
        let unused = pickers.iter().map(Picker::unused).sum();
        return (sets, vec![origin], unused);
    }
    let mut pickers = Set::ALL.map(Picker::machine);
    let sets = build_sets(&mut pickers);
    snapshot::write(&pickers);
    let mut replay = Set::ALL.map(Picker::snapshot);
    let again = build_sets(&mut replay);
    let (made, replayed) = (texts(&sets), texts(&again));
    let differ = made.iter().zip(&replayed).position(|(a, b)| a != b);
    assert!(
        differ.is_none() && made.len() == replayed.len(),
        "the snapshot written to {} does not replay to the same calls: {} texts made, {} replayed, the first difference at {differ:?}",
        snapshot::dir().display(),
        made.len(),
        replayed.len(),
    );
    let unused: usize = replay.iter().map(Picker::unused).sum();
    assert_eq!(unused, 0, "the replay leaves picks of the snapshot unused");
    let sources = machine_files::sources();
    let counts: Vec<String> = sources::Kind::ALL
        .iter()
        .map(|&k| format!("{} {}", sources.count(k), k.name()))
        .collect();
    let not_utf8: usize = pickers.iter().map(Picker::not_utf8).sum();
    let mut origin = vec![
        format!(
            "cut from this machine's files ({}; {not_utf8} not UTF-8 skipped): {}",
            counts.join(", "),
            snapshot::describe(&pickers)
        ),
        format!(
            "written to {}, which replays to the same calls",
            snapshot::dir().display()
        ),
    ];
    if !sources.unlicensed.is_empty() {
        origin.push(format!(
            "left out, their license not named: {}",
            sources.unlicensed.join("; ")
        ));
    }
    (sets, origin, 0)
}

/// The broken calls as `(tool, raw arguments, truth, schema)`, for tests
/// that write them in other wire formats (`tool_formats`).
pub(crate) fn cases() -> Vec<(&'static str, String, Value, Value)> {
    let (sets, _, _) = sets();
    (sets.generated.calls.iter())
        .map(|call| {
            let tool = call.tool;
            (
                tool.name(),
                call.raw.clone(),
                call.truth.clone(),
                tool.schema(),
            )
        })
        .collect()
}

fn scored() -> &'static Scored {
    static SCORED: OnceLock<Scored> = OnceLock::new();
    SCORED.get_or_init(|| {
        let both = |tool, raw: &str| Mode::ALL.map(|mode| reply(tool, raw, mode));
        let (sets, origin, unused_picks) = sets();
        let generated = sets.generated;
        let broken = generated
            .calls
            .iter()
            .map(|call| both(call.tool, &call.raw))
            .collect();
        let truncated = sets
            .truncated
            .into_iter()
            .map(|t| {
                let replies = both(t.call.tool, &t.prefix);
                (t, replies)
            })
            .collect();
        let valid = sets
            .valid
            .into_iter()
            .map(|v| {
                let replies = both(v.call.tool, &v.text);
                (v, replies)
            })
            .collect();
        Scored {
            origin,
            unused_picks,
            generated,
            broken,
            truncated,
            valid,
        }
    })
}

impl Scored {
    fn broken_right(&self, mode: usize) -> usize {
        let calls = &self.generated.calls;
        calls
            .iter()
            .zip(&self.broken)
            .filter(|(call, replies)| replies[mode].value.as_ref() == Some(&call.truth))
            .count()
    }

    fn truncated_kept(&self, mode: usize) -> usize {
        self.truncated
            .iter()
            .filter(|(t, replies)| keeps_text(t, replies[mode].value.as_ref()).is_ok())
            .count()
    }

    fn truncated_exact(&self, mode: usize) -> usize {
        self.truncated
            .iter()
            .filter(|(t, replies)| keeps_every_character(t, replies[mode].value.as_ref()))
            .count()
    }

    fn valid_byte_for_byte(&self, mode: usize) -> usize {
        self.valid
            .iter()
            .filter(|(v, replies)| byte_for_byte(v, &replies[mode]))
            .count()
    }
}

fn byte_for_byte(valid: &Valid, reply: &Reply) -> bool {
    reply.verdict == Verdict::Valid && reply.text == valid.text
}

fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        return 100.0;
    }
    100.0 * part as f64 / whole as f64
}

#[test]
fn scores() {
    if !snapshot::available() {
        return;
    }
    report::print_and_write(scored());
}

#[test]
fn targets() {
    if !snapshot::available() {
        return;
    }
    let scored = scored();
    let n = scored.generated.calls.len();
    let (t, v) = (scored.truncated.len(), scored.valid.len());
    let rates = [
        (
            "broken calls right, plain",
            percent(scored.broken_right(0), n),
            PLAIN_TARGET_PERCENT,
        ),
        (
            "broken calls right, schema",
            percent(scored.broken_right(1), n),
            SCHEMA_TARGET_PERCENT,
        ),
        (
            "truncated calls keep their text, plain",
            percent(scored.truncated_kept(0), t),
            TRUNCATED_KEEP_TARGET_PERCENT,
        ),
        (
            "truncated calls keep their text, schema",
            percent(scored.truncated_kept(1), t),
            TRUNCATED_KEEP_TARGET_PERCENT,
        ),
        (
            "valid calls byte for byte, plain",
            percent(scored.valid_byte_for_byte(0), v),
            VALID_TARGET_PERCENT,
        ),
        (
            "valid calls byte for byte, schema",
            percent(scored.valid_byte_for_byte(1), v),
            VALID_TARGET_PERCENT,
        ),
    ];
    let missed: Vec<String> = rates
        .iter()
        .filter(|(_, rate, target)| rate < target)
        .map(|(what, rate, target)| format!("{what}: {rate:.2}%, below the target of {target}%"))
        .collect();
    assert!(
        missed.is_empty(),
        "real calls miss {} target(s) (the table: cargo test --release --test main real_calls -- --nocapture; every failure in {}):\n  {}",
        missed.len(),
        report::target_dir()
            .join("real-calls-failures.txt")
            .display(),
        missed.join("\n  ")
    );
}

#[test]
fn generator_is_self_consistent() {
    if !snapshot::available() {
        return;
    }
    let scored = scored();
    let generated = &scored.generated;
    assert_eq!(generated.calls.len(), BROKEN_CALLS);
    for (i, call) in generated.calls.iter().enumerate() {
        let label = call.label();
        assert_eq!(call.index, i, "{label}: numbered out of turn");
        for field in &call.fields {
            if let FieldValue::Text(text) = &field.value {
                assert_eq!(
                    format!("\"{}\"", build::encode(text, true, Newlines::Escaped)),
                    serde_json::to_string(text).expect("a string serialises"),
                    "{label}: the encoder differs from serde_json"
                );
            }
        }
        // Mending it the right way gives the correct text, byte for byte, and the truth.
        let mended = build::mend_the_right_way(call);
        let (correct, _) = build::serialize(
            &call.fields,
            call.layout,
            Newlines::Escaped,
            Quotes::AllEscaped,
        );
        assert_eq!(mended, correct, "{label}: mended text");
        let value: Value = serde_json::from_str(&mended)
            .unwrap_or_else(|e| panic!("{label}: mended text does not parse: {e}\n{mended}"));
        assert_eq!(value, call.truth, "{label}: mended value");
        // A call that parses has no mistake and is the correct text.
        if serde_json::from_str::<Value>(&call.raw).is_ok() {
            assert_eq!(
                call.raw, correct,
                "{label}: parses but is not the correct text"
            );
            assert!(
                !call.has_raw_quote() && !call.has_raw_newline(),
                "{label}: parses with a mistake"
            );
        }
    }
    for call in &generated.ambiguous {
        assert!(build::is_ambiguous(call), "{}", call.label());
    }
    // Every pick of the snapshot builds a call: no stale excerpt is kept.
    assert_eq!(
        scored.unused_picks,
        0,
        "the snapshot holds picks no set asked for: {}",
        snapshot::STALE
    );
    // The excerpts lean toward text with double quotes, and every family is there.
    let quoted = generated.calls.iter().filter(|c| c.has_raw_quote()).count();
    assert!(
        quoted >= BROKEN_CALLS * 2 / 3,
        "{quoted} calls with a raw quote"
    );
    for family in [Family::Rust, Family::Python, Family::C, Family::Other] {
        let n = generated
            .calls
            .iter()
            .filter(|c| c.kind().family() == family)
            .count();
        assert!(n >= BROKEN_CALLS / 10, "{}: {n} calls", family.name());
    }
    // A truncated call's truth is a prefix of the whole call's, field by field.
    assert_eq!(scored.truncated.len(), TRUNCATED_CALLS);
    for (t, _) in &scored.truncated {
        let truth = t.truth();
        assert!(
            keeps_text(t, Some(&truth)).is_ok() && keeps_every_character(t, Some(&truth)),
            "truncated {}: its own truth is not kept",
            t.call.label()
        );
        assert!(t.call.raw.starts_with(&t.prefix) && t.prefix.len() < t.call.raw.len());
    }
    // A valid call parses to its truth; the typographic ones are there.
    let typographic = scored.valid.len() - VALID_CALLS;
    assert!(
        typographic >= TYPOGRAPHIC_VALID_CALLS / 2,
        "{typographic} valid calls with a typographic quote"
    );
    for (v, _) in &scored.valid {
        let value: Value = serde_json::from_str(&v.text).expect("a valid call parses");
        assert_eq!(value, v.call.truth, "valid {}", v.call.label());
    }
}
