#!/usr/bin/env bash
# Two builds of examples/profile timed back to back, alternating, on one
# mode (issue 17): the medians and their ratio. Wall clock on a shared
# machine moves 5-20% between runs; alternating the two builds in one run
# keeps the comparison fair.
#
#   bash benches/peers/ab.sh BASE_BINARY NEW_BINARY MODE REPS [ROUNDS]
#
# e.g. cp target/release/examples/profile /tmp/profile.base; (change, build);
#      bash ab.sh /tmp/profile.base target/release/examples/profile api 61 9
set -euo pipefail
base=$1 new=$2 mode=$3 reps=$4 rounds=${5:-7}
a=() b=()
for _ in $(seq "$rounds"); do
    a+=("$(PROFILE_TIME=1 "$base" "$mode" "$reps" 2>&1 >/dev/null)")
    b+=("$(PROFILE_TIME=1 "$new" "$mode" "$reps" 2>&1 >/dev/null)")
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
ma=$(median "${a[@]}") mb=$(median "${b[@]}")
awk -v m="$mode" -v a="$ma" -v b="$mb" 'BEGIN {printf "%s: base %.0f ns, new %.0f ns, new/base %.3f\n", m, a, b, b/a}'
