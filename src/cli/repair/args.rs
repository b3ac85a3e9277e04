//! The options of `argmend repair`, as clap sees them.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

/// Options of `argmend repair`.
#[derive(Debug, Args)]
pub(crate) struct RepairArgs {
    /// The input file; stdin when absent or `-`.
    #[arg(value_name = "FILE")]
    pub(crate) file: Option<PathBuf>,

    /// What to do with several top-level values.
    #[arg(long, value_enum, value_name = "MODE", default_value_t = ValuesArg::First)]
    pub(crate) values: ValuesArg,

    /// Nesting deeper than N containers stops the repair (exit 1).
    #[arg(long, value_name = "N", default_value_t = argmend::Options::default().depth_limit())]
    pub(crate) max_depth: usize,

    /// Read the input as it arrives and write each repaired piece at once,
    /// without keeping the output in memory. The output is the same as
    /// without --stream, except that if a limit stops the run midway, what was
    /// already written stays.
    #[arg(long, conflicts_with = "batch")]
    pub(crate) stream: bool,

    /// Write the fix log to stderr as JSON Lines: {"kind":"quoted_key","offset":12}
    /// per fix, then {"doubt":"early_close","offset":11,"reason":"…"} per doubt
    /// (a place the input could be read two ways and the repair chose one; the
    /// verdict and exit code do not change). With --stream the fixes come as
    /// they become final and the doubts at the end.
    #[arg(long, conflicts_with = "batch")]
    pub(crate) fixes: bool,

    /// JSON Lines in, JSON Lines out: one repair per line (see below).
    #[arg(long)]
    pub(crate) batch: bool,

    /// With --batch: add "deltas" and "snapshots" (one per chunk) to each line.
    #[arg(long, requires = "batch")]
    pub(crate) snapshots: bool,

    /// With --batch: answer the lines on N threads (default: one per core).
    /// The output is the same for every N, line for line in input order, and
    /// at most a few thousand lines are in flight, whatever the input's size.
    #[arg(
        long,
        value_name = "N",
        requires = "batch",
        value_parser = clap::value_parser!(u16).range(1..=crate::cli::batch::jobs::MAX_JOBS as i64)
    )]
    pub(crate) jobs: Option<u16>,

    /// With --batch: at the end, write the totals to stderr as one JSON
    /// line, {"lines":N,"errors":N,"verdicts":{…},"fixes":{…},"doubts":{…}},
    /// where each {…} counts by kind: {"repaired":N,…}, {"quoted_key":N,…}.
    #[arg(long, requires = "batch")]
    pub(crate) summary: bool,

    /// Normalize the input as the arguments of tool NAME: a plain value is
    /// wrapped into its primary field (`main.go` for read_file →
    /// {"file":"main.go"}), a command line becomes fields, typographic quotes
    /// standing as delimiters in code content are straightened (never those
    /// in its literals and comments). An empty input is `{}`, a call without
    /// arguments. Input that is still not JSON (a plain value for a tool with
    /// no primary field) is written back unchanged, with exit 1.
    #[arg(long, value_name = "NAME", conflicts_with = "batch")]
    pub(crate) tool: Option<String>,

    /// Coerce values to a JSON Schema (with --tool or alone): "1" → 1 where
    /// it says integer, and so on. FILE holds the schema (a JSON object), or
    /// a whole OpenAI or Anthropic tool definition, whose name then stands
    /// for --tool. A file that is not a JSON Schema is refused (exit 2); an
    /// empty input is not JSON (exit 1), unless there is a tool.
    #[arg(long, value_name = "FILE", conflicts_with = "batch")]
    pub(crate) schema: Option<PathBuf>,

    /// With --schema: drop the keys the schema does not declare.
    #[arg(long, requires = "schema")]
    pub(crate) strict: bool,
}

/// `--values`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ValuesArg {
    /// Keep the first top-level value; drop what follows.
    First,
    /// Repair every top-level value and write each on its own line (not with --batch).
    Lines,
    /// Put every top-level value into one array.
    Array,
}

impl From<ValuesArg> for argmend::Values {
    fn from(values: ValuesArg) -> Self {
        match values {
            ValuesArg::First => argmend::Values::First,
            ValuesArg::Lines => argmend::Values::Lines,
            ValuesArg::Array => argmend::Values::Array,
        }
    }
}
