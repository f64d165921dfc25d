#!/usr/bin/env bash
# Install what the tests need and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"
cargo build --release --locked
cargo test --release --locked
