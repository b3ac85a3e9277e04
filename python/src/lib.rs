//! argmend for Python: the extension module `argmend._argmend`.
//!
//! The Python package `argmend` (in `../argmend/`) re-exports what is here and
//! adds the pydantic-ai capability. Everything that runs per call lives in
//! Rust, including json_repair's `repair_json` signature: a 200-byte call
//! costs about a microsecond, and a Python wrapper around it would double that.
//!
//! Values reach Python through `json.loads` on the repaired text: CPython's own
//! parser is as fast as anything the stable ABI allows, and it keeps big
//! integers exact and duplicate keys as `json` always has.

#![forbid(unsafe_code)]

mod adapters;
mod arrow;
mod call_events;
mod compat;
mod events;
mod input;
mod live;
mod many;
mod outcome;
mod parser;
mod stream;

use argmend::{Options, ToolOptions};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::input::Input;
use crate::outcome::{Doubt, Fix, Normalized, Outcome, Violation};
use crate::stream::Repairer;

pyo3::create_exception!(
    argmend,
    Error,
    PyValueError,
    "A hard limit was crossed: nesting deeper than `max_depth`, or more input than `max_input_bytes`."
);

/// Inputs longer than this are repaired with the GIL released: below it, the
/// release and reacquire cost more than the repair.
pub(crate) const RELEASE_GIL_ABOVE: usize = 4096;

/// `json.loads`, looked up once.
pub(crate) fn json_loads(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    static LOADS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    json_function(py, &LOADS, "loads")
}

/// `json.dumps`, looked up once.
pub(crate) fn json_dumps(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    static DUMPS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    json_function(py, &DUMPS, "dumps")
}

/// The function `name` of Python's `json` module, kept in `cell`.
fn json_function<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyAny>>,
    name: &str,
) -> PyResult<&'py Bound<'py, PyAny>> {
    Ok(cell
        .get_or_try_init(py, || py.import("json")?.getattr(name).map(Bound::unbind))?
        .bind(py))
}

/// The engine's limit error as `argmend.Error`.
pub(crate) fn limit_error(error: &argmend::Error) -> PyErr {
    Error::new_err(error.to_string())
}

/// Run `work` with the GIL released when the input is big enough to be worth it.
pub(crate) fn maybe_detached<T: Send>(
    py: Python<'_>,
    len: usize,
    work: impl FnOnce() -> T + Send,
) -> T {
    if len > RELEASE_GIL_ABOVE {
        py.detach(work)
    } else {
        work()
    }
}

/// Repair one whole input.
///
/// Takes `str` or `bytes` (bytes need not be valid UTF-8 at the edges of a
/// chunk; here they are the whole input). Returns an :class:`Outcome` with the
/// text, the verdict and the fixes. Raises :class:`argmend.Error` when a limit
/// is crossed and :class:`TypeError` for anything but `str` or `bytes`.
///
/// >>> import argmend
/// >>> outcome = argmend.repair("{name: 'John', tags: ['a', 'b',]}")
/// >>> outcome.text
/// '{"name": "John", "tags": ["a", "b"]}'
/// >>> outcome.verdict
/// 'repaired'
/// >>> [fix.kind for fix in outcome.fixes]
/// ['quoted_key', 'replaced_quotes', 'quoted_key', 'replaced_quotes', 'replaced_quotes', 'removed_comma']
/// >>> outcome.value()
/// {'name': 'John', 'tags': ['a', 'b']}
#[pyfunction]
#[pyo3(signature = (s, *, max_depth = 512, max_input_bytes = None))]
fn repair(
    py: Python<'_>,
    s: &Bound<'_, PyAny>,
    max_depth: usize,
    max_input_bytes: Option<usize>,
) -> PyResult<Outcome> {
    let input = Input::extract(s, "s")?;
    let options = options(max_depth, max_input_bytes, argmend::Values::First);
    Outcome::repair(py, &input, options)
}

pub(crate) fn options(
    max_depth: usize,
    max_input_bytes: Option<usize>,
    values: argmend::Values,
) -> Options {
    let options = Options::default().max_depth(max_depth).values(values);
    match max_input_bytes {
        Some(n) => options.max_input_bytes(n),
        None => options,
    }
}

/// Normalize the raw arguments of one call to `tool`.
///
/// The tool's name (from argmend's built-in table: `read_file`, `write_file`,
/// `Bash`, `str_replace_editor`, …) and its JSON Schema, when given, say which
/// field a bare value belongs to, which keys the object may have (so code with
/// unescaped quotes in a declared string field stays whole) and which types to
/// coerce to. Nothing is invented: defaults are left to the tool.
///
/// >>> import argmend
/// >>> argmend.normalize_tool_args("read_file", "main.go").json
/// '{"file":"main.go"}'
/// >>> schema = {"type": "object", "properties": {"paths": {"type": "array", "items": {"type": "string"}}}}
/// >>> n = argmend.normalize_tool_args("read_many", '{"paths": "a.py"}', schema)
/// >>> n.json, n.verdict, [fix.kind for fix in n.fixes]
/// ('{"paths": ["a.py"]}', 'repaired', ['wrapped_in_array'])
#[pyfunction]
#[pyo3(signature = (tool, raw, schema = None, *, drop_unknown_keys = false))]
fn normalize_tool_args(
    py: Python<'_>,
    tool: &str,
    raw: &Bound<'_, PyAny>,
    schema: Option<&Bound<'_, PyAny>>,
    drop_unknown_keys: bool,
) -> PyResult<Normalized> {
    let options = tool_options(schema, drop_unknown_keys)?;
    let input = Input::extract(raw, "raw")?;
    Normalized::run(py, tool, &input, &options)
}

/// A tool whose schema was read once: `Tool(name, schema).normalize(raw)` is
/// `normalize_tool_args(name, raw, schema)` without converting the schema on
/// every call. The pydantic-ai capability keeps one per tool.
///
/// >>> import argmend
/// >>> tool = argmend.Tool("write_file", {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}})
/// >>> tool.normalize('{"path": "a.py", "content": "print("hi")"}').value()
/// {'path': 'a.py', 'content': 'print("hi")'}
#[pyclass(module = "argmend", frozen)]
pub(crate) struct Tool {
    pub(crate) name: String,
    pub(crate) options: ToolOptions,
}

#[pymethods]
impl Tool {
    #[new]
    #[pyo3(signature = (name, schema = None, *, drop_unknown_keys = false))]
    fn new(
        name: String,
        schema: Option<&Bound<'_, PyAny>>,
        drop_unknown_keys: bool,
    ) -> PyResult<Self> {
        Ok(Tool {
            name,
            options: tool_options(schema, drop_unknown_keys)?,
        })
    }

    /// Normalize one call's raw arguments (see :func:`normalize_tool_args`).
    fn normalize(&self, py: Python<'_>, raw: &Bound<'_, PyAny>) -> PyResult<Normalized> {
        let input = Input::extract(raw, "raw")?;
        Normalized::run(py, &self.name, &input, &self.options)
    }

    /// The tool's name.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    fn __repr__(&self) -> String {
        let schema = if self.options.json_schema().is_some() {
            ", schema=…"
        } else {
            ""
        };
        format!("Tool({:?}{schema})", self.name)
    }
}

pub(crate) fn tool_options(
    schema: Option<&Bound<'_, PyAny>>,
    drop_unknown_keys: bool,
) -> PyResult<ToolOptions> {
    let mut options = ToolOptions::default();
    if let Some(schema) = schema.filter(|schema| !schema.is_none()) {
        options = options.schema(schema_value(schema)?);
    }
    if drop_unknown_keys {
        options = options.mode(argmend::SchemaMode::Strict);
    }
    Ok(options)
}

/// A JSON Schema given as a dict, a bool, JSON text, or a pydantic model class
/// (its `model_json_schema()`), as a `serde_json::Value`.
pub(crate) fn schema_value(schema: &Bound<'_, PyAny>) -> PyResult<serde_json::Value> {
    if let Ok(text) = schema.cast::<PyString>() {
        return serde_json::from_str(&text.to_cow()?)
            .map_err(|error| PyValueError::new_err(format!("schema is not JSON: {error}")));
    }
    let schema = if schema.hasattr("model_json_schema")? {
        schema.call_method0("model_json_schema")?
    } else {
        schema.clone()
    };
    if !(schema.is_instance_of::<PyDict>() || schema.is_instance_of::<PyBool>()) {
        return Err(PyTypeError::new_err(format!(
            "schema must be a dict, a bool, JSON text or a pydantic model, not {}",
            schema.get_type().name()?
        )));
    }
    python_json(&schema, "schema")
}

/// The deepest nesting of arrays and objects a schema (or a tools list, or an
/// SDK event) given as Python objects may have: the engine's default
/// `max_depth`. Deeper is `argmend.Error`.
const MAX_SCHEMA_NESTING: usize = 512;

/// A dict or list of JSON values as a `serde_json::Value`, converted as
/// `json.dumps` would (keys that are numbers, bools or `None` become their
/// JSON text; tuples are arrays) but without recursion, so that a deep schema
/// is `argmend.Error` past `MAX_SCHEMA_NESTING`, never `RecursionError` from
/// `json.dumps` nor `serde_json`'s limit of 128 (issue 27). `what` names the
/// value in errors (`"schema"`, `"tools"`, `"event"`).
pub(crate) fn python_json(root: &Bound<'_, PyAny>, what: &str) -> PyResult<serde_json::Value> {
    use serde_json::Value;
    /// An open array or object, its children still to convert, and the key
    /// of the child being converted.
    struct Frame<'py> {
        open: Value,
        rest: std::vec::IntoIter<(String, Bound<'py, PyAny>)>,
        key: String,
    }
    let mut stack: Vec<Frame<'_>> = Vec::new();
    let mut item = root.clone();
    loop {
        let open = if let Ok(dict) = item.cast::<PyDict>() {
            let mut members = Vec::with_capacity(dict.len());
            for (key, value) in dict.iter() {
                members.push((json_key(&key, what)?, value));
            }
            Some((Value::Object(serde_json::Map::new()), members))
        } else if item.is_instance_of::<PyList>() || item.is_instance_of::<PyTuple>() {
            let items = item.try_iter()?.map(|value| Ok((String::new(), value?)));
            Some((Value::Array(Vec::new()), items.collect::<PyResult<_>>()?))
        } else {
            None
        };
        let mut done = match open {
            None => Some(json_scalar(&item, what)?),
            Some((open, rest)) => {
                if stack.len() == MAX_SCHEMA_NESTING {
                    return Err(Error::new_err(format!(
                        "the {what} nests deeper than {MAX_SCHEMA_NESTING} levels of arrays and objects"
                    )));
                }
                stack.push(Frame {
                    open,
                    rest: rest.into_iter(),
                    key: String::new(),
                });
                None
            }
        };
        // Put the finished value in its parent; close each parent that has
        // no children left, and go on with the next child.
        loop {
            let Some(frame) = stack.last_mut() else {
                return done.ok_or_else(|| PyValueError::new_err(format!("{what} is not JSON")));
            };
            match (done.take(), &mut frame.open) {
                (Some(value), Value::Array(items)) => items.push(value),
                (Some(value), Value::Object(members)) => {
                    members.insert(std::mem::take(&mut frame.key), value);
                }
                _ => {}
            }
            if let Some((key, child)) = frame.rest.next() {
                frame.key = key;
                item = child;
                break;
            }
            done = stack.pop().map(|frame| frame.open);
        }
    }
}

/// A dict key as `json.dumps` writes it.
fn json_key(key: &Bound<'_, PyAny>, what: &str) -> PyResult<String> {
    if let Ok(text) = key.cast::<PyString>() {
        return Ok(text.to_cow()?.into_owned());
    }
    if key.is_none()
        || key.is_instance_of::<PyBool>()
        || key.is_instance_of::<PyInt>()
        || key.is_instance_of::<PyFloat>()
    {
        let text = json_dumps(key.py())?.call1((key,))?;
        return Ok(text.cast::<PyString>()?.to_cow()?.into_owned());
    }
    Err(PyTypeError::new_err(format!(
        "{what} keys must be str, int, float, bool or None, not {}",
        key.get_type().name()?
    )))
}

/// A value that is neither an array nor an object.
fn json_scalar(item: &Bound<'_, PyAny>, what: &str) -> PyResult<serde_json::Value> {
    use serde_json::Value;
    if let Ok(text) = item.cast::<PyString>() {
        return Ok(Value::String(text.to_cow()?.into_owned()));
    }
    if item.is_none() {
        return Ok(Value::Null);
    }
    if item.is_instance_of::<PyBool>() {
        return Ok(Value::Bool(item.is_truthy()?));
    }
    if item.is_instance_of::<PyInt>() {
        if let Ok(n) = item.extract::<i64>() {
            return Ok(n.into());
        }
        if let Ok(n) = item.extract::<u64>() {
            return Ok(n.into());
        }
    }
    if item.is_instance_of::<PyInt>() || item.is_instance_of::<PyFloat>() {
        return serde_json::Number::from_f64(item.extract::<f64>()?)
            .map(Value::Number)
            .ok_or_else(|| PyValueError::new_err(format!("{what} is not JSON: NaN or infinity")));
    }
    Err(PyTypeError::new_err(format!(
        "{what} is not JSON: object of type {} is not JSON serializable",
        item.get_type().name()?
    )))
}

/// Streaming repair of broken JSON in LLM tool-call arguments.
#[pymodule]
fn _argmend(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // The package's version (python/Cargo.toml, the same as pyproject.toml's).
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("Error", m.py().get_type::<Error>())?;
    m.add_function(wrap_pyfunction!(repair, m)?)?;
    m.add_function(wrap_pyfunction!(normalize_tool_args, m)?)?;
    m.add_function(wrap_pyfunction!(many::repair_many, m)?)?;
    m.add_function(wrap_pyfunction!(many::normalize_many, m)?)?;
    m.add_function(wrap_pyfunction!(arrow::repair_arrow_buffers, m)?)?;
    m.add_function(wrap_pyfunction!(compat::repair_json, m)?)?;
    m.add_function(wrap_pyfunction!(compat::loads, m)?)?;
    m.add_function(wrap_pyfunction!(compat::load, m)?)?;
    m.add_function(wrap_pyfunction!(compat::from_file, m)?)?;
    m.add_class::<Outcome>()?;
    m.add_class::<Fix>()?;
    m.add_class::<Doubt>()?;
    m.add_class::<Normalized>()?;
    m.add_class::<Violation>()?;
    m.add_class::<Repairer>()?;
    m.add_class::<Tool>()?;
    m.add_class::<live::ToolCallStream>()?;
    m.add_class::<call_events::ArgsUpdate>()?;
    m.add_class::<call_events::FieldEvent>()?;
    m.add_class::<call_events::CallEnd>()?;
    m.add_class::<parser::CallParser>()?;
    adapters::register(m)?;
    Ok(())
}
