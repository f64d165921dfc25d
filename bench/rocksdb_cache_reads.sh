#!/usr/bin/env bash
# Leveled RocksDB's cached reads on the RocksDB side of the published
# comparison (docs/splinterdb.md, conclusions 5 and 7): warm, it answers 1.5
# to 1.6 times its published point-query rate here and 2.1 times its range
# rate, while the write-up's SplinterDB answers its own. Two things the
# write-up leaves open, each changed alone on one database:
#   the client   db_bench (the write-up's) beside rumbench, the same
#                RocksDB build, options and block cache, each warming the
#                cache with a full scan first (db_bench
#                --benchmarks=readseq,readrandom,seekrandom)
#   the cache    "the data fits the engine's cache", its size not given:
#                block caches of CACHES, the rest of the data in the OS page
#                cache (a block cache holds blocks uncompressed: one of the
#                database's size on disk holds only part of them)
#
# One load as the cached suite loads leveled RocksDB (WAL off; fillrandom,
# settle, fillseq, flush, waitforcompaction), then REPEAT rounds, each a
# rumbench run of every cache size (a full scan, READ_SECONDS of point
# queries, READ_SECONDS of range queries; the configs share the one database
# through symlinks) and then db_bench with the first cache size.
#
# Usage: bench/rocksdb_cache_reads.sh [NUM] [REPEAT] [CACHES]
#   NUM keys (default 50000000); REPEAT rounds (default 5);
#   CACHES block cache sizes, the first the one db_bench gets (default "12G 3G")
#   READ_SECONDS (environment) each read step's duration (default 30)
#   DB_BENCH (environment) default target/dbbench/db_bench (bench/build_dbbench.sh)
# Writes bench/results/rocksdb_cache_reads-STAMP.md and the runs' summaries.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kept_db.sh"
NUM=${1:-50000000}; REPEAT=${2:-5}; CACHES=${3:-"12G 3G"}
READ_SECONDS=${READ_SECONDS:-30}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DB_BENCH=${DB_BENCH:-$ROOT/target/dbbench/db_bench}
[ -x "$DB_BENCH" ] || { echo "no db_bench at $DB_BENCH: bench/build_dbbench.sh builds it" >&2; exit 1; }
read -r -a caches <<<"$CACHES"
bytes() { numfmt --from=iec "$1"; }
for c in "${caches[@]}"; do bytes "$c" >/dev/null || exit 2; done
work="$SCRATCH/rocksdb-cache-reads"; rm -rf "$work"; mkdir -p "$work"
trap 'rm -rf "$work/db"' EXIT
stamp=$(date -u +%Y%m%d-%H%M)
command="READ_SECONDS=$READ_SECONDS bench/rocksdb_cache_reads.sh $NUM $REPEAT \"$CACHES\""

settings=$(suite_settings "$NUM")
key_size=$(sed -n 's/^key_size = //p' <<<"$settings")
value_size=$(sed -n 's/^value_size = //p' <<<"$settings")
range_len=$(sed -n 's/^range_len = //p' <<<"$settings")
# The suite's leveled config; the loaded database is the first cache's.
leveled() { toml_config "$1" rocksdb "wal = false, compaction_style = \"leveled\", block_cache_size = \"$2\""; }
name() { [ "$1" = "${caches[0]}" ] && echo rocksdb-leveled || echo "rocksdb-cache-$1"; }
{ echo "$settings"; leveled rocksdb-leveled "${caches[0]}"
  toml_step fillrandom "ops = $NUM"; toml_step settle; toml_step fillseq "ops = $NUM"; toml_step flush; toml_step waitforcompaction
} >"$work/load.toml"
{ echo "$settings"
  for c in "${caches[@]}"; do leveled "$(name "$c")" "$c"; done
  toml_step readseq; toml_step readrandom "seconds = $READ_SECONDS"; toml_step fwdrange "seconds = $READ_SECONDS"
} >"$work/reads.toml"

common=(--db-dir "$work/db" --progress lines --no-history)
logged "$work/load.log" "$RUMBENCH" run -c "$work/load.toml" --keep-db -d "$work/load" "${common[@]}"
for c in "${caches[@]:1}"; do ln -s rocksdb-leveled "$work/db/$(name "$c")"; done

# db_bench with rumbench's RocksDB options (rumbench's defaults are
# db_bench's: src/engine/rocksdb/mod.rs, bench/README.md; the suite sets the WAL
# off and the cache).
dbb=("$DB_BENCH" --db="$work/db/rocksdb-leveled" --use_existing_db=1 --num="$NUM"
     --key_size="$key_size" --value_size="$value_size" --compaction_style=0 --disable_wal=1
     --cache_size="$(bytes "${caches[0]}")" --benchmarks=readseq,readrandom,seekrandom --seek_nexts="$range_len"
     --duration="$READ_SECONDS" --threads=1 --histogram=1)
runs=()
for r in $(seq "$REPEAT"); do
  logged "$work/reads-$r.log" "$RUMBENCH" run -c "$work/reads.toml" --use-existing-db -d "$work/reads-$r" "${common[@]}"
  runs+=("$work/reads-$r")
  logged "$work/db_bench-$r.log" "${dbb[@]}" --seed="$r"
  grep -q '^seekrandom ' "$work/db_bench-$r.log" || { tail "$work/db_bench-$r.log" >&2; exit 1; }
done
all=$(IFS=,; echo "${runs[*]}")
"$RUMBENCH" compare "$all" >"$work/compare.txt"
keep="$ROOT/bench/results/rocksdb_cache_reads-$stamp"
mkdir -p "$keep"
cp "$work/load/summary.txt" "$keep/load-summary.txt"
for r in $(seq "$REPEAT"); do
  cp "$work/reads-$r/summary.txt" "$keep/reads-$r-summary.txt"
  grep -E '^(RocksDB|Entries|Keys|Values|readseq|readrandom|seekrandom|Microseconds per read|Count|Percentiles)' "$work/db_bench-$r.log" >"$keep/db_bench-$r.txt" || true
done
{
  echo "# Leveled RocksDB's cached reads: the client and the block cache ($stamp UTC)"
  echo
  echo '```sh'
  echo "$command"
  echo '```'
  echo
  echo "The database: $(du -sh --apparent-size "$work/db/rocksdb-leveled/" | cut -f1) on disk ($NUM keys of $key_size bytes, values of $value_size)."
  echo
  python3 "$ROOT/bench/rounds_table.py" "$all" "$work/compare.txt" readrandom fwdrange
  echo
  echo "db_bench (\`${dbb[*]/#$ROOT\//} --seed=ROUND\`), after rumbench in each round:"
  echo
  python3 - "$work" "$REPEAT" <<'PY'
import json, re, statistics, sys
work, repeat = sys.argv[1], int(sys.argv[2])
res = {r: json.load(open(f"{work}/reads-{r}/result.json")) for r in range(1, repeat + 1)}
for dbb, step in (("readrandom", "readrandom"), ("seekrandom", "fwdrange")):
    rows, ratios = [], []
    for r in range(1, repeat + 1):
        text = open(f"{work}/db_bench-{r}.log").read()
        m = re.search(rf"^{dbb}\s*:\s*[\d.]+ micros/op (\d+) ops/sec.*?\((\d+) of (\d+) found\)", text, re.M)
        ops, found, total = int(m.group(1)), int(m.group(2)), int(m.group(3))
        c = next(c for c in res[r]["configs"] if c["name"] == "rocksdb-leveled")
        rb = next(s for s in c["steps"] if s["name"] == step)["ops_s"]
        rows.append((r, ops, found, total, rb))
        ratios.append(rb / ops)
    print(f"| round | db_bench {dbb} ops/s | found | rumbench (rocksdb-leveled) {step} ops/s | rumbench / db_bench |")
    print("|---:|---:|---:|---:|---:|")
    for r, ops, found, total, rb in rows:
        print(f"| {r} | {ops:,} | {found:,} of {total:,} | {rb:,.0f} | {rb / ops:.2f} |")
    print(f"\n{step}: rumbench / db_bench, median {statistics.median(ratios):.2f} [{min(ratios):.2f}, {max(ratios):.2f}]\n")
PY
} >"$keep.md"
cat "$keep.md"
echo "wrote $keep.md" >&2
