#!/usr/bin/env bash
# The CPU time of compiling RocksDB's C++ at -O2 against -O3: a sample of the
# library's sources, each compiled with the exact command librocksdb-sys's
# build ran (taken from its log, which .cargo/config.toml turns on) but for
# the optimisation level, alternately (-O2 then -O3, then -O3 then -O2, ...)
# so slow and fast periods of a shared machine hit both alike.
#
# Usage:  bench/rocksdb_optlevel_compile.sh [FILES]     (after cargo build --release)
#   FILES=24: every (N/FILES)-th source of the build's list, so the sample
#   spans the tree (db/, table/, util/, utilities/, ...).
# Prints one line per source (user+system seconds at -O2 and -O3, ratio),
# then the summed CPU at each level and its ratio.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/cc_log.sh"
REPO_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FILES=${1:-24}
TARGET_DIR=${CARGO_TARGET_DIR:-$REPO_DIR/target}
BUILD_DIR=$(ls -td "$TARGET_DIR"/release/build/librocksdb-sys-*/ 2>/dev/null | while read -r d; do
    [ -f "$d/out/librocksdb.a" ] && grep -q 'running: ' "$d/output" && { echo "$d"; break; }; done)
[ -n "${BUILD_DIR:-}" ] || { echo "no librocksdb-sys build with a compiler log under $TARGET_DIR/release/build: cargo build --release first" >&2; exit 1; }
SRC=$(ls -d ~/.cargo/registry/src/*/librocksdb-sys-0.19.0+11.8.1 | head -n1)
WORK=$(mktemp -d /tmp/rumbench-optlevel.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# The build's C++ compiles ("c++" ... "-c" "rocksdb/....cc"), one per line.
grep -h 'running: ' "$BUILD_DIR/output" | grep '"-c"' | grep '\.cc"' > "$WORK/commands"
TOTAL=$(wc -l < "$WORK/commands")
STRIDE=$(( TOTAL / FILES )); (( STRIDE >= 1 )) || STRIDE=1
echo "# $TOTAL C++ sources in $BUILD_DIR; every ${STRIDE}th, $FILES in all"
echo "# source  O2_cpu_s  O3_cpu_s  O2/O3"

compile() {   # compile LINE LEVEL -> user+system seconds
    local level=$2 f args=()
    cc_log_command "$1"
    for f in "${FLAGS[@]}"; do
        case "$f" in -O[0-3s]) args+=("$level") ;; *) args+=("$f") ;; esac
    done
    (cd "$SRC" && /usr/bin/time -f "%U %S" -o "$WORK/time" "$CXX" "${args[@]}" -o "$WORK/out.o" -c "$SOURCE") >/dev/null 2>"$WORK/err" \
        || { echo "compile failed: $CXX ${args[*]} -c $SOURCE" >&2; cat "$WORK/err" >&2; exit 1; }
    read -r u s < "$WORK/time"
    python3 -c "print(round($u + $s, 2))"
}

sum2=0; sum3=0; i=0; n=0
while IFS= read -r line; do
    i=$((i + 1))
    (( (i - 1) % STRIDE == 0 )) || continue
    (( n < FILES )) || break
    n=$((n + 1))
    cc_log_command "$line"; src=$SOURCE
    if (( n % 2 )); then
        o2=$(compile "$line" -O2); o3=$(compile "$line" -O3)
    else
        o3=$(compile "$line" -O3); o2=$(compile "$line" -O2)
    fi
    echo "$src $o2 $o3 $(python3 -c "print(f'{$o2 / $o3:.3f}')")"
    sum2=$(python3 -c "print($sum2 + $o2)"); sum3=$(python3 -c "print($sum3 + $o3)")
done < "$WORK/commands"
python3 -c "print(f'# sum: -O2 {$sum2:.1f} s, -O3 {$sum3:.1f} s CPU, -O2/-O3 {$sum2 / $sum3:.3f}')"
