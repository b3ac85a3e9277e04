"""Batches (issue 31): repair_many, normalize_many, the Arrow path, and the Dask example."""

from __future__ import annotations

import doctest
import os
import json
import math
import random
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pytest

import argmend
import argmend.arrow
from argmend.arrow import VERDICTS, repair_arrow

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


# The example, imported as the worker processes of its test import it: by
# name, from a directory on the path (the spawned workers get this path).
sys.path.insert(0, str(EXAMPLES))
import dask_repair  # noqa: E402


def broken_calls(n: int, seed: int = 1) -> list:
    """``n`` call arguments broken as the example's generator breaks them,
    with a few of every other shape: bytes, empty, prose, deep, big."""
    rng = random.Random(seed)
    calls: list = []
    for i in range(n):
        _, args = dask_repair._call(rng)
        text = dask_repair._break(rng, args)
        calls.append(text.encode() if i % 7 == 0 else text)
    odd = ["", "   ", "Sure, here it is", "{'a': [1, 2", "// only a comment", "\ufeff{\"bom\": 1}"]
    for i in range(1, n, 97):
        calls[i] = odd[i % len(odd)]
    calls += ["", "  ", "no json here at all!", "{'deep': " + "[" * 300, "x" * 20_000, json.dumps({"big": "y" * 50_000})]
    return calls


def facts(result) -> tuple:
    """What a repair result says, as plain data to compare."""
    if isinstance(result, argmend.Outcome):
        return (result.text, result.verdict, result.fixes, result.doubts, result.reason)
    return (result.json, result.verdict, result.strategy, result.fixes, result.doubts, result.violations, result.reason)


# ---------------------------------------------------------------------------
# repair_many and normalize_many


@pytest.mark.parametrize("threads", [None, 1, 2, 3])
def test_repair_many_equals_a_loop_of_repair(threads):
    calls = broken_calls(3000)
    many = argmend.repair_many(calls, threads=threads)
    assert len(many) == len(calls)
    assert [facts(o) for o in many] == [facts(argmend.repair(t)) for t in calls]
    verdicts = Counter(o.verdict for o in many)
    assert set(verdicts) == {"valid", "repaired", "completed", "not_json"}, verdicts


def test_repair_many_hands_back_valid_input_itself():
    text = '{"path": "a.py", "limit": 10}'
    (outcome,) = argmend.repair_many([text])
    assert outcome.text is text


def test_repair_many_takes_any_iterable_and_options():
    calls = (f"{{n: {i},}}" for i in range(100))
    assert [o.value() for o in argmend.repair_many(calls)] == [{"n": i} for i in range(100)]
    assert argmend.repair_many([]) == []
    limited = argmend.repair_many(["[[[1]]]", "[1]"], max_depth=2, return_exceptions=True)
    assert isinstance(limited[0], argmend.Error) and "deeper than 2" in str(limited[0])
    assert limited[1].text == "[1]"


def test_repair_many_raises_as_the_loop_would_naming_the_input():
    with pytest.raises(argmend.Error, match=r"texts\[1\]: input larger than 10 bytes"):
        argmend.repair_many(["{}", "[" + "1," * 20 + "]"], max_input_bytes=10)
    with pytest.raises(TypeError, match=r"not a str itself"):
        argmend.repair_many("{a: 1}")
    with pytest.raises(TypeError, match=r"texts\[2\] must be str or bytes, not int"):
        argmend.repair_many(["{}", b"[]", 3])
    with pytest.raises(ValueError, match="threads must be at least 1"):
        argmend.repair_many(["{}"], threads=0)
    with pytest.raises(TypeError, match="tool must be a str or an argmend.Tool"):
        argmend.repair_many(["{}"], tool=3)


def test_a_large_batch_raises_at_its_input_and_the_next_batch_runs():
    """Past a window's worth of inputs the pool repairs ahead of the
    results being built; an error part way stops it, and nothing is left
    running that the next batch would trip on."""
    calls = broken_calls(5000, seed=4)
    calls[2500] = "[" * 700
    with pytest.raises(argmend.Error, match=r"texts\[2500\]: nesting deeper than 512"):
        argmend.repair_many(calls, threads=2)
    answers = argmend.repair_many(calls, threads=2, return_exceptions=True)
    assert isinstance(answers[2500], argmend.Error)
    del calls[2500], answers[2500]
    assert [facts(o) for o in answers] == [facts(o) for o in argmend.repair_many(calls, threads=1)]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_forked_child_repairs_without_the_parents_threads():
    """A process forked after a batch has none of the pool's threads (fork
    copies only the calling thread); its batches must still finish, in its
    own thread, instead of waiting for workers that do not exist."""
    import signal

    argmend.repair_many(broken_calls(600))  # the parent's pools have threads now
    argmend.repair_many(broken_calls(600), threads=2)
    repair_arrow(pa.array(["{a: 1}"] * 600))
    pid = os.fork()
    if pid == 0:  # the child: report by exit code only
        try:
            calls = ["{a: 1}"] * 600
            ok = [o.text for o in argmend.repair_many(calls)] == ['{"a": 1}'] * 600
            ok = ok and [o.text for o in argmend.repair_many(calls[:10], threads=2)] == ['{"a": 1}'] * 10
            ok = ok and repair_arrow(pa.array(calls[:10])).column("text").to_pylist() == ['{"a": 1}'] * 10
            os._exit(0 if ok else 1)
        except BaseException:
            os._exit(2)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    pytest.fail("the forked child hung in a batch")


SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "content": {"type": "string"},
        "limit": {"type": "integer"},
        "paths": {"type": "array", "items": {"type": "string"}},
    },
}


@pytest.mark.parametrize("threads", [None, 1, 2])
def test_normalize_many_equals_a_loop_of_normalize_tool_args(threads):
    calls = broken_calls(1500, seed=2) + ['{"paths": "a.py"}', '{"limit": "12"}', "main.go"]
    expected = [facts(argmend.normalize_tool_args("write_file", t, SCHEMA)) for t in calls]
    assert [facts(n) for n in argmend.normalize_many("write_file", calls, SCHEMA, threads=threads)] == expected
    tool = argmend.Tool("write_file", SCHEMA)
    assert [facts(n) for n in argmend.normalize_many(tool, calls, threads=threads)] == expected
    assert [facts(n) for n in argmend.repair_many(calls, tool="write_file", schema=SCHEMA)] == expected
    assert [facts(n) for n in argmend.repair_many(calls, tool=tool)] == expected


def test_normalize_many_with_a_schema_alone_and_the_strict_mode():
    calls = ['{"path": "a", "extra": 1}', "{path: 'b'}"]
    expected = [facts(argmend.normalize_tool_args("", t, SCHEMA, drop_unknown_keys=True)) for t in calls]
    got = argmend.repair_many(calls, schema=SCHEMA, drop_unknown_keys=True)
    assert [facts(n) for n in got] == expected
    assert got[0].value() == {"path": "a"}
    with pytest.raises(TypeError, match="carries its own schema"):
        argmend.normalize_many(argmend.Tool("x"), calls, SCHEMA)


@pytest.mark.parametrize("threads", [1, None])
def test_repair_many_releases_the_gil_for_the_whole_batch(threads):
    """Another Python thread runs while the batch is repaired: with the GIL
    held it could not run a single bytecode until the call returned. (With
    a pool, the calling thread takes the GIL back only to build a finished
    window's results, a fraction of a millisecond at a time.)"""
    one = json.dumps({"content": "print('x')\n" * 2000})[:-2]  # cut off: a real repair

    def timed(n: int):
        big = [one] * n
        ticks: list[float] = []
        stop = threading.Event()

        def counter():
            while not stop.is_set():
                ticks.append(time.perf_counter())
                time.sleep(0)

        thread = threading.Thread(target=counter)
        thread.start()
        try:
            time.sleep(0.05)
            began = time.perf_counter()
            outcomes = argmend.repair_many(big, threads=threads)
            ended = time.perf_counter()
        finally:
            stop.set()
            thread.join()
        assert all(o.verdict == "completed" for o in outcomes)
        return ticks, began, ended

    # A batch long enough to tell, on a fast machine too: 400 calls took
    # 0.018 s on one, so the batch grows (at most 16 times) until it takes
    # a tenth of a second.
    n = 400
    ticks, began, ended = timed(n)
    if ended - began < 0.1:
        n *= min(16, math.ceil(0.1 / max(ended - began, 0.001)))
        ticks, began, ended = timed(n)
    duration = ended - began
    assert duration > 0.02, f"the batch of {n} took {duration:.3f} s: too short to tell"
    # The middle half of the call, well clear of the Python code around it.
    middle = [t for t in ticks if began + duration / 4 < t < ended - duration / 4]
    assert len(middle) > 20, f"{len(middle)} ticks in the middle of a {duration:.3f} s call"


# ---------------------------------------------------------------------------
# The Arrow path


def arrow_facts(table: pa.Table) -> list[tuple]:
    rows = table.to_pylist()
    return [(r["text"], r["verdict"], r["fixes"], r["doubts"], r["fix_kinds"], r["doubt_kinds"], r["reason"]) for r in rows]


def outcome_facts(outcome) -> tuple:
    if outcome is None:
        return (None,) * 7
    if isinstance(outcome, argmend.Error):
        return (None, "error", 0, 0, [], [], str(outcome))
    return (
        outcome.text,
        outcome.verdict,
        len(outcome.fixes),
        len(outcome.doubts),
        [f.kind for f in outcome.fixes],
        [d.kind for d in outcome.doubts],
        outcome.reason,
    )


def expected_rows(texts, **options):
    present = [t for t in texts if t is not None]
    answers = iter(argmend.repair_many(present, return_exceptions=True, **options))
    return [outcome_facts(None if t is None else next(answers)) for t in texts]


@pytest.mark.parametrize("kind", [pa.string(), pa.large_string(), pa.string_view()])
def test_repair_arrow_equals_repair_many(kind):
    texts = [t.decode() if isinstance(t, bytes) else t for t in broken_calls(2000, seed=3)]
    texts[5::50] = [None] * len(texts[5::50])
    array = pa.array(texts, type=kind)
    assert arrow_facts(repair_arrow(array)) == expected_rows(texts)
    assert arrow_facts(repair_arrow(array, threads=1)) == expected_rows(texts)
    # A slice starts inside the buffers.
    assert arrow_facts(repair_arrow(array.slice(13, 700))) == expected_rows(texts[13:713])


def test_repair_arrow_keeps_the_chunks_and_the_limits():
    chunked = pa.chunked_array([["{a: 1}", None], [], ["[1, 2", "[[[[1]]]]"]])
    table = repair_arrow(chunked, max_depth=3)
    assert [len(c) for c in table.column("text").chunks] == [2, 0, 2]
    assert table.column("text").to_pylist() == ['{"a": 1}', None, "[1, 2]", None]
    assert table.column("verdict").to_pylist() == ["repaired", None, "completed", "error"]
    assert "deeper than 3" in table.column("reason").to_pylist()[3]
    assert table.column("verdict").type == pa.dictionary(pa.int8(), pa.string())
    assert table.column("verdict").chunks[0].dictionary.to_pylist() == list(VERDICTS)
    empty = repair_arrow(pa.array([], type=pa.string()))
    assert empty.num_rows == 0 and "verdict" in empty.column_names


def test_repair_arrow_normalizes_for_a_tool():
    texts = ['{"paths": "a.py"}', None, '{"limit": "12"}', "main.go", "   "]
    table = repair_arrow(pa.array(texts), tool="write_file", schema=SCHEMA)
    expected = [None if t is None else argmend.normalize_tool_args("write_file", t, SCHEMA) for t in texts]
    assert table.column("text").to_pylist() == [n and n.json for n in expected]
    assert table.column("verdict").to_pylist() == [n and n.verdict for n in expected]
    assert table.column("strategy").to_pylist() == [n and n.strategy for n in expected]
    assert table.column("violations").to_pylist() == [n and len(n.violations) for n in expected]


def test_repair_arrow_takes_a_pandas_series_and_refuses_other_types():
    import pandas as pd

    series = pd.Series(["{a: 1}", None, "[1,"], dtype="string[pyarrow]")
    assert repair_arrow(series).column("verdict").to_pylist() == ["repaired", None, "completed"]
    assert repair_arrow(["{a: 1}"]).column("text").to_pylist() == ['{"a": 1}']
    with pytest.raises(TypeError, match="array of strings, not of int64"):
        repair_arrow(pa.array([1, 2]))
    with pytest.raises(ValueError, match="not an Arrow string array"):
        argmend._argmend.repair_arrow_buffers(b"abc", b"\0\0\0\0\x09\0\0\0", False, 0, 1, None)
    with pytest.raises(ValueError, match="too short"):
        argmend._argmend.repair_arrow_buffers(b"abc", b"\0\0\0\0", False, 0, 1, None)


def test_repair_arrow_without_pyarrow_says_how_to_get_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # `import pyarrow` fails
    with pytest.raises(ImportError, match=r"pip install 'argmend\[arrow\]'"):
        repair_arrow(["{}"])


def test_the_arrow_docstring_runs():
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    tests = finder.find(argmend.arrow, "argmend.arrow", globs={})
    assert sum(len(t.examples) for t in tests) >= 5
    for test in tests:
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


# ---------------------------------------------------------------------------
# The Dask example, on a local cluster of worker processes


def test_the_dask_example_counts_what_one_process_counts(tmp_path, monkeypatch):
    import pandas as pd

    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(EXAMPLES), os.environ.get("PYTHONPATH", "")]))
    from dask.distributed import Client, LocalCluster

    source, target = tmp_path / "calls", tmp_path / "repaired"
    dask_repair.generate(str(source), calls=50_000, files=8, seed=5)
    expected = dask_repair.single_process_counts(str(source))
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster):
            counts = dask_repair.run(str(source), str(target))
            assert counts == expected
            assert sum(n for k, n in counts.items() if k.startswith("verdict:")) == 50_000
            assert {"verdict:valid", "verdict:repaired", "verdict:completed"} <= set(counts)
            # The Parquet it wrote reads back as a dataset of its own, and
            # repairing that again (its `arguments` column) counts the same.
            again = dask_repair.run(str(target), str(tmp_path / "again"))
            assert again == expected

    written = pd.read_parquet(target, dtype_backend="pyarrow").sort_values("id")
    assert len(written) == 50_000
    sample = written.iloc[::997]
    outcomes = argmend.repair_many(list(sample["arguments"]))
    assert list(sample["repaired"]) == [o.text for o in outcomes]
    assert list(sample["verdict"]) == [o.verdict for o in outcomes]


def test_the_dask_example_runs_from_its_command_line(tmp_path, capsys):
    source = tmp_path / "calls"
    assert dask_repair.main(["generate", str(source), "--calls", "2000", "--files", "2"]) == 0
    assert dask_repair.main(["repair", str(source), str(tmp_path / "out"), "--workers", "2", "--check"]) == 0
    out = capsys.readouterr().out
    assert "single-process counts: the same" in out
    assert "verdict:repaired\t" in out
