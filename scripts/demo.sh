#!/usr/bin/env bash
# Install everything, build, and run the default benchmark on the embedded
# engines (a few minutes). Ends with the summary table, the results path and
# the path of the HTML report (report.html in the run directory), which
# `rumbench run` writes when the run ends.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"
cargo build --release --locked
exec ./target/release/rumbench run --config suites/default.toml "$@"
