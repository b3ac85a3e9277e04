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

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use argmend::{ToolOptions, Verdict};
use serde_json::{Map, Value, json};

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
// A deterministic PRNG.
// ---------------------------------------------------------------------------

/// splitmix64: tiny, fast, good enough to vary the calls, and the same on
/// every platform, so the generated calls never change between runs.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed)
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n`; `n` is never zero here.
    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True `percent` times in a hundred.
    fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// One of `items`, each as likely as its weight.
    fn weighted<T: Copy>(&mut self, items: &[(T, u64)]) -> T {
        let total: u64 = items.iter().map(|(_, w)| w).sum();
        let mut roll = self.next_u64() % total;
        for &(item, weight) in items {
            if roll < weight {
                return item;
            }
            roll -= weight;
        }
        unreachable!("the roll is below the total weight")
    }

    /// Fisher–Yates.
    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

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
}

fn answer(call: &Call, mode: Mode) -> Answer {
    let (value, verdict, text) = match mode {
        Mode::None => {
            let outcome = argmend::repair(call.raw.as_bytes());
            (
                outcome.to_value(),
                outcome.verdict(),
                outcome.text().to_owned(),
            )
        }
        Mode::Tool => {
            let normalized = argmend::normalize_tool_args(call.tool.name(), &call.raw);
            (
                normalized.to_value(),
                normalized.verdict(),
                normalized.into_text(),
            )
        }
        Mode::Schema => {
            let options = ToolOptions::default().schema(call.tool.schema());
            let normalized =
                argmend::normalize_tool_args_with(call.tool.name(), &call.raw, &options);
            (
                normalized.to_value(),
                normalized.verdict(),
                normalized.into_text(),
            )
        }
    };
    Answer {
        right: value.as_ref() == Some(&call.truth),
        verdict,
        text,
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
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    target.join("quoted-code-failures.txt")
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
    for call in calls {
        let answers: Vec<Answer> = Mode::ALL.iter().map(|&mode| answer(call, mode)).collect();
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

// ---------------------------------------------------------------------------
// The snippet pool. A leading newline is not part of a snippet (see
// `snippet_text`); Go is written with spaces here and indented with tabs.
// ---------------------------------------------------------------------------

const PYTHON: &[&str] = &[
    r##"print("hello, world")"##,
    r##"
user = {"name": "Ada", "age": 36, "tags": ["admin", "dev"]}
print(user["name"])
"##,
    r##"
def greet(name: str) -> str:
    return f"Hello, {name}! You have {len(name)} letters."
"##,
    r##"
msg = "say \"hi\" to the \"team\""
print(msg)
"##,
    r##"
import re

EMAIL = re.compile(r"^[\w.+-]+@[\w-]+\.[\w.]+$")
DATE = re.compile("\\d{4}-\\d{2}-\\d{2}")
"##,
    r##"
path = "C:\\Users\\dev\\data.csv"
raw = r"C:\temp\new"
"##,
    r##"
class Config:
    """Settings read from "config.toml"."""

    def __init__(self, path: str = "config.toml") -> None:
        self.path = path
        self.values: dict[str, str] = {}

    def get(self, key: str, default: str = "") -> str:
        return self.values.get(key, default)
"##,
    r##"
import argparse

parser = argparse.ArgumentParser(description="Sync files")
parser.add_argument("--src", "-s", required=True, help="source directory")
parser.add_argument("--dry-run", action="store_true", help="print, don't copy")
args = parser.parse_args()
"##,
    r##"
import json


def handler(event, context):
    body = json.loads(event.get("body") or "{}")
    return {"statusCode": 200, "body": json.dumps({"ok": True, "echo": body})}
"##,
    r##"GREETINGS = {"fr": "Bonjour, ça va ?", "ja": "こんにちは", "de": "Grüß Gott"}
"##,
    r##"
def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a
"##,
    r##"total = sum(x * x for x in range(10))"##,
    r##"name = "world""##,
    r##"
"""Utilities for the command line."""

import sys
"##,
    r##"
if value == "" or value is None:
    value = ""
parts = ",".join(["", "a", ""])
"##,
    r##"
import pytest


@pytest.mark.parametrize("raw, expected", [
    ("1,2", [1, 2]),
    ("", []),
    (" 3 ", [3]),
])
def test_parse(raw, expected):
    assert parse(raw) == expected
"##,
    r##"logger.info("user %s logged in from \"%s\"", user.id, ip)"##,
    r##"
from flask import Flask, jsonify, request

app = Flask(__name__)


@app.route("/api/items/<int:item_id>", methods=["GET", "DELETE"])
def item(item_id):
    if request.method == "DELETE":
        return "", 204
    return jsonify({"id": item_id, "name": f"item-{item_id}"})
"##,
    r##"subprocess.run(["git", "commit", "-m", "fix: handle \"null\""], check=True)"##,
    r##"
def render(rows):
    lines = []
    for row in rows:
        lines.append(f'{row["name"]:<20} {row["score"]:>5}')
    return "\n".join(lines) + "\n"
"##,
    r##"
import csv
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: csv2md FILE.csv", file=sys.stderr)
        return 2
    path = Path(argv[1])
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f, delimiter=";")
        rows = list(reader)
    if not rows:
        print(f"{path}: no rows")
        return 1
    headers = list(rows[0].keys())
    print("| " + " | ".join(headers) + " |")
    print("|" + "---|" * len(headers))
    for row in rows:
        cells = [row[h].replace("|", "\\|") for h in headers]
        print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
"##,
];

const GO: &[&str] = &[
    r##"fmt.Println("hello, world")"##,
    r##"
package main

import (
    "fmt"
    "os"
)

func main() {
    if len(os.Args) < 2 {
        fmt.Fprintln(os.Stderr, "usage: greet NAME")
        os.Exit(1)
    }
    fmt.Printf("Hello, %s!\n", os.Args[1])
}
"##,
    r##"
type User struct {
    ID    int    `json:"id"`
    Name  string `json:"name"`
    Email string `json:"email,omitempty"`
}
"##,
    r##"headers := map[string]string{"Content-Type": "application/json", "Accept": "*/*"}"##,
    r##"
if err != nil {
    return fmt.Errorf("open %q: %w", path, err)
}
return errors.New("unexpected \"EOF\" in header")
"##,
    r##"
func handleHealth(w http.ResponseWriter, r *http.Request) {
    w.Header().Set("Content-Type", "application/json")
    w.WriteHeader(http.StatusOK)
    _, _ = w.Write([]byte(`{"status": "ok"}`))
}
"##,
    r##"
func TestParse(t *testing.T) {
    tests := []struct {
        name string
        in   string
        want int
    }{
        {"empty", "", 0},
        {"one", "1", 1},
        {"spaces", " 42 ", 42},
    }
    for _, tt := range tests {
        t.Run(tt.name, func(t *testing.T) {
            if got := Parse(tt.in); got != tt.want {
                t.Errorf("Parse(%q) = %d, want %d", tt.in, got, tt.want)
            }
        })
    }
}
"##,
    r##"var semver = regexp.MustCompile("^v(\\d+)\\.(\\d+)\\.(\\d+)$")"##,
    r##"
func Max(a, b int) int {
    if a > b {
        return a
    }
    return b
}
"##,
    r##"
for i := 0; i < n; i++ {
    sum += i
}
"##,
    r##"const defaultDir = "C:\\ProgramData\\myapp""##,
    r##"
greeting := "Grüße, 世界"
fmt.Println(strings.ToUpper(greeting))
"##,
    r##"
payload, err := json.Marshal(map[string]any{
    "name":  "widget",
    "price": 9.99,
    "tags":  []string{"new", "sale"},
})
if err != nil {
    log.Fatalf("marshal: %v", err)
}
"##,
    r##"row := db.QueryRowContext(ctx, "SELECT \"name\" FROM users WHERE id = $1", id)"##,
    r##"
var (
    addr    = flag.String("addr", ":8080", "listen address")
    verbose = flag.Bool("v", false, "verbose logging")
)
"##,
    r##"names := []string{"alice", "bob", "carol"}"##,
    r##"import "github.com/stretchr/testify/require""##,
    r##"
"fmt"
    "os""##,
    r##"
switch strings.ToLower(mode) {
case "json", "ndjson":
    return formatJSON
case "":
    return formatText
default:
    return nil
}
"##,
];

const JAVASCRIPT: &[&str] = &[
    r##"console.log("hello, world");"##,
    r##"const user = { "name": "Ada", "roles": ["admin", "dev"], active: true };"##,
    r##"
const res = await fetch("/api/items", {
  method: "POST",
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify({ name: "widget", qty: 2 }),
});
if (!res.ok) throw new Error(`HTTP ${res.status}`);
"##,
    r##"
import React, { useState } from "react";
import "./App.css";
"##,
    r##"
export function Button({ label, onClick }: Props) {
  return (
    <button className="btn btn-primary" type="button" onClick={onClick}>
      {label}
    </button>
  );
}
"##,
    r##"
const msg = "He said \"no\"";
const quoted = /"([^"\\]|\\.)*"/g;
"##,
    r##"
module.exports = {
  env: { node: true, es2022: true },
  extends: ["eslint:recommended", "prettier"],
  rules: { "no-unused-vars": "warn", quotes: ["error", "double"] },
};
"##,
    r##"
type Status = "idle" | "loading" | "done";

interface Task {
  id: string;
  status: "todo" | "doing" | "done";
}
"##,
    r##"
app.get("/health", (req, res) => {
  res.set("Cache-Control", "no-store");
  res.json({ status: "ok", uptime: process.uptime() });
});
"##,
    r##"const sum = (xs) => xs.reduce((a, b) => a + b, 0);"##,
    r##"
function debounce(fn, ms) {
  let t;
  return (...args) => {
    clearTimeout(t);
    t = setTimeout(() => fn(...args), ms);
  };
}
"##,
    r##"
describe("slugify", () => {
  it("lowercases and joins words", () => {
    expect(slugify("Hello World")).toBe("hello-world");
  });
  it("handles empty input", () => {
    expect(slugify("")).toBe("");
  });
});
"##,
    r##"const labels = { en: "Save", fr: "Enregistrer", ja: "保存", emoji: "💾" };"##,
    r##"const dir = "C:\\Users\\dev\\AppData";"##,
    r##"const cfg = JSON.parse('{"port": 8080, "host": "localhost"}');"##,
    r##"import { z } from "zod""##,
    r##"document.querySelector("#app").innerHTML = "<p class=\"note\">Loading…</p>";"##,
    r##"const isoDate = new RegExp("^\\d{4}-\\d{2}-\\d{2}$");"##,
    r##"
"use strict";

const fs = require("fs");
const path = require("path");
"##,
    r##"
export default defineConfig({
  plugins: [react()],
  server: {
    port: 5173,
    proxy: {
      "/api": { target: "http://localhost:8080", changeOrigin: true },
    },
  },
  resolve: { alias: { "@": "/src" } },
});
"##,
];

const HTML: &[&str] = &[
    r##"<a href="https://example.com" target="_blank" rel="noopener">Example</a>"##,
    r##"
<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Dashboard</title>
  <link rel="stylesheet" href="/static/style.css">
</head>
<body>
  <div id="app"></div>
  <script src="/static/app.js" defer></script>
</body>
</html>
"##,
    r##"
<form action="/login" method="post">
  <label for="email">Email</label>
  <input type="email" id="email" name="email" placeholder="you@example.com" required>
  <input type="password" name="password" autocomplete="current-password">
  <button type="submit" class="btn">Sign in</button>
</form>
"##,
    r##"<img src="logo.png" alt="" width="120" height="40">"##,
    r##"
<script type="application/ld+json">
{"@context": "https://schema.org", "@type": "Organization", "name": "Acme"}
</script>
"##,
    r##"
<table class="data">
  <thead>
    <tr><th scope="col">Name</th><th scope="col">Role</th></tr>
  </thead>
  <tbody>
    <tr><td>Ada</td><td>Engineer</td></tr>
  </tbody>
</table>
"##,
    r##"<p>Hello, <strong>world</strong>!</p>"##,
    r##"
<ul>
  <li>One</li>
  <li>Two</li>
</ul>
"##,
    r##"<div data-config='{"theme": "dark", "dense": true}' data-id="42"></div>"##,
    r##"<button onclick="alert('Saved')" title="Save &quot;draft&quot;">Save</button>"##,
    r##"
{% extends "base.html" %}
{% block content %}
  <h1>{{ title }}</h1>
  {% for item in items %}
    <a href="{{ url_for("item", id=item.id) }}">{{ item.name }}</a>
  {% endfor %}
{% endblock %}
"##,
    r##"<p lang="ja" class="greeting">こんにちは、世界 — ようこそ</p>"##,
    r##"<div style="color: #333; background: url('bg.png')">…</div>"##,
    r##"
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24">
  <path d="M12 2L2 7l10 5 10-5-10-5z" fill="none" stroke="currentColor"/>
</svg>
"##,
    r##"class="btn btn-primary""##,
    r##"
<select name="size" id="size">
  <option value="">Choose…</option>
  <option value="s">Small</option>
  <option value="m" selected>Medium</option>
</select>
"##,
    r##"
<video controls width="640" poster="poster.jpg">
  <source src="movie.webm" type="video/webm">
  Your browser does not support "video".
</video>
"##,
    r##"
<script>
  document.addEventListener("DOMContentLoaded", () => {
    const el = document.getElementById("greeting");
    el.textContent = "Hello, " + (localStorage.getItem("name") || "guest") + "!";
  });
</script>
"##,
    r##"<input pattern="\d{3}-\d{4}" title="Format: 555-1234" value="">"##,
];

const SQL: &[&str] = &[
    r##"SELECT "id", "name" FROM "users" WHERE "email" = 'ada@example.com';"##,
    r##"
CREATE TABLE "orders" (
    "id" BIGSERIAL PRIMARY KEY,
    "user_id" BIGINT NOT NULL REFERENCES "users" ("id"),
    "total_cents" INTEGER NOT NULL DEFAULT 0,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "created_at" TIMESTAMPTZ NOT NULL DEFAULT now()
);
"##,
    r##"SELECT count(*) FROM orders WHERE status = 'paid';"##,
    r##"
UPDATE accounts
SET balance = balance - 100
WHERE id = 42;
"##,
    r##"CREATE INDEX "idx_orders_user" ON "orders" ("user_id", "created_at" DESC);"##,
    r##"INSERT INTO events (payload) VALUES ('{"type": "signup", "plan": "pro"}');"##,
    r##"
SELECT u."name", COUNT(o."id") AS "order_count"
FROM "users" u
LEFT JOIN "orders" o ON o."user_id" = u."id"
GROUP BY u."name"
ORDER BY "order_count" DESC
LIMIT 10;
"##,
    r##"SELECT * FROM `posts` WHERE title LIKE "%rust%" AND author <> "";"##,
    r##"SELECT data->>'name' AS "Name" FROM "profiles" WHERE data @> '{"active": true}';"##,
    r##"ALTER TABLE "users" ADD COLUMN "display_name" TEXT NOT NULL DEFAULT '';"##,
    r##"
CREATE OR REPLACE FUNCTION "set_updated_at"() RETURNS trigger AS $$
BEGIN
    NEW."updated_at" := now();
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;
"##,
    r##"INSERT INTO "cities" ("name", "country") VALUES ('München', 'DE'), ('São Paulo', 'BR');"##,
    r##"CREATE TABLE "weird ""name""" (x INTEGER);"##,
    r##"
WITH "recent" AS (
    SELECT * FROM "orders" WHERE "created_at" > now() - interval '7 days'
)
SELECT "status", count(*) FROM "recent" GROUP BY "status";
"##,
    r##"SELECT * FROM "logs" WHERE "message" ~ '^ERROR: \d+' AND "path" LIKE 'C:\\%';"##,
    r##"CREATE VIEW "active_users" AS SELECT * FROM "users" WHERE "deleted_at" IS NULL;"##,
    r##""email" TEXT NOT NULL UNIQUE,"##,
    r##"ORDER BY "created_at""##,
    r##"GRANT SELECT ON ALL TABLES IN SCHEMA "public" TO "readonly";"##,
];

const SHELL: &[&str] = &[
    r##"echo "hello, world""##,
    r##"grep -rn "TODO" src/ --include="*.rs" | head -20"##,
    r##"git commit -am "fix: escape quotes in \"content\"""##,
    r##"
#!/usr/bin/env bash
set -euo pipefail

APP="myapp"
REGION="${REGION:-us-east-1}"

echo "Deploying $APP to $REGION..."
docker build -t "$APP:latest" .
docker push "$REGION.registry.example.com/$APP:latest"
"##,
    r##"
for f in "$@"; do
  if [ -f "$f" ]; then
    wc -l "$f"
  fi
done
"##,
    r##"curl -s -X POST http://localhost:8080/api/items -H "Content-Type: application/json" -d '{"name": "widget", "qty": 3}'"##,
    r##"curl -d "{\"name\": \"widget\"}" http://localhost:8080/items"##,
    r##"cargo test --release -- --nocapture"##,
    r##"ls -la /tmp && cd /work && make build"##,
    r##"find . -name "*.py" -exec sed -i 's/print "\(.*\)"/print("\1")/' {} +"##,
    r##"jq -r '.items[] | select(.status == "open") | .id' issues.json"##,
    r##"awk -F',' '{ print $1 ": " $3 }' data.csv"##,
    r##"
if [ -z "${API_KEY:-}" ]; then
  echo "error: API_KEY is not set" >&2
  exit 1
fi
"##,
    r##"python3 -c "import sys, json; print(json.load(sys.stdin)[\"version\"])" < package.json"##,
    r##"echo "Größe: 42 — café ☕" > out.txt"##,
    r##"ls "/mnt/c/Program Files/App" && echo "C:\\Program Files\\App""##,
    r##"
log() {
  printf '%s [%s] %s\n' "$(date +%H:%M:%S)" "$1" "$2"
}
log INFO "starting build"
log WARN "cache is empty"
"##,
    r##"export PGPASSWORD="" && psql -h localhost -U postgres -c "SELECT 1""##,
    r##"docker run --rm -e "TZ=UTC" -v "$(pwd):/app" -w /app node:20 npm test"##,
    r##""$HOME/bin/tool" --config "$HOME/.config/tool.toml""##,
    r##"
#!/bin/sh
# Waits for the database, runs migrations, then starts the server.
set -e

host="${DB_HOST:-localhost}"
port="${DB_PORT:-5432}"
tries=0

until nc -z "$host" "$port"; do
  tries=$((tries + 1))
  if [ "$tries" -ge 30 ]; then
    echo "database at $host:$port never came up" >&2
    exit 1
  fi
  echo "waiting for \"$host:$port\" ($tries)..."
  sleep 1
done

./manage.py migrate --noinput
exec gunicorn app.wsgi --bind "0.0.0.0:${PORT:-8000}" --workers "${WORKERS:-2}"
"##,
];

const JSON: &[&str] = &[
    r##"{"name": "argmend", "version": "0.1.0"}"##,
    r##"
{
  "name": "web",
  "private": true,
  "scripts": {
    "dev": "vite",
    "build": "tsc && vite build",
    "test": "vitest run"
  },
  "dependencies": {
    "react": "^18.3.1",
    "react-dom": "^18.3.1"
  }
}
"##,
    r##"
{
  "compilerOptions": {
    "target": "ES2022",
    "module": "ESNext",
    "strict": true,
    "paths": { "@/*": ["./src/*"] }
  },
  "include": ["src"]
}
"##,
    r##"[{"id": 1, "tags": []}, {"id": 2, "tags": ["a", "b"]}]"##,
    r##"{"message": "He said \"hi\"", "path": "C:\\temp\\x"}"##,
    r##"{"a": "", "b": {}, "c": [""], "d": null}"##,
    r##"{"greeting": "こんにちは", "city": "Zürich", "emoji": "🎉"}"##,
    r##"{"copyright": "\u00a9 2024 Acme", "nbsp": "a\u00a0b"}"##,
    r##"[1, 2, 3, 4.5, -6e3, true, false, null]"##,
    r##"
[
  [0, 1],
  [1, 0]
]
"##,
    r##"
{
  "editor.formatOnSave": true,
  "files.exclude": { "**/node_modules": true, "**/.git": true },
  "[python]": { "editor.defaultFormatter": "ms-python.black-formatter" }
}
"##,
    r##"
{
  "version": "0.2.0",
  "configurations": [
    {
      "type": "node",
      "request": "launch",
      "name": "Debug server",
      "program": "${workspaceFolder}/src/server.js",
      "args": ["--port", "8080"],
      "env": { "NODE_ENV": "development" }
    }
  ]
}
"##,
    r##"
{
  "openapi": "3.0.0",
  "info": { "title": "Items API", "version": "1.0.0" },
  "paths": {
    "/items/{id}": {
      "get": { "summary": "Get an item", "responses": { "200": { "description": "OK" } } }
    }
  }
}
"##,
    r##"{"pattern": "^[a-z]+\\d*$", "flags": "i"}"##,
    r##"
"dependencies": {
    "serde": "1.0",
    "serde_json": "1.0"
  }"##,
    r##"{"tool": "write_file", "arguments": "{\"path\": \"a.txt\", \"content\": \"\"}"}"##,
    r##"
{
  "en": { "save": "Save", "cancel": "Cancel" },
  "de": { "save": "Speichern", "cancel": "Abbrechen" }
}
"##,
    r##"{"extends": ["next/core-web-vitals"], "rules": {"quotes": ["error", "double"]}}"##,
];

const YAML: &[&str] = &[
    r##"name: "CI""##,
    r##"
name: CI
on:
  push:
    branches: ["main"]
  pull_request:
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - name: "Run tests"
        run: cargo test --all-features
"##,
    r##"
services:
  db:
    image: "postgres:16"
    environment:
      POSTGRES_PASSWORD: "secret"
      POSTGRES_DB: "app"
    ports:
      - "5432:5432"
"##,
    r##"
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: "web", tier: "frontend"}
spec:
  replicas: 2
  template:
    spec:
      containers:
        - name: web
          image: "nginx:1.27"
          args: ["--port", "8080"]
"##,
    r##"
retries: 3
timeout: 30s
hosts:
  - alpha
  - beta
"##,
    r##"enabled: true"##,
    r##"
message: "Say \"cheese\""
path: "C:\\data\\in"
"##,
    r##"
prefix: ""
suffix: ''
"##,
    r##"
title: "Café crème"
author: "山田太郎"
"##,
    r##"
      - name: Lint
        run: |
          echo "Linting..."
          npx eslint "src/**/*.ts" --max-warnings=0
"##,
    r##"
- name: Install packages
  apt:
    name: ["git", "curl", "jq"]
    state: present
  when: ansible_os_family == "Debian"
"##,
    r##"
responses:
  "404":
    description: "Returns \"Not Found\" when the item is missing"
  "200":
    description: OK
"##,
    r##"
    strategy:
      matrix:
        os: [ubuntu-latest, "windows-latest"]
        node: ["18", "20"]
"##,
    r##"
env:
  RUST_LOG: "info,argmend=debug"
  DATABASE_URL: "postgres://app:app@localhost/app"
"##,
    r##"image: "redis:7-alpine""##,
    r##"pattern: "^v\\d+\\.\\d+$""##,
    r##"
singleQuote: false
overrides:
  - files: "*.md"
    options:
      proseWrap: "always"
"##,
    r##"
repos:
  - repo: https://github.com/psf/black
    rev: "24.4.2"
    hooks:
      - id: black
        args: ["--line-length", "100"]
"##,
];

const TOML: &[&str] = &[
    r##"name = "argmend""##,
    r##"
[package]
name = "demo"
version = "0.1.0"
edition = "2021"

[dependencies]
serde = { version = "1", features = ["derive"] }
serde_json = "1.0"
"##,
    r##"
[project]
name = "tool"
version = "0.3.1"
requires-python = ">=3.10"
dependencies = ["requests>=2.31", "click"]

[project.scripts]
tool = "tool.cli:main"
"##,
    r##"
[server]
port = 8080
workers = 4
debug = false
"##,
    r##"timeout_ms = 1500"##,
    r##"
greeting = "say \"hi\""
win_path = 'C:\Users\dev'
regex = "\\d+"
"##,
    r##"
prefix = ""
labels = ["", "x"]
"##,
    r##"
description = """
A tool that "repairs" JSON.
Second line."""
"##,
    r##"
author = "José Müller"
city = "東京"
"##,
    r##"database = { url = "postgres://localhost/app", pool = 5 }"##,
    r##"
[[bin]]
name = "cli"
path = "src/main.rs"

[[bin]]
name = "server"
path = "src/server.rs"
"##,
    r##"
edition = "2021"
max_width = 100
imports_granularity = "Crate"
"##,
    r##"
[build]
command = "npm run build"
publish = "dist"

[[redirects]]
from = "/api/*"
to = "/.netlify/functions/:splat"
status = 200
"##,
    r##"
"quoted key" = "value"
"a.b" = 1
"##,
    r##"
[tool.ruff]
line-length = 100
select = ["E", "F", "I"]
ignore = ["E501"]
"##,
    r##"
[features]
default = ["std"]
std = []
serde = ["dep:serde"]
"##,
    r##"version = "1.2.3""##,
    r##"
[target.'cfg(windows)'.dependencies]
winapi = { version = "0.3", features = ["winuser", "fileapi"] }
"##,
];

const RUST: &[&str] = &[
    r##"println!("hello, world");"##,
    r##"
fn main() {
    let name = std::env::args().nth(1).unwrap_or_else(|| "world".to_string());
    println!("Hello, {name}!");
}
"##,
    r##"
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Config {
    #[serde(default = "default_port")]
    port: u16,
    host: String,
}
"##,
    r##"let body = json!({"name": "widget", "tags": ["a", "b"], "qty": 3});"##,
    r##"
let re = Regex::new(r"^\d{4}-\d{2}-\d{2}$").unwrap();
let s = r#"{"a": 1}"#;
"##,
    r##"
let msg = "she said \"hi\"";
assert_eq!(msg.len(), 15);
"##,
    r##"
fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}
"##,
    r##"let total: u32 = items.iter().map(|i| i.qty).sum();"##,
    r##"
#[test]
fn parses_empty() {
    assert_eq!(parse(""), Ok(vec![]));
    assert!(parse("\"").is_err());
}
"##,
    r##"
match cmd.as_str() {
    "build" | "b" => build()?,
    "test" => test(&args)?,
    "" => return Err(anyhow!("missing command")),
    other => bail!("unknown command: {other:?}"),
}
"##,
    r##"let path = Path::new("C:\\Users\\dev\\config.toml");"##,
    r##"const GREETING: &str = "Grüß dich, 世界 👋";"##,
    r##"
#[derive(Parser)]
#[command(name = "demo", about = "Does a \"demo\" thing")]
struct Args {
    #[arg(short, long, default_value = "out.txt")]
    output: PathBuf,
}
"##,
    r##"
eprintln!("error: {:?}", e);
std::process::exit(1);
"##,
    r##"
let mut m = HashMap::new();
m.insert("a", 1);
m.insert("b", 2);
"##,
    r##"use crate::config::Config; // see "config.rs""##,
    r##"
#[cfg(feature = "serde")]
impl Serialize for Id {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}
"##,
    r##"
static SCHEMA: &str = include_str!("../schema.json");
const EMPTY: &str = "";
"##,
    r##"
use std::fs;
use std::path::Path;

/// Reads `name = "value"` lines; `#` starts a comment.
pub fn read_pairs(path: &Path) -> std::io::Result<Vec<(String, String)>> {
    let text = fs::read_to_string(path)?;
    let mut pairs = Vec::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            eprintln!("skipping {line:?}: no \"=\"");
            continue;
        };
        let value = value.trim().trim_matches('"');
        pairs.push((key.trim().to_owned(), value.replace("\\n", "\n")));
    }
    Ok(pairs)
}
"##,
];

const C: &[&str] = &[
    r##"printf("hello, world\n");"##,
    r##"
#include <stdio.h>
#include "util.h"

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE\n", argv[0]);
        return 1;
    }
    printf("reading \"%s\"\n", argv[1]);
    return 0;
}
"##,
    r##"
int add(int a, int b) {
    return a + b;
}
"##,
    r##"for (size_t i = 0; i < n; i++) sum += xs[i];"##,
    r##"
#ifndef UTIL_H
#define UTIL_H

#define VERSION "1.2.0"
#define PATH_SEP '\\'

int parse(const char *s);

#endif
"##,
    r##"static const char *names[] = {"alice", "bob", "", NULL};"##,
    r##"FILE *f = fopen("C:\\temp\\log.txt", "a");"##,
    r##"
if (strcmp(cmd, "start") == 0) {
    start();
} else if (strcmp(cmd, "stop") == 0) {
    stop();
} else {
    fprintf(stderr, "unknown command \"%s\"\n", cmd);
}
"##,
    r##"const char *body = "{\"name\": \"widget\", \"qty\": 2}";"##,
    r##"
struct option opts[] = {
    {"help", no_argument, 0, 'h'},
    {"output", required_argument, 0, 'o'},
    {0, 0, 0, 0}
};
"##,
    r##"const char *greeting = "Grüße, 世界";"##,
    r##"snprintf(buf, sizeof buf, "%s/%s.json", dir, name);"##,
    r##"#define LOG(fmt, ...) fprintf(stderr, "[%s:%d] " fmt "\n", __FILE__, __LINE__, __VA_ARGS__)"##,
    r##"
assert(strlen("") == 0);
assert(strcmp("a", "b") < 0);
"##,
    r##"#include "config.h""##,
    r##"
"  -h  show this help\n"
"  -o  write to FILE\n""##,
    r##"
switch (c) {
case '"':
    return QUOTE;
case '\\':
    return BACKSLASH;
default:
    return OTHER;
}
"##,
    r##"
const char *home = getenv("HOME");
if (home == NULL || *home == '\0') home = "/tmp";
"##,
];

const PROSE: &[&str] = &[
    r##"The "quick" fix is to restart the server."##,
    r##"
# argmend

Repairs the "almost JSON" that language models write.

## Usage

Run `argmend repair "{a: 1}"` and read the result.
"##,
    r##"
Fix "unexpected EOF" when the body is empty

The parser treated "" as a missing value. It now reads an empty
string as an empty body.
"##,
    r##"She said, "We ship on Friday," and then added, "unless the tests fail.""##,
    r##"Use the “Save as” dialog to pick a folder, then press “OK”."##,
    r##"
Meeting notes

- Agreed to move the release to next week.
- Alice owns the migration plan.
"##,
    r##"Remember to rotate the keys before Monday."##,
    r##"The API returns {"error": "not found"} when the item is missing."##,
    r##"Le mot "café" s'écrit avec un accent ; en japonais, c'est "カフェ"."##,
    r##"
## 0.2.0

- Added the "strict" mode.
- Fixed a crash on inputs ending in "\".
- Renamed `--out` to `--output`.
"##,
    r##"Copy the file to "C:\Program Files\Acme\" and restart."##,
    r##""Done is better than perfect." — a poster in the office"##,
    r##"The error message reads "permission denied""##,
    r##"
| Flag | Meaning |
|------|---------|
| `-q` | quiet, prints nothing but "ok" |
| `-v` | verbose |
"##,
    r##"To install, run "pip install argmend" and then type "argmend --help"."##,
    r##"Valid values are "low", "medium", and "high"."##,
    r##"He wrote: "the word 'null' is not "None"", which confused everyone."##,
    r##"Leave the field empty ("") to use the default."##,
    r##"Set "mode": "fast" in the config file, then restart."##,
    r##"
# Contributing

Thanks for helping! A few rules keep reviews quick:

1. Run "cargo fmt" and "cargo clippy" before you push.
2. Write commit messages in the imperative: "Add X", not "Added X".
3. One change per pull request; say "why" in the description.
4. New behaviour needs a test. For a bug, the test should fail first.

## Reporting a bug

Include the exact input, the output you got, and the output you
expected. If the input is large, attach it as a file named like
"issue-123-input.json".

## Code style

- Comments are full sentences.
- Names say what a thing is, not how it is used.
- Prefer "early return" to deep nesting.
"##,
];

// ---------------------------------------------------------------------------
// The fresh pool: written after the engine was tuned on the lists above, by
// someone who had not seen how it decides, and never tuned against. Same
// conventions (a leading newline is not part of a snippet; Go is indented
// with tabs when read). About one snippet in ten has no double quote.
// ---------------------------------------------------------------------------

const PYTHON_FRESH: &[&str] = &[
    r##"
def to_tool_call(path, content):
    return {"name": "write_file", "arguments": {"path": path, "content": content}}
"##,
    r##"
    result = subprocess.run(
        ["bash", "-lc", cmd],
        capture_output=True,
        text=True,
        env={**os.environ, "LC_ALL": "C"},
"##,
    r##"
TOOL_SPEC = {
    "name": "run_command",
    "description": "Run a shell command and return its output",
    "parameters": {
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The command to run"},
            "timeout": {"type": "integer", "minimum": 1},
        },
        "required": ["command"],
    },
}
"##,
    r##"log.warning("skipping %r: expected \"key=value\", got %d fields", line, len(parts))"##,
    r##"
ATTR = re.compile(r'(\w+)="([^"]*)"')
for name, value in ATTR.findall(tag):
    attrs[name] = value
"##,
    r##"
BASE = Path(r"C:\Users\marta\Documents\reports")
out = BASE / "2024" / "résumé.docx"
print(f"writing {out!s} ({out.stat().st_size} bytes)")
"##,
    r##"
def chunks(seq, size):
    for start in range(0, len(seq), size):
        yield seq[start:start + size]
"##,
    r##"
    def __repr__(self):
        return f"<Order #{self.id} total={self.total:.2f} status=\"{self.status}\">""##,
    r##"
def test_create_note(client):
    resp = client.post(
        "/api/notes",
        json={"title": "Groceries", "content": "milk, eggs, \"good\" bread"},
    )
    assert resp.status_code == 201
    assert resp.json()["content"].startswith("milk")
"##,
    r##"
try:
    args = json.loads(call["function"]["arguments"])
except json.JSONDecodeError as exc:
    raise ToolError(f"bad arguments for {call['function']['name']}: {exc}") from exc
file_path = args.get("file_path") or args["path"]
"##,
    r##"
"command": "pytest -x -q tests/",
    "description": "Run the unit tests",
    "timeout": 120,
}
"##,
    r##"
# Colours for the "status" column; see https://example.com/palette#warm
STATUS_COLOURS = {
    "ok": "#2e7d32",
    "warn": "#f9a825",  # amber, not "yellow"
    "fail": "#c62828",
}
"##,
    r##"
cur.execute(
    'SELECT "id", "file_path" FROM "documents" WHERE "owner" = %s AND "title" LIKE %s',
    (owner, f"%{term}%"),
)
"##,
    r##"
headers = {
    "Authorization": f"Bearer {token}",
    "User-Agent": "sync-bot/1.4 (+https://example.org/bot)","##,
    r##"
EXAMPLE = """
{"path": "notes/todo.md", "content": "- [ ] buy \\"oat\\" milk"}
"""
print(json.loads(EXAMPLE)["content"], end="")
"##,
];

const GO_FRESH: &[&str] = &[
    r##"
var mimeTypes = map[string]string{
    ".css":  "text/css; charset=utf-8",
    ".js":   "text/javascript; charset=utf-8",
    ".json": "application/json","##,
    r##"
type WriteFileArgs struct {
    Path    string `json:"path"`
    Content string `json:"content"`
    Mode    uint32 `json:"mode,omitempty"`
}
"##,
    r##"log.Printf("tool %q failed: exit=%d stderr=\"%s\"", name, code, strings.TrimSpace(stderr))"##,
    r##"
    req, err := http.NewRequestWithContext(ctx, "POST", baseURL+"/v1/files", bytes.NewReader(body))
    if err != nil {
        return nil, fmt.Errorf("build request: %w", err)
    }
    req.Header.Set("Authorization", "Bearer "+token)
"##,
    r##"
const sample = `{"command": "ls -la", "description": "List files"}`

func TestDecode(t *testing.T) {
    var c Cmd
    if err := json.Unmarshal([]byte(sample), &c); err != nil {
        t.Fatal(err)
    }
    if c.Command != "ls -la" {
        t.Errorf("Command = %q, want %q", c.Command, "ls -la")
    }
}
"##,
    r##"
func (s *Stack[T]) Pop() (T, bool) {
    var zero T
    if len(s.items) == 0 {
        return zero, false
    }
    top := s.items[len(s.items)-1]
    s.items = s.items[:len(s.items)-1]
    return top, true
}
"##,
    r##"
var bashCandidates = []string{
    `C:\Program Files\Git\bin\bash.exe`,
    "C:\\msys64\\usr\\bin\\bash.exe",
    "/usr/bin/bash",
}
"##,
    r##"var kv = regexp.MustCompile(`(\w+)="((?:[^"\\]|\\.)*)"`)"##,
    r##"
const page = `<!doctype html>
<title>{{.Title}}</title>
<a href="{{.URL}}" class="{{if .Active}}active{{end}}">{{.Label}}</a>
`
"##,
    r##"
fmt.Printf("%-10s│%6.2f €\n", "Kaffee", 3.5)
fmt.Println("→ fertig ✓")
"##,
    r##"
    switch runtime.GOOS {
    case "windows":
        shell = "cmd.exe"
    default:
        shell = "/bin/sh""##,
    r##"
"encoding/json"
    "net/http"
    "time"
)
"##,
    r##"
    body := map[string]any{
        "file_path":  path,
        "old_string": old,
        "new_string": strings.ReplaceAll(old, "\t", "    "),
    }
"##,
    r##"
// See https://pkg.go.dev/net/http#Client for what "Timeout" covers.
client := &http.Client{Timeout: 15 * time.Second}
"##,
    r##"rows, err := db.QueryContext(ctx, `SELECT "id", "title" FROM "notes" WHERE "tags" @> $1`, pq.Array(tags))"##,
    r##"
var rootCmd = &cobra.Command{
    Use:   "sync [flags] SRC DST",
    Short: "Copy the files that changed",
    Args:  cobra.ExactArgs(2),
    RunE: func(cmd *cobra.Command, args []string) error {
        dry, _ := cmd.Flags().GetBool("dry-run")
        return run(args[0], args[1], dry)
"##,
];

const JAVASCRIPT_FRESH: &[&str] = &[
    r##"
  const res = await fetch(url, {
    method: "PATCH",
    headers: {
      "Authorization": `Bearer ${token}`,
      "Content-Type": "application/merge-patch+json",
"##,
    r##"
const tools = [
  {
    type: "function",
    function: {
      name: "edit_file",
      description: "Replace one exact string in a file",
      parameters: {
        type: "object",
        properties: {
          file_path: { type: "string" },
          old_string: { type: "string" },
          new_string: { type: "string" },
        },
        required: ["file_path", "old_string", "new_string"],
      },
    },
  },
];
"##,
    r##"
        <a href={`/users/${user.id}`} className="link" aria-label="Open profile">
          {user.name}
        </a>
      </li>
    ))}
  </ul>
"##,
    r##"
const { data } = await axios.put(`/api/files/${encodeURIComponent(name)}`, {
  "path": filePath,
  "content": text,
}, { headers: { "X-Request-Id": crypto.randomUUID() } });
"##,
    r##"const attrRe = /(\w+)=(?:"([^"]*)"|'([^']*)')/g;"##,
    r##"const html = "<span title=\"" + escapeAttr(title) + "\">" + label + "</span>";"##,
    r##"export const clamp = (n, lo, hi) => Math.min(hi, Math.max(lo, n));"##,
    r##"console.error("%s: expected %d args, got %d (\"%s\")", cmd, want, got, argv.join(" "));"##,
    r##"
// Polyfill from https://developer.mozilla.org/en-US/docs/Web/API/URL#browser_compatibility
// Don't drop the "//" check: protocol-relative URLs break without it.
if (url.startsWith("//")) url = location.protocol + url;
"##,
    r##"
const logDir = process.platform === "win32"
  ? "C:\\ProgramData\\Acme\\logs"
  : "/var/log/acme";
"##,
    r##"
const PARSE_HINT =
  "Could not parse the tool call. Make sure \"arguments\" is valid JSON and every quote in \"content\" is escaped""##,
    r##"
"use client";

import { useEffect, useState } from "react";

export default function Clock() {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const id = setInterval(() => setNow(new Date()), 1000);
    return () => clearInterval(id);
  }, []);
  return <time dateTime={now.toISOString()}>{now.toLocaleTimeString("de-DE")}</time>;
}
"##,
    r##"toast.success(`Gespeichert ✔ — ${count} Änderungen übernommen`, { icon: "💾" });"##,
    r##"
router.post("/commands", async (req, res) => {
  const { command, description = "" } = req.body;
  if (typeof command !== "string" || command.trim() === "") {
    return res.status(400).json({ error: "\"command\" must be a non-empty string" });
  }
"##,
    r##"
type RequestHeaders = {
  "content-type"?: string;
  "x-api-key": string;
};
"##,
    r##"const line = `${key}="${String(value).replace(/"/g, '\\"')}"`;"##,
];

const HTML_FRESH: &[&str] = &[
    r##"
<meta property="og:title" content="Release notes — v2.3">
<meta property="og:url" content="https://example.com/blog/release-2-3?utm_source=rss#top">
<meta name="description" content="What's new: faster &quot;sync&quot;, dark mode, and fixes.">
"##,
    r##"
<form method="post" action="/settings" class="stack">
  <fieldset>
    <legend>Notifications</legend>
    <label><input type="checkbox" name="notify_email" checked> Email</label>
"##,
    r##"
<script>
  window.__STATE__ = {"user": {"name": "Zoë"}, "flags": ["beta"], "description": "Say \"hi\""};
</script>
"##,
    r##"<button hx-post="/tasks/7/done" hx-vals='{"content": "done", "notify": true}' hx-target="#task-7">Mark done</button>"##,
    r##"
<nav>
  <ul>
    <li><a href=/docs>Docs</a></li>
    <li><a href=/blog>Blog</a></li>
  </ul>
</nav>
"##,
    r##"<div x-data="{ open: false }" @keydown.escape="open = false" :class="open ? 'is-open' : ''">"##,
    r##"<iframe src="https://www.youtube-nocookie.com/embed/abc123?start=42&amp;rel=0" title="Vidéo : présentation" allowfullscreen></iframe>"##,
    r##"
<template>
  <li v-for="item in items" :key="item.id" :class="{ done: item.done }">
    <input type="checkbox" v-model="item.done">
    {{ item.title }}
  </li>
</template>
"##,
    r##"<a class="nav-link" href="/pricing" aria-current="page""##,
    r##"
<!-- TODO: swap "Sign up" for the new copy, see https://example.com/brand#cta -->
<a class="cta" href="/signup?ref=hero">Sign up — it's free</a>
"##,
    r##"
<pre><code class="language-json">{
  "path": "src/app.ts",
  "content": "console.log(\"hi\")"
}</code></pre>
"##,
    r##"
<tr>
  <td style="text-align: right; font-variant-numeric: tabular-nums">1 234,50 €</td>
  <td><span class="badge" title="Status: &quot;paid&quot;">Bezahlt</span></td>
</tr>
"##,
    r##"<a href="file:///C:/Users/dev/report.pdf" download>C:\Users\dev\report.pdf</a>"##,
    r##"
"text/css" href="/css/print.css" media="print">
<link rel="preload" href="/fonts/Inter.woff2" as="font" type="font/woff2" crossorigin>
"##,
];

const SQL_FRESH: &[&str] = &[
    r##"
SELECT "userId", "createdAt"::date AS "day", count(*) AS "n"
FROM "Event"
WHERE "type" = 'page_view'
GROUP BY 1, 2;
"##,
    r##"
INSERT INTO "tool_calls" ("name", "arguments")
VALUES ('write_file', '{"path": "notes.md", "content": "# Notes\n"}'::jsonb);
"##,
    r##"UPDATE `settings` SET `value` = "dark" WHERE `key` = "theme";"##,
    r##"
CREATE TABLE "files" (
    "id" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    "file_path" text NOT NULL,
    "description" text,
"##,
    r##"
DELETE FROM sessions
WHERE expires_at < now() - interval '30 days';
"##,
    r##"
-- Ticket #812: "archived" rows must not show up in search.
CREATE INDEX IF NOT EXISTS idx_docs_live ON docs (title) WHERE archived = 0;
"##,
    r##"SELECT * FROM "users" WHERE "email" !~* '^[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}$';"##,
    r##"INSERT INTO "produits" ("nom", "prix") VALUES ('Crème brûlée', 6.50), ('Bœuf bourguignon', 18.00);"##,
    r##"
  AND t."deleted_at" IS NULL
  AND t."owner_id" = u."id""##,
    r##"
"status" = ANY($1::text[])
  AND "priority" >= $2
ORDER BY "priority" DESC, "id"
"##,
    r##"
BULK INSERT [dbo].[Sales]
FROM 'C:\Data\Imports\sales_2024.csv'
WITH (FORMAT = 'CSV', FIELDQUOTE = '"', FIELDTERMINATOR = ';', FIRSTROW = 2);
"##,
    r##"COMMENT ON COLUMN "orders"."total" IS 'Sum in cents; "gross", not "net"';"##,
    r##"
    EXECUTE format('ALTER TABLE %I ADD COLUMN %I text', tbl, col);
    RAISE NOTICE 'added column "%" to "%"', col, tbl;
"##,
    r##"
SELECT json_build_object(
    'command', c."command",
    'description', c."description",
    'ran_at', to_char(c."ran_at", 'YYYY-MM-DD"T"HH24:MI:SS')
) AS "payload"
FROM "commands" c
"##,
];

const SHELL_FRESH: &[&str] = &[
    r##"
kubectl apply -f - <<EOF
apiVersion: v1
kind: Secret
metadata:
  name: api-token
stringData:
  token: "${API_TOKEN}"
EOF
"##,
    r##"
git commit -F - <<'MSG'
fix(parser): accept "key": value pairs

Closes #214. Values like "C:\temp" are now read as they are.
MSG
"##,
    r##"
cat > /tmp/payload.json <<EOF
{"path": "$TARGET", "content": "$(base64 -w0 "$FILE")"}
EOF
curl -sf -X POST "$API/files" -H 'Content-Type: application/json' --data @/tmp/payload.json
"##,
    r##"ssh deploy@web1 "sudo -u app bash -c 'cd /srv/app && git pull && echo \"deployed \$(git rev-parse --short HEAD)\"'""##,
    r##"printf "%-20s %8s\n" "NAME" "SIZE"; du -sh -- */ | sort -h | awk '{ printf "%-20s %8s\n", $2, $1 }'"##,
    r##"sed -i.bak -E 's/"version": "[0-9]+\.[0-9]+\.[0-9]+"/"version": "'"$NEW_VERSION"'"/' package.json"##,
    r##"
set -eux
apt-get update
apt-get install -y --no-install-recommends build-essential pkg-config libssl-dev
rm -rf /var/lib/apt/lists/*
"##,
    r##""/c/Program Files/Git/bin/git.exe" -C "C:\\work\\repo" status --short"##,
    r##"
retry() {
  local n=0 max="${RETRIES:-5}"
  until "$@"; do
    n=$((n + 1))
    if (( n >= max )); then
      echo "retry: \"$*\" failed after $n attempts" >&2
      return 1
    fi
    sleep $(( 2 ** n ))
  done
}
"##,
    r##"git log --since="2 weeks ago" --pretty=format:'%h %an "%s"' -- src/ | head -n 30"##,
    r##"echo "✅ Build fertig in ${SECONDS}s — Artefakte unter ./dist""##,
    r##"
# Remove "*.orig" leftovers from merges (never inside .git/)
find . -path ./.git -prune -o -name "*.orig" -print0 | xargs -0 rm -f --
"##,
    r##"export PATH="$HOME/.cargo/bin:$PATH""##,
    r##"
python3 - "$@" <<'PY'
import json, sys
data = json.load(open(sys.argv[1]))
print(json.dumps({"count": len(data), "first": data[0] if data else None}))
PY
"##,
    r##"jq -n --arg path "$f" --arg content "$(cat "$f")" '{path: $path, content: $content}'"##,
    r##"
case "$1" in
  -h|--help)
    echo "usage: $(basename "$0") [--dry-run] TARGET"
    exit 0
    ;;
  --dry-run)
    DRY_RUN=1; shift
    ;;
"##,
    r##"docker compose exec -T db psql -U postgres -d app -c 'SELECT "id", "email" FROM "users" LIMIT 5;'"##,
];

const JSON_FRESH: &[&str] = &[
    r##"
  "scripts": {
    "build": "tsc -p tsconfig.build.json",
    "lint": "eslint \"src/**/*.{ts,tsx}\" --max-warnings 0",
"##,
    r##"
{
  "id": "call_7f3a",
  "type": "function",
  "function": {
    "name": "str_replace_editor",
    "arguments": "{\"command\": \"view\", \"path\": \"/repo/README.md\"}"
  }
}
"##,
    r##"
    "file_path": "src/server/routes.ts",
    "description": "Add the /health route","##,
    r##"
{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "properties": {
    "path": { "type": "string", "description": "Absolute path, e.g. \"/tmp/out.txt\"" },
    "content": { "type": "string" }
  },
  "required": ["path", "content"],
  "additionalProperties": false
}
"##,
    r##"
{
  "version": "2.0.0",
  "tasks": [
    {
      "label": "build",
      "type": "shell",
      "command": "cargo build --release",
      "windows": { "command": "C:\\Users\\dev\\.cargo\\bin\\cargo.exe build --release" },
      "problemMatcher": ["$rustc"]
    }
  ]
}
"##,
    r##"[[1.5, -2], [0, 3.25e-4], [], [true, null]]"##,
    r##"
{
  "welcome": "Willkommen, {name}!",
  "files": "{count, plural, one {# Datei} other {# Dateien}}",
  "praise": "Sie sagte: \"Gut gemacht!\""
}
"##,
    r##"
{
  "cell_type": "code",
  "execution_count": 3,
  "metadata": {},
  "outputs": [],
  "source": [
    "import pandas as pd\n",
    "df = pd.read_csv(\"data/sales.csv\", sep=\";\")\n",
    "df.head()"
  ]
}
"##,
    r##"
"mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "C:\\Users\\dev\\Desktop"]
    },
"##,
    r##"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [13.405, 52.52]}, "properties": {"name": "Berlin", "description": ""}}"##,
    r##"
  "name": "@acme/ui",
  "main": "dist/index.js",
  "types": "dist/index.d.ts""##,
    r##"{"rules": {"no-restricted-syntax": ["error", {"selector": "Literal[value=/^\\s*TODO/]", "message": "Write \"TODO(name)\" instead"}]}}"##,
    r##"
{
  "rewrites": [{ "source": "/api/(.*)", "destination": "https://api.example.com/$1" }],
  "headers": [
    {
      "source": "/(.*)",
      "headers": [{ "key": "Content-Security-Policy", "value": "default-src 'self'; img-src * data:" }]
    }
  ]
}
"##,
    r##"
[
  {"role": "system", "content": "You are a careful coding assistant."},
  {"role": "user", "content": "Fix this: print(\"hello\""},
  {"role": "assistant", "content": null, "tool_calls": []}
]
"##,
    r##"{"name": "Ørsted", "symbol": "Ω", "unit": "µs", "note": "≈ 3 × 10⁸ m/s"}"##,
];

const YAML_FRESH: &[&str] = &[
    r##"
      - name: Comment on PR
        if: github.event_name == 'pull_request'
        uses: actions/github-script@v7
        with:
          script: |
            github.rest.issues.createComment({
              ...context.repo,
              issue_number: context.issue.number,
              body: "Preview: https://preview.example.com/pr-" + context.issue.number,
            })
"##,
    r##"
apiVersion: v1
kind: ConfigMap
metadata:
  name: app-config
data:
  settings.json: |
    {"logLevel": "info", "paths": {"uploads": "/data/uploads"}}
  FEATURE_FLAGS: "search,export"
"##,
    r##"
        requestBody:
          required: true
          content:
            application/json:
              schema:
                type: object
                required: [path, content]
                properties:
                  path: { type: string, example: "docs/intro.md" }
                  content: { type: string, description: "UTF-8 text; write \"\\n\" for a newline" }
"##,
    r##"
version: 2
updates:
  - package-ecosystem: cargo
    directory: /
    schedule:
      interval: weekly
    open-pull-requests-limit: 5
"##,
    r##"
- name: Render the nginx site
  template:
    src: "templates/site.conf.j2"
    dest: "/etc/nginx/sites-available/{{ domain }}.conf"
    mode: "0644"
  notify: "reload nginx"
"##,
    r##"
windows:
  install_dir: "C:\\Program Files\\Acme"
  shortcut: 'C:\Users\Public\Desktop\Acme.lnk'
  args: "--profile \"Default User\""
"##,
    r##"
    healthcheck:
      test: ["CMD-SHELL", "pg_isready -U \"$$POSTGRES_USER\" -d app"]
      interval: 10s
      retries: 5
"##,
    r##"
metadata:
  name: {{ include "chart.fullname" . }}
  annotations:
    checksum/config: {{ include (print $.Template.BasePath "/configmap.yaml") . | sha256sum }}
"##,
    r##"
greetings:
  de: "Grüß Gott"
  el: "Καλημέρα"
  hi: "नमस्ते"
"##,
    r##"      run: echo "sha=$(git rev-parse --short HEAD)" >> "$GITHUB_OUTPUT""##,
    r##"
"on":
  push:
    tags: ["v*"]
  workflow_dispatch: {}
"##,
    r##"
# Docs: https://docs.docker.com/compose/compose-file/#env_file
# NOTE: a value with "#" in it must be quoted, or YAML reads a comment
env_file: .env
environment:
  - "SLACK_CHANNEL=#deploys"
"##,
    r##"
- alert: HighErrorRate
  expr: sum(rate(http_requests_total{status=~"5.."}[5m])) / sum(rate(http_requests_total[5m])) > 0.05
  for: 10m
  annotations:
    summary: "Error rate is {{ $value | humanizePercentage }} on {{ $labels.instance }}"
"##,
    r##"
deploy:
  stage: deploy
  script:
    - 'curl -X POST -H "PRIVATE-TOKEN: $TOKEN" "$CI_API_V4_URL/projects/$CI_PROJECT_ID/trigger"'
    - echo "done"
  only: [main]
"##,
];

const TOML_FRESH: &[&str] = &[
    r##"
[tool.pytest.ini_options]
addopts = "-ra -q --strict-markers"
testpaths = ["tests"]
filterwarnings = [
    "ignore:.*\"imp\" module.*:DeprecationWarning",
]
"##,
    r##"
[workspace]
members = ["crates/*"]
resolver = "2"

[workspace.package]
authors = ["Ana Lúcia <ana@example.com>"]
license = "MIT OR Apache-2.0"
"##,
    r##"
[profile.release]
lto = true
codegen-units = 1
panic = 'abort'
strip = true
"##,
    r##"
[paths]
data = 'C:\ProgramData\Acme\data'
logs = "C:\\ProgramData\\Acme\\logs"
"##,
    r##"
[templates]
write = '''
{"path": "{{ path }}", "content": "{{ content | escape }}"}
'''
"##,
    r##"
format = """
[┌─](bold green)$directory$git_branch
[└─>](bold green) """

[directory]
truncation_length = 3
style = "bold cyan"
"##,
    r##"
[[keyboard.bindings]]
key = "N"
mods = "Control|Shift"
action = "SpawnNewInstance"
"##,
    r##"
[[headers]]
  for = "/*"
  [headers.values]
    Content-Security-Policy = "default-src 'self'; script-src 'self' https://cdn.example.com"
    X-Frame-Options = "DENY"
"##,
    r##"tokio = { version = "1.38", features = ["macros", "rt-multi-thread","##,
    r##"
[tool.poetry.scripts]
serve = "app.cli:serve""##,
    r##"
"read_more" = "Weiterlesen →"
"posted_on" = "Veröffentlicht am {{ .Date }}"
"##,
    r##"
[commit]
pattern = '^(feat|fix|docs)(\(.+\))?: .{1,72}$'
message = "must look like \"type(scope): subject\""
"##,
    r##"
# Filter syntax: https://docs.rs/tracing-subscriber/latest/tracing_subscriber/filter/struct.EnvFilter.html#directives
log = "info,hyper=warn"  # "trace" is far too noisy
"##,
    r##"
[tool.taskipy.tasks]
lint = "ruff check . && mypy --strict src"
release = "git tag -a \"v$(python -c 'import app; print(app.__version__)')\" -m release"
"##,
    r##"
[mcp_servers.files]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-filesystem", "/home/dev/projects"]
env = { "LOG_LEVEL" = "debug" }
"##,
];

const RUST_FRESH: &[&str] = &[
    r##"
    let req = json!({
        "model": model,
        "max_tokens": 1024,
        "system": "Answer in \"plain\" English; cite the file path.",
"##,
    r##"
let call = json!({
    "name": "Write",
    "input": {"file_path": path.display().to_string(), "content": body},
});
"##,
    r##"return Err(format!("expected \"{}\" after key {:?}, found {:?}", ':', key, tok));"##,
    r##"
impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Eof => write!(f, "unexpected end of input"),
            ParseError::Char(c, at) => write!(f, "unexpected {c:?} at byte {at}"),
"##,
    r##"const FIXTURE: &str = r#"{"command": "cat \"a b.txt\"", "timeout": 30}"#;"##,
    r##"
pub fn mean(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    Some(xs.iter().sum::<f64>() / xs.len() as f64)
}
"##,
    r##"
/// Mirrors the wire format, see <https://spec.example.org/v2#tool-use>.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Block {
    Text { text: String },
    ToolUse { id: String, name: String, input: serde_json::Value },
}
"##,
    r##"let cache = PathBuf::from(r"C:\Users\Zoë\AppData\Local\argmend\cache");"##,
    r##"static KV: LazyLock<Regex> = LazyLock::new(|| Regex::new(r#"(\w+)\s*=\s*"([^"]*)""#).unwrap());"##,
    r##"
    assert_eq!(
        render(&doc),
        "<p>a &quot;b&quot;</p>\n""##,
    r##"
"path" | "file_path" => args.path = Some(value.to_owned()),
        "content" => args.content = value.to_owned(),
        other => return Err(Error::UnknownField(other.into())),
    }
"##,
    r##"
let out = Command::new("sh")
    .arg("-c")
    .arg(format!("git log -1 --format='%H %s' -- \"{}\"", file.display()))
    .output()?;
"##,
    r##"tracing::info!(path = %p.display(), bytes = n, "wrote \"{}\"", name);"##,
    r##"
#[test]
fn width_of_wide_chars() {
    assert_eq!(display_width("日本語"), 6);
    assert_eq!(display_width("e\u{301}"), 1);
    assert_eq!(display_width("👩‍💻"), 2);
}
"##,
    r##"
    /// Files to skip, e.g. "target/**" or "*.lock"
    #[arg(long = "exclude", value_name = "GLOB")]
    excludes: Vec<String>,
"##,
    r##"
macro_rules! field {
    ($obj:expr, $key:literal) => {
        $obj.get($key).and_then(|v| v.as_str()).ok_or(concat!("missing \"", $key, "\""))?
    };
}
"##,
];

const C_FRESH: &[&str] = &[
    r##"fprintf(stderr, "%s:%d: expected '%c' but found \"%.*s\"\n", file, line, want, (int)len, tok);"##,
    r##"
static const char *TOOL_CALL =
    "{\"name\": \"bash\", \"arguments\": {\"command\": \"ls -la /tmp\", "
    "\"description\": \"List temp files\"}}";
"##,
    r##"
int parse_header(const char *line, struct header *h) {
    const char *colon = strchr(line, ':');
    if (!colon) {
        return -1;
    }
    h->name = strndup(line, colon - line);
"##,
    r##"
#ifdef _WIN32
#define CONFIG_DIR "C:\\ProgramData\\acme"
#else
#define CONFIG_DIR "/etc/acme"
#endif
"##,
    r##"
static inline uint32_t rotl32(uint32_t x, int r) {
    return (x << r) | (x >> (32 - r));
}
"##,
    r##"
void json_escape(FILE *out, const char *s) {
    fputc('"', out);
    for (; *s; s++) {
        switch (*s) {
        case '"':  fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        default:   fputc(*s, out);
        }
    }
    fputc('"', out);
}
"##,
    r##"
puts("Größe: 12 µm — Toleranz ±0,5");
wprintf(L"Привет, %ls!\n", name);
"##,
    r##"
/* RFC 8259, section 7: "All Unicode characters may be placed within the
 * quotation marks, except for the characters that MUST be escaped".
 * https://www.rfc-editor.org/rfc/rfc8259#section-7 */
"##,
    r##"
#define USAGE \
    "usage: tool [-v] [-o FILE] INPUT\n" \
    "  -o FILE  write output to FILE (default: \"-\")""##,
    r##"
"GET", "POST", "PUT", "DELETE",
    NULL
};
"##,
    r##"if (sscanf(buf, "%63[^=]=\"%255[^\"]\"", key, val) != 2) continue;"##,
    r##"
static const struct route routes[] = {
    { .method = "GET",  .path = "/api/files",     .handler = list_files },
    { .method = "POST", .path = "/api/files/:id", .handler = put_file },
"##,
    r##"
snprintf(cmd, sizeof cmd, "tar -czf \"%s.tar.gz\" -C \"%s\" .", name, dir);
if (system(cmd) != 0) perror("tar");
"##,
    r##"
while ((opt = getopt(argc, argv, "vo:")) != -1) {
    switch (opt) {
    case 'v': verbose = 1; break;
    case 'o': out_path = optarg; break;
    default:
        fprintf(stderr, "Usage: %s [-v] [-o file]\n", argv[0]);
        exit(EXIT_FAILURE);
    }
}
"##,
];

const JAVA_FRESH: &[&str] = &[
    r##"
package com.example.files;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

public final class FileTool {
    public String write(Path path, String content) throws IOException {
        Files.writeString(path, content);
        return "{\"path\": \"" + path + "\", \"bytes\": " + content.length() + "}";
    }
}
"##,
    r##"throw new IllegalArgumentException(String.format("Unknown command \"%s\" (expected one of %s)", cmd, KNOWN));"##,
    r##"
String body = """
    {
      "command": "run_tests",
      "description": "Run the \\"unit\\" tests only",
      "timeout": 120
    }
    """;
"##,
    r##"
@RestController
@RequestMapping("/api/v1/files")
public class FileController {

    @GetMapping(value = "/{id}", produces = "application/json")
    public ResponseEntity<FileDto> get(@PathVariable("id") long id) {
"##,
    r##"
public static int binarySearch(int[] a, int key) {
    int lo = 0, hi = a.length - 1;
    while (lo <= hi) {
        int mid = (lo + hi) >>> 1;
        if (a[mid] < key) lo = mid + 1;
        else if (a[mid] > key) hi = mid - 1;
        else return mid;
    }
    return -(lo + 1);
}
"##,
    r##"private static final Pattern QUOTED = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"");"##,
    r##"Path logs = Paths.get("C:\\Users\\dev\\AppData\\Local\\Temp", "app.log");"##,
    r##"
@Test
void stripsAccents() {
    assertEquals("Cafe", Slug.ascii("Café"));
    assertEquals("", Slug.ascii(""));
    assertThrows(NullPointerException.class, () -> Slug.ascii(null));
}
"##,
    r##"
Map<String, Object> args = Map.of(
    "file_path", target.toString(),
    "old_string", before,
    "new_string", after
);
String json = mapper.writeValueAsString(args);
"##,
    r##"
String sql = "SELECT \"id\", \"name\" FROM \"Customer\" "
    + "WHERE \"country\" = ? "
    + "ORDER BY \"name\"""##,
    r##"
"classpath:application.yml",
        "file:./config/application.yml"
    })
"##,
    r##"
// Retry policy per https://docs.aws.amazon.com/general/latest/gr/api-retries.html
logger.warn("Attempt {}/{} for \"{}\" failed: {}", attempt, max, key, e.getMessage());
"##,
    r##"
ProcessBuilder pb = new ProcessBuilder("bash", "-c", "find . -name '*.java' -newer \"" + marker + "\" | wc -l");
pb.redirectErrorStream(true);
Process p = pb.start();
"##,
    r##"
return switch (c) {
    case '"' -> "&quot;";
    case '&' -> "&amp;";
    case '<' -> "&lt;";
    case '>' -> "&gt;";
    default -> String.valueOf(c);
};
"##,
    r##"
public record ToolCall(
    @JsonProperty("name") String name,
    @JsonProperty("arguments") Map<String, String> arguments) {}
"##,
];

const PROSE_FRESH: &[&str] = &[
    r##"The reviewer wrote "LGTM" but the build was still red."##,
    r##"
Escape "\" in Windows paths before writing the config

Paths like C:\Users\dev were written as they were, so the reader saw "\U"
as an escape. We now double every backslash.
"##,
    r##"
Hi Sam,

Quick update: the "final" numbers are in the shared folder
(https://drive.example.com/q3-report). Let me know if "Q3 revenue" should
include refunds.

Thanks,
Priya
"##,
    r##"The deploy finished at 14:05 UTC; no errors were reported."##,
    r##"When asked about the delay, the vendor only said "soon""##,
    r##""Why does it say 'null'?" is the question we get most often."##,
    r##"Der Kunde schrieb: "Die Lieferung kam zu spät — bitte um Rückruf." Ticket #4821."##,
    r##"Send {"command": "restart", "description": "nightly"} to the control endpoint; the reply is "ok" or an error."##,
    r##"
1. Open https://console.example.com/settings#api and click "New key".
2. Name it "ci-bot" and choose "Read only".
3. Copy the key; it is shown only once.
"##,
    r##"
"Is the migration safe to re-run?" she asked.
"Yes," said Tom, "as long as you pass --resume."
"##,
    r##"The log line looks like "%s: %d bytes" and the second field is always zero."##,
    r##"Put the license file in "C:\ProgramData\Acme\license.key" (create the folder if it does not exist)."##,
    r##"Click “Export”, then choose "CSV (comma-separated)" from the list."##,
    r##"
Release notes draft

This release renames the "sync" command to "push" and adds a "pull"
command. Scripts that call "acme sync" keep working for now but print a
warning. The config key "remote_url" is now "remote"; the old key is read
if the new one is missing.
"##,
    r##"Lines starting with "//" are ignored, but "#" starts a heading."##,
];

const MARKDOWN_FRESH: &[&str] = &[
    r##"
Create the env file:

```sh
cat > .env <<'EOF'
DATABASE_URL="postgres://app:secret@localhost:5432/app"
EOF
```
"##,
    r##"
## Installation

```bash
npm install --save @acme/sdk
```

Then create a client:

```ts
import { Client } from "@acme/sdk";
const client = new Client({ apiKey: process.env.ACME_KEY });
```
"##,
    r##"
| Option | Default | Description |
|--------|---------|-------------|
| `path` | `"."` | Root directory to scan |
| `exclude` | `["node_modules"]` | Globs to skip, e.g. `"**/*.min.js"` |
| `format` | `"text"` | `"text"` or `"json"` |
"##,
    r##"See the [migration guide](https://example.com/docs/migrate#v3 "Migrating to v3") and the [FAQ](./FAQ.md)."##,
    r##"
> **Warning**
> Running `make clean` deletes `./dist` and `./.cache`. Type "yes" when asked.
"##,
    r##"
## Changelog

### 1.4.0 - 2024-05-02

- Faster startup on large repositories.
- `--watch` now ignores `.git/`.
"##,
    r##"
Example request body:

```json
{
  "path": "docs/index.md",
  "content": "# Hello\n\nFirst \"draft\".",
  "description": "Create the docs index"
}
```
"##,
    r##"
On Windows the config lives in `%APPDATA%\acme\config.toml` (usually
`C:\Users\<you>\AppData\Roaming\acme\config.toml`). To set it:

```powershell
Set-Content -Path "$env:APPDATA\acme\config.toml" -Value 'theme = "dark"'
```
"##,
    r##"
<p align="center">
  <img src="docs/logo.svg" alt="Acme logo" width="160">
</p>

[![CI](https://github.com/acme/tool/actions/workflows/ci.yml/badge.svg)](https://github.com/acme/tool/actions)
"##,
    r##"Le fichier “config.yaml” doit contenir `version: 2` — voir « Démarrage » et la clé "name"."##,
    r##"Set `NODE_OPTIONS` to "--max-old-space-size=4096""##,
    r##"
"It works on my machine" is not a bug report. Please include:

1. the exact command you ran,
2. the full output, in a code block,
3. your OS and `node --version`.
"##,
    r##"
## Roadmap

- [x] Parse `"key": value` pairs
- [ ] Support `#` comments (see #142)
- [ ] Windows paths like `C:\temp\x`
"##,
    r##"
<details>
<summary>Why not use "strict" mode?</summary>

Strict mode rejects trailing commas[^1].

</details>

[^1]: See the [JSON5 spec](https://spec.json5.org/#arrays).
"##,
    r##"
1. Load the data:

   ```python
   df = pd.read_csv("data.csv", sep=";", encoding="utf-8")
   print(df["price"].mean())
   ```

2. Plot it with `df.plot(x="date", y="price")`.
"##,
    r##"
---
title: "Deploying with \"zero\" downtime"
date: 2024-03-18
tags: ["ops", "k8s"]
---

# Deploying with "zero" downtime
"##,
];
