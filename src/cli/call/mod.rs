//! `argmend call`: find the tool calls in model output, run each, and print
//! the results in order, as the model would see them.

use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use argmend::{CallParser, Dispatcher, Event, Format, ToolErrorKind, ToolResult};
use clap::Args;

use crate::cli::shared::limits::MAX_LINE;
use crate::cli::shared::runtime::{RuntimeArgs, repairs_json};

/// Exit 1: at least one call failed (its error was printed as its result).
const EXIT_FAILED: u8 = 1;
/// Exit 2: usage or I/O error.
const EXIT_ERROR: u8 = 2;

/// Options of `argmend call`.
#[derive(Debug, Args)]
#[command(after_help = "\
Reads model output as it arrives and runs each call as soon as it is complete:
  <tool_call name=\"@json\" args='{\"cmd\":\"keys\",\"args\":{\"file\":\"a.json\"}}' />
  <tool_call name=\"@json\">get --file a.json --path data</tool_call>
  <tool name=\"@diff\">{\"cmd\": \"text\", \"args\": {\"a\": \"x\\n\", \"b\": \"y\\n\"}}</tool>
  {\"tool_call\": \"@json\", \"args\": {\"cmd\": \"schema\", \"args\": {\"file\": \"a.json\"}}}
Text around the calls is printed as it is, each result in its place as
  <tool_result name=\"@json\" ok=\"true\">
  …
  </tool_result>
A result that holds `</tool_result` itself (a file's text) has it written
`<\\/tool_result`, so only the real end closes the block.
A tag that is not a well-formed call (`a <tool_call> here`) is text. A call
the input cuts off before its end is reported and not run (--run-incomplete
runs it).
With --events, nothing runs: the parser's events are printed as JSON Lines.

Exit codes:
  0  every call answered
  1  at least one call failed (its error is printed as its result)
  2  usage or I/O error, or a call over --max-call-bytes (its result says
     so, and the input is read no further)")]
pub(crate) struct CallArgs {
    /// The model output; stdin when absent or `-`.
    #[arg(value_name = "FILE")]
    pub(crate) file: Option<PathBuf>,

    /// Print the parser's events as JSON Lines instead of running the calls.
    #[arg(long)]
    pub(crate) events: bool,

    /// Read only this format's calls (`qwen3_coder`, `kimi_k2`, `gpt_oss`,
    /// `pythonic`, …; `--format list` names them all). Without it, argmend's
    /// own forms, Hermes, Llama 3 and Mistral are read.
    #[arg(long, value_name = "NAME")]
    pub(crate) format: Option<String>,

    /// Run a call the input cut off before its end (`</tool_call>`, `/>`,
    /// `}`) too; by default it is reported and not run, so a broken stream
    /// never writes half a file.
    #[arg(long)]
    pub(crate) run_incomplete: bool,

    /// The most one call may hold, from its start to its end (default
    /// 64 MiB, the line limit of `serve` and `mcp`). A longer call is
    /// refused and the input is read no further.
    #[arg(long, value_name = "N", default_value_t = MAX_LINE)]
    pub(crate) max_call_bytes: usize,

    #[command(flatten)]
    pub(crate) runtime: RuntimeArgs,
}

/// Run `argmend call`.
pub(crate) fn main(args: &CallArgs) -> ExitCode {
    match run(args) {
        Ok(code) => code,
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            let _ = writeln!(io::stderr().lock(), "argmend: {error}");
            ExitCode::from(EXIT_ERROR)
        }
    }
}

fn run(args: &CallArgs) -> io::Result<ExitCode> {
    if args.format.as_deref() == Some("list") {
        return list_formats();
    }
    let dispatcher = args.runtime.dispatcher().map_err(io::Error::other)?;
    // Every error reading the input names it: opening a directory succeeds,
    // and only the first read fails (`Is a directory`), which said nothing
    // of which file it was.
    let (mut input, name): (Box<dyn Read>, String) = match &args.file {
        Some(path) if path.as_os_str() != "-" => {
            let name = format!("'{}'", path.display());
            let file = std::fs::File::open(path)
                .map_err(|e| io::Error::new(e.kind(), format!("cannot open {name}: {e}")))?;
            (Box::new(file), name)
        }
        _ => (Box::new(io::stdin()), "stdin".to_owned()),
    };
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut parser = match &args.format {
        None => CallParser::new(),
        Some(name) => {
            let format: Format = name.parse().map_err(io::Error::other)?;
            CallParser::with_format(format, builtin_tool_options())
        }
    };
    // Reads no longer than the cap, so a call is measured to within it.
    let mut buf = vec![0; (64 * 1024usize).min(args.max_call_bytes.max(1))];
    let mut n_failed = 0;
    // Whether the output is at the start of a line (a result starts one).
    let mut line_start = true;
    // The call the input is in, and how much has been read since its start.
    let mut open: Option<(String, usize)> = None;
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io::Error::new(e.kind(), format!("cannot read {name}: {e}"))),
        };
        for event in parser.feed(&buf[..n]) {
            match &event {
                Event::CallStarted { name, .. } => open = Some((name.clone(), 0)),
                Event::CallReady { .. } | Event::Error { .. } => open = None,
                _ => {}
            }
            n_failed += handle(args, &dispatcher, event, &mut out, &mut line_start)?;
        }
        if let Some((name, size)) = &mut open {
            // Counted from the read the call began in: at most one read more.
            *size += n;
            if *size > args.max_call_bytes {
                return too_long(args, name, &mut out, line_start);
            }
        }
    }
    for event in parser.finish() {
        n_failed += handle(args, &dispatcher, event, &mut out, &mut line_start)?;
    }
    if !line_start {
        writeln!(out)?;
    }
    out.flush()?;
    Ok(if n_failed > 0 {
        ExitCode::from(EXIT_FAILED)
    } else {
        ExitCode::SUCCESS
    })
}

/// The built-in tools with their input schemas, so a format that writes its
/// parameters as text (`<parameter=args>{…}</parameter>`) gets them typed.
fn builtin_tool_options() -> argmend::ToolOptions {
    let json = argmend::tools::json::input_schema();
    let diff = argmend::tools::diff::input_schema();
    let tools = argmend::ToolMap::builtin()
        .with_schema("@json", json.clone())
        .with_schema("json", json)
        .with_schema("@diff", diff.clone())
        .with_schema("diff", diff);
    argmend::ToolOptions::default().tools(tools)
}

/// `--format list`: every format's name, other names and wire shape.
fn list_formats() -> io::Result<ExitCode> {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    for format in Format::all() {
        let aliases = format.aliases().join(", ");
        let also = if aliases.is_empty() {
            String::new()
        } else {
            format!(" (also {aliases})")
        };
        writeln!(out, "{}{also}\n    {}", format.name(), format.shape())?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// A call over `--max-call-bytes`: its result says so, and the run stops,
/// since the parser would hold the rest of the call to find its end. Why:
/// a 1 GB argument cost 4.9 GB of memory before anything was refused.
fn too_long(
    args: &CallArgs,
    name: &str,
    out: &mut impl Write,
    line_start: bool,
) -> io::Result<ExitCode> {
    let limit = args.max_call_bytes;
    let message = format!(
        "not run: the call is over {limit} bytes (--max-call-bytes), so the input was read no \
         further; pass a file's path instead of its text, or raise --max-call-bytes"
    );
    if !line_start {
        writeln!(out)?;
    }
    let result = ToolResult {
        ok: false,
        output: message.clone(),
        strategy: None,
        fixes: Vec::new(),
        doubts: Vec::new(),
        error: Some(ToolErrorKind::Refused),
    };
    if !args.events {
        write_result(out, name, &result)?;
    }
    out.flush()?;
    let _ = writeln!(io::stderr().lock(), "argmend: `{name}`: {message}");
    Ok(ExitCode::from(EXIT_ERROR))
}

/// Print one event (with --events) or run the call it completes; returns 1
/// for a failed call.
fn handle(
    args: &CallArgs,
    dispatcher: &Dispatcher,
    event: Event,
    out: &mut impl Write,
    line_start: &mut bool,
) -> io::Result<usize> {
    if args.events {
        if let Event::ArgsJson { .. } = event {
            // The JSON text pieces repeat what the deltas and `call_ready` say.
            return Ok(0);
        }
        writeln!(out, "{}", event_json(&event))?;
        out.flush()?;
        return Ok(0);
    }
    let failed = |output: String, kind| ToolResult {
        ok: false,
        output,
        strategy: None,
        fixes: Vec::new(),
        doubts: Vec::new(),
        error: Some(kind),
    };
    let (name, result) = match event {
        Event::CallReady {
            name,
            closed: false,
            ..
        } if !args.run_incomplete => {
            let output = "not run: the input ended before the call did (no `</tool_call>`, \
                          `/>` or closing `}`), so its arguments may be cut short; pass \
                          --run-incomplete to run such calls"
                .to_owned();
            (name, failed(output, ToolErrorKind::Refused))
        }
        Event::CallReady { name, args, .. } => {
            let result = dispatcher.run(&name, &args);
            (name, result)
        }
        Event::Error {
            name: Some(name),
            raw,
            ..
        } if !dispatcher.has_tool(&name) => {
            // Whatever its arguments, the tool is not there: say that first,
            // in the dispatcher's own words (it refuses an unknown name
            // before it reads the arguments), so the message is the same
            // whichever form the call took.
            let result = dispatcher.run(&name, &raw);
            (name, result)
        }
        Event::Error {
            name, raw, reason, ..
        } => {
            let output = format!("the arguments could not be read ({reason}): {raw}");
            (
                name.unwrap_or_default(),
                failed(output, ToolErrorKind::InvalidArguments),
            )
        }
        Event::Text(text) => {
            // Text around the calls is the model's own words: printed as it is.
            out.write_all(text.as_bytes())?;
            if !text.is_empty() {
                *line_start = text.ends_with('\n');
            }
            return Ok(0);
        }
        _ => return Ok(0),
    };
    if !*line_start {
        writeln!(out)?;
    }
    *line_start = true;
    write_result(out, &name, &result)?;
    out.flush()?;
    Ok(usize::from(!result.ok))
}

fn write_result(out: &mut impl Write, name: &str, result: &ToolResult) -> io::Result<()> {
    let name = serde_json::Value::from(name).to_string();
    writeln!(out, "<tool_result name={name} ok=\"{}\">", result.ok)?;
    let output = escape_result(&result.output);
    out.write_all(output.as_bytes())?;
    if !output.ends_with('\n') {
        writeln!(out)?;
    }
    writeln!(out, "</tool_result>")
}

/// A result's text with every `</tool_result` (any case, and any run of
/// backslashes after the `<`) given one more backslash after its `<`:
/// `</tool_result>` becomes `<\/tool_result>`.
///
/// Why: the text is a file's, and a file that holds `</tool_result>` ended
/// the block early, so what followed read as the model's own words (or a
/// forged result). `<\/` is the escape JSON inside HTML uses for `</script>`;
/// a model reads it as the text it stands for. Adding one backslash to every
/// run keeps it reversible: drop one backslash after `<` in each
/// `<\…\/tool_result` to get the text back.
pub(crate) fn escape_result(text: &str) -> std::borrow::Cow<'_, str> {
    const NAME: &[u8] = b"/tool_result";
    let bytes = text.as_bytes();
    let closes_at = |at: usize| {
        let mut i = at + 1;
        while bytes.get(i) == Some(&b'\\') {
            i += 1;
        }
        bytes
            .get(i..i + NAME.len())
            .is_some_and(|name| name.eq_ignore_ascii_case(NAME))
    };
    let mut escaped = String::new();
    let mut copied = 0;
    for at in memchr::memchr_iter(b'<', bytes) {
        if closes_at(at) {
            escaped.push_str(&text[copied..=at]);
            escaped.push('\\');
            copied = at + 1;
        }
    }
    if copied == 0 {
        return std::borrow::Cow::Borrowed(text);
    }
    escaped.push_str(&text[copied..]);
    std::borrow::Cow::Owned(escaped)
}

/// One event as a JSON object.
pub(crate) fn event_json(event: &Event) -> serde_json::Value {
    use serde_json::json;
    match event {
        Event::Text(text) => json!({"event": "text", "text": text}),
        Event::CallStarted { call, name } => {
            json!({"event": "call_started", "call": call, "name": name})
        }
        Event::ArgsDelta {
            call,
            name,
            path,
            text,
        } => json!({"event": "args_delta", "call": call, "name": name, "path": path, "text": text}),
        Event::FieldDone {
            call,
            name,
            path,
            value,
        } => {
            json!({"event": "field_done", "call": call, "name": name, "path": path, "value": value})
        }
        Event::CallReady {
            call,
            name,
            args,
            strategy,
            fixes,
            doubts,
            complete,
            closed,
            ..
        } => json!({
            "event": "call_ready",
            "call": call,
            "name": name,
            "args": args,
            "complete": complete,
            "closed": closed,
            "repairs": repairs_json(strategy.map(|s| s.number()), fixes, doubts),
        }),
        Event::Error {
            call,
            name,
            raw,
            reason,
        } => json!({"event": "error", "call": call, "name": name, "raw": raw, "reason": reason}),
        _ => json!({"event": "unknown"}),
    }
}
