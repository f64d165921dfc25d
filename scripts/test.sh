#!/usr/bin/env bash
# Install what the tests need (build packages, the database servers the
# integration tests start, headless Chromium for the HTML report test) and
# run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/install-servers.sh
./scripts/install-browser.sh             # headless Chromium for the HTML report test
./scripts/install-kubernetes-validate.sh # the offline schema check of deploy/kubernetes (tests/deploy.rs)
export PATH="$HOME/.cargo/bin:$PATH"
cargo build --release --locked
# db_bench of the very RocksDB rumbench links, for tests/dbbench_defaults.rs
# (about 40 s the first time on 2 cores, kept in target/dbbench after); with
# RUMBENCH_REQUIRE_DBBENCH the test fails rather than skip when it is missing.
./bench/build_dbbench.sh >/dev/null
# The RocksDB version path (tests/rocksdb_versions.rs): RocksDB 11.8.1 built the
# way another version is (its generated manifest, into a cache, exec'd by the
# config process), reusing this build's librocksdb-sys so that only rumbench's
# crate is compiled (about 3 minutes). An older RocksDB takes 15-20 minutes:
# docs/rocksdb-versions.md, "Tests".
XDG_CACHE_HOME="$PWD/target/test-cache" RUMBENCH_ROCKSDB_BUILD_BUILTIN=1 RUMBENCH_ROCKSDB_TARGET_DIR="$PWD/target" \
    target/release/rumbench rocksdb-versions --build 11.8 >/dev/null
export RUMBENCH_REQUIRE_DBBENCH=1
export RUMBENCH_REQUIRE_K8S_VALIDATE=1
cargo test --release --locked --no-run
cargo test --release --locked --lib
cargo test --release --locked --test servers_stop_all
# The integration tests are one binary (tests/integration.rs), each file a
# module; the modules run one at a time, each in a process of its own, as the
# files were written to (some measure, some load the disk or the CPU).
modules=$(sed -n 's/^mod \([a-z_0-9]*\);$/\1/p' tests/integration.rs | grep -vx common)
[ -n "$modules" ] || { echo "no test modules found in tests/integration.rs" >&2; exit 1; }
for module in $modules; do
    cargo test --release --locked --test integration -- "$module::"
done
# The GPL WiredTiger engine is a cargo feature (off by default): its own tests, with
# WiredTiger built once from its PyPI sdist (scripts/build-wiredtiger.sh, about 3 min).
# In the same build, LevelDB is built with assertions on purpose
# (RUMBENCH_LEVELDB_BUILD_TYPE=Debug, about 30 s): its tests and the test that an
# engine built with assertions is warned about in the run and every report run
# against a real assertion-enabled build. target/release/rumbench is not relinked
# here; the next `cargo build --release` builds LevelDB as Release again.
RUMBENCH_LEVELDB_BUILD_TYPE=Debug cargo test --release --locked --features wiredtiger --lib -- \
    engine::wiredtiger engine::leveldb pipeline_tests::an_engine_built_with_assertions
