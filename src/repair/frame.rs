//! Where the reader stands: the open containers and what comes next, and
//! how far a decision may look. Every layer of the engine speaks of these
//! (the judge reads the frames, the lane and the machine move them), so
//! they sit below all of them.

use smallvec::SmallVec;

use crate::lex::Token;

/// How far (in input bytes) the engine looks ahead to decide one question,
/// such as whether a quote ends its string. Past it, the question is decided
/// as if the input had ended there.
pub(in crate::repair) const LOOKAHEAD: usize = 4096;

/// How long (in input bytes) a decision may stay open that would rewrite
/// earlier output: text before the top-level value that may turn out to be the
/// value itself, a value found inside prose that a fenced block further on
/// may replace, a key that is not complete yet. Past it, the decision is
/// taken as "keep what was written".
pub(in crate::repair) const WINDOW: usize = 64 * 1024;

/// An open container.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Frame {
    Object,
    Array,
    /// A Python tuple `(…)`, written as an array.
    Tuple,
    /// A function-call wrapper such as `NumberLong(…)` or `callback(…)`:
    /// only its argument is written.
    Call,
    /// The array that [`Values::Array`](crate::Values::Array) puts every top-level value into.
    Root,
}

impl Frame {
    pub(crate) fn closer(self) -> &'static str {
        match self {
            Frame::Object => "}",
            Frame::Array | Frame::Tuple | Frame::Root => "]",
            Frame::Call => "",
        }
    }

    pub(in crate::repair) fn is_closed_by(self, token: Token) -> bool {
        matches!(
            (self, token),
            (Frame::Object, Token::BraceClose)
                | (Frame::Array, Token::BracketClose)
                | (Frame::Tuple, Token::ParenClose | Token::BracketClose)
                | (Frame::Call, Token::ParenClose)
        )
    }
}

/// What the machine expects next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::repair) enum State {
    /// Top level, before anything but whitespace.
    Start,
    /// Top level, inside text that came before the value.
    Prose,
    /// A value (array element, object member value, or top-level value).
    Value,
    /// An object key or `}`.
    Key,
    /// The `:` after a key.
    Colon,
    /// A `,` or a closer after a value.
    After,
    /// A string to join after `"…" +`.
    Concat,
    /// Inside a string body.
    Str,
    /// The top-level value is complete.
    Done,
    /// Everything from here on is dropped.
    Ignore,
}

/// The open containers, outermost first. Thirty-two inline: deeper
/// documents are rare enough to allocate.
pub(in crate::repair) type Stack = SmallVec<[Frame; 32]>;
