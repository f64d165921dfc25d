#!/usr/bin/env bash
# Each step against its ceilings (docs/device-ceiling.md): fio's baseline of
# the scratch dir's device first (stored in the scratch history), then
# - io-bound point queries, RocksDB (direct reads, 8 MB block cache) and LMDB
#   (page cache dropped before the step), 1 and 4 threads: the read ceiling;
# - durable inserts, RocksDB sync=true and SQLite synchronous=full, 1 and 4
#   threads: the sync ceiling (group commit lowers the syncs per insert);
# - cached point queries (RocksDB): the cpu ceiling.
# Usage: bench/ceilings.sh [NUM] [SECONDS] [FIO_SIZE]   (default 5000000 keys, 10 s steps, 4G)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
NUM=${1:-5000000}; SECS=${2:-10}; FIO_SIZE=${3:-4G}
OUT=${OUT:-$SCRATCH/ceilings}
rm -rf "$OUT"; mkdir -p "$OUT"
"$RUMBENCH" device --dir "$SCRATCH" --size "$FIO_SIZE" --remeasure > "$OUT/device.txt"
cat "$OUT/device.txt" >&2

suite() {  # NAME MODE ENGINE OPTION STEPS...
  local name=$1 mode=$2 engine=$3 option=$4; shift 4
  {
    printf '[settings]\nnum = %s\nmode = "%s"\n[[config]]\nengine = "%s"\n' "$NUM" "$mode" "$engine"
    [ -n "$option" ] && printf '[config.options]\n%s\n' "$option"
    for s in "$@"; do printf '[[step]]\n%s\n' "$s"; done
  } > "$OUT/$name.toml"
  "$RUMBENCH" run --config "$OUT/$name.toml" --progress off -d "$OUT/$name" > "$OUT/$name.log" 2>&1 || { cat "$OUT/$name.log" >&2; exit 1; }
}

load=('name = "fillseq"' 'name = "flush"' 'name = "waitforcompaction"')
reads=("name = \"readrandom\"
threads = 1
seconds = $SECS" "name = \"readrandom\"
threads = 4
seconds = $SECS")
suite rocksdb-io io-bound rocksdb "" "${load[@]}" "${reads[@]}"
suite lmdb-io io-bound lmdb "" "${load[@]}" "${reads[@]}"
suite rocksdb-cached cached rocksdb "" "${load[@]}" "${reads[@]}"
durable=("name = \"fillrandom\"
threads = 1
num = 20000" "name = \"fillrandom\"
threads = 4
num = 40000")
suite rocksdb-sync cached rocksdb 'sync = "true"' "${durable[@]}"
suite sqlite-sync cached sqlite 'synchronous = "full"' "${durable[@]}"

python3 - "$OUT" <<'PY'
import json, sys, os
out = sys.argv[1]
print("| run | step | threads | ops/s (all) | reads/op | KB/read | syncs/op | read | write | sync | cpu | % of limit |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
for name in ["rocksdb-io", "lmdb-io", "rocksdb-cached", "rocksdb-sync", "sqlite-sync"]:
    r = json.load(open(os.path.join(out, name, "result.json")))
    for s in r["configs"][0]["steps"]:
        c = s.get("ceilings")
        if not c or s["name"] not in ("readrandom", "fillrandom"):
            continue
        io = s["metrics"].get("io") or {}
        ops = s["ops"] + ((s.get("writer") or {}).get("ops") or 0)
        sy = s["metrics"].get("syncs") or {}
        reads = io.get("read_requests")
        per = lambda v: "-" if v is None else f"{v / ops:.3g}"
        kb = "-" if not reads else f"{io['bytes_read'] / reads / 1024:.1f}"
        syncs = None if not sy else sy.get("server_syncs") or (sy["fsync"] + sy["fdatasync"] + sy["msync"])
        ceil = {x["resource"]: f"{x['ops_s']:,.0f}" for x in c["ceilings"]}
        bound = f"{c['bound']} {c['pct_of_limit']:.0f}%" if c.get("bound") else "-"
        print(f"| {name} | {s['name']} | {s['settings']['threads']} | {c['ops_s']:,.0f} | {per(reads)} | {kb} | {per(syncs)} | "
              + " | ".join(ceil.get(k, "-") for k in ["read", "write", "sync", "cpu"]) + f" | {bound} |")
        for w in s["warnings"]:
            if "ceiling" in w or "io-bound" in w:
                print(f"|  | warning: {w} |||||||||||")
PY
