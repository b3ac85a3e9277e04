//! Where the engine guessed: the readings the input could not settle.
//!
//! A fix says what was changed; a doubt says that the change (or the
//! absence of one) was a choice between readings that both made sense. The
//! verdict does not change: a caller that cannot afford a guess (an agent
//! about to write a file) reads the doubts and asks the model again.

/// A choice between readings that the input could not settle.
///
/// ```
/// // A quote inside code that could also have ended the string:
/// let outcome = argmend::repair(br#"{"a": "x = "b", "c": 1}"#);
/// for doubt in outcome.doubts() {
///     println!("{} at byte {}: {}", doubt.kind, doubt.offset, doubt.reason());
/// }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Doubt {
    /// What was chosen.
    pub kind: DoubtKind,
    /// Where in the input the choice was made (absolute byte offset): the
    /// quote, the closer or the key it concerns.
    pub offset: usize,
}

impl Doubt {
    /// A short sentence saying what was chosen and what the other reading was.
    pub fn reason(&self) -> &'static str {
        self.kind.reason()
    }
}

/// The kinds of doubt. Each doc line shows an input that raises it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DoubtKind {
    /// A quote was read as text, although what follows it could have been
    /// the next member: `{"a": "f("x", "y": 1)"}` (is `"y"` a key?).
    QuoteAsText,
    /// A quote was read as the end of its string, although the string's text
    /// could have gone on: `{"a": "x", "b": "y", "c": 1}` written by code
    /// that did not escape its quotes.
    QuoteAsEnd,
    /// A closer after a quote ended the value early and the text after it was
    /// dropped: `{"a": "if x: "}" more text"}`.
    EarlyClose,
    /// A member boundary was inferred from a line break alone (a comma was
    /// missing): `{"a": "x"\n"b": 1}`.
    NewlineBoundary,
    /// A key repeats one of the same object, and the engine kept both (the
    /// later value wins when parsed): `{"path": "a", "content": "x", "path": "b"}`.
    DuplicateKey,
    /// A lone `\*` was read as a Markdown escape (`*`), though its backslash
    /// may be the text's own (a glob, a regex): `{"cmd": "ls \*.txt"}`.
    MarkdownEscape,
    /// A run of closers fitted the open containers in more than one way, and
    /// what follows it did not tell them apart: `[[{"a": 1], [2]]` (is `[2]`
    /// an element of the inner array or of the outer one?).
    ClosersMatched,
    /// An opener was supplied because the siblings show one missing, though
    /// the elements could have stood where they were: `[["a", "b"], "c", "d"]]`.
    OpenerSupplied,
    /// An object was read as begun again after a prefix of its members, and
    /// the second writing of a member differs from the first (the later one
    /// wins): `{"name": "sea",{"name": "search"}}`.
    Restart,
    /// A string was ended before the comma that its text ends with, glued
    /// to the next key's quote (its end quote taken as missing), though the
    /// comma may be the text's own and the separator the part missing:
    /// `{"a": "Hello,"b": 1}` (is the text `Hello` or `Hello,`?).
    CommaBoundary,
}

impl DoubtKind {
    /// The stable snake_case name used in the CLI's JSON output.
    pub fn name(self) -> &'static str {
        match self {
            DoubtKind::QuoteAsText => "quote_as_text",
            DoubtKind::QuoteAsEnd => "quote_as_end",
            DoubtKind::EarlyClose => "early_close",
            DoubtKind::NewlineBoundary => "newline_boundary",
            DoubtKind::DuplicateKey => "duplicate_key",
            DoubtKind::MarkdownEscape => "markdown_escape",
            DoubtKind::ClosersMatched => "closers_matched",
            DoubtKind::OpenerSupplied => "opener_supplied",
            DoubtKind::Restart => "restart",
            DoubtKind::CommaBoundary => "comma_boundary",
        }
    }

    /// A short sentence saying what was chosen and what the other reading was.
    pub fn reason(self) -> &'static str {
        match self {
            DoubtKind::QuoteAsText => {
                "a quote was read as text inside its string, though what follows it could start the next member"
            }
            DoubtKind::QuoteAsEnd => {
                "a quote was read as the end of its string, though the string's text could go on"
            }
            DoubtKind::EarlyClose => {
                "a closer after a quote ended the value early, and the text after it was dropped"
            }
            DoubtKind::NewlineBoundary => {
                "a member boundary was read from a line break alone (no comma)"
            }
            DoubtKind::DuplicateKey => "a key repeats one of the same object",
            DoubtKind::MarkdownEscape => {
                "a backslash before * was read as a Markdown escape, though it may be the text's own (a glob, a regex)"
            }
            DoubtKind::ClosersMatched => {
                "a run of closers could close the open containers in more than one way that fits what follows"
            }
            DoubtKind::OpenerSupplied => {
                "an opener was supplied from the shape of the siblings, though the elements could have stood where they were"
            }
            DoubtKind::Restart => {
                "the object was read as begun again, and a member written again differs from its first writing"
            }
            DoubtKind::CommaBoundary => {
                "a string was ended before the comma glued to the next quote, though the comma may be its text's own"
            }
        }
    }
}

display_by_name!(DoubtKind);
