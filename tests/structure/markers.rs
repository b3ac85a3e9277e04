//! Gemma 4's string marker leaking into the arguments: its tool-call syntax
//! quotes strings with `<|"|>` (`{key:<|"|>text<|"|>,n:42}`), and a server
//! whose parser lets the model's syntax through hands that on as the
//! arguments. Drawn from the trackers of model servers and agent runtimes:
//!
//! - every string between markers, bare keys: the format itself
//!   (ml-explore/mlx-lm#1105, sgl-project/sglang#39240), and a key between
//!   markers (vllm-project/vllm#44758: `record_map:{<|"|>3<|"|>:…}`);
//! - only some strings between markers, the rest plain JSON: the model mixes
//!   the two (vllm-project/vllm#51284, #39484);
//! - `<|">` for the marker (tinyagents#68: `[<|">discord<|">]`, a Kimi
//!   model behind a gateway);
//! - a `"` inside the text written as the marker itself
//!   (vllm-project/vllm#48678: `duckdb.sql(<|"|><|"|><|"|> SELECT …`);
//! - a string's opening marker dropped, its closing one kept
//!   (sgl-project/sglang#39240: `{query:weather in Tokyo<|"|>}`, on a
//!   third of the calls at temperature 0.8).

use super::families::{Made, Skip, made, written};
use super::tokens::{Draw, Layout, Tok};

/// How the draft leaks the markers.
#[derive(Clone, Copy)]
enum Leak {
    /// Gemma's own syntax: bare keys (or keys between markers), every
    /// string between markers.
    Native,
    /// Some strings between markers, the rest JSON.
    Some,
}

pub(super) fn template_quotes(draw: &mut Draw<'_>, layout: Layout) -> Made {
    let truth = draw.sized(1, 1, 4);
    let mut toks = written(&truth, layout);
    let strings: Vec<usize> = (0..toks.len())
        .filter(|&i| matches!(&toks[i], Tok::Scalar(s) if s.starts_with('"')))
        .collect();
    if strings.is_empty() {
        return Err(Skip::NoSite);
    }
    let marker = if draw.rng.chance(20) {
        "<|\">"
    } else {
        "<|\"|>"
    };
    let leak = if draw.rng.chance(50) {
        Leak::Native
    } else {
        Leak::Some
    };
    // A quote inside the text: written raw, or (Gemma's way) as the marker
    // when what follows it is text, not structure.
    let as_marker = draw.rng.chance(50);
    let mut changed = 0;
    for tok in &mut toks {
        match tok {
            Tok::Scalar(s) if s.starts_with('"') => {
                if matches!(leak, Leak::Some) && changed > 0 && draw.rng.chance(50) {
                    continue;
                }
                let plain = s[1..s.len() - 1]
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b' ')
                    && s.len() > 3;
                *s = between(s, marker, as_marker);
                if matches!(leak, Leak::Native) && plain && draw.rng.chance(20) {
                    // Only words and spaces: a bare value up to the marker.
                    *s = s[marker.len()..].to_owned();
                }
                changed += 1;
            }
            Tok::Key(k) if matches!(leak, Leak::Native) => {
                let name = &k[1..k.len() - 1];
                let bare = name.bytes().enumerate().all(|(i, b)| {
                    b.is_ascii_alphabetic() || b == b'_' || (i > 0 && b.is_ascii_digit())
                });
                *k = if bare && !name.is_empty() {
                    name.to_owned()
                } else {
                    between(k, marker, false)
                };
            }
            _ => {}
        }
    }
    made(&toks, truth)
}

/// A JSON string `s` (quotes included) written between `marker`s: its
/// escapes kept, but an escaped quote written raw (or as the marker, where
/// the next character is a letter, as in Gemma's own text).
fn between(s: &str, marker: &str, as_marker: bool) -> String {
    let body = &s[1..s.len() - 1];
    let mut out = String::from(marker);
    let mut chars = body.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '\\' && body[i + 1..].starts_with('"') {
            chars.next();
            let letter_next = body[i + 2..].starts_with(|c: char| c.is_alphabetic());
            out.push_str(if as_marker && letter_next {
                marker
            } else {
                "\""
            });
        } else if c == '\\' {
            out.push(c);
            if let Some((_, escaped)) = chars.next() {
                out.push(escaped);
            }
        } else {
            out.push(c);
        }
    }
    out.push_str(marker);
    out
}
