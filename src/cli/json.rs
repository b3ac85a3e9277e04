//! `argmend json`: the `@json` tool from the command line. The library does
//! the work; this module turns arguments into calls, answers into stdout and
//! errors into exit codes.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use argmend::tools::Workspace;
use argmend::tools::json::{self, Answer, Layout, Query, Source};
use clap::{Args, Subcommand};

/// Exit 1: the tool refused, or `validate` found the document invalid.
const EXIT_REFUSED: u8 = 1;
/// Exit 2: usage or I/O error.
const EXIT_ERROR: u8 = 2;

/// Shown under `argmend json --help`.
macro_rules! json_help {
    () => {
        "\
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
read as YAML; so is --text that is not JSON but parses as a YAML mapping or list.

Exit codes:
  0  an answer (validate: the document is valid)
  1  the tool refused: no such key, an index out of range, a document that
     does not parse, a path outside the workspace; validate: the document is
     invalid (the message is on stdout, as a model would see it)
  2  usage error: an unknown verb, a path, where clause or regex that does
     not parse; or an input/output error (e.g. a file that does not exist)"
    };
}

/// Options of `argmend json`.
#[derive(Debug, Args)]
#[command(after_help = json_help!())]
pub(crate) struct JsonArgs {
    /// Every path must be inside this directory (default: the current directory).
    #[arg(long, value_name = "DIR", global = true)]
    pub(crate) workspace: Option<PathBuf>,

    /// A call in the envelope form: '{"cmd":"get","args":{"file":"resp.json","path":"a.b"}}'.
    /// (Taken as a list so that an unknown verb with its flags,
    /// `gett --file a.json`, is answered as an unknown verb, not as a stray flag.)
    #[arg(
        value_name = "ENVELOPE",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub(crate) envelope: Vec<String>,

    #[command(subcommand)]
    pub(crate) verb: Option<JsonVerb>,
}

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

/// The verbs of `argmend json`.
#[derive(Debug, Subcommand)]
pub(crate) enum JsonVerb {
    /// The value at a path: a.b[0].c, [-1], *, ["key.with.dots"].
    Get {
        #[command(flatten)]
        source: SourceArgs,
        /// The path.
        #[arg(long, allow_hyphen_values = true)]
        path: String,
    },
    /// The keys one level below a path, each with a type summary.
    Keys {
        #[command(flatten)]
        source: SourceArgs,
        /// The path (default: the root).
        #[arg(
            long,
            default_value = "",
            hide_default_value = true,
            allow_hyphen_values = true
        )]
        path: String,
    },
    /// The elements of an array of objects that pass a filter.
    Query {
        #[command(flatten)]
        source: SourceArgs,
        /// The path of the array (default: the root).
        #[arg(
            long,
            default_value = "",
            hide_default_value = true,
            allow_hyphen_values = true
        )]
        path: String,
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

/// Run `argmend json` and map the outcome to an exit code.
pub(crate) fn main(args: JsonArgs) -> ExitCode {
    let root = args.workspace.clone().unwrap_or_else(|| PathBuf::from("."));
    let workspace = match Workspace::new(&root) {
        Ok(workspace) => workspace,
        Err(error) => return fail(&error.to_string(), EXIT_ERROR),
    };
    let envelope = match envelope_or_unknown_verb(args.envelope) {
        Ok(envelope) => envelope,
        Err(message) => return fail(&message, EXIT_ERROR),
    };
    let answer = match (args.verb, envelope) {
        (Some(verb), _) => run_verb(&workspace, &verb),
        (None, Some(envelope)) => json::call(&workspace, &envelope),
        (None, None) => {
            return fail(
                "say what to ask: a verb (get, keys, query, schema, validate, pretty) or an \
                 envelope '{\"cmd\":…,\"args\":…}'; see `argmend json --help`",
                EXIT_ERROR,
            );
        }
    };
    match answer {
        Ok(answer) => {
            let code = match &answer {
                Answer::Validate(validation) if !validation.is_valid() => EXIT_REFUSED,
                _ => 0,
            };
            let mut out = io::stdout().lock();
            match write!(out, "{answer}").and_then(|()| out.flush()) {
                Ok(()) => ExitCode::from(code),
                Err(error) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
                Err(error) => {
                    let _ = writeln!(io::stderr(), "argmend: cannot write to stdout: {error}");
                    ExitCode::from(EXIT_ERROR)
                }
            }
        }
        Err(error) => {
            let code = if error.is_refusal() {
                EXIT_REFUSED
            } else {
                EXIT_ERROR
            };
            fail(&error.to_string(), code)
        }
    }
}

/// The message on stdout (where a model reads it), and the exit code.
fn fail(message: &str, code: u8) -> ExitCode {
    let mut out = io::stdout().lock();
    let _ = writeln!(out, "{message}").and_then(|()| out.flush());
    ExitCode::from(code)
}

fn run_verb(workspace: &Workspace, verb: &JsonVerb) -> Result<Answer, json::Error> {
    match verb {
        JsonVerb::Get { source, path } => {
            json::get(workspace, source.source(), path).map(Answer::Get)
        }
        JsonVerb::Keys { source, path } => {
            json::keys(workspace, source.source(), path).map(Answer::Keys)
        }
        JsonVerb::Query {
            source,
            path,
            filter,
            select,
            limit,
        } => {
            let mut query = Query::new(filter).path(path).limit(*limit);
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

/// The envelope, or why the words given are not one: an unknown verb (`gett`)
/// is named, with the verbs there are.
fn envelope_or_unknown_verb(words: Vec<String>) -> Result<Option<String>, String> {
    match words.as_slice() {
        [] => Ok(None),
        [envelope] if envelope.trim_start().starts_with('{') => Ok(words.into_iter().next()),
        [first, ..] => Err(format!(
            "unknown verb `{first}`: the verbs are get, keys, query, schema, validate, pretty; or give one envelope \
             '{{\"cmd\":…,\"args\":…}}'; see `argmend json --help`"
        )),
    }
}
