#!/bin/sh
# Whether a redirected communication phase is slow on this machine because
# the ghost shares a core with a user. Runs bench/programs/multiphase.c
# (passive variant, GHOST_ASYNC=on on the ghost path) with 2 users and 1
# ghost under three placements, set with taskset through the rank's
# PMI_RANK (world rank 0 is the node's ghost):
#   free       nothing pinned: the kernel places the three processes
#   ghost-own  the ghost alone on the last CPU, both users on the others
#   ghost-pin  the ghost on the last CPU, the users anywhere
# and writes bench/results/DATE-ghost-core.md: the per-phase times of each
# run (COMP phases compute, COMM phases accumulate through the ghost in a
# tight loop). Needs at least 2 CPUs. Run after `make`.
set -eu
cd "$(dirname "$0")/.."
rounds=${GHOST_CORE_ROUNDS:-3}
out="$PWD/bench/results/$(date -u +%Y-%m-%dT%H%M%SZ)-ghost-core.md"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpicc -O2 -o "$work/multiphase" bench/programs/multiphase.c
last=$(($(nproc) - 1))
cat > "$work/place.sh" <<'PLACE'
#!/bin/sh
if [ "$PMI_RANK" = 0 ]; then cpus=$GHOST_CPUS; else cpus=$USER_CPUS; fi
[ -n "$cpus" ] && exec taskset -c "$cpus" "$@"
exec "$@"
PLACE
chmod +x "$work/place.sh"
{
	echo "# Redirected communication with the ghost on a core of its own or not"
	echo
	echo "Written by \`bench/ghost-core.sh\`: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg) at the start; tree $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (modified)')."
	echo "\`ghost run -n 2 -g 1 -- multiphase static 40 1000 passive\` with GHOST_NODE_LOCAL=off GHOST_ASYNC=on: every phase redirected."
	echo "Seconds per phase (slowest rank), $rounds runs per placement, interleaved."
	echo
	echo "| placement | ghost CPUs | user CPUs | 0 COMP | 1 COMP | 2 COMM | 3 COMM | 4 COMP | 5 COMP | 6 COMM | 7 COMM | total |"
	echo "|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
} > "$out"
r=1
while [ "$r" -le "$rounds" ]; do
	for placement in free ghost-own ghost-pin; do
		case $placement in
		free) g="" u="" ;;
		ghost-own) g=$last u=0-$((last - 1)) ;;
		ghost-pin) g=$last u="" ;;
		esac
		row=$(GHOST_CPUS=$g USER_CPUS=$u GHOST_NODE_LOCAL=off GHOST_ASYNC=on timeout 120 \
			build/ghost run -n 2 -g 1 -- "$work/place.sh" "$work/multiphase" static 40 1000 passive 2>/dev/null |
			awk '$1 == "phase" {printf " %s |", $4} $1 == "total" {printf " %s |", $2}')
		echo "| $placement | ${g:-any} | ${u:-any} |$row" >> "$out"
	done
	r=$((r + 1))
done
echo "ghost-core: wrote $out"
