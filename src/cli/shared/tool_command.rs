//! What `argmend json` and `argmend diff` share: the same two ways to ask
//! (a verb with flags, or one envelope), the same workspace option, and the
//! same contract for the answer (stdout, where a model reads it, and exit
//! 0, 1 for a refusal, 2 for a usage or I/O error). Written once so that the
//! two commands cannot drift apart.

use std::fmt;
use std::io::{self, StdoutLock, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use argmend::tools::{Workspace, diff, json};
use clap::{Args, Subcommand};

/// Exit 1: the tool refused (the model should fix its call), or `validate`
/// found the document invalid.
pub(crate) const EXIT_REFUSED: u8 = 1;
/// Exit 2: usage or I/O error.
pub(crate) const EXIT_ERROR: u8 = 2;

/// The command line of a tool command: a verb `V` with its flags, or one
/// envelope. Each command names its own example envelope in the help
/// (`mut_arg("envelope", …)` where it is declared).
#[derive(Debug, Args)]
pub(crate) struct ToolArgs<V: Subcommand> {
    /// Every path must be inside this directory (default: the current directory).
    #[arg(long, value_name = "DIR", global = true)]
    workspace: Option<PathBuf>,

    /// A call in the envelope form.
    #[arg(
        value_name = "ENVELOPE",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    envelope: Vec<String>,

    #[command(subcommand)]
    verb: Option<V>,
}

/// What a tool command was asked.
pub(crate) enum Asked<V> {
    /// A verb with its flags.
    Verb(V),
    /// A call in the envelope form.
    Envelope(String),
}

/// The help of `ENVELOPE`, with the command's own example call.
pub(crate) fn envelope_help(arg: clap::Arg, example: &str) -> clap::Arg {
    // The words are taken as a list so that an unknown verb with its flags
    // (`gett --file a.json`) is answered as an unknown verb, not as a stray
    // flag; the user only ever gives one envelope.
    arg.help(format!(
        "Instead of a verb: the whole call as one JSON argument (the form a model writes), \
         e.g. '{example}'"
    ))
}

/// How a tool command names itself in its messages (its verbs are the
/// ones its verb enum declares).
pub(crate) struct Command {
    /// The subcommand: `json`, `diff`.
    pub(crate) name: &'static str,
    /// What it does, in "say what to …".
    pub(crate) does: &'static str,
}

impl Command {
    /// Run the command: `answer` gets the workspace and what was asked; when
    /// either is wrong or nothing was asked, the exit code after saying why.
    pub(crate) fn run<V: Subcommand>(
        &self,
        args: ToolArgs<V>,
        answer: impl FnOnce(Workspace, Asked<V>) -> ExitCode,
    ) -> ExitCode {
        match self.open(args) {
            Ok((workspace, asked)) => answer(workspace, asked),
            Err(code) => code,
        }
    }

    /// The workspace and what was asked, or the exit code (see [`Command::run`]).
    fn open<V: Subcommand>(&self, args: ToolArgs<V>) -> Result<(Workspace, Asked<V>), ExitCode> {
        let root = args.workspace.unwrap_or_else(|| PathBuf::from("."));
        let workspace = Workspace::new(&root).map_err(|error| fail(&error, EXIT_ERROR))?;
        let envelope = self
            .envelope_or_unknown_verb::<V>(args.envelope)
            .map_err(|message| fail(&message, EXIT_ERROR))?;
        let asked = match (args.verb, envelope) {
            (Some(verb), _) => Asked::Verb(verb),
            (None, Some(envelope)) => Asked::Envelope(envelope),
            (None, None) => {
                let message = format!(
                    "say what to {}: a verb ({}) or an envelope '{{\"cmd\":…,\"args\":…}}'; see \
                     `argmend {} --help`",
                    self.does,
                    verbs::<V>(),
                    self.name
                );
                return Err(fail(&message, EXIT_ERROR));
            }
        };
        Ok((workspace, asked))
    }

    /// The envelope, or why the words given are not one: an unknown verb
    /// (`gett`) is named, with the verbs there are.
    fn envelope_or_unknown_verb<V: Subcommand>(
        &self,
        words: Vec<String>,
    ) -> Result<Option<String>, String> {
        match words.as_slice() {
            [] => Ok(None),
            [envelope] if envelope.trim_start().starts_with('{') => Ok(words.into_iter().next()),
            [first, ..] => Err(format!(
                "unknown verb `{first}`: the verbs are {}; or give one envelope \
                 '{{\"cmd\":…,\"args\":…}}'; see `argmend {} --help`",
                verbs::<V>(),
                self.name
            )),
        }
    }
}

/// The verbs of `V` as the messages list them (`get, keys, …`), in the
/// order the enum declares them: taken from clap, so that a new verb cannot
/// be missing from the list.
fn verbs<V: Subcommand>() -> String {
    let command = V::augment_subcommands(clap::Command::new("verbs"));
    let names: Vec<&str> = command
        .get_subcommands()
        .map(clap::Command::get_name)
        .collect();
    names.join(", ")
}

/// Write an answer to stdout and exit with `code`; a closed stdout is not
/// an error (like ripgrep, `head`).
pub(crate) fn print(
    code: u8,
    write: impl FnOnce(&mut StdoutLock<'static>) -> io::Result<()>,
) -> ExitCode {
    let mut out = io::stdout().lock();
    match write(&mut out).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::from(code),
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            let _ = writeln!(io::stderr(), "argmend: cannot write to stdout: {error}");
            ExitCode::from(EXIT_ERROR)
        }
    }
}

/// A tool's error: what the model should fix (exit 1), or a usage or I/O
/// error (exit 2).
pub(crate) trait ToolError: fmt::Display {
    fn is_refusal(&self) -> bool;
}

impl ToolError for json::Error {
    fn is_refusal(&self) -> bool {
        json::Error::is_refusal(self)
    }
}

impl ToolError for diff::Error {
    fn is_refusal(&self) -> bool {
        diff::Error::is_refusal(self)
    }
}

/// A tool's error on stdout, with its exit code.
pub(crate) fn refused(error: &impl ToolError) -> ExitCode {
    let code = if error.is_refusal() {
        EXIT_REFUSED
    } else {
        EXIT_ERROR
    };
    fail(error, code)
}

/// The message on stdout (where a model reads it), and the exit code.
pub(crate) fn fail(message: &dyn fmt::Display, code: u8) -> ExitCode {
    let mut out = io::stdout().lock();
    let _ = writeln!(out, "{message}").and_then(|()| out.flush());
    ExitCode::from(code)
}
