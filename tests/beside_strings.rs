//! Issue 25: faults beside strings. A separator or delimiter fault that sits
//! right beside a string (a key or a value) must be mended, not swallowed
//! into the string.
//!
//! A generator draws a truth (mostly an object of tool arguments, sometimes
//! an array of strings, sometimes one level of nesting) from a pool of keys
//! and value strings that hold the characters that make a string's end hard
//! to find (commas, colons, semicolons, `=`, brackets, `#`, `//`,
//! apostrophes, paths, line breaks), and writes it in a random layout
//! (compact, spaced or pretty) with exactly one family of fault, at one
//! site, at several, or (for the families about delimiters) at every site
//! that fits. The writer builds the truth beside the text, so the truth is
//! known exactly; written with every fault the right way, the same case is
//! valid JSON of that truth (the generator test checks it). Drafts whose
//! text happens to parse as JSON are dropped. A seeded PRNG keeps every run
//! the same.
//!
//! A case is right when the repaired text parses to exactly the truth. Each
//! case is scored one shot (`repair`) and one byte at a time (a `Repairer`
//! fed every byte alone), and for each answer the scorer notes whether the
//! outcome carries a doubt. The pool is split: every third key and value
//! string is held out, and every third case of each family draws from those
//! only; the table reports both splits.
//!
//! The table (per family, split, layout, container, shape and position,
//! then the doubts and the first failures of each family) prints with:
//!
//! ```text
//! cargo test --release --test main beside_strings -- --nocapture
//! ```
//!
//! Every failure is written to `target/beside-strings-failures.txt` and
//! every case to `target/beside-strings-cases.jsonl` (under
//! `CARGO_TARGET_DIR` when it is set), which `benches/peers/beside_strings.sh`
//! scores the peers on.
//!
//! The targets are checked by their own test, `beside_strings::targets`, so
//! the table prints even when they are not met.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use argmend::{Options, Outcome, Repairer, Verdict};
use serde_json::{Value, json};

mod cases;
mod families;
mod pool;
mod write;

use cases::{Case, Draw, Generated, Position, Split, generate};
use families::Family;
use pool::{IDENTIFIERS, KEYS, NOTES, VALUES};
use write::{Container, Layout};

/// The lowest acceptable rate of right answers over all cases, in percent,
/// one shot and one byte at a time alike.
const OVERALL_TARGET_PERCENT: f64 = 99.0;
/// The lowest acceptable rate of right answers in every family, in percent,
/// one shot and one byte at a time alike.
const FAMILY_TARGET_PERCENT: f64 = 97.0;

/// How many cases each family has (a third of them held out).
const CASES_PER_FAMILY: usize = 200;
/// The seed of the cases; a constant, so every run scores the same cases.
const SEED: u64 = 0x0025_BE51_DE00_0001;
/// How many failures of each family are printed.
const PRINTED_FAILURES: usize = 3;

fn generated() -> &'static Generated {
    static CASES: OnceLock<Generated> = OnceLock::new();
    CASES.get_or_init(|| generate(CASES_PER_FAMILY, SEED))
}

/// The broken texts of the generated cases: `batch_jobs` draws part of its
/// dataset of mixed faults from them.
pub(crate) fn broken_texts() -> Vec<&'static str> {
    generated()
        .cases
        .iter()
        .map(|case| case.raw.as_str())
        .collect()
}

// ---------------------------------------------------------------------------
// Scoring.
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    OneShot,
    OneByte,
}

impl Mode {
    const ALL: [Mode; 2] = [Mode::OneShot, Mode::OneByte];

    fn name(self) -> &'static str {
        match self {
            Mode::OneShot => "one shot",
            Mode::OneByte => "one byte",
        }
    }
}

/// What one mode made of one case.
struct Answer {
    right: bool,
    /// Whether the outcome carries a doubt.
    doubt: bool,
    /// `None` when feeding crossed a limit.
    verdict: Option<Verdict>,
    text: String,
}

impl Answer {
    fn of(outcome: Result<Outcome<'_>, argmend::Error>, truth: &Value) -> Answer {
        match outcome {
            Ok(outcome) => Answer {
                right: outcome.to_value().as_ref() == Some(truth),
                doubt: !outcome.doubts().is_empty(),
                verdict: Some(outcome.verdict()),
                text: outcome.text().to_owned(),
            },
            Err(error) => Answer {
                right: false,
                doubt: false,
                verdict: None,
                text: format!("error: {error}"),
            },
        }
    }

    fn verdict_name(&self) -> &'static str {
        self.verdict.map_or("error", Verdict::name)
    }
}

fn answer(case: &Case, mode: Mode) -> Answer {
    let raw = case.raw.as_bytes();
    match mode {
        Mode::OneShot => Answer::of(Ok(argmend::repair(raw)), &case.truth),
        Mode::OneByte => {
            let mut repairer = Repairer::new(Options::default());
            let fed = raw
                .iter()
                .try_for_each(|b| repairer.feed(std::slice::from_ref(b)).map(drop));
            Answer::of(fed.and_then(|()| repairer.finish()), &case.truth)
        }
    }
}

/// Every case's answers, one per mode.
fn scored() -> &'static [[Answer; 2]] {
    static ANSWERS: OnceLock<Vec<[Answer; 2]>> = OnceLock::new();
    ANSWERS.get_or_init(|| {
        generated()
            .cases
            .iter()
            .map(|case| Mode::ALL.map(|mode| answer(case, mode)))
            .collect()
    })
}

/// Cases and right answers per mode.
#[derive(Debug, Clone, Copy, Default)]
struct Counts {
    cases: usize,
    right: [usize; 2],
}

impl Counts {
    fn add(&mut self, answers: &[Answer; 2]) {
        self.cases += 1;
        for (m, answer) in answers.iter().enumerate() {
            self.right[m] += usize::from(answer.right);
        }
    }

    fn percent(&self, mode: usize) -> f64 {
        if self.cases == 0 {
            return 100.0;
        }
        100.0 * self.right[mode] as f64 / self.cases as f64
    }

    /// The rate as the table shows it: `-` without cases.
    fn cell(&self, mode: usize) -> String {
        if self.cases == 0 {
            return "-".to_owned();
        }
        format!("{:.1}%", self.percent(mode))
    }
}

/// A row's counts over all its cases and over its held-out cases.
#[derive(Debug, Clone, Copy, Default)]
struct Tally {
    all: Counts,
    held_out: Counts,
}

/// The rows of the table: a group, the order within it, a name.
type Rows = BTreeMap<(usize, usize, &'static str), Tally>;

const GROUPS: [&str; 7] = [
    "",
    "family",
    "split",
    "layout",
    "container",
    "shape",
    "position",
];

fn row_keys(case: &Case) -> [(usize, usize, &'static str); 7] {
    [
        (0, 0, "all"),
        (1, case.family as usize, case.family.name()),
        (2, case.split as usize, case.split.name()),
        (3, case.layout as usize, case.layout.name()),
        (4, case.container as usize, case.container.name()),
        (5, case.shape as usize, case.shape.name()),
        (6, case.position as usize, case.position.name()),
    ]
}

fn rows() -> Rows {
    let mut rows = Rows::new();
    for (case, answers) in generated().cases.iter().zip(scored()) {
        for key in row_keys(case) {
            let tally = rows.entry(key).or_default();
            tally.all.add(answers);
            if case.split == Split::HeldOut {
                tally.held_out.add(answers);
            }
        }
    }
    rows
}

/// Answers with and without a doubt, right and wrong, per mode.
#[derive(Debug, Clone, Copy, Default)]
struct Doubts {
    right: usize,
    right_with_doubt: usize,
    wrong: usize,
    wrong_with_doubt: usize,
}

fn share(part: usize, whole: usize) -> String {
    if whole == 0 {
        return "-".to_owned();
    }
    format!("{:.1}%", 100.0 * part as f64 / whole as f64)
}

fn failure_block(case: &Case, answers: &[Answer; 2]) -> String {
    let mut block = format!(
        "=== {}\n--- raw\n{}\n--- expected\n{}\n",
        case.label(),
        case.raw,
        serde_json::to_string(&case.truth).expect("a Value serialises"),
    );
    let [shot, byte] = answers;
    if shot.text == byte.text && shot.right == byte.right {
        let _ = writeln!(
            block,
            "--- actual, one shot and one byte ({}{})\n{}",
            shot.verdict_name(),
            if shot.doubt { ", with a doubt" } else { "" },
            shot.text
        );
    } else {
        for (mode, answer) in Mode::ALL.iter().zip(answers) {
            let _ = writeln!(
                block,
                "--- actual, {} ({}, {}{})\n{}",
                mode.name(),
                if answer.right { "right" } else { "wrong" },
                answer.verdict_name(),
                if answer.doubt { ", with a doubt" } else { "" },
                answer.text
            );
        }
    }
    block.push('\n');
    block
}

#[test]
fn scores() {
    let generated = generated();
    let cases = &generated.cases;
    let answers = scored();
    let rows = rows();
    let held = cases.iter().filter(|c| c.split == Split::HeldOut).count();
    let (dev_keys, dev_values) = Draw::sizes(Split::Dev);
    let (held_keys, held_values) = Draw::sizes(Split::HeldOut);
    println!(
        "beside strings (issue 25): {} cases ({} dev, {held} held-out; {} drafts that parsed as other JSON dropped), {} families, pool {dev_keys}+{held_keys} keys and {dev_values}+{held_values} value strings (dev+held-out)",
        cases.len(),
        cases.len() - held,
        generated.ambiguous,
        Family::ALL.len(),
    );
    println!(
        "{:<24} {:>6} {:>9} {:>9}   {:>8} {:>9} {:>9}",
        "", "cases", "one shot", "one byte", "held-out", "one shot", "one byte"
    );
    let mut group = usize::MAX;
    for (&(g, _, value), tally) in &rows {
        if g != group && g > 0 {
            println!("{}", GROUPS[g]);
        }
        group = g;
        let name = if g == 0 {
            value.to_owned()
        } else {
            format!("  {value}")
        };
        println!(
            "{name:<24} {:>6} {:>9} {:>9}   {:>8} {:>9} {:>9}",
            tally.all.cases,
            tally.all.cell(0),
            tally.all.cell(1),
            tally.held_out.cases,
            tally.held_out.cell(0),
            tally.held_out.cell(1),
        );
    }

    let mut doubts = [Doubts::default(); 2];
    let mut verdicts: [BTreeMap<&str, usize>; 2] = Default::default();
    for answers in answers {
        for (m, answer) in answers.iter().enumerate() {
            let d = &mut doubts[m];
            if answer.right {
                d.right += 1;
                d.right_with_doubt += usize::from(answer.doubt);
            } else {
                d.wrong += 1;
                d.wrong_with_doubt += usize::from(answer.doubt);
                *verdicts[m].entry(answer.verdict_name()).or_default() += 1;
            }
        }
    }
    println!("doubts (the engine's record of what the input could not settle):");
    for (m, mode) in Mode::ALL.iter().enumerate() {
        let d = doubts[m];
        println!(
            "  {:<8}  wrong answers with a doubt {} ({} of {}), right answers with a doubt {} ({} of {})",
            mode.name(),
            share(d.wrong_with_doubt, d.wrong),
            d.wrong_with_doubt,
            d.wrong,
            share(d.right_with_doubt, d.right),
            d.right_with_doubt,
            d.right,
        );
    }
    println!("wrong answers by verdict (\"repaired\" is the worst: wrong but looks fine):");
    for (m, mode) in Mode::ALL.iter().enumerate() {
        let list: Vec<String> = verdicts[m]
            .iter()
            .map(|(v, n)| format!("{v} {n}"))
            .collect();
        println!("  {:<8}  {}", mode.name(), list.join(", "));
    }

    let mut failures = String::new();
    let mut printed: BTreeMap<Family, Vec<String>> = BTreeMap::new();
    for (case, answers) in cases.iter().zip(answers) {
        if answers.iter().all(|a| a.right) {
            continue;
        }
        let block = failure_block(case, answers);
        failures.push_str(&block);
        let list = printed.entry(case.family).or_default();
        if list.len() < PRINTED_FAILURES {
            list.push(block);
        }
    }
    for (family, blocks) in &printed {
        println!(
            "first {} failures of {} (one shot or one byte):",
            blocks.len(),
            family.name()
        );
        for block in blocks {
            print!("{block}");
        }
    }
    let path = target_dir().join("beside-strings-failures.txt");
    match fs::write(&path, &failures) {
        Ok(()) => println!("all failures written to {}", path.display()),
        Err(error) => println!("could not write {}: {error}", path.display()),
    }
    write_cases(cases);
}

#[test]
fn targets() {
    let rows = rows();
    let mut misses = Vec::new();
    let mut check = |name: &str, counts: Counts, target: f64| {
        for (m, mode) in Mode::ALL.iter().enumerate() {
            if counts.percent(m) < target {
                misses.push(format!(
                    "{name}, {}: {:.1}% right, below the target of {target}%",
                    mode.name(),
                    counts.percent(m)
                ));
            }
        }
    };
    check("all", rows[&(0, 0, "all")].all, OVERALL_TARGET_PERCENT);
    for family in Family::ALL {
        let key = (1, family as usize, family.name());
        check(family.name(), rows[&key].all, FAMILY_TARGET_PERCENT);
    }
    assert!(
        misses.is_empty(),
        "{} misses (the table: cargo test --release --test main beside_strings::scores -- --nocapture):\n{}",
        misses.len(),
        misses.join("\n")
    );
}

/// Where generated files go for the scripts of `benches/` to read.
pub(crate) fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"))
}

/// Every case as JSON Lines, so the peers can be scored on the same cases
/// (`benches/peers/harness/beside_strings.py`).
fn write_cases(cases: &[Case]) {
    let mut out = String::new();
    for case in cases {
        let line = json!({
            "family": case.family.name(),
            "split": case.split.name(),
            "layout": case.layout.name(),
            "container": case.container.name(),
            "position": case.position.name(),
            "raw": case.raw,
            "truth": case.truth,
        });
        out.push_str(&line.to_string());
        out.push('\n');
    }
    let path = target_dir().join("beside-strings-cases.jsonl");
    match fs::write(&path, out) {
        Ok(()) => println!("every case written to {}", path.display()),
        Err(error) => println!("could not write {}: {error}", path.display()),
    }
}

// ---------------------------------------------------------------------------
// The generator's own checks.
// ---------------------------------------------------------------------------

/// The characters the families write as delimiters or structure: a pool
/// entry holding one would make the truth unknowable.
fn is_family_character(c: char) -> bool {
    matches!(
        c,
        '\u{2018}' | '\u{2019}' | '\u{201C}' | '\u{201D}' | '`' | '\u{FF00}'..='\u{FFEF}'
    )
}

/// A name and a test for a feature of a value string.
type Feature = (&'static str, fn(&str) -> bool);

/// The hard characters of a string's end, each held by some value string
/// of each split.
const FEATURES: &[Feature] = &[
    ("a comma", |s| s.contains(',')),
    ("a colon", |s| s.contains(':')),
    ("a URL", |s| s.contains("://")),
    ("a semicolon", |s| s.contains(';')),
    ("=", |s| s.contains('=')),
    ("a bracket or brace", |s| s.contains(['[', ']', '{', '}'])),
    ("#", |s| s.contains('#')),
    ("//", |s| s.contains("//")),
    ("an apostrophe", |s| s.contains('\'')),
    ("a double quote", |s| s.contains('"')),
    ("a backslash", |s| s.contains('\\')),
    ("a line break", |s| s.contains('\n')),
    ("a path", |s| s.contains('/') && s.contains('.')),
];

#[test]
fn pool_is_as_described() {
    for value in VALUES {
        assert!(
            !value.chars().any(is_family_character),
            "{value:?} holds a character a family writes"
        );
        assert!(!value.contains("\"\"\""), "{value:?}");
        assert!(
            !value.chars().any(|c| c.is_control() && c != '\n'),
            "{value:?}: only line breaks among control characters"
        );
    }
    for key in KEYS {
        let mut chars = key.chars();
        let head = chars.next().expect("no empty key");
        assert!(
            (head.is_ascii_alphabetic() || head == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_'),
            "{key:?} is not an identifier"
        );
        assert!(!["true", "false", "null"].contains(key), "{key:?}");
    }
    for (what, list) in [("keys", KEYS), ("values", VALUES)] {
        let mut seen = std::collections::BTreeSet::new();
        for item in list {
            assert!(seen.insert(item), "{what}: {item:?} twice");
        }
    }
    for note in NOTES {
        assert!(
            !note.contains('\n') && !note.contains("*/") && !note.contains("--"),
            "{note:?}"
        );
    }
    assert!(
        IDENTIFIERS
            .iter()
            .all(|i| i.chars().all(|c| c.is_ascii_lowercase()))
    );
    for split in [Split::Dev, Split::HeldOut] {
        let (keys, values) = Draw::sizes(split);
        // A flat object has up to six members.
        assert!(keys >= 12, "{}: {keys} keys", split.name());
        assert!(values >= 30, "{}: {values} values", split.name());
    }
    // Every hard character is in the pool, in both splits.
    for (name, has) in FEATURES {
        for (split, held_out) in [("dev", false), ("held-out", true)] {
            let n = (0..VALUES.len())
                .filter(|&i| (i % 3 == 2) == held_out && has(VALUES[i]))
                .count();
            assert!(n >= 1, "no {split} value string with {name}");
        }
    }
    assert!(VALUES.contains(&""), "no empty value string");
}

#[test]
fn generator_is_self_consistent() {
    let generated = generated();
    let cases = &generated.cases;
    assert_eq!(cases.len(), CASES_PER_FAMILY * Family::ALL.len());
    assert_eq!(generated.unbroken, 0, "drafts without a fault");
    for (i, case) in cases.iter().enumerate() {
        let label = case.label();
        assert_eq!(case.index, i, "{label}: numbered out of turn");
        // Written the right way, the case is valid JSON of the truth.
        let mended: Value = serde_json::from_str(&case.mended).unwrap_or_else(|e| {
            panic!("{label}: mended text does not parse: {e}\n{}", case.mended)
        });
        assert_eq!(mended, case.truth, "{label}: mended value\n{}", case.mended);
        assert!(
            serde_json::from_str::<Value>(&case.raw).is_err(),
            "{label}: the raw text parses\n{}",
            case.raw
        );
        assert_ne!(case.raw, case.mended, "{label}");
    }
    for family in Family::ALL {
        let mine: Vec<&Case> = cases.iter().filter(|c| c.family == family).collect();
        let name = family.name();
        let held = mine.iter().filter(|c| c.split == Split::HeldOut).count();
        assert_eq!(held, CASES_PER_FAMILY / 3, "{name}: held-out cases");
        for layout in Layout::ALL {
            let n = mine.iter().filter(|c| c.layout == layout).count();
            assert!(n >= CASES_PER_FAMILY / 6, "{name}: {n} {}", layout.name());
        }
        // The fault sits at every position over the run; a trailing comma
        // is always after the last member, and a missing end quote always
        // before a key.
        let positions: &[Position] = match family {
            Family::TrailingComma => &[Position::Last],
            Family::MissingEndQuote => &[Position::First, Position::Middle],
            _ => &[Position::First, Position::Middle, Position::Last],
        };
        for &position in positions {
            let n = mine.iter().filter(|c| c.position == position).count();
            assert!(n >= 5, "{name}: {n} cases at {}", position.name());
        }
        let several = mine
            .iter()
            .filter(|c| matches!(c.position, Position::Several | Position::Every))
            .count();
        assert!(several >= 10, "{name}: {several} cases at several sites");
        for container in [Container::Object, Container::Array] {
            let n = mine.iter().filter(|c| c.container == container).count();
            let none_expected = match family {
                Family::EmptyElements => container == Container::Object,
                Family::NumericKeys
                | Family::LiteralKeys
                | Family::BareKeys
                | Family::EqualsColon
                | Family::MissingEndQuote => container == Container::Array,
                _ => false,
            };
            if none_expected {
                continue;
            }
            assert!(n >= 10, "{name}: {n} cases in an {}", container.name());
        }
    }
}
