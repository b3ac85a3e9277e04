//! Typographic quotes in code: straightened where they stand as the code's
//! own delimiters, kept where they are data.
//!
//! A model that writes `print(“hi”)` has written a delimiter wrong, and the
//! file will not compile: ‘ ’ ′ become `'` and “ ” ″ become `"`. The same
//! characters inside the code's own string literals and comments
//! (`print("the ‘^’ marking")`, `# it’s fine`, `// “quoted”`) are data, and
//! so is everything in prose and markup text: there they stay. Each
//! replacement is a [`ToolFixKind::StraightenedQuote`] at its byte offset.
//!
//! Which text is code comes from the file's name ([`is_code_path`]), and how
//! its literals and comments are written from its language family:
//!
//! - **Source code** (`code.rs`, over the tables of `syntax.rs` and the
//!   lexer of `literals.rs`): a lexical scan per family — C, Go, Rust,
//!   the brace languages (Java, JavaScript and TypeScript, C#, Kotlin, Swift,
//!   CSS, JSON, …), Python-like (`#`, triple quotes: also TOML, GraphQL, R,
//!   Elixir, CMake), shell, Ruby and Perl, PHP, HCL, SQL, Lua, Haskell,
//!   Lisps, Erlang, Vim — that jumps over line comments (`//`, `#`, `--`,
//!   `;`, `%`), block comments (`/* */`, `{- -}`), string literals (`"`, `'`
//!   or character literals, backticks, triple quotes, Rust's raw strings,
//!   heredocs), regex literals and JSX text. A typographic quote left in
//!   code is straightened, and when a quote of its kind closes it on the
//!   same line, that one too, with what lies between kept as the literal it
//!   now is: `print(“it’s”)` → `print("it’s")`. A `’` between two letters is
//!   an apostrophe (`it’s`) wherever it stands, so an edit's fragment of a
//!   comment or a docstring keeps its words; so do the ` * ` lines of a
//!   block comment's body, and a fragment that ends or begins inside a
//!   triple-quoted string is read both ways, the reading that keeps more
//!   taken.
//! - **Markup** (`markup.rs`; `.html`, `.htm`, `.xml`, and `.php` around
//!   its `<?php … ?>` code): the text between tags, comments and CDATA is
//!   prose, and attribute values are data; a typographic quote inside a tag
//!   where an attribute's quote belongs (`<a href=“x”>`) is straightened;
//!   `<script>` and `<style>` hold code.
//! - **Configuration** (`config.rs`; YAML, and `key = value` files: `.ini`,
//!   `.conf`, `.env`): a value is data unless a typographic pair wraps it
//!   whole, as quotes would (`name: “app”`, `KEY=“x”`).
//! - **Ignore files** (`.gitignore`, `.dockerignore`) hold path patterns
//!   and have no delimiters: nothing changes.
//! - **Prose** (`.md`, `.markdown`, `.rst`, `.txt` and any unknown name)
//!   is not code: nothing changes.
//!
//! `«` and `»` become `<<` and `>>` only where they stand alone as an
//! operator in code (`cout « x`: spaced, and for `«` no `»` after it on its
//! line): that is what a font ligature makes of a shift. A `«…»` pair in
//! code is a quotation, and which quote it stands for would be a guess, so
//! it stays, and so does every guillemet in a literal, a comment or prose.
//!
//! The text of a tool call's content is a JSON string literal; `json.rs`
//! decodes it once, escapes and all, and edits the literal in place.
//!
//! The scans never recurse and read each byte a bounded number of times
//! whatever the input: a failed attempt (a regex, a JSX element or a
//! literal that does not close) is remembered and not made again over the
//! same stretch ([`Closers`] for the literals typographic quotes open).

use std::borrow::Cow;

use super::{ToolFix, ToolFixKind};

mod code;
mod config;
mod json;
mod jsx;
mod literals;
mod markup;
mod syntax;

pub(super) use self::json::in_json_string;

/// How the text of a file is read, by its name.
#[derive(Debug, Clone, Copy)]
enum Family {
    /// Source code, with its literals and comments.
    Code(&'static syntax::Syntax),
    /// Text between tags is prose.
    Markup(markup::Markup),
    /// Plain scalars are data.
    Yaml,
    /// `key = value` lines whose values are data.
    KeyValue,
    /// Path patterns: nothing delimits.
    Patterns,
}

/// Extensions (lower-case, with the dot) of the files whose text is code, and
/// how each is read: the extensions read alike share a row, separated by
/// spaces, so that a family's list is read at a glance.
const CODE_EXTENSIONS: [(&str, Family); 21] = [
    (".go", Family::Code(&syntax::GO)),
    (
        ".py .r .toml .ex .exs .graphql .gql .cmake",
        Family::Code(&syntax::PYTHON),
    ),
    (".js .jsx .tsx", Family::Code(&syntax::JSX)),
    (
        ".ts .java .swift .kt .scala .cs .gradle",
        Family::Code(&syntax::BRACES),
    ),
    (
        ".json .css .scss .less .proto",
        Family::Code(&syntax::BRACES),
    ),
    (".c .cpp .h .hpp .m .mm", Family::Code(&syntax::C)),
    (".rs", Family::Code(&syntax::RUST)),
    (".rb .pl .pm", Family::Code(&syntax::SCRIPT)),
    (".php", Family::Markup(markup::Markup::Php)),
    (
        ".sh .bash .zsh .fish .dockerfile .makefile",
        Family::Code(&syntax::SHELL),
    ),
    (".sql", Family::Code(&syntax::SQL)),
    (".yaml .yml", Family::Yaml),
    (".xml", Family::Markup(markup::Markup::Xml)),
    (".html .htm", Family::Markup(markup::Markup::Html)),
    (".lua", Family::Code(&syntax::LUA)),
    (".erl .hrl", Family::Code(&syntax::ERLANG)),
    (".hs .elm", Family::Code(&syntax::HASKELL)),
    (".clj .lisp .el", Family::Code(&syntax::LISP)),
    (".vim", Family::Code(&syntax::VIM)),
    (".conf .ini .env", Family::KeyValue),
    (".tf .hcl", Family::Code(&syntax::HCL)),
];

/// Whole file names (no extension needed) whose text is code, in rows as
/// [`CODE_EXTENSIONS`].
const CODE_FILE_NAMES: [(&str, Family); 4] = [
    ("Makefile Dockerfile Procfile", Family::Code(&syntax::SHELL)),
    (
        "Jenkinsfile .eslintrc .prettierrc",
        Family::Code(&syntax::BRACES),
    ),
    (
        "Vagrantfile Gemfile Rakefile Guardfile",
        Family::Code(&syntax::SCRIPT),
    ),
    (".gitignore .dockerignore", Family::Patterns),
];

/// How the file at `path` is read, if it is code.
fn family(path: &str) -> Option<Family> {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    if let Some(family) = row_of(&CODE_FILE_NAMES, name) {
        return Some(family);
    }
    let extension = name[name.rfind('.')?..].to_ascii_lowercase();
    row_of(&CODE_EXTENSIONS, &extension)
}

/// The family of the row of `table` that lists `word`.
fn row_of(table: &[(&str, Family)], word: &str) -> Option<Family> {
    table
        .iter()
        .find(|(words, _)| words.split(' ').any(|listed| listed == word))
        .map(|&(_, family)| family)
}

/// Whether text written to `path` is code, so typographic quotes standing
/// as its delimiters are mistakes.
///
/// True for the code extensions (`.go`, `.py`, `.rs`, `.json`, `.yaml`,
/// `.html`, … in any case) and file names (`Makefile`, `Dockerfile`,
/// `.gitignore`, …); false for `.md`, `.txt`, `.rst` and anything unknown.
///
/// ```
/// assert!(argmend::is_code_path("cmd/main.GO"));
/// assert!(argmend::is_code_path("build/Makefile"));
/// assert!(!argmend::is_code_path("README.md"));
/// assert!(!argmend::is_code_path("notes"));
/// ```
pub fn is_code_path(path: &str) -> bool {
    family(path).is_some()
}

/// What a typographic character becomes in code, if it is one.
fn straight(c: char) -> Option<&'static str> {
    match c {
        '\u{2018}' | '\u{2019}' | '\u{2032}' => Some("'"),
        '\u{201C}' | '\u{201D}' | '\u{2033}' => Some("\""),
        '\u{00AB}' => Some("<<"),
        '\u{00BB}' => Some(">>"),
        _ => None,
    }
}

/// Whether `bytes` may hold a character [`straight`] replaces: written out
/// (UTF-8 `E2 80 98`…`E2 80 B3`, `C2 AB`, `C2 BB`) or as a `\u` escape.
/// `false` is certain; `true` sends the caller to the full walk.
fn may_have_curly(bytes: &[u8]) -> bool {
    let written = memchr::memchr2_iter(0xE2, 0xC2, bytes).any(|at| {
        match (bytes[at], bytes.get(at + 1), bytes.get(at + 2)) {
            (0xE2, Some(0x80), Some(&third)) => {
                (straight_code(0x2000 | u32::from(third & 0x3F))).is_some()
            }
            (0xC2, Some(&second), _) => matches!(second, 0xAB | 0xBB),
            _ => false,
        }
    });
    written
        || memchr::memmem::find_iter(bytes, b"\\u").any(|at| {
            let hex = bytes
                .get(at + 2..at + 6)
                .and_then(|hex| std::str::from_utf8(hex).ok());
            let code = hex.and_then(|hex| u32::from_str_radix(hex, 16).ok());
            code.and_then(straight_code).is_some()
        })
}

/// [`straight`] by code point.
fn straight_code(code: u32) -> Option<&'static str> {
    char::from_u32(code).and_then(straight)
}

/// The two kinds of typographic quote, each with the characters that may
/// close it: its own kind, typographic or straight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// ‘ ’ ′, closed by any of them or `'`.
    Single,
    /// “ ” ″, closed by any of them or `"`.
    Double,
}

impl Class {
    /// The class of a typographic quote; `None` for any other character.
    fn of(c: char) -> Option<Class> {
        match c {
            '\u{2018}' | '\u{2019}' | '\u{2032}' => Some(Class::Single),
            '\u{201C}' | '\u{201D}' | '\u{2033}' => Some(Class::Double),
            _ => None,
        }
    }

    /// Whether `c` may close a literal this class opened: the straight
    /// quote is accepted too (`print(“hi")`).
    fn closes(self, c: char) -> bool {
        match self {
            Class::Single => c == '\'' || Class::of(c) == Some(Class::Single),
            Class::Double => c == '"' || Class::of(c) == Some(Class::Double),
        }
    }
}

/// Where the literals that typographic quotes open in code close.
///
/// It remembers, per class, the stretch that the last failed search read:
/// a later search of that class from inside it starts right after a
/// character the failed one read or skipped as escaped, so it would read
/// the rest the same way and fail too. A line of opening quotes that never
/// close (`“\“\“\…`) is then read once, not once per quote. Searches start
/// at increasing offsets of one text, and a found literal is skipped whole,
/// so every byte is read a bounded number of times.
#[derive(Debug, Default)]
struct Closers {
    /// Per [`Class`], `start..stop`: no closer from any search starting there.
    none: [(usize, usize); 2],
}

impl Closers {
    /// The quote of `class` that closes a literal opened just before `from`,
    /// on the same line; backslash escapes and apostrophes inside words
    /// (`it’s`) are skipped.
    fn find(&mut self, text: &str, from: usize, class: Class) -> Option<usize> {
        let (start, stop) = self.none[class as usize];
        if start <= from && from < stop {
            return None;
        }
        let mut chars = text[from..].char_indices();
        let stop = loop {
            let Some((i, c)) = chars.next() else {
                break text.len();
            };
            match c {
                '\n' => break from + i,
                '\\' => {
                    chars.next();
                }
                c if class.closes(c) && !(c == '’' && in_word(text, from + i)) => {
                    return Some(from + i);
                }
                _ => {}
            }
        };
        self.none[class as usize] = (from, stop);
        None
    }

    /// A typographic quote at `at` that stands in code: straightened (its
    /// offset plus `base` pushed), and when a quote of its class closes it
    /// on the same line, that one too, with what lies between kept as the
    /// literal it now is. Returns where code resumes.
    fn in_code(
        &mut self,
        text: &str,
        at: usize,
        class: Class,
        base: usize,
        out: &mut Vec<usize>,
    ) -> usize {
        out.push(base + at);
        let after = at + text[at..].chars().next().map_or(1, char::len_utf8);
        match self.find(text, after, class) {
            Some(close) => {
                let c = text[close..].chars().next().unwrap_or('"');
                if Class::of(c).is_some() {
                    out.push(base + close);
                }
                close + c.len_utf8()
            }
            None => after,
        }
    }
}

/// Whether the character at `at` stands between two letters or digits, as
/// the apostrophe of `it’s` does.
fn in_word(text: &str, at: usize) -> bool {
    let mut after = text[at..].chars();
    let len = after.next().map_or(0, char::len_utf8);
    text[..at]
        .chars()
        .next_back()
        .is_some_and(char::is_alphanumeric)
        && text[at + len..]
            .chars()
            .next()
            .is_some_and(char::is_alphanumeric)
}

/// A character of a name: a letter, a digit or `_`.
fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The offset of the end of the line holding `at` (its `\n`, or the text's end).
fn line_end(text: &str, at: usize) -> usize {
    text[at..].find('\n').map_or(text.len(), |i| at + i)
}

/// Push the offset in `text` of every typographic character to straighten
/// in a file read as `family`, in any order.
fn delimiters(family: Family, text: &str, out: &mut Vec<usize>) {
    match family {
        Family::Code(syntax) => code::scan(syntax, text, 0, out),
        Family::Markup(markup) => markup::scan(markup, text, out),
        Family::Yaml => config::yaml(text, out),
        Family::KeyValue => config::key_value(text, out),
        Family::Patterns => {}
    }
}

/// The offsets to straighten in `text`, bound for `path`, in order.
fn to_straighten(path: &str, text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    if let Some(family) = family(path) {
        delimiters(family, text, &mut out);
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Text with its typographic quotes straightened where they stand as code
/// delimiters, when it is bound for a code file.
///
/// ```
/// let fixed = argmend::normalize_quotes("main.go", "fmt.Println(“hi”)");
/// assert_eq!(fixed.text(), "fmt.Println(\"hi\")");
/// assert_eq!(fixed.fixes().len(), 2);
/// let data = argmend::normalize_quotes("main.go", "fmt.Println(\"it’s “data”\") // “kept”");
/// assert!(!data.changed());
/// let prose = argmend::normalize_quotes("NOTES.md", "“hi”");
/// assert_eq!(prose.text(), "“hi”");
/// assert!(prose.fixes().is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NormalizedQuotes<'a> {
    text: Cow<'a, str>,
    fixes: Vec<ToolFix>,
}

impl<'a> NormalizedQuotes<'a> {
    /// The text, borrowed when nothing changed.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The text, owned or borrowed.
    pub fn into_text(self) -> Cow<'a, str> {
        self.text
    }

    /// One [`ToolFixKind::StraightenedQuote`] per replaced character, at its byte offset.
    pub fn fixes(&self) -> &[ToolFix] {
        &self.fixes
    }

    /// Whether anything was replaced.
    pub fn changed(&self) -> bool {
        !self.fixes.is_empty()
    }
}

/// Straighten the typographic quotes that stand as code delimiters in
/// `text`, if `path` is a code file (see [`is_code_path`]); those inside the
/// code's own string literals and comments, and in prose and markup text,
/// are data and stay. Each replacement is a fix at the character's byte
/// offset.
///
/// ```
/// // In code, a delimiter: straightened, and what it quotes is a literal.
/// let fixed = argmend::normalize_quotes("app.py", "print(‘it’s’)  # «x» is “data”");
/// assert_eq!(fixed.text(), "print('it’s')  # «x» is “data”");
/// let offsets: Vec<usize> = fixed.fixes().iter().map(|fix| fix.offset).collect();
/// assert_eq!(offsets, [6, 15]);
///
/// // In a literal or a comment, data: the text comes back as it was.
/// let table = "CP437 = {0xAE: \"«\", 0xAF: \"»\"}  # the ‘^’ marking\n";
/// assert_eq!(argmend::normalize_quotes("codepage.py", table).text(), table);
///
/// // A guillemet standing alone as an operator is a shift.
/// assert_eq!(argmend::normalize_quotes("a.cpp", "cout « x;").text(), "cout << x;");
/// ```
pub fn normalize_quotes<'a>(path: &str, text: &'a str) -> NormalizedQuotes<'a> {
    let offsets = if may_have_curly(text.as_bytes()) {
        to_straighten(path, text)
    } else {
        Vec::new()
    };
    if offsets.is_empty() {
        return NormalizedQuotes {
            text: Cow::Borrowed(text),
            fixes: Vec::new(),
        };
    }
    let mut out = String::with_capacity(text.len());
    let mut fixes = Vec::with_capacity(offsets.len());
    let mut copied = 0;
    for offset in offsets {
        let Some(c) = text[offset..].chars().next() else {
            continue;
        };
        let Some(with) = straight(c) else { continue };
        out.push_str(&text[copied..offset]);
        out.push_str(with);
        copied = offset + c.len_utf8();
        fixes.push(ToolFix {
            kind: ToolFixKind::StraightenedQuote,
            offset,
        });
    }
    out.push_str(&text[copied..]);
    NormalizedQuotes {
        text: Cow::Owned(out),
        fixes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` bound for `path` after straightening.
    fn straightened(path: &str, text: &str) -> String {
        normalize_quotes(path, text).text().to_owned()
    }

    #[test]
    fn the_quick_check_never_misses_a_curly_character() {
        for c in [
            '\u{2018}', '\u{2019}', '\u{2032}', '\u{201C}', '\u{201D}', '\u{2033}', '\u{AB}',
            '\u{BB}',
        ] {
            let written = format!("\"x = {c} 1\"");
            assert!(may_have_curly(written.as_bytes()), "{c:?}");
            assert!(in_json_string("a.sh", &written).is_some(), "{c:?}");
            let escaped = format!("\"x = \\u{:04X} 1\"", u32::from(c));
            assert!(may_have_curly(escaped.as_bytes()), "{escaped}");
            assert!(in_json_string("a.sh", &escaped).is_some(), "{escaped}");
        }
        // Other characters that share the lead bytes, and other escapes.
        for text in ["\"✓ é £ ° © — … \\u00e9 \\n\"", "\"plain code(x, y)\""] {
            assert!(!may_have_curly(text.as_bytes()), "{text}");
            assert!(in_json_string("a.sh", text).is_none(), "{text}");
        }
    }

    #[test]
    fn extensions_are_lower_case_with_a_dot() {
        assert!(
            CODE_EXTENSIONS
                .iter()
                .flat_map(|(row, _)| row.split(' '))
                .all(|e| e.starts_with('.') && e.to_ascii_lowercase() == *e)
        );
    }

    #[test]
    fn apostrophes_inside_words_are_data_even_in_code() {
        // An edit's fragment of a docstring or a comment.
        for (path, text) in [
            ("a.py", "    It’s the user’s call.\n"),
            ("a.go", "\tDon’t retry; it’ll loop.\n"),
        ] {
            assert_eq!(straightened(path, text), text, "{path}");
        }
        // Python's string prefixes open a string.
        assert_eq!(
            straightened("a.py", "x = f’{a}’ + b’x’"),
            "x = f'{a}' + b'x'"
        );
    }
}
