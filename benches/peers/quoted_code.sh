#!/usr/bin/env bash
# The peers on the calls of tests/quoted_code.rs: writes the calls (by running
# that test), installs the peers as run.sh does, and prints one table.
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -f node_modules/jsonrepair/package.json ]; then
    npm ci --prefix . --no-audit --no-fund >&2
fi
if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c 'import json_repair' 2>/dev/null; then
    python3 -m venv .venv
    .venv/bin/pip install --quiet --disable-pip-version-check -r requirements.txt >&2
fi
(cd ../.. && cargo test --release --test main quoted_code::scores -- --nocapture >&2)
target="${CARGO_TARGET_DIR:-../../target}"
.venv/bin/python harness/quoted_code.py "$target/quoted-code-calls.jsonl"
