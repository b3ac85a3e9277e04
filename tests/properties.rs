//! Property tests of the guarantees in the crate docs:
//!
//! - (a) valid JSON, in any layout, comes back byte for byte, `Valid`, no fixes;
//! - (b) malformed JSON (valid JSON with random corruptions) comes back as JSON
//!   unless the verdict is `NotJson`;
//! - (c) every way of cutting the input into chunks gives the one-shot outcome;
//! - (d) committed output only grows: what `feed` returned is a prefix of the
//!   final text, and with `Retain::Unreturned` it plus `finish` is the text;
//! - (e) after every chunk the snapshot is empty or parses, and starts with
//!   everything committed so far;
//! - (f) on valid JSON, the bytes read but not committed never exceed the
//!   quote window (4 KiB) plus one chunk, and are a few bytes at the median:
//!   string text commits as it arrives.
//!
//! Failures are not persisted to a regressions file; a counterexample found
//! here belongs in `regressions` below once it has been reported.

use argmend::{Doubt, Fix, Options, Repairer, Retain, Verdict};
use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;
use serde_json::Value;

/// 512 cases per property (the file runs in about two seconds in debug);
/// `PROPTEST_CASES=n` asks for more when hunting.
pub(crate) fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(512);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

// ---------------------------------------------------------------------------
// Generators

/// String contents that stress the lexer: quotes, backslashes, comment and
/// fence markers, closers, control characters and non-ASCII.
fn tricky_string() -> impl Strategy<Value = String> {
    let pieces = prop_oneof![
        3 => "[a-zA-Z0-9 ]{1,6}",
        1 => prop::sample::select(vec![
            "\"", "\\", "'", "`", "//", "/*", "*/", "#", "```", ",", ":", "]", "}", "[", "{",
            "\n", "\t", "\r", "\u{0}", "\u{1f}", "\u{7f}", "é", "😀", "统", "\u{2028}",
            "\u{a0}", "\u{201c}", "\u{2019}", "True", "null", "...", "\\n", "\\u00e9", "(", ")",
        ])
        .prop_map(str::to_owned),
    ];
    prop::collection::vec(pieces, 0..6).prop_map(|pieces| pieces.concat())
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![3 => "[a-zA-Z_][a-zA-Z0-9_]{0,7}", 1 => tricky_string()]
}

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1000i32..1000).prop_map(Value::from),
        any::<f64>()
            .prop_filter_map("finite", serde_json::Number::from_f64)
            .prop_map(Value::Number),
        (-1.0e3f64..1.0e3)
            .prop_filter_map("finite", serde_json::Number::from_f64)
            .prop_map(Value::Number),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number(),
        tricky_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 40, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..6)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

/// A small deterministic generator, so one `u64` from proptest drives every
/// layout and corruption choice of a rendering.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed ^ 0x9e37_79b9_7f4a_7c15)
    }

    fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with probability 1 / `n`.
    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    fn pick<'a>(&mut self, options: &[&'a str]) -> &'a str {
        options[self.below(options.len())]
    }
}

/// Corruptions a malformed rendering may apply (bits of a mask).
mod corrupt {
    pub(super) const SINGLE_QUOTES: u16 = 1 << 0;
    pub(super) const UNQUOTED_KEYS: u16 = 1 << 1;
    pub(super) const TRAILING_COMMAS: u16 = 1 << 2;
    pub(super) const MISSING_COMMAS: u16 = 1 << 3;
    pub(super) const COMMENTS: u16 = 1 << 4;
    pub(super) const TRUNCATE: u16 = 1 << 5;
    pub(super) const FENCE: u16 = 1 << 6;
    pub(super) const PROSE_BEFORE: u16 = 1 << 7;
    pub(super) const PROSE_AFTER: u16 = 1 << 8;
    pub(super) const ALL: u16 = (1 << 9) - 1;
}

/// Renders a value token by token with random whitespace and, if `mask` is
/// not zero, random corruptions.
struct Renderer {
    rng: Rng,
    mask: u16,
    out: String,
}

impl Renderer {
    fn on(&self, corruption: u16) -> bool {
        self.mask & corruption != 0
    }

    fn space(&mut self) {
        if self.on(corrupt::COMMENTS) && self.rng.one_in(6) {
            let comment = self
                .rng
                .pick(&[" // note\n", "/* c */", " # hash\n", "/**/"]);
            self.out.push_str(comment);
            return;
        }
        let space = self.rng.pick(&[
            "", "", "", " ", "\n", "  ", "\t", "\r\n", "\n    ", " \n\t ",
        ]);
        self.out.push_str(space);
    }

    fn string(&mut self, text: &str, is_key: bool) {
        let quoted = serde_json::to_string(text).expect("a string serialises");
        let simple = !text.is_empty()
            && text
                .bytes()
                .next()
                .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
            && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if is_key && simple && self.on(corrupt::UNQUOTED_KEYS) && self.rng.one_in(2) {
            self.out.push_str(text);
        } else if !quoted.contains('\'') && self.on(corrupt::SINGLE_QUOTES) && self.rng.one_in(2) {
            self.out.push('\'');
            self.out.push_str(&quoted[1..quoted.len() - 1]);
            self.out.push('\'');
        } else {
            self.out.push_str(&quoted);
        }
    }

    fn separator(&mut self) {
        if !(self.on(corrupt::MISSING_COMMAS) && self.rng.one_in(3)) {
            self.out.push(',');
        } else {
            // A missing comma needs something between the two values for
            // the result to mean two values, as a model would write it.
            self.out.push(' ');
        }
    }

    fn trailing_comma(&mut self) {
        if self.on(corrupt::TRAILING_COMMAS) && self.rng.one_in(2) {
            self.out.push(',');
            self.space();
        }
    }

    fn value(&mut self, value: &Value) {
        match value {
            Value::String(text) => self.string(text, false),
            Value::Array(items) => {
                self.out.push('[');
                self.space();
                for (n, item) in items.iter().enumerate() {
                    if n > 0 {
                        self.separator();
                        self.space();
                    }
                    self.value(item);
                    self.space();
                }
                if !items.is_empty() {
                    self.trailing_comma();
                }
                self.out.push(']');
            }
            Value::Object(members) => {
                self.out.push('{');
                self.space();
                for (n, (key, item)) in members.iter().enumerate() {
                    if n > 0 {
                        self.separator();
                        self.space();
                    }
                    self.string(key, true);
                    self.space();
                    self.out.push(':');
                    self.space();
                    self.value(item);
                    self.space();
                }
                if !members.is_empty() {
                    self.trailing_comma();
                }
                self.out.push('}');
            }
            scalar => self.out.push_str(&scalar.to_string()),
        }
    }
}

/// `value` as valid JSON, in one of several layouts.
fn render_valid(value: &Value, layout: u8, seed: u64) -> String {
    match layout % 4 {
        0 => serde_json::to_string(value).expect("serialises"),
        1 => serde_json::to_string_pretty(value).expect("serialises"),
        2 => format!(
            " \n{}\n",
            serde_json::to_string_pretty(value).expect("serialises")
        ),
        _ => {
            let mut renderer = Renderer {
                rng: Rng::new(seed),
                mask: 0,
                out: String::new(),
            };
            renderer.space();
            renderer.value(value);
            renderer.space();
            renderer.out
        }
    }
}

/// `value` rendered with the corruptions in `mask`, then maybe fenced,
/// wrapped in prose and truncated.
fn render_malformed(value: &Value, mask: u16, seed: u64) -> Vec<u8> {
    let mut renderer = Renderer {
        rng: Rng::new(seed),
        mask,
        out: String::new(),
    };
    renderer.value(value);
    let mut rng = renderer.rng;
    let mut text = renderer.out;
    if mask & corrupt::FENCE != 0 {
        let open = rng.pick(&["```json\n", "```\n", "```JSON\n"]);
        text = format!("{open}{text}\n```");
    }
    if mask & corrupt::PROSE_BEFORE != 0 {
        let prose = rng.pick(&[
            "Here is the JSON: ",
            "Sure!\n",
            "I'll call the tool now.\n\n",
        ]);
        text = format!("{prose}{text}");
    }
    if mask & corrupt::PROSE_AFTER != 0 {
        let prose = rng.pick(&[" Let me know!", "\nDone.", "\n\nHope this helps."]);
        text.push_str(prose);
    }
    let mut bytes = text.into_bytes();
    if mask & corrupt::TRUNCATE != 0 && !bytes.is_empty() {
        let cut = rng.below(bytes.len() + 1);
        bytes.truncate(cut);
    }
    bytes
}

/// Valid JSON whose keys and strings may be long (up to a few hundred bytes,
/// past the engine's key limit) and hold every kind of delimiter.
fn long_valid_json() -> impl Strategy<Value = String> {
    let text = || {
        prop_oneof![
            3 => tricky_string(),
            1 => prop::collection::vec(tricky_string(), 20..60).prop_map(|parts| parts.concat()),
        ]
    };
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number(),
        text().prop_map(Value::String),
    ];
    let value = leaf.prop_recursive(3, 24, 5, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((text(), inner), 0..5)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    });
    (value, any::<u8>(), any::<u64>())
        .prop_map(|(value, layout, seed)| render_valid(&value, layout, seed))
}

pub(crate) fn valid_json() -> impl Strategy<Value = String> {
    (json_value(), any::<u8>(), any::<u64>())
        .prop_map(|(value, layout, seed)| render_valid(&value, layout, seed))
}

pub(crate) fn malformed_json() -> impl Strategy<Value = Vec<u8>> {
    (json_value(), 1..=corrupt::ALL, any::<u64>())
        .prop_map(|(value, mask, seed)| render_malformed(&value, mask, seed))
}

/// Short runs of JSON-ish fragments, valid UTF-8 or not.
fn jsonish_bytes() -> impl Strategy<Value = Vec<u8>> {
    let fragments: Vec<&'static [u8]> = vec![
        b"{",
        b"}",
        b"[",
        b"]",
        b"\"",
        b"'",
        b":",
        b",",
        b" ",
        b"\n",
        b"1",
        b"-",
        b".",
        b"e",
        b"0",
        b"a",
        b"key",
        b"true",
        b"nul",
        b"None",
        b"/",
        b"*",
        b"#",
        b"\\",
        b"u",
        b"\\u00",
        b"```",
        b"json",
        b"(",
        b")",
        b"...",
        b"+",
        b"`",
        b"\xc3",
        b"\xa9",
        b"\xff",
        b"\xe2\x80\x9c",
        b"\xe2\x80\x9d",
        b"NaN",
        b"x",
        b"\t",
        b"cb(",
        b");",
        b"NumberLong(",
        b"=",
        b"<",
        b">",
        b"\r",
        b"+ ",
        b"/re/",
        b"_",
        b"\xef\xbc\x82",
        // The readings of issue 42: echoed keys, stray fragments, a doubled
        // or dropped key quote, glued members, escaped line breaks between
        // tokens, Markdown escapes, JSON escaped twice, doubled braces,
        // restarts, prose lines.
        b"\"notes\": \"notes\":",
        b"\",",
        b"\"\",",
        b"\"\"k\":",
        b"\"k: ",
        b"\"rating\": 4",
        b"\\n",
        b"\\_",
        b"\\\\\"",
        b"{{",
        b"}}",
        b"]}",
        b"{\"a\": 1,{",
        b"Sorry, I can't.",
        // Gemma 4's string marker, whole, in its short form and cut.
        b"<|\"|>",
        b"<|\">",
        b"<|",
        b"|>",
    ];
    prop::collection::vec(prop::sample::select(fragments), 0..200).prop_map(|parts| parts.concat())
}

fn any_input() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        3 => malformed_json(),
        2 => jsonish_bytes(),
        1 => prop::collection::vec(any::<u8>(), 0..64),
        1 => valid_json().prop_map(String::into_bytes),
    ]
}

/// Chunk sizes, used in turn until the input is used up (empty: one chunk).
pub(crate) fn chunk_sizes() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(
        prop_oneof![4 => 1usize..4, 2 => 1usize..17, 1 => 1usize..200],
        0..24,
    )
}

pub(crate) fn chunks<'a>(input: &'a [u8], sizes: &[usize]) -> Vec<&'a [u8]> {
    if sizes.is_empty() {
        return vec![input];
    }
    let mut out = Vec::new();
    let mut at = 0;
    let mut n = 0;
    while at < input.len() {
        let end = (at + sizes[n % sizes.len()]).min(input.len());
        out.push(&input[at..end]);
        at = end;
        n += 1;
    }
    out
}

// ---------------------------------------------------------------------------
// Running the engine

#[derive(Debug, Clone, PartialEq, Eq)]
struct Run {
    text: String,
    verdict: Verdict,
    fixes: Vec<Fix>,
    /// The doubts are part of the result: the same for every chunking.
    doubts: Vec<Doubt>,
}

fn one_shot(input: &[u8]) -> Run {
    let outcome = argmend::repair(input);
    let mut fixes = outcome.fixes().to_vec();
    fixes.sort_by_key(|fix| (fix.offset, fix.kind.name()));
    Run {
        text: outcome.text().to_owned(),
        verdict: outcome.verdict(),
        fixes,
        doubts: outcome.doubts().to_vec(),
    }
}

/// What a chunked run saw.
struct Streamed {
    run: Run,
    /// The concatenation of everything `feed` returned.
    committed: String,
    /// For each chunk: the committed output so far and the snapshot after it.
    snapshots: Vec<(String, String)>,
}

fn streamed(input: &[u8], sizes: &[usize], options: Options) -> Streamed {
    let mut repairer = Repairer::new(options);
    let mut committed = String::new();
    let mut snapshots = Vec::new();
    // A bounded run (Retain::Unreturned) also hands its fixes out as it goes.
    let bounded = options == Options::default().retain(Retain::Unreturned);
    let mut taken = Vec::new();
    for chunk in chunks(input, sizes) {
        committed.push_str(
            repairer
                .feed(chunk)
                .expect("default limits are not crossed"),
        );
        snapshots.push((committed.clone(), repairer.snapshot().to_string()));
        if bounded {
            taken.extend(repairer.take_fixes());
        }
    }
    let outcome = repairer.finish().expect("default limits are not crossed");
    taken.extend_from_slice(outcome.fixes());
    // Fixes handed out early already come in input order.
    assert!(
        taken.windows(2).all(|w| w[0].offset <= w[1].offset),
        "take_fixes + finish out of input order for {:?}: {taken:?}",
        lossy(input)
    );
    // Ties at one offset may come in another order than one-shot's.
    taken.sort_by_key(|fix| (fix.offset, fix.kind.name()));
    let run = Run {
        text: outcome.text().to_owned(),
        verdict: outcome.verdict(),
        fixes: taken,
        doubts: outcome.doubts().to_vec(),
    };
    Streamed {
        run,
        committed,
        snapshots,
    }
}

/// Whether `text` is one JSON value, as serde_json reads it, except that a
/// number too large for an `f64` (`1e400`, which is JSON) is accepted.
fn parses(text: &str) -> Result<(), String> {
    match serde_json::from_str::<Value>(text) {
        Ok(_) => Ok(()),
        Err(error) if error.to_string().starts_with("number out of range") => {
            serde_json::from_str::<serde::de::IgnoredAny>(text)
                .map(|_| ())
                .map_err(|e| e.to_string())
        }
        Err(error) => Err(error.to_string()),
    }
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

// ---------------------------------------------------------------------------
// Properties

proptest! {
    #![proptest_config(config())]

    /// (a) Valid JSON in any layout is returned byte for byte.
    #[test]
    fn properties_valid_json_is_untouched(text in valid_json()) {
        let outcome = argmend::repair(text.as_bytes());
        prop_assert_eq!(outcome.verdict(), Verdict::Valid, "input: {:?}", text);
        prop_assert!(outcome.fixes().is_empty(), "input: {:?}\nfixes: {:?}", text, outcome.fixes());
        prop_assert_eq!(outcome.text(), text.as_str());
    }

    /// (a) again, streamed: valid JSON fed in any chunks (so the machine and
    /// the fast lane decide each quote, not the one-shot validator) comes
    /// back byte for byte, `Valid`, whatever hints the engine was given, with
    /// long keys and strings as well as short ones.
    #[test]
    fn properties_valid_json_streams_untouched(
        text in long_valid_json(),
        sizes in chunk_sizes(),
        hinted in any::<bool>(),
    ) {
        let hints = if hinted {
            argmend::Hints::from_fields(["a", "b", "path", "content"])
        } else {
            argmend::Hints::default()
        };
        let mut repairer = Repairer::with_hints(Options::default(), hints);
        for chunk in chunks(text.as_bytes(), &sizes) {
            repairer.feed(chunk).expect("default limits are not crossed");
        }
        let outcome = repairer.finish().expect("default limits are not crossed");
        prop_assert_eq!(outcome.verdict(), Verdict::Valid, "input: {:?}", text);
        prop_assert_eq!(outcome.text(), text.as_str());
    }

    /// (b) Malformed JSON comes back as JSON unless it is `NotJson`.
    #[test]
    fn properties_malformed_json_is_mended(input in malformed_json()) {
        let outcome = argmend::repair(&input);
        if outcome.verdict() != Verdict::NotJson {
            let parsed = parses(outcome.text());
            prop_assert!(
                parsed.is_ok(),
                "input: {:?}\noutput: {:?}\nverdict: {}\nerror: {:?}",
                lossy(&input), outcome.text(), outcome.verdict(), parsed
            );
        }
    }

    /// (b') Arbitrary bytes too: whatever is not `NotJson` parses.
    #[test]
    fn properties_any_input_gives_json(input in any_input()) {
        let outcome = argmend::repair(&input);
        if outcome.verdict() != Verdict::NotJson {
            let parsed = parses(outcome.text());
            prop_assert!(
                parsed.is_ok(),
                "input: {:?}\noutput: {:?}\nverdict: {}\nerror: {:?}",
                lossy(&input), outcome.text(), outcome.verdict(), parsed
            );
        }
    }

    /// (c) The outcome does not depend on where the chunks were cut.
    #[test]
    fn properties_chunk_invariance(input in any_input(), sizes in chunk_sizes()) {
        let whole = one_shot(&input);
        let cut = streamed(&input, &sizes, Options::default());
        prop_assert_eq!(
            &cut.run, &whole,
            "input: {:?}\nchunks: {:?}", lossy(&input), chunks(&input, &sizes)
        );
    }

    /// (d) Committed output is a prefix of the final text; with
    /// `Retain::Unreturned`, what `feed` returned plus `finish` is the text.
    #[test]
    fn properties_append_only(input in any_input(), sizes in chunk_sizes()) {
        let whole = one_shot(&input);
        let kept = streamed(&input, &sizes, Options::default());
        prop_assert!(
            kept.run.text.starts_with(&kept.committed),
            "input: {:?}\ncommitted: {:?}\nfinal: {:?}", lossy(&input), kept.committed, kept.run.text
        );
        let forgotten = streamed(&input, &sizes, Options::default().retain(Retain::Unreturned));
        let joined = format!("{}{}", forgotten.committed, forgotten.run.text);
        prop_assert_eq!(
            &joined, &whole.text,
            "input: {:?}\nchunks: {:?}\nreturned by feed: {:?}\nrest from finish: {:?}",
            lossy(&input), chunks(&input, &sizes), forgotten.committed, forgotten.run.text
        );
    }

    /// (e) After every chunk the snapshot is empty or parses, and starts
    /// with everything committed so far.
    #[test]
    fn properties_snapshots_are_json(input in any_input(), sizes in chunk_sizes()) {
        let run = streamed(&input, &sizes, Options::default());
        let pieces = chunks(&input, &sizes);
        let mut fed = 0;
        for (n, (committed, snapshot)) in run.snapshots.iter().enumerate() {
            fed += pieces[n].len();
            if !snapshot.is_empty() {
                let parsed = parses(snapshot);
                prop_assert!(
                    parsed.is_ok(),
                    "after {} byte(s) of {:?}\nsnapshot: {:?}\nerror: {:?}",
                    fed, lossy(&input), snapshot, parsed
                );
            }
            prop_assert!(
                snapshot.starts_with(committed.as_str()),
                "after {} byte(s) of {:?}\ncommitted: {:?}\nsnapshot: {:?}",
                fed, lossy(&input), committed, snapshot
            );
        }
    }
}

proptest! {
    #![proptest_config(config())]

    /// (f) On valid JSON, committed output trails the input by at most the
    /// quote window plus one chunk.
    #[test]
    fn properties_commit_lag_is_bounded(text in valid_json(), sizes in chunk_sizes()) {
        let lags = commit_lags(text.as_bytes(), &sizes);
        let largest_chunk = sizes.iter().copied().max().unwrap_or(text.len());
        for (n, lag) in lags.iter().enumerate() {
            prop_assert!(
                *lag <= COMMIT_WINDOW + largest_chunk,
                "after chunk {n} of {:?}: {lag} bytes read but not committed", text
            );
        }
    }
}

/// The quote window: how far after a quote the engine may read before it
/// decides whether the quote ends its string.
const COMMIT_WINDOW: usize = 4096;

/// After each chunk, the input bytes read but not yet committed (valid JSON
/// comes back byte for byte, so committed output measures committed input).
fn commit_lags(input: &[u8], sizes: &[usize]) -> Vec<usize> {
    let mut lags = commit_lags_with(input, sizes, Options::default().retain(Retain::Unreturned));
    // With all output kept, valid input is read by the stream's prelude
    // (`repair/prelude/`), which commits no more than the machine: its
    // lag is held to the same bounds.
    lags.extend(commit_lags_with(input, sizes, Options::default()));
    lags
}

fn commit_lags_with(input: &[u8], sizes: &[usize], options: Options) -> Vec<usize> {
    let mut repairer = Repairer::new(options);
    let mut committed = 0;
    let mut fed = 0;
    let mut lags = Vec::new();
    for chunk in chunks(input, sizes) {
        committed += repairer
            .feed(chunk)
            .expect("default limits are not crossed")
            .len();
        fed += chunk.len();
        lags.push(fed - committed);
    }
    lags
}

/// (f) The median lag in 16-byte chunks, over valid documents of every
/// shape the generator makes (strings with delimiters, code, nesting), is
/// a few bytes: the issue's target is at most 64.
#[test]
fn properties_commit_lag_median() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut lags = Vec::new();
    for _ in 0..400 {
        let text = valid_json()
            .new_tree(&mut runner)
            .expect("the generator makes values")
            .current();
        lags.extend(commit_lags(text.as_bytes(), &[16]));
    }
    // A 40 KB write_file call whose content is code full of delimiters.
    let code = "def f(a, b):\n    return {'x': [a, b], \"y\": a or b}  # done\n".repeat(600);
    let call = serde_json::json!({"path": "a.py", "content": code}).to_string();
    let call_lags = commit_lags(call.as_bytes(), &[16]);
    assert!(
        call_lags.iter().all(|&lag| lag <= 64),
        "a write_file call stalls: {:?}",
        call_lags.iter().max()
    );
    lags.extend(call_lags);
    lags.sort_unstable();
    let median = lags[lags.len() / 2];
    let worst = lags[lags.len() - 1];
    assert!(median <= 64, "median lag {median} bytes (worst {worst})");
    assert!(worst <= COMMIT_WINDOW + 16, "worst lag {worst} bytes");
}

// ---------------------------------------------------------------------------
// Counterexamples found by the properties above, kept as plain tests.

/// Feed `input` cut by `sizes` and check (c), (d) and (e) on it.
fn check_all(input: &[u8], sizes: &[usize]) -> Result<(), String> {
    let whole = one_shot(input);
    if whole.verdict != Verdict::NotJson {
        parses(&whole.text).map_err(|e| format!("output {:?} does not parse: {e}", whole.text))?;
    }
    let cut = streamed(input, sizes, Options::default());
    if cut.run != whole {
        return Err(format!(
            "chunked run differs\n  one-shot: {whole:?}\n  chunked:  {:?}",
            cut.run
        ));
    }
    if !cut.run.text.starts_with(&cut.committed) {
        return Err(format!(
            "committed {:?} is not a prefix of {:?}",
            cut.committed, cut.run.text
        ));
    }
    let forgotten = streamed(input, sizes, Options::default().retain(Retain::Unreturned));
    let joined = format!("{}{}", forgotten.committed, forgotten.run.text);
    if joined != whole.text
        || forgotten.run.fixes != whole.fixes
        || forgotten.run.verdict != whole.verdict
    {
        return Err(format!(
            "with Retain::Unreturned, feed + finish gives {joined:?} {:?}, one-shot {:?} {:?}",
            forgotten.run.fixes, whole.text, whole.fixes
        ));
    }
    for (committed, snapshot) in &cut.snapshots {
        if !snapshot.is_empty() {
            parses(snapshot).map_err(|e| format!("snapshot {snapshot:?} does not parse: {e}"))?;
        }
        if !snapshot.starts_with(committed.as_str()) {
            return Err(format!(
                "snapshot {snapshot:?} does not start with committed {committed:?}"
            ));
        }
    }
    Ok(())
}

const LONG_INT: &str = "[123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890, 1_000_000_000_000_000_000_000_000_000_000_000_000_000_000_000_000_000_000_000_000]";
const LONG_FRACTION_EXPONENT: &str = "{a: 1.0000000000000000000000000000000000000000000000000000000000000000000000000001e-5, b: 2.00000000000000000000000000000000000000000000000000000000000000000000000.5}";
const LONG_WORDS: &str = "{a_very_long_unquoted_key_that_goes_on_and_on_and_on_for_more_than_sixty_four_bytes: yes_and_a_very_long_bare_value_that_also_goes_on_for_more_than_sixty_four_bytes_x}";

#[test]
fn properties_regressions() {
    // (input, chunk sizes): counterexamples reported to the engine's owner.
    let cases: &[(&[u8], &[usize])] = &[
        // Retain::Unreturned changes the string-end decision: one-shot gives
        // "(abcdefgh\")x" (escaped quote), byte-at-a-time without retention
        // "(abcdefgh" (removed closer, trailing text).
        (br#""(abcdefgh")x"#, &[1]),
        // Same cause: the fixes differ ([inserted_quote, removed_closer] vs [removed_closer]).
        (br#""(abcdefgh")"#, &[1]),
        // corpus/structure/jsonp_callback.in (fixed): byte-at-a-time added a
        // removed_trailing_text fix that the one-shot run did not report.
        (b"callback({\"a\": 1});", &[1]),
        // corpus/strings/escaped_quotes_whole_doc.in (fixed): a snapshot had a trailing comma.
        (br#"{\"key\": \"value\"}"#, &[1]),
        // A string opened by an escaped non-JSON quote (`\'`, `\“`, `\＂`)
        // whose second escaped quote is kept as an inner quote: the output
        // keeps the backslash, an invalid JSON escape (`["x\'-"]`, `["x\“-"]`).
        ("[\\“x\\“-".as_bytes(), &[]),
        (br"[\'x\'-", &[]),
        // One-shot repair trusts the UTF-8 of what its fast lane copies and
        // repairs again when that was wrong: invalid UTF-8 in valid JSON,
        // alone and before a later repair.
        (b"{\"a\": \"\xff\"}", &[1]),
        (b"{\"a\": \"\xff\", \"b\": 'x'}", &[1, 3]),
        (b"[1, \"\xc3\", 2,]", &[2]),
        // The lane takes a single-quoted string without checking its UTF-8
        // (its run is checked whole): one with invalid UTF-8 in it, first
        // or after other lenient tokens, whole or cut.
        (b"{a: 'x\xffy', b: 'z'}", &[1, 3, 9]),
        (b"['ok', 'b\xe2\x80', 'c']", &[1, 4, 12]),
        // The lane reads a single-quoted body in one pass: escaped quotes,
        // escapes before the closing quote, bad escapes, raw `"` inside.
        (
            br#"['it\'s', 'a\\', 'b\\\'c', 'say "hi"', 'x\u00zz', 'tab\t', 'ok']"#,
            &[1, 3],
        ),
        // One shot, the lane records no safe point between a key and its
        // value: a value it cannot take sends the key back to the machine.
        (br#"{"a": 1, "b": tru"#, &[1, 5]),
        (br#"{"a": 1, b: [}, "c": 2}"#, &[1, 3]),
        (br#"{'a': 'x\q', "b": "y"}"#, &[1, 6]),
        (br#"{"k": "v" "w", "n": None}"#, &[1, 2]),
        (
            br#"{"k": // c
 1, "m": /* c */ 2}"#,
            &[1, 7],
        ),
        // One shot, the lane escapes raw control characters in a value
        // string whose closing quote it takes (code with its line breaks
        // and tabs unescaped); streamed, the machine does: every control
        // character, a trailing comma before a line break, a string the
        // lane then cannot finish (a bad escape, an inner quote, the end).
        (
            b"{\"code\": \"fn main() {\n\tprintln!(\\\"hi\\\");\r\n}\", \"n\": 1}",
            &[1, 3, 7],
        ),
        (b"[\"\x00\x01\x08\x0b\x0c\x1f\r\n\x7f\", \"\n\"]", &[1, 2]),
        (b"{\"a\": \"x,\n\", \"b\": 1}", &[1, 4]),
        (b"{\"a\": \"x,\n\t\"}", &[1, 5]),
        (b"[\"a,\n\", \"b\"]", &[1, 2]),
        (b"{\"a\": \"x\ny\\q\", \"b\": 2}", &[1, 3]),
        (b"{\"a\": \"line\n\"quoted\" end\", \"b\": 1}", &[1, 6]),
        (b"{\"a\": \"x\ny", &[1, 2]),
        (b"{\"a\": \"x\ny\" + \"z\"}", &[1, 4]),
        // Words and numbers longer than 64 bytes cut by chunk ends are
        // continued by hand, not lexed again: the same answer as one shot.
        (LONG_INT.as_bytes(), &[1, 7]),
        (LONG_FRACTION_EXPONENT.as_bytes(), &[1, 5]),
        (LONG_WORDS.as_bytes(), &[1, 3]),
    ];
    // Issue 11: a valid value string followed by a key longer than the
    // judge's key limit, and by one longer than the lookahead window (with
    // structure in it), must still end there when fed in chunks.
    let long_key = format!("{{\"a\":\"x\",\"{}\":1}}", "k".repeat(300));
    let window_key = format!("{{\"a\":\"x\",\"{}\":1}}", "k,:}".repeat(1300));
    let owned: [(&[u8], &[usize]); 3] = [
        (long_key.as_bytes(), &[1]),
        (long_key.as_bytes(), &[5]),
        (window_key.as_bytes(), &[7]),
    ];
    // The lane takes `"value", "key":` at once (`fast::follow_value`),
    // within the judge's window: keys with escapes, and one past the window.
    let far_key = format!("{{\"a\": \"x\",{}\"b\": 1}}", " ".repeat(5000));
    let escaped_keys = r#"{"a": "x", "b\"c": 1, "d": "y", "e\u0022": [], "f": "z"  ,  "g\\": {}}"#;
    let owned = owned.into_iter().chain([
        (far_key.as_bytes(), &[1, 4096][..]),
        (escaped_keys.as_bytes(), &[1, 5][..]),
    ]);
    let cases: Vec<(&[u8], &[usize])> = cases.iter().copied().chain(owned).collect();
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(input, sizes)| {
            check_all(input, sizes)
                .err()
                .map(|e| format!("{:?} cut {sizes:?}: {e}", lossy(input)))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The lane escapes a value string's raw control characters itself, in one
/// shot and in streams, and may stop inside such a string at a chunk's end
/// (its edits then lie inside the body the machine goes on with). Every
/// chunk size from one byte to past the lane's smallest scan, on code with
/// unescaped line breaks and tabs, trailing commas before a line break
/// (which the next key may still turn into the string's end), a control
/// character first in a body, and `\r\n`.
#[test]
fn raw_control_characters_in_strings_at_every_chunk_size() {
    let inputs: [&[u8]; 4] = [
        b"{\"path\": \"src/a.rs\", \"content\": \"fn main() {\n\tlet s = \\\"hi\\\";\r\n\tprintln!(\\\"{s}\\\");\n}\n\", \"mode\": \"0644\"}",
        b"{\"a\": \"one,\n\", \"b\": \"two,\n\t\", c: 3, \"d\": \"\nfirst\", \"e\": [\"x,\n\", \"y\"]}",
        b"[\"\x01\x02 tab\there\", \"cr\r\", \"ff\x0c\", \"end,\n\t\n\"]",
        b"{\"a\": \"x,\n\"b\": 1}",
    ];
    let mut failures = Vec::new();
    for input in inputs {
        for size in 1..=48 {
            if let Err(e) = check_all(input, &[size]) {
                failures.push(format!("{:?} cut [{size}]: {e}", lossy(input)));
            }
        }
        for sizes in [&[9, 1, 17][..], &[13, 2], &[8, 8, 3], &[31, 5]] {
            if let Err(e) = check_all(input, sizes) {
                failures.push(format!("{:?} cut {sizes:?}: {e}", lossy(input)));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
