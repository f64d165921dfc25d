#!/usr/bin/env bash
# The keys splinter_test generates, from its own key function (test_key() of
# tests/functional/test.h, with the config splinter_test --perf sets), compiled
# from the vendored source with driver_test's flags and linked against the same
# library (bench/splinterdb_keys.c). Writes tests/fixtures/splinterdb/splinter_test_keys.txt
# (index, key hex), the fixture tests/splinterdb.rs checks rumbench's key order
# `hash` against.
#
# Usage: bench/splinterdb_keys.sh [N=1000] [KEY_SIZE=24]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000}
KEY_SIZE=${2:-24}
OUT=$(bench/splinterdb_build.sh)
SRC=vendor/splinterdb-sys/splinterdb
CC=$(sed -n 's/^CC = //p' "$OUT"/release/build-config.*)
CFLAGS=$(sed -n 's/^CFLAGS = //p' "$OUT"/release/build-config.*)
LDFLAGS=$(sed -n 's/^LDFLAGS = //p' "$OUT"/release/build-config.*)
# shellcheck disable=SC2086
flock /tmp/rumbench-heavy.lock $CC $CFLAGS -DGIT_VERSION='"d2173e0e"' -I "$SRC/include" -I "$SRC/src" -I "$SRC/src/platform_linux" -I "$SRC/tests" \
    bench/splinterdb_keys.c $LDFLAGS "$OUT/release/lib/libsplinterdb.a" -lm -lpthread -laio -lxxhash -o "$OUT/splinterdb_keys"
mkdir -p tests/fixtures/splinterdb
{
    echo "# splinter_test's keys (test_key, TEST_RANDOM, key size $KEY_SIZE) for record indexes 0..$((N - 1)),"
    echo "# in its insert and lookup order: index, key bytes in hex. Made by bench/splinterdb_keys.sh"
    echo "# from SplinterDB d2173e0e (vendor/splinterdb-sys) with driver_test's flags."
    "$OUT/splinterdb_keys" "$N" "$KEY_SIZE"
} > tests/fixtures/splinterdb/splinter_test_keys.txt
echo "wrote tests/fixtures/splinterdb/splinter_test_keys.txt ($N keys of $KEY_SIZE bytes)"
