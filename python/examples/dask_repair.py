"""Repair a dataset of recorded tool calls on a Dask cluster, and count the faults.

The dataset is JSON Lines (or Parquet) files of records such as
``{"id": 7, "tool": "write_file", "arguments": "{path: 'a.py', ..."}``, where
``arguments`` is the text the model wrote, broken or not. Each partition is
repaired by :func:`argmend.arrow.repair_arrow` (Arrow in, Arrow out, no
Python object per row); the result is written as Parquet with the repaired
text, the verdict and the fix and doubt kinds of every call, and the counts
per verdict and per fix kind are printed. (Read the Parquet back with
``pandas.read_parquet(path, dtype_backend="pyarrow")``, or ``pyarrow``
itself: its list columns have Arrow types.)

One machine, with a local cluster of worker processes::

    pip install './python[dask]'
    python python/examples/dask_repair.py generate calls/ --calls 100000
    python python/examples/dask_repair.py repair calls/ repaired/ --workers 2

Many machines: start ``dask scheduler`` on one, ``dask worker tcp://HOST:8786``
on each of the others (each with ``argmend`` installed and the data reachable
at the same path or URL: a shared filesystem, ``s3://`` or ``gs://``), and
give the scheduler's address::

    python python/examples/dask_repair.py repair s3://bucket/calls/ s3://bucket/repaired/ \\
        --scheduler tcp://HOST:8786

Nothing else changes: the code below never asks where it runs.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Optional

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from argmend.arrow import repair_arrow

# ----------------------------------------------------------------------------
# The work of one partition


def repair_partition(frame: pd.DataFrame, threads: int = 1, column: str = "arguments") -> pd.DataFrame:
    """``frame`` with the repair of its ``column`` beside it.

    Runs on a worker. ``threads=1``: Dask already runs one task per worker
    thread, and each task releases the GIL while it repairs, so the cores are
    busy without a pool inside the task as well.
    """
    result = repair_arrow(pa.array(frame[column], type=pa.string(), from_pandas=True), threads=threads)
    out = frame.copy()
    out["repaired"] = pd.Series(pd.arrays.ArrowExtensionArray(result.column("text")), index=frame.index)
    out["verdict"] = pd.Series(
        pd.arrays.ArrowExtensionArray(result.column("verdict").cast(pa.string())), index=frame.index
    )
    for name in ("fixes", "doubts", "fix_kinds", "doubt_kinds"):
        out[name] = pd.Series(pd.arrays.ArrowExtensionArray(result.column(name)), index=frame.index)
    return out


def fault_counts(frame: pd.DataFrame) -> pd.Series:
    """How many calls of ``frame`` have each verdict, and how many fixes of
    each kind its calls needed, as one Series indexed ``verdict:...`` and
    ``fix:...`` (so the counts of every partition add up)."""
    verdicts = pc.value_counts(pa.array(frame["verdict"]))
    kinds = pc.value_counts(pc.list_flatten(pa.array(frame["fix_kinds"])))
    counts = {f"verdict:{v['values']}": v["counts"] for v in verdicts.to_pylist() if v["values"] is not None}
    counts.update({f"fix:{k['values']}": k["counts"] for k in kinds.to_pylist()})
    return pd.Series(counts, dtype="int64")


def run(source: str, target: str, *, threads: int = 1) -> dict[str, int]:
    """Repair every call under ``source`` (``*.jsonl`` or ``*.parquet``) on
    the current Dask client, write the result to ``target`` as Parquet, and
    return the counts by verdict and fix kind."""
    import dask
    import dask.dataframe as dd

    calls = _read(dd, source)
    meta = repair_partition(calls._meta.copy(), threads)
    repaired = calls.map_partitions(repair_partition, threads, meta=meta)
    write = repaired.to_parquet(target, write_index=False, compute=False)
    per_partition = repaired.map_partitions(fault_counts, meta=pd.Series(dtype="int64"))
    # One pass over the data: the writes and the counts share the repairs.
    _, counts = dask.compute(write, per_partition)
    totals = counts.groupby(level=0).sum()
    return {key: int(n) for key, n in sorted(totals.items())}


def _read(dd: Any, source: str) -> Any:
    import fsspec

    source = source.rstrip("/")
    if source.endswith(".parquet") or (Path(source).is_dir() and any(Path(source).glob("*.parquet"))):
        # The Arrow types of the columns it wrote (lists of fix kinds) read back
        # as they were written.
        return dd.read_parquet(source, dtype_backend="pyarrow")
    pattern = source if source.endswith(".jsonl") or "*" in source else f"{source}/*.jsonl"
    # One partition per file, read by pyarrow's JSON reader straight into
    # Arrow columns: no Python object per line on the way in either. fsspec
    # (which Dask uses) lists local paths and s3://, gs://, ... alike.
    paths = [f.path if "://" not in pattern else f.full_name for f in fsspec.open_files(pattern)]
    if not paths:
        raise FileNotFoundError(f"no *.jsonl files match {pattern}")
    return dd.from_map(_read_jsonl, paths)


def _read_jsonl(path: str) -> pd.DataFrame:
    import fsspec
    import pyarrow.json as pj

    # `arguments` is always text, even where a line's is "42" or missing.
    options = pj.ParseOptions(explicit_schema=pa.schema([("arguments", pa.string())]), unexpected_field_behavior="infer")
    with fsspec.open(path, "rb") as lines:
        table = pj.read_json(lines, parse_options=options)
    return table.to_pandas(types_mapper=pd.ArrowDtype)


def single_process_counts(source: str) -> dict[str, int]:
    """The counts :func:`run` gives, computed here with :func:`argmend.repair_many`
    over every call in one process: the check that spreading changes nothing."""
    import argmend

    arguments = []
    for path in sorted(Path(source).glob("*.jsonl")):
        with open(path, encoding="utf-8") as lines:
            arguments.extend(json.loads(line)["arguments"] for line in lines if line.strip())
    counts: Counter[str] = Counter()
    for outcome in argmend.repair_many(arguments):
        counts[f"verdict:{outcome.verdict}"] += 1
        counts.update(f"fix:{fix.kind}" for fix in outcome.fixes)
    return dict(sorted(counts.items()))


# ----------------------------------------------------------------------------
# A dataset to try it on: calls broken the ways models break them

_CODE = [
    'def greet(name):\n    print(f"Hello, {name}!")\n    return {"greeting": "hi"}\n',
    'const msg = "it\'s " + user.name;\nconsole.log(`say "${msg}"`);\n',
    'if [ "$1" = "-v" ]; then\n  echo "verbose: \\"on\\""\nfi\n',
    'SELECT name FROM users WHERE note = "a \\"quoted\\" word";\n',
    'fmt.Println("path:", filepath.Join(dir, "a.go"))\n',
]
_PATHS = ["src/main.py", "README.md", "lib/util.ts", "cmd/run.go", "docs/guide.md", "tests/test_a.py"]
_QUERIES = ["where is the config loaded", "TODO: fix", 'error "not found"', "user's settings"]


def _call(rng: random.Random) -> tuple[str, dict]:
    tool = rng.choice(["read_file", "write_file", "bash", "search"])
    if tool == "read_file":
        return tool, {"path": rng.choice(_PATHS), "limit": rng.choice([50, 200, 1000])}
    if tool == "write_file":
        return tool, {"path": rng.choice(_PATHS), "content": rng.choice(_CODE)}
    if tool == "bash":
        return tool, {"command": rng.choice(['ls -la "my dir"', "grep -rn 'x' src", "cargo test -- --nocapture"])}
    return tool, {"query": rng.choice(_QUERIES), "max_results": rng.randint(1, 50), "regex": rng.random() < 0.5}


def _break(rng: random.Random, args: dict) -> str:
    """The arguments as a model might have written them."""
    text = json.dumps(args)
    fault = rng.randrange(10)
    if fault == 0:  # whole and valid
        return text
    if fault == 1:  # Python's quotes and literals
        return repr(args)
    if fault == 2:  # keys left bare
        for key in args:
            text = text.replace(f'"{key}":', f"{key}:", 1)
        return text
    if fault == 3:  # a trailing comma
        return text[:-1] + ",}"
    if fault == 4:  # cut off mid-stream
        return text[: rng.randrange(1, len(text))]
    if fault == 5:  # code's quotes left unescaped
        return text.replace('\\"', '"')
    if fault == 6:  # in a Markdown fence, with a sentence before it
        return f"Here are the arguments:\n```json\n{text}\n```"
    if fault == 7:  # a missing comma between members
        return text.replace(", ", " ", 1)
    if fault == 8:  # a comment
        return text[:-1] + " // done\n}"
    return text + text[-1]  # a stray closer


def generate(directory: str, calls: int, files: int = 8, seed: int = 0) -> list[Path]:
    """Write ``calls`` generated records to ``files`` JSON Lines files in ``directory``."""
    rng = random.Random(seed)
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"calls-{i:03}.jsonl" for i in range(files)]
    handles = [open(path, "w", encoding="utf-8") for path in paths]
    try:
        for i in range(calls):
            tool, args = _call(rng)
            record = {"id": i, "tool": tool, "arguments": _break(rng, args)}
            handles[i * files // calls].write(json.dumps(record) + "\n")
    finally:
        for handle in handles:
            handle.close()
    return paths


# ----------------------------------------------------------------------------
# Command line


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("generate", help="write a dataset of broken calls to try it on")
    make.add_argument("directory")
    make.add_argument("--calls", type=int, default=100_000)
    make.add_argument("--files", type=int, default=8)
    make.add_argument("--seed", type=int, default=0)
    fix = commands.add_parser("repair", help="repair a dataset on a Dask cluster")
    fix.add_argument("source", help="a directory of *.jsonl or *.parquet files, or a glob")
    fix.add_argument("target", help="where the repaired Parquet dataset goes")
    fix.add_argument("--scheduler", help="a running cluster's address (tcp://HOST:8786); default: a local one")
    fix.add_argument("--workers", type=int, default=None, help="worker processes of the local cluster")
    fix.add_argument("--check", action="store_true", help="also count in one process and compare")
    args = parser.parse_args(argv)

    if args.command == "generate":
        paths = generate(args.directory, args.calls, args.files, args.seed)
        print(f"wrote {args.calls} calls to {len(paths)} files in {args.directory}")
        return 0

    from dask.distributed import Client, LocalCluster

    if args.scheduler:
        client, cluster = Client(args.scheduler), None
    else:
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True)
        client = Client(cluster)
    try:
        counts = run(args.source, args.target)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    for key, n in counts.items():
        print(f"{key}\t{n}")
    if args.check:
        same = counts == single_process_counts(args.source)
        print("single-process counts: " + ("the same" if same else "DIFFERENT"))
        return 0 if same else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
