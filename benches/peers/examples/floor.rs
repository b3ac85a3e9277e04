//! A floor for issue 17's one-shot target: the least a repairer can do on
//! the malformed API fixture and still produce the right value.
//!
//! `floor_repair` below handles exactly the mistakes the fixture makes
//! (single-quoted strings and keys, bare keys, Python literals, comments,
//! trailing and missing commas) in one pass that writes its output as it
//! goes, and nothing else: no judgement of quotes, no streaming, no safe
//! points, no fix log, no UTF-8 check, no limits. It is not a repairer
//! anyone should use (an unescaped quote inside a string breaks it); it
//! measures what the fixture's edits cost by themselves, against
//! serde_json's `IgnoredAny` on the valid twin and argmend, in one run:
//!
//! ```sh
//! cd benches/peers && cargo run --release --example floor -- [SIZE_BYTES | call] [ROUNDS]
//! ```
//!
//! It checks first that its output parses to the valid twin's value.

use argmend_peers::SEED;
use argmend_peers::fixtures;
use std::time::Instant;

#[derive(Clone, Copy, PartialEq)]
enum Expect {
    Key,
    Colon,
    Value,
    After,
}

/// The fixture's malformed document repaired, by the shortest route.
fn floor_repair(src: &[u8]) -> Option<Vec<u8>> {
    // The tool call's Markdown fence.
    let src = match src.strip_prefix(b"```json\n") {
        Some(inner) => inner.strip_suffix(b"\n```")?,
        None => src,
    };
    let mut out = Vec::with_capacity(src.len() + src.len() / 8);
    let mut stack: Vec<u8> = Vec::new();
    let mut expect = Expect::Value;
    // Input copied up to here; an edit flushes the run before it.
    let mut copied = 0;
    // The output position of a comma just written, and where the value
    // before the next separator ended (a missing comma goes there).
    let mut comma_at: Option<usize> = None;
    let mut value_end = 0;
    let mut i = 0;
    let n = src.len();
    // Copy the input up to `$to` (exclusive); the next copy starts at
    // `$resume` (past what an edit replaces), `$to` when not given.
    macro_rules! flush {
        ($to:expr) => {
            flush!($to, $to)
        };
        ($to:expr, $resume:expr) => {{
            out.extend_from_slice(&src[copied..$to]);
            copied = $resume;
        }};
    }
    // A closer at `i`: the value it ends is where a missing comma would go.
    macro_rules! close {
        () => {{
            i += 1;
            stack.pop();
            expect = Expect::After;
            flush!(i);
            value_end = out.len();
        }};
    }
    // What comes after a separator in the innermost container.
    macro_rules! member {
        () => {
            if stack.last() == Some(&b'{') {
                Expect::Key
            } else {
                Expect::Value
            }
        };
    }
    while i < n {
        let b = src[i];
        match b {
            b' ' | b'\n' | b'\r' | b'\t' => {
                i += 1;
                continue;
            }
            b'/' => {
                let end = if src.get(i + 1) == Some(&b'/') {
                    memchr_byte(src, i, b'\n').unwrap_or(n)
                } else {
                    find2(src, i + 2, b'*', b'/')? + 2
                };
                flush!(i, end);
                i = end;
                continue;
            }
            _ => {}
        }
        match expect {
            Expect::Colon => {
                if b != b':' {
                    return None;
                }
                i += 1;
                expect = Expect::Value;
            }
            Expect::After => match b {
                b',' => {
                    flush!(i + 1);
                    comma_at = Some(out.len() - 1);
                    i += 1;
                    expect = member!();
                }
                b'}' | b']' => close!(),
                _ => {
                    // A missing comma: it goes where the value ended.
                    flush!(i);
                    out.insert(value_end, b',');
                    expect = member!();
                }
            },
            Expect::Key | Expect::Value => {
                if (b == b'}' || b == b']') && comma_at.is_some() {
                    // A trailing comma.
                    flush!(i);
                    out.remove(comma_at.take()?);
                    continue;
                }
                comma_at = None;
                match b {
                    b'}' | b']' => {
                        close!();
                        continue;
                    }
                    b'{' | b'[' => {
                        stack.push(b);
                        i += 1;
                        expect = if b == b'{' {
                            Expect::Key
                        } else {
                            Expect::Value
                        };
                        continue;
                    }
                    _ => {}
                }
                let key = expect == Expect::Key;
                match b {
                    b'"' => {
                        let mut k = i + 1;
                        loop {
                            k = find2(src, k, b'"', b'\\')?;
                            if src[k] == b'\\' {
                                k += 2;
                            } else {
                                break;
                            }
                        }
                        i = k + 1;
                    }
                    b'\'' => {
                        out.extend_from_slice(&src[copied..i]);
                        out.push(b'"');
                        let mut k = i + 1;
                        loop {
                            let s = find3(src, k, b'\'', b'"', b'\\')?;
                            out.extend_from_slice(&src[k..s]);
                            match src[s] {
                                b'\'' => {
                                    k = s + 1;
                                    break;
                                }
                                b'"' => {
                                    out.extend_from_slice(b"\\\"");
                                    k = s + 1;
                                }
                                _ => {
                                    if src.get(s + 1) == Some(&b'\'') {
                                        out.push(b'\'');
                                    } else {
                                        out.extend_from_slice(&src[s..s + 2]);
                                    }
                                    k = s + 2;
                                }
                            }
                        }
                        out.push(b'"');
                        i = k;
                        copied = k;
                    }
                    b'-' | b'0'..=b'9' if !key => {
                        i += 1;
                        while i < n
                            && matches!(src[i], b'0'..=b'9' | b'.' | b'e' | b'E' | b'-' | b'+')
                        {
                            i += 1;
                        }
                    }
                    _ => {
                        let mut k = i;
                        while k < n && (src[k].is_ascii_alphanumeric() || src[k] == b'_') {
                            k += 1;
                        }
                        let word = &src[i..k];
                        if key {
                            flush!(i, k);
                            out.push(b'"');
                            out.extend_from_slice(word);
                            out.push(b'"');
                        } else {
                            let json: &[u8] = match word {
                                b"true" | b"false" | b"null" => word,
                                b"True" => b"true",
                                b"False" => b"false",
                                b"None" => b"null",
                                _ => return None,
                            };
                            if json != word {
                                flush!(i, k);
                                out.extend_from_slice(json);
                            }
                        }
                        i = k;
                    }
                }
                if key {
                    expect = Expect::Colon;
                } else {
                    expect = Expect::After;
                    flush!(i);
                    value_end = out.len();
                }
            }
        }
    }
    out.extend_from_slice(&src[copied..]);
    Some(out)
}

fn memchr_byte(src: &[u8], from: usize, b: u8) -> Option<usize> {
    src[from..].iter().position(|&c| c == b).map(|k| from + k)
}

/// The first `a` or `b` at or after `from` (eight bytes at a time).
fn find2(src: &[u8], from: usize, a: u8, b: u8) -> Option<usize> {
    find_any(src, from, |c| c == a || c == b, [a, b, b])
}

fn find3(src: &[u8], from: usize, a: u8, b: u8, c: u8) -> Option<usize> {
    find_any(src, from, |x| x == a || x == b || x == c, [a, b, c])
}

#[inline(always)]
fn find_any(src: &[u8], from: usize, is: impl Fn(u8) -> bool, stops: [u8; 3]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut k = from;
    while let Some(chunk) = src.get(k..k + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let v = u64::from_le_bytes(word);
        let mut found = 0;
        for s in stops {
            let x = v ^ (ONES * u64::from(s));
            found |= x.wrapping_sub(ONES) & !x;
        }
        let found = found & HIGH;
        if found != 0 {
            return Some(k + found.trailing_zeros() as usize / 8);
        }
        k += 8;
    }
    (k..src.len()).find(|&j| is(src[j]))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let what = std::env::args().nth(1).unwrap_or_else(|| "1000000".into());
    // `call`: the 192-byte tool call; else the API document of that size.
    let size: usize = what.parse().unwrap_or(200);
    let rounds: usize = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(15);
    let twin = if what == "call" {
        fixtures::tool_call()
    } else {
        fixtures::api_doc(size, SEED)
    };
    if let Ok(needle) = std::env::var("FLOOR_SHOW") {
        let text = String::from_utf8_lossy(&twin.malformed);
        if let Some(at) = text.find(&needle) {
            eprintln!(
                "{:?}",
                &text[at.saturating_sub(80)..(at + 80).min(text.len())]
            );
        }
    }
    let want: serde_json::Value = serde_json::from_slice(&twin.valid).expect("valid twin");
    let floor = floor_repair(&twin.malformed).expect("the floor reads the fixture");
    let got: serde_json::Value = match serde_json::from_slice(&floor) {
        Ok(v) => v,
        Err(e) => {
            let text = String::from_utf8_lossy(&floor);
            let line = text.lines().nth(e.line() - 1).unwrap_or("");
            let at = e.column().min(line.len());
            panic!("{e}: {}", &line[at.saturating_sub(120)..at]);
        }
    };
    assert!(
        got == want,
        "the floor's output is not the valid twin's value"
    );
    let reps = (50_000_000 / twin.malformed.len()).max(1);
    let time = |f: &dyn Fn() -> usize| {
        let started = Instant::now();
        let mut total = 0;
        for _ in 0..reps {
            total += f();
        }
        std::hint::black_box(total);
        started.elapsed().as_secs_f64() / reps as f64
    };
    let (mut serde, mut floor, mut argmend) = (vec![], vec![], vec![]);
    for _ in 0..rounds {
        serde.push(time(&|| {
            let _: serde::de::IgnoredAny =
                serde_json::from_slice(std::hint::black_box(&twin.valid)).expect("valid");
            1
        }));
        floor.push(time(&|| {
            floor_repair(std::hint::black_box(&twin.malformed)).map_or(0, |o| o.len())
        }));
        argmend.push(time(&|| {
            argmend::repair(std::hint::black_box(&twin.malformed))
                .text()
                .len()
        }));
    }
    let (s, f, a) = (median(serde), median(floor), median(argmend));
    println!(
        "{} bytes: serde_json IgnoredAny (valid) {:.0} ns, floor {:.0} ns ({:.2}× serde's speed), argmend {:.0} ns ({:.2}×; {:.2}× the floor's time)",
        twin.malformed.len(),
        s * 1e9,
        f * 1e9,
        s / f,
        a * 1e9,
        s / a,
        a / f
    );
}
