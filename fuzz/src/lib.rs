//! The properties the fuzz targets check, as plain functions.
//!
//! The targets in `fuzz_targets/` call these and panic on `Err`; the stable
//! replay test (`tests/fuzz_seeds.rs` in the main crate) includes this very
//! file with `#[path]` and runs the same checks over the seed files, so a
//! seed that passes there passes here. Only `argmend` and `serde_json` are
//! used, the dependencies both crates have.

#![allow(dead_code)] // the replay test does not use every helper

use argmend::{Fix, Hints, Options, Repairer, Verdict};

mod formats;
mod stream;
pub use self::formats::{check_call_format, split_call_format_input};
pub use self::stream::{check_tool_stream, merge_deltas};

/// What a run produced, for comparing one-shot and chunked runs.
#[derive(Debug, PartialEq, Eq)]
pub struct Run {
    /// The final text.
    pub text: String,
    /// The verdict.
    pub verdict: Verdict,
    /// The fixes.
    pub fixes: Vec<Fix>,
}

/// Whether `text` is one JSON value (per serde_json).
///
/// Two serde_json refusals are limits of the parser, not of JSON: it stops at
/// 128 nested containers (argmend allows 512 by default), and it refuses
/// numbers outside `f64` (`1e400`) when building a `Value`. For those two the
/// grammar is checked by [`strict_json`] instead.
pub fn parses(text: &str) -> Result<(), String> {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(_) => Ok(()),
        Err(e)
            if e.to_string().starts_with("recursion limit exceeded")
                || e.to_string().starts_with("number out of range") =>
        {
            strict_json(text)
        }
        Err(e) => Err(e.to_string()),
    }
}

/// The one-shot target: `repair` never panics; unless the verdict is
/// `NotJson` the text parses; a `Valid` verdict returns the input byte for
/// byte; and input serde_json accepts as one value is judged `Valid`.
pub fn check_oneshot(input: &[u8]) -> Result<(), String> {
    let outcome = argmend::repair(input);
    if outcome.verdict() != Verdict::NotJson {
        parses(outcome.text()).map_err(|e| {
            format!(
                "verdict {} but the text does not parse ({e}): {:?}",
                outcome.verdict(),
                outcome.text()
            )
        })?;
    }
    if outcome.verdict() == Verdict::Valid && outcome.text().as_bytes() != input {
        return Err(format!(
            "verdict valid but the text is not the input: {:?}",
            outcome.text()
        ));
    }
    if serde_json::from_slice::<serde_json::Value>(input).is_ok() {
        if outcome.verdict() != Verdict::Valid {
            return Err(format!(
                "serde_json accepts the input but the verdict is {} (fixes {:?})",
                outcome.verdict(),
                outcome.fixes()
            ));
        }
        if outcome.text().as_bytes() != input {
            return Err(format!("valid input changed: {:?}", outcome.text()));
        }
    }
    Ok(())
}

/// Splits a fuzz input for the chunked target: byte 0 says how many of the
/// following bytes (`byte0 % 8`) are chunk lengths (`byte % 17`, so 0–16; 0
/// feeds an empty chunk); the rest is the JSON input. No length bytes means
/// one byte at a time.
pub fn split_fuzz_input(data: &[u8]) -> (Vec<usize>, &[u8]) {
    let Some((&first, rest)) = data.split_first() else {
        return (vec![1], data);
    };
    let k = usize::from(first % 8).min(rest.len());
    let lengths: Vec<usize> = rest[..k].iter().map(|&b| usize::from(b % 17)).collect();
    let lengths = if lengths.iter().all(|&n| n == 0) {
        vec![1]
    } else {
        lengths
    };
    (lengths, &rest[k..])
}

/// Cuts `input` into chunks whose lengths cycle through `lengths` (at least
/// one must be non-zero); the last chunk may be shorter.
pub fn chunks<'a>(input: &'a [u8], lengths: &[usize]) -> Vec<&'a [u8]> {
    assert!(
        lengths.iter().any(|&n| n > 0),
        "chunk lengths must not all be 0"
    );
    let mut out = Vec::new();
    let mut at = 0;
    for &n in lengths.iter().cycle() {
        if at >= input.len() {
            break;
        }
        let end = (at + n).min(input.len());
        out.push(&input[at..end]);
        at = end;
    }
    out
}

/// The keys the chunked target's hinted runs declare: tool fields and the
/// short names fuzz inputs are likely to hold.
pub const HINTED_KEYS: [&str; 8] = [
    "a", "b", "k", "path", "content", "command", "old_str", "new_str",
];

/// The chunked target on a raw fuzz input (header, then JSON). Bit 3 of the
/// header byte runs it with [`HINTED_KEYS`] as the engine's hints.
pub fn check_chunked_fuzz(data: &[u8]) -> Result<(), String> {
    let (lengths, input) = split_fuzz_input(data);
    let hints = data
        .first()
        .is_some_and(|&b| b & 0x08 != 0)
        .then(|| Hints::from_fields(HINTED_KEYS));
    check_chunked_with(input, &chunks(input, &lengths), hints.as_ref())
}

/// [`check_chunked_with`] without hints.
pub fn check_chunked(input: &[u8], pieces: &[&[u8]]) -> Result<(), String> {
    check_chunked_with(input, pieces, None)
}

/// Feeding `pieces` (whose concatenation is `input`) gives the same text,
/// verdict and fixes as one-shot (or the same limit error); the outputs of
/// `feed` concatenate to a prefix of the final text; and after every chunk a
/// non-empty snapshot parses and starts with everything committed so far.
pub fn check_chunked_with(
    input: &[u8],
    pieces: &[&[u8]],
    hints: Option<&Hints>,
) -> Result<(), String> {
    debug_assert_eq!(pieces.concat(), input);
    let none = Hints::default();
    let hints = hints.unwrap_or(&none);
    let oneshot = argmend::repair_with_hints(input, Options::default(), hints).map(|o| Run {
        text: o.text().to_owned(),
        verdict: o.verdict(),
        fixes: o.fixes().to_vec(),
    });

    let mut repairer = Repairer::with_hints(Options::default(), hints.clone());
    let mut committed = String::new();
    let mut fed = 0;
    for (i, piece) in pieces.iter().enumerate() {
        match repairer.feed(piece) {
            Ok(newly) => committed.push_str(newly),
            Err(e) => {
                // A limit: the one-shot run must have hit the same one.
                return match &oneshot {
                    Err(one) if *one == e => Ok(()),
                    Err(one) => Err(format!(
                        "chunked error {e:?} differs from one-shot error {one:?}"
                    )),
                    Ok(_) => Err(format!("chunked run failed ({e}) where one-shot succeeded")),
                };
            }
        }
        fed += piece.len();
        let snapshot = repairer.snapshot().to_string();
        if !snapshot.is_empty() {
            parses(&snapshot).map_err(|e| {
                format!("snapshot after chunk {i} (byte {fed}) does not parse ({e}): {snapshot:?}")
            })?;
            if !snapshot.starts_with(&committed) {
                return Err(format!(
                    "snapshot after chunk {i} (byte {fed}) does not start with the committed output\n  committed: {committed:?}\n  snapshot:  {snapshot:?}"
                ));
            }
        }
    }
    let chunked = repairer.finish().map(|o| Run {
        text: o.text().to_owned(),
        verdict: o.verdict(),
        fixes: o.fixes().to_vec(),
    });
    match (&oneshot, &chunked) {
        (Ok(one), Ok(run)) => {
            if !run.text.starts_with(&committed) {
                return Err(format!(
                    "committed output is not a prefix of the final text\n  committed: {committed:?}\n  final:     {:?}",
                    run.text
                ));
            }
            if one != run {
                return Err(format!(
                    "chunked run differs from one-shot\n  one-shot: {one:?}\n  chunked:  {run:?}"
                ));
            }
            Ok(())
        }
        (Err(a), Err(b)) if a == b => Ok(()),
        _ => Err(format!("one-shot {oneshot:?} but chunked {chunked:?}")),
    }
}

/// A strict JSON validator without a depth limit or a number range (RFC
/// 8259, and like serde_json it refuses lone surrogates). Used only where
/// serde_json hits one of those limits.
pub fn strict_json(text: &str) -> Result<(), String> {
    let b = text.as_bytes();
    let mut i = 0;
    // The open containers: true for an object.
    let mut stack: Vec<bool> = Vec::new();
    let ws = |i: &mut usize| {
        while *i < b.len() && matches!(b[*i], b' ' | b'\t' | b'\n' | b'\r') {
            *i += 1;
        }
    };
    let err = |what: &str, at: usize| Err(format!("strict_json: {what} at byte {at}"));
    'value: loop {
        ws(&mut i);
        // A value.
        match b.get(i) {
            Some(b'{') | Some(b'[') => {
                let object = b[i] == b'{';
                i += 1;
                ws(&mut i);
                if b.get(i) == Some(if object { &b'}' } else { &b']' }) {
                    i += 1;
                } else {
                    stack.push(object);
                    if object {
                        if b.get(i) != Some(&b'"') {
                            return err("expected a key", i);
                        }
                        i = string(b, i)?;
                        ws(&mut i);
                        if b.get(i) != Some(&b':') {
                            return err("expected ':'", i);
                        }
                        i += 1;
                    }
                    continue 'value;
                }
            }
            Some(b'"') => i = string(b, i)?,
            Some(b't') if b[i..].starts_with(b"true") => i += 4,
            Some(b'f') if b[i..].starts_with(b"false") => i += 5,
            Some(b'n') if b[i..].starts_with(b"null") => i += 4,
            Some(b'-' | b'0'..=b'9') => i = number(b, i)?,
            _ => return err("expected a value", i),
        }
        // After a value: close containers or go on to the next element.
        loop {
            ws(&mut i);
            let Some(&object) = stack.last() else {
                return if i == b.len() {
                    Ok(())
                } else {
                    err("trailing characters", i)
                };
            };
            match b.get(i) {
                Some(b',') => {
                    i += 1;
                    if object {
                        ws(&mut i);
                        if b.get(i) != Some(&b'"') {
                            return err("expected a key", i);
                        }
                        i = string(b, i)?;
                        ws(&mut i);
                        if b.get(i) != Some(&b':') {
                            return err("expected ':'", i);
                        }
                        i += 1;
                    }
                    continue 'value;
                }
                Some(b'}') if object => {
                    i += 1;
                    stack.pop();
                }
                Some(b']') if !object => {
                    i += 1;
                    stack.pop();
                }
                _ => return err("expected ',' or a closer", i),
            }
        }
    }
}

/// Checks the string starting at `b[start] == '"'`; returns the index after it.
fn string(b: &[u8], start: usize) -> Result<usize, String> {
    let mut i = start + 1;
    let hex4 = |i: usize| -> Option<u16> {
        let digits = b.get(i..i + 4)?;
        let s = std::str::from_utf8(digits).ok()?;
        if !s.bytes().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        u16::from_str_radix(s, 16).ok()
    };
    loop {
        match b.get(i) {
            None => {
                return Err(format!(
                    "strict_json: unterminated string from byte {start}"
                ));
            }
            Some(b'"') => return Ok(i + 1),
            Some(&c) if c < 0x20 => {
                return Err(format!("strict_json: control character at byte {i}"));
            }
            Some(b'\\') => match b.get(i + 1) {
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i += 2,
                Some(b'u') => {
                    let unit =
                        hex4(i + 2).ok_or(format!("strict_json: bad \\u escape at byte {i}"))?;
                    i += 6;
                    if (0xDC00..0xE000).contains(&unit) {
                        return Err(format!(
                            "strict_json: lone trailing surrogate at byte {}",
                            i - 6
                        ));
                    }
                    if (0xD800..0xDC00).contains(&unit) {
                        let low = if b.get(i) == Some(&b'\\') && b.get(i + 1) == Some(&b'u') {
                            hex4(i + 2)
                        } else {
                            None
                        };
                        match low {
                            Some(low) if (0xDC00..0xE000).contains(&low) => i += 6,
                            _ => {
                                return Err(format!(
                                    "strict_json: lone leading surrogate at byte {}",
                                    i - 6
                                ));
                            }
                        }
                    }
                }
                _ => return Err(format!("strict_json: bad escape at byte {i}")),
            },
            Some(_) => i += 1,
        }
    }
}

/// Checks the number starting at `b[start]`; returns the index after it.
fn number(b: &[u8], start: usize) -> Result<usize, String> {
    let mut i = start;
    let digits = |i: &mut usize| {
        let from = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - from
    };
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return Err(format!("strict_json: bad number at byte {start}")),
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return Err(format!("strict_json: no digits after '.' at byte {i}"));
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return Err(format!("strict_json: no exponent digits at byte {i}"));
        }
    }
    Ok(i)
}

// ---------------------------------------------------------------------------
// Tool-aware normalization and the `@json` path and `where` parsers (issue 7).
// ---------------------------------------------------------------------------

/// The tool names the `normalize` target picks from (byte 0 of the input,
/// modulo the length): built-in tools with a primary field, `@coder` (command
/// lines), tools the table does not know, and an empty name.
pub const NORMALIZE_TOOLS: &[&str] = &[
    "read_file",
    "write_file",
    "@coder",
    "edit_file",
    "run_command",
    "search",
    "unknown_tool",
    "",
];

/// Splits a `normalize` fuzz input: byte 0 picks the tool from
/// [`NORMALIZE_TOOLS`], byte 1 the chunk length for the streaming run
/// (`byte % 17`, 0 meaning one byte at a time), the rest is the raw
/// arguments (read as UTF-8, lossily).
pub fn split_normalize_input(data: &[u8]) -> (&'static str, usize, String) {
    let tool =
        NORMALIZE_TOOLS[usize::from(data.first().copied().unwrap_or(0)) % NORMALIZE_TOOLS.len()];
    let chunk = match data.get(1).map(|&b| usize::from(b % 17)) {
        Some(0) | None => 1,
        Some(n) => n,
    };
    let raw = String::from_utf8_lossy(data.get(2..).unwrap_or(&[])).into_owned();
    (tool, chunk, raw)
}

/// The `normalize` target: `normalize_tool_args` never panics; unless the
/// verdict is `NotJson` the text parses; with `NotJson` the input comes back
/// untouched; and `ToolRepairer` fed in chunks gives the same `Normalized`.
pub fn check_normalize(tool: &str, raw: &str, chunk: usize) -> Result<(), String> {
    let normalized = argmend::normalize_tool_args(tool, raw);
    if normalized.verdict() == Verdict::NotJson {
        if normalized.text() != raw {
            return Err(format!(
                "verdict not_json but the text is not the input: {:?}",
                normalized.text()
            ));
        }
    } else {
        parses(normalized.text()).map_err(|e| {
            format!(
                "tool {tool:?}: verdict {} but the text does not parse ({e}): {:?}",
                normalized.verdict(),
                normalized.text()
            )
        })?;
    }
    let mut streaming = argmend::ToolRepairer::new(tool, argmend::ToolOptions::default());
    for piece in raw.as_bytes().chunks(chunk.max(1)) {
        streaming.feed(piece);
    }
    let streamed = streaming.finish();
    if streamed != normalized {
        return Err(format!(
            "tool {tool:?}: ToolRepairer in {chunk}-byte chunks differs from normalize_tool_args\n  one-shot: {normalized:?}\n  streamed: {streamed:?}"
        ));
    }
    Ok(())
}

/// The `normalize` target on a raw fuzz input: `normalize_tool_args` and
/// `ToolRepairer` ([`check_normalize`]), then `ToolCallStream`
/// ([`check_tool_stream`]).
pub fn check_normalize_fuzz(data: &[u8]) -> Result<(), String> {
    let (tool, chunk, raw) = split_normalize_input(data);
    check_normalize(tool, &raw, chunk)?;
    check_tool_stream(tool, &raw, chunk)
}

/// The document the `json_path` and `json_query` targets ask when the input
/// brings none.
pub const SAMPLE_DOC: &str = r#"[{"id": 1, "name": "a.b", "tags": ["x", "y"], "meta": {"owner": "bob", "n": 1.50}},
 {"id": 2, "name": "b c", "ok": true, "n": null, "meta": {"owner": "ann"}, "": {"k.e[y]": [0, -1e3]}},
 {"id": "3", "name": "Zoë", "tags": [], "deep": [[{"a": [1]}]]}]"#;

/// The input's fields, cut at each `0xFF` byte and read as UTF-8 lossily.
pub fn fields(data: &[u8]) -> Vec<String> {
    data.split(|&b| b == 0xFF)
        .map(|f| String::from_utf8_lossy(f).into_owned())
        .collect()
}

fn workspace() -> &'static argmend::tools::Workspace {
    static WORKSPACE: std::sync::OnceLock<argmend::tools::Workspace> = std::sync::OnceLock::new();
    WORKSPACE.get_or_init(|| {
        argmend::tools::Workspace::new(std::env::temp_dir()).expect("a workspace in the temp dir")
    })
}

/// Whether `doc` is JSON serde_json accepts (the tools then return spans of it).
fn strict_doc(doc: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(doc).is_ok()
}

/// The `json_path` target: `path`, then optionally `0xFF` and the document
/// (else [`SAMPLE_DOC`]). `get` and `keys` never panic; on a document
/// serde_json accepts, every value `get` returns parses, and its answer stays
/// near the output cap.
pub fn check_json_path(path: &str, doc: &str) -> Result<(), String> {
    use argmend::tools::json::{MAX_OUTPUT, Source, get, keys};
    let strict = strict_doc(doc);
    if let Ok(got) = get(workspace(), Source::Text(doc), path) {
        let shown = got.to_string();
        if shown.len() > MAX_OUTPUT + 1024 {
            return Err(format!(
                "get {path:?}: answer of {} bytes, over the cap",
                shown.len()
            ));
        }
        if strict {
            for m in got.matches() {
                parses(&m.json).map_err(|e| {
                    format!(
                        "get {path:?}: match {:?} does not parse ({e}): {:?}",
                        m.path, m.json
                    )
                })?;
            }
        }
    }
    if let Ok(found) = keys(workspace(), Source::Text(doc), path) {
        let _ = found.to_string();
    }
    Ok(())
}

/// The `json_path` target on a raw fuzz input.
pub fn check_json_path_fuzz(data: &[u8]) -> Result<(), String> {
    let (path, doc) = match data.iter().position(|&b| b == 0xFF) {
        Some(at) => (
            &data[..at],
            String::from_utf8_lossy(&data[at + 1..]).into_owned(),
        ),
        None => (data, SAMPLE_DOC.to_owned()),
    };
    check_json_path(&String::from_utf8_lossy(path), &doc)
}

/// The `json_query` target: fields cut at `0xFF`: the `where` filter, then
/// optionally the array's path, `select`, a limit byte (`% 8`, 0 for the
/// default) and the document (else [`SAMPLE_DOC`]). `query` never panics;
/// on success it shows at most `limit` rows, and on a document serde_json
/// accepts every row parses.
pub fn check_json_query(
    filter: &str,
    path: &str,
    select: Option<&str>,
    limit: usize,
    doc: &str,
) -> Result<(), String> {
    use argmend::tools::json::{DEFAULT_LIMIT, Query, Source, query};
    let mut q = Query::new(filter).path(path);
    if let Some(select) = select {
        q = q.select(select);
    }
    if limit > 0 {
        q = q.limit(limit);
    }
    let limit = if limit > 0 { limit } else { DEFAULT_LIMIT };
    if let Ok(matched) = query(workspace(), Source::Text(doc), &q) {
        let _ = matched.to_string();
        if matched.rows().len() > limit {
            return Err(format!(
                "query {filter:?}: {} rows shown with limit {limit}",
                matched.rows().len()
            ));
        }
        if matched.n_matched() > matched.n_elements() {
            return Err(format!(
                "query {filter:?}: {} matched of {} elements",
                matched.n_matched(),
                matched.n_elements()
            ));
        }
        if strict_doc(doc) {
            for row in matched.rows() {
                parses(&row.json).map_err(|e| {
                    format!(
                        "query {filter:?}: row {} does not parse ({e}): {:?}",
                        row.index, row.json
                    )
                })?;
            }
        }
    }
    Ok(())
}

/// The `json_query` target on a raw fuzz input.
pub fn check_json_query_fuzz(data: &[u8]) -> Result<(), String> {
    let f = fields(data);
    let filter = f[0].as_str();
    let path = f.get(1).map_or("", String::as_str);
    let select = f.get(2).map(String::as_str).filter(|s| !s.is_empty());
    let limit = f
        .get(3)
        .and_then(|s| s.bytes().next())
        .map_or(0, |b| usize::from(b % 8));
    let doc = f.get(4).map_or(SAMPLE_DOC, String::as_str);
    check_json_query(filter, path, select, limit, doc)
}

/// The `json_yaml` target: the input is YAML (or anything) given as `text`
/// to `@json` and `@diff json`. Nothing panics; whatever `validate` calls
/// valid, `pretty` renders as JSON serde_json accepts (the YAML reader
/// writes JSON itself, so this checks its escaping, numbers and merges),
/// and a document compared with itself has no differences.
pub fn check_json_yaml_fuzz(data: &[u8]) -> Result<(), String> {
    use argmend::tools::json::{Layout, Source, pretty, validate};
    let text = String::from_utf8_lossy(data);
    // `@diff json` reads inline text with a newline as YAML.
    let yaml = format!("{text}\n");
    let Ok(answer) = validate(workspace(), Source::Text(&yaml)) else {
        return Ok(());
    };
    if !answer.is_valid() {
        return Ok(());
    }
    let Ok(compact) = pretty(workspace(), Source::Text(&yaml), Layout::Compact) else {
        return Err(format!("valid, but pretty refused it: {yaml:?}"));
    };
    if compact.len() < 20_000 {
        let text = compact.to_string();
        let json = text.lines().next().unwrap_or_default();
        // serde_json refuses numbers past f64 (`1e400`), which JSON's
        // grammar allows and YAML digits keep, nesting past 128 levels,
        // which @json allows to 512, and lone surrogate escapes (`"\udccc"`,
        // JSON text that JSON's grammar allows and @json keeps as written):
        // only other errors count.
        if let Err(error) = serde_json::from_str::<serde_json::Value>(json)
            && !error.to_string().starts_with("number out of range")
            && !error.to_string().starts_with("recursion limit exceeded")
            && !error.to_string().contains("surrogate")
        {
            return Err(format!(
                "the YAML reader wrote invalid JSON {json:?}: {error}"
            ));
        }
    }
    match argmend::tools::diff::diff_json(workspace(), &yaml, &yaml) {
        Ok(diff) if diff.is_identical() => Ok(()),
        Ok(diff) => Err(format!("a document differs from itself: {diff}")),
        Err(error) => Err(format!("valid for @json, refused by @diff json: {error}")),
    }
}

/// The `workspace_paths` target (issue 26): the input builds a small tree of
/// directories, files, links and a socket in a fresh temp directory (a
/// workspace root `ws` beside a directory `outside` holding a secret),
/// optionally with a chain of directories deeper than PATH_MAX, then names
/// paths in it. Every path goes through `Workspace::resolve` and
/// `resolve_for_write` and is compared with a model of the tree kept in
/// memory: an answer is inside the root (no link, no `..` in it, on the model
/// and, where the path is short, on the disk through `symlink_metadata`), it
/// is the place the model reaches, and a path the model sees leading out of
/// the root, or into version-control metadata for a write, is refused.
#[cfg(unix)]
pub fn check_workspace_paths(data: &[u8]) -> Result<(), String> {
    workspace_paths::check(data)
}

/// The `workspace_paths` target needs Unix links and sockets.
#[cfg(not(unix))]
pub fn check_workspace_paths(_data: &[u8]) -> Result<(), String> {
    Ok(())
}

/// The tree, its model, and the model's walk for [`check_workspace_paths`].
///
/// The input, read a byte at a time (0 once it runs out):
///
/// - byte 0, flags: the deep chain, read from the next two bytes
///   (`4 + b % 20` levels, names `16 + b % 240` bytes long) when bits 0-1
///   are `01`;
/// - `b % 24` operations: the kind (`% 8`: a directory (0, 1), a file (2),
///   a link (3-5), two links to each other (6), a socket (7)), the parent
///   (one of the directories below the root), the name, then for a link 3
///   bytes of target (its kind `% 12`, two arguments), for two links the
///   second name;
/// - `b % 24` paths: flags (`% 8` the start: relative (0-3), the root,
///   `outside`, the outer directory, `/`; bit 3 a node's path next; bit 4 a
///   trailing slash), then `b % 6` names.
///
/// Every run also tries, for each node below the root, its path, a new file
/// beneath it and its absolute path (only the path in the deep chain), and a
/// fixed list of paths in and out.
#[cfg(unix)]
mod workspace_paths {
    use std::collections::{BTreeMap, VecDeque};
    use std::fmt::Write as _;
    use std::path::{Component, Path, PathBuf};
    use std::sync::atomic::{AtomicUsize, Ordering};

    use argmend::tools::{PROTECTED_DIRS, Workspace, WorkspaceError, WorkspaceErrorKind as K};

    /// The outer temp dir, the workspace root inside it, and its sibling.
    const OUTER: usize = 0;
    const ROOT: usize = 1;
    const OUTSIDE: usize = 2;
    /// Links a walk follows before it is refused: the kernel's `ELOOP`
    /// bound, argmend's, and glibc `realpath`'s.
    const MAX_LINKS: usize = 40;
    /// A path this long is reached through a shorter route (a link) to
    /// create what is beneath it, and is not checked on the disk with std.
    const SHORT: usize = 2500;
    /// A `realpath` whose working path grows past this may fail (PATH_MAX is
    /// 4,096 bytes): both answers are allowed then.
    const NEAR_PATH_MAX: usize = 3500;
    /// Nodes whose paths every run tries.
    const AUTO_NODES: usize = 40;
    /// Names [`name_of`] knows before the generic `n<i>`.
    const NAMES: usize = 20;

    /// The names the tree and the paths are made of: version-control
    /// metadata as file systems that fold case or ignore characters read it,
    /// near misses, a 255-byte name and a 300-byte one (too long to exist).
    fn name_of(i: usize) -> String {
        let name = match i {
            0 => "a",
            1 => "b",
            2 => "c",
            3 => "d",
            4 => "x.txt",
            5 => ".git",
            6 => ".GIT",
            7 => ".g\u{200c}it",
            8 => ".git.",
            9 => "GIT~1",
            10 => ".hg",
            11 => ".svn",
            12 => ".jj",
            13 => ".github",
            14 => "config",
            15 => "...",
            16 => "new",
            17 => "a b",
            18 => return "l".repeat(255),
            19 => return "m".repeat(300),
            _ => return format!("n{i}"),
        };
        name.to_owned()
    }

    /// The input, a byte at a time; 0 once it is used up.
    struct Bytes<'a> {
        data: &'a [u8],
        at: usize,
    }

    impl Bytes<'_> {
        fn next(&mut self) -> u8 {
            let byte = self.data.get(self.at).copied().unwrap_or(0);
            self.at = self.at.saturating_add(1);
            byte
        }

        fn pick(&mut self, n: usize) -> usize {
            usize::from(self.next()) % n.max(1)
        }
    }

    enum Kind {
        Dir(BTreeMap<String, usize>),
        File,
        Link(PathBuf),
        /// A socket: neither a file nor a directory, like a FIFO.
        Special,
    }

    struct Node {
        name: String,
        parent: usize,
        kind: Kind,
        /// For a directory: a path short enough to create things beneath it
        /// (through a link when the real path is long).
        fs: Option<PathBuf>,
        /// The length of the real absolute path.
        abs_len: usize,
        /// Below the root (or the root itself).
        in_root: bool,
        /// A level of the deep chain (its paths are not tried one by one).
        level: bool,
    }

    enum Make {
        Dir,
        File,
        Link(PathBuf),
        Socket,
    }

    /// One answer argmend may give.
    #[derive(Debug, Clone, PartialEq)]
    enum Outcome {
        /// The place (names below the root) and the link the path's own last
        /// name is, if it is one.
        Ok {
            rel: Vec<String>,
            leaf_link: Option<Vec<String>>,
        },
        Err(K),
    }

    /// What `realpath` makes of an absolute path, on the model.
    enum Canon {
        /// A place in the root (these names below it).
        Inside(Vec<String>),
        /// Missing, or not in the root.
        NotInside,
        /// In the root if `realpath` copes with its length, else a failure.
        Maybe(Vec<String>),
        /// Beyond what the model knows.
        Unknown,
    }

    struct Tree {
        outer: PathBuf,
        root: PathBuf,
        outer_names: Vec<String>,
        root_names: Vec<String>,
        nodes: Vec<Node>,
        deep: bool,
    }

    static COUNTER: AtomicUsize = AtomicUsize::new(0);

    pub(super) fn check(data: &[u8]) -> Result<(), String> {
        let base = std::env::temp_dir()
            .canonicalize()
            .map_err(|e| format!("the temp dir: {e}"))?;
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let outer = base.join(format!("argmend-wsfuzz-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&outer);
        let result = Tree::build(outer.clone(), data).and_then(|(tree, paths)| {
            let result = tree.check_all(&paths);
            result.map_err(|failure| tree.failure(&failure))
        });
        let cleaned = std::fs::remove_dir_all(&outer);
        result?;
        cleaned.map_err(|e| format!("removing {}: {e}", outer.display()))
    }

    fn normal_names(path: &Path) -> Vec<String> {
        path.components()
            .filter_map(|part| match part {
                Component::Normal(name) => Some(name.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect()
    }

    /// `base` and then `part`, with one slash between.
    fn push_part(s: &mut String, part: &str) {
        if !s.is_empty() && !s.ends_with('/') && !part.is_empty() {
            s.push('/');
        }
        s.push_str(part);
    }

    /// `anchor/names…`: a route to a deep directory through a link.
    fn route(anchor: &str, since: &[String]) -> PathBuf {
        let mut s = anchor.to_owned();
        for name in since {
            push_part(&mut s, name);
        }
        PathBuf::from(s)
    }

    /// Whether names below the root pass through version-control metadata,
    /// as argmend reads them (case folded, ignorable characters dropped,
    /// trailing dots and spaces trimmed).
    fn protected(names: &[String]) -> bool {
        names.iter().any(|name| {
            // An ASCII character outside these names stays in the folded
            // name: the deep chain's long names are ruled out at once.
            if name
                .bytes()
                .any(|b| b.is_ascii() && !b".gitGIThHsSvVnNjJ~1 ".contains(&b))
            {
                return false;
            }
            let folded: String = name
                .chars()
                .filter(|c| {
                    !matches!(c,
                        '\u{200B}'..='\u{200F}'
                        | '\u{202A}'..='\u{202E}'
                        | '\u{206A}'..='\u{206F}'
                        | '\u{FEFF}'
                        | '\u{00AD}')
                })
                .flat_map(char::to_lowercase)
                .collect();
            let folded = folded.trim_end_matches(['.', ' ']);
            PROTECTED_DIRS.contains(&folded) || folded == "git~1"
        })
    }

    /// `resolve`'s answer as `resolve_for_write` gives it.
    fn for_write(outcome: &Outcome) -> Outcome {
        match outcome {
            Outcome::Ok { rel, leaf_link }
                if protected(rel) || leaf_link.as_deref().is_some_and(protected) =>
            {
                Outcome::Err(K::Protected)
            }
            other => other.clone(),
        }
    }

    /// Runs of 8 or more of one character (the deep chain's long names) as
    /// `x{n}`, so a failure stays readable.
    fn abbreviate(text: &str) -> String {
        let mut out = String::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            let mut n = 1;
            while chars.peek() == Some(&c) {
                chars.next();
                n += 1;
            }
            if n >= 8 {
                let _ = write!(out, "{c}{{{n}}}");
            } else {
                out.extend(std::iter::repeat_n(c, n));
            }
        }
        out
    }

    impl Tree {
        fn build(outer: PathBuf, data: &[u8]) -> Result<(Tree, Vec<PathBuf>), String> {
            std::fs::create_dir(&outer).map_err(|e| format!("{}: {e}", outer.display()))?;
            let root = outer.join("ws");
            let mut tree = Tree {
                outer_names: normal_names(&outer),
                root_names: normal_names(&root),
                root,
                nodes: vec![Node {
                    name: String::new(),
                    parent: OUTER,
                    kind: Kind::Dir(BTreeMap::new()),
                    fs: Some(outer.clone()),
                    abs_len: outer.as_os_str().len(),
                    in_root: false,
                    level: false,
                }],
                outer,
                deep: false,
            };
            let root = tree.make(OUTER, "ws", Make::Dir);
            let outside = tree.make(OUTER, "outside", Make::Dir);
            if root != Some(ROOT) || outside != Some(OUTSIDE) {
                return Err("cannot create the root and its sibling".into());
            }
            tree.make(OUTSIDE, "secret", Make::File);
            tree.make(OUTSIDE, "sub", Make::Dir);
            tree.make(OUTSIDE, "back", Make::Link(tree.root.clone()));
            tree.make(OUTSIDE, "back2", Make::Link("../ws".into()));

            let mut bytes = Bytes { data, at: 0 };
            let flags = bytes.next();
            if flags & 3 == 1 {
                let levels = 4 + bytes.pick(20);
                let len = 16 + bytes.pick(240);
                tree.deep_chain(levels, len);
            }
            for _ in 0..bytes.pick(24) {
                let kind = bytes.next() % 8;
                let dirs: Vec<usize> = (0..tree.nodes.len())
                    .filter(|&i| tree.nodes[i].in_root && tree.nodes[i].fs.is_some())
                    .collect();
                let parent = dirs[bytes.pick(dirs.len())];
                let name = name_of(bytes.pick(40));
                match kind {
                    0 | 1 => {
                        tree.make(parent, &name, Make::Dir);
                    }
                    2 => {
                        tree.make(parent, &name, Make::File);
                    }
                    3..=5 => {
                        let target = tree.target(&mut bytes, parent, &name);
                        tree.make(parent, &name, Make::Link(target));
                    }
                    6 => {
                        let other = name_of(bytes.pick(40));
                        tree.make(parent, &name, Make::Link(other.clone().into()));
                        tree.make(parent, &other, Make::Link(name.into()));
                    }
                    _ => {
                        tree.make(parent, &name, Make::Socket);
                    }
                }
            }
            let mut paths: Vec<PathBuf> =
                (0..bytes.pick(24)).map(|_| tree.path(&mut bytes)).collect();
            paths.extend(tree.auto_paths());
            Ok((tree, paths))
        }

        /// Create `name` in `parent` on the disk and in the model; `None`
        /// (and nothing created) when it exists or the disk refuses it.
        fn make(&mut self, parent: usize, name: &str, what: Make) -> Option<usize> {
            let base = self.nodes[parent].fs.clone()?;
            if self.child(parent, name).is_some()
                || name.is_empty()
                || name == "."
                || name == ".."
                || name.contains(['/', '\0'])
            {
                return None;
            }
            let path = base.join(name);
            let kind = match what {
                Make::Dir => {
                    std::fs::create_dir(&path).ok()?;
                    Kind::Dir(BTreeMap::new())
                }
                Make::File => {
                    std::fs::write(&path, b"x\n").ok()?;
                    Kind::File
                }
                Make::Link(target) => {
                    std::os::unix::fs::symlink(&target, &path).ok()?;
                    Kind::Link(target)
                }
                Make::Socket => {
                    std::os::unix::net::UnixListener::bind(&path).ok()?;
                    Kind::Special
                }
            };
            let fs =
                (matches!(kind, Kind::Dir(_)) && path.as_os_str().len() < SHORT).then_some(path);
            let index = self.nodes.len();
            let node = Node {
                name: name.to_owned(),
                parent,
                kind,
                fs,
                abs_len: self.nodes[parent].abs_len + 1 + name.len(),
                in_root: index == ROOT || self.nodes[parent].in_root,
                level: false,
            };
            self.nodes.push(node);
            if let Kind::Dir(children) = &mut self.nodes[parent].kind {
                children.insert(name.to_owned(), index);
            }
            Some(index)
        }

        /// `d/L00…/L01…/…`, deeper than PATH_MAX when the names are long,
        /// created through links `j1`, `j2`… (each to the chain's deepest
        /// directory so far, through the one before), `short` to its bottom,
        /// and at the bottom links out (`esc`: `../` up to the outer
        /// directory, then `outside/secret`; `esc_dir`, `esc_abs`), a link
        /// back up inside (`up`), a file and a `.git/config`.
        fn deep_chain(&mut self, levels: usize, len: usize) {
            let Some(mut dir) = self.make(ROOT, "d", Make::Dir) else {
                return;
            };
            self.deep = true;
            let mut anchor = "d".to_owned();
            let mut since: Vec<String> = Vec::new();
            for i in 0..levels {
                let name = format!("L{i:02}{}", "x".repeat(len.saturating_sub(3)));
                let short = self.nodes[dir]
                    .fs
                    .as_ref()
                    .is_some_and(|fs| fs.as_os_str().len() + 1 + name.len() < SHORT);
                if !short {
                    let jump = format!("j{i:02}");
                    if self
                        .make(ROOT, &jump, Make::Link(route(&anchor, &since)))
                        .is_none()
                    {
                        return;
                    }
                    self.nodes[dir].fs = Some(self.root.join(&jump));
                    anchor = jump;
                    since.clear();
                }
                let Some(next) = self.make(dir, &name, Make::Dir) else {
                    return;
                };
                self.nodes[next].level = true;
                since.push(name);
                dir = next;
            }
            if self.nodes[dir].fs.is_none() {
                // The bottom's own route, for what is made in it.
                let jump = "j_bottom";
                if self
                    .make(ROOT, jump, Make::Link(route(&anchor, &since)))
                    .is_none()
                {
                    return;
                }
                self.nodes[dir].fs = Some(self.root.join(jump));
            }
            self.make(ROOT, "short", Make::Link(route(&anchor, &since)));
            let depth = levels + 1;
            let out = "../".repeat(depth + 1);
            self.make(
                dir,
                "esc",
                Make::Link(format!("{out}outside/secret").into()),
            );
            self.make(dir, "esc_dir", Make::Link(format!("{out}outside").into()));
            let secret = self.outer.join("outside/secret");
            self.make(dir, "esc_abs", Make::Link(secret));
            let up = format!("{}d", "../".repeat(depth));
            self.make(dir, "up", Make::Link(up.into()));
            self.make(dir, "deep.txt", Make::File);
            if let Some(git) = self.make(dir, ".git", Make::Dir) {
                self.make(git, "config", Make::File);
            }
        }

        fn child(&self, dir: usize, name: &str) -> Option<usize> {
            match &self.nodes[dir].kind {
                Kind::Dir(children) => children.get(name).copied(),
                _ => None,
            }
        }

        /// The names from the root down to `node` (which is in the root).
        fn rel(&self, mut node: usize) -> Vec<String> {
            let mut names = Vec::new();
            while node != ROOT && self.nodes[node].in_root {
                names.push(self.nodes[node].name.clone());
                node = self.nodes[node].parent;
            }
            names.reverse();
            names
        }

        fn rel_string(&self, node: usize) -> String {
            self.rel(node).join("/")
        }

        /// The nodes below the root, the root first.
        fn in_root(&self) -> Vec<usize> {
            (0..self.nodes.len())
                .filter(|&i| self.nodes[i].in_root)
                .collect()
        }

        fn pick_node(&self, byte: u8) -> usize {
            let nodes = self.in_root();
            nodes[usize::from(byte) % nodes.len()]
        }

        /// A name for a path or a link's target: a known name, `.`, `..`,
        /// nothing, or the name of a node of the tree.
        fn component(&self, byte: u8) -> String {
            match usize::from(byte) % 48 {
                i if i < NAMES => name_of(i),
                20 => ".".into(),
                21 | 22 => "..".into(),
                23 => String::new(),
                _ => self.nodes[self.pick_node(byte / 48)].name.clone(),
            }
        }

        /// A link target for a link named `name` in `parent`.
        fn target(&self, bytes: &mut Bytes, parent: usize, name: &str) -> PathBuf {
            let depth = self.rel(parent).len();
            let kind = bytes.next() % 12;
            let a = bytes.next();
            let b = bytes.next();
            let node = self.rel_string(self.pick_node(a));
            let root = self.root.to_string_lossy().into_owned();
            let outer = self.outer.to_string_lossy().into_owned();
            let up = |n: usize| "../".repeat(n);
            let mut target = match kind {
                // Up a few levels (maybe above the root), then a name.
                0 => format!("{}{}", up(usize::from(a % 4)), self.component(b)),
                // Absolute, to a node inside the root.
                1 => format!("{root}/{node}"),
                // Absolute, outside.
                2 => match a % 3 {
                    0 => format!("{outer}/outside/secret"),
                    1 => format!("{outer}/outside"),
                    _ => format!("{outer}/outside/sub"),
                },
                // Relative, to a node (maybe a link), by way of the root.
                3 => format!("{}{node}", up(depth)),
                // Itself: a loop.
                4 => name.to_owned(),
                // Dangling.
                5 => {
                    let mut s = node;
                    push_part(&mut s, &format!("missing{b}"));
                    s
                }
                // Out of the root and back in: refused, though the kernel
                // lands inside.
                6 => format!("{}ws/{node}", up(depth + 1)),
                // The outer directory, `/`, the root's parent, the root.
                7 => match a % 4 {
                    0 => outer,
                    1 => "/".into(),
                    2 => format!("{root}/.."),
                    _ => root,
                },
                // Absolute with `..` inside it.
                8 => match b % 2 {
                    0 => format!("{root}/../outside/secret"),
                    _ => format!("{root}/{node}/../{}", self.component(b / 2)),
                },
                // `.`, `..`, `./name`.
                9 => match a % 3 {
                    0 => ".".into(),
                    1 => "..".into(),
                    _ => format!("./{}", self.component(b)),
                },
                // A node's path, relative to the link's own directory.
                10 => node,
                // Up past the root to the secret.
                _ => format!("{}outside/secret", up(depth + 1 + usize::from(a % 2))),
            };
            if target.is_empty() {
                target.push('.');
            }
            target.into()
        }

        /// A path to resolve.
        fn path(&self, bytes: &mut Bytes) -> PathBuf {
            let flags = bytes.next();
            let mut s = match flags % 8 {
                0..=3 => String::new(),
                4 => self.root.to_string_lossy().into_owned(),
                5 => self.outer.join("outside").to_string_lossy().into_owned(),
                6 => self.outer.to_string_lossy().into_owned(),
                _ => "/".into(),
            };
            if flags & 8 != 0 {
                let node = self.rel_string(self.pick_node(bytes.next()));
                push_part(&mut s, &node);
            }
            for _ in 0..bytes.next() % 6 {
                push_part(&mut s, &self.component(bytes.next()));
            }
            if flags & 16 != 0 {
                s.push('/');
            }
            PathBuf::from(s)
        }

        /// The paths every run tries.
        fn auto_paths(&self) -> Vec<PathBuf> {
            let root = self.root.to_string_lossy().into_owned();
            let outer = self.outer.to_string_lossy().into_owned();
            let mut paths: Vec<String> = vec![
                String::new(),
                ".".into(),
                "..".into(),
                "../outside/secret".into(),
                root.clone(),
                format!("{root}/"),
                format!("{root}/.."),
                format!("{root}/../outside/secret"),
                format!("{outer}/outside/secret"),
                format!("{outer}/outside/back"),
                format!("{outer}/outside/back/new"),
                format!("{outer}/outside/back2/a/b"),
                "/".into(),
            ];
            let nodes: Vec<usize> = self
                .in_root()
                .into_iter()
                .filter(|&i| i != ROOT && !self.nodes[i].level)
                .take(AUTO_NODES)
                .collect();
            for node in nodes {
                let rel = self.rel_string(node);
                // A path of the deep chain costs a walk of every level: once.
                if rel.len() < SHORT {
                    paths.push(format!("{rel}/new.txt"));
                    paths.push(format!("{root}/{rel}"));
                }
                paths.push(rel);
            }
            if self.deep {
                for tail in [
                    "esc",
                    "esc/x",
                    "esc_dir/secret",
                    "esc_abs",
                    "up/x",
                    "deep.txt",
                    "new/x",
                    ".git/config",
                ] {
                    paths.push(format!("short/{tail}"));
                }
                paths.push(format!("{root}/short/esc"));
                paths.push(format!("{outer}/outside/back/short/esc"));
                paths.push(format!("{outer}/outside/back/short/new"));
            }
            paths.into_iter().map(PathBuf::from).collect()
        }

        /// Every answer argmend may give for `path`: one, or two where a
        /// `realpath` of an absolute path's ancestor (which argmend asks for
        /// a linked spelling of the root) may fail at PATH_MAX; `None` when
        /// the model cannot tell.
        fn expect(&self, path: &Path) -> Option<Vec<Outcome>> {
            if path.as_os_str().is_empty() {
                return Some(vec![Outcome::Err(K::Empty)]);
            }
            let mut parts: Vec<String> = Vec::new();
            let mut absolute = false;
            for part in path.components() {
                match part {
                    Component::Prefix(_) | Component::RootDir => {
                        absolute = true;
                        parts.clear();
                    }
                    Component::CurDir => {}
                    Component::ParentDir => {
                        if parts.pop().is_none() && !absolute {
                            return Some(vec![Outcome::Err(K::Escapes)]);
                        }
                    }
                    Component::Normal(name) => parts.push(name.to_string_lossy().into_owned()),
                }
            }
            if !absolute {
                return Some(vec![self.walk(parts)]);
            }
            if parts.starts_with(&self.root_names) {
                return Some(vec![self.walk(parts[self.root_names.len()..].to_vec())]);
            }
            let mut outcomes = Vec::new();
            for n_up in 1..=parts.len() {
                let (ancestor, rest) = parts.split_at(parts.len() - n_up);
                let start = |mut inside: Vec<String>| {
                    inside.extend_from_slice(rest);
                    inside
                };
                match self.canonical(ancestor) {
                    Canon::Inside(inside) => {
                        outcomes.push(self.walk(start(inside)));
                        return Some(outcomes);
                    }
                    Canon::NotInside => {}
                    Canon::Maybe(inside) => outcomes.push(self.walk(start(inside))),
                    Canon::Unknown => return None,
                }
            }
            outcomes.push(Outcome::Err(K::Outside));
            Some(outcomes)
        }

        /// `realpath` of `/names…` on the model: links followed as the
        /// kernel does, `..` taken physically.
        fn canonical(&self, names: &[String]) -> Canon {
            /// Where the walk is.
            enum At {
                Node(usize),
                /// The first `n` names of the outer directory's path: real
                /// directories (it is canonical).
                Above(usize),
                /// Somewhere else on the disk, not in our tree.
                Elsewhere,
            }
            let mut at = At::Above(0);
            let mut pending: VecDeque<String> = names.iter().cloned().collect();
            let mut links = 0;
            let mut long = false;
            while let Some(name) = pending.pop_front() {
                let here = match at {
                    At::Node(node) => self.nodes[node].abs_len,
                    At::Above(n) => self.outer_names[..n].iter().map(|s| s.len() + 1).sum(),
                    At::Elsewhere => 0,
                };
                let ahead: usize = pending.iter().map(|s| s.len() + 1).sum();
                if here + name.len() + 1 + ahead > NEAR_PATH_MAX {
                    long = true;
                }
                if name == ".." {
                    at = match at {
                        At::Node(OUTER) => At::Above(self.outer_names.len().saturating_sub(1)),
                        At::Node(node) => At::Node(self.nodes[node].parent),
                        At::Above(n) => At::Above(n.saturating_sub(1)),
                        // Whatever is there may be a link.
                        At::Elsewhere => return Canon::Unknown,
                    };
                    continue;
                }
                at = match at {
                    At::Above(n) if self.outer_names.get(n) == Some(&name) => {
                        if n + 1 == self.outer_names.len() {
                            At::Node(OUTER)
                        } else {
                            At::Above(n + 1)
                        }
                    }
                    At::Above(_) | At::Elsewhere => At::Elsewhere,
                    At::Node(dir) => {
                        let Some(child) = self.child(dir, &name) else {
                            return Canon::NotInside;
                        };
                        match &self.nodes[child].kind {
                            Kind::Dir(_) => At::Node(child),
                            Kind::File | Kind::Special if pending.is_empty() => At::Node(child),
                            Kind::File | Kind::Special => return Canon::NotInside,
                            Kind::Link(target) => {
                                links += 1;
                                if links > MAX_LINKS {
                                    return Canon::NotInside;
                                }
                                for part in target.components().rev() {
                                    match part {
                                        Component::Normal(name) => {
                                            pending.push_front(name.to_string_lossy().into_owned())
                                        }
                                        Component::ParentDir => pending.push_front("..".into()),
                                        _ => {}
                                    }
                                }
                                if target.is_absolute() {
                                    At::Above(0)
                                } else {
                                    At::Node(dir)
                                }
                            }
                        }
                    }
                };
            }
            match at {
                At::Node(node) if self.nodes[node].in_root && long => Canon::Maybe(self.rel(node)),
                At::Node(node) if self.nodes[node].in_root => Canon::Inside(self.rel(node)),
                _ => Canon::NotInside,
            }
        }

        /// argmend's walk on the model: `parts` (no `..`) one name at a time
        /// from the root; a link's target walked in turn, `..` in it taken
        /// physically and refused above the root, an absolute one taken from
        /// the root if it is inside it and refused if not.
        fn walk(&self, parts: Vec<String>) -> Outcome {
            let names = |dirs: &[usize]| -> Vec<String> {
                dirs.iter().map(|&d| self.nodes[d].name.clone()).collect()
            };
            let mut dirs: Vec<usize> = Vec::new();
            let mut pending: VecDeque<(String, bool)> =
                parts.into_iter().map(|p| (p, false)).collect();
            let mut links = 0;
            let mut leaf_link = None;
            while let Some((name, from_link)) = pending.pop_front() {
                if name == ".." {
                    if dirs.pop().is_none() {
                        return Outcome::Err(K::SymlinkOut);
                    }
                    continue;
                }
                if name.len() > 255 {
                    return Outcome::Err(K::Unresolvable);
                }
                let here = dirs.last().copied().unwrap_or(ROOT);
                let linked_ahead = pending.iter().any(|(_, linked)| *linked);
                let Some(child) = self.child(here, &name) else {
                    if from_link || linked_ahead {
                        return Outcome::Err(K::DanglingLink);
                    }
                    let mut rel = names(&dirs);
                    rel.push(name);
                    rel.extend(pending.into_iter().map(|(n, _)| n));
                    return Outcome::Ok { rel, leaf_link };
                };
                match &self.nodes[child].kind {
                    Kind::Link(target) => {
                        links += 1;
                        if links > MAX_LINKS {
                            return Outcome::Err(K::Unresolvable);
                        }
                        if pending.is_empty() && !from_link {
                            let mut link = names(&dirs);
                            link.push(name);
                            leaf_link = Some(link);
                        }
                        let inside = if target.is_absolute() {
                            let Ok(inside) = target.strip_prefix(&self.root) else {
                                return Outcome::Err(K::SymlinkOut);
                            };
                            dirs.clear();
                            inside
                        } else {
                            target.as_path()
                        };
                        for part in inside.components().rev() {
                            match part {
                                Component::Normal(name) => {
                                    pending.push_front((name.to_string_lossy().into_owned(), true))
                                }
                                Component::ParentDir => pending.push_front(("..".into(), true)),
                                _ => {}
                            }
                        }
                    }
                    Kind::Dir(_) => dirs.push(child),
                    Kind::File | Kind::Special if !pending.is_empty() => {
                        return Outcome::Err(if from_link || linked_ahead {
                            K::DanglingLink
                        } else {
                            K::Unresolvable
                        });
                    }
                    Kind::Special => return Outcome::Err(K::NotAFile),
                    Kind::File => {
                        let mut rel = names(&dirs);
                        rel.push(name);
                        return Outcome::Ok { rel, leaf_link };
                    }
                }
            }
            Outcome::Ok {
                rel: names(&dirs),
                leaf_link,
            }
        }

        /// What holds of any answer, whatever the model expects: it is below
        /// the root, with no `..` and no link in it (on the model, and on the
        /// disk where the path is short enough for std).
        fn check_real(&self, real: &Path) -> Result<(), String> {
            let rel = real
                .strip_prefix(&self.root)
                .map_err(|_| "not below the root".to_owned())?;
            let mut names = Vec::new();
            for part in rel.components() {
                match part {
                    Component::Normal(name) => names.push(name.to_string_lossy().into_owned()),
                    other => return Err(format!("has a {other:?} in it")),
                }
            }
            let mut at = ROOT;
            for (i, name) in names.iter().enumerate() {
                let Some(child) = self.child(at, name) else {
                    break;
                };
                match &self.nodes[child].kind {
                    Kind::Link(_) => return Err(format!("passes through the link {name:?}")),
                    Kind::Dir(_) => at = child,
                    Kind::File | Kind::Special if i + 1 < names.len() => {
                        return Err(format!("goes on past the file {name:?}"));
                    }
                    Kind::File | Kind::Special => {}
                }
            }
            if real.as_os_str().len() < SHORT {
                let mut here = self.root.clone();
                for (i, name) in names.iter().enumerate() {
                    here.push(name);
                    match std::fs::symlink_metadata(&here) {
                        Ok(meta) if meta.file_type().is_symlink() => {
                            return Err(format!("{} is a link on the disk", here.display()));
                        }
                        Ok(meta) if !meta.is_dir() && i + 1 < names.len() => {
                            return Err(format!("{} is not a directory", here.display()));
                        }
                        Ok(_) => {}
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => break,
                        Err(e) => return Err(format!("{}: {e}", here.display())),
                    }
                }
            }
            Ok(())
        }

        fn compare(
            &self,
            call: &str,
            path: &Path,
            outcomes: Option<&[Outcome]>,
            got: &Result<PathBuf, WorkspaceError>,
        ) -> Result<(), String> {
            if let Ok(real) = got {
                self.check_real(real).map_err(|why| {
                    format!("SECURITY: {call}({path:?}) = Ok({real:?}), which {why}")
                })?;
            }
            let Some(outcomes) = outcomes else {
                return Ok(());
            };
            let agrees = |outcome: &Outcome| match (outcome, got) {
                (Outcome::Ok { rel, .. }, Ok(real)) => {
                    *real == self.root.join(rel.iter().collect::<PathBuf>())
                }
                (Outcome::Err(kind), Err(error)) => error.kind() == *kind,
                _ => false,
            };
            if outcomes.iter().any(agrees) {
                return Ok(());
            }
            let refused = outcomes.iter().all(|outcome| {
                matches!(
                    outcome,
                    Outcome::Err(K::SymlinkOut | K::Escapes | K::Outside | K::Protected)
                )
            });
            let tag = if got.is_ok() && refused {
                "SECURITY"
            } else {
                "MISMATCH"
            };
            let got = match got {
                Ok(real) => format!("Ok({real:?})"),
                Err(error) => format!("Err({:?}: {error})", error.kind()),
            };
            Err(format!(
                "{tag}: {call}({path:?}) = {got}, the model expects one of {outcomes:?}"
            ))
        }

        fn check_all(&self, paths: &[PathBuf]) -> Result<(), String> {
            let workspace =
                Workspace::new(&self.root).map_err(|e| format!("Workspace::new: {e}"))?;
            if workspace.root() != self.root {
                return Err(format!("the root is {:?}", workspace.root()));
            }
            for path in paths {
                let outcomes = self.expect(path);
                let got = workspace.resolve(path);
                self.compare("resolve", path, outcomes.as_deref(), &got)?;
                let outcomes: Option<Vec<Outcome>> =
                    outcomes.map(|all| all.iter().map(for_write).collect());
                let got = workspace.resolve_for_write(path);
                self.compare("resolve_for_write", path, outcomes.as_deref(), &got)?;
            }
            Ok(())
        }

        /// `failure`, with the tree listed.
        fn failure(&self, failure: &str) -> String {
            let mut out = format!("{failure}\n  the tree, in {}:", self.outer.display());
            for (i, node) in self.nodes.iter().enumerate().skip(1) {
                let mut names = Vec::new();
                let mut at = i;
                while at != OUTER {
                    names.push(self.nodes[at].name.as_str());
                    at = self.nodes[at].parent;
                }
                names.reverse();
                let what = match &node.kind {
                    Kind::Dir(_) => "/".to_owned(),
                    Kind::File => String::new(),
                    Kind::Link(target) => format!(" -> {}", target.display()),
                    Kind::Special => " (socket)".to_owned(),
                };
                let _ = write!(out, "\n    {}{what}", names.join("/"));
            }
            abbreviate(&out)
        }
    }
}
