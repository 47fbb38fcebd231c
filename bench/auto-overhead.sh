#!/bin/sh
# Where GHOST_ASYNC=auto's cost goes when it does not switch: runs one
# NWChem input of test/apps, or ARMCI-MPI's NXTASK (INPUT nxtask,
# test/apps/armci/armci_nxtask.c), on 2 fake nodes (1 user and 1 ghost per node,
# as bench -suite apps-2nodes does) under several environments, rounds
# interleaved, and writes each one's wall seconds and median. The
# environments take auto's parts one at a time: static on, on with the
# profiling timers (GHOST_PROFILE=1), auto, and auto without quiescence
# (GHOST_QUIESCE=off). Where auto keeps the window redirected for the whole
# run (dedicated cores: bench/auto-traces.sh shows it), auto against on is
# the cost of deciding alone.
#
# Usage: sh bench/auto-overhead.sh [INPUT [ROUNDS [OTHER_BUILD_DIR]]]
#   (default water_dft 7). With OTHER_BUILD_DIR (a build/ of another
#   commit), every environment runs under both libraries, interleaved, and
#   the table names the other one's rows "other:".
# Environment:
#   AUTO_OVERHEAD_PREFIX  where to write PREFIX.md (default
#                         bench/results/DATE-auto-overhead)
#   AUTO_OVERHEAD_CONFIGS the environments to run, by name, separated by
#                         spaces (default all: on on+profile auto
#                         auto-noquiesce off), in that order; ratios are
#                         to the first
#   GHOST_BUILD           the build/ with libghost.so and ghost (default ./build)
set -eu
cd "$(dirname "$0")/.."
input=${1:-water_dft}
rounds=${2:-7}
build=$(cd "${GHOST_BUILD:-build}" && pwd)
builds=$build
[ $# -ge 3 ] && builds="$build $(cd "$3" && pwd)"
prefix=${AUTO_OVERHEAD_PREFIX:-bench/results/$(date -u +%Y-%m-%dT%H%M%SZ)-auto-overhead}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ "$input" = nxtask ]; then
	# ARMCI-MPI's NXTASK task loop, as bench -suite apps-2nodes runs it.
	mpicc -O2 -Itest/apps/armci -o "$work/nxtask" test/apps/armci/armci_nxtask.c -larmci-mpich -lm ||
		{ echo "auto-overhead: cannot build armci_nxtask.c (apt-get install libarmci-mpi-dev)" >&2; exit 1; }
	program="$work/nxtask" done_line='nxtask: .* time_s=' title="ARMCI-MPI's NXTASK"
else
	nwchem=/usr/bin/nwchem.mpich
	[ -x "$nwchem" ] || { echo "auto-overhead: $nwchem not found (apt-get install nwchem-mpich)" >&2; exit 1; }
	[ -f "test/apps/nwchem/$input.nw" ] || { echo "auto-overhead: no input test/apps/nwchem/$input.nw" >&2; exit 1; }
	cp "test/apps/nwchem/$input.nw" "$work"
	program="$nwchem $input.nw" done_line='Total (SCF|DFT) energy' title="NWChem $input"
fi
configs='on:GHOST_ASYNC=on
on+profile:GHOST_ASYNC=on GHOST_PROFILE=1
auto:GHOST_ASYNC=auto
auto-noquiesce:GHOST_ASYNC=auto GHOST_QUIESCE=off
off:GHOST_ASYNC=off'
if [ -n "${AUTO_OVERHEAD_CONFIGS:-}" ]; then
	picked=$(for want in $AUTO_OVERHEAD_CONFIGS; do echo "$configs" | awk -F: -v w="$want" '$1 == w'; done)
	[ -n "$picked" ] || { echo "auto-overhead: AUTO_OVERHEAD_CONFIGS=\"$AUTO_OVERHEAD_CONFIGS\" names none of: $(echo "$configs" | cut -d: -f1 | tr '\n' ' ')" >&2; exit 1; }
	configs=$picked
fi
reference=$(echo "$configs" | head -1 | cut -d: -f1)
# median NAME: the median of NAME's samples.
median() { awk -v c="$1" '$1 == c {print $2}' "$work/times" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
r=1
while [ "$r" -le "$rounds" ]; do
	for b in $builds; do
		label=; [ "$b" = "$build" ] || label=other:
		echo "$configs" | while IFS=: read -r name envs; do
			start=$(date +%s%N)
			(cd "$work" && env $envs GHOST_LIB="$b/libghost.so" \
				"$b/ghost" run -n 2 -g 1 --hosts nodeA:2,nodeB:2 -- $program < /dev/null > "$work/out.txt" 2>&1) ||
				{ echo "auto-overhead: $label$name failed:" >&2; tail -5 "$work/out.txt" >&2; exit 1; }
			grep -Eq "$done_line" "$work/out.txt" || { echo "auto-overhead: $label$name did not finish its work" >&2; exit 1; }
			echo "$label$name $(( ($(date +%s%N) - start) / 1000000 ))" >> "$work/times"
		done
	done
	r=$((r + 1))
done
{
	echo "# Where GHOST_ASYNC=auto's time goes: $title on 2 fake nodes"
	echo
	echo "- $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
	echo "- tree: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (modified)')"
	[ "$builds" = "$build" ] || echo "- other: $3"
	echo "- command: ghost run -n 2 -g 1 --hosts nodeA:2,nodeB:2 -- $(echo "$program" | sed "s|$work/||; s|^/usr/bin/||"), $rounds rounds, configurations interleaved"
	echo
	echo "| config | environment | median ms | ratio to $reference | samples ms |"
	echo "|---|---|--:|--:|---|"
	ref=$(median "$reference")
	for b in $builds; do
		label=; [ "$b" = "$build" ] || label=other:
		echo "$configs" | while IFS=: read -r name envs; do
			samples=$(awk -v c="$label$name" '$1 == c {printf "%s ", $2}' "$work/times")
			median=$(median "$label$name")
			echo "| $label$name | \`$envs\` | $median | $(awk -v m="$median" -v o="$ref" 'BEGIN {printf "%.3f", m / o}') | $samples|"
		done
	done
} > "$prefix.md"
echo "auto-overhead: wrote $prefix.md"
