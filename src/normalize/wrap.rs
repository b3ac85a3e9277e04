//! Plain-value wrapping: the tool table ([`ToolMap`]), the rule that says
//! whether a bare value is a value or a command line, and bare-value typing.

use std::collections::HashMap;

use serde_json::Value;

use crate::doc::tree::{is_number, quote};

/// The built-in primary fields: 38 entries (native tools, coder subcommands, aliases).
const BUILTIN_FIELDS: [(&str, &str); 38] = [
    // Native tools.
    ("read_file", "file"),
    ("write_file", "file"),
    ("patch_file", "file"),
    ("rollback_file", "file"),
    ("list_directory", "dir"),
    ("git_status", "dir"),
    ("git_diff", "dir"),
    ("git_log", "dir"),
    ("git_changed", "dir"),
    ("git_branch", "dir"),
    ("run_tests", "dir"),
    ("clean_backups", "dir"),
    ("search_files", "term"),
    ("run_command", "cmd"),
    // Coder subcommands.
    ("read", "file"),
    ("write", "file"),
    ("patch", "file"),
    ("rollback", "file"),
    ("tree", "dir"),
    ("git-status", "dir"),
    ("git-diff", "dir"),
    ("git-log", "dir"),
    ("git-changed", "dir"),
    ("git-branch", "dir"),
    ("test", "dir"),
    ("clean", "dir"),
    ("search", "term"),
    ("exec", "cmd"),
    // Aliases.
    ("@coder", "cmd"),
    ("coder", "cmd"),
    ("bash", "command"),
    ("shell", "command"),
    ("Bash", "command"),
    ("Read", "file_path"),
    ("Write", "file_path"),
    ("Edit", "file_path"),
    ("Glob", "pattern"),
    ("Grep", "pattern"),
];

/// Tools whose arguments are a subcommand and its flags.
const BUILTIN_SUBCOMMAND_TOOLS: [&str; 6] = ["@coder", "coder", "@json", "@diff", "json", "diff"];

/// The positional words of the built-in tools' verbs, in the order their
/// command lines take them (`files a.txt b.txt`, `apply app.py --patch …`,
/// `get resp.json --path a`), under both spellings of each tool.
const BUILTIN_POSITIONALS: [(&str, &[&str], &[&str]); 3] = [
    ("diff", &["files", "text", "dirs", "json"], &["a", "b"]),
    ("diff", &["apply"], &["file"]),
    (
        "json",
        &["get", "keys", "query", "schema", "validate", "pretty"],
        &["file"],
    ),
];

/// Tools whose content argument is written into a file (see `normalize_quotes`).
const BUILTIN_FILE_WRITERS: [&str; 11] = [
    "write_file",
    "patch_file",
    "edit_file",
    "create_file",
    "write",
    "patch",
    "edit",
    "Write",
    "Edit",
    "str_replace_editor",
    "str_replace_based_edit_tool",
];

/// The complete parameter lists of well-known tools: when a model forgets to
/// escape the quotes in code, a `, "name":` inside a string that names none of
/// the tool's parameters is not the next member (see `Hints`).
/// The parameters of Anthropic's text editor tool, under both its names.
const EDITOR_PARAMS: &[&str] = &[
    "command",
    "path",
    "file_text",
    "old_str",
    "new_str",
    "insert_line",
    "insert_text",
    "view_range",
];

const BUILTIN_PARAMS: [(&str, &[&str]); 18] = [
    (
        "write_file",
        &["file", "path", "file_path", "content", "append"],
    ),
    (
        "create_file",
        &["path", "file_path", "content", "file_text"],
    ),
    (
        "read_file",
        &["file", "path", "file_path", "start_line", "end_line"],
    ),
    ("patch_file", &["file", "path", "patch", "diff"]),
    (
        "edit_file",
        &[
            "path",
            "file",
            "file_path",
            "target_file",
            "old_string",
            "new_string",
            "old_str",
            "new_str",
            "instructions",
            "code_edit",
            "content",
        ],
    ),
    ("run_command", &["cmd", "command", "cwd", "timeout"]),
    ("exec", &["cmd", "command", "cwd", "timeout"]),
    (
        "bash",
        &[
            "command",
            "timeout",
            "description",
            "run_in_background",
            "restart",
        ],
    ),
    (
        "Bash",
        &["command", "timeout", "description", "run_in_background"],
    ),
    ("shell", &["command", "workdir", "timeout"]),
    ("Write", &["file_path", "content"]),
    (
        "Edit",
        &["file_path", "old_string", "new_string", "replace_all"],
    ),
    ("Read", &["file_path", "offset", "limit"]),
    ("Glob", &["pattern", "path"]),
    (
        "Grep",
        &[
            "pattern",
            "path",
            "glob",
            "type",
            "output_mode",
            "-i",
            "-n",
            "-A",
            "-B",
            "-C",
            "multiline",
            "head_limit",
        ],
    ),
    ("str_replace_editor", EDITOR_PARAMS),
    ("str_replace_based_edit_tool", EDITOR_PARAMS),
    ("search_files", &["term", "dir", "path", "pattern"]),
];

/// Primary fields whose value is a whole command line: `ls -l` for
/// `run_command` is `{"cmd":"ls -l"}`, not flags to split into fields.
const COMMAND_LINE_FIELDS: [&str; 4] = ["cmd", "command", "script", "shell_command"];

/// First words that make a bare value a command line (with at least one more word).
const COMMAND_WORDS: [&str; 14] = [
    "read",
    "write",
    "patch",
    "tree",
    "search",
    "exec",
    "test",
    "rollback",
    "clean",
    "git-status",
    "git-diff",
    "git-log",
    "git-changed",
    "git-branch",
];

/// What argmend knows about one tool.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct ToolEntry {
    field: Option<String>,
    subcommands: bool,
    writes_files: bool,
    params: Option<Vec<String>>,
    /// `params` is the built-in table's guess, not the caller's list.
    params_assumed: bool,
    /// The tool's JSON Schema, from the request's tool list
    /// ([`ToolMap::from_openai_tools`]); shared, as the table is.
    schema: Option<std::sync::Arc<Value>>,
}

/// The tool table: each tool's primary field (where a plain value goes),
/// whether it takes subcommands, and whether it writes files.
///
/// [`ToolMap::default`] is the built-in table; add your own tools with the
/// `with_*` builders. A tool is looked up as written, then lower-cased, so
/// `READ_FILE` reaches `read_file` while `Read` (an alias for `file_path`)
/// stays apart from `read` (`file`).
///
/// ```
/// use argmend::ToolMap;
/// let tools = ToolMap::default().with_tool("fetch_url", "url");
/// assert_eq!(tools.primary_field("fetch_url"), Some("url"));
/// assert_eq!(tools.primary_field("READ_FILE"), Some("file"));
/// assert_eq!(tools.primary_field("Read"), Some("file_path"));
/// assert_eq!(tools.primary_field("read"), Some("file"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolMap {
    /// Shared: every call a parser or an adapter starts clones the options,
    /// and a clone of the built-in table was a third of a call's cost.
    tools: std::sync::Arc<HashMap<String, ToolEntry>>,
}

impl Default for ToolMap {
    fn default() -> Self {
        ToolMap::builtin()
    }
}

impl ToolMap {
    /// The built-in table: 38 primary fields, the subcommand tools `@coder`,
    /// `coder`, `@json`, `@diff`, and the file-writing tools.
    pub fn builtin() -> Self {
        let mut map = ToolMap::empty();
        for (tool, field) in BUILTIN_FIELDS {
            map = map.with_tool(tool, field);
        }
        for tool in BUILTIN_SUBCOMMAND_TOOLS {
            map = map.with_subcommands(tool);
        }
        for tool in BUILTIN_FILE_WRITERS {
            map = map.with_file_writer(tool);
        }
        for (tool, params) in BUILTIN_PARAMS {
            map = map.with_params(tool, params);
            map.entry(tool).params_assumed = true;
        }
        map
    }

    /// A table with no tools at all.
    pub fn empty() -> Self {
        ToolMap {
            tools: std::sync::Arc::new(HashMap::new()),
        }
    }

    /// Register `tool` with its primary field (replacing a built-in one).
    pub fn with_tool(mut self, tool: &str, primary_field: &str) -> Self {
        self.entry(tool).field = Some(primary_field.to_owned());
        self
    }

    /// Mark `tool` as taking subcommands: `read --file a` becomes
    /// `{"cmd":"read","args":{"file":"a"}}`.
    pub fn with_subcommands(mut self, tool: &str) -> Self {
        self.entry(tool).subcommands = true;
        self
    }

    /// Mark `tool` as writing its content argument into the file its path
    /// argument names, so typographic quotes standing as delimiters in code
    /// content are straightened.
    pub fn with_file_writer(mut self, tool: &str) -> Self {
        self.entry(tool).writes_files = true;
        self
    }

    /// Register the complete list of `tool`'s parameters. While it repairs,
    /// the engine then knows that a `, "name":` inside a broken string that
    /// names none of them is text, not the next argument.
    ///
    /// ```
    /// use argmend::{normalize_tool_args_with, ToolMap, ToolOptions};
    /// let tools = ToolMap::default().with_params("save", &["file", "body"]);
    /// let options = ToolOptions::default().tools(tools);
    /// let raw = r#"{"file": "a.json", "body": "{"x": "1", "y": 2}"}"#;
    /// let normalized = normalize_tool_args_with("save", raw, &options);
    /// assert_eq!(normalized.text(), r#"{"file": "a.json", "body": "{\"x\": \"1\", \"y\": 2}"}"#);
    /// ```
    pub fn with_params(mut self, tool: &str, params: &[&str]) -> Self {
        let entry = self.entry(tool);
        entry.params = Some(params.iter().map(|p| (*p).to_owned()).collect());
        entry.params_assumed = false;
        self
    }

    /// Register `tool`'s JSON Schema: a call to `tool` is then repaired as
    /// [`ToolOptions::schema`](super::ToolOptions::schema) would, unless the
    /// options give a schema of their own. The request-shaped builders
    /// ([`ToolMap::from_openai_tools`], [`ToolMap::from_anthropic_tools`])
    /// call this for every tool.
    ///
    /// ```
    /// use argmend::{normalize_tool_args_with, ToolMap, ToolOptions};
    /// use serde_json::json;
    /// let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
    /// let options = ToolOptions::default().tools(ToolMap::default().with_schema("count", schema));
    /// assert_eq!(normalize_tool_args_with("count", r#"{"n": "5"}"#, &options).text(), r#"{"n": 5}"#);
    /// ```
    pub fn with_schema(mut self, tool: &str, schema: Value) -> Self {
        self.entry(tool).schema = Some(std::sync::Arc::new(schema));
        self
    }

    /// The JSON Schema registered for `tool` (as written, then lower-cased).
    pub fn schema(&self, tool: &str) -> Option<&Value> {
        self.entries(tool).find_map(|entry| entry.schema.as_deref())
    }

    /// Whether the table knows `tool` at all (any entry, as written or
    /// lower-cased). A call parser counts a bare `{"name": …, "arguments": …}`
    /// in model text as a call only for a tool the table knows.
    pub fn knows(&self, tool: &str) -> bool {
        self.entries(tool).next().is_some()
    }

    /// Whether `tool`'s parameter list is the built-in table's guess rather
    /// than one the caller registered.
    pub(crate) fn params_assumed(&self, tool: &str) -> bool {
        self.entries(tool)
            .find(|entry| entry.params.is_some())
            .is_some_and(|entry| entry.params_assumed)
    }

    /// The complete parameter list of `tool`, when known.
    pub fn params(&self, tool: &str) -> Option<&[String]> {
        self.entries(tool).find_map(|entry| entry.params.as_deref())
    }

    /// Whether a plain value for `tool` is one whole command line (its
    /// primary field is `cmd`, `command`, … and it takes no subcommands).
    pub fn takes_command_line(&self, tool: &str) -> bool {
        !self.takes_subcommands(tool)
            && self
                .primary_field(tool)
                .is_some_and(|field| COMMAND_LINE_FIELDS.contains(&field))
    }

    /// The entry of `tool`, made if missing (the table is copied first if
    /// another clone shares it).
    fn entry(&mut self, tool: &str) -> &mut ToolEntry {
        std::sync::Arc::make_mut(&mut self.tools)
            .entry(tool.to_owned())
            .or_default()
    }

    /// The entries for `tool` as written and lower-cased, in that order.
    fn entries<'a>(&'a self, tool: &str) -> impl Iterator<Item = &'a ToolEntry> + 'a {
        let lower = tool.to_lowercase();
        let exact = self.tools.get(tool);
        let folded = (lower != tool).then(|| self.tools.get(&lower)).flatten();
        exact.into_iter().chain(folded)
    }

    /// The primary field of `tool`: where a plain value goes.
    pub fn primary_field(&self, tool: &str) -> Option<&str> {
        self.entries(tool).find_map(|entry| entry.field.as_deref())
    }

    /// The fields a built-in tool's verb takes as positional words, e.g.
    /// `a` and `b` for `@diff files`.
    pub(crate) fn verb_positionals(
        &self,
        tool: &str,
        verb: &str,
    ) -> Option<&'static [&'static str]> {
        let tool = tool.strip_prefix('@').unwrap_or(tool);
        BUILTIN_POSITIONALS
            .iter()
            .find(|(name, verbs, _)| *name == tool && verbs.contains(&verb))
            .map(|(_, _, names)| *names)
    }

    /// Whether `text` is a command line for one of `tool`'s verbs
    /// (`files a.txt b.txt` for `@diff`), flags or not.
    pub(crate) fn is_verb_line(&self, tool: &str, text: &str) -> bool {
        let mut words = text.split_whitespace();
        self.takes_subcommands(tool)
            && words
                .next()
                .is_some_and(|verb| self.verb_positionals(tool, verb).is_some())
            && words.next().is_some()
    }

    /// Whether `tool` takes subcommands.
    pub fn takes_subcommands(&self, tool: &str) -> bool {
        self.entries(tool).any(|entry| entry.subcommands)
    }

    /// Whether `tool` writes its content argument into a file.
    pub fn writes_files(&self, tool: &str) -> bool {
        self.entries(tool).any(|entry| entry.writes_files)
    }

    /// Every `(tool, primary field)` pair, sorted by tool name.
    pub fn fields(&self) -> Vec<(&str, &str)> {
        let mut fields: Vec<(&str, &str)> = self
            .tools
            .iter()
            .filter_map(|(tool, entry)| Some((tool.as_str(), entry.field.as_deref()?)))
            .collect();
        fields.sort_unstable();
        fields
    }
}

/// The field a tool's JSON Schema names as primary: its only property, or
/// else its only required property of type string.
pub(super) fn schema_primary(schema: &Value) -> Option<&str> {
    let properties = schema.get("properties")?.as_object()?;
    if properties.len() == 1 {
        return properties.keys().next().map(String::as_str);
    }
    let required = schema.get("required")?.as_array()?;
    let mut strings = required.iter().filter_map(Value::as_str).filter(|key| {
        properties
            .get(*key)
            .and_then(|property| property.get("type"))
            .is_some_and(|kind| kind == "string")
    });
    let first = strings.next()?;
    strings.next().is_none().then_some(first)
}

/// Whether a bare value looks like command-line arguments: at least two
/// whitespace-separated words, and a later word starting with `--`, a later
/// word of exactly two characters starting with `-` (`-l`), a first word
/// that is a coder subcommand, or a first word starting with `--`.
pub(super) fn looks_like_command_line(text: &str) -> bool {
    let mut words = text.split_whitespace();
    let Some(first) = words.next() else {
        return false;
    };
    let rest: Vec<&str> = words.collect();
    if rest.is_empty() {
        return false;
    }
    // The issue's rule looks at later words only; a first word starting with
    // `--` counts too, or its own example (`--file main.go` for `read_file`
    // → `{"file":"main.go"}`) would be wrapped whole.
    COMMAND_WORDS.contains(&first)
        || first.starts_with("--")
        || rest.iter().any(|word| {
            word.starts_with("--") || (word.starts_with('-') && word.chars().count() == 2)
        })
}

/// The JSON text of a bare value: `true`/`false` in any case → booleans,
/// numbers → numbers (their text kept), `null`/`none` in any case → null,
/// anything else → a string. `quoted` says the text came from quotes, which
/// makes it a string whatever it says.
pub(super) fn typed(text: &str, quoted: bool) -> String {
    if quoted {
        return quote(text);
    }
    if text.eq_ignore_ascii_case("true") {
        "true".to_owned()
    } else if text.eq_ignore_ascii_case("false") {
        "false".to_owned()
    } else if text.eq_ignore_ascii_case("null") || text.eq_ignore_ascii_case("none") {
        "null".to_owned()
    } else if is_number(text) {
        text.to_owned()
    } else {
        quote(text)
    }
}

/// The JSON text of a whole plain value: quoted text (`'…'`, `"…"`, `` `…` ``,
/// `“…”`, `‘…’`) loses its quotes and stays a string; otherwise as [`typed`].
pub(super) fn typed_plain(text: &str) -> String {
    for (open, close) in [('\'', '\''), ('"', '"'), ('`', '`'), ('“', '”'), ('‘', '’')] {
        if let Some(inner) = text
            .strip_prefix(open)
            .and_then(|rest| rest.strip_suffix(close))
        {
            return quote(inner);
        }
    }
    typed(text, false)
}

/// `{"field":<value>}`.
pub(super) fn wrap(field: &str, value_json: &str) -> String {
    format!("{{{}:{value_json}}}", quote(field))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_table_has_38_fields() {
        assert_eq!(ToolMap::builtin().fields().len(), 38);
    }

    #[test]
    fn schema_names_the_primary_field() {
        let only = serde_json::json!({"properties": {"url": {"type": "string"}}});
        assert_eq!(schema_primary(&only), Some("url"));
        let required = serde_json::json!({
            "properties": {"q": {"type": "string"}, "n": {"type": "integer"}, "lang": {"type": "string"}},
            "required": ["q", "n"]
        });
        assert_eq!(schema_primary(&required), Some("q"));
        let two = serde_json::json!({
            "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
            "required": ["a", "b"]
        });
        assert_eq!(schema_primary(&two), None);
    }

    #[test]
    fn typing() {
        assert_eq!(typed("TRUE", false), "true");
        assert_eq!(typed("None", false), "null");
        assert_eq!(typed("-1.5e3", false), "-1.5e3");
        assert_eq!(typed("0789", false), "\"0789\"");
        assert_eq!(typed("true", true), "\"true\"");
        assert_eq!(typed_plain("'main.go'"), "\"main.go\"");
        assert_eq!(typed_plain("“a b”"), "\"a b\"");
        assert_eq!(typed_plain("'a"), "\"'a\"");
    }
}
