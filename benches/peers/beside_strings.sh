#!/usr/bin/env bash
# The peers on the cases of tests/beside_strings.rs (issue 25): writes the
# cases (by running that test), installs the peers as run.sh does, builds the
# current argmend binary, and prints one table. With OLD_ARGMEND naming an
# argmend binary (an older engine), that binary gets a column too.
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -f node_modules/jsonrepair/package.json ]; then
    npm ci --prefix . --no-audit --no-fund >&2
fi
if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c 'import json_repair' 2>/dev/null; then
    python3 -m venv .venv
    .venv/bin/pip install --quiet --disable-pip-version-check -r requirements.txt >&2
fi
(cd ../.. && cargo test --release --test main beside_strings::scores -- --nocapture >&2)
(cd ../.. && cargo build --release --bin argmend >&2)
target="${CARGO_TARGET_DIR:-../../target}"
args=("$target/beside-strings-cases.jsonl" --argmend "$target/release/argmend")
if [ -n "${OLD_ARGMEND:-}" ]; then
    args+=(--old "$OLD_ARGMEND")
fi
.venv/bin/python harness/beside_strings.py "${args[@]}"
