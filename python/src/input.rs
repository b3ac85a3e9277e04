//! Text from Python: `str` or `bytes`, borrowed without a copy where the
//! interpreter allows it.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::pybacked::{PyBackedBytes, PyBackedStr};
use pyo3::types::{PyByteArray, PyBytes, PyString};

/// The input of one call. A `str` keeps its Python object, so a valid input
/// can be handed back as it came (no copy of the text).
pub(crate) enum Input {
    Str(Py<PyString>, PyBackedStr),
    Bytes(PyBackedBytes),
}

impl Input {
    /// `obj` as input; `what` names the parameter in the `TypeError`.
    pub(crate) fn extract(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Input> {
        if let Ok(text) = obj.cast::<PyString>() {
            return Ok(Input::Str(text.clone().unbind(), text.clone().try_into()?));
        }
        if obj.is_instance_of::<PyBytes>() || obj.is_instance_of::<PyByteArray>() {
            return Ok(Input::Bytes(obj.extract()?));
        }
        Err(PyTypeError::new_err(format!(
            "{what} must be str or bytes, not {}",
            obj.get_type().name()?
        )))
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            Input::Str(_, text) => text.as_bytes(),
            Input::Bytes(bytes) => bytes,
        }
    }

    /// The input as `str`: the object itself for a `str`, decoded for `bytes`.
    pub(crate) fn to_str<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        match self {
            Input::Str(text, _) => text.bind(py).clone(),
            Input::Bytes(bytes) => PyString::new(py, &String::from_utf8_lossy(bytes)),
        }
    }

    /// The input as UTF-8 text, with invalid bytes replaced (U+FFFD), for the
    /// tool layer, which takes `&str`.
    pub(crate) fn text(&self) -> std::borrow::Cow<'_, str> {
        match self {
            Input::Str(_, text) => std::borrow::Cow::Borrowed(text),
            Input::Bytes(bytes) => String::from_utf8_lossy(bytes),
        }
    }
}
