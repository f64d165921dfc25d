#!/usr/bin/env bash
# A/B of two rumbench builds on one step, run alternately (A B, B A,
# A B, ...) so slow and fast periods of a shared machine hit both alike.
# Flags: rumbench's in bench/dbbench_compare.sh (16-byte keys, 100-byte values,
# compression ratio 0.5, seed 42, the same RocksDB options).
#
# Usage:  bench/ab_builds.sh BINARY_A BINARY_B [ROUNDS] [STEP] [NUM]
#   ROUNDS=10  pairs
#   STEP=fillseq: fillseq or fillrandom (NUM puts on rocksdb), readrandom
#        (NUM gets on rocksdb after a fillseq of NUM keys; the readrandom
#        step is timed), null-readrandom (NUM gets on the null engine: the
#        client's own cost per operation), null-ycsb-a (YCSB A, NUM
#        operations over 100,000 records on the null engine: the YCSB
#        client's own cost; the ycsb-a step is timed)
#   NUM=1000000 (null-readrandom: 20000000, null-ycsb-a: 30000000)
# Prints one line per run (round, build, ops/s, user and system CPU seconds),
# then each pair's B/A ratio and their median.
set -euo pipefail
A=${1:?binary A}; B=${2:?binary B}; ROUNDS=${3:-10}; STEP=${4:-fillseq}
case $STEP in
    fillseq|fillrandom) STEPS=$STEP; TIMED=0; NUM=${5:-1000000} ;;
    readrandom) STEPS=fillseq,readrandom; TIMED=1; NUM=${5:-1000000} ;;
    null-readrandom) STEPS=readrandom; TIMED=0; NUM=${5:-20000000} ;;
    null-ycsb-a) STEPS=ycsb-load,ycsb-a; TIMED=1; NUM=${5:-30000000} ;;
    *) echo "STEP must be fillseq, fillrandom, readrandom, null-readrandom or null-ycsb-a" >&2; exit 2 ;;
esac
for bin in "$A" "$B"; do [[ -x $bin ]] || { echo "not an executable: $bin" >&2; exit 1; }; done
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
MB=$((1 << 20)); CACHE_SIZE=67108864; KEY_SIZE=16; VALUE_SIZE=100; SEED=42
ENGINE=rocksdb   # RB_COMMON's -e (the side-by-side script picks a version there)
# rumbench's flags (RB_OPTS: RocksDB options; RB_COMMON: engine, sizes, seed,
# output), taken from the side-by-side script so both agree.
eval "$(sed -n -e '/^RB_OPTS=(/,/^)/p' -e '/^RB_COMMON=(/,/)$/p' "$SCRIPT_DIR/dbbench_compare.sh")"
if [[ $STEP == null-* ]]; then
    RB_COMMON=(-e null "--key-size=$KEY_SIZE" "--value-size=$VALUE_SIZE" "--seed=$SEED" --progress=off --no-history)
fi
SIZE=(-n "$NUM")
[[ $STEP == null-ycsb-a ]] && SIZE=(--records 100000)
WORK=$(mktemp -d /tmp/rumbench-ab.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
export XDG_DATA_HOME="$WORK/xdg"

run() {   # run BINARY -> "ops/s user sys"
    rm -rf "$WORK/db" "$WORK/out"
    sync; sleep 1
    /usr/bin/time -f "%U %S" -o "$WORK/time" "$1" run "${RB_COMMON[@]}" \
        -s "$STEPS" "${SIZE[@]}" --ops "$NUM" -t 1 --db-dir "$WORK/db" -d "$WORK/out" >"$WORK/log" 2>&1 \
        || { echo "$1 failed:" >&2; tail -5 "$WORK/log" >&2; exit 1; }
    echo "$(python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["configs"][0]["steps"][int(sys.argv[2])]["ops_s"]))' "$WORK/out/result.json" "$TIMED") $(cat "$WORK/time")"
}

echo "# $STEP ($STEPS), NUM=$NUM, 1 thread; A=$A B=$B"
echo "# round build ops/s user_s sys_s"
ratios=()
for r in $(seq "$ROUNDS"); do
    if (( r % 2 )); then order="A B"; else order="B A"; fi
    declare -A ops=()
    for which in $order; do
        bin=$A; [[ $which == B ]] && bin=$B
        line=$(run "$bin")
        echo "$r $which $line"
        ops[$which]=${line%% *}
    done
    ratios+=("$(python3 -c "print(${ops[B]} / ${ops[A]})")")
done
python3 - "${ratios[@]}" <<'PY'
import statistics, sys
r = sorted(float(x) for x in sys.argv[1:])
print("# B/A per pair:", " ".join(f"{x:.3f}" for x in r))
print(f"# median B/A: {statistics.median(r):.3f}")
PY
