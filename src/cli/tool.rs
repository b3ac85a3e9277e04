//! `argmend repair --tool NAME [--schema FILE]`: tool-aware normalization.

use std::fs;
use std::io::{self, BufWriter, Read, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, anyhow};
use argmend::{Options, SchemaMode, ToolFix, ToolOptions, ToolRepairer, Verdict};
use serde_json::Value;

use super::args::RepairArgs;
use super::{CHUNK, EXIT_NOT_JSON, Failure, output_error, report, write_out};

/// A schema, and the tool name when the file held a whole tool definition.
pub(super) struct Schema {
    pub(super) schema: Value,
    pub(super) tool: Option<String>,
}

/// The parameters schema of an OpenAI tool (`{"type":"function","function":
/// {"name":…,"parameters":…}}` or its inner object), of an Anthropic tool
/// (`{"name":…,"input_schema":…}`), or the value itself when it is a schema.
pub(super) fn schema_of(value: Value) -> Schema {
    let definition = match value.get("function") {
        Some(function @ Value::Object(_)) => function.clone(),
        _ => value,
    };
    let tool = definition
        .get("name")
        .and_then(Value::as_str)
        .map(str::to_owned);
    for key in ["parameters", "input_schema"] {
        if let Some(schema @ Value::Object(_)) = definition.get(key) {
            return Schema {
                schema: schema.clone(),
                tool,
            };
        }
    }
    Schema {
        schema: definition,
        tool: None,
    }
}

fn load_schema(path: &Path) -> Result<Schema, Failure> {
    let name = format!("'{}'", path.display());
    let text = fs::read_to_string(path).with_context(|| format!("cannot read {name}"))?;
    let value: Value = serde_json::from_str(&text)
        .map_err(|error| anyhow!("{name} is not a JSON Schema: {error}"))?;
    Ok(schema_of(value))
}

/// `{"kind":"wrapped_value","offset":0}`, as in `--fixes` and batch lines.
pub(super) fn fix_json(fix: &ToolFix) -> String {
    // Kind names are snake_case ASCII: nothing to escape.
    format!(
        r#"{{"kind":"{}","offset":{}}}"#,
        fix.kind.name(),
        fix.offset
    )
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
    write_out(&mut io::stdout().lock(), normalized.text())?;
    if args.fixes {
        let mut err = BufWriter::new(io::stderr().lock());
        for fix in normalized.fixes() {
            writeln!(err, "{}", fix_json(fix)).map_err(|e| output_error(e, "stderr"))?;
        }
        for doubt in normalized.doubts() {
            writeln!(err, "{}", super::batch::doubt_log_json(doubt))
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
