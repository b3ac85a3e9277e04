//! The result objects: `Outcome` (the engine's), `Normalized` (the tool
//! layer's), and the `Fix`, `Doubt` and `Violation` they list.

use std::borrow::Cow;

use argmend::{Options, ToolOptions, Verdict};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

use crate::input::Input;
use crate::{json_loads, limit_error, maybe_detached};

/// One repair: what was done (`kind`, a stable snake_case name such as
/// `"quoted_key"` or `"closed_string"`) and the input byte `offset` where it
/// applied.
#[pyclass(module = "argmend", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct Fix {
    /// The kind of fix, e.g. `"removed_comma"`.
    #[pyo3(get)]
    pub(crate) kind: &'static str,
    /// The absolute byte offset in the input where it applied.
    #[pyo3(get)]
    pub(crate) offset: usize,
    /// Whether it closed what a cut-off input left open (`closed_string`,
    /// `closed_container`, `completed_number`, …).
    #[pyo3(get)]
    pub(crate) truncation: bool,
}

impl Fix {
    pub(crate) fn engine(fix: &argmend::Fix) -> Fix {
        Fix {
            kind: fix.kind.name(),
            offset: fix.offset,
            truncation: fix.kind.is_truncation(),
        }
    }

    pub(crate) fn tool(fix: &argmend::ToolFix) -> Fix {
        let truncation =
            matches!(fix.kind, argmend::ToolFixKind::Repair(kind) if kind.is_truncation());
        Fix {
            kind: fix.kind.name(),
            offset: fix.offset,
            truncation,
        }
    }
}

#[pymethods]
impl Fix {
    fn __repr__(&self) -> String {
        format!("Fix(kind='{}', offset={})", self.kind, self.offset)
    }
}

fn fix_list<'py>(py: Python<'py>, fixes: &[Fix]) -> PyResult<Bound<'py, PyList>> {
    PyList::new(py, fixes.iter().cloned())
}

/// A choice between readings that the input could not settle: what was
/// chosen (`kind`, a stable snake_case name such as `"quote_as_text"` or
/// `"early_close"`), the input byte `offset` where it was made, and a short
/// sentence (`reason`) saying what the other reading was. The verdict does
/// not change because of a doubt; a caller that cannot afford a guess asks
/// the model again.
#[pyclass(module = "argmend", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct Doubt {
    /// The kind of doubt, e.g. `"early_close"`.
    #[pyo3(get)]
    pub(crate) kind: &'static str,
    /// The absolute byte offset in the input where the choice was made.
    #[pyo3(get)]
    pub(crate) offset: usize,
    /// What was chosen and what the other reading was, in a sentence.
    #[pyo3(get)]
    pub(crate) reason: &'static str,
}

impl Doubt {
    pub(crate) fn new(doubt: &argmend::Doubt) -> Doubt {
        Doubt {
            kind: doubt.kind.name(),
            offset: doubt.offset,
            reason: doubt.reason(),
        }
    }
}

#[pymethods]
impl Doubt {
    fn __repr__(&self) -> String {
        format!("Doubt(kind='{}', offset={})", self.kind, self.offset)
    }
}

pub(crate) fn doubts(doubts: &[argmend::Doubt]) -> Vec<Doubt> {
    doubts.iter().map(Doubt::new).collect()
}

fn doubt_list<'py>(py: Python<'py>, doubts: &[Doubt]) -> PyResult<Bound<'py, PyList>> {
    PyList::new(py, doubts.iter().cloned())
}

/// The result of a repair: `.text` (the JSON text), `.verdict`, `.fixes`,
/// `.doubts`.
///
/// The verdict is `"valid"` (the input came back byte for byte),
/// `"repaired"`, `"completed"` (the only fixes closed what a cut-off input left
/// open) or `"not_json"` (nothing JSON-like: the text is empty and `.reason`
/// says why).
#[pyclass(module = "argmend", frozen)]
pub(crate) struct Outcome {
    text: Py<PyString>,
    verdict: &'static str,
    fixes: Vec<Fix>,
    doubts: Vec<Doubt>,
    reason: Option<String>,
}

impl Outcome {
    /// Repair `input` whole; a crossed limit is `argmend.Error`.
    pub(crate) fn repair(py: Python<'_>, input: &Input, options: Options) -> PyResult<Outcome> {
        let mended = Mended::repair(py, input, options)?;
        let text = mended.to_py(py, input);
        Ok(Outcome::new(text, mended))
    }

    /// The outcome of `mended`, whose text is `text` (as a Python `str`).
    pub(crate) fn new(text: Bound<'_, PyString>, mended: Mended<'_>) -> Self {
        Outcome {
            text: text.unbind(),
            verdict: mended.verdict.name(),
            fixes: mended.fixes,
            doubts: mended.doubts,
            reason: mended.reason,
        }
    }
}

/// What one engine run gave, before it becomes a Python object.
pub(crate) struct Mended<'i> {
    /// The text; borrowed when it is the input, byte for byte.
    pub(crate) text: Cow<'i, str>,
    pub(crate) verdict: Verdict,
    pub(crate) fixes: Vec<Fix>,
    pub(crate) doubts: Vec<Doubt>,
    pub(crate) reason: Option<String>,
}

impl<'i> Mended<'i> {
    /// Run the engine over `input` (with the GIL released when it is big).
    pub(crate) fn repair(py: Python<'_>, input: &'i Input, options: Options) -> PyResult<Self> {
        let bytes = input.bytes();
        let result = maybe_detached(py, bytes.len(), || Mended::run(bytes, options));
        result.map_err(|error| limit_error(&error))
    }

    /// Run the engine over `bytes`; no Python here, so batches call it from
    /// worker threads with the GIL released.
    pub(crate) fn run(bytes: &'i [u8], options: Options) -> Result<Self, argmend::Error> {
        argmend::repair_with(bytes, options).map(|outcome| Mended {
            verdict: outcome.verdict(),
            fixes: fixes(&outcome),
            doubts: doubts(outcome.doubts()),
            reason: outcome.reason().map(str::to_owned),
            text: outcome.into_text(),
        })
    }

    /// The same result with no borrow of its input, for a batch's worker
    /// threads, whose results outlive the borrow: the text is owned, or
    /// `None` when it is the input byte for byte.
    pub(crate) fn into_kept(self) -> Kept {
        let text = match self.text {
            Cow::Borrowed(_) => None,
            Cow::Owned(text) => Some(text),
        };
        Kept {
            text,
            mended: Mended {
                text: Cow::Borrowed(""),
                verdict: self.verdict,
                fixes: self.fixes,
                doubts: self.doubts,
                reason: self.reason,
            },
        }
    }

    /// The text as a Python `str`: the input's own object when it came back unchanged.
    pub(crate) fn to_py<'py>(&self, py: Python<'py>, input: &Input) -> Bound<'py, PyString> {
        match &self.text {
            Cow::Borrowed(_) => input.to_str(py),
            Cow::Owned(text) => PyString::new(py, text),
        }
    }
}

/// A [`Mended`] that owns its text (see [`Mended::into_kept`]).
pub(crate) struct Kept {
    /// The repaired text; `None` when it is the input itself.
    text: Option<String>,
    /// The rest of the result (its `text` is empty).
    mended: Mended<'static>,
}

impl Kept {
    /// The Python result for `input`, whose engine result this is.
    pub(crate) fn into_outcome(self, py: Python<'_>, input: &Input) -> Outcome {
        let text = match &self.text {
            None => input.to_str(py),
            Some(text) => PyString::new(py, text),
        };
        Outcome::new(text, self.mended)
    }
}

pub(crate) fn fixes(outcome: &argmend::Outcome<'_>) -> Vec<Fix> {
    outcome.fixes().iter().map(Fix::engine).collect()
}

#[pymethods]
impl Outcome {
    /// The repaired JSON text (empty when the verdict is `"not_json"`).
    #[getter]
    fn text(&self, py: Python<'_>) -> Py<PyString> {
        self.text.clone_ref(py)
    }

    /// `"valid"`, `"repaired"`, `"completed"` or `"not_json"`.
    #[getter]
    fn verdict(&self) -> &'static str {
        self.verdict
    }

    /// Every fix, in input order.
    #[getter]
    fn fixes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        fix_list(py, &self.fixes)
    }

    /// Every choice between readings that the input could not settle
    /// (:class:`Doubt`), in input order; empty when there was none (always,
    /// for valid input).
    #[getter]
    fn doubts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        doubt_list(py, &self.doubts)
    }

    /// Why there is no JSON, when the verdict is `"not_json"`; else `None`.
    #[getter]
    fn reason(&self) -> Option<&str> {
        self.reason.as_deref()
    }

    /// The text parsed with `json.loads` (big integers stay exact); `None`
    /// when the verdict is `"not_json"`.
    fn value<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        if self.verdict == Verdict::NotJson.name() {
            return Ok(py.None().into_bound(py));
        }
        json_loads(py)?.call1((self.text.bind(py),))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Outcome(verdict='{}', text={}, fixes={})",
            self.verdict,
            short_repr(self.text.bind(py))?,
            self.fixes.len()
        ))
    }
}

/// `repr(text)`, cut to about 60 characters so a 20 MB outcome prints on one line.
fn short_repr(text: &Bound<'_, PyString>) -> PyResult<String> {
    let py = text.py();
    if text.len()? <= 60 {
        return Ok(text.repr()?.to_cow()?.into_owned());
    }
    let head = text.get_item(pyo3::types::PySlice::new(py, 0, 57, 1))?;
    Ok(format!("{}…", head.repr()?.to_cow()?))
}

/// What the schema still rejects after repair: where (`path`: `$` is the
/// whole value, `$.a[0]` the first item of member `a`) and what (`message`).
#[pyclass(module = "argmend", frozen, eq)]
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Violation {
    /// Where: `$` is the whole value, `$.a[0]` the first item of member `a`.
    #[pyo3(get)]
    path: String,
    /// What is wrong, in words.
    #[pyo3(get)]
    message: String,
}

#[pymethods]
impl Violation {
    fn __repr__(&self) -> String {
        format!(
            "Violation(path={:?}, message={:?})",
            self.path, self.message
        )
    }
}

/// The result of normalizing one call's arguments: `.json`, `.verdict`,
/// `.strategy` (1 to 7) and `.strategy_name`, `.fixes`, `.doubts`,
/// `.violations`.
///
/// With verdict `"not_json"`, `.json` is the raw input untouched (for the
/// caller's own parser) and `.reason` says why.
#[pyclass(module = "argmend", frozen)]
pub(crate) struct Normalized {
    json: Py<PyString>,
    strategy: Option<argmend::Strategy>,
    verdict: &'static str,
    fixes: Vec<Fix>,
    doubts: Vec<Doubt>,
    violations: Vec<Violation>,
    reason: Option<String>,
}

impl Normalized {
    pub(crate) fn run(
        py: Python<'_>,
        tool: &str,
        input: &Input,
        options: &ToolOptions,
    ) -> PyResult<Normalized> {
        let text = input.text();
        let normalized = maybe_detached(py, text.len(), || {
            argmend::normalize_tool_args_with(tool, &text, options)
        });
        Ok(Normalized::new(py, input, text.len(), &normalized))
    }

    /// The Python face of `normalized`, the result for `input`, whose text
    /// (as the tool layer read it) is `text_len` bytes long.
    pub(crate) fn new(
        py: Python<'_>,
        input: &Input,
        text_len: usize,
        normalized: &argmend::Normalized,
    ) -> Normalized {
        let verdict = normalized.verdict();
        // Valid: the text is the input, so the input's own object serves.
        let json = if verdict == Verdict::Valid && normalized.text().len() == text_len {
            input.to_str(py)
        } else {
            PyString::new(py, normalized.text())
        };
        Normalized {
            json: json.unbind(),
            strategy: normalized.strategy(),
            verdict: verdict.name(),
            fixes: normalized.fixes().iter().map(Fix::tool).collect(),
            doubts: doubts(normalized.doubts()),
            violations: normalized
                .violations()
                .iter()
                .map(|violation| Violation {
                    path: violation.path().to_owned(),
                    message: violation.message().to_owned(),
                })
                .collect(),
            reason: normalized.reason().map(str::to_owned),
        }
    }
}

#[pymethods]
impl Normalized {
    /// The JSON text (the raw input when the verdict is `"not_json"`).
    #[getter]
    fn json(&self, py: Python<'_>) -> Py<PyString> {
        self.json.clone_ref(py)
    }

    /// Which of the seven strategies the input needed, as a number from 1
    /// to 7 (as the CLI and `argmend serve` report it: 1 parsed as it was,
    /// 2 quotes, 3 keys, 4 quotes and keys, 5 commas and other structure,
    /// 6 a plain value or command line wrapped, 7 bare values); `None` when
    /// the verdict is `"not_json"`.
    #[getter]
    fn strategy(&self) -> Option<u8> {
        self.strategy.map(argmend::Strategy::number)
    }

    /// The same strategy by name (`"strict_parse"`, `"single_quotes"`,
    /// `"unquoted_keys"`, `"quotes_and_keys"`, `"trailing_commas"`,
    /// `"plain_value"`, `"bare_literal"`); `None` when the verdict is
    /// `"not_json"`.
    #[getter]
    fn strategy_name(&self) -> Option<&'static str> {
        self.strategy.map(argmend::Strategy::name)
    }

    /// `"valid"`, `"repaired"`, `"completed"` or `"not_json"`.
    #[getter]
    fn verdict(&self) -> &'static str {
        self.verdict
    }

    /// Every change, engine repairs and tool-level ones, in input order.
    #[getter]
    fn fixes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        fix_list(py, &self.fixes)
    }

    /// The engine's doubts about the input (:class:`Doubt`), at offsets of
    /// the text passed in, in input order; empty when there was none.
    #[getter]
    fn doubts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        doubt_list(py, &self.doubts)
    }

    /// What the schema still rejects after repair (empty without a schema).
    #[getter]
    fn violations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.violations.iter().cloned())
    }

    /// Why there is no JSON, when the verdict is `"not_json"`; else `None`.
    #[getter]
    fn reason(&self) -> Option<&str> {
        self.reason.as_deref()
    }

    /// The JSON parsed with `json.loads`; `None` when the verdict is `"not_json"`.
    fn value<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        if self.verdict == Verdict::NotJson.name() {
            return Ok(py.None().into_bound(py));
        }
        json_loads(py)?.call1((self.json.bind(py),))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Normalized(verdict='{}', strategy={}, json={}, fixes={}, violations={})",
            self.verdict,
            self.strategy.map_or("None".to_owned(), |s| format!(
                "{} ({})",
                s.number(),
                s.name()
            )),
            short_repr(self.json.bind(py))?,
            self.fixes.len(),
            self.violations.len()
        ))
    }
}
