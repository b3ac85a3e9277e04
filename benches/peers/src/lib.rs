//! Workloads shared by the `peers` criterion group (`benches/peers.rs`), the
//! cross-language timing harness (`examples/timing.rs`) and the fixture
//! writer (`examples/fixtures.rs`).
//!
//! Every workload is a list of cases, each a valid JSON document and its
//! malformed twin (the same value written the way models break it, or cut
//! short). The API documents and the 192-byte tool call come from the main
//! crate's generator, `benches/fixtures.rs`, so these benches see the same
//! bytes as `benches/repair.rs`; the 100–400-byte tool calls and the 50 KB
//! `write_file` call are made here.

#[path = "../../fixtures.rs"]
pub mod fixtures;

use fixtures::{Rng, Twin};

/// The seed of every generated document (the same as `benches/repair.rs`).
pub const SEED: u64 = 0x5EED_1234;

/// Chunk size of the stream workloads.
pub const CHUNK: usize = 16;

/// A named list of cases.
pub struct Workload {
    /// The id used in bench names and file names (`api_100k`).
    pub name: &'static str,
    /// The cases, timed together; per-call numbers divide by their count.
    pub cases: Vec<Twin>,
}

impl Workload {
    fn one(name: &'static str, twin: Twin) -> Self {
        Workload {
            name,
            cases: vec![twin],
        }
    }

    /// Total bytes of the valid (`malformed == false`) or malformed cases.
    pub fn bytes(&self, malformed: bool) -> usize {
        self.cases
            .iter()
            .map(|t| {
                if malformed {
                    t.malformed.len()
                } else {
                    t.valid.len()
                }
            })
            .sum()
    }
}

/// Every workload, smallest first.
pub fn all() -> Vec<Workload> {
    all_names().iter().filter_map(|n| by_name(n)).collect()
}

/// One workload by name (generating `api_10m` takes a while: build only
/// what is asked for).
pub fn by_name(name: &str) -> Option<Workload> {
    let name = *all_names().iter().find(|n| **n == name)?;
    Some(match name {
        "tool_calls_100_400b" => Workload {
            name,
            cases: tool_calls(),
        },
        "tool_call_200b" => Workload::one(name, fixtures::tool_call()),
        "write_file_50k" => Workload::one(name, write_file(50_000, SEED)),
        "api_1k" => Workload::one(name, fixtures::api_doc(1_000, SEED)),
        "api_100k" => Workload::one(name, fixtures::api_doc(100_000, SEED)),
        "api_10m" => Workload::one(name, fixtures::api_doc(10_000_000, SEED)),
        _ => unreachable!("every name of all_names() is matched"),
    })
}

/// The names of every workload, smallest first.
pub fn all_names() -> &'static [&'static str] {
    &[
        "tool_call_200b",
        "tool_calls_100_400b",
        "api_1k",
        "write_file_50k",
        "api_100k",
        "api_10m",
    ]
}

fn twin(valid: &str, malformed: &str) -> Twin {
    Twin {
        valid: valid.as_bytes().to_vec(),
        malformed: malformed.as_bytes().to_vec(),
    }
}

/// Eight tool-call arguments of 100 to 400 bytes, one family of mistakes
/// each: single quotes, unquoted keys, trailing commas, Python literals,
/// comments, a markdown fence with mixed mistakes, and two truncations (inside
/// a string, and before the closing brace). The valid twin of a truncation is
/// the value with what was cut closed.
pub fn tool_calls() -> Vec<Twin> {
    vec![
        // Single quotes (with an escaped apostrophe and a raw double quote inside).
        twin(
            r#"{"command": "ls -la /tmp && du -sh \"/tmp/cache\"", "timeout": 30, "description": "List the temp dir; it's safe to run", "run_in_background": false}"#,
            r#"{'command': 'ls -la /tmp && du -sh "/tmp/cache"', 'timeout': 30, 'description': 'List the temp dir; it\'s safe to run', 'run_in_background': false}"#,
        ),
        // Unquoted keys.
        twin(
            r#"{"query": "rust streaming json repair crate", "max_results": 10, "include_domains": ["docs.rs", "crates.io", "github.com"], "safe_search": "moderate", "freshness": "month", "exclude_domains": ["pinterest.com"], "region": "en-US", "summarize": true, "max_tokens_per_page": 2048}"#,
            r#"{query: "rust streaming json repair crate", max_results: 10, include_domains: ["docs.rs", "crates.io", "github.com"], safe_search: "moderate", freshness: "month", exclude_domains: ["pinterest.com"], region: "en-US", summarize: true, max_tokens_per_page: 2048}"#,
        ),
        // Trailing commas.
        twin(
            r#"{"todos": [{"id": "1", "content": "Write the failing test", "status": "completed"}, {"id": "2", "content": "Fix the parser", "status": "in_progress"}, {"id": "3", "content": "Update the changelog", "status": "pending"}, {"id": "4", "content": "Run the benches on 2 cores", "status": "pending"}, {"id": "5", "content": "Open the pull request", "status": "pending"}]}"#,
            r#"{"todos": [{"id": "1", "content": "Write the failing test", "status": "completed",}, {"id": "2", "content": "Fix the parser", "status": "in_progress",}, {"id": "3", "content": "Update the changelog", "status": "pending",}, {"id": "4", "content": "Run the benches on 2 cores", "status": "pending",}, {"id": "5", "content": "Open the pull request", "status": "pending",},],}"#,
        ),
        // Python literals.
        twin(
            r#"{"file_path": "/srv/app/settings.py", "offset": null, "limit": 200, "recursive": true, "follow_symlinks": false, "encoding": null, "show_line_numbers": true}"#,
            r#"{"file_path": "/srv/app/settings.py", "offset": None, "limit": 200, "recursive": True, "follow_symlinks": False, "encoding": None, "show_line_numbers": True}"#,
        ),
        // Comments.
        twin(
            r#"{"path": "README.md", "pattern": "version = \"0\\.1\\.0\"", "replacement": "version = \"0.2.0\"", "count": 1}"#,
            "{\n  // the file to edit\n  \"path\": \"README.md\",\n  /* escaped dots: a regex */\n  \"pattern\": \"version = \\\"0\\\\.1\\\\.0\\\"\",\n  \"replacement\": \"version = \\\"0.2.0\\\"\", // bump\n  \"count\": 1\n}",
        ),
        // A fence around mixed mistakes (benches/fixtures.rs `tool_call`).
        fixtures::tool_call(),
        // Truncated inside a string.
        twin(
            r##"{"path": "docs/notes.md", "content": "# Release notes\n\n- Streaming repair of tool-call arguments\n- Snapshots after every chunk\n- The quick brown fox jumps over the"}"##,
            r##"{"path": "docs/notes.md", "content": "# Release notes\n\n- Streaming repair of tool-call arguments\n- Snapshots after every chunk\n- The quick brown fox jumps over the"##,
        ),
        // Truncated before the closing brace.
        twin(
            r#"{"cmd": "grep", "args": ["-rn", "--include=*.rs", "TODO", "src/"], "env": {"LC_ALL": "C", "GREP_COLORS": "mt=01;31"}, "cwd": "/work", "timeout_ms": 1500}"#,
            r#"{"cmd": "grep", "args": ["-rn", "--include=*.rs", "TODO", "src/"], "env": {"LC_ALL": "C", "GREP_COLORS": "mt=01;31"}, "cwd": "/work", "timeout_ms": 1500"#,
        ),
    ]
}

/// Source-code-like lines: string literals with `"` and `\`, `'`, tabs.
const CODE: &[&str] = &[
    "let name = \"Zoë \\\"the\\\" admin\";",
    "println!(\"{} => {:?}\", key, value);",
    "if line.contains('\"') { return Err(format!(\"bad quote in {:?}\", line)); }",
    "let path = \"C:\\\\Users\\\\admin\\\\config.toml\";",
    "// TODO: it's quadratic when the buffer grows; see #1234",
    "let re = Regex::new(r\"^\\s*(\\d+)\\s*$\").unwrap();",
    "\tbuf.push_str(\"\\n\\t\");",
    "let json = r#\"{\"a\": [1, 2, 3], \"b\": null}\"#;",
    "assert_eq!(parse(\"'x'\"), Some('x'));",
    "let total: u64 = items.iter().map(|i| i.len() as u64).sum();",
    "match c { '\\\\' => escaped = true, '\"' if !escaped => break, _ => {} }",
    "eprintln!(\"warning: {path}: {err}\");",
];

/// A `write_file` call whose `content` is about `target` bytes of Rust-like
/// source (escaped quotes, backslashes, newlines and tabs in the valid form).
///
/// The malformed twin: unquoted keys, a single-quoted path, `True`, a
/// trailing comma, and the content written with raw line breaks and tabs
/// instead of `\n` and `\t` (its quotes and backslashes stay escaped).
pub fn write_file(target: usize, seed: u64) -> Twin {
    let mut rng = Rng::new(seed ^ 0x77_7269_7465);
    let mut code = String::with_capacity(target + 256);
    let mut f = 0;
    while code.len() < target {
        code.push_str(&format!(
            "/// Handles case {f}: \"quoted\" docs.\npub fn handler_{f}(input: &str) -> Result<String, Error> {{\n"
        ));
        for _ in 0..(3 + rng.below(8)) {
            code.push_str("    ");
            code.push_str(rng.pick(CODE));
            code.push('\n');
        }
        code.push_str("    Ok(input.to_owned())\n}\n\n");
        f += 1;
    }
    let escaped = escape(&code, false);
    let raw_breaks = escape(&code, true);
    let valid = format!(
        "{{\"path\": \"src/handlers.rs\", \"content\": {escaped}, \"create_dirs\": true, \"mode\": \"0644\"}}"
    );
    let malformed = format!(
        "{{path: 'src/handlers.rs', content: {raw_breaks}, create_dirs: True, mode: '0644',}}"
    );
    Twin {
        valid: valid.into_bytes(),
        malformed: malformed.into_bytes(),
    }
}

/// `s` as a double-quoted JSON string; with `raw_breaks`, line breaks and
/// tabs are left raw (the mistake) instead of written `\n` and `\t`.
fn escape(s: &str, raw_breaks: bool) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8 + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' | '\t' if raw_breaks => out.push(c),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Prefix ends of a stream of `len` bytes in `CHUNK`-byte chunks: the byte
/// count after each chunk.
pub fn prefix_ends(len: usize) -> impl Iterator<Item = usize> {
    (1..=len.div_ceil(CHUNK)).map(move |i| (i * CHUNK).min(len))
}
