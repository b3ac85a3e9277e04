#!/usr/bin/env bash
# Issue 17's whole-process target: `argmend repair FILE` on a 30 MB
# malformed document, against a serde_json validate-and-copy program on its
# valid twin, both writing to /dev/null, in one run (RUNS each, alternating,
# medians). Ratio = argmend ÷ copy; the target is ≤ 2. Also `argmend repair`
# on the valid twin itself (issue 45: ≤ 1.10× the copy).
#
#   RUNS=7 bash benches/peers/whole_process.sh
set -euo pipefail
cd "$(dirname "$0")"
RUNS=${RUNS:-7}
cargo build --release --example whole --quiet
(cd ../.. && cargo build --release --quiet --bin argmend)
ARGMEND=../../target/release/argmend
mkdir -p out/whole
[ -f out/whole/malformed.json ] || ./target/release/examples/whole gen out/whole
python3 - "$RUNS" "$ARGMEND" <<'PY'
import statistics, subprocess, sys, time
runs, argmend = int(sys.argv[1]), sys.argv[2]
cmds = {
    "argmend repair (malformed)": [argmend, "repair", "out/whole/malformed.json"],
    "argmend repair (valid)": [argmend, "repair", "out/whole/valid.json"],
    "serde_json copy (valid)": ["./target/release/examples/whole", "copy", "out/whole/valid.json"],
}
times = {name: [] for name in cmds}
for _ in range(runs):
    for name, cmd in cmds.items():
        start = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
        times[name].append(time.perf_counter() - start)
med = {name: statistics.median(t) for name, t in times.items()}
for name, m in med.items():
    print(f"{name:28} {m * 1000:8.1f} ms (median of {runs})")
ratio = med["argmend repair (malformed)"] / med["serde_json copy (valid)"]
print(f"ratio argmend / copy: {ratio:.2f} (target <= 2)")
ratio = med["argmend repair (valid)"] / med["serde_json copy (valid)"]
print(f"ratio argmend on the valid twin / copy: {ratio:.2f} (target <= 1.10)")
PY
