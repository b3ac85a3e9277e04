//! The tokenizer: logos over bytes, zero-copy.
//!
//! Outside string bodies the input is cut into [`Token`]s; each carries only
//! its kind, and the caller knows its span (start offset plus the length
//! [`next`] returns), so nothing is copied. String bodies are not tokenized:
//! the repair engine runs through them with memchr, because a body can be
//! megabytes long and must be resumable at any byte.
//!
//! Lenient shapes (single and curly quotes, Python literals, bare words,
//! comments, fences) have variants of their own so the state machine matches
//! on tokens instead of re-scanning text.

use logos::Logos;

/// Which quote opened a string, which decides which quotes may close it
/// (see [`closes`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Quote {
    /// `"`.
    Double,
    /// `'`.
    Single,
    /// `“ ” „ ‟ ″ ＂`: typographic double quotes.
    DoubleLike,
    /// `‘ ’ ‚ ‛ ′ ´ ＇`: typographic single quotes.
    SingleLike,
    /// `` ` ``.
    Backtick,
    /// `<|"|>` (or `<|">`): the string marker of Gemma 4's tool-call
    /// syntax (`{query:<|"|>weather<|"|>}`), which reaches the arguments
    /// when a server's parser lets the model's own syntax through. Only the
    /// marker closes a string it opened; a `"` in it is text.
    Template,
}

/// Whether a quote may close a string, and how surely.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Closer {
    /// A quote of the string's own kind (`"` for `"`, `”` for `“`).
    Own,
    /// The straight or typographic twin of its kind (`”` for `"`, `"` for
    /// `“`, `’` or a backtick for `'`): models write mixed pairs (`“key"`,
    /// `"value”`, `` `a´ ``), but
    /// the twin is text too often (`"it’s"`) to end a string where a quote
    /// of its own kind could.
    Twin,
    /// Neither: it is text.
    No,
}

/// A JSON literal or one of its lenient spellings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Literal {
    /// `true`, already valid.
    True,
    /// `false`, already valid.
    False,
    /// `null`, already valid.
    Null,
    /// `True`, `TRUE`: becomes `true`.
    LenientTrue,
    /// `False`, `FALSE`: becomes `false`.
    LenientFalse,
    /// `None`, `none`, `Null`, `NULL`, `undefined`, `NaN`, `Infinity`: becomes `null`.
    LenientNull,
}

impl Literal {
    /// The JSON literal it stands for, and whether it had to be replaced to
    /// get there (`True`, `None`, …): the one table of spellings, which the
    /// machine and the fast lane both read.
    pub(crate) fn json(self) -> (&'static str, bool) {
        match self {
            Literal::True => ("true", false),
            Literal::False => ("false", false),
            Literal::Null => ("null", false),
            Literal::LenientTrue => ("true", true),
            Literal::LenientFalse => ("false", true),
            Literal::LenientNull => ("null", true),
        }
    }
}

/// The spellings models write most, JSON's own and Python's: a word cut
/// off by the end of input is completed to the one it starts, and the quote
/// judge takes these (and only these) as a value after a key. Each lexes as
/// the literal beside it (a test checks), so they cannot drift from the
/// tokenizer's spellings.
pub(crate) const COMMON_LITERALS: [(&[u8], Literal); 6] = [
    (b"true", Literal::True),
    (b"false", Literal::False),
    (b"null", Literal::Null),
    (b"True", Literal::LenientTrue),
    (b"False", Literal::LenientFalse),
    (b"None", Literal::LenientNull),
];

/// A token outside string bodies.
#[derive(Logos, Debug, Clone, Copy, PartialEq, Eq)]
#[logos(utf8 = false)]
pub(crate) enum Token {
    // Each punctuation token also has its full-width form (`｛`, `：`, `，`,
    // U+FF00 to U+FF5E), which some models write in Chinese and Japanese
    // text; the machine writes the ASCII one (`replaced_punctuation`).
    #[token("{")]
    #[token(b"\xEF\xBD\x9B")]
    BraceOpen,
    #[token("}")]
    #[token(b"\xEF\xBD\x9D")]
    BraceClose,
    #[token("[")]
    #[token(b"\xEF\xBC\xBB")]
    BracketOpen,
    #[token("]")]
    #[token(b"\xEF\xBC\xBD")]
    BracketClose,
    #[token("(")]
    #[token(b"\xEF\xBC\x88")]
    ParenOpen,
    #[token(")")]
    #[token(b"\xEF\xBC\x89")]
    ParenClose,
    #[token(":")]
    #[token(b"\xEF\xBC\x9A")]
    Colon,
    #[token(",")]
    #[token(b"\xEF\xBC\x8C")]
    Comma,
    #[token(";")]
    #[token(b"\xEF\xBC\x9B")]
    Semicolon,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("\\")]
    Backslash,
    #[token("/")]
    Slash,
    #[token("...")]
    Ellipsis,
    #[token("```")]
    Fence,
    #[regex(r"[ \t\r\n]+")]
    Whitespace,
    /// NBSP, en quad to hair space, zero-width space, narrow NBSP, medium
    /// math space, ideographic space, Mongolian vowel separator, BOM.
    #[regex(b"\xC2\xA0|\xE2\x80[\x80-\x8B]|\xE2\x80\xAF|\xE2\x81\x9F|\xE3\x80\x80|\xE1\xA0\x8E|\xEF\xBB\xBF")]
    SpecialWhitespace,
    #[token("//")]
    LineComment,
    #[token("#")]
    HashComment,
    #[token("/*")]
    BlockComment,
    /// `<!--`: an HTML comment, which models copy from web pages and
    /// templates into JSON.
    #[token("<!--")]
    HtmlComment,
    #[token("\"", |_| Quote::Double)]
    #[token("'", |_| Quote::Single)]
    #[token("`", |_| Quote::Backtick)]
    #[regex(b"\xE2\x80[\x98\x99\x9A\x9B]|\xE2\x80\xB2|\xC2\xB4|\xEF\xBC\x87", |_| Quote::SingleLike)]
    #[regex(b"\xE2\x80[\x9C\x9D\x9E\x9F]|\xE2\x80\xB3|\xEF\xBC\x82", |_| Quote::DoubleLike)]
    #[token("<|\"|>", |_| Quote::Template)]
    #[token("<|\">", |_| Quote::Template)]
    Quote(Quote),
    #[regex(r"[+-]?[0-9][0-9_]*(\.[0-9_]*)?([eE][+-]?[0-9]*)?")]
    #[regex(r"[+-]?\.[0-9]*([eE][+-]?[0-9]*)?")]
    Number,
    #[token("true", |_| Literal::True)]
    #[token("false", |_| Literal::False)]
    #[token("null", |_| Literal::Null)]
    #[token("True", |_| Literal::LenientTrue)]
    #[token("TRUE", |_| Literal::LenientTrue)]
    #[token("False", |_| Literal::LenientFalse)]
    #[token("FALSE", |_| Literal::LenientFalse)]
    #[token("None", |_| Literal::LenientNull)]
    #[token("none", |_| Literal::LenientNull)]
    #[token("NONE", |_| Literal::LenientNull)]
    #[token("Null", |_| Literal::LenientNull)]
    #[token("NULL", |_| Literal::LenientNull)]
    #[token("undefined", |_| Literal::LenientNull)]
    #[token("NaN", |_| Literal::LenientNull)]
    #[token("Infinity", |_| Literal::LenientNull)]
    #[token("+Infinity", |_| Literal::LenientNull)]
    #[token("-Infinity", |_| Literal::LenientNull)]
    Literal(Literal),
    /// An identifier-like word: a possible function name (`NumberLong(`) or
    /// the start of a bare string.
    #[regex(r"[A-Za-z_$][A-Za-z0-9_$]*")]
    Word,
    /// Any other character (one UTF-8 sequence, or one invalid byte).
    Other,
}

/// The token at the start of `bytes` and its length, or `None` when empty.
///
/// A token that reaches the end of `bytes` may continue in bytes not yet
/// seen; the caller decides whether to wait (see [`may_grow`]).
pub(crate) fn next(bytes: &[u8]) -> Option<(Token, usize)> {
    let mut lexer = Token::lexer(bytes);
    let token = lexer.next()?;
    let len = lexer.span().end;
    match token {
        Ok(token) => Some((token, len)),
        Err(()) => Some((Token::Other, utf8_len(bytes[0]).min(bytes.len()).max(1))),
    }
}

/// Whether a token of this kind that ends at the end of the available input
/// could still grow when more bytes come.
pub(crate) fn may_grow(token: Token) -> bool {
    !is_punctuation(token)
        && !matches!(
            token,
            Token::Backslash
                | Token::Fence
                | Token::LineComment
                | Token::HashComment
                | Token::BlockComment
                | Token::HtmlComment
                | Token::SpecialWhitespace
                | Token::Quote(Quote::Double | Quote::Single | Quote::DoubleLike)
        )
}

/// Whether `token`, `len` bytes long, is punctuation written in its
/// full-width form (`｛`, `：`, `，`), which the machine writes as ASCII.
#[inline]
pub(crate) fn is_wide_punctuation(token: Token, len: usize) -> bool {
    len > 1 && is_punctuation(token)
}

/// The structural punctuation: one character, ASCII or full-width, that no
/// more bytes can make longer. One list, so that what may grow and what is
/// written as ASCII cannot disagree about it.
#[inline]
fn is_punctuation(token: Token) -> bool {
    matches!(
        token,
        Token::BraceOpen
            | Token::BraceClose
            | Token::BracketOpen
            | Token::BracketClose
            | Token::ParenOpen
            | Token::ParenClose
            | Token::Colon
            | Token::Comma
            | Token::Semicolon
    )
}

/// The longest token that starts like a shorter one (`-Infinity` after `-`).
pub(crate) const LONGEST_PREFIXED: usize = 9;

/// Whether `token`, found at the start of `rest`, may be the start of a
/// longer token (`` ` `` of a fence, `.` of `...`, `-` of `-Infinity`) that
/// more bytes would complete. logos backtracks to the shorter token when the
/// longer one is cut off, so the caller waits for [`LONGEST_PREFIXED`] bytes
/// (or the end of input) before taking it.
pub(crate) fn is_prefix_of_longer(token: Token, rest: &[u8]) -> bool {
    match token {
        Token::Minus | Token::Plus => true,
        Token::Quote(Quote::Backtick) | Token::Number => {
            matches!(rest.first(), Some(b'`' | b'.'))
        }
        // `<!--` after `<`, `<!` or `<!-`: logos backtracks to `Other`.
        Token::Other => rest.first() == Some(&b'<'),
        _ => false,
    }
}

/// Whether `token` at the start of `rest` (where it reached the end of the
/// input so far) can be continued byte by byte to the same answer logos
/// would give for the whole: a word (`[A-Za-z_$][A-Za-z0-9_$]*`), or a
/// number so far made of a sign, digits, `_` and at most one `.`.
pub(crate) fn continues_plainly(token: Token, rest: &[u8]) -> bool {
    match token {
        Token::Word => true,
        Token::Number => {
            let body = rest
                .strip_prefix(b"-")
                .or_else(|| rest.strip_prefix(b"+"))
                .unwrap_or(rest);
            body.first().is_some_and(u8::is_ascii_digit)
                && body
                    .iter()
                    .all(|&b| b.is_ascii_digit() || b == b'_' || b == b'.')
                && body.iter().filter(|&&b| b == b'.').count() <= 1
        }
        _ => false,
    }
}

/// What kind of JSON value, from its first byte: the one classification
/// the call walker's events and `@json`'s lazy document share.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ValueKind {
    /// `{`
    Object,
    /// `[`
    Array,
    /// `"`
    String,
    /// `-1.5e3`
    Number,
    /// `true` or `false`
    Bool,
    /// `null`
    Null,
}

/// The length of the strict JSON number at the start of `bytes` (`-0`,
/// `12.5e-3`), if one starts there: the one grammar for numbers that the
/// validator, the lazy document, the normalize tree and the engine's
/// normalising of lenient numbers share. `01` yields 1 (the `0`); a caller
/// that needs the number to end at a delimiter checks the byte after it.
pub(crate) fn number_len(bytes: &[u8]) -> Option<usize> {
    let digits = |from: usize| {
        bytes.get(from..).map_or(0, |rest| {
            rest.iter().take_while(|b| b.is_ascii_digit()).count()
        })
    };
    let mut i = usize::from(bytes.first() == Some(&b'-'));
    match bytes.get(i)? {
        b'0' => i += 1,
        b'1'..=b'9' => i += digits(i),
        _ => return None,
    }
    if bytes.get(i) == Some(&b'.') {
        let n = digits(i + 1);
        if n == 0 {
            return None;
        }
        i += 1 + n;
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(bytes.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let n = digits(i);
        if n == 0 {
            return None;
        }
        i += n;
    }
    Some(i)
}

/// JSON whitespace.
#[inline]
pub(crate) fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// The characters after which a quote is taken to end its string, and at
/// which a string missing its end quote is cut (jsonrepair's delimiters).
#[inline]
pub(crate) fn is_delimiter(b: u8) -> bool {
    matches!(
        b,
        b',' | b':' | b'[' | b']' | b'/' | b'{' | b'}' | b'(' | b')' | b'\n' | b'+'
    )
}

/// The characters that end a bare (unquoted) word: structure only, so a
/// path (`src/main.go`) or a URL stays one word.
#[inline]
pub(crate) const fn ends_bare_word(b: u8) -> bool {
    matches!(b, b',' | b'[' | b']' | b'{' | b'}' | b'\n')
}

/// Whether `bytes` starts with full-width punctuation that ends a bare word
/// or a number as its ASCII form does: `，` `：` `；` `｝` `］` `）` (and
/// `：` only for a key: `colon` says whether it counts).
#[inline]
pub(crate) fn wide_structure_at(bytes: &[u8], colon: bool) -> bool {
    match bytes {
        [0xEF, 0xBD, 0x9D, ..] | [0xEF, 0xBC, 0xBD | 0x89 | 0x8C | 0x9B, ..] => true,
        [0xEF, 0xBC, 0x9A, ..] => colon,
        _ => false,
    }
}

/// The length of the UTF-8 sequence a lead byte announces (1 for an invalid lead).
#[inline]
pub(crate) fn utf8_len(lead: u8) -> usize {
    match lead {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => 1,
    }
}

/// The quote character at the start of `bytes`, if any, with its length.
///
/// `None` also when `bytes` may be a quote cut short: a caller that may
/// get more input checks first for a multi-byte quote's lead byte near the
/// end, and for [`cut_in_template_quote`].
#[inline]
pub(crate) fn quote_at(bytes: &[u8]) -> Option<(Quote, usize)> {
    match bytes {
        [b'"', ..] => Some((Quote::Double, 1)),
        [b'\'', ..] => Some((Quote::Single, 1)),
        [b'`', ..] => Some((Quote::Backtick, 1)),
        [0xE2, 0x80, 0x98..=0x9B | 0xB2, ..] | [0xC2, 0xB4, ..] | [0xEF, 0xBC, 0x87, ..] => {
            Some((Quote::SingleLike, if bytes[0] == 0xC2 { 2 } else { 3 }))
        }
        [0xE2, 0x80, 0x9C..=0x9F | 0xB3, ..] | [0xEF, 0xBC, 0x82, ..] => {
            Some((Quote::DoubleLike, 3))
        }
        [b'<', ..] => template_quote_at(bytes),
        _ => None,
    }
}

/// The template marker at the start of `bytes` (kept out of line: rare,
/// and [`quote_at`] is inlined into every quote test).
#[inline(never)]
fn template_quote_at(bytes: &[u8]) -> Option<(Quote, usize)> {
    match bytes {
        [b'<', b'|', b'"', b'|', b'>', ..] => Some((Quote::Template, 5)),
        [b'<', b'|', b'"', b'>', ..] => Some((Quote::Template, 4)),
        _ => None,
    }
}

/// Whether `bytes` is cut inside a template quote marker (`<`, `<|`,
/// `<|"`, `<|"|` with nothing after): more bytes decide whether a marker
/// starts there, so a reader that has not reached the end of the input
/// waits.
#[inline]
pub(crate) fn cut_in_template_quote(bytes: &[u8]) -> bool {
    bytes.first() == Some(&b'<') && bytes.len() < 5 && b"<|\"|>".starts_with(bytes)
}

/// Whether `quote` may close a string opened by `open`: a quote of its
/// own kind, or its twin (straight for typographic and the reverse).
#[inline]
pub(crate) fn closes(open: Quote, quote: Quote) -> Closer {
    match (open, quote) {
        (Quote::Double, Quote::Double)
        | (Quote::Single, Quote::Single)
        | (Quote::DoubleLike, Quote::DoubleLike)
        | (Quote::SingleLike, Quote::SingleLike)
        | (Quote::Backtick, Quote::Backtick)
        | (Quote::Template, Quote::Template) => Closer::Own,
        (Quote::Double, Quote::DoubleLike)
        | (Quote::DoubleLike, Quote::Double)
        | (Quote::Single | Quote::Backtick, Quote::SingleLike)
        | (Quote::SingleLike | Quote::Backtick, Quote::Single)
        | (Quote::Single | Quote::SingleLike, Quote::Backtick) => Closer::Twin,
        _ => Closer::No,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(mut bytes: &[u8]) -> Vec<Token> {
        let mut out = Vec::new();
        while let Some((token, len)) = next(bytes) {
            out.push(token);
            bytes = &bytes[len..];
        }
        out
    }

    #[test]
    fn number_len_is_json_grammar() {
        for (text, want) in [
            ("0", Some(1)),
            ("-0", Some(2)),
            ("12.5e-3,", Some(7)),
            ("1E+9]", Some(4)),
            ("01", Some(1)),
            ("1.", None),
            ("1e", None),
            ("-", None),
            (".5", None),
            ("+1", None),
            ("", None),
        ] {
            assert_eq!(number_len(text.as_bytes()), want, "{text:?}");
        }
    }

    #[test]
    fn lenient_tokens_have_their_own_kinds() {
        use Token::*;
        assert_eq!(
            kinds(b"{'a' \xE2\x80\x9Cb\xE2\x80\x9D True .5 2e +1 1_000 ...}"),
            vec![
                BraceOpen,
                Quote(super::Quote::Single),
                Word,
                Quote(super::Quote::Single),
                Whitespace,
                Quote(super::Quote::DoubleLike),
                Word,
                Quote(super::Quote::DoubleLike),
                Whitespace,
                Literal(super::Literal::LenientTrue),
                Whitespace,
                Number,
                Whitespace,
                Number,
                Whitespace,
                Number,
                Whitespace,
                Number,
                Whitespace,
                Ellipsis,
                BraceClose,
            ]
        );
    }

    #[test]
    fn template_markers_are_quotes() {
        assert_eq!(next(b"<|\"|>a"), Some((Token::Quote(Quote::Template), 5)));
        assert_eq!(next(b"<|\">a"), Some((Token::Quote(Quote::Template), 4)));
        // Cut short, the marker is `<` for now: the reader waits (see
        // `is_prefix_of_longer` and `cut_in_template_quote`).
        assert_eq!(next(b"<|\"|"), Some((Token::Other, 1)));
        assert_eq!(quote_at(b"<|\"|>"), Some((Quote::Template, 5)));
        for cut in [&b"<"[..], b"<|", b"<|\"", b"<|\"|"] {
            assert!(cut_in_template_quote(cut), "{cut:?}");
        }
        for whole in [&b"<|\"|>"[..], b"<|\">", b"<a", b"", b"|>"] {
            assert!(!cut_in_template_quote(whole), "{whole:?}");
        }
        assert_eq!(closes(Quote::Template, Quote::Double), Closer::No);
        assert_eq!(closes(Quote::Double, Quote::Template), Closer::No);
    }

    #[test]
    fn words_beat_literal_prefixes() {
        assert_eq!(kinds(b"trueish"), vec![Token::Word]);
        assert_eq!(
            kinds(b"-Infinity"),
            vec![Token::Literal(Literal::LenientNull)]
        );
    }

    #[test]
    fn invalid_bytes_are_other() {
        assert_eq!(next(b"\xFFa"), Some((Token::Other, 1)));
        assert_eq!(next(b"\xC3\xA9t"), Some((Token::Other, 2)));
    }

    #[test]
    fn the_common_literals_lex_as_their_literal() {
        for (spelling, literal) in COMMON_LITERALS {
            assert_eq!(
                next(spelling),
                Some((Token::Literal(literal), spelling.len())),
                "{spelling:?}"
            );
        }
    }
}
