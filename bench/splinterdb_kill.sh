#!/usr/bin/env bash
# What a process kill (SIGKILL, no power cut: the page cache keeps every write
# the process made) leaves of a SplinterDB database, beside a clean close as
# the control: bench/splinterdb_kill.c built against the vendored library with
# driver_test's flags, for a few record counts and cache sizes, on the
# filesystem under DIR. Prints one line per case; docs/splinterdb.md has a run.
#
# Usage: bench/splinterdb_kill.sh [DIR=/tmp/splinterdb-kill]
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${DIR:-/tmp/splinterdb-kill}
OUT=$(bench/splinterdb_build.sh)
SRC=vendor/splinterdb-sys/splinterdb
CC=$(sed -n 's/^CC = //p' "$OUT"/release/build-config.*)
CFLAGS=$(sed -n 's/^CFLAGS = //p' "$OUT"/release/build-config.*)
LDFLAGS=$(sed -n 's/^LDFLAGS = //p' "$OUT"/release/build-config.*)
# shellcheck disable=SC2086
$CC $CFLAGS -I "$SRC/include" bench/splinterdb_kill.c $LDFLAGS "$OUT/release/lib/libsplinterdb.a" -lm -lpthread -laio -lxxhash -o "$OUT/splinterdb_kill"
mkdir -p "$DIR"
for n in 100000 1000000 3000000; do
    for cache in 1024 128; do
        for how in close kill; do
            rm -f "$DIR/db"
            "$OUT/splinterdb_kill" "$how" "$n" "$cache" "$DIR/db" >/dev/null 2>&1 || true
            got=$("$OUT/splinterdb_kill" read "$n" "$cache" "$DIR/db" 2>&1 | tr '\n' ' ' | sed 's/ *$//') || true
            echo "$n records, cache ${cache}M, $how: $got"
        done
    done
done
rm -rf "$DIR"
