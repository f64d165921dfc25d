#!/usr/bin/env bash
# Install what the tests need (build packages, the database servers the
# integration tests start, headless Chromium for the HTML report test) and
# run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase's time on stderr ("test.sh: PHASE: N s"): what CI's time goes to.
phase_started=$SECONDS
phase() { echo "test.sh: $1: $((SECONDS - phase_started)) s" >&2; phase_started=$SECONDS; }
# bench/results holds evidence, not weight (bench/results/README.md): no
# file over 300 KB, 5 MB in all.
big=$(git ls-files -z bench/results | xargs -0 -r stat -c '%s %n' 2>/dev/null | awk '$1 > 300 * 1024 {print $2 " (" int($1 / 1024) " KB)"}')
total=$(git ls-files -z bench/results | xargs -0 -r stat -c '%s' 2>/dev/null | awk '{s += $1} END {print int(s / 1024)}')
if [ -n "$big" ] || [ "${total:-0}" -gt $((5 * 1024)) ]; then
    echo "test.sh: bench/results must keep files under 300 KB and 5 MB in all (bench/results/README.md): ${total} KB in all${big:+; over 300 KB: $big}" >&2
    exit 1
fi
./scripts/setup.sh # the build packages: before cargo, and the only apt-get before the wait below
phase setup
# The servers the tests start, headless Chromium for the HTML report test and
# the offline schema check of deploy/kubernetes (tests/deploy.rs), mostly
# downloads and unpacking, then WiredTiger's library for the unit tests' build
# (scripts/build-wiredtiger.sh, about 75 s of one core, cached; build.rs finds
# it built, or waits on its lock): in the background while cargo builds, and
# waited for before the tests. Nothing else runs apt-get meanwhile (setup.sh
# installed libgflags-dev for bench/build_dbbench.sh).
installs_log=$(mktemp)
setsid bash -c './scripts/install-servers.sh && ./scripts/install-browser.sh && ./scripts/install-kubernetes-validate.sh && nice -n 10 ./scripts/build-wiredtiger.sh >/dev/null' >"$installs_log" 2>&1 &
installs=$!
# FerretDB 1.24.2, the MongoDB wire-protocol server tests/mongodb.rs starts:
# built once into the cache (Go, CGO_ENABLED=0; a second run does nothing),
# in the background at a lower priority while cargo builds: a cold build is
# minutes of Go, which fills the cores cargo leaves idle (linking, the last
# crates). Waited for before the tests.
ferretdb_out=$(mktemp) ferretdb_err=$(mktemp)
setsid nice -n 10 ./scripts/install-ferretdb.sh --with-cli >"$ferretdb_out" 2>"$ferretdb_err" &
ferretdb_build=$!
# A failure before the wait below stops the build (its own process group), go and all.
trap 'kill -- -"$ferretdb_build" 2>/dev/null || true; kill -- -"$installs" 2>/dev/null || true' EXIT
export PATH="$HOME/.cargo/bin:$PATH"
# The house's habits (docs/contributing.md): formatted as rustfmt.toml says.
cargo fmt --all --check >/dev/null || { echo "test.sh: cargo fmt --check found unformatted code: run cargo fmt" >&2; exit 1; }
# A test build must reuse the release build's crates (Cargo.toml, on the
# features of rumbench-core, regex-automata and simd-adler32): a crate whose
# features the dev-dependencies change would be compiled again, and with it
# rumbench (minutes of CI).
features_of() { cargo tree --quiet --locked -e "features,$1" -f '{p}|{f}' --prefix none --no-dedupe | sed 's/ (\*)//' | sort -t'|' -k1,1 -u; }
differ=$(join -t'|' <(features_of normal) <(features_of normal,dev) | awk -F'|' '$2 != $3 {print $1}')
if [ -n "$differ" ]; then
    echo "test.sh: the dev-dependencies change the features of: $differ; turn those features on in Cargo.toml's [dependencies] (see its comment there)" >&2
    exit 1
fi
cargo build --release --locked
# The Rust example plugin (plugins/rust-example) that tests/plugins.rs runs;
# the C plugins are built by that test itself.
cargo build --release --locked -p rumbench-plugin-example
phase "cargo build"
# db_bench of the very RocksDB rumbench links, for tests/dbbench_defaults.rs
# (about 40 s the first time on 2 cores, kept in target/dbbench after); with
# RUMBENCH_REQUIRE_DBBENCH the test fails rather than skip when it is missing.
./bench/build_dbbench.sh >/dev/null
phase "db_bench build"
# The RocksDB version path (tests/rocksdb_versions.rs): RocksDB 11.8.1 built the
# way another version is (its generated manifest, into a cache, exec'd by the
# config process), reusing this build's librocksdb-sys so that only rumbench's
# crate is compiled (about 3 minutes). An older RocksDB takes 15-20 minutes:
# docs/rocksdb-versions.md, "Tests".
XDG_CACHE_HOME="$PWD/target/test-cache" RUMBENCH_ROCKSDB_BUILD_BUILTIN=1 RUMBENCH_ROCKSDB_TARGET_DIR="$PWD/target" \
    target/release/rumbench rocksdb-versions --build 11.8 >/dev/null
phase "RocksDB 11.8 version build"
# RocksDB's own release builds (tests/rocksdb_versions.rs): rocksdbjni
# 11.8.1's linux64 jar fetched with mvn, its library unpacked, and the one
# rumbench binary every release build shares built, reusing this build's
# dependencies (3.6 minutes here; nothing of RocksDB is compiled); then
# 7.6.0's jar (57 MB), run by that same binary (seconds).
XDG_CACHE_HOME="$PWD/target/test-cache" RUMBENCH_ROCKSDB_TARGET_DIR="$PWD/target" \
    target/release/rumbench rocksdb-versions --build 11.8.1:release >/dev/null
XDG_CACHE_HOME="$PWD/target/test-cache" RUMBENCH_ROCKSDB_TARGET_DIR="$PWD/target" \
    target/release/rumbench rocksdb-versions --build 7.6.0:release >/dev/null
phase "RocksDB 11.8.1 and 7.6.0 release builds (fetched, one binary built)"
export RUMBENCH_REQUIRE_ROCKSDB_RELEASE=1
export RUMBENCH_REQUIRE_DBBENCH=1
export RUMBENCH_REQUIRE_K8S_VALIDATE=1
# The integration tests are one binary (tests/integration.rs), each file a
# module; the modules run one at a time, each in a process of its own, as the
# files were written to (some measure, some load the disk or the CPU). A file
# that is not a module there would never run (Cargo.toml: autotests = false).
for file in tests/*.rs; do
    module=$(basename "$file" .rs)
    case "$module" in integration) continue ;; esac
    grep -qx "mod $module;" tests/integration.rs || { echo "$file is not a module of tests/integration.rs" >&2; exit 1; }
done
modules=$(sed -n 's/^mod \([a-z_0-9]*\);$/\1/p' tests/integration.rs | grep -vx 'common\|servers_stop_all')
cargo test --release --locked --test integration --no-run
phase "test build"
if ! wait "$installs"; then
    cat "$installs_log" >&2
    echo "test.sh: the installs (scripts/install-servers.sh, install-browser.sh, install-kubernetes-validate.sh, build-wiredtiger.sh) failed" >&2
    exit 1
fi
cat "$installs_log" >&2
rm -f "$installs_log"
phase "installs (waited for)"
# clippy on every target, WiredTiger's engine included (its library is built
# now): a warning fails the run; each allow in the code says why.
cargo clippy --release --locked --workspace --all-targets --features wiredtiger -- -D warnings
phase clippy
# The tests measure: nothing else builds while they run.
if ! wait "$ferretdb_build"; then
    cat "$ferretdb_err" >&2
    echo "test.sh: scripts/install-ferretdb.sh --with-cli failed" >&2
    exit 1
fi
cat "$ferretdb_err" >&2 # what it built, and how long it took
RUMBENCH_FERRETDB=$(tail -1 "$ferretdb_out")
export RUMBENCH_FERRETDB
rm -f "$ferretdb_out" "$ferretdb_err"
trap - EXIT
phase "FerretDB build (waited for)"
# Ignored in a plain `cargo test`: it stops every server of its process.
cargo test --release --locked --test integration -- servers_stop_all:: --ignored
phase servers_stop_all
for module in $modules; do
    cargo test --release --locked --test integration -- "$module::"
    phase "$module"
done
# The unit tests (src/), in one build with the GPL WiredTiger engine, a cargo
# feature off by default (WiredTiger built once from its PyPI sdist by
# scripts/build-wiredtiger.sh, about 3 min), and LevelDB built with assertions
# on purpose (RUMBENCH_LEVELDB_BUILD_TYPE=Debug, about 30 s): LevelDB's engine
# tests run against its checks, and the test that an engine built with
# assertions is warned about in the run and every report runs against a real
# assertion-enabled build. One build of the unit tests instead of two (each is a
# compile of the whole crate). target/release/rumbench is not relinked here; the
# next `cargo build --release` builds LevelDB as Release again.
RUMBENCH_LEVELDB_BUILD_TYPE=Debug cargo test --release --locked --workspace --features wiredtiger --lib
phase "unit tests (build and run)"
