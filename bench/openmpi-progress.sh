#!/bin/sh
# Measures plain Open MPI's asynchronous progress for RMA (issue 17, item 1)
# and writes bench/results/DATE-openmpi-progress.{json,md}.
#
# For each MCA configuration below it builds bench/programs/openmpi_progress.c
# with mpicc.openmpi, asks which one-sided component serves each window
# flavour (osc_base_verbose), and runs the program's whole matrix: window
# flavour x synchronization x PUT/GET/ACC/FOP while the target computes
# outside MPI. The MPICH alternatives are left alone: Open MPI is called by
# its suffixed names.
#
# Environment:
#   OPENMPI_PROGRESS_MS    target compute time per operation in ms (default 100)
#   OPENMPI_PROGRESS_REPS  repetitions per cell (default 3)
#   OPENMPI_MPICC, OPENMPI_MPIRUN  the Open MPI compiler and launcher
#                          (default mpicc.openmpi, mpirun.openmpi)
#   OPENMPI_PROGRESS_PREFIX  where to write PREFIX.json and PREFIX.md
#                          (default bench/results/DATE-openmpi-progress)
#   OPENMPI_PROGRESS_GHOST 0 leaves out the rows under Ghost
#                          (build/libghost-openmpi.so; default 1: `make` first)
#   OPENMPI_PYTHON         a Python with mpi4py built on Open MPI for the
#                          mpi4py row (default /usr/bin/python3; the row is
#                          left out, with the reason, when it has no mpi4py)
# Run it on a quiet machine: the JSON records the load average before and
# after each configuration, the target's CPU share in its busy loop, and
# the niceness the script ran at (on a shared machine, `nice -n -10 sh
# bench/openmpi-progress.sh` gives both ranks their cores).
set -eu
cd "$(dirname "$0")/.."
ms=${OPENMPI_PROGRESS_MS:-100}
reps=${OPENMPI_PROGRESS_REPS:-3}
mpicc=${OPENMPI_MPICC:-mpicc.openmpi}
mpirun=${OPENMPI_MPIRUN:-mpirun.openmpi}
python=${OPENMPI_PYTHON:-/usr/bin/python3}
for tool in "$mpicc" "$mpirun" jq; do
	command -v "$tool" >/dev/null || {
		echo "openmpi-progress: $tool not found (apt-get install libopenmpi-dev openmpi-bin jq)" >&2
		exit 1
	}
done

prefix=${OPENMPI_PROGRESS_PREFIX:-$PWD/bench/results/$(date -u +%F)-openmpi-progress}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$(dirname "$prefix")"
"$mpicc" -O2 -Wall -o "$work/openmpi_progress" bench/programs/openmpi_progress.c

# name|what it is|mpirun arguments|flavours|the osc component when none
# prints itself (osc/rdma and osc/pt2pt name themselves at window free under
# osc_base_verbose; osc/sm and osc/ucx stay silent)|processes (default 2).
# Debian 12's /etc/openmpi/openmpi-mca-params.conf sets pml=^ucx and
# osc=^ucx,pt2pt, so "default" there is ob1 over vader with osc/rdma and
# osc/sm; the report quotes the file.
# The "network" rows take shared memory out of the transport (TCP between
# the two ranks), which is what two nodes give; Open MPI still knows that
# the ranks share a host, so MPI_Win_allocate_shared keeps working there.
configs='default|one node, the installed defaults (openmpi-mca-params.conf)||allocate,create,dynamic,shared|sm
pt2pt|one node, osc pt2pt (active messages over ob1/vader)|--mca osc pt2pt|allocate,create,dynamic|pt2pt
ucx-shm|one node, pml ucx + osc ucx over shared memory|--mca pml ucx --mca osc ucx --mca pml_ucx_tls any --mca pml_ucx_devices any -x UCX_TLS=sm,self|allocate,create,dynamic|ucx
tcp|network, ob1 over TCP, the installed osc list|--mca btl self,tcp|allocate,create,dynamic|sm
tcp-pt2pt|network, ob1 over TCP, osc pt2pt|--mca btl self,tcp --mca osc pt2pt|allocate,create,dynamic|pt2pt
ucx-tcp|network, pml ucx + osc ucx over TCP|--mca pml ucx --mca osc ucx --mca pml_ucx_tls any --mca pml_ucx_devices any -x UCX_TLS=tcp,self|allocate,create,dynamic|ucx'

# Ghost on Open MPI (build/libghost-openmpi.so, `make`), in the same run:
# its defaults on one node (no ghost; its node-local path serves
# MPI_Win_allocate windows), and one ghost with GHOST_NODE_LOCAL=off, which
# sends every operation on an MPI_Win_allocate window through the ghost, as
# for windows that span nodes, over the installed osc list and over osc
# pt2pt, whose lock and PSCW handshakes need the target in MPI. A ghost is a
# third process: the two ranks stay the program's. OPENMPI_PROGRESS_GHOST=0
# leaves these rows out.
lib=$PWD/build/libghost-openmpi.so
if [ "${OPENMPI_PROGRESS_GHOST:-1}" != 0 ]; then
	[ -f "$lib" ] || {
		echo "openmpi-progress: $lib not found: run make first, or set OPENMPI_PROGRESS_GHOST=0" >&2
		exit 1
	}
	ghostpath="-x LD_PRELOAD=$lib -x GHOST_NG=1 -x GHOST_NODE_LOCAL=off"
	configs="$configs
ghost|one node, Ghost's defaults (no ghost process: the node-local path)|-x LD_PRELOAD=$lib|allocate,create,dynamic,shared|sm|2
ghost-ghostpath|one node, Ghost with 1 ghost, GHOST_NODE_LOCAL=off (the path of windows that span nodes)|$ghostpath|allocate,create,dynamic,shared|sm|3
ghost-pt2pt-ghostpath|one node, osc pt2pt (sm for the shared windows Ghost needs), Ghost with 1 ghost, GHOST_NODE_LOCAL=off|--mca osc pt2pt,sm $ghostpath|allocate,create,dynamic|pt2pt|3"
fi

load() { cut -d' ' -f1-3 /proc/loadavg; }
launch() { # mpirun arguments, then the program's
	# sh has no local variables: launch_args must not be the loop's args.
	launch_args=$1
	shift
	# mpirun forwards its stdin to rank 0: keep it off the config list.
	# shellcheck disable=SC2086 # launch_args is a list of words
	timeout 600 "$mpirun" --allow-run-as-root --oversubscribe -n "${procs:-2}" $launch_args "$work/openmpi_progress" "$@" </dev/null
}

echo "$configs" | while IFS='|' read -r name what args flavours silent procs; do
	echo "openmpi-progress: $name ($what)" >&2
	components='{}'
	for fl in $(echo "$flavours" | tr , ' '); do
		launch "$args --mca osc_base_verbose 100" -f "$fl" -s lock -o put -r 1 -c 1 \
			>"$work/probe.out" 2>"$work/probe.err" || true
		comp=$(grep -o '\(rdma\|pt2pt\) component destroying' "$work/probe.err" | head -n1 | cut -d' ' -f1) || true
		# A window that could not be made is not a silent component.
		if grep -q '"type":"skip"' "$work/probe.out"; then
			comp="none ($(grep '"type":"skip"' "$work/probe.out" | jq -r .reason))"
		elif ! grep -q '"type":"cell"' "$work/probe.out"; then
			comp="none (the probe failed)"
		elif [ -z "$comp" ]; then
			comp=$silent
		fi
		components=$(echo "$components" | jq -c --arg k "$fl" --arg v "$comp" '.[$k]=$v')
	done
	before=$(load)
	status=0
	launch "$args" -f "$flavours" -c "$ms" -r "$reps" -l "$name" >"$work/$name.out" 2>"$work/$name.err" || status=$?
	after=$(load)
	error=$(grep -m1 'An error occurred in\|MPI_ERR_\|cannot be selected' "$work/$name.err" || grep . "$work/$name.err" | tail -n1 || true)
	grep '^{' "$work/$name.out" | jq -sc --arg name "$name" --arg what "$what" --arg args "$args" \
		--argjson components "$components" --arg before "$before" --arg after "$after" \
		--argjson status "$status" --arg error "$error" \
		'{name:$name, what:$what, mpirun_args:$args, components:$components,
		  load_before:$before, load_after:$after, exit_status:$status, error:$error,
		  mpi:(map(select(.type=="meta"))[0].mpi // null),
		  cells:map(select(.type=="cell")), skipped:map(select(.type=="skip"))}'
done >"$work/configs.jsonl"

mpi4py='null'
if "$python" -c 'import mpi4py' 2>/dev/null; then
	before=$(load)
	status=0
	timeout 600 "$mpirun" --allow-run-as-root --oversubscribe -n 2 "$python" bench/programs/openmpi_mpi4py.py "$ms" "$reps" \
		</dev/null >"$work/mpi4py.out" 2>"$work/mpi4py.err" || status=$?
	after=$(load)
	mpi4py=$(grep '^{' "$work/mpi4py.out" | jq -sc --arg before "$before" --arg after "$after" --argjson status "$status" \
		'{load_before:$before, load_after:$after, exit_status:$status, cells:map(select(.type=="cell"))}')
else
	mpi4py=$(jq -nc --arg p "$python" '{skipped:("no mpi4py in " + $p + " (apt-get install python3-mpi4py)")}')
fi

params=$(grep -hv '^\s*\(#\|$\)' /etc/openmpi/openmpi-mca-params.conf 2>/dev/null | tr '\n' ';' || true)
jq -s --arg date "$(date -u +%FT%TZ)" --arg host "$(hostname)" --arg cpus "$(nproc)" --arg params "$params" --arg nice "$(nice)" \
	--argjson ms "$ms" --argjson reps "$reps" --argjson mpi4py "$mpi4py" \
	'{date:$date, host:$host, cpus:($cpus|tonumber), niceness:($nice|tonumber), compute_ms:$ms, reps:$reps, mca_params_conf:$params,
	  mpi:(map(.mpi)|map(select(.))|.[0]), configs:., mpi4py:$mpi4py}' \
	"$work/configs.jsonl" >"$prefix.json"

jq -r -f bench/openmpi-progress.jq "$prefix.json" >"$prefix.md"
echo "wrote $prefix.json and $prefix.md"
