#!/usr/bin/env bash
# SplinterDB's version, one change: the commit the published comparison ran
# (a1833060, 2022-09-01) beside the vendored one rumbench builds (d2173e0e,
# 2026-06-29), each through its own benchmark client, `driver_test
# splinter_test --perf`, built with the same make command and flags
# (bench/splinterdb_build.sh), on the same keys, values, cache, memtable and
# threads (both clients' default of 0 background threads: the flag that sets
# them was renamed between the two). Run alternately (the old first on odd
# pairs), each on a fresh database; ratios old/new per pair, then their
# median and range. Both clients take the same flags; each version keeps its
# own defaults for the rest (filters, fanout), as the write-up's ran with its
# own.
#
# What it answers (docs/splinterdb.md, "Cached and warm"): whether the
# SplinterDB of 2022 answers point and range queries, or inserts, faster than
# the one measured here. splinter_test looks up right after its inserts, in
# the same process: its cache holds what the inserts and their compactions
# went through, as in the write-up's runs.
#
# Usage: bench/splinterdb_version.sh [VAR=value ...]
#   N=10000000        records (inserts; lookups of each; N/128 small ranges)
#   KEY_SIZE=24       splinter_test --key-size
#   DATA_SIZE=100     splinter_test --data-size (values of 9..DATA_SIZE+1 bytes)
#   CACHE_MIB=4096    --cache-capacity-mib: the data fits (cached, as published)
#   MEMTABLE_MIB=24   --memtable-capacity-mib (splinter_test's default)
#   REPEATS=3         alternating pairs
#   OLD=a1833060      the older commit
#   SPLINTERDB_GIT=https://github.com/vmware/splinterdb.git  where to clone it from
#   DIR=/tmp/rumbench-splinterdb-version  scratch (emptied at start)
#   OUT=bench/results/splinterdb_version-<date>.md
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/splinter_test.sh
. bench/var_args.sh
var_args "$0" "$@"
N=${N:-10000000}
KEY_SIZE=${KEY_SIZE:-24}
DATA_SIZE=${DATA_SIZE:-100}
CACHE_MIB=${CACHE_MIB:-4096}
MEMTABLE_MIB=${MEMTABLE_MIB:-24}
REPEATS=${REPEATS:-3}
OLD=${OLD:-a1833060}
SPLINTERDB_GIT=${SPLINTERDB_GIT:-https://github.com/vmware/splinterdb.git}
DIR=${DIR:-/tmp/rumbench-splinterdb-version}
OUT=${OUT:-bench/results/splinterdb_version-$(date +%Y%m%d-%H%M).md}

old_src=$PWD/target/splinterdb-$OLD/splinterdb
if [ ! -d "$old_src/.git" ]; then
    rm -rf "$old_src"; mkdir -p "$(dirname "$old_src")"
    git clone -q "$SPLINTERDB_GIT" "$old_src"
fi
git -C "$old_src" checkout -q "$OLD"
OLD_BUILD=$(SPLINTERDB_SRC="$old_src" bench/splinterdb_build.sh)
NEW_BUILD=$(bench/splinterdb_build.sh)
rm -rf "$DIR" && mkdir -p "$DIR/logs"

run() { # $1 = old|new, $2 = pair
    local build; build=$([ "$1" = old ] && echo "$OLD_BUILD" || echo "$NEW_BUILD")
    splinter_test_perf "$build/release/bin/driver_test" "$DIR" "$DIR/logs/$1-$2.log" \
        "$N" "$KEY_SIZE" "$DATA_SIZE" "$CACHE_MIB" "$MEMTABLE_MIB" 60
}

{
    echo "# SplinterDB $OLD beside d2173e0e, each through its own splinter_test ($(date -u +%Y-%m-%dT%H:%MZ))"
    echo
    echo '```sh'
    echo "bench/splinterdb_version.sh N=$N KEY_SIZE=$KEY_SIZE DATA_SIZE=$DATA_SIZE CACHE_MIB=$CACHE_MIB MEMTABLE_MIB=$MEMTABLE_MIB REPEATS=$REPEATS OLD=$OLD"
    echo '```'
    echo
    echo "Built with: $(sed -n 's/^CFLAGS = //p' "$NEW_BUILD"/release/build-config.*) (d2173e0e);"
    echo "$(sed -n 's/^CFLAGS = //p' "$OLD_BUILD"/release/build-config.*) ($OLD)."
    echo "Machine: $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), data in $DIR ($(df -T "$DIR" | awk 'NR==2{print $2}'))"
    echo
    echo "| pair | order | old inserts/s | new inserts/s | old/new | old lookups/s | new lookups/s | old/new | old ranges/s | new ranges/s | old/new |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
} > "$OUT"
: > "$DIR/ratios.tsv"
for r in $(seq 1 "$REPEATS"); do
    if [ $((r % 2)) -eq 1 ]; then
        old=$(run old "$r"); new=$(run new "$r"); order="old, new"
    else
        new=$(run new "$r"); old=$(run old "$r"); order="new, old"
    fi
    read -r oi ol orr _ <<< "$old"
    read -r ni nl nr _ <<< "$new"
    line=$(python3 -c "print('\t'.join(f'{a/b:.3f}' for a, b in (($oi, $ni), ($ol, $nl), ($orr, $nr))))")
    echo "$line" >> "$DIR/ratios.tsv"
    read -r qi ql qr <<< "$line"
    echo "| $r | $order | $oi | $ni | $qi | $ol | $nl | $ql | $orr | $nr | $qr |" >> "$OUT"
    echo "pair $r ($order): old/new inserts $qi, lookups $ql, small ranges $qr" >&2
done
pair_medians "$DIR/ratios.tsv" "old / new" "inserts/s (with draining the queued tasks)" \
    "point lookups/s" "small range queries/s (1..100 tuples)" >> "$OUT"
echo "logs: $DIR/logs" >> "$OUT"
cat "$OUT"
