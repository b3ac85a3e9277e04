//! The Arrow path's core: a string array's buffers in, the result columns'
//! buffers out, with no Python object per row (issue 31).
//!
//! `argmend.arrow` (Python) takes a `pyarrow` string array apart into its
//! three buffers (validity bitmap, offsets, UTF-8 data), passes them here as
//! `bytes`, and builds the result table from the buffers this returns with
//! `pyarrow.Array.from_buffers`. Why buffers and not the Arrow C data
//! interface: the wheel is built for the stable ABI of Python 3.10, which has
//! no buffer protocol, and the Rust Arrow crates would pin a pyo3 of their
//! own; two `bytes` copies of a batch cost far less than its repair.
//!
//! The rows are cut into blocks; each block is answered on the pool into
//! columns of its own, and the blocks' columns are joined in order.

use argmend::Verdict;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::many::{Pool, ToolArg};
use crate::options;

/// Rows one task answers: enough that joining blocks costs nothing next to
/// their repairs, few enough that a partition spreads over every thread.
const BLOCK_ROWS: usize = 256;

/// The verdict codes of the `verdict` column, in the order of its
/// dictionary (`argmend.arrow.VERDICTS`).
fn verdict_code(verdict: Verdict) -> i8 {
    match verdict {
        Verdict::Valid => 0,
        Verdict::Repaired => 1,
        Verdict::Completed => 2,
        // `Verdict` is non-exhaustive: a verdict added later reads as not JSON
        // here until it has a code of its own.
        _ => 3,
    }
}

/// A crossed limit: the row's text is null and its verdict `"error"`.
const ERROR_CODE: i8 = 4;

/// A column of strings: Arrow's offsets, data and validity.
#[derive(Default)]
struct Strings {
    data: Vec<u8>,
    /// Where each row ends in `data`; row `i` starts where row `i - 1` ends.
    ends: Vec<usize>,
    valid: Vec<bool>,
}

impl Strings {
    fn push(&mut self, text: Option<&[u8]>) {
        self.data.extend_from_slice(text.unwrap_or_default());
        self.ends.push(self.data.len());
        self.valid.push(text.is_some());
    }

    fn append(&mut self, other: Strings) {
        let base = self.data.len();
        self.data.extend_from_slice(&other.data);
        self.ends.extend(other.ends.iter().map(|end| end + base));
        self.valid.extend(other.valid);
    }
}

/// A column of lists of strings (the fix kinds of each row, or its doubt
/// kinds): where each row's list ends in `items`.
#[derive(Default)]
struct Lists {
    items: Strings,
    ends: Vec<usize>,
}

impl Lists {
    fn push<'a>(&mut self, kinds: impl IntoIterator<Item = &'a str>) {
        for kind in kinds {
            self.items.push(Some(kind.as_bytes()));
        }
        self.ends.push(self.items.ends.len());
    }

    fn append(&mut self, other: Lists) {
        let base = self.items.ends.len();
        self.items.append(other.items);
        self.ends.extend(other.ends.iter().map(|end| end + base));
    }
}

/// Every result column, for a block of rows or for the whole array.
#[derive(Default)]
struct Columns {
    text: Strings,
    /// Whether the row was a value (not null in the input).
    present: Vec<bool>,
    verdict: Vec<i8>,
    fixes: Vec<i32>,
    doubts: Vec<i32>,
    violations: Vec<i32>,
    /// The strategy's number, 0 where there is none.
    strategy: Vec<i8>,
    fix_kinds: Lists,
    doubt_kinds: Lists,
    reason: Strings,
}

impl Columns {
    fn null_row(&mut self) {
        self.text.push(None);
        self.present.push(false);
        self.row_counts(0, [], [], 0, 0);
        self.reason.push(None);
    }

    /// A row's verdict, its counts, and the kinds of its fixes and doubts
    /// (their names, read straight off the engine's result).
    fn row_counts<'k>(
        &mut self,
        verdict: i8,
        fix_kinds: impl IntoIterator<Item = &'k str, IntoIter: ExactSizeIterator>,
        doubt_kinds: impl IntoIterator<Item = &'k str, IntoIter: ExactSizeIterator>,
        violations: usize,
        strategy: i8,
    ) {
        let (fix_kinds, doubt_kinds) = (fix_kinds.into_iter(), doubt_kinds.into_iter());
        self.verdict.push(verdict);
        self.fixes.push(count(fix_kinds.len()));
        self.doubts.push(count(doubt_kinds.len()));
        self.violations.push(count(violations));
        self.strategy.push(strategy);
        self.fix_kinds.push(fix_kinds);
        self.doubt_kinds.push(doubt_kinds);
    }

    fn append(&mut self, other: Columns) {
        self.text.append(other.text);
        self.present.extend(other.present);
        self.verdict.extend(other.verdict);
        self.fixes.extend(other.fixes);
        self.doubts.extend(other.doubts);
        self.violations.extend(other.violations);
        self.strategy.extend(other.strategy);
        self.fix_kinds.append(other.fix_kinds);
        self.doubt_kinds.append(other.doubt_kinds);
        self.reason.append(other.reason);
    }
}

fn count(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// The input array, read from its buffers.
struct Rows<'a> {
    data: &'a [u8],
    /// `length + 1` offsets into `data`, checked to be in order and in bounds.
    offsets: Vec<usize>,
    /// The validity bitmap and the bit of row 0, when there are nulls.
    validity: Option<(&'a [u8], usize)>,
}

impl<'a> Rows<'a> {
    fn read(
        data: &'a [u8],
        offsets: &[u8],
        wide: bool,
        start: usize,
        length: usize,
        validity: Option<&'a [u8]>,
    ) -> PyResult<Self> {
        let width = if wide { 8 } else { 4 };
        let bad = |what: &str| PyValueError::new_err(format!("not an Arrow string array: {what}"));
        let need = start
            .checked_add(length)
            .and_then(|n| n.checked_add(1))
            .and_then(|n| n.checked_mul(width))
            .ok_or_else(|| bad("offset and length overflow"))?;
        if offsets.len() < need {
            return Err(bad("the offsets buffer is too short"));
        }
        let mut read = Vec::with_capacity(length + 1);
        for bytes in offsets[start * width..need].chunks_exact(width) {
            let offset = if wide {
                i64::from_le_bytes(bytes.try_into().unwrap_or_default())
            } else {
                i64::from(i32::from_le_bytes(bytes.try_into().unwrap_or_default()))
            };
            let offset = usize::try_from(offset).map_err(|_| bad("a negative offset"))?;
            if offset > data.len() || read.last().is_some_and(|&last| offset < last) {
                return Err(bad("offsets out of order or past the data"));
            }
            read.push(offset);
        }
        if validity.is_some_and(|bitmap| bitmap.len() * 8 < start + length) {
            return Err(bad("the validity bitmap is too short"));
        }
        Ok(Rows {
            data,
            offsets: read,
            validity: validity.map(|bitmap| (bitmap, start)),
        })
    }

    fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Row `i`'s bytes, or `None` when it is null.
    fn get(&self, i: usize) -> Option<&'a [u8]> {
        if let Some((bitmap, first)) = self.validity {
            let bit = first + i;
            if bitmap[bit / 8] & (1 << (bit % 8)) == 0 {
                return None;
            }
        }
        Some(&self.data[self.offsets[i]..self.offsets[i + 1]])
    }
}

/// What each row gets: a repair, or normalization for one tool.
enum Work<'a> {
    Repair(argmend::Options),
    Normalize(&'a str, &'a argmend::ToolOptions),
}

impl Work<'_> {
    fn row(&self, columns: &mut Columns, input: Option<&[u8]>) {
        let Some(input) = input else {
            columns.null_row();
            return;
        };
        columns.present.push(true);
        match self {
            // The engine's result is read directly: no per-row Vec of
            // `Fix`/`Doubt` as the Python objects need.
            Work::Repair(options) => match argmend::repair_with(input, *options) {
                Ok(outcome) => {
                    columns.text.push(Some(outcome.text().as_bytes()));
                    columns.row_counts(
                        verdict_code(outcome.verdict()),
                        outcome.fixes().iter().map(|fix| fix.kind.name()),
                        outcome.doubts().iter().map(|doubt| doubt.kind.name()),
                        0,
                        0,
                    );
                    columns.reason.push(outcome.reason().map(str::as_bytes));
                }
                Err(error) => {
                    columns.text.push(None);
                    columns.row_counts(ERROR_CODE, [], [], 0, 0);
                    columns.reason.push(Some(error.to_string().as_bytes()));
                }
            },
            Work::Normalize(tool, options) => {
                let text = String::from_utf8_lossy(input);
                let normalized = argmend::normalize_tool_args_with(tool, &text, options);
                columns.text.push(Some(normalized.text().as_bytes()));
                columns.row_counts(
                    verdict_code(normalized.verdict()),
                    normalized.fixes().iter().map(|fix| fix.kind.name()),
                    normalized.doubts().iter().map(|doubt| doubt.kind.name()),
                    normalized.violations().len(),
                    normalized.strategy().map_or(0, |s| s.number() as i8),
                );
                columns.reason.push(normalized.reason().map(str::as_bytes));
            }
        }
    }
}

/// Answer every row of a string array given as buffers; see `argmend.arrow`.
#[pyfunction]
#[pyo3(signature = (
    data, offsets, wide, start, length, validity, *, tool = None, schema = None,
    threads = None, max_depth = 512, max_input_bytes = None, drop_unknown_keys = false,
))]
#[allow(clippy::too_many_arguments)] // Python's keyword arguments, one per option
pub(crate) fn repair_arrow_buffers<'py>(
    py: Python<'py>,
    data: &[u8],
    offsets: &[u8],
    wide: bool,
    start: usize,
    length: usize,
    validity: Option<&[u8]>,
    tool: Option<&Bound<'py, PyAny>>,
    schema: Option<&Bound<'py, PyAny>>,
    threads: Option<usize>,
    max_depth: usize,
    max_input_bytes: Option<usize>,
    drop_unknown_keys: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let rows = Rows::read(data, offsets, wide, start, length, validity)?;
    let tool = ToolArg::optional(py, tool, schema, drop_unknown_keys)?;
    let work = match &tool {
        Some(tool) => {
            let (name, options) = tool.parts();
            Work::Normalize(name, options)
        }
        None => Work::Repair(options(max_depth, max_input_bytes, argmend::Values::First)),
    };
    let pool = Pool::get(threads)?;
    let columns = py.detach(|| {
        let blocks = rows.len().div_ceil(BLOCK_ROWS);
        let answered = pool.map(blocks, |block| {
            let mut columns = Columns::default();
            let end = rows.len().min((block + 1) * BLOCK_ROWS);
            for i in block * BLOCK_ROWS..end {
                work.row(&mut columns, rows.get(i));
            }
            columns
        });
        let mut all = Columns::default();
        for block in answered {
            all.append(block);
        }
        all
    });
    result(py, columns)
}

/// The columns as a dict of `bytes` buffers, for `argmend.arrow` to wrap.
fn result(py: Python<'_>, columns: Columns) -> PyResult<Bound<'_, PyDict>> {
    let out = PyDict::new(py);
    let bytes = |data: &[u8]| PyBytes::new(py, data);
    put_strings(py, &out, "text", &columns.text)?;
    put_strings(py, &out, "reason", &columns.reason)?;
    out.set_item("present", bitmap(py, &columns.present))?;
    let codes: Vec<u8> = columns.verdict.iter().map(|&code| code as u8).collect();
    out.set_item("verdict", bytes(&codes))?;
    let strategy: Vec<u8> = columns.strategy.iter().map(|&s| s as u8).collect();
    out.set_item("strategy", bytes(&strategy))?;
    let has_strategy: Vec<bool> = columns.strategy.iter().map(|&s| s != 0).collect();
    out.set_item("strategy_validity", bitmap(py, &has_strategy))?;
    for (name, counts) in [
        ("fixes", &columns.fixes),
        ("doubts", &columns.doubts),
        ("violations", &columns.violations),
    ] {
        let raw: Vec<u8> = counts.iter().flat_map(|n| n.to_le_bytes()).collect();
        out.set_item(name, bytes(&raw))?;
    }
    for (name, lists) in [
        ("fix_kinds", &columns.fix_kinds),
        ("doubt_kinds", &columns.doubt_kinds),
    ] {
        let wide = too_long(lists.items.ends.len());
        out.set_item(format!("{name}_wide"), wide)?;
        out.set_item(format!("{name}_offsets"), offsets(py, &lists.ends, wide))?;
        put_strings(py, &out, &format!("{name}_items"), &lists.items)?;
    }
    Ok(out)
}

/// Whether offsets up to `n` need 64 bits (Arrow's `large_` types).
fn too_long(n: usize) -> bool {
    i32::try_from(n).is_err()
}

/// `name_offsets`, `name_data`, `name_validity`, `name_length` and
/// `name_wide` (64-bit offsets) for a column of strings.
fn put_strings(
    py: Python<'_>,
    out: &Bound<'_, PyDict>,
    name: &str,
    strings: &Strings,
) -> PyResult<()> {
    let wide = too_long(strings.data.len());
    out.set_item(format!("{name}_wide"), wide)?;
    out.set_item(format!("{name}_offsets"), offsets(py, &strings.ends, wide))?;
    out.set_item(format!("{name}_data"), PyBytes::new(py, &strings.data))?;
    out.set_item(format!("{name}_validity"), bitmap(py, &strings.valid))?;
    out.set_item(format!("{name}_length"), strings.ends.len())?;
    Ok(())
}

/// Arrow offsets (32 or 64 bits, little-endian) from the ends of the rows.
fn offsets<'py>(py: Python<'py>, ends: &[usize], wide: bool) -> Bound<'py, PyBytes> {
    let mut raw = Vec::with_capacity((ends.len() + 1) * if wide { 8 } else { 4 });
    for &offset in std::iter::once(&0).chain(ends) {
        if wide {
            raw.extend_from_slice(&(offset as i64).to_le_bytes());
        } else {
            raw.extend_from_slice(&(offset as i32).to_le_bytes());
        }
    }
    PyBytes::new(py, &raw)
}

/// An Arrow validity bitmap, or `None` when every row is valid.
fn bitmap<'py>(py: Python<'py>, valid: &[bool]) -> Option<Bound<'py, PyBytes>> {
    if valid.iter().all(|&v| v) {
        return None;
    }
    let mut raw = vec![0u8; valid.len().div_ceil(8)];
    for (i, _) in valid.iter().enumerate().filter(|(_, v)| **v) {
        raw[i / 8] |= 1 << (i % 8);
    }
    Some(PyBytes::new(py, &raw))
}
