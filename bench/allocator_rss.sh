#!/usr/bin/env bash
# Peak RSS of RocksDB with a large block cache under glibc malloc and jemalloc
# (Debian's libjemalloc2), same workload: fillrandom, then readrandom with many
# threads churning a block cache smaller than the data.
# Usage: bench/allocator_rss.sh [NUM] [CACHE] [THREADS] [SECONDS]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
NUM=${1:-8000000}; CACHE=${2:-512M}; THREADS=${3:-8}; SECS=${4:-30}
echo "| allocator | block cache | readers | fillrandom rss peak MB | readrandom rss peak MB | readrandom rss end MB | readrandom ops/s | allocator in use |"
echo "|---|---|---:|---:|---:|---:|---:|---|"
for alloc in glibc jemalloc; do
  out="$SCRATCH/rss-$alloc"; rm -rf "$out"
  cat > "$SCRATCH/rss.toml" <<TOML
[settings]
num = $NUM
allocator = "$alloc"
[[config]]
engine = "rocksdb"
options = { block_cache_size = "$CACHE" }
[[step]]
name = "fillrandom"
[[step]]
name = "readrandom"
threads = $THREADS
seconds = $SECS
TOML
  "$RUMBENCH" run --config "$SCRATCH/rss.toml" --progress off -d "$out" >/dev/null 2>&1
  mb='lambda b: b / 2**20'
  echo "| $alloc | $CACHE | $THREADS | $(jget "$out" "($mb)(step('fillrandom')['metrics']['rss_peak_bytes'])") | $(jget "$out" "($mb)(step('readrandom')['metrics']['rss_peak_bytes'])") | $(jget "$out" "($mb)(step('readrandom')['metrics']['rss_end_bytes'])") | $(jget "$out" 'step("readrandom")["ops_s"]') | $(jget "$out" 'r["configs"][0]["allocator_in_use"]') |"
done
