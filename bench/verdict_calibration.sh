#!/usr/bin/env bash
# How often rumbench's verdicts are wrong, and how large a slowdown they
# catch, on this machine (bench/README.md, "Verdict calibration").
#
# 1. Trials (always): TRIALS runs of the null engine with a deterministic
#    cost per call (one spin-iteration count per machine, calibrated once and
#    stored: `rumbench engines null`), --repeat 5, steps of at least 4 s
#    (fillrandom NUM keys, readrandom STEP_SECONDS), four configs: base
#    (spin_ns SPIN), aa (the same), plus5 and plus10 (5% and 10% more spin);
#    STEPS=readrandom runs the read step alone (half the time).
#    Each run is compared as a whole, every metric: base -> aa is an A/A trial
#    (any REGRESSION, improvement or changed verdict is a false one); base ->
#    plus10 and base -> plus5 are power trials (REGRESSION called on ops/s and
#    on cpu/op, per step). The load average is recorded before each trial.
# 2. Engines (ENGINES=1): the A/A runs of earlier rounds, RUNS runs of
#    CONFIGS identical rocksdb configs (and postgres when POSTGRES=1),
#    --repeat 5, judged on disjoint subsets of 1, 3 and 5 rounds.
#
# Usage: bench/verdict_calibration.sh           (TRIALS=10: about 35 minutes on 2 vCPUs)
#        ENGINES=1 bench/verdict_calibration.sh (also the engines' A/A runs: 25 minutes more)
# Writes bench/results/verdict_calibration-<date>.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source bench/lib.sh
RUNS=${RUNS:-2}
CONFIGS=${CONFIGS:-6}
POSTGRES=${POSTGRES:-1}
TRIALS=${TRIALS:-10}
NUM=${NUM:-4000000}
STEP_SECONDS=${STEP_SECONDS:-4}
STEPS=${STEPS:-fillrandom,readrandom}
SPIN=${SPIN:-1000}
ENGINES=${ENGINES:-0}
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
trial_dirs=()
loads=()
for t in $(seq 1 "$TRIALS"); do
    {
        printf '[settings]\nnum = %d\nseconds = %d\nsteps = ["%s"]\n' "$NUM" "$STEP_SECONDS" "${STEPS//,/\", \"}"
        for c in "base $SPIN" "aa $SPIN" "plus5 $((SPIN * 105 / 100))" "plus10 $((SPIN * 110 / 100))"; do
            set -- $c
            printf '[[config]]\nname = "%s"\nengine = "null"\noptions = { spin_ns = %d }\n' "$1" "$2"
        done
    } > "$WORK/null.toml"
    loads+=("$(cut -d' ' -f1-3 /proc/loadavg)")
    run_suite "trial-$t" "$WORK/null.toml" 5
    trial_dirs+=("$WORK/trial-$t")
done
aa_dirs_rocksdb=()
aa_dirs_pg=()
if [ "$ENGINES" = 1 ]; then
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
fi

{
    echo "# Verdict calibration, $(hostname), $started to $(date -u +%FT%TZ)"
    echo
    echo "Command: \`TRIALS=$TRIALS NUM=$NUM STEP_SECONDS=$STEP_SECONDS STEPS=$STEPS SPIN=$SPIN ENGINES=$ENGINES bench/verdict_calibration.sh\`"
    echo "($(nproc) CPUs, rumbench $(git rev-parse --short HEAD); load average (1, 5, 15 min) before each trial: ${loads[*]/%/;} at the end: $(cut -d' ' -f1-3 /proc/loadavg))"
    echo
    echo "The null engine as calibrated here:"
    echo
    echo "    $(jget "$WORK/trial-1" 'dict(r["configs"][0]["effective_options"]).get("spin_calibration")')"
    echo
    echo "## Trials: null engine, spin_ns $SPIN (base, aa) against +5% and +10%, --repeat 5, every metric"
    echo
    python3 bench/verdict_calibration.py trials --rumbench "$RUMBENCH" --steps "$STEPS" "${trial_dirs[@]}"
    if [ "$ENGINES" = 1 ]; then
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
    fi
} > "$OUT"
cat "$OUT"
echo "written: $OUT" >&2
