//! The table `scores` prints, the failures file and the cases file.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use argmend::Verdict;
use serde_json::{Value, json};

use super::build::{Call, Newlines};
use super::sources::Family;
use super::{
    Mode, PRINTED_FAILURES, PRINTED_OTHER_FAILURES, Reply, Scored, byte_for_byte, keeps_text,
    percent,
};
/// Calls and right answers per mode.
#[derive(Debug, Clone, Copy, Default)]
struct Tally {
    calls: usize,
    right: [usize; 2],
}

/// Wrong answers per verdict.
#[derive(Debug, Clone, Copy, Default)]
struct Wrong {
    repaired: usize,
    completed: usize,
    valid: usize,
    not_json: usize,
    /// A verdict added after this file was written (`Verdict` is non-exhaustive).
    other: usize,
}

impl Wrong {
    fn count(&mut self, verdict: Verdict) {
        match verdict {
            Verdict::Repaired => self.repaired += 1,
            Verdict::Completed => self.completed += 1,
            Verdict::Valid => self.valid += 1,
            Verdict::NotJson => self.not_json += 1,
            _ => self.other += 1,
        }
    }
}

const GROUPS: [&str; 10] = [
    "",
    "source kind",
    "other, by kind",
    "tool",
    "newlines",
    "layout",
    "position of the first code field",
    "what is wrong",
    "shell command",
    "curly quote in a code field",
];

/// The rows of the table: a group, an order inside it and a name.
type Rows = BTreeMap<(usize, usize, &'static str), Tally>;

fn row_keys(call: &Call) -> Vec<(usize, usize, &'static str)> {
    let family = call.kind().family();
    let wrong = match (call.has_raw_quote(), call.has_raw_newline()) {
        (false, false) => (0, "nothing (parses as is)"),
        (true, false) => (1, "quotes"),
        (false, true) => (2, "raw newlines"),
        (true, true) => (3, "quotes and raw newlines"),
    };
    let mut keys = vec![
        (0, 0, "all"),
        (1, family as usize, family.name()),
        (3, call.tool as usize, call.tool.name()),
        (4, call.newlines as usize, call.newlines.name()),
        (5, call.layout as usize, call.layout.name()),
        (6, call.position as usize, call.position.name()),
        (7, wrong.0, wrong.1),
    ];
    if family == Family::Other {
        keys.push((2, call.kind() as usize, call.kind().name()));
    }
    if let Some(form) = call.form {
        keys.push((8, form as usize, form.name()));
    }
    let curly = call.has_curly_quote();
    keys.push((9, curly as usize, if curly { "yes" } else { "no" }));
    keys
}

pub(super) fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"))
}

fn failure_block(label: &str, mode: Mode, raw: &str, expected: &Value, reply: &Reply) -> String {
    format!(
        "=== {label} · mode {} · verdict {}\n--- raw\n{raw}\n--- expected\n{}\n--- actual\n{}\n\n",
        mode.name(),
        reply.verdict.name(),
        serde_json::to_string(expected).expect("a Value serialises"),
        reply.text,
    )
}

/// Every broken call as JSON Lines, so peers can be scored on the same calls.
fn write_cases(calls: &[Call]) {
    let mut out = String::new();
    for call in calls {
        let line = json!({
            "tool": call.tool.name(),
            "source": call.kind().name(),
            "file": call.excerpt.place(),
            "newlines": match call.newlines {
                Newlines::Escaped => "escaped",
                Newlines::Raw => "raw",
            },
            "layout": call.layout.name(),
            "raw": call.raw,
            "truth": call.truth,
        });
        out.push_str(&line.to_string());
        out.push('\n');
    }
    let path = target_dir().join("real-calls-cases.jsonl");
    match fs::write(&path, out) {
        Ok(()) => println!("every broken call written to {}", path.display()),
        Err(error) => println!("could not write {}: {error}", path.display()),
    }
}

/// Print the table and the first failures; write every failure and every
/// broken call under the target dir.
pub(super) fn print_and_write(scored: &Scored) {
    let calls = &scored.generated.calls;
    let mut rows = Rows::new();
    let mut wrong = [Wrong::default(); 2];
    // Per mode: wrong answers with a doubt, right answers with one.
    let mut doubts = [(0, 0); 2];
    let mut failures = String::new();
    let mut printed: [Vec<String>; 2] = [Vec::new(), Vec::new()];
    for (call, replies) in calls.iter().zip(&scored.broken) {
        let right = replies
            .each_ref()
            .map(|r| r.value.as_ref() == Some(&call.truth));
        for key in row_keys(call) {
            let tally = rows.entry(key).or_default();
            tally.calls += 1;
            for (count, right) in tally.right.iter_mut().zip(right) {
                *count += right as usize;
            }
        }
        for (m, reply) in replies.iter().enumerate() {
            if reply.doubts == Some(true) {
                match right[m] {
                    false => doubts[m].0 += 1,
                    true => doubts[m].1 += 1,
                }
            }
            if right[m] {
                continue;
            }
            wrong[m].count(reply.verdict);
            let block = failure_block(&call.label(), Mode::ALL[m], &call.raw, &call.truth, reply);
            failures.push_str(&block);
            if printed[m].len() < PRINTED_FAILURES {
                printed[m].push(block);
            }
        }
    }

    println!(
        "\nreal calls (issue 25): {} broken calls ({} ambiguous ones dropped), {} truncated, {} valid",
        calls.len(),
        scored.generated.ambiguous.len(),
        scored.truncated.len(),
        scored.valid.len(),
    );
    for line in &scored.origin {
        println!("{line}");
    }
    println!("{:<36} {:>6} {:>8} {:>8}", "", "calls", "plain", "schema");
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
            "{name:<36} {:>6} {:>7.1}% {:>7.1}%",
            tally.calls,
            percent(tally.right[0], tally.calls),
            percent(tally.right[1], tally.calls),
        );
    }
    println!("wrong answers by verdict:");
    for (m, mode) in Mode::ALL.iter().enumerate() {
        let w = wrong[m];
        println!(
            "  {:<7} repaired {} (the worst: wrong but looks fine)  not_json {}  valid {}  completed {}  other {}",
            mode.name(),
            w.repaired,
            w.not_json,
            w.valid,
            w.completed,
            w.other,
        );
    }
    let n_wrong = calls.len() - scored.broken_right(0);
    let n_right = scored.broken_right(0);
    println!(
        "doubts (plain; schema mode's Normalized carries none): {} of {n_wrong} wrong answers have one ({:.1}%), {} of {n_right} right answers ({:.1}%)",
        doubts[0].0,
        percent(doubts[0].0, n_wrong),
        doubts[0].1,
        percent(doubts[0].1, n_right),
    );
    let n = scored.truncated.len();
    println!(
        "truncated calls: {n}; keeps its text: plain {:.1}%, schema {:.1}%; every character read: plain {:.1}%, schema {:.1}%",
        percent(scored.truncated_kept(0), n),
        percent(scored.truncated_kept(1), n),
        percent(scored.truncated_exact(0), n),
        percent(scored.truncated_exact(1), n),
    );
    let n = scored.valid.len();
    let typographic: Vec<&str> = scored
        .valid
        .iter()
        .filter(|(v, _)| v.call.has_curly_quote())
        .map(|(v, _)| v.call.excerpt.file.as_str())
        .collect();
    let typographic_files = typographic
        .iter()
        .collect::<std::collections::BTreeSet<_>>();
    println!(
        "valid calls: {n} ({} with a typographic quote in a code field, from {} files); byte for byte with verdict valid: plain {:.1}%, schema {:.1}%",
        typographic.len(),
        typographic_files.len(),
        percent(scored.valid_byte_for_byte(0), n),
        percent(scored.valid_byte_for_byte(1), n),
    );

    let mut printed_other = Vec::new();
    for (t, replies) in &scored.truncated {
        for (m, reply) in replies.iter().enumerate() {
            if let Err(why) = keeps_text(t, reply.value.as_ref()) {
                let key = t.call.fields[t.cut_field].key;
                let label = format!("truncated {}, cut in {key:?} ({why})", t.call.label());
                let block = failure_block(&label, Mode::ALL[m], &t.prefix, &t.truth(), reply);
                failures.push_str(&block);
                if printed_other.len() < PRINTED_OTHER_FAILURES {
                    printed_other.push(block);
                }
            }
        }
    }
    let mut printed_valid = Vec::new();
    for (v, replies) in &scored.valid {
        for (m, reply) in replies.iter().enumerate() {
            if !byte_for_byte(v, reply) {
                let label = format!("valid {} written by {}", v.call.label(), v.how);
                let block = failure_block(&label, Mode::ALL[m], &v.text, &v.call.truth, reply);
                failures.push_str(&block);
                if printed_valid.len() < PRINTED_OTHER_FAILURES {
                    printed_valid.push(block);
                }
            }
        }
    }
    for (what, blocks) in [
        ("broken calls, mode plain", &printed[0]),
        ("broken calls, mode schema", &printed[1]),
        ("truncated calls", &printed_other),
        ("valid calls", &printed_valid),
    ] {
        println!("first {} failures of the {what}:", blocks.len());
        for block in blocks {
            print!("{block}");
        }
    }
    write_cases(calls);
    let path = target_dir().join("real-calls-failures.txt");
    match fs::write(&path, &failures) {
        Ok(()) => println!("every failure written to {}", path.display()),
        Err(error) => println!("could not write {}: {error}", path.display()),
    }
}
