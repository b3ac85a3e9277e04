//! Issue 11: generated tool calls whose code fields carry unescaped double
//! quotes, the mistake models make most often when they write code or prose
//! into JSON arguments.
//!
//! A generator builds calls to `write_file`, `Write`, `str_replace_editor`,
//! `Edit` and `bash` from a hand-written pool of snippets (Python, Go,
//! JavaScript/TypeScript, HTML, SQL, shell, JSON, YAML, TOML, Rust, C,
//! English prose, and in the fresh pool also Java and Markdown). Each call is serialised field by field, so its truth is
//! known exactly: everything is correct JSON except the double quotes inside
//! the code fields, which are left unescaped, and, in some calls, newlines
//! written as raw bytes. Field order, layout (compact, spaced, pretty) and
//! newline style vary; a seeded PRNG keeps every run the same.
//!
//! Every broken call is scored in three modes: `none` (`repair`), `tool`
//! (`normalize_tool_args`) and `schema` (`normalize_tool_args_with` and the
//! tool's JSON Schema). A mode is right when the parsed result equals the
//! truth. The snippet pool is split three ways: a dev pool and a held-out
//! pool (every third snippet of the first list of each language), which the
//! engine has since been tuned against while looking at their failures, and
//! a fresh pool (the `*_FRESH` lists) written afterwards by someone who had
//! not seen how the engine decides, and that nobody has tuned against. The
//! fresh pool leans on the hard, realistic patterns: JSON and object
//! literals whose keys are tool-argument names (`"path"`, `"content"`,
//! `"command"`, ...), edit fragments cut in the middle of a block, values
//! that end with a quote or a `"key": "value",` line, format strings,
//! escaped quotes, regexes, heredocs, comments, URLs, Windows paths and
//! Unicode. The dev and held-out calls are generated exactly as before the
//! fresh pool existed (same seed, same calls); the fresh calls have a seed
//! of their own, so each split's rate stays comparable between runs.
//! Wrong answers are counted by
//! verdict: a wrong answer reported as `repaired` is the worst outcome,
//! because it looks fine to the caller.
//!
//! Valid controls (the same calls correctly escaped) must come back byte for
//! byte with verdict `Valid`.
//!
//! The table (rates per mode, split, language, position, newline style,
//! layout, tool, and per language within the fresh pool) prints with:
//!
//! ```text
//! cargo test --release --test main quoted_code -- --nocapture
//! ```
//!
//! Every failure of every mode is written to `target/quoted-code-failures.txt`
//! (under `CARGO_TARGET_DIR` when it is set). Debug and release builds score
//! the same calls, so their rates are the same.
//!
//! This file holds the generator and the scorer; the snippet lists live in
//! its children: `snippets_code` and `snippets_data` (dev and held-out
//! pools), `fresh_code` and `fresh_data` (fresh pool).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use argmend::{DoubtKind, ToolOptions, Verdict};
use serde_json::{Map, Value, json};

use crate::rng::Rng;

mod fresh_code;
mod fresh_data;
mod snippets_code;
mod snippets_data;

use fresh_code::{
    C_FRESH, GO_FRESH, JAVA_FRESH, JAVASCRIPT_FRESH, PYTHON_FRESH, RUST_FRESH, SHELL_FRESH,
};
use fresh_data::{
    HTML_FRESH, JSON_FRESH, MARKDOWN_FRESH, PROSE_FRESH, SQL_FRESH, TOML_FRESH, YAML_FRESH,
};
use snippets_code::{C, GO, JAVASCRIPT, PYTHON, RUST, SHELL};
use snippets_data::{HTML, JSON, PROSE, SQL, TOML, YAML};

/// The lowest acceptable rate of right answers of `repair`, in percent: issue
/// 11's target, held on every pool (dev, held-out and fresh).
const NONE_FLOOR_PERCENT: f64 = 90.0;
/// The lowest acceptable rate of right answers of `normalize_tool_args`, in percent.
const TOOL_FLOOR_PERCENT: f64 = 95.0;
/// The lowest acceptable rate of right answers with the tool's schema, in percent.
const SCHEMA_FLOOR_PERCENT: f64 = 99.0;

/// How many broken calls of the dev and held-out pools are scored. Debug
/// and release score the same calls: all of them take about a second in a
/// debug build.
const BROKEN_CALLS: usize = 3_000;
/// How many broken calls of the fresh pool are scored, on top of those.
const FRESH_BROKEN_CALLS: usize = 1_300;
/// How many correctly escaped calls of the dev and held-out pools must come
/// back byte for byte.
const VALID_CONTROLS: usize = 500;
/// How many correctly escaped calls of the fresh pool, on top of those.
const FRESH_VALID_CONTROLS: usize = 300;
/// The seed of the broken calls; a constant, so every run scores the same calls.
const BROKEN_SEED: u64 = 0x0011_C0DE_5EED_0001;
/// The seed of the valid controls, apart from the broken calls' so they are other calls.
const VALID_SEED: u64 = 0x0011_C0DE_5EED_0002;
/// The seed of the fresh pool's broken calls.
const FRESH_BROKEN_SEED: u64 = 0x0011_C0DE_F7E5_0001;
/// The seed of the fresh pool's valid controls.
const FRESH_VALID_SEED: u64 = 0x0011_C0DE_F7E5_0002;
/// How many failures of the dev pool and of the fresh pool in `none` mode,
/// and of the fresh pool in `schema` mode, are printed.
const PRINTED_FAILURES: usize = 15;

// ---------------------------------------------------------------------------
// The dimensions a call varies along.
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Lang {
    Python,
    Go,
    JavaScript,
    Html,
    Sql,
    Shell,
    Json,
    Yaml,
    Toml,
    Rust,
    C,
    Java,
    Prose,
    Markdown,
}

impl Lang {
    const ALL: [Lang; 14] = [
        Lang::Python,
        Lang::Go,
        Lang::JavaScript,
        Lang::Html,
        Lang::Sql,
        Lang::Shell,
        Lang::Json,
        Lang::Yaml,
        Lang::Toml,
        Lang::Rust,
        Lang::C,
        Lang::Java,
        Lang::Prose,
        Lang::Markdown,
    ];

    fn name(self) -> &'static str {
        match self {
            Lang::Python => "python",
            Lang::Go => "go",
            Lang::JavaScript => "js/ts",
            Lang::Html => "html",
            Lang::Sql => "sql",
            Lang::Shell => "shell",
            Lang::Json => "json",
            Lang::Yaml => "yaml",
            Lang::Toml => "toml",
            Lang::Rust => "rust",
            Lang::C => "c",
            Lang::Java => "java",
            Lang::Prose => "prose",
            Lang::Markdown => "markdown",
        }
    }

    /// The dev and held-out snippets (every third one is held out). Java and
    /// Markdown only have fresh snippets.
    fn snippets(self) -> &'static [&'static str] {
        match self {
            Lang::Python => PYTHON,
            Lang::Go => GO,
            Lang::JavaScript => JAVASCRIPT,
            Lang::Html => HTML,
            Lang::Sql => SQL,
            Lang::Shell => SHELL,
            Lang::Json => JSON,
            Lang::Yaml => YAML,
            Lang::Toml => TOML,
            Lang::Rust => RUST,
            Lang::C => C,
            Lang::Java | Lang::Markdown => &[],
            Lang::Prose => PROSE,
        }
    }

    /// The fresh snippets, written after the engine was tuned on the others.
    fn fresh_snippets(self) -> &'static [&'static str] {
        match self {
            Lang::Python => PYTHON_FRESH,
            Lang::Go => GO_FRESH,
            Lang::JavaScript => JAVASCRIPT_FRESH,
            Lang::Html => HTML_FRESH,
            Lang::Sql => SQL_FRESH,
            Lang::Shell => SHELL_FRESH,
            Lang::Json => JSON_FRESH,
            Lang::Yaml => YAML_FRESH,
            Lang::Toml => TOML_FRESH,
            Lang::Rust => RUST_FRESH,
            Lang::C => C_FRESH,
            Lang::Java => JAVA_FRESH,
            Lang::Prose => PROSE_FRESH,
            Lang::Markdown => MARKDOWN_FRESH,
        }
    }

    /// Whether the language is text rather than code: curly quotes are
    /// kept there, so its snippets may hold them.
    fn is_text(self) -> bool {
        matches!(self, Lang::Prose | Lang::Markdown)
    }

    /// Files a snippet of this language is written to. Prose and Markdown
    /// only go to files that are not code, where argmend rightly keeps curly
    /// quotes.
    fn paths(self) -> &'static [&'static str] {
        match self {
            Lang::Python => &[
                "app.py",
                "src/utils.py",
                "tests/test_api.py",
                "scripts/sync.py",
            ],
            Lang::Go => &["main.go", "internal/server/handler.go", "cmd/tool/main.go"],
            Lang::JavaScript => &["src/index.ts", "app.js", "src/components/Button.tsx"],
            Lang::Html => &["index.html", "templates/base.html", "public/about.html"],
            Lang::Sql => &["migrations/001_init.sql", "queries.sql", "db/schema.sql"],
            Lang::Shell => &["scripts/deploy.sh", "build.sh", "bin/setup.sh"],
            Lang::Json => &["package.json", "config/settings.json", "tsconfig.json"],
            Lang::Yaml => &[
                ".github/workflows/ci.yml",
                "docker-compose.yaml",
                "config.yaml",
            ],
            Lang::Toml => &["Cargo.toml", "pyproject.toml", "config.toml"],
            Lang::Rust => &["src/main.rs", "src/lib.rs", "src/config.rs"],
            Lang::C => &["main.c", "src/util.c", "include/util.h"],
            Lang::Java => &[
                "src/main/java/com/example/App.java",
                "src/main/java/com/example/files/FileService.java",
                "src/test/java/com/example/AppTest.java",
            ],
            Lang::Prose => &["README.md", "notes.txt", "docs/guide.md"],
            Lang::Markdown => &["README.md", "docs/setup.md", "CHANGELOG.md"],
        }
    }

    /// Comment lines an edit may add above the old code; they quote words,
    /// as real comments do. JSON has no comments.
    fn comments(self) -> &'static [&'static str] {
        match self {
            Lang::Python => &["# Handle the \"empty\" case first.", "# TODO: drop this"],
            Lang::Go | Lang::JavaScript | Lang::Rust | Lang::C | Lang::Java => &[
                "// Keep \"id\" stable: clients cache it.",
                "// See issue 42.",
            ],
            Lang::Shell => &[
                "# Quote \"$@\" so names with spaces survive.",
                "# retry once",
            ],
            Lang::Yaml | Lang::Toml => &["# \"name\" must stay unique.", "# defaults"],
            Lang::Sql => &["-- \"users\" is the canonical table.", "-- added in v2"],
            Lang::Html => &[
                "<!-- the \"Save\" label comes from i18n -->",
                "<!-- header -->",
            ],
            Lang::Prose => &["Note: see \"Usage\" below.", "Updated this week."],
            Lang::Markdown => &[
                "<!-- keep the \"Install\" heading: the docs site links to it -->",
                "<!-- toc -->",
            ],
            Lang::Json => &[],
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Tool {
    WriteFile,
    Write,
    StrReplaceEditor,
    Edit,
    Bash,
}

impl Tool {
    fn name(self) -> &'static str {
        match self {
            Tool::WriteFile => "write_file",
            Tool::Write => "Write",
            Tool::StrReplaceEditor => "str_replace_editor",
            Tool::Edit => "Edit",
            Tool::Bash => "bash",
        }
    }

    /// The tool's JSON Schema, as an OpenAI `parameters` or an Anthropic
    /// `input_schema` would give it.
    fn schema(self) -> Value {
        let string = json!({"type": "string"});
        let (properties, required) = match self {
            Tool::WriteFile => (
                json!({"path": string, "content": string}),
                json!(["path", "content"]),
            ),
            Tool::Write => (
                json!({"file_path": string, "content": string}),
                json!(["file_path", "content"]),
            ),
            Tool::StrReplaceEditor => (
                json!({"command": string, "path": string, "old_str": string, "new_str": string}),
                json!(["command", "path"]),
            ),
            Tool::Edit => (
                json!({"file_path": string, "old_string": string, "new_string": string}),
                json!(["file_path", "old_string", "new_string"]),
            ),
            Tool::Bash => (
                json!({
                    "command": string,
                    "description": string,
                    "timeout": {"type": "integer"},
                }),
                json!(["command"]),
            ),
        };
        json!({
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
        })
    }
}

/// Where the first field with an unescaped quote sits among the call's fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Position {
    First,
    Middle,
    Last,
    /// The call has no other field (`bash` with only `command`).
    Only,
}

impl Position {
    fn name(self) -> &'static str {
        match self {
            Position::First => "first",
            Position::Middle => "middle",
            Position::Last => "last",
            Position::Only => "only",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Newlines {
    /// `\n`, as JSON wants.
    Escaped,
    /// Raw newline bytes inside the strings.
    Raw,
}

impl Newlines {
    fn name(self) -> &'static str {
        match self {
            Newlines::Escaped => "escaped \\n",
            Newlines::Raw => "raw bytes",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Layout {
    /// `{"a":"b","c":1}`
    Compact,
    /// `{"a": "b", "c": 1}`
    Spaced,
    /// One member a line, indented by two spaces.
    Pretty,
}

impl Layout {
    fn name(self) -> &'static str {
        match self {
            Layout::Compact => "compact",
            Layout::Spaced => "spaced",
            Layout::Pretty => "pretty",
        }
    }

    /// The text before the first member, after a key, between members, and at the end.
    fn punctuation(self) -> (&'static str, &'static str, &'static str, &'static str) {
        match self {
            Layout::Compact => ("{", ":", ",", "}"),
            Layout::Spaced => ("{", ": ", ", ", "}"),
            Layout::Pretty => ("{\n  ", ": ", ",\n  ", "\n}"),
        }
    }
}

/// Whether a serialisation leaves the broken fields' quotes unescaped (the
/// call as the model wrote it) or escapes them all (the call as it should be).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quotes {
    AsWritten,
    AllEscaped,
}

// ---------------------------------------------------------------------------
// Snippets.
// ---------------------------------------------------------------------------

/// Which part of the snippet pool a snippet, and every call built on it, belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Split {
    /// The engine was tuned while looking at these snippets' failures.
    Dev,
    /// Every third snippet of the first lists; also looked at since.
    HeldOut,
    /// Written after the tuning, by someone who had not seen the engine.
    Fresh,
}

impl Split {
    /// The pools of the original generator, whose calls stay as they were.
    const TUNED: [Split; 2] = [Split::Dev, Split::HeldOut];

    fn name(self) -> &'static str {
        match self {
            Split::Dev => "dev",
            Split::HeldOut => "held-out",
            Split::Fresh => "fresh",
        }
    }
}

struct Snippet {
    lang: Lang,
    text: String,
    split: Split,
}

/// The snippet pool. Every third snippet of each language's first list is
/// held out; the fresh lists come after all of them, so the dev and
/// held-out snippets keep the pool indices (and so the calls) they had
/// before the fresh pool existed.
fn pool() -> &'static [Snippet] {
    static POOL: OnceLock<Vec<Snippet>> = OnceLock::new();
    POOL.get_or_init(|| {
        let mut pool = Vec::new();
        for lang in Lang::ALL {
            for (i, raw) in lang.snippets().iter().enumerate() {
                pool.push(Snippet {
                    lang,
                    text: snippet_text(lang, raw),
                    split: if i % 3 == 2 {
                        Split::HeldOut
                    } else {
                        Split::Dev
                    },
                });
            }
        }
        for lang in Lang::ALL {
            for raw in lang.fresh_snippets() {
                pool.push(Snippet {
                    lang,
                    text: snippet_text(lang, raw),
                    split: Split::Fresh,
                });
            }
        }
        pool
    })
}

/// A snippet as written in the source: one leading newline (there so that
/// multi-line snippets start on their own line) is not part of it, and Go is
/// indented with tabs, as gofmt writes it.
fn snippet_text(lang: Lang, raw: &str) -> String {
    let text = raw.strip_prefix('\n').unwrap_or(raw);
    if lang != Lang::Go {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let rest = line.trim_start_matches(' ');
        let indent = line.len() - rest.len();
        out.push_str(&"\t".repeat(indent / 4));
        out.push_str(&" ".repeat(indent % 4));
        out.push_str(rest);
    }
    out
}

/// What argmend straightens in code files: a code snippet must not hold one,
/// or the tool modes would rightly change it and the truth would be wrong.
fn is_curly(c: char) -> bool {
    matches!(
        c,
        '\u{2018}'
            | '\u{2019}'
            | '\u{2032}'
            | '\u{201C}'
            | '\u{201D}'
            | '\u{2033}'
            | '\u{AB}'
            | '\u{BB}'
    )
}

// ---------------------------------------------------------------------------
// Calls.
// ---------------------------------------------------------------------------

#[derive(Debug, Clone)]
enum FieldValue {
    Text(String),
    Int(u64),
}

#[derive(Debug, Clone)]
struct Field {
    key: &'static str,
    value: FieldValue,
    /// Whether the model left this field's double quotes unescaped.
    broken: bool,
}

impl Field {
    fn text(key: &'static str, value: impl Into<String>) -> Self {
        Field {
            key,
            value: FieldValue::Text(value.into()),
            broken: false,
        }
    }

    fn int(key: &'static str, value: u64) -> Self {
        Field {
            key,
            value: FieldValue::Int(value),
            broken: false,
        }
    }

    /// Whether the field is broken and its text has a quote to get wrong.
    fn has_unescaped_quote(&self) -> bool {
        self.broken && matches!(&self.value, FieldValue::Text(s) if s.contains('"'))
    }
}

/// The body of a string value in a call's text, between its quotes.
#[derive(Debug, Clone)]
struct Span {
    range: Range<usize>,
    broken: bool,
}

/// One generated call: the text the model wrote and what it meant.
struct Call {
    index: usize,
    tool: Tool,
    lang: Lang,
    split: Split,
    position: Position,
    newlines: Newlines,
    layout: Layout,
    fields: Vec<Field>,
    raw: String,
    spans: Vec<Span>,
    truth: Value,
}

impl Call {
    /// How many fields carry an unescaped quote (0 for the control snippets).
    fn quoted_fields(&self) -> usize {
        self.fields
            .iter()
            .filter(|f| f.has_unescaped_quote())
            .count()
    }

    fn label(&self) -> String {
        format!(
            "call {} ({}, {}, {}, position {}, newlines {}, {})",
            self.index,
            self.split.name(),
            self.lang.name(),
            self.tool.name(),
            self.position.name(),
            self.newlines.name(),
            self.layout.name(),
        )
    }
}

/// A string's body as JSON, quotes excluded. With `escape_quotes` and escaped
/// newlines it is exactly what serde_json writes (the generator test checks
/// that); otherwise it is the model's mistake: `"` left as it is, and
/// newlines as raw bytes when asked. Backslashes are always escaped, so a
/// snippet's own `\"` becomes `\\"` when broken and `\\\"` when correct.
fn encode(text: &str, escape_quotes: bool, newlines: Newlines) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for c in text.chars() {
        match c {
            '"' if escape_quotes => out.push_str("\\\""),
            '"' => out.push('"'),
            '\\' => out.push_str("\\\\"),
            '\n' if newlines == Newlines::Raw => out.push('\n'),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// The call's text, one member at a time, and where each string value's body sits.
fn serialize(
    fields: &[Field],
    layout: Layout,
    newlines: Newlines,
    quotes: Quotes,
) -> (String, Vec<Span>) {
    let (open, colon, comma, close) = layout.punctuation();
    let mut text = String::from(open);
    let mut spans = Vec::new();
    for (i, field) in fields.iter().enumerate() {
        if i > 0 {
            text.push_str(comma);
        }
        text.push('"');
        text.push_str(&encode(field.key, true, Newlines::Escaped));
        text.push('"');
        text.push_str(colon);
        match &field.value {
            FieldValue::Int(n) => {
                let _ = write!(text, "{n}");
            }
            FieldValue::Text(s) => {
                let escape_quotes = quotes == Quotes::AllEscaped || !field.broken;
                text.push('"');
                let start = text.len();
                text.push_str(&encode(s, escape_quotes, newlines));
                spans.push(Span {
                    range: start..text.len(),
                    broken: !escape_quotes,
                });
                text.push('"');
            }
        }
    }
    text.push_str(close);
    (text, spans)
}

fn truth_of(fields: &[Field]) -> Value {
    let mut map = Map::new();
    for field in fields {
        let value = match &field.value {
            FieldValue::Text(s) => Value::String(s.clone()),
            FieldValue::Int(n) => Value::from(*n),
        };
        map.insert(field.key.to_owned(), value);
    }
    Value::Object(map)
}

/// Bash descriptions; some quote a word, correctly escaped, so a call can
/// hold right and wrong quotes side by side.
const DESCRIPTIONS: [&str; 9] = [
    "Run the test suite",
    "Install dependencies",
    "Commit the fix",
    "Show the diff for \"src/lib.rs\"",
    "Build the \"release\" profile",
    "Create the config file",
    "List files in C:\\work",
    "Check that the server answers \"ok\"",
    "Lancer les tests — rapide",
];

const TIMEOUTS: [u64; 4] = [30_000, 60_000, 120_000, 600_000];

/// The snippets of each language and split, by pool index, so an edit's
/// second snippet never crosses from one split into another.
fn partners() -> &'static BTreeMap<(Lang, Split), Vec<usize>> {
    static PARTNERS: OnceLock<BTreeMap<(Lang, Split), Vec<usize>>> = OnceLock::new();
    PARTNERS.get_or_init(|| {
        let mut map: BTreeMap<(Lang, Split), Vec<usize>> = BTreeMap::new();
        for (i, snippet) in pool().iter().enumerate() {
            map.entry((snippet.lang, snippet.split))
                .or_default()
                .push(i);
        }
        map
    })
}

/// Another snippet of the same language and split.
fn partner<'a>(rng: &mut Rng, snippet: &Snippet, own: usize) -> &'a Snippet {
    let candidates = &partners()[&(snippet.lang, snippet.split)];
    let mut pick = *rng.pick(candidates);
    if pick == own && candidates.len() > 1 {
        pick = *rng.pick(candidates);
    }
    &pool()[pick]
}

/// The old and new text of an edit: a few lines of the snippet (or all of
/// it), and those lines with a comment above, another snippet after, or
/// another snippet instead.
fn edit_pair(rng: &mut Rng, snippet: &Snippet, other: &Snippet) -> (String, String) {
    let lines: Vec<&str> = snippet.text.trim_end_matches('\n').split('\n').collect();
    let mut old = snippet.text.clone();
    if lines.len() > 2 && rng.chance(60) {
        let start = rng.below(lines.len());
        let count = 1 + rng.below((lines.len() - start).min(8));
        let range = lines[start..start + count].join("\n");
        // Blank lines alone are no edit a model would send.
        if !range.trim().is_empty() {
            old = range;
        }
    }
    let other_text = other.text.trim_end_matches('\n');
    let comments = snippet.lang.comments();
    let new = match rng.below(3) {
        0 if !comments.is_empty() => format!("{}\n{old}", rng.pick(comments)),
        0 | 1 => format!("{}\n{other_text}", old.trim_end_matches('\n')),
        _ => other_text.to_owned(),
    };
    (old, new)
}

/// A `bash` command that carries the snippet: shell as it is, a commit
/// message for prose, a heredoc that writes the file for anything else.
fn bash_command(rng: &mut Rng, snippet: &Snippet) -> String {
    let text = snippet.text.trim_end_matches('\n');
    match snippet.lang {
        Lang::Shell => text.to_owned(),
        Lang::Prose if !text.contains('\n') && !text.contains('"') => {
            format!("git commit -m \"{text}\"")
        }
        Lang::Prose => {
            let add = if rng.chance(50) { "git add -A && " } else { "" };
            format!("{add}git commit -m \"$(cat <<'EOF'\n{text}\nEOF\n)\"")
        }
        lang => {
            let path = rng.pick(lang.paths());
            let delimiter = rng.pick(&["'EOF'", "\"EOF\"", "EOF"]);
            let mkdir = match path.rsplit_once('/') {
                Some((dir, _)) if rng.chance(50) => format!("mkdir -p {dir} && "),
                _ => String::new(),
            };
            format!("{mkdir}cat > {path} << {delimiter}\n{text}\nEOF")
        }
    }
}

/// Mostly a relative path; sometimes a Windows one, whose backslashes are
/// escaped correctly in every call (only code fields are broken).
fn file_path(rng: &mut Rng, lang: Lang) -> String {
    let path = *rng.pick(lang.paths());
    if rng.chance(6) {
        format!("C:\\Users\\dev\\project\\{}", path.replace('/', "\\"))
    } else {
        path.to_owned()
    }
}

/// Two fields in their usual order most of the time, else the other way round.
fn order_pair(rng: &mut Rng, mut fields: Vec<Field>) -> Vec<Field> {
    if rng.chance(30) {
        fields.reverse();
    }
    fields
}

/// Several fields in their usual order a bit more than half the time, else shuffled.
fn order_many(rng: &mut Rng, mut fields: Vec<Field>) -> Vec<Field> {
    if rng.chance(45) {
        rng.shuffle(&mut fields);
    }
    fields
}

/// Mark the code fields broken: both of an edit's code fields half the
/// time, one of them otherwise.
fn break_code_fields(rng: &mut Rng, fields: &mut [Field], code_keys: &[&str]) {
    let both = code_keys.len() < 2 || rng.chance(50);
    let only = *rng.pick(code_keys);
    for field in fields.iter_mut() {
        if code_keys.contains(&field.key) && (both || field.key == only) {
            field.broken = true;
        }
    }
}

/// One call built around `pool()[own]`.
fn build_call(rng: &mut Rng, own: usize, index: usize) -> Call {
    let snippet = &pool()[own];
    let lang = snippet.lang;
    let weights: &[(Tool, u64)] = match lang {
        Lang::Shell => &[
            (Tool::WriteFile, 15),
            (Tool::Write, 10),
            (Tool::StrReplaceEditor, 10),
            (Tool::Edit, 15),
            (Tool::Bash, 50),
        ],
        Lang::Prose => &[
            (Tool::WriteFile, 25),
            (Tool::Write, 20),
            (Tool::StrReplaceEditor, 15),
            (Tool::Edit, 20),
            (Tool::Bash, 20),
        ],
        _ => &[
            (Tool::WriteFile, 25),
            (Tool::Write, 20),
            (Tool::StrReplaceEditor, 20),
            (Tool::Edit, 25),
            (Tool::Bash, 10),
        ],
    };
    let tool = rng.weighted(weights);
    let (mut fields, code_keys): (Vec<Field>, &[&str]) = match tool {
        Tool::WriteFile => {
            let fields = vec![
                Field::text("path", file_path(rng, lang)),
                Field::text("content", snippet.text.clone()),
            ];
            (order_pair(rng, fields), &["content"])
        }
        Tool::Write => {
            let fields = vec![
                Field::text("file_path", file_path(rng, lang)),
                Field::text("content", snippet.text.clone()),
            ];
            (order_pair(rng, fields), &["content"])
        }
        Tool::StrReplaceEditor => {
            let other = partner(rng, snippet, own);
            let (old, new) = edit_pair(rng, snippet, other);
            let fields = vec![
                Field::text("command", "str_replace"),
                Field::text("path", file_path(rng, lang)),
                Field::text("old_str", old),
                Field::text("new_str", new),
            ];
            (order_many(rng, fields), &["old_str", "new_str"])
        }
        Tool::Edit => {
            let other = partner(rng, snippet, own);
            let (old, new) = edit_pair(rng, snippet, other);
            let fields = vec![
                Field::text("file_path", file_path(rng, lang)),
                Field::text("old_string", old),
                Field::text("new_string", new),
            ];
            (order_many(rng, fields), &["old_string", "new_string"])
        }
        Tool::Bash => {
            let mut fields = vec![Field::text("command", bash_command(rng, snippet))];
            if rng.chance(60) {
                fields.push(Field::text("description", *rng.pick(&DESCRIPTIONS)));
            }
            if rng.chance(30) {
                fields.push(Field::int("timeout", *rng.pick(&TIMEOUTS)));
            }
            (order_many(rng, fields), &["command"])
        }
    };
    break_code_fields(rng, &mut fields, code_keys);
    // The position is that of the first field whose quotes are actually
    // wrong; a broken field without a quote looks correct. Quote-free
    // controls take the first broken field's.
    let first_broken = fields
        .iter()
        .position(Field::has_unescaped_quote)
        .or_else(|| fields.iter().position(|f| f.broken))
        .expect("every call has a broken code field");
    let position = match (fields.len(), first_broken) {
        (1, _) => Position::Only,
        (_, 0) => Position::First,
        (n, i) if i + 1 == n => Position::Last,
        _ => Position::Middle,
    };
    let newlines = if rng.chance(25) {
        Newlines::Raw
    } else {
        Newlines::Escaped
    };
    let layout = rng.weighted(&[
        (Layout::Compact, 30),
        (Layout::Spaced, 45),
        (Layout::Pretty, 25),
    ]);
    let (raw, spans) = serialize(&fields, layout, newlines, Quotes::AsWritten);
    let truth = truth_of(&fields);
    Call {
        index,
        tool,
        lang,
        split: snippet.split,
        position,
        newlines,
        layout,
        fields,
        raw,
        spans,
        truth,
    }
}

/// The generated calls, and how many were dropped because the mistake
/// happened to spell other valid JSON (no repair can know the truth then).
struct Generated {
    calls: Vec<Call>,
    ambiguous: usize,
}

/// `count` calls on the snippets of `splits`, each snippet in turn, so every
/// snippet is used about as often; the calls are numbered from `first_index`.
fn generate(count: usize, seed: u64, splits: &[Split], first_index: usize) -> Generated {
    let owners: Vec<usize> = (0..pool().len())
        .filter(|&i| splits.contains(&pool()[i].split))
        .collect();
    let mut rng = Rng::new(seed);
    let mut calls = Vec::with_capacity(count);
    let mut ambiguous = 0;
    let mut turn = 0;
    while calls.len() < count {
        let own = owners[turn % owners.len()];
        turn += 1;
        let call = build_call(&mut rng, own, first_index + calls.len());
        let parsed = serde_json::from_str::<Value>(&call.raw);
        if parsed.is_ok_and(|value| value != call.truth) {
            ambiguous += 1;
            continue;
        }
        calls.push(call);
    }
    Generated { calls, ambiguous }
}

/// The dev and held-out calls (the same calls as before the fresh pool
/// existed), then the fresh ones, numbered on.
fn broken_calls() -> &'static Generated {
    static CALLS: OnceLock<Generated> = OnceLock::new();
    CALLS.get_or_init(|| {
        let mut tuned = generate(BROKEN_CALLS, BROKEN_SEED, &Split::TUNED, 0);
        let fresh = generate(
            FRESH_BROKEN_CALLS,
            FRESH_BROKEN_SEED,
            &[Split::Fresh],
            BROKEN_CALLS,
        );
        tuned.calls.extend(fresh.calls);
        tuned.ambiguous += fresh.ambiguous;
        tuned
    })
}

/// The generated broken calls as `(tool, raw arguments, truth, schema)`,
/// for tests that stream them through the client adapters
/// (`stream_corruptions`).
pub(crate) fn cases() -> Vec<(&'static str, String, Value, Value)> {
    (broken_calls().calls.iter())
        .map(|call| {
            (
                call.tool.name(),
                call.raw.clone(),
                call.truth.clone(),
                call.tool.schema(),
            )
        })
        .collect()
}

/// A correctly escaped call, and which serialisation wrote it.
struct Control {
    call: Call,
    text: String,
    how: &'static str,
}

/// The controls: calls of their own seed, written by serde_json (compact and
/// pretty, keys sorted) or by our serializer with every quote escaped (the
/// call's own field order and layout).
fn valid_controls() -> &'static [Control] {
    static CONTROLS: OnceLock<Vec<Control>> = OnceLock::new();
    CONTROLS.get_or_init(|| {
        let mut rng = Rng::new(VALID_SEED ^ 0xA5A5);
        let tuned = generate(VALID_CONTROLS, VALID_SEED, &Split::TUNED, 0).calls;
        let fresh = generate(
            FRESH_VALID_CONTROLS,
            FRESH_VALID_SEED,
            &[Split::Fresh],
            VALID_CONTROLS,
        )
        .calls;
        tuned
            .into_iter()
            .chain(fresh)
            .map(|call| {
                let (how, text) = match rng.below(3) {
                    0 => (
                        "serde_json::to_string",
                        serde_json::to_string(&call.truth).expect("a Value serialises"),
                    ),
                    1 => (
                        "serde_json::to_string_pretty",
                        serde_json::to_string_pretty(&call.truth).expect("a Value serialises"),
                    ),
                    _ => (
                        "field by field",
                        serialize(
                            &call.fields,
                            call.layout,
                            Newlines::Escaped,
                            Quotes::AllEscaped,
                        )
                        .0,
                    ),
                };
                Control { call, text, how }
            })
            .collect()
    })
}

/// The broken call mended the right way: every quote inside a broken value
/// escaped, every raw newline inside a string escaped, nothing else touched.
fn mend_the_right_way(call: &Call) -> String {
    let mut out = String::with_capacity(call.raw.len() + 64);
    let mut last = 0;
    for span in &call.spans {
        out.push_str(&call.raw[last..span.range.start]);
        let mut chars = call.raw[span.range.clone()].chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => {
                    out.push('\\');
                    out.push(chars.next().expect("an escape inside a body is complete"));
                }
                '"' => {
                    assert!(
                        span.broken,
                        "{}: a raw quote in a correct field",
                        call.label()
                    );
                    out.push_str("\\\"");
                }
                '\n' => out.push_str("\\n"),
                c => out.push(c),
            }
        }
        last = span.range.end;
    }
    out.push_str(&call.raw[last..]);
    out
}

/// How many quotes in a string body are not escaped: a backslash escapes
/// the next character, so the quote of `\"` is escaped and that of `\\"` is raw.
fn raw_quotes(body: &str) -> usize {
    let mut count = 0;
    let mut bytes = body.bytes();
    while let Some(b) = bytes.next() {
        match b {
            b'\\' => {
                bytes.next();
            }
            b'"' => count += 1,
            _ => {}
        }
    }
    count
}

// ---------------------------------------------------------------------------
// Scoring.
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    None,
    Tool,
    Schema,
}

impl Mode {
    const ALL: [Mode; 3] = [Mode::None, Mode::Tool, Mode::Schema];

    fn name(self) -> &'static str {
        match self {
            Mode::None => "none",
            Mode::Tool => "tool",
            Mode::Schema => "schema",
        }
    }
}

/// What one mode made of one call.
struct Answer {
    right: bool,
    verdict: Verdict,
    text: String,
    /// The kinds of the doubts the answer carries.
    doubts: Vec<DoubtKind>,
}

fn answer(call: &Call, mode: Mode) -> Answer {
    let kinds = |doubts: &[argmend::Doubt]| doubts.iter().map(|d| d.kind).collect::<Vec<_>>();
    let (value, verdict, text, doubts) = match mode {
        Mode::None => {
            let outcome = argmend::repair(call.raw.as_bytes());
            (
                outcome.to_value(),
                outcome.verdict(),
                outcome.text().to_owned(),
                kinds(outcome.doubts()),
            )
        }
        Mode::Tool => {
            let normalized = argmend::normalize_tool_args(call.tool.name(), &call.raw);
            let doubts = kinds(normalized.doubts());
            (
                normalized.to_value(),
                normalized.verdict(),
                normalized.into_text(),
                doubts,
            )
        }
        Mode::Schema => {
            let options = ToolOptions::default().schema(call.tool.schema());
            let normalized =
                argmend::normalize_tool_args_with(call.tool.name(), &call.raw, &options);
            let doubts = kinds(normalized.doubts());
            (
                normalized.to_value(),
                normalized.verdict(),
                normalized.into_text(),
                doubts,
            )
        }
    };
    Answer {
        right: value.as_ref() == Some(&call.truth),
        verdict,
        text,
        doubts,
    }
}

/// Per mode: how the doubts fall on right and wrong answers (issue 42: a
/// doubt on a right answer costs the caller a retry, one missing on a wrong
/// answer lets a guess through).
#[derive(Debug, Clone, Copy, Default)]
struct DoubtTally {
    right: usize,
    right_with_doubt: usize,
    right_with_quote_as_text: usize,
    wrong: usize,
    wrong_with_doubt: usize,
}

impl DoubtTally {
    fn add(&mut self, answer: &Answer) {
        if answer.right {
            self.right += 1;
            self.right_with_doubt += usize::from(!answer.doubts.is_empty());
            self.right_with_quote_as_text +=
                usize::from(answer.doubts.contains(&DoubtKind::QuoteAsText));
        } else {
            self.wrong += 1;
            self.wrong_with_doubt += usize::from(!answer.doubts.is_empty());
        }
    }

    fn share(part: usize, whole: usize) -> f64 {
        if whole == 0 {
            return 0.0;
        }
        100.0 * part as f64 / whole as f64
    }

    fn right_doubt_percent(&self) -> f64 {
        Self::share(self.right_with_doubt, self.right)
    }
}

/// Calls and right answers per mode.
#[derive(Debug, Clone, Copy, Default)]
struct Tally {
    calls: usize,
    right: [usize; 3],
}

impl Tally {
    fn percent(&self, mode: usize) -> f64 {
        if self.calls == 0 {
            return 100.0;
        }
        100.0 * self.right[mode] as f64 / self.calls as f64
    }
}

/// Wrong answers per verdict, per mode and split.
#[derive(Debug, Clone, Copy, Default)]
struct Wrong {
    repaired: usize,
    completed: usize,
    valid: usize,
    not_json: usize,
    /// A verdict added after this file was written (`Verdict` is non-exhaustive).
    other: usize,
}

impl Wrong {
    fn count(&mut self, verdict: Verdict) {
        match verdict {
            Verdict::Repaired => self.repaired += 1,
            Verdict::Completed => self.completed += 1,
            Verdict::Valid => self.valid += 1,
            Verdict::NotJson => self.not_json += 1,
            _ => self.other += 1,
        }
    }
}

/// The rows of the table: a group name and a value, sorted by the order of
/// the dimension's enum, and their tallies.
type Rows = BTreeMap<(usize, usize, &'static str), Tally>;

fn row_keys(call: &Call) -> Vec<(usize, usize, &'static str)> {
    let mut keys = vec![
        (0, 0, "all"),
        (1, call.split as usize, call.split.name()),
        (2, call.lang as usize, call.lang.name()),
        (3, call.position as usize, call.position.name()),
        (4, call.newlines as usize, call.newlines.name()),
        (5, call.layout as usize, call.layout.name()),
        (6, call.tool as usize, call.tool.name()),
        (
            7,
            call.quoted_fields(),
            ["0 (control)", "1", "2"][call.quoted_fields().min(2)],
        ),
    ];
    if call.split == Split::Fresh {
        keys.push((8, call.lang as usize, call.lang.name()));
    }
    keys
}

const GROUPS: [&str; 9] = [
    "",
    "split",
    "language",
    "position",
    "newlines",
    "layout",
    "tool",
    "quoted fields",
    "fresh pool, by language",
];

fn failures_path() -> PathBuf {
    target_dir().join("quoted-code-failures.txt")
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"))
}

/// Every broken call as JSON Lines (`raw`, `truth`, `pool`, `tool`, `lang`),
/// so the peers can be scored on the same calls
/// (`benches/peers/harness/quoted_code.py`).
fn write_calls(calls: &[Call]) {
    let mut out = String::new();
    for call in calls {
        let line = json!({
            "raw": call.raw,
            "truth": call.truth,
            "pool": call.split.name(),
            "tool": call.tool.name(),
            "lang": call.lang.name(),
        });
        out.push_str(&line.to_string());
        out.push('\n');
    }
    let path = target_dir().join("quoted-code-calls.jsonl");
    if let Err(error) = fs::write(&path, out) {
        println!("could not write {}: {error}", path.display());
    }
}

fn expected_text(call: &Call) -> String {
    serde_json::to_string(&call.truth).expect("a Value serialises")
}

fn failure_block(call: &Call, mode: Mode, answer: &Answer) -> String {
    format!(
        "=== {} · mode {} · verdict {}\n--- raw\n{}\n--- expected\n{}\n--- actual\n{}\n\n",
        call.label(),
        mode.name(),
        answer.verdict.name(),
        call.raw,
        expected_text(call),
        answer.text,
    )
}

// ---------------------------------------------------------------------------
// Tests.
// ---------------------------------------------------------------------------

/// A name and a test of a snippet's text.
type Feature = (&'static str, fn(&str) -> bool);

/// The sequences that make a string's end hard to find (a quote before a
/// comma, colon or closer), escapes, and the edges; each must be in several
/// snippets of the tuned pools and of the fresh pool.
const FEATURES: [Feature; 11] = [
    ("\", \"", |s| s.contains("\", \"")),
    ("\":", |s| s.contains("\":")),
    ("\"}", |s| s.contains("\"}")),
    ("\"]", |s| s.contains("\"]")),
    ("\"\"", |s| s.contains("\"\"")),
    ("\\\"", |s| s.contains("\\\"")),
    ("\\", |s| s.contains('\\')),
    ("non-ASCII", |s| !s.is_ascii()),
    ("starts with \"", |s| s.starts_with('"')),
    ("ends with \"", |s| s.ends_with('"')),
    ("12 lines or more", |s| s.lines().count() >= 12),
];

/// The hard patterns the fresh pool was written to hold, each in several
/// of its snippets.
const FRESH_FEATURES: [Feature; 14] = [
    ("a tool-argument name as a quoted key", |s| {
        ["path", "content", "command", "file_path", "description"]
            .iter()
            .any(|key| s.contains(&format!("\"{key}\":")) || s.contains(&format!("\"{key}\",")))
    }),
    ("\"path\" or \"file_path\" as a key", |s| {
        s.contains("\"path\":") || s.contains("\"file_path\"")
    }),
    ("\"content\" as a key", |s| s.contains("\"content\"")),
    ("\"command\" as a key", |s| s.contains("\"command\"")),
    ("\"description\" as a key", |s| {
        s.contains("\"description\"")
    }),
    ("unbalanced brackets", |s| {
        let opened = s.matches(['{', '[', '(']).count();
        let closed = s.matches(['}', ']', ')']).count();
        opened != closed
    }),
    ("last line is \"key\": \"value\",", |s| {
        let last = s.trim_end().lines().last().unwrap_or("").trim();
        last.starts_with('"') && last.ends_with("\",")
    }),
    ("a format directive", |s| {
        ["%s", "%d", "%q", "%r", "{}", "%-"]
            .iter()
            .any(|f| s.contains(f))
    }),
    ("a URL", |s| s.contains("://")),
    ("a Windows path", |s| s.contains(":\\")),
    ("#", |s| s.contains('#')),
    ("//", |s| s.contains("//")),
    ("a quote inside single quotes", |s| {
        s.contains("'\"") || s.contains("\"'")
    }),
    ("a heredoc", |s| s.contains("<<")),
];

/// The trimmed lines of a snippet long enough to say that two snippets share code.
fn telling_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines().map(str::trim).filter(|line| line.len() >= 24)
}

#[test]
fn snippet_pool_is_as_described() {
    let pool = pool();
    for lang in Lang::ALL {
        for (split, min) in [(None, 15), (Some(Split::Fresh), 12)] {
            let snippets: Vec<&Snippet> = pool
                .iter()
                .filter(|s| s.lang == lang)
                .filter(|s| match split {
                    None => s.split != Split::Fresh,
                    Some(split) => s.split == split,
                })
                .collect();
            let what = format!(
                "{} ({})",
                lang.name(),
                split.map_or("dev and held-out", Split::name)
            );
            if split.is_none() && lang.snippets().is_empty() {
                // Java and Markdown came with the fresh pool.
                assert!(snippets.is_empty(), "{what}");
                continue;
            }
            assert!(snippets.len() >= min, "{what}: {} snippets", snippets.len());
            // About one in ten is a control without any quote.
            let quote_free = snippets.iter().filter(|s| !s.text.contains('"')).count();
            assert!(
                (1..=snippets.len() / 5).contains(&quote_free),
                "{what}: {quote_free} of {} snippets have no quote",
                snippets.len()
            );
            if split.is_none() {
                let held_out = snippets
                    .iter()
                    .filter(|s| s.split == Split::HeldOut)
                    .count();
                // Indices 2, 5, 8, … below the count: every third snippet.
                assert_eq!(held_out, snippets.len() / 3, "{what}");
            }
            for snippet in &snippets {
                assert!(!snippet.text.is_empty(), "{what}: an empty snippet");
                assert!(
                    snippet.text.lines().count() <= 30,
                    "{what}: over 30 lines: {:?}",
                    snippet.text
                );
                if !lang.is_text() {
                    assert!(
                        !snippet.text.chars().any(is_curly),
                        "{what}: a curly quote in code would be straightened: {:?}",
                        snippet.text
                    );
                }
            }
        }
    }
    let tuned: Vec<&Snippet> = pool.iter().filter(|s| s.split != Split::Fresh).collect();
    let fresh: Vec<&Snippet> = pool.iter().filter(|s| s.split == Split::Fresh).collect();
    for (name, has) in FEATURES {
        let n = tuned.iter().filter(|s| has(&s.text)).count();
        assert!(n >= 5, "only {n} dev and held-out snippets with {name}");
        let n = fresh.iter().filter(|s| has(&s.text)).count();
        assert!(n >= 5, "only {n} fresh snippets with {name}");
    }
    for (name, has) in FRESH_FEATURES {
        let n = fresh.iter().filter(|s| has(&s.text)).count();
        assert!(n >= 5, "only {n} fresh snippets with {name}");
    }
    // The fresh snippets are new: none repeats a snippet, or a telling line
    // of one, of the tuned pools, and none repeats another fresh one.
    let tuned_lines: std::collections::BTreeSet<&str> =
        tuned.iter().flat_map(|s| telling_lines(&s.text)).collect();
    let mut seen = std::collections::BTreeSet::new();
    for snippet in &fresh {
        assert!(
            tuned.iter().all(|t| t.text != snippet.text),
            "{}: a fresh snippet copies a tuned one: {:?}",
            snippet.lang.name(),
            snippet.text
        );
        for line in telling_lines(&snippet.text) {
            assert!(
                !tuned_lines.contains(line),
                "{}: a fresh snippet shares the line {line:?} with a tuned one",
                snippet.lang.name()
            );
        }
        assert!(
            seen.insert(snippet.text.as_str()),
            "a fresh snippet twice: {:?}",
            snippet.text
        );
    }
}

#[test]
fn generator_is_self_consistent() {
    let generated = broken_calls();
    assert_eq!(generated.calls.len(), BROKEN_CALLS + FRESH_BROKEN_CALLS);
    for snippet in pool() {
        assert_eq!(
            format!("\"{}\"", encode(&snippet.text, true, Newlines::Escaped)),
            serde_json::to_string(&snippet.text).expect("a string serialises"),
            "the encoder differs from serde_json on {:?}",
            snippet.text
        );
    }
    for (i, call) in generated.calls.iter().enumerate() {
        let label = call.label();
        assert_eq!(call.index, i, "{label}: numbered out of turn");
        // The tuned pools' calls come first, then the fresh pool's.
        assert_eq!(
            call.split == Split::Fresh,
            i >= BROKEN_CALLS,
            "{label}: in the wrong part of the run"
        );
        // Every broken call carries its mistake only inside the broken fields.
        assert!(
            call.fields.iter().any(|f| f.broken),
            "{label}: nothing broken"
        );
        // Each string value's body holds as many raw quotes as its text has
        // quotes when the field is broken, and none otherwise.
        let texts = call.fields.iter().filter_map(|f| match &f.value {
            FieldValue::Text(s) => Some(s),
            FieldValue::Int(_) => None,
        });
        assert_eq!(texts.clone().count(), call.spans.len(), "{label}: spans");
        for (span, text) in call.spans.iter().zip(texts) {
            let body = &call.raw[span.range.clone()];
            let expected = if span.broken {
                text.matches('"').count()
            } else {
                0
            };
            assert_eq!(
                raw_quotes(body),
                expected,
                "{label}: raw quotes in {body:?}"
            );
        }
        // Mending it the right way gives the correct text, byte for byte, and the truth.
        let mended = mend_the_right_way(call);
        let (correct, _) = serialize(
            &call.fields,
            call.layout,
            Newlines::Escaped,
            Quotes::AllEscaped,
        );
        assert_eq!(mended, correct, "{label}: mended text");
        let value: Value = serde_json::from_str(&mended)
            .unwrap_or_else(|e| panic!("{label}: mended text does not parse: {e}\n{mended}"));
        assert_eq!(value, call.truth, "{label}: mended value");
        // A call that parses is a control (no quote to get wrong, no raw
        // newline) and is then the correct text; the generator drops the
        // calls whose mistake spells other valid JSON.
        match serde_json::from_str::<Value>(&call.raw) {
            Ok(value) => {
                assert_eq!(value, call.truth, "{label}: parses to something else");
                assert_eq!(
                    call.raw, correct,
                    "{label}: parses but is not the correct text"
                );
                assert_eq!(call.quoted_fields(), 0, "{label}: parses with a raw quote");
            }
            Err(_) => assert_ne!(call.raw, correct, "{label}: correct, yet it does not parse"),
        }
    }
    // Dev and held-out are both well represented among the tuned calls.
    let held_out = generated
        .calls
        .iter()
        .filter(|c| c.split == Split::HeldOut)
        .count();
    assert!(
        (BROKEN_CALLS / 4..BROKEN_CALLS / 2).contains(&held_out),
        "{held_out} held-out calls"
    );
    // The fresh pool has about a thousand calls with a quote to get wrong,
    // and every fresh language has its share.
    let fresh: Vec<&Call> = generated
        .calls
        .iter()
        .filter(|c| c.split == Split::Fresh)
        .collect();
    let quoted = fresh.iter().filter(|c| c.quoted_fields() > 0).count();
    assert!(quoted >= 1_000, "{quoted} fresh calls with a raw quote");
    for lang in Lang::ALL {
        let n = fresh.iter().filter(|c| c.lang == lang).count();
        assert!(
            n >= FRESH_BROKEN_CALLS / Lang::ALL.len() / 2,
            "{}: {n} fresh calls",
            lang.name()
        );
    }
}

#[test]
fn valid_controls_come_back_byte_for_byte() {
    let controls = valid_controls();
    assert_eq!(controls.len(), VALID_CONTROLS + FRESH_VALID_CONTROLS);
    let fresh = controls
        .iter()
        .filter(|c| c.call.split == Split::Fresh)
        .count();
    assert_eq!(fresh, FRESH_VALID_CONTROLS);
    for control in controls {
        let outcome = argmend::repair(control.text.as_bytes());
        let label = format!(
            "valid control of {} written by {}",
            control.call.label(),
            control.how
        );
        assert_eq!(
            outcome.verdict(),
            Verdict::Valid,
            "{label}: {}",
            control.text
        );
        assert_eq!(outcome.text(), control.text, "{label}: not byte for byte");
        assert_eq!(
            outcome.to_value().as_ref(),
            Some(&control.call.truth),
            "{label}: another value"
        );
    }
}

#[test]
fn scores_against_the_floors() {
    let generated = broken_calls();
    let calls = &generated.calls;
    let mut rows = Rows::new();
    // Wrong answers per mode and split (dev, held-out, fresh).
    let mut wrong = [[Wrong::default(); 3]; 3];
    let mut failures = String::new();
    let mut printed_dev = Vec::new();
    let mut printed_fresh = Vec::new();
    let mut printed_fresh_schema = Vec::new();
    let mut fresh_schema_failures = 0;
    let mut doubt_tallies = [DoubtTally::default(); 3];
    for call in calls {
        let answers: Vec<Answer> = Mode::ALL.iter().map(|&mode| answer(call, mode)).collect();
        for (tally, answer) in doubt_tallies.iter_mut().zip(&answers) {
            tally.add(answer);
        }
        for key in row_keys(call) {
            let tally = rows.entry(key).or_default();
            tally.calls += 1;
            for (m, answer) in answers.iter().enumerate() {
                tally.right[m] += answer.right as usize;
            }
        }
        for (m, (mode, answer)) in Mode::ALL.iter().zip(&answers).enumerate() {
            if answer.right {
                continue;
            }
            wrong[m][call.split as usize].count(answer.verdict);
            let block = failure_block(call, *mode, answer);
            failures.push_str(&block);
            let printed = match (*mode, call.split) {
                (Mode::None, Split::Dev) => &mut printed_dev,
                (Mode::None, Split::Fresh) => &mut printed_fresh,
                (Mode::Schema, Split::Fresh) => {
                    fresh_schema_failures += 1;
                    &mut printed_fresh_schema
                }
                _ => continue,
            };
            if printed.len() < PRINTED_FAILURES {
                printed.push(block);
            }
        }
    }

    let count = |split: Split| calls.iter().filter(|c| c.split == split).count();
    let fresh_snippets = pool().iter().filter(|s| s.split == Split::Fresh).count();
    println!(
        "quoted code (issue 11): {} broken calls ({} dev, {} held-out, {} fresh; {} ambiguous ones dropped), {} snippets ({} of them fresh)",
        calls.len(),
        count(Split::Dev),
        count(Split::HeldOut),
        count(Split::Fresh),
        generated.ambiguous,
        pool().len(),
        fresh_snippets,
    );
    println!(
        "{:<28} {:>6} {:>8} {:>8} {:>8}",
        "", "calls", "none", "tool", "schema"
    );
    let mut group = usize::MAX;
    for (&(g, _, value), tally) in &rows {
        if g != group && g > 0 {
            println!("{}", GROUPS[g]);
        }
        group = g;
        let name = if g == 0 {
            value.to_owned()
        } else {
            format!("  {value}")
        };
        println!(
            "{name:<28} {:>6} {:>7.1}% {:>7.1}% {:>7.1}%",
            tally.calls,
            tally.percent(0),
            tally.percent(1),
            tally.percent(2),
        );
    }
    println!("wrong answers by verdict (dev / held-out / fresh):");
    for (m, mode) in Mode::ALL.iter().enumerate() {
        let [dev, held, fresh] = wrong[m];
        println!(
            "  {:<7} repaired {} / {} / {} (the worst: wrong but looks fine)  not_json {} / {} / {}  valid {} / {} / {}  completed {} / {} / {}  other {} / {} / {}",
            mode.name(),
            dev.repaired,
            held.repaired,
            fresh.repaired,
            dev.not_json,
            held.not_json,
            fresh.not_json,
            dev.valid,
            held.valid,
            fresh.valid,
            dev.completed,
            held.completed,
            fresh.completed,
            dev.other,
            held.other,
            fresh.other,
        );
    }
    println!("doubts (right answers with one cost a retry; wrong ones without one pass as right):");
    for (mode, d) in Mode::ALL.iter().zip(&doubt_tallies) {
        println!(
            "  {:<7} right with a doubt {:.1}% ({} of {}; quote_as_text {:.1}%, {}), wrong with a doubt {:.1}% ({} of {})",
            mode.name(),
            d.right_doubt_percent(),
            d.right_with_doubt,
            d.right,
            DoubtTally::share(d.right_with_quote_as_text, d.right),
            d.right_with_quote_as_text,
            DoubtTally::share(d.wrong_with_doubt, d.wrong),
            d.wrong_with_doubt,
            d.wrong,
        );
    }
    for (what, printed) in [
        ("the dev pool in mode none", &printed_dev),
        ("the fresh pool in mode none", &printed_fresh),
    ] {
        println!("first {} failures of {what}:", printed.len());
        for block in printed {
            print!("{block}");
        }
    }
    println!(
        "first {} of the {fresh_schema_failures} failures of the fresh pool in mode schema:",
        printed_fresh_schema.len()
    );
    for block in &printed_fresh_schema {
        print!("{block}");
    }
    write_calls(calls);
    let path = failures_path();
    match fs::write(&path, &failures) {
        Ok(()) => println!("all failures of all modes written to {}", path.display()),
        Err(error) => println!("could not write {}: {error}", path.display()),
    }

    let pools = [Split::Dev, Split::HeldOut, Split::Fresh]
        .map(|split| (split.name(), rows[&(1, split as usize, split.name())]));
    for (name, pool) in [("all", rows[&(0, 0, "all")])].into_iter().chain(pools) {
        for (m, floor) in [NONE_FLOOR_PERCENT, TOOL_FLOOR_PERCENT, SCHEMA_FLOOR_PERCENT]
            .into_iter()
            .enumerate()
        {
            assert!(
                pool.percent(m) >= floor,
                "{name}, mode {}: {:.1}% right, below the floor of {floor}%",
                Mode::ALL[m].name(),
                pool.percent(m)
            );
        }
    }
}
