#!/usr/bin/env bash
# RocksDB's own release builds, one per major (bench/rocksdb-releases.toml),
# from a cold cache: how long until the first operation (every jar fetched,
# the one binary they share built), then the sweep itself.
# COLD=1 (the default) uses an empty cache ($SCRATCH/cold-cache, removed
# first); COLD=0 the user's. The binary is built in this tree's target dir,
# whose other crates `cargo build --release` compiled already (as for any
# user of this tree); RUMBENCH_ROCKSDB_TARGET_DIR=<empty dir> times a build of every crate.
# Results: bench/results/rocksdb_releases-<date>/ and its .log.
# Usage: bench/rocksdb_releases.sh [extra rumbench run flags]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
if [ "${COLD:-1}" = 1 ]; then
    rm -rf "$SCRATCH/cold-cache"
    export XDG_CACHE_HOME="$SCRATCH/cold-cache"
    # An earlier build of the same source left rumbench's crate compiled in
    # target/: make cargo compile it again, as after any change of the source
    # (its content, and so the binary's source fingerprint, is unchanged).
    touch "$ROOT/src/lib.rs" "$ROOT/src/main.rs"
fi
OUT="$ROOT/bench/results/rocksdb_releases-$(date +%Y%m%d-%H%M%S)"
exec > >(tee "$OUT.log") 2>&1
RELEASES=$(sed -n 's/^sweep = \["rocksdb.version=\(.*\)"\]$/\1/p' "$ROOT/bench/rocksdb-releases.toml")
echo "cache: ${XDG_CACHE_HOME:-~/.cache} (cold: ${COLD:-1}); releases: $RELEASES"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
t0=$(date +%s.%N)
"$RUMBENCH" rocksdb-versions --build "$RELEASES" | grep ':release'
t1=$(date +%s.%N)
echo "ready to run (every release fetched, their binary built): $(echo "$t1 - $t0" | bc) s"
echo "command: rumbench run --config bench/rocksdb-releases.toml $*"
"$RUMBENCH" run --config "$ROOT/bench/rocksdb-releases.toml" --progress off --no-history \
    --db-dir "$SCRATCH/rocksdb-releases-db" --output-dir "$OUT" "$@"
t2=$(date +%s.%N)
echo "sweep: $(echo "$t2 - $t1" | bc) s; in all: $(echo "$t2 - $t0" | bc) s"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -f "$OUT/report.html" "$OUT/intervals.csv" "$OUT/report.tsv"   # rendered again from result.json by `rumbench report`
