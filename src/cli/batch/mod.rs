//! `--batch`: JSON Lines in, JSON Lines out, one output line per input line.
//!
//! An input line is a JSON string (the raw text), `{"input": "…"}`, or
//! `{"chunks": ["…", …]}` (a recorded stream, fed chunk by chunk). The output
//! line is built by hand so that the repaired JSON keeps its key order and
//! number spelling: it is embedded verbatim, only with the whitespace between
//! tokens removed, which keeps it on one line.

pub(crate) mod jobs;
pub(crate) mod report;

use std::io::{BufRead, BufReader, Read, Write};

use anyhow::Context;
use argmend::{Doubt, Options, Repairer, Retain, ToolOptions, ToolRepairer, Verdict};
use serde_json::Value;

use self::report::{Progress, Tally};
use crate::cli::shared::failure::{Failure, output_error};
use crate::cli::shared::log::{doubt_value, fix_json, tool_fix_json};
use crate::cli::shared::schema::{holds_no_document, schema_of};

/// What the input line asked for; the `Err` is the message of an error line.
type Request = Result<Line, String>;

/// One input line: the chunks to feed, and with `"tool"` or `"schema"`,
/// tool-aware normalization (see `argmend repair --tool`).
#[derive(Debug, PartialEq)]
struct Line {
    chunks: Vec<String>,
    tool: Option<String>,
    schema: Option<Value>,
}

impl Line {
    fn plain(chunks: Vec<String>) -> Self {
        Line {
            chunks,
            tool: None,
            schema: None,
        }
    }
}

/// Process every line of `input`, writing one line to `out` for each, on
/// this thread (`--jobs 1`; [`jobs`] spreads the same work
/// over a pool); the totals of `--summary` come back.
///
/// Output is flushed whenever the next line has not arrived yet, so a
/// pipeline sees each answer as soon as its question is complete.
pub(crate) fn run(
    mut input: BufReader<Box<dyn Read + Send>>,
    out: &mut impl Write,
    options: Options,
    snapshots: bool,
    name: &str,
    mut progress: Progress,
) -> Result<Tally, Failure> {
    let options = options.retain(Retain::All);
    let mut tally = Tally::default();
    let mut line = Vec::new();
    let mut output = String::new();
    let mut number = 0usize;
    loop {
        line.clear();
        let n = input
            .read_until(b'\n', &mut line)
            .with_context(|| format!("cannot read {name}"))?;
        if n == 0 {
            return Ok(tally);
        }
        progress.line(n);
        number += 1;
        output.clear();
        answer_line(&mut output, &line, number, options, snapshots, &mut tally);
        out.write_all(output.as_bytes())
            .map_err(|e| output_error(e, "stdout"))?;
        if input.buffer().is_empty() {
            out.flush().map_err(|e| output_error(e, "stdout"))?;
        }
    }
}

/// Answer input line `number` (as read, with its line end): append its
/// output line, newline included, to `output`, and count it in `tally`.
///
/// `options` already retain everything (see [`run`]). This is all the work
/// a line costs, and it depends on nothing but the line, its number and the
/// flags, so any thread may answer any line and the output stays the same.
pub(crate) fn answer_line(
    output: &mut String,
    line: &[u8],
    number: usize,
    options: Options,
    snapshots: bool,
    tally: &mut Tally,
) {
    let mut text = trim_line_end(line);
    if number == 1 {
        text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    }
    let answer = match parse(text) {
        Ok(line) if line.tool.is_some() || line.schema.is_some() => {
            tool_answer(line, options, snapshots, tally)
        }
        Ok(line) => answer(&line.chunks, options, snapshots, tally),
        Err(message) => Err(message),
    };
    match answer {
        Ok(answer) => output.push_str(&answer),
        Err(message) => {
            tally.error();
            output.push_str(&error_line(&format!("line {number}: {message}")));
        }
    }
    output.push('\n');
}

/// The line without its `\n` or `\r\n`.
fn trim_line_end(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

const SHAPE: &str = r#"expected a JSON string, {"input": "…"} or {"chunks": ["…", …]}"#;

const CHUNKS: &str = r#""chunks" must be an array of strings"#;

/// Read an input line into the chunks to feed.
fn parse(line: &[u8]) -> Request {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Err("empty line".to_owned());
    }
    let value: Value = serde_json::from_slice(line).map_err(|e| format!("not JSON: {e}"))?;
    match value {
        Value::String(text) => Ok(Line::plain(vec![text])),
        Value::Object(mut map) => {
            if let Some(key) = map
                .keys()
                .find(|k| !matches!(k.as_str(), "input" | "chunks" | "tool" | "schema"))
            {
                return Err(format!(r#"unknown key {key:?}; {SHAPE}"#));
            }
            let tool = match map.remove("tool") {
                None => None,
                Some(Value::String(tool)) => Some(tool),
                Some(_) => return Err(r#""tool" must be a string"#.to_owned()),
            };
            let schema = match map.remove("schema") {
                None => None,
                Some(schema @ Value::Object(_)) => Some(
                    schema_of(schema)
                        .map_err(|why| format!(r#""schema" is not a JSON Schema: {why}"#))?,
                ),
                Some(_) => return Err(r#""schema" must be an object"#.to_owned()),
            };
            let (tool, schema) = match schema {
                Some(found) => (tool.or(found.tool), Some(found.schema)),
                None => (tool, None),
            };
            let chunks = match (map.remove("input"), map.remove("chunks")) {
                (Some(Value::String(text)), None) => Ok(vec![text]),
                (Some(_), None) => Err(r#""input" must be a string"#.to_owned()),
                (None, Some(Value::Array(chunks))) => chunks
                    .into_iter()
                    .map(|chunk| match chunk {
                        Value::String(text) => Ok(text),
                        _ => Err(CHUNKS.to_owned()),
                    })
                    .collect(),
                (None, Some(_)) => Err(CHUNKS.to_owned()),
                (Some(_), Some(_)) => Err(r#"give "input" or "chunks", not both"#.to_owned()),
                (None, None) => Err(SHAPE.to_owned()),
            }?;
            Ok(Line {
                chunks,
                tool,
                schema,
            })
        }
        _ => Err(SHAPE.to_owned()),
    }
}

/// Repair one request and build its output line (without the newline).
/// The line is counted in `tally` once it cannot fail any more.
fn answer(
    chunks: &[String],
    options: Options,
    snapshots: bool,
    tally: &mut Tally,
) -> Result<String, String> {
    let mut repairer = Repairer::new(options);
    let mut deltas = Vec::new();
    let mut shots = Vec::new();
    for chunk in chunks {
        let delta = repairer.feed(chunk.as_bytes()).map_err(|e| e.to_string())?;
        if snapshots {
            deltas.push(delta.to_owned());
            shots.push(repairer.snapshot().to_string());
        }
    }
    let outcome = repairer.finish().map_err(|e| e.to_string())?;
    let json = framed(outcome.verdict(), outcome.text(), "the repair")?;
    let mut line = format!(
        r#"{{"json":{json},"verdict":"{}","fixes":["#,
        outcome.verdict().name()
    );
    for (i, fix) in outcome.fixes().iter().enumerate() {
        if i > 0 {
            line.push(',');
        }
        line.push_str(&fix_json(fix));
    }
    line.push(']');
    push_doubts(&mut line, outcome.doubts());
    if snapshots {
        line.push_str(r#","deltas":"#);
        push_strings(&mut line, &deltas);
        line.push_str(r#","snapshots":"#);
        push_strings(&mut line, &shots);
    }
    line.push('}');
    tally.answer(
        outcome.verdict(),
        outcome.fixes().iter().map(|fix| fix.kind.name()),
        outcome.doubts().iter().map(|doubt| doubt.kind.name()),
    );
    Ok(line)
}

/// Normalize one line for its tool (and schema) and build its output line:
/// `{"json":…,"verdict":…,"strategy":1-7|null,"fixes":[…]}`, plus `"doubt"`
/// when the engine doubted and `"violations"` when the schema still rejects
/// something. The line is counted in `tally` once it cannot fail any more.
fn tool_answer(
    line: Line,
    options: Options,
    snapshots: bool,
    tally: &mut Tally,
) -> Result<String, String> {
    if snapshots {
        return Err(r#"--snapshots is not available for lines with "tool" or "schema""#.to_owned());
    }
    let mut tool_options = ToolOptions::default().repair_options(options);
    if let Some(schema) = line.schema {
        tool_options = tool_options.schema(schema);
    }
    let tool = line.tool.as_deref().unwrap_or("");
    let mut repairer = ToolRepairer::new(tool, tool_options);
    for chunk in &line.chunks {
        repairer.feed(chunk.as_bytes());
    }
    let normalized = repairer.finish();
    if holds_no_document(tool, &normalized) {
        // A schema alone and an empty input: the line a plain repair gives.
        return answer(&line.chunks, options, false, tally);
    }
    let json = framed(
        normalized.verdict(),
        normalized.text(),
        "the normalized text",
    )?;
    let strategy = normalized
        .strategy()
        .map_or("null".to_owned(), |s| s.number().to_string());
    let mut out = format!(
        r#"{{"json":{json},"verdict":"{}","strategy":{strategy},"fixes":["#,
        normalized.verdict().name()
    );
    for (i, fix) in normalized.fixes().iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&tool_fix_json(fix));
    }
    out.push(']');
    push_doubts(&mut out, normalized.doubts());
    if !normalized.violations().is_empty() {
        let violations: Vec<String> = normalized
            .violations()
            .iter()
            .map(ToString::to_string)
            .collect();
        out.push_str(r#","violations":"#);
        push_strings(&mut out, &violations);
    }
    out.push('}');
    tally.answer(
        normalized.verdict(),
        normalized.fixes().iter().map(|fix| fix.kind.name()),
        normalized.doubts().iter().map(|doubt| doubt.kind.name()),
    );
    Ok(out)
}

/// The `"json"` member of an output line: the mended `text` on one line, or
/// `null` when there is no JSON. Guarantee 2 says the text parses; it is
/// checked anyway, so that a bug in the engine can never break the JSON
/// Lines framing of the output (`what` names the text in that error).
fn framed(verdict: Verdict, text: &str, what: &str) -> Result<String, String> {
    if verdict == Verdict::NotJson {
        return Ok("null".to_owned());
    }
    let json = compact(text);
    match serde_json::from_str::<Value>(&json) {
        Ok(_) => Ok(json),
        Err(error) => Err(format!(
            "internal error: {what} is not valid JSON ({error})"
        )),
    }
}

/// Append `,"doubt":[…]` to an output line; nothing when there is no doubt
/// (the member is absent rather than empty).
fn push_doubts(line: &mut String, doubts: &[Doubt]) {
    if doubts.is_empty() {
        return;
    }
    line.push_str(r#","doubt":["#);
    for (i, doubt) in doubts.iter().enumerate() {
        if i > 0 {
            line.push(',');
        }
        line.push_str(&doubt_value(doubt).to_string());
    }
    line.push(']');
}

/// Append a JSON array of strings.
fn push_strings(line: &mut String, strings: &[String]) {
    line.push('[');
    for (i, s) in strings.iter().enumerate() {
        if i > 0 {
            line.push(',');
        }
        push_string(line, s);
    }
    line.push(']');
}

/// Append one JSON string literal.
fn push_string(line: &mut String, s: &str) {
    // Serializing a &str cannot fail.
    line.push_str(&serde_json::to_string(s).unwrap_or_default());
}

/// `{"error":"…"}`.
fn error_line(message: &str) -> String {
    let mut line = String::from(r#"{"error":"#);
    push_string(&mut line, message);
    line.push('}');
    line
}

/// Remove the whitespace outside strings from valid JSON text.
///
/// Everything else is kept byte for byte, so key order and number spelling
/// survive (a round trip through `serde_json::Value` would sort keys). Valid
/// JSON has no raw newline inside a string, so the result is one line.
pub(crate) fn compact(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let mut in_string = false;
    let mut escaped = false;
    for c in json.chars() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if matches!(c, ' ' | '\t' | '\n' | '\r') {
            continue;
        } else if c == '"' {
            in_string = true;
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_keeps_strings_order_and_numbers() {
        let json = "{ \"b\" : [1.50, 2e3],\n \"a\":\"x \\\" y\\\\\", \"c\" : \" \" }";
        assert_eq!(compact(json), r#"{"b":[1.50,2e3],"a":"x \" y\\","c":" "}"#);
    }

    #[test]
    fn shapes() {
        assert_eq!(parse(br#""a""#), Ok(Line::plain(vec!["a".to_owned()])));
        assert_eq!(
            parse(br#"{"input":"a"}"#),
            Ok(Line::plain(vec!["a".to_owned()]))
        );
        assert_eq!(
            parse(br#"{"chunks":["a","b"]}"#),
            Ok(Line::plain(vec!["a".to_owned(), "b".to_owned()]))
        );
        let line = parse(br#"{"input":"a","tool":"read_file","schema":{"type":"object"}}"#);
        assert_eq!(
            line.as_ref().map(|l| l.tool.as_deref()),
            Ok(Some("read_file"))
        );
        assert!(parse(br#"{"input":"a","tool":1}"#).is_err());
        assert!(parse(b"  ").is_err());
        assert!(parse(b"[1]").is_err());
        assert!(parse(br#"{"input":"a","id":1}"#).is_err());
        assert!(parse(br#"{"chunks":["a",1]}"#).is_err());
    }
}
