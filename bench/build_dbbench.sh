#!/usr/bin/env bash
# Build db_bench from the very RocksDB that rumbench links: the sources shipped
# in the librocksdb-sys crate (RocksDB 11.8.1, or a RocksDB version rumbench
# built: docs/rocksdb-versions.md), compiled with the exact compiler command the
# crate's build used for the library (taken from the build script's log, which
# .cargo/config.toml turns on), and linked against the librocksdb.a it built.
# Like with like: RocksDB's own Makefile uses other flags (-O2, and
# -march=native only when asked), which moved results by about 20% here.
#
# Usage:  bench/build_dbbench.sh            (after `cargo build --release`)
#         bench/build_dbbench.sh 8.10       (after `rumbench rocksdb-versions --build 8.10`)
# Prints the path of the db_bench binary on its last line: target/dbbench/db_bench
# (under $CARGO_TARGET_DIR when set), or target/dbbench-<version>/db_bench for a
# version. A db_bench newer than the library and this script, built with the same
# flags, is kept (about 40 s to build on 2 cores).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/cc_log.sh"

REPO_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VERSION=${1:-}
if [ -z "$VERSION" ]; then
    TARGET_DIR=${CARGO_TARGET_DIR:-$REPO_DIR/target}
    OUT_BIN_DIR=$TARGET_DIR/dbbench
    CRATE=0.19.0+11.8.1
else
    # The version's full name and crate, from rumbench's list of versions.
    RUMBENCH=${RUMBENCH:-$REPO_DIR/target/release/rumbench}
    read -r FULL CRATE < <("$RUMBENCH" rocksdb-versions | awk -v v="$VERSION" '!found && ($1 == v || index($1, v ".") == 1) { print $1, $2; found = 1 }')
    [ -n "${FULL:-}" ] || { echo "build_dbbench: unknown RocksDB version $VERSION (rumbench rocksdb-versions lists them)" >&2; exit 1; }
    CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/rumbench/rocksdb
    TARGET_DIR=${RUMBENCH_ROCKSDB_TARGET_DIR:-$CACHE/target}
    OUT_BIN_DIR=$REPO_DIR/target/dbbench-$FULL
fi
mkdir -p "$OUT_BIN_DIR"

if ! dpkg-query -W -f='${Status}' libgflags-dev 2>/dev/null | grep -q "install ok installed"; then
    echo "build_dbbench: installing libgflags-dev (db_bench's flag parser)" >&2
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq libgflags-dev >/dev/null
fi

# The newest librocksdb-sys build of this crate in the release profile.
BUILD_DIR=$(ls -td "$TARGET_DIR"/release/build/librocksdb-sys-*/ 2>/dev/null | while read -r d; do
    [ -f "$d/out/librocksdb.a" ] && grep -q "librocksdb-sys-$CRATE" "$d/output" 2>/dev/null && { echo "$d"; break; }; done)
[ -n "${BUILD_DIR:-}" ] || { echo "build_dbbench: no librocksdb.a of librocksdb-sys $CRATE under $TARGET_DIR/release/build: run cargo build --release (or rumbench rocksdb-versions --build $VERSION) first" >&2; exit 1; }
LIB_OUT=$BUILD_DIR/out
SRC=$(ls -d ~/.cargo/registry/src/*/librocksdb-sys-$CRATE 2>/dev/null | head -n1)
[ -d "$SRC/rocksdb/tools" ] || { echo "build_dbbench: librocksdb-sys sources not found in ~/.cargo/registry" >&2; exit 1; }

# One logged compile of a library source: the compiler and its flags.
CMDLINE=$(grep -h 'running: ' "$BUILD_DIR/output" "$BUILD_DIR/stderr" 2>/dev/null | grep -m1 'rocksdb/db/db_impl/db_impl.cc' || true)
[ -n "$CMDLINE" ] || { echo "build_dbbench: the build log has no compiler command; build with CC_ENABLE_DEBUG_OUTPUT=1 (.cargo/config.toml sets it)" >&2; exit 1; }
cc_log_command "$CMDLINE"
[ -n "$CXX" ] || { echo "build_dbbench: could not parse: $CMDLINE" >&2; exit 1; }
# Include paths in the log are relative to the crate's directory.
ABS_FLAGS=()
inc=0
for f in "${FLAGS[@]}"; do
    if [ $inc -eq 1 ]; then   # the word after a lone -I
        inc=0
        case "$f" in /*) ABS_FLAGS+=("-I$f") ;; *) ABS_FLAGS+=("-I$SRC/$f") ;; esac
        continue
    fi
    case "$f" in
        -I) inc=1 ;;
        -I/*) ABS_FLAGS+=("$f") ;;
        -I*) ABS_FLAGS+=("-I$SRC/${f#-I}") ;;
        *) ABS_FLAGS+=("$f") ;;
    esac
done
if [ -x "$OUT_BIN_DIR/db_bench" ] && [ "$OUT_BIN_DIR/db_bench" -nt "$LIB_OUT/librocksdb.a" ] && [ "$OUT_BIN_DIR/db_bench" -nt "${BASH_SOURCE[0]}" ] &&
    [ "$(cat "$OUT_BIN_DIR/flags.txt" 2>/dev/null)" = "$CXX ${ABS_FLAGS[*]}" ]; then
    echo "build_dbbench: $OUT_BIN_DIR/db_bench is up to date" >&2
    echo "$OUT_BIN_DIR/db_bench"
    exit 0
fi
printf '%s\n' "$CXX ${ABS_FLAGS[*]}" > "$OUT_BIN_DIR/flags.txt"
echo "build_dbbench: compiler flags (as the library): $(cat "$OUT_BIN_DIR/flags.txt")" >&2

SOURCES=()
# What db_bench is made of differs between versions (tool_hooks.cc is new in 11.x).
for s in tools/db_bench.cc tools/db_bench_tool.cc tools/tool_hooks.cc tools/simulated_hybrid_file_system.cc test_util/testutil.cc; do
    [ -f "$SRC/rocksdb/$s" ] && SOURCES+=("$s")
done
OBJS=()
PIDS=()
for s in "${SOURCES[@]}"; do
    o="$OUT_BIN_DIR/$(echo "$s" | tr / _).o"
    "$CXX" "${ABS_FLAGS[@]}" -I"$SRC/rocksdb" -DGFLAGS=1 -c "$SRC/rocksdb/$s" -o "$o" &
    PIDS+=($!)
    OBJS+=("$o")
done
for p in "${PIDS[@]}"; do wait "$p" || { echo "build_dbbench: a compile failed" >&2; exit 1; }; done
# Compression libraries the crate built (snappy, and lz4 in the older crates, in librocksdb-sys's own out dir).
LIBS=("$LIB_OUT/librocksdb.a")
for a in "$LIB_OUT"/lib*.a; do [ "$a" != "$LIB_OUT/librocksdb.a" ] && LIBS+=("$a"); done
# lz4 and zstd: the builds of those crates whose headers the library's compile used: an
# -I into a build's out dir (lz4-sys), or into a crate's source (zstd-sys-2.1.3+zstd.1.5.7/zstd/lib),
# whose build is the one whose log names it. (The older crates bundle lz4 in their own out dir.)
for inc in "${ABS_FLAGS[@]}"; do
    case "$inc" in
        -I*/build/lz4-sys-*/out*|-I*/build/zstd-sys-*/out*)
            out=$(printf '%s' "${inc#-I}" | sed 's#\(/build/[a-z0-9-]*-sys-[0-9a-f]*/out\).*#\1#') ;;
        -I*/zstd-sys-*/zstd/lib|-I*/lz4-sys-*/liblz4*)
            crate=$(basename "$(dirname "$(dirname "${inc#-I}")")")
            [ "${inc##*/}" = "lib" ] || crate=$(basename "$(dirname "${inc#-I}")")
            out=$(for d in "$TARGET_DIR"/release/build/"${crate%%-[0-9]*}"-*/; do grep -qs "$crate" "$d/output" && [ -d "$d/out" ] && { echo "${d%/}/out"; break; }; done) ;;
        *) continue ;;
    esac
    a=$(ls "$out"/*.a "$out"/*/*.a 2>/dev/null | head -n1 || true)
    [ -n "$a" ] && LIBS+=("$a")
done
# The crate's pre-generated build_version.cc defines RocksDbIOUringEnable()
# too (always true; rumbench never sets up io_uring): db_bench's own, which
# follows its --io_uring_enabled flag, is linked first and wins.
"$CXX" -o "$OUT_BIN_DIR/db_bench" "${OBJS[@]}" "${LIBS[@]}" -Wl,--allow-multiple-definition -lgflags -lpthread -ldl
echo "build_dbbench: built from $SRC/rocksdb with $LIB_OUT/librocksdb.a" >&2
echo "$OUT_BIN_DIR/db_bench"
