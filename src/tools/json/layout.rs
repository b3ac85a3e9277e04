//! Re-laying out valid JSON for `pretty`, `query` rows and `diff json`:
//! strings, numbers and key order are copied as written, only the
//! whitespace between tokens changes.

use memchr::memchr2;

use crate::lex;

/// How `format` lays out a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    /// Two-space indentation, one member or element per line.
    Indented,
    /// No whitespace at all.
    Compact,
}

/// Re-lay out a structurally valid value; strings, numbers and key order
/// are copied as written.
pub(crate) fn format(bytes: &[u8], layout: Layout, out: &mut String) {
    format_capped(bytes, layout, out, usize::MAX);
}

/// Where [`format_capped`] writes: at most `keep` bytes are kept, and the
/// length of the whole result is counted.
struct Sink {
    buf: Vec<u8>,
    keep: usize,
    total: usize,
}

impl Sink {
    fn push(&mut self, bytes: &[u8]) {
        self.total += bytes.len();
        let room = self.keep.saturating_sub(self.buf.len());
        self.buf.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    fn spaces(&mut self, n: usize) {
        self.total += n;
        let room = self.keep.saturating_sub(self.buf.len());
        self.buf.resize(self.buf.len() + n.min(room), b' ');
    }
}

/// [`format`] that keeps at most `keep` bytes of the result in `out` and
/// returns the length of the whole result. An answer is capped anyway, and
/// indenting a deep document whole (2 spaces a level on every line) could
/// take gigabytes; this takes the input and the cap, and still tells the
/// true size.
pub(crate) fn format_capped(bytes: &[u8], layout: Layout, out: &mut String, keep: usize) -> usize {
    let mut sink = Sink {
        buf: Vec::with_capacity(bytes.len().min(keep)),
        keep,
        total: 0,
    };
    let mut depth = 0usize;
    let mut i = 0;
    let newline = |sink: &mut Sink, depth: usize| {
        if layout == Layout::Indented {
            sink.push(b"\n");
            sink.spaces(2 * depth);
        }
    };
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'"' => {
                // Run to the closing quote; a string cut short runs to the end.
                let mut j = i + 1;
                while let Some(n) = bytes.get(j..).and_then(|rest| memchr2(b'"', b'\\', rest)) {
                    j += n;
                    if bytes[j] == b'"' {
                        break;
                    }
                    j += 2;
                }
                let end = (j + 1).min(bytes.len());
                sink.push(&bytes[i..end]);
                i = end;
                continue;
            }
            b'{' | b'[' => {
                let next = bytes[i + 1..].iter().position(|b| !lex::is_ws(*b));
                let closer = if b == b'{' { b'}' } else { b']' };
                if let Some(n) = next.filter(|n| bytes[i + 1 + n] == closer) {
                    sink.push(&[b, closer]);
                    i += n + 2;
                    continue;
                }
                sink.push(&[b]);
                depth += 1;
                newline(&mut sink, depth);
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                newline(&mut sink, depth);
                sink.push(&[b]);
            }
            b',' => {
                sink.push(&[b]);
                newline(&mut sink, depth);
            }
            b':' => {
                sink.push(b":");
                if layout == Layout::Indented {
                    sink.push(b" ");
                }
            }
            b if lex::is_ws(b) => {}
            _ => sink.push(&[b]),
        }
        i += 1;
    }
    out.push_str(&String::from_utf8_lossy(&sink.buf));
    sink.total
}
