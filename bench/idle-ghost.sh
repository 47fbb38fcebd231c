#!/bin/sh
# What an idle ghost costs the cores it shares: a job on 2 fake nodes (1
# user and 1 ghost on each) whose users compute 3 s outside MPI, so that
# both ghosts only sleep and wake. For each ghost, over one second in the
# middle of the computation, the thread switches of its serving thread and
# of the Go runtime's other threads (from /proc); then the ghost's own CPU
# share (its info-level report), and the latency of scraping node 0's
# metrics endpoint meanwhile (5 scrapes with curl). Usage:
#   bench/idle-ghost.sh LIB_A LIB_B [ROUNDS]
# runs A and B alternately ROUNDS times (default 3) with two builds of
# libghost.so and prints one line per ghost and run. Run after `make` (it
# uses build/ghost); needs curl.
set -eu
cd "$(dirname "$0")/.."
a=$1 b=$2 rounds=${3:-3}
dir=$(mktemp -d)
prog=$dir/lifecycle
mpicc -O2 -o "$prog" test/programs/lifecycle.c

# switches PID: "tid voluntary+involuntary" for each thread of PID.
switches() {
	for t in /proc/"$1"/task/*; do
		printf '%s %s\n' "${t##*/}" "$(awk '/ctxt_switches/ { n += $2 } END { print n }' "$t/status")"
	done
}

# ghost_pids: the processes of the job whose PMI rank is a ghost's (the
# ghosts are the lowest ranks of each fake node: world ranks 0 and 2).
ghost_pids() {
	for p in $(pgrep -f "^$prog compute"); do
		if tr '\0' '\n' <"/proc/$p/environ" | grep -qxE 'PMI_RANK=(0|2)'; then
			echo "$p"
		fi
	done
}

i=0
while [ "$i" -lt "$rounds" ]; do
	for v in A B; do
		lib=$a
		[ "$v" = B ] && lib=$b
		GHOST_LIB="$lib" GHOST_VERBOSE=info ./build/ghost run --hosts nodeA:2,nodeB:2 -n 2 -g 1 -- \
			"$prog" compute 3 >"$dir/out" 2>&1 &
		job=$!
		sleep 1
		pids=$(ghost_pids)
		for p in $pids; do switches "$p" >"$dir/before.$p"; done
		sleep 1
		for p in $pids; do switches "$p" >"$dir/after.$p"; done
		scrapes=$(for _ in 1 2 3 4 5; do
			curl -s -o /dev/null -w '%{time_total} ' http://127.0.0.1:9464/metrics || echo "failed "
		done)
		wait "$job"
		for p in $pids; do
			join "$dir/before.$p" "$dir/after.$p" | awk -v v="$v" -v p="$p" '
				$1 == p { main = $3 - $2; next }
				{ others += $3 - $2 }
				END { printf "%s: ghost pid %s: serving thread %d switches/s, other threads %d switches/s\n", v, p, main, others }'
		done
		sed -n 's/.*ghost 0 of node \([0-9]\).*(\([0-9.]*\)% of a core).*/\1 \2/p' "$dir/out" |
			awk -v v="$v" '{ printf "%s: ghost of node %s: %s%% of a core\n", v, $1, $2 }'
		echo "$v: metrics scrape latency, s: $scrapes"
	done
	i=$((i + 1))
done
rm -rf "$dir"
