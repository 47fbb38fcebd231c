#!/bin/sh
# Measures the internal MPI messages each synchronization call costs on 2, 4
# and 8 fake nodes (1 user + 1 ghost each), touching one target and every
# target, and writes bench/results/DATE-sync-messages.{json,md}. The counts
# come from the metrics textfiles (ghost_sync_internal_operations_total);
# the runs are test/sync_messages_test.go's. Run after `make`.
set -eu
cd "$(dirname "$0")/.."
prefix="$PWD/bench/results/$(date -u +%F)-sync-messages"
mkdir -p bench/results
SYNC_MESSAGES_RESULTS="$prefix" go test ./test -run '^TestSyncMessages$' -count=1 -v
echo "wrote $prefix.json and $prefix.md"
