//! `@diff`: what changed between two files, texts, trees or JSON documents,
//! and a unified patch applied only when every line of context matches.
//!
//! ## Diffs
//!
//! [`diff_text`], [`diff_bytes`] and [`diff_files`] give a unified [`Diff`]:
//! Myers by line (the `similar` crate) under a deadline, rendered as GNU
//! `diff -u` renders it, `\ No newline at end of file` included. Past the
//! deadline the differing middle is one block replacement and the answer
//! starts with a warning line; output is capped at 30,000 bytes, cut at a
//! hunk boundary with a note on how to narrow it. Binary files (a NUL byte in
//! the first 8,000 bytes) are refused, not dumped; files are at most 4 MB.
//!
//! [`diff_dirs`] lists the files added, removed and changed between two trees
//! (names only; version-control metadata, repositories, `node_modules` and
//! `vendor` skipped; an optional glob). [`diff_json`] compares two JSON
//! documents by path.
//!
//! ## Strict apply
//!
//! [`apply`] (a file in the workspace) and [`apply_to`] (bytes in memory)
//! check every context and removed line of every hunk at the position its
//! header declares, and refuse at the first mismatch, naming the hunk, the
//! line, the line the patch expected and the line the file has, with a hint
//! of where the hunk's lines do occur (never applied there). No fuzz, no
//! offsets. The file keeps its line endings and its final newline (or lack of
//! one). A patch for several files applies to all of them or to none; a write
//! saves `<file>.bak` and replaces the file atomically.
//!
//! ```
//! use argmend::tools::diff::{DiffOptions, ErrorKind, apply_to, diff_text};
//!
//! let old = "name: web\nreplicas: 2\nimage: web:1\n";
//! let new = "name: web\nreplicas: 3\nimage: web:1\n";
//! let diff = diff_text(old, new, DiffOptions::default()).unwrap();
//! assert_eq!(apply_to(old.as_bytes(), diff.patch()).unwrap(), new.as_bytes());
//!
//! // The same patch on a file that moved on is refused, with the reason.
//! let moved = "# deploy\n\nname: web\nreplicas: 2\nimage: web:1\n";
//! let error = apply_to(moved.as_bytes(), diff.patch()).unwrap_err();
//! assert_eq!(error.kind(), ErrorKind::ContextMismatch);
//! assert_eq!(
//!     error.to_string(),
//!     "refused: hunk 1 of `b` (@@ -1,3 +1,3 @@) does not match at line 1 (a context line)
//!   the patch expects: \"name: web\"
//!   the file has:      \"# deploy\"
//!   hint: the hunk's lines occur at line 3 of the file (not applied there: fix the hunk header if that is the place)
//! nothing was written"
//! );
//! ```
//!
//! ## The envelope
//!
//! [`call`] runs one call as a model sends it,
//! `{"cmd": "files", "args": {"a": "old.txt", "b": "new.txt", "context": 3}}`:
//!
//! | verb | arguments |
//! |---|---|
//! | `files` | `a`, `b`, `context?` (default 3, at most 50) |
//! | `text` | `a`, `b`, `context?` |
//! | `dirs` | `a`, `b`, `glob?` |
//! | `apply` | `file`, `patch` (the patch text), `dry_run?` (default true) |
//! | `json` | `a`, `b` (paths, or inline JSON starting with `{` or `[`) |

mod apply;
mod dirs;
mod error;
mod glob;
mod hunks;
mod json;
mod layout;
mod patch;
mod tree;
mod unified;
mod write;

use std::fmt;
use std::io::{self, Write};
use std::path::Path;

use serde_json::{Map, Value};

pub use self::apply::{ApplyReport, FileReport, Mode, apply, apply_to};
pub use self::dirs::{DirDiff, diff_dirs};
pub use self::error::{Error, ErrorKind};
pub use self::hunks::FileChange;
pub use self::json::{JsonChange, JsonDiff, diff_json, diff_json_values};
pub use self::tree::Change;
pub use self::unified::{Diff, DiffOptions, DiffStats, diff_bytes, diff_files, diff_text};
use crate::tools::envelope::{self, Args, ArgumentError, Param, Table, Verb};
use crate::tools::{NodeKind, Workspace};

/// The answer to one [`call`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Answer {
    /// `files` and `text`.
    Diff(Diff),
    /// `dirs`.
    Dirs(DirDiff),
    /// `json`.
    Json(JsonDiff),
    /// `apply`.
    Apply(ApplyReport),
}

impl Answer {
    /// Write the answer as bytes (a diff of files that are not UTF-8 stays
    /// byte for byte).
    pub fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        match self {
            Answer::Diff(diff) => diff.write_to(out),
            Answer::Dirs(dirs) => write!(out, "{dirs}"),
            Answer::Json(json) => write!(out, "{json}"),
            Answer::Apply(report) => write!(out, "{report}"),
        }
    }
}

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Answer::Diff(diff) => diff.fmt(f),
            Answer::Dirs(dirs) => dirs.fmt(f),
            Answer::Json(json) => json.fmt(f),
            Answer::Apply(report) => report.fmt(f),
        }
    }
}

/// How a verb runs: its checked arguments in, the answer out.
type Handler = envelope::Handler<Answer, Error>;

/// The verbs: what each does, the arguments it takes, one valid call (shown
/// when a call is malformed, and in the input schema), and its handler.
const VERBS: [Verb<Handler>; 5] = [
    Verb {
        name: "files",
        about: "a unified diff of two files in the workspace",
        args: &["a", "b", "context"],
        required: &["a", "b"],
        example: r#"{"cmd":"files","args":{"a":"old.txt","b":"new.txt","context":3}}"#,
        run: |workspace, args| {
            let options = DiffOptions::default().context(context(args)?);
            diff_files(workspace, args.string("a")?, args.string("b")?, options).map(Answer::Diff)
        },
    },
    Verb {
        name: "text",
        about: "a unified diff of two texts",
        args: &["a", "b", "context"],
        required: &["a", "b"],
        example: r#"{"cmd":"text","args":{"a":"one\ntwo\n","b":"one\n2\n"}}"#,
        run: |_, args| {
            let options = DiffOptions::default().context(context(args)?);
            diff_text(args.string("a")?, args.string("b")?, options).map(Answer::Diff)
        },
    },
    Verb {
        name: "dirs",
        about: "the files added, removed and changed between two directories",
        args: &["a", "b", "glob"],
        required: &["a", "b"],
        example: r#"{"cmd":"dirs","args":{"a":"v1","b":"v2","glob":"src/**/*.rs"}}"#,
        run: |workspace, args| {
            let glob = args.optional_string("glob")?;
            diff_dirs(workspace, args.string("a")?, args.string("b")?, glob).map(Answer::Dirs)
        },
    },
    Verb {
        name: "apply",
        about: "apply a unified patch to a file, refused at the first line that does not match (a dry run unless dry_run is false)",
        args: &["file", "patch", "dry_run"],
        required: &["file", "patch"],
        example: r#"{"cmd":"apply","args":{"file":"app.py","patch":"@@ -1 +1 @@\n-x = 1\n+x = 2\n","dry_run":true}}"#,
        run: apply_verb,
    },
    Verb {
        name: "json",
        about: "what changed between two JSON or YAML files, by path",
        args: &["a", "b"],
        required: &["a", "b"],
        example: r#"{"cmd":"json","args":{"a":"old.json","b":"new.json"}}"#,
        run: |workspace, args| {
            diff_json(workspace, args.string("a")?, args.string("b")?).map(Answer::Json)
        },
    },
];

/// Every argument a verb takes.
const PARAMS: [Param; 7] = [
    Param {
        name: "a",
        kind: "string",
        about: "The old side: a path in the workspace (files, dirs, json), the text itself (text), or inline JSON starting with `{` or `[` (json).",
    },
    Param {
        name: "b",
        kind: "string",
        about: "The new side, as `a`.",
    },
    Param {
        name: "context",
        kind: "integer",
        about: "files, text: lines of context around each change (default 3, at most 50).",
    },
    Param {
        name: "glob",
        kind: "string",
        about: "dirs: only paths matching this glob (`src/**/*.rs`, `*.{yaml,yml}`).",
    },
    Param {
        name: "file",
        kind: "string",
        about: "apply: the file to patch (a path in the workspace).",
    },
    Param {
        name: "patch",
        kind: "string",
        about: "apply: the unified patch text (`@@ -1,3 +1,3 @@` hunks; `---`/`+++` headers optional).",
    },
    Param {
        name: "dry_run",
        kind: "boolean",
        about: "apply: check only (default true); false writes the file, keeping `FILE.bak`.",
    },
];

envelope::entry_points! {
    /// The JSON Schema of `@diff`'s envelope, for an MCP client or a model
    /// API's tool definition: `cmd` lists the verbs, `args` their arguments.
    ///
    /// ```
    /// let schema = argmend::tools::diff::input_schema();
    /// assert_eq!(schema["properties"]["cmd"]["enum"][3], "apply");
    /// ```
    fn input_schema("Unified diffs of files, texts, trees and JSON documents, and a strict patch apply.");

    /// Run one call in the envelope form `{"cmd": VERB, "args": {…}}`.
    ///
    /// ```
    /// use argmend::tools::{Workspace, diff::call};
    ///
    /// let workspace = Workspace::new(std::env::temp_dir()).unwrap();
    /// let answer = call(&workspace, r#"{"cmd":"text","args":{"a":"x\n","b":"y\n"}}"#).unwrap();
    /// assert_eq!(answer.to_string(), "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n");
    /// ```
    fn call;
}

/// `apply`: the mode from `dry_run`, the patch text (or the file a one-line
/// `patch` names), then the strict apply.
fn apply_verb(workspace: &Workspace, args: &Args<'_>) -> Result<Answer, Error> {
    let mode = match args.args.get("dry_run") {
        None | Some(Value::Bool(true)) => Mode::DryRun,
        Some(Value::Bool(false)) => Mode::Write,
        Some(_) => return Err(args.invalid("`dry_run` must be true or false").into()),
    };
    let patch = args.string("patch")?;
    let from_file;
    let patch = match patch_file(workspace, patch)? {
        Some(bytes) => {
            from_file = bytes;
            &from_file[..]
        }
        None => patch.as_bytes(),
    };
    apply(workspace, args.string("file")?, patch, mode).map(Answer::Apply)
}

/// A `patch` that is one line naming a file in the workspace (the command
/// line's `apply app.py --patch fix.diff`, sent as a call) is read from
/// that file: no patch text is one line long.
fn patch_file(workspace: &Workspace, patch: &str) -> Result<Option<Vec<u8>>, Error> {
    let name = patch.trim();
    if name.is_empty() || name.contains('\n') || name.contains("@@") {
        return Ok(None);
    }
    match workspace.locate_for_read(Path::new(name)) {
        Ok(located) if located.kind() == NodeKind::File => {
            unified::read_located(&located, name).map(Some)
        }
        _ => Ok(None),
    }
}

/// The `context` argument: lines around each change (default 3). Past
/// [`unified::MAX_CONTEXT`] it is refused by the diff itself, which says
/// what was asked.
fn context(args: &Args<'_>) -> Result<usize, Error> {
    let shown = 0..=unified::MAX_CONTEXT;
    Ok(args.whole_number("context", unified::DEFAULT_CONTEXT, 0..=usize::MAX, shown)?)
}
