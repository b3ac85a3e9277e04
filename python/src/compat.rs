//! json_repair's API (`repair_json`, `loads`, `load`, `from_file`) on
//! argmend's engine, so `import argmend as json_repair` works.
//!
//! The signatures and return shapes are json_repair's. What differs, and why,
//! is in the README's Python section: the text keeps the input's layout (it
//! is not re-serialized by `json.dumps` unless `json.dumps` arguments are
//! passed), and string contents are kept as written, code included.

use argmend::{Options, ToolOptions, Verdict};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

use crate::input::Input;
use crate::outcome::{Fix, Mended, doubts};
use crate::{json_dumps, json_loads, maybe_detached, schema_value};

/// The checks json_repair makes on its arguments, with its messages.
fn check_modes(
    strict: bool,
    schema: Option<&Bound<'_, PyAny>>,
    schema_repair_mode: &str,
) -> PyResult<()> {
    if schema_repair_mode != "standard" && schema_repair_mode != "salvage" {
        return Err(PyValueError::new_err(format!(
            "schema_repair_mode must be 'standard' or 'salvage', not {schema_repair_mode:?}"
        )));
    }
    if schema.is_none() && schema_repair_mode == "salvage" {
        return Err(PyValueError::new_err(
            "schema_repair_mode='salvage' requires schema.",
        ));
    }
    if schema.is_some() && strict {
        return Err(PyValueError::new_err(
            "schema and strict cannot be used together.",
        ));
    }
    Ok(())
}

/// Repair `input`, with the schema guiding it when one is given.
fn mend<'i>(
    py: Python<'_>,
    input: &'i Input,
    schema: Option<&Bound<'_, PyAny>>,
) -> PyResult<Mended<'i>> {
    if let Some(schema) = schema {
        let options = ToolOptions::default().schema(schema_value(schema)?);
        let text = input.text();
        let normalized = maybe_detached(py, text.len(), || {
            argmend::normalize_tool_args_with("", &text, &options)
        });
        return Ok(Mended {
            verdict: normalized.verdict(),
            fixes: normalized.fixes().iter().map(Fix::tool).collect(),
            doubts: doubts(normalized.doubts()),
            reason: normalized.reason().map(str::to_owned),
            text: std::borrow::Cow::Owned(normalized.into_text()),
        });
    }
    Mended::repair(py, input, Options::default())
}

/// json_repair's `strict=True`: problems are errors instead of repairs.
fn refuse_unless_valid(mended: &Mended<'_>) -> PyResult<()> {
    if mended.verdict == Verdict::Valid {
        return Ok(());
    }
    let listed: Vec<String> = mended
        .fixes
        .iter()
        .take(5)
        .map(|fix| format!("{} at byte {}", fix.kind, fix.offset))
        .collect();
    let more = mended.fixes.len().saturating_sub(listed.len());
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    Err(PyValueError::new_err(match mended.verdict {
        Verdict::NotJson => "strict mode: no JSON value found in the input".to_owned(),
        _ => format!(
            "strict mode: the input is not valid JSON: {}{more}",
            listed.join(", ")
        ),
    }))
}

/// The repair log json_repair's `logging=True` returns: one dict per fix,
/// with json_repair's keys (`text`, `context`) and argmend's (`kind`, `offset`).
fn log<'py>(py: Python<'py>, input: &Input, fixes: &[Fix]) -> PyResult<Bound<'py, PyList>> {
    let bytes = input.bytes();
    let entries = PyList::empty(py);
    for fix in fixes {
        let entry = PyDict::new(py);
        entry.set_item("text", fix.kind.replace('_', " "))?;
        entry.set_item("context", context(bytes, fix.offset))?;
        entry.set_item("kind", fix.kind)?;
        entry.set_item("offset", fix.offset)?;
        entries.append(entry)?;
    }
    Ok(entries)
}

/// Up to 10 bytes either side of `offset`, widened to whole characters.
fn context(bytes: &[u8], offset: usize) -> String {
    let offset = offset.min(bytes.len());
    let mut start = offset.saturating_sub(10);
    let mut end = (offset + 10).min(bytes.len());
    while start > 0 && bytes.get(start).is_some_and(|b| b & 0xC0 == 0x80) {
        start -= 1;
    }
    while end < bytes.len() && bytes.get(end).is_some_and(|b| b & 0xC0 == 0x80) {
        end += 1;
    }
    String::from_utf8_lossy(bytes.get(start..end).unwrap_or_default()).into_owned()
}

/// `text` with every non-ASCII character as a `\uXXXX` escape (a surrogate
/// pair above U+FFFF), as `json.dumps(ensure_ascii=True)` writes it. In valid
/// JSON, non-ASCII characters only occur inside strings, so this is safe.
fn escape_non_ascii(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    let mut units = [0u16; 2];
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
            continue;
        }
        for unit in c.encode_utf16(&mut units) {
            out.push_str(&format!("\\u{unit:04x}"));
        }
    }
    out
}

/// Shape `mended` the way json_repair's arguments ask.
fn shape<'py>(
    py: Python<'py>,
    input: &Input,
    mended: Mended<'_>,
    return_objects: bool,
    logging: bool,
    dumps_args: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    // json_repair returns "" (in every mode) when it found nothing to parse.
    let value = || -> PyResult<Bound<'py, PyAny>> {
        if mended.verdict == Verdict::NotJson {
            Ok(PyString::new(py, "").into_any())
        } else {
            json_loads(py)?.call1((mended.to_py(py, input),))
        }
    };
    if logging {
        let entries = log(py, input, &mended.fixes)?;
        return Ok(PyTuple::new(py, [value()?, entries.into_any()])?.into_any());
    }
    if return_objects {
        return value();
    }
    if mended.verdict == Verdict::NotJson {
        return Ok(PyString::new(py, "").into_any());
    }
    let mut ensure_ascii = true;
    let rest = PyDict::new(py);
    if let Some(args) = dumps_args {
        for (key, item) in args.iter() {
            if key
                .extract::<String>()
                .is_ok_and(|key| key == "ensure_ascii")
            {
                ensure_ascii = item.is_truthy()?;
            } else {
                rest.set_item(key, item)?;
            }
        }
    }
    if !rest.is_empty() {
        // Layout asked for (indent, separators, sort_keys…): json.dumps decides it.
        rest.set_item("ensure_ascii", ensure_ascii)?;
        return json_dumps(py)?.call((value()?,), Some(&rest));
    }
    if ensure_ascii && !mended.text.is_ascii() {
        return Ok(PyString::new(py, &escape_non_ascii(&mended.text)).into_any());
    }
    Ok(mended.to_py(py, input).into_any())
}

/// Read a file-like object's whole content (`str` or `bytes`).
fn read_fd(fd: &Bound<'_, PyAny>) -> PyResult<Input> {
    let content = fd.call_method0("read")?;
    Input::extract(&content, "json_fd.read()")
}

/// Repair a JSON string, with json_repair's signature and return shapes.
///
/// Returns the repaired JSON text; with `return_objects=True` the parsed
/// value; with `logging=True` a tuple `(value, log)` where each log entry is
/// a dict with `text`, `context`, `kind` and `offset`. When nothing JSON-like
/// is found it returns `""`, as json_repair does. `ensure_ascii` (default
/// `True`) escapes non-ASCII characters; other keyword arguments go to
/// `json.dumps`, which then writes the text. `schema` (a dict, a bool or a
/// pydantic model) guides the repair; `strict=True` raises `ValueError` for
/// input that is not valid JSON. `skip_json_loads`, `chunk_length` and
/// `stream_stable` are accepted and change nothing: argmend checks validity on
/// its own fast path, and its answer for a prefix of a stream is already
/// stable.
///
/// >>> import argmend
/// >>> argmend.repair_json("{'a': 1, b: [1, 2,], 'c': None}")
/// '{"a": 1, "b": [1, 2], "c": null}'
/// >>> argmend.repair_json("{'name': 'José'}", ensure_ascii=False)
/// '{"name": "José"}'
/// >>> argmend.repair_json("[1, 2", return_objects=True)
/// [1, 2]
#[pyfunction]
#[pyo3(signature = (
    json_str = None,
    return_objects = false,
    skip_json_loads = false,
    logging = false,
    json_fd = None,
    chunk_length = 0,
    stream_stable = false,
    strict = false,
    schema = None,
    schema_repair_mode = "standard",
    **json_dumps_args
), text_signature = "(json_str='', return_objects=False, skip_json_loads=False, logging=False, json_fd=None, chunk_length=0, stream_stable=False, strict=False, schema=None, schema_repair_mode='standard', **json_dumps_args)")]
#[allow(clippy::too_many_arguments)]
pub(crate) fn repair_json<'py>(
    py: Python<'py>,
    json_str: Option<&Bound<'py, PyAny>>,
    return_objects: bool,
    skip_json_loads: bool,
    logging: bool,
    json_fd: Option<&Bound<'py, PyAny>>,
    chunk_length: i64,
    stream_stable: bool,
    strict: bool,
    schema: Option<&Bound<'py, PyAny>>,
    schema_repair_mode: &str,
    json_dumps_args: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    // Accepted for json_repair's signature; see the docstring.
    let _ = (skip_json_loads, chunk_length, stream_stable);
    let schema = schema.filter(|schema| !schema.is_none());
    check_modes(strict, schema, schema_repair_mode)?;
    let input = match (json_fd.filter(|fd| !fd.is_none()), json_str) {
        (Some(fd), _) => read_fd(fd)?,
        (None, Some(text)) => Input::extract(text, "json_str")?,
        (None, None) => Input::extract(PyString::new(py, "").as_any(), "json_str")?,
    };
    let how = Shape {
        objects: return_objects,
        logging,
        dumps_args: json_dumps_args,
    };
    answer(py, input, how, strict, schema, schema_repair_mode)
}

/// How an answer is handed back: objects or JSON text, with the repair log
/// or without, and `json.dumps` arguments for the text.
struct Shape<'a, 'py> {
    objects: bool,
    logging: bool,
    dumps_args: Option<&'a Bound<'py, PyDict>>,
}

/// Like `json.loads`, but the text is repaired first (json_repair's `loads`).
///
/// Big integers stay exact Python ints. Returns `""` when nothing JSON-like
/// is found; with `logging=True`, a tuple `(value, log)`.
///
/// >>> import argmend
/// >>> argmend.loads("{id: 18446744073709551617, ok: True,}")
/// {'id': 18446744073709551617, 'ok': True}
#[pyfunction]
#[pyo3(signature = (
    json_str,
    skip_json_loads = false,
    logging = false,
    stream_stable = false,
    strict = false,
    schema = None,
    schema_repair_mode = "standard"
))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn loads<'py>(
    py: Python<'py>,
    json_str: &Bound<'py, PyAny>,
    skip_json_loads: bool,
    logging: bool,
    stream_stable: bool,
    strict: bool,
    schema: Option<&Bound<'py, PyAny>>,
    schema_repair_mode: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let _ = (skip_json_loads, stream_stable);
    let input = Input::extract(json_str, "json_str")?;
    objects(py, input, logging, strict, schema, schema_repair_mode)
}

fn objects<'py>(
    py: Python<'py>,
    input: Input,
    logging: bool,
    strict: bool,
    schema: Option<&Bound<'py, PyAny>>,
    schema_repair_mode: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let how = Shape {
        objects: true,
        logging,
        dumps_args: None,
    };
    answer(py, input, how, strict, schema, schema_repair_mode)
}

/// Mend `input` (with the schema, refused when `strict` and it was not
/// valid) and hand it back as `how` says: the one path of every function.
fn answer<'py>(
    py: Python<'py>,
    input: Input,
    how: Shape<'_, 'py>,
    strict: bool,
    schema: Option<&Bound<'py, PyAny>>,
    schema_repair_mode: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let schema = schema.filter(|schema| !schema.is_none());
    check_modes(strict, schema, schema_repair_mode)?;
    let mended = mend(py, &input, schema)?;
    if strict {
        refuse_unless_valid(&mended)?;
    }
    shape(py, &input, mended, how.objects, how.logging, how.dumps_args)
}

/// Like `json.load`: read a file object (text or binary) and repair it.
///
/// >>> import argmend, io
/// >>> argmend.load(io.StringIO("[1, 2,"))
/// [1, 2]
#[pyfunction]
#[pyo3(signature = (
    fd,
    skip_json_loads = false,
    logging = false,
    chunk_length = 0,
    strict = false,
    schema = None,
    schema_repair_mode = "standard"
))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn load<'py>(
    py: Python<'py>,
    fd: &Bound<'py, PyAny>,
    skip_json_loads: bool,
    logging: bool,
    chunk_length: i64,
    strict: bool,
    schema: Option<&Bound<'py, PyAny>>,
    schema_repair_mode: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let _ = (skip_json_loads, chunk_length);
    let input = read_fd(fd)?;
    objects(py, input, logging, strict, schema, schema_repair_mode)
}

/// Read the file at `filename` (a path) and repair it (json_repair's `from_file`).
#[pyfunction]
#[pyo3(signature = (
    filename,
    skip_json_loads = false,
    logging = false,
    chunk_length = 0,
    strict = false,
    schema = None,
    schema_repair_mode = "standard"
))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn from_file<'py>(
    py: Python<'py>,
    filename: std::path::PathBuf,
    skip_json_loads: bool,
    logging: bool,
    chunk_length: i64,
    strict: bool,
    schema: Option<&Bound<'py, PyAny>>,
    schema_repair_mode: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let _ = (skip_json_loads, chunk_length);
    let bytes = py.detach(|| std::fs::read(&filename))?;
    let input = Input::extract(pyo3::types::PyBytes::new(py, &bytes).as_any(), "file")?;
    objects(py, input, logging, strict, schema, schema_repair_mode)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_like_json_dumps() {
        assert_eq!(
            escape_non_ascii(r#"{"a": "é😀"}"#),
            r#"{"a": "\u00e9\ud83d\ude00"}"#
        );
    }

    #[test]
    fn context_stays_on_characters() {
        assert_eq!(context("ééééééééé".as_bytes(), 9), "éééééééé");
        assert_eq!(context(b"abc", 99), "abc");
    }
}
