#!/bin/sh
# The steps that enter a communication phase of the multiphase benchmark
# under P (GHOST_ASYNC=auto, GHOST_PREDICT_INT=10ms, no GP exchange), on one
# node with every window through the ghost: 2 users, 1 ghost. A step that
# runs redirected costs a few milliseconds there against about 0.25 ms
# direct, so the first two steps of phases 2 and 6 show when P switched
# off: after the first step (the least any profiling can do), or later.
# Usage:
#   bench/multiphase-steps.sh [RUNS] [VAR=value...]
# runs the passive and the fence variants RUNS times each (default 10),
# with the variables added to the job's environment, and prints per
# variant the median total, the median and mean of the entry steps (step
# 0 of phases 2 and 6) and how many second steps (step 1) still took over
# 1.5 ms. Run after `make` (it uses build/ghost).
set -eu
cd "$(dirname "$0")/.."
runs=${1:-10}
[ $# -gt 0 ] && shift
dir=$(mktemp -d)
mpicc -O2 -o "$dir/multiphase" bench/programs/multiphase.c
i=0
while [ "$i" -lt "$runs" ]; do
	for sync in passive fence; do
		env "$@" MULTIPHASE_STEPS=1 GHOST_NODE_LOCAL=off GHOST_ASYNC=auto GHOST_PREDICT_INT=10ms GHOST_GSYNC_INT=0 \
			timeout 60 ./build/ghost run -n 2 -g 1 -- "$dir/multiphase" static 40 1000 "$sync" 2>&1 |
			awk -v sync="$sync" '
				$1 == "step" && ($2 == 2 || $2 == 6) && $3 == 0 { entry = entry " " $4 }
				$1 == "step" && ($2 == 2 || $2 == 6) && $3 == 1 { second = second " " $4 }
				$1 == "total" { print sync, $2, entry, second }' >>"$dir/rows"
	done
	i=$((i + 1))
done
for sync in passive fence; do
	awk -v sync="$sync" '$1 == sync && NF == 6' "$dir/rows" >"$dir/$sync"
	n=$(wc -l <"$dir/$sync")
	total=$(awk '{ print $2 }' "$dir/$sync" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	entries=$(awk '{ print $3; print $4 }' "$dir/$sync" | sort -n |
		awk '{ v[NR] = $1; s += $1 } END { printf "median %.1f ms, mean %.1f ms", v[int((NR + 1) / 2)], s / NR }')
	late=$(awk '{ print $5; print $6 }' "$dir/$sync" | awk '$1 > 1.5 { late++ } END { printf "%d of %d", late, NR }')
	echo "$sync: $n runs; total median $total s; entry steps $entries; second steps over 1.5 ms: $late"
done
rm -rf "$dir"
