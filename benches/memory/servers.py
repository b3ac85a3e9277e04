#!/usr/bin/env python3
"""Peak memory of `argmend mcp`, `serve` and `call` under the loads of issue 26.

Usage: benches/memory/servers.py [path/to/argmend]   (default target/release/argmend)

Every load runs under `/usr/bin/time -v`; the figure is its "Maximum resident
set size". The files are made in a temporary directory and removed after:
  - 200 pipelined `json get`s on a 19 MB file (the answers are read);
  - 10,000 `json get`s (~33 KB answers each) from a client that reads nothing
    for 5 s, then everything;
  - `call` with a 1 GB argument (refused at --max-call-bytes, 64 MiB).
Not run in CI: it takes a minute and wants a quiet machine. The bounds
themselves are tested by tests/mcp_bounds.rs and tests/call_bounds.rs.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/release/argmend")
INIT = [
    {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
]


def requests(kind, n, path):
    """`n` gets of `path(i)` in big.json, as `mcp` or `serve` lines."""
    lines = [json.dumps(m) for m in INIT] if kind == "mcp" else []
    for i in range(1, n + 1):
        args = {"cmd": "get", "args": {"file": "big.json", "path": path(i)}}
        if kind == "mcp":
            lines.append(json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                                     "params": {"name": "json", "arguments": args}}))
        else:
            lines.append(json.dumps({"id": i, "tool": "@json", "args": args}))
    return ("\n".join(lines) + "\n").encode()


def measure(argv, feed, cwd, wait_before_reading=0.0):
    """Run `argv` under /usr/bin/time -v with `feed` (bytes, or a callable
    writing to the pipe) on stdin; returns (peak MB, answer lines, exit code)."""
    proc = subprocess.Popen(["/usr/bin/time", "-v", *argv], cwd=cwd, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def write():
        try:
            if callable(feed):
                feed(proc.stdin)
            else:
                proc.stdin.write(feed)
            proc.stdin.close()
        except BrokenPipeError:
            pass

    writer = threading.Thread(target=write)
    writer.start()
    err = []
    errs = threading.Thread(target=lambda: err.append(proc.stderr.read()))
    errs.start()
    time.sleep(wait_before_reading)
    out = proc.stdout.read()
    proc.wait()
    writer.join()
    errs.join()
    peak = re.search(rb"Maximum resident set size \(kbytes\): (\d+)", err[0])
    return int(peak.group(1)) / 1024, out.count(b"\n"), proc.returncode


def main():
    with tempfile.TemporaryDirectory() as tmp:
        items = [{"id": i, "name": "item %d" % i, "pad": "p" * 140} for i in range(100_000)]
        with open(os.path.join(tmp, "big.json"), "w") as f:
            json.dump({"items": items}, f)
        size = os.path.getsize(os.path.join(tmp, "big.json")) / 1e6
        rows = []
        for kind in ("mcp", "serve"):
            feed = requests(kind, 200, lambda i: "items[%d].id" % (i * 97))
            peak, lines, code = measure([BIN, kind, "--workspace", tmp], feed, tmp)
            rows.append(("%s: 200 pipelined gets, %.0f MB file" % (kind, size), peak, lines, code))
        with open(os.path.join(tmp, "big.json"), "w") as f:
            json.dump({"a": "v" * 16_000}, f)
        for kind in ("mcp", "serve"):
            feed = requests(kind, 10_000, lambda i: "a")
            peak, lines, code = measure([BIN, kind, "--workspace", tmp], feed, tmp,
                                        wait_before_reading=5.0)
            rows.append(("%s: 10,000 gets, client reads nothing for 5 s" % kind, peak, lines, code))

        def oversized(pipe):
            pipe.write(b'<tool_call name="@json">{"cmd": "validate", "args": {"text": "')
            chunk = b"x" * (1 << 20)
            for _ in range(1024):
                pipe.write(chunk)
            pipe.write(b'"}}</tool_call>\n')

        peak, lines, code = measure([BIN, "call", "--workspace", tmp], oversized, tmp)
        rows.append(("call: a 1 GB argument", peak, lines, code))
        print("| load | peak RSS | lines out | exit |")
        print("|---|---|---|---|")
        for name, peak, lines, code in rows:
            print("| %s | %.0f MB | %d | %d |" % (name, peak, lines, code))


if __name__ == "__main__":
    main()
