//! `argmend json`: the `@json` tool from the command line. The library does
//! the work; this module turns arguments into calls, answers into stdout and
//! errors into exit codes.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use argmend::tools::Workspace;
use argmend::tools::json::{self, Answer, Layout, Query, Source};
use clap::{Args, Subcommand};

use super::shared::tool_command::{Asked, Command, EXIT_REFUSED, ToolArgs, print, refused};

/// Shown under `argmend json --help`.
pub(super) const HELP: &str = "\
Examples:
  argmend json get --file resp.json --path 'data.items[3].name'
  argmend json get --file resp.json --path 'data.items[*].id'
  argmend json keys --file values.yaml --path image
  argmend json query --file resp.json --path data.items --where 'status=failed && name~^web' --select id,name
  argmend json schema --file resp.json --depth 4
  argmend json validate --text '{\"a\": 1,}'
  argmend json pretty --file values.yaml --compact
  argmend json '{\"cmd\":\"schema\",\"args\":{\"file\":\"resp.json\"}}'

Paths: a.b[0].c, [-1] from the end, * over every element or member,
[\"key.with.dots\"] for any key. Files (at most 20 MB) must be inside the
workspace (--workspace, default the current directory). .yaml/.yml files are
read as YAML, also behind a backup suffix (values.yaml.bak, values.yml~, .orig,
.old); .json files as JSON; --text, and a file whose name says neither, as JSON,
or as YAML when it is not JSON but reads as a YAML mapping or list.

Exit codes:
  0  an answer (validate: the document is valid)
  1  the tool refused: no such key, an index out of range, a document that
     does not parse, a path outside the workspace; validate: the document is
     invalid (the message is on stdout, as a model would see it)
  2  usage error: an unknown verb, a path, where clause or regex that does
     not parse; or an input/output error (e.g. a file that does not exist)";

/// The example call in the help of `ENVELOPE`.
pub(super) const EXAMPLE: &str = r#"{"cmd":"get","args":{"file":"resp.json","path":"a.b"}}"#;

/// `--file` or `--text`: where the document comes from.
#[derive(Debug, Args)]
#[group(required = true, multiple = false)]
pub(crate) struct SourceArgs {
    /// A JSON or YAML file inside the workspace (at most 20 MB).
    #[arg(long, value_name = "FILE")]
    file: Option<PathBuf>,
    /// The document inline (JSON, or YAML).
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    text: Option<String>,
}

impl SourceArgs {
    fn source(&self) -> Source<'_> {
        match (&self.file, &self.text) {
            (Some(file), _) => Source::File(file),
            (None, Some(text)) => Source::Text(text),
            // clap's group makes one of them required.
            (None, None) => Source::Text(""),
        }
    }
}

/// `--path` for a verb that starts at the root when it is left out.
#[derive(Debug, Args)]
pub(crate) struct RootPath {
    /// The path (default: the root).
    #[arg(
        long,
        default_value = "",
        hide_default_value = true,
        allow_hyphen_values = true
    )]
    path: String,
}

/// The verbs of `argmend json`.
#[derive(Debug, Subcommand)]
pub(crate) enum JsonVerb {
    /// The value at a path: a.b[0].c, [-1], *, ["key.with.dots"].
    Get {
        #[command(flatten)]
        source: SourceArgs,
        /// The path: a.b[0].c, [-1] from the end, * for every element or member,
        /// ["key.with.dots"].
        #[arg(long, allow_hyphen_values = true)]
        path: String,
    },
    /// The keys one level below a path, each with a type summary.
    Keys {
        #[command(flatten)]
        source: SourceArgs,
        #[command(flatten)]
        path: RootPath,
    },
    /// The elements of an array of objects that pass a filter.
    #[command(mut_arg("path", |arg| arg.help("The path of the array (default: the root)")))]
    Query {
        #[command(flatten)]
        source: SourceArgs,
        #[command(flatten)]
        path: RootPath,
        /// The filter: field=value, field!=value, field~regex, joined by &&.
        #[arg(long = "where", value_name = "FILTER", allow_hyphen_values = true)]
        filter: String,
        /// Keep only these fields: id,name,meta.owner.
        #[arg(long, value_name = "FIELDS")]
        select: Option<String>,
        /// Show at most N matches (at most 200).
        #[arg(long, value_name = "N", default_value_t = json::DEFAULT_LIMIT)]
        limit: usize,
    },
    /// The inferred shape: types per path, key frequencies in arrays of objects.
    Schema {
        #[command(flatten)]
        source: SourceArgs,
        /// Levels below the root (at most 8).
        #[arg(long, value_name = "N", default_value_t = json::DEFAULT_DEPTH)]
        depth: usize,
    },
    /// The first parse error with its line, column and a caret, or "valid".
    Validate {
        #[command(flatten)]
        source: SourceArgs,
    },
    /// Reindent by 2 spaces (or compact), keeping key order and number text.
    Pretty {
        #[command(flatten)]
        source: SourceArgs,
        /// No whitespace at all.
        #[arg(long)]
        compact: bool,
    },
}

/// How `argmend json` names itself in its messages.
const JSON: Command = Command {
    name: "json",
    does: "ask",
};

/// Run `argmend json` and map the outcome to an exit code.
pub(crate) fn main(args: ToolArgs<JsonVerb>) -> ExitCode {
    JSON.run(args, |workspace, asked| {
        let answer = match asked {
            Asked::Verb(verb) => run_verb(&workspace, &verb),
            Asked::Envelope(envelope) => json::call(&workspace, &envelope),
        };
        match answer {
            Ok(answer) => {
                let code = match &answer {
                    Answer::Validate(validation) if !validation.is_valid() => EXIT_REFUSED,
                    _ => 0,
                };
                print(code, |out| write!(out, "{answer}"))
            }
            Err(error) => refused(&error),
        }
    })
}

fn run_verb(workspace: &Workspace, verb: &JsonVerb) -> Result<Answer, json::Error> {
    match verb {
        JsonVerb::Get { source, path } => {
            json::get(workspace, source.source(), path).map(Answer::Get)
        }
        JsonVerb::Keys { source, path } => {
            json::keys(workspace, source.source(), &path.path).map(Answer::Keys)
        }
        JsonVerb::Query {
            source,
            path,
            filter,
            select,
            limit,
        } => {
            let mut query = Query::new(filter).path(&path.path).limit(*limit);
            if let Some(select) = select {
                query = query.select(select);
            }
            json::query(workspace, source.source(), &query).map(Answer::Query)
        }
        JsonVerb::Schema { source, depth } => {
            json::schema(workspace, source.source(), *depth).map(Answer::Schema)
        }
        JsonVerb::Validate { source } => {
            json::validate(workspace, source.source()).map(Answer::Validate)
        }
        JsonVerb::Pretty { source, compact } => {
            let layout = if *compact {
                Layout::Compact
            } else {
                Layout::Indented
            };
            json::pretty(workspace, source.source(), layout).map(Answer::Pretty)
        }
    }
}
