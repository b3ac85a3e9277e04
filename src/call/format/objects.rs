//! JSON call objects: `{"name": "N", "arguments": {…}}`, alone, in a list,
//! or in a block (`<tool_call>…</tool_call>`).
//!
//! Where do the arguments end? A scanner that counts braces outside strings
//! is fooled by what models break most: a quote left unescaped in code
//! flips it in and out of strings, and a `}}` in the code then ends the
//! call. So once the name has come and the arguments start, a `}` is taken
//! as the call object's end only when what follows it is what follows a
//! call object here: the block's close, the list's `]`, or `,` and the next
//! call object. Every other `}` is the arguments' own, and their text goes
//! to the engine, which mends it as it mends any call's. Only a `}` and the
//! few bytes after it wait; the rest streams.

use super::machine::{FormatParser, List, State};
use super::unquote::Unquote;
use crate::call::scan::Action;

/// The most bytes held after a `}` before it is taken as the arguments' own.
const MAX_TAIL: usize = 64;
/// After a `}]` that ends a list with no close marker and text after it,
/// how much text is read for a later `}]` before the list is taken as ended.
const MAX_LIST_TAIL: usize = 1024;

impl FormatParser {
    /// A call object's bytes, through its scanner.
    pub(super) fn object_bytes(&mut self, bytes: &[u8]) -> usize {
        let ends_by_what_follows = self.ends_by_what_follows();
        for (i, &b) in bytes.iter().enumerate() {
            let State::Object(scanner, unquote) = &mut self.state else {
                return i;
            };
            let action = scanner.step(b);
            let name = scanner.take_name();
            if let Some(name) = name
                && let Some(call) = &mut self.call
            {
                call.set_name(&name, &self.options, &mut self.events);
            }
            if action == Action::Args {
                let first = *unquote == Unquote::Unknown && !b.is_ascii_whitespace();
                let named = self.call.as_ref().is_some_and(|call| call.stream.is_some());
                if first && named && ends_by_what_follows {
                    let unquote = std::mem::replace(unquote, Unquote::Unknown);
                    self.state = State::ObjectArgs(unquote, Vec::new());
                    return i + self.object_args(&bytes[i..]);
                }
                if let (State::Object(_, unquote), Some(call)) = (&mut self.state, &mut self.call) {
                    unquote.byte(&mut self.surrogate, b, &mut call.pending);
                }
            }
            if action == Action::Done {
                self.end_object();
                return i + 1;
            }
        }
        bytes.len()
    }

    /// Whether the block shows where its call objects end: a close marker,
    /// or a list's `]`.
    fn ends_by_what_follows(&self) -> bool {
        self.block.is_some()
    }

    fn end_object(&mut self) {
        if let Some(call) = self.call.take() {
            call.finish(&mut self.events, true);
        }
        self.state = State::Between;
    }

    /// The arguments of a call object whose name came first.
    pub(super) fn object_args(&mut self, bytes: &[u8]) -> usize {
        for (i, &b) in bytes.iter().enumerate() {
            let State::ObjectArgs(unquote, tail) = &mut self.state else {
                return i;
            };
            if tail.is_empty() && b != b'}' {
                if let Some(call) = &mut self.call {
                    unquote.byte(&mut self.surrogate, b, &mut call.pending);
                }
                continue;
            }
            tail.push(b);
            let Some(ends) = self.object_ends(false) else {
                continue;
            };
            self.settle_tail(ends);
            return i + 1;
        }
        bytes.len()
    }

    /// The input ended with a `}` waiting: what follows it decides now.
    /// Returns whether one was waiting.
    pub(super) fn object_args_at_end(&mut self) -> bool {
        if let State::ObjectArgs(_, tail) = &self.state
            && !tail.is_empty()
        {
            let ends = self.object_ends(true).unwrap_or(true);
            self.settle_tail(ends);
            return true;
        }
        false
    }

    /// Act on a held `}`: the object's end (the call ends, and the bytes
    /// after it are read again), or the arguments' own (it goes to them,
    /// and the bytes after it are read again as arguments).
    fn settle_tail(&mut self, ends: bool) {
        let State::ObjectArgs(mut unquote, tail) =
            std::mem::replace(&mut self.state, State::Between)
        else {
            return;
        };
        if ends {
            self.end_object();
        } else {
            if let Some(call) = &mut self.call {
                unquote.byte(&mut self.surrogate, b'}', &mut call.pending);
            }
            self.state = State::ObjectArgs(unquote, Vec::new());
        }
        self.replay(&tail[1..]);
    }

    /// Whether the held `}` ends the call object, by the bytes after it:
    /// `None` while they cannot tell.
    fn object_ends(&self, at_end: bool) -> Option<bool> {
        let State::ObjectArgs(_, tail) = &self.state else {
            return Some(false);
        };
        let after = &tail[1..];
        let verdict = self.follows_object(after, at_end);
        match verdict {
            None if tail.len() > MAX_LIST_TAIL * 4 + MAX_TAIL => Some(true),
            verdict => verdict,
        }
    }

    /// Whether `bytes` are what may follow a call object in this block.
    fn follows_object(&self, bytes: &[u8], at_end: bool) -> Option<bool> {
        let after = bytes;
        let bytes = skip_spaces(bytes);
        let Some(&first) = bytes.first() else {
            return at_end.then_some(true);
        };
        let list = self
            .block
            .as_ref()
            .is_some_and(|block| block.list == List::Open);
        let bare = self.block.as_ref().is_some_and(|block| !block.marked);
        match first {
            // A bare object in prose (Llama 3): what follows is prose, or
            // more of the arguments when a quote the model did not escape
            // fooled the count. A `}` that ends the text says the latter.
            b'}' | b']' | b'"' | b':' | b')' if bare && !list => Some(false),
            b if bare && !list && !matches!(b, b',' | b';' | b'{') => prose_follows(after, at_end),
            b']' if list => {
                if !self.close_markers().is_empty() {
                    return self.close_follows(skip_spaces(&bytes[1..]), at_end);
                }
                // The list ends the block: the end or prose follows it, not
                // more JSON (`}\n  ]\n}\n",`).
                let after = skip_spaces(&bytes[1..]);
                match after.first() {
                    None if at_end => Some(true),
                    None => None,
                    Some(b'}' | b']' | b'"' | b',' | b':') => Some(false),
                    // Prose, or more of the arguments (a heredoc's `EOF`):
                    // a later `}]` says the arguments go on.
                    Some(_) => {
                        let later = after.windows(2).any(|pair| pair == b"}]");
                        match (later, at_end || after.len() >= MAX_LIST_TAIL) {
                            (true, _) => Some(false),
                            (false, true) => Some(true),
                            (false, false) => None,
                        }
                    }
                }
            }
            // One object per line (MiniMax-M1), no separator.
            b'{' => self.starts_call_object(skip_spaces(&bytes[1..]), at_end),
            b',' | b';' => {
                let rest = skip_spaces(&bytes[1..]);
                let Some(&brace) = rest.first() else {
                    return if at_end { Some(false) } else { None };
                };
                if brace != b'{' {
                    return Some(false);
                }
                self.starts_call_object(skip_spaces(&rest[1..]), at_end)
            }
            // A block with no close marker (GigaChat's `<|function_call|>{…}`):
            // the next block, or prose, the end of the call object.
            _ if self.close_markers().is_empty() && !list => {
                match self.close_follows(bytes, at_end) {
                    Some(false) => prose_follows(after, at_end),
                    verdict => verdict,
                }
            }
            _ => self.close_follows(bytes, at_end),
        }
    }

    /// Whether `bytes`, after a `{`, start a call object: a key that names
    /// a call's parts (`"name"`, `"arguments"`, `"tool_call_id"`…), or, for
    /// objects keyed by the tool's name, any key with an object after it.
    /// Content has `, {"id": 2` often; a call object's keys, rarely.
    fn starts_call_object(&self, bytes: &[u8], at_end: bool) -> Option<bool> {
        let need = if at_end { Some(false) } else { None };
        let Some(rest) = bytes.strip_prefix(b"\"") else {
            return if bytes.is_empty() { need } else { Some(false) };
        };
        let Some(end) = rest.iter().position(|&b| b == b'"') else {
            return if rest.len() > 64 { Some(false) } else { need };
        };
        let key = &rest[..end];
        if self.spec.calls_keyed() {
            let after = skip_spaces(&rest[end + 1..]);
            let Some(after) = after.strip_prefix(b":") else {
                return if after.is_empty() { need } else { Some(false) };
            };
            return match skip_spaces(after).first() {
                None => need,
                Some(&b) => Some(b == b'{'),
            };
        }
        Some(matches!(
            key,
            b"name"
                | b"tool_name"
                | b"tool"
                | b"tool_call"
                | b"tool_call_id"
                | b"arguments"
                | b"parameters"
                | b"function"
        ))
    }

    /// Whether `bytes` start with the block's close marker (or, for a
    /// format whose blocks have none, the next block's marker).
    pub(super) fn close_follows(&self, bytes: &[u8], at_end: bool) -> Option<bool> {
        if bytes.is_empty() {
            return if at_end { Some(true) } else { None };
        }
        let markers = match self.close_markers() {
            [] => self.spec.open,
            close => close,
        };
        let mut partial = false;
        for close in markers {
            let close = close.as_bytes();
            if bytes.starts_with(close) {
                return Some(true);
            }
            partial |= close.starts_with(bytes);
        }
        if partial && !at_end {
            None
        } else {
            Some(false)
        }
    }
}

impl FormatParser {
    /// JSON arguments that end at a `}` the end or the next block follows
    /// (Mistral v11: `[TOOL_CALLS]f{…}[TOOL_CALLS]g{…}`).
    pub(super) fn json_bytes(&mut self, bytes: &[u8]) -> usize {
        for (i, &b) in bytes.iter().enumerate() {
            let State::Json(Some(tail)) = &mut self.state else {
                return i;
            };
            if tail.is_empty() && b != b'}' {
                self.json_started |= !b.is_ascii_whitespace();
                if let Some(call) = &mut self.call {
                    call.pending.push(b);
                }
                continue;
            }
            tail.push(b);
            let verdict = match self.json_tail_ends(false) {
                None => continue,
                Some(ends) => ends,
            };
            self.settle_json_tail(verdict);
            return i + 1;
        }
        bytes.len()
    }

    /// The input ended with a `}` waiting: what follows it decides now.
    /// Returns whether one was waiting.
    pub(super) fn json_at_end(&mut self) -> bool {
        if let State::Json(Some(tail)) = &self.state
            && !tail.is_empty()
        {
            let ends = self.json_tail_ends(true).unwrap_or(true);
            self.settle_json_tail(ends);
            return true;
        }
        false
    }

    fn json_tail_ends(&self, at_end: bool) -> Option<bool> {
        let State::Json(Some(tail)) = &self.state else {
            return Some(false);
        };
        let after = &tail[1..];
        match self.close_follows(skip_spaces(after), at_end) {
            // Not the next block: prose after the call, or more arguments.
            Some(false) => prose_follows(after, at_end),
            None if tail.len() > MAX_LIST_TAIL * 4 + MAX_TAIL => Some(true),
            verdict => verdict,
        }
    }

    fn settle_json_tail(&mut self, ends: bool) {
        let State::Json(Some(tail)) =
            std::mem::replace(&mut self.state, State::Json(Some(Vec::new())))
        else {
            return;
        };
        if let Some(call) = &mut self.call {
            call.pending.push(b'}');
        }
        self.json_started = true;
        if ends {
            self.end_args(true);
        }
        self.replay(&tail[1..]);
    }
}

/// After a `}` that may end a call with no marker after it (`bytes` from
/// the first byte after it): whether the text that follows is prose, so
/// the call ended there, rather than more of its arguments, which a quote
/// the model did not escape made look closed. Prose comes after a space or
/// a line break and holds none of code's punctuation (brackets, `=`, `;`,
/// `"`, a backtick, a `:` ending a line); it is told at the end of the
/// input, or after enough of it. A cut stream is worse read as a finished
/// call than a finished call as a cut one.
fn prose_follows(bytes: &[u8], at_end: bool) -> Option<bool> {
    let text = skip_spaces(bytes);
    let spaced = bytes.first().is_some_and(u8::is_ascii_whitespace);
    let code = text.iter().any(|b| {
        matches!(
            b,
            b'{' | b'}' | b'[' | b']' | b'(' | b')' | b'=' | b';' | b'"' | b'`' | b'<' | b'>'
        )
    }) || text.windows(2).any(|pair| pair == b":\n");
    if !spaced || code {
        Some(false)
    } else if at_end || bytes.len() >= MAX_LIST_TAIL * 4 {
        Some(true)
    } else {
        None
    }
}

fn skip_spaces(bytes: &[u8]) -> &[u8] {
    &bytes[bytes.iter().take_while(|b| b.is_ascii_whitespace()).count()..]
}
