//! Source code: where its own string literals and comments are, so that a
//! typographic quote is straightened only where it stands in code.
//!
//! One [`Syntax`] per language family (`syntax.rs`) says how literals and
//! comments are written, and `literals.rs` finds where each ends; [`scan`]
//! walks the text once, jumping over each literal and comment, and hands
//! every typographic quote it meets in code to [`Closers::in_code`]. The
//! scan is lexical and forgiving: a literal that is not closed on its line
//! (where the language wants it closed there) ends at the line's end, so one
//! misread quote costs one line, never the rest of the file.
//!
//! JSX elements (`jsx.rs`) hand their `{…}` expressions back as stretches
//! to scan in turn: a work list, not recursion, so no input can grow the
//! stack, and a bound on how deep expressions are followed keeps the cost
//! linear (each level reads its own stretch once more).

use std::ops::Range;

use super::jsx::{self, Element};
use super::literals::{
    comment_body_line, data_end, heredoc_end, heredoc_start, regex_end, span_rest, value_expected,
};
use super::syntax::{Regex, Syntax};
use super::{Class, Closers, in_word, line_end};

/// Python's string prefixes: the `’` of `f’x’` opens a string even though a
/// letter stands before it.
const STRING_PREFIXES: [&str; 8] = ["r", "b", "f", "u", "br", "rb", "fr", "rf"];

/// How deep JSX expressions (`{cond && <p>{x}</p>}`) are followed; code
/// deeper than this is left as it is.
const MAX_NESTING: usize = 16;

/// A stretch of the text to scan as code: the whole text, or the inside of
/// a JSX expression, and how deep in expressions it lies.
#[derive(Debug, Clone)]
struct Stretch {
    range: Range<usize>,
    nesting: usize,
}

/// Push (plus `base`) the offset in `text` of every typographic quote that
/// stands in code and should be straightened, in no particular order.
///
/// The text may be a fragment (an edit's old or new text) that begins or
/// ends inside a triple-quoted string: an odd number of `"""` says one of
/// the two, never which. Both readings are made, and the one that
/// straightens fewer quotes is taken, since a docstring's words are far more
/// common there than a delimiter mistake. On a tie, a first `"""` alone on
/// its line is taken for a docstring's end, where PEP 257 puts it (an
/// opening one has the summary beside it).
pub(super) fn scan(syntax: &Syntax, text: &str, base: usize, out: &mut Vec<usize>) {
    let first = out.len();
    read(syntax, text, 0, base, out);
    let open_at_start = syntax.spans.iter().find(|span| {
        span.open.len() == 3 && span.open == span.close && text.matches(span.open).count() % 2 == 1
    });
    let Some(span) = open_at_start else {
        return;
    };
    let mut inside = Vec::new();
    read(syntax, text, span_rest(text, 0, span), base, &mut inside);
    let (n_inside, n_code) = (inside.len(), out.len() - first);
    if n_inside < n_code || (n_inside == n_code && alone_on_its_line(text, span.open)) {
        out.truncate(first);
        out.append(&mut inside);
    }
}

/// Whether the first `marker` in `text` stands alone on its line.
fn alone_on_its_line(text: &str, marker: &str) -> bool {
    let Some(at) = text.find(marker) else {
        return false;
    };
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = line_end(text, at);
    text[start..end].trim() == marker
}

/// One reading of `text` as code from `from`, with the JSX expressions it
/// meets read in turn from a work list.
fn read(syntax: &Syntax, text: &str, from: usize, base: usize, out: &mut Vec<usize>) {
    let mut stretches = vec![Stretch {
        range: from..text.len(),
        nesting: 0,
    }];
    while let Some(stretch) = stretches.pop() {
        scan_stretch(syntax, text, stretch, base, &mut stretches, out);
    }
}

/// What failed attempts have shown, so that no stretch is read twice for
/// the same question and the scan stays linear on any input.
#[derive(Debug, Default)]
struct Memo {
    /// No regex literal starts before this offset: the end of a line on
    /// which one did not close.
    no_regex_before: usize,
    /// A JSX element did not read: no more attempts in this stretch.
    no_jsx: bool,
    /// No `»` stands from the first offset to the second, a line's end.
    no_right_guillemet: (usize, usize),
}

/// Scan one stretch of `whole`, pushing the offsets to straighten to `out`
/// and the JSX expressions it holds to `stretches`.
fn scan_stretch(
    syntax: &Syntax,
    whole: &str,
    stretch: Stretch,
    base: usize,
    stretches: &mut Vec<Stretch>,
    out: &mut Vec<usize>,
) {
    let text = &whole[stretch.range.clone()];
    let base = base + stretch.range.start;
    let (first_found, first_stretch) = (out.len(), stretches.len());
    let mut memo = Memo::default();
    let mut closers = Closers::default();
    let block_comments = syntax.spans.iter().any(|s| s.open == "/*");
    // Heredoc terminators waiting for the end of the line that announced them.
    let mut heredocs: Vec<&str> = Vec::new();
    let mut at = 0;
    while let Some(c) = text[at..].chars().next() {
        if block_comments
            && (at == 0 || text.as_bytes()[at - 1] == b'\n')
            && let Some(end) = comment_body_line(text, at)
        {
            at = end;
            continue;
        }
        if c == '\n' {
            at += 1;
            for word in heredocs.drain(..) {
                at = heredoc_end(text, at, word);
            }
            continue;
        }
        if let Some(end) = data_end(syntax, text, at) {
            at = end;
            continue;
        }
        if let Regex::Slash = syntax.regex
            && c == '/'
            && at >= memo.no_regex_before
            && value_expected(text, at)
        {
            match regex_end(text, at) {
                Some(end) => {
                    at = end;
                    continue;
                }
                None => memo.no_regex_before = line_end(text, at),
            }
        }
        if let Some((len, word)) = heredoc_start(&syntax.heredocs, text, at) {
            heredocs.push(word);
            at += len;
            continue;
        }
        if block_comments && text[at..].starts_with("*/") {
            // Only a comment ends here: the text is a fragment (an edit's new
            // text) that began inside one, so all before was comment.
            out.truncate(first_found);
            stretches.truncate(first_stretch);
            at += 2;
            continue;
        }
        if !memo.no_jsx && jsx::starts(syntax, text, at) {
            let mut element = Element::default();
            match jsx::element(text, at, &mut closers, base, &mut element) {
                Some(end) => {
                    out.append(&mut element.found);
                    if stretch.nesting < MAX_NESTING {
                        stretches.extend(element.expressions.into_iter().map(|inner| Stretch {
                            range: stretch.range.start + inner.start
                                ..stretch.range.start + inner.end,
                            nesting: stretch.nesting + 1,
                        }));
                    }
                    at = end;
                    continue;
                }
                None => memo.no_jsx = true,
            }
        }
        at = match Class::of(c) {
            Some(class) if !(c == '’' && in_word(text, at) && !after_prefix(text, at)) => {
                closers.in_code(text, at, class, base, out)
            }
            _ if matches!(c, '«' | '»') => guillemet(text, at, c, &mut memo, base, out),
            _ => at + c.len_utf8(),
        };
    }
}

/// Whether the `’` at `at` follows a Python string prefix (`f’x’`), so it
/// opens a string rather than standing as an apostrophe.
fn after_prefix(text: &str, at: usize) -> bool {
    let before = &text[..at];
    let word_at = before.rfind(|c: char| !c.is_alphanumeric()).map_or(0, |i| {
        i + before[i..].chars().next().map_or(1, char::len_utf8)
    });
    let word = &before[word_at..];
    STRING_PREFIXES
        .iter()
        .any(|prefix| prefix.eq_ignore_ascii_case(word))
}

/// A guillemet in code: `<<` or `>>` where it stands alone as an operator
/// (`cout « x`: a space before it, and a space, `=` or the line's end after
/// it; for `«`, no `»` after it on its line), which is what a font ligature
/// makes of a shift. A `«…»` pair is a quotation and stays, with what it
/// quotes: which quote it stands for would be a guess.
fn guillemet(
    text: &str,
    at: usize,
    c: char,
    memo: &mut Memo,
    base: usize,
    out: &mut Vec<usize>,
) -> usize {
    let after = at + c.len_utf8();
    let spaced = text[..at].ends_with([' ', '\t'])
        && text[after..]
            .chars()
            .next()
            .is_none_or(|n| matches!(n, ' ' | '\t' | '\r' | '\n' | '='));
    let (start, stop) = memo.no_right_guillemet;
    let close = if c == '»' || (start <= at && at < stop) {
        None
    } else {
        let end = line_end(text, after);
        let close = text[after..end].find('»').map(|i| after + i);
        if close.is_none() {
            memo.no_right_guillemet = (after, end);
        }
        close
    };
    match close {
        Some(close) => close + '»'.len_utf8(),
        None if spaced => {
            out.push(base + at);
            after
        }
        None => after,
    }
}

#[cfg(test)]
mod tests {
    use super::super::syntax::{C, JSX, PYTHON, SHELL, VIM};
    use super::*;

    /// The offsets `syntax` straightens in `text`, in order.
    fn scanned(syntax: &Syntax, text: &str) -> Vec<usize> {
        let mut out = Vec::new();
        scan(syntax, text, 0, &mut out);
        out.sort_unstable();
        out
    }

    #[test]
    fn a_fragment_may_begin_inside_a_docstring() {
        // An odd number of `"""`: the reading that keeps more is taken.
        let tail = "    It’s “x”.\n    More “y”.\n    \"\"\"\n    return “z”\n";
        assert_eq!(scanned(&PYTHON, tail).len(), 2);
        let head = "    return “z”\n\ndef f():\n    \"\"\"It’s “x”. More “y”.\n";
        assert_eq!(scanned(&PYTHON, head).len(), 2);
        // On a tie, a lone `"""` ends a docstring; one beside text opens one.
        let tied = "    It’s “x”.\n    \"\"\"\n    return “z”\n";
        assert_eq!(
            scanned(&PYTHON, tied),
            [tied.find("“z").unwrap(), tied.len() - 4]
        );
        let opened = "    return “z”\n    \"\"\"It’s “x”.\n";
        assert_eq!(scanned(&PYTHON, opened), [11, 15]);
    }

    #[test]
    fn guillemets() {
        assert_eq!(scanned(&C, "a « b"), [2]);
        assert_eq!(scanned(&C, "s = \"«\"; x » 2"), [12]);
        assert_eq!(scanned(&C, "a «b» c"), Vec::<usize>::new());
        assert_eq!(scanned(&C, "a « b »"), Vec::<usize>::new());
        assert_eq!(scanned(&C, "a »= 1\nb «c»"), [2]);
    }

    #[test]
    fn jsx_expressions_are_code_again() {
        let text = "x = <p a=“b”>It’s “x” {f(“y”, <i>“z” {g(‘w’)}</i>)}</p>;";
        let at = |s: &str| text.find(s).unwrap();
        assert_eq!(
            scanned(&JSX, text),
            [at("“b"), at("”>"), at("“y"), at("”,"), at("‘w"), at("’)")]
        );
    }

    #[test]
    fn deep_jsx_expressions_stop_being_followed() {
        let text = "x = <a>{".repeat(200) + "f(“x”)" + &"}</a>".repeat(200);
        // The innermost code is beyond the limit, so kept; the stack never grows.
        assert_eq!(scanned(&JSX, &text), Vec::<usize>::new());
        let shallow = "x = <a>{".repeat(3) + "f(“x”)" + &"}</a>".repeat(3);
        assert_eq!(scanned(&JSX, &shallow).len(), 2);
    }

    #[test]
    fn failed_attempts_are_not_repeated() {
        // Each would be quadratic if every `/`, `<`, `«` or opening quote
        // read to the line's end again.
        let slashes = "x = /[".repeat(20_000);
        assert!(scanned(&JSX, &(slashes + "“")).len() == 1);
        let continued = "x = /a\\\n".repeat(20_000);
        assert!(scanned(&JSX, &(continued + "“")).len() == 1);
        let tags = "x = <a {".repeat(20_000);
        assert!(scanned(&JSX, &(tags + "“")).len() == 1);
        let shifts = "a « ".repeat(20_000);
        assert_eq!(scanned(&C, &shifts).len(), 20_000);
        let quotes = "\"\"".repeat(20_000);
        assert!(scanned(&VIM, &quotes).is_empty());
        let escaped = "“\\".repeat(50_000);
        assert_eq!(scanned(&PYTHON, &escaped).len(), 50_000);
        let strings = format!("x = <a b={{{}}}>“", "'s' ".repeat(20_000));
        assert_eq!(scanned(&JSX, &strings).len(), 0);
    }

    #[test]
    fn a_stray_block_close_means_the_text_began_in_a_comment() {
        assert_eq!(scanned(&C, " * “a”\n */ “b”"), [15, 19]);
        assert_eq!(scanned(&SHELL, "“a” */"), [0, 4]);
        // The expressions of an element before it were comment too.
        let text = "x = <a>{f(“y”)}</a>\n*/ “b”";
        assert_eq!(
            scanned(&JSX, text),
            [text.find("“b").unwrap(), text.len() - 3]
        );
    }
}
