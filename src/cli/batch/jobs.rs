//! `--batch --jobs N`: the lines of a batch answered on N threads, written
//! in input order, with a bounded window of lines in flight.
//!
//! Three parties, joined by channels:
//! - the reader (a thread of its own) cuts the input into batches of lines
//!   and spawns each on the rayon pool, with a one-shot channel for its
//!   answer; it queues that channel's receiving end, in input order, on a
//!   bounded queue to the writer;
//! - the pool answers each batch with [`answer_line`], exactly as
//!   `--jobs 1` does, so the output is byte for byte the same;
//! - the writer (the calling thread, which holds stdout) takes the
//!   receivers in order and writes each batch's lines when they are ready.
//!
//! Why this bounds memory: a batch is at most [`BATCH_LINES`] lines, and the
//! queue holds at most [`WINDOW_PER_JOB`] × N receivers, so the reader
//! blocks once that many batches are read and not yet written, however fast
//! the workers and however large the input. A slow batch holds up the
//! writing, never the workers (they may finish the window) and never memory
//! (the window is full, so the reader waits). Why batches and not lines: a
//! job per 200-byte line spent more time in channels than in repair.
//!
//! Why the writer flushes only when it would wait: as with `--jobs 1`, a
//! pipeline that sends one line at a time sees its answer at once, while a
//! file's output goes out in large writes.

use std::io::{BufRead, BufReader, Read, Write};
use std::sync::mpsc::{self, Receiver, SyncSender, TryRecvError};
use std::thread;

use anyhow::{Context, anyhow};
use argmend::{Options, Retain};

use super::answer_line;
use super::report::{Progress, Tally};
use crate::cli::shared::failure::{Failure, output_error};

/// The most lines one job answers. About 50 KB of typical tool calls: big
/// enough that channels and wake-ups cost nothing next to the repairs,
/// small enough that a short input still spreads over every worker.
const BATCH_LINES: usize = 256;

/// Batches read and not yet written, per worker: enough that a worker
/// finding its next batch never waits for the reader or the writer, and the
/// whole window (2,048 lines with two workers) stays a few MB.
const WINDOW_PER_JOB: usize = 4;

/// The most `--jobs` may ask for: more threads than that only cost memory.
pub(crate) const MAX_JOBS: usize = 256;

/// `--jobs` when it is not given: one worker per core.
pub(crate) fn default_jobs() -> usize {
    thread::available_parallelism().map_or(1, |n| n.get().min(MAX_JOBS))
}

/// Lines read together, answered by one job.
struct Batch {
    /// The number of the first line (1-based).
    first: usize,
    /// The lines as read, line ends included, one after the other.
    text: Vec<u8>,
    /// Where each line ends in `text`.
    ends: Vec<usize>,
}

/// A batch's answers: its output lines and their totals.
struct Done {
    output: String,
    tally: Tally,
}

/// What the reader queues for the writer: the answer of one batch, to come.
type Pending = Receiver<Done>;

/// `--batch` on `jobs` workers (two or more); the same output as
/// [`super::run`], and the totals of `--summary`.
pub(crate) fn run(
    input: BufReader<Box<dyn Read + Send>>,
    out: &mut impl Write,
    options: Options,
    snapshots: bool,
    name: &str,
    progress: Progress,
    jobs: usize,
) -> Result<Tally, Failure> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .thread_name(|i| format!("argmend-batch-{i}"))
        // A panic (an engine bug) is already reported by the panic hook; the
        // batch's sender is then dropped and the writer says so (exit 2),
        // where rayon's default would abort the process.
        .panic_handler(drop)
        .build()
        .context("cannot start the worker threads")?;
    let options = options.retain(Retain::All);
    let (queue, pending) = mpsc::sync_channel::<Pending>(WINDOW_PER_JOB * jobs);
    thread::scope(|scope| {
        let pool = &pool;
        let reader = thread::Builder::new()
            .name("argmend-batch-reader".to_owned())
            .spawn_scoped(scope, move || {
                read(input, &queue, pool, options, snapshots, name, progress)
            })
            .context("cannot start the reader thread")?;
        // The writer ends when the reader has queued its last batch, or
        // first, on an output error; `pending` is then dropped, so the
        // reader's next queueing fails and it stops too.
        let written = write(pending, out);
        let read = reader
            .join()
            .unwrap_or_else(|_| Err(anyhow!("internal error: the reader thread panicked").into()));
        // A read error comes after the lines read before it were written, as
        // with `--jobs 1`; an output error first stopped the reading.
        let tally = written?;
        read?;
        Ok(tally)
    })
}

/// The reader: cut `input` into batches, spawn each on `pool`, and queue
/// its answer for the writer, in order. Returns when the input ends, or
/// early (with `Ok`) when the writer has stopped.
fn read(
    mut input: BufReader<Box<dyn Read + Send>>,
    queue: &SyncSender<Pending>,
    pool: &rayon::ThreadPool,
    options: Options,
    snapshots: bool,
    name: &str,
    mut progress: Progress,
) -> Result<(), Failure> {
    let mut number = 0usize;
    let mut batch = Batch::new(1);
    loop {
        let n = input
            .read_until(b'\n', &mut batch.text)
            .with_context(|| format!("cannot read {name}"));
        let n = match n {
            Ok(n) => n,
            Err(error) => {
                // The lines before the error are answered first.
                send(batch, queue, pool, options, snapshots);
                return Err(error.into());
            }
        };
        if n > 0 {
            progress.line(n);
            number += 1;
            batch.ends.push(batch.text.len());
        }
        // When nothing more is buffered, the next line may be a while (a
        // pipeline waiting for this answer): send what there is now.
        let full = batch.ends.len() == BATCH_LINES || n == 0 || input.buffer().is_empty();
        if full && !batch.ends.is_empty() {
            let next = Batch::new(number + 1);
            if !send(
                std::mem::replace(&mut batch, next),
                queue,
                pool,
                options,
                snapshots,
            ) {
                return Ok(());
            }
        }
        if n == 0 {
            return Ok(());
        }
    }
}

impl Batch {
    fn new(first: usize) -> Self {
        Batch {
            first,
            text: Vec::new(),
            ends: Vec::with_capacity(BATCH_LINES),
        }
    }

    /// Answer every line, as [`super::run`] would.
    fn answer(&self, options: Options, snapshots: bool) -> Done {
        let mut done = Done {
            output: String::with_capacity(self.text.len() + self.text.len() / 2),
            tally: Tally::default(),
        };
        let mut start = 0;
        for (i, &end) in self.ends.iter().enumerate() {
            let line = &self.text[start..end];
            answer_line(
                &mut done.output,
                line,
                self.first + i,
                options,
                snapshots,
                &mut done.tally,
            );
            start = end;
        }
        done
    }
}

/// Spawn `batch` (if it has lines) and queue its answer; false when the
/// writer has stopped.
fn send(
    batch: Batch,
    queue: &SyncSender<Pending>,
    pool: &rayon::ThreadPool,
    options: Options,
    snapshots: bool,
) -> bool {
    if batch.ends.is_empty() {
        return true;
    }
    let (answer, pending) = mpsc::channel();
    pool.spawn(move || {
        // The writer may be gone (an output error): nothing to do then.
        let _ = answer.send(batch.answer(options, snapshots));
    });
    // This blocks while the window is full: the bound on memory.
    queue.send(pending).is_ok()
}

/// The writer: write each batch's answer in input order, flushing whenever
/// the next answer is not there yet; the totals of every line.
fn write(pending: Receiver<Pending>, out: &mut impl Write) -> Result<Tally, Failure> {
    let mut tally = Tally::default();
    let flush = |out: &mut dyn Write| out.flush().map_err(|e| output_error(e, "stdout"));
    loop {
        let next = match pending.try_recv() {
            Ok(next) => next,
            Err(TryRecvError::Empty) => {
                flush(out)?;
                match pending.recv() {
                    Ok(next) => next,
                    Err(_) => return Ok(tally),
                }
            }
            Err(TryRecvError::Disconnected) => return Ok(tally),
        };
        let done = match next.try_recv() {
            Ok(done) => done,
            Err(TryRecvError::Empty) => {
                flush(out)?;
                next.recv().map_err(|_| worker_lost())?
            }
            Err(TryRecvError::Disconnected) => return Err(worker_lost()),
        };
        out.write_all(done.output.as_bytes())
            .map_err(|e| output_error(e, "stdout"))?;
        tally.add(done.tally);
    }
}

/// A batch whose worker stopped without an answer: a panic in the engine,
/// already reported on stderr by the panic hook.
#[cold]
fn worker_lost() -> Failure {
    Failure::Fatal(anyhow!(
        "internal error: a worker thread stopped without answering (see above)"
    ))
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use super::*;

    /// Any number of workers writes what one thread writes, bad lines and
    /// the line numbers of their errors included, across batch boundaries.
    #[test]
    fn jobs_write_what_one_thread_writes() {
        let mut input = String::new();
        for i in 0..1000 {
            match i % 5 {
                0 => input.push_str(&format!("\"{{'a': {i},}}\"\n")),
                1 => input.push_str("not json\n"),
                2 => input.push('\n'),
                3 => input.push_str(&format!("{{\"chunks\": [\"[{i}, \", \"tru\"]}}\n")),
                _ => input.push_str(&format!("{{\"input\": \"{{b: {i}\"}}\r\n")),
            }
        }
        let reader = |text: &str| {
            let boxed: Box<dyn Read + Send> = Box::new(Cursor::new(text.as_bytes().to_vec()));
            BufReader::with_capacity(1000, boxed)
        };
        let options = Options::default();
        let mut one = Vec::new();
        let Ok(tally_one) = crate::cli::batch::run(
            reader(&input),
            &mut one,
            options,
            false,
            "input",
            Progress::new(None),
        ) else {
            panic!("one thread failed");
        };
        assert_eq!(one.iter().filter(|&&b| b == b'\n').count(), 1000);
        for jobs in [2, 3] {
            let mut many = Vec::new();
            let Ok(tally) = run(
                reader(&input),
                &mut many,
                options,
                false,
                "input",
                Progress::new(None),
                jobs,
            ) else {
                panic!("{jobs} jobs failed");
            };
            assert_eq!(tally.to_json(), tally_one.to_json());
            assert_eq!(
                String::from_utf8_lossy(&many),
                String::from_utf8_lossy(&one)
            );
        }
    }
}
