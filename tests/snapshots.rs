//! A snapshot does not depend on where the chunks were cut: fed a byte at a
//! time, the snapshot after each byte is the snapshot of the same bytes fed
//! in one piece.
//!
//! Found on the way in issue 45: a quote followed by its comma and a long
//! run of whitespace (`"x",` then 70 spaces, or a newline and deep
//! indentation) was judged again only once twice as many bytes had come,
//! so fed in small chunks the snapshot stayed at `["x"]` for up to twice
//! the gap (the next value, `"abc"`, missing), where one piece showed it.

use argmend::{Hints, Options, Repairer};

/// A repairer on its own (`hinted`: with keys, so the machine reads even
/// valid JSON from the first byte).
fn repairer(hinted: bool) -> Repairer {
    if hinted {
        Repairer::with_hints(Options::default(), Hints::from_fields(["a", "b", "c"]))
    } else {
        Repairer::new(Options::default())
    }
}

/// The first prefix (its length) whose snapshot fed a byte at a time is
/// not its snapshot fed whole, with both snapshots.
fn first_difference(input: &[u8], hinted: bool) -> Option<(usize, String, String)> {
    let mut streamed = repairer(hinted);
    for end in 1..=input.len() {
        streamed
            .feed(&input[end - 1..end])
            .expect("no limits are set");
        let bytewise = streamed.snapshot().to_string();
        let mut whole = repairer(hinted);
        whole.feed(&input[..end]).expect("no limits are set");
        let whole = whole.snapshot().to_string();
        if bytewise != whole {
            return Some((end, bytewise, whole));
        }
    }
    None
}

/// Strings in arrays and objects, straight and single-quoted, plain and
/// with a quote inside, each followed by a gap of commas and whitespace
/// around the 64 bytes that are judged again one at a time.
fn inputs() -> Vec<String> {
    let mut inputs = Vec::new();
    for n in [10, 50, 63, 64, 65, 70, 140] {
        let spaces = " ".repeat(n);
        let gaps = [
            format!(",{spaces}"),
            format!("{spaces},"),
            format!(",\n{spaces}"),
            format!(",{}", "\t".repeat(n)),
        ];
        for gap in &gaps {
            for (x, abc) in [
                ("\"x\"", "\"abc\""),
                ("'x'", "'abc'"),
                ("\"say \"hi\"", "\"abc\""),
            ] {
                inputs.push(format!("[{x}{gap}{abc}, 5]"));
                inputs.push(format!("{{\"a\": {x}{gap}\"b\": {abc}, \"c\": 1}}"));
            }
        }
    }
    inputs
}

#[test]
fn snapshots_fed_a_byte_at_a_time_are_the_snapshots_fed_whole() {
    let mut failures = Vec::new();
    for input in inputs() {
        for hinted in [false, true] {
            if let Some((end, bytewise, whole)) = first_difference(input.as_bytes(), hinted) {
                failures.push(format!(
                    "{input:?} (hints: {hinted}), after {end} bytes:\n  a byte at a time {bytewise:?}\n  whole            {whole:?}"
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} inputs:\n{}",
        failures.len(),
        2 * inputs().len(),
        failures.join("\n")
    );
}

/// `Snapshot::len` counts without writing the pieces out: it is the length
/// of what they write, after every chunk of every corpus input (call
/// wrappers such as `callback(…)` and `NumberLong(…)` write no closer), with
/// and without hints.
#[test]
fn a_snapshots_len_is_the_length_of_its_text() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut inputs: Vec<Vec<u8>> = vec![
        b"callback({\"a\": [1, NumberLong(2".to_vec(),
        b"NumberLong(".to_vec(),
    ];
    for family in std::fs::read_dir(&dir).expect("corpus/ is in the repository") {
        let family = family.expect("corpus/ is readable").path();
        if !family.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&family).expect("a corpus family is readable") {
            let file = file.expect("a corpus file is readable").path();
            if file.extension().is_some_and(|ext| ext == "in") {
                inputs.push(std::fs::read(&file).expect("a corpus input is readable"));
            }
        }
    }
    assert!(inputs.len() > 200, "the corpus has its inputs");
    for input in &inputs {
        for hinted in [false, true] {
            let mut repairer = repairer(hinted);
            for chunk in input.chunks(7) {
                repairer.feed(chunk).expect("no limits are set");
                let snapshot = repairer.snapshot();
                let text = snapshot.to_string();
                assert_eq!(
                    snapshot.len(),
                    text.len(),
                    "{:?}: snapshot {text:?}",
                    String::from_utf8_lossy(input)
                );
                assert_eq!(snapshot.is_empty(), text.is_empty());
            }
        }
    }
}

/// The first prefix (its length) whose snapshot holds `marker`, fed a byte
/// at a time and fed whole.
fn first_showing(input: &[u8], marker: &str) -> (Option<usize>, Option<usize>) {
    let mut streamed = repairer(false);
    let (mut bytewise, mut whole) = (None, None);
    for end in 1..=input.len() {
        streamed
            .feed(&input[end - 1..end])
            .expect("no limits are set");
        if bytewise.is_none() && streamed.snapshot().to_string().contains(marker) {
            bytewise = Some(end);
        }
        let mut one = repairer(false);
        one.feed(&input[..end]).expect("no limits are set");
        if whole.is_none() && one.snapshot().to_string().contains(marker) {
            whole = Some(end);
        }
    }
    (bytewise, whole)
}

/// A quote whose question needs more than 64 bytes: fed a byte at a time,
/// its value shows at most 16 bytes after it shows fed whole. (When the
/// retries doubled from 64, the next came 128 bytes after the quote, past
/// the end of the first input: its snapshot was `{}` until `finish`.)
#[test]
fn a_long_question_holds_the_snapshot_back_16_bytes_at_most() {
    let cases = [
        // A key opened straight and closed curly, and keys in curly quotes:
        // the key after them, opened straight, settles the style.
        (
            "{\"value\u{201d}: \u{201c}a==b\u{201d}, \u{201c}format\u{201d}: 100, \u{201c}query\u{201d}: \u{201c}x, y\u{201d}, \u{201c}line\u{201d}: true, \"file\u{201d}: \u{201c}rust serde json\u{201d}, \"target\u{201d}: 42}",
            "a==b",
        ),
    ];
    for (input, marker) in cases {
        let (bytewise, whole) = first_showing(input.as_bytes(), marker);
        let whole = whole.unwrap_or_else(|| panic!("{input:?}: {marker:?} never shows"));
        let bytewise = bytewise.unwrap_or(input.len() + 1);
        assert!(
            bytewise <= whole + 16,
            "{input:?}: {marker:?} shows after {whole} bytes fed whole, after {bytewise} a byte at a time"
        );
    }
}
