//! `argmend.CallParser`: the tool calls in a model's streamed text, in
//! argmend's forms and every open-weight format (`format="qwen3_coder"`,
//! `"kimi_k2"`, `"gpt_oss"`, …), with the events the SDK adapters give.

use std::sync::{Arc, Mutex};

use argmend::{ClientEvent, Event, Format};
use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::call_events::{CallEnd, FieldEvent};
use crate::events::{CallDone, CallStarted, Field, Live, Skipped, Text};
use crate::input::Input;
use crate::live::{ToolsForm, call_options, finished, lock, text_to_py};
use crate::maybe_detached;

const PARSER: &str = "CallParser";

/// What the binding keeps of each call.
#[derive(Default)]
struct Call {
    name: String,
    /// The mended JSON of its arguments so far (the `ArgsJson` pieces).
    json: String,
    /// Its final arguments, once it has ended.
    args: Option<Py<PyAny>>,
}

struct State {
    /// `None` after `finish`.
    parser: Option<argmend::CallParser>,
    calls: Vec<Call>,
}

impl State {
    fn call(&mut self, call: usize) -> &mut Call {
        if self.calls.len() <= call {
            self.calls.resize_with(call + 1, Call::default);
        }
        &mut self.calls[call]
    }
}

/// One parser's state, shared with the events it handed out.
struct Core {
    state: Mutex<State>,
}

impl Live for Core {
    /// The arguments so far (the mended JSON read so far, closed where it
    /// is open), or the final ones.
    fn value<'py>(&self, py: Python<'py>, call: usize) -> PyResult<Bound<'py, PyAny>> {
        let state = lock(&self.state, PARSER)?;
        let Some(slot) = state.calls.get(call) else {
            return Err(PyIndexError::new_err(format!(
                "no call {call}: this CallParser has seen {} calls",
                state.calls.len()
            )));
        };
        if let Some(args) = &slot.args {
            return Ok(args.bind(py).clone());
        }
        let json = slot.json.clone();
        drop(state);
        if json.is_empty() {
            return Ok(py.None().into_bound(py));
        }
        text_to_py(py, argmend::repair(json.as_bytes()).text())
    }
}

/// Finds the tool calls in a model's streamed output and mends their
/// arguments as they arrive. Feed it the text as it comes (``str`` or
/// ``bytes``, cut anywhere); each :meth:`feed` returns the events it
/// completed, :meth:`finish` the last ones:
///
/// - :class:`argmend.adapters.Text` ``(text)``: text outside the calls;
/// - :class:`argmend.adapters.CallStarted` ``(call, id, name)``: a call
///   began, named as soon as its name is known;
/// - :class:`argmend.adapters.Field` ``(call, id, name, event)``: a string of
///   its arguments grew (``event.kind == "delta"``) or a value is final
///   (``"field_done"``);
/// - :class:`argmend.adapters.CallDone` ``(call, id, name, end)``: the call
///   ended; ``end`` is a :class:`CallEnd` (``args``, ``complete``, ``fixes``,
///   ``doubts``). A call the text cut off is ``complete=False`` with
///   ``end.cut == "stream_ended"``;
/// - :class:`argmend.adapters.Skipped` ``("nameless_call", None, None)``: a
///   call object that names no tool.
///
/// These are the SDK adapters' events (:mod:`argmend.adapters`), so one loop
/// reads both. ``format`` picks one wire format (``CallParser.formats()``
/// names them: ``"qwen3_coder"``, ``"kimi_k2"``, ``"gpt_oss"``,
/// ``"deepseek_v3"``, ``"glm45"``, ``"pythonic"``, …); without it, argmend's
/// own forms, Hermes, Llama 3 and Mistral are read, and the first marker
/// only one format writes (``<|tool_calls_section_begin|>``,
/// ``<minimax:tool_call>``, …) switches to that format. ``tools`` is the
/// request's tools list (OpenAI's or Anthropic's form): each call is mended
/// with its tool's JSON Schema, and parameters written as text
/// (``<parameter=n>5</parameter>``) take its types. ``schema``,
/// ``drop_unknown_keys``, ``max_depth`` and ``max_input_bytes`` are as for
/// :class:`ToolCallStream`.
///
/// >>> import argmend
/// >>> parser = argmend.CallParser(format="qwen3_coder")
/// >>> events = parser.feed("Reading it.<tool_call>\n<function=read_file>\n<parameter=path>\na.py\n")
/// >>> [type(e).__name__ for e in events]
/// ['Text', 'CallStarted', 'Field']
/// >>> events = parser.feed("</parameter>\n</function>\n</tool_call>") + parser.finish()
/// >>> events[-1].end.args, events[-1].end.complete
/// ({'path': 'a.py'}, True)
#[pyclass(module = "argmend", frozen)]
pub(crate) struct CallParser {
    core: Arc<Core>,
    format: Option<Format>,
}

#[pymethods]
impl CallParser {
    #[new]
    #[pyo3(signature = (format = None, tools = None, *, schema = None, drop_unknown_keys = false, max_depth = 512, max_input_bytes = None))]
    fn new(
        format: Option<&str>,
        tools: Option<&Bound<'_, PyAny>>,
        schema: Option<&Bound<'_, PyAny>>,
        drop_unknown_keys: bool,
        max_depth: usize,
        max_input_bytes: Option<usize>,
    ) -> PyResult<Self> {
        let options = call_options(
            schema,
            tools,
            ToolsForm::Any,
            drop_unknown_keys,
            max_depth,
            max_input_bytes,
        )?;
        let format = format
            .map(|name| name.parse::<Format>().map_err(PyValueError::new_err))
            .transpose()?;
        let parser = match format {
            Some(format) => argmend::CallParser::with_format(format, options),
            None => argmend::CallParser::with_options(options),
        };
        Ok(CallParser {
            core: Arc::new(Core {
                state: Mutex::new(State {
                    parser: Some(parser),
                    calls: Vec::new(),
                }),
            }),
            format,
        })
    }

    /// The names of the formats ``format`` takes, in the table's order.
    #[staticmethod]
    fn formats() -> Vec<&'static str> {
        Format::all().map(Format::name).collect()
    }

    /// The format chosen, or ``None`` (argmend's forms, and the first
    /// telling marker).
    #[getter]
    fn format(&self) -> Option<&'static str> {
        self.format.map(Format::name)
    }

    /// Feed the next chunk of model output (``str`` or ``bytes``; bytes may
    /// split a character); returns the events it completed.
    fn feed<'py>(
        &self,
        py: Python<'py>,
        chunk: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let input = Input::extract(chunk, "chunk")?;
        let mut state = lock(&self.core.state, PARSER)?;
        let parser = state.parser.as_mut().ok_or_else(|| finished(PARSER))?;
        let bytes = input.bytes();
        let events = maybe_detached(py, bytes.len(), || parser.feed(bytes));
        self.events(py, &mut state, events)
    }

    /// End the output: a call it cut off ends, not complete; the last events.
    fn finish<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let mut state = lock(&self.core.state, PARSER)?;
        let parser = state.parser.take().ok_or_else(|| finished(PARSER))?;
        let events = parser.finish();
        self.events(py, &mut state, events)
    }

    /// The call's value now, as Python objects: its arguments so far while
    /// they stream (``None`` before they start), its final ones once it has
    /// ended. ``IndexError`` for a call not seen.
    fn value<'py>(&self, py: Python<'py>, call: usize) -> PyResult<Bound<'py, PyAny>> {
        self.core.value(py, call)
    }

    /// The number of calls seen so far.
    fn calls(&self) -> PyResult<usize> {
        Ok(lock(&self.core.state, PARSER)?.calls.len())
    }

    /// The tool's name of call ``call`` (``None`` for a call not seen).
    fn name(&self, call: usize) -> PyResult<Option<String>> {
        let state = lock(&self.core.state, PARSER)?;
        Ok(state.calls.get(call).map(|slot| slot.name.clone()))
    }

    fn __repr__(&self) -> String {
        match self.format {
            Some(format) => format!("CallParser(format={:?})", format.name()),
            None => "CallParser()".to_owned(),
        }
    }
}

impl CallParser {
    /// The engine's events as the adapters' Python events.
    fn events<'py>(
        &self,
        py: Python<'py>,
        state: &mut State,
        events: Vec<Event>,
    ) -> PyResult<Bound<'py, PyList>> {
        let out = PyList::empty(py);
        let core: Arc<dyn Live> = self.core.clone();
        for event in events {
            match &event {
                Event::Text(text) => {
                    out.append(Py::new(py, Text { text: text.clone() })?)?;
                    continue;
                }
                Event::ArgsJson { call, json } => {
                    state.call(*call).json.push_str(json);
                    continue;
                }
                Event::Error { name: None, .. } => {
                    let skipped = Skipped {
                        kind: "nameless_call".to_owned(),
                        id: None,
                        name: None,
                    };
                    out.append(Py::new(py, skipped)?)?;
                    continue;
                }
                _ => {}
            }
            match event.to_client() {
                Some(ClientEvent::CallStarted { call, id, name }) => {
                    state.call(call).name.clone_from(&name);
                    let core = Arc::clone(&core);
                    out.append(Py::new(
                        py,
                        CallStarted {
                            core,
                            call,
                            id,
                            name,
                        },
                    )?)?;
                }
                Some(ClientEvent::Field { call, event }) => {
                    let name = state.call(call).name.clone();
                    let field = Field {
                        core: Arc::clone(&core),
                        call,
                        id: None,
                        name,
                        event: Py::new(py, FieldEvent::new(event))?,
                    };
                    out.append(Py::new(py, field)?)?;
                }
                Some(ClientEvent::CallDone { call, id, end }) => {
                    let end = CallEnd::new(py, end)?;
                    let slot = state.call(call);
                    slot.args = Some(end.args_ref(py));
                    let name = end.end().name.clone();
                    slot.name.clone_from(&name);
                    let end = Py::new(py, end)?;
                    out.append(Py::new(
                        py,
                        CallDone {
                            call,
                            id,
                            name,
                            end,
                        },
                    )?)?;
                }
                _ => {}
            }
        }
        Ok(out)
    }
}
