#!/usr/bin/env bash
# Install what the tests need (build packages, the database servers the
# integration tests start, headless Chromium for the HTML report test) and
# run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/install-servers.sh
./scripts/install-browser.sh             # headless Chromium for the HTML report test
export PATH="$HOME/.cargo/bin:$PATH"
cargo build --release --locked
cargo test --release --locked
# The GPL WiredTiger engine is a cargo feature (off by default): its own tests, with
# WiredTiger built once from its PyPI sdist (scripts/build-wiredtiger.sh, about 3 min).
cargo test --release --locked --features wiredtiger --lib engine::wiredtiger
