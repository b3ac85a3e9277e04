//! The families of structural damage, each drawn from what models really
//! wrote (`../shared/real_failures/`, the issue threads of agent frameworks
//! and repair libraries): a truth, written as tokens in a layout, damaged at
//! one site the way the real cases show.
//!
//! A family keeps only damage that shows where it is: the first place the
//! damaged text stops reading as JSON lies at the damaged site or within the
//! two tokens after it. A doubled `}` that closes an object early and still
//! leaves valid JSON for a while (`{"a": {"b": 1}}, "c": 2, …`, where `c`
//! now reads as a member of the outer object) is damage no one-pass reader
//! can place, and it would make the truth a guess; such drafts are dropped
//! and counted.

use serde_json::Value;

use super::keys;
use super::markers;
use super::pool::{EMBEDDED_JSON, MARKDOWN_STRINGS, PROSE_LINES, REFUSALS};
use super::tokens::{Draw, Layout, Tok, render, write};
use crate::rng::Rng;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Family {
    ClosersSwapped,
    ClosersDoubled,
    ClosersShort,
    MissingOpenerRows,
    MissingOpenerObjects,
    Restarted,
    EchoedKey,
    StrayFragments,
    GluedAfterString,
    GluedCut,
    GluedAfterNumber,
    GluedAfterLiteral,
    CloserInString,
    ProseMarker,
    DoubledBraces,
    OpenedTwice,
    OpenedAsArray,
    MarkdownEscapes,
    ProseLines,
    DoublyEscaped,
    Refusal,
    KeyEndQuote,
    DoubledKeyQuote,
    EscapedNewlines,
    TemplateQuotes,
}

impl Family {
    pub(super) const ALL: [Family; 25] = [
        Family::ClosersSwapped,
        Family::ClosersDoubled,
        Family::ClosersShort,
        Family::MissingOpenerRows,
        Family::MissingOpenerObjects,
        Family::Restarted,
        Family::EchoedKey,
        Family::StrayFragments,
        Family::GluedAfterString,
        Family::GluedCut,
        Family::GluedAfterNumber,
        Family::GluedAfterLiteral,
        Family::CloserInString,
        Family::ProseMarker,
        Family::DoubledBraces,
        Family::OpenedTwice,
        Family::OpenedAsArray,
        Family::MarkdownEscapes,
        Family::ProseLines,
        Family::DoublyEscaped,
        Family::Refusal,
        Family::KeyEndQuote,
        Family::DoubledKeyQuote,
        Family::EscapedNewlines,
        Family::TemplateQuotes,
    ];

    pub(super) fn name(self) -> &'static str {
        match self {
            Family::ClosersSwapped => "closers_swapped",
            Family::ClosersDoubled => "closers_doubled",
            Family::ClosersShort => "closers_short",
            Family::MissingOpenerRows => "missing_opener_rows",
            Family::MissingOpenerObjects => "missing_opener_objects",
            Family::Restarted => "restarted_object",
            Family::EchoedKey => "echoed_key",
            Family::StrayFragments => "stray_fragments",
            Family::GluedAfterString => "glued_after_string",
            Family::GluedCut => "glued_cut_string",
            Family::GluedAfterNumber => "glued_after_number",
            Family::GluedAfterLiteral => "glued_after_literal",
            Family::CloserInString => "closer_in_string_at_end",
            Family::ProseMarker => "prose_marker_fence",
            Family::DoubledBraces => "doubled_braces",
            Family::OpenedTwice => "object_opened_twice",
            Family::OpenedAsArray => "object_opened_as_array",
            Family::MarkdownEscapes => "markdown_escapes",
            Family::ProseLines => "prose_lines_inside",
            Family::DoublyEscaped => "doubly_escaped",
            Family::Refusal => "refusal",
            Family::KeyEndQuote => "key_end_quote_missing",
            Family::DoubledKeyQuote => "key_quote_doubled",
            Family::EscapedNewlines => "escaped_newlines_between",
            Family::TemplateQuotes => "template_quotes",
        }
    }
}

/// A damaged text and what it means: `None` for text that holds no JSON
/// (a refusal), which must come back as not JSON.
pub(super) struct Draft {
    pub(super) raw: String,
    pub(super) truth: Option<Value>,
}

/// Why a draft was not made.
pub(super) enum Skip {
    /// The truth has no site for the family: draw again.
    NoSite,
    /// The damage leaves the text reading as JSON past its site.
    Hidden,
}

pub(super) type Made = Result<Draft, Skip>;

pub(super) fn draft(family: Family, rng: &mut Rng, layout: Layout) -> Made {
    let mut draw = Draw { rng };
    match family {
        Family::ClosersSwapped | Family::ClosersDoubled | Family::ClosersShort => {
            closers(family, &mut draw, layout)
        }
        Family::MissingOpenerRows | Family::MissingOpenerObjects => {
            missing_opener(family, &mut draw, layout)
        }
        Family::Restarted => restarted(&mut draw, layout),
        Family::EchoedKey => echoed(&mut draw, layout),
        Family::StrayFragments => fragments(&mut draw, layout),
        Family::GluedAfterString
        | Family::GluedCut
        | Family::GluedAfterNumber
        | Family::GluedAfterLiteral => glued(family, &mut draw, layout),
        Family::CloserInString => closer_in_string(&mut draw, layout),
        Family::ProseMarker => prose_marker(&mut draw, layout),
        Family::DoubledBraces => doubled_braces(&mut draw, layout),
        Family::OpenedTwice => opened_twice(&mut draw, layout),
        Family::OpenedAsArray => opened_as_array(&mut draw, layout),
        Family::MarkdownEscapes => markdown(&mut draw, layout),
        Family::ProseLines => prose_lines(&mut draw, layout),
        Family::DoublyEscaped => doubly_escaped(&mut draw, layout),
        Family::KeyEndQuote => keys::key_end_quote(&mut draw, layout),
        Family::DoubledKeyQuote => keys::doubled_key_quote(&mut draw, layout),
        Family::EscapedNewlines => keys::escaped_newlines(&mut draw, layout),
        Family::TemplateQuotes => markers::template_quotes(&mut draw, layout),
        Family::Refusal => Ok(Draft {
            raw: (*draw.rng.pick(REFUSALS)).to_owned(),
            truth: None,
        }),
    }
}

pub(super) fn written(value: &Value, layout: Layout) -> Vec<Tok> {
    let mut toks = Vec::new();
    write(value, layout, 0, &mut toks);
    toks
}

pub(super) fn made(toks: &[Tok], truth: Value) -> Made {
    Ok(Draft {
        raw: render(toks),
        truth: Some(truth),
    })
}

/// The index of the first solid (non-whitespace) token after `i`.
pub(super) fn next_solid(toks: &[Tok], i: usize) -> Option<usize> {
    (i + 1..toks.len()).find(|&j| !toks[j].is_ws())
}

/// The maximal runs of closers (whitespace between allowed), as indices.
fn closer_runs(toks: &[Tok]) -> Vec<Vec<usize>> {
    let mut runs: Vec<Vec<usize>> = Vec::new();
    let mut run: Vec<usize> = Vec::new();
    for (i, tok) in toks.iter().enumerate() {
        if tok.is_close() {
            run.push(i);
        } else if !tok.is_ws() && !run.is_empty() {
            runs.push(std::mem::take(&mut run));
        }
    }
    if !run.is_empty() {
        runs.push(run);
    }
    runs
}

/// Where strictly read tokens first stop being JSON: the index of the
/// offending token (`toks.len()` when the text ends with containers open).
fn first_error(toks: &[Tok]) -> Option<usize> {
    #[derive(PartialEq)]
    enum Want {
        Value,
        Key,
        Colon,
        After,
        Done,
    }
    let mut stack: Vec<u8> = Vec::new();
    let mut want = Want::Value;
    for (i, tok) in toks.iter().enumerate() {
        let in_object = stack.last() == Some(&b'{');
        want = match (tok, want) {
            (Tok::Ws(_), w) => w,
            (Tok::Open(b), Want::Value) => {
                stack.push(*b);
                if *b == b'{' { Want::Key } else { Want::Value }
            }
            (Tok::Scalar(_), Want::Value) => {
                if stack.is_empty() {
                    Want::Done
                } else {
                    Want::After
                }
            }
            (Tok::Close(b), Want::After | Want::Key | Want::Value)
                if stack.last() == Some(&if *b == b'}' { b'{' } else { b'[' }) =>
            {
                stack.pop();
                if stack.is_empty() {
                    Want::Done
                } else {
                    Want::After
                }
            }
            (Tok::Comma, Want::After) => {
                if in_object {
                    Want::Key
                } else {
                    Want::Value
                }
            }
            (Tok::Key(_), Want::Key) if in_object => Want::Colon,
            (Tok::Colon(_), Want::Colon) => Want::Value,
            _ => return Some(i),
        };
    }
    (want != Want::Done).then_some(toks.len())
}

/// Whether the damage that ends at token `last` shows there: the first
/// error lies at most two solid tokens after it.
fn shows(toks: &[Tok], last: usize) -> bool {
    let Some(error) = first_error(toks) else {
        return false;
    };
    let horizon = next_solid(toks, last)
        .and_then(|j| next_solid(toks, j))
        .unwrap_or(toks.len());
    error <= horizon
}

/// An object of tool arguments with nesting: tables of records, lists,
/// objects in objects.
fn deep(draw: &mut Draw<'_>) -> Value {
    let n = 2 + draw.rng.below(4);
    let mut value = draw.object(0, n);
    // At least one member holds records, so closers come in runs.
    if let Value::Object(map) = &mut value {
        let key = draw.keys(1)[0].to_owned();
        let rows = 2 + draw.rng.below(3);
        let mut records = draw.records(rows);
        if draw.rng.chance(50)
            && let Value::Array(items) = &mut records
            && let Some(Value::Object(last)) = items.last_mut()
        {
            let inner = draw.keys(1)[0].to_owned();
            let n = 1 + draw.rng.below(2);
            last.insert(inner, draw.records(n));
        }
        map.insert(key, records);
    }
    if draw.rng.chance(30) {
        // Sometimes the arguments are a list of such objects, records of
        // the same fields (as the lists models write are).
        let keys: Vec<String> = value
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        let second = Value::Object(keys.into_iter().map(|k| (k, draw.member(1))).collect());
        return Value::Array(vec![value, second]);
    }
    value
}

fn closers(family: Family, draw: &mut Draw<'_>, layout: Layout) -> Made {
    let truth = deep(draw);
    let mut toks = written(&truth, layout);
    let runs = closer_runs(&toks);
    // Runs followed by more of the document: what follows decides.
    let followed: Vec<&Vec<usize>> = runs
        .iter()
        .filter(|run| {
            next_solid(&toks, *run.last().unwrap()).is_some_and(|j| toks[j] == Tok::Comma)
        })
        .collect();
    let last = match family {
        Family::ClosersSwapped => {
            let pairs: Vec<(usize, usize)> = runs
                .iter()
                .flat_map(|run| run.windows(2).map(|w| (w[0], w[1])))
                .filter(|&(a, b)| toks[a] != toks[b])
                .collect();
            if pairs.is_empty() {
                return Err(Skip::NoSite);
            }
            let (a, b) = *draw.rng.pick(&pairs);
            toks.swap(a, b);
            b
        }
        Family::ClosersDoubled => {
            if followed.is_empty() {
                return Err(Skip::NoSite);
            }
            let run = draw.rng.pick(&followed);
            let at = *draw.rng.pick(run);
            let closer = toks[at].clone();
            toks.insert(at + 1, closer);
            at + 1
        }
        _ => {
            let long: Vec<&&Vec<usize>> = followed.iter().filter(|run| run.len() >= 2).collect();
            if long.is_empty() {
                return Err(Skip::NoSite);
            }
            let run = draw.rng.pick(&long);
            let at = *draw.rng.pick(run);
            toks.remove(at);
            at.saturating_sub(1)
        }
    };
    if !shows(&toks, last) {
        return Err(Skip::Hidden);
    }
    made(&toks, truth)
}

fn missing_opener(family: Family, draw: &mut Draw<'_>, layout: Layout) -> Made {
    let n = 3 + draw.rng.below(4);
    let list = if family == Family::MissingOpenerRows {
        let width = 2 + draw.rng.below(3);
        draw.table(n, width)
    } else {
        draw.records(n)
    };
    let mut truth = draw.sized(1, 1, 3);
    let key = draw.keys(1)[0].to_owned();
    if let Value::Object(map) = &mut truth {
        if draw.rng.chance(50) {
            // A header row first, as tables come.
            let headers = Value::Array(
                (0..list[0].as_array().map_or(1, Vec::len))
                    .map(|_| draw.string())
                    .collect(),
            );
            map.insert("headers".to_owned(), headers);
        }
        map.insert(key.clone(), list);
    }
    let mut toks = written(&truth, layout);
    // The list's elements open at depth 2: find the opener of element `j`.
    let key_text = Value::String(key).to_string();
    let Some(key_at) = toks.iter().position(|t| *t == Tok::Key(key_text.clone())) else {
        return Err(Skip::NoSite);
    };
    let list_open = (key_at..toks.len())
        .find(|&i| matches!(toks[i], Tok::Open(_)))
        .unwrap();
    let mut depth = 0;
    let mut openers = Vec::new();
    for (i, tok) in toks.iter().enumerate().skip(list_open) {
        match tok {
            Tok::Open(_) => {
                depth += 1;
                if depth == 2 {
                    openers.push(i);
                }
            }
            Tok::Close(_) => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
    }
    if openers.len() < 2 {
        return Err(Skip::NoSite);
    }
    let j = 1 + draw.rng.below(openers.len() - 1);
    let at = openers[j];
    toks.remove(at);
    if !shows(&toks, at) && first_error(&toks).is_none() {
        return Err(Skip::Hidden);
    }
    made(&toks, truth)
}

fn restarted(draw: &mut Draw<'_>, layout: Layout) -> Made {
    let n = 3 + draw.rng.below(3);
    let truth = draw.object(1, n);
    let whole = written(&truth, layout);
    // The first `m` members, then a separator, then the whole object again
    // (as a model prefilled with the start of the object writes it).
    let m = 1 + draw.rng.below(n - 1);
    let mut members = 0;
    let mut cut = 0;
    let mut depth = 0;
    for (i, tok) in whole.iter().enumerate() {
        match tok {
            Tok::Open(_) => depth += 1,
            Tok::Close(_) => depth -= 1,
            Tok::Comma if depth == 1 => {
                members += 1;
                if members == m {
                    cut = i + 1;
                    break;
                }
            }
            _ => {}
        }
    }
    let mut toks: Vec<Tok> = whole[..cut].to_vec();
    if layout != Layout::Compact {
        toks.push(Tok::Ws(
            if draw.rng.chance(50) { " " } else { "" }.to_owned(),
        ));
    }
    toks.extend(whole);
    made(&toks, truth)
}

/// The indices of the keys whose value is a scalar, with the value's index.
fn scalar_members(toks: &[Tok]) -> Vec<(usize, usize)> {
    (0..toks.len())
        .filter(|&i| matches!(toks[i], Tok::Key(_)))
        .filter_map(|i| {
            let colon = next_solid(toks, i)?;
            let value = next_solid(toks, colon)?;
            matches!(toks[value], Tok::Scalar(_)).then_some((i, value))
        })
        .collect()
}

fn echoed(draw: &mut Draw<'_>, layout: Layout) -> Made {
    let truth = draw.sized(1, 1, 4);
    let mut toks = written(&truth, layout);
    let members = scalar_members(&toks);
    if members.is_empty() {
        return Err(Skip::NoSite);
    }
    let (key, value) = *draw.rng.pick(&members);
    let echo = vec![toks[key].clone(), toks[key + 1].clone()];
    toks.splice(value..value, echo);
    made(&toks, truth)
}

fn fragments(draw: &mut Draw<'_>, layout: Layout) -> Made {
    let truth = draw.sized(1, 2, 4);
    let mut toks = written(&truth, layout);
    // After commas between members of the top-level object.
    let commas: Vec<usize> = (0..toks.len())
        .filter(|&i| {
            toks[i] == Tok::Comma
                && next_solid(&toks, i).is_some_and(|j| matches!(toks[j], Tok::Key(_)))
        })
        .collect();
    if commas.is_empty() {
        return Err(Skip::NoSite);
    }
    let mut sites: Vec<usize> = commas.clone();
    draw.rng.shuffle(&mut sites);
    sites.truncate(1 + draw.rng.below(commas.len()));
    sites.sort_unstable_by(|a, b| b.cmp(a));
    for at in sites {
        let n = 1 + draw.rng.below(2);
        let fragment: String = (0..n)
            .map(|_| *draw.rng.pick(&["\",", "\"\","]))
            .collect::<Vec<_>>()
            .join(if layout == Layout::Compact { "" } else { " " });
        toks.insert(at + 1, Tok::Scalar(fragment));
    }
    made(&toks, truth)
}

fn glued(family: Family, draw: &mut Draw<'_>, layout: Layout) -> Made {
    let mut truth = draw.sized(1, 2, 4);
    let toks = written(&truth, layout);
    // A member whose scalar value the next member follows.
    let wanted = |text: &str| match family {
        Family::GluedAfterString | Family::GluedCut => text.starts_with('"'),
        Family::GluedAfterNumber => text.starts_with(|c: char| c == '-' || c.is_ascii_digit()),
        _ => matches!(text, "true" | "false" | "null"),
    };
    let sites: Vec<(usize, usize)> = scalar_members(&toks)
        .into_iter()
        .filter(|&(_, v)| matches!(&toks[v], Tok::Scalar(t) if wanted(t)))
        .filter(|&(_, v)| next_solid(&toks, v).is_some_and(|j| toks[j] == Tok::Comma))
        .collect();
    if sites.is_empty() {
        return Err(Skip::NoSite);
    }
    let (_, value) = *draw.rng.pick(&sites);
    let comma = next_solid(&toks, value).unwrap();
    let next_key = next_solid(&toks, comma).unwrap();
    let Tok::Scalar(text) = &toks[value] else {
        return Err(Skip::NoSite);
    };
    let mut glue = text.clone();
    let next = match &toks[next_key] {
        Tok::Key(k) => k.clone(),
        _ => return Err(Skip::NoSite),
    };
    if family == Family::GluedCut {
        // The end of the value and the next key's opening quote dropped
        // (`"… qui cher"rating": 4`); sometimes the value's last words too.
        let body: String = serde_json::from_str::<String>(text).unwrap_or_default();
        let chars: Vec<char> = body.chars().collect();
        if chars.len() > 6 && draw.rng.chance(60) {
            let keep = chars.len() / 2 + draw.rng.below(chars.len() / 2);
            let cut: String = chars[..keep].iter().collect();
            let cut = cut.trim_end().to_owned();
            if cut.is_empty() {
                return Err(Skip::NoSite);
            }
            glue = Value::String(cut).to_string();
            // The truth holds the cut text where the member is (it may be
            // nested): the text as meant, read back.
            let mut meant = toks.clone();
            meant[value] = Tok::Scalar(glue.clone());
            truth = serde_json::from_str(&render(&meant)).map_err(|_| Skip::NoSite)?;
        }
        glue.push_str(&next[1..]);
    } else {
        glue.push_str(&next);
    }
    let mut out: Vec<Tok> = toks[..value].to_vec();
    out.push(Tok::Scalar(glue));
    out.extend_from_slice(&toks[next_key + 1..]);
    made(&out, truth)
}

fn closer_in_string(draw: &mut Draw<'_>, layout: Layout) -> Made {
    let truth = deep(draw);
    let toks = written(&truth, layout);
    // The last scalar of the text, when it is a string and only closers follow.
    let Some(last) = (0..toks.len())
        .rev()
        .find(|&i| !toks[i].is_ws() && !toks[i].is_close())
    else {
        return Err(Skip::NoSite);
    };
    let Tok::Scalar(text) = &toks[last] else {
        return Err(Skip::NoSite);
    };
    if !text.starts_with('"') || text.len() < 3 {
        return Err(Skip::NoSite);
    }
    let mut out = toks.clone();
    out[last] = Tok::Scalar(text[..text.len() - 1].to_owned());
    made(&out, truth)
}

fn prose_marker(draw: &mut Draw<'_>, layout: Layout) -> Made {
    let truth = draw.sized(1, 2, 4);
    let text = render(&written(&truth, layout));
    let marker = *draw
        .rng
        .pick(&["```{json}", "``` {json}", "```{JSON}", "```{json} "]);
    let lead = if draw.rng.chance(50) {
        format!("{}\n", draw.rng.pick(PROSE_LINES))
    } else {
        "\n".to_owned()
    };
    Ok(Draft {
        raw: format!("{lead}{marker}\n{text}\n```\n"),
        truth: Some(truth),
    })
}

fn doubled_braces(draw: &mut Draw<'_>, layout: Layout) -> Made {
    let truth = draw.sized(0, 2, 3);
    let toks = written(&truth, layout);
    let raw: String = toks
        .iter()
        .map(|t| match t {
            Tok::Open(b'{') => "{{".to_owned(),
            Tok::Close(b'}') => "}}".to_owned(),
            other => other.text().to_owned(),
        })
        .collect();
    Ok(Draft {
        raw,
        truth: Some(truth),
    })
}

fn opened_twice(draw: &mut Draw<'_>, layout: Layout) -> Made {
    let truth = draw.sized(1, 2, 4);
    let text = render(&written(&truth, layout));
    let gap = *draw.rng.pick(&["\n", "", " ", "\n  "]);
    let tail = if draw.rng.chance(50) { "\n}" } else { "" };
    Ok(Draft {
        raw: format!("{{{gap}{text}{tail}"),
        truth: Some(truth),
    })
}

fn opened_as_array(draw: &mut Draw<'_>, layout: Layout) -> Made {
    let truth = draw.sized(1, 2, 4);
    let mut toks = written(&truth, layout);
    toks[0] = Tok::Open(b'[');
    if layout != Layout::Pretty {
        toks.insert(1, Tok::Ws(" ".to_owned()));
    }
    if draw.rng.chance(30) {
        let last = toks.len() - 1;
        toks[last] = Tok::Close(b']');
    }
    made(&toks, truth)
}

fn markdown(draw: &mut Draw<'_>, layout: Layout) -> Made {
    let mut truth = draw.sized(1, 1, 3);
    if let Value::Object(map) = &mut truth {
        let keys = draw.keys(2);
        map.insert(
            keys[0].to_owned(),
            Value::String((*draw.rng.pick(MARKDOWN_STRINGS)).to_owned()),
        );
        if draw.rng.chance(50) {
            map.insert(
                keys[1].to_owned(),
                Value::String((*draw.rng.pick(MARKDOWN_STRINGS)).to_owned()),
            );
        }
    }
    let toks = written(&truth, layout);
    let escape = |text: &str| text.replace('_', "\\_").replace('*', "\\*");
    let all = draw.rng.chance(50);
    let out: Vec<Tok> = toks
        .into_iter()
        .map(|t| match t {
            Tok::Scalar(s) if s.contains(['_', '*']) => Tok::Scalar(escape(&s)),
            Tok::Key(k) if all && k.contains('_') => Tok::Key(escape(&k)),
            other => other,
        })
        .collect();
    made(&out, truth)
}

fn prose_lines(draw: &mut Draw<'_>, _layout: Layout) -> Made {
    let truth = draw.sized(1, 2, 4);
    let mut toks = written(&truth, Layout::Pretty);
    // Before a key, on a line of its own.
    let keys: Vec<usize> = (0..toks.len())
        .filter(|&i| matches!(toks[i], Tok::Key(_)) && i >= 2 && matches!(toks[i - 1], Tok::Ws(_)))
        .filter(|&i| {
            // Keys of the top-level object only.
            toks[..i]
                .iter()
                .filter(|t| matches!(t, Tok::Open(_)))
                .count()
                == toks[..i].iter().filter(|t| t.is_close()).count() + 1
        })
        .collect();
    let at = *draw.rng.pick(&keys);
    let indent = toks[at - 1].clone();
    toks.insert(at, indent);
    toks.insert(at, Tok::Scalar((*draw.rng.pick(PROSE_LINES)).to_owned()));
    made(&toks, truth)
}

fn doubly_escaped(draw: &mut Draw<'_>, layout: Layout) -> Made {
    let mut truth = draw.sized(1, 1, 3);
    let key = draw.keys(1)[0].to_owned();
    let embedded = *draw.rng.pick(EMBEDDED_JSON);
    if let Value::Object(map) = &mut truth {
        map.insert(key.clone(), Value::String(embedded.to_owned()));
    }
    let toks = written(&truth, layout);
    let written_embedded = Value::String(embedded.to_owned()).to_string();
    // Sometimes also a `\n` (backslash, n) between one key's colon and its value.
    let colons: Vec<usize> = (0..toks.len())
        .filter(|&i| matches!(toks[i], Tok::Colon(_)))
        .collect();
    let newline_at = draw.rng.chance(40).then(|| *draw.rng.pick(&colons));
    let out: Vec<Tok> = toks
        .into_iter()
        .enumerate()
        .map(|(i, t)| match t {
            // `\"` written as `\\"`, as a model escaping twice does.
            Tok::Scalar(s) if s == written_embedded => Tok::Scalar(s.replace("\\\"", "\\\\\"")),
            Tok::Colon(c) if newline_at == Some(i) => Tok::Colon(format!("{}\\n", c.trim_end())),
            other => other,
        })
        .collect();
    made(&out, truth)
}
