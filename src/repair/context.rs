//! The object a string sits in, as far as the output shows it: its keys so
//! far and how it lays out its members.
//!
//! The quote judge uses it to decide with the container in view: a key
//! that repeats one of the object's own is code (`"path": '/b'` inside the
//! content of a `write_file` call whose path was given), and a member
//! written with the object's own layout (`,\n  "key": ` in a pretty call)
//! is more likely the next member than one written otherwise. It is read
//! from the output (JSON text, every string in it escaped) in the
//! [`CONTEXT_WINDOW`] bytes before the string, and only for a string the
//! judge needs it for (one known to hold inner quotes, or ending with a
//! comma), once per string. Reading a fixed stretch before the string makes
//! it the same whatever the output options: a repairer that forgets output
//! once returned ([`Retain::Unreturned`](crate::Retain::Unreturned)) keeps
//! that stretch (see `Machine::take_committed`).
//!
//! The same view makes two doubts, which the machine raises: a repeated
//! key (`Machine::doubt_repeated_key`, states.rs), and containers left
//! open at the end of a document that closed them (end.rs).

/// How many keys of an object are kept.
const MAX_KEYS: usize = 64;

/// How much output before a string its context is read from.
pub(super) const CONTEXT_WINDOW: usize = 4096;

/// What is known of the object a string value sits in.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct ObjContext {
    /// Its keys so far, as their JSON text between the quotes.
    keys: Vec<Box<[u8]>>,
    /// The bytes between a member's value and the next key's opening quote
    /// (`, `, `,\n  `), as the object first wrote them.
    member_gap: Option<Box<[u8]>>,
    /// The bytes between a key's closing quote and its value (`: `, `:`).
    colon_gap: Option<Box<[u8]>>,
    /// The bytes between the object's `{` and its first key (`\n  `).
    first_gap: Option<Box<[u8]>>,
}

/// How a candidate member is laid out, against the object's own members.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Layout {
    /// As the object writes its members.
    Same,
    /// Otherwise.
    Other,
    /// The object has no member of that kind yet.
    Unknown,
}

impl ObjContext {
    /// Whether the object already has a key whose text is `name`.
    pub(super) fn has_key(&self, name: &[u8]) -> bool {
        self.keys.iter().any(|k| &k[..] == name)
    }

    /// Whether `name` is named like one of the object's keys: a word of
    /// three letters or more in common (`old_string` and `new_string`,
    /// `filePath` and `file_name`), as a tool's parameters are.
    pub(super) fn resembles(&self, name: &[u8]) -> bool {
        let words = |key: &[u8]| {
            let mut words: Vec<Vec<u8>> = Vec::new();
            let mut word = Vec::new();
            let mut previous_lower = false;
            for &b in key {
                let boundary =
                    !b.is_ascii_alphanumeric() || (b.is_ascii_uppercase() && previous_lower);
                if boundary && !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
                if b.is_ascii_alphanumeric() {
                    word.push(b.to_ascii_lowercase());
                }
                previous_lower = b.is_ascii_lowercase();
            }
            if !word.is_empty() {
                words.push(word);
            }
            words.retain(|w| w.len() >= 3);
            words
        };
        let mine = words(name);
        !mine.is_empty()
            && self
                .keys
                .iter()
                .any(|key| &key[..] != name && words(key).iter().any(|w| mine.contains(w)))
    }

    /// How a separator and the whitespace after it (`gap`, up to a key's
    /// opening quote) are laid out against the object's own members.
    pub(super) fn gap_layout(&self, gap: &[u8]) -> Layout {
        match (self.member_gap.as_deref(), self.first_gap.as_deref()) {
            (Some(g), _) if g == gap => Layout::Same,
            (Some(_), _) => Layout::Other,
            // No second member yet: the first one says whether members
            // stand on lines of their own (`{\n  "a"` then `,\n  "b"`).
            (None, Some(first)) => {
                let lined = first.contains(&b'\n');
                let same = if lined {
                    gap.strip_prefix(b",") == Some(first)
                } else {
                    !gap.contains(&b'\n')
                };
                if same { Layout::Same } else { Layout::Other }
            }
            (None, None) => Layout::Unknown,
        }
    }

    /// How a member whose separator and whitespace before the key are
    /// `gap`, and whose colon and whitespace after the key are `colon`, is
    /// laid out against the object's own.
    pub(super) fn layout(&self, gap: &[u8], colon: &[u8]) -> Layout {
        let colon_same = self.colon_gap.as_deref().map(|g| g == colon);
        match (self.gap_layout(gap), colon_same) {
            (_, Some(false)) | (Layout::Other, _) => Layout::Other,
            (Layout::Same, _) => Layout::Same,
            (Layout::Unknown, _) => Layout::Unknown,
        }
    }
}

/// The context read for one string, kept while the string is open.
#[derive(Debug, Clone)]
pub(super) struct Cached {
    /// The output position of the string's opening quote.
    at: usize,
    context: Option<ObjContext>,
}

impl Cached {
    /// Whether output at or before the string's opening quote changed: the
    /// cache no longer describes it.
    pub(super) fn is_stale_after_edit_at(&self, pos: usize) -> bool {
        pos <= self.at
    }

    /// Whether it was read for the string that opens at output position `at`.
    pub(super) fn is_for(&self, at: usize) -> bool {
        self.at == at
    }
}

/// The context of the object whose value string opens at output position
/// `at`, read from the [`CONTEXT_WINDOW`] bytes before it; `out` holds the
/// output from position `base` on (at least that stretch). `cache` keeps
/// the answer for the string.
pub(super) fn object_context<'c>(
    cache: &'c mut Option<Cached>,
    out: &str,
    base: usize,
    at: usize,
) -> Option<&'c ObjContext> {
    if !cache.as_ref().is_some_and(|c| c.is_for(at)) {
        let context = at.checked_sub(base).and_then(|end| {
            let from = at.saturating_sub(CONTEXT_WINDOW).max(base) - base;
            let bytes = &out.as_bytes()[from..end];
            let start = object_start(bytes, bytes.len())?;
            let mut context = ObjContext::default();
            extend(&mut context, bytes, start + 1, bytes.len()).map(|()| context)
        });
        *cache = Some(Cached { at, context });
    }
    cache.as_ref()?.context.as_ref()
}

/// The index of the `{` of the object that encloses `end` (a string's
/// opening quote); `None` when the string is in an array, or the object
/// starts before `bytes` do.
fn object_start(bytes: &[u8], end: usize) -> Option<usize> {
    let floor = 0;
    let mut depth = 0usize;
    let mut k = end;
    while k > floor {
        k -= 1;
        match bytes[k] {
            b'"' if !escaped(bytes, k) => k = string_start(bytes, k, floor)?,
            b'}' | b']' => depth += 1,
            b'{' if depth == 0 => return Some(k),
            b'[' if depth == 0 => return None,
            b'{' | b'[' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// The opening quote of the output string whose closing quote is at `k`,
/// looking no further back than `floor` (`None` past it). The output's
/// strings are valid JSON, so an unescaped quote before `k` opens it.
pub(super) fn string_start(bytes: &[u8], mut k: usize, floor: usize) -> Option<usize> {
    loop {
        if k <= floor {
            return None;
        }
        k -= 1;
        if bytes[k] == b'"' && !escaped(bytes, k) {
            return Some(k);
        }
    }
}

/// Whether the quote at `k` is escaped (an odd number of backslashes before it).
pub(super) fn escaped(bytes: &[u8], k: usize) -> bool {
    bytes[..k].iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 1
}

/// Read the members of the object from `from` (inside it, at its top level)
/// to `to` into `context`; `None` if the object closes before `to`.
fn extend(context: &mut ObjContext, bytes: &[u8], from: usize, to: usize) -> Option<()> {
    let mut depth = 0usize;
    let mut k = from;
    // Where the last value of the object's own level ended, and where its
    // last key's closing quote was.
    let mut value_end: Option<usize> = None;
    let mut key_end: Option<usize> = None;
    while k < to {
        match bytes[k] {
            b'"' => {
                let open = k;
                k += 1;
                while k < to && (bytes[k] != b'"' || escaped(bytes, k)) {
                    k += 1;
                }
                let close = k;
                k += 1;
                if depth > 0 {
                    continue;
                }
                let next = bytes[k.min(to)..to]
                    .iter()
                    .position(|b| !crate::lex::is_ws(*b))
                    .map(|n| k + n);
                if next.is_some_and(|n| bytes[n] == b':') {
                    if context.keys.is_empty() && context.first_gap.is_none() && from > 0 {
                        context.first_gap = Some(bytes[from..open].into());
                    }
                    if context.keys.len() < MAX_KEYS {
                        context.keys.push(bytes[open + 1..close.min(to)].into());
                    }
                    if let Some(end) = value_end.take()
                        && context.member_gap.is_none()
                    {
                        context.member_gap = Some(bytes[end..open].into());
                    }
                    key_end = Some(k);
                } else {
                    value_end = Some(k.min(to));
                    if let Some(end) = key_end.take()
                        && context.colon_gap.is_none()
                    {
                        context.colon_gap = Some(bytes[end..open].into());
                    }
                }
                continue;
            }
            b'{' | b'[' => {
                if depth == 0
                    && let Some(end) = key_end.take()
                    && context.colon_gap.is_none()
                {
                    context.colon_gap = Some(bytes[end..k].into());
                }
                depth += 1;
            }
            b'}' | b']' if depth == 0 => return None,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    value_end = Some(k + 1);
                }
            }
            b',' | b':' => {}
            b if depth == 0 && !crate::lex::is_ws(b) => {
                // A number or a literal: it ends at the next delimiter.
                if let Some(end) = key_end.take()
                    && context.colon_gap.is_none()
                {
                    context.colon_gap = Some(bytes[end..k].into());
                }
                while k < to
                    && !matches!(bytes[k], b',' | b'}' | b']')
                    && !crate::lex::is_ws(bytes[k])
                {
                    k += 1;
                }
                value_end = Some(k);
                continue;
            }
            _ => {}
        }
        k += 1;
    }
    // The key right before `to` is the string's own: its colon's layout.
    if let Some(end) = key_end
        && context.colon_gap.is_none()
    {
        context.colon_gap = Some(bytes[end..to].into());
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context(out: &str) -> Option<ObjContext> {
        let at = out.rfind('"')?;
        let mut cache = None;
        object_context(&mut cache, out, 0, at).cloned()
    }

    #[test]
    fn reads_keys_and_layout() {
        let c = context("{\n  \"path\": \"a\\\"b\",\n  \"n\": {\"x\": [1]},\n  \"content\": \"")
            .unwrap();
        assert!(c.has_key(b"path") && c.has_key(b"n") && c.has_key(b"content"));
        assert!(!c.has_key(b"x"));
        assert_eq!(c.layout(b",\n  ", b": "), Layout::Same);
        assert_eq!(c.layout(b", ", b": "), Layout::Other);
        // One member so far: its line says how members stand.
        let c = context("{\"content\": \"").unwrap();
        assert_eq!(c.layout(b", ", b": "), Layout::Same);
        assert_eq!(c.layout(b",\n  ", b": "), Layout::Other);
        assert_eq!(c.layout(b", ", b":"), Layout::Other);
        let c = context("{\n  \"content\": \"").unwrap();
        assert_eq!(c.layout(b",\n  ", b": "), Layout::Same);
        assert_eq!(c.layout(b", ", b": "), Layout::Other);
    }

    #[test]
    fn names_alike() {
        let c = context("{\"file_path\": \"a\", \"old_string\": \"").unwrap();
        assert!(c.resembles(b"new_string"));
        assert!(c.resembles(b"filePath"));
        assert!(!c.resembles(b"type"));
        assert!(!c.resembles(b"old_string"));
    }

    #[test]
    fn arrays_and_far_objects_have_none() {
        assert_eq!(context("[\"a\", \""), None);
        assert_eq!(context("{\"a\": [\"b\", \""), None);
        let far = format!("{{\"a\": \"{}\", \"b\": \"", "x".repeat(CONTEXT_WINDOW));
        assert_eq!(context(&far), None);
    }

    #[test]
    fn is_read_once_per_string() {
        let out = "{\"a\": \"x\", \"b\": \"y\", \"c\": \"";
        let mut cache = None;
        let at = out.rfind('"').unwrap();
        let c = object_context(&mut cache, out, 0, at).unwrap();
        assert!(c.has_key(b"a") && c.has_key(b"b") && c.has_key(b"c"));
        assert_eq!(c.layout(b", ", b": "), Layout::Same);
        assert!(cache.as_ref().is_some_and(|c| c.is_for(at)));
    }
}
