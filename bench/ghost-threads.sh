#!/bin/sh
# What a ghost's threads cost the cores it shares, in two jobs on the 2-core
# VM:
#  - idle: 2 fake nodes (1 user and 1 ghost on each, 4 processes on 2
#    cores) whose users compute 3 s outside MPI, so that both ghosts only
#    sleep and wake;
#  - busy: the passive multiphase benchmark (bench/programs/multiphase.c,
#    400 work units per phase) with 2 users and 1 ghost on one node, every
#    window through the ghost (GHOST_NODE_LOCAL=off, GHOST_ASYNC=on), so
#    that the ghost serves, yields and dozes by turns.
# For each ghost, over one second in the middle of the job, the thread
# switches of its serving thread and of the Go runtime's other threads
# (from /proc); for the idle job also the ghosts' own CPU share (their
# info-level report) and the latency of scraping node 0's metrics endpoint
# meanwhile (5 scrapes with curl). Usage:
#   bench/ghost-threads.sh LIB_A LIB_B [ROUNDS]
# runs A and B alternately ROUNDS times (default 3) with two builds of
# libghost.so and prints one line per ghost and run. Run after `make` (it
# uses build/ghost); needs curl.
set -eu
cd "$(dirname "$0")/.."
a=$1 b=$2 rounds=${3:-3}
dir=$(mktemp -d)
mpicc -O2 -o "$dir/lifecycle" test/programs/lifecycle.c
mpicc -O2 -o "$dir/multiphase" bench/programs/multiphase.c

# switches PID: "tid voluntary+involuntary" for each thread of PID.
switches() {
	for t in /proc/"$1"/task/*; do
		printf '%s %s\n' "${t##*/}" "$(awk '/ctxt_switches/ { n += $2 } END { print n }' "$t/status")"
	done
}

# ghost_pids PROG RANKS: the processes running PROG whose PMI rank matches
# the extended regular expression RANKS (ghosts are the lowest ranks of
# each node).
ghost_pids() {
	for p in $(pgrep -f "^$1 "); do
		if tr '\0' '\n' <"/proc/$p/environ" | grep -qxE "PMI_RANK=($2)"; then
			echo "$p"
		fi
	done
}

# measure LABEL PROG RANKS: thread switches of the ghosts over one second,
# from one second into the job.
measure() {
	sleep 1
	pids=$(ghost_pids "$2" "$3")
	for p in $pids; do switches "$p" >"$dir/before.$p"; done
	sleep 1
	for p in $pids; do switches "$p" >"$dir/after.$p"; done
	for p in $pids; do
		join "$dir/before.$p" "$dir/after.$p" | awk -v label="$1" -v p="$p" '
			$1 == p { main = $3 - $2; next }
			{ others += $3 - $2 }
			END { printf "%s: ghost pid %s: serving thread %d switches/s, other threads %d switches/s\n", label, p, main, others }'
	done
}

i=0
while [ "$i" -lt "$rounds" ]; do
	for v in A B; do
		lib=$a
		[ "$v" = B ] && lib=$b
		GHOST_LIB="$lib" GHOST_VERBOSE=info ./build/ghost run --hosts nodeA:2,nodeB:2 -n 2 -g 1 -- \
			"$dir/lifecycle" compute 3 >"$dir/out" 2>&1 &
		job=$!
		measure "$v idle" "$dir/lifecycle" "0|2"
		scrapes=$(for _ in 1 2 3 4 5; do
			curl -s -o /dev/null -w '%{time_total} ' http://127.0.0.1:9464/metrics || echo "failed "
		done)
		wait "$job"
		sed -n 's/.*ghost 0 of node \([0-9]\).*(\([0-9.]*\)% of a core).*/\1 \2/p' "$dir/out" |
			awk -v v="$v" '{ printf "%s idle: ghost of node %s: %s%% of a core\n", v, $1, $2 }'
		echo "$v idle: metrics scrape latency, s: $scrapes"

		GHOST_LIB="$lib" GHOST_NODE_LOCAL=off GHOST_ASYNC=on ./build/ghost run -n 2 -g 1 -- \
			"$dir/multiphase" static 400 1000 passive >/dev/null 2>&1 &
		job=$!
		measure "$v busy" "$dir/multiphase" "0"
		wait "$job"
	done
	i=$((i + 1))
done
rm -rf "$dir"
