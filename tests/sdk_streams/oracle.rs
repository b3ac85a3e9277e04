//! The oracle: what each SDK accumulates as a call's final arguments,
//! computed from the recorded events without argmend (see `sdk_streams.rs`),
//! and jiter's partial mode for the calls a stream cut.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::{Format, kind};

/// One client tool call as the SDK ends up with it.
#[derive(Debug, Clone)]
pub(super) struct Expected {
    /// The model's id for the call (`call_…`, `toolu_…`), when it gave one.
    pub(super) id: Option<String>,
    pub(super) name: String,
    /// The final arguments; for a cut call, what jiter's partial mode keeps.
    pub(super) args: Value,
    /// The stream cut the call off.
    pub(super) cut: bool,
}

#[derive(Debug, Default)]
pub(super) struct Oracle {
    pub(super) calls: Vec<Expected>,
    /// Ids of server-side calls, which the adapter may report or not.
    pub(super) skipped: Vec<String>,
}

/// The SDK's value of an argument buffer: `json.loads`, or, when the call was
/// cut, jiter's `from_json(buf, partial_mode=True)`.
fn sdk_value(file: &str, raw: &str, cut: bool) -> Value {
    match serde_json::from_str(raw) {
        Ok(value) => value,
        Err(err) if cut => partial_json(raw).unwrap_or_else(|()| {
            panic!("{file}: a cut call's arguments are not a JSON prefix ({err}): {raw}")
        }),
        Err(err) => {
            panic!("{file}: the recorded arguments of a whole call are not JSON ({err}): {raw}")
        }
    }
}

fn nonempty(value: Option<&Value>) -> Option<String> {
    value
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// openai-python: `choices[n].delta.tool_calls[j]`, accumulated by `(n, j)`.
/// Its `accumulate_delta` concatenates every string, `id` and `name`
/// included; an id sent again would be doubled there, so the first non-empty
/// one is taken (the recorded streams send it once, then `""` or nothing).
pub(super) fn oracle_chat(file: &str, events: &[Value]) -> Oracle {
    struct Call {
        key: (u64, u64),
        id: Option<String>,
        name: String,
        raw: String,
    }
    let mut calls: Vec<Call> = Vec::new();
    let mut finish: BTreeMap<u64, String> = BTreeMap::new();
    for event in events {
        let choices = event.get("choices").and_then(Value::as_array);
        for choice in choices.into_iter().flatten() {
            let n = choice.get("index").and_then(Value::as_u64).unwrap_or(0);
            let deltas = choice
                .pointer("/delta/tool_calls")
                .and_then(Value::as_array);
            for delta in deltas.into_iter().flatten() {
                let j = delta.get("index").and_then(Value::as_u64).unwrap_or(0);
                let at = match calls.iter().position(|call| call.key == (n, j)) {
                    Some(at) => at,
                    None => {
                        calls.push(Call {
                            key: (n, j),
                            id: None,
                            name: String::new(),
                            raw: String::new(),
                        });
                        calls.len() - 1
                    }
                };
                let call = &mut calls[at];
                if call.id.is_none() {
                    call.id = nonempty(delta.get("id"));
                }
                if let Some(name) = delta.pointer("/function/name").and_then(Value::as_str) {
                    call.name.push_str(name);
                }
                if let Some(args) = delta.pointer("/function/arguments").and_then(Value::as_str) {
                    call.raw.push_str(args);
                }
            }
            if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
                finish.insert(n, reason.to_owned());
            }
        }
    }
    let mut oracle = Oracle::default();
    for (i, call) in calls.iter().enumerate() {
        let n = call.key.0;
        let last_of_choice = !calls[i + 1..].iter().any(|later| later.key.0 == n);
        // `length` stopped the model inside the choice's last call; no
        // finish_reason at all means the stream ended before the choice did.
        let cut = match finish.get(&n).map(String::as_str) {
            None => true,
            Some("length") => last_of_choice,
            Some(_) => false,
        };
        oracle.calls.push(Expected {
            id: call.id.clone(),
            name: call.name.clone(),
            args: sdk_value(file, &call.raw, cut),
            cut,
        });
    }
    oracle
}

/// Responses: `function_call` items by item id. The final arguments are the
/// `output_item.done` item's, else the `function_call_arguments.done`
/// event's, else the deltas.
pub(super) fn oracle_responses(file: &str, events: &[Value]) -> Oracle {
    #[derive(Default)]
    struct Call {
        item: String,
        id: Option<String>,
        name: String,
        deltas: String,
        done: Option<String>,
        item_done: Option<String>,
        status: Option<String>,
    }
    let mut calls: Vec<Call> = Vec::new();
    let mut oracle = Oracle::default();
    let item_id = |event: &Value| {
        nonempty(event.get("item_id")).or_else(|| nonempty(event.pointer("/item/id")))
    };
    for event in events {
        match kind(event) {
            "response.output_item.added" | "response.output_item.done" => {
                let Some(item) = event.get("item") else {
                    continue;
                };
                let item_type = item.get("type").and_then(Value::as_str).unwrap_or("");
                if item_type != "function_call" {
                    // Server-side and non-call items: messages, reasoning,
                    // `program`, `tool_search_call`, `mcp_call`, ….
                    if item_type.ends_with("_call") || item_type == "program" {
                        for id in [nonempty(item.get("call_id")), nonempty(item.get("id"))]
                            .into_iter()
                            .flatten()
                        {
                            if !oracle.skipped.contains(&id) {
                                oracle.skipped.push(id);
                            }
                        }
                    }
                    continue;
                }
                let Some(key) = item_id(event) else { continue };
                let at = match calls.iter().position(|call| call.item == key) {
                    Some(at) => at,
                    None => {
                        calls.push(Call {
                            item: key,
                            ..Call::default()
                        });
                        calls.len() - 1
                    }
                };
                let call = &mut calls[at];
                if call.id.is_none() {
                    call.id = nonempty(item.get("call_id")).or_else(|| nonempty(item.get("id")));
                }
                if let Some(name) = nonempty(item.get("name")) {
                    call.name = name;
                }
                if kind(event) == "response.output_item.done" {
                    call.item_done = item
                        .get("arguments")
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                    call.status = nonempty(item.get("status"));
                }
            }
            "response.function_call_arguments.delta" => {
                let (Some(key), Some(delta)) =
                    (item_id(event), event.get("delta").and_then(Value::as_str))
                else {
                    continue;
                };
                if let Some(call) = calls.iter_mut().find(|call| call.item == key) {
                    call.deltas.push_str(delta);
                }
            }
            "response.function_call_arguments.done" => {
                let (Some(key), Some(args)) = (
                    item_id(event),
                    event.get("arguments").and_then(Value::as_str),
                ) else {
                    continue;
                };
                if let Some(call) = calls.iter_mut().find(|call| call.item == key) {
                    call.done = Some(args.to_owned());
                }
            }
            _ => {}
        }
    }
    for call in calls {
        // An item the stream never finished (it stopped, or said
        // `response.incomplete`/`response.failed` first) is cut, and so is
        // one it finished as `incomplete`.
        let finished = call.item_done.is_some() || call.done.is_some();
        let cut = !finished || call.status.as_deref() == Some("incomplete");
        let raw = call.item_done.or(call.done).unwrap_or(call.deltas);
        oracle.calls.push(Expected {
            id: call.id,
            name: call.name,
            args: sdk_value(file, &raw, cut),
            cut,
        });
    }
    oracle
}

/// anthropic-sdk-python's `accumulate_event`, per message: blocks by index,
/// `tool_use` (and `server_tool_use`, skipped) inputs from their start,
/// replaced by the `input_json_delta`s when there are any.
pub(super) fn oracle_anthropic(file: &str, events: &[Value]) -> Oracle {
    struct Block {
        index: u64,
        server: bool,
        id: Option<String>,
        name: String,
        input: Value,
        raw: String,
        /// Whole as given (`message_start` content) or closed by its
        /// `content_block_stop`.
        closed: bool,
    }
    let mut blocks: Vec<Block> = Vec::new();
    let mut stop_reason: Option<String> = None;
    let mut stopped = false; // message_stop
    // The block the model was writing last, of any kind.
    let mut last: Option<u64> = None;
    let block_of = |block: &Value, index: u64, closed: bool| -> Option<Block> {
        let server = match block.get("type").and_then(Value::as_str) {
            Some("tool_use") => false,
            Some("server_tool_use") | Some("mcp_tool_use") => true,
            _ => return None,
        };
        Some(Block {
            index,
            server,
            id: nonempty(block.get("id")),
            name: nonempty(block.get("name")).unwrap_or_default(),
            input: block.get("input").cloned().unwrap_or(json!({})),
            raw: String::new(),
            closed,
        })
    };
    for event in events {
        let index = event.get("index").and_then(Value::as_u64).unwrap_or(0);
        match kind(event) {
            "message_start" => {
                let content = event.pointer("/message/content").and_then(Value::as_array);
                for (i, block) in content.into_iter().flatten().enumerate() {
                    blocks.extend(block_of(block, i as u64, true));
                    last = Some(i as u64);
                }
                if let Some(reason) = event
                    .pointer("/message/stop_reason")
                    .and_then(Value::as_str)
                {
                    stop_reason = Some(reason.to_owned());
                }
            }
            "content_block_start" => {
                if let Some(block) = event.get("content_block") {
                    blocks.extend(block_of(block, index, false));
                }
                last = Some(index);
            }
            "content_block_delta" => {
                if event.pointer("/delta/type").and_then(Value::as_str) != Some("input_json_delta")
                {
                    continue;
                }
                let fragment = event
                    .pointer("/delta/partial_json")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                if let Some(block) = blocks.iter_mut().rev().find(|block| block.index == index) {
                    block.raw.push_str(fragment);
                }
            }
            "content_block_stop" => {
                if let Some(block) = blocks.iter_mut().rev().find(|block| block.index == index) {
                    block.closed = true;
                }
            }
            "message_delta" => {
                if let Some(reason) = event.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    stop_reason = Some(reason.to_owned());
                }
            }
            "message_stop" => stopped = true,
            _ => {}
        }
    }
    // The output limit, or the context window, stopped the model; or the
    // stream ended before `message_stop`.
    let cut_message = !stopped
        || matches!(
            stop_reason.as_deref(),
            Some("max_tokens" | "model_context_window_exceeded")
        );
    let mut oracle = Oracle::default();
    for block in blocks {
        if block.server {
            oracle.skipped.extend(block.id);
            continue;
        }
        // In a cut message, the block the model was writing when it stopped
        // is cut, and so is any block left open; a block closed before
        // another began is whole.
        let cut = cut_message && (!block.closed || last == Some(block.index));
        let args = if block.raw.is_empty() {
            block.input
        } else {
            sdk_value(file, &block.raw, cut)
        };
        oracle.calls.push(Expected {
            id: block.id,
            name: block.name,
            args,
            cut,
        });
    }
    oracle
}

pub(super) fn oracle_of(format: Format, file: &str, events: &[Value]) -> Oracle {
    match format {
        Format::Chat => oracle_chat(file, events),
        Format::Responses => oracle_responses(file, events),
        Format::Anthropic => oracle_anthropic(file, events),
    }
}

/// jiter's `from_json(…, partial_mode=True)` on a cut JSON text: containers
/// keep their whole members, a cut string or literal is dropped, and so is
/// a key whose value never started. `Err` when the text is not a prefix of
/// JSON at all.
pub(super) fn partial_json(text: &str) -> Result<Value, ()> {
    struct P<'a> {
        s: &'a [u8],
        i: usize,
    }
    impl P<'_> {
        fn ws(&mut self) {
            while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\n' | b'\r') {
                self.i += 1;
            }
        }
        fn eof(&self) -> bool {
            self.i >= self.s.len()
        }
        /// `Ok(None)`: the input ended inside a value that jiter drops.
        fn value(&mut self) -> Result<Option<Value>, ()> {
            self.ws();
            if self.eof() {
                return Ok(None);
            }
            match self.s[self.i] {
                b'{' => {
                    self.i += 1;
                    let mut map = Map::new();
                    let mut first = true;
                    loop {
                        self.ws();
                        if self.eof() {
                            return Ok(Some(Value::Object(map)));
                        }
                        if self.s[self.i] == b'}' {
                            self.i += 1;
                            return Ok(Some(Value::Object(map)));
                        }
                        if !first {
                            if self.s[self.i] != b',' {
                                return Err(());
                            }
                            self.i += 1;
                            self.ws();
                            if self.eof() {
                                return Ok(Some(Value::Object(map)));
                            }
                        }
                        first = false;
                        let Some(key) = self.string()? else {
                            return Ok(Some(Value::Object(map)));
                        };
                        self.ws();
                        if self.eof() {
                            return Ok(Some(Value::Object(map)));
                        }
                        if self.s[self.i] != b':' {
                            return Err(());
                        }
                        self.i += 1;
                        match self.value()? {
                            Some(value) => {
                                map.insert(key, value);
                            }
                            None => return Ok(Some(Value::Object(map))),
                        }
                    }
                }
                b'[' => {
                    self.i += 1;
                    let mut items = Vec::new();
                    loop {
                        self.ws();
                        if self.eof() {
                            return Ok(Some(Value::Array(items)));
                        }
                        if self.s[self.i] == b']' {
                            self.i += 1;
                            return Ok(Some(Value::Array(items)));
                        }
                        if !items.is_empty() {
                            if self.s[self.i] != b',' {
                                return Err(());
                            }
                            self.i += 1;
                        }
                        match self.value()? {
                            Some(value) => items.push(value),
                            None => return Ok(Some(Value::Array(items))),
                        }
                    }
                }
                b'"' => Ok(self.string()?.map(Value::String)),
                b't' | b'f' | b'n' => {
                    let rest = &self.s[self.i..];
                    for (word, value) in [
                        (&b"true"[..], json!(true)),
                        (b"false", json!(false)),
                        (b"null", Value::Null),
                    ] {
                        if rest.starts_with(word) {
                            self.i += word.len();
                            return Ok(Some(value));
                        }
                        if word.starts_with(rest) {
                            self.i = self.s.len();
                            return Ok(None);
                        }
                    }
                    Err(())
                }
                _ => {
                    let start = self.i;
                    while self.i < self.s.len()
                        && matches!(
                            self.s[self.i],
                            b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'
                        )
                    {
                        self.i += 1;
                    }
                    let token = std::str::from_utf8(&self.s[start..self.i]).map_err(|_| ())?;
                    match serde_json::from_str::<Value>(token) {
                        Ok(number) if number.is_number() => Ok(Some(number)),
                        _ if self.eof() && !token.is_empty() => Ok(None),
                        _ => Err(()),
                    }
                }
            }
        }
        /// A string at `i`; `Ok(None)` when the input ends inside it.
        fn string(&mut self) -> Result<Option<String>, ()> {
            if self.s.get(self.i) != Some(&b'"') {
                return Err(());
            }
            let start = self.i;
            self.i += 1;
            while self.i < self.s.len() {
                match self.s[self.i] {
                    b'\\' => self.i += 2,
                    b'"' => {
                        self.i += 1;
                        let text = std::str::from_utf8(&self.s[start..self.i]).map_err(|_| ())?;
                        return serde_json::from_str(text).map(Some).map_err(|_| ());
                    }
                    _ => self.i += 1,
                }
            }
            self.i = self.s.len();
            Ok(None)
        }
    }
    let mut parser = P {
        s: text.as_bytes(),
        i: 0,
    };
    let value = parser.value()?.ok_or(())?;
    parser.ws();
    if parser.eof() { Ok(value) } else { Err(()) }
}

/// `got` keeps all that `want` (a partial value) has: the same members with
/// values that extend them, and maybe more after them.
pub(super) fn extends(got: &Value, want: &Value) -> bool {
    match (got, want) {
        (Value::Object(got), Value::Object(want)) => want
            .iter()
            .all(|(key, value)| got.get(key).is_some_and(|got| extends(got, value))),
        (Value::Array(got), Value::Array(want)) => {
            got.len() >= want.len() && got.iter().zip(want).all(|(got, want)| extends(got, want))
        }
        _ => got == want,
    }
}
