//! `@json`: answers questions about a JSON or YAML payload without reading
//! it whole.
//!
//! An agent that saved a 2 MB API response, or has a Helm `values.yaml`,
//! asks for one field, the keys at a path, the elements that match a filter,
//! or the shape of the whole, and gets only that. The document is read
//! lazily: values are byte spans of the input, the containers a question
//! does not go through are skipped without being built, and numbers and
//! strings come back exactly as written (`1.0` stays `1.0`,
//! `12345678901234567890` stays exact).
//!
//! | verb | function | arguments |
//! |---|---|---|
//! | `get` | [`get`] | `file\|text`, `path` |
//! | `keys` | [`keys`] | `file\|text`, `path?` |
//! | `query` | [`query`] | `file\|text`, `path?`, `where`, `select?`, `limit?` (default 20, at most 200) |
//! | `schema` | [`schema`] | `file\|text`, `depth?` (default 3, at most 8) |
//! | `validate` | [`validate`] | `file\|text` |
//! | `pretty` | [`pretty`] | `file\|text`, `compact?` |
//!
//! Paths: `a.b[0].c`, `[-1]` from the end, `*` over every element or
//! member, `["key.with.dots"]` for any key. A failing segment is named, with
//! the keys available there (or the array's length, or the type found).
//!
//! Files are at most 20 MB and must be inside the [`Workspace`]. YAML is
//! read for `.yaml`/`.yml` files (also behind a backup suffix:
//! `values.yaml.bak`, `values.yml~`, `.orig`, `.old`), and for `text`, or a
//! file whose name says neither JSON nor YAML, that is not JSON but reads as
//! a YAML mapping or list; text starting with `{` or `[` is judged only as
//! JSON. Every answer is capped at 24,000 bytes, cut at a line with a note
//! on how to narrow the question.
//!
//! ```
//! use argmend::tools::{Workspace, json::{Source, get}};
//!
//! let workspace = Workspace::new(std::env::temp_dir()).unwrap();
//! let yaml = "image:\n  repository: nginx\n  tag: \"1.27\"\nreplicas: 3\n";
//! assert_eq!(get(&workspace, Source::Text(yaml), "image.tag").unwrap().to_string(), "\"1.27\"\n");
//! ```
//!
//! [`call`] runs one call as a model sends it,
//! `{"cmd":"get","args":{"file":"resp.json","path":"data.items[3].name"}}`.

mod error;
pub(crate) mod layout;
mod load;
pub(crate) mod path;
mod query;
mod schema;
mod verbs;
mod whole;
mod yaml;

use std::fmt;
use std::path::Path;

use serde_json::{Map, Value};

pub use self::error::{Error, ErrorKind};
pub use self::load::MAX_NESTING;
pub(crate) use self::load::{Loaded, Origin, load_bytes};
use self::load::{load, load_strict, read};
pub use self::query::{DEFAULT_LIMIT, MAX_LIMIT, Matched, Query, Row, query};
pub use self::schema::{DEFAULT_DEPTH, MAX_DEPTH, SAMPLE, Schema, Shape, schema};
pub(crate) use self::verbs::duplicate_note;
pub use self::verbs::{Entry, Got, Keys, Match, get, keys};
pub use self::whole::{Invalid, Layout, Pretty, Validation, pretty, validate};
use crate::tools::Workspace;
use crate::tools::envelope::{self, Args, ArgumentError, Param, Table, Verb};

/// The largest answer, in bytes.
pub const MAX_OUTPUT: usize = 24_000;

/// Where the document comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source<'a> {
    /// A file inside the workspace: `.yaml`/`.yml` (also as
    /// `values.yaml.bak`, `values.yml~`) read as YAML, `.json` as JSON, and
    /// any other name by its content, as `Text` is.
    File(&'a Path),
    /// Inline text: JSON, or YAML when it is not JSON but parses as a YAML
    /// mapping or list.
    Text(&'a str),
}

/// How the document was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// JSON, read in place.
    Json,
    /// YAML, converted to JSON text first (key order kept).
    Yaml,
}

/// Cut `text` to [`MAX_OUTPUT`] at a line boundary, with a note on how to
/// narrow the question.
pub(crate) fn cap(text: String, narrow: &str) -> String {
    let total = text.len();
    cap_total(text, total, narrow)
}

/// [`cap`] for a `text` that holds only the start of an answer of `total`
/// bytes (see `syntax::format_capped`): the note tells the true size.
pub(crate) fn cap_total(text: String, total: usize, narrow: &str) -> String {
    if text.len() <= MAX_OUTPUT && total <= MAX_OUTPUT {
        return text;
    }
    let mut end = MAX_OUTPUT - 400;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let end = text[..end].rfind('\n').map_or(end, |n| n + 1);
    let mut out = text[..end].to_owned();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&format!(
        "… cut at {end} of {} bytes (answers are capped at {MAX_OUTPUT}): {narrow}\n",
        total.max(text.len())
    ));
    out
}

/// The answer to one [`call`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Answer {
    /// `get`.
    Get(Got),
    /// `keys`.
    Keys(Keys),
    /// `query`.
    Query(Matched),
    /// `schema`.
    Schema(Schema),
    /// `validate`.
    Validate(Validation),
    /// `pretty`.
    Pretty(Pretty),
}

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Answer::Get(answer) => answer.fmt(f),
            Answer::Keys(answer) => answer.fmt(f),
            Answer::Query(answer) => answer.fmt(f),
            Answer::Schema(answer) => answer.fmt(f),
            Answer::Validate(answer) => answer.fmt(f),
            Answer::Pretty(answer) => answer.fmt(f),
        }
    }
}

/// How a verb runs: its checked arguments in, the answer out.
type Handler = envelope::Handler<Answer, Error>;

/// The verbs: what each does, the arguments it takes, one valid call (shown
/// when a call is malformed, and in the input schema), and its handler.
const VERBS: [Verb<Handler>; 6] = [
    Verb {
        name: "get",
        about: "the value at a path, exactly as written",
        args: &["file", "text", "path"],
        required: &["path"],
        example: r#"{"cmd":"get","args":{"file":"resp.json","path":"data.items[3].name"}}"#,
        run: |workspace, args| {
            let path = args.string("path")?;
            get(workspace, source(args)?, path).map(Answer::Get)
        },
    },
    Verb {
        name: "keys",
        about: "the keys (or the length) of the object (or array) at a path",
        args: &["file", "text", "path"],
        required: &[],
        example: r#"{"cmd":"keys","args":{"file":"resp.json","path":"data"}}"#,
        run: |workspace, args| {
            let path = args.optional_string("path")?.unwrap_or("");
            keys(workspace, source(args)?, path).map(Answer::Keys)
        },
    },
    Verb {
        name: "query",
        about: "the elements under a path that match a filter, with the chosen fields",
        args: &["file", "text", "path", "where", "select", "limit"],
        required: &["where"],
        example: r#"{"cmd":"query","args":{"file":"resp.json","path":"data.items","where":"status=failed && name~^web","select":"id,name","limit":20}}"#,
        run: |workspace, args| {
            let mut q = Query::new(args.string("where")?)
                .path(args.optional_string("path")?.unwrap_or(""))
                .limit(number(args, "limit", DEFAULT_LIMIT, MAX_LIMIT)?);
            if let Some(select) = args.optional_string("select")? {
                q = q.select(select);
            }
            query(workspace, source(args)?, &q).map(Answer::Query)
        },
    },
    Verb {
        name: "schema",
        about: "the shape of the document: types, keys, array lengths",
        args: &["file", "text", "depth"],
        required: &[],
        example: r#"{"cmd":"schema","args":{"file":"resp.json","depth":3}}"#,
        run: |workspace, args| {
            let depth = number(args, "depth", DEFAULT_DEPTH, MAX_DEPTH)?;
            schema(workspace, source(args)?, depth).map(Answer::Schema)
        },
    },
    Verb {
        name: "validate",
        about: "whether the text is valid JSON or YAML, and where it breaks",
        args: &["file", "text"],
        required: &[],
        example: r#"{"cmd":"validate","args":{"text":"{\"a\": 1}"}}"#,
        run: |workspace, args| validate(workspace, source(args)?).map(Answer::Validate),
    },
    Verb {
        name: "pretty",
        about: "the document indented (or compact)",
        args: &["file", "text", "compact"],
        required: &[],
        example: r#"{"cmd":"pretty","args":{"file":"values.yaml","compact":true}}"#,
        run: |workspace, args| {
            let layout = match args.args.get("compact") {
                None | Some(Value::Null) | Some(Value::Bool(false)) => Layout::Indented,
                Some(Value::Bool(true)) => Layout::Compact,
                Some(_) => return Err(args.invalid("`compact` must be true or false").into()),
            };
            pretty(workspace, source(args)?, layout).map(Answer::Pretty)
        },
    },
];

/// Every argument a verb takes.
const PARAMS: [Param; 8] = [
    Param {
        name: "file",
        kind: "string",
        about: "A JSON or YAML file in the workspace (at most 20 MB); give this or `text`.",
    },
    Param {
        name: "text",
        kind: "string",
        about: "The JSON or YAML document itself; give this or `file`.",
    },
    Param {
        name: "path",
        kind: "string",
        about: "Where in the document: `a.b[0].c`, `[-1]` from the end, `*` for every element, `[\"key.with.dots\"]`.",
    },
    Param {
        name: "where",
        kind: "string",
        about: "query: the filter: `field=value`, `field!=value`, `field~regex`, joined by `&&` (e.g. `status=failed && name~^web`).",
    },
    Param {
        name: "select",
        kind: "string",
        about: "query: the fields to show, comma-separated (`id,name`); whole elements when absent.",
    },
    Param {
        name: "limit",
        kind: "integer",
        about: "query: at most this many matches (default 20, at most 200).",
    },
    Param {
        name: "depth",
        kind: "integer",
        about: "schema: how deep to describe (default 3, at most 8).",
    },
    Param {
        name: "compact",
        kind: "boolean",
        about: "pretty: one line instead of indented.",
    },
];

envelope::entry_points! {
    /// The JSON Schema of `@json`'s envelope, for an MCP client or a model
    /// API's tool definition: `cmd` lists the verbs, `args` their arguments.
    ///
    /// ```
    /// let schema = argmend::tools::json::input_schema();
    /// assert_eq!(schema["properties"]["cmd"]["enum"][0], "get");
    /// ```
    fn input_schema("Questions about a JSON or YAML payload, answered without reading it whole.");

    /// Run one call in the envelope form `{"cmd": VERB, "args": {…}}`.
    ///
    /// ```
    /// use argmend::tools::{Workspace, json::call};
    ///
    /// let workspace = Workspace::new(std::env::temp_dir()).unwrap();
    /// let answer = call(&workspace, r#"{"cmd":"get","args":{"text":"{\"a\":[1.0,2]}","path":"a[0]"}}"#).unwrap();
    /// assert_eq!(answer.to_string(), "1.0\n");
    /// ```
    fn call;
}

/// The `file` or `text` argument, exactly one of them.
fn source<'a>(args: &Args<'a>) -> Result<Source<'a>, Error> {
    match (args.optional_string("file")?, args.optional_string("text")?) {
        (Some(file), None) => Ok(Source::File(Path::new(file))),
        (None, Some(text)) => Ok(Source::Text(text)),
        (Some(_), Some(_)) => Err(args.invalid("give `file` or `text`, not both").into()),
        (None, None) => Err(args
            .invalid("`file` (a path in the workspace) or `text` is missing")
            .into()),
    }
}

/// A whole-number argument from 1 to `max` (`default` when absent).
fn number(args: &Args<'_>, name: &str, default: usize, max: usize) -> Result<usize, Error> {
    Ok(args.whole_number(name, default, 1..=max, 1..=max)?)
}
