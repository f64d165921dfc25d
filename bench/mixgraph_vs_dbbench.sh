#!/usr/bin/env bash
# rumbench's mixgraph against db_bench's mixgraph of the same RocksDB build
# (bench/build_dbbench.sh), with the same parameters: the op mix, the share of
# accesses per key range (the 10 hottest), the puts' value sizes, the scan
# lengths (db_bench prints only their mean) and the operations per second
# over time against the sine rate. db_bench's side is read from the query
# trace it writes (--trace_file; bench/rocksdb_trace_stats.py), rumbench's
# from its result.json (its mixgraph step records the same draws).
#
# Usage: bench/mixgraph_vs_dbbench.sh [NUM] [OPS] [PARAMS]
#   NUM     keys loaded first by fillseq (default 1000000)
#   OPS     mixgraph operations (default 1000000)
#   PARAMS  --mixgraph's text (default: preset=prefix_dist with a sine rate
#           of 30000 +- 15000 ops/s, period 60 s, set every second)
# Goals (issue 56): op mix and the 10 hottest ranges' shares within 2
# percentage points of db_bench's, the mean value size within 5%.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NUM=${1:-1000000}; OPS=${2:-1000000}
PARAMS=${3:-preset=prefix_dist,sine_mix_rate=true,sine_a=15000,sine_b=0.10472,sine_c=0,sine_d=30000,sine_mix_rate_interval_milliseconds=1000}
DB_BENCH=${DB_BENCH:-$ROOT/target/dbbench/db_bench}
[ -x "$DB_BENCH" ] || DB_BENCH=$("$ROOT/bench/build_dbbench.sh" | tail -1)
stamp=$(date -u +%Y%m%d-%H%M)
work="$SCRATCH/mixgraph-vs-dbbench"; rm -rf "$work"; mkdir -p "$work"

cat >"$work/suite.toml" <<TOML
[settings]
num = $NUM
key_size = 16
value_size = 100
seed = 42
[[config]]
engine = "rocksdb"
[[step]]
name = "fillseq"
ops = $NUM
[[step]]
name = "mixgraph"
ops = $OPS
mixgraph = "$PARAMS"
TOML
"$RUMBENCH" run -c "$work/suite.toml" --progress off --no-history -d "$work/rumbench" >"$work/rumbench.log" 2>&1 \
  || { tail -5 "$work/rumbench.log" >&2; exit 1; }

# db_bench's flags: every mixgraph parameter as rumbench resolved it.
flags=$(python3 - "$work/rumbench/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
step = next(s for s in r["configs"][0]["steps"] if s["name"] == "mixgraph")
p = step["settings"]["mixgraph"]
out = []
for k, v in p.items():
    if k == "preset":
        continue
    out.append(f"--{k}={str(v).lower() if isinstance(v, bool) else v}")
print(" ".join(out))
PY
)
common=(--num="$NUM" --key_size=16 --value_size=100 --seed=42 --threads=1 --compression_type=snappy)
"$DB_BENCH" --db="$work/dbbench-db" --benchmarks=fillseq "${common[@]}" >"$work/dbbench-fill.log" 2>&1
# shellcheck disable=SC2086
"$DB_BENCH" --db="$work/dbbench-db" --use_existing_db=1 --benchmarks=mixgraph --reads="$OPS" \
  --trace_file="$work/dbbench.trace" "${common[@]}" $flags >"$work/dbbench-mix.log" 2>&1

out="$ROOT/bench/results/mixgraph_vs_dbbench-$stamp.md"
python3 - "$work" "$NUM" "$PARAMS" "$ROOT/bench/rocksdb_trace_stats.py" "$flags" >"$out" <<'PY'
import json, re, subprocess, sys
work, num, params, stats_py, flags = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
r = json.load(open(f"{work}/rumbench/result.json"))
step = next(s for s in r["configs"][0]["steps"] if s["name"] == "mixgraph")
mg = step["mixgraph"]
ranges = len(mg["key_range_accesses"])
db = json.loads(subprocess.run(["python3", stats_py, f"{work}/dbbench.trace", str(num), str(ranges),
                                str(mg["keys_per_range"])], check=True, capture_output=True, text=True).stdout)
msg = re.search(r"\( Gets:(\d+) Puts:(\d+) Seek:(\d+).*avg size: ([\d.naninf-]+) value, ([\d.naninf-]+) scan\)",
                open(f"{work}/dbbench-mix.log").read())
ours_ops = {o["op"]: o["ops"] for o in step["ops_by_type"]}
total_ours = sum(ours_ops.values()); total_db = sum(db["ops"].values())
print(f"# mixgraph: rumbench against db_bench (same RocksDB build)\n")
print("```sh\nbench/mixgraph_vs_dbbench.sh", num, step["settings"]["ops"], f"'{params}'", "\n```\n")
print(f"db_bench flags: `{flags}`\n")
print("| figure | db_bench | rumbench | difference |")
print("|---|---:|---:|---:|")
worst_mix = 0.0
for op in ("get", "put", "seek"):
    a = 100 * db["ops"][op] / total_db; b = 100 * ours_ops.get(op, 0) / total_ours
    worst_mix = max(worst_mix, abs(a - b))
    print(f"| {op} share % | {a:.2f} | {b:.2f} | {b - a:+.2f} pp |")
if msg:
    print(f"| (db_bench's own count: gets {msg[1]}, puts {msg[2]}, seeks {msg[3]}) | | | |")
da = db["key_range_accesses"]; oa = mg["key_range_accesses"]
sd, so = sum(da), sum(oa)
hot = sorted(range(ranges), key=lambda i: -da[i])[:10]
worst_range = 0.0
for i in hot:
    a = 100 * da[i] / sd; b = 100 * oa[i] / so
    worst_range = max(worst_range, abs(a - b))
    print(f"| key range {i} share % | {a:.2f} | {b:.2f} | {b - a:+.2f} pp |")
vm_db = db["value_size_mean"]; vm_ours = mg["value_sizes"]["mean"]
print(f"| value size mean, bytes | {vm_db:.2f} | {vm_ours:.2f} | {100 * (vm_ours / vm_db - 1):+.2f}% |")
if msg:
    print(f"| scan length mean (db_bench prints it) | {float(msg[5]):.2f} | {mg['scan_lengths']['mean'] or 0:.2f} | |")
print()
print(f"Worst op-mix difference {worst_mix:.2f} pp (goal 2), worst of the 10 hottest ranges {worst_range:.2f} pp (goal 2), "
      f"value-size mean {100 * (vm_ours / vm_db - 1):+.2f}% (goal 5%).\n")
# Value sizes, in rumbench's buckets.
def bucket(v):
    if v <= 16:
        return v
    step_ = 1 << (v.bit_length() - 1 - 2)
    return -(-v // step_) * step_
dbh = {}
for v, n in db["value_sizes"]:
    dbh[bucket(v)] = dbh.get(bucket(v), 0) + n
oh = dict(map(tuple, mg["value_sizes"]["buckets"]))
tdb, to = sum(dbh.values()), sum(oh.values())
print("Value sizes (bucket's largest size: share % db_bench / rumbench):\n")
print("| up to bytes | db_bench % | rumbench % |")
print("|---:|---:|---:|")
for b in sorted(set(dbh) | set(oh)):
    a, c = 100 * dbh.get(b, 0) / tdb, 100 * oh.get(b, 0) / to
    if a >= 0.5 or c >= 0.5:
        print(f"| {b} | {a:.2f} | {c:.2f} |")
# Operations per second against the sine rate.
ours_ps = {}
for o in step["ops_by_type"]:
    for iv in o["intervals"]:
        ours_ps[iv["index"]] = ours_ps.get(iv["index"], 0) + iv["ops"]
target = mg.get("target_ops_s") or []
print("\nOperations per second (db_bench's first second runs unthrottled: its rate limiter starts at 1M ops/s):\n")
print("| second | sine target | db_bench | rumbench |")
print("|---:|---:|---:|---:|")
n = max(len(db["ops_per_second"]), len(target))
for s in range(n):
    t = f"{target[s]:.0f}" if s < len(target) else "-"
    d = db["ops_per_second"][s] if s < len(db["ops_per_second"]) else "-"
    print(f"| {s} | {t} | {d} | {ours_ps.get(s, '-')} |")
PY
cat "$out"
echo "wrote $out" >&2
