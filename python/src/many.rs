//! Batches: `repair_many` and `normalize_many` (issue 31).
//!
//! A dataset of recorded tool calls is repaired a list at a time, not a call
//! at a time: one Python call reads every input (holding the GIL, as it
//! must), then repairs them on a rayon pool with no Python in the engine,
//! while the calling thread builds the results in input order as windows of
//! them finish (see [`pipeline`]). The GIL is held only to build; other
//! Python threads run meanwhile, and a 200-byte call costs its repair and
//! one object, not a Python call each.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::sync::{Arc, Mutex, OnceLock};

use argmend::ToolOptions;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyList, PyString};
use rayon::prelude::*;

use crate::input::Input;
use crate::outcome::{Mended, Normalized};
use crate::{Tool, limit_error, options, tool_options};

/// The most threads a batch may ask for: more only cost memory.
const MAX_THREADS: usize = 256;

/// Inputs one rayon task takes at least: below that, splitting the work
/// costs more than the repairs it spreads.
const MIN_PER_TASK: usize = 16;

/// Inputs per window of [`pipeline`]: about a millisecond of repairs, so a
/// window's hand-over costs nothing next to it, and the calling thread
/// starts building results soon after the batch starts.
const WINDOW: usize = 256;

/// The pools made for an explicit `threads=N`, kept so that a loop of
/// batches (a Dask partition after another) does not start threads for each.
static POOLS: Mutex<Vec<(usize, Arc<rayon::ThreadPool>)>> = Mutex::new(Vec::new());

/// The process whose pools have threads: set when a batch first uses a pool.
/// A process forked after that (`os.fork`, `multiprocessing`'s "fork") has
/// the pools but none of their threads, since fork copies only the calling
/// thread: a batch there would wait for ever on workers that do not exist.
/// So there every batch runs in the calling thread.
static POOL_PROCESS: OnceLock<u32> = OnceLock::new();

/// Whether this process was forked from one whose pools have threads.
fn forked_after_pools() -> bool {
    *POOL_PROCESS.get_or_init(std::process::id) != std::process::id()
}

/// Where a batch runs: the calling thread alone, rayon's global pool (one
/// thread per core), or a pool of the size asked for.
pub(crate) enum Pool {
    Caller,
    Global,
    Sized(Arc<rayon::ThreadPool>),
}

impl Pool {
    /// The pool for `threads` (`None`: every core).
    pub(crate) fn get(threads: Option<usize>) -> PyResult<Pool> {
        match threads {
            Some(0) => Err(PyValueError::new_err("threads must be at least 1")),
            Some(n) if n > MAX_THREADS => Err(PyValueError::new_err(format!(
                "threads must be at most {MAX_THREADS}, not {n}"
            ))),
            Some(1) => Ok(Pool::Caller),
            _ if forked_after_pools() => Ok(Pool::Caller),
            None => Ok(Pool::Global),
            Some(n) => {
                let mut pools = POOLS.lock().unwrap_or_else(|poison| poison.into_inner());
                if let Some((_, pool)) = pools.iter().find(|(size, _)| *size == n) {
                    return Ok(Pool::Sized(Arc::clone(pool)));
                }
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .thread_name(|i| format!("argmend-{i}"))
                    .build()
                    .map_err(|error| PyValueError::new_err(format!("no thread pool: {error}")))?;
                let pool = Arc::new(pool);
                pools.push((n, Arc::clone(&pool)));
                Ok(Pool::Sized(pool))
            }
        }
    }

    /// `work(i)` for every `i` below `n`, in order, spread over the pool.
    pub(crate) fn map<T: Send>(&self, n: usize, work: impl Fn(usize) -> T + Sync + Send) -> Vec<T> {
        let spread = || {
            (0..n)
                .into_par_iter()
                .with_min_len(MIN_PER_TASK)
                .map(&work)
                .collect()
        };
        match self {
            Pool::Caller => (0..n).map(&work).collect(),
            Pool::Global => spread(),
            Pool::Sized(pool) => pool.install(spread),
        }
    }
}

impl Pool {
    /// How many threads answer at once.
    fn threads(&self) -> usize {
        match self {
            Pool::Caller => 1,
            Pool::Global => rayon::current_num_threads(),
            Pool::Sized(pool) => pool.current_num_threads(),
        }
    }

    /// Run `job` on the pool, without waiting for it.
    fn spawn(&self, job: impl FnOnce() + Send + 'static) {
        match self {
            Pool::Sized(pool) => pool.spawn(job),
            _ => rayon::spawn(job),
        }
    }
}

/// A window's answers, or the panic that stopped them.
type Answers<T> = (usize, std::thread::Result<Vec<T>>);

/// Answer every input with `work` on `pool`, and hand each answer, in input
/// order, to `build` on the calling thread, which holds the GIL.
///
/// Why a pipeline and not "repair all, then build all": turning answers into
/// Python objects takes about half as long as the repairs of small inputs,
/// and only the thread holding the GIL may do it. So the pool's threads
/// repair window after window (taking the next from a shared counter, so
/// the windows finish about in order) while the calling thread builds the
/// objects of the windows already done. When the next window is not done,
/// the calling thread repairs one itself with the GIL released, rather than
/// wait: so the pool has one thread fewer than asked for, and the calling
/// thread makes up the number. On two cores, one thread repairs and the
/// other builds and repairs, and neither waits.
pub(crate) fn pipeline<T: Send + 'static>(
    py: Python<'_>,
    pool: &Pool,
    inputs: Vec<Input>,
    work: impl Fn(&Input) -> T + Send + Sync + 'static,
    mut build: impl FnMut(usize, &Input, T) -> PyResult<()>,
) -> PyResult<()> {
    if matches!(pool, Pool::Caller) || inputs.len() <= WINDOW {
        let answers = py.detach(|| pool.map(inputs.len(), |i| work(&inputs[i])));
        for (i, (input, answer)) in inputs.iter().zip(answers).enumerate() {
            build(i, input, answer)?;
        }
        return Ok(());
    }
    let inputs = Arc::new(inputs);
    let work = Arc::new(work);
    let windows = inputs.len().div_ceil(WINDOW);
    let next = Arc::new(AtomicUsize::new(0));
    let answer = {
        let (inputs, work) = (Arc::clone(&inputs), Arc::clone(&work));
        move |window: usize| -> Vec<T> {
            let part = &inputs[window * WINDOW..inputs.len().min((window + 1) * WINDOW)];
            part.iter().map(&*work).collect()
        }
    };
    let answer = Arc::new(answer);
    let (sender, mut receiver) = mpsc::channel::<Answers<T>>();
    for _ in 0..(pool.threads() - 1).clamp(1, windows) {
        let (next, answer, sender) = (Arc::clone(&next), Arc::clone(&answer), sender.clone());
        pool.spawn(move || {
            loop {
                let window = next.fetch_add(1, Ordering::Relaxed);
                if window >= windows {
                    break;
                }
                // The engine does not panic on any input (it is fuzzed for
                // that); were it to, the batch fails instead of the process.
                let answers = catch_unwind(AssertUnwindSafe(|| answer(window)));
                // A send fails only when the caller gave up (an error while
                // building): then the rest is not wanted.
                if sender.send((window, answers)).is_err() {
                    break;
                }
            }
        });
    }
    drop(sender);
    let mut done: Vec<Option<Vec<T>>> = (0..windows).map(|_| None).collect();
    for window in 0..windows {
        while done[window].is_none() {
            let (finished, answers) = match receiver.try_recv() {
                Ok(answers) => answers,
                Err(TryRecvError::Empty) => {
                    let mine = next.fetch_add(1, Ordering::Relaxed);
                    if mine < windows {
                        done[mine] = Some(py.detach(|| answer(mine)));
                        continue;
                    }
                    let answers;
                    (answers, receiver) = wait(py, receiver)?;
                    answers
                }
                Err(TryRecvError::Disconnected) => return Err(stopped()),
            };
            let answers = answers.map_err(|_| {
                PyRuntimeError::new_err("argmend panicked in a batch: please report the inputs")
            })?;
            done[finished] = Some(answers);
        }
        let answers = done[window].take().unwrap_or_default();
        for (k, answer) in answers.into_iter().enumerate() {
            let i = window * WINDOW + k;
            build(i, &inputs[i], answer)?;
        }
    }
    Ok(())
}

fn stopped() -> PyErr {
    PyRuntimeError::new_err("argmend's batch workers stopped")
}

/// The next window's answers from the pool, waited for with the GIL
/// released. (The receiver moves into the wait and back because it may not
/// be shared with another thread.)
fn wait<T: Send>(
    py: Python<'_>,
    receiver: Receiver<Answers<T>>,
) -> PyResult<(Answers<T>, Receiver<Answers<T>>)> {
    let (answers, receiver) = py.detach(move || (receiver.recv(), receiver));
    Ok((answers.map_err(|_| stopped())?, receiver))
}

/// Every input of `texts`, read before the GIL is released.
///
/// A `str` given whole is a mistake (it would be a batch of one-character
/// inputs), so it is a `TypeError`, as is any item but `str` or `bytes`.
pub(crate) fn inputs(texts: &Bound<'_, PyAny>) -> PyResult<Vec<Input>> {
    if texts.is_instance_of::<PyString>()
        || texts.is_instance_of::<PyBytes>()
        || texts.is_instance_of::<PyByteArray>()
    {
        return Err(PyTypeError::new_err(format!(
            "texts must be an iterable of str or bytes, not a {} itself: wrap one input in a list",
            texts.get_type().name()?
        )));
    }
    let mut inputs = Vec::with_capacity(texts.len().unwrap_or(0));
    for (i, item) in texts.try_iter()?.enumerate() {
        let item = item?;
        match Input::extract(&item, "") {
            Ok(input) => inputs.push(input),
            Err(error) if error.is_instance_of::<PyTypeError>(texts.py()) => {
                return Err(PyTypeError::new_err(format!(
                    "texts[{i}] must be str or bytes, not {}",
                    item.get_type().name()?
                )));
            }
            Err(error) => return Err(error),
        }
    }
    Ok(inputs)
}

/// Repair every input of `texts` at once; the same results as
/// `[repair(t) for t in texts]`, in the same order.
///
/// The GIL is released for the whole batch and the repairs are spread over
/// `threads` threads (default: one per core; `threads=1` repairs in the
/// calling thread). With `tool` (a name or a :class:`Tool`) or `schema`,
/// each input is normalized for that tool instead, as by
/// :func:`normalize_many`, and the results are :class:`Normalized`.
///
/// A crossed limit raises :class:`argmend.Error` naming the input, as the
/// loop would; with `return_exceptions=True` the error takes that input's
/// place in the list and the others are repaired.
///
/// >>> import argmend
/// >>> [o.text for o in argmend.repair_many(["{a: 1}", "[1, 2,", '{"ok": true}'])]
/// ['{"a": 1}', '[1, 2]', '{"ok": true}']
/// >>> [o.verdict for o in argmend.repair_many([b"{'x': 'y'}", "  "])]
/// ['repaired', 'not_json']
#[pyfunction]
#[pyo3(signature = (
    texts, *, tool = None, schema = None, threads = None, max_depth = 512,
    max_input_bytes = None, drop_unknown_keys = false, return_exceptions = false,
))]
#[allow(clippy::too_many_arguments)] // Python's keyword arguments, one per option
pub(crate) fn repair_many<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    tool: Option<&Bound<'py, PyAny>>,
    schema: Option<&Bound<'py, PyAny>>,
    threads: Option<usize>,
    max_depth: usize,
    max_input_bytes: Option<usize>,
    drop_unknown_keys: bool,
    return_exceptions: bool,
) -> PyResult<Bound<'py, PyList>> {
    if let Some(tool) = ToolArg::optional(py, tool, schema, drop_unknown_keys)? {
        return normalize_all(py, &tool, texts, threads);
    }
    let pool = Pool::get(threads)?;
    let inputs = inputs(texts)?;
    let options = options(max_depth, max_input_bytes, argmend::Values::First);
    let list = PyList::empty(py);
    let work = move |input: &Input| Mended::run(input.bytes(), options).map(Mended::into_kept);
    pipeline(py, &pool, inputs, work, |i, input, answer| match answer {
        Ok(kept) => list.append(kept.into_outcome(py, input)),
        Err(error) => {
            let error = limit_error(&error);
            if !return_exceptions {
                let message = format!("texts[{i}]: {}", error.value(py));
                return Err(crate::Error::new_err(message));
            }
            list.append(error.into_value(py))
        }
    })?;
    Ok(list)
}

/// Normalize every input of `texts` as arguments of one `tool` at once;
/// the same results as `[normalize_tool_args(tool, t, schema) for t in
/// texts]`, in the same order, with the GIL released and the work spread
/// over `threads` threads as by :func:`repair_many`.
///
/// `tool` is a name or a :class:`Tool` (whose schema was read once; then
/// `schema` must be `None`).
///
/// >>> import argmend
/// >>> schema = {"type": "object", "properties": {"paths": {"type": "array", "items": {"type": "string"}}}}
/// >>> [n.json for n in argmend.normalize_many("read_many", ['{"paths": "a.py"}', "{paths: ['b.py']}"], schema)]
/// ['{"paths": ["a.py"]}', '{"paths": ["b.py"]}']
#[pyfunction]
#[pyo3(signature = (tool, texts, schema = None, *, threads = None, drop_unknown_keys = false))]
pub(crate) fn normalize_many<'py>(
    py: Python<'py>,
    tool: &Bound<'py, PyAny>,
    texts: &Bound<'py, PyAny>,
    schema: Option<&Bound<'py, PyAny>>,
    threads: Option<usize>,
    drop_unknown_keys: bool,
) -> PyResult<Bound<'py, PyList>> {
    let tool = ToolArg::extract(tool, schema, drop_unknown_keys)?;
    normalize_all(py, &tool, texts, threads)
}

/// `normalize_many`'s work, once its `tool` is read.
fn normalize_all<'py>(
    py: Python<'py>,
    tool: &ToolArg<'py>,
    texts: &Bound<'py, PyAny>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyList>> {
    let (name, options) = tool.parts();
    let (name, options) = (name.to_owned(), options.clone());
    let pool = Pool::get(threads)?;
    let inputs = inputs(texts)?;
    let work = move |input: &Input| {
        let text = input.text();
        let normalized = argmend::normalize_tool_args_with(&name, &text, &options);
        (text.len(), normalized)
    };
    let list = PyList::empty(py);
    pipeline(py, &pool, inputs, work, |_, input, (len, normalized)| {
        list.append(Normalized::new(py, input, len, &normalized))
    })?;
    Ok(list)
}

/// The `tool` of a batch: a name with options made from `schema`, or a
/// :class:`Tool` whose options were made once.
pub(crate) enum ToolArg<'py> {
    Named(String, ToolOptions),
    Made(Bound<'py, Tool>),
}

impl<'py> ToolArg<'py> {
    /// The tool of a call that may normalize: `None` when neither `tool`
    /// nor `schema` is given (then the call repairs), else the tool, named
    /// `""` (no built-in entry) when only a schema is given.
    pub(crate) fn optional(
        py: Python<'py>,
        tool: Option<&Bound<'py, PyAny>>,
        schema: Option<&Bound<'py, PyAny>>,
        drop_unknown_keys: bool,
    ) -> PyResult<Option<Self>> {
        let tool = tool.filter(|tool| !tool.is_none());
        let schema = schema.filter(|schema| !schema.is_none());
        if tool.is_none() && schema.is_none() {
            return Ok(None);
        }
        let empty = PyString::new(py, "");
        let tool = tool.unwrap_or(empty.as_any());
        ToolArg::extract(tool, schema, drop_unknown_keys).map(Some)
    }

    pub(crate) fn extract(
        tool: &Bound<'py, PyAny>,
        schema: Option<&Bound<'py, PyAny>>,
        drop_unknown_keys: bool,
    ) -> PyResult<Self> {
        if let Ok(made) = tool.cast::<Tool>() {
            if schema.is_some_and(|schema| !schema.is_none()) || drop_unknown_keys {
                return Err(PyTypeError::new_err(
                    "a Tool carries its own schema and mode: pass schema and drop_unknown_keys to Tool()",
                ));
            }
            return Ok(ToolArg::Made(made.clone()));
        }
        let Ok(name) = tool.cast::<PyString>() else {
            return Err(PyTypeError::new_err(format!(
                "tool must be a str or an argmend.Tool, not {}",
                tool.get_type().name()?
            )));
        };
        let options = tool_options(schema, drop_unknown_keys)?;
        Ok(ToolArg::Named(name.to_cow()?.into_owned(), options))
    }

    /// The tool's name and options.
    pub(crate) fn parts(&self) -> (&str, &ToolOptions) {
        match self {
            ToolArg::Named(name, options) => (name, options),
            ToolArg::Made(tool) => (&tool.get().name, &tool.get().options),
        }
    }
}
