//! Issue 42: broken structure as models really write it. A generator of
//! structural damage (closers swapped, doubled or short; a missing opener;
//! a restarted object; an echoed key; stray fragments; members glued to the
//! value before them; a closer inside a string at the end; prose markers
//! before a fence; doubled braces; an object opened twice or as an array;
//! Markdown escapes; prose lines inside the braces; JSON escaped twice; a
//! refusal), each family drawn from what the real cases in
//! `../shared/real_failures/` and the issue threads of agent frameworks
//! show, with the truth known (`structure/families.rs` says how).
//!
//! Each case is repaired one shot and streamed in random chunks (1 to 16
//! bytes, seeded), and scored right when the repaired text parses to the
//! truth (a refusal: when the verdict is not JSON). For each answer the
//! scorer notes whether it carries a doubt: a wrong answer without one is
//! the worst, and a right answer with one costs the caller a retry.
//!
//! The table prints with
//!
//! ```text
//! cargo test --release --test main structure -- --nocapture
//! ```
//!
//! and every failure is written to `target/structure-failures.txt`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::OnceLock;

use argmend::{Options, Outcome, Repairer, Verdict};
use serde_json::Value;

mod families;
mod keys;
mod markers;
mod pool;
mod tokens;

use families::{Draft, Family, Skip, draft};
use tokens::Layout;

use crate::rng::Rng;

/// How many cases each family has.
const CASES_PER_FAMILY: usize = 300;
/// The seed of the cases: every run scores the same cases.
const SEED: u64 = 0x0042_5742_0C70_5E00;
/// The lowest acceptable rate of right answers in every family, one shot
/// and streamed: the issue's target.
const FAMILY_FLOOR_PERCENT: f64 = 97.0;
/// The highest acceptable share of right answers that carry a doubt, in
/// every family (the issue's target is 2%).
const DOUBT_CEILING_PERCENT: f64 = 2.0;
/// How many failures of each family are printed.
const PRINTED_FAILURES: usize = 2;

struct Case {
    index: usize,
    family: Family,
    layout: Layout,
    raw: String,
    truth: Option<Value>,
}

struct Generated {
    cases: Vec<Case>,
    /// Drafts whose damage did not show at its site.
    hidden: usize,
}

fn generated() -> &'static Generated {
    static CASES: OnceLock<Generated> = OnceLock::new();
    CASES.get_or_init(|| {
        let mut rng = Rng::new(SEED);
        let mut cases = Vec::new();
        let mut hidden = 0;
        for family in Family::ALL {
            let mut made = 0;
            let mut tries = 0;
            while made < CASES_PER_FAMILY && tries < CASES_PER_FAMILY * 50 {
                tries += 1;
                let layout = *rng.pick(&Layout::ALL);
                match draft(family, &mut rng, layout) {
                    Ok(Draft { raw, truth }) => {
                        if truth.as_ref().is_some_and(|t| parses_as(&raw, t)) {
                            // Damage that left valid JSON of the truth is none.
                            continue;
                        }
                        cases.push(Case {
                            index: cases.len(),
                            family,
                            layout,
                            raw,
                            truth,
                        });
                        made += 1;
                    }
                    Err(Skip::Hidden) => hidden += 1,
                    Err(Skip::NoSite) => {}
                }
            }
        }
        Generated { cases, hidden }
    })
}

fn parses_as(raw: &str, truth: &Value) -> bool {
    serde_json::from_str::<Value>(raw).is_ok_and(|v| &v == truth)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    OneShot,
    Chunked,
}

impl Mode {
    const ALL: [Mode; 2] = [Mode::OneShot, Mode::Chunked];
}

struct Answer {
    right: bool,
    doubt: bool,
    verdict: Option<Verdict>,
    text: String,
}

impl Answer {
    fn of(outcome: Result<Outcome<'_>, argmend::Error>, truth: Option<&Value>) -> Answer {
        match outcome {
            Ok(outcome) => Answer {
                right: match truth {
                    Some(truth) => outcome.to_value().as_ref() == Some(truth),
                    None => outcome.verdict() == Verdict::NotJson,
                },
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
}

fn answer(case: &Case, mode: Mode) -> Answer {
    let raw = case.raw.as_bytes();
    let truth = case.truth.as_ref();
    match mode {
        Mode::OneShot => Answer::of(Ok(argmend::repair(raw)), truth),
        Mode::Chunked => {
            let mut rng = Rng::new(SEED ^ case.index as u64);
            let mut repairer = Repairer::new(Options::default());
            let mut rest = raw;
            let mut fed = Ok(());
            while !rest.is_empty() && fed.is_ok() {
                let n = (1 + rng.below(16)).min(rest.len());
                fed = repairer.feed(&rest[..n]).map(drop);
                rest = &rest[n..];
            }
            Answer::of(fed.and_then(|()| repairer.finish()), truth)
        }
    }
}

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

/// Per mode: cases, right, right with a doubt, wrong with a doubt.
#[derive(Debug, Clone, Copy, Default)]
struct Tally {
    cases: usize,
    right: [usize; 2],
    right_doubt: [usize; 2],
    wrong_doubt: [usize; 2],
}

impl Tally {
    fn add(&mut self, answers: &[Answer; 2]) {
        self.cases += 1;
        for (m, a) in answers.iter().enumerate() {
            self.right[m] += usize::from(a.right);
            self.right_doubt[m] += usize::from(a.right && a.doubt);
            self.wrong_doubt[m] += usize::from(!a.right && a.doubt);
        }
    }

    fn percent(part: usize, whole: usize) -> f64 {
        if whole == 0 {
            return 0.0;
        }
        100.0 * part as f64 / whole as f64
    }

    fn right_percent(&self, m: usize) -> f64 {
        if self.cases == 0 {
            return 100.0;
        }
        Self::percent(self.right[m], self.cases)
    }

    fn doubt_percent(&self, m: usize) -> f64 {
        Self::percent(self.right_doubt[m], self.right[m])
    }

    fn row(&self, name: &str) -> String {
        let wrong = |m: usize| self.cases - self.right[m];
        format!(
            "  {name:<26} {:>5} {:>7.1}% {:>7.1}%   {:>4} {:>4}   {:>4} {:>4}   {:>4} {:>4}",
            self.cases,
            self.right_percent(0),
            self.right_percent(1),
            self.right_doubt[0],
            self.right_doubt[1],
            self.wrong_doubt[0],
            self.wrong_doubt[1],
            wrong(0) - self.wrong_doubt[0],
            wrong(1) - self.wrong_doubt[1],
        )
    }
}

fn tallies() -> BTreeMap<(usize, &'static str), Tally> {
    let mut rows: BTreeMap<(usize, &'static str), Tally> = BTreeMap::new();
    for (case, answers) in generated().cases.iter().zip(scored()) {
        rows.entry((0, "all")).or_default().add(answers);
        rows.entry((1 + case.family as usize, case.family.name()))
            .or_default()
            .add(answers);
        rows.entry((100 + case.layout as usize, case.layout.name()))
            .or_default()
            .add(answers);
    }
    rows
}

fn report() -> String {
    let generated = generated();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "structural damage (issue 42): {} cases, {} families, {} drafts dropped (damage hidden past its site)",
        generated.cases.len(),
        Family::ALL.len(),
        generated.hidden,
    );
    let _ = writeln!(
        out,
        "  {:<26} {:>5} {:>8} {:>8}   {:>9}   {:>9}   {:>9}",
        "", "cases", "one shot", "chunked", "right+dbt", "wrong+dbt", "wrong-dbt"
    );
    for ((_, name), tally) in tallies() {
        let _ = writeln!(out, "{}", tally.row(name));
    }
    let mut printed: BTreeMap<Family, usize> = BTreeMap::new();
    let mut failures = String::new();
    for (case, answers) in generated.cases.iter().zip(scored()) {
        for (m, a) in answers.iter().enumerate() {
            if a.right {
                continue;
            }
            let verdict = a.verdict.map_or("error", Verdict::name);
            let text = format!(
                "=== case {} ({}, {}, {}) · verdict {verdict}{}\n--- raw\n{}\n--- expected\n{}\n--- actual\n{}\n\n",
                case.index,
                case.family.name(),
                case.layout.name(),
                if m == 0 { "one shot" } else { "chunked" },
                if a.doubt { ", with a doubt" } else { "" },
                case.raw,
                case.truth
                    .as_ref()
                    .map_or("(not JSON)".to_owned(), Value::to_string),
                a.text,
            );
            failures.push_str(&text);
            let n = printed.entry(case.family).or_default();
            if *n < PRINTED_FAILURES {
                *n += 1;
                out.push_str(&text);
            }
            break;
        }
    }
    let path = crate::beside_strings::target_dir().join("structure-failures.txt");
    if std::fs::write(&path, &failures).is_ok() {
        let _ = writeln!(out, "all failures written to {}", path.display());
    }
    out
}

#[test]
fn generator_is_self_consistent() {
    // Every family makes its cases, and a case is never valid JSON of its truth.
    let generated = generated();
    for family in Family::ALL {
        let n = generated
            .cases
            .iter()
            .filter(|c| c.family == family)
            .count();
        assert_eq!(n, CASES_PER_FAMILY, "{} made {n} cases", family.name());
    }
    for case in &generated.cases {
        if let Some(truth) = &case.truth {
            assert!(
                !parses_as(&case.raw, truth),
                "case {} is not damaged",
                case.index
            );
        }
    }
}

#[test]
fn scores() {
    println!("{}", report());
    // The families' rows (the whole and the layouts mix families).
    for ((row, name), tally) in tallies() {
        if row == 0 || row >= 100 {
            continue;
        }
        for m in 0..2 {
            let floor = FAMILY_FLOOR_PERCENT;
            assert!(
                tally.right_percent(m) >= floor,
                "{name}: {:.1}% right, below the floor of {floor}%",
                tally.right_percent(m)
            );
            assert!(
                tally.doubt_percent(m) <= DOUBT_CEILING_PERCENT,
                "{name}: {:.1}% of the right answers carry a doubt",
                tally.doubt_percent(m)
            );
        }
    }
}
