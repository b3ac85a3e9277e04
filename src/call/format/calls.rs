//! What a marker does: blocks open and close, names end, calls start and
//! end, parameters and their values begin.

use super::gemma::GemmaArgs;
use super::machine::{
    Block, FormatParser, Judging, List, MAX_NAME, State, Tok, is_special, is_tool_name_byte,
};
use super::python::PythonArgs;
use super::spec::{Args, Calls, Index};
use super::value::{Kinds, Trim, ValueWriter, escape_into};
use crate::call::pending::Call;

impl FormatParser {
    pub(super) fn on_marker(&mut self, tok: Tok, marker: &'static str) {
        match tok {
            Tok::QuietOpen => {
                self.text.extend_from_slice(marker.as_bytes());
                let close = self
                    .spec
                    .quiet
                    .iter()
                    .find(|(open, _)| *open == marker)
                    .map_or("", |(_, close)| close);
                self.state = State::Quiet(close);
            }
            Tok::QuietClose => {
                self.text.extend_from_slice(marker.as_bytes());
                self.state = State::Text;
            }
            Tok::Open => {
                if self.call.is_some() {
                    // A new block while a call is open: the call was cut.
                    self.end_args(false);
                }
                if self.block.as_ref().is_some_and(|block| block.tentative) {
                    self.give_back();
                }
                self.open_block(marker);
            }
            Tok::ValueClose | Tok::ParamOpen | Tok::CallEnd | Tok::Close
                if matches!(self.state, State::Value(_)) =>
            {
                // A tag inside a value: does it end the value? The bytes
                // after it say (`judge.rs`).
                let State::Value(writer) = std::mem::replace(&mut self.state, State::Params) else {
                    return;
                };
                self.state = State::Judge(Box::new(Judging::new(writer, tok, marker)));
            }
            Tok::ArgsOpen | Tok::ParamOpen | Tok::CallEnd | Tok::Close
                if matches!(self.state, State::Name(_)) =>
            {
                // A marker that ends the name and belongs to what follows.
                let State::Name(name) = std::mem::replace(&mut self.state, State::Text) else {
                    return;
                };
                if self.confirm_name(&name) {
                    self.enter_args();
                    self.on_marker(tok, marker);
                } else {
                    self.state = State::Name(name);
                    self.not_a_call();
                    if self.block.is_some() {
                        self.on_marker(tok, marker);
                    } else {
                        self.text.extend_from_slice(marker.as_bytes());
                    }
                }
            }
            Tok::Close => {
                if self.call.is_some() {
                    self.end_args(true);
                }
                if self.block.as_ref().is_some_and(|block| block.tentative) {
                    self.give_back();
                    self.text.extend_from_slice(marker.as_bytes());
                }
                self.block = None;
                self.state = State::Text;
            }
            Tok::Separator => {}
            Tok::Start => {
                if self.call.is_some() {
                    self.end_args(false);
                }
                self.state = State::Name(Vec::new());
            }
            Tok::NameEnd => {
                let State::Name(name) = &mut self.state else {
                    return;
                };
                let mut typed = std::mem::take(name);
                typed.extend_from_slice(marker.as_bytes());
                let is_type_word = self.named().is_some_and(|named| {
                    named
                        .name_prefix
                        .iter()
                        .any(|prefix| prefix.as_bytes() == typed.as_slice())
                });
                if is_type_word {
                    // `function<｜tool▁sep｜>`: the name comes next.
                    self.state = State::Name(Vec::new());
                    return;
                }
                typed.truncate(typed.len() - marker.len());
                if self.confirm_name(&typed) {
                    self.after_name();
                } else {
                    self.state = State::Name(typed);
                    self.not_a_call();
                }
            }
            Tok::Tail => match &mut self.state {
                State::NameTail(_) => self.enter_args(),
                State::KeyTail(key, attrs) => {
                    let key = std::mem::take(key);
                    let attrs = std::mem::take(attrs);
                    self.start_value(&key, &attrs);
                }
                _ => {}
            },
            Tok::ArgsOpen => self.state = State::Json(self.json_end()),
            Tok::ArgsClose | Tok::CallEnd => self.end_args(true),
            Tok::ParamOpen => self.state = State::Key(Vec::new()),
            Tok::KeyEnd => {
                let State::Key(key) = &mut self.state else {
                    return;
                };
                let key = std::mem::take(key);
                match self.params() {
                    Some(params) if params.key_tail.is_some() => {
                        self.state = State::KeyTail(key, Vec::new());
                    }
                    _ => self.start_value(&key, b""),
                }
            }
            Tok::ValueOpen => {
                if let State::BeforeValue(kinds) = self.state {
                    self.state = State::Value(ValueWriter::new(kinds, self.trim()));
                }
            }
            Tok::ValueClose => {}
            Tok::Quote => {
                if let (State::Gemma(args), Some(call)) = (&mut self.state, &mut self.call) {
                    args.quote(&mut call.pending);
                }
            }
        }
    }

    /// The parameters the call's schema declares, if it declares any.
    pub(super) fn declared_params(&self) -> Option<Vec<String>> {
        let properties = self.schema.as_ref()?.get("properties")?.as_object()?;
        (!properties.is_empty()).then(|| properties.keys().cloned().collect())
    }

    /// What the format trims from a value written as text.
    pub(super) fn trim(&self) -> Trim {
        self.params().map_or(Trim::No, |params| params.trim)
    }

    /// A block's opening marker.
    fn open_block(&mut self, marker: &'static str) {
        let list = if marker.ends_with('[') {
            List::Open
        } else {
            List::No
        };
        let special = is_special(marker.as_bytes());
        let spec = self.spec;
        // A format that lists one close per opening marker pairs them.
        let close: &'static [&'static str] = match spec.open.iter().position(|open| *open == marker)
        {
            Some(at) if spec.close.len() == spec.open.len() => {
                let paired = std::slice::from_ref(&spec.close[at]);
                if paired[0].is_empty() { &[] } else { paired }
            }
            _ => spec.close,
        };
        // Until its first call, a block may be prose that mentions its
        // marker; a special token's may hold noise before it.
        let tentative = true;
        if !tentative {
            self.flush_text(true);
        }
        self.block = Some(Block {
            raw: if tentative {
                marker.as_bytes().to_vec()
            } else {
                Vec::new()
            },
            tentative,
            list,
            n_calls: 0,
            waits_for_close: !close.is_empty(),
            marked: true,
            close,
            special,
            junk: 0,
        });
        // The marker may be a call's own start (`<function=` with no
        // `<tool_call>` before it): the name follows.
        let starts_call = self
            .named()
            .is_some_and(|named| named.start.is_empty() || named.start.contains(&marker));
        self.state = if starts_call {
            State::Name(Vec::new())
        } else {
            State::Between
        };
    }

    /// A block's bytes were prose after all: they go out as text.
    pub(super) fn give_back(&mut self) {
        if let Some(block) = self.block.take() {
            self.text.extend_from_slice(&block.raw);
        }
        self.gave_back = true;
        self.state = State::Text;
    }

    /// What was read as a name is not one: prose, or junk inside a block.
    pub(super) fn not_a_call(&mut self) {
        let name = match std::mem::replace(&mut self.state, State::Text) {
            State::Name(name) | State::PyName(name) => name,
            _ => Vec::new(),
        };
        match &self.block {
            Some(block) if block.tentative => self.give_back(),
            Some(_) => {
                self.text.extend_from_slice(&name);
                self.state = State::Between;
            }
            None => self.text.extend_from_slice(&name),
        }
    }

    /// A name ended: is it one? Then the call starts.
    pub(super) fn confirm_name(&mut self, raw: &[u8]) -> bool {
        let Some(named) = self.named() else {
            return self.start_call(raw);
        };
        let mut name = std::str::from_utf8(raw).unwrap_or("").trim();
        for prefix in named.name_prefix {
            if let Some(rest) = name.strip_prefix(prefix) {
                name = rest;
            }
        }
        if named.name_index == Index::Colon
            && let Some((base, index)) = name.rsplit_once(':')
            && !index.is_empty()
            && index.bytes().all(|b| b.is_ascii_digit())
        {
            name = base;
        }
        let name = name.to_owned();
        self.start_call(name.as_bytes())
    }

    /// Start a call to `name`, if it is a name.
    pub(super) fn start_call(&mut self, name: &[u8]) -> bool {
        let Ok(name) = std::str::from_utf8(name) else {
            return false;
        };
        let name = name.trim();
        if name.is_empty() || name.len() > MAX_NAME || !name.bytes().all(is_tool_name_byte) {
            return false;
        }
        self.flush_text(true);
        if let Some(block) = &mut self.block {
            block.tentative = false;
            block.raw = Vec::new();
            block.n_calls += 1;
        }
        let mut call = Call::new(self.calls);
        self.calls += 1;
        self.schema = self.options.for_tool(name).json_schema().cloned();
        // Arguments argmend writes as JSON (from parameters, Python or
        // Gemma syntax) are typed once, as they are written; the tool's
        // schema must not coerce them again at the end, or the JSON that
        // streamed would not be the arguments.
        let writes_json = match &self.spec.calls {
            Calls::Named(named) => !matches!(named.args, Args::Json { .. }),
            Calls::Python => true,
            Calls::Objects(_) => false,
        };
        let options = if writes_json {
            self.options.without_schema()
        } else {
            self.options.clone()
        };
        call.set_name(name, &options, &mut self.events);
        self.call = Some(call);
        self.keys.clear();
        self.json_started = false;
        true
    }

    fn after_name(&mut self) {
        match self.named().and_then(|named| named.name_tail) {
            Some(_) => self.state = State::NameTail(0),
            None => self.enter_args(),
        }
    }

    /// The arguments of a named call begin.
    pub(super) fn enter_args(&mut self) {
        let Some(named) = self.named() else {
            self.state = State::Python(PythonArgs::new(self.declared_params()));
            return;
        };
        self.state = match &named.args {
            Args::Json { open: [], .. } => State::Json(self.json_end()),
            Args::Json { .. } => State::BeforeJson,
            Args::Params(_) => {
                if let Some(pending) = self.pending() {
                    pending.push(b'{');
                }
                State::Params
            }
            Args::Gemma { quoted, .. } => {
                State::Gemma(GemmaArgs::new(*quoted, self.schema.clone()))
            }
        };
    }

    /// How JSON arguments end: at their close marker (`None`), or, when the
    /// format has none, at a `}` the end or the next block follows.
    pub(super) fn json_end(&self) -> Option<Vec<u8>> {
        match self.named().map(|named| &named.args) {
            Some(Args::Json { close, .. }) if !close.is_empty() => None,
            _ => Some(Vec::new()),
        }
    }

    /// A parameter's key ended (with the attributes after it): its value begins.
    pub(super) fn start_value(&mut self, key: &[u8], attrs: &[u8]) {
        let Some(params) = self.params() else {
            return;
        };
        let key = String::from_utf8_lossy(key).trim().to_owned();
        let untyped = match params.string_attr {
            Some(attr) if contains(attrs, attr.as_bytes()) => Kinds::STRING,
            _ => params.untyped,
        };
        let kinds = Kinds::of_param(self.schema.as_ref(), &key, untyped);
        self.value_key.clear();
        if !self.keys.is_empty() {
            self.value_key.push(b',');
        }
        self.value_key.push(b'"');
        escape_into(key.as_bytes(), &mut self.value_key);
        self.value_key.extend_from_slice(b"\": ");
        self.keys.push(key);
        self.state = match params.value_open {
            Some(_) => State::BeforeValue(kinds),
            None => State::Value(ValueWriter::new(kinds, params.trim)),
        };
    }

    /// A parameter's value ended.
    pub(super) fn end_value(&mut self, writer: ValueWriter) {
        self.write_value(|out| writer.finish(out));
        self.state = State::Params;
    }

    /// The arguments ended (`closed`: by the call's own end), and the call.
    pub(super) fn end_args(&mut self, closed: bool) {
        match std::mem::replace(&mut self.state, State::Between) {
            State::Value(writer) => {
                self.write_value(|out| writer.finish(out));
                if let Some(pending) = self.pending() {
                    pending.push(b'}');
                }
            }
            State::Params | State::BeforeValue(_) | State::Key(_) | State::KeyTail(..) => {
                if let Some(pending) = self.pending() {
                    pending.push(b'}');
                }
            }
            State::BeforeJson | State::NameTail(_) => {
                if let Some(pending) = self.pending() {
                    pending.extend_from_slice(b"{}");
                }
            }
            State::Json(_) if !self.json_started => {
                if let Some(pending) = self.pending() {
                    pending.extend_from_slice(b"{}");
                }
            }
            State::Python(args) => {
                if let Some(pending) = self.pending() {
                    args.finish_into(pending);
                }
            }
            State::Gemma(args) => {
                if let Some(pending) = self.pending() {
                    args.finish(pending);
                }
            }
            _ => {}
        }
        if let Some(call) = self.call.take() {
            call.finish(&mut self.events, closed);
        }
        self.after_call();
    }

    /// A call ended: the block goes on, or ends with it.
    fn after_call(&mut self) {
        let one_call = self.close_markers().is_empty()
            && self.named().is_some_and(|named| named.start.is_empty())
            && !matches!(self.spec.calls, Calls::Objects(_) | Calls::Python);
        if one_call {
            self.block = None;
            self.state = State::Text;
        } else {
            self.state = State::Between;
        }
    }
}

pub(super) fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty()
        && haystack
            .windows(needle.len())
            .any(|window| window == needle)
}
