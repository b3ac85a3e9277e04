#!/usr/bin/env python3
"""Issue 43: what a call costs, and what the server does after answering it.

Usage: benches/memory/work_stops.py [path/to/argmend ...]   (default target/release/argmend)

Each load runs `argmend serve` in a temporary directory and reports, per binary:
  - the wall time until the last answer;
  - the server's CPU time until then (utime + stime from /proc/<pid>/stat);
  - its CPU time in the 100 ms after the last answer, and from 100 to 1,000 ms
    after it (work that goes on after an "out of time" answer shows here);
  - its peak memory (VmHWM from /proc/<pid>/status, read while it runs).
Give several binaries (e.g. one built from an older commit) to compare them in
one run. Not run in CI: it wants a quiet machine; tests/work_stops.rs tests
the bounds themselves.
"""

import json
import os
import subprocess
import sys
import tempfile
import threading
import time

BINS = [os.path.abspath(b) for b in sys.argv[1:]] or [os.path.abspath("target/release/argmend")]
TICK = os.sysconf("SC_CLK_TCK")
PATCH = "--- a/x.txt\n+++ b/x.txt\n@@ -0,0 +1 @@\n+x\n"


def cpu(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def peak_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def run(binary, cwd, timeout_ms, requests, most=40.0):
    proc = subprocess.Popen([binary, "serve", "--timeout-ms", str(timeout_ms), "--workspace", cwd],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    answers = []
    done = threading.Event()

    def read():
        for line in proc.stdout:
            answers.append(line)
            if len(answers) == len(requests):
                done.set()
                return

    threading.Thread(target=read, daemon=True).start()
    started = time.time()
    for request in requests:
        proc.stdin.write((json.dumps(request) + "\n").encode())
    proc.stdin.flush()
    answered = done.wait(most)
    elapsed = time.time() - started
    at_answer = cpu(proc.pid)
    time.sleep(0.1)
    first = cpu(proc.pid) - at_answer
    time.sleep(0.9)
    later = cpu(proc.pid) - at_answer - first
    peak = peak_mb(proc.pid)
    proc.kill()
    proc.wait()
    text = answers[-1][:90].decode(errors="replace") if answers else ""
    when = f"{elapsed:6.2f} s" if answered else f">{most:.0f} s (no answer)"
    return (f"{when}, CPU {at_answer:6.2f} s, after: {first * 1000:4.0f} ms then {later * 1000:4.0f} ms, "
            f"VmHWM {peak:6.0f} MB  | {text.strip()}")


def get(i, file, path):
    return {"id": i, "tool": "@json", "args": {"cmd": "get", "args": {"file": file, "path": path}}}


def loads(d):
    items = ",".join('{"a":%d,"b":2,"c":3,"d":4}' % i for i in range(600_000))
    open(os.path.join(d, "big.json"), "w").write('{"items":[' + items + "]}")
    depth = 40_000
    open(os.path.join(d, "deep.json"), "w").write('{"a":' * depth + "1" + "}" * depth)
    many = ",".join('"k%d":[%d]' % (i, i) for i in range(1_000_000))
    open(os.path.join(d, "many.json"), "w").write("{" + many + "}")
    yaml = "".join("  " * i + "k%d: &a%d\n" % (i, i) for i in range(300))
    open(os.path.join(d, "anchors.yaml"), "w").write(yaml + "  " * 300 + 'leaf: "' + "x" * 2_000_000 + '"\n')
    merge = "base: &b\n" + "".join("  k%d: %d\n" % (i, i) for i in range(60_000))
    open(os.path.join(d, "merge.yaml"), "w").write(merge + "merged:\n  <<: *b\n  own: 1\n")
    for side in ("old", "new"):
        os.makedirs(os.path.join(d, side, "d/" * 20), exist_ok=True)
        open(os.path.join(d, side, "d/" * 20, "x.txt"), "w").write(side)
    long = "/nonexistent/" + "a/" * (1 << 20) + "x.txt"
    apply = lambda i, f: {"id": i, "tool": "@diff", "args": {"cmd": "apply", "args": {
        "file": f, "patch": PATCH, "dry_run": False}}}
    locks = [apply(i, "".join(f"{i:0>200}/" for _ in range(4000)) + "f") for i in range(100)]
    return [
        ("get items[*].* on 17 MB, --timeout-ms 200", 200, [get(1, "big.json", "items[*].*")]),
        ("8 of those at once, --timeout-ms 300", 300, [get(i, "big.json", "items[*].*") for i in range(8)]),
        ("validate 80 KB nested 40,000 deep", 30_000, [{"id": 1, "tool": "@json", "args": {
            "cmd": "validate", "args": {"file": "deep.json"}}}]),
        ("validate 1M keys (16 MB), --timeout-ms 100", 100, [{"id": 1, "tool": "@json", "args": {
            "cmd": "validate", "args": {"file": "many.json"}}}]),
        ("validate YAML, 300 nested anchors over 2 MB", 30_000, [{"id": 1, "tool": "@json", "args": {
            "cmd": "validate", "args": {"file": "anchors.yaml"}}}]),
        ("YAML << of 60,000 keys, --timeout-ms 2000", 2_000, [get(1, "merge.yaml", "merged.k59999")]),
        ("diff dirs --glob with 12 **/, --timeout-ms 1000", 1_000, [{"id": 1, "tool": "@diff", "args": {
            "cmd": "dirs", "args": {"a": "old", "b": "new", "glob": "**/" * 12 + "*.rs"}}}]),
        ("4 applies with 2 MB absolute paths + a get, --timeout-ms 1000", 1_000,
         [apply(i, long) for i in range(4)] + [get(9, "big.json", "items[0].a")]),
        ("100 refused applies that write, 1 MB paths", 30_000, locks),
    ]


def main():
    with tempfile.TemporaryDirectory() as d:
        for name, timeout_ms, requests in loads(d):
            print(name)
            for binary in BINS:
                print(f"  {binary}:\n    {run(binary, d, timeout_ms, requests)}", flush=True)


if __name__ == "__main__":
    main()
