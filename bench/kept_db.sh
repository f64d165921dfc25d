# Sourced by the bench scripts that load databases once and repeat reads on
# them (bench/splinterdb_point_verdict.sh, splinterdb_load_history.sh,
# rocksdb_version_reads.sh): a round of reads then needs no fill, so a
# verdict's 5 to 12 rounds fit in a session at the published sizes.
#
# The caller writes, into $work, one or more load-*.toml (configs and their
# fill steps; run in name order, each with --keep-db into one data dir per
# config) and reads.toml (every config, read steps only), then calls
#   kept_db_reads NAME TITLE COMMAND REPEAT "STEPS" [RUN_ARGS...]
# which runs the loads, then REPEAT interleaved rounds of reads.toml on the
# kept databases (--use-existing-db: each round a fresh process that opens
# them), `rumbench compare` on the rounds, and writes
# bench/results/NAME-STAMP.md (COMMAND, then bench/rounds_table.py's tables of
# STEPS) with the runs' summaries and compare's output beside it. RUN_ARGS go
# to every `rumbench run`. The databases are removed at the end.
#
# suite_settings NUM: the cached suite's settings (key and value sizes, seed,
# range length), num set to NUM; with bench/lib.sh's toml_config and
# toml_step, the pieces the callers write their files with.

suite_settings() {
  sed -e '/^\[\[/,$d' -e "s/^num = [0-9]*$/num = $1/" "$(dirname "${BASH_SOURCE[0]}")/../suites/splinterdb-vs-rocksdb.toml"
}

kept_db_reads() {
  local name=$1 title=$2 command=$3 repeat=$4 steps=$5; shift 5
  local root stamp load base keep
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  stamp=$(date -u +%Y%m%d-%H%M)
  trap 'rm -rf "$work/db"' EXIT
  local common=(--db-dir "$work/db" --progress lines --no-history "$@")
  for load in "$work"/load-*.toml; do
    base=$(basename "$load" .toml)
    logged "$work/$base.log" "$RUMBENCH" run -c "$load" --keep-db -d "$work/$base" "${common[@]}"
  done
  logged "$work/reads.log" "$RUMBENCH" run -c "$work/reads.toml" --use-existing-db --repeat "$repeat" -d "$work/reads" "${common[@]}"
  "$RUMBENCH" compare "$work/reads" >"$work/compare.txt"
  keep="$root/bench/results/$name-$stamp"
  mkdir -p "$keep"
  for load in "$work"/load-*.toml; do
    base=$(basename "$load" .toml)
    cp "$work/$base/summary.txt" "$keep/$base-summary.txt"
  done
  cp "$work/reads/summary.txt" "$keep/reads-summary.txt"
  cp "$work/compare.txt" "$keep/compare.txt"
  {
    echo "# $title ($stamp UTC)"
    echo
    echo '```sh'
    echo "$command"
    echo '```'
    echo
    # shellcheck disable=SC2086 # STEPS is a list of step names
    python3 "$root/bench/rounds_table.py" "$work/reads" "$work/compare.txt" $steps
  } >"$keep.md"
  cat "$keep.md"
  echo "wrote $keep.md" >&2
}
