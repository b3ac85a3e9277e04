//! `argmend repair`: one document (`text.rs`), tool-aware normalization
//! (`tool.rs`, `--tool`/`--schema`), or JSON Lines (`--batch`, in `batch/`).

pub(crate) mod args;
mod terminal;
mod text;
mod tool;

use std::io::{self, BufReader, BufWriter, Write};
use std::process::ExitCode;

use argmend::{ErrorKind, Options, Values, Verdict};

use self::args::RepairArgs;
use self::text::{CHUNK, Ended, open, stream, whole, write_doubts, write_fixes};
use crate::cli::batch;
use crate::cli::shared::failure::{EXIT_ERROR, EXIT_NOT_JSON, Failure, output_error, report};

/// Run, and map the result to an exit code.
pub(crate) fn main(args: &RepairArgs) -> ExitCode {
    match run(args) {
        Ok(code) => code,
        Err(Failure::BrokenPipe) => ExitCode::SUCCESS,
        Err(Failure::Fatal(error)) => {
            report(&format!("{error:#}"));
            ExitCode::from(EXIT_ERROR)
        }
    }
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
        let progress = batch::report::Progress::of(args.file.as_deref());
        let jobs = args
            .jobs
            .map_or_else(batch::jobs::default_jobs, usize::from);
        let tally = if jobs == 1 {
            batch::run(reader, &mut out, options, args.snapshots, &name, progress)?
        } else {
            let snapshots = args.snapshots;
            batch::jobs::run(reader, &mut out, options, snapshots, &name, progress, jobs)?
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
