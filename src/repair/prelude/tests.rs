//! The prelude against the machine (see `prelude.rs`): for every prefix of
//! valid inputs (the corpus's expected outputs, hand-picked cases, and
//! generated documents), a repairer that reads with the prelude shows the
//! machine's snapshot, commits a prefix of what the machine commits, and
//! finishes with the machine's outcome; for malformed inputs (the corpus's
//! inputs and faults planted in the valid ones), the hand-over gives the
//! machine's outcome and never hands out text twice.

use std::path::Path;

use crate::repair::{Machine, Options, Repairer, Retain};

/// A repairer that runs the machine from the first byte.
fn machine_only() -> Repairer {
    Repairer {
        machine: Machine::new(Options::default()),
        prelude: None,
        failed: None,
    }
}

/// Every prefix (at most about 300 of them): the same snapshot, and the
/// prelude's committed text a prefix of the machine's.
fn check_prefixes(input: &[u8]) {
    let step = (input.len() / 300).max(1);
    for p in (0..=input.len()).step_by(step) {
        let mut with = Repairer::new(Options::default());
        let mut without = machine_only();
        let (a, b) = (with.feed(&input[..p]), without.feed(&input[..p]));
        let (Ok(a), Ok(b)) = (a.map(str::to_owned), b.map(str::to_owned)) else {
            panic!("limit crossed on {:?}", String::from_utf8_lossy(input));
        };
        let prefix = String::from_utf8_lossy(&input[..p]);
        assert!(
            b.starts_with(&a),
            "{prefix:?}: committed {a:?}, machine {b:?}"
        );
        assert_eq!(
            with.snapshot().to_string(),
            without.snapshot().to_string(),
            "snapshot of {prefix:?}"
        );
    }
}

/// The whole input in chunks of `size`: the same outcome, committed text
/// that is the start of it, and (valid input) the same snapshots.
fn check_stream(input: &[u8], size: usize, snapshots: bool) {
    let mut with = Repairer::new(Options::default());
    let mut without = machine_only();
    let mut committed = String::new();
    for chunk in input.chunks(size) {
        committed.push_str(with.feed(chunk).unwrap());
        without.feed(chunk).unwrap();
        let snapshot = with.snapshot().to_string();
        assert!(snapshot.starts_with(&committed) || snapshot.is_empty());
        if snapshots {
            assert_eq!(snapshot, without.snapshot().to_string());
        }
    }
    let (a, b) = (with.finish().unwrap(), without.finish().unwrap());
    let name = String::from_utf8_lossy(input);
    assert_eq!(a.text(), b.text(), "{name:?} in chunks of {size}");
    assert_eq!(a.verdict(), b.verdict(), "{name:?}");
    assert_eq!(a.fixes(), b.fixes(), "{name:?}");
    assert_eq!(a.doubts(), b.doubts(), "{name:?}");
    assert!(a.text().starts_with(&committed), "{name:?}");
}

/// The whole input in chunks of `size` with `Retain::Unreturned` (the
/// JavaScript `Repairer`, the CLI's streams), against a repairer that keeps
/// everything, the prelude's hand-over included: a snapshot starts with the
/// piece the last feed returned, so the text returned before that piece
/// and the snapshot make the kept repairer's snapshot; what the feeds
/// return and what `finish` returns make its text; the verdict, fixes and
/// doubts are the same.
fn check_unreturned(input: &[u8], size: usize) {
    let mut forgets = Repairer::new(Options::default().retain(Retain::Unreturned));
    let mut keeps = Repairer::new(Options::default());
    let name = String::from_utf8_lossy(input);
    // Returned before the last piece, and the last piece.
    let (mut before, mut piece) = (String::new(), String::new());
    for (n, chunk) in input.chunks(size).enumerate() {
        before.push_str(&piece);
        piece = forgets.feed(chunk).unwrap().to_owned();
        keeps.feed(chunk).unwrap();
        let shown = forgets.snapshot().to_string();
        assert!(shown.starts_with(&piece), "{name:?}, chunk {n} of {size}");
        assert_eq!(
            format!("{before}{shown}"),
            keeps.snapshot().to_string(),
            "{name:?}, chunk {n} of {size}"
        );
    }
    before.push_str(&piece);
    let (a, b) = (forgets.finish().unwrap(), keeps.finish().unwrap());
    assert_eq!(
        format!("{before}{}", a.text()),
        b.text(),
        "{name:?} in chunks of {size}"
    );
    assert_eq!(a.verdict(), b.verdict(), "{name:?}");
    assert_eq!(a.fixes(), b.fixes(), "{name:?}");
    assert_eq!(a.doubts(), b.doubts(), "{name:?}");
}

fn check_valid(input: &[u8]) {
    check_prefixes(input);
    for size in [1, 3, 16] {
        if size > 1 || input.len() < 2000 {
            check_stream(input, size, true);
        }
    }
    for size in [3, 16, input.len().max(1)] {
        check_unreturned(input, size);
    }
}

fn check_malformed(input: &[u8]) {
    for size in [3, 16, input.len().max(1)] {
        check_stream(input, size, false);
        check_unreturned(input, size);
    }
}

/// The cases each rule of `Prelude::view` and `commit_point` was found on.
const CASES: &[&str] = &[
    "{\"path\": \"a/b.py\", \"n\": [1, -2.5e3, true, null], \"o\": {\"k\": \"v\\n\\u00e9x\"}, \"e\": [], \"f\": {} }",
    "{\n  \"a\": [\n    1,\n    \"x y \",\n    {\"b\": null}\n  ],\n  \"c\": \"d}\"\n}\n",
    "  {\"a\": \"x\" , \"b\": \"{x}}\", \"c\": \"(x}\", \"d\": [\"x]\", \"x] }\"] }",
    "[ 1 , 2 , 3 ]",
    "[\"x\", \"y\", [\"z\"], {\"a\": \"path\"}]",
    "{\"path\": \"path\", \"content\": \"co\", \"p\": \"a,\"}",
    "{\"a\": \"\\\\\", \"b\": \"\\\"\", \"c\": \"\\ud83d\\ude00\", \"d\": \"é “x” ’\"}",
    "{\"a\": [[], [1], {}], \"b\": -0.5E+10, \"c\": 0}",
    "{\"\": 1}",
    "{\",\": 1}",
    "[[], \"x\", 1]",
];

fn corpus_files(dir: &Path, ext: &str, out: &mut Vec<Vec<u8>>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            corpus_files(&path, ext, out);
        } else if path.extension().is_some_and(|e| e == ext)
            && let Ok(bytes) = std::fs::read(&path)
            && bytes.len() < 20_000
        {
            out.push(bytes);
        }
    }
}

/// A small generator of valid documents (a fixed seed): nesting, every
/// kind of value, and the whitespace and string text the rules turn on.
fn generated(seed: u64, n: usize) -> Vec<String> {
    let mut state = seed;
    let mut next = move |k: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % k
    };
    const WS: [&str; 5] = ["", " ", "\n  ", "  ", "\t"];
    const TEXT: [&str; 12] = [
        "x", "a b", "}", "]", " ", "x }", "{", "\\n", "\\\"", "é", ",", "path",
    ];
    const KEYS: [&str; 4] = ["path", "content", "a", "n"];
    let mut docs = Vec::new();
    for _ in 0..n {
        let mut out = String::new();
        // An explicit stack: (is_object, members left).
        let mut stack: Vec<(bool, u64)> = Vec::new();
        let top_object = next(3) != 0;
        out.push(if top_object { '{' } else { '[' });
        stack.push((top_object, 1 + next(4)));
        let mut first = true;
        while let Some(&mut (object, ref mut left)) = stack.last_mut() {
            if *left == 0 {
                out.push_str(WS[next(5) as usize]);
                out.push(if object { '}' } else { ']' });
                stack.pop();
                first = false;
                continue;
            }
            *left -= 1;
            if !first {
                out.push_str(WS[next(5) as usize]);
                out.push(',');
            }
            first = false;
            out.push_str(WS[next(5) as usize]);
            if object {
                out.push('"');
                out.push_str(KEYS[next(4) as usize]);
                out.push_str("\":");
                out.push_str(WS[next(3) as usize]);
            }
            match next(if stack.len() < 4 { 7 } else { 5 }) {
                0 | 1 => {
                    out.push('"');
                    for _ in 0..next(4) {
                        out.push_str(TEXT[next(12) as usize]);
                    }
                    out.push('"');
                }
                2 => out.push_str(["0", "-1", "2.5", "1e-3", "10"][next(5) as usize]),
                3 => out.push_str(["true", "false", "null"][next(3) as usize]),
                4 => out.push_str(["[]", "{}"][next(2) as usize]),
                kind => {
                    let object = kind == 5;
                    out.push(if object { '{' } else { '[' });
                    stack.push((object, next(4)));
                    first = true;
                }
            }
        }
        docs.push(out);
    }
    docs
}

#[test]
fn valid_prefixes_match_the_machine() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut inputs: Vec<Vec<u8>> = CASES.iter().map(|c| c.as_bytes().to_vec()).collect();
    corpus_files(&root.join("corpus"), "out", &mut inputs);
    inputs.extend(generated(45, 400).into_iter().map(String::into_bytes));
    assert!(inputs.len() > 400, "the corpus is missing");
    for input in &inputs {
        check_valid(input);
    }
}

#[test]
fn malformed_input_hands_over_to_the_machine() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut inputs = Vec::new();
    corpus_files(&root.join("corpus"), "in", &mut inputs);
    // Faults planted at every tenth byte of generated documents: the
    // prelude reads up to them, then hands over.
    for doc in generated(7, 60) {
        let bytes = doc.as_bytes();
        for at in (1..bytes.len()).step_by(10) {
            for fault in [&b"'"[..], b",", b"}", b"\n", b"\"", b"\xff"] {
                let mut input = bytes[..at].to_vec();
                input.extend_from_slice(fault);
                input.extend_from_slice(&bytes[at..]);
                inputs.push(input);
            }
            inputs.push(bytes[..at].to_vec());
        }
    }
    assert!(inputs.len() > 1000, "the corpus is missing");
    for input in &inputs {
        check_malformed(input);
    }
}

/// A chunk that completes a cut character and then breaks UTF-8: the
/// machine takes over with the chunk's bytes once, not twice.
#[test]
fn a_cut_character_completed_before_invalid_bytes_is_read_once() {
    let input = "{\"a\": \"é\u{ff}x\"}".as_bytes().to_vec();
    let mut input = input;
    // `é` is C3 A9; put a lone FF byte after it.
    let at = input.iter().position(|&b| b == 0xC3).unwrap();
    input.splice(at + 2..at + 4, [0xFF]);
    for cut in 1..input.len() {
        let mut with = Repairer::new(Options::default());
        let mut committed = String::new();
        committed.push_str(with.feed(&input[..cut]).unwrap());
        committed.push_str(with.feed(&input[cut..]).unwrap());
        let whole = crate::repair(&input);
        let streamed = with.finish().unwrap();
        assert_eq!(streamed.text(), whole.text(), "cut at {cut}");
        assert_eq!(streamed.fixes(), whole.fixes(), "cut at {cut}");
        assert!(streamed.text().starts_with(&committed), "cut at {cut}");
    }
}

/// With `Retain::Unreturned` the prelude holds at most `HELD_MAX` bytes of
/// input (its memory stays bounded, as that option promises); past it the
/// machine takes over, and the answer is the one a kept repairer gives.
#[test]
fn a_repairer_that_forgets_leaves_the_prelude_past_its_bound() {
    let row = "{\"id\": 12345, \"name\": \"a row of text\", \"tags\": [\"x\", \"y\"]}";
    let mut input = String::from("[");
    while input.len() <= super::HELD_MAX + 4096 {
        input.push_str(row);
        input.push_str(",\n");
    }
    input.push_str(row);
    input.push(']');
    let mut forgets = Repairer::new(Options::default().retain(Retain::Unreturned));
    let mut keeps = Repairer::new(Options::default());
    let mut returned = String::new();
    let mut fed = 0;
    for chunk in input.as_bytes().chunks(4096) {
        returned.push_str(forgets.feed(chunk).unwrap());
        keeps.feed(chunk).unwrap();
        fed += chunk.len();
        assert_eq!(
            forgets.prelude.is_some(),
            fed <= super::HELD_MAX,
            "after {fed} bytes"
        );
        // The kept repairer reads on with its prelude.
        assert!(keeps.prelude.is_some());
    }
    let (a, b) = (forgets.finish().unwrap(), keeps.finish().unwrap());
    returned.push_str(a.text());
    assert_eq!(returned, b.text());
    assert_eq!(returned, input);
    assert_eq!(a.verdict(), b.verdict());
}
