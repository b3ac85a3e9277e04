//! The fault families of `beside_strings`: where each can put its fault,
//! how widely, and what it writes there.

use std::collections::{BTreeMap, BTreeSet};

use super::cases::{Scope, Shape};
use super::pool::{IDENTIFIERS, LITERAL_KEYS, NOTES, NUMERIC_KEYS};
use super::write::{Body, Comment, Container, Edit, Join, Layout, Plan, Site, SiteKind};
use crate::rng::Rng;

/// The fault families: each puts one kind of fault beside a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Family {
    DoubleComma,
    Semicolon,
    MissingComma,
    CurlyDouble,
    CurlySingle,
    MixedCurly,
    SingleQuotes,
    Backtick,
    NumericKeys,
    LiteralKeys,
    BareKeys,
    EqualsColon,
    CommentAfterValue,
    HtmlComment,
    EmptyElements,
    TrailingComma,
    Concatenation,
    MissingEndQuote,
    Fullwidth,
    TripleQuoted,
    GluedIdentifier,
}

impl Family {
    pub(super) const ALL: [Family; 21] = [
        Family::DoubleComma,
        Family::Semicolon,
        Family::MissingComma,
        Family::CurlyDouble,
        Family::CurlySingle,
        Family::MixedCurly,
        Family::SingleQuotes,
        Family::Backtick,
        Family::NumericKeys,
        Family::LiteralKeys,
        Family::BareKeys,
        Family::EqualsColon,
        Family::CommentAfterValue,
        Family::HtmlComment,
        Family::EmptyElements,
        Family::TrailingComma,
        Family::Concatenation,
        Family::MissingEndQuote,
        Family::Fullwidth,
        Family::TripleQuoted,
        Family::GluedIdentifier,
    ];

    pub(super) fn name(self) -> &'static str {
        match self {
            Family::DoubleComma => "double_comma",
            Family::Semicolon => "semicolon",
            Family::MissingComma => "missing_comma",
            Family::CurlyDouble => "curly_double",
            Family::CurlySingle => "curly_single",
            Family::MixedCurly => "mixed_curly",
            Family::SingleQuotes => "single_quotes",
            Family::Backtick => "backtick",
            Family::NumericKeys => "numeric_keys",
            Family::LiteralKeys => "literal_keys",
            Family::BareKeys => "bare_keys",
            Family::EqualsColon => "equals_colon",
            Family::CommentAfterValue => "comment_after_value",
            Family::HtmlComment => "html_comment",
            Family::EmptyElements => "empty_elements",
            Family::TrailingComma => "trailing_comma",
            Family::Concatenation => "concatenation",
            Family::MissingEndQuote => "missing_end_quote",
            Family::Fullwidth => "fullwidth",
            Family::TripleQuoted => "triple_quoted",
            Family::GluedIdentifier => "glued_identifier",
        }
    }

    /// The shapes whose sites can hold the family's fault.
    pub(super) fn shapes(self) -> &'static [(Shape, u64)] {
        match self {
            // Keys and colons, and a key after the comma.
            Family::NumericKeys
            | Family::LiteralKeys
            | Family::BareKeys
            | Family::EqualsColon
            | Family::MissingEndQuote => &[
                (Shape::FlatObject, 55),
                (Shape::ObjectWithArray, 25),
                (Shape::ObjectsInArray, 20),
            ],
            // Arrays of strings.
            Family::EmptyElements => &[(Shape::Strings, 60), (Shape::ObjectWithArray, 40)],
            _ => &[
                (Shape::FlatObject, 45),
                (Shape::Strings, 20),
                (Shape::ObjectWithArray, 20),
                (Shape::ObjectsInArray, 15),
            ],
        }
    }

    /// How widely the fault is spread, and how likely each spread is.
    pub(super) fn scopes(self) -> &'static [(Scope, u64)] {
        match self {
            Family::CurlyDouble
            | Family::CurlySingle
            | Family::MixedCurly
            | Family::SingleQuotes
            | Family::Backtick => &[(Scope::One, 25), (Scope::Several, 25), (Scope::Every, 50)],
            Family::Fullwidth => &[(Scope::One, 20), (Scope::Several, 20), (Scope::Every, 60)],
            Family::BareKeys => &[(Scope::One, 30), (Scope::Several, 20), (Scope::Every, 50)],
            Family::NumericKeys => &[(Scope::One, 40), (Scope::Several, 30), (Scope::Every, 30)],
            Family::EqualsColon => &[(Scope::One, 35), (Scope::Several, 25), (Scope::Every, 40)],
            _ => &[(Scope::One, 70), (Scope::Several, 30)],
        }
    }

    /// Whether the family's fault can go at `site`.
    pub(super) fn fits(self, site: &Site) -> bool {
        let text = site.text.unwrap_or("");
        let value = site.kind == SiteKind::Value;
        let string = matches!(site.kind, SiteKind::Key | SiteKind::Value);
        let gap = site.kind == SiteKind::Gap && site.beside_string;
        match self {
            Family::DoubleComma | Family::Semicolon | Family::MissingComma => gap,
            Family::HtmlComment => gap,
            Family::CurlyDouble
            | Family::CurlySingle
            | Family::MixedCurly
            | Family::SingleQuotes
            | Family::Backtick => string,
            Family::Fullwidth => string || gap || site.kind == SiteKind::Colon,
            Family::NumericKeys | Family::LiteralKeys | Family::BareKeys => {
                site.kind == SiteKind::Key
            }
            Family::EqualsColon => site.kind == SiteKind::Colon,
            Family::CommentAfterValue => value,
            Family::EmptyElements => {
                site.container == Container::Array
                    && site.beside_string
                    && matches!(site.kind, SiteKind::Lead | SiteKind::Gap | SiteKind::Trail)
            }
            Family::TrailingComma => site.kind == SiteKind::Trail && site.text.is_some(),
            Family::Concatenation => value && text.chars().count() >= 2,
            // The end quote is missing before a comma that a key follows.
            Family::MissingEndQuote => {
                value
                    && site.container == Container::Object
                    && site.member + 1 < site.members
                    && !text.is_empty()
                    && !text.contains(',')
                    && !text.ends_with('\\')
            }
            Family::TripleQuoted => {
                value
                    && !text.is_empty()
                    && !text.contains("\"\"")
                    && !text.starts_with('"')
                    && !text.ends_with('"')
            }
            // The body is written as it is, so it needs no escape.
            Family::GluedIdentifier => {
                value
                    && !text.is_empty()
                    && !text.contains(['"', '\\'])
                    && !text.chars().any(char::is_control)
            }
        }
    }
}

/// The family's edit at each chosen site.
pub(super) fn plan(
    rng: &mut Rng,
    family: Family,
    layout: Layout,
    sites: &[Site],
    chosen: &[usize],
    scope: Scope,
) -> Plan {
    let mut plan = Plan::default();
    // Per case: models keep to one spelling.
    let equals = *rng.pick(&["=", "=>"]);
    let join = rng.weighted(&[
        (Join::Spaced, 40),
        (Join::Tight, 15),
        (Join::PlusThenNewline, 30),
        (Join::NewlineThenPlus, 15),
    ]);
    let spaced = layout != Layout::Compact;
    // Keys written bare in each container, so no key comes twice.
    let mut used: BTreeMap<usize, BTreeSet<&str>> = BTreeMap::new();
    for &idx in chosen {
        let site = &sites[idx];
        let edit = match family {
            Family::DoubleComma => Edit::Comma(if rng.chance(70) { ",," } else { ",,," }),
            Family::Semicolon => Edit::Comma(";"),
            Family::MissingComma => Edit::Comma(""),
            Family::HtmlComment => {
                let note = *rng.pick(NOTES);
                Edit::Html {
                    note,
                    before_comma: rng.chance(35),
                }
            }
            Family::CurlyDouble => quote("\u{201C}", "\u{201D}"),
            Family::CurlySingle => quote("\u{2018}", "\u{2019}"),
            Family::MixedCurly => {
                let (open, close) = *rng.pick(&[
                    ("\u{201C}", "\""),
                    ("\"", "\u{201D}"),
                    ("\u{201C}", "\u{201D}"),
                ]);
                quote(open, close)
            }
            Family::SingleQuotes => Edit::Quote {
                open: "'",
                close: "'",
                body: Body::Single,
            },
            Family::Backtick => quote("`", "`"),
            Family::Fullwidth => match site.kind {
                SiteKind::Gap => Edit::Comma("\u{FF0C}"),
                SiteKind::Colon if spaced => Edit::Colon("\u{FF1A} "),
                SiteKind::Colon => Edit::Colon("\u{FF1A}"),
                _ => quote("\u{FF02}", "\u{FF02}"),
            },
            Family::NumericKeys | Family::LiteralKeys => {
                let keys = if family == Family::NumericKeys {
                    NUMERIC_KEYS
                } else {
                    LITERAL_KEYS
                };
                let taken = used.entry(site.container_id).or_default();
                let free: Vec<&'static str> = keys
                    .iter()
                    .copied()
                    .filter(|k| !taken.contains(k))
                    .collect();
                if free.is_empty() {
                    continue;
                }
                let key = *rng.pick(&free);
                taken.insert(key);
                Edit::BareKey(key)
            }
            Family::BareKeys => Edit::BareKey(site.text.expect("a key site has its key")),
            Family::EqualsColon if spaced => {
                Edit::Colon(if equals == "=" { " = " } else { " => " })
            }
            Family::EqualsColon => Edit::Colon(equals),
            Family::CommentAfterValue => {
                let note = *rng.pick(NOTES);
                match rng.below(4) {
                    0 => Edit::Comment(Comment::Line("//", note)),
                    1 => Edit::Comment(Comment::Line("#", note)),
                    _ => Edit::Comment(Comment::Block {
                        note,
                        before_comma: rng.chance(50),
                    }),
                }
            }
            Family::EmptyElements => match site.kind {
                SiteKind::Gap => Edit::Comma(if rng.chance(75) { ",," } else { ",,," }),
                _ => Edit::Commas(if rng.chance(80) { 1 } else { 2 }),
            },
            Family::TrailingComma => Edit::Commas(1),
            Family::Concatenation => {
                let n = site
                    .text
                    .expect("a value site has its text")
                    .chars()
                    .count();
                let mut cuts = vec![1 + rng.below(n - 1)];
                if n >= 3 && rng.chance(25) {
                    cuts.push(1 + rng.below(n - 1));
                    cuts.sort_unstable();
                    cuts.dedup();
                }
                Edit::Concat { cuts, join }
            }
            Family::MissingEndQuote => Edit::NoEndQuote,
            Family::TripleQuoted => Edit::Triple,
            Family::GluedIdentifier => {
                let identifier = *rng.pick(IDENTIFIERS);
                Edit::Glued(identifier)
            }
        };
        plan.edits.insert(idx, edit);
    }
    plan.fullwidth_brackets = family == Family::Fullwidth && scope == Scope::Every;
    plan
}

fn quote(open: &'static str, close: &'static str) -> Edit {
    Edit::Quote {
        open,
        close,
        body: Body::Json,
    }
}
