#!/usr/bin/env bash
# What SplinterDB writes when its client thread runs its background tasks
# (0 background threads: the library's default and rumbench's) and when
# threads of its own do. In the io-bound runs (docs/splinterdb.md, the
# io-bound reversal) the inserts' w-amp was 19.75 with none and 4.1 with one
# memtable and one normal background thread; this asks the library where the
# bytes went. SplinterDB's own client, splinter_test --perf of the vendored
# version (bench/splinterdb_build.sh), inserts only, with its statistics on
# (--stats), alternately with 0 and with 1+1 background threads, in the
# io-bound suite's memory: a CACHE_MIB cache, MEMTABLE_MIB memtables.
# Prints per run the insert rate, the cache's pages written by page type
# (its writes during the inserts) and the trunk's compactions by height.
#
# Usage: bench/splinterdb_bg_stats.sh [N] [REPEATS] [CACHE_MIB] [MEMTABLE_MIB]
#   defaults 10000000 1 24 4; keys of 24 bytes, values of 9..101 (splinter_test's)
# Writes bench/results/splinterdb_bg_stats-STAMP.md.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/splinter_test.sh"
N=${1:-10000000}; REPEATS=${2:-1}; CACHE_MIB=${3:-24}; MEMTABLE_MIB=${4:-4}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
build=$("$ROOT/bench/splinterdb_build.sh")
driver="$build/release/bin/driver_test"
work="$SCRATCH/splinterdb-bg-stats"; rm -rf "$work"; mkdir -p "$work"
trap 'rm -f "$work/splinter.db"' EXIT
stamp=$(date -u +%Y%m%d-%H%M)

run() {  # run LOG BG_THREADS: inserts only (0 readers)
  echo "# splinter_test --perf, $2 background threads of each kind" >&2
  splinter_test_run "$driver" "$work" "$1" "$N" 24 100 "$CACHE_MIB" "$MEMTABLE_MIB" 60 0 \
    --stats --num-normal-bg-threads "$2" --num-memtable-bg-threads "$2"
}
logs=()
for r in $(seq "$REPEATS"); do
  for bg in 0 1; do
    run "$work/bg$bg-$r.log" "$bg"
    logs+=("$work/bg$bg-$r.log")
  done
done
{
  echo "# SplinterDB's writes with and without background threads ($stamp UTC)"
  echo
  echo '```sh'
  echo "bench/splinterdb_bg_stats.sh $N $REPEATS $CACHE_MIB $MEMTABLE_MIB"
  echo '```'
  echo
  python3 - "$N" "${logs[@]}" <<'PY'
import re, sys
n, logs = int(sys.argv[1]), sys.argv[2:]
types = ["trunk", "branch", "memtable", "filter", "log", "misc"]
print("| run | inserts/s | " + " | ".join(f"{t} MiB written" for t in types) + " | all MiB | MiB / MiB of tuples |")
print("|---|---:|" + "---:|" * (len(types) + 2))
for log in logs:
    t = open(log).read()
    rate = int(re.search(r"splinter total insertion rate: (\d+)", t).group(1))
    pages = [int(x) for x in re.search(r"pages written\s*\|([\d\s|]+)", t).group(1).split("|") if x.strip()]
    mib = [p * 4096 / 2**20 for p in pages]  # the cache counts 4 KiB pages
    # splinter_test's tuples: 24-byte keys, values of 9..101 bytes (55 on average).
    logical = n * (24 + 55) / 2**20
    name = log.rsplit("/", 1)[1][:-4]
    print(f"| {name} | {rate:,} | " + " | ".join(f"{m:,.0f}" for m in mib) + f" | {sum(mib):,.0f} | {sum(mib) / logical:.2f} |")
print()
print("Compactions by height (0: the leaves; the trunk's own statistics), per run: compactions, their average tuples, "
      "and the tuples they rewrote per key inserted (compactions x average / N); then the leaf splits.\n")
print("| run | height | compactions | avg tuples | max tuples | tuples rewritten per insert |")
print("|---|---:|---:|---:|---:|---:|")
for log in logs:
    t = open(log).read()
    name = log.rsplit("/", 1)[1][:-4]
    table = re.search(r"\nCompactions\n-+\n.*\n.*\n((?:\|.*\n)+)", t).group(1)
    total = 0.0
    for row in table.strip().splitlines():
        f = [x.strip() for x in row.strip("|").split("|")]
        height, count, avg, top = int(f[0]), int(f[1]), float(f[4]), int(f[5])
        total += count * avg
        print(f"| {name} | {height} | {count:,} | {avg:,.0f} | {top:,} | {count * avg / n:.2f} |")
    splits = re.search(r"\| single leaf splits \|\n\|[-|]+\n\|\s*[\d.]+\s*\|\s*\d+\s*\|\s*(\d+)", t)
    print(f"| {name} | all | | | | {total / n:.2f} (leaf splits: {splits.group(1) if splits else '?'}) |")
PY
} >"$ROOT/bench/results/splinterdb_bg_stats-$stamp.md"
cat "$ROOT/bench/results/splinterdb_bg_stats-$stamp.md"
echo "wrote bench/results/splinterdb_bg_stats-$stamp.md" >&2
