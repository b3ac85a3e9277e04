//! What the engine changed, and where; and the verdict the changes add up to.

/// One repair: what was done, at which absolute byte offset of the input.
///
/// Offsets count input bytes from the first byte ever fed, so they are the
/// same however the input was cut into chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fix {
    /// What was done.
    pub kind: FixKind,
    /// Where in the input it was done (absolute byte offset).
    pub offset: usize,
}

/// The kinds of repair. Each doc line shows input → output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FixKind {
    /// `{'a':'b'}` → `{"a":"b"}` (also curly, fullwidth and backtick quotes).
    ReplacedQuotes,
    /// `{"a":"say "hi" now"}` → `{"a":"say \"hi\" now"}`.
    EscapedQuote,
    /// A raw newline, tab or other control character inside a string → `\n`, `\t`, `\u0001`.
    EscapedControl,
    /// `"C:\q"` → `"C:\\q"`: an invalid escape keeps its backslash.
    EscapedBackslash,
    /// `'it\'s'` → `"it's"`: an escape JSON does not need; also a Markdown escape,
    /// `"hello\_world"` → `"hello_world"`, `"\*\*bold\*\*"` → `"**bold**"`.
    RemovedEscape,
    /// `"{\\"a\\": 1}"` → `"{\"a\": 1}"`: JSON written into a string with its quotes escaped
    /// twice (a `\\"` that does not end the string).
    UndoubledEscape,
    /// Invalid UTF-8 → U+FFFD.
    ReplacedInvalidUtf8,
    /// `"\ud800"` (a lone surrogate, which serde_json refuses) → `"\ufffd"`.
    ReplacedSurrogate,
    /// `{"a": "b, "c": 1}` → `{"a": "b", "c": 1}`: the end quote was missing before a comma
    /// that a key (or, in an array, a string element) follows.
    InsertedQuote,
    /// `"a" + "b"` → `"ab"`.
    ConcatenatedStrings,
    /// `{a:1}` → `{"a":1}`.
    QuotedKey,
    /// `{"a" 1}` → `{"a": 1}`.
    InsertedColon,
    /// `[hello world]` → `["hello world"]`.
    QuotedWord,
    /// `True`, `None`, `undefined`, `NaN` → `true`, `null`, `null`, `null`.
    ReplacedLiteral,
    /// `.5`, `+1`, `2.`, `1_000` → `0.5`, `1`, `2.0`, `1000`.
    NormalizedNumber,
    /// `0789` → `"0789"`: leading zeros carry meaning, so the text is kept as a string.
    QuotedNumber,
    /// `{"a":}` → `{"a":null}`.
    InsertedNull,
    /// `{"notes": "notes": "You did well."}` → `{"notes": "You did well."}`: a key written
    /// again as the start of its own value.
    RemovedEchoedKey,
    /// `NumberLong(2)`, `callback({});` → `2`, `{}`.
    UnwrappedCall,
    /// `/ab+c/` → `"/ab+c/"`.
    QuotedRegex,
    /// `(1, 2)` → `[1, 2]`.
    ConvertedTuple,
    /// `[1 2]` → `[1, 2]`.
    InsertedComma,
    /// `[1,,2,]` → `[1,2]` (trailing, leading and doubled commas).
    RemovedComma,
    /// `{"a": 1; "b": 2}` → `{"a": 1, "b": 2}`: a semicolon where a comma belongs.
    ReplacedSeparator,
    /// `｛＂a＂：１，＂b＂：２｝`'s `｛`, `：`, `，`, `｝` → `{`, `:`, `,`, `}`:
    /// full-width punctuation outside strings.
    ReplacedPunctuation,
    /// `[1, 2}` → `[1, 2]`.
    ReplacedCloser,
    /// `[1]]` inside a value → the stray closer is dropped.
    RemovedCloser,
    /// `{"a": [{"b": 1}}], "c": 2}` → `{"a": [{"b": 1}], "c": 2}`: two closers of a run
    /// written in each other's place.
    ReorderedClosers,
    /// `[["a", "b"], "c", "d"], ["e", "f"]]` → `[["a", "b"], ["c", "d"], ["e", "f"]]`:
    /// an opener supplied where the siblings show one is missing.
    InsertedOpener,
    /// `{{"a": 1}}` → `{"a": 1}`: an opener written twice, or an object begun again
    /// after a prefix of its members (`{"a": 1,{"a": 1, "b": 2}}` → `{"a": 1, "b": 2}`).
    RemovedOpener,
    /// `["a": 1, "b": 2}` → `{"a": 1, "b": 2}`: an object opened as an array.
    ReplacedOpener,
    /// `{"a": 1,{"a": 1, "b": 2}}` → `{"a": 1, "b": 2}`: a member written again, the same,
    /// when the object was begun again.
    RemovedRepeat,
    /// `{"a":1, [2]}` → `{"a":1}`: a container closed early because what follows cannot be inside it.
    InsertedCloser,
    /// `[1, 2, ...]` → `[1, 2]`.
    RemovedEllipsis,
    /// `{"a": "1",", "b": "2","",", "c": "3"}` → `{"a": "1", "b": "2", "c": "3"}`: a stray
    /// `",` or `"",` between members (what is left of a member written twice).
    RemovedFragment,
    /// A character that cannot start anything where it stands is dropped: `{"a":1;}` → `{"a":1}`.
    RemovedCharacter,
    /// `/* c */`, `// c`, `# c`, `<!-- c -->` → removed.
    RemovedComment,
    /// A non-breaking or other special space → ` `; a line break or tab written as its escape
    /// outside a string, `{"a":\n1}` → `{"a":` + a line break + `1}`.
    ReplacedWhitespace,
    /// ```` ```json … ``` ```` → the fence lines are removed.
    RemovedFence,
    /// `Here it is: {"a":1}` → `{"a":1}`.
    RemovedProse,
    /// `{"a":1} trailing text` or a second top-level value → dropped.
    RemovedTrailingText,
    /// `"abc` → `"abc"` (truncation).
    ClosedString,
    /// `{"a":[1` → `{"a":[1]}` (truncation): one fix per container closed.
    ClosedContainer,
    /// `"ab\` or `"\u12` at the end of input → the unfinished escape is dropped (truncation).
    DroppedEscape,
    /// A UTF-8 sequence cut off by the end of input → dropped (truncation).
    DroppedPartialChar,
    /// `[1, 2.` or `[1, 2e` at the end of input → `[1, 2]`; a lone `[1, -` → `[1]`
    /// (truncation: the digits read are kept, none is invented).
    CompletedNumber,
    /// `[tr` at the end of input → `[true]`: a cut-off literal (truncation).
    CompletedLiteral,
    /// `{"a": 1, "b` or `{"a": 1, "b"` at the end of input → `{"a": 1}`: a key without
    /// its colon is dropped (truncation).
    DroppedKey,
    /// `{"a"` or `{"a":` at the end of input → `{"a":null}` (truncation).
    CompletedValue,
    /// `[1,` at the end of input → `[1]` (truncation).
    RemovedDanglingComma,
}

impl FixKind {
    /// Whether this fix only closes what a truncation left open.
    ///
    /// An outcome whose fixes all say `true` here has the verdict
    /// [`Verdict::Completed`](crate::Verdict::Completed).
    pub fn is_truncation(self) -> bool {
        matches!(
            self,
            FixKind::ClosedString
                | FixKind::ClosedContainer
                | FixKind::DroppedEscape
                | FixKind::DroppedPartialChar
                | FixKind::CompletedNumber
                | FixKind::CompletedLiteral
                | FixKind::DroppedKey
                | FixKind::CompletedValue
                | FixKind::RemovedDanglingComma
        )
    }

    /// The stable snake_case name used in the CLI's JSON output.
    pub fn name(self) -> &'static str {
        match self {
            FixKind::ReplacedQuotes => "replaced_quotes",
            FixKind::EscapedQuote => "escaped_quote",
            FixKind::EscapedControl => "escaped_control",
            FixKind::EscapedBackslash => "escaped_backslash",
            FixKind::RemovedEscape => "removed_escape",
            FixKind::UndoubledEscape => "undoubled_escape",
            FixKind::ReplacedInvalidUtf8 => "replaced_invalid_utf8",
            FixKind::ReplacedSurrogate => "replaced_surrogate",
            FixKind::InsertedQuote => "inserted_quote",
            FixKind::ConcatenatedStrings => "concatenated_strings",
            FixKind::QuotedKey => "quoted_key",
            FixKind::InsertedColon => "inserted_colon",
            FixKind::QuotedWord => "quoted_word",
            FixKind::ReplacedLiteral => "replaced_literal",
            FixKind::NormalizedNumber => "normalized_number",
            FixKind::QuotedNumber => "quoted_number",
            FixKind::InsertedNull => "inserted_null",
            FixKind::RemovedEchoedKey => "removed_echoed_key",
            FixKind::UnwrappedCall => "unwrapped_call",
            FixKind::QuotedRegex => "quoted_regex",
            FixKind::ConvertedTuple => "converted_tuple",
            FixKind::InsertedComma => "inserted_comma",
            FixKind::RemovedComma => "removed_comma",
            FixKind::ReplacedSeparator => "replaced_separator",
            FixKind::ReplacedPunctuation => "replaced_punctuation",
            FixKind::ReplacedCloser => "replaced_closer",
            FixKind::RemovedCloser => "removed_closer",
            FixKind::ReorderedClosers => "reordered_closers",
            FixKind::InsertedOpener => "inserted_opener",
            FixKind::RemovedOpener => "removed_opener",
            FixKind::ReplacedOpener => "replaced_opener",
            FixKind::RemovedRepeat => "removed_repeat",
            FixKind::InsertedCloser => "inserted_closer",
            FixKind::RemovedEllipsis => "removed_ellipsis",
            FixKind::RemovedFragment => "removed_fragment",
            FixKind::RemovedCharacter => "removed_character",
            FixKind::RemovedComment => "removed_comment",
            FixKind::ReplacedWhitespace => "replaced_whitespace",
            FixKind::RemovedFence => "removed_fence",
            FixKind::RemovedProse => "removed_prose",
            FixKind::RemovedTrailingText => "removed_trailing_text",
            FixKind::ClosedString => "closed_string",
            FixKind::ClosedContainer => "closed_container",
            FixKind::DroppedEscape => "dropped_escape",
            FixKind::DroppedPartialChar => "dropped_partial_char",
            FixKind::CompletedNumber => "completed_number",
            FixKind::CompletedLiteral => "completed_literal",
            FixKind::DroppedKey => "dropped_key",
            FixKind::CompletedValue => "completed_value",
            FixKind::RemovedDanglingComma => "removed_dangling_comma",
        }
    }
}

display_by_name!(FixKind);

/// The verdict on a whole input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Verdict {
    /// The input was one JSON value; the output is the input, byte for byte.
    Valid,
    /// Something other than a truncation was mended.
    Repaired,
    /// The only fixes closed what a truncation left open.
    Completed,
    /// Nothing JSON-like was found (empty input, only whitespace or comments).
    NotJson,
}

impl Verdict {
    /// The stable snake_case name used in the CLI's JSON output.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Valid => "valid",
            Verdict::Repaired => "repaired",
            Verdict::Completed => "completed",
            Verdict::NotJson => "not_json",
        }
    }
}

display_by_name!(Verdict);
