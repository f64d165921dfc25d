#!/usr/bin/env bash
# RocksDB's cached reads in the version the write-up ran beside the one
# rumbench builds in (docs/splinterdb.md, conclusions 5 and 7): one change,
# the RocksDB version. Warm, SplinterDB's point and range rates here are 0.67
# to 1.14 of the published ones and leveled RocksDB's 1.5 to 2.1: the question
# is whether the RocksDB side moved with its version (published: 7.6.0).
#
# Two databases, each loaded as the cached suite loads leveled RocksDB (WAL
# off; fillrandom, settle, fillseq, flush, waitforcompaction), each with an
# LRU block cache of CACHE (RocksDB before 8.8.1 has no self-sizing
# HyperClockCache, db_bench's default since, so both use LRU):
#   rocksdb-<VERSION>  rocksdb@VERSION, built once by `rumbench rocksdb-versions`
#   rocksdb-11.8.1     the built-in RocksDB
# then interleaved rounds on both (bench/kept_db.sh): a full scan that warms
# the caches, READ_SECONDS of point queries and of ranges of 10.
#
# Usage: bench/rocksdb_version_reads.sh [VERSION] [NUM] [REPEAT] [CACHE]
#   VERSION  default 7.4 (7.4.4, the nearest built version before 7.6.0)
#   NUM      keys (default 50000000); REPEAT rounds (default 5); CACHE 12G
#   READ_SECONDS (environment) each read step's duration (default 30)
#   BASE (environment) the other side: rocksdb (the built-in 11.8.1, the
#     default) or another engine spec, e.g. rocksdb@11.8.1:release beside
#     VERSION=7.6.0:release (RocksDB's own builds of both)
# Build the version first (10-20 minutes): rumbench rocksdb-versions --build 7.4
# Writes bench/results/rocksdb_version_reads-STAMP.md and the runs' summaries.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kept_db.sh"
VERSION=${1:-7.4}; NUM=${2:-50000000}; REPEAT=${3:-5}; CACHE=${4:-12G}
READ_SECONDS=${READ_SECONDS:-30}
BASE=${BASE:-rocksdb}   # the other side: the built-in 11.8.1, or e.g. rocksdb@11.8.1:release
if [ "$BASE" = rocksdb ]; then BASE_NAME=rocksdb-11.8.1; else BASE_NAME=rocksdb-${BASE#rocksdb@}; BASE_NAME=${BASE_NAME//:/-}; fi
work="$SCRATCH/version-reads"; rm -rf "$work"; mkdir -p "$work"

settings=$(suite_settings "$NUM")
rocksdb() {  # rocksdb NAME ENGINE: the suite's leveled config, an LRU cache
  toml_config "$1" "$2" "wal = false, compaction_style = \"leveled\", block_cache_size = \"$CACHE\", cache_type = \"lru\""
}
# A release build (7.6.0:release) is named rocksdb-7.6.0-release.
configs=$(rocksdb "rocksdb-${VERSION//:/-}" "rocksdb@$VERSION"; rocksdb "$BASE_NAME" "$BASE")
{ echo "$settings"; echo "$configs"
  toml_step fillrandom "ops = $NUM"; toml_step settle; toml_step fillseq "ops = $NUM"; toml_step flush; toml_step waitforcompaction
} >"$work/load-suite.toml"
{ echo "$settings"; echo "$configs"
  toml_step readseq; toml_step readrandom "seconds = $READ_SECONDS"; toml_step fwdrange "seconds = $READ_SECONDS"
} >"$work/reads.toml"

kept_db_reads rocksdb_version_reads "RocksDB $VERSION beside $BASE_NAME, cached reads" \
  "BASE=$BASE READ_SECONDS=$READ_SECONDS bench/rocksdb_version_reads.sh $VERSION $NUM $REPEAT $CACHE" \
  "$REPEAT" "readrandom fwdrange"
