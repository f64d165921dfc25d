#!/usr/bin/env bash
# Verdicts on a shared machine (docs/report.md, "Duets" and "Adaptive
# repeats"): the verdict-power suite run while another process competes,
# TRIALS times per load and mode, and how often each mode calls a known +10%
# and how often it calls a change between identical configs.
#
# The suite: the null engine with a known cost per call given as iterations
# of its spin loop (no calibration), configs base and aa (SPIN iterations)
# and plus10 (10% more), one readrandom step of STEP_SECONDS.
# Loads (LOADS, comma separated), each started before a load's trials and
# stopped after them:
#   quiet  nothing else
#   cpu    one CPU-bound process (a shell loop), left to the scheduler
#   io     one writer on the data dir's device (fio, 1 MiB direct writes)
# Modes (MODES, comma separated):
#   sequential5       each config's 5 runs one after another, a run per
#                     config, compared as separate runs (unpaired)
#   interleaved5      one run, --repeat 5 (rounds rotated, paired by round)
#   duet5             one run, --duet --repeat 5 (each side its own half of the CPUs)
#   shared5           one run, --duet=shared --repeat 5 (both sides on one half)
#   interleaved-auto  one run, --repeat auto:MAX
#   duet-auto         one run, --duet --repeat auto:MAX
#   shared-auto       one run, --duet=shared --repeat auto:MAX
# Each trial's runs are compared whole (every metric): base -> aa with any
# REGRESSION, improvement or changed verdict is a false verdict; base ->
# plus10 counts REGRESSION on ops/s and on cpu/op; compare's "could detect"
# line gives the minimum detectable effect.
#
# Usage: bench/duet_power.sh                     (LOADS=cpu, every mode, TRIALS=10)
#        LOADS=quiet,cpu,io TRIALS=10 bench/duet_power.sh
#        THRESHOLD=1% ...   compare's --threshold (and the adaptive modes'):
#                           the floor of the detectable change it states (5%)
# Writes bench/results/duet_power-<date>.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source bench/lib.sh
LOADS=${LOADS:-cpu}
MODES=${MODES:-sequential5,interleaved5,duet5,shared5,interleaved-auto,duet-auto,shared-auto}
TRIALS=${TRIALS:-10}
STEP_SECONDS=${STEP_SECONDS:-4}
SPIN=${SPIN:-1200}
MAX=${MAX:-20}
THRESHOLD=${THRESHOLD:-5%}
OUT=bench/results/duet_power-$(date -u +%Y%m%d-%H%M).md
WORK=$SCRATCH/duet_power
rm -rf "$WORK"
mkdir -p "$WORK"

load_pid=
stop_load() {
    if [ -n "$load_pid" ]; then
        kill -- -"$load_pid" 2>/dev/null || true
        wait "$load_pid" 2>/dev/null || true
        load_pid=
    fi
    rm -f "$SCRATCH/duet_power_io"
}
trap stop_load EXIT
start_load() {
    case "$1" in
        quiet) ;;
        cpu) setsid sh -c 'while :; do :; done' & load_pid=$! ;;
        io)
            setsid fio --name=writer --filename="$SCRATCH/duet_power_io" --rw=write --bs=1M --size=1G --direct=1 \
                --ioengine=psync --time_based --runtime=1000000 >/dev/null 2>&1 &
            load_pid=$!
            ;;
        *) echo "unknown load $1 (quiet, cpu, io)" >&2; exit 2 ;;
    esac
    sleep 2 # the load reaches its pace
}

suite() { # FILE CONFIG...: the suite with these of base, aa, plus10
    local file=$1
    shift
    printf '[settings]\nnum = 1000000\nseconds = %s\nsteps = ["readrandom"]\n' "$STEP_SECONDS" > "$file"
    for c in "$@"; do
        case "$c" in
            base | aa) spin=$SPIN ;;
            plus10) spin=$((SPIN * 110 / 100)) ;;
        esac
        printf '[[config]]\nname = "%s"\nengine = "null"\noptions = { spin_iterations = %d }\n' "$c" "$spin" >> "$file"
    done
}

run() { # DIR SUITE ARGS...
    local dir=$1 suite=$2
    shift 2
    "$RUMBENCH" run --no-history --progress off -c "$suite" -d "$dir" "$@" > "$dir.log" 2>&1 \
        || { tail -20 "$dir.log" >&2; exit 1; }
}

started=$(date -u +%FT%TZ)
suite "$WORK/all.toml" base aa plus10
for c in base aa plus10; do suite "$WORK/$c.toml" "$c"; done
for load in ${LOADS//,/ }; do
    start_load "$load"
    for t in $(seq 1 "$TRIALS"); do
        for mode in ${MODES//,/ }; do
            dir=$WORK/$load/$mode/trial-$t
            mkdir -p "$(dirname "$dir")"
            echo "$(date -u +%H:%M:%S) $load $mode trial $t (load average $(cut -d' ' -f1 /proc/loadavg))" >&2
            echo "$(cut -d' ' -f1-3 /proc/loadavg)" > "$dir.loadavg"
            case "$mode" in
                sequential5)
                    mkdir -p "$dir"
                    for c in base aa plus10; do run "$dir/$c" "$WORK/$c.toml" --repeat 5; done
                    ;;
                interleaved5) run "$dir" "$WORK/all.toml" --repeat 5 ;;
                duet5) run "$dir" "$WORK/all.toml" --duet --repeat 5 ;;
                shared5) run "$dir" "$WORK/all.toml" --duet=shared --repeat 5 ;;
                interleaved-auto) run "$dir" "$WORK/all.toml" --repeat "auto:$MAX" --threshold "$THRESHOLD" ;;
                duet-auto) run "$dir" "$WORK/all.toml" --duet --repeat "auto:$MAX" --threshold "$THRESHOLD" ;;
                shared-auto) run "$dir" "$WORK/all.toml" --duet=shared --repeat "auto:$MAX" --threshold "$THRESHOLD" ;;
                *) echo "unknown mode $mode" >&2; exit 2 ;;
            esac
        done
    done
    stop_load
done

{
    echo "# Verdicts on a shared machine, $(hostname), $started to $(date -u +%FT%TZ)"
    echo
    echo "Command: \`LOADS=$LOADS MODES=$MODES TRIALS=$TRIALS STEP_SECONDS=$STEP_SECONDS SPIN=$SPIN MAX=$MAX THRESHOLD=$THRESHOLD bench/duet_power.sh\`"
    echo "($(nproc) CPUs, rumbench $(git rev-parse --short HEAD); the null engine, spin_iterations $SPIN (base, aa) and $((SPIN * 110 / 100)) (plus10), readrandom ${STEP_SECONDS} s)"
    echo
    python3 bench/duet_power.py --rumbench "$RUMBENCH" --work "$WORK" --loads "$LOADS" --modes "$MODES" --trials "$TRIALS" --threshold "$THRESHOLD"
} > "$OUT"
cat "$OUT"
echo "written: $OUT" >&2
