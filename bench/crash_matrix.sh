#!/usr/bin/env bash
# The durability matrix of docs/crash-test.md: every config of
# suites/$SUITE.toml (crashtest: the in-process engines, the default;
# crashtest-servers: postgres, InnoDB, MyRocks) crashed CRASHES times (default 20) under each
# filesystem semantics (posix: a new name needs its directory fsynced;
# journaled: any fsync commits every earlier name, as ext4 and XFS do).
# About 10 minutes per semantics on 2 cores; SEMANTICS=journaled runs one. Results go to
# bench/results/crash_matrix-<time>/{posix,journaled} (servers: crash_matrix-servers-<time>).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
CRASHES=${CRASHES:-20}
SEED=${SEED:-2026}
SUITE=${SUITE:-crashtest}
OUT=${OUT:-$(dirname "$0")/results/crash_matrix${SUITE#crashtest}-$(date +%Y%m%d-%H%M)}
mkdir -p "$OUT"
for semantics in ${SEMANTICS:-posix journaled}; do
    echo "== $semantics" >&2
    # Exit 1 means a config did not recover: a finding, recorded like the others.
    "$RUMBENCH" crashtest -c "$(dirname "$0")/../suites/$SUITE.toml" --crashes "$CRASHES" --seed "$SEED" \
        --fs-semantics "$semantics" -d "$OUT/$semantics" --db-dir "$SCRATCH/crash-matrix-db" >"$OUT/$semantics.log" 2>&1 || true
    sed -n '/^Durability matrix/,$p' "$OUT/$semantics.log"
done
echo "results: $OUT" >&2
