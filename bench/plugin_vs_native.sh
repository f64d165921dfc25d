#!/usr/bin/env bash
# LMDB through the C plugin (plugins/lmdb, include/rumbench_engine.h) against
# rumbench's native LMDB engine: what the plugin ABI costs per operation.
#
# Both sides run the same LMDB source with the same flags: the plugin is
# built with LMDB_SRC set to the mdb.c that the native engine's
# lmdb-master-sys bundles, at the -O3 its build script uses, so the ratio
# measures the ABI and not two LMDB versions (Debian's liblmdb0 0.9.24 has
# its assertions on).
#
# Usage:  bench/plugin_vs_native.sh [ROUNDS] [NUM] [THREADS...]
#   ROUNDS=8   rounds of each config, interleaved by rumbench's --repeat:
#              native then plugin in odd rounds, plugin then native in even
#              ones. Even, so that each goes second as often: the second of a
#              round may find the first's dirty pages still being written
#              back (both fill with sync off). The ratio is printed apart
#              for the rounds where the plugin went first and second.
#   NUM=1000000 keys (16-byte keys, 100-byte values)
#   THREADS="1 2": one run per thread count
#   READ_SECONDS=5 (environment): each read step's length
# Prints, per thread count and step, the plugin/native ratio of median ops/s
# and the spread of the per-round ratios (min..max).
set -euo pipefail
ROUNDS=${1:-8}; NUM=${2:-1000000}; shift $(( $# > 2 ? 2 : $# )) || true
THREADS=("${@:-1 2}"); [[ ${#THREADS[@]} -eq 1 ]] && read -r -a THREADS <<<"${THREADS[0]}"
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RUMBENCH=${RUMBENCH:-$ROOT/target/release/rumbench}
[[ -x $RUMBENCH ]] || { echo "build rumbench first: cargo build --release" >&2; exit 1; }
(( ROUNDS % 2 == 0 )) || { echo "ROUNDS must be even: each config goes second as often as first" >&2; exit 2; }
LMDB_SRC=$(ls -d "$HOME"/.cargo/registry/src/*/lmdb-master-sys-0.2.6/lmdb/libraries/liblmdb 2>/dev/null | head -1)
[[ -f $LMDB_SRC/mdb.c ]] || { echo "lmdb-master-sys 0.2.6's source is not in ~/.cargo/registry: cargo fetch" >&2; exit 1; }
WORK=$(mktemp -d /tmp/rumbench-plugin.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
make -s -C "$ROOT/plugins/lmdb" OUT="$WORK" LMDB_SRC="$LMDB_SRC" \
    LMDB_OPT="-O3 -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer"
LIB=$WORK/librumbench_lmdb.so
echo "plugin: $LIB ($(sha256sum "$LIB" | cut -c1-16)), LMDB from $LMDB_SRC"
echo "rumbench: $RUMBENCH; $ROUNDS rounds, $NUM keys; $(nproc) cores; $(date -u +%FT%TZ)"
# The fill writes NUM keys; each read step runs for READ_SECONDS, long
# enough that a slow second of the shared machine is a small part of it.
READ_SECONDS=${READ_SECONDS:-5}
cat >"$WORK/suite.toml" <<SUITE
[[step]]
name = "fillrandom"
[[step]]
name = "readrandom"
seconds = $READ_SECONDS
[[step]]
name = "fwdrange"
seconds = $READ_SECONDS
SUITE
for t in "${THREADS[@]}"; do
    out=$WORK/threads-$t
    "$RUMBENCH" run -c "$WORK/suite.toml" -e lmdb -e "plugin:$LIB" \
        --num "$NUM" --threads "$t" --repeat "$ROUNDS" --seed 42 --key-size 16 --value-size 100 \
        --progress=off --no-history --output-dir "$out" >/dev/null 2>"$WORK/stderr-$t" ||
        { cat "$WORK/stderr-$t" >&2; exit 1; }
    python3 - "$out/result.json" "$t" <<'EOF'
import json, statistics, sys
run = json.load(open(sys.argv[1]))
by = {}  # (config, step) -> [ops/s by round]
cpu = {}  # (config, step) -> [CPU us per op of the process, by round]
for c in run["configs"]:
    for s in c["steps"]:
        by.setdefault((c["name"], s["name"]), []).append(s["ops_s"])
        cpu.setdefault((c["name"], s["name"]), []).append(s["metrics"]["client_cpu_us_op"])
steps = sorted({s for (_, s) in by}, key=["fillrandom", "readrandom", "fwdrange"].index)
plugin_name = next(c for (c, _) in by if c != "lmdb")
for step in steps:
    n, p = by[("lmdb", step)], by[(plugin_name, step)]
    ratios = [b / a for a, b in zip(n, p)]
    cn, cp = cpu[("lmdb", step)], cpu[(plugin_name, step)]
    # Round r ran its two configs in run["configs"][2r], [2r+1].
    first = [run["configs"][2 * r]["name"] == plugin_name for r in range(len(ratios))]
    when_first = [x for x, f in zip(ratios, first) if f]
    when_second = [x for x, f in zip(ratios, first) if not f]
    print(f"threads {sys.argv[2]}  {step:<10}  native {statistics.median(n):>10.0f}  plugin {statistics.median(p):>10.0f}"
          f"  plugin/native {statistics.median(p) / statistics.median(n):.3f}  rounds {min(ratios):.3f}..{max(ratios):.3f}"
          f"  cpu us/op {statistics.median(cn):.3f} vs {statistics.median(cp):.3f}"
          f"  plugin first {statistics.median(when_first):.3f}, second {statistics.median(when_second):.3f}")
EOF
done
