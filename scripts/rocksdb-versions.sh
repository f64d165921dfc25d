#!/usr/bin/env bash
# The manifests of the RocksDB versions rumbench can build (src/engine/rocksdb/versions.rs):
# rocksdb-versions/<version>/Cargo.toml, generated from Cargo.toml, and each one's
# Cargo.lock, seeded from the main Cargo.lock so every crate a version shares with
# the default build stays at the same version (cargo resolves only what the older
# librocksdb-sys needs). Run after changing Cargo.toml (a unit test says when).
#
# Usage: scripts/rocksdb-versions.sh            (after cargo build --release)
#        UPDATE=1 scripts/rocksdb-versions.sh   (also reseed every Cargo.lock)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
RUMBENCH=${RUMBENCH:-target/release/rumbench}
"$RUMBENCH" internal-rocksdb-manifests --root "$PWD"
for manifest in rocksdb-versions/*/Cargo.toml; do
    dir=$(dirname "$manifest")
    if [ "${UPDATE:-0}" = 1 ] || [ ! -f "$dir/Cargo.lock" ]; then
        cp Cargo.lock "$dir/Cargo.lock"
        echo "seeded $dir/Cargo.lock"
    fi
    # Resolves what changed (librocksdb-sys and what only it uses, a crate
    # the workspace gained), keeps the rest.
    cargo metadata --manifest-path "$manifest" --format-version 1 >/dev/null
done
