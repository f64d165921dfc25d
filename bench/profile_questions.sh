#!/usr/bin/env bash
# The questions docs/profiles.md answers with --profile, each a run whose
# table ends in "where the CPU went" (summary.txt; report.html adds the
# differential flame graphs). Results in bench/results/profile_questions-<q>-<date>/.
#
# Usage: bench/profile_questions.sh a|b|c [REPEATS]
#   a: RocksDB fillrandom, compression none against zstd (about 3 minutes)
#   b: RocksDB 6.28.2 against 10.4.2, fillseq (each version built once and
#      cached first: `rumbench rocksdb-versions --build 6.28,10.4`, about 20
#      minutes each on 2 cores)
#   c: PostgreSQL 16 against 18, the insert benchmark's l.i1
#      (bench/profile-questions-pg.toml, about 15 minutes)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
q=${1:?a, b or c}
REPEATS=${2:-3}
out="$ROOT/bench/results/profile_questions-$q-$(date -u +%Y%m%d-%H%M)"
case "$q" in
  a) "$RUMBENCH" run -e rocksdb -s fillrandom -n 2000000 --sweep compression=none,zstd --profile --repeat "$REPEATS" -d "$out" ;;
  b) "$RUMBENCH" run -e rocksdb -o cache_type=lru --sweep rocksdb.version=6.28,10.4 -s fillseq -n 1000000 --profile --profile-hz 999 --repeat "$REPEATS" -d "$out" ;;
  c) "$RUMBENCH" run --config "$ROOT/bench/profile-questions-pg.toml" -d "$out" ;;
  *) echo "a, b or c" >&2; exit 2 ;;
esac
echo "where the CPU went: $out/summary.txt, $out/report.html"
