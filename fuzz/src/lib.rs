//! The properties the fuzz targets check, as plain functions.
//!
//! The targets in `fuzz_targets/` call these and panic on `Err`; the stable
//! replay test (`tests/fuzz_seeds.rs` in the main crate) includes this very
//! file with `#[path]` and runs the same checks over the seed files, so a
//! seed that passes there passes here. Only `argmend`, `serde_json` and
//! `caseless` (the `workspace_paths` model's case folding) are used, the
//! dependencies both crates have.

#![allow(dead_code)] // the replay test does not use every helper

use argmend::{Fix, Hints, Options, Repairer, Retain, Verdict};

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
    let first = data.first().copied().unwrap_or(0);
    let hints = (first & 0x08 != 0).then(|| Hints::from_fields(HINTED_KEYS));
    // Bit 4: a repairer that forgets what it returned (the JavaScript
    // `Repairer`, the CLI's streams).
    let retain = if first & 0x10 != 0 {
        Retain::Unreturned
    } else {
        Retain::All
    };
    check_chunked_retaining(input, &chunks(input, &lengths), hints.as_ref(), retain)
}

/// [`check_chunked_with`] without hints.
pub fn check_chunked(input: &[u8], pieces: &[&[u8]]) -> Result<(), String> {
    check_chunked_with(input, pieces, None)
}

/// [`check_chunked_retaining`] with all output kept.
pub fn check_chunked_with(
    input: &[u8],
    pieces: &[&[u8]],
    hints: Option<&Hints>,
) -> Result<(), String> {
    check_chunked_retaining(input, pieces, hints, Retain::All)
}

/// Feeding `pieces` (whose concatenation is `input`) gives the same text,
/// verdict and fixes as one-shot (or the same limit error); the outputs of
/// `feed` concatenate to a prefix of the final text; and after every chunk a
/// non-empty snapshot parses and starts with everything committed so far.
/// With [`Retain::Unreturned`] a snapshot starts with the piece the last
/// feed returned and `finish` returns only the rest: the text returned
/// before that piece is put back in front for the checks.
pub fn check_chunked_retaining(
    input: &[u8],
    pieces: &[&[u8]],
    hints: Option<&Hints>,
    retain: Retain,
) -> Result<(), String> {
    debug_assert_eq!(pieces.concat(), input);
    let none = Hints::default();
    let hints = hints.unwrap_or(&none);
    let oneshot = argmend::repair_with_hints(input, Options::default(), hints).map(|o| Run {
        text: o.text().to_owned(),
        verdict: o.verdict(),
        fixes: o.fixes().to_vec(),
    });

    let mut repairer = Repairer::with_hints(Options::default().retain(retain), hints.clone());
    let mut committed = String::new();
    // With `Retain::Unreturned`: how much of `committed` came before the
    // piece the last feed returned (the snapshot starts after it).
    let mut forgotten = 0;
    let mut fed = 0;
    for (i, piece) in pieces.iter().enumerate() {
        if retain == Retain::Unreturned {
            forgotten = committed.len();
        }
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
            let snapshot = format!("{}{snapshot}", &committed[..forgotten]);
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
        text: match retain {
            Retain::Unreturned => format!("{committed}{}", o.text()),
            _ => o.text().to_owned(),
        },
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

#[cfg(unix)]
mod workspace_paths;
