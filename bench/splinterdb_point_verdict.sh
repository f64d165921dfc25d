#!/usr/bin/env bash
# The cached point-query verdict of the published RocksDB-vs-SplinterDB
# comparison (conclusion 5, docs/splinterdb.md): SplinterDB against RocksDB at
# the published size, in enough rounds for `rumbench compare` to judge.
#
# A round of the whole cached suite at 50M rows takes about 19 minutes, so the
# 12 rounds a verdict needs would take hours. The point queries do not need
# the fills repeated: each engine loads once (the suite's fills, settle, flush
# and wait, as bench/splinterdb_published.sh runs them), then every round
# reopens that database, warms the engine's cache with a full scan (readseq:
# every key read once) and measures readrandom, as db_bench users run
# `--use_existing_db=1 --benchmarks=readseq,readrandom` (bench/kept_db.sh).
#
# Usage: bench/splinterdb_point_verdict.sh [NUM] [REPEAT] [CACHE]
#   NUM      keys (default 50000000), loaded by fillrandom then fillseq
#   REPEAT   rounds of the reads (default 12)
#   CACHE    SplinterDB's cache and RocksDB's block cache (default 12G)
#   ROCKSDB_CACHE (environment) RocksDB's block cache alone (default CACHE):
#            3G, the database's size on disk at 50M rows, is the one with
#            which leveled RocksDB answers its published rate
#            (bench/rocksdb_cache_reads.sh)
#   READ_SECONDS (environment) readrandom's duration per round (default 30)
#   CONFIGS  (environment) the cached suite's configs to compare, comma
#            separated, the first the base (default: all three)
# Writes bench/results/splinterdb_point_verdict-STAMP.md (every round's rate
# and storage reads per query, and compare's verdicts) and the runs'
# summaries beside it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kept_db.sh"
NUM=${1:-50000000}; REPEAT=${2:-12}; CACHE=${3:-12G}
READ_SECONDS=${READ_SECONDS:-30}
ROCKSDB_CACHE=${ROCKSDB_CACHE:-$CACHE}
CONFIGS=${CONFIGS:-splinterdb,rocksdb-leveled,rocksdb-universal}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
work="$SCRATCH/point-verdict"; rm -rf "$work"; mkdir -p "$work"

# The suite's settings and configs (those in CONFIGS, in that order), with the
# load's steps in one file and the reads' in another.
python3 - "$ROOT/suites/splinterdb-vs-rocksdb.toml" "$CONFIGS" "$NUM" "$READ_SECONDS" "$work" <<'PY'
import re, sys
path, keep, num, seconds, work = sys.argv[1], sys.argv[2].split(","), sys.argv[3], sys.argv[4], sys.argv[5]
head, *tables = re.split(r"(?m)^(?=\[\[(?:config|step)\]\])", open(path).read())
name = lambda t: re.search(r'(?m)^name = "([^"]*)"', t).group(1)
configs = {name(t): t for t in tables if t.startswith("[[config]]")}
missing = [c for c in keep if c not in configs]
if missing:
    sys.exit(f"CONFIGS: no config {', '.join(missing)} in {path}")
head = re.sub(r"(?m)^num = [0-9]+$", f"num = {num}", head)
chosen = "".join(configs[c] for c in keep)
load = [re.sub(r"(?m)^ops = [0-9]+$", f"ops = {num}", t) for t in tables
        if t.startswith("[[step]]") and name(t) not in ("readseq", "readrandom", "fwdrange")]
open(f"{work}/load-suite.toml", "w").write(head + chosen + "".join(load))
reads = f'[[step]]\nname = "readseq"\n\n[[step]]\nname = "readrandom"\nseconds = {seconds}\n'
open(f"{work}/reads.toml", "w").write(head + chosen + reads)
PY

kept_db_reads splinterdb_point_verdict "The cached point-query verdict" \
  "CONFIGS=$CONFIGS READ_SECONDS=$READ_SECONDS${ROCKSDB_CACHE:+ ROCKSDB_CACHE=$ROCKSDB_CACHE} bench/splinterdb_point_verdict.sh $NUM $REPEAT $CACHE" \
  "$REPEAT" readrandom -o "splinterdb.cache_size=$CACHE" -o "rocksdb.block_cache_size=$ROCKSDB_CACHE"
