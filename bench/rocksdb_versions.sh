#!/usr/bin/env bash
# The RocksDB version sweep of docs/rocksdb-versions.md: bench/rocksdb-versions.toml
# (fillseq, fillrandom, overwrite, readrandom, fwdrange, readwhilewriting at 1M keys,
# 6 versions, 5 interleaved rounds). Builds the versions that are not cached first
# (rumbench rocksdb-versions --build), then runs the sweep with the load average
# around it. Results: bench/results/rocksdb_versions-<date>/ and its .log.
# Usage: bench/rocksdb_versions.sh [extra rumbench run flags, e.g. --repeat 3]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
"$RUMBENCH" rocksdb-versions --build 6.28,7.9,8.10,9.9,10.4
OUT="$ROOT/bench/results/rocksdb_versions-$(date +%Y%m%d-%H%M%S)"
exec > >(tee "$OUT.log") 2>&1
echo "command: rumbench run --config bench/rocksdb-versions.toml $*"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
"$RUMBENCH" run --config "$ROOT/bench/rocksdb-versions.toml" --progress off --no-history --db-dir "$SCRATCH/rocksdb-versions-db" --output-dir "$OUT" "$@"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -f "$OUT/report.html" "$OUT/intervals.csv" "$OUT/report.tsv"   # rendered again from result.json by `rumbench report`
