//! Issue 7, "Unbreakable": inputs built to break the engine.
//!
//! Each family asserts the documented result (README, "Guarantees" and
//! "Streaming semantics"): a typed error for a limit, otherwise output that
//! parses unless the verdict is `NotJson`, the same outcome for every
//! chunking (one-byte feeds included), snapshots that parse and start with
//! the committed output, and bounded held-back output with
//! `Retain::Unreturned` (the 4 KiB lookahead and the 64 KiB window bound
//! what the engine may hold; see [`HELD_BOUND`]).
//!
//! Sizes are scaled for CI (debug build, 2 cores): one-shot runs at 128 KiB–2 MB,
//! one-byte feeds at 16 KiB–1 MB, each stated beside its test; the whole file
//! takes about 20 s of CPU in debug (10 s of wall time on 2 cores). Linear time is
//! checked by `benches/adversarial.rs` at two sizes, not here: nothing in
//! this file is timed.

use argmend::{ErrorKind, Fix, Options, Repairer, Retain, Verdict};

// The fuzz crate's checks (`parses`, `strict_json`), loaded once by `fuzz_seeds`.
use crate::fuzz_seeds::checks;

const KIB: usize = 1024;
const MB: usize = 1_000_000;

/// What the engine may hold back with `Retain::Unreturned`, in output bytes:
/// the 64 KiB window plus the 4 KiB lookahead of input, each byte written
/// as at most 6 output bytes (`\u0000`), plus the closers of 512 levels.
const HELD_BOUND: usize = 6 * (64 + 4) * KIB + 2 * 512;

/// Whether `text` is one JSON value: serde_json, or the fuzz crate's strict
/// validator where serde_json stops at its depth or number range.
fn assert_parses(text: &str, what: &str) {
    if let Err(e) = checks::parses(text) {
        let head: String = text.chars().take(200).collect();
        panic!(
            "{what}: output of {} bytes does not parse ({e}); starts {head:?}",
            text.len()
        );
    }
}

/// A one-shot or streamed result.
#[derive(Debug, PartialEq, Eq)]
struct Run {
    text: String,
    verdict: Verdict,
    fixes: Vec<Fix>,
}

fn oneshot(input: &[u8]) -> Result<Run, argmend::Error> {
    argmend::repair_with(input, Options::default()).map(|o| Run {
        text: o.text().to_owned(),
        verdict: o.verdict(),
        fixes: o.fixes().to_vec(),
    })
}

/// Feeds `input` in `chunk`-byte pieces with `Retain::All`; at about 16
/// evenly spaced chunks (and the last one) the snapshot must parse and start
/// with everything committed so far; the committed output must be a prefix
/// of the final text.
fn streamed(input: &[u8], chunk: usize, what: &str) -> Result<Run, argmend::Error> {
    let mut repairer = Repairer::new(Options::default());
    let mut committed = String::new();
    let pieces = input.len().div_ceil(chunk);
    let every = (pieces / 16).max(1);
    for (i, piece) in input.chunks(chunk).enumerate() {
        committed.push_str(repairer.feed(piece)?);
        if i % every == 0 || i + 1 == pieces {
            let snapshot = repairer.snapshot().to_string();
            if !snapshot.is_empty() {
                assert_parses(&snapshot, &format!("{what}: snapshot after chunk {i}"));
                assert!(
                    snapshot.starts_with(&committed),
                    "{what}: snapshot after chunk {i} does not start with the committed output"
                );
            }
        }
    }
    let outcome = repairer.finish()?;
    assert!(
        outcome.text().starts_with(&committed),
        "{what}: committed output is not a prefix of the final text"
    );
    Ok(Run {
        text: outcome.text().to_owned(),
        verdict: outcome.verdict(),
        fixes: outcome.fixes().to_vec(),
    })
}

/// Feeds `input` in `chunk`-byte pieces with `Retain::Unreturned` and
/// `take_fixes`, and returns the most output held back after any feed (the
/// snapshot minus the piece that feed returned). The returned pieces and the
/// final text together must equal `expected`.
fn held_back(input: &[u8], chunk: usize, expected: &Run, what: &str) -> usize {
    let mut repairer = Repairer::new(Options::default().retain(Retain::Unreturned));
    let mut text = String::new();
    let mut fixes = Vec::new();
    let mut most = 0;
    for piece in input.chunks(chunk) {
        let newly = repairer.feed(piece).expect("no limit").to_owned();
        let held = repairer.snapshot().len() - newly.len();
        most = most.max(held);
        text.push_str(&newly);
        fixes.extend(repairer.take_fixes());
    }
    let outcome = repairer.finish().expect("no limit");
    text.push_str(outcome.text());
    fixes.extend_from_slice(outcome.fixes());
    assert!(
        text == expected.text,
        "{what}: Retain::Unreturned output differs from one-shot"
    );
    assert_eq!(
        fixes, expected.fixes,
        "{what}: fixes differ with take_fixes"
    );
    assert!(
        most <= HELD_BOUND,
        "{what}: {most} output bytes held back, over the bound of {HELD_BOUND}"
    );
    most
}

/// The whole check for one input: one-shot parses unless `NotJson`; every
/// listed chunk size gives the same run (snapshots checked on the way); the
/// held-back output stays bounded (with the first chunk size).
fn check(input: &[u8], chunk_sizes: &[usize], what: &str) -> Run {
    let one = oneshot(input).unwrap_or_else(|e| panic!("{what}: unexpected limit {e}"));
    if one.verdict != Verdict::NotJson {
        assert_parses(&one.text, what);
    }
    for &chunk in chunk_sizes {
        let run = streamed(input, chunk, what).unwrap_or_else(|e| panic!("{what}: limit {e}"));
        assert!(
            run == one,
            "{what}: {chunk}-byte chunks differ from one-shot (verdict {} vs {}, {} vs {} bytes, {} vs {} fixes)",
            run.verdict,
            one.verdict,
            run.text.len(),
            one.text.len(),
            run.fixes.len(),
            one.fixes.len()
        );
    }
    if let Some(&chunk) = chunk_sizes.first() {
        held_back(input, chunk, &one, what);
    }
    one
}

/// xorshift64*: fixed seed, so every run sees the same bytes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn pick<'a>(&mut self, items: &[&'a [u8]]) -> &'a [u8] {
        items[(self.next() % items.len() as u64) as usize]
    }
}

/// `size` bytes of malformed JSON of every kind the engine mends, as one
/// array of objects (cut off at `size`, so the end is a truncation).
fn mixed(size: usize, seed: u64) -> Vec<u8> {
    const PIECES: &[&[u8]] = &[
        b"{name: 'John', tags: ['a', 'b',], admin: True}",
        b"{\"a\" 1, \"b\" = 2, 'c': None, d: undefined, e: NaN}",
        b"[1 2, .5, +1, 2., 2e, 1_000, 0789,]",
        b"{\"a\": \"say \"hi\" now\", \"b\": \"C:\\q\"}",
        b"// line comment\n{/* block */ \"x\": [1, ...]} # hash\n",
        b"{\"s\": \"raw\nnewline\ttab\", \"t\": \"a\" + \"b\"}",
        b"{\"a\":}",
        b"NumberLong(2)",
        b"(1, 2)",
        b"/re/",
        b"{\xe2\x80\x9ccurly\xe2\x80\x9d: \xe2\x80\x9cq\xe2\x80\x9d, `tick`: `t`}",
        b"{\"valid\": [1, 2.5e-3, -0, true, false, null, \"\\u00e9\\n\"]}",
        b"{'it\\'s': 'a \"quoted\" word'}",
        b"{\"k\": \"emoji \xf0\x9f\x98\x80 and \\ud83d\\ude00\"}",
    ];
    let mut rng = Rng(seed);
    let mut out = b"```json\n[".to_vec();
    while out.len() < size {
        out.extend_from_slice(rng.pick(PIECES));
        out.extend_from_slice(rng.pick(&[b", ", b" ", b",\n", b",,", b"\n"]));
    }
    out.truncate(size);
    out
}

// ---------------------------------------------------------------------------
// A million nested `[`.
// ---------------------------------------------------------------------------

/// 1,000,000 `[`: a typed `TooDeep` error at the 513th, one-shot and in
/// 1-byte feeds (every later feed returns the same error), and `repair`
/// reports it as `NotJson` with the error. No stack overflow.
#[test]
fn a_million_nested_brackets_is_a_typed_depth_error() {
    let input = vec![b'['; MB];
    let error = argmend::repair_with(&input, Options::default()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TooDeep);
    assert_eq!(error.limit(), 512);
    assert_eq!(error.offset(), 512);

    let outcome = argmend::repair(&input);
    assert_eq!(outcome.verdict(), Verdict::NotJson);
    assert_eq!(outcome.error(), Some(&error));

    let mut repairer = Repairer::new(Options::default());
    let mut first: Option<(usize, argmend::Error)> = None;
    for (i, byte) in input.chunks(1).enumerate() {
        match repairer.feed(byte) {
            Ok(_) => assert!(first.is_none(), "feed accepted input after the error"),
            Err(e) => match &first {
                Some((_, earlier)) => assert_eq!(&e, earlier, "a different error later"),
                None => first = Some((i, e)),
            },
        }
        // The snapshot stays valid until the error.
        if i < 512 && i % 64 == 0 && !repairer.snapshot().is_empty() {
            assert_parses(&repairer.snapshot().to_string(), "deep snapshot");
        }
    }
    let (at, e) = first.expect("an error");
    assert_eq!(at, 512, "the error came at byte {at}");
    assert_eq!(e, error);
    assert_eq!(repairer.finish().unwrap_err(), error);

    // Mixed openers (`[{"a":` repeated), also past the limit.
    let mixed: Vec<u8> = b"[{\"a\":".repeat(MB / 6);
    let e = argmend::repair_with(&mixed, Options::default()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TooDeep);
}

/// With the limit raised past it, a million `[` (1 MB) is completed to a
/// million `]` without recursion: the text is checked by the strict
/// validator, which has no depth limit. Also fed in 4093-byte chunks.
#[test]
fn a_million_nested_brackets_without_a_limit_are_closed() {
    let input = vec![b'['; MB];
    let options = Options::default().max_depth(2 * MB);
    let outcome = argmend::repair_with(&input, options).unwrap();
    assert_eq!(outcome.verdict(), Verdict::Completed);
    assert_eq!(outcome.text().len(), 2 * MB);
    checks::strict_json(outcome.text()).unwrap();

    let mut repairer = Repairer::new(options);
    for piece in input.chunks(4093) {
        repairer.feed(piece).unwrap();
    }
    assert_eq!(repairer.snapshot().len(), 2 * MB);
    assert_eq!(repairer.finish().unwrap().text(), outcome.text());
}

// ---------------------------------------------------------------------------
// A long string in 1-byte chunks.
// ---------------------------------------------------------------------------

/// A 256 KiB string value (text with `\n`, `\"`, `\\` escapes and non-ASCII),
/// valid: byte for byte in one shot and in 1-byte feeds (262,000 feeds) and 4093-byte feeds;
/// truncated before its end quote: `Completed`, same for 1-byte feeds.
#[test]
fn a_long_string_in_one_byte_chunks() {
    let unit: &[u8] =
        b"fn main() { println!(\\\"h\xc3\xa9llo\\\\n\\\"); }\\n\\t// \xe6\x9d\xb1\xe4\xba\xac ";
    let body = &unit.repeat(256 * KIB / unit.len());
    let mut valid = b"{\"path\": \"main.rs\", \"content\": \"".to_vec();
    valid.extend_from_slice(body);
    valid.extend_from_slice(b"\"}");
    let valid = String::from_utf8(valid).expect("utf-8");
    let run = check(valid.as_bytes(), &[1, 4093], "long valid string");
    assert_eq!(run.verdict, Verdict::Valid);
    assert_eq!(run.text, valid);

    let truncated = &valid.as_bytes()[..valid.len() - 2];
    let run = check(truncated, &[1], "long truncated string");
    assert_eq!(run.verdict, Verdict::Completed);
}

// ---------------------------------------------------------------------------
// A million 1-byte chunks of mixed input.
// ---------------------------------------------------------------------------

/// 1 MB of every kind of malformed input, fed in 1,000,000 one-byte chunks,
/// and in 4093-byte chunks: the same outcome as one shot.
#[test]
fn a_million_one_byte_chunks_of_mixed_input() {
    let input = mixed(MB, 7);
    let run = check(&input, &[1, 4093], "mixed 1 MB");
    assert_ne!(run.verdict, Verdict::NotJson);
    assert!(run.fixes.len() > 10_000, "only {} fixes", run.fixes.len());
}

// ---------------------------------------------------------------------------
// Long runs of quotes and backslashes.
// ---------------------------------------------------------------------------

/// Runs of 128 KiB (one shot, 4093-byte chunks) and 16 KiB (1-byte feeds) of
/// `"`, `'`, `\`, `\"`, `\\"`, alone, inside a string and inside an object.
#[test]
fn long_runs_of_quotes_and_backslashes() {
    let runs: &[&[u8]] = &[
        b"\"",
        b"'",
        b"\\",
        b"\\\"",
        b"\\\\\"",
        b"\"\\",
        b"`",
        b"\xe2\x80\x9c",
    ];
    for unit in runs {
        for (size, chunks) in [(128 * KIB, &[4093][..]), (16 * KIB, &[1][..])] {
            let run_ = unit.repeat(size / unit.len());
            let wrappings: [(&[u8], &[u8]); 3] =
                [(b"", b""), (b"{\"a\": \"", b"\"}"), (b"[\"x\", ", b", 1]")];
            for (before, after) in wrappings {
                let mut input = before.to_vec();
                input.extend_from_slice(&run_);
                input.extend_from_slice(after);
                let what = format!(
                    "run of {:?} ({size} bytes) in {:?}…{:?}",
                    String::from_utf8_lossy(unit),
                    String::from_utf8_lossy(before),
                    String::from_utf8_lossy(after)
                );
                check(&input, chunks, &what);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Invalid UTF-8 and lone surrogates everywhere.
// ---------------------------------------------------------------------------

/// 512 KiB (one shot, 4093-byte chunks) and 64 KiB (1-byte feeds) where
/// every key, string, gap between tokens and bare word holds invalid UTF-8
/// (`\xff`, a cut `\xc3`, CESU `\xed\xa0\x80`, overlong `\xc0\xaf`) or an
/// escaped lone surrogate (`\ud800`, `\udc00`, `\ud800\u0041`, `\udbff`
/// at the end of a string). The output is valid UTF-8 JSON (serde_json
/// refuses lone surrogates, so they must be mended).
#[test]
fn invalid_utf8_and_lone_surrogates_everywhere() {
    const BAD: &[&[u8]] = &[
        b"\xff",
        b"\xc3",
        b"\xed\xa0\x80",
        b"\xc0\xaf",
        b"\\ud800",
        b"\\udc00",
        b"\\ud800\\u0041",
        b"\\udbff",
        b"\\ud83d",
        b"\xf0\x9f\x98",
        b"\xfe\xfe",
    ];
    let build = |size: usize| {
        let mut rng = Rng(11);
        let mut out = b"[".to_vec();
        while out.len() < size {
            let bad = rng.pick(BAD);
            match rng.next() % 6 {
                0 => {
                    out.extend_from_slice(b"{\"k");
                    out.extend_from_slice(bad);
                    out.extend_from_slice(b"\": \"v");
                    out.extend_from_slice(bad);
                    out.extend_from_slice(b"\"}, ");
                }
                1 => {
                    out.extend_from_slice(b"\"");
                    out.extend_from_slice(bad);
                    out.extend_from_slice(b"\", ");
                }
                2 => {
                    out.extend_from_slice(bad);
                    out.extend_from_slice(b" 1, ");
                }
                3 => {
                    out.extend_from_slice(b"{k");
                    out.extend_from_slice(bad);
                    out.extend_from_slice(b": 'v");
                    out.extend_from_slice(bad);
                    out.extend_from_slice(b"'}, ");
                }
                4 => {
                    out.extend_from_slice(b"tr");
                    out.extend_from_slice(bad);
                    out.extend_from_slice(b"ue, ");
                }
                _ => {
                    out.extend_from_slice(b"\"\\u");
                    out.extend_from_slice(bad);
                    out.extend_from_slice(b"\", ");
                }
            }
        }
        out
    };
    let input = build(512 * KIB);
    let run = check(&input, &[4093], "invalid utf-8 512 KiB");
    assert_ne!(run.verdict, Verdict::NotJson);
    check(&build(64 * KIB), &[1], "invalid utf-8 64 KiB");
}

// ---------------------------------------------------------------------------
// NUL bytes.
// ---------------------------------------------------------------------------

/// NULs everywhere: 256 KiB of NUL alone (`NotJson` or parsing output), NULs
/// between tokens, in keys and strings, and a 32 KiB NUL run inside a
/// string (written as `\u0000`, so it grows 6× in the output: the held-back
/// bound allows for that). 1-byte feeds on 32 KiB.
#[test]
fn nul_bytes() {
    let nuls = vec![0u8; 256 * KIB];
    check(&nuls, &[4093], "256 KiB of NUL");

    let mut rng = Rng(3);
    let mut mixed_nul = b"{".to_vec();
    while mixed_nul.len() < 32 * KIB {
        let piece: &[u8] = rng.pick(&[
            b"\0\"k\0\": \"v\0\", ",
            b"\0\0 'a\0': [1,\0 2\0], ",
            b"k\0ey: tr\0ue, ",
            b"\"n\": 1\0 2, ",
        ]);
        mixed_nul.extend_from_slice(piece);
    }
    let run = check(&mixed_nul, &[1, 4093], "NUL between tokens");
    assert_ne!(run.verdict, Verdict::NotJson);

    let mut in_string = b"{\"a\": \"".to_vec();
    in_string.extend_from_slice(&vec![0u8; 32 * KIB]);
    in_string.extend_from_slice(b"\"}");
    let run = check(&in_string, &[1, 4093], "NUL run in a string");
    assert_eq!(run.verdict, Verdict::Repaired);
    assert!(run.text.contains("\\u0000"));
}

// ---------------------------------------------------------------------------
// A very long number.
// ---------------------------------------------------------------------------

/// A 1,000,000-digit integer, alone and as `[-0.<digits>e<1000 digits>]`,
/// and a malformed 1 M digit `[+.<digits>e, <digits>_000,`: one shot only
/// (the strict validator reads the text, serde_json refuses it as out of
/// range). 4093-byte feeds on 100,000 digits, 1-byte feeds on 100,000 digits
/// and a 100,000-letter bare word (a token much longer than a chunk, once
/// re-lexed from its start on every feed).
#[test]
fn a_very_long_number() {
    let digits = "1234567890".repeat(MB / 10);
    let run = check(digits.as_bytes(), &[], "1 M digits");
    let run_4k = check(
        &digits.as_bytes()[..100_000],
        &[4093],
        "100 k digits, 4093-byte feeds",
    );
    assert_eq!(run_4k.verdict, Verdict::Valid);
    assert_eq!(run.verdict, Verdict::Valid);
    assert_eq!(run.text, digits);

    let float = format!("[-0.{digits}e{}]", &digits[..1000]);
    let run = check(float.as_bytes(), &[], "1 M digit float");
    assert_eq!(run.verdict, Verdict::Valid);

    let broken = format!("[+.{}e, {}_000,", &digits[..MB / 2], &digits[..MB / 2]);
    let run = check(broken.as_bytes(), &[], "1 M digits, malformed");
    assert_ne!(run.verdict, Verdict::Valid);

    // 1-byte feeds: 100,000 digits (see the doc comment).
    let short = &digits[..100_000];
    let run = check(short.as_bytes(), &[1], "100 k digits, 1-byte feeds");
    assert_eq!(run.text, short);
    let word = "x".repeat(100_000);
    check(
        format!("[{word}]").as_bytes(),
        &[1],
        "100 k letter bare word, 1-byte feeds",
    );
}

// ---------------------------------------------------------------------------
// 100,000 keys in one object.
// ---------------------------------------------------------------------------

/// One object with 100,000 distinct keys (about 2 MB), quoted, single-quoted
/// and bare, with trailing commas: every key survives; 1-byte feeds on the
/// first 2,000 keys' worth of the same text (about 40 KB).
#[test]
fn a_hundred_thousand_keys_in_one_object() {
    let mut input = String::from("{");
    for i in 0..100_000 {
        match i % 4 {
            0 => input.push_str(&format!("\"key{i}\": {i}, ")),
            1 => input.push_str(&format!("'key{i}': 'v{i}', ")),
            2 => input.push_str(&format!("key{i}: True,")),
            _ => input.push_str(&format!("key{i} : [{i},],\n")),
        }
    }
    input.push('}');
    let run = check(input.as_bytes(), &[4093], "100 k keys");
    let value: serde_json::Value = serde_json::from_str(&run.text).unwrap();
    assert_eq!(value.as_object().unwrap().len(), 100_000);

    let cut = input.find("key2000\"").unwrap();
    check(&input.as_bytes()[..cut], &[1], "2 k keys, 1-byte feeds");
}

// ---------------------------------------------------------------------------
// Defeating the lookahead.
// ---------------------------------------------------------------------------

/// A long string with a `"` every few bytes, so that every quote needs the
/// lookahead to decide whether it ends the string; variants where the
/// quote is followed by what looks like the next key (`", "k": `), by a
/// closer, and with the quotes 4097 bytes apart (just past the 4 KiB
/// lookahead). 256 KiB one shot and in 4093-byte chunks, 32 KiB in 1-byte
/// feeds.
#[test]
fn inputs_built_to_defeat_the_lookahead() {
    let units: &[&[u8]] = &[
        b"ab\"",
        b"abcde\" ",
        b"x\", \"k\": ",
        b"x\"}, {\"",
        b"x\"] ",
        b"x\":",
        b"x\",",
    ];
    for unit in units {
        for (size, chunks) in [(256 * KIB, &[4093][..]), (32 * KIB, &[1][..])] {
            let mut input = b"{\"a\": \"".to_vec();
            input.extend_from_slice(&unit.repeat(size / unit.len()));
            input.extend_from_slice(b"\"}");
            let what = format!(
                "a {:?} every {} bytes ({size} bytes)",
                String::from_utf8_lossy(unit),
                unit.len()
            );
            let run = check(&input, chunks, &what);
            assert_ne!(run.verdict, Verdict::NotJson, "{what}");
        }
    }
    // Quotes just past the lookahead: 4097 bytes apart, 256 KiB, also in 1-byte feeds.
    let mut unit = vec![b'z'; 4096];
    unit.push(b'"');
    let mut input = b"{\"a\": \"".to_vec();
    input.extend_from_slice(&unit.repeat(256 * KIB / unit.len()));
    input.extend_from_slice(b"\"}");
    check(&input, &[4093, 1], "a quote every 4097 bytes");
}

// ---------------------------------------------------------------------------
// Issue 11: what stays provisional is bounded.
// ---------------------------------------------------------------------------

/// A key is held back until its colon, but not forever: past 64 KiB it is
/// committed (so an endless key cannot hold the whole stream), and the end of
/// input then keeps it with a `null` value instead of dropping it.
#[test]
fn a_long_key_is_committed_past_the_window() {
    let mut input = b"{\"a\": 1, \"".to_vec();
    input.extend(std::iter::repeat_n(b'k', 200 * KIB));
    // Whether the output is kept or forgotten once returned (the stream
    // starts as valid JSON either way, so the prelude reads it first).
    for retain in [argmend::Retain::All, argmend::Retain::Unreturned] {
        let mut repairer = argmend::Repairer::new(argmend::Options::default().retain(retain));
        let mut committed = String::new();
        for chunk in input.chunks(4093) {
            committed.push_str(repairer.feed(chunk).expect("no limit is crossed"));
        }
        assert!(
            committed.len() > 100 * KIB && committed.ends_with("kkk"),
            "{retain:?}: only {} bytes committed of a 200 KiB key",
            committed.len()
        );
        let rest = repairer.finish().expect("no limit is crossed");
        let rest = rest
            .text()
            .strip_prefix(committed.as_str())
            .unwrap_or(rest.text());
        assert_eq!(rest, "\":null}", "{retain:?}");
    }
    // A short key cut off is dropped (issue 11).
    assert_eq!(argmend::repair(b"{\"a\": 1, \"kkk").text(), "{\"a\": 1}");
}
