//! Server-sent events cut out of the upstream's bytes, as they arrive.
//!
//! An event is its lines up to a blank line (`\n`, `\r\n` or `\r` ends a
//! line). Each event is handed on with its original bytes, so one the proxy
//! does not change goes to the client exactly as it came, and with its
//! `data` (the `data:` lines joined with `\n`, one leading space dropped,
//! as the specification says).

/// Splits a byte stream into events, holding at most `max` bytes of an
/// unfinished one.
pub(super) struct Events {
    /// The bytes of the event being read.
    pending: Vec<u8>,
    /// Where the line being read starts in `pending`.
    line_start: usize,
    /// Where the scan resumes in `pending`.
    scanned: usize,
    max: usize,
}

/// One event.
pub(super) struct Event {
    /// Its bytes as sent, with the blank line that ended it.
    pub(super) raw: Vec<u8>,
    /// Its `data`, when it has `data:` lines.
    pub(super) data: Option<String>,
}

/// An unfinished event grew past the bound.
#[derive(Debug)]
pub(super) struct Oversized;

impl Events {
    pub(super) fn new(max: usize) -> Self {
        Events {
            pending: Vec::new(),
            line_start: 0,
            scanned: 0,
            max,
        }
    }

    /// Append `bytes` and take out every event they finish.
    pub(super) fn push(&mut self, bytes: &[u8], out: &mut Vec<Event>) -> Result<(), Oversized> {
        self.pending.extend_from_slice(bytes);
        while let Some(end) = self.event_end() {
            let rest = self.pending.split_off(end);
            let raw = std::mem::replace(&mut self.pending, rest);
            self.line_start = 0;
            self.scanned = 0;
            let data = data_of(&raw);
            out.push(Event { raw, data });
        }
        if self.pending.len() > self.max {
            return Err(Oversized);
        }
        Ok(())
    }

    /// The end of the blank line that ends the pending event, once it has
    /// arrived.
    fn event_end(&mut self) -> Option<usize> {
        let bytes = &self.pending;
        let mut i = self.scanned;
        while let Some(k) = memchr::memchr2(b'\n', b'\r', &bytes[i..]) {
            let at = i + k;
            let end = match (bytes[at], bytes.get(at + 1)) {
                (b'\r', Some(b'\n')) => at + 2,
                // A `\r` at the end may be the first half of `\r\n`.
                (b'\r', None) => {
                    self.scanned = at;
                    return None;
                }
                _ => at + 1,
            };
            let blank = at == self.line_start;
            self.line_start = end;
            if blank {
                return Some(end);
            }
            i = end;
        }
        self.scanned = bytes.len();
        None
    }

    /// The end of the stream: an event cut off without its blank line.
    pub(super) fn finish(&mut self) -> Option<Event> {
        if self.pending.iter().all(|b| b.is_ascii_whitespace()) {
            return None;
        }
        let raw = std::mem::take(&mut self.pending);
        let data = data_of(&raw);
        Some(Event { raw, data })
    }
}

/// The `data` of an event: its `data:` lines, joined with `\n`.
fn data_of(raw: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(raw).ok()?;
    let mut data: Option<String> = None;
    for line in text.split(['\n', '\r']) {
        let Some(rest) = line.strip_prefix("data") else {
            continue;
        };
        let value = match rest.strip_prefix(':') {
            Some(value) => value.strip_prefix(' ').unwrap_or(value),
            None if rest.is_empty() => "",
            None => continue,
        };
        match &mut data {
            Some(data) => {
                data.push('\n');
                data.push_str(value);
            }
            None => data = Some(value.to_owned()),
        }
    }
    data
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str, cuts: &[usize]) -> Vec<(String, Option<String>)> {
        let mut events = Events::new(1 << 20);
        let mut out = Vec::new();
        let mut last = 0;
        for &cut in cuts.iter().chain(std::iter::once(&text.len())) {
            events.push(&text.as_bytes()[last..cut], &mut out).unwrap();
            last = cut;
        }
        out.extend(events.finish());
        out.into_iter()
            .map(|e| (String::from_utf8(e.raw).unwrap(), e.data))
            .collect()
    }

    #[test]
    fn events_end_at_a_blank_line_of_any_line_end() {
        let text = "data: {\"a\":1}\n\ndata: x\r\n\r\nevent: e\ndata: y\ndata:z\n\n: comment\n\ndata: [DONE]\n\n";
        let whole = split(text, &[]);
        let data: Vec<Option<&str>> = whole.iter().map(|(_, d)| d.as_deref()).collect();
        assert_eq!(
            data,
            [
                Some("{\"a\":1}"),
                Some("x"),
                Some("y\nz"),
                None,
                Some("[DONE]")
            ]
        );
        let raw: String = whole.iter().map(|(r, _)| r.as_str()).collect();
        assert_eq!(raw, text);
        // Every split into two and three pieces gives the same events.
        for a in 0..=text.len() {
            assert_eq!(split(text, &[a]), whole, "cut at {a}");
            for b in a..=text.len() {
                assert_eq!(split(text, &[a, b]), whole, "cuts at {a}, {b}");
            }
        }
    }

    #[test]
    fn an_event_without_its_blank_line_comes_at_the_end() {
        assert_eq!(
            split("data: a\n\ndata: b", &[]),
            [
                ("data: a\n\n".to_owned(), Some("a".to_owned())),
                ("data: b".to_owned(), Some("b".to_owned()))
            ]
        );
    }

    #[test]
    fn an_unfinished_event_is_bounded() {
        let mut events = Events::new(10);
        let mut out = Vec::new();
        assert!(events.push(b"data: 0123456789", &mut out).is_err());
    }
}
