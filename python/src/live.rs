//! `argmend.ToolCallStream`: one tool call's arguments as a model streams
//! them, and what it hands back (`ArgsUpdate`, `FieldEvent`, `CallEnd`),
//! which the SDK adapters (`adapters.rs`) hand back too.

use std::sync::{Mutex, MutexGuard, TryLockError};

use argmend::{ToolMap, ToolOptions, Values, Verdict};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyString};

use crate::input::Input;
use crate::outcome::{Doubt, Fix, doubts};
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

/// What happened to one field of a call's arguments, in the order the
/// mended text shows it. `kind` is `"started"` (a value began; `value_kind`
/// says which: `"object"`, `"array"`, `"string"`, `"number"`, `"bool"`,
/// `"null"`), `"delta"` (characters added to a string: `text`, decoded) or
/// `"field_done"` (the value is final: `value`; an object's keys come in
/// sorted order, as the engine's `serde_json` maps keep them, where
/// `CallEnd.args` and the live values keep the order of the text). `path` is
/// a JSON Pointer: `""` is the whole value, `/content` a member, `/items/0`
/// an element.
///
/// >>> import argmend
/// >>> call = argmend.ToolCallStream("read_file")
/// >>> [(e.kind, e.path) for e in call.feed('{"path": "a.').events]
/// [('started', ''), ('started', '/path'), ('delta', '/path')]
/// >>> event = call.feed('py"}').events[-2]
/// >>> event.kind, event.path, event.value
/// ('field_done', '/path', 'a.py')
/// >>> event.to_dict()
/// {'event': 'field_done', 'path': '/path', 'value': 'a.py'}
#[pyclass(module = "argmend", frozen)]
pub(crate) struct FieldEvent {
    event: argmend::FieldEvent,
    /// `value` as a Python object, made on first access: a `field_done` of
    /// the whole arguments carries all of them, and most are never read.
    value: PyOnceLock<Py<PyAny>>,
}

impl FieldEvent {
    pub(crate) fn new(event: argmend::FieldEvent) -> Self {
        FieldEvent {
            event,
            value: PyOnceLock::new(),
        }
    }

    pub(crate) fn event(&self) -> &argmend::FieldEvent {
        &self.event
    }

    /// A string member of the event's JSON form, for the kinds this binding
    /// does not know by name (`FieldEvent` may gain some).
    fn json_text(&self, key: &str) -> Option<String> {
        self.event.to_json().get(key)?.as_str().map(str::to_owned)
    }
}

/// A list of field events as Python objects.
pub(crate) fn field_events(
    py: Python<'_>,
    events: Vec<argmend::FieldEvent>,
) -> PyResult<Vec<Py<FieldEvent>>> {
    (events.into_iter())
        .map(|event| Py::new(py, FieldEvent::new(event)))
        .collect()
}

#[pymethods]
impl FieldEvent {
    /// `"started"`, `"delta"` or `"field_done"`.
    #[getter]
    fn kind(&self) -> String {
        match &self.event {
            argmend::FieldEvent::Started { .. } => "started".to_owned(),
            argmend::FieldEvent::StringDelta { .. } => "delta".to_owned(),
            argmend::FieldEvent::Done { .. } => "field_done".to_owned(),
            _ => self.json_text("event").unwrap_or_default(),
        }
    }

    /// The JSON Pointer of the value (`""` for the whole arguments).
    #[getter]
    fn path(&self) -> String {
        match &self.event {
            argmend::FieldEvent::Started { path, .. }
            | argmend::FieldEvent::StringDelta { path, .. }
            | argmend::FieldEvent::Done { path, .. } => path.clone(),
            _ => self.json_text("path").unwrap_or_default(),
        }
    }

    /// The characters added to the string, for a `"delta"`; else `None`.
    #[getter]
    fn text(&self) -> Option<&str> {
        match &self.event {
            argmend::FieldEvent::StringDelta { text, .. } => Some(text),
            _ => None,
        }
    }

    /// The final value, for a `"field_done"` (a JSON `null` is `None` too);
    /// else `None`.
    #[getter]
    fn value<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let argmend::FieldEvent::Done { value, .. } = &self.event else {
            return Ok(py.None().into_bound(py));
        };
        let value = self
            .value
            .get_or_try_init(py, || value_to_py(py, value).map(Bound::unbind))?;
        Ok(value.bind(py).clone())
    }

    /// The kind of value that started, for a `"started"` (`"object"`,
    /// `"array"`, `"string"`, `"number"`, `"bool"`, `"null"`); else `None`.
    #[getter]
    fn value_kind(&self) -> Option<&'static str> {
        match &self.event {
            argmend::FieldEvent::Started { kind, .. } => Some(kind.name()),
            _ => None,
        }
    }

    /// The event as a dict, as `argmend call --events` prints it:
    /// `{"event": …, "path": …, "kind" | "text" | "value": …}`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        value_to_py(py, &self.event.to_json())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<FieldEvent>()
            .is_ok_and(|other| other.get().event == self.event)
    }

    fn __repr__(&self) -> String {
        match &self.event {
            argmend::FieldEvent::Started { path, kind } => {
                format!(
                    "FieldEvent(kind='started', path={path:?}, value_kind='{}')",
                    kind.name()
                )
            }
            argmend::FieldEvent::StringDelta { path, text } => {
                format!("FieldEvent(kind='delta', path={path:?}, text={text:?})")
            }
            argmend::FieldEvent::Done { path, value } => {
                let mut value = value.to_string();
                if value.len() > 60 {
                    let cut = (0..=57)
                        .rev()
                        .find(|&i| value.is_char_boundary(i))
                        .unwrap_or(0);
                    value.truncate(cut);
                    value.push('…');
                }
                format!("FieldEvent(kind='field_done', path={path:?}, value={value})")
            }
            other => format!("FieldEvent({})", other.to_json()),
        }
    }
}

/// What one chunk fed to a :class:`ToolCallStream` did: `committed`, the
/// mended text it committed (committed text never changes afterwards), and
/// `events`, the :class:`FieldEvent` list, in text order.
#[pyclass(module = "argmend", frozen)]
pub(crate) struct ArgsUpdate {
    committed: Py<PyString>,
    events: Vec<Py<FieldEvent>>,
}

#[pymethods]
impl ArgsUpdate {
    /// The mended text this chunk committed (it never changes afterwards).
    #[getter]
    fn committed(&self, py: Python<'_>) -> Py<PyString> {
        self.committed.clone_ref(py)
    }

    /// The field events, in text order.
    #[getter]
    fn events<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.events.iter().map(|event| event.clone_ref(py)))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "ArgsUpdate(committed={}, events={})",
            self.committed.bind(py).repr()?.to_cow()?,
            self.events.len()
        ))
    }
}

/// The end of one call: `args` (the mended arguments as Python objects;
/// `None` when they are not JSON), `text` (the same as JSON text; the raw
/// arguments when they are not JSON), `verdict`, `strategy`, `fixes`,
/// `doubts`, `reason`, and `complete`, whether the arguments arrived whole.
///
/// `complete` is `False` when a string, a container or a number had to be
/// closed because the arguments stopped, when they are not JSON, and
/// (through the SDK adapters) whenever the stream said it cut the call short,
/// however whole its JSON looks: `cut` then says why (`"length"`,
/// `"max_tokens"`, `"content_filter"`, `"incomplete"`, `"failed"`,
/// `"error"`, `"stream_ended"`: the events stopped before the call's end
/// was confirmed, `"no_arguments"`: no argument text arrived at all). A call
/// that is not complete may be half of what the model meant (a `write_file`
/// whose content stops mid-way): run it only if half is acceptable.
#[pyclass(module = "argmend", frozen)]
pub(crate) struct CallEnd {
    end: argmend::CallEnd,
    args: Py<PyAny>,
    fixes: Vec<Fix>,
    doubts: Vec<Doubt>,
    events: Vec<Py<FieldEvent>>,
}

impl CallEnd {
    /// The end as a Python object; its field events become `events`.
    pub(crate) fn new(py: Python<'_>, mut end: argmend::CallEnd) -> PyResult<CallEnd> {
        // From the text, as `Outcome.value()` does: big integers stay exact.
        let args = match end.verdict {
            Verdict::NotJson => py.None(),
            _ => match text_to_py(py, &end.text) {
                Ok(args) => args.unbind(),
                Err(_) => value_to_py(py, &end.args)?.unbind(),
            },
        };
        let events = field_events(py, std::mem::take(&mut end.events))?;
        Ok(CallEnd {
            args,
            fixes: end.fixes.iter().map(Fix::tool).collect(),
            doubts: doubts(&end.doubts),
            events,
            end,
        })
    }

    pub(crate) fn end(&self) -> &argmend::CallEnd {
        &self.end
    }

    pub(crate) fn args_ref(&self, py: Python<'_>) -> Py<PyAny> {
        self.args.clone_ref(py)
    }
}

#[pymethods]
impl CallEnd {
    /// The tool's name.
    #[getter]
    fn name(&self) -> &str {
        &self.end.name
    }

    /// The mended arguments as Python objects (`None` when the verdict is
    /// `"not_json"`).
    #[getter]
    fn args(&self, py: Python<'_>) -> Py<PyAny> {
        self.args.clone_ref(py)
    }

    /// The mended arguments as JSON text (the raw arguments when the
    /// verdict is `"not_json"`).
    #[getter]
    fn text(&self) -> &str {
        &self.end.text
    }

    /// `"valid"`, `"repaired"`, `"completed"` or `"not_json"`.
    #[getter]
    fn verdict(&self) -> &'static str {
        self.end.verdict.name()
    }

    /// Which strategy the arguments needed (`"strict_parse"`, …); `None`
    /// when the verdict is `"not_json"`.
    #[getter]
    fn strategy(&self) -> Option<&'static str> {
        self.end.strategy.map(|strategy| strategy.name())
    }

    /// Whether the arguments arrived whole (see the class's docstring).
    #[getter]
    fn complete(&self) -> bool {
        self.end.complete
    }

    /// Why the stream cut the call short (set by the SDK adapters only);
    /// `None` when it did not.
    #[getter]
    fn cut(&self) -> Option<&str> {
        self.end.cut.as_deref()
    }

    /// Every change, engine repairs and tool-level ones, with offsets into
    /// the raw arguments.
    #[getter]
    fn fixes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.fixes.iter().cloned())
    }

    /// The choices between readings that the raw arguments could not settle
    /// (:class:`Doubt`); empty when there was none. Neither the verdict nor
    /// `complete` changes because of a doubt.
    #[getter]
    fn doubts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.doubts.iter().cloned())
    }

    /// Why there are no arguments, when the verdict is `"not_json"`; else `None`.
    #[getter]
    fn reason(&self) -> Option<&str> {
        self.end.reason.as_deref()
    }

    /// The last field events, those the end of the input completed or
    /// closed (from :meth:`ToolCallStream.finish`; the SDK adapters report
    /// them as `Field` events before the `CallDone`, so theirs is empty).
    #[getter]
    fn events<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.events.iter().map(|event| event.clone_ref(py)))
    }

    /// Everything above as a dict (`fixes` and `doubts` as dicts too).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("name", &self.end.name)?;
        dict.set_item("args", self.args.bind(py))?;
        dict.set_item("text", &self.end.text)?;
        dict.set_item("verdict", self.end.verdict.name())?;
        dict.set_item("strategy", self.strategy())?;
        dict.set_item("complete", self.end.complete)?;
        dict.set_item("cut", self.cut())?;
        let fixes = PyList::empty(py);
        for fix in &self.fixes {
            let item = PyDict::new(py);
            item.set_item("kind", fix.kind)?;
            item.set_item("offset", fix.offset)?;
            fixes.append(item)?;
        }
        dict.set_item("fixes", fixes)?;
        let doubts = PyList::empty(py);
        for doubt in &self.doubts {
            let item = PyDict::new(py);
            item.set_item("kind", doubt.kind)?;
            item.set_item("offset", doubt.offset)?;
            item.set_item("reason", doubt.reason)?;
            doubts.append(item)?;
        }
        dict.set_item("doubts", doubts)?;
        dict.set_item("reason", self.reason())?;
        Ok(dict)
    }

    fn __repr__(&self) -> String {
        let mut text = self.end.text.clone();
        if text.len() > 60 {
            let cut = (0..=57)
                .rev()
                .find(|&i| text.is_char_boundary(i))
                .unwrap_or(0);
            text.truncate(cut);
            text.push('…');
        }
        let cut = match &self.end.cut {
            Some(cut) => format!(", cut='{cut}'"),
            None => String::new(),
        };
        format!(
            "CallEnd(name={:?}, verdict='{}', complete={}{cut}, text={text:?})",
            self.end.name,
            self.end.verdict.name(),
            if self.end.complete { "True" } else { "False" },
        )
    }
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
