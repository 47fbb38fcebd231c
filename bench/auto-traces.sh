#!/bin/sh
# Traces GHOST_ASYNC=auto on NWChem's test/apps inputs on 2 fake nodes (1
# user and 1 ghost per node, as bench -suite apps-2nodes runs them) and
# writes, per input and library, the job's wall time and `ghost report`'s
# summary: the switches each window made and where, the records on and
# off, and the operations by path. It shows how the predictor decides
# (docs/design.md, "What a vote weighs") where the wall times of
# bench -suite apps-2nodes show only the outcome.
#
# Usage: sh bench/auto-traces.sh [OTHER_BUILD_DIR]
#   With OTHER_BUILD_DIR (a build/ of another commit, e.g. a git worktree's),
#   every input runs under both libraries, interleaved.
# Environment:
#   AUTO_TRACES_ROUNDS  runs per input and library (default 2)
#   AUTO_TRACES_PREFIX  where to write PREFIX.md (default
#                       bench/results/DATE-auto-traces)
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
rounds=${AUTO_TRACES_ROUNDS:-2}
prefix=${AUTO_TRACES_PREFIX:-bench/results/$(date -u +%Y-%m-%dT%H%M%SZ)-auto-traces}
nwchem=/usr/bin/nwchem.mpich
[ -x "$nwchem" ] || { echo "auto-traces: $nwchem not found (apt-get install nwchem-mpich)" >&2; exit 1; }
builds="$root/build"
[ $# -ge 1 ] && builds="$builds $(cd "$1" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp test/apps/nwchem/*.nw "$work"
out="$prefix.md"
{
	echo "# GHOST_ASYNC=auto on NWChem, 2 fake nodes: traces"
	echo
	echo "- $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
	echo "- tree: $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (modified)')"
	echo "- command: ghost run -n 2 -g 1 --hosts nodeA:2,nodeB:2 -- nwchem.mpich INPUT, GHOST_ASYNC=auto GHOST_TRACE=..."
	echo "- wall times are of single runs: bench -suite apps-2nodes has the medians"
} > "$out"
for input in water_scf water_dft ethanol_scf ethanol_dft; do
	echo >> "$out"
	echo "## $input" >> "$out"
	r=1
	while [ "$r" -le "$rounds" ]; do
		for b in $builds; do
			tree=$(git -C "$b/.." rev-parse --short HEAD 2>/dev/null || echo "$b")
			trace="$work/$input.jsonl"
			rm -f "$trace"
			start=$(date +%s%N)
			(cd "$work" && GHOST_ASYNC=auto GHOST_TRACE="$trace" GHOST_LIB="$b/libghost.so" \
				"$b/ghost" run -n 2 -g 1 --hosts nodeA:2,nodeB:2 -- "$nwchem" "$input.nw" > "$work/out.txt" 2>&1)
			wall=$(( ($(date +%s%N) - start) / 1000000 ))
			energy=$(grep -Eo 'Total (SCF|DFT) energy = +-?[0-9.]+' "$work/out.txt" | head -1)
			echo >> "$out"
			echo "### $tree, round $r: $wall ms; $energy" >> "$out"
			echo '```' >> "$out"
			"$b/ghost" report "$trace" | sed -n '1,/^window/p' | sed -n '1,10p' >> "$out"
			"$b/ghost" report "$trace" | awk '/^window/ {n++} n==1' | sed -n '2,12p' >> "$out"
			echo '```' >> "$out"
		done
		r=$((r + 1))
	done
done
echo "auto-traces: wrote $out"
