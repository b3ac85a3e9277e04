//! `query`: the elements of an array of objects that pass a `where` filter
//! (`field=value`, `field!=value`, `field~regex`, joined by `&&`), with only
//! the `select`ed fields.

use std::fmt;

use regex::{Regex, RegexBuilder};

use super::error::{Error, Repr};
use super::layout::{self, Layout};
use super::path::{self, Segment};
use crate::doc::lazy::{Doc, Kind, Node, decimal, decode_body};

use super::verbs::{parse_path, summary, timed_out, walk};
use super::{Loaded, Source, cap_total, load_strict, read};
use crate::tools::Workspace;
use crate::tools::deadline::Ticker;

/// The default `limit`.
pub const DEFAULT_LIMIT: usize = 20;
/// The largest `limit`.
pub const MAX_LIMIT: usize = 200;

const EXAMPLE: &str = r#"{"cmd":"query","args":{"file":"resp.json","path":"data.items","where":"status=failed && name~^web","select":"id,name","limit":20}}"#;

/// A `query` question: which array, which filter, which fields, how many.
///
/// ```
/// use argmend::tools::json::Query;
///
/// let query = Query::new("status=failed && name~^web").path("data.items").select("id,name").limit(5);
/// # let _ = query;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query<'a> {
    path: &'a str,
    filter: &'a str,
    select: Option<&'a str>,
    limit: usize,
}

impl<'a> Query<'a> {
    /// A query with this `where` filter, on the root array, every field, the
    /// first [`DEFAULT_LIMIT`] matches.
    pub fn new(filter: &'a str) -> Self {
        Query {
            path: "",
            filter,
            select: None,
            limit: DEFAULT_LIMIT,
        }
    }

    /// The path of the array to filter.
    pub fn path(mut self, path: &'a str) -> Self {
        self.path = path;
        self
    }

    /// Keep only these fields, comma-separated (`id,name,meta.owner`).
    pub fn select(mut self, select: &'a str) -> Self {
        self.select = Some(select);
        self
    }

    /// Show at most this many matches (1 to [`MAX_LIMIT`]).
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }
}

/// How a clause compares.
#[derive(Debug)]
enum Op {
    Eq(String),
    Ne(String),
    Matches(Regex),
}

#[derive(Debug)]
struct Clause {
    field: Vec<Segment>,
    op: Op,
}

fn bad_where(clause: &str, problem: &'static str) -> Error {
    Error::new(Repr::InvalidWhere {
        clause: clause.to_owned(),
        problem,
        example: EXAMPLE,
    })
}

/// A field in `where` or `select`: a path of keys and indexes, no `*`.
fn field_path(text: &str, whole: &str) -> Result<Vec<Segment>, Error> {
    let segments = parse_path(text, EXAMPLE)?;
    if segments.is_empty() {
        return Err(bad_where(
            whole,
            "a field name is missing before the operator",
        ));
    }
    if segments.contains(&Segment::Wildcard) {
        return Err(bad_where(whole, "a field cannot hold `*`"));
    }
    Ok(segments)
}

/// What a clause with an operator `where` does not have is told.
const UNSUPPORTED: &str =
    "it uses an operator `where` does not have (`==`, `=~`, `!~`, `<`, `>`, `||`)";

/// A clause with no operator: `<`, `>` or `||` get the list of operators.
fn unsupported_or(part: &str, problem: &'static str) -> Error {
    if part.contains(['<', '>']) || part.contains("||") {
        bad_where(part, UNSUPPORTED)
    } else {
        bad_where(part, problem)
    }
}

/// What all the `~` patterns of one `where` may compile to, together.
///
/// Why: the regex crate bounds each pattern (10 MiB by default), but not
/// their sum; a 9 KB `where` of 600 clauses `x~a{150000}` compiled about
/// 4 GB in 7 to 17 seconds. The patterns share this budget evenly, so a
/// request costs at most this much however many clauses it has; one or
/// three ordinary patterns still get the crate's usual 10 MiB each.
const REGEX_BUDGET: usize = 32 * 1024 * 1024;

/// The most one pattern gets (the regex crate's own default).
const REGEX_MAX_ONE: usize = 10 * 1024 * 1024;

/// The lazy DFA caches of one request's patterns, together: each regex
/// keeps its own cache (2 MiB by default), filled while it searches, so
/// 600 patterns could hold 1.2 GB of them. Past its share a regex falls
/// back to a slower engine; the answers stay the same.
const DFA_BUDGET: usize = 32 * 1024 * 1024;

/// Compile one `~` pattern with its share of the request's budgets.
fn compile(pattern: &str, n_patterns: usize) -> Result<Regex, Error> {
    let share = (REGEX_BUDGET / n_patterns.max(1)).min(REGEX_MAX_ONE);
    let dfa_share = (DFA_BUDGET / n_patterns.max(1)).min(2 * 1024 * 1024);
    let built = RegexBuilder::new(pattern)
        .size_limit(share)
        .dfa_size_limit(dfa_share)
        .build();
    built.map_err(|error| match error {
        regex::Error::CompiledTooBig(_) => Error::new(Repr::RegexTooBig {
            pattern: pattern.to_owned(),
            n_patterns,
            budget: REGEX_BUDGET,
            share,
        }),
        error => Error::new(Repr::InvalidRegex {
            pattern: pattern.to_owned(),
            error: error
                .to_string()
                .lines()
                .last()
                .unwrap_or_default()
                .trim()
                .trim_start_matches("error: ")
                .to_owned(),
            example: EXAMPLE,
        }),
    })
}

fn parse_where(filter: &str) -> Result<Vec<Clause>, Error> {
    // Every clause is read before any pattern is compiled: the number of
    // patterns sets each one's share of the budget.
    let mut parsed = Vec::new();
    if filter.trim().is_empty() {
        return Err(bad_where(filter, "it is empty"));
    }
    for part in filter.split("&&") {
        let part = part.trim();
        if part.is_empty() {
            return Err(bad_where(filter, "an empty clause around `&&`"));
        }
        let at = part
            .find(['=', '~', '!'])
            .ok_or_else(|| unsupported_or(part, "no operator (`=`, `!=` or `~`)"))?;
        let field = part[..at].trim();
        if field.contains(['<', '>', '|']) {
            return Err(bad_where(part, UNSUPPORTED));
        }
        let (op_len, kind) = match &part[at..] {
            rest if rest.starts_with("!=") => (2, '!'),
            rest if rest.starts_with('=') => (1, '='),
            rest if rest.starts_with('~') => (1, '~'),
            rest if rest.starts_with("!~") => return Err(bad_where(part, UNSUPPORTED)),
            _ => return Err(bad_where(part, "`!` must be followed by `=`")),
        };
        let value = part[at + op_len..].trim();
        // `==`, `=~`, `!~`, `!==`, or `a=1 || b=2`: operators this filter does
        // not have must not quietly become part of a value that matches nothing.
        if value.starts_with(['=', '~'])
            || (kind == '!' && value.starts_with('~'))
            || (!value.starts_with('"') && value.contains("||"))
        {
            return Err(bad_where(part, UNSUPPORTED));
        }
        let field = field_path(field, part)?;
        // A value may be quoted as a JSON string to keep spaces or `&&`.
        let value = if value.starts_with('"') {
            serde_json::from_str::<String>(value)
                .map_err(|_| bad_where(part, "a quoted value must be a JSON string"))?
        } else {
            value.to_owned()
        };
        parsed.push((field, kind, value));
    }
    let n_patterns = parsed.iter().filter(|(_, kind, _)| *kind == '~').count();
    let mut clauses = Vec::with_capacity(parsed.len());
    for (field, kind, value) in parsed {
        let op = match kind {
            '!' => Op::Ne(value),
            '=' => Op::Eq(value),
            _ => Op::Matches(compile(&value, n_patterns)?),
        };
        clauses.push(Clause { field, op });
    }
    Ok(clauses)
}

/// The value under `field` inside `node`, if there is one (the last of
/// duplicate keys, noted in the answer).
fn lookup(loaded: &Loaded<'_>, doc: &Doc<'_>, mut node: Node, field: &[Segment]) -> Option<Node> {
    for segment in field {
        node = match (segment, node.kind) {
            (Segment::Key(key), Kind::Object) => {
                let (value, times) = doc.member(node, key).ok()??;
                if times > 1 {
                    loaded.note(format!(
                        "the key `{segment}` appears more than once in an element's object: the \
                         last one is used, as jq and JSON.parse do"
                    ));
                }
                value
            }
            (Segment::Index(idx), Kind::Array) => {
                let elements: Vec<Node> = doc.elements(node).filter_map(Result::ok).collect();
                let idx = if *idx < 0 {
                    elements
                        .len()
                        .checked_sub(usize::try_from(idx.unsigned_abs()).ok()?)?
                } else {
                    usize::try_from(*idx).ok()?
                };
                *elements.get(idx)?
            }
            _ => return None,
        };
    }
    Some(node)
}

/// The text a clause compares: a string decoded, anything else as written.
fn compared(doc: &Doc<'_>, node: Node) -> Option<String> {
    let text = doc.text(node).ok()?;
    Some(if node.kind == Kind::String {
        decode_body(&text[1..text.len() - 1])
    } else {
        let mut out = String::new();
        layout::format(text, Layout::Compact, &mut out);
        out
    })
}

fn equal(doc: &Doc<'_>, node: Node, value: &str) -> bool {
    let Some(text) = compared(doc, node) else {
        return false;
    };
    if text == value {
        return true;
    }
    // `1.0`, `1` and `1e0` are the same number; `9007199254740993` and
    // `9007199254740992` are not (compared as decimals, never as floats).
    node.kind == Kind::Number
        && matches!((decimal(&text), decimal(value)), (Some(a), Some(b)) if a == b)
}

fn passes(loaded: &Loaded<'_>, doc: &Doc<'_>, element: Node, clauses: &[Clause]) -> bool {
    clauses.iter().all(|clause| {
        let found = lookup(loaded, doc, element, &clause.field);
        match (&clause.op, found) {
            (Op::Eq(value), Some(node)) => equal(doc, node, value),
            (Op::Ne(value), Some(node)) => !equal(doc, node, value),
            (Op::Ne(_), None) => true,
            (Op::Matches(regex), Some(node)) => {
                compared(doc, node).is_some_and(|text| regex.is_match(&text))
            }
            (Op::Eq(_) | Op::Matches(_), None) => false,
        }
    })
}

/// One element kept by [`query`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Row {
    /// Its index in the array.
    pub index: usize,
    /// The element (or its selected fields) as compact JSON, numbers as written.
    pub json: String,
}

/// The answer of [`query`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matched {
    rows: Vec<Row>,
    n_matched: usize,
    n_elements: usize,
    text: String,
    notes: Vec<String>,
}

impl Matched {
    /// What the answer says besides the rows (see [`super::Got::notes`]).
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The rows shown (at most `limit`).
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    /// How many elements matched in all.
    pub fn n_matched(&self) -> usize {
        self.n_matched
    }

    /// How many elements the array has.
    pub fn n_elements(&self) -> usize {
        self.n_elements
    }
}

impl fmt::Display for Matched {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The elements of the array at the query's path that pass its filter.
///
/// ```
/// use argmend::tools::{Workspace, json::{Query, Source, query}};
///
/// let workspace = Workspace::new(std::env::temp_dir()).unwrap();
/// let text = r#"{"jobs":[{"id":1,"name":"web-a","status":"failed"},
///                  {"id":2,"name":"db","status":"failed"},
///                  {"id":3,"name":"web-b","status":"ok"}]}"#;
/// let q = Query::new("status=failed && name~^web").path("jobs").select("id,name");
/// let answer = query(&workspace, Source::Text(text), &q).unwrap();
/// assert_eq!(answer.to_string(), "[0] {\"id\":1,\"name\":\"web-a\"}\n1 of 3 elements matched\n");
/// ```
pub fn query(
    workspace: &Workspace,
    source: Source<'_>,
    query: &Query<'_>,
) -> Result<Matched, Error> {
    let segments = parse_path(query.path, EXAMPLE)?;
    if segments.contains(&Segment::Wildcard) {
        return Err(Error::argument(format!(
            "`query`: the path {:?} has `*`; give the path of one array, e.g.\n  {EXAMPLE}",
            query.path
        )));
    }
    if query.limit == 0 || query.limit > MAX_LIMIT {
        return Err(Error::argument(format!(
            "`query`: `limit` must be from 1 to {MAX_LIMIT} (default {DEFAULT_LIMIT}); e.g.\n  {EXAMPLE}"
        )));
    }
    let clauses = parse_where(query.filter)?;
    let select = match query.select {
        Some(select) => select
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|name| Ok((name, field_path(name, select)?)))
            .collect::<Result<Vec<_>, Error>>()?,
        None => Vec::new(),
    };
    let raw = read(workspace, source)?;
    let loaded = load_strict(raw)?;
    let doc = Doc::new(&loaded.bytes);
    let syntax_error = |e| loaded.syntax_error(e);
    let (at, array) = walk(&loaded, &doc, &segments)?.remove(0);
    if array.kind != Kind::Array {
        return Err(Error::new(Repr::WrongType {
            at: path::shown(&at).to_owned(),
            segment: "query".to_owned(),
            found: format!("a {}", summary(&doc, array).map_err(syntax_error)?),
            needs: "an array of objects",
        }));
    }
    let mut rows = Vec::new();
    let mut n_matched = 0;
    let mut n_elements = 0;
    // The rows' true size, and the bytes of them kept so far.
    let mut total = 0usize;
    let mut shown = 0usize;
    let mut ticker = Ticker::<8>::new();
    for (index, element) in doc.elements(array).enumerate() {
        if ticker.tick() {
            return Err(timed_out());
        }
        let element = element.map_err(syntax_error)?;
        n_elements += 1;
        if element.kind != Kind::Object || !passes(&loaded, &doc, element, &clauses) {
            continue;
        }
        n_matched += 1;
        if rows.len() >= query.limit {
            continue;
        }
        // Past the cap a row is never rendered whole: only what can still
        // be shown is kept, and `total` counts the answer's true size.
        let keep = (super::MAX_OUTPUT + 1).saturating_sub(shown);
        let mut json = String::new();
        let mut row_total = 0;
        if select.is_empty() {
            let text = doc.text(element).map_err(syntax_error)?;
            row_total += layout::format_capped(text, Layout::Compact, &mut json, keep);
        } else {
            json.push('{');
            row_total += 2;
            for (name, field) in &select {
                let Some(node) = lookup(&loaded, &doc, element, field) else {
                    continue;
                };
                if json.len() > 1 {
                    json.push(',');
                    row_total += 1;
                }
                let label = format!("{}:", serde_json::Value::from(*name));
                row_total += label.len();
                json.push_str(&label);
                let text = doc.text(node).map_err(syntax_error)?;
                let room = keep.saturating_sub(json.len());
                row_total += layout::format_capped(text, Layout::Compact, &mut json, room);
            }
            json.push('}');
        }
        let line = format!("[{index}] ").len() + 1;
        total += line + row_total;
        shown += line + json.len();
        rows.push(Row { index, json });
    }
    let plural = if n_elements == 1 {
        "element"
    } else {
        "elements"
    };
    let mut count = format!("{n_matched} of {n_elements} {plural} matched");
    if n_matched > rows.len() {
        count.push_str(&format!(
            "; showing the first {} (raise `limit`, at most {MAX_LIMIT}, or narrow `where`)",
            rows.len()
        ));
    }
    count.push('\n');
    total += count.len();
    let mut text = String::new();
    if total > super::MAX_OUTPUT {
        // The count is the line a model needs most: above the cut, not lost.
        text.push_str(&count);
    }
    for row in &rows {
        text.push_str(&format!("[{}] {}\n", row.index, row.json));
    }
    if total <= super::MAX_OUTPUT {
        text.push_str(&count);
    }
    Ok(Matched {
        rows,
        n_matched,
        n_elements,
        text: loaded.noted(cap_total(
            text,
            total,
            "keep fewer fields with `select`, or lower `limit`",
        )),
        notes: loaded.notes(),
    })
}
