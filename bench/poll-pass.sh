#!/bin/sh
# Measures what one empty pass of the ghost's loop costs: a job of 1 user
# that computes for 3 s outside MPI and 1 ghost with GHOST_WAIT=spin, so
# that the ghost does nothing but empty passes; the ghost's own report
# gives its CPU time and its passes ("polls"). Usage:
#   bench/poll-pass.sh LIB_A LIB_B [ROUNDS]
# runs A and B alternately ROUNDS times (default 5) with two builds of
# libghost.so, so that a change of the loop is compared on the same load,
# and prints one line per run with the CPU nanoseconds per pass. Run after
# `make` (it uses build/ghost). CPU time, not wall time: on a shared
# machine the ghost is descheduled, which the wall clock would count.
set -eu
cd "$(dirname "$0")/.."
a=$1 b=$2 rounds=${3:-5}
prog=$(mktemp -d)/lifecycle
mpicc -O2 -o "$prog" test/programs/lifecycle.c
i=0
while [ "$i" -lt "$rounds" ]; do
	for v in A B; do
		lib=$a
		[ "$v" = B ] && lib=$b
		GHOST_LIB="$lib" GHOST_WAIT=spin GHOST_VERBOSE=info ./build/ghost run -n 1 -g 1 -- "$prog" compute 3 2>&1 |
			sed -n 's/.* \([0-9]*\) polls, .* cpu \([0-9.]*\) ms over \([0-9.]*\) s wall.*/\1 \2 \3/p' |
			awk -v v="$v" '{ printf "%s: %d passes, cpu %.1f ms, wall %.2f s: %.0f ns of CPU per pass\n", v, $1, $2, $3, $2 * 1e6 / $1 }'
	done
	i=$((i + 1))
done
rm -rf "$(dirname "$prog")"
