//! The lenient grammar's vocabulary: what may follow a value, what a key
//! and a colon may look like, in every form the engine mends.
//!
//! Two readers use it. The machine reads the input token by token and mends
//! what it finds; the quote judge (`judge/`) reads the bytes after a quote
//! and asks whether they continue the open containers. Both classify tokens
//! here, from the one lexer, so every fault the machine mends after a string
//! (`;` or `,,` for a comma, `=` or `=>` for a colon, a curly, single,
//! backtick, bare or numeric key, a comment, a full-width `，`) is also a
//! continuation that ends the string, and the two cannot drift apart.
//!
//! Each lenient form is a [`Faults`] bit. The judge reports which a
//! continuation needed; the machine remembers which the document has used
//! (its style), so a string already known to hold code is ended only by a
//! continuation written the way the document writes its own structure.

use crate::lex::{Quote, Token};

/// A set of lenient forms, as bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Faults(u16);

impl Faults {
    pub(super) const NONE: Faults = Faults(0);
    /// `;` for a comma, or a separator doubled (`,,`, `, ;`).
    pub(super) const SEPARATOR: Faults = Faults(1);
    /// No separator at all: the next member or element follows directly.
    pub(super) const NO_SEPARATOR: Faults = Faults(1 << 1);
    /// A key in single quotes: `'key'`.
    pub(super) const KEY_SINGLE: Faults = Faults(1 << 2);
    /// A key in typographic quotes: `“key”`, `‘key’`, `＂key＂`, or a mixed pair.
    pub(super) const KEY_TYPOGRAPHIC: Faults = Faults(1 << 3);
    /// A key in backticks.
    pub(super) const KEY_BACKTICK: Faults = Faults(1 << 4);
    /// A key without quotes: `key`, `true`.
    pub(super) const KEY_BARE: Faults = Faults(1 << 5);
    /// A number for a key: `5`, `2.17`, `-1`.
    pub(super) const KEY_NUMBER: Faults = Faults(1 << 6);
    /// `=` for a colon.
    pub(super) const COLON_EQUALS: Faults = Faults(1 << 7);
    /// `=>` for a colon.
    pub(super) const COLON_ARROW: Faults = Faults(1 << 8);
    /// A comment: `// …`, `/* … */`, `# …`, `<!-- … -->`.
    pub(super) const COMMENT: Faults = Faults(1 << 9);
    /// Full-width punctuation: `，`, `：`, `｝`.
    pub(super) const WIDE: Faults = Faults(1 << 10);
    /// A stray `",` or `"",` between members (see [`fragment_at`]).
    pub(super) const FRAGMENT: Faults = Faults(1 << 11);
    /// `\n` written between tokens (JSON escaped once too often).
    pub(super) const ESCAPED_WS: Faults = Faults(1 << 12);
    /// A key between template quote markers: `<|"|>key<|"|>`.
    pub(super) const KEY_TEMPLATE: Faults = Faults(1 << 13);

    #[inline]
    pub(super) fn contains(self, other: Faults) -> bool {
        self.0 & other.0 == other.0
    }

    #[inline]
    pub(super) fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The forms in `self` that `style` does not have.
    #[inline]
    pub(super) fn beyond(self, style: Faults) -> Faults {
        Faults(self.0 & !style.0)
    }
}

impl std::ops::BitOr for Faults {
    type Output = Faults;
    #[inline]
    fn bitor(self, other: Faults) -> Faults {
        Faults(self.0 | other.0)
    }
}

impl std::ops::BitOrAssign for Faults {
    #[inline]
    fn bitor_assign(&mut self, other: Faults) {
        self.0 |= other.0;
    }
}

/// Whether `token` separates two members or elements: `,` or `;` (and
/// their full-width forms).
#[inline]
pub(super) fn is_separator(token: Token) -> bool {
    matches!(token, Token::Comma | Token::Semicolon)
}

/// Whether `token` starts a comment, which the machine drops wherever a
/// token may stand.
#[inline]
pub(super) fn is_comment(token: Token) -> bool {
    matches!(
        token,
        Token::LineComment | Token::HashComment | Token::BlockComment | Token::HtmlComment
    )
}

/// The colon at the start of `rest`, where `token` was lexed: its length
/// and the lenient form it is. `:` (and `：`), `=` and `=>`; `==` and `=~`
/// are operators, not colons.
#[inline]
pub(super) fn colon_at(token: Token, len: usize, rest: &[u8]) -> Option<(usize, Faults)> {
    match token {
        Token::Colon if len > 1 => Some((len, Faults::WIDE)),
        Token::Colon => Some((len, Faults::NONE)),
        Token::Other if rest.first() == Some(&b'=') => match rest.get(1) {
            Some(b'>') => Some((2, Faults::COLON_ARROW)),
            Some(b'=' | b'~') => None,
            _ => Some((1, Faults::COLON_EQUALS)),
        },
        _ => None,
    }
}

/// The form of a key that `token` starts, or `None` if it cannot start one
/// after a value (a missing comma) or a separator.
#[inline]
pub(super) fn key_form(token: Token) -> Option<Faults> {
    Some(match token {
        Token::Quote(quote) => quoted_key(quote),
        Token::Word | Token::Literal(_) => Faults::KEY_BARE,
        Token::Number | Token::Minus => Faults::KEY_NUMBER,
        _ => return None,
    })
}

/// The form of a key opened by `quote`.
#[inline]
pub(super) fn quoted_key(quote: Quote) -> Faults {
    match quote {
        Quote::Double => Faults::NONE,
        Quote::Single => Faults::KEY_SINGLE,
        Quote::DoubleLike | Quote::SingleLike => Faults::KEY_TYPOGRAPHIC,
        Quote::Backtick => Faults::KEY_BACKTICK,
        Quote::Template => Faults::KEY_TEMPLATE,
    }
}

/// Whether `token` can begin a value (or a key).
pub(super) fn starts_value(token: Token) -> bool {
    matches!(
        token,
        Token::BraceOpen
            | Token::BracketOpen
            | Token::ParenOpen
            | Token::Quote(_)
            | Token::Number
            | Token::Minus
            | Token::Literal(_)
            | Token::Word
            | Token::Other
            | Token::Backslash
    )
}

/// Whether `token` begins a value that cannot be more of a string's text
/// read as words: a quote, a bracket, a number, a literal. After a value
/// with no separator, only such a value is the next element (`["a" 2]`,
/// `["a" "b"]`); a bare word there (`["a" b]`) is not.
#[inline]
pub(super) fn starts_solid_value(token: Token) -> bool {
    matches!(
        token,
        Token::BraceOpen
            | Token::BracketOpen
            | Token::Quote(_)
            | Token::Number
            | Token::Minus
            | Token::Literal(_)
    )
}

/// What stands at a quote where a key would start (see [`fragment_at`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fragment {
    /// A key (or anything else): not a fragment.
    No,
    /// A stray fragment of this many bytes, its comma included.
    Len(usize),
    /// The bytes that decide it have not arrived.
    Need,
}

/// A stray fragment at `bytes` (which start with `"`) where a key would
/// start: `",` or `"",` (spaces before its comma allowed), the remains of
/// members a model wrote twice or cut (`{"a": "1",", "b": "2","",", "c":
/// "3"}`). Both readers take it as damage to the separator: the machine drops
/// it, the quote judge reads past it. It is not a fragment where a key reads
/// (`","` or `""` then a colon: the keys `,` and the empty one). `eof` says
/// whether the input ends where `bytes` do.
pub(super) fn fragment_at(bytes: &[u8], eof: bool) -> Fragment {
    let short = |k: usize| {
        if k >= bytes.len() && !eof {
            Fragment::Need
        } else {
            Fragment::No
        }
    };
    match bytes.get(1) {
        Some(b'"') => {
            // `""` then spaces and a comma; `"":` is the empty key.
            let mut k = 2;
            loop {
                match bytes.get(k) {
                    Some(b' ' | b'\t') => k += 1,
                    Some(b',') => return Fragment::Len(k + 1),
                    Some(&b) if k == 2 && is_key_byte(b) => return doubled_quote(bytes, eof),
                    _ => return short(k),
                }
            }
        }
        Some(b',') => {
            // `",` then the next key's opening quote, unless that quote
            // closes a key (`", ": 1`: the key `, `) or the key goes on
            // past it. Only spaces and line breaks between.
            let mut k = 2;
            while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(k) {
                k += 1;
            }
            match bytes.get(k) {
                None => short(k),
                Some(b'"') => {
                    let mut j = k + 1;
                    while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(j) {
                        j += 1;
                    }
                    match bytes.get(j) {
                        None => short(j),
                        Some(b':') => Fragment::No,
                        Some(_) => Fragment::Len(2),
                    }
                }
                Some(_) => Fragment::No,
            }
        }
        _ => short(1),
    }
}

/// Where the colon stands in the text of a key (`body`) that lost its end
/// quote before it: `selected: [` of `{"selected: ["A"]}`, `name: ` of
/// `{"name: "Ada"}`. The colon is the first; after it come only spaces and
/// openers (where the value starts), and the name before it is a word
/// (`snake_case`, `kebab-case`, `a.b`), as a key cut so is.
pub(super) fn colon_in_key(body: &[u8]) -> Option<usize> {
    let k = memchr::memchr(b':', body)?;
    if k == 0 || !body[..k].iter().all(|&b| is_key_byte(b)) {
        return None;
    }
    // Spaces, line breaks (raw, or as the escapes a string body holds) and
    // openers up to the quote.
    let mut j = k + 1;
    while j < body.len() {
        match body[j] {
            b' ' | b'\t' | b'\n' | b'\r' | b'[' | b'{' => j += 1,
            b'\\' if matches!(body.get(j + 1), Some(b'n' | b'r' | b't')) => j += 2,
            _ => return None,
        }
    }
    Some(k)
}

/// A byte of a key written without quotes.
fn is_key_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'-' | b'.')
}

/// `""5": 1` where a key starts (`bytes` start with `""` and a key's
/// byte): the key's opening quote written twice. The first is a fragment of
/// one byte when the word is closed by a quote and then its colon.
fn doubled_quote(bytes: &[u8], eof: bool) -> Fragment {
    // A key longer than this is no key a model doubled a quote of, and the
    // look stays bounded while a stream arrives a byte at a time.
    const MAX_WORD: usize = 64;
    let mut k = 2;
    while k < MAX_WORD && bytes.get(k).is_some_and(|&b| is_key_byte(b)) {
        k += 1;
    }
    match bytes.get(k) {
        Some(b'"') => {}
        None if !eof => return Fragment::Need,
        _ => return Fragment::No,
    }
    k += 1;
    while let Some(b' ' | b'\t') = bytes.get(k) {
        k += 1;
    }
    match bytes.get(k) {
        Some(b':') => Fragment::Len(1),
        None if !eof => Fragment::Need,
        _ => Fragment::No,
    }
}

/// Whether the text before any value is a sentence of prose rather than a
/// bare value: three words or more that end as a sentence does (`.`, `!`,
/// `?`) or hold a contraction (`can't`, `I'm`), or four or more with a
/// comma between them (`Sorry, I can't help with that.`, `Could you
/// clarify?`). A word or two (`hello world`, `ls -l`, `main.go`) stays a
/// value.
pub(super) fn is_sentence(text: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(text) else {
        return false;
    };
    let text = text.trim();
    let words = text.split_whitespace().count();
    if words < 3 {
        return false;
    }
    let ends = text
        .trim_end_matches(['"', '\'', ')', '”', '’'])
        .ends_with(['.', '!', '?']);
    let contraction = text
        .as_bytes()
        .windows(3)
        .any(|w| w[0].is_ascii_alphabetic() && w[1] == b'\'' && w[2].is_ascii_alphabetic())
        || text.contains('’');
    ends || contraction || (words >= 4 && text.contains(", "))
}

/// The literals a bare key's value may be, in the spellings the engine
/// mends.
const LITERALS: [&[u8]; 8] = [
    b"true",
    b"false",
    b"null",
    b"True",
    b"False",
    b"None",
    b"undefined",
    b"NaN",
];

/// Where a bare word where a key belongs could start a line of prose: the
/// length of the line (to its line break), `Some(None)` when it surely is
/// no prose (a quote or a bracket on it, or a bare key and a value that is
/// no word: `temp: 21`), `None` while the line has not ended within `max`.
pub(super) fn prose_line_end(rest: &[u8], max: usize) -> Option<Option<usize>> {
    match surely_member(rest) {
        Some(true) => return Some(None),
        None => return None,
        Some(false) => {}
    }
    for (k, &b) in rest.iter().enumerate().take(max) {
        match b {
            b'\n' => return Some(Some(k)),
            b'"' | b'{' | b'[' | b'}' | b']' => return Some(None),
            _ => {}
        }
    }
    if rest.len() >= max { Some(None) } else { None }
}

/// Whether a bare word at the start of `rest`, where a key belongs, is
/// surely a key: its colon follows, then a value that is no word (`temp:
/// 21`, `path: "a"`) or a literal (`append: True,`). `Some(false)` when it
/// could begin a sentence, `None` while a literal's prefix ends `rest`.
pub(super) fn surely_member(rest: &[u8]) -> Option<bool> {
    let word = rest
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'-')))
        .unwrap_or(rest.len());
    let mut k = word;
    while rest.get(k).is_some_and(|b| matches!(b, b' ' | b'\t')) {
        k += 1;
    }
    if rest.get(k) != Some(&b':') {
        return Some(false);
    }
    k += 1;
    while rest.get(k).is_some_and(|b| matches!(b, b' ' | b'\t')) {
        k += 1;
    }
    if rest.get(k).is_some_and(|b| !b.is_ascii_alphabetic()) {
        return Some(true);
    }
    // A literal (`append: True,`) is a value, not the first word of a
    // sentence; a prefix of one at the end of what arrived waits.
    let value = &rest[k..];
    let len = value
        .iter()
        .position(|b| !b.is_ascii_alphanumeric())
        .unwrap_or(value.len());
    if len > 0 && len < value.len() && LITERALS.contains(&&value[..len]) {
        return Some(true);
    }
    if len == value.len() && LITERALS.iter().any(|l| l.starts_with(value)) {
        return None;
    }
    Some(false)
}

/// Whether `line` (up to its line break, which it does not hold), where a
/// key belongs, is a line of prose: words holding no quote or bracket, two
/// or more of them; a line that begins with a bare key and its colon
/// (`name: John`) only when it reads as a sentence (`Note: the values below
/// are estimates.`).
pub(super) fn is_prose_line(line: &[u8]) -> bool {
    if line
        .iter()
        .any(|b| matches!(b, b'"' | b'{' | b'[' | b'}' | b']'))
    {
        return false;
    }
    let Ok(text) = std::str::from_utf8(line) else {
        return false;
    };
    let mut words = text.split_whitespace();
    let bare_key = words.next().is_some_and(|w| w.ends_with(':'));
    if bare_key {
        is_sentence(line)
    } else {
        words.next().is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lex;

    fn colon(text: &str) -> Option<(usize, Faults)> {
        let (token, len) = lex::next(text.as_bytes())?;
        colon_at(token, len, text.as_bytes())
    }

    #[test]
    fn colon_forms() {
        assert_eq!(colon(": 1"), Some((1, Faults::NONE)));
        assert_eq!(colon("= 1"), Some((1, Faults::COLON_EQUALS)));
        assert_eq!(colon("=> 1"), Some((2, Faults::COLON_ARROW)));
        assert_eq!(colon("\u{FF1A} 1"), Some((3, Faults::WIDE)));
        assert_eq!(colon("== 1"), None);
        assert_eq!(colon(", 1"), None);
    }

    #[test]
    fn fragments() {
        let at = |text: &str| fragment_at(text.as_bytes(), true);
        assert_eq!(at("\", \"b\": 1"), Fragment::Len(2));
        assert_eq!(at("\",\"b\":1"), Fragment::Len(2));
        assert_eq!(at("\"\", \"b\": 1"), Fragment::Len(3));
        assert_eq!(at("\"\" , \"b\": 1"), Fragment::Len(4));
        assert_eq!(at("\",\n  \"b\": 1"), Fragment::Len(2));
        // The keys `,`, `, ` and the empty one.
        assert_eq!(at("\",\": 1"), Fragment::No);
        assert_eq!(at("\", \" : 1"), Fragment::No);
        assert_eq!(at("\"\": 1"), Fragment::No);
        assert_eq!(at("\"\"}"), Fragment::No);
        assert_eq!(at("\"b\": 1"), Fragment::No);
        // A key that starts with `,` (valid JSON), however long.
        assert_eq!(at("\",“A0 long text\": null"), Fragment::No);
        assert_eq!(at("\",x\": null"), Fragment::No);
        // Undecided until more arrives.
        assert_eq!(fragment_at(b"\"", false), Fragment::Need);
        assert_eq!(fragment_at(b"\",", false), Fragment::Need);
        assert_eq!(fragment_at(b"\"\" ", false), Fragment::Need);
        assert_eq!(fragment_at(b"\", \"", false), Fragment::Need);
    }

    #[test]
    fn key_forms() {
        let form = |text: &str| key_form(lex::next(text.as_bytes()).unwrap().0);
        assert_eq!(form("\"a\""), Some(Faults::NONE));
        assert_eq!(form("'a'"), Some(Faults::KEY_SINGLE));
        assert_eq!(form("\u{201C}a\u{201D}"), Some(Faults::KEY_TYPOGRAPHIC));
        assert_eq!(form("`a`"), Some(Faults::KEY_BACKTICK));
        assert_eq!(form("a"), Some(Faults::KEY_BARE));
        assert_eq!(form("null"), Some(Faults::KEY_BARE));
        assert_eq!(form("2.17"), Some(Faults::KEY_NUMBER));
        assert_eq!(form("{"), None);
    }
}
