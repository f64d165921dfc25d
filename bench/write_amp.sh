#!/usr/bin/env bash
# RocksDB leveled vs universal fillrandom: our write-amp (storage bytes / logical
# bytes, from /proc/diskstats and /proc/self/io) next to RocksDB's own
# ((flush + compaction bytes) / ingest, exact statistics tickers), with the WAL
# off (so both count the same things) and on (ours then adds the WAL).
# Usage: bench/write_amp.sh [NUM]      (default 2000000 keys)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
NUM=${1:-2000000}
# A scaled-down LSM (8 MB memtables and files, 32 MB L1) so a few million keys reach several levels.
LSM="-o write_buffer_size=8M -o target_file_size_base=8M -o max_bytes_for_level_base=32M -o statistics=true"
echo "| style | WAL | logical MB | device MB written | ours (device) | ours (/proc/self/io) | RocksDB's own | ours/own |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
for style in leveled universal; do
  for wal in false true; do
    out="$SCRATCH/wa-$style-$wal"; rm -rf "$out"
    "$RUMBENCH" run -e rocksdb -o compaction_style=$style -o wal=$wal $LSM -s fillrandom,flush,waitforcompaction \
      -n "$NUM" --progress off -d "$out" >/dev/null 2>&1
    steps='["fillrandom","flush","waitforcompaction"]'
    logical=$(jget "$out" 'step("fillrandom")["metrics"]["logical_bytes_written"]')
    dev=$(jget "$out" "sum(step(n)['metrics']['io']['bytes_written'] for n in $steps)")
    proc=$(jget "$out" "sum(step(n)['metrics']['process_write_bytes'] for n in $steps)")
    own=$(jget "$out" 'step("waitforcompaction")["engine_write_amp_cumulative"]')
    python3 -c "
l,d,p,o=$logical,$dev,$proc,$own
print(f'| $style | $wal | {l/2**20:.0f} | {d/2**20:.0f} | {d/l:.2f} | {p/l:.2f} | {o:.2f} | {d/l/o:.2f} |')"
  done
done
