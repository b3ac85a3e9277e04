//! The lazy document: values are byte spans of the input, found by walking
//! only the containers a question goes through. A subtree the question does
//! not touch is skipped with a bracket-matching scan (memchr through string
//! bodies) and never built; numbers and strings stay as written.
//!
//! The walk is strict where it goes (keys, colons, commas, scalars); a skipped
//! subtree is checked only for balanced brackets and closed strings. The
//! `validate` verb ([`super::syntax`]) checks everything.

use std::cell::OnceCell;
use std::rc::Rc;

use memchr::memchr2;

pub(crate) use super::decimal::decimal;
pub(crate) use super::syntax::decode_body;
use super::syntax::{Syntax, SyntaxKind};

/// Bytes that matter when skipping a container: quotes and brackets.
static STRUCTURAL: [bool; 256] = {
    let mut table = [false; 256];
    table[b'"' as usize] = true;
    table[b'{' as usize] = true;
    table[b'}' as usize] = true;
    table[b'[' as usize] = true;
    table[b']' as usize] = true;
    table
};

/// Bytes that matter inside a string: its end, and an escape.
static IN_STRING: [bool; 256] = {
    let mut table = [false; 256];
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

/// What a value is, from its first byte.
pub(crate) use crate::lex::ValueKind as Kind;

/// A value in the document: where it starts and what it is. Its end is found
/// (by a skip) only when someone asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Node {
    pub(crate) start: usize,
    pub(crate) kind: Kind,
}

/// A document over borrowed bytes.
#[derive(Debug, Clone)]
pub(crate) struct Doc<'a> {
    pub(crate) bytes: &'a [u8],
    /// Where the big containers of a big document end, `(start, end)` by
    /// start: built in one pass the first time one is skipped, so a lookup
    /// that must skip the same 20 MB array at two levels (the last of
    /// duplicate keys wins, so every member after the one taken is skipped)
    /// pays for one pass, not two.
    big: Rc<OnceCell<Vec<(usize, usize)>>>,
}

/// Documents from this size on get the index of big containers.
const INDEXED_DOC: usize = 1 << 20;
/// Containers from this size on are in the index.
const BIG_CONTAINER: usize = 1 << 16;

/// The offset of the quote that closes the string opened at `open`: a
/// table loop to the next quote or backslash, an escape stepped over whole.
fn closing_quote(bytes: &[u8], open: usize) -> Option<usize> {
    let mut j = open + 1;
    loop {
        while j < bytes.len() && !IN_STRING[usize::from(bytes[j])] {
            j += 1;
        }
        match bytes.get(j)? {
            b'"' => return Some(j),
            _ => j += 2,
        }
    }
}

/// The big containers of `bytes` (valid JSON): one bracket-matching pass.
fn big_containers(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut open: Vec<usize> = Vec::new();
    let mut big = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        while i < bytes.len() && !STRUCTURAL[usize::from(bytes[i])] {
            i += 1;
        }
        match bytes.get(i) {
            Some(b'"') => match closing_quote(bytes, i) {
                Some(j) => i = j,
                None => return big,
            },
            Some(b'{' | b'[') => open.push(i),
            Some(_) => {
                let Some(start) = open.pop() else {
                    return big;
                };
                if i - start >= BIG_CONTAINER {
                    big.push((start, i + 1));
                }
            }
            None => break,
        }
        i += 1;
    }
    big.sort_unstable();
    big
}

/// An object's members, each key once, and the keys that were repeated.
pub(crate) type UniqueMembers = (Vec<(String, Node)>, Vec<String>);

/// One member of an object: the key's body (between the quotes, escapes
/// undecoded) and the value.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Member<'a> {
    pub(crate) key: &'a [u8],
    pub(crate) value: Node,
}

impl Member<'_> {
    /// The key, decoded.
    pub(crate) fn key(&self) -> String {
        decode_body(self.key)
    }

    /// Whether the key is `wanted` (decoding only keys with escapes).
    pub(crate) fn is(&self, wanted: &str) -> bool {
        if self.key.contains(&b'\\') {
            decode_body(self.key) == wanted
        } else {
            self.key == wanted.as_bytes()
        }
    }
}

impl<'a> Doc<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Doc {
            bytes,
            big: Rc::default(),
        }
    }

    /// The top-level value (only its first byte is looked at).
    pub(crate) fn root(&self) -> Result<Node, Syntax> {
        let start = self.ws(0);
        self.node_at(start)
    }

    fn err(&self, offset: usize, kind: SyntaxKind) -> Syntax {
        Syntax::new(offset, kind)
    }

    /// The first non-whitespace offset at or after `pos`.
    #[inline]
    pub(crate) fn ws(&self, mut pos: usize) -> usize {
        while pos < self.bytes.len() && crate::lex::is_ws(self.bytes[pos]) {
            pos += 1;
        }
        pos
    }

    /// The value starting at `pos`.
    pub(crate) fn node_at(&self, pos: usize) -> Result<Node, Syntax> {
        let kind = match self.bytes.get(pos) {
            Some(b'{') => Kind::Object,
            Some(b'[') => Kind::Array,
            Some(b'"') => Kind::String,
            Some(b'-' | b'0'..=b'9') => Kind::Number,
            Some(b't' | b'f') => Kind::Bool,
            Some(b'n') => Kind::Null,
            Some(_) => return Err(self.err(pos, SyntaxKind::ExpectedValue)),
            None => return Err(self.err(pos, SyntaxKind::UnexpectedEnd)),
        };
        Ok(Node { start: pos, kind })
    }

    /// The offset just past `node`.
    pub(crate) fn end(&self, node: Node) -> Result<usize, Syntax> {
        let bytes = self.bytes;
        let pos = node.start;
        match node.kind {
            Kind::Object | Kind::Array => self.skip_container(pos),
            Kind::String => self.skip_string(pos),
            Kind::Number => {
                let len = super::syntax::number_len(&bytes[pos..]);
                if len == 0 {
                    return Err(self.err(pos, SyntaxKind::BadNumber));
                }
                Ok(pos + len)
            }
            Kind::Bool | Kind::Null => {
                for word in [&b"true"[..], b"false", b"null"] {
                    if bytes[pos..].starts_with(word) {
                        return Ok(pos + word.len());
                    }
                }
                Err(self.err(pos, SyntaxKind::ExpectedValue))
            }
        }
    }

    /// The bytes of `node` as written.
    pub(crate) fn text(&self, node: Node) -> Result<&'a [u8], Syntax> {
        Ok(&self.bytes[node.start..self.end(node)?])
    }

    /// The offset past the string starting at `pos` (a `"`).
    fn skip_string(&self, pos: usize) -> Result<usize, Syntax> {
        let bytes = self.bytes;
        let mut i = pos + 1;
        loop {
            match memchr2(b'"', b'\\', &bytes[i..]) {
                Some(n) if bytes[i + n] == b'"' => return Ok(i + n + 1),
                Some(n) => i += n + 2,
                None => return Err(self.err(pos, SyntaxKind::UnclosedString)),
            }
            if i > bytes.len() {
                return Err(self.err(pos, SyntaxKind::UnclosedString));
            }
        }
    }

    /// The offset past the container starting at `pos`: brackets matched by
    /// kind, nothing built. A tight loop over a byte table runs past the
    /// bytes that cannot matter (every `get` skips the members it does not
    /// take, to honour the last of duplicate keys, so this is the hot path).
    fn skip_container(&self, pos: usize) -> Result<usize, Syntax> {
        let bytes = self.bytes;
        let big: &[(usize, usize)] = if bytes.len() >= INDEXED_DOC {
            self.big.get_or_init(|| big_containers(bytes))
        } else {
            &[]
        };
        if let Ok(k) = big.binary_search_by_key(&pos, |&(start, _)| start) {
            return Ok(big[k].1);
        }
        // The next big container inside this one, jumped over whole.
        let mut next = big.partition_point(|&(start, _)| start <= pos);
        // The closers still expected, innermost last.
        let mut closers: Vec<u8> = Vec::with_capacity(16);
        let mut i = pos;
        loop {
            while i < bytes.len() && !STRUCTURAL[usize::from(bytes[i])] {
                i += 1;
            }
            let Some(&b) = bytes.get(i) else {
                return Err(self.err(bytes.len(), SyntaxKind::UnexpectedEnd));
            };
            match b {
                b'"' => {
                    let Some(j) = closing_quote(bytes, i) else {
                        return Err(self.err(i, SyntaxKind::UnclosedString));
                    };
                    i = j + 1;
                    continue;
                }
                b'{' | b'[' => {
                    // Past the big ones inside a container already jumped.
                    while big.get(next).is_some_and(|&(start, _)| start < i) {
                        next += 1;
                    }
                    if big.get(next).is_some_and(|&(start, _)| start == i) {
                        i = big[next].1;
                        next += 1;
                        continue;
                    }
                    closers.push(if b == b'{' { b'}' } else { b']' });
                }
                _ => {
                    if closers.pop() != Some(b) {
                        return Err(self.err(i, SyntaxKind::MismatchedCloser));
                    }
                    if closers.is_empty() {
                        return Ok(i + 1);
                    }
                }
            }
            i += 1;
        }
    }

    /// The members of the object `node`, in document order.
    pub(crate) fn members(&self, node: Node) -> Members<'a> {
        Members(Walk::new(self, node))
    }

    /// The elements of the array `node`, in document order.
    pub(crate) fn elements(&self, node: Node) -> Elements<'a> {
        Elements(Walk::new(self, node))
    }

    /// The value of `key` in the object `node`, and how many times the key
    /// appears there. With duplicate keys the last one counts, as in jq,
    /// JavaScript's `JSON.parse` and Python's `json`, so every verb agrees
    /// with the tools a model checks against.
    pub(crate) fn member(&self, node: Node, key: &str) -> Result<Option<(Node, usize)>, Syntax> {
        let mut found = None;
        let mut times = 0;
        for member in self.members(node) {
            let member = member?;
            if member.is(key) {
                found = Some(member.value);
                times += 1;
            }
        }
        Ok(found.map(|value| (value, times)))
    }

    /// The members of the object `node` with each key once, where the key
    /// first appears, holding its last value; and the keys that appear
    /// more than once.
    pub(crate) fn unique_members(&self, node: Node) -> Result<UniqueMembers, Syntax> {
        let mut members: Vec<(String, Node)> = Vec::new();
        // Each key's place in `members`, and whether it is already listed
        // as repeated (a search of the list was quadratic: an object of
        // 500,000 keys each written twice took hours).
        let mut seen: std::collections::HashMap<String, (usize, bool)> =
            std::collections::HashMap::new();
        let mut repeated = Vec::new();
        for member in self.members(node) {
            let member = member?;
            let key = member.key();
            match seen.get_mut(&key) {
                Some((at, listed)) => {
                    members[*at].1 = member.value;
                    if !*listed {
                        *listed = true;
                        repeated.push(key);
                    }
                }
                None => {
                    seen.insert(key.clone(), (members.len(), false));
                    members.push((key, member.value));
                }
            }
        }
        Ok((members, repeated))
    }

    /// How many members (distinct keys) or elements the container has (0
    /// for a scalar).
    pub(crate) fn count(&self, node: Node) -> Result<usize, Syntax> {
        match node.kind {
            Kind::Object => {
                let mut keys: Vec<&[u8]> = self
                    .members(node)
                    .map(|m| m.map(|m| m.key))
                    .collect::<Result<_, _>>()?;
                keys.sort_unstable();
                keys.dedup();
                Ok(keys.len())
            }
            Kind::Array => self.elements(node).try_fold(0, |n, e| e.map(|_| n + 1)),
            _ => Ok(0),
        }
    }

    /// After a member or element ending at `pos`: a `,` (more follow) or
    /// the closer (done).
    fn separator(&self, pos: usize, closer: u8) -> Result<(usize, bool), Syntax> {
        let pos = self.ws(pos);
        match self.bytes.get(pos) {
            Some(b',') => Ok((pos + 1, false)),
            Some(&b) if b == closer => Ok((pos + 1, true)),
            None => Err(self.err(pos, SyntaxKind::UnexpectedEnd)),
            Some(_) if closer == b'}' => Err(self.err(pos, SyntaxKind::ExpectedCommaOrBrace)),
            Some(_) => Err(self.err(pos, SyntaxKind::ExpectedCommaOrBracket)),
        }
    }
}

/// Where a walk through one container is; [`Members`] and [`Elements`]
/// differ only in what an item is.
struct Walk<'a> {
    doc: Doc<'a>,
    pos: usize,
    first: bool,
    done: bool,
    /// The value last returned, not yet skipped.
    previous: Option<Node>,
}

impl<'a> Walk<'a> {
    fn new(doc: &Doc<'a>, node: Node) -> Self {
        Walk {
            doc: doc.clone(),
            pos: node.start + 1,
            first: true,
            done: false,
            previous: None,
        }
    }

    /// One step of the iterator: none after the end or an error.
    fn next<T>(
        &mut self,
        step: impl FnOnce(&mut Self) -> Result<Option<T>, Syntax>,
    ) -> Option<Result<T, Syntax>> {
        if self.done {
            return None;
        }
        let result = step(self);
        if !matches!(result, Ok(Some(_))) {
            self.done = true;
        }
        result.transpose()
    }

    /// Skip the value last returned and its separator: where the next item
    /// starts, or `None` at the container's `closer`.
    fn advance(&mut self, closer: u8) -> Result<Option<usize>, Syntax> {
        let doc = &self.doc;
        if let Some(previous) = self.previous.take() {
            let (next, done) = doc.separator(doc.end(previous)?, closer)?;
            if done {
                return Ok(None);
            }
            self.pos = next;
        }
        let pos = doc.ws(self.pos);
        if self.first && doc.bytes.get(pos) == Some(&closer) {
            return Ok(None);
        }
        self.first = false;
        if doc.bytes.get(pos) == Some(&closer) {
            return Err(doc.err(pos, SyntaxKind::TrailingComma));
        }
        Ok(Some(pos))
    }
}

/// Iterator over an object's members. A value is skipped only when the
/// next member is asked for, so stopping at a member never reads its value.
pub(crate) struct Members<'a>(Walk<'a>);

impl<'a> Iterator for Members<'a> {
    type Item = Result<Member<'a>, Syntax>;

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next(|walk| {
            let Some(pos) = walk.advance(b'}')? else {
                return Ok(None);
            };
            let doc = &walk.doc;
            let bytes = doc.bytes;
            match bytes.get(pos) {
                Some(b'"') => {}
                None => return Err(doc.err(pos, SyntaxKind::UnexpectedEnd)),
                Some(_) => return Err(doc.err(pos, SyntaxKind::ExpectedKey)),
            }
            let key_end = doc.skip_string(pos)?;
            let key = &bytes[pos + 1..key_end - 1];
            let colon = doc.ws(key_end);
            if bytes.get(colon) != Some(&b':') {
                return Err(doc.err(colon, SyntaxKind::ExpectedColon));
            }
            let value = doc.node_at(doc.ws(colon + 1))?;
            walk.previous = Some(value);
            Ok(Some(Member { key, value }))
        })
    }
}

/// Iterator over an array's elements, lazy like [`Members`].
pub(crate) struct Elements<'a>(Walk<'a>);

impl Iterator for Elements<'_> {
    type Item = Result<Node, Syntax>;

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next(|walk| {
            let Some(pos) = walk.advance(b']')? else {
                return Ok(None);
            };
            let value = walk.doc.node_at(pos)?;
            walk.previous = Some(value);
            Ok(Some(value))
        })
    }
}
