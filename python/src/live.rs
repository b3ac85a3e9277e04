//! `argmend.ToolCallStream`: one tool call's arguments as a model streams
//! them. What it hands back (`ArgsUpdate`, `FieldEvent`, `CallEnd`) is in
//! `call_events.rs`.

use std::sync::{Mutex, MutexGuard, TryLockError};

use argmend::{ToolMap, ToolOptions, Values};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::call_events::{ArgsUpdate, CallEnd, field_events};
use crate::input::Input;
use crate::{json_loads, maybe_detached, options, python_json, tool_options};

/// Which form a request's `tools` list is in, and so which builder reads it.
#[derive(Clone, Copy)]
pub(crate) enum ToolsForm {
    /// OpenAI's, Chat (`{"type": "function", "function": {…}}`) or Responses
    /// (`{"type": "function", "name", "parameters"}`).
    OpenAi,
    /// Anthropic's (`{"name", "input_schema"}`).
    Anthropic,
    /// Either: Anthropic's when a tool has an `input_schema`.
    Any,
}

/// The options of a streamed call: the tool table (with the request's tools
/// and their schemas, when given), a schema for every call, the schema mode
/// and the engine's limits.
pub(crate) fn call_options(
    schema: Option<&Bound<'_, PyAny>>,
    tools: Option<&Bound<'_, PyAny>>,
    form: ToolsForm,
    drop_unknown_keys: bool,
    max_depth: usize,
    max_input_bytes: Option<usize>,
) -> PyResult<ToolOptions> {
    let mut call = tool_options(schema, drop_unknown_keys)?.repair_options(options(
        max_depth,
        max_input_bytes,
        Values::First,
    ));
    if let Some(tools) = tools.filter(|tools| !tools.is_none()) {
        let tools = python_json(tools, "tools")?;
        let anthropic = match form {
            ToolsForm::OpenAi => false,
            ToolsForm::Anthropic => true,
            ToolsForm::Any => tool_list(&tools)
                .iter()
                .any(|tool| tool.get("input_schema").is_some()),
        };
        call = call.tools(if anthropic {
            ToolMap::from_anthropic_tools(&tools)
        } else {
            ToolMap::from_openai_tools(&tools)
        });
    }
    Ok(call)
}

/// The tools of a `tools` list or of a whole request that has one.
fn tool_list(tools: &serde_json::Value) -> &[serde_json::Value] {
    let list = tools.get("tools").unwrap_or(tools);
    list.as_array().map(Vec::as_slice).unwrap_or(&[])
}

/// `value` as Python objects: scalars made directly (most field values are
/// strings), arrays and objects through `json.loads` of their text, which
/// has no recursion hazard at the depths the engine allows.
pub(crate) fn value_to_py<'py>(
    py: Python<'py>,
    value: &serde_json::Value,
) -> PyResult<Bound<'py, PyAny>> {
    use serde_json::Value;
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => pyo3::types::PyBool::new(py, *b).to_owned().into_any(),
        Value::String(text) => PyString::new(py, text).into_any(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(n), _) => n.into_pyobject(py)?.into_any(),
            (None, Some(n)) => n.into_pyobject(py)?.into_any(),
            _ => n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        Value::Array(_) | Value::Object(_) => json_loads(py)?.call1((value.to_string(),))?,
    })
}

/// JSON text as Python objects (`json.loads`, so big integers stay exact);
/// `None` for the empty text of a value that has not started.
pub(crate) fn text_to_py<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    if text.is_empty() {
        return Ok(py.None().into_bound(py));
    }
    json_loads(py)?.call1((text,))
}

/// Lock one stream's state; a call made while another thread holds it is
/// `RuntimeError` (a stream is used from one thread at a time), and so is
/// one after an engine panic left it poisoned.
pub(crate) fn lock<'a, T>(mutex: &'a Mutex<T>, what: &str) -> PyResult<MutexGuard<'a, T>> {
    match mutex.try_lock() {
        Ok(guard) => Ok(guard),
        // A panic inside the engine (a bug) may have left it half-way
        // through an event: refuse rather than go on from that state.
        Err(TryLockError::Poisoned(_)) => Err(PyRuntimeError::new_err(format!(
            "this {what} failed on an earlier call (an internal error); start a new one"
        ))),
        Err(TryLockError::WouldBlock) => Err(PyRuntimeError::new_err(format!(
            "this {what} is being fed by another thread; a {what} is one stream, used from one thread at a time"
        ))),
    }
}

/// `RuntimeError` for a stream used after `finish()`.
pub(crate) fn finished(what: &str) -> PyErr {
    PyRuntimeError::new_err(format!(
        "this {what} has finished; start a new one for the next stream"
    ))
}

/// One tool call's arguments, fed fragment by fragment as the model streams
/// them (OpenAI's `function.arguments` deltas, Anthropic's `partial_json`):
/// each :meth:`feed` returns an :class:`ArgsUpdate` (the newly committed
/// mended text and the :class:`FieldEvent` list), :meth:`value` is the
/// arguments so far as Python objects and :meth:`snapshot` as valid JSON
/// text, and :meth:`finish` returns the :class:`CallEnd`. The SDK adapters
/// (:mod:`argmend.adapters`) run one of these per call.
///
/// `name` picks the tool's rules from argmend's built-in table (`read_file`,
/// `write_file`, `Bash`, …) or from `tools`, the request's own tools list
/// (OpenAI's or Anthropic's form), which gives the call its tool's JSON
/// Schema; `schema` gives one directly and wins over both. With a schema
/// that lists the keys (and `additionalProperties: false`), code with
/// unescaped quotes in a string field stays whole. `drop_unknown_keys`,
/// `max_depth` and `max_input_bytes` are as for :func:`normalize_tool_args`
/// and :class:`Repairer`, except that a crossed limit does not raise: the
/// end's verdict is `"not_json"` and its `reason` says which.
///
/// One stream is fed from one thread at a time: a call made while another
/// thread is inside one raises `RuntimeError`.
///
/// >>> import argmend
/// >>> call = argmend.ToolCallStream("write_file")
/// >>> call.feed('{"path": "a.py", "content": "print(1)').committed
/// '{"path": "a.py", "content": "print(1)'
/// >>> call.value()
/// {'path': 'a.py', 'content': 'print(1)'}
/// >>> [(e.path, e.value) for e in call.feed('\\n", mode: \'w\'}').events if e.kind == "field_done" and e.path]
/// [('/content', 'print(1)\n'), ('/mode', 'w')]
/// >>> end = call.finish()
/// >>> end.args, end.verdict, end.complete
/// ({'path': 'a.py', 'content': 'print(1)\n', 'mode': 'w'}, 'repaired', True)
#[pyclass(module = "argmend", frozen)]
pub(crate) struct ToolCallStream {
    name: String,
    inner: Mutex<Option<argmend::ToolCallStream>>,
}

const STREAM: &str = "ToolCallStream";

#[pymethods]
impl ToolCallStream {
    #[new]
    #[pyo3(signature = (name, *, schema = None, tools = None, drop_unknown_keys = false, max_depth = 512, max_input_bytes = None))]
    fn new(
        name: String,
        schema: Option<&Bound<'_, PyAny>>,
        tools: Option<&Bound<'_, PyAny>>,
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
        Ok(ToolCallStream {
            inner: Mutex::new(Some(argmend::ToolCallStream::new(&name, options))),
            name,
        })
    }

    /// Feed the next fragment (`str` or `bytes`; bytes may split a UTF-8
    /// character); returns an :class:`ArgsUpdate`.
    fn feed(&self, py: Python<'_>, chunk: &Bound<'_, PyAny>) -> PyResult<ArgsUpdate> {
        let input = Input::extract(chunk, "chunk")?;
        let update = self.with(|call| {
            let bytes = input.bytes();
            Ok(maybe_detached(py, bytes.len(), || call.feed(bytes)))
        })?;
        Ok(ArgsUpdate {
            committed: PyString::new(py, &update.committed).unbind(),
            events: field_events(py, update.events)?,
        })
    }

    /// Valid JSON of the arguments so far (`""` before they start, and while
    /// arguments that do not start with `{` or `[` are held for the end).
    fn snapshot(&self) -> PyResult<String> {
        self.with(|call| Ok(call.snapshot()))
    }

    /// The arguments so far as Python objects (the snapshot, parsed); `None`
    /// before they start.
    fn value<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        text_to_py(py, &self.snapshot()?)
    }

    /// The number of bytes fed so far.
    #[getter]
    fn bytes_fed(&self) -> PyResult<usize> {
        self.with(|call| Ok(call.bytes_fed()))
    }

    /// The tool's name.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// End the arguments: returns the :class:`CallEnd` (with the last field
    /// events in its `events`). The stream is spent afterwards.
    fn finish(&self, py: Python<'_>) -> PyResult<CallEnd> {
        let call = lock(&self.inner, STREAM)?
            .take()
            .ok_or_else(|| finished(STREAM))?;
        CallEnd::new(py, call.finish())
    }

    fn __repr__(&self) -> String {
        match self.inner.try_lock() {
            Ok(guard) => match guard.as_ref() {
                Some(call) => format!(
                    "ToolCallStream({:?}, bytes_fed={})",
                    self.name,
                    call.bytes_fed()
                ),
                None => format!("ToolCallStream({:?}, finished)", self.name),
            },
            Err(_) => format!("ToolCallStream({:?}, busy)", self.name),
        }
    }
}

impl ToolCallStream {
    fn with<T>(
        &self,
        work: impl FnOnce(&mut argmend::ToolCallStream) -> PyResult<T>,
    ) -> PyResult<T> {
        let mut guard = lock(&self.inner, STREAM)?;
        let call = guard.as_mut().ok_or_else(|| finished(STREAM))?;
        work(call)
    }
}
