//! `argmend repair`: the binary's logic. The library does the repairing; this
//! module reads, writes, and turns outcomes into exit codes.

mod args;
mod batch;
mod batch_jobs;
mod batch_report;
mod call;
mod diff;
mod gone;
mod json;
mod limits;
#[cfg(feature = "mcp")]
mod mcp;
#[cfg(feature = "mcp")]
mod mcp_check;
#[cfg(feature = "mcp")]
mod mcp_gate;
#[cfg(feature = "mcp")]
mod mcp_repair;
mod quotes;
mod serve;
mod terminal;
mod tool;
mod tool_command;

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, anyhow};
use argmend::{Doubt, ErrorKind, Fix, Options, Repairer, Retain, Values, Verdict};
use clap::{CommandFactory, Parser};

use self::args::{Cli, Command, RepairArgs, ValuesArg};

/// How much `--stream` asks for per read (a read may return less).
const CHUNK: usize = 64 * 1024;

/// Exit 1: the input held no JSON, or a limit was crossed.
const EXIT_NOT_JSON: u8 = 1;
/// Exit 2: usage or I/O error (clap uses 2 for its usage errors too).
const EXIT_ERROR: u8 = 2;

/// Why a run stopped early.
enum Failure {
    /// stdout was closed by its reader: not an error (like ripgrep, `head`).
    BrokenPipe,
    /// An I/O error: exit 2 with the message.
    Fatal(anyhow::Error),
}

impl From<anyhow::Error> for Failure {
    fn from(error: anyhow::Error) -> Self {
        Failure::Fatal(error)
    }
}

/// Maps an error writing our output: a closed pipe ends the run quietly.
fn output_error(error: io::Error, what: &str) -> Failure {
    if error.kind() == io::ErrorKind::BrokenPipe {
        Failure::BrokenPipe
    } else {
        Failure::Fatal(anyhow!(error).context(format!("cannot write to {what}")))
    }
}

/// Parse the command line, run, and map the result to an exit code.
pub(crate) fn main() -> ExitCode {
    let cli = Cli::parse();
    let args = match cli.command {
        Command::Repair(args) => args,
        Command::Diff(args) => return diff::main(args),
        Command::Json(args) => return json::main(args),
        Command::Quotes(args) => return quotes::main(&args),
        Command::Call(args) => return call::main(&args),
        Command::Serve(args) => return serve::main(&args),
        #[cfg(feature = "mcp")]
        Command::Mcp(args) => return mcp::main(&args),
    };
    if args.batch && args.values == ValuesArg::Lines {
        // A batch line holds one value; several values on lines do not fit in it.
        let mut cli = Cli::command();
        cli.build();
        let mut repair = cli.find_subcommand("repair").cloned().unwrap_or(cli);
        repair
            .error(
                clap::error::ErrorKind::ArgumentConflict,
                "--values lines cannot be used with --batch (use first or array)",
            )
            .exit();
    }
    match run(&args) {
        Ok(code) => code,
        Err(Failure::BrokenPipe) => ExitCode::SUCCESS,
        Err(Failure::Fatal(error)) => {
            report(&format!("{error:#}"));
            ExitCode::from(EXIT_ERROR)
        }
    }
}

/// One line on stderr, prefixed with the program name.
fn report(message: &str) {
    // Nothing sensible is left to do if stderr itself is gone.
    let _ = writeln!(io::stderr().lock(), "argmend: {message}");
}

fn run(args: &RepairArgs) -> Result<ExitCode, Failure> {
    let options = Options::default()
        .max_depth(args.max_depth)
        .values(Values::from(args.values));
    let (input, name) = open(args.file.as_deref())?;
    if args.tool.is_some() || args.schema.is_some() {
        return tool::run(args, input, &name, options);
    }
    let stdout = io::stdout();
    if args.batch {
        let reader = BufReader::with_capacity(CHUNK, input);
        let mut out = BufWriter::new(stdout.lock());
        let progress = batch_report::Progress::of(args.file.as_deref());
        let jobs = args.jobs.map_or_else(batch_jobs::default_jobs, usize::from);
        let tally = if jobs == 1 {
            batch::run(reader, &mut out, options, args.snapshots, &name, progress)?
        } else {
            let snapshots = args.snapshots;
            batch_jobs::run(reader, &mut out, options, snapshots, &name, progress, jobs)?
        };
        out.flush().map_err(|e| output_error(e, "stdout"))?;
        if args.summary {
            tally.write()?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = terminal::Output::new(stdout.lock());
    let result = if args.stream {
        stream(input, &mut out, options, &name, args.fixes)?
    } else {
        whole(input, &mut out, options, &name, args.fixes)?
    };
    let Ended {
        verdict,
        fixes,
        doubts,
        reason,
    } = match result {
        Ok(done) => done,
        Err(error) => {
            let hint = match error.kind() {
                ErrorKind::TooDeep => " (raise it with --max-depth)",
                _ => "",
            };
            report(&format!("{error}{hint}"));
            return Ok(ExitCode::from(EXIT_NOT_JSON));
        }
    };
    out.end_line().map_err(|e| output_error(e, "stdout"))?;
    if args.fixes {
        write_fixes(&fixes)?;
        write_doubts(&doubts)?;
    }
    if verdict == Verdict::NotJson {
        let reason = reason.unwrap_or_else(|| "no JSON value found".to_owned());
        report(&format!("not JSON: {reason}"));
        return Ok(ExitCode::from(EXIT_NOT_JSON));
    }
    Ok(ExitCode::SUCCESS)
}

/// The input: FILE, or stdin when there is none or it is `-`; and its name for messages.
///
/// `Send`, so that `--batch --jobs` can read on a thread of its own.
fn open(file: Option<&Path>) -> Result<(Box<dyn Read + Send>, String), Failure> {
    match file {
        Some(path) if path != Path::new("-") => {
            let name = format!("'{}'", path.display());
            let file = File::open(path).with_context(|| format!("cannot open {name}"))?;
            Ok((Box::new(file), name))
        }
        _ => Ok((Box::new(io::stdin()), "stdin".to_owned())),
    }
}

/// What a repair ended with (see [`Finished`]).
struct Ended {
    verdict: Verdict,
    /// The fixes not written yet (all of them, without `--stream`).
    fixes: Vec<Fix>,
    /// Every doubt: they are known only at the end.
    doubts: Vec<Doubt>,
    /// `Outcome::reason`.
    reason: Option<String>,
}

/// How a repair finished: [`Ended`], or the limit that stopped it.
type Finished = Result<Ended, argmend::Error>;

/// Repair everything, then write the text: nothing is written when a limit
/// stops the run.
///
/// The input is still fed a read at a time (the final text is the same for
/// every way of cutting it), so neither the whole input nor the fix log is
/// held: only the output is, and the fixes when `fixes` asks for them. On a
/// 30 MB malformed document the process touched 98 MB before (input, output
/// and a million fixes twice) and spent most of its kernel time clearing
/// fresh pages (`perf record -e cpu-clock`: `clear_page_erms` 41%).
fn whole(
    input: impl Read,
    out: &mut impl Write,
    options: Options,
    name: &str,
    fixes: bool,
) -> Result<Finished, Failure> {
    let mut repairer = Repairer::new(options);
    let mut taken = Vec::new();
    let fed = feed_reads(input, &mut repairer, name, |fed| {
        if let (Fed::Fixes(early), true) = (fed, fixes) {
            taken.extend(early);
        }
        Ok(())
    })?;
    if let Err(error) = fed {
        return Ok(Err(error));
    }
    let outcome = match repairer.finish() {
        Ok(outcome) => outcome,
        Err(error) => return Ok(Err(error)),
    };
    write_out(out, outcome.text())?;
    if fixes {
        taken.extend_from_slice(outcome.fixes());
        // In input order, as a one-shot repair reports them.
        taken.sort_by_key(|fix| fix.offset);
    }
    Ok(Ok(Ended {
        verdict: outcome.verdict(),
        fixes: taken,
        doubts: outcome.doubts().to_vec(),
        reason: outcome.reason().map(str::to_owned),
    }))
}

/// Feed each read as it returns and write each committed piece at once.
///
/// `Retain::Unreturned` lets the repairer forget what it has handed out, and
/// with `--fixes` the fixes are written as they become final, so memory is
/// bounded by the read size plus the open nesting, not the input.
fn stream(
    input: impl Read,
    out: &mut impl Write,
    options: Options,
    name: &str,
    fixes: bool,
) -> Result<Finished, Failure> {
    let mut repairer = Repairer::new(options.retain(Retain::Unreturned));
    let fed = feed_reads(input, &mut repairer, name, |fed| match fed {
        Fed::Text(piece) => write_out(out, piece),
        Fed::Fixes(early) if fixes => write_fixes(&early),
        Fed::Fixes(_) => Ok(()),
    })?;
    if let Err(error) = fed {
        return Ok(Err(error));
    }
    finish(repairer, out)
}

/// What one read gave (see [`feed_reads`]).
enum Fed<'a> {
    /// The output it committed.
    Text(&'a str),
    /// The fixes it made final.
    Fixes(Vec<Fix>),
}

/// Feed `input` to `repairer` a read at a time; after each, hand `each` the
/// output it committed, then the fixes it made final. Those are taken
/// whether or not the caller keeps them, so the fix log does not grow with
/// the input. The inner error is a limit the repairer crossed.
fn feed_reads(
    mut input: impl Read,
    repairer: &mut Repairer,
    name: &str,
    mut each: impl FnMut(Fed<'_>) -> Result<(), Failure>,
) -> Result<Result<(), argmend::Error>, Failure> {
    let mut buf = vec![0; CHUNK];
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => return Ok(Ok(())),
            Ok(n) => n,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => {
                return Err(anyhow!(error).context(format!("cannot read {name}")).into());
            }
        };
        match repairer.feed(&buf[..n]) {
            Ok(piece) => each(Fed::Text(piece))?,
            Err(error) => return Ok(Err(error)),
        }
        each(Fed::Fixes(repairer.take_fixes()))?;
    }
}

/// Close what is open, write the rest of the text, and say how it ended.
fn finish(repairer: Repairer, out: &mut impl Write) -> Result<Finished, Failure> {
    let outcome = match repairer.finish() {
        Ok(outcome) => outcome,
        Err(error) => return Ok(Err(error)),
    };
    write_out(out, outcome.text())?;
    Ok(Ok(Ended {
        verdict: outcome.verdict(),
        fixes: outcome.fixes().to_vec(),
        doubts: outcome.doubts().to_vec(),
        reason: outcome.reason().map(str::to_owned),
    }))
}

/// Write and flush a piece of output (nothing for an empty piece).
fn write_out(out: &mut impl Write, piece: &str) -> Result<(), Failure> {
    if piece.is_empty() {
        return Ok(());
    }
    out.write_all(piece.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| output_error(e, "stdout"))
}

/// `--fixes`: one JSON object per fix on stderr.
fn write_fixes(fixes: &[Fix]) -> Result<(), Failure> {
    write_log(fixes.iter().map(batch::fix_json))
}

/// `--fixes`, after the fixes: one JSON object per doubt on stderr,
/// `{"doubt":"early_close","offset":11,"reason":"…"}`.
fn write_doubts(doubts: &[Doubt]) -> Result<(), Failure> {
    write_log(doubts.iter().map(batch::doubt_log_json))
}

/// Lines of the fix log on stderr.
fn write_log(lines: impl Iterator<Item = String>) -> Result<(), Failure> {
    let mut err = BufWriter::new(io::stderr().lock());
    for line in lines {
        writeln!(err, "{line}").map_err(|e| output_error(e, "stderr"))?;
    }
    err.flush().map_err(|e| output_error(e, "stderr"))
}
