#!/usr/bin/env bash
# Storage reads per point query: RocksDB leveled in io-bound mode (direct reads,
# 8 MB block cache, bloom filters) against cached mode, and LMDB in io-bound
# mode (page cache dropped before the read; the data fits in RAM, so the run
# says it was not IO-bound).
# Usage: bench/io_bound.sh [NUM] [SECONDS]   (default 5000000 keys, 20 s reads)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
NUM=${1:-5000000}; SECS=${2:-20}
echo "| engine | mode | keys | readrandom ops/s | rpq | rkbpq | warning |"
echo "|---|---|---:|---:|---:|---:|---|"
for spec in "rocksdb io-bound" "rocksdb cached" "lmdb io-bound"; do
  set -- $spec; engine=$1; mode=$2
  out="$SCRATCH/io-$engine-$mode"; rm -rf "$out"
  cat > "$SCRATCH/io.toml" <<TOML
[settings]
num = $NUM
mode = "$mode"
[[config]]
engine = "$engine"
[[step]]
name = "fillseq"
[[step]]
name = "flush"
[[step]]
name = "waitforcompaction"
[[step]]
name = "readrandom"
seconds = $SECS
TOML
  "$RUMBENCH" run --config "$SCRATCH/io.toml" --progress off -d "$out" >/dev/null 2>&1
  echo "| $engine | $mode | $NUM | $(jget "$out" 'step("readrandom")["ops_s"]') | $(jget "$out" 'step("readrandom")["metrics"]["io"]["rpq"]') | $(jget "$out" 'step("readrandom")["metrics"]["io"]["rkbpq"]') | $(jget "$out" '"; ".join(w for w in step("readrandom")["warnings"] if "io-bound" in w) or None') |"
done
