//! `argmend.Repairer`: one stream of chunks in, committed text out.

use std::sync::{Mutex, TryLockError};

use argmend::{Hints, Values};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::input::Input;
use crate::outcome::{Mended, Outcome, doubts, fixes};
use crate::{json_loads, limit_error, maybe_detached, options, schema_value};

/// A streaming repair: feed chunks as they arrive.
///
/// `feed(chunk)` returns the text newly committed by that chunk (committed
/// text never changes afterwards, so a UI can print it at once);
/// `snapshot()` is valid JSON of everything so far, after every chunk;
/// `finish()` closes what is open and returns the :class:`Outcome`. The
/// concatenated `feed` results are a prefix of the final text, and the final
/// text is the same however the input was cut. Chunks may be `str` or `bytes`,
/// and bytes may split a UTF-8 character.
///
/// One `Repairer` is one stream, fed from one thread at a time: a call made
/// while another thread is inside `feed` raises `RuntimeError` rather than
/// interleave two streams' bytes. Separate repairers are independent.
///
/// >>> import argmend
/// >>> r = argmend.Repairer()
/// >>> r.feed('{"path": "a.py", "content": "print(1)')
/// '{"path": "a.py", "content": "print(1)'
/// >>> r.snapshot()
/// '{"path": "a.py", "content": "print(1)"}'
/// >>> r.feed('\\n", append: True,')
/// '\\n", "append": true'
/// >>> r.finish().text
/// '{"path": "a.py", "content": "print(1)\\n", "append": true}'
#[pyclass(module = "argmend", frozen)]
pub(crate) struct Repairer {
    inner: Mutex<Option<argmend::Repairer>>,
}

#[pymethods]
impl Repairer {
    /// `max_depth`: deeper nesting raises `argmend.Error` (default 512).
    /// `values`: what to do with several top-level values: `"first"` (the
    /// rest is dropped, the default), `"lines"` (one per line, NDJSON) or
    /// `"array"` (all in one array). `max_input_bytes`: more input raises
    /// `argmend.Error`. `schema` (a JSON Schema dict or pydantic model) or
    /// `fields` (key names): the keys objects may have, so a string with
    /// unescaped quotes is not ended at a `, "name":` that names none of them.
    #[new]
    #[pyo3(signature = (*, max_depth = 512, values = "first", max_input_bytes = None, schema = None, fields = None))]
    fn new(
        max_depth: usize,
        values: &str,
        max_input_bytes: Option<usize>,
        schema: Option<&Bound<'_, PyAny>>,
        fields: Option<Vec<String>>,
    ) -> PyResult<Self> {
        let values = match values {
            "first" => Values::First,
            "lines" => Values::Lines,
            "array" => Values::Array,
            other => {
                return Err(PyValueError::new_err(format!(
                    "values must be \"first\", \"lines\" or \"array\", not {other:?}"
                )));
            }
        };
        let options = options(max_depth, max_input_bytes, values);
        let hints = match (schema.filter(|schema| !schema.is_none()), fields) {
            (Some(schema), _) => Hints::from_schema(&schema_value(schema)?),
            (None, Some(fields)) => Hints::from_fields(fields),
            (None, None) => Hints::default(),
        };
        Ok(Repairer {
            inner: Mutex::new(Some(argmend::Repairer::with_hints(options, hints))),
        })
    }

    /// Feed the next chunk (`str` or `bytes`); returns the newly committed text.
    fn feed<'py>(
        &self,
        py: Python<'py>,
        chunk: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyString>> {
        let input = Input::extract(chunk, "chunk")?;
        self.with(|repairer| {
            let bytes = input.bytes();
            let committed =
                maybe_detached(py, bytes.len(), || repairer.feed(bytes).map(str::to_owned));
            committed
                .map(|text| PyString::new(py, &text))
                .map_err(|error| limit_error(&error))
        })
    }

    /// Valid JSON of everything fed so far (`""` before a value has started).
    fn snapshot(&self) -> PyResult<String> {
        self.with(|repairer| Ok(repairer.snapshot().to_string()))
    }

    /// The snapshot parsed with `json.loads`; `None` before a value has started.
    fn snapshot_value<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let snapshot = self.snapshot()?;
        if snapshot.is_empty() {
            return Ok(py.None().into_bound(py));
        }
        json_loads(py)?.call1((snapshot,))
    }

    /// The number of input bytes fed so far.
    #[getter]
    fn bytes_fed(&self) -> PyResult<usize> {
        self.with(|repairer| Ok(repairer.bytes_fed()))
    }

    /// End the input: close what is open and return the :class:`Outcome`.
    /// The repairer is spent afterwards.
    fn finish(&self, py: Python<'_>) -> PyResult<Outcome> {
        let repairer = self.lock()?.take().ok_or_else(finished)?;
        let outcome = repairer.finish().map_err(|error| limit_error(&error))?;
        let text = PyString::new(py, outcome.text());
        let mended = Mended {
            verdict: outcome.verdict(),
            fixes: fixes(&outcome),
            doubts: doubts(outcome.doubts()),
            reason: outcome.reason().map(str::to_owned),
            text: outcome.into_text(),
        };
        Ok(Outcome::new(text, mended))
    }

    fn __repr__(&self) -> String {
        match self.inner.try_lock() {
            Ok(guard) => match guard.as_ref() {
                Some(repairer) => format!("Repairer(bytes_fed={})", repairer.bytes_fed()),
                None => "Repairer(finished)".to_owned(),
            },
            Err(_) => "Repairer(busy)".to_owned(),
        }
    }
}

impl Repairer {
    fn lock(&self) -> PyResult<std::sync::MutexGuard<'_, Option<argmend::Repairer>>> {
        match self.inner.try_lock() {
            Ok(guard) => Ok(guard),
            // A panic inside the engine (a bug) may have left it half-way
            // through a chunk: refuse rather than go on from that state.
            Err(TryLockError::Poisoned(_)) => Err(PyRuntimeError::new_err(
                "this Repairer failed on an earlier call (an internal error); start a new one",
            )),
            Err(TryLockError::WouldBlock) => Err(PyRuntimeError::new_err(
                "this Repairer is being fed by another thread; a Repairer is one stream, used from one thread at a time",
            )),
        }
    }

    fn with<T>(&self, work: impl FnOnce(&mut argmend::Repairer) -> PyResult<T>) -> PyResult<T> {
        let mut guard = self.lock()?;
        let repairer = guard.as_mut().ok_or_else(finished)?;
        work(repairer)
    }
}

fn finished() -> PyErr {
    PyRuntimeError::new_err("this Repairer has finished; start a new one for the next stream")
}
