#!/bin/sh
# Lines per second of `argmend repair --batch` with --jobs 1 and --jobs 2 on
# the 100,000 generated tool calls of tests/batch_jobs.rs (issue 31). The
# test writes the file (target/batch-jobs-100k.jsonl, under CARGO_TARGET_DIR
# when it is set); this script runs it when the file is missing, builds the
# release binary, and times each run RUNS times (5 by default), best run
# kept, output to /dev/null. JOBS="1 2 4" times other counts.
set -eu
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-target}
file=$target/batch-jobs-100k.jsonl
if [ ! -f "$file" ]; then
    cargo test --release --quiet --test main batch_jobs::jobs_write_what_one_job_writes >&2
fi
cargo build --release --quiet --bin argmend
bin=$target/release/argmend
lines=$(wc -l < "$file")
runs=${RUNS:-5}
echo "$lines lines, $(( $(wc -c < "$file") / 1048576 )) MB, $(nproc) cores, best of $runs runs"
counts=${JOBS:-1 2}
base=
for jobs in $counts; do
    "$bin" repair --batch --jobs "$jobs" "$file" >/dev/null # warm the page cache
    best=
    i=0
    while [ $i -lt "$runs" ]; do
        start=$(date +%s%N)
        "$bin" repair --batch --jobs "$jobs" "$file" >/dev/null
        ns=$(( $(date +%s%N) - start ))
        if [ -z "$best" ] || [ "$ns" -lt "$best" ]; then best=$ns; fi
        i=$((i + 1))
    done
    base=${base:-$best}
    # Speed-up to two decimals in integer arithmetic.
    ratio=$(( base * 100 / best ))
    printf 'argmend repair --batch --jobs %s: %d ms, %d lines/s, %d.%02dx --jobs %s\n' \
        "$jobs" $(( best / 1000000 )) $(( lines * 1000000000 / best )) \
        $(( ratio / 100 )) $(( ratio % 100 )) "${counts%% *}"
done
