//! Families of damage around keys and the whitespace between members, from
//! the extra real cases collected for issue 42 (agent-framework and model
//! server trackers; `../shared/real_failures/`):
//!
//! - a key's end quote dropped before its colon: `{"selected: ["A", "C"]}`
//!   (deepseek-ai/DeepSeek-V3#1069), `{"name: "Ada"}`;
//! - a key's opening quote written twice: `{""5": "10-10"}`
//!   (Qarj/fix-busted-json#2);
//! - line breaks written as their escapes between tokens, JSON escaped once
//!   too often: `"view_range": \n[2142, 2250]\n\n}`
//!   (OpenHands/software-agent-sdk#2488).

use super::families::{Made, Skip, made, next_solid, written};
use super::tokens::{Draw, Layout, Tok};

/// `"key: ` for `"key": ` where the value is a string or a container (the
/// quote or opener after the colon shows where the key ended).
pub(super) fn key_end_quote(draw: &mut Draw<'_>, layout: Layout) -> Made {
    let truth = draw.sized(1, 1, 4);
    let mut toks = written(&truth, layout);
    let sites: Vec<usize> = (0..toks.len())
        .filter(|&i| matches!(&toks[i], Tok::Key(k) if k.len() > 2 && !k[1..k.len() - 1].contains(['"', '\\', ':'])))
        .filter(|&i| {
            next_solid(&toks, i)
                .and_then(|colon| next_solid(&toks, colon))
                .is_some_and(|v| match &toks[v] {
                    Tok::Scalar(s) => s.starts_with('"'),
                    Tok::Open(_) => true,
                    _ => false,
                })
        })
        .collect();
    if sites.is_empty() {
        return Err(Skip::NoSite);
    }
    let at = *draw.rng.pick(&sites);
    if let Tok::Key(key) = &toks[at] {
        let cut = key[..key.len() - 1].to_owned();
        toks[at] = Tok::Key(cut);
    }
    // The colon keeps the space the layout gives it, which the key's text
    // then ends with.
    made(&toks, truth)
}

/// `""key":` for `"key":`.
pub(super) fn doubled_key_quote(draw: &mut Draw<'_>, layout: Layout) -> Made {
    let truth = draw.sized(1, 1, 4);
    let mut toks = written(&truth, layout);
    let sites: Vec<usize> = (0..toks.len())
        .filter(|&i| matches!(&toks[i], Tok::Key(k) if k.len() > 2 && k[1..k.len() - 1].bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')))
        .collect();
    if sites.is_empty() {
        return Err(Skip::NoSite);
    }
    let at = *draw.rng.pick(&sites);
    if let Tok::Key(key) = &toks[at] {
        toks[at] = Tok::Key(format!("\"{key}"));
    }
    made(&toks, truth)
}

/// Line breaks between tokens written as `\n` (indentation kept), or a `\n`
/// put after a colon or between closers in a layout without them; never
/// right after a string (see the filter).
pub(super) fn escaped_newlines(draw: &mut Draw<'_>, layout: Layout) -> Made {
    let truth = draw.sized(1, 1, 4);
    let mut toks = written(&truth, layout);
    let sites: Vec<usize> = (0..toks.len())
        .filter(|&i| match &toks[i] {
            // Not right after a string's end quote: there `\n` may as well
            // be the text's own (code whose quotes were not escaped), and
            // the engine leaves it to the string (a known miss).
            Tok::Ws(ws) => {
                ws.contains('\n')
                    && i > 0
                    && !matches!(&toks[i - 1], Tok::Scalar(s) if s.starts_with('"'))
            }
            Tok::Colon(_) => true,
            Tok::Close(_) => i > 0 && matches!(toks[i - 1], Tok::Close(_) | Tok::Open(_)),
            _ => false,
        })
        .collect();
    if sites.is_empty() {
        return Err(Skip::NoSite);
    }
    let n = 1 + draw.rng.below(sites.len().min(3));
    let mut chosen = sites.clone();
    draw.rng.shuffle(&mut chosen);
    chosen.truncate(n);
    chosen.sort_unstable_by(|a, b| b.cmp(a));
    for at in chosen {
        match toks[at].clone() {
            Tok::Ws(ws) => toks[at] = Tok::Ws(ws.replace('\n', "\\n")),
            Tok::Colon(colon) => toks[at] = Tok::Colon(format!("{}\\n", colon.trim_end())),
            _ => toks.insert(at, Tok::Ws("\\n".to_owned())),
        }
    }
    made(&toks, truth)
}
