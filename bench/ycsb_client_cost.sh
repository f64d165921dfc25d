#!/usr/bin/env bash
# rumbench's own cost in YCSB steps (the targets of the YCSB issue):
#  1. null engine, ycsb-a, 1 thread: ops/s (target: at least 10 million, i.e.
#     zipfian draw + key build + histogram record under 100 ns per operation);
#  2. rocksdb, ycsb-a..f, 1 thread: the client's share of the step's CPU,
#     estimated as the null engine's CPU per operation (the same client code,
#     same op sequence, an engine that does nothing) over rocksdb's whole
#     process CPU per operation (target: below 10%);
#  3. postgres, ycsb-a..f, 1 thread: rumbench's CPU per operation over the
#     server process tree's (target: below 5%).
# Runs alternate null / rocksdb per repeat so that load on this shared
# machine hits both alike; every figure comes from the runs' result.json.
#
# Usage: bench/ycsb_client_cost.sh [REPEATS=3] [RECORDS=200000] [STEP_SECONDS=10] [NULL_OPS=50000000]
set -euo pipefail
for a in "$@"; do export "${a?}"; done
REPEATS=${REPEATS:-3}; RECORDS=${RECORDS:-200000}; SECONDS_PER_STEP=${STEP_SECONDS:-10}; NULL_OPS=${NULL_OPS:-50000000}
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
OUT=${OUT:-$(dirname "${BASH_SOURCE[0]}")/results/ycsb_client_cost-$(date +%Y%m%d-%H%M).md}
STEPS=ycsb-load,ycsb-a,ycsb-b,ycsb-c,ycsb-d,ycsb-e,ycsb-f
RUN_STEPS=(ycsb-a ycsb-b ycsb-c ycsb-d ycsb-e ycsb-f)
COMMON=(--progress off --no-history --records "$RECORDS" -t 1 --seed 42)

run() {   # run NAME ARGS... -> result dir $SCRATCH/NAME
    rm -rf "${SCRATCH:?}/$1"
    local name=$1; shift
    "$RUMBENCH" run "${COMMON[@]}" "$@" -d "$SCRATCH/$name" >"$SCRATCH/$name.log" 2>&1 || { tail -5 "$SCRATCH/$name.log" >&2; exit 1; }
}
step_field() { jget "$SCRATCH/$1" "step('$2')['$3']"; }
metric() { jget "$SCRATCH/$1" "step('$2')['metrics']['$3']"; }

{
echo "# rumbench's own cost in YCSB steps ($(date -u +%Y-%m-%dT%H:%MZ))"
echo
echo "Command: \`bench/ycsb_client_cost.sh REPEATS=$REPEATS RECORDS=$RECORDS STEP_SECONDS=$SECONDS_PER_STEP NULL_OPS=$NULL_OPS\`"
echo "Binary: $("$RUMBENCH" --version 2>/dev/null || echo "$RUMBENCH"), $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo
echo "## 1. null engine, ycsb-a, 1 thread, $NULL_OPS operations"
echo
echo "| repeat | ops/s | ns/op | client CPU us/op |"
echo "|---|---|---|---|"
} >"$OUT"
for r in $(seq "$REPEATS"); do
    run null-a -e null -s ycsb-load,ycsb-a --ops "$NULL_OPS"
    ops=$(step_field null-a ycsb-a ops_s)
    cpu=$(metric null-a ycsb-a client_cpu_us_op)
    echo "| $r | ${ops%.*} | $(python3 -c "print(f'{1e9/$ops:.1f}')") | $cpu |" >>"$OUT"
done

{
echo
echo "## 2. rocksdb vs null, 1 thread, $RECORDS records, $SECONDS_PER_STEP s per step"
echo
echo "Client share = null's CPU per operation / rocksdb's process CPU per operation (same op sequence, same client code)."
echo
echo "| repeat | step | rocksdb ops/s | rocksdb CPU us/op | null CPU us/op | client share |"
echo "|---|---|---|---|---|---|"
} >>"$OUT"
for r in $(seq "$REPEATS"); do
    order="null rocksdb"; (( r % 2 )) || order="rocksdb null"
    for e in $order; do run "kv-$e" -e "$e" -s "$STEPS" --seconds "$SECONDS_PER_STEP"; done
    for s in "${RUN_STEPS[@]}"; do
        rops=$(step_field kv-rocksdb "$s" ops_s); rcpu=$(metric kv-rocksdb "$s" client_cpu_us_op); ncpu=$(metric kv-null "$s" client_cpu_us_op)
        share=$(python3 -c "print(f'{100*$ncpu/$rcpu:.1f}%' if '$rcpu' != '-' and '$ncpu' != '-' else '-')")
        echo "| $r | $s | ${rops%.*} | $rcpu | $ncpu | $share |" >>"$OUT"
    done
done

{
echo
echo "## 3. postgres (started by rumbench, Unix socket), 1 thread, $RECORDS records, $SECONDS_PER_STEP s per step"
echo
echo "| repeat | step | ops/s | client CPU us/op | server CPU us/op | client / server |"
echo "|---|---|---|---|---|---|"
} >>"$OUT"
for r in $(seq "$REPEATS"); do
    run pg -e postgres -s "$STEPS" --seconds "$SECONDS_PER_STEP"
    for s in "${RUN_STEPS[@]}"; do
        ops=$(step_field pg "$s" ops_s); c=$(metric pg "$s" client_cpu_us_op); sv=$(metric pg "$s" srv_cpu_us_op)
        share=$(python3 -c "print(f'{100*$c/$sv:.1f}%' if '$c' != '-' and '$sv' != '-' else '-')")
        echo "| $r | $s | ${ops%.*} | $c | $sv | $share |" >>"$OUT"
    done
done
echo "written: $OUT"
cat "$OUT"
