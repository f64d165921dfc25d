#!/usr/bin/env bash
# Build WiredTiger 11.3.1 (GPL) for rumbench's optional `wiredtiger` engine
# (cargo feature `wiredtiger`; build.rs runs this script).
#
# The source is the full C source in the PyPI sdist `wiredtiger==11.3.1`
# (fetched with pip, sha256 checked). It is built once, as a Release static
# library (-O2 -DNDEBUG, no diagnostics), position independent, with snappy,
# lz4 and zstd built in (Debian's libsnappy-dev liblz4-dev libzstd-dev), and
# installed to a cache directory:
#
#   ${RUMBENCH_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rumbench}/wiredtiger-11.3.1/
#     lib/libwiredtiger.a  include/wiredtiger.h  BUILD_INFO
#
# Idempotent: when lib/libwiredtiger.a exists, nothing is built. The last line
# on stdout is that install prefix; everything else goes to stderr.
# Needs: python3 with pip, cmake >= 3.10, a C compiler, make (scripts/setup.sh).
set -euo pipefail

VERSION=11.3.1
SHA256=95052d1b6fc06921dd617aafa1ba2a773d8dbbbf2eb74f77147290a630e598d0
CACHE=${RUMBENCH_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rumbench}
PREFIX=$CACHE/wiredtiger-$VERSION
JOBS=${WT_BUILD_JOBS:-1}

log() { echo "build-wiredtiger: $*" >&2; }

mkdir -p "$CACHE"
# One build at a time (cargo build and cargo test may run build.rs together).
exec 9>"$CACHE/.wiredtiger-$VERSION.lock"
flock 9

if [ -f "$PREFIX/lib/libwiredtiger.a" ] && [ -f "$PREFIX/include/wiredtiger.h" ] && [ -f "$PREFIX/BUILD_INFO" ]; then
  echo "$PREFIX"
  exit 0
fi

WORK=$CACHE/wiredtiger-$VERSION-build
rm -rf "$WORK" "$PREFIX"
mkdir -p "$WORK/dl"

SDIST=$WORK/dl/wiredtiger-$VERSION.tar.gz
if [ -f "$CACHE/wiredtiger-$VERSION.tar.gz" ]; then
  cp "$CACHE/wiredtiger-$VERSION.tar.gz" "$SDIST"
else
  PIP=(python3 -m pip)
  "${PIP[@]}" --version >/dev/null 2>&1 || { log "python3 -m pip not found (apt-get install python3-pip)"; exit 1; }
  log "downloading the wiredtiger==$VERSION sdist from PyPI"
  "${PIP[@]}" download --quiet --no-deps --no-binary :all: "wiredtiger==$VERSION" -d "$WORK/dl" >&2
fi
echo "$SHA256  $SDIST" | sha256sum -c --quiet - >&2 || { log "sha256 mismatch for $SDIST"; exit 1; }
cp "$SDIST" "$CACHE/wiredtiger-$VERSION.tar.gz"

tar -xzf "$SDIST" -C "$WORK"
SRC=$WORK/wiredtiger-$VERSION
BUILD=$WORK/build
CC_BIN=${WT_CC:-cc}

log "configuring (Release, static, builtin snappy/lz4/zstd)"
cmake -S "$SRC" -B "$BUILD" -G "Unix Makefiles" \
  -DCMAKE_C_COMPILER="$CC_BIN" \
  -DCMAKE_BUILD_TYPE=Release \
  -DHAVE_DIAGNOSTIC=0 \
  -DENABLE_STRICT=0 \
  -DENABLE_STATIC=1 -DENABLE_SHARED=0 -DWITH_PIC=1 \
  -DENABLE_PYTHON=0 -DENABLE_CPPSUITE=0 -DENABLE_LLVM=0 -DENABLE_MEMKIND=0 \
  -DHAVE_BUILTIN_EXTENSION_SNAPPY=1 -DENABLE_SNAPPY=0 \
  -DHAVE_BUILTIN_EXTENSION_LZ4=1 -DENABLE_LZ4=0 \
  -DHAVE_BUILTIN_EXTENSION_ZSTD=1 -DENABLE_ZSTD=0 \
  -DHAVE_BUILTIN_EXTENSION_ZLIB=0 -DENABLE_ZLIB=0 \
  -DHAVE_UNITTEST=0 >"$WORK/configure.log" 2>&1 || { tail -30 "$WORK/configure.log" >&2; exit 1; }

log "building libwiredtiger.a with $JOBS job(s) (about 75 s on one core)"
cmake --build "$BUILD" --target wiredtiger_static -j "$JOBS" >"$WORK/build.log" 2>&1 || { tail -30 "$WORK/build.log" >&2; exit 1; }

mkdir -p "$PREFIX/lib" "$PREFIX/include"
cp "$BUILD/libwiredtiger.a" "$PREFIX/lib/"
cp "$BUILD/include/wiredtiger.h" "$PREFIX/include/"
FLAGS=$(sed -n 's/^C_FLAGS = //p' "$BUILD/CMakeFiles/wt_objs.dir/flags.make" | head -1)
DEFINES=$(sed -n 's/^C_DEFINES = //p' "$BUILD/CMakeFiles/wt_objs.dir/flags.make" | head -1)
{
  echo "source=PyPI sdist wiredtiger==$VERSION (sha256 $SHA256)"
  echo "build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$BUILD/CMakeCache.txt")"
  echo "have_diagnostic=$(sed -n 's/^HAVE_DIAGNOSTIC:[A-Z]*=//p' "$BUILD/CMakeCache.txt")"
  echo "library=static libwiredtiger.a, builtin snappy lz4 zstd"
  echo "compiler=$("$CC_BIN" --version | head -1)"
  echo "c_flags=$FLAGS"
  echo "c_defines=$DEFINES"
} >"$PREFIX/BUILD_INFO"
cat "$PREFIX/BUILD_INFO" >&2
rm -rf "$WORK"
echo "$PREFIX"
