# Sourced by bench/splinterdb_compare.sh, splinterdb_version.sh and
# splinterdb_bg_stats.sh: runs of SplinterDB's own benchmark client on a
# fresh database, and the summary of paired runs.
#
# splinter_test_run DRIVER DIR LOG N KEY_SIZE DATA_SIZE CACHE_MIB MEMTABLE_MIB DB_GIB READERS [FLAG...]
#   runs `DRIVER splinter_test --perf` with one insert thread, READERS
#   lookup and READERS range threads and synchronous lookups, on
#   DIR/splinter.db (removed before and after), its output in LOG; FLAGs go
#   to its config (e.g. --stats). splinter_test reads its perf flags in one
#   fixed order: --max-async-inflight, --num-insert-threads,
#   --num-lookup-threads, --num-range-lookup-threads.
splinter_test_run() {
    local driver=$1 dir=$2 log=$3 n=$4 key_size=$5 data_size=$6 cache_mib=$7 memtable_mib=$8 db_gib=$9 readers=${10}
    shift 10
    rm -f "$dir/splinter.db"
    ( cd "$dir" && flock /tmp/rumbench-heavy.lock "$driver" splinter_test --perf \
        --max-async-inflight 0 --num-insert-threads 1 --num-lookup-threads "$readers" --num-range-lookup-threads "$readers" \
        --num-inserts "$n" --key-size "$key_size" --data-size "$data_size" \
        --cache-capacity-mib "$cache_mib" --memtable-capacity-mib "$memtable_mib" --db-capacity-gib "$db_gib" \
        --db-location "$dir/splinter.db" "$@" ) > "$log" 2>&1 \
        || { tail -20 "$log" >&2; exit 1; }
    rm -f "$dir/splinter.db"
}

# splinter_test_perf DRIVER DIR LOG N KEY_SIZE DATA_SIZE CACHE_MIB MEMTABLE_MIB DB_GIB
#   splinter_test_run with one lookup and one range thread; prints
#   "inserts/s lookups/s ranges/s tuples/s" of its small ranges (tuples/s
#   "-" from versions that do not print it).
splinter_test_perf() {
    local log=$3
    splinter_test_run "$@" 1
    python3 - "$log" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
ins = re.search(r"splinter total insertion rate: (\d+)", t)
lk = re.search(r"splinter total lookup rate: (\d+)", t)
rg = re.search(r"Small range.*?range rate: (\d+) ops/second(?:, tuple rate: (\d+))?", t, re.S)
if not (ins and lk and rg):
    sys.exit("cannot read splinter_test's rates from " + sys.argv[1])
print(ins.group(1), lk.group(1), rg.group(1), rg.group(2) or "-")
PY
}

# pair_medians TSV TITLE NAME...: a markdown list of each column of TSV (one
# row of ratios per pair of runs), its median [min, max], named by NAME.
pair_medians() {
    python3 - "$@" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
print()
print(f"{sys.argv[2]}, median of the pairs [min, max]:")
print()
for i, name in enumerate(sys.argv[3:]):
    col = [r[i] for r in rows]
    print(f"- {name}: {statistics.median(col):.3f} [{min(col):.3f}, {max(col):.3f}]")
PY
}
