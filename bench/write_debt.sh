#!/usr/bin/env bash
# The inserts' w-amp during the step and through their write debt, on each
# engine, beside an independent sum: the device bytes from the fill's start
# to the end of the settle after it, over its logical bytes (the goal of
# issue 54: the figure through the debt within 10% of that sum).
# The cached comparison suite (SplinterDB, RocksDB leveled and universal)
# and LMDB and SQLite with the same steps.
# Usage: bench/write_debt.sh [NUM]      (default 2000000 keys, as the suite)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
NUM=${1:-2000000}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
suite="$SCRATCH/debt-suite"; rm -rf "$suite"
"$RUMBENCH" run -c "$ROOT/suites/splinterdb-vs-rocksdb.toml" -n "$NUM" --ops "$NUM" --progress off --no-history \
  -d "$suite" >/dev/null 2>&1
others="$SCRATCH/debt-others"; rm -rf "$others"
"$RUMBENCH" run -e lmdb,sqlite -s fillrandom,settle,readrandom --seconds 5 --ops "$NUM" -n "$NUM" --key-size 16 \
  --value-size 100 --seed 42 --progress off --no-history -d "$others" >/dev/null 2>&1
echo "| config | logical MB | device MB: fill | then settle | w-amp step | w-amp debt | device sum / logical | debt vs sum | owed at the fill's end |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---|"
for out in "$suite" "$others"; do
  python3 - "$out/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for c in r["configs"]:
    steps = c["steps"]
    i = next(k for k, s in enumerate(steps) if s["name"] == "fillrandom")
    fill, settle = steps[i], steps[i + 1]
    assert settle["name"] == "settle", settle["name"]
    m = fill["metrics"]
    logical = m["logical_bytes_written"]
    dev_fill = m["io"]["bytes_written"]
    dev_settle = settle["metrics"]["io"]["bytes_written"]
    d = fill["write_debt"]
    independent = (dev_fill + dev_settle) / logical
    owed = d.get("owed_at_end")
    owed_text = "unknown: " + d.get("owed_unknown", "") if owed is None else (
        ", ".join(f"{k} {v}" for k, v in owed) or "nothing")
    f = lambda x: "-" if x is None else f"{x:.2f}"
    print(f"| {c['name']} | {logical/1e6:.0f} | {dev_fill/1e6:.1f} | {dev_settle/1e6:.1f} | {f(m.get('write_amp'))} | "
          f"{f(d.get('write_amp'))} | {independent:.2f} | {100 * (d['write_amp'] / independent - 1):+.1f}% | {owed_text} |")
PY
done
