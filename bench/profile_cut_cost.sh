#!/usr/bin/env bash
# What cutting each step's profile as the step ends costs (issue 52, item 6):
# the same profiled run of six short steps with BASE (a rumbench that cut one
# recording per config when the config ended, e.g. main before the change)
# and with this tree's, alternating (pair i runs BASE first when i is odd),
# REPEATS pairs. Per run: its wall time, its steps' samples, and the largest
# raw recording file seen while it ran (polled every 50 ms: BASE's in the run
# directory, this tree's in $RUMBENCH_PROFILE_DIR). The difference in wall
# time over the steps is what a cut adds between two steps (perf switching
# files, or per thread stopping and starting again, and `perf script` run
# once a step instead of once a config).
#
# Usage: bench/profile_cut_cost.sh [REPEATS] BASE_BINARY [SCOPE]   (default 3 pairs;
#        SCOPE = per-cpu or per-thread: perf's events ($RUMBENCH_PROFILE_SCOPE), else what this user may use)
# Writes bench/results/profile_cut_cost-<date>.md and prints it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
REPEATS=${1:-3}
BASE=${2:?the rumbench to compare with (e.g. a build of main before the change)}
SCOPE=${3:-}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT="$ROOT/bench/results/profile_cut_cost-$(date -u +%Y%m%d-%H%M).md"
STEPS=fillseq,fillrandom,overwrite,readrandom,multireadrandom,readseq
NSTEPS=6
ARGS=(-e null -o spin_ns=2000 -s "$STEPS" -n 200000 --profile --profile-hz 999 --progress off --no-history)
PLACE="$SCRATCH/profcut-recordings"
mkdir -p "$PLACE"

# run NAME BINARY: one run; prints "wall_s samples largest_raw_bytes".
run() {
  local name=$1 bin=$2 out="$SCRATCH/profcut-$1"
  rm -rf "$out"
  local largest="$SCRATCH/profcut-$1.largest"
  echo 0 >"$largest"
  ( while :; do
      s=$(find "$out" "$PLACE" -name '*perf.data*' -type f -printf '%s\n' 2>/dev/null | sort -n | tail -1)
      [ -n "$s" ] && [ "$s" -gt "$(cat "$largest")" ] && echo "$s" >"$largest"
      sleep 0.05
    done ) &
  local poller=$!
  local t0 t1
  t0=$(date +%s%N)
  RUMBENCH_PROFILE_SCOPE="$SCOPE" RUMBENCH_PROFILE_DIR="$PLACE" "$bin" run "${ARGS[@]}" -d "$out" >"$out.log" 2>&1 \
    || { kill "$poller"; echo "run failed: $bin (log: $out.log)" >&2; exit 1; }
  t1=$(date +%s%N)
  kill "$poller"; wait "$poller" 2>/dev/null || true
  local samples
  samples=$(jget "$out" "sum(s['profile']['samples'] for s in r['configs'][0]['steps'] if s.get('profile'))")
  echo "$(python3 -c "print(f'{($t1-$t0)/1e9:.2f}')") $samples $(cat "$largest")"
}

rows=()
for i in $(seq "$REPEATS"); do
  if [ $((i % 2)) = 1 ]; then order="base new"; else order="new base"; fi
  for side in $order; do
    bin=$RUMBENCH; [ "$side" = base ] && bin=$BASE
    read -r wall samples largest <<<"$(run "$side" "$bin")"
    rows+=("$i $side $wall $samples $largest")
    echo "pair $i: $side ${wall} s, $samples samples, largest raw file $largest bytes" >&2
  done
done
{
  echo "# Cutting each step's profile as it ends: $REPEATS pairs, ${SCOPE:-default} scope"
  echo
  echo "\`bench/profile_cut_cost.sh $REPEATS $BASE $SCOPE\` on $(hostname), $(date -u '+%Y-%m-%d %H:%M UTC'), load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "Each run: \`rumbench run ${ARGS[*]}\` ($NSTEPS steps of 0.4-0.5 s)."
  echo
  echo "| pair | rumbench | wall s | samples | largest raw recording file |"
  echo "| --- | --- | --- | --- | --- |"
  for r in "${rows[@]}"; do
    read -r i side wall samples largest <<<"$r"
    echo "| $i | $side | $wall | $samples | $(python3 -c "print(f'{$largest/1e6:.1f} MB')") |"
  done
  echo
  python3 - "$NSTEPS" "${rows[@]}" <<'PY'
import statistics, sys
n = int(sys.argv[1])
rows = [r.split() for r in sys.argv[2:]]
wall = {s: [float(r[2]) for r in rows if r[1] == s] for s in ("base", "new")}
size = {s: [int(r[4]) for r in rows if r[1] == s] for s in ("base", "new")}
mb, mn = statistics.median(wall["base"]), statistics.median(wall["new"])
print(f"Median wall time: base {mb:.2f} s, new {mn:.2f} s: {(mn - mb) / n * 1000:+.0f} ms a step.")
print(f"Largest raw file: base {max(size['base'])/1e6:.1f} MB (one per config), new {max(size['new'])/1e6:.1f} MB (one per step).")
PY
} | tee "$OUT"
