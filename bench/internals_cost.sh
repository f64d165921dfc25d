#!/usr/bin/env bash
# What sampling the engine's counters each second costs (--internals, issue
# 56: under 1% of ops/s): with --internals on and off in alternating pairs
# (ratio of ops/s), and the sampler's own time asking the engine, per second
# of the step (result.json: internals.sampling_us). ENGINE rocksdb:
# readrandom of NUM keys for SECONDS; ENGINE postgres: the insert
# benchmark's l.i1 (NUM rows loaded per client, then 2 x NUM inserted and
# deleted per client; SECONDS unused), a server started for each run.
# Usage: bench/internals_cost.sh [PAIRS=5] [NUM=1000000] [SECONDS=10] [THREADS=2] [ENGINE=rocksdb]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
PAIRS=${1:-5}; NUM=${2:-1000000}; SECS=${3:-10}; THREADS=${4:-2}; ENGINE=${5:-rocksdb}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
case "$ENGINE" in
  rocksdb) step=readrandom; what="RocksDB readrandom, $NUM keys, $THREADS threads, $SECS s"
    args=(-e rocksdb -n "$NUM") ;;
  postgres) step=l.i1; what="PostgreSQL l.i1, $NUM rows loaded and $((2 * NUM)) inserted per client, $THREADS clients"
    args=(-e postgres -s l.i0,l.i1 --rows "$NUM" --insert-rows "$((2 * NUM))") ;;
  *) echo "internals_cost.sh: ENGINE is rocksdb or postgres, not '$ENGINE'" >&2; exit 2 ;;
esac
out="$ROOT/bench/results/internals_cost-$ENGINE-$(date -u +%Y%m%d-%H%M).md"
d="$SCRATCH/internals-cost"
suite="$d.toml"
cat > "$suite" <<TOML
[[step]]
name = "fillseq"
[[step]]
name = "waitforcompaction"
[[step]]
name = "readrandom"
seconds = $SECS
TOML
run() { # DIR on|off: "ops/s sampling-us-per-second"
  rm -rf "$1"
  local suite_args=()
  [ "$ENGINE" = rocksdb ] && suite_args=(-c "$suite")
  "$RUMBENCH" run "${args[@]}" "${suite_args[@]}" --threads "$THREADS" --internals "$2" \
    --progress off --no-history -d "$1" >/dev/null 2>&1
  python3 - "$1/result.json" "$step" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = next(s for s in r["configs"][0]["steps"] if s["name"] == sys.argv[2])
i = s.get("internals")
print(f"{s['ops_s']:.0f} {i['sampling_us'] / s['wall_s'] if i else 0:.1f}")
PY
}
{
  echo "# The cost of --internals: $what, alternating pairs"
  echo
  echo '```sh'
  echo "bench/internals_cost.sh $PAIRS $NUM $SECS $THREADS $ENGINE"
  echo '```'
  echo
  echo "| pair | ops/s off | ops/s on | on / off | sampler us per second |"
  echo "|---:|---:|---:|---:|---:|"
  for pair in $(seq "$PAIRS"); do
    mkdir -p "$d"
    if [ $((pair % 2)) = 1 ]; then
      read -r off _ < <(run "$d/off" off); read -r on us < <(run "$d/on" on)
    else
      read -r on us < <(run "$d/on" on); read -r off _ < <(run "$d/off" off)
    fi
    python3 -c "print(f'| $pair | $off | $on | {$on/$off:.3f} | $us |')"
    rm -rf "$d"
  done
  rm -f "$suite"
} | tee "$out"
echo "written: $out"
