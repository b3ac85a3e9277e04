//! The command line, as clap sees it.

use clap::{Parser, Subcommand};

use super::repair::args::RepairArgs;
use super::shared::tool_command::{ToolArgs, envelope_help};

/// The exit codes of `argmend repair`, shown under `argmend repair --help`.
macro_rules! exit_codes {
    () => {
        "\
Exit codes:
  0  the output is JSON (valid, repaired or completed); also when stdout was
     closed early (a broken pipe), and for --batch whatever the lines' verdicts
  1  not JSON: nothing JSON-like in the input (an empty input included, except
     with --tool), or a limit such as --max-depth was crossed (the reason goes
     to stderr)
  2  usage error, or an input/output error (e.g. FILE cannot be read)"
    };
}

/// Shown under `argmend --help`: what the codes mean across the commands
/// (each command's own help says what they mean for it).
const TOP_HELP: &str = "\
Exit codes (each command's --help says what they mean for it):
  0  success: an answer, or repaired JSON
  1  a \"no\": repair found no JSON, json or diff refused the request (the
     message says why), a call failed, quotes --check found something to change
  2  usage error, or an input/output error (e.g. a file that cannot be read)

Run `argmend COMMAND --help` for a command's options and examples.";

/// Shown under `argmend repair --help`, before the exit codes.
macro_rules! repair_help {
    () => {
        "\
Examples:
  argmend repair examples/tool_call.txt
  printf \"{name: 'Ada', tags: ['x',],}\" | argmend repair
      prints {\"name\": \"Ada\", \"tags\": [\"x\"]}
  some-llm-client | argmend repair --stream --fixes
  argmend repair --batch --snapshots recorded.jsonl > repaired.jsonl
  argmend repair --batch --jobs 2 --summary calls.jsonl > repaired.jsonl
  printf 'main.go' | argmend repair --tool read_file
      prints {\"file\":\"main.go\"}
  argmend repair --tool @coder --schema coder-tool.json args.txt

--batch reads JSON Lines; each line is one of
  \"raw text\"                   a JSON string holding the text to repair
  {\"input\": \"raw text\"}        the same, as an object
  {\"chunks\": [\"{'a\", \"': 1\"]}  a recorded stream, fed to one repairer chunk by chunk
An object may also have \"tool\": \"NAME\" and \"schema\": {…} for tool-aware
normalization (as --tool and --schema).
Each input line gets one output line, in order:
  {\"json\": <repaired value or null>, \"verdict\": \"valid|repaired|completed|not_json\",
   \"fixes\": [{\"kind\": \"quoted_key\", \"offset\": 12}, …]}
\"json\" is the repaired text with the whitespace between tokens removed (key order
and number spelling are kept as they are). A line with \"tool\" or \"schema\"
also gets \"strategy\" (1 to 7, or null) and, when the schema still rejects
something, \"violations\" (e.g. [\"$.a: expected integer, got string\"]).
When the input could be read two ways and the repair chose one, the line also has
  \"doubt\": [{\"kind\": \"early_close\", \"offset\": 11, \"reason\": \"…\"}, …]
(kinds: quote_as_text, quote_as_end, early_close, newline_boundary,
duplicate_key, markdown_escape, closers_matched, opener_supplied, restart,
comma_boundary); without a doubt the member is absent, never empty, and a doubt
never changes the verdict. With --snapshots a line also has
\"deltas\" (the output each chunk committed) and \"snapshots\" (the valid JSON of
everything so far, after each chunk); a plain text is one chunk.
A line that is not JSON or has another shape, an empty or blank line, or an input
that crosses a limit gets {\"error\": \"line N: …\"} and the run goes on, so output
line N always answers input line N.

"
    };
}

/// Mends the broken JSON that language models write into tool-call arguments.
#[derive(Debug, Parser)]
#[command(
    name = "argmend",
    version,
    after_help = TOP_HELP,
    subcommand_required = true,
    arg_required_else_help = true
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Repair FILE (or stdin) and write exactly the repaired JSON to stdout.
    ///
    /// The output is the input's JSON with every fix applied and nothing added
    /// (no newline at the end). Valid JSON comes back byte for byte.
    #[command(after_help = concat!(repair_help!(), exit_codes!()))]
    Repair(RepairArgs),

    /// Show what changed between two files, texts, directory trees or JSON/YAML
    /// documents, or apply a unified patch only where every context line matches.
    #[command(
        after_help = super::diff::HELP,
        mut_arg("envelope", |arg| envelope_help(arg, super::diff::EXAMPLE))
    )]
    Diff(ToolArgs<super::diff::DiffVerb>),

    /// Answer a question about a JSON or YAML payload without reading it
    /// whole: get, keys, query, schema, validate, pretty.
    #[command(
        after_help = super::json::HELP,
        mut_arg("envelope", |arg| envelope_help(arg, super::json::EXAMPLE))
    )]
    Json(ToolArgs<super::json::JsonVerb>),

    /// Straighten the typographic quotes that stand as delimiters in a code
    /// file and print the text.
    ///
    /// ‘ ’ ′ → ' and “ ” ″ → " where the code's quotes belong; those in its
    /// string literals and comments are data and stay, and so does everything
    /// in prose files (.md, .txt, …) and markup text.
    Quotes(super::quotes::QuotesArgs),

    /// Find the tool calls in model output (FILE or stdin), run each as soon
    /// as it is complete, and print the results in order.
    Call(super::call::CallArgs),

    /// Run tool calls sent as JSON Lines on stdin: one request per line, run
    /// concurrently, one response line each on stdout.
    Serve(super::serve::ServeArgs),

    /// Serve the tools json, diff and repair as a Model Context Protocol
    /// server on stdin and stdout.
    #[cfg(feature = "mcp")]
    Mcp(super::mcp::McpArgs),

    /// An OpenAI-compatible HTTP proxy in front of any Chat Completions
    /// server (vLLM, SGLang, llama.cpp, Ollama, a hosted API): every tool
    /// call of its answers mended, calls left in the text lifted out.
    #[cfg(feature = "proxy")]
    Proxy(super::proxy::ProxyArgs),
}
