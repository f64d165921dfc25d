#!/usr/bin/env bash
# Why SplinterDB's cached reads at 50M rows fall short of the published ones
# against RocksDB (docs/splinterdb.md, conclusions 5 and 7), one change
# tested: the keys' history.
#
# The suites load every engine as the write-up loaded RocksDB: random inserts
# (fillrandom, with replacement), then a reload of every key in order
# (fillseq), so each key was written about twice. The write-up's SplinterDB
# (splinter_test) inserted each key once, in hashed (random) order. Three
# databases of the same keys and values, each engine's cache the same size:
#   splinterdb-once   filluniquerandom (each key once, random order), settle
#   splinterdb-twice  the suite's load: fillrandom, settle, fillseq, flush,
#                     waitforcompaction
#   rocksdb-leveled   the suite's config and load
# then interleaved rounds on all three (bench/kept_db.sh): a full scan that
# warms the caches (readseq), READ_SECONDS of ranges of 10 (fwdrange) and of
# point queries (readrandom), each round a fresh process. `rumbench compare`
# judges the other two against splinterdb-once.
#
# Usage: bench/splinterdb_load_history.sh [NUM] [REPEAT] [CACHE]
#   NUM      keys (default 50000000)
#   REPEAT   rounds of the reads (default 5)
#   CACHE    SplinterDB's cache and RocksDB's block cache (default 12G, as
#            bench/splinterdb_published.sh)
#   READ_SECONDS (environment) each read step's duration (default 30)
# Writes bench/results/splinterdb_load_history-STAMP.md and the runs'
# summaries beside it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kept_db.sh"
NUM=${1:-50000000}; REPEAT=${2:-5}; CACHE=${3:-12G}
READ_SECONDS=${READ_SECONDS:-30}
work="$SCRATCH/load-history"; rm -rf "$work"; mkdir -p "$work"

settings=$(suite_settings "$NUM")
splinterdb() { toml_config "$1" splinterdb "cache_size = \"$CACHE\""; }
rocksdb() {  # the suite's leveled config
  toml_config rocksdb-leveled rocksdb "wal = false, compaction_style = \"leveled\", block_cache_size = \"$CACHE\""
}
{ echo "$settings"; splinterdb splinterdb-once; toml_step filluniquerandom "ops = $NUM"; toml_step settle; } >"$work/load-1-once.toml"
{ echo "$settings"; splinterdb splinterdb-twice; rocksdb
  toml_step fillrandom "ops = $NUM"; toml_step settle; toml_step fillseq "ops = $NUM"; toml_step flush; toml_step waitforcompaction
} >"$work/load-2-twice.toml"
{ echo "$settings"; splinterdb splinterdb-once; splinterdb splinterdb-twice; rocksdb
  toml_step readseq; toml_step fwdrange "seconds = $READ_SECONDS"; toml_step readrandom "seconds = $READ_SECONDS"
} >"$work/reads.toml"

kept_db_reads splinterdb_load_history "SplinterDB's cached reads and the keys' history" \
  "READ_SECONDS=$READ_SECONDS bench/splinterdb_load_history.sh $NUM $REPEAT $CACHE" \
  "$REPEAT" "fwdrange readrandom"
