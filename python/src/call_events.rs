//! What a `ToolCallStream` (`live.rs`) hands back: `ArgsUpdate`,
//! `FieldEvent` and `CallEnd`, which the SDK adapters (`adapters.rs`) hand
//! back too.

use argmend::Verdict;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyString};

use crate::live::{text_to_py, value_to_py};
use crate::outcome::{Doubt, Fix, doubts};

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
/// >>> event = call.feed('py"}').events[-1]
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
    pub(crate) committed: Py<PyString>,
    pub(crate) events: Vec<Py<FieldEvent>>,
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
/// arguments when they are not JSON), `verdict`, `strategy` (1 to 7) and
/// `strategy_name`, `fixes`,
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

    /// Which of the seven strategies the arguments needed, 1 to 7 (see
    /// :attr:`Normalized.strategy`); `None` when the verdict is `"not_json"`.
    #[getter]
    fn strategy(&self) -> Option<u8> {
        self.end.strategy.map(argmend::Strategy::number)
    }

    /// The same strategy by name (`"strict_parse"`, …); `None` when the
    /// verdict is `"not_json"`.
    #[getter]
    fn strategy_name(&self) -> Option<&'static str> {
        self.end.strategy.map(argmend::Strategy::name)
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
        dict.set_item("strategy_name", self.strategy_name())?;
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
