#!/usr/bin/env bash
# Is the client the bottleneck? Insert benchmark l.i0 on PostgreSQL, one
# client: rumbench's CPU per row against the server process tree's, REPEATS
# runs, then the same with client and server pinned to one CPU.
# Usage: bench/pg_client_cpu.sh [ROWS] [REPEATS]   (default 2000000 3)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
ROWS=${1:-2000000}
REPEATS=${2:-3}
CONFIG='config=shared_buffers = 1GB;synchronous_commit = off;max_wal_size = 4GB;checkpoint_timeout = 15min'
echo "command: rumbench run -e postgres -s l.i0 --rows $ROWS -o '$CONFIG'"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| run | rows/s | client us/row | server us/row | client / server |"
echo "|---|---:|---:|---:|---:|"
run() {
  local label=$1; shift
  local out="$SCRATCH/pgcpu"; rm -rf "$out"
  "$@" "$RUMBENCH" run -e postgres -s l.i0 --rows "$ROWS" -o "$CONFIG" --progress off --no-history -d "$out" >/dev/null 2>&1
  local rate cli srv
  rate=$(jget "$out" 'step("l.i0")["ops_s"]')
  cli=$(jget "$out" 'step("l.i0")["metrics"]["client_cpu_us_op"]')
  srv=$(jget "$out" 'step("l.i0")["metrics"]["srv_cpu_us_op"]')
  python3 -c "print(f'| $label | {$rate:.0f} | {$cli:.3f} | {$srv:.2f} | {100*$cli/$srv:.1f}% |')"
}
for i in $(seq "$REPEATS"); do run "$i" env; done
for i in $(seq "$REPEATS"); do run "one CPU (taskset -c 1) $i" taskset -c 1; done
echo
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
