#!/usr/bin/env bash
# What one call through the plugin ABI costs: rumbench's native null engine
# against bench/null_plugin.c, a plugin that does nothing either, on
# fillseq and readrandom (every get finds a value, nothing is stored), at
# --repeat ROUNDS (the two configs interleaved round by round).
#
# Usage:  bench/plugin_call_cost.sh [ROUNDS] [NUM]
#   ROUNDS=7, NUM=20000000 operations per step (1 client thread)
# Prints, per step, each side's median ns per operation (1e9 / ops/s) and
# the difference with its spread over the rounds' pairs.
set -euo pipefail
ROUNDS=${1:-7}; NUM=${2:-20000000}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RUMBENCH=${RUMBENCH:-$ROOT/target/release/rumbench}
[[ -x $RUMBENCH ]] || { echo "build rumbench first: cargo build --release" >&2; exit 1; }
WORK=$(mktemp -d /tmp/rumbench-callcost.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cc -std=c11 -O2 -g -fPIC -shared -fvisibility=hidden -Wall -Wextra -Werror -I"$ROOT/include" -o "$WORK/libnull_plugin.so" "$ROOT/bench/null_plugin.c"
echo "rumbench: $RUMBENCH; $ROUNDS rounds, $NUM ops; $(nproc) cores; $(date -u +%FT%TZ)"
"$RUMBENCH" run -e null -e "plugin:$WORK/libnull_plugin.so" --steps fillseq,readrandom --num "$NUM" \
    --repeat "$ROUNDS" --progress=off --no-history --output-dir "$WORK/out" >/dev/null 2>"$WORK/stderr" ||
    { cat "$WORK/stderr" >&2; exit 1; }
python3 - "$WORK/out/result.json" <<'PY'
import json, statistics, sys
run = json.load(open(sys.argv[1]))
ns = {}
for c in run["configs"]:
    for s in c["steps"]:
        ns.setdefault((c["engine"], s["name"]), []).append(1e9 / s["ops_s"])
for step in ["fillseq", "readrandom"]:
    n, p = ns[("null", step)], ns[("plugin", step)]
    d = [b - a for a, b in zip(n, p)]
    print(f"{step:<10}  null {statistics.median(n):6.1f} ns/op  plugin {statistics.median(p):6.1f} ns/op"
          f"  plugin - null {statistics.median(d):+5.1f} ns (rounds {min(d):+.1f}..{max(d):+.1f})")
PY
