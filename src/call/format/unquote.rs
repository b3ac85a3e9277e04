//! Arguments written as a JSON string that holds them
//! (`"arguments": "{\"a\": 1}"`, as Granite 4 writes them): the string is
//! decoded on its way to the engine, so the engine reads the arguments
//! themselves and their JSON streams as it would unquoted. A string that
//! does not hold an object or an array is passed on as written.

/// Where the decoding stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unquote {
    /// No argument byte yet.
    Unknown,
    /// The arguments are JSON as written.
    No,
    /// In the string, before its first character that is not whitespace:
    /// the bytes so far, as written.
    Lead(Vec<u8>),
    /// Inside the string; `escaped` after a backslash.
    Body {
        /// After a backslash.
        escaped: bool,
    },
    /// `\u` and the hex digits so far.
    Unicode(u8, u32),
    /// The string ended.
    Ended,
}

impl Unquote {
    /// Take one argument byte; what the engine reads goes to `out`.
    /// `surrogate` holds a high surrogate waiting for its pair.
    pub(crate) fn byte(&mut self, surrogate: &mut Option<u32>, b: u8, out: &mut Vec<u8>) {
        match self {
            Unquote::Unknown if b.is_ascii_whitespace() => {}
            Unquote::Unknown if b == b'"' => *self = Unquote::Lead(vec![b]),
            Unquote::Unknown => {
                *self = Unquote::No;
                out.push(b);
            }
            Unquote::No => out.push(b),
            Unquote::Ended => {}
            Unquote::Lead(lead) => {
                lead.push(b);
                if matches!(b, b' ' | b'\t' | b'\r' | b'\n') {
                    return;
                }
                if matches!(b, b'{' | b'[') {
                    *self = Unquote::Body { escaped: false };
                    out.push(b);
                } else {
                    // Not a container: the string is the value, as written.
                    out.append(lead);
                    *self = Unquote::No;
                }
            }
            Unquote::Body { escaped: false } => match b {
                b'\\' => *self = Unquote::Body { escaped: true },
                b'"' => *self = Unquote::Ended,
                b => out.push(b),
            },
            Unquote::Body { escaped: true } => {
                *self = Unquote::Body { escaped: false };
                let decoded = match b {
                    b'n' => b'\n',
                    b't' => b'\t',
                    b'r' => b'\r',
                    b'b' => 0x08,
                    b'f' => 0x0c,
                    b'u' => {
                        *self = Unquote::Unicode(0, 0);
                        return;
                    }
                    b => b,
                };
                out.push(decoded);
            }
            Unquote::Unicode(n, code) => {
                let Some(digit) = (b as char).to_digit(16) else {
                    *self = Unquote::Body { escaped: false };
                    out.push(b);
                    return;
                };
                let code = *code * 16 + digit;
                if *n < 3 {
                    *self = Unquote::Unicode(*n + 1, code);
                    return;
                }
                *self = Unquote::Body { escaped: false };
                let ch = match (surrogate.take(), code) {
                    (None, 0xD800..=0xDBFF) => {
                        *surrogate = Some(code);
                        return;
                    }
                    (Some(high), 0xDC00..=0xDFFF) => {
                        char::from_u32(0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00))
                    }
                    (_, code) => char::from_u32(code),
                };
                let mut buf = [0; 4];
                let ch = ch.unwrap_or(char::REPLACEMENT_CHARACTER);
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
}
