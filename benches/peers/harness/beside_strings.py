"""Score argmend and its peers on the cases of tests/beside_strings.rs (issue 25).

The test writes every case it generates to target/beside-strings-cases.jsonl
(family, split, layout, raw text, truth). This script repairs each raw text
with an argmend binary (`argmend repair --batch`, one shot), optionally with
an older argmend binary the same way, with json_repair (PyPI) and with
jsonrepair (npm, through node), and counts a case right when the result is
the truth: the same JSON value, with the same types (`1` is not `true`, `5`
is not `5.0`), as the Rust test's serde_json comparison. Run:

    bash benches/peers/beside_strings.sh
    OLD_ARGMEND=/path/to/old/argmend bash benches/peers/beside_strings.sh
"""

import argparse
import json
import subprocess
from collections import Counter
from pathlib import Path

import json_repair

HERE = Path(__file__).resolve().parent

JS = r"""
const { jsonrepair } = require(process.argv[1]);
const lines = require('fs').readFileSync(0, 'utf8').split('\n').filter(Boolean);
for (const line of lines) {
  const raw = JSON.parse(line);
  let out = null;
  try { out = {"value": JSON.parse(jsonrepair(raw))}; } catch (e) { out = {"threw": String(e.message).slice(0, 60)}; }
  process.stdout.write(JSON.stringify(out) + '\n');
}
"""


def same(a, b) -> bool:
    """JSON equality with types: Python's `True == 1` and `5 == 5.0` are not."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def argmend_batch(binary: str, cases: list) -> list:
    """The value each case repairs to with `binary repair --batch` (None when not JSON)."""
    stdin = "".join(json.dumps(case["raw"]) + "\n" for case in cases)
    done = subprocess.run([binary, "repair", "--batch"], input=stdin, capture_output=True, text=True, check=True)
    lines = done.stdout.splitlines()
    assert len(lines) == len(cases), f"{binary}: {len(lines)} lines for {len(cases)} cases"
    out = []
    for line in lines:
        answer = json.loads(line)
        out.append((answer.get("json"),) if "error" not in answer else None)
    return out


def json_repair_values(cases: list) -> list:
    out = []
    for case in cases:
        try:
            out.append((json_repair.repair_json(case["raw"], return_objects=True),))
        except Exception:  # a peer failure counts as wrong
            out.append(None)
    return out


def jsonrepair_values(cases: list) -> list:
    module = HERE.parent / "node_modules" / "jsonrepair"
    stdin = "".join(json.dumps(case["raw"]) + "\n" for case in cases)
    done = subprocess.run(["node", "-e", JS, str(module)], input=stdin, capture_output=True, text=True, check=True)
    out = []
    for line in done.stdout.splitlines():
        answer = json.loads(line)
        out.append((answer["value"],) if "value" in answer else None)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("cases", type=Path)
    parser.add_argument("--argmend", required=True, help="the current argmend binary")
    parser.add_argument("--old", help="an older argmend binary")
    args = parser.parse_args()
    cases = [json.loads(line) for line in args.cases.read_text().splitlines() if line]
    columns = {"argmend": argmend_batch(args.argmend, cases)}
    if args.old:
        columns["old engine"] = argmend_batch(args.old, cases)
    columns["json_repair (Py)"] = json_repair_values(cases)
    columns["jsonrepair (JS)"] = jsonrepair_values(cases)

    families = list(dict.fromkeys(case["family"] for case in cases))
    total = Counter()
    threw = Counter()
    right = {name: Counter() for name in columns}
    for i, case in enumerate(cases):
        rows = ["all", case["family"]]
        if case["split"] == "held-out":
            rows.append("held-out")
        for row in rows:
            total[row] += 1
            threw[row] += columns["jsonrepair (JS)"][i] is None
        for name, values in columns.items():
            got = values[i]
            if got is not None and same(got[0], case["truth"]):
                for row in rows:
                    right[name][row] += 1

    print(f"{len(cases)} cases from {args.cases}; argmend: {args.argmend}" + (f"; old engine: {args.old}" if args.old else ""))
    print("| family | cases | " + " | ".join(columns) + " | jsonrepair threw |")
    print("|---|---:|" + "---:|" * (len(columns) + 1))
    for row in ["all", "held-out"] + families:
        n = total[row]
        cells = " | ".join(f"{100 * right[name][row] / n:.1f}%" for name in columns)
        name = f"**{row}**" if row in ("all", "held-out") else row
        print(f"| {name} | {n} | {cells} | {100 * threw[row] / n:.1f}% |")


if __name__ == "__main__":
    main()
