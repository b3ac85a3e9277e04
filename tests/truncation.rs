//! Real tool calls cut off at every byte (issue 11: truncation is data).
//!
//! For every prefix of a few valid calls, one-shot `repair(prefix)` and the
//! snapshot after feeding the prefix one byte at a time must:
//! - agree (the snapshot is what `finish` would give, by value);
//! - be a *prefix* of the truth: every string a prefix of the true string
//!   (spaces, `/`, `,`, `}` included), every number a prefix of the true
//!   number's text, every literal the true literal, keys only those of the
//!   truth, at most one member cut (the last), nothing invented except a
//!   `null` for a member whose value has not started;
//! - be reported `Completed` (or `Valid` for the whole call): closing a
//!   truncation is never a "repair".

use argmend::{Options, Repairer, Verdict};
use serde_json::Value;

/// Calls as models send them: code with escaped quotes and backslashes,
/// nested arguments, numbers, literals, non-ASCII text.
const CALLS: [&str; 4] = [
    r#"{"path": "src/app/main.py", "content": "def greet(name):\n    print(f\"hello, {name}!\")\n    return {'ok': True, \"path\": \"C:\\\\tmp\"}\n"}"#,
    r#"{"command": "str_replace", "path": "lib/x.go", "old_str": "fmt.Println(\"a, b\")", "new_str": "fmt.Printf(\"%s: %d\\n\", k, v)"}"#,
    r#"{"query": "caf\u00e9 near Z\u00fcrich", "filters": {"open_now": true, "rating": -42.5, "tags": ["vegan", null, false]}, "limit": 10}"#,
    "{\"text\": \"Grüße — 世界 🎉, \\\"quoted\\\" and / slashes }\", \"n\": 12345}",
];

#[test]
fn every_prefix_of_a_real_call_is_a_prefix_of_its_truth() {
    let mut failures = Vec::new();
    for call in CALLS {
        let truth: Value = serde_json::from_str(call).expect("the calls are valid JSON");
        let bytes = call.as_bytes();
        let mut repairer = Repairer::new(Options::default());
        for cut in 1..=bytes.len() {
            repairer
                .feed(&bytes[cut - 1..cut])
                .expect("default limits are not crossed");
            let prefix = &bytes[..cut];
            let outcome = argmend::repair(prefix);
            let shown = repairer.snapshot().to_string();
            let why = check(&truth, &outcome, &shown, cut == bytes.len());
            if let Err(why) = why {
                failures.push(format!(
                    "{:?}\n  one-shot: {:?} ({})\n  snapshot: {shown:?}\n  {why}",
                    String::from_utf8_lossy(prefix),
                    outcome.text(),
                    outcome.verdict()
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} prefix(es) fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn check(
    truth: &Value,
    outcome: &argmend::Outcome<'_>,
    shown: &str,
    whole: bool,
) -> Result<(), String> {
    let expected_verdict = if whole {
        Verdict::Valid
    } else {
        Verdict::Completed
    };
    if outcome.verdict() != expected_verdict && outcome.verdict() != Verdict::NotJson {
        return Err(format!("verdict {}", outcome.verdict()));
    }
    let Some(value) = outcome.to_value() else {
        // Nothing yet (a lone `{` is `{}`, so this is only the empty input).
        return if shown.is_empty() {
            Ok(())
        } else {
            Err("no value, but a snapshot".to_owned())
        };
    };
    let snapshot: Value = serde_json::from_str(shown).map_err(|e| format!("snapshot: {e}"))?;
    if snapshot != value {
        return Err("the snapshot is not what finish gives".to_owned());
    }
    prefix_of(&value, truth, true)
}

/// Whether `got` is what a cut-off `truth` may show; `last` says whether it
/// is the last (possibly cut) item of its container.
fn prefix_of(got: &Value, truth: &Value, last: bool) -> Result<(), String> {
    match (got, truth) {
        (Value::Object(g), Value::Object(t)) => {
            // (serde_json sorts keys, so the order is not checked here;
            // the snapshot tests check the text.)
            let mut cut_members = 0;
            for (key, value) in g {
                let Some(true_value) = t.get(key) else {
                    return Err(format!("key {key:?} is not in the truth"));
                };
                if value == true_value {
                    continue;
                }
                cut_members += 1;
                if !last || cut_members > 1 {
                    return Err(format!("member {key:?} is cut, and it is not the last"));
                }
                if !value.is_null() {
                    prefix_of(value, true_value, true)?;
                }
            }
            if !last && g.len() != t.len() {
                return Err("a complete object lost members".to_owned());
            }
            Ok(())
        }
        (Value::Array(g), Value::Array(t)) => {
            if g.len() > t.len() || (!last && g.len() != t.len()) {
                return Err(format!("{} elements of {}", g.len(), t.len()));
            }
            for (n, item) in g.iter().enumerate() {
                prefix_of(item, &t[n], last && n + 1 == g.len())?;
            }
            Ok(())
        }
        (Value::String(g), Value::String(t)) if t.starts_with(g.as_str()) && (last || g == t) => {
            Ok(())
        }
        (Value::Number(g), Value::Number(t)) => {
            let (g, t) = (g.to_string(), t.to_string());
            if g == t || (last && t.starts_with(&g)) {
                Ok(())
            } else {
                Err(format!("number {g} for {t}"))
            }
        }
        (g, t) if g == t => Ok(()),
        (g, t) => Err(format!("{g} for {t}")),
    }
}
