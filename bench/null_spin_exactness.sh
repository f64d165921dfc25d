#!/usr/bin/env bash
# Is the null engine's known cost known? ROUNDS rounds of three separate
# processes each (spin_ns 0, 1000 and 1100; their order rotates by round),
# readrandom for STEP_SECONDS, one thread. Each process turns spin_ns into
# iterations with the calibration stored once per machine and build
# (`rumbench engines null`), so every process burns the same count: the
# effective spin_iterations are listed per process.
#
# Reported: thread CPU per operation (the thread that called the engine, its
# own clock) per process; 1100 against 1000 as the ratio of means and per
# round, raw (the client's own work per call, spin 0, included on both sides)
# and of the injected cost alone (spin 0's CPU per op subtracted).
#
# Usage: bench/null_spin_exactness.sh [ROUNDS=10] [STEP_SECONDS=4]   (about 3 minutes)
# Writes bench/results/null_spin_exactness-<date>.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source bench/lib.sh
for arg in "$@"; do export "${arg?}"; done
ROUNDS=${ROUNDS:-10}
STEP_SECONDS=${STEP_SECONDS:-4}
OUT=bench/results/null_spin_exactness-$(date -u +%Y%m%d-%H%M).md
WORK=$SCRATCH/null-spin
rm -rf "$WORK"
mkdir -p "$WORK"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date -u +%FT%TZ)
spins=(0 1000 1100)
for r in $(seq 1 "$ROUNDS"); do
    for k in 0 1 2; do
        spin=${spins[$(((k + r) % 3))]}
        "$RUMBENCH" run --no-history --progress off -e null -o "spin_ns=$spin" -s readrandom --seconds "$STEP_SECONDS" -n 1000000 \
            -d "$WORK/r$r-spin$spin" > "$WORK/r$r-spin$spin.log" 2>&1
    done
    echo "$(date -u +%H:%M:%S) round $r of $ROUNDS" >&2
done
{
    echo "# The null engine's known cost, $(hostname), $started to $(date -u +%FT%TZ)"
    echo
    echo "Command: \`ROUNDS=$ROUNDS STEP_SECONDS=$STEP_SECONDS bench/null_spin_exactness.sh\`"
    echo "($(nproc) CPUs, rumbench $(git rev-parse --short HEAD); load average before: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg))"
    echo
    python3 - "$WORK" "$ROUNDS" <<'PY'
import json, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
def load(r, spin):
    run = json.load(open(f"{work}/r{r}-spin{spin}/result.json"))
    c = run["configs"][0]
    s = c["steps"][0]
    eff = dict(c.get("effective_options") or [])
    return s["metrics"]["client_threads_cpu_us_op"], eff.get("spin_iterations"), s["ops"]
rows = {spin: [load(r, spin) for r in range(1, rounds + 1)] for spin in (0, 1000, 1100)}
print("| round | spin 0: thread cpu/op us | spin 1000: us (iterations) | spin 1100: us (iterations) | 1100/1000 raw | injected cost alone |")
print("|---:|---:|---:|---:|---:|---:|")
raw, alone = [], []
for i in range(rounds):
    (z, _, _), (a, ia, _), (b, ib, _) = rows[0][i], rows[1000][i], rows[1100][i]
    raw.append(b / a)
    alone.append((b - z) / (a - z))
    print(f"| {i + 1} | {z:.4f} | {a:.4f} ({ia}) | {b:.4f} ({ib}) | {b / a:.4f} | {(b - z) / (a - z):.4f} |")
mean = lambda spin: statistics.mean(x[0] for x in rows[spin])
z, a, b = mean(0), mean(1000), mean(1100)
print()
print(f"Means: spin 0 {z:.4f} us, spin 1000 {a:.4f} us, spin 1100 {b:.4f} us of thread CPU per op.")
print(f"1100 against 1000, ratio of means: raw {b / a:.4f}, injected cost alone {(b - z) / (a - z):.4f}.")
print(f"Per round: raw {min(raw):.4f} to {max(raw):.4f} (median {statistics.median(raw):.4f}); injected cost alone {min(alone):.4f} to {max(alone):.4f} (median {statistics.median(alone):.4f}).")
iters = {spin: sorted({x[1] for x in rows[spin]}) for spin in (1000, 1100)}
print(f"spin_iterations per process: spin 1000 {iters[1000]}, spin 1100 {iters[1100]} (one value each: every process burns the same count).")
first = dict(json.load(open(f"{work}/r1-spin1000/result.json"))["configs"][0].get("effective_options") or [])
print(f"The calibration used: {first.get('spin_calibration')}.")
print(f"Process-to-process spread of thread cpu/op: spin 1000 {100 * statistics.stdev(x[0] for x in rows[1000]) / a:.2f}%, spin 1100 {100 * statistics.stdev(x[0] for x in rows[1100]) / b:.2f}% (sd / mean).")
PY
} > "$OUT"
cat "$OUT"
echo "written: $OUT" >&2
