//! Schema-guided repair: coerce values to the types the tool's JSON Schema
//! asks for, each coercion a fix. Nothing is invented: a key the model did
//! not write is not added, not even from the schema's `default` (the tool and
//! its validator apply defaults; a repair that adds fields hides what the
//! model actually sent).
//!
//! The coercions, where the schema says…
//! - number or integer: `"5"` → `5` (the string must hold a JSON number);
//! - boolean: `"true"`, `"yes"`, `"on"`, `"1"` (and their opposites, any
//!   case) → `true` / `false`, and `1` / `0` → `true` / `false`;
//! - string: `5` → `"5"` (the number's text kept);
//! - array: `"[1, 2]"` → `[1, 2]` (a double-encoded array), else a lone
//!   value → a one-element array;
//! - object: `"{\"a\": 1}"` → `{"a": 1}` (a double-encoded object);
//! - at the top: `{"result": {…}}` → `{…}` when only the inner object fits.

use serde_json::Value;

use super::ToolFixKind;
use super::validate::{MAX_SCHEMA_DEPTH, fits, resolve, simple_match, types};
use crate::doc::tree::{self, Edit, Kind, Member, Node, is_integer, is_number, quote};
use crate::repair::{FixKind, Options, Verdict};

/// How deep a double-encoded value may nest before it is left as a string.
const MAX_INNER_DEPTH: usize = 128;

/// The edits and fixes that fit one text to a schema. Fix positions are
/// positions in the text; the caller maps them to input offsets.
pub(super) struct Coercion<'t, 's> {
    text: &'t str,
    root: &'s Value,
    strict: bool,
    /// The caller's engine limits, for a value that is JSON inside a string.
    repair: Options,
    pub(super) edits: Vec<Edit>,
    pub(super) fixes: Vec<(ToolFixKind, usize)>,
}

impl<'t, 's> Coercion<'t, 's> {
    pub(super) fn new(text: &'t str, root: &'s Value, strict: bool, repair: Options) -> Self {
        Coercion {
            text,
            root,
            strict,
            repair,
            edits: Vec::new(),
            fixes: Vec::new(),
        }
    }

    fn trial(&self) -> Self {
        Coercion::new(self.text, self.root, self.strict, self.repair)
    }

    fn adopt(&mut self, other: Coercion<'_, '_>) {
        self.edits.extend(other.edits);
        self.fixes.extend(other.fixes);
    }

    fn fix(&mut self, kind: ToolFixKind, at: usize) {
        self.fixes.push((kind, at));
    }

    /// The text of `node` with this coercion's edits applied.
    fn render(&self, node: &Node) -> String {
        tree::apply(self.text, node.start, node.end, &self.edits)
    }

    /// Fit the top-level value: unwrap `{"result": {…}}` when only the inner
    /// object fits, then coerce.
    pub(super) fn top(&mut self, node: &Node, schema: &'s Value) {
        if let Kind::Object(members) = &node.kind
            && let [member] = members.as_slice()
            && self.unwrap_result(node, member, schema)
        {
            return;
        }
        self.coerce(node, schema, 0);
    }

    fn unwrap_result(&mut self, node: &Node, member: &Member, schema: &'s Value) -> bool {
        let Ok(resolved) = resolve(self.root, schema) else {
            return false;
        };
        let declared = resolved
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|properties| properties.contains_key(&member.key));
        if declared
            || !matches!(member.value.kind, Kind::Object(_))
            || !types(resolved).contains(&"object")
            || fits(&self.text[node.start..node.end], schema, self.root)
        {
            return false;
        }
        let mut inner = self.trial();
        inner.coerce(&member.value, schema, 0);
        let rendered = inner.render(&member.value);
        if !fits(&rendered, schema, self.root) {
            return false;
        }
        self.fix(ToolFixKind::UnwrappedObject, node.start);
        self.fixes.extend(inner.fixes);
        self.edits.push(Edit::new(node.start, node.end, rendered));
        true
    }

    /// Coerce `node` to `schema`.
    pub(super) fn coerce(&mut self, node: &Node, schema: &'s Value, depth: usize) {
        if depth > MAX_SCHEMA_DEPTH {
            return;
        }
        let Ok(schema) = resolve(self.root, schema) else {
            return;
        };
        if !schema.is_object() {
            return;
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = schema.get(key) {
                return self.alternatives(node, branches, depth);
            }
        }
        if let Some(Value::Array(all)) = schema.get("allOf")
            && let Some(first) = all.first()
        {
            return self.coerce(node, first, depth + 1);
        }
        let kinds = types(schema);
        if kinds.is_empty() || kinds.iter().any(|kind| self.has_type(node, kind)) {
            return self.descend(node, schema, depth);
        }
        for kind in kinds {
            if self.convert(node, kind, schema, depth) {
                return;
            }
        }
    }

    /// `anyOf` / `oneOf`: keep a value that fits a branch; otherwise take the
    /// first branch whose coercion makes it fit; otherwise leave it.
    fn alternatives(&mut self, node: &Node, branches: &'s [Value], depth: usize) {
        let text = &self.text[node.start..node.end];
        if let Some(branch) = branches.iter().find(|b| fits(text, b, self.root)) {
            return self.coerce(node, branch, depth + 1);
        }
        for branch in branches {
            let mut trial = self.trial();
            trial.coerce(node, branch, depth + 1);
            if !trial.edits.is_empty() && fits(&trial.render(node), branch, self.root) {
                return self.adopt(trial);
            }
        }
    }

    fn has_type(&self, node: &Node, kind: &str) -> bool {
        match (kind, &node.kind) {
            ("integer", Kind::Number) => {
                let text = &self.text[node.start..node.end];
                is_integer(text) || text.parse::<f64>().is_ok_and(|x| x.fract() == 0.0)
            }
            _ => kind == node.type_name(),
        }
    }

    fn string_content(&self, node: &Node) -> Option<String> {
        tree::decode_string(&self.text[node.start..node.end])
    }

    /// Try to turn `node` into `kind`; whether it did.
    fn convert(&mut self, node: &Node, kind: &str, schema: &'s Value, depth: usize) -> bool {
        let (start, end) = (node.start, node.end);
        match (kind, &node.kind) {
            ("number" | "integer", Kind::String) => {
                let Some(content) = self.string_content(node) else {
                    return false;
                };
                let number = content.trim();
                let ok = if kind == "integer" {
                    is_integer(number)
                } else {
                    is_number(number)
                };
                if ok {
                    self.edits.push(Edit::new(start, end, number));
                    self.fix(ToolFixKind::CoercedNumber, start);
                }
                ok
            }
            ("boolean", Kind::String) => {
                let Some(content) = self.string_content(node) else {
                    return false;
                };
                let word = content.trim().to_ascii_lowercase();
                let value = match word.as_str() {
                    "true" | "yes" | "on" | "1" | "t" | "y" => "true",
                    "false" | "no" | "off" | "0" | "f" | "n" => "false",
                    _ => return false,
                };
                self.edits.push(Edit::new(start, end, value));
                self.fix(ToolFixKind::CoercedBoolean, start);
                true
            }
            ("boolean", Kind::Number) => {
                let value = match self.text[start..end].parse::<f64>() {
                    Ok(1.0) => "true",
                    Ok(0.0) => "false",
                    _ => return false,
                };
                self.edits.push(Edit::new(start, end, value));
                self.fix(ToolFixKind::CoercedBoolean, start);
                true
            }
            ("string", Kind::Number) => {
                self.edits
                    .push(Edit::new(start, end, quote(&self.text[start..end])));
                self.fix(ToolFixKind::CoercedString, start);
                true
            }
            ("array" | "object", Kind::String) if self.unwrap_string(node, kind, schema, depth) => {
                true
            }
            ("array", Kind::Null) => false,
            ("array", _) => {
                self.edits.push(Edit::new(start, start, "["));
                if let Some(items) = schema.get("items").filter(|items| items.is_object()) {
                    self.coerce(node, items, depth + 1);
                }
                self.edits.push(Edit::new(end, end, "]"));
                self.fix(ToolFixKind::WrappedInArray, start);
                true
            }
            _ => false,
        }
    }

    /// A string holding an array or object where the schema wants one: parse
    /// it (strictly, else with the engine when the whole string is the value)
    /// and put the value in its place.
    fn unwrap_string(&mut self, node: &Node, kind: &str, schema: &'s Value, depth: usize) -> bool {
        let Some(content) = self.string_content(node) else {
            return false;
        };
        let open = if kind == "array" { '[' } else { '{' };
        if !content.trim_start().starts_with(open) {
            return false;
        }
        let mut engine_fixes = Vec::new();
        let inner_text = match tree::parse(&content, MAX_INNER_DEPTH) {
            Some(_) => content,
            None => {
                // The caller's limits hold inside the string too.
                let Ok(outcome) = crate::repair::repair_with(content.as_bytes(), self.repair)
                else {
                    return false;
                };
                let whole = outcome.fixes().iter().all(|fix| {
                    !matches!(
                        fix.kind,
                        FixKind::RemovedProse
                            | FixKind::RemovedTrailingText
                            | FixKind::RemovedFence
                    )
                });
                if outcome.verdict() == Verdict::NotJson || !whole {
                    return false;
                }
                engine_fixes = outcome.fixes().iter().map(|fix| fix.kind).collect();
                outcome.text().to_owned()
            }
        };
        let Some(inner) = tree::parse(&inner_text, MAX_INNER_DEPTH) else {
            return false;
        };
        if inner.type_name() != kind {
            return false;
        }
        let mut sub = Coercion::new(&inner_text, self.root, self.strict, self.repair);
        sub.coerce(&inner, schema, depth + 1);
        let rendered = sub.render(&inner);
        self.fix(ToolFixKind::UnwrappedString, node.start);
        for kind in engine_fixes {
            self.fix(ToolFixKind::Repair(kind), node.start);
        }
        for (kind, _) in sub.fixes {
            self.fix(kind, node.start);
        }
        self.edits.push(Edit::new(node.start, node.end, rendered));
        true
    }

    /// The value has a type the schema allows: coerce its members or items.
    fn descend(&mut self, node: &Node, schema: &'s Value, depth: usize) {
        match &node.kind {
            Kind::Object(members) => self.object(members, schema, depth),
            Kind::Array(items) => {
                if let Some(item_schema) = schema.get("items").filter(|s| s.is_object()) {
                    for item in items {
                        self.coerce(item, item_schema, depth + 1);
                    }
                }
            }
            _ => {}
        }
    }

    fn object(&mut self, members: &[Member], schema: &'s Value, depth: usize) {
        let properties = schema.get("properties").and_then(Value::as_object);
        let patterns = schema.get("patternProperties").and_then(Value::as_object);
        let additional = schema.get("additionalProperties");
        let mut kept = vec![true; members.len()];
        for (i, member) in members.iter().enumerate() {
            let key = member.key.as_str();
            if let Some(property) = properties.and_then(|p| p.get(key)) {
                self.coerce(&member.value, property, depth + 1);
                continue;
            }
            let pattern = patterns.into_iter().flatten().find_map(|(pattern, sub)| {
                (simple_match(pattern, key) == Some(true)).then_some(sub)
            });
            match (pattern, additional) {
                (Some(sub), _) => self.coerce(&member.value, sub, depth + 1),
                (None, Some(sub @ Value::Object(_))) => self.coerce(&member.value, sub, depth + 1),
                (None, Some(Value::Bool(true))) => {}
                (None, _) if self.strict && (properties.is_some() || patterns.is_some()) => {
                    kept[i] = false;
                    self.fix(ToolFixKind::DroppedUnknownKey, member.key_start);
                }
                _ => {}
            }
        }
        self.drop_members(members, &kept);
    }

    /// Remove the members not kept, with their commas.
    fn drop_members(&mut self, members: &[Member], kept: &[bool]) {
        let n = members.len();
        // The members from `tail` on are all dropped; the ones before it are
        // removed up to the next member's key, so the removals never overlap.
        let tail = kept.iter().rposition(|&k| k).map_or(0, |last| last + 1);
        for i in (0..tail).filter(|&i| !kept[i]) {
            self.edits.push(Edit::new(
                members[i].key_start,
                members[i + 1].key_start,
                "",
            ));
        }
        if tail < n {
            let from = match tail {
                0 => members[0].key_start,
                _ => members[tail - 1].value.end,
            };
            self.edits
                .push(Edit::new(from, members[n - 1].value.end, ""));
        }
    }
}
