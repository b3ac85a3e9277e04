"""Times json_repair (PyPI `json-repair`) on one workload's files; prints one JSON line.

    .venv/bin/python harness/bench.py DIR VARIANT MODE [BUDGET_SECS]

The loop is the one of examples/timing.rs (argmend and the Rust peers) and
harness/bench.mjs (jsonrepair, JavaScript); see examples/timing.rs for it.
The call is `json_repair.repair_json(text)` with its defaults (it tries
`json.loads` first, so valid input takes that path). MODE `stream`
re-repairs every prefix that ends a 16-byte chunk (cut back to a character
boundary), the text a live preview would show after each chunk.
"""

import json
import math
import os
import sys
import time
from importlib.metadata import version

from json_repair import repair_json

CHUNK = 16
STREAM_PASS_MAX = 3.0
MIN_SAMPLE = 0.010
MIN_SAMPLES = 5


def read_cases(folder):
    names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))
    out = []
    for n in names:
        with open(os.path.join(folder, n), "rb") as f:
            out.append(f.read())
    return out


def prefix_ends(data):
    """Character counts of the prefixes that end each CHUNK-byte chunk of the
    UTF-8 bytes `data`, each cut back to a character boundary."""
    ends = []
    n = len(data)
    for i in range(1, (n + CHUNK - 1) // CHUNK + 1):
        end = min(i * CHUNK, n)
        while end < n and (data[end] & 0xC0) == 0x80:
            end -= 1
        ends.append(len(data[:end].decode("utf-8")))
    return ends


def check(text, want):
    try:
        out = repair_json(text)
    except Exception:  # noqa: BLE001 - any failure of the peer is reported
        return "error"
    try:
        got = json.loads(out)
    except ValueError:
        return "invalid"
    return "correct" if got == want else "wrong"


def one(text):
    try:
        return len(repair_json(text))
    except Exception:  # noqa: BLE001 - what a failing call costs is timed too
        return 1


def measure(pass_, budget):
    t = time.perf_counter()
    pass_()
    once = time.perf_counter() - t
    if once >= budget:
        return [once]
    batch = max(1, math.ceil(MIN_SAMPLE / max(once, 1e-9)))
    warm = time.perf_counter()
    while time.perf_counter() - warm < budget / 4:
        pass_()
    samples = []
    start = time.perf_counter()
    while time.perf_counter() - start < budget or len(samples) < MIN_SAMPLES:
        t = time.perf_counter()
        for _ in range(batch):
            pass_()
        samples.append((time.perf_counter() - t) / batch)
        if time.perf_counter() - start > budget * 3:
            break
    return samples


def main():
    folder, variant, mode = sys.argv[1:4]
    budget = float(sys.argv[4]) if len(sys.argv) > 4 else 1.0
    stream = mode == "stream"
    raw = read_cases(os.path.join(folder, variant))
    inputs = [b.decode("utf-8") for b in raw]
    wants = [json.loads(b) for b in read_cases(os.path.join(folder, "valid"))]
    line = {
        "impl": "json_repair_py",
        "lang": "python",
        "version": version("json-repair"),
        "workload": os.path.basename(os.path.normpath(folder)),
        "variant": variant,
        "mode": mode,
        "bytes": sum(len(b) for b in raw),
        "cases": len(inputs),
    }
    line["checks"] = [check(text, want) for text, want in zip(inputs, wants)]

    stride, scale = 1, 1.0
    ends = [prefix_ends(b) for b in raw] if stream else None
    if stream:
        # One call on the middle prefix of each case, x the prefix count.
        t = time.perf_counter()
        for text, es in zip(inputs, ends):
            one(text[: es[len(es) // 2]])
        middle = time.perf_counter() - t
        prefixes = sum(len(e) for e in ends)
        est = middle * prefixes
        if est > STREAM_PASS_MAX:
            stride = math.ceil(est / STREAM_PASS_MAX)
            kept = [
                [e for i, e in enumerate(es) if i % stride == stride - 1 or i == len(es) - 1]
                for es in ends
            ]
            scale = prefixes / sum(len(k) for k in kept)
            ends = kept

    if stream:
        pairs = list(zip(inputs, ends))

        def pass_():
            total = 0
            for text, es in pairs:
                for e in es:
                    total += one(text[:e])
            return total

    else:

        def pass_():
            total = 0
            for text in inputs:
                total += one(text)
            return total

    samples = sorted(s * scale * 1e9 for s in measure(pass_, budget))
    n = len(samples)
    median = samples[n // 2] if n % 2 else (samples[n // 2 - 1] + samples[n // 2]) / 2
    line.update(
        status="ok",
        stride=stride,
        samples=n,
        median_ns=median,
        mean_ns=sum(samples) / n,
    )
    print(json.dumps(line))


if __name__ == "__main__":
    main()
