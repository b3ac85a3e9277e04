//! `argmend repair FILE`: one document, repaired whole (`whole`) or as it
//! arrives (`--stream`), and the fix log.

use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::Path;

use anyhow::{Context, anyhow};
use argmend::{Doubt, Fix, Options, Repairer, Retain, Verdict};

use crate::cli::shared::failure::{Failure, output_error};
use crate::cli::shared::log;

/// How much `--stream` asks for per read (a read may return less).
pub(super) const CHUNK: usize = 64 * 1024;

/// The input: FILE, or stdin when there is none or it is `-`; and its name for messages.
///
/// `Send`, so that `--batch --jobs` can read on a thread of its own.
pub(super) fn open(file: Option<&Path>) -> Result<(Box<dyn Read + Send>, String), Failure> {
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
pub(super) struct Ended {
    pub(super) verdict: Verdict,
    /// The fixes not written yet (all of them, without `--stream`).
    pub(super) fixes: Vec<Fix>,
    /// Every doubt: they are known only at the end.
    pub(super) doubts: Vec<Doubt>,
    /// `Outcome::reason`.
    pub(super) reason: Option<String>,
}

/// How a repair finished: [`Ended`], or the limit that stopped it.
pub(super) type Finished = Result<Ended, argmend::Error>;

/// Repair everything, then write the text: nothing is written when a limit
/// stops the run.
///
/// The input is still fed a read at a time (the final text is the same for
/// every way of cutting it), so neither the whole input nor the fix log is
/// held: only the output is, and the fixes when `fixes` asks for them. On a
/// 30 MB malformed document the process touched 98 MB before (input, output
/// and a million fixes twice) and spent most of its kernel time clearing
/// fresh pages (`perf record -e cpu-clock`: `clear_page_erms` 41%).
///
/// Except while the input may be valid JSON: when the first read settles no
/// fix, the rest is read into one buffer (up to [`HOLD`] bytes) instead of
/// fed, and the one-shot [`argmend::repair_with`] takes it all, which hands
/// valid JSON back after one strict pass, about what a serde_json validation
/// costs, where the streaming machine's lane took twice the instructions
/// (issue 45, callgrind on a valid 30 MB file: 673 M fed, 302 M so, a
/// serde_json validate-and-copy 362 M). What is held is the input where the
/// output would have been, so valid input takes no more memory; input that
/// breaks after its first read holds both, input and output, for at most
/// [`HOLD`] bytes of input. The outcome is the same whichever path reads it
/// (one shot is one feed and a finish).
pub(super) fn whole(
    mut input: impl Read,
    out: &mut impl Write,
    options: Options,
    name: &str,
    fixes: bool,
) -> Result<Finished, Failure> {
    let mut repairer = Repairer::new(options);
    let mut taken = Vec::new();
    let mut first = vec![0; CHUNK];
    let n = read(&mut input, &mut first, name)?;
    if n > 0 {
        if let Err(error) = repairer.feed(&first[..n]) {
            return Ok(Err(error));
        }
        if take_fixes(&mut repairer, &mut taken, fixes) {
            // No fix settled: hold the rest, read straight into one buffer.
            let mut held = first;
            held.truncate(n);
            let room = (HOLD - n) as u64 + 1;
            if let Err(error) = input.by_ref().take(room).read_to_end(&mut held) {
                return Err(anyhow!(error).context(format!("cannot read {name}")).into());
            }
            if held.len() <= HOLD {
                return one_shot(&held, out, options, fixes);
            }
            // Too much to hold: feed it after all, and go on reading.
            for piece in held[n..].chunks(CHUNK) {
                if let Err(error) = repairer.feed(piece) {
                    return Ok(Err(error));
                }
                take_fixes(&mut repairer, &mut taken, fixes);
            }
        }
    }
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

/// [`whole`] for input held whole: repaired in one shot, which is one feed
/// and a finish, so the outcome is the one the reads would have given.
fn one_shot(
    input: &[u8],
    out: &mut impl Write,
    options: Options,
    fixes: bool,
) -> Result<Finished, Failure> {
    let outcome = match argmend::repair_with(input, options) {
        Ok(outcome) => outcome,
        Err(error) => return Ok(Err(error)),
    };
    write_out(out, outcome.text())?;
    Ok(Ok(Ended {
        verdict: outcome.verdict(),
        fixes: if fixes {
            outcome.fixes().to_vec()
        } else {
            Vec::new()
        },
        doubts: outcome.doubts().to_vec(),
        reason: outcome.reason().map(str::to_owned),
    }))
}

/// How much input [`whole`] holds while it may be valid JSON before it
/// feeds it after all: past this, valid input takes the streaming path as
/// before, and input broken late is not held twice (input and output).
const HOLD: usize = 64 << 20;

/// Take the fixes `repairer` has made final (kept when `keep`); whether
/// there were none.
fn take_fixes(repairer: &mut Repairer, taken: &mut Vec<Fix>, keep: bool) -> bool {
    let early = repairer.take_fixes();
    let none = early.is_empty();
    if keep {
        taken.extend(early);
    }
    none
}

/// Feed each read as it returns and write each committed piece at once.
///
/// `Retain::Unreturned` lets the repairer forget what it has handed out, and
/// with `--fixes` the fixes are written as they become final, so memory is
/// bounded by the read size plus the open nesting, not the input.
pub(super) fn stream(
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
        let n = read(&mut input, &mut buf, name)?;
        if n == 0 {
            return Ok(Ok(()));
        }
        match repairer.feed(&buf[..n]) {
            Ok(piece) => each(Fed::Text(piece))?,
            Err(error) => return Ok(Err(error)),
        }
        each(Fed::Fixes(repairer.take_fixes()))?;
    }
}

/// One read of `input` into `buf` (0 at its end), tried again when interrupted.
fn read(input: &mut impl Read, buf: &mut [u8], name: &str) -> Result<usize, Failure> {
    loop {
        match input.read(buf) {
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => {
                return Err(anyhow!(error).context(format!("cannot read {name}")).into());
            }
            Ok(n) => return Ok(n),
        }
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
pub(super) fn write_out(out: &mut impl Write, piece: &str) -> Result<(), Failure> {
    if piece.is_empty() {
        return Ok(());
    }
    out.write_all(piece.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| output_error(e, "stdout"))
}

/// `--fixes`: one JSON object per fix on stderr.
pub(super) fn write_fixes(fixes: &[Fix]) -> Result<(), Failure> {
    write_log(fixes.iter().map(log::fix_json))
}

/// `--fixes`, after the fixes: one JSON object per doubt on stderr,
/// `{"doubt":"early_close","offset":11,"reason":"…"}`.
pub(super) fn write_doubts(doubts: &[Doubt]) -> Result<(), Failure> {
    write_log(doubts.iter().map(log::doubt_log_json))
}

/// Lines of the fix log on stderr.
fn write_log(lines: impl Iterator<Item = String>) -> Result<(), Failure> {
    let mut err = BufWriter::new(io::stderr().lock());
    for line in lines {
        writeln!(err, "{line}").map_err(|e| output_error(e, "stderr"))?;
    }
    err.flush().map_err(|e| output_error(e, "stderr"))
}
