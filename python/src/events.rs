//! The events the SDK adapters (`adapters.rs`) hand back: `CallStarted`,
//! `Field`, `CallDone` and `Skipped`, in `argmend.adapters`. `CallStarted`
//! and `Field` keep a handle on their adapter's [`Core`], so their `value`
//! is read from it when asked.

use std::sync::Arc;

use argmend::ClientEvent;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::Value;

/// Where an event reads its call's value when asked: an SDK adapter's
/// state, or a `CallParser`'s.
pub(crate) trait Live: Send + Sync {
    /// The call's value now: its arguments so far, or its final ones.
    fn value<'py>(&self, py: Python<'py>, call: usize) -> PyResult<Bound<'py, PyAny>>;
}
use crate::call_events::{CallEnd, FieldEvent};
use crate::live::value_to_py;

/// A tool call began: `call` (its number in this stream: 0, 1, …), `id` (the
/// model's id for it, when the format gives one) and `name` (the tool's).
/// `value` is the call's value as of the latest event pushed to the adapter
/// (read from it when asked).
#[pyclass(module = "argmend.adapters", frozen)]
pub(crate) struct CallStarted {
    pub(crate) core: Arc<dyn Live>,
    #[pyo3(get)]
    pub(crate) call: usize,
    #[pyo3(get)]
    pub(crate) id: Option<String>,
    #[pyo3(get)]
    pub(crate) name: String,
}

#[pymethods]
impl CallStarted {
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str) {
        ("call", "id", "name")
    }

    /// The call's value as of the latest event pushed to the adapter: the
    /// snapshot of its arguments (`None` before they start), or its final
    /// arguments once it has ended.
    #[getter]
    fn value<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.core.value(py, self.call)
    }

    /// `{"event": "call_started", "call", "id", "name"}`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("event", "call_started")?;
        dict.set_item("call", self.call)?;
        dict.set_item("id", &self.id)?;
        dict.set_item("name", &self.name)?;
        Ok(dict)
    }

    fn __repr__(&self) -> String {
        format!(
            "CallStarted(call={}, id={}, name={:?})",
            self.call,
            py_repr(self.id.as_deref()),
            self.name
        )
    }
}

/// A field event of a call's arguments: `event` is the
/// :class:`argmend.FieldEvent` (`kind`, `path`, `text`, `value`), for the
/// call numbered `call` (`id`, `name` as in `CallStarted`). `value` is the
/// call's whole value as of the latest event pushed to the adapter (read
/// from it when asked); `event.value` is the one field's final value.
#[pyclass(module = "argmend.adapters", frozen)]
pub(crate) struct Field {
    pub(crate) core: Arc<dyn Live>,
    #[pyo3(get)]
    pub(crate) call: usize,
    #[pyo3(get)]
    pub(crate) id: Option<String>,
    #[pyo3(get)]
    pub(crate) name: String,
    #[pyo3(get)]
    pub(crate) event: Py<FieldEvent>,
}

#[pymethods]
impl Field {
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str, &'static str) {
        ("call", "id", "name", "event")
    }

    /// The call's value as of the latest event pushed to the adapter (see
    /// `CallStarted.value`).
    #[getter]
    fn value<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.core.value(py, self.call)
    }

    /// The field event's dict with `"call"` added: `{"event": "started" |
    /// "delta" | "field_done", "path", …, "call"}`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut json = self.event.get().event().to_json();
        if let Some(object) = json.as_object_mut() {
            object.insert("call".to_owned(), Value::from(self.call));
        }
        value_to_py(py, &json)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Field(call={}, event={})",
            self.call,
            self.event.bind(py).repr()?.to_cow()?
        ))
    }
}

/// A call ended: `end` is its :class:`argmend.CallEnd` (`args`, `complete`,
/// `cut`, `verdict`, `fixes`, `doubts`, …), for the call numbered `call`
/// (`id`, `name` as in `CallStarted`). `value` is `end.args`.
#[pyclass(module = "argmend.adapters", frozen)]
pub(crate) struct CallDone {
    #[pyo3(get)]
    pub(crate) call: usize,
    #[pyo3(get)]
    pub(crate) id: Option<String>,
    #[pyo3(get)]
    pub(crate) name: String,
    #[pyo3(get)]
    pub(crate) end: Py<CallEnd>,
}

#[pymethods]
impl CallDone {
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str, &'static str) {
        ("call", "id", "name", "end")
    }

    /// The call's final arguments: `end.args`.
    #[getter]
    fn value(&self, py: Python<'_>) -> Py<PyAny> {
        self.end.get().args_ref(py)
    }

    /// `{"event": "call_done", "call", "id", "name", "args", "verdict",
    /// "complete", "fixes"}`, with `"cut"` when the stream cut the call short
    /// and `"doubt"` when the arguments carry a doubt.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let event = ClientEvent::CallDone {
            call: self.call,
            id: self.id.clone(),
            end: self.end.get().end().clone(),
        };
        let dict = value_to_py(py, &event.to_json())?;
        // The arguments as `args` has them (big integers exact).
        dict.set_item("args", self.end.get().args_ref(py))?;
        Ok(dict)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "CallDone(call={}, id={}, end={})",
            self.call,
            py_repr(self.id.as_deref()),
            self.end.bind(py).repr()?.to_cow()?
        ))
    }
}

/// The stream carried something argmend does not handle as a call, reported
/// once so that nothing is dropped in silence: a block or item of another
/// kind (`kind` is its type: `server_tool_use`, `mcp_tool_use`,
/// `custom_tool_call`, `web_search_call`, a Chat `custom` call, …; these the
/// API runs itself, or they are not JSON), or argument text for a call that
/// had already ended (`kind == "arguments_after_end"`: the call's reported
/// arguments may lack it). `id` and `name` are the block's or item's, when
/// it has them.
#[pyclass(module = "argmend.adapters", frozen)]
pub(crate) struct Skipped {
    #[pyo3(get)]
    pub(crate) kind: String,
    #[pyo3(get)]
    pub(crate) id: Option<String>,
    #[pyo3(get)]
    pub(crate) name: Option<String>,
}

#[pymethods]
impl Skipped {
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str) {
        ("kind", "id", "name")
    }

    /// `{"event": "skipped", "kind", "id", "name"}`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("event", "skipped")?;
        dict.set_item("kind", &self.kind)?;
        dict.set_item("id", &self.id)?;
        dict.set_item("name", &self.name)?;
        Ok(dict)
    }

    fn __repr__(&self) -> String {
        format!(
            "Skipped(kind={:?}, id={}, name={})",
            self.kind,
            py_repr(self.id.as_deref()),
            py_repr(self.name.as_deref())
        )
    }
}

/// Text outside the calls, as a :class:`argmend.CallParser` found it in the
/// model's output (``text``), to show as it comes.
#[pyclass(module = "argmend.adapters", frozen)]
pub(crate) struct Text {
    #[pyo3(get)]
    pub(crate) text: String,
}

#[pymethods]
impl Text {
    #[classattr]
    fn __match_args__() -> (&'static str,) {
        ("text",)
    }

    /// `{"event": "text", "text"}`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("event", "text")?;
        dict.set_item("text", &self.text)?;
        Ok(dict)
    }

    fn __repr__(&self) -> String {
        format!("Text({:?})", self.text)
    }
}

/// An optional string as Python would show it.
fn py_repr(text: Option<&str>) -> String {
    match text {
        Some(text) => format!("{text:?}"),
        None => "None".to_owned(),
    }
}
