#!/usr/bin/env bash
# The version sweep of docs/version-sweeps.md: the insert benchmark (l.i0,
# l.x, l.i1, qr100, qp100) on PostgreSQL 12, 14, 16 and 18 (bench/pg-versions.toml),
# with the load average around it. Results: bench/results/pg_versions-<date>/
# (result.json, summary.txt with the version table, summary.md, the servers'
# logs) and the run's output beside it.
# Usage: bench/pg_versions.sh [extra rumbench run flags, e.g. --rows 500000]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT="$ROOT/bench/results/pg_versions-$(date +%Y%m%d-%H%M%S)"
exec > >(tee "$OUT.log") 2>&1
echo "command: rumbench run --config bench/pg-versions.toml $*"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
"$RUMBENCH" run --config "$ROOT/bench/pg-versions.toml" --progress off --no-history --db-dir "$SCRATCH/pgver-db" --output-dir "$OUT" "$@"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -f "$OUT/report.html" "$OUT/intervals.csv" "$OUT/report.tsv"   # rendered again from result.json by `rumbench report`
