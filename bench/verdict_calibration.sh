#!/usr/bin/env bash
# How often rumbench's verdicts are wrong, and how large a slowdown they
# catch, on this machine (bench/README.md, "Verdict calibration").
#
# 1. A/A: RUNS runs of CONFIGS identical configs (rocksdb, and postgres
#    when POSTGRES=1), default settings, --repeat 5. Every config against the
#    first is an A/A comparison: judged on the first N rounds (N = 1, 3, 5,
#    disjoint subsets), any REGRESSION, improvement or changed verdict is a
#    false one.
# 2. Power: the null engine with a known CPU cost per call (spin_ns 2000)
#    against 5%, 10% and 20% more (2100, 2200, 2400), --repeat 10, POWER_RUNS
#    runs; judged on disjoint subsets of 3, 5 and 10 rounds: the share of
#    pairs whose readrandom cpu/op is called REGRESSION (compare --metrics
#    cpu_us_op,ops_s).
#
# Usage: bench/verdict_calibration.sh        (RUNS=2 CONFIGS=6 POSTGRES=1 POWER_RUNS=2: about 35 minutes)
# Writes bench/results/verdict_calibration-<date>.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source bench/lib.sh
RUNS=${RUNS:-2}
CONFIGS=${CONFIGS:-6}
POSTGRES=${POSTGRES:-1}
POWER_RUNS=${POWER_RUNS:-2}
OUT=bench/results/verdict_calibration-$(date -u +%Y%m%d-%H%M).md
WORK=$SCRATCH/verdicts
rm -rf "$WORK"
mkdir -p "$WORK"

suite() { # ENGINE SETTINGS_TOML N [OPTIONS...]: N configs c0.. of ENGINE
    local engine=$1 settings=$2 n=$3
    shift 3
    printf '%b\n' "$settings"
    for i in $(seq 0 $((n - 1))); do
        printf '[[config]]\nname = "c%d"\nengine = "%s"\n%s\n' "$i" "$engine" "${1:-}"
        if [ $# -gt 0 ]; then shift; fi
    done
}

run_suite() { # NAME FILE REPEAT
    echo "$(date -u +%H:%M:%S) $1" >&2
    "$RUMBENCH" run --no-history --progress lines --repeat "$3" -c "$2" -d "$WORK/$1" > "$WORK/$1.log" 2>&1
}

started=$(date -u +%FT%TZ)
aa_dirs_rocksdb=()
aa_dirs_pg=()
for r in $(seq 1 "$RUNS"); do
    suite rocksdb '[settings]\nnum = 200000\nseconds = 3\nsteps = ["fillrandom", "readrandom", "overwrite"]' "$CONFIGS" > "$WORK/rocksdb.toml"
    run_suite "aa-rocksdb-$r" "$WORK/rocksdb.toml" 5
    aa_dirs_rocksdb+=("$WORK/aa-rocksdb-$r")
    if [ "$POSTGRES" = 1 ]; then
        suite postgres '[settings]\nrecords = 2000\nseconds = 3\nsteps = ["ycsb-load", "ycsb-c", "ycsb-a"]' "$CONFIGS" > "$WORK/pg.toml"
        run_suite "aa-postgres-$r" "$WORK/pg.toml" 5
        aa_dirs_pg+=("$WORK/aa-postgres-$r")
    fi
done
power_dirs=()
for r in $(seq 1 "$POWER_RUNS"); do
    suite null '[settings]\nnum = 20000\nseconds = 1\nsteps = ["fillseq", "readrandom"]' 4 \
        'options = { spin_ns = 2000 }' 'options = { spin_ns = 2100 }' 'options = { spin_ns = 2200 }' 'options = { spin_ns = 2400 }' \
        | sed 's/name = "c1"/name = "plus5"/; s/name = "c2"/name = "plus10"/; s/name = "c3"/name = "plus20"/' > "$WORK/null.toml"
    run_suite "power-$r" "$WORK/null.toml" 10
    power_dirs+=("$WORK/power-$r")
done

{
    echo "# Verdict calibration, $(hostname), $started to $(date -u +%FT%TZ)"
    echo
    echo "Command: \`RUNS=$RUNS CONFIGS=$CONFIGS POSTGRES=$POSTGRES POWER_RUNS=$POWER_RUNS bench/verdict_calibration.sh\`"
    echo "($(nproc) CPUs, load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); rumbench $(git rev-parse --short HEAD))"
    echo
    echo "## A/A: rocksdb (fillrandom 200k keys, readrandom 3 s, overwrite 3 s; every metric)"
    echo
    python3 bench/verdict_calibration.py aa --rumbench "$RUMBENCH" --n 1,3,5 "${aa_dirs_rocksdb[@]}"
    if [ "$POSTGRES" = 1 ]; then
        echo
        echo "## A/A: postgres (ycsb-load 2000 records, ycsb-c 3 s, ycsb-a 3 s; every metric)"
        echo
        python3 bench/verdict_calibration.py aa --rumbench "$RUMBENCH" --n 1,3,5 "${aa_dirs_pg[@]}"
    fi
    echo
    echo "## Power: null engine, spin_ns 2000 against +5%, +10%, +20% (readrandom cpu/op called REGRESSION; --metrics cpu_us_op,ops_s)"
    echo
    python3 bench/verdict_calibration.py power --rumbench "$RUMBENCH" --n 3,5,10 --metrics cpu_us_op,ops_s "${power_dirs[@]}"
} > "$OUT"
cat "$OUT"
echo "written: $OUT" >&2
