#!/bin/sh
# Times jq, argmend's CLI and (for reference) the library bench's fixture on
# the same ~20 MB document. Run `cargo bench --bench json` first: it writes
# target/bench-data/json_deep20m.json.
set -eu
cd "$(dirname "$0")/.."
file=target/bench-data/json_deep20m.json
[ -f "$file" ] || { echo "run 'cargo bench --bench json' first to write $file"; exit 2; }
command -v jq >/dev/null || { echo "jq is not installed: nothing to compare"; exit 0; }
cargo build --release --quiet
bin=target/release/argmend
runs=${RUNS:-10}
time_it() { # label, command...
    label=$1; shift
    "$@" >/dev/null # warm the page cache
    start=$(date +%s%N)
    i=0
    while [ $i -lt "$runs" ]; do "$@" >/dev/null; i=$((i + 1)); done
    end=$(date +%s%N)
    echo "$label: $(( (end - start) / runs / 1000000 )) ms per run ($runs runs)"
}
echo "answer (jq):      $(jq '.summary.build.stages[-1].result.exit_code' "$file")"
echo "answer (argmend): $($bin json get --file "$file" --path 'summary.build.stages[-1].result.exit_code')"
time_it "jq .summary.build.stages[-1].result.exit_code" jq '.summary.build.stages[-1].result.exit_code' "$file"
time_it "argmend json get (deep, after 20 MB)" "$bin" json get --file "$file" --path 'summary.build.stages[-1].result.exit_code'
time_it "argmend json get (front)" "$bin" json get --file "$file" --path 'records.data[3].id'
