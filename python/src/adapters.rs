//! `argmend.adapters`: the SDK adapters (OpenAI Chat Completions, OpenAI
//! Responses, Anthropic Messages) and the events they hand back.
//!
//! An adapter takes the events of a model's stream one at a time, as the
//! official SDKs yield them (pydantic models) or as plain dicts, and runs the
//! engine's adapter (`argmend::OpenAiChatStream`, …) over them. Its events
//! keep a handle on it, so each one's `value` is the call's value as of the
//! latest event pushed, read when asked, not copied into every event.

use std::sync::{Arc, Mutex};

use argmend::{AnthropicStream, ClientEvent, OpenAiChatStream, OpenAiResponsesStream};
use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyString};
use serde_json::Value;

use crate::call_events::{CallEnd, FieldEvent};
use crate::events::{CallDone, CallStarted, Field, Live, Skipped, Text};
use crate::live::{ToolsForm, call_options, finished, lock, text_to_py};
use crate::python_json;

/// The engine's adapters, behind one interface.
trait Adapter: Send {
    fn push(&mut self, event: &Value) -> Vec<ClientEvent>;
    fn finish(self: Box<Self>) -> Vec<ClientEvent>;
    fn calls(&self) -> usize;
    fn snapshot(&self, call: usize) -> Option<String>;
    fn id(&self, call: usize) -> Option<&str>;
    fn name(&self, call: usize) -> Option<&str>;
}

macro_rules! adapter {
    ($adapter:ty) => {
        impl Adapter for $adapter {
            fn push(&mut self, event: &Value) -> Vec<ClientEvent> {
                <$adapter>::push(self, event)
            }
            fn finish(self: Box<Self>) -> Vec<ClientEvent> {
                <$adapter>::finish(*self)
            }
            fn calls(&self) -> usize {
                <$adapter>::calls(self)
            }
            fn snapshot(&self, call: usize) -> Option<String> {
                <$adapter>::snapshot(self, call)
            }
            fn id(&self, call: usize) -> Option<&str> {
                <$adapter>::id(self, call)
            }
            fn name(&self, call: usize) -> Option<&str> {
                <$adapter>::name(self, call)
            }
        }
    };
}

adapter!(OpenAiChatStream);
adapter!(OpenAiResponsesStream);
adapter!(AnthropicStream);

/// Which stream format an adapter reads: what it calls itself in messages,
/// and which events of the SDKs' stream helpers it passes over.
#[derive(Clone, Copy)]
enum Format {
    Chat,
    Responses,
    Anthropic,
}

impl Format {
    fn class(self) -> &'static str {
        match self {
            Format::Chat => "OpenAIChat",
            Format::Responses => "OpenAIResponses",
            Format::Anthropic => "Anthropic",
        }
    }

    /// Whether an event of this `type` carries nothing a call is made of.
    /// The SDKs' stream helpers (`client.chat.completions.stream()`,
    /// `client.responses.stream()`, `client.messages.stream()`) yield, beside
    /// the wire events, events of their own with the whole text so far
    /// (`snapshot`) in each: converting those would copy the text once per
    /// delta. Chat chunks have no `type` at all, so any typed event is the
    /// helper's (its `chunk` events are unwrapped before this).
    fn passes_over(self, kind: &str) -> bool {
        match self {
            Format::Chat => true,
            Format::Responses => {
                // Text, refusal, reasoning and audio deltas: never a call.
                kind.ends_with("text.delta")
                    || kind.ends_with("refusal.delta")
                    || kind.ends_with("audio.delta")
                    || kind.ends_with("transcript.delta")
            }
            Format::Anthropic => matches!(
                kind,
                "ping" | "text" | "thinking" | "signature" | "citation" | "input_json"
            ),
        }
    }
}

/// What the binding keeps of each call: what it can still say about it once
/// the engine's adapter is gone (after `finish`), and its final arguments.
#[derive(Default)]
struct Call {
    id: Option<String>,
    name: String,
    /// The `CallEnd.args` object, once the call has ended.
    args: Option<Py<PyAny>>,
}

struct State {
    /// `None` after `finish`.
    adapter: Option<Box<dyn Adapter>>,
    calls: Vec<Call>,
}

impl State {
    fn call(&mut self, call: usize) -> &mut Call {
        if self.calls.len() <= call {
            self.calls.resize_with(call + 1, Call::default);
        }
        &mut self.calls[call]
    }

    /// The call's id and name, from the adapter while it runs (a later
    /// delta may fill in an id the start lacked).
    fn id_and_name(&mut self, call: usize) -> (Option<String>, String) {
        if let Some(adapter) = &self.adapter {
            let id = adapter.id(call).map(str::to_owned);
            let name = adapter.name(call).unwrap_or_default().to_owned();
            let slot = self.call(call);
            slot.id.clone_from(&id);
            slot.name.clone_from(&name);
            return (id, name);
        }
        let slot = self.call(call);
        (slot.id.clone(), slot.name.clone())
    }
}

/// One adapter's state, shared with the events it handed out.
pub(crate) struct Core {
    format: Format,
    state: Mutex<State>,
}

impl Core {
    fn new(format: Format, adapter: Box<dyn Adapter>) -> Arc<Core> {
        Arc::new(Core {
            format,
            state: Mutex::new(State {
                adapter: Some(adapter),
                calls: Vec::new(),
            }),
        })
    }

    fn push<'py>(
        self: &Arc<Self>,
        py: Python<'py>,
        event: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let Some(event) = self.event_value(event)? else {
            // Still check the state, so a push after `finish` is an error.
            lock(&self.state, self.format.class())?
                .adapter
                .as_ref()
                .ok_or_else(|| finished(self.format.class()))?;
            return Ok(PyList::empty(py));
        };
        let mut state = lock(&self.state, self.format.class())?;
        let adapter = (state.adapter.as_mut()).ok_or_else(|| finished(self.format.class()))?;
        let events = adapter.push(&event);
        self.events(py, &mut state, events)
    }

    fn finish<'py>(self: &Arc<Self>, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let mut state = lock(&self.state, self.format.class())?;
        for call in 0..state.adapter.as_ref().map_or(0, |adapter| adapter.calls()) {
            state.id_and_name(call);
        }
        let adapter = (state.adapter.take()).ok_or_else(|| finished(self.format.class()))?;
        let events = adapter.finish();
        self.events(py, &mut state, events)
    }

    /// The event as a `serde_json::Value`; `None` for an event this format
    /// passes over (see [`Format::passes_over`]).
    fn event_value(&self, event: &Bound<'_, PyAny>) -> PyResult<Option<Value>> {
        let py = event.py();
        if let Ok(text) = event.cast::<PyString>() {
            return serde_json::from_str(&text.to_cow()?)
                .map(Some)
                .map_err(|error| PyValueError::new_err(format!("event is not JSON: {error}")));
        }
        if event.is_instance_of::<PyBytes>() || event.is_instance_of::<PyByteArray>() {
            let bytes: Vec<u8> = event.extract()?;
            return serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|error| PyValueError::new_err(format!("event is not JSON: {error}")));
        }
        let mut event = event.clone();
        let mut kind = field(&event, intern!(py, "type"))?;
        // openai's chat helper wraps each chunk: `ChunkEvent(type="chunk", chunk=…)`.
        if let (Format::Chat, Some("chunk")) = (self.format, kind.as_deref())
            && let Some(chunk) = attribute(&event, intern!(py, "chunk"))?
        {
            event = chunk;
            kind = None;
        }
        if kind.is_some_and(|kind| self.format.passes_over(&kind)) {
            return Ok(None);
        }
        if !event.is_instance_of::<PyDict>() {
            // Without pydantic's serializer warnings: the stream helpers' own
            // events hold objects of other types than their fields declare
            // (openai's `ParsedResponse`), which the caller cannot act on.
            let kwargs = PyDict::new(py);
            kwargs.set_item("mode", "json")?;
            kwargs.set_item("warnings", false)?;
            if event.hasattr(intern!(py, "to_dict"))? {
                // openai's and anthropic's models: the fields the event came
                // with, by their wire names.
                event = event.call_method(intern!(py, "to_dict"), (), Some(&kwargs))?;
            } else if event.hasattr(intern!(py, "model_dump"))? {
                kwargs.set_item("by_alias", true)?;
                event = event.call_method(intern!(py, "model_dump"), (), Some(&kwargs))?;
            }
        }
        if !event.is_instance_of::<PyDict>() {
            return Err(PyTypeError::new_err(format!(
                "event must be a dict, an SDK event (a pydantic model) or JSON text, not {}",
                event.get_type().name()?
            )));
        }
        python_json(&event, "event").map(Some)
    }

    /// The engine's events as Python objects.
    fn events<'py>(
        self: &Arc<Self>,
        py: Python<'py>,
        state: &mut State,
        events: Vec<ClientEvent>,
    ) -> PyResult<Bound<'py, PyList>> {
        let out = PyList::empty(py);
        for event in events {
            match event {
                ClientEvent::CallStarted { call, id, name } => {
                    let slot = state.call(call);
                    slot.id.clone_from(&id);
                    slot.name.clone_from(&name);
                    let event = CallStarted {
                        core: Arc::clone(self) as Arc<dyn Live>,
                        call,
                        id,
                        name,
                    };
                    out.append(Py::new(py, event)?)?;
                }
                ClientEvent::Field { call, event } => {
                    let (id, name) = state.id_and_name(call);
                    let event = Field {
                        core: Arc::clone(self) as Arc<dyn Live>,
                        call,
                        id,
                        name,
                        event: Py::new(py, FieldEvent::new(event))?,
                    };
                    out.append(Py::new(py, event)?)?;
                }
                ClientEvent::CallDone { call, id, end } => {
                    let end = CallEnd::new(py, end)?;
                    let slot = state.call(call);
                    if id.is_some() {
                        slot.id.clone_from(&id);
                    }
                    slot.args = Some(end.args_ref(py));
                    let event = CallDone {
                        call,
                        id,
                        name: end.end().name.clone(),
                        end: Py::new(py, end)?,
                    };
                    out.append(Py::new(py, event)?)?;
                }
                ClientEvent::Skipped { kind, id, name } => {
                    out.append(Py::new(py, Skipped { kind, id, name })?)?;
                }
                // An event kind this binding does not know yet: left out
                // rather than shown half-understood.
                _ => {}
            }
        }
        Ok(out)
    }

    /// The call's value now: its snapshot while it streams, its final
    /// arguments once it has ended.
    fn call_value<'py>(&self, py: Python<'py>, call: usize) -> PyResult<Bound<'py, PyAny>> {
        let state = lock(&self.state, self.format.class())?;
        if call >= state.calls.len() {
            return Err(PyIndexError::new_err(format!(
                "no call {call}: this {} has seen {} calls",
                self.format.class(),
                state.calls.len()
            )));
        }
        if let Some(args) = &state.calls[call].args {
            return Ok(args.bind(py).clone());
        }
        let snapshot = (state.adapter.as_ref()).and_then(|adapter| adapter.snapshot(call));
        drop(state);
        text_to_py(py, snapshot.as_deref().unwrap_or(""))
    }

    fn snapshot(&self, call: usize) -> PyResult<Option<String>> {
        let state = lock(&self.state, self.format.class())?;
        Ok((state.adapter.as_ref()).and_then(|adapter| adapter.snapshot(call)))
    }

    fn calls(&self) -> PyResult<usize> {
        let state = lock(&self.state, self.format.class())?;
        Ok(match &state.adapter {
            Some(adapter) => adapter.calls(),
            None => state.calls.len(),
        })
    }

    fn id_and_name(&self, call: usize) -> PyResult<Option<(Option<String>, String)>> {
        let mut state = lock(&self.state, self.format.class())?;
        if call >= state.calls.len() {
            return Ok(None);
        }
        Ok(Some(state.id_and_name(call)))
    }

    fn repr(&self) -> String {
        let class = self.format.class();
        match self.state.try_lock() {
            Ok(state) => match &state.adapter {
                Some(adapter) => format!("{class}(calls={})", adapter.calls()),
                None => format!("{class}(calls={}, finished)", state.calls.len()),
            },
            Err(_) => format!("{class}(busy)"),
        }
    }
}

/// `obj[name]` for a dict, `obj.name` otherwise; `None` when absent.
fn attribute<'py>(
    obj: &Bound<'py, PyAny>,
    name: &Bound<'py, PyString>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    if let Ok(dict) = obj.cast::<PyDict>() {
        return dict.get_item(name);
    }
    match obj.getattr(name) {
        Ok(value) => Ok(Some(value)),
        Err(error) if error.is_instance_of::<pyo3::exceptions::PyAttributeError>(obj.py()) => {
            Ok(None)
        }
        Err(error) => Err(error),
    }
}

/// A string field of an event (`type`), when it has one.
fn field(obj: &Bound<'_, PyAny>, name: &Bound<'_, PyString>) -> PyResult<Option<String>> {
    Ok(match attribute(obj, name)? {
        Some(value) => match value.cast::<PyString>() {
            Ok(text) => Some(text.to_cow()?.into_owned()),
            Err(_) => None,
        },
        None => None,
    })
}

/// The three adapter classes: one body, their own docs.
macro_rules! adapter_class {
    ($(#[$doc:meta])* $class:ident, $format:expr, $rust:ty, $form:expr) => {
        $(#[$doc])*
        #[pyclass(module = "argmend.adapters", frozen)]
        pub(crate) struct $class {
            core: Arc<Core>,
        }

        #[pymethods]
        impl $class {
            #[new]
            #[pyo3(signature = (tools = None, *, schema = None, drop_unknown_keys = false, max_depth = 512, max_input_bytes = None))]
            fn new(
                tools: Option<&Bound<'_, PyAny>>,
                schema: Option<&Bound<'_, PyAny>>,
                drop_unknown_keys: bool,
                max_depth: usize,
                max_input_bytes: Option<usize>,
            ) -> PyResult<Self> {
                let options =
                    call_options(schema, tools, $form, drop_unknown_keys, max_depth, max_input_bytes)?;
                Ok($class {
                    core: Core::new($format, Box::new(<$rust>::new(options))),
                })
            }

            /// Push one event of the stream: an SDK event object (a pydantic
            /// model, read with its `to_dict()`), a dict, or the JSON text of
            /// one server-sent event. Returns the events it caused (a list of
            /// `CallStarted`, `Field`, `CallDone`, `Skipped`), often none.
            fn push<'py>(
                &self,
                py: Python<'py>,
                event: &Bound<'py, PyAny>,
            ) -> PyResult<Bound<'py, PyList>> {
                self.core.push(py, event)
            }

            /// The stream ended: returns the last events. A call still open
            /// ends with `complete` false and `cut == "stream_ended"`. The
            /// adapter takes no more events afterwards; `value`, `id` and
            /// `name` still answer.
            fn finish<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
                self.core.finish(py)
            }

            /// The call's value now, as Python objects: the snapshot of its
            /// arguments while they stream (`None` before they start), its
            /// final arguments (`CallEnd.args`) once it has ended. `call` is
            /// the call's number (the `call` of its events); `IndexError` for
            /// one not seen.
            fn value<'py>(&self, py: Python<'py>, call: usize) -> PyResult<Bound<'py, PyAny>> {
                self.core.call_value(py, call)
            }

            /// The call's snapshot as JSON text while it is open; `None` once
            /// it has ended or for a call not seen.
            fn snapshot(&self, call: usize) -> PyResult<Option<String>> {
                self.core.snapshot(call)
            }

            /// The number of calls seen so far (`call` numbers run below it).
            fn calls(&self) -> PyResult<usize> {
                self.core.calls()
            }

            /// The model's id for the call (`call_…`, `toolu_…`), when known.
            fn id(&self, call: usize) -> PyResult<Option<String>> {
                Ok(self.core.id_and_name(call)?.and_then(|(id, _)| id))
            }

            /// The tool's name (`""` when the stream never gave one); `None`
            /// for a call not seen.
            fn name(&self, call: usize) -> PyResult<Option<String>> {
                Ok(self.core.id_and_name(call)?.map(|(_, name)| name))
            }

            fn __repr__(&self) -> String {
                self.core.repr()
            }
        }
    };
}

adapter_class!(
    /// OpenAI Chat Completions streaming: the chunks of
    /// `client.chat.completions.create(..., stream=True)` (or of its
    /// `.stream()` helper, whose `chunk` events it unwraps).
    ///
    /// It reads `choices[i].delta.tool_calls[j]` (`id`, `function.name`,
    /// `function.arguments` fragments; parallel calls by `index`, and the
    /// older `delta.function_call`) and each choice's `finish_reason`. A call
    /// ends (`CallDone`) as soon as the next call of its choice starts, or
    /// when the choice finishes; `finish_reason` `"length"` or
    /// `"content_filter"` marks the call still open as cut (`complete`
    /// false, `cut` the reason), however whole its JSON looks. `custom` tool
    /// calls (free text, not JSON) are reported as `Skipped`.
    ///
    /// `tools` is the request's `tools` list: each call is mended with its
    /// own tool's JSON Schema. `schema` is one schema for every call (it
    /// wins); `drop_unknown_keys`, `max_depth` and `max_input_bytes` are as
    /// for :class:`argmend.ToolCallStream`.
    ///
    /// >>> from argmend.adapters import OpenAIChat
    /// >>> chat = OpenAIChat()
    /// >>> def delta(args, **call):
    /// ...     return {"choices": [{"index": 0, "delta": {"tool_calls": [dict(index=0, function=dict(arguments=args, **call))]}}]}
    /// >>> [type(e).__name__ for e in chat.push(delta("{'path': 'a", name="read_file"))]
    /// ['CallStarted', 'Field', 'Field', 'Field']
    /// >>> chat.value(0)
    /// {'path': 'a'}
    /// >>> events = chat.push(delta(".py'}"))
    /// >>> events[-1].value
    /// {'path': 'a.py'}
    /// >>> done = chat.push({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})[-1]
    /// >>> done.name, done.end.args, done.end.complete
    /// ('read_file', {'path': 'a.py'}, True)
    OpenAIChat,
    Format::Chat,
    OpenAiChatStream,
    ToolsForm::OpenAi
);

adapter_class!(
    /// OpenAI Responses API streaming: the events of
    /// `client.responses.create(..., stream=True)` (or of its `.stream()`
    /// helper), calls kept apart by item id.
    ///
    /// It reads `response.output_item.added` (a `function_call` item's
    /// `call_id`, `name`, and `arguments` if it has some),
    /// `response.function_call_arguments.delta` and `.done`,
    /// `response.output_item.done` (the item's final `arguments`, which win
    /// over the deltas when they differ, with a `final_text` fix; it ends the
    /// call, cut when its `status` is `"incomplete"`), and
    /// `response.completed`, `response.incomplete`, `response.failed` and
    /// `error`, which end what is open (the last three as cut) after reading
    /// the function calls of the final `response.output`. Items of other call
    /// kinds (`custom_tool_call`, `mcp_call`, `web_search_call`, …) are
    /// reported as `Skipped`.
    ///
    /// `tools`, `schema` and the rest are as for :class:`OpenAIChat`.
    ///
    /// >>> from argmend.adapters import OpenAIResponses
    /// >>> responses = OpenAIResponses()
    /// >>> item = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather"}
    /// >>> [type(e).__name__ for e in responses.push({"type": "response.output_item.added", "output_index": 0, "item": dict(item, arguments="")})]
    /// ['CallStarted']
    /// >>> done = responses.push({"type": "response.output_item.done", "output_index": 0,
    /// ...     "item": dict(item, arguments='{"city": "Paris"}', status="completed")})[-1]
    /// >>> done.id, done.end.args, done.end.complete
    /// ('call_1', {'city': 'Paris'}, True)
    OpenAIResponses,
    Format::Responses,
    OpenAiResponsesStream,
    ToolsForm::OpenAi
);

adapter_class!(
    /// Anthropic Messages streaming: the events of
    /// `client.messages.create(..., stream=True)` (or of the
    /// `client.messages.stream()` helper, whose own `text` and `input_json`
    /// events it passes over), blocks kept apart by `index`.
    ///
    /// It reads `content_block_start` with a `tool_use` block (`id`, `name`,
    /// and `input` when the server sends it whole), `content_block_delta`
    /// with `input_json_delta` (`partial_json`, which replaces a start
    /// `input`, as the SDK does), `tool_use` blocks already inside
    /// `message_start`, `content_block_stop`, and `message_delta`'s
    /// `stop_reason`: a call is reported then (or as soon as another block
    /// starts), cut when the reason is `"max_tokens"`,
    /// `"model_context_window_exceeded"` or `"refusal"`, however whole its
    /// JSON looks. An `error` event cuts what is open. Blocks of other call
    /// kinds (`server_tool_use`, `mcp_tool_use`) are reported as `Skipped`.
    ///
    /// `tools` is the request's `tools` list (Anthropic's form, with
    /// `input_schema`); `schema` and the rest are as for :class:`OpenAIChat`.
    ///
    /// >>> from argmend.adapters import Anthropic
    /// >>> stream = Anthropic()
    /// >>> events = stream.push({"type": "content_block_start", "index": 0,
    /// ...     "content_block": {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}})
    /// >>> events += stream.push({"type": "content_block_delta", "index": 0,
    /// ...     "delta": {"type": "input_json_delta", "partial_json": '{"city": "Par'}})
    /// >>> events[-1].value
    /// {'city': 'Par'}
    /// >>> events += stream.push({"type": "content_block_stop", "index": 0})
    /// >>> done = stream.push({"type": "message_delta", "delta": {"stop_reason": "max_tokens"}})[-1]
    /// >>> done.end.args, done.end.complete, done.end.cut
    /// ({'city': 'Par'}, False, 'max_tokens')
    Anthropic,
    Format::Anthropic,
    AnthropicStream,
    ToolsForm::Anthropic
);

/// Register the adapters and their events.
impl Live for Core {
    fn value<'py>(&self, py: Python<'py>, call: usize) -> PyResult<Bound<'py, PyAny>> {
        self.call_value(py, call)
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Text>()?;
    m.add_class::<OpenAIChat>()?;
    m.add_class::<OpenAIResponses>()?;
    m.add_class::<Anthropic>()?;
    m.add_class::<CallStarted>()?;
    m.add_class::<Field>()?;
    m.add_class::<CallDone>()?;
    m.add_class::<Skipped>()?;
    Ok(())
}
