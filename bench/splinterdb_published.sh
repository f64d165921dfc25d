#!/usr/bin/env bash
# The published RocksDB-vs-SplinterDB tables (../shared/spec/published-
# rocksdb-vs-splinterdb.md, docs/splinterdb.md), reproduced row by row: the
# comparison suite at the published size, repeated in interleaved rounds, then
# one table with the published row beside rumbench's (median [min, max] of
# the rounds) and one with the direction of every published ratio against
# rumbench's ratios of the same rounds.
# Usage: bench/splinterdb_published.sh [VARIANT] [NUM] [REPEAT] [CACHE] [EXTRA...]
#   VARIANT  cached (suites/splinterdb-vs-rocksdb.toml, default) or io-bound
#   NUM      keys, inserted twice (fillrandom, then fillseq); default 50000000
#            (the suite's steps, with the fills' counts set to NUM and the
#            reads' durations to READ_SECONDS, default 30)
#   REPEAT   rounds (default 3)
#   CACHE    cached variant: SplinterDB's cache and RocksDB's block cache
#            (default 12G: the 5.8 GB of keys and values fit in both)
#   EXTRA    more `rumbench run` arguments, for a run that changes one thing
#            (e.g. -o splinterdb.num_normal_bg_threads=1)
#   CONFIGS  (environment) the suite's configs to run, comma separated
#            (default: all), e.g. CONFIGS=splinterdb for a one-change run of it
# Writes bench/results/splinterdb_published-VARIANT-STAMP.md and the run's
# summary.txt beside it; the run itself stays in $SCRATCH.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
VARIANT=${1:-cached}; NUM=${2:-50000000}; REPEAT=${3:-3}; CACHE=${4:-12G}
shift $(( $# < 4 ? $# : 4 ))
ROOT=$(cd "$(dirname "$0")/.." && pwd)
case "$VARIANT" in
  cached) suite="$ROOT/suites/splinterdb-vs-rocksdb.toml"
          sizes=(-o "splinterdb.cache_size=$CACHE" -o "rocksdb.block_cache_size=$CACHE") ;;
  io-bound) suite="$ROOT/suites/splinterdb-vs-rocksdb-io-bound.toml"; sizes=() ;;
  *) echo "VARIANT is cached or io-bound" >&2; exit 2 ;;
esac
READ_SECONDS=${READ_SECONDS:-30}
stamp=$(date -u +%Y%m%d-%H%M)
out="$SCRATCH/published-$VARIANT"; rm -rf "$out"
sized="$SCRATCH/published-$VARIANT.toml"
sed -e "s/^ops = [0-9]*$/ops = $NUM/" -e "s/^seconds = [0-9.]*$/seconds = $READ_SECONDS/" "$suite" >"$sized"
keep_configs "$sized" "${CONFIGS:-}"
logged "$SCRATCH/published-$VARIANT.log" "$RUMBENCH" run -c "$sized" -n "$NUM" --repeat "$REPEAT" "${sizes[@]}" "$@" \
  --progress lines --no-history -d "$out"
keep="$ROOT/bench/results/splinterdb_published-$VARIANT-$stamp"
mkdir -p "$keep"; cp "$out/summary.txt" "$keep/"
table="$keep.md"
{
  echo "# The published tables, $VARIANT variant ($stamp UTC)"
  echo
  echo '```sh'
  echo "${CONFIGS:+CONFIGS=$CONFIGS }READ_SECONDS=$READ_SECONDS bench/splinterdb_published.sh $VARIANT $NUM $REPEAT $CACHE $*"
  echo '```'
  echo
  python3 - "$out/result.json" "$VARIANT" "$NUM" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1])); variant = sys.argv[2]; num = int(sys.argv[3])
# The published rows at 100-byte values (../shared/spec/published-rocksdb-vs-splinterdb.md):
# insert/s, point/s, range/s, wamp; io-bound: 2B rows (universal at 1.5B).
published = {
    "cached": {"splinterdb": (533584, 246964, 31236, 1.3),
               "rocksdb-leveled": (483519, 191592, 76600, 4.5),
               "rocksdb-universal": (488971, 180769, 57394, 2.9)},
    "io-bound": {"splinterdb": (308740, 6110, 1060, 3.7),
                 "rocksdb-leveled": (181556, 8428, 3056, 14.1),
                 "rocksdb-universal": (393873, 8144, 1889, 6.0)},
}[variant]

def step(c, name):
    return next(s for s in c["steps"] if s["name"] == name)

def figures(c):
    fill, point, rng = step(c, "fillrandom"), step(c, "readrandom"), step(c, "fwdrange")
    cpu = lambda s: s["metrics"].get("host_cpu_us_op")
    io = lambda s, k: (s["metrics"].get("io") or {}).get(k)
    return {"insert/s": fill["ops_s"], "point/s": point["ops_s"], "range/s": rng["ops_s"],
            "wamp step": fill["metrics"].get("write_amp"),
            "wamp debt": (fill.get("write_debt") or {}).get("write_amp"),
            "cpu ins": cpu(fill), "cpu pt": cpu(point), "cpu rng": cpu(rng),
            "rpq pt": io(point, "rpq"), "rpq rng": io(rng, "rpq"),
            "fillseq/s": step(c, "fillseq")["ops_s"],
            "rss peak MB": max((s["metrics"].get("rss_peak_bytes") or 0) for s in c["steps"]) / 1e6,
            "space MB": (step(c, "fwdrange")["metrics"].get("db_size_bytes") or 0) / 1e6}

runs = {}
for c in r["configs"]:
    if c["status"] != "completed":
        print(f"- {c['name']} round {c.get('repeat')}: {c['status']}: {c.get('error')}")
        continue
    runs.setdefault(c["name"], {})[c.get("repeat") or 1] = figures(c)

def spread(vals, fmt):
    vals = [v for v in vals if v is not None]
    if not vals:
        return "-"
    m = statistics.median(vals)
    return f"{fmt(m)} [{fmt(min(vals))}, {fmt(max(vals))}]" if len(vals) > 1 else fmt(m)

n = lambda v: f"{v:,.0f}"; f2 = lambda v: f"{v:.2f}"
print(f"{num:,} keys of 16 bytes, 100-byte values; rumbench: median [min, max] of "
      f"{max(len(v) for v in runs.values())} rounds. Published: 50M rows (cached), 2B "
      "(io-bound; universal 1.5B), 4 cores, 16 GB, NVMe; rumbench: 2 vCPUs, 24 GB.\n")
print("| config | | insert/s | point/s | range/s | wamp (step) | wamp (through debt) | cpu us/op ins / pt / rng | rpq pt / rng | fillseq/s | peak RSS MB | space MB |")
print("|---|---|---:|---:|---:|---:|---:|---|---|---:|---:|---:|")
for name in published:
    p = published[name]
    print(f"| {name} | published | {n(p[0])} | {n(p[1])} | {n(p[2])} | {p[3]} | | | | | | |")
    rs = list(runs.get(name, {}).values())
    col = lambda k, fmt: spread([x[k] for x in rs], fmt)
    print(f"| | rumbench | {col('insert/s', n)} | {col('point/s', n)} | {col('range/s', n)} | "
          f"{col('wamp step', f2)} | {col('wamp debt', f2)} | "
          f"{col('cpu ins', f2)} / {col('cpu pt', f2)} / {col('cpu rng', f2)} | "
          f"{col('rpq pt', f2)} / {col('rpq rng', f2)} | {col('fillseq/s', n)} | "
          f"{col('rss peak MB', n)} | {col('space MB', n)} |")

print("\nDirections: each published ratio beside rumbench's, per round (a/b of the same round), "
      "median [min, max]; 'agrees' when every round's ratio is on the published side of 1.\n")
print("| ratio | figure | published | rumbench | agrees |")
print("|---|---|---:|---:|---|")
pairs = [("splinterdb", "rocksdb-leveled"), ("splinterdb", "rocksdb-universal"),
         ("rocksdb-universal", "rocksdb-leveled")]
cols = [("insert/s", 0, "wamp step"), ("point/s", 1, None), ("range/s", 2, None), ("wamp", 3, None)]
for a, b in pairs:
    for label, i, _ in cols:
        pub = published[a][i] / published[b][i]
        ours_keys = ["wamp step", "wamp debt"] if label == "wamp" else [label]
        for k in ours_keys:
            ratios = [runs[a][rd][k] / runs[b][rd][k] for rd in runs.get(a, {})
                      if rd in runs.get(b, {}) and runs[a][rd][k] and runs[b][rd][k]]
            if not ratios:
                print(f"| {a} / {b} | {k} | {pub:.2f} | - | not measured |")
                continue
            agree = all((x > 1) == (pub > 1) for x in ratios)
            mixed = any((x > 1) == (pub > 1) for x in ratios)
            word = "yes" if agree else ("mixed" if mixed else "no")
            print(f"| {a} / {b} | {k} | {pub:.2f} | {spread(ratios, f2)} | {word} |")
PY
} >"$table"
cat "$table"
echo "wrote $table" >&2
