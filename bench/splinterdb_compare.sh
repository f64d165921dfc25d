#!/usr/bin/env bash
# Side by side: rumbench's splinterdb engine against SplinterDB's own benchmark
# client, `driver_test splinter_test --perf`, built from the same vendored source
# with the same make command and flags (bench/splinterdb_build.sh checks the
# CFLAGS are those of the library rumbench links). One thread each, the same
# keys, cache, memtable, filter and disk settings; run alternately (splinter_test
# first on odd repeats, rumbench first on even ones); each run on a fresh
# database. Ratios rumbench/splinter_test per pair, then their median and range.
#
# How the runs are matched (docs/splinterdb.md, "Beside splinter_test"):
# - keys: splinter_test's TEST_RANDOM keys (XXH64 of the index, seed 42, 24
#   bytes) = rumbench's key order `hash` with --key-size 24, inserted in index
#   order by both (rumbench's `fill`);
# - values: splinter_test --data-size D writes values of 9..D+1 bytes (a 1-byte
#   ref count, then 8..D bytes by index), mean (D+10)/2; rumbench writes one fixed
#   size, that mean (VALUE_SIZE, 55 for D=100);
# - inserts: splinter_test's rate is N / (inserting + draining the queued
#   background tasks, task_perform_until_quiescent); rumbench's matched rate is
#   N / (fill's wall time + waitforcompaction's, which drains them the same way);
# - point lookups: splinter_test looks up every index once, in order, synchronously
#   (--max-async-inflight 0); rumbench's readrandom N lookups of uniformly random
#   indexes: each a random key either way, all present;
# - ranges: splinter_test's "Small range" queries are N/128 scans of 1..100 tuples
#   (XXH64 of the range number, seed 43), mean 50.5; rumbench's fwdrange does
#   N/128 scans of RANGE_LEN=50 from random keys, 51 tuples each (the start,
#   then 50 next calls: db_bench's seek_nexts), counted from the bytes read.
#   splinter_test's medium and large ranges (512-1024 and 114688-131072
#   tuples) have no rumbench step and are not compared;
# (splinter_test's command line and output: bench/splinter_test.sh.)
# - settings: cache 1 GiB, memtable 24 MiB, 0 background threads, queue scale
#   100, filter_log_index_size 8 (splinter_test's defaults, set on rumbench).
# splinter_test times itself (its own clock around each phase, thread start and
# join included) and calls SplinterDB's internal core_* API with its own data
# config; rumbench calls the public splinterdb_* API.
#
# Usage: bench/splinterdb_compare.sh [VAR=value ...]
#   N=2000000          records (inserts; lookups; N/128 ranges)
#   DATA_SIZE=100      splinter_test --data-size
#   VALUE_SIZE=55      rumbench --value-size (the mean of splinter_test's values)
#   RANGE_LEN=50       rumbench fwdrange length (splinter_test's small ranges: 1..100)
#   REPEATS=5          alternating pairs
#   DIR=/tmp/rumbench-vs-splinter_test  scratch (emptied at start)
#   OUT=bench/results/splinterdb_compare-<date>.md
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/splinter_test.sh
. bench/var_args.sh
var_args "$0" "$@"
N=${N:-2000000}
DATA_SIZE=${DATA_SIZE:-100}
VALUE_SIZE=${VALUE_SIZE:-$(( (DATA_SIZE + 10) / 2 ))}
RANGE_LEN=${RANGE_LEN:-50}
REPEATS=${REPEATS:-5}
DIR=${DIR:-/tmp/rumbench-vs-splinter_test}
OUT=${OUT:-bench/results/splinterdb_compare-$(date +%Y%m%d-%H%M).md}
RUMBENCH=${RUMBENCH:-target/release/rumbench}
BUILD=$(bench/splinterdb_build.sh)
DRIVER=$BUILD/release/bin/driver_test
rm -rf "$DIR" && mkdir -p "$DIR/logs"
RANGES=$(( N / 128 ))
KEY_SIZE=24 # splinter_test --key-size, rumbench key_size
cat > "$DIR/suite.toml" <<EOF
name = "splinterdb-beside-splinter_test"
[settings]
num = $N
threads = 1
key_size = $KEY_SIZE
value_size = $VALUE_SIZE
key_order = "hash"
range_len = $RANGE_LEN
[[config]]
name = "splinterdb"
engine = "splinterdb"
options = { cache_size = "1G", memtable_capacity = "24M", queue_scale_percent = 100, filter_log_index_size = 8 }
[[step]]
name = "fill"
ops = $N
[[step]]
name = "waitforcompaction"
[[step]]
name = "readrandom"
ops = $N
[[step]]
name = "fwdrange"
ops = $RANGES
EOF

run_splinter_test() { # $1 = run id
    splinter_test_perf "$DRIVER" "$DIR" "$DIR/logs/splinter_test-$1.log" \
        "$N" "$KEY_SIZE" "$DATA_SIZE" 1024 24 30
}

run_rumbench() { # $1 = run id
    rm -rf "$DIR/rb-$1"
    flock /tmp/rumbench-heavy.lock "$RUMBENCH" run -c "$DIR/suite.toml" --progress off --no-history \
        --db-dir "$DIR/db" -d "$DIR/rb-$1" > "$DIR/logs/rumbench-$1.log" 2>&1
    python3 - "$DIR/rb-$1/result.json" "$((KEY_SIZE + VALUE_SIZE))" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = {x["name"]: x for x in r["configs"][0]["steps"]}
fill, wait = s["fill"], s["waitforcompaction"]
ins = fill["ops"] / (fill["wall_s"] + (wait.get("wall_s") or 0.0))
# Tuples as read: the step's bytes (MiB/s, keys and values) over one tuple's
# size. A scan visits RANGE_LEN + 1 tuples (the one it starts at, then
# RANGE_LEN next calls, as db_bench's seek_nexts).
tuples = s["fwdrange"]["mb_s"] * 2**20 / int(sys.argv[2])
print(round(ins), round(s["readrandom"]["ops_s"]), round(s["fwdrange"]["ops_s"]), round(tuples))
PY
}

echo "# rumbench splinterdb beside splinter_test ($(date -u +%Y-%m-%dT%H:%MZ))" > "$OUT"
{
    echo
    echo "Command: \`bench/splinterdb_compare.sh N=$N DATA_SIZE=$DATA_SIZE VALUE_SIZE=$VALUE_SIZE RANGE_LEN=$RANGE_LEN REPEATS=$REPEATS\`"
    echo "SplinterDB d2173e0e, driver_test and rumbench's library built with: $(sed -n 's/^CFLAGS = //p' "$BUILD"/release/build-config.*)"
    echo "Machine: $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), data in $DIR ($(df -T "$DIR" | awk 'NR==2{print $2}'))"
    echo
    echo "| pair | order | st inserts/s | rb inserts/s | ratio | st lookups/s | rb lookups/s | ratio | st ranges/s | rb ranges/s | ratio | st tuples/s | rb tuples/s | ratio |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
} >> "$OUT"
: > "$DIR/ratios.tsv"
for r in $(seq 1 "$REPEATS"); do
    if [ $((r % 2)) -eq 1 ]; then
        st=$(run_splinter_test "$r"); rb=$(run_rumbench "$r"); order="st, rb"
    else
        rb=$(run_rumbench "$r"); st=$(run_splinter_test "$r"); order="rb, st"
    fi
    read -r si sl sr stp <<< "$st"
    [ "$stp" != - ] || { echo "splinter_test printed no tuple rate (logs: $DIR/logs)" >&2; exit 1; }
    read -r ri rl rr rtp <<< "$rb"
    line=$(python3 -c "
si,sl,sr,stp,ri,rl,rr,rtp=map(float,'$si $sl $sr $stp $ri $rl $rr $rtp'.split())
print('\t'.join(f'{x:.3f}' for x in (ri/si, rl/sl, rr/sr, rtp/stp)))")
    echo "$line" >> "$DIR/ratios.tsv"
    read -r qi ql qr qt <<< "$line"
    echo "| $r | $order | $si | $ri | $qi | $sl | $rl | $ql | $sr | $rr | $qr | $stp | $rtp | $qt |" >> "$OUT"
    echo "pair $r ($order): inserts $qi, lookups $ql, ranges $qr, tuples $qt" >&2
done
pair_medians "$DIR/ratios.tsv" "rumbench / splinter_test" "inserts/s (matched: fill + waitforcompaction)" \
    "point lookups/s" "range queries/s (rb fixed length vs st 1..100)" "range tuples/s" >> "$OUT"
echo "logs: $DIR/logs" >> "$OUT"
cat "$OUT"
