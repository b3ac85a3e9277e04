"""argmend vs json_repair and json, in one process, on the same inputs.

    python python/bench.py            # the table in the README's Python section
    python python/bench.py --quick    # fewer repeats, for a smoke run
    python python/bench.py --batches  # the batch rows alone
    python python/bench.py --dask [N] # the Dask example over N calls (200,000), on a local cluster and in one thread

Rows:
- `repair_json` on 200-byte malformed tool calls, 50 KB `write_file` calls and
  1 MB documents, argmend vs json_repair, both called as Pydantic AI
  Harness calls json_repair (`skip_json_loads=True, ensure_ascii=False`);
- `loads` on valid JSON, argmend vs `json.loads` (what going through argmend
  costs when the input was fine);
- batches (issue 31): `repair_many` over 20,000 small calls, on every core
  and on one thread, against a Python loop of `repair` and of `repair_json`
  on the same calls, and json_repair's loop (calls per second);
- the pydantic-ai capability's hook per tool call, argmend's
  `RepairToolArguments` vs the harness's (json_repair), on valid and broken
  arguments.

Each figure is the median of several timed repeats; ratios are what to quote,
since the machines are shared and noisy.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
import types


def parse_args(argv: list[str]) -> argparse.Namespace:
    """The command line (the usage lines above); `--help` prints them."""
    parser = argparse.ArgumentParser(
        prog="python python/bench.py",
        description=__doc__.split("\n\n")[0].strip(),
        epilog="\n\n".join(__doc__.split("\n\n")[1:]),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--quick", action="store_true", help="fewer repeats, for a smoke run")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--batches", action="store_true", help="the batch rows alone")
    what.add_argument(
        "--dask",
        nargs="?",
        type=int,
        const=200_000,
        metavar="N",
        help="the Dask example over N calls (default 200,000), on a local cluster and in one thread",
    )
    return parser.parse_args(argv)


# Parsed before anything is timed, so `--help` or a wrong flag costs nothing.
ARGS = parse_args(sys.argv[1:] if __name__ == "__main__" else [])

import json_repair  # noqa: E402 (after the command line: `--help` needs neither)

import argmend  # noqa: E402


QUICK = ARGS.quick
REPEATS = 3 if QUICK else 7


def per_call(function, inputs, min_time=0.05 if QUICK else 0.25):
    """Median seconds per call of `function` over `inputs`, in repeats of at least `min_time`."""
    loops = 1
    while True:
        start = time.perf_counter()
        for _ in range(loops):
            for item in inputs:
                function(item)
        elapsed = time.perf_counter() - start
        if elapsed >= min_time:
            break
        loops *= 2
    samples = [elapsed]
    for _ in range(REPEATS - 1):
        start = time.perf_counter()
        for _ in range(loops):
            for item in inputs:
                function(item)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) / (loops * len(inputs))


def small_calls(n: int = 40) -> list[str]:
    """About 200-byte tool calls, broken the ways models break them."""
    rng = random.Random(11)
    calls = []
    breakages = [
        lambda s: s.replace('"', "'"),  # single quotes
        lambda s: s[:-1] + ",}",  # trailing comma
        lambda s: s.replace('"path"', "path").replace('"mode"', "mode"),  # bare keys
        lambda s: s.replace("true", "True").replace("null", "None"),  # Python literals
        lambda s: s[: len(s) * 3 // 4],  # cut off
        lambda s: "```json\n" + s + "\n```",  # fenced
    ]
    for i in range(n):
        call = json.dumps(
            {
                "path": f"src/module_{i}/handler_{rng.randint(0, 999)}.py",
                "content": f"def handler_{i}(event):\n    return event.get('id', {i}) + {rng.randint(1, 99)}\n",
                "mode": "overwrite",
                "create_dirs": True,
                "encoding": None,
                "reason": f"fix the off-by-one in handler {i}",
            }
        )
        calls.append(breakages[i % len(breakages)](call))
    return calls


def write_file_call(size: int, seed: int) -> str:
    """A `write_file` call whose content is `size` bytes of Python, with
    trailing commas and a bare key (the content itself is escaped correctly)."""
    rng = random.Random(seed)
    lines = []
    total = 0
    while total < size:
        n = rng.randint(0, 999)
        line = rng.choice(
            [
                f"def f_{n}(x, y={n}):",
                f'    return {{"key_{n}": x + y, "name": "item {n}"}}',
                f"    print(f\"value: {{x}} and {n}\")",
                f"class C{n}(Base):",
                f"    items = [{n}, {n + 1}, {n + 2}]",
                "",
            ]
        )
        lines.append(line)
        total += len(line) + 1
    content = json.dumps("\n".join(lines) + "\n")
    return '{path: "src/generated.py", "content": ' + content + ', "overwrite": true,}'


def document(size: int, seed: int) -> str:
    """A malformed document of about `size` bytes: single quotes, bare keys,
    trailing commas, Python literals."""
    rng = random.Random(seed)
    parts = []
    total = 0
    i = 0
    while total < size:
        item = (
            "{id: %d, 'name': 'user %d', \"tags\": ['a', 'b',], active: %s, score: %d.%d, note: None,}"
            % (i, rng.randint(0, 99999), rng.choice(["True", "False"]), rng.randint(0, 99), rng.randint(0, 9))
        )
        parts.append(item)
        total += len(item) + 2
        i += 1
    return "[" + ",\n".join(parts) + ",]"


def valid(size: int, seed: int) -> str:
    rng = random.Random(seed)
    items = []
    total = 0
    i = 0
    while total < size:
        item = {
            "id": i,
            "name": f"user {rng.randint(0, 99999)}",
            "tags": ["a", "b"],
            "active": rng.random() < 0.5,
            "score": rng.randint(0, 9999) / 100,
            "note": None,
        }
        text = json.dumps(item)
        items.append(item)
        total += len(text) + 2
        i += 1
    return json.dumps(items)


def row(label: str, size: str, ours: float, theirs: float, peer: str, target: str):
    ratio = theirs / ours
    print(f"| {label} | {size} | {ours * 1e6:,.1f} µs | {theirs * 1e6:,.1f} µs ({peer}) | {ratio:,.1f}× | {target} |")


def hook_latency():
    """Per-call time of the capability hook, argmend's vs the harness's."""
    try:
        from pydantic_ai.messages import ToolCallPart
        from pydantic_ai.tools import ToolDefinition
        from opentelemetry.trace import NoOpTracer
    except ImportError:
        print("(pydantic-ai not installed: the capability rows are skipped)")
        return
    from argmend.pydantic_ai import RepairToolArguments

    try:
        from pydantic_ai_harness.repair_tool_arguments import RepairToolArguments as Harness
    except ImportError:
        Harness = None
    schema = {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}, "overwrite": {"type": "boolean"}},
        "required": ["path", "content"],
    }
    tool_def = ToolDefinition(name="write_file", parameters_json_schema=schema)
    ctx = types.SimpleNamespace(tracer=NoOpTracer())
    valid_args = json.dumps({"path": "a.py", "content": "print('hello')\n" * 10, "overwrite": True})
    broken_args = "{'path': 'a.py', 'content': 'print(\"hello\")\\n', overwrite: True,}"

    def timed(capability, args):
        call = ToolCallPart("write_file", args, tool_call_id="c")

        def once(_):
            coroutine = capability.before_tool_validate(ctx, call=call, tool_def=tool_def, args=args)
            try:
                coroutine.send(None)
            except StopIteration:
                pass

        return per_call(once, [None])

    ours = RepairToolArguments()
    for label, args in [("valid arguments (pass-through)", valid_args), ("broken arguments (repair)", broken_args)]:
        mine = timed(ours, args)
        if Harness is not None:
            theirs = timed(Harness(), args)
            row(f"capability hook, {label}", f"{len(args)} B", mine, theirs, "harness + json_repair", "")
        else:
            print(f"| capability hook, {label} | {len(args)} B | {mine * 1e6:,.1f} µs | | | |")


def batches():
    """Calls per second of a batch of small calls, several ways, and ratios to the loop.

    The ways take turns, round after round, and each keeps its best round
    (as `timeit` advises): on a shared machine, a neighbour's burst then
    slows one round of each, not every round of one.
    """
    import os

    calls = small_calls(20_000)
    average = sum(len(c) for c in calls) // len(calls)
    ways = {
        "`repair_many(calls)` (every core)": lambda: argmend.repair_many(calls),
        "`repair_many(calls, threads=1)`": lambda: argmend.repair_many(calls, threads=1),
        "`[repair(t) for t in calls]`": lambda: [argmend.repair(t) for t in calls],
        "`[repair_json(t) for t in calls]`": lambda: [argmend.repair_json(t) for t in calls],
    }
    try:
        import pyarrow
        from argmend.arrow import repair_arrow

        column = pyarrow.array(calls)
        ways["`repair_arrow(column)` (every core)"] = lambda: repair_arrow(column)
        ways["`repair_arrow(column, threads=1)`"] = lambda: repair_arrow(column, threads=1)
    except ImportError:
        pass
    best = dict.fromkeys(ways, float("inf"))
    for _ in range(5 if QUICK else 25):
        for label, way in ways.items():
            start = time.perf_counter()
            result = way()
            best[label] = min(best[label], time.perf_counter() - start)
            del result
    peer_calls = calls[:500]
    peer = len(peer_calls) / min(
        timed_once(lambda: [json_repair.repair_json(t) for t in peer_calls]) for _ in range(3)
    )
    rates = {label: len(calls) / seconds for label, seconds in best.items()}
    rates["`[json_repair.repair_json(t) for t in calls]`"] = peer
    loop_repair = rates["`[repair(t) for t in calls]`"]
    loop_json = rates["`[repair_json(t) for t in calls]`"]
    print()
    print(f"Batches of {len(calls):,} calls of about {average} B, {os.cpu_count()} cores, best round of each:")
    print()
    print("| what | calls/s | × loop of `repair` | × loop of `repair_json` |")
    print("|---|---|---|---|")
    for label, rate in rates.items():
        print(f"| {label} | {rate:,.0f} | {rate / loop_repair:.2f}× | {rate / loop_json:.2f}× |")


def timed_once(function):
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def dask_run(calls: int = 200_000):
    """Seconds for python/examples/dask_repair.py over `calls` generated calls:
    on a LocalCluster of 2 worker processes, on Dask's synchronous scheduler
    (the same graph, one task at a time; pyarrow's reader and writer still use
    threads of their own), and `single_process_counts` (a plain
    `repair_many` over the lines, no Parquet written)."""
    import pathlib
    import tempfile

    import dask
    from dask.distributed import Client, LocalCluster

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / "examples"))
    import dask_repair

    with tempfile.TemporaryDirectory() as tmp:
        source = f"{tmp}/calls"
        dask_repair.generate(source, calls, files=16, seed=0)

        def timed(function, runs=3):
            return min(timed_once(function) for _ in range(runs))

        single = timed(lambda: dask_repair.single_process_counts(source))
        with dask.config.set(scheduler="synchronous"):
            synchronous = timed(lambda: dask_repair.run(source, f"{tmp}/sync"))
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
            with Client(cluster):
                dask_repair.run(source, f"{tmp}/warm")  # workers import argmend and pyarrow once
                cluster_time = timed(lambda: dask_repair.run(source, f"{tmp}/cluster"))
    print()
    print(f"python/examples/dask_repair.py over {calls:,} generated calls (16 JSON Lines files), best of 3:")
    print()
    print("| how | seconds | calls/s |")
    print("|---|---|---|")
    for label, seconds in [
        ("`LocalCluster(n_workers=2)`: read, repair, write Parquet, count", cluster_time),
        ("the same graph on Dask's synchronous scheduler (one task at a time)", synchronous),
        ("`single_process_counts`: `json.loads` per line and one `repair_many`", single),
    ]:
        print(f"| {label} | {seconds:.2f} | {calls / seconds:,.0f} |")


def main():
    if ARGS.batches:
        batches()
        return
    if ARGS.dask is not None:
        dask_run(ARGS.dask)
        return
    print("| what | input | argmend | peer | peer ÷ argmend | target |")
    print("|---|---|---|---|---|---|")
    harness = {"skip_json_loads": True, "ensure_ascii": False}
    calls = small_calls()
    average = sum(len(c) for c in calls) // len(calls)
    row(
        "`repair_json`, malformed tool calls",
        f"{average} B",
        per_call(lambda s: argmend.repair_json(s, **harness), calls),
        per_call(lambda s: json_repair.repair_json(s, **harness), calls[:10], min_time=0.2),
        "json_repair",
        "≥ 100×",
    )
    big_calls = [write_file_call(50_000, seed) for seed in range(4)]
    row(
        "`repair_json`, `write_file` calls",
        "50 KB",
        per_call(lambda s: argmend.repair_json(s, **harness), big_calls),
        per_call(lambda s: json_repair.repair_json(s, **harness), big_calls[:1], min_time=0.2),
        "json_repair",
        "≥ 300×",
    )
    docs = [document(1_000_000, 5)]
    row(
        "`repair_json`, malformed documents",
        "1 MB",
        per_call(lambda s: argmend.repair_json(s, **harness), docs),
        per_call(lambda s: json_repair.repair_json(s, **harness), docs, min_time=0.5),
        "json_repair",
        "",
    )
    for size, label in [(200, "200 B"), (50_000, "50 KB"), (1_000_000, "1 MB")]:
        texts = [valid(size, seed) for seed in range(4 if size < 1_000_000 else 1)]
        ours = per_call(argmend.loads, texts)
        theirs = per_call(json.loads, texts)
        print(
            f"| `loads`, valid JSON | {label} | {ours * 1e6:,.1f} µs | {theirs * 1e6:,.1f} µs (`json.loads`) "
            f"| argmend takes {ours / theirs:.2f}× | ≤ 1.5× |"
        )
    hook_latency()
    batches()


if __name__ == "__main__":
    main()
