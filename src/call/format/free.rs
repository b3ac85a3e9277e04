//! What the bytes between markers do in each state: prose, a name, a
//! value, JSON arguments, a call object, Python or Gemma arguments.

use super::machine::{
    Block, FormatParser, List, MAX_JUNK, MAX_KEY, MAX_NAME, State, is_tool_name_byte, named_of,
};
use super::python::{PythonArgs, is_name_byte};
use super::spec::{Args, Bare, Calls, Object};
use super::unquote::Unquote;
use super::value::ValueWriter;
use crate::call::pending::Call;
use crate::call::scan::{HEAD_LOOKAHEAD, Head, ObjectScanner, classify_head};

impl FormatParser {
    /// Bytes that are no marker, read in the current state; returns how
    /// many it took (0 when the state changed and another must read them).
    pub(super) fn free(&mut self, bytes: &[u8]) -> usize {
        self.gave_back = false;
        let used = self.free_in_state(bytes);
        if self.gave_back {
            // The block became prose in these bytes: those it read are
            // text after its own.
            self.text.extend_from_slice(&bytes[..used]);
            self.gave_back = false;
        } else {
            self.record(&bytes[..used]);
        }
        used
    }

    fn free_in_state(&mut self, bytes: &[u8]) -> usize {
        let spec = self.spec;
        match &mut self.state {
            State::Text => self.text_bytes(bytes),
            State::Quiet(_) => {
                self.text.extend_from_slice(bytes);
                bytes.len()
            }
            State::Head(_) => self.head_bytes(bytes),
            State::Between => self.between(bytes),
            State::Name(name) => {
                for (i, &b) in bytes.iter().enumerate() {
                    if name.is_empty() && b.is_ascii_whitespace() {
                        continue;
                    }
                    if is_tool_name_byte(b) && name.len() < MAX_NAME {
                        name.push(b);
                        continue;
                    }
                    // A byte no name holds: the arguments' first, or prose.
                    let starts_args = match named_of(spec).map(|named| &named.args) {
                        Some(Args::Json { .. }) => matches!(b, b'{' | b'['),
                        Some(Args::Gemma { .. }) => b == b'{',
                        _ => false,
                    };
                    let name = std::mem::take(name);
                    if starts_args && self.confirm_name(&name) {
                        self.enter_args();
                    } else {
                        self.state = State::Name(name);
                        self.not_a_call();
                    }
                    return i;
                }
                bytes.len()
            }
            State::NameTail(n) => {
                *n += bytes.len();
                if *n > MAX_NAME {
                    self.end_args(false);
                }
                bytes.len()
            }
            State::BeforeJson => {
                for (i, &b) in bytes.iter().enumerate() {
                    if matches!(b, b'{' | b'[') {
                        self.state = State::Json(self.json_end());
                        return i;
                    }
                }
                bytes.len()
            }
            State::Json(None) => {
                self.json_started |= bytes.iter().any(|b| !b.is_ascii_whitespace());
                if let Some(pending) = self.pending() {
                    pending.extend_from_slice(bytes);
                }
                bytes.len()
            }
            State::Json(Some(_)) => self.json_bytes(bytes),
            State::Object(..) => self.object_bytes(bytes),
            State::ObjectArgs(..) => self.object_args(bytes),
            State::Params => bytes.len(),
            State::Key(key) | State::KeyTail(_, key) => {
                let room = MAX_KEY.saturating_sub(key.len());
                key.extend_from_slice(&bytes[..bytes.len().min(room)]);
                bytes.len()
            }
            State::BeforeValue(kinds) => {
                let n = bytes.iter().take_while(|b| b.is_ascii_whitespace()).count();
                if n < bytes.len() {
                    // No value marker: the value begins here.
                    let kinds = *kinds;
                    self.state = State::Value(ValueWriter::new(kinds, self.trim()));
                }
                n
            }
            State::Value(_) => {
                let State::Value(mut writer) = std::mem::replace(&mut self.state, State::Params)
                else {
                    return 0;
                };
                self.write_value(|out| writer.push(bytes, out));
                self.state = State::Value(writer);
                bytes.len()
            }
            State::Judge(_) => self.judge_bytes(bytes),
            State::PyName(name) => {
                for (i, &b) in bytes.iter().enumerate() {
                    if is_name_byte(b) || (b == b'.' && !name.is_empty()) {
                        if name.len() < MAX_NAME {
                            name.push(b);
                            continue;
                        }
                    } else if b == b'(' && !name.is_empty() {
                        let name = std::mem::take(name);
                        if self.start_call(&name) {
                            self.state = State::Python(PythonArgs::new(self.declared_params()));
                            return i + 1;
                        }
                        self.state = State::PyName(name);
                    }
                    self.not_a_call();
                    return i;
                }
                bytes.len()
            }
            State::Python(args) => {
                let used = args.push(bytes);
                let done = args.done();
                let leftover = args.take_leftover();
                if let Some(call) = &mut self.call {
                    args.drain_into(&mut call.pending);
                }
                if done {
                    self.end_args(true);
                    if self.spec.bare == Bare::PythonLine {
                        self.block = None;
                        self.state = State::Text;
                        self.line_start = false;
                    }
                    self.replay(&leftover);
                }
                used
            }
            State::Gemma(args) => {
                let Some(call) = &mut self.call else {
                    return bytes.len();
                };
                let used = args.push(bytes, &mut call.pending);
                if args.done() {
                    self.end_args(true);
                }
                used
            }
        }
    }

    /// Prose: text, unless a bare call starts here.
    fn text_bytes(&mut self, bytes: &[u8]) -> usize {
        for (i, &b) in bytes.iter().enumerate() {
            let starts = match self.spec.bare {
                Bare::Json => matches!(b, b'{' | b'['),
                Bare::PythonLine => self.line_start && is_name_byte(b) && !b.is_ascii_digit(),
                Bare::No => false,
            };
            if starts {
                self.state = State::Head(Vec::new());
                return i;
            }
            self.text.push(b);
            self.line_start = b == b'\n';
        }
        bytes.len()
    }

    /// Bytes that may open a bare call.
    fn head_bytes(&mut self, bytes: &[u8]) -> usize {
        let State::Head(head) = &mut self.state else {
            return 0;
        };
        let mut verdict = None;
        let mut used = 0;
        for &b in bytes {
            head.push(b);
            used += 1;
            verdict = match self.spec.bare {
                Bare::Json => json_head(head),
                Bare::PythonLine => python_head(head),
                Bare::No => Some(false),
            };
            if verdict.is_some() {
                break;
            }
        }
        if verdict.is_none() && self.at_end {
            verdict = Some(false);
        }
        let Some(is_call) = verdict else {
            return used;
        };
        let State::Head(head) = std::mem::replace(&mut self.state, State::Text) else {
            return used;
        };
        if is_call {
            self.block = Some(Block {
                raw: Vec::new(),
                tentative: false,
                list: List::No,
                n_calls: 0,
                waits_for_close: false,
                marked: false,
                close: &[],
                special: false,
                junk: 0,
            });
            self.state = match self.spec.bare {
                Bare::PythonLine => State::PyName(Vec::new()),
                _ => State::Between,
            };
            self.replay(&head);
        } else {
            // Not a call: its first byte is text, the rest is read again.
            self.text.push(head[0]);
            self.line_start = head[0] == b'\n';
            self.replay(&head[1..]);
        }
        used
    }

    /// Between the calls of a block.
    fn between(&mut self, bytes: &[u8]) -> usize {
        let objects = match &self.spec.calls {
            Calls::Objects(object) => Some(*object),
            Calls::Named(named) => named.objects,
            Calls::Python => None,
        };
        let python = matches!(self.spec.calls, Calls::Python);
        let listing = objects.is_some() || python;
        for (i, &b) in bytes.iter().enumerate() {
            if b.is_ascii_whitespace() {
                continue;
            }
            let Some(block) = &mut self.block else {
                self.state = State::Text;
                return i;
            };
            match b {
                b'[' if listing && block.list == List::No => block.list = List::Open,
                b']' if listing && block.list == List::Open => {
                    block.list = List::Closed;
                    if !block.waits_for_close {
                        self.block = None;
                        self.state = State::Text;
                        return i + 1;
                    }
                }
                b',' | b';' if listing && block.list != List::Closed => {}
                b'{' if objects.is_some() && block.list != List::Closed => {
                    block.tentative = false;
                    block.raw = Vec::new();
                    block.n_calls += 1;
                    self.flush_text(true);
                    let mut call = Call::new(self.calls);
                    self.calls += 1;
                    call.object_form = true;
                    self.call = Some(call);
                    self.json_started = false;
                    let scanner = match objects {
                        Some(Object::Keyed) => ObjectScanner::keyed(),
                        _ => ObjectScanner::new(),
                    };
                    self.state = State::Object(scanner, Unquote::Unknown);
                    return i + 1;
                }
                b if python && is_name_byte(b) && block.list != List::Closed => {
                    self.state = State::PyName(Vec::new());
                    return i;
                }
                _ => {
                    if block.tentative {
                        // A special token's block may hold noise before its
                        // first call (kept, and given back as text if no call
                        // comes); any other is prose that mentions a marker.
                        if block.special && block.junk < MAX_JUNK {
                            block.junk += 1;
                            continue;
                        }
                        self.give_back();
                        return i;
                    }
                    if !block.waits_for_close {
                        // Calls over: the block ends with the text after them.
                        self.block = None;
                        self.state = State::Text;
                        return i;
                    }
                    // Text inside the block, after its calls: passed on.
                    self.text.push(b);
                }
            }
        }
        bytes.len()
    }
}

/// Whether the bytes held after a `{` or `[` open a bare JSON call: `None`
/// while they cannot tell.
fn json_head(head: &[u8]) -> Option<bool> {
    let object = match head.first() {
        Some(b'[') => {
            let spaces = head[1..]
                .iter()
                .take_while(|b| b.is_ascii_whitespace())
                .count();
            let rest = &head[1 + spaces..];
            if rest.is_empty() {
                return if head.len() < HEAD_LOOKAHEAD {
                    None
                } else {
                    Some(false)
                };
            }
            if rest[0] != b'{' {
                return Some(false);
            }
            rest
        }
        _ => head,
    };
    match classify_head(object, &|_| true) {
        Head::Need if head.len() < HEAD_LOOKAHEAD => None,
        Head::Named => Some(true),
        Head::Need | Head::Text | Head::ToolCall => Some(false),
    }
}

/// Whether the bytes held at a line's start open a Python call `name(`.
fn python_head(head: &[u8]) -> Option<bool> {
    let last = *head.last()?;
    if last == b'(' {
        return Some(head.len() > 1);
    }
    if (is_name_byte(last) || (last == b'.' && head.len() > 1)) && head.len() <= MAX_NAME {
        return None;
    }
    Some(false)
}
