//! Curly quotes in code: ‘ ’ ′ → `'`, “ ” ″ → `"`, « → `<<`, » → `>>`, only
//! in text bound for a code file.

use std::borrow::Cow;

use super::{ToolFix, ToolFixKind};

/// Extensions (lower-case, with the dot) of the files whose text is code.
const CODE_EXTENSIONS: [&str; 60] = [
    ".go",
    ".py",
    ".js",
    ".ts",
    ".jsx",
    ".tsx",
    ".java",
    ".c",
    ".cpp",
    ".h",
    ".hpp",
    ".rs",
    ".rb",
    ".php",
    ".swift",
    ".kt",
    ".scala",
    ".cs",
    ".r",
    ".m",
    ".mm",
    ".sh",
    ".bash",
    ".zsh",
    ".fish",
    ".sql",
    ".json",
    ".yaml",
    ".yml",
    ".toml",
    ".xml",
    ".html",
    ".css",
    ".scss",
    ".less",
    ".lua",
    ".pl",
    ".pm",
    ".ex",
    ".exs",
    ".erl",
    ".hrl",
    ".hs",
    ".elm",
    ".clj",
    ".lisp",
    ".el",
    ".vim",
    ".conf",
    ".ini",
    ".env",
    ".dockerfile",
    ".tf",
    ".hcl",
    ".proto",
    ".graphql",
    ".gql",
    ".makefile",
    ".cmake",
    ".gradle",
];

/// Whole file names (no extension needed) whose text is code.
const CODE_FILE_NAMES: [&str; 12] = [
    "Makefile",
    "Dockerfile",
    "Jenkinsfile",
    "Vagrantfile",
    "Gemfile",
    "Rakefile",
    "Guardfile",
    "Procfile",
    ".gitignore",
    ".dockerignore",
    ".eslintrc",
    ".prettierrc",
];

/// Whether text written to `path` is code, so curly quotes in it are mistakes.
///
/// True for the code extensions (`.go`, `.py`, `.rs`, `.json`, `.yaml`, … in
/// any case) and file names (`Makefile`, `Dockerfile`, `.gitignore`, …);
/// false for `.md`, `.txt`, `.rst` and anything unknown.
///
/// ```
/// assert!(argmend::is_code_path("cmd/main.GO"));
/// assert!(argmend::is_code_path("build/Makefile"));
/// assert!(!argmend::is_code_path("README.md"));
/// assert!(!argmend::is_code_path("notes"));
/// ```
pub fn is_code_path(path: &str) -> bool {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    if CODE_FILE_NAMES.contains(&name) {
        return true;
    }
    match name.rfind('.') {
        Some(dot) => {
            let extension = name[dot..].to_ascii_lowercase();
            CODE_EXTENSIONS.contains(&extension.as_str())
        }
        None => false,
    }
}

/// What a curly character becomes in code, if it is one.
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

/// Text with its curly quotes straightened when it is bound for a code file.
///
/// ```
/// let fixed = argmend::normalize_quotes("main.go", "fmt.Println(“hi”)");
/// assert_eq!(fixed.text(), "fmt.Println(\"hi\")");
/// assert_eq!(fixed.fixes().len(), 2);
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

/// Straighten the curly quotes in `text` if `path` is a code file (see
/// [`is_code_path`]); each replacement is a fix at the character's byte offset.
///
/// ```
/// let fixed = argmend::normalize_quotes("app.py", "print(‘hi’)  # «x»");
/// assert_eq!(fixed.text(), "print('hi')  # <<x>>");
/// let offsets: Vec<usize> = fixed.fixes().iter().map(|fix| fix.offset).collect();
/// assert_eq!(offsets, [6, 11, 19, 22]);
/// ```
pub fn normalize_quotes<'a>(path: &str, text: &'a str) -> NormalizedQuotes<'a> {
    if !is_code_path(path) || !text.chars().any(|c| straight(c).is_some()) {
        return NormalizedQuotes {
            text: Cow::Borrowed(text),
            fixes: Vec::new(),
        };
    }
    let mut out = String::with_capacity(text.len());
    let mut fixes = Vec::new();
    for (offset, c) in text.char_indices() {
        match straight(c) {
            Some(with) => {
                out.push_str(with);
                fixes.push(ToolFix {
                    kind: ToolFixKind::StraightenedQuote,
                    offset,
                });
            }
            None => out.push(c),
        }
    }
    NormalizedQuotes {
        text: Cow::Owned(out),
        fixes,
    }
}

/// Straighten the curly quotes inside a JSON string literal (quotes
/// included), whether written as characters or as `\u` escapes. Returns the
/// new literal and the byte offset, within the literal, of each replacement;
/// `None` when there is nothing to replace.
pub(super) fn in_json_string(literal: &str) -> Option<(String, Vec<usize>)> {
    // Nearly all code has nothing to replace: find that out with memchr
    // instead of walking every character.
    if !may_have_curly(literal.as_bytes()) {
        return None;
    }
    let mut out = String::with_capacity(literal.len());
    let mut offsets = Vec::new();
    let mut rest = literal.char_indices().peekable();
    while let Some((at, c)) = rest.next() {
        if c == '\\' {
            let Some(&(_, next)) = rest.peek() else {
                out.push(c);
                break;
            };
            rest.next();
            if next == 'u' {
                let hex = literal.get(at + 2..at + 6).unwrap_or("");
                let code = u32::from_str_radix(hex, 16).ok();
                if let Some(with) = code.and_then(char::from_u32).and_then(straight) {
                    out.push_str(if with == "\"" { "\\\"" } else { with });
                    offsets.push(at);
                    for _ in 0..4 {
                        rest.next();
                    }
                    continue;
                }
            }
            out.push(c);
            out.push(next);
            continue;
        }
        match straight(c) {
            Some(with) => {
                out.push_str(if with == "\"" { "\\\"" } else { with });
                offsets.push(at);
            }
            None => out.push(c),
        }
    }
    (!offsets.is_empty()).then_some((out, offsets))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quick_check_never_misses_a_curly_character() {
        for c in [
            '\u{2018}', '\u{2019}', '\u{2032}', '\u{201C}', '\u{201D}', '\u{2033}', '\u{AB}',
            '\u{BB}',
        ] {
            let written = format!("\"print({c}hi{c})\"");
            assert!(may_have_curly(written.as_bytes()), "{c:?}");
            assert!(in_json_string(&written).is_some(), "{c:?}");
            let escaped = format!("\"a \\u{:04X} b\"", u32::from(c));
            assert!(may_have_curly(escaped.as_bytes()), "{escaped}");
            assert!(in_json_string(&escaped).is_some(), "{escaped}");
        }
        // Other characters that share the lead bytes, and other escapes.
        for text in ["\"✓ é £ ° © — … \\u00e9 \\n\"", "\"plain code(x, y)\""] {
            assert!(!may_have_curly(text.as_bytes()), "{text}");
            assert!(in_json_string(text).is_none(), "{text}");
        }
    }

    #[test]
    fn extensions_are_lower_case_with_a_dot() {
        assert!(
            CODE_EXTENSIONS
                .iter()
                .all(|e| e.starts_with('.') && e.to_ascii_lowercase() == *e)
        );
    }

    #[test]
    fn json_literals_keep_other_escapes() {
        let (out, at) = in_json_string(r#""a\n“b” \u2019c\\u2019 \"""#).unwrap();
        assert_eq!(out, r#""a\n\"b\" 'c\\u2019 \"""#);
        assert_eq!(at, [4, 8, 12]);
        assert_eq!(in_json_string(r#""plain \u00e9""#), None);
    }
}
