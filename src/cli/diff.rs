//! `argmend diff`: the `@diff` tool from the command line. The library does
//! the work; this module turns arguments into calls, answers into stdout and
//! errors into exit codes.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use argmend::tools::Workspace;
use argmend::tools::diff::{self, Answer, DiffOptions, Mode};
use clap::Subcommand;

use super::shared::tool_command::{Asked, Command, EXIT_ERROR, ToolArgs, fail, print, refused};

/// Shown under `argmend diff --help`.
pub(super) const HELP: &str = "\
Examples:
  argmend diff files config/old.yaml config/new.yaml --context 5
  argmend diff text --a $'one\\ntwo\\n' --b $'one\\n2\\n'
  argmend diff dirs v1 v2 --glob 'src/**/*.rs'
  argmend diff apply src/app.py --patch fix.diff            # dry run: checks only
  argmend diff apply src/app.py --patch fix.diff --write    # writes src/app.py.bak, then the file
  argmend diff apply . --patch series.diff --write          # a patch for several files
  argmend diff json old.json new.json
  argmend diff json k8s/old.yaml k8s/new.yaml      # spec.replicas: 2 → 3, not a reindent
  argmend diff '{\"cmd\":\"files\",\"args\":{\"a\":\"old.txt\",\"b\":\"new.txt\"}}'

Every path must be inside the workspace (--workspace, default the current
directory): absolute paths elsewhere, `..` escapes and symbolic links that lead
out are refused. apply checks every context and removed line at the position
the hunk header declares and refuses at the first mismatch; a patch for several
files applies to all of them or to none.

Exit codes:
  0  an answer (identical inputs included; a dry run that applies cleanly)
  1  the tool refused: a hunk that does not match, a patch that does not
     parse, a binary or too large file, a path outside the workspace (the
     message is on stdout, as a model would see it)
  2  usage error, or an input/output error (e.g. a file that does not exist)";

/// The example call in the help of `ENVELOPE`.
pub(super) const EXAMPLE: &str = r#"{"cmd":"files","args":{"a":"old.txt","b":"new.txt"}}"#;

/// The verbs of `argmend diff`.
#[derive(Debug, Subcommand)]
pub(crate) enum DiffVerb {
    /// Unified diff of two files (each at most 4 MB).
    Files {
        /// The old file.
        a: PathBuf,
        /// The new file.
        b: PathBuf,
        /// Lines of context around each change (at most 50).
        #[arg(long, value_name = "N", default_value_t = 3)]
        context: usize,
    },
    /// Unified diff of two inline texts.
    Text {
        /// The old text.
        #[arg(long, allow_hyphen_values = true)]
        a: String,
        /// The new text.
        #[arg(long, allow_hyphen_values = true)]
        b: String,
        /// Lines of context around each change (at most 50).
        #[arg(long, value_name = "N", default_value_t = 3)]
        context: usize,
    },
    /// Files added, removed and changed between two trees (names only).
    Dirs {
        /// The old tree.
        a: PathBuf,
        /// The new tree.
        b: PathBuf,
        /// Only names matching this glob: '*.go', 'src/**/*.rs'.
        #[arg(long, value_name = "GLOB")]
        glob: Option<String>,
    },
    /// Apply a unified patch strictly (a dry run unless --write).
    Apply {
        /// The file to patch, or a directory for a patch naming several files.
        file: PathBuf,
        /// The patch file (`-` for stdin).
        #[arg(long, value_name = "P.diff")]
        patch: PathBuf,
        /// Write the patched files, each after saving its original as
        /// `<file>.bak`; without --write, only check that the patch applies.
        #[arg(long)]
        write: bool,
    },
    /// Structural diff of two JSON or YAML documents by path (files or inline).
    Json {
        /// The old document: a path (read as `argmend json` reads files:
        /// `.yaml`/`.yml`, also `.yaml.bak`, as YAML), inline JSON starting with
        /// `{` or `[`, or inline YAML (text with a newline).
        a: String,
        /// The new document, in the same forms as A.
        b: String,
    },
}

/// How `argmend diff` names itself in its messages.
const DIFF: Command = Command {
    name: "diff",
    does: "diff",
};

/// Run `argmend diff` and map the outcome to an exit code.
pub(crate) fn main(args: ToolArgs<DiffVerb>) -> ExitCode {
    DIFF.run(args, |workspace, asked| {
        let from_flags = matches!(asked, Asked::Verb(_));
        let answer = match asked {
            Asked::Verb(verb) => run_verb(&workspace, verb),
            Asked::Envelope(envelope) => diff::call(&workspace, &envelope).map_err(Failure::Tool),
        };
        match answer {
            Ok(answer) => print(0, |out| match &answer {
                // The command line's own wording (`--write`, not `dry_run`).
                diff::Answer::Apply(report) if from_flags => write!(out, "{report:#}"),
                _ => answer.write_to(out),
            }),
            Err(Failure::Tool(error)) => refused(&error),
            Err(Failure::Usage(message)) => fail(&message, EXIT_ERROR),
        }
    })
}

/// Why a verb gave no answer.
enum Failure {
    /// The tool's own error (exit 1 or 2 by its kind).
    Tool(diff::Error),
    /// The CLI could not even ask (exit 2).
    Usage(String),
}

impl From<diff::Error> for Failure {
    fn from(error: diff::Error) -> Self {
        Failure::Tool(error)
    }
}

fn run_verb(workspace: &Workspace, verb: DiffVerb) -> Result<Answer, Failure> {
    match verb {
        DiffVerb::Files { a, b, context } => {
            let options = DiffOptions::default().context(context);
            Ok(Answer::Diff(diff::diff_files(workspace, &a, &b, options)?))
        }
        DiffVerb::Text { a, b, context } => {
            let options = DiffOptions::default().context(context);
            Ok(Answer::Diff(diff::diff_text(&a, &b, options)?))
        }
        DiffVerb::Dirs { a, b, glob } => Ok(Answer::Dirs(diff::diff_dirs(
            workspace,
            &a,
            &b,
            glob.as_deref(),
        )?)),
        DiffVerb::Apply { file, patch, write } => {
            let patch = read_patch(&patch)?;
            let mode = if write { Mode::Write } else { Mode::DryRun };
            Ok(Answer::Apply(diff::apply(workspace, &file, &patch, mode)?))
        }
        DiffVerb::Json { a, b } => Ok(Answer::Json(diff::diff_json(workspace, &a, &b)?)),
    }
}

/// The patch: a file (anywhere: it is only read), or stdin for `-`.
fn read_patch(path: &Path) -> Result<Vec<u8>, Failure> {
    let mut bytes = Vec::new();
    let result = if path == Path::new("-") {
        io::stdin().read_to_end(&mut bytes).map(drop)
    } else {
        std::fs::File::open(path).and_then(|mut file| file.read_to_end(&mut bytes).map(drop))
    };
    result.map_err(|error| {
        Failure::Usage(format!(
            "cannot read the patch `{}`: {error}",
            path.display()
        ))
    })?;
    Ok(bytes)
}
