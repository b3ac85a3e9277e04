//! How each language family writes its string literals and comments: the
//! tables the code scan (`code.rs`) and its lexer (`literals.rs`) read.
//!
//! A family is data, not code: adding a language is a row here and a line
//! in the extension table, and the one scan serves them all.

/// How one language family writes its literals and comments.
#[derive(Debug)]
pub(super) struct Syntax {
    /// Line comments.
    pub(super) comments: &'static [Comment],
    /// Literals and block comments, tried in order at each character of code
    /// (after the line comments that only count at the start of a line).
    pub(super) spans: &'static [Span],
    /// What a straight `'` outside `spans` is.
    pub(super) chars: Chars,
    /// `r"…"` and `r#"…"#`.
    pub(super) raw: Raw,
    /// `<<EOF` … `EOF`.
    pub(super) heredocs: Heredocs,
    /// `/…/` literals.
    pub(super) regex: Regex,
    /// Text between JSX tags (`<p>It’s “fun”</p>`).
    pub(super) jsx: Jsx,
}

/// A line comment's marker and where it counts.
#[derive(Debug)]
pub(super) enum Comment {
    /// Anywhere in code (`//`, `#` in Python, `--` in SQL).
    Anywhere(&'static str),
    /// At the start of a word only: shell's `#` is no comment in `$#` or `a#b`.
    WordStart(&'static str),
    /// Only as the first thing on a line (Vim's `"`).
    LineStart(&'static str),
}

/// A stretch of data from `open` to `close`: a literal or a block comment.
#[derive(Debug)]
pub(super) struct Span {
    /// What opens it.
    pub(super) open: &'static str,
    /// What closes it.
    pub(super) close: &'static str,
    /// How its body reads.
    pub(super) body: Body,
    /// Whether it runs over lines.
    pub(super) lines: Lines,
}

/// How a span's body reads its closing marker.
#[derive(Debug)]
pub(super) enum Body {
    /// A backslash escapes the next character.
    Escaped,
    /// No escapes (`'…'` in shell, `/* */`, Go's backticks).
    Plain,
    /// No escapes, and the span nests (`/* /* */ */` in Rust, `{- -}`).
    Nested,
}

/// Whether a span may run over lines: a string the language closes on its
/// line and that is not closed there was misread, and costs only that line.
#[derive(Debug)]
pub(super) enum Lines {
    /// The language closes it on its line; unclosed, it ends at the line's end.
    One,
    /// It may span lines.
    Many,
}

/// What a straight `'` is where no span opens.
#[derive(Debug)]
pub(super) enum Chars {
    /// `'` opens a string (it is among the spans), or is plain code.
    Strings,
    /// `'x'` and `'\n'` are character literals; another `'` is code (a
    /// lifetime, a prime, C++'s digit separator).
    Quoted,
    /// This character makes the next one a literal (Erlang's `$"`).
    Sigil(char),
}

/// Raw strings, whose body ends only at a closer built at their start.
#[derive(Debug)]
pub(super) enum Raw {
    /// The language has none.
    None,
    /// `r"…"`, `r#"…"#`, `br"…"`, `cr"…"`.
    Rust,
}

/// Heredocs: lines of data after the line that announced them.
#[derive(Debug)]
pub(super) enum Heredocs {
    /// The language has none (`<<` is a shift).
    None,
    /// `<<EOF`, `<<-EOF`, `<< 'EOF'`.
    Shell,
    /// `<<~EOS`, `<<-EOT`, `<<EOF` (upper case), `<<<EOT` (PHP), `<<"EOF"`.
    Tagged,
}

/// Regex literals, whose quotes (`/[“”]/g`) are data.
#[derive(Debug)]
pub(super) enum Regex {
    /// The language has none (`/` divides).
    None,
    /// A `/` where a value is expected opens a regex literal closed on its line.
    Slash,
}

/// JSX elements, whose text is prose.
#[derive(Debug)]
pub(super) enum Jsx {
    /// Not JavaScript (`<` compares).
    None,
    /// A `<Tag …>` where a value is expected starts JSX, whose text is prose.
    Elements,
}

const SLASHES: Comment = Comment::Anywhere("//");
const HASH: Comment = Comment::Anywhere("#");
const DASHES: Comment = Comment::Anywhere("--");

/// A span, for the tables below.
pub(super) const fn span(
    open: &'static str,
    close: &'static str,
    body: Body,
    lines: Lines,
) -> Span {
    Span {
        open,
        close,
        body,
        lines,
    }
}

pub(super) const BLOCK: Span = span("/*", "*/", Body::Plain, Lines::Many);
pub(super) const DOUBLE: Span = span("\"", "\"", Body::Escaped, Lines::One);
const SINGLE: Span = span("'", "'", Body::Escaped, Lines::One);
pub(super) const DOUBLE_LINES: Span = span("\"", "\"", Body::Escaped, Lines::Many);
const SINGLE_LINES: Span = span("'", "'", Body::Escaped, Lines::Many);
const TRIPLE_DOUBLE: Span = span("\"\"\"", "\"\"\"", Body::Escaped, Lines::Many);
const TRIPLE_SINGLE: Span = span("'''", "'''", Body::Escaped, Lines::Many);
const BACKTICKS: Span = span("`", "`", Body::Escaped, Lines::Many);

/// A family with these comments and spans and nothing else: the tables
/// below start from it and add what their language has.
const fn syntax(comments: &'static [Comment], spans: &'static [Span]) -> Syntax {
    Syntax {
        comments,
        spans,
        chars: Chars::Strings,
        raw: Raw::None,
        heredocs: Heredocs::None,
        regex: Regex::None,
        jsx: Jsx::None,
    }
}

/// C, C++, Objective-C.
pub(super) const C: Syntax = Syntax {
    chars: Chars::Quoted,
    ..syntax(&[SLASHES], &[BLOCK, DOUBLE])
};

/// Go: raw strings in backticks.
pub(super) const GO: Syntax = Syntax {
    chars: Chars::Quoted,
    ..syntax(
        &[SLASHES],
        &[BLOCK, DOUBLE, span("`", "`", Body::Plain, Lines::Many)],
    )
};

/// Rust: nested block comments, strings over lines, raw strings, lifetimes.
pub(super) const RUST: Syntax = Syntax {
    chars: Chars::Quoted,
    raw: Raw::Rust,
    ..syntax(
        &[SLASHES],
        &[span("/*", "*/", Body::Nested, Lines::Many), DOUBLE_LINES],
    )
};

/// Java, Kotlin, Scala, Swift, C#, Groovy, CSS, JSON, protobuf and
/// TypeScript: `//` and `/* */`, both quotes, text blocks (`"""`), backticks,
/// regex literals.
pub(super) const BRACES: Syntax = Syntax {
    regex: Regex::Slash,
    ..syntax(
        &[SLASHES],
        &[
            BLOCK,
            TRIPLE_DOUBLE,
            TRIPLE_SINGLE,
            DOUBLE,
            SINGLE,
            BACKTICKS,
        ],
    )
};

/// JavaScript and JSX/TSX: [`BRACES`] with JSX text.
pub(super) const JSX: Syntax = Syntax {
    jsx: Jsx::Elements,
    ..BRACES
};

/// Python, TOML, GraphQL, Elixir, R, CMake: `#` and triple quotes.
pub(super) const PYTHON: Syntax = syntax(&[HASH], &[TRIPLE_DOUBLE, TRIPLE_SINGLE, DOUBLE, SINGLE]);

/// Shell, Makefiles, Dockerfiles: `#` at a word's start, `'…'` without
/// escapes, strings over lines, heredocs. Backticks are commands, so code.
pub(super) const SHELL: Syntax = Syntax {
    heredocs: Heredocs::Shell,
    ..syntax(
        &[Comment::WordStart("#")],
        &[span("'", "'", Body::Plain, Lines::Many), DOUBLE_LINES],
    )
};

/// Ruby and Perl: `#` at a word's start, strings over lines, heredocs, regexes.
pub(super) const SCRIPT: Syntax = Syntax {
    heredocs: Heredocs::Tagged,
    regex: Regex::Slash,
    ..syntax(
        &[Comment::WordStart("#")],
        &[DOUBLE_LINES, SINGLE_LINES, BACKTICKS],
    )
};

/// PHP code (inside `<?php … ?>`, or a fragment without the tag).
pub(super) const PHP: Syntax = Syntax {
    heredocs: Heredocs::Tagged,
    ..syntax(
        &[SLASHES, HASH],
        &[BLOCK, DOUBLE_LINES, SINGLE_LINES, BACKTICKS],
    )
};

/// Terraform and HCL.
pub(super) const HCL: Syntax = Syntax {
    heredocs: Heredocs::Tagged,
    ..syntax(&[HASH, SLASHES], &[BLOCK, DOUBLE])
};

/// SQL: `--`, `/* */`; `'it''s'` reads as two strings, which is the same
/// for what is data.
pub(super) const SQL: Syntax = syntax(
    &[DASHES],
    &[
        BLOCK,
        span("'", "'", Body::Plain, Lines::Many),
        span("\"", "\"", Body::Plain, Lines::Many),
        span("`", "`", Body::Plain, Lines::One),
    ],
);

/// Lua: `--[[ ]]` before `--`, long strings `[[ ]]`.
pub(super) const LUA: Syntax = syntax(
    &[DASHES],
    &[
        span("--[[", "]]", Body::Plain, Lines::Many),
        span("[[", "]]", Body::Plain, Lines::Many),
        DOUBLE,
        SINGLE,
    ],
);

/// Haskell and Elm: `--`, nested `{- -}`, primes (`foldl'`).
pub(super) const HASKELL: Syntax = Syntax {
    chars: Chars::Quoted,
    ..syntax(
        &[DASHES],
        &[span("{-", "-}", Body::Nested, Lines::Many), DOUBLE],
    )
};

/// Lisps: `;`, `#| |#`, and `'` as the quote operator.
pub(super) const LISP: Syntax = syntax(
    &[Comment::Anywhere(";")],
    &[span("#|", "|#", Body::Nested, Lines::Many), DOUBLE_LINES],
);

/// Erlang: `%`, quoted atoms, `$"` as a character.
pub(super) const ERLANG: Syntax = Syntax {
    chars: Chars::Sigil('$'),
    ..syntax(&[Comment::Anywhere("%")], &[DOUBLE_LINES, SINGLE])
};

/// Vim script: a `"` that starts a line is a comment.
pub(super) const VIM: Syntax = syntax(
    &[Comment::LineStart("\"")],
    &[DOUBLE, span("'", "'", Body::Plain, Lines::One)],
);
