"""Runs every timing of `run.sh` and prints the table (standard library only).

    python3 harness/run.py [--budget SECS] [--only SUBSTRING] [--out DIR]

Each measurement is its own process (examples/timing.rs for argmend and the
Rust crates, harness/bench.mjs for jsonrepair, harness/bench.py for
json_repair), so a peer that hangs or aborts costs one cell, not the run.
The JSON line of each goes to OUT/results.jsonl; the table goes to stdout
and OUT/table.md.
"""

import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS = os.path.dirname(HERE)
TIMING = os.path.join(PEERS, "target", "release", "examples", "timing")
NODE = ["node", os.path.join(HERE, "bench.mjs")]
PYTHON = [os.path.join(PEERS, ".venv", "bin", "python"), os.path.join(HERE, "bench.py")]

# The stream rows: (workload, variant).
STREAMS = [
    ("tool_call_200b", "malformed"),
    ("tool_calls_100_400b", "malformed"),
    ("write_file_50k", "malformed"),
    ("api_100k", "valid"),
    ("api_100k", "malformed"),
]
# A process that runs longer than this is stopped and its cell says "timeout".
TIMEOUT = 120
# On api_10m, an implementation whose api_100k time, grown as from api_1k to
# api_100k (at least × 100), exceeds this is skipped.
SKIP_10M_OVER = 60.0


def rust_impls():
    out = subprocess.run([TIMING, "--list"], check=True, capture_output=True, text=True).stdout
    return [tuple(line.split()) for line in out.splitlines() if line.strip()]


def cargo_versions():
    """Crate name -> version from Cargo.lock."""
    versions = {}
    with open(os.path.join(PEERS, "Cargo.lock")) as f:
        for block in f.read().split("[[package]]"):
            name = re.search(r'^name = "([^"]+)"', block, re.M)
            version = re.search(r'^version = "([^"]+)"', block, re.M)
            if name and version:
                versions.setdefault(name.group(1), version.group(1))
    return versions


def applies(kind, variant, mode):
    if kind == "Strict":
        return variant == "valid" and mode == "oneshot"
    if kind == "Partial":
        return variant == "valid"
    return True


def run_one(cmd):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return {"status": "timeout"}
    lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
    if p.returncode != 0 or not lines:
        tail = (p.stderr or p.stdout).strip().splitlines()[-1:] or [""]
        return {"status": "crash", "detail": f"exit {p.returncode}: {tail[0][:200]}"}
    return json.loads(lines[-1])


def fmt_ns(ns):
    if ns is None:
        return "–"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            v = ns / scale
            return f"{v:.3g} {unit}" if v < 100 else f"{v:.0f} {unit}"
    return f"{ns:.0f} ns"


def per_case(r):
    """Median ns per case (per call), or None."""
    if r.get("status") != "ok":
        return None
    return r["median_ns"] / r["cases"]


def at_least(r):
    """Median ns per case, or a lower bound for a timeout (its value is then
    negative: see ratio), or None."""
    if r is not None and r.get("status") == "timeout":
        return -TIMEOUT * 1e9 / max(1, r.get("cases", 1))
    return per_case(r) if r else None


def all_correct(r):
    return r.get("status") == "ok" and all(c == "correct" for c in r["checks"])


def cell(r):
    if r is None:
        return "–"
    st = r.get("status")
    if st == "n/a":
        return "–"
    if st == "timeout":
        return f"> {TIMEOUT} s"
    if st in ("crash", "panic"):
        return st
    if st == "skip":
        return f"skip (≈{r['estimate_s']:.0f} s)"
    checks = r["checks"]
    if all(c == "error" for c in checks):
        return "error"
    s = fmt_ns(per_case(r))
    if r.get("stride", 1) > 1:
        s = "≈" + s
    ok = sum(c == "correct" for c in checks)
    if ok < len(checks):
        s += " ✗" if len(checks) == 1 else f" ✗{ok}/{len(checks)}"
    return s


def ratio(a, b):
    """a ÷ b as text; a negative `a` is a lower bound (a timeout): "> x"."""
    if a is None or b is None or b == 0:
        return "–"
    x = abs(a) / b
    text = f"{x:.3g}" if x < 100 else f"{x:,.0f}"
    return "> " + text if a < 0 else text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--budget", type=float, default=1.0)
    ap.add_argument("--only", default="")
    ap.add_argument("--out", default=os.path.join(PEERS, "out"))
    args = ap.parse_args()
    revision = argmend_revision()  # run.sh has just built argmend from the work tree

    with open(os.path.join(args.out, "workloads.txt")) as f:
        workloads = [l.strip() for l in f if l.strip()]
    rust = rust_impls()
    kinds = {name: kind for name, _, kind in rust}
    crates = {name: krate for name, krate, _ in rust}
    versions = cargo_versions()
    impls = [name for name, _, _ in rust] + ["jsonrepair_js", "json_repair_py"]

    rows = []
    for w in workloads:
        rows.append((w, "valid", "oneshot"))
        rows.append((w, "malformed", "oneshot"))
    rows += [(w, v, "stream") for w, v in STREAMS if w in workloads]
    if args.only:
        rows = [r for r in rows if args.only in " ".join(r)]

    results = {}
    started = time.time()
    log = open(os.path.join(args.out, "results.jsonl"), "w")
    for row in rows:
        w, variant, mode = row
        folder = os.path.join(args.out, w)
        for name in impls:
            kind = kinds.get(name, "Repair")
            if not applies(kind, variant, mode):
                continue
            small = results.get((("api_100k", variant, mode), name))
            tiny = results.get((("api_1k", variant, mode), name))
            if w == "api_10m" and small and per_case(small) is not None:
                # Extrapolate with the growth seen from 1 KB to 100 KB (at least linear).
                growth = 100.0
                if tiny and per_case(tiny):
                    growth = max(growth, per_case(small) / per_case(tiny))
                est = per_case(small) * growth / 1e9
                if est > SKIP_10M_OVER:
                    results[(row, name)] = {"status": "skip", "estimate_s": est}
                    print(f"  {w} {variant} {mode} {name}: skipped, ≈{est:.0f} s a call",
                          file=sys.stderr)
                    continue
            budget = str(args.budget)
            if name == "jsonrepair_js":
                cmd = NODE + [folder, variant, mode, budget]
            elif name == "json_repair_py":
                cmd = PYTHON + [folder, variant, mode, budget]
            else:
                cmd = [TIMING, name, folder, variant, mode, budget]
            t = time.time()
            r = run_one(cmd)
            r.update(impl=name, workload=w, variant=variant, mode=mode)
            results[(row, name)] = r
            log.write(json.dumps(r) + "\n")
            log.flush()
            print(f"  {w} {variant} {mode} {name}: {cell(r)} "
                  f"({time.time() - t:.1f} s)", file=sys.stderr)
    log.close()
    elapsed = time.time() - started

    # Versions of the JavaScript and Python peers, from their lines.
    for r in results.values():
        if r.get("version"):
            versions[r["impl"]] = r["version"]

    peers = [n for n in impls if kinds.get(n) == "Repair"]
    head = (["workload", "bytes", "argmend"]
            + ["serde_json", "jiter"] + peers + ["jsonrepair (JS)", "json_repair (Py)"]
            + ["serde_json ÷ argmend", "JS ÷ argmend", "Py ÷ argmend",
               "best Rust peer ÷ argmend", "one-shot ÷ stream"])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    targets = {"valid": [], "malformed": [], "js": [], "py": [], "stream": [], "call": []}
    for row in rows:
        w, variant, mode = row
        get = lambda n: results.get((row, n))  # noqa: E731
        a = get("argmend")
        at = per_case(a) if a else None
        # serde_json's baseline: one-shot on the valid twin.
        serde = results.get(((w, "valid", "oneshot"), "serde_json"))
        st = per_case(serde) if serde else None
        js, py = get("jsonrepair_js"), get("json_repair_py")
        jt, pt = at_least(js), at_least(py)
        best = None
        for n in peers:
            r = get(n)
            if r and all_correct(r) and (best is None or per_case(r) < per_case(best[1])):
                best = (n, r)
        oneshot = results.get(((w, variant, "oneshot"), "argmend"))
        label = f"{w} {variant}" + (", stream 16 B" if mode == "stream" else "")
        a0 = a or {}
        nbytes = a0.get("bytes")
        size = f"{nbytes:,}" if nbytes else "–"
        if a0.get("cases", 1) > 1:
            size += f" ({a0['cases']} calls)"
        cells = [label, size, cell(a), cell(serde) if mode == "oneshot" else "–",
                 cell(get("jiter"))]
        cells += [cell(get(n)) for n in peers]
        cells += [cell(js), cell(py)]
        cells += [ratio(st, at) if mode == "oneshot" else "–", ratio(jt, at), ratio(pt, at),
                  (f"{ratio(per_case(best[1]), at)} ({best[0]})" if best else "–"),
                  ratio(per_case(oneshot) if oneshot and mode == "stream" else None, at)]
        lines.append("| " + " | ".join(cells) + " |")
        if mode == "oneshot" and variant == "valid" and st and at:
            targets["valid"].append((w, st / at, 1.0))
        if mode == "oneshot" and variant == "malformed":
            if st and at:
                targets["malformed"].append((w, st / at, 0.5))
            # A timeout counts with its lower bound.
            if jt and at:
                targets["js"].append((w, abs(jt) / at, 20.0))
            if pt and at:
                targets["py"].append((w, abs(pt) / at, 500.0))
        if mode == "stream" and w == "api_100k" and oneshot and at:
            targets["stream"].append((f"{w} {variant}", per_case(oneshot) / at, 0.5))
        if mode == "oneshot" and w == "tool_call_200b" and at:
            targets["call"].append((f"{w} {variant}", at, None))

    def verdict(items, fmt="{:.2g}"):
        if not items:
            return "not measured"
        ok = all(x >= lim for _, x, lim in items)
        worst = min(items, key=lambda t: t[1] / t[2])
        return ("met" if ok else "NOT met") + f" (lowest: {worst[0]} {fmt.format(worst[1])})"

    call = [t for t in targets["call"] if "malformed" in t[0]]
    call_s = ("not measured" if not call else
              ("met" if call[0][1] <= 1000 else "NOT met") + f" ({fmt_ns(call[0][1])})")
    out = []
    out.append(f"Measured {datetime.date.today().isoformat()} on {os.cpu_count()} cores "
               f"({platform.machine()}, {cpu_model()}), budget {args.budget} s a cell, "
               f"{elapsed / 60:.1f} min in all; argmend at {revision}.")
    out.append("")
    out += lines
    out.append("")
    out.append("Times are medians per call (per streamed call on stream rows). "
               "✗ = the output is not the valid twin's value (✗k/n: k of n calls right); "
               "≈ = stream time from every k-th prefix, scaled; – = not applicable; "
               f"> {TIMEOUT} s = stopped after {TIMEOUT} s (its ratio is a lower bound). "
               "Ratios are the other's time ÷ argmend's (above 1: argmend is faster); "
               "serde_json is timed on the valid twin; the best Rust peer is the fastest "
               "whose every output was right.")
    out.append("")
    out.append("Versions: " + ", ".join(
        f"{n} {versions.get(crates.get(n, n), '?')}" for n in impls))
    out.append("")
    out.append("Targets (issue 7):")
    out.append(f"- valid passthrough at least as fast as serde_json (serde_json ÷ argmend ≥ 1): "
               f"{verdict(targets['valid'])}")
    out.append(f"- malformed repair at least half serde_json's speed (≥ 0.5): "
               f"{verdict(targets['malformed'])}")
    out.append(f"- ≥ 20× faster than jsonrepair (JS) on malformed input: {verdict(targets['js'])}")
    out.append(f"- ≥ 500× faster than json_repair (Python) on malformed input: "
               f"{verdict(targets['py'])}")
    out.append(f"- 100 KB in 16-byte chunks with snapshots within 2× of one-shot "
               f"(one-shot ÷ stream ≥ 0.5): {verdict(targets['stream'])}")
    out.append(f"- a 200-byte tool call ≤ 1 µs median: {call_s}")
    text = "\n".join(out)
    print(text)
    with open(os.path.join(args.out, "table.md"), "w") as f:
        f.write(text + "\n")


def argmend_revision():
    """The repository's commit, and whether src/ has uncommitted changes."""
    repo = os.path.dirname(os.path.dirname(PEERS))
    try:
        head = subprocess.run(["git", "-C", repo, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", repo, "status", "--porcelain", "--", "src",
                                "Cargo.toml"], capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + (" with uncommitted changes in src/" if dirty else "")


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


if __name__ == "__main__":
    main()
