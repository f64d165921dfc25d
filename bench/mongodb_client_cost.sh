#!/usr/bin/env bash
# rumbench's client cost per operation on MongoDB (the mongodb driver, a
# driver per client thread on the thread's own runtime) beside the same on PostgreSQL (rumbench's lean pgwire client), same
# kind of work: YCSB-C (reads) and YCSB-A (reads and one-field updates), one
# client thread, TCP over loopback on both sides (postgres with connect=tcp).
# The MongoDB side is FerretDB 1.24.2 (scripts/install-ferretdb.sh), whose
# own cost says nothing about MongoDB's: the figure compared is rumbench's
# CPU per operation (metrics.client_cpu_us_op: the client threads' CPU over
# the operations), which depends on the client library, not the server;
# the servers' CPU per operation is shown beside it where measured
# (FerretDB's process tree is not: rumbench reaches it by URL).
# Runs alternate FerretDB / PostgreSQL per repeat so that load on this
# shared machine hits both alike; every figure comes from result.json.
#
# 100 records by default: FerretDB's SQLite reads scan the collection (a few
# reads a second at 20,000 records), and at a low rate the process figure is
# rumbench's once-a-second samplers more than the client's operations.
#
# Usage: bench/mongodb_client_cost.sh [REPEATS=3] [RECORDS=100] [STEP_SECONDS=10]
set -euo pipefail
for a in "$@"; do export "${a?}"; done
REPEATS=${REPEATS:-3}; RECORDS=${RECORDS:-100}; SECONDS_PER_STEP=${STEP_SECONDS:-10}
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${OUT:-$ROOT/bench/results/mongodb_client_cost-$(date +%Y%m%d-%H%M).md}
FERRETDB=${RUMBENCH_FERRETDB:-$("$ROOT/scripts/install-ferretdb.sh")}
STEPS=ycsb-load,ycsb-c,ycsb-a
RUN_STEPS=(ycsb-c ycsb-a)
# --batch-size: the loads (not compared) in unordered batches on MongoDB; FerretDB inserts one document at a time slowly.
COMMON=(--progress off --no-history --records "$RECORDS" -t 1 --seed 42 --seconds "$SECONDS_PER_STEP" --batch-size 100)

ferret_dir=$SCRATCH/ferretdb-data
ferret_pid=
stop_ferret() { [[ -n $ferret_pid ]] && kill "$ferret_pid" 2>/dev/null && wait "$ferret_pid" 2>/dev/null; ferret_pid=; }
trap stop_ferret EXIT
start_ferret() {   # -> $FERRET_URL
    rm -rf "$ferret_dir"; mkdir -p "$ferret_dir"
    "$FERRETDB" --listen-addr 127.0.0.1:0 --sqlite-dir "$ferret_dir" --log-level error >"$SCRATCH/ferret.out" 2>"$SCRATCH/ferret.err" &
    ferret_pid=$!
    for _ in $(seq 100); do grep -q '^listening ' "$SCRATCH/ferret.out" && break; sleep 0.1; done
    FERRET_URL=$(sed -n 's/^listening \(mongodb:\/\/[^/]*\)\/.*/\1/p' "$SCRATCH/ferret.out")/bench
    [[ $FERRET_URL == mongodb://* ]] || { echo "FerretDB did not start: $(cat "$SCRATCH/ferret.err")" >&2; exit 1; }
}
run() {   # run NAME ARGS... -> result dir $SCRATCH/NAME
    rm -rf "${SCRATCH:?}/$1"
    local name=$1; shift
    "$RUMBENCH" run "${COMMON[@]}" "$@" -d "$SCRATCH/$name" >"$SCRATCH/$name.log" 2>&1 || { tail -5 "$SCRATCH/$name.log" >&2; exit 1; }
}
step_field() { jget "$SCRATCH/$1" "step('$2')['$3']"; }
metric() { jget "$SCRATCH/$1" "step('$2')['metrics'].get('$3')"; }

{
echo "# rumbench's client cost per operation: MongoDB driver vs PostgreSQL client ($(date -u +%Y-%m-%dT%H:%MZ))"
echo
echo "Command: \`bench/mongodb_client_cost.sh REPEATS=$REPEATS RECORDS=$RECORDS STEP_SECONDS=$SECONDS_PER_STEP\`"
echo "Binary: $("$RUMBENCH" --version 2>/dev/null || echo "$RUMBENCH"), $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "One client thread, $RECORDS records, $SECONDS_PER_STEP s per step, TCP on 127.0.0.1 for both."
echo "MongoDB side: FerretDB 1.24.2 on SQLite (its speed says nothing about MongoDB's). PostgreSQL: started by rumbench (Debian's)."
echo
echo "process = rumbench's whole process CPU per operation (client_cpu_us_op: with the driver's runtime threads, and rumbench's own samplers, whose fixed cost per second weighs more at a slow server's rate);"
echo "threads = the client threads only (client_threads_cpu_us_op: each client thread runs the mongodb driver's async API on a runtime of its own, so its encoding, decoding, socket calls and waits are in it, and the process figure adds only rumbench's once-a-second samplers)."
echo
echo "| repeat | step | FerretDB ops/s | mongodb process us/op | mongodb threads us/op | PostgreSQL ops/s | pgwire process us/op | pgwire threads us/op | PostgreSQL server us/op | mongodb / pgwire process |"
echo "|---|---|---|---|---|---|---|---|---|---|"
} >"$OUT"
for r in $(seq "$REPEATS"); do
    order="mongo pg"; (( r % 2 )) || order="pg mongo"
    for side in $order; do
        if [[ $side == mongo ]]; then
            start_ferret
            run mongo --target "$FERRET_URL" -s "$STEPS"
            stop_ferret
        else
            run pg -e postgres -o connect=tcp -s "$STEPS"
        fi
    done
    for s in "${RUN_STEPS[@]}"; do
        mops=$(step_field mongo "$s" ops_s); mc=$(metric mongo "$s" client_cpu_us_op); mt=$(metric mongo "$s" client_threads_cpu_us_op)
        pops=$(step_field pg "$s" ops_s); pc=$(metric pg "$s" client_cpu_us_op); pt=$(metric pg "$s" client_threads_cpu_us_op); ps=$(metric pg "$s" srv_cpu_us_op)
        ratio=$(python3 -c "print(f'{$mc/$pc:.2f}x' if '$mc' != '-' and '$pc' != '-' else '-')")
        echo "| $r | $s | ${mops%.*} | $mc | $mt | ${pops%.*} | $pc | $pt | $ps | $ratio |" >>"$OUT"
    done
done
echo "written: $OUT"
cat "$OUT"
