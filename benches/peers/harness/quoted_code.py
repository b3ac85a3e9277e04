"""Score the peers on the calls of tests/quoted_code.rs (issue 11).

The test writes every broken call it generates to
target/quoted-code-calls.jsonl (raw text, truth, pool). This script repairs
each raw text with json_repair (PyPI) and jsonrepair (npm, through node) and
counts a call right when the result parses to the truth, as the Rust test
does for argmend. Run after `cargo test --release --test main quoted_code`:

    bash benches/peers/quoted_code.sh
"""

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import json_repair

HERE = Path(__file__).resolve().parent
CALLS = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parents[2] / "target" / "quoted-code-calls.jsonl"

JS = r"""
const { jsonrepair } = require(process.argv[1]);
const lines = require('fs').readFileSync(0, 'utf8').split('\n').filter(Boolean);
for (const line of lines) {
  const raw = JSON.parse(line);
  let out = null;
  try { out = JSON.parse(jsonrepair(raw)); } catch (e) { out = {"__threw__": String(e.message).slice(0, 60)}; }
  process.stdout.write(JSON.stringify(out) + '\n');
}
"""


def main() -> None:
    calls = [json.loads(line) for line in CALLS.read_text().splitlines() if line]
    right = {"json_repair": Counter(), "jsonrepair": Counter()}
    threw = Counter()
    total = Counter()
    for call in calls:
        total[call["pool"]] += 1
        total["all"] += 1
        try:
            value = json_repair.repair_json(call["raw"], return_objects=True)
        except Exception:  # a peer failure counts as wrong
            value = None
        if value == call["truth"]:
            right["json_repair"][call["pool"]] += 1
            right["json_repair"]["all"] += 1
    module = HERE.parent / "node_modules" / "jsonrepair"
    stdin = "".join(json.dumps(call["raw"]) + "\n" for call in calls)
    done = subprocess.run(["node", "-e", JS, str(module)], input=stdin, capture_output=True, text=True, check=True)
    for call, line in zip(calls, done.stdout.splitlines()):
        value = json.loads(line)
        if isinstance(value, dict) and "__threw__" in value:
            threw[call["pool"]] += 1
            threw["all"] += 1
        elif value == call["truth"]:
            right["jsonrepair"][call["pool"]] += 1
            right["jsonrepair"]["all"] += 1
    print(f"{len(calls)} calls from {CALLS}")
    print("| pool | calls | json_repair (Py) | jsonrepair (JS) | jsonrepair threw |")
    print("|---|---|---|---|---|")
    for pool in ["all", "dev", "held-out", "fresh"]:
        n = total[pool]
        if not n:
            continue
        pct = lambda k: f"{100 * right[k][pool] / n:.1f}%"
        print(f"| {pool} | {n} | {pct('json_repair')} | {pct('jsonrepair')} | {100 * threw[pool] / n:.1f}% |")


if __name__ == "__main__":
    main()
