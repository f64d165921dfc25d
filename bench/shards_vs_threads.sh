#!/usr/bin/env bash
# Four shards against one PostgreSQL, merged, beside one process with four
# times the threads: do N client processes started together by --start-at
# and put together by `rumbench merge` measure what one client with N times
# the threads measures? YCSB load, A and C against one Debian PostgreSQL 15
# (started here: trust auth, TCP on 127.0.0.1, 1 GB shared buffers), the
# two ways alternating, REPEATS times; both ways run with the same
# --start-at/--step-gap schedule (the same pauses between steps).
# Usage: bench/shards_vs_threads.sh [SHARDS] [THREADS_PER_SHARD] [RECORDS] [SECONDS] [REPEATS]
#        (default 4 2 100000 20 3; as root; about 2 minutes per repeat)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
SHARDS=${1:-4}
THREADS=${2:-2}
RECORDS=${3:-100000}
SECS=${4:-20}
REPEATS=${5:-3}
GAP=5
PGBIN=/usr/lib/postgresql/15/bin
[ "$(id -u)" = 0 ] || { echo "run as root (PostgreSQL runs as user postgres)" >&2; exit 1; }
[ -x "$PGBIN/postgres" ] || { echo "PostgreSQL 15 is not installed: scripts/install-servers.sh" >&2; exit 1; }
WORK=$(mktemp -d /tmp/shards-vs-threads.XXXXXX)
chown postgres "$WORK"
OUT=${OUT:-$SCRATCH/shards_vs_threads-$(date +%Y%m%d-%H%M)}
mkdir -p "$OUT"
stop() { runuser -u postgres -- "$PGBIN/pg_ctl" -D "$WORK/db" -m fast -w stop >/dev/null 2>&1 || true; cp "$WORK/server.log" "$OUT/" 2>/dev/null || true; rm -rf "$WORK"; }
trap stop EXIT
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
runuser -u postgres -- "$PGBIN/initdb" -D "$WORK/db" -A trust -U postgres --no-sync >"$WORK/initdb.log" 2>&1
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$WORK/db" -l "$WORK/server.log" -w \
    -o "-c listen_addresses=127.0.0.1 -p $PORT -c unix_socket_directories=$WORK -c shared_buffers=1GB -c max_connections=200" start >/dev/null
URL="postgres://postgres@127.0.0.1:$PORT/postgres"
PSQL=("$PGBIN/psql" -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -qAt)
COMMON=(--target "$URL" -s ycsb-load,ycsb-a,ycsb-c --records "$RECORDS" --seconds "$SECS" --step-gap "$GAP" --no-history --progress off)
echo "shards_vs_threads: $SHARDS shards x $THREADS threads vs 1 x $((SHARDS * THREADS)) threads, $RECORDS records, ${SECS} s steps, $REPEATS repeats -> $OUT"

sharded() {   # sharded RUN_DIR
    local dir=$1 at; at=$(( $(date +%s) + 5 ))
    local pids=()
    for ((i = 0; i < SHARDS; i++)); do
        "$RUMBENCH" run "${COMMON[@]}" --threads "$THREADS" --shard "$i/$SHARDS" --start-at "$at" -d "$dir/shard-$i" >"$dir/shard-$i.log" 2>&1 &
        pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p"; done
    "$RUMBENCH" merge -d "$dir/merged" $(for ((i = 0; i < SHARDS; i++)); do echo "$dir/shard-$i"; done) >"$dir/merge.log" 2>&1
    # The shards keep the table for each other: dropped once all are done.
    "${PSQL[@]}" -c "DROP TABLE usertable"
}

single() {   # single RUN_DIR
    local dir=$1 at; at=$(( $(date +%s) + 5 ))
    "$RUMBENCH" run "${COMMON[@]}" --threads "$((SHARDS * THREADS))" --start-at "$at" -d "$dir/merged" >"$dir/single.log" 2>&1
}

rows=()
for ((r = 1; r <= REPEATS; r++)); do
    # Alternate which way goes first.
    if (( r % 2 )); then order=(sharded single); else order=(single sharded); fi
    for way in "${order[@]}"; do
        dir="$OUT/r$r-$way"; mkdir -p "$dir"
        "$way" "$dir"
        d="$dir/merged"
        row="| $r | $way | $(jget "$d" 'step("ycsb-load")["ops_s"]') | $(jget "$d" 'step("ycsb-a")["ops_s"]') | $(jget "$d" 'step("ycsb-a")["ops_by_type"][0]["latency"]["p99_us"]') | $(jget "$d" 'step("ycsb-a")["ops_by_type"][1]["latency"]["p99_us"]') | $(jget "$d" 'step("ycsb-c")["ops_s"]') | $(jget "$d" 'step("ycsb-c")["ops_by_type"][0]["latency"]["p99_us"]') | $(jget "$d" '(r.get("merged") or {}).get("steps") and max(s["start_skew_ms"] for s in r["merged"]["steps"])') |"
        echo "$row"
        rows+=("$row")
    done
done
{
    echo "| repeat | way | ycsb-load ops/s | ycsb-a ops/s | A READ p99 us | A UPDATE p99 us | ycsb-c ops/s | C READ p99 us | max start skew ms |"
    echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|"
    printf '%s\n' "${rows[@]}"
} >"$OUT/table.md"
cat "$OUT/table.md"
echo "results: $OUT"
