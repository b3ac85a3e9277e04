//! Issue 42: broken JSON that models really wrote, from the public issue
//! threads of repair libraries, with the value its reporter or a maintainer
//! expected. The data is other projects' and stays in the team's shared
//! folder (`../shared/real_failures/cases.jsonl`); this test reads it from
//! there and is skipped, saying so, when the folder is absent.
//!
//! Each case is repaired one shot and streamed in random chunks, and
//! counted right, wrong with a doubt, or wrong without one (the worst: a
//! caller cannot tell it from a right answer). The table prints with
//!
//! ```text
//! cargo test --release --test main real_failures -- --nocapture
//! ```

use std::collections::BTreeMap;
use std::fmt::Write as _;

use argmend::{Options, Outcome, Repairer};
use serde_json::Value;

use crate::rng::Rng;

/// At least this share right, one shot and streamed: the issue's target of
/// 90% (today 29 of 30, 96.7%, with the container and string sides of issue 42).
const RIGHT_FLOOR_PERCENT: f64 = 90.0;
/// Wrong answers without a doubt, at most: the issue's target.
const WRONG_WITHOUT_DOUBT_CEILING: usize = 0;

struct Case {
    id: String,
    kind: String,
    input: String,
    expected: Value,
}

fn cases() -> Option<Vec<Case>> {
    let dir = crate::shared::dir("real_failures", "the real broken JSON of issue 42")?;
    let text = std::fs::read_to_string(dir.join("cases.jsonl"))
        .unwrap_or_else(|e| panic!("{}: {e}", dir.join("cases.jsonl").display()));
    Some(
        text.lines()
            .filter(|line| !line.trim().is_empty())
            .map(|line| {
                let v: Value = serde_json::from_str(line).expect("a JSON line");
                let field = |name: &str| v[name].as_str().unwrap_or_default().to_owned();
                Case {
                    id: field("id"),
                    kind: field("kind"),
                    input: field("input"),
                    expected: v["expected"].clone(),
                }
            })
            .collect(),
    )
}

/// Right, and whether it carries a doubt; the text for the report.
fn judge(outcome: Result<Outcome<'_>, argmend::Error>, expected: &Value) -> (bool, bool, String) {
    match outcome {
        Ok(outcome) => (
            outcome.to_value().as_ref() == Some(expected),
            !outcome.doubts().is_empty(),
            outcome.text().to_owned(),
        ),
        Err(error) => (false, false, format!("error: {error}")),
    }
}

fn streamed(input: &[u8], seed: u64) -> Result<Outcome<'static>, argmend::Error> {
    let mut rng = Rng::new(seed);
    let mut repairer = Repairer::new(Options::default());
    let mut rest = input;
    while !rest.is_empty() {
        let n = (1 + rng.below(16)).min(rest.len());
        repairer.feed(&rest[..n])?;
        rest = &rest[n..];
    }
    repairer.finish()
}

#[derive(Default)]
struct Counts {
    cases: usize,
    right: [usize; 2],
    wrong_doubt: [usize; 2],
}

#[test]
fn real_failures() {
    let Some(cases) = cases() else {
        return;
    };
    let mut kinds: BTreeMap<String, Counts> = BTreeMap::new();
    let mut misses = String::new();
    for (k, case) in cases.iter().enumerate() {
        let answers = [
            judge(Ok(argmend::repair(case.input.as_bytes())), &case.expected),
            judge(streamed(case.input.as_bytes(), k as u64), &case.expected),
        ];
        for key in ["all".to_owned(), case.kind.clone()] {
            let c = kinds.entry(key).or_default();
            c.cases += 1;
            for (m, (right, doubt, _)) in answers.iter().enumerate() {
                c.right[m] += usize::from(*right);
                c.wrong_doubt[m] += usize::from(!right && *doubt);
            }
        }
        if let Some((_, doubt, text)) = answers.iter().find(|a| !a.0) {
            let _ = writeln!(
                misses,
                "  {} ({}){}\n    got:      {}\n    expected: {}",
                case.id,
                case.kind,
                if *doubt {
                    ", with a doubt"
                } else {
                    ", no doubt"
                },
                text.chars().take(240).collect::<String>(),
                case.expected
                    .to_string()
                    .chars()
                    .take(240)
                    .collect::<String>(),
            );
        }
    }
    println!(
        "real failures (issue 42): {} cases from the trackers of repair libraries",
        cases.len()
    );
    println!(
        "  {:<18} {:>5}   {:>14}   {:>14}   {:>14}",
        "kind", "cases", "right", "wrong+doubt", "wrong-doubt"
    );
    println!(
        "  {:<18} {:>5}   {:>6} {:>7}   {:>6} {:>7}   {:>6} {:>7}",
        "", "", "one", "stream", "one", "stream", "one", "stream"
    );
    for (kind, c) in &kinds {
        let wrong = |m: usize| c.cases - c.right[m] - c.wrong_doubt[m];
        println!(
            "  {kind:<18} {:>5}   {:>6} {:>7}   {:>6} {:>7}   {:>6} {:>7}",
            c.cases,
            c.right[0],
            c.right[1],
            c.wrong_doubt[0],
            c.wrong_doubt[1],
            wrong(0),
            wrong(1)
        );
    }
    println!("misses:\n{misses}");
    let all = &kinds["all"];
    for m in 0..2 {
        let percent = 100.0 * all.right[m] as f64 / all.cases as f64;
        assert!(percent >= RIGHT_FLOOR_PERCENT, "{percent:.1}% right");
        let silent = all.cases - all.right[m] - all.wrong_doubt[m];
        // A ceiling that is 0 today, kept a ceiling should it ever rise.
        #[allow(clippy::absurd_extreme_comparisons)]
        let within = silent <= WRONG_WITHOUT_DOUBT_CEILING;
        assert!(within, "{silent} wrong answers without a doubt");
    }
}
