#!/usr/bin/env bash
# argmend against its peers in one run: the Rust crates (examples/timing.rs),
# jsonrepair from npm and json_repair from PyPI, on the same files, with the
# same timing loop, and one table of ratios at the end. See README.md.
#
#   bash benches/peers/run.sh [--budget SECS] [--only SUBSTRING]
#
# Installs the JavaScript and Python peers into node_modules/ and .venv/ here
# (git-ignored; skipped when present), writes the workloads to out/
# (git-ignored), and prints the table (also saved as out/table.md).
# About 8–10 minutes on 2 cores with the default 1 s budget a cell.
set -euo pipefail
cd "$(dirname "$0")"

need() { command -v "$1" >/dev/null || { echo "run.sh: $1 is required" >&2; exit 1; }; }
need cargo
need node
need npm
need python3

# 1. The JavaScript and Python peers, pinned in package.json and requirements.txt.
if [ ! -f node_modules/jsonrepair/package.json ]; then
    echo "== npm: jsonrepair into benches/peers/node_modules" >&2
    npm ci --prefix . --no-audit --no-fund >&2
fi
if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c 'import json_repair' 2>/dev/null; then
    echo "== pip: json-repair into benches/peers/.venv" >&2
    python3 -m venv .venv
    .venv/bin/pip install --quiet --disable-pip-version-check -r requirements.txt >&2
fi

# 2. argmend and the Rust peers (their own target/, not the main crate's).
echo "== cargo build --release --examples" >&2
cargo build --release --examples --quiet >&2

# 3. The workloads, as files every harness reads.
echo "== writing the workloads to benches/peers/out" >&2
./target/release/examples/fixtures out >&2

# 4 and 5. Every timing, then the table.
echo "== timing (one process a cell; progress below, the table at the end)" >&2
python3 harness/run.py "$@"
