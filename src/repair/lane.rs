//! The machine's side of the fast lane (`fast/`): when to scan, the view
//! of the machine the scan is lent, and writing what it took: the run
//! copied (or left unwritten) with its lenient edits made, and the machine
//! left in exactly the state the scan's safe point describes. Also the one
//! lenient token taken outside a scan: a comment where one would start.

use super::fast::{Lane, MemberKey, Run, Safe, With, comment_at, ends_line};
use super::fix::{Fix, FixKind};
use super::frame::{Frame, State};
use super::grammar::Faults;
use super::judge::Role;
use super::machine::Machine;
use super::open_string::{Comma, ECHO_KEY, Escaping, Str, Tail, lead_text, tail_byte};
use super::out::{Out, write_unwritten};

use super::strict::{escape_len, scan_value_prefix};
use super::text::{find_quote_escape_or_control, text_at};
use crate::lex::{self, Quote};

/// Below this many bytes not yet read, a scan is not started (see
/// `fast_strict`).
const MIN_SCAN: usize = 8;

impl Machine<'_> {
    /// Copy the strictly valid JSON at `i` in one piece, as far as it goes,
    /// and take the commonest lenient tokens on the way (see `fast/lenient.rs`).
    pub(super) fn fast_forward(&mut self) {
        loop {
            self.out.note_source(self.out_len(), self.i);
            self.fast_strict();
            let before = self.i;
            self.out.note_source(self.out_len(), self.i);
            if !self.lenient_step() || self.i == before {
                return;
            }
        }
    }

    /// Whether the first byte after the whitespace at `i` starts a key
    /// (a quote or a bare word), not a fence, a comment or another bracket.
    fn key_starts_hold_free(&self) -> bool {
        self.rest()
            .iter()
            .find(|&&b| !lex::is_ws(b))
            .is_some_and(|&b| b.is_ascii_alphabetic() || matches!(b, b'"' | b'\'' | b'_' | b'$'))
    }

    /// Copy the strictly valid JSON at `i` in one piece, as far as it goes.
    fn fast_strict(&mut self) {
        let Some(&top) = self.stack.last() else {
            return;
        };
        // In an object opened with a doubled brace, closers come doubled:
        // the machine reads them (see `structure.rs`).
        let height = self.stack.len();
        self.doubled.retain(|d| *d < height);
        if self.open_hold.is_some() && self.state == State::Key && self.key_starts_hold_free() {
            // The top-level `{`'s first token is a key: only a fence would
            // have undone the bracket (`Machine::on_key`), so it stands, as
            // the machine would decide on that token (one machine step less
            // per call: `{path: 'a', …}` cost the machine its first key).
            self.open_hold = None;
        }
        if !self.doubled.is_empty() || self.open_hold.is_some() {
            // (And the first token after the top-level bracket is the
            // machine's: it may undo the bracket, `Machine::open_hold`.)
            return;
        }
        if self.long_token.is_some_and(|t| t.at == self.i) {
            // A long token cut by chunk ends is being continued by hand;
            // scanning it here again would cost the square of its length.
            return;
        }
        let plain_string = self.string.is_some_and(|s| s.is_plain());
        if self.wary()
            && (matches!(self.state, State::Key | State::Colon)
                || self.string.is_some_and(|s| s.is_key()))
        {
            // A key of a document whose strings hold quoted code: the
            // machine reads it (see the scan's `wary`).
            return;
        }
        if !matches!(top, Frame::Object | Frame::Array)
            || !(matches!(
                self.state,
                State::Key | State::Value | State::After | State::Colon
            ) || (self.state == State::Str && plain_string))
        {
            return;
        }
        let start = self.i - self.base;
        if self.src.len() - start < MIN_SCAN && !self.eof {
            // A few bytes that have just arrived: the machine takes what
            // they hold as cheaply, without the scan's set-up (small feeds
            // paid it for every chunk; callgrind, 16-byte chunks: −2.3%,
            // one-byte: −7.6%).
            return;
        }
        if self.state == State::Str
            && !self.lazy
            && self.string.is_some_and(|s| !s.is_key())
            && let Some(run) = self.body_run(start)
            && self.apply(run).is_ok()
        {
            return;
        }
        // String bodies are not checked for UTF-8 as they are scanned: the
        // whole run is checked once at the end, and if it holds invalid
        // UTF-8 the scan runs again, stopping before it.
        let mut end = self.src.len();
        // The key whose value the scan may open, when a stream's scan
        // starts at it (one shot, the lane never opens a string it does not
        // end, see `MemberKey`): read back only if a value string is
        // compared with it.
        let key_held = !self.lazy && self.state == State::Value && top == Frame::Object;
        let unknown = !self.lazy && self.state == State::Colon && top == Frame::Object;
        loop {
            let held = self.out.held().as_bytes();
            let key = match self.mark.checked_sub(self.out.base()) {
                _ if unknown => MemberKey::Unknown,
                Some(to) if key_held => held
                    .get(..to)
                    .map_or(MemberKey::None, |text| MemberKey::Held(text, ECHO_KEY)),
                _ => MemberKey::None,
            };
            let lane = Lane {
                src: &self.src,
                base: self.base,
                eof: self.eof,
                lazy: self.lazy,
                wary: self.wary(),
                bare_keys: self.style.contains(Faults::KEY_BARE),
                depth_limit: self.opts.depth_limit(),
                state: self.state,
                string: self.string.as_ref(),
                mark: self.mark,
                pending_comma: self.has_pending_comma(),
                out_start: self.out_len(),
                key,
                stack: &mut self.stack,
                scratch: &mut self.lane,
            };
            let Some(run) = lane.scan(start, end) else {
                return;
            };
            match self.apply(run) {
                Ok(()) => return,
                Err(valid_up_to) => end = start + valid_up_to,
            }
        }
    }

    /// A stream's chunk inside a value string's body, with no quote, raw
    /// control character or cut escape in it: the run the scan takes there
    /// (`Lane::scan`, a string the machine opened), without the scan's
    /// set-up. Most chunks of a long string are such: its set-up was a
    /// fifth of their cost. `None` for any other, which the scan reads.
    fn body_run(&self, start: usize) -> Option<Run> {
        let (end, quote) = scan_value_prefix(&self.src, start);
        if quote.is_some() || end == start || self.src.get(end).is_some_and(|&c| c < 0x20) {
            return None;
        }
        Some(Run {
            start,
            safe: Safe {
                p: end,
                state: State::Str,
                comma: None,
                edits: 0,
                growth: 0,
                mark: None,
                body: None,
            },
            low: self.stack.len(),
        })
    }

    /// The lane's one step outside its scan: a comment where a scan would
    /// start (after whitespace). Inside a scan a comment is an edit like the
    /// others; at its start, taking it here keeps the held quote, the held
    /// bracket and the mark where the machine keeps them (it drops a comment
    /// without touching them). `false` if there is none to take.
    fn lenient_step(&mut self) -> bool {
        if !matches!(self.stack.last(), Some(Frame::Object | Frame::Array))
            || self.comment.is_some()
            || !matches!(
                self.state,
                State::Key | State::Value | State::After | State::Colon
            )
        {
            return false;
        }
        let at = self.i - self.base;
        let src = &self.src[..];
        let q = at + src[at..].iter().take_while(|b| lex::is_ws(**b)).count();
        let Some(edit) = comment_at(src, q) else {
            return false;
        };
        // Right after spaces (these, or the machine's before them), a
        // comment that ends its line takes them along, as the machine
        // drops it (`step_comment`).
        let after_spaces = match q.checked_sub(1) {
            Some(k) if k >= at => matches!(src[k], b' ' | b'\t'),
            _ => self.spaces_to == Some(self.i),
        };
        let ends_line = match ends_line(src, edit.to, self.eof) {
            Some(ends_line) => after_spaces && ends_line,
            None if after_spaces => return false,
            None => false,
        };
        write_unwritten(src, self.whole_text, &mut self.out, &mut self.unwritten);
        self.out.push_ascii(&src[at..q]);
        if ends_line {
            self.trim_line_spaces();
        }
        self.fix(FixKind::RemovedComment, self.base + q);
        self.style |= Faults::COMMENT;
        self.i = self.base + edit.to;
        true
    }

    /// Copy `src[start..safe.p]` of what the lane took to the output (or leave it unwritten, see
    /// `unwritten`), with the lenient edits before `safe.p` made, and put
    /// the machine in the state `safe` describes.
    // Not inlined: in the step loop it crowded the lane's own helpers
    // (`scan_number`, `take_comma`) out of being inlined into the scan
    // (callgrind, 100 KB malformed in 16-byte chunks: +4.2% instructions).
    #[inline(never)]
    fn apply(&mut self, run: Run) -> Result<(), usize> {
        let Run { start, safe, low } = run;
        let out_start = self.out_len();
        // The output so far ends where the input read so far does: this
        // stretch is the input at the same positions, so it need not be copied.
        let unwritten = safe.edits == 0
            && self.lazy
            && self.base == 0
            && self.out.base() == 0
            && out_start == self.i;
        if !unwritten {
            self.write_out();
        }
        if unwritten && self.whole_text.is_some() {
            // One-shot repair checked the whole input's UTF-8 up front.
            self.unwritten += safe.p - start;
        } else {
            let text = match text_at(&self.src, self.whole_text, start, safe.p) {
                Ok(text) => text,
                Err(error) => {
                    // Undo the frames: the caller scans again up to the bad byte.
                    self.stack.truncate(low);
                    self.stack.extend(self.lane.undo.drain(..).rev());
                    return Err(error.valid_up_to());
                }
            };
            if unwritten {
                self.unwritten += text.len();
            } else if safe.edits == 0 {
                self.out.push_str(text);
            } else {
                // Edits sit on ASCII bytes, so every cut is a character boundary.
                let mut at = start;
                for edit in &self.lane.edits[..safe.edits] {
                    self.out.push_str(&text[at - start..edit.from - start]);
                    self.out.note_source(self.out.len(), self.base + edit.from);
                    match edit.with {
                        With::Quoted(from, to) => {
                            self.out.push('"');
                            self.out.push_str(&text[from - start..to - start]);
                            self.out.push('"');
                        }
                        With::Escaped(from, to, _) => {
                            self.out.push('"');
                            push_escaped_quotes(&mut self.out, &text[from - start..to - start]);
                            self.out.push('"');
                        }
                        With::Text(json) => self.out.push_str(json),
                        With::Nothing => {}
                    }
                    self.out.note_source(self.out.len(), self.base + edit.to);
                    self.fixes.push(Fix {
                        kind: edit.fix,
                        offset: self.base + edit.fix_at,
                    });
                    self.style |= edit.style();
                    at = edit.to;
                }
                self.out.push_str(&text[at - start..]);
            }
        }
        self.lane.undo.clear();
        self.wrote();
        if let Some(mark) = safe.mark {
            self.mark = mark;
        }
        self.hold = None;
        self.open_hold = None;
        if safe.state != State::Colon {
            self.key_hold = None;
        }
        let out_start = out_start.wrapping_add_signed(safe.growth);
        if safe.state == State::Str {
            self.string_at_quote(start, out_start, safe);
        } else if self.state == State::Str {
            self.string = None;
        }
        if let Some((comma, out, value_end)) = safe.comma {
            self.set_pending_comma(out, self.base + comma, value_end);
        }
        self.i = self.base + safe.p;
        self.state = safe.state;
        Ok(())
    }

    /// The lane stopped inside a value string (at its closing quote, or
    /// where what arrived ends): leave the string as the machine would have
    /// after copying the same body (see `open_string::Str`), its trailing comma
    /// included. `out_start` is where `src[start]` would be in the output had
    /// the scan's edits all come before it (it may wrap below zero when they
    /// shrank the output). The body's own edits (its raw control characters,
    /// `fast/lenient.rs` `value_body`) come after some of the positions asked for,
    /// so each position leaves out the edits at or past it.
    fn string_at_quote(&mut self, start: usize, out_start: usize, safe: Safe) {
        let edits = &self.lane.edits[..safe.edits];
        // The growth and the number of the edits at or past input index `x`.
        let past = |x: usize| {
            edits
                .iter()
                .rev()
                .take_while(|e| e.from >= x)
                .fold((0, 0), |(growth, n), e| (growth + e.growth(), n + 1))
        };
        let out_at = |x: usize| {
            out_start
                .wrapping_add(x - start)
                .wrapping_add_signed(-past(x).0)
        };
        // The string is changed where the machine keeps it: it is over two
        // hundred bytes, and copying it out and back in cost a tenth of a
        // 16-byte chunk inside a long string (callgrind, `wfstream`).
        let from = match safe.body {
            Some(body) => {
                let string = Str::new(Quote::Double, Role::Value, Escaping::Plain, out_at(body));
                self.string = Some(string);
                body
            }
            None => start,
        };
        let n_fixes = self.fix_count();
        let copied = &self.src[from..safe.p];
        let quote_next = match self.src.get(safe.p) {
            Some(&b) => b == b'"' || b == b'\\',
            None => !self.eof,
        };
        let base = self.base;
        // (No string to describe: the run was not in one.)
        let Some(string) = self.string.as_mut() else {
            return;
        };
        if let Some(k) = copied.iter().rposition(|&b| !lex::is_ws(b)) {
            let at = from + k;
            string.comma = (copied[k] == b',').then(|| Comma {
                input: base + at,
                out: out_at(at),
                // The fixes of the line breaks after the comma are not
                // before it.
                n_fixes: n_fixes - past(at).1,
            });
        }
        // The whitespace and closers the body ends with, as the machine
        // keeps them (`open_string::Tail`; a raw line break or tab is
        // written as its escape).
        let tail_at = match copied
            .iter()
            .rposition(|&b| !(tail_byte(b) || lex::is_ws(b)))
        {
            Some(k) if k + 1 == copied.len() => None,
            Some(k) => Some(from + k + 1),
            None if string.tail.is_some() => None,
            None => Some(from),
        };
        match tail_at {
            Some(at) => {
                string.tail = Some(Tail {
                    input: base + at,
                    out: out_at(at),
                    n_fixes: n_fixes - past(at).1,
                    closers: false,
                    open: [false; 3],
                });
            }
            None if copied.iter().all(|&b| tail_byte(b) || lex::is_ws(b)) => {}
            None => string.tail = None,
        }
        // A `\\` right before the quote the machine judges next: perhaps a
        // quote escaped twice (see `Str::twice`).
        let slashes = copied.iter().rev().take_while(|&&b| b == b'\\').count();
        string.lead = string.lead && lead_text(&copied[..copied.len() - slashes]);
        string.twice = (slashes >= 2 && slashes % 2 == 0 && quote_next).then(|| out_at(safe.p) - 2);
        string.twice_lead = string.lead;
        string.lead &= slashes == 0;
        let tail_text = &copied[tail_at.map_or(0, |at| at - from)..];
        string.tail_closers(tail_text);
        if string.tail.is_some_and(|t| t.closers) {
            // The brackets before the tail are counted on the output, so a
            // one-shot body left unwritten (`Machine::unwritten`) is written
            // first: else `{name}` at the end of a cut-off string counted no
            // `{` and its `}` was cut as the object's closer.
            self.write_out();
        }
        if let Some(string) = self.string.as_mut() {
            string.count_tail(self.out.held(), self.out.base());
        }
    }
}

/// Write a single-quoted string's body (checked by `single_quoted`) as the
/// body of a double-quoted one: each `"` escaped, escapes as they are.
fn push_escaped_quotes(out: &mut Out, body: &str) {
    let bytes = body.as_bytes();
    let mut from = 0;
    let mut k = 0;
    while let Some(n) = find_quote_escape_or_control(&bytes[k..]) {
        k += n;
        if bytes[k] == b'"' {
            out.push_str(&body[from..k]);
            out.push_str("\\\"");
            k += 1;
            from = k;
        } else {
            // A valid escape (checked): step over it whole.
            k += escape_len(bytes, k).unwrap_or(1);
        }
    }
    out.push_str(&body[from..]);
}
