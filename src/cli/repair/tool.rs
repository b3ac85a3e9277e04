//! `argmend repair --tool NAME [--schema FILE]`: tool-aware normalization.

use std::fs;
use std::io::{self, BufWriter, Read, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, anyhow};
use argmend::{Options, SchemaMode, ToolOptions, ToolRepairer, Verdict};
use serde_json::Value;

use super::args::RepairArgs;
use super::terminal::Output;
use super::text::{CHUNK, write_out};
use crate::cli::shared::failure::{EXIT_NOT_JSON, Failure, output_error, report};
use crate::cli::shared::log;
use crate::cli::shared::schema::{Schema, holds_no_document, schema_of};

/// The schema in the file `path` (see [`schema_of`]).
fn load_schema(path: &Path) -> Result<Schema, Failure> {
    let name = format!("'{}'", path.display());
    let text = fs::read_to_string(path).with_context(|| format!("cannot read {name}"))?;
    let value: Value = serde_json::from_str(&text)
        .map_err(|error| anyhow!("{name} is not a JSON Schema: it is not JSON ({error})"))?;
    schema_of(value).map_err(|why| anyhow!("{name} is not a JSON Schema: {why}").into())
}

/// Normalize the whole input for the tool and write the result.
pub(super) fn run(
    args: &RepairArgs,
    mut input: Box<dyn Read>,
    name: &str,
    options: Options,
) -> Result<ExitCode, Failure> {
    let schema = args.schema.as_deref().map(load_schema).transpose()?;
    let tool = args
        .tool
        .clone()
        .or_else(|| schema.as_ref().and_then(|s| s.tool.clone()))
        .unwrap_or_default();
    let mut tool_options = ToolOptions::default().repair_options(options);
    if let Some(schema) = schema {
        tool_options = tool_options.schema(schema.schema);
    }
    if args.strict {
        tool_options = tool_options.mode(SchemaMode::Strict);
    }
    // With --stream the engine works as the bytes arrive; the tool-level
    // rules need the whole value, so the output is written at the end.
    let mut repairer = ToolRepairer::new(&tool, tool_options);
    let mut buf = vec![0; CHUNK];
    loop {
        match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                repairer.feed(&buf[..n]);
            }
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(anyhow!(error).context(format!("cannot read {name}")).into()),
        }
    }
    let normalized = repairer.finish();
    if holds_no_document(&tool, &normalized) {
        let empty = argmend::repair(b"");
        let reason = empty.reason().unwrap_or("no JSON value found");
        report(&format!("not JSON: {reason}"));
        return Ok(ExitCode::from(EXIT_NOT_JSON));
    }
    let mut out = Output::new(io::stdout().lock());
    write_out(&mut out, normalized.text())?;
    out.end_line().map_err(|e| output_error(e, "stdout"))?;
    if args.fixes {
        let mut err = BufWriter::new(io::stderr().lock());
        for fix in normalized.fixes() {
            writeln!(err, "{}", log::tool_fix_json(fix)).map_err(|e| output_error(e, "stderr"))?;
        }
        for doubt in normalized.doubts() {
            writeln!(err, "{}", log::doubt_log_json(doubt))
                .map_err(|e| output_error(e, "stderr"))?;
        }
        err.flush().map_err(|e| output_error(e, "stderr"))?;
    }
    if normalized.verdict() == Verdict::NotJson {
        let reason = normalized.reason().unwrap_or("no JSON value found");
        report(&format!("not JSON: {reason}"));
        return Ok(ExitCode::from(EXIT_NOT_JSON));
    }
    Ok(ExitCode::SUCCESS)
}
