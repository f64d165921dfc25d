#!/usr/bin/env bash
# What recording costs (--trace, issue 56: "writing it costs little"), in
# alternating pairs with and without --trace, as ratios of ops/s:
# - on the null engine (readrandom, closed loop), where the client is all
#   there is: the recording's own cost per call, in ns;
# - on RocksDB: fillseq, settled, then readrandom for SECONDS, the ratio of
#   readrandom's ops/s traced / not traced.
# Usage: bench/trace_cost.sh [PAIRS=5] [NUM=1000000] [SECONDS=10] [THREADS=2]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
PAIRS=${1:-5}; NUM=${2:-1000000}; SECS=${3:-10}; THREADS=${4:-2}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export RUMBENCH_TEST_ENGINES=1
out="$ROOT/bench/results/trace_cost-$(date -u +%Y%m%d-%H%M).md"
d="$SCRATCH/trace-cost"
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
rate() { # ENGINE DIR [EXTRA...]: readrandom's ops/s
  local engine=$1 dir=$2; shift 2
  rm -rf "$dir"
  "$RUMBENCH" run -e "$engine" -c "$suite" -n "$NUM" --threads "$THREADS" \
    --progress off --no-history -d "$dir" "$@" >/dev/null 2>&1
  python3 -c "import json,sys; r=json.load(open('$dir/result.json')); print(next(s['ops_s'] for s in r['configs'][0]['steps'] if s['name']=='readrandom'))"
  rm -f "$d"/*.rtrace
}
{
  echo "# The cost of --trace: readrandom, $THREADS threads, $SECS s, alternating pairs"
  echo
  echo '```sh'
  echo "bench/trace_cost.sh $PAIRS $NUM $SECS $THREADS"
  echo '```'
  echo
  echo "After fillseq of $NUM keys and waitforcompaction. ns/call: what the recording adds to each"
  echo "call of one thread, (1/traced - 1/plain) x threads."
  echo
  echo "| pair | engine | plain ops/s | traced ops/s | ratio | ns/call |"
  echo "|---:|---|---:|---:|---:|---:|"
  for pair in $(seq "$PAIRS"); do
    for engine in null rocksdb; do
      rm -rf "$d"; mkdir -p "$d"
      if [ $((pair % 2)) = 1 ]; then
        p=$(rate "$engine" "$d/plain"); t=$(rate "$engine" "$d/traced" --trace "$d/t.rtrace")
      else
        t=$(rate "$engine" "$d/traced" --trace "$d/t.rtrace"); p=$(rate "$engine" "$d/plain")
      fi
      python3 -c "p,t=$p,$t; print(f'| $pair | $engine | {p:.0f} | {t:.0f} | {t/p:.3f} | {(1/t-1/p)*1e9*$THREADS:.1f} |')"
    done
  done
  rm -rf "$d" "$suite"
} | tee "$out"
echo "written: $out"
