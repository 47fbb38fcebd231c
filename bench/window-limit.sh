#!/bin/sh
# How many redirected windows can be alive at once: test/programs/window_limit.c
# on 2 users across 2 fake nodes (NG=1 and NG=2), and under plain MPICH, and
# writes bench/results/DATE-window-limit.md. GHOST_BEFORE=DIR adds the runs
# of another build's ghost launcher (DIR/ghost, DIR/libghost.so) for
# comparison. Counts, not timings. Run after `make`.
set -eu
cd "$(dirname "$0")/.."
out="$PWD/bench/results/$(date -u +%F)-window-limit.md"
bin=$(mktemp -d)/window_limit
mpicc -O2 -I test/programs -o "$bin" test/programs/window_limit.c
runs() { # label, ghost launcher
    for g in "1 a:2,b:2" "2 a:3,b:3"; do
        set -- "$1" "$2" $g
        printf '## %s, NG=%s\n```\n' "$1" "$3"
        timeout 300 "$2" run -n 2 --hosts "$4" -g "$3" -- "$bin" 3000 1 2>&1 | grep -E '^(live windows|allocation|rank)' || true
        printf '```\n'
    done
}
{
    printf '# Redirected windows alive at once\n\n'
    printf 'Written by `bench/window-limit.sh` on %s: test/programs/window_limit.c, 2 users on 2 fake\n' "$(date -u +%F)"
    printf 'nodes, MPICH %s. Each run allocates 64-byte windows over MPI_COMM_WORLD under\n' "$(mpichversion 2>/dev/null | sed -n 's/MPICH Version:[[:space:]]*//p')"
    printf 'MPI_ERRORS_RETURN until one fails (at most 3000). Counts, not timings.\n\n'
    runs "Ghost $(git log -1 --format=%h)" build/ghost
    if [ -n "${GHOST_BEFORE:-}" ]; then
        runs "Ghost before ($GHOST_BEFORE)" "$GHOST_BEFORE/ghost"
    fi
    printf '## plain MPICH, 2 ranks on 2 fake nodes, at most 2000 windows\n```\n'
    timeout 300 mpiexec.hydra -launcher fork -hosts a:1,b:1 -n 2 "$bin" 2000 1 2>&1 | grep -E '^(live windows|allocation|rank)' || true
    printf '```\n## plain MPICH, at most 3000 windows\n```\n'
    timeout 300 mpiexec.hydra -launcher fork -hosts a:1,b:1 -n 2 "$bin" 3000 1 2>&1 | grep -E '^(live windows|allocation|rank|Assertion)' | sort -u || true
    printf '```\n'
} > "$out"
echo "wrote $out"
