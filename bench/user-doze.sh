#!/bin/sh
# Whether waiting users sleep or only yield, measured on two builds of
# libghost.so, interleaved:
#   - test/programs/waiting_user.c on 2 CPUs (taskset): rank 1 streams
#     accumulates through the ghost for 400 ms while rank 0 waits in
#     MPI_Barrier; the waiter's CPU time in that wait, and how many
#     operations rank 1 completed;
#   - bench/programs/multiphase.c (fence and passive) under P and U on the
#     ghost path: the totals and the steps that enter a communication phase
#     (step 0 of phases 2 and 6, from MULTIPHASE_STEPS);
#   - bench/programs/pingpong.c on 2 CPUs beside a busy loop (2 users, their
#     ghost idle): the mean time of a message, where a user that sleeps
#     through a wait must get its core back from the loop.
# Usage: bench/user-doze.sh OLD_BUILD NEW_BUILD [ROUNDS]
# writes bench/results/DATE-user-doze.md. Needs 2 CPUs.
set -eu
cd "$(dirname "$0")/.."
old=$1 new=$2 rounds=${3:-5}
out="$PWD/bench/results/$(date -u +%Y-%m-%dT%H%M%SZ)-user-doze.md"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpicc -O2 -o "$work/waiting_user" test/programs/waiting_user.c
mpicc -O2 -o "$work/multiphase" bench/programs/multiphase.c
mpicc -O2 -o "$work/pingpong" bench/programs/pingpong.c
i=0
while [ "$i" -lt "$rounds" ]; do
	for b in old new; do
		eval dir=\$$b
		env GHOST_NODE_LOCAL=off GHOST_ASYNC=on timeout 60 taskset -c 0,1 "$dir/ghost" run -n 2 -g 1 -- "$work/waiting_user" 400 2>&1 |
			awk -v b=$b '$2 == "wall_ms" { w = $3; c = $5 } $2 == "sent" { print "waiter", b, w, c, $3, $6 }' >>"$work/rows"
		taskset -c 0,1 timeout 30 sh -c 'while :; do :; done' &
		busy=$!
		timeout 60 taskset -c 0,1 "$dir/ghost" run -n 2 -g 1 -- "$work/pingpong" 2>&1 |
			awk -v b=$b '$1 == "message_us" { m = m " " $2 } END { print "pingpong", b, m }' >>"$work/rows"
		kill "$busy" 2>/dev/null || true
		wait "$busy" 2>/dev/null || true
		for sync in fence passive; do
			env MULTIPHASE_STEPS=1 GHOST_NODE_LOCAL=off GHOST_ASYNC=auto GHOST_PREDICT_INT=10ms GHOST_GSYNC_INT=0 \
				timeout 60 "$dir/ghost" run -n 2 -g 1 -- "$work/multiphase" static 40 1000 "$sync" 2>&1 |
				awk -v b=$b -v s=$sync '$1 == "step" && ($2 == 2 || $2 == 6) && $3 == 0 { e = e " " $4 }
					$1 == "total" { print "P", b, s, $2 * 1e3, e }' >>"$work/rows"
			env GHOST_NODE_LOCAL=off GHOST_ASYNC=on timeout 60 "$dir/ghost" run -n 2 -g 1 -- "$work/multiphase" user 40 1000 "$sync" 2>&1 |
				awk -v b=$b -v s=$sync '$1 == "total" { print "U", b, s, $2 * 1e3 }' >>"$work/rows"
		done
	done
	i=$((i + 1))
done
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) printf "%.2f", (v[int((NR + 1) / 2)] + v[int(NR / 2) + 1]) / 2 }'; }
list() { sort -n | tr '\n' ' ' | sed 's/ $//'; }
{
	echo "# Waiting users: sleep or only yield"
	echo
	echo "bench/user-doze.sh, $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname -s 2>/dev/null || echo this machine), $(nproc) CPUs; $rounds rounds, the two builds interleaved."
	echo "old: \`$(basename "$old")\`; new: \`$(basename "$new")\` (build directories named by their commits)."
	echo
	echo "## A user waiting 400 ms in MPI_Barrier, job on 2 CPUs"
	echo
	echo "| build | waiter's CPU ms (each round) | median CPU share of the wait | operations rank 1 completed (each round) |"
	echo "|---|---|--:|---|"
	for b in old new; do
		cpus=$(awk -v b=$b '$1 == "waiter" && $2 == b { print $4 }' "$work/rows" | list)
		share=$(awk -v b=$b '$1 == "waiter" && $2 == b { print $4 / $3 }' "$work/rows" | median)
		ops=$(awk -v b=$b '$1 == "waiter" && $2 == b { print $5 }' "$work/rows" | list)
		echo "| $b | $cpus | $share | $ops |"
	done
	echo
	echo "## Ping-pong beside a busy loop, job and loop on 2 CPUs, µs a message"
	echo
	echo "| build | each repetition of each round | median |"
	echo "|---|---|--:|"
	for b in old new; do
		all=$(awk -v b=$b '$1 == "pingpong" && $2 == b { for (i = 3; i <= NF; i++) print $i }' "$work/rows")
		echo "| $b | $(echo "$all" | list) | $(echo "$all" | median) |"
	done
	echo
	echo "## Multiphase on the ghost path (2 users, 1 ghost), ms"
	echo
	echo "| build | sync | P total, median | U total, median | P / U | entry steps of P (each) | slowest entry step |"
	echo "|---|---|--:|--:|--:|---|--:|"
	for b in old new; do
		for sync in fence passive; do
			p=$(awk -v b=$b -v s=$sync '$1 == "P" && $2 == b && $3 == s { print $4 }' "$work/rows" | median)
			u=$(awk -v b=$b -v s=$sync '$1 == "U" && $2 == b && $3 == s { print $4 }' "$work/rows" | median)
			steps=$(awk -v b=$b -v s=$sync '$1 == "P" && $2 == b && $3 == s { print $5; print $6 }' "$work/rows" | list)
			slowest=$(awk -v b=$b -v s=$sync '$1 == "P" && $2 == b && $3 == s { print $5; print $6 }' "$work/rows" | sort -n | tail -1)
			echo "| $b | $sync | $p | $u | $(awk -v p="$p" -v u="$u" 'BEGIN { printf "%.3f", p / u }') | $steps | $slowest |"
		done
	done
	echo
	echo "Raw rows (waiter: build wall_ms cpu_ms sent landed; pingpong: build us per message; P: build sync total_ms entry steps; U: build sync total_ms):"
	echo
	echo '```'
	cat "$work/rows"
	echo '```'
} >"$out"
echo "wrote $out"
