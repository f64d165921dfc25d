#!/usr/bin/env bash
# Side-by-side speed comparison: rumbench (rocksdb engine) vs db_bench of the
# very same RocksDB build (11.8.1 from the rocksdb crate's bundled source, the
# same compiler flags and librocksdb.a: bench/build_dbbench.sh), the same RocksDB options and the same
# workload, run alternately (db_bench then rumbench on odd repeats, the other
# way round on even ones); read runs start from a warmed page cache.
#
# See bench/README.md for what is compared, how counts and durations map
# between the two tools, and every known difference between the two clients.
#
# Usage:  bench/dbbench_compare.sh [VAR=value ...]
#   Every parameter is an environment variable; VAR=value arguments on the
#   command line set them too.  --help prints them with their defaults.
#
#   NUMS="1000000 10000000"   key-space sizes (keys)
#   THREADS="1 2"             client thread counts
#   REPEATS=1                 alternating repeats per (num, threads, step)
#   STEPS="fillseq fillrandom readrandom fwdrange readwhilewriting"
#   READ_SECONDS=20           duration of each read step (db_bench --duration)
#   WRITE_RATE=2097152        readwhilewriting writer rate, bytes/s of key+value
#   RANGE_LEN=10              fwdrange next() calls per seek (db_bench --seek_nexts)
#   CACHE_SIZE=67108864       block cache bytes (both sides)
#   SEED=42                   seed base (both sides)
#   READ_DB_PREP=waitforcompaction   or "compact": how the shared read db is settled
#   PAUSE=2                   seconds of rest (after a `sync`) between runs
#   DIR=/tmp/rumbench-vs-dbbench     scratch dir for databases (emptied at start)
#   OUT=bench/results/dbbench_compare-<date>.md   (+ .tsv and a -logs/ dir next to it)
#   RUMBENCH=/work/main/target/release/rumbench   copied once at start to $DIR/bin
#   ROCKSDB_VERSION=          a RocksDB version rumbench builds (8.10: rocksdb@8.10 against
#                             target/dbbench-8.10.0/db_bench of that very build); empty: the built-in 11.8.1
#   DB_BENCH=target/dbbench/db_bench  (built by bench/build_dbbench.sh when missing)
#   DBB_PERF_LEVEL=1          db_bench --perf_level (1 = kDisable, db_bench's default;
#                             2 = kEnableCount, what a thread gets when it never calls
#                             SetPerfLevel, as rumbench's threads do today)
#   DRY_RUN=0                 1: print the commands and the time estimate, run nothing
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$SCRIPT_DIR/.." && pwd)

. "$SCRIPT_DIR/var_args.sh"
var_args "${BASH_SOURCE[0]}" "$@"

NUMS=${NUMS:-"1000000 10000000"}
THREADS=${THREADS:-"1 2"}
REPEATS=${REPEATS:-1}
STEPS=${STEPS:-"fillseq fillrandom readrandom fwdrange readwhilewriting"}
READ_SECONDS=${READ_SECONDS:-20}
WRITE_RATE=${WRITE_RATE:-2097152}
RANGE_LEN=${RANGE_LEN:-10}
CACHE_SIZE=${CACHE_SIZE:-67108864}
SEED=${SEED:-42}
READ_DB_PREP=${READ_DB_PREP:-waitforcompaction}
PAUSE=${PAUSE:-2}
DIR=${DIR:-/tmp/rumbench-vs-dbbench}
STAMP=$(date +%Y%m%d-%H%M%S)
OUT=${OUT:-$REPO_DIR/bench/results/dbbench_compare-$STAMP.md}
RUMBENCH=${RUMBENCH:-$REPO_DIR/target/release/rumbench}
ROCKSDB_VERSION=${ROCKSDB_VERSION:-}
if [[ -n $ROCKSDB_VERSION ]]; then
    # rocksdb@<version> runs in its own build (docs/rocksdb-versions.md); its config and data dir are named rocksdb-<full version>.
    FULL_VERSION=$("$RUMBENCH" rocksdb-versions | awk -v v="$ROCKSDB_VERSION" '!found && ($1 == v || index($1, v ".") == 1) { print $1; found = 1 }')
    [[ -n $FULL_VERSION ]] || { echo "unknown RocksDB version $ROCKSDB_VERSION (rumbench rocksdb-versions)" >&2; exit 2; }
    ENGINE=rocksdb@$FULL_VERSION
    RB_CONFIG=rocksdb-$FULL_VERSION
    DBB_DEFAULT=$REPO_DIR/target/dbbench-$FULL_VERSION/db_bench
else
    ENGINE=rocksdb
    RB_CONFIG=rocksdb
    DBB_DEFAULT=$REPO_DIR/target/dbbench/db_bench
fi
DB_BENCH=${DB_BENCH:-$DBB_DEFAULT}
DRY_RUN=${DRY_RUN:-0}
DBB_PERF_LEVEL=${DBB_PERF_LEVEL:-1}

TSV=${OUT%.md}.tsv
LOGS=${OUT%.md}-logs
KEY_SIZE=16
VALUE_SIZE=100
ENTRY=$((KEY_SIZE + VALUE_SIZE))

for s in $STEPS; do
    case $s in fillseq|fillrandom|readrandom|fwdrange|readwhilewriting) ;;
        *) echo "unknown step '$s'" >&2; exit 2 ;; esac
done
case $READ_DB_PREP in waitforcompaction|compact) ;; *) echo "READ_DB_PREP must be waitforcompaction or compact" >&2; exit 2 ;; esac
if [[ ! -x $DB_BENCH && $DB_BENCH == "$DBB_DEFAULT" ]]; then
    "$REPO_DIR/bench/build_dbbench.sh" $ROCKSDB_VERSION >/dev/null
fi
[[ -x $DB_BENCH ]] || { echo "db_bench not found at $DB_BENCH (bench/build_dbbench.sh builds it)" >&2; exit 1; }
[[ -x $RUMBENCH ]] || { echo "rumbench not found at $RUMBENCH (cargo build --release)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "python3 is needed to parse results" >&2; exit 1; }

# ---------------------------------------------------------------------------
# Options, set explicitly on both sides.  Left column: rumbench -o KEY=VALUE;
# right: the db_bench flag that sets the same RocksDB option.
# ---------------------------------------------------------------------------
MB=$((1 << 20))
RB_OPTS=(
    -o compaction_style=leveled                       # --compaction_style=0
    -o "block_cache_size=$CACHE_SIZE"                 # --cache_size
    -o cache_type=lru                                 # --cache_type=lru_cache (rumbench's default on 11.8 is hyper_clock)
    -o "write_buffer_size=$((64 * MB))"               # --write_buffer_size
    -o max_write_buffer_number=2                      # --max_write_buffer_number
    -o max_background_jobs=2                          # --max_background_jobs
    -o max_subcompactions=1                           # --subcompactions
    -o level0_file_num_compaction_trigger=4           # --level0_file_num_compaction_trigger
    -o level0_slowdown_writes_trigger=20              # --level0_slowdown_writes_trigger
    -o level0_stop_writes_trigger=36                  # --level0_stop_writes_trigger
    -o "target_file_size_base=$((64 * MB))"           # --target_file_size_base
    -o "max_bytes_for_level_base=$((256 * MB))"       # --max_bytes_for_level_base
    -o level_compaction_dynamic_level_bytes=false      # --level_compaction_dynamic_level_bytes
    -o num_levels=7                                   # --num_levels
    -o compression=snappy                             # --compression_type=snappy
    -o bloom_bits=0                                   # --bloom_bits=0 (no filter)
    -o block_size=4096                                # --block_size
    -o cache_index_and_filter_blocks=false            # --cache_index_and_filter_blocks=0
    -o wal=true                                       # --disable_wal=0
    -o sync=false                                     # --sync=0
    -o use_direct_reads=false                         # --use_direct_reads=0
    -o use_direct_io_for_flush_and_compaction=false   # --use_direct_io_for_flush_and_compaction=0
    -o max_open_files=-1                              # --open_files=-1
    -o bytes_per_sync=0                               # --bytes_per_sync=0
    -o enable_pipelined_write=true                    # --enable_pipelined_write=1
    -o disable_auto_compactions=false                 # --disable_auto_compactions=0
    -o statistics=false                               # --statistics=0
)
DBB_OPTS=(
    --compaction_style=0
    "--cache_size=$CACHE_SIZE"
    --cache_type=lru_cache
    # rumbench's Cache::new_lru_cache is NewLRUCache(capacity): automatic shard
    # bits (-1) and RocksDB's default high_pri_pool_ratio 0.5 (db_bench's default is 0.0).
    --cache_numshardbits=-1
    --cache_high_pri_pool_ratio=0.5
    "--write_buffer_size=$((64 * MB))"
    --max_write_buffer_number=2
    --max_background_jobs=2
    --subcompactions=1
    --level0_file_num_compaction_trigger=4
    --level0_slowdown_writes_trigger=20
    --level0_stop_writes_trigger=36
    "--target_file_size_base=$((64 * MB))"
    "--max_bytes_for_level_base=$((256 * MB))"
    "--level_compaction_dynamic_level_bytes=false"
    --num_levels=7
    --compression_type=snappy
    --bloom_bits=0
    --block_size=4096
    --cache_index_and_filter_blocks=0
    --disable_wal=0
    --sync=0
    --use_direct_reads=0
    --use_direct_io_for_flush_and_compaction=0
    --mmap_read=0
    --mmap_write=0
    --open_files=-1
    --bytes_per_sync=0
    --enable_pipelined_write=1
    --disable_auto_compactions=0
    --statistics=0
    # 6.x's db_bench turns this on by default; RocksDB's (and rumbench's) default is
    # off, and 7.0 removed the option (left out then, as an unknown flag).
    --new_table_reader_for_compaction_inputs=0
    # db_bench's own settings where they differ from RocksDB's defaults
    # (delayed_write_rate 8M, hard_pending_compaction_bytes_limit 128G,
    # table_cache_numshardbits 4, index shortening, dump_malloc_stats, FIFO's)
    # are left as db_bench has them: rumbench applies the same ones
    # (DB_BENCH_FIXED in src/engine/rocksdb/mod.rs); the options table at the end
    # of the results shows any difference.
    # Client behaviour:
    --histogram=1                                 # per-op timing, as rumbench always does
    --progress_reports=0                          # rumbench runs with --progress off
    "--perf_level=$DBB_PERF_LEVEL"                # 1 = kDisable (db_bench's default), stated
    "--seed=$SEED"
)
# An older db_bench lacks some of these flags and refuses to start on an unknown one
# (6.28: --cache_type, whose LRU is its only block cache unless --use_clock_cache,
# and --progress_reports, cosmetic): leave out what this db_bench does not know, and say so.
DBB_KNOWN=$("$DB_BENCH" --help 2>&1 | sed -n 's/^ *-\([a-z0-9_]*\) .*/\1/p' || true)
DBB_KEPT=()
DBB_DROPPED=()
for f in "${DBB_OPTS[@]}"; do
    name=${f#--}; name=${name%%=*}
    if grep -qx "$name" <<<"$DBB_KNOWN"; then DBB_KEPT+=("$f"); else DBB_DROPPED+=("$f"); fi
done
DBB_OPTS=("${DBB_KEPT[@]}")
if ((${#DBB_DROPPED[@]})); then echo "note: $DB_BENCH does not know ${DBB_DROPPED[*]}: left out (its defaults: an LRU block cache)" >&2; fi
DBB_COMMON=("--key_size=$KEY_SIZE" "--value_size=$VALUE_SIZE" --compression_ratio=0.5 "${DBB_OPTS[@]}")
RB_COMMON=(-e "$ENGINE" "--key-size=$KEY_SIZE" "--value-size=$VALUE_SIZE" --compression-ratio=0.5 "--seed=$SEED"
           --progress=off --keep-db --no-history "${RB_OPTS[@]}")

# ---------------------------------------------------------------------------
# Time estimate (rough: 250k fillseq, 90k fillrandom ops/s on a 2-core VM,
# ~4 s of open/close/sync/pause per run).
# ---------------------------------------------------------------------------
estimate_s() {
    python3 - "$NUMS" "$THREADS" "$REPEATS" "$STEPS" "$READ_SECONDS" "$PAUSE" "$READ_DB_PREP" <<'EOF'
import sys
nums=[int(x) for x in sys.argv[1].split()]; threads=sys.argv[2].split(); rep=int(sys.argv[3])
steps=sys.argv[4].split(); secs=float(sys.argv[5]); pause=float(sys.argv[6]); prep=sys.argv[7]
over=2+pause; total=0
for n in nums:
    if any(s in steps for s in ("readrandom","fwdrange","readwhilewriting")):
        total += n/90e3 + 8 + (n/150e3 if prep=="compact" else 0) + n/200e3
    for t in threads:
        for s in steps:
            per = {"fillseq": n/250e3, "fillrandom": n/90e3}.get(s, secs + n/2e6)
            total += 2*rep*(per+over)
print(int(total))
EOF
}

EST=$(estimate_s)
echo "rumbench vs db_bench: NUMS=[$NUMS] THREADS=[$THREADS] REPEATS=$REPEATS STEPS=[$STEPS]"
echo "  read steps ${READ_SECONDS}s each, writer ${WRITE_RATE} B/s, block cache $CACHE_SIZE B, scratch $DIR"
echo "  expected total: ~$((EST / 60)) min $((EST % 60)) s (rough; fills at 10M keys dominate)"
echo "  results: $OUT (+ $(basename "$TSV"), $(basename "$LOGS")/)"

if [[ $DRY_RUN == 1 ]]; then
    echo "db_bench common flags: ${DBB_COMMON[*]}"
    echo "rumbench common flags: ${RB_COMMON[*]}"
    exit 0
fi

# ---------------------------------------------------------------------------
# Setup
# ---------------------------------------------------------------------------
rm -rf "$DIR"
mkdir -p "$DIR/bin" "$LOGS/opts" "$(dirname "$OUT")"
trap 'echo "interrupted; removing $DIR" >&2; rm -rf "$DIR"; exit 130' INT TERM
# A private copy, so a rebuild of target/release during the run changes nothing.
cp "$RUMBENCH" "$DIR/bin/rumbench"
RB="$DIR/bin/rumbench"
WORK="$DIR/work"

max_num=0; for n in $NUMS; do if ((n > max_num)); then max_num=$n; fi; done
need_kb=$((max_num * ENTRY * 4 / 1024))   # pristine + working db + WAL + compaction output
avail_kb=$(df -Pk "$DIR" | awk 'NR==2 {print $4}')
if ((avail_kb < need_kb)); then
    echo "warning: $DIR has $((avail_kb / 1024)) MiB free, about $((need_kb / 1024)) MiB may be needed" >&2
fi

printf 'num\tthreads\tstep\trepeat\ttool\tops_s\tp50_us\tp99_us\tseconds\tops\tfound\tlookups\twriter_ops_s\tlog\n' >"$TSV"

now() { date +%s; }
T_START=$(now)
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)

# Same-state clone of a db: SST files are immutable, so hard links are safe and
# share the page cache; everything RocksDB may rewrite or append is copied.
clone_db() {
    local src=$1 dst=$2 f b
    rm -rf "$dst"; mkdir -p "$dst"
    for f in "$src"/*; do
        b=$(basename "$f")
        case $b in
            *.sst) ln "$f" "$dst/$b" ;;
            LOCK) ;;
            *) cp -p "$f" "$dst/$b" ;;
        esac
    done
}

rest() { sync; sleep "$PAUSE"; }

# Read every SST of a db dir once, so that each read run starts with the data
# in the page cache. This VM pages out memory left untouched for a few
# seconds (DAMON), so without it the first run after a pause reads from disk
# and whichever tool runs first loses (seen: 928 vs 40,067 ops/s).
warm() { cat "$1"/*.sst >/dev/null 2>&1 || true; }

# Keep the newest OPTIONS file and the block cache lines of LOG of a db dir.
save_opts() {
    local dbdir=$1 name=$2 opt
    opt=$(ls "$dbdir"/OPTIONS-* 2>/dev/null | sort -t- -k2 -n | tail -1 || true)
    if [[ -n $opt ]]; then cp "$opt" "$LOGS/opts/$name.OPTIONS"; fi
    if [[ -f $dbdir/LOG ]]; then
        sed -n '/block_cache_options:/,/low_pri_pool_ratio/p' "$dbdir/LOG" >"$LOGS/opts/$name.cache"
    fi
}

# Parse a db_bench log: one TSV row (fields 6.. of the TSV).
parse_dbb() {
    python3 - "$1" "$2" <<'EOF'
import re, sys
text = open(sys.argv[1], errors="replace").read().replace("\r", "\n"); bench = sys.argv[2]
# db_bench 7.x on prints "N seconds M operations"; 6.x only ops/sec, so the count comes from
# the histogram that follows ("Count: M") and the elapsed time from the two (ops/sec = M / elapsed).
m = re.search(r"^%s\s*:\s*([\d.]+) micros/op (\d+) ops/sec(?: ([\d.]+) seconds (\d+) operations)?;(.*)$" % re.escape(bench), text, re.M)
if not m:
    print("\t".join(["NA"] * 8)); sys.exit(0)
ops_s, secs, ops, rest = m.group(2), m.group(3), m.group(4), m.group(5)
after = text[m.end():]
if ops is None:
    c = re.search(r"^Count: (\d+) ", after, re.M)
    ops = c.group(1) if c else "NA"
    secs = "%.3f" % (int(ops) / float(ops_s)) if c and float(ops_s) > 0 else "NA"
p = re.search(r"Percentiles: P50: ([\d.]+) P75: [\d.]+ P99: ([\d.]+)", after)
p50, p99 = (p.group(1), p.group(2)) if p else ("NA", "NA")
f = re.search(r"\((\d+) of (\d+) found\)", rest)
found, lookups = (f.group(1), f.group(2)) if f else ("NA", "NA")
writer = "NA"
w = re.search(r"Cumulative writes: (\S+) writes", after)
if bench == "readwhilewriting" and w:
    v = w.group(1); mult = {"K": 1e3, "M": 1e6, "G": 1e9}.get(v[-1], 1)
    n = float(v[:-1] if v[-1] in "KMG" else v) * mult
    writer = "%.0f~" % (n / float(secs))   # ~: approximate (count rounded to K, elapsed incl. tail)
print("\t".join([ops_s, p50, p99, secs, ops, found, lookups, writer]))
EOF
}

parse_rb() {
    python3 - "$1" <<'EOF'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
    s = d["configs"][0]["steps"][0]
    if s.get("status") != "completed":
        raise ValueError(s.get("error"))
    lat = s["ops_by_type"][0]["latency"]
    r = s.get("reads") or {}
    found = r.get("found"); lookups = None if r.get("found") is None else r["found"] + r["not_found"]
    w = s.get("writer")
    writer = "%.0f" % w["achieved_ops_s"] if w else "NA"
    vals = ["%.0f" % s["ops_s"], "%.2f" % lat["p50_us"], "%.2f" % lat["p99_us"], "%.3f" % s["wall_s"], str(s["ops"]),
            "NA" if found is None else str(found), "NA" if lookups is None else str(lookups), writer]
    print("\t".join(vals))
except Exception as e:
    print("\t".join(["NA"] * 8))
EOF
}

DBB_BENCH_NAME() {
    case $1 in
        fwdrange) echo seekrandom ;;
        *) echo "$1" ;;
    esac
}

# run_one TOOL NUM THREADS STEP REPEAT
run_one() {
    local tool=$1 n=$2 t=$3 step=$4 r=$5
    local tag="n$n-t$t-$step-r$r-$tool" log row dbdir
    local per_thread=$((n / t)) total_ops=$(( (n / t) * t ))
    log="$LOGS/$tag.log"
    case $tool in
    db_bench)
        dbdir="$WORK/dbb"
        local bench args=()
        bench=$(DBB_BENCH_NAME "$step")
        case $step in
            fillseq|fillrandom)
                rm -rf "$dbdir"
                # --num is the key space; --writes the puts per thread, so
                # the total is n as on rumbench (which counts --ops over all threads).
                args=(--benchmarks="$step" --num="$n" --writes="$per_thread" --threads="$t")
                ;;
            readrandom|fwdrange|readwhilewriting)
                clone_db "$DIR/pristine-$n" "$dbdir"
                warm "$dbdir"
                args=(--use_existing_db=1 --num="$n" --duration="$READ_SECONDS" --threads="$t")
                case $step in
                    readrandom) args+=(--benchmarks=readrandom) ;;
                    fwdrange) args+=(--benchmarks=seekrandom --seek_nexts="$RANGE_LEN") ;;
                    readwhilewriting) args+=(--benchmarks=readwhilewriting,stats --benchmark_write_rate_limit="$WRITE_RATE") ;;
                esac
                ;;
        esac
        mkdir -p "$WORK"
        echo "+ $DB_BENCH --db=$dbdir ${args[*]} <common flags>" >"$log"
        "$DB_BENCH" --db="$dbdir" "${DBB_COMMON[@]}" "${args[@]}" >>"$log" 2>&1 || echo "db_bench exited with $?" >>"$log"
        row=$(parse_dbb "$log" "$bench")
        ;;
    rumbench)
        dbdir="$WORK/rb/$RB_CONFIG"
        local args=() outdir="$LOGS/$tag.rumbench"
        rm -rf "$outdir"
        case $step in
            fillseq|fillrandom)
                rm -rf "$WORK/rb"
                args=(-s "$step" -n "$n" --ops "$total_ops" -t "$t")
                ;;
            readrandom|fwdrange|readwhilewriting)
                rm -rf "$WORK/rb"
                clone_db "$DIR/pristine-$n" "$dbdir"
                warm "$dbdir"
                args=(-s "$step" -n "$n" --seconds "$READ_SECONDS" -t "$t" --use-existing-db)
                case $step in
                    fwdrange) args+=(--range-len "$RANGE_LEN") ;;
                    readwhilewriting) args+=(--writer-rate "${WRITE_RATE}B") ;;
                esac
                ;;
        esac
        echo "+ rumbench run ${args[*]} --db-dir $WORK/rb -d $outdir <common flags>" >"$log"
        "$RB" run "${RB_COMMON[@]}" "${args[@]}" --db-dir "$WORK/rb" -d "$outdir" >>"$log" 2>&1 || echo "rumbench exited with $?" >>"$log"
        row=$(parse_rb "$outdir/result.json")
        ;;
    esac
    save_opts "$dbdir" "$tag"
    rm -rf "$WORK"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$t" "$step" "$r" "$tool" "$row" "${log#"$(dirname "$OUT")/"}" >>"$TSV"
    printf '  %-9s %-16s n=%-9s t=%s r=%s  %s ops/s\n' "$tool" "$step" "$n" "$t" "$r" "$(cut -f1 <<<"$row")"
    rest
}

# ---------------------------------------------------------------------------
# Main loop
# ---------------------------------------------------------------------------
needs_read_db=0
for s in $STEPS; do case $s in readrandom|fwdrange|readwhilewriting) needs_read_db=1 ;; esac; done

for n in $NUMS; do
    if ((needs_read_db)); then
        # One read db per key-space size, shared by both tools and every thread
        # count: loaded by db_bench fillrandom (n random puts, 1 thread), flushed
        # and settled. Every read run starts from a clone of it.
        echo "building the shared read db for n=$n ($READ_DB_PREP) ..."
        prep=(fillrandom flush waitforcompaction)
        [[ $READ_DB_PREP == compact ]] && prep+=(compact waitforcompaction)
        prep+=(levelstats)
        # Its own seed: db_bench seeds thread i of every run with seed+i+1, so a
        # read run with the load's seed would look up exactly the keys the load
        # wrote, in the same order (all found at first).
        "$DB_BENCH" --db="$DIR/pristine-$n" "${DBB_COMMON[@]}" --num="$n" --threads=1 --seed=$((SEED + 1000)) \
            --benchmarks="$(IFS=,; echo "${prep[*]}")" >"$LOGS/pristine-n$n.log" 2>&1 ||
            { echo "building the read db failed, see $LOGS/pristine-n$n.log" >&2; exit 1; }
        rm -f "$DIR/pristine-$n/LOCK"
        rest
    fi
    for t in $THREADS; do
        for step in $STEPS; do
            for ((r = 1; r <= REPEATS; r++)); do
                # Odd repeats run db_bench first, even ones rumbench, so
                # that neither always inherits the other's leftovers.
                if ((r % 2)); then
                    run_one db_bench "$n" "$t" "$step" "$r"
                    run_one rumbench "$n" "$t" "$step" "$r"
                else
                    run_one rumbench "$n" "$t" "$step" "$r"
                    run_one db_bench "$n" "$t" "$step" "$r"
                fi
            done
        done
    done
    rm -rf "$DIR/pristine-$n"
done

T_END=$(now)
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------
DBB_VERSION=$(grep -h -m1 '^RocksDB:' "$LOGS"/*db_bench.log 2>/dev/null | head -1 | awk '{print $3}' || true)
RB_COMMIT=$(python3 -c 'import json,sys,glob
for f in sorted(glob.glob(sys.argv[1]+"/*.rumbench/result.json")):
    d=json.load(open(f)); print(d.get("git_commit","?"), d["configs"][0].get("engine_version","?")); break' "$LOGS" || true)

export NUMS THREADS REPEATS STEPS READ_SECONDS WRITE_RATE CACHE_SIZE READ_DB_PREP RUMBENCH DB_BENCH ENTRY DBB_PERF_LEVEL
export DBB_VERSION RB_COMMIT LOAD_START LOAD_END
export DBB_DROPPED_TEXT="${DBB_DROPPED[*]}"
export HOST_INFO="$(nproc) CPUs, $(uname -r)" ELAPSED="$(( (T_END - T_START) / 60 )) min $(( (T_END - T_START) % 60 )) s"
python3 - "$TSV" "$OUT" "$LOGS" <<'EOF'
import csv, glob, os, re, statistics, sys
tsv, out, logs = sys.argv[1], sys.argv[2], sys.argv[3]
E = os.environ
rows = list(csv.DictReader(open(tsv), delimiter="\t"))
def num(x):
    try: return float(x.rstrip("~"))
    except: return None
groups = {}
for r in rows:
    groups.setdefault((int(r["num"]), int(r["threads"]), r["step"]), {}).setdefault(r["tool"], []).append(r)
def med(rs, k):
    v = [num(r[k]) for r in rs if num(r[k]) is not None]
    return statistics.median(v) if v else None
def fmt(v, d=0):
    return "NA" if v is None else (f"{v:,.{d}f}")
L = []
L.append(f"# rumbench vs db_bench (RocksDB {E['DBB_VERSION'] or '?'}, same librocksdb)\n")
L.append(f"Run `{os.path.basename(out)}`: `bench/dbbench_compare.sh` with NUMS=\"{E['NUMS']}\" THREADS=\"{E['THREADS']}\" "
         f"REPEATS={E['REPEATS']} READ_SECONDS={E['READ_SECONDS']} WRITE_RATE={E['WRITE_RATE']} CACHE_SIZE={E['CACHE_SIZE']} "
         f"READ_DB_PREP={E['READ_DB_PREP']} DBB_PERF_LEVEL={E['DBB_PERF_LEVEL']}.\n")
L.append(f"- rumbench: {E['RB_COMMIT'] or '?'} (copied from `{E['RUMBENCH']}`); db_bench: `{E['DB_BENCH']}`")
if E.get("DBB_DROPPED_TEXT"):
    L.append(f"- db_bench flags this db_bench does not know, left out (its defaults hold: an LRU block cache): `{E['DBB_DROPPED_TEXT']}`")
L.append(f"- host: {E['HOST_INFO']}; load average {E['LOAD_START']} at start, {E['LOAD_END']} at end; took {E['ELAPSED']}")
L.append("- ops/s: median over repeats; ratio = rumbench / db_bench (goal: >= 0.97 on every row); p99 in microseconds "
         "(db_bench: its histogram, integer-microsecond clock; rumbench: HDR histogram, ns clock)")
L.append("- fills: n puts in total over all threads (db_bench --writes=n/threads per thread); read steps: "
         f"{E['READ_SECONDS']} s each on a clone of one shared db per n (db_bench fillrandom of n keys, then {E['READ_DB_PREP']})\n")
L.append("| num | threads | step | db_bench ops/s | rumbench ops/s | ratio | db_bench p99 us | rumbench p99 us | notes |")
L.append("|---:|---:|---|---:|---:|---:|---:|---:|---|")
for (n, t, step), by in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1], E["STEPS"].split().index(kv[0][2]))):
    a, b = by.get("db_bench", []), by.get("rumbench", [])
    oa, ob = med(a, "ops_s"), med(b, "ops_s")
    ratio = (ob / oa) if (oa and ob) else None
    notes = []
    if ratio is not None and ratio < 0.97: notes.append("**below 0.97**")
    fa = [num(r["found"]) / num(r["lookups"]) for r in a if num(r["found"]) is not None and num(r["lookups"])]
    fb = [num(r["found"]) / num(r["lookups"]) for r in b if num(r["found"]) is not None and num(r["lookups"])]
    if fa or fb:
        notes.append("found %s / %s" % (f"{statistics.median(fa):.0%}" if fa else "NA", f"{statistics.median(fb):.0%}" if fb else "NA"))
    wa, wb = [r["writer_ops_s"] for r in a if r["writer_ops_s"] != "NA"], [r["writer_ops_s"] for r in b if r["writer_ops_s"] != "NA"]
    if wa or wb:
        notes.append("writer ops/s %s / %s (target %.0f)" % (",".join(wa) or "NA", ",".join(wb) or "NA", float(E["WRITE_RATE"]) / float(E["ENTRY"])))
    if len(a) > 1 or len(b) > 1:
        notes.append("runs: %s / %s" % (",".join(r["ops_s"] for r in a), ",".join(r["ops_s"] for r in b)))
    L.append(f"| {n:,} | {t} | {step} | {fmt(oa)} | {fmt(ob)} | {fmt(ratio, 3) if ratio else 'NA'} | "
             f"{fmt(med(a, 'p99_us'), 2)} | {fmt(med(b, 'p99_us'), 2)} | {'; '.join(notes)} |")
L.append("\nnotes: found = share of lookups that found a key (db_bench / rumbench; for fwdrange db_bench counts an exact "
         "match of the seek key, rumbench any landing entry); writer = readwhilewriting's background writer "
         "(db_bench: from its stats counter, approximate).\n")

# Effective options: newest OPTIONS file of each side, plus the block cache lines of LOG.
def parse_options(path):
    out, sec = {}, ""
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#"): continue
        m = re.match(r"\[([^\] \"]+)", line)
        if m: sec = m.group(1); continue
        if "=" in line:
            k, v = line.split("=", 1); out[f"{sec}.{k.strip()}"] = v.strip()
    return out
def parse_cache(path):
    out = {}
    if os.path.exists(path):
        for line in open(path):
            m = re.match(r"\s*(capacity|num_shard_bits|strict_capacity_limit|high_pri_pool_ratio|low_pri_pool_ratio)\s*:\s*(\S+)", line)
            if m: out["BlockCache." + m.group(1)] = m.group(2)
    return out
IGNORE = {"DBOptions.listeners", "DBOptions.create_missing_column_families"}
L.append("## Effective RocksDB options: differences\n")
pairs = []
for tag in sorted({os.path.basename(p)[:-len("-db_bench.OPTIONS")] for p in glob.glob(logs + "/opts/*-db_bench.OPTIONS")}):
    fa, fb = f"{logs}/opts/{tag}-db_bench", f"{logs}/opts/{tag}-rumbench"
    if os.path.exists(fb + ".OPTIONS"):
        pairs.append((tag, fa, fb))
# one fill and one read run are enough: options do not depend on the step otherwise
shown = []
for kind in ("fillseq", "fillrandom", "readrandom"):
    for p in pairs:
        if f"-{kind}-" in p[0]: shown.append(p); break
if not shown: L.append("(no OPTIONS files collected)\n")
for tag, fa, fb in shown:
    a = {**parse_options(fa + ".OPTIONS"), **parse_cache(fa + ".cache")}
    b = {**parse_options(fb + ".OPTIONS"), **parse_cache(fb + ".cache")}
    diff = [(k, a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
    L.append(f"{tag} (OPTIONS-* of each db dir, block cache from LOG):\n")
    if not diff:
        L.append("- identical\n"); continue
    L.append("| option | db_bench | rumbench |\n|---|---|---|")
    for k, va, vb in diff:
        mark = " (irrelevant)" if k in IGNORE else ""
        L.append(f"| {k}{mark} | {va} | {vb} |")
    L.append("")
L.append(f"Raw rows: {os.path.basename(tsv)}; logs, rumbench result.json files and OPTIONS copies: {os.path.basename(logs)}/\n")
open(out, "w").write("\n".join(L) + "\n")
EOF

echo
cat "$OUT"
echo "done in $(( (T_END - T_START) / 60 )) min $(( (T_END - T_START) % 60 )) s; results: $OUT"
rm -rf "$DIR"
