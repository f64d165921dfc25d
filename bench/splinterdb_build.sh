#!/usr/bin/env bash
# Build SplinterDB's own benchmark driver (`driver_test`, whose `splinter_test`
# is the "SplinterDB vs RocksDB" client) and its library from the vendored
# source, with the make command and flags vendor/splinterdb-sys/build.rs uses
# for the library rumbench links (upstream's release build, clang, llvm-ar,
# -march=native), then check that the recorded CFLAGS are the ones rumbench's
# library was built with (`rumbench engines splinterdb`: build.cflags).
#
# Usage: bench/splinterdb_build.sh            (after cargo build --release)
#   SPLINTERDB_SRC=DIR  build another SplinterDB checkout (a git one: its
#                       Makefile names its version) with the same command and
#                       flags, into DIR/../build; no CFLAGS check then
# Prints the build dir; driver_test is <dir>/release/bin/driver_test.
set -euo pipefail
cd "$(dirname "$0")/.."
RUMBENCH=${RUMBENCH:-target/release/rumbench}
SRC=${SPLINTERDB_SRC:-vendor/splinterdb-sys/splinterdb}
pick() { for t in "$@"; do command -v "$t" >/dev/null 2>&1 && { echo "$t"; return; }; done; echo "none of $* found" >&2; exit 1; }
CC=$(pick clang clang-14)
AR=$(pick llvm-ar llvm-ar-14 llvm-ar-15 llvm-ar-16)
if [ -n "${SPLINTERDB_SRC:-}" ]; then
    OUT=$(cd "$SRC/.." && pwd)/build
    # Older Makefiles link with the default $(LD), GNU ld, which refuses
    # their LDFLAGS; later ones set LD = $(CC), as here.
    make_vars=(LD="$CC")
else
    OUT=${SPLINTERDB_BENCH_BUILD:-$PWD/target/splinterdb-bench}
    make_vars=(GIT_VERSION='"d2173e0e"')
fi
mkdir -p "$OUT"
# The same variables as build.rs (CFLAGS through the environment, the rest on the command line).
CFLAGS=-march=native flock /tmp/rumbench-heavy.lock make -C "$SRC" -j"$(nproc)" CC="$CC" AR="$AR" BUILD_MODE=release \
    BUILD_ROOT="$OUT" "${make_vars[@]}" BUILD_VERBOSE=1 \
    "$OUT/release/bin/driver_test" "$OUT/release/lib/libsplinterdb.a" >"$OUT/make.log" 2>&1 \
    || { tail -20 "$OUT/make.log" >&2; exit 1; }
ours=$(sed -n 's/^CFLAGS = //p' "$OUT"/release/build-config.*)
if [ -z "${SPLINTERDB_SRC:-}" ] && [ -x "$RUMBENCH" ]; then
    linked=$("$RUMBENCH" engines splinterdb | sed -n 's/^ *build.cflags: //p')
    if [ "$ours" != "$linked" ]; then
        echo "driver_test's CFLAGS differ from the library rumbench links:" >&2
        echo "  driver_test: $ours" >&2
        echo "  rumbench:    $linked" >&2
        exit 1
    fi
fi
echo "$OUT"
