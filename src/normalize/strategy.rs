//! The seven strategies of the ChatCLI contract, and which one an input needed.

use std::fmt;

use crate::repair::{Fix, FixKind};

/// Which of the seven recovery strategies an input needed, in ChatCLI's
/// numbering. argmend repairs everything in one pass; the strategy is the
/// report a ChatCLI user expects, read off the repairs that were made.
///
/// ```
/// use argmend::{normalize_tool_args, Strategy};
/// let strategy = |raw| normalize_tool_args("read_file", raw).strategy();
/// assert_eq!(strategy(r#"{"file":"main.go"}"#), Some(Strategy::StrictParse));
/// assert_eq!(strategy("{'file':'main.go'}"), Some(Strategy::SingleQuotes));
/// assert_eq!(strategy(r#"{file: "main.go"}"#), Some(Strategy::UnquotedKeys));
/// assert_eq!(strategy("{file: 'main.go'}"), Some(Strategy::QuotesAndKeys));
/// assert_eq!(strategy(r#"{"file":"main.go",}"#), Some(Strategy::TrailingCommas));
/// assert_eq!(strategy("main.go"), Some(Strategy::PlainValue));
/// assert_eq!(strategy("{file: main.go}"), Some(Strategy::BareLiteral));
/// assert_eq!(Strategy::BareLiteral.number(), 7);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Strategy {
    /// 1: the input parsed as it was (`{"cmd":"read"}`).
    StrictParse,
    /// 2: single or other non-JSON quotes, and other string-literal repairs
    /// (`{'cmd':'read'}` → `{"cmd":"read"}`).
    SingleQuotes,
    /// 3: unquoted keys (`{cmd: "read"}` → `{"cmd": "read"}`).
    UnquotedKeys,
    /// 4: both quotes and keys (`{cmd: 'read'}` → `{"cmd": "read"}`).
    QuotesAndKeys,
    /// 5: trailing commas, and the other structural repairs: commas, colons,
    /// closers, comments, fences, prose, truncation (`{"a":1,}` → `{"a":1}`).
    TrailingCommas,
    /// 6: a plain value wrapped into the tool's primary field (`main.go` for
    /// `read_file` → `{"file":"main.go"}`), or a command line turned into fields.
    PlainValue,
    /// 7: bare values in an object literal: words, `True`, `None`, odd
    /// numbers (`{cmd: read}` → `{"cmd": "read"}`).
    BareLiteral,
}

impl Strategy {
    /// The strategy's number, 1 to 7.
    pub fn number(self) -> u8 {
        match self {
            Strategy::StrictParse => 1,
            Strategy::SingleQuotes => 2,
            Strategy::UnquotedKeys => 3,
            Strategy::QuotesAndKeys => 4,
            Strategy::TrailingCommas => 5,
            Strategy::PlainValue => 6,
            Strategy::BareLiteral => 7,
        }
    }

    /// A stable snake_case name.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::StrictParse => "strict_parse",
            Strategy::SingleQuotes => "single_quotes",
            Strategy::UnquotedKeys => "unquoted_keys",
            Strategy::QuotesAndKeys => "quotes_and_keys",
            Strategy::TrailingCommas => "trailing_commas",
            Strategy::PlainValue => "plain_value",
            Strategy::BareLiteral => "bare_literal",
        }
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.number())
    }
}

/// What kind of repair a fix is, for the classification.
enum Class {
    Quote,
    Key,
    Bare,
    Structure,
}

fn class(kind: FixKind) -> Class {
    match kind {
        FixKind::ReplacedQuotes
        | FixKind::EscapedQuote
        | FixKind::EscapedControl
        | FixKind::EscapedBackslash
        | FixKind::RemovedEscape
        | FixKind::ReplacedInvalidUtf8
        | FixKind::ReplacedSurrogate
        | FixKind::InsertedQuote
        | FixKind::ConcatenatedStrings => Class::Quote,
        FixKind::QuotedKey => Class::Key,
        FixKind::QuotedWord
        | FixKind::ReplacedLiteral
        | FixKind::NormalizedNumber
        | FixKind::QuotedNumber
        | FixKind::QuotedRegex
        | FixKind::UnwrappedCall => Class::Bare,
        _ => Class::Structure,
    }
}

/// The strategy an engine repair corresponds to: bare values → 7; quotes and
/// keys → 4; keys → 3; quotes → 2; only structural repairs → 5; none → 1.
pub(super) fn classify(fixes: &[Fix]) -> Strategy {
    let (mut quote, mut key, mut bare, mut structure) = (false, false, false, false);
    for fix in fixes {
        match class(fix.kind) {
            Class::Quote => quote = true,
            Class::Key => key = true,
            Class::Bare => bare = true,
            Class::Structure => structure = true,
        }
    }
    match (bare, quote, key, structure) {
        (true, ..) => Strategy::BareLiteral,
        (false, true, true, _) => Strategy::QuotesAndKeys,
        (false, false, true, _) => Strategy::UnquotedKeys,
        (false, true, false, _) => Strategy::SingleQuotes,
        (false, false, false, true) => Strategy::TrailingCommas,
        (false, false, false, false) => Strategy::StrictParse,
    }
}
