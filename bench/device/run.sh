#!/bin/bash
# run.sh PHASE...: runs bench suites on a lent machine from the bundle that
# bench/device/bundle.sh made, unpacked anywhere: $BUNDLE, by default the
# folder above this script (the bundle holds a copy in its bin/). Run it
# from a checkout's root: the apps suite reads
# test/apps/nwchem/*.nw from there. Results, logs and a description of the
# machine go to $RESULTS (default ./device-results), packed after every
# phase into $OUT/results.tar.gz when OUT is set (the device tool's folder).
#
# Phases, run in order, each under its own time limit:
#   env                 the machine: CPUs, memory, load, kernel
#   smoke               mpiexec -n 2 hostname, then smoke runs of
#                       rma-intercept and apps (water SCF, NXTASK, one
#                       coarray program) with 2 ranks
#   micro:N[:SECONDS]   the suites in $MICRO_SUITES (default wincost,
#                       rma-intercept, gcu, progress: the longest last, as
#                       -max-time cuts the end) with N user ranks
#                       (-max-time SECONDS, default 240)
#   apps:N[:SECONDS[:ROUNDS]]  the apps suite with N user ranks
#                       (default 300 s, 2 rounds), configurations in $APPS_CONFIGS
#   suites:ROUNDS[:SECONDS]  the suites in $SUITES (default apps-2nodes,
#                       multiphase,multiphase-passive) with their own rank
#                       counts and ROUNDS rounds each (default 420 s)
#   auto-traces:ROUNDS  bench/auto-traces.sh of the checkout with the
#                       bundle's library and ghost CLI (build/ of the
#                       checkout becomes a link to the bundle's)
#   auto-overhead:INPUT:ROUNDS  bench/auto-overhead.sh INPUT ROUNDS with the
#                       bundle's library and ghost CLI, against the build/
#                       in $AUTO_OVERHEAD_OTHER too when that is set
set -uo pipefail
bundle=${BUNDLE:-$(cd "$(dirname "$0")/.." && pwd)}
results=${RESULTS:-$PWD/device-results}
mkdir -p "$results"
log=$results/run.log

export PATH=$bundle/bin:$PATH
export LD_LIBRARY_PATH=$bundle/lib
export UCX_MODULE_DIR=$bundle/lib/ucx
export NWCHEM_BASIS_LIBRARY=$bundle/share/nwchem/libraries/
# The apps suite runs the applications where Debian installs them
# (internal/apps): put the bundle's copies there when nothing is.
link() { [ -e "$2" ] || { mkdir -p "$(dirname "$2")" && ln -s "$1" "$2"; }; }
link "$bundle/bin/nwchem.mpich" /usr/bin/nwchem.mpich
link "$bundle/caf" /usr/lib/x86_64-linux-gnu/open-coarrays/mpich/bin/OpenCoarrays-2.10.1-tests

APPS_CONFIGS=${APPS_CONFIGS:-plain-nolocal,mpich-thread-nolocal,ghost,ghost-ghostpath}
# The driver with the bundle's libghost.so, ghost CLI and programs (an
# array, not a function: timeout runs programs).
bench=("$bundle/bin/bench" -build "$bundle/build" -prebuilt "$bundle/prog")

# phase NAME LIMIT CMD...: runs CMD under LIMIT seconds, logging it.
phase() {
	local name=$1 limit=$2
	shift 2
	echo "=== $name ($(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)): $*" | tee -a "$log"
	timeout -k 10 "$limit" "$@" >"$results/$name.out" 2>"$results/$name.err"
	local rc=$?
	echo "=== $name: exit $rc after $SECONDS s in all" | tee -a "$log"
	tail -n 5 "$results/$name.err" | tee -a "$log"
	collect
}

# collect packs what is there so far into $OUT, after every phase: a call
# cut short at its limit still brings back what finished.
collect() {
	[ -n "${OUT:-}" ] || return 0
	tar -C "$results" -czf "$OUT/results.tar.gz" . && cp "$log" "$OUT/run.log"
}

for p in "$@"; do
	IFS=: read -r what n limit rounds <<<"$p"
	case $what in
	env)
		{
			date -u; uname -a; nproc; cat /proc/loadavg; free -g
			grep -m1 'model name' /proc/cpuinfo; lscpu 2>/dev/null
			cat /etc/os-release 2>/dev/null; ldd --version 2>&1 | head -1
		} >"$results/env.txt" 2>&1
		;;
	smoke)
		phase hostname 60 mpiexec.hydra -n 2 hostname
		phase smoke-rma 120 "${bench[@]}" -smoke -n 2 -suite rma-intercept -out "$results/smoke"
		phase smoke-apps 240 "${bench[@]}" -smoke -n 2 -suite apps -configs plain-nolocal,ghost,ghost-ghostpath -out "$results/smoke"
		;;
	micro)
		limit=${limit:-240}
		phase "micro-n$n" $((limit + 60)) "${bench[@]}" -n "$n" -suite "${MICRO_SUITES:-wincost,rma-intercept,gcu,progress}" \
			-max-time "${limit}s" -out "$results/micro-n$n"
		;;
	apps)
		limit=${limit:-300}
		phase "apps-n$n" $((limit + 200)) "${bench[@]}" -n "$n" -suite apps -configs "$APPS_CONFIGS" \
			-rounds "${rounds:-2}" -timeout 45s -max-time "${limit}s" -out "$results/apps-n$n"
		;;
	suites)
		rounds=$n limit=${limit:-420}
		phase "suites-r$rounds" $((limit + 60)) "${bench[@]}" -suite "${SUITES:-apps-2nodes,multiphase,multiphase-passive}" \
			-rounds "$rounds" -max-time "${limit}s" -out "$results/suites-r$rounds"
		;;
	auto-traces)
		[ -e build ] && [ ! -L build ] && { echo "run.sh: auto-traces would replace ./build; remove it first" >&2; exit 2; }
		ln -sfn "$bundle/build" build
		AUTO_TRACES_ROUNDS=$n AUTO_TRACES_PREFIX=$results/auto-traces phase auto-traces 300 sh bench/auto-traces.sh
		;;
	auto-overhead)
		GHOST_BUILD=$bundle/build AUTO_OVERHEAD_PREFIX=$results/auto-overhead-$n \
			phase "auto-overhead-$n" 300 sh bench/auto-overhead.sh "$n" "${limit:-7}" ${AUTO_OVERHEAD_OTHER:+"$AUTO_OVERHEAD_OTHER"}
		;;
	*)
		echo "run.sh: unknown phase $p (known: env, smoke, micro:N[:SECONDS], apps:N[:SECONDS[:ROUNDS]], suites:ROUNDS[:SECONDS], auto-traces:ROUNDS, auto-overhead:INPUT:ROUNDS)" >&2
		exit 2
		;;
	esac
done
touch "$log"
collect
