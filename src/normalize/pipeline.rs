//! The decision procedure behind [`normalize_tool_args`](super::normalize_tool_args).
//!
//! 1. Empty or whitespace-only → `{}`.
//! 2. Input that starts with `{` or `[`, or is valid JSON → the engine's repair.
//! 3. Otherwise: a code fence, or a string holding an object → the engine
//!    (it removes the fence; the object is unwrapped below); a command
//!    line → fields; JSON inside prose that the tool's schema accepts → that
//!    JSON; a tool with a primary field → the value wrapped in it;
//!    else the engine's repair if it found JSON (not just a bare word); else
//!    `NotJson`, with the input untouched.
//!
//! Then, on the JSON: a double-encoded object is unwrapped, bare
//! `true`/`false`/`null`/`none` in any case become literals, typographic
//! quotes standing as delimiters in code content are straightened (those in
//! its literals and comments stay), and a schema's coercions apply.

use std::borrow::Cow;
use std::collections::HashMap;

use super::locate::Locator;
use super::quotes::in_json_string;
use super::schema::Coercion;
use super::strategy::classify;
use super::validate::{fits, violations};
use super::wrap::{looks_like_command_line, schema_primary, typed_plain, wrap};
use super::{Normalized, Strategy, ToolFix, ToolFixKind, ToolOptions, argv, is_code_path};
use crate::doc::tree::{self, Edit, Kind, Node};
use crate::error::Error;
use crate::repair::{Doubt, FixKind, Hints, Options, Outcome, Retain, Values, Verdict};

/// Keys that name the file a writing tool writes.
const PATH_KEYS: [&str; 6] = [
    "file",
    "path",
    "file_path",
    "filepath",
    "filename",
    "target_file",
];

/// Keys whose string is the content a writing tool puts into that file.
const CONTENT_KEYS: [&str; 10] = [
    "content",
    "contents",
    "new_string",
    "new_str",
    "new_content",
    "file_text",
    "patch",
    "diff",
    "code",
    "replacement",
];

/// Subcommands of a subcommand tool that write files.
const WRITING_SUBCOMMANDS: [&str; 3] = ["write", "patch", "edit"];

/// JSON the normalize layer works on, and how it relates to the input.
struct Stage<'a> {
    text: String,
    fixes: Vec<ToolFix>,
    /// The engine's doubts, when the text is the engine's reading of the
    /// input: at input offsets already, as its fixes are.
    doubts: Vec<Doubt>,
    strategy: Strategy,
    locator: Locator<'a>,
}

/// The engine's options for tool arguments: one value, the whole output
/// kept, and the sources recorded so that normalize-level fixes get input
/// offsets without running the engine again.
pub(super) fn engine_options(options: &ToolOptions) -> Options {
    options
        .repair
        .values(Values::First)
        .retain(Retain::All)
        .source_map(true)
}

/// Normalize `raw`. `engine` is the engine's result when a stream already
/// fed it (the input started with `{` or `[`); otherwise it is computed here.
pub(super) fn normalize(
    tool: &str,
    raw: &[u8],
    options: &ToolOptions,
    engine: Option<Result<Outcome<'static>, Error>>,
) -> Normalized {
    let repair_options = engine_options(options);
    let Some(start) = raw.iter().position(|b| !b.is_ascii_whitespace()) else {
        let stage = Stage {
            text: "{}".to_owned(),
            fixes: vec![fix(ToolFixKind::EmptyArguments, 0)],
            doubts: Vec::new(),
            strategy: Strategy::StrictParse,
            locator: Locator::Fixed(0),
        };
        return finish(tool, raw, stage, options);
    };
    let hints = engine_hints(tool, options);
    let outcome = match engine {
        Some(result) => result,
        None => {
            crate::repair::repair_with_hints(raw, repair_options, &hints).map(Outcome::into_owned)
        }
    };
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(error) => return not_json(raw, error.to_string()),
    };
    let container = matches!(raw[start], b'{' | b'[');
    let engine_stage = |mut outcome: Outcome<'static>| {
        let locator = match (outcome.verdict(), outcome.take_sources()) {
            (Verdict::Valid, _) => Locator::Identity,
            (_, Some(map)) => Locator::mapped(raw, map),
            // Only a limit crossed before any output leaves no map.
            (_, None) => Locator::Fixed(0),
        };
        let strategy = classify(outcome.fixes());
        let fixes = outcome
            .fixes()
            .iter()
            .map(|f| fix(ToolFixKind::Repair(f.kind), f.offset))
            .collect();
        let doubts = outcome.doubts().to_vec();
        Stage {
            text: outcome.into_text().into_owned(),
            fixes,
            doubts,
            strategy,
            locator,
        }
    };
    if container || outcome.verdict() == Verdict::Valid {
        return match outcome.verdict() {
            Verdict::NotJson => not_json(raw, reason(&outcome)),
            _ => finish(tool, raw, engine_stage(outcome), options),
        };
    }

    let text = String::from_utf8_lossy(raw);
    let trimmed = text.trim();
    let offset = text.len() - text.trim_start().len();
    if (trimmed.starts_with("```") && outcome.verdict() != Verdict::NotJson)
        || holds_object(outcome.text())
    {
        return finish(tool, raw, engine_stage(outcome), options);
    }
    // The built-in table's field for the tool's name only where the schema
    // (when there is one) declares it: a `search` whose schema has `query`
    // and `limit` must not get `{"term": …}`, a key its tool never reads.
    let declared = |field: &&str| {
        let properties = (options.schema.as_ref())
            .and_then(|schema| schema.get("properties"))
            .and_then(serde_json::Value::as_object);
        properties.is_none_or(|properties| properties.contains_key(*field))
    };
    let primary = options
        .schema
        .as_ref()
        .and_then(schema_primary)
        .or_else(|| options.tools.primary_field(tool).filter(declared));
    if (looks_like_command_line(trimmed) || options.tools.is_verb_line(tool, trimmed))
        && !options.tools.takes_command_line(tool)
    {
        return match argv::parse(trimmed, offset, tool, &options.tools, primary) {
            Ok(line) => {
                let stage = Stage {
                    text: line.json,
                    fixes: vec![fix(ToolFixKind::ParsedCommandLine, offset)],
                    doubts: Vec::new(),
                    strategy: Strategy::PlainValue,
                    locator: Locator::Anchors {
                        anchors: line.anchors,
                        fallback: offset,
                    },
                };
                finish(tool, raw, stage, options)
            }
            Err(why) => not_json(raw, format!("a command line that cannot be split: {why}")),
        };
    }
    // Prose around JSON that the tool's schema accepts is the JSON, not a
    // plain value: the schema tells the two apart.
    let schema_accepts = |outcome: &Outcome<'_>| {
        let text = outcome.text();
        outcome.verdict() != Verdict::NotJson
            && text.trim_start().starts_with(['{', '['])
            && options
                .schema
                .as_ref()
                .is_some_and(|schema| fits(text, schema, schema))
    };
    if schema_accepts(&outcome) {
        return finish(tool, raw, engine_stage(outcome), options);
    }
    if let Some(field) = primary {
        let stage = Stage {
            text: wrap(field, &typed_plain(trimmed)),
            fixes: vec![fix(ToolFixKind::WrappedValue, offset)],
            doubts: Vec::new(),
            strategy: Strategy::PlainValue,
            locator: Locator::Fixed(offset),
        };
        return finish(tool, raw, stage, options);
    }
    let found_json = outcome.verdict() != Verdict::NotJson
        && (outcome.text().trim_start().starts_with(['{', '['])
            || !outcome.fixes().iter().any(|f| {
                matches!(
                    f.kind,
                    FixKind::QuotedWord | FixKind::RemovedProse | FixKind::RemovedTrailingText
                )
            }));
    if found_json {
        return finish(tool, raw, engine_stage(outcome), options);
    }
    not_json(
        raw,
        format!(
            "a plain value, and tool `{tool}` has no primary field to put it in \
             (a schema names one: its only property, or its only required string \
             property; in Rust, ToolMap::with_tool registers one)"
        ),
    )
}

/// What the engine is told about the arguments' keys: the schema's
/// properties, else the tool's known parameters.
pub(super) fn engine_hints(tool: &str, options: &ToolOptions) -> Hints {
    match (&options.schema, options.tools.params(tool)) {
        (Some(schema), _) => Hints::from_schema(schema),
        (None, Some(params)) if options.tools.params_assumed(tool) => {
            Hints::from_fields(params).assumed()
        }
        (None, Some(params)) => Hints::from_fields(params),
        (None, None) => Hints::default(),
    }
}

/// Whether `text` is a JSON string holding a JSON object (double-encoded
/// arguments, here written with other quotes: `'{"file":"a.go"}'`).
fn holds_object(text: &str) -> bool {
    let text = text.trim();
    text.starts_with('"')
        && tree::decode_string(text).is_some_and(|inner| {
            inner.trim_start().starts_with('{')
                && tree::parse(&inner, 128).is_some_and(|node| matches!(node.kind, Kind::Object(_)))
        })
}

fn fix(kind: ToolFixKind, offset: usize) -> ToolFix {
    ToolFix { kind, offset }
}

fn reason(outcome: &Outcome<'_>) -> String {
    outcome
        .reason()
        .unwrap_or("no JSON value found in the input")
        .to_owned()
}

fn not_json(raw: &[u8], reason: String) -> Normalized {
    Normalized {
        text: String::from_utf8_lossy(raw).into_owned(),
        strategy: None,
        verdict: Verdict::NotJson,
        fixes: Vec::new(),
        doubts: Vec::new(),
        reason: Some(reason),
        violations: Vec::new(),
    }
}

/// The JSON-level rules, then the verdict.
fn finish(tool: &str, raw: &[u8], mut stage: Stage<'_>, options: &ToolOptions) -> Normalized {
    let depth = options.repair.depth_limit().saturating_add(1);
    let needs_tree = options.schema.is_some()
        || options.tools.writes_files(tool)
        || options.tools.takes_subcommands(tool)
        || stage.text.trim_start().starts_with('"')
        || has_odd_literals(raw, &stage.fixes);
    if needs_tree && let Some(root) = tree::parse(&stage.text, depth) {
        content_rules(tool, raw, &mut stage, root, options, depth);
    }
    let mut violations_found = Vec::new();
    if let Some(schema) = &options.schema
        && let Ok(value) = serde_json::from_str(&stage.text)
    {
        violations_found = violations(&value, schema, schema);
    }
    stage.fixes.sort_by_key(|f| f.offset);
    let verdict = if stage.fixes.is_empty() {
        Verdict::Valid
    } else if stage.fixes.iter().all(|f| match f.kind {
        ToolFixKind::Repair(kind) => kind.is_truncation(),
        _ => false,
    }) {
        Verdict::Completed
    } else {
        Verdict::Repaired
    };
    Normalized {
        text: stage.text,
        strategy: Some(stage.strategy),
        verdict,
        fixes: stage.fixes,
        doubts: stage.doubts,
        reason: None,
        violations: violations_found,
    }
}

/// The literal spellings the engine leaves as words (`tRuE`, `nOnE`).
fn literal(word: &str) -> Option<&'static str> {
    ["true", "false", "null", "none"]
        .into_iter()
        .find(|l| word.eq_ignore_ascii_case(l))
        .map(|l| if l == "none" { "null" } else { l })
}

/// The bare word the engine quoted at `offset`, if it spells a literal.
fn odd_literal_at(raw: &[u8], offset: usize) -> Option<&'static str> {
    let rest = raw.get(offset..)?;
    let end = rest
        .iter()
        .position(|b| !(b.is_ascii_alphabetic()))
        .unwrap_or(rest.len());
    literal(std::str::from_utf8(&rest[..end]).ok()?)
}

fn has_odd_literals(raw: &[u8], fixes: &[ToolFix]) -> bool {
    fixes.iter().any(|f| {
        f.kind == ToolFixKind::Repair(FixKind::QuotedWord)
            && odd_literal_at(raw, f.offset).is_some()
    })
}

/// Unwrap a double-encoded object, type odd literals, straighten code
/// quotes, then apply the schema.
fn content_rules(
    tool: &str,
    raw: &[u8],
    stage: &mut Stage<'_>,
    mut root: Node,
    options: &ToolOptions,
    depth: usize,
) {
    if let Kind::String = root.kind {
        let inner = tree::decode_string(&stage.text[root.start..root.end]);
        let object = inner.and_then(|inner| {
            let node = tree::parse(&inner, depth)?;
            matches!(node.kind, Kind::Object(_)).then_some((inner, node))
        });
        if let Some((inner, node)) = object {
            let at = stage.locator.value(root.start);
            stage.fixes.push(fix(ToolFixKind::UnwrappedString, at));
            stage.text = inner;
            stage.locator = Locator::Fixed(at);
            root = node;
        }
    }

    // Phase A: edits on the text as it is.
    let mut edits = Vec::new();
    if has_odd_literals(raw, &stage.fixes) {
        let quoted_word = ToolFixKind::Repair(FixKind::QuotedWord);
        let words: HashMap<usize, usize> = (stage.fixes.iter().enumerate())
            .filter(|(_, f)| f.kind == quoted_word)
            .map(|(i, f)| (f.offset, i))
            .collect();
        odd_literals(raw, stage, &words, &root, &mut edits);
    }
    if let Some(target) = writing_target(tool, &stage.text, &root, options) {
        straighten(stage, target, &mut edits);
    }
    let text_a: Cow<'_, str> = if edits.is_empty() {
        Cow::Borrowed(stage.text.as_str())
    } else {
        Cow::Owned(tree::apply(&stage.text, 0, stage.text.len(), &edits))
    };

    // Phase B: the schema, on the text after phase A.
    let Some(schema) = &options.schema else {
        if let Cow::Owned(text) = text_a {
            stage.text = text;
        }
        return;
    };
    let Some(root_a) = tree::parse(&text_a, depth) else {
        return;
    };
    let strict = options.mode == super::SchemaMode::Strict;
    let mut coercion = Coercion::new(&text_a, schema, strict, options.repair);
    coercion.top(&root_a, schema);
    let text_b = tree::apply(&text_a, 0, text_a.len(), &coercion.edits);
    let rebase = Rebase::new(&edits);
    for (kind, at) in coercion.fixes {
        let offset = stage.locator.value(rebase.back(at));
        stage.fixes.push(fix(kind, offset));
    }
    stage.text = text_b;
}

/// Maps positions in a text after non-overlapping edits back to the text before.
struct Rebase {
    /// Per edit, sorted: where its replacement starts and ends in the new
    /// text, where it started in the old one, and the shift after it.
    spans: Vec<(usize, usize, usize, isize)>,
}

impl Rebase {
    fn new(edits: &[Edit]) -> Self {
        let mut sorted: Vec<&Edit> = edits.iter().collect();
        sorted.sort_by_key(|e| (e.start, e.end));
        let mut shift: isize = 0;
        let mut spans = Vec::with_capacity(sorted.len());
        for edit in sorted {
            let new_start = edit.start.saturating_add_signed(shift);
            shift += edit.with.len() as isize - (edit.end - edit.start) as isize;
            spans.push((new_start, new_start + edit.with.len(), edit.start, shift));
        }
        Rebase { spans }
    }

    /// The old position of new position `at` (inside a replacement: where it started).
    fn back(&self, at: usize) -> usize {
        let i = self.spans.partition_point(|span| span.0 <= at);
        match i.checked_sub(1).map(|i| self.spans[i]) {
            None => at,
            Some((_, new_end, old_start, _)) if at < new_end => old_start,
            Some((.., shift)) => at.saturating_add_signed(-shift),
        }
    }
}

/// Strings that came from a bare `tRuE` / `nOnE` → the literal.
///
/// `words` maps the input offset of each `QuotedWord` fix to its index.
fn odd_literals(
    raw: &[u8],
    stage: &mut Stage<'_>,
    words: &HashMap<usize, usize>,
    node: &Node,
    edits: &mut Vec<Edit>,
) {
    match &node.kind {
        Kind::String => {
            let Some(word) = tree::decode_string(&stage.text[node.start..node.end]) else {
                return;
            };
            let Some(with) = literal(&word) else { return };
            let at = stage.locator.value(node.start);
            if let Some(&i) = words.get(&at)
                && odd_literal_at(raw, at).is_some()
            {
                stage.fixes[i].kind = ToolFixKind::Repair(FixKind::ReplacedLiteral);
                edits.push(Edit::new(node.start, node.end, with));
            }
        }
        Kind::Array(items) => {
            for item in items {
                odd_literals(raw, stage, words, item, edits);
            }
        }
        Kind::Object(members) => {
            for member in members {
                odd_literals(raw, stage, words, &member.value, edits);
            }
        }
        _ => {}
    }
}

/// The object holding a writing tool's path and content: the arguments
/// themselves, or `args` of a subcommand tool's `write` / `patch` / `edit`.
fn writing_target<'n>(
    tool: &str,
    text: &str,
    root: &'n Node,
    options: &ToolOptions,
) -> Option<&'n Node> {
    let Kind::Object(members) = &root.kind else {
        return None;
    };
    if options.tools.writes_files(tool) {
        return Some(root);
    }
    if !options.tools.takes_subcommands(tool) {
        return None;
    }
    let cmd = members.iter().find(|m| m.key == "cmd")?;
    let sub = tree::decode_string(&text[cmd.value.start..cmd.value.end])?;
    if !WRITING_SUBCOMMANDS.contains(&sub.to_ascii_lowercase().as_str()) {
        return None;
    }
    match members.iter().find(|m| m.key == "args") {
        Some(args) if matches!(args.value.kind, Kind::Object(_)) => Some(&args.value),
        _ => Some(root),
    }
}

/// Straighten the typographic quotes that stand as code delimiters in the
/// content strings of `target`, when its path names a code file (see
/// [`normalize_quotes`](super::normalize_quotes)).
fn straighten(stage: &mut Stage<'_>, target: &Node, edits: &mut Vec<Edit>) {
    let Kind::Object(members) = &target.kind else {
        return;
    };
    let text = &stage.text;
    let path = members
        .iter()
        .filter(|m| PATH_KEYS.contains(&m.key.as_str()))
        .find_map(|m| match m.value.kind {
            Kind::String => tree::decode_string(&text[m.value.start..m.value.end]),
            _ => None,
        });
    let Some(path) = path.filter(|path| is_code_path(path)) else {
        return;
    };
    let mut found = Vec::new();
    for member in members
        .iter()
        .filter(|m| CONTENT_KEYS.contains(&m.key.as_str()))
    {
        let value = &member.value;
        if let Kind::String = value.kind
            && let Some((with, within)) = in_json_string(&path, &text[value.start..value.end])
        {
            found.push((value.start, value.end, with, within));
        }
    }
    for (start, end, with, within) in found {
        for (at, rank) in within {
            let offset = stage.locator.in_string(start, at, rank);
            stage
                .fixes
                .push(fix(ToolFixKind::StraightenedQuote, offset));
        }
        edits.push(Edit::new(start, end, with));
    }
}
