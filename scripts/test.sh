#!/usr/bin/env bash
# Install what the tests need (build packages and the database servers the
# integration tests start) and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/install-servers.sh
export PATH="$HOME/.cargo/bin:$PATH"
cargo build --release --locked
cargo test --release --locked
