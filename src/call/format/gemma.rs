//! Gemma's argument object (`{key:<|"|>text<|"|>,n:42,on:true,l:[…]}`):
//! bare keys, strings between a marker (`<|"|>`, or `<escape>` for
//! FunctionGemma), bare numbers and literals, nested objects and arrays,
//! written as JSON as they arrive. The machine matches the string marker
//! and calls [`GemmaArgs::quote`]; every other byte comes through
//! [`GemmaArgs::push`].

use super::value::{Kinds, Trim, ValueWriter, escape_into};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before the object's `{`.
    Open,
    /// Before a key (or the object's `}`).
    Key,
    /// A bare key.
    BareKey,
    /// A key between string markers.
    QuotedKey,
    /// After a quoted key, before its `:`.
    Colon,
    /// Before a value.
    Value,
    /// A bare value.
    Bare,
    /// A value between string markers.
    Quoted,
    /// After a value.
    After,
    /// The object's `}` came.
    Done,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    Object(usize),
    Array(usize),
}

/// Gemma's arguments, up to the object's `}`, as a JSON object.
#[derive(Debug)]
pub(crate) struct GemmaArgs {
    quoted: Kinds,
    /// The tool's schema: a top-level value between markers takes the kinds
    /// it declares for its key.
    schema: Option<serde_json::Value>,
    /// The last top-level key.
    key: String,
    state: State,
    frames: Vec<Frame>,
    token: Vec<u8>,
    writer: Option<ValueWriter>,
}

impl GemmaArgs {
    /// `quoted`: what a string between markers may turn into where the
    /// schema does not say.
    pub(crate) fn new(quoted: Kinds, schema: Option<serde_json::Value>) -> Self {
        GemmaArgs {
            quoted,
            schema,
            key: String::new(),
            state: State::Open,
            frames: Vec::new(),
            token: Vec::new(),
            writer: None,
        }
    }

    /// Whether the object has ended.
    pub(crate) fn done(&self) -> bool {
        self.state == State::Done
    }

    /// A string marker.
    pub(crate) fn quote(&mut self, out: &mut Vec<u8>) {
        match self.state {
            State::After if matches!(self.frames.last(), Some(Frame::Object(_))) => {
                // A quoted key with no comma before it.
                self.token.clear();
                self.state = State::QuotedKey;
            }
            State::Key => {
                self.token.clear();
                self.state = State::QuotedKey;
            }
            State::QuotedKey => self.state = State::Colon,
            State::Value => {
                self.start_value(out);
                let kinds = if self.frames.len() == 1 {
                    Kinds::of_param(self.schema.as_ref(), &self.key, self.quoted)
                } else {
                    self.quoted
                };
                self.writer = Some(ValueWriter::new(kinds, Trim::No));
                self.state = State::Quoted;
            }
            State::Quoted => {
                if let Some(writer) = self.writer.take() {
                    writer.finish(out);
                }
                self.state = State::After;
            }
            // A marker out of place is dropped.
            _ => {}
        }
    }

    /// Read `bytes` up to the object's end; returns how many were read.
    pub(crate) fn push(&mut self, bytes: &[u8], out: &mut Vec<u8>) -> usize {
        if self.state == State::Quoted {
            if let Some(writer) = &mut self.writer {
                writer.push(bytes, out);
            }
            return bytes.len();
        }
        for (i, &b) in bytes.iter().enumerate() {
            self.byte(b, out);
            if self.state == State::Done {
                return i + 1;
            }
            if self.state == State::Quoted {
                return i + 1;
            }
        }
        bytes.len()
    }

    /// The input ended: what is settled is written; the engine closes the rest.
    pub(crate) fn finish(mut self, out: &mut Vec<u8>) {
        match self.state {
            State::Quoted => {
                // An unterminated string takes everything after its marker.
                if let Some(writer) = self.writer.take() {
                    writer.finish(out);
                }
            }
            State::Bare => self.end_bare(out),
            _ => {}
        }
    }

    fn byte(&mut self, b: u8, out: &mut Vec<u8>) {
        match self.state {
            State::Open => {
                if b == b'{' {
                    out.push(b'{');
                    self.frames.push(Frame::Object(0));
                    self.state = State::Key;
                }
            }
            State::Key => match b {
                b'}' => self.close(out),
                b',' => {}
                b if b.is_ascii_whitespace() => {}
                b => {
                    self.token.clear();
                    self.token.push(b);
                    self.state = State::BareKey;
                }
            },
            State::BareKey => match b {
                b':' => self.write_key(out),
                b'}' => {
                    // `{flag}`: a key with no value.
                    self.write_key(out);
                    out.extend_from_slice(b"\"\"");
                    self.state = State::After;
                    self.byte(b, out);
                }
                b => self.token.push(b),
            },
            State::QuotedKey => self.token.push(b),
            State::Colon => {
                if b == b':' {
                    self.write_key(out);
                }
            }
            State::Value => match b {
                b if b.is_ascii_whitespace() => {}
                b'{' => {
                    self.start_value(out);
                    out.push(b'{');
                    self.frames.push(Frame::Object(0));
                    self.state = State::Key;
                }
                b'[' => {
                    self.start_value(out);
                    out.push(b'[');
                    self.frames.push(Frame::Array(0));
                }
                b',' | b'}' | b']' => {
                    if matches!(self.frames.last(), Some(Frame::Object(_))) {
                        // `key:` and nothing: an empty string.
                        out.extend_from_slice(b"\"\"");
                    }
                    self.state = State::After;
                    self.byte(b, out);
                }
                b => {
                    self.token.clear();
                    self.token.push(b);
                    self.state = State::Bare;
                }
            },
            State::Bare => match b {
                b',' | b'}' | b']' => {
                    self.end_bare(out);
                    self.state = State::After;
                    self.byte(b, out);
                }
                b => self.token.push(b),
            },
            State::Quoted => {}
            State::After => match b {
                b',' => {
                    self.state = match self.frames.last() {
                        Some(Frame::Array(_)) => State::Value,
                        _ => State::Key,
                    };
                }
                b'}' | b']' => self.close(out),
                b if b.is_ascii_whitespace() => {}
                b => {
                    // The next member or element with no comma before it.
                    self.state = match self.frames.last() {
                        Some(Frame::Array(_)) => State::Value,
                        _ => State::Key,
                    };
                    self.byte(b, out);
                }
            },
            State::Done => {}
        }
    }

    /// A key ended: written with its colon, in the object's order.
    fn write_key(&mut self, out: &mut Vec<u8>) {
        if let Some(Frame::Object(count)) = self.frames.last_mut() {
            if *count > 0 {
                out.push(b',');
            }
            *count += 1;
        }
        let key = std::mem::take(&mut self.token);
        if self.frames.len() == 1 {
            self.key = String::from_utf8_lossy(key.trim_ascii()).into_owned();
        }
        out.push(b'"');
        escape_into(key.trim_ascii(), out);
        out.extend_from_slice(b"\":");
        self.state = State::Value;
    }

    /// A value starts: an array's separator.
    fn start_value(&mut self, out: &mut Vec<u8>) {
        if let Some(Frame::Array(count)) = self.frames.last_mut() {
            if *count > 0 {
                out.push(b',');
            }
            *count += 1;
        }
    }

    fn end_bare(&mut self, out: &mut Vec<u8>) {
        let token = std::mem::take(&mut self.token);
        self.start_value(out);
        let mut writer = ValueWriter::new(Kinds::ANY, Trim::Space);
        writer.push(&token, out);
        writer.finish(out);
    }

    fn close(&mut self, out: &mut Vec<u8>) {
        match self.frames.pop() {
            Some(Frame::Object(_)) => out.push(b'}'),
            Some(Frame::Array(_)) => out.push(b']'),
            None => {}
        }
        self.state = if self.frames.is_empty() {
            State::Done
        } else {
            State::After
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// Feeds `text` where `"` stands for the string marker.
    fn args(text: &str, quoted: Kinds) -> Value {
        let mut reader = GemmaArgs::new(quoted, None);
        let mut out = Vec::new();
        for piece in text.split('"').enumerate() {
            if piece.0 > 0 {
                reader.quote(&mut out);
            }
            let mut bytes = piece.1.as_bytes();
            while !bytes.is_empty() && !reader.done() {
                let used = reader.push(bytes, &mut out);
                bytes = &bytes[used..];
            }
        }
        reader.finish(&mut out);
        let text = String::from_utf8(out).unwrap();
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn gemma_objects_become_json() {
        let cases = [
            (
                r#"{location:"Paris, France",unit:"c"}"#,
                json!({"location": "Paris, France", "unit": "c"}),
            ),
            (
                "{count:42,score:2.5,flag:true,p:null,left:108.}",
                json!({"count": 42, "score": 2.5, "flag": true, "p": null, "left": 108.0}),
            ),
            (
                r#"{nested:{inner:"v"},list:["a","b"],m:{"3":"new text"}}"#,
                json!({"nested": {"inner": "v"}, "list": ["a", "b"], "m": {"3": "new text"}}),
            ),
            (
                r#"{l:[["a]b","c"],"tail"]}"#,
                json!({"l": [["a]b", "c"], "tail"]}),
            ),
            ("{key:}", json!({"key": ""})),
            ("{}", json!({})),
        ];
        for (text, expected) in cases {
            assert_eq!(args(text, Kinds::STRING), expected, "{text}");
        }
        assert_eq!(
            args(r#"{count:"42",on:"true",m:"Hi"}"#, Kinds::ANY),
            json!({"count": 42, "on": true, "m": "Hi"})
        );
    }
}
